/* tl_lanes_cmd -- :lane STREAM [TSC] (see tl_lanes_cmd.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "msg.h"
#include "nav.h"
#include "streams_ui.h"
#include "tl.h"
#include "tl_lanes.h"
#include "tl_lanes_cmd.h"
#include "trace.h"
#include "ui.h"
#include "perfdata.h"

int tl_lanes_switch_at(struct ui *ui, int stream, uint64_t tsc)
{
	int draw = UI_DRAW_ALL;

	if (stream != ui->stream_no)
		draw |= streams_ui_switch(ui, stream);
	if (stream != ui->stream_no)
		return draw;	/* the switch failed and said why */
	return draw | tl_jump_tsc(ui, tsc);
}

/* :lane STREAM|next|prev [TSC]: at TSC, or at the cursor's time. */
static int tl_lanes_cmd(struct ui *ui, const struct cmd_args *a)
{
	uint64_t tsc;
	char *end;
	int s;

	if (a->argc < 2) {
		msg_report(ui, UI_ERROR, "lane: which stream? (lane STREAM|next|prev [TSC])");
		return UI_DRAW_STATUS;
	}
	if (!strcmp(a->argv[1], "next") || !strcmp(a->argv[1], "prev")) {
		s = tl_lanes_next(ui, a->argv[1][0] == 'n' ? 1 : -1);
		if (s < 0) {
			msg_report(ui, UI_WARN, "lane: no %s lane", a->argv[1][0] == 'n' ?
				   "next" : "previous");
			return UI_DRAW_STATUS;
		}
	} else {
		s = trace_find_stream(ui->trace, a->argv[1]);
	}
	if (s < 0) {
		char have[256];

		msg_report(ui, UI_ERROR, "lane: no stream '%s' (it has %s)", a->argv[1],
			   perfdata_stream_list(ui->trace, have, sizeof(have)));
		return UI_DRAW_STATUS;
	}
	if (a->argc > 2) {
		errno = 0;
		tsc = strtoull(a->argv[2], &end, 0);
		if (errno || end == a->argv[2] || *end) {
			msg_report(ui, UI_ERROR, "lane: '%s' is not a TSC", a->argv[2]);
			return UI_DRAW_STATUS;
		}
	} else if (!(tsc = tl_tsc_after(ui, ui->cursor))) {
		msg_report(ui, UI_ERROR, "lane: no time at the cursor");
		return UI_DRAW_STATUS;
	}
	return tl_lanes_switch_at(ui, s, tsc);
}

static const struct cmd_row tl_lanes_cmd_rows[] = {
	{ ACTION_LANE, tl_lanes_cmd, CMD_WORDS, 2, 0 },
};

CMD_TABLE(tl_lanes_cmds, tl_lanes_cmd_rows);
