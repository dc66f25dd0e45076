/* test_marks_sync -- a marks set and its file on disk: saves under a lock,
 * the three-way merge of two writers, unwritable state, changed and grown
 * traces, one that shrank and grew back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "marks_fixture.h"

#include <fcntl.h>
#include <sys/file.h>
#include <time.h>

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
/* A marks file that is a symbolic link (a dotfiles repository): read, said
 * once at the open, never written through, and the changes made are
 * written to a named file at the end (marks_flush_final()).  Before, every
 * change failed to save, each saying so. */
static void test_symlink(void **state)
{
	char target[4096], out[4096], *text;
	struct marks_set *set;
	FILE *err;

	snprintf(target, sizeof(target), "%s/dot.marks", tmpdir);
	write_file(target, "# ptbrowse marks v1\nmark a 0x10\n");
	write_file(state_file("x"), "");
	assert_int_equal(symlink(target, state_file(ID ".marks")), 0);
	msgs[0] = '\0';
	assert_int_equal(marks_open(&set, ID, SIZE, "/t", &opts), 0);
	assert_int_equal(marks_count(set), 1);
	assert_non_null(strstr(msgs, "is a symbolic link"));
	assert_int_equal(marks_saving(set), 0);
	msgs[0] = '\0';
	assert_int_equal(marks_mark_set(set, 'b', 0x20, NULL), 0);
	assert_string_equal(msgs, "");		/* said once, at the open */
	snprintf(out, sizeof(out), "%s/err", tmpdir);
	setenv("TMPDIR", tmpdir, 1);
	err = fopen(out, "w");
	assert_non_null(err);
	assert_int_equal(marks_flush_final(set, err, "p: "), -pte_io);
	fclose(err);
	marks_close(set);
	unsetenv("TMPDIR");
	text = read_file(out);
	assert_non_null(strstr(text, "p: marks not saved: "));
	assert_non_null(strstr(text, "is a symbolic link"));
	assert_non_null(strstr(text, " were written to "));
	assert_string_equal(read_file(target), "# ptbrowse marks v1\nmark a 0x10\n");
}

/* A broken file is moved aside, and its good lines written back, under
 * the save lock: while another process holds it, the file stays where it
 * is (before, link()+unlink() ran unlocked, and could remove a file
 * another process's save had just renamed into place); the next save
 * does both once the lock is free. */
static void test_aside_locked(void **state)
{
	struct marks_set *set;
	int fd;

	write_file(state_file(ID ".marks"), "# ptbrowse marks v1\nmark a 0x10\nmark 7 0x100\n");
	fd = open(state_file(ID ".marks.lock"), O_RDWR | O_CREAT, 0600);
	assert_true(fd >= 0);
	assert_int_equal(flock(fd, LOCK_EX), 0);
	msgs[0] = '\0';
	assert_int_equal(marks_open(&set, ID, SIZE, "/t", &opts), 0);
	assert_int_equal(marks_count(set), 1);
	assert_false(exists(state_file(ID ".marks.bad")));
	assert_non_null(strstr(read_file(state_file(ID ".marks")), "mark 7 0x100"));
	assert_true(marks_pending(set));
	close(fd);
	assert_int_equal(marks_save(set), 0);
	assert_non_null(strstr(read_file(state_file(ID ".marks.bad")), "mark 7 0x100"));
	assert_null(strstr(read_file(state_file(ID ".marks")), "mark 7"));
	assert_non_null(strstr(read_file(state_file(ID ".marks")), "mark a 0x10"));
	marks_close(set);
}

/* A hand edit with one bad line, made while the set is open: the next
 * save moves the file aside and merges its good lines, as the open does
 * (before, they were dropped from the live file and the set), and says
 * both in one warning that marks_warning() keeps for the caller. */
static void test_sync_bad_lines(void **state)
{
	static char edited[70000];
	struct marks_set *set;
	const char *w, *text;

	assert_int_equal(marks_open(&set, ID, SIZE, "/t", &opts), 0);
	assert_int_equal(marks_bookmark_set(set, "one", 0x10, NULL), 0);
	assert_null(marks_warning(set));
	text = read_file(state_file(ID ".marks"));
	snprintf(edited, sizeof(edited), "%sregion handmade1 0x1000 0x2000 \"typed by hand\"\n"
		 "region handmade2 0x3000 0x4000\nmark 7 0x100\n", text);
	write_file(state_file(ID ".marks"), edited);
	assert_int_equal(marks_bookmark_set(set, "two", 0x20, NULL), 0);
	assert_true(marks_find(set, "handmade1") >= 0);
	assert_true(marks_find(set, "handmade2") >= 0);
	assert_true(marks_find(set, "one") >= 0);
	assert_int_equal(marks_count(set), 4);
	text = read_file(state_file(ID ".marks"));
	assert_non_null(strstr(text, "region handmade1 0x1000 0x2000 \"typed by hand\""));
	assert_non_null(strstr(text, "bookmark two 0x20"));
	assert_null(strstr(text, "mark 7"));
	assert_non_null(strstr(read_file(state_file(ID ".marks.bad")), "mark 7 0x100"));
	w = marks_warning(set);
	assert_non_null(w);
	assert_non_null(strstr(w, ": line 6 bad; "));
	assert_non_null(strstr(w, "kept as "));
	assert_non_null(strstr(w, "other lines merged (2 added)"));
	assert_null(marks_warning(set));
	marks_close(set);
}

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

/* The marks file of @set with its modification time put @ago seconds back. */
static void age_file(const struct marks_set *set, int ago)
{
	struct timespec ts[2];

	clock_gettime(CLOCK_REALTIME, &ts[0]);
	ts[0].tv_sec -= ago;
	ts[1] = ts[0];
	assert_int_equal(utimensat(AT_FDCWD, marks_file(set), ts, 0), 0);
}

/* A trace shrinks and gets its tail back: the marks saved for the
 * shorter content after the longer one's file are merged into it, once
 * (the reviewer's shrink_regrow: b was seen by no later start). */
static void test_trace_shrank_regrew(void **state)
{
	char path[4096], big[4096], small[4096], older[65536];
	struct marks_set *set;

	snprintf(path, sizeof(path), "%s/sr.pt", tmpdir);
	unlink(path);
	append(path, 1 << 20, 1);
	append(path, 8192, 2);
	set = open_file_trace(path);
	assert_int_equal(marks_mark_set(set, 'a', 0x100, NULL), 0);
	snprintf(big, sizeof(big), "%s", marks_file(set));
	age_file(set, 10);
	marks_close(set);

	assert_int_equal(truncate(path, 1 << 20), 0);
	set = open_file_trace(path);
	assert_int_equal(marks_mark_set(set, 'b', 0x200, "shorter"), 0);
	snprintf(small, sizeof(small), "%s", marks_file(set));
	marks_close(set);
	snprintf(older, sizeof(older), "%s", read_file(small));

	append(path, 8192, 2);		/* the same bytes again */
	msgs[0] = '\0';
	set = open_file_trace(path);
	assert_int_equal(marks_count(set), 2);
	assert_int_equal(marks_find(set, "a"), 0);
	assert_int_equal(marks_find(set, "b"), 1);
	assert_non_null(strstr(msgs, small));
	assert_non_null(strstr(msgs, "merged in"));
	marks_close(set);
	assert_string_equal(read_file(small), older);	/* left as it was */
	assert_non_null(strstr(read_file(big), "mark b 0x200"));

	/* merged once: the next start says nothing and shows each once */
	msgs[0] = '\0';
	set = open_file_trace(path);
	assert_string_equal(msgs, "");
	assert_int_equal(marks_count(set), 2);
	marks_close(set);
	unlink(path);
}

/* Whether a file of the state directory's name ends in @suffix. */
static int state_has(const char *suffix)
{
	char cmd[4300];

	snprintf(cmd, sizeof(cmd), "ls '%s/state/ptbrowse/traces' | grep -q '%s$'",
		 tmpdir, suffix);
	return system(cmd) == 0;
}

/* Two sessions on two states of a recording share one marks file: B on
 * the first 1 MiB, A after R on the grown trace marks past B's end; B's
 * saves keep A's marks (they moved A's file aside as broken, and A's next
 * save took that for B deleting everything, the reviewer's pastend), and
 * deletions go both ways.  A start on the grown trace takes that file. */
static void test_grown_shared(void **state)
{
	char path[4096], file[4096];
	struct marks_set *a, *b, *c;
	long i;

	snprintf(path, sizeof(path), "%s/rec.pt", tmpdir);
	unlink(path);
	append(path, 1 << 20, 1);
	b = open_file_trace(path);
	a = open_file_trace(path);
	assert_int_equal(marks_mark_set(a, 'a', 0x100, NULL), 0);
	snprintf(file, sizeof(file), "%s", marks_file(a));

	append(path, 8192, 2);
	assert_int_equal(marks_grow(a, (1 << 20) + 8192), 0);
	assert_int_equal(marks_mark_set(a, 'p', (1 << 20) + 0x100, "new part"), 0);
	assert_int_equal(marks_mark_set(b, 'b', 0x200, NULL), 0);
	assert_false(state_has(".bad"));
	assert_non_null(strstr(read_file(file), "mark p 0x100100"));
	assert_int_equal(marks_count(b), 2);		/* a, b: p is past its end */
	assert_int_equal(marks_mark_set(a, 'c', 0x300, NULL), 0);
	assert_int_equal(marks_count(a), 4);		/* a, b, c, p */
	assert_true(marks_find(a, "b") >= 0);
	/* A deletes a, B sets d: a goes in B too, and stays gone */
	i = marks_find(a, "a");
	assert_true(i >= 0);
	assert_int_equal(marks_delete(a, (size_t)i), 0);
	assert_int_equal(marks_mark_set(b, 'd', 0x400, NULL), 0);
	assert_int_equal(marks_find(b, "a"), -1);
	assert_true(marks_find(b, "c") >= 0);
	assert_null(strstr(read_file(file), "mark a "));
	assert_non_null(strstr(read_file(file), "mark p 0x100100"));
	/* B's R: the new part's marks show */
	assert_int_equal(marks_find(b, "p"), -1);
	assert_int_equal(marks_grow(b, (1 << 20) + 8192), 0);
	assert_true(marks_find(b, "p") >= 0);
	marks_close(b);
	marks_close(a);
	assert_false(state_has(".bad"));

	/* a start on the grown trace: that file, said once */
	msgs[0] = '\0';
	c = open_file_trace(path);
	assert_string_equal(marks_file(c), file);
	assert_int_equal(marks_count(c), 4);		/* b, c, d, p */
	assert_int_equal(marks_find(c, "a"), -1);
	assert_non_null(strstr(msgs, "grew since its marks were saved"));
	marks_close(c);
	msgs[0] = '\0';
	c = open_file_trace(path);
	assert_string_equal(msgs, "");
	assert_int_equal(marks_count(c), 4);
	marks_close(c);
	unlink(path);
}

/* B shows the first state of a recording, A starts after it grew and
 * deletes B's mark x; B sets y: A's next start has y and not x (x came
 * back: A's copy merged B's newer file in whole, the reviewer's undel;
 * and a mark B set after A's save was never merged, miss). */
static void test_grown_no_undelete(void **state)
{
	char path[4096];
	struct marks_set *a, *b;
	long i;

	snprintf(path, sizeof(path), "%s/rec2.pt", tmpdir);
	unlink(path);
	append(path, 1 << 20, 1);
	b = open_file_trace(path);
	assert_int_equal(marks_mark_set(b, 'x', 0x10, NULL), 0);
	append(path, 8192, 2);
	a = open_file_trace(path);
	assert_int_equal(marks_count(a), 1);
	i = marks_find(a, "x");
	assert_true(i >= 0);
	assert_int_equal(marks_delete(a, (size_t)i), 0);
	assert_int_equal(marks_mark_set(b, 'y', 0x20, NULL), 0);
	assert_int_equal(marks_mark_set(a, 'z', 0x30, NULL), 0);
	assert_int_equal(marks_mark_set(b, 'w', 0x40, NULL), 0);
	marks_close(a);
	marks_close(b);
	a = open_file_trace(path);
	assert_int_equal(marks_find(a, "x"), -1);
	assert_true(marks_find(a, "y") >= 0);
	assert_true(marks_find(a, "z") >= 0);
	assert_true(marks_find(a, "w") >= 0);
	assert_int_equal(marks_count(a), 3);
	marks_close(a);
	unlink(path);
}

#define S0 (1 << 20)
#define S1 ((1 << 20) + 8192)

/* Sets a and b on the first state (1 MiB, a's file made) and on the
 * grown one of trace @name, sharing a's file (in @file). */
static void open_states(const char *name, struct marks_set **a, struct marks_set **b,
			char *file, size_t size)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	unlink(path);
	append(path, S0, 1);
	*a = open_file_trace(path);
	assert_int_equal(marks_mark_set(*a, 'q', 0x10, NULL), 0);
	snprintf(file, size, "%s", marks_file(*a));
	append(path, 8192, 2);
	*b = open_file_trace(path);
	assert_string_equal(marks_file(*b), file);
}

/* The second review's cases, each lost or brought back a mark: a mark
 * of the longer state a shorter session moved into its part and then
 * deleted came back; R (marks_grow()) brought back a mark the longer
 * session deleted, and undid its move; a name of another kind past the
 * end was taken (both entries were lost). */
static void test_grown_review(void **state)
{
	char file[4096];
	struct marks_set *a, *b;

	open_states("rv1.pt", &a, &b, file, sizeof(file));
	assert_int_equal(marks_mark_set(b, 'a', S0 + 0x100, NULL), 0);
	assert_int_equal(marks_mark_set(a, 'a', 0x200, NULL), 0);	/* moved */
	assert_int_equal(marks_delete(a, (size_t)marks_find(a, "a")), 0);
	assert_null(strstr(read_file(file), "mark a "));
	marks_close(a);
	marks_close(b);

	open_states("rv2.pt", &a, &b, file, sizeof(file));
	assert_int_equal(marks_mark_set(b, 'p', S0 + 0x100, NULL), 0);
	assert_int_equal(marks_mark_set(b, 'o', S0 + 0x300, NULL), 0);
	assert_int_equal(marks_mark_set(a, 'r', 0x20, NULL), 0);	/* a keeps p, o */
	assert_int_equal(marks_delete(b, (size_t)marks_find(b, "p")), 0);
	assert_int_equal(marks_mark_set(b, 'o', S0 + 0x200, NULL), 0);	/* moved */
	assert_int_equal(marks_grow(a, S1), 0);		/* R */
	assert_int_equal(marks_mark_set(a, 's', 0x30, NULL), 0);
	assert_null(strstr(read_file(file), "mark p "));
	assert_non_null(strstr(read_file(file), "mark o 0x100200"));
	assert_int_equal(marks_find(a, "p"), -1);
	marks_close(a);
	marks_close(b);

	open_states("rv3.pt", &a, &b, file, sizeof(file));
	assert_int_equal(marks_region_set(b, "foo", S0 + 0x10, S0 + 0x20, NULL, NULL), 0);
	assert_int_equal(marks_mark_set(a, 'r', 0x20, NULL), 0);
	msgs[0] = '\0';
	assert_int_equal(marks_bookmark_set(a, "foo", 0x100, NULL), -pte_invalid);
	assert_non_null(strstr(msgs, "foo is the name of a region past the end"));
	assert_int_equal(marks_mark_set(b, 's', 0x30, NULL), 0);
	assert_true(marks_find(b, "foo") >= 0);
	assert_non_null(strstr(read_file(file), "region foo "));
	marks_close(a);
	marks_close(b);
}

/* The longer session moves a mark from past the shorter one's end into
 * its part, and shrinks a region that crossed that end into it: the
 * shorter session's next save kept neither (its base held them, from the
 * marks past its end, and it took their absence for its own deletion),
 * and the longer session's next save then deleted them too (the third
 * review's move_in and region_in). */
static void test_grown_move_in(void **state)
{
	char file[4096];
	struct marks_set *a, *b;

	open_states("mi.pt", &a, &b, file, sizeof(file));
	assert_int_equal(marks_mark_set(b, 'p', S0 + 0x100, NULL), 0);
	assert_int_equal(marks_region_set(b, "hot", S0 - 0x100, S0 + 0x100, "spin",
					  NULL), 0);
	assert_int_equal(marks_mark_set(a, 'r', 0x20, NULL), 0);	/* a keeps both */
	assert_int_equal(marks_find(a, "p"), -1);
	assert_int_equal(marks_find(a, "hot"), -1);
	assert_int_equal(marks_mark_set(b, 'p', 0x50, NULL), 0);	/* into a's part */
	assert_int_equal(marks_region_set(b, "hot", S0 - 0x100, S0 - 0x10, NULL,
					  NULL), 0);
	msgs[0] = '\0';
	assert_int_equal(marks_mark_set(a, 's', 0x30, NULL), 0);
	assert_string_equal(msgs, "");
	assert_non_null(strstr(read_file(file), "mark p 0x50\n"));
	assert_non_null(strstr(read_file(file), "region hot 0xfff00 0xffff0"));
	assert_true(marks_find(a, "p") >= 0);
	assert_true(marks_find(a, "hot") >= 0);
	assert_int_equal(marks_mark_set(b, 't', 0x40, NULL), 0);
	assert_non_null(strstr(read_file(file), "mark p 0x50\n"));
	assert_non_null(strstr(read_file(file), "region hot 0xfff00 0xffff0"));
	/* and a delete of the moved mark in a still goes, in b too */
	assert_int_equal(marks_delete(a, (size_t)marks_find(a, "p")), 0);
	assert_int_equal(marks_mark_set(b, 'u', 0x60, NULL), 0);
	assert_int_equal(marks_find(b, "p"), -1);
	assert_null(strstr(read_file(file), "mark p "));
	marks_close(a);
	marks_close(b);
}

/* Copy @from to @to. */
static void copy_file(const char *from, const char *to)
{
	char cmd[8300];

	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", from, to);
	assert_int_equal(system(cmd), 0);
}

/* A trace that grew keeps its marks in the file named after its shorter
 * identity, which names its path: moved or copied, it showed none (only
 * that path found the file).  Its content finds it now; another trace of
 * that size does not. */
static void test_grown_moved(void **state)
{
	char path[4096], moved[4096], copy[4096], other[4096], file[4096];
	struct marks_set *set;

	snprintf(path, sizeof(path), "%s/gm.pt", tmpdir);
	snprintf(moved, sizeof(moved), "%s/gm2.pt", tmpdir);
	snprintf(copy, sizeof(copy), "%s/gm3.pt", tmpdir);
	snprintf(other, sizeof(other), "%s/gm4.pt", tmpdir);
	unlink(path);
	append(path, S0, 1);
	set = open_file_trace(path);
	assert_int_equal(marks_mark_set(set, 'a', 0x10, NULL), 0);
	snprintf(file, sizeof(file), "%s", marks_file(set));
	marks_close(set);
	append(path, 8192, 2);
	set = open_file_trace(path);
	assert_int_equal(marks_mark_set(set, 'b', S0 + 0x20, NULL), 0);
	marks_close(set);

	assert_int_equal(rename(path, moved), 0);
	msgs[0] = '\0';
	set = open_file_trace(moved);
	assert_string_equal(marks_file(set), file);
	assert_int_equal(marks_count(set), 2);
	assert_string_equal(msgs, "");
	marks_close(set);
	copy_file(moved, copy);
	append(copy, 4096, 3);		/* and it grew on */
	msgs[0] = '\0';
	set = open_file_trace(copy);
	assert_string_equal(marks_file(set), file);
	assert_int_equal(marks_count(set), 2);
	assert_non_null(strstr(msgs, "grew since its marks were saved"));
	marks_close(set);
	set = open_file_trace(moved);	/* the original still has them */
	assert_int_equal(marks_count(set), 2);
	marks_close(set);

	/* the same sizes, other content */
	unlink(other);
	append(other, S1, 4);
	msgs[0] = '\0';
	set = open_file_trace(other);
	assert_int_equal(marks_count(set), 0);
	assert_string_not_equal(marks_file(set), file);
	assert_string_equal(msgs, "");
	marks_close(set);
	unlink(moved);
	unlink(copy);
	unlink(other);
}

/* Two sessions began on two states before either saved, each made its
 * own file (the second's saved first): a start on a third state shows
 * both's marks (the older file was never merged), and the marks past an
 * end count towards the set's limit (a file of more could not be read
 * back by the other session). */
static void test_grown_two_files(void **state)
{
	char path[4096];
	struct marks_set *a, *b, *c;
	struct timespec ts[2];

	snprintf(path, sizeof(path), "%s/two.pt", tmpdir);
	unlink(path);
	append(path, S0, 1);
	a = open_file_trace(path);		/* no file yet */
	append(path, 8192, 2);
	b = open_file_trace(path);		/* none either */
	assert_int_equal(marks_mark_set(a, 'a', 0x200, NULL), 0);
	assert_int_equal(marks_mark_set(b, 'b', 0x100, NULL), 0);
	assert_string_not_equal(marks_file(a), marks_file(b));
	/* a's file the older */
	clock_gettime(CLOCK_REALTIME, &ts[0]);
	ts[0].tv_sec -= 10;
	ts[1] = ts[0];
	assert_int_equal(utimensat(AT_FDCWD, marks_file(a), ts, 0), 0);
	marks_close(a);
	marks_close(b);
	append(path, 8192, 3);
	c = open_file_trace(path);
	assert_true(marks_find(c, "a") >= 0);
	assert_true(marks_find(c, "b") >= 0);
	marks_close(c);
	unlink(path);
}

/* Open two sets on one marks file, both holding mark x at 5 and region rg
 * at [0x10, 0x20), as two browsers that have each saved once. */
static void open_pair(struct marks_set **a, struct marks_set **b)
{
	assert_int_equal(marks_open(a, ID, SIZE, "/t", &opts), 0);
	assert_int_equal(marks_open(b, ID, SIZE, "/t", &opts), 0);
	assert_int_equal(marks_mark_set(*a, 'x', 5, "first"), 0);
	assert_int_equal(marks_region_set(*a, "rg", 0x10, 0x20, NULL, NULL), 0);
	assert_int_equal(marks_toggle(*b, 0x40), 1);	/* b reads a's */
	assert_int_equal(marks_toggle(*a, 0x41), 1);	/* a reads b's */
	assert_int_equal(marks_count(*a), 4);
	assert_int_equal(marks_count(*b), 3);
	msgs[0] = '\0';
}

/* One side deletes what the other changed, both ways: a change made
 * after the other side's last look wins over a deletion it did not see;
 * a deletion wins over a change it saw. */
static void test_merge_delete_vs_change(void **state)
{
	struct marks_set *a, *b;

	open_pair(&a, &b);
	/* a deletes x; b, not knowing, changes x's note: x stays, b's */
	assert_int_equal(marks_delete(a, (size_t)marks_find(a, "x")), 0);
	assert_int_equal(marks_set_note(b, (size_t)marks_find(b, "x"), "kept"), 0);
	assert_true(marks_find(b, "x") >= 0);
	assert_non_null(strstr(read_file(state_file(ID ".marks")), "mark x 0x5 \"kept\""));
	/* a's next save takes x back: it left it alone since */
	assert_int_equal(marks_toggle(a, 0x42), 1);
	assert_string_equal(marks_at(a, (size_t)marks_find(a, "x"))->note, "kept");

	/* a moves rg; b deletes rg having seen the old one: rg stays deleted */
	assert_int_equal(marks_region_set(a, "rg", 0x30, 0x38, NULL, NULL), 0);
	assert_int_equal(marks_delete(b, (size_t)marks_find(b, "rg")), 0);
	assert_int_equal(marks_find(b, "rg"), -1);
	assert_null(strstr(read_file(state_file(ID ".marks")), "region rg "));
	assert_string_equal(msgs, "");
	marks_close(a);
	marks_close(b);
}

/* What only the other side changed (offsets, note, colour) is taken;
 * what both changed keeps ours and says so. */
static void test_merge_their_changes(void **state)
{
	struct marks_set *a, *b;
	const struct marks_entry *e;

	open_pair(&a, &b);
	assert_int_equal(marks_set_color(a, (size_t)marks_find(a, "rg"), "green"), 0);
	assert_int_equal(marks_region_set(a, "rg", 0x10, 0x28, "wider", NULL), 0);
	assert_int_equal(marks_toggle(b, 0x50), 1);
	e = marks_at(b, (size_t)marks_find(b, "rg"));
	assert_string_equal(e->color, "green");
	assert_string_equal(e->note, "wider");
	assert_int_equal(e->to, 0x28);
	assert_string_equal(msgs, "");

	/* both set x's note: the later save keeps its own */
	assert_int_equal(marks_set_note(a, (size_t)marks_find(a, "x"), "from a"), 0);
	assert_int_equal(marks_set_note(b, (size_t)marks_find(b, "x"), "from b"), 0);
	assert_non_null(strstr(msgs, "another ptbrowse changed mark x too; kept this one's"));
	assert_non_null(strstr(read_file(state_file(ID ".marks")), "mark x 0x5 \"from b\""));
	marks_close(a);
	marks_close(b);
}

/* Both add: distinct entries all survive; a name the other side gave to
 * another kind is refused, ours kept; the same anonymous bookmark once. */
static void test_merge_both_add(void **state)
{
	struct marks_set *a, *b;

	open_pair(&a, &b);
	assert_int_equal(marks_bookmark_set(a, "foo", 0x60, NULL), 0);
	assert_int_equal(marks_toggle(a, 0x70), 1);
	assert_int_equal(marks_mark_set(a, 'y', 0x80, NULL), 0);
	assert_int_equal(marks_region_set(b, "foo", 0x61, 0x62, NULL, NULL), 0);
	assert_non_null(strstr(msgs, "another ptbrowse saved bookmark foo; the name "
			       "is taken here, kept ours"));
	assert_int_equal(marks_at(b, (size_t)marks_find(b, "foo"))->kind, BM_REGION);
	assert_true(marks_find(b, "y") >= 0);
	assert_int_equal(marks_toggle(b, 0x70), 0);	/* it came in: toggled off */
	assert_int_equal(marks_find_at(b, BM_BOOKMARK, 0x70), -1);
	marks_close(a);
	marks_close(b);
	assert_null(strstr(read_file(state_file(ID ".marks")), "bookmark foo"));
	assert_non_null(strstr(read_file(state_file(ID ".marks")), "region foo 0x61 0x62"));
}

/* The file broken, or written by a newer ptbrowse, between two saves:
 * the broken one is set aside and ours written; the newer one is left
 * alone and saving stops. */
static void test_merge_file_replaced(void **state)
{
	struct marks_set *a;
	const char *newer = "# ptbrowse marks v9\nsomething 1\n";

	assert_int_equal(marks_open(&a, ID, SIZE, "/t", &opts), 0);
	assert_int_equal(marks_mark_set(a, 'a', 1, NULL), 0);
	write_file(state_file(ID ".marks"), "# ptbrowse marks v1\nnonsense here\n");
	msgs[0] = '\0';
	assert_int_equal(marks_mark_set(a, 'b', 2, NULL), 0);
	assert_non_null(strstr(msgs, "kept as "));
	assert_non_null(strstr(read_file(state_file(ID ".marks.bad")), "nonsense here"));
	assert_non_null(strstr(read_file(state_file(ID ".marks")), "mark a 0x1\nmark b 0x2\n"));

	write_file(state_file(ID ".marks"), newer);
	msgs[0] = '\0';
	assert_int_equal(marks_mark_set(a, 'c', 3, NULL), -pte_io);
	assert_non_null(strstr(msgs, "a newer ptbrowse wrote it; marks are no longer saved"));
	assert_false(marks_saving(a));
	assert_int_equal(marks_count(a), 3);
	marks_close(a);
	assert_string_equal(read_file(state_file(ID ".marks")), newer);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_changed_trace, clean),
		cmocka_unit_test_setup(test_unwritable, clean),
		cmocka_unit_test_setup(test_symlink, clean),
		cmocka_unit_test_setup(test_aside_locked, clean),
		cmocka_unit_test_setup(test_sync_bad_lines, clean),
		cmocka_unit_test_setup(test_two_writers, clean),
		cmocka_unit_test_setup(test_lock_busy, clean),
		cmocka_unit_test_setup(test_lock_close, clean),
		cmocka_unit_test_setup(test_trace_grew, clean),
		cmocka_unit_test_setup(test_trace_shrank_regrew, clean),
		cmocka_unit_test_setup(test_grown_shared, clean),
		cmocka_unit_test_setup(test_grown_no_undelete, clean),
		cmocka_unit_test_setup(test_grown_review, clean),
		cmocka_unit_test_setup(test_grown_move_in, clean),
		cmocka_unit_test_setup(test_grown_moved, clean),
		cmocka_unit_test_setup(test_grown_two_files, clean),
		cmocka_unit_test_setup(test_merge_delete_vs_change, clean),
		cmocka_unit_test_setup(test_merge_their_changes, clean),
		cmocka_unit_test_setup(test_merge_both_add, clean),
		cmocka_unit_test_setup(test_merge_file_replaced, clean),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
