/*
 * tl_zoom -- the timeline's view: the part of the axis it shows.
 *
 * Unzoomed (ui->tl_zoom 0) the view is the whole trace.  Zoomed, it is a
 * span of the axis that stays put while the cursor moves inside it and
 * is recentred on the cursor when the cursor leaves it (a jump, h and l
 * past its edge).  z and Z halve and double it with the cursor kept in
 * its column; :timeline-zoom (alias :zoom) sets it to a region, the span
 * between two marks or any goto targets, the selection (v, or a drag on
 * the timeline), a search hit's neighbourhood, or the whole trace.
 */
#ifndef TL_ZOOM_H
#define TL_ZOOM_H

#include <stdint.h>

struct ui;
struct cmd_table;

/* :timeline-zoom (cmd.h). */
extern const struct cmd_table tl_zoom_cmds;

/* The place on the time axis of the row holding @off: its TSC, or for a
 * row of a PSB+ before its TSC (the trace's first rows: the cursor at
 * 0x0, a mark there) that PSB+'s TSC, as the panes show it; 0 if the row
 * has none (no row's time is 0).  The view and the marker row place rows
 * with it. */
uint64_t tl_zoom_row_time(struct ui *ui, uint64_t off);

/* The view [*@lo, *@hi) for @ncols columns on the axis (@time: TSC
 * ticks, else bytes): the whole axis unless zoomed; a zoomed view is
 * recentred on the cursor when it is outside (and the cursor's time is
 * known), at least @ncols ticks or 16 bytes a column wide. */
void tl_zoom_view(struct ui *ui, int time, int ncols, uint64_t *lo, uint64_t *hi);

/* The stream shown changed: a view on the time axis that the CPU lanes
 * share (the whole recording's, the same on every stream) stays, so J, K
 * and a click on a lane keep the zoom; any other shows the whole trace. */
void tl_zoom_stream(struct ui *ui);

/* Zoom in (@dir > 0: half the span) or out (twice) with the cursor in
 * the same column, as far as the axis allows (zooming out at an edge
 * moves it).  Returns UI_DRAW_*; says so at the closest or widest. */
int tl_zoom_step(struct ui *ui, int dir);

/* Zoom to the bytes [@from, @to) of the trace (their rows' times on the
 * time axis), named @what in the message; the cursor goes to @from if it
 * is outside.  Returns UI_DRAW_*; says why on the message line if it
 * cannot (an empty span, no time known there). */
int tl_zoom_to(struct ui *ui, uint64_t from, uint64_t to, const char *what);

#endif /* TL_ZOOM_H */
