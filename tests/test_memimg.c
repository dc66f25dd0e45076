/*
 * test_memimg -- code segments by address space: reads across and between
 * segments, later segments hiding earlier ones, address spaces, --raw
 * specs and their errors, what a segment would hide (mi_overlap()).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "memimg.h"
#include "ptdec.h"

static void test_null(void **state)
{
	struct mi *mi;
	uint8_t b[4];
	char err[256];

	(void)state;
	assert_int_equal(mi_new(NULL), -pte_invalid);
	assert_int_equal(mi_new(&mi), 0);
	assert_int_equal(mi_read(NULL, 0, 0, b, 4), -pte_invalid);
	assert_int_equal(mi_read(mi, 0, 0, NULL, 4), -pte_invalid);
	assert_int_equal(mi_add(mi, 0, 0, NULL, 4, "x"), -pte_invalid);
	assert_int_equal(mi_add(mi, 0, 0, b, 0, "x"), -pte_invalid);
	assert_int_equal(mi_add(mi, 0, UINT64_MAX - 1, b, 4, "x"), -pte_invalid);
	assert_int_equal(mi_add_raw(NULL, "a:1", err, sizeof(err)), -pte_invalid);
	assert_int_equal(mi_read(mi, 0, 0x1000, b, 4), -pte_nomap);
	assert_null(mi_name_at(mi, 0, 0x1000, NULL, NULL));
	assert_int_equal(mi_count(mi), 0);
	mi_free(mi);
	mi_free(NULL);
}

static void test_read(void **state)
{
	static const uint8_t a[] = { 1, 2, 3, 4 }, b[] = { 5, 6, 7, 8 };
	uint8_t buf[16];
	uint64_t s, e;
	struct mi *mi;

	(void)state;
	assert_int_equal(mi_new(&mi), 0);
	assert_int_equal(mi_add(mi, MI_ASID_ANY, 0x1000, a, 4, "a"), 0);
	assert_int_equal(mi_add(mi, MI_ASID_ANY, 0x1004, b, 4, "b"), 0);
	/* across two adjacent segments */
	assert_int_equal(mi_read(mi, 7, 0x1002, buf, 16), 6);
	assert_memory_equal(buf, "\3\4\5\6\7\10", 6);
	/* the end of the code stops a read */
	assert_int_equal(mi_read(mi, 7, 0x1007, buf, 16), 1);
	assert_int_equal(buf[0], 8);
	assert_int_equal(mi_read(mi, 7, 0x1008, buf, 16), -pte_nomap);
	assert_int_equal(mi_read(mi, 7, 0xfff, buf, 16), -pte_nomap);
	assert_string_equal(mi_name_at(mi, 3, 0x1005, &s, &e), "b");
	assert_true(s == 0x1004 && e == 0x1008);
	assert_int_equal(mi_count(mi), 2);
	mi_free(mi);
}

static void test_hide(void **state)
{
	static const uint8_t old[] = { 1, 1, 1, 1, 1, 1, 1, 1 }, new[] = { 2, 2 };
	uint8_t buf[8];
	struct mi *mi;

	(void)state;
	assert_int_equal(mi_new(&mi), 0);
	assert_int_equal(mi_add(mi, MI_ASID_ANY, 0x100, old, 8, "old"), 0);
	assert_int_equal(mi_add(mi, MI_ASID_ANY, 0x103, new, 2, "new"), 0);
	/* the newer segment hides the older one where they overlap */
	assert_int_equal(mi_read(mi, 0, 0x100, buf, 8), 8);
	assert_memory_equal(buf, "\1\1\1\2\2\1\1\1", 8);
	assert_string_equal(mi_name_at(mi, 0, 0x104, NULL, NULL), "new");
	assert_string_equal(mi_name_at(mi, 0, 0x105, NULL, NULL), "old");
	{
		uint64_t st, e, u;

		/* old's answer at 0x100 holds until new begins; new's to its
		 * end; old's past new to its own end */
		assert_string_equal(mi_name_span(mi, 0, 0x100, &st, &e, &u, NULL), "old");
		assert_int_equal(st, 0x100);
		assert_int_equal(e, 0x108);
		assert_int_equal(u, 0x103);
		assert_string_equal(mi_name_span(mi, 0, 0x103, NULL, NULL, &u, NULL), "new");
		assert_int_equal(u, 0x105);
		assert_string_equal(mi_name_span(mi, 0, 0x105, NULL, NULL, &u, NULL), "old");
		assert_int_equal(u, 0x108);
		assert_null(mi_name_span(mi, 0, 0x108, NULL, NULL, &u, NULL));
	}
	mi_free(mi);
}

static void test_asid(void **state)
{
	static const uint8_t p1[] = { 0x11 }, p2[] = { 0x22 }, k[] = { 0x33 };
	uint8_t buf[1];
	struct mi *mi;

	(void)state;
	assert_int_equal(mi_new(&mi), 0);
	assert_int_equal(mi_add(mi, 1, 0x400000, p1, 1, "p1"), 0);
	assert_int_equal(mi_add(mi, 2, 0x400000, p2, 1, "p2"), 0);
	assert_int_equal(mi_add(mi, MI_ASID_ANY, 0xffffffff81000000ull, k, 1, "k"), 0);
	assert_int_equal(mi_read(mi, 1, 0x400000, buf, 1), 1);
	assert_int_equal(buf[0], 0x11);
	assert_int_equal(mi_read(mi, 2, 0x400000, buf, 1), 1);
	assert_int_equal(buf[0], 0x22);
	assert_int_equal(mi_read(mi, 3, 0x400000, buf, 1), -pte_nomap);
	/* the kernel in every address space */
	assert_int_equal(mi_read(mi, 3, 0xffffffff81000000ull, buf, 1), 1);
	assert_int_equal(buf[0], 0x33);
	mi_free(mi);
}

static char dir[64];

static void make_file(const char *name, size_t n)
{
	char path[128];
	FILE *f;
	size_t i;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	assert_non_null(f);
	for (i = 0; i < n; i++)
		fputc((int)(i & 0xff), f);
	fclose(f);
}

static void test_raw(void **state)
{
	char spec[256], err[512];
	uint8_t buf[4];
	struct mi *mi;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_memimg.XXXXXX");
	assert_non_null(mkdtemp(dir));
	make_file("a.bin", 4096);
	make_file("b.bin", 16);
	make_file("empty.bin", 0);
	assert_int_equal(mi_new(&mi), 0);

	snprintf(spec, sizeof(spec), "%s/a.bin:0x400000", dir);
	assert_int_equal(mi_add_raw(mi, spec, err, sizeof(err)), 0);
	assert_int_equal(mi_read(mi, 5, 0x400010, buf, 4), 4);
	assert_memory_equal(buf, "\x10\x11\x12\x13", 4);

	/* overlapping --raw: refused, both files named */
	snprintf(spec, sizeof(spec), "%s/b.bin:0x400ff8", dir);
	assert_int_equal(mi_add_raw(mi, spec, err, sizeof(err)), -pte_invalid);
	assert_non_null(strstr(err, "b.bin at 0x400ff8-0x401007 overlaps"));
	assert_non_null(strstr(err, "a.bin at 0x400000-0x400fff"));
	/* adjacent is fine, decimal too */
	snprintf(spec, sizeof(spec), "%s/b.bin:%d", dir, 0x401000);
	assert_int_equal(mi_add_raw(mi, spec, err, sizeof(err)), 0);

	/* a missing file */
	snprintf(spec, sizeof(spec), "%s/none.bin:0x1000", dir);
	assert_int_equal(mi_add_raw(mi, spec, err, sizeof(err)), -pte_io);
	assert_non_null(strstr(err, "none.bin: No such file or directory"));
	/* bad addresses */
	snprintf(spec, sizeof(spec), "%s/b.bin:0x12zz", dir);
	assert_int_equal(mi_add_raw(mi, spec, err, sizeof(err)), -pte_invalid);
	assert_non_null(strstr(err, "bad address '0x12zz'"));
	snprintf(spec, sizeof(spec), "%s/b.bin:-5", dir);
	assert_int_equal(mi_add_raw(mi, spec, err, sizeof(err)), -pte_invalid);
	snprintf(spec, sizeof(spec), "%s/b.bin:0xffffffffffffffff", dir);
	assert_int_equal(mi_add_raw(mi, spec, err, sizeof(err)), -pte_invalid);
	assert_non_null(strstr(err, "past the end of the address space"));
	/* no address at all */
	snprintf(spec, sizeof(spec), "%s/b.bin", dir);
	assert_int_equal(mi_add_raw(mi, spec, err, sizeof(err)), -pte_invalid);
	assert_non_null(strstr(err, "expected FILE:ADDR"));
	/* an empty file, a directory */
	snprintf(spec, sizeof(spec), "%s/empty.bin:0x9000", dir);
	assert_int_equal(mi_add_raw(mi, spec, err, sizeof(err)), -pte_invalid);
	assert_non_null(strstr(err, "empty file"));
	snprintf(spec, sizeof(spec), "%s:0x9000", dir);
	assert_int_equal(mi_add_raw(mi, spec, err, sizeof(err)), -pte_invalid);
	assert_non_null(strstr(err, "not a regular file"));
	assert_int_equal(mi_count(mi), 2);

	/* what added code would hide: the newest overlapping segment, and
	 * whether it is a dump */
	{
		static const uint8_t code[16];
		uint64_t st = 0, en = 0;
		int dump = -1;
		const char *n;

		n = mi_overlap(mi, 7, 0x400ff0, 0x401001, &st, &en, &dump);
		assert_non_null(n);
		assert_non_null(strstr(n, "b.bin"));
		assert_true(st == 0x401000 && en == 0x401010 && dump == 1);
		assert_null(mi_overlap(mi, 7, 0x401010, 0x402000, NULL, NULL, NULL));
		assert_null(mi_overlap(mi, 7, 0x400010, 0x400010, NULL, NULL, NULL));
		assert_int_equal(mi_add(mi, 9, 0x500000, code, 16, "elf"), 0);
		assert_null(mi_overlap(mi, 8, 0x500000, 0x500001, NULL, NULL, NULL));
		assert_string_equal(mi_overlap(mi, 9, 0x50000f, 0x500010, NULL,
					       NULL, &dump), "elf");
		assert_int_equal(dump, 0);
	}
	mi_free(mi);

	snprintf(spec, sizeof(spec), "rm -rf '%s'", dir);
	assert_int_equal(system(spec), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_hide),
		cmocka_unit_test(test_asid),
		cmocka_unit_test(test_raw),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
