/* timing_file -- TRACE.options beside a raw trace (timing_file.h). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "perfdata.h"
#include "ptdec.h"
#include "safefile.h"
#include "timing_file.h"
#include "timing_opt.h"
#include "tm.h"
#include "trace_types.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

/* Options whose value is a path that may hold blanks: the rest of the
 * line is theirs (flow's image options, ptrecord's --raw lines). */
static const char *const image_opts[] = {
	"--raw", "--elf", "--sysroot", "--kallsyms", "--buildid-dir",
};

int timing_file_path(const char *trace, char *buf, size_t size)
{
	char *real;
	struct stat st;
	int n;

	if (!trace || !buf || !size)
		return -pte_invalid;
	if ((size_t)snprintf(buf, size, "%s.options", trace) >= size)
		return -pte_invalid;
	/* A link to a trace recorded elsewhere: its options were written
	 * beside the file it names, and the link's name has none. */
	if (!lstat(buf, &st) || errno != ENOENT || lstat(trace, &st) || !S_ISLNK(st.st_mode))
		return 0;
	real = realpath(trace, NULL);
	if (!real)
		return 0;
	n = snprintf(NULL, 0, "%s.options", real);
	if (n > 0 && (size_t)n < size) {
		char alt[4200];

		if ((size_t)n < sizeof(alt) && snprintf(alt, sizeof(alt), "%s.options", real) == n &&
		    !lstat(alt, &st))
			memcpy(buf, alt, (size_t)n + 1);
	}
	free(real);
	return 0;
}

static int is_image_opt(const char *opt, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(image_opts) / sizeof(image_opts[0]); i++)
		if (strlen(image_opts[i]) == len && !strncmp(opt, image_opts[i], len))
			return 1;
	return 0;
}

/* The next blank-separated word of *@p, NUL-terminated in place, moving
 * *@p past it.  Returns NULL at the end of the line. */
static char *next_word(char **p)
{
	char *w = *p + strspn(*p, " \t"), *e;

	if (!*w)
		return NULL;
	e = w + strcspn(w, " \t");
	*p = *e ? e + 1 : e;
	*e = 0;
	return w;
}

/* Image option @w (its name @olen long, cut at '=' @eq if not NULL) and
 * the rest of its line (from @p, where next_word() left it) to @fn: the
 * value is the rest of the line, blanks around it taken off.  Returns 0,
 * or -1 with why in @why. */
static int image_line(char *w, size_t olen, char *eq, char *p,
		      timing_file_image_fn *fn, void *ctx, char *why, size_t len)
{
	char *end = w + strlen(w), *v;

	if (!fn)
		return 0;
	if (end < p)
		*end = ' ';	/* the blank next_word() cut the word at */
	v = eq ? eq + 1 : end;
	v += strspn(v, " \t");
	end = v + strlen(v);
	while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
		*--end = 0;
	w[olen] = 0;
	return fn(ctx, w + 2, v, why, len) < 0 ? -1 : 0;
}

/* One line's options into @cfg, its image option to @fn (see
 * timing_file.h).  Returns 0, or -1 with why in @why. */
static int parse_line(char *line, struct tm_config *cfg,
		      timing_file_image_fn *fn, void *ctx, char *why, size_t len)
{
	char *p = line, *w, *eq, *val;
	size_t olen;
	int r;

	while ((w = next_word(&p))) {
		if (w[0] != '-' || w[1] != '-' || !w[2]) {
			snprintf(why, len, "'%.40s' is not an option", w);
			return -1;
		}
		eq = strchr(w, '=');
		olen = eq ? (size_t)(eq - w) : strlen(w);
		if (is_image_opt(w, olen))
			return image_line(w, olen, eq, p, fn, ctx, why, len);
		if (eq)
			*eq = 0;
		val = eq ? eq + 1 : NULL;
		if (!val) {
			/* A value is the next word unless it is an option. */
			const char *q = p + strspn(p, " \t");

			if (q[0] != '-' || q[1] != '-')
				val = next_word(&p);
		}
		r = timing_option(cfg, w, val);
		if (r < 0) {
			snprintf(why, len, "%.40s: %s%.40s%s", w, val ? "bad value '" :
				 "missing value", val ? val : "", val ? "'" : "");
			return -1;
		}
		/* Not a timing option: another tool's, skipped with its value. */
	}
	return 0;
}

int timing_file_read(const char *path, struct tm_config *cfg, char *err,
		     size_t errlen)
{
	return timing_file_read_images(path, cfg, NULL, NULL, err, errlen);
}

int timing_file_read_images(const char *path, struct tm_config *cfg,
			    timing_file_image_fn *fn, void *ctx, char *err,
			    size_t errlen)
{
	char *line = NULL, why[160];
	unsigned lineno = 0;
	size_t cap = 0, n;
	ssize_t len;
	int ret = 1;
	FILE *f;

	if (!path || !cfg || !err || !errlen)
		return -pte_invalid;
	err[0] = 0;
	f = safefile_fopen_read(path, TIMING_FILE_MAX);
	if (!f && (errno == ENOENT || errno == ENOTDIR))
		return 0;
	if (!f && errno == EFBIG) {
		snprintf(err, errlen, "%s: bigger than %u MiB: not an options file",
			 path, TIMING_FILE_MAX >> 20);
		return -pte_io;
	}
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, safefile_strerror(errno));
		return -pte_io;
	}
	errno = 0;
	while ((len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		n = strcspn(line, "\r\n");
		/* getline() counts what strcspn() stops at: a NUL inside. */
		if (n < (size_t)len && line[n] == 0) {
			snprintf(err, errlen, "%s:%u: a NUL byte: not a text file",
				 path, lineno);
			ret = -pte_bad_config;
			break;
		}
		/* A CR ends a line only before its LF (or the file's end):
		 * one inside cut the rest of the line off unsaid. */
		if (line[n] == '\r' && n + 1 < (size_t)len && line[n + 1] != '\n') {
			snprintf(err, errlen, "%s:%u: a CR inside the line (only CRLF "
				 "may end one)", path, lineno);
			ret = -pte_bad_config;
			break;
		}
		line[n] = 0;
		if (line[strspn(line, " \t")] == '#')
			continue;
		if (parse_line(line, cfg, fn, ctx, why, sizeof(why)) < 0) {
			snprintf(err, errlen, "%s:%u: %s", path, lineno, why);
			ret = -pte_bad_config;
			break;
		}
	}
	if (ret > 0 && ferror(f)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno ? errno : EIO));
		ret = errno == ENOMEM ? -pte_nomem : -pte_io;
	}
	free(line);
	fclose(f);
	return ret;
}

/* Whether the file at @path may be replaced by an options file: there is
 * none (or it cannot be read: safefile_create() says why), it is empty,
 * or it reads as one (every line blank, a '#' comment or options
 * "--opt ...").  A name made up beside the user's may hold the user's
 * notes: those are not wiped.  Returns 1 if so, 0 if not. */
static int replaceable(const char *path)
{
	char *line = NULL;
	size_t cap = 0;
	struct stat st;
	ssize_t len;
	int ok = 1;
	FILE *f;

	/* a link or a file not regular: safefile_create() refuses it */
	if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return 1;
	f = safefile_fopen_read(path, TIMING_FILE_MAX);
	if (!f)
		return errno != EFBIG;
	while (ok && (len = getline(&line, &cap, f)) >= 0) {
		const char *p = line + strspn(line, " \t");

		if (strlen(line) != (size_t)len)	/* a NUL: not text */
			ok = 0;
		else if (*p && *p != '\n' && *p != '\r' && *p != '#' &&
			 (p[0] != '-' || p[1] != '-'))
			ok = 0;
	}
	free(line);
	fclose(f);
	return ok;
}

int timing_file_start(struct safefile **out_f, const char *out, const struct tm_config *cfg,
		      const struct safefile_opts *o, char *err, size_t errlen)
{
	static const struct safefile_opts defaults;
	struct safefile_opts fo = o ? *o : defaults;
	char path[4200], opts[256];
	struct safefile *f;
	FILE *s;
	int r;

	if (!out_f || !out || !cfg)
		return -pte_invalid;
	*out_f = NULL;
	if (timing_file_path(out, path, sizeof(path)) < 0) {
		snprintf(err, errlen, "%.200s...: name too long", out);
		return -pte_invalid;
	}
	if (!replaceable(path)) {
		snprintf(err, errlen, "%s: not an options file: not replaced "
			 "(move it away to write %s)", path, out);
		return -pte_bad_config;
	}
	/* A name we make up beside the user's: a link there is refused. */
	fo.flags = SAFEFILE_NOFOLLOW | (fo.flags & SAFEFILE_NOSYNC);
	r = safefile_create(&f, path, &fo, err, errlen);
	if (r < 0)
		return r;
	perfdata_ptdump_options(cfg, opts, sizeof(opts));
	s = safefile_stream(f);
	if (!s) {
		safefile_abort(f);
		snprintf(err, errlen, "%s: out of memory", path);
		return -pte_nomem;
	}
	fprintf(s, "%s\n", opts);
	*out_f = f;
	return 0;
}

int timing_file_write(const char *out, const struct tm_config *cfg,
		      const struct safefile_opts *o, char *err, size_t errlen)
{
	struct safefile *f;
	int r;

	if (!err || !errlen)
		return -pte_invalid;
	r = timing_file_start(&f, out, cfg, o, err, errlen);
	return r < 0 ? r : safefile_commit(f, err, errlen);
}

/* This machine's options that give times ("--cpu auto --nom-freq 21
 * ..."), from CPUID leaves 0x15 and 0x16 of an Intel CPU.  Returns 1 if
 * @buf holds some, 0 if CPUID does not say (another vendor, an old CPU). */
static int here_opts(char *buf, size_t size)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d, max, nom = 0;
	size_t len;

	if (!__get_cpuid(0, &max, &b, &c, &d) ||
	    b != 0x756e6547 || d != 0x49656e69 || c != 0x6c65746e)
		return 0;	/* not "GenuineIntel" */
	if (max >= 0x16) {
		__cpuid_count(0x16, 0, a, b, c, d);
		nom = (a & 0xffff) / 100;	/* the base MHz is P1 * 100 */
	}
	len = (size_t)snprintf(buf, size, "--cpu auto --mtc-freq 3");
	if (nom && nom < 256 && len < size)
		len += (size_t)snprintf(buf + len, size - len, " --nom-freq %u", nom);
	if (max >= 0x15 && len < size) {
		__cpuid_count(0x15, 0, a, b, c, d);
		if (a && b)
			len += (size_t)snprintf(buf + len, size - len,
				" --cpuid-0x15.eax %u --cpuid-0x15.ebx %u", a, b);
		if (a && b && c && len < size)
			snprintf(buf + len, size - len, " --cpuid-0x15.ecx %u", c);
	}
	return nom || max >= 0x15;
#else
	(void)buf;
	(void)size;
	return 0;
#endif
}

int timing_file_hint(const struct trace *t, const struct tm_config *cfg,
		     char *buf, size_t size)
{
	char here[200], what[120];
	const char *name;

	if (!buf || !size)
		return 0;
	buf[0] = 0;
	if (!t || !cfg || t->kind != TRACE_RAW || tm_tsc_hz(cfg, 1))
		return 0;
	name = strrchr(t->path, '/');
	name = name ? name + 1 : t->path;
	if (t->options_read)
		snprintf(what, sizeof(what), "%.60s.options gives no TSC frequency", name);
	else
		snprintf(what, sizeof(what), "no timing options (no %.60s.options)", name);
	if (here_opts(here, sizeof(here)))
		snprintf(buf, size, "%s: times are TSC ticks; if it was recorded "
			 "here, put '%s' in %.60s.options", what, here, name);
	else
		snprintf(buf, size, "%s: times are TSC ticks; put the recording "
			 "CPU's --nom-freq P1 (or --tsc-freq HZ) and --mtc-freq N in "
			 "%.60s.options", what, name);
	return 1;
}
