/*
 * test_symfmt -- IPs as the browser shows them, over an image set of a
 * program built here (tests/codefix.h): "function+0xoff" as nm places the
 * functions, hex on request and where nothing is known, a code segment
 * without symbols named after its file, source lines from DWARF (libdw
 * builds), and the caches answering the second time.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "codefix.h"
#include "imgopt.h"
#include "memimg.h"
#include "ptdec.h"
#include "symfmt.h"

static struct codefix fix;

static int setup(void **state)
{
	(void)state;
	return codefix_build(&fix);
}

static int teardown(void **state)
{
	(void)state;
	codefix_clean(&fix);
	return 0;
}

/* The image set of the program at its own addresses, plus a raw dump of
 * 64 bytes at 0x10000 (code without symbols) and kernel symbols naming
 * its second half "kfunc" (symbols without code), and the dump again at
 * 0x30000 (no symbol near). */
static struct imgset *load(struct mi **mi, char *dump)
{
	static char ksyms[200];
	struct imgopt o;
	struct imgset *s;
	char err[256], spec[256];
	FILE *f;

	snprintf(ksyms, sizeof(ksyms), "%s/kallsyms", fix.dir);
	f = fopen(ksyms, "w");
	assert_non_null(f);
	fputs("0000000000010020 T kfunc\n", f);
	assert_int_equal(fclose(f), 0);

	snprintf(dump, 200, "%s/dump.bin", fix.dir);
	f = fopen(dump, "wb");
	assert_non_null(f);
	for (int i = 0; i < 64; i++)
		fputc(0x90, f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(mi_new(mi), 0);
	snprintf(spec, sizeof(spec), "%s:0x10000", dump);
	assert_int_equal(mi_add_raw(*mi, spec, err, sizeof(err)), 0);
	/* and again at 0x30000, far from any symbol */
	snprintf(spec, sizeof(spec), "%s:0x30000", dump);
	assert_int_equal(mi_add_raw(*mi, spec, err, sizeof(err)), 0);
	imgopt_init(&o);
	o.elf = calloc(1, sizeof(*o.elf));
	o.elf[0] = fix.prog;
	o.nelf = 1;
	o.kallsyms = ksyms;
	o.mi = *mi;
	assert_int_equal(imgopt_load(&s, &o, NULL, err, sizeof(err)), 0);
	imgopt_release(&o);
	return s;
}

static void test_null(void **state)
{
	struct symfmt *sf;
	struct symfmt_fn fn;
	char buf[32];

	(void)state;
	symfmt_free(NULL);
	assert_int_equal(symfmt_new(NULL, NULL), -pte_invalid);
	assert_int_equal(symfmt_function(NULL, 0, 0, &fn), -pte_invalid);
	assert_string_equal(symfmt_ip(NULL, 0, 0x1234, 0, buf, sizeof(buf)), "");
	assert_int_equal(symfmt_srcline(NULL, 0, 0, 0, buf, sizeof(buf)), -pte_invalid);
	/* no image set: everything is hex, nothing has a line */
	assert_int_equal(symfmt_new(&sf, NULL), 0);
	assert_int_equal(symfmt_function(sf, 0, 0x1234, &fn), 0);
	assert_int_equal(fn.kind, SYMFMT_NONE);
	assert_string_equal(fn.name, "(unknown)");
	assert_string_equal(symfmt_ip(sf, 0, 0x1234, 0, buf, sizeof(buf)),
			    "0000000000001234");
	assert_string_equal(symfmt_ip(sf, 0, 0x1234, 0, buf, 5), "0000");
	assert_int_equal(symfmt_srcline(sf, 0, 0x1234, 0, buf, sizeof(buf)),
			 -pte_invalid);
	assert_string_equal(buf, "");
	symfmt_free(sf);
}

static void test_names(void **state)
{
	unsigned long long main_addr = codefix_nm(fix.prog, "main");
	unsigned long long rec = codefix_nm(fix.prog, "recurse");
	struct symfmt_stats st;
	struct symfmt_fn fn;
	struct symfmt *sf;
	struct imgset *s;
	struct mi *mi;
	char buf[64], dump[200];

	(void)state;
	assert_true(main_addr && rec);
	s = load(&mi, dump);
	assert_int_equal(symfmt_new(&sf, s), 0);
	assert_string_equal(symfmt_ip(sf, 0, main_addr + 4, 0, buf, sizeof(buf)),
			    "main+0x4");
	assert_string_equal(symfmt_ip(sf, 0, main_addr, 0, buf, sizeof(buf)),
			    "main+0x0");
	assert_string_equal(symfmt_ip(sf, 0, rec + 1, 0, buf, sizeof(buf)),
			    "recurse+0x1");
	snprintf(dump, sizeof(dump), "%016llx", main_addr + 4);
	assert_string_equal(symfmt_ip(sf, 0, main_addr + 4, 1, buf, sizeof(buf)),
			    dump);
	assert_int_equal(symfmt_function(sf, 0, rec + 2, &fn), 0);
	assert_int_equal(fn.kind, SYMFMT_FUNC);
	assert_string_equal(fn.name, "recurse");
	assert_int_equal(fn.start, rec);
	assert_true(fn.end > rec + 2);
	/* a dump without symbols: its file */
	assert_int_equal(symfmt_function(sf, 0, 0x10010, &fn), 0);
	assert_int_equal(fn.kind, SYMFMT_SEGMENT);
	assert_string_equal(fn.name, "dump.bin");
	assert_int_equal(fn.start, 0x10000);
	assert_int_equal(fn.end, 0x10040);
	assert_string_equal(symfmt_ip(sf, 0, 0x10010, 0, buf, sizeof(buf)),
			    "dump.bin+0x10");
	/* kfunc begins inside: the answer holds for 0x10010 alone */
	assert_int_equal(fn.until, 0x10011);
	/* no symbol in the other copy: the answer holds to its end */
	assert_int_equal(symfmt_function(sf, 0, 0x30010, &fn), 0);
	assert_int_equal(fn.kind, SYMFMT_SEGMENT);
	assert_int_equal(fn.end, 0x30040);
	assert_int_equal(fn.until, 0x30040);
	/* a function's answer holds to its end */
	assert_int_equal(symfmt_function(sf, 0, rec + 2, &fn), 0);
	assert_int_equal(fn.until, fn.end);
	/* a symbol in the segment's range, in the same cache slot: its own */
	assert_string_equal(symfmt_ip(sf, 0, 0x10020, 0, buf, sizeof(buf)),
			    "kfunc+0x0");
	assert_string_equal(symfmt_ip(sf, 0, 0x10010, 0, buf, sizeof(buf)),
			    "dump.bin+0x10");
	assert_string_equal(symfmt_ip(sf, 0, 0x10021, 0, buf, sizeof(buf)),
			    "kfunc+0x1");
	/* nothing there */
	assert_int_equal(symfmt_function(sf, 0, 0x20000, &fn), 0);
	assert_int_equal(fn.kind, SYMFMT_NONE);
	assert_string_equal(symfmt_ip(sf, 0, 0x20000, 0, buf, sizeof(buf)),
			    "0000000000020000");
	/* again: from the cache, the same answers */
	assert_string_equal(symfmt_ip(sf, 0, main_addr + 4, 0, buf, sizeof(buf)),
			    "main+0x4");
	assert_string_equal(symfmt_ip(sf, 0, main_addr + 5, 0, buf, sizeof(buf)),
			    "main+0x5");
	symfmt_stats(sf, &st);
	assert_true(st.fn_hits >= 2);
	assert_true(st.fn_lookups > st.fn_hits);
	symfmt_free(sf);
	imgopt_free(s);
	mi_free(mi);
}

static void test_srcline(void **state)
{
	unsigned long long main_addr = codefix_nm(fix.prog, "main");
	struct symfmt_stats st;
	struct symfmt *sf;
	struct imgset *s;
	struct mi *mi;
	char buf[256], want[256], dump[200];

	(void)state;
	s = load(&mi, dump);
	assert_int_equal(symfmt_new(&sf, s), 0);
#ifdef HAVE_LIBDW
	/* main's first line: its name's or its brace's */
	assert_int_equal(symfmt_srcline(sf, 0, main_addr, 0, buf, sizeof(buf)), 0);
	snprintf(want, sizeof(want), "%s:%d", fix.src, CODEFIX_MAIN_LINE);
	if (strcmp(buf, want))
		snprintf(want, sizeof(want), "%s:%d", fix.src, CODEFIX_MAIN_LINE + 1);
	assert_string_equal(buf, want);
	/* brief: the last two components ("ptb-codefix-XXXXXX/prog.c:N") */
	assert_int_equal(symfmt_srcline(sf, 0, main_addr, 1, buf, sizeof(buf)), 0);
	assert_string_equal(buf, want + (strrchr(fix.dir, '/') + 1 - fix.dir));
	symfmt_stats(sf, &st);
	assert_int_equal(st.line_hits, 1);
#else
	(void)want;
	(void)st;
	assert_int_equal(symfmt_srcline(sf, 0, main_addr, 0, buf, sizeof(buf)),
			 -pte_invalid);
#endif
	/* the dump has no DWARF */
	assert_int_equal(symfmt_srcline(sf, 0, 0x10010, 0, buf, sizeof(buf)),
			 -pte_invalid);
	assert_string_equal(buf, "");
	symfmt_free(sf);
	imgopt_free(s);
	mi_free(mi);
}

/* Nested functions through the cache: the answer for an IP does not
 * depend on what was asked before (an outer function's answer, cached,
 * once held for the inner one's IPs in the same 64-byte line). */
static void test_nested_cached(void **state)
{
	static const char *const order[2][3] = {
		{ "0x18", "0x08", "0x18" }, { "0x08", "0x18", "0x28" },
	};
	struct symfmt_fn fn;
	struct symfmt *sf;
	struct imgset *s;
	struct imgopt o;
	char src[200], elf[200], buf[64], err[256];
	unsigned long long outer;
	int r, i;

	(void)state;
	snprintf(src, sizeof(src), "%s/nested.S", fix.dir);
	snprintf(elf, sizeof(elf), "%s/nested", fix.dir);
	assert_int_equal(codefix_nested(src, elf), 0);
	outer = codefix_nm(elf, "outer");
	imgopt_init(&o);
	o.elf = calloc(1, sizeof(*o.elf));
	o.elf[0] = elf;
	o.nelf = 1;
	assert_int_equal(imgopt_load(&s, &o, NULL, err, sizeof(err)), 0);
	for (r = 0; r < 2; r++) {
		assert_int_equal(symfmt_new(&sf, s), 0);
		for (i = 0; i < 3; i++) {
			uint64_t off = strtoull(order[r][i], NULL, 16);
			const char *want = off >= 0x10 && off < 0x20 ? "inner" : "outer";
			char exp[64];

			snprintf(exp, sizeof(exp), "%s+0x%llx", want,
				 (unsigned long long)(off >= 0x10 && off < 0x20 ?
						      off - 0x10 : off));
			assert_string_equal(symfmt_ip(sf, MI_ASID_ANY, outer + off, 0,
						      buf, sizeof(buf)), exp);
		}
		/* the answer's reach stops at the nested function */
		assert_int_equal(symfmt_function(sf, MI_ASID_ANY, outer + 8, &fn), 0);
		assert_int_equal(fn.until, outer + 0x10);
		symfmt_free(sf);
	}
	imgopt_free(s);
	imgopt_release(&o);
}

/* A segment of one address space names no IP of another: process B's
 * code at the address of A's mapping is not "A+0x10".  A segment of
 * every space (a raw dump) names it in each. */
static void test_other_space(void **state)
{
	static const uint8_t code[64];
	struct symfmt *sf;
	struct imgset *s;
	struct imgopt o;
	struct mi *mi;
	char buf[64], err[256];

	(void)state;
	assert_int_equal(mi_new(&mi), 0);
	assert_int_equal(mi_add(mi, 7, 0x50000, code, sizeof(code), "/bin/A"), 0);
	assert_int_equal(mi_add(mi, MI_ASID_ANY, 0x60000, code, sizeof(code),
				"/dump"), 0);
	imgopt_init(&o);
	o.mi = mi;
	assert_int_equal(imgopt_load(&s, &o, NULL, err, sizeof(err)), 0);
	assert_int_equal(symfmt_new(&sf, s), 0);
	assert_string_equal(symfmt_ip(sf, 7, 0x50010, 0, buf, sizeof(buf)), "A+0x10");
	assert_string_equal(symfmt_ip(sf, 8, 0x50010, 0, buf, sizeof(buf)),
			    "0000000000050010");
	assert_string_equal(symfmt_ip(sf, 0, 0x50010, 0, buf, sizeof(buf)),
			    "0000000000050010");
	assert_string_equal(symfmt_ip(sf, 8, 0x60010, 0, buf, sizeof(buf)), "dump+0x10");
	assert_string_equal(symfmt_ip(sf, 7, 0x60010, 0, buf, sizeof(buf)), "dump+0x10");
	symfmt_free(sf);
	imgopt_free(s);
	imgopt_release(&o);
	mi_free(mi);
}

/* Code without symbols is named by its file offset: a mapping loaded
 * from page offset 0x26000 (libc's text) names 0x10 past its start
 * "libc.so.6+0x26010", as objdump and perf do; a dump (offset 0) by the
 * offset from its address. */
static void test_file_offset(void **state)
{
	static const uint8_t code[64];
	struct symfmt_fn fn;
	struct symfmt *sf;
	struct imgset *s;
	struct imgopt o;
	struct mi *mi;
	uint64_t off = 1;
	char buf[64], err[256];

	(void)state;
	assert_int_equal(mi_new(&mi), 0);
	assert_int_equal(mi_add_file(mi, 7, 0x7ffff7df4000, code, sizeof(code),
				     "/usr/lib/libc.so.6", 0x26000), 0);
	assert_int_equal(mi_add(mi, MI_ASID_ANY, 0x60000, code, sizeof(code),
				"/dump"), 0);
	assert_non_null(mi_name_span(mi, 7, 0x7ffff7df4010, NULL, NULL, NULL, &off));
	assert_int_equal(off, 0x26000);
	assert_non_null(mi_name_span(mi, 7, 0x60010, NULL, NULL, NULL, &off));
	assert_int_equal(off, 0);
	imgopt_init(&o);
	o.mi = mi;
	assert_int_equal(imgopt_load(&s, &o, NULL, err, sizeof(err)), 0);
	assert_int_equal(symfmt_new(&sf, s), 0);
	assert_string_equal(symfmt_ip(sf, 7, 0x7ffff7df4010, 0, buf, sizeof(buf)),
			    "libc.so.6+0x26010");
	/* again, from the cache */
	assert_string_equal(symfmt_ip(sf, 7, 0x7ffff7df4010, 0, buf, sizeof(buf)),
			    "libc.so.6+0x26010");
	assert_int_equal(symfmt_function(sf, 7, 0x7ffff7df4020, &fn), 0);
	assert_int_equal(fn.kind, SYMFMT_SEGMENT);
	assert_int_equal(fn.start, 0x7ffff7df4000);
	assert_int_equal(fn.file_off, 0x26000);
	assert_string_equal(symfmt_ip(sf, 7, 0x60010, 0, buf, sizeof(buf)), "dump+0x10");
	symfmt_free(sf);
	imgopt_free(s);
	imgopt_release(&o);
	mi_free(mi);
}

/* symfmt_fit(): the packet pane's and the code view's one rule for a
 * function in a column -- the name's head, "..", the whole offset. */
static void test_fit(void **state)
{
	char buf[18];

	(void)state;
	assert_int_equal(symfmt_fit("main+0x0", 17, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "main+0x0");
	assert_int_equal(symfmt_fit("a_long_function_name+0x1234", 17, buf,
				    sizeof(buf)), 0);
	assert_string_equal(buf, "a_long_f..+0x1234");
	/* a name of control bytes is shown as '?', not sent to the terminal */
	assert_int_equal(symfmt_fit("a\x1b[2Jb+0x1", 17, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "a?[2Jb+0x1");
	/* no name, no offset, not one letter of the name: nothing */
	assert_int_equal(symfmt_fit("+0x10", 17, buf, sizeof(buf)), -pte_invalid);
	assert_string_equal(buf, "");
	assert_int_equal(symfmt_fit("0000000000001234", 17, buf, sizeof(buf)),
			 -pte_invalid);
	assert_int_equal(symfmt_fit("function+0x123456789", 12, buf, sizeof(buf)),
			 -pte_invalid);
	assert_int_equal(symfmt_fit("main+0x0", 18, buf, sizeof(buf)), -pte_invalid);
	assert_int_equal(symfmt_fit(NULL, 17, buf, sizeof(buf)), -pte_invalid);
	assert_int_equal(symfmt_fit("main+0x0", 17, NULL, 0), -pte_invalid);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_srcline),
		cmocka_unit_test(test_other_space),
		cmocka_unit_test(test_file_offset),
		cmocka_unit_test(test_nested_cached),
		cmocka_unit_test(test_fit),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
