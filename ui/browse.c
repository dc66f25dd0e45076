/*
 * browse -- `ptbrowse TRACE`: the browser's state made and freed, the
 * first screen, and the main loop.  What the loop runs is elsewhere: the
 * views (view.h) draw and take keys, commands are table rows (cmd.h).
 */
#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "browser.h"
#include "cmd_tables.h"
#include "cmds.h"
#include "code.h"
#include "esc.h"
#include "export_job.h"
#include "funcs.h"
#include "iterations.h"
#include "marks.h"
#include "marks_panel.h"
#include "marks_ui.h"
#include "msg.h"
#include "nav.h"
#include "opengoto.h"
#include "options.h"
#include "prompt.h"
#include "reload.h"
#include "script.h"
#include "search_ui.h"
#include "session.h"
#include "status.h"
#include "stalls.h"
#include "streams_ui.h"
#include "sym_ui.h"
#include "term.h"
#include "trace.h"
#include "ui.h"
#include "pane_code.h"
#include "perfdata.h"
#include "walk.h"

/* One turn of the main loop: draw what changed, take a key or idle. */
struct browse_turn {
	struct ui *ui;
	int draw, indexing, searching;
	int wait;		/* the last turn's wait for a key, ms */
};

/* How long a turn waits for a key: short while a job's result or
 * progress is to be shown soon, long when nothing runs. */
static int browse_wait(const struct browse_turn *t)
{
	struct ui *ui = t->ui;

	if (t->searching > 1 || iterations_busy(ui) || stalls_busy(ui) || marks_panel_due(ui) > 1)
		return 40;
	if (t->indexing || t->searching || marks_panel_due(ui) || funcs_busy(ui) ||
	    marks_pending(ui->bm))
		return 250;
	return 2000;
}

static int browse_turn_body(void *arg)
{
	struct browse_turn *t = arg;
	struct ui *ui = t->ui;
	int c, wait;

	/* A worker met the end of a file that shrank: recover here as from
	 * the main thread's SIGBUS (reload_guarded()), before anything is shown
	 * from the old size. */
	if (ui->worker_sigbus) {
		ui->worker_sigbus = 0;
		return -pte_sigbus;
	}

	/* Asked before drawing: a job that ends after the question is
	 * still waited for briefly and shown at the next turn, and one
	 * that ended since the last turn is drawn now (asked after the
	 * drawing, a job ending in between waited for the next key or 2 s). */
	walk_watch(ui);		/* (R or a stream switch made new windows) */
	wait = browse_wait(t);
	if (wait > t->wait)
		t->draw |= UI_DRAW_ALL;
	t->wait = wait;
	if (t->draw) {
		view_draw(&ui->vs);
		term_flush();
		t->draw = 0;
		/* Asked again after: the drawing may have started a job (a
		 * region's summary), whose answer is not to wait 2 s. */
		wait = browse_wait(t) < wait ? browse_wait(t) : wait;
		t->wait = wait;
	}
	if (walk_done(ui))
		wait = 40;	/* (the job's progress, soon) */
	c = term_getkey(ui, wait);
	if (c == ERR) {
		/* Idle: keep the progress fresh and decode ahead; save marks
		 * another ptbrowse kept us from saving. */
		if (marks_pending(ui->bm))
			marks_save(ui->bm);
		t->indexing = session_poll(ui);
		nav_prefetch(ui);
		t->draw = UI_DRAW_STATUS | UI_DRAW_TIMELINE;
		t->draw |= session_carries(ui);
		t->draw |= opengoto_poll(ui);
		t->draw |= search_ui_poll(ui, &t->searching);
		t->draw |= reload_poll(ui);
		return 0;
	}
	if (c != KEY_RESIZE)
		walk_key(ui);
	t->draw = browser_input(ui, c);
	t->draw |= search_ui_poll(ui, &t->searching);
	if (c == KEY_RESIZE)
		t->draw = UI_DRAW_ALL;
	return 0;
}

static void browse_loop(struct ui *ui)
{
	struct browse_turn t = { ui, UI_DRAW_ALL, 1, 0, 0 };

	while (!ui->quit)
		if (reload_guarded(ui, browse_turn_body, &t) == -pte_sigbus)
			t.draw = UI_DRAW_ALL;
}

/* A browser on stream @s of @t with options @o.  Returns it, or NULL
 * with a message on stderr. */
static struct ui *browse_new(struct trace *t, int s, const struct options *o)
{
	struct marks_opts bo = { 0 };
	struct ui *ui = calloc(1, sizeof(*ui));
	const char *cs = nl_langinfo(CODESET), *nc = getenv("NO_COLOR");
	char err[512];

	if (!ui)
		goto out_nomem;
	ui->vs.ui = ui;
	ui->trace = t;
	ui->stream_no = s;
	ui->img = &t->streams[s].img;
	ui->name = strrchr(o->path, '/') ? strrchr(o->path, '/') + 1 : o->path;
	ui->opt_cfg = o->cfg;
	ui->tmcfg = o->cfg;
	tm_config_merge(&ui->tmcfg, &t->streams[s].timing);
	ui->pk_cols = UI_PK_IP | UI_PK_SYM;
	ui->cy_cols = UI_CY_DELTA | UI_CY_CYCLES | UI_CY_TIME | UI_CY_DMARK | UI_CY_CBR | UI_CY_FREQ;
	ui->tl_time = 1;
	ui->utf8 = !o->ascii && cs && !strcmp(cs, "UTF-8");
	ui->color = !(nc && *nc);
	ui->no_state = o->no_state;
	ui->no_index = o->no_index;
	ui->no_code_index = o->no_code_index;
	trace_advise(t, TRACE_BROWSE);
	ui->km = km_new();
	if (!ui->km)
		goto out_nomem;
	if (km_load(ui->km, o->keymap, err, sizeof(err)) < 0) {
		esc_line(stderr, "ptbrowse: ", "--keymap %s: %s", o->keymap, err);
		goto out_free;
	}
	snprintf(ui->keymap_name, sizeof(ui->keymap_name), "%s", km_name(ui->km));
	km_state_reset(&ui->ks);
	if (win_cache_new(&ui->wc, ui->img, NULL, SESSION_CACHE_BYTES) < 0)
		goto out_nomem;
	if (code_new(&ui->code, &o->img) < 0)
		goto out_nomem;
	win_cache_set_timing(ui->wc, &ui->tmcfg);
	bo.flags = o->no_state ? BM_NO_STATE : 0;
	bo.stream = t->nstreams > 1 ? t->streams[s].name : NULL;
	bo.report = msg_marks_report;
	bo.report_ctx = ui;
	if (marks_open_trace(&ui->bm, t, (size_t)s, &bo) < 0)
		ui->bm = NULL;
	return ui;

out_nomem:
	esc_line(stderr, "ptbrowse: ", "out of memory");
out_free:
	if (ui) {
		km_free(ui->km);
		win_cache_free(ui->wc);
	}
	free(ui);
	return NULL;
}

/* Free @ui and what it holds; returns its trace (R may have opened the
 * file again). */
static struct trace *browse_free(struct ui *ui)
{
	struct trace *t = ui->trace;
	size_t i;

	view_close_all(&ui->vs);
	search_ui_free(ui);
	marks_panel_stop(ui);
	funcs_stop(ui);
	session_idx_stop(ui);
	marks_close(ui->bm);
	streams_ui_free();
	code_free(ui->code);
	sym_ui_reset(ui);
	win_cache_free(ui->wc);
	km_free(ui->km);
	for (i = 0; i < UI_MSGLOG; i++)
		free(ui->msglog[i]);
	free(ui);
	return t;
}

/* The start-up's steps up to the first screen, which read the mapping. */
struct browse_start {
	struct ui *ui;
	const struct options *o;
	int step;		/* the next one to run */
};

/* Run the start-up's steps from the next one.  A trace that shrinks under
 * one unwinds it (reload_guarded() shows what is left, its first time and
 * layout found again); the caller runs the steps after it. */
static int browse_start_body(void *arg)
{
	struct browse_start *b = arg;
	struct ui *ui = b->ui;

	for (;;)
		switch (b->step++) {
		case 0:
			reload_remember(ui);	/* samples the file's bytes */
			break;
		case 1:
			options_config(ui, b->o);
			break;
		case 2:
			session_find_t0(ui);
			browser_layout(ui);
			status_timing_hint(ui);
			msg_losses(ui);
			msg_km_errors(ui);
			break;
		case 3:
			opengoto_start(ui, b->o->goto_target, !b->o->no_index);
			break;
		case 4:
			/* The first screen, then the index: on two cores the
			 * builder's threads would otherwise delay it. */
			view_draw(&ui->vs);
			term_flush();
			break;
		default:
			return 0;
		}
}

/* The terminal, the config, the first screen, then the index and the
 * loop or the script.  Returns the exit status. */
static int browse_run(struct ui *ui, const struct options *o, double t_start)
{
	struct browse_start b = { ui, o, 0 };
	int ret, r;
	double startup;

	/* No usable terminal is a usage error: exit 2. */
	r = term_start(ui, o->script != NULL, o->cols, o->rows, o->no_mouse);
	if (r)
		return r;
	view_push(&ui->vs, &browser_view, NULL);
	ui->code_place = pane_code_place;
	prompt_init(ui);
	while (reload_guarded(ui, browse_start_body, &b) == -pte_sigbus && !ui->quit)
		;
	startup = script_now() - t_start;
	/* (showing what is left of a shrunk trace started its index) */
	if (!o->no_index && !ui->idx && !ui->fatal[0])
		session_idx_start(ui);
	if (ui->fatal[0])
		ret = 1;	/* said below */
	else if (o->script)
		ret = script_run(ui, o->script, startup);
	else {
		browse_loop(ui);
		ret = 0;
	}
	prompt_done(ui);
	term_end();
	/* An :export the quit stopped: said where the user sees it (the
	 * quit was asked for: the status stays). */
	(void)export_job_quit(stderr, "ptbrowse: ");
	/* An index cache write that failed unseen: the log goes with us. */
	session_cache_final(ui, stderr, "ptbrowse: ");
	/* A change a busy or failed save left in memory, of the stream shown
	 * and of those kept (streams_ui.c): the last chance, said here,
	 * after the terminal is given back. */
	if (marks_flush_final(ui->bm, stderr, "ptbrowse: ") < 0)
		ret = 1;
	if (streams_ui_flush_final(stderr) < 0)
		ret = 1;
	if (ui->fatal[0]) {
		esc_line(stderr, "ptbrowse: ", "%s", ui->fatal);
		ret = 1;
	}
	return ret;
}

int cmd_browse_main(int argc, char **argv)
{
	double t_start = script_now();
	struct options o;
	struct ui *ui;
	struct trace *t = NULL;
	char err[512];
	int r, ret = 1, s = 0;

	/* Windows of rows come and go; keep their memory in the heap rather
	 * than mapping and faulting in fresh pages for each one. */
	mallopt(M_MMAP_THRESHOLD, 64 << 20);
	mallopt(M_TRIM_THRESHOLD, 128 << 20);
	setlocale(LC_ALL, "");
	if (cmd_tables_register() < 0) {
		esc_line(stderr, "ptbrowse: ", "internal: two command tables claim one action");
		return 1;
	}
	r = options_parse(argc, argv, &o);
	if (r) {
		imgopt_release(&o.img);
		return r < 0 ? 0 : r;
	}
	r = trace_open(&t, o.path, err, sizeof(err));
	if (r < 0) {
		esc_line(stderr, "ptbrowse: ", "%s", err);
		return 1;
	}
	if (o.stream && (s = perfdata_stream_named(t, o.stream, "ptbrowse: ", o.path)) < 0)
		goto out_trace;
	if (!t->nstreams) {
		esc_line(stderr, "ptbrowse: ", "%s: no Intel PT data", o.path);
		goto out_trace;
	}
	ui = browse_new(t, s, &o);
	if (!ui)
		goto out_trace;
	ret = browse_run(ui, &o, t_start);
	t = browse_free(ui);
out_trace:
	trace_close(t);
	imgopt_release(&o.img);
	return ret;
}
