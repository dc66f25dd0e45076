/*
 * select -- the rows that yank and pipe take, and the mouse drag that
 * selects rows in the packet pane.
 *
 * A command's rows are, first found first: a region it names, the visual
 * selection (v, or a drag: it ends once taken, as vim's y ends visual
 * mode), N rows from the cursor for a count, else its default (yank: the
 * cursor's row; pipe: the packet pane's rows on the screen, the filter's
 * matches in the filter view).  A row's text is the packet pane's
 * (pane_packets_row_text()), so what is copied is what is seen.
 */
#ifndef SELECT_H
#define SELECT_H

#include <curses.h>
#include <stddef.h>
#include <stdint.h>

struct ui;

/* Which rows. */
struct select_span {
	int visible;		/* the packet pane's rows on the screen */
	uint64_t from, to;	/* else the rows starting in [from, to) ... */
	uint64_t max;		/* ... at most max of them (0: no limit) */
	char what[96];		/* for messages: "the selection", "region hot" */
};

/* What a command takes when it names no rows. */
enum select_default { SELECT_CURSOR, SELECT_VISIBLE };

/* The rows for a command: region @region (NULL: none), else the visual
 * selection (which ends), else @count rows from the cursor if
 * @has_count, else @deflt.
 * Returns 0 and fills @s.
 * Returns -pte_invalid after saying why on the message line (no region
 * of that name, marks off). */
int select_pick(struct ui *ui, const char *region, int has_count,
		uint64_t count, enum select_default deflt, struct select_span *s);

/* Takes one row's text (no newline).  Returns 0, or a negative code that
 * stops the walk (and is returned by it). */
typedef int select_line_fn(void *ctx, const char *line, size_t len);

/* Give each row of @s as the packet pane's text to @fn(@ctx, ...).
 * Returns the number of rows, or @fn's negative return, or -pte_nomem. */
int64_t select_text(struct ui *ui, const struct select_span *s,
		    select_line_fn *fn, void *ctx);

/* The bytes of @s's rows: from the first row's start to the last row's
 * end, into [*@from, *@to).
 * Returns 0, or -pte_eos if @s holds no row. */
int select_bytes(struct ui *ui, const struct select_span *s, uint64_t *from,
		 uint64_t *to);

/* The packet row (from 0, under the heading) of screen line @y in a pane
 * at @pane_y of @pane_h lines, a line above or below it taken as its
 * first or last row (a drag may leave the pane).
 * Returns the row, or -1 if the pane has no rows. */
int select_drag_row(int pane_y, int pane_h, int y);

/* A mouse event (browser.c): a button press on a packet row notes it and
 * lets the browser move the cursor there; a motion with the button held
 * and its release on another row select from the one to the other (a
 * visual selection; back on the pressed row, none).
 * Returns 1 with *@draw set if it took the event, 0 to leave it to the
 * browser. */
int select_mouse(struct ui *ui, const MEVENT *ev, int *draw);

/* A mouse event went to a view over the browser (browser.c): a press
 * noted here ends unseen, so that the pointer's motion once the browser
 * is back on top does not select without a button held. */
void select_mouse_drop(void);

#endif /* SELECT_H */
