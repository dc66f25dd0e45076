/* select -- the rows yank and pipe take; a drag in the packet pane. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "marks.h"
#include "marks_ui.h"
#include "msg.h"
#include "pane_code.h"
#include "pane_packets.h"
#include "search_ui.h"
#include "select.h"
#include "ui.h"

/* A press in the packet pane that a drag turns into a selection. */
static struct {
	int pressed;
	int moved;		/* the pointer's motion selected already */
	uint64_t from;		/* the pressed row's offset */
} sel;

int select_pick(struct ui *ui, const char *region, int has_count,
		uint64_t count, enum select_default deflt, struct select_span *s)
{
	long i;

	memset(s, 0, sizeof(*s));
	if (region) {
		if (!ui->bm || (i = marks_find(ui->bm, region)) < 0 ||
		    marks_at(ui->bm, (size_t)i)->kind != BM_REGION) {
			msg_report(ui, UI_ERROR, "no region '%.64s'%s", region,
				   ui->bm ? " (:marks lists them)" : " (marks are off)");
			return -pte_invalid;
		}
		s->from = marks_at(ui->bm, (size_t)i)->from;
		s->to = marks_at(ui->bm, (size_t)i)->to;
		snprintf(s->what, sizeof(s->what), "region %.64s", region);
		return 0;
	}
	if (marks_ui_visual(ui)) {
		marks_ui_selection(ui, &s->from, &s->to);
		marks_ui_cancel(ui);
		snprintf(s->what, sizeof(s->what), "the selection");
		return 0;
	}
	if (has_count || deflt == SELECT_CURSOR) {
		s->from = ui->cursor;
		s->to = UINT64_MAX;
		s->max = has_count && count ? count : 1;
		snprintf(s->what, sizeof(s->what), "%" PRIu64 " row%s", s->max,
			 s->max == 1 ? "" : "s");
		return 0;
	}
	s->visible = 1;
	snprintf(s->what, sizeof(s->what), "the rows on the screen");
	return 0;
}

/* The walk over @s's rows: first, then next.  Returns 1 on a row, 0 at
 * the end. */
struct select_walk {
	struct win_iter it;
	int i;			/* the filter view's place (search_ui.c) */
	uint64_t n;		/* rows given */
	int left;		/* visible rows left */
};

static int select_first(struct ui *ui, const struct select_span *s,
			struct select_walk *w)
{
	memset(w, 0, sizeof(*w));
	if (s->visible) {
		w->left = ui->panes[UI_PANE_PACKETS].h - 1;
		return w->left > 0 && search_ui_row_first(ui, &w->it, &w->i);
	}
	return !win_seek(&w->it, ui->wc, s->from) &&
	       win_row(&w->it)->pkt.offset < s->to;
}

static int select_next(struct ui *ui, const struct select_span *s,
		       struct select_walk *w)
{
	w->n++;
	if (s->visible)
		return --w->left > 0 && search_ui_row_next(ui, &w->it, &w->i);
	if (s->max && w->n >= s->max)
		return 0;
	return !win_next(&w->it) && win_row(&w->it)->pkt.offset < s->to;
}

int64_t select_text(struct ui *ui, const struct select_span *s,
		    select_line_fn *fn, void *ctx)
{
	struct select_walk w;
	char line[1024];
	int64_t r = 0;
	int have;

	for (have = select_first(ui, s, &w); have; have = select_next(ui, s, &w)) {
		size_t n = pane_packets_row_text(ui, &w.it, line, sizeof(line));
		int e = fn(ctx, line, n);

		if (e < 0) {
			r = e;
			break;
		}
	}
	win_iter_release(&w.it);
	return r < 0 ? r : (int64_t)w.n;
}

int select_bytes(struct ui *ui, const struct select_span *s, uint64_t *from,
		 uint64_t *to)
{
	struct select_walk w;
	int have, any = 0;

	/* A region or the selection: its bytes, without decoding them all. */
	if (!s->visible && !s->max) {
		*from = s->from;
		*to = s->to;
		return s->from < s->to ? 0 : -pte_eos;
	}
	for (have = select_first(ui, s, &w); have; have = select_next(ui, s, &w)) {
		const struct win_row *row = win_row(&w.it);

		if (!any)
			*from = row->pkt.offset;
		*to = row->pkt.offset + (row->size ? row->size : 1);
		any = 1;
	}
	win_iter_release(&w.it);
	return any ? 0 : -pte_eos;
}

int select_drag_row(int pane_y, int pane_h, int y)
{
	int k = y - pane_y - 1;

	if (pane_h < 2)
		return -1;
	if (k < 0)
		return 0;
	return k > pane_h - 2 ? pane_h - 2 : k;
}

/* The offset of packet row @k of the pane (the filter view's rows too).
 * Returns 0, or -pte_eos past the last row. */
static int select_row_offset(struct ui *ui, int k, uint64_t *off)
{
	struct select_span s = { .visible = 1 };
	struct select_walk w;
	int have, r = -pte_eos;

	for (have = select_first(ui, &s, &w); have; have = select_next(ui, &s, &w))
		if (k-- == 0) {
			*off = win_row(&w.it)->pkt.offset;
			r = 0;
			break;
		}
	win_iter_release(&w.it);
	return r;
}

/* The offset of the packet row at screen line @y (past the pane's edge,
 * its first or last row) into *@off.  Returns 0, or -1 if none. */
static int select_row_at(struct ui *ui, const struct pane *pk, int y,
			 uint64_t *off)
{
	int k = select_drag_row(pk->y, pk->h, y);

	while (k >= 0 && select_row_offset(ui, k, off))
		k--;
	return k < 0 ? -1 : 0;
}

/* Select from the pressed row to @off's, the cursor there, and say so. */
static void select_visual(struct ui *ui, uint64_t off)
{
	marks_ui_visual_from(ui, sel.from);
	ui->cursor = off;
	ui->focus = UI_PANE_PACKETS;
	msg_report(ui, UI_INFO, "-- VISUAL --  rows 0x%" PRIx64 "-0x%" PRIx64
		   ": y yanks, | pipes, Enter names a region, Esc ends",
		   sel.from < off ? sel.from : off, sel.from < off ? off : sel.from);
}

/* The pointer moved with the button held (term.c asks for motion
 * reports): the selection follows it, as it will be on release. */
static int select_motion(struct ui *ui, const struct pane *pk,
			 const MEVENT *ev, int *draw)
{
	uint64_t off;

	/* The terminal reports all motion, and ncurses does not say whether
	 * a button is held: a selection the user ended (Esc, y, |) ends the
	 * drag, so that a release the terminal never sent (over another tmux
	 * pane) does not leave the pointer selecting. */
	if (sel.moved && !marks_ui_visual(ui)) {
		sel.pressed = 0;
		return 0;
	}
	if (select_row_at(ui, pk, ev->y, &off) || off == ui->cursor)
		return 1;
	if (off == sel.from && !sel.moved)
		return 1;
	select_visual(ui, off);
	sel.moved = 1;
	*draw = UI_DRAW_ALL;
	return 1;
}

void select_mouse_drop(void)
{
	sel.pressed = 0;
}

int select_mouse(struct ui *ui, const MEVENT *ev, int *draw)
{
	const struct pane *pk = &ui->panes[UI_PANE_PACKETS];
	int inside = ev->y > pk->y && ev->y < pk->y + pk->h &&
		     ev->x >= pk->x && ev->x < pk->x + pk->w;
	uint64_t off;

	/* The code view's rows are instructions, not packets. */
	if (pane_code_on(ui))
		return 0;
	if (ev->bstate & BUTTON1_PRESSED) {
		sel.pressed = inside &&
			      !select_row_offset(ui, ev->y - pk->y - 1, &sel.from);
		sel.moved = 0;
		return 0;
	}
	if (!sel.pressed)
		return 0;
	if ((ev->bstate & REPORT_MOUSE_POSITION) && !(ev->bstate & BUTTON1_RELEASED))
		return select_motion(ui, pk, ev, draw);
	if (!(ev->bstate & BUTTON1_RELEASED))
		return 0;
	sel.pressed = 0;
	/* The release may be past the pane's edge: its first or last row. */
	if (select_row_at(ui, pk, ev->y, &off))
		return 0;
	if (off == sel.from) {
		if (!sel.moved)
			return 0;	/* a click */
		/* dragged away and back: no selection, as on a click */
		marks_ui_cancel(ui);
		ui->cursor = off;
		*draw = UI_DRAW_ALL;
		return 1;
	}
	select_visual(ui, off);
	*draw = UI_DRAW_ALL;
	return 1;
}
