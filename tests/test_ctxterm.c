/* test_ctxterm -- sideband and code terms taken out of a search line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "ctxterm.h"
#include "ptdec.h"

/* @line gives the terms @want ("pid=1 tid=-1 comm=x sw=0") and @rest. */
static void check(const char *line, int ret, const char *want, const char *rest)
{
	struct ctxterm t;
	char r[256], err[256] = "", got[128];
	int n = ctxterm_split(line, &t, r, sizeof(r), err, sizeof(err));

	if (n != ret)
		fail_msg("'%s': returned %d (%s), want %d", line, n, err, ret);
	if (n < 0)
		return;
	snprintf(got, sizeof(got), "pid=%d tid=%d comm=%s sw=%d", (int)t.f.pid,
		 (int)t.f.tid, t.f.comm ? t.f.comm : "-", t.sw);
	if (want && strcmp(got, want))
		fail_msg("'%s': terms '%s', want '%s'", line, got, want);
	if (strcmp(r, rest))
		fail_msg("'%s': rest '%s', want '%s'", line, r, rest);
}

static void test_none(void **state)
{
	(void)state;
	check("tip", 0, "pid=-1 tid=-1 comm=- sw=0", "tip");
	check("tip 0x401000 | ovf", 0, NULL, "tip 0x401000 | ovf");
	check("", 0, NULL, "");
}

static void test_terms(void **state)
{
	(void)state;
	check("comm sorter", 1, "pid=-1 tid=-1 comm=sorter sw=0", "");
	check("pid 12 tid 13", 1, "pid=12 tid=13 comm=- sw=0", "");
	check("switch", 1, "pid=-1 tid=-1 comm=- sw=1", "");
	check("switch and comm x", 1, "pid=-1 tid=-1 comm=x sw=1", "");
	check("comm x & tip", 1, NULL, "tip");
	check("tip and comm x", 1, NULL, "tip");
	check("tip & comm x & ovf", 1, NULL, "tip & ovf");
	check("tip comm x ovf", 1, NULL, "tip & ovf");
	check("(tip | ovf) & tid 7", 1, "pid=-1 tid=7 comm=- sw=0", "( tip | ovf )");
	check("tid 7&tip", 1, NULL, "tip");
}

/* @line gives the code terms @want ("sym=foo call=- ret=1") and @rest. */
static void check_code(const char *line, const char *want, const char *rest)
{
	struct ctxterm t;
	char r[256], err[256] = "", got[400];
	int n = ctxterm_split(line, &t, r, sizeof(r), err, sizeof(err));

	if (n != 1)
		fail_msg("'%s': returned %d (%s), want 1", line, n, err);
	snprintf(got, sizeof(got), "sym=%s call=%s ret=%d",
		 t.code & CTXTERM_SYM ? t.sym : "-", t.code & CTXTERM_CALL ? t.call : "-",
		 !!(t.code & CTXTERM_RET));
	if (strcmp(got, want))
		fail_msg("'%s': terms '%s', want '%s'", line, got, want);
	if (strcmp(r, rest))
		fail_msg("'%s': rest '%s', want '%s'", line, r, rest);
}

static void test_code(void **state)
{
	(void)state;
	check_code("sym foo", "sym=foo call=- ret=0", "");
	check_code("call memcpy@plt", "sym=- call=memcpy@plt ret=0", "");
	check_code("ret", "sym=- call=- ret=1", "");
	check_code("ret & sym foo", "sym=foo call=- ret=1", "");
	check_code("sym foo call bar", "sym=foo call=bar ret=0", "");
	check_code("sym foo && tip", "sym=foo call=- ret=0", "tip");
	check_code("tip&&ret", "sym=- call=- ret=1", "tip");
	check("sym foo && pid 42", 1, "pid=42 tid=-1 comm=- sw=0", "");
	check("tip || ret", -pte_invalid, NULL, "");
	check_code("tnt & ret", "sym=- call=- ret=1", "tnt");
	check("sym foo and pid 42", 1, "pid=42 tid=-1 comm=- sw=0", "");
	check("sym", -pte_invalid, NULL, "");
	check("call & tip", -pte_invalid, NULL, "");
	check("sym a sym b", -pte_invalid, NULL, "");
	check("call a & ret", -pte_invalid, NULL, "");
	check("ret | tip", -pte_invalid, NULL, "");
	check("!ret", -pte_invalid, NULL, "");
	check("(sym foo)", -pte_invalid, NULL, "");
	check("switch sym foo", -pte_invalid, NULL, "");
}

static void test_errors(void **state)
{
	(void)state;
	check("tip | comm x", -pte_invalid, NULL, "");
	check("not comm x", -pte_invalid, NULL, "");
	check("(comm x)", -pte_invalid, NULL, "");
	check("pid", -pte_invalid, NULL, "");
	check("pid x", -pte_invalid, NULL, "");
	check("comm & tip", -pte_invalid, NULL, "");
}

/* A line of any length splits into a rest of CTXTERM_RESTLEN() bytes,
 * though its words are joined again with more blanks than it had (the
 * search and the filter gave 256 bytes: longer lines were refused, and a
 * rest longer than its line was cut short); a longer one than the buffer
 * is refused without a "search: " of its own (the caller says whose). */
static void test_long(void **state)
{
	char line[2048], rest[CTXTERM_RESTLEN(sizeof(line))], want[sizeof(rest)];
	char err[256] = "";
	struct ctxterm t;
	size_t len = 0, k = 0;
	int i;

	(void)state;
	len += (size_t)snprintf(line, sizeof(line), "comm x&(");
	k += (size_t)snprintf(want, sizeof(want), "(");
	for (i = 0; i < 50; i++) {
		len += (size_t)snprintf(line + len, sizeof(line) - len, "%stip.pge",
					i ? "|" : "");
		k += (size_t)snprintf(want + k, sizeof(want) - k, " %stip.pge",
				      i ? "| " : "");
	}
	len += (size_t)snprintf(line + len, sizeof(line) - len, ")");
	k += (size_t)snprintf(want + k, sizeof(want) - k, " )");
	assert_true(len > 256);
	assert_int_equal(ctxterm_split(line, &t, rest, CTXTERM_RESTLEN(len), err,
				       sizeof(err)), 1);
	assert_string_equal(rest, want);
	assert_true(strlen(rest) > len);
	/* a buffer the line's length: the rest does not fit, which is said */
	assert_int_equal(ctxterm_split(line, &t, rest, len + 1, err, sizeof(err)),
			 -pte_invalid);
	assert_string_equal(err, "the line is too long");
	assert_int_equal(ctxterm_split(line, &t, rest, 10, err, sizeof(err)), -pte_invalid);
	assert_string_equal(err, "the line is too long");
	/* more words than CTXTERM_MAXW */
	for (len = 0, i = 0; i <= CTXTERM_MAXW; i++)
		len += (size_t)snprintf(line + len, sizeof(line) - len, "tip ");
	assert_int_equal(ctxterm_split(line, &t, rest, sizeof(rest), err, sizeof(err)),
			 -pte_invalid);
	assert_string_equal(err, "more than 127 words");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_terms),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_code),
		cmocka_unit_test(test_long),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
