/* browse -- `ptbrowse TRACE`: options, the terminal, the loop, commands. */
#include <ctype.h>
#include <curses.h>
#include <errno.h>
#include <inttypes.h>
#include <langinfo.h>
#include <locale.h>
#include <malloc.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "cmds.h"
#include "esc.h"
#include "goto.h"
#include "idxcache.h"
#include "marks.h"
#include "marks_ui.h"
#include "stalls.h"
#include "perfdata.h"
#include "safefile.h"
#include "search_ui.h"
#include "timing_opt.h"
#include "trace.h"
#include "ui.h"
#include "xdg.h"

#define UI_CACHE_BYTES (48u << 20)

/* The one browser of this process, for signal handlers. */
static struct ui *ui_live;
static int ui_curses_up;
static SCREEN *ui_screen;

static void ui_restore_terminal(void)
{
	if (ui_curses_up) {
		ui_curses_up = 0;
		if (ui_live && ui_live->mouse)
			mousemask(0, NULL);
		endwin();
	}
}

/* Fatal signals: give the terminal back, then die of the signal. */
static void ui_fatal(int sig)
{
	ui_restore_terminal();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void ui_signals(void)
{
	static const int sigs[] = { SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGSEGV,
				    SIGBUS, SIGABRT, SIGFPE, SIGILL, SIGPIPE };
	size_t i;

	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], ui_fatal);
}

/* Keep @msg in the message log (:messages), with its time and severity;
 * a message the same as the last one is not kept twice. */
static void ui_log(struct ui *ui, int sev, const char *msg)
{
	static const char sevs[] = "IWE";
	char buf[sizeof(ui->msg) + 16], *last;
	struct tm tm;
	time_t now = time(NULL);

	if (!msg[0])
		return;
	last = ui->nmsglog ? ui->msglog[(ui->nmsglog - 1) % UI_MSGLOG] : NULL;
	if (last && !strcmp(last + 11, msg))
		return;
	localtime_r(&now, &tm);
	snprintf(buf, sizeof(buf), "%02d:%02d:%02d %c %s", tm.tm_hour, tm.tm_min,
		 tm.tm_sec, sev >= 0 && sev <= 2 ? sevs[sev] : '?', msg);
	free(ui->msglog[ui->nmsglog % UI_MSGLOG]);
	ui->msglog[ui->nmsglog % UI_MSGLOG] = strdup(buf);
	ui->nmsglog++;
}

void ui_message(struct ui *ui, int sev, const char *fmt, ...)
{
	char raw[sizeof(ui->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	/* Messages name files, notes and strings from the trace: shown
	 * and logged escaped (esc.h), never as control bytes. */
	esc_str(ui->msg, sizeof(ui->msg), raw);
	ui->msg_sev = sev;
	if (!ui->msglog_off)
		ui_log(ui, sev, ui->msg);
}

/* Say on the message line what the perf.data file lost: this stream's
 * end (the gap there is the last row and on the timeline), or, if not,
 * the problems info lists. */
static void ui_say_losses(struct ui *ui)
{
	const struct perfdata_info *in = perfdata_info(ui->trace);
	const char *why = perfdata_end_loss(ui->trace, ui->stream_no);

	if (why)
		ui_message(ui, UI_WARN, "data lost at the end of %s: %s",
			   ui->trace->streams[ui->stream_no].name, why);
	else if (in && in->nwarnings)
		ui_message(ui, UI_WARN, "%u problem%s in the perf.data file "
			   "(ptbrowse info); the first: %s", in->nwarnings,
			   in->nwarnings > 1 ? "s" : "", in->warning);
}

/* Report the keymap's errors: each in the message log, the count and the
 * first on the message line. */
static void ui_km_errors(struct ui *ui)
{
	size_t i, n = km_nerrors(ui->km);

	for (i = 0; i < n; i++)
		ui_message(ui, UI_ERROR, "%s", km_error(ui->km, i));
	if (n > 1)
		ui_message(ui, UI_ERROR, "%zu keymap errors (:messages lists them); the first: %s",
			   n, km_error(ui->km, 0));
	else if (n)
		ui_message(ui, UI_ERROR, "%s", km_error(ui->km, 0));
	km_clear_errors(ui->km);
}

int ui_key_waiting(struct ui *ui)
{
	int c;

	if (ui->headless)
		return 0;
	nodelay(stdscr, TRUE);
	c = getch();
	nodelay(stdscr, FALSE);
	if (c == ERR)
		return 0;
	if (c == 3)
		ui->interrupted = 1;
	else
		ungetch(c);
	return 1;
}

static const struct view_ops small_view, browser_view;
/* describe-key waits for a key (the browser's keys only). */
static int browser_describing;

void ui_layout(struct ui *ui)
{
	int tl_h, body, cw, pw;
	int i;

	for (i = 0; i < UI_NPANES; i++)
		ui->panes[i].h = ui->panes[i].w = 0;
	if (ui->cols < 20 || ui->rows < 6) {
		view_push(ui, &small_view, NULL);
		return;
	}
	view_close(ui, &small_view);
	tl_h = ui->rows >= 16 ? 3 : ui->rows >= 9 ? 2 : 1;
	body = ui->rows - 3 - tl_h;	/* header, status, message */
	/* The packet pane keeps 64 columns (82 with raw bytes); the cycle
	 * pane gets the rest, at least its cycles and time: narrower than
	 * that, the packet pane leaves out its last IP column first. */
	pw = ui->pk_cols & UI_PK_RAW ? 82 : 64;
	ui->pk_narrow = (ui->pk_cols & UI_PK_IP) && ui->cols < pw + 32;
	if (ui->pk_narrow)
		pw -= UI_PK_IP_WIDTH;
	cw = ui->cols >= pw + 32 ? ui->cols - pw : 0;
	if (cw > 72)
		cw = 72;
	ui->panes[UI_PANE_PACKETS] = (struct pane){ &pane_packets_ops, 1, 0, body, ui->cols - cw, NULL };
	ui->panes[UI_PANE_CYCLES] = (struct pane){ &pane_cycles_ops, 1, ui->cols - cw, cw ? body : 0, cw, NULL };
	ui->panes[UI_PANE_TIMELINE] = (struct pane){ &tl_ops, 1 + body, 0, tl_h, ui->cols, NULL };
	for (i = 0; i < UI_NPANES; i++)
		ui->panes[i].ops->resize(ui, &ui->panes[i]);
	if (!ui->panes[ui->focus].h)
		ui->focus = UI_PANE_PACKETS;
	nav_fix_view(ui);
}

/* The too-small screen: what matters first, so a 19-column screen shows
 * 19 columns of it. */
static void small_draw(struct ui *ui, struct view *v)
{
	char buf[64];

	erase();
	snprintf(buf, sizeof(buf), "need 20x6, is %dx%d", ui->cols, ui->rows);
	screen_put(0, 0, ui->cols, buf);
}

/* Keys go on to a list or the prompt under it; over the browser, q quits. */
static int small_key(struct ui *ui, struct view *v, int c)
{
	struct view *b = view_below(ui, v);

	if (b && b->ops != &browser_view && b->ops->key)
		return b->ops->key(ui, b, c);
	if (c == 'q')
		ui->quit = 1;
	return UI_DRAW_NONE;
}

static const struct view_ops small_view = {
	.name = "too-small",
	.flags = VIEW_OPAQUE | VIEW_TOPMOST,
	.draw = small_draw,
	.key = small_key,
};

/* The browser: header, panes, the region summary over them, status. */
static void browser_draw(struct ui *ui, struct view *v)
{
	int i;

	status_draw_header(ui);
	for (i = 0; i < UI_NPANES; i++)
		if (ui->panes[i].h > 0 && ui->panes[i].w > 0)
			ui->panes[i].ops->draw(ui, &ui->panes[i]);
	marks_ui_draw_overlay(ui);
	status_draw(ui);
}

void ui_draw(struct ui *ui)
{
	view_draw(ui);
}

static void ui_flush(struct ui *ui)
{
	wnoutrefresh(stdscr);
	doupdate();
}

/* The first TSC of the trace, looked for in its first packets only. */
void ui_find_t0(struct ui *ui)
{
	struct win_iter it = { 0 };
	int n = 50000;

	if (win_seek(&it, ui->wc, 0))
		return;
	do {
		if (win_row(&it)->ts.flags & TM_F_TSC) {
			ui->t0 = win_row(&it)->ts.tsc;
			ui->have_t0 = 1;
			break;
		}
	} while (n-- && !win_next(&it));
	win_iter_release(&it);
}

/* The time model's state at the PSB at @psb, from the index. */
static int ui_carry(void *ctx, uint64_t psb, struct tm_carry *out)
{
	struct ui *ui = ctx;
	struct idx_seek sk;
	size_t i;

	if (!ui->idx || idx_find(ui->idx, psb, &i) || idx_seek(ui->idx, i, &sk) ||
	    sk.offset != psb)
		return 1;
	return idx_seek_carry(ui->idx, i, out);
}

/* Save a freshly built index to the cache, off the UI thread: a big
 * trace's index is tens of megabytes. */
static void *ui_cache_saver(void *arg)
{
	struct ui *ui = arg;
	char err[256] = "";

	if (idxcache_save(ui->idx, ui->trace, ui->stream_no, &ui->cache_cancel,
			  err, sizeof(err)) < 0 && !ui->cache_cancel)
		snprintf(ui->cache_err, sizeof(ui->cache_err), "%s", err);
	return NULL;
}

/* Wait for the saver; past UI_CACHE_HASH_MAX stop it instead: it may be
 * hashing gigabytes, and quitting or reloading must not wait for that
 * (the next start builds the index again in the background). */
static void ui_cache_join(struct ui *ui)
{
	if (!ui->cache_saving)
		return;
	if (ui->trace->size > UI_CACHE_HASH_MAX)
		ui->cache_cancel = 1;
	pthread_join(ui->cache_thread, NULL);
	ui->cache_saving = 0;
	if (ui->cache_err[0])
		ui_message(ui, UI_WARN, "index not cached: %s", ui->cache_err);
}

/* Once the index is complete, windows start from its time model state. */
static int ui_poll_index(struct ui *ui)
{
	struct idx_progress p;
	static const struct win_psb_ops none;

	if (!ui->idx || ui->idx_ops_set)
		return 0;
	idx_progress(ui->idx, &p);
	if (!p.finished)
		return 1;
	if (p.status == -pte_sigbus) {
		ui->worker_sigbus = 1;
		return 0;
	}
	ui->idx_ops_set = 1;
	if (!p.status && !idx_nseeks(ui->idx))
		ui_message(ui, UI_WARN, "%s: no PSB found: this is not an Intel PT trace, "
			   "or it starts mid-stream without a synchronisation point",
			   ui->name);
	/* The builder has read the whole file: drop its pages from our page
	 * tables (the page cache keeps them), so RSS is what the browser
	 * uses; windows fault in what they read again. */
	trace_release(ui->trace, ui->trace->map, (size_t)ui->trace->size);
	if (!p.status && !ui->idx_from_cache) {
		ui->cache_err[0] = 0;
		ui->cache_cancel = 0;
		ui->cache_saving = !pthread_create(&ui->cache_thread, NULL,
						   ui_cache_saver, ui);
	}
	if (!p.status) {
		struct win_psb_ops ops = none;

		ops.carry = ui_carry;
		ops.ctx = ui;
		win_cache_set_psb_ops(ui->wc, &ops);
		win_cache_set_timing(ui->wc, &ui->tmcfg);
	}
	return 1;
}

/*
 * Stop and free the index, waiting for its builder: it reads the trace's
 * mapping, which the caller may unmap next.  The builder looks for a
 * cancel every 256 KiB, inside long segments too, so this is quick.
 */
void ui_idx_stop(struct ui *ui)
{
	if (!ui->idx)
		return;
	ui_cache_join(ui);
	idx_cancel(ui->idx);
	idx_free(ui->idx);
	ui->idx = NULL;
}

/* goto_ctx callbacks: sync point @n from the index. */
static int ui_g_psb_offset(void *arg, uint64_t n, uint64_t *off, char *err, size_t len)
{
	struct ui *ui = arg;
	struct idx_seek sk;

	if (!ui->idx || idx_seek(ui->idx, (size_t)n, &sk)) {
		snprintf(err, len, "goto: psb %" PRIu64 " is not known%s", n,
			 ui->idx && !idx_scan_done(ui->idx) ? " yet" : "");
		return -pte_eos;
	}
	*off = sk.offset;
	return 0;
}

static int ui_g_psb_number(void *arg, uint64_t off, int64_t *n, char *err, size_t len)
{
	struct ui *ui = arg;
	size_t i;

	if (!ui->idx)
		return -pte_invalid;
	*n = idx_find(ui->idx, off, &i) ? -1 : (int64_t)i;
	return 0;
}

static int ui_g_tsc(void *arg, uint64_t tsc, uint64_t *off, char *err, size_t len)
{
	struct ui *ui = arg;
	struct win_iter it = { 0 };
	struct idx_seek sk;
	size_t seg;
	int r, n = WIN_MAX_ROWS * 8;

	r = ui->idx ? idx_find_tsc(ui->idx, tsc, &seg) : -pte_no_time;
	if (r == 1) {
		snprintf(err, len, "goto: times are still being indexed");
		return -pte_no_time;
	}
	if (r < 0 || idx_seek(ui->idx, seg, &sk)) {
		snprintf(err, len, "goto: no time information%s", ui->idx ? "" : " (no index)");
		return -pte_no_time;
	}
	*off = sk.offset;
	/* The first row of that segment at or after @tsc. */
	if (!win_seek(&it, ui->wc, sk.offset)) {
		while (n-- && !((win_row(&it)->ts.flags & TM_F_TSC) &&
				win_row(&it)->ts.tsc >= tsc))
			if (win_next(&it))
				break;
		*off = win_row(&it)->pkt.offset;
	}
	win_iter_release(&it);
	return 0;
}

static int ui_g_time(void *arg, uint64_t ns, uint64_t *off, char *err, size_t len)
{
	struct ui *ui = arg;
	double hz = (double)tm_tsc_hz(&ui->tmcfg, 1);

	if (!ui->have_t0 || hz <= 0) {
		snprintf(err, len, "goto: no timing to go by");
		return -pte_no_time;
	}
	return ui_g_tsc(arg, ui->t0 + (uint64_t)((double)ns * hz / 1e9), off, err, len);
}

static int ui_g_time_at(void *arg, uint64_t off, uint64_t *ns, char *err, size_t len)
{
	struct ui *ui = arg;
	struct win_iter it = { 0 };
	double d = NAN;

	if (!win_seek(&it, ui->wc, off) && (win_row(&it)->ts.flags & TM_F_TSC) && ui->have_t0)
		d = status_tsc_ns(ui, ui->t0, win_row(&it)->ts.tsc);
	win_iter_release(&it);
	if (isnan(d)) {
		snprintf(err, len, "goto: the cursor has no time");
		return -pte_no_time;
	}
	*ns = d < 0 ? 0 : (uint64_t)d;
	return 0;
}

/* Core cycles from the start at seek point @i (its carry).
 * Returns 0, 1 if the time pass has not got there, or < 0. */
static int ui_g_seek_cycles(struct ui *ui, size_t i, uint64_t *cyc)
{
	struct tm_carry c;
	int r = idx_seek_carry(ui->idx, i, &c);

	if (!r)
		*cyc = c.cycles;
	return r;
}

/* The first packet at or after @cyc core cycles from the start: the last
 * seek point whose carry counts no more, then its rows. */
static int ui_g_cycles(void *arg, uint64_t cyc, uint64_t *off, char *err, size_t len)
{
	struct ui *ui = arg;
	struct win_iter it = { 0 };
	struct idx_seek sk;
	size_t lo = 0, hi, mid;
	uint64_t c = 0;
	int r, n = WIN_MAX_ROWS * 64, pre = 0;

	hi = ui->idx ? idx_nseeks(ui->idx) : 0;
	if (!hi) {
		snprintf(err, len, "goto: no cycle counts%s", ui->idx ? "" : " (no index)");
		return -pte_no_time;
	}
	r = ui_g_seek_cycles(ui, 0, &c);
	if (r == 0 && c > cyc) {
		pre = 1;	/* before the first PSB */
		*off = 0;
	} else if (r == 0) {
		/* Invariant: seek point lo counts <= cyc. */
		while (hi - lo > 1) {
			mid = lo + (hi - lo) / 2;
			r = ui_g_seek_cycles(ui, mid, &c);
			if (r)
				break;
			if (c <= cyc)
				lo = mid;
			else
				hi = mid;
		}
	}
	if (r == 1) {
		snprintf(err, len, "goto: cycles are still being indexed");
		return -pte_no_time;
	}
	if (r < 0) {
		snprintf(err, len, "goto: no cycle counts (%s)", pte_strerror(r));
		return -pte_no_time;
	}
	if (!pre) {
		if (idx_seek(ui->idx, lo, &sk))
			return -pte_eos;
		*off = sk.offset;
	}
	r = -pte_eos;
	if (!win_seek(&it, ui->wc, *off)) {
		do {
			const struct win_row *row = win_row(&it);

			if ((row->ts.flags & TM_F_CYC) && !(row->flags & WIN_F_SEG_REL) &&
			    row->ts.cycles >= cyc) {
				*off = row->pkt.offset;
				r = 0;
				break;
			}
		} while (n-- && !win_next(&it));
	}
	win_iter_release(&it);
	if (r)
		snprintf(err, len, "goto: no packet at or after %" PRIu64 " cycles", cyc);
	return r;
}

/* Core cycles from the start at the packet at @off. */
static int ui_g_cycles_at(void *arg, uint64_t off, uint64_t *cyc, char *err, size_t len)
{
	struct ui *ui = arg;
	struct win_iter it = { 0 };
	int r = -pte_no_time;

	if (!win_seek(&it, ui->wc, off) && (win_row(&it)->ts.flags & TM_F_CYC) &&
	    !(win_row(&it)->flags & WIN_F_SEG_REL)) {
		*cyc = win_row(&it)->ts.cycles;
		r = 0;
	}
	win_iter_release(&it);
	if (r)
		snprintf(err, len, "goto: the cursor has no cycle count");
	return r;
}

static int ui_g_ordinal(void *arg, uint64_t ord, uint64_t *off, char *err, size_t len)
{
	struct ui *ui = arg;
	struct idx_summary s;
	struct idx_seek sk;
	struct win_iter it = { 0 };
	size_t seg;
	int r = ui->idx ? idx_find_ordinal(ui->idx, ord, &seg) : -pte_invalid;

	if (r == 1) {
		snprintf(err, len, "goto: #%" PRIu64 ": packets are still being counted", ord);
		return -pte_eos;
	}
	if (r < 0 || idx_summary(ui->idx, seg, &s) || idx_seek(ui->idx, seg, &sk)) {
		snprintf(err, len, "goto: #%" PRIu64 ": no such packet%s", ord,
			 ui->idx ? "" : " (no index)");
		return -pte_eos;
	}
	*off = sk.offset;
	if (!win_seek(&it, ui->wc, sk.offset)) {
		uint64_t n = ord - s.first_ordinal;

		while (n-- && !win_next(&it))
			;
		*off = win_row(&it)->pkt.offset;
	}
	win_iter_release(&it);
	return 0;
}

static int ui_g_mark(void *arg, const char *name, uint64_t *off, char *err, size_t len)
{
	struct ui *ui = arg;
	long i;

	if (!ui->bm || (i = marks_find(ui->bm, name)) < 0 ||
	    marks_at(ui->bm, (size_t)i)->kind == BM_REGION) {
		if (name[0] == ui->ref_name && !name[1]) {
			*off = ui->ref_off;
			return 0;
		}
		snprintf(err, len, "goto: no mark '%s'", name);
		return -pte_invalid;
	}
	*off = marks_at(ui->bm, (size_t)i)->from;
	return 0;
}

static int ui_g_region(void *arg, const char *name, uint64_t *off, char *err, size_t len)
{
	struct ui *ui = arg;
	long i;

	if (!ui->bm || (i = marks_find(ui->bm, name)) < 0) {
		snprintf(err, len, "goto: no region or bookmark '%s'", name);
		return -pte_invalid;
	}
	*off = marks_at(ui->bm, (size_t)i)->from;
	return 0;
}

/* The goto context of the browser's cursor. */
static void ui_goto_ctx(struct ui *ui, struct goto_ctx *ctx)
{
	*ctx = (struct goto_ctx){
		.cursor = ui->cursor, .size = ui->img->size, .arg = ui,
		.psb_offset = ui_g_psb_offset, .psb_number = ui_g_psb_number,
		.tsc_offset = ui_g_tsc, .time_offset = ui_g_time,
		.time_at = ui_g_time_at, .ordinal_offset = ui_g_ordinal,
		.mark_offset = ui_g_mark, .region_offset = ui_g_region,
		.cycles_offset = ui_g_cycles, .cycles_at = ui_g_cycles_at,
	};
}

int ui_goto_offset(struct ui *ui, const char *arg, uint64_t *off, char *err, size_t len)
{
	struct goto_ctx ctx;

	ui_goto_ctx(ui, &ctx);
	return goto_offset(arg, &ctx, off, err, len);
}

/* Jump to goto target @t (parsed by goto.c). */
static int ui_goto_target(struct ui *ui, const struct goto_target *t)
{
	struct goto_ctx ctx;
	char err[256] = "";
	uint64_t off;

	ui_goto_ctx(ui, &ctx);

	if (t->kind == GOTO_MARK && (!strcmp(t->name, "'") || !strcmp(t->name, "`")))
		return nav_last(ui);
	if (goto_resolve(t, &ctx, &off, err, sizeof(err)) < 0) {
		ui_message(ui, UI_ERROR, "%s", err[0] ? err : "goto: failed");
		return UI_DRAW_STATUS;
	}
	if (t->kind == GOTO_END && !t->value)
		return nav_end(ui);
	/* The end itself is not a packet: show the last one. */
	if (ui->img->size && off >= ui->img->size)
		off = ui->img->size - 1;
	if (t->kind == GOTO_TIME) {
		const char *note = status_estimate_note(ui);
		int r = nav_jump(ui, off);

		if (note[0])
			ui_message(ui, UI_INFO, "goto: %s", note);
		return r | UI_DRAW_STATUS;
	}
	return nav_jump(ui, off);
}

/* :goto ARG, with the grammar of src/goto.h. */
static int ui_goto(struct ui *ui, const char *arg)
{
	struct goto_target t;
	char err[256] = "";

	while (isspace((unsigned char)*arg))
		arg++;
	if (!*arg) {
		prompt_open(ui, "goto ");
		return UI_DRAW_ALL;
	}
	if (goto_parse(arg, &t, err, sizeof(err)) < 0) {
		ui_message(ui, UI_ERROR, "%s", err);
		return UI_DRAW_STATUS;
	}
	return ui_goto_target(ui, &t);
}

/* A key with a count: N% NP Ng. */
static int ui_goto_count(struct ui *ui, enum goto_kind kind, uint64_t n)
{
	struct goto_target t;

	if (goto_from_count(&t, kind, n) < 0)
		return UI_DRAW_NONE;
	return ui_goto_target(ui, &t);
}

/* Start indexing ui->img in the background (after the first screen). */
void ui_idx_start(struct ui *ui)
{
	if (idx_new(&ui->idx, ui->img, &ui->tmcfg) < 0) {
		ui->idx = NULL;
		return;
	}
	idx_set_guard(ui->idx, trace_guard);
	/* Pages the builder is done with leave our RSS; the ones it is about
	 * to scan are read ahead (the mapping is advised for browsing). */
	idx_set_release(ui->idx, trace_release, ui->trace);
	idx_set_willneed(ui->idx, trace_willneed);
	ui->idx_ops_set = 0;
	/* A cached index of this trace makes reopening instant; one of a
	 * trace that grew since leaves only the tail to index. */
	ui->idx_from_cache = 0;
	switch (idxcache_load(ui->idx, ui->trace, ui->stream_no,
			      UI_CACHE_HASH_MAX, NULL)) {
	case IDXCACHE_HIT:
		ui->idx_from_cache = 1;
		return;
	default:
		break;
	}
	if (idx_start(ui->idx) < 0) {
		idx_free(ui->idx);
		ui->idx = NULL;
	}
}

/* :set OPTION VALUE */
static int ui_set(struct ui *ui, const char *args)
{
	char opt[32] = "", val[1024] = "";
	int on;

	sscanf(args, "%31s %1023[^\n]", opt, val);
	on = !strcmp(val, "on") || !strcmp(val, "1") || !strcmp(val, "yes") || !val[0];
	/* a switch takes on or off, nothing else */
	if ((!strcmp(opt, "raw") || !strcmp(opt, "ip") || !strcmp(opt, "mouse")) && !on &&
	    strcmp(val, "off") && strcmp(val, "0") && strcmp(val, "no")) {
		ui_message(ui, UI_ERROR, "set %s: on or off, not '%s'", opt, val);
		return UI_DRAW_STATUS;
	}
	if (!strcmp(opt, "axis") && strcmp(val, "time") && strcmp(val, "bytes")) {
		ui_message(ui, UI_ERROR, "set axis: time or bytes, not '%s'", val);
		return UI_DRAW_STATUS;
	}
	if (!opt[0]) {
		ui_message(ui, UI_INFO, "raw=%s ip=%s mouse=%s axis=%s columns=0x%x keymap=%s",
			   ui->pk_cols & UI_PK_RAW ? "on" : "off",
			   ui->pk_cols & UI_PK_IP ? "on" : "off", ui->mouse ? "on" : "off",
			   ui->tl_time ? "time" : "bytes", ui->cy_cols, ui->keymap_name);
		return UI_DRAW_STATUS;
	}
	if (!strcmp(opt, "raw")) {
		ui->pk_cols = on ? ui->pk_cols | UI_PK_RAW : ui->pk_cols & ~UI_PK_RAW;
		ui_layout(ui);
	}
	else if (!strcmp(opt, "ip"))
		ui->pk_cols = on ? ui->pk_cols | UI_PK_IP : ui->pk_cols & ~UI_PK_IP;
	else if (!strcmp(opt, "axis"))
		ui->tl_time = !strcmp(val, "time");
	else if (!strcmp(opt, "columns")) {
		static const struct { const char *n; unsigned f; } cols[] = {
			{ "dcyc", UI_CY_DELTA }, { "cycles", UI_CY_CYCLES }, { "tsc", UI_CY_TSC },
			{ "time", UI_CY_TIME }, { "dref", UI_CY_DMARK }, { "cbr", UI_CY_CBR },
			{ "mhz", UI_CY_FREQ },
		};
		char *save, *w, buf[sizeof(val)];
		unsigned f = 0;
		size_t i;

		snprintf(buf, sizeof(buf), "%s", val);
		for (w = strtok_r(buf, ", ", &save); w; w = strtok_r(NULL, ", ", &save)) {
			for (i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
				if (!strcasecmp(w, cols[i].n))
					break;
			if (i == sizeof(cols) / sizeof(cols[0])) {
				ui_message(ui, UI_ERROR, "set columns: no column '%s' "
					   "(dcyc cycles tsc time dref cbr mhz)", w);
				return UI_DRAW_STATUS;
			}
			f |= cols[i].f;
		}
		ui->cy_cols = f;
	} else if (!strcmp(opt, "mouse")) {
		ui->mouse = on;
		mousemask(on ? BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON4_PRESSED |
			  BUTTON5_PRESSED : 0, NULL);
	} else if (!strcmp(opt, "keymap")) {
		char err[256];
		struct km *km = km_new();

		if (!km || km_load(km, val, err, sizeof(err))) {
			km_free(km);
			ui_message(ui, UI_ERROR, "%s", km ? err : "out of memory");
			return UI_DRAW_STATUS;
		}
		km_free(ui->km);
		ui->km = km;
		km_state_reset(&ui->ks);
		snprintf(ui->keymap_name, sizeof(ui->keymap_name), "%s", val);
		/* A broken line in the user's file: as at startup. */
		if (km_nerrors(ui->km)) {
			ui_km_errors(ui);
			return UI_DRAW_ALL;
		}
	} else {
		ui_message(ui, UI_ERROR, "set: no option '%s' (raw ip columns axis mouse keymap)", opt);
		return UI_DRAW_STATUS;
	}
	return UI_DRAW_ALL;
}

/* The marks' reporter: messages go to the message line. */
static void ui_bm_report(void *ctx, const char *msg)
{
	ui_message(ctx, UI_WARN, "%s", msg);
}

int ui_command(struct ui *ui, const char *line)
{
	struct km_result res;
	const char *p = line, *args;
	char name[64];
	size_t n = 0;

	while (isspace((unsigned char)*p))
		p++;
	if (*p == ':')
		p++;
	/* "/tip", "?tip", "&ovf": search_ui.c. */
	if ((*p == '/' || *p == '?' || *p == '&') &&
	    search_ui_command(ui, p) != UI_NOT_MINE)
		return UI_DRAW_ALL;
	/* ":123", ":0x1f40", ":50%" alone are gotos (hx). */
	if (goto_is_target(p))
		return ui_goto(ui, p);
	while (p[n] && !isspace((unsigned char)p[n]) && n + 1 < sizeof(name)) {
		name[n] = p[n];
		n++;
	}
	name[n] = 0;
	args = p + n;
	while (isspace((unsigned char)*args))
		args++;
	if (!name[0])
		return UI_DRAW_NONE;
	memset(&res, 0, sizeof(res));
	res.status = KM_ACTION;
	res.action = action_find(name);
	res.count = 1;
	res.key = -1;
	res.table = KM_T_NONE;
	if (res.action == ACTION_NONE) {
		ui_message(ui, UI_ERROR, "%s: no such command (F1 lists them)", name);
		return UI_DRAW_STATUS;
	}
	snprintf(res.args, sizeof(res.args), "%s", args);
	if ((action_table[res.action].flags & ACT_COUNT) && isdigit((unsigned char)*args)) {
		res.count = strtoull(args, NULL, 0);
		res.has_count = 1;
	}
	if ((action_table[res.action].flags & ACT_KEY) && *args)
		res.key = (unsigned char)*args;
	if (res.action == ACTION_BIND || res.action == ACTION_UNBIND ||
	    res.action == ACTION_SOURCE) {
		char err[256];

		if (km_exec(ui->km, p, err, sizeof(err)) < 0) {
			ui_message(ui, UI_ERROR, "%s", err);
			return UI_DRAW_STATUS;
		}
		if (km_nerrors(ui->km)) {
			ui_message(ui, UI_ERROR, "%s", km_error(ui->km, km_nerrors(ui->km) - 1));
			km_clear_errors(ui->km);
		}
		return UI_DRAW_ALL;
	}
	return ui_action(ui, &res);
}

/* Set mark @c at the cursor; it becomes the reference for time deltas. */
static int ui_set_mark(struct ui *ui, int c)
{
	if (!isalpha(c)) {
		ui_message(ui, UI_ERROR, "marks are letters a-z, A-Z");
		return UI_DRAW_STATUS;
	}
	if (ui->bm && marks_mark_set(ui->bm, (char)c, ui->cursor, NULL) < 0 &&
	    marks_message(ui->bm))
		ui_message(ui, UI_WARN, "%s", marks_message(ui->bm));
	else
		ui_message(ui, UI_INFO, "mark %c at 0x%" PRIx64 "%s", c, ui->cursor,
			   ui->bm ? "" : " (not kept: no marks file)");
	ui->ref_name = (char)c;
	snprintf(ui->ref_label, sizeof(ui->ref_label), "'%c", c);
	ui->ref_off = ui->cursor;
	return UI_DRAW_ALL;
}

static int ui_jump_mark(struct ui *ui, int c)
{
	char name[2] = { (char)c, 0 };
	uint64_t off;
	long i;

	if (c == '\'' || c == '`')
		return nav_last(ui);
	if (c == ui->ref_name && !ui->bm)
		return nav_jump(ui, ui->ref_off);
	if (!ui->bm || (i = marks_find(ui->bm, name)) < 0) {
		ui_message(ui, UI_WARN, "mark %c is not set", c);
		return UI_DRAW_STATUS;
	}
	off = marks_at(ui->bm, (size_t)i)->from;
	return nav_jump(ui, off);
}

static int ui_info(struct ui *ui)
{
	struct idx_progress p = { 0 };
	char t[32] = "";

	if (ui->idx)
		idx_progress(ui->idx, &p);
	if (ui->idx && !p.finished && p.eta >= 0)
		snprintf(t, sizeof(t), ", eta %.0fs", p.eta);
	ui_message(ui, UI_INFO, "%s: %" PRIu64 " bytes, at 0x%" PRIx64 " (%.1f%%); "
		   "index: %zu PSBs%s%s; %zu KiB of rows cached",
		   ui->name, ui->img->size, ui->cursor,
		   ui->img->size ? 100.0 * (double)ui->cursor / (double)ui->img->size : 0,
		   ui->idx ? idx_nseeks(ui->idx) : 0,
		   !ui->idx ? " (off)" : p.finished ? ", done" : ", running", t,
		   win_cache_bytes(ui->wc) >> 10);
	return UI_DRAW_STATUS;
}

int ui_action(struct ui *ui, const struct km_result *res)
{
	struct pane *fp = &ui->panes[ui->focus];
	long n = ui_count(res);
	int h = nav_view_rows(ui), r;

	/* Search, filter, C-c during a search, moves in the filter view. */
	r = search_ui_action(ui, res);
	if (r != UI_NOT_MINE)
		return r;
	if (fp->ops && fp->h > 0) {
		r = fp->ops->key(ui, fp, res);
		if (r != UI_NOT_MINE)
			return r;
	}
	/* Marks, regions, streams: marks_ui.c. */
	r = marks_ui_action(ui, res);
	if (r != UI_NOT_MINE)
		return r;
	/* :stalls: stalls.c. */
	r = stalls_action(ui, res);
	if (r != UI_NOT_MINE)
		return r;
	switch (res->action) {
	case ACTION_CURSOR_DOWN: return nav_lines(ui, n);
	case ACTION_CURSOR_UP: return nav_lines(ui, -n);
	case ACTION_SCROLL_DOWN: return nav_scroll(ui, n);
	case ACTION_SCROLL_UP: return nav_scroll(ui, -n);
	case ACTION_PAGE_DOWN: return nav_page(ui, n * h);
	case ACTION_PAGE_UP: return nav_page(ui, -n * h);
	case ACTION_HALFPAGE_DOWN: return nav_page(ui, n * (h / 2 ? h / 2 : 1));
	case ACTION_HALFPAGE_UP: return nav_page(ui, -n * (h / 2 ? h / 2 : 1));
	case ACTION_GOTO_START:
		return res->has_count ? ui_goto_count(ui, GOTO_ORDINAL, res->count) : nav_start(ui);
	case ACTION_GOTO_END:
		return res->has_count ? ui_goto_count(ui, GOTO_ORDINAL, res->count) : nav_end(ui);
	case ACTION_GOTO_PERCENT:
		return ui_goto_count(ui, GOTO_PERCENT, res->has_count ? res->count : 0);
	case ACTION_GOTO_OFFSET:
		if (res->has_count)
			return ui_goto_count(ui, GOTO_OFFSET, res->count);
		prompt_open(ui, "goto ");
		return UI_DRAW_ALL;
	case ACTION_GOTO_PACKET:
		if (res->has_count)
			return ui_goto_count(ui, GOTO_ORDINAL, res->count);
		prompt_open(ui, "goto #");
		return UI_DRAW_ALL;
	case ACTION_GOTO: return ui_goto(ui, res->args);
	case ACTION_RECENTER:
		ui->top = ui->cursor;
		nav_scroll(ui, -(h / 2));
		clearok(curscr, TRUE);
		return UI_DRAW_ALL;
	case ACTION_NEXT_PSB: return nav_psb(ui, 1, (uint64_t)n);
	case ACTION_PREV_PSB: return nav_psb(ui, -1, (uint64_t)n);
	case ACTION_NEXT_ERROR: return nav_error(ui, 1, (uint64_t)n);
	case ACTION_PREV_ERROR: return nav_error(ui, -1, (uint64_t)n);
	case ACTION_NEXT_SAME_TYPE: return nav_same_type(ui, 1, (uint64_t)n);
	case ACTION_PREV_SAME_TYPE: return nav_same_type(ui, -1, (uint64_t)n);
	case ACTION_SET_MARK: return ui_set_mark(ui, res->key);
	case ACTION_JUMP_MARK: return ui_jump_mark(ui, res->key);
	case ACTION_JUMP_LAST: return nav_last(ui);
	case ACTION_JUMP_BACK:
		if (n > UI_HISTORY)
			n = UI_HISTORY;
		while (n-- > 1)
			nav_history(ui, -1);
		return nav_history(ui, -1);
	case ACTION_JUMP_FORWARD: return nav_history(ui, 1);
	case ACTION_TOGGLE_BOOKMARK:
		if (!ui->bm) {
			ui_message(ui, UI_WARN, "bookmarks are off (no marks file)");
			return UI_DRAW_STATUS;
		}
		r = marks_toggle(ui->bm, ui->cursor);
		ui_message(ui, UI_INFO, r == 1 ? "bookmark added" : r == 0 ?
			   "bookmark removed" : "bookmark: %s", pte_strerror(r));
		return UI_DRAW_ALL;
	case ACTION_NEXT_MARK:
	case ACTION_PREV_MARK: {
		long i = ui->bm ? marks_next(ui->bm, ui->cursor,
					  res->action == ACTION_NEXT_MARK ? 1 : -1,
					  1u << BM_MARK | 1u << BM_BOOKMARK) : -1;

		if (i < 0) {
			ui_message(ui, UI_WARN, "no %s mark", res->action == ACTION_NEXT_MARK ?
				   "further" : "earlier");
			return UI_DRAW_STATUS;
		}
		return nav_jump(ui, marks_at(ui->bm, (size_t)i)->from);
	}
	case ACTION_FOCUS_NEXT_PANE:
	case ACTION_FOCUS_PREV_PANE: {
		int d = res->action == ACTION_FOCUS_NEXT_PANE ? 1 : UI_NPANES - 1, k;

		for (k = 0; k < UI_NPANES; k++) {
			ui->focus = (ui->focus + d) % UI_NPANES;
			if (ui->panes[ui->focus].h > 0 && ui->panes[ui->focus].w > 0)
				break;
		}
		ui_message(ui, UI_INFO, "focus: %s pane", ui->panes[ui->focus].ops->name);
		return UI_DRAW_ALL;
	}
	case ACTION_TIMELINE_ZOOM: {
		int d = !strcmp(res->args, "out") || !strcmp(res->args, "-") ? -1 : 1;

		r = UI_DRAW_NONE;
		if (n > 64)	/* past the deepest zoom either way */
			n = 64;
		while (n-- > 0)
			r |= tl_zoom(ui, d);
		return r;
	}
	case ACTION_DESCRIBE_KEY:
		km_state_describe(&ui->ks);
		browser_describing = 1;
		ui_message(ui, UI_INFO, "describe-key: press a key");
		return UI_DRAW_STATUS;
	case ACTION_TIMELINE_AXIS: {
		uint64_t lo, hi;

		ui->tl_time = !ui->tl_time;
		tl_range(ui, &lo, &hi);
		if (ui->tl_time && lo == 0 && hi == ui->img->size &&
		    (!ui->idx || !idx_nsummaries(ui->idx)))
			ui_message(ui, UI_WARN, "no timing known (yet): the axis stays in bytes");
		return UI_DRAW_ALL;
	}
	case ACTION_COMMAND_PROMPT:
		prompt_open(ui, res->args);
		return UI_DRAW_ALL;
	case ACTION_SET: return ui_set(ui, res->args);
	case ACTION_SAVE_SCREEN: {
		char err[4200];
		int e;

		if (!res->args[0]) {
			ui_message(ui, UI_ERROR, "save-screen: which file?");
			return UI_DRAW_STATUS;
		}
		ui_draw(ui);
		e = screen_save(ui, res->args, err, sizeof(err));
		if (e)
			ui_message(ui, UI_ERROR, "save-screen: %s", err);
		return UI_DRAW_STATUS;
	}
	case ACTION_HELP: {
		/* ':help goto': that command's line on top */
		int l = res->args[0] ? help_line_of(ui, action_find(res->args)) : 0;

		if (l < 0) {
			ui_message(ui, UI_ERROR, "help: %s: no such command", res->args);
			return UI_DRAW_STATUS;
		}
		help_open(ui, UI_PAGER_HELP, l);
		return UI_DRAW_ALL;
	}
	case ACTION_MESSAGES:
		/* the newest at the bottom of the first screen shown */
		help_open(ui, UI_PAGER_MESSAGES, (int)(ui->nmsglog < UI_MSGLOG ?
			  ui->nmsglog : UI_MSGLOG) - (ui->rows - 2));
		return UI_DRAW_ALL;
	case ACTION_INFO: return ui_info(ui);
	case ACTION_REDRAW:
		clearok(curscr, TRUE);
		return UI_DRAW_ALL;
	case ACTION_TOGGLE_MOUSE:
		ui_set(ui, ui->mouse ? "mouse off" : "mouse on");
		ui_message(ui, UI_INFO, "mouse %s", ui->mouse ? "on" : "off");
		return UI_DRAW_STATUS;
	case ACTION_INTERRUPT: {
		struct idx_progress p;

		if (ui->idx) {
			idx_progress(ui->idx, &p);
			if (!p.finished) {
				idx_cancel(ui->idx);
				ui_message(ui, UI_WARN, "indexing stopped: packet numbers and the "
					   "timeline stay partial (q quits)");
				return UI_DRAW_ALL;
			}
		}
		ui_message(ui, UI_INFO, "nothing to interrupt (q quits)");
		return UI_DRAW_STATUS;
	}
	case ACTION_CANCEL:
		ui->msg[0] = 0;
		km_state_reset(&ui->ks);
		return UI_DRAW_STATUS;
	case ACTION_SUSPEND:
		if (!ui->headless) {
			ui_restore_terminal();
			kill(getpid(), SIGTSTP);
			ui_curses_up = 1;
			reset_prog_mode();
			clearok(curscr, TRUE);
		}
		return UI_DRAW_ALL;
	case ACTION_SCROLL_LEFT:
	case ACTION_SCROLL_RIGHT:
		/* The packet pane's wide rows, from any pane but the
		 * timeline (which moves along its columns: tl.c). */
		ui->hscroll += (res->action == ACTION_SCROLL_LEFT ? -8 : 8) * (int)res->count;
		if (ui->hscroll < 0)
			ui->hscroll = 0;
		if (ui->hscroll > 200)
			ui->hscroll = 200;
		return UI_DRAW_PANES;
	case ACTION_RELOAD: return reload_trace(ui);
	case ACTION_QUIT:
		ui->quit = 1;
		return UI_DRAW_NONE;
	default:
		ui_message(ui, UI_WARN, "%s: not available yet", action_name(res->action));
		return UI_DRAW_STATUS;
	}
}

/* A mouse event: a click on the timeline jumps, on a packet row moves the
 * cursor; the wheel scrolls. */
static int ui_mouse(struct ui *ui)
{
	MEVENT ev;
	struct pane *tl = &ui->panes[UI_PANE_TIMELINE];
	struct pane *pk = &ui->panes[UI_PANE_PACKETS];

	if (getmouse(&ev) != OK)
		return UI_DRAW_NONE;
	if (ev.bstate & BUTTON4_PRESSED)
		return nav_scroll(ui, -3);
	if (ev.bstate & BUTTON5_PRESSED)
		return nav_scroll(ui, 3);
	if (!(ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED)))
		return UI_DRAW_NONE;
	if (ev.y >= tl->y && ev.y < tl->y + tl->h)
		return tl_click(ui, ev.x - tl->x);
	if (ev.y > pk->y && ev.y < pk->y + pk->h) {
		struct win_iter it = { 0 };
		int k = ev.y - pk->y - 1, ok = !win_seek(&it, ui->wc, ui->top);

		while (ok && k-- > 0)
			ok = !win_next(&it);
		if (ok)
			ui->cursor = win_row(&it)->pkt.offset;
		win_iter_release(&it);
		ui->focus = ev.x >= ui->panes[UI_PANE_CYCLES].x &&
			    ui->panes[UI_PANE_CYCLES].w ? UI_PANE_CYCLES : UI_PANE_PACKETS;
		return UI_DRAW_ALL;
	}
	return UI_DRAW_NONE;
}

/* A key for the browser: the keymap with the visual table while a
 * selection is active and the focused pane's table. */
static int browser_key(struct ui *ui, struct view *v, int c)
{
	struct km_result res;
	enum km_status st;

	if (!km_state_pending(&ui->ks))
		ui->msg[0] = 0;
	st = km_feed(ui->km, &ui->ks, marks_ui_visual(ui) ? KM_T_VISUAL : KM_T_NONE,
		     ui->panes[ui->focus].ops->table, c, &res);
	if (browser_describing && (st == KM_ACTION || st == KM_UNBOUND)) {
		char buf[256];

		browser_describing = 0;
		ui_message(ui, UI_INFO, "%s", km_describe(&res, buf, sizeof(buf)));
		return UI_DRAW_STATUS;
	}
	switch (st) {
	case KM_ACTION:
		return ui_action(ui, &res) | UI_DRAW_STATUS;
	case KM_UNBOUND: {
		char name[64];

		ui_message(ui, UI_WARN, "%s is not bound (F1 lists keys)",
			   km_seq_name(res.keys, res.nkeys, name, sizeof(name)));
		return UI_DRAW_STATUS;
	}
	default:
		return UI_DRAW_STATUS;
	}
}

static void browser_resize(struct ui *ui, struct view *v)
{
	ui_layout(ui);
}

static const struct view_ops browser_view = {
	.name = "browser",
	.flags = VIEW_OPAQUE,
	.draw = browser_draw,
	.key = browser_key,
	.resize = browser_resize,
};

/* One key from the terminal or the script.  Returns UI_DRAW_*. */
static int ui_key(struct ui *ui, int c)
{
	if (c == KEY_RESIZE) {
		if (!ui->headless)
			getmaxyx(stdscr, ui->rows, ui->cols);
		view_resize(ui);
		clearok(curscr, TRUE);
		return UI_DRAW_ALL;
	}
	if (c == KEY_MOUSE)
		return ui_mouse(ui);
	return view_key(ui, c);
}

/* Read a key from the terminal, joining Escape + key into M-key. */
static int ui_getkey(struct ui *ui, int wait_ms)
{
	int c;

	timeout(wait_ms);
	c = getch();
	if (c == 27) {
		int n;

		nodelay(stdscr, TRUE);
		n = getch();
		nodelay(stdscr, FALSE);
		if (n != ERR)
			c = KM_META | n;
	}
	return c;
}

/*
 * The trace shrank while open: reading the lost part raised SIGBUS, which
 * unwound to ui_guarded().  Stop what reads the old mapping, map what is
 * left and go on there; marks stay as they are (and saved).  A file left
 * empty ends the browser with a message.
 */
static void ui_shrunk(struct ui *ui)
{
	struct win_cache *wc;
	char err[256] = "", what[256];
	uint64_t size = 0;
	int grew = 0;

	marks_ui_stop(ui);
	search_ui_free(ui);
	ui_idx_stop(ui);
	if (trace_refresh(ui->trace, &size, &grew, what, sizeof(what)) != -pte_sigbus)
		snprintf(what, sizeof(what), "%s: the file changed while being read",
			 ui->trace->path);
	if (!grew && trace_remap(ui->trace, err, sizeof(err)) < 0) {
		snprintf(ui->fatal, sizeof(ui->fatal), "%s", err);
		ui->quit = 1;
		return;
	}
	if ((size_t)ui->stream_no >= ui->trace->nstreams) {
		snprintf(ui->fatal, sizeof(ui->fatal), "%.200s; the stream is gone",
			 what);
		ui->quit = 1;
		return;
	}
	ui->img = &ui->trace->streams[ui->stream_no].img;
	if (win_cache_new(&wc, ui->img, NULL, UI_CACHE_BYTES) < 0) {
		snprintf(ui->fatal, sizeof(ui->fatal), "out of memory");
		ui->quit = 1;
		return;
	}
	win_cache_free(ui->wc);
	ui->wc = wc;
	win_cache_set_timing(ui->wc, &ui->tmcfg);
	if (ui->cursor >= ui->img->size)
		ui->cursor = ui->img->size ? ui->img->size - 1 : 0;
	ui->top = ui->cursor;
	if (!ui->no_index)
		ui_idx_start(ui);
	ui_layout(ui);
	ui_message(ui, UI_ERROR, "%s; showing what is left", what);
}

/* Run @body(@arg) for @ui; a SIGBUS from a trace that shrank is recovered
 * from by ui_shrunk().  Returns what @body returns, or -pte_sigbus. */
static int ui_guarded(struct ui *ui, int (*body)(void *), void *arg)
{
	int r = trace_guard(body, arg);

	if (r == -pte_sigbus)
		ui_shrunk(ui);
	return r;
}

/* One turn of the main loop: draw what changed, take a key or idle. */
struct ui_turn {
	struct ui *ui;
	int draw, indexing, searching;
};

static int ui_turn_body(void *arg)
{
	struct ui_turn *t = arg;
	struct ui *ui = t->ui;
	int c;

	/* A worker met the end of a file that shrank: recover here as from
	 * the main thread's SIGBUS (ui_shrunk()), before anything is shown
	 * from the old size. */
	if (ui->worker_sigbus) {
		ui->worker_sigbus = 0;
		return -pte_sigbus;
	}

	if (t->draw) {
		ui_draw(ui);
		ui_flush(ui);
		t->draw = 0;
	}
	/* A search's first hit is shown soon after it is known. */
	c = ui_getkey(ui, t->searching > 1 ? 40 :
		      t->indexing || t->searching || marks_ui_busy(ui) ||
		      marks_pending(ui->bm) ? 250 : 2000);
	if (c == ERR) {
		/* Idle: keep the progress fresh and decode ahead; save marks
		 * another ptbrowse kept us from saving. */
		if (marks_pending(ui->bm))
			marks_save(ui->bm);
		t->indexing = ui_poll_index(ui);
		nav_prefetch(ui);
		t->draw = UI_DRAW_STATUS | UI_DRAW_TIMELINE;
		t->draw |= search_ui_poll(ui, &t->searching);
		return 0;
	}
	t->draw = ui_key(ui, c);
	t->draw |= search_ui_poll(ui, &t->searching);
	if (c == KEY_RESIZE)
		t->draw = UI_DRAW_ALL;
	return 0;
}

static void ui_loop(struct ui *ui)
{
	struct ui_turn t = { ui, UI_DRAW_ALL, 1, 0 };

	while (!ui->quit)
		if (ui_guarded(ui, ui_turn_body, &t) == -pte_sigbus)
			t.draw = UI_DRAW_ALL;
}

static double ui_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* When cmd_browse_main() started and when the first screen was done. */
static double ui_t_start, ui_t_first;

static int ui_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Run one script token as a key (a key name, or text typed character by
 * character).  Returns nothing: the screen is drawn by the caller. */
static void ui_script_key(struct ui *ui, const char *tok)
{
	int k = km_key_parse(tok);
	const char *q;

	if (k >= 0) {
		ui_key(ui, k);
		return;
	}
	/* Plain text types its characters: "50%". */
	for (q = tok; *q; q++)
		ui_key(ui, (unsigned char)*q);
}

/*
 * "bench NAME N TOKEN... [:COMMAND]": run the tokens N times, timing each
 * token (or the command, where "{i}" becomes the round number) from the
 * key to the finished screen; print the median and the 99th percentile.
 */
static void ui_script_bench(struct ui *ui, char *args)
{
	char name[64], *cmd, *save, *tok, *toks[16];
	int n, i, ntoks = 0, k, consumed = 0;
	double *t;
	size_t nt = 0;

	if (sscanf(args, "%63s %d %n", name, &n, &consumed) < 2 || n <= 0 || n > 100000)
		return;
	args += consumed;
	cmd = strchr(args, ':');
	if (cmd)
		*cmd++ = 0;
	for (tok = strtok_r(args, " \t", &save); tok && ntoks < 16;
	     tok = strtok_r(NULL, " \t", &save))
		toks[ntoks++] = tok;
	t = calloc((size_t)n * (size_t)(ntoks + 1), sizeof(*t));
	if (!t)
		return;
	for (i = 0; i < n; i++) {
		for (k = 0; k <= ntoks; k++) {
			char line[256];
			double t0 = ui_now();

			if (k < ntoks) {
				ui_script_key(ui, toks[k]);
			} else if (cmd) {
				char *p = strstr(cmd, "{i}");

				if (p)
					snprintf(line, sizeof(line), "%.*s%d%s", (int)(p - cmd), cmd,
						 i + 1, p + 3);
				else
					snprintf(line, sizeof(line), "%s", cmd);
				ui_command(ui, line);
			} else {
				continue;
			}
			ui_draw(ui);
			ui_flush(ui);
			t[nt++] = ui_now() - t0;
		}
	}
	qsort(t, nt, sizeof(*t), ui_cmp_double);
	if (nt)
		printf("browse  %-14s median %7.3f ms  p99 %7.3f ms  max %7.3f ms  (%zu keys)\n"
		       "result browse-%s-median-ms %.3f\nresult browse-%s-p99-ms %.3f\n",
		       name, t[nt / 2] * 1e3, t[(nt * 99) / 100] * 1e3, t[nt - 1] * 1e3, nt,
		       name, t[nt / 2] * 1e3, name, t[(nt * 99) / 100] * 1e3);
	fflush(stdout);
	free(t);
}

/* Run script line @p (a command, a directive or keys) and draw. */
static int ui_script_line(struct ui *ui, char *p)
{
	char *save, *tok;

	if (*p == ':' && p[1]) {
		ui_command(ui, p + 1);
		ui_draw(ui);
		ui_flush(ui);
		return 0;
	}
	if (!strncmp(p, "bench ", 6)) {
		ui_script_bench(ui, p + 6);
		return 0;
	}
	if (!strcmp(p, "bench-startup")) {
		printf("browse  first screen   %7.3f ms (start to first drawn screen)\n"
		       "result browse-first-screen-ms %.3f\n",
		       (ui_t_first - ui_t_start) * 1e3, (ui_t_first - ui_t_start) * 1e3);
		fflush(stdout);
		return 0;
	}
	if (!strcmp(p, "bench-rss")) {
		struct rusage ru;

		FILE *st = fopen("/proc/self/status", "r");
		char l[256];
		long cur = -1, file = 0;

		while (st && fgets(l, sizeof(l), st)) {
			if (!strncmp(l, "VmRSS:", 6))
				cur = atol(l + 6);
			else if (!strncmp(l, "RssFile:", 8))
				file = atol(l + 8);
		}
		if (st)
			fclose(st);
		getrusage(RUSAGE_SELF, &ru);
		/* File pages are the trace's, shared with the page cache. */
		printf("browse  RSS            %7.1f MiB now (%.1f MiB of it file pages), %.1f MiB at most\n"
		       "result browse-rss-mib %.1f\nresult browse-rss-file-mib %.1f\n"
		       "result browse-max-rss-mib %.1f\n",
		       cur / 1024.0, file / 1024.0, ru.ru_maxrss / 1024.0,
		       cur / 1024.0, file / 1024.0, ru.ru_maxrss / 1024.0);
		fflush(stdout);
		return 0;
	}
	if (!strcmp(p, "bench-index")) {
		double t0 = ui_now();

		if (ui->idx)
			idx_wait(ui->idx);
		ui_poll_index(ui);
		printf("browse  index wait     %7.3f s (after the first screen)\n",
		       ui_now() - t0);
		fflush(stdout);
		return 0;
	}
	for (tok = strtok_r(p, " \t", &save); tok && !ui->quit;
	     tok = strtok_r(NULL, " \t", &save)) {
		if (!strcmp(tok, "wait-index")) {
			if (ui->idx)
				idx_wait(ui->idx);
			ui_poll_index(ui);
		} else if (!strcmp(tok, "wait-search")) {
			search_ui_wait(ui);
		} else if (!strncmp(tok, "resize=", 7)) {
			int w, h, used = 0;

			/* The bounds of --size: ncurses cannot make a screen
			 * of 100000x100000 (it crashed). */
			if (sscanf(tok + 7, "%dx%d%n", &w, &h, &used) != 2 || tok[7 + used] ||
			    w < 1 || h < 1 || w > 1000 || h > 1000) {
				ui_message(ui, UI_ERROR, "%.40s: want resize=COLSxROWS, "
					   "each 1 to 1000", tok);
			} else {
				resizeterm(h, w);
				ui->rows = h;
				ui->cols = w;
				ui_key(ui, KEY_RESIZE);
			}
		} else if (!strncmp(tok, "click=", 6)) {
			int col;
			struct pane *tl = &ui->panes[UI_PANE_TIMELINE];

			if (sscanf(tok + 6, "%d", &col) == 1 && tl->h)
				tl_click(ui, col);
		} else {
			ui_script_key(ui, tok);
		}
		ui_draw(ui);
		ui_flush(ui);
	}
	return 0;
}

struct ui_script_step {
	struct ui *ui;
	char *line;
};

static int ui_script_body(void *arg)
{
	struct ui_script_step *st = arg;
	int r = ui_script_line(st->ui, st->line);

	if (st->ui->worker_sigbus) {
		st->ui->worker_sigbus = 0;
		return -pte_sigbus;	/* as ui_turn_body() */
	}
	return r;
}

/*
 * A line of @f into @buf, without its end (\n or \r\n).  Returns 1, 0 at
 * the end of the file, or -1 for a line that does not fit (the rest of it
 * is skipped: a piece of a line must never run as a line of its own).
 */
static int ui_read_line(FILE *f, char *buf, size_t size)
{
	size_t n;
	int c;

	if (!fgets(buf, (int)size, f))
		return 0;
	n = strlen(buf);
	if (n && buf[n - 1] != '\n' && !feof(f)) {
		while ((c = getc(f)) != EOF && c != '\n')
			;
		return -1;
	}
	buf[strcspn(buf, "\r\n")] = 0;
	return 1;
}

/* A script: lines of key names, or ":command" lines, or directives. */
static int ui_script(struct ui *ui, const char *path)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	int lineno = 0, ret = 0, r;

	if (!f) {
		esc_line(stderr, "ptbrowse: ", "%s: %s", path, strerror(errno));
		return 1;
	}
	while (!ui->quit && (r = ui_read_line(f, line, sizeof(line)))) {
		char *p = line;

		lineno++;
		if (r < 0) {
			esc_line(stderr, "ptbrowse: ", "%s:%d: line too long", path, lineno);
			ret = 1;
			break;
		}
		while (isspace((unsigned char)*p))
			p++;
		if (!*p || *p == '#')
			continue;
		{
			struct ui_script_step st = { ui, p };

			ui_guarded(ui, ui_script_body, &st);
		}
	}
	if (ferror(f)) {
		esc_line(stderr, "ptbrowse: ", "%s:%d: read error", path, lineno);
		ret = 1;
	}
	fclose(f);
	return ret;
}

void cmd_browse_options(FILE *f)
{
	fprintf(f,
		"  --keymap NAME       default or emacs (or a .keys file)\n"
		"  --stream S          the stream (CPU) of a perf.data file: 0, cpu3, ...\n"
		"  --ascii             no Unicode glyphs\n"
		"  --no-mouse          leave the mouse to the terminal (F2 toggles)\n"
		"  --no-state          do not write marks or history\n"
		"  --no-index          do not index in the background\n"
		"  --script FILE       run keys from FILE on a virtual screen (no terminal)\n"
		"  --size COLSxROWS    the virtual screen's size (default 120x40)\n"
		"  --mtc-freq N --nom-freq N --cpuid-0x15.eax N --cpuid-0x15.ebx N\n"
		"  --cpuid-0x15.ecx HZ --cpu F/M[/S]|auto|none --tsc-freq HZ\n"
		"                      timing configuration (as for dump)\n"
		"  -h, --help          this text\n");
}

static void ui_usage(FILE *f)
{
	fprintf(f, "usage: ptbrowse [options] TRACE\n");
	cmd_browse_options(f);
}

/* The browser's options. */
struct ui_opts {
	const char *path, *script, *keymap, *stream;
	int cols, rows, ascii, no_mouse, no_state, no_index, keymap_given;
	struct tm_config cfg;
};

static int ui_parse_args(int argc, char **argv, struct ui_opts *o)
{
	int i;

	memset(o, 0, sizeof(*o));
	o->cols = 120;
	o->rows = 40;
	o->keymap = "default";
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL;
		char opt[64];
		const char *eq;
		int r;

		if (a[0] != '-' || !strcmp(a, "-")) {
			if (o->path) {
				esc_line(stderr, "ptbrowse: ",
					 "one trace at a time ('%s' and '%s')",
					o->path, a);
				return 2;
			}
			o->path = a;
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			ui_usage(stdout);
			return -1;
		}
		eq = strchr(a, '=');
		snprintf(opt, sizeof(opt), "%.*s", eq ? (int)(eq - a) : (int)strlen(a), a);
		if (!strcmp(opt, "--ascii")) { o->ascii = 1; continue; }
		if (!strcmp(opt, "--no-mouse")) { o->no_mouse = 1; continue; }
		if (!strcmp(opt, "--no-state")) { o->no_state = 1; continue; }
		if (!strcmp(opt, "--no-index")) { o->no_index = 1; continue; }
		val = eq ? eq + 1 : i + 1 < argc ? argv[++i] : NULL;
		if (!val) {
			esc_line(stderr, "ptbrowse: ", "%s needs a value", opt);
			return 2;
		}
		if (!strcmp(opt, "--script"))
			o->script = val;
		else if (!strcmp(opt, "--keymap")) {
			o->keymap = val;
			o->keymap_given = 1;
		} else if (!strcmp(opt, "--stream"))
			o->stream = val;
		else if (!strcmp(opt, "--size")) {
			int used = 0;

			if (sscanf(val, "%dx%d%n", &o->cols, &o->rows, &used) != 2 ||
			    val[used] || o->cols < 1 ||
			    o->rows < 1 || o->cols > 1000 || o->rows > 1000) {
				esc_line(stderr, "ptbrowse: ",
					 "--size %s: want COLSxROWS, e.g. 120x40", val);
				return 2;
			}
		} else if ((r = timing_option(&o->cfg, opt, val)) != 1) {
			if (r < 0)
				esc_line(stderr, "ptbrowse: ", "%s %s: bad value", opt, val);
			else
				esc_line(stderr, "ptbrowse: ",
					 "unknown option %s (--help lists them)", opt);
			return 2;
		}
	}
	if (!o->path) {
		esc_line(stderr, "ptbrowse: ", "no trace given");
		ui_usage(stderr);
		return 2;
	}
	return 0;
}

/* Start curses on the terminal, or on a virtual screen for scripts.
 * Returns 0, 2 if there is no terminal to use (TERM unset or dumb, not a
 * tty), or 1 on another failure. */
static int ui_screen_start(struct ui *ui, const struct ui_opts *o)
{
	static const char *const virt[] = { "xterm-256color", "xterm", "vt100", "ansi" };
	const char *term = getenv("TERM");

	if (o->script) {
		FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");
		size_t i;

		if (!out || !in) {
			esc_line(stderr, "ptbrowse: ", "/dev/null: %s", strerror(errno));
			return 1;
		}
		for (i = 0; i < sizeof(virt) / sizeof(virt[0]) && !ui_screen; i++)
			ui_screen = newterm(virt[i], out, in);
		if (!ui_screen) {
			esc_line(stderr, "ptbrowse: ", "no terminfo entry for a virtual screen");
			return 1;
		}
		ui->headless = 1;
		resizeterm(o->rows, o->cols);
		ui->rows = o->rows;
		ui->cols = o->cols;
	} else {
		if (!term || !*term || !strcmp(term, "dumb")) {
			esc_line(stderr, "ptbrowse: ", "TERM is %s: the browser needs a terminal "
				"that can move the cursor (try 'ptbrowse dump' or --script)",
				term && *term ? "'dumb'" : "not set");
			return 2;
		}
		if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
			esc_line(stderr, "ptbrowse: ", "standard %s is not a terminal "
				"(try 'ptbrowse dump' or --script)",
				isatty(STDIN_FILENO) ? "output" : "input");
			return 2;
		}
		ui_screen = newterm(NULL, stdout, stdin);
		if (!ui_screen) {
			esc_line(stderr, "ptbrowse: ", "cannot use terminal type '%s'", term);
			return 1;
		}
		getmaxyx(stdscr, ui->rows, ui->cols);
	}
	ui_curses_up = 1;
	raw();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	screen_init_colors(ui);
	if (!ui->headless && !o->no_mouse) {
		ui->mouse = 1;
		mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON4_PRESSED |
			  BUTTON5_PRESSED, NULL);
		mouseinterval(0);
	}
	return 0;
}

/*
 * The config files, as tmux's: /etc/ptbrowse/config, then
 * $XDG_CONFIG_HOME/ptbrowse/config, each line a prompt command ("set
 * keymap emacs", "set raw on", "bind ...").  A bad line is reported as
 * file:line in the message log and the rest goes on.  A --keymap given on
 * the command line wins over the files' "set keymap".
 */
static void ui_config(struct ui *ui, const struct ui_opts *o)
{
	char user[4200] = "", line[1024], name[64], last[sizeof(ui->msg)] = "";
	const char *paths[2] = { "/etc/ptbrowse/config", user };
	unsigned nerr = 0;
	size_t k;

	if (xdg_path(XDG_CONFIG, "config", user, sizeof(user), NULL, 0) < 0)
		user[0] = 0;
	for (k = 0; k < 2; k++) {
		/* A FIFO or a device there would hang the start. */
		FILE *f = paths[k][0] ? safefile_fopen_read(paths[k], 0) : NULL;
		unsigned lineno = 0;
		int r;

		if (!f) {
			if (paths[k][0] && errno != ENOENT) {
				ui_message(ui, UI_ERROR, "%s: %s (not read)", paths[k],
					   safefile_strerror(errno));
				snprintf(last, sizeof(last), "%s", ui->msg);
				nerr++;
			}
			continue;
		}
		while ((r = ui_read_line(f, line, sizeof(line)))) {
			char *p = line;

			lineno++;
			if (r < 0) {
				ui_message(ui, UI_ERROR, "%s:%u: line too long (skipped)",
					   paths[k], lineno);
				snprintf(last, sizeof(last), "%s", ui->msg);
				nerr++;
				continue;
			}
			while (isspace((unsigned char)*p))
				p++;
			if (!*p || *p == '#')
				continue;
			if (o->keymap_given && sscanf(p, "set keymap %63s", name) == 1)
				continue;
			ui->msg[0] = 0;
			ui->msglog_off = 1;
			ui_command(ui, p);
			ui->msglog_off = 0;
			if (ui->msg[0] && ui->msg_sev == UI_ERROR) {
				char msg[sizeof(ui->msg)];

				snprintf(msg, sizeof(msg), "%s", ui->msg);
				ui_message(ui, UI_ERROR, "%s:%u: %.300s", paths[k],
					   lineno, msg);
				snprintf(last, sizeof(last), "%s", ui->msg);
				nerr++;
			}
		}
		fclose(f);
	}
	/* The status line says what the log holds once each. */
	ui->msglog_off = 1;
	if (nerr > 1)
		ui_message(ui, UI_ERROR, "%u config errors (:messages lists them); the last: %.300s",
			   nerr, last);
	else if (nerr)
		ui_message(ui, UI_ERROR, "%s", last);
	ui->msglog_off = 0;
}

int cmd_browse_main(int argc, char **argv)
{
	struct ui_opts o;
	struct ui *ui;
	struct trace *t = NULL;
	char err[512];
	int r, ret = 1, s = 0;
	const char *cs, *nc;
	size_t i;

	ui_t_start = ui_now();
	/* Windows of rows come and go; keep their memory in the heap rather
	 * than mapping and faulting in fresh pages for each one. */
	mallopt(M_MMAP_THRESHOLD, 64 << 20);
	mallopt(M_TRIM_THRESHOLD, 128 << 20);
	setlocale(LC_ALL, "");
	r = ui_parse_args(argc, argv, &o);
	if (r)
		return r < 0 ? 0 : r;
	r = trace_open(&t, o.path, err, sizeof(err));
	if (r < 0) {
		esc_line(stderr, "ptbrowse: ", "%s", err);
		return 1;
	}
	if (o.stream && (s = trace_find_stream(t, o.stream)) < 0) {
		esc_line(stderr, "ptbrowse: ", "%s: no stream '%s'", o.path, o.stream);
		goto out_trace;
	}
	if (!t->nstreams) {
		esc_line(stderr, "ptbrowse: ", "%s: no Intel PT data", o.path);
		goto out_trace;
	}
	ui = calloc(1, sizeof(*ui));
	if (!ui) {
		esc_line(stderr, "ptbrowse: ", "out of memory");
		goto out_trace;
	}
	ui->trace = t;
	ui->stream_no = s;
	ui->img = &t->streams[s].img;
	ui->name = strrchr(o.path, '/') ? strrchr(o.path, '/') + 1 : o.path;
	ui->tmcfg = o.cfg;
	tm_config_merge(&ui->tmcfg, &t->streams[s].timing);
	ui->pk_cols = UI_PK_IP;
	ui->cy_cols = UI_CY_DELTA | UI_CY_CYCLES | UI_CY_TIME | UI_CY_DMARK | UI_CY_CBR | UI_CY_FREQ;
	ui->tl_time = 1;
	cs = nl_langinfo(CODESET);
	ui->utf8 = !o.ascii && cs && !strcmp(cs, "UTF-8");
	nc = getenv("NO_COLOR");
	ui->color = !(nc && *nc);
	trace_advise(t, TRACE_BROWSE);
	reload_remember(ui);

	ui->km = km_new();
	if (!ui->km) {
		esc_line(stderr, "ptbrowse: ", "out of memory");
		goto out_ui;
	}
	if (km_load(ui->km, o.keymap, err, sizeof(err)) < 0) {
		esc_line(stderr, "ptbrowse: ", "--keymap %s: %s", o.keymap, err);
		goto out_km;
	}
	snprintf(ui->keymap_name, sizeof(ui->keymap_name), "%s", km_name(ui->km));
	km_state_reset(&ui->ks);
	if (win_cache_new(&ui->wc, ui->img, NULL, UI_CACHE_BYTES) < 0) {
		esc_line(stderr, "ptbrowse: ", "out of memory");
		goto out_km;
	}
	win_cache_set_timing(ui->wc, &ui->tmcfg);
	{
		struct marks_opts bo = { 0 };

		bo.flags = o.no_state ? BM_NO_STATE : 0;
		bo.stream = t->nstreams > 1 ? t->streams[s].name : NULL;
		bo.report = ui_bm_report;
		bo.report_ctx = ui;
		if (marks_open_trace(&ui->bm, t, (size_t)s, &bo) < 0)
			ui->bm = NULL;
	}
	ui->no_state = o.no_state;
	ui->no_index = o.no_index;
	/* No usable terminal is a usage error: exit 2. */
	r = ui_screen_start(ui, &o);
	if (r) {
		ret = r;
		goto out_idx;
	}
	ui_live = ui;
	view_push(ui, &browser_view, NULL);
	ui_signals();
	atexit(ui_restore_terminal);
	prompt_init(ui);
	ui_config(ui, &o);
	ui_find_t0(ui);
	ui_layout(ui);
	ui_say_losses(ui);
	ui_km_errors(ui);
	/* The first screen, then the index: on two cores the builder's
	 * threads would otherwise delay it. */
	ui_draw(ui);
	ui_flush(ui);
	ui_t_first = ui_now();
	if (!o.no_index)
		ui_idx_start(ui);
	if (o.script)
		ret = ui_script(ui, o.script);
	else {
		ui_loop(ui);
		ret = 0;
	}
	prompt_done(ui);
	ui_restore_terminal();
	/* A change a busy or failed save left in memory: the last chance. */
	if (ui->bm && marks_flush(ui->bm) < 0) {
		esc_line(stderr, "ptbrowse: ", "%s", marks_message(ui->bm));
		ret = 1;
	}
	if (ui_screen)
		delscreen(ui_screen);
	ui_screen = NULL;
	ui_live = NULL;
	if (ui->fatal[0]) {
		esc_line(stderr, "ptbrowse: ", "%s", ui->fatal);
		ret = 1;
	}
out_idx:
	search_ui_free(ui);
	marks_ui_stop(ui);
	ui_idx_stop(ui);
	marks_close(ui->bm);
	win_cache_free(ui->wc);
out_km:
	km_free(ui->km);
out_ui:
	for (i = 0; i < UI_MSGLOG; i++)
		free(ui->msglog[i]);
	t = ui->trace;	/* R may have opened the file again */
	free(ui);
out_trace:
	trace_close(t);
	return ret;
}
