/* test_tl_axis -- the timeline's axis row (ui/tl_axis.h): round steps,
 * labels with the digits their step needs, and at every zoom from a whole
 * trace down to nanoseconds, labels that are distinct, apart and inside
 * the row ("never 27.000 s three times"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "tl_axis.h"

static void test_nice(void **state)
{
	assert_true(tl_axis_nice(-3) == 1);
	assert_true(tl_axis_nice(0) == 1);
	assert_true(tl_axis_nice(1) == 1);
	assert_true(tl_axis_nice(1.5) == 2);
	assert_true(tl_axis_nice(2) == 2);
	assert_true(tl_axis_nice(3) == 5);
	assert_true(tl_axis_nice(7) == 10);
	assert_true(tl_axis_nice(10) == 10);
	assert_true(tl_axis_nice(11) == 20);
	assert_true(tl_axis_nice(4.9e8) == 5e8);
	assert_true(tl_axis_pow2(0) == 1);
	assert_true(tl_axis_pow2(1) == 1);
	assert_true(tl_axis_pow2(3) == 4);
	assert_true(tl_axis_pow2(131072) == 131072);
	assert_true(tl_axis_pow2(131073) == 262144);
}

static void test_fmt(void **state)
{
	char b[40];

	/* the span: its unit, three decimals for 1/1000 of it */
	tl_axis_fmt(b, sizeof(b), TL_AX_NS, 1.25e6, 1.25e6, 2000, 0);
	assert_string_equal(b, "1.250 ms");
	/* ticks: the span's unit, the step's digits, a sign */
	tl_axis_fmt(b, sizeof(b), TL_AX_NS, 4e5, 1.25e6, 2e5, 1);
	assert_string_equal(b, "+0.4 ms");
	tl_axis_fmt(b, sizeof(b), TL_AX_NS, 1e6, 1.25e6, 2e5, 1);
	assert_string_equal(b, "+1.0 ms");
	tl_axis_fmt(b, sizeof(b), TL_AX_NS, 5e9, 27.3e9, 5e9, 1);
	assert_string_equal(b, "+5 s");
	tl_axis_fmt(b, sizeof(b), TL_AX_NS, 20, 400, 10, 1);
	assert_string_equal(b, "+20 ns");
	/* a tick too fine for three decimals: the next unit down */
	tl_axis_fmt(b, sizeof(b), TL_AX_NS, 1e9 + 20, 1.5e9, 10, 1);
	assert_string_equal(b, "+1000000.02 us");
	/* a start: as many as it takes */
	tl_axis_fmt(b, sizeof(b), TL_AX_NS, 27.3e9 + 20, 27.3e9, 10, 0);
	assert_string_equal(b, "27.30000002 s");
	tl_axis_fmt(b, sizeof(b), TL_AX_NS, -1.5e6, 1.5e6, 1e5, 0);
	assert_string_equal(b, "-1.5 ms");
	/* ticks without a frequency */
	tl_axis_fmt(b, sizeof(b), TL_AX_TSC, 2500, 10000, 500, 1);
	assert_string_equal(b, "+2.5k tsc");
	/* bytes: powers of two, exact */
	tl_axis_fmt(b, sizeof(b), TL_AX_BYTES, 3 << 18, 2 << 20, 1 << 18, 1);
	assert_string_equal(b, "+0.75MiB");
	tl_axis_fmt(b, sizeof(b), TL_AX_BYTES, 5 << 17, 1 << 20, 1 << 17, 1);
	assert_string_equal(b, "+640KiB");
	tl_axis_fmt(b, sizeof(b), TL_AX_BYTES, 100, 4096, 4, 1);
	assert_string_equal(b, "+100B");
	/* room: cut, never overrun */
	assert_int_equal(tl_axis_fmt(b, 4, TL_AX_NS, 1e6, 1e6, 1, 0), 3);
	assert_int_equal(strlen(b), 3);
}

static void test_span(void **state)
{
	struct tl_axis ax = { TL_AX_NS, 0, 1.25e6, 27.3e9, 120 };
	char b[64];

	tl_axis_span(&ax, "", b, sizeof(b));
	assert_string_equal(b, "span 1.250 ms of 27.30 s");
	ax.span = ax.whole;
	tl_axis_span(&ax, "~", b, sizeof(b));
	assert_string_equal(b, "span ~27.30 s");
	ax = (struct tl_axis){ TL_AX_BYTES, 0, 1 << 20, 64 << 20, 120 };
	tl_axis_span(&ax, "", b, sizeof(b));
	assert_string_equal(b, "span 1.000MiB of 64.00MiB");
}

/* Check the labels of @ax in @w columns: the start at 0, then ticks in
 * order, a blank apart, inside @w, all different. */
static int check_labels(const struct tl_axis *ax, int w)
{
	struct tl_axis_label l[TL_AXIS_MAX_LABELS];
	int n = tl_axis_labels(ax, w, l, TL_AXIS_MAX_LABELS), i, j;

	assert_true(n >= 1);
	assert_int_equal(l[0].col, 0);
	for (i = 0; i < n; i++) {
		assert_true(l[i].col + (int)strlen(l[i].text) <= w ||
			    i == 0);
		if (i)
			assert_true(l[i].col >= l[i - 1].col + (int)strlen(l[i - 1].text) + 1);
		for (j = 0; j < i; j++)
			if (!strcmp(l[i].text, l[j].text)) {
				printf("labels %d and %d both '%s' (start %.17g span %.17g)\n",
				       j, i, l[i].text, ax->start, ax->span);
				return -1;
			}
	}
	return n;
}

/* From 27.3 s down to a few ns, halving, at the start, the middle and the
 * end, on 40 to 300 columns: distinct labels, and ticks once the row has
 * room for them. */
static void test_every_zoom(void **state)
{
	static const int widths[] = { 40, 80, 120, 200, 300 };
	const double whole = 27.3e9;
	size_t k;

	for (k = 0; k < sizeof(widths) / sizeof(widths[0]); k++) {
		double span;

		for (span = whole; span >= widths[k]; span /= 2) {
			double at[3] = { 0, whole / 2 - span / 2, whole - span };
			int i;

			for (i = 0; i < 3; i++) {
				struct tl_axis ax = { TL_AX_NS, at[i], span, whole, widths[k] };
				int n = check_labels(&ax, widths[k] - 26);

				assert_true(n >= 1);
				if (widths[k] >= 120)
					assert_true(n >= 4);
			}
		}
	}
}

/* The byte axis and the tick axis the same way; a start on the byte axis
 * is its offset in hex. */
static void test_other_axes(void **state)
{
	struct tl_axis_label l[TL_AXIS_MAX_LABELS];
	double span;

	for (span = 4.0 * (1u << 30); span >= 120 * 16; span /= 2) {
		struct tl_axis ax = { TL_AX_BYTES, 0x12345678, span, 4.0 * (1u << 30), 120 };
		struct tl_axis tk = { TL_AX_TSC, 1e6, span, 1e12, 120 };

		assert_true(check_labels(&ax, 94) >= 4);
		assert_true(check_labels(&tk, 94) >= 4);
	}
	{
		struct tl_axis ax = { TL_AX_BYTES, 0x12345678, 1 << 20, 1 << 30, 120 };

		assert_true(tl_axis_labels(&ax, 94, l, TL_AXIS_MAX_LABELS) >= 2);
		assert_string_equal(l[0].text, "0x12345678");
		assert_string_equal(l[1].text, "+128KiB");
	}
}

/* Edges: nothing to lay out, no room, one label at most. */
static void test_edges(void **state)
{
	struct tl_axis_label l[TL_AXIS_MAX_LABELS];
	struct tl_axis ax = { TL_AX_NS, 0, 0, 1e9, 120 };

	assert_int_equal(tl_axis_labels(&ax, 100, l, TL_AXIS_MAX_LABELS), 0);
	ax.span = 1e9;
	ax.ncols = 0;
	assert_int_equal(tl_axis_labels(&ax, 100, l, TL_AXIS_MAX_LABELS), 0);
	ax.ncols = 120;
	assert_int_equal(tl_axis_labels(&ax, 100, l, 0), 0);
	assert_int_equal(tl_axis_labels(&ax, 100, l, 1), 1);
	assert_string_equal(l[0].text, "0 ns");
	assert_int_equal(tl_axis_labels(&ax, 3, l, TL_AXIS_MAX_LABELS), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nice),
		cmocka_unit_test(test_fmt),
		cmocka_unit_test(test_span),
		cmocka_unit_test(test_every_zoom),
		cmocka_unit_test(test_other_axes),
		cmocka_unit_test(test_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
