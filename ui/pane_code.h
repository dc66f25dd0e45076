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

#include <stddef.h>

struct cmd_table;
struct flow_rec;
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

/* While the code view is on and the cursor is on one of a packet's lines
 * (an instruction, event or error row, not the packet's own row): that
 * line's record into *@r and the address space its code was read in
 * (code_dec_rec_asid(): what the row is named and disassembled from)
 * into *@asid, for what the cursor's row shows (yank, the status line).
 * Returns 0, or -1 (the view off, a packet row, a segment's cut note). */
int pane_code_cursor_rec(struct ui *ui, struct flow_rec *r, uint64_t *asid);

/* Takes one row's text (no newline): 0, or a negative code that stops. */
typedef int pane_code_line_fn(void *ctx, const char *line, size_t len);

/* While the code view is on: @n rows from the cursor's, each as the view
 * shows it (a packet row, or an instruction's with its IP column, as at
 * 80 columns and wider), to @fn(@ctx, ...).
 * Returns the number of rows, @fn's negative return, or -1 if the view
 * is off. */
long pane_code_rows_text(struct ui *ui, unsigned long n, pane_code_line_fn *fn,
			 void *ctx);

/* Whether line @line of @w (flow's order) is the row a search hit means. */
typedef int pane_code_match_fn(void *ctx, const struct flow_window *w, size_t line);

/* A search hit at packet @off was just jumped to: put the cursor on the
 * first of its rows that @match takes (else on the packet's row), so
 * that the code view shows the instruction found under the cursor.  Kept
 * until the cursor is at @off with the view on (a jump placed once its
 * segment is walked; the view turned on at the hit) or a move in the
 * view; @match and @ctx must stay valid that long (@match may check that
 * its search is still the one; NULL: none kept). */
void pane_code_place(struct ui *ui, uint64_t off, pane_code_match_fn *match,
		     void *ctx);

/* A click on row @k (0: the first row under the heading).
 * Returns UI_DRAW_*. */
int pane_code_click(struct ui *ui, int k);

#endif /* PANE_CODE_H */
