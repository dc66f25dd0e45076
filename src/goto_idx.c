/* goto_idx -- goto targets for commands, over an index and windows
 * (goto_idx.h). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "goto_idx.h"
#include "identity.h"
#include "idxcache.h"
#include "index.h"
#include "marks.h"
#include "offtsc.h"
#include "ptdec.h"
#include "tm.h"
#include "trace.h"
#include "window.h"

/* Decoded windows kept while resolving: a few targets need a few. */
#define GOTO_IDX_CACHE_BYTES (16u << 20)

struct goto_idx {
	const struct trace *t;
	size_t stream;
	const struct img *img;
	struct tm_config cfg;
	const struct marks_set *marks;
	struct idx *idx;	/* NULL until a target needs it */
	int idx_status;		/* 0, or why the index could not be had */
	struct win_cache *wc;
	int have_t0;		/* t0 looked for and found */
	uint64_t t0;		/* the trace's time origin (goto_idx_t0()) */
	struct identity mapped;	/* the file's, when it was opened */
	int have_mapped;
};

int goto_idx_new(struct goto_idx **out, const struct trace *t, size_t stream,
		 const struct tm_config *cfg, const struct marks_set *marks)
{
	struct goto_idx *g;
	int r;

	if (!out || !t || !cfg || stream >= t->nstreams)
		return -pte_invalid;
	g = calloc(1, sizeof(*g));
	if (!g)
		return -pte_nomem;
	g->t = t;
	/* (the caller opened the trace right before) */
	g->have_mapped = !identity_of_trace(&g->mapped, t);
	g->stream = stream;
	g->img = &t->streams[stream].img;
	g->cfg = *cfg;
	g->marks = marks;
	r = win_cache_new(&g->wc, g->img, NULL, GOTO_IDX_CACHE_BYTES);
	if (r < 0) {
		free(g);
		return r;
	}
	win_cache_set_timing(g->wc, &g->cfg);
	*out = g;
	return 0;
}

void goto_idx_free(struct goto_idx *g)
{
	if (!g)
		return;
	win_cache_free(g->wc);
	idx_free(g->idx);
	free(g);
}

/* Windows start from the index's time model state at their PSB. */
static int goto_idx_carry(void *ctx, uint64_t psb, struct tm_carry *out)
{
	struct goto_idx *g = ctx;
	struct idx_seek sk;
	size_t i;

	if (!g->idx || idx_find(g->idx, psb, &i) || idx_seek(g->idx, i, &sk) ||
	    sk.offset != psb)
		return 1;
	return idx_seek_carry(g->idx, i, out);
}

/* The index, from the cache or built (with times) and then cached.
 * Returns 0, or a negative pte code with a message in @err. */
static int goto_idx_index(struct goto_idx *g, char *err, size_t len)
{
	struct win_psb_ops ops = { .carry = goto_idx_carry };
	int r;

	if (g->idx || g->idx_status) {
		if (g->idx_status)
			snprintf(err, len, "goto: no index: %s", pte_strerror(g->idx_status));
		return g->idx_status;
	}
	r = idx_new(&g->idx, g->img, &g->cfg);
	if (r < 0)
		goto out_err;
	idx_set_guard(g->idx, trace_guard);
	idx_set_time_pass(g->idx, 1);
	/* (saved: the next command finds it) */
	r = idxcache_load_or_build(g->idx, g->t, (int)g->stream,
				   g->have_mapped ? &g->mapped : NULL);
	if (r < 0)
		goto out_err;
	ops.ctx = g;
	win_cache_set_psb_ops(g->wc, &ops);
	return 0;
out_err:
	idx_free(g->idx);
	g->idx = NULL;
	g->idx_status = r;
	snprintf(err, len, "goto: no index: %s", pte_strerror(r));
	return r;
}

static int goto_idx_psb_offset(void *arg, uint64_t n, uint64_t *off, char *err,
			       size_t len)
{
	struct goto_idx *g = arg;
	struct idx_seek sk;
	int r = goto_idx_index(g, err, len);

	if (r < 0)
		return r;
	if (idx_seek(g->idx, (size_t)n, &sk)) {
		snprintf(err, len, "goto: there is no psb %" PRIu64 " (%zu in all)",
			 n, idx_nseeks(g->idx));
		return -pte_eos;
	}
	*off = sk.offset;
	return 0;
}

static int goto_idx_psb_number(void *arg, uint64_t off, int64_t *n, char *err,
			       size_t len)
{
	struct goto_idx *g = arg;
	int r = goto_idx_index(g, err, len);
	size_t i;

	if (r < 0)
		return r;
	*n = goto_idx_psb_known(g->idx, off, &i) ? -1 : (int64_t)i;
	return 0;
}

int goto_idx_psb_known(const struct idx *idx, uint64_t off, size_t *i)
{
	struct idx_progress p;

	/* (the snapshot first: every PSB below its scanned is published) */
	idx_progress(idx, &p);
	if (!idx_scan_done(idx) && off >= p.scanned)
		return p.finished ? 2 : 1;	/* stopped (C-c): for good */
	return idx_find(idx, off, i) ? -pte_nosync : 0;
}

/* From seek point @seg's PSB on, the first row for which @hit() holds,
 * however long the segment (a command may take its time; the browser
 * looks in the background, ui/goto_job.h); *@off gets its offset.
 * Returns 1 if a row was found, 0 if none up to the end, -pte_eos if
 * @seg does not exist. */
static int goto_idx_scan(struct goto_idx *g, size_t seg,
			 int (*hit)(const struct win_row *, uint64_t), uint64_t v,
			 uint64_t *off)
{
	struct win_iter it = { 0 };
	struct idx_seek sk;
	int found = 0;

	if (idx_seek(g->idx, seg, &sk))
		return -pte_eos;
	if (win_seek(&it, g->wc, sk.offset))
		return 0;
	do {
		if (hit(win_row(&it), v)) {
			*off = win_row(&it)->pkt.offset;
			found = 1;
			break;
		}
	} while (!win_next(&it));
	win_iter_release(&it);
	return found;
}

int goto_idx_tsc_hit(const struct win_row *row, uint64_t tsc)
{
	/* (WIN_F_HAVE_TSC starts clear in each segment) */
	if ((row->flags & WIN_F_PSBPLUS) && !(row->flags & WIN_F_HAVE_TSC))
		return 0;
	return (row->ts.flags & TM_F_TSC) && row->ts.tsc >= tsc;
}

int goto_idx_find_tsc(const struct idx *idx, uint64_t tsc, size_t *seg)
{
	struct idx_summary a, b;
	int r = idx_find_tsc(idx, tsc, seg), n = 64;

	/* (not from the last segment before @tsc alone: where time went
	 * back, one before ends later than @tsc, and its rows past @tsc
	 * are no packet at @tsc) */
	while (!r && *seg && n-- && !idx_summary_counts(idx, *seg, &b) && b.have_tsc &&
	       b.first_tsc == tsc && !idx_summary_counts(idx, *seg - 1, &a) && a.have_tsc &&
	       !a.tsc_back && a.last_tsc == tsc)
		(*seg)--;
	return r;
}

static int goto_idx_tsc(void *arg, uint64_t tsc, uint64_t *off, char *err,
			size_t len)
{
	struct goto_idx *g = arg;
	size_t seg;
	int r = goto_idx_index(g, err, len);

	if (r < 0)
		return r;
	if (goto_idx_find_tsc(g->idx, tsc, &seg) ||
	    (r = goto_idx_scan(g, seg, goto_idx_tsc_hit, tsc, off)) < 0) {
		snprintf(err, len, "goto: no time information in the trace");
		return -pte_no_time;
	}
	/* Past the last TSC: no such packet, as past the last cycle. */
	if (!r) {
		snprintf(err, len, "goto: no packet has a TSC at or after 0x%" PRIx64, tsc);
		return -pte_eos;
	}
	return 0;
}

int goto_idx_origin(struct win_cache *wc, const struct idx *idx,
		    const struct trace *t, int stream, uint64_t *t0)
{
	struct win_iter it = { 0 };
	uint64_t o;
	int n = 50000, have = 0;

	if (!win_seek(&it, wc, 0)) {
		do {
			if (win_row(&it)->ts.flags & TM_F_TSC) {
				*t0 = win_row(&it)->ts.tsc;
				have = 1;
				break;
			}
		} while (n-- && !win_next(&it));
	}
	win_iter_release(&it);
	if (have && idx)
		idx_time_origin(idx, t0);
	if (!offtsc_streams_first(t, (size_t)stream, have ? t0 : NULL, &o) &&
	    (!have || o < *t0)) {
		*t0 = o;
		have = 1;
	}
	return have ? 0 : -pte_no_time;
}

static int goto_idx_t0(struct goto_idx *g)
{
	if (!g->have_t0)
		g->have_t0 = !goto_idx_origin(g->wc, g->idx, g->t, g->stream, &g->t0);
	return g->have_t0 ? 0 : -pte_no_time;
}

int goto_idx_time_tsc(const struct tm_config *cfg, uint64_t t0, uint64_t ns,
		      uint64_t *tsc, char *err, size_t len)
{
	double hz = (double)tm_tsc_hz(cfg, 1);
	uint64_t n0, n;
	int r, k;

	if (hz <= 0)
		return -pte_no_time;
	r = goto_tsc_after(t0, ns, hz, tsc, err, len);
	if (r < 0 || tm_tsc_to_ns(cfg, t0, &n0))
		return r;	/* (shown at hz: the whole ticks up are it) */
	/* Shown as a difference of two ns counts (each rounded down, or
	 * perf's conversion): a tick or a few either way. */
	for (k = 0; k < 64 && *tsc > t0 && !tm_tsc_to_ns(cfg, *tsc - 1, &n) &&
		    n >= n0 && n - n0 >= ns; k++)
		(*tsc)--;
	for (k = 0; k < 64 && *tsc < UINT64_MAX && !tm_tsc_to_ns(cfg, *tsc, &n) &&
		    (n < n0 || n - n0 < ns); k++)
		(*tsc)++;
	return 0;
}

static int goto_idx_time(void *arg, uint64_t ns, uint64_t *off, char *err,
			 size_t len)
{
	struct goto_idx *g = arg;
	double hz = (double)tm_tsc_hz(&g->cfg, 1);
	uint64_t tsc;

	/* (the index first: it says where the time range starts) */
	if (hz > 0 && goto_idx_index(g, err, len) < 0)
		return -pte_no_time;
	if (hz <= 0 || goto_idx_t0(g) < 0) {
		snprintf(err, len, "goto: no timing to go by%s", hz <= 0 ?
			 " (no TSC frequency: give the timing options)" : "");
		return -pte_no_time;
	}
	if (goto_idx_time_tsc(&g->cfg, g->t0, ns, &tsc, err, len) < 0)
		return -pte_eos;
	return goto_idx_tsc(arg, tsc, off, err, len);
}

int goto_idx_row_tsc(struct win_iter *it, uint64_t *tsc)
{
	const struct win_row *row = win_row(it);
	int n = 64;	/* (a PSB+ is short; a damaged one ends the look) */

	while ((row->flags & WIN_F_PSBPLUS) && !(row->ts.flags & TM_F_TSC) &&
	       n-- && !win_next(it)) {
		row = win_row(it);
		if (row->pkt.type == PKT_PSB)
			return -pte_no_time;	/* the next PSB+: none in this one */
	}
	if (!(row->ts.flags & TM_F_TSC))
		return -pte_no_time;
	*tsc = row->ts.tsc;
	return 0;
}

static int goto_idx_time_at(void *arg, uint64_t off, uint64_t *ns, char *err,
			    size_t len)
{
	struct goto_idx *g = arg;
	struct win_iter it = { 0 };
	double hz = (double)tm_tsc_hz(&g->cfg, 1), d = NAN;
	uint64_t tsc, n0, n1;

	if (goto_idx_index(g, err, len) < 0)
		return -pte_no_time;
	/* As the times are shown: perf's own conversion where there is one
	 * (tm_tsc_to_ns()), else ticks at the TSC frequency (P1's too). */
	if (hz > 0 && !goto_idx_t0(g) && !win_seek(&it, g->wc, off) &&
	    !goto_idx_row_tsc(&it, &tsc))
		d = !tm_tsc_to_ns(&g->cfg, g->t0, &n0) &&
		    !tm_tsc_to_ns(&g->cfg, tsc, &n1) ? (double)n1 - (double)n0 :
		    ((double)tsc - (double)g->t0) * 1e9 / hz;
	win_iter_release(&it);
	if (isnan(d)) {
		snprintf(err, len, "goto: 0x%" PRIx64 " has no time", off);
		return -pte_no_time;
	}
	*ns = d < 0 ? 0 : (uint64_t)d;
	return 0;
}

int goto_idx_cyc_hit(const struct win_row *row, uint64_t cyc)
{
	return (row->ts.flags & TM_F_CYC) && !(row->flags & WIN_F_SEG_REL) &&
	       row->ts.cycles >= cyc;
}

static int goto_idx_cycles(void *arg, uint64_t cyc, uint64_t *off, char *err,
			   size_t len)
{
	struct goto_idx *g = arg;
	struct tm_carry c;
	size_t lo = 0, hi, mid;
	int r = goto_idx_index(g, err, len);

	if (r < 0)
		return r;
	hi = idx_nseeks(g->idx);
	if (!hi || idx_seek_carry(g->idx, 0, &c)) {
		snprintf(err, len, "goto: no cycle counts");
		return -pte_no_time;
	}
	/* Invariant: seek point lo counts < cyc (or is the first): rows
	 * of the segment before one that starts at @cyc may have @cyc. */
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (idx_seek_carry(g->idx, mid, &c))
			break;
		if (c.cycles < cyc)
			lo = mid;
		else
			hi = mid;
	}
	if (goto_idx_scan(g, lo, goto_idx_cyc_hit, cyc, off) <= 0) {
		snprintf(err, len, "goto: no packet at or after %" PRIu64 " cycles",
			 cyc);
		return -pte_eos;
	}
	return 0;
}

static int goto_idx_cycles_at(void *arg, uint64_t off, uint64_t *cyc, char *err,
			      size_t len)
{
	struct goto_idx *g = arg;
	struct win_iter it = { 0 };
	int r = -pte_no_time;

	if (goto_idx_index(g, err, len) < 0)
		return -pte_no_time;
	if (!win_seek(&it, g->wc, off) && (win_row(&it)->ts.flags & TM_F_CYC) &&
	    !(win_row(&it)->flags & WIN_F_SEG_REL)) {
		*cyc = win_row(&it)->ts.cycles;
		r = 0;
	}
	win_iter_release(&it);
	if (r)
		snprintf(err, len, "goto: 0x%" PRIx64 " has no cycle count", off);
	return r;
}

static int goto_idx_ordinal(void *arg, uint64_t ord, uint64_t *off, char *err,
			    size_t len)
{
	struct goto_idx *g = arg;
	struct win_iter it = { 0 };
	struct idx_summary s;
	struct idx_seek sk;
	size_t seg;
	int r = goto_idx_index(g, err, len);

	if (r < 0)
		return r;
	if (idx_find_ordinal(g->idx, ord, &seg) || idx_summary(g->idx, seg, &s) ||
	    idx_seek(g->idx, seg, &sk)) {
		snprintf(err, len, "goto: #%" PRIu64 ": no such packet", ord);
		return -pte_eos;
	}
	*off = sk.offset;
	if (!win_seek(&it, g->wc, sk.offset)) {
		uint64_t n = ord - s.first_ordinal;

		while (n-- && !win_next(&it))
			;
		*off = win_row(&it)->pkt.offset;
	}
	win_iter_release(&it);
	return 0;
}

static int goto_idx_mark(void *arg, const char *name, uint64_t *off, char *err,
			 size_t len)
{
	struct goto_idx *g = arg;
	long i = g->marks ? marks_find(g->marks, name) : -1;

	if (i < 0 || marks_at(g->marks, (size_t)i)->kind == BM_REGION) {
		snprintf(err, len, "goto: no mark '%s'", name);
		return -pte_invalid;
	}
	*off = marks_at(g->marks, (size_t)i)->from;
	return 0;
}

static int goto_idx_region(void *arg, const char *name, uint64_t *off, char *err,
			   size_t len)
{
	struct goto_idx *g = arg;
	long i = g->marks ? marks_find(g->marks, name) : -1;

	if (i < 0) {
		snprintf(err, len, "goto: no region or bookmark '%s'", name);
		return -pte_invalid;
	}
	*off = marks_at(g->marks, (size_t)i)->from;
	return 0;
}

void goto_idx_ctx(struct goto_idx *g, uint64_t cursor, struct goto_ctx *ctx)
{
	*ctx = (struct goto_ctx){
		.cursor = cursor, .size = g->img->size, .arg = g,
		.psb_offset = goto_idx_psb_offset,
		.psb_number = goto_idx_psb_number,
		.tsc_offset = goto_idx_tsc, .time_offset = goto_idx_time,
		.time_at = goto_idx_time_at, .ordinal_offset = goto_idx_ordinal,
		.mark_offset = goto_idx_mark, .region_offset = goto_idx_region,
		.cycles_offset = goto_idx_cycles,
		.cycles_at = goto_idx_cycles_at,
	};
}

int goto_idx_offset(struct goto_idx *g, const char *arg, uint64_t cursor,
		    uint64_t *off, char *err, size_t errlen)
{
	struct goto_ctx ctx;

	if (!g || !arg || !off || !err || !errlen)
		return -pte_invalid;
	goto_idx_ctx(g, cursor, &ctx);
	return goto_offset(arg, &ctx, off, err, errlen);
}
