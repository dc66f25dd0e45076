/* export -- write a slice of a stream as a raw PT file (export.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export.h"
#include "perfdata.h"
#include "safefile.h"
#include "timing_file.h"
#include "trace.h"

struct export_job {
	const struct img *img;
	uint64_t from, to;	/* asked for */
	uint64_t start, end;	/* the slice written */
	uint64_t gaps;		/* gaps inside the slice */
	struct safefile *out;
	uint8_t *buf;		/* EXPORT_CHUNK bytes for export_write() */
	int err;		/* errno of a failed write */
	const char *why;	/* what failed, if not a write */
	const struct export_progress *prog;	/* NULL: nobody asks */
	int stopped;		/* prog said stop */
};

/* The first packet boundary at or after @off, decoding from the last
 * PSB before it (or from @start).  Decode errors resynchronise; if no
 * boundary is found, @off itself. */
static uint64_t packet_end(const struct img *img, uint64_t start, uint64_t off)
{
	struct img_cursor cur;
	uint64_t psb, at;
	struct pkt p;
	int r;

	if (off >= img->size)
		return img->size;
	if (img_find_psb_before(img, off + 1, &psb) < 0 || psb < start)
		psb = start;
	if (img_cursor_init(&cur, img, psb) < 0)
		return off;
	for (;;) {
		at = img_cursor_offset(&cur);
		if (at >= off)
			return at;
		r = img_cursor_next(&cur, &p);
		if (r == -pte_eos)
			return img->size;
		/* after a gap the cursor is on the next PSB already */
		if (r < 0 && r != -pte_gap &&
		    img_cursor_sync_forward(&cur, p.offset + 1) < 0)
			return off;
	}
}

/* Find the slice (under trace_guard: it reads the mapping). */
static int export_find(void *arg)
{
	struct export_job *job = arg;
	const struct img *img = job->img;
	uint64_t psb;

	if (!img_find_psb_before(img, job->from + 1, &psb)) {
		job->start = psb;
	} else {
		struct img_cursor cur;

		/* Nothing before FROM: the first PSB inside the range will do. */
		if (img_cursor_init(&cur, img, job->from) < 0 ||
		    img_cursor_sync_forward(&cur, job->from) < 0 ||
		    img_cursor_offset(&cur) >= job->to) {
			job->why = "no PSB at or before FROM, nor inside the range";
			return -1;
		}
		job->start = img_cursor_offset(&cur);
	}
	job->end = packet_end(img, job->start, job->to);
	return 0;
}

/* Check the range and find the slice in it (export_find() under
 * trace_guard), saying why not into @err.  Returns as export_check(). */
static int export_range(struct export_job *job, char *err, size_t errlen)
{
	const struct img *img = job->img;
	int r;

	if (!img || job->from >= job->to || job->from >= img->size) {
		snprintf(err, errlen, "empty or outside range 0x%" PRIx64 "-0x%" PRIx64
			 " (the stream has 0x%" PRIx64 " bytes)", job->from, job->to,
			 img ? img->size : 0);
		return -pte_invalid;
	}
	r = trace_guard(export_find, job);
	if (r == -pte_sigbus) {
		snprintf(err, errlen, "the trace shrank while being read");
		return r;
	}
	if (r < 0) {
		snprintf(err, errlen, "%s", job->why ? job->why : "no slice");
		return -pte_bad_file;
	}
	return 0;
}

int export_check(const struct img *img, uint64_t from, uint64_t to,
		 struct export_result *res, char *err, size_t errlen)
{
	struct export_job job = { .img = img, .from = from, .to = to };
	int r = export_range(&job, err, errlen);

	if (!r && res) {
		res->start = job.start;
		res->end = job.end;
		res->gaps = 0;
	}
	return r;
}

int export_write(struct safefile *f, const uint8_t *data, uint64_t n,
		 uint8_t *buf)
{
	size_t k;

	while (n) {
		k = n < EXPORT_CHUNK ? (size_t)n : EXPORT_CHUNK;
		memcpy(buf, data, k);	/* SIGBUS here if the file shrank */
		if (safefile_write(f, buf, k) < 0)
			return -1;
		data += k;
		n -= k;
	}
	return 0;
}

/* Tell job->prog that the slice is done up to @at.  Returns -1 if it
 * says stop, else 0. */
static int export_tell(struct export_job *job, uint64_t at)
{
	const struct export_progress *p = job->prog;

	if (p && p->fn && p->fn(p->ctx, at - job->start, job->end - job->start)) {
		job->stopped = 1;
		return -1;
	}
	return 0;
}

/* Copy the slice (under trace_guard), a chunk at a time (what
 * export_write() copies at once anyway), saying how far after each. */
static int export_copy(void *arg)
{
	struct export_job *job = arg;
	const struct img *img = job->img;
	uint64_t a, b, k;
	size_t i;

	if (export_tell(job, job->start) < 0)
		return -1;
	for (i = 0; i < img->nspans; i++) {
		const struct img_span *s = &img->spans[i];

		a = s->off > job->start ? s->off : job->start;
		b = s->off + s->size < job->end ? s->off + s->size : job->end;
		if (a >= b)
			continue;
		if (s->gap_before && s->off > job->start)
			job->gaps++;
		for (; a < b; a += k) {
			k = b - a > EXPORT_CHUNK ? EXPORT_CHUNK : b - a;
			if (export_write(job->out, s->data + (a - s->off), k,
					 job->buf) < 0) {
				job->err = errno;
				return -1;
			}
			if (export_tell(job, a + k) < 0)
				return -1;
		}
	}
	/* (the last word: a stop said now still writes nothing) */
	return export_tell(job, job->end);
}

/* OUT.options begun: the timing options of @img's stream, so the slice
 * shows the times it showed here (timing_file.h). */
static int export_options(const struct trace *t, const struct img *img,
			  const char *out, const struct safefile_opts *so,
			  struct safefile **f, char *err, size_t errlen)
{
	struct tm_config none;
	const struct tm_config *cfg = &none;
	size_t i;

	memset(&none, 0, sizeof(none));
	for (i = 0; t && i < t->nstreams; i++)
		if (&t->streams[i].img == img)
			cfg = &t->streams[i].timing;
	return timing_file_start(f, out, cfg, so, err, errlen);
}

/* @path as its directory's real path and its base name, into @buf (a
 * trailing / dropped: extract's -o DIR/ names DIR).  Returns 0, or -1 if
 * the directory cannot be resolved or @path does not end in a name. */
static int export_canon(const char *path, char *buf, size_t size)
{
	char dir[4200], *slash, *real;
	const char *base;
	size_t len = strlen(path);
	int n;

	while (len > 1 && path[len - 1] == '/')
		len--;
	if (len >= sizeof(dir))
		return -1;
	memcpy(dir, path, len);
	dir[len] = 0;
	slash = strrchr(dir, '/');
	base = path + (slash ? (size_t)(slash - dir) + 1 : 0);
	n = (int)(len - (size_t)(base - path));		/* the base's length */
	if (!n || (n == 1 && *base == '.') || (n == 2 && !strncmp(base, "..", 2)))
		return -1;
	if (slash)
		slash[1] = 0;	/* "dir/", "/" */
	real = realpath(slash ? dir : ".", NULL);
	if (!real)
		return -1;
	n = snprintf(buf, size, "%s/%.*s", strcmp(real, "/") ? real : "", n, base);
	free(real);
	return n < 0 || (size_t)n >= size ? -1 : 0;
}

int export_names_options(const struct trace *t, const char *out)
{
	char opts[4200], a[4300], b[4300];

	if (!t || t->piped || timing_file_path(t->path, opts, sizeof(opts)) < 0)
		return 0;
	return !export_canon(out, a, sizeof(a)) &&
	       !export_canon(opts, b, sizeof(b)) && !strcmp(a, b);
}

size_t export_keep(const struct trace *t, const char *marks,
		   struct safefile_keep *keep)
{
	char path[4200];
	size_t n = 0;

	if (!t || !keep)
		return 0;
	/* By identity, not name: a pipe's has none. */
	keep[n].dev = t->dev;
	keep[n].ino = t->ino;
	keep[n++].what = "the trace";
	/* The user's own file beside the trace, whether read or not (a
	 * perf.data file's is not read): binary over it, the trace would
	 * not open again. */
	if (!t->piped && !timing_file_path(t->path, path, sizeof(path)))
		(void)safefile_keep_add(keep, &n, EXPORT_NKEEP, path,
					"the trace's options file");
	(void)safefile_keep_add(keep, &n, EXPORT_NKEEP, marks,
				"the trace's marks file");
	return n;
}

int export_refuse(const struct trace *t, const char *path, char *err,
		  size_t errlen)
{
	struct safefile_keep keep[EXPORT_NKEEP];
	int out = !strcmp(path, "-");
	struct stat st;
	size_t i, n;

	if (!t)
		return 0;
	if (!out && export_names_options(t, path)) {
		snprintf(err, errlen, "%s: is the trace's options file; not "
			 "overwriting it", path);
		return -1;
	}
	if (out ? fstat(STDOUT_FILENO, &st) < 0 : stat(path, &st) < 0)
		return 0;
	n = export_keep(t, NULL, keep);
	for (i = 0; i < n; i++) {
		if (keep[i].dev != st.st_dev || keep[i].ino != st.st_ino)
			continue;
		if (out)
			snprintf(err, errlen, "standard output is %s; not writing "
				 "over it", keep[i].what);
		else
			snprintf(err, errlen, "%s: is %s; not overwriting it", path,
				 keep[i].what);
		return -1;
	}
	return 0;
}

int export_slice(const struct trace *t, const struct img *img, uint64_t from,
		 uint64_t to, const char *out, unsigned int flags,
		 const struct safefile_keep *keep, size_t nkeep,
		 struct export_result *res, char *err, size_t errlen)
{
	return export_slice_progress(t, img, from, to, out, flags, keep, nkeep,
				     NULL, res, err, errlen);
}

int export_slice_progress(const struct trace *t, const struct img *img,
			  uint64_t from, uint64_t to, const char *out,
			  unsigned int flags, const struct safefile_keep *keep,
			  size_t nkeep, const struct export_progress *prog,
			  struct export_result *res, char *err, size_t errlen)
{
	struct export_job job = { .img = img, .from = from, .to = to, .prog = prog };
	struct safefile_keep own[EXPORT_NKEEP];
	struct safefile_opts so = { .flags = flags & SAFEFILE_STDOUT, .mode = 0644 };
	struct safefile *f, *opts = NULL;
	int r;

	if (!out) {
		snprintf(err, errlen, "no file to write");
		return -pte_invalid;
	}
	/* The range first: a slice that cannot be made touches no file. */
	r = export_range(&job, err, errlen);
	if (r < 0)
		return r;
	if (!(flags & SAFEFILE_STDOUT && !strcmp(out, "-")) &&
	    export_names_options(t, out)) {
		snprintf(err, errlen, "%s: is the trace's options file; not "
			 "overwriting it", out);
		return -pte_io;
	}
	/* Truncating the trace under our own mapping would destroy it, and
	 * what the command read is the user's. */
	if (!keep) {
		nkeep = export_keep(t, NULL, own);
		keep = own;
	}
	so.keep = keep;
	so.nkeep = nkeep;
	r = safefile_create(&f, out, &so, err, errlen);
	if (r == -pte_nomem)
		snprintf(err, errlen, "out of memory");
	if (r < 0)
		return r == -pte_nomem ? r : -pte_io;
	job.out = f;
	job.buf = malloc(EXPORT_CHUNK);
	if (!job.buf) {
		safefile_abort(f);
		snprintf(err, errlen, "out of memory");
		return -pte_nomem;
	}
	r = trace_guard(export_copy, &job);
	free(job.buf);
	if (r < 0) {
		safefile_abort(f);	/* the temporary file goes */
		if (r == -pte_sigbus)
			snprintf(err, errlen, "the trace shrank while being read");
		else if (job.stopped)
			snprintf(err, errlen, "stopped; nothing written");
		else
			snprintf(err, errlen, "%s: %s", out, strerror(job.err));
		return r == -pte_sigbus ? r : job.stopped ? -pte_canceled : -pte_io;
	}
	if (!safefile_is_stdout(f) && export_options(t, img, out, &so, &opts, err,
						      errlen) < 0) {
		safefile_abort(f);
		return -pte_io;
	}
	/* Both whole on disk before either replaces a file, and the options
	 * renamed first: whoever finds the new slice finds its options (a
	 * slice without them shows other times, or none). */
	if (safefile_commit_pair(opts, f, err, errlen) < 0)
		return -pte_io;
	res->start = job.start;
	res->end = job.end;
	res->gaps = job.gaps;
	return 0;
}
