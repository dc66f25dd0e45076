/* nav -- moving the one cursor (a byte offset) and the view over it. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "msg.h"
#include "nav.h"
#include "term.h"
#include "ui.h"
#include "walk.h"

/* Rows a search on the UI thread looks at before giving up (a few tens of
 * MiB of trace): the whole-trace searches belong to the search module. */
#define NAV_BUDGET 2000000

int nav_view_rows(const struct ui *ui)
{
	/* The pane's first row is its heading. */
	int h = ui->panes[UI_PANE_PACKETS].h - 1;

	return h > 0 ? h : 1;
}

int nav_cursor_row(struct ui *ui, struct win_row *row)
{
	struct win_iter it = { 0 };
	int r = win_seek(&it, ui->wc, ui->cursor);

	if (!r)
		*row = *win_row(&it);
	win_iter_release(&it);
	return r;
}

/* Step @it @n rows (negative: back); returns the rows actually moved. */
static long nav_step(struct win_iter *it, long n)
{
	long done = 0;

	while (n > 0 && !win_next(it))
		n--, done++;
	while (n < 0 && !win_prev(it))
		n++, done--;
	return done;
}

/*
 * Moves longer than this many rows go through the index's packet counts
 * when it has them (stepping takes about a second per 10^7 rows), and
 * otherwise step in pieces of this size, stopping for C-c.
 */
#define NAV_FAR 65536

/* The ordinal of the row at @off, counting at most NAV_FAR rows from its
 * segment's PSB.  Returns 0, or -1 if the index cannot tell (yet). */
static int nav_ordinal(struct ui *ui, uint64_t off, uint64_t *ord)
{
	struct win_iter it = { 0 };
	struct idx_summary s;
	struct idx_seek sk;
	uint64_t rel = 0;
	size_t seg;
	int ok = 0;

	if (!ui->idx || idx_find(ui->idx, off, &seg) || idx_summary(ui->idx, seg, &s) ||
	    idx_seek(ui->idx, seg, &sk) || win_seek(&it, ui->wc, sk.offset))
		goto out;
	while (rel < NAV_FAR && win_row(&it)->pkt.offset < off && !win_next(&it))
		rel++;
	ok = win_row(&it)->pkt.offset == off;
	*ord = s.first_ordinal + rel;
out:
	win_iter_release(&it);
	return ok ? 0 : -1;
}

int nav_packet_offset(struct ui *ui, uint64_t ord, uint64_t *off, char *err, size_t len)
{
	struct idx_summary s;
	struct idx_seek sk;
	struct win_iter it = { 0 };
	size_t seg;
	int r = ui->idx ? idx_find_ordinal(ui->idx, ord, &seg) : -pte_invalid;

	if (r == 1) {
		snprintf(err, len, "goto: #%" PRIu64 ": packets are still being counted", ord);
		return -pte_eos;
	}
	if (r < 0 || idx_summary(ui->idx, seg, &s) || idx_seek(ui->idx, seg, &sk)) {
		snprintf(err, len, "goto: #%" PRIu64 ": no such packet%s", ord,
			 ui->idx ? "" : " (no index)");
		return -pte_eos;
	}
	*off = sk.offset;
	if (!win_seek(&it, ui->wc, sk.offset)) {
		uint64_t n = ord - s.first_ordinal;

		while (n-- && !win_next(&it))
			;
		*off = win_row(&it)->pkt.offset;
	}
	win_iter_release(&it);
	return 0;
}

/* The row @n rows from the row at @off, as a goto to its packet number
 * (the index counted every packet).  Returns 0 and sets *@to and *@moved,
 * or -1 if the index cannot tell. */
static int nav_far(struct ui *ui, uint64_t off, long n, uint64_t *to, long *moved)
{
	struct idx_summary tot;
	struct win_iter it = { 0 };
	uint64_t ord, want;
	char err[160];
	int r;

	if (!ui->idx || idx_totals(ui->idx, &tot) || !tot.npackets ||
	    nav_ordinal(ui, off, &ord))
		return -1;
	if (n < 0 && (uint64_t)-n > ord) {
		/* Before packet 0: the first row (bytes before the first
		 * PSB are rows too). */
		r = win_seek(&it, ui->wc, 0);
		if (!r)
			*to = win_row(&it)->pkt.offset;
		win_iter_release(&it);
		*moved = -(long)ord;
		return r ? -1 : 0;
	}
	want = n < 0 ? ord - (uint64_t)-n : ord + (uint64_t)n;
	if (n > 0 && (want < ord || want >= tot.npackets))
		want = tot.npackets - 1;
	if (nav_packet_offset(ui, want, to, err, sizeof(err)) < 0)
		return -1;
	*moved = (long)(want - ord);
	return 0;
}

/* The offset of the row @n rows away from the one holding @off. */
static uint64_t nav_offset_by(struct ui *ui, uint64_t off, long n, long *moved)
{
	struct win_iter it = { 0 };
	uint64_t to;
	long m = 0, step;

	if ((n > NAV_FAR || n < -NAV_FAR) && !nav_far(ui, off, n, &to, &m)) {
		if (moved)
			*moved = m;
		return to;
	}
	if (!win_seek(&it, ui->wc, off)) {
		/* In pieces, so C-c stops a long walk (term_key_waiting()). */
		ui->interrupted = 0;
		while (n) {
			step = n > NAV_FAR ? NAV_FAR : n < -NAV_FAR ? -NAV_FAR : n;
			if (nav_step(&it, step) != step) {
				m += step;	/* an end: stop */
				break;
			}
			m += step;
			n -= step;
			if (n && term_key_waiting(ui) && ui->interrupted) {
				msg_report(ui, UI_WARN, "interrupted after %ld rows (C-c)",
					   m < 0 ? -m : m);
				break;
			}
		}
		off = win_row(&it)->pkt.offset;
	}
	win_iter_release(&it);
	if (moved)
		*moved = m;
	return off;
}

void nav_fix_view(struct ui *ui)
{
	struct win_iter it = { 0 };
	int h = nav_view_rows(ui), i;
	uint64_t cur;

	if (win_seek(&it, ui->wc, ui->cursor))
		goto out;
	cur = ui->cursor = win_row(&it)->pkt.offset;
	if (win_seek(&it, ui->wc, ui->top))
		goto out;
	ui->top = win_row(&it)->pkt.offset;
	if (cur < ui->top) {
		ui->top = cur;
	} else {
		for (i = 0; i < h; i++) {
			if (win_row(&it)->pkt.offset == cur)
				break;
			if (win_next(&it))
				break;
		}
		if (i == h || win_row(&it)->pkt.offset != cur)
			ui->top = nav_offset_by(ui, cur, -(long)(h - 1), NULL);
	}
	/* No empty rows below the last packet while there is more above. */
	if (win_seek(&it, ui->wc, ui->top))
		goto out;
	i = 1 + (int)nav_step(&it, h - 1);
	if (i < h)
		ui->top = nav_offset_by(ui, ui->top, -(long)(h - i), NULL);
out:
	win_iter_release(&it);
}

int nav_lines(struct ui *ui, long n)
{
	long moved;

	ui->cursor = nav_offset_by(ui, ui->cursor, n, &moved);
	ui->dir = n < 0 ? -1 : 1;
	nav_fix_view(ui);
	return UI_DRAW_ALL;
}

int nav_scroll(struct ui *ui, long n)
{
	long moved;

	ui->top = nav_offset_by(ui, ui->top, n, &moved);
	ui->dir = n < 0 ? -1 : 1;
	/* The cursor rides along if the view left it behind. */
	if (ui->cursor < ui->top)
		ui->cursor = ui->top;
	else {
		uint64_t last = nav_offset_by(ui, ui->top, nav_view_rows(ui) - 1, NULL);

		if (ui->cursor > last)
			ui->cursor = last;
	}
	nav_fix_view(ui);
	return UI_DRAW_ALL;
}

/* Page moves shift the view and the cursor together (lnav's cursor mode). */
int nav_page(struct ui *ui, long n)
{
	ui->top = nav_offset_by(ui, ui->top, n, NULL);
	ui->cursor = nav_offset_by(ui, ui->cursor, n, NULL);
	ui->dir = n < 0 ? -1 : 1;
	nav_fix_view(ui);
	return UI_DRAW_ALL;
}

static void nav_push(struct ui *ui, uint64_t off)
{
	if (ui->nhist && ui->hist[ui->nhist - 1] == off) {
		ui->hist_pos = ui->nhist;
		return;
	}
	if (ui->nhist == UI_HISTORY) {
		memmove(ui->hist, ui->hist + 1, (UI_HISTORY - 1) * sizeof(ui->hist[0]));
		ui->nhist--;
	}
	ui->hist[ui->nhist++] = off;
	ui->hist_pos = ui->nhist;
}

/* How a jump places its row: a third down the view, at its bottom (the
 * trace's end), or two rows down (a PSB, the end of the segment before
 * in sight). */
enum { NAV_THIRD, NAV_END, NAV_PSB };

static long nav_above(const struct ui *ui, int how)
{
	int h = nav_view_rows(ui);

	return how == NAV_END ? h - 1 : how == NAV_PSB ? 2 : h / 3;
}

/* A jump to @off placed @how waits for the job decoding the rows it needs
 * (walk.h) if a walk was refused for one: it lands, or is placed again,
 * when that is done (nav_poll()), if the cursor is still at @cursor and
 * no later jump was asked.  Returns 1 if it waits. */
static int nav_wait(struct ui *ui, uint64_t off, int how, uint64_t cursor)
{
	struct walk_wait w = { off, cursor, 0, how };

	if (walk_stopped(ui) != 2)
		return 0;
	w.seq = ++ui->jump_seq;
	walk_wait_for(ui, &w);
	return 1;
}

/* Put the cursor on the row holding @off, placed @how.  If the rows there
 * are not decoded (walk.h) the cursor stays where it was: it lands when
 * they are, or, if C-c stopped that, not at all. */
static int nav_place_how(struct ui *ui, uint64_t off, int how)
{
	uint64_t cursor = ui->cursor, top = ui->top;

	ui->cursor = nav_offset_by(ui, off, 0, NULL);
	if (walk_stopped(ui)) {
		ui->cursor = cursor;
		ui->top = top;
		nav_wait(ui, off, how, cursor);
		return UI_DRAW_ALL;
	}
	/* (the rows above it not decoded yet: it is there, at the view's
	 * top, placed again when they are) */
	ui->top = nav_offset_by(ui, ui->cursor, -nav_above(ui, how), NULL);
	nav_fix_view(ui);
	nav_wait(ui, off, how, ui->cursor);
	return UI_DRAW_ALL;
}

static int nav_place(struct ui *ui, uint64_t off)
{
	return nav_place_how(ui, off, NAV_THIRD);
}

int nav_jump(struct ui *ui, uint64_t off)
{
	nav_push(ui, ui->cursor);
	ui->dir = off < ui->cursor ? -1 : 1;
	return nav_place(ui, off);
}

int nav_start(struct ui *ui)
{
	return nav_jump(ui, 0);
}

int nav_end(struct ui *ui)
{
	nav_push(ui, ui->cursor);
	ui->dir = -1;
	return nav_place_how(ui, ui->img->size ? ui->img->size - 1 : 0, NAV_END);
}

int nav_poll(struct ui *ui, int *busy)
{
	struct walk_wait w;
	int r = walk_poll(ui, busy, &w);

	if (!r)
		return UI_DRAW_NONE;
	/* (not over a key's move, nor a later jump) */
	if (r != 2 || ui->cursor != w.cursor || w.seq != ui->jump_seq)
		return UI_DRAW_ALL;
	return nav_place_how(ui, w.off, w.how);
}

int nav_psb(struct ui *ui, int dir, uint64_t n)
{
	uint64_t off = ui->cursor, p;

	while (n--) {
		int r = dir > 0 ? win_psb_after(ui->wc, off, &p)
				: (off ? win_psb_at_or_before(ui->wc, off - 1, &p)
				       : -pte_nosync);

		if (r < 0) {
			if (off == ui->cursor) {
				msg_report(ui, UI_WARN, "no %s PSB",
					   dir > 0 ? "further" : "earlier");
				return UI_DRAW_STATUS;
			}
			break;
		}
		off = p;
	}
	nav_push(ui, ui->cursor);
	ui->dir = dir;
	return nav_place_how(ui, off, NAV_PSB);
}

/*
 * With the index's segment summaries, skip clean segments: when the walk
 * enters segment @i (forward: at its PSB; backward: at its last row), move
 * @it to the nearest segment with trouble.  Returns 1 if it moved, 0 if
 * not, -1 if the index knows there is no more trouble, -2 if C-c stopped
 * the decode there (walk.h).
 */
static int nav_skip_clean(struct ui *ui, struct win_iter *it, int dir)
{
	struct idx_summary sum;
	struct idx_seek seek;
	const struct win_row *row = win_row(it);
	size_t i, seg;
	int r;

	if (!ui->idx || idx_find(ui->idx, row->pkt.offset, &i) < 0)
		return 0;
	if (idx_summary(ui->idx, i, &sum) != 0 || idx_summary_trouble(&sum))
		return 0;
	r = idx_next_trouble(ui->idx, i, dir, &seg);
	if (r == -pte_eos)
		return -1;
	if (r != 0)
		return 0;
	if (dir > 0) {
		if (idx_seek(ui->idx, seg, &seek) < 0)
			return 0;
		r = win_seek(it, ui->wc, seek.offset);
	} else {
		if (idx_seek(ui->idx, seg + 1, &seek) < 0)
			seek.offset = ui->img->size;
		/* A gap right before the next PSB marks that PSB's row: it
		 * is the segment's last trouble, going backward its first. */
		r = win_seek(it, ui->wc, img_gap_at(ui->img, seek.offset) ? seek.offset
									 : seek.offset - 1);
	}
	return r == -pte_canceled ? -2 : r ? 0 : 1;
}

/* Walk from the cursor to the @n-th row matching @match (with @arg). */
static int nav_walk(struct ui *ui, int dir, uint64_t n,
		    int (*match)(const struct win_row *, int), int arg,
		    int skip, const char *what)
{
	struct win_iter it = { 0 };
	long budget = NAV_BUDGET;
	uint64_t found = 0;
	int ret = UI_DRAW_STATUS, r;

	if (win_seek(&it, ui->wc, ui->cursor))
		goto out;
	ui->interrupted = 0;
	while (found < n && budget-- > 0) {
		const struct win_row *row;
		int left_psb = win_row(&it)->pkt.type == PKT_PSB;

		r = dir > 0 ? win_next(&it) : win_prev(&it);
		if (r < 0) {
			/* (a decode C-c stopped says so itself: not the end) */
			if (r != -pte_canceled)
				msg_report(ui, UI_WARN, "no %s %s",
					   dir > 0 ? "further" : "earlier", what);
			goto out;
		}
		row = win_row(&it);
		if (match(row, arg)) {
			found++;
			continue;
		}
		/* Entering a segment: forward at its PSB, backward at its
		 * last row (just left the next segment's PSB). */
		if (skip && ((dir > 0 && row->pkt.type == PKT_PSB) ||
			     (dir < 0 && left_psb))) {
			int s = nav_skip_clean(ui, &it, dir);

			if (s == -2)
				goto out;
			if (s < 0) {
				msg_report(ui, UI_WARN, "no %s %s",
					   dir > 0 ? "further" : "earlier", what);
				goto out;
			}
			if (s > 0 && match(win_row(&it), arg))
				found++;
		}
		if (!(budget & 0xffff) && term_key_waiting(ui) && ui->interrupted) {
			msg_report(ui, UI_WARN, "interrupted");
			goto out;
		}
	}
	if (found < n) {
		msg_report(ui, UI_WARN, "no %s within %d packets; '/' searches the whole trace",
			   what, NAV_BUDGET);
		goto out;
	}
	nav_push(ui, ui->cursor);
	ui->dir = dir;
	ret = nav_place(ui, win_row(&it)->pkt.offset);
out:
	win_iter_release(&it);
	return ret;
}

static int match_trouble(const struct win_row *row, int arg)
{
	return win_row_trouble(row);
}

int nav_error(struct ui *ui, int dir, uint64_t n)
{
	return nav_walk(ui, dir, n, match_trouble, 0, 1, "OVF or error");
}

int nav_history(struct ui *ui, int dir)
{
	if (dir < 0) {
		if (ui->hist_pos == ui->nhist) {
			nav_push(ui, ui->cursor);
			ui->hist_pos = ui->nhist - 1;
		}
		if (ui->hist_pos <= 0) {
			msg_report(ui, UI_WARN, "at the oldest position");
			return UI_DRAW_STATUS;
		}
		ui->hist_pos--;
	} else {
		if (ui->hist_pos + 1 >= ui->nhist) {
			msg_report(ui, UI_WARN, "at the newest position");
			return UI_DRAW_STATUS;
		}
		ui->hist_pos++;
	}
	ui->dir = dir;
	return nav_place(ui, ui->hist[ui->hist_pos]);
}

int nav_last(struct ui *ui)
{
	uint64_t to;

	if (!ui->nhist) {
		msg_report(ui, UI_WARN, "no previous position");
		return UI_DRAW_STATUS;
	}
	to = ui->hist[ui->nhist - 1];
	nav_push(ui, ui->cursor);
	return nav_place(ui, to);
}

void nav_prefetch(struct ui *ui)
{
	uint64_t edge = ui->dir < 0 ? ui->top
				    : nav_offset_by(ui, ui->top, nav_view_rows(ui), NULL);

	win_prefetch(ui->wc, edge, ui->dir < 0 ? -1 : 1);
}
