/*
 * codefix -- a fixture for the code-layer tests (test_elfimg, test_symtab,
 * test_sideband, test_imgopt): a tiny C program and a shared library built
 * with cc -g at test time in a fresh temporary directory, and helpers that
 * run nm/readelf on them.
 */
#ifndef CODEFIX_H
#define CODEFIX_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct codefix {
	char dir[64];		/* the temporary directory */
	char prog[128];		/* dir/prog: a PIE executable */
	char lib[128];		/* dir/libfix.so: a shared library */
	char src[128];		/* dir/prog.c */
};

/* The program: a static function, a recursive one, a table of pointers. */
static const char codefix_prog_src[] =
	"static int leaf(int x)\n"
	"{\n"
	"\treturn x * 3 + 1;\n"
	"}\n"
	"int recurse(int n)\n"
	"{\n"
	"\treturn n ? recurse(n - 1) + leaf(n) : 0;\n"
	"}\n"
	"int (*table[])(int) = { recurse, leaf };\n"
	"int main(int argc, char **argv)\n"	/* line 10 */
	"{\n"
	"\t(void)argv;\n"
	"\treturn table[argc & 1](argc);\n"
	"}\n";
#define CODEFIX_MAIN_LINE 10

/* Assembly with nested and aliased functions: outer [0, 0x40) holds
 * inner [0x10, 0x20); sized [0x80, 0x90) has a local alias of size 0
 * (reaching to its section's end: no size of its own); after at 0xc0. */
static const char codefix_nested_src[] =
	"\t.text\n"
	"\t.globl outer\n\t.type outer,@function\nouter:\n"
	"\t.fill 16,1,0x90\n"
	"\t.globl inner\n\t.type inner,@function\ninner:\n"
	"\t.fill 16,1,0x90\n\t.size inner,16\n"
	"\t.fill 32,1,0x90\n\t.size outer,64\n"
	"\t.fill 64,1,0x90\n"
	"\t.type alias0,@function\nalias0:\n"
	"\t.globl sized\n\t.type sized,@function\nsized:\n"
	"\t.fill 16,1,0x90\n\t.size sized,16\n"
	"\t.fill 48,1,0x90\n"
	"\t.globl after\n\t.type after,@function\nafter:\n"
	"\tret\n\t.size after,1\n"
	"\t.globl _start\n\t.type _start,@function\n_start:\n"
	"\tret\n\t.size _start,1\n";


static const char codefix_lib_src[] =
	"int fix_add(int a, int b) { return a + b; }\n"
	"static int fix_local(int a) { return a - 1; }\n"
	"int fix_sub(int a) { return fix_local(a); }\n";

/* Run a shell command; returns its exit status (0: fine). */
static int codefix_sh(const char *fmt, const char *a, const char *b)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), fmt, a, b);
	return system(cmd);
}

static __attribute__((unused)) int codefix_write(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* Build codefix_nested_src into @out (from @src, written here).
 * Returns 0, or non-zero. */
static __attribute__((unused)) int codefix_nested(const char *src, const char *out)
{
	char cmd[1024];

	if (codefix_write(src, codefix_nested_src))
		return -1;
	snprintf(cmd, sizeof(cmd), "cc -nostdlib -static -no-pie -o %s %s", out, src);
	return system(cmd);
}

/* Build the fixture.  Returns 0, or -1 (with a message on stderr). */
static int codefix_build(struct codefix *f)
{
	char lsrc[160];

	snprintf(f->dir, sizeof(f->dir), "/tmp/ptb-codefix-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->src, sizeof(f->src), "%s/prog.c", f->dir);
	snprintf(f->prog, sizeof(f->prog), "%s/prog", f->dir);
	snprintf(f->lib, sizeof(f->lib), "%s/libfix.so", f->dir);
	snprintf(lsrc, sizeof(lsrc), "%s/lib.c", f->dir);
	if (codefix_write(f->src, codefix_prog_src) ||
	    codefix_write(lsrc, codefix_lib_src))
		return -1;
	if (codefix_sh("cc -g -O0 -fPIE -pie -Wl,--build-id=sha1 -o %s %s",
		       f->prog, f->src) ||
	    codefix_sh("cc -g -O0 -fPIC -shared -Wl,--build-id=sha1 -o %s %s",
		       f->lib, lsrc)) {
		fprintf(stderr, "codefix: cc failed\n");
		return -1;
	}
	return 0;
}

/* Remove the fixture's directory. */
static void codefix_clean(struct codefix *f)
{
	if (f->dir[0])
		codefix_sh("rm -rf '%s'%s", f->dir, "");
}

/* The address nm gives @sym in @file, or 0 if it has none. */
static unsigned long long codefix_nm(const char *file, const char *sym)
{
	char cmd[512], line[512], name[256], type;
	unsigned long long addr, found = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm --defined-only '%s' 2>/dev/null", file);
	p = popen(cmd, "r");
	if (!p)
		return 0;
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) == 3 &&
		    !strcmp(name, sym))
			found = addr;
	pclose(p);
	return found;
}

/* @file's GNU build ID as readelf -n prints it, into @buf. */
static __attribute__((unused)) int codefix_build_id(const char *file, char *buf, size_t size)
{
	char cmd[512], line[512];
	FILE *p;
	int ret = -1;

	snprintf(cmd, sizeof(cmd), "readelf -n '%s'", file);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		char *b = strstr(line, "Build ID: ");

		if (b && ret) {
			snprintf(buf, size, "%s", b + 10);
			buf[strcspn(buf, "\n ")] = 0;
			ret = 0;
		}
	}
	pclose(p);
	return ret;
}

#endif /* CODEFIX_H */
