/*
 * marks_ui -- marks, bookmarks and regions in the browser: the commands
 * (:mark, :delmark, :region, :delregion, :ref, :export, :export-marks,
 * :import-marks, m ' M-m ] [ M, the emacs mark), the visual selection (v)
 * and the bands the panes draw for regions and the selection.
 * marks_list.c is the list view, marks_panel.c the region summary.
 * State lives here (one browser per process).
 */
#ifndef MARKS_UI_H
#define MARKS_UI_H

#include <stdint.h>

struct ui;
struct cmd_table;
struct marks_entry;

/* The mark and region commands (cmd.h). */
extern const struct cmd_table marks_ui_cmds;

/* Escape, C-g: end the visual selection.  Returns 1 if there was one
 * (and says so), 0 if not. */
int marks_ui_cancel(struct ui *ui);
/* Begin a visual selection from @anchor to the cursor (a mouse drag). */
void marks_ui_visual_from(struct ui *ui, uint64_t anchor);
/* Whether a visual selection is active (keys use the visual table). */
int marks_ui_visual(const struct ui *ui);
/* The visual selection as a byte range [*@from, *@to): from its first
 * row to the end of its last. */
void marks_ui_selection(struct ui *ui, uint64_t *from, uint64_t *to);
/* The band at @off: 0 none, 1 a region, 2 the visual selection. */
int marks_ui_band(const struct ui *ui, uint64_t off);
/* The attributes of band @band (a background tint; A_BOLD without
 * colours, where the gutter shows the band). */
int marks_ui_band_attr(const struct ui *ui, int band);
/* The gutter glyph of band @band. */
const char *marks_ui_band_glyph(const struct ui *ui, int band);
/* The region holding @off (the innermost), or -1. */
long marks_ui_region_at(const struct ui *ui, uint64_t off);
/* The row at @off: its offset, size and TSC (0 if none; @tsc may be
 * NULL).  Returns 0 or a pte code. */
int marks_ui_row_at(struct ui *ui, uint64_t off, uint64_t *at, uint64_t *size,
		    uint64_t *tsc);

/* Whether the marks are off (--no-state and nothing loaded): says so
 * and returns 1; 0 if they are on. */
int marks_ui_no_marks(struct ui *ui);
/* Say what a change did: the set's message on failure (a failed save
 * keeps the marks in memory), else @ok.  Returns UI_DRAW_ALL. */
int marks_ui_result(struct ui *ui, int r, const char *ok);
/* Entry @e is going away: stop measuring from it if it is the reference. */
void marks_ui_forget_ref(struct ui *ui, const struct marks_entry *e);
/* :ref NAME: measure time deltas from mark, bookmark or region @name
 * ("" stops).  Returns UI_DRAW_ALL, or UI_DRAW_STATUS with an error. */
int marks_ui_ref(struct ui *ui, const char *name);

#endif /* MARKS_UI_H */
