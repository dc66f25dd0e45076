/* tl -- the timeline: the whole trace (or a zoomed part) across the width;
 * its columns are computed in tl_cols.c, drawn and clicked here. */
#include <curses.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "marks.h"
#include "marks_ui.h"
#include "msg.h"
#include "nav.h"
#include "screen.h"
#include "search_ui.h"
#include "streams_tl.h"
#include "timefmt.h"
#include "tl.h"
#include "tl_cols.h"
#include "tl_lanes.h"
#include "ui.h"

#define TL_MAX_ZOOM 40

void tl_range(struct ui *ui, uint64_t *lo, uint64_t *hi)
{
	tl_cols_axis(ui, tl_cols_is_time(ui), ui->cols > 0 ? ui->cols : 1, lo, hi);
}

/* A number of bytes as "12.5MiB", with @dec decimals (-1: as few as
 * reads well), or exact in hex with @dec 9. */
static void tl_fmt_bytes(char *buf, size_t size, uint64_t v, int dec)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double d = (double)v;
	int u = 0;

	if (dec >= 9) {
		snprintf(buf, size, "0x%" PRIx64, v);
		return;
	}
	while (d >= 1024 && u < 4)
		d /= 1024, u++;
	if (u == 0)
		snprintf(buf, size, "%" PRIu64 "B", v);
	else
		snprintf(buf, size, "%.*f%s", dec >= 0 ? dec : d < 10 ? 1 : 0, d, unit[u]);
}

/* The axis label at axis value @v: times with resolution @res ns, bytes
 * with @dec decimals (tl_fmt_bytes()). */
static void tl_label(struct ui *ui, int time, uint64_t v, double res, int dec,
		     char *buf, size_t size)
{
	uint64_t t0, t1;

	if (time && tl_cols_time_range(ui, &t0, &t1)) {
		double ns = timefmt_tsc_diff(ui, t0, v);

		if (isnan(ns))
			snprintf(buf, size, "+%" PRIu64 "tsc", v - t0);
		else
			timefmt_ns_res(buf, size, ns, res);
	} else {
		tl_fmt_bytes(buf, size, v, dec);
	}
}

/* The three axis labels at @lo, @mid and @hi into @l, @m and @r, told
 * apart: time labels with the digits the half span needs, byte labels
 * with more decimals (at last exact) until they differ. */
static void tl_labels(struct ui *ui, int time, uint64_t lo, uint64_t mid,
		      uint64_t hi, char *l, char *m, char *r, size_t size)
{
	double res = time ? timefmt_tsc_diff(ui, lo, mid) : NAN;
	int dec = -1;

	if (isnan(res) || res < 1)
		res = 1;
	for (;;) {
		tl_label(ui, time, lo, res, dec, l, size);
		tl_label(ui, time, mid, res, dec, m, size);
		tl_label(ui, time, hi, res, dec, r, size);
		if (dec >= 9 || (strcmp(l, m) && strcmp(m, r)))
			break;
		if (time) {
			uint64_t t0, t1;

			/* Less than a nanosecond apart: in TSC ticks. */
			if (tl_cols_time_range(ui, &t0, &t1)) {
				snprintf(l, size, "+%" PRIu64 "tsc", lo - t0);
				snprintf(m, size, "+%" PRIu64 "tsc", mid - t0);
				snprintf(r, size, "+%" PRIu64 "tsc", hi - t0);
			}
			break;
		}
		dec = dec < 0 ? 1 : dec < 3 ? dec + 1 : 9;
	}
}

/* The column of the hit at @off (search_ui_tl_marks()). */
static int tl_hit_col(struct ui *ui, uint64_t off, void *arg)
{
	const struct tl_cache *tc = arg;

	return tl_cols_of(tc, tc->time ? tl_cols_row_tsc(ui, off) : off);
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

/* The columns the view (its first row to its last) covers: *@v0..*@v1. */
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
		a = tl_cols_row_tsc(ui, ui->top);
		b = tl_cols_row_tsc(ui, bottom ? bottom - 1 : 0) + 1;
	} else {
		a = ui->top;
		b = bottom;
	}
	*v0 = a < tc->lo ? 0 : tl_cols_of(tc, a);
	*v1 = b >= tc->hi ? ncols - 1 : tl_cols_of(tc, b ? b - 1 : 0);
	if (*v0 < 0)
		*v0 = 0;
	if (*v1 < *v0)
		*v1 = *v0;
}

/* Set @inreg[c] for the columns regions cover (underlined).  On the time
 * axis each costs two (cached) window lookups: 32 at most. */
static void tl_regions(struct ui *ui, int ncols, uint8_t *inreg)
{
	struct tl_cache *tc = &tl_cols_cache;
	size_t i, n = ui->bm ? marks_count(ui->bm) : 0, nreg = 0;
	int c;

	for (i = 0; i < n; i++) {
		const struct marks_entry *e = marks_at(ui->bm, i);
		uint64_t from = e->from, to = e->to;
		int c0, c1;

		if (e->kind != BM_REGION || (tc->time && nreg++ >= 32))
			continue;
		if (tc->time) {
			from = tl_cols_row_tsc(ui, e->from);
			to = tl_cols_row_tsc(ui, e->to ? e->to - 1 : 0) + 1;
			if (from <= 1 || to <= from)
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

/* Row 2: the viewport, troubles, PSBs when few, regions. */
static void tl_draw_view(struct ui *ui, struct pane *p, int ncols)
{
	static uint8_t inreg[TL_MAX_COLS];
	struct tl_cache *tc = &tl_cols_cache;
	uint32_t npsb = 0;
	int c, v0, v1;

	tl_viewport(ui, ncols, &v0, &v1);
	memset(inreg, 0, sizeof(inreg));
	tl_regions(ui, ncols, inreg);
	for (c = 0; c < ncols; c++)
		npsb += tc->col[c].psbs;
	for (c = 0; c < ncols; c++) {
		const char *g = " ";
		int attr = A_NORMAL;

		if (tc->col[c].trouble) {
			g = "!";
			attr = screen_attr(ui, SC_MSGERR);
		} else if (npsb && npsb <= (uint32_t)ncols / 2 && tc->col[c].psbs) {
			g = screen_glyph(ui, "╵", "'");
			attr = screen_attr(ui, SC_DIM);
		}
		if (c >= v0 && c <= v1) {
			attr = screen_attr(ui, SC_VIEWPORT) | A_REVERSE;
			if (!strcmp(g, " ") || !strcmp(g, "'") || !strcmp(g, "╵"))
				g = c == v0 ? screen_glyph(ui, "▕", "[") :
				    c == v1 ? screen_glyph(ui, "▏", "]") : " ";
			if (v0 == v1)
				g = screen_glyph(ui, "┃", "|");
		}
		attrset(attr | (inreg[c] ? A_UNDERLINE : 0));
		screen_put(p->y + 1, p->x + c, 1, g);
	}
}

/* Row 2 too: marks and bookmarks (a window lookup each on the time axis,
 * so 64 at most there), search hits, the sideband. */
static void tl_draw_marks(struct ui *ui, struct pane *p, int ncols)
{
	struct tl_cache *tc = &tl_cols_cache;
	size_t i, n = ui->bm ? marks_count(ui->bm) : 0;

	if (ui->bm)
		attrset(screen_attr(ui, SC_MARK));
	for (i = 0; i < n && (!tc->time || i < 64); i++) {
		const struct marks_entry *e = marks_at(ui->bm, i);
		int col = tl_cols_of(tc, tc->time ? tl_cols_row_tsc(ui, e->from) : e->from);
		char s[2] = { e->kind == BM_MARK ? e->name[0] : '*', 0 };

		if (e->kind == BM_REGION || col < 0)
			continue;
		screen_put(p->y + 1, p->x + col, 1, s);
	}
	/* Search hits: '·' (search_ui.c); a window lookup each on the time
	 * axis, so fewer there. */
	search_ui_tl_marks(ui, p->y + 1, p->x, tc->time ? 0 : tc->lo,
			   tc->time ? ui->img->size : tc->hi, tc->time ? 64 : (size_t)ncols,
			   tl_hit_col, tc);
	/* perf.data sideband: data loss, itrace start, switches, comm. */
	streams_tl_draw(ui, p->y + (p->h >= 3 ? 2 : 1), p->x, ncols, tc->lo, tc->hi, tc->time);
	attrset(A_NORMAL);
}

/* Row 3: the axis. */
static void tl_draw_axis(struct ui *ui, struct pane *p)
{
	struct tl_cache *tc = &tl_cols_cache;
	char l[32], m[32], r[40];
	int lw, mw, rw;

	tl_labels(ui, tc->time, tc->lo, tc->lo + (tc->hi - tc->lo) / 2,
		  tc->hi, l, m, r, sizeof(l));
	lw = (int)strlen(l);
	mw = (int)strlen(m);
	rw = (int)strlen(r);
	attrset(screen_attr(ui, SC_DIM));
	screen_put(p->y + 2, p->x, p->w, l);
	if (p->w > lw + mw + rw + 4)
		screen_put(p->y + 2, p->x + (p->w - mw) / 2, mw, m);
	if (p->w > lw + rw + 2)
		screen_put(p->y + 2, p->x + p->w - rw, rw, r);
	if (p->w > lw + rw + 30) {
		char z[48];

		snprintf(z, sizeof(z), " %s%s%s ", tc->time ? "time" : "bytes",
			 tc->time && timefmt_estimated(ui) ?
				screen_glyph(ui, "≈", "~") : "",
			 ui->tl_zoom ? "  zoomed" : "");
		screen_put(p->y + 2, p->x + lw + 2, p->w - lw - 2, z);
	}
	attrset(A_NORMAL);
}

static void tl_draw(struct ui *ui, struct pane *p)
{
	struct tl_cache *tc = &tl_cols_cache;
	int ncols = p->w > TL_MAX_COLS ? TL_MAX_COLS : p->w, y;

	if (p->h <= 0 || ncols <= 0)
		return;
	tl_cols_compute(ui, ncols);
	ui->tl_lo = tc->lo;
	ui->tl_hi = tc->hi;
	for (y = 0; y < p->h; y++)
		screen_clear(p->y + y, p->x, p->w);
	tl_draw_density(ui, p, ncols);
	if (p->h < 2)
		return;
	tl_draw_view(ui, p, ncols);
	tl_draw_marks(ui, p, ncols);
	if (p->h >= 3)
		tl_draw_axis(ui, p);
	if (p->h > 3)
		tl_lanes_draw(ui, p->y + 3, p->x, p->w, p->h - 3, tc->lo, tc->hi, tc->time);
}

int tl_zoom(struct ui *ui, int dir)
{
	int z = ui->tl_zoom + (dir > 0 ? 1 : -1);

	if (z < 0 || z > TL_MAX_ZOOM) {
		msg_report(ui, UI_WARN, "timeline zoom at its %s", z < 0 ? "widest" : "closest");
		return UI_DRAW_STATUS;
	}
	ui->tl_zoom = z;
	return UI_DRAW_TIMELINE | UI_DRAW_STATUS;
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

/* An offset whose row's time is at or before TSC @v, near the first one
 * after it: the index's segment, or before the index knows (a stream just
 * switched to), a binary search over the rows' times (a window each). */
static uint64_t tl_off_near_tsc(struct ui *ui, uint64_t v)
{
	size_t seg;
	struct idx_seek sk;
	uint64_t lo = 0, hi = ui->img->size;
	int steps = 64;

	if (ui->idx && !idx_find_tsc(ui->idx, v, &seg) && !idx_seek(ui->idx, seg, &sk))
		return sk.offset;
	while (hi - lo > 1 && steps--) {
		uint64_t mid = lo + (hi - lo) / 2, t = tl_tsc_after(ui, mid);

		if (t && t < v)
			lo = mid;
		else
			hi = mid;
	}
	if (win_psb_at_or_before(ui->wc, lo, &lo))
		lo = 0;
	return lo;
}

int tl_jump_tsc(struct ui *ui, uint64_t v)
{
	struct win_iter it = { 0 };
	uint64_t off = tl_off_near_tsc(ui, v);

	/* The first row at or after that time. */
	if (!win_seek(&it, ui->wc, off)) {
		int n = WIN_MAX_ROWS * 4;

		while (n-- && !((win_row(&it)->ts.flags & TM_F_TSC) &&
				win_row(&it)->ts.tsc >= v)) {
			if (win_next(&it))
				break;
		}
		off = win_row(&it)->pkt.offset;
	}
	win_iter_release(&it);
	return nav_jump(ui, off);
}

int tl_click(struct ui *ui, int col)
{
	struct tl_cache *tc = &tl_cols_cache;
	uint64_t v;

	if (tc->ncols <= 0 || col < 0 || col >= tc->ncols)
		return UI_DRAW_NONE;
	v = tc->lo + (uint64_t)(((double)col + 0.5) * (double)(tc->hi - tc->lo) / tc->ncols);
	if (tc->time) {
		size_t seg;

		/* before the index knows the time: nowhere, as before */
		if (!ui->idx || idx_find_tsc(ui->idx, v, &seg))
			return UI_DRAW_NONE;
		return tl_jump_tsc(ui, v);
	}
	if (v >= ui->img->size)
		v = ui->img->size ? ui->img->size - 1 : 0;
	return nav_jump(ui, v);
}

int tl_pick(struct ui *ui, int row, int col)
{
	if (row >= 3)
		return tl_lanes_click(ui, row - 3, col);
	streams_tl_pick(ui, col);
	return tl_click(ui, col);
}

int tl_step(struct ui *ui, long d)
{
	struct tl_cache *tc = &tl_cols_cache;
	uint64_t v;
	long c;

	if (tc->ncols <= 0)
		return UI_DRAW_NONE;
	v = tc->time ? tl_cols_row_tsc(ui, ui->cursor) : ui->cursor;
	c = v < tc->lo ? 0 : v >= tc->hi ? tc->ncols - 1 : tl_cols_of(tc, v);
	c += d;
	if (c < 0)
		c = 0;
	if (c >= tc->ncols)
		c = tc->ncols - 1;
	return tl_click(ui, (int)c) | UI_DRAW_TIMELINE;
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
