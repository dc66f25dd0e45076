/*
 * test_memimg -- code segments by address space: reads across and between
 * segments, later segments hiding earlier ones, address spaces, --raw
 * specs and their errors, what a segment would hide (mi_overlap()); the
 * index look-ups use against a walk over every segment, and its cost.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
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

/* The rules look-ups keep, as a walk over every segment (memimg.c before
 * its index): the newest segment of @asid or of every space at @ip. */
struct ref_seg {
	uint64_t asid, addr, end, file_off;
	const uint8_t *data;
	char name[16];
};

static struct ref_seg refs[400];
static size_t nrefs;

static int ref_match(const struct ref_seg *s, uint64_t asid)
{
	return s->asid == MI_ASID_ANY || asid == MI_ASID_ANY || s->asid == asid;
}

static long ref_find(uint64_t asid, uint64_t ip)
{
	size_t i;

	for (i = nrefs; i-- > 0;)
		if (ip >= refs[i].addr && ip < refs[i].end &&
		    ref_match(&refs[i], asid))
			return (long)i;
	return -1;
}

/* As mi_read(): byte by byte, the newest segment holding each. */
static int ref_read(uint64_t asid, uint64_t ip, uint8_t *buf, size_t size)
{
	size_t done;

	for (done = 0; done < size; done++) {
		long i = ref_find(asid, ip + done);

		if (i < 0 || ip + done < ip)
			break;
		buf[done] = refs[i].data[ip + done - refs[i].addr];
	}
	return done ? (int)done : -pte_nomap;
}

/* As mi_name_span()'s *until: the segment's end, or where any other
 * segment of any space begins inside it. */
static uint64_t ref_until(long i, uint64_t ip)
{
	uint64_t u = refs[i].end;
	size_t j;

	for (j = 0; j < nrefs; j++)
		if ((long)j != i && refs[j].addr > ip && refs[j].addr < u)
			u = refs[j].addr;
	return u;
}

static uint64_t rnd_state;

static uint64_t rnd(uint64_t n)
{
	rnd_state = rnd_state * 6364136223846793005ull + 1442695040888963407ull;
	return (rnd_state >> 33) % n;
}

static const uint64_t asids[] = { 0, 1, 2, 3, 0x1234, MI_ASID_ANY };

/* Compare reads and names at random places, in random spaces, with the
 * walk; @base is where the segments lie. */
static void check_random_reads(struct mi *mi, uint64_t base, int nq)
{
	static uint8_t got[128], want[128];
	uint64_t st, en, un, off;
	int q;

	for (q = 0; q < nq; q++) {
		uint64_t asid = asids[rnd(6)], ip = base - 16 + rnd(640);
		size_t size = 1 + (size_t)rnd(sizeof(got));
		int n = mi_read(mi, asid, ip, got, size);
		const char *name = mi_name_span(mi, asid, ip, &st, &en, &un, &off);
		long i = ref_find(asid, ip);

		assert_int_equal(n, ref_read(asid, ip, want, size));
		if (n > 0)
			assert_memory_equal(got, want, (size_t)n);
		if (i < 0) {
			assert_null(name);
			continue;
		}
		assert_non_null(name);
		assert_string_equal(name, refs[i].name);
		assert_true(st == refs[i].addr && en == refs[i].end);
		assert_true(off == refs[i].file_off);
		assert_true(un == ref_until(i, ip));
	}
}

/* Overlapping segments of a few address spaces and of every one, added
 * in turn with look-ups (so that both the index and the segments added
 * since it was built answer): the same bytes and names as the walk,
 * across segment boundaries and gaps, at the top of the address space
 * too. */
static void test_index_random(void **state)
{
	static uint8_t pool[400][64];
	int round;

	(void)state;
	for (round = 0; round < 60; round++) {
		uint64_t base = round % 3 == 2 ? UINT64_MAX - 600 : 0x10000;
		size_t want, k;
		struct mi *mi;

		rnd_state = (uint64_t)round * 7919 + 1;
		want = 1 + (size_t)rnd(round < 30 ? 40 : 400);
		assert_int_equal(mi_new(&mi), 0);
		nrefs = 0;
		while (nrefs < want) {
			struct ref_seg *r = &refs[nrefs];
			uint64_t size = 1 + rnd(rnd(4) ? 24 : 64);

			r->asid = asids[1 + rnd(5)];
			r->addr = base + rnd(600 - size);
			r->end = r->addr + size;
			r->file_off = rnd(0x10000);
			r->data = pool[nrefs];
			for (k = 0; k < 64; k++)
				pool[nrefs][k] = (uint8_t)rnd(256);
			snprintf(r->name, sizeof(r->name), "s%zu", nrefs);
			assert_int_equal(mi_add_file(mi, r->asid, r->addr, r->data,
						     size, r->name, r->file_off), 0);
			nrefs++;
			if (!rnd(8))
				check_random_reads(mi, base, 20);
		}
		assert_int_equal(mi_count(mi), nrefs);
		check_random_reads(mi, base, 2000);
		mi_free(mi);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_hide),
		cmocka_unit_test(test_asid),
		cmocka_unit_test(test_raw),
		cmocka_unit_test(test_index_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
