/* test_safefile -- the one way to write a file, and to read one safely. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "ptdec.h"
#include "safefile.h"

static char tmpdir[] = "/tmp/test_safefile.XXXXXX";

static int setup(void **state)
{
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return helpers_rm_rf(tmpdir);
}

/* @name inside the test directory, in one of four static buffers. */
static const char *in_dir(const char *name)
{
	static char buf[4][PATH_MAX];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", tmpdir, name);
	return buf[k];
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* The content of @path (at most 255 bytes), or "(none)". */
static const char *get(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return "(none)";
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

/* Files in the test directory whose name contains ".tmp.". */
static int tmp_files(void)
{
	struct dirent *d;
	DIR *dp = opendir(tmpdir);
	int n = 0;

	assert_non_null(dp);
	while ((d = readdir(dp)))
		n += strstr(d->d_name, ".tmp.") != NULL;
	closedir(dp);
	return n;
}

/* Write @text to @path through safefile with @o.  Returns what
 * safefile_create() or safefile_commit() returned. */
static int write_text(const char *path, const struct safefile_opts *o,
		      const char *text, char *err, size_t errlen)
{
	struct safefile *f;
	int r;

	r = safefile_create(&f, path, o, err, errlen);
	if (r < 0)
		return r;
	fputs(text, safefile_stream(f));
	return safefile_commit(f, err, errlen);
}

static void test_null(void **state)
{
	struct safefile *f;
	char err[256];

	assert_int_equal(safefile_create(NULL, "x", NULL, err, sizeof(err)), -pte_invalid);
	assert_int_equal(safefile_create(&f, NULL, NULL, err, sizeof(err)), -pte_invalid);
	assert_null(f);
	assert_int_equal(safefile_commit(NULL, err, sizeof(err)), -pte_invalid);
	safefile_abort(NULL);
	assert_int_equal(safefile_fd(NULL), -1);
	assert_null(safefile_stream(NULL));
	assert_int_equal(safefile_open_read(NULL, 0), -1);
}

static void test_empty_name(void **state)
{
	struct safefile *f;
	char err[256];

	assert_int_equal(safefile_create(&f, "", NULL, err, sizeof(err)), -pte_invalid);
	assert_string_equal(err, "empty file name");
	assert_int_equal(safefile_open_read("", 0), -1);
	assert_int_equal(errno, ENOENT);
}

static void test_new_and_replace(void **state)
{
	const char *p = in_dir("new.txt");
	struct stat st;
	char err[256];
	mode_t old = umask(022);

	assert_int_equal(write_text(p, NULL, "one\n", err, sizeof(err)), 0);
	assert_string_equal(get(p), "one\n");
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);	/* 0666 less the umask */
	/* A replacement keeps the old file's mode. */
	assert_int_equal(chmod(p, 0600), 0);
	assert_int_equal(write_text(p, NULL, "two\n", err, sizeof(err)), 0);
	assert_string_equal(get(p), "two\n");
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(tmp_files(), 0);
	umask(old);
}

/* SAFEFILE_NEW: a new name is made; a file at the name (made after the
 * create, as by another process) stays, the commit fails with EEXIST and
 * leaves no temporary file. */
static void test_new_only(void **state)
{
	const struct safefile_opts so = { SAFEFILE_NEW, 0600, NULL, 0, NULL, NULL };
	const char *p = in_dir("only.txt");
	struct safefile *f;
	char err[256];

	assert_int_equal(safefile_create(&f, p, &so, err, sizeof(err)), 0);
	assert_int_equal(write(safefile_fd(f), "made\n", 5), 5);
	assert_int_equal(safefile_commit(f, err, sizeof(err)), 0);
	assert_string_equal(get(p), "made\n");
	assert_int_equal(unlink(p), 0);
	assert_int_equal(safefile_create(&f, p, &so, err, sizeof(err)), 0);
	assert_int_equal(write(safefile_fd(f), "late\n", 5), 5);
	put(p, "theirs\n");
	assert_int_equal(safefile_commit(f, err, sizeof(err)), -pte_io);
	assert_int_equal(errno, EEXIST);
	assert_string_equal(get(p), "theirs\n");
	assert_int_equal(tmp_files(), 0);
}

/* Until the commit, the target is untouched; an abort leaves it so. */
static void test_abort_keeps_target(void **state)
{
	const char *p = in_dir("keep.txt");
	struct safefile *f;
	char err[256];

	put(p, "precious\n");
	assert_int_equal(safefile_create(&f, p, NULL, err, sizeof(err)), 0);
	assert_int_equal(write(safefile_fd(f), "junk", 4), 4);
	assert_string_equal(get(p), "precious\n");
	assert_int_equal(tmp_files(), 1);
	safefile_abort(f);
	assert_string_equal(get(p), "precious\n");
	assert_int_equal(tmp_files(), 0);
}

static void test_not_regular(void **state)
{
	const char *fifo = in_dir("fifo"), *dir = in_dir("adir");
	struct safefile *f;
	char err[256];

	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(safefile_create(&f, fifo, NULL, err, sizeof(err)), -pte_invalid);
	assert_non_null(strstr(err, "is a FIFO"));
	assert_non_null(strstr(err, fifo));
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(safefile_create(&f, dir, NULL, err, sizeof(err)), -pte_invalid);
	assert_non_null(strstr(err, "is a directory"));
	assert_int_equal(safefile_create(&f, "/dev/null", NULL, err, sizeof(err)),
			 -pte_invalid);
	assert_non_null(strstr(err, "character device"));
	assert_int_equal(tmp_files(), 0);
}

/* The protected file, by any name: itself, a symbolic link, a hard link. */
static void test_keep(void **state)
{
	const char *in = in_dir("in.pt"), *sym = in_dir("sym.pt"),
		   *hard = in_dir("hard.pt");
	struct safefile_keep keep;
	struct safefile_opts o = { .keep = &keep, .nkeep = 1 };
	struct safefile *f;
	struct stat st;
	char err[256];

	put(in, "trace\n");
	assert_int_equal(stat(in, &st), 0);
	keep.dev = st.st_dev;
	keep.ino = st.st_ino;
	keep.what = "the trace";
	assert_int_equal(symlink("in.pt", sym), 0);
	assert_int_equal(link(in, hard), 0);
	assert_int_equal(safefile_create(&f, in, &o, err, sizeof(err)), -pte_invalid);
	assert_non_null(strstr(err, "is the trace"));
	assert_int_equal(safefile_create(&f, sym, &o, err, sizeof(err)), -pte_invalid);
	assert_int_equal(safefile_create(&f, hard, &o, err, sizeof(err)), -pte_invalid);
	o.flags = SAFEFILE_NOFOLLOW;
	assert_int_equal(safefile_create(&f, hard, &o, err, sizeof(err)), -pte_invalid);
	assert_string_equal(get(in), "trace\n");
}

/* safefile_keep_add(): a file that exists is kept (through a link), one
 * that does not is skipped, a full list says so. */
static void test_keep_add(void **state)
{
	const char *opts = in_dir("k.pt.options"), *sym = in_dir("k.sym");
	struct safefile_keep keep[2];
	struct safefile_opts o = { .keep = keep };
	struct safefile *f;
	char err[256];

	(void)state;
	put(opts, "--mtc-freq 3\n");
	assert_int_equal(symlink("k.pt.options", sym), 0);
	assert_int_equal(safefile_keep_add(keep, &o.nkeep, 2, in_dir("none"), "x"), 0);
	assert_int_equal(safefile_keep_add(keep, &o.nkeep, 2, NULL, "x"), 0);
	assert_int_equal(o.nkeep, 0);
	assert_int_equal(safefile_keep_add(keep, &o.nkeep, 2, sym,
					   "the trace's options file"), 1);
	assert_int_equal(safefile_keep_add(keep, &o.nkeep, 2, opts, "again"), 1);
	assert_int_equal(safefile_keep_add(keep, &o.nkeep, 2, opts, "full"),
			 -pte_nomem);
	assert_int_equal(o.nkeep, 2);
	assert_int_equal(safefile_create(&f, opts, &o, err, sizeof(err)), -pte_invalid);
	assert_non_null(strstr(err, "is the trace's options file"));
	assert_string_equal(get(opts), "--mtc-freq 3\n");
	assert_int_equal(tmp_files(), 0);
}

/* A link the user names is written through (the link stays); a link where
 * links are not followed is refused; a dangling one always. */
static void test_symlinks(void **state)
{
	const char *target = in_dir("target.txt"), *link1 = in_dir("link.txt"),
		   *dang = in_dir("dangling.txt");
	struct safefile_opts nofollow = { .flags = SAFEFILE_NOFOLLOW };
	struct safefile *f;
	struct stat st;
	char err[256];

	put(target, "old\n");
	assert_int_equal(symlink("target.txt", link1), 0);
	assert_int_equal(write_text(link1, NULL, "new\n", err, sizeof(err)), 0);
	assert_int_equal(lstat(link1, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_string_equal(get(target), "new\n");

	assert_int_equal(safefile_create(&f, link1, &nofollow, err, sizeof(err)),
			 -pte_invalid);
	assert_non_null(strstr(err, "symbolic link"));
	assert_string_equal(get(target), "new\n");

	assert_int_equal(symlink("nowhere/x", dang), 0);
	assert_int_equal(safefile_create(&f, dang, NULL, err, sizeof(err)), -pte_invalid);
	assert_non_null(strstr(err, "leads nowhere"));
	assert_int_equal(tmp_files(), 0);
}

static void test_magic(void **state)
{
	const char *p = in_dir("shared.marks"), *e = in_dir("empty.marks");
	struct safefile_opts o = { .magic = "# ptbrowse marks", .kind = "a marks file" };
	char err[256];

	put(p, "\x02\x82 not marks");
	assert_int_equal(write_text(p, &o, "# ptbrowse marks v1\n", err, sizeof(err)),
			 -pte_invalid);
	assert_non_null(strstr(err, "is not a marks file"));
	assert_string_equal(get(p), "\x02\x82 not marks");
	put(p, "# ptbrowse marks v1\nmark a 0x10\n");
	assert_int_equal(write_text(p, &o, "# ptbrowse marks v1\n", err, sizeof(err)), 0);
	put(e, "");
	assert_int_equal(write_text(e, &o, "# ptbrowse marks v1\n", err, sizeof(err)), 0);
}

static void test_missing_dir(void **state)
{
	struct safefile *f;
	char err[512];

	assert_int_equal(safefile_create(&f, in_dir("no/such/x"), NULL, err,
					 sizeof(err)), -pte_io);
	assert_non_null(strstr(err, "no such directory"));
}

/* "-" is standard output only where the caller says so. */
static void test_stdout(void **state)
{
	const char *p = in_dir("stdout.txt");
	struct safefile_opts o = { .flags = SAFEFILE_STDOUT };
	struct safefile *f;
	char err[256];
	int saved, fd;

	assert_int_equal(safefile_create(&f, "-", NULL, err, sizeof(err)), -pte_invalid);
	assert_non_null(strstr(err, "./-"));
	fflush(stdout);
	saved = dup(1);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(saved >= 0 && fd >= 0);
	dup2(fd, 1);
	assert_int_equal(write_text("-", &o, "to stdout\n", err, sizeof(err)), 0);
	/* standard output being the protected file is refused too */
	{
		struct safefile_keep keep;
		struct stat st;

		fstat(fd, &st);
		keep.dev = st.st_dev;
		keep.ino = st.st_ino;
		keep.what = "the trace";
		o.keep = &keep;
		o.nkeep = 1;
		assert_int_equal(safefile_create(&f, "-", &o, err, sizeof(err)),
				 -pte_invalid);
	}
	dup2(saved, 1);
	close(saved);
	close(fd);
	assert_string_equal(get(p), "to stdout\n");
	assert_int_equal(fcntl(1, F_GETFD), 0);	/* still open */
}

/* A name too long for a temporary file beside it is cut, not refused. */
static void test_long_name(void **state)
{
	char name[NAME_MAX + 1];
	char err[256];

	memset(name, 'n', NAME_MAX - 4);
	strcpy(name + NAME_MAX - 4, ".txt");
	assert_int_equal(write_text(in_dir(name), NULL, "long\n", err, sizeof(err)), 0);
	assert_string_equal(get(in_dir(name)), "long\n");
	assert_int_equal(tmp_files(), 0);
}

/* Two files put in place together: both replaced; without the second,
 * the first is given up (its temporary file removed, its target as it
 * was); finished, a file is only renamed by its commit. */
static void test_commit_pair(void **state)
{
	const char *a = in_dir("pair.pt.options"), *b = in_dir("pair.pt");
	struct safefile *fa, *fb;
	char err[256];

	(void)state;
	put(a, "old a\n");
	put(b, "old b\n");
	assert_int_equal(safefile_create(&fa, a, NULL, err, sizeof(err)), 0);
	assert_int_equal(safefile_write(fa, "new a\n", 6), 0);
	assert_int_equal(safefile_commit_pair(fa, NULL, err, sizeof(err)), -pte_invalid);
	assert_string_equal(get(a), "old a\n");
	assert_int_equal(tmp_files(), 0);
	assert_int_equal(safefile_create(&fa, a, NULL, err, sizeof(err)), 0);
	assert_int_equal(safefile_create(&fb, b, NULL, err, sizeof(err)), 0);
	fprintf(safefile_stream(fa), "new a\n");
	assert_int_equal(safefile_write(fb, "new b\n", 6), 0);
	assert_int_equal(safefile_finish(fb, err, sizeof(err)), 0);
	assert_string_equal(get(b), "old b\n");
	assert_int_equal(safefile_commit_pair(fa, fb, err, sizeof(err)), 0);
	assert_string_equal(get(a), "new a\n");
	assert_string_equal(get(b), "new b\n");
	assert_int_equal(tmp_files(), 0);
	assert_int_equal(safefile_create(&fb, b, NULL, err, sizeof(err)), 0);
	assert_int_equal(safefile_write(fb, "b3\n", 3), 0);
	assert_int_equal(safefile_commit_pair(NULL, fb, err, sizeof(err)), 0);
	assert_string_equal(get(b), "b3\n");
}

/* Every fchmod() of this program (safefile.c's) lands here first: the mode
 * the file had before the first one, to see what others could do with a
 * temporary file before it got its final mode.  -1: none seen. */
static int fchmod_before = -1;

int fchmod(int fd, mode_t mode)
{
	struct stat st;

	if (fchmod_before < 0 && !fstat(fd, &st))
		fchmod_before = (int)(st.st_mode & 07777);
	return (int)syscall(SYS_fchmod, fd, mode);
}

/* Replacing a 0600 file, the temporary file is never open to others, not
 * even with umask 0, and the new file is 0600 too. */
static void test_private_mode(void **state)
{
	const char *p = in_dir("secret.txt");
	struct safefile *f;
	struct stat st;
	char err[256];
	mode_t mask;
	int r;

	(void)state;
	put(p, "old\n");
	assert_int_equal(chmod(p, 0600), 0);
	fchmod_before = -1;
	mask = umask(0);
	r = safefile_create(&f, p, NULL, err, sizeof(err));
	umask(mask);
	assert_int_equal(r, 0);
	assert_true(fchmod_before >= 0);
	assert_int_equal(fchmod_before & 077, 0);
	assert_int_equal(safefile_write(f, "new\n", 4), 0);
	assert_int_equal(safefile_commit(f, err, sizeof(err)), 0);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_string_equal(get(p), "new\n");
}

/* A command killed half way leaves the old file and no temporary one. */
static void test_signal(void **state)
{
	const char *p = in_dir("killed.txt");
	struct safefile *f;
	char err[256];
	int status;
	pid_t pid;

	put(p, "old\n");
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		safefile_remove_on_signals();
		if (safefile_create(&f, p, NULL, err, sizeof(err)) < 0 ||
		    write(safefile_fd(f), "half", 4) != 4)
			_exit(3);
		raise(SIGTERM);
		_exit(4);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGTERM);
	assert_string_equal(get(p), "old\n");
	assert_int_equal(tmp_files(), 0);
}

/* Killed with 150 files being written (ptrecord writes 15 for --cpus 6):
 * the handler removes every temporary file, not the first 8. */
static void test_signal_many(void **state)
{
	struct safefile *f;
	char err[256], name[32];
	int status, i;
	pid_t pid;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		safefile_remove_on_signals();
		for (i = 0; i < 150; i++) {
			snprintf(name, sizeof(name), "many%d.txt", i);
			if (safefile_create(&f, in_dir(name), NULL, err,
					    sizeof(err)) < 0)
				_exit(3);
		}
		raise(SIGTERM);
		_exit(4);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGTERM);
	assert_int_equal(tmp_files(), 0);
}

static void test_read(void **state)
{
	const char *p = in_dir("read.txt"), *fifo = in_dir("rfifo");
	FILE *f;
	int fd;

	put(p, "hello\n");
	fd = safefile_open_read(p, 0);
	assert_true(fd >= 0);
	assert_int_equal(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
	close(fd);
	assert_int_equal(safefile_open_read(p, 3), -1);
	assert_int_equal(errno, EFBIG);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	/* returns at once: no writer is waited for */
	assert_int_equal(safefile_open_read(fifo, 0), -1);
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(safefile_strerror(errno), "not a regular file"));
	assert_int_equal(safefile_open_read("/dev/zero", 0), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(safefile_open_read(tmpdir, 0), -1);
	assert_int_equal(errno, EISDIR);
	assert_null(safefile_fopen_read(in_dir("absent"), 0));
	assert_int_equal(errno, ENOENT);
	f = safefile_fopen_read(p, 0);
	assert_non_null(f);
	fclose(f);
}

/* A file we may not write is refused, as the shell's > would refuse it;
 * one nobody may write even by root (access() lets root write anything). */
static void test_write_protected(void **state)
{
	const char *p = in_dir("ro.txt");
	struct safefile *f;
	char err[512];

	(void)state;
	put(p, "old\n");
	assert_int_equal(chmod(p, 0444), 0);
	assert_int_equal(safefile_create(&f, p, NULL, err, sizeof(err)), -pte_invalid);
	assert_null(f);
	assert_non_null(strstr(err, "ro.txt: write-protected; not replacing it"));
	assert_string_equal(get(p), "old\n");
	assert_int_equal(tmp_files(), 0);
	/* through a symbolic link too: the file it leads to counts */
	assert_int_equal(symlink(p, in_dir("ro-link.txt")), 0);
	assert_int_equal(write_text(in_dir("ro-link.txt"), NULL, "new\n", err,
				    sizeof(err)), -pte_invalid);
	assert_non_null(strstr(err, "ro-link.txt: write-protected"));
	assert_string_equal(get(p), "old\n");
	/* writable again: replaced */
	assert_int_equal(chmod(p, 0644), 0);
	assert_int_equal(write_text(p, NULL, "new\n", err, sizeof(err)), 0);
	assert_string_equal(get(p), "new\n");
}

/* A process id that no process has now (one of ours, reaped). */
static pid_t dead_pid(void)
{
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (!pid)
		_exit(0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return pid;
}

/* Whether @name is in directory @dir. */
static int in(const char *dir, const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return !lstat(path, &st);
}

/* The temporary files of dead savers, and only those, are removed. */
static void test_clean_dead(void **state)
{
	static const char *const gone[] = { "a.idx.tmp.%d.0", "b.idx.tmp.%d.17",
					    "c.idx.tmp.%d" };
	static const char *const stay[] = {
		"a.idx.tmp.%d.", "a.idx.tmp.0%d.0", "a.idx.tmp.%d.0x", "a.idx.tmp.+%d.0",
		"a.txt.tmp.%d.0", ".tmp.%d.0", "a.idx.tmp..%d", "a.idx.%d.0",
	};
	char dir[256], name[64], live[64], path[PATH_MAX];
	pid_t dead = dead_pid();
	size_t i;

	(void)state;
	/* (in_dir()'s buffers are reused) */
	snprintf(dir, sizeof(dir), "%s", in_dir("clean"));
	assert_int_equal(safefile_clean_dead(NULL, "x", NULL), -pte_invalid);
	assert_int_equal(safefile_clean_dead(dir, NULL, NULL), -pte_invalid);
	assert_int_equal(safefile_clean_dead(in_dir("no-such-dir"), NULL, ".idx"), -pte_io);
	assert_int_equal(mkdir(dir, 0700), 0);
	for (i = 0; i < sizeof(gone) / sizeof(gone[0]); i++) {
		snprintf(name, sizeof(name), gone[i], (int)dead);
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		put(path, "half");
	}
	for (i = 0; i < sizeof(stay) / sizeof(stay[0]); i++) {
		snprintf(name, sizeof(name), stay[i], (int)dead);
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		put(path, "keep");
	}
	/* a live saver's (ours), a link (to a file outside), a directory */
	snprintf(live, sizeof(live), "a.idx.tmp.%d.0", (int)getpid());
	snprintf(path, sizeof(path), "%s/%s", dir, live);
	put(path, "live");
	put(in_dir("outside"), "outside");
	snprintf(path, sizeof(path), "%s/l.idx.tmp.%d.0", dir, (int)dead);
	assert_int_equal(symlink(in_dir("outside"), path), 0);
	snprintf(path, sizeof(path), "%s/d.idx.tmp.%d.0", dir, (int)dead);
	assert_int_equal(mkdir(path, 0700), 0);

	/* by name: only that name's */
	assert_int_equal(safefile_clean_dead(dir, "b.idx", NULL), 1);
	snprintf(name, sizeof(name), gone[1], (int)dead);
	assert_false(in(dir, name));
	snprintf(name, sizeof(name), gone[0], (int)dead);
	assert_true(in(dir, name));
	/* by suffix: the rest */
	assert_int_equal(safefile_clean_dead(dir, NULL, ".idx"), 2);
	for (i = 0; i < sizeof(gone) / sizeof(gone[0]); i++) {
		snprintf(name, sizeof(name), gone[i], (int)dead);
		assert_false(in(dir, name));
	}
	for (i = 0; i < sizeof(stay) / sizeof(stay[0]); i++) {
		snprintf(name, sizeof(name), stay[i], (int)dead);
		assert_true(in(dir, name));
	}
	assert_true(in(dir, live));
	snprintf(name, sizeof(name), "l.idx.tmp.%d.0", (int)dead);
	assert_true(in(dir, name));
	snprintf(name, sizeof(name), "d.idx.tmp.%d.0", (int)dead);
	assert_true(in(dir, name));
	assert_string_equal(get(in_dir("outside")), "outside");
	assert_int_equal(safefile_clean_dead(dir, NULL, ".idx"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_empty_name),
		cmocka_unit_test(test_new_and_replace),
		cmocka_unit_test(test_new_only),
		cmocka_unit_test(test_abort_keeps_target),
		cmocka_unit_test(test_not_regular),
		cmocka_unit_test(test_keep),
		cmocka_unit_test(test_keep_add),
		cmocka_unit_test(test_symlinks),
		cmocka_unit_test(test_magic),
		cmocka_unit_test(test_missing_dir),
		cmocka_unit_test(test_stdout),
		cmocka_unit_test(test_long_name),
		cmocka_unit_test(test_commit_pair),
		cmocka_unit_test(test_private_mode),
		cmocka_unit_test(test_signal),
		cmocka_unit_test(test_signal_many),
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_write_protected),
		cmocka_unit_test(test_clean_dead),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
