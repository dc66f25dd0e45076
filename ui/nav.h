/* nav -- moving the one cursor (a byte offset) and the view: lines, pages,
 * PSBs, errors, packet numbers, the location history. */
#ifndef NAV_H
#define NAV_H

#include <stddef.h>
#include <stdint.h>

struct ui;
struct win_row;

/* Rows of the packet pane. */
int nav_view_rows(const struct ui *ui);
/* Move the cursor @n rows (negative: up).  Returns UI_DRAW_*. */
int nav_lines(struct ui *ui, long n);
/* Scroll the view @n rows, keeping the cursor inside it. */
int nav_scroll(struct ui *ui, long n);
/* Move the view and the cursor @n rows together (pages). */
int nav_page(struct ui *ui, long n);
/* Jump to the row holding @off and remember where we were.  If the rows
 * there are decoded by a job (walk.h), the cursor stays until it is done
 * and the jump lands then (nav_poll()). */
int nav_jump(struct ui *ui, uint64_t off);
/* Reap the decoding job of walk.h and land the jump that waited for it,
 * unless a key moved the cursor meanwhile.  Sets *@busy to 2 while one
 * runs.  Returns UI_DRAW_*. */
int nav_poll(struct ui *ui, int *busy);
/* Move to the first row, or the last. */
int nav_start(struct ui *ui);
int nav_end(struct ui *ui);
/* The next (@dir > 0) or previous PSB, @n times. */
int nav_psb(struct ui *ui, int dir, uint64_t n);
/* The next or previous OVF or error row. */
int nav_error(struct ui *ui, int dir, uint64_t n);
/* The offset of packet #@ord (counted by the index from 0) into *@off.
 * Returns 0, or -pte_eos with a message in @err if the index has not
 * counted that far or there is no such packet. */
int nav_packet_offset(struct ui *ui, uint64_t ord, uint64_t *off, char *err, size_t len);
/* Back in the location history (C-o), or to the last position (''). */
int nav_history(struct ui *ui, int dir);
int nav_last(struct ui *ui);
/* Make sure the cursor is inside the view. */
void nav_fix_view(struct ui *ui);
/* The row at the cursor, copied into @row.  Returns 0 or a pte code. */
int nav_cursor_row(struct ui *ui, struct win_row *row);
/* Decode ahead in the direction of the last movement (idle time). */
void nav_prefetch(struct ui *ui);

#endif /* NAV_H */
