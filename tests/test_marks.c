/* test_marks -- marks model, marks file round-trip and recovery, summaries. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "marks.h"
#include "ptdec.h"
#include "trace.h"

#define ID "0000000000100000-1f2e3d4c5b6a7988"
#define ID2 "0000000000100000-aaaaaaaaaaaaaaaa"
#define SIZE 0x100000

static char tmpdir[] = "/tmp/test_marks.XXXXXX";
static char msgs[16384];	/* every message reported, one per line */

static void collect(void *ctx, const char *msg)
{
	size_t len = strlen(msgs);

	snprintf(msgs + len, sizeof(msgs) - len, "%s\n", msg);
}

static const struct marks_opts opts = { .report = collect };

static char *state_file(const char *name)
{
	static char buf[4][4096];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/state/ptbrowse/traces/%s", tmpdir, name);
	return buf[k];
}

static void write_file(const char *path, const char *text)
{
	char dir[4096], cmd[4200];
	FILE *f;

	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", dir);
	assert_int_equal(system(cmd), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static char *read_file(const char *path)
{
	static char buf[65536];
	size_t n;
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static int exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static void setup_state(void)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/state", tmpdir);
	setenv("XDG_STATE_HOME", path, 1);
}

static int setup(void **state)
{
	char path[4096];

	if (!mkdtemp(tmpdir))
		return -1;
	setup_state();
	snprintf(path, sizeof(path), "%s/config", tmpdir);
	setenv("XDG_CONFIG_HOME", path, 1);
	snprintf(path, sizeof(path), "%s/cache", tmpdir);
	setenv("XDG_CACHE_HOME", path, 1);
	setenv("HOME", tmpdir, 1);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	return system(cmd) ? -1 : 0;
}

/* Each test starts with an empty state directory and no messages. */
static int clean(void **state)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf %s/state %s/blocker", tmpdir, tmpdir);
	msgs[0] = '\0';
	return system(cmd) ? -1 : 0;
}

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
	assert_int_equal(marks_history_last(NULL, 0, &off), -pte_invalid);
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

static const char *const tricky[] = {
	"plain",
	"with \"quotes\" inside",
	"two\nlines\n",
	"back\\slash \\n not a newline",
	"tab\there, cr\rthere, bell\a, del\x7f",
	"# not a comment",
	"utf-8: \xc3\xa9t\xc3\xa9 \xe2\x86\x92",
};

static void test_round_trip(void **state)
{
	const struct marks_entry *e;
	struct marks_set *set;
	char *text;
	size_t i;

	assert_int_equal(marks_open(&set, ID, SIZE, "/data/run 7.pt", &opts), 0);
	assert_int_equal(marks_mark_set(set, 'a', 0x1f5c, NULL), 0);
	assert_int_equal(marks_mark_set(set, 'B', 0x3a000, tricky[1]), 0);
	assert_int_equal(marks_toggle(set, 0x4000), 1);
	for (i = 0; i < sizeof(tricky) / sizeof(tricky[0]); i++) {
		char name[16];

		snprintf(name, sizeof(name), "bm_%zu", i);
		assert_int_equal(marks_bookmark_set(set, name, 0x5000 + i, tricky[i]), 0);
	}
	assert_int_equal(marks_region_set(set, "hot", 0x18000, 0x10000, "spin\n\"loop\"",
				       "yellow"), 0);
	assert_int_equal(marks_count(set), 4 + i);
	marks_close(set);

	text = read_file(state_file(ID ".marks"));
	assert_non_null(text);
	assert_memory_equal(text, "# ptbrowse marks v1\n", 20);
	assert_non_null(strstr(text, "trace size=1048576 id=" ID " path=\"/data/run 7.pt\"\n"));
	assert_non_null(strstr(text, "mark a 0x1f5c\n"));
	assert_non_null(strstr(text, "mark B 0x3a000 \"with \\\"quotes\\\" inside\"\n"));
	assert_non_null(strstr(text, "bookmark - 0x4000\n"));
	assert_non_null(strstr(text, "region hot 0x10000 0x18000 color=yellow "
				     "\"spin\\n\\\"loop\\\"\"\n"));

	assert_int_equal(marks_open(&set, ID, SIZE, "/data/run 7.pt", &opts), 0);
	assert_int_equal(marks_count(set), 4 + i);
	assert_string_equal(msgs, "");
	e = marks_at(set, 0);
	assert_int_equal(e->kind, BM_MARK);
	assert_string_equal(e->name, "a");
	assert_int_equal(e->from, 0x1f5c);
	assert_null(e->note);
	e = marks_at(set, (size_t)marks_find(set, "B"));
	assert_string_equal(e->note, tricky[1]);
	e = marks_at(set, (size_t)marks_find_at(set, BM_BOOKMARK, 0x4000));
	assert_string_equal(e->name, "");
	for (i = 0; i < sizeof(tricky) / sizeof(tricky[0]); i++) {
		e = marks_at(set, (size_t)marks_find_at(set, BM_BOOKMARK, 0x5000 + i));
		assert_string_equal(e->note, tricky[i]);
	}
	e = marks_at(set, (size_t)marks_find(set, "hot"));
	assert_int_equal(e->kind, BM_REGION);
	assert_int_equal(e->from, 0x10000);
	assert_int_equal(e->to, 0x18000);
	assert_string_equal(e->color, "yellow");
	assert_string_equal(e->note, "spin\n\"loop\"");
	marks_close(set);
}

/* Every byte but NUL survives a note's quoting. */
static void test_all_bytes(void **state)
{
	char note[256];
	struct marks_set *set;
	int i;

	for (i = 1; i < 256; i++)
		note[i - 1] = (char)i;
	note[255] = '\0';
	assert_int_equal(marks_open(&set, ID, SIZE, "/t", &opts), 0);
	assert_int_equal(marks_mark_set(set, 'z', 1, note), 0);
	marks_close(set);
	assert_int_equal(marks_open(&set, ID, SIZE, "/t", &opts), 0);
	assert_string_equal(marks_at(set, 0)->note, note);
	marks_close(set);
}

static void test_hand_edited(void **state)
{
	struct marks_set *set;

	write_file(state_file(ID ".marks"),
		   "\n# ptbrowse marks v1\n"
		   "# my notes\n"
		   "trace size=1048576 path=/data/run7.pt\n"
		   "\n"
		   "mark a 8028                      # first PGE\n"
		   "   mark   b\t0X10   \"x\"  # trailing\n"
		   "region hot 0x100 0x180 \"spin loop\" color=red\n");
	assert_int_equal(marks_open(&set, ID, SIZE, "/data/run7.pt", &opts), 0);
	assert_string_equal(msgs, "");
	assert_int_equal(marks_count(set), 3);
	assert_int_equal(marks_at(set, 0)->from, 0x10);
	assert_string_equal(marks_at(set, 0)->note, "x");
	assert_int_equal(marks_at(set, 1)->from, 0x100);
	assert_string_equal(marks_at(set, 1)->color, "red");
	assert_int_equal(marks_at(set, 2)->from, 8028);
	marks_close(set);
	/* opening never rewrote it: the path is the same */
	assert_non_null(strstr(read_file(state_file(ID ".marks")), "# my notes"));
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

static void test_history(void **state)
{
	struct marks_set *set;
	uint64_t off;
	int i;

	assert_int_equal(marks_open(&set, ID, SIZE, "/t", &opts), 0);
	assert_int_equal(marks_history_last(set, 0, &off), -pte_eos);
	assert_int_equal(marks_history_step(set, 0, -1, &off), -pte_eos);
	/* at 10, jump to 20, jump to 30 */
	marks_history_push(set, 10);
	marks_history_push(set, 20);
	assert_int_equal(marks_history_step(set, 30, -1, &off), 0);
	assert_int_equal(off, 20);
	assert_int_equal(marks_history_step(set, 20, -1, &off), 0);
	assert_int_equal(off, 10);
	assert_int_equal(marks_history_step(set, 10, -1, &off), -pte_eos);
	assert_int_equal(marks_history_step(set, 10, 1, &off), 0);
	assert_int_equal(off, 20);
	assert_int_equal(marks_history_step(set, 20, 1, &off), 0);
	assert_int_equal(off, 30);
	assert_int_equal(marks_history_step(set, 30, 1, &off), -pte_eos);
	/* '' toggles between the last two places */
	marks_history_push(set, 30);	/* at 30, jump to 40 */
	assert_int_equal(marks_history_last(set, 40, &off), 0);
	assert_int_equal(off, 30);
	assert_int_equal(marks_history_last(set, 30, &off), 0);
	assert_int_equal(off, 40);
	/* bounded */
	for (i = 0; i < 3 * BM_HISTORY_MAX; i++)
		marks_history_push(set, (uint64_t)i);
	for (i = 0; marks_history_step(set, 9999, -1, &off) == 0; i++)
		;
	assert_true(i <= BM_HISTORY_MAX);
	assert_true(i >= BM_HISTORY_MAX - 2);
	marks_close(set);
}

static void test_corrupt(void **state)
{
	struct marks_set *set;
	char want[4200], file[4096];

	snprintf(file, sizeof(file), "%s", state_file(ID ".marks"));
	write_file(file, "# ptbrowse marks v1\n"
			 "mark a 0x10\n"
			 "mark b 0x2g\n"
			 "region r 1 2\n"
			 "bookmark note 0x30 \"unterminated\n"
			 "mark c 0x40 \"bad \\q escape\"\n"
			 "frobnicate 1\n"
			 "mark e\n"
			 "mark d 0x50 \"ok\"\n");
	assert_int_equal(marks_open(&set, ID, SIZE, "/t", &opts), 0);
	snprintf(want, sizeof(want), "%s:3: bad offset\n", file);
	assert_non_null(strstr(msgs, want));
	snprintf(want, sizeof(want), "%s:4: expected: region", file);
	assert_non_null(strstr(msgs, want));
	snprintf(want, sizeof(want), "%s:5: unterminated quote", file);
	assert_non_null(strstr(msgs, want));
	snprintf(want, sizeof(want), "%s:6: unknown escape", file);
	assert_non_null(strstr(msgs, want));
	snprintf(want, sizeof(want), "%s: 1 more bad lines", file);
	assert_non_null(strstr(msgs, want));
	snprintf(want, sizeof(want), "kept as %s.bad", file);
	assert_non_null(strstr(msgs, want));
	/* the good lines are loaded and written back; the original is kept */
	assert_int_equal(marks_count(set), 2);
	assert_non_null(strstr(read_file(state_file(ID ".marks.bad")), "frobnicate"));
	assert_non_null(strstr(read_file(file), "mark d 0x50 \"ok\""));
	assert_null(strstr(read_file(file), "frobnicate"));
	marks_close(set);

	/* a second bad file never replaces the first .bad */
	msgs[0] = '\0';
	write_file(file, "garbage\n");
	assert_int_equal(marks_open(&set, ID, SIZE, "/t", &opts), 0);
	snprintf(want, sizeof(want), "%s:1: not a ptbrowse marks file", file);
	assert_non_null(strstr(msgs, want));
	assert_int_equal(marks_count(set), 0);
	assert_non_null(strstr(read_file(state_file(ID ".marks.bad")), "frobnicate"));
	assert_string_equal(read_file(state_file(ID ".marks.bad.1")), "garbage\n");
	assert_false(exists(file));
	marks_close(set);

	/* an empty file is not a marks file either; with --no-state it stays */
	msgs[0] = '\0';
	write_file(file, "");
	assert_int_equal(marks_open(&set, ID, SIZE, "/t",
				 &(struct marks_opts){ .flags = BM_NO_STATE,
						    .report = collect }), 0);
	assert_non_null(strstr(msgs, ":1: not a ptbrowse marks file"));
	assert_true(exists(file));
	assert_false(exists(state_file(ID ".marks.bad.2")));
	marks_close(set);

	/* a duplicate letter would be dropped by a rewrite: set aside too */
	msgs[0] = '\0';
	write_file(file, "# ptbrowse marks v1\nmark a 1\nmark a 2\n");
	assert_int_equal(marks_open(&set, ID, SIZE, "/t", &opts), 0);
	assert_non_null(strstr(msgs, ":3: mark a is at 0x1 here, 0x2 there"));
	assert_true(exists(state_file(ID ".marks.bad.2")));
	marks_close(set);
}

static void test_future_version(void **state)
{
	char file[4096];
	const char *text = "# ptbrowse marks v2\nsomething new 1 2 3\n";
	struct marks_set *set;

	snprintf(file, sizeof(file), "%s", state_file(ID ".marks"));
	write_file(file, text);
	assert_int_equal(marks_open(&set, ID, SIZE, "/t", &opts), 0);
	assert_non_null(strstr(msgs, ":1: marks file version 2 is newer"));
	assert_false(marks_saving(set));
	/* changes stay in memory; the file is untouched */
	assert_int_equal(marks_mark_set(set, 'a', 1, NULL), 0);
	assert_int_equal(marks_count(set), 1);
	marks_close(set);
	assert_string_equal(read_file(file), text);
	assert_false(exists(state_file(ID ".marks.bad")));
}

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

static void test_import_export(void **state)
{
	struct marks_set *a, *b;
	char path[4096], want[4200];
	FILE *f;
	int ret;

	assert_int_equal(marks_open(&a, ID, SIZE, "/t", &opts), 0);
	marks_mark_set(a, 'a', 0x10, "from a");
	marks_mark_set(a, 'b', 0x20, NULL);
	marks_toggle(a, 0x30);
	marks_region_set(a, "hot", 0x100, 0x200, "the \"hot\" one", "red");
	marks_bookmark_set(a, "same", 0x40, NULL);
	snprintf(path, sizeof(path), "%s/shared.marks", tmpdir);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(marks_export(a, f), 0);
	fclose(f);
	marks_close(a);

	assert_int_equal(marks_open(&b, ID2, SIZE, "/u", &opts), 0);
	marks_mark_set(b, 'a', 0x11, NULL);		/* conflict */
	marks_region_set(b, "hot", 0x100, 0x201, NULL, NULL);	/* conflict */
	marks_bookmark_set(b, "same", 0x40, NULL);	/* same: takes nothing */
	marks_toggle(b, 0x30);			/* same */
	msgs[0] = '\0';
	f = fopen(path, "r");
	ret = marks_import(b, f, path);
	fclose(f);
	assert_int_equal(ret, 2);
	snprintf(want, sizeof(want), "%s:3: mark a is at 0x11 here, 0x10 there; kept 0x11", path);
	assert_non_null(strstr(msgs, want));
	assert_non_null(strstr(msgs, "region hot is 0x100-0x201 here"));
	assert_non_null(strstr(msgs, "holds marks of another trace"));
	assert_non_null(strstr(msgs, "imported 1 marks, 2 conflicts"));
	assert_int_equal(marks_count(b), 5);
	assert_int_equal(marks_at(b, (size_t)marks_find(b, "b"))->from, 0x20);
	assert_null(marks_at(b, (size_t)marks_find(b, "a"))->note);
	marks_close(b);
	/* the merge was saved */
	assert_int_equal(marks_open(&b, ID2, SIZE, "/u", &opts), 0);
	assert_int_equal(marks_count(b), 5);

	/* by path: atomic export, import with a clear error; no directory
	 * is made for it */
	msgs[0] = '\0';
	snprintf(want, sizeof(want), "%s/sub/dir/out.marks", tmpdir);
	assert_int_equal(marks_export_path(b, want), -pte_io);
	assert_non_null(strstr(msgs, "/sub/dir: no such directory"));
	snprintf(want, sizeof(want), "%s/sub", tmpdir);
	assert_int_equal(mkdir(want, 0700), 0);
	strcat(want, "/dir");
	assert_int_equal(mkdir(want, 0700), 0);
	msgs[0] = '\0';
	strcat(want, "/out.marks");
	assert_int_equal(marks_export_path(b, want), 0);
	assert_non_null(strstr(msgs, "exported 5 marks to"));
	assert_non_null(strstr(read_file(want), "region hot 0x100 0x201"));
	assert_int_equal(marks_import_path(b, want), 0);
	assert_int_equal(marks_count(b), 5);
	assert_int_equal(marks_import_path(b, "/nonexistent/x.marks"), -pte_io);
	assert_non_null(strstr(marks_message(b), "cannot read /nonexistent/x.marks: No such file"));
	snprintf(want, sizeof(want), "%s/blocker/x.marks", tmpdir);
	write_file(want, "");
	snprintf(want, sizeof(want), "%s/blocker/x.marks/y.marks", tmpdir);
	assert_int_equal(marks_export_path(b, want), -pte_io);
	assert_non_null(strstr(marks_message(b), "x.marks: no such directory"));

	/* not a marks file */
	f = fopen(path, "w");
	fputs("hello\n", f);
	fclose(f);
	f = fopen(path, "r");
	assert_int_equal(marks_import(b, f, path), -pte_bad_file);
	fclose(f);
	f = fopen(path, "w");
	fputs("# ptbrowse marks v9\nmark q 1\n", f);
	fclose(f);
	f = fopen(path, "r");
	assert_int_equal(marks_import(b, f, path), -pte_bad_file);
	fclose(f);
	assert_int_equal(marks_find(b, "q"), -1);
	marks_close(b);
}

/* Tests run as root, where permissions do not stop writes: put a file
 * where the state directory should be. */
/* Entries past the end of the trace are refused, at import (naming the
 * file and line) and when set; an import past the cap says how many lines
 * were not imported. */
static void test_import_limits(void **state)
{
	static const char past[] =
		"# ptbrowse marks v1\n"
		"mark a 0x100000\n"
		"region r1 0x10 0x100001\n"
		"bookmark ok 0xfffff\n"
		"region r2 0x0 0x100000\n"
		"bookmark - 0x200000\n";
	struct marks_set *a;
	char *text;
	size_t len, i;
	FILE *f;

	assert_int_equal(marks_open(&a, ID, SIZE, "/t", &opts), 0);
	msgs[0] = '\0';
	f = fmemopen((void *)past, sizeof(past) - 1, "r");
	assert_int_equal(marks_import(a, f, "p.marks"), 0);
	fclose(f);
	assert_non_null(strstr(msgs, "p.marks:2: mark a at 0x100000 is past the end "
			       "of the trace (0x100000 bytes); not loaded"));
	assert_non_null(strstr(msgs, "p.marks:3: region r1 ends at 0x100001, past "
			       "the end of the trace (0x100000 bytes)"));
	assert_non_null(strstr(msgs, "p.marks:6: bookmark - at 0x200000 is past"));
	assert_non_null(strstr(msgs, "imported 2 marks, 0 conflicts, 3 bad lines"));
	assert_int_equal(marks_count(a), 2);
	assert_int_equal(marks_mark_set(a, 'b', SIZE, NULL), -pte_invalid);
	assert_non_null(strstr(marks_message(a), "0x100000 is past the end of the trace"));
	assert_int_equal(marks_toggle(a, SIZE + 5), -pte_invalid);
	assert_int_equal(marks_bookmark_set(a, "far", UINT64_MAX, NULL), -pte_invalid);
	assert_int_equal(marks_region_set(a, "r3", 5, SIZE + 1, NULL, NULL), -pte_invalid);
	assert_int_equal(marks_region_set(a, "r3", SIZE, 5, NULL, NULL), 0);
	assert_int_equal(marks_mark_set(a, 'b', SIZE - 1, NULL), 0);
	assert_int_equal(marks_count(a), 4);
	marks_close(a);

	/* the cap: 50 more than fit */
	len = 64 + (BM_MAX_ENTRIES + 50) * 24;
	text = malloc(len);
	assert_non_null(text);
	i = (size_t)snprintf(text, len, "# ptbrowse marks v1\n");
	for (size_t k = 0; k < BM_MAX_ENTRIES + 50; k++)
		i += (size_t)snprintf(text + i, len - i, "bookmark - %zu\n", k);
	assert_int_equal(marks_open(&a, ID2, SIZE, "/t", &opts), 0);
	msgs[0] = '\0';
	f = fmemopen(text, i, "r");
	assert_int_equal(marks_import(a, f, "big.marks"), -pte_nomem);
	fclose(f);
	assert_non_null(strstr(msgs, "big.marks:10002: more than 10000 marks"));
	assert_non_null(strstr(msgs, "big.marks: imported 10000 marks; 50 more lines "
			       "of marks not imported (at most 10000 marks per trace)"));
	assert_int_equal(marks_count(a), BM_MAX_ENTRIES);
	marks_close(a);
	free(text);
}

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

/*
 * Region summaries over a synthetic trace.
 */

static const uint8_t psb[] = { 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
			       0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82 };
static uint8_t trace[4096];
static size_t trace_len;
static uint64_t seg_off[8];	/* where each segment's PSB is */

static void put(const uint8_t *b, size_t n)
{
	memcpy(trace + trace_len, b, n);
	trace_len += n;
}

#define PUT(...) put((const uint8_t[]){ __VA_ARGS__ }, sizeof((uint8_t[]){ __VA_ARGS__ }))

/* Segment k: psb, tsc k, cbr, psbend, tnt.8 (3 bits, 1 taken), tip,
 * cyc 31, tnt.8 (6 taken), pad. */
static void build_trace(void)
{
	int k;

	trace_len = 0;
	for (k = 0; k < 4; k++) {
		seg_off[k] = trace_len;
		put(psb, sizeof(psb));
		PUT(0x19, (uint8_t)(0x10 * (k + 1)), 0, 0, 0, 0, 0, 0);
		PUT(0x02, 0x03, (uint8_t)(k < 2 ? 20 : 30), 0x00);
		PUT(0x02, 0x23);
		PUT(0x14, 0x0d, 0xfb, 0xfe, 0x00);
	}
	seg_off[k] = trace_len;
}

static void test_summary(void **state)
{
	struct img_span span;
	struct marks_summary s;
	struct img img;

	build_trace();
	img_init_flat(&img, &span, trace, trace_len);
	assert_int_equal(marks_region_summary(&img, 5, 5, &s, NULL, NULL, NULL), -pte_invalid);

	/* the whole trace */
	assert_int_equal(marks_region_summary(&img, 0, trace_len, &s, NULL, NULL, NULL), 0);
	assert_int_equal(s.bytes, trace_len);
	assert_int_equal(s.packets, 4 * 9);
	assert_int_equal(s.psbs, 4);
	assert_int_equal(s.by_type[PKT_PSBEND], 4);
	assert_int_equal(s.by_class[PKC_SYNC], 12);
	assert_int_equal(s.by_class[PKC_BRANCH], 8);
	assert_int_equal(s.tnt_bits, 4 * 9);
	assert_int_equal(s.taken, 4 * 7);
	assert_int_equal(s.not_taken, 4 * 2);
	assert_int_equal(s.tips, 4);
	assert_int_equal(s.cyc_cycles, 4 * 31);
	assert_true(s.has_tsc);
	assert_int_equal(s.first_tsc, 0x10);
	assert_int_equal(s.last_tsc, 0x40);
	assert_int_equal(s.tsc_ticks, 0x30);
	assert_int_equal(s.first_tsc_off, 16);
	assert_int_equal(s.cbrs, 4);
	assert_int_equal(s.cbr_changes, 1);
	assert_int_equal(s.first_cbr, 20);
	assert_int_equal(s.last_cbr, 30);
	assert_int_equal(s.errors, 0);
	assert_int_equal(s.ovfs, 0);

	/* from the middle of segment 1 to the middle of segment 2: the lead-in
	 * from segment 1's PSB is decoded but not counted */
	assert_int_equal(marks_region_summary(&img, seg_off[1] + 30, seg_off[2] + 16, &s,
					   NULL, NULL, NULL), 0);
	/* a segment: psb 0, tsc 16, cbr 24, psbend 28, tnt 30, tip 31, cyc 32,
	 * tnt 33, pad 34; so tnt tip cyc tnt pad, then segment 2's psb */
	assert_int_equal(s.packets, 6);
	assert_int_equal(s.psbs, 1);
	assert_int_equal(s.tnt_bits, 9);
	assert_false(s.has_tsc);
	assert_int_equal(s.cbrs, 0);

	/* CBR changes, also against the ratio seen in the lead-in */
	assert_int_equal(marks_region_summary(&img, seg_off[2] + 1, seg_off[3] + 30, &s,
					   NULL, NULL, NULL), 0);
	assert_int_equal(s.cbrs, 2);
	assert_int_equal(s.cbr_changes, 0);
	assert_int_equal(s.psbs, 1);
	assert_int_equal(s.tsc_ticks, 0x10);
	assert_int_equal(marks_region_summary(&img, seg_off[1] + 26, seg_off[2] + 30, &s,
					   NULL, NULL, NULL), 0);
	assert_int_equal(s.cbrs, 1);
	assert_int_equal(s.cbr_changes, 1);
	assert_int_equal(s.first_cbr, 30);

	/* past the end is clipped */
	assert_int_equal(marks_region_summary(&img, seg_off[3], 1u << 30, &s,
					   NULL, NULL, NULL), 0);
	assert_int_equal(s.to, trace_len);
	assert_int_equal(s.packets, 9);
}

static void test_summary_errors(void **state)
{
	struct img_span span;
	struct marks_summary s;
	struct img img;

	build_trace();
	/* an unknown opcode and an OVF in segment 1 */
	trace[seg_off[1] + 33] = 0x02;
	trace[seg_off[1] + 34] = 0xff;	/* not a valid extended opcode */
	img_init_flat(&img, &span, trace, trace_len);
	assert_int_equal(marks_region_summary(&img, 0, trace_len, &s, NULL, NULL, NULL), 0);
	assert_int_equal(s.errors, 1);
	assert_int_equal(s.first_error_off, seg_off[1] + 33);
	assert_int_equal(s.psbs, 4);	/* resynchronised at segment 2 */
	build_trace();
	trace[seg_off[1] + 33] = 0x02;
	trace[seg_off[1] + 34] = 0xf3;	/* ovf replaces tnt.8 0xfe, pad */
	assert_int_equal(marks_region_summary(&img, 0, trace_len, &s, NULL, NULL, NULL), 0);
	assert_int_equal(s.ovfs, 1);
	assert_int_equal(s.by_class[PKC_ERROR], 1);
	assert_int_equal(s.errors, 0);

	/* no PSB at all: nothing to count */
	memset(trace, 0, trace_len);
	assert_int_equal(marks_region_summary(&img, 10, 100, &s, NULL, NULL, NULL), 0);
	assert_int_equal(s.packets, 0);
	assert_int_equal(s.bytes, 90);
}

static void test_summary_time(void **state)
{
	struct tm_config cfg = { .have_tsc_hz = 1, .tsc_hz = 1000000000 };
	struct img_span span;
	struct marks_summary s;
	struct marks_time bt;
	struct img img;

	build_trace();
	img_init_flat(&img, &span, trace, trace_len);
	/* nothing known about the recording: no wall clock */
	marks_time_init(&bt, NULL);
	assert_int_equal(marks_region_summary(&img, 0, trace_len, &s, NULL,
					   marks_time_observe, &bt), 0);
	assert_false(s.has_time);
	assert_int_equal(s.packets, 4 * 9);
	/* a 1 GHz TSC: one tick is a nanosecond, TSCs run 0x10..0x40 */
	marks_time_init(&bt, &cfg);
	assert_int_equal(marks_region_summary(&img, 0, trace_len, &s, NULL,
					   marks_time_observe, &bt), 0);
	assert_true(s.has_time);
	assert_true(s.duration_ns >= 0x30);
	assert_true(s.duration_ns < 0x60);
	/* the lead-in before the range sets the clock but is not timed */
	marks_time_init(&bt, &cfg);
	assert_int_equal(marks_region_summary(&img, seg_off[1] + 30, seg_off[2], &s, NULL,
					   marks_time_observe, &bt), 0);
	assert_true(s.has_time);
	assert_true(s.duration_ns < 0x10);
}

struct observed {
	int packets, in_range, finals, lost;
	uint64_t lost_off;
};

static int observe(void *ctx, const struct pkt *pkt, int in_range,
		   struct marks_summary *sum)
{
	struct observed *o = ctx;

	if (!pkt) {
		o->finals++;
		sum->has_time = 1;
		sum->duration_ns = 42;
		return 0;
	}
	if (pkt->type == PKT_INVALID) {
		o->lost++;
		o->lost_off = pkt->offset;
		return 0;
	}
	o->packets++;
	o->in_range += in_range;
	return 0;
}

/* Lost bytes reach the observer: a gap between spans, a decode error. */
static void test_summary_lost(void **state)
{
	struct img_span spans[2];
	struct observed o = { 0 };
	struct marks_summary s;
	struct img img;

	build_trace();
	memset(spans, 0, sizeof(spans));
	spans[0].data = trace;
	spans[0].size = seg_off[2];
	spans[1].data = trace + seg_off[2];
	spans[1].off = seg_off[2];
	spans[1].size = trace_len - seg_off[2];
	spans[1].file_off = seg_off[2];
	spans[1].gap_before = 1;
	img.spans = spans;
	img.nspans = 2;
	img.size = trace_len;
	assert_int_equal(marks_region_summary(&img, 0, trace_len, &s, NULL, observe, &o), 0);
	assert_int_equal(s.gaps, 1);
	assert_int_equal(s.packets, 4 * 9);
	assert_int_equal(o.lost, 1);
	assert_int_equal(o.lost_off, seg_off[2]);
	assert_int_equal(o.packets, 4 * 9);

	/* a bad opcode in segment 1: decoding resumes at segment 2's PSB */
	trace[seg_off[1] + 33] = 0x02;
	trace[seg_off[1] + 34] = 0xff;
	memset(&o, 0, sizeof(o));
	assert_int_equal(marks_region_summary(&img, 0, trace_len, &s, NULL, observe, &o), 0);
	assert_int_equal(s.errors, 1);
	/* the resync crossed the gap too: one loss, reported once */
	assert_int_equal(o.lost, 1);
	assert_int_equal(o.lost_off, seg_off[2]);
	assert_int_equal(s.gaps, 1);
	assert_int_equal(s.packets, 4 * 9 - 2);
	assert_int_equal(o.packets, 4 * 9 - 2);
}

static void test_summary_job(void **state)
{
	struct marks_summary_job job = { 0 };
	struct observed o = { 0 };
	struct img_span span;
	static uint8_t big[8 << 20];
	struct img img;
	size_t i;
	int ret;

	build_trace();
	img_init_flat(&img, &span, trace, trace_len);
	job.img = &img;
	job.from = seg_off[1] + 30;
	job.to = trace_len;
	job.observe = observe;
	job.observe_ctx = &o;
	assert_int_equal(marks_summary_start(&job), 0);
	assert_int_equal(marks_summary_join(&job), 0);
	assert_int_equal(atomic_load(&job.progress.finished), 1);
	assert_int_equal(atomic_load(&job.progress.done), atomic_load(&job.progress.total));
	assert_int_equal(o.finals, 1);
	assert_int_equal(o.in_range, (int)job.sum.packets);
	assert_int_equal(o.packets, (int)job.sum.packets + 4);
	assert_true(job.sum.has_time);

	/* cancel a big one before it starts: it stops at the first check */
	for (i = 0; i + sizeof(psb) + 1 <= sizeof(big); i += sizeof(psb) + 1) {
		memcpy(big + i, psb, sizeof(psb));
		big[i + sizeof(psb)] = 0;
	}
	img_init_flat(&img, &span, big, sizeof(big));
	memset(&job, 0, sizeof(job));
	job.img = &img;
	job.from = 0;
	job.to = sizeof(big);
	assert_int_equal(marks_summary_start(&job), 0);
	marks_summary_cancel(&job);
	ret = marks_summary_join(&job);
	assert_true(ret == 0 || ret == -pte_canceled);
	assert_int_equal(atomic_load(&job.progress.finished), 1);
	/* synchronously, a preset cancel always stops */
	{
		struct marks_progress p = { 0 };
		struct marks_summary s;

		atomic_store(&p.cancel, 1);
		assert_int_equal(marks_region_summary(&img, 0, sizeof(big), &s, &p, NULL, NULL),
				 -pte_canceled);
		assert_true(s.packets < sizeof(big) / (sizeof(psb) + 1));
		assert_int_equal(atomic_load(&p.finished), 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_null, clean),
		cmocka_unit_test_setup(test_empty_open_writes_nothing, clean),
		cmocka_unit_test_setup(test_round_trip, clean),
		cmocka_unit_test_setup(test_all_bytes, clean),
		cmocka_unit_test_setup(test_hand_edited, clean),
		cmocka_unit_test_setup(test_changes, clean),
		cmocka_unit_test_setup(test_next_resolve, clean),
		cmocka_unit_test_setup(test_history, clean),
		cmocka_unit_test_setup(test_corrupt, clean),
		cmocka_unit_test_setup(test_future_version, clean),
		cmocka_unit_test_setup(test_changed_trace, clean),
		cmocka_unit_test_setup(test_import_export, clean),
		cmocka_unit_test_setup(test_import_limits, clean),
		cmocka_unit_test_setup(test_unwritable, clean),
		cmocka_unit_test_setup(test_no_state_and_cap, clean),
		cmocka_unit_test_setup(test_two_writers, clean),
		cmocka_unit_test_setup(test_lock_busy, clean),
		cmocka_unit_test_setup(test_lock_close, clean),
		cmocka_unit_test_setup(test_no_home, clean),
		cmocka_unit_test_setup(test_trace_grew, clean),
		cmocka_unit_test_setup(test_streams, clean),
		cmocka_unit_test_setup(test_explicit_file, clean),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_summary_errors),
		cmocka_unit_test(test_summary_time),
		cmocka_unit_test(test_summary_lost),
		cmocka_unit_test(test_summary_job),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
