/* imgopt_opt -- the image options as the command line and an --options
 * file give them (imgopt.h's struct imgopt, imgopt_opts, imgopt_take()),
 * before any image set is made (imgopt.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "imgopt.h"
#include "memimg.h"
#include "ptdec.h"
#include "timing_file.h"

void imgopt_init(struct imgopt *o)
{
	memset(o, 0, sizeof(*o));
}

void imgopt_release(struct imgopt *o)
{
	if (!o)
		return;
	free(o->raw);
	free(o->elf);
	while (o->nown)
		free(o->own[--o->nown]);
	free(o->own);
	imgopt_init(o);
}

static int imgopt_push(const char ***list, size_t *n, const char *v)
{
	const char **l = realloc(*list, (*n + 1) * sizeof(*l));

	if (!l)
		return -1;
	l[(*n)++] = v;
	*list = l;
	return 0;
}

enum { IO_RAW, IO_ELF, IO_SYSROOT, IO_KALLSYMS, IO_BUILDID_DIR, IO_OPTIONS };

const struct opt imgopt_opts[] = {
	{ "raw", 0, "FILE:ADDR", "a raw memory dump loaded at ADDR, in every address\n"
	  "space (repeatable; dumps must not overlap)", IO_RAW },
	{ "elf", 0, "FILE[:BASE]", "an ELF executable, shared object or vmlinux: its\n"
	  "PT_LOAD segments at their addresses, or relocated so\n"
	  "that its first page is at BASE; with its symbols\n"
	  "(repeatable)", IO_ELF },
	{ "sysroot", 0, "DIR", "look for a perf.data's files under DIR first", IO_SYSROOT },
	{ "kallsyms", 0, "FILE", "kernel symbols (/proc/kallsyms format), no code",
	  IO_KALLSYMS },
	{ "buildid-dir", 0, "DIR", "perf's build-ID cache (default $PERF_BUILDID_DIR,\n"
	  "else ~/.debug)", IO_BUILDID_DIR },
	{ "options", 0, "FILE", "read more image and timing options from FILE, as\n"
	  "TRACE.options holds them (relative paths from FILE's\n"
	  "directory; the command line's timing wins)", IO_OPTIONS },
	{ 0 }
};

/* Image option @id's value @v (kept as long as @o) into @o, from the
 * command line or an --options file alike: --raw loaded at once where
 * there is an image (o->mi), so that a bad dump is reported before the
 * trace is opened.  Returns 0, -ERANGE (a --raw that is not FILE:ADDR),
 * -EIO (a dump that cannot be loaded) or -ENOMEM, with why in @err. */
static int imgopt_set(struct imgopt *o, int id, const char *v, char *err, size_t errlen)
{
	unsigned long long addr;

	switch (id) {
	case IO_RAW:
		/* a bad one is a usage error (exit 2), also in the browser,
		 * which loads its dumps only once the screen is up */
		if (mi_raw_spec(v, &addr, err, errlen) < 0)
			return -ERANGE;
		if (o->mi)
			return mi_add_raw(o->mi, v, err, errlen) < 0 ? -EIO : 0;
		if (imgopt_push(&o->raw, &o->nraw, v))
			break;
		return 0;
	case IO_ELF:
		if (imgopt_push(&o->elf, &o->nelf, v))
			break;
		return 0;
	case IO_SYSROOT: o->sysroot = v; return 0;
	case IO_KALLSYMS: o->kallsyms = v; return 0;
	default: o->buildid_dir = v; return 0;
	}
	snprintf(err, errlen, "out of memory");
	return -ENOMEM;
}

/* Keep @v (malloc'd) as long as @o: its lists may point to it.
 * Returns 0, or -1 if out of memory (@v freed). */
static int imgopt_own(struct imgopt *o, char *v)
{
	char **l = realloc(o->own, (o->nown + 1) * sizeof(*l));

	if (!l) {
		free(v);
		return -1;
	}
	l[o->nown++] = v;
	o->own = l;
	return 0;
}

/* An --options file being read. */
struct imgopt_file {
	struct imgopt *o;
	const char *file;
};

/* timing_file_image_fn: a line's image option of an --options file into
 * the options, as imgopt_take() takes it from the command line; a
 * relative path from the file's directory. */
static int imgopt_file_line(void *ctx, const char *opt, const char *val,
			    char *why, size_t len)
{
	struct imgopt_file *of = ctx;
	const char *slash = strrchr(of->file, '/');
	const struct opt *r;
	char *v;

	for (r = imgopt_opts; r->name && strcmp(r->name, opt); r++)
		;
	if (!r->name || r->id == IO_OPTIONS || !*val) {
		snprintf(why, len, "--%s: missing value", opt);
		return -1;
	}
	if (val[0] != '/' && slash) {
		if (asprintf(&v, "%.*s/%s", (int)(slash - of->file), of->file, val) < 0)
			v = NULL;
	} else {
		v = strdup(val);
	}
	if (!v || imgopt_own(of->o, v) < 0) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	return imgopt_set(of->o, r->id, v, why, len) < 0 ? -1 : 0;
}

/* --options @file: its image lines into @o, its timing lines into
 * o->timing.  Returns 0, or -EIO after reporting why not (FILE:LINE). */
static int imgopt_options(const struct opt_cmd *cmd, struct imgopt *o,
			  const char *file)
{
	struct imgopt_file of = { o, file };
	char err[1024];
	int r;

	r = timing_file_read_images(file, &o->timing, imgopt_file_line, &of, err,
				    sizeof(err));
	if (r == 0)
		snprintf(err, sizeof(err), "%s: %s", file, strerror(ENOENT));
	if (r <= 0) {
		opt_error(cmd, "%s", err);
		return r == -pte_nomem ? -ENOMEM : -EIO;
	}
	return 0;
}

int imgopt_take(const struct opt_cmd *cmd, void *ctx, const struct opt *opt,
		const char *val)
{
	struct imgopt *o = ctx;
	char err[512];
	int r;

	if (!val || !*val) {
		opt_error(cmd, "--%s: missing argument", opt->name);
		return -ERANGE;
	}
	if (opt->id == IO_OPTIONS)
		return imgopt_options(cmd, o, val);
	r = imgopt_set(o, opt->id, val, err, sizeof(err));
	if (r < 0)
		opt_error(cmd, "%s", err);	/* -ERANGE: reported, exit 2 */
	return r;
}
