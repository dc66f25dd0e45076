/*
 * cmd -- the browser's commands: one row per action, run by lookup.
 *
 * action_list.h names every action once (name, help, flags, usage); each
 * module that implements actions keeps a table of rows (struct cmd_row:
 * the action, its handler, how it takes arguments) and cmd_tables.c lists
 * those tables, registered once at start.  A prompt line (cmd_line()) or
 * a key's binding (cmd_key()) is split once by src/tok.h, in the prompt's
 * dialect CMD_TOK, and the row of its action runs; there is no other
 * dispatch.
 *
 * The prompt's dialect: blanks separate words; "..." quotes, with the
 * escapes of the marks file (\" \\ \n \t \r \xHH); nothing else quotes,
 * so 'a and `a are goto targets and #5 is packet 5.  Lines of the config
 * file add TOK_COMMENT (# at the start of a word ends the line), for every
 * command: one that takes its text as typed (goto, set, save-screen) gets
 * it without the comment.  A --script's :lines are the prompt's (no
 * comments: ":goto #5" is packet 5).
 *
 * Adding a command: an ACTION() line in action_list.h, a handler and a
 * row in the module it belongs to (which is then listed in cmd_tables.c).
 */
#ifndef CMD_H
#define CMD_H

#include <stddef.h>
#include <stdint.h>

#include "action_list.h"
#include "keymap.h"
#include "tok.h"

struct ui;
struct view;

/* The prompt's dialect of src/tok.h. */
#define CMD_TOK		TOK_CESC
/* The most words of a command, and the room for them. */
#define CMD_MAX_WORDS	64
#define CMD_BUF		8192

/* How a command takes its arguments. */
enum cmd_argspec {
	CMD_NONE,	/* none, or a count (ACT_COUNT) or a key (ACT_KEY) */
	CMD_RAW,	/* the text as typed: a->raw (goto targets, search
			 * expressions, the prompt's text) */
	CMD_WORDS,	/* words, split in CMD_TOK: a->argc, a->argv */
};

/* What a handler gets. */
struct cmd_args {
	enum action action;
	const char *name;	/* the action's name */
	const char *raw;	/* the arguments as typed, blanks before them
				 * skipped ("" if none); every spec */
	int argc;		/* CMD_WORDS: the words, the name first */
	char **argv;
	const int *quoted;	/* quoted[i]: argv[i] began with a quote */
	int has_count;		/* a count was given (3j, :cursor-down 3) */
	uint64_t count;		/* the count, 1 if none */
	int key;		/* ACT_KEY: the key read (m a), or -1 */
	const struct km_result *res;	/* the key binding that ran it, or
					 * NULL (the prompt, a file, a script) */
};

/* A handler.  Returns what needs redrawing (UI_DRAW_*). */
typedef int cmd_fn(struct ui *ui, const struct cmd_args *a);

/* One row: what runs @action. */
struct cmd_row {
	enum action action;
	cmd_fn *run;
	enum cmd_argspec spec;
	int max;		/* CMD_WORDS: the most words after the name
				 * (0: any); more is a usage error */
	unsigned tok;		/* CMD_WORDS: the dialect (src/tok.h), 0 for
				 * CMD_TOK; bind takes TOK_KEYMAP, so a
				 * .keys line works at the prompt */
};

/* A module's rows. */
struct cmd_table {
	const char *module;	/* "nav", "search", ... (for messages) */
	const struct cmd_row *rows;
	size_t n;
};

/* Define table @name over the array @rows. */
#define CMD_TABLE(name, rows) \
	const struct cmd_table name = { #name, rows, sizeof(rows) / sizeof(rows[0]) }

/* Register @t's rows.
 * Returns 0, or -pte_invalid if a row's action is not an action or
 * already has a row (a bug: two modules claim it). */
int cmd_register(const struct cmd_table *t);

/* The row of action @a, or NULL if none is registered. */
const struct cmd_row *cmd_find(enum action a);

/* A count as a number of steps: at least 1, saturated where a huge count
 * means "as far as it goes" (n * rows cannot overflow). */
long cmd_steps(const struct cmd_args *a);

/* @path with a leading "~/" as $HOME (as source takes it), into @buf:
 * for the commands that write or read a file (save-screen, export-marks).
 * Returns 0, or -pte_invalid if it does not fit. */
int cmd_path(const char *path, char *buf, size_t size);

/* Run prompt line @line ("goto 50%", "/tip", ":45%", "mark hot \"x\""),
 * split in CMD_TOK with @tok_flags added (TOK_COMMENT for a file's lines:
 * then a command taken as typed loses its comment too).
 * Trailing blanks are dropped (Tab completion leaves one).  A command
 * without ACT_ARGS takes a count (decimal, or 0x hex) or a key, and
 * nothing more.  A bad line is said on the message line.  Returns
 * UI_DRAW_*. */
int cmd_line(struct ui *ui, const char *line, unsigned tok_flags);

/* Run the action a key sequence gave (@res, KM_ACTION).  Returns
 * UI_DRAW_*. */
int cmd_key(struct ui *ui, const struct km_result *res);

/* A key in help or a list (view @v, struct view_stack's shared_key): the
 * keys that work there as in the browser, whatever the view, are those
 * the global keymap binds, alone, to suspend (C-z), help (F1) or
 * command-prompt (':').  Returns UI_DRAW_* if it ran one, -1 if @key is
 * the view's. */
int cmd_view_key(struct ui *ui, struct view *v, int key);

#endif /* CMD_H */
