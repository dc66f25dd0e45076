/* test_trace -- opening traces: errors, streams, the SIGBUS guard, growth. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "identity.h"
#include "index.h"
#include "trace.h"

static char dir[256];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_trace.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return helpers_rm_rf(dir);
}

static void path_of(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", dir, name);
}

/* Expect trace_open(@path) to fail with exactly "@path: @msg". */
static void expect_error(const char *path, const char *msg, int code)
{
	struct trace *t = (struct trace *)1;
	char err[512], want[600];

	assert_int_equal(trace_open(&t, path, err, sizeof(err)), code);
	assert_null(t);
	snprintf(want, sizeof(want), "%s: %s", path, msg);
	assert_string_equal(err, want);
}

static void test_null(void **state)
{
	struct trace *t;
	char err[64];

	(void)state;
	assert_int_equal(trace_open(NULL, "x", err, sizeof(err)), -pte_invalid);
	assert_int_equal(trace_open(&t, NULL, err, sizeof(err)), -pte_invalid);
	trace_close(NULL);
	assert_int_equal(trace_find_stream(NULL, "0"), -1);
	assert_int_equal(trace_guard(NULL, NULL), -pte_invalid);
}

static void test_missing(void **state)
{
	char p[300];

	(void)state;
	path_of(p, sizeof(p), "nonexistent.pt");
	expect_error(p, "No such file or directory", -pte_io);
}

static void test_directory(void **state)
{
	(void)state;
	expect_error(dir, "is a directory, not a trace file", -pte_bad_file);
}

static void test_fifo(void **state)
{
	char p[300];

	(void)state;
	path_of(p, sizeof(p), "fifo");
	assert_int_equal(mkfifo(p, 0600), 0);
	/* Must not block waiting for a writer. */
	expect_error(p, "is a FIFO, not a regular file (save the stream to a file first)",
		     -pte_bad_file);
}

static void test_chardev(void **state)
{
	(void)state;
	expect_error("/dev/null", "is a character device, not a regular file",
		     -pte_bad_file);
}

static void test_empty(void **state)
{
	char p[300];

	(void)state;
	path_of(p, sizeof(p), "empty.pt");
	assert_int_equal(helpers_write_file(p, "", 0), 0);
	expect_error(p, "empty file (0 bytes), nothing to show", -pte_bad_file);
}

static void test_permission(void **state)
{
	char p[300];

	(void)state;
	if (geteuid() == 0) {
		/* root reads anything: the case cannot be made here. */
		printf("skipped: running as root, no permission error to provoke\n");
		skip();
	}
	path_of(p, sizeof(p), "secret.pt");
	assert_int_equal(helpers_write_file(p, "abc", 3), 0);
	assert_int_equal(chmod(p, 0), 0);
	expect_error(p, "Permission denied", -pte_io);
}

static void test_raw(void **state)
{
	struct trace *t;
	char p[300], err[256];
	uint8_t buf[4096];

	(void)state;
	memset(buf, 0x55, sizeof(buf));
	path_of(p, sizeof(p), "raw.pt");
	assert_int_equal(helpers_write_file(p, buf, sizeof(buf)), 0);
	assert_int_equal(trace_open(&t, p, err, sizeof(err)), 0);
	assert_int_equal(t->kind, TRACE_RAW);
	assert_int_equal(t->size, sizeof(buf));
	assert_int_equal(t->nstreams, 1);
	assert_string_equal(t->streams[0].name, "raw");
	assert_int_equal(t->streams[0].img.size, sizeof(buf));
	assert_int_equal(t->streams[0].img.nspans, 1);
	assert_ptr_equal(t->streams[0].img.spans[0].data, t->map);
	assert_int_equal(trace_find_stream(t, "raw"), 0);
	assert_int_equal(trace_find_stream(t, "0"), 0);
	assert_int_equal(trace_find_stream(t, "1"), -1);
	assert_int_equal(trace_find_stream(t, "cpu0"), -1);
	assert_memory_equal(t->map, buf, sizeof(buf));
	trace_advise(t, TRACE_SCAN);
	trace_release(t, t->map, (size_t)t->size);
	/* Dropped pages read back the same. */
	assert_memory_equal(t->map, buf, sizeof(buf));
	trace_advise(t, TRACE_BROWSE);
	trace_close(t);
}

/* trace_open_input("-") on a pipe holding @n bytes of @buf as standard
 * input; the pipe's bytes fit its buffer, so no writer must run. */
static int open_piped(struct trace **t, const void *buf, size_t n, char *err,
		      size_t errlen)
{
	int p[2], saved, r;

	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], buf, n), (ssize_t)n);
	close(p[1]);
	saved = dup(STDIN_FILENO);
	assert_true(saved >= 0);
	assert_int_equal(dup2(p[0], STDIN_FILENO), STDIN_FILENO);
	close(p[0]);
	r = trace_open_input(t, "-", err, errlen);
	assert_int_equal(dup2(saved, STDIN_FILENO), STDIN_FILENO);
	close(saved);
	return r;
}

static void test_input_pipe(void **state)
{
	struct trace *t = NULL;
	char err[256], p[300], cwd[4096];
	uint8_t buf[4096];
	uint64_t size;
	int grew;

	(void)state;
	memset(buf, 0x55, sizeof(buf));
	/* "-.options" beside the name must not be read for a pipe (a
	 * malformed one would fail the open) */
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(dir), 0);
	assert_int_equal(helpers_write_file("-.options", "--mtc-freq x", 12), 0);
	assert_int_equal(open_piped(&t, buf, sizeof(buf), err, sizeof(err)), 0);
	assert_int_equal(chdir(cwd), 0);
	assert_non_null(t);
	assert_int_equal(t->kind, TRACE_RAW);
	assert_int_equal(t->piped, 1);
	assert_int_equal(t->options_read, 0);
	assert_int_equal(t->size, sizeof(buf));
	assert_memory_equal(t->map, buf, sizeof(buf));
	/* The scan's page release keeps the bytes, as a file's does. */
	trace_release(t, t->map, (size_t)t->size);
	assert_memory_equal(t->map, buf, sizeof(buf));
	assert_int_equal(trace_refresh(t, &size, &grew, err, sizeof(err)), 0);
	assert_int_equal(grew, 0);
	assert_int_equal(size, sizeof(buf));
	trace_close(t);

	assert_int_equal(open_piped(&t, buf, 0, err, sizeof(err)), -pte_bad_file);
	assert_null(t);
	assert_string_equal(err, "standard input (-): empty (0 bytes), no trace "
			    "came through it");

	/* A regular file is opened as trace_open() does: no copy. */
	path_of(p, sizeof(p), "plain.pt");
	assert_int_equal(helpers_write_file(p, buf, sizeof(buf)), 0);
	assert_int_equal(trace_open_input(&t, p, err, sizeof(err)), 0);
	assert_int_equal(t->piped, 0);
	trace_close(t);
	expect_error("/dev/null", "is a character device, not a regular file",
		     -pte_bad_file);
}

/* A named FIFO is read whole once a writer has written and closed it. */
static void test_input_fifo(void **state)
{
	struct trace *t = NULL;
	char p[300], err[256];
	uint8_t buf[4096];
	pid_t pid;
	int fd, st;

	(void)state;
	memset(buf, 0x2a, sizeof(buf));
	path_of(p, sizeof(p), "fifo.in");
	assert_int_equal(mkfifo(p, 0600), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		fd = open(p, O_WRONLY);
		_exit(fd < 0 || write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf));
	}
	assert_int_equal(trace_open_input(&t, p, err, sizeof(err)), 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_int_equal(st, 0);
	assert_int_equal(t->size, sizeof(buf));
	assert_memory_equal(t->map, buf, sizeof(buf));
	assert_string_equal(t->path, p);
	trace_close(t);
}

static void test_perf(void **state)
{
	const char *shared = getenv("SHARED");
	char p[4096], err[512];
	struct trace *t;

	(void)state;
	snprintf(p, sizeof(p), "%s/traces/quipper-perf-intel-pt/perf.data.intel_pt-4.14",
		 shared ? shared : "../shared");
	if (access(p, R_OK))
		skip();
	assert_int_equal(trace_open(&t, p, err, sizeof(err)), 0);
	assert_int_equal(t->kind, TRACE_PERF_FILE);
	assert_true(t->nstreams >= 1);
	trace_close(t);
}

/* A body that reads a page past the end of a shrunk file. */
struct touch {
	const volatile uint8_t *p;
	int sum;
};

static int touch_body(void *arg)
{
	struct touch *tc = arg;

	tc->sum += tc->p[0];
	return 7;
}

static int nested_body(void *arg)
{
	struct touch *tc = arg;
	int ret = trace_guard(touch_body, tc);

	/* The inner guard caught it; this one carries on. */
	return ret == -pte_sigbus ? 42 : ret;
}

static void test_sigbus(void **state)
{
	struct trace *t;
	struct touch tc;
	char p[300], err[256];
	uint8_t *buf = calloc(1, 3 * 4096);
	uint64_t size;
	int grew;

	(void)state;
	path_of(p, sizeof(p), "shrink.pt");
	assert_int_equal(helpers_write_file(p, buf, 3 * 4096), 0);
	assert_int_equal(trace_open(&t, p, err, sizeof(err)), 0);
	tc.p = t->map + 2 * 4096;
	tc.sum = 0;
	assert_int_equal(trace_guard(touch_body, &tc), 7);
	trace_release(t, t->map, (size_t)t->size);
	assert_int_equal(truncate(p, 4096), 0);
	assert_int_equal(trace_guard(touch_body, &tc), -pte_sigbus);
	assert_int_equal(trace_guard(nested_body, &tc), 42);
	/* Still fine afterwards, and on the page that is left. */
	tc.p = t->map;
	assert_int_equal(trace_guard(touch_body, &tc), 7);
	assert_int_equal(trace_refresh(t, &size, &grew, err, sizeof(err)), -pte_sigbus);
	assert_int_equal(size, 4096);
	assert_int_equal(grew, 0);
	assert_non_null(strstr(err, "shrank from 12288 to 4096 bytes"));
	trace_close(t);
	free(buf);
}

static void test_index_sigbus(void **state)
{
	struct trace *t;
	struct idx *idx;
	char p[300], err[256];
	size_t n = 8u << 20, i;
	uint8_t *buf = calloc(1, n);
	int ret;

	(void)state;
	for (i = 0; i + 16 <= n; i += 4096)
		memcpy(buf + i, "\2\x82\2\x82\2\x82\2\x82\2\x82\2\x82\2\x82\2\x82", 16);
	path_of(p, sizeof(p), "shrink2.pt");
	assert_int_equal(helpers_write_file(p, buf, n), 0);
	assert_int_equal(trace_open(&t, p, err, sizeof(err)), 0);
	assert_int_equal(truncate(p, 4096), 0);
	assert_int_equal(idx_new(&idx, &t->streams[0].img, NULL), 0);
	assert_int_equal(idx_set_guard(idx, trace_guard), 0);
	assert_int_equal(idx_set_release(idx, trace_release, t), 0);
	assert_int_equal(idx_set_chunk_size(idx, 1 << 16), 0);
	ret = idx_build(idx);
	assert_int_equal(ret, -pte_sigbus);
	idx_free(idx);
	trace_close(t);
	free(buf);
}

static void test_refresh_grow(void **state)
{
	struct trace *t;
	struct identity a, b;
	char p[300], err[256], hex[IDENTITY_HEX_LEN];
	uint8_t buf[8192];
	uint64_t size;
	int grew, fd;

	(void)state;
	memset(buf, 0x11, sizeof(buf));
	path_of(p, sizeof(p), "grow.pt");
	assert_int_equal(helpers_write_file(p, buf, 4096), 0);
	assert_int_equal(trace_open(&t, p, err, sizeof(err)), 0);
	assert_int_equal(trace_refresh(t, &size, &grew, err, sizeof(err)), 0);
	assert_int_equal(grew, 0);
	assert_int_equal(size, 4096);
	assert_int_equal(identity_of_trace(&a, t), 0);
	fd = open(p, O_WRONLY | O_APPEND);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, 4096), 4096);
	close(fd);
	assert_int_equal(trace_refresh(t, &size, &grew, err, sizeof(err)), 0);
	assert_int_equal(grew, 1);
	assert_int_equal(size, 8192);
	assert_int_equal(t->size, 8192);
	assert_int_equal(t->streams[0].img.size, 8192);
	/* The identity of the old prefix is what it was. */
	assert_int_equal(identity_of_prefix(&b, t, 4096), 0);
	assert_true(identity_same(&a, &b));
	assert_int_equal(identity_of_trace(&b, t), 0);
	assert_false(identity_same(&a, &b));
	assert_int_equal(identity_of_prefix(&b, t, 8193), -pte_invalid);
	identity_hex(&a, hex);
	assert_int_equal(strlen(hex), IDENTITY_HEX_LEN - 1);
	assert_int_equal(identity_parse(&b, hex), 0);
	assert_true(identity_same(&a, &b));
	assert_int_equal(identity_parse(&b, "zz"), -pte_invalid);
	trace_close(t);
}

/* A grown file whose streams cannot be loaded (its options file went
 * bad) leaves the trace as it was: the browser's views point into its
 * streams and mapping, which were freed before. */
static void test_refresh_fails(void **state)
{
	struct trace *t;
	char p[300], o[320], err[256];
	uint8_t buf[4096];
	uint64_t size;
	const uint8_t *old;
	int grew, fd;

	(void)state;
	memset(buf, 0x11, sizeof(buf));
	path_of(p, sizeof(p), "refail.pt");
	snprintf(o, sizeof(o), "%s.options", p);
	assert_int_equal(helpers_write_file(p, buf, sizeof(buf)), 0);
	assert_int_equal(trace_open(&t, p, err, sizeof(err)), 0);
	old = t->map;
	fd = open(p, O_WRONLY | O_APPEND);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, sizeof(buf)), (ssize_t)sizeof(buf));
	close(fd);
	assert_int_equal(helpers_write_file(o, "--mtc-freq x\n", 13), 0);
	assert_true(trace_refresh(t, &size, &grew, err, sizeof(err)) < 0);
	assert_int_equal(grew, 0);
	assert_non_null(strstr(err, "options"));
	assert_int_equal(t->size, sizeof(buf));
	assert_true(t->map == old);
	assert_int_equal(t->nstreams, 1);
	assert_int_equal(t->streams[0].img.size, sizeof(buf));
	/* still mapped: */
	assert_int_equal(t->streams[0].img.spans[0].data[sizeof(buf) - 1], 0x11);
	/* With the options file mended, it grows. */
	assert_int_equal(unlink(o), 0);
	assert_int_equal(trace_refresh(t, &size, &grew, err, sizeof(err)), 0);
	assert_int_equal(grew, 1);
	assert_int_equal(t->streams[0].img.size, 2 * sizeof(buf));
	trace_close(t);
}

static void test_identity(void **state)
{
	size_t n = 5u << 20;
	uint8_t *a = malloc(n), *b = malloc(n);
	struct identity x, y;
	size_t i;

	(void)state;
	for (i = 0; i < n; i++)
		a[i] = (uint8_t)(i * 7 + (i >> 13));
	memcpy(b, a, n);
	identity_of_buffer(&x, a, n, 1);
	identity_of_buffer(&y, b, n, 2);
	assert_true(identity_same(&x, &y));
	/* A change in the first or last MiB, or in a sampled block, shows. */
	b[10] ^= 1;
	identity_of_buffer(&y, b, n, 1);
	assert_false(identity_same(&x, &y));
	b[10] ^= 1;
	b[n - 3] ^= 1;
	identity_of_buffer(&y, b, n, 1);
	assert_false(identity_same(&x, &y));
	b[n - 3] ^= 1;
	b[(1u << 20) + 5] ^= 1;	/* the first sampled block */
	identity_of_buffer(&y, b, n, 1);
	assert_false(identity_same(&x, &y));
	/* A different size is a different identity. */
	identity_of_buffer(&y, a, n - 1, 1);
	assert_false(identity_same(&x, &y));
	free(a);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_directory),
		cmocka_unit_test(test_fifo),
		cmocka_unit_test(test_chardev),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_permission),
		cmocka_unit_test(test_raw),
		cmocka_unit_test(test_input_pipe),
		cmocka_unit_test(test_input_fifo),
		cmocka_unit_test(test_perf),
		cmocka_unit_test(test_sigbus),
		cmocka_unit_test(test_index_sigbus),
		cmocka_unit_test(test_refresh_grow),
		cmocka_unit_test(test_refresh_fails),
		cmocka_unit_test(test_identity),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
