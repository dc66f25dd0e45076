/* browser -- the browser view: the packet, cycle and timeline panes laid
 * out on the screen, the header and status lines, its keys and the mouse;
 * and the too-small screen. */
#include <curses.h>
#include <stdio.h>

#include "browser.h"
#include "cmd.h"
#include "marks_panel.h"
#include "marks_ui.h"
#include "msg.h"
#include "nav.h"
#include "pane_code.h"
#include "pane_cycles.h"
#include "pane_packets.h"
#include "screen.h"
#include "select.h"
#include "status.h"
#include "tl.h"
#include "tl_lanes.h"
#include "ui.h"

static const struct view_ops small_view;
/* describe-key waits for a key (the browser's keys only). */
static int browser_describing;

void browser_layout(struct ui *ui)
{
	int tl_h, body, cw, pw;
	int i;

	for (i = 0; i < UI_NPANES; i++)
		ui->panes[i].h = ui->panes[i].w = 0;
	if (ui->cols < 20 || ui->rows < 6) {
		view_push(&ui->vs, &small_view, NULL);
		return;
	}
	view_close(&ui->vs, &small_view);
	tl_h = ui->rows >= 16 ? 3 : ui->rows >= 9 ? 2 : 1;
	/* CPU lanes under a full timeline, if 8 rows of packets stay */
	if (tl_h == 3 && ui->rows - 6 - tl_lanes_rows(ui) >= 8)
		tl_h += tl_lanes_rows(ui);
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
	pane_code_layout(ui);
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

/* Keys go on to a list or the prompt under it; over the browser, q quits.
 * The region summary is the browser's: its key op passes keys on to it
 * (G moved the cursor hidden under this screen), so it is stepped past. */
static int small_key(struct ui *ui, struct view *v, int c)
{
	struct view *b = view_below(&ui->vs, v);

	if (b && b->ops == &marks_panel_view)
		b = view_below(&ui->vs, b);
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
	/* While keys are pending the message line shows them (5 0): a note
	 * the drawing writes on a free line (visual's selection) waits for
	 * the sequence's end. */
	int keys_shown = km_state_pending(&ui->ks) && !ui->msg[0];
	int i;

	status_draw_header(ui);
	for (i = 0; i < UI_NPANES; i++)
		if (ui->panes[i].h > 0 && ui->panes[i].w > 0)
			ui->panes[i].ops->draw(ui, &ui->panes[i]);
	marks_panel_draw_overlay(ui);
	if (keys_shown)
		ui->msg[0] = 0;
	status_draw(ui);
}

/* A mouse event: a click on the timeline jumps, on a packet row moves the
 * cursor; the wheel scrolls. */
static int browser_mouse(struct ui *ui, const MEVENT *ev)
{
	int r = UI_DRAW_NONE;
	struct pane *tl = &ui->panes[UI_PANE_TIMELINE];
	struct pane *pk = &ui->panes[UI_PANE_PACKETS];

	if (ev->bstate & BUTTON4_PRESSED)
		return nav_scroll(ui, -3);
	if (ev->bstate & BUTTON5_PRESSED)
		return nav_scroll(ui, 3);
	/* A drag over packet rows selects them (select.c). */
	if (select_mouse(ui, ev, &r))
		return r;
	/* A drag along the timeline selects its span (tl.c). */
	if (tl_mouse(ui, ev, &r))
		return r;
	if (!(ev->bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED)))
		return UI_DRAW_NONE;
	if (ev->y >= tl->y && ev->y < tl->y + tl->h)
		return tl_pick(ui, ev->y - tl->y, ev->x - tl->x);
	if (ev->y > pk->y && ev->y < pk->y + pk->h && pane_code_on(ui))
		return pane_code_click(ui, ev->y - pk->y - 1);
	if (ev->y > pk->y && ev->y < pk->y + pk->h) {
		struct win_iter it = { 0 };
		int k = ev->y - pk->y - 1, ok = !win_seek(&it, ui->wc, ui->top);

		while (ok && k-- > 0)
			ok = !win_next(&it);
		if (ok)
			ui->cursor = win_row(&it)->pkt.offset;
		win_iter_release(&it);
		ui->focus = ev->x >= ui->panes[UI_PANE_CYCLES].x &&
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

	/* Every key clears the line, one in a sequence too: a message
	 * stays until the next key (less's habit), and what the drawing
	 * writes on a free line (visual's selection, the sideband note) is
	 * then written again for the cursor's new place (v 5 j kept the
	 * selection of before the 5). */
	ui->msg[0] = 0;
	st = km_feed(ui->km, &ui->ks, marks_ui_visual(ui) ? KM_T_VISUAL : KM_T_NONE,
		     ui->panes[ui->focus].ops->table, c, &res);
	if (browser_describing && (st == KM_ACTION || st == KM_UNBOUND)) {
		char buf[256];

		browser_describing = 0;
		msg_report(ui, UI_INFO, "%s", km_describe(&res, buf, sizeof(buf)));
		return UI_DRAW_STATUS;
	}
	switch (st) {
	case KM_ACTION:
		return cmd_key(ui, &res) | UI_DRAW_STATUS;
	case KM_UNBOUND: {
		char name[64];

		msg_report(ui, UI_WARN, "%s is not bound (F1 lists keys)",
			   km_seq_name(res.keys, res.nkeys, name, sizeof(name)));
		return UI_DRAW_STATUS;
	}
	default:
		return UI_DRAW_STATUS;
	}
}

static void browser_resize(struct ui *ui, struct view *v)
{
	browser_layout(ui);
}

const struct view_ops browser_view = {
	.name = "browser",
	.flags = VIEW_OPAQUE,
	.draw = browser_draw,
	.key = browser_key,
	.resize = browser_resize,
};

/* One key from the terminal or the script.  Returns UI_DRAW_*. */
int browser_input(struct ui *ui, int c)
{
	if (c == KEY_RESIZE) {
		if (!ui->headless)
			getmaxyx(stdscr, ui->rows, ui->cols);
		view_resize(&ui->vs);
		clearok(curscr, TRUE);
		return UI_DRAW_ALL;
	}
	if (c == KEY_MOUSE) {
		MEVENT ev;
		struct view *top = view_top(&ui->vs);

		/* Taken from the queue whoever gets it.  Only the browser
		 * has a mouse: over it help, a list or the prompt (or the
		 * too-small screen) ignore it, so a click there does not
		 * move the cursor hidden under them. */
		if (getmouse(&ev) != OK)
			return UI_DRAW_NONE;
		if (!top || (top->ops != &browser_view && top->ops != &marks_panel_view)) {
			/* a view opened mid-drag takes the release */
			select_mouse_drop();
			tl_mouse_drop();
			return UI_DRAW_NONE;
		}
		return browser_mouse(ui, &ev);
	}
	return view_key(&ui->vs, c);
}

void browser_describe(struct ui *ui)
{
	km_state_describe(&ui->ks);
	browser_describing = 1;
	msg_report(ui, UI_INFO, "describe-key: press a key");
}
