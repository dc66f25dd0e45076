/* pane_packets -- the packet pane: offset, raw bytes, ptdump payload, last IP. */
#ifndef PANE_PACKETS_H
#define PANE_PACKETS_H

struct pane_ops;

/* Its ops (ui.h struct pane_ops). */
extern const struct pane_ops pane_packets_ops;

#endif /* PANE_PACKETS_H */
