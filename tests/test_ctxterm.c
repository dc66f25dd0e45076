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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_terms),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_code),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
