/* search_ui_filter -- the filter view (&EXPR, :filter): the panes show
 * only matching rows, found a screen at a time with bounded work, then in
 * the background.
 *
 * A packet expression is tested packet by packet (srch_filter_*()).
 * Sideband and code terms (src/ctxterm.h) need the whole stream looked at
 * first (the task ranges from the sideband, the instructions from the
 * flow), so they run as a search of the stream in the background
 * (search_sb.h; progress on the status line, C-c stops); its rows are then
 * its hits (code terms, switch, a packet expression inside the task's
 * ranges) or, for comm, pid and tid alone, every packet of the ranges. */
#include <ctype.h>
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "code.h"
#include "ctx.h"
#include "ctxterm.h"
#include "msg.h"
#include "nav.h"
#include "search.h"
#include "search_code.h"
#include "search_sb.h"
#include "search_ui.h"
#include "search_ui_int.h"
#include "term.h"
#include "trace.h"
#include "ui.h"

int search_ui_fon(const struct search_ui *su)
{
	return su && (su->fpred || su->fsb);
}

/* The last packet of ranges @r (@n) before @off, or the first at or
 * after it (@dir > 0), by the window cache's rows.  Returns 0 and sets
 * *@hit, or -pte_eos. */
static int sf_range_row(struct ui *ui, const struct ctx_range *r, size_t n,
			uint64_t off, int dir, uint64_t *hit)
{
	struct win_iter it = { 0 };
	size_t lo = 0, hi = n, mid;
	uint64_t a;
	int ret = -pte_eos;

	while (lo < hi) {	/* the first range ending after @off */
		mid = lo + (hi - lo) / 2;
		if (r[mid].to <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; dir > 0 && lo < n && ret; lo++) {
		a = off > r[lo].from ? off : r[lo].from;
		if (win_seek(&it, ui->wc, a))
			break;
		if (win_row(&it)->pkt.offset < a && win_next(&it))
			break;
		if (win_row(&it)->pkt.offset < r[lo].to) {
			*hit = win_row(&it)->pkt.offset;
			ret = 0;
		}
	}
	for (lo = lo < n && r[lo].from < off ? lo + 1 : lo; dir < 0 && lo > 0 && ret; lo--) {
		a = off < r[lo - 1].to ? off : r[lo - 1].to;	/* rows before a */
		if (!a || win_seek(&it, ui->wc, a - 1))
			break;
		if (win_row(&it)->pkt.offset >= r[lo - 1].from) {
			*hit = win_row(&it)->pkt.offset;
			ret = 0;
		}
	}
	win_iter_release(&it);
	return ret;
}

/* The filter's first row at or after @off (@dir > 0), or its last row
 * before @off, looking at about @budget bytes.  Returns 0 and sets *@hit;
 * 1 if not known within the budget (go on from *@resume) or before the
 * terms' search ends; -pte_eos if there is none. */
static int sf_next(struct ui *ui, uint64_t off, int dir, uint64_t budget,
		   uint64_t *hit, uint64_t *resume)
{
	struct search_ui *su = ui->sui;
	const struct ctx_range *r;
	struct pkt pk;
	size_t n;
	int ret;

	*resume = off;
	if (!su->fsb) {
		ret = dir > 0 ? srch_filter_next(su->fpred, ui->img, ui->idx, off, budget,
						 &pk, resume) :
				srch_filter_prev(su->fpred, ui->img, ui->idx, off, budget,
						 &pk, resume);
		if (!ret)
			*hit = pk.offset;
		return ret;
	}
	if (!su->franges)
		return search_sb_row(su->fsb, off, dir, hit);
	if (search_sb_ranges_kept(su->fsb, &r, &n))
		return 1;
	return sf_range_row(ui, r, n, off, dir, hit);
}

/* Up to @n rows at or after @off (@dir > 0) in order, or before it
 * nearest first, into @out, as srch_filter_fill(): *@got of them; returns
 * 0 if @n were found, 1 if the budget ran out first (go on from
 * *@resume), -pte_eos at the end. */
static int sf_fill(struct ui *ui, uint64_t off, int dir, uint64_t budget,
		   uint64_t *out, size_t n, size_t *got, uint64_t *resume)
{
	struct search_ui *su = ui->sui;
	struct pkt pk[64];
	size_t i;
	int r = 0;

	*got = 0;
	if (!su->fsb) {
		if (n > sizeof(pk) / sizeof(pk[0]))
			n = sizeof(pk) / sizeof(pk[0]);
		r = srch_filter_fill(su->fpred, ui->img, ui->idx, off, dir, budget, pk, n,
				     got, resume);
		for (i = 0; i < *got; i++)
			out[i] = pk[i].offset;
		return r;
	}
	while (*got < n) {
		r = sf_next(ui, off, dir, budget, &out[*got], resume);
		if (r)
			return r;
		off = dir > 0 ? out[*got] + 1 : out[*got];
		(*got)++;
	}
	return 0;
}

/*
 * Show the filter's row @hit as the cursor's: a third of the way down the
 * screen, as a jump puts the cursor (nav.c), with the rows before it above
 * it (the top on @hit hid them: a filter opened mid-trace looked as if it
 * began there); near the last row, the screen filled from above, as G
 * does.  Each look is one call of at most 64 rows on @budget; what it
 * does not find is not shown above (the top comes nearer the cursor).
 */
static void sf_place(struct ui *ui, uint64_t hit, uint64_t budget)
{
	uint64_t pk[64], resume;
	size_t h = (size_t)nav_view_rows(ui), back = h / 3, got = 0;
	size_t max = sizeof(pk) / sizeof(pk[0]);

	ui->cursor = ui->top = hit;
	if (sf_fill(ui, hit, 1, budget, pk, h < max ? h : max, &got, &resume) == -pte_eos &&
	    got + back < h)
		back = h - got;
	if (back > max)
		back = max;
	got = 0;
	if (back)
		sf_fill(ui, hit, -1, budget, pk, back, &got, &resume);
	if (got)
		ui->top = pk[got - 1];
}

/* Set the filter's terms @ct with the packet expression @rest ("": none),
 * as typed @text: a search of the whole stream in the background gives
 * its rows.  Returns UI_DRAW_*. */
static int sf_terms(struct ui *ui, const char *text, const struct ctxterm *ct,
		    const char *rest)
{
	struct search_ui *su = ui->sui;
	struct srch_pred *pred = NULL;
	struct search_code *code = NULL;
	struct search_sb *sb;
	uint64_t at = ui->cursor;
	char err[256];

	if (rest[0] && !(pred = search_ui_parse(ui, "filter", rest)))
		return UI_DRAW_STATUS;
	if (ct->code && search_code_new(&code, code_imgset(ui), ct, err, sizeof(err)) < 0) {
		msg_report(ui, UI_ERROR, "filter: %s", code_imgset(ui) || !code_why(ui) ?
			   err : code_why(ui));
		srch_pred_free(pred);
		return UI_DRAW_STATUS;
	}
	/* the rows in offset order: searched from the start */
	ui->cursor = 0;
	if (search_sb_start(&sb, ui, ct, code, pred, 1) < 0) {
		ui->cursor = at;
		return UI_DRAW_STATUS;
	}
	ui->cursor = at;
	srch_free(su->fs);
	su->fs = NULL;
	srch_pred_free(su->fpred);
	su->fpred = NULL;
	search_sb_free(su->fsb);
	su->fsb = sb;
	su->franges = ct->has_filter && !ct->sw && !ct->code && !rest[0];
	su->fsb_seen = 0;
	su->fgen++;
	free(su->ftext);
	su->ftext = search_ui_printf("%s", text);
	search_ui_refilter(ui);
	su->fseen = UINT64_MAX;
	ui->top = ui->cursor;
	if (ui->headless)
		search_sb_wait(sb);
	return UI_DRAW_ALL;
}

/* Drop the filter (its search stopped). */
static void sf_drop(struct search_ui *su)
{
	srch_free(su->fs);
	su->fs = NULL;
	srch_pred_free(su->fpred);
	su->fpred = NULL;
	search_sb_free(su->fsb);
	su->fsb = NULL;
	su->fgen++;
}

/* Set the filter to @text; empty clears it. */
int search_ui_filter(struct ui *ui, const char *text)
{
	struct search_ui *su = search_ui_get(ui);
	struct srch_pred *pred;
	struct ctxterm ct;
	uint64_t resume, budget, hit;
	char *rest, err[256] = "";
	int r;

	while (isspace((unsigned char)*text))
		text++;
	if (!*text) {
		if (search_ui_fon(su)) {
			msg_report(ui, UI_INFO, "filter off: all packets");
			search_ui_refilter(ui);
		}
		sf_drop(su);
		nav_fix_view(ui);
		return UI_DRAW_ALL;
	}
	/* comm, pid, tid, switch, sym, call, ret: a search's (search_sb.h) */
	rest = malloc(CTXTERM_RESTLEN(strlen(text)));
	if (!rest) {
		msg_report(ui, UI_ERROR, "filter: %s", pte_strerror(-pte_nomem));
		return UI_DRAW_STATUS;
	}
	r = ctxterm_split(text, &ct, rest, CTXTERM_RESTLEN(strlen(text)), err, sizeof(err));
	if (r) {
		if (r < 0)
			msg_report(ui, UI_ERROR, "filter: %s", err);
		r = r < 0 ? UI_DRAW_STATUS : sf_terms(ui, text, &ct, rest);
		free(rest);
		return r;
	}
	free(rest);
	pred = search_ui_parse(ui, "filter", text);
	if (!pred)
		return UI_DRAW_STATUS;
	sf_drop(su);	/* the background look reads the old predicate */
	su->fpred = pred;
	free(su->ftext);
	su->ftext = search_ui_printf("%s", text);
	search_ui_refilter(ui);
	su->fseen = UINT64_MAX;
	/* The cursor goes to the first match from the cursor on, with the
	 * matches before it above it (sf_place()); one not found within a
	 * screen's budget is looked for in the background (search_ui_fill()),
	 * a script's at once. */
	budget = ui->headless ? SUI_MOVE_BUDGET : SUI_FILTER_BUDGET;
	r = sf_next(ui, ui->cursor, 1, budget, &hit, &resume);
	if (r == -pte_eos) {
		r = sf_next(ui, ui->cursor, -1, budget, &hit, &resume);
		if (r)
			msg_report(ui, UI_WARN, "filter: no %s packets%s", text,
				   r == 1 ? " nearby (still looking)" : "");
	}
	if (!r) {
		sf_place(ui, hit, budget);
		su->fseen = ui->cursor;	/* placed: no snap to redo it */
	} else {
		ui->top = ui->cursor;
	}
	return UI_DRAW_ALL;
}

int search_ui_fstop(struct ui *ui)
{
	struct search_ui *su = ui->sui;

	if (!su || !search_sb_cancel(su->fsb))
		return 0;
	su->fstopped = 1;
	msg_report(ui, UI_WARN, "filter: stopped looking for %s rows (C-c)", su->ftext);
	return 1;
}

const char *search_ui_flooking(struct ui *ui, char *buf, size_t size)
{
	struct search_ui *su = ui->sui;
	uint64_t done, total;
	size_t n;
	int fin, st;

	buf[0] = 0;
	if (!su || !su->fsb)
		return buf;
	search_sb_progress(su->fsb, &done, &total, &n, &fin, &st);
	if (!fin)
		snprintf(buf, size, " (looking %.0f%%, C-c stops)",
			 total ? 100.0 * (double)done / (double)total : 0);
	else if (st == -pte_canceled)
		snprintf(buf, size, " (stopped)");
	else if (st)
		snprintf(buf, size, " (%s)", pte_strerror(st));
	return buf;
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
	uint64_t pk[64], resume;
	size_t got, i, n;
	int r, fin;

	if (want > SUI_ROWS)
		want = SUI_ROWS;
	if (su->fsb && !su->fsb_seen) {
		/* the terms' search ended: the rows are known, the cursor
		 * goes to one (search_ui_fsnap()) */
		search_sb_progress(su->fsb, &resume, &resume, &got, &fin, &r);
		if (fin) {
			const struct ctx_range *kr;
			size_t nk = 0;

			su->fsb_seen = 1;
			su->fgen++;
			su->fseen = UINT64_MAX;
			if (su->franges)
				search_sb_ranges_kept(su->fsb, &kr, &nk);
			if (!r && !(su->franges ? nk : got))
				msg_report(ui, UI_WARN, "filter: no %s packets in this stream",
					   su->ftext);
		}
	}
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
	r = sf_fill(ui, su->resume, 1, SUI_FILTER_BUDGET, pk, n, &got, &resume);
	for (i = 0; i < got && su->nrows < SUI_ROWS; i++)
		su->rows[su->nrows++] = pk[i];
	if (r == 1)
		su->resume = resume;
	else if (r == 0 && got)
		su->resume = pk[got - 1] + 1;
	su->cstate = r < 0 ? -1 : su->nrows >= want ? 0 : 1;
	/* A script fills synchronously, so its screens are repeatable; the
	 * terms' rows come when their search ends. */
	if (r == 1 && su->cstate == 1 && !ui->headless && !su->fsb)
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
 * show that; a filter just set, or whose terms' rows just came, shows its
 * first row from the cursor on as a jump does (sf_place()).  Returns
 * UI_DRAW_*. */
static int search_ui_fsnap(struct ui *ui)
{
	struct search_ui *su = ui->sui;
	size_t h = (size_t)nav_view_rows(ui), i;
	uint64_t resume, hit;
	int r, fresh;

	search_ui_fill(ui, h, 1);
	fresh = su->fseen == UINT64_MAX;
	for (i = 0; i < su->nrows && i < h; i++)
		if (su->rows[i] == ui->cursor)
			break;
	if (fresh || i == su->nrows || i == h) {
		r = sf_next(ui, ui->cursor, 1, SUI_MOVE_BUDGET, &hit, &resume);
		/* none after: the last one before (the terms' rows are
		 * known at once) */
		if (r == -pte_eos && su->fsb)
			r = sf_next(ui, ui->cursor, -1, SUI_MOVE_BUDGET, &hit, &resume);
		if (r)
			goto out;
		ui->cursor = hit;
		for (i = 0; i < su->nrows && i < h; i++)
			if (su->rows[i] == ui->cursor)
				break;
		if (fresh || i == su->nrows || i == h)
			sf_place(ui, hit, SUI_MOVE_BUDGET);
	}
out:
	su->fseen = ui->cursor;
	return UI_DRAW_ALL;
}

int search_ui_row_first(struct ui *ui, struct win_iter *it, int *i)
{
	struct search_ui *su = ui->sui;

	*i = 0;
	if (!search_ui_fon(su))
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

	if (!search_ui_fon(su))
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
	uint64_t pk[64], resume, from;
	size_t got, i;
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
		r = sf_fill(ui, from, n > 0 ? 1 : -1, SUI_MOVE_BUDGET, pk, k, &got, &resume);
		if (got)
			off = pk[got - 1];
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
	uint64_t resume, hit;
	int r, s;

	r = end > 0 ? sf_next(ui, ui->img->size, -1, SUI_MOVE_BUDGET, &hit, &resume)
		    : sf_next(ui, 0, 1, SUI_MOVE_BUDGET, &hit, &resume);
	if (r) {
		msg_report(ui, UI_WARN, "filter: no %s %s", su->ftext, r == 1 && su->fsb ?
			   "known yet (still looking)" : r == 1 ?
			   "within the first (or last) 64 MiB" : "at all");
		return UI_DRAW_STATUS;
	}
	nav_jump(ui, hit);
	ui->top = end > 0 ? search_ui_fstep(ui, hit, -(long)(nav_view_rows(ui) - 1), &s)
			  : hit;
	return UI_DRAW_ALL;
}


int search_ui_filtering(const struct ui *ui)
{
	return search_ui_fon(ui->sui);
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

