/*
 * out.c -- ptrecord's output files (the traces, their logs, the images,
 * the options and sideband files), written through safefile (safefile.h):
 * each to a temporary file beside its name, renamed into place only when
 * the whole recording succeeded (ptr_out_commit()).  A failed recording,
 * an early exit or a fatal signal removes them, and what had those names
 * before stays as it was; the traced program itself is never replaced.
 */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ptrecord.h"
#include "safefile.h"

static struct safefile **out_files;	/* not yet committed */
static size_t out_n, out_cap;
static struct safefile_keep out_keep;	/* the traced program */
static size_t out_nkeep;

/* A directory made for the outputs, removed with them (if empty: nothing
 * but ours).  A list from the last made (the deepest) back, so that a
 * fatal signal's handler can walk it: a node is complete before it is
 * published, and taken off only after its rmdir(). */
struct out_dir {
	struct out_dir *prev;
	char path[];
};
static struct out_dir *_Atomic out_dirs;

/* Remove the directories made for the outputs, the last made first.
 * Async-signal-safe (atomic loads and rmdir() only): the handler of a
 * fatal signal calls it after safefile_remove_pending(). */
static void out_rmdir_pending(void)
{
	struct out_dir *d;

	for (d = atomic_load(&out_dirs); d; d = d->prev)
		rmdir(d->path);
}

/* Forget the directories made; @remove: rmdir() each first. */
static void out_dirs_drop(int remove)
{
	struct out_dir *d;

	while ((d = atomic_load(&out_dirs))) {
		if (remove)
			rmdir(d->path);
		atomic_store(&out_dirs, d->prev);
		free(d);
	}
}

/* Remove every temporary file not committed (atexit). */
static void out_abort_all(void)
{
	while (out_n)
		safefile_abort(out_files[--out_n]);
	out_dirs_drop(1);
}

/* SIGINT, SIGTERM, SIGHUP, SIGXFSZ: what safefile_remove_on_signals()
 * does, and the directories too, then die of the signal as before. */
static void out_on_signal(int sig)
{
	safefile_remove_pending();
	out_rmdir_pending();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void out_remove_on_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGXFSZ };
	struct sigaction sa, old;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = out_on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		/* an ignored signal (nohup, trap '') stays ignored */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
}

int ptr_out_mkdir(const char *path)
{
	size_t len = strlen(path) + 1;
	struct out_dir *d = malloc(sizeof(*d) + len);

	if (!d) {
		errno = ENOMEM;
		return -1;
	}
	if (mkdir(path, 0755) < 0) {
		struct stat st;
		int e = errno;

		/* one that exists must be a directory (a symbolic link to
		 * one is fine: the files in it are ours) */
		if (e == EEXIST && (stat(path, &st) < 0 || !S_ISDIR(st.st_mode)))
			e = ENOTDIR;
		free(d);
		errno = e;
		return e == EEXIST ? 0 : -1;
	}
	memcpy(d->path, path, len);
	d->prev = atomic_load(&out_dirs);
	atomic_store(&out_dirs, d);
	return 0;
}

void ptr_out_init(pid_t pid)
{
	char exe[64];
	struct stat st;

	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)pid);
	if (!stat(exe, &st)) {
		out_keep.dev = st.st_dev;
		out_keep.ino = st.st_ino;
		out_keep.what = "the traced program";
		out_nkeep = 1;
	}
	atexit(out_abort_all);
	out_remove_on_signals();
}

FILE *ptr_out_open(const char *path, int made_up)
{
	struct safefile_opts so = {
		/* generated data: no fsync; names we make up are never
		 * followed through a symbolic link */
		.flags = SAFEFILE_NOSYNC | (made_up ? SAFEFILE_NOFOLLOW : 0),
		.keep = &out_keep,
		.nkeep = out_nkeep,
	};
	struct safefile *sf;
	char err[4300];
	FILE *f;

	if (out_n == out_cap) {
		size_t cap = out_cap ? 2 * out_cap : 16;
		struct safefile **p = realloc(out_files, cap * sizeof(*p));

		if (!p) {
			fprintf(stderr, "ptrecord: %s: out of memory\n", path);
			return NULL;
		}
		out_files = p;
		out_cap = cap;
	}
	if (safefile_create(&sf, path, &so, err, sizeof(err)) < 0) {
		fprintf(stderr, "ptrecord: %s\n", err);
		return NULL;
	}
	f = safefile_stream(sf);
	if (!f) {
		fprintf(stderr, "ptrecord: %s: out of memory\n", path);
		safefile_abort(sf);
		return NULL;
	}
	out_files[out_n++] = sf;
	return f;
}

int ptr_out_commit(void)
{
	char err[4300];
	size_t i;
	int ret = 0;

	for (i = 0; i < out_n; i++)
		if (safefile_commit(out_files[i], err, sizeof(err)) < 0) {
			fprintf(stderr, "ptrecord: %s\n", err);
			ret = -1;
		}
	out_n = 0;
	out_dirs_drop(0);	/* kept */
	return ret;
}

void ptr_out_abort(void)
{
	out_abort_all();
}
