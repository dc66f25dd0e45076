/* options -- the browser's command line and its config files. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cmds.h"
#include "esc.h"
#include "msg.h"
#include "options.h"
#include "safefile.h"
#include "timing_opt.h"
#include "ui.h"
#include "xdg.h"

/*
 * A line of @f into @buf, without its end (\n or \r\n).  Returns 1, 0 at
 * the end of the file, or -1 for a line that does not fit (the rest of it
 * is skipped: a piece of a line must never run as a line of its own).
 */
int options_read_line(FILE *f, char *buf, size_t size)
{
	size_t n;
	int c;

	if (!fgets(buf, (int)size, f))
		return 0;
	n = strlen(buf);
	if (n && buf[n - 1] != '\n' && !feof(f)) {
		while ((c = getc(f)) != EOF && c != '\n')
			;
		return -1;
	}
	buf[strcspn(buf, "\r\n")] = 0;
	return 1;
}

void cmd_browse_options(FILE *f)
{
	fprintf(f,
		"  --keymap NAME       default or emacs (or a .keys file)\n"
		"  --stream S          the stream (CPU) of a perf.data file: 0, cpu3, ...\n"
		"  --ascii             no Unicode glyphs\n"
		"  --no-mouse          leave the mouse to the terminal (F2 toggles)\n"
		"  --no-state          do not write marks or history\n"
		"  --no-index          do not index in the background\n"
		"  --script FILE       run keys from FILE on a virtual screen (no terminal)\n"
		"  --size COLSxROWS    the virtual screen's size (default 120x40)\n"
		"  --mtc-freq N --nom-freq N --cpuid-0x15.eax N --cpuid-0x15.ebx N\n"
		"  --cpuid-0x15.ecx HZ --cpu F/M[/S]|auto|none --tsc-freq HZ\n"
		"                      timing configuration (as for dump)\n"
		"  -h, --help          this text\n%s", imgopt_usage());
}

static void options_usage(FILE *f)
{
	fprintf(f, "usage: ptbrowse [options] TRACE\n");
	cmd_browse_options(f);
}

/* The image options, as flow takes them (imgopt.h): "--raw", "--elf",
 * "--sysroot", "--kallsyms", "--buildid-dir".  Returns 1 if @opt is one
 * (@val kept), 0 if not, -1 after saying what is wrong. */
static int options_image(struct options *o, const char *opt, const char *val)
{
	char *av[2] = { (char *)opt, (char *)val };
	int k = 0;

	if (strcmp(opt, "--raw") && strcmp(opt, "--elf") && strcmp(opt, "--sysroot") &&
	    strcmp(opt, "--kallsyms") && strcmp(opt, "--buildid-dir"))
		return 0;
	if (!*val) {
		esc_line(stderr, "ptbrowse: ", "%s needs a value", opt);
		return -1;
	}
	if (imgopt_arg(&o->img, 2, av, &k, "browse") != 1) {
		esc_line(stderr, "ptbrowse: ", "out of memory");
		return -1;
	}
	return 1;
}

int options_parse(int argc, char **argv, struct options *o)
{
	int i;

	memset(o, 0, sizeof(*o));
	o->cols = 120;
	o->rows = 40;
	o->keymap = "default";
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL;
		char opt[64];
		const char *eq;
		int r;

		if (a[0] != '-' || !strcmp(a, "-")) {
			if (o->path) {
				esc_line(stderr, "ptbrowse: ",
					 "one trace at a time ('%s' and '%s')",
					o->path, a);
				return 2;
			}
			o->path = a;
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			options_usage(stdout);
			return -1;
		}
		eq = strchr(a, '=');
		snprintf(opt, sizeof(opt), "%.*s", eq ? (int)(eq - a) : (int)strlen(a), a);
		if (!strcmp(opt, "--ascii")) { o->ascii = 1; continue; }
		if (!strcmp(opt, "--no-mouse")) { o->no_mouse = 1; continue; }
		if (!strcmp(opt, "--no-state")) { o->no_state = 1; continue; }
		if (!strcmp(opt, "--no-index")) { o->no_index = 1; continue; }
		val = eq ? eq + 1 : i + 1 < argc ? argv[++i] : NULL;
		if (!val) {
			esc_line(stderr, "ptbrowse: ", "%s needs a value", opt);
			return 2;
		}
		if (!strcmp(opt, "--script"))
			o->script = val;
		else if (!strcmp(opt, "--keymap")) {
			o->keymap = val;
			o->keymap_given = 1;
		} else if (!strcmp(opt, "--stream"))
			o->stream = val;
		else if (!strcmp(opt, "--size")) {
			int used = 0;

			if (sscanf(val, "%dx%d%n", &o->cols, &o->rows, &used) != 2 ||
			    val[used] || o->cols < 1 ||
			    o->rows < 1 || o->cols > 1000 || o->rows > 1000) {
				esc_line(stderr, "ptbrowse: ",
					 "--size %s: want COLSxROWS, e.g. 120x40", val);
				return 2;
			}
		} else if ((r = options_image(o, opt, val)) != 0) {
			if (r < 0)
				return 2;
		} else if ((r = timing_option(&o->cfg, opt, val)) != 1) {
			if (r < 0)
				esc_line(stderr, "ptbrowse: ", "%s %s: bad value", opt, val);
			else
				esc_line(stderr, "ptbrowse: ",
					 "unknown option %s (--help lists them)", opt);
			return 2;
		}
	}
	if (!o->path) {
		esc_line(stderr, "ptbrowse: ", "no trace given");
		options_usage(stderr);
		return 2;
	}
	return 0;
}

/*
 * The config files, as tmux's: /etc/ptbrowse/config, then
 * $XDG_CONFIG_HOME/ptbrowse/config, each line a prompt command ("set
 * keymap emacs", "set raw on", "bind ...").  A bad line is reported as
 * file:line in the message log and the rest goes on.  A --keymap given on
 * the command line wins over the files' "set keymap".
 */
void options_config(struct ui *ui, const struct options *o)
{
	char user[4200] = "", line[1024], name[64], last[sizeof(ui->msg)] = "";
	const char *paths[2] = { "/etc/ptbrowse/config", user };
	unsigned nerr = 0;
	size_t k;

	if (xdg_path(XDG_CONFIG, "config", user, sizeof(user), NULL, 0) < 0)
		user[0] = 0;
	for (k = 0; k < 2; k++) {
		/* A FIFO or a device there would hang the start. */
		FILE *f = paths[k][0] ? safefile_fopen_read(paths[k], 0) : NULL;
		unsigned lineno = 0;
		int r;

		if (!f) {
			if (paths[k][0] && errno != ENOENT) {
				msg_report(ui, UI_ERROR, "%s: %s (not read)", paths[k],
					   safefile_strerror(errno));
				snprintf(last, sizeof(last), "%s", ui->msg);
				nerr++;
			}
			continue;
		}
		while ((r = options_read_line(f, line, sizeof(line)))) {
			char *p = line;

			lineno++;
			if (r < 0) {
				msg_report(ui, UI_ERROR, "%s:%u: line too long (skipped)",
					   paths[k], lineno);
				snprintf(last, sizeof(last), "%s", ui->msg);
				nerr++;
				continue;
			}
			while (isspace((unsigned char)*p))
				p++;
			if (!*p || *p == '#')
				continue;
			if (o->keymap_given && sscanf(p, "set keymap %63s", name) == 1)
				continue;
			ui->msg[0] = 0;
			ui->msglog_off = 1;
			cmd_line(ui, p, TOK_COMMENT);
			ui->msglog_off = 0;
			if (ui->msg[0] && ui->msg_sev == UI_ERROR) {
				char msg[sizeof(ui->msg)];

				snprintf(msg, sizeof(msg), "%s", ui->msg);
				msg_report(ui, UI_ERROR, "%s:%u: %.300s", paths[k],
					   lineno, msg);
				snprintf(last, sizeof(last), "%s", ui->msg);
				nerr++;
			}
		}
		fclose(f);
	}
	/* The status line says what the log holds once each. */
	ui->msglog_off = 1;
	if (nerr > 1)
		msg_report(ui, UI_ERROR, "%u config errors (:messages lists them); the last: %.300s",
			   nerr, last);
	else if (nerr)
		msg_report(ui, UI_ERROR, "%s", last);
	ui->msglog_off = 0;
}
