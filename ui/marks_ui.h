/*
 * marks_ui -- marks, bookmarks and regions in the browser.
 *
 *   marks_ui.c    the mark and region commands (:mark, :delmark, :region,
 *                 :delregion, :export, :export-marks, :import-marks, push,
 *                 pop and exchange), the visual selection (v), the list
 *                 view (:marks, :regions, :streams) and the region summary
 *                 panel, computed in the background (marks_summary_start).
 *   streams_ui.c  the streams of a perf.data file: switching (each stream
 *                 keeps its own cursor and marks file) and the sideband
 *                 markers on the timeline.
 *
 * browse.c calls these hooks; state lives here (one browser per process).
 */
#ifndef MARKS_UI_H
#define MARKS_UI_H

#include <stdint.h>

#include "ui.h"

/* Run @res if it is one of ours.  Returns UI_DRAW_*, or UI_NOT_MINE. */
int marks_ui_action(struct ui *ui, const struct km_result *res);
/* Whether a visual selection is active (keys use the visual table). */
int marks_ui_visual(const struct ui *ui);
/* The region summary panel, drawn over the panes when the cursor is
 * inside a region. */
void marks_ui_draw_overlay(struct ui *ui);
/* Whether a summary is being computed (the loop polls faster). */
int marks_ui_busy(const struct ui *ui);
/* The band at @off: 0 none, 1 a region, 2 the visual selection. */
int marks_ui_band(const struct ui *ui, uint64_t off);
/* The attributes of band @band (a background tint; A_BOLD without
 * colours, where the gutter shows the band). */
int marks_ui_band_attr(const struct ui *ui, int band);
/* The gutter glyph of band @band. */
const char *marks_ui_band_glyph(const struct ui *ui, int band);
/* Stop the background summary (before the trace or marks go away). */
void marks_ui_stop(struct ui *ui);

/* streams_ui.c */
/* Switch to stream @s, keeping a cursor per stream.  Returns UI_DRAW_*. */
int streams_ui_switch(struct ui *ui, int s);
/* The sideband markers on timeline row @y ([@lo, @hi) over @ncols
 * columns from @x; @time: the axis is TSC, else bytes). */
void streams_ui_tl_draw(struct ui *ui, int y, int x, int ncols, uint64_t lo,
		uint64_t hi, int time);
/* The number of sideband events of the current stream. */
size_t streams_ui_nevents(const struct ui *ui);

#endif /* MARKS_UI_H */
