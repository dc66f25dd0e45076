/*
 * stalls -- the longest gaps between timing packets of the whole trace
 * (:stalls [N]), from the index's per-segment summaries: a list view with
 * a jump to each.
 */
#ifndef STALLS_H
#define STALLS_H

#include "ui.h"

/* Run @res if it is :stalls.  Returns UI_DRAW_*, or UI_NOT_MINE. */
int stalls_action(struct ui *ui, const struct km_result *res);

#endif /* STALLS_H */
