/* pane_packets -- the packet pane: offset, raw bytes, ptdump payload, last IP. */
#ifndef PANE_PACKETS_H
#define PANE_PACKETS_H

#include <stddef.h>

struct pane_ops;
struct ui;
struct win_iter;

/* Its ops (ui.h struct pane_ops). */
extern const struct pane_ops pane_packets_ops;

/* The text of the row at @it as the pane shows it (offset, raw bytes if
 * shown, type, payload, the last IP or its symbol in full), without the
 * gutter or trailing blanks, into @buf of @size bytes (cut if too long).
 * Returns its length.  Yank and pipe copy rows with it. */
size_t pane_packets_row_text(struct ui *ui, struct win_iter *it, char *buf,
			     size_t size);

#endif /* PANE_PACKETS_H */
