/* test_goto -- the goto grammar and its resolver, with a fake index. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "goto.h"
#include "ptdec.h"

/*
 * The fake trace: 1 MiB; a PSB every 4 KiB (psb n at n * 0x1000); one
 * packet every 4 bytes; TSC 0x1000 + offset; 1 ns and 2 cycles per byte;
 * mark a at 0x1f5c, mark first at 0x10; region hot at 0x4000.
 */
#define SIZE 0x100000ull

static int fake_psb_offset(void *arg, uint64_t n, uint64_t *off, char *err,
			   size_t errlen)
{
	if (n >= SIZE / 0x1000)
		return -pte_eos;
	*off = n * 0x1000;
	return 0;
}

static int fake_psb_number(void *arg, uint64_t off, int64_t *n, char *err,
			   size_t errlen)
{
	*n = (int64_t)(off / 0x1000);
	return 0;
}

static int fake_tsc_offset(void *arg, uint64_t tsc, uint64_t *off, char *err,
			   size_t errlen)
{
	if (tsc < 0x1000)
		tsc = 0x1000;
	if (tsc - 0x1000 >= SIZE)
		return -pte_eos;
	*off = tsc - 0x1000;
	return 0;
}

static int fake_time_offset(void *arg, uint64_t ns, uint64_t *off, char *err,
			    size_t errlen)
{
	if (ns >= SIZE) {
		snprintf(err, errlen, "goto: the trace ends at %llu ns",
			 SIZE - 1);
		return -pte_eos;
	}
	*off = ns;
	return 0;
}

static int fake_time_at(void *arg, uint64_t off, uint64_t *ns, char *err,
			size_t errlen)
{
	*ns = off;
	return 0;
}

static int fake_cycles_offset(void *arg, uint64_t cyc, uint64_t *off,
			      char *err, size_t errlen)
{
	if (cyc / 2 >= SIZE)
		return -pte_eos;
	*off = cyc / 2;
	return 0;
}

static int fake_cycles_at(void *arg, uint64_t off, uint64_t *cyc, char *err,
			  size_t errlen)
{
	*cyc = off * 2;
	return 0;
}

static int fake_ordinal_offset(void *arg, uint64_t n, uint64_t *off,
			       char *err, size_t errlen)
{
	if (n >= SIZE / 4)
		return -pte_eos;
	*off = n * 4;
	return 0;
}

static int fake_mark_offset(void *arg, const char *name, uint64_t *off,
			    char *err, size_t errlen)
{
	if (!strcmp(name, "a"))
		*off = 0x1f5c;
	else if (!strcmp(name, "first"))
		*off = 0x10;
	else
		return -pte_invalid;
	return 0;
}

static int fake_region_offset(void *arg, const char *name, uint64_t *off,
			      char *err, size_t errlen)
{
	if (strcmp(name, "hot"))
		return -pte_invalid;
	*off = 0x4000;
	return 0;
}

static const struct goto_ctx fake = {
	.cursor = 0x8010,
	.size = SIZE,
	.psb_offset = fake_psb_offset,
	.psb_number = fake_psb_number,
	.tsc_offset = fake_tsc_offset,
	.time_offset = fake_time_offset,
	.time_at = fake_time_at,
	.cycles_offset = fake_cycles_offset,
	.cycles_at = fake_cycles_at,
	.ordinal_offset = fake_ordinal_offset,
	.mark_offset = fake_mark_offset,
	.region_offset = fake_region_offset,
};

static void test_null(void **state)
{
	struct goto_target t;
	uint64_t off;
	char err[128];

	assert_int_equal(goto_parse(NULL, &t, err, sizeof(err)), -pte_invalid);
	assert_int_equal(goto_parse("1", NULL, err, sizeof(err)), -pte_invalid);
	assert_int_equal(goto_parse("1", &t, NULL, 0), 0);
	assert_int_equal(goto_parse("zz zz zz zz", &t, NULL, 0), -pte_invalid);
	assert_int_equal(goto_resolve(NULL, &fake, &off, err, sizeof(err)),
			 -pte_invalid);
	assert_int_equal(goto_resolve(&t, NULL, &off, err, sizeof(err)),
			 -pte_invalid);
	assert_int_equal(goto_resolve(&t, &fake, NULL, err, sizeof(err)),
			 -pte_invalid);
	assert_int_equal(goto_from_count(NULL, GOTO_OFFSET, 1), -pte_invalid);
	assert_int_equal(goto_from_count(&t, GOTO_MARK, 1), -pte_invalid);
	assert_int_equal(goto_is_target(NULL), 0);
}

/* Inputs and the offsets they resolve to, the cursor at 0x8010. */
static void test_table(void **state)
{
	static const struct {
		const char *in;
		uint64_t off;
	} t[] = {
		{ "0x1f5c", 0x1f5c }, { "8028", 8028 }, { "  0X1F5C  ", 0x1f5c },
		{ "0", 0 }, { "1048576", SIZE }, { "0x100000", SIZE },
		{ "4KiB", 4096 }, { "4kib", 4096 }, { "4kB", 4000 },
		{ "4kb", 4000 }, { "1MiB", SIZE }, { "0.5MiB", SIZE / 2 },
		{ "1.5KiB", 1536 }, { "0x10KiB", 0x4000 }, { "1MB", 1000000 },
		{ "45%", SIZE * 45 / 100 }, { "12.5%", SIZE / 8 },
		{ "100%", SIZE }, { "0%", 0 }, { "33.333%", 349521 },
		{ "+4KiB", 0x9010 }, { "-0x100", 0x7f10 }, { "+10%", 0x8010 + SIZE / 10 },
		{ "-10%", 0x8010 - 0x8010 }, { "+0", 0x8010 },
		{ "-1MiB", 0 }, { "+2MiB", SIZE }, { "-0x8010", 0 },
		{ "$", SIZE }, { "$-64KiB", SIZE - 0x10000 }, { "$-0x10", SIZE - 16 },
		{ "$-2MiB", 0 }, { "^", 0 },
		{ "psb 0", 0 }, { "psb 3", 0x3000 }, { "psb 0x10", 0x10000 },
		{ "psb +3", 0xb000 }, { "psb +1", 0x9000 },
		{ "psb -1", 0x8000 }, { "psb -2", 0x7000 }, { "psb -8", 0x1000 }, { "psb -9", 0 },
		{ "psb +0", 0x8000 }, { "psb -0", 0x8000 },	/* the cursor's */
		{ "tsc 0x1a2b", 0x0a2b }, { "tsc 0", 0 }, { "tsc 8192", 4096 },
		{ "t 12.5us", 12500 }, { "t 0ns", 0 }, { "t 0.5ms", 500000 },
		{ "t 1.5ns", 1 }, { "t +3us", 0x8010 + 3000 },
		{ "t -3us", 0x8010 - 3000 }, { "t -1s", 0 },
		{ "t 5000cyc", 2500 }, { "t +20CYC", 0x8010 + 10 },
		{ "'a", 0x1f5c }, { "'first", 0x10 },
		{ "hot", 0x4000 }, { "region hot", 0x4000 },
		{ "#0", 0 }, { "#123", 492 }, { "#0x10", 64 },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char err[256] = "";
		uint64_t off = 0xdeadbeef;
		int rc = goto_offset(t[i].in, &fake, &off, err, sizeof(err));

		if (rc < 0)
			fail_msg("'%s': %s", t[i].in, err);
		if (off != t[i].off)
			fail_msg("'%s': got 0x%llx, want 0x%llx", t[i].in,
				 (unsigned long long)off,
				 (unsigned long long)t[i].off);
	}
}

/* Inputs that fail, and their messages. */
static void test_errors(void **state)
{
	static const struct {
		const char *in;
		const char *msg;
	} t[] = {
		{ "", "goto: missing target (offset, N%, $, ^, psb N, tsc V, "
		      "t 1ms, 'mark, region, #N)" },
		{ "   ", "goto: missing target (offset, N%, $, ^, psb N, tsc V, "
			 "t 1ms, 'mark, region, #N)" },
		{ "4kx", "goto: unknown unit 'kx' in '4kx'" },
		{ "4 KiB", "goto: unexpected 'KiB' after '4'" },
		{ "0x", "goto: bad number '0x'" },
		{ "0xzz", "goto: bad number '0xzz'" },
		{ "0x1.5", "goto: a hex number has no fraction: '0x1.5'" },
		{ ".5", "goto: bad number '.5'" },
		{ "1.5", "goto: '1.5' is not a whole number of bytes (add a "
			 "unit: KiB, MB, ...)" },
		{ "99999999999999999999", "goto: number too large: "
					  "'99999999999999999999'" },
		{ "0x10000000000000000", "goto: number too large: "
					 "'0x10000000000000000'" },
		{ "20000000TiB", "goto: number too large: '20000000TiB'" },
		{ "150%", "goto: 150% is more than 100%" },
		{ "100.5%", "goto: 100.5% is more than 100%" },
		{ "0x2000000", "goto: 0x2000000 is past the end (0x100000)" },
		{ "12ms", "goto: '12ms' is a time; use 't 12ms'" },
		{ "$+4", "goto: '$+4': only '$-N' counts back from the end" },
		{ "$-5%", "goto: '$-5%': count back in bytes ($-64KiB)" },
		{ "^x", "goto: unexpected 'x' after '^'" },
		{ "psb", "goto: 'psb' needs a value" },
		{ "psb 1 2", "goto: 'psb' takes one value" },
		{ "psb 1.5", "goto: psb wants a whole number, not '1.5'" },
		{ "psb 4KiB", "goto: psb wants a whole number, not '4KiB'" },
		{ "psb 256", "goto: no psb 256" },
		{ "psb -10", "goto: no sync point 10 back" },
		{ "psb +300", "goto: no psb 308" },
		{ "tsc -1", "goto: bad number '-1'" },
		{ "tsc 0x200000", "goto: no packet with TSC >= 0x200000" },
		{ "t 12", "goto: 't 12' needs a time unit: ns, us, ms, s or cyc" },
		{ "t 4KiB", "goto: 't 4KiB' needs a time unit: ns, us, ms, s or "
			    "cyc" },
		{ "t 4h", "goto: unknown unit 'h' in '4h'" },
		{ "t 1s", "goto: the trace ends at 1048575 ns" },
		{ "t 1000000000cyc", "goto: no packet at 1000000000 cycles" },
		{ "'", "goto: bad mark name '''" },
		{ "'b", "goto: no mark 'b" },
		{ "cold", "goto: no region 'cold'" },
		{ "region", "goto: 'region' needs a value" },
		{ "region 'x", "goto: bad region name ''x'" },
		{ "#", "goto: bad number ''" },
		{ "#x", "goto: bad number 'x'" },
		{ "#999999", "goto: no packet #999999" },
		{ "a b", "goto: unexpected 'b' after 'a'" },
		{ "a b c d", "goto: too many words in 'a b c d'" },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char err[256] = "";
		uint64_t off = 0;
		int rc = goto_offset(t[i].in, &fake, &off, err, sizeof(err));

		if (rc >= 0)
			fail_msg("'%s': resolved to 0x%llx, want an error",
				 t[i].in, (unsigned long long)off);
		if (strcmp(err, t[i].msg))
			fail_msg("'%s': got \"%s\", want \"%s\"", t[i].in, err,
				 t[i].msg);
	}
}

/* Without an index, what needs one says so. */
static void test_unavailable(void **state)
{
	static const struct {
		const char *in;
		const char *msg;
	} t[] = {
		{ "psb 3", "goto: sync point numbers not available (yet)" },
		{ "tsc 5", "goto: TSC search not available (yet)" },
		{ "t 1ms", "goto: time positions not available (yet)" },
		{ "t +1cyc", "goto: cycle positions not available (yet)" },
		{ "'a", "goto: marks not available (yet)" },
		{ "hot", "goto: regions not available (yet)" },
		{ "#5", "goto: packet numbers not available (yet)" },
	};
	struct goto_ctx bare = { .cursor = 10, .size = 100 };
	char err[256];
	uint64_t off;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		assert_int_equal(goto_offset(t[i].in, &bare, &off, err,
					     sizeof(err)), -pte_invalid);
		assert_string_equal(err, t[i].msg);
	}
	/* what needs only the size still works */
	assert_int_equal(goto_offset("50%", &bare, &off, err, sizeof(err)), 0);
	assert_int_equal(off, 50);
	assert_int_equal(goto_offset("+95", &bare, &off, err, sizeof(err)), 0);
	assert_int_equal(off, 100);
	/* an empty trace */
	bare.size = 0;
	assert_int_equal(goto_offset("50%", &bare, &off, err, sizeof(err)), 0);
	assert_int_equal(off, 0);
	assert_int_equal(goto_offset("$", &bare, &off, err, sizeof(err)), 0);
	assert_int_equal(off, 0);
	assert_int_equal(goto_offset("1", &bare, &off, err, sizeof(err)),
			 -pte_invalid);
}

static void test_parse_struct(void **state)
{
	struct goto_target t;
	char err[128];

	assert_int_equal(goto_parse("+4KiB", &t, err, sizeof(err)), 0);
	assert_int_equal(t.kind, GOTO_OFFSET);
	assert_int_equal(t.rel, 1);
	assert_int_equal(t.value, 4096);
	assert_int_equal(goto_parse("12.5%", &t, err, sizeof(err)), 0);
	assert_int_equal(t.kind, GOTO_PERCENT);
	assert_int_equal(t.num, 125);
	assert_int_equal(t.den, 10);
	assert_int_equal(goto_parse("t -3us", &t, err, sizeof(err)), 0);
	assert_int_equal(t.kind, GOTO_TIME);
	assert_int_equal(t.rel, -1);
	assert_int_equal(t.value, 3000);
	assert_int_equal(goto_parse("'a", &t, err, sizeof(err)), 0);
	assert_int_equal(t.kind, GOTO_MARK);
	assert_string_equal(t.name, "a");
	assert_int_equal(goto_parse("psb", &t, err, sizeof(err)), -pte_invalid);
}

/* Keys with counts share the resolver: 50%, 4096P, 12g. */
static void test_counts(void **state)
{
	struct goto_target t;
	uint64_t off;
	char err[128];

	assert_int_equal(goto_from_count(&t, GOTO_PERCENT, 50), 0);
	assert_int_equal(goto_resolve(&t, &fake, &off, err, sizeof(err)), 0);
	assert_int_equal(off, SIZE / 2);
	assert_int_equal(goto_from_count(&t, GOTO_PERCENT, 101), 0);
	assert_int_equal(goto_resolve(&t, &fake, &off, err, sizeof(err)),
			 -pte_invalid);
	assert_string_equal(err, "goto: 101% is more than 100%");
	assert_int_equal(goto_from_count(&t, GOTO_OFFSET, 4096), 0);
	assert_int_equal(goto_resolve(&t, &fake, &off, err, sizeof(err)), 0);
	assert_int_equal(off, 4096);
	assert_int_equal(goto_from_count(&t, GOTO_ORDINAL, 12), 0);
	assert_int_equal(goto_resolve(&t, &fake, &off, err, sizeof(err)), 0);
	assert_int_equal(off, 48);
	assert_int_equal(goto_from_count(&t, GOTO_PSB, 2), 0);
	assert_int_equal(goto_resolve(&t, &fake, &off, err, sizeof(err)), 0);
	assert_int_equal(off, 0x2000);
}

static void test_is_target(void **state)
{
	assert_true(goto_is_target("0x1f00"));
	assert_true(goto_is_target(" 45%"));
	assert_true(goto_is_target("$"));
	assert_true(goto_is_target("^"));
	assert_true(goto_is_target("'a"));
	assert_true(goto_is_target("#12"));
	assert_true(goto_is_target("-4KiB"));
	assert_false(goto_is_target("goto 5"));
	assert_false(goto_is_target("quit"));
	assert_false(goto_is_target(""));
}

/* A time's TSC: exact where it fits, refused where t0 plus it passes
 * 2^64 (a double that large converted to uint64_t is undefined, and the
 * sum wrapped: "t 18000000000s" went to the start). */
static void test_tsc_after(void **state)
{
	char err[128] = "";
	uint64_t tsc = 0;

	(void)state;
	assert_int_equal(goto_tsc_after(5, 1000000000, 1e9, &tsc, err, sizeof(err)), 0);
	assert_int_equal(tsc, 1000000005);
	assert_int_equal(goto_tsc_after(0x10a4eb7c3a13ull, 18000000000ull * 1000000000,
					2e9, &tsc, err, sizeof(err)), -pte_invalid);
	assert_non_null(strstr(err, "past any TSC"));
	assert_int_equal(goto_tsc_after(UINT64_MAX - 10, 1000, 1e9, &tsc, err, sizeof(err)),
			 -pte_invalid);
	/* (counted in integers: 2^64 - 1 ns at 1 GHz is the last TSC, one
	 * tick more is past it; as doubles both were 2^64) */
	assert_int_equal(goto_tsc_after(0, UINT64_MAX, 1e9, &tsc, err, sizeof(err)), 0);
	assert_int_equal(tsc, UINT64_MAX);
	assert_int_equal(goto_tsc_after(1, UINT64_MAX, 1e9, &tsc, err, sizeof(err)),
			 -pte_invalid);
	assert_int_equal(goto_tsc_after(0, UINT64_MAX, 1e9 + 0.5, &tsc, err, sizeof(err)),
			 -pte_invalid);
	assert_int_equal(goto_tsc_after(0, 1ull << 63, 1e9, &tsc, err, sizeof(err)), 0);
	assert_int_equal(tsc, 1ull << 63);
	/* Rounded up: 1369928 ns at 2.1 GHz is 2876848.8 ticks; a packet at
	 * tick 2876848 is before it (it was taken, shown 1.369927 ms). */
	assert_int_equal(goto_tsc_after(100, 1369928, 2.1e9, &tsc, err, sizeof(err)), 0);
	assert_int_equal(tsc, 100 + 2876849);
	assert_int_equal(goto_tsc_after(0, 3, 1e9 / 3, &tsc, err, sizeof(err)), 0);
	assert_int_equal(tsc, 1);
	assert_int_equal(goto_tsc_after(0, 4, 1e9 / 3, &tsc, err, sizeof(err)), 0);
	assert_int_equal(tsc, 2);
	assert_int_equal(goto_tsc_after(0, 2000, 1e9, &tsc, err, sizeof(err)), 0);
	assert_int_equal(tsc, 2000);
	/* at the edge: 2^64 - 1 ticks are a TSC; 1 more is past */
	assert_int_equal(goto_tsc_after(UINT64_MAX - 1000, 1000, 1e9, &tsc, err,
					sizeof(err)), 0);
	assert_int_equal(tsc, UINT64_MAX);
}

/* Numbers at their edges: the largest decimal, precision, hex with cyc. */
static void test_numbers(void **state)
{
	static const struct {
		const char *in;
		enum goto_kind kind;
		int rel;
		uint64_t value;
	} ok[] = {
		{ "#18446744073709551615", GOTO_ORDINAL, 0, UINT64_MAX },
		{ "tsc 18446744073709551615", GOTO_TSC, 0, UINT64_MAX },
		{ "tsc 0xffffffffffffffff", GOTO_TSC, 0, UINT64_MAX },
		{ "18446744073709551615", GOTO_OFFSET, 0, UINT64_MAX },
		{ "t 0x10cyc", GOTO_CYCLES, 0, 0x10 },
		{ "t 0xcCYC", GOTO_CYCLES, 0, 0xc },
		{ "t +0x1cyc", GOTO_CYCLES, 1, 1 },
		{ "0x10c", GOTO_OFFSET, 0, 0x10c },
		{ "0x10KiB", GOTO_OFFSET, 0, 0x4000 },
	};
	static const struct {
		const char *in;
		const char *msg;
	} bad[] = {
		{ "#18446744073709551616", "goto: number too large: '18446744073709551616'" },
		{ "0.0000000000000000001%", "goto: too many digits after the point in "
					    "'0.0000000000000000001%'" },
		/* too large in ns, whatever the digits after the point */
		{ "t 1844674407370955161.6ms", "goto: number too large: "
					     "'1844674407370955161.6ms'" },
		{ "t 0xcyc", "goto: bad number '0xcyc'" },
		{ "t 0x10yc", "goto: unknown unit 'yc' in '0x10yc'" },
	};
	struct goto_target t;
	char err[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		err[0] = 0;
		if (goto_parse(ok[i].in, &t, err, sizeof(err)) < 0)
			fail_msg("'%s': %s", ok[i].in, err);
		if (t.kind != ok[i].kind || t.rel != ok[i].rel || t.value != ok[i].value)
			fail_msg("'%s': kind %d rel %d value 0x%llx", ok[i].in, (int)t.kind,
				 t.rel, (unsigned long long)t.value);
	}
	/* digits past the mantissa's 64 bits are below its precision:
	 * dropped, not "too large" (it is 100 us) */
	assert_int_equal(goto_parse("t 99999.999999999999999ns", &t, err, sizeof(err)), 0);
	assert_int_equal(t.kind, GOTO_TIME);
	assert_int_equal(t.value, 99999);	/* ns, the fraction rounded off */
	assert_int_equal(goto_parse("0.000000000000000001%", &t, err, sizeof(err)), 0);
	assert_int_equal(t.num, 1);
	assert_int_equal(t.den, 1000000000000000000ull);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		if (goto_parse(bad[i].in, &t, err, sizeof(err)) != -pte_invalid ||
		    strcmp(err, bad[i].msg))
			fail_msg("'%s': '%s', want '%s'", bad[i].in, err, bad[i].msg);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_unavailable),
		cmocka_unit_test(test_parse_struct),
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_is_target),
		cmocka_unit_test(test_tsc_after),
		cmocka_unit_test(test_numbers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
