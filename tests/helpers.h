/*
 * helpers -- fixtures the tests and benchmarks share: the shared traces by
 * name, a file mapped or read whole, a file written, a scratch directory
 * removed, a median.  Header only (static inline), so a test, a bench and
 * a fuzz target each take it without a Makefile rule; no cmocka here: a
 * helper returns what went wrong and the caller asserts.
 */
#ifndef TESTS_HELPERS_H
#define TESTS_HELPERS_H

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* A file mapped read-only. */
struct helpers_map {
	uint8_t *data;
	size_t size;
};

/* $SHARED/traces/@rel (../shared without $SHARED) into @buf of @n bytes.
 * Returns @buf. */
static inline const char *helpers_shared_path(char *buf, size_t n, const char *rel)
{
	const char *shared = getenv("SHARED");

	snprintf(buf, n, "%s/traces/%s", shared ? shared : "../shared", rel);
	return buf;
}

/* Map @path whole, read-only, into @m (zeroed on failure).
 * Returns 0, or -1 if it cannot be opened or mapped or is empty. */
static inline int helpers_map_file(const char *path, struct helpers_map *m)
{
	struct stat st;
	int fd = open(path, O_RDONLY);

	m->data = NULL;
	m->size = 0;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !st.st_size) {
		close(fd);
		return -1;
	}
	m->size = (size_t)st.st_size;
	m->data = mmap(NULL, m->size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m->data == MAP_FAILED) {
		m->data = NULL;
		m->size = 0;
		return -1;
	}
	return 0;
}

/* Map the shared trace @rel (helpers_shared_path()) into @m.
 * Returns 0, or -1 as helpers_map_file(). */
static inline int helpers_map_shared(const char *rel, struct helpers_map *m)
{
	char path[4096];

	return helpers_map_file(helpers_shared_path(path, sizeof(path), rel), m);
}

/* Unmap what helpers_map_file() mapped (a zeroed @m is fine). */
static inline void helpers_unmap(struct helpers_map *m)
{
	if (m->data && m->size)
		munmap(m->data, m->size);
	m->data = NULL;
	m->size = 0;
}

/* Read @path whole into a malloc'ed buffer, NUL-terminated one past the
 * end (for text), its size in *@n.
 * Returns the buffer, or NULL if it cannot be read or memory is short. */
static inline uint8_t *helpers_read_file(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b = NULL;
	long sz;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) || (sz = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		goto out_close;
	b = malloc((size_t)sz + 1);
	if (b && fread(b, 1, (size_t)sz, f) != (size_t)sz) {
		free(b);
		b = NULL;
	}
	if (b) {
		b[sz] = 0;
		*n = (size_t)sz;
	}
out_close:
	fclose(f);
	return b;
}

/* Write @n bytes of @data to @path, replacing it (test files only: the
 * program's writers go through src/safefile.c).
 * Returns 0, or -1 if it cannot be created or written. */
static inline int helpers_write_file(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");
	int ok;

	if (!f)
		return -1;
	ok = fwrite(data, 1, n, f) == n;
	return fclose(f) == 0 && ok ? 0 : -1;
}

/* helpers_write_file() of a string. */
static inline int helpers_write_text(const char *path, const char *text)
{
	size_t n = 0;

	while (text[n])
		n++;
	return helpers_write_file(path, text, n);
}

static inline int helpers_rm_one(const char *path, const struct stat *st,
				 int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Remove @dir and all it holds (a test's scratch directory; symbolic
 * links are removed, not followed).
 * Returns 0, or -1 if something could not be removed. */
static inline int helpers_rm_rf(const char *dir)
{
	return nftw(dir, helpers_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static inline int helpers_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of the @n values at @v (sorted in place). */
static inline double helpers_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), helpers_cmp_double);
	return v[n / 2];
}

#endif /* TESTS_HELPERS_H */
