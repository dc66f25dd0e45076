/*
 * options -- the browser's command line (ptbrowse [options] TRACE) and its
 * config files (/etc/ptbrowse/config, then $XDG_CONFIG_HOME/ptbrowse/config:
 * prompt commands, one a line, as tmux's).  ptbrowse +GOTO TRACE opens at
 * GOTO, as less +cmd FILE does (opengoto.h).
 */
#ifndef OPTIONS_H
#define OPTIONS_H

#include <stdio.h>

#include "imgopt.h"
#include "tm.h"

struct ui;

/* The browser's options. */
struct options {
	const char *path, *script, *keymap, *stream;
	const char *goto_target;	/* --goto or +GOTO: where to open, or NULL */
	int cols, rows, ascii, no_mouse, no_state, no_index, keymap_given;
	int no_code_index;		/* --no-code-index */
	struct tm_config cfg;
	struct imgopt img;	/* --raw, --elf, --sysroot ... (free with
				 * imgopt_release()) */
};

/* Parse @argv into @o (o->cfg: the command line's timing over the
 * --options files').
 * Returns 0, -1 after --help (printed: exit 0), 2 after a usage error
 * said on stderr, or 1 after one with a file an option names (an
 * --options file that cannot be read), said too. */
int options_parse(int argc, char **argv, struct options *o);

/* Run the config files' lines (a --keymap given wins over their "set
 * keymap"); a bad line is reported as file:line in the message log and
 * the rest goes on. */
void options_config(struct ui *ui, const struct options *o);

/* A line of @f into @buf, without its end (\n or \r\n).  Returns 1, 0 at
 * the end of the file, -ERANGE for a line that does not fit or -EILSEQ
 * for a line with a NUL byte, at once: the rest of that line is left
 * unread (an endless input has no end to skip to).  To go on, skip it
 * with options_skip_line(): a piece of a line must never run as a line
 * of its own. */
int options_read_line(FILE *f, char *buf, size_t size);

/* Read @f up to and including the next newline (or to its end). */
void options_skip_line(FILE *f);

/* --size's and resize='s "COLSxROWS", each 1 to 1000 (ncurses cannot make
 * a screen of 100000x100000: it crashed), into @cols and @rows.
 * Returns 0, or -ERANGE if @s is not that (both left alone). */
int options_size(const char *s, int *cols, int *rows);

/* What options_read_line()'s error @r says: "line too long" or "a NUL
 * byte in the line". */
const char *options_line_error(int r);

#endif /* OPTIONS_H */
