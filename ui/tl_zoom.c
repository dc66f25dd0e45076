/* tl_zoom -- the timeline's view and its zoom (see tl_zoom.h). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "goto_ui.h"
#include "marks.h"
#include "marks_ui.h"
#include "msg.h"
#include "nav.h"
#include "search_ui.h"
#include "timefmt.h"
#include "tl_cols.h"
#include "tl_lanes.h"
#include "tl_zoom.h"
#include "ui.h"

/* The longest goto target of FROM TO words joined. */
#define TZ_TOKLEN 512

/* The view while ui->tl_zoom is set (one browser per process). */
static struct {
	int time;		/* its axis: TSC ticks, else bytes */
	uint64_t lo, hi;
	int ncols;		/* the columns of the last view asked for */
} tz;

/* The narrowest view: a TSC tick or 16 bytes a column. */
static uint64_t tl_zoom_min(int time, int ncols)
{
	return (uint64_t)(ncols > 0 ? ncols : 1) * (time ? 1 : 16);
}

/* [*@lo, *@lo + @span) moved inside [@a, @b) (@span < @b - @a). */
static void tl_zoom_clamp(uint64_t a, uint64_t b, uint64_t span, uint64_t *lo)
{
	if (*lo < a)
		*lo = a;
	if (*lo > b - span)
		*lo = b - span;
}

uint64_t tl_zoom_row_time(struct ui *ui, uint64_t off)
{
	const char *m;
	uint64_t t = tl_cols_row_tsc(ui, off);

	/* (the window lookups for the PSB+ only where the row has none: a
	 * few rows at each segment's start) */
	return t ? t : timefmt_off_tsc(ui, off, &m);
}

/* Where the cursor is on the axis into *@c: its offset (0x0 is one), or
 * its row's time (tl_zoom_row_time(): at 0x0 the first PSB+'s TSC); the
 * trace's last row's time, the time axis's end, as the last tick before
 * it (the axis is [a, @b)).  Returns 1, or 0 if its row has no time. */
static int tl_zoom_cursor(struct ui *ui, int time, uint64_t b, uint64_t *c)
{
	if (!time) {
		*c = ui->cursor;
		return 1;
	}
	*c = tl_zoom_row_time(ui, ui->cursor);
	if (*c && *c == b)
		*c = b - 1;
	return *c != 0;
}

/* The view on the other axis: the bytes of the segments its times fall
 * in, or the times of the rows at its bytes.  Returns 0, or -1 if that
 * is not known (then the whole axis is shown). */
static int tl_zoom_convert(struct ui *ui, int time)
{
	uint64_t lo, hi;
	size_t s0, s1;
	struct idx_seek k0, k1;

	if (time) {
		lo = tl_zoom_row_time(ui, tz.lo);
		hi = tl_zoom_row_time(ui, tz.hi ? tz.hi - 1 : 0) + 1;
	} else {
		if (!ui->idx || idx_find_tsc(ui->idx, tz.lo, &s0) ||
		    idx_find_tsc(ui->idx, tz.hi - 1, &s1) || idx_seek(ui->idx, s0, &k0))
			return -1;
		lo = k0.offset;
		hi = idx_seek(ui->idx, s1 + 1, &k1) ? ui->img->size : k1.offset;
	}
	/* (offset 0 is a place; TSC 0 is no time) */
	if ((time && !lo) || hi <= lo)
		return -1;
	tz.time = time;
	tz.lo = lo;
	tz.hi = hi;
	return 0;
}

void tl_zoom_view(struct ui *ui, int time, int ncols, uint64_t *lo, uint64_t *hi)
{
	uint64_t a, b, c, span, l, min = tl_zoom_min(time, ncols);
	int known;

	tl_cols_whole(ui, time, &a, &b, &c);
	known = tl_zoom_cursor(ui, time, b, &c);
	tz.ncols = ncols;
	*lo = a;
	*hi = b;
	if (!ui->tl_zoom || b <= a)
		return;
	if (tz.time != time && tl_zoom_convert(ui, time)) {
		ui->tl_zoom = 0;
		return;
	}
	span = tz.hi > tz.lo ? tz.hi - tz.lo : min;
	if (span < min)
		span = min;
	if (span >= b - a) {
		ui->tl_zoom = 0;
		return;
	}
	l = tz.lo;
	/* the cursor left the view: recentred on it */
	if (known && (c < l || c >= l + span))
		l = c > span / 2 ? c - span / 2 : 0;
	tl_zoom_clamp(a, b, span, &l);
	tz.lo = *lo = l;
	tz.hi = *hi = l + span;
}

void tl_zoom_stream(struct ui *ui)
{
	if (ui->tl_zoom && !(tz.time && tl_lanes_rows(ui) > 0))
		ui->tl_zoom = 0;
}

int tl_zoom_step(struct ui *ui, int dir)
{
	int time = tl_cols_is_time(ui), ncols = tz.ncols > 0 ? tz.ncols : ui->cols;
	uint64_t a, b, c, lo, hi, span, nspan, nlo, min = tl_zoom_min(time, ncols);
	long k;

	tl_zoom_view(ui, time, ncols, &lo, &hi);
	tl_cols_whole(ui, time, &a, &b, &c);
	span = hi - lo;
	if (!tl_zoom_cursor(ui, time, b, &c) || c < lo || c >= hi)
		c = lo + span / 2;	/* the cursor's time unknown: the middle */
	if (dir > 0 && span <= min) {
		msg_report(ui, UI_WARN, "timeline zoom at its closest");
		return UI_DRAW_STATUS;
	}
	if (dir < 0 && !ui->tl_zoom) {
		msg_report(ui, UI_WARN, "timeline zoom at its widest");
		return UI_DRAW_STATUS;
	}
	nspan = dir > 0 ? (span / 2 < min ? min : span / 2) : span * 2;
	if (dir < 0 && (nspan < span || nspan >= b - a)) {
		ui->tl_zoom = 0;
		return UI_DRAW_TIMELINE | UI_DRAW_STATUS;
	}
	/* The cursor keeps its column: the same share of the view before it,
	 * or if rounding moves it, the middle of its column. */
	k = (long)((double)(c - lo) * ncols / (double)span);
	nlo = c - (uint64_t)((double)(c - lo) * (double)nspan / (double)span);
	if ((long)((double)(c - nlo) * ncols / (double)nspan) != k)
		nlo = c - (uint64_t)(((double)k + 0.5) * (double)nspan / ncols);
	tl_zoom_clamp(a, b, nspan, &nlo);
	ui->tl_zoom = 1;
	tz.time = time;
	tz.lo = nlo;
	tz.hi = nlo + nspan;
	return UI_DRAW_TIMELINE | UI_DRAW_STATUS;
}

/* The span [@lo, @hi) of the axis as "1.250 ms" or "4096 bytes". */
static void tl_zoom_span_text(struct ui *ui, int time, uint64_t lo, uint64_t hi,
			      char *buf, size_t size)
{
	if (time)
		timefmt_tsc(ui, buf, size, timefmt_tsc_diff(ui, lo, hi), 0);
	else
		snprintf(buf, size, "%" PRIu64 " bytes", hi - lo);
	if (time && !strcmp(buf, "?"))
		snprintf(buf, size, "%" PRIu64 " TSC ticks", hi - lo);
}

int tl_zoom_to(struct ui *ui, uint64_t from, uint64_t to, const char *what)
{
	int time = tl_cols_is_time(ui), ncols = tz.ncols > 0 ? tz.ncols : ui->cols;
	uint64_t a, b, c, lo = from, hi = to, min = tl_zoom_min(time, ncols);
	int draw = UI_DRAW_TIMELINE | UI_DRAW_STATUS;
	const char *wide = "";
	char span[48];

	if (to > ui->img->size)
		to = ui->img->size;
	if (to <= from) {
		msg_report(ui, UI_WARN, "zoom: %s is empty", what);
		return UI_DRAW_STATUS;
	}
	tl_cols_whole(ui, time, &a, &b, &c);
	if (time) {
		const char *m;

		/* (a span from the trace's first PSB: its PSB+'s TSC) */
		lo = timefmt_off_tsc(ui, from, &m);
		hi = timefmt_off_tsc(ui, to - 1, &m) + 1;
		if (!lo || hi <= lo) {
			msg_report(ui, UI_WARN, "zoom: no time known at 0x%" PRIx64
				   " (t: the byte axis)", lo ? to - 1 : from);
			return UI_DRAW_STATUS;
		}
	}
	if (lo < a)
		lo = a;
	if (hi > b)
		hi = b;
	if (hi <= lo || hi - lo < min) {
		uint64_t mid = lo / 2 + hi / 2;

		if (min >= b - a) {
			lo = a;
			hi = b;
		} else {
			lo = mid > min / 2 ? mid - min / 2 : 0;
			tl_zoom_clamp(a, b, min, &lo);
			hi = lo + min;
		}
		wide = " (widened to the closest zoom)";
	}
	ui->tl_zoom = hi - lo < b - a;
	tz.time = time;
	tz.lo = lo;
	tz.hi = hi;
	/* the view follows the cursor: it goes into the span */
	if (ui->cursor < from || ui->cursor >= to)
		draw |= nav_jump(ui, from);
	tl_zoom_span_text(ui, time, lo, hi, span, sizeof(span));
	msg_report(ui, UI_INFO, "timeline: %s, span %s%s", what, span, wide);
	return draw;
}

/* An offset @spec names: a mark, bookmark, region (its end if @end) or
 * number (marks.h), else a goto target.  Returns 0, or -1 with why in
 * @err. */
static int tl_zoom_resolve(struct ui *ui, const char *spec, int end, uint64_t *off,
			   char *err, size_t len)
{
	if (ui->bm && !marks_resolve(ui->bm, spec, end, off))
		return 0;
	return goto_ui_offset(ui, spec, off, err, len) ? -1 : 0;
}

/* The @n words at @w joined by spaces into @buf. */
static void tl_zoom_join(char *const *w, int n, char *buf, size_t size)
{
	size_t len = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? " " : "", w[i]);
}

/* :timeline-zoom FROM TO: split the words where both halves are targets
 * ("psb 5", "t 12ms"); the span takes in TO's row. */
static int tl_zoom_between(struct ui *ui, char *const *w, int n)
{
	char err[256] = "want FROM TO", a[TZ_TOKLEN], b[TZ_TOKLEN], what[TZ_TOKLEN * 2 + 8];
	uint64_t from, to;
	int k;

	for (k = 1; k < n; k++) {
		tl_zoom_join(w, k, a, sizeof(a));
		tl_zoom_join(w + k, n - k, b, sizeof(b));
		if (tl_zoom_resolve(ui, a, 0, &from, err, sizeof(err)) ||
		    tl_zoom_resolve(ui, b, 1, &to, err, sizeof(err)))
			continue;
		if (to < from) {
			uint64_t t = to;

			to = from;
			from = t;
		}
		snprintf(what, sizeof(what), "%.60s to %.60s", a, b);
		return tl_zoom_to(ui, from, to + 1, what);
	}
	msg_report(ui, UI_ERROR, "zoom: %s", err);
	return UI_DRAW_STATUS;
}

/* :timeline-zoom hit: from the hit before the cursor's (the last at or
 * before it) to the one after, a tenth wider each side; a lone hit's
 * PSB segment.  Right after '/' that is the search's first hit; hits the
 * search has not reached yet are not guessed from the ones it has. */
static int tl_zoom_hit(struct ui *ui)
{
	uint64_t prev, hit, next, from, to, pad;
	char what[64];
	int busy, draw, r;

	/* the jump to the first hit, if the search knows it by now */
	draw = search_ui_poll(ui, &busy);
	r = search_ui_hits_near(ui, ui->cursor, &prev, &hit, &next);
	if (r > 0 && ui->headless) {
		search_ui_wait(ui);	/* a script waits for the search */
		r = search_ui_hits_near(ui, ui->cursor, &prev, &hit, &next);
	}
	if (r == 2) {
		msg_report(ui, UI_WARN, "zoom hit: the search stopped before the hits "
			   "near the cursor (search again from here)");
		return draw | UI_DRAW_STATUS;
	}
	if (r > 0) {
		msg_report(ui, UI_INFO, "zoom hit: the hits near the cursor are not "
			   "known yet (the search goes on; try again when it has ended)");
		return draw | UI_DRAW_STATUS;
	}
	if (r < 0) {
		msg_report(ui, UI_WARN, "zoom hit: no search hit (/ searches)");
		return draw | UI_DRAW_STATUS;
	}
	from = prev != UINT64_MAX ? prev : hit;
	to = next != UINT64_MAX ? next + 1 : hit + 1;
	if (prev == UINT64_MAX && next == UINT64_MAX) {
		if (win_psb_at_or_before(ui->wc, hit, &from))
			from = 0;
		if (win_psb_after(ui->wc, hit, &to))
			to = ui->img->size;
	}
	pad = (to - from) / 10;
	from = from > pad ? from - pad : 0;
	to = to + pad < ui->img->size ? to + pad : ui->img->size;
	snprintf(what, sizeof(what), "around the hit at 0x%" PRIx64, hit);
	if (ui->cursor != hit)
		nav_jump(ui, hit);
	return draw | tl_zoom_to(ui, from, to, what) | UI_DRAW_ALL;
}

/* :timeline-zoom region [NAME], or NAME: that region, or the innermost
 * one at the cursor. */
static int tl_zoom_region(struct ui *ui, const char *name)
{
	const struct marks_entry *e;
	char what[BM_NAME_MAX + 16];
	long i;

	if (marks_ui_no_marks(ui))
		return UI_DRAW_STATUS;
	i = name ? marks_find(ui->bm, name) : marks_ui_region_at(ui, ui->cursor);
	if (i < 0) {
		if (name)
			msg_report(ui, UI_ERROR, "zoom: no region, mark or keyword '%.60s' "
				   "(in, out, all, selection, region, hit, or FROM TO)", name);
		else
			msg_report(ui, UI_WARN, "zoom: the cursor is in no region");
		return UI_DRAW_STATUS;
	}
	e = marks_at(ui->bm, (size_t)i);
	if (e->kind != BM_REGION) {
		msg_report(ui, UI_ERROR, "zoom: %.60s is a point: give two (zoom %.20s TO)",
			   e->name, e->name);
		return UI_DRAW_STATUS;
	}
	snprintf(what, sizeof(what), "region %s", e->name);
	return tl_zoom_to(ui, e->from, e->to, what);
}

/* :timeline-zoom [in|out|all|selection|region [NAME]|hit|REGION|FROM TO] */
static int tl_zoom_cmd(struct ui *ui, const struct cmd_args *a)
{
	const char *w = a->argc > 1 ? a->argv[1] : "in";
	long n = cmd_steps(a);
	int r = UI_DRAW_NONE;

	if (a->argc <= 2 && (!strcmp(w, "in") || !strcmp(w, "+") ||
			     !strcmp(w, "out") || !strcmp(w, "-"))) {
		int dir = *w == 'i' || *w == '+' ? 1 : -1;

		if (n > 64)	/* past the deepest zoom either way */
			n = 64;
		while (n-- > 0) {
			int s = tl_zoom_step(ui, dir);

			r |= s;
			if (!(s & UI_DRAW_TIMELINE))
				break;	/* at the closest or widest */
		}
		return r;
	}
	if (a->argc == 2 && !strcmp(w, "all")) {
		ui->tl_zoom = 0;
		msg_report(ui, UI_INFO, "timeline: the whole trace");
		return UI_DRAW_TIMELINE | UI_DRAW_STATUS;
	}
	if (a->argc == 2 && !strcmp(w, "selection")) {
		uint64_t from, to;

		if (!marks_ui_visual(ui)) {
			msg_report(ui, UI_WARN, "zoom: no selection (v, or drag on the timeline)");
			return UI_DRAW_STATUS;
		}
		marks_ui_selection(ui, &from, &to);
		marks_ui_cancel(ui);
		return tl_zoom_to(ui, from, to, "the selection") | UI_DRAW_ALL;
	}
	if (a->argc == 2 && !strcmp(w, "hit"))
		return tl_zoom_hit(ui);
	if (a->argc <= 3 && !strcmp(w, "region"))
		return tl_zoom_region(ui, a->argc == 3 ? a->argv[2] : NULL);
	if (a->argc == 2)
		return tl_zoom_region(ui, w);
	return tl_zoom_between(ui, a->argv + 1, a->argc - 1);
}

static const struct cmd_row tl_zoom_rows[] = {
	{ ACTION_TIMELINE_ZOOM, tl_zoom_cmd, CMD_WORDS, 0, 0 },
};

CMD_TABLE(tl_zoom_cmds, tl_zoom_rows);
