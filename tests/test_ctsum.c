/*
 * test_ctsum -- a range's top functions as lines: NULL and no room, the
 * head and rows of one tree (cycles as ct_sum_str() writes them, a code
 * segment in brackets), the order asked for, and two trees side by side
 * with "-" where the second has no such function.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "calltree.h"
#include "ctsum.h"
#include "symfmt.h"

/* 0x1000.. "main", 0x2000.. "work", 0x3000.. the segment "lib.so",
 * 0x4000.. and 0x5000.. "_fini" (two objects') */
static int resolve(void *ctx, uint64_t asid, uint64_t ip, struct symfmt_fn *fn)
{
	static const char *const names[] = { "main", "work", "lib.so", "_fini",
					     "_fini" };
	unsigned k = (unsigned)(ip >> 12) - 1;

	(void)ctx;
	(void)asid;
	if (k > 4)
		return -1;
	fn->name = names[k];
	fn->start = ip & ~0xfffull;
	fn->end = fn->start + 0x1000;
	fn->kind = k == 2 ? SYMFMT_SEGMENT : SYMFMT_FUNC;
	return 0;
}

/* main runs 2 instructions in 10 cycles, calls work (@nwork instructions
 * in 30 exact cycles) and, with @lib, lib.so (3 in 7). */
static struct ct *tree(int nwork, int lib)
{
	struct ct_cyc c = { 10, 10, CT_C_KNOWN | CT_C_HI | CT_C_EXACT };
	struct ct *ct;
	int i;

	assert_int_equal(ct_new(&ct, resolve, NULL), 0);
	assert_int_equal(ct_run(ct, &c, 0, 0), 0);
	assert_int_equal(ct_insn(ct, 1, 0, 0x1000, 1), 0);
	assert_int_equal(ct_insn(ct, 1, 0, 0x1004, CT_IC_CALL), 0);
	c.lo = c.hi = 30;
	assert_int_equal(ct_run(ct, &c, 0, 0), 0);
	for (i = 0; i < nwork - 1; i++)
		assert_int_equal(ct_insn(ct, 2, 0, 0x2000 + (uint64_t)i, 1), 0);
	assert_int_equal(ct_insn(ct, 2, 0, 0x2100, CT_IC_RETURN), 0);
	if (lib) {
		c.lo = c.hi = 7;
		assert_int_equal(ct_run(ct, &c, 0, 0), 0);
		for (i = 0; i < 3; i++)
			assert_int_equal(ct_insn(ct, 3, 0, 0x3000 + (uint64_t)i, 1), 0);
	}
	assert_int_equal(ct_finish(ct), 0);
	return ct;
}

static void test_null(void **state)
{
	char l[4][CTSUM_LINE];
	struct ct *ct = tree(4, 0);

	(void)state;
	assert_int_equal(ctsum_lines(NULL, NULL, CT_BY_CYCLES, 5, l, 4), 0);
	assert_int_equal(ctsum_lines(ct, NULL, CT_BY_CYCLES, 5, l, 0), 0);
	/* room for the head only */
	assert_int_equal(ctsum_lines(ct, NULL, CT_BY_CYCLES, 5, l, 1), 1);
	assert_non_null(strstr(l[0], "by cycles"));
	ct_free(ct);
}

static void test_one(void **state)
{
	char l[8][CTSUM_LINE];
	struct ct *ct = tree(4, 1);
	size_t n;

	(void)state;
	n = ctsum_lines(ct, NULL, CT_BY_CYCLES, 0, l, 8);
	assert_int_equal(n, 4);
	assert_string_equal(l[0], "          cycles      insns    calls  by cycles");
	assert_string_equal(l[1], "              30          4        1  work");
	assert_string_equal(l[2], "              10          2        0  main");
	assert_string_equal(l[3], "               7          3        0  [lib.so]");
	/* by instructions, the first two */
	n = ctsum_lines(ct, NULL, CT_BY_INSNS, 2, l, 8);
	assert_int_equal(n, 3);
	assert_non_null(strstr(l[0], "by instructions"));
	assert_non_null(strstr(l[1], "work"));
	assert_non_null(strstr(l[2], "[lib.so]"));
	ct_free(ct);
}

static void test_two(void **state)
{
	char l[8][CTSUM_LINE];
	struct ct *a = tree(4, 1), *b = tree(6, 0);
	size_t n;

	(void)state;
	n = ctsum_lines(a, b, CT_BY_CYCLES, 3, l, 8);
	assert_int_equal(n, 4);
	assert_non_null(strstr(l[0], "A cycles"));
	assert_non_null(strstr(l[0], "B calls"));
	assert_string_equal(l[1], "            30             30         4         6       1       1  work");
	assert_string_equal(l[3], "             7              -         3         -       0       -  [lib.so]");
	ct_free(a);
	ct_free(b);
}

/* B's function beside A's is the same one: of its start too, where two
 * share a name; else the one of its name. */
static void test_same_name(void **state)
{
	struct ct_cyc c = { 10, 10, CT_C_KNOWN | CT_C_HI | CT_C_EXACT };
	char l[4][CTSUM_LINE];
	struct ct *a, *b;
	int i;

	(void)state;
	assert_int_equal(ct_new(&a, resolve, NULL), 0);
	assert_int_equal(ct_run(a, &c, 0, 0), 0);
	assert_int_equal(ct_insn(a, 1, 0, 0x5000, 1), 0);
	assert_int_equal(ct_finish(a), 0);
	assert_int_equal(ct_new(&b, resolve, NULL), 0);
	assert_int_equal(ct_run(b, &c, 0, 0), 0);
	for (i = 0; i < 2; i++)
		assert_int_equal(ct_insn(b, 1, 0, 0x4000 + (uint64_t)i, 1), 0);
	for (i = 0; i < 5; i++)
		assert_int_equal(ct_insn(b, 1, 0, 0x5000 + (uint64_t)i, 1), 0);
	assert_int_equal(ct_finish(b), 0);
	assert_int_equal(ctsum_lines(a, b, CT_BY_INSNS, 1, l, 4), 2);
	assert_string_equal(l[1], "            10             ~8         1         5       0       0  _fini");
	ct_free(a);
	ct_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_one),
		cmocka_unit_test(test_two),
		cmocka_unit_test(test_same_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
