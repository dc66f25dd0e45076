/*
 * sym_ui -- symbols where the browser shows an IP: the packet pane's last
 * IP column and TIP/FUP payloads as "function+0xoff" (or hex, toggled),
 * and the status line's code context at the cursor: the function, its
 * source file:line and the task running there.
 *
 * Everything comes from the code context (code.h: the image set, the
 * cached symbol formatter, the task reader); what is not known stays hex
 * or is left out, never guessed.  The function at the cursor is, in the
 * code view on an instruction row, that row's; else the one of the
 * instruction the cursor's packet decided (or, on a packet that decides
 * none, the last one decided before it), from a flow window of the
 * cursor's PSB segment, decoded once per segment and kept; without code,
 * an IP packet's own IP.  A flow record is named in the address space
 * its code was read in (flow_rec.asid), as flow and the code view name
 * it.
 */
#ifndef SYM_UI_H
#define SYM_UI_H

#include <stddef.h>
#include <stdint.h>

struct ui;
struct win_row;
struct cmd_table;

/* Whether IPs are shown as symbols (ui->pk_cols & UI_PK_SYM). */
int sym_ui_on(const struct ui *ui);

/* @ip of the packet at @off as "function+0xoff" into @buf, shortened to
 * at most @width columns (the function's name cut, "..", the offset
 * kept; bytes outside printable ASCII become '?', so a column stays
 * aligned).
 * Returns 1 with @buf set, or 0 (@buf "") if the caller shows hex:
 * symbols are off, no symbol holds @ip, or @width is under 4. */
int sym_ui_ip(struct ui *ui, uint64_t off, uint64_t ip, int width, char *buf,
	      size_t size);

/* @ip read in address space @asid (a flow record's, flow_rec.asid) as
 * "function+0xoff" into @buf, shortened as sym_ui_ip() does, whether or
 * not symbols are on (the code view always names its rows).
 * Returns 1 with @buf set, or 0 (@buf ""): no symbol holds @ip, or
 * @width is under 4. */
int sym_ui_name(struct ui *ui, uint64_t asid, uint64_t ip, int width, char *buf,
		size_t size);

/* The status line's code context at the cursor row @row into @buf, in at
 * most @room columns: "  function+0xoff  file.c:12  comm pid/tid cpuN".
 * In the code view on an instruction row, that instruction's.
 * The file:line goes first when there is no room, then the task; the
 * function's name is shortened last.  Unknown parts are left out.
 * Returns the length written (0 and "" if nothing is known or fits). */
size_t sym_ui_status(struct ui *ui, const struct win_row *row, char *buf,
		     size_t size, int room);

/* Symbols on or off (:set symbols, toggle-symbols).  Turning them on where
 * none can be known says why on the message line.  Returns UI_DRAW_*. */
int sym_ui_set(struct ui *ui, int on);

/* Forget the status line's flow window (a reload or stream switch makes
 * it stale; it also notices a new stream or image by itself). */
void sym_ui_reset(struct ui *ui);

/* The toggle-symbols command's row. */
extern const struct cmd_table sym_ui_cmds;

#endif /* SYM_UI_H */
