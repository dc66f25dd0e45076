/*
 * reload -- R: the trace file changed on disk.
 *
 * What changed is told by the file's identity, not its size alone: a new
 * file at the path (replaced with mv: another device or inode), the same
 * file rewritten (another mtime, or the same size and mtime with other
 * sampled content, src/identity.h), or the same file grown with its old
 * part unchanged (a recording still running).  A grown trace keeps what
 * was built over its old part; any other change opens the path afresh, as
 * at start-up, on the stream of the same name.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "browser.h"
#include "cmd.h"
#include "code.h"
#include "funcs.h"
#include "iterations.h"
#include "identity.h"
#include "marks.h"
#include "marks_panel.h"
#include "marks_ui.h"
#include "msg.h"
#include "reload.h"
#include "search_ui.h"
#include "session.h"
#include "status.h"
#include "streams_ui.h"
#include "sym_ui.h"
#include "trace.h"
#include "ui.h"

void reload_remember(struct ui *ui)
{
	ui->have_ident = !identity_of_trace(&ui->ident, ui->trace);
}

/* The marks' reporter: messages go to the message line. */
static void reload_bm_report(void *ctx, const char *msg)
{
	msg_report(ctx, UI_WARN, "%s", msg);
}

/* Open the path again and show it instead of the trace open now, saying
 * @why.  On failure the old trace stays.  Returns UI_DRAW_*. */
static int reload_reopen(struct ui *ui, const char *why)
{
	struct trace *old = ui->trace, *t = NULL;
	struct win_cache *wc;
	struct marks_opts bo = { 0 };
	char err[256] = "";
	int s;

	if (trace_open(&t, old->path, err, sizeof(err)) < 0) {
		msg_report(ui, UI_ERROR, "reload: %s (%s; still showing the old one)", err, why);
		return UI_DRAW_STATUS;
	}
	if (!t->nstreams) {
		msg_report(ui, UI_ERROR, "reload: %s: no Intel PT data (%s; still showing "
			   "the old one)", old->path, why);
		trace_close(t);
		return UI_DRAW_STATUS;
	}
	s = trace_find_stream(t, old->streams[ui->stream_no].name);
	if (s < 0)
		s = 0;
	if (win_cache_new(&wc, &t->streams[s].img, NULL, SESSION_CACHE_BYTES) < 0) {
		msg_report(ui, UI_ERROR, "reload: out of memory");
		trace_close(t);
		return UI_DRAW_STATUS;
	}
	/* Everything that reads the old mapping stops first (a code search
	 * reads the code context: before code_reset()). */
	marks_panel_stop(ui);
	funcs_stop(ui);
	search_ui_free(ui);
	iterations_stop(ui);	/* its code search too */
	code_reset(ui);
	sym_ui_reset(ui);
	session_idx_stop(ui);
	win_cache_free(ui->wc);
	ui->wc = wc;
	marks_close(ui->bm);
	ui->bm = NULL;
	streams_ui_free();	/* the other streams' marks were the old file's */
	trace_close(old);
	ui->trace = t;
	ui->stream_no = s;
	ui->img = &t->streams[s].img;
	tm_config_merge(&ui->tmcfg, &t->streams[s].timing);
	win_cache_set_timing(ui->wc, &ui->tmcfg);
	trace_advise(t, TRACE_BROWSE);
	/* The marks of this content (another identity: maybe none). */
	bo.flags = ui->no_state ? BM_NO_STATE : 0;
	bo.stream = t->nstreams > 1 ? t->streams[s].name : NULL;
	bo.report = reload_bm_report;
	bo.report_ctx = ui;
	if (marks_open_trace(&ui->bm, t, (size_t)s, &bo) < 0)
		ui->bm = NULL;
	reload_remember(ui);
	ui->ref_name = 0;
	ui->nhist = ui->hist_pos = 0;
	ui->tl_zoom = 0;
	ui->have_t0 = 0;
	session_find_t0(ui);
	if (ui->cursor >= ui->img->size)
		ui->cursor = ui->img->size ? ui->img->size - 1 : 0;
	ui->top = ui->cursor;
	if (!ui->no_index)
		session_idx_start(ui);
	browser_layout(ui);
	status_timing_hint(ui);		/* in :messages; the result shows */
	msg_report(ui, UI_INFO, "reloaded: the file was %s (now %" PRIu64 " bytes)", why,
		   ui->img->size);
	return UI_DRAW_ALL;
}

/* The trace grew and its old part is the same: map the new size, and
 * start windows and the index afresh over it.  The cursor stays. */
static int reload_grown(struct ui *ui)
{
	struct win_cache *wc;
	char err[256] = "";
	uint64_t old = ui->img->size, size;
	int grew = 0, had_idx = ui->idx != NULL, r;

	marks_panel_stop(ui);
	funcs_stop(ui);
	search_ui_free(ui);
	iterations_stop(ui);	/* its code search too */
	code_reset(ui);		/* the sideband is read again, grown */
	sym_ui_reset(ui);
	if (had_idx)
		session_idx_stop(ui);	/* the remap invalidates what it reads */
	r = trace_refresh(ui->trace, &size, &grew, err, sizeof(err));
	if (r < 0) {
		msg_report(ui, UI_ERROR, "reload: %s", err[0] ? err : pte_strerror(r));
		if (had_idx)
			session_idx_start(ui);
		return UI_DRAW_ALL;
	}
	if (grew) {
		/* The streams may have been rebuilt over the new mapping. */
		ui->img = &ui->trace->streams[ui->stream_no].img;
		if (win_cache_new(&wc, ui->img, NULL, SESSION_CACHE_BYTES) < 0) {
			msg_report(ui, UI_ERROR, "reload: out of memory");
			return UI_DRAW_STATUS;
		}
		win_cache_free(ui->wc);
		ui->wc = wc;
		win_cache_set_timing(ui->wc, &ui->tmcfg);
	}
	reload_remember(ui);
	if (had_idx)
		session_idx_start(ui);
	browser_layout(ui);
	if (grew)
		msg_report(ui, UI_INFO, "reloaded: %" PRIu64 " new bytes (now %" PRIu64 ")",
			   ui->img->size - old, ui->img->size);
	else
		msg_report(ui, UI_INFO, "no change: %" PRIu64 " bytes", ui->img->size);
	return UI_DRAW_ALL;
}

static int reload_trace(struct ui *ui)
{
	struct trace *t = ui->trace;
	struct identity now;
	struct stat st;

	if (stat(t->path, &st) < 0) {
		msg_report(ui, UI_ERROR, "reload: %s: %s", t->path, strerror(errno));
		return UI_DRAW_STATUS;
	}
	if (!S_ISREG(st.st_mode)) {
		msg_report(ui, UI_ERROR, "reload: %s: no longer a regular file", t->path);
		return UI_DRAW_STATUS;
	}
	if (st.st_dev != t->dev || st.st_ino != t->ino)
		return reload_reopen(ui, "replaced");
	if ((uint64_t)st.st_size < t->size)
		return reload_reopen(ui, "rewritten, shorter");
	if ((uint64_t)st.st_size > t->size) {
		/* A recording appends; anything else rewrote the old part. */
		if (ui->have_ident &&
		    (identity_of_prefix(&now, t, t->size) < 0 || !identity_same(&now, &ui->ident)))
			return reload_reopen(ui, "rewritten");
		return reload_grown(ui);
	}
	/* The same size: written again (another mtime), or with the mtime
	 * put back but other content (the mapping shows what is there now). */
	if ((int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec != t->mtime_ns)
		return reload_reopen(ui, "rewritten");
	if (identity_of_trace(&now, t) < 0)
		return reload_reopen(ui, "rewritten, shorter");
	if (ui->have_ident && !identity_same(&now, &ui->ident))
		return reload_reopen(ui, "rewritten in place");
	msg_report(ui, UI_INFO, "no change: %" PRIu64 " bytes", ui->img->size);
	return UI_DRAW_ALL;
}

static int reload_cmd(struct ui *ui, const struct cmd_args *a)
{
	return reload_trace(ui);
}

static const struct cmd_row reload_rows[] = {
	{ ACTION_RELOAD, reload_cmd, CMD_NONE, 0, 0 },
};

CMD_TABLE(reload_cmds, reload_rows);
