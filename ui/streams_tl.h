/* streams_tl -- a perf.data stream's sideband events on the timeline. */
#ifndef STREAMS_TL_H
#define STREAMS_TL_H

#include <stdint.h>

struct ui;

/* The sideband markers on timeline row @y ([@lo, @hi) over @ncols
 * columns from @x; @time: the axis is TSC, else bytes). */
void streams_tl_draw(struct ui *ui, int y, int x, int ncols, uint64_t lo,
			uint64_t hi, int time);

/* The stream changed: the event last shown is no longer the nearest. */
void streams_tl_forget(struct ui *ui);

/* Column @col of the sideband row was clicked: the next draws name its
 * marker's event (if it has one) until the cursor moves, wherever the
 * click put the cursor. */
void streams_tl_pick(struct ui *ui, int col);

#endif /* STREAMS_TL_H */
