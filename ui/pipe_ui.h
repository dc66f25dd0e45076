/*
 * pipe_ui -- |: rows to a shell command, as less's | does.
 *
 *   pipe [text|raw] [region NAME | rows N] [--] COMMAND...
 *
 * The rows are region NAME's, N rows from the cursor (a count: 5| opens
 * the prompt with "pipe rows 5 "), the visual selection, else the packet
 * pane's rows on the screen.  text (the default) gives them as the packet
 * pane shows them, a line each; raw gives their bytes as a decodable
 * slice, the bytes `ptbrowse export` writes (from the PSB at or before
 * the first row; export.h), so `| ptdump /dev/stdin` works.  COMMAND is
 * the rest of the line as typed, run by sh -c with the rows on its
 * standard input and the terminal for its output; the browser leaves the
 * screen for it, then waits for Enter and comes back.  A command that
 * begins with one of the words above follows a "--".
 */
#ifndef PIPE_UI_H
#define PIPE_UI_H

#include <stddef.h>
#include <stdint.h>

struct cmd_table;

/* A parsed pipe line. */
struct pipe_req {
	int raw;		/* the bytes, not the text */
	char region[64];	/* "" if none */
	uint64_t rows;		/* rows N (0 if none) */
	const char *cmd;	/* the command: the rest of the line */
};

/* Parse pipe's arguments @line (the text after "pipe") into @req
 * (@req->cmd points into @line).
 * Returns 0, or -pte_invalid with a one-line message in @err (no
 * command, a region without a name, a bad row count). */
int pipe_ui_parse(const char *line, struct pipe_req *req, char *err,
		  size_t errlen);

/* pipe (cmd.h). */
extern const struct cmd_table pipe_ui_cmds;

#endif /* PIPE_UI_H */
