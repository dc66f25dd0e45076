/* export -- write a slice of a stream as a raw PT file (export.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export.h"
#include "trace.h"

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
		/* after a gap the cursor is on the next PSB already */
		if (r < 0 && r != -pte_gap &&
		    img_cursor_sync_forward(&cur, p.offset + 1) < 0)
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

int export_slice(const struct trace *t, const struct img *img, uint64_t from,
		 uint64_t to, const char *out, struct export_result *res,
		 char *err, size_t errlen)
{
	struct export_job job = { .img = img, .from = from, .to = to, .fd = -1 };
	struct stat st;
	int r;

	if (!img || !out || !*out || from >= to || from >= img->size) {
		snprintf(err, errlen, "empty or outside range 0x%" PRIx64 "-0x%" PRIx64
			 " (the stream has 0x%" PRIx64 " bytes)", from, to,
			 img ? img->size : 0);
		return -pte_invalid;
	}
	/* Truncating the trace under our own mapping would destroy it. */
	if (t && !stat(out, &st) && st.st_dev == t->dev && st.st_ino == t->ino) {
		snprintf(err, errlen, "refusing to overwrite the trace with %s", out);
		return -pte_invalid;
	}
	/* A device or a FIFO is no slice file (and a failed write below
	 * removes what it wrote). */
	if (!stat(out, &st) && !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", out);
		return -pte_invalid;
	}
	job.fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (job.fd < 0) {
		snprintf(err, errlen, "%s: %s", out, strerror(errno));
		return -pte_io;
	}
	r = trace_guard(export_body, &job);
	if (close(job.fd) < 0 && !r) {
		job.err = errno;
		r = -1;
	}
	if (r) {
		if (r == -pte_sigbus)
			snprintf(err, errlen, "the trace shrank while being read");
		else if (job.why)
			snprintf(err, errlen, "%s", job.why);
		else
			snprintf(err, errlen, "%s: %s", out, strerror(job.err));
		unlink(out);
		return r == -pte_sigbus ? r : job.why ? -pte_bad_file : -pte_io;
	}
	res->start = job.start;
	res->end = job.end;
	res->gaps = job.gaps;
	return 0;
}
