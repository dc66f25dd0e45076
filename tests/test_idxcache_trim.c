/* test_idxcache_trim -- the index cache's size limit: sizes, the config
 * line, and what idxcache_trim() removes (tests/t_cache_trim.sh runs the
 * commands). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "idxcache.h"
#include "ptdec.h"

static char dir[256], idir[320];

static int setup(void **state)
{
	char p[300];

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_idxcache_trim.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(p, sizeof(p), "%s/cache", dir);
	setenv("XDG_CACHE_HOME", p, 1);
	setenv("XDG_CONFIG_HOME", p, 1);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/cache/ptbrowse", dir);
	mkdir(p, 0700);
	snprintf(idir, sizeof(idir), "%s/cache/ptbrowse/index", dir);
	return mkdir(idir, 0700);
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) ? -1 : 0;
}

static void test_sizes(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(idxcache_parse_size("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(idxcache_parse_size("2GiB", &v), 0);
	assert_int_equal(v, 2ull << 30);
	assert_int_equal(idxcache_parse_size("500MB", &v), 0);
	assert_int_equal(v, 500000000ull);
	assert_int_equal(idxcache_parse_size("1.5kib", &v), 0);
	assert_int_equal(v, 1536);
	assert_int_equal(idxcache_parse_size("4096", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(idxcache_parse_size("", &v), -pte_invalid);
	assert_int_equal(idxcache_parse_size("-1", &v), -pte_invalid);
	assert_int_equal(idxcache_parse_size("+1MiB", &v), -pte_invalid);
	assert_int_equal(idxcache_parse_size("2X", &v), -pte_invalid);
	assert_int_equal(idxcache_parse_size("50%", &v), -pte_invalid);
	assert_int_equal(idxcache_parse_size("t 1ms", &v), -pte_invalid);
	assert_int_equal(idxcache_parse_size(NULL, &v), -pte_invalid);
	/* 0 is no limit: a non-zero size that rounds down to 0 bytes is
	 * refused, not taken for none */
	assert_int_equal(idxcache_parse_size("0.0001KiB", &v), -pte_invalid);
	assert_int_equal(idxcache_parse_size("0.5", &v), -pte_invalid);
	assert_int_equal(idxcache_parse_size("0.0KiB", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(idxcache_parse_size("0x0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(idxcache_parse_size("0.001KiB", &v), 0);
	assert_int_equal(v, 1);
}

static void test_config_line(void **state)
{
	char v[16];

	(void)state;
	assert_int_equal(idxcache_config_line("set cache-max 2GiB\n", v, sizeof(v)), 1);
	assert_string_equal(v, "2GiB");
	assert_int_equal(idxcache_config_line("  :set\tcache-max 0 # none", v, sizeof(v)), 1);
	assert_string_equal(v, "0");
	assert_int_equal(idxcache_config_line("set cache-max", v, sizeof(v)), 1);
	assert_string_equal(v, "");
	assert_int_equal(idxcache_config_line("set cache-max 1 GiB", v, sizeof(v)), 1);
	assert_string_equal(v, "?");
	assert_int_equal(idxcache_config_line("set cache-max 123456789012345678", v,
					      sizeof(v)), 1);
	assert_string_equal(v, "?");
	assert_int_equal(idxcache_config_line("set cache-maxi 1", v, sizeof(v)), 0);
	assert_int_equal(idxcache_config_line("set keymap emacs", v, sizeof(v)), 0);
	assert_int_equal(idxcache_config_line("# set cache-max 1", v, sizeof(v)), 0);
	assert_int_equal(idxcache_config_line("bind x set cache-max 1", v, sizeof(v)), 0);
}

/* A file @name of @size bytes beginning with @magic, its mtime @sec. */
static void put(const char *name, const char *magic, size_t size, time_t sec)
{
	struct timespec ts[2] = { { sec, 0 }, { sec, 0 } };
	char p[600], *buf = calloc(1, size);
	int fd;

	assert_non_null(buf);
	memcpy(buf, magic, strlen(magic) < size ? strlen(magic) : size);
	snprintf(p, sizeof(p), "%s/%s", idir, name);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, size), (ssize_t)size);
	assert_int_equal(futimens(fd, ts), 0);
	close(fd);
	free(buf);
}

static int there(const char *name)
{
	struct stat st;
	char p[600];

	snprintf(p, sizeof(p), "%s/%s", idir, name);
	return !lstat(p, &st);
}

#define A "aaaaaaaaaaaaaaaa-0000000000000000-raw.idx"
#define B "bbbbbbbbbbbbbbbb-0000000000000000-raw.idx"
#define C "cccccccccccccccc-0000000000000000-raw.idx"
#define N "dddddddddddddddd-0000000000000000-raw.idx"

/* Oldest first, the saved file and its code index never, nothing that is
 * not ours; one alone over the limit is kept and said once. */
static void test_trim(void **state)
{
	struct idxcache_usage u;
	char saved[600], note[600], d[600], lnk[600];

	(void)state;
	put(A, "PTBIDXC\n", 1000, 100);
	put(A ".code", "PTBCODEX", 1000, 50);
	put(B, "PTBIDXC\n", 1000, 300);
	put(C, "PTBIDXC\n", 1000, 200);
	put(N, "PTBIDXC\n", 1000, 10);		/* the one just saved */
	put(N ".code", "PTBCODEX", 1000, 20);	/* its code index */
	put("eeeeeeeeeeeeeeee-0000000000000000-raw.idx", "NOTOURS!", 5000, 1);
	put("notes.txt", "PTBIDXC\n", 5000, 1);
	put(A ".tmp.1.1", "PTBIDXC\n", 5000, 1);
	snprintf(lnk, sizeof(lnk), "%s/ffffffffffffffff-0000000000000000-raw.idx", idir);
	snprintf(d, sizeof(d), "%s/" B, idir);
	assert_int_equal(symlink(d, lnk), 0);
	assert_int_equal(idxcache_usage(&u, d, sizeof(d), NULL, 0), 0);
	assert_string_equal(d, idir);
	assert_int_equal(u.files, 6);
	assert_int_equal(u.bytes, 6000);

	snprintf(saved, sizeof(saved), "%s/" N, idir);
	idxcache_set_max(4000);
	assert_int_equal(idxcache_trim(saved, note, sizeof(note)), 2);
	assert_string_equal(note, "");
	assert_false(there(A ".code"));
	assert_false(there(A));
	assert_true(there(B) && there(C) && there(N) && there(N ".code"));
	assert_true(there("eeeeeeeeeeeeeeee-0000000000000000-raw.idx"));
	assert_true(there("notes.txt") && there(A ".tmp.1.1"));
	assert_true(there("ffffffffffffffff-0000000000000000-raw.idx"));

	/* under the limit, or none: nothing goes */
	assert_int_equal(idxcache_trim(saved, note, sizeof(note)), 0);
	idxcache_set_max(0);
	assert_int_equal(idxcache_trim(saved, note, sizeof(note)), 0);

	/* the saved file alone over the limit: kept (its code index too),
	 * said once */
	idxcache_set_max(500);
	assert_int_equal(idxcache_trim(saved, note, sizeof(note)), 2);
	assert_non_null(strstr(note, N " (1000 B) alone is over the cache's "
			       "limit (500 B"));
	assert_true(there(N) && there(N ".code"));
	assert_false(there(B) || there(C));
	assert_int_equal(idxcache_trim(saved, note, sizeof(note)), 0);
	assert_string_equal(note, "");

	assert_int_equal(idxcache_clear(&u, NULL, 0), 0);
	assert_int_equal(u.files, 2);
	assert_int_equal(u.bytes, 2000);
	assert_false(there(N) || there(N ".code"));
	assert_true(there("notes.txt") && there(A ".tmp.1.1"));
	idxcache_set_max(IDXCACHE_MAX_DEFAULT);
}

#define G "1234567890abcdef-0000000000000001-"

/* Every cache file of the trace saved stays, whatever the stream (a
 * perf.data's streams are saved one by one: each save removed the ones
 * saved before it); another trace's, or the same trace's with other
 * timing options, go. */
static void test_trim_trace(void **state)
{
	char saved[600];

	(void)state;
	put(G "cpu0.idx", "PTBIDXC\n", 1000, 10);
	put(G "cpu0.idx.code", "PTBCODEX", 1000, 11);
	put(G "cpu1.idx", "PTBIDXC\n", 1000, 12);
	put(G "cpu1.i5-6.idx", "PTBIDXC\n", 1000, 13);
	put(G "cpu2.idx", "PTBIDXC\n", 1000, 14);	/* the one saved */
	put("1234567890abcdef-0000000000000002-cpu0.idx", "PTBIDXC\n", 1000, 15);
	put(B, "PTBIDXC\n", 1000, 16);
	snprintf(saved, sizeof(saved), "%s/" G "cpu2.idx", idir);
	idxcache_set_max(5500);
	assert_int_equal(idxcache_trim(saved, NULL, 0), 2);
	assert_true(there(G "cpu0.idx") && there(G "cpu0.idx.code") &&
		    there(G "cpu1.idx") && there(G "cpu1.i5-6.idx") && there(G "cpu2.idx"));
	assert_false(there("1234567890abcdef-0000000000000002-cpu0.idx") || there(B));
	/* over the limit alone: all kept */
	idxcache_set_max(1000);
	assert_int_equal(idxcache_trim(saved, NULL, 0), 0);
	assert_true(there(G "cpu0.idx") && there(G "cpu1.idx"));
	idxcache_set_max(0);
	assert_int_equal(idxcache_clear(&(struct idxcache_usage){ 0 }, NULL, 0), 0);
	idxcache_set_max(IDXCACHE_MAX_DEFAULT);
}

/* The atime of @name (the file system's, if it keeps it). */
static time_t atime_of(const char *name)
{
	struct stat st;
	char p[600];

	snprintf(p, sizeof(p), "%s/%s", idir, name);
	return stat(p, &st) ? -1 : st.st_atime;
}

/* Set @name's atime back to 1000000000 (its mtime as it is). */
static void atime_back(const char *name)
{
	struct timespec ts[2] = { { 1000000000, 0 }, { 0, UTIME_OMIT } };
	char p[600];

	snprintf(p, sizeof(p), "%s/%s", idir, name);
	assert_int_equal(utimensat(AT_FDCWD, p, ts, 0), 0);
}

/* Under the limit a save reads no file: sizes by fstatat() (every header
 * was read, 0.3 s per save at 50,000 files). */
static void test_trim_unread(void **state)
{
	char saved[600], p[600], buf[8];
	int fd;

	(void)state;
	put(A, "PTBIDXC\n", 1000, 100);
	put(N, "PTBIDXC\n", 1000, 200);
	atime_back(A);
	/* the file system keeps atimes (relatime: an old one is updated)? */
	snprintf(p, sizeof(p), "%s/" A, idir);
	fd = open(p, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, buf, sizeof(buf)), (ssize_t)sizeof(buf));
	close(fd);
	if (atime_of(A) == 1000000000) {
		skip();
		return;
	}
	atime_back(A);
	snprintf(saved, sizeof(saved), "%s/" N, idir);
	idxcache_set_max(4000);
	assert_int_equal(idxcache_trim(saved, NULL, 0), 0);
	assert_int_equal(atime_of(A), 1000000000);
	/* over it, the file about to go is checked (and goes) */
	idxcache_set_max(1500);
	assert_int_equal(idxcache_trim(saved, NULL, 0), 1);
	assert_false(there(A));
	idxcache_set_max(0);
	assert_int_equal(idxcache_clear(&(struct idxcache_usage){ 0 }, NULL, 0), 0);
	idxcache_set_max(IDXCACHE_MAX_DEFAULT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_config_line),
		cmocka_unit_test(test_trim_trace),
		cmocka_unit_test(test_trim_unread),
		cmocka_unit_test(test_trim),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
