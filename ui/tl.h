/* tl -- the timeline: density, markers, viewport, zoom, clicks. */
#ifndef TL_H
#define TL_H

#include <stdint.h>

struct ui;
struct pane_ops;

/* Its ops (ui.h struct pane_ops). */
extern const struct pane_ops tl_ops;
/* The byte range shown by the timeline at zoom level @zoom. */
void tl_range(struct ui *ui, uint64_t *lo, uint64_t *hi);
/* Jump to timeline column @col (mouse click).  Returns UI_DRAW_*. */
int tl_click(struct ui *ui, int col);
/* A click at row @row, column @col of the timeline pane: the first three
 * rows as tl_click(), a lane below them (tl_lanes.h) switches stream.
 * Returns UI_DRAW_*. */
int tl_pick(struct ui *ui, int row, int col);
/* The TSC of the first timed row at or after @off (256 rows looked at),
 * or 0 if none has one. */
uint64_t tl_tsc_after(struct ui *ui, uint64_t off);
/* Go to the first row at or after TSC @tsc (the last row if none), also
 * before the index knows the time.  Returns UI_DRAW_*. */
int tl_jump_tsc(struct ui *ui, uint64_t tsc);
/* Move the cursor @d columns along the timeline, as a click there would
 * (h and l in the timeline).  Returns UI_DRAW_*. */
int tl_step(struct ui *ui, long d);
/* Zoom in (@dir > 0) or out around the cursor.  Returns UI_DRAW_*. */
int tl_zoom(struct ui *ui, int dir);

#endif /* TL_H */
