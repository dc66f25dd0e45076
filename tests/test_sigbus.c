/* test_sigbus -- a trace that shrinks or grows while it is open: reads of
 * the vanished part under trace_guard() give -pte_sigbus (in any thread,
 * nested, repeatedly), the index builder stops with -pte_sigbus instead
 * of dying, and trace_refresh() reports a shrink and remaps a growth. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "index.h"
#include "ptdec.h"
#include "trace.h"

#define PAGE 4096
#define NPAGES 64

static char dir[] = "/tmp/test_sigbus.XXXXXX";
static char path[64];

/* A raw trace of NPAGES pages: a PSB, a PSBEND and PADs, every 256 bytes. */
static void write_trace(size_t npages)
{
	static const uint8_t psb[16] = {
		0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
		0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82
	};
	uint8_t *buf = calloc(npages, PAGE);
	size_t i;
	int fd;

	assert_non_null(buf);
	for (i = 0; i < npages * PAGE; i += 256) {
		memcpy(buf + i, psb, sizeof(psb));
		buf[i + 16] = 0x02;
		buf[i + 17] = 0x23;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, npages * PAGE), (ssize_t)(npages * PAGE));
	close(fd);
	free(buf);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/t.pt", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return rmdir(dir);
}

struct rd {
	const struct trace *t;
	uint64_t off;
	unsigned sum;
};

/* Read byte off of the mapping. */
static int read_body(void *arg)
{
	struct rd *r = arg;

	r->sum += ((volatile const uint8_t *)r->t->map)[r->off];
	return 7;
}

/* A guard inside a guard: the inner one catches, the outer goes on. */
static int nested_body(void *arg)
{
	struct rd *r = arg;
	struct rd in = *r;
	int ret;

	in.off = r->t->size - 1;
	ret = trace_guard(read_body, &in);
	if (ret != -pte_sigbus)
		return -pte_internal;
	r->off = 0;
	return read_body(r);
}

static void *thread_main(void *arg)
{
	struct rd r = *(struct rd *)arg;

	r.off = r.t->size - 1;
	return (void *)(intptr_t)trace_guard(read_body, &r);
}

static void test_null(void **state)
{
	uint64_t size;
	int grew;
	char err[64];

	(void)state;
	assert_int_equal(trace_guard(NULL, NULL), -pte_invalid);
	assert_int_equal(trace_refresh(NULL, &size, &grew, err, sizeof(err)),
			 -pte_invalid);
}

static void test_shrink(void **state)
{
	struct trace *t;
	struct rd r;
	pthread_t th;
	void *tret;
	char err[256];
	uint64_t size;
	int grew, i;

	(void)state;
	write_trace(NPAGES);
	assert_int_equal(trace_open(&t, path, err, sizeof(err)), 0);
	memset(&r, 0, sizeof(r));
	r.t = t;
	r.off = t->size - 1;
	assert_int_equal(trace_guard(read_body, &r), 7);
	assert_int_equal(truncate(path, PAGE), 0);
	/* The first page is still there, the last is gone, again and again. */
	r.off = 0;
	assert_int_equal(trace_guard(read_body, &r), 7);
	for (i = 0; i < 3; i++) {
		r.off = t->size - 1 - (uint64_t)i * PAGE;
		assert_int_equal(trace_guard(read_body, &r), -pte_sigbus);
	}
	assert_int_equal(trace_guard(nested_body, &r), 7);
	assert_int_equal(pthread_create(&th, NULL, thread_main, &r), 0);
	assert_int_equal(pthread_join(th, &tret), 0);
	assert_int_equal((int)(intptr_t)tret, -pte_sigbus);
	/* trace_refresh() notices and says so in one line. */
	assert_int_equal(trace_refresh(t, &size, &grew, err, sizeof(err)),
			 -pte_sigbus);
	assert_int_equal(size, PAGE);
	assert_int_equal(grew, 0);
	assert_non_null(strstr(err, "the file shrank from 262144 to 4096 bytes"));
	assert_null(strchr(err, '\n'));
	/* trace_remap() maps what is left, and the stream covers it. */
	assert_int_equal(trace_remap(t, err, sizeof(err)), 0);
	assert_int_equal(t->size, PAGE);
	assert_int_equal(t->nstreams, 1);
	assert_int_equal(t->streams[0].img.size, PAGE);
	r.off = PAGE - 1;
	assert_int_equal(trace_guard(read_body, &r), 7);
	/* Nothing left: it says so and keeps the old mapping. */
	assert_int_equal(truncate(path, 0), 0);
	assert_int_equal(trace_remap(t, err, sizeof(err)), -pte_bad_file);
	assert_non_null(strstr(err, "the file is now empty"));
	assert_int_equal(t->size, PAGE);
	trace_close(t);
}

/* The index builder meets the hole and stops cleanly. */
static void test_index_shrink(void **state)
{
	struct trace *t;
	struct idx *idx;
	char err[256];

	(void)state;
	write_trace(NPAGES);
	assert_int_equal(trace_open(&t, path, err, sizeof(err)), 0);
	assert_int_equal(truncate(path, 0), 0);
	assert_int_equal(idx_new(&idx, &t->streams[0].img, NULL), 0);
	assert_int_equal(idx_set_guard(idx, trace_guard), 0);
	assert_int_equal(idx_set_threads(idx, 2), 0);
	assert_int_equal(idx_set_chunk_size(idx, PAGE), 0);
	assert_int_equal(idx_build(idx), -pte_sigbus);
	idx_free(idx);
	trace_close(t);
}

/* A trace that grew: trace_refresh() remaps it and the stream covers it. */
static void test_grow(void **state)
{
	struct trace *t;
	struct rd r;
	char err[256];
	uint64_t size;
	int grew;

	(void)state;
	write_trace(4);
	assert_int_equal(trace_open(&t, path, err, sizeof(err)), 0);
	assert_int_equal(trace_refresh(t, &size, &grew, err, sizeof(err)), 0);
	assert_int_equal(grew, 0);
	assert_int_equal(size, 4 * PAGE);
	write_trace(8);
	assert_int_equal(trace_refresh(t, &size, &grew, err, sizeof(err)), 0);
	assert_int_equal(grew, 1);
	assert_int_equal(size, 8 * PAGE);
	assert_int_equal(t->size, 8 * PAGE);
	assert_int_equal(t->nstreams, 1);
	assert_int_equal(t->streams[0].img.size, 8 * PAGE);
	memset(&r, 0, sizeof(r));
	r.t = t;
	r.off = t->size - 1;
	assert_int_equal(trace_guard(read_body, &r), 7);
	trace_close(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_shrink),
		cmocka_unit_test(test_index_shrink),
		cmocka_unit_test(test_grow),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
