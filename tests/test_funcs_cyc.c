/*
 * test_funcs_cyc -- the function view's cycles columns
 * (funcs_cycles_str()): as ct_sum_str() writes a sum where that fits the
 * column, else its numbers scaled ("1.23M"), a bound rounded outwards,
 * never wider than the column and never without a mark ct_sum_str()
 * gives (~, >=, +?).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "calltree.h"
#include "funcs.h"

/* The view's column width (ui/funcs.c's FV_CYC). */
#define W 14

/* A sum of @lo..@hi cycles with @flags, @unknown instructions unknown. */
static struct ct_sum sum(uint64_t lo, uint64_t hi, uint32_t flags, uint64_t unknown)
{
	struct ct_sum s = { lo, hi, unknown, 10, flags };

	return s;
}

static const char *cyc(struct ct_sum s, char *buf, size_t size)
{
	funcs_cycles_str(&s, W, buf, size);
	return buf;
}

static void test_null(void **state)
{
	char buf[32];

	(void)state;
	funcs_cycles_str(NULL, W, buf, sizeof(buf));
	assert_string_equal(buf, "?");
	funcs_cycles_str(NULL, W, NULL, 0);
	buf[0] = 'x';
	funcs_cycles_str(NULL, W, buf, 0);
	assert_int_equal(buf[0], 'x');
}

/* What fits is ct_sum_str()'s, digit for digit. */
static void test_fits(void **state)
{
	char buf[32];

	(void)state;
	assert_string_equal(cyc(sum(1234, 1234, 0, 0), buf, sizeof(buf)), "1234");
	assert_string_equal(cyc(sum(15, 20, CT_S_BOUNDED | CT_S_SHARED, 0), buf,
				sizeof(buf)), "~15-20");
	assert_string_equal(cyc(sum(114, 114, CT_S_OPEN | CT_S_SHARED, 3), buf,
				sizeof(buf)), "~>=114+?");
	assert_string_equal(cyc(sum(123456, 234567, CT_S_BOUNDED, 0), buf, sizeof(buf)),
			    "123456-234567");
	assert_string_equal(cyc(sum(12345678901234ull, 12345678901234ull, 0, 0), buf,
				sizeof(buf)), "12345678901234");
}

/* The brief's case: "~1234567-2345678+?" (18 columns) pushed the names
 * right; scaled, the range rounded outwards, every mark kept. */
static void test_bounded(void **state)
{
	char buf[32], before[32];
	struct ct_sum s = sum(1234567, 2345678, CT_S_BOUNDED | CT_S_SHARED, 5);

	(void)state;
	assert_true(strlen(ct_sum_str(&s, before, sizeof(before))) > W);
	assert_string_equal(cyc(s, buf, sizeof(buf)), "~1.23M-2.35M+?");
	s.flags |= CT_S_LOST;
	s.unknown = 0;
	assert_string_equal(cyc(s, buf, sizeof(buf)), "~1.23M-2.35M+?");
	assert_string_equal(cyc(sum(999999, 1000001, CT_S_BOUNDED, 0), buf, sizeof(buf)),
			    "999999-1000001");
	assert_string_equal(cyc(sum(9999999, 10000001, CT_S_BOUNDED, 1), buf,
				sizeof(buf)), "9.99M-10.1M+?");
	/* exact multiples stay as they are */
	assert_string_equal(cyc(sum(100000000, 200000000, CT_S_BOUNDED, 1), buf,
				sizeof(buf)), "100M-200M+?");
}

/* An exact count too wide rounds to the nearest; at least one rounds
 * down, so that it still holds; up to the next unit where it carries. */
static void test_single(void **state)
{
	char buf[32];

	(void)state;
	assert_string_equal(cyc(sum(123456789012345ull, 123456789012345ull, 0, 0), buf,
				sizeof(buf)), "123T");
	assert_string_equal(cyc(sum(999999999999999ull, 999999999999999ull, 0, 0), buf,
				sizeof(buf)), "1.00P");
	assert_string_equal(cyc(sum(1234567890123ull, 0, CT_S_OPEN | CT_S_SHARED, 1), buf,
				sizeof(buf)), "~>=1.23T+?");
	assert_string_equal(cyc(sum(1239999999999ull, 1239999999999ull, CT_S_SHARED, 1),
				buf, sizeof(buf)), "~1.24T+?");
}

/* The widest sums fit: UINT64_MAX as both bounds, every mark. */
static void test_widest(void **state)
{
	static const uint32_t fl[] = { CT_S_BOUNDED, CT_S_BOUNDED | CT_S_SHARED,
				       CT_S_OPEN | CT_S_SHARED, CT_S_SHARED, 0,
				       CT_S_BOUNDED | CT_S_SHARED | CT_S_LOST };
	static const uint64_t v[] = { 0, 99999, 100000, 999499, 999500, 999999,
				      1000000, 9994999, 9995000, 123456789,
				      UINT64_MAX / 2, UINT64_MAX - 1, UINT64_MAX };
	char buf[32];
	size_t f, i, j;

	(void)state;
	for (f = 0; f < sizeof(fl) / sizeof(fl[0]); f++)
		for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
			for (j = i; j < sizeof(v) / sizeof(v[0]); j++) {
				struct ct_sum s = sum(v[i], v[j], fl[f], 1);

				cyc(s, buf, sizeof(buf));
				assert_true(strlen(buf) <= W);
				assert_non_null(strstr(buf, "+?"));
				if (fl[f] & CT_S_SHARED)
					assert_int_equal(buf[0], '~');
				if (fl[f] & CT_S_OPEN)
					assert_non_null(strstr(buf, ">="));
				if ((fl[f] & CT_S_BOUNDED) && v[i] != v[j])
					assert_non_null(strchr(buf + 1, '-'));
			}
	assert_string_equal(cyc(sum(UINT64_MAX - 1, UINT64_MAX, CT_S_BOUNDED |
				    CT_S_SHARED, 1), buf, sizeof(buf)), "~18.4E-18.5E+?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_fits),
		cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_single),
		cmocka_unit_test(test_widest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
