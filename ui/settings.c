/* settings -- the commands about the program itself: options (:set), key
 * bindings, the prompt, describe-key, saving the screen, cancel,
 * interrupt, suspend and quit. */
#include <curses.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "browser.h"
#include "cmd.h"
#include "complete.h"
#include "marks_panel.h"
#include "marks_ui.h"
#include "msg.h"
#include "pane_code.h"
#include "prompt.h"
#include "screen.h"
#include "search_ui.h"
#include "session.h"
#include "settings.h"
#include "sym_ui.h"
#include "term.h"
#include "ui.h"

/* The cycle pane's columns by name, in display order (:set columns). */
static const struct { const char *n; unsigned f; } settings_cols[] = {
	{ "dcyc", UI_CY_DELTA }, { "cycles", UI_CY_CYCLES }, { "tsc", UI_CY_TSC },
	{ "time", UI_CY_TIME }, { "dref", UI_CY_DMARK }, { "cbr", UI_CY_CBR },
	{ "mhz", UI_CY_FREQ },
};
#define SETTINGS_NCOLS (sizeof(settings_cols) / sizeof(settings_cols[0]))

/* Columns @f as :set columns takes them ("time,cbr,mhz"; "none"), into
 * @buf.  Returns @buf. */
static char *settings_cols_name(unsigned f, char *buf, size_t size)
{
	size_t i, len = 0;

	buf[0] = 0;
	for (i = 0; i < SETTINGS_NCOLS; i++)
		if ((f & settings_cols[i].f) && len < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%s",
						len ? "," : "", settings_cols[i].n);
	if (!buf[0])
		snprintf(buf, size, "none");
	return buf;
}

/*
 * Report the keymap's errors from the @from'th on (a command's own), then
 * forget them: each in the message log, then the count and the first on
 * the message line.  Inside the config file (msglog_off) the log gets the
 * line's last message alone, "file:line: ..." by options_config(): the
 * errors are logged here all the same, else the count would promise
 * ":messages lists them" in vain.
 */
static void settings_km_errors(struct ui *ui, size_t from)
{
	size_t i, n = km_nerrors(ui->km);
	int off = ui->msglog_off;

	if (n <= from)
		return;
	if (n - from == 1) {
		msg_report(ui, UI_ERROR, "%s", km_error(ui->km, from));
	} else {
		ui->msglog_off = 0;
		for (i = from; i < n; i++)
			msg_report(ui, UI_ERROR, "%s", km_error(ui->km, i));
		ui->msglog_off = off;
		/* (past the kept errors one line says how many more: the
		 * count is of all of them) */
		size_t all = km_error_count(ui->km);

		msg_report(ui, UI_ERROR, "%zu keymap errors (:messages lists them); "
			   "the first: %s", all > from ? all - from : n - from,
			   km_error(ui->km, from));
	}
	km_forget_errors_from(ui->km, from);
}

/* :set OPTION VALUE */
static int settings_set_line(struct ui *ui, const char *args)
{
	char opt[32] = "", val[1024] = "", cols[128];
	int on;

	sscanf(args, "%31s %1023[^\n]", opt, val);
	on = !strcmp(val, "on") || !strcmp(val, "1") || !strcmp(val, "yes");
	/* a switch takes on or off, nothing else (nothing is not on) */
	if ((!strcmp(opt, "raw") || !strcmp(opt, "ip") || !strcmp(opt, "mouse") ||
	     !strcmp(opt, "symbols")) && !on &&
	    strcmp(val, "off") && strcmp(val, "0") && strcmp(val, "no")) {
		msg_report(ui, UI_ERROR, "set %s: on or off%s%s%s", opt,
			   val[0] ? ", not '" : "", val, val[0] ? "'" : "");
		return UI_DRAW_STATUS;
	}
	/* no column is "none": an empty list is a value left out */
	if (!strcmp(opt, "columns") && !val[strspn(val, ", ")]) {
		msg_report(ui, UI_ERROR, "set columns: which (dcyc cycles tsc time "
			   "dref cbr mhz, or none)");
		return UI_DRAW_STATUS;
	}
	if (!strcmp(opt, "axis") && strcmp(val, "time") && strcmp(val, "bytes")) {
		msg_report(ui, UI_ERROR, "set axis: time or bytes, not '%s'", val);
		return UI_DRAW_STATUS;
	}
	if (!opt[0]) {
		msg_report(ui, UI_INFO, "raw=%s ip=%s symbols=%s mouse=%s axis=%s columns=%s "
			   "keymap=%s", ui->pk_cols & UI_PK_RAW ? "on" : "off",
			   ui->pk_cols & UI_PK_IP ? "on" : "off",
			   ui->pk_cols & UI_PK_SYM ? "on" : "off", ui->mouse ? "on" : "off",
			   ui->tl_time ? "time" : "bytes",
			   settings_cols_name(ui->cy_cols, cols, sizeof(cols)),
			   ui->keymap_name);
		return UI_DRAW_STATUS;
	}
	if (!strcmp(opt, "view")) {
		if (strcmp(val, "packets") && strcmp(val, "code")) {
			msg_report(ui, UI_ERROR, "set view: packets or code, not '%s'", val);
			return UI_DRAW_STATUS;
		}
		return pane_code_set(ui, !strcmp(val, "code"));
	}
	if (!strcmp(opt, "raw")) {
		ui->pk_cols = on ? ui->pk_cols | UI_PK_RAW : ui->pk_cols & ~UI_PK_RAW;
		browser_layout(ui);
	}
	else if (!strcmp(opt, "ip"))
		ui->pk_cols = on ? ui->pk_cols | UI_PK_IP : ui->pk_cols & ~UI_PK_IP;
	else if (!strcmp(opt, "symbols"))
		return sym_ui_set(ui, on);
	else if (!strcmp(opt, "axis"))
		ui->tl_time = !strcmp(val, "time");
	else if (!strcmp(opt, "columns")) {
		char *save, *w, buf[sizeof(val)];
		unsigned f = 0;
		size_t i;

		snprintf(buf, sizeof(buf), "%s", val);
		for (w = strtok_r(buf, ", ", &save); w; w = strtok_r(NULL, ", ", &save)) {
			if (!strcasecmp(w, "none"))	/* as :set shows no column */
				continue;
			for (i = 0; i < SETTINGS_NCOLS; i++)
				if (!strcasecmp(w, settings_cols[i].n))
					break;
			if (i == SETTINGS_NCOLS) {
				msg_report(ui, UI_ERROR, "set columns: no column '%s' "
					   "(dcyc cycles tsc time dref cbr mhz)", w);
				return UI_DRAW_STATUS;
			}
			f |= settings_cols[i].f;
		}
		ui->cy_cols = f;
	} else if (!strcmp(opt, "mouse")) {
		term_mouse(ui, on);
	} else if (!strcmp(opt, "keymap")) {
		char err[256];
		struct km *km = km_new();

		if (!km || km_load(km, val, err, sizeof(err))) {
			km_free(km);
			msg_report(ui, UI_ERROR, "%s", km ? err : "out of memory");
			return UI_DRAW_STATUS;
		}
		km_free(ui->km);
		ui->km = km;
		km_state_reset(&ui->ks);
		snprintf(ui->keymap_name, sizeof(ui->keymap_name), "%s", val);
		/* A broken line in the user's file: as at startup. */
		settings_km_errors(ui, 0);
	} else {
		char all[128] = "";
		int i;

		/* the list completion offers: one list, none left out */
		for (i = 0; compl_set_options[i]; i++)
			snprintf(all + strlen(all), sizeof(all) - strlen(all), "%s%s",
				 i ? " " : "", compl_set_options[i]);
		msg_report(ui, UI_ERROR, "set: no option '%s' (%s)", opt, all);
		return UI_DRAW_STATUS;
	}
	return UI_DRAW_ALL;
}

static int settings_set(struct ui *ui, const struct cmd_args *a)
{
	return settings_set_line(ui, a->raw);
}

/* bind, unbind, source: the keymap's own commands (keymap.h), on words
 * split once, as a keymap file's line (TOK_KEYMAP). */
static int settings_keymap(struct ui *ui, const struct cmd_args *a)
{
	/* The errors before it are another's (the keymap file's, not yet
	 * reported while the config runs): not this command's to say. */
	size_t before = km_nerrors(ui->km);
	char err[256];

	if (km_exec_argv(ui->km, a->argc, a->argv, a->quoted, err, sizeof(err)) < 0) {
		msg_report(ui, UI_ERROR, "%s", err);
		return UI_DRAW_STATUS;
	}
	settings_km_errors(ui, before);
	return UI_DRAW_ALL;
}

/* :save-screen FILE ("~/" is $HOME, as for source) */
static int settings_save_screen(struct ui *ui, const struct cmd_args *a)
{
	char err[4200], path[4096];

	if (!a->raw[0]) {
		msg_report(ui, UI_ERROR, "save-screen: which file?");
		return UI_DRAW_STATUS;
	}
	if (cmd_path(a->raw, path, sizeof(path)) < 0) {
		msg_report(ui, UI_ERROR, "save-screen: file name too long");
		return UI_DRAW_STATUS;
	}
	view_draw(&ui->vs);
	/* The file holds the screen as it was; then the line says it was
	 * written.  Not under --script: nobody reads that line, and the
	 * script's next screen would show it instead of what it shows. */
	if (screen_save(ui, path, err, sizeof(err)))
		msg_report(ui, UI_ERROR, "save-screen: %s", err);
	else if (!ui->headless)
		msg_report(ui, UI_INFO, "screen saved to %s (%dx%d)", path,
			   ui->cols, ui->rows);
	return UI_DRAW_STATUS;
}

static int settings_mouse(struct ui *ui, const struct cmd_args *a)
{
	term_mouse(ui, !ui->mouse);
	msg_report(ui, UI_INFO, "mouse %s", ui->mouse ? "on" : "off");
	return UI_DRAW_STATUS;
}

static int settings_describe(struct ui *ui, const struct cmd_args *a)
{
	browser_describe(ui);
	return UI_DRAW_STATUS;
}

static int settings_prompt(struct ui *ui, const struct cmd_args *a)
{
	prompt_open(ui, a->raw);
	return UI_DRAW_ALL;
}

/* Escape, C-g: the visual selection, else the message and a pending
 * key sequence. */
static int settings_cancel(struct ui *ui, const struct cmd_args *a)
{
	if (marks_ui_cancel(ui))
		return UI_DRAW_ALL;
	ui->msg[0] = 0;
	km_state_reset(&ui->ks);
	return UI_DRAW_STATUS;
}

/* C-c: a search or the filter's look for rows, else a region summary,
 * else the index. */
static int settings_interrupt(struct ui *ui, const struct cmd_args *a)
{
	if (search_ui_stop(ui) || marks_panel_interrupt(ui))
		return UI_DRAW_ALL;
	return session_interrupt(ui);
}

/* :universal-argument, :digit-argument N (a script's or a keymap file's
 * line, the prompt): the count the next key gets, as C-u or N's digits
 * typed would start it (typed, those keys never come here). */
static void settings_count(struct ui *ui, uint64_t n)
{
	char d[24];
	int i;

	snprintf(d, sizeof(d), "%llu", (unsigned long long)n);
	for (i = 0; d[i]; i++)
		km_state_digit(&ui->ks, d[i] - '0');
}

/* :universal-argument [N]: C-u, or C-u N */
static int settings_uarg(struct ui *ui, const struct cmd_args *a)
{
	km_state_uarg(&ui->ks);
	if (a->has_count)
		settings_count(ui, a->count);
	return UI_DRAW_STATUS;
}

static int settings_digits(struct ui *ui, const struct cmd_args *a)
{
	if (!a->has_count) {
		msg_report(ui, UI_ERROR, "digit-argument: which digits? (digit-argument N)");
		return UI_DRAW_STATUS;
	}
	settings_count(ui, a->count);
	return UI_DRAW_STATUS;
}

static int settings_suspend(struct ui *ui, const struct cmd_args *a)
{
	term_suspend(ui);
	return UI_DRAW_ALL;
}

static int settings_quit(struct ui *ui, const struct cmd_args *a)
{
	ui->quit = 1;
	return UI_DRAW_NONE;
}

static const struct cmd_row settings_rows[] = {
	{ ACTION_SET, settings_set, CMD_RAW, 0, 0 },
	{ ACTION_BIND, settings_keymap, CMD_WORDS, 0, TOK_KEYMAP },
	{ ACTION_UNBIND, settings_keymap, CMD_WORDS, 0, TOK_KEYMAP },
	{ ACTION_SOURCE, settings_keymap, CMD_WORDS, 0, TOK_KEYMAP },
	{ ACTION_SAVE_SCREEN, settings_save_screen, CMD_RAW, 0, 0 },
	{ ACTION_TOGGLE_MOUSE, settings_mouse, CMD_NONE, 0, 0 },
	{ ACTION_DESCRIBE_KEY, settings_describe, CMD_NONE, 0, 0 },
	{ ACTION_COMMAND_PROMPT, settings_prompt, CMD_RAW, 0, 0 },
	{ ACTION_CANCEL, settings_cancel, CMD_NONE, 0, 0 },
	{ ACTION_INTERRUPT, settings_interrupt, CMD_NONE, 0, 0 },
	{ ACTION_SUSPEND, settings_suspend, CMD_NONE, 0, 0 },
	{ ACTION_UNIVERSAL_ARGUMENT, settings_uarg, CMD_NONE, 0, 0 },
	{ ACTION_DIGIT_ARGUMENT, settings_digits, CMD_NONE, 0, 0 },
	{ ACTION_QUIT, settings_quit, CMD_NONE, 0, 0 },
};

CMD_TABLE(settings_cmds, settings_rows);
