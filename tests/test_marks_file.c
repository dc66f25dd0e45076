/* test_marks_file -- the marks file format: round trips, quoting, hand edits,
 * bad lines, versions, import and export. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "marks_fixture.h"


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

/* Comments of a hand-edited file survive saves: whole-line ones with the
 * entry they precede (in its place when the entries are sorted),
 * trailing ones with their entry, those at the end at the end, those
 * before the trace line there; a deleted entry takes its own with it; a
 * renamed one keeps them; another process's save and an import keep
 * them too.  (Before, the first save dropped them all.) */
static void test_comments_kept(void **state)
{
	static const char file[] =
		"# ptbrowse marks v1\n"
		"# before the trace line\n"
		"trace size=1048576 id=" ID " path=\"/t\"   # the trace\n"
		"# my investigation notes: hot loop found by Bob\n"
		"region hot 0x2000 0x3000 \"spin\"\n"
		"\n"
		"# about a\n"
		"mark a 0x10 # the first\n"
		"region cold 0x3000 0x4000   # second \"candidate\"\n"
		"bookmark gone 0x50\t# goes with it\n"
		"# the end\n";
	struct marks_set *set, *other;
	const char *text;
	FILE *f;

	write_file(state_file(ID ".marks"), file);
	assert_int_equal(marks_open(&set, ID, SIZE, "/t", &opts), 0);
	assert_int_equal(marks_count(set), 4);
	assert_int_equal(marks_bookmark_set(set, "third", 0x30, NULL), 0);
	text = read_file(state_file(ID ".marks"));
	assert_string_equal(text,
		"# ptbrowse marks v1\n"
		"# before the trace line\n"
		"trace size=1048576 id=" ID " path=\"/t\"   # the trace\n"
		"\n"
		"# about a\n"
		"mark a 0x10 # the first\n"
		"bookmark third 0x30\n"
		"bookmark gone 0x50\t# goes with it\n"
		"# my investigation notes: hot loop found by Bob\n"
		"region hot 0x2000 0x3000 \"spin\"\n"
		"region cold 0x3000 0x4000   # second \"candidate\"\n"
		"# the end\n");
	assert_int_equal(marks_delete(set, (size_t)marks_find(set, "gone")), 0);
	assert_int_equal(marks_rename(set, (size_t)marks_find(set, "cold"), "chilly"), 0);
	text = read_file(state_file(ID ".marks"));
	assert_null(strstr(text, "goes with it"));
	assert_non_null(strstr(text, "region chilly 0x3000 0x4000   # second \"candidate\"\n"));
	/* another process saves: ours keeps the file's comments */
	assert_int_equal(marks_open(&other, ID, SIZE, "/t", &opts), 0);
	assert_int_equal(marks_mark_set(other, 'b', 0x60, NULL), 0);
	assert_int_equal(marks_mark_set(set, 'c', 0x70, NULL), 0);
	marks_close(other);
	/* an import adds its entries with their comments */
	f = tmpfile();
	assert_non_null(f);
	fputs("# ptbrowse marks v1\n# imported note\nbookmark imp 0x80 # from afar\n", f);
	rewind(f);
	assert_int_equal(marks_import(set, f, "imp"), 0);
	fclose(f);
	marks_close(set);
	text = read_file(state_file(ID ".marks"));
	assert_non_null(strstr(text, "# about a\nmark a 0x10 # the first\n"));
	assert_non_null(strstr(text, "# my investigation notes: hot loop found by Bob\n"
			       "region hot 0x2000 0x3000"));
	assert_non_null(strstr(text, "# imported note\nbookmark imp 0x80 # from afar\n"));
	assert_non_null(strstr(text, "mark b 0x60\n"));
	assert_non_null(strstr(text, "mark c 0x70\n"));
	assert_non_null(strstr(text, "# before the trace line\ntrace "));
	assert_int_equal(strcmp(text + strlen(text) - 10, "# the end\n"), 0);
}

/* An entry past the end in the trace's own file is kept and not shown;
 * only a file a longer state shared (grown=) is said to hold a longer
 * state's mark: in another it is likely a typo, and said so.  (Before,
 * both claimed a longer state.) */
static void test_past_end_said(void **state)
{
	struct marks_set *set;

	write_file(state_file(ID ".marks"), "# ptbrowse marks v1\n"
		   "trace size=1048576 id=" ID "\nbookmark foo 0x99999999\n");
	msgs[0] = '\0';
	assert_int_equal(marks_open(&set, ID, SIZE, "/t", &opts), 0);
	assert_int_equal(marks_count(set), 0);
	assert_non_null(strstr(msgs, ":3: bookmark foo at 0x99999999 is past the end"));
	assert_null(strstr(msgs, "for a longer state"));
	assert_non_null(strstr(msgs, "if it is a typo, fix or delete the line"));
	marks_close(set);
	write_file(state_file(ID ".marks"), "# ptbrowse marks v1\n"
		   "trace size=1048576 grown=0x9999999a id=" ID "\nbookmark foo 0x99999999\n");
	msgs[0] = '\0';
	assert_int_equal(marks_open(&set, ID, SIZE, "/t", &opts), 0);
	assert_non_null(strstr(msgs, "(for a longer state of the trace)"));
	assert_null(strstr(msgs, "typo"));
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

/* Import @text (@len bytes) into @set as "t.marks"; returns what
 * marks_import() did. */
static int import_text(struct marks_set *set, const char *text, size_t len)
{
	FILE *f = fmemopen((void *)text, len, "r");
	int ret;

	assert_non_null(f);
	msgs[0] = '\0';
	ret = marks_import(set, f, "t.marks");
	fclose(f);
	return ret;
}

/* Export @set into a string (malloc'd) and skip to its first entry. */
static char *export_entries(struct marks_set *set, char **all)
{
	size_t len = 0;
	FILE *f = open_memstream(all, &len);
	char *p;

	assert_non_null(f);
	assert_int_equal(marks_export(set, f), 0);
	fclose(f);
	p = strstr(*all, "\ntrace ");
	assert_non_null(p);
	p = strchr(p + 1, '\n');
	assert_non_null(p);
	return p + 1;
}

/* What marks_export() writes, marks_import() reads back into an empty
 * set as the same entries, and exports as the same lines. */
static void test_export_import_same(void **state)
{
	struct marks_set *a, *b;
	char *all_a, *all_b, name[16];
	size_t i;

	assert_int_equal(marks_open(&a, ID, SIZE, "/t", &opts), 0);
	for (i = 0; i < sizeof(tricky) / sizeof(tricky[0]); i++) {
		snprintf(name, sizeof(name), "bm_%zu", i);
		assert_int_equal(marks_bookmark_set(a, name, 0x100 + i, tricky[i]), 0);
	}
	assert_int_equal(marks_mark_set(a, 'Q', 0xfffff, "last byte"), 0);
	assert_int_equal(marks_toggle(a, 0), 1);
	assert_int_equal(marks_region_set(a, "_r.1-x", 0, SIZE, NULL, "light_blue"), 0);
	assert_int_equal(marks_open(&b, ID2, SIZE, "/u", &opts), 0);
	export_entries(a, &all_a);
	assert_int_equal(import_text(b, all_a, strlen(all_a)), 0);
	free(all_a);	/* exported again below */
	assert_non_null(strstr(msgs, "t.marks: imported 10 marks, 0 conflicts, 0 bad lines"));
	assert_int_equal(marks_count(b), marks_count(a));
	for (i = 0; i < marks_count(a); i++) {
		const struct marks_entry *x = marks_at(a, i), *y = marks_at(b, i);

		assert_int_equal(x->kind, y->kind);
		assert_string_equal(x->name, y->name);
		assert_int_equal(x->from, y->from);
		assert_int_equal(x->to, y->to);
		assert_string_equal(x->color, y->color);
		assert_string_equal(x->note ? x->note : "(none)", y->note ? y->note : "(none)");
	}
	assert_string_equal(export_entries(a, &all_a), export_entries(b, &all_b));
	free(all_a);
	free(all_b);
	marks_close(a);
	marks_close(b);
}

/* Each kind of bad line is named with its line number; good lines around
 * them still load. */
static void test_bad_lines(void **state)
{
	static const char batch1[] =
		"# ptbrowse marks v1\n"
		"mark a 1 2 3 4 5 6 7 8\n"
		"mark b 1 \"\\x4g\"\n"
		"mark c 1 \"a\" \"b\"\n"
		"mark d 1 color=red\n"
		"region rg 1 2 color=bad!\n"
		"mark e 0x10 # fine\n";
	static const char batch2[] =
		"# ptbrowse marks v1\n"
		"# ptbrowse marks v1\n"
		"trace size=12 bogus=1\n"
		"region rg 5 5\n"
		"\"mark\" f 1\n"
		"bookmark - 0x20 \"ok\"\n";
	static const char batch3[] = "# ptbrowse marks v1\nmark g 1\0x\nmark h 2\n";
	struct marks_set *set;
	char *big, note[BM_NOTE_MAX + 1];
	size_t len;

	assert_int_equal(marks_open(&set, ID, SIZE, "/t", &opts), 0);
	assert_int_equal(import_text(set, batch1, sizeof(batch1) - 1), 0);
	assert_non_null(strstr(msgs, "t.marks:2: too many fields\n"));
	assert_non_null(strstr(msgs, "t.marks:3: bad \\x escape (two hex digits, not 00)\n"));
	assert_non_null(strstr(msgs, "t.marks:4: more than one note\n"));
	assert_non_null(strstr(msgs, "t.marks:5: unexpected field\n"));
	assert_non_null(strstr(msgs, "t.marks:6: bad colour"));
	assert_non_null(strstr(msgs, "imported 1 marks, 0 conflicts, 5 bad lines"));

	assert_int_equal(import_text(set, batch2, sizeof(batch2) - 1), 0);
	assert_non_null(strstr(msgs, "t.marks:2: a second header line\n"));
	assert_non_null(strstr(msgs, "t.marks:3: bad trace field"));
	assert_non_null(strstr(msgs, "t.marks:4: a region must end after it starts\n"));
	assert_non_null(strstr(msgs, "t.marks:5: unknown line"));
	assert_non_null(strstr(msgs, "imported 1 marks, 0 conflicts, 4 bad lines"));

	assert_int_equal(import_text(set, batch3, sizeof(batch3) - 1), 0);
	assert_non_null(strstr(msgs, "t.marks:2: a NUL byte in the line\n"));
	assert_non_null(strstr(msgs, "imported 1 marks, 0 conflicts, 1 bad lines"));

	/* a note of BM_NOTE_MAX bytes is too long; a line past BM_LINE_MAX
	 * is not read at all */
	memset(note, 'n', sizeof(note) - 1);
	note[sizeof(note) - 1] = '\0';
	len = 2 * sizeof(note) + 256;
	big = malloc(len);
	assert_non_null(big);
	snprintf(big, len, "# ptbrowse marks v1\nmark i 3 \"%s\"\nmark j 4 \"%.*s\"\n",
		 note, BM_NOTE_MAX - 1, note);
	assert_int_equal(import_text(set, big, strlen(big)), 0);
	assert_non_null(strstr(msgs, "t.marks:2: note too long\n"));
	assert_int_equal(strlen(marks_at(set, (size_t)marks_find(set, "j"))->note),
			 BM_NOTE_MAX - 1);
	free(big);
	len = BM_NOTE_MAX * 5 + 2048;
	big = malloc(len);
	assert_non_null(big);
	strcpy(big, "# ptbrowse marks v1\nmark k 5 \"");
	memset(big + strlen(big), 'k', len - strlen(big));
	strcpy(big + len - 16, "\"\nmark l 6\n");
	assert_int_equal(import_text(set, big, strlen(big)), 0);
	assert_non_null(strstr(msgs, "t.marks:2: line too long\n"));
	assert_true(marks_find(set, "l") >= 0);
	assert_int_equal(marks_find(set, "k"), -1);
	free(big);
	marks_close(set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_round_trip, clean),
		cmocka_unit_test_setup(test_all_bytes, clean),
		cmocka_unit_test_setup(test_hand_edited, clean),
		cmocka_unit_test_setup(test_comments_kept, clean),
		cmocka_unit_test_setup(test_past_end_said, clean),
		cmocka_unit_test_setup(test_corrupt, clean),
		cmocka_unit_test_setup(test_future_version, clean),
		cmocka_unit_test_setup(test_import_export, clean),
		cmocka_unit_test_setup(test_import_limits, clean),
		cmocka_unit_test_setup(test_export_import_same, clean),
		cmocka_unit_test_setup(test_bad_lines, clean),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
