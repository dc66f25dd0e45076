/*
 * test_symtab -- functions of a program and a library built here with cc:
 * the same names and addresses as nm, name+0xoff lookups, .dynsym when
 * .symtab is stripped or damaged, source lines from DWARF (with libdw), nested
 * functions and aliases, and kallsyms files (good, hidden by
 * kptr_restrict, malformed).
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

#include "codefix.h"
#include "elfimg.h"
#include "helpers.h"
#include "ptdec.h"
#include "symtab.h"

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

static struct symtab *load(const char *path, struct elfimg **e)
{
	struct symtab *s;
	char err[256];

	assert_int_equal(elfimg_open(e, path, err, sizeof(err)), 0);
	assert_int_equal(symtab_from_elf(&s, *e, err, sizeof(err)), 0);
	return s;
}

static void test_null(void **state)
{
	struct symtab *s;
	char buf[8];

	(void)state;
	assert_int_equal(symtab_from_elf(NULL, NULL, NULL, 0), -pte_invalid);
	assert_int_equal(symtab_from_elf(&s, NULL, NULL, 0), -pte_invalid);
	assert_int_equal(symtab_from_kallsyms(&s, NULL, NULL, 0),
			 -pte_invalid);
	assert_null(symtab_lookup(NULL, 0x1000));
	assert_int_equal(symtab_count(NULL), 0);
	assert_int_equal(symtab_format(NULL, 1, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	symtab_free(NULL);
}

/* Every function nm lists (text symbols T, t, i) is ours at its address,
 * and we have no others. */
static void same_as_nm(const char *file, struct symtab *s)
{
	char cmd[512], line[512], name[256], type;
	unsigned long long addr;
	const struct symtab_sym *sym;
	size_t nnm = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm --defined-only '%s'", file);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 ||
		    (type != 'T' && type != 't' && type != 'i'))
			continue;
		nnm++;
		sym = symtab_lookup(s, addr);
		assert_non_null(sym);
		assert_int_equal(sym->addr, addr);
		assert_string_equal(sym->name, name);
	}
	pclose(p);
	assert_true(nnm > 0);
	/* and nothing else, but the PLT stubs nm does not list */
	for (size_t i = 0; i < symtab_count(s); i++)
		nnm += !!strstr(symtab_get(s, i)->name, "@plt");
	assert_int_equal(symtab_count(s), nnm);
}

/* Every "<name@plt>" label objdump gives the PLT sections of @file is
 * ours at its address.  Returns how many. */
static size_t same_plt_as_objdump(const char *file, struct symtab *s)
{
	char cmd[512], line[512], name[256];
	unsigned long long addr;
	const struct symtab_sym *sym;
	size_t n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "objdump -d -j .plt -j .plt.sec -j .plt.got "
		 "'%s' 2>/dev/null", file);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		/* (an IRELATIVE slot's stub, "*ABS*+0x401136@plt", is
		 * left unnamed) */
		if (sscanf(line, "%llx <%255[^>]>:", &addr, name) != 2 ||
		    !strstr(name, "@plt") || strchr(name, '-') ||
		    !strncmp(name, "*ABS*", 5))
			continue;
		sym = symtab_lookup(s, addr);
		assert_non_null(sym);
		assert_int_equal(sym->addr, addr);
		assert_string_equal(sym->name, name);
		n++;
	}
	pclose(p);
	return n;
}

static void test_program_nm(void **state)
{
	struct elfimg *e;
	struct symtab *s = load(fix.prog, &e);

	(void)state;
	assert_string_equal(symtab_origin(s), ".symtab");
	same_as_nm(fix.prog, s);
	symtab_free(s);
	elfimg_close(e);
}

static void test_plt(void **state)
{
	struct elfimg *e;
	struct symtab *s = load(fix.prog, &e);
	char src[200], so[200], cmd[600];

	(void)state;
	same_plt_as_objdump(fix.prog, s);
	symtab_free(s);
	elfimg_close(e);
	/* a library that calls an outside function through its PLT */
	snprintf(src, sizeof(src), "%s/plt.c", fix.dir);
	snprintf(so, sizeof(so), "%s/libplt.so", fix.dir);
	assert_int_equal(codefix_write(src, "int fix_add(int, int);\n"
				       "int g(int a) { return fix_add(a, 1); }\n"),
			 0);
	snprintf(cmd, sizeof(cmd), "cc -g -O0 -fPIC -shared -o %s %s", so, src);
	assert_int_equal(system(cmd), 0);
	s = load(so, &e);
	/* fix_add@plt, and __cxa_finalize@plt in .plt.got */
	assert_int_equal(same_plt_as_objdump(so, s), 2);
	symtab_free(s);
	elfimg_close(e);
}

/* A program with an ifunc of its own: its IRELATIVE relocation comes last
 * in .rela.plt but its stub first in .plt, so pairing the n-th relocation
 * with the n-th stub named printf's stub after the ifunc and malloc's
 * after printf (objdump names each by the GOT slot it jumps through).  In
 * every shape the linker makes: lazy, IBT (.plt.sec), PIE (.plt.got for
 * __cxa_finalize). */
static void test_plt_ifunc(void **state)
{
	static const char *const flags[] = {
		"-no-pie", "-no-pie -fcf-protection=full -Wl,-z,ibtplt",
		"-fPIE -pie", "-fPIE -pie -Wl,-z,now",
	};
	struct elfimg *e;
	struct symtab *s;
	char src[200], bin[200], cmd[800];
	size_t i;

	(void)state;
	snprintf(src, sizeof(src), "%s/ifn.c", fix.dir);
	snprintf(bin, sizeof(bin), "%s/ifn", fix.dir);
	assert_int_equal(codefix_write(src,
		"#include <stdio.h>\n#include <stdlib.h>\n"
		"static int f1(void) { return 1; }\n"
		"static int (*pick(void))(void) { return f1; }\n"
		"int f(void) __attribute__((ifunc(\"pick\")));\n"
		"int main(int argc, char **argv) {\n"
		"  char *p = malloc(8 + argc);\n"
		"  printf(\"%d %p\\n\", f(), (void *)p);\n"
		"  puts(argv[0]); free(p); return 0; }\n"), 0);
	for (i = 0; i < sizeof(flags) / sizeof(*flags); i++) {
		snprintf(cmd, sizeof(cmd), "cc -O1 %s -o %s %s 2>/dev/null",
			 flags[i], bin, src);
		if (system(cmd))
			continue;	/* a toolchain without that shape */
		s = load(bin, &e);
		assert_true(same_plt_as_objdump(bin, s) >= 4);
		symtab_free(s);
		elfimg_close(e);
	}
}

/* The system's C library, whose IRELATIVE slots sit among the others. */
static void test_plt_libc(void **state)
{
	static const char *const libc[] = {
		"/usr/lib/x86_64-linux-gnu/libc.so.6", "/lib64/libc.so.6",
	};
	struct elfimg *e;
	struct symtab *s;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(libc) / sizeof(*libc); i++) {
		if (access(libc[i], R_OK))
			continue;
		s = load(libc[i], &e);
		same_plt_as_objdump(libc[i], s);
		symtab_free(s);
		elfimg_close(e);
		return;
	}
	skip();
}

static void test_lookup(void **state)
{
	struct elfimg *e;
	struct symtab *s = load(fix.prog, &e);
	unsigned long long main_addr = codefix_nm(fix.prog, "main");
	unsigned long long leaf = codefix_nm(fix.prog, "leaf");
	const struct symtab_sym *sym;
	char buf[64];
	size_t i;

	(void)state;
	assert_int_equal(symtab_format(s, main_addr, buf, sizeof(buf)), 8);
	assert_string_equal(buf, "main+0x0");
	symtab_format(s, main_addr + 0x13, buf, sizeof(buf));
	assert_string_equal(buf, "main+0x13");
	symtab_format(s, leaf + 1, buf, sizeof(buf));
	assert_string_equal(buf, "leaf+0x1");
	/* past the last code: no function (not a guess at the nearest) */
	sym = symtab_lookup(s, main_addr);
	assert_non_null(sym);
	assert_true(sym->size > 0);
	assert_null(symtab_lookup(s, main_addr + sym->size + 0x10000));
	/* _init has size 0: it ends with its section, before _start */
	sym = symtab_lookup(s, codefix_nm(fix.prog, "_init"));
	assert_non_null(sym);
	assert_true(sym->size > 0);
	assert_true(sym->addr + sym->size <= codefix_nm(fix.prog, "_start"));
	assert_int_equal(symtab_format(s, 0, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	/* cut to fit */
	assert_int_equal(symtab_format(s, main_addr + 0x13, buf, 5), 4);
	assert_string_equal(buf, "main");
	/* sorted */
	for (i = 1; i < symtab_count(s); i++)
		assert_true(symtab_get(s, i - 1)->addr < symtab_get(s, i)->addr);
	assert_null(symtab_get(s, symtab_count(s)));
	symtab_free(s);
	elfimg_close(e);
}

/* Nested functions and aliases (codefix_nested_src): an address in the
 * outer function past the inner one is the outer's (it was nobody's), in
 * the inner one the inner's; a size-0 alias does not lend the sized one
 * its section-end reach. */
static void test_nested(void **state)
{
	struct elfimg *e;
	struct symtab *s;
	char src[200], elf[200], buf[64];
	unsigned long long outer, sized;
	uint64_t from, until;

	(void)state;
	snprintf(src, sizeof(src), "%s/nested.S", fix.dir);
	snprintf(elf, sizeof(elf), "%s/nested", fix.dir);
	assert_int_equal(codefix_nested(src, elf), 0);
	outer = codefix_nm(elf, "outer");
	sized = codefix_nm(elf, "sized");
	assert_true(outer && sized == outer + 0x80);
	s = load(elf, &e);
	symtab_format(s, outer + 0x8, buf, sizeof(buf));
	assert_string_equal(buf, "outer+0x8");
	symtab_format(s, outer + 0x18, buf, sizeof(buf));
	assert_string_equal(buf, "inner+0x8");
	symtab_format(s, outer + 0x28, buf, sizeof(buf));
	assert_string_equal(buf, "outer+0x28");
	symtab_format(s, outer + 0x3f, buf, sizeof(buf));
	assert_string_equal(buf, "outer+0x3f");
	assert_int_equal(symtab_format(s, outer + 0x40, buf, sizeof(buf)), 0);
	/* where each answer holds */
	assert_non_null(symtab_lookup_span(s, outer + 0x8, &from, &until));
	assert_int_equal(from, outer);
	assert_int_equal(until, outer + 0x10);
	assert_non_null(symtab_lookup_span(s, outer + 0x28, &from, &until));
	assert_int_equal(from, outer + 0x20);
	assert_int_equal(until, outer + 0x40);
	assert_null(symtab_lookup_span(s, outer + 0x50, &from, &until));
	assert_int_equal(from, outer + 0x40);
	assert_int_equal(until, sized);
	/* the alias: sized keeps its 16 bytes */
	symtab_format(s, sized + 0x8, buf, sizeof(buf));
	assert_string_equal(buf, "sized+0x8");
	assert_int_equal(symtab_lookup(s, sized)->size, 0x10);
	assert_int_equal(symtab_format(s, sized + 0x20, buf, sizeof(buf)), 0);
	symtab_format(s, sized + 0x40, buf, sizeof(buf));
	assert_string_equal(buf, "after+0x0");
	symtab_free(s);
	elfimg_close(e);
}

static void test_library_dynsym(void **state)
{
	struct elfimg *e;
	struct symtab *s;
	char stripped[200];
	const struct symtab_sym *sym;
	unsigned long long add = codefix_nm(fix.lib, "fix_add");

	(void)state;
	s = load(fix.lib, &e);
	same_as_nm(fix.lib, s);
	assert_non_null(symtab_lookup(s, codefix_nm(fix.lib, "fix_local")));
	symtab_free(s);
	elfimg_close(e);

	snprintf(stripped, sizeof(stripped), "%s/libfix-stripped.so", fix.dir);
	assert_int_equal(codefix_sh("strip -s -o %s %s", stripped, fix.lib), 0);
	s = load(stripped, &e);
	assert_string_equal(symtab_origin(s), ".dynsym");
	sym = symtab_lookup(s, add + 2);
	assert_non_null(sym);
	assert_string_equal(sym->name, "fix_add");
	/* the static function is gone with .symtab */
	assert_int_equal(codefix_nm(stripped, "fix_local"), 0);
	symtab_free(s);
	elfimg_close(e);
}

/* A copy of @from as @to with its .symtab's sh_entsize 0 (ELF64, little
 * endian, as built here): a damaged symbol table. */
static void damage_symtab(const char *from, const char *to)
{
	unsigned char *b;
	uint64_t shoff;
	uint16_t shnum, i;
	uint32_t type;
	long n;
	FILE *f = fopen(from, "rb");

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	rewind(f);
	b = malloc((size_t)n);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	memcpy(&shoff, b + 0x28, 8);
	memcpy(&shnum, b + 0x3c, 2);
	for (i = 0; i < shnum; i++) {
		memcpy(&type, b + shoff + 64u * i + 4, 4);
		if (type == 2)		/* SHT_SYMTAB */
			memset(b + shoff + 64u * i + 0x38, 0, 8);
	}
	f = fopen(to, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	free(b);
}

/* A damaged .symtab: .dynsym's names, and the damage said in err. */
static void test_damaged_symtab(void **state)
{
	struct elfimg *e;
	struct symtab *s;
	char path[200], err[256];
	const struct symtab_sym *sym;
	unsigned long long add = codefix_nm(fix.lib, "fix_add");

	(void)state;
	snprintf(path, sizeof(path), "%s/libfix-damaged.so", fix.dir);
	damage_symtab(fix.lib, path);
	assert_int_equal(elfimg_open(&e, path, err, sizeof(err)), 0);
	assert_int_equal(symtab_from_elf(&s, e, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "libfix-damaged.so: symbol table unreadable "
				    "(.symtab at offset 0x"));
	assert_non_null(strstr(err, ": entry size 0)"));
	assert_string_equal(symtab_origin(s), ".dynsym");
	sym = symtab_lookup(s, add + 2);
	assert_non_null(sym);
	assert_string_equal(sym->name, "fix_add");
	symtab_free(s);
	elfimg_close(e);
}

/* The line addr2line gives @addr in @file, or -1. */
static int addr2line(const char *file, unsigned long long addr)
{
	char cmd[512], line[512], *colon;
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "addr2line -e '%s' %#llx", file, addr);
	p = popen(cmd, "r");
	assert_non_null(p);
	if (fgets(line, sizeof(line), p) && (colon = strrchr(line, ':')))
		n = atoi(colon + 1);
	pclose(p);
	return n;
}

static void test_srcline(void **state)
{
	struct elfimg *e;
	struct symtab *s = load(fix.prog, &e);
	unsigned long long main_addr = codefix_nm(fix.prog, "main");
	const char *file = NULL;
	int line = 0, ret;

	(void)state;
	ret = symtab_srcline(s, main_addr + 8, &file, &line);
#ifdef HAVE_LIBDW
	assert_int_equal(ret, 0);
	assert_non_null(strstr(file, "prog.c"));
	/* addr2line is the reference */
	assert_int_equal(line, addr2line(fix.prog, main_addr + 8));
	assert_true(line >= CODEFIX_MAIN_LINE);
	assert_int_equal(symtab_srcline(s, 0x7fffffff0000ull, &file, &line),
			 -pte_invalid);
#else
	assert_int_equal(ret, -pte_invalid);
#endif
	symtab_free(s);
	elfimg_close(e);
}

static void test_kallsyms(void **state)
{
	struct symtab *s;
	char path[200], buf[80], err[256];

	(void)state;
	snprintf(path, sizeof(path), "%s/kallsyms", fix.dir);
	assert_int_equal(helpers_write_text(path,
					    "ffffffff81000000 T _stext\n"
					    "ffffffff81000000 T _text\n"
					    "ffffffff81001000 t do_one_initcall\n"
					    "ffffffff81002000 D some_data\n"
					    "ffffffff81003000 W weak_fn\n"
					    "ffffffffc0000000 t mod_fn\t[mymod]\n"), 0);
	assert_int_equal(symtab_from_kallsyms(&s, path, err, sizeof(err)), 0);
	assert_string_equal(symtab_origin(s), "kallsyms");
	assert_int_equal(symtab_count(s), 4);	/* aliases and data gone */
	symtab_format(s, 0xffffffff81000010ull, buf, sizeof(buf));
	assert_string_equal(buf, "_stext+0x10");
	/* no sizes: up to the next symbol (the data one is not code) */
	symtab_format(s, 0xffffffff81002800ull, buf, sizeof(buf));
	assert_string_equal(buf, "do_one_initcall+0x1800");
	symtab_format(s, 0xffffffffc0000004ull, buf, sizeof(buf));
	/* a module's function by its own name, one word */
	assert_string_equal(buf, "mod_fn+0x4");
	/* by name, aliases too (_text lost to _stext above) */
	{
		uint64_t a = 0;

		assert_int_equal(symtab_addr_of(s, "_text", &a), 1);
		assert_int_equal(a, 0xffffffff81000000ull);
		assert_int_equal(symtab_addr_of(s, "mod_fn", &a), 1);
		assert_int_equal(a, 0xffffffffc0000000ull);
		assert_int_equal(symtab_addr_of(s, "some_data", &a), 0);
	}
	assert_null(symtab_lookup(s, 0xffffffff80000000ull));
	/* the last one: a page at most, not to the end of memory */
	assert_non_null(symtab_lookup(s, 0xffffffffc0000fffull));
	assert_null(symtab_lookup(s, 0xffffffffff600000ull));
	symtab_free(s);

	assert_int_equal(helpers_write_text(path, "0000000000000000 T _stext\n"
					    "0000000000000000 t foo\n"), 0);
	assert_int_equal(symtab_from_kallsyms(&s, path, err, sizeof(err)),
			 -pte_bad_file);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "kptr_restrict"));

	assert_int_equal(helpers_write_text(path, "ffffffff81000000 T _stext\nrubbish\n"), 0);
	assert_int_equal(symtab_from_kallsyms(&s, path, err, sizeof(err)),
			 -pte_bad_file);
	assert_non_null(strstr(err, "line 2"));

	snprintf(path, sizeof(path), "%s/no-kallsyms", fix.dir);
	assert_int_equal(symtab_from_kallsyms(&s, path, err, sizeof(err)),
			 -pte_io);
	assert_non_null(strstr(err, path));
}

/* symtab_names() collects what it is given, for test_names. */
struct names_got {
	char v[8][40];
	int n;
};

static int names_each(void *arg, const char *name)
{
	struct names_got *g = arg;

	if (g->n == 8)
		return -pte_nomem;
	snprintf(g->v[g->n++], sizeof(g->v[0]), "%s", name);
	return 0;
}

/* The names by prefix, for completion: the names lookups show, sorted,
 * each once, bounded by @max; aliases a lookup never shows are not
 * offered. */
static void test_names(void **state)
{
	struct names_got g;
	struct symtab *s;
	char path[200], err[256];

	(void)state;
	snprintf(path, sizeof(path), "%s/kallsyms-names", fix.dir);
	assert_int_equal(helpers_write_text(path,
					    "ffffffff81000000 T _stext\n"
					    "ffffffff81000000 T _text\n"
					    "ffffffff81001000 t do_one_initcall\n"
					    "ffffffff81002000 t do_exit\n"
					    "ffffffff81003000 t do_exit\n"
					    "ffffffff81004000 D do_data\n"
					    "ffffffff81005000 T dump_stack\n"
					    "ffffffff81006000 T do_fork\n"), 0);
	assert_int_equal(symtab_from_kallsyms(&s, path, err, sizeof(err)), 0);
	memset(&g, 0, sizeof(g));
	assert_int_equal(symtab_names(s, "do_", 200, names_each, &g), 3);
	assert_int_equal(g.n, 3);
	assert_string_equal(g.v[0], "do_exit");	/* twice in the file, once here */
	assert_string_equal(g.v[1], "do_fork");
	assert_string_equal(g.v[2], "do_one_initcall");
	/* bounded: the first of them only */
	memset(&g, 0, sizeof(g));
	assert_int_equal(symtab_names(s, "d", 2, names_each, &g), 2);
	assert_string_equal(g.v[0], "do_exit");
	assert_string_equal(g.v[1], "do_fork");
	/* "" is every name; _text (an alias lookups do not show) is none */
	memset(&g, 0, sizeof(g));
	assert_int_equal(symtab_names(s, "", 200, names_each, &g), 5);
	assert_string_equal(g.v[0], "_stext");
	assert_string_equal(g.v[4], "dump_stack");
	assert_int_equal(symtab_names(s, "_t", 200, names_each, &g), 0);
	assert_int_equal(symtab_names(s, "zz", 200, names_each, &g), 0);
	assert_int_equal(symtab_names(s, "dump_stack_more", 200, names_each, &g), 0);
	/* the callback's error stops the walk */
	g.n = 8;
	assert_int_equal(symtab_names(s, "do", 200, names_each, &g), -pte_nomem);
	assert_int_equal(symtab_names(NULL, "do", 200, names_each, &g), -pte_invalid);
	assert_int_equal(symtab_names(s, NULL, 200, names_each, &g), -pte_invalid);
	assert_int_equal(symtab_names(s, "do", 200, NULL, &g), -pte_invalid);
	symtab_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_program_nm),
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_nested),
		cmocka_unit_test(test_plt),
		cmocka_unit_test(test_plt_ifunc),
		cmocka_unit_test(test_plt_libc),
		cmocka_unit_test(test_library_dynsym),
		cmocka_unit_test(test_damaged_symtab),
		cmocka_unit_test(test_srcline),
		cmocka_unit_test(test_kallsyms),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
