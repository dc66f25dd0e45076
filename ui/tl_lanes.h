/*
 * tl_lanes -- a lane per CPU stream under the timeline, on its time axis:
 * which process ran when (from the perf.data sideband's switch, comm,
 * fork and exit records, sideband.h), a letter and a colour per process,
 * forks, exits, execs and mmaps marked, and a legend.  Picking a lane at
 * a time (a click, or :lane STREAM at the cursor's time) switches to that
 * stream at that time.  A process is a pid under one comm: the threads
 * that name themselves (pthread_setname_np) get letters of their own.
 *
 * Lanes come from the sideband's records alone (no packet is decoded), so
 * they are computed on the UI thread: a binary search per lane and column.
 */
#ifndef TL_LANES_H
#define TL_LANES_H

#include <stdint.h>

struct ui;

/* Rows the lanes want under the timeline: one per CPU stream and the
 * legend; 0 if there are none to show (a raw trace, no sideband, no time
 * conversion, a per-thread recording). */
int tl_lanes_rows(struct ui *ui);

/* Widen the time range [*@t0, *@t1] to the lanes' sideband (the first and
 * last switch on any CPU), so every stream shows the same axis.
 * Returns 1 if there are lanes, 0 if not (nothing changed). */
int tl_lanes_span(struct ui *ui, uint64_t *t0, uint64_t *t1);

/* The columns of the lanes' name gutter (the longest stream name and a
 * blank), or 0 if there are no lanes.  The timeline's rows above the
 * lanes start that far right, so that a column is one time on every row. */
int tl_lanes_gutter(struct ui *ui);

/* Draw the lanes in rows @y to @y + @h - 1 from column @x, @w wide (the
 * gutter, tl_lanes_gutter(), and then the lanes' columns), on
 * the time axis [@lo, @hi) (TSC), their legend last after the marker
 * row's @legend (NULL: none); @time 0 (a byte axis) says that lanes need
 * the time axis instead. */
void tl_lanes_draw(struct ui *ui, int y, int x, int w, int h, uint64_t lo,
		   uint64_t hi, int time, const char *legend);

/* A click on lane row @row (0: the first lane) at column @col of the
 * last drawing: switch to that lane's stream at that column's time (as
 * the line ":lane STREAM TSC", tl_lanes_cmd.h).  Returns UI_DRAW_*. */
int tl_lanes_click(struct ui *ui, int row, int col);

/* The stream of the lane after (@dir > 0) or before the current stream's,
 * or -1 if there is none. */
int tl_lanes_next(struct ui *ui, int dir);

/* The lane letter of process @pid running as @comm, or 0. */
char tl_lanes_letter(struct ui *ui, int32_t pid, const char *comm);

/* Free the sideband the lanes read (the trace is closed or reloaded). */
void tl_lanes_free(void);

#endif /* TL_LANES_H */
