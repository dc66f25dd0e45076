/* safefile -- check an output, write it beside, rename it into place. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ptdec.h"
#include "safefile.h"

struct safefile {
	char *name;	/* as given, for messages */
	char *target;	/* the file replaced (a symbolic link resolved) */
	char *tmp;	/* the temporary file; NULL for standard output */
	int fd;
	FILE *stream;
	unsigned int flags;
	int finished;	/* flushed, synced and closed: only the rename is left */
};

/* Tells apart temporary files of threads of one process. */
static atomic_uint safefile_seq;

/*
 * Temporary files being written, for a signal handler to remove: blocks
 * of slots, chained as more are needed (ptrecord writes a few files per
 * CPU, and one per code image) and never freed, so that a handler walks
 * them with atomic loads alone, without a lock or malloc.
 */
#define SF_SLOTS 64
struct sf_block {
	char *_Atomic slot[SF_SLOTS];
	struct sf_block *_Atomic next;
};
static struct sf_block sf_pending;

/* Remember @tmp.  Returns 0, or -1 if out of memory. */
static int sf_pending_add(char *tmp)
{
	struct sf_block *b = &sf_pending, *next, *none;
	size_t i;

	for (;;) {
		for (i = 0; i < SF_SLOTS; i++) {
			char *free_slot = NULL;

			if (atomic_compare_exchange_strong(&b->slot[i], &free_slot,
							   tmp))
				return 0;
		}
		next = atomic_load(&b->next);
		if (!next) {
			next = calloc(1, sizeof(*next));
			if (!next)
				return -1;
			none = NULL;
			/* another thread chained one first: use that */
			if (!atomic_compare_exchange_strong(&b->next, &none, next)) {
				free(next);
				next = none;
			}
		}
		b = next;
	}
}

/* Forget @tmp before it is renamed, removed or freed. */
static void sf_pending_del(const char *tmp)
{
	struct sf_block *b;
	size_t i;

	for (b = &sf_pending; tmp && b; b = atomic_load(&b->next))
		for (i = 0; i < SF_SLOTS; i++) {
			char *want = (char *)tmp;

			if (atomic_compare_exchange_strong(&b->slot[i], &want, NULL))
				return;
		}
}

void safefile_remove_pending(void)
{
	struct sf_block *b;
	size_t i;
	char *tmp;

	for (b = &sf_pending; b; b = atomic_load(&b->next))
		for (i = 0; i < SF_SLOTS; i++)
			if ((tmp = atomic_load(&b->slot[i])))
				unlink(tmp);
}

static void sf_on_signal(int sig)
{
	safefile_remove_pending();
	signal(sig, SIG_DFL);
	raise(sig);
}

void safefile_remove_on_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGXFSZ };
	struct sigaction sa, old;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sf_on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		/* an ignored signal (nohup, trap '') stays ignored */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
}

static void sf_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* What a file that is not regular is, for the message. */
static const char *sf_kind(mode_t m)
{
	if (S_ISDIR(m))
		return "is a directory";
	if (S_ISFIFO(m))
		return "is a FIFO, not a regular file";
	if (S_ISCHR(m))
		return "is a character device, not a regular file";
	if (S_ISBLK(m))
		return "is a block device, not a regular file";
	if (S_ISSOCK(m))
		return "is a socket, not a regular file";
	return "is not a regular file";
}

int safefile_keep_add(struct safefile_keep *keep, size_t *n, size_t max,
		      const char *path, const char *what)
{
	struct stat st;

	if (!keep || !n || !path || !*path || stat(path, &st) < 0)
		return 0;
	if (*n >= max)
		return -pte_nomem;
	keep[*n].dev = st.st_dev;
	keep[*n].ino = st.st_ino;
	keep[*n].what = what;
	(*n)++;
	return 1;
}

/* The protected file @st is, or NULL. */
static const struct safefile_keep *sf_kept(const struct safefile_opts *o,
					   const struct stat *st)
{
	size_t i;

	for (i = 0; i < o->nkeep; i++)
		if (o->keep[i].dev == st->st_dev && o->keep[i].ino == st->st_ino)
			return &o->keep[i];
	return NULL;
}

/* Whether the regular file @path (@size bytes) begins with @magic. */
static int sf_has_magic(const char *path, off_t size, const char *magic)
{
	char buf[64];
	size_t n = strlen(magic);
	ssize_t r;
	int fd, ok;

	if (n > sizeof(buf))
		n = sizeof(buf);
	if (size < (off_t)n)
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return 0;
	r = pread(fd, buf, n, 0);
	ok = r == (ssize_t)n && !memcmp(buf, magic, n);
	close(fd);
	return ok;
}

/*
 * Whether the existing regular file @path (@st) is one we may not write:
 * the rename would replace it anyway (it needs the directory's write
 * permission, not the file's), where the shell's > refuses.  Root passes
 * access(), so a file no one may write (no write bit) is refused too.
 */
static int sf_write_protected(const char *path, const struct stat *st)
{
	if (!(st->st_mode & 0222))
		return 1;
	return faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) < 0 && errno == EACCES;
}

static struct safefile *sf_new(const char *name)
{
	struct safefile *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->fd = -1;
	f->name = strdup(name);
	if (!f->name) {
		free(f);
		return NULL;
	}
	return f;
}

static void sf_free(struct safefile *f)
{
	free(f->name);
	free(f->target);
	free(f->tmp);
	free(f);
}

/* "-": a duplicate of standard output, so closing it closes nothing else. */
static int sf_stdout(struct safefile **out, const struct safefile_opts *o,
		     char *err, size_t errlen)
{
	const struct safefile_keep *k;
	struct safefile *f;
	struct stat st;

	if (!(o->flags & SAFEFILE_STDOUT)) {
		sf_err(err, errlen, "-: standard output is not possible here "
		       "(./- names a file called -)");
		return -pte_invalid;
	}
	if (fstat(STDOUT_FILENO, &st) < 0) {
		sf_err(err, errlen, "standard output: %s", strerror(errno));
		return -pte_io;
	}
	if ((k = sf_kept(o, &st))) {
		sf_err(err, errlen, "standard output is %s; not writing over it",
		       k->what ? k->what : "the input");
		return -pte_invalid;
	}
	f = sf_new("standard output");
	if (!f)
		return -pte_nomem;
	f->flags = o->flags;
	f->fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (f->fd < 0) {
		sf_err(err, errlen, "standard output: %s", strerror(errno));
		sf_free(f);
		return -pte_io;
	}
	*out = f;
	return 0;
}

/* Create f->tmp beside f->target, mode @mode (or @st's, if @st). */
static int sf_open_tmp(struct safefile *f, mode_t mode, const struct stat *st,
		       char *err, size_t errlen)
{
	/* Replacing a file, the temporary one is made readable by its
	 * owner at most and given the old mode only then: made with
	 * @mode, a 0600 file's new bytes were open to all until fchmod(). */
	mode_t create = st ? st->st_mode & 0600 : mode;
	const char *slash = strrchr(f->target, '/');
	const char *base = slash ? slash + 1 : f->target;
	int dlen = (int)(base - f->target), blen, tries, e;
	char suffix[64];
	size_t size;

	size = strlen(f->target) + sizeof(suffix) + 2;
	f->tmp = malloc(size);
	if (!f->tmp)
		return -pte_nomem;
	for (tries = 0; tries < 100; tries++) {
		/* NAME.tmp.PID.N: safefile_clean_dead() knows the shape;
		 * a long NAME is cut to fit NAME_MAX. */
		snprintf(suffix, sizeof(suffix), ".tmp.%ld.%u", (long)getpid(),
			 atomic_fetch_add(&safefile_seq, 1));
		blen = (int)strlen(base);
		if (blen + strlen(suffix) > NAME_MAX)
			blen = NAME_MAX - (int)strlen(suffix);
		snprintf(f->tmp, size, "%.*s%.*s%s", dlen, f->target, blen, base,
			 suffix);
		f->fd = open(f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC |
			     O_NOCTTY, create);
		if (f->fd >= 0 || errno != EEXIST)
			break;
	}
	if (f->fd < 0) {
		e = errno;
		if (e == ENOENT)
			sf_err(err, errlen, "%s: no such directory: %.*s", f->name,
			       dlen > 1 ? dlen - 1 : 1, dlen ? f->target : ".");
		else
			sf_err(err, errlen, "%s: cannot create a temporary file "
			       "beside it: %s", f->name, strerror(e));
		free(f->tmp);
		f->tmp = NULL;
		errno = e;
		return -pte_io;
	}
	if (sf_pending_add(f->tmp) < 0) {
		/* A file a signal would leave behind is not begun. */
		close(f->fd);
		f->fd = -1;
		unlink(f->tmp);
		free(f->tmp);
		f->tmp = NULL;
		sf_err(err, errlen, "%s: out of memory", f->name);
		return -pte_nomem;
	}
	if (st) {
		/* The replacement keeps, where we may, the old file's owner
		 * and then its mode (a chown clears set-ID bits). */
		if (st->st_uid != geteuid() || st->st_gid != getegid())
			(void)!fchown(f->fd, st->st_uid, st->st_gid);
		(void)fchmod(f->fd, st->st_mode & 07777);
	}
	return 0;
}

int safefile_create(struct safefile **out, const char *path,
		    const struct safefile_opts *o, char *err, size_t errlen)
{
	static const struct safefile_opts defaults;
	const struct safefile_keep *k;
	struct safefile *f;
	struct stat st;
	int exists = 0, ret;

	if (!out)
		return -pte_invalid;
	*out = NULL;
	if (!o)
		o = &defaults;
	if (!path || !*path) {
		sf_err(err, errlen, "empty file name");
		return -pte_invalid;
	}
	if (!strcmp(path, "-"))
		return sf_stdout(out, o, err, errlen);
	f = sf_new(path);
	if (!f)
		return -pte_nomem;
	f->flags = o->flags;
	if (!lstat(path, &st)) {
		exists = 1;
		if (S_ISLNK(st.st_mode)) {
			if (o->flags & SAFEFILE_NOFOLLOW) {
				sf_err(err, errlen, "%s: is a symbolic link; not "
				       "writing through it", path);
				ret = -pte_invalid;
				goto out_free;
			}
			f->target = realpath(path, NULL);
			if (!f->target || stat(f->target, &st) < 0) {
				sf_err(err, errlen, "%s: a symbolic link that leads "
				       "nowhere (%s); not writing through it", path,
				       strerror(errno));
				ret = -pte_invalid;
				goto out_free;
			}
		}
	} else if (errno != ENOENT) {
		sf_err(err, errlen, "%s: %s", path, strerror(errno));
		ret = -pte_io;
		goto out_free;
	}
	if (!f->target && !(f->target = strdup(path))) {
		ret = -pte_nomem;
		goto out_free;
	}
	if (exists) {
		if (!S_ISREG(st.st_mode)) {
			sf_err(err, errlen, "%s: %s; not replacing it", path,
			       sf_kind(st.st_mode));
			ret = -pte_invalid;
			goto out_free;
		}
		if ((k = sf_kept(o, &st))) {
			sf_err(err, errlen, "%s: is %s; not overwriting it", path,
			       k->what ? k->what : "the input");
			ret = -pte_invalid;
			goto out_free;
		}
		if (sf_write_protected(f->target, &st)) {
			sf_err(err, errlen, "%s: write-protected; not replacing it",
			       path);
			ret = -pte_invalid;
			goto out_free;
		}
		if (o->magic && st.st_size > 0 &&
		    !sf_has_magic(f->target, st.st_size, o->magic)) {
			sf_err(err, errlen, "%s: exists and is not %s; not "
			       "replacing it", path, o->kind ? o->kind : "ours");
			ret = -pte_invalid;
			goto out_free;
		}
	}
	ret = sf_open_tmp(f, o->mode ? (mode_t)o->mode : 0666,
			  exists ? &st : NULL, err, errlen);
	if (ret < 0)
		goto out_free;
	*out = f;
	return 0;

out_free:
	sf_free(f);
	return ret;
}

int safefile_fd(const struct safefile *f)
{
	return f ? f->fd : -1;
}

FILE *safefile_stream(struct safefile *f)
{
	if (!f)
		return NULL;
	if (!f->stream)
		f->stream = fdopen(f->fd, "w");
	return f->stream;
}

int safefile_write(struct safefile *f, const void *buf, uint64_t n)
{
	const uint8_t *p = buf;
	ssize_t w;

	if (!f) {
		errno = EINVAL;
		return -1;
	}
	while (n) {
		w = write(f->fd, p, n > (1u << 30) ? (1u << 30) : (size_t)n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (!w)
				errno = EIO;
			return -1;
		}
		p += w;
		n -= (uint64_t)w;
	}
	return 0;
}

int safefile_is_stdout(const struct safefile *f)
{
	return f && !f->tmp;
}

/* Close @f's descriptor (through its stream, if any).  Returns 0 or -1. */
static int sf_close(struct safefile *f)
{
	int r;

	if (f->stream)
		r = fclose(f->stream);
	else
		r = f->fd >= 0 ? close(f->fd) : 0;
	f->stream = NULL;
	f->fd = -1;
	return r;
}

/* Make the rename of a file in @path's directory durable. */
static void sf_sync_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	int fd;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

/* Flush, fsync (a temporary file, unless SAFEFILE_NOSYNC) and close @f,
 * once.  Returns 0, or -1 with errno set. */
static int sf_finish(struct safefile *f)
{
	if (f->finished)
		return 0;
	errno = 0;
	if (f->stream && (fflush(f->stream) || ferror(f->stream)))
		return -1;
	if (f->tmp && !(f->flags & SAFEFILE_NOSYNC) && fsync(f->fd) < 0)
		return -1;
	if (sf_close(f) < 0)
		return -1;
	f->finished = 1;
	return 0;
}

int safefile_finish(struct safefile *f, char *err, size_t errlen)
{
	int e;

	if (!f)
		return -pte_invalid;
	if (!sf_finish(f))
		return 0;
	e = errno ? errno : EIO;
	sf_err(err, errlen, "%s: %s%s", f->name, f->tmp ? "cannot write it: " : "",
	       strerror(e));
	errno = e;
	return -pte_io;
}

int safefile_commit(struct safefile *f, char *err, size_t errlen)
{
	const char *what = "cannot write";
	int e;

	if (!f)
		return -pte_invalid;
	if (sf_finish(f) < 0)
		goto out_fail;
	if (!f->tmp) {
		sf_free(f);
		return 0;
	}
	what = "cannot replace";
	if (f->flags & SAFEFILE_NEW) {
		/* link() never replaces: a file made at the name meanwhile
		 * stays (EEXIST) */
		what = "cannot make";
		if (link(f->tmp, f->target) < 0)
			goto out_fail;
		(void)unlink(f->tmp);
	} else if (rename(f->tmp, f->target) < 0) {
		goto out_fail;
	}
	/* after: a signal in between removes a name that is gone */
	sf_pending_del(f->tmp);
	if (!(f->flags & SAFEFILE_NOSYNC))
		sf_sync_dir(f->target);
	sf_free(f);
	return 0;

out_fail:
	e = errno ? errno : EIO;
	sf_err(err, errlen, "%s: %s%s%s", f->name, f->tmp ? what : "",
	       f->tmp ? " it: " : "", strerror(e));
	safefile_abort(f);
	errno = e;
	return -pte_io;
}

int safefile_commit_pair(struct safefile *first, struct safefile *second,
			 char *err, size_t errlen)
{
	if (!second) {
		safefile_abort(first);
		return -pte_invalid;
	}
	if ((first && safefile_finish(first, err, errlen) < 0) ||
	    safefile_finish(second, err, errlen) < 0) {
		safefile_abort(first);
		safefile_abort(second);
		return -pte_io;
	}
	/* Only renames are left, and they seldom fail in a directory where
	 * a file was just made; a failed second one cannot take the first
	 * back (the file it replaced is gone). */
	if (first && safefile_commit(first, err, errlen) < 0) {
		safefile_abort(second);
		return -pte_io;
	}
	return safefile_commit(second, err, errlen);
}

void safefile_abort(struct safefile *f)
{
	int e = errno;

	if (!f)
		return;
	sf_close(f);
	if (f->tmp) {
		unlink(f->tmp);
		sf_pending_del(f->tmp);
	}
	sf_free(f);
	errno = e;
}

int safefile_open_read(const char *path, uint64_t max)
{
	struct stat st;
	int fd, fl, e;

	if (!path || !*path) {
		errno = ENOENT;
		return -1;
	}
	/* Not even opened if it is known not to be a file: opening a FIFO
	 * waits for a writer, and a device may do something. */
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		return -1;
	}
	/* Non-blocking, since it may have been replaced meanwhile. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0) {
		e = errno;
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		e = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		goto out_close;
	}
	if (max && (uint64_t)st.st_size > max) {
		e = EFBIG;
		goto out_close;
	}
	fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;

out_close:
	close(fd);
	errno = e;
	return -1;
}

FILE *safefile_fopen_read(const char *path, uint64_t max)
{
	int fd = safefile_open_read(path, max), e;
	FILE *f;

	if (fd < 0)
		return NULL;
	f = fdopen(fd, "r");
	if (!f) {
		e = errno;
		close(fd);
		errno = e;
	}
	return f;
}

const char *safefile_strerror(int errnum)
{
	if (errnum == EINVAL)
		return "not a regular file";
	return strerror(errnum);
}

/* Whether [@p, @q) is one or more digits not starting with 0 (as %ld
 * and %u print them). */
static int sf_number(const char *p, const char *q)
{
	const char *c;

	if (p == q || (*p == '0' && q - p > 1))
		return 0;
	for (c = p; c < q; c++)
		if (*c < '0' || *c > '9')
			return 0;
	return 1;
}

/* If @s is a temporary file's name as sf_open_tmp() makes it,
 * NAME.tmp.PID.N (or NAME.tmp.PID, an older shape), the length of NAME,
 * with PID in *@pid; else 0. */
static size_t sf_tmp_name(const char *s, pid_t *pid)
{
	const char *t, *hit = NULL, *dot, *end = s + strlen(s);
	long v;

	for (t = strstr(s, ".tmp."); t; t = strstr(t + 1, ".tmp."))
		hit = t;
	if (!hit || hit == s)
		return 0;
	t = hit + 5;
	dot = strchr(t, '.');
	if (!sf_number(t, dot ? dot : end) || (dot && !sf_number(dot + 1, end)))
		return 0;
	errno = 0;
	v = strtol(t, NULL, 10);
	if (errno || v <= 0 || v > INT_MAX)
		return 0;
	*pid = (pid_t)v;
	return (size_t)(hit - s);
}

int safefile_clean_dead(const char *dir, const char *name, const char *suffix)
{
	size_t len, slen = suffix ? strlen(suffix) : 0;
	struct dirent *d;
	struct stat st;
	int dfd, n = 0;
	pid_t pid;
	DIR *dp;

	if (!dir || (!name && !suffix))
		return -pte_invalid;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -pte_io;
	dp = fdopendir(dfd);
	if (!dp) {
		close(dfd);
		return -pte_io;
	}
	while ((d = readdir(dp))) {
		len = sf_tmp_name(d->d_name, &pid);
		if (!len)
			continue;
		if (name ? strlen(name) != len || strncmp(d->d_name, name, len) :
		    len < slen || strncmp(d->d_name + len - slen, suffix, slen))
			continue;
		/* Only a dead saver's: kill() fails with EPERM for a live
		 * process of another user, and succeeds for ours. */
		if (pid == getpid() || !kill(pid, 0) || errno != ESRCH)
			continue;
		/* Never a link (unlinkat() would not follow it, but the name
		 * is not ours then), nor a file of another user. */
		if (fstatat(dfd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode) || st.st_uid != geteuid())
			continue;
		if (!unlinkat(dfd, d->d_name, 0))
			n++;
	}
	closedir(dp);
	return n;
}
