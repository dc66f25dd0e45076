/*
 * stalls -- the longest gaps between timing packets, the slowest clean
 * periods and the segments with the most halted time (sleeps) of the
 * whole trace (:stalls [N]), from the index's per-segment summaries: a
 * list view with the code at each and a jump; the places can be marked on
 * the timeline.
 */
#ifndef STALLS_H
#define STALLS_H

#include <stddef.h>
#include <stdint.h>

struct cmd_table;
struct ui;

/* What a place on the timeline is (stalls_tl_marks()). */
enum stalls_tl_kind {
	STALLS_TL_GAP,		/* the end of a long gap */
	STALLS_TL_PERIOD,	/* the end of a slow period */
	STALLS_TL_HALT,		/* a much halted segment's longest sleep */
};

/* The places of the last :stalls list in offsets [@lo, @hi), if its 't'
 * marks them on the timeline (else none): @fn(@ui, off, kind, @arg) for
 * each, at most @max (kind: enum stalls_tl_kind).
 * Returns how many were given. */
size_t stalls_tl_marks(struct ui *ui, uint64_t lo, uint64_t hi, size_t max,
		       int (*fn)(struct ui *ui, uint64_t off, int kind, void *arg),
		       void *arg);

/* :stalls (cmd.h). */
extern const struct cmd_table stalls_cmds;

/* Whether the walk that makes a :stalls list runs: the loop then looks
 * for its end often.  Returns 1 or 0. */
int stalls_busy(const struct ui *ui);

/* Wait for that walk and take its list (--script: a :stalls line's
 * screen is its list). */
void stalls_wait(struct ui *ui);

/* Stop the walk, close the view and forget the list: before the trace's
 * mapping or index goes. */
void stalls_stop(struct ui *ui);

#endif /* STALLS_H */
