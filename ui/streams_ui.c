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

/*
 * What is kept of each stream while another is shown: where its cursor
 * was, and its marks if no file holds their changes (--no-state, or a save
 * that failed): closed, those would be lost.  Kept by the stream's name,
 * not its number: R may number the streams anew (a new CPU's stream before
 * the others in a perf.data that grew), and the marks of a stream the
 * reloaded file no longer has wait for it to come back.
 */
struct su_kept {
	char name[sizeof(((struct trace_stream *)0)->name)];
	uint64_t cursor;
	uint8_t seen;		/* cursor is set */
	uint8_t stale;		/* bm was made for the trace before R opened
				 * the file again: merged into a set for the
				 * new one when given back */
	uint8_t rewritten;	/* ... and the file was rewritten, not only
				 * grown: its offsets may mark other bytes */
	struct marks_set *bm;	/* NULL if none is kept */
};

static struct {
	struct su_kept *v;
	size_t n, cap;
} su;

/* The PSBs counted for each stream by the list (streams_ui_psbs()). */
#define SU_PSB_STREAMS 256
static struct {
	uint64_t count[SU_PSB_STREAMS];
	uint8_t done[SU_PSB_STREAMS], partial[SU_PSB_STREAMS];
} su_psb;

int streams_ui_flush_final(FILE *err)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < su.n; i++)
		if (marks_flush_final(su.v[i].bm, err, "ptbrowse: ") < 0)
			ret = -1;
	return ret;
}

void streams_ui_free(void)
{
	size_t i;

	for (i = 0; i < su.n; i++)
		marks_close(su.v[i].bm);
	free(su.v);
	memset(&su, 0, sizeof(su));
}

/* What is kept of stream @name; with @add, made (empty) if there is none.
 * Returns NULL if there is none (or out of memory). */
static struct su_kept *streams_ui_kept(const char *name, int add)
{
	struct su_kept *v;
	size_t i;

	for (i = 0; i < su.n; i++)
		if (!strcmp(su.v[i].name, name))
			return &su.v[i];
	if (!add)
		return NULL;
	if (su.n == su.cap) {
		v = realloc(su.v, (su.cap ? su.cap * 2 : 8) * sizeof(*v));
		if (!v)
			return NULL;
		su.v = v;
		su.cap = su.cap ? su.cap * 2 : 8;
	}
	v = &su.v[su.n++];
	memset(v, 0, sizeof(*v));
	snprintf(v->name, sizeof(v->name), "%s", name);
	return v;
}

int streams_ui_find(const struct trace *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->nstreams; i++)
		if (!strcmp(t->streams[i].name, name))
			return (int)i;
	return -1;
}

/* The marks' reporter while switching. */
static void streams_ui_report(void *ctx, const char *msg)
{
	msg_report(ctx, UI_WARN, "%s", msg);
}

void streams_ui_leave(struct ui *ui, const char *name)
{
	struct su_kept *k = streams_ui_kept(name, 1);

	if (k) {
		k->cursor = ui->cursor;
		k->seen = 1;
	}
	/* Marks are per stream: each has its own marks file, read again
	 * when we come back, unless the marks are not saved to it, or a
	 * change could not be saved yet (a failed or busy save): closed,
	 * that change would be lost.  Kept, the next change (or the exit)
	 * tries again. */
	if (ui->bm && (!marks_saving(ui->bm) || marks_flush(ui->bm) < 0)) {
		if (!k) {
			msg_report(ui, UI_ERROR, "streams: out of memory; the unsaved "
				   "marks of %s are lost", name);
		} else if (!k->bm) {
			k->bm = ui->bm;
			k->stale = k->rewritten = 0;
			ui->bm = NULL;
		} else {
			/* Those kept could not be applied on entry: both stay. */
			marks_merge(k->bm, ui->bm, "the marks of this stream");
		}
	}
	marks_close(ui->bm);
	ui->bm = NULL;
}

/* Give the marks @k kept in memory for stream @s of the trace open now
 * to ui->bm: as they are if they were made for it, else merged into
 * @fresh, the set just opened for it.  Returns 0, or -1 if they stay
 * kept (@fresh could not be opened: said). */
static int streams_ui_give(struct ui *ui, struct su_kept *k, struct marks_set *fresh,
			   int s)
{
	const struct trace_stream *ts = &ui->trace->streams[s];
	char what[96];

	if (!k->stale) {
		/* the same trace, perhaps grown in place (R) */
		marks_grow(k->bm, ts->img.size);
		ui->bm = k->bm;
		k->bm = NULL;
		return 0;
	}
	if (!fresh) {
		msg_report(ui, UI_ERROR, "the marks of %s kept in memory cannot be "
			   "applied to the file as it is now; kept", ts->name);
		return -1;
	}
	if (ui->trace->nstreams > 1)
		snprintf(what, sizeof(what), "the marks of %s kept in memory", ts->name);
	else
		snprintf(what, sizeof(what), "the marks kept in memory");
	if (k->rewritten && marks_count(k->bm))
		msg_report(ui, UI_WARN, "warning: %s may mark other bytes now: %s was "
			   "rewritten since they were made, not only grown (kept)",
			   what, ui->trace->path);
	marks_merge(fresh, k->bm, what);
	marks_close(k->bm);
	k->bm = NULL;
	ui->bm = fresh;
	return 0;
}

void streams_ui_open_marks(struct ui *ui)
{
	const struct trace *t = ui->trace;
	int s = ui->stream_no;
	struct su_kept *k = streams_ui_kept(t->streams[s].name, 0);
	struct marks_opts bo = { 0 };
	struct marks_set *fresh = NULL;

	marks_close(ui->bm);
	ui->bm = NULL;
	if (k && k->bm && !k->stale) {
		streams_ui_give(ui, k, NULL, s);
		return;
	}
	bo.flags = ui->no_state ? BM_NO_STATE : 0;
	bo.stream = t->nstreams > 1 ? t->streams[s].name : NULL;
	bo.report = streams_ui_report;
	bo.report_ctx = ui;
	if (marks_open_trace(&fresh, t, (size_t)s, &bo) < 0)
		fresh = NULL;
	if (k && k->bm && streams_ui_give(ui, k, fresh, s) == 0)
		return;
	ui->bm = fresh;
}

void streams_ui_regrown(struct ui *ui)
{
	const char *now, *was;
	struct marks_opts bo = { 0 };
	struct marks_set *fresh = NULL;

	if (!ui->bm)
		return;
	/* Ours on disk first: the open merges that file if it is newer. */
	marks_flush(ui->bm);
	bo.flags = BM_IF_FILE | (ui->no_state ? BM_NO_STATE : 0);
	bo.report = streams_ui_report;
	bo.report_ctx = ui;
	if (marks_open_trace(&fresh, ui->trace, (size_t)ui->stream_no, &bo) < 0 || !fresh)
		return;
	now = marks_file(fresh);
	was = marks_file(ui->bm);
	if (!now || !was || !strcmp(now, was)) {
		marks_close(fresh);
		return;
	}
	marks_merge(fresh, ui->bm, "the marks set while it was shorter");
	marks_close(ui->bm);
	ui->bm = fresh;
}

void streams_ui_reloaded(struct ui *ui, int reopened, int rewritten)
{
	const struct trace *t = ui->trace;
	char gone[256] = "";
	size_t i, len;

	memset(&su_psb, 0, sizeof(su_psb));
	for (i = 0; i < su.n; i++) {
		if (!su.v[i].bm)
			continue;
		if (reopened) {
			su.v[i].stale = 1;
			su.v[i].rewritten |= (uint8_t)rewritten;
		}
		if (streams_ui_find(t, su.v[i].name) < 0) {
			len = strlen(gone);
			snprintf(gone + len, sizeof(gone) - len, "%s%s", len ? ", " : "",
				 su.v[i].name);
		}
	}
	if (gone[0])
		msg_report(ui, UI_WARN, "%s has no stream %s now: the marks kept in "
			   "memory for it wait until it is back", t->path, gone);
}

int streams_ui_switch(struct ui *ui, int s)
{
	struct trace *t = ui->trace;
	struct win_cache *wc;
	struct su_kept *k;
	int had_idx = ui->idx != NULL;

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
	streams_ui_leave(ui, t->streams[ui->stream_no].name);
	win_cache_free(ui->wc);
	ui->wc = wc;
	ui->stream_no = s;
	streams_tl_forget(ui);
	ui->img = &t->streams[s].img;
	/* This stream's timing, not the last one's merged into it. */
	ui->tmcfg = ui->opt_cfg;
	tm_config_merge(&ui->tmcfg, &t->streams[s].timing);
	win_cache_set_timing(ui->wc, &ui->tmcfg);
	ui->ref_name = 0;
	ui->nhist = ui->hist_pos = 0;
	tl_zoom_stream(ui);
	ui->have_t0 = 0;
	session_find_t0(ui);
	ui->cursor = ui->top = 0;
	k = streams_ui_kept(t->streams[s].name, 0);
	if (k && k->seen && k->cursor < ui->img->size)
		ui->cursor = ui->top = k->cursor;
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
	/* The marks last: what they say (marks kept in memory not kept
	 * after R, a file that cannot be read) is what shows. */
	streams_ui_open_marks(ui);
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
	const struct img *img = &ui->trace->streams[i].img;
	struct img_cursor cur;
	uint64_t n = 0, off = 0;

	if (i < SU_PSB_STREAMS && su_psb.done[i]) {
		*more = su_psb.partial[i];
		return su_psb.count[i];
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
	if (i < SU_PSB_STREAMS) {
		su_psb.count[i] = n;
		su_psb.partial[i] = (uint8_t)*more;
		su_psb.done[i] = 1;
	}
	return n;
}

/* One row of the streams list. */
static void streams_ui_row(struct ui *ui, size_t i, char *buf, size_t size)
{
	const struct trace_stream *s = &ui->trace->streams[i];
	int more;
	uint64_t n = streams_ui_psbs(ui, i, &more);
	char gaps[32] = "";
	size_t k, ng = 0;

	/* gaps (lost data, a cut end) are not snapshot mode: said apart */
	for (k = 0; k < s->img.nspans; k++)
		ng += s->img.spans[k].gap_before;
	if (ng)
		snprintf(gaps, sizeof(gaps), "  %zu gap%s", ng, ng == 1 ? "" : "s");
	/* a per-thread stream has no CPU: its thread instead */
	snprintf(buf, size, "%-10s %s %-4d %12" PRIu64 " bytes  %6" PRIu64 "%s PSBs%s%s%s",
		 s->name, s->cpu < 0 && s->tid >= 0 ? "tid" : "cpu",
		 s->cpu < 0 && s->tid >= 0 ? s->tid : s->cpu, s->img.size, n, more ? "+" : "",
		 s->snapshot ? "  snapshot" : "", gaps,
		 i == (size_t)ui->stream_no ? "  (current)" : "");
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
		char have[256];

		msg_report(ui, UI_ERROR, "streams: no stream '%s' (it has %s)", a->raw,
			   perfdata_stream_list(ui->trace, have, sizeof(have)));
		return UI_DRAW_STATUS;
	}
	return streams_ui_switch(ui, s);
}

static const struct cmd_row streams_ui_rows[] = {
	{ ACTION_STREAMS, streams_ui_cmd, CMD_RAW, 0, 0 },
};

CMD_TABLE(streams_ui_cmds, streams_ui_rows);
