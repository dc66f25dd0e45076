/* tl_cols -- the timeline's columns: the whole axis (bytes or time), axis
 * value to column, and what each column holds (packet density, trouble,
 * PSBs), from the index or a bounded walk; the marker row's cells. */
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "tl_cols.h"
#include "term.h"
#include "tl_lanes.h"
#include "ui.h"

/* Ranges binned row by row instead of from the index's summaries. */
#define TL_FINE_BYTES (512u << 10)
#define TL_FINE_ROWS 600000
/* Above this many segments the columns sample the summaries. */
#define TL_EXACT_SEGMENTS 2048
#define TL_SAMPLES 5

struct tl_cache tl_cols_cache;

/* Decoding from the last PSB to the end costs this much at most here;
 * past it the index's totals tell the end of time. */
#define TL_TAIL_MAX (1u << 20)

/* The TSC of the last row (decoding one window at the end), or 0. */
static uint64_t tl_cols_last_tsc(struct ui *ui)
{
	static const struct win_cache *wc;
	static uint64_t size, tsc;
	struct win_iter it = { 0 };
	uint64_t end = ui->img->size ? ui->img->size - 1 : 0, psb;
	int n = WIN_MAX_ROWS;

	if (wc == ui->wc && size == ui->img->size)
		return tsc;
	tsc = 0;
	/* A long last segment: a time near its start will do for now. */
	if (!win_psb_at_or_before(ui->wc, end, &psb) && end - psb > TL_TAIL_MAX)
		end = psb + TL_TAIL_MAX / 16;
	if (!win_seek(&it, ui->wc, end)) {
		do {
			if (win_row(&it)->ts.flags & TM_F_TSC) {
				tsc = win_row(&it)->ts.tsc;
				break;
			}
		} while (n-- && !win_prev(&it));
	}
	win_iter_release(&it);
	wc = ui->wc;
	size = ui->img->size;
	return tsc;
}

/*
 * The end of the time segment @i (summary @s) covers: the next segment's
 * first TSC (a PSB+ carries one: the time the trace reached it), or its
 * own last TSC packet.  Segments whose only TSC is in their PSB+ would
 * otherwise pile all their packets into one instant.
 */
static uint64_t tl_cols_seg_end(struct ui *ui, size_t i, const struct idx_summary *s)
{
	struct idx_summary n;
	uint64_t ceil;

	/* (not a damaged one's: its time contradicts its neighbours'; and
	 * the next one's where this one's last TSC is damaged, past it) */
	if (!idx_summary(ui->idx, i + 1, &n) && n.have_tsc && !idx_time_outlier(ui->idx, i + 1) &&
	    (n.first_tsc > s->last_tsc ||
	     (idx_time_ceiling(ui->idx, i, &ceil) && s->last_tsc > ceil)))
		return n.first_tsc;
	return s->last_tsc + 1;
}

/* The time range of the trace: the first TSC to the last row's estimate
 * (the index's totals where it knows more).  Returns 1, or 0 if unknown. */
int tl_cols_time_range(struct ui *ui, uint64_t *t0, uint64_t *t1)
{
	struct idx_summary tot;
	uint64_t a = ui->have_t0 ? ui->t0 : 0, b = tl_cols_last_tsc(ui);

	if (ui->idx && idx_totals(ui->idx, &tot) >= 0 && tot.have_tsc) {
		if (!a || tot.first_tsc < a)
			a = tot.first_tsc;
		/* Complete, the index knows the end better than the last
		 * row: that may be an outlier segment's (a damaged TSC). */
		if (tot.last_tsc > b || idx_complete(ui->idx))
			b = tot.last_tsc;
	}
	/* CPU lanes: the axis of the whole recording, the same on every
	 * stream */
	if (a && b > a)
		tl_lanes_span(ui, &a, &b);
	if (!a || b <= a)
		return 0;
	*t0 = a;
	*t1 = b;
	return 1;
}

/* Whether the timeline shows time (asked for, and available). */
int tl_cols_is_time(struct ui *ui)
{
	uint64_t a, b;

	return ui->tl_time && tl_cols_time_range(ui, &a, &b);
}

/* The TSC of the row holding @off, or 0 if it has none. */
/*
 * Rows' TSCs looked up for the time axis, kept: a drawing asks for one a
 * column (search hits, stalls, region edges) all over the view, more
 * windows than the window cache holds, so every drawing decoded them all
 * again (seconds on a 4 MiB trace, the browser busy while idle).  Kept
 * only once the index is complete (a time no longer changes), for one
 * window cache, trace and index: another (a reload, a stream) starts a
 * new generation.
 */
#define ROW_TSC_SLOTS 4096
static struct row_tsc {
	uint64_t off, tsc;
	uint32_t gen;		/* 0: empty */
	uint8_t used;		/* in a set's first: its way used last */
} row_tsc[ROW_TSC_SLOTS];
static struct {
	const void *wc, *img, *idx;
	uint64_t size;
	uint32_t gen;
} row_tsc_of;

/* The generation of the row TSCs kept for @ui's trace now, or 0 if none
 * may be kept (the index is not complete). */
static uint32_t tl_cols_row_gen(struct ui *ui)
{
	if (!ui->idx || !idx_complete(ui->idx))
		return 0;
	if (row_tsc_of.wc != ui->wc || row_tsc_of.img != ui->img ||
	    row_tsc_of.idx != ui->idx || row_tsc_of.size != ui->img->size ||
	    !row_tsc_of.gen) {
		row_tsc_of.wc = ui->wc;
		row_tsc_of.img = ui->img;
		row_tsc_of.idx = ui->idx;
		row_tsc_of.size = ui->img->size;
		if (!++row_tsc_of.gen)
			row_tsc_of.gen = 1;
	}
	return row_tsc_of.gen;
}

uint64_t tl_cols_row_tsc(struct ui *ui, uint64_t off)
{
	struct win_iter it = { 0 };
	/* two ways a set: two offsets a drawing asks for both that fell in
	 * one slot pushed each other out, and each was decoded again at
	 * every drawing (8 of a search's hits on a trace with 64 MB
	 * segments: 280 ms a key) */
	struct row_tsc *set = &row_tsc[((off * 0x9e3779b97f4a7c15ull) >> 53) << 1], *slot;
	uint32_t gen = tl_cols_row_gen(ui);
	uint64_t t = 0;
	int w;

	for (w = 0; gen && w < 2; w++)
		if (set[w].gen == gen && set[w].off == off) {
			/* (the other is the one to replace next) */
			set[0].used = w;
			return set[w].tsc;
		}
	if (!win_seek(&it, ui->wc, off) && (win_row(&it)->ts.flags & TM_F_TSC))
		t = win_row(&it)->ts.tsc;
	win_iter_release(&it);
	if (gen) {
		w = set[0].gen != gen ? 0 : set[1].gen != gen ? 1 : !set[0].used;
		slot = &set[w];
		slot->off = off;
		slot->tsc = t;
		slot->gen = gen;
		set[0].used = w;
	}
	return t;
}

void tl_cols_whole(struct ui *ui, int time, uint64_t *a, uint64_t *b, uint64_t *c)
{
	*a = 0;
	*b = ui->img->size;
	*c = ui->cursor;
	if (time) {
		tl_cols_time_range(ui, a, b);
		*c = tl_cols_row_tsc(ui, ui->cursor);
	}
}

void tl_cols_offer(struct tl_cell *cell, const char *g, int attr, int rank)
{
	if (rank <= cell->rank)
		return;
	cell->g = g;
	cell->attr = attr;
	cell->rank = rank;
}

/* Add segment @s's packets to the columns covered by [@a, @b) of the
 * axis (its trouble: tl_cols_trouble()). */
static void tl_cols_spread(struct tl_cache *tc, uint64_t a, uint64_t b,
		      const struct idx_summary *s)
{
	double w = (double)(tc->hi - tc->lo) / tc->ncols;
	long c0, c1, c;

	if (b <= tc->lo || a >= tc->hi)
		return;
	c0 = a <= tc->lo ? 0 : (long)((a - tc->lo) / w);
	c1 = b >= tc->hi ? tc->ncols - 1 : (long)((b - 1 - tc->lo) / w);
	if (c1 >= tc->ncols)
		c1 = tc->ncols - 1;
	if (c1 < c0)
		c1 = c0;
	for (c = c0; c <= c1; c++) {
		tc->col[c].known = 1;
		if (!s)
			continue;
		tc->col[c].packets += (double)s->npackets / (double)(c1 - c0 + 1);
	}
	if (a >= tc->lo)
		tc->col[c0].psbs++;
}

/* The column of axis value @v, or -1 outside. */
int tl_cols_of(const struct tl_cache *tc, uint64_t v)
{
	if (v < tc->lo || v >= tc->hi || tc->hi <= tc->lo)
		return -1;
	return (int)((double)(v - tc->lo) * tc->ncols / (double)(tc->hi - tc->lo));
}

/*
 * A small trace, or a close zoom, is binned row by row from the windows
 * (a bounded walk), which shows far more than per-segment summaries.
 * Returns 1 if it did so.
 */
static int tl_cols_fine(struct ui *ui, struct tl_cache *tc)
{
	struct win_iter it = { 0 };
	uint64_t start = tc->time ? 0 : tc->lo;
	long budget = TL_FINE_ROWS;
	int c;

	if (tc->time ? ui->img->size > TL_FINE_BYTES : tc->hi - tc->lo > TL_FINE_BYTES)
		return 0;
	if (win_seek(&it, ui->wc, start))
		return 0;
	for (c = 0; c < tc->ncols; c++)
		tc->col[c].known = 1;
	do {
		const struct win_row *row = win_row(&it);
		uint64_t v = row->pkt.offset;

		if (!tc->time && v >= tc->hi)
			break;
		if (tc->time) {
			if (!(row->ts.flags & TM_F_TSC))
				continue;
			v = row->ts.tsc;
		}
		c = tl_cols_of(tc, v);
		/* the axis ends at the last row's time: that row (maybe the
		 * trouble of data lost after it) is in the last column */
		if (c < 0 && tc->time && v == tc->hi && tc->ncols > 0)
			c = tc->ncols - 1;
		if (c < 0)
			continue;
		tc->col[c].packets++;
		if (win_row_trouble(row))
			tc->col[c].trouble++;
		if (row->pkt.type == PKT_PSB)
			tc->col[c].psbs++;
	} while (budget-- > 0 && !win_next(&it));
	win_iter_release(&it);
	for (c = 0; c < tc->ncols; c++)
		if (tc->col[c].packets > tc->max)
			tc->max = tc->col[c].packets;
	return 1;
}

static double tl_cols_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The segment holding axis value @v (an offset, or a TSC) in *@seg.
 * Returns 0, or 1 if the index does not know it yet: on the time axis a
 * time past the segments summarised so far (idx_find_tsc() then names
 * the last one, whose summary says nothing of later time). */
static int tl_cols_seg_of(struct ui *ui, int time, uint64_t v, size_t *seg)
{
	*seg = 0;
	if (time)
		return idx_find_tsc(ui->idx, v, seg) ? 1 : 0;
	/* bytes before the first PSB: segment 0's column; what the scan has
	 * not reached yet the caller tells from its progress */
	if (idx_find(ui->idx, v, seg))
		*seg = 0;
	return 0;
}

/*
 * Many segments: each column looks up its first and last segment (binary
 * searches) and samples TL_SAMPLES summaries between them for the packet
 * density (packets per byte, or per TSC tick), so a redraw costs the same
 * for a 4 GiB trace as for a small one.  OVFs and errors come from the
 * index's trouble list, so none is missed by sampling.
 */
static void tl_cols_sampled(struct ui *ui, struct tl_cache *tc, size_t nsum, size_t nseeks)
{
	double w = (double)(tc->hi - tc->lo) / tc->ncols;
	struct idx_progress p;
	uint64_t scanned;
	int c, k;

	idx_progress(ui->idx, &p);
	scanned = idx_scan_done(ui->idx) ? ui->img->size : p.scanned;
	for (c = 0; c < tc->ncols; c++) {
		struct tl_col *col = &tc->col[c];
		uint64_t a = tc->lo + (uint64_t)(c * w), b = tc->lo + (uint64_t)((c + 1) * w);
		double npk = 0, span = 0;
		size_t sa, sb, sp;

		if (!tc->time && b > scanned)
			continue;	/* not scanned yet */
		/* not summarised yet: unknown, as on the byte axis */
		if (tl_cols_seg_of(ui, tc->time, a, &sa) ||
		    tl_cols_seg_of(ui, tc->time, b ? b - 1 : 0, &sb) || sa >= nsum)
			continue;
		if (sb < sa)
			sb = sa;
		col->known = 1;
		col->psbs = (uint32_t)(sb - sa + (c == 0 || tl_cols_seg_of(ui, tc->time, a - 1, &sp) ||
						 sa != sp));
		for (k = 0; k < TL_SAMPLES; k++) {
			size_t i = sa + (sb - sa) * (size_t)k / (TL_SAMPLES - 1);
			struct idx_summary s;

			if (i >= nsum || idx_summary(ui->idx, i, &s))
				continue;
			if (tc->time) {
				if (!s.have_tsc)
					continue;
				span += (double)(tl_cols_seg_end(ui, i, &s) - s.first_tsc);
			} else {
				span += (double)s.size;
			}
			npk += (double)s.npackets;
			if (sa == sb)
				break;
		}
		if (span > 0)
			col->packets = npk / span * w;
	}
	(void)nseeks;
}

/*
 * A segment's OVFs, errors and gaps go in the columns where they are, not
 * in every column the segment covers (one OVF in a 4 MiB segment made the
 * whole row '!').  A segment within one column puts them there; a longer
 * one is walked row by row over the part the view shows.  This runs on
 * the UI thread, so a computation walks TL_TROUBLE_ROWS rows at most (a
 * few ms), and what the walks found is kept (tl_tr: the bytes walked and
 * the trouble rows in them): a view change or a redraw places what is
 * known at once and walks on from where the walks stopped, never the same
 * rows twice (starting over at every view change cost 30 ms a key on a
 * 16 MiB segment).  Trouble not placed yet is a '?' at the start of each
 * part of the view not walked yet (tl_col.unplaced), never a '!' where
 * no trouble was seen; a redraw while some is left walks on
 * (tl_cols_compute()).
 */
#define TL_TROUBLE_ROWS (3 * WIN_MAX_ROWS)
#define TL_TR_SPANS 1024
#define TL_TR_HITS 16384

/* Bytes walked [a, b) (row starts), the times of their first and last
 * timed rows (0: none). */
struct tl_span {
	uint64_t a, b, ta, tb;
};

/* A trouble row: its offset, time (0: none), and segment (a gap on the
 * next PSB's row is counted for the segment before, as the index does). */
struct tl_hit {
	uint64_t off, tsc;
	size_t seg;
};

/* What the walks found, for one window cache, trace and index. */
static struct {
	const void *wc, *img, *idx;
	uint64_t size;
	int complete;
	size_t nspans, nhits;
	struct tl_span span[TL_TR_SPANS];
	struct tl_hit hit[TL_TR_HITS];
	int pending;		/* trouble in view left to walk for */
} tl_tr;

struct tl_trouble {
	struct ui *ui;
	struct tl_cache *tc;
	long budget;		/* rows the walks may still decode */
	int reset;		/* tl_tr was emptied for room this time */
	int full;		/* a walk found no room to keep its finds */
};

/* A segment with trouble: its summary, bytes [psb, to), axis span [a, b). */
struct tl_seg {
	size_t i;
	struct idx_summary s;
	uint64_t psb, to, a, b;
};

/* Forget what the walks found if it was of another trace, index or
 * window cache, or of the index before it was complete (rows' times). */
static void tl_tr_check(struct ui *ui)
{
	int complete = idx_complete(ui->idx);

	if (tl_tr.wc == ui->wc && tl_tr.img == ui->img && tl_tr.idx == ui->idx &&
	    tl_tr.size == ui->img->size && tl_tr.complete == complete)
		return;
	tl_tr.wc = ui->wc;
	tl_tr.img = ui->img;
	tl_tr.idx = ui->idx;
	tl_tr.size = ui->img->size;
	tl_tr.complete = complete;
	tl_tr.nspans = tl_tr.nhits = 0;
}

/* The first span ending after byte @p. */
static size_t tl_tr_span_after(uint64_t p)
{
	size_t lo = 0, hi = tl_tr.nspans;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tl_tr.span[mid].b > p)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* The first hit at or after byte @p. */
static size_t tl_tr_hit_at(uint64_t p)
{
	size_t lo = 0, hi = tl_tr.nhits;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tl_tr.hit[mid].off >= p)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* Keep bytes [@a, @b) as walked, joined to the spans it touches.
 * Returns 0, or -1 if there is no room. */
static int tl_tr_add_span(uint64_t a, uint64_t b, uint64_t ta, uint64_t tb)
{
	size_t k = tl_tr_span_after(a ? a - 1 : 0), j;
	struct tl_span n = { a, b, ta, tb };

	/* (spans never overlap: a walk stops at the next one) */
	if (k < tl_tr.nspans && tl_tr.span[k].b == a) {
		n.a = tl_tr.span[k].a;
		n.ta = tl_tr.span[k].ta ? tl_tr.span[k].ta : ta;
		j = k + 1;
	} else {
		j = k;
	}
	if (j < tl_tr.nspans && tl_tr.span[j].a == b) {
		n.b = tl_tr.span[j].b;
		n.tb = tl_tr.span[j].tb ? tl_tr.span[j].tb : tb;
		j++;
	}
	if (j == k && tl_tr.nspans == TL_TR_SPANS)
		return -1;
	memmove(&tl_tr.span[k + 1], &tl_tr.span[j], (tl_tr.nspans - j) * sizeof(n));
	tl_tr.span[k] = n;
	tl_tr.nspans -= j - k - 1;
	return 0;
}

/* Keep a trouble row.  Returns 0, or -1 if there is no room. */
static int tl_tr_add_hit(uint64_t off, uint64_t tsc, size_t seg)
{
	size_t k = tl_tr_hit_at(off);
	struct tl_hit h = { off, tsc, seg };

	if (tl_tr.nhits == TL_TR_HITS)
		return -1;
	memmove(&tl_tr.hit[k + 1], &tl_tr.hit[k], (tl_tr.nhits - k) * sizeof(h));
	tl_tr.hit[k] = h;
	tl_tr.nhits++;
	return 0;
}

/* The trouble rows of segment @g found so far. */
static uint32_t tl_tr_count(const struct tl_seg *g)
{
	size_t k = tl_tr_hit_at(g->psb);
	uint32_t n = 0;

	for (; k < tl_tr.nhits && tl_tr.hit[k].off <= g->to; k++)
		n += tl_tr.hit[k].seg == g->i;
	return n;
}

/* The column of axis value @v: the time axis ends at the last row's
 * time, that row's column; if @clamp, the first if @v is before the
 * view.  -1 if none. */
static int tl_trouble_col(const struct tl_cache *tc, uint64_t v, int clamp)
{
	int c = tl_cols_of(tc, v);

	if (c < 0 && v == tc->hi && tc->ncols > 0)
		c = tc->ncols - 1;
	if (c < 0 && clamp && v < tc->lo && tc->ncols > 0)
		c = 0;
	return c;
}

/* Add @n troubles at axis value @v. */
static void tl_trouble_put(struct tl_cache *tc, uint64_t v, uint32_t n)
{
	int c = tl_trouble_col(tc, v, 0);

	if (c >= 0)
		tc->col[c].trouble += n;
}

/* @n troubles not placed yet, maybe in [@v, @b) of the axis, a part not
 * walked: '?' in its first column; in each of its columns if there are as
 * many as columns. */
static void tl_trouble_rest(struct tl_cache *tc, uint64_t v, uint64_t b, uint32_t n)
{
	int c0 = tl_trouble_col(tc, v, 1), c1 = b >= tc->hi ? tc->ncols - 1 : tl_cols_of(tc, b - 1), c;

	if (c0 < 0)
		return;
	if (c1 < c0 || n <= (uint32_t)(c1 - c0))
		c1 = c0;
	for (c = c0; c <= c1; c++)
		tc->col[c].unplaced += c == c0 ? n : 1;
}

/* The first part of segment @g not walked at or after byte @p whose
 * place on the axis is in the view: bytes [*@x, *@y), axis [*@ga, *@gb)
 * (on the time axis bounded by the times of the spans around it).
 * Returns 0, or -1 if none. */
static int tl_tr_gap(const struct tl_cache *tc, const struct tl_seg *g, uint64_t p,
		     uint64_t *x, uint64_t *y, uint64_t *ga, uint64_t *gb)
{
	size_t k = tl_tr_span_after(p);

	while (p < g->to) {
		const struct tl_span *prev = k ? &tl_tr.span[k - 1] : NULL, *next;

		if (k < tl_tr.nspans && tl_tr.span[k].a <= p) {
			p = tl_tr.span[k++].b;
			continue;
		}
		next = k < tl_tr.nspans && tl_tr.span[k].a < g->to ? &tl_tr.span[k] : NULL;
		*x = p;
		*y = next ? next->a : g->to;
		*ga = !tc->time ? *x : prev && prev->b == p && prev->tb ? prev->tb : g->a;
		*gb = !tc->time ? *y : next && next->ta ? next->ta : g->b;
		if (*gb > tc->lo && (*ga < tc->hi || (tc->time && *ga == tc->hi)))
			return 0;
		p = *y;
	}
	return -1;
}

/* Whether the walks went over all of segment @g. */
static int tl_tr_walked_all(const struct tl_seg *g)
{
	size_t k = tl_tr_span_after(g->psb);

	return k < tl_tr.nspans && tl_tr.span[k].a <= g->psb && tl_tr.span[k].b >= g->to;
}

/* Whether @row (at byte @off) is trouble of segment @g (a gap before
 * its PSB is the segment before's). */
static int tl_tr_is_trouble(const struct tl_seg *g, const struct win_row *row, uint64_t off)
{
	return win_row_trouble(row) &&
	       (off != g->psb || row->pkt.type == PKT_OVF ||
		(row->flags & (WIN_F_ERROR | WIN_F_GAP_END)));
}

/* Walk segment @g from byte @from (in a part not walked ending at @y)
 * for its trouble rows, until @y, the view's end or the budget's; @v is
 * the time there if known, else 0.  Returns 0 if it walked a row, else
 * -1. */
static int tl_trouble_walk(struct tl_trouble *tt, const struct tl_seg *g, uint64_t from,
			   uint64_t y, uint64_t v)
{
	struct tl_cache *tc = tt->tc;
	struct win_iter it = { 0 };
	uint64_t start, end, ta = 0;
	int more = 1;

	if (tt->budget <= 0 || win_seek(&it, tt->ui->wc, from)) {
		win_iter_release(&it);
		return -1;
	}
	start = end = win_row(&it)->pkt.offset;
	while (more) {
		const struct win_row *row = win_row(&it);
		uint64_t off = row->pkt.offset;

		end = off;
		if (off >= g->to) {
			/* data lost after the segment's last packet: the
			 * next PSB's row says so (the index counts it here) */
			if ((row->flags & WIN_F_GAP) && tl_tr_add_hit(off, v, g->i)) {
				tt->full = 1;
				break;
			}
			end = g->to;
			break;
		}
		if (off >= y || tt->budget <= 0)
			break;
		if (row->ts.flags & TM_F_TSC)
			v = row->ts.tsc;
		if (!ta)
			ta = v;
		if (tc->time ? v > tc->hi : off >= tc->hi)
			break;	/* past the view */
		if (tl_tr_is_trouble(g, row, off) && tl_tr_add_hit(off, v, g->i)) {
			tt->full = 1;	/* no room: the row stays not walked */
			break;
		}
		tt->budget--;
		if (win_next(&it)) {
			end = g->to;	/* the trace's end */
			more = 0;
		}
	}
	win_iter_release(&it);
	if (end <= start)
		return -1;
	if (tl_tr_add_span(start, end, ta, v)) {
		tt->full = 1;	/* (spans are joined: rarely) */
		return -1;
	}
	return 0;
}

/* Walk the parts of segment @g in view not walked yet while the budget
 * lasts, from the view's start (on the time axis from the offset its
 * time is at, about: the segment's bytes are taken as even in time, and
 * a walk that starts late leaves a part before it to walk next). */
static void tl_trouble_walk_seg(struct tl_trouble *tt, const struct tl_seg *g, uint32_t want)
{
	const struct tl_cache *tc = tt->tc;
	uint64_t x, y, ga, gb, from, v;
	int tries = 16;

	while (tt->budget > 0 && tries-- > 0 && tl_tr_count(g) < want &&
	       !tl_tr_gap(tc, g, g->psb, &x, &y, &ga, &gb)) {
		from = x;
		if (!tc->time && tc->lo > x)
			from = tc->lo;
		else if (tc->time && tc->lo > ga && gb > ga)
			from = x + (uint64_t)((double)(y - x) * (double)(tc->lo - ga) / (double)(gb - ga));
		if (from >= y)
			from = x;
		v = !tc->time ? (from == g->psb ? g->s.first_tsc : 0) : from == x ? ga : 0;
		/* (a time axis estimate past the view: from the part's start) */
		if (tl_trouble_walk(tt, g, from, y, v) && !tt->full &&
		    (from == x || tl_trouble_walk(tt, g, x, y, ga)) && !tt->full)
			return;	/* nothing to walk in view */
		if (tt->full) {
			/* no room: make some once (the finds of other
			 * views go), else give up for now */
			if (tt->reset)
				return;
			tt->reset = 1;
			tt->full = 0;
			tl_tr.nspans = tl_tr.nhits = 0;
		}
	}
}

/* Place segment @g's trouble: walk on, put what is known in its
 * columns, and a '?' where the rest may be. */
static void tl_trouble_seg(struct tl_trouble *tt, const struct tl_seg *g)
{
	struct tl_cache *tc = tt->tc;
	uint32_t want = g->s.novf + g->s.nerrors + g->s.ngaps, found;
	uint64_t x, y, ga, gb, p = g->psb;
	size_t k;
	int gaps = 0;

	tl_trouble_walk_seg(tt, g, want);
	found = tl_tr_count(g);
	for (k = tl_tr_hit_at(g->psb); k < tl_tr.nhits && tl_tr.hit[k].off <= g->to; k++)
		if (tl_tr.hit[k].seg == g->i)
			tl_trouble_put(tc, !tc->time ? tl_tr.hit[k].off :
				       tl_tr.hit[k].tsc ? tl_tr.hit[k].tsc : g->a, 1);
	if (found >= want)
		return;
	while (!tl_tr_gap(tc, g, p, &x, &y, &ga, &gb)) {
		tl_trouble_rest(tc, ga, gb, want - found);
		gaps++;
		p = y;
	}
	if (gaps)
		tl_tr.pending = 1;
	else if (!found && tl_tr_walked_all(g))
		tl_trouble_put(tc, g->a < tc->lo ? tc->lo : g->a, want);
}

/* Segment @i's span [*@a, *@b) on the axis and *@psb, *@end in bytes.
 * Returns 0, or non-zero if it has none (no time on the time axis). */
static int tl_trouble_span(struct ui *ui, int time, size_t i, const struct idx_summary *s,
			   uint64_t *a, uint64_t *b, uint64_t *psb, uint64_t *end)
{
	if (idx_segment_span(ui->idx, i, psb, end))
		return -1;
	*a = *psb;
	*b = *end;
	if (time) {
		if (!s->have_tsc)
			return -1;	/* no time: no place on the time axis */
		*a = s->first_tsc;
		*b = tl_cols_seg_end(ui, i, s);
	}
	return *b > *a ? 0 : -1;
}

/* Place the trouble of the segments the view shows (the index's trouble
 * list: no clean segment is looked at).  Returns the rows walked. */
static long tl_cols_trouble(struct ui *ui, struct tl_cache *tc)
{
	struct tl_trouble tt = { ui, tc, TL_TROUBLE_ROWS, 0, 0 };
	double w = (double)(tc->hi - tc->lo) / tc->ncols;
	int n = 4 * tc->ncols + 64, c;
	size_t cur, t;

	for (c = 0; c < tc->ncols; c++)
		tc->col[c].trouble = tc->col[c].unplaced = 0;
	tl_tr.pending = 0;
	/* (no index: a reload dropped it since the walk was left pending) */
	if (tc->ncols <= 0 || tc->hi <= tc->lo || !ui->idx)
		return 0;
	tl_tr_check(ui);
	/* (past the summaries: idx_summary() below stops) */
	(void)tl_cols_seg_of(ui, tc->time, tc->lo, &cur);
	while (n-- > 0) {
		struct tl_seg g;
		struct idx_summary s;
		uint64_t a, b, psb, end;
		int ca, cb;

		if (idx_summary(ui->idx, cur, &s))
			break;
		if (idx_summary_trouble(&s))
			t = cur;
		else if (idx_next_trouble(ui->idx, cur, 1, &t) || idx_summary(ui->idx, t, &s))
			break;
		cur = t + 1;
		if (tl_trouble_span(ui, tc->time, t, &s, &a, &b, &psb, &end) || b <= tc->lo)
			continue;
		if (a >= tc->hi) {
			if (tc->time && idx_time_outlier(ui->idx, t))
				continue;	/* a damaged time, not the end */
			break;
		}
		ca = a <= tc->lo ? 0 : tl_cols_of(tc, a);
		cb = b >= tc->hi ? tc->ncols - 1 : tl_cols_of(tc, b - 1);
		if (ca == cb) {
			size_t next;

			tl_trouble_put(tc, a < tc->lo ? tc->lo : a, s.novf + s.nerrors + s.ngaps);
			/* the segments after it that end in this column
			 * would only add to its '!': on to the one holding
			 * the next column's start */
			if (!tl_cols_seg_of(ui, tc->time, tc->lo + (uint64_t)((ca + 1) * w), &next) &&
			    next > cur)
				cur = next;
			continue;
		}
		g.i = t;
		g.s = s;
		g.psb = psb;
		g.to = end;
		g.a = a;
		g.b = b;
		tl_trouble_seg(&tt, &g);
	}
	/* no room even after making some (more trouble in view than is
	 * kept): no walking on at every drawing, which would not get on */
	if (tt.full)
		tl_tr.pending = 0;
	return TL_TROUBLE_ROWS - tt.budget;
}

/* A redraw this long after the last one is an idle turn's (no key in
 * between): trouble not placed yet is walked for up to TL_IDLE_WALK s
 * then, in budgets, while no key waits; after a key a budget only. */
#define TL_IDLE_AFTER 0.2
#define TL_IDLE_WALK 0.15

/* Walk on for trouble not placed yet, the columns otherwise unchanged;
 * @idle: the seconds since the last drawing. */
static void tl_cols_trouble_more(struct ui *ui, struct tl_cache *tc, double idle)
{
	double end = tl_cols_now() + TL_IDLE_WALK;

	/* (no rows walked: what is left cannot be walked now) */
	while (tl_cols_trouble(ui, tc) > 0 && idle >= TL_IDLE_AFTER && tl_tr.pending &&
	       tl_cols_now() < end && !term_key_pending(ui))
		continue;
}

/* Recompute the columns if the index grew or the range changed. */
void tl_cols_compute(struct ui *ui, int ncols, int time, uint64_t lo, uint64_t hi)
{
	struct tl_cache *tc = &tl_cols_cache;
	size_t nsum = ui->idx ? idx_nsummaries(ui->idx) : 0;
	size_t nseeks = ui->idx ? idx_nseeks(ui->idx) : 0, i;
	static double asked;	/* the last drawing's time */
	double now = tl_cols_now(), idle = now - asked;
	int c;

	asked = now;
	if (tc->ncols == ncols && tc->time == time && tc->lo == lo && tc->hi == hi) {
		/* The index grew: catch up a few times a second, not on
		 * every key; but at once when it is complete (a cached
		 * index arrives whole, and nothing else will redraw).
		 * Trouble not placed yet: walk on a little every time. */
		if ((tc->nsum == nsum && tc->nseeks == nseeks) ||
		    (now - tc->when < 0.25 && !idx_complete(ui->idx))) {
			if (tl_tr.pending)
				tl_cols_trouble_more(ui, tc, idle);
			return;
		}
	}
	memset(tc->col, 0, sizeof(tc->col));
	tc->ncols = ncols;
	tc->time = time;
	tc->lo = lo;
	tc->hi = hi;
	tc->nsum = nsum;
	tc->nseeks = nseeks;
	tc->max = 0;
	tc->when = now;
	if (tl_cols_fine(ui, tc))
		return;
	if (!ui->idx)
		return;
	if (nseeks > TL_EXACT_SEGMENTS) {
		tl_cols_sampled(ui, tc, nsum, nseeks);
		goto out_max;
	}
	for (i = 0; i < nseeks; i++) {
		struct idx_summary s;
		struct idx_seek sk, next;
		int have = idx_summary(ui->idx, i, &s) == 0;

		if (idx_seek(ui->idx, i, &sk) < 0)
			break;
		if (time) {
			if (!have || !s.have_tsc)
				continue;
			tl_cols_spread(tc, s.first_tsc, tl_cols_seg_end(ui, i, &s), &s);
			continue;
		}
		if (idx_seek(ui->idx, i + 1, &next) < 0)
			next.offset = idx_scan_done(ui->idx) ? ui->img->size : sk.offset + 1;
		if (next.offset <= lo || sk.offset >= hi)
			continue;
		tl_cols_spread(tc, sk.offset, next.offset, have ? &s : NULL);
	}
	if (!time && nseeks) {
		struct idx_seek first;

		/* Bytes before the first PSB are not a segment, but known. */
		if (!idx_seek(ui->idx, 0, &first) && first.offset > lo)
			for (c = 0; c < ncols && lo + (hi - lo) * (uint64_t)c / ncols < first.offset; c++)
				tc->col[c].known = 1;
	}
	if (time) {
		/* Time between segments is known to be empty once the
		 * segments around it are summarised. */
		struct idx_summary s;
		int last = -1;

		if (nsum && !idx_summary(ui->idx, nsum - 1, &s) && s.have_tsc)
			last = s.last_tsc >= hi ? ncols - 1 : tl_cols_of(tc, s.last_tsc);
		for (c = 0; c <= last; c++)
			tc->col[c].known = 1;
	}
out_max:
	tl_cols_trouble(ui, tc);
	for (c = 0; c < ncols; c++)
		if (tc->col[c].packets > tc->max)
			tc->max = tc->col[c].packets;
}
