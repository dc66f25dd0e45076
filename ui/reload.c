/*
 * reload -- R: the trace file changed on disk.
 *
 * What changed is told by the file's identity, not its size alone: a new
 * file at the path (replaced with mv: another device or inode), the same
 * file rewritten (another mtime, or the same size and mtime with other
 * sampled content, src/identity.h), or the same file grown with its old
 * part unchanged (a recording still running).  A grown trace keeps what
 * was built over its old part; any other change opens the path afresh, as
 * at start-up, on the stream of the same name.  Either way the streams
 * may be numbered anew: the stream shown is found again by its name, as
 * streams_ui.c keeps the others' cursors and unsaved marks.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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
#include "safefile.h"
#include "search_ui.h"
#include "session.h"
#include "status.h"
#include "streams_tl.h"
#include "streams_ui.h"
#include "sym_ui.h"
#include "timing_file.h"
#include "tl_lanes.h"
#include "trace.h"
#include "ui.h"

/* The stamp of the file at @path into @st: all 0 if there is none. */
static void reload_stamp(const char *path, struct ui_fstamp *st)
{
	struct stat sb;

	memset(st, 0, sizeof(*st));
	if (stat(path, &sb) < 0)
		return;
	st->dev = (uint64_t)sb.st_dev;
	st->ino = (uint64_t)sb.st_ino;
	st->size = (uint64_t)sb.st_size;
	st->mtime_ns = (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
}

/* The stamp of @t's options file, PATH.options, into @st: all 0 if there
 * is none, or none is read (a perf.data file, a pipe). */
static void reload_options_stamp(const struct trace *t, struct ui_fstamp *st)
{
	char path[4200];

	memset(st, 0, sizeof(*st));
	if (t->kind == TRACE_RAW && !t->piped &&
	    !timing_file_path(t->path, path, sizeof(path)))
		reload_stamp(path, st);
}

static int reload_stamp_same(const struct ui_fstamp *a, const struct ui_fstamp *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime_ns == b->mtime_ns;
}

/* The first @n bytes of @t's file, as on disk now (not through the
 * mapping, which a shorter file would fault), into @buf: a raw trace's
 * (reload_is_left() asks of no other); a FIFO or device put at its path
 * meanwhile is not opened (safefile_open_read()).  Returns how many were
 * read. */
static size_t reload_head(const struct trace *t, uint8_t *buf, size_t n)
{
	int fd = t->piped || t->perf ? -1 : safefile_open_read(t->path, 0);
	ssize_t r;

	if (fd < 0)
		return 0;
	r = pread(fd, buf, n, 0);
	close(fd);
	return r > 0 ? (size_t)r : 0;
}

void reload_remember(struct ui *ui)
{
	ui->have_ident = !identity_of_trace(&ui->ident, ui->trace);
	reload_options_stamp(ui->trace, &ui->opts_stamp);
	ui->disk_said_what = 0;
	ui->disk_shrunk = 0;
	ui->disk_nhead = reload_head(ui->trace, ui->disk_head, sizeof(ui->disk_head));
}

/* Whether the file, now @size bytes (fewer than read), is what is left
 * of the one read: its first bytes are the same.  A file emptied, or
 * another one being written over it, is not (a rewrite, said). */
static int reload_is_left(const struct ui *ui, uint64_t size)
{
	uint8_t now[sizeof(ui->disk_head)];
	size_t n = size < ui->disk_nhead ? (size_t)size : ui->disk_nhead;

	return n && reload_head(ui->trace, now, n) == n &&
	       !memcmp(now, ui->disk_head, n);
}

/* Take up the timing of the stream shown: the command line's options
 * over this file's (PATH.options, perf.data's), as at start-up; not the
 * timing of the file or stream shown before. */
static void reload_timing(struct ui *ui)
{
	ui->tmcfg = ui->opt_cfg;
	tm_config_merge(&ui->tmcfg, &ui->trace->streams[ui->stream_no].timing);
	win_cache_set_timing(ui->wc, &ui->tmcfg);
}

/* Whether trace @t, the file opened again, only grew since the browser
 * read it (ui->ident), or kept its size and content (touched, or replaced
 * by a copy): its first bytes are the old ones, so offsets into its
 * streams mean what they meant (marks_grew_from()'s test). */
static int reload_grew_from(const struct ui *ui, const struct trace *t)
{
	struct identity now;

	return ui->have_ident && t->size >= ui->ident.size &&
	       !identity_of_prefix(&now, t, ui->ident.size) &&
	       identity_same(&now, &ui->ident);
}

/* Stop everything that reads the trace's mapping, before it is remapped
 * or closed (a code search reads the code context: before code_reset()). */
static void reload_stop_readers(struct ui *ui)
{
	marks_panel_stop(ui);
	funcs_stop(ui);
	search_ui_free(ui);
	iterations_stop(ui);	/* its code search too */
	code_reset(ui);		/* the sideband is read again */
	/* (the lanes' cache is keyed on the trace and its size: a copy of
	 * the same size put in place keeps both, and its records' names
	 * would be the freed ones) */
	tl_lanes_free();
	sym_ui_reset(ui);
	session_idx_stop(ui);
}

/* Show stream @s of ui->trace, which replaced the one called @name that
 * was shown (ui->wc is already over it): its timing, the history, zoom
 * and time origin afresh, the cursor kept on the same stream (within its
 * size), else at 0, and the index started again. */
static void reload_show(struct ui *ui, int s, const char *name)
{
	struct trace *t = ui->trace;

	ui->stream_no = s;
	ui->img = &t->streams[s].img;
	reload_timing(ui);
	reload_remember(ui);
	ui->ref_name = 0;
	ui->nhist = ui->hist_pos = 0;
	ui->tl_zoom = 0;
	ui->have_t0 = 0;
	session_find_t0(ui);
	if (strcmp(name, t->streams[s].name)) {
		ui->cursor = 0;		/* another stream */
		streams_tl_forget(ui);
	}
	if (ui->cursor >= ui->img->size)
		ui->cursor = ui->img->size ? ui->img->size - 1 : 0;
	ui->top = ui->cursor;
	if (!ui->no_index)
		session_idx_start(ui);
	browser_layout(ui);
}

/* The stream of ui->trace called @name, found again after R (@pfx
 * "reload: ") or a shrink (""); stream 0, said, if the file has it no
 * more.  Returns its index. */
static int reload_stream(struct ui *ui, const char *name, const char *pfx)
{
	int s = streams_ui_find(ui->trace, name);

	if (s >= 0)
		return s;
	msg_report(ui, UI_WARN, "%s%s has no stream %s now; showing %s", pfx,
		   ui->trace->path, name, ui->trace->streams[0].name);
	return 0;
}

/* Open the path again and show it instead of the trace open now, saying
 * @why ("the file was replaced").  On failure the old trace stays.
 * Returns UI_DRAW_*. */
static int reload_reopen(struct ui *ui, const char *why)
{
	struct trace *old = ui->trace, *t = NULL;
	struct win_cache *wc;
	char err[256] = "", name[sizeof(old->streams[0].name)];
	int s, grown;

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
	snprintf(name, sizeof(name), "%s", old->streams[ui->stream_no].name);
	s = streams_ui_find(t, name);
	if (win_cache_new(&wc, &t->streams[s < 0 ? 0 : s].img, NULL,
			  SESSION_CACHE_BYTES) < 0) {
		msg_report(ui, UI_ERROR, "reload: out of memory");
		trace_close(t);
		return UI_DRAW_STATUS;
	}
	grown = reload_grew_from(ui, t);
	reload_stop_readers(ui);
	win_cache_free(ui->wc);
	ui->wc = wc;
	/* The marks no file holds are kept by stream name, for the new
	 * content: saved marks are read again (marks_open_trace()). */
	streams_ui_leave(ui, name);
	trace_close(old);
	ui->trace = t;
	trace_advise(t, TRACE_BROWSE);
	reload_show(ui, reload_stream(ui, name, "reload: "), name);
	status_timing_hint(ui);		/* in :messages; the result shows */
	msg_report(ui, UI_INFO, "reloaded: %s (now %" PRIu64 " bytes)", why,
		   ui->img->size);
	/* The marks of this content (another identity: maybe none), and
	 * those kept in memory; their warnings last, where they show. */
	streams_ui_reloaded(ui, 1, !grown);
	streams_ui_open_marks(ui);
	return UI_DRAW_ALL;
}

/* The trace grew and its old part is the same: map the new size, and
 * start windows and the index afresh over it.  The cursor stays, and the
 * stream shown, found again by its name (the streams may be numbered
 * anew: a perf.data may have a new CPU's stream before it). */
static int reload_grown(struct ui *ui)
{
	struct win_cache *wc;
	char err[256] = "", name[sizeof(ui->trace->streams[0].name)];
	uint64_t old = ui->img->size, size;
	int grew = 0, had_idx = ui->idx != NULL, r, s;

	reload_stop_readers(ui);	/* the remap invalidates what they read */
	snprintf(name, sizeof(name), "%s", ui->trace->streams[ui->stream_no].name);
	r = trace_refresh(ui->trace, &size, &grew, err, sizeof(err));
	if (r < 0) {
		/* (trace_refresh() left the trace as it was; one that shrank
		 * is taken up by reload_shrunk() at the next read) */
		if (r == -pte_sigbus)
			msg_report(ui, UI_ERROR, "reload: %s", err[0] ? err : pte_strerror(r));
		else
			msg_report(ui, UI_ERROR, "reload: %s; still showing the %" PRIu64
				   " bytes read before", err[0] ? err : pte_strerror(r),
				   ui->img->size);
		if (had_idx)
			session_idx_start(ui);
		return UI_DRAW_ALL;
	}
	if (grew) {
		/* The streams were rebuilt over the new mapping. */
		s = reload_stream(ui, name, "reload: ");
		if (strcmp(name, ui->trace->streams[s].name)) {
			/* (its old part is the same: never) */
			streams_ui_leave(ui, name);
			ui->stream_no = s;
			streams_ui_open_marks(ui);
			ui->cursor = ui->top = 0;
			old = 0;
		}
		ui->stream_no = s;
		ui->img = &ui->trace->streams[s].img;
		if (win_cache_new(&wc, ui->img, NULL, SESSION_CACHE_BYTES) < 0) {
			/* The windows read the old streams, gone now: end
			 * before anything is drawn from them. */
			snprintf(ui->fatal, sizeof(ui->fatal), "reload: out of memory");
			ui->quit = 1;
			return UI_DRAW_NONE;
		}
		win_cache_free(ui->wc);
		ui->wc = wc;
		reload_timing(ui);	/* PATH.options was read again */
		marks_grow(ui->bm, ui->img->size);
		streams_ui_regrown(ui);
		streams_ui_reloaded(ui, 0, 0);
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

/* A file rewritten in place (`cat new > trace`, an editor saving) is
 * empty or short for a moment: wait, at most half a second, for its size
 * to stay the same over 50 ms (and not 0) before taking up what is left. */
static void reload_settle(const struct trace *t)
{
	struct timespec nap = { 0, 50 * 1000 * 1000 };
	struct stat st;
	off_t last = -1;
	int i;

	for (i = 0; i < 10; i++) {
		if (fstat(t->fd, &st) < 0)
			return;
		if (st.st_size && st.st_size == last)
			return;
		last = st.st_size;
		nanosleep(&nap, NULL);
	}
}

/* A SIGBUS while the trace has the size and mtime it was mapped with:
 * not the trace's, but another file mapped beside it, cut under us: the
 * index's cache file (truncated by hand), else an image or the code
 * index's cache.  What read it stops and starts again over the same
 * mapping; the cursor, marks and history stay. */
static void reload_refault(struct ui *ui)
{
	struct win_cache *wc;

	reload_stop_readers(ui);
	/* (a window's decode may have been cut: its rows are made again) */
	if (win_cache_new(&wc, ui->img, NULL, SESSION_CACHE_BYTES) < 0) {
		snprintf(ui->fatal, sizeof(ui->fatal), "out of memory");
		ui->quit = 1;
		return;
	}
	win_cache_free(ui->wc);
	ui->wc = wc;
	reload_timing(ui);
	if (!ui->no_index && session_idx_refault(ui))
		msg_report(ui, UI_WARN, "the index cache file changed while being read "
			   "(%s did not): indexing again", ui->trace->path);
	else
		msg_report(ui, UI_WARN, "a file read beside %s (an image, a cache) "
			   "changed while being read: reading again", ui->trace->path);
	browser_layout(ui);
}

/* The trace shrank while open: see reload.h. */
static void reload_shrunk(struct ui *ui)
{
	struct trace *t = ui->trace;
	struct win_cache *wc;
	char err[256] = "", what[256], name[sizeof(t->streams[0].name)];
	uint64_t size = 0;
	int grew = 0, s;

	if (trace_since_mapped(t) == TRACE_SAME) {
		reload_refault(ui);
		return;
	}
	reload_stop_readers(ui);
	reload_settle(t);
	snprintf(name, sizeof(name), "%s", t->streams[ui->stream_no].name);
	if (trace_refresh(t, &size, &grew, what, sizeof(what)) != -pte_sigbus)
		snprintf(what, sizeof(what), "%s: the file changed while being read",
			 t->path);
	/* The old mapping runs past the file's end now: a failure can
	 * only end. */
	if (!grew && trace_remap(t, err, sizeof(err)) < 0) {
		snprintf(ui->fatal, sizeof(ui->fatal), "%s", err);
		goto out_quit;
	}
	if (!t->nstreams) {
		snprintf(ui->fatal, sizeof(ui->fatal), "%.200s; no stream is left", what);
		goto out_quit;
	}
	msg_report(ui, UI_ERROR, "%s; showing what is left", what);
	s = reload_stream(ui, name, "");
	if (win_cache_new(&wc, &t->streams[s].img, NULL, SESSION_CACHE_BYTES) < 0) {
		snprintf(ui->fatal, sizeof(ui->fatal), "out of memory");
		goto out_quit;
	}
	win_cache_free(ui->wc);
	ui->wc = wc;
	streams_ui_leave(ui, name);
	reload_show(ui, s, name);
	/* The marks of what is left, as after R on a shorter file; their
	 * warnings last, where they show. */
	streams_ui_reloaded(ui, 1, 1);
	streams_ui_open_marks(ui);
	return;
out_quit:
	ui->quit = 1;
}

int reload_guarded(struct ui *ui, int (*body)(void *), void *arg)
{
	int r = trace_guard(body, arg);

	if (r == -pte_sigbus)
		reload_shrunk(ui);
	return r;
}

static int reload_trace(struct ui *ui)
{
	struct trace *t = ui->trace;
	struct ui_fstamp opts;
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
		return reload_reopen(ui, "the file was replaced");
	if ((uint64_t)st.st_size < t->size)
		return reload_reopen(ui, "the file was rewritten, shorter");
	if ((uint64_t)st.st_size > t->size) {
		/* A recording appends; anything else rewrote the old part. */
		if (ui->have_ident &&
		    (identity_of_prefix(&now, t, t->size) < 0 || !identity_same(&now, &ui->ident)))
			return reload_reopen(ui, "the file was rewritten");
		return reload_grown(ui);
	}
	/* The same size: written again (another mtime), or with the mtime
	 * put back but other content (the mapping shows what is there now). */
	if ((int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec != t->mtime_ns)
		return reload_reopen(ui, "the file was rewritten");
	if (identity_of_trace(&now, t) < 0)
		return reload_reopen(ui, "the file was rewritten, shorter");
	if (ui->have_ident && !identity_same(&now, &ui->ident))
		return reload_reopen(ui, "the file was rewritten in place");
	/* The same trace with other timing: opened afresh too, as the
	 * index and its cache were built with the old timing. */
	reload_options_stamp(t, &opts);
	if (!reload_stamp_same(&opts, &ui->opts_stamp))
		return reload_reopen(ui, "its options file changed");
	msg_report(ui, UI_INFO, "no change: %" PRIu64 " bytes", ui->img->size);
	return UI_DRAW_ALL;
}

/* What became of the file on disk since it was read, for reload_poll(). */
enum reload_disk {
	RELOAD_SAME,
	RELOAD_GREW,		/* (or rewritten longer: R reads to tell) */
	RELOAD_OPTIONS,		/* PATH.options changed */
	RELOAD_REPLACED,	/* another file at the path */
	RELOAD_IN_PLACE,	/* rewritten: the mapping shows the new bytes */
};

/* (*@size: the file's size now) */
static enum reload_disk reload_disk_change(const struct ui *ui, uint64_t *size)
{
	const struct trace *t = ui->trace;
	struct ui_fstamp f, o;

	reload_stamp(t->path, &f);
	*size = f.size;
	if (f.dev != (uint64_t)t->dev || f.ino != (uint64_t)t->ino)
		return RELOAD_REPLACED;
	if (f.size < t->size || (f.size == t->size && f.mtime_ns != t->mtime_ns))
		return RELOAD_IN_PLACE;
	if (f.size > t->size)
		return RELOAD_GREW;
	reload_options_stamp(t, &o);
	return reload_stamp_same(&o, &ui->opts_stamp) ? RELOAD_SAME : RELOAD_OPTIONS;
}

int reload_poll(struct ui *ui)
{
	static const char *const said[] = {
		[RELOAD_GREW] = " grew on disk: R reloads",
		[RELOAD_OPTIONS] = ".options changed on disk: R reloads",
		[RELOAD_REPLACED] = " changed on disk: R reloads",
		/* The index's times, counts and PSB numbers are the old
		 * bytes', shown over the new ones. */
		[RELOAD_IN_PLACE] = " changed on disk: the times and counts shown "
				    "are stale; R reloads",
	};
	struct timespec ts;
	double now;
	enum reload_disk what;
	uint64_t size;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	if (ui->trace->piped || now - ui->disk_polled < 0.5)
		return UI_DRAW_NONE;
	ui->disk_polled = now;
	what = reload_disk_change(ui, &size);
	/* Shorter than the mapping at two looks running, its first bytes
	 * the same (a raw trace cut, not another being written over it,
	 * nor one emptied to be written again: those are said): taken up now, as a read past
	 * its end takes it up (reload_shrunk()), rather than left to such
	 * a read, which never comes while every row shown is cached: the
	 * marks, the views and the index would go on showing bytes that
	 * are gone. */
	if (what == RELOAD_IN_PLACE && size < ui->trace->size && reload_is_left(ui, size)) {
		if (ui->disk_shrunk == size + 1) {
			ui->disk_shrunk = 0;
			reload_shrunk(ui);
			return UI_DRAW_ALL;
		}
		ui->disk_shrunk = size + 1;
		return UI_DRAW_NONE;
	}
	ui->disk_shrunk = 0;
	/* Once until R: a recording that goes on growing is not said at
	 * every turn; a rewrite after the growth is. */
	if ((int)what <= ui->disk_said_what)
		return UI_DRAW_NONE;
	ui->disk_said_what = (int)what;
	msg_report(ui, what == RELOAD_GREW ? UI_INFO : UI_WARN, "%s%s", ui->name, said[what]);
	return UI_DRAW_STATUS;
}

static int reload_cmd(struct ui *ui, const struct cmd_args *a)
{
	int r = reload_trace(ui);
	uint64_t size;

	/* What R said stands: a change it could not take up (a bad options
	 * file) is not said again over its error, only a newer one. */
	ui->disk_said_what = (int)reload_disk_change(ui, &size);
	return r;
}

static const struct cmd_row reload_rows[] = {
	{ ACTION_RELOAD, reload_cmd, CMD_NONE, 0, 0 },
};

CMD_TABLE(reload_cmds, reload_rows);
