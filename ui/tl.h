/* tl -- the timeline: density, markers, viewport, axis, clicks, drags. */
#ifndef TL_H
#define TL_H

#include <curses.h>
#include <stdint.h>

struct ui;
struct pane_ops;

/* Its ops (ui.h struct pane_ops). */
extern const struct pane_ops tl_ops;
/* The axis range the timeline shows (tl_zoom.h): bytes, or TSC ticks. */
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
/* A mouse event (browser.c): a press on the timeline's first rows notes
 * its column and lets the browser jump there; its release on another
 * column selects from the one to the other (a visual selection, which z
 * zooms to).  Returns 1 with *@draw set if it took the event, 0 to leave
 * it to the browser. */
int tl_mouse(struct ui *ui, const MEVENT *ev, int *draw);
/* A mouse event went to a view over the browser (browser.c): a press on
 * the timeline ends unseen (select_mouse_drop() says why). */
void tl_mouse_drop(void);

#endif /* TL_H */
