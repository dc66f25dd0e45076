/* opengoto -- +GOTO and --goto: the place the browser opens at. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "goto.h"
#include "goto_ui.h"
#include "msg.h"
#include "opengoto.h"
#include "ui.h"

/* The one target of this process (one browser per process). */
static struct {
	const char *arg;	/* NULL: nothing waits */
	uint64_t cursor;	/* where the cursor was when it began waiting */
	int said;		/* "waiting" was said */
} og;

/* less's +/PATTERN and +?PATTERN, a search rather than a place. */
static int opengoto_is_search(const char *arg)
{
	return arg[0] == '/' || arg[0] == '?' || goto_ui_sideband(arg);
}

int opengoto_check(const char *arg, char *err, size_t errlen)
{
	struct goto_target t;

	if (!arg || !*arg) {
		snprintf(err, errlen, "goto: no target");
		return -pte_invalid;
	}
	if (opengoto_is_search(arg) || !strcmp(arg, "G"))
		return 0;
	return goto_parse(arg, &t, err, errlen);
}

/* Whether the index is still being built (or about to be). */
static int opengoto_index_busy(struct ui *ui)
{
	struct idx_progress p;

	if (!ui->idx)
		return 0;
	idx_progress(ui->idx, &p);
	return !p.finished;
}

/* Land on the target as :goto does (the same command, so the same row). */
static int opengoto_land(struct ui *ui, const char *arg)
{
	char line[512];

	if (og.said)
		ui->msg[0] = 0;
	og.arg = NULL;
	if (arg[0] == '/' || arg[0] == '?')
		snprintf(line, sizeof(line), "%s", arg);
	else
		snprintf(line, sizeof(line), "goto %s", strcmp(arg, "G") ? arg : "$");
	return cmd_line(ui, line, 0) | UI_DRAW_ALL;
}

/* Whether the index may yet answer target @arg: a sync point, a time, a
 * cycle count or a packet number.  Marks, regions and offsets are known
 * now: waiting for the whole index only delays their error. */
static int opengoto_may_wait(const char *arg)
{
	struct goto_target t;

	if (goto_parse(arg, &t, NULL, 0) < 0)
		return 0;
	switch (t.kind) {
	case GOTO_PSB:
	case GOTO_TSC:
	case GOTO_TIME:
	case GOTO_CYCLES:
	case GOTO_ORDINAL:
		return 1;
	default:
		return 0;
	}
}

/* Try the target: land, wait (@busy: the index may answer later), or say
 * why not. */
static int opengoto_try(struct ui *ui, int busy)
{
	char err[256] = "";
	uint64_t off;
	int deeper = 0;

	if (ui->cursor != og.cursor) {
		/* A key moved the cursor first: that is where the user is. */
		og.arg = NULL;
		return UI_DRAW_NONE;
	}
	/* (a target deep in a long segment: :goto looks in the background) */
	if (!strcmp(og.arg, "G") || opengoto_is_search(og.arg) ||
	    goto_ui_offset_deeper(ui, og.arg, &off, &deeper, err, sizeof(err)) == 0 ||
	    deeper)
		return opengoto_land(ui, og.arg);
	if (busy && opengoto_may_wait(og.arg)) {
		if (!og.said)
			msg_report(ui, UI_INFO, "+%.200s: going there once the index "
				   "knows it (keys work meanwhile)", og.arg);
		og.said = 1;
		return UI_DRAW_STATUS;
	}
	msg_report(ui, UI_ERROR, "+%.200s: %s", og.arg, err[0] ? err : "goto: failed");
	og.arg = NULL;
	return UI_DRAW_STATUS;
}

void opengoto_start(struct ui *ui, const char *arg, int index_coming)
{
	og.arg = arg && *arg ? arg : NULL;
	og.cursor = ui->cursor;
	og.said = 0;
	/* Searches start with the index (they use it), at the first poll. */
	if (og.arg && !opengoto_is_search(og.arg))
		opengoto_try(ui, index_coming);
}

int opengoto_poll(struct ui *ui)
{
	if (!og.arg)
		return UI_DRAW_NONE;
	return opengoto_try(ui, opengoto_index_busy(ui));
}
