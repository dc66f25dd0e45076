/*
 * test_kmod -- a kernel module's text as the kernel runs it: a
 * relocatable object built here with cc (a .ko is one), laid out as the
 * module loader lays it out (.text, then .text.unlikely aligned, .init.text
 * left out), its calls relocated to its own functions and, through
 * kallsyms, to the kernel's, its `call __fentry__` made NOPs; a branch to
 * a kernel function kallsyms does not name, or no kallsyms, refuses it;
 * not a relocatable file, and a wrong build ID, are refused in one line;
 * a damaged module (a relocation or a section size that wraps) is refused,
 * not laid out past its buffer.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <elf.h>

#include "codefix.h"
#include "kmod.h"
#include "ptdec.h"
#include "symtab.h"

#define KBASE 0xffffffffc0001000ull
#define KFUNC 0xffffffff81234560ull

static struct codefix fix;
static char ko[200], kallsyms[200], partial[200];

static const char mod_src[] =
	"extern int kfunc(int);\n"
	"__attribute__((noinline)) int mod_helper(int x) { return x + 1; }\n"
	"__attribute__((noinline, cold, section(\".text.unlikely\")))\n"
	"int mod_cold(int x) { return x * 7; }\n"
	"int mod_entry(int x) { return kfunc(x) + mod_helper(x) + mod_cold(x); }\n"
	"__attribute__((section(\".init.text\"))) int mod_init(void)\n"
	"{ return mod_entry(1); }\n";

static int setup(void **state)
{
	char src[200];
	FILE *f;

	(void)state;
	if (codefix_build(&fix))
		return -1;
	snprintf(src, sizeof(src), "%s/mod.c", fix.dir);
	snprintf(ko, sizeof(ko), "%s/fix.ko", fix.dir);
	snprintf(kallsyms, sizeof(kallsyms), "%s/kallsyms", fix.dir);
	snprintf(partial, sizeof(partial), "%s/kallsyms.partial", fix.dir);
	if (codefix_write(src, mod_src) ||
	    codefix_sh("cc -c -O1 -fno-pic -pg -mfentry -fno-asynchronous-unwind-tables "
		       "-o %s %s", ko, src))
		return -1;
	f = fopen(kallsyms, "w");
	if (!f)
		return -1;
	fprintf(f, "ffffffff81000000 T _text\nffffffff81234560 T kfunc\n"
		"ffffffff81300000 T __fentry__\n");
	fclose(f);
	f = fopen(partial, "w");
	if (!f)
		return -1;
	fprintf(f, "ffffffff81000000 T _text\n");
	fclose(f);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	codefix_clean(&fix);
	return 0;
}

static struct kmod_names *names_of(const char *path, struct symtab **st)
{
	struct kmod_names *n;
	char err[256];

	assert_int_equal(symtab_from_kallsyms(st, path, err, sizeof(err)), 0);
	assert_int_equal(kmod_names_new(&n, *st), 0);
	return n;
}

/* The target of the call at @at of @text. */
static uint64_t call_target(const uint8_t *text, uint64_t base, uint64_t at)
{
	int32_t d;

	assert_int_equal(text[at], 0xe8);
	memcpy(&d, text + at + 1, 4);
	return base + at + 5 + (uint64_t)(int64_t)d;
}

static void test_layout_and_relocations(void **state)
{
	struct symtab *st;
	struct kmod_names *n = names_of(kallsyms, &st);
	struct kmod *k;
	const uint8_t *text;
	uint64_t addr, helper, cold, entry;
	size_t len, ncalls = 0;
	char err[256];
	int kf = 0, hf = 0, cf = 0;
	static const uint8_t nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

	(void)state;
	assert_int_equal(kmod_load(&k, ko, KBASE, n, NULL, 0, err, sizeof(err)), 0);
	len = kmod_text(k, &addr, &text);
	assert_int_equal(addr, KBASE);
	helper = kmod_symbol(k, "mod_helper");
	cold = kmod_symbol(k, "mod_cold");
	entry = kmod_symbol(k, "mod_entry");
	/* .text first, .text.unlikely after it, .init.text not there */
	assert_int_equal(helper, KBASE + codefix_nm(ko, "mod_helper"));
	assert_true(cold > entry && cold < KBASE + len);
	assert_int_equal(kmod_symbol(k, "mod_init"), 0);
	/* ftrace's call sites are NOPs */
	assert_memory_equal(text + (helper - KBASE), nop5, 5);
	assert_memory_equal(text + (entry - KBASE), nop5, 5);
	/* the calls go where the kernel's loader sends them */
	/* each call where readelf -r puts its relocation in .text (which is
	 * at the start of the text): to where the loader sends it */
	{
		char cmd[300], line[512], sec[64] = "", type[64], name[128];
		unsigned long long off;
		FILE *p;

		snprintf(cmd, sizeof(cmd), "readelf -rW '%s'", ko);
		p = popen(cmd, "r");
		assert_non_null(p);
		while (fgets(line, sizeof(line), p)) {
			uint64_t t;

			if (sscanf(line, "Relocation section '%63[^']'", sec) == 1)
				continue;
			if (strcmp(sec, ".rela.text") ||
			    sscanf(line, "%llx %*s %63s %*s %127s", &off, type, name) != 3 ||
			    strcmp(type, "R_X86_64_PLT32") || !strcmp(name, "__fentry__"))
				continue;
			t = call_target(text, KBASE, off - 1);
			kf |= !strcmp(name, "kfunc") && t == KFUNC;
			hf |= !strcmp(name, "mod_helper") && t == helper;
			cf |= !strcmp(name, "mod_cold") && t == cold;
			ncalls++;
		}
		pclose(p);
	}
	assert_true(kf && hf && cf);
	assert_int_equal(ncalls, 3);
	kmod_free(k);
	kmod_free(NULL);

	/* no kallsyms, or one without kfunc: refused, the branch named */
	assert_int_equal(kmod_load(&k, ko, KBASE, NULL, NULL, 0, err, sizeof(err)),
			 -pte_bad_file);
	assert_non_null(strstr(err, "'kfunc', which needs --kallsyms"));
	assert_non_null(strstr(err, ko));
	kmod_names_free(n);
	symtab_free(st);
	n = names_of(partial, &st);
	assert_int_equal(kmod_load(&k, ko, KBASE, n, NULL, 0, err, sizeof(err)),
			 -pte_bad_file);
	assert_non_null(strstr(err, "'kfunc', which kallsyms does not name"));
	kmod_names_free(n);
	symtab_free(st);
}

/* A kernel function whose name lost to an alias at its address (the
 * first in kallsyms: __pi___x86_return_thunk before __x86_return_thunk
 * on 6.x kernels), or that another module exports ("kfunc\t[kvm]"), is
 * still found by the name the module's relocation gives. */
static void test_alias_and_module_names(void **state)
{
	static const char *const files[] = {
		"ffffffff81000000 T _text\nffffffff81234560 T __pi_kfunc\n"
		"ffffffff81234560 T kfunc\nffffffff81300000 T __fentry__\n",
		"ffffffff81000000 T _text\nffffffff81234560 T kfunc\t[kvm]\n"
		"ffffffff81300000 T __fentry__\n",
	};
	char path[200], err[256];
	struct kmod_names *n;
	struct symtab *st;
	struct kmod *k;
	size_t i;

	(void)state;
	snprintf(path, sizeof(path), "%s/kallsyms.alias", fix.dir);
	for (i = 0; i < sizeof(files) / sizeof(*files); i++) {
		FILE *f = fopen(path, "w");

		assert_non_null(f);
		fputs(files[i], f);
		fclose(f);
		n = names_of(path, &st);
		err[0] = 0;
		assert_int_equal(kmod_load(&k, ko, KBASE, n, NULL, 0, err,
					   sizeof(err)), 0);
		kmod_free(k);
		kmod_names_free(n);
		symtab_free(st);
	}
}

static void test_refused(void **state)
{
	struct kmod *k = NULL;
	char err[256];
	uint8_t bid[20] = { 1, 2, 3 };

	(void)state;
	assert_int_equal(kmod_load(NULL, ko, KBASE, NULL, NULL, 0, err, sizeof(err)),
			 -pte_invalid);
	assert_int_equal(kmod_load(&k, fix.prog, KBASE, NULL, NULL, 0, err, sizeof(err)),
			 -pte_bad_file);
	assert_non_null(strstr(err, "not a relocatable x86-64 ELF file"));
	assert_int_equal(kmod_load(&k, "/nonexistent.ko", KBASE, NULL, NULL, 0, err,
				   sizeof(err)), -pte_io);
	assert_non_null(strstr(err, "/nonexistent.ko: No such file"));
	assert_int_equal(kmod_load(&k, ko, KBASE, NULL, bid, sizeof(bid), err,
				   sizeof(err)), -pte_bad_file);
	assert_non_null(strstr(err, "not the recorded build ID"));
	assert_int_equal(kmod_names_new(NULL, NULL), -pte_invalid);
}

/* The fixture's module read into memory (*@len bytes), its section
 * headers at *@sh (*@nsec of them). */
static uint8_t *ko_read(size_t *len, Elf64_Shdr **sh, size_t *nsec)
{
	FILE *f = fopen(ko, "rb");
	uint8_t *b = malloc(1 << 16);
	Elf64_Ehdr eh;

	assert_non_null(f);
	assert_non_null(b);
	*len = fread(b, 1, 1 << 16, f);
	fclose(f);
	assert_true(*len > sizeof(eh) && *len < 1 << 16);
	memcpy(&eh, b, sizeof(eh));
	assert_true(eh.e_shoff + (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr) <= *len);
	*sh = (Elf64_Shdr *)(b + eh.e_shoff);
	*nsec = eh.e_shnum;
	return b;
}

/* Write @len bytes of @b to @path. */
static void ko_write(const char *path, const uint8_t *b, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, len, f), len);
	fclose(f);
}

/* A relocation whose offset is 2^64 - 2: .text's start plus it wraps
 * to 2 bytes before the text (a check of the sum against the text's
 * size wrapped with it and let the write through).  Refused as
 * damaged; all other relocations resolve, so only that one can
 * refuse it. */
static void test_relocation_offset_wraps(void **state)
{
	struct symtab *st;
	struct kmod_names *n = names_of(kallsyms, &st);
	struct kmod *k = NULL;
	Elf64_Shdr *sh;
	size_t len, nsec, i, done = 0;
	uint8_t *b = ko_read(&len, &sh, &nsec);
	char bad[220], err[256];

	(void)state;
	for (i = 0; i < nsec; i++) {
		Elf64_Rela r;

		if (sh[i].sh_type != SHT_RELA || sh[i].sh_size < sizeof(r) ||
		    sh[sh[i].sh_info].sh_flags != (SHF_ALLOC | SHF_EXECINSTR) ||
		    done)
			continue;
		memcpy(&r, b + sh[i].sh_offset, sizeof(r));
		r.r_offset = UINT64_MAX - 1;
		memcpy(b + sh[i].sh_offset, &r, sizeof(r));
		done = 1;
	}
	assert_true(done);
	snprintf(bad, sizeof(bad), "%s/wraps.ko", fix.dir);
	ko_write(bad, b, len);
	assert_int_equal(kmod_load(&k, bad, KBASE, n, NULL, 0, err, sizeof(err)),
			 -pte_bad_file);
	assert_null(k);
	assert_non_null(strstr(err, "damaged relocations"));
	free(b);
	kmod_names_free(n);
	symtab_free(st);
}

/* A section whose size makes the layout's running sum wrap: .bss made
 * executable (the loader lays out every SHF_ALLOC|SHF_EXECINSTR one,
 * NOBITS too) with a size that brings the total back to 0x10, after
 * .text; .text's bytes were then copied into a 0x10-byte text.
 * Refused as damaged. */
static void test_section_size_wraps(void **state)
{
	struct symtab *st;
	struct kmod_names *n = names_of(kallsyms, &st);
	struct kmod *k = NULL;
	Elf64_Ehdr eh;
	Elf64_Shdr *sh;
	size_t len, nsec, i;
	uint8_t *b = ko_read(&len, &sh, &nsec);
	uint64_t off = 0;
	char bad[220], err[256];
	int done = 0;

	(void)state;
	memcpy(&eh, b, sizeof(eh));
	for (i = 1; i < nsec && !done; i++) {
		const char *name = (const char *)b + sh[eh.e_shstrndx].sh_offset +
				   sh[i].sh_name;

		if (!strcmp(name, ".bss")) {
			sh[i].sh_flags = SHF_ALLOC | SHF_EXECINSTR;
			sh[i].sh_addralign = 1;
			sh[i].sh_size = 0x10 - off;	/* wraps: off + size = 0x10 */
			done = 1;
		} else if ((sh[i].sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) ==
			   (SHF_ALLOC | SHF_EXECINSTR) && strncmp(name, ".init", 5)) {
			if (sh[i].sh_addralign > 1)
				off = (off + sh[i].sh_addralign - 1) & ~(sh[i].sh_addralign - 1);
			off += sh[i].sh_size;
		}
	}
	assert_true(done && off > 0x10);
	snprintf(bad, sizeof(bad), "%s/bss.ko", fix.dir);
	ko_write(bad, b, len);
	assert_int_equal(kmod_load(&k, bad, KBASE, n, NULL, 0, err, sizeof(err)),
			 -pte_bad_file);
	assert_null(k);
	assert_non_null(strstr(err, "damaged section table"));
	free(b);
	kmod_names_free(n);
	symtab_free(st);
}

/* An empty executable section (libelf gives it no buffer) is laid out
 * as nothing, no copy made from it. */
static void test_empty_text_section(void **state)
{
	char src[200], obj[200], err[256];
	struct kmod *k = NULL;
	const uint8_t *text;
	uint64_t addr;

	(void)state;
	snprintf(src, sizeof(src), "%s/empty.c", fix.dir);
	snprintf(obj, sizeof(obj), "%s/empty.ko", fix.dir);
	assert_int_equal(codefix_write(src, "__asm__(\".section .text.empty,\\\"ax\\\",@progbits\\n"
				       ".previous\");\nint one(void) { return 1; }\n"), 0);
	assert_int_equal(codefix_sh("cc -c -O1 -fno-pic -o %s %s", obj, src), 0);
	assert_int_equal(kmod_load(&k, obj, KBASE, NULL, NULL, 0, err, sizeof(err)), 0);
	assert_true(kmod_text(k, &addr, &text) > 0);
	assert_int_equal(kmod_symbol(k, "one"), KBASE);
	kmod_free(k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_and_relocations),
		cmocka_unit_test(test_alias_and_module_names),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_relocation_offset_wraps),
		cmocka_unit_test(test_section_size_wraps),
		cmocka_unit_test(test_empty_text_section),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
