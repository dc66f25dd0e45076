/* goto_ui -- goto targets (src/goto.h) at the browser's cursor, and the
 * goto commands. */
#ifndef GOTO_UI_H
#define GOTO_UI_H

#include <stddef.h>
#include <stdint.h>

struct ui;
struct cmd_table;

/* goto, goto-start, goto-end, goto-percent, goto-offset, goto-packet. */
extern const struct cmd_table goto_ui_cmds;

/* Resolve goto target text @arg (src/goto.h) at the cursor into *@off.
 * Returns 0, or a negative pte code with a message in @err. */
int goto_ui_offset(struct ui *ui, const char *arg, uint64_t *off, char *err,
		   size_t len);

/* goto_ui_offset(), and into *@deeper whether it failed only because the
 * target (tsc, t) lies past the rows of its segment looked at here, which
 * :goto looks further for in the background (goto_job.h).  Returns 0, or
 * a negative pte code with a message in @err. */
int goto_ui_offset_deeper(struct ui *ui, const char *arg, uint64_t *off, int *deeper,
			  char *err, size_t len);

/* Whether :goto @arg is a search rather than a place: it starts with a
 * sideband or code term (comm, pid, tid, switch, sym, call, ret).
 * Returns 1 or 0. */
int goto_ui_sideband(const char *arg);

#endif /* GOTO_UI_H */
