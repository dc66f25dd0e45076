/* search_ui_filter -- the filter view (&EXPR, :filter): the panes show
 * only matching rows, found a screen at a time with bounded work, then in
 * the background. */
#include <ctype.h>
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "nav.h"
#include "search.h"
#include "search_ui.h"
#include "search_ui_int.h"
#include "term.h"
#include "trace.h"
#include "ui.h"

/* Set the filter to @text; empty clears it. */
int search_ui_filter(struct ui *ui, const char *text)
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
			msg_report(ui, UI_INFO, "filter off: all packets");
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
			msg_report(ui, UI_WARN, "filter: no %s packets%s", text,
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
void search_ui_fill(struct ui *ui, size_t want, int more)
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
int search_ui_fpoll(struct ui *ui, int *busy)
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
		if (i && !(i % 64) && term_key_waiting(ui) && ui->interrupted) {
			msg_report(ui, UI_WARN, "filter: move interrupted (C-c)");
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
		msg_report(ui, UI_WARN, "filter: no %s within %u MiB (again to look further)",
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
		msg_report(ui, UI_WARN, "filter: no %s %s", su->ftext, r == 1 ?
			   "within the first (or last) 64 MiB" : "at all");
		return UI_DRAW_STATUS;
	}
	nav_jump(ui, hit.offset);
	ui->top = end > 0 ? search_ui_fstep(ui, hit.offset, -(long)(nav_view_rows(ui) - 1), &s)
			  : hit.offset;
	return UI_DRAW_ALL;
}


int search_ui_filtering(const struct ui *ui)
{
	return ui->sui && ui->sui->fpred;
}

int search_ui_filter_move(struct ui *ui, enum action a, long n)
{
	int h = nav_view_rows(ui);

	switch (a) {
	case ACTION_GOTO_START: return search_ui_fends(ui, -1);
	case ACTION_GOTO_END: return search_ui_fends(ui, 1);
	case ACTION_CURSOR_DOWN: return search_ui_fmove(ui, n, 0);
	case ACTION_CURSOR_UP: return search_ui_fmove(ui, -n, 0);
	case ACTION_PAGE_DOWN: return search_ui_fmove(ui, n * h, n * h);
	case ACTION_PAGE_UP: return search_ui_fmove(ui, -n * h, -n * h);
	case ACTION_HALFPAGE_DOWN: return search_ui_fmove(ui, n * (h / 2), n * (h / 2));
	case ACTION_HALFPAGE_UP: return search_ui_fmove(ui, -n * (h / 2), -n * (h / 2));
	default: return UI_DRAW_NONE;
	}
}

