/* test_idxcache -- the index cache: hits, misses, corruption, growth. */
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

#include "helpers.h"
#include "idxcache.h"
#include "index.h"
#include "tm_config.h"
#include "trace.h"

static char dir[256];

static int setup(void **state)
{
	char cache[300];

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_idxcache.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	setenv("XDG_CACHE_HOME", cache, 1);
	setenv("XDG_STATE_HOME", cache, 1);
	setenv("XDG_CONFIG_HOME", cache, 1);
	return 0;
}

/* A cache directory of the test's own: every made-up trace begins the
 * same, so a shorter one's cache is a longer one's grown state. */
static void own_cache(const char *name)
{
	char cache[300];

	snprintf(cache, sizeof(cache), "%s/cache-%s", dir, name);
	setenv("XDG_CACHE_HOME", cache, 1);
}

static int teardown(void **state)
{
	(void)state;
	return helpers_rm_rf(dir);
}

/* Segment @i of a made-up trace: PSB+, then branches and pads. */
static size_t segment(uint8_t *b, unsigned i)
{
	static const uint8_t psb[16] = {
		2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82
	};
	size_t p = 0, k;

	memcpy(b, psb, 16);
	p = 16;
	b[p++] = 0x19;
	b[p++] = (uint8_t)i;
	b[p++] = (uint8_t)(i >> 8);
	memset(b + p, 0, 5);
	b[p + 1] = 1;
	p += 5;
	b[p++] = 2;
	b[p++] = 0x23;
	for (k = 0; k < 700 + i % 50; k++)
		b[p++] = (uint8_t)(k % 3 ? 0x0c : 0);
	if (i % 31 == 7) {
		b[p++] = 2;
		b[p++] = 0xf3;	/* ovf */
	}
	return p;
}

static size_t make_trace(const char *path, unsigned from, unsigned to, int append)
{
	uint8_t *b = malloc((size_t)(to - from) * 1024 + 16);
	size_t n = 0;
	unsigned i;
	FILE *f;

	assert_non_null(b);
	for (i = from; i < to; i++)
		n += segment(b + n, i);
	f = fopen(path, append ? "ab" : "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
	free(b);
	return n;
}

/* Open @path and load its index from the cache into *@idx. */
static int load(const char *path, struct trace **t, struct idx **idx, const char **why)
{
	char err[512];

	assert_int_equal(trace_open(t, path, err, sizeof(err)), 0);
	assert_int_equal(idx_new(idx, &(*t)->streams[0].img, NULL), 0);
	return idxcache_load(*idx, *t, 0, UINT64_MAX, why);
}

static void build_and_save(struct trace *t, struct idx *idx)
{
	char err[512];

	assert_int_equal(idx_build(idx), 0);
	assert_int_equal(idxcache_save(idx, t, 0, NULL, err, sizeof(err)), 0);
}

static void same_index(struct idx *a, struct idx *b)
{
	struct idx_summary x, y;
	size_t i;

	assert_int_equal(idx_nseeks(a), idx_nseeks(b));
	for (i = 0; i < idx_nseeks(a); i++) {
		struct idx_seek p, q;

		assert_int_equal(idx_seek(a, i, &p), 0);
		assert_int_equal(idx_seek(b, i, &q), 0);
		assert_memory_equal(&p, &q, sizeof(p));
		assert_int_equal(idx_summary(a, i, &x), 0);
		assert_int_equal(idx_summary(b, i, &y), 0);
		assert_int_equal(x.npackets, y.npackets);
		assert_int_equal(x.first_ordinal, y.first_ordinal);
		assert_int_equal(x.novf, y.novf);
		assert_int_equal(x.nerrors, y.nerrors);
		assert_int_equal(x.ngaps, y.ngaps);
		assert_memory_equal(x.per_class, y.per_class, sizeof(x.per_class));
	}
	assert_int_equal(idx_totals(a, &x), 0);
	assert_int_equal(idx_totals(b, &y), 0);
	assert_int_equal(x.npackets, y.npackets);
	assert_int_equal(x.novf, y.novf);
	assert_int_equal(x.nerrors, y.nerrors);
	assert_int_equal(x.ngaps, y.ngaps);
}

static void test_hit_miss(void **state)
{
	char path[300], copy[300], cmd[700];
	struct trace *t, *t2;
	struct idx *idx, *idx2;
	const char *why;
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/a.pt", dir);
	make_trace(path, 0, 200, 0);
	assert_int_equal(load(path, &t, &idx, &why), IDXCACHE_MISS);
	assert_string_equal(why, "not cached");
	build_and_save(t, idx);
	assert_int_equal(idx_nseeks(idx), 200);

	/* A hit gives the same index. */
	assert_int_equal(load(path, &t2, &idx2, &why), IDXCACHE_HIT);
	assert_string_equal(why, "hit");
	assert_true(idx_complete(idx2));
	same_index(idx, idx2);
	idx_free(idx2);
	trace_close(t2);

	/* A copy under another name (another mtime) hits too. */
	snprintf(copy, sizeof(copy), "%s/copy of a.pt", dir);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", path, copy);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(load(copy, &t2, &idx2, &why), IDXCACHE_HIT);
	same_index(idx, idx2);
	idx_free(idx2);
	trace_close(t2);

	/* A changed byte (same size) misses. */
	fd = open(copy, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, "\x55", 1, 100000), 1);
	close(fd);
	/* (the cache file is the original's, which did not change) */
	assert_int_equal(load(copy, &t2, &idx2, &why), IDXCACHE_MISS);
	assert_string_equal(why, IDXCACHE_OTHER);
	assert_int_equal(idx_nseeks(idx2), 0);
	/* ... and is rebuilt. */
	build_and_save(t2, idx2);
	idx_free(idx2);
	trace_close(t2);
	assert_int_equal(load(copy, &t2, &idx2, &why), IDXCACHE_HIT);
	idx_free(idx2);
	trace_close(t2);

	/* A shorter file with the same beginning misses. */
	assert_int_equal(truncate(copy, 50000), 0);
	assert_int_equal(load(copy, &t2, &idx2, &why), IDXCACHE_MISS);
	idx_free(idx2);
	trace_close(t2);

	idx_free(idx);
	trace_close(t);
}

/* Traces sharing their first 64 KiB (two ptgen runs of one seed and
 * other sizes, recordings of one program) share the cache file's name:
 * each took the other's place, so taking turns rebuilt every time
 * ("trace changed (shrank)").  The one the file is not for has a file of
 * its own (by its inode), and each hits. */
static void test_shared_start(void **state)
{
	char a[300], l[300], c[300], cmd[700];
	struct trace *t;
	struct idx *idx;
	const char *why;
	int fd, round;

	(void)state;
	own_cache("shared");
	snprintf(a, sizeof(a), "%s/short.pt", dir);
	snprintf(l, sizeof(l), "%s/long.pt", dir);
	snprintf(c, sizeof(c), "%s/changed.pt", dir);
	make_trace(a, 0, 150, 0);
	make_trace(l, 0, 300, 0);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", a, c);
	assert_int_equal(system(cmd), 0);
	fd = open(c, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, "\x55", 1, 100000), 1);
	close(fd);

	assert_int_equal(load(a, &t, &idx, &why), IDXCACHE_MISS);
	build_and_save(t, idx);
	idx_free(idx);
	trace_close(t);
	/* the longer one begins as the short one: its grown state */
	assert_int_equal(load(l, &t, &idx, &why), IDXCACHE_GROWN);
	build_and_save(t, idx);
	idx_free(idx);
	trace_close(t);
	/* not "trace changed (shrank)": the short one did not change, the
	 * file holds the long one's index */
	assert_int_equal(load(a, &t, &idx, &why), IDXCACHE_MISS);
	assert_string_equal(why, IDXCACHE_OTHER);
	build_and_save(t, idx);
	idx_free(idx);
	trace_close(t);
	/* one that differs past the first 64 KiB: another trace too */
	assert_int_equal(load(c, &t, &idx, &why), IDXCACHE_MISS);
	assert_string_equal(why, IDXCACHE_OTHER);
	build_and_save(t, idx);
	idx_free(idx);
	trace_close(t);
	for (round = 0; round < 2; round++) {
		assert_int_equal(load(a, &t, &idx, &why), IDXCACHE_HIT);
		idx_free(idx);
		trace_close(t);
		assert_int_equal(load(l, &t, &idx, &why), IDXCACHE_HIT);
		idx_free(idx);
		trace_close(t);
		assert_int_equal(load(c, &t, &idx, &why), IDXCACHE_HIT);
		idx_free(idx);
		trace_close(t);
	}
}

/* A trace bigger than the sampled identity: a byte changed where no
 * sample looks, in a copy, misses; a copy left alone hits. */
static void test_unsampled_change(void **state)
{
	char path[300], copy[300], cmd[700], err[512];
	struct trace *t, *t2;
	struct idx *idx, *idx2;
	const char *why;
	size_t n;
	int fd;

	(void)state;
	own_cache("unsampled_change");
	snprintf(path, sizeof(path), "%s/big.pt", dir);
	n = make_trace(path, 0, 4500, 0);
	assert_true(n > (3u << 20));
	assert_int_equal(load(path, &t, &idx, &why), IDXCACHE_MISS);
	build_and_save(t, idx);
	snprintf(copy, sizeof(copy), "%s/big copy.pt", dir);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", path, copy);
	assert_int_equal(system(cmd), 0);
	/* A caller that cannot wait for the hash (the browser) says how
	 * much it may read: past that, a copy is rebuilt. */
	assert_int_equal(trace_open(&t2, copy, err, sizeof(err)), 0);
	assert_int_equal(idx_new(&idx2, &t2->streams[0].img, NULL), 0);
	assert_int_equal(idxcache_load(idx2, t2, 0, n - 1, &why), IDXCACHE_MISS);
	assert_string_equal(why, "trace touched (too big to check now)");
	assert_int_equal(idx_nseeks(idx2), 0);
	idx_free(idx2);
	assert_int_equal(idx_new(&idx2, &t2->streams[0].img, NULL), 0);
	assert_int_equal(idxcache_load(idx2, t2, 0, n, &why), IDXCACHE_HIT);
	same_index(idx, idx2);
	idx_free(idx2);
	trace_close(t2);
	/* 8 KiB past the first MiB: between the first two sampled blocks. */
	fd = open(copy, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, "\x55", 1, (1u << 20) + 8192), 1);
	close(fd);
	assert_int_equal(load(copy, &t2, &idx2, &why), IDXCACHE_MISS);
	assert_string_equal(why, "trace changed");
	idx_free(idx2);
	trace_close(t2);
	idx_free(idx);
	trace_close(t);
}

/*
 * A touched trace (same bytes, another mtime) whose whole content the
 * load hashed has the cache file stamped with its new mtime: a load that
 * may not hash (the browser, past UI_CACHE_HASH_MAX) then hits too.
 * Before, `ptbrowse index` said "hit" for a big copy and the browser
 * rebuilt it anyway, every time.
 */
static void test_touched_restamped(void **state)
{
	struct timespec ts[2] = { { 1000000, 0 }, { 1000000, 0 } };
	char path[300], cpath[4096], err[512];
	struct trace *t;
	struct idx *idx;
	const char *why;
	struct stat st, st2;

	(void)state;
	own_cache("touched");
	snprintf(path, sizeof(path), "%s/touched.pt", dir);
	make_trace(path, 0, 120, 0);
	assert_int_equal(load(path, &t, &idx, &why), IDXCACHE_MISS);
	build_and_save(t, idx);
	assert_int_equal(idxcache_path(t, 0, NULL, cpath, sizeof(cpath), err, sizeof(err)), 0);
	assert_int_equal(stat(cpath, &st), 0);
	idx_free(idx);
	trace_close(t);
	assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);

	/* may not hash: refused, and the cache file is left alone */
	assert_int_equal(trace_open(&t, path, err, sizeof(err)), 0);
	assert_int_equal(idx_new(&idx, &t->streams[0].img, NULL), 0);
	assert_int_equal(idxcache_load(idx, t, 0, 0, &why), IDXCACHE_MISS);
	assert_string_equal(why, "trace touched (too big to check now)");
	idx_free(idx);
	trace_close(t);
	assert_int_equal(stat(cpath, &st2), 0);
	assert_int_equal(st2.st_ino, st.st_ino);

	/* hashed: a hit, and the file written again (the same length) */
	assert_int_equal(load(path, &t, &idx, &why), IDXCACHE_HIT);
	idx_free(idx);
	trace_close(t);
	assert_int_equal(stat(cpath, &st2), 0);
	assert_int_not_equal(st2.st_ino, st.st_ino);
	assert_int_equal(st2.st_size, st.st_size);

	/* no hash needed now */
	assert_int_equal(trace_open(&t, path, err, sizeof(err)), 0);
	assert_int_equal(idx_new(&idx, &t->streams[0].img, NULL), 0);
	assert_int_equal(idxcache_load(idx, t, 0, 0, &why), IDXCACHE_HIT);
	assert_true(idx_complete(idx));
	idx_free(idx);
	trace_close(t);

	/* a failed write leaves the old file: a directory where the
	 * temporary file would go cannot be told from a full disk, so the
	 * cache directory made read-only (not for root) */
	ts[0].tv_sec = ts[1].tv_sec = 2000000;
	assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
	if (geteuid()) {
		char cdir[4096];

		snprintf(cdir, sizeof(cdir), "%s", cpath);
		*strrchr(cdir, '/') = 0;
		assert_int_equal(chmod(cdir, 0500), 0);
		assert_int_equal(load(path, &t, &idx, &why), IDXCACHE_HIT);
		idx_free(idx);
		trace_close(t);
		assert_int_equal(chmod(cdir, 0700), 0);
		assert_int_equal(stat(cpath, &st), 0);
		assert_int_equal(st.st_ino, st2.st_ino);
		/* and it still serves a load that hashes */
		assert_int_equal(load(path, &t, &idx, &why), IDXCACHE_HIT);
		idx_free(idx);
		trace_close(t);
	}
}

/* A cache file with bytes after its body is not "truncated". */
static void test_appended_cache(void **state)
{
	char path[300], cpath[4096], err[512];
	struct trace *t;
	struct idx *idx;
	const char *why;
	FILE *f;

	(void)state;
	own_cache("appended");
	snprintf(path, sizeof(path), "%s/appended.pt", dir);
	make_trace(path, 0, 30, 0);
	assert_int_equal(load(path, &t, &idx, &why), IDXCACHE_MISS);
	build_and_save(t, idx);
	assert_int_equal(idxcache_path(t, 0, NULL, cpath, sizeof(cpath), err, sizeof(err)), 0);
	idx_free(idx);
	trace_close(t);
	f = fopen(cpath, "ab");
	assert_non_null(f);
	assert_int_equal(fputs("xx\n", f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(load(path, &t, &idx, &why), IDXCACHE_MISS);
	assert_string_equal(why, "wrong length");
	idx_free(idx);
	trace_close(t);
}

static void test_corrupt(void **state)
{
	char path[300], cpath[4096], err[512];
	struct trace *t, *t2;
	struct idx *idx, *idx2;
	const char *why;
	uint8_t *good;
	size_t len, i, rejected = 0;
	struct stat st;
	FILE *f;
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/b.pt", dir);
	make_trace(path, 0, 40, 0);
	assert_int_equal(load(path, &t, &idx, &why), IDXCACHE_MISS);
	build_and_save(t, idx);
	assert_int_equal(idxcache_path(t, 0, NULL, cpath, sizeof(cpath), err, sizeof(err)), 0);
	assert_int_equal(stat(cpath, &st), 0);
	len = (size_t)st.st_size;
	good = malloc(len);
	f = fopen(cpath, "rb");
	assert_int_equal(fread(good, 1, len, f), len);
	fclose(f);

	/* Every byte flipped in turn: never trusted. */
	fd = open(cpath, O_WRONLY);
	assert_true(fd >= 0);
	for (i = 0; i < len; i++) {
		uint8_t bad = good[i] ^ 0x20;

		assert_int_equal(pwrite(fd, &bad, 1, (off_t)i), 1);
		assert_int_equal(idx_new(&idx2, &t->streams[0].img, NULL), 0);
		if (idxcache_load(idx2, t, 0, UINT64_MAX, &why) == IDXCACHE_MISS &&
		    idx_nseeks(idx2) == 0)
			rejected++;
		else
			fail_msg("byte %zu flipped: cache accepted", i);
		idx_free(idx2);
		assert_int_equal(pwrite(fd, &good[i], 1, (off_t)i), 1);
	}
	close(fd);
	assert_int_equal(rejected, len);

	/* Truncated at every length (in steps): never trusted. */
	for (i = 0; i < len; i += 13) {
		assert_int_equal(truncate(cpath, (off_t)i), 0);
		assert_int_equal(load(path, &t2, &idx2, &why), IDXCACHE_MISS);
		idx_free(idx2);
		trace_close(t2);
	}
	/* Rebuilt after all that. */
	assert_int_equal(load(path, &t2, &idx2, &why), IDXCACHE_MISS);
	build_and_save(t2, idx2);
	idx_free(idx2);
	trace_close(t2);
	assert_int_equal(load(path, &t2, &idx2, &why), IDXCACHE_HIT);
	same_index(idx, idx2);
	idx_free(idx2);
	trace_close(t2);
	free(good);
	idx_free(idx);
	trace_close(t);
}

static void test_grown(void **state)
{
	char path[300], err[512];
	struct trace *t, *t2;
	struct idx *idx, *idx2, *fresh;
	const char *why;
	size_t n1;

	(void)state;
	own_cache("grown");
	snprintf(path, sizeof(path), "%s/live.pt", dir);
	n1 = make_trace(path, 0, 150, 0);
	assert_true(n1 > (64u << 10));
	assert_int_equal(load(path, &t, &idx, &why), IDXCACHE_MISS);
	build_and_save(t, idx);
	idx_free(idx);
	trace_close(t);

	/* The recording goes on. */
	make_trace(path, 150, 260, 1);
	assert_int_equal(load(path, &t2, &idx2, &why), IDXCACHE_GROWN);
	assert_string_equal(why, "grown");
	assert_false(idx_complete(idx2));
	assert_int_equal(idx_nseeks(idx2), 149);
	assert_int_equal(idx_build(idx2), 0);
	assert_int_equal(idx_nseeks(idx2), 260);
	assert_int_equal(idxcache_save(idx2, t2, 0, NULL, err, sizeof(err)), 0);

	/* The same as indexing it all from scratch. */
	assert_int_equal(idx_new(&fresh, &t2->streams[0].img, NULL), 0);
	assert_int_equal(idx_build(fresh), 0);
	same_index(fresh, idx2);
	idx_free(fresh);
	idx_free(idx2);
	trace_close(t2);

	assert_int_equal(load(path, &t2, &idx2, &why), IDXCACHE_HIT);
	assert_int_equal(idx_nseeks(idx2), 260);
	idx_free(idx2);
	trace_close(t2);
}

/*
 * The recording stopped inside a PSB whose 02 82 pairs follow a TIP whose
 * payload ends in 02 82: the old end looked like a PSB two bytes early,
 * and the segment before it had a TIP cut short.  Grown, both the PSB and
 * that segment's summary come out as indexing from scratch gives them.
 */
static void test_grown_in_run(void **state)
{
	static const uint8_t psb[16] = {
		2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82
	};
	char path[300], err[512];
	struct trace *t;
	struct idx *idx, *fresh;
	struct idx_summary a, b;
	const char *why;
	uint8_t tail[64];
	size_t n = 0, cut, k;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/run.pt", dir);
	make_trace(path, 0, 100, 0);
	memcpy(tail + n, psb, 16);
	n += 16;
	tail[n++] = 2;
	tail[n++] = 0x23;			/* psbend */
	tail[n++] = 0x2d;			/* tip, 16-bit update: */
	tail[n++] = 0x02;
	tail[n++] = 0x82;			/* ... payload 82 02 */
	cut = n + 14;				/* 16 bytes of 02 82 at the end */
	memcpy(tail + n, psb, 16);
	n += 16;
	tail[n++] = 2;
	tail[n++] = 0x23;
	for (k = 0; k < 8; k++)
		tail[n++] = 0x0c;		/* tnt.8 */
	f = fopen(path, "ab");
	assert_non_null(f);
	assert_int_equal(fwrite(tail, 1, cut, f), cut);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(load(path, &t, &idx, &why), IDXCACHE_MISS);
	build_and_save(t, idx);
	idx_free(idx);
	trace_close(t);

	f = fopen(path, "ab");
	assert_non_null(f);
	assert_int_equal(fwrite(tail + cut, 1, n - cut, f), n - cut);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(load(path, &t, &idx, &why), IDXCACHE_GROWN);
	assert_int_equal(idx_build(idx), 0);
	assert_int_equal(idx_new(&fresh, &t->streams[0].img, NULL), 0);
	assert_int_equal(idx_build(fresh), 0);
	same_index(fresh, idx);
	assert_int_equal(idx_totals(fresh, &a), 0);
	assert_int_equal(idx_totals(idx, &b), 0);
	assert_int_equal(a.nerrors, 0);
	assert_int_equal(b.nerrors, 0);
	assert_int_equal(idxcache_save(idx, t, 0, NULL, err, sizeof(err)), 0);
	idx_free(fresh);
	idx_free(idx);
	trace_close(t);
}

/* An index made with other timing options is not this one's. */
static void test_timing_options(void **state)
{
	char path[300], err[512];
	struct trace *t;
	struct idx *idx, *idx2;
	struct tm_config cfg;
	const char *why;

	(void)state;
	snprintf(path, sizeof(path), "%s/timing.pt", dir);
	make_trace(path, 7000, 7200, 0);
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(tm_config_option(&cfg, "--nom-freq", "12"), 1);
	assert_int_equal(trace_open(&t, path, err, sizeof(err)), 0);
	assert_int_equal(idx_new(&idx, &t->streams[0].img, &cfg), 0);
	assert_int_equal(idxcache_load(idx, t, 0, UINT64_MAX, &why), IDXCACHE_MISS);
	build_and_save(t, idx);
	assert_int_equal(idx_new(&idx2, &t->streams[0].img, &cfg), 0);
	assert_int_equal(idxcache_load(idx2, t, 0, UINT64_MAX, &why), IDXCACHE_HIT);
	idx_free(idx2);
	assert_int_equal(tm_config_option(&cfg, "--nom-freq", "24"), 1);
	assert_int_equal(idx_new(&idx2, &t->streams[0].img, &cfg), 0);
	assert_int_equal(idxcache_load(idx2, t, 0, UINT64_MAX, &why), IDXCACHE_MISS);
	assert_string_equal(why, "not cached");
	/* saved beside the first: other timing options are another file
	 * (before, each replaced the other, and runs with the two took
	 * turns rebuilding) */
	build_and_save(t, idx2);
	idx_free(idx2);
	assert_int_equal(idx_new(&idx2, &t->streams[0].img, NULL), 0);
	assert_int_equal(idxcache_load(idx2, t, 0, UINT64_MAX, &why), IDXCACHE_MISS);
	idx_free(idx2);
	assert_int_equal(idx_new(&idx2, &t->streams[0].img, &cfg), 0);
	assert_int_equal(idxcache_load(idx2, t, 0, UINT64_MAX, &why), IDXCACHE_HIT);
	idx_free(idx2);
	assert_int_equal(tm_config_option(&cfg, "--nom-freq", "12"), 1);
	assert_int_equal(idx_new(&idx2, &t->streams[0].img, &cfg), 0);
	assert_int_equal(idxcache_load(idx2, t, 0, UINT64_MAX, &why), IDXCACHE_HIT);
	idx_free(idx2);
	idx_free(idx);
	trace_close(t);
}

/* A save hurried (the browser quitting) still writes the index, without
 * the content hash: the same file hits, a touched copy is rebuilt, since
 * nothing can say its bytes are the same. */
static void test_save_hurried(void **state)
{
	char path[300], copy[300], cmd[700], cache[4096], err[512];
	struct trace *t, *t2;
	struct idx *idx, *idx2;
	const char *why;
	_Atomic int hurry = 1;

	(void)state;
	own_cache("save_hurried");
	snprintf(path, sizeof(path), "%s/hurried.pt", dir);
	make_trace(path, 0, 200, 0);
	assert_int_equal(load(path, &t, &idx, &why), IDXCACHE_MISS);
	assert_int_equal(idx_build(idx), 0);
	assert_int_equal(idxcache_path(t, 0, NULL, cache, sizeof(cache), err,
				       sizeof(err)), 0);
	unlink(cache);	/* another test's trace begins the same */
	assert_int_equal(idxcache_save(idx, t, 0, &hurry, err, sizeof(err)), 0);
	assert_int_equal(access(cache, F_OK), 0);
	assert_int_equal(load(path, &t2, &idx2, &why), IDXCACHE_HIT);
	same_index(idx, idx2);
	idx_free(idx2);
	trace_close(t2);

	snprintf(copy, sizeof(copy), "%s/hurried copy.pt", dir);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", path, copy);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(load(copy, &t2, &idx2, &why), IDXCACHE_MISS);
	assert_string_equal(why, "trace touched (not hashed when cached)");
	assert_int_equal(idx_nseeks(idx2), 0);
	idx_free(idx2);
	trace_close(t2);

	/* A file changed since it was mapped (indexed) is not cached: the
	 * identity read now would be the new bytes'. */
	{
		struct timespec ts[2] = { { 0, UTIME_OMIT }, { 12345, 0 } };
		struct stat st;

		assert_int_equal(stat(path, &st), 0);
		assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
		assert_int_equal(idxcache_save(idx, t, 0, NULL, err, sizeof(err)),
				 -pte_io);
		assert_non_null(strstr(err, "changed since it was indexed"));
		ts[1] = st.st_mtim;
		assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
	}

	/* Saved unhurried, the copy hits. */
	hurry = 0;
	assert_int_equal(idxcache_save(idx, t, 0, &hurry, err, sizeof(err)), 0);
	assert_int_equal(load(copy, &t2, &idx2, &why), IDXCACHE_HIT);
	same_index(idx, idx2);
	idx_free(idx2);
	trace_close(t2);
	unlink(copy);
	idx_free(idx);
	trace_close(t);
}

/* Open @path, take its identity as mapped, and build its index. */
static void open_build(const char *path, struct trace **t, struct idx **idx,
		       struct identity *mapped)
{
	char err[512];

	assert_int_equal(trace_open(t, path, err, sizeof(err)), 0);
	assert_int_equal(identity_of_trace(mapped, *t), 0);
	assert_int_equal(idx_new(idx, &(*t)->streams[0].img, NULL), 0);
	assert_int_equal(idx_build(*idx), 0);
}

/* Whether the cache file of @t's stream 0 (as its first bytes are now)
 * exists. */
static int cached(const struct trace *t)
{
	char cpath[4096], err[512];

	assert_int_equal(idxcache_path(t, 0, NULL, cpath, sizeof(cpath), err, sizeof(err)), 0);
	return access(cpath, F_OK) == 0;
}

/*
 * A recording appends while its index is built: the save, given the
 * identity taken when the file was mapped, keeps the index of the part
 * mapped, and the next open loads it as grown, indexing only the tail.
 * Without that identity, an append cannot be told from a rewrite.
 */
static void test_grown_while_indexed(void **state)
{
	char path[300], err[512];
	struct trace *t, *t2;
	struct idx *idx, *idx2, *fresh;
	struct identity mapped;
	const char *why;

	(void)state;
	snprintf(path, sizeof(path), "%s/recording.pt", dir);
	make_trace(path, 9000, 9150, 0);
	open_build(path, &t, &idx, &mapped);
	assert_false(cached(t));
	make_trace(path, 9150, 9260, 1);

	assert_int_equal(idxcache_save(idx, t, 0, NULL, err, sizeof(err)), -pte_io);
	assert_non_null(strstr(err, "changed since it was indexed"));
	assert_int_equal(idxcache_save_since(idx, t, 0, NULL, NULL, err, sizeof(err)),
			 -pte_io);
	assert_false(cached(t));
	assert_int_equal(idxcache_save_since(idx, t, 0, &mapped, NULL, err, sizeof(err)), 0);
	assert_true(cached(t));

	assert_int_equal(load(path, &t2, &idx2, &why), IDXCACHE_GROWN);
	assert_string_equal(why, "grown");
	assert_int_equal(idx_nseeks(idx2), 149);	/* the last one goes on */
	assert_int_equal(idx_build(idx2), 0);
	assert_int_equal(idx_nseeks(idx2), 260);
	assert_int_equal(idx_new(&fresh, &t2->streams[0].img, NULL), 0);
	assert_int_equal(idx_build(fresh), 0);
	same_index(fresh, idx2);
	idx_free(fresh);
	idx_free(idx2);
	trace_close(t2);

	/* Unchanged since mapped: saved, as without the identity. */
	idx_free(idx);
	trace_close(t);
	open_build(path, &t, &idx, &mapped);
	assert_int_equal(idxcache_save_since(idx, t, 0, &mapped, NULL, err, sizeof(err)), 0);
	assert_int_equal(load(path, &t2, &idx2, &why), IDXCACHE_HIT);
	idx_free(idx2);
	trace_close(t2);
	idx_free(idx);
	trace_close(t);
}

/*
 * Rewritten while indexed: in place at the same size, longer, or with the
 * old mtime put back, the file is not cached, even with the identity
 * taken when it was mapped.  A file that shrank is not read past its end.
 */
static void test_rewritten_while_indexed(void **state)
{
	char path[300], err[512];
	struct timespec ts[2] = { { 0, UTIME_OMIT }, { 0, 0 } };
	struct trace *t;
	struct idx *idx;
	struct identity mapped;
	struct stat st;
	int fd;

	(void)state;
	/* The same size: one byte. */
	snprintf(path, sizeof(path), "%s/rewritten.pt", dir);
	make_trace(path, 9300, 9450, 0);
	open_build(path, &t, &idx, &mapped);
	fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, "\x55", 1, 70000), 1);
	close(fd);
	assert_int_equal(idxcache_save_since(idx, t, 0, &mapped, NULL, err, sizeof(err)),
			 -pte_io);
	assert_non_null(strstr(err, "changed since it was indexed"));
	assert_false(cached(t));
	idx_free(idx);
	trace_close(t);

	/* The same size and mtime (put back): the sample tells. */
	make_trace(path, 9300, 9450, 0);
	open_build(path, &t, &idx, &mapped);
	assert_int_equal(stat(path, &st), 0);
	fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, "\x55", 1, 70000), 1);
	close(fd);
	ts[1] = st.st_mtim;
	assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
	assert_int_equal(idxcache_save_since(idx, t, 0, &mapped, NULL, err, sizeof(err)),
			 -pte_io);
	assert_non_null(strstr(err, "was rewritten since it was indexed"));
	assert_false(cached(t));
	idx_free(idx);
	trace_close(t);

	/* Longer, its old part other bytes (after the 64 KiB that name the
	 * cache file): not an append. */
	make_trace(path, 9300, 9450, 0);
	open_build(path, &t, &idx, &mapped);
	fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, "\x55", 1, 70000), 1);
	close(fd);
	make_trace(path, 9450, 9500, 1);
	assert_int_equal(idxcache_save_since(idx, t, 0, &mapped, NULL, err, sizeof(err)),
			 -pte_io);
	assert_non_null(strstr(err, "was rewritten since it was indexed"));
	assert_false(cached(t));
	idx_free(idx);
	trace_close(t);

	/* Rewritten from scratch, longer (another recording). */
	make_trace(path, 9300, 9450, 0);
	open_build(path, &t, &idx, &mapped);
	make_trace(path, 9600, 9800, 0);
	assert_int_equal(idxcache_save_since(idx, t, 0, &mapped, NULL, err, sizeof(err)),
			 -pte_io);
	assert_non_null(strstr(err, "was rewritten since it was indexed"));
	assert_false(cached(t));
	idx_free(idx);
	trace_close(t);

	/* Shorter: the mapping's end is gone. */
	make_trace(path, 9300, 9450, 0);
	open_build(path, &t, &idx, &mapped);
	assert_int_equal(truncate(path, 80000), 0);
	assert_int_equal(idxcache_save_since(idx, t, 0, &mapped, NULL, err, sizeof(err)),
			 -pte_sigbus);
	assert_false(cached(t));
	idx_free(idx);
	trace_close(t);
}

static void test_args(void **state)
{
	char path[300], buf[64], err[128];
	struct trace *t;
	struct idx *idx;

	(void)state;
	snprintf(path, sizeof(path), "%s/c.pt", dir);
	make_trace(path, 0, 3, 0);
	assert_int_equal(load(path, &t, &idx, NULL), IDXCACHE_MISS);
	assert_int_equal(idxcache_load(NULL, t, 0, UINT64_MAX, NULL), -pte_invalid);
	assert_int_equal(idxcache_load(idx, t, 1, UINT64_MAX, NULL), -pte_invalid);
	/* Not complete: not saved. */
	assert_int_equal(idxcache_save(idx, t, 0, NULL, err, sizeof(err)), -pte_invalid);
	/* A path that does not fit. */
	assert_true(idxcache_path(t, 0, NULL, buf, 8, err, sizeof(err)) < 0);
	idx_free(idx);
	trace_close(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_args),
		cmocka_unit_test(test_hit_miss),
		cmocka_unit_test(test_unsampled_change),
		cmocka_unit_test(test_shared_start),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_touched_restamped),
		cmocka_unit_test(test_appended_cache),
		cmocka_unit_test(test_grown),
		cmocka_unit_test(test_grown_in_run),
		cmocka_unit_test(test_save_hurried),
		cmocka_unit_test(test_grown_while_indexed),
		cmocka_unit_test(test_rewritten_while_indexed),
		cmocka_unit_test(test_timing_options),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
