/*
 * search_ui -- '/', '?', 'n', 'N', ':search', '&', ':filter' and M-u: the
 * browser's side of decoder/search.h.
 *
 * A search runs in the background (srch_start()); the main loop polls it
 * (search_ui_poll()) to move the cursor to the first hit as soon as it is
 * known, and the status line shows "/tip [3/41]".  The filter view lists
 * only matching packets: the panes take their rows from
 * search_ui_row_first() and search_ui_row_next(), which read a screen of
 * matches found with bounded work per call.
 */
#ifndef SEARCH_UI_H
#define SEARCH_UI_H

#include <stddef.h>
#include <stdint.h>

#include "keymap.h"
#include "window.h"

struct ui;
struct cmd_table;

/* The search and filter commands (cmd.h), '*' and '#' among them. */
extern const struct cmd_table search_ui_cmds;

/* C-c: stop the running search, or the filter's background look for
 * rows.  Returns 1 if one was running (and says so), 0 if not. */
int search_ui_stop(struct ui *ui);

/* Whether the filter view is on: cursor moves go among matching rows
 * (search_ui_filter_move()). */
int search_ui_filtering(const struct ui *ui);

/* In the filter view, cursor move @a (cursor-up/down, page-up/down,
 * halfpage-up/down by @n; goto-start/end: the first or last match).
 * Returns UI_DRAW_*. */
int search_ui_filter_move(struct ui *ui, enum action a, long n);

/* Search for packets of type @type (its ptdump name) in
 * direction @dir, as '/' does, to the @count'th hit (as far as hits are
 * known yet): the search and 'n' 'N' are then about it. */
int search_ui_type(struct ui *ui, const char *type, int dir, uint64_t count);

/* Search for @text in direction @dir as '/' does (:goto with a sideband
 * term goes to its next hit so, and n and N go on).  Returns UI_DRAW_*. */
int search_ui_text(struct ui *ui, const char *text, int dir);

/* Look at the running search (idle time): jump to its first hit, report
 * wrapping, the end and errors.  *@busy is 2 while the first hit is not
 * shown yet (poll again very soon), 1 while a search or the filter view is
 * still working, 0 when idle.  Returns UI_DRAW_*. */
int search_ui_poll(struct ui *ui, int *busy);

/* In --script mode: wait for the search to finish, then poll. */
void search_ui_wait(struct ui *ui);

/* Write the search state ("  /tip [3/41]", or a long :goto's) into @buf,
 * and the filter's ("  filter: ovf", "" without one) into @filt (of
 * @fsize; NULL: none), each text cut in its middle to 40 columns.
 * Returns the length written into @buf (less than @size). */
size_t search_ui_status(struct ui *ui, char *buf, size_t size, char *filt, size_t fsize);

/* Whether the packet at @off is a hit to highlight. */
int search_ui_is_hit(struct ui *ui, uint64_t off);

/* The search's hit nearest @off: the last at or before it, else the
 * first after, in *@hit; the hits before and after that one in *@prev
 * and *@next (UINT64_MAX if none), all of them for certain: where the
 * running search has not looked yet, about a screen's budget of packets
 * there is looked at.
 * Returns 0 if they are known.
 * Returns 1 if not yet: the search has not gone to its first hit (that is
 * the hit meant), or has not reached the hits near @off and they are not
 * close to it (a search by terms: until it has ended).
 * Returns 2 if the search has ended (stopped, or at its most hits)
 * without reaching them, and they are not close to @off.
 * Returns -1 if there is no search, or it found no hit at all. */
int search_ui_hits_near(struct ui *ui, uint64_t off, uint64_t *prev, uint64_t *hit,
			uint64_t *next);

/* Draw '·' at the timeline columns of at most @max hits with offsets in
 * [@lo, @hi): @col_of maps an offset to a column (negative: not shown). */
void search_ui_tl_marks(struct ui *ui, int y, int x, uint64_t lo, uint64_t hi,
			size_t max, int (*col_of)(struct ui *ui, uint64_t off, void *arg),
			void *arg);

/* The panes' rows: the first row at the view's top, then the next.  In
 * the filter view only matching rows.  Return 1 if @it holds a row, 0 if
 * there is none; *@i counts rows (start it at 0). */
int search_ui_row_first(struct ui *ui, struct win_iter *it, int *i);
int search_ui_row_next(struct ui *ui, struct win_iter *it, int *i);

/* Stop the search and drop the filter (before a reload, at exit). */
void search_ui_free(struct ui *ui);

#endif /* SEARCH_UI_H */
