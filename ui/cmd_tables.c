/* cmd_tables -- the list of the modules' command tables. */
#include <stddef.h>

#include "cmd.h"
#include "cmd_tables.h"
#include "funcs.h"
#include "goto_ui.h"
#include "help.h"
#include "iterations.h"
#include "marks_list.h"
#include "marks_ui.h"
#include "nav_cmd.h"
#include "pane_code.h"
#include "panes.h"
#include "pipe_ui.h"
#include "reload.h"
#include "search_ui.h"
#include "session.h"
#include "settings.h"
#include "stalls.h"
#include "streams_ui.h"
#include "sym_ui.h"
#include "tl_lanes_cmd.h"
#include "tl_zoom.h"
#include "ui.h"
#include "yank.h"

static const struct cmd_table *const cmd_tables[] = {
	&nav_cmds, &goto_ui_cmds, &search_ui_cmds, &marks_ui_cmds, &marks_list_cmds,
	&streams_ui_cmds, &tl_lanes_cmds, &tl_zoom_cmds,
	&stalls_cmds, &funcs_cmds, &iterations_cmds, &panes_cmds, &help_cmds, &settings_cmds, &session_cmds,
	&pane_code_cmds, &reload_cmds, &sym_ui_cmds, &yank_cmds, &pipe_ui_cmds,
};

int cmd_tables_register(void)
{
	size_t i;
	int r;

	for (i = 0; i < sizeof(cmd_tables) / sizeof(cmd_tables[0]); i++)
		if ((r = cmd_register(cmd_tables[i])) < 0)
			return r;
	return 0;
}
