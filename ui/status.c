/* status -- the header, the status line and the message line. */
#include <curses.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "trace.h"
#include "search_ui.h"
#include "ui.h"

/* Rows counted from a segment's PSB for the cursor's ordinal. */
#define STATUS_COUNT_MAX 200000

void status_fmt_ns(char *buf, size_t size, double ns)
{
	status_fmt_ns_res(buf, size, ns, 1e9);
}

void status_fmt_ns_res(char *buf, size_t size, double ns, double res)
{
	double a = fabs(ns), scale = 1e3, step;
	const char *unit = "us";
	int d = 3, dmax = 3;

	if (isnan(ns)) {
		snprintf(buf, size, "?");
		return;
	}
	if (a < 1e3) {
		snprintf(buf, size, "%.0f ns", ns);
		return;
	}
	if (a >= 1e9)
		scale = 1e9, unit = "s", dmax = 9;
	else if (a >= 1e6)
		scale = 1e6, unit = "ms", dmax = 6;
	/* Three decimals, more while a step of @res would not show in the
	 * last digit, down to a nanosecond. */
	for (step = scale / 1e3; d < dmax && step > res; d++)
		step /= 10;
	snprintf(buf, size, "%.*f %s", d, ns / scale, unit);
}

int status_time_estimated(const struct ui *ui)
{
	return tm_config_tsc_source(&ui->tmcfg) == TM_HZ_P1;
}

void status_fmt_tsc_ns(const struct ui *ui, char *buf, size_t size, double ns, int sign)
{
	uint64_t hz = tm_tsc_hz(&ui->tmcfg, 1);
	double res = hz ? 1e9 / (double)hz : 1e9;
	char v[40];

	if (isnan(ns)) {
		snprintf(buf, size, "?");
		return;
	}
	status_fmt_ns_res(v, sizeof(v), ns, res < 1 ? 1 : res);
	snprintf(buf, size, "%s%s%s", status_time_estimated(ui) ?
		 screen_glyph(ui, "≈", "~") : "", sign && ns >= 0 ? "+" : "", v);
}

const char *status_estimate_note(struct ui *ui)
{
	if (!status_time_estimated(ui) || ui->estimate_said)
		return "";
	ui->estimate_said = 1;
	return "times use the TSC frequency estimated from P1 (--nom-freq): give "
	       "--tsc-freq or --cpuid-0x15.ecx for exact times";
}

double status_tsc_ns(const struct ui *ui, uint64_t a, uint64_t b)
{
	uint64_t na, nb, hz;

	if (!tm_tsc_to_ns(&ui->tmcfg, a, &na) && !tm_tsc_to_ns(&ui->tmcfg, b, &nb))
		return (double)nb - (double)na;
	hz = tm_tsc_hz(&ui->tmcfg, 1);
	if (!hz)
		return NAN;
	return ((double)b - (double)a) * 1e9 / (double)hz;
}

/* The size as "2.0GiB". */
static void status_fmt_size(char *buf, size_t size, uint64_t v)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double d = (double)v;
	int u = 0;

	while (d >= 1024 && u < 4)
		d /= 1024, u++;
	snprintf(buf, size, u ? "%.1f%s" : "%.0f%s", d, unit[u]);
}

/* The index's state as "index 45%" or "" when done. */
static void status_fmt_index(const struct ui *ui, char *buf, size_t size, double *frac)
{
	struct idx_progress p;

	buf[0] = 0;
	*frac = -1;
	if (!ui->idx)
		return;
	idx_progress(ui->idx, &p);
	if (p.finished) {
		if (p.status && p.status != -pte_canceled)
			snprintf(buf, size, "index: %s", pte_strerror(p.status));
		else if (p.status == -pte_canceled)
			snprintf(buf, size, "index cancelled");
		return;
	}
	if (p.phase == IDX_IDLE)
		return;
	/* One bar for the whole build, whatever phase it is in. */
	*frac = p.frac;
	snprintf(buf, size, "index %2.0f%%", *frac * 100);
}

void status_draw_header(struct ui *ui)
{
	char left[512], size[32], idx[64], right[96];
	double frac;
	int lw, rw;

	status_fmt_size(size, sizeof(size), ui->img->size);
	status_fmt_index(ui, idx, sizeof(idx), &frac);
	/* A perf.data file: the stream shown ("perf.data:cpu3"), even when
	 * it is the only one. */
	if (ui->trace->perf)
		snprintf(left, sizeof(left), " ptbrowse %s:%s %s  %s", ui->name,
			 ui->trace->streams[ui->stream_no].name, size, idx);
	else
		snprintf(left, sizeof(left), " ptbrowse %s %s  %s", ui->name, size, idx);
	snprintf(right, sizeof(right), "F1 help  [%s] ", ui->keymap_name);
	attrset(screen_attr(ui, SC_HEADER) | A_BOLD);
	screen_clear(0, 0, ui->cols);
	lw = screen_put(0, 0, ui->cols, left);
	rw = (int)strlen(right);
	if (lw + rw < ui->cols)
		screen_put(0, ui->cols - rw, rw, right);
	attrset(A_NORMAL);
}

void status_draw(struct ui *ui)
{
	int y = ui->rows - 2;
	struct win_row row;
	const char *note = NULL;
	char buf[512], idx[64], t[48] = "";
	double frac;
	size_t len;
	int attr;

	if (y < 1)
		return;
	attr = screen_attr(ui, SC_STATUS);
	attrset(attr);
	screen_clear(y, 0, ui->cols);
	len = (size_t)snprintf(buf, sizeof(buf), " 0x%" PRIx64 "/0x%" PRIx64 " %.1f%%",
			       ui->cursor, ui->img->size,
			       ui->img->size ? 100.0 * (double)ui->cursor / (double)ui->img->size : 0);
	if (!nav_cursor_row(ui, &row)) {
		size_t seg;
		struct idx_summary s;
		const char *name = row.flags & WIN_F_ERROR ? "error" :
				   pkt_type_name(row.pkt.type);

		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "  %s", name);
		/* The ordinal, once phase 2 has counted this segment. */
		if (ui->idx && !(row.flags & WIN_F_PRE_PSB) &&
		    !idx_find(ui->idx, row.pkt.offset, &seg) &&
		    !idx_summary(ui->idx, seg, &s)) {
			struct win_iter it = { 0 };
			struct idx_seek sk;
			uint64_t rel = 0;
			int ok = 0;

			/* Count rows from the segment's PSB, within bounds: a
			 * huge segment without PSBs shows "#?" instead. */
			if (!idx_seek(ui->idx, seg, &sk) && !win_seek(&it, ui->wc, sk.offset)) {
				while (rel < STATUS_COUNT_MAX &&
				       win_row(&it)->pkt.offset < row.pkt.offset && !win_next(&it))
					rel++;
				ok = win_row(&it)->pkt.offset == row.pkt.offset;
			}
			win_iter_release(&it);
			if (ok)
				len += (size_t)snprintf(buf + len, sizeof(buf) - len, " #%" PRIu64,
							s.first_ordinal + rel);
			else
				len += (size_t)snprintf(buf + len, sizeof(buf) - len, " #?");
		} else {
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, " #?");
		}
		if (row.ts.flags & TM_F_TSC) {
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "  tsc 0x%" PRIx64,
						row.ts.tsc);
			if (ui->have_t0) {
				double ns = status_tsc_ns(ui, ui->t0, row.ts.tsc);
				char v[40];

				/* Without a TSC frequency: ticks, as in the pane;
				 * with an estimated one, an estimated time. */
				if (isnan(ns))
					snprintf(v, sizeof(v), "+%" PRIu64 "t", row.ts.tsc >= ui->t0 ?
						 row.ts.tsc - ui->t0 : 0);
				else
					status_fmt_ns_res(v, sizeof(v), ns,
							  ui->time_res > 0 ? ui->time_res : 1e9);
				snprintf(t, sizeof(t), "%s%s", !isnan(ns) && status_time_estimated(ui) ?
					 screen_glyph(ui, "≈", "~") : "", v);
				len += (size_t)snprintf(buf + len, sizeof(buf) - len, "  %s", t);
			}
		}
		note = pane_cycles_note(&row);
	}
	/* "/tip [3/41]", "filter: ovf" (search_ui.c). */
	if (len < sizeof(buf))
		len += search_ui_status(ui, buf + len, sizeof(buf) - len);
	/* Last: how to read the cycle pane's numbers here. */
	if (note && len < sizeof(buf))
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "  [%s]", note);
	(void)len;
	screen_put(y, 0, ui->cols, buf);
	/* The index progress bar, on the right while indexing. */
	status_fmt_index(ui, idx, sizeof(idx), &frac);
	if (frac >= 0 && ui->cols > 60) {
		int bw = 10, i, x = ui->cols - bw - (int)strlen(idx) - 4;

		screen_put(y, x, (int)strlen(idx) + 1, idx);
		x += (int)strlen(idx) + 1;
		for (i = 0; i < bw; i++)
			screen_put(y, x + i, 1, i < (int)(frac * bw + 0.5) ?
				   screen_glyph(ui, "█", "#") : screen_glyph(ui, "░", "-"));
	}
	attrset(A_NORMAL);
	/* The message line (the prompt view draws over it when open). */
	screen_clear(ui->rows - 1, 0, ui->cols);
	if (ui->msg[0]) {
		attrset(ui->msg_sev == UI_ERROR ? screen_attr(ui, SC_MSGERR) :
			ui->msg_sev == UI_WARN ? screen_attr(ui, SC_WARN) : 0);
		screen_put(ui->rows - 1, 0, ui->cols, ui->msg);
		attrset(A_NORMAL);
	} else if (km_state_pending(&ui->ks)) {
		km_state_describe_pending(&ui->ks, buf, sizeof(buf));
		screen_put(ui->rows - 1, 0, ui->cols, buf);
	}
}
