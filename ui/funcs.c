/* funcs -- the function view: a range's call tree, built in the
 * background, as an outline with a bar per call path (see funcs.h). */
#include <curses.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calltree.h"
#include "cmd.h"
#include "code.h"
#include "ctx.h"
#include "ctjob.h"
#include "funcs.h"
#include "funcs_idx.h"
#include "funcs_sum.h"
#include "goto_ui.h"
#include "listnav.h"
#include "marks.h"
#include "marks_ui.h"
#include "msg.h"
#include "nav.h"
#include "pane_code.h"
#include "screen.h"
#include "status.h"
#include "symfmt.h"
#include "timefmt.h"
#include "trace.h"
#include "ui.h"

/* The bar's width, in cells. */
#define FV_BAR 10
/* Rows above the list: the title and the column heads. */
#define FV_HEAD 2
/* The cycles columns' width: funcs_cycles_str()'s widest. */
#define FV_CYC 14

/* What "s" sorts by, in enum ct_order's order. */
static const char *const fv_orders[] = { "cycles", "insns", "calls" };

/* The view's state (one browser per process). */
static struct {
	struct ctjob job;	/* the tree built or being built */
	int job_on;		/* job holds a started job (release it) */
	const struct img *img;	/* the stream it decodes */
	uint64_t from, to;	/* the range asked for (the job's decode
				 * starts at the PSB at or before from) */
	struct ctx_range keep;	/* the job's, if restricted */
	int nopsb;		/* no PSB before to: nothing decodable */
	char what[160];		/* "the window", "region NAME", ... */
	enum ct_order order;
	uint8_t *open;		/* per node: its children are shown */
	uint32_t *rows;		/* the nodes shown, in order */
	uint32_t *kids;		/* scratch for ct_children() */
	size_t nrows;
	int rows_valid;		/* rows match the tree, open and order */
	struct listnav nav;
} fv;

static const struct view_ops funcs_view;

int funcs_busy(const struct ui *ui)
{
	(void)ui;
	return (fv.job_on && !atomic_load(&fv.job.finished)) || funcs_sum_busy() ||
	       funcs_idx_busy();
}

/* Stop building the view's tree, free it and close the view. */
static void fv_drop(struct ui *ui)
{
	if (fv.job_on)
		ctjob_release(&fv.job);
	fv.job_on = 0;
	free(fv.open);
	free(fv.rows);
	free(fv.kids);
	fv.open = NULL;
	fv.rows = fv.kids = NULL;
	fv.nrows = 0;
	fv.rows_valid = 0;
	view_close(&ui->vs, &funcs_view);
}

void funcs_stop(struct ui *ui)
{
	/* the trees' jobs read the code index: they stop first */
	fv_drop(ui);
	funcs_sum_stop();
	funcs_idx_stop(ui);
}

int funcs_interrupt(struct ui *ui)
{
	if (!fv.job_on || atomic_load(&fv.job.finished))
		return 0;
	ctjob_cancel(&fv.job);
	msg_report(ui, UI_WARN, "function view: stopped; the tree is partial");
	return 1;
}

/* The tree, once built (partial after C-c), or NULL. */
static const struct ct *fv_tree(void)
{
	if (!fv.job_on || !atomic_load(&fv.job.finished))
		return NULL;
	return fv.job.ct;
}

/* Add node @n's children (sorted) to the rows, and theirs where open. */
static void fv_add(const struct ct *ct, uint32_t n)
{
	size_t nn = ct_nnodes(ct), k, i;
	uint32_t *mine;

	k = ct_children(ct, n, fv.order, fv.kids, nn);
	if (!k)
		return;
	/* fv.kids is reused further down: keep this level's copy */
	mine = malloc(k * sizeof(*mine));
	if (!mine)
		return;
	memcpy(mine, fv.kids, k * sizeof(*mine));
	for (i = 0; i < k; i++) {
		fv.rows[fv.nrows++] = mine[i];
		if (fv.open[mine[i]])
			fv_add(ct, mine[i]);
	}
	free(mine);
}

/* The rows shown: the open nodes' children, depth first. */
static void fv_rows(void)
{
	const struct ct *ct = fv_tree();

	if (fv.rows_valid)
		return;
	fv.nrows = 0;
	fv.rows_valid = 1;
	if (!ct || !fv.rows)
		return;
	fv_add(ct, CT_ROOT);
}

/* The tree is there: make the per-node arrays and open the first level
 * and the heavy paths (an eighth of the range's cycles, or of its
 * instructions where no cycles are known), so the first screen shows who
 * calls whom and where the time went. */
static void fv_tree_ready(void)
{
	const struct ct *ct = fv_tree();
	size_t nn, i;

	if (!ct || fv.open)
		return;
	nn = ct_nnodes(ct);
	fv.open = calloc(nn, 1);
	fv.rows = calloc(nn, sizeof(*fv.rows));
	fv.kids = calloc(nn, sizeof(*fv.kids));
	if (!fv.open || !fv.rows || !fv.kids)
		return;
	for (i = 0; i < nn; i++) {
		const struct ct_node *n = ct_node(ct, (uint32_t)i), *r = ct_node(ct, CT_ROOT);

		fv.open[i] = n->depth < 2 || (r->total.lo ? n->total.lo >= r->total.lo / 8 :
					       n->insns >= r->insns / 8);
	}
	fv.rows_valid = 0;
}

/* Start building the tree of [@from, @to), named @what.  Returns UI_DRAW_*. */
static int fv_start(struct ui *ui, uint64_t from, uint64_t to, const char *what)
{
	const struct imgset *set = code_imgset(ui);
	struct tm_carry carry;

	if (to > ui->img->size)
		to = ui->img->size;
	if (from >= to) {
		msg_report(ui, UI_ERROR, "funcs: an empty range (0x%" PRIx64 "-0x%" PRIx64 ")",
			   from, to);
		return UI_DRAW_STATUS;
	}
	if (!set || code_why(ui)) {
		msg_report(ui, UI_ERROR, "funcs: %s", code_why(ui) ? code_why(ui) :
			   "the images could not be loaded");
		return UI_DRAW_STATUS;
	}
	/* the same range again: the tree is there (unless it was made
	 * without the time model's state at its start, which the index now
	 * has: its first cycles are known now) */
	if (fv.job_on && atomic_load(&fv.job.finished) && !fv.job.result &&
	    fv.img == ui->img && fv.from == from && fv.to == to &&
	    (fv.job.have_carry || funcs_sum_carry(ui, fv.job.from, &carry))) {
		snprintf(fv.what, sizeof(fv.what), "%s", what);
		view_push(&ui->vs, &funcs_view, NULL);
		return UI_DRAW_ALL;
	}
	fv_drop(ui);
	memset(&fv.job, 0, sizeof(fv.job));
	fv.job.t = ui->trace;
	fv.job.stream = ui->stream_no;
	fv.job.set = set;
	fv.job.tm = &ui->tmcfg;
	fv.from = from;
	fv.to = to;
	funcs_sum_range(ui, &fv.job, &fv.keep, from, to, &fv.nopsb);
	fv.job.ci = funcs_idx(ui);
	fv.img = ui->img;
	snprintf(fv.what, sizeof(fv.what), "%s", what);
	fv.nav.sel = fv.nav.top = 0;
	if (ctjob_start(&fv.job) < 0) {
		msg_report(ui, UI_ERROR, "funcs: out of memory");
		return UI_DRAW_STATUS;
	}
	fv.job_on = 1;
	funcs_sum_settle(ui, &fv.job);
	view_push(&ui->vs, &funcs_view, NULL);
	return UI_DRAW_ALL;
}

/* The offset just past the last packet the screen shows: the packet
 * pane's last row, or in the code view the packet that decided its last
 * row (most of its rows are instructions). */
static uint64_t fv_window_end(struct ui *ui)
{
	struct win_iter it = { 0 };
	uint64_t end = ui->img->size;
	int n = nav_view_rows(ui);

	if (pane_code_on(ui))
		return pane_code_view_end(ui);
	if (win_seek(&it, ui->wc, ui->top))
		return end;
	while (n-- > 0)
		if (win_next(&it)) {
			win_iter_release(&it);
			return end;
		}
	end = win_row(&it)->pkt.offset;
	win_iter_release(&it);
	return end;
}

/* The screen's rows or a selection start anywhere, but a decode starts
 * at a PSB (where the decoder syncs): from the one at or before *@from,
 * which the index knows, so that the rows at the top are in the tree
 * (from the PSB after, a screen without a PSB had no instructions at
 * all).  Returns what the title adds to say so, "" if nothing moved. */
static const char *fv_from_psb(struct ui *ui, uint64_t *from)
{
	struct idx_seek sk;
	size_t seg;

	if (!ui->idx || idx_find(ui->idx, *from, &seg) || idx_seek(ui->idx, seg, &sk) ||
	    sk.offset >= *from)
		return "";
	*from = sk.offset;
	return ", from the PSB before it";
}

/* An offset @spec names, as :timeline-zoom reads it: a mark, bookmark,
 * region (its end with @end) or number (marks.h), else a goto target
 * ('a, 10%, +4KiB: goto_ui.h; one word each).  Returns 0, or -1 after
 * saying why and that no view opened: the next q would quit. */
static int fv_resolve(struct ui *ui, const char *spec, int end, uint64_t *off)
{
	char err[256];

	if (ui->bm && !marks_resolve(ui->bm, spec, end, off))
		return 0;
	if (!goto_ui_offset(ui, spec, off, err, sizeof(err)))
		return 0;
	msg_report(ui, UI_ERROR, "funcs: %s (no function view opened)", err);
	return -1;
}

/* :funcs                the selection (v), else the packet pane's rows
 * :funcs REGION         a region (a mark: from there to the end)
 * :funcs FROM TO        between two marks, regions' edges or offsets */
static int funcs_cmd(struct ui *ui, const struct cmd_args *a)
{
	uint64_t from, to;
	char what[160];

	if (a->argc > 3) {
		msg_report(ui, UI_ERROR, "usage: funcs [REGION | FROM TO] (no function "
			   "view opened)");
		return UI_DRAW_STATUS;
	}
	if (a->argc == 1 && marks_ui_visual(ui)) {
		marks_ui_selection(ui, &from, &to);
		marks_ui_cancel(ui);
		snprintf(what, sizeof(what), "the selection%s", fv_from_psb(ui, &from));
	} else if (a->argc == 1) {
		from = ui->top;
		to = fv_window_end(ui);
		snprintf(what, sizeof(what), "the window%s", fv_from_psb(ui, &from));
	} else if (a->argc == 2) {
		long i = ui->bm ? marks_find(ui->bm, a->argv[1]) : -1;

		if (fv_resolve(ui, a->argv[1], 0, &from))
			return UI_DRAW_STATUS;
		to = i >= 0 && marks_at(ui->bm, (size_t)i)->kind == BM_REGION ?
		     marks_at(ui->bm, (size_t)i)->to : ui->img->size;
		snprintf(what, sizeof(what), "%s %.100s", i >= 0 &&
			 marks_at(ui->bm, (size_t)i)->kind == BM_REGION ? "region" : "from",
			 a->argv[1]);
	} else {
		if (fv_resolve(ui, a->argv[1], 0, &from) ||
		    fv_resolve(ui, a->argv[2], 1, &to))
			return UI_DRAW_STATUS;
		if (to < from) {
			uint64_t t = to;

			to = from;
			from = t;
		}
		snprintf(what, sizeof(what), "%.60s to %.60s", a->argv[1], a->argv[2]);
	}
	return fv_start(ui, from, to, what);
}

/* Node @node's time into @buf: ns where the TSC frequency is known, else
 * ticks, after ct_time_mark()'s "~" (an estimate), or "?" alone where it
 * is unknown; ">=" before all where a call was still open at the range's
 * end (timed to its thread's last instruction: at least that).  One
 * estimate mark, as the cycle pane's cells: a frequency estimated from P1
 * is said by the heading ("time≈") and the title. */
static void fv_time(struct ui *ui, const struct ct *ct, uint32_t node, char *buf,
		    size_t size)
{
	uint64_t ticks = ct_node(ct, node)->tsc_ticks;
	const char *mark = ct_time_mark(ct, node);
	const char *least = ct_node(ct, node)->open ? ">=" : "";
	double ns = timefmt_tsc_diff(ui, 0, ticks);
	char t[40];

	if (!strcmp(mark, "?")) {
		snprintf(buf, size, "?");
		return;
	}
	if (isnan(ns)) {
		snprintf(buf, size, "%s%s%" PRIu64 "tk", least, mark, ticks);
		return;
	}
	timefmt_ns(t, sizeof(t), ns);
	snprintf(buf, size, "%s%s%s", least, mark, t);
}

/* @v in at most 5 columns into @buf: its digits below 100000, else three
 * significant digits and a unit (k, M, G, T, P, E), rounded down if @dir
 * is negative, up if positive, else to the nearest. */
static void fv_num(uint64_t v, int dir, char *buf, size_t size)
{
	static const char units[] = "kMGTPE";
	uint64_t u = 1000, s, n;
	int k = 0, dec;

	if (v < 100000) {
		snprintf(buf, size, "%" PRIu64, v);
		return;
	}
	while (v / u >= 1000 && k < 5)
		u *= 1000, k++;
	dec = v / u < 10 ? 2 : v / u < 100 ? 1 : 0;
	s = dec == 2 ? u / 100 : dec == 1 ? u / 10 : u;
	n = v / s;
	if (dir > 0 ? v % s != 0 : !dir && v % s >= s - s / 2)
		n++;
	/* rounded up to the next decade: 9.995k is 10.0k, 999.5k 1.00M */
	if (n >= 1000 && dec > 0)
		n /= 10, dec--;
	else if (n >= 1000 && k < 5)
		n /= 10, dec = 2, k++;
	if (dec)
		snprintf(buf, size, "%" PRIu64 ".%0*" PRIu64 "%c", n / (dec == 2 ? 100 : 10),
			 dec, n % (dec == 2 ? 100 : 10), units[k]);
	else
		snprintf(buf, size, "%" PRIu64 "%c", n, units[k]);
}

void funcs_cycles_str(const struct ct_sum *s, int width, char *buf, size_t size)
{
	char lo[24], hi[24];

	ct_sum_str(s, buf, size);
	if (!buf || !size || (int)strlen(buf) <= width || !s || !s->known)
		return;
	/* ct_sum_str()'s marks, its numbers scaled: a bound rounded
	 * outwards, so that the range still holds the count */
	if (s->flags & CT_S_OPEN) {
		fv_num(s->lo, -1, lo, sizeof(lo));
		snprintf(buf, size, "%s>=%s", s->flags & CT_S_SHARED ? "~" : "", lo);
	} else if ((s->flags & CT_S_BOUNDED) && s->hi != s->lo) {
		fv_num(s->lo, -1, lo, sizeof(lo));
		fv_num(s->hi, 1, hi, sizeof(hi));
		snprintf(buf, size, "%s%s-%s", s->flags & CT_S_SHARED ? "~" : "", lo, hi);
	} else {
		fv_num(s->lo, 0, lo, sizeof(lo));
		snprintf(buf, size, "%s%s", s->flags & CT_S_SHARED ? "~" : "", lo);
	}
	if ((s->unknown || (s->flags & CT_S_LOST)) && strlen(buf) + 2 < size)
		strcat(buf, "+?");
}

/* The bar of @n's share of the root: cycles where the root's are known,
 * else instructions (the title says which). */
static void fv_bar(struct ui *ui, const struct ct *ct, const struct ct_node *n,
		   char *buf, size_t size)
{
	const struct ct_node *root = ct_node(ct, CT_ROOT);
	double share;
	int w, i;
	size_t at = 0;

	if (root->total.lo)
		share = (double)n->total.lo / (double)root->total.lo;
	else
		share = root->insns ? (double)n->insns / (double)root->insns : 0;
	w = (int)lround(share * FV_BAR);
	buf[0] = 0;
	/* a share that rounds to no cell is not none: a thin bar, not a
	 * whole cell (a tenth of the range) */
	if (w == 0 && share > 0) {
		at = (size_t)snprintf(buf, size, "%s", screen_glyph(ui, "▏", "."));
		w = -1;
	}
	for (i = w < 0 ? 1 : 0; i < FV_BAR; i++)
		at += (size_t)snprintf(buf + at, size - at, "%s", i < w ?
				       screen_glyph(ui, "█", "#") : " ");
}

/* The number columns, in their order on a row; a narrow screen drops
 * some (fv_cols()). */
enum { FC_CALLS, FC_INSNS, FC_CYC, FC_SELF, FC_TIME, FC_BAR, FC_N };
static const int fv_colw[FC_N] = { 7, 10, FV_CYC, FV_CYC, 13, FV_BAR };
/* The columns a function's name wants beside them: an 80-column screen
 * kept 8 for the indentation, the sign and the name ("[u"). */
#define FV_NAME_ROOM 30
/* The name's own columns the indentation never takes. */
#define FV_NAME_MIN 20

/* The columns shown (a mask of 1 << FC_*) and the screen columns they
 * take into *@used: all where the name keeps FV_NAME_ROOM beside them;
 * else first those no node has a value in (cycles, self, time all '?'
 * on an untimed trace), then the least needed. */
static unsigned fv_cols(struct ui *ui, const struct ct *ct, int *used)
{
	static const int order[] = { FC_SELF, FC_TIME, FC_BAR, FC_INSNS, FC_CYC };
	enum { NORDER = sizeof(order) / sizeof(order[0]) };
	int cyc = 0, self = 0, tm = 0, k, w = 0;
	unsigned mask = (1u << FC_N) - 1;
	size_t i, nn = ct ? ct_nnodes(ct) : 0;

	for (k = 0; k < FC_N; k++)
		w += fv_colw[k] + 1;
	if (ui->cols - w >= FV_NAME_ROOM)
		goto out;
	for (i = 0; i < nn && !(cyc && self && tm); i++) {
		const struct ct_node *n = ct_node(ct, (uint32_t)i);

		cyc |= n->total.known != 0;
		self |= n->self.known != 0;
		tm |= strcmp(ct_time_mark(ct, (uint32_t)i), "?") != 0;
	}
	/* the first pass drops every column of '?', the second the least
	 * needed while the name is still short of room */
	for (k = 0; k < 2 * NORDER; k++) {
		int c = order[k % NORDER];
		int none = (c == FC_CYC && !cyc) || (c == FC_SELF && !self) ||
			   (c == FC_TIME && !tm);

		if (k >= NORDER && ui->cols - w >= FV_NAME_ROOM)
			break;
		if (!(mask & (1u << c)) || (k < NORDER && !none))
			continue;
		mask &= ~(1u << c);
		w -= fv_colw[c] + 1;
	}
out:
	*used = w;
	return mask;
}

/* The name's part of node @i's row (indentation, sign, name) into @buf,
 * in @room columns: the indentation capped (an ellipsis where it is) so
 * that the name keeps FV_NAME_MIN, and a name still too long cut, with
 * an ellipsis. */
static void fv_name(struct ui *ui, const struct ct *ct, uint32_t i, int room,
		    char *buf, size_t size)
{
	const struct ct_node *n = ct_node(ct, i);
	const struct ct_func *f = ct_func(ct, n->func);
	const char *sign = n->first_child == CT_NONE ? " " : fv.open[i] ?
			   screen_glyph(ui, "▾", "-") : screen_glyph(ui, "▸", "+");
	const char *ell = screen_glyph(ui, "…", ">");
	int ind = 2 * (int)(n->depth - 1), cap = room - 2 - FV_NAME_MIN;
	char name[512];

	if (f && f->kind == SYMFMT_SEGMENT)
		snprintf(name, sizeof(name), "[%s]", f->name);
	else
		snprintf(name, sizeof(name), "%s", f ? f->name : "?");
	/* entered without a call: a signal's handler */
	if (n->entries)
		snprintf(name + strlen(name), sizeof(name) - strlen(name),
			 " (signal%s)", n->entries < n->calls ? "s, calls" : "");
	if (cap < 1)
		cap = 1;
	if (ind > cap)
		snprintf(buf, size, "%*s%s%s ", cap - 1, "", ell, sign);
	else
		snprintf(buf, size, "%*s%s ", ind, "", sign);
	room -= screen_cols(buf);
	if (room > 0 && screen_cols(name) > room)
		screen_head_cut(name, sizeof(name), room, ell);
	snprintf(buf + strlen(buf), size - strlen(buf), "%s", name);
}

/* One node's row into @buf: the columns of @mask (fv_cols()), then the
 * name in the @room columns left. */
static void fv_row(struct ui *ui, const struct ct *ct, uint32_t i, unsigned mask,
		   int room, char *buf, size_t size)
{
	const struct ct_node *n = ct_node(ct, i);
	char v[FC_N][64], name[1024];
	size_t at = 0;
	int k;

	snprintf(v[FC_CALLS], sizeof(v[0]), "%" PRIu64, n->calls);
	snprintf(v[FC_INSNS], sizeof(v[0]), "%" PRIu64, n->insns);
	/* (time 11 wide: "~115.124 us" pushed the name a column right;
	 * cycles FV_CYC wide, "~1234567-2345678+?" scaled to fit) */
	funcs_cycles_str(&n->total, FV_CYC, v[FC_CYC], sizeof(v[0]));
	funcs_cycles_str(&n->self, FV_CYC, v[FC_SELF], sizeof(v[0]));
	fv_time(ui, ct, i, v[FC_TIME], sizeof(v[0]));
	fv_bar(ui, ct, n, v[FC_BAR], sizeof(v[0]));
	buf[0] = 0;
	for (k = 0; k < FC_N && at < size; k++) {
		if (!(mask & (1u << k)))
			continue;
		/* (the bar is its width in cells, its glyphs wider in bytes) */
		if (k == FC_BAR)
			at += (size_t)snprintf(buf + at, size - at, "%s ", v[k]);
		else
			at += (size_t)snprintf(buf + at, size - at, "%*s ", fv_colw[k], v[k]);
	}
	fv_name(ui, ct, i, room, name, sizeof(name));
	if (at < size)
		snprintf(buf + at, size - at, "%s", name);
}

/* The title: what, the range, the totals or the progress. */
static void fv_title(struct ui *ui, char *buf, size_t size)
{
	const struct ct *ct = fv_tree();
	uint64_t d = atomic_load(&fv.job.done), tot = fv.job.to - fv.job.from;
	char cyc[48], tm[48], ins[64], by[32];
	int k, room;

	k = snprintf(buf, size, " functions of %s [0x%" PRIx64 ", 0x%" PRIx64 "): ", fv.what,
		     fv.from, fv.to);
	if (k < 0 || (size_t)k >= size)
		return;
	if (!ct && fv.job_on && !atomic_load(&fv.job.finished)) {
		snprintf(buf + k, size - (size_t)k, "building %.0f%%  (C-c stops)",
			 tot ? 100.0 * (double)d / (double)tot : 0.0);
		return;
	}
	if (!ct) {
		snprintf(buf + k, size - (size_t)k, "failed: %s", pte_strerror(fv.job.result));
		return;
	}
	fv_time(ui, ct, CT_ROOT, tm, sizeof(tm));
	/* nothing could be decoded, or the flow broke and nothing was:
	 * not an empty range, and its cycles are not 0 but unknown */
	if (ct_node(ct, CT_ROOT)->insns ||
	    !*ctjob_none(ct, fv.nopsb, ins, sizeof(ins))) {
		snprintf(ins, sizeof(ins), "%" PRIu64 " insns", ct_node(ct, CT_ROOT)->insns);
		ct_sum_str(&ct_node(ct, CT_ROOT)->total, cyc, sizeof(cyc));
	} else {
		snprintf(cyc, sizeof(cyc), "?");
	}
	/* (the heading's "time≈" is the title's too) */
	snprintf(buf + k, size - (size_t)k, "%s, cycles %s, %s%s%s%s", ins, cyc,
		 timefmt_estimated(ui) && strcmp(tm, "?") ?
		 screen_glyph(ui, "time≈ ", "time~ ") : "", tm,
		 fv.job.result == -pte_canceled ? "  STOPPED: partial" : "",
		 ct_truncated(ct) ? "  (deep calls folded)" : "");
	/* the order stays on a narrow screen: the rest is cut before it */
	snprintf(by, sizeof(by), "  by %s", fv_orders[fv.order]);
	room = ui->cols - screen_cols(by);
	if (screen_cols(buf) > room && room > 20)
		screen_head_cut(buf, size, room, screen_glyph(ui, "…", ">"));
	if (strlen(buf) + strlen(by) < size)
		strcat(buf, by);
}

/* The column heads of @mask (fv_cols()) into @buf; @th the time's.  The
 * column sorted by (fv.order) says so (the title's "by" is cut on a
 * narrow screen); the bar's is its share's measure, not the column's
 * name again. */
static void fv_head(struct ui *ui, const struct ct *ct, const char *th, unsigned mask,
		    char *buf, size_t size)
{
	static const int sorted[] = { FC_CYC, FC_INSNS, FC_CALLS };
	const char *head[FC_N] = { "calls", "insns", "cycles", "self", th,
				   ct && ct_node(ct, CT_ROOT)->total.lo ? "% cycles" : "% insns" };
	char by[32];
	size_t at = 0;
	int k;

	snprintf(by, sizeof(by), "%s%s", screen_glyph(ui, "↓", "*"), head[sorted[fv.order]]);
	head[sorted[fv.order]] = by;
	buf[0] = 0;
	for (k = 0; k < FC_N && at < size; k++) {
		/* (a '≈' takes 3 bytes, one column) */
		int w = fv_colw[k] + (int)strlen(head[k]) - screen_cols(head[k]);

		if (mask & (1u << k))
			at += (size_t)snprintf(buf + at, size - at, k == FC_BAR ? "%-*s " :
					       "%*s ", w, head[k]);
	}
	if (at < size)
		snprintf(buf + at, size - at, "%s", "function  (Enter jumps, o opens, s sorts)");
}

static void funcs_draw(struct ui *ui, struct view *v)
{
	const struct ct *ct = fv_tree();
	long h = ui->rows - 2 - FV_HEAD > 1 ? ui->rows - 2 - FV_HEAD : 1, i;
	const char *th;
	char buf[1024];
	int y, used;
	unsigned mask;

	(void)v;
	fv_tree_ready();
	fv_rows();
	erase();
	attrset(screen_attr(ui, SC_HEADER) | A_BOLD);
	screen_clear(0, 0, ui->cols);
	fv_title(ui, buf, sizeof(buf));
	screen_put(0, 0, ui->cols, buf);
	attrset(A_BOLD);
	/* a TSC frequency estimated from P1 is said here, as the cycle
	 * pane's heading says it, not on each time */
	th = timefmt_estimated(ui) ? screen_glyph(ui, "time≈", "time~") : "time";
	mask = fv_cols(ui, ct, &used);
	fv_head(ui, ct, th, mask, buf, sizeof(buf));
	screen_clear(1, 0, ui->cols);
	screen_put(1, 0, ui->cols, buf);
	attrset(A_NORMAL);
	listnav_fit(&fv.nav, (long)fv.nrows, h);
	for (y = 0, i = fv.nav.top; ct && y < h && i < (long)fv.nrows; y++, i++) {
		fv_row(ui, ct, fv.rows[i], mask, ui->cols - used, buf, sizeof(buf));
		attrset(i == fv.nav.sel ? A_REVERSE : A_NORMAL);
		screen_clear(FV_HEAD + y, 0, ui->cols);
		screen_put(FV_HEAD + y, 0, ui->cols, buf);
	}
	attrset(A_NORMAL);
	if (ct && !fv.nrows)
		screen_put(FV_HEAD, 1, ui->cols - 1, fv.job.result == -pte_sigbus ?
			   "(the trace shrank)" : fv.nopsb ?
			   "(no code decoded: no PSB before the range's end)" :
			   ct_breaks(ct) ?
			   "(no instructions decoded: the flow broke)" :
			   "(no instructions in the range)");
	status_draw(ui);
}

/* Open or close node @n's children (@how 1 open, 0 close, -1 toggle);
 * @all: its whole subtree too. */
static void fv_open(const struct ct *ct, uint32_t n, int how, int all)
{
	uint32_t c;

	fv.open[n] = (uint8_t)(how < 0 ? !fv.open[n] : how);
	if (all)
		for (c = ct_node(ct, n)->first_child; c != CT_NONE;
		     c = ct_node(ct, c)->next_sibling)
			fv_open(ct, c, fv.open[n], 1);
	fv.rows_valid = 0;
}

/* h, Left: close the node, or go to its parent. */
static void fv_left(const struct ct *ct, uint32_t n)
{
	uint32_t p = ct_node(ct, n)->parent;
	size_t i;

	if (fv.open[n] && ct_node(ct, n)->first_child != CT_NONE) {
		fv_open(ct, n, 0, 0);
		return;
	}
	for (i = 0; p != CT_ROOT && i < fv.nrows; i++)
		if (fv.rows[i] == p)
			fv.nav.sel = (long)i;
}

static int funcs_key(struct ui *ui, struct view *v, int key)
{
	const struct ct *ct = fv_tree();
	long h = ui->rows - 2 - FV_HEAD > 1 ? ui->rows - 2 - FV_HEAD : 1;
	uint32_t n;

	ui->msg[0] = 0;
	fv_tree_ready();
	fv_rows();
	if (listnav_key(&fv.nav, key, (long)fv.nrows, h))
		return UI_DRAW_ALL;
	switch (key) {
	case 'q': case 27: case 'Q': case 7:	/* C-g */
		view_close(&ui->vs, v->ops);
		return UI_DRAW_ALL;
	case 3:	/* C-c */
		funcs_interrupt(ui);
		return UI_DRAW_ALL;
	case 's':
		fv.order = (enum ct_order)((fv.order + 1) % 3);
		fv.rows_valid = 0;
		msg_report(ui, UI_INFO, "callees sorted by %s", fv_orders[fv.order]);
		return UI_DRAW_ALL;
	case '/': case '?': case 'n': case 'N': case 'm': case '\'': case '`':
	case 'v': case 'V': case 'z': case 'Z': case '#':
		/* the browser's keys for packets: here they would do nothing */
		msg_report(ui, UI_WARN, "'%c' is not a key of the function view (F1: its "
			   "keys; q closes it)", key);
		return UI_DRAW_STATUS;
	}
	if (!ct || !fv.nrows || !fv.open || fv.nav.sel >= (long)fv.nrows)
		return UI_DRAW_NONE;
	n = fv.rows[fv.nav.sel];
	switch (key) {
	case '\r': case '\n': case KEY_ENTER:
		view_close(&ui->vs, v->ops);
		return nav_jump(ui, ct_node(ct, n)->offset);
	case 'o': case '\t':
		fv_open(ct, n, -1, 0);
		return UI_DRAW_ALL;
	case 'l': case KEY_RIGHT:
		fv_open(ct, n, 1, 0);
		return UI_DRAW_ALL;
	case 'O': case '*':
		fv_open(ct, n, 1, 1);
		return UI_DRAW_ALL;
	case 'c':
		fv_open(ct, n, 0, 1);
		return UI_DRAW_ALL;
	case 'h': case KEY_LEFT:
		fv_left(ct, n);
		return UI_DRAW_ALL;
	default:
		return UI_DRAW_NONE;
	}
}

static void funcs_close(struct ui *ui, struct view *v)
{
	(void)v;
	/* a build under way is of no use any more; a finished tree stays
	 * for :funcs of the same range */
	if (fv.job_on && !atomic_load(&fv.job.finished))
		ctjob_cancel(&fv.job);
}

static const struct view_ops funcs_view = {
	.name = "funcs",
	.flags = VIEW_OPAQUE,
	.draw = funcs_draw,
	.key = funcs_key,
	.close = funcs_close,
};

static const struct cmd_row funcs_rows[] = {
	{ ACTION_FUNCS, funcs_cmd, CMD_WORDS, 0, 0 },
};

CMD_TABLE(funcs_cmds, funcs_rows);
