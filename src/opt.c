/* opt -- the command line of every subcommand, from tables (see opt.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "esc.h"
#include "opt.h"

/* The column --help's text starts at; a longer option pushes it right. */
#define OPT_HELP_COL 19

void opt_error(const struct opt_cmd *cmd, const char *fmt, ...)
{
	char msg[1024], prefix[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(prefix, sizeof(prefix), "%s: ", cmd->prog);
	esc_line(stderr, prefix, "%s", msg);
}

int opt_one_trace(const struct opt_cmd *cmd, int n, char **argv)
{
	if (n > 1) {
		opt_error(cmd, "one trace only (got '%s' and '%s')", argv[1],
			  argv[2]);
		return -EINVAL;
	}
	if (n < 1) {
		opt_error(cmd, "no trace given");
		opt_usage(cmd, stderr);
		return -EINVAL;
	}
	return 0;
}

int opt_status(int r)
{
	if (r == -ECANCELED)
		return 0;
	return r == -EIO ? 1 : 2;
}

static int opt_end(const struct opt *o)
{
	return !o->name && !o->shortname;
}

/* One row of --help: the option's column, then its text a line at a time. */
static void opt_print_row(const struct opt *o, FILE *f)
{
	const char *h = o->help, *nl;
	char left[128];
	int n;

	n = snprintf(left, sizeof(left), "  %s%.1s%s%s%s%s%s",
		     o->shortname ? "-" : "", o->shortname ? &o->shortname : "",
		     o->shortname && o->name ? ", " : "", o->name ? "--" : "",
		     o->name ? o->name : "", o->arg ? " " : "",
		     o->arg ? o->arg : "");
	fputs(left, f);
	for (;;) {
		nl = strchr(h, '\n');
		fprintf(f, "%*s%.*s\n", n <= OPT_HELP_COL - 2 ? OPT_HELP_COL - n : 2,
			"", nl ? (int)(nl - h) : (int)strlen(h), h);
		if (!nl)
			break;
		h = nl + 1;
		n = 0;
	}
}

void opt_print(const struct opt *opts, FILE *f)
{
	for (; !opt_end(opts); opts++)
		if (opts->help)
			opt_print_row(opts, f);
}

void opt_usage(const struct opt_cmd *cmd, FILE *f)
{
	static const struct opt help = { "help", 'h', NULL, "this text", 0 };
	unsigned g;

	fputs(cmd->usage, f);
	for (g = 0; g < cmd->ngroups; g++) {
		fprintf(f, "\n%s\n", cmd->groups[g].heading);
		opt_print(cmd->groups[g].opts, f);
		if (!g)
			opt_print_row(&help, f);
	}
}

int opt_take_str(const struct opt_cmd *cmd, void *ctx, const struct opt *o,
		 const char *val)
{
	((const char **)ctx)[o->id] = val ? val : "";
	return 0;
}

/* The row named by @a ("--name", "--name=VALUE" or "-x"), and its group.
 * Returns the row, or NULL if no table has it. */
static const struct opt *opt_find(const struct opt_cmd *cmd, const char *a,
				  const struct opt_group **group)
{
	size_t len = 0;
	unsigned g;

	if (a[1] == '-')
		len = strcspn(a + 2, "=");
	for (g = 0; g < cmd->ngroups; g++) {
		const struct opt *o;

		for (o = cmd->groups[g].opts; !opt_end(o); o++) {
			if (a[1] == '-' ? (o->name && strlen(o->name) == len &&
					   !memcmp(o->name, a + 2, len)) :
			    (o->shortname && o->shortname == a[1] && !a[2])) {
				*group = &cmd->groups[g];
				return o;
			}
		}
	}
	return NULL;
}

int opt_parse(const struct opt_cmd *cmd, int argc, char **argv)
{
	int plain;

	return opt_parse_split(cmd, argc, argv, &plain);
}

int opt_parse_split(const struct opt_cmd *cmd, int argc, char **argv,
		    int *plain)
{
	const struct opt_group *group;
	const struct opt *o;
	int i, n = 0, r;

	*plain = argc;	/* more than there can be: no "--" */
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL, *eq;

		if (a[0] != '-' || !a[1]) {
			argv[1 + n++] = argv[i];
			continue;
		}
		if (!strcmp(a, "--")) {
			*plain = n;
			while (++i < argc)
				argv[1 + n++] = argv[i];
			break;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			opt_usage(cmd, stdout);
			return -ECANCELED;
		}
		o = opt_find(cmd, a, &group);
		if (!o) {
			opt_error(cmd, "unknown option: %s (--help lists them)", a);
			return -EINVAL;
		}
		eq = a[1] == '-' ? strchr(a, '=') : NULL;
		if (o->arg) {
			if (eq)
				val = eq + 1;
			else if (i + 1 < argc)
				val = argv[++i];
			else {
				opt_error(cmd, "%.*s: missing argument",
					  (int)strcspn(a, "="), a);
				return -EINVAL;
			}
		} else if (eq) {
			opt_error(cmd, "%.*s: takes no argument", (int)(eq - a), a);
			return -EINVAL;
		}
		r = group->take(cmd, group->ctx, o, val);
		if (r == -EINVAL)
			opt_error(cmd, "%.*s: bad argument: %s", (int)strcspn(a, "="),
				  a, val ? val : "");
		if (r < 0)
			return r;
	}
	return n;
}
