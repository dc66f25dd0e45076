/* tl_axis -- the timeline's axis row: the view's start, ticks at round
 * steps labelled from it with the digits the step needs, and the span
 * shown of the whole ("span 1.250 ms of 27.30 s"). */
#ifndef TL_AXIS_H
#define TL_AXIS_H

#include <stddef.h>

struct ui;
struct tl_cache;

/* What an axis counts. */
enum tl_axis_kind {
	TL_AX_NS,	/* nanoseconds (a TSC frequency is known) */
	TL_AX_TSC,	/* TSC ticks (none is) */
	TL_AX_BYTES,	/* bytes of the trace */
};

/* An axis in its base unit (ns, ticks or bytes). */
struct tl_axis {
	enum tl_axis_kind kind;
	double start;	/* the view's first value: from the trace's start,
			 * or the offset on the byte axis */
	double span;	/* the view's width */
	double whole;	/* the whole axis's width */
	int ncols;	/* the view's columns */
};

/* A label of the axis row: its text starts at column @col. */
struct tl_axis_label {
	int col;
	char text[40];
};

/* The most labels tl_axis_labels() gives. */
#define TL_AXIS_MAX_LABELS 64

/* The smallest 1, 2 or 5 times a power of ten that is at least @x
 * (1 for @x <= 1). */
double tl_axis_nice(double x);

/* The smallest power of two that is at least @x (1 for @x <= 1). */
double tl_axis_pow2(double x);

/* Write @v in @kind's units into @buf: the largest unit @mag reaches
 * ("ms" for 1.25e6 ns), with the decimals that values @res apart need to
 * differ (at most nine); a tick if @sign: '+' before a non-negative @v,
 * at most three decimals (a smaller unit past that), and on the byte
 * axis for a power-of-two @res as many as make it exact.  Returns the
 * length written. */
int tl_axis_fmt(char *buf, size_t size, enum tl_axis_kind kind, double v,
		double mag, double res, int sign);

/* The labels of @ax in @w columns: the view's start at column 0 (the
 * offset in hex on the byte axis), then one per tick at multiples of a
 * 1-2-5 step (powers of two on the byte axis) from it, "+0.2 ms", as many
 * as fit with a blank between them, each distinct from the others.
 * Returns the number of labels written to @l (at most @max, 1 at least
 * if @max > 0), or 0 if @ax is empty. */
int tl_axis_labels(const struct tl_axis *ax, int w, struct tl_axis_label *l,
		   int max);

/* The span shown, "span 1.250 ms of 27.30 s" ("of" left out when the
 * view is the whole axis), @approx ("≈", "~" or "") before the span. */
void tl_axis_span(const struct tl_axis *ax, const char *approx, char *buf,
		  size_t size);

/* Draw the axis of the columns @tc in row @y from column @x, @w wide,
 * @legend (may be NULL) right of the labels, before the span. */
void tl_axis_draw(struct ui *ui, int y, int x, int w, const struct tl_cache *tc,
		  const char *legend);

#endif /* TL_AXIS_H */
