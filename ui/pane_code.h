/*
 * pane_code -- the code view: the packet pane expanded into the
 * instructions each packet decided, under it (IP, function+0xoff,
 * disassembly, indented by call depth, calls and returns marked), and a
 * cycle pane row-aligned with it (each run's cycles, exact or bounded).
 *
 * The byte offset stays the one coordinate: ui->cursor is the packet
 * that decided the row at the cursor (a packet row or one of its
 * instructions), so every other pane, the marks, searches, goto and the
 * packet view follow it; an instruction row is the packet's offset and
 * its place under it, which resets to the packet row when anything else
 * moves the cursor.  Only the PSB segments near the rows shown are
 * decoded (flow_window(), a few cached), so a move is instant anywhere.
 */
#ifndef PANE_CODE_H
#define PANE_CODE_H

#include <stdint.h>

struct cmd_table;
struct flow_window;
struct pane_ops;
struct ui;

/* The code pane and its cycle pane (ui.h struct pane_ops). */
extern const struct pane_ops pane_code_ops;
extern const struct pane_ops pane_code_cycles_ops;

/* code-view [packets|code] (cmd.h). */
extern const struct cmd_table pane_code_cmds;

/* Whether the code view is on. */
int pane_code_on(const struct ui *ui);

/* Turn the code view on or off (the layout is redone).
 * Returns UI_DRAW_*. */
int pane_code_set(struct ui *ui, int on);

/* In browser_layout(): give the packet and cycle panes' places to the
 * code panes while the code view is on (the code pane takes the width).
 * Nothing when it is off. */
void pane_code_layout(struct ui *ui);

/* Move the cursor @n rows of the code view (negative: up), or move the
 * view and the cursor @n rows together if @page, or scroll the view
 * alone if @scroll.  Returns UI_DRAW_*. */
int pane_code_move(struct ui *ui, long n, int page, int scroll);

/* While the code view is on, the PSB segment holding packet @off as it
 * shows it (decoded now if it is not kept), for the status line's
 * function: one decode serves both.  Returns NULL if the view is off or
 * nothing precedes @off. */
const struct flow_window *pane_code_window(struct ui *ui, uint64_t off);

/* While the code view is on, the offset just past the last packet whose
 * rows (its own, or instructions it decided) the view shows: a packet
 * view's window is its rows, the code view's its packets' instructions.
 * Returns the image's size where that packet is the last, or when the
 * view is off. */
uint64_t pane_code_view_end(struct ui *ui);

/* A click on row @k (0: the first row under the heading).
 * Returns UI_DRAW_*. */
int pane_code_click(struct ui *ui, int k);

#endif /* PANE_CODE_H */
