/*
 * cmd_extract -- `ptbrowse extract`: write each stream of a trace as a raw
 * .pt file, with a .pt.options file holding the ptdump options that
 * decode it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmds.h"
#include "esc.h"
#include "export.h"
#include "opt.h"
#include "perfdata.h"
#include "safefile.h"
#include "timing_file.h"
#include "trace.h"

enum { E_DIR, E_STREAM, E_NOPTS };

static const struct opt extract_cli_opts[] = {
	{ NULL, 'o', "DIR", "the output directory, made (with its parents) if\n"
	  "it does not exist; a symbolic link there at an\n"
	  "output's name is refused, not followed", E_DIR },
	{ "stream", 0, "S", "only stream S (index, cpuN or name)", E_STREAM },
	{ 0 }
};

/* Make @dir and its missing parents (0777 less the umask), as mkdir -p.
 * Returns 0, or -1 with errno set. */
static int make_dir(const char *dir)
{
	char buf[4096], *p;
	size_t n = strlen(dir);

	if (n >= sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, dir, n + 1);
	for (p = buf + 1; *p; p++) {
		if (*p != '/' || p[-1] == '/')
			continue;
		*p = 0;
		if (mkdir(buf, 0777) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(buf, 0777) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

struct extract_job {
	const struct img *img;
	struct safefile *out;
	uint8_t *buf;	/* EXPORT_CHUNK bytes for export_write() */
	int err;	/* errno of a failed write */
};

/* Copy the stream's spans to the file (under trace_guard). */
static int write_spans(void *arg)
{
	struct extract_job *job = arg;
	size_t i;

	for (i = 0; i < job->img->nspans; i++) {
		const struct img_span *s = &job->img->spans[i];

		if (export_write(job->out, s->data, s->size, job->buf) < 0) {
			job->err = errno;
			return -1;
		}
	}
	return 0;
}

/* How extract writes into DIR: never through a symbolic link (the names
 * are ours, so a link there is not the user's choice of a file), never
 * over the trace or its options file (@keep: EXPORT_NKEEP entries). */
static void extract_opts(const struct trace *t, struct safefile_keep *keep,
			 struct safefile_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->flags = SAFEFILE_NOFOLLOW;
	o->mode = 0644;
	o->keep = keep;
	o->nkeep = export_keep(t, NULL, keep);
}

/* Write stream @idx of @t into @dir.  Returns 0 or -1 (reported). */
static int extract_one(const struct trace *t, size_t idx, const char *dir,
		       const char *base)
{
	const struct trace_stream *s = &t->streams[idx];
	struct safefile_keep keep[EXPORT_NKEEP];
	struct safefile_opts o;
	struct extract_job job;
	struct safefile *f, *of;
	char path[4096], opts[256], err[4400];
	uint64_t gaps = 0;
	size_t i;
	int r;

	if (snprintf(path, sizeof(path), "%s/%s.%s.pt", dir, base, s->name) >=
	    (int)sizeof(path)) {
		esc_line(stderr, "ptbrowse extract: ", "%s: path too long", dir);
		return -1;
	}
	extract_opts(t, keep, &o);
	if (safefile_create(&f, path, &o, err, sizeof(err)) < 0) {
		esc_line(stderr, "ptbrowse extract: ", "%s", err);
		return -1;
	}
	job.img = &s->img;
	job.err = 0;
	job.out = f;
	job.buf = malloc(EXPORT_CHUNK);
	if (!job.buf) {
		safefile_abort(f);
		esc_line(stderr, "ptbrowse extract: ", "out of memory");
		return -1;
	}
	r = trace_guard(write_spans, &job);
	free(job.buf);
	if (r == -pte_sigbus) {
		safefile_abort(f);
		esc_line(stderr, "ptbrowse extract: ", "%s: the file shrank while "
			"being read", t->path);
		return -1;
	}
	if (r) {
		safefile_abort(f);
		esc_line(stderr, "ptbrowse extract: ", "%s: %s", path,
			strerror(job.err));
		return -1;
	}
	/* Both whole on disk before either replaces a file, the options
	 * renamed first: whoever finds the new stream finds its options. */
	if (timing_file_start(&of, path, &s->timing, &o, err, sizeof(err)) < 0) {
		safefile_abort(f);
		esc_line(stderr, "ptbrowse extract: ", "%s", err);
		return -1;
	}
	if (safefile_commit_pair(of, f, err, sizeof(err)) < 0) {
		esc_line(stderr, "ptbrowse extract: ", "%s", err);
		return -1;
	}
	perfdata_ptdump_options(&s->timing, opts, sizeof(opts));
	/* the empty last span of a lost end (perfdata_end_loss()) joins
	 * nothing: said apart */
	for (i = 0; i < s->img.nspans; i++)
		gaps += s->img.spans[i].gap_before &&
			(s->img.spans[i].size || i + 1 < s->img.nspans);
	if (gaps)
		esc_line(stderr, "ptbrowse extract: ", "%s: stream %s has %" PRIu64
			" gap(s) (lost or overlapping data); %s joins them",
			t->path, s->name, gaps, path);
	if (perfdata_end_loss(t, (int)idx))
		esc_line(stderr, "ptbrowse extract: ", "%s: stream %s ends where "
			 "data was lost: %s", t->path, s->name,
			 perfdata_end_loss(t, (int)idx));
	/* A file name may hold any byte: escaped, as in every message. */
	esc_fputs(stdout, path);
	printf(" %" PRIu64 " bytes%s%s\n", s->img.size,
	       opts[0] ? "; ptdump " : "", opts);
	return 0;
}

int cmd_extract_main(int argc, char **argv)
{
	struct trace *t = NULL;
	struct stat st;
	const char *path = NULL, *dir = NULL, *stream = NULL, *base;
	char err[512];
	int idx, rc = 1, r;
	size_t s;
	const char *args[E_NOPTS] = { NULL };
	const struct opt_group groups[] = {
		{ "options:", extract_cli_opts, opt_take_str, args },
	};
	const struct opt_cmd cmd = { "ptbrowse extract",
"usage: ptbrowse extract [--stream S] TRACE -o DIR\n"
"\n"
"Write each stream of TRACE as DIR/BASE.NAME.pt (BASE is TRACE's file name,\n"
"NAME the stream's, e.g. cpu3) and DIR/BASE.NAME.pt.options, one line of\n"
"ptdump options that decode it (e.g. --cpu 6/78/3 --mtc-freq 3).\n"
"A stream with gaps (snapshot mode, lost data) is written joined: the\n"
"gaps are reported on stderr.\n", groups, 1 };

	r = opt_parse(&cmd, argc, argv);
	if (r < 0)
		return opt_status(r);
	if (r > 1) {
		opt_error(&cmd, "one trace only (got '%s' and '%s')", argv[1], argv[2]);
		return 2;
	}
	path = r ? argv[1] : NULL;
	dir = args[E_DIR];
	stream = args[E_STREAM];
	if (!path || !dir) {
		esc_line(stderr, "ptbrowse extract: ", "%s",
			path ? "no output directory (-o DIR)" : "no trace given");
		opt_usage(&cmd, stderr);
		return 2;
	}
	/* '' would make the outputs /NAME. */
	if (!*dir) {
		esc_line(stderr, "ptbrowse extract: ", "-o: empty directory name");
		return 2;
	}
	/* '-' is standard output elsewhere; a directory named so would
	 * surprise (OUTPUT FILES). */
	if (!strcmp(dir, "-")) {
		esc_line(stderr, "ptbrowse extract: ", "-o -: standard output is not "
			"possible here (./- names a directory called -)");
		return 2;
	}
	if (stat(dir, &st) < 0 && errno != ENOENT) {
		esc_line(stderr, "ptbrowse extract: ", "%s: %s", dir, strerror(errno));
		return 1;
	}
	safefile_remove_on_signals();
	if (trace_open(&t, path, err, sizeof(err)) < 0) {
		esc_line(stderr, "ptbrowse extract: ", "%s", err);
		return 1;
	}
	/* A directory there, the trace would not open again. */
	if (export_names_options(t, dir)) {
		esc_line(stderr, "ptbrowse extract: ", "%s: is the trace's options "
			"file; not making a directory there", dir);
		goto out_close;
	}
	/* Made once the trace opened: a bad trace leaves no empty DIR. */
	if (make_dir(dir) < 0) {
		esc_line(stderr, "ptbrowse extract: ", "%s: cannot make the output "
			"directory: %s", dir, strerror(errno));
		goto out_close;
	}
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		esc_line(stderr, "ptbrowse extract: ", "%s: not a directory", dir);
		goto out_close;
	}
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (stream) {
		idx = perfdata_stream_named(t, stream, "ptbrowse extract: ", path);
		if (idx < 0)
			goto out_close;
		if (extract_one(t, (size_t)idx, dir, base) < 0)
			goto out_close;
	} else {
		for (s = 0; s < t->nstreams; s++)
			if (extract_one(t, s, dir, base) < 0)
				goto out_close;
	}
	rc = 0;
out_close:
	trace_close(t);
	return rc;
}
