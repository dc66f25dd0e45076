/*
 * out.c -- ptrecord's output files (the traces, their logs, the images,
 * the options and sideband files), written through safefile (safefile.h):
 * each to a temporary file beside its name, renamed into place only when
 * the whole recording succeeded (ptr_out_commit()).  A failed recording,
 * an early exit or a fatal signal removes them, and what had those names
 * before stays as it was; the traced program itself is never replaced.
 */
#include <errno.h>
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
static char **out_dirs;	/* directories made for them, removed with them
			 * (the last made first) */
static size_t out_ndirs;

/* Remove every temporary file not committed (atexit). */
static void out_abort_all(void)
{
	while (out_n)
		safefile_abort(out_files[--out_n]);
	while (out_ndirs) {
		/* only if empty: nothing but ours */
		rmdir(out_dirs[--out_ndirs]);
		free(out_dirs[out_ndirs]);
	}
	free(out_dirs);
	out_dirs = NULL;
}

int ptr_out_mkdir(const char *path)
{
	char **d;

	if (!mkdir(path, 0755)) {
		d = realloc(out_dirs, (out_ndirs + 1) * sizeof(*d));
		if (d) {
			out_dirs = d;
			d[out_ndirs] = strdup(path);
			out_ndirs += !!d[out_ndirs];
		}
		return 0;
	}
	return errno == EEXIST ? 0 : -1;
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
	safefile_remove_on_signals();
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
	while (out_ndirs)	/* kept */
		free(out_dirs[--out_ndirs]);
	free(out_dirs);
	out_dirs = NULL;
	return ret;
}

void ptr_out_abort(void)
{
	out_abort_all();
}
