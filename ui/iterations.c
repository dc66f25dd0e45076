/*
 * iterations -- :iterations EXPR: the hits of a search taken as loop
 * iteration boundaries (decoder/iter.h walks the trace in the background),
 * shown as a view: p50/p90/p99/max, a histogram of durations (cycles where
 * every iteration is cycle-exact, else time), and the iterations slowest
 * first, each jumpable and savable as a region.  While the walk runs the
 * view shows the part walked so far (iter_partial(): units spread over
 * the trace), marked partial and refreshed, until the result.
 *
 * PTBROWSE_ITER_PACE_MS (tests only: t_ui_iterations) makes each worker
 * of the walk wait that long after each unit (iter_opts.pace_ms), so a
 * small trace's walk is seen partial.
 */
#include <curses.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "code.h"
#include "ctxterm.h"
#include "iter.h"
#include "iterations.h"
#include "listnav.h"
#include "marks.h"
#include "marks_ui.h"
#include "msg.h"
#include "nav.h"
#include "screen.h"
#include "search_code.h"
#include "search_sb.h"
#include "status.h"
#include "timefmt.h"
#include "trace.h"
#include "ui.h"

#define IT_HIST_MAX	10	/* histogram rows at most */

/* A picture of the walk made in a thread of its own: iter_partial()
 * of a million iterations takes tens of milliseconds, more with the walk
 * on every core. */
struct it_pic {
	struct iter_job *job;
	pthread_t thread;
	struct iter_snap snap;
	int r;			/* 0, or a negative error code */
	double t0, cost;	/* when it was asked for, seconds it took */
	atomic_int made;	/* snap, r and cost hold */
};

static struct {
	struct search_sb *sb;	/* code or sideband terms: the search that
				 * finds the boundaries, before the walk */
	struct iter_job *job;
	char expr[128];
	struct iter_snap snap;	/* the picture shown: the result once
				 * snap.final */
	int ready;		/* the result's picture and order are made */
	struct it_pic *pic;	/* a picture being made, or NULL */
	int have;		/* a picture (partial or not) is made */
	int keep;		/* the view closes for a jump: the walk goes
				 * on */
	double snap_at;		/* when it was taken (monotonic seconds) */
	double snap_cost;	/* seconds it took to make */
	size_t hist[IT_HIST_MAX];	/* the histogram of hist_rows rows */
	int hist_rows;
	int failed;		/* the walk failed: status */
	struct listnav ln;
	long list_h;		/* the list's rows drawn last: the keys page
				 * by them */
} it;

static const struct view_ops iterations_view;

static void it_pic_abandon(void);

static void it_reset(void)
{
	/* the walk stops while a picture being made (up to a fifth of a
	 * second) ends */
	iter_cancel(it.job);
	it_pic_abandon();
	search_sb_free(it.sb);
	iter_free(it.job);
	iter_snap_free(&it.snap);
	memset(&it, 0, sizeof(it));
}

void iterations_stop(struct ui *ui)
{
	if (it.job || it.sb || it.ready)
		view_close(&ui->vs, &iterations_view);
	it_reset();
}

/* PTBROWSE_ITER_PACE_MS (tests): iter_opts.pace_ms. */
static unsigned it_pace(void)
{
	const char *e = getenv("PTBROWSE_ITER_PACE_MS");

	return e ? (unsigned)strtoul(e, NULL, 10) : 0;
}

/* The search for code or sideband terms done: its hits are the
 * boundaries of a walk (iter_opts.offsets).  Returns 1 while it runs. */
static int it_searched(struct ui *ui)
{
	struct iter_opts o = { .guard = trace_guard };
	uint64_t done, total, *offs = NULL, h, at = 0;
	size_t nhits, n = 0;
	int fin, st, r;

	if (!it.sb)
		return 0;
	search_sb_progress(it.sb, &done, &total, &nhits, &fin, &st);
	if (!fin)
		return 1;
	if (st < 0) {
		it.failed = st;
		goto out;
	}
	offs = malloc((nhits ? nhits : 1) * sizeof(*offs));
	if (!offs) {
		it.failed = -pte_nomem;
		goto out;
	}
	while (n < nhits && !search_sb_row(it.sb, at, 1, &h)) {
		offs[n++] = h;
		at = h + 1;
	}
	o.offsets = offs;
	o.noffsets = n;
	o.pace_ms = it_pace();
	r = iter_start(&it.job, ui->img, ui->idx, NULL, &ui->tmcfg, &o);
	if (r < 0) {
		it.job = NULL;
		it.failed = r;
	}
out:
	free(offs);
	search_sb_free(it.sb);
	it.sb = NULL;
	return 0;
}

static void it_wait_pic(struct ui *ui, int (*done)(void));
static int it_have_ready(void);
static int it_have_part(void);

void iterations_wait(struct ui *ui)
{
	if (it.sb) {
		search_sb_wait(it.sb);
		it_searched(ui);
	}
	if (it.job)
		iter_wait(it.job);
	it_wait_pic(ui, it_have_ready);
}

void iterations_wait_partial(struct ui *ui)
{
	if (it.sb) {
		search_sb_wait(it.sb);
		it_searched(ui);
	}
	it_wait_pic(ui, it_have_part);
}

int iterations_busy(const struct ui *ui)
{
	struct iter_progress p;

	if (it.sb)
		return 1;
	if (!it.job || it.ready || it.failed)
		return 0;
	if (view_is_open(&ui->vs, &iterations_view))
		return 1;	/* a picture to take in or to make */
	/* Closed for a jump: a picture asked for is not shown, and goes
	 * once made (not joined at the jump: that waits on the UI thread
	 * for up to a fifth of a second). */
	if (it.pic) {
		if (!atomic_load(&it.pic->made))
			return 1;
		it_pic_abandon();
	}
	iter_progress(it.job, &p);
	return !p.finished;
}

static double it_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The picture thread. */
static void *it_pic_thread(void *arg)
{
	struct it_pic *p = arg;

	p->r = iter_partial(p->job, &p->snap);
	p->cost = it_now() - p->t0;
	atomic_store(&p->made, 1);
	return NULL;
}

/* Drop the picture being made (before the job goes). */
static void it_pic_abandon(void)
{
	if (!it.pic)
		return;
	pthread_join(it.pic->thread, NULL);
	iter_snap_free(&it.pic->snap);
	free(it.pic);
	it.pic = NULL;
}

/* A finished picture taken in: shown from now on. */
static void it_pic_take(struct ui *ui, struct it_pic *p)
{
	pthread_join(p->thread, NULL);
	it.pic = NULL;
	if (p->r < 0) {
		it.failed = p->r;
		if (p->r == -pte_sigbus)
			ui->worker_sigbus = 1;	/* the file shrank */
		iter_snap_free(&p->snap);
		free(p);
		return;
	}
	iter_snap_free(&it.snap);
	it.snap = p->snap;
	it.hist_rows = 0;
	it.have = 1;
	it.ready = p->snap.final;
	it.snap_at = p->t0;
	it.snap_cost = p->cost;
	free(p);
	/* It may hold fewer than the last (front to back after max_bounds),
	 * and a script's wait takes pictures with no draw to fit the
	 * selection in between (the draw fits it to the screen). */
	listnav_fit(&it.ln, (long)it.snap.st.n, (long)it.snap.st.n + 1);
	if (it.ready) {
		/* the picture holds the result: the job's copy goes */
		iter_free(it.job);
		it.job = NULL;
	}
}

/* The picture to show: take in the one made, or ask for a new one -- the
 * result once the walk has finished; while it runs, a partial one when
 * the last is old enough: a tenth of a second, and ten times what it
 * took to make, so that pictures of millions of iterations take at most
 * a tenth of a core from the walk (one of nothing walked yet is asked
 * for again at once). */
static void it_refresh(struct ui *ui)
{
	struct iter_progress p;
	struct it_pic *pic;
	double t0;

	if (it.pic && atomic_load(&it.pic->made))
		it_pic_take(ui, it.pic);
	if (it.pic || it.ready || it.failed || !it.job)
		return;
	iter_progress(it.job, &p);
	t0 = it_now();
	if (!p.finished && it.have && it.snap.done &&
	    (t0 - it.snap_at < 0.1 || t0 - it.snap_at < 10 * it.snap_cost))
		return;
	pic = calloc(1, sizeof(*pic));
	if (!pic) {
		it.failed = -pte_nomem;
		return;
	}
	pic->job = it.job;
	pic->t0 = t0;
	if (pthread_create(&pic->thread, NULL, it_pic_thread, pic)) {
		free(pic);
		it.failed = -pte_nomem;
		return;
	}
	it.pic = pic;
}

/* Wait until @done says the view has what it waits for, making
 * pictures meanwhile (the script's waits). */
static void it_wait_pic(struct ui *ui, int (*done)(void))
{
	while (it.job && !it.failed && !done()) {
		it_refresh(ui);
		if (!done())
			usleep(1000);
	}
}

static int it_have_ready(void)
{
	return it.ready;
}

/* A picture of a part walked, or the result. */
static int it_have_part(void)
{
	return it.ready || (it.have && it.snap.done);
}

/* Write @v TSC ticks from TSC @at as time into @buf, converted as the
 * panes and region summaries do (timefmt_tsc_diff(): perf's conversion
 * where the file has one, else the TSC frequency, P1's estimate of it
 * too), ticks where nothing does.  Unmarked: as in the cycle pane, a
 * frequency estimated from P1 is said once, by the headings (it_est()),
 * not on each value, which carries one mark at most ("~" an estimate). */
static void it_fmt_time(const struct ui *ui, uint64_t at, uint64_t v, char *buf, size_t size)
{
	double ns = timefmt_tsc_diff(ui, at, at + v);

	if (isnan(ns)) {
		snprintf(buf, size, "%" PRIu64 " ticks", v);
		return;
	}
	timefmt_ns(buf, size, ns);
}

/* "≈" where times use P1's estimate of the TSC frequency (the title's
 * "in time≈", the list's "time≈" heading, as the cycle pane's), else "". */
static const char *it_est(const struct ui *ui)
{
	return timefmt_estimated(ui) ? screen_glyph(ui, "\xe2\x89\x88", "~") : "";
}

/* Write value @v (cycles, ns or ticks, as the statistics say:
 * iter_value()) into @buf, as the list writes an iteration's; in time,
 * "~" first (estimated, as the panes mark a time) if @mark. */
static void it_fmt(const struct ui *ui, uint64_t v, int mark, char *buf, size_t size)
{
	char t[32];

	if (it.snap.st.cycles) {
		snprintf(buf, size, "%" PRIu64 " cyc", v);
		return;
	}
	/* ns: each iteration's ends converted as the panes convert them
	 * (iter_item.ns), the time its row shows; ticks: converted alike
	 * from any TSC (a TSC frequency, or nothing) */
	if (it.snap.st.ns)
		timefmt_ns(t, sizeof(t), (double)v);
	else
		it_fmt_time(ui, 0, v, t, sizeof(t));
	snprintf(buf, size, "%s%s", mark ? "~" : "", t);
}

/* An iteration's cycles: exact, [lo,hi], at least lo, or unknown. */
static void it_fmt_cyc(const struct iter_item *x, char *buf, size_t size)
{
	if (!x->has_cyc)
		snprintf(buf, size, "- cyc");
	else if (x->cyc_lo == x->cyc_hi)
		snprintf(buf, size, "%" PRIu64 " cyc", x->cyc_lo);
	else if (x->cyc_hi == UINT64_MAX)
		snprintf(buf, size, ">=%" PRIu64 " cyc", x->cyc_lo);
	else
		snprintf(buf, size, "[%" PRIu64 ",%" PRIu64 "] cyc", x->cyc_lo, x->cyc_hi);
}

/* The histogram: @rows linear buckets from min to max, from row @y. */
static int it_draw_hist(struct ui *ui, int y, int rows)
{
	size_t *cnt = it.hist, top = 0, i;
	uint64_t lo = it.snap.st.min, w = (it.snap.st.max - it.snap.st.min) / (uint64_t)rows + 1;
	int k, bar = ui->cols - 40 > 10 ? ui->cols - 40 : 10;
	char a[40], b[40], line[512];

	/* Counted once per height: a redraw must not walk millions. */
	if (it.hist_rows != rows) {
		memset(it.hist, 0, sizeof(it.hist));
		for (i = 0; i < it.snap.st.n; i++) {
			uint64_t v = iter_value(&it.snap.items[it.snap.order[i]], &it.snap.st);

			k = (int)((v - lo) / w);
			cnt[k < rows ? k : rows - 1]++;
		}
		it.hist_rows = rows;
	}
	for (k = 0; k < rows; k++)
		top = cnt[k] > top ? cnt[k] : top;
	for (k = 0; k < rows; k++, y++) {
		int len = top ? (int)((cnt[k] * (size_t)bar + top - 1) / top) : 0;

		/* (edges, not measures: unmarked) */
		it_fmt(ui, lo + (uint64_t)k * w, 0, a, sizeof(a));
		it_fmt(ui, lo + (uint64_t)(k + 1) * w, 0, b, sizeof(b));
		snprintf(line, sizeof(line), " %12s-%-12s %8zu ", a, b, cnt[k]);
		screen_clear(y, 0, ui->cols);
		screen_put(y, 0, ui->cols, line);
		attrset(screen_attr(ui, SC_TIMING));
		for (int c = 0; c < len && (int)strlen(line) + c < ui->cols; c++)
			mvaddch(y, (int)strlen(line) + c, '#');
		attrset(A_NORMAL);
	}
	return y;
}

static void it_draw_list(struct ui *ui, int y)
{
	/* (the status line takes row rows - 2: status_draw()) */
	long n = (long)it.snap.st.n, h = ui->rows - 2 - y, i;
	char v[48], t[40], c[48], num[24], line[256];

	it.list_h = h < 1 ? 1 : h;
	if (h < 1)
		return;
	listnav_fit(&it.ln, n, h);
	for (i = it.ln.top; i < n && y < ui->rows - 2; i++, y++) {
		const struct iter_item *x = &it.snap.items[it.snap.order[i]];

		/* (listed in cycles: its time may be left out) */
		if (x->disputed || x->no_tsc) {
			snprintf(v, sizeof(v), "?");
		} else {
			/* the time the ranking is by (iter_item.ns, the panes'
			 * times' difference: at + ticks is its end's TSC) */
			it_fmt_time(ui, it.snap.b[x->from].tsc, x->ticks, t, sizeof(t));
			/* an estimate is marked as the panes mark one ("~",
			 * timefmt_row_mark()); an estimated frequency is the
			 * heading's (it_est()) */
			snprintf(v, sizeof(v), "%s%s", x->exact ? "" : "~", t);
		}
		it_fmt_cyc(x, c, sizeof(c));
		/* a partial picture's boundaries are not numbered yet */
		if (it.ready)
			snprintf(num, sizeof(num), "#%zu", x->from + 1);
		else
			snprintf(num, sizeof(num), "#-");
		snprintf(line, sizeof(line), "%5ld  %-14s %-22s %-8s 0x%08" PRIx64 "-0x%08" PRIx64,
			 i + 1, v, c, num,
			 it.snap.b[x->from].offset,
			 it.snap.b[x->from + 1].offset);
		attrset(i == it.ln.sel ? A_REVERSE : A_NORMAL);
		screen_clear(y, 0, ui->cols);
		screen_put(y, 1, ui->cols - 1, line);
	}
	attrset(A_NORMAL);
}

/* @n short into @buf: 1234, 12.3 k, 1.2 M. */
static void it_count(size_t n, char *buf, size_t size)
{
	if (n < 10000)
		snprintf(buf, size, "%zu", n);
	else if (n < 1000000)
		snprintf(buf, size, "%.1f k", (double)n / 1e3);
	else
		snprintf(buf, size, "%.1f M", (double)n / 1e6);
}

/* ", N left out (why)" into @buf if the picture left iterations out of
 * a measure in time: an end in damaged time (iter_stats.ndisputed) or
 * without a TSC (nnotsc); else "".  Returns @buf. */
static const char *it_disputed(char *buf, size_t size)
{
	const struct iter_stats *st = &it.snap.st;

	buf[0] = '\0';
	if (st->ndisputed && st->nnotsc)
		snprintf(buf, size, ", %zu left out (%zu damaged time, %zu no TSC)",
			 st->ndisputed + st->nnotsc, st->ndisputed, st->nnotsc);
	else if (st->ndisputed)
		snprintf(buf, size, ", %zu left out (damaged time)", st->ndisputed);
	else if (st->nnotsc)
		snprintf(buf, size, ", %zu left out (no TSC)", st->nnotsc);
	return buf;
}

/* What the durations are in into @buf: cycles; time, exact where both
 * ends are timing packets (iter_item.exact), else the time model's
 * estimate, as regions say; or no time (every iteration left out).
 * Returns @buf. */
static const char *it_unit(const struct ui *ui, int exact, char *buf, size_t size)
{
	const struct iter_stats *st = &it.snap.st;
	const char *e = it_est(ui);

	if (st->cycles)
		snprintf(buf, size, "in cycles%s", exact ? ", exact" : "");
	else if (!st->n)
		snprintf(buf, size, "no time");
	else if (st->nexact == st->n)
		snprintf(buf, size, "in time%s, exact", e);
	else if (!st->nexact)
		snprintf(buf, size, "in time%s, estimated", e);
	else
		snprintf(buf, size, "in time%s, %zu exact, the rest estimated", e, st->nexact);
	return buf;
}

/* The view's title into @buf, from the walk's progress @p. */
static void it_title(const struct ui *ui, const struct iter_progress *p, char *buf,
		     size_t size)
{
	char n[32], dis[128], unit[64];

	if (it.sb) {
		uint64_t done, total;
		size_t nh;
		int fin, st;

		search_sb_progress(it.sb, &done, &total, &nh, &fin, &st);
		snprintf(buf, size, " iterations of '%s': finding the boundaries %d%%"
			 " (%zu so far)   q cancels", it.expr,
			 total ? (int)(done * 100 / total) : 0, nh);
	} else if (it.failed) {
		snprintf(buf, size, " iterations of '%s': %s   q closes", it.expr,
			 pte_strerror(it.failed));
	} else if (!it.ready && it.have && it.snap.done) {
		double pct = it.snap.total ? (double)it.snap.done * 100 / (double)it.snap.total : 0;
		char pc[16];

		it_count(it.snap.st.n, n, sizeof(n));
		if (pct < 0.1)
			snprintf(pc, sizeof(pc), "<0.1");
		else
			snprintf(pc, sizeof(pc), "%.*f", pct < 10 ? 1 : 0, pct);
		snprintf(buf, size, " iterations of '%s': partial: %s%% of the trace, %s "
			 "iterations so far, %zu broken%s, %s   q cancels", it.expr,
			 pc, n, it.snap.st.nbroken, it_disputed(dis, sizeof(dis)),
			 it_unit(ui, 0, unit, sizeof(unit)));
	} else if (!it.ready) {
		snprintf(buf, size, " iterations of '%s': walking %d%% (%zu boundaries)"
			 "   q cancels", it.expr,
			 p->total ? (int)(p->done * 100 / p->total) : 0, p->nbounds);
	} else {
		snprintf(buf, size, " iterations of '%s': %zu measured, %zu broken%s%s, %s"
			 "  Enter jumps  r region  q", it.expr, it.snap.st.n, it.snap.st.nbroken,
			 it_disputed(dis, sizeof(dis)),
			 it.snap.truncated ? " (boundaries cut at the limit)" : "",
			 it_unit(ui, 1, unit, sizeof(unit)));
	}
}

/* p50 .. min, the histogram and the list, from row @y; a partial
 * picture's statistics marked as estimates. */
static void it_draw_body(struct ui *ui, int y)
{
	char buf[512], s[5][40];
	/* of durations some of which are estimates: estimates too */
	int est = it.snap.st.nexact < it.snap.st.n, rows;

	it_fmt(ui, it.snap.st.p50, est, s[0], sizeof(s[0]));
	it_fmt(ui, it.snap.st.p90, est, s[1], sizeof(s[1]));
	it_fmt(ui, it.snap.st.p99, est, s[2], sizeof(s[2]));
	it_fmt(ui, it.snap.st.max, est, s[3], sizeof(s[3]));
	it_fmt(ui, it.snap.st.min, est, s[4], sizeof(s[4]));
	snprintf(buf, sizeof(buf), " %s%sp50 %s  p90 %s  p99 %s  max %s  min %s%s",
		 it.ready ? "" : screen_glyph(ui, "\xe2\x89\x88", "~"), it.ready ? "" : " ",
		 s[0], s[1], s[2], s[3], s[4], it.ready ? "" : "  (so far)");
	screen_put(y++, 0, ui->cols, buf);
	rows = (ui->rows - 4) / 3;
	rows = rows > IT_HIST_MAX ? IT_HIST_MAX : rows < 1 ? 1 : rows;
	y = it_draw_hist(ui, y, rows);
	attrset(A_BOLD);
	/* (a '≈' takes 3 bytes, one column) */
	snprintf(buf, sizeof(buf), "  rank  time%-*s cycles                 iter     range",
		 *it_est(ui) == '~' || !*it_est(ui) ? 10 : 12, it_est(ui));
	screen_put(y++, 0, ui->cols, buf);
	attrset(A_NORMAL);
	it_draw_list(ui, y);
}

static void iterations_view_draw(struct ui *ui, struct view *v)
{
	struct iter_progress p;
	char buf[512];

	(void)v;
	it_searched(ui);
	it_refresh(ui);
	erase();
	attrset(screen_attr(ui, SC_HEADER) | A_BOLD);
	screen_clear(0, 0, ui->cols);
	memset(&p, 0, sizeof(p));
	if (it.job)
		iter_progress(it.job, &p);
	it_title(ui, &p, buf, sizeof(buf));
	screen_put(0, 0, ui->cols, buf);
	attrset(A_NORMAL);
	if (!it.failed && it.have && it.snap.st.n)
		it_draw_body(ui, 1);
	else if (it.ready)
		screen_put(1, 1, ui->cols - 1, it.snap.nb < 2 ? "fewer than two boundaries: no iteration" :
			   it.snap.st.nbroken == it.snap.n ? "every iteration lost data: none measured" :
			   "no time: every iteration lost data, or has an end without a TSC or in "
			   "damaged time");
	status_draw(ui);
}

/* Whether entry @name of @bm is free for region [@from, @to) with note
 * @note: not there, or that very region (r again). */
static int it_name_free(const struct marks_set *bm, const char *name, uint64_t from,
			uint64_t to, const char *note)
{
	long i = marks_find(bm, name);
	const struct marks_entry *e;

	if (i < 0)
		return 1;
	e = marks_at(bm, (size_t)i);
	return e->kind == BM_REGION && e->from == from && e->to == to && e->note &&
	       !strcmp(e->note, note);
}

/* r: the selected iteration as region iter-K, or iter-K-2, -3 ... where
 * iter-K is another range or note (the user's own, or another
 * expression's K-th): never moved over it. */
static int it_region(struct ui *ui)
{
	const struct iter_item *x;
	char name[32], msg[128];
	uint64_t from, to;
	int r, k = 1;

	if (!ui->bm) {
		msg_report(ui, UI_ERROR, "iterations: no marks file");
		return UI_DRAW_STATUS;
	}
	x = &it.snap.items[it.snap.order[it.ln.sel]];
	from = it.snap.b[x->from].offset;
	to = it.snap.b[x->from + 1].offset;
	snprintf(name, sizeof(name), "iter-%zu", x->from + 1);
	while (!it_name_free(ui->bm, name, from, to, it.expr) && k < 1000)
		snprintf(name, sizeof(name), "iter-%zu-%d", x->from + 1, ++k);
	r = marks_region_set(ui->bm, name, from, to, it.expr, NULL);
	if (k > 1)
		snprintf(msg, sizeof(msg), "region %s: iteration %zu (iter-%zu is taken)",
			 name, x->from + 1, x->from + 1);
	else
		snprintf(msg, sizeof(msg), "region %s: iteration %zu", name, x->from + 1);
	return marks_ui_result(ui, r, msg);
}

static int iterations_view_key(struct ui *ui, struct view *v, int key)
{
	/* the height drawn (above it the statistics and the histogram) */
	long h = it.list_h > 0 ? it.list_h : 1;

	ui->msg[0] = 0;
	if (it.have && listnav_key(&it.ln, key, (long)it.snap.st.n, h))
		return UI_DRAW_ALL;
	switch (key) {
	case 'q': case 27: case 'Q': case 7:	/* C-g */
		view_close(&ui->vs, v->ops);
		return UI_DRAW_ALL;
	case 'r':
		if (!it.have || it.ln.sel >= (long)it.snap.st.n)
			return UI_DRAW_NONE;
		if (!it.ready) {
			/* its name is its number, known at the end */
			msg_report(ui, UI_ERROR, "iterations: r once the walk has ended");
			return UI_DRAW_STATUS;
		}
		return it_region(ui);
	case '\r': case '\n': case KEY_ENTER: {
		uint64_t off;

		if (!it.have || it.ln.sel >= (long)it.snap.st.n)
			return UI_DRAW_ALL;
		off = it.snap.b[it.snap.items[it.snap.order[it.ln.sel]].from].offset;
		it.keep = 1;	/* a walk goes on: :iterations shows it */
		view_close(&ui->vs, v->ops);
		it.keep = 0;
		return nav_jump(ui, off);
	}
	default:
		return UI_DRAW_NONE;
	}
}

/* Closing the view stops a walk still running (not a jump from its
 * partial list); a finished list stays for the next :iterations of the
 * same text. */
static void iterations_view_close(struct ui *ui, struct view *v)
{
	(void)ui;
	(void)v;
	if (it.keep)
		return;
	if (it.sb) {
		it_reset();
		return;
	}
	if (it.job && !it.ready) {
		struct iter_progress p;

		iter_progress(it.job, &p);
		if (!p.finished)
			it_reset();
	}
}

/* :iterations with code or sideband terms (sym NAME, call NAME, ret,
 * comm, pid, tid, switch: src/ctxterm.h): their search (search_sb.h, in
 * the background) finds the boundaries, the walk times them.  Returns
 * what to draw, or 0 if @text has no such term. */
static int it_terms(struct ui *ui, const char *text)
{
	struct srch_pred *pred = NULL;
	struct search_code *code = NULL;
	struct ctxterm ct;
	char rest[256], err[256] = "";
	int r = ctxterm_split(text, &ct, rest, sizeof(rest), err, sizeof(err));

	if (r < 0) {
		msg_report(ui, UI_ERROR, "iterations: %s", err);
		return UI_DRAW_STATUS;
	}
	if (!r)
		return 0;
	if (rest[0] && srch_parse(rest, &pred, err, sizeof(err)) < 0) {
		msg_report(ui, UI_ERROR, "iterations: %s", err);
		return UI_DRAW_STATUS;
	}
	if (pred && srch_pred_set_config(pred, &ui->tmcfg) == -pte_no_calib) {
		srch_pred_free(pred);
		msg_report(ui, UI_ERROR, "iterations: a gap in time units needs the TSC "
			   "frequency (--tsc-freq, --cpu)");
		return UI_DRAW_STATUS;
	}
	if (ct.code && search_code_new(&code, code_imgset(ui), &ct, err, sizeof(err)) < 0) {
		msg_report(ui, UI_ERROR, "iterations: %s", code_imgset(ui) || !code_why(ui) ?
			   err : code_why(ui));
		srch_pred_free(pred);
		return UI_DRAW_STATUS;
	}
	it_reset();
	snprintf(it.expr, sizeof(it.expr), "%s", text);
	/* (it takes code and pred, and says why on the message line) */
	if (search_sb_start(&it.sb, ui, &ct, code, pred, 1) < 0) {
		it.sb = NULL;
		return UI_DRAW_STATUS;
	}
	view_push(&ui->vs, &iterations_view, NULL);
	return UI_DRAW_ALL;
}

/* :iterations EXPR */
static int iterations_cmd(struct ui *ui, const struct cmd_args *a)
{
	struct srch_pred *pred = NULL;
	struct iter_opts o = { .guard = trace_guard };
	char err[160];
	int r;

	if (!a->raw[0]) {
		if (it.job || it.sb || it.ready) {
			view_push(&ui->vs, &iterations_view, NULL);
			return UI_DRAW_ALL;
		}
		msg_report(ui, UI_ERROR, "iterations: give a search (a loop head: tip 0x401000)");
		return UI_DRAW_STATUS;
	}
	if ((it.job || it.ready) && !it.failed && !strcmp(a->raw, it.expr)) {
		view_push(&ui->vs, &iterations_view, NULL);
		return UI_DRAW_ALL;
	}
	if (!ui->idx || !idx_complete(ui->idx)) {
		msg_report(ui, UI_ERROR, "iterations: the index is not complete yet");
		return UI_DRAW_STATUS;
	}
	r = it_terms(ui, a->raw);
	if (r)
		return r;
	if (srch_parse(a->raw, &pred, err, sizeof(err)) < 0) {
		msg_report(ui, UI_ERROR, "iterations: %s", err);
		return UI_DRAW_STATUS;
	}
	if (srch_pred_set_config(pred, &ui->tmcfg) == -pte_no_calib) {
		srch_pred_free(pred);
		msg_report(ui, UI_ERROR, "iterations: a gap in time units needs the TSC "
			   "frequency (--tsc-freq, --cpu)");
		return UI_DRAW_STATUS;
	}
	it_reset();
	snprintf(it.expr, sizeof(it.expr), "%s", a->raw);
	o.pace_ms = it_pace();
	r = iter_start(&it.job, ui->img, ui->idx, pred, &ui->tmcfg, &o);
	if (r < 0) {
		it.job = NULL;
		msg_report(ui, UI_ERROR, "iterations: %s", r == -pte_no_time ?
			   "the index has no time pass" : pte_strerror(r));
		return UI_DRAW_STATUS;
	}
	view_push(&ui->vs, &iterations_view, NULL);
	return UI_DRAW_ALL;
}

static const struct view_ops iterations_view = {
	.name = "iterations",
	.flags = VIEW_OPAQUE,
	.draw = iterations_view_draw,
	.key = iterations_view_key,
	.close = iterations_view_close,
};

static const struct cmd_row iterations_rows[] = {
	{ ACTION_ITERATIONS, iterations_cmd, CMD_RAW, 0, 0 },
};

CMD_TABLE(iterations_cmds, iterations_rows);
