/*
 * stalls -- the longest gaps between timing packets and the slowest clean
 * periods of the whole trace (:stalls [N]), from the index's per-segment
 * summaries: a list view with the code at each and a jump; the places
 * can be marked on the timeline.
 */
#ifndef STALLS_H
#define STALLS_H

#include <stddef.h>
#include <stdint.h>

struct cmd_table;
struct ui;

/* The places of the last :stalls list in offsets [@lo, @hi), if its 't'
 * marks them on the timeline (else none): @fn(@ui, off, period, @arg)
 * for each, at most @max (period: a slow period's, else a gap's end).
 * Returns how many were given. */
size_t stalls_tl_marks(struct ui *ui, uint64_t lo, uint64_t hi, size_t max,
		       int (*fn)(struct ui *ui, uint64_t off, int period, void *arg),
		       void *arg);

/* :stalls (cmd.h). */
extern const struct cmd_table stalls_cmds;

#endif /* STALLS_H */
