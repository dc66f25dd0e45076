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
/* Move the cursor @d columns along the timeline, as a click there would
 * (h and l in the timeline).  Returns UI_DRAW_*. */
int tl_step(struct ui *ui, long d);
/* Zoom in (@dir > 0) or out around the cursor.  Returns UI_DRAW_*. */
int tl_zoom(struct ui *ui, int dir);

#endif /* TL_H */
