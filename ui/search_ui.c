/* search_ui -- background search, n/N, the filter view and highlighting. */
#include <ctype.h>
#include <curses.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wchar.h>

#include <readline/readline.h>

#include "cmd.h"
#include "code.h"
#include "msg.h"
#include "nav.h"
#include "prompt.h"
#include "screen.h"
#include "ctxterm.h"
#include "export_job.h"
#include "goto_job.h"
#include "index.h"
#include "search.h"
#include "search_code.h"
#include "search_sb.h"
#include "search_ui.h"
#include "search_ui_int.h"
#include "term.h"
#include "timefmt.h"
#include "trace.h"
#include "ui.h"
#include "walk.h"

struct search_ui *search_ui_get(struct ui *ui)
{
	if (!ui->sui) {
		ui->sui = calloc(1, sizeof(*ui->sui));
		if (!ui->sui) {
			endwin();
			fprintf(stderr, "ptbrowse: out of memory\n");
			exit(1);
		}
		ui->sui->hl = 1;
		ui->sui->text = search_ui_printf("%s", "");
		ui->sui->ftext = search_ui_printf("%s", "");
	}
	return ui->sui;
}

char *search_ui_printf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	s = n < 0 ? NULL : malloc((size_t)n + 1);
	if (!s) {
		endwin();
		fprintf(stderr, "ptbrowse: out of memory\n");
		exit(1);
	}
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

/* Set *@dst to a copy of @src. */
static void search_ui_set_text(char **dst, const char *src)
{
	char *s = search_ui_printf("%s", src);

	free(*dst);
	*dst = s;
}

void search_ui_sleep_ms(int ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
}

/* "search hit BOTTOM, continuing at TOP" for direction @dir. */
static void search_ui_wrapped(struct ui *ui, int dir)
{
	msg_report(ui, UI_WARN, dir > 0 ? "search hit BOTTOM, continuing at TOP"
					: "search hit TOP, continuing at BOTTOM");
}

/* The code terms of the last search by terms (search_sb owns them) and
 * that search, for the code view's row of a hit: valid while su->sb is
 * still @sui_code_sb. */
static const struct search_code *sui_code;
static const struct search_sb *sui_code_sb;

/* ui->code_place()'s match (pane_code_match_fn): the row of the hit, an instruction the last code
 * search describes (@ctx is the ui). */
static int search_ui_code_row(void *ctx, const struct flow_window *w, size_t line)
{
	struct ui *ui = ctx;

	if (!ui->sui || !sui_code || ui->sui->sb != sui_code_sb)
		return 0;
	return search_code_line(sui_code, code_imgset(ui), code_dec(ui), w, line);
}

/* A search by terms (search_sb) lands on @hit: the wrap said, or the
 * message line cleared.  A code search's hit is the instruction found:
 * the code view puts the cursor on its row, not on its packet's. */
static void search_ui_land(struct ui *ui, uint64_t hit, int wrapped, int dir)
{
	nav_jump(ui, hit);
	if (ui->code_place)
		ui->code_place(ui, hit, sui_code && ui->sui->sb == sui_code_sb ?
			       search_ui_code_row : NULL, ui);
	if (wrapped)
		search_ui_wrapped(ui, dir);
	else
		ui->msg[0] = 0;
}

/* Parse @text into a predicate with the trace's timing; errors go to the
 * message line prefixed with @what.  Returns NULL on error. */
struct srch_pred *search_ui_parse(struct ui *ui, const char *what, const char *text)
{
	struct srch_pred *pred = NULL;
	char err[256] = "";
	int r;

	r = srch_parse(text, &pred, err, sizeof(err));
	if (r < 0) {
		msg_report(ui, UI_ERROR, "%s: %s", what, err[0] ? err : pte_strerror(r));
		return NULL;
	}
	/* (a filter said "no gap > 1us packets", as though it had looked) */
	if (srch_pred_set_config(pred, &ui->tmcfg) == -pte_no_calib) {
		msg_report(ui, UI_ERROR, "%s: a gap in time units needs the TSC frequency "
			   "(--tsc-freq, --cpu)", what);
		srch_pred_free(pred);
		return NULL;
	}
	return pred;
}

/* Whether the last search was made under another filter than the one
 * now (search_ui_refilter() dropped its hits). */
static int search_ui_stale(const struct search_ui *su)
{
	return su->text[0] && su->sver != su->fver;
}

/* Whether a search for @pred counts exactly.  A gap needs the time
 * model's state at each PSB, which the index's time pass saves; a search
 * decoding from a PSB without it starts a fresh model, whose gaps differ
 * from a decode from the start's (a TSC seen as a jump from the start is
 * a gap from a fresh model) and vary with where its units of work begin,
 * so without the whole time pass (--no-index, or still building) the
 * count is an estimate. */
static int search_ui_time_exact(struct ui *ui, const struct srch_pred *pred)
{
	if (!pred || !srch_pred_has_history(pred))
		return 1;
	return ui->idx && idx_scan_done(ui->idx) &&
	       idx_ncarried(ui->idx) >= idx_nseeks(ui->idx);
}

/* The message line at a hit: the P1 estimate's note once, else empty. */
static void search_ui_hit_message(struct ui *ui)
{
	struct search_ui *su = ui->sui;

	if (su->note) {
		/* Said where the estimate decided the hit. */
		msg_report(ui, UI_INFO, "%s", su->note);
		su->note = NULL;
	} else {
		ui->msg[0] = 0;
	}
}

/* "pattern not found", saying when the filter narrowed the search. */
static void search_ui_not_found(struct ui *ui)
{
	struct search_ui *su = ui->sui;

	if (search_ui_fon(su))	/* a search in the filter view keeps to its rows */
		msg_report(ui, UI_ERROR, "pattern not found: %s (among the filter's %s)",
			   su->text, su->ftext);
	else
		msg_report(ui, UI_ERROR, "pattern not found: %s", su->text);
}

/* Add @count n's (@rev 0) or N's to the steps pending from the search's
 * first hit: an n and an N undo each other, as they would from there. */
static void search_ui_add_pending(struct search_ui *su, int rev, uint64_t count)
{
	if (!su->pending || su->pending_rev == rev) {
		su->pending += count;
		su->pending_rev = rev;
	} else if (count <= su->pending) {
		su->pending -= count;
	} else {
		su->pending = count - su->pending;
		su->pending_rev = rev;
	}
}

/* The message line for the steps pending: before the first hit, the
 * search and the steps to go from it; after, the steps to go; with none,
 * search_ui_hit_message()'s. */
static void search_ui_say_pending(struct ui *ui)
{
	struct search_ui *su = ui->sui;
	const char *key = su->pending_rev ? "N" : "n";

	if (!su->jumped && su->pending)
		msg_report(ui, UI_INFO, "searching %s%s (C-c stops); then %" PRIu64 " %s from "
			   "its first hit", su->sdir > 0 ? "/" : "?", su->text, su->pending, key);
	else if (!su->jumped)
		msg_report(ui, UI_INFO, "searching %s%s (C-c stops)", su->sdir > 0 ? "/" : "?",
			   su->text);
	else if (su->pending)
		msg_report(ui, UI_INFO, "searching: %" PRIu64 " %s to go, the next hit is not "
			   "known yet", su->pending, key);
	else
		search_ui_hit_message(ui);
}

/* n or N (@rev) @count times typed while the search (a packet one, @sb 0,
 * or one by terms) has not landed on its first hit, or has steps pending
 * from it: counted from that hit, as less and vim take keys typed ahead
 * of a search (the landing went over them).  Returns 1 if counted, 0 if
 * the search ended without a first hit (n and N go on as with none). */
static int search_ui_ahead(struct ui *ui, int rev, uint64_t count, int sb)
{
	struct search_ui *su = ui->sui;
	struct srch_status st;

	if (sb) {
		if (su->reported && !su->pending)
			return 0;
	} else {
		srch_status(su->s, &st);
		if (st.finished && !st.have_first)
			return 0;
	}
	search_ui_add_pending(su, rev, count);
	search_ui_say_pending(ui);
	return 1;
}

/* Start a background search for the last predicate from @from in @dir;
 * @known: all its hits, if a search before counted them (else 0). */
static int search_ui_run_known(struct ui *ui, uint64_t from, int dir,
			       uint64_t known)
{
	struct search_ui *su = ui->sui;
	struct srch_opts o = { 0 };
	struct srch_status st;
	int r;

	srch_free(su->s);
	su->s = NULL;
	su->pending = 0;
	o.guard = trace_guard;
	o.known_hits = known;
	r = srch_start_opts(&su->s, ui->img, ui->idx, su->pred, from, dir, &o);
	if (r < 0) {
		su->s = NULL;
		msg_report(ui, UI_ERROR, "search: %s", r == -pte_no_calib ?
			   "a gap in time units needs the TSC frequency (--tsc-freq, --cpu)" :
			   pte_strerror(r));
		return UI_DRAW_STATUS;
	}
	su->sdir = dir;
	su->jumped = 0;
	su->reported = 0;
	su->nsnap = 0;
	su->snap_final = 0;
	msg_report(ui, UI_INFO, "searching %s%s (C-c stops)%s%s", dir > 0 ? "/" : "?", su->text,
		   su->note ? "; " : "", su->note ? su->note : "");
	/* A script sees the first hit at once, so its keys are repeatable. */
	if (ui->headless) {
		do {
			srch_status(su->s, &st);
			if (!st.have_first && !st.finished)
				search_ui_sleep_ms(1);
		} while (!st.have_first && !st.finished);
	}
	return search_ui_poll(ui, &r) | UI_DRAW_ALL;
}

/* Start a background search for the last predicate from @from in @dir. */
static int search_ui_run(struct ui *ui, uint64_t from, int dir)
{
	return search_ui_run_known(ui, from, dir, 0);
}

static int search_ui_again(struct ui *ui, int rev, uint64_t count);
static void search_ui_snap(struct search_ui *su);

/* A search with sideband terms @ct (search_sb.h) and the packet
 * expression @rest ("" for none), as typed @text.  The last search stays
 * until this one has started (one refused, comm on a raw trace, leaves n
 * and N to it). */
static int search_ui_sb(struct ui *ui, const char *text, const struct ctxterm *ct,
			const char *rest, int dir)
{
	struct search_ui *su = ui->sui;
	struct srch_pred *pred = NULL;
	struct search_code *code = NULL;
	struct search_sb *sb;
	char err[256];
	int busy, approx;

	if (rest[0] && !(pred = search_ui_parse(ui, "search", rest)))
		return UI_DRAW_STATUS;
	/* sym, call, ret: their names resolved once, here */
	if (ct->code && search_code_new(&code, code_imgset(ui), ct, err, sizeof(err)) < 0) {
		msg_report(ui, UI_ERROR, "search: %s", code_imgset(ui) || !code_why(ui) ?
			   err : code_why(ui));
		srch_pred_free(pred);
		return UI_DRAW_STATUS;
	}
	approx = !search_ui_time_exact(ui, pred);
	if (search_sb_start(&sb, ui, ct, code, pred, dir) < 0)
		return UI_DRAW_STATUS;
	su->approx = approx;
	srch_free(su->s);
	su->s = NULL;
	srch_pred_free(su->pred);
	su->pred = NULL;
	search_sb_free(su->sb);
	su->sb = sb;
	sui_code = code;	/* (taken by sb, freed with it) */
	sui_code_sb = sb;
	su->note = NULL;
	su->pending = 0;
	su->sver = su->fver;
	search_ui_set_text(&su->text, text);
	su->dir = su->sdir = dir;
	su->jumped = su->reported = 0;
	msg_report(ui, UI_INFO, "searching %s%s in the %s (C-c stops)",
		   dir > 0 ? "/" : "?", text, ct->code ? "code" : "sideband");
	/* a script sees the first hit at once (a code search's before it
	 * ends: wait-search waits for the rest), so its keys are repeatable */
	if (ui->headless)
		search_sb_wait_first(su->sb);
	return search_ui_poll(ui, &busy) | UI_DRAW_ALL;
}

/* n or N for a search with sideband terms. */
static int search_ui_sb_again(struct ui *ui, int rev, uint64_t count)
{
	struct search_ui *su = ui->sui;
	int d = rev ? -su->dir : su->dir, wrapped = 0, r;
	uint64_t hit;

	if (ui->headless)
		search_sb_wait(su->sb);
	if ((!su->jumped || su->pending) && search_ui_ahead(ui, rev, count, 1))
		return UI_DRAW_STATUS;
	r = search_sb_next(su->sb, ui->cursor, d, count, &hit, &wrapped);
	if (r == 1) {
		/* (a code search's hits past those known: once known) */
		search_ui_add_pending(su, rev, count);
		search_ui_say_pending(ui);
		return UI_DRAW_STATUS;
	}
	if (r < 0) {
		search_ui_not_found(ui);
		return UI_DRAW_STATUS;
	}
	search_ui_land(ui, hit, wrapped, d);
	return UI_DRAW_ALL;
}

/* The n and N steps pending from the first hit a search by terms landed
 * on (search_ui_ahead()), once their hits are known. */
static int search_ui_sb_pending(struct ui *ui)
{
	struct search_ui *su = ui->sui;
	int d = su->pending_rev ? -su->dir : su->dir, wrapped = 0, r;
	uint64_t hit;

	if (!su->jumped || !su->pending)
		return UI_DRAW_NONE;
	r = search_sb_next(su->sb, ui->cursor, d, su->pending, &hit, &wrapped);
	if (r == 1)
		return UI_DRAW_NONE;
	su->pending = 0;
	if (r < 0)
		return UI_DRAW_NONE;
	search_ui_land(ui, hit, wrapped, d);
	return UI_DRAW_ALL;
}

/* The poll of a search with sideband or code terms: its first hit once
 * known (a code search's before it ends), else once done. */
static int search_ui_sb_poll(struct ui *ui, int *busy)
{
	struct search_ui *su = ui->sui;
	uint64_t done, total, hit;
	size_t n;
	int fin, st, wrapped = 0, had;

	search_sb_progress(su->sb, &done, &total, &n, &fin, &st);
	if (!fin) {
		*busy = su->jumped ? 1 : 2;
		/* a code search knows its first hit before it ends */
		if (!su->jumped && !search_sb_first(su->sb, &hit, &wrapped)) {
			su->jumped = 1;
			search_ui_land(ui, hit, wrapped, su->sdir);
			return UI_DRAW_ALL | search_ui_sb_pending(ui);
		}
		return UI_DRAW_STATUS | search_ui_sb_pending(ui);
	}
	if (su->reported)
		return search_ui_sb_pending(ui);
	had = su->jumped;
	su->reported = su->jumped = 1;
	if (st == -pte_sigbus)
		ui->worker_sigbus = 1;
	else if (st && st != -pte_canceled)
		msg_report(ui, UI_ERROR, "search: %s", pte_strerror(st));
	else if (!n && st != -pte_canceled)
		search_ui_not_found(ui);
	else if (!had && !search_sb_next(su->sb, ui->cursor, su->sdir, 1, &hit, &wrapped))
		search_ui_land(ui, hit, wrapped, su->sdir);
	if (st)
		su->pending = 0;	/* (stopped: its hits are not all) */
	return UI_DRAW_ALL | search_ui_sb_pending(ui);
}

/* A search by sideband or code terms for @text, in a filter view by such
 * terms among its rows: its terms and the text's (less).  Returns
 * UI_DRAW_*, or -1 if the line has no such terms. */
static int search_ui_terms(struct ui *ui, const char *text, int dir)
{
	struct search_ui *su = ui->sui;
	struct ctxterm ct;
	char err[256] = "", *line, *rest;
	int r, draw = -1;

	line = search_ui_printf("%s", text);
	rest = malloc(CTXTERM_RESTLEN(strlen(line)));
	if (!rest)
		goto out_nomem;
	r = ctxterm_split(line, &ct, rest, CTXTERM_RESTLEN(strlen(line)), err, sizeof(err));
	if (su->fsb) {
		free(line);
		free(rest);
		line = search_ui_printf(r > 0 ? "%s & %s" : "%s & ( %s )", su->ftext, text);
		rest = malloc(CTXTERM_RESTLEN(strlen(line)));
		if (!rest)
			goto out_nomem;
		r = ctxterm_split(line, &ct, rest, CTXTERM_RESTLEN(strlen(line)), err,
				  sizeof(err));
	}
	if (r < 0) {
		msg_report(ui, UI_ERROR, "search: %s", err);
		draw = UI_DRAW_STATUS;
	} else if (r > 0) {
		draw = search_ui_sb(ui, text, &ct, rest, dir);
	}
	free(rest);
	free(line);
	return draw;
out_nomem:
	free(line);
	msg_report(ui, UI_ERROR, "search: %s", pte_strerror(-pte_nomem));
	return UI_DRAW_STATUS;
}

/* A new search for packet expression @text in direction @dir; in the
 * filter view among its rows (less).  The last search stays until this
 * one parses. */
static int search_ui_packets(struct ui *ui, const char *text, int dir)
{
	struct search_ui *su = ui->sui;
	struct srch_pred *pred;

	if (su->fpred) {
		char *both = search_ui_printf("(%s) & (%s)", su->ftext, text);

		/* the text's own error, not the two's */
		pred = search_ui_parse(ui, "search", text);
		srch_pred_free(pred);
		pred = pred ? search_ui_parse(ui, "search", both) : NULL;
		free(both);
	} else {
		pred = search_ui_parse(ui, "search", text);
	}
	if (!pred)
		return UI_DRAW_STATUS;
	search_sb_free(su->sb);
	su->sb = NULL;
	srch_free(su->s);
	su->s = NULL;
	srch_pred_free(su->pred);
	su->pred = pred;
	su->note = srch_pred_uses_time(pred) ? timefmt_estimate_note(ui) : "";
	if (!su->note[0])
		su->note = NULL;
	su->approx = !search_ui_time_exact(ui, pred);
	su->pending = 0;
	su->sver = su->fver;
	search_ui_set_text(&su->text, text);
	su->dir = dir;
	return search_ui_run(ui, ui->cursor, dir);
}

static int search_ui_redo(struct ui *ui, int rev, uint64_t count);

/* A new search for @text ("-b" first: backward) in direction @dir. */
static int search_ui_search(struct ui *ui, const char *text, int dir)
{
	struct search_ui *su = search_ui_get(ui);
	int draw;

	while (isspace((unsigned char)*text))
		text++;
	if (!strncmp(text, "-b", 2) && (!text[2] || isspace((unsigned char)text[2]))) {
		dir = -dir;
		text += 2;
		while (isspace((unsigned char)*text))
			text++;
	}
	if (!*text) {
		/* An empty pattern repeats the last one (less, vim). */
		if (search_ui_stale(su)) {
			su->dir = dir;
			return search_ui_redo(ui, 0, 1);
		}
		if (su->sb) {
			su->dir = dir;
			return search_ui_sb_again(ui, 0, 1);
		}
		if (!su->pred) {
			msg_report(ui, UI_ERROR, "search: no previous pattern");
			return UI_DRAW_STATUS;
		}
		su->dir = dir;
		return search_ui_again(ui, 0, 1);
	}
	/* comm, pid, tid, switch, sym, call, ret: search_sb.h's */
	draw = search_ui_terms(ui, text, dir);
	return draw >= 0 ? draw : search_ui_packets(ui, text, dir);
}

void search_ui_refilter(struct ui *ui)
{
	struct search_ui *su = ui->sui;

	su->fver++;
	if (!su->text[0])
		return;
	srch_free(su->s);
	su->s = NULL;
	search_sb_free(su->sb);
	su->sb = NULL;
	srch_pred_free(su->pred);
	su->pred = NULL;
	su->nsnap = 0;
	su->snap_final = 0;
	su->note = NULL;
	su->pending = 0;
}

/* n or N (@rev) @count times for a search made under another filter: the
 * same text searched again under this one, from the cursor, its first hit
 * the first step. */
static int search_ui_redo(struct ui *ui, int rev, uint64_t count)
{
	struct search_ui *su = ui->sui;
	char *text = search_ui_printf("%s", su->text);
	int dir = su->dir, draw;
	uint64_t at = ui->cursor;

	draw = search_ui_search(ui, text, rev ? -dir : dir);
	free(text);
	su->dir = dir;	/* n and N go on as first asked */
	if (search_ui_stale(su))
		return draw;	/* refused (said why) */
	if (count < 2 || (!su->s && !su->sb))
		return draw;
	if (ui->cursor != at)
		return draw | (su->sb ? search_ui_sb_again(ui, rev, count - 1) :
			       search_ui_again(ui, rev, count - 1));
	if (su->s) {
		/* from its first hit, once known (search_ui_poll()) */
		su->pending = count - 1;
		su->pending_rev = rev;
	}
	return draw;
}

/* The steps of a count of @count that matter on search @s: all of them
 * until it has counted every hit (more hits are coming: a count cut to
 * the hits found so far stopped short, '3*' on the second hit when the
 * first was all a busy machine had; a stopped search's are not all);
 * after, a count past every hit goes round again and only its rest
 * matters. */
static uint64_t search_ui_rest(struct srch *s, uint64_t count)
{
	struct srch_status st;

	srch_status(s, &st);
	if (st.finished && !st.status && st.nhits && count > st.nhits)
		count = (count - 1) % st.nhits + 1;
	return count;
}

/* Hits the last search does not hold: @left of n's (@rev 0) or N's steps
 * in direction @d from the cursor (which moved @moved steps).  A finished
 * search (at its most hits kept, or stopped) searches again from the
 * cursor, keeping its count if it is whole, and the steps left go on
 * from the new one's first hit (search_ui_poll()); a running one does not
 * know them yet.  Returns UI_DRAW_*. */
static int search_ui_beyond(struct ui *ui, int rev, int d, uint64_t left, uint64_t moved)
{
	struct search_ui *su = ui->sui;
	struct srch_status st;
	int draw, busy;

	srch_status(su->s, &st);
	if (!st.finished) {
		/* the rest once their hits are known (search_ui_go_pending()) */
		search_ui_add_pending(su, rev, left);
		if (moved)
			msg_report(ui, UI_INFO, "searching: went %" PRIu64 " of %" PRIu64
				   "; %" PRIu64 " to go, the next hit is not known yet", moved,
				   moved + left, left);
		else
			search_ui_say_pending(ui);
		return UI_DRAW_STATUS | (moved ? UI_DRAW_ALL : 0);
	}
	if (st.status && st.status != -pte_canceled) {
		/* (its error said once; not searched again round by round) */
		msg_report(ui, UI_ERROR, "search: %s", pte_strerror(st.status));
		return UI_DRAW_STATUS;
	}
	draw = search_ui_run_known(ui, ui->cursor, d, !st.status ? st.nhits : 0);
	if (!su->s)
		return draw;	/* (said why) */
	su->pending = left - 1;
	su->pending_rev = rev;
	if (ui->headless && su->pending) {
		/* a script sees where the count ends, so its keys are
		 * repeatable */
		srch_wait(su->s);
		draw |= search_ui_poll(ui, &busy);
	}
	return draw;
}

/* n (@rev 0) or N (@rev 1), @count times. */
static int search_ui_again(struct ui *ui, int rev, uint64_t count)
{
	struct search_ui *su = ui->sui;
	uint64_t off, hit, left, moved = 0;
	int d, r = 0, wrapped, any_wrap = 0, draw = UI_DRAW_NONE;

	if (su && search_ui_stale(su))
		return search_ui_redo(ui, rev, count);
	if (su && su->sb)
		return search_ui_sb_again(ui, rev, count);
	if (!su || !su->pred) {
		msg_report(ui, UI_ERROR, "no previous search ('/' starts one)");
		return UI_DRAW_STATUS;
	}
	if (su->s && (!su->jumped || su->pending) && search_ui_ahead(ui, rev, count, 0))
		return UI_DRAW_STATUS;
	su->pending = 0;
	d = rev ? -su->dir : su->dir;
	if (!su->s)
		return search_ui_run(ui, ui->cursor, d);
	off = ui->cursor;
	left = search_ui_rest(su->s, count);
	while (left) {
		r = srch_next_hit(su->s, off, d, &hit, &wrapped);
		if (r == 1 && ui->headless) {
			/* A script waits for the search to know. */
			srch_wait(su->s);
			left = search_ui_rest(su->s, left);
			r = srch_next_hit(su->s, off, d, &hit, &wrapped);
		}
		if (r)
			break;
		off = hit;
		left--;
		moved++;
		if (wrapped)	/* only a finished search wraps */
			left = search_ui_rest(su->s, left);
		any_wrap |= wrapped;
	}
	if (r == -pte_eos && off == ui->cursor) {
		search_ui_not_found(ui);
		return UI_DRAW_STATUS;
	}
	if (off != ui->cursor) {
		nav_jump(ui, off);
		if (any_wrap)
			search_ui_wrapped(ui, d);
		else
			search_ui_hit_message(ui);
		draw = UI_DRAW_ALL;
	}
	/* past the hits it holds: on from here */
	return left && r == 1 ? draw | search_ui_beyond(ui, rev, d, left, moved) : draw;
}

/* C-s or C-r while a search prompt is open (emacs isearch): search for
 * the line typed in direction @dir; an empty one repeats the last. */
static int search_ui_prompt_again(struct ui *ui, int dir)
{
	/* elsewhere (a : line, an i-search begun) readline's own C-s and
	 * C-r: the history search PROMPT COMMANDS documents */
	if (!rl_line_buffer || RL_ISSTATE(RL_STATE_ISEARCH) ||
	    (rl_line_buffer[0] != '/' && rl_line_buffer[0] != '?'))
		return prompt_key(ui, dir > 0 ? 19 : 18);
	rl_line_buffer[0] = dir > 0 ? '/' : '?';
	return prompt_key(ui, '\r');
}

/* / and ?: with no pattern from a key, the prompt; C-s and C-r at an
 * open search prompt search on (emacs). */
static int search_ui_dir_cmd(struct ui *ui, const struct cmd_args *a)
{
	int dir = a->action == ACTION_SEARCH_BACKWARD ? -1 : 1;

	if (!a->raw[0] && a->res && a->res->nkeys) {
		if (prompt_is_open(ui))
			return search_ui_prompt_again(ui, dir);
		prompt_open(ui, dir > 0 ? "/" : "?");
		return UI_DRAW_ALL;
	}
	return search_ui_search(ui, a->raw, dir);
}

static int search_ui_search_cmd(struct ui *ui, const struct cmd_args *a)
{
	return search_ui_search(ui, a->raw, 1);
}

static int search_ui_again_cmd(struct ui *ui, const struct cmd_args *a)
{
	return search_ui_again(ui, a->action == ACTION_SEARCH_REVERSE,
			       (uint64_t)cmd_steps(a));
}

static int search_ui_filter_cmd(struct ui *ui, const struct cmd_args *a)
{
	if (!a->raw[0] && a->res && a->res->nkeys) {
		prompt_open(ui, "&");
		return UI_DRAW_ALL;
	}
	return search_ui_filter(ui, a->raw);
}

static int search_ui_highlight_cmd(struct ui *ui, const struct cmd_args *a)
{
	struct search_ui *su = search_ui_get(ui);

	su->hl = !su->hl;
	msg_report(ui, UI_INFO, "search highlight %s", su->hl ? "on" : "off");
	return UI_DRAW_ALL;
}

/* As vim's '*' searches for the word under the cursor: a search for the
 * cursor's packet type, over the whole trace in the background (index
 * and byte scan), after which 'n' and 'N' go on; on an IP packet whose
 * whole IP is known, for that type at that IP ("tip 0x401000": where
 * else the trace went there; "/tip" is the type alone).  On an error
 * row, the next error. */
static int search_ui_same_type_cmd(struct ui *ui, const struct cmd_args *a)
{
	int dir = a->action == ACTION_PREV_SAME_TYPE ? -1 : 1;
	uint64_t n = (uint64_t)cmd_steps(a);
	struct win_row row;
	char text[64];
	enum pkt_type t;

	if (nav_cursor_row(ui, &row))
		return UI_DRAW_NONE;
	if (row.flags & WIN_F_ERROR)
		return nav_error(ui, dir, n);
	t = row.pkt.type;
	if ((t == PKT_TIP || t == PKT_TIP_PGE || t == PKT_TIP_PGD || t == PKT_FUP) &&
	    (row.flags & WIN_F_HAVE_IP) && !(row.flags & WIN_F_IP_SUPP)) {
		snprintf(text, sizeof(text), "%s 0x%" PRIx64, pkt_type_name(t), row.ip);
		return search_ui_type(ui, text, dir, n);
	}
	return search_ui_type(ui, pkt_type_name(t), dir, n);
}

/* "; 2 n not taken" for the steps pending that a stop drops, in @buf. */
static const char *search_ui_dropped(const struct search_ui *su, char *buf, size_t n)
{
	if (!su->pending)
		return "";
	snprintf(buf, n, "; %" PRIu64 " %s not taken", su->pending, su->pending_rev ? "N" : "n");
	return buf;
}

int search_ui_stop(struct ui *ui)
{
	struct search_ui *su = ui->sui;
	struct srch_status st;
	char note[64];

	if (walk_stop(ui) || goto_job_stop(ui) || export_job_stop(ui) || search_ui_fstop(ui))
		return 1;
	if (su && su->fs) {
		srch_cancel(su->fs);
		srch_wait(su->fs);
		srch_status(su->fs, &st);
		srch_free(su->fs);
		su->fs = NULL;
		su->fstopped = 1;
		msg_report(ui, UI_WARN, "filter: stopped looking for more %s rows, %.0f%% "
			   "of the way (C-c)", su->ftext,
			   st.total ? 100.0 * (double)st.done / (double)st.total : 0);
		return 1;
	}
	if (su && search_sb_cancel(su->sb)) {
		msg_report(ui, UI_WARN, "search stopped (C-c)%s", search_ui_dropped(su, note,
										sizeof(note)));
		su->pending = 0;
		return 1;
	}
	if (!su || !su->s)
		return 0;
	srch_status(su->s, &st);
	if (st.finished)
		return 0;
	srch_cancel(su->s);
	srch_wait(su->s);
	srch_status(su->s, &st);
	su->reported = 1;
	msg_report(ui, UI_WARN, "search stopped at %.0f%%: %" PRIu64 " hits so far%s",
		   st.total ? 100.0 * (double)st.done / (double)st.total : 0, st.nhits,
		   search_ui_dropped(su, note, sizeof(note)));
	su->pending = 0;	/* a count's search on past the kept hits */
	return 1;
}

static const struct cmd_row search_ui_rows[] = {
	{ ACTION_SEARCH_FORWARD, search_ui_dir_cmd, CMD_RAW, 0, 0 },
	{ ACTION_SEARCH_BACKWARD, search_ui_dir_cmd, CMD_RAW, 0, 0 },
	{ ACTION_SEARCH, search_ui_search_cmd, CMD_RAW, 0, 0 },
	{ ACTION_SEARCH_AGAIN, search_ui_again_cmd, CMD_NONE, 0, 0 },
	{ ACTION_SEARCH_REVERSE, search_ui_again_cmd, CMD_NONE, 0, 0 },
	{ ACTION_FILTER, search_ui_filter_cmd, CMD_RAW, 0, 0 },
	{ ACTION_TOGGLE_HIGHLIGHT, search_ui_highlight_cmd, CMD_NONE, 0, 0 },
	{ ACTION_NEXT_SAME_TYPE, search_ui_same_type_cmd, CMD_NONE, 0, 0 },
	{ ACTION_PREV_SAME_TYPE, search_ui_same_type_cmd, CMD_NONE, 0, 0 },
};

CMD_TABLE(search_ui_cmds, search_ui_rows);

int search_ui_type(struct ui *ui, const char *type, int dir, uint64_t count)
{
	struct search_ui *su = ui->sui;
	uint64_t at = ui->cursor;
	int draw;

	if (!count)
		count = 1;
	/* Already searching for it: go on, as 'n' or 'N' would. */
	if (su && su->pred && !su->fpred && !strcmp(su->text, type))
		return search_ui_again(ui, dir != su->dir, count);
	draw = search_ui_search(ui, type, dir);
	/* The first hit is where the new search landed, if it did; the
	 * rest go from there once it does (search_ui_ahead()). */
	su = ui->sui;
	if (count > 1 && su && su->s && (ui->cursor != at || !su->jumped))
		draw |= search_ui_again(ui, 0, count - 1);
	return draw;
}

int search_ui_text(struct ui *ui, const char *text, int dir)
{
	return search_ui_search(ui, text, dir);
}

/* The n and N steps pending from the first hit the search landed on
 * (typed ahead of it, search_ui_ahead(); a count's past the hits kept,
 * search_ui_beyond()): those whose hits are known, now; once it has
 * @finished, the rest (search_ui_again() wraps and goes beyond).  @landed:
 * it landed on the first hit just now (its message stays, a wrap's). */
static int search_ui_go_pending(struct ui *ui, int finished, int landed)
{
	struct search_ui *su = ui->sui;
	uint64_t left = su->pending, off = ui->cursor, hit;
	int d = su->pending_rev ? -su->dir : su->dir, wrapped = 0;

	if (finished) {
		su->pending = 0;
		return search_ui_again(ui, su->pending_rev, left);
	}
	/* (a running search does not wrap: the hits known in a row) */
	while (left && !srch_next_hit(su->s, off, d, &hit, &wrapped)) {
		off = hit;
		left--;
	}
	if (off == ui->cursor && !landed)
		return UI_DRAW_NONE;
	su->pending = left;
	if (off != ui->cursor)
		nav_jump(ui, off);
	if (left || !landed)
		search_ui_say_pending(ui);	/* (a landing's message stays) */
	return UI_DRAW_ALL;
}

int search_ui_poll(struct ui *ui, int *busy)
{
	struct search_ui *su = ui->sui;
	struct srch_status st;
	int draw = UI_DRAW_NONE, landed = 0;

	*busy = 0;
	/* (a :goto's long look, which C-c stops as it stops a search, and
	 * an :export's copy) */
	draw |= nav_poll(ui, busy);	/* (a long segment's decode) */
	draw |= goto_job_poll(ui, busy);
	draw |= export_job_poll(ui, busy);
	if (!su)
		return draw;
	if (search_ui_fon(su) && su->cstate == 1 && su->cgen == su->fgen &&
	    su->ctop == ui->top && !su->fstopped) {
		/* The filter view is still looking for a screen of rows. */
		if (su->fs) {
			draw |= search_ui_fpoll(ui, busy);
		} else {
			search_ui_fill(ui, (size_t)(ui->rows > 0 ? ui->rows : 1), 1);
			*busy = 1;
			draw |= UI_DRAW_PANES | UI_DRAW_STATUS;
		}
	}
	if (su->sb)
		return draw | search_ui_sb_poll(ui, busy);
	if (!su->s)
		return draw;
	search_ui_snap(su);
	srch_status(su->s, &st);
	if (!st.finished || !su->snap_final)
		*busy = su->jumped ? 1 : 2;
	if (!su->jumped && st.have_first) {
		su->jumped = landed = 1;
		nav_jump(ui, st.first);
		if (st.first_wrapped)
			search_ui_wrapped(ui, su->sdir);
		else
			search_ui_hit_message(ui);
		draw |= UI_DRAW_ALL;
	}
	if (st.finished && !su->reported) {
		su->reported = 1;
		if (st.status == -pte_sigbus)
			ui->worker_sigbus = 1;	/* the file shrank */
		else if (st.status && st.status != -pte_canceled)
			msg_report(ui, UI_ERROR, "search: %s", pte_strerror(st.status));
		else if (!st.nhits && st.status != -pte_canceled)
			search_ui_not_found(ui);
		draw |= UI_DRAW_ALL;
	}
	if (su->jumped && su->pending)
		draw |= search_ui_go_pending(ui, st.finished, landed);
	if (!st.finished)
		draw |= UI_DRAW_STATUS | UI_DRAW_TIMELINE | (su->hl ? UI_DRAW_PANES : 0);
	return draw;
}

void search_ui_wait(struct ui *ui)
{
	int busy;

	goto_job_wait(ui);
	export_job_wait(ui);
	if (ui->sui && ui->sui->s)
		srch_wait(ui->sui->s);
	if (ui->sui && ui->sui->sb)
		search_sb_wait(ui->sui->sb);
	search_ui_poll(ui, &busy);
}

/* The first snapshot index with an offset >= @off. */
static size_t search_ui_lower(const struct search_ui *su, uint64_t off)
{
	size_t a = 0, b = su->nsnap;

	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (su->snap[m] < off)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

/* Copy the search's kept hits, sorted, for highlighting, ranks and the
 * timeline: srch_hits() looks at every kept hit, so it runs once per poll
 * rather than once per row. */
static void search_ui_snap(struct search_ui *su)
{
	struct srch_status st;

	if (!su->s || su->snap_final)
		return;
	srch_status(su->s, &st);
	if (st.nkept > su->capsnap) {
		uint64_t *n = realloc(su->snap, st.nkept * sizeof(*n));

		if (!n)
			return;
		su->snap = n;
		su->capsnap = st.nkept;
	}
	su->nsnap = st.nkept ? srch_hits(su->s, 0, UINT64_MAX, su->snap, st.nkept) : 0;
	su->snap_final = st.finished;
}

/* The hit next to @off, before it (@dir < 0) or after it (@dir > 0),
 * for certain: the search's where it knows (its hits up to where it has
 * searched without a gap), else a look at about a screen's budget of
 * packets there; UINT64_MAX in *@out if there is none.  Returns 0, or 1
 * if neither knows yet. */
static int search_ui_adjacent(struct ui *ui, uint64_t off, int dir, uint64_t *out)
{
	struct search_ui *su = ui->sui;
	uint64_t resume;
	struct pkt p;
	int wrapped, r;

	r = srch_next_hit(su->s, off, dir, out, &wrapped);
	if (r == -pte_eos || (!r && wrapped)) {
		*out = UINT64_MAX;
		return 0;
	}
	if (!r)
		return 0;
	if (dir > 0)
		r = srch_filter_next(su->pred, ui->img, ui->idx, off + 1, SUI_FILTER_BUDGET,
				     &p, &resume);
	else
		r = srch_filter_prev(su->pred, ui->img, ui->idx, off, SUI_FILTER_BUDGET,
				     &p, &resume);
	if (r == -pte_eos) {
		*out = UINT64_MAX;
		return 0;
	}
	if (r)
		return 1;
	*out = p.offset;
	return 0;
}

int search_ui_hits_near(struct ui *ui, uint64_t off, uint64_t *prev, uint64_t *hit,
			uint64_t *next)
{
	struct search_ui *su = ui->sui;
	struct srch_status st;
	uint64_t h;
	size_t i;
	int r;

	if (su && su->sb) {
		/* a search by terms: its hits once it has ended */
		r = search_sb_row(su->sb, off + 1, -1, hit);
		if (r == -pte_eos)
			r = search_sb_row(su->sb, off, 1, hit);
		if (r)
			return r == 1 ? 1 : -1;
		*prev = search_sb_row(su->sb, *hit, -1, &h) ? UINT64_MAX : h;
		*next = search_sb_row(su->sb, *hit + 1, 1, &h) ? UINT64_MAX : h;
		return 0;
	}
	if (!su || !su->s || !su->pred)
		return -1;
	srch_status(su->s, &st);
	if (st.finished && !st.nhits && !st.status)
		return -1;
	/* The search goes to its first hit: that is the one meant. */
	if (!su->jumped && !st.finished)
		return 1;
	/* Hits found so far are not all the hits: one found far away must
	 * not stand for the ones near @off that are not found yet. */
	search_ui_snap(su);
	i = search_ui_lower(su, off);
	/* not known yet; an ended search (stopped, or at its most hits)
	 * will not know them either */
	r = st.finished ? 2 : 1;
	if (i < su->nsnap && su->snap[i] == off)
		*hit = off;
	else if (search_ui_adjacent(ui, off + 1, -1, hit))
		return r;
	if (*hit == UINT64_MAX && search_ui_adjacent(ui, off, 1, hit))
		return r;
	if (*hit == UINT64_MAX)
		return -1;
	if (search_ui_adjacent(ui, *hit, -1, prev) || search_ui_adjacent(ui, *hit, 1, next))
		return r;
	return 0;
}

/* The most columns a search's or a filter's text takes on the status
 * line: a longer one loses its middle, so that its rank and what else
 * the line says still show. */
#define SEARCH_UI_STATUS_COLS 40

/* @text cut to SEARCH_UI_STATUS_COLS columns into @out (of @size). */
static const char *search_ui_short(struct ui *ui, const char *text, char *out, size_t size)
{
	char *t = strdup(text ? text : "");

	if (!t) {
		snprintf(out, size, "%.*s", SEARCH_UI_STATUS_COLS, text ? text : "");
		return out;
	}
	screen_mid_cut(t, strlen(t) + 1, SEARCH_UI_STATUS_COLS, screen_glyph(ui, "…", "..."));
	snprintf(out, size, "%s", t);
	free(t);
	return out;
}

/* The filter's part of the status line ("  filter: ovf (looking 3%)")
 * into @buf, "" without one. */
static void search_ui_fstatus(struct ui *ui, char *buf, size_t size)
{
	struct search_ui *su = ui->sui;
	struct srch_status st;
	char looking[48] = " (looking...)", ftext[4 * SEARCH_UI_STATUS_COLS + 8];

	buf[0] = 0;
	if (!su || !search_ui_fon(su))
		return;
	search_ui_short(ui, su->ftext, ftext, sizeof(ftext));
	if (su->fsb)	/* the filter's terms: their search's */
		search_ui_flooking(ui, looking, sizeof(looking));
	if (su->fs) {
		srch_status(su->fs, &st);
		snprintf(looking, sizeof(looking), " (looking %.0f%%, C-c stops)",
			 st.total ? 100.0 * (double)st.done / (double)st.total : 0);
	}
	snprintf(buf, size, "  filter: %s%s", ftext,
		 su->fstopped && su->cgen == su->fgen ? " (stopped)" :
		 su->cstate == 1 && su->cgen == su->fgen ? looking :
		 su->cstate < 0 && !su->nrows ? " (none below)" : "");
}

/* The search's part of the status line (search_ui_status()). */
static size_t search_ui_status_of(struct ui *ui, char *buf, size_t size, char *filt,
				  size_t fsize)
{
	struct search_ui *su = ui->sui;
	struct srch_status st;
	char text[4 * SEARCH_UI_STATUS_COLS + 8];
	size_t len = 0;
	int r;

	if (!size)
		return 0;
	buf[0] = 0;
	if (filt && fsize)
		search_ui_fstatus(ui, filt, fsize);
	/* a long segment's decode or a :goto's long look, the thing
	 * waited for now */
	len = walk_status(ui, buf, size);
	if (!len)
		len = goto_job_status(ui, buf, size);
	if (len || !su)
		return len;
	search_ui_short(ui, su->text, text, sizeof(text));
	if (su->sb) {
		uint64_t done, total;
		size_t n, rank;
		int fin, sst;
		char pos[32] = "-";

		search_sb_progress(su->sb, &done, &total, &n, &fin, &sst);
		rank = search_sb_rank(su->sb, ui->cursor);
		if (rank)
			snprintf(pos, sizeof(pos), "%zu", rank);
		if (fin)
			r = snprintf(buf, size, "  %c%s [%s/%s%zu]%s", su->dir > 0 ? '/' : '?',
				     text, pos, su->approx ? "~" : "", n,
				     sst == -pte_canceled ? " stopped" : "");
		else
			r = snprintf(buf, size, "  %c%s %.0f%%", su->dir > 0 ? '/' : '?',
				     text, total ? 100.0 * (double)done / (double)total : 0);
		len = r < 0 ? 0 : (size_t)r >= size ? size - 1 : (size_t)r;
	} else if (su->s && su->pred) {
		char pos[32] = "-";

		search_ui_snap(su);
		srch_status(su->s, &st);
		/* The cursor's rank among the hits, once all are found and
		 * all of them are kept. */
		if (st.finished && su->snap_final && st.nkept == st.nhits &&
		    search_ui_is_hit(ui, ui->cursor))
			snprintf(pos, sizeof(pos), "%zu", search_ui_lower(su, ui->cursor) + 1);
		/* (~: a gap's count without the time pass, an estimate) */
		r = snprintf(buf, size, "  %c%s [%s/%s%" PRIu64 "%s]", su->dir > 0 ? '/' : '?',
			     text, pos, su->approx ? "~" : "", st.nhits,
			     st.finished || st.count_known ? "" : "+");
		len = r < 0 ? 0 : (size_t)r >= size ? size - 1 : (size_t)r;
		if (!st.finished && len < size) {
			r = snprintf(buf + len, size - len, " %.0f%%",
				     st.total ? 100.0 * (double)st.done / (double)st.total : 0);
			len += r < 0 ? 0 : (size_t)r >= size - len ? size - len - 1 : (size_t)r;
		} else if (st.status == -pte_canceled && len < size) {
			r = snprintf(buf + len, size - len, " stopped");
			len += r < 0 ? 0 : (size_t)r >= size - len ? size - len - 1 : (size_t)r;
		}
	} else if (search_ui_stale(su)) {
		/* made under another filter: n searches it again */
		r = snprintf(buf, size, "  %c%s", su->dir > 0 ? '/' : '?', text);
		len = r < 0 ? 0 : (size_t)r >= size ? size - 1 : (size_t)r;
	}
	return len;
}

size_t search_ui_status(struct ui *ui, char *buf, size_t size, char *filt, size_t fsize)
{
	size_t len = search_ui_status_of(ui, buf, size, filt, fsize);

	/* an :export's copy beside the search's rank, not instead of it */
	if (size && len < size - 1)
		len += export_job_status(ui, buf + len, size - len);
	return len;
}

int search_ui_is_hit(struct ui *ui, uint64_t off)
{
	struct search_ui *su = ui->sui;
	size_t i;

	if (su && su->sb)
		return su->hl && search_sb_rank(su->sb, off) > 0;
	if (!su || !su->s || !su->hl)
		return 0;
	i = search_ui_lower(su, off);
	return i < su->nsnap && su->snap[i] == off;
}

void search_ui_tl_marks(struct ui *ui, int y, int x, uint64_t lo, uint64_t hi,
			size_t max, int (*col_of)(struct ui *ui, uint64_t off, void *arg),
			void *arg)
{
	struct search_ui *su = ui->sui;
	uint64_t h, a, b;
	size_t k, i;
	int last = -1, c;
	cchar_t cc;
	wchar_t wch[CCHARW_MAX + 1];
	attr_t attrs;
	short pair;

	if (!su || (!su->s && !su->sb) || !su->hl || hi <= lo || !max)
		return;
	/* The first hit in each of @max slices of the range: bounded work,
	 * spread over the whole range. */
	attrset(screen_attr(ui, SC_MARK));
	for (k = 0; k < max; k++) {
		a = lo + (uint64_t)((double)(hi - lo) * (double)k / (double)max);
		b = lo + (uint64_t)((double)(hi - lo) * (double)(k + 1) / (double)max);
		if (k + 1 == max)
			b = hi;
		if (su->sb) {
			/* a search by terms: its hits once it has ended */
			if (b <= a || search_sb_row(su->sb, a, 1, &h) || h >= b)
				continue;
		} else {
			i = search_ui_lower(su, a);
			if (b <= a || i >= su->nsnap || su->snap[i] >= b)
				continue;
			h = su->snap[i];
		}
		c = col_of(ui, h, arg);
		if (c < 0 || c == last)
			continue;
		last = c;
		/* The viewport, troubles and marks stay on top; PSB ticks
		 * do not. */
		if (mvwin_wch(stdscr, y, x + c, &cc) == ERR ||
		    getcchar(&cc, wch, &attrs, &pair, NULL) == ERR ||
		    (attrs & A_REVERSE) ||
		    (wch[0] != L' ' && wch[0] != L'\'' && wch[0] != L'\u2575'))
			continue;
		screen_put(y, x + c, 1, screen_glyph(ui, "·", "."));
	}
	attrset(A_NORMAL);
}

void search_ui_free(struct ui *ui)
{
	struct search_ui *su = ui->sui;

	walk_free(ui);		/* it reads the mapping and the windows */
	goto_job_free(ui);
	export_job_free(ui);	/* it reads the mapping too */
	if (!su)
		return;
	srch_free(su->s);
	search_sb_free(su->sb);
	srch_free(su->fs);
	search_sb_free(su->fsb);
	search_code_flush();	/* its decoders read the code context */
	srch_pred_free(su->pred);
	srch_pred_free(su->fpred);
	free(su->snap);
	free(su->text);
	free(su->ftext);
	free(su);
	ui->sui = NULL;
}
