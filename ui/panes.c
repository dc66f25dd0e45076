/* panes -- the commands about the panes: focus, scrolling sideways, the
 * timeline's axis (its zoom is tl_zoom.c's), recentering and redrawing. */
#include <curses.h>

#include "cmd.h"
#include "msg.h"
#include "nav.h"
#include "panes.h"
#include "tl.h"
#include "ui.h"

static int panes_focus(struct ui *ui, const struct cmd_args *a)
{
	int d = a->action == ACTION_FOCUS_NEXT_PANE ? 1 : UI_NPANES - 1, k;

	for (k = 0; k < UI_NPANES; k++) {
		ui->focus = (ui->focus + d) % UI_NPANES;
		if (ui->panes[ui->focus].h > 0 && ui->panes[ui->focus].w > 0)
			break;
	}
	msg_report(ui, UI_INFO, "focus: %s pane", ui->panes[ui->focus].ops->name);
	return UI_DRAW_ALL;
}

/* h l: the packet pane's wide rows, from any pane but the timeline, where
 * they move the cursor a column (tl.c). */
static int panes_scroll(struct ui *ui, const struct cmd_args *a)
{
	long n = cmd_steps(a) * (a->action == ACTION_SCROLL_LEFT ? -1 : 1), h;

	/* the count saturated: a huge one is as far as it goes, never a
	 * wrapped cast the other way */
	if (ui->focus == UI_PANE_TIMELINE && ui->panes[UI_PANE_TIMELINE].h > 0)
		return tl_step(ui, n);
	h = ui->hscroll + 8 * n;
	ui->hscroll = h < 0 ? 0 : h > 200 ? 200 : (int)h;
	return UI_DRAW_PANES;
}

static int panes_axis(struct ui *ui, const struct cmd_args *a)
{
	uint64_t lo, hi;

	ui->tl_time = !ui->tl_time;
	tl_range(ui, &lo, &hi);
	if (ui->tl_time && lo == 0 && hi == ui->img->size &&
	    (!ui->idx || !idx_nsummaries(ui->idx)))
		msg_report(ui, UI_WARN, "no timing known (yet): the axis stays in bytes");
	return UI_DRAW_ALL;
}

static int panes_recenter(struct ui *ui, const struct cmd_args *a)
{
	ui->top = ui->cursor;
	nav_scroll(ui, -(nav_view_rows(ui) / 2));
	clearok(curscr, TRUE);
	return UI_DRAW_ALL;
}

static int panes_redraw(struct ui *ui, const struct cmd_args *a)
{
	clearok(curscr, TRUE);
	return UI_DRAW_ALL;
}

static const struct cmd_row panes_rows[] = {
	{ ACTION_FOCUS_NEXT_PANE, panes_focus, CMD_NONE, 0, 0 },
	{ ACTION_FOCUS_PREV_PANE, panes_focus, CMD_NONE, 0, 0 },
	{ ACTION_SCROLL_LEFT, panes_scroll, CMD_NONE, 0, 0 },
	{ ACTION_SCROLL_RIGHT, panes_scroll, CMD_NONE, 0, 0 },
	{ ACTION_TIMELINE_AXIS, panes_axis, CMD_NONE, 0, 0 },
	{ ACTION_RECENTER, panes_recenter, CMD_NONE, 0, 0 },
	{ ACTION_REDRAW, panes_redraw, CMD_NONE, 0, 0 },
};

CMD_TABLE(panes_cmds, panes_rows);
