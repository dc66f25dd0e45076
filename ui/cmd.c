/* cmd -- the rows of the modules, and running a line or a key by them. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "goto.h"
#include "msg.h"
#include "ui.h"

/* The row of each action (cmd_register()). */
static const struct cmd_row *cmd_rows[ACTION__N];

int cmd_register(const struct cmd_table *t)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		const struct cmd_row *row = &t->rows[i];

		if (row->action < 0 || row->action >= ACTION__N || !row->run ||
		    (cmd_rows[row->action] && cmd_rows[row->action] != row))
			return -pte_invalid;
		cmd_rows[row->action] = row;
	}
	return 0;
}

const struct cmd_row *cmd_find(enum action a)
{
	return a < 0 || a >= ACTION__N ? NULL : cmd_rows[a];
}

long cmd_steps(const struct cmd_args *a)
{
	return a->count > (1ull << 40) ? 1l << 40 : a->count ? (long)a->count : 1;
}

int cmd_path(const char *path, char *buf, size_t size)
{
	const char *home = getenv("HOME");
	int n;

	if (path[0] == '~' && path[1] == '/' && home && *home)
		n = snprintf(buf, size, "%s%s", home, path + 1);
	else
		n = snprintf(buf, size, "%s", path);
	return n < 0 || (size_t)n >= size ? -pte_invalid : 0;
}

/* @a's usage line ("cursor-down [N]", "set-mark L", "goto TARGET") into
 * @buf.  Returns @buf. */
static const char *cmd_usage(enum action a, char *buf, size_t size)
{
	const struct action_info *ai = &action_table[a];

	snprintf(buf, size, "%s%s%s", ai->name, ai->usage[0] ? " " : "",
		 ai->usage[0] ? ai->usage : ai->flags & (ACT_COUNT | ACT_PREFIX) ? " [N]" :
		 ai->flags & ACT_KEY ? " L" : "");
	return buf;
}

/*
 * A file's line (@flags has TOK_COMMENT) for a row that takes its text as
 * typed: its comment cut off into @buf, and a->raw (which points into
 * @line) moved there, so "save-screen x.txt # note" writes x.txt, as a
 * split line would drop the note.  Returns the line to run.
 */
static const char *cmd_uncomment(struct cmd_args *a, const char *line,
				 unsigned flags, char *buf, size_t size)
{
	size_t c, n = strlen(line), r;

	if (!(flags & TOK_COMMENT) || a->raw < line || a->raw > line + n)
		return line;
	c = tok_comment(line, CMD_TOK);
	if (c == n || n >= size)
		return line;
	r = (size_t)(a->raw - line);
	memcpy(buf, line, c);
	while (c && isspace((unsigned char)buf[c - 1]))
		c--;
	buf[c] = 0;
	a->raw = buf + (r < c ? r : c);
	if (!*a->raw)
		a->key = -1;	/* the key was the comment's # */
	return buf;
}

/* Run @a by its row; @line is the whole command (its name first), split
 * with @flags for CMD_WORDS. */
static int cmd_exec(struct ui *ui, struct cmd_args *a, const char *line, unsigned flags)
{
	const struct cmd_row *row = cmd_find(a->action);
	char buf[CMD_BUF], *argv[CMD_MAX_WORDS + 1];
	int quoted[CMD_MAX_WORDS], argc;
	struct tok_err e;

	if (!row) {
		msg_report(ui, UI_WARN, "%s: not available yet", a->name);
		return UI_DRAW_STATUS;
	}
	/* A split line drops its comment in its own dialect. */
	if (row->spec != CMD_WORDS)
		line = cmd_uncomment(a, line, flags, buf, sizeof(buf));
	if (row->spec == CMD_WORDS) {
		argc = tok_split(line, (row->tok ? row->tok : CMD_TOK) | flags, buf,
				 sizeof(buf), argv, quoted, CMD_MAX_WORDS, &e);
		if (argc < 0) {
			msg_report(ui, UI_ERROR, "%s: %s", a->name, e.msg);
			return UI_DRAW_STATUS;
		}
		argv[argc] = NULL;
		if (row->max && argc - 1 > row->max) {
			msg_report(ui, UI_ERROR, "%s: too many arguments (usage: %s)",
				   a->name, cmd_usage(a->action, buf, sizeof(buf)));
			return UI_DRAW_STATUS;
		}
		a->argc = argc;
		a->argv = argv;
		a->quoted = quoted;
	}
	return row->run(ui, a);
}

/* The count at @s (a digit): decimal, or hex after 0x; a leading 0 is
 * not octal (:goto-percent 08 is 8%, not 0%).  *@end is set past it.
 * Returns the count, saturated. */
static uint64_t cmd_count(const char *s, const char **end)
{
	int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X') &&
		  isxdigit((unsigned char)s[2]);
	char *e;
	uint64_t v = strtoull(s, &e, hex ? 16 : 10);

	*end = e;
	return v;
}

/*
 * The arguments @args of @a, an action without ACT_ARGS: a count
 * (ACT_COUNT) or a key (ACT_KEY) into @a, and nothing after it; one rule
 * for every such row, which never looks at a->raw.  Returns 0, or -1
 * after saying what is wrong (":cursor-up -5", ":cursor-down 3x",
 * ":quit now").
 */
static int cmd_fixed_args(struct ui *ui, struct cmd_args *a, const char *args)
{
	unsigned flags = action_table[a->action].flags;
	const char *rest = args, *w = args;
	char usage[128];

	/* (a count prefix takes its count as the count: digit-argument 12) */
	if ((flags & (ACT_COUNT | ACT_PREFIX)) && isdigit((unsigned char)*args)) {
		a->count = cmd_count(args, &rest);
		a->has_count = 1;
	} else if ((flags & ACT_KEY) && *args) {
		a->key = (unsigned char)*args;
		rest = args + 1;
	}
	if (!*rest)
		return 0;
	cmd_usage(a->action, usage, sizeof(usage));
	/* a count glued to more, or none where one goes: a bad count */
	if ((flags & (ACT_COUNT | ACT_PREFIX)) &&
	    (rest == args || !isspace((unsigned char)*rest))) {
		while (*w && !isspace((unsigned char)*w))
			w++;
		msg_report(ui, UI_ERROR, "%s: bad count '%.*s' (usage: %s)", a->name,
			   (int)(w - args), args, usage);
	} else {
		msg_report(ui, UI_ERROR, "%s: too many arguments (usage: %s)", a->name,
			   usage);
	}
	return -1;
}

/* cmd_line() on a line without trailing blanks. */
static int cmd_run(struct ui *ui, const char *line, unsigned tok_flags)
{
	struct cmd_args a = { .count = 1, .key = -1 };
	const char *p = line, *args, *end;
	char name[64];
	size_t n = 0;

	while (isspace((unsigned char)*p))
		p++;
	if (*p == ':')
		p++;
	/* "/tip", "?tip", "&ovf": a search or the filter. */
	if (*p == '/' || *p == '?' || *p == '&') {
		a.action = *p == '/' ? ACTION_SEARCH_FORWARD : *p == '?' ?
			   ACTION_SEARCH_BACKWARD : ACTION_FILTER;
		a.name = action_name(a.action);
		a.raw = p + 1;
		return cmd_exec(ui, &a, p, tok_flags) | UI_DRAW_ALL;
	}
	/* ":123", ":0x1f40", ":50%" alone are gotos (hx). */
	if (goto_is_target(p)) {
		a.action = ACTION_GOTO;
		a.name = action_name(a.action);
		a.raw = p;
		return cmd_exec(ui, &a, p, tok_flags);
	}
	while (p[n] && !isspace((unsigned char)p[n]) && n + 1 < sizeof(name)) {
		name[n] = p[n];
		n++;
	}
	name[n] = 0;
	args = p + n;
	while (isspace((unsigned char)*args))
		args++;
	if (!name[0])
		return UI_DRAW_NONE;
	a.action = action_find(name);
	if (a.action == ACTION_NONE) {
		msg_report(ui, UI_ERROR, "%s: no such command (F1 lists them)", name);
		return UI_DRAW_STATUS;
	}
	a.name = action_name(a.action);
	a.raw = args;
	if (!(action_table[a.action].flags & ACT_ARGS)) {
		if (cmd_fixed_args(ui, &a, args) < 0)
			return UI_DRAW_STATUS;
	} else {
		/* the row reads its arguments; a count or key is a hint */
		if ((action_table[a.action].flags & ACT_COUNT) &&
		    isdigit((unsigned char)*args)) {
			a.count = cmd_count(args, &end);
			a.has_count = 1;
		}
		if ((action_table[a.action].flags & ACT_KEY) && *args)
			a.key = (unsigned char)*args;
	}
	return cmd_exec(ui, &a, p, tok_flags);
}

int cmd_line(struct ui *ui, const char *line, unsigned tok_flags)
{
	size_t n = strlen(line), k;
	char *copy;
	int r;

	/* Trailing blanks end no word: readline's Tab completion adds one
	 * and a config line may end in one, and a command taking its text
	 * as typed would keep them ("keymap 'emacs ' not found", a file
	 * "out.txt ").  A blank escaped by a backslash (bind's dialect)
	 * stays. */
	for (k = n; k && isspace((unsigned char)line[k - 1]); k--)
		;
	if (k == n)
		return cmd_run(ui, line, tok_flags);
	if (k && line[k - 1] == '\\')
		k++;
	copy = malloc(k + 1);
	if (!copy) {
		msg_report(ui, UI_ERROR, "out of memory");
		return UI_DRAW_STATUS;
	}
	memcpy(copy, line, k);
	copy[k] = 0;
	r = cmd_run(ui, copy, tok_flags);
	free(copy);
	return r;
}

/*
 * The text a binding gives a row taking its text as typed: its arguments
 * as kept (the prompt's dialect, each word quoted as in the bind line),
 * so a pipe's sh gets the shell's quotes as typed at the prompt; but one
 * quoted word alone is the text itself, which the quotes only delimit
 * (command-prompt "region " opens the prompt with 'region ').
 */
static const char *cmd_key_raw(const char *args, char *buf, size_t size)
{
	char *argv[2];
	int quoted[2];

	if (tok_split(args, CMD_TOK, buf, size, argv, quoted, 2, NULL) == 1 &&
	    quoted[0])
		return argv[0];
	return args;
}

int cmd_key(struct ui *ui, const struct km_result *res)
{
	const struct cmd_row *row = cmd_find(res->action);
	struct cmd_args a = { 0 };
	char line[KM_ARGS_MAX + 64], raw[KM_ARGS_MAX];

	a.action = res->action;
	a.name = action_name(res->action);
	a.raw = row && row->spec == CMD_RAW ?
		cmd_key_raw(res->args, raw, sizeof(raw)) : res->args;
	a.has_count = res->has_count;
	a.count = res->count;
	a.key = res->key;
	a.res = res;
	snprintf(line, sizeof(line), "%s %s", a.name, res->args);
	return cmd_exec(ui, &a, line, 0);
}

int cmd_view_key(struct ui *ui, struct view *v, int key)
{
	struct km_state st;
	struct km_result res;

	(void)v;
	if (!ui->km)
		return -1;
	km_state_reset(&st);
	if (km_feed(ui->km, &st, KM_T_NONE, KM_T_NONE, key, &res) != KM_ACTION ||
	    (res.action != ACTION_SUSPEND && res.action != ACTION_HELP &&
	     res.action != ACTION_COMMAND_PROMPT))
		return -1;
	return cmd_key(ui, &res);
}
