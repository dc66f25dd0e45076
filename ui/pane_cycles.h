/* pane_cycles -- the cycle pane, row-aligned with the packet pane: cycles, TSC,
 * time, the delta from the reference, CBR, MHz. */
#ifndef PANE_CYCLES_H
#define PANE_CYCLES_H

struct pane_ops;
struct win_row;

/* Its ops (ui.h struct pane_ops). */
extern const struct pane_ops pane_cycles_ops;
/* What the time model found wrong at @row (a dropped MTC, a TSC going
 * back, ...), or NULL. */
const char *pane_cycles_trouble(const struct win_row *row);
/* The trouble, or else a note on how to read @row's cycle count. */
const char *pane_cycles_note(const struct win_row *row);

#endif /* PANE_CYCLES_H */
