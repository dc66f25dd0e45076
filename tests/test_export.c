/* test_export -- a slice and its options file are replaced together. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "export.h"
#include "helpers.h"
#include "ptdec.h"
#include "safefile.h"
#include "trace.h"

#define RAW "quipper-perf-intel-pt/perf.data.intel_pt-4.14.idx3.cpu3.pt"

static char tmpdir[] = "/tmp/test_export.XXXXXX";

/* Every fsync() of this program lands here: with @fail_big set, that of a
 * file bigger than an options line fails as a full disk would. */
static int fail_big;

int fsync(int fd)
{
	struct stat st;

	if (fail_big && !fstat(fd, &st) && S_ISREG(st.st_mode) &&
	    st.st_size > 4096) {
		errno = EIO;
		return -1;
	}
	return (int)syscall(SYS_fsync, fd);
}

static int setup(void **state)
{
	(void)state;
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

/* The first 255 bytes of @path as text, or "(none)". */
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

/* The shared raw trace copied into the test directory and opened. */
static struct trace *open_copy(void)
{
	struct helpers_map m;
	struct trace *t = NULL;
	char path[4096], err[512];

	helpers_shared_path(path, sizeof(path), RAW);
	if (helpers_map_file(path, &m) < 0)
		return NULL;
	assert_int_equal(helpers_write_file(in_dir("t.pt"), m.data, m.size), 0);
	helpers_unmap(&m);
	assert_int_equal(helpers_write_text(in_dir("t.pt.options"),
					    "--mtc-freq 3 --tsc-freq 2GHz\n"), 0);
	assert_int_equal(trace_open(&t, in_dir("t.pt"), err, sizeof(err)), 0);
	return t;
}

/* A slice that cannot be written to disk whole replaces neither it nor
 * its options file (the options were put in place first, before). */
static void test_pair(void **state)
{
	struct trace *t = open_copy();
	const char *out = in_dir("s.pt"), *opts = in_dir("s.pt.options");
	struct export_result res;
	char err[512];
	uint64_t size;

	(void)state;
	if (!t) {
		skip();
		return;
	}
	size = t->streams[0].img.size;
	assert_int_equal(helpers_write_text(out, "old slice\n"), 0);
	assert_int_equal(helpers_write_text(opts, "--mtc-freq 9\n"), 0);
	fail_big = 1;
	assert_int_equal(export_slice(t, &t->streams[0].img, 0, size, out, 0,
				      NULL, 0, &res, err, sizeof(err)), -pte_io);
	fail_big = 0;
	assert_non_null(strstr(err, "s.pt"));
	assert_string_equal(get(out), "old slice\n");
	assert_string_equal(get(opts), "--mtc-freq 9\n");
	assert_int_equal(export_slice(t, &t->streams[0].img, 0, size, out, 0,
				      NULL, 0, &res, err, sizeof(err)), 0);
	assert_string_equal(get(opts), "--mtc-freq 3 --tsc-freq 2000000000\n");
	assert_int_equal(res.end - res.start, size);
	trace_close(t);
}

/* The trace's own options file is never the output (export_keep()). */
static void test_keep(void **state)
{
	struct trace *t = open_copy();
	struct export_result res;
	char err[512];

	(void)state;
	if (!t) {
		skip();
		return;
	}
	assert_int_equal(export_slice(t, &t->streams[0].img, 0, 4096,
				      in_dir("t.pt.options"), 0, NULL, 0, &res,
				      err, sizeof(err)), -pte_io);
	assert_non_null(strstr(err, "the trace's options file"));
	assert_string_equal(get(in_dir("t.pt.options")),
			    "--mtc-freq 3 --tsc-freq 2GHz\n");
	trace_close(t);
}

/* Nor is it when it does not exist yet, by any spelling of its name. */
static void test_keep_absent(void **state)
{
	struct trace *t = open_copy();
	struct export_result res;
	char err[512], *names[3];
	size_t i;

	(void)state;
	if (!t) {
		skip();
		return;
	}
	assert_int_equal(unlink(in_dir("t.pt.options")), 0);
	assert_int_equal(mkdir(in_dir("sub"), 0755), 0);
	names[0] = strdup(in_dir("t.pt.options"));
	names[1] = strdup(in_dir("sub/../t.pt.options"));
	names[2] = strdup(in_dir("./t.pt.options"));
	for (i = 0; i < 3; i++) {
		assert_int_equal(export_slice(t, &t->streams[0].img, 0, 4096,
					      names[i], 0, NULL, 0, &res, err,
					      sizeof(err)), -pte_io);
		assert_non_null(strstr(err, "the trace's options file"));
		assert_int_equal(access(in_dir("t.pt.options"), F_OK), -1);
		free(names[i]);
	}
	/* A file of that name elsewhere is another file. */
	assert_int_equal(export_slice(t, &t->streams[0].img, 0, 4096,
				      in_dir("sub/t.pt.options"), 0, NULL, 0,
				      &res, err, sizeof(err)), 0);
	trace_close(t);
}

/* export_check(): the range and the PSB, before anything is written. */
static void test_check(void **state)
{
	struct trace *t = open_copy(), *cut = NULL;
	const struct img *img;
	struct export_result res;
	char err[512];

	(void)state;
	if (!t) {
		skip();
		return;
	}
	img = &t->streams[0].img;
	assert_int_equal(export_check(NULL, 0, 1, NULL, err, sizeof(err)),
			 -pte_invalid);
	assert_int_equal(export_check(img, 8, 8, NULL, err, sizeof(err)),
			 -pte_invalid);
	assert_int_equal(export_check(img, img->size, img->size + 1, NULL, err,
				      sizeof(err)), -pte_invalid);
	assert_int_equal(export_check(img, 0x3000, 0x3100, &res, err,
				      sizeof(err)), 0);
	assert_true(res.start <= 0x3000 && res.end >= 0x3100);
	/* Bytes before the first PSB, and no PSB inside them. */
	assert_int_equal(helpers_write_file(in_dir("cut.pt"), img->spans[0].data + 101,
					    4096), 0);
	assert_int_equal(trace_open(&cut, in_dir("cut.pt"), err, sizeof(err)), 0);
	assert_int_equal(export_check(&cut->streams[0].img, 0, 3, NULL, err,
				      sizeof(err)), -pte_bad_file);
	assert_non_null(strstr(err, "no PSB"));
	trace_close(cut);
	trace_close(t);
}

/* What a progress hook saw; it stops at its call number @stop_at (0:
 * never). */
struct seen {
	int calls, stop_at, backwards;
	uint64_t done, total;
};

static int seen_fn(void *ctx, uint64_t done, uint64_t total)
{
	struct seen *s = ctx;

	if (s->calls && (done < s->done || total != s->total))
		s->backwards = 1;
	s->calls++;
	s->done = done;
	s->total = total;
	return s->stop_at && s->calls == s->stop_at;
}

/* No NAME.tmp.* file is left in the test directory. */
static int no_temp(void)
{
	char cmd[PATH_MAX + 64];

	snprintf(cmd, sizeof(cmd), "ls %s | grep -q tmp", tmpdir);
	return system(cmd) != 0;
}

/* export_slice_progress(): told from 0 to the slice's size, and a stop
 * (before the first byte, or after the last) writes nothing: the old
 * slice and its options file stay, no temporary file is left. */
static void test_progress(void **state)
{
	struct trace *t = open_copy();
	const char *out = in_dir("p.pt"), *opts = in_dir("p.pt.options");
	struct seen s = { 0 };
	struct export_progress prog = { seen_fn, &s };
	struct export_result res;
	char err[512];
	uint64_t size;
	int stop;

	(void)state;
	if (!t) {
		skip();
		return;
	}
	size = t->streams[0].img.size;
	assert_int_equal(export_slice_progress(t, &t->streams[0].img, 0, size, out,
					       0, NULL, 0, &prog, &res, err,
					       sizeof(err)), 0);
	assert_true(s.calls >= 2);
	assert_false(s.backwards);
	assert_int_equal(s.total, res.end - res.start);
	assert_int_equal(s.done, s.total);
	assert_int_equal(res.end - res.start, size);
	for (stop = 1; stop <= 3; stop += 2) {	/* the first call, the last */
		assert_int_equal(helpers_write_text(out, "old slice\n"), 0);
		assert_int_equal(helpers_write_text(opts, "--mtc-freq 9\n"), 0);
		memset(&s, 0, sizeof(s));
		s.stop_at = stop;
		assert_int_equal(export_slice_progress(t, &t->streams[0].img, 0,
						       size, out, 0, NULL, 0, &prog,
						       &res, err, sizeof(err)),
				 -pte_canceled);
		assert_int_equal(s.calls, stop);
		assert_string_equal(err, "stopped; nothing written");
		assert_string_equal(get(out), "old slice\n");
		assert_string_equal(get(opts), "--mtc-freq 9\n");
		assert_true(no_temp());
	}
	/* A stopped export to a new name leaves no file of that name. */
	s.stop_at = 1;
	s.calls = 0;
	assert_int_equal(export_slice_progress(t, &t->streams[0].img, 0, size,
					       in_dir("new.pt"), 0, NULL, 0, &prog,
					       &res, err, sizeof(err)), -pte_canceled);
	assert_int_equal(access(in_dir("new.pt"), F_OK), -1);
	assert_int_equal(access(in_dir("new.pt.options"), F_OK), -1);
	assert_true(no_temp());
	trace_close(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pair),
		cmocka_unit_test(test_keep),
		cmocka_unit_test(test_keep_absent),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_progress),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
