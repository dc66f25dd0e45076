/* streams_tl -- a perf.data stream's sideband events on the timeline. */
#ifndef STREAMS_TL_H
#define STREAMS_TL_H

#include <stdint.h>

struct ui;
struct tl_cell;

/* Offer the sideband's markers to the marker row's @cells ([@lo, @hi)
 * over @ncols columns; @time: the axis is TSC, else bytes): data lost
 * '!' as trouble, itrace start '^', switches ',' and comm 'c' below PSBs
 * (tl_cols.h); and name the event nearest the cursor (or the one last
 * picked) on the message line. */
void streams_tl_cells(struct ui *ui, int ncols, uint64_t lo, uint64_t hi,
		      int time, struct tl_cell *cells);

/* The legend of the sideband's markers, or NULL if the stream has none
 * (a raw trace, no sideband). */
const char *streams_tl_legend(struct ui *ui);

/* The stream changed: the event last shown is no longer the nearest. */
void streams_tl_forget(struct ui *ui);

/* Column @col of the sideband row was clicked: the next draws name its
 * marker's event (if it has one) until the cursor moves, wherever the
 * click put the cursor. */
void streams_tl_pick(struct ui *ui, int col);

#endif /* STREAMS_TL_H */
