/* streams_ui -- the streams of a perf.data file: switching, sideband markers. */
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "browser.h"
#include "cmd.h"
#include "funcs.h"
#include "listnav.h"
#include "marks.h"
#include "marks_panel.h"
#include "marks_ui.h"
#include "msg.h"
#include "nav.h"
#include "perfdata.h"
#include "prompt.h"
#include "screen.h"
#include "search_ui.h"
#include "session.h"
#include "status.h"
#include "streams_tl.h"
#include "streams_ui.h"
#include "timefmt.h"
#include "tl_zoom.h"
#include "trace.h"
#include "ui.h"

#define SU_MAX_STREAMS 256

/* Where each stream's cursor was when we left it, and the marks of each
 * stream left whose changes no file holds (--no-state, or a newer marks
 * file found): closed, they would be lost. */
static struct {
	uint64_t cursor[SU_MAX_STREAMS];
	uint8_t seen[SU_MAX_STREAMS];
	struct marks_set *bm[SU_MAX_STREAMS];
} su;

void streams_ui_free(void)
{
	size_t i;

	for (i = 0; i < SU_MAX_STREAMS; i++) {
		marks_close(su.bm[i]);
		su.bm[i] = NULL;
	}
}

/* The marks' reporter while switching. */
static void streams_ui_report(void *ctx, const char *msg)
{
	msg_report(ctx, UI_WARN, "%s", msg);
}

int streams_ui_switch(struct ui *ui, int s)
{
	struct trace *t = ui->trace;
	struct win_cache *wc;
	struct marks_opts bo = { 0 };
	int had_idx = ui->idx != NULL, left = ui->stream_no;

	if (s < 0 || (size_t)s >= t->nstreams)
		return UI_DRAW_NONE;
	if (s == ui->stream_no) {
		msg_report(ui, UI_INFO, "already on stream %s", t->streams[s].name);
		return UI_DRAW_ALL;
	}
	if (win_cache_new(&wc, &t->streams[s].img, NULL, SESSION_CACHE_BYTES) < 0) {
		msg_report(ui, UI_ERROR, "streams: out of memory");
		return UI_DRAW_STATUS;
	}
	/* A search reads this stream and its index. */
	search_ui_free(ui);
	marks_panel_stop(ui);
	funcs_stop(ui);
	session_idx_stop(ui);
	if (ui->stream_no < SU_MAX_STREAMS) {
		su.cursor[ui->stream_no] = ui->cursor;
		su.seen[ui->stream_no] = 1;
	}
	win_cache_free(ui->wc);
	ui->wc = wc;
	ui->stream_no = s;
	streams_tl_forget(ui);
	ui->img = &t->streams[s].img;
	tm_config_merge(&ui->tmcfg, &t->streams[s].timing);
	win_cache_set_timing(ui->wc, &ui->tmcfg);
	/* Marks are per stream: each has its own marks file, read again
	 * when we come back, unless the marks are not saved to it, or a
	 * change could not be saved yet (a failed or busy save): closed,
	 * that change would be lost.  Kept, the next change (or the exit)
	 * tries again. */
	if (ui->bm && left < SU_MAX_STREAMS &&
	    (!marks_saving(ui->bm) || marks_flush(ui->bm) < 0))
		su.bm[left] = ui->bm;
	else
		marks_close(ui->bm);
	ui->bm = NULL;
	bo.flags = ui->no_state ? BM_NO_STATE : 0;
	bo.stream = t->nstreams > 1 ? t->streams[s].name : NULL;
	bo.report = streams_ui_report;
	bo.report_ctx = ui;
	if (s < SU_MAX_STREAMS && su.bm[s]) {
		ui->bm = su.bm[s];
		su.bm[s] = NULL;
	} else if (marks_open_trace(&ui->bm, t, (size_t)s, &bo) < 0) {
		ui->bm = NULL;
	}
	ui->ref_name = 0;
	ui->nhist = ui->hist_pos = 0;
	tl_zoom_stream(ui);
	ui->have_t0 = 0;
	session_find_t0(ui);
	ui->cursor = ui->top = 0;
	if (s < SU_MAX_STREAMS && su.seen[s] && su.cursor[s] < ui->img->size)
		ui->cursor = ui->top = su.cursor[s];
	if (had_idx)
		session_idx_start(ui);
	browser_layout(ui);
	msg_report(ui, UI_INFO, "stream %s: %" PRIu64 " bytes%s", t->streams[s].name,
		   ui->img->size, t->streams[s].snapshot ? " (snapshot: gaps possible)" : "");
	status_timing_hint(ui);
	/* as when the file was opened on this stream */
	if (perfdata_end_loss(t, s))
		msg_report(ui, UI_WARN, "data lost at the end of %s: %s",
			   t->streams[s].name, perfdata_end_loss(t, s));
	return UI_DRAW_ALL;
}

/*
 * The streams list (:streams).
 */

static struct listnav su_nav;

/* The PSBs of stream @i, counted once over at most SU_PSB_SCAN bytes.
 * Sets *@more if the count stopped early. */
#define SU_PSB_SCAN (256u << 20)
static uint64_t streams_ui_psbs(struct ui *ui, size_t i, int *more)
{
	static uint64_t count[256];
	static uint8_t done[256], partial[256];
	const struct img *img = &ui->trace->streams[i].img;
	struct img_cursor cur;
	uint64_t n = 0, off = 0;

	if (i < 256 && done[i]) {
		*more = partial[i];
		return count[i];
	}
	*more = 0;
	while (!img_cursor_init(&cur, img, off) && !img_cursor_sync_forward(&cur, off)) {
		n++;
		off = img_cursor_offset(&cur) + 1;
		if (off > SU_PSB_SCAN) {
			*more = 1;
			break;
		}
	}
	if (i < 256) {
		count[i] = n;
		partial[i] = (uint8_t)*more;
		done[i] = 1;
	}
	return n;
}

/* One row of the streams list. */
static void streams_ui_row(struct ui *ui, size_t i, char *buf, size_t size)
{
	const struct trace_stream *s = &ui->trace->streams[i];
	int more;
	uint64_t n = streams_ui_psbs(ui, i, &more);

	snprintf(buf, size, "%-10s cpu %-4d %12" PRIu64 " bytes  %6" PRIu64 "%s PSBs%s%s",
		 s->name, s->cpu, s->img.size, n, more ? "+" : "",
		 s->snapshot ? "  snapshot" : "", i == (size_t)ui->stream_no ? "  (current)" : "");
}

static void streams_ui_list_draw(struct ui *ui, struct view *v)
{
	long n = (long)ui->trace->nstreams, i;
	int h = ui->rows - 3 < 1 ? 1 : ui->rows - 3, y;
	char buf[512];

	erase();
	attrset(screen_attr(ui, SC_HEADER) | A_BOLD);
	screen_clear(0, 0, ui->cols);
	snprintf(buf, sizeof(buf), " streams of %s: %ld   Enter switches  q closes",
		 ui->name, n);
	screen_put(0, 0, ui->cols, buf);
	attrset(A_NORMAL);
	listnav_fit(&su_nav, n, h);
	for (y = 0, i = su_nav.top; y < h && i < n; y++, i++) {
		streams_ui_row(ui, (size_t)i, buf, sizeof(buf));
		attrset(i == su_nav.sel ? A_REVERSE : A_NORMAL);
		screen_clear(1 + y, 0, ui->cols);
		screen_put(1 + y, 1, ui->cols - 1, buf);
	}
	attrset(A_NORMAL);
	if (!n)
		screen_put(1, 1, ui->cols - 1, "(no streams)");
	status_draw(ui);
}

static int streams_ui_list_key(struct ui *ui, struct view *v, int key)
{
	long n = (long)ui->trace->nstreams;

	ui->msg[0] = 0;
	if (listnav_key(&su_nav, key, n, ui->rows - 3 < 1 ? 1 : ui->rows - 3))
		return UI_DRAW_ALL;
	switch (key) {
	case 'q': case 27: case 'Q': case 7:	/* C-g */
		view_close(&ui->vs, v->ops);
		return UI_DRAW_ALL;
	case 3:	/* C-c: stop a region summary */
		marks_panel_cancel(ui);
		return UI_DRAW_ALL;
	case '\r': case '\n': case KEY_ENTER:
		if (!n)
			return UI_DRAW_ALL;
		view_close(&ui->vs, v->ops);
		return su_nav.sel < n ? streams_ui_switch(ui, (int)su_nav.sel) : UI_DRAW_ALL;
	case ':':
		prompt_open(ui, NULL);
		return UI_DRAW_ALL;
	default:
		return UI_DRAW_NONE;
	}
}

static const struct view_ops streams_ui_list = {
	.name = "streams",
	.flags = VIEW_OPAQUE,
	.draw = streams_ui_list_draw,
	.key = streams_ui_list_key,
};

/* :streams [STREAM]: the list, or a switch to STREAM. */
static int streams_ui_cmd(struct ui *ui, const struct cmd_args *a)
{
	int s;

	if (!a->raw[0]) {
		su_nav.sel = ui->stream_no;
		su_nav.top = 0;
		view_push(&ui->vs, &streams_ui_list, NULL);
		return UI_DRAW_ALL;
	}
	s = trace_find_stream(ui->trace, a->raw);
	if (s < 0) {
		msg_report(ui, UI_ERROR, "streams: no stream '%s'", a->raw);
		return UI_DRAW_STATUS;
	}
	return streams_ui_switch(ui, s);
}

static const struct cmd_row streams_ui_rows[] = {
	{ ACTION_STREAMS, streams_ui_cmd, CMD_RAW, 0, 0 },
};

CMD_TABLE(streams_ui_cmds, streams_ui_rows);
