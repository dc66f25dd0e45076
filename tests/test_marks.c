/* test_marks -- the set: opening, changes, lookups, names, caps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "marks_fixture.h"

static void test_null(void **state)
{
	struct marks_set *set;
	uint64_t off;

	assert_int_equal(marks_open(NULL, ID, SIZE, "/x", NULL), -pte_invalid);
	assert_int_equal(marks_open(&set, NULL, SIZE, "/x", NULL), -pte_invalid);
	assert_int_equal(marks_open(&set, ID, SIZE, NULL, NULL), -pte_invalid);
	assert_int_equal(marks_open(&set, "../evil", SIZE, "/x", NULL), -pte_invalid);
	assert_int_equal(marks_open(&set, "a/b", SIZE, "/x", NULL), -pte_invalid);
	assert_int_equal(marks_count(NULL), 0);
	assert_null(marks_at(NULL, 0));
	assert_int_equal(marks_find(NULL, "a"), -1);
	assert_int_equal(marks_mark_set(NULL, 'a', 0, NULL), -pte_invalid);
	assert_int_equal(marks_toggle(NULL, 0), -pte_invalid);
	assert_int_equal(marks_delete(NULL, 0), -pte_invalid);
	assert_int_equal(marks_export(NULL, stdout), -pte_invalid);
	assert_int_equal(marks_import(NULL, stdin, "x"), -pte_invalid);
	assert_int_equal(marks_resolve(NULL, "0x10", 0, &off), 0);
	assert_int_equal(off, 0x10);
	assert_int_equal(marks_region_summary(NULL, 0, 1, NULL, NULL, NULL, NULL),
			 -pte_invalid);
	marks_close(NULL);
}

static void test_empty_open_writes_nothing(void **state)
{
	struct marks_set *set;

	assert_int_equal(marks_open(&set, ID, SIZE, "/data/run.pt", &opts), 0);
	assert_int_equal(marks_count(set), 0);
	assert_string_equal(marks_file(set), state_file(ID ".marks"));
	assert_true(marks_saving(set));
	marks_close(set);
	assert_false(exists(state_file(ID ".marks")));
}

static void test_changes(void **state)
{
	struct marks_set *set;
	long i;

	assert_int_equal(marks_open(&set, ID, SIZE, "/t", &opts), 0);
	assert_int_equal(marks_mark_set(set, '1', 0, NULL), -pte_invalid);
	assert_non_null(strstr(marks_message(set), "letter"));
	assert_int_equal(marks_bookmark_set(set, "x", 0, NULL), -pte_invalid);
	assert_int_equal(marks_bookmark_set(set, "9lives", 0, NULL), -pte_invalid);
	assert_int_equal(marks_bookmark_set(set, "has space", 0, NULL), -pte_invalid);
	assert_int_equal(marks_region_set(set, "r1", 5, 5, NULL, NULL), -pte_invalid);
	assert_int_equal(marks_region_set(set, "r1", 5, 6, NULL, "no way"), -pte_invalid);

	/* marks move; the note stays unless replaced */
	assert_int_equal(marks_mark_set(set, 'a', 10, "first"), 0);
	assert_int_equal(marks_mark_set(set, 'a', 20, NULL), 0);
	assert_int_equal(marks_count(set), 1);
	assert_int_equal(marks_at(set, 0)->from, 20);
	assert_string_equal(marks_at(set, 0)->note, "first");

	/* toggling twice leaves nothing */
	assert_int_equal(marks_toggle(set, 30), 1);
	assert_int_equal(marks_toggle(set, 30), 0);
	assert_int_equal(marks_count(set), 1);

	/* bookmarks and regions share names */
	assert_int_equal(marks_bookmark_set(set, "start", 40, "go"), 0);
	assert_int_equal(marks_region_set(set, "start", 1, 2, NULL, NULL), -pte_invalid);
	assert_int_equal(marks_region_set(set, "phase", 100, 200, "slow", NULL), 0);
	assert_int_equal(marks_bookmark_set(set, "phase", 1, NULL), -pte_invalid);

	/* rename, note, colour, delete */
	i = marks_find(set, "phase");
	assert_int_equal(marks_rename(set, (size_t)i, "start"), -pte_invalid);
	assert_int_equal(marks_rename(set, (size_t)i, "phase2"), 0);
	i = marks_find(set, "phase2");
	assert_true(i >= 0);
	assert_int_equal(marks_set_color(set, (size_t)i, "green"), 0);
	assert_int_equal(marks_set_note(set, (size_t)i, "a \"new\" note"), 0);
	assert_string_equal(marks_at(set, (size_t)i)->note, "a \"new\" note");
	assert_int_equal(marks_set_note(set, (size_t)i, ""), 0);
	assert_null(marks_at(set, (size_t)marks_find(set, "phase2"))->note);
	i = marks_find(set, "a");
	assert_int_equal(marks_rename(set, (size_t)i, "bb"), -pte_invalid);
	assert_int_equal(marks_rename(set, (size_t)i, "b"), 0);
	assert_int_equal(marks_find(set, "a"), -1);
	i = marks_find(set, "start");
	assert_int_equal(marks_set_color(set, (size_t)i, "red"), -pte_invalid);
	assert_int_equal(marks_rename(set, (size_t)i, "-"), 0);
	assert_int_equal(marks_find(set, "start"), -1);
	assert_true(marks_find_at(set, BM_BOOKMARK, 40) >= 0);
	assert_int_equal(marks_delete(set, (size_t)marks_find_at(set, BM_BOOKMARK, 40)), 0);
	assert_int_equal(marks_delete(set, 99), -pte_invalid);
	assert_int_equal(marks_count(set), 2);
	marks_close(set);

	/* all of it was saved */
	assert_int_equal(marks_open(&set, ID, SIZE, "/t", &opts), 0);
	assert_int_equal(marks_count(set), 2);
	assert_true(marks_find(set, "b") >= 0);
	assert_string_equal(marks_at(set, (size_t)marks_find(set, "phase2"))->color, "green");
	marks_close(set);
}

static void test_next_resolve(void **state)
{
	struct marks_set *set;
	uint64_t off;
	long i;

	assert_int_equal(marks_open(&set, ID, SIZE, "/t", &opts), 0);
	marks_mark_set(set, 'a', 100, NULL);
	marks_toggle(set, 200);
	marks_region_set(set, "hot", 300, 400, NULL, NULL);
	marks_bookmark_set(set, "hot.x", 500, NULL);

	i = marks_next(set, 0, 1, ~0u);
	assert_int_equal(marks_at(set, (size_t)i)->from, 100);
	i = marks_next(set, 100, 1, ~0u);
	assert_int_equal(marks_at(set, (size_t)i)->from, 200);
	i = marks_next(set, 100, 1, 1u << BM_REGION);
	assert_int_equal(marks_at(set, (size_t)i)->from, 300);
	assert_int_equal(marks_next(set, 500, 1, ~0u), -1);
	i = marks_next(set, 300, -1, ~0u);
	assert_int_equal(marks_at(set, (size_t)i)->from, 200);
	i = marks_next(set, 300, -1, 1u << BM_MARK);
	assert_int_equal(marks_at(set, (size_t)i)->from, 100);
	assert_int_equal(marks_next(set, 100, -1, ~0u), -1);

	assert_int_equal(marks_resolve(set, "a", 0, &off), 0);
	assert_int_equal(off, 100);
	assert_int_equal(marks_resolve(set, "hot", 0, &off), 0);
	assert_int_equal(off, 300);
	assert_int_equal(marks_resolve(set, "hot", 1, &off), 0);
	assert_int_equal(off, 400);
	assert_int_equal(marks_resolve(set, "hot.end", 0, &off), 0);
	assert_int_equal(off, 400);
	assert_int_equal(marks_resolve(set, "hot.start", 1, &off), 0);
	assert_int_equal(off, 300);
	assert_int_equal(marks_resolve(set, "hot.x", 1, &off), 0);
	assert_int_equal(off, 500);
	assert_int_equal(marks_resolve(set, "4096", 0, &off), 0);
	assert_int_equal(off, 4096);
	assert_int_equal(marks_resolve(set, "0x1000", 0, &off), 0);
	assert_int_equal(off, 4096);
	assert_int_equal(marks_resolve(set, "nope", 0, &off), -pte_invalid);
	assert_int_equal(marks_resolve(set, "12xyz", 0, &off), -pte_invalid);
	marks_close(set);
}

static void test_no_state_and_cap(void **state)
{
	struct marks_opts o = { .flags = BM_NO_STATE, .report = collect };
	struct marks_set *set;
	uint64_t i;

	assert_int_equal(marks_open(&set, ID, SIZE, "/t", &o), 0);
	assert_false(marks_saving(set));
	for (i = 0; i < BM_MAX_ENTRIES; i++)
		assert_int_equal(marks_toggle(set, i), 1);
	assert_int_equal(marks_toggle(set, i), -pte_nomem);
	assert_non_null(strstr(marks_message(set), "too many marks"));
	assert_int_equal(marks_mark_set(set, 'a', 1, NULL), -pte_nomem);
	assert_int_equal(marks_toggle(set, 0), 0);
	assert_int_equal(marks_mark_set(set, 'a', 1, NULL), 0);
	marks_close(set);
	assert_false(exists(state_file(ID ".marks")));
	assert_false(exists(state_file("")));

	{
		char big[BM_NOTE_MAX + 1];

		memset(big, 'x', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		assert_int_equal(marks_open(&set, ID, SIZE, "/t", &o), 0);
		assert_int_equal(marks_mark_set(set, 'a', 1, big), -pte_nomem);
		assert_int_equal(marks_count(set), 0);
		marks_close(set);
	}
}

static void test_no_home(void **state)
{
	struct marks_set *set;

	unsetenv("XDG_STATE_HOME");
	unsetenv("HOME");
	assert_int_equal(marks_open(&set, ID, SIZE, "/t", &opts), 0);
	assert_non_null(strstr(msgs, "$HOME"));
	assert_non_null(strstr(msgs, "marks are not saved"));
	assert_false(marks_saving(set));
	assert_null(marks_file(set));
	assert_int_equal(marks_mark_set(set, 'a', 1, NULL), 0);
	assert_int_equal(marks_count(set), 1);
	assert_int_equal(marks_save(set), 0);
	marks_close(set);
	setenv("HOME", tmpdir, 1);
	setup_state();
}

static void test_streams(void **state)
{
	struct marks_set *set, *set3;

	assert_int_equal(marks_open(&set, ID, SIZE, "/p.data",
				 &(struct marks_opts){ .stream = "../x" }), -pte_invalid);
	assert_int_equal(marks_open(&set, ID, SIZE, "/p.data", &opts), 0);
	assert_int_equal(marks_open(&set3, ID, SIZE, "/p.data",
				 &(struct marks_opts){ .stream = "cpu3", .report = collect }), 0);
	assert_string_equal(marks_file(set3), state_file(ID "@cpu3.marks"));
	assert_int_equal(marks_mark_set(set, 'a', 1, NULL), 0);
	assert_int_equal(marks_mark_set(set3, 'a', 2, NULL), 0);
	marks_close(set);
	marks_close(set3);
	assert_non_null(strstr(read_file(state_file(ID "@cpu3.marks")),
			       "id=" ID " stream=cpu3 path="));
	/* the streams' files are not mistaken for a changed trace */
	assert_int_equal(marks_open(&set3, ID, SIZE, "/p.data",
				 &(struct marks_opts){ .stream = "cpu3", .report = collect }), 0);
	assert_string_equal(msgs, "");
	assert_int_equal(marks_at(set3, 0)->from, 2);
	marks_close(set3);
}

static void test_explicit_file(void **state)
{
	struct marks_set *set;
	char path[4096];

	snprintf(path, sizeof(path), "%s/trace.pt.marks", tmpdir);
	assert_int_equal(marks_open(&set, ID, SIZE, "/t",
				 &(struct marks_opts){ .file = path }), 0);
	assert_string_equal(marks_file(set), path);
	assert_int_equal(marks_mark_set(set, 'x', 7, NULL), 0);
	marks_close(set);
	assert_non_null(strstr(read_file(path), "mark x 0x7\n"));
	unlink(path);
}

/* A set opened for @size bytes with --no-state, messages collected. */
static struct marks_set *open_mem(uint64_t size)
{
	struct marks_opts o = { .flags = BM_NO_STATE, .report = collect };
	struct marks_set *set;

	assert_int_equal(marks_open(&set, ID, size, "/t", &o), 0);
	return set;
}

static void test_grow(void **state)
{
	struct marks_set *set = open_mem(100);

	assert_int_equal(marks_grow(NULL, 200), -pte_invalid);
	assert_int_equal(marks_mark_set(set, 'a', 150, NULL), -pte_invalid);
	assert_int_equal(marks_grow(set, 50), -pte_invalid);
	assert_int_equal(marks_mark_set(set, 'a', 99, NULL), 0);
	assert_int_equal(marks_grow(set, 200), 0);
	assert_int_equal(marks_mark_set(set, 'b', 150, NULL), 0);
	assert_int_equal(marks_region_set(set, "tail", 100, 200, NULL, NULL), 0);
	assert_int_equal(marks_count(set), 3);
	marks_close(set);
}

static void test_merge(void **state)
{
	struct marks_set *from = open_mem(0x1000), *set = open_mem(0x800);
	long i;

	assert_int_equal(marks_merge(NULL, from, "x"), -pte_invalid);
	assert_int_equal(marks_merge(set, NULL, "x"), -pte_invalid);
	assert_int_equal(marks_merge(set, from, NULL), -pte_invalid);
	assert_int_equal(marks_merge(set, from, "kept"), 0);	/* nothing */
	assert_int_equal(marks_mark_set(from, 'a', 0x10, "note a"), 0);
	assert_int_equal(marks_mark_set(from, 'b', 0x20, NULL), 0);
	assert_int_equal(marks_toggle(from, 0x30), 1);
	assert_int_equal(marks_bookmark_set(from, "named", 0x30, NULL), 0);
	assert_int_equal(marks_region_set(from, "r1", 0x40, 0x80, NULL, "red"), 0);
	assert_int_equal(marks_region_set(from, "edge", 0x700, 0x800, NULL, NULL), 0);
	assert_int_equal(marks_mark_set(from, 'z', 0x900, NULL), 0);	/* past */
	assert_int_equal(marks_region_set(from, "over", 0x7f0, 0x801, NULL, NULL), 0);
	/* the set's own: a the same (gains the note), b elsewhere (a clash) */
	assert_int_equal(marks_mark_set(set, 'a', 0x10, NULL), 0);
	assert_int_equal(marks_mark_set(set, 'b', 0x22, NULL), 0);
	msgs[0] = '\0';
	assert_int_equal(marks_merge(set, from, "kept"), 3);
	assert_non_null(strstr(msgs, "kept: mark z at 0x900 is past the end (0x800 bytes) "
			       "now; not kept"));
	assert_non_null(strstr(msgs, "kept: region over 0x7f0-0x801 is past the end"));
	assert_non_null(strstr(msgs, "kept: mark b at 0x20 clashes"));
	assert_int_equal(marks_count(set), 6);	/* a b - named r1 edge */
	i = marks_find(set, "a");
	assert_string_equal(marks_at(set, (size_t)i)->note, "note a");
	assert_int_equal(marks_at(set, (size_t)marks_find(set, "b"))->from, 0x22);
	assert_true(marks_find_at(set, BM_BOOKMARK, 0x30) >= 0);
	assert_false(marks_at(set, (size_t)marks_find_at(set, BM_BOOKMARK, 0x30))->name[0]);
	assert_string_equal(marks_at(set, (size_t)marks_find(set, "r1"))->color, "red");
	assert_true(marks_find(set, "edge") >= 0);
	/* again: everything is there already */
	msgs[0] = '\0';
	assert_int_equal(marks_merge(set, from, "kept"), 3);
	assert_int_equal(marks_count(set), 6);
	marks_close(from);
	marks_close(set);
}

static void test_merge_many_skipped(void **state)
{
	struct marks_set *from = open_mem(0x1000), *set = open_mem(0x10);
	uint64_t i;

	for (i = 0; i < 8; i++)
		assert_int_equal(marks_toggle(from, 0x100 + i), 1);
	msgs[0] = '\0';
	assert_int_equal(marks_merge(set, from, "kept"), 8);
	assert_non_null(strstr(msgs, "kept: 8 entries not kept (the first 5 said why)"));
	assert_int_equal(marks_count(set), 0);
	marks_close(from);
	marks_close(set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_null, clean),
		cmocka_unit_test_setup(test_empty_open_writes_nothing, clean),
		cmocka_unit_test_setup(test_changes, clean),
		cmocka_unit_test_setup(test_next_resolve, clean),
		cmocka_unit_test_setup(test_no_state_and_cap, clean),
		cmocka_unit_test_setup(test_no_home, clean),
		cmocka_unit_test_setup(test_streams, clean),
		cmocka_unit_test_setup(test_explicit_file, clean),
		cmocka_unit_test_setup(test_grow, clean),
		cmocka_unit_test_setup(test_merge, clean),
		cmocka_unit_test_setup(test_merge_many_skipped, clean),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
