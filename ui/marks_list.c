/* marks_list -- the marks list (:marks, :regions): every mark, bookmark
 * and region in offset order, the selected region's summary below. */
#include <curses.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "funcs_sum.h"
#include "listnav.h"
#include "marks.h"
#include "marks_list.h"
#include "marks_panel.h"
#include "marks_ui.h"
#include "msg.h"
#include "nav.h"
#include "prompt.h"
#include "screen.h"
#include "status.h"
#include "timefmt.h"
#include "ui.h"

/* The list's selection (one browser per process). */
static struct {
	struct listnav nav;
	int confirm;			/* 'd' asked; waiting for y */
	struct marks_entry asked;	/* ... about this entry (no note) */
	char cmp[BM_NAME_MAX];		/* :regions A B: B's functions beside */
} ml;

static const struct view_ops marks_list_view;

static long marks_list_rows(struct ui *ui)
{
	return ui->bm ? (long)marks_count(ui->bm) : 0;
}

/* The height of the list part (the rest shows the summary). */
static int marks_list_h(struct ui *ui)
{
	int h = ui->rows - 3;

	if (h > 16)
		h -= 13;
	return h < 1 ? 1 : h;
}

/* Open the list on entry @first, or else the entry at or before the
 * cursor. */
static void marks_list_open(struct ui *ui, const char *first)
{
	ml.nav.sel = ml.nav.top = 0;
	ml.confirm = 0;
	ml.cmp[0] = 0;
	if (first && ui->bm && marks_find(ui->bm, first) >= 0)
		ml.nav.sel = marks_find(ui->bm, first);
	else if (ui->bm) {
		/* The entry at or before the cursor. */
		long i = marks_next(ui->bm, ui->cursor + 1, -1, ~0u);

		ml.nav.sel = i < 0 ? 0 : i;
	}
	view_push(&ui->vs, &marks_list_view, NULL);
}

/* A row's fields, before they are fitted to the screen. */
struct ml_cells {
	const char *kind;
	char name[BM_NAME_MAX + 8];
	char from[24], range[48];	/* "0x..", and a region's "0x..-0x.." */
	char t[48], note[80];
};

/* One row of the marks list, its fields. */
static void marks_list_cells(struct ui *ui, const struct marks_entry *e, struct ml_cells *c)
{
	static const char *const kinds[] = { "mark", "bookmark", "region" };
	const char *mark;
	uint64_t tsc = marks_panel_tsc_at(ui, e->from, &mark);
	size_t k;

	memset(c, 0, sizeof(*c));
	c->kind = kinds[e->kind];
	snprintf(c->name, sizeof(c->name), "%s", e->kind != BM_REGION && !e->name[0] ? "-" :
		 e->name);
	snprintf(c->from, sizeof(c->from), "0x%08" PRIx64, e->from);
	if (e->kind == BM_REGION)
		snprintf(c->range, sizeof(c->range), "0x%08" PRIx64 "-0x%08" PRIx64, e->from,
			 e->to);
	/* Every digit (marks may lie nanoseconds apart deep in a trace);
	 * ticks without a TSC frequency; '~' or '?' as the cycle pane
	 * marks the row's time, '≈' on an estimated TSC frequency. */
	if (tsc && ui->have_t0) {
		double ns = timefmt_tsc_diff(ui, ui->t0, tsc);
		char v[40];

		if (isnan(ns))
			snprintf(c->t, sizeof(c->t), "%s+%" PRIu64 "t", mark,
				 tsc >= ui->t0 ? tsc - ui->t0 : 0);
		else {
			timefmt_ns_res(v, sizeof(v), ns, 1);
			snprintf(c->t, sizeof(c->t), "%s%s%s", mark, timefmt_estimated(ui) ?
				 screen_glyph(ui, "≈", "~") : "", v);
		}
	}
	if (e->note) {
		for (k = 0; e->note[k] && k + 1 < sizeof(c->note); k++)
			c->note[k] = e->note[k] == '\n' || e->note[k] == '\t' ? ' ' : e->note[k];
		c->note[k] = 0;
	}
}

/* The columns the rows in sight get: the name's (16, up to 32 for a
 * longer name, less on a narrow screen, a longer name cut), the offsets' (a region's end shown as an
 * ellipsis where even a 6-column name leaves no room), the time's (as
 * wide as the widest, or none on a narrow screen). */
struct ml_lay {
	int namew, offw, timew;
	int short_end;		/* a region shows "0x..-…" */
};

static void marks_list_layout(struct ui *ui, long top, int h, struct ml_lay *lay)
{
	/* kind 8 and the blanks between the columns; a leading blank and
	 * an ellipsis's column */
	int room = ui->cols - 2, fixed, region = 0;
	long n = marks_list_rows(ui), i;

	lay->namew = 16;
	lay->timew = 12;
	lay->short_end = 0;
	for (i = top; i < top + h && i < n; i++) {
		struct ml_cells c;

		marks_list_cells(ui, marks_at(ui->bm, (size_t)i), &c);
		region |= c.range[0] != 0;
		/* a longer name widens the column for every row, to 32 */
		if (screen_cols(c.name) > lay->namew)
			lay->namew = screen_cols(c.name) < 32 ? screen_cols(c.name) : 32;
		if (screen_cols(c.t) > lay->timew)
			lay->timew = screen_cols(c.t);
	}
	lay->offw = region ? 21 : 10;
	fixed = 8 + 1 + 1 + lay->offw + 1 + lay->timew;
	if (fixed + lay->namew > room)
		lay->namew = room - fixed > 6 ? room - fixed : 6;
	if (fixed + lay->namew <= room)
		return;
	lay->timew = 0;		/* the time goes, the place stays */
	fixed = 8 + 1 + 1 + lay->offw;
	if (fixed + lay->namew > room)
		lay->namew = room - fixed > 6 ? room - fixed : 6;
	if (fixed + lay->namew <= room || !region)
		return;
	lay->short_end = 1;
	lay->offw = 12;
}

/* One row of the marks list into @buf, in the columns of @lay; a row
 * still too wide ends in an ellipsis where its next field would be. */
static void marks_list_row(struct ui *ui, const struct marks_entry *e, const struct ml_lay *lay,
			   char *buf, size_t size)
{
	const char *ell = screen_glyph(ui, "…", ">");
	int left = ui->cols - 1 - screen_cols(ell);
	struct ml_cells c;
	char off[48];
	size_t at = 0;

	marks_list_cells(ui, e, &c);
	buf[0] = 0;
	/* the name is text: cut, marked, never pushing the columns right */
	if (screen_cols(c.name) > lay->namew)
		screen_head_cut(c.name, sizeof(c.name), lay->namew, ell);
	if (!c.range[0])
		snprintf(off, sizeof(off), "%s", c.from);
	else if (lay->short_end)
		snprintf(off, sizeof(off), "%s-%s", c.from, ell);
	else
		snprintf(off, sizeof(off), "%s", c.range);
	if (screen_add_field(buf, size, &at, &left, "", c.kind, 8) ||
	    screen_add_field(buf, size, &at, &left, " ", c.name, lay->namew) ||
	    screen_add_field(buf, size, &at, &left, " ", off, lay->offw) ||
	    (lay->timew && screen_add_field(buf, size, &at, &left, " ", c.t, -lay->timew))) {
		if (at < size)
			snprintf(buf + at, size - at, "%s", ell);
		return;
	}
	/* the note is text too: what fits, marked where cut */
	left += screen_cols(ell) - 2;
	if (c.note[0] && lay->timew && left >= 4) {
		if (screen_cols(c.note) > left)
			screen_head_cut(c.note, sizeof(c.note), left, ell);
		left += 2;
		screen_add_field(buf, size, &at, &left, "  ", c.note, 0);
	}
}

/* Region @e's summary in @hgt rows from row @y: its packets, and its top
 * functions beside them (with :regions A B's B's) where there is room. */
static void marks_list_summary(struct ui *ui, const struct marks_entry *e, int y,
			       int hgt)
{
	long b = ml.cmp[0] ? marks_find(ui->bm, ml.cmp) : -1;
	const struct marks_entry *eb = b >= 0 ? marks_at(ui->bm, (size_t)b) : NULL;
	int w = ui->cols >= 100 ? 50 : ui->cols;

	if (eb && eb->kind != BM_REGION)
		eb = NULL;
	marks_panel_summarize(ui, e);
	marks_panel_box(ui, y, 0, w, hgt);
	if (w < ui->cols)
		funcs_sum_box(ui, y, w, ui->cols - w, hgt, e->name, e->from, e->to,
			      eb && eb != e ? eb->name : NULL, eb ? eb->from : 0,
			      eb ? eb->to : 0);
}

static void marks_list_draw(struct ui *ui, struct view *v)
{
	long n = marks_list_rows(ui), i;
	int h = marks_list_h(ui), y;
	struct ml_lay lay;
	char buf[512];

	erase();
	attrset(screen_attr(ui, SC_HEADER) | A_BOLD);
	screen_clear(0, 0, ui->cols);
	snprintf(buf, sizeof(buf), " marks and regions: %ld   Enter jumps  r rename  "
		 "e note  d delete  q closes", n);
	screen_put(0, 0, ui->cols, buf);
	attrset(A_NORMAL);
	listnav_fit(&ml.nav, n, h);
	marks_list_layout(ui, ml.nav.top, h, &lay);
	for (y = 0, i = ml.nav.top; y < h && i < n; y++, i++) {
		marks_list_row(ui, marks_at(ui->bm, (size_t)i), &lay, buf, sizeof(buf));
		attrset(i == ml.nav.sel ? A_REVERSE : A_NORMAL);
		screen_clear(1 + y, 0, ui->cols);
		screen_put(1 + y, 1, ui->cols - 1, buf);
	}
	attrset(A_NORMAL);
	if (!n)
		screen_put(1, 1, ui->cols - 1, "(no marks: m L, M, :mark NAME, v ... Enter)");
	/* The selected region's summary below the list. */
	if (n && h < ui->rows - 3) {
		const struct marks_entry *e = marks_at(ui->bm, (size_t)ml.nav.sel);

		if (e && e->kind == BM_REGION)
			marks_list_summary(ui, e, 2 + h, ui->rows - 3 - h - 1);
	}
	status_draw(ui);
}

/* Put @s quoted for the prompt into @buf. */
static void marks_list_quote(const char *s, char *buf, size_t size)
{
	char *p = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&p, &len);

	buf[0] = 0;
	if (!f)
		return;
	marks_put_quoted(f, s ? s : "");
	fclose(f);
	if (p)
		snprintf(buf, size, "%s", p);
	free(p);
}

/* The answer to "delete ...? (y/n)" about ml.asked; @e is the entry
 * selected now.  The marks may have been swapped while the question
 * waited (the trace shrank under the list: those of what is left), so
 * the entry goes by what it is, not by its row. */
static int marks_list_confirm(struct ui *ui, const struct marks_entry *e, int key)
{
	const struct marks_entry *a = &ml.asked;
	char buf[BM_NAME_MAX + 32];

	ml.confirm = 0;
	if ((key == 'y' || key == 'Y') &&
	    (!e || e->kind != a->kind || e->from != a->from || e->to != a->to ||
	     strcmp(e->name, a->name))) {
		msg_report(ui, UI_WARN, "not deleted: the marks changed since the "
			   "question (%s is not the entry selected now)",
			   a->name[0] ? a->name : "the anonymous bookmark");
	} else if (key == 'y' || key == 'Y') {
		snprintf(buf, sizeof(buf), "deleted %s", e->name[0] ? e->name : "bookmark");
		marks_ui_forget_ref(ui, e);
		marks_ui_result(ui, marks_delete(ui->bm, (size_t)ml.nav.sel), buf);
	} else {
		msg_report(ui, UI_INFO, "not deleted");
	}
	return UI_DRAW_ALL;
}

/* r and e: the prompt, filled in to rename @e or edit its note. */
static int marks_list_edit(struct ui *ui, const struct marks_entry *e, int key)
{
	char buf[BM_NOTE_MAX + 128], q[BM_NOTE_MAX + 64];

	if (!e)
		return UI_DRAW_ALL;
	if (!e->name[0]) {
		msg_report(ui, UI_WARN, key == 'r' ? "an anonymous bookmark: name one with "
			   ":mark NAME" : "an anonymous bookmark has no note: name it first (r)");
		return UI_DRAW_ALL;
	}
	if (key == 'r') {
		snprintf(buf, sizeof(buf), "mark -r %s ", e->name);
	} else {
		marks_list_quote(e->note, q, sizeof(q));
		/* A blank after the note: what is typed next is words of
		 * its own, joined to it (a word would go on past the quote). */
		snprintf(buf, sizeof(buf), "mark -n %s %s ", e->name, q);
	}
	prompt_open(ui, buf);
	return UI_DRAW_ALL;
}

static int marks_list_key(struct ui *ui, struct view *v, int key)
{
	long n = marks_list_rows(ui);
	const struct marks_entry *e = n && ml.nav.sel < n ?
				      marks_at(ui->bm, (size_t)ml.nav.sel) : NULL;

	if (ml.confirm)
		return marks_list_confirm(ui, e, key);
	ui->msg[0] = 0;
	if (listnav_key(&ml.nav, key, n, marks_list_h(ui)))
		return UI_DRAW_ALL;
	switch (key) {
	case 'q': case 27: case 'Q': case 7:	/* C-g */
		view_close(&ui->vs, v->ops);
		return UI_DRAW_ALL;
	case 3:	/* C-c: stop the summary */
		marks_panel_cancel(ui);
		funcs_sum_cancel();
		return UI_DRAW_ALL;
	case '\r': case '\n': case KEY_ENTER:
		if (!n)
			return UI_DRAW_ALL;
		view_close(&ui->vs, v->ops);
		return e ? nav_jump(ui, e->from) : UI_DRAW_ALL;
	case 'd': case KEY_DC:
		if (!e)
			return UI_DRAW_ALL;
		ml.confirm = 1;
		ml.asked = *e;
		ml.asked.note = NULL;	/* not owned */
		msg_report(ui, UI_WARN, "delete %s %s? (y/n)", e->kind == BM_REGION ? "region" :
			   e->kind == BM_MARK ? "mark" : "bookmark",
			   e->name[0] ? e->name : "(anonymous)");
		return UI_DRAW_ALL;
	case 'r': case 'e':
		return marks_list_edit(ui, e, key);
	default:
		return UI_DRAW_NONE;
	}
}

static const struct view_ops marks_list_view = {
	.name = "marks",
	.flags = VIEW_OPAQUE,
	.draw = marks_list_draw,
	.key = marks_list_key,
};

static int marks_list_cmd(struct ui *ui, const struct cmd_args *a)
{
	if (marks_ui_no_marks(ui))
		return UI_DRAW_STATUS;
	marks_list_open(ui, NULL);
	return UI_DRAW_ALL;
}

/* :regions [REGION] [MARK]: the list on a region, B the reference. */
static int marks_list_regions(struct ui *ui, const struct cmd_args *a)
{
	int n = a->argc - 1;

	if (marks_ui_no_marks(ui))
		return UI_DRAW_STATUS;
	/* A first, and nothing changed if it is not there: the list opened
	 * on the cursor's entry, under B's delta, as if A were that one */
	if (n > 0 && marks_find(ui->bm, a->argv[1]) < 0) {
		msg_report(ui, UI_ERROR, "regions: no region or mark '%s'", a->argv[1]);
		return UI_DRAW_STATUS;
	}
	/* :regions A B: A's summary with its delta from B (and B's
	 * functions beside A's) */
	if (n > 1 && marks_ui_ref(ui, a->argv[2]) != UI_DRAW_ALL)
		return UI_DRAW_STATUS;
	marks_list_open(ui, n > 0 ? a->argv[1] : NULL);
	if (n > 1)
		snprintf(ml.cmp, sizeof(ml.cmp), "%s", a->argv[2]);
	if (n <= 0) {
		/* The first region. */
		long i = marks_next(ui->bm, 0, 1, 1u << BM_REGION);

		if (marks_count(ui->bm) && marks_at(ui->bm, 0)->kind == BM_REGION)
			i = 0;
		if (i >= 0)
			ml.nav.sel = i;
	}
	return UI_DRAW_ALL;
}

static const struct cmd_row marks_list_rows_[] = {
	{ ACTION_MARKS, marks_list_cmd, CMD_NONE, 0, 0 },
	{ ACTION_REGIONS, marks_list_regions, CMD_WORDS, 0, 0 },
};

CMD_TABLE(marks_list_cmds, marks_list_rows_);
