/*
 * test_imgopt -- the image options and the image set: --elf at its own
 * addresses and at BASE, bad --elf/--raw/--kallsyms, and a perf.data whose
 * MMAP2 records name a program built here with cc, found at its recorded
 * path, under --sysroot, and in a build-ID cache laid out as perf lays it
 * out (new and old layout) under a temporary $HOME; what is missing or has
 * another build ID is said once per file.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <elf.h>
#include <cmocka.h>

#include "codefix.h"
#include "elfimg.h"
#include "flow.h"
#include "imgopt.h"
#include "memimg.h"
#include "perfwr.h"
#include "ptdec.h"
#include "sideband.h"
#include "trace.h"

#define BASE 0x555555554000ull
#define LIBBASE 0x7f1234560000ull

static struct codefix fix;
static uint8_t prog_bid[20], lib_bid[20];

/* The executable segment of @path: its page-aligned file offset, vaddr
 * and length, as the loader maps it. */
static void exec_seg(const char *path, uint64_t *pgoff, uint64_t *vaddr,
		     uint64_t *len)
{
	struct elfimg *e;
	const struct elfimg_seg *s;
	char err[256];
	size_t i;

	assert_int_equal(elfimg_open(&e, path, err, sizeof(err)), 0);
	for (i = 0; (s = elfimg_seg(e, i)); i++)
		if (s->flags & PF_X)
			break;
	assert_non_null(s);
	*pgoff = s->offset & ~0xfffull;
	*vaddr = s->vaddr & ~0xfffull;
	*len = ((s->vaddr + s->filesz + 0xfff) & ~0xfffull) - *vaddr;
	elfimg_close(e);
}

static void read_bid(const char *path, uint8_t *bid)
{
	struct elfimg *e;
	const uint8_t *id;
	char err[256];

	assert_int_equal(elfimg_open(&e, path, err, sizeof(err)), 0);
	assert_int_equal(elfimg_build_id(e, &id), 20);
	memcpy(bid, id, 20);
	elfimg_close(e);
}

static int setup(void **state)
{
	(void)state;
	if (codefix_build(&fix))
		return -1;
	read_bid(fix.prog, prog_bid);
	read_bid(fix.lib, lib_bid);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	codefix_clean(&fix);
	return 0;
}

/* A perf.data at @out: process 100 on cpu0 from time 1000 with the program
 * mapped at BASE as @prog_name (build ID in the record if @with_bid) and
 * the library at LIBBASE as @lib_name (build ID @lbid, or none); process
 * 200 (a fork) maps the library again at another address; and the
 * kernel. */
static void recording(const char *out, const char *prog_name, int with_bid,
		      const char *lib_name, const uint8_t *lbid)
{
	struct pw d = { 0 };
	uint64_t pgoff, vaddr, len;

	pw_setup(&d);
	pw_comm(&d, 100, 100, 0, 0, "prog", 0);
	exec_seg(fix.prog, &pgoff, &vaddr, &len);
	pw_mmap2(&d, 100, 100, 0, 0, BASE + vaddr, len, pgoff, prog_name,
		 with_bid ? prog_bid : NULL, 0);
	exec_seg(fix.lib, &pgoff, &vaddr, &len);
	pw_mmap2(&d, 100, 100, 0, 0, LIBBASE + vaddr, len, pgoff, lib_name,
		 lbid, 0);
	pw_mmap2(&d, -1, 0, 0, 0, 0xffffffff81000000ull, 0x1000000,
		 0xffffffff81000000ull, "[kernel.kallsyms]_text", NULL, 1);
	pw_mmap2(&d, -1, 0, 0, 0, 0xffffffffc0000000ull, 0x3000, 0,
		 "/lib/modules/9.9/kernel/fix.ko", NULL, 1);
	pw_itrace_start(&d, 100, 100, 1000, 0);
	pw_task(&d, 0, 200, 100, 200, 100, 2000, 0);
	pw_mmap2(&d, 200, 200, 3000, 0, LIBBASE + 0x100000 + vaddr, len, pgoff,
		 lib_name, lbid, 0);
	pw_auxtrace(&d, 0);
	assert_int_equal(pw_file(out, &d, NULL), 0);
	free(d.p);
}

static struct imgset *load(const struct imgopt *o, const char *data,
			   struct trace **t)
{
	struct imgset *s;
	char err[512];
	int ret;

	*t = NULL;
	if (data)
		assert_int_equal(trace_open(t, data, err, sizeof(err)), 0);
	ret = imgopt_load(&s, o, *t, err, sizeof(err));
	if (ret)
		fprintf(stderr, "%s\n", err);
	assert_int_equal(ret, 0);
	return s;
}

/* The message that mentions @what, or NULL. */
static const char *message(const struct imgset *s, const char *what)
{
	size_t i;

	for (i = 0; i < imgopt_nmessages(s); i++)
		if (strstr(imgopt_message(s, i), what))
			return imgopt_message(s, i);
	return NULL;
}

static size_t count_messages(const struct imgset *s, const char *what)
{
	size_t i, n = 0;

	for (i = 0; i < imgopt_nmessages(s); i++)
		n += !!strstr(imgopt_message(s, i), what);
	return n;
}

/* The code at @ip in @asid equals the file's bytes at @off. */
static void same_bytes(const struct imgset *s, uint64_t asid, uint64_t ip,
		       const char *file, uint64_t off)
{
	uint8_t got[16], want[16];
	FILE *f = fopen(file, "rb");

	assert_non_null(f);
	assert_int_equal(fseek(f, (long)off, SEEK_SET), 0);
	assert_int_equal(fread(want, 1, sizeof(want), f), sizeof(want));
	fclose(f);
	assert_int_equal(mi_read(imgopt_mi(s), asid, ip, got, sizeof(got)),
			 sizeof(got));
	assert_memory_equal(got, want, sizeof(got));
}

static void test_args(void **state)
{
	struct imgopt o;
	const struct opt_group g[] = {
		{ IMGOPT_HEADING, imgopt_opts, imgopt_take, &o },
	};
	const struct opt_cmd cmd = { "ptbrowse flow", "usage\n", g, 1 };
	char *argv[] = { "flow", "--elf", "a.out", "--raw=d.bin:0x1000",
			 "--sysroot", "/sr", "--kallsyms=/k", "--buildid-dir",
			 "/c", "TRACE", "--elf=b.so:0x7f0000000000" };
	char *empty[] = { "flow", "--elf=", "TRACE" };
	char *missing[] = { "flow", "TRACE", "--raw" };
	int argc = (int)(sizeof(argv) / sizeof(argv[0]));

	(void)state;
	imgopt_init(&o);
	assert_int_equal(opt_parse(&cmd, argc, argv), 1);
	assert_string_equal(argv[1], "TRACE");
	assert_int_equal(o.nelf, 2);
	assert_string_equal(o.elf[0], "a.out");
	assert_string_equal(o.elf[1], "b.so:0x7f0000000000");
	/* no image to load it into: kept for imgopt_load() */
	assert_int_equal(o.nraw, 1);
	assert_string_equal(o.raw[0], "d.bin:0x1000");
	assert_string_equal(o.sysroot, "/sr");
	assert_string_equal(o.kallsyms, "/k");
	assert_string_equal(o.buildid_dir, "/c");
	/* an empty value and a missing one are usage errors (exit 2) */
	assert_int_equal(opt_status(opt_parse(&cmd, 3, empty)), 2);
	assert_int_equal(opt_status(opt_parse(&cmd, 3, missing)), 2);
	assert_int_equal(o.nelf, 2);
	imgopt_release(&o);
}

static void test_elf_option(void **state)
{
	struct imgopt o;
	struct imgset *s;
	struct trace *t;
	char spec[256], buf[64];
	unsigned long long main_addr = codefix_nm(fix.prog, "main");
	unsigned long long add = codefix_nm(fix.lib, "fix_add");

	(void)state;
	imgopt_init(&o);
	o.elf = calloc(2, sizeof(*o.elf));
	o.elf[0] = fix.prog;
	o.nelf = 1;
	s = load(&o, NULL, &t);
	/* at its own addresses, in every address space */
	assert_int_equal(imgopt_symbol(s, 0, main_addr + 4, buf, sizeof(buf)),
			 strlen("main+0x4"));
	assert_string_equal(buf, "main+0x4");
	same_bytes(s, 0, main_addr, fix.prog, main_addr);
	same_bytes(s, 77, main_addr, fix.prog, main_addr);
	assert_int_equal(imgopt_nmessages(s), 0);
	imgopt_free(s);

	/* at BASE: the first page of each file there */
	snprintf(spec, sizeof(spec), "%s:%#llx", fix.prog, BASE);
	o.elf[0] = spec;
	o.elf[1] = strdup(fix.lib);
	{
		static char lspec[256];

		snprintf(lspec, sizeof(lspec), "%s:%#llx", fix.lib, LIBBASE);
		free((char *)o.elf[1]);
		o.elf[1] = lspec;
	}
	o.nelf = 2;
	s = load(&o, NULL, &t);
	imgopt_symbol(s, 0, BASE + main_addr, buf, sizeof(buf));
	assert_string_equal(buf, "main+0x0");
	imgopt_symbol(s, 0, LIBBASE + add + 1, buf, sizeof(buf));
	assert_string_equal(buf, "fix_add+0x1");
	assert_int_equal(imgopt_symbol(s, 0, main_addr, buf, sizeof(buf)), 0);
	same_bytes(s, 0, BASE + main_addr, fix.prog, main_addr);
	imgopt_free(s);
	imgopt_release(&o);
}

/* An --elf over a --raw dump or an earlier --elf: said in one line naming
 * both, with which is read there (the --elf: it was silently). */
static void test_elf_overlap(void **state)
{
	struct imgopt o;
	struct imgset *s;
	struct trace *t;
	static const uint8_t page[0x1000];
	char zeros[200], raw[300], spec[300], lspec[300], want[600];
	unsigned long long main_addr = codefix_nm(fix.prog, "main");
	uint64_t pgoff, vaddr, len;
	const char *m;
	FILE *f;

	(void)state;
	exec_seg(fix.prog, &pgoff, &vaddr, &len);
	snprintf(zeros, sizeof(zeros), "%s/zeros", fix.dir);
	f = fopen(zeros, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(page, 1, sizeof(page), f), sizeof(page));
	fclose(f);
	snprintf(raw, sizeof(raw), "%s:%#llx", zeros, BASE + vaddr);
	snprintf(spec, sizeof(spec), "%s:%#llx", fix.prog, BASE);
	imgopt_init(&o);
	o.raw = calloc(1, sizeof(*o.raw));
	o.raw[0] = raw;
	o.nraw = 1;
	o.elf = calloc(2, sizeof(*o.elf));
	o.elf[0] = spec;
	o.nelf = 1;
	s = load(&o, NULL, &t);
	assert_int_equal(imgopt_nmessages(s), 1);
	m = imgopt_message(s, 0);
	snprintf(want, sizeof(want), " overlaps --raw %s at 0x%llx-0x%llx: %s's bytes "
		 "are read there", zeros, BASE + vaddr, BASE + vaddr + 0xfff, fix.prog);
	assert_non_null(strstr(m, want));
	snprintf(want, sizeof(want), "--elf %s: segment ", fix.prog);
	assert_true(!strncmp(m, want, strlen(want)));
	assert_null(strchr(m, '\n'));
	/* and so it is */
	same_bytes(s, 0, BASE + main_addr, fix.prog, main_addr);
	imgopt_free(s);

	/* two --elf at one BASE: the later one is read */
	snprintf(lspec, sizeof(lspec), "%s:%#llx", fix.lib, BASE);
	o.nraw = 0;
	o.elf[1] = lspec;
	o.nelf = 2;
	s = load(&o, NULL, &t);
	assert_int_equal(imgopt_nmessages(s), 1);
	snprintf(want, sizeof(want), " overlaps --elf %s at 0x", fix.prog);
	assert_non_null(strstr(imgopt_message(s, 0), want));
	snprintf(want, sizeof(want), "%s's bytes are read there", fix.lib);
	assert_non_null(strstr(imgopt_message(s, 0), want));
	imgopt_free(s);
	imgopt_release(&o);
}

/* A vmlinux's per-CPU segment, linked at 0, is not mapped: at 0 (or the
 * KASLR offset, with a BASE) it would hide user code in every address
 * space. */
static void test_elf_percpu(void **state)
{
	struct imgopt o;
	struct imgset *s;
	struct trace *t;
	char src[256], lds[256], vm[256], spec[300], cmd[1400], buf[64];
	uint8_t b[4];

	(void)state;
	snprintf(src, sizeof(src), "%s/pc.c", fix.dir);
	snprintf(lds, sizeof(lds), "%s/pc.lds", fix.dir);
	snprintf(vm, sizeof(vm), "%s/vmlinux_pc", fix.dir);
	assert_int_equal(codefix_write(src, "int kfunc(int x) { return x * 5 + 1; }\n"
		"int kfunc2(int x) { return kfunc(x * 7) * kfunc(x + 3) + 2; }\n"
		"__attribute__((section(\".data..percpu\"))) int pcpu[64] = { 1, 2 };\n"), 0);
	assert_int_equal(codefix_write(lds,
		"PHDRS { text PT_LOAD FLAGS(5); percpu PT_LOAD FLAGS(6); }\n"
		"SECTIONS {\n  . = 0xffffffff81000000;\n"
		"  .text : { *(.text*) } :text\n"
		"  .data..percpu 0 : AT(0x1000) { *(.data..percpu) } :percpu\n"
		"  /DISCARD/ : { *(.note.GNU-stack) *(.comment) *(.eh_frame) }\n}\n"), 0);
	snprintf(cmd, sizeof(cmd), "cc -O1 -c -fno-pic -o %s.o %s && ld -T %s "
		 "-o %s %s.o", vm, src, lds, vm, vm);
	assert_int_equal(system(cmd), 0);
	imgopt_init(&o);
	o.elf = calloc(1, sizeof(*o.elf));
	snprintf(spec, sizeof(spec), "%s:0xffffffff9e000000", vm);
	o.elf[0] = spec;
	o.nelf = 1;
	s = load(&o, NULL, &t);
	imgopt_symbol(s, 0, 0xffffffff9e000001ull, buf, sizeof(buf));
	assert_string_equal(buf, "kfunc+0x1");
	/* nothing at the KASLR offset (mi_read: no bytes, an error) */
	assert_true(mi_read(imgopt_mi(s), 0, 0x1d000000ull, b, sizeof(b)) < 0);
	imgopt_free(s);
	o.elf[0] = vm;
	s = load(&o, NULL, &t);
	assert_true(mi_read(imgopt_mi(s), 0, 0, b, sizeof(b)) < 0);
	imgopt_free(s);
	o.elf[0] = NULL;
	o.nelf = 0;
	free(o.elf);
	o.elf = NULL;
	imgopt_release(&o);
}

static void test_kallsyms(void **state)
{
	struct imgopt o;
	struct imgset *s;
	struct trace *t;
	char path[200], buf[64];
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/kallsyms", fix.dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("ffffffff81000000 T _stext\nffffffff81000100 t do_idle\n", f);
	fclose(f);
	imgopt_init(&o);
	o.kallsyms = path;
	s = load(&o, NULL, &t);
	/* kernel names in every address space, no code */
	imgopt_symbol(s, 0, 0xffffffff81000010ull, buf, sizeof(buf));
	assert_string_equal(buf, "_stext+0x10");
	imgopt_symbol(s, 5, 0xffffffff81000104ull, buf, sizeof(buf));
	assert_string_equal(buf, "do_idle+0x4");
	assert_int_equal(imgopt_symbol(s, 0, 0x401000, buf, sizeof(buf)), 0);
	assert_int_equal(mi_count(imgopt_mi(s)), 0);
	imgopt_free(s);
	imgopt_release(&o);
}

/* imgopt_find_function(): a function's places in every address space, as
 * imgopt_function() names them; kallsyms' last symbol 4 KiB on; none for a
 * name no symbol has. */
static void test_find_function(void **state)
{
	static char pspec[256], lspec[256], kpath[200];
	struct imgopt_frange *r;
	struct imgopt o;
	struct imgset *s;
	struct trace *t;
	const char *name;
	unsigned long long add = codefix_nm(fix.lib, "fix_add");
	uint64_t a, b;
	size_t n;
	FILE *f;

	(void)state;
	snprintf(kpath, sizeof(kpath), "%s/kallsyms2", fix.dir);
	f = fopen(kpath, "w");
	assert_non_null(f);
	fputs("ffffffff81000000 T _stext\nffffffff81000100 t do_idle\n", f);
	fclose(f);
	imgopt_init(&o);
	o.elf = calloc(2, sizeof(*o.elf));
	snprintf(pspec, sizeof(pspec), "%s:%#llx", fix.prog, BASE);
	snprintf(lspec, sizeof(lspec), "%s:%#llx", fix.lib, LIBBASE);
	o.elf[0] = pspec;
	o.elf[1] = lspec;
	o.nelf = 2;
	o.kallsyms = kpath;
	s = load(&o, NULL, &t);
	assert_int_equal(imgopt_find_function(s, "fix_add", &r, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(r[0].start, LIBBASE + add);
	assert_int_equal(imgopt_function(s, 0, r[0].start, &name, &a, &b), 0);
	assert_string_equal(name, "fix_add");
	assert_int_equal(a, r[0].start);
	assert_int_equal(b, r[0].end);
	free(r);
	assert_int_equal(imgopt_find_function(s, "do_idle", &r, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(r[0].start, 0xffffffff81000100ull);
	assert_int_equal(r[0].end, 0xffffffff81000100ull + 4096);
	assert_int_equal(imgopt_function(s, 7, 0xffffffff81000900ull, &name, &a, &b), 0);
	assert_string_equal(name, "do_idle");
	free(r);
	assert_int_equal(imgopt_find_function(s, "no_such_function", &r, &n), 0);
	assert_int_equal(n, 0);
	free(r);
	assert_int_equal(imgopt_find_function(NULL, "x", &r, &n), -pte_invalid);
	imgopt_free(s);
	free(o.elf);
	o.elf = NULL;
	o.nelf = 0;
	imgopt_release(&o);
}

static void test_bad_options(void **state)
{
	struct imgopt o;
	struct imgset *s;
	char err[512], cut[200], spec[600], missing[200];

	(void)state;
	imgopt_init(&o);
	o.elf = calloc(1, sizeof(*o.elf));
	o.nelf = 1;
	snprintf(missing, sizeof(missing), "%s/none", fix.dir);
	o.elf[0] = missing;
	assert_int_equal(imgopt_load(&s, &o, NULL, err, sizeof(err)), -pte_io);
	assert_non_null(strstr(err, missing));
	/* truncated */
	snprintf(cut, sizeof(cut), "%s/cut", fix.dir);
	snprintf(spec, sizeof(spec), "head -c 3000 %s > %s", fix.prog, cut);
	assert_int_equal(system(spec), 0);
	o.elf[0] = cut;
	assert_int_equal(imgopt_load(&s, &o, NULL, err, sizeof(err)),
			 -pte_bad_file);
	assert_non_null(strstr(err, cut));
	assert_non_null(strstr(err, "truncated"));
	/* not an ELF file, with a base */
	snprintf(spec, sizeof(spec), "%s:0x1000", fix.src);
	o.elf[0] = spec;
	assert_int_equal(imgopt_load(&s, &o, NULL, err, sizeof(err)),
			 -pte_bad_file);
	assert_non_null(strstr(err, "not an ELF file"));
	o.nelf = 0;
	o.kallsyms = missing;
	assert_int_equal(imgopt_load(&s, &o, NULL, err, sizeof(err)), -pte_io);
	assert_non_null(strstr(err, missing));
	imgopt_release(&o);
}

/* The asid of process 100 on cpu0 at TSC 1500. */
static uint64_t asid100(const struct imgset *s, const struct trace *t)
{
	int cpu0 = trace_find_stream(t, "cpu0");
	uint64_t asid = imgopt_asid(s, cpu0, 1500, 1, 0, 0);

	assert_true(asid != 0 && asid != MI_ASID_ANY);
	return asid;
}

static void test_recorded_path(void **state)
{
	struct imgopt o;
	struct imgset *s;
	struct trace *t;
	char data[200], buf[64], want[300];
	unsigned long long main_addr = codefix_nm(fix.prog, "main");
	unsigned long long add = codefix_nm(fix.lib, "fix_add");
	uint64_t a, a200;
	const char *m;

	(void)state;
	snprintf(data, sizeof(data), "%s/rec.data", fix.dir);
	recording(data, fix.prog, 1, fix.lib, NULL);
	imgopt_init(&o);
	s = load(&o, data, &t);
	a = asid100(s, t);
	imgopt_symbol(s, a, BASE + main_addr + 2, buf, sizeof(buf));
	assert_string_equal(buf, "main+0x2");
	same_bytes(s, a, BASE + main_addr, fix.prog, main_addr);
	imgopt_symbol(s, a, LIBBASE + add, buf, sizeof(buf));
	assert_string_equal(buf, "fix_add+0x0");
	{
		const char *file = NULL, *name = NULL;
		uint64_t start = 0, end = 0;
		int line = 0;

		assert_int_equal(imgopt_function(s, a, BASE + main_addr + 3,
						 &name, &start, &end), 0);
		assert_string_equal(name, "main");
		assert_int_equal(start, BASE + main_addr);
		assert_true(end > start + 3);
#ifdef HAVE_LIBDW
		assert_int_equal(imgopt_srcline(s, a, BASE + main_addr + 8,
						&file, &line), 0);
		assert_non_null(strstr(file, "prog.c"));
		assert_true(line >= CODEFIX_MAIN_LINE);
#else
		(void)file;
		(void)line;
#endif
	}
	/* not in another address space, nor in none */
	assert_int_equal(imgopt_symbol(s, 0, BASE + main_addr, buf,
				       sizeof(buf)), 0);
	assert_true(mi_read(imgopt_mi(s), 0, BASE + main_addr,
			    (uint8_t *)buf, 4) < 0);
	/* the forked child shares the space; its second mapping of the
	 * library overlaps nothing, so it joins it */
	a200 = sb_pid_asid(imgopt_sb(s), 200, 3000);
	assert_int_equal(a200, a);
	imgopt_symbol(s, a200, LIBBASE + 0x100000 + add, buf, sizeof(buf));
	assert_string_equal(buf, "fix_add+0x0");
	imgopt_symbol(s, a200, BASE + main_addr, buf, sizeof(buf));
	assert_string_equal(buf, "main+0x0");
	/* the kernel: said once, not guessed */
	m = message(s, "[kernel.kallsyms]");
	assert_non_null(m);
	assert_non_null(strstr(m, "no code for the kernel"));
	assert_non_null(strstr(m, "--elf vmlinux"));
	m = message(s, "fix.ko");
	assert_non_null(m);
	assert_non_null(strstr(m, "no code for the kernel module "
			       "/lib/modules/9.9/kernel/fix.ko: its instructions "
			       "are unknown"));
	/* the library's mappings have no build ID: used, and said so once */
	snprintf(want, sizeof(want), "no build ID recorded for %s: used "
		 "unchecked", fix.lib);
	assert_int_equal(count_messages(s, want), 1);
	assert_int_equal(imgopt_nmessages(s), 3);
	/* where code is missing, why: in every address space */
	assert_ptr_equal(imgopt_nocode(s, a, 0xffffffffc0000100ull), m);
	assert_ptr_equal(imgopt_nocode(s, 0, 0xffffffffc0000100ull), m);
	assert_non_null(strstr(imgopt_nocode(s, a, 0xffffffff81000010ull),
			       "no code for the kernel"));
	/* where code is, or nothing was mapped: nothing to say */
	assert_null(imgopt_nocode(s, a, BASE + main_addr));
	assert_null(imgopt_nocode(s, a, 0x1000));
	assert_null(imgopt_nocode(NULL, a, 0x1000));
	imgopt_free(s);
	trace_close(t);

	/* --elf covering the kernel's map: its code, no message */
	{
		static char spec[256];

		snprintf(spec, sizeof(spec), "%s:0xffffffff81000000",
			 fix.prog);
		o.elf = calloc(1, sizeof(*o.elf));
		o.elf[0] = spec;
		o.nelf = 1;
	}
	s = load(&o, data, &t);
	assert_null(message(s, "[kernel.kallsyms]"));
	imgopt_symbol(s, a, 0xffffffff81000000ull + main_addr, buf,
		      sizeof(buf));
	assert_string_equal(buf, "main+0x0");
	imgopt_free(s);
	trace_close(t);
	imgopt_release(&o);
}

static void test_reader(void **state)
{
	struct imgopt o;
	struct imgset *s;
	struct trace *t;
	struct imgopt_reader r;
	struct flow_ctx c;
	char data[200];
	uint8_t got[8];
	unsigned long long main_addr = codefix_nm(fix.prog, "main");

	(void)state;
	snprintf(data, sizeof(data), "%s/rd.data", fix.dir);
	recording(data, fix.prog, 1, fix.lib, NULL);
	imgopt_init(&o);
	s = load(&o, data, &t);
	memset(&r, 0, sizeof(r));
	memset(&c, 0, sizeof(c));
	r.set = s;
	r.stream = trace_find_stream(t, "cpu0");
	/* no time: no task, so no process code */
	assert_true(imgopt_read(&r, &c, BASE + main_addr, got, 8) < 0);
	/* with CR3 learned from a timed read, CR3 alone finds it */
	{
		struct sb_task k;

		assert_int_equal(sb_task_at(imgopt_sb(s), r.stream, 1500,
					    0xabc000, &k), 0);
	}
	c.cr3 = 0xabc000;
	c.have_cr3 = 1;
	assert_int_equal(imgopt_read(&r, &c, BASE + main_addr, got, 8), 8);
	imgopt_free(s);
	trace_close(t);
	imgopt_release(&o);
}

/*
 * Sync-switch: a stretch of tracing belongs to the process that ran when it
 * ended, where the process changed once since its start's estimate, if
 * only user space was traced.
 * Fake offset-to-TSC callbacks: offset N is stretch N / 10 (see below).
 */
struct fake_time {
	uint64_t off, tsc, end, end_tsc;	/* end 0: no end known */
};

static const struct fake_time fake[] = {
	{ 10, 1500, 20, 2000 },	/* 100's own stretch */
	{ 30, 4000, 40, 6000 },	/* the enable's estimate lags the switch */
	{ 50, 4000, 0, 0 },	/* the same, no end known: by time */
	{ 60, 7000, 70, 9500 },	/* two changes (the kernel is traced): by time */
	{ 80, 12000, 90, 13000 },	/* 100 again, its switch-in long before */
	{ 100, 10000, 105, 11001 },	/* 300's stretch, its end's estimate a
					 * tick past its switch out at 11000 */
};

static const struct fake_time *fake_at(uint64_t off)
{
	size_t i;

	for (i = 0; i < sizeof(fake) / sizeof(fake[0]); i++)
		if (fake[i].off == off)
			return &fake[i];
	return NULL;
}

static int fake_tsc(void *ctx, uint64_t off, uint64_t *tsc)
{
	const struct fake_time *f = fake_at(off);

	(void)ctx;
	if (!f)
		return -pte_no_time;
	*tsc = f->tsc;
	return 0;
}

static int fake_end(void *ctx, uint64_t off, uint64_t *end, uint64_t *tsc)
{
	const struct fake_time *f = fake_at(off);

	(void)ctx;
	if (!f || !f->end)
		return 1;
	*end = f->end;
	*tsc = f->end_tsc;
	return 0;
}

static void test_sync_switch(void **state)
{
	struct imgopt o;
	struct imgset *s;
	struct trace *t;
	struct imgopt_reader r;
	struct flow_ctx c;
	struct pw d = { 0 }, d2;
	char data[200];
	uint64_t pgoff, vaddr, len, a100, a300;
	uint8_t got[8], want[8];

	(void)state;
	/* 100 runs the program, 300 the library at the same address; on
	 * cpu0 100 runs from 1000, 300 from 5000, 100 from 8000, 300 from
	 * 9000, 100 from 11000 */
	pw_setup(&d);
	pw_comm(&d, 100, 100, 0, 0, "prog", 0);
	exec_seg(fix.prog, &pgoff, &vaddr, &len);
	pw_mmap2(&d, 100, 100, 0, 0, BASE + vaddr, len, pgoff, fix.prog, prog_bid, 0);
	pw_comm(&d, 300, 300, 0, 0, "other", 0);
	pw_mmap2(&d, 300, 300, 0, 0, BASE + vaddr, len, pgoff, fix.lib, lib_bid, 0);
	pw_itrace_start(&d, 100, 100, 1000, 0);
	pw_switch(&d, 1, 100, 100, 300, 300, 5000, 0);
	pw_switch(&d, 0, 300, 300, 100, 100, 5001, 0);
	pw_switch(&d, 1, 300, 300, 100, 100, 8000, 0);
	pw_switch(&d, 0, 100, 100, 300, 300, 8001, 0);
	pw_switch(&d, 1, 100, 100, 300, 300, 9000, 0);
	pw_switch(&d, 0, 300, 300, 100, 100, 9001, 0);
	pw_switch(&d, 1, 300, 300, 100, 100, 11000, 0);
	pw_switch(&d, 0, 100, 100, 300, 300, 11001, 0);
	pw_auxtrace(&d, 0);
	snprintf(data, sizeof(data), "%s/ss.data", fix.dir);
	assert_int_equal(pw_file(data, &d, NULL), 0);
	d2 = d;
	imgopt_init(&o);
	s = load(&o, data, &t);
	memset(&r, 0, sizeof(r));
	memset(&c, 0, sizeof(c));
	r.set = s;
	r.stream = trace_find_stream(t, "cpu0");
	r.tsc_at = fake_tsc;
	r.end_at = fake_end;
	a100 = sb_pid_asid(imgopt_sb(s), 100, 1500);
	a300 = sb_pid_asid(imgopt_sb(s), 300, 6000);
	assert_true(a100 && a300 && a100 != a300);
	assert_int_equal(sb_changes(imgopt_sb(s), r.stream, 4000, 6000), 1);
	assert_int_equal(sb_changes(imgopt_sb(s), r.stream, 7000, 9500), 2);
	assert_int_equal(sb_changes(imgopt_sb(s), r.stream, 6000, 4000), 0);

	c.offset = 10;
	assert_int_equal(imgopt_reader_asid(&r, &c), a100);
	c.offset = 30;
	assert_int_equal(imgopt_reader_asid(&r, &c), a300);
	/* its code is the library's, where time alone reads the program's */
	assert_int_equal(imgopt_read(&r, &c, BASE + vaddr, got, 8), 8);
	assert_int_equal(mi_read(imgopt_mi(s), a300, BASE + vaddr, want, 8), 8);
	assert_memory_equal(got, want, 8);
	c.offset = 50;
	assert_int_equal(imgopt_reader_asid(&r, &c), a100);
	c.offset = 60;
	assert_int_equal(imgopt_reader_asid(&r, &c), a300);
	c.offset = 80;
	assert_int_equal(imgopt_reader_asid(&r, &c), a100);
	/* the switch out at the end is not a change inside the stretch */
	assert_int_equal(sb_changes(imgopt_sb(s), r.stream, 10000, 11001), 0);
	c.offset = 100;
	assert_int_equal(imgopt_reader_asid(&r, &c), a300);
	/* without the stretch's end, by time alone */
	r.end_at = NULL;
	c.offset = 30;
	assert_int_equal(imgopt_reader_asid(&r, &c), a100);
	imgopt_free(s);
	trace_close(t);
	imgopt_release(&o);

	/* the kernel traced too: a switch needs no TIP.PGD, so one change
	 * before a stretch's end says nothing; by time alone, and a CR3
	 * is learned with the process that ran then */
	assert_int_equal(pw_file_flags(data, &d2, NULL, PW_ATTR_KERNEL_TOO), 0);
	imgopt_init(&o);
	s = load(&o, data, &t);
	r.set = s;
	r.end_at = fake_end;
	a100 = sb_pid_asid(imgopt_sb(s), 100, 1500);
	c.offset = 30;
	c.cr3 = 0x1111;
	c.have_cr3 = 1;
	assert_int_equal(imgopt_reader_asid(&r, &c), a100);
	assert_int_equal(sb_cr3_asid(imgopt_sb(s), 0x1111), a100);
	imgopt_free(s);
	trace_close(t);
	imgopt_release(&o);
	free(d2.p);
}

/* A kernel module: its .ko under --sysroot at its recorded path, or for
 * perf's "[name]" under SYSROOT/lib/modules/RELEASE; relocated through
 * --kallsyms (kmod.h); without it, said why. */
static void test_kernel_module(void **state)
{
	static const char src[] =
		"extern int kfunc(int);\n"
		"__attribute__((noinline)) int mod_helper(int x) { return x + 1; }\n"
		"int mod_entry(int x) { return kfunc(x) + mod_helper(x); }\n";
	static const uint8_t nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	char path[300], cmd[2048], data[200], ks[200], rel[300];
	struct utsname u;
	struct imgopt o;
	struct imgset *s;
	struct trace *t;
	struct pw d = { 0 };
	uint8_t got[8];
	uint64_t at;
	const char *m;
	FILE *f;

	(void)state;
	assert_int_equal(uname(&u), 0);
	snprintf(path, sizeof(path), "%s/mod.c", fix.dir);
	assert_int_equal(codefix_write(path, src), 0);
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/root/lib/modules/9.9/kernel "
		 "'%s/root/lib/modules/%s/kernel/drivers' && cc -c -O1 -fno-pic -pg "
		 "-mfentry -o %s/root/lib/modules/9.9/kernel/fix.ko %s && cp "
		 "%s/root/lib/modules/9.9/kernel/fix.ko '%s/root/lib/modules/%s/"
		 "kernel/drivers/fix_mod.ko'", fix.dir, fix.dir, u.release, fix.dir,
		 path, fix.dir, fix.dir, u.release);
	assert_int_equal(system(cmd), 0);
	snprintf(ks, sizeof(ks), "%s/kallsyms", fix.dir);
	f = fopen(ks, "w");
	assert_non_null(f);
	fprintf(f, "ffffffff81000000 T _text\nffffffff81234560 T kfunc\n");
	fclose(f);
	snprintf(path, sizeof(path), "%s/root/lib/modules/9.9/kernel/fix.ko", fix.dir);
	at = 0xffffffffc0000000ull + codefix_nm(path, "mod_helper");

	/* the recorded path under --sysroot, with --kallsyms */
	snprintf(data, sizeof(data), "%s/km.data", fix.dir);
	recording(data, fix.prog, 1, fix.lib, NULL);
	snprintf(rel, sizeof(rel), "%s/root", fix.dir);
	imgopt_init(&o);
	o.sysroot = rel;
	o.kallsyms = ks;
	s = load(&o, data, &t);
	assert_null(message(s, "fix.ko"));
	assert_int_equal(mi_read(imgopt_mi(s), 0, at, got, 8), 8);
	assert_memory_equal(got, nop5, 5);
	assert_null(imgopt_nocode(s, 0, at));
	imgopt_free(s);
	trace_close(t);

	/* without --kallsyms: its call into the kernel cannot be placed */
	o.kallsyms = NULL;
	s = load(&o, data, &t);
	m = message(s, "fix.ko");
	assert_non_null(m);
	assert_non_null(strstr(m, "no code for the kernel module "
			       "/lib/modules/9.9/kernel/fix.ko: its instructions are "
			       "unknown ("));
	assert_non_null(strstr(m, "'kfunc', which needs --kallsyms"));
	assert_ptr_equal(imgopt_nocode(s, 0, at), m);
	imgopt_free(s);
	trace_close(t);

	/* perf's "[fix_mod]": found as fix-mod.ko or fix_mod.ko under
	 * SYSROOT/lib/modules/RELEASE */
	pw_setup(&d);
	pw_mmap2(&d, -1, 0, 0, 0, 0xffffffffc0000000ull, 0x3000, 0, "[fix-mod]",
		 NULL, 1);
	pw_itrace_start(&d, 100, 100, 1000, 0);
	pw_auxtrace(&d, 0);
	snprintf(data, sizeof(data), "%s/km2.data", fix.dir);
	assert_int_equal(pw_file(data, &d, NULL), 0);
	free(d.p);
	o.kallsyms = ks;
	s = load(&o, data, &t);
	assert_null(message(s, "fix-mod"));
	assert_int_equal(mi_read(imgopt_mi(s), 0, at, got, 8), 8);
	assert_memory_equal(got, nop5, 5);
	imgopt_free(s);
	trace_close(t);
	imgopt_release(&o);
}

/* perf's "[name]" module map where the distribution compresses its
 * modules: NAME.ko.zst under SYSROOT/lib/modules/RELEASE is named, and
 * said not to be read, with what to do (it was "not found under
 * /lib/modules"); a plain NAME.ko beside it is read. */
static void test_module_compressed(void **state)
{
	char dir[300], data[200], root[200], cmd[1400], want[900];
	struct utsname u;
	struct imgopt o;
	struct imgset *s;
	struct trace *t;
	struct pw d = { 0 };
	const char *m;

	(void)state;
	assert_int_equal(uname(&u), 0);
	snprintf(root, sizeof(root), "%s/zroot", fix.dir);
	snprintf(dir, sizeof(dir), "%s/lib/modules/%s/kernel/fs", root, u.release);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && echo x > '%s/zmod_x.ko.zst'",
		 dir, dir);
	assert_int_equal(system(cmd), 0);
	pw_setup(&d);
	pw_mmap2(&d, -1, 0, 0, 0, 0xffffffffc0000000ull, 0x3000, 0, "[zmod-x]",
		 NULL, 1);
	pw_itrace_start(&d, 100, 100, 1000, 0);
	pw_auxtrace(&d, 0);
	snprintf(data, sizeof(data), "%s/zm.data", fix.dir);
	assert_int_equal(pw_file(data, &d, NULL), 0);
	free(d.p);
	imgopt_init(&o);
	o.sysroot = root;
	s = load(&o, data, &t);
	m = message(s, "[zmod-x]");
	assert_non_null(m);
	snprintf(want, sizeof(want), "(compressed modules are not read: "
		 "%s/zmod_x.ko.zst; decompress it to %s/zmod_x.ko)", dir, dir);
	assert_non_null(strstr(m, want));
	assert_null(strstr(m, "not found"));
	assert_ptr_equal(imgopt_nocode(s, 0, 0xffffffffc0000010ull), m);
	imgopt_free(s);
	trace_close(t);

	/* decompressed beside it (here: a damaged one): that file is read */
	snprintf(cmd, sizeof(cmd), "echo x > '%s/zmod-x.ko'", dir);
	assert_int_equal(system(cmd), 0);
	s = load(&o, data, &t);
	m = message(s, "[zmod-x]");
	assert_non_null(m);
	assert_null(strstr(m, "compressed"));
	snprintf(want, sizeof(want), "%s/zmod-x.ko", dir);
	assert_non_null(strstr(m, want));
	imgopt_free(s);
	trace_close(t);
	imgopt_release(&o);
}

/* Copy @from to @to, making directories. */
static void copy(const char *from, const char *to)
{
	char cmd[2048];

	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\" && cp '%s' '%s'",
		 to, from, to);
	assert_int_equal(system(cmd), 0);
}

static void test_sysroot(void **state)
{
	struct imgopt o;
	struct imgset *s;
	struct trace *t;
	char data[200], root[200], path[400], buf[64];
	unsigned long long main_addr = codefix_nm(fix.prog, "main");

	(void)state;
	snprintf(data, sizeof(data), "%s/sr.data", fix.dir);
	snprintf(root, sizeof(root), "%s/root", fix.dir);
	snprintf(path, sizeof(path), "%s/opt/app/prog", root);
	copy(fix.prog, path);
	/* no build ID in the record: --sysroot is trusted */
	recording(data, "/opt/app/prog", 0, "/opt/app/libfix.so", NULL);
	imgopt_init(&o);
	s = load(&o, data, &t);
	assert_non_null(message(s, "no code for /opt/app/prog: its "
				"instructions are unknown"));
	imgopt_free(s);
	trace_close(t);
	o.sysroot = root;
	s = load(&o, data, &t);
	imgopt_symbol(s, asid100(s, t), BASE + main_addr, buf, sizeof(buf));
	assert_string_equal(buf, "main+0x0");
	same_bytes(s, asid100(s, t), BASE + main_addr, fix.prog, main_addr);
	/* the library is not there: once, though two spaces map it */
	assert_int_equal(count_messages(s, "/opt/app/libfix.so"), 1);
	assert_non_null(message(s, "no code for /opt/app/libfix.so: its "
				"instructions are unknown"));
	imgopt_free(s);
	trace_close(t);
	imgopt_release(&o);
}

static void test_buildid_cache(void **state)
{
	struct imgopt o;
	struct imgset *s;
	struct trace *t;
	char data[200], home[200], path[600], hex[41], cmd[1400], buf[64];
	char *old_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	unsigned long long add = codefix_nm(fix.lib, "fix_add");
	size_t i;

	(void)state;
	for (i = 0; i < 20; i++)
		snprintf(hex + 2 * i, 3, "%02x", lib_bid[i]);
	snprintf(data, sizeof(data), "%s/bc.data", fix.dir);
	snprintf(home, sizeof(home), "%s/home", fix.dir);
	/* perf's layout: .build-id/XX/REST -> ../../PATH/BUILDID/, the file
	 * as elf inside */
	snprintf(path, sizeof(path), "%s/.debug/gone/libfix.so/%s/elf", home,
		 hex);
	copy(fix.lib, path);
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/.debug/.build-id/%.2s && "
		 "ln -s ../../gone/libfix.so/%s %s/.debug/.build-id/%.2s/%s",
		 home, hex, hex, home, hex, hex + 2);
	assert_int_equal(system(cmd), 0);
	recording(data, fix.prog, 1, "/gone/libfix.so", lib_bid);
	setenv("HOME", home, 1);
	unsetenv("PERF_BUILDID_DIR");
	imgopt_init(&o);
	s = load(&o, data, &t);
	imgopt_symbol(s, asid100(s, t), LIBBASE + add, buf, sizeof(buf));
	assert_string_equal(buf, "fix_add+0x0");
	assert_null(message(s, "libfix"));
	imgopt_free(s);
	trace_close(t);

	/* the older layout: the link is the file */
	snprintf(cmd, sizeof(cmd), "rm -rf %s/.debug && mkdir -p "
		 "%s/.debug/gone && cp %s %s/.debug/gone/%s && mkdir -p "
		 "%s/.debug/.build-id/%.2s && ln -s ../../gone/%s "
		 "%s/.debug/.build-id/%.2s/%s", home, home, fix.lib, home, hex,
		 home, hex, hex, home, hex, hex + 2);
	assert_int_equal(system(cmd), 0);
	s = load(&o, data, &t);
	imgopt_symbol(s, asid100(s, t), LIBBASE + add, buf, sizeof(buf));
	assert_string_equal(buf, "fix_add+0x0");
	imgopt_free(s);
	trace_close(t);

	/* --buildid-dir elsewhere: not found, said with the build ID */
	o.buildid_dir = fix.dir;
	s = load(&o, data, &t);
	assert_non_null(message(s, "no code for /gone/libfix.so (build ID "));
	assert_non_null(message(s, hex));
	imgopt_free(s);
	trace_close(t);
	imgopt_release(&o);
	if (old_home)
		setenv("HOME", old_home, 1);
	free(old_home);
}

static void test_wrong_build_id(void **state)
{
	struct imgopt o;
	struct imgset *s;
	struct trace *t;
	char data[200];
	uint8_t other[20];
	const char *m;

	(void)state;
	memcpy(other, lib_bid, 20);
	other[0] ^= 0x55;
	snprintf(data, sizeof(data), "%s/wb.data", fix.dir);
	recording(data, fix.prog, 1, fix.lib, other);
	imgopt_init(&o);
	o.buildid_dir = fix.dir;
	s = load(&o, data, &t);
	m = message(s, fix.lib);
	assert_non_null(m);
	assert_non_null(strstr(m, "no code for"));
	assert_non_null(strstr(m, "its instructions are unknown"));
	assert_non_null(strstr(m, "expected"));
	assert_null(strchr(m, '\n'));
	assert_int_equal(count_messages(s, fix.lib), 1);
	/* the library's rows say why: in both processes' mappings */
	{
		uint64_t pgoff, vaddr, len;

		exec_seg(fix.lib, &pgoff, &vaddr, &len);
		assert_ptr_equal(imgopt_nocode(s, asid100(s, t), LIBBASE + vaddr), m);
		assert_ptr_equal(imgopt_nocode(s, sb_pid_asid(imgopt_sb(s), 200, 3000),
					       LIBBASE + 0x100000 + vaddr), m);
	}
	imgopt_free(s);
	trace_close(t);
	imgopt_release(&o);
}

/* A mapping whose range runs past the top of the address space (a
 * damaged record) is left out with a message naming its record; the
 * rest loads (it failed the whole load, with an empty message). */
static void test_mapping_wraps(void **state)
{
	struct imgopt o;
	struct imgset *s;
	struct trace *t;
	struct pw d = { 0 };
	char data[200], want[64];
	uint64_t pgoff, vaddr, len;
	const char *m;
	uint8_t b[4];

	(void)state;
	pw_setup(&d);
	pw_comm(&d, 100, 100, 0, 0, "prog", 0);
	exec_seg(fix.prog, &pgoff, &vaddr, &len);
	assert_true(len > 16);
	pw_mmap2(&d, 100, 100, 0, 0, UINT64_MAX - 0xf, len, pgoff, fix.prog,
		 prog_bid, 0);
	pw_mmap2(&d, 100, 100, 0, 0, LIBBASE + vaddr, len, pgoff, fix.prog,
		 prog_bid, 0);
	pw_itrace_start(&d, 100, 100, 1000, 0);
	pw_auxtrace(&d, 0);
	snprintf(data, sizeof(data), "%s/wrap.data", fix.dir);
	assert_int_equal(pw_file(data, &d, NULL), 0);
	free(d.p);
	imgopt_init(&o);
	s = load(&o, data, &t);
	m = message(s, "runs past the top of the address space");
	assert_non_null(m);
	/* the data section at 0x100: AUXTRACE_INFO, TIME_CONV, COMM, it */
	snprintf(want, sizeof(want), "offset %#x: the mapping of ", 0x100 + 0x98 + 0x20 + 0x38);
	assert_non_null(strstr(m, want));
	assert_non_null(strstr(m, fix.prog));
	assert_null(strchr(m, '\n'));
	/* the other mapping's code is there */
	assert_int_equal(mi_read(imgopt_mi(s), sb_pid_asid(imgopt_sb(s), 100, 1000),
				 LIBBASE + vaddr, b, 4), 4);
	imgopt_free(s);
	trace_close(t);
	imgopt_release(&o);
}

/* A perf.data whose one kernel map @name starts at @start with page offset
 * @pgoff (what perf writes: the runtime address of the symbol the name
 * ends in) and build ID @bid, at @out; with @tramp, a PTI entry
 * trampoline's map too, as perf writes it (its code at @start + 0x40). */
static void kernel_recording(const char *out, const char *name, uint64_t start,
			     uint64_t pgoff, const uint8_t *bid, int tramp)
{
	struct pw d = { 0 };

	pw_setup(&d);
	pw_mmap2(&d, -1, 0, 0, 0, start, 0x1000000, pgoff, name, bid, 1);
	if (tramp)
		pw_mmap2(&d, -1, 0, 0, 0, 0xfffffe0000006000ull, 0x1000, start + 0x40,
			 "[kernel.kallsyms]__entry_SYSCALL_64_trampoline", bid, 1);
	pw_itrace_start(&d, 100, 100, 1000, 0);
	pw_auxtrace(&d, 0);
	assert_int_equal(pw_file(out, &d, NULL), 0);
	free(d.p);
}

/* A fake vmlinux @vm (kfunc in .text at 0xffffffff81000000) put into the
 * build-ID cache @cache as perf lays it out, its build ID into @bid.  With
 * @script, linked as a vmlinux is (_text first, a per-CPU segment at 0);
 * else with ld -Ttext, which puts the build-ID note in a segment of its
 * own below the code (no _text symbol either). */
static void kcache_build(const char *vm, const char *cache, int script,
			 uint8_t *bid)
{
	char src[310], lds[310], cmd[1600], hex[41];
	struct elfimg *e;
	const uint8_t *id;
	size_t i;

	snprintf(src, sizeof(src), "%s.c", vm);
	snprintf(lds, sizeof(lds), "%s.lds", vm);
	assert_int_equal(codefix_write(src, "int kfunc(int x) { return x * 5 + 1; }\n"
		"int kfunc2(int x) { return kfunc(x * 7) * kfunc(x + 3) + 2; }\n"
		"__attribute__((section(\".data..percpu\"))) int pcpu[64] = { 1, 2 };\n"), 0);
	assert_int_equal(codefix_write(lds,
		"PHDRS { text PT_LOAD FLAGS(5); percpu PT_LOAD FLAGS(6); note PT_NOTE; }\n"
		"SECTIONS {\n  . = 0xffffffff81000000;\n"
		"  .text : { _text = .; . += 0x40; *(.text*) } :text\n"
		"  .notes : { *(.note.*) } :text :note\n"
		"  .data..percpu 0 : AT(0x1000) { *(.data..percpu) } :percpu\n"
		"  /DISCARD/ : { *(.note.GNU-stack) *(.comment) *(.eh_frame) }\n}\n"), 0);
	snprintf(cmd, sizeof(cmd), "cc -O1 -c -fno-pic -o %s.o %s && ld --build-id -e kfunc "
		 "%s%s -o %s %s.o", vm, src, script ? "-T " : "-Ttext=0xffffffff81000000",
		 script ? lds : "", vm, vm);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(elfimg_open(&e, vm, cmd, sizeof(cmd)), 0);
	assert_int_equal(elfimg_build_id(e, &id), 20);
	memcpy(bid, id, 20);
	elfimg_close(e);
	for (i = 0; i < 20; i++)
		snprintf(hex + 2 * i, 3, "%02x", bid[i]);
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/.build-id/%.2s/%s && cp %s "
		 "%s/.build-id/%.2s/%s/elf", cache, hex, hex + 2, vm, cache, hex,
		 hex + 2);
	assert_int_equal(system(cmd), 0);
}

/* The kernel's code from the build-ID cache (--buildid-dir): perf's
 * kernel map has pgoff = the runtime address of _text, not a file offset,
 * so the vmlinux is relocated as --elf FILE:BASE does (KASLR's offset
 * too); where nothing can be mapped a message names the file.  Both
 * layouts of kcache_build(). */
static void test_kernel_cache(void **state)
{
	const uint64_t kaslr = 0x1d000000, text = 0xffffffff81000000ull;
	char cache[200], vm[300], data[300], buf[64];
	uint64_t kf, pgoff, vaddr, len;
	struct imgopt o;
	struct imgset *s;
	struct trace *t;
	const char *m;
	uint8_t bid[20], b[4];
	size_t n;
	int script;

	(void)state;
	snprintf(cache, sizeof(cache), "%s/kcache", fix.dir);
	snprintf(data, sizeof(data), "%s/kc.data", fix.dir);
	imgopt_init(&o);
	o.buildid_dir = cache;
	for (script = 0; script < 2; script++) {
		snprintf(vm, sizeof(vm), "%s/vmlinux%d", fix.dir, script);
		kcache_build(vm, cache, script, bid);
		kf = codefix_nm(vm, "kfunc");
		assert_true(kf >= text);
		exec_seg(vm, &pgoff, &vaddr, &len);

		/* as perf writes it, with KASLR: start = pgoff = runtime _text */
		kernel_recording(data, "[kernel.kallsyms]_text", text + kaslr,
				 text + kaslr, bid, 0);
		s = load(&o, data, &t);
		assert_int_equal(imgopt_nmessages(s), 0);
		n = mi_count(imgopt_mi(s));
		same_bytes(s, 0, kf + kaslr, vm, kf - vaddr + pgoff);
		imgopt_symbol(s, 7, kf + kaslr + 1, buf, sizeof(buf));
		assert_string_equal(buf, "kfunc+0x1");
		/* the per-CPU segment (linked at 0) is not mapped at the offset */
		assert_true(mi_read(imgopt_mi(s), 0, kaslr, b, sizeof(b)) < 0);
		assert_null(imgopt_nocode(s, 0, kf + kaslr));
		imgopt_free(s);
		trace_close(t);

		/* an entry trampoline's map is not the kernel relocated again:
		 * its code is said to be unknown */
		kernel_recording(data, "[kernel.kallsyms]_text", text + kaslr,
				 text + kaslr, bid, 1);
		s = load(&o, data, &t);
		assert_int_equal(mi_count(imgopt_mi(s)), n);
		assert_int_equal(imgopt_nmessages(s), 1);
		assert_non_null(message(s, "_trampoline (build ID "));
		same_bytes(s, 0, kf + kaslr, vm, kf - vaddr + pgoff);
		imgopt_free(s);
		trace_close(t);

		/* a page offset that is no address and no offset in the file:
		 * nothing mapped, and a message naming the file says so */
		kernel_recording(data, "[kernel.kallsyms]_text", text,
				 0x7f0000000000ull, bid, 0);
		s = load(&o, data, &t);
		m = message(s, "no code for the kernel [kernel.kallsyms]_text");
		assert_non_null(m);
		assert_non_null(strstr(m, "/kcache/.build-id/"));
		assert_ptr_equal(imgopt_nocode(s, 0, kf), m);
		imgopt_free(s);
		trace_close(t);
	}
	imgopt_release(&o);
}

/* The kernel's code from --elf vmlinux without BASE: relocated by the
 * kernel map's _text (KASLR) as the build-ID cache's copy is; with BASE it
 * stays where the user put it, and the message says where perf says the
 * kernel ran.  Both layouts of kcache_build(). */
static void test_kernel_elf(void **state)
{
	const uint64_t kaslr = 0x1d000000, text = 0xffffffff81000000ull;
	char cache[200], vm[300], data[300], spec[340], buf[64];
	uint64_t kf, pgoff, vaddr, len;
	const char *elfs[1];
	struct imgopt o;
	struct imgset *s;
	struct trace *t;
	const char *m;
	uint8_t bid[20];
	int script;

	(void)state;
	snprintf(cache, sizeof(cache), "%s/kcache_elf", fix.dir);
	snprintf(data, sizeof(data), "%s/ke.data", fix.dir);
	for (script = 0; script < 2; script++) {
		snprintf(vm, sizeof(vm), "%s/vmlinux_e%d", fix.dir, script);
		kcache_build(vm, cache, script, bid);
		kf = codefix_nm(vm, "kfunc");
		exec_seg(vm, &pgoff, &vaddr, &len);
		kernel_recording(data, "[kernel.kallsyms]_text", text + kaslr,
				 text + kaslr, bid, 0);
		imgopt_init(&o);
		o.buildid_dir = "/nonexistent";
		o.elf = elfs;
		o.nelf = 1;
		elfs[0] = vm;
		s = load(&o, data, &t);
		assert_int_equal(imgopt_nmessages(s), 0);
		same_bytes(s, 0, kf + kaslr, vm, kf - vaddr + pgoff);
		imgopt_symbol(s, 7, kf + kaslr + 1, buf, sizeof(buf));
		assert_string_equal(buf, "kfunc+0x1");
		imgopt_free(s);
		trace_close(t);

		/* BASE is the user's: kept, and said to miss */
		snprintf(spec, sizeof(spec), "%s:%#llx", vm,
			 (unsigned long long)text);
		elfs[0] = spec;
		s = load(&o, data, &t);
		m = message(s, "no code for the kernel [kernel.kallsyms]_text");
		assert_non_null(m);
		assert_non_null(strstr(m, ":BASE put nothing at the mapping's "
				       "start 0xffffffff9e000000; perf's map "
				       "says _text ran at 0xffffffff9e000000"));
		assert_null(strstr(m, "give --elf vmlinux"));
		imgopt_free(s);
		trace_close(t);
	}
}

/* Per-thread, no time conversion, a process that exec'd: its code is
 * left unknown (no image guessed for it), and a message says why. */
static void test_untimed_exec(void **state)
{
	struct imgopt o;
	struct imgset *s;
	struct trace *t;
	struct pw d = { 0 };
	char data[200];
	size_t i, n = 0;

	(void)state;
	pw_untimed_exec(&d, 1);
	snprintf(data, sizeof(data), "%s/untimed.data", fix.dir);
	assert_int_equal(pw_file(data, &d, NULL), 0);
	free(d.p);
	imgopt_init(&o);
	s = load(&o, data, &t);
	for (i = 0; i < imgopt_nmessages(s); i++)
		n += strstr(imgopt_message(s, i), "no time conversion") &&
		     strstr(imgopt_message(s, i), "1 process changed image (exec)") &&
		     !strchr(imgopt_message(s, i), '\n');
	assert_int_equal(n, 1);
	assert_int_equal(imgopt_asid(s, 0, 5000, 1, 0, 0), SB_ASID_NONE);
	imgopt_free(s);
	trace_close(t);
	imgopt_release(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_args),
		cmocka_unit_test(test_elf_option),
		cmocka_unit_test(test_elf_percpu),
		cmocka_unit_test(test_elf_overlap),
		cmocka_unit_test(test_kallsyms),
		cmocka_unit_test(test_find_function),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_recorded_path),
		cmocka_unit_test(test_reader),
		cmocka_unit_test(test_sync_switch),
		cmocka_unit_test(test_kernel_module),
		cmocka_unit_test(test_module_compressed),
		cmocka_unit_test(test_sysroot),
		cmocka_unit_test(test_buildid_cache),
		cmocka_unit_test(test_wrong_build_id),
		cmocka_unit_test(test_untimed_exec),
		cmocka_unit_test(test_mapping_wraps),
		cmocka_unit_test(test_kernel_cache),
		cmocka_unit_test(test_kernel_elf),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
