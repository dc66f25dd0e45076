/*
 * marks_panel -- a region's summary, computed in the background
 * (src/marks.h's marks_summary_start()): drawn over the panes when the
 * cursor is inside a region, and under the marks list.  Over the panes it
 * is a view on the browser's (marks_panel_view): q and Escape close it
 * until the cursor leaves the region, other keys go to the browser.
 */
#ifndef MARKS_PANEL_H
#define MARKS_PANEL_H

#include <stdint.h>

struct ui;
struct marks_entry;
struct view_ops;

/* The panel over the panes, pushed on the browser while it shows (by
 * marks_panel_draw_overlay()); it draws nothing itself (the browser draws
 * the box under its status line). */
extern const struct view_ops marks_panel_view;

/* Make sure the summary of region @e is computed or under way (in
 * --script mode it is waited for). */
void marks_panel_summarize(struct ui *ui, const struct marks_entry *e);
/* Draw the summary in the box at (@y, @x), @w x @h. */
void marks_panel_box(struct ui *ui, int y, int x, int w, int h);
/* The summary over the panes when the cursor is in a region (and its
 * view pushed on the browser, or closed when it no longer shows), and the
 * visual selection's line on the message line. */
void marks_panel_draw_overlay(struct ui *ui);
/* Whether a summary is being computed (the loop polls faster). */
int marks_panel_busy(const struct ui *ui);
/* Whether the box is to be drawn again soon: 2 if its summary ended after
 * the box last showed it computing (a small region's ends within the
 * drawing that started it), 1 if it is being computed, else 0. */
int marks_panel_due(const struct ui *ui);
/* C-c: stop the summary.  Returns 1 if one was running (and says so),
 * 0 if not. */
int marks_panel_interrupt(struct ui *ui);
/* Stop the summary without a word (C-c in a list). */
void marks_panel_cancel(struct ui *ui);
/* Stop the summary and wait for it (before the trace or marks go away). */
void marks_panel_stop(struct ui *ui);
/* The TSC of the row at @off, or 0; *@mark the mark before its time
 * (timefmt_row_mark(): "?", "~" or ""). */
uint64_t marks_panel_tsc_at(struct ui *ui, uint64_t off, const char **mark);

#endif /* MARKS_PANEL_H */
