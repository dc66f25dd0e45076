/* streams_tl -- the sideband of a perf.data stream on the timeline's
 * marker row: data lost, itrace starts, switches, comm, and their legend;
 * the event nearest the cursor on the message line. */
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "nav.h"
#include "perfdata.h"
#include "prompt.h"
#include "screen.h"
#include "streams_tl.h"
#include "timefmt.h"
#include "tl_cols.h"
#include "trace.h"
#include "ui.h"

/* The event last shown on the message line. */
static const struct perfdata_event *st_last_near;
/* The last note this file wrote on the message line: a new event's note
 * replaces it, never another message (a search's "hit BOTTOM"). */
static char st_note[sizeof(((struct ui *)0)->msg)];
/* The column last clicked (-1 none) and the cursor after that click (-1
 * not drawn since): its glyph's event is named until the cursor moves.
 * The axis can start before the stream's trace (the CPU lanes' axis is the
 * whole recording's), where a click puts the cursor on the trace's first
 * row, far from the glyph clicked. */
static int st_pick = -1;
static uint64_t st_pick_cur = UINT64_MAX;

/* Whether @e lost data. */
static int streams_tl_is_loss(const struct perfdata_event *e)
{
	return e->kind == PD_EV_AUX &&
	       (e->flags & (PD_AUX_TRUNCATED | PD_AUX_PARTIAL | PD_AUX_COLLISION));
}

/* The axis value of @e: its TSC, or on the byte axis its stream offset
 * (AUX records), or the start of the segment holding its TSC.
 * Returns 0 and sets *@v, or -1 if it has none. */
static int streams_tl_value(struct ui *ui, const struct perfdata_event *e, int time, uint64_t *v)
{
	size_t seg;
	struct idx_seek sk;

	if (time) {
		if (!e->have_tsc)
			return -1;
		*v = e->tsc;
		return 0;
	}
	if (e->kind == PD_EV_AUX && e->have_stream_off) {
		*v = e->stream_off;
		return 0;
	}
	if (!e->have_tsc || !ui->idx || idx_find_tsc(ui->idx, e->tsc, &seg) ||
	    idx_seek(ui->idx, seg, &sk))
		return -1;
	*v = sk.offset;
	return 0;
}

/* The glyph of @e's kind. */
static const char *streams_tl_glyph(const struct perfdata_event *e)
{
	if (streams_tl_is_loss(e))
		return "!";
	switch (e->kind) {
	case PD_EV_ITRACE_START: return "^";
	case PD_EV_SWITCH_IN: case PD_EV_SWITCH_OUT: return ",";
	case PD_EV_COMM: return "c";
	default: return NULL;
	}
}

/* How much an event's marker matters when several share a column. */
static int streams_tl_rank(const struct perfdata_event *e)
{
	if (streams_tl_is_loss(e))
		return 4;
	switch (e->kind) {
	case PD_EV_ITRACE_START: return 3;
	case PD_EV_COMM: return 2;
	case PD_EV_SWITCH_IN: case PD_EV_SWITCH_OUT: return 1;
	default: return 0;
	}
}

/* The event shown in each timeline column (an index into the stream's
 * events, or -1), kept until the view changes: a recording has
 * thousands of context switches, and data loss must show among them.
 * On the byte axis an event is placed by its time (idx_find_tsc()), so
 * the index's progress is part of the view: its segments and the
 * summaries that give their times, which come after the segments (a
 * table built between the two had no events). */
static struct {
	const struct perfdata_event *ev;
	size_t n, nseeks, nsums;
	uint64_t lo, hi;
	int ncols, time, complete;
	int32_t *at;
} streams_tl_cols;

static int streams_tl_columns(struct ui *ui, const struct perfdata_event *ev, size_t n,
		      int ncols, uint64_t lo, uint64_t hi, int time)
{
	size_t i, nseeks = ui->idx ? idx_nseeks(ui->idx) : 0;
	size_t nsums = ui->idx ? idx_nsummaries(ui->idx) : 0;
	int c, complete = ui->idx ? idx_complete(ui->idx) : 0;

	if (streams_tl_cols.at && streams_tl_cols.ev == ev && streams_tl_cols.n == n && streams_tl_cols.lo == lo &&
	    streams_tl_cols.hi == hi && streams_tl_cols.ncols == ncols && streams_tl_cols.time == time &&
	    (time || (streams_tl_cols.nseeks == nseeks && streams_tl_cols.nsums == nsums &&
		      streams_tl_cols.complete == complete)))
		return 0;
	free(streams_tl_cols.at);
	streams_tl_cols.at = malloc((size_t)ncols * sizeof(*streams_tl_cols.at));
	if (!streams_tl_cols.at)
		return -1;
	for (c = 0; c < ncols; c++)
		streams_tl_cols.at[c] = -1;
	for (i = 0; i < n; i++) {
		uint64_t v;

		if (!streams_tl_rank(&ev[i]) || streams_tl_value(ui, &ev[i], time, &v) ||
		    v < lo || v >= hi)
			continue;
		c = (int)((double)(v - lo) * ncols / (double)(hi - lo));
		if (c >= ncols)
			c = ncols - 1;
		if (streams_tl_cols.at[c] < 0 || streams_tl_rank(&ev[i]) > streams_tl_rank(&ev[streams_tl_cols.at[c]]))
			streams_tl_cols.at[c] = (int32_t)i;
	}
	streams_tl_cols.ev = ev;
	streams_tl_cols.n = n;
	streams_tl_cols.nseeks = nseeks;
	streams_tl_cols.nsums = nsums;
	streams_tl_cols.complete = complete;
	streams_tl_cols.lo = lo;
	streams_tl_cols.hi = hi;
	streams_tl_cols.ncols = ncols;
	streams_tl_cols.time = time;
	return 0;
}

/*
 * Name event @near (NULL: none is near the cursor; @picked: clicked) on
 * the message line.  The note says where the cursor is: it takes a free
 * line, or replaces its own note of another event, and goes when the
 * cursor leaves every event (a count's jump, 50%, kept the note of the
 * place it left: the key that ends a sequence does not clear the line).
 * Any other message (a search's "hit BOTTOM", an error) stays until the
 * next key; the one clicked on is named whatever the line holds.  None
 * while a key sequence is pending: the line shows the keys typed (50).
 */
static void streams_tl_note(struct ui *ui, const struct perfdata_event *near, int picked)
{
	int ours = ui->msg[0] && !strcmp(ui->msg, st_note);
	char t[48] = "?";
	const char *what;

	if (prompt_is_open(ui))
		return;
	if (!near || km_state_pending(&ui->ks)) {
		if (ours)
			ui->msg[0] = 0;
		st_last_near = NULL;
		return;
	}
	if (ui->msg[0] && !(near != st_last_near && (picked || ours)))
		return;
	what = perfdata_event_name((enum perfdata_event_kind)near->kind);
	if (near->have_tsc && ui->have_t0)
		timefmt_tsc(ui, t, sizeof(t), timefmt_tsc_diff(ui, ui->t0, near->tsc), 0);
	if (near->kind == PD_EV_AUX)
		msg_report(ui, streams_tl_is_loss(near) ? UI_WARN : UI_INFO,
			   "sideband: aux%s%s%s at %s, stream 0x%" PRIx64 ", %" PRIu64 " bytes",
			   near->flags & PD_AUX_TRUNCATED ? " truncated" : "",
			   near->flags & PD_AUX_PARTIAL ? " partial" : "",
			   near->flags & PD_AUX_COLLISION ? " collision" : "", t,
			   near->stream_off, near->aux_size);
	else
		msg_report(ui, UI_INFO, "sideband: %s pid %d tid %d%s%s at %s (tsc %" PRIx64 ")",
			   what, near->pid, near->tid, near->kind == PD_EV_COMM ? " " : "",
			   near->kind == PD_EV_COMM ? near->comm : "", t, near->tsc);
	st_last_near = near;
	snprintf(st_note, sizeof(st_note), "%s", ui->msg);
}

void streams_tl_cells(struct ui *ui, int ncols, uint64_t lo, uint64_t hi, int time,
		      struct tl_cell *cells)
{
	const struct perfdata_event *ev, *near = NULL;
	struct win_row row;
	uint64_t cur = 0;
	size_t n;
	int ccol = -1, best = 3, c, picked = 0;

	if (hi <= lo || ncols <= 0 || perfdata_events(ui->trace, ui->stream_no, &ev, &n) < 0)
		return;
	if (!nav_cursor_row(ui, &row)) {
		cur = time ? (row.ts.flags & TM_F_TSC ? row.ts.tsc : 0) : row.pkt.offset;
		if (cur >= lo && cur < hi)
			ccol = (int)((double)(cur - lo) * ncols / (double)(hi - lo));
	}
	if (streams_tl_columns(ui, ev, n, ncols, lo, hi, time) < 0)
		return;
	for (c = 0; c < ncols; c++) {
		const struct perfdata_event *e;

		if (streams_tl_cols.at[c] < 0)
			continue;
		e = &ev[streams_tl_cols.at[c]];
		if (streams_tl_is_loss(e))
			tl_cols_offer(&cells[c], streams_tl_glyph(e),
				      screen_attr(ui, SC_MSGERR), TL_RANK_TROUBLE);
		else
			tl_cols_offer(&cells[c], streams_tl_glyph(e),
				      screen_attr(ui, SC_DIM), TL_RANK_SIDEBAND);
		if (ccol >= 0 && abs(c - ccol) < best) {
			best = abs(c - ccol);
			near = e;
		}
	}
	if (st_pick >= 0 && st_pick_cur == UINT64_MAX)
		st_pick_cur = ui->cursor;
	if (st_pick >= 0 && st_pick < ncols && st_pick_cur == ui->cursor &&
	    streams_tl_cols.at[st_pick] >= 0) {
		near = &ev[streams_tl_cols.at[st_pick]];
		picked = 1;
	} else {
		st_pick = -1;
	}
	streams_tl_note(ui, near, picked);
}

const char *streams_tl_legend(struct ui *ui)
{
	const struct perfdata_event *ev;
	size_t n, i;

	if (perfdata_events(ui->trace, ui->stream_no, &ev, &n) < 0)
		return NULL;
	for (i = 0; i < n; i++)
		if (streams_tl_rank(&ev[i]))
			return "! lost ^ start , switch c comm";
	return NULL;
}

void streams_tl_forget(struct ui *ui)
{
	st_last_near = NULL;
	st_pick = -1;
}

void streams_tl_pick(struct ui *ui, int col)
{
	st_pick = col;
	st_pick_cur = UINT64_MAX;
	st_last_near = NULL;
}
