/* trace -- open and map a trace file; survive it shrinking under us. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perfdata.h"
#include "pkt.h"
#include "ptdec.h"
#include "timing_file.h"
#include "trace.h"

/* What a non-regular file is, for the error message. */
static const char *file_kind(mode_t m)
{
	if (S_ISDIR(m))
		return "is a directory, not a trace file";
	if (S_ISFIFO(m))
		return "is a FIFO, not a regular file (save the stream to a file first)";
	if (S_ISCHR(m))
		return "is a character device, not a regular file";
	if (S_ISBLK(m))
		return "is a block device, not a regular file";
	if (S_ISSOCK(m))
		return "is a socket, not a regular file";
	return "is not a regular file";
}

static int64_t stat_mtime_ns(const struct stat *st)
{
	return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

/* A raw PT dump: one stream named "raw" over the whole mapping. */
static int open_raw(struct trace *t)
{
	struct trace_stream *s = calloc(1, sizeof(*s));

	if (!s)
		return -pte_nomem;
	s->spans = calloc(1, sizeof(*s->spans));
	if (!s->spans) {
		free(s);
		return -pte_nomem;
	}
	snprintf(s->name, sizeof(s->name), "raw");
	s->cpu = -1;
	s->tid = -1;
	img_init_flat(&s->img, s->spans, t->map, t->size);
	t->kind = TRACE_RAW;
	t->streams = s;
	t->nstreams = 1;
	return 0;
}

static void free_streams(struct trace *t)
{
	size_t i;

	if (t->perf) {
		perfdata_free(t);
		return;
	}
	for (i = 0; i < t->nstreams; i++)
		free(t->streams[i].spans);
	free(t->streams);
	t->streams = NULL;
	t->nstreams = 0;
}

struct load_args {
	struct trace *t;
	char *err;
	size_t errlen;
};

/* A raw trace's timing from PATH.options, when there is one. */
static int raw_timing(struct trace *t, char *err, size_t errlen)
{
	char path[4200];
	int r;

	t->options_read = 0;
	/* Nothing lies beside a pipe ("-.options" would be the cwd's). */
	if (t->piped || timing_file_path(t->path, path, sizeof(path)) < 0)
		return 0;	/* no such file can exist */
	r = timing_file_read(path, &t->streams[0].timing, err, errlen);
	if (r < 0)
		return r;
	t->options_read = (uint8_t)r;
	return 0;
}

static int load_body(void *arg)
{
	struct load_args *a = arg;
	struct trace *t = a->t;
	int r;

	/* a byte-swapped one too: perfdata_load() says it is not read */
	if (perfdata_is(t->map, t->size) || perfdata_is_swapped(t->map, t->size))
		return perfdata_load(t, a->err, a->errlen);
	r = open_raw(t);
	return r < 0 ? r : raw_timing(t, a->err, a->errlen);
}

/*
 * Copy all of @in into an anonymous memory file (memfd), so that a pipe's
 * bytes are mapped, pread and refreshed as a regular file's are.  @name
 * is the input as messages call it.  Returns the memfd, or a negative
 * pte code with a one-line message in @err: -pte_io on a read error,
 * -pte_nomem if memory ran out, -pte_bad_file if nothing came.
 */
static int read_whole(int in, const char *name, char *err, size_t errlen)
{
	enum { BUF = 1 << 16 };
	uint64_t total = 0;
	ssize_t n, w;
	size_t done;
	char *buf;
	int fd, ret;

	buf = malloc(BUF);
	fd = buf ? memfd_create("ptbrowse-trace", MFD_CLOEXEC) : -1;
	if (fd < 0) {
		snprintf(err, errlen, "%s: cannot keep the input in memory: %s",
			 name, strerror(buf ? errno : ENOMEM));
		free(buf);
		return -pte_nomem;
	}
	for (;;) {
		n = read(in, buf, BUF);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(err, errlen, "%s: read error after %" PRIu64
				 " bytes: %s", name, total, strerror(errno));
			ret = -pte_io;
			goto out_fail;
		}
		if (!n)
			break;
		for (done = 0; done < (size_t)n; done += (size_t)w) {
			w = write(fd, buf + done, (size_t)n - done);
			if (w < 0 && errno == EINTR) {
				w = 0;
				continue;
			}
			if (w < 0) {
				snprintf(err, errlen, "%s: cannot keep %" PRIu64
					 " bytes in memory: %s", name,
					 total + done, strerror(errno));
				ret = -pte_nomem;
				goto out_fail;
			}
		}
		total += (uint64_t)n;
	}
	free(buf);
	if (total)
		return fd;
	snprintf(err, errlen, "%s: empty (0 bytes), no trace came through it",
		 name);
	close(fd);
	return -pte_bad_file;

out_fail:
	free(buf);
	close(fd);
	return ret;
}

/* Map the regular file (or memfd) @fd, which trace_open*() opened for
 * @path, and load its streams into a new trace, *@out; @piped: it came
 * from standard input or a pipe, so no options file lies beside it.  Returns 0 (@t
 * owns @fd), or a negative pte code with @err set and @fd closed. */
static int open_fd(struct trace **out, int fd, const char *path, int piped,
		   char *err, size_t errlen);

int trace_open(struct trace **out, const char *path, char *err, size_t errlen)
{
	struct stat st;
	int fd;

	if (!out || !path || !err || !errlen)
		return -pte_invalid;
	*out = NULL;
	err[0] = '\0';
	/* stat first: opening a FIFO for reading would block. */
	if (stat(path, &st) < 0) {
		/* - is standard input only where trace_open_input() reads */
		if (errno == ENOENT && !strcmp(path, "-"))
			snprintf(err, errlen, "-: standard input is not read here "
				 "(save the stream to a file first; dump, info "
				 "and index read it; ./- names a file called -)");
		else
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -pte_io;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: %s", path, file_kind(st.st_mode));
		return -pte_bad_file;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -pte_io;
	}
	return open_fd(out, fd, path, 0, err, errlen);
}

int trace_open_input(struct trace **out, const char *path, char *err,
		     size_t errlen)
{
	const char *name = path;
	struct stat st;
	int in, fd;

	if (!out || !path || !err || !errlen)
		return -pte_invalid;
	*out = NULL;
	err[0] = '\0';
	if (strcmp(path, "-")) {
		if (stat(path, &st) < 0 || !S_ISFIFO(st.st_mode))
			return trace_open(out, path, err, errlen);
		/* Blocks until a writer opens the FIFO, as cat would. */
		in = open(path, O_RDONLY | O_CLOEXEC);
		if (in < 0) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			return -pte_io;
		}
	} else {
		name = "standard input (-)";
		/* closed (<&-): reading it would look like an empty pipe */
		if (fstat(STDIN_FILENO, &st) < 0) {
			snprintf(err, errlen, "%s: %s", name, strerror(errno));
			return -pte_io;
		}
		if (isatty(STDIN_FILENO)) {
			snprintf(err, errlen, "%s: is a terminal; pipe a trace "
				 "into it or name a file", name);
			return -pte_bad_file;
		}
		if (S_ISREG(st.st_mode)) {
			/* < FILE: map it as it is, from its start. */
			fd = open("/proc/self/fd/0", O_RDONLY | O_CLOEXEC);
			if (fd >= 0)
				return open_fd(out, fd, path, 1, err, errlen);
		}
		in = STDIN_FILENO;
	}
	fd = read_whole(in, name, err, errlen);
	if (in != STDIN_FILENO)
		close(in);
	if (fd < 0)
		return fd;
	return open_fd(out, fd, path, 1, err, errlen);
}

static int open_fd(struct trace **out, int fd, const char *path, int piped,
		   char *err, size_t errlen)
{
	struct load_args la;
	struct trace *t;
	struct stat st;
	void *map;
	int ret;

	/* The name might have been replaced between stat and open. */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: %s", path,
			 S_ISREG(st.st_mode) ? strerror(errno) : file_kind(st.st_mode));
		ret = -pte_bad_file;
		goto out_close;
	}
	if (st.st_size == 0) {
		snprintf(err, errlen, "%s: empty file (0 bytes), nothing to show", path);
		ret = -pte_bad_file;
		goto out_close;
	}
	if ((uint64_t)st.st_size > SIZE_MAX) {
		snprintf(err, errlen, "%s: too big to map (%lld bytes)", path,
			 (long long)st.st_size);
		ret = -pte_nomem;
		goto out_close;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		snprintf(err, errlen, "%s: cannot map %lld bytes: %s", path,
			 (long long)st.st_size, strerror(errno));
		ret = -pte_io;
		goto out_close;
	}
	t = calloc(1, sizeof(*t));
	if (!t || !(t->path = strdup(path))) {
		free(t);
		snprintf(err, errlen, "%s: out of memory", path);
		ret = -pte_nomem;
		goto out_unmap;
	}
	t->fd = fd;
	t->fd_reads = 1;
	t->piped = (uint8_t)piped;
	t->map = map;
	t->size = (uint64_t)st.st_size;
	t->dev = st.st_dev;
	t->ino = st.st_ino;
	t->mtime_ns = stat_mtime_ns(&st);
	trace_advise(t, TRACE_BROWSE);
	la.t = t;
	la.err = err;
	la.errlen = errlen;
	ret = trace_guard(load_body, &la);
	if (ret < 0) {
		if (ret == -pte_sigbus)
			snprintf(err, errlen, "%s: the file shrank while being read", path);
		else if (!err[0])
			snprintf(err, errlen, "%s: %s", path, pte_strerror(ret));
		t->perf = NULL;	/* a SIGBUS may leave it half made */
		free_streams(t);
		free(t->path);
		free(t);
		goto out_unmap;
	}
	*out = t;
	return 0;

out_unmap:
	munmap(map, (size_t)st.st_size);
out_close:
	close(fd);
	return ret;
}

void trace_close(struct trace *t)
{
	if (!t)
		return;
	free_streams(t);
	if (t->map)
		munmap((void *)t->map, (size_t)t->size);
	if (t->fd >= 0)
		close(t->fd);
	free(t->path);
	free(t);
}

int trace_find_stream(const struct trace *t, const char *spec)
{
	char *end;
	long n;
	size_t i;

	if (!t || !spec || !*spec)
		return -1;
	for (i = 0; i < t->nstreams; i++)
		if (!strcmp(t->streams[i].name, spec))
			return (int)i;
	n = strtol(spec, &end, 10);
	if (!*end && n >= 0 && (size_t)n < t->nstreams)
		return (int)n;
	if (!strncmp(spec, "cpu", 3)) {
		n = strtol(spec + 3, &end, 10);
		if (spec[3] && !*end)
			for (i = 0; i < t->nstreams; i++)
				if (t->streams[i].cpu == n)
					return (int)i;
	}
	return -1;
}

void trace_advise(const struct trace *t, enum trace_advice how)
{
	if (!t || !t->map)
		return;
	/* Advice is only a hint; failure changes nothing. */
	(void)madvise((void *)t->map, (size_t)t->size,
		      how == TRACE_SCAN ? MADV_SEQUENTIAL : MADV_RANDOM);
}

void trace_willneed(void *ctx, const uint8_t *p, size_t n)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)p & ~(pg - 1);

	(void)ctx;
	/* Reads ahead even where the mapping is advised MADV_RANDOM. */
	(void)madvise((void *)a, (uintptr_t)p + n - a, MADV_WILLNEED);
}

void trace_release(void *ctx, const uint8_t *p, size_t n)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = ((uintptr_t)p + pg - 1) & ~(pg - 1);
	uintptr_t b = ((uintptr_t)p + n) & ~(pg - 1);

	(void)ctx;
	/* Shared read-only file pages: dropping them only unmaps them
	 * here; the page cache keeps the data. */
	if (b > a)
		(void)madvise((void *)a, b - a, MADV_DONTNEED);
}

/*
 * SIGBUS recovery.  Each thread keeps a stack of recovery points; the
 * handler jumps to the innermost one of the faulting thread, or, if there
 * is none, restores the default action so the fault kills as before.
 */
struct guard_frame {
	sigjmp_buf jb;
	struct guard_frame *prev;
};

static __thread struct guard_frame *guard_top;
static struct sigaction guard_prev;	/* whoever handled SIGBUS before */

static void guard_handler(int sig, siginfo_t *si, void *uc)
{
	struct guard_frame *f = guard_top;

	if (f)
		siglongjmp(f->jb, 1);
	/* Not ours: let the previous handler, or the default, have it. */
	if ((guard_prev.sa_flags & SA_SIGINFO) && guard_prev.sa_sigaction) {
		guard_prev.sa_sigaction(sig, si, uc);
		return;
	}
	if (!(guard_prev.sa_flags & SA_SIGINFO) && guard_prev.sa_handler != SIG_DFL &&
	    guard_prev.sa_handler != SIG_IGN) {
		guard_prev.sa_handler(sig);
		return;
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

/*
 * (Re)install the handler.  Checked on every guard, not once: a test
 * harness or a library may have replaced it since.
 */
static void guard_install(void)
{
	struct sigaction sa, cur;

	if (sigaction(SIGBUS, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) &&
	    cur.sa_sigaction == guard_handler)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = guard_handler;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, &cur) == 0 &&
	    !((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == guard_handler))
		guard_prev = cur;
}

int trace_guard(int (*body)(void *arg), void *arg)
{
	/* volatile: read after siglongjmp returns to this frame. */
	struct guard_frame *volatile f;
	struct guard_frame frame;
	int ret;

	if (!body)
		return -pte_invalid;
	guard_install();
	f = &frame;
	f->prev = guard_top;
	if (sigsetjmp(f->jb, 1)) {
		guard_top = f->prev;
		return -pte_sigbus;
	}
	guard_top = f;
	ret = body(arg);
	guard_top = f->prev;
	return ret;
}

enum trace_since trace_since_mapped(const struct trace *t)
{
	struct stat st;

	if (!t || t->fd < 0 || fstat(t->fd, &st) < 0)
		return TRACE_CHANGED;
	if ((uint64_t)st.st_size > t->size)
		return TRACE_GREW;
	if ((uint64_t)st.st_size == t->size && stat_mtime_ns(&st) == t->mtime_ns)
		return TRACE_SAME;
	return TRACE_CHANGED;
}

int trace_refresh(struct trace *t, uint64_t *new_size, int *grew,
		  char *err, size_t errlen)
{
	struct stat st;
	int ret;

	if (!t || !new_size || !grew || !err || !errlen)
		return -pte_invalid;
	*grew = 0;
	err[0] = '\0';
	if (fstat(t->fd, &st) < 0) {
		snprintf(err, errlen, "%s: %s", t->path, strerror(errno));
		return -pte_io;
	}
	*new_size = (uint64_t)st.st_size;
	if ((uint64_t)st.st_size == t->size)
		return 0;
	if ((uint64_t)st.st_size < t->size) {
		snprintf(err, errlen, "%s: the file shrank from %llu to %llu bytes",
			 t->path, (unsigned long long)t->size,
			 (unsigned long long)st.st_size);
		return -pte_sigbus;
	}
	ret = trace_remap(t, err, errlen);
	if (ret < 0)
		return ret;
	*grew = 1;
	return 0;
}

int trace_remap(struct trace *t, char *err, size_t errlen)
{
	struct load_args la;
	struct trace nt;
	struct stat st;
	void *map;
	int ret;

	if (!t || !err || !errlen)
		return -pte_invalid;
	err[0] = '\0';
	if (fstat(t->fd, &st) < 0) {
		snprintf(err, errlen, "%s: %s", t->path, strerror(errno));
		return -pte_io;
	}
	if (!st.st_size) {
		snprintf(err, errlen, "%s: the file is now empty", t->path);
		return -pte_bad_file;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, t->fd, 0);
	if (map == MAP_FAILED) {
		snprintf(err, errlen, "%s: cannot map %lld bytes: %s", t->path,
			 (long long)st.st_size, strerror(errno));
		return -pte_io;
	}
	/* The streams are loaded beside the old ones, which the caller's
	 * views point into: where the new ones cannot be loaded, the old
	 * mapping and streams stay as they were. */
	nt = *t;
	nt.map = map;
	nt.size = (uint64_t)st.st_size;
	nt.mtime_ns = stat_mtime_ns(&st);
	nt.nstreams = 0;
	nt.streams = NULL;
	nt.perf = NULL;
	la.t = &nt;
	la.err = err;
	la.errlen = errlen;
	ret = trace_guard(load_body, &la);
	if (ret < 0) {
		if (ret == -pte_sigbus)
			snprintf(err, errlen, "%s: the file shrank while being read",
				 t->path);
		else if (!err[0])
			snprintf(err, errlen, "%s: %s", t->path, pte_strerror(ret));
		free_streams(&nt);
		munmap(map, (size_t)st.st_size);
		return ret;
	}
	free_streams(t);
	munmap((void *)t->map, (size_t)t->size);
	*t = nt;
	trace_advise(t, TRACE_BROWSE);
	return 0;
}
