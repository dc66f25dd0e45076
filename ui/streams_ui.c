/* streams_ui -- the streams of a perf.data file: switching, sideband markers. */
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "marks.h"
#include "marks_ui.h"
#include "perfdata.h"
#include "search_ui.h"
#include "trace.h"

#define SU_CACHE_BYTES (48u << 20)
#define SU_MAX_STREAMS 256

/* Where each stream's cursor was when we left it. */
static struct {
	uint64_t cursor[SU_MAX_STREAMS];
	uint8_t seen[SU_MAX_STREAMS];
	const struct perfdata_event *last_near;	/* shown in the message line */
} su;

/* The marks' reporter while switching. */
static void streams_ui_report(void *ctx, const char *msg)
{
	ui_message(ctx, UI_WARN, "%s", msg);
}

int streams_ui_switch(struct ui *ui, int s)
{
	struct trace *t = ui->trace;
	struct win_cache *wc;
	struct marks_opts bo = { 0 };
	int had_idx = ui->idx != NULL;

	if (s < 0 || (size_t)s >= t->nstreams)
		return UI_DRAW_NONE;
	if (s == ui->stream_no) {
		ui_message(ui, UI_INFO, "already on stream %s", t->streams[s].name);
		return UI_DRAW_ALL;
	}
	if (win_cache_new(&wc, &t->streams[s].img, NULL, SU_CACHE_BYTES) < 0) {
		ui_message(ui, UI_ERROR, "streams: out of memory");
		return UI_DRAW_STATUS;
	}
	/* A search reads this stream and its index. */
	search_ui_free(ui);
	marks_ui_stop(ui);
	ui_idx_stop(ui);
	if (ui->stream_no < SU_MAX_STREAMS) {
		su.cursor[ui->stream_no] = ui->cursor;
		su.seen[ui->stream_no] = 1;
	}
	win_cache_free(ui->wc);
	ui->wc = wc;
	ui->stream_no = s;
	su.last_near = NULL;
	ui->img = &t->streams[s].img;
	tm_config_merge(&ui->tmcfg, &t->streams[s].timing);
	win_cache_set_timing(ui->wc, &ui->tmcfg);
	/* Marks are per stream: each has its own marks file. */
	marks_close(ui->bm);
	ui->bm = NULL;
	bo.flags = ui->no_state ? BM_NO_STATE : 0;
	bo.stream = t->nstreams > 1 ? t->streams[s].name : NULL;
	bo.report = streams_ui_report;
	bo.report_ctx = ui;
	if (marks_open_trace(&ui->bm, t, (size_t)s, &bo) < 0)
		ui->bm = NULL;
	ui->ref_name = 0;
	ui->nhist = ui->hist_pos = 0;
	ui->tl_zoom = 0;
	ui->have_t0 = 0;
	ui_find_t0(ui);
	ui->cursor = ui->top = 0;
	if (s < SU_MAX_STREAMS && su.seen[s] && su.cursor[s] < ui->img->size)
		ui->cursor = ui->top = su.cursor[s];
	if (had_idx)
		ui_idx_start(ui);
	ui_layout(ui);
	ui_message(ui, UI_INFO, "stream %s: %" PRIu64 " bytes%s", t->streams[s].name,
		   ui->img->size, t->streams[s].snapshot ? " (snapshot: gaps possible)" : "");
	/* as when the file was opened on this stream */
	if (perfdata_end_loss(t, s))
		ui_message(ui, UI_WARN, "data lost at the end of %s: %s",
			   t->streams[s].name, perfdata_end_loss(t, s));
	return UI_DRAW_ALL;
}

size_t streams_ui_nevents(const struct ui *ui)
{
	const struct perfdata_event *ev;
	size_t n;

	if (perfdata_events(ui->trace, ui->stream_no, &ev, &n) < 0)
		return 0;
	return n;
}

/* Whether @e lost data. */
static int streams_ui_is_loss(const struct perfdata_event *e)
{
	return e->kind == PD_EV_AUX &&
	       (e->flags & (PD_AUX_TRUNCATED | PD_AUX_PARTIAL | PD_AUX_COLLISION));
}

/* The axis value of @e: its TSC, or on the byte axis its stream offset
 * (AUX records), or the start of the segment holding its TSC.
 * Returns 0 and sets *@v, or -1 if it has none. */
static int streams_ui_value(struct ui *ui, const struct perfdata_event *e, int time, uint64_t *v)
{
	size_t seg;
	struct idx_seek sk;

	if (time) {
		if (!e->have_tsc)
			return -1;
		*v = e->tsc;
		return 0;
	}
	if (e->kind == PD_EV_AUX && e->have_stream_off) {
		*v = e->stream_off;
		return 0;
	}
	if (!e->have_tsc || !ui->idx || idx_find_tsc(ui->idx, e->tsc, &seg) ||
	    idx_seek(ui->idx, seg, &sk))
		return -1;
	*v = sk.offset;
	return 0;
}

/* The glyph of @e's kind. */
static const char *streams_ui_glyph(const struct perfdata_event *e)
{
	if (streams_ui_is_loss(e))
		return "!";
	switch (e->kind) {
	case PD_EV_ITRACE_START: return "^";
	case PD_EV_SWITCH_IN: case PD_EV_SWITCH_OUT: return ",";
	case PD_EV_COMM: return "c";
	default: return NULL;
	}
}

/* How much an event's marker matters when several share a column. */
static int streams_ui_rank(const struct perfdata_event *e)
{
	if (streams_ui_is_loss(e))
		return 4;
	switch (e->kind) {
	case PD_EV_ITRACE_START: return 3;
	case PD_EV_COMM: return 2;
	case PD_EV_SWITCH_IN: case PD_EV_SWITCH_OUT: return 1;
	default: return 0;
	}
}

/* The event shown in each timeline column (an index into the stream's
 * events, or -1), kept until the view changes: a recording has
 * thousands of context switches, and data loss must show among them. */
static struct {
	const struct perfdata_event *ev;
	size_t n, nseeks;
	uint64_t lo, hi;
	int ncols, time;
	int32_t *at;
} streams_ui_cols;

static int streams_ui_columns(struct ui *ui, const struct perfdata_event *ev, size_t n,
		      int ncols, uint64_t lo, uint64_t hi, int time)
{
	size_t i, nseeks = ui->idx ? idx_nseeks(ui->idx) : 0;
	int c;

	if (streams_ui_cols.at && streams_ui_cols.ev == ev && streams_ui_cols.n == n && streams_ui_cols.lo == lo &&
	    streams_ui_cols.hi == hi && streams_ui_cols.ncols == ncols && streams_ui_cols.time == time &&
	    (time || streams_ui_cols.nseeks == nseeks))
		return 0;
	free(streams_ui_cols.at);
	streams_ui_cols.at = malloc((size_t)ncols * sizeof(*streams_ui_cols.at));
	if (!streams_ui_cols.at)
		return -1;
	for (c = 0; c < ncols; c++)
		streams_ui_cols.at[c] = -1;
	for (i = 0; i < n; i++) {
		uint64_t v;

		if (!streams_ui_rank(&ev[i]) || streams_ui_value(ui, &ev[i], time, &v) ||
		    v < lo || v >= hi)
			continue;
		c = (int)((double)(v - lo) * ncols / (double)(hi - lo));
		if (c >= ncols)
			c = ncols - 1;
		if (streams_ui_cols.at[c] < 0 || streams_ui_rank(&ev[i]) > streams_ui_rank(&ev[streams_ui_cols.at[c]]))
			streams_ui_cols.at[c] = (int32_t)i;
	}
	streams_ui_cols.ev = ev;
	streams_ui_cols.n = n;
	streams_ui_cols.nseeks = nseeks;
	streams_ui_cols.lo = lo;
	streams_ui_cols.hi = hi;
	streams_ui_cols.ncols = ncols;
	streams_ui_cols.time = time;
	return 0;
}

void streams_ui_tl_draw(struct ui *ui, int y, int x, int ncols, uint64_t lo, uint64_t hi, int time)
{
	const struct perfdata_event *ev, *near = NULL;
	struct win_row row;
	uint64_t cur = 0;
	size_t n;
	int ccol = -1, best = 3, c;

	if (hi <= lo || ncols <= 0 || perfdata_events(ui->trace, ui->stream_no, &ev, &n) < 0)
		return;
	if (!nav_cursor_row(ui, &row)) {
		cur = time ? (row.ts.flags & TM_F_TSC ? row.ts.tsc : 0) : row.pkt.offset;
		if (cur >= lo && cur < hi)
			ccol = (int)((double)(cur - lo) * ncols / (double)(hi - lo));
	}
	if (streams_ui_columns(ui, ev, n, ncols, lo, hi, time) < 0)
		return;
	for (c = 0; c < ncols; c++) {
		const struct perfdata_event *e;

		if (streams_ui_cols.at[c] < 0)
			continue;
		e = &ev[streams_ui_cols.at[c]];
		attrset(streams_ui_is_loss(e) ? screen_attr(ui, SC_MSGERR) : screen_attr(ui, SC_DIM));
		screen_put(y, x + c, 1, streams_ui_glyph(e));
		if (ccol >= 0 && abs(c - ccol) < best) {
			best = abs(c - ccol);
			near = e;
		}
	}
	attrset(A_NORMAL);
	if (!near)
		su.last_near = NULL;
	/* The event nearest the cursor, in the message line: when the cursor
	 * comes near a new one, or while the line is free. */
	if (near && !prompt_is_open(ui) && (!ui->msg[0] || near != su.last_near)) {
		char t[48] = "?";
		const char *what = perfdata_event_name((enum perfdata_event_kind)near->kind);

		if (near->have_tsc && ui->have_t0)
			status_fmt_tsc_ns(ui, t, sizeof(t),
					  status_tsc_ns(ui, ui->t0, near->tsc), 0);
		if (near->kind == PD_EV_AUX)
			ui_message(ui, streams_ui_is_loss(near) ? UI_WARN : UI_INFO,
				   "sideband: aux%s%s%s at %s, stream 0x%" PRIx64 ", %" PRIu64 " bytes",
				   near->flags & PD_AUX_TRUNCATED ? " truncated" : "",
				   near->flags & PD_AUX_PARTIAL ? " partial" : "",
				   near->flags & PD_AUX_COLLISION ? " collision" : "", t,
				   near->stream_off, near->aux_size);
		else
			ui_message(ui, UI_INFO, "sideband: %s pid %d tid %d%s%s at %s (tsc %" PRIx64 ")",
				   what, near->pid, near->tid, near->kind == PD_EV_COMM ? " " : "",
				   near->kind == PD_EV_COMM ? near->comm : "", t, near->tsc);
		su.last_near = near;
	}
}
