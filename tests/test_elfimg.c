/*
 * test_elfimg -- ELF files as code: segments, link base and build ID of a
 * program and a library built here with cc, and clear one-line errors for
 * what is not an ELF file, a truncated one and a wrong build ID.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <elf.h>
#include <cmocka.h>

#include "codefix.h"
#include "elfimg.h"
#include "ptdec.h"

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

/* Copy the first @n bytes of @from to @to. */
static void head(const char *from, const char *to, long n)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "head -c %ld '%s' > '%s'", n, from, to);
	assert_int_equal(system(cmd), 0);
}

static void test_null(void **state)
{
	struct elfimg *e;
	char err[256];

	(void)state;
	assert_int_equal(elfimg_open(NULL, fix.prog, err, sizeof(err)),
			 -pte_invalid);
	assert_int_equal(elfimg_open(&e, NULL, err, sizeof(err)),
			 -pte_invalid);
	elfimg_close(NULL);
}

static void test_missing(void **state)
{
	struct elfimg *e = (void *)1;
	char err[256], path[200];

	(void)state;
	snprintf(path, sizeof(path), "%s/nothere", fix.dir);
	assert_int_equal(elfimg_open(&e, path, err, sizeof(err)), -pte_io);
	assert_null(e);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "No such file"));
}

static void test_not_elf(void **state)
{
	struct elfimg *e;
	char err[256];

	(void)state;
	assert_int_equal(elfimg_open(&e, fix.src, err, sizeof(err)),
			 -pte_bad_file);
	assert_non_null(strstr(err, fix.src));
	assert_non_null(strstr(err, "not an ELF file"));
}

static void test_program(void **state)
{
	struct elfimg *e;
	const struct elfimg_seg *s;
	const uint8_t *id;
	char err[256], hex[160], want[160];
	unsigned long long main_addr = codefix_nm(fix.prog, "main");
	size_t i, n, nx = 0;
	int in_x = 0;

	(void)state;
	assert_int_equal(elfimg_open(&e, fix.prog, err, sizeof(err)), 0);
	assert_string_equal(elfimg_path(e), fix.prog);
	assert_int_equal(elfimg_type(e), ET_DYN);	/* a PIE */
	assert_int_equal(elfimg_link_base(e), 0);
	assert_true(elfimg_nsegs(e) >= 2);
	assert_null(elfimg_seg(e, elfimg_nsegs(e)));
	assert_true(main_addr != 0);
	for (i = 0; i < elfimg_nsegs(e); i++) {
		s = elfimg_seg(e, i);
		assert_true(s->filesz <= s->memsz);
		if (!(s->flags & PF_X))
			continue;
		nx++;
		in_x |= main_addr >= s->vaddr &&
			main_addr < s->vaddr + s->filesz;
	}
	assert_true(nx >= 1);
	assert_true(in_x);
	n = elfimg_build_id(e, &id);
	assert_int_equal(n, 20);
	assert_int_equal(codefix_build_id(fix.prog, want, sizeof(want)), 0);
	assert_string_equal(elfimg_hex(id, n, hex, sizeof(hex)), want);
	elfimg_close(e);
}

/* A vmlinux in small: .text at 0xffffffff81000000 and a per-CPU segment
 * linked at 0, as the kernel's linker script makes them. */
static void test_vmlinux_base(void **state)
{
	static const char src[] =
		"int percpu_var __attribute__((section(\".data..percpu\"))) = 1;\n"
		"void start_kernel(void) { for (;;); }\n";
	static const char lds[] =
		"ENTRY(start_kernel)\n"
		"PHDRS { text PT_LOAD FLAGS(5); percpu PT_LOAD FLAGS(6); }\n"
		"SECTIONS {\n"
		"\t. = 0xffffffff81000000;\n"
		"\t.text : { *(.text*) } :text\n"
		"\t.data..percpu 0 : AT(0x1000000) { *(.data..percpu) } :percpu\n"
		"}\n";
	char c[200], ld[200], o[200], k[200], cmd[1200], err[256];
	struct elfimg *e;

	(void)state;
	snprintf(c, sizeof(c), "%s/k.c", fix.dir);
	snprintf(ld, sizeof(ld), "%s/k.ld", fix.dir);
	snprintf(o, sizeof(o), "%s/k.o", fix.dir);
	snprintf(k, sizeof(k), "%s/vmlinux", fix.dir);
	assert_int_equal(codefix_write(c, src), 0);
	assert_int_equal(codefix_write(ld, lds), 0);
	snprintf(cmd, sizeof(cmd), "cc -c -O0 -fno-pic -mcmodel=kernel "
		 "-ffreestanding -o %s %s && ld -static -nostdlib -T %s -o %s %s",
		 o, c, ld, k, o);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(elfimg_open(&e, k, err, sizeof(err)), 0);
	assert_int_equal(elfimg_type(e), ET_EXEC);
	assert_int_equal(elfimg_nsegs(e), 2);
	/* the segment at 0 is there, but BASE means _text */
	assert_int_equal(elfimg_link_base(e), 0xffffffff81000000ull);
	elfimg_close(e);
}

static void test_build_id_check(void **state)
{
	struct elfimg *e;
	const uint8_t *id;
	uint8_t other[20], padded[20];
	char err[256];
	size_t n;

	(void)state;
	assert_int_equal(elfimg_open(&e, fix.lib, err, sizeof(err)), 0);
	n = elfimg_build_id(e, &id);
	assert_int_equal(n, 20);
	assert_int_equal(elfimg_check_build_id(e, id, n, err, sizeof(err)), 0);
	memcpy(other, id, n);
	other[3] ^= 0xff;
	assert_int_equal(elfimg_check_build_id(e, other, n, err, sizeof(err)),
			 -pte_bad_file);
	assert_non_null(strstr(err, fix.lib));
	assert_non_null(strstr(err, "build ID"));
	assert_non_null(strstr(err, "expected"));
	assert_null(strchr(err, '\n'));
	/* a shorter ID, zero-padded as perf pads it, matches its prefix only */
	memcpy(padded, id, 16);
	memset(padded + 16, 0, 4);
	assert_int_equal(elfimg_check_build_id(e, padded, 20, err, sizeof(err)),
			 -pte_bad_file);
	elfimg_close(e);
}

static void test_truncated(void **state)
{
	struct elfimg *e;
	char err[256], cut[200];

	(void)state;
	snprintf(cut, sizeof(cut), "%s/cut", fix.dir);
	/* the header itself cut */
	head(fix.prog, cut, 30);
	assert_int_equal(elfimg_open(&e, cut, err, sizeof(err)),
			 -pte_bad_file);
	assert_non_null(strstr(err, cut));
	assert_non_null(strstr(err, "truncated ELF"));
	/* headers there, the segments not */
	head(fix.prog, cut, 2000);
	assert_int_equal(elfimg_open(&e, cut, err, sizeof(err)),
			 -pte_bad_file);
	assert_non_null(strstr(err, cut));
	assert_non_null(strstr(err, "truncated ELF: offset 0x"));
	assert_non_null(strstr(err, "PT_LOAD"));
	assert_null(strchr(err, '\n'));
	/* empty */
	head(fix.prog, cut, 0);
	assert_int_equal(elfimg_open(&e, cut, err, sizeof(err)),
			 -pte_bad_file);
	assert_non_null(strstr(err, "empty file"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_not_elf),
		cmocka_unit_test(test_program),
		cmocka_unit_test(test_vmlinux_base),
		cmocka_unit_test(test_build_id_check),
		cmocka_unit_test(test_truncated),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
