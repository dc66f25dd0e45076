/*
 * opt -- the command line of every subcommand: options declared once, in
 * tables, which feed both the parser and the --help text, so the two
 * cannot drift apart and every command words its errors the same way.
 *
 * A command declares a struct opt_cmd: its name ("ptbrowse dump"), its
 * synopsis and description, and groups of options (its own, the timing
 * options of timing_opt.h, ...), each group with the handler that takes
 * its options.  opt_parse() walks argv:
 *   --name, --name VALUE, --name=VALUE, -x, -x VALUE   an option of a table
 *   -h, --help     prints opt_usage() on stdout (every command has it)
 *   --             the rest are operands, even if they start with '-'
 *   -  and words   operands, kept in order (they may come between options)
 * Long names match exactly (no abbreviations).  Errors are one escaped
 * line on stderr (esc_line()), with the same wording for every command:
 *   PROG: unknown option: --x (--help lists them)
 *   PROG: --name: missing argument
 *   PROG: --name: takes no argument          (--flag=VALUE)
 *   PROG: --name: bad argument: VALUE        (a handler returned -EINVAL)
 */
#ifndef OPT_H
#define OPT_H

#include <stdio.h>

/* One option: a row of a table.  A table ends with a row of zeros. */
struct opt {
	const char *name;	/* the long name without "--", or NULL */
	char shortname;		/* 'o' for -o, or 0 */
	const char *arg;	/* the argument's name in --help ("FILE"), or
				 * NULL: the option takes none */
	const char *help;	/* --help's text, '\n' between lines; NULL: not
				 * listed (options for tests) */
	int id;			/* for the handler to switch on */
};

struct opt_cmd;

/* Takes option @o of a group, with @val its argument (NULL for a flag),
 * into @ctx (the group's).
 * Returns 0 if taken.
 * Returns -EINVAL if @val is bad: opt_parse() reports it, the same way
 * for every option.
 * Returns -EIO after reporting trouble that is not the command line's (a
 * file the option names cannot be read): opt_parse() stops, exit 1.
 * Returns another negative errno after reporting a usage error itself
 * (opt_error()): opt_parse() stops and returns it, exit 2. */
typedef int opt_take_fn(const struct opt_cmd *cmd, void *ctx,
			const struct opt *o, const char *val);

/* A group of options: a heading in --help, a table, its handler. */
struct opt_group {
	const char *heading;	/* "options:", "timing options ...:" */
	const struct opt *opts;
	opt_take_fn *take;
	void *ctx;
};

/* A command's command line. */
struct opt_cmd {
	const char *prog;	/* "ptbrowse dump": the messages' prefix */
	const char *usage;	/* the synopsis and description, "\n"-ended */
	const struct opt_group *groups;
	unsigned ngroups;
};

/* opt_take_fn for a group of strings: option @o's argument is stored
 * at ((const char **)@ctx)[@o->id] (the last one given wins), and a flag
 * (no argument) sets ((const char **)@ctx)[@o->id] to "".
 * Returns 0. */
int opt_take_str(const struct opt_cmd *cmd, void *ctx, const struct opt *o,
		 const char *val);

/* Parse @argv[1..@argc-1] by @cmd's tables, calling each option's group
 * handler in the order given.  The operands (the words that are not
 * options or their arguments) are moved, in order, to @argv[1..n].
 * Returns n, the number of operands (0 or more).
 * Returns -ECANCELED after printing --help on stdout: exit 0.
 * Returns -EINVAL after reporting a usage error on stderr: exit 2.
 * Returns a handler's other negative errno (it reported it): -EIO exit 1,
 * others exit 2 (opt_status()). */
int opt_parse(const struct opt_cmd *cmd, int argc, char **argv);

/* opt_parse(), also setting *@plain to how many of the operands came
 * before a "--" (all of them without one): those after it are names
 * only, never to be read as anything else (the browser's +GOTO). */
int opt_parse_split(const struct opt_cmd *cmd, int argc, char **argv,
		    int *plain);

/* Write @cmd's help to @f: its usage text, then each group's heading and
 * options, a line each ("  --name ARG       help"), and -h, --help. */
void opt_usage(const struct opt_cmd *cmd, FILE *f);

/* Write the option lines of table @opts alone to @f (for a text that
 * lists another command's options, as ptbrowse --help the browser's). */
void opt_print(const struct opt *opts, FILE *f);

/* Report a command-line error: "PROG: " and the message, escaped
 * (esc_line()), on one line of stderr. */
void opt_error(const struct opt_cmd *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* For a command that takes one trace: @n is opt_parse()'s count of
 * operands (0 or more).
 * Returns 0 if there is one (@argv[1]).
 * Returns -EINVAL after "PROG: one trace only (got 'A' and 'B')" for
 * more, or "PROG: no trace given" and @cmd's usage on stderr for none. */
int opt_one_trace(const struct opt_cmd *cmd, int n, char **argv);

/* The exit status for a negative opt_parse() return @r: 0 after --help,
 * 1 after -EIO (trouble with a file an option names), else 2 (usage). */
int opt_status(int r);

#endif /* OPT_H */
