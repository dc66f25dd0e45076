/* search_ui -- background search, n/N, the filter view and highlighting. */
#include <ctype.h>
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wchar.h>

#include <readline/readline.h>

#include "search.h"
#include "search_ui.h"
#include "trace.h"
#include "ui.h"

/* Bytes the filter view decodes per call (a screen, a cursor move). */
#define SUI_FILTER_BUDGET (4u << 20)
/* Bytes a cursor move in the filter view looks at before giving up. */
#define SUI_MOVE_BUDGET (64u << 20)
/* Rows of the filter view's screen cache. */
#define SUI_ROWS 512

struct search_ui {
	/* the last search */
	struct srch *s;			/* running or finished; NULL if none */
	struct srch_pred *pred;		/* its predicate */
	char text[256];			/* as typed, without "-b" */
	int dir;			/* as asked: 1 forward, -1 backward */
	int sdir;			/* the direction of s itself */
	int jumped;			/* went to its first hit */
	int reported;			/* told how it ended */
	int hl;				/* highlight hits (M-u) */
	uint64_t *snap;			/* the kept hits, sorted (search_ui_snap()) */
	size_t nsnap, capsnap;
	int snap_final;			/* taken after the search ended */
	const char *note;		/* the P1 estimate's note, until the
					 * first hit shows it; NULL if none */

	/* the filter view */
	struct srch_pred *fpred;	/* NULL: no filter */
	char ftext[256];
	unsigned fgen;			/* bumped when the filter changes */
	unsigned cgen;			/* the filter the cache is for */
	uint64_t ctop;			/* the top the cache is for */
	uint64_t rows[SUI_ROWS];	/* matching rows from ctop */
	size_t nrows;
	uint64_t resume;		/* where to go on looking */
	int cstate;			/* 1 looking, 0 enough, -1 the end */
	uint64_t fseen;			/* the cursor search_ui_fsnap() last saw */
	/* Past one budget of work, the next matching row is looked for in
	 * the background on all cores (a rare filter on a big trace took
	 * minutes a budget per turn), with progress, stopped by C-c. */
	struct srch *fs;		/* looking from resume; NULL if not */
	int fstopped;			/* C-c stopped it: no more rows */
};

static struct search_ui *search_ui_get(struct ui *ui)
{
	if (!ui->sui) {
		ui->sui = calloc(1, sizeof(*ui->sui));
		if (!ui->sui) {
			endwin();
			fprintf(stderr, "ptbrowse: out of memory\n");
			exit(1);
		}
		ui->sui->hl = 1;
	}
	return ui->sui;
}

static void search_ui_sleep_ms(int ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
}

/* "search hit BOTTOM, continuing at TOP" for direction @dir. */
static void search_ui_wrapped(struct ui *ui, int dir)
{
	ui_message(ui, UI_WARN, dir > 0 ? "search hit BOTTOM, continuing at TOP"
					: "search hit TOP, continuing at BOTTOM");
}

/* Parse @text into a predicate with the trace's timing; errors go to the
 * message line prefixed with @what.  Returns NULL on error. */
static struct srch_pred *search_ui_parse(struct ui *ui, const char *what, const char *text)
{
	struct srch_pred *pred = NULL;
	char err[256] = "";
	int r;

	r = srch_parse(text, &pred, err, sizeof(err));
	if (r < 0) {
		ui_message(ui, UI_ERROR, "%s: %s", what, err[0] ? err : pte_strerror(r));
		return NULL;
	}
	srch_pred_set_config(pred, &ui->tmcfg);
	return pred;
}

/* The message line at a hit: the P1 estimate's note once, else empty. */
static void search_ui_hit_message(struct ui *ui)
{
	struct search_ui *su = ui->sui;

	if (su->note) {
		/* Said where the estimate decided the hit. */
		ui_message(ui, UI_INFO, "%s", su->note);
		su->note = NULL;
	} else {
		ui->msg[0] = 0;
	}
}

/* "pattern not found", saying when the filter narrowed the search. */
static void search_ui_not_found(struct ui *ui)
{
	struct search_ui *su = ui->sui;

	if (su->fpred)
		ui_message(ui, UI_ERROR, "pattern not found: %s (among the filter's %s)",
			   su->text, su->ftext);
	else
		ui_message(ui, UI_ERROR, "pattern not found: %s", su->text);
}

/* Start a background search for the last predicate from @from in @dir. */
static int search_ui_run(struct ui *ui, uint64_t from, int dir)
{
	struct search_ui *su = ui->sui;
	struct srch_opts o = { 0 };
	struct srch_status st;
	int r;

	srch_free(su->s);
	su->s = NULL;
	o.guard = trace_guard;
	r = srch_start_opts(&su->s, ui->img, ui->idx, su->pred, from, dir, &o);
	if (r < 0) {
		su->s = NULL;
		ui_message(ui, UI_ERROR, "search: %s", r == -pte_no_calib ?
			   "a gap in time units needs the TSC frequency (--tsc-freq, --cpu)" :
			   pte_strerror(r));
		return UI_DRAW_STATUS;
	}
	su->sdir = dir;
	su->jumped = 0;
	su->reported = 0;
	su->nsnap = 0;
	su->snap_final = 0;
	ui_message(ui, UI_INFO, "searching %s%s (C-c stops)%s%s", dir > 0 ? "/" : "?", su->text,
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

static int search_ui_again(struct ui *ui, int rev, uint64_t count);
static void search_ui_snap(struct search_ui *su);

/* A new search for @text ("-b" first: backward) in direction @dir. */
static int search_ui_search(struct ui *ui, const char *text, int dir)
{
	struct search_ui *su = search_ui_get(ui);
	struct srch_pred *pred;

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
		if (!su->pred) {
			ui_message(ui, UI_ERROR, "search: no previous pattern");
			return UI_DRAW_STATUS;
		}
		su->dir = dir;
		return search_ui_again(ui, 0, 1);
	}
	pred = search_ui_parse(ui, "search", text);
	if (!pred)
		return UI_DRAW_STATUS;
	if (su->fpred) {
		/* In the filter view, search among the rows shown (less). */
		char both[600];
		struct srch_pred *p2;

		snprintf(both, sizeof(both), "(%s) & (%s)", su->ftext, text);
		p2 = search_ui_parse(ui, "search", both);
		if (p2) {
			srch_pred_free(pred);
			pred = p2;
		}
	}
	srch_free(su->s);
	su->s = NULL;
	srch_pred_free(su->pred);
	su->pred = pred;
	su->note = srch_pred_uses_time(pred) ? status_estimate_note(ui) : "";
	if (!su->note[0])
		su->note = NULL;
	snprintf(su->text, sizeof(su->text), "%s", text);
	su->dir = dir;
	return search_ui_run(ui, ui->cursor, dir);
}

/* n (@rev 0) or N (@rev 1), @count times. */
static int search_ui_again(struct ui *ui, int rev, uint64_t count)
{
	struct search_ui *su = ui->sui;
	uint64_t off, hit;
	int d, r = 0, wrapped, any_wrap = 0;
	struct srch_status st;

	if (!su || !su->pred) {
		ui_message(ui, UI_ERROR, "no previous search ('/' starts one)");
		return UI_DRAW_STATUS;
	}
	d = rev ? -su->dir : su->dir;
	if (!su->s)
		return search_ui_run(ui, ui->cursor, d);
	off = ui->cursor;
	/* A count past every hit goes round again: only its rest matters. */
	srch_status(su->s, &st);
	if (st.nhits && count > st.nhits)
		count = st.finished && st.nkept == st.nhits ?
			(count - 1) % st.nhits + 1 : st.nhits;
	while (count--) {
		r = srch_next_hit(su->s, off, d, &hit, &wrapped);
		if (r == 1 && ui->headless) {
			/* A script waits for the search to know. */
			srch_wait(su->s);
			r = srch_next_hit(su->s, off, d, &hit, &wrapped);
		}
		if (r)
			break;
		off = hit;
		any_wrap |= wrapped;
	}
	if (off != ui->cursor) {
		nav_jump(ui, off);
		if (any_wrap)
			search_ui_wrapped(ui, d);
		else
			search_ui_hit_message(ui);
		return UI_DRAW_ALL;
	}
	if (r == -pte_eos) {
		search_ui_not_found(ui);
		return UI_DRAW_STATUS;
	}
	srch_status(su->s, &st);
	if (r == 1 && !st.finished && st.nhits) {
		ui_message(ui, UI_INFO, "searching: the next hit is not known yet");
		return UI_DRAW_STATUS;
	}
	if (r == 1 && !st.finished) {
		ui_message(ui, UI_INFO, "searching %.0f%%...",
			   st.total ? 100.0 * (double)st.done / (double)st.total : 0);
		return UI_DRAW_STATUS;
	}
	/* Not kept (too many hits), or the search was stopped: search again
	 * from here. */
	return search_ui_run(ui, ui->cursor, d);
}

/* Set the filter to @text; empty clears it. */
static int search_ui_filter(struct ui *ui, const char *text)
{
	struct search_ui *su = search_ui_get(ui);
	struct srch_pred *pred;
	struct pkt hit;
	uint64_t resume, budget;
	int r;

	while (isspace((unsigned char)*text))
		text++;
	if (!*text) {
		if (su->fpred)
			ui_message(ui, UI_INFO, "filter off: all packets");
		srch_free(su->fs);
		su->fs = NULL;
		srch_pred_free(su->fpred);
		su->fpred = NULL;
		su->fgen++;
		nav_fix_view(ui);
		return UI_DRAW_ALL;
	}
	pred = search_ui_parse(ui, "filter", text);
	if (!pred)
		return UI_DRAW_STATUS;
	srch_free(su->fs);	/* it reads the old predicate */
	su->fs = NULL;
	srch_pred_free(su->fpred);
	su->fpred = pred;
	su->fgen++;
	snprintf(su->ftext, sizeof(su->ftext), "%s", text);
	su->fseen = UINT64_MAX;
	/* The view starts at the first match from the cursor on; one not
	 * found within a screen's budget is looked for in the background
	 * (search_ui_fill()), a script's at once. */
	budget = ui->headless ? SUI_MOVE_BUDGET : SUI_FILTER_BUDGET;
	r = srch_filter_next(pred, ui->img, ui->idx, ui->cursor, budget, &hit, &resume);
	if (!r) {
		ui->cursor = ui->top = hit.offset;
	} else if (r == -pte_eos) {
		r = srch_filter_prev(pred, ui->img, ui->idx, ui->cursor, budget,
				     &hit, &resume);
		if (r) {
			ui_message(ui, UI_WARN, "filter: no %s packets%s", text,
				   r == 1 ? " nearby (still looking)" : "");
			ui->top = ui->cursor;
		} else {
			ui->cursor = ui->top = hit.offset;
		}
	} else {
		ui->top = ui->cursor;
	}
	return UI_DRAW_ALL;
}

/* Look for the filter's next row from su->resume in the background. */
static void search_ui_flook(struct ui *ui)
{
	struct search_ui *su = ui->sui;
	struct srch_opts o = { 0 };

	o.guard = trace_guard;
	o.no_wrap = 1;
	o.max_hits = 64;
	/* "after" its start: the packet at resume is searched too */
	if (srch_start_opts(&su->fs, ui->img, ui->idx, su->fpred,
			    su->resume ? su->resume - 1 : 0, 1, &o) < 0)
		su->fs = NULL;	/* go on a budget at a time */
}

/* The filter view's screen cache: at least @want rows from ui->top, with
 * one budget of work if more are needed (@more 0: only if the cache is for
 * another top or filter, so both panes show the same rows); past that, a
 * background search looks for the next row (search_ui_flook()). */
static void search_ui_fill(struct ui *ui, size_t want, int more)
{
	struct search_ui *su = ui->sui;
	struct pkt pk[64];
	size_t got, i, n;
	uint64_t resume;
	int r;

	if (want > SUI_ROWS)
		want = SUI_ROWS;
	if (su->cgen != su->fgen || su->ctop != ui->top) {
		su->cgen = su->fgen;
		su->ctop = ui->top;
		su->nrows = 0;
		su->resume = ui->top;
		su->cstate = 1;
		su->fstopped = 0;
		srch_free(su->fs);
		su->fs = NULL;
	} else if (!more) {
		return;
	}
	if (su->nrows >= want || su->cstate < 0 || su->fs || su->fstopped)
		return;
	n = want - su->nrows;
	if (n > sizeof(pk) / sizeof(pk[0]))
		n = sizeof(pk) / sizeof(pk[0]);
	got = 0;
	r = srch_filter_fill(su->fpred, ui->img, ui->idx, su->resume, 1, SUI_FILTER_BUDGET,
			     pk, n, &got, &resume);
	for (i = 0; i < got && su->nrows < SUI_ROWS; i++)
		su->rows[su->nrows++] = pk[i].offset;
	if (r == 1)
		su->resume = resume;
	else if (r == 0 && got)
		su->resume = pk[got - 1].offset + 1;
	su->cstate = r < 0 ? -1 : su->nrows >= want ? 0 : 1;
	/* A script fills synchronously, so its screens are repeatable. */
	if (r == 1 && su->cstate == 1 && !ui->headless)
		search_ui_flook(ui);
}

/* The background look of the filter view: once it knows the next row (or
 * that there is none), fill on from there.  Returns UI_DRAW_*. */
static int search_ui_fpoll(struct ui *ui, int *busy)
{
	struct search_ui *su = ui->sui;
	struct srch_status st;

	srch_status(su->fs, &st);
	if (!st.finished && !st.have_first) {
		*busy = 2;
		return UI_DRAW_STATUS;
	}
	if (st.have_first)
		su->resume = st.first;
	else if (st.status == -pte_sigbus)
		ui->worker_sigbus = 1;	/* the file shrank */
	else if (!st.status)
		su->cstate = -1;	/* no more below */
	srch_free(su->fs);
	su->fs = NULL;
	if (su->cstate == 1)
		search_ui_fill(ui, (size_t)(ui->rows > 0 ? ui->rows : 1), 1);
	*busy = su->cstate == 1 ? 2 : 0;
	return UI_DRAW_PANES | UI_DRAW_STATUS;
}

/* In the filter view the cursor is on a matching row: after a jump
 * elsewhere (goto, a search hit, a PSB), move it to the next match and
 * show that.  Returns UI_DRAW_*. */
static int search_ui_fsnap(struct ui *ui)
{
	struct search_ui *su = ui->sui;
	size_t h = (size_t)nav_view_rows(ui), i;
	struct pkt hit;
	uint64_t resume;

	search_ui_fill(ui, h, 1);
	for (i = 0; i < su->nrows && i < h; i++)
		if (su->rows[i] == ui->cursor)
			break;
	if (i == su->nrows || i == h) {
		if (srch_filter_next(su->fpred, ui->img, ui->idx, ui->cursor, SUI_MOVE_BUDGET,
				     &hit, &resume))
			goto out;
		ui->cursor = hit.offset;
		for (i = 0; i < su->nrows && i < h; i++)
			if (su->rows[i] == ui->cursor)
				break;
		if (i == su->nrows || i == h)
			ui->top = ui->cursor;
	}
out:
	su->fseen = ui->cursor;
	return UI_DRAW_ALL;
}

int search_ui_row_first(struct ui *ui, struct win_iter *it, int *i)
{
	struct search_ui *su = ui->sui;

	*i = 0;
	if (!su || !su->fpred)
		return !win_seek(it, ui->wc, ui->top);
	if (ui->cursor != su->fseen)
		search_ui_fsnap(ui);
	search_ui_fill(ui, (size_t)(ui->rows > 0 ? ui->rows : 1), 0);
	/* A script sees whole screens, so its screens are repeatable. */
	while (ui->headless && su->cstate == 1)
		search_ui_fill(ui, (size_t)(ui->rows > 0 ? ui->rows : 1), 1);
	return search_ui_row_next(ui, it, i);
}

int search_ui_row_next(struct ui *ui, struct win_iter *it, int *i)
{
	struct search_ui *su = ui->sui;

	if (!su || !su->fpred)
		return !win_next(it);
	while ((size_t)*i < su->nrows) {
		if (!win_seek(it, ui->wc, su->rows[(*i)++]))
			return 1;
	}
	return 0;
}

/* Move @n matching packets from @off (negative: back).  Returns the
 * offset reached; *@short_ tells the budget ran out first. */
static uint64_t search_ui_fstep(struct ui *ui, uint64_t off, long n, int *short_)
{
	struct search_ui *su = ui->sui;
	struct pkt pk[64];
	size_t got, i;
	uint64_t resume, from;
	int r;

	*short_ = 0;
	ui->interrupted = 0;
	for (i = 0; n; i++) {
		size_t k = (size_t)(n > 0 ? n : -n);

		/* A huge count walks the whole trace: C-c stops it. */
		if (i && !(i % 64) && ui_key_waiting(ui) && ui->interrupted) {
			ui_message(ui, UI_WARN, "filter: move interrupted (C-c)");
			break;
		}
		if (k > 64)
			k = 64;
		from = n > 0 ? off + 1 : off;
		got = 0;
		r = srch_filter_fill(su->fpred, ui->img, ui->idx, from, n > 0 ? 1 : -1,
				     SUI_MOVE_BUDGET, pk, k, &got, &resume);
		if (got)
			off = pk[got - 1].offset;
		n += n > 0 ? -(long)got : (long)got;
		if (r == 1 && got < k) {
			*short_ = 1;
			break;
		}
		if (r < 0 || !got)
			break;
	}
	return off;
}

/* Cursor moves in the filter view: @lines rows for the cursor, @view rows
 * for the top. */
static int search_ui_fmove(struct ui *ui, long lines, long view)
{
	struct search_ui *su = ui->sui;
	int h = nav_view_rows(ui), s1 = 0, s2 = 0;
	size_t i;

	ui->cursor = search_ui_fstep(ui, ui->cursor, lines, &s1);
	if (view && !ui->interrupted)
		ui->top = search_ui_fstep(ui, ui->top, view, &s2);
	if (s1 || s2)
		ui_message(ui, UI_WARN, "filter: no %s within %u MiB (again to look further)",
			   su->ftext, SUI_MOVE_BUDGET >> 20);
	/* Keep the cursor inside the view. */
	if (ui->cursor < ui->top) {
		ui->top = ui->cursor;
		return UI_DRAW_ALL;
	}
	search_ui_fill(ui, (size_t)h, 1);
	for (i = 0; i < su->nrows && i < (size_t)h; i++)
		if (su->rows[i] == ui->cursor)
			return UI_DRAW_ALL;
	if (su->nrows >= (size_t)h && ui->cursor > su->rows[h - 1])
		ui->top = search_ui_fstep(ui, ui->cursor, -(long)(h - 1), &s2);
	return UI_DRAW_ALL;
}

/* g and G in the filter view: the first or the last match (@end > 0). */
static int search_ui_fends(struct ui *ui, int end)
{
	struct search_ui *su = ui->sui;
	struct pkt hit;
	uint64_t resume;
	int r, s;

	r = end > 0 ? srch_filter_prev(su->fpred, ui->img, ui->idx, ui->img->size,
				       SUI_MOVE_BUDGET, &hit, &resume)
		    : srch_filter_next(su->fpred, ui->img, ui->idx, 0, SUI_MOVE_BUDGET,
				       &hit, &resume);
	if (r) {
		ui_message(ui, UI_WARN, "filter: no %s %s", su->ftext, r == 1 ?
			   "within the first (or last) 64 MiB" : "at all");
		return UI_DRAW_STATUS;
	}
	nav_jump(ui, hit.offset);
	ui->top = end > 0 ? search_ui_fstep(ui, hit.offset, -(long)(nav_view_rows(ui) - 1), &s)
			  : hit.offset;
	return UI_DRAW_ALL;
}

/* C-s or C-r while a search prompt is open (emacs isearch): search for
 * the line typed in direction @dir; an empty one repeats the last. */
static int search_ui_prompt_again(struct ui *ui, int dir)
{
	if (!rl_line_buffer || (rl_line_buffer[0] != '/' && rl_line_buffer[0] != '?'))
		return UI_DRAW_NONE;
	rl_line_buffer[0] = dir > 0 ? '/' : '?';
	return prompt_key(ui, '\r');
}

int search_ui_action(struct ui *ui, const struct km_result *res)
{
	struct search_ui *su = ui->sui;
	long n = ui_count(res);
	int h = nav_view_rows(ui);
	struct srch_status st;

	switch (res->action) {
	case ACTION_SEARCH_FORWARD:
	case ACTION_SEARCH_BACKWARD: {
		int dir = res->action == ACTION_SEARCH_FORWARD ? 1 : -1;

		if (!res->args[0] && res->nkeys) {
			if (prompt_is_open(ui))
				return search_ui_prompt_again(ui, dir);
			prompt_open(ui, dir > 0 ? "/" : "?");
			return UI_DRAW_ALL;
		}
		return search_ui_search(ui, res->args, dir);
	}
	case ACTION_SEARCH:
		return search_ui_search(ui, res->args, 1);
	case ACTION_SEARCH_AGAIN:
	case ACTION_SEARCH_REVERSE:
		return search_ui_again(ui, res->action == ACTION_SEARCH_REVERSE, (uint64_t)n);
	case ACTION_FILTER:
		if (!res->args[0] && res->nkeys) {
			prompt_open(ui, "&");
			return UI_DRAW_ALL;
		}
		return search_ui_filter(ui, res->args);
	case ACTION_TOGGLE_HIGHLIGHT:
		su = search_ui_get(ui);
		su->hl = !su->hl;
		ui_message(ui, UI_INFO, "search highlight %s", su->hl ? "on" : "off");
		return UI_DRAW_ALL;
	case ACTION_INTERRUPT:
		if (su && su->fs) {
			srch_cancel(su->fs);
			srch_wait(su->fs);
			srch_status(su->fs, &st);
			srch_free(su->fs);
			su->fs = NULL;
			su->fstopped = 1;
			ui_message(ui, UI_WARN, "filter: stopped looking for more %s rows, %.0f%% "
				   "of the way (C-c)", su->ftext,
				   st.total ? 100.0 * (double)st.done / (double)st.total : 0);
			return UI_DRAW_ALL;
		}
		if (!su || !su->s)
			return UI_NOT_MINE;
		srch_status(su->s, &st);
		if (st.finished)
			return UI_NOT_MINE;
		srch_cancel(su->s);
		srch_wait(su->s);
		srch_status(su->s, &st);
		su->reported = 1;
		ui_message(ui, UI_WARN, "search stopped at %.0f%%: %" PRIu64 " hits so far",
			   st.total ? 100.0 * (double)st.done / (double)st.total : 0, st.nhits);
		return UI_DRAW_ALL;
	default:
		break;
	}
	if (!su || !su->fpred)
		return UI_NOT_MINE;
	switch (res->action) {
	case ACTION_GOTO_START:
	case ACTION_GOTO_END:
		if (res->has_count)
			return UI_NOT_MINE;
		return search_ui_fends(ui, res->action == ACTION_GOTO_START ? -1 : 1);
	case ACTION_CURSOR_DOWN: return search_ui_fmove(ui, n, 0);
	case ACTION_CURSOR_UP: return search_ui_fmove(ui, -n, 0);
	case ACTION_PAGE_DOWN: return search_ui_fmove(ui, n * h, n * h);
	case ACTION_PAGE_UP: return search_ui_fmove(ui, -n * h, -n * h);
	case ACTION_HALFPAGE_DOWN: return search_ui_fmove(ui, n * (h / 2), n * (h / 2));
	case ACTION_HALFPAGE_UP: return search_ui_fmove(ui, -n * (h / 2), -n * (h / 2));
	default:
		return UI_NOT_MINE;
	}
}

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
	/* The first hit is where the new search landed, if it did. */
	if (count > 1 && ui->sui && ui->sui->s && ui->cursor != at)
		draw |= search_ui_again(ui, 0, count - 1);
	return draw;
}

int search_ui_command(struct ui *ui, const char *line)
{
	switch (line[0]) {
	case '/': return search_ui_search(ui, line + 1, 1);
	case '?': return search_ui_search(ui, line + 1, -1);
	case '&': return search_ui_filter(ui, line + 1);
	default: return UI_NOT_MINE;
	}
}

int search_ui_poll(struct ui *ui, int *busy)
{
	struct search_ui *su = ui->sui;
	struct srch_status st;
	int draw = UI_DRAW_NONE;

	*busy = 0;
	if (!su)
		return draw;
	if (su->fpred && su->cstate == 1 && su->cgen == su->fgen && su->ctop == ui->top &&
	    !su->fstopped) {
		/* The filter view is still looking for a screen of rows. */
		if (su->fs) {
			draw |= search_ui_fpoll(ui, busy);
		} else {
			search_ui_fill(ui, (size_t)(ui->rows > 0 ? ui->rows : 1), 1);
			*busy = 1;
			draw |= UI_DRAW_PANES | UI_DRAW_STATUS;
		}
	}
	if (!su->s)
		return draw;
	search_ui_snap(su);
	srch_status(su->s, &st);
	if (!st.finished || !su->snap_final)
		*busy = su->jumped ? 1 : 2;
	if (!su->jumped && st.have_first) {
		su->jumped = 1;
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
			ui_message(ui, UI_ERROR, "search: %s", pte_strerror(st.status));
		else if (!st.nhits && st.status != -pte_canceled)
			search_ui_not_found(ui);
		draw |= UI_DRAW_ALL;
	}
	if (!st.finished)
		draw |= UI_DRAW_STATUS | UI_DRAW_TIMELINE | (su->hl ? UI_DRAW_PANES : 0);
	return draw;
}

void search_ui_wait(struct ui *ui)
{
	int busy;

	if (ui->sui && ui->sui->s)
		srch_wait(ui->sui->s);
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

size_t search_ui_status(struct ui *ui, char *buf, size_t size)
{
	struct search_ui *su = ui->sui;
	struct srch_status st;
	size_t len = 0;
	int r;

	if (!su || !size)
		return 0;
	buf[0] = 0;
	if (su->s && su->pred) {
		char pos[32] = "-";

		search_ui_snap(su);
		srch_status(su->s, &st);
		/* The cursor's rank among the hits, once all are found and
		 * all of them are kept. */
		if (st.finished && su->snap_final && st.nkept == st.nhits &&
		    search_ui_is_hit(ui, ui->cursor))
			snprintf(pos, sizeof(pos), "%zu", search_ui_lower(su, ui->cursor) + 1);
		r = snprintf(buf, size, "  %c%s [%s/%" PRIu64 "%s]", su->dir > 0 ? '/' : '?',
			     su->text, pos, st.nhits, st.finished ? "" : "+");
		len = r < 0 ? 0 : (size_t)r >= size ? size - 1 : (size_t)r;
		if (!st.finished && len < size) {
			r = snprintf(buf + len, size - len, " %.0f%%",
				     st.total ? 100.0 * (double)st.done / (double)st.total : 0);
			len += r < 0 ? 0 : (size_t)r >= size - len ? size - len - 1 : (size_t)r;
		} else if (st.status == -pte_canceled && len < size) {
			r = snprintf(buf + len, size - len, " stopped");
			len += r < 0 ? 0 : (size_t)r >= size - len ? size - len - 1 : (size_t)r;
		}
	}
	if (su->fpred && len + 1 < size) {
		char looking[48] = " (looking...)";

		if (su->fs) {
			srch_status(su->fs, &st);
			snprintf(looking, sizeof(looking), " (looking %.0f%%, C-c stops)",
				 st.total ? 100.0 * (double)st.done / (double)st.total : 0);
		}
		r = snprintf(buf + len, size - len, "  filter: %s%s", su->ftext,
			     su->fstopped && su->cgen == su->fgen ? " (stopped)" :
			     su->cstate == 1 && su->cgen == su->fgen ? looking :
			     su->cstate < 0 && !su->nrows ? " (none below)" : "");
		len += r < 0 ? 0 : (size_t)r >= size - len ? size - len - 1 : (size_t)r;
	}
	return len;
}

int search_ui_is_hit(struct ui *ui, uint64_t off)
{
	struct search_ui *su = ui->sui;
	size_t i;

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

	if (!su || !su->s || !su->hl || hi <= lo || !max)
		return;
	/* The first hit in each of @max slices of the range: bounded work,
	 * spread over the whole range. */
	attrset(screen_attr(ui, SC_MARK));
	for (k = 0; k < max; k++) {
		a = lo + (uint64_t)((double)(hi - lo) * (double)k / (double)max);
		b = lo + (uint64_t)((double)(hi - lo) * (double)(k + 1) / (double)max);
		if (k + 1 == max)
			b = hi;
		i = search_ui_lower(su, a);
		if (b <= a || i >= su->nsnap || su->snap[i] >= b)
			continue;
		h = su->snap[i];
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

	if (!su)
		return;
	srch_free(su->s);
	srch_free(su->fs);
	srch_pred_free(su->pred);
	srch_pred_free(su->fpred);
	free(su->snap);
	free(su);
	ui->sui = NULL;
}
