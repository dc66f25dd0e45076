/* timefmt -- times as the panes, the status line and the lists show them:
 * enough digits, ticks without a TSC frequency, '≈' on P1's estimate. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "goto_idx.h"
#include "index.h"
#include "screen.h"
#include "timefmt.h"
#include "ui.h"

void timefmt_ns(char *buf, size_t size, double ns)
{
	timefmt_ns_res(buf, size, ns, 1e9);
}

void timefmt_ns_res(char *buf, size_t size, double ns, double res)
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

int timefmt_disputed(const struct ui *ui, uint64_t off, uint64_t tsc)
{
	uint64_t ceil;
	size_t seg;

	if (!ui->idx || idx_find(ui->idx, off, &seg))
		return 0;
	if (idx_time_outlier(ui->idx, seg))
		return 1;
	return idx_time_damage_ceiling(ui->idx, seg, &ceil) && tsc > ceil ? 2 : 0;
}

int timefmt_row_measured(const struct win_row *row)
{
	if (row->ts.flags & (TM_F_CLAMPED | TM_F_MTC_LOST | TM_F_REL |
			     TM_F_LOST | TM_F_UNTIED | TM_F_RESYNC))
		return 0;
	return row->pkt.type == PKT_TSC || row->pkt.type == PKT_MTC;
}

const char *timefmt_row_mark(const struct ui *ui, const struct win_row *row)
{
	if (timefmt_disputed(ui, row->pkt.offset, row->ts.tsc))
		return "?";
	return timefmt_row_measured(row) ? "" : "~";
}

uint64_t timefmt_off_tsc(struct ui *ui, uint64_t off, const char **mark)
{
	struct win_iter it = { 0 };
	uint64_t tsc = 0;

	*mark = "";
	/* A row of a PSB+ before its TSC (the trace's first rows: a mark
	 * or region at 0x0) has no time of its own yet: the PSB+'s TSC is
	 * its time, as a goto's (goto_idx_row_tsc()).  The mark is that
	 * TSC row's: a TSC packet's value is measured. */
	if (!win_seek(&it, ui->wc, off) && !goto_idx_row_tsc(&it, &tsc))
		*mark = timefmt_row_mark(ui, win_row(&it));
	win_iter_release(&it);
	return tsc;
}

int timefmt_estimated(const struct ui *ui)
{
	return tm_config_tsc_source(&ui->tmcfg) == TM_HZ_P1;
}

void timefmt_tsc(const struct ui *ui, char *buf, size_t size, double ns, int sign)
{
	uint64_t hz = tm_tsc_hz(&ui->tmcfg, 1);
	double res = hz ? 1e9 / (double)hz : 1e9;
	char v[40];

	if (isnan(ns)) {
		snprintf(buf, size, "?");
		return;
	}
	timefmt_ns_res(v, sizeof(v), ns, res < 1 ? 1 : res);
	snprintf(buf, size, "%s%s%s", timefmt_estimated(ui) ?
		 screen_glyph(ui, "≈", "~") : "", sign && ns >= 0 ? "+" : "", v);
}

const char *timefmt_estimate_note(struct ui *ui)
{
	if (!timefmt_estimated(ui) || ui->estimate_said)
		return "";
	ui->estimate_said = 1;
	return "times use the TSC frequency estimated from P1 (--nom-freq): give "
	       "--tsc-freq or --cpuid-0x15.ecx for exact times";
}

double timefmt_tsc_diff(const struct ui *ui, uint64_t a, uint64_t b)
{
	uint64_t na, nb, hz;

	/* The difference in integers first: perf's time_zero may lie near
	 * 2^64, where a double's step is 2048 ns (and the sum may wrap). */
	if (!tm_tsc_to_ns(&ui->tmcfg, a, &na) && !tm_tsc_to_ns(&ui->tmcfg, b, &nb))
		return (double)(int64_t)(nb - na);
	hz = tm_tsc_hz(&ui->tmcfg, 1);
	if (!hz)
		return NAN;
	return ((double)b - (double)a) * 1e9 / (double)hz;
}

