/* tl -- the timeline: the whole trace (or a zoomed part) across the width;
 * its columns are computed in tl_cols.c, drawn and clicked here. */
#include <curses.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "goto_idx.h"
#include "marks.h"
#include "marks_ui.h"
#include "msg.h"
#include "nav.h"
#include "screen.h"
#include "search_ui.h"
#include "stalls.h"
#include "streams_tl.h"
#include "timefmt.h"
#include "tl.h"
#include "tl_axis.h"
#include "tl_cols.h"
#include "tl_lanes.h"
#include "tl_zoom.h"
#include "ui.h"

void tl_range(struct ui *ui, uint64_t *lo, uint64_t *hi)
{
	int n = ui->cols > TL_MAX_COLS ? TL_MAX_COLS : ui->cols > 0 ? ui->cols : 1;

	tl_zoom_view(ui, tl_cols_is_time(ui), n, lo, hi);
}

/* The column of @v on the time or byte axis of @tc, or -1: the axis is
 * [lo, hi), but the trace's last row's time is its end, which then is in
 * the last column (as tl_cols_fine() bins it), else the cursor or a mark
 * there would have none at the closest zoom. */
static int tl_col_at(struct ui *ui, const struct tl_cache *tc, uint64_t v)
{
	uint64_t a, b, c;

	if (tc->time && v == tc->hi && tc->ncols > 0) {
		tl_cols_whole(ui, 1, &a, &b, &c);
		if (v == b)
			return tc->ncols - 1;
	}
	return tl_cols_of(tc, v);
}

/* The marker row being built: a cell per column. */
struct tl_row {
	const struct tl_cache *tc;
	struct tl_cell cell[TL_MAX_COLS];
};

/* A search hit at @off (search_ui_tl_marks()): offered to its column's
 * cell, to be drawn with the rest; -1 so that search_ui draws nothing. */
static int tl_hit_col(struct ui *ui, uint64_t off, void *arg)
{
	struct tl_row *row = arg;
	int c = tl_col_at(ui, row->tc, row->tc->time ? tl_zoom_row_time(ui, off) : off);

	if (c >= 0)
		tl_cols_offer(&row->cell[c], screen_glyph(ui, "·", "."),
			      screen_attr(ui, SC_MARK), TL_RANK_HIT);
	return -1;
}

/* A stall's place (stalls_tl_marks(), once :stalls' 't' shows them):
 * 's' in its column, or 'z' in the power packets' colour for a segment
 * much halted (sleeps), ranked as a search hit. */
static int tl_stall_col(struct ui *ui, uint64_t off, int kind, void *arg)
{
	struct tl_row *row = arg;
	int c = tl_col_at(ui, row->tc, row->tc->time ? tl_zoom_row_time(ui, off) : off);

	if (c >= 0 && kind == STALLS_TL_HALT)
		tl_cols_offer(&row->cell[c], "z", screen_attr(ui, SC_POWER), TL_RANK_HIT);
	else if (c >= 0)
		tl_cols_offer(&row->cell[c], "s", screen_attr(ui, SC_WARN), TL_RANK_HIT);
	return 0;
}

/* Row 1: density on a log scale. */
static void tl_draw_density(struct ui *ui, struct pane *p, int ncols)
{
	static const char *const bars_u[] = { " ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };
	static const char *const bars_a[] = { " ", ".", ":", "-", "=", "+", "*", "#", "@" };
	struct tl_cache *tc = &tl_cols_cache;
	int c;

	for (c = 0; c < ncols; c++) {
		const struct tl_col *col = &tc->col[c];
		int lvl = 0;

		if (!col->known) {
			attrset(screen_attr(ui, SC_DIM));
			screen_put(p->y, p->x + c, 1, screen_glyph(ui, "·", "."));
			continue;
		}
		if (col->packets > 0 && tc->max > 0)
			lvl = 1 + (int)(7.0 * log1p(col->packets) / log1p(tc->max));
		if (lvl > 8)
			lvl = 8;
		attrset(screen_attr(ui, col->trouble ? SC_MSGERR : SC_TL));
		screen_put(p->y, p->x + c, 1, ui->utf8 ? bars_u[lvl] : bars_a[lvl]);
	}
	attrset(A_NORMAL);
}

/* The columns the view (its first row to its last) covers: *@v0..*@v1,
 * none (*@v0 > *@v1) if it lies outside the timeline's range. */
static void tl_viewport(struct ui *ui, int ncols, int *v0, int *v1)
{
	struct tl_cache *tc = &tl_cols_cache;
	struct win_iter it = { 0 };
	int n = nav_view_rows(ui);
	uint64_t a, b, bottom = ui->top;

	if (!win_seek(&it, ui->wc, ui->top)) {
		while (--n > 0 && !win_next(&it))
			;
		bottom = win_row(&it)->pkt.offset + win_row(&it)->size;
	}
	win_iter_release(&it);
	if (tc->time) {
		/* (0: no time; the rows before the stream's trace begins) */
		a = tl_zoom_row_time(ui, ui->top);
		b = tl_zoom_row_time(ui, bottom ? bottom - 1 : 0);
		a = a ? a : b;
		b = b ? b + 1 : a + 1;
	} else {
		a = ui->top;
		b = bottom;
	}
	/* a view of rows outside the timeline's (zoomed) range, or without
	 * a time: none of its columns */
	*v0 = 1;
	*v1 = 0;
	if ((tc->time && !a) || b <= tc->lo)
		return;
	*v0 = a < tc->lo ? 0 : tl_col_at(ui, tc, a);
	if (*v0 < 0) {
		*v0 = 1;
		return;
	}
	*v1 = b >= tc->hi ? ncols - 1 : tl_cols_of(tc, b - 1);
	if (*v1 < *v0)
		*v1 = *v0;
}

/* The offsets that hold the times [@lo, @hi) on the axis: from the start
 * of the index's segment at @lo to the start of the one after @hi's, or
 * the whole trace before the index knows the times. */
static void tl_off_span(struct ui *ui, uint64_t lo, uint64_t hi, uint64_t *olo, uint64_t *ohi)
{
	struct idx_seek sk;
	size_t s0, s1;

	*olo = 0;
	*ohi = ui->img->size;
	if (!ui->idx || idx_find_tsc(ui->idx, lo, &s0) || idx_find_tsc(ui->idx, hi, &s1))
		return;
	if (!idx_seek(ui->idx, s0, &sk))
		*olo = sk.offset;
	if (s1 + 1 < idx_nseeks(ui->idx) && !idx_seek(ui->idx, s1 + 1, &sk) && sk.offset > *olo)
		*ohi = sk.offset;
}

/* The offset of time @v in the index's segment for it, about: the
 * segment's bytes interpolated between its first TSC and its end's (the
 * next segment's first TSC, or its own last one's), its start before
 * them and its end past them.  Summaries only: a segment may be many
 * megabytes, and the UI thread walks none for the timeline (halving on
 * the rows' times, a window lookup a step, decoded from the segment's PSB
 * every step: seconds a drawing).  Returns 0, or -1 if the index does not
 * know that time yet. */
static int tl_off_interp(struct ui *ui, uint64_t v, uint64_t *off)
{
	struct idx_summary s, n;
	uint64_t p0, p1, t0, t1;
	size_t seg;

	if (!ui->idx || idx_find_tsc(ui->idx, v, &seg) ||
	    idx_segment_span(ui->idx, seg, &p0, &p1) ||
	    idx_summary_counts(ui->idx, seg, &s) || !s.have_tsc || p1 < p0)
		return -1;
	t0 = s.first_tsc;
	t1 = s.last_tsc + 1;
	/* (an estimate may run past the next PSB+'s TSC; a damaged one's
	 * time says nothing of this segment's) */
	if (!idx_summary_counts(ui->idx, seg + 1, &n) && n.have_tsc && n.first_tsc > t1 &&
	    !idx_time_outlier(ui->idx, seg + 1))
		t1 = n.first_tsc;
	if (v <= t0)
		*off = p0;
	else if (v >= t1)
		*off = p1;
	else
		*off = p0 + (uint64_t)((double)(p1 - p0) * (double)(v - t0) / (double)(t1 - t0));
	if (*off > p1)
		*off = p1;
	return 0;
}

/* The offsets [*@olo, *@ohi) of the view's times on the time axis: the
 * index's segments (tl_off_span()), narrowed to about the view's rows
 * (tl_off_interp()), so that sampling them (search hits, stalls: each
 * placed in its column by its own row's time) is sampling the view and
 * not the segments around it when zoomed into one.  Time is not even in
 * bytes: the estimate is widened by half its width each way, within the
 * segments. */
static void tl_view_offsets(struct ui *ui, uint64_t *olo, uint64_t *ohi)
{
	/* the last answer: a few summary reads and two binary searches */
	static struct {
		const void *img, *idx;
		uint64_t lo, hi, size, olo, ohi;
		size_t nsums;
	} last;
	struct tl_cache *tc = &tl_cols_cache;
	size_t nsums = ui->idx ? idx_nsummaries(ui->idx) : 0;
	uint64_t a, b, x, y, w;

	if (last.ohi && last.img == ui->img && last.idx == ui->idx && last.lo == tc->lo &&
	    last.hi == tc->hi && last.size == ui->img->size &&
	    last.nsums == nsums && (!ui->idx || idx_complete(ui->idx))) {
		*olo = last.olo;
		*ohi = last.ohi;
		return;
	}
	tl_off_span(ui, tc->lo, tc->hi, &a, &b);
	if (tl_off_interp(ui, tc->lo, &x) || x < a)
		x = a;
	if (tl_off_interp(ui, tc->hi, &y) || y > b || y < x)
		y = b;
	w = (y - x) / 2 + 1;
	*olo = x - a > w ? x - w : a;
	*ohi = b - y > w ? y + w : b;
	last.img = ui->img;
	last.idx = ui->idx;
	last.lo = tc->lo;
	last.hi = tc->hi;
	last.size = ui->img->size;
	last.nsums = nsums;
	last.olo = *olo;
	last.ohi = *ohi;
}

/* On the time axis, the regions whose ends lie in the view cost two
 * (cached) window lookups each: this many at most.  Regions outside the
 * view's offsets or around all of them cost none, however many. */
#define TL_REGION_LOOKUPS 128

/* Set @inreg[c] for the columns regions cover (underlined). */
static void tl_regions(struct ui *ui, int ncols, uint8_t *inreg)
{
	struct tl_cache *tc = &tl_cols_cache;
	size_t i, n = ui->bm ? marks_count(ui->bm) : 0, nreg = 0;
	uint64_t olo = 0, ohi = 0;
	int c;

	if (tc->time && n)
		tl_off_span(ui, tc->lo, tc->hi, &olo, &ohi);
	for (i = 0; i < n; i++) {
		const struct marks_entry *e = marks_at(ui->bm, i);
		uint64_t from = e->from, to = e->to;
		int c0, c1;

		if (e->kind != BM_REGION)
			continue;
		if (tc->time) {
			if (to <= olo || from >= ohi)
				continue;
			if (from <= olo && to >= ohi) {
				memset(inreg, 1, (size_t)ncols);
				continue;
			}
			if (nreg++ >= TL_REGION_LOOKUPS)
				continue;
			from = tl_zoom_row_time(ui, e->from);
			to = tl_zoom_row_time(ui, e->to ? e->to - 1 : 0) + 1;
			if (!from || to <= from)
				continue;
		}
		if (to <= tc->lo || from >= tc->hi)
			continue;
		c0 = from <= tc->lo ? 0 : tl_cols_of(tc, from);
		c1 = to >= tc->hi ? ncols - 1 : tl_cols_of(tc, to - 1);
		for (c = c0 < 0 ? 0 : c0; c <= c1 && c < ncols; c++)
			inreg[c] = 1;
	}
}

/* Mark or bookmark @e in column @c of @row: its letter, '*' a bookmark. */
static void tl_mark_offer(struct ui *ui, struct tl_row *row, const struct marks_entry *e, int c)
{
	static char letter[TL_MAX_COLS][2];

	if (e->kind == BM_REGION || c < 0 || c >= TL_MAX_COLS)
		return;
	letter[c][0] = e->kind == BM_MARK ? e->name[0] : '*';
	letter[c][1] = 0;
	tl_cols_offer(&row->cell[c], letter[c], screen_attr(ui, SC_MARK), TL_RANK_MARK);
}

/* The marks on the time axis: each place is a window lookup, so not one
 * per mark.  The set is in offset order, which is time order: a span of
 * entries whose first and last fall in the same column (or both before
 * or after the view) all do, and a span across columns is halved.  That
 * is about two lookups per column with marks per halving, and a mark in
 * the view is found wherever it is in the set. */
struct tl_marks {
	struct ui *ui;
	struct tl_row *row;
	int ncols;
	int lookups;		/* left; none: the rest is left out */
};

#define TL_POS_NONE INT32_MIN	/* a row without a TSC */
#define TL_MARK_LOOKUPS 4096

/* Where entry @i lies: its column, -1 before the view, ncols after it,
 * or TL_POS_NONE. */
static int tl_mark_pos(struct tl_marks *m, size_t i)
{
	const struct tl_cache *tc = m->row->tc;
	uint64_t v = tl_zoom_row_time(m->ui, marks_at(m->ui->bm, i)->from);
	int c;

	m->lookups--;
	if (!v)
		return TL_POS_NONE;
	if (v < tc->lo)
		return -1;
	c = tl_col_at(m->ui, tc, v);
	return c < 0 ? m->ncols : c;
}

/* Entries @i to @j (both included) at places @pi and @pj. */
static void tl_marks_span(struct tl_marks *m, size_t i, size_t j, int pi, int pj)
{
	size_t k, mid;
	int pm;

	if (pi == pj && pi != TL_POS_NONE) {
		for (k = i; pi >= 0 && pi < m->ncols && k <= j; k++)
			tl_mark_offer(m->ui, m->row, marks_at(m->ui->bm, k), pi);
		return;
	}
	if (j - i <= 1 || m->lookups <= 0) {
		tl_mark_offer(m->ui, m->row, marks_at(m->ui->bm, i), pi);
		tl_mark_offer(m->ui, m->row, marks_at(m->ui->bm, j), pj);
		return;
	}
	mid = i + (j - i) / 2;
	pm = tl_mark_pos(m, mid);
	tl_marks_span(m, i, mid, pi, pm);
	tl_marks_span(m, mid, j, pm, pj);
}

/* The marks and bookmarks on the marker row (regions: tl_regions()). */
static void tl_marks(struct ui *ui, int ncols, struct tl_row *row)
{
	struct tl_cache *tc = &tl_cols_cache;
	size_t i, n = ui->bm ? marks_count(ui->bm) : 0;
	struct tl_marks m = { ui, row, ncols, TL_MARK_LOOKUPS };

	if (!n)
		return;
	if (tc->time) {
		tl_marks_span(&m, 0, n - 1, tl_mark_pos(&m, 0), n > 1 ? tl_mark_pos(&m, n - 1) :
			      tl_mark_pos(&m, 0));
		return;
	}
	for (i = 0; i < n; i++)
		tl_mark_offer(ui, row, marks_at(ui->bm, i), tl_cols_of(tc, marks_at(ui->bm, i)->from));
}

/* Row 2's cells: troubles, PSBs when few, the sideband, marks and
 * bookmarks, search hits; each column shows its highest rank
 * (tl_cols.h). */
static void tl_marker_cells(struct ui *ui, int ncols, struct tl_row *row)
{
	struct tl_cache *tc = &tl_cols_cache;
	uint64_t lo, hi;
	uint32_t npsb = 0, ntrouble = 0;
	int c;

	memset(row->cell, 0, sizeof(row->cell));
	row->tc = tc;
	for (c = 0; c < ncols; c++) {
		npsb += tc->col[c].psbs;
		ntrouble += (tc->col[c].trouble | tc->col[c].unplaced) != 0;
	}
	for (c = 0; c < ncols; c++) {
		/* '?': trouble not placed yet, maybe here (tl_cols.c) */
		if (tc->col[c].trouble || tc->col[c].unplaced)
			tl_cols_offer(&row->cell[c], tc->col[c].trouble ? "!" : "?",
				      screen_attr(ui, SC_MSGERR),
				      ntrouble <= (uint32_t)ncols / 2 ? TL_RANK_TROUBLE :
				      TL_RANK_TROUBLE_DENSE);
		if (npsb && npsb <= (uint32_t)ncols / 2 && tc->col[c].psbs)
			tl_cols_offer(&row->cell[c], screen_glyph(ui, "╵", "'"),
				      screen_attr(ui, SC_DIM), TL_RANK_PSB);
	}
	/* perf.data sideband: data loss, itrace start, switches, comm. */
	streams_tl_cells(ui, ncols, tc->lo, tc->hi, tc->time, row->cell);
	tl_marks(ui, ncols, row);
	/* Search hits: '·' (tl_hit_col()), and stalls: the first in each of
	 * @ncols slices of the view's offsets (a window lookup each on the
	 * time axis). */
	lo = tc->lo;
	hi = tc->hi;
	if (tc->time)
		tl_view_offsets(ui, &lo, &hi);
	search_ui_tl_marks(ui, 0, 0, lo, hi, (size_t)ncols, tl_hit_col, row);
	stalls_tl_marks(ui, lo, hi, (size_t)ncols, tl_stall_col, row);
}

/* Row 2: the marker cells, the viewport (reverse video, the cursor's
 * column '┃'), regions underlined. */
static void tl_draw_markers(struct ui *ui, struct pane *p, int ncols)
{
	static struct tl_row row;
	static uint8_t inreg[TL_MAX_COLS];
	struct tl_cache *tc = &tl_cols_cache;
	uint64_t cv = tc->time ? tl_zoom_row_time(ui, ui->cursor) : ui->cursor;
	int c, v0, v1, cur = tl_col_at(ui, tc, cv);

	tl_marker_cells(ui, ncols, &row);
	tl_viewport(ui, ncols, &v0, &v1);
	memset(inreg, 0, sizeof(inreg));
	tl_regions(ui, ncols, inreg);
	for (c = 0; c < ncols; c++) {
		const struct tl_cell *cell = &row.cell[c];
		const char *g = cell->g ? cell->g : " ";
		int attr = cell->g ? cell->attr : (int)A_NORMAL;

		if (c >= v0 && c <= v1) {
			attr = screen_attr(ui, SC_VIEWPORT) | A_REVERSE;
			if (!cell->rank || cell->rank == TL_RANK_PSB)
				g = c == v0 ? screen_glyph(ui, "▕", "[") :
				    c == v1 ? screen_glyph(ui, "▏", "]") : " ";
			if ((v0 == v1 || c == cur) && cell->rank < TL_RANK_HIT)
				g = screen_glyph(ui, "┃", "|");
		}
		attrset(attr | (inreg[c] ? A_UNDERLINE : 0));
		screen_put(p->y + 1, p->x + c, 1, g);
	}
	attrset(A_NORMAL);
}

/* The columns left of the timeline's first: the lanes' name gutter when
 * they show (on the time axis, under the axis row), else 0.  Set by each
 * drawing, read by the mouse. */
static int tl_gx;

static void tl_draw(struct ui *ui, struct pane *p)
{
	struct tl_cache *tc = &tl_cols_cache;
	int ncols, y, time = tl_cols_is_time(ui);
	struct pane q = *p;
	const char *legend;
	uint64_t lo, hi;

	/* the rows above the lanes start after their gutter, so a column is
	 * the same time on the density, the axis and every lane */
	tl_gx = time && p->h > 3 && tl_lanes_rows(ui) > 0 ? tl_lanes_gutter(ui) : 0;
	if (p->w - tl_gx < 8)
		tl_gx = 0;
	q.x += tl_gx;
	q.w -= tl_gx;
	ncols = q.w > TL_MAX_COLS ? TL_MAX_COLS : q.w;
	if (p->h <= 0 || ncols <= 0)
		return;
	tl_zoom_view(ui, time, ncols, &lo, &hi);
	tl_cols_compute(ui, ncols, time, lo, hi);
	ui->tl_lo = tc->lo;
	ui->tl_hi = tc->hi;
	for (y = 0; y < p->h; y++)
		screen_clear(p->y + y, p->x, p->w);
	tl_draw_density(ui, &q, ncols);
	if (p->h < 2)
		return;
	tl_draw_markers(ui, &q, ncols);
	/* the sideband's legend: under the lanes if they show, else on the
	 * axis row */
	legend = streams_tl_legend(ui);
	if (p->h >= 3)
		tl_axis_draw(ui, q.y + 2, q.x, q.w, tc, p->h > 3 ? NULL : legend);
	if (p->h > 3)
		tl_lanes_draw(ui, p->y + 3, p->x, tl_gx + ncols, p->h - 3, tc->lo,
			      tc->hi, tc->time, legend);
}

uint64_t tl_tsc_after(struct ui *ui, uint64_t off)
{
	struct win_iter it = { 0 };
	uint64_t t = 0;
	int n = 256;

	if (!win_seek(&it, ui->wc, off)) {
		do {
			if (win_row(&it)->ts.flags & TM_F_TSC) {
				t = win_row(&it)->ts.tsc;
				break;
			}
		} while (n-- && !win_next(&it));
	}
	win_iter_release(&it);
	return t;
}

/* An offset whose row is before the first row at or after TSC @v, near
 * it: halved on the rows' times (a window lookup each) within the
 * index's segment for @v and the next one's start, or before the index
 * knows (a stream just switched to, the trace still being indexed) the
 * whole trace.  A row without a time is placed by the first timed row
 * after it (tl_tsc_after()), so that it does not halve past @v. */
static uint64_t tl_off_near_tsc(struct ui *ui, uint64_t v)
{
	size_t seg;
	uint64_t lo = 0, hi = ui->img->size;
	int steps = 64;

	if (ui->idx && !idx_find_tsc(ui->idx, v, &seg) &&
	    idx_segment_span(ui->idx, seg, &lo, &hi)) {
		lo = 0;
		hi = ui->img->size;
	}
	while (hi - lo > 1 && steps--) {
		uint64_t mid = lo + (hi - lo) / 2, t = tl_tsc_after(ui, mid);

		if (t && t < v)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The rows a jump by time walks from where the halving ends: a window's
 * worth and more, for rows without a time of their own (a PSB+). */
#define TL_JUMP_WALK (WIN_MAX_ROWS * 4)

int tl_jump_tsc(struct ui *ui, uint64_t v)
{
	struct win_iter it = { 0 };
	uint64_t off, a;
	int n = TL_JUMP_WALK, found = 0;

	/* A segment may be megabytes (one PSB in a whole trace): halved on
	 * the rows' times to near @v first, then the first row at or after
	 * it, not a PSB+ row carrying the segment before's time. */
	off = a = tl_off_near_tsc(ui, v);
	if (!win_seek(&it, ui->wc, a)) {
		while (n-- && !(found = goto_idx_tsc_hit(win_row(&it), v))) {
			if (win_next(&it))
				break;
		}
		off = win_row(&it)->pkt.offset;
	}
	win_iter_release(&it);
	if (!found && n < 0) {
		msg_report(ui, UI_WARN, "timeline: no row at that time in %d rows from 0x%"
			   PRIx64 ": the cursor stops short, at 0x%" PRIx64, TL_JUMP_WALK, a, off);
		return nav_jump(ui, off) | UI_DRAW_STATUS;
	}
	return nav_jump(ui, off);
}

/* Jump to the middle of column @col of the last drawing, within the
 * whole axis: a column past the view's edge (h and l there) moves the
 * cursor out of it, and the view follows.  Returns UI_DRAW_*. */
static int tl_jump_col(struct ui *ui, long col)
{
	struct tl_cache *tc = &tl_cols_cache;
	double w = (double)(tc->hi - tc->lo) / tc->ncols, d;
	uint64_t a, b, c, v;

	if (tc->ncols <= 0 || tc->hi <= tc->lo)
		return UI_DRAW_NONE;
	tl_cols_whole(ui, tc->time, &a, &b, &c);
	d = ((double)col + 0.5) * w;
	if (d >= 0)
		v = tc->lo + (uint64_t)d;
	else
		v = (uint64_t)-d >= tc->lo ? 0 : tc->lo - (uint64_t)-d;
	if (v < a)
		v = a;
	if (v >= b)
		v = b > a ? b - 1 : a;
	/* (before the index knows the time too: tl_off_near_tsc()) */
	if (tc->time)
		return tl_jump_tsc(ui, v);
	if (v >= ui->img->size)
		v = ui->img->size ? ui->img->size - 1 : 0;
	return nav_jump(ui, v);
}

int tl_click(struct ui *ui, int col)
{
	if (tl_cols_cache.ncols <= 0 || col < 0 || col >= tl_cols_cache.ncols)
		return UI_DRAW_NONE;
	return tl_jump_col(ui, col);
}

int tl_pick(struct ui *ui, int row, int col)
{
	if (row >= 3)
		return tl_lanes_click(ui, row - 3, col);
	streams_tl_pick(ui, col - tl_gx);
	return tl_click(ui, col - tl_gx);
}

int tl_step(struct ui *ui, long d)
{
	struct tl_cache *tc = &tl_cols_cache;
	uint64_t v;
	long c;

	if (tc->ncols <= 0)
		return UI_DRAW_NONE;
	v = tc->time ? tl_zoom_row_time(ui, ui->cursor) : ui->cursor;
	c = v < tc->lo ? 0 : v >= tc->hi ? tc->ncols - 1 : tl_cols_of(tc, v);
	return tl_jump_col(ui, c + d) | UI_DRAW_TIMELINE;
}

/* The column of a press on the timeline's first three rows, or -1; once
 * the pointer moved with it, the offset the press went to. */
static int tl_press = -1;
static int tl_moved;
static uint64_t tl_anchor;

/* The time from row @from to the row holding @to - 1 into @buf: '?'
 * before it if either end's time is disputed, else '~' if either is an
 * estimate (not a TSC or MTC packet's), as the panes mark them. */
static void tl_span_time(struct ui *ui, uint64_t from, uint64_t to, char *buf, size_t size)
{
	const char *ma, *mb;
	uint64_t a = timefmt_off_tsc(ui, from, &ma), b = timefmt_off_tsc(ui, to - 1, &mb);
	char t[40];

	/* (a row without a time, 0: "?", not a span from TSC 0) */
	timefmt_tsc(ui, t, sizeof(t), a && b ? timefmt_tsc_diff(ui, a, b) : NAN, 0);
	snprintf(buf, size, "%s%s", !a || !b ? "" : *ma == '?' || *mb == '?' ? "?" :
		 *ma ? ma : mb, t);
}

/* The span from the press to column @col selected (@col the press's own:
 * none).  Returns 1 with *@draw set. */
static int tl_drag_to(struct ui *ui, int col, int *draw)
{
	uint64_t anchor = tl_moved ? tl_anchor : ui->cursor, from, to;
	char span[48];

	if (col == tl_press) {
		if (tl_moved && marks_ui_cancel(ui))
			*draw = nav_jump(ui, anchor) | UI_DRAW_ALL;
		return 1;
	}
	*draw = tl_jump_col(ui, col) | UI_DRAW_ALL;
	if (ui->cursor == anchor)
		return 1;
	marks_ui_visual_from(ui, anchor);
	marks_ui_selection(ui, &from, &to);
	if (tl_cols_cache.time)
		tl_span_time(ui, from, to, span, sizeof(span));
	else
		snprintf(span, sizeof(span), "%" PRIu64 " bytes", to - from);
	msg_report(ui, UI_INFO, "-- VISUAL --  %s on the timeline: z zooms to it, "
		   "Enter names a region, Esc ends", span);
	return 1;
}

void tl_mouse_drop(void)
{
	tl_press = -1;
}

int tl_mouse(struct ui *ui, const MEVENT *ev, int *draw)
{
	const struct pane *p = &ui->panes[UI_PANE_TIMELINE];
	int col = ev->x - p->x - tl_gx, ncols = tl_cols_cache.ncols;

	if (ev->bstate & BUTTON1_PRESSED) {
		tl_press = p->h > 0 && ev->y >= p->y && ev->y < p->y + (p->h < 3 ? p->h : 3) &&
			   col >= 0 && col < ncols ? col : -1;
		tl_moved = 0;
		return 0;	/* the browser jumps there, as for a click */
	}
	if (tl_press < 0)
		return 0;
	if (col < 0)
		col = 0;
	if (col >= ncols)
		col = ncols - 1;
	/* a motion with the button held (select.c says why all motion): the
	 * span follows the pointer, until the user ends the selection */
	if ((ev->bstate & REPORT_MOUSE_POSITION) && !(ev->bstate & BUTTON1_RELEASED)) {
		if (tl_moved && !marks_ui_visual(ui)) {
			tl_press = -1;
			return 0;
		}
		if (!tl_moved && col == tl_press)
			return 1;
		if (!tl_moved)
			tl_anchor = ui->cursor;	/* where the press went */
		tl_moved = 1;
		return tl_drag_to(ui, col, draw);
	}
	if (!(ev->bstate & BUTTON1_RELEASED))
		return 0;
	if (col == tl_press && !tl_moved) {
		tl_press = -1;
		return 0;
	}
	tl_drag_to(ui, col, draw);
	tl_press = -1;
	return 1;
}

static void tl_resize(struct ui *ui, struct pane *p)
{
	tl_cols_cache.ncols = 0;	/* recompute */
}

static void tl_free(struct pane *p)
{
	tl_lanes_free();
}

const struct pane_ops tl_ops = {
	.name = "timeline",
	.table = KM_T_TIMELINE,
	.draw = tl_draw,
	.resize = tl_resize,
	.free = tl_free,
};
