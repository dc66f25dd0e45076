/* options -- the browser's command line and its config files. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "cmds.h"
#include "idxcache.h"
#include "msg.h"
#include "opengoto.h"
#include "opt.h"
#include "options.h"
#include "safefile.h"
#include "timing_opt.h"
#include "tm_config.h"
#include "ui.h"
#include "xdg.h"

/*
 * A line of @f into @buf, without its end (\n or \r\n).  Returns 1, 0 at
 * the end of the file, -ERANGE for a line that does not fit or -EILSEQ
 * for one with a NUL byte, as soon as that is seen: the rest of the line
 * is left unread (/dev/zero, or a FIFO that never sends a newline, has no
 * end to skip to).  A caller that goes on skips it with
 * options_skip_line(), so that a piece of a line never runs as a line of
 * its own (fgets() cannot tell a NUL from the string's end, so this reads
 * a byte at a time).
 */
int options_read_line(FILE *f, char *buf, size_t size)
{
	size_t n = 0;
	int c;

	if (!size)
		return -ERANGE;
	while ((c = getc(f)) != EOF && c != '\n') {
		if (!c || n + 1 >= size) {
			buf[n] = 0;
			return c ? -ERANGE : -EILSEQ;
		}
		buf[n++] = (char)c;
	}
	buf[n] = 0;
	if (c == EOF && !n)
		return 0;
	if (n && buf[n - 1] == '\r')
		buf[n - 1] = 0;
	return 1;
}

void options_skip_line(FILE *f)
{
	int c;

	while ((c = getc(f)) != EOF && c != '\n')
		;
}

/* What options_read_line()'s error @r says of a line. */
const char *options_line_error(int r)
{
	return r == -EILSEQ ? "a NUL byte in the line" : "line too long";
}

int options_size(const char *s, int *cols, int *rows)
{
	unsigned long v[2];
	char *end;
	int i;

	for (i = 0; i < 2; i++) {
		/* a digit first: strtoul takes blanks and a sign, and %d
		 * wrapped 4294967416 to 120 */
		if (!isdigit((unsigned char)*s))
			return -ERANGE;
		errno = 0;
		v[i] = strtoul(s, &end, 10);
		if (errno || v[i] < 1 || v[i] > 1000 || *end != (i ? 0 : 'x'))
			return -ERANGE;
		s = end + 1;
	}
	*cols = (int)v[0];
	*rows = (int)v[1];
	return 0;
}

enum { B_KEYMAP, B_STREAM, B_ASCII, B_NO_MOUSE, B_NO_STATE, B_NO_INDEX,
       B_NO_CODE_INDEX, B_SCRIPT, B_SIZE, B_GOTO, B_CACHE_MAX };

static const struct opt browse_opts[] = {
	{ "goto", 0, "TARGET", "open at TARGET, as :goto takes it (also +TARGET,\n"
	  "as less's +cmd)", B_GOTO },
	{ "keymap", 0, "NAME", "default or emacs (or a .keys file)", B_KEYMAP },
	{ "stream", 0, "S", "the stream (CPU) of a perf.data file: 0, cpu3, ...",
	  B_STREAM },
	{ "ascii", 0, NULL, "no Unicode glyphs", B_ASCII },
	{ "no-mouse", 0, NULL, "leave the mouse to the terminal (F2 toggles)",
	  B_NO_MOUSE },
	{ "no-state", 0, NULL, "do not write marks or history", B_NO_STATE },
	{ "no-index", 0, NULL, "do not index in the background", B_NO_INDEX },
	{ "no-code-index", 0, NULL, "do not make the code index (the function view\n"
	  "decodes its ranges)", B_NO_CODE_INDEX },
	{ "cache-max", 0, "SIZE", "the index cache's size limit (default 2GiB, 0:\n"
	  "none; set cache-max in the config)", B_CACHE_MAX },
	{ "script", 0, "FILE", "run keys from FILE on a virtual screen (no terminal)",
	  B_SCRIPT },
	{ "size", 0, "COLSxROWS", "the virtual screen's size (default 120x40)",
	  B_SIZE },
	{ 0 }
};

static int browse_take(const struct opt_cmd *cmd, void *ctx,
		       const struct opt *opt, const char *val)
{
	struct options *o = ctx;
	struct stat st;

	switch (opt->id) {
	case B_KEYMAP: o->keymap = val; o->keymap_given = 1; break;
	case B_STREAM: o->stream = val; break;
	case B_ASCII: o->ascii = 1; break;
	case B_NO_MOUSE: o->no_mouse = 1; break;
	case B_NO_STATE: o->no_state = 1; break;
	case B_NO_INDEX: o->no_index = 1; break;
	case B_NO_CODE_INDEX: o->no_code_index = 1; break;
	case B_SCRIPT:
		o->script = val;
		/* stdio opens a directory and fails only at the first read
		 * ("read error"): say what it is, before the trace opens */
		if (!stat(val, &st) && S_ISDIR(st.st_mode)) {
			opt_error(cmd, "--script %s: is a directory", val);
			return -EIO;
		}
		break;
	case B_GOTO: o->goto_target = val; break;
	case B_CACHE_MAX: {
		uint64_t max;

		if (idxcache_parse_size(val, &max) < 0) {
			opt_error(cmd, "--cache-max: bad argument: %s (a size such as "
				  "2GiB or 500MB; 0: no limit)", val);
			return -ERANGE;
		}
		/* wins over the config's (idxcache_max()) */
		idxcache_set_max(max);
		break;
	}
	case B_SIZE:
		if (options_size(val, &o->cols, &o->rows) < 0) {
			opt_error(cmd, "--size %s: want COLSxROWS, e.g. 120x40", val);
			return -ERANGE;
		}
		break;
	}
	return 0;
}

/* The browser's command line, parsing into @o (NULL: for --help alone). */
static void browse_cmd(struct options *o, struct opt_group g[3],
		       struct opt_cmd *cmd)
{
	g[0] = (struct opt_group){ "browser options:", browse_opts,
				   browse_take, o };
	g[1] = (struct opt_group){ TIMING_OPT_HEADING, timing_opts,
				   timing_opt_take, o ? &o->cfg : NULL };
	g[2] = (struct opt_group){ IMGOPT_HEADING, imgopt_opts, imgopt_take,
				   o ? &o->img : NULL };
	*cmd = (struct opt_cmd){ "ptbrowse", "usage: ptbrowse [options] [+GOTO] TRACE\n",
				 g, 3 };
}

void cmd_browse_options(FILE *f)
{
	static const struct opt help[] = {
		{ "help", 'h', NULL, "this text", 0 }, { 0 }
	};
	struct opt_group g[3];
	struct opt_cmd cmd;
	unsigned k;

	browse_cmd(NULL, g, &cmd);
	opt_print(browse_opts, f);
	opt_print(help, f);
	for (k = 1; k < cmd.ngroups; k++) {
		fprintf(f, "\n%s\n", g[k].heading);
		opt_print(g[k].opts, f);
	}
}

/*
 * The operands of less's +cmd among @n operands at @argv[1..], the first
 * @plain of them before a "--" (after it, +x.pt is a file, as for less):
 * the last one wins, as the last --goto does; each is taken out of the
 * list.  Returns the operands left, or -EINVAL after a usage error (a
 * target that does not parse: it would only fail once the browser is up).
 */
static int options_plus(const struct opt_cmd *cmd, int n, int plain, char **argv,
			struct options *o)
{
	const char *how = "--goto ";
	char err[256];
	int i, k = 0;

	for (i = 1; i <= n; i++) {
		if (i <= plain && argv[i][0] == '+' && argv[i][1]) {
			o->goto_target = argv[i] + 1;
			how = "+";
		} else {
			argv[1 + k++] = argv[i];
		}
	}
	if (o->goto_target && opengoto_check(o->goto_target, err, sizeof(err)) < 0) {
		opt_error(cmd, "%s%s: %s", how, o->goto_target, err);
		return -EINVAL;
	}
	return k;
}

/* Whether --keymap's name resolves: a bad one is a usage error (exit 2),
 * said before the trace is opened (browse_new() loaded it after that and
 * exited 1).  Returns 0, or -EINVAL after saying why. */
static int options_keymap(const struct opt_cmd *cmd, const struct options *o)
{
	char err[256];
	struct km *km;
	int r;

	if (!o->keymap_given)
		return 0;
	km = km_new();
	if (!km)
		return 0;	/* browse_new() says it */
	r = km_load(km, o->keymap, err, sizeof(err));
	km_free(km);
	if (r < 0) {
		opt_error(cmd, "--keymap %s: %s", o->keymap, err);
		return -EINVAL;
	}
	return 0;
}

int options_parse(int argc, char **argv, struct options *o)
{
	struct opt_group g[3];
	struct opt_cmd cmd;
	int r, plain;

	memset(o, 0, sizeof(*o));
	imgopt_init(&o->img);
	o->cols = 120;
	o->rows = 40;
	o->keymap = "default";
	browse_cmd(o, g, &cmd);
	r = opt_parse_split(&cmd, argc, argv, &plain);
	if (r == -ECANCELED)
		return -1;
	if (r >= 0)
		r = options_plus(&cmd, r, plain, argv, o);
	if (r < 0 || (r = opt_one_trace(&cmd, r, argv)) < 0 ||
	    (r = options_keymap(&cmd, o)) < 0)
		return opt_status(r);
	/* --options files' timing, under the command line's (as flow) */
	tm_config_merge(&o->cfg, &o->img.timing);
	o->path = argv[1];
	return 0;
}

/* The config's error count and the last one said, for the summary. */
struct options_errs {
	unsigned n;
	char last[sizeof(((struct ui *)0)->msg)];
};

/* Say what went wrong at a config line (the message line has it). */
static void options_config_err(struct ui *ui, struct options_errs *e)
{
	snprintf(e->last, sizeof(e->last), "%s", ui->msg);
	e->n++;
}

/* Run config line @p (@path:@lineno), its message logged as
 * "file:line: ..." if it is an error. */
static void options_config_run(struct ui *ui, const char *path, unsigned lineno,
			       const char *p, struct options_errs *e)
{
	ui->msg[0] = 0;
	ui->msglog_off = 1;
	cmd_line(ui, p, TOK_COMMENT);
	ui->msglog_off = 0;
	/* set keymap gives a new keymap */
	km_hold(ui->km);
	if (ui->msg[0] && ui->msg_sev == UI_ERROR) {
		char msg[sizeof(ui->msg)];

		snprintf(msg, sizeof(msg), "%s", ui->msg);
		msg_report(ui, UI_ERROR, "%s:%u: %.300s", path, lineno, msg);
		options_config_err(ui, e);
	}
}

/* Config line @path:@lineno "set cache-max @val": a bad size is said in
 * pass 1, as a bad line. */
static void options_cache_max(struct ui *ui, const char *path, unsigned lineno,
			      const char *val, int pass, struct options_errs *e)
{
	uint64_t max;

	if (pass != 1 || !idxcache_parse_size(val, &max))
		return;
	msg_report(ui, UI_ERROR, "%s:%u: set %s: bad size: %.64s (a size such as "
		   "2GiB or 500MB; 0: no limit)", path, lineno, IDXCACHE_MAX_KEY,
		   val[0] ? val : "(none)");
	options_config_err(ui, e);
}

/*
 * Config file @path, pass @pass: 0 runs its "set keymap" lines alone, 1
 * the others.  The keymap is set first, so that the bind lines of both
 * files change it wherever they stand: a "set keymap" after them
 * replaced the keymap they had changed, silently.  A --keymap given on
 * the command line wins over the files' "set keymap".
 */
static void options_config_file(struct ui *ui, const struct options *o,
				const char *path, int pass, struct options_errs *e)
{
	/* A FIFO or a device there would hang the start. */
	FILE *f = path[0] ? safefile_fopen_read(path, 0) : NULL;
	char line[1024], name[64];
	unsigned lineno = 0;
	int r;

	if (!f) {
		if (path[0] && errno != ENOENT && pass == 0) {
			msg_report(ui, UI_ERROR, "%s: %s (not read)", path,
				   safefile_strerror(errno));
			options_config_err(ui, e);
		}
		return;
	}
	/* The ways out (q, :, C-c) are checked once the whole file is read,
	 * as a keymap file's: a line may unbind q before a later one binds
	 * another key to quit. */
	km_hold(ui->km);
	while ((r = options_read_line(f, line, sizeof(line)))) {
		char *p = line;
		const char *q;
		int setkm;

		lineno++;
		if (r < 0) {
			/* a regular file (safefile_fopen_read): it ends */
			options_skip_line(f);
			if (pass == 1) {
				msg_report(ui, UI_ERROR, "%s:%u: %s (skipped)", path,
					   lineno, options_line_error(r));
				options_config_err(ui, e);
			}
		}
		while (r > 0 && isspace((unsigned char)*p))
			p++;
		if (r < 0 || !*p || *p == '#')
			continue;
		/* the cache's limit, which the index cache reads itself
		 * (idxcache_max(), for every command): checked, not run */
		if (idxcache_config_line(p, name, sizeof(name))) {
			options_cache_max(ui, path, lineno, name, pass, e);
			continue;
		}
		/* (as cmd_run() takes it: a ':' before the command too) */
		q = p + (*p == ':');
		while (isspace((unsigned char)*q))
			q++;
		setkm = sscanf(q, "set keymap %63s", name) == 1;
		if (setkm != (pass == 0) || (setkm && o->keymap_given))
			continue;
		options_config_run(ui, path, lineno, p, e);
	}
	fclose(f);
	if (km_release(ui->km, path, line, sizeof(line))) {
		msg_report(ui, UI_ERROR, "%s", line);
		options_config_err(ui, e);
	}
}

/*
 * The config files, as tmux's: /etc/ptbrowse/config, then
 * $XDG_CONFIG_HOME/ptbrowse/config, each line a prompt command ("set
 * keymap emacs", "set raw on", "bind ...").  A bad line is reported as
 * file:line in the message log and the rest goes on.  Their "set keymap"
 * lines run first (options_config_file()).
 */
void options_config(struct ui *ui, const struct options *o)
{
	char user[4200] = "";
	const char *paths[2] = { "/etc/ptbrowse/config", user };
	struct options_errs e = { 0, "" };
	int pass;
	size_t k;

	if (xdg_path(XDG_CONFIG, "config", user, sizeof(user), NULL, 0) < 0)
		user[0] = 0;
	for (pass = 0; pass < 2; pass++)
		for (k = 0; k < 2; k++)
			options_config_file(ui, o, paths[k], pass, &e);
	/* The status line says what the log holds once each. */
	ui->msglog_off = 1;
	if (e.n > 1)
		msg_report(ui, UI_ERROR, "%u config errors (:messages lists them); the last: %.300s",
			   e.n, e.last);
	else if (e.n)
		msg_report(ui, UI_ERROR, "%s", e.last);
	ui->msglog_off = 0;
}
