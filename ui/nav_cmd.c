/* nav_cmd -- the navigation commands: lines, pages, PSBs, errors, the
 * location history.  The moves themselves are nav.c's; in the filter view
 * cursor moves go among matching rows (search_ui.c). */
#include "cmd.h"
#include "nav.h"
#include "nav_cmd.h"
#include "pane_code.h"
#include "search_ui.h"
#include "ui.h"

/* j k C-d C-u C-f C-b. */
static int nav_cmd_move(struct ui *ui, const struct cmd_args *a)
{
	long n = cmd_steps(a), h = nav_view_rows(ui), half = h / 2 ? h / 2 : 1;

	if (search_ui_filtering(ui))
		return search_ui_filter_move(ui, a->action, n);
	if (pane_code_on(ui))
		switch (a->action) {
		case ACTION_CURSOR_DOWN: return pane_code_move(ui, n, 0, 0);
		case ACTION_CURSOR_UP: return pane_code_move(ui, -n, 0, 0);
		case ACTION_PAGE_DOWN: return pane_code_move(ui, n * h, 1, 0);
		case ACTION_PAGE_UP: return pane_code_move(ui, -n * h, 1, 0);
		case ACTION_HALFPAGE_DOWN: return pane_code_move(ui, n * half, 1, 0);
		case ACTION_HALFPAGE_UP: return pane_code_move(ui, -n * half, 1, 0);
		default: return UI_DRAW_NONE;
		}
	switch (a->action) {
	case ACTION_CURSOR_DOWN: return nav_lines(ui, n);
	case ACTION_CURSOR_UP: return nav_lines(ui, -n);
	case ACTION_PAGE_DOWN: return nav_page(ui, n * h);
	case ACTION_PAGE_UP: return nav_page(ui, -n * h);
	case ACTION_HALFPAGE_DOWN: return nav_page(ui, n * half);
	case ACTION_HALFPAGE_UP: return nav_page(ui, -n * half);
	default: return UI_DRAW_NONE;
	}
}

/* C-e C-y. */
static int nav_cmd_scroll(struct ui *ui, const struct cmd_args *a)
{
	long n = cmd_steps(a);

	if (pane_code_on(ui))
		return pane_code_move(ui, a->action == ACTION_SCROLL_UP ? -n : n, 0, 1);
	return nav_scroll(ui, a->action == ACTION_SCROLL_UP ? -n : n);
}

/* } { ]e [e: the next or previous PSB, or OVF or error. */
static int nav_cmd_walk(struct ui *ui, const struct cmd_args *a)
{
	uint64_t n = (uint64_t)cmd_steps(a);

	switch (a->action) {
	case ACTION_NEXT_PSB: return nav_psb(ui, 1, n);
	case ACTION_PREV_PSB: return nav_psb(ui, -1, n);
	case ACTION_NEXT_ERROR: return nav_error(ui, 1, n);
	case ACTION_PREV_ERROR: return nav_error(ui, -1, n);
	default: return UI_DRAW_NONE;
	}
}

static int nav_cmd_last(struct ui *ui, const struct cmd_args *a)
{
	return nav_last(ui);
}

/* C-o back, Tab forward: N steps, at most the history's length. */
static int nav_cmd_history(struct ui *ui, const struct cmd_args *a)
{
	long n = cmd_steps(a);
	int dir = a->action == ACTION_JUMP_FORWARD ? 1 : -1, r = 0, pos;

	/* until an end: the steps before it moved the cursor all the same */
	do {
		pos = ui->hist_pos;
		r |= nav_history(ui, dir);
	} while (--n > 0 && ui->hist_pos != pos);
	return r;
}

static const struct cmd_row nav_cmd_rows[] = {
	{ ACTION_CURSOR_DOWN, nav_cmd_move, CMD_NONE, 0, 0 },
	{ ACTION_CURSOR_UP, nav_cmd_move, CMD_NONE, 0, 0 },
	{ ACTION_PAGE_DOWN, nav_cmd_move, CMD_NONE, 0, 0 },
	{ ACTION_PAGE_UP, nav_cmd_move, CMD_NONE, 0, 0 },
	{ ACTION_HALFPAGE_DOWN, nav_cmd_move, CMD_NONE, 0, 0 },
	{ ACTION_HALFPAGE_UP, nav_cmd_move, CMD_NONE, 0, 0 },
	{ ACTION_SCROLL_DOWN, nav_cmd_scroll, CMD_NONE, 0, 0 },
	{ ACTION_SCROLL_UP, nav_cmd_scroll, CMD_NONE, 0, 0 },
	{ ACTION_NEXT_PSB, nav_cmd_walk, CMD_NONE, 0, 0 },
	{ ACTION_PREV_PSB, nav_cmd_walk, CMD_NONE, 0, 0 },
	{ ACTION_NEXT_ERROR, nav_cmd_walk, CMD_NONE, 0, 0 },
	{ ACTION_PREV_ERROR, nav_cmd_walk, CMD_NONE, 0, 0 },
	{ ACTION_JUMP_LAST, nav_cmd_last, CMD_NONE, 0, 0 },
	{ ACTION_JUMP_BACK, nav_cmd_history, CMD_NONE, 0, 0 },
	{ ACTION_JUMP_FORWARD, nav_cmd_history, CMD_NONE, 0, 0 },
};

CMD_TABLE(nav_cmds, nav_cmd_rows);
