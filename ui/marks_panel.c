/* marks_panel -- the summary of a region (packets, branches, cycles, time,
 * the delta from the reference), computed in the background, drawn over
 * the panes when the cursor is in a region and under the marks list.
 * Over the panes it is a view of its own on the browser's (q and Escape
 * close it, as they close every view above the browser), so q quits only
 * from the browser. */
#include <curses.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "keymap.h"
#include "marks.h"
#include "marks_panel.h"
#include "marks_ui.h"
#include "msg.h"
#include "pane_code.h"
#include "prompt.h"
#include "screen.h"
#include "timefmt.h"
#include "trace.h"
#include "ui.h"

/* The panel's width over the packet pane. */
#define MP_PANEL_W 46

/* The summary under way or done (one browser per process). */
static struct {
	int job_on;			/* a thread was started (join it) */
	int job_valid;			/* job describes [job.from, job.to) */
	struct marks_summary_job job;
	struct marks_time bt;
	char job_name[BM_NAME_MAX];
	/* The region whose panel q or Escape closed: it stays closed while
	 * the cursor stays in that region. */
	int closed;
	uint64_t closed_from, closed_to;
	char closed_name[BM_NAME_MAX];
	int shown_computing;		/* the box last drawn said "computing" */
} mp;

void marks_panel_stop(struct ui *ui)
{
	if (mp.job_on) {
		marks_summary_cancel(&mp.job);
		marks_summary_join(&mp.job);
		mp.job_on = 0;
	}
	mp.job_valid = 0;
}

int marks_panel_busy(const struct ui *ui)
{
	return mp.job_on && !atomic_load(&mp.job.progress.finished);
}

int marks_panel_due(const struct ui *ui)
{
	if (marks_panel_busy(ui))
		return 1;
	return mp.job_on && mp.shown_computing ? 2 : 0;
}

/* Make sure the summary of region @e is computed or under way. */
void marks_panel_summarize(struct ui *ui, const struct marks_entry *e)
{
	if (mp.job_valid && mp.job.img == ui->img && mp.job.from == e->from &&
	    mp.job.to == e->to) {
		snprintf(mp.job_name, sizeof(mp.job_name), "%s", e->name);
		return;
	}
	marks_panel_stop(ui);
	memset(&mp.job, 0, sizeof(mp.job));
	marks_time_init(&mp.bt, &ui->tmcfg);
	/* an edge in damaged time is no exact one */
	mp.bt.idx = ui->idx;
	/* The time model from the index's state at the first PSB, not cold. */
	if (ui->idx && ui->idx_ops_set) {
		struct tm_carry carry;
		uint64_t psb;
		size_t k;

		if (!img_find_psb_before(ui->img, e->from + 1, &psb) &&
		    !idx_find(ui->idx, psb, &k) && !idx_seek_carry(ui->idx, k, &carry)) {
			tm_restore(&mp.bt.tm, &carry);
			mp.bt.warm = 1;
		}
	}
	mp.job.img = ui->img;
	mp.job.from = e->from;
	mp.job.to = e->to;
	mp.job.observe = marks_time_observe;
	mp.job.observe_ctx = &mp.bt;
	snprintf(mp.job_name, sizeof(mp.job_name), "%s", e->name);
	mp.job_valid = 1;
	if (marks_summary_start(&mp.job) < 0) {
		mp.job.result = -pte_nomem;
		atomic_store(&mp.job.progress.finished, 1);
		return;
	}
	mp.job_on = 1;
	/* A script reads the screen right after the key: wait for it. */
	if (ui->headless)
		while (!atomic_load(&mp.job.progress.finished))
			usleep(1000);
}

uint64_t marks_panel_tsc_at(struct ui *ui, uint64_t off, const char **mark)
{
	return timefmt_off_tsc(ui, off, mark);
}

/* The mark before the time between two rows marked @a and @b: disputed
 * if either is, else estimated if either is. */
static const char *marks_panel_mark2(const char *a, const char *b)
{
	if (*a == '?' || *b == '?')
		return "?";
	return *a ? a : b;
}

/* The summary's lines into @lines (at most @max).  Returns the count. */
static int marks_panel_lines(struct ui *ui, char lines[][128], int max)
{
	const struct marks_summary *s = &mp.job.sum;
	struct marks_progress *p = &mp.job.progress;
	char t[48], a[48];
	int n = 0, fin = atomic_load(&p->finished);

#define LINE(...) do { if (n < max) snprintf(lines[n++], 128, __VA_ARGS__); } while (0)
	LINE("region %s  0x%" PRIx64 "-0x%" PRIx64, mp.job_name, mp.job.from, mp.job.to);
	mp.shown_computing = !fin;
	if (!fin) {
		uint64_t d = atomic_load(&p->done), tot = atomic_load(&p->total);

		LINE("computing %.0f%%  (C-c stops)", tot ? 100.0 * (double)d / (double)tot : 0.0);
		return n;
	}
	if (mp.job.result == -pte_canceled)
		LINE("stopped (C-c); partial:");
	else if (mp.job.result < 0)
		LINE("failed: %s", pte_strerror(mp.job.result));
	LINE("bytes %" PRIu64 "  packets %" PRIu64, s->bytes, s->packets);
	LINE("psb %" PRIu64 "  tip %" PRIu64 "  ovf %" PRIu64 "  errors %" PRIu64,
	     s->psbs, s->tips, s->ovfs, s->errors);
	LINE("tnt bits %" PRIu64 " (taken %" PRIu64 ", not %" PRIu64 ")",
	     s->tnt_bits, s->taken, s->not_taken);
	LINE("cyc %" PRIu64 " cycles  cbr changes %" PRIu64, s->cyc_cycles, s->cbr_changes);
	/* (the span between the region's first and last TSC packets, no
	 * length of the region: the duration below is that) */
	if (s->has_tsc)
		LINE("tsc packets span %" PRIu64 " ticks", s->tsc_ticks);
	/* The time model's time between the region's edges: exact where
	 * both are timing packets, else its estimate (an uncalibrated one
	 * without the index's state at the first PSB). */
	{
		const char *est = s->time_exact ? "" : screen_glyph(ui, "≈", "~");
		const char *why = s->time_exact ? " (exact)" :
				  s->time_disputed ? " (damaged TSC)" :
				  s->time_warm ? "" : " (no index yet)";

		if (s->has_time) {
			timefmt_ns_res(t, sizeof(t), s->duration_ns, 1);
			LINE("duration %s%s%s", est, t, why);
		} else if (s->has_span && !isnan(timefmt_tsc_diff(ui, 0, s->span_ticks))) {
			timefmt_ns_res(t, sizeof(t), timefmt_tsc_diff(ui, 0, s->span_ticks), 1);
			LINE("duration %s%s%s", timefmt_estimated(ui) || !s->time_exact ?
			     screen_glyph(ui, "≈", "~") : "", t, why);
		} else if (s->has_span) {
			LINE("duration %s%" PRIu64 " TSC ticks%s (no TSC frequency)", est,
			     s->span_ticks, why);
		} else {
			LINE("duration ? (no timing)");
		}
	}
	/* Across lost data (an OVF, a gap, a decode error) the cycles run
	 * there are not counted: fewer than ran, not an estimate of them. */
	if (s->has_cycles)
		LINE("cycles %s%" PRIu64 "%s", s->cycles_exact ? "" : screen_glyph(ui, "≈", "~"),
		     s->cycles, s->cycles_exact ? " (exact)" :
		     s->ovfs || s->gaps || s->errors ? " (data lost: not all counted)" :
		     " (estimated)");
	if (s->freq_avg_mhz > 0)
		LINE("MHz avg %.0f (%s) min %.0f max %.0f", s->freq_avg_mhz,
		     s->freq_avg_wall ? "halts included" : "halts excluded",
		     s->freq_min_mhz, s->freq_max_mhz);
	LINE("sync %" PRIu64 " branch %" PRIu64 " ip %" PRIu64 " timing %" PRIu64,
	     s->by_class[PKC_SYNC], s->by_class[PKC_BRANCH], s->by_class[PKC_IP],
	     s->by_class[PKC_TIMING]);
	LINE("mode %" PRIu64 " power %" PRIu64 " error %" PRIu64 " other %" PRIu64,
	     s->by_class[PKC_MODE], s->by_class[PKC_POWER], s->by_class[PKC_ERROR],
	     s->by_class[PKC_OTHER]);
	if (s->gaps)
		LINE("gaps (lost data) %" PRIu64, s->gaps);
	/* The delta to the reference mark (the last one set). */
	if (ui->ref_name) {
		const char *ma, *mb;
		uint64_t ta = marks_panel_tsc_at(ui, ui->ref_off, &ma);
		uint64_t tb = marks_panel_tsc_at(ui, mp.job.from, &mb);
		double ns = ta && tb ? timefmt_tsc_diff(ui, ta, tb) : NAN;

		/* Every digit a tick shows: regions may lie nanoseconds
		 * apart deep in a trace. */
		timefmt_tsc(ui, t, sizeof(t), ns, 1);
		snprintf(a, sizeof(a), "%s0x%" PRIx64, mp.job.from >= ui->ref_off ? "+" : "-",
			 mp.job.from >= ui->ref_off ? mp.job.from - ui->ref_off :
			 ui->ref_off - mp.job.from);
		LINE("from %.24s: %.40s bytes, %s%.40s", ui->ref_label, a,
		     isnan(ns) ? "" : marks_panel_mark2(ma, mb), t);
	}
#undef LINE
	return n;
}

/* Draw the summary box at (@y, @x), @w wide, at most @h rows. */
void marks_panel_box(struct ui *ui, int y, int x, int w, int h)
{
	char lines[16][128];
	int n = marks_panel_lines(ui, lines, 16), i;

	if (n > h)
		n = h;
	for (i = 0; i < n; i++) {
		attrset(i == 0 ? screen_attr(ui, SC_HEADER) | (int)A_BOLD :
			screen_attr(ui, SC_STATUS));
		screen_clear(y + i, x, w);
		screen_put(y + i, x + 1, w - 1, lines[i]);
	}
	attrset(A_NORMAL);
}

/* The region whose summary is over the panes (the cursor's, not in a
 * visual selection, not closed), or -1; its box at (*@y, *@x), *@w x *@h.
 * Leaving the closed region forgets it: back in it, the panel shows. */
static long marks_panel_shown(struct ui *ui, int *y, int *x, int *w, int *h)
{
	struct pane *pk = &ui->panes[UI_PANE_PACKETS], *cy = &ui->panes[UI_PANE_CYCLES];
	long i = marks_ui_region_at(ui, ui->cursor);
	const struct marks_entry *e = i >= 0 ? marks_at(ui->bm, (size_t)i) : NULL;

	if (mp.closed && (!e || e->from != mp.closed_from || e->to != mp.closed_to ||
			  strcmp(e->name, mp.closed_name)))
		mp.closed = 0;
	if (!e || mp.closed || marks_ui_visual(ui))
		return -1;
	/* Over the cycle pane's lower part, else the packet pane's.  The
	 * code view's cycle pane is narrow: the box ends at its right edge
	 * and takes the code pane's right part, where long operands end,
	 * at most a third of it (the disassembly stays readable). */
	if (cy->h > 0 && cy->w >= 30) {
		*w = cy->w;
		*x = cy->x;
	} else if (pane_code_on(ui) && cy->h > 0 && cy->w > 0 && cy->x > pk->x) {
		*w = cy->w + pk->w / 3 < MP_PANEL_W ? cy->w + pk->w / 3 : MP_PANEL_W;
		*x = cy->x + cy->w - *w;
	} else {
		*w = pk->w < MP_PANEL_W ? pk->w : MP_PANEL_W;
		*x = pk->x + pk->w - *w;
	}
	*h = pk->h - 1 < 14 ? pk->h - 1 : 14;
	*y = pk->y + pk->h - *h;
	return *h < 2 ? -1 : i;
}

/* q and Escape close the panel, unless the browser's keys are in the
 * middle of something ("m q" sets mark q, "3 Escape" drops the count,
 * :describe-key describes q); every other key is the browser's, under
 * it.  The panel is checked again first: a key may come before the draw
 * that would have taken it away. */
static int marks_panel_key(struct ui *ui, struct view *v, int key)
{
	struct view *b = view_below(&ui->vs, v);
	int y, x, w, h;
	long i = marks_panel_shown(ui, &y, &x, &w, &h);

	if (i >= 0 && (key == 'q' || key == 27) && !km_state_pending(&ui->ks) &&
	    !ui->ks.describe) {
		const struct marks_entry *e = marks_at(ui->bm, (size_t)i);

		mp.closed = 1;
		mp.closed_from = e->from;
		mp.closed_to = e->to;
		snprintf(mp.closed_name, sizeof(mp.closed_name), "%s", e->name);
		view_close(&ui->vs, v->ops);
		msg_report(ui, UI_INFO, "region %s: summary closed (q again quits)", e->name);
		return UI_DRAW_ALL;
	}
	/* (b is under v: closing v does not move it) */
	if (i < 0)
		view_close(&ui->vs, v->ops);
	return b && b->ops->key ? b->ops->key(ui, b, key) : UI_DRAW_NONE;
}

const struct view_ops marks_panel_view = {
	.name = "region-summary",
	.key = marks_panel_key,
};

void marks_panel_draw_overlay(struct ui *ui)
{
	struct view *top = view_top(&ui->vs);
	long i;
	int y, x, w, h;

	if (marks_ui_visual(ui) && !ui->msg[0] && !prompt_is_open(ui)) {
		uint64_t from, to;

		/* The selection, while it lasts (keys clear the message). */
		marks_ui_selection(ui, &from, &to);
		msg_report(ui, UI_INFO, "-- VISUAL -- 0x%" PRIx64 "-0x%" PRIx64 " (%" PRIu64
			   " bytes)  Enter names it, Esc cancels", from, to, to - from);
	}
	i = marks_panel_shown(ui, &y, &x, &w, &h);
	if (i < 0) {
		view_close(&ui->vs, &marks_panel_view);
		return;
	}
	/* On the browser when it is on top (the browser is drawn only under
	 * views that draw no screen of their own: an opaque top is it); under
	 * the prompt, q is the prompt's until it closes. */
	if (top && (top->ops->flags & VIEW_OPAQUE) && !view_is_open(&ui->vs, &marks_panel_view))
		view_push(&ui->vs, &marks_panel_view, NULL);
	marks_panel_summarize(ui, marks_at(ui->bm, (size_t)i));
	marks_panel_box(ui, y, x, w, h);
}

int marks_panel_interrupt(struct ui *ui)
{
	if (!marks_panel_busy(ui))
		return 0;
	marks_summary_cancel(&mp.job);
	msg_report(ui, UI_WARN, "region summary stopped");
	return 1;
}

void marks_panel_cancel(struct ui *ui)
{
	if (marks_panel_busy(ui))
		marks_summary_cancel(&mp.job);
}
