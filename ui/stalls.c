/*
 * stalls -- the longest gaps between timing packets and the slowest clean
 * periods of the whole trace (:stalls [N]), from the index's per-segment
 * summaries.
 *
 * The time pass keeps each segment's largest gap between two timing
 * packets (TSC, or MTC where the configuration places MTCs) and its
 * slowest clean period (MTC to MTC, or TSC to TSC: the fewest cycles per
 * tick, tm_last_period()), each with the packet that ends it; the list is
 * the N longest gaps, then the N slowest periods of the whole trace
 * (decoder/stall.h: the top N segments by their summaries, walked for all
 * their gaps and periods, so two in one segment both show; the jump into
 * damaged time (a PSB+ TSC that contradicts its neighbours',
 * idx_time_outlier(), or a TSC outside PSB+ past the next PSB+ TSC,
 * idx_time_ceiling()) is left out and counted above
 * the rows), then the N
 * segments whose sleeps (PWRE, EXSTOP .. PWRX) held the core halted
 * longest, from their summaries alone, each placed at its longest sleep's
 * PWRX (stall_halt_place(): a walk of that segment).  The walks run off
 * the UI thread (st_job_*); the view says so until the list is made.
 * A row says the code there once it is shown (sym_ui_status(): the
 * function of the instruction the packet decided, its source line), and
 * Enter jumps.  The list is a view (view.h); 't' in it marks the places
 * on the timeline's marker row (stalls_tl_marks()).
 */
#include <curses.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "code.h"
#include "imgopt.h"
#include "memimg.h"
#include "listnav.h"
#include "msg.h"
#include "nav.h"
#include "screen.h"
#include "search.h"
#include "stalls.h"
#include "status.h"
#include "stall.h"
#include "sym_ui.h"
#include "timefmt.h"
#include "tm.h"
#include "trace.h"
#include "ui.h"
#include "window.h"

#define ST_DEFAULT	20
#define ST_MAX		1000

struct st_row {
	uint8_t kind;		/* enum stall_kind */
	uint8_t ctx_done;	/* ctx was looked for */
	struct stall s;		/* the gap or period */
	char ctx[160];		/* the code there, "" if not known */
};

static struct {
	struct st_row *rows;	/* ngap gaps, nper periods, then nhalt
				 * segments' halted time */
	size_t n, ngap, nper, nhalt;
	struct listnav ln;
	size_t partial;		/* segments the time pass has not reached */
	size_t disputed;	/* gaps into damaged time left out */
	int shown;		/* the job's outcome was taken and said */
	int tl;			/* the places are marked on the timeline */
	const struct img *img;	/* the trace the rows belong to */
} st;

/*
 * The list is made off the UI thread: stall_top() walks up to 2N
 * segments, and each halted segment is walked once more for its place
 * (:stalls 1000 on 4 GiB: about 0.2 s).  The view says so meanwhile;
 * closing it stops the walk.
 */
static struct {
	pthread_t thread;
	int on;			/* a thread to join */
	int want;		/* the list asked for */
	_Atomic int done, cancel;
	int status;		/* the thread's: 0 or a negative error code */
	const struct idx *idx;
	const struct img *img;
	struct stall_list l;	/* the thread's until done */
} sj;

static const struct view_ops stalls_view;

/* The job: the list, then the halted segments' places. */
static int st_job_body(void *arg)
{
	size_t i;
	uint64_t at;
	int r;

	(void)arg;
	r = stall_top(sj.idx, sj.img, (size_t)sj.want, &sj.cancel, &sj.l);
	for (i = 0; !r && i < sj.l.nhalts; i++) {
		if (atomic_load(&sj.cancel))
			r = -pte_canceled;
		else if (!stall_halt_place(sj.idx, sj.img, sj.l.halts[i].seg, &at))
			sj.l.halts[i].at = at;
	}
	return r;
}

static void *st_job_thread(void *arg)
{
	sj.status = trace_guard(st_job_body, arg);
	atomic_store(&sj.done, 1);
	return NULL;
}

/* Stop the job and forget what it found. */
static void st_job_stop(void)
{
	if (!sj.on)
		return;
	atomic_store(&sj.cancel, 1);
	pthread_join(sj.thread, NULL);
	sj.on = 0;
	stall_list_free(&sj.l);
}

/* Start the job for @want of each on @ui's trace.
 * Returns 0 or -pte_nomem. */
static int st_job_start(struct ui *ui, int want)
{
	st_job_stop();
	memset(&sj.l, 0, sizeof(sj.l));
	sj.want = want;
	sj.idx = ui->idx;
	sj.img = ui->img;
	sj.status = 0;
	atomic_store(&sj.done, 0);
	atomic_store(&sj.cancel, 0);
	if (pthread_create(&sj.thread, NULL, st_job_thread, NULL))
		return -pte_nomem;
	sj.on = 1;
	return 0;
}

/* Take the finished job's list (the @want longest gaps, the @want
 * slowest periods: exact, two in one segment included; the @want
 * segments most halted, each at its longest sleep) as the rows.
 * Returns 0, 1 while it runs, or its negative error code. */
static int st_take(struct ui *ui)
{
	struct stall_list l;
	size_t i;
	int r;

	if (!sj.on)
		return 0;
	if (!atomic_load(&sj.done))
		return 1;
	pthread_join(sj.thread, NULL);
	sj.on = 0;
	l = sj.l;
	memset(&sj.l, 0, sizeof(sj.l));
	r = sj.status;
	if (r < 0) {
		stall_list_free(&l);
		return r;
	}
	st.img = ui->img;
	st.n = l.ngaps + l.npers + l.nhalts;
	st.rows = calloc(st.n ? st.n : 1, sizeof(*st.rows));
	if (!st.rows) {
		st.n = 0;
		stall_list_free(&l);
		return -pte_nomem;
	}
	/* periods right after the gaps, then the halted segments */
	for (i = 0; i < st.n; i++) {
		struct st_row *row = &st.rows[i];

		if (i < l.ngaps) {
			row->kind = STALL_GAP;
			row->s = l.gaps[i];
		} else if (i < l.ngaps + l.npers) {
			row->kind = STALL_PERIOD;
			row->s = l.pers[i - l.ngaps];
		} else {
			row->kind = STALL_HALT;
			row->s = l.halts[i - l.ngaps - l.npers];
		}
	}
	st.ngap = l.ngaps;
	st.nper = l.npers;
	st.nhalt = l.nhalts;
	st.partial = l.partial;
	st.disputed = l.disputed;
	stall_list_free(&l);
	return 0;
}

/* @ticks in ns as every other view converts them (perf's conversion
 * where the file has one, else the TSC frequency), or NAN; *@est: the
 * frequency is P1's estimate. */
static double st_ticks_ns(const struct ui *ui, uint64_t ticks, const char **est)
{
	*est = timefmt_estimated(ui) ? screen_glyph(ui, "\xe2\x89\x88", "~") : "";
	return timefmt_tsc_diff(ui, 0, ticks);
}

/* Write @ticks as ticks and, with a TSC frequency, as time. */
static void st_fmt_gap(const struct ui *ui, uint64_t ticks, char *buf, size_t size)
{
	const char *est;
	double ns = st_ticks_ns(ui, ticks, &est);
	char t[32];

	if (isnan(ns)) {
		snprintf(buf, size, "%" PRIu64 " ticks", ticks);
		return;
	}
	timefmt_ns(t, sizeof(t), ns);
	snprintf(buf, size, "%s%s (%" PRIu64 " ticks)", est, t, ticks);
}

/* Write period @p as its frequency (with a TSC frequency) and its cycles
 * over its ticks. */
static void st_fmt_period(const struct ui *ui, const struct tm_period *p,
			  char *buf, size_t size)
{
	uint32_t khz = tm_period_khz(&ui->tmcfg, p, 1);
	/* a tick's fraction shows as the decimals a period has */
	double ticks = (double)p->ticks + (double)p->ticks_frac / 4294967296.0;

	if (!tm_tsc_hz(&ui->tmcfg, 1))
		snprintf(buf, size, "%" PRIu32 " cycles in %.1f ticks", p->cycles, ticks);
	else
		snprintf(buf, size, "%s%.1f MHz (%" PRIu32 " cycles in %.1f ticks)",
			 tm_tsc_hz(&ui->tmcfg, 0) ? "" : screen_glyph(ui, "\xe2\x89\x88", "~"),
			 (double)khz / 1000.0, p->cycles, ticks);
}

/* Write a segment's halted time (@lo..@hi ticks in @n sleeps) as :info
 * says the trace's: in time with a TSC frequency ('≈' first if it is P1's
 * estimate) and ticks where exact, "lo .. hi" where the model only bounds
 * it. */
static void st_fmt_halt(const struct ui *ui, uint64_t lo, uint64_t hi, uint32_t n,
			char *buf, size_t size)
{
	const char *est;
	double nlo = st_ticks_ns(ui, lo, &est), nhi = st_ticks_ns(ui, hi, &est);
	char a[32], b[32];
	const char *pl = n == 1 ? "" : "s";

	if (isnan(nlo) || isnan(nhi)) {
		if (lo == hi)
			snprintf(buf, size, "%" PRIu64 " ticks in %" PRIu32 " sleep%s", lo, n, pl);
		else
			snprintf(buf, size, "%" PRIu64 " .. %" PRIu64 " ticks in %" PRIu32
				 " sleep%s", lo, hi, n, pl);
		return;
	}
	timefmt_ns(a, sizeof(a), nlo);
	timefmt_ns(b, sizeof(b), nhi);
	if (lo == hi)
		snprintf(buf, size, "%s%s in %" PRIu32 " sleep%s (%" PRIu64 " ticks)", est, a,
			 n, pl, lo);
	else
		snprintf(buf, size, "%s%s .. %s in %" PRIu32 " sleep%s", est, a, b, n, pl);
}

/* Row @r's place: a halted segment's longest sleep's PWRX (or the
 * anchor closing it), which the job looked for; its PSB if that failed. */
static uint64_t st_place(struct ui *ui, struct st_row *r)
{
	(void)ui;
	return r->s.at;
}

/* The code at row @r's place, looked for once. */
static const char *st_ctx(struct ui *ui, struct st_row *r, int room)
{
	struct win_iter it = { 0 };
	struct win_row row;

	if (r->ctx_done)
		return r->ctx;
	r->ctx_done = 1;
	st_place(ui, r);
	/* no image: nothing to name (and no window to decode) */
	if (!code_imgset(ui) || !mi_count(imgopt_mi(code_imgset(ui))))
		return r->ctx;
	memset(&row, 0, sizeof(row));
	row.pkt.offset = r->s.at;
	/* A timing packet decides no code: without a flow, the last IP
	 * before it tells the place (the flow finds its own). */
	if (code_why(ui) && !win_seek(&it, ui->wc, r->s.at)) {
		row = *win_row(&it);
		if (!(row.flags & WIN_F_HAVE_IP) && row.ip_bits == 64 && row.ip)
			row.flags |= WIN_F_HAVE_IP;
	}
	win_iter_release(&it);
	sym_ui_status(ui, &row, r->ctx, sizeof(r->ctx), room);
	return r->ctx;
}

/* :stalls [N] */
static int stalls_cmd(struct ui *ui, const struct cmd_args *a)
{
	long want = ST_DEFAULT;
	char *end;
	int r;

	if (a->raw[0]) {
		want = strtol(a->raw, &end, 10);
		if (*end || want < 1 || want > ST_MAX) {
			msg_report(ui, UI_ERROR, "stalls: N is 1..%d, not '%s'", ST_MAX,
				   a->raw);
			return UI_DRAW_STATUS;
		}
	}
	if (!ui->idx) {
		msg_report(ui, UI_ERROR, "stalls: no index");
		return UI_DRAW_STATUS;
	}
	free(st.rows);
	memset(&st, 0, sizeof(st));
	r = st_job_start(ui, (int)want);
	if (r < 0) {
		msg_report(ui, UI_ERROR, "stalls: %s", pte_strerror(r));
		return UI_DRAW_STATUS;
	}
	view_push(&ui->vs, &stalls_view, NULL);
	return UI_DRAW_ALL;
}

/* The job's list into the view once it is done: an empty list or an
 * error closes the view with a message.  Returns 1 while it runs. */
static int st_settle(struct ui *ui)
{
	int r = st_take(ui);

	if (r > 0)
		return 1;
	if (r < 0 && r != -pte_canceled)
		msg_report(ui, UI_ERROR, "stalls: %s", pte_strerror(r));
	else if (!r && !st.n && !st.shown)
		msg_report(ui, UI_WARN, "stalls: %s", st.partial ?
			   "the index's time pass has not got far enough yet" :
			   "no gaps between timing packets (no TSC or placed MTC)");
	if (!st.n && view_top(&ui->vs) && view_top(&ui->vs)->ops == &stalls_view)
		view_close(&ui->vs, &stalls_view);
	st.shown = 1;
	return 0;
}

int stalls_busy(const struct ui *ui)
{
	(void)ui;
	return sj.on && !atomic_load(&sj.done);
}

void stalls_wait(struct ui *ui)
{
	if (!sj.on)
		return;
	while (!atomic_load(&sj.done))
		usleep(1000);
	st_settle(ui);
}

void stalls_stop(struct ui *ui)
{
	st_job_stop();
	view_close(&ui->vs, &stalls_view);
	free(st.rows);
	memset(&st, 0, sizeof(st));
}

/* Closing the view stops a walk still running. */
static void stalls_view_close(struct ui *ui, struct view *v)
{
	(void)ui;
	(void)v;
	if (stalls_busy(ui))
		st_job_stop();
}

static int stalls_view_key(struct ui *ui, struct view *v, int key)
{
	long h = ui->rows - 3 > 1 ? ui->rows - 3 : 1;

	ui->msg[0] = 0;
	if (listnav_key(&st.ln, key, (long)st.n, h))
		return UI_DRAW_ALL;
	switch (key) {
	case 'q': case 27: case 'Q': case 7:	/* C-g */
		view_close(&ui->vs, v->ops);
		return UI_DRAW_ALL;
	case 3:	/* C-c: stop the walk as q does (nothing is left to show);
		 * over the list made, what runs under it stops, as in help */
		if (!stalls_busy(ui))
			return cmd_line(ui, "interrupt", 0);
		view_close(&ui->vs, v->ops);
		msg_report(ui, UI_INFO, "stalls: stopped");
		return UI_DRAW_ALL;
	case 't':
		st.tl = !st.tl;
		msg_report(ui, UI_INFO, st.tl ? "stalls: marked on the timeline ('s')" :
			   "stalls: not marked on the timeline");
		return UI_DRAW_ALL;
	case '\r': case '\n': case KEY_ENTER:
		if (!st.n)
			return UI_DRAW_ALL;
		view_close(&ui->vs, v->ops);
		return nav_jump(ui, st_place(ui, &st.rows[st.ln.sel]));
	default:
		return UI_DRAW_NONE;
	}
}

/* What a row shows: the widths of its columns over the rows in sight,
 * and the columns that fit (st_layout()). */
struct st_lay {
	int whatw;		/* the what column's width */
	int psbw;		/* psb N's */
	int paren, at, psb;	/* what's "(N ticks)", at 0x.., psb N shown */
};

/* Row @i's what into @what, @val its part before " (": a narrow screen
 * shows only that (the ticks, the cycles in parentheses go first). */
static void st_what(struct ui *ui, long i, char *what, size_t size, char *val, size_t vsize)
{
	struct st_row *r = &st.rows[i];
	const char *p;

	if (r->kind == STALL_GAP)
		st_fmt_gap(ui, r->s.gap, what, size);
	else if (r->kind == STALL_PERIOD)
		st_fmt_period(ui, &r->s.per, what, size);
	else
		st_fmt_halt(ui, r->s.halt_lo, r->s.halt_hi, r->s.nhalt, what, size);
	p = strstr(what, " (");
	snprintf(val, vsize, "%.*s", p ? (int)(p - what) : (int)strlen(what), what);
}

/* The columns of rows [@top, @top + @h) that fit the screen: all, else
 * without psb N, without what's parentheses, without at 0x.. (the rank,
 * kind and what's value stay; Enter still jumps). */
static void st_layout(struct ui *ui, long top, long h, struct st_lay *lay)
{
	int fw = 0, vw = 0, pw = 0, room = ui->cols - 2;	/* (an ellipsis's column) */
	/* "%4ld  kind " is 11 columns, "  at 0x%08x" 14 */
	const int base = 11, atw = 14;
	long i;

	for (i = top; i < top + h && i < (long)st.n; i++) {
		char what[96], val[96], psb[32];
		int k;

		st_what(ui, i, what, sizeof(what), val, sizeof(val));
		k = screen_cols(what);
		fw = k > fw ? k : fw;
		k = screen_cols(val);
		vw = k > vw ? k : vw;
		k = snprintf(psb, sizeof(psb), "psb %zu", st.rows[i].s.seg);
		pw = k > pw ? k : pw;
	}
	lay->psbw = pw;
	lay->paren = lay->at = lay->psb = 1;
	lay->whatw = fw;
	/* 44 columns where they fit, as wide as before: the place stays in
	 * its column with a '≈' or without */
	if (base + 44 + atw + 2 + pw <= room && fw < 44)
		lay->whatw = 44;
	if (base + fw + atw + 2 + pw <= room)
		return;
	lay->psb = 0;
	if (base + fw + atw <= room)
		return;
	lay->paren = 0;
	lay->whatw = vw;
	if (base + vw + atw <= room)
		return;
	lay->at = 0;
}

/* Row @i of the list into @buf, the columns of @lay: its rank, what,
 * place and segment (a halted segment's place is its longest sleep's
 * PWRX), then the code there in the columns left.  A row still too wide
 * ends in an ellipsis where its next field would be. */
static void st_line(struct ui *ui, long i, const struct st_lay *lay, char *buf,
		    size_t size)
{
	static const char *const kind[] = { "gap ", "slow", "halt" };
	struct st_row *r = &st.rows[i];
	char what[96], val[96], f[48];
	const char *ell = screen_glyph(ui, "…", ">");
	long rank = r->kind == STALL_GAP ? i + 1 : r->kind == STALL_PERIOD ?
		    i + 1 - (long)st.ngap : i + 1 - (long)(st.ngap + st.nper);
	int left = ui->cols - 1 - screen_cols(ell);
	size_t at = 0;

	buf[0] = 0;
	st_what(ui, i, what, sizeof(what), val, sizeof(val));
	snprintf(f, sizeof(f), "%4ld", rank);
	if (screen_add_field(buf, size, &at, &left, "", f, 0) ||
	    screen_add_field(buf, size, &at, &left, "  ", kind[r->kind], 0) ||
	    screen_add_field(buf, size, &at, &left, " ", lay->paren ? what : val, lay->whatw))
		goto cut;
	snprintf(f, sizeof(f), "at 0x%08" PRIx64, st_place(ui, r));
	if (lay->at && screen_add_field(buf, size, &at, &left, "  ", f, 0))
		goto cut;
	snprintf(f, sizeof(f), "psb %zu", r->s.seg);
	if (lay->psb && screen_add_field(buf, size, &at, &left, "  ", f, lay->psbw))
		goto cut;
	/* the code there: text, cut with an ellipsis where it is long */
	left += screen_cols(ell);
	if (lay->psb && left > 12) {
		char ctx[sizeof(r->ctx)];

		snprintf(ctx, sizeof(ctx), "%s", st_ctx(ui, r, left - 2));
		if (screen_cols(ctx) > left - 2)
			screen_head_cut(ctx, sizeof(ctx), left - 2, ell);
		screen_add_field(buf, size, &at, &left, "  ", ctx, 0);
	}
	return;
cut:
	if (at < size)
		snprintf(buf + at, size - at, "%s", ell);
}

static void stalls_view_draw(struct ui *ui, struct view *v)
{
	long n, i, h = ui->rows - 3 > 1 ? ui->rows - 3 : 1;
	int y, len, top = 1;
	char buf[512], halts[48];
	struct st_lay lay;

	(void)v;
	if (st_settle(ui) || !st.n) {
		/* still walking (or closed just now: nothing to show) */
		erase();
		attrset(screen_attr(ui, SC_HEADER) | A_BOLD);
		screen_clear(0, 0, ui->cols);
		snprintf(buf, sizeof(buf), " stalls: finding the %d longest gaps, slowest "
			 "periods and most halted segments ...   q, C-c stop", sj.want);
		screen_put(0, 0, ui->cols, buf);
		attrset(A_NORMAL);
		status_draw(ui);
		return;
	}
	erase();
	attrset(screen_attr(ui, SC_HEADER) | A_BOLD);
	screen_clear(0, 0, ui->cols);
	if (st.nhalt)
		snprintf(halts, sizeof(halts), ", the %zu segments most halted", st.nhalt);
	else
		snprintf(halts, sizeof(halts), ", no sleeps");
	/* the keys stay in sight: a narrow screen drops the gaps' gloss */
	len = snprintf(buf, sizeof(buf), " stalls: the %zu longest gaps%s, the %zu slowest "
		       "periods%s%s   Enter jumps  t timeline%s  q closes", st.ngap,
		       " between timing packets", st.nper, halts,
		       st.partial ? " (time pass partial)" : "", st.tl ? " (on)" : "");
	if (len > ui->cols)
		snprintf(buf, sizeof(buf), " stalls: the %zu longest gaps, the %zu slowest "
			 "periods%s%s   Enter jumps  t timeline%s  q closes", st.ngap, st.nper,
			 halts, st.partial ? " (time pass partial)" : "", st.tl ? " (on)" : "");
	screen_put(0, 0, ui->cols, buf);
	attrset(A_NORMAL);
	/* a jump into a TSC that contradicts the PSB+ TSCs around it is
	 * no stall: the list leaves it out and says so, above the rows */
	if (st.disputed && h > 1) {
		snprintf(buf, sizeof(buf), "%zu gap%s left out: the jump into a TSC that "
			 "contradicts the PSB+ TSCs around it (damaged time), no stall",
			 st.disputed, st.disputed == 1 ? "" : "s");
		screen_clear(1, 0, ui->cols);
		screen_put(1, 1, ui->cols - 1, buf);
		top = 2;
		h--;
	}
	n = (long)st.n;		/* (st_settle() may have just made the rows) */
	listnav_fit(&st.ln, n, h);
	st_layout(ui, st.ln.top, h, &lay);
	for (y = 0, i = st.ln.top; y < h && i < n; y++, i++) {
		st_line(ui, i, &lay, buf, sizeof(buf));
		attrset(i == st.ln.sel ? A_REVERSE : A_NORMAL);
		screen_clear(top + y, 0, ui->cols);
		screen_put(top + y, 1, ui->cols - 1, buf);
	}
	attrset(A_NORMAL);
	status_draw(ui);
}

size_t stalls_tl_marks(struct ui *ui, uint64_t lo, uint64_t hi, size_t max,
		       int (*fn)(struct ui *ui, uint64_t off, int kind, void *arg),
		       void *arg)
{
	size_t i, k = 0;

	if (!st.tl || st.img != ui->img || !fn)
		return 0;
	for (i = 0; i < st.n && k < max; i++) {
		struct st_row *r = &st.rows[i];

		if (st_place(ui, r) < lo || r->s.at >= hi)
			continue;
		fn(ui, r->s.at, r->kind == STALL_GAP ? STALLS_TL_GAP : r->kind == STALL_PERIOD ?
		   STALLS_TL_PERIOD : STALLS_TL_HALT, arg);
		k++;
	}
	return k;
}

static const struct view_ops stalls_view = {
	.name = "stalls",
	.flags = VIEW_OPAQUE,
	.draw = stalls_view_draw,
	.key = stalls_view_key,
	.close = stalls_view_close,
};

static const struct cmd_row stalls_rows[] = {
	{ ACTION_STALLS, stalls_cmd, CMD_RAW, 0, 0 },
};

CMD_TABLE(stalls_cmds, stalls_rows);
