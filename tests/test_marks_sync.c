/* test_marks_sync -- a marks set and its file on disk: saves under a lock,
 * the three-way merge of two writers, unwritable state, changed and grown traces. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "marks_fixture.h"

#include <fcntl.h>
#include <sys/file.h>

#include "trace.h"


static void test_changed_trace(void **state)
{
	struct marks_set *set;

	assert_int_equal(marks_open(&set, ID, SIZE, "/data/run7.pt", &opts), 0);
	assert_int_equal(marks_mark_set(set, 'a', 1, NULL), 0);
	marks_close(set);
	/* the same path now holds other content */
	msgs[0] = '\0';
	assert_int_equal(marks_open(&set, ID2, SIZE * 2, "/data/run7.pt", &opts), 0);
	assert_non_null(strstr(msgs, "warning: /data/run7.pt changed since marks"));
	assert_non_null(strstr(msgs, ID ".marks"));
	assert_int_equal(marks_count(set), 0);
	marks_close(set);
	/* a copy (same identity, another path) has the marks; no warning */
	msgs[0] = '\0';
	assert_int_equal(marks_open(&set, ID, SIZE, "/data/copy.pt", &opts), 0);
	assert_string_equal(msgs, "");
	assert_int_equal(marks_count(set), 1);
	marks_close(set);
	/* and the file now records the last path */
	assert_non_null(strstr(read_file(state_file(ID ".marks")), "path=\"/data/copy.pt\""));

	/* a marks file whose recorded size disagrees is not applied */
	msgs[0] = '\0';
	write_file(state_file(ID ".marks"), "# ptbrowse marks v1\ntrace size=5\nmark a 1\n");
	assert_int_equal(marks_open(&set, ID, SIZE, "/data/copy.pt", &opts), 0);
	assert_non_null(strstr(msgs, "was saved for a trace of 5 bytes"));
	assert_int_equal(marks_count(set), 0);
	assert_int_equal(marks_mark_set(set, 'b', 1, NULL), 0);
	marks_close(set);
	assert_non_null(strstr(read_file(state_file(ID ".marks")), "size=5"));
}

/* Tests run as root, where permissions do not stop writes: put a file
 * where the state directory should be. */
static void test_unwritable(void **state)
{
	char path[4096], blocker[4096];
	struct marks_set *set;

	snprintf(blocker, sizeof(blocker), "%s/blocker", tmpdir);
	write_file(blocker, "in the way\n");
	snprintf(path, sizeof(path), "%s/blocker/state", tmpdir);
	setenv("XDG_STATE_HOME", path, 1);
	assert_int_equal(marks_open(&set, ID, SIZE, "/t", &opts), 0);
	assert_int_equal(marks_mark_set(set, 'a', 1, NULL), -pte_io);
	assert_non_null(strstr(marks_message(set), "marks not saved: cannot create directory"));
	assert_non_null(strstr(marks_message(set), "blocker"));
	assert_int_equal(marks_count(set), 1);
	assert_int_equal(marks_mark_set(set, 'b', 2, NULL), -pte_io);
	assert_int_equal(marks_save(set), -pte_io);
	/* the obstacle goes; the next change saves everything */
	unlink(blocker);
	assert_int_equal(marks_mark_set(set, 'c', 3, NULL), 0);
	assert_non_null(strstr(marks_message(set), "marks saved to"));
	marks_close(set);
	assert_int_equal(marks_open(&set, ID, SIZE, "/t", &opts), 0);
	assert_int_equal(marks_count(set), 3);
	marks_close(set);
	setup_state();
}

/* Two processes on one trace: each save merges the other's changes. */
static void test_two_writers(void **state)
{
	struct marks_set *a, *b;

	assert_int_equal(marks_open(&a, ID, SIZE, "/t", &opts), 0);
	assert_int_equal(marks_open(&b, ID, SIZE, "/t", &opts), 0);
	assert_int_equal(marks_mark_set(a, 'a', 1, NULL), 0);
	assert_int_equal(marks_mark_set(b, 'b', 2, NULL), 0);
	assert_int_equal(marks_count(b), 2);		/* a came in */
	assert_int_equal(marks_toggle(a, 3), 1);
	assert_int_equal(marks_count(a), 3);		/* b came in */
	/* b deletes a; a's next save drops it too */
	assert_int_equal(marks_delete(b, (size_t)marks_find(b, "a")), 0);
	assert_int_equal(marks_count(b), 2);
	assert_true(marks_find_at(b, BM_BOOKMARK, 3) >= 0);
	assert_int_equal(marks_mark_set(a, 'c', 4, "from a"), 0);
	assert_int_equal(marks_find(a, "a"), -1);
	assert_int_equal(marks_count(a), 3);
	/* both move b: the later save keeps its own and says so */
	assert_int_equal(marks_mark_set(a, 'b', 10, NULL), 0);
	msgs[0] = '\0';
	assert_int_equal(marks_mark_set(b, 'b', 20, NULL), 0);
	assert_non_null(strstr(msgs, "another ptbrowse changed mark b too"));
	/* only a changed c's note: b takes it */
	assert_string_equal(marks_at(b, (size_t)marks_find(b, "c"))->note, "from a");
	marks_close(a);
	marks_close(b);

	assert_int_equal(marks_open(&a, ID, SIZE, "/t", &opts), 0);
	assert_int_equal(marks_count(a), 3);
	assert_int_equal(marks_at(a, (size_t)marks_find(a, "b"))->from, 20);
	assert_int_equal(marks_at(a, (size_t)marks_find(a, "c"))->from, 4);
	assert_true(marks_find_at(a, BM_BOOKMARK, 3) >= 0);
	marks_close(a);
}

/* Another process holds <file>.lock: a change stays in memory, pending,
 * said once; the next save after the lock is free writes it. */
static void test_lock_busy(void **state)
{
	struct marks_set *a;
	int fd;

	assert_int_equal(marks_open(&a, ID, SIZE, "/t", &opts), 0);
	assert_int_equal(marks_mark_set(a, 'a', 1, NULL), 0);
	assert_true(exists(state_file(ID ".marks.lock")));
	assert_false(marks_pending(a));
	fd = open(state_file(ID ".marks.lock"), O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(flock(fd, LOCK_EX), 0);
	msgs[0] = '\0';
	assert_int_equal(marks_mark_set(a, 'b', 2, NULL), -pte_io);
	assert_true(marks_pending(a));
	assert_non_null(strstr(msgs, "another ptbrowse is saving"));
	assert_int_equal(marks_mark_set(a, 'c', 3, NULL), -pte_io);
	assert_int_equal(marks_count(a), 3);
	assert_null(strstr(read_file(state_file(ID ".marks")), "mark b"));
	close(fd);	/* the other process is done */
	assert_int_equal(marks_save(a), 0);
	assert_false(marks_pending(a));
	assert_non_null(strstr(read_file(state_file(ID ".marks")), "mark b"));
	assert_non_null(strstr(read_file(state_file(ID ".marks")), "mark c"));
	assert_int_equal(marks_flush(a), 0);
	marks_close(a);
	assert_int_equal(marks_flush(NULL), 0);
	assert_false(marks_pending(NULL));
}

/* A change a busy save left in memory is saved by marks_close(). */
static void test_lock_close(void **state)
{
	struct marks_set *a;
	int fd;

	assert_int_equal(marks_open(&a, ID, SIZE, "/t", &opts), 0);
	assert_int_equal(marks_mark_set(a, 'a', 1, NULL), 0);
	fd = open(state_file(ID ".marks.lock"), O_RDWR);
	assert_int_equal(flock(fd, LOCK_EX), 0);
	assert_int_equal(marks_mark_set(a, 'b', 2, NULL), -pte_io);
	close(fd);
	marks_close(a);
	assert_non_null(strstr(read_file(state_file(ID ".marks")), "mark b"));
}

/* Append @n bytes of pattern @seed to @path. */
static void append(const char *path, size_t n, unsigned seed)
{
	FILE *f = fopen(path, "a");
	size_t i;

	assert_non_null(f);
	for (i = 0; i < n; i++)
		fputc((int)((i * 131 + seed) & 0xff), f);
	fclose(f);
}

static struct marks_set *open_file_trace(const char *path)
{
	struct marks_set *set;
	struct trace *t;
	char err[256];

	assert_int_equal(trace_open(&t, path, err, sizeof(err)), 0);
	assert_int_equal(marks_open_trace(&set, t, 0, &opts), 0);
	trace_close(t);
	return set;
}

/* A trace still being recorded grows: its marks follow it.  A trace
 * rewritten in place does not take them. */
static void test_trace_grew(void **state)
{
	char path[4096];
	struct marks_set *set;

	snprintf(path, sizeof(path), "%s/live.pt", tmpdir);
	unlink(path);
	append(path, 1 << 20, 1);
	set = open_file_trace(path);
	assert_int_equal(marks_count(set), 0);
	assert_int_equal(marks_mark_set(set, 'a', 0x100, "early"), 0);
	marks_close(set);

	append(path, 4096, 2);
	msgs[0] = '\0';
	set = open_file_trace(path);
	assert_non_null(strstr(msgs, "grew since its marks were saved"));
	assert_null(strstr(msgs, "warning"));
	assert_int_equal(marks_count(set), 1);
	assert_string_equal(marks_at(set, 0)->note, "early");
	marks_close(set);
	/* and now they are saved under the new identity: no message */
	msgs[0] = '\0';
	set = open_file_trace(path);
	assert_string_equal(msgs, "");
	assert_int_equal(marks_count(set), 1);
	marks_close(set);

	/* rewritten with other content, a little longer: a warning */
	unlink(path);
	append(path, (1 << 20) + 8192, 3);
	msgs[0] = '\0';
	set = open_file_trace(path);
	assert_non_null(strstr(msgs, "warning: "));
	assert_non_null(strstr(msgs, "changed since marks were saved"));
	assert_int_equal(marks_count(set), 0);
	marks_close(set);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_changed_trace, clean),
		cmocka_unit_test_setup(test_unwritable, clean),
		cmocka_unit_test_setup(test_two_writers, clean),
		cmocka_unit_test_setup(test_lock_busy, clean),
		cmocka_unit_test_setup(test_lock_close, clean),
		cmocka_unit_test_setup(test_trace_grew, clean),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
