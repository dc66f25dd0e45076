/*
 * stalls -- the longest gaps between timing packets of the whole trace
 * (:stalls [N]), from the index's per-segment summaries.
 *
 * The time pass keeps each segment's largest gap between two timing
 * packets (TSC, or MTC where the configuration places MTCs); the list is
 * the N segments with the largest, each with the packet that ends its gap
 * (a "gap >= G" filter from the segment's PSB, which decodes a segment or
 * two) and a jump there.  The list is a view (view.h).
 */
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "msg.h"
#include "nav.h"
#include "screen.h"
#include "search.h"
#include "stalls.h"
#include "status.h"
#include "timefmt.h"
#include "tm.h"
#include "ui.h"

#define ST_DEFAULT	20
#define ST_MAX		1000

struct st_row {
	size_t seg;		/* the segment */
	uint64_t gap;		/* its largest gap, TSC ticks */
	uint64_t at;		/* the packet ending it (the PSB if not found) */
	int found;		/* at is that packet */
};

static struct {
	struct st_row *rows;
	size_t n;
	long sel, top;
	size_t partial;		/* segments the time pass has not reached */
} st;

static const struct view_ops stalls_view;

static int st_cmp(const void *a, const void *b)
{
	const struct st_row *x = a, *y = b;

	if (x->gap != y->gap)
		return x->gap < y->gap ? 1 : -1;
	return x->seg < y->seg ? -1 : x->seg > y->seg;
}

/* The packet that ends segment @r's largest gap: the first "gap >= G"
 * from its PSB. */
static void st_place(struct ui *ui, struct st_row *r)
{
	struct srch_pred *p = NULL;
	struct idx_seek sk;
	struct pkt hit;
	uint64_t resume;
	char q[64], err[128];

	if (idx_seek(ui->idx, r->seg, &sk))
		return;
	r->at = sk.offset;
	snprintf(q, sizeof(q), "gap >= %" PRIu64 "tsc", r->gap);
	if (srch_parse(q, &p, err, sizeof(err)))
		return;
	srch_pred_set_config(p, &ui->tmcfg);
	if (!srch_filter_next(p, ui->img, ui->idx, sk.offset, 0, &hit, &resume)) {
		r->at = hit.offset;
		r->found = 1;
	}
	srch_pred_free(p);
}

/* Gather the @want segments with the largest gaps. */
static int st_gather(struct ui *ui, size_t want)
{
	size_t ns = idx_nsummaries(ui->idx), i, k;
	struct st_row *v;
	size_t nv = 0;

	free(st.rows);
	st.rows = NULL;
	st.n = 0;
	st.partial = 0;
	/* A bounded selection: keep the best @want, sorted, in place. */
	v = calloc(want + 1, sizeof(*v));
	if (!v)
		return -1;
	for (i = 0; i < ns; i++) {
		struct idx_summary s;

		if (idx_summary(ui->idx, i, &s))
			continue;
		if (!s.have_time) {
			st.partial++;
			continue;
		}
		if (!s.has_gap || (nv == want && s.max_gap <= v[want - 1].gap))
			continue;
		/* insert */
		k = nv < want ? nv++ : want - 1;
		while (k > 0 && v[k - 1].gap < s.max_gap) {
			v[k] = v[k - 1];
			k--;
		}
		memset(&v[k], 0, sizeof(v[k]));
		v[k].seg = i;
		v[k].gap = s.max_gap;
	}
	qsort(v, nv, sizeof(*v), st_cmp);
	for (i = 0; i < nv; i++)
		st_place(ui, &v[i]);
	st.rows = v;
	st.n = nv;
	return 0;
}

/* Write @ticks as ticks and, with a TSC frequency, as time. */
static void st_fmt_gap(const struct ui *ui, uint64_t ticks, char *buf, size_t size)
{
	uint64_t hz = tm_tsc_hz(&ui->tmcfg, 1);
	char t[32];

	if (!hz) {
		snprintf(buf, size, "%" PRIu64 " ticks", ticks);
		return;
	}
	timefmt_ns(t, sizeof(t), (double)ticks * 1e9 / (double)hz);
	snprintf(buf, size, "%s%s (%" PRIu64 " ticks)",
		 tm_tsc_hz(&ui->tmcfg, 0) ? "" : "\xe2\x89\x88", t, ticks);
}

/* :stalls [N] */
static int stalls_cmd(struct ui *ui, const struct cmd_args *a)
{
	long want = ST_DEFAULT;
	char *end;

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
	if (st_gather(ui, (size_t)want) < 0) {
		msg_report(ui, UI_ERROR, "stalls: out of memory");
		return UI_DRAW_STATUS;
	}
	if (!st.n) {
		msg_report(ui, UI_WARN, "stalls: %s", st.partial ?
			   "the index's time pass has not got far enough yet" :
			   "no gaps between timing packets (no TSC or placed MTC)");
		return UI_DRAW_STATUS;
	}
	st.sel = 0;
	st.top = 0;
	view_push(&ui->vs, &stalls_view, NULL);
	return UI_DRAW_ALL;
}

static int stalls_view_key(struct ui *ui, struct view *v, int key)
{
	long n = (long)st.n, h = ui->rows - 3 > 1 ? ui->rows - 3 : 1;

	ui->msg[0] = 0;
	switch (key) {
	case 'q': case 27: case 'Q': case 7:	/* C-g */
		view_close(&ui->vs, v->ops);
		return UI_DRAW_ALL;
	case 'j': case KEY_DOWN: case 14:
		if (st.sel + 1 < n)
			st.sel++;
		return UI_DRAW_ALL;
	case 'k': case KEY_UP: case 16:
		if (st.sel > 0)
			st.sel--;
		return UI_DRAW_ALL;
	case KEY_NPAGE: case ' ':
		st.sel = st.sel + h < n ? st.sel + h : n ? n - 1 : 0;
		return UI_DRAW_ALL;
	case KEY_PPAGE: case 'b':
		st.sel = st.sel > h ? st.sel - h : 0;
		return UI_DRAW_ALL;
	case 'g': case KEY_HOME:
		st.sel = 0;
		return UI_DRAW_ALL;
	case 'G': case KEY_END:
		st.sel = n ? n - 1 : 0;
		return UI_DRAW_ALL;
	case '\r': case '\n': case KEY_ENTER:
		if (!n)
			return UI_DRAW_ALL;
		view_close(&ui->vs, v->ops);
		return nav_jump(ui, st.rows[st.sel].at);
	default:
		return UI_DRAW_NONE;
	}
}

static void stalls_view_draw(struct ui *ui, struct view *v)
{
	long n = (long)st.n, i, h = ui->rows - 3 > 1 ? ui->rows - 3 : 1;
	int y;
	char buf[256], gap[64];

	erase();
	attrset(screen_attr(ui, SC_HEADER) | A_BOLD);
	screen_clear(0, 0, ui->cols);
	snprintf(buf, sizeof(buf), " stalls: the %ld longest gaps between timing packets%s"
		 "   Enter jumps  q closes", n, st.partial ? " (time pass partial)" : "");
	screen_put(0, 0, ui->cols, buf);
	attrset(A_NORMAL);
	if (st.sel < st.top)
		st.top = st.sel;
	if (st.sel >= st.top + h)
		st.top = st.sel - h + 1;
	for (y = 0, i = st.top; y < h && i < n; y++, i++) {
		const struct st_row *r = &st.rows[i];

		st_fmt_gap(ui, r->gap, gap, sizeof(gap));
		snprintf(buf, sizeof(buf), "%4ld  %-32s at 0x%08" PRIx64 "%s  psb %zu",
			 i + 1, gap, r->at, r->found ? "" : " (its PSB)", r->seg);
		attrset(i == st.sel ? A_REVERSE : A_NORMAL);
		screen_clear(1 + y, 0, ui->cols);
		screen_put(1 + y, 1, ui->cols - 1, buf);
	}
	attrset(A_NORMAL);
	status_draw(ui);
}

static const struct view_ops stalls_view = {
	.name = "stalls",
	.flags = VIEW_OPAQUE,
	.draw = stalls_view_draw,
	.key = stalls_view_key,
};

static const struct cmd_row stalls_rows[] = {
	{ ACTION_STALLS, stalls_cmd, CMD_RAW, 0, 0 },
};

CMD_TABLE(stalls_cmds, stalls_rows);
