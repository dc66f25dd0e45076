/* tl_axis -- the timeline's axis row (see tl_axis.h). */
#include <curses.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "screen.h"
#include "timefmt.h"
#include "tl_axis.h"
#include "tl_cols.h"
#include "ui.h"

/* The units of each kind, smallest first, each @factor times the last. */
static const struct {
	const char *name[5];
	int n;
	double factor;
	const char *sep, *suffix;
} tl_axis_units[] = {
	[TL_AX_NS] = { { "ns", "us", "ms", "s" }, 4, 1000, " ", "" },
	[TL_AX_TSC] = { { "", "k", "M", "G" }, 4, 1000, "", " tsc" },
	[TL_AX_BYTES] = { { "B", "KiB", "MiB", "GiB", "TiB" }, 5, 1024, "", "" },
};

double tl_axis_nice(double x)
{
	double p = 1;

	if (!(x > 1))
		return 1;
	while (p * 10 < x)
		p *= 10;
	/* p <= x < 10p, or p = 1 */
	if (p >= x)
		return p;
	if (2 * p >= x)
		return 2 * p;
	if (5 * p >= x)
		return 5 * p;
	return 10 * p;
}

double tl_axis_pow2(double x)
{
	double p = 1;

	while (p < x)
		p *= 2;
	return p;
}

int tl_axis_fmt(char *buf, size_t size, enum tl_axis_kind kind, double v,
		double mag, double res, int sign)
{
	const char *const *name = tl_axis_units[kind].name;
	double f = tl_axis_units[kind].factor, unit = 1, p;
	int u = 0, d = 0, n, e, pow2 = frexp(res, &e) == 0.5;

	mag = fabs(mag);
	if (res < 1)
		res = 1;
	while (u + 1 < tl_axis_units[kind].n && unit * f <= mag)
		unit *= f, u++;
	for (;;) {
		/* the fewest decimals at which @res shows in the last one */
		for (d = 0, p = unit; d < 9 && res < p * (1 - 1e-9); d++)
			p /= 10;
		/* byte ticks step in powers of two: as many as make them
		 * exact (0.25MiB, not 0.2 and 0.5 for 0.25 and 0.5) */
		while (kind == TL_AX_BYTES && pow2 && d <= 3 &&
		       fabs(res / unit * pow(10, d) - round(res / unit * pow(10, d))) > 1e-6)
			d++;
		if (!sign || d <= (kind == TL_AX_BYTES && pow2 ? 2 : 3) || u == 0)
			break;
		unit /= f;
		u--;
	}
	n = snprintf(buf, size, "%s%.*f%s%s%s", sign && v >= 0 ? "+" : "", d, v / unit,
		     tl_axis_units[kind].sep, name[u], tl_axis_units[kind].suffix);
	return n < 0 ? 0 : (size_t)n >= size ? (int)size - 1 : n;
}

/* The tick step of @ax: the smallest round step whose
 * labels fit apart, a blank between them. */
static double tl_axis_step(const struct tl_axis *ax)
{
	double step = ax->span / ax->ncols;
	int tries;

	for (tries = 0; tries < 80; tries++) {
		double cols, last;
		char buf[40];
		int maxw;

		step = ax->kind == TL_AX_BYTES ? tl_axis_pow2(step) : tl_axis_nice(step);
		cols = step / ax->span * ax->ncols;
		/* the widest label is the last (the most digits) */
		last = (ceil(ax->span / step) - 1) * step;
		maxw = tl_axis_fmt(buf, sizeof(buf), ax->kind, last > step ? last : step,
				   ax->span, step, 1);
		if (cols >= maxw + 1)
			return step;
		step *= 1.5;	/* the next round step */
	}
	return ax->span;
}

int tl_axis_labels(const struct tl_axis *ax, int w, struct tl_axis_label *l,
		   int max)
{
	double step, res;
	int n = 1, k, end;

	if (!(ax->span > 0) || ax->ncols <= 0 || max <= 0)
		return 0;
	/* the start: as closely as a column tells apart */
	l[0].col = 0;
	res = ax->kind == TL_AX_BYTES ? 1 : ax->span / ax->ncols;
	if (ax->kind == TL_AX_BYTES)
		snprintf(l[0].text, sizeof(l[0].text), "0x%" PRIx64,
			 (uint64_t)(ax->start > 0 ? ax->start : 0));
	else
		tl_axis_fmt(l[0].text, sizeof(l[0].text), ax->kind, ax->start,
			    ax->start, res, 0);
	end = (int)strlen(l[0].text);
	step = tl_axis_step(ax);
	for (k = 1; n < max && k * step < ax->span; k++) {
		int col = (int)(k * step / ax->span * ax->ncols), len;

		len = tl_axis_fmt(l[n].text, sizeof(l[n].text), ax->kind, k * step,
				  ax->span, step, 1);
		if (col < end + 1)
			continue;	/* over the start's label */
		if (col + len > w)
			break;
		l[n].col = col;
		end = col + len;
		n++;
	}
	return n;
}

void tl_axis_span(const struct tl_axis *ax, const char *approx, char *buf,
		  size_t size)
{
	char s[40], whole[40];

	tl_axis_fmt(s, sizeof(s), ax->kind, ax->span, ax->span,
		    tl_axis_nice(ax->span / 1000), 0);
	tl_axis_fmt(whole, sizeof(whole), ax->kind, ax->whole, ax->whole,
		    tl_axis_nice(ax->whole / 1000), 0);
	if (ax->span < ax->whole)
		snprintf(buf, size, "span %s%s of %s", approx, s, whole);
	else
		snprintf(buf, size, "span %s%s", approx, s);
}

/* The columns @s takes on the screen (UTF-8: continuation bytes take
 * none). */
static int tl_axis_width(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* @ax for the columns @tc: ns where the TSC frequency is known, from the
 * trace's first time (the packet pane's); else ticks, or bytes. */
static void tl_axis_of(struct ui *ui, const struct tl_cache *tc, struct tl_axis *ax)
{
	uint64_t a, b, t0;

	ax->ncols = tc->ncols;
	ax->kind = TL_AX_BYTES;
	ax->start = (double)tc->lo;
	ax->span = (double)(tc->hi - tc->lo);
	ax->whole = (double)ui->img->size;
	if (!tc->time || !tl_cols_time_range(ui, &a, &b))
		return;
	t0 = ui->have_t0 ? ui->t0 : a;
	ax->span = timefmt_tsc_diff(ui, tc->lo, tc->hi);
	if (isnan(ax->span)) {
		ax->kind = TL_AX_TSC;
		ax->start = tc->lo >= t0 ? (double)(tc->lo - t0) : -(double)(t0 - tc->lo);
		ax->span = (double)(tc->hi - tc->lo);
		ax->whole = (double)(b - a);
		return;
	}
	ax->kind = TL_AX_NS;
	ax->start = timefmt_tsc_diff(ui, t0, tc->lo);
	ax->whole = timefmt_tsc_diff(ui, a, b);
}

void tl_axis_draw(struct ui *ui, int y, int x, int w, const struct tl_cache *tc,
		  const char *legend)
{
	struct tl_axis ax;
	struct tl_axis_label l[TL_AXIS_MAX_LABELS];
	char span[96];
	int n, i, sw, lw = legend ? tl_axis_width(legend) : 0, right = w;

	tl_axis_of(ui, tc, &ax);
	tl_axis_span(&ax, ax.kind != TL_AX_BYTES && timefmt_estimated(ui) ?
		     screen_glyph(ui, "≈", "~") : "", span, sizeof(span));
	sw = tl_axis_width(span);
	attrset(screen_attr(ui, SC_DIM));
	/* the span first, then the legend, while 12 columns stay for labels */
	if (w - sw - 2 >= 12) {
		right = w - sw;
		screen_put(y, x + right, sw, span);
		right -= 2;
		if (lw && right - lw - 2 >= 12) {
			right -= lw;
			screen_put(y, x + right, lw, legend);
			right -= 2;
		}
	}
	n = tl_axis_labels(&ax, right, l, TL_AXIS_MAX_LABELS);
	for (i = 0; i < n; i++)
		screen_put(y, x + l[i].col, right - l[i].col, l[i].text);
	attrset(A_NORMAL);
}
