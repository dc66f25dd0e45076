/* tl_cols -- the timeline's columns: the whole axis (bytes or time), axis
 * value to column, and what each column holds (packet density, trouble,
 * PSBs), from the index or a bounded walk; the marker row's cells. */
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "tl_cols.h"
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
	struct row_tsc *slot = &row_tsc[(off * 0x9e3779b97f4a7c15ull) >> 52];
	uint32_t gen = tl_cols_row_gen(ui);
	uint64_t t = 0;

	if (gen && slot->gen == gen && slot->off == off)
		return slot->tsc;
	if (!win_seek(&it, ui->wc, off) && (win_row(&it)->ts.flags & TM_F_TSC))
		t = win_row(&it)->ts.tsc;
	win_iter_release(&it);
	if (gen) {
		slot->off = off;
		slot->tsc = t;
		slot->gen = gen;
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
 * one is walked row by row over the part the view shows, up to
 * TL_TROUBLE_ROWS rows in all for a computation (this runs on the UI
 * thread, a few times a second while the index grows): where the walk
 * stops before finding them all, the rest goes in the column it stopped
 * in, the first the rest may be in, or in every column of the rest if
 * there are as many as its columns (tl_trouble_rest(); the man page's
 * marker row).
 */
#define TL_TROUBLE_ROWS (64 * WIN_MAX_ROWS)

struct tl_trouble {
	struct ui *ui;
	struct tl_cache *tc;
	long budget;		/* rows the walks may still decode */
};

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

/* @n troubles somewhere in [@v, @b) of the axis, a segment's part not
 * walked: in its first column; in each of its columns if there are as
 * many as columns (many OVFs in long segments: the row says they are
 * everywhere, as they likely are, rather than one per segment). */
static void tl_trouble_rest(struct tl_cache *tc, uint64_t v, uint64_t b, uint32_t n)
{
	int c0 = tl_trouble_col(tc, v, 1), c1 = b >= tc->hi ? tc->ncols - 1 : tl_cols_of(tc, b - 1), c;

	if (c0 < 0)
		return;
	if (c1 < c0 || n <= (uint32_t)(c1 - c0))
		c1 = c0;
	for (c = c0; c <= c1; c++)
		tc->col[c].trouble += c == c0 ? n : 1;
}

/* Walk the segment of summary @s at byte @psb from byte @from (its PSB,
 * or the view's start inside it) to byte @to (the next PSB) for its
 * trouble rows; @b is its end on the axis. */
static void tl_trouble_walk(struct tl_trouble *tt, const struct idx_summary *s,
			    uint64_t psb, uint64_t from, uint64_t to, uint64_t b)
{
	struct tl_cache *tc = tt->tc;
	struct win_iter it = { 0 };
	uint32_t want = s->novf + s->nerrors + s->ngaps, found = 0;
	uint64_t v = tc->time ? s->first_tsc : from;
	int ended = 0;

	/* (no budget left: not even one window decoded) */
	if (tt->budget <= 0 || win_seek(&it, tt->ui->wc, from)) {
		win_iter_release(&it);
		tl_trouble_rest(tc, v, b, want);
		return;
	}
	while (found < want && tt->budget > 0) {
		const struct win_row *row = win_row(&it);

		if (row->pkt.offset >= to) {
			/* data lost after the segment's last packet: the
			 * next PSB's row says so (the index counts it here) */
			if (row->flags & WIN_F_GAP)
				found++, tl_trouble_put(tc, v, 1);
			ended = 1;
			break;
		}
		v = !tc->time ? row->pkt.offset : (row->ts.flags & TM_F_TSC) ? row->ts.tsc : v;
		if (v > tc->hi || (v == tc->hi && !tc->time)) {
			ended = 1;	/* past the view */
			break;
		}
		/* (a gap before the PSB is the segment before's) */
		if (win_row_trouble(row) &&
		    (row->pkt.offset != psb || row->pkt.type == PKT_OVF ||
		     (row->flags & (WIN_F_ERROR | WIN_F_GAP_END))))
			found++, tl_trouble_put(tc, v, 1);
		tt->budget--;
		if (win_next(&it)) {
			ended = 1;
			break;
		}
	}
	win_iter_release(&it);
	if (found < want && !ended)
		tl_trouble_rest(tc, v, b, want - found);
	else if (!found && from == psb && v < tc->hi)	/* not where the index saw it */
		tl_trouble_rest(tc, tc->time ? s->first_tsc : psb, b, want);
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
 * list: no clean segment is looked at). */
static void tl_cols_trouble(struct ui *ui, struct tl_cache *tc)
{
	struct tl_trouble tt = { ui, tc, TL_TROUBLE_ROWS };
	double w = (double)(tc->hi - tc->lo) / tc->ncols;
	int n = 4 * tc->ncols + 64, c;
	size_t cur, t;

	for (c = 0; c < tc->ncols; c++)
		tc->col[c].trouble = 0;
	if (tc->ncols <= 0 || tc->hi <= tc->lo)
		return;
	/* (past the summaries: idx_summary() below stops) */
	(void)tl_cols_seg_of(ui, tc->time, tc->lo, &cur);
	while (n-- > 0) {
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
		tl_trouble_walk(&tt, &s, psb, !tc->time && tc->lo > psb ? tc->lo : psb, end, b);
	}
}

/* Recompute the columns if the index grew or the range changed. */
void tl_cols_compute(struct ui *ui, int ncols, int time, uint64_t lo, uint64_t hi)
{
	struct tl_cache *tc = &tl_cols_cache;
	size_t nsum = ui->idx ? idx_nsummaries(ui->idx) : 0;
	size_t nseeks = ui->idx ? idx_nseeks(ui->idx) : 0, i;
	int c;

	if (tc->ncols == ncols && tc->time == time && tc->lo == lo && tc->hi == hi) {
		if (tc->nsum == nsum && tc->nseeks == nseeks)
			return;
		/* The index grew: catch up a few times a second, not on
		 * every key; but at once when it is complete (a cached
		 * index arrives whole, and nothing else will redraw). */
		if (tl_cols_now() - tc->when < 0.25 && !idx_complete(ui->idx))
			return;
	}
	memset(tc->col, 0, sizeof(tc->col));
	tc->ncols = ncols;
	tc->time = time;
	tc->lo = lo;
	tc->hi = hi;
	tc->nsum = nsum;
	tc->nseeks = nseeks;
	tc->max = 0;
	tc->when = tl_cols_now();
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
