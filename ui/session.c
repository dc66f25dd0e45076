/* session -- the trace's index in the background (start, poll, cancel,
 * the cache) and its first time. */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wchar.h>

#include "cmd.h"
#include "esc.h"
#include "funcs.h"
#include "funcs_idx.h"
#include "idxcache.h"
#include "iterations.h"
#include "marks_ui.h"
#include "msg.h"
#include "goto_idx.h"
#include "screen.h"
#include "session.h"
#include "stalls.h"
#include "timefmt.h"
#include "trace.h"
#include "ui.h"

/* Where ui->idx_from_cache says the index came from (and whether it is
 * still to be saved). */
enum {
	SESSION_BUILT = 0,	/* built here: saved once done */
	SESSION_CACHED = 1,	/* the cache's whole, its file mapped */
	SESSION_EXTENDED = 2,	/* the cache's (mapped), and the rest built
				 * here (grown, the time pass): saved */
	SESSION_SAVED = 3,	/* built here and saved (at quit, R) */
};

/* The trace's time origin: the earliest first TSC of its streams, so
 * that one instant reads the same on every stream (the lanes share one
 * axis; a goto by time lands on the row shown at that time on any).
 * The shown stream's is looked for in its first packets only; once its
 * index is complete, within its time range (a damaged first TSC is not
 * the origin of every time shown).  The others' come from their first
 * PSB+ (offtsc_first()): no stream is walked on the UI thread. */
void session_find_t0(struct ui *ui)
{
	ui->have_t0 = !goto_idx_origin(ui->wc, ui->idx, ui->trace, ui->stream_no,
				       &ui->t0);
}

/* The time model's state at the PSB at @psb, from the index. */
static int session_carry(void *ctx, uint64_t psb, struct tm_carry *out)
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
 * trace's index is tens of megabytes.  The identity taken when the file
 * was mapped (reload_remember(), before the index began) lets a
 * recording that appended meanwhile be saved too, for the part indexed. */
static void *session_cache_saver(void *arg)
{
	struct ui *ui = arg;
	char err[256] = "";

	if (idxcache_save_since(ui->idx, ui->trace, ui->stream_no,
				ui->have_ident ? &ui->ident : NULL, &ui->cache_hurry,
				err, sizeof(err)) < 0)
		snprintf(ui->cache_err, sizeof(ui->cache_err), "%s", err);
	else if (err[0])
		snprintf(ui->cache_note, sizeof(ui->cache_note), "%s", err);
	return NULL;
}

/* Save the index just finished in the background. */
static void session_cache_start(struct ui *ui)
{
	ui->cache_err[0] = ui->cache_note[0] = 0;
	ui->cache_hurry = 0;
	ui->cache_saving = !pthread_create(&ui->cache_thread, NULL, session_cache_saver, ui);
}

/* Whether the saver ended, joined: waiting for it if @block, else only
 * if it has already ended (the idle poll must not wait for a hash). */
static int session_cache_reap(struct ui *ui, int block)
{
	if (!ui->cache_saving)
		return 0;
	if (block ? pthread_join(ui->cache_thread, NULL) :
		    pthread_tryjoin_np(ui->cache_thread, NULL))
		return 0;
	ui->cache_saving = 0;
	return 1;
}

/* Say why the saver did not write the cache, once: in :messages. */
static void session_cache_said(struct ui *ui)
{
	if (ui->cache_err[0])
		msg_report(ui, UI_WARN, "index not cached: %s", ui->cache_err);
	if (ui->cache_note[0])
		msg_report(ui, UI_WARN, "%s", ui->cache_note);	/* ("index cache: ...") */
	ui->cache_err[0] = ui->cache_note[0] = 0;
}

/* Save an index that finished since the main loop last looked (it looks
 * when no key came for a while): quitting or R right then threw it away.
 * Then wait for the saver; past UI_CACHE_HASH_MAX hurry it: it may be
 * hashing gigabytes, which quitting or reloading must not wait for, while
 * the index itself is written in a fraction of a second, and without it
 * the next start builds the index again. */
static void session_cache_join(struct ui *ui)
{
	struct idx_progress p;

	if (ui->idx && !ui->idx_ops_set && !ui->cache_saving &&
	    (ui->idx_from_cache == SESSION_BUILT || ui->idx_from_cache == SESSION_EXTENDED)) {
		idx_progress(ui->idx, &p);
		if (p.finished && !p.status) {
			session_cache_start(ui);
			/* (saved once: session_cache_final(), then
			 * session_idx_stop(), must not save it again) */
			ui->idx_from_cache = SESSION_SAVED;
		}
	}
	if (ui->cache_saving && ui->trace->size > UI_CACHE_HASH_MAX)
		ui->cache_hurry = 1;
	session_cache_reap(ui, 1);
}

void session_cache_wait(struct ui *ui)
{
	if (session_cache_reap(ui, 1))
		session_cache_said(ui);
}

void session_cache_final(struct ui *ui, FILE *err, const char *prefix)
{
	session_cache_join(ui);
	if (ui->cache_err[0])
		esc_line(err, prefix, "%s: index not cached: %s", ui->name, ui->cache_err);
	if (ui->cache_note[0])
		esc_line(err, prefix, "%s", ui->cache_note);
	ui->cache_err[0] = ui->cache_note[0] = 0;
}

/* While the time pass runs, windows take the carries it has published:
 * the ones decoded before their segment had one (cycles counted from its
 * PSB, marked) are dropped, to decode again from it. */
int session_carries(struct ui *ui)
{
	static const struct win_psb_ops none;
	struct win_psb_ops ops = none;
	struct idx_progress p;
	struct idx_seek sk;
	uint64_t below = UINT64_MAX;
	size_t k;

	if (!ui->idx || ui->idx_ops_set)
		return UI_DRAW_NONE;
	idx_progress(ui->idx, &p);
	if (p.finished || p.phase != IDX_TIME)
		return UI_DRAW_NONE;
	k = idx_ncarried(ui->idx);
	if (!k)
		return UI_DRAW_NONE;
	ops.carry = session_carry;
	ops.ctx = ui;
	win_cache_set_psb_ops(ui->wc, &ops);
	if (k < idx_nseeks(ui->idx)) {
		if (idx_seek(ui->idx, k, &sk))
			return UI_DRAW_NONE;
		below = sk.offset;
	}
	return win_cache_drop_seg_rel(ui->wc, below) ? UI_DRAW_ALL : UI_DRAW_NONE;
}

void session_wait_carry(struct ui *ui)
{
	const struct timespec tick = { 0, 5000000 };
	size_t i;

	while (ui->idx && session_poll(ui) && !ui->idx_ops_set) {
		if (!idx_find(ui->idx, ui->cursor, &i) && idx_ncarried(ui->idx) > i)
			break;
		nanosleep(&tick, NULL);
	}
	session_carries(ui);
}

/* Once the index is complete, windows start from its time model state. */
int session_poll(struct ui *ui)
{
	struct idx_progress p;
	static const struct win_psb_ops none;

	/* The saver's end, looked at here, where the message shows (not
	 * only at quit, when it would go with the message log). */
	if (session_cache_reap(ui, 0)) {
		session_cache_said(ui);
		if (ui->idx_ops_set)
			funcs_idx_ready(ui);	/* it waited for the save */
	}
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
		msg_report(ui, UI_WARN, "%s: no PSB found: this is not an Intel PT trace, "
			   "or it starts mid-stream without a synchronisation point",
			   ui->name);
	/* The builder has read the whole file: drop its pages from our page
	 * tables (the page cache keeps them), so RSS is what the browser
	 * uses; windows fault in what they read again. */
	trace_release(ui->trace, ui->trace->map, (size_t)ui->trace->size);
	if (!p.status && (ui->idx_from_cache == SESSION_BUILT ||
			  ui->idx_from_cache == SESSION_EXTENDED))
		session_cache_start(ui);
	if (!p.status) {
		struct win_psb_ops ops = none;

		ops.carry = session_carry;
		ops.ctx = ui;
		win_cache_set_psb_ops(ui->wc, &ops);
		win_cache_set_timing(ui->wc, &ui->tmcfg);
		funcs_idx_ready(ui);
		/* (afresh: the origin may be another stream's, which
		 * this stream's time range says nothing about) */
		if (ui->have_t0)
			session_find_t0(ui);
	}
	return 1;
}

/*
 * Stop and free the index, waiting for its builder: it reads the trace's
 * mapping, which the caller may unmap next.  The builder looks for a
 * cancel every 256 KiB, inside long segments too, so this is quick.
 */
void session_idx_stop(struct ui *ui)
{
	iterations_stop(ui);	/* it reads the index */
	stalls_stop(ui);	/* and so does this */
	if (!ui->idx)
		return;
	session_cache_join(ui);
	session_cache_said(ui);
	idx_cancel(ui->idx);
	idx_free(ui->idx);
	ui->idx = NULL;
}

/* Start indexing ui->img in the background (after the first screen).
 * Returns what idxcache_load() did (-1: no index), with *@why saying
 * why the cache was not used. */
static int session_idx_begin(struct ui *ui, const char **why)
{
	int r;

	*why = "";
	if (idx_new(&ui->idx, ui->img, &ui->tmcfg) < 0) {
		ui->idx = NULL;
		return -1;
	}
	idx_set_guard(ui->idx, trace_guard);
	/* Pages the builder is done with leave our RSS; the ones it is about
	 * to scan are read ahead (the mapping is advised for browsing). */
	idx_set_release(ui->idx, trace_release, ui->trace);
	idx_set_willneed(ui->idx, trace_willneed);
	ui->idx_ops_set = 0;
	/* A cached index of this trace makes reopening instant; one of a
	 * trace that grew since leaves only the tail to index. */
	r = idxcache_load(ui->idx, ui->trace, ui->stream_no, UI_CACHE_HASH_MAX, why);
	ui->idx_from_cache = r == IDXCACHE_HIT ? SESSION_CACHED :
			     r == IDXCACHE_GROWN || r == IDXCACHE_PARTIAL ?
			     SESSION_EXTENDED : SESSION_BUILT;
	if (!*why)
		*why = "";
	if (r != IDXCACHE_HIT && idx_start(ui->idx) < 0) {
		idx_free(ui->idx);
		ui->idx = NULL;
	}
	return r;
}

/* Whether idxcache_load()'s reason @why is news about the cache file:
 * not "none yet", nor the trace's own change (its index is rebuilt as a
 * matter of course: R, a trace shrunk under us, a rewritten one). */
static int session_cache_news(const char *why)
{
#ifdef IDXCACHE_OTHER
	if (!strcmp(why, IDXCACHE_OTHER))
		return 0;	/* none yet of its own */
#endif
	return why[0] && strcmp(why, "not cached") && strcmp(why, "no cache directory") &&
	       strncmp(why, "trace ", 6);
}

void session_idx_start(struct ui *ui)
{
	char line[sizeof(ui->msg)];
	const char *why;
	int sev = ui->msg_sev;

	if (session_idx_begin(ui, &why) != IDXCACHE_MISS || !session_cache_news(why))
		return;
	/* A cache file that does not check out is never trusted: say why
	 * it is rebuilt, as `ptbrowse index` does; in :messages, and on
	 * the message line unless it holds a warning (what a perf.data
	 * lost, a shrunk trace) this would hide. */
	memcpy(line, ui->msg, sizeof(line));
	msg_report(ui, UI_INFO, "%s: index cache ignored (%s), rebuilding it", ui->name,
		   why);
	if (line[0] && sev > UI_INFO) {
		memcpy(ui->msg, line, sizeof(line));
		ui->msg_sev = sev;
	}
}

int session_idx_refault(struct ui *ui)
{
	int mapped = ui->idx_from_cache == SESSION_CACHED ||
		     ui->idx_from_cache == SESSION_EXTENDED;
	const char *why;

	/* The index read a mapped cache file, which now no longer checks
	 * out (its length, its hash): it was cut or rewritten under us. */
	return session_idx_begin(ui, &why) == IDXCACHE_MISS && mapped;
}

/* The core's halted time in the trace's sleeps (the time pass's sums)
 * for :info into @buf: "; halted 1.2 ms in 3 sleeps", a range where
 * the model only bounds it, in ticks without a TSC frequency; "" if the
 * index has no time pass or no sleep. */
static void session_halted(const struct ui *ui, char *buf, size_t size)
{
	uint64_t n = 0, lo = 0, hi = 0, hz = tm_tsc_hz(&ui->tmcfg, 1);
	char a[48], b[48];
	int r;

	buf[0] = 0;
	r = ui->idx ? idx_halted(ui->idx, &n, &lo, &hi) : -1;
	if (r < 0 || !n)
		return;
	if (hz) {
		timefmt_tsc(ui, a, sizeof(a), (double)lo * 1e9 / (double)hz, 0);
		timefmt_tsc(ui, b, sizeof(b), (double)hi * 1e9 / (double)hz, 0);
	} else {
		snprintf(a, sizeof(a), "%" PRIu64 " ticks", lo);
		snprintf(b, sizeof(b), "%" PRIu64 " ticks", hi);
	}
	if (lo == hi)
		snprintf(buf, size, "; halted %s in %" PRIu64 " sleeps%s", a, n,
			 r ? " so far" : "");
	else
		snprintf(buf, size, "; halted %s .. %s in %" PRIu64 " sleeps%s", a, b,
			 n, r ? " so far" : "");
}

/* The info line's parts, each at most a message long, in the line's
 * order: the name, ":", the size, the offset, the percentage, the
 * index's count and its state ("; index: 5 PSBs" ", done")... */
enum {
	SI_NAME, SI_COLON, SI_SIZE, SI_AT, SI_PCT, SI_INDEX, SI_ITAIL, SI_HALT,
	SI_CODE, SI_ROWS, SI_N
};
#define SI_LEN sizeof(((struct ui *)0)->msg)
/* A cut of the name as far as the line needs (session_cuts[]). */
#define SI_ANY (-1)

/* How the info line is made to fit, the least important first: a
 * part's middle cut down to @cols columns, with @cols 0 the part left
 * out.  Parts go whole: screen_put() cutting the line's end cut
 * numbers short ("at 0x1b2c3" for 0x1b2c3d4).  What stays is the
 * name's start and the offset. */
static const struct {
	int part, cols;
} session_cuts[] = {
	{ SI_ROWS, 0 }, { SI_CODE, 32 }, { SI_NAME, 32 }, { SI_HALT, 0 },
	{ SI_CODE, 0 }, { SI_NAME, 12 }, { SI_ITAIL, 0 }, { SI_INDEX, 0 },
	{ SI_PCT, 0 }, { SI_SIZE, 0 }, { SI_NAME, SI_ANY },
};

/* The info line's parts @p (escaped) into @buf, made to fit @cols
 * columns as session_cuts[] says. */
static void session_fit(struct ui *ui, char (*p)[SI_LEN], int cols, char *buf,
			size_t size)
{
	const char *ell = screen_glyph(ui, "…", "...");
	size_t i, at = 0;
	int all = 0;

	for (i = 0; i < SI_N; i++)
		all += screen_cols(p[i]);
	for (i = 0; i < sizeof(session_cuts) / sizeof(session_cuts[0]) && all > cols; i++) {
		char *s = p[session_cuts[i].part];
		int w = screen_cols(s), want = w - (all - cols), min = session_cuts[i].cols;

		if (!min)
			s[0] = 0;
		else if (min == SI_ANY && want < screen_cols(ell) + 2)
			screen_head_cut(s, sizeof(p[0]), want, ell);
		else if (min == SI_ANY || w > min)
			screen_mid_cut(s, sizeof(p[0]), want > min ? want : min, ell);
		all += screen_cols(s) - w;
	}
	buf[0] = 0;
	for (i = 0; i < SI_N && at < size; i++)
		at += (size_t)snprintf(buf + at, size - at, "%s", p[i]);
}

/* :info, = -- the line fits the terminal's width: a part too long (a
 * file name, the code index's reason it was not saved) loses its middle
 * and the least important go, rather than the line its end; the message
 * log has it whole. */
static int session_info(struct ui *ui, const struct cmd_args *a)
{
	struct idx_progress p = { 0 };
	char raw[800], part[SI_N][SI_LEN], line[SI_N * SI_LEN];

	(void)a;
	if (ui->idx)
		idx_progress(ui->idx, &p);
	/* escaped here (msg_report() leaves escaped text as it is), so that
	 * the columns counted are the ones shown */
	esc_str(part[SI_NAME], sizeof(part[0]), ui->name);
	snprintf(part[SI_COLON], sizeof(part[0]), ":");
	snprintf(part[SI_SIZE], sizeof(part[0]), " %" PRIu64 " bytes,", ui->img->size);
	snprintf(part[SI_AT], sizeof(part[0]), " at 0x%" PRIx64, ui->cursor);
	snprintf(part[SI_PCT], sizeof(part[0]), " (%.1f%%)",
		 ui->img->size ? 100.0 * (double)ui->cursor / (double)ui->img->size : 0);
	snprintf(part[SI_INDEX], sizeof(part[0]), "; index: %zu PSBs",
		 ui->idx ? idx_nseeks(ui->idx) : 0);
	if (ui->idx && !p.finished && p.eta >= 0)
		snprintf(part[SI_ITAIL], sizeof(part[0]), ", running, eta %.0fs", p.eta);
	else
		snprintf(part[SI_ITAIL], sizeof(part[0]), "%s",
			 !ui->idx ? " (off)" : p.finished ? ", done" : ", running");
	session_halted(ui, raw, sizeof(raw));
	esc_str(part[SI_HALT], sizeof(part[0]), raw);
	funcs_idx_info(ui, raw, sizeof(raw));
	esc_str(part[SI_CODE], sizeof(part[0]), raw);
	snprintf(part[SI_ROWS], sizeof(part[0]), "; %zu KiB of rows cached",
		 win_cache_bytes(ui->wc) >> 10);
	/* the message log (:messages, which wraps) keeps it whole */
	session_fit(ui, part, INT_MAX, line, sizeof(line));
	msg_report(ui, UI_INFO, "%s", line);
	session_fit(ui, part, ui->cols, line, sizeof(line));
	if (strlen(line) < sizeof(ui->msg))
		memcpy(ui->msg, line, strlen(line) + 1);
	return UI_DRAW_STATUS;
}

/* C-c: stop the index (a search or a region summary first: the caller's
 * handler asks them). */
int session_interrupt(struct ui *ui)
{
	struct idx_progress p;

	if (ui->idx) {
		idx_progress(ui->idx, &p);
		if (!p.finished) {
			idx_cancel(ui->idx);
			msg_report(ui, UI_WARN, "indexing stopped: packet numbers and the "
				   "timeline stay partial (q quits)");
			return UI_DRAW_ALL;
		}
	}
	if (funcs_idx_interrupt(ui))
		return UI_DRAW_ALL;
	msg_report(ui, UI_INFO, "nothing to interrupt (q quits)");
	return UI_DRAW_STATUS;
}

static const struct cmd_row session_rows[] = {
	{ ACTION_INFO, session_info, CMD_NONE, 0, 0 },
};

CMD_TABLE(session_cmds, session_rows);
