/*
 * keymap -- key names, keymap files and the key-sequence state machine.
 *
 * Keys are ints: a byte (C-a is 1, Tab 9, Enter 13, Escape 27, Space 32),
 * an ncurses KEY_* code (KEY_UP, KEY_F(1), KEY_BTAB, KEY_BACKSPACE, ...),
 * or KM_META | key for M-key (ESC then key).  ncurses sends M-x as two keys,
 * so the UI combines them before km_feed():
 *
 *	c = getch();
 *	if (c == 27) {			// with set_escdelay(25)
 *		nodelay(w, TRUE); n = getch(); nodelay(w, FALSE);
 *		if (n != ERR) c = KM_META | n;
 *	}
 *
 * Bindings live in tables: global, one per pane (packets, timing,
 * timeline) and one per mode (prompt, visual).  A key sequence is looked
 * up in the mode table, then the pane table, then global; the first table
 * that binds the sequence (or a longer one starting with it) decides, so
 * "bind -T visual KEY none" blocks a global KEY and unbind lets it through.
 * The prompt mode is looked up alone: what it does not bind goes to
 * readline.  A sequence that is bound is complete at once ("g" fires
 * even if "g g" is bound too); one bound to none that starts longer ones
 * in its table is their prefix.
 *
 * Files are lines of bind / unbind / source commands (see km_exec()),
 * "#" comments, and shell-like quoting.  Errors never stop loading: each
 * is kept as "file:line: message" for the UI to show (km_error()).
 */
#ifndef KEYMAP_H
#define KEYMAP_H

#include <stddef.h>
#include <stdint.h>

#include "action_list.h"

/* M-key: added to a key code (above every ncurses KEY_* code). */
#define KM_META		0x10000
/* The longest key sequence, e.g. "C-x r j" is 3. */
#define KM_SEQ_MAX	4
/* Room for a binding's arguments in a km_result, with the NUL. */
#define KM_ARGS_MAX	256

/* Binding tables, in no particular order (lookup order is above). */
enum km_table {
	KM_T_GLOBAL,
	KM_T_PACKETS,
	KM_T_TIMING,
	KM_T_TIMELINE,
	KM_T_PROMPT,
	KM_T_VISUAL,
	KM_NTABLES,
	KM_T_NONE = -1	/* no mode, or no pane */
};

/* The keymap: tables of bindings and the error list.  Opaque. */
struct km;

/* One binding, as seen by the help screen. */
struct km_binding_view {
	enum km_table table;
	const int *keys;	/* the sequence */
	size_t nkeys;
	enum action action;	/* ACTION_NONE for "none" (blocked) */
	const char *args;	/* "" if none; see km_exec() */
	const char *note;	/* -N text, or "" */
};

/* What a key did. */
enum km_status {
	KM_PENDING,	/* more keys needed (a sequence, a count, a {key}) */
	KM_ACTION,	/* run res->action */
	KM_UNBOUND,	/* the sequence is not bound (or bound to none) */
	KM_CANCELLED	/* Escape or C-g dropped a pending sequence/count,
			 * or, unbound, came with nothing pending */
};

/* The outcome of km_feed(); copies, so it outlives rebinding. */
struct km_result {
	enum km_status status;
	enum action action;	/* KM_ACTION only */
	enum km_table table;	/* the table that bound it */
	int has_count;		/* whether a count was typed */
	uint64_t count;		/* the count, 1 if none was typed */
	int key;		/* the {key} read, or -1 */
	int keys[KM_SEQ_MAX];	/* the sequence typed, without count keys */
	size_t nkeys;
	char args[KM_ARGS_MAX];	/* the binding's arguments, "" if none
				 * (see km_exec()) */
	const char *note;	/* valid until the keymap changes */
};

/* The key-sequence state; public so it lives on the stack.  Start with
 * km_state_reset(). */
struct km_state {
	int keys[KM_SEQ_MAX];	/* the sequence so far */
	size_t nkeys;
	int counting;		/* a count is being typed */
	int uarg;		/* started by universal-argument, no digits yet */
	int ndigits;
	uint64_t count;
	int await;		/* an action waits for its {key} */
	struct km_result pending;	/* that action */
	int describe;		/* describe mode: see km_state_describe() */
};

/* Allocate an empty keymap (no bindings).
 * Returns it, or NULL if out of memory. */
struct km *km_new(void);

/* Free @km (NULL is fine). */
void km_free(struct km *km);

/* Load keymap @name: the built-in NAME (keymaps/NAME.keys, compiled in),
 * then the user's $XDG_CONFIG_HOME/ptbrowse/keymaps/NAME.keys on top of it
 * if that file exists.  A @name with a "/" is a file path.
 * Errors inside the files go to the error list.
 * Returns 0 if at least one of the two was found.
 * Returns -pte_invalid if @name is NULL or neither exists; @err says so. */
int km_load(struct km *km, const char *name, char *err, size_t errlen);

/* The name given to the last successful km_load(), or "". */
const char *km_name(const struct km *km);

/* No keymap leaves the user without a way out: once a text, a file or a
 * command line has run (km_parse(), km_source(), km_load(), km_exec();
 * lines held by km_hold() at km_release()),
 * quit, command-prompt and interrupt that no key reaches from every pane
 * any more are bound again to q, : and C-c (freeing those keys), and the
 * error list says so. */

/* Parse keymap text @text as if it were file @fname (for messages).
 * Errors go to the error list.
 * Returns the number of lines with errors (0 if all is well). */
int km_parse(struct km *km, const char *fname, const char *text);

/* Load keymap file @path ("~/" is expanded; a relative one is beside the
 * file being read).  A bare name of a built-in keymap ("default",
 * "emacs.keys") with no such file there is the built-in one.  Errors go
 * to the list.
 * Returns the number of lines with errors.
 * Returns -pte_io if the file cannot be read; @err names it and why. */
int km_source(struct km *km, const char *path, char *err, size_t errlen);

/* Run one keymap command @line, as typed at the prompt:
 *   bind [-T TABLE] [-N NOTE] KEY [KEY...] COMMAND|none [ARG...]
 *   unbind [-T TABLE] KEY [KEY...]      (the sequence KEY KEY...)
 *   unbind -a [-T TABLE]                (all bindings, or a table's)
 *   source FILE
 * A "{key}" after a command that reads a key (ACT_KEY) documents it; such
 * commands always read one.  km_result.args is the argument tail in the
 * prompt's dialect (cmd.h: only "..." quotes): the words joined by
 * spaces, each in "..." (\" and \\ escaped) if it was quoted in the line
 * (a quoted word may mean something: region's note) or has a blank or a
 * ", else as is (command-prompt "goto " gives "\"goto \"", region r \'a
 * gives "r 'a"); but pipe's words, when it has more than one, are
 * written as its sh reads them as written: one quoted with '...' (or \
 * outside quotes: \$HOME) in '...' (a ' as '\''), so sh takes it
 * literally (bind X pipe -- awk '{print $1}'), one in "..." in "..." as
 * the shell does, one quoted in part (x'$HOME', -F'\t') as one of these
 * or refused if that cannot be told (x'a'$1: "quote all of it").
 * The prompt's split gives the words back, with what was quoted; a
 * command taking its text as typed gets the words unquoted (cmd_key()).
 * Blank lines and comments are fine.
 * Returns 0.
 * Returns -pte_invalid with a one-line message in @err (no file:line)
 * if the line is wrong, or -pte_io if source cannot read its file. */
int km_exec(struct km *km, const char *line, char *err, size_t errlen);

/* Run keymap command @argv (@argc words, "bind" ... as km_exec() splits
 * a line), e.g. a prompt line split once by cmd.h with TOK_KEYMAP;
 * @quoted[i] is tok_split()'s (tok.h): the quote argv[i] began with and,
 * with TOK_QUOTES, how its parts were quoted (NULL: none was; a quote
 * alone, without TOK_Q_* bits, is taken for the whole word's; 1 is ").
 * Returns as km_exec(). */
int km_exec_argv(struct km *km, int argc, char **argv, const int *quoted,
		 char *err, size_t errlen);

/* Hold the check of the ways out (above) while lines run one at a time
 * through km_exec_argv() as a whole, as a config file's: one may unbind q
 * before a later one binds another key to quit.  Holding a held keymap
 * does nothing. */
void km_hold(struct km *km);

/* End km_hold(): check the ways out now, once (nothing if @km is not
 * held).
 * Returns 1 if it bound any again, with "@file: keymap: ..." in @err
 * saying which (not in the error list); 0 if not. */
int km_release(struct km *km, const char *file, char *err, size_t errlen);

/* The number of collected errors' lines km_error() gives: past the
 * first KM_MAX_ERRORS, one line says how many more. */
size_t km_nerrors(const struct km *km);

/* The number of errors met, those past the kept ones too. */
size_t km_error_count(const struct km *km);

/* Error @i ("file:line: message"), or NULL if @i is out of range. */
const char *km_error(const struct km *km, size_t i);

/* Forget the collected errors. */
void km_clear_errors(struct km *km);

/* Forget the errors collected from the @from'th on (km_nerrors() before
 * a command: its own), keeping those before it. */
void km_forget_errors_from(struct km *km, size_t from);

/* Reset @st to "no key typed". */
void km_state_reset(struct km_state *st);

/* Reset @st and enter describe mode: the next sequence is looked up
 * without counts or {key} and reported (KM_ACTION or KM_UNBOUND) instead
 * of being run; Escape and C-g are keys like any other. */
void km_state_describe(struct km_state *st);

/* The count prefixes, as their keys work in km_feed(): universal-argument
 * (a count of 4, times 4 again before any digit) and digit-argument @d
 * (0-9, appended to the count). */
void km_state_uarg(struct km_state *st);
void km_state_digit(struct km_state *st, int d);

/* Whether @st is in the middle of something (for the status line). */
int km_state_pending(const struct km_state *st);

/* Feed @key (a key code as above) with mode table @mode (KM_T_PROMPT,
 * KM_T_VISUAL or KM_T_NONE) and the focused pane's table @pane
 * (KM_T_PACKETS, KM_T_TIMING, KM_T_TIMELINE or KM_T_NONE).
 * digit-argument and universal-argument bindings are handled here: after
 * "5 0" or "C-u 5 0" or "M-5 M-0", the next action gets count 50 (C-u
 * alone gives 4, C-u C-u 16).  Enter keys (10, 13, KEY_ENTER) and
 * Backspace keys (127, KEY_BACKSPACE) are folded into one code each.
 * Feed keys only: handle KEY_RESIZE and KEY_MOUSE before, or they end a
 * pending sequence as unbound.
 * Returns the status, also in @res (which may not be NULL):
 * KM_ACTION with action, count, key, args; KM_PENDING; KM_UNBOUND;
 * KM_CANCELLED. */
enum km_status km_feed(const struct km *km, struct km_state *st,
		       enum km_table mode, enum km_table pane, int key,
		       struct km_result *res);

/* What the sequence typed so far looks like ("C-x r", "3 ]"), into @buf.
 * Returns @buf. */
char *km_state_describe_pending(const struct km_state *st, char *buf,
				size_t size);

/* Describe result @res in one line, into @buf:
 * "C-x r j: jump-mark {key} -- Jump to register [global]" or
 * "C-x r q is not bound".  Returns @buf. */
char *km_describe(const struct km_result *res, char *buf, size_t size);

/* The number of bindings in table @t (0 for a bad @t). */
size_t km_count(const struct km *km, enum km_table t);

/* Binding @i of table @t, in the order bound, into @v.
 * Returns 0, or -pte_invalid if @t or @i is out of range. */
int km_get(const struct km *km, enum km_table t, size_t i,
	   struct km_binding_view *v);

/* The keys bound to @action in table @t, as "j, Down, C-n", into @buf
 * ("" if none).  Returns the number of bindings found. */
int km_keys_for(const struct km *km, enum km_table t, enum action action,
		char *buf, size_t size);

/* Call @fn(@arg, name) for every keymap --keymap can name: the built-in
 * ones, then the user's $XDG_CONFIG_HOME/ptbrowse/keymaps/NAME.keys (a
 * name may come twice).  Stops at and returns a negative @fn result. */
int km_list_names(int (*fn)(void *arg, const char *name), void *arg);

/* The code of key name @name ("C-a", "M-x", "F1", "PgDn", "'", ...).
 * Returns the code (>= 0), or -1 if @name is not a key. */
int km_key_parse(const char *name);

/* The name of key @key, parseable by km_key_parse(), into @buf.
 * Returns @buf. */
char *km_key_name(int key, char *buf, size_t size);

/* The names of @n keys separated by spaces, into @buf.  Returns @buf. */
char *km_seq_name(const int *keys, size_t n, char *buf, size_t size);

/* The table called @name ("global", "packets", ...), or KM_T_NONE. */
enum km_table km_table_find(const char *name);

/* The name of table @t, or "?". */
const char *km_table_name(enum km_table t);

/* Split @line into words as a keymap file line: src/tok.h's TOK_KEYMAP
 * dialect ('...' and "..." quote, a backslash quotes the next character,
 * an unquoted # at the start of a word ends the line).
 * @argv gets up to @max pointers into @buf (@size bytes).
 * Returns the number of words.
 * Returns -pte_invalid with a message in @err for an unterminated quote,
 * too many words or too long a line. */
int km_split(const char *line, char *buf, size_t size, char **argv,
	     int max, char *err, size_t errlen);

#endif /* KEYMAP_H */
