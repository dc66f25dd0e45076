/* tl -- the timeline: the whole trace (or a zoomed part) across the width. */
#include <curses.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "marks.h"
#include "marks_ui.h"
#include "msg.h"
#include "nav.h"
#include "screen.h"
#include "search_ui.h"
#include "streams_tl.h"
#include "timefmt.h"
#include "tl.h"
#include "tl_lanes.h"
#include "ui.h"

#define TL_MAX_COLS 1024
#define TL_MAX_ZOOM 40
/* Ranges binned row by row instead of from the index's summaries. */
#define TL_FINE_BYTES (512u << 10)
#define TL_FINE_ROWS 600000
/* Above this many segments the columns sample the summaries. */
#define TL_EXACT_SEGMENTS 2048
#define TL_SAMPLES 5

/* What a column holds, computed from the index's summaries. */
struct tl_col {
	double packets;		/* density */
	uint32_t trouble;	/* OVFs, errors and gaps */
	uint32_t psbs;
	uint8_t known;		/* summarised (else still being indexed) */
};

/* The columns, recomputed only when something they depend on changed. */
struct tl_cache {
	struct tl_col col[TL_MAX_COLS];
	int ncols;
	int time;		/* axis of this computation */
	uint64_t lo, hi;	/* bytes, or TSC for the time axis */
	size_t nsum, nseeks;
	double max;
	double when;		/* when it was computed */
};

static struct tl_cache tl_cache;

/* Decoding from the last PSB to the end costs this much at most here;
 * past it the index's totals tell the end of time. */
#define TL_TAIL_MAX (1u << 20)

/* The TSC of the last row (decoding one window at the end), or 0. */
static uint64_t tl_last_tsc(struct ui *ui)
{
	static const struct win_cache *wc;
	static uint64_t size, tsc;
	struct win_iter it = { 0 };
	uint64_t end = ui->img->size ? ui->img->size - 1 : 0, psb;
	int n = WIN_MAX_ROWS;

	if (wc == ui->wc && size == ui->img->size)
		return tsc;
	tsc = 0;
	/* A long last segment: a time near its start will do for now. */
	if (!win_psb_at_or_before(ui->wc, end, &psb) && end - psb > TL_TAIL_MAX)
		end = psb + TL_TAIL_MAX / 16;
	if (!win_seek(&it, ui->wc, end)) {
		do {
			if (win_row(&it)->ts.flags & TM_F_TSC) {
				tsc = win_row(&it)->ts.tsc;
				break;
			}
		} while (n-- && !win_prev(&it));
	}
	win_iter_release(&it);
	wc = ui->wc;
	size = ui->img->size;
	return tsc;
}

/*
 * The end of the time segment @i (summary @s) covers: the next segment's
 * first TSC (a PSB+ carries one: the time the trace reached it), or its
 * own last TSC packet.  Segments whose only TSC is in their PSB+ would
 * otherwise pile all their packets into one instant.
 */
static uint64_t tl_seg_end(struct ui *ui, size_t i, const struct idx_summary *s)
{
	struct idx_summary n;

	if (!idx_summary(ui->idx, i + 1, &n) && n.have_tsc && n.first_tsc > s->last_tsc)
		return n.first_tsc;
	return s->last_tsc + 1;
}

/* The time range of the trace: the first TSC to the last row's estimate
 * (the index's totals where it knows more).  Returns 1, or 0 if unknown. */
static int tl_time_range(struct ui *ui, uint64_t *t0, uint64_t *t1)
{
	struct idx_summary tot;
	uint64_t a = ui->have_t0 ? ui->t0 : 0, b = tl_last_tsc(ui);

	if (ui->idx && idx_totals(ui->idx, &tot) >= 0 && tot.have_tsc) {
		if (!a || tot.first_tsc < a)
			a = tot.first_tsc;
		if (tot.last_tsc > b)
			b = tot.last_tsc;
	}
	/* CPU lanes: the axis of the whole recording, the same on every
	 * stream */
	if (a && b > a)
		tl_lanes_span(ui, &a, &b);
	if (!a || b <= a)
		return 0;
	*t0 = a;
	*t1 = b;
	return 1;
}

/* Whether the timeline shows time (asked for, and available). */
static int tl_is_time(struct ui *ui)
{
	uint64_t a, b;

	return ui->tl_time && tl_time_range(ui, &a, &b);
}

/* The TSC of the row holding @off, or 0 if it has none. */
static uint64_t tl_row_tsc(struct ui *ui, uint64_t off)
{
	struct win_iter it = { 0 };
	uint64_t t = 0;

	if (!win_seek(&it, ui->wc, off) && (win_row(&it)->ts.flags & TM_F_TSC))
		t = win_row(&it)->ts.tsc;
	win_iter_release(&it);
	return t;
}

/* Center a span of @span within [@a, @b) around @c. */
static void tl_center(uint64_t a, uint64_t b, uint64_t c, uint64_t span,
		      uint64_t *lo, uint64_t *hi)
{
	uint64_t l;

	if (span >= b - a) {
		*lo = a;
		*hi = b;
		return;
	}
	l = c > a + span / 2 ? c - span / 2 : a;
	if (l + span > b)
		l = b - span;
	*lo = l;
	*hi = l + span;
}

/* The axis range [lo, hi): bytes, or TSC ticks on the time axis. */
static void tl_axis(struct ui *ui, int time, int ncols, uint64_t *lo, uint64_t *hi)
{
	uint64_t a = 0, b = ui->img->size, c = ui->cursor, span;

	if (time) {
		tl_time_range(ui, &a, &b);
		c = tl_row_tsc(ui, ui->cursor);
		if (!c)
			c = a;
	}
	span = (b - a) >> ui->tl_zoom;
	if (span < (uint64_t)ncols * (time ? 1 : 16))
		span = (uint64_t)ncols * (time ? 1 : 16);
	tl_center(a, b, c, span, lo, hi);
}

void tl_range(struct ui *ui, uint64_t *lo, uint64_t *hi)
{
	tl_axis(ui, tl_is_time(ui), ui->cols > 0 ? ui->cols : 1, lo, hi);
}

/* Add @n to the columns covered by [@a, @b) of the axis. */
static void tl_spread(struct tl_cache *tc, uint64_t a, uint64_t b,
		      const struct idx_summary *s)
{
	double w = (double)(tc->hi - tc->lo) / tc->ncols;
	long c0, c1, c;

	if (b <= tc->lo || a >= tc->hi)
		return;
	c0 = a <= tc->lo ? 0 : (long)((a - tc->lo) / w);
	c1 = b >= tc->hi ? tc->ncols - 1 : (long)((b - 1 - tc->lo) / w);
	if (c1 >= tc->ncols)
		c1 = tc->ncols - 1;
	if (c1 < c0)
		c1 = c0;
	for (c = c0; c <= c1; c++) {
		tc->col[c].known = 1;
		if (!s)
			continue;
		tc->col[c].packets += (double)s->npackets / (double)(c1 - c0 + 1);
		tc->col[c].trouble += s->novf + s->nerrors + s->ngaps;
	}
	if (a >= tc->lo)
		tc->col[c0].psbs++;
}

/* The column of axis value @v, or -1 outside. */
static int tl_col_of(const struct tl_cache *tc, uint64_t v)
{
	if (v < tc->lo || v >= tc->hi || tc->hi <= tc->lo)
		return -1;
	return (int)((double)(v - tc->lo) * tc->ncols / (double)(tc->hi - tc->lo));
}

/*
 * A small trace, or a close zoom, is binned row by row from the windows
 * (a bounded walk), which shows far more than per-segment summaries.
 * Returns 1 if it did so.
 */
static int tl_fine(struct ui *ui, struct tl_cache *tc)
{
	struct win_iter it = { 0 };
	uint64_t start = tc->time ? 0 : tc->lo;
	long budget = TL_FINE_ROWS;
	int c;

	if (tc->time ? ui->img->size > TL_FINE_BYTES : tc->hi - tc->lo > TL_FINE_BYTES)
		return 0;
	if (win_seek(&it, ui->wc, start))
		return 0;
	for (c = 0; c < tc->ncols; c++)
		tc->col[c].known = 1;
	do {
		const struct win_row *row = win_row(&it);
		uint64_t v = row->pkt.offset;

		if (!tc->time && v >= tc->hi)
			break;
		if (tc->time) {
			if (!(row->ts.flags & TM_F_TSC))
				continue;
			v = row->ts.tsc;
		}
		c = tl_col_of(tc, v);
		/* the axis ends at the last row's time: that row (maybe the
		 * trouble of data lost after it) is in the last column */
		if (c < 0 && tc->time && v == tc->hi && tc->ncols > 0)
			c = tc->ncols - 1;
		if (c < 0)
			continue;
		tc->col[c].packets++;
		if (win_row_trouble(row))
			tc->col[c].trouble++;
		if (row->pkt.type == PKT_PSB)
			tc->col[c].psbs++;
	} while (budget-- > 0 && !win_next(&it));
	win_iter_release(&it);
	for (c = 0; c < tc->ncols; c++)
		if (tc->col[c].packets > tc->max)
			tc->max = tc->col[c].packets;
	return 1;
}

static double tl_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The segment holding axis value @v (an offset, or a TSC). */
static size_t tl_seg_of(struct ui *ui, int time, uint64_t v)
{
	size_t seg = 0;

	if (time) {
		if (idx_find_tsc(ui->idx, v, &seg))
			seg = 0;
	} else if (idx_find(ui->idx, v, &seg)) {
		seg = 0;
	}
	return seg;
}

/*
 * Many segments: each column looks up its first and last segment (binary
 * searches) and samples TL_SAMPLES summaries between them for the packet
 * density (packets per byte, or per TSC tick), so a redraw costs the same
 * for a 4 GiB trace as for a small one.  OVFs and errors come from the
 * index's trouble list, so none is missed by sampling.
 */
static void tl_sampled(struct ui *ui, struct tl_cache *tc, size_t nsum, size_t nseeks)
{
	double w = (double)(tc->hi - tc->lo) / tc->ncols;
	struct idx_progress p;
	uint64_t scanned;
	int c, k;

	idx_progress(ui->idx, &p);
	scanned = idx_scan_done(ui->idx) ? ui->img->size : p.scanned;
	for (c = 0; c < tc->ncols; c++) {
		struct tl_col *col = &tc->col[c];
		uint64_t a = tc->lo + (uint64_t)(c * w), b = tc->lo + (uint64_t)((c + 1) * w);
		size_t sa = tl_seg_of(ui, tc->time, a), sb = tl_seg_of(ui, tc->time, b ? b - 1 : 0);
		double npk = 0, span = 0;
		size_t t;

		if (sb < sa)
			sb = sa;
		if (!tc->time && b > scanned)
			continue;	/* not scanned yet */
		if (sa >= nsum)
			continue;	/* not summarised yet */
		col->known = 1;
		col->psbs = (uint32_t)(sb - sa + (c == 0 || sa != tl_seg_of(ui, tc->time, a - 1)));
		for (k = 0; k < TL_SAMPLES; k++) {
			size_t i = sa + (sb - sa) * (size_t)k / (TL_SAMPLES - 1);
			struct idx_summary s;

			if (i >= nsum || idx_summary(ui->idx, i, &s))
				continue;
			if (tc->time) {
				if (!s.have_tsc)
					continue;
				span += (double)(tl_seg_end(ui, i, &s) - s.first_tsc);
			} else {
				span += (double)s.size;
			}
			npk += (double)s.npackets;
			if (sa == sb)
				break;
		}
		if (span > 0)
			col->packets = npk / span * w;
		/* Trouble: the first trouble segment at or after sa. */
		{
			struct idx_summary s;

			if (!idx_summary(ui->idx, sa, &s) && idx_summary_trouble(&s))
				col->trouble = 1;
			else if (!idx_next_trouble(ui->idx, sa, 1, &t) && t <= sb)
				col->trouble = 1;
		}
	}
	(void)nseeks;
}

/* Recompute the columns if the index grew or the range changed. */
static void tl_compute(struct ui *ui, int ncols)
{
	struct tl_cache *tc = &tl_cache;
	int time = tl_is_time(ui);
	uint64_t lo, hi;
	size_t nsum = ui->idx ? idx_nsummaries(ui->idx) : 0;
	size_t nseeks = ui->idx ? idx_nseeks(ui->idx) : 0, i;
	int c;

	tl_axis(ui, time, ncols, &lo, &hi);
	if (tc->ncols == ncols && tc->time == time && tc->lo == lo && tc->hi == hi) {
		if (tc->nsum == nsum && tc->nseeks == nseeks)
			return;
		/* The index grew: catch up a few times a second, not on
		 * every key; but at once when it is complete (a cached
		 * index arrives whole, and nothing else will redraw). */
		if (tl_now() - tc->when < 0.25 && !idx_complete(ui->idx))
			return;
	}
	memset(tc->col, 0, sizeof(tc->col));
	tc->ncols = ncols;
	tc->time = time;
	tc->lo = lo;
	tc->hi = hi;
	tc->nsum = nsum;
	tc->nseeks = nseeks;
	tc->max = 0;
	tc->when = tl_now();
	if (tl_fine(ui, tc))
		return;
	if (!ui->idx)
		return;
	if (nseeks > TL_EXACT_SEGMENTS) {
		tl_sampled(ui, tc, nsum, nseeks);
		goto out_max;
	}
	for (i = 0; i < nseeks; i++) {
		struct idx_summary s;
		struct idx_seek sk, next;
		int have = idx_summary(ui->idx, i, &s) == 0;

		if (idx_seek(ui->idx, i, &sk) < 0)
			break;
		if (time) {
			if (!have || !s.have_tsc)
				continue;
			tl_spread(tc, s.first_tsc, tl_seg_end(ui, i, &s), &s);
			continue;
		}
		if (idx_seek(ui->idx, i + 1, &next) < 0)
			next.offset = idx_scan_done(ui->idx) ? ui->img->size : sk.offset + 1;
		if (next.offset <= lo || sk.offset >= hi)
			continue;
		tl_spread(tc, sk.offset, next.offset, have ? &s : NULL);
	}
	if (!time && nseeks) {
		struct idx_seek first;

		/* Bytes before the first PSB are not a segment, but known. */
		if (!idx_seek(ui->idx, 0, &first) && first.offset > lo)
			for (c = 0; c < ncols && lo + (hi - lo) * (uint64_t)c / ncols < first.offset; c++)
				tc->col[c].known = 1;
	}
	if (time) {
		/* Time between segments is known to be empty once the
		 * segments around it are summarised. */
		struct idx_summary s;
		int last = -1;

		if (nsum && !idx_summary(ui->idx, nsum - 1, &s) && s.have_tsc)
			last = s.last_tsc >= hi ? ncols - 1 : tl_col_of(tc, s.last_tsc);
		for (c = 0; c <= last; c++)
			tc->col[c].known = 1;
	}
out_max:
	for (c = 0; c < ncols; c++)
		if (tc->col[c].packets > tc->max)
			tc->max = tc->col[c].packets;
}

/* A number of bytes as "12.5MiB", with @dec decimals (-1: as few as
 * reads well), or exact in hex with @dec 9. */
static void tl_fmt_bytes(char *buf, size_t size, uint64_t v, int dec)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double d = (double)v;
	int u = 0;

	if (dec >= 9) {
		snprintf(buf, size, "0x%" PRIx64, v);
		return;
	}
	while (d >= 1024 && u < 4)
		d /= 1024, u++;
	if (u == 0)
		snprintf(buf, size, "%" PRIu64 "B", v);
	else
		snprintf(buf, size, "%.*f%s", dec >= 0 ? dec : d < 10 ? 1 : 0, d, unit[u]);
}

/* The axis label at axis value @v: times with resolution @res ns, bytes
 * with @dec decimals (tl_fmt_bytes()). */
static void tl_label(struct ui *ui, int time, uint64_t v, double res, int dec,
		     char *buf, size_t size)
{
	uint64_t t0, t1;

	if (time && tl_time_range(ui, &t0, &t1)) {
		double ns = timefmt_tsc_diff(ui, t0, v);

		if (isnan(ns))
			snprintf(buf, size, "+%" PRIu64 "tsc", v - t0);
		else
			timefmt_ns_res(buf, size, ns, res);
	} else {
		tl_fmt_bytes(buf, size, v, dec);
	}
}

/* The three axis labels at @lo, @mid and @hi into @l, @m and @r, told
 * apart: time labels with the digits the half span needs, byte labels
 * with more decimals (at last exact) until they differ. */
static void tl_labels(struct ui *ui, int time, uint64_t lo, uint64_t mid,
		      uint64_t hi, char *l, char *m, char *r, size_t size)
{
	double res = time ? timefmt_tsc_diff(ui, lo, mid) : NAN;
	int dec = -1;

	if (isnan(res) || res < 1)
		res = 1;
	for (;;) {
		tl_label(ui, time, lo, res, dec, l, size);
		tl_label(ui, time, mid, res, dec, m, size);
		tl_label(ui, time, hi, res, dec, r, size);
		if (dec >= 9 || (strcmp(l, m) && strcmp(m, r)))
			break;
		if (time) {
			uint64_t t0, t1;

			/* Less than a nanosecond apart: in TSC ticks. */
			if (tl_time_range(ui, &t0, &t1)) {
				snprintf(l, size, "+%" PRIu64 "tsc", lo - t0);
				snprintf(m, size, "+%" PRIu64 "tsc", mid - t0);
				snprintf(r, size, "+%" PRIu64 "tsc", hi - t0);
			}
			break;
		}
		dec = dec < 0 ? 1 : dec < 3 ? dec + 1 : 9;
	}
}

/* The column of the hit at @off (search_ui_tl_marks()). */
static int tl_hit_col(struct ui *ui, uint64_t off, void *arg)
{
	const struct tl_cache *tc = arg;

	return tl_col_of(tc, tc->time ? tl_row_tsc(ui, off) : off);
}

/* Row 1: density on a log scale. */
static void tl_draw_density(struct ui *ui, struct pane *p, int ncols)
{
	static const char *const bars_u[] = { " ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };
	static const char *const bars_a[] = { " ", ".", ":", "-", "=", "+", "*", "#", "@" };
	struct tl_cache *tc = &tl_cache;
	int c;

	for (c = 0; c < ncols; c++) {
		const struct tl_col *col = &tc->col[c];
		int lvl = 0;

		if (!col->known) {
			attrset(screen_attr(ui, SC_DIM));
			screen_put(p->y, p->x + c, 1, screen_glyph(ui, "·", "."));
			continue;
		}
		if (col->packets > 0 && tc->max > 0)
			lvl = 1 + (int)(7.0 * log1p(col->packets) / log1p(tc->max));
		if (lvl > 8)
			lvl = 8;
		attrset(screen_attr(ui, col->trouble ? SC_MSGERR : SC_TL));
		screen_put(p->y, p->x + c, 1, ui->utf8 ? bars_u[lvl] : bars_a[lvl]);
	}
	attrset(A_NORMAL);
}

/* The columns the view (its first row to its last) covers: *@v0..*@v1. */
static void tl_viewport(struct ui *ui, int ncols, int *v0, int *v1)
{
	struct tl_cache *tc = &tl_cache;
	struct win_iter it = { 0 };
	int n = nav_view_rows(ui);
	uint64_t a, b, bottom = ui->top;

	if (!win_seek(&it, ui->wc, ui->top)) {
		while (--n > 0 && !win_next(&it))
			;
		bottom = win_row(&it)->pkt.offset + win_row(&it)->size;
	}
	win_iter_release(&it);
	if (tc->time) {
		a = tl_row_tsc(ui, ui->top);
		b = tl_row_tsc(ui, bottom ? bottom - 1 : 0) + 1;
	} else {
		a = ui->top;
		b = bottom;
	}
	*v0 = a < tc->lo ? 0 : tl_col_of(tc, a);
	*v1 = b >= tc->hi ? ncols - 1 : tl_col_of(tc, b ? b - 1 : 0);
	if (*v0 < 0)
		*v0 = 0;
	if (*v1 < *v0)
		*v1 = *v0;
}

/* Set @inreg[c] for the columns regions cover (underlined).  On the time
 * axis each costs two (cached) window lookups: 32 at most. */
static void tl_regions(struct ui *ui, int ncols, uint8_t *inreg)
{
	struct tl_cache *tc = &tl_cache;
	size_t i, n = ui->bm ? marks_count(ui->bm) : 0, nreg = 0;
	int c;

	for (i = 0; i < n; i++) {
		const struct marks_entry *e = marks_at(ui->bm, i);
		uint64_t from = e->from, to = e->to;
		int c0, c1;

		if (e->kind != BM_REGION || (tc->time && nreg++ >= 32))
			continue;
		if (tc->time) {
			from = tl_row_tsc(ui, e->from);
			to = tl_row_tsc(ui, e->to ? e->to - 1 : 0) + 1;
			if (from <= 1 || to <= from)
				continue;
		}
		if (to <= tc->lo || from >= tc->hi)
			continue;
		c0 = from <= tc->lo ? 0 : tl_col_of(tc, from);
		c1 = to >= tc->hi ? ncols - 1 : tl_col_of(tc, to - 1);
		for (c = c0 < 0 ? 0 : c0; c <= c1 && c < ncols; c++)
			inreg[c] = 1;
	}
}

/* Row 2: the viewport, troubles, PSBs when few, regions. */
static void tl_draw_view(struct ui *ui, struct pane *p, int ncols)
{
	static uint8_t inreg[TL_MAX_COLS];
	struct tl_cache *tc = &tl_cache;
	uint32_t npsb = 0;
	int c, v0, v1;

	tl_viewport(ui, ncols, &v0, &v1);
	memset(inreg, 0, sizeof(inreg));
	tl_regions(ui, ncols, inreg);
	for (c = 0; c < ncols; c++)
		npsb += tc->col[c].psbs;
	for (c = 0; c < ncols; c++) {
		const char *g = " ";
		int attr = A_NORMAL;

		if (tc->col[c].trouble) {
			g = "!";
			attr = screen_attr(ui, SC_MSGERR);
		} else if (npsb && npsb <= (uint32_t)ncols / 2 && tc->col[c].psbs) {
			g = screen_glyph(ui, "╵", "'");
			attr = screen_attr(ui, SC_DIM);
		}
		if (c >= v0 && c <= v1) {
			attr = screen_attr(ui, SC_VIEWPORT) | A_REVERSE;
			if (!strcmp(g, " ") || !strcmp(g, "'") || !strcmp(g, "╵"))
				g = c == v0 ? screen_glyph(ui, "▕", "[") :
				    c == v1 ? screen_glyph(ui, "▏", "]") : " ";
			if (v0 == v1)
				g = screen_glyph(ui, "┃", "|");
		}
		attrset(attr | (inreg[c] ? A_UNDERLINE : 0));
		screen_put(p->y + 1, p->x + c, 1, g);
	}
}

/* Row 2 too: marks and bookmarks (a window lookup each on the time axis,
 * so 64 at most there), search hits, the sideband. */
static void tl_draw_marks(struct ui *ui, struct pane *p, int ncols)
{
	struct tl_cache *tc = &tl_cache;
	size_t i, n = ui->bm ? marks_count(ui->bm) : 0;

	if (ui->bm)
		attrset(screen_attr(ui, SC_MARK));
	for (i = 0; i < n && (!tc->time || i < 64); i++) {
		const struct marks_entry *e = marks_at(ui->bm, i);
		int col = tl_col_of(tc, tc->time ? tl_row_tsc(ui, e->from) : e->from);
		char s[2] = { e->kind == BM_MARK ? e->name[0] : '*', 0 };

		if (e->kind == BM_REGION || col < 0)
			continue;
		screen_put(p->y + 1, p->x + col, 1, s);
	}
	/* Search hits: '·' (search_ui.c); a window lookup each on the time
	 * axis, so fewer there. */
	search_ui_tl_marks(ui, p->y + 1, p->x, tc->time ? 0 : tc->lo,
			   tc->time ? ui->img->size : tc->hi, tc->time ? 64 : (size_t)ncols,
			   tl_hit_col, tc);
	/* perf.data sideband: data loss, itrace start, switches, comm. */
	streams_tl_draw(ui, p->y + (p->h >= 3 ? 2 : 1), p->x, ncols, tc->lo, tc->hi, tc->time);
	attrset(A_NORMAL);
}

/* Row 3: the axis. */
static void tl_draw_axis(struct ui *ui, struct pane *p)
{
	struct tl_cache *tc = &tl_cache;
	char l[32], m[32], r[40];
	int lw, mw, rw;

	tl_labels(ui, tc->time, tc->lo, tc->lo + (tc->hi - tc->lo) / 2,
		  tc->hi, l, m, r, sizeof(l));
	lw = (int)strlen(l);
	mw = (int)strlen(m);
	rw = (int)strlen(r);
	attrset(screen_attr(ui, SC_DIM));
	screen_put(p->y + 2, p->x, p->w, l);
	if (p->w > lw + mw + rw + 4)
		screen_put(p->y + 2, p->x + (p->w - mw) / 2, mw, m);
	if (p->w > lw + rw + 2)
		screen_put(p->y + 2, p->x + p->w - rw, rw, r);
	if (p->w > lw + rw + 30) {
		char z[48];

		snprintf(z, sizeof(z), " %s%s%s ", tc->time ? "time" : "bytes",
			 tc->time && timefmt_estimated(ui) ?
				screen_glyph(ui, "≈", "~") : "",
			 ui->tl_zoom ? "  zoomed" : "");
		screen_put(p->y + 2, p->x + lw + 2, p->w - lw - 2, z);
	}
	attrset(A_NORMAL);
}

static void tl_draw(struct ui *ui, struct pane *p)
{
	struct tl_cache *tc = &tl_cache;
	int ncols = p->w > TL_MAX_COLS ? TL_MAX_COLS : p->w, y;

	if (p->h <= 0 || ncols <= 0)
		return;
	tl_compute(ui, ncols);
	ui->tl_lo = tc->lo;
	ui->tl_hi = tc->hi;
	for (y = 0; y < p->h; y++)
		screen_clear(p->y + y, p->x, p->w);
	tl_draw_density(ui, p, ncols);
	if (p->h < 2)
		return;
	tl_draw_view(ui, p, ncols);
	tl_draw_marks(ui, p, ncols);
	if (p->h >= 3)
		tl_draw_axis(ui, p);
	if (p->h > 3)
		tl_lanes_draw(ui, p->y + 3, p->x, p->w, p->h - 3, tc->lo, tc->hi, tc->time);
}

int tl_zoom(struct ui *ui, int dir)
{
	int z = ui->tl_zoom + (dir > 0 ? 1 : -1);

	if (z < 0 || z > TL_MAX_ZOOM) {
		msg_report(ui, UI_WARN, "timeline zoom at its %s", z < 0 ? "widest" : "closest");
		return UI_DRAW_STATUS;
	}
	ui->tl_zoom = z;
	return UI_DRAW_TIMELINE | UI_DRAW_STATUS;
}

uint64_t tl_tsc_after(struct ui *ui, uint64_t off)
{
	struct win_iter it = { 0 };
	uint64_t t = 0;
	int n = 256;

	if (!win_seek(&it, ui->wc, off)) {
		do {
			if (win_row(&it)->ts.flags & TM_F_TSC) {
				t = win_row(&it)->ts.tsc;
				break;
			}
		} while (n-- && !win_next(&it));
	}
	win_iter_release(&it);
	return t;
}

/* An offset whose row's time is at or before TSC @v, near the first one
 * after it: the index's segment, or before the index knows (a stream just
 * switched to), a binary search over the rows' times (a window each). */
static uint64_t tl_off_near_tsc(struct ui *ui, uint64_t v)
{
	size_t seg;
	struct idx_seek sk;
	uint64_t lo = 0, hi = ui->img->size;
	int steps = 64;

	if (ui->idx && !idx_find_tsc(ui->idx, v, &seg) && !idx_seek(ui->idx, seg, &sk))
		return sk.offset;
	while (hi - lo > 1 && steps--) {
		uint64_t mid = lo + (hi - lo) / 2, t = tl_tsc_after(ui, mid);

		if (t && t < v)
			lo = mid;
		else
			hi = mid;
	}
	if (win_psb_at_or_before(ui->wc, lo, &lo))
		lo = 0;
	return lo;
}

int tl_jump_tsc(struct ui *ui, uint64_t v)
{
	struct win_iter it = { 0 };
	uint64_t off = tl_off_near_tsc(ui, v);

	/* The first row at or after that time. */
	if (!win_seek(&it, ui->wc, off)) {
		int n = WIN_MAX_ROWS * 4;

		while (n-- && !((win_row(&it)->ts.flags & TM_F_TSC) &&
				win_row(&it)->ts.tsc >= v)) {
			if (win_next(&it))
				break;
		}
		off = win_row(&it)->pkt.offset;
	}
	win_iter_release(&it);
	return nav_jump(ui, off);
}

int tl_click(struct ui *ui, int col)
{
	struct tl_cache *tc = &tl_cache;
	uint64_t v;

	if (tc->ncols <= 0 || col < 0 || col >= tc->ncols)
		return UI_DRAW_NONE;
	v = tc->lo + (uint64_t)(((double)col + 0.5) * (double)(tc->hi - tc->lo) / tc->ncols);
	if (tc->time) {
		size_t seg;

		/* before the index knows the time: nowhere, as before */
		if (!ui->idx || idx_find_tsc(ui->idx, v, &seg))
			return UI_DRAW_NONE;
		return tl_jump_tsc(ui, v);
	}
	if (v >= ui->img->size)
		v = ui->img->size ? ui->img->size - 1 : 0;
	return nav_jump(ui, v);
}

int tl_pick(struct ui *ui, int row, int col)
{
	if (row >= 3)
		return tl_lanes_click(ui, row - 3, col);
	streams_tl_pick(ui, col);
	return tl_click(ui, col);
}

int tl_step(struct ui *ui, long d)
{
	struct tl_cache *tc = &tl_cache;
	uint64_t v;
	long c;

	if (tc->ncols <= 0)
		return UI_DRAW_NONE;
	v = tc->time ? tl_row_tsc(ui, ui->cursor) : ui->cursor;
	c = v < tc->lo ? 0 : v >= tc->hi ? tc->ncols - 1 : tl_col_of(tc, v);
	c += d;
	if (c < 0)
		c = 0;
	if (c >= tc->ncols)
		c = tc->ncols - 1;
	return tl_click(ui, (int)c) | UI_DRAW_TIMELINE;
}

static void tl_resize(struct ui *ui, struct pane *p)
{
	tl_cache.ncols = 0;	/* recompute */
}

static void tl_free(struct pane *p)
{
	tl_lanes_free();
}

const struct pane_ops tl_ops = {
	.name = "timeline",
	.table = KM_T_TIMELINE,
	.draw = tl_draw,
	.resize = tl_resize,
	.free = tl_free,
};
