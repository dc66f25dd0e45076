/*
 * cmd_export -- `ptbrowse export`: write the raw PT bytes of a range as a
 * file ptdump, ptxed or perf tooling can decode alone.
 *
 * The slice starts at the PSB at or before FROM, since a decoder needs a
 * PSB to synchronise, and ends at the first packet boundary at or after
 * TO, so the last packet is whole.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmds.h"
#include "image.h"
#include "marks.h"
#include "trace.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: ptbrowse export [--stream S] TRACE FROM TO -o FILE\n"
"       ptbrowse export [--stream S] TRACE REGION -o FILE\n"
"\n"
"Write the raw Intel PT bytes of TRACE from the PSB at or before FROM up\n"
"to TO (exclusive; a packet that TO cuts is kept whole) into FILE, which\n"
"then decodes on its own, e.g. with ptdump.\n"
"FROM and TO are offsets (hex with 0x, or decimal), or names from the\n"
"trace's marks: a mark letter, a bookmark, a region (its start for FROM,\n"
"its end for TO), or REGION.start / REGION.end.\n"
"\n"
"options:\n"
"  -o FILE          the output file (replaced if it exists)\n"
"  --stream S       the stream of a perf.data file (index, cpuN or name)\n");
}

static void report_stderr(void *ctx, const char *msg)
{
	fprintf(stderr, "ptbrowse export: %s\n", msg);
}

struct export_job {
	const struct img *img;
	uint64_t from, to;	/* asked for */
	uint64_t start, end;	/* the slice written */
	uint64_t gaps;		/* gaps inside the slice */
	int fd;
	int err;		/* errno of a failed write */
	const char *why;	/* what failed, if not a write */
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
		if (r < 0 && img_cursor_sync_forward(&cur, p.offset + 1) < 0)
			return off;
	}
}

/* Write [@p, @p + @n) to @fd.  Returns 0 or -1 (errno set). */
static int write_all(int fd, const uint8_t *p, uint64_t n)
{
	ssize_t w;

	while (n) {
		w = write(fd, p, n > (1u << 30) ? (1u << 30) : (size_t)n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (uint64_t)w;
	}
	return 0;
}

/* Find the slice and copy it (under trace_guard: it reads the mapping). */
static int export_body(void *arg)
{
	struct export_job *job = arg;
	const struct img *img = job->img;
	uint64_t psb, a, b;
	size_t i;

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
	for (i = 0; i < img->nspans; i++) {
		const struct img_span *s = &img->spans[i];

		a = s->off > job->start ? s->off : job->start;
		b = s->off + s->size < job->end ? s->off + s->size : job->end;
		if (a >= b)
			continue;
		if (s->gap_before && s->off > job->start)
			job->gaps++;
		if (write_all(job->fd, s->data + (a - s->off), b - a) < 0) {
			job->err = errno;
			return -1;
		}
	}
	return 0;
}

/* An offset or a name from @set (NULL: offsets only); @end picks a
 * region's end.  Returns 0, or -1 (reported). */
static int resolve(const struct bm_set *set, const char *path,
		   const char *spec, int end, uint64_t *off)
{
	if (!bm_resolve(set, spec, end, off))
		return 0;
	fprintf(stderr, "ptbrowse export: %s: '%s' is neither an offset nor a "
		"mark, bookmark or region of this trace\n", path, spec);
	return -1;
}

int cmd_export_main(int argc, char **argv)
{
	struct bm_opts opts = { .flags = BM_NO_STATE, .report = report_stderr };
	const char *pos[3], *out = NULL, *stream = NULL, *path;
	struct export_job job = { .fd = -1 };
	struct bm_set *set = NULL;
	struct trace *t = NULL;
	int npos = 0, idx, rc = 1, r, i;
	char err[4096];
	struct stat st;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if ((!strcmp(a, "-o") || !strcmp(a, "--stream")) && ++i >= argc) {
			fprintf(stderr, "ptbrowse export: %s: missing argument\n", a);
			return 2;
		} else if (!strcmp(a, "-o")) {
			out = argv[i];
		} else if (!strcmp(a, "--stream")) {
			stream = argv[i];
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "ptbrowse export: unknown option: %s\n", a);
			usage(stderr);
			return 2;
		} else if (npos == 3) {
			fprintf(stderr, "ptbrowse export: too many arguments: %s\n", a);
			return 2;
		} else {
			pos[npos++] = a;
		}
	}
	if (npos < 2 || !out) {
		fprintf(stderr, "ptbrowse export: %s\n", npos < 2 ?
			"give a trace and a range (FROM TO, or a region)" :
			"no output file (-o FILE)");
		usage(stderr);
		return 2;
	}
	path = pos[0];
	if (trace_open(&t, path, err, sizeof(err)) < 0) {
		fprintf(stderr, "ptbrowse export: %s\n", err);
		return 1;
	}
	idx = 0;
	if (stream && (idx = trace_find_stream(t, stream)) < 0) {
		fprintf(stderr, "ptbrowse export: %s: no stream '%s'\n", path, stream);
		goto out_close;
	}
	if (!t->nstreams) {
		fprintf(stderr, "ptbrowse export: %s: no Intel PT data\n", path);
		goto out_close;
	}
	job.img = &t->streams[idx].img;
	/* Names need the marks; plain offsets work without them. */
	r = bm_open_trace(&set, t, (size_t)idx, &opts);
	if (r < 0)
		set = NULL;
	if (resolve(set, path, pos[1], 0, &job.from) < 0 ||
	    resolve(set, path, pos[npos - 1], 1, &job.to) < 0)
		goto out_free;
	if (job.from >= job.to || job.from >= job.img->size) {
		fprintf(stderr, "ptbrowse export: %s: empty or outside range 0x%" PRIx64
			"-0x%" PRIx64 " (the stream has 0x%" PRIx64 " bytes)\n", path,
			job.from, job.to, job.img->size);
		goto out_free;
	}
	/* Truncating the trace under our own mapping would destroy it. */
	if (!stat(out, &st) && st.st_dev == t->dev && st.st_ino == t->ino) {
		fprintf(stderr, "ptbrowse export: %s: refusing to overwrite the trace\n",
			out);
		goto out_free;
	}
	job.fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (job.fd < 0) {
		fprintf(stderr, "ptbrowse export: %s: %s\n", out, strerror(errno));
		goto out_free;
	}
	r = trace_guard(export_body, &job);
	if (close(job.fd) < 0 && !r) {
		job.err = errno;
		r = -1;
	}
	if (r) {
		if (r == -pte_sigbus)
			fprintf(stderr, "ptbrowse export: %s: the file shrank while "
				"being read\n", path);
		else if (job.why)
			fprintf(stderr, "ptbrowse export: %s: %s\n", path, job.why);
		else
			fprintf(stderr, "ptbrowse export: %s: %s\n", out,
				strerror(job.err));
		unlink(out);
		goto out_free;
	}
	if (job.gaps)
		fprintf(stderr, "ptbrowse export: %s: %" PRIu64 " gaps (lost data) "
			"inside the range are joined in %s\n", path, job.gaps, out);
	fprintf(stderr, "ptbrowse export: wrote %s: 0x%" PRIx64 "-0x%" PRIx64
		" of %s (%" PRIu64 " bytes)\n", out, job.start, job.end, path,
		job.end - job.start);
	rc = 0;
out_free:
	bm_close(set);
out_close:
	trace_close(t);
	return rc;
}
