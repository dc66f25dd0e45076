/* tl_lanes -- a lane per CPU stream under the timeline (see tl_lanes.h). */
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "nav.h"
#include "perfdata.h"
#include "screen.h"
#include "sideband.h"
#include "tl_lanes.h"
#include "trace.h"
#include "ui.h"

#define TL_LANES_PROCS 52	/* processes with a letter: A-Z, a-z */
#define TL_LANES_COLORS 6
#define TL_LANES_COLS 1024	/* columns drawn at most */
#define TL_LANES_OTHER -3	/* a cell's process has no letter: '+' */

/* The letters processes get, in order of their first appearance. */
static const char tl_lanes_abc[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/* A process with a letter. */
struct tl_proc {
	int32_t pid;
	const char *comm;	/* its name when first seen (the sideband's) */
};

/* The sideband of the trace shown, loaded once, and its processes. */
static struct {
	const struct trace *t;	/* the trace it was loaded for */
	uint64_t size;
	struct sb *sb;
	int failed;		/* loading failed: no lanes */
	int *lane;		/* stream of each lane: every CPU stream
				 * with a switch */
	int nlanes;
	struct tl_proc proc[TL_LANES_PROCS];
	int nprocs;
	int others;		/* processes beyond the letters: drawn as
				 * TL_LANES_OTHER */
	/* the last drawing, for clicks */
	int gutter, w;
	uint64_t lo, hi;
	int time;
} tll;

void tl_lanes_free(void)
{
	sb_free(tll.sb);
	free(tll.lane);
	memset(&tll, 0, sizeof(tll));
}

/* The letter index of process @pid running as @comm, or -1. */
static int tl_lanes_proc(int32_t pid, const char *comm)
{
	int i;

	for (i = 0; i < tll.nprocs; i++)
		if (tll.proc[i].pid == pid && !strcmp(tll.proc[i].comm, comm))
			return i;
	/* a thread not named yet (switched in before its COMM record):
	 * its process's first name */
	for (i = 0; !*comm && i < tll.nprocs; i++)
		if (tll.proc[i].pid == pid)
			return i;
	return -1;
}

/* A process's first appearance (tl_lanes_procs()). */
struct tl_seen {
	uint64_t tsc;
	int32_t pid;
	const char *comm;
};

static int tl_lanes_seen_cmp(const void *a, const void *b)
{
	const struct tl_seen *x = a, *y = b;

	return x->tsc < y->tsc ? -1 : x->tsc > y->tsc;
}

/* The name of thread @tid at TSC @tsc: the sideband's COMM records, else
 * the slice's @fallback. */
static const char *tl_lanes_comm(int32_t tid, uint64_t tsc, const char *fallback)
{
	const char *c = tid >= 0 ? sb_comm(tll.sb, tid, tsc) : "";

	return c && *c ? c : fallback;
}

/* The processes (a pid under one comm: threads that named themselves
 * apart are told apart) in order of their first switch in or naming,
 * over every lane; named ones first, then processes never named. */
static void tl_lanes_procs(const struct trace *t)
{
	struct tl_seen *v;
	size_t n = 0, cap = 0, i, s;
	int l, named;

	tll.nprocs = 0;
	for (l = 0; l < tll.nlanes; l++)
		cap += sb_nslices(tll.sb, tll.lane[l]);
	for (s = 0; s < t->nstreams; s++) {
		const struct perfdata_event *ev;
		size_t ne;

		if (!perfdata_events(t, (int)s, &ev, &ne))
			cap += ne;
	}
	v = malloc((cap ? cap : 1) * sizeof(*v));
	if (!v)
		return;
	for (l = 0; l < tll.nlanes; l++) {
		struct sb_slice sl;

		for (i = 0; !sb_slice(tll.sb, tll.lane[l], i, &sl) && n < cap; i++)
			if (sl.pid > 0)
				v[n++] = (struct tl_seen){ sl.tsc, sl.pid,
					tl_lanes_comm(sl.tid, sl.tsc, sl.comm) };
	}
	for (s = 0; s < t->nstreams; s++) {
		const struct perfdata_event *ev;
		size_t ne;

		if (perfdata_events(t, (int)s, &ev, &ne))
			continue;
		for (i = 0; i < ne && n < cap; i++)
			if (ev[i].kind == PD_EV_COMM && ev[i].have_tsc && ev[i].pid > 0)
				v[n++] = (struct tl_seen){ ev[i].tsc, ev[i].pid, ev[i].comm };
	}
	qsort(v, n, sizeof(*v), tl_lanes_seen_cmp);
	tll.others = 0;
	for (named = 1; named >= 0; named--)
		for (i = 0; i < n; i++)
			if ((!named || *v[i].comm) && tl_lanes_proc(v[i].pid, v[i].comm) < 0) {
				if (tll.nprocs == TL_LANES_PROCS) {
					tll.others = 1;
					break;
				}
				tll.proc[tll.nprocs].pid = v[i].pid;
				tll.proc[tll.nprocs++].comm = v[i].comm;
			}
	free(v);
}

/* Load the sideband of the trace shown, once. */
static int tl_lanes_load(struct ui *ui)
{
	const struct trace *t = ui->trace;
	char err[256];
	size_t s;

	if (tll.t == t && tll.size == t->size)
		return tll.failed ? -1 : 0;
	tl_lanes_free();
	tll.t = t;
	tll.size = t->size;
	tll.failed = 1;
	if (t->kind == TRACE_RAW || sb_load(&tll.sb, t, err, sizeof(err)) < 0)
		return -1;
	tll.lane = malloc((t->nstreams ? t->nstreams : 1) * sizeof(*tll.lane));
	if (!tll.lane)
		return -1;
	for (s = 0; s < t->nstreams; s++)
		if (t->streams[s].cpu >= 0 && sb_nslices(tll.sb, (int)s))
			tll.lane[tll.nlanes++] = (int)s;
	if (!tll.nlanes)
		return -1;
	tl_lanes_procs(t);
	tll.failed = 0;
	return 0;
}

int tl_lanes_span(struct ui *ui, uint64_t *t0, uint64_t *t1)
{
	struct sb_slice sl;
	uint64_t a = UINT64_MAX, b = 0;
	int l;

	if (tl_lanes_load(ui))
		return 0;
	for (l = 0; l < tll.nlanes; l++) {
		size_t n = sb_nslices(tll.sb, tll.lane[l]);

		if (!sb_slice(tll.sb, tll.lane[l], 0, &sl) && sl.tsc && sl.tsc < a)
			a = sl.tsc;
		if (n && !sb_slice(tll.sb, tll.lane[l], n - 1, &sl) && sl.tsc > b)
			b = sl.tsc;
	}
	if (a == UINT64_MAX || b <= a)
		return 0;
	if (a < *t0 || !*t0)
		*t0 = a;
	if (b > *t1)
		*t1 = b;
	return 1;
}

int tl_lanes_rows(struct ui *ui)
{
	return tl_lanes_load(ui) ? 0 : tll.nlanes + 1;
}

int tl_lanes_next(struct ui *ui, int dir)
{
	int l;

	if (tl_lanes_load(ui))
		return -1;
	/* lanes are in stream order: from a stream without a lane too, the
	 * next lane is the first after it */
	if (dir > 0) {
		for (l = 0; l < tll.nlanes; l++)
			if (tll.lane[l] > ui->stream_no)
				return tll.lane[l];
		return -1;
	}
	for (l = tll.nlanes - 1; l >= 0; l--)
		if (tll.lane[l] < ui->stream_no)
			return tll.lane[l];
	return -1;
}

char tl_lanes_letter(struct ui *ui, int32_t pid, const char *comm)
{
	int i;

	if (tl_lanes_load(ui))
		return 0;
	i = tl_lanes_proc(pid, comm);
	return i < 0 ? 0 : tl_lanes_abc[i];
}

/* The first slice of @stream at or after TSC @tsc, less one (the one
 * holding @tsc); n if none holds it. */
static size_t tl_lanes_slice_at(int stream, uint64_t tsc)
{
	size_t lo = 0, hi = sb_nslices(tll.sb, stream);
	struct sb_slice sl;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (!sb_slice(tll.sb, stream, mid, &sl) && sl.tsc <= tsc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : sb_nslices(tll.sb, stream);
}

/* What a lane cell shows: the process that ran longest in [@a, @b) (-1:
 * nothing known, -2: idle, pid 0, TL_LANES_OTHER: one without a letter),
 * and whether the task changed in it. */
static int tl_lanes_cell(int stream, uint64_t a, uint64_t b, int *changed)
{
	size_t i = tl_lanes_slice_at(stream, a), n = sb_nslices(tll.sb, stream);
	struct sb_slice sl, next;
	uint64_t best = 0;
	int who = -1, first = 1;
	int32_t tid = -1;

	*changed = 0;
	if (i >= n) {
		i = 0;		/* before the first slice: nothing known */
		if (sb_slice(tll.sb, stream, 0, &sl) || sl.tsc >= b)
			return -1;
	}
	for (; i < n && !sb_slice(tll.sb, stream, i, &sl) && sl.tsc < b; i++) {
		uint64_t s = sl.tsc > a ? sl.tsc : a, e = b;

		if (i + 1 < n && !sb_slice(tll.sb, stream, i + 1, &next) && next.tsc < b)
			e = next.tsc;
		if (!first && sl.tid != tid)
			*changed = 1;
		first = 0;
		tid = sl.tid;
		if (e - s + 1 > best) {
			best = e - s + 1;
			who = sl.pid < 0 ? -1 : sl.pid == 0 ? -2 :
			      tl_lanes_proc(sl.pid, tl_lanes_comm(sl.tid, s, sl.comm));
			/* it ran: not blank, which says nothing is known */
			if (who == -1 && sl.pid > 0)
				who = TL_LANES_OTHER;
		}
	}
	return who;
}

/* The markers of process events on @cpu in each of the @w columns of
 * [@lo, @hi) into @g (NULL: none): exits first, then forks, execs, mmaps. */
static void tl_lanes_events(int cpu, uint64_t lo, uint64_t hi, int w,
			    const char **g)
{
	static const char *const glyph[] = {
		[SB_EV_FORK] = "f", [SB_EV_EXIT] = "x", [SB_EV_EXEC] = "e",
		[SB_EV_MMAP] = "m",
	};
	static const int rank[] = {
		[SB_EV_FORK] = 3, [SB_EV_EXIT] = 4, [SB_EV_EXEC] = 2,
		[SB_EV_MMAP] = 1,
	};
	int best[TL_LANES_COLS];
	size_t i, n = sb_nevents(tll.sb);
	int c;

	for (c = 0; c < w; c++) {
		best[c] = -1;
		g[c] = NULL;
	}
	for (i = 0; i < n; i++) {
		const struct sb_event *e = sb_event(tll.sb, i);

		if (!e->have_tsc || e->cpu != cpu || e->tsc < lo || e->tsc >= hi ||
		    e->kind > SB_EV_MMAP)
			continue;
		c = (int)((double)(e->tsc - lo) * w / (double)(hi - lo));
		if (c >= w)
			c = w - 1;
		if (best[c] < 0 || rank[e->kind] > rank[best[c]]) {
			best[c] = e->kind;
			g[c] = glyph[e->kind];
		}
	}
}

/* One lane: @l's cells across [@lo, @hi). */
static void tl_lanes_lane(struct ui *ui, int l, int y, int x, int w,
			  uint64_t lo, uint64_t hi, int ccol)
{
	const struct trace_stream *s = &ui->trace->streams[tll.lane[l]];
	static const char *evg[TL_LANES_COLS];
	int c;

	if (w > TL_LANES_COLS)
		w = TL_LANES_COLS;
	tl_lanes_events(s->cpu, lo, hi, w, evg);

	attrset(tll.lane[l] == ui->stream_no ? (int)A_BOLD : screen_attr(ui, SC_DIM));
	screen_put(y, x, tll.gutter, s->name);
	for (c = 0; c < w; c++) {
		uint64_t a = lo + (uint64_t)((double)(hi - lo) * c / w);
		uint64_t b = lo + (uint64_t)((double)(hi - lo) * (c + 1) / w);
		char letter[2] = { 0, 0 };
		const char *g = " ";
		int changed, who, attr = A_NORMAL;

		if (b <= a)
			b = a + 1;
		who = tl_lanes_cell(tll.lane[l], a, b, &changed);
		if (who >= 0) {
			letter[0] = tl_lanes_abc[who];
			g = letter;
			attr = screen_attr(ui, (enum screen_color)(SC_LANE0 + who % TL_LANES_COLORS));
		} else if (who == -2) {
			g = screen_glyph(ui, "·", ".");
			attr = screen_attr(ui, SC_DIM);
		} else if (who == TL_LANES_OTHER) {
			g = "+";
			attr = screen_attr(ui, SC_OTHER) | A_BOLD;
		}
		if (evg[c])
			g = evg[c];
		if (changed)
			attr |= A_UNDERLINE;
		if (c == ccol && tll.lane[l] == ui->stream_no)
			attr |= A_REVERSE;
		attrset(attr);
		screen_put(y, x + tll.gutter + c, 1, g);
	}
	attrset(A_NORMAL);
}

/* The legend's key for TL_LANES_OTHER cells. */
#define TL_LANES_OTHERS "+ others (no letter left) "

/* The legend: the marker row's (@legend, may be NULL), the lanes'
 * markers, each process's letter, name and pid. */
static void tl_lanes_legend(struct ui *ui, int y, int x, int w, const char *legend)
{
	static const char glyphs[] = "f fork x exit e exec m mmap ";
	char buf[64];
	int i, at = 0, need = 0;

	/* The processes' letters say what the lanes show; the glyphs' key is
	 * also in the help (F1, G): it goes first when both do not fit. */
	for (i = 0; i < tll.nprocs; i++)
		need += snprintf(buf, sizeof(buf), "%c %s %" PRId32 " ", 'A',
				 tll.proc[i].comm[0] ? tll.proc[i].comm : "?",
				 tll.proc[i].pid);
	if (tll.others)
		need += (int)sizeof(TL_LANES_OTHERS) - 1;
	if (need + (int)sizeof(glyphs) - 1 +
	    (legend ? (int)strlen(legend) + 2 : 0) > w)
		legend = NULL;
	else
		need = 0;
	attrset(screen_attr(ui, SC_DIM));
	if (legend) {
		at += screen_put(y, x, w, legend);
		at += screen_put(y, x + at, w - at, "  ");
	}
	if (need + (int)sizeof(glyphs) - 1 <= w)
		at += screen_put(y, x + at, w - at, glyphs);
	/* before the letters, which a wide list cuts off */
	if (tll.others && at < w) {
		attrset(screen_attr(ui, SC_OTHER) | A_BOLD);
		at += screen_put(y, x + at, w - at, "+");
		attrset(A_NORMAL);
		at += screen_put(y, x + at, w - at, TL_LANES_OTHERS + 1);
	}
	for (i = 0; i < tll.nprocs && at < w; i++) {
		snprintf(buf, sizeof(buf), "%c", tl_lanes_abc[i]);
		attrset(screen_attr(ui, (enum screen_color)(SC_LANE0 + i % TL_LANES_COLORS)));
		at += screen_put(y, x + at, w - at, buf);
		snprintf(buf, sizeof(buf), " %s %" PRId32 " ", tll.proc[i].comm[0] ?
			 tll.proc[i].comm : "?", tll.proc[i].pid);
		attrset(A_NORMAL);
		at += screen_put(y, x + at, w - at, buf);
	}
	attrset(A_NORMAL);
}

int tl_lanes_gutter(struct ui *ui)
{
	int l, g = 0;

	if (tl_lanes_load(ui))
		return 0;
	for (l = 0; l < tll.nlanes; l++) {
		int n = (int)strlen(ui->trace->streams[tll.lane[l]].name) + 1;

		if (n > g)
			g = n;
	}
	return g;
}

void tl_lanes_draw(struct ui *ui, int y, int x, int w, int h, uint64_t lo,
		   uint64_t hi, int time, const char *legend)
{
	struct win_row row;
	int l, ccol = -1, g;

	if (h <= 0 || tl_lanes_load(ui))
		return;
	g = tl_lanes_gutter(ui);
	tll.gutter = g;
	tll.w = w - g > TL_LANES_COLS ? TL_LANES_COLS : w - g;
	tll.lo = lo;
	tll.hi = hi;
	tll.time = time;
	if (!time || hi <= lo || tll.w < 4) {
		int at;

		attrset(screen_attr(ui, SC_DIM));
		at = screen_put(y, x, w, "lanes: on the time axis only (t)  ");
		if (legend)
			screen_put(y, x + at, w - at, legend);
		attrset(A_NORMAL);
		return;
	}
	if (!nav_cursor_row(ui, &row) && (row.ts.flags & TM_F_TSC) &&
	    row.ts.tsc >= lo && row.ts.tsc < hi)
		ccol = (int)((double)(row.ts.tsc - lo) * tll.w / (double)(hi - lo));
	for (l = 0; l < tll.nlanes && l < h - 1; l++)
		tl_lanes_lane(ui, l, y + l, x, tll.w, lo, hi, ccol);
	tl_lanes_legend(ui, y + (l < h - 1 ? l : h - 1), x, w, legend);
}

int tl_lanes_click(struct ui *ui, int row, int col)
{
	char line[64];
	uint64_t v;

	if (tl_lanes_load(ui) || !tll.time || row < 0 || row >= tll.nlanes ||
	    col < tll.gutter || col >= tll.gutter + tll.w || tll.hi <= tll.lo)
		return UI_DRAW_NONE;
	col -= tll.gutter;
	v = tll.lo + (uint64_t)(((double)col + 0.5) * (double)(tll.hi - tll.lo) / tll.w);
	/* as :lane STREAM TSC, so a script or a binding does the same */
	snprintf(line, sizeof(line), "lane %s %#" PRIx64,
		 ui->trace->streams[tll.lane[row]].name, v);
	return cmd_line(ui, line, 0);
}
