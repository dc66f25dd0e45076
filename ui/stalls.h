/*
 * stalls -- the longest gaps between timing packets of the whole trace
 * (:stalls [N]), from the index's per-segment summaries: a list view with
 * a jump to each.  browse.c calls these hooks; state lives in stalls.c.
 */
#ifndef STALLS_H
#define STALLS_H

#include "ui.h"

/* Run @res if it is :stalls.  Returns UI_DRAW_*, or UI_NOT_MINE. */
int stalls_action(struct ui *ui, const struct km_result *res);
/* Whether the list is up, a key for it (returns UI_DRAW_*), drawing it. */
int stalls_view_active(const struct ui *ui);
int stalls_view_key(struct ui *ui, int key);
void stalls_view_draw(struct ui *ui);

#endif /* STALLS_H */
