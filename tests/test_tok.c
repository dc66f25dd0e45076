/* test_tok -- the one tokenizer: words, quotes, escapes, dialects. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptdec.h"
#include "tok.h"

#define MAXW 8

/* Split @line with @flags and compare with the words in @want, separated
 * by '|' ("" for no words); a word that began with a quote is written
 * with a leading '@'. */
static void check(const char *line, unsigned flags, const char *want)
{
	char buf[256], got[512] = "", *argv[MAXW];
	int quoted[MAXW], n, i;
	struct tok_err err;

	n = tok_split(line, flags, buf, sizeof(buf), argv, quoted, MAXW, &err);
	if (n < 0)
		fail_msg("'%s': %s", line, err.msg);
	for (i = 0; i < n; i++) {
		if (i)
			strcat(got, "|");
		if (quoted[i] & TOK_Q_OPEN)
			strcat(got, "@");
		if (!(flags & TOK_QUOTES) && (quoted[i] & ~TOK_Q_OPEN))
			fail_msg("'%s': TOK_Q_* bits without TOK_QUOTES", line);
		strcat(got, argv[i]);
	}
	if (strcmp(got, want))
		fail_msg("'%s': got '%s', want '%s'", line, got, want);
}

/* Split @line with @flags, which must fail with @code at @off. */
static void check_fail(const char *line, unsigned flags, enum tok_fail code,
		       size_t off, const char *msg)
{
	char buf[256], *argv[MAXW];
	struct tok_err err;

	assert_int_equal(tok_split(line, flags, buf, sizeof(buf), argv, NULL,
				   MAXW, &err), -pte_invalid);
	assert_int_equal(err.code, code);
	assert_int_equal(err.off, off);
	if (msg)
		assert_string_equal(err.msg, msg);
}

static void test_null(void **state)
{
	char buf[8], *argv[2];
	struct tok_err err;

	assert_int_equal(tok_split(NULL, 0, buf, sizeof(buf), argv, NULL, 2, &err),
			 -pte_invalid);
	assert_int_equal(tok_split("a", 0, NULL, 8, argv, NULL, 2, &err), -pte_invalid);
	assert_int_equal(tok_split("a", 0, buf, 0, argv, NULL, 2, &err), -pte_invalid);
	assert_int_equal(tok_split("a", 0, buf, sizeof(buf), NULL, NULL, 2, &err),
			 -pte_invalid);
	assert_int_equal(tok_split("a", 0, buf, sizeof(buf), argv, NULL, 0, NULL),
			 -pte_invalid);
	assert_int_equal(tok_split("a b", 0, buf, sizeof(buf), argv, NULL, 2, NULL), 2);
}

static void test_blank(void **state)
{
	check("", TOK_MARKS, "");
	check(" \t\r\n", TOK_MARKS, "");
	check("# a comment", TOK_MARKS, "");
	check("  # a comment", TOK_KEYMAP, "");
	check("# not a comment", 0, "#|not|a|comment");
}

static void test_words(void **state)
{
	check("a b\tc\r\n", TOK_MARKS, "a|b|c");
	check("  a   b  ", TOK_KEYMAP, "a|b");
	check("a#b c # d", TOK_MARKS, "a#b|c");
	check("mark a 0x10 \"a note\"", TOK_MARKS, "mark|a|0x10|@a note");
	check("path=\"/a b/c\" x", TOK_MARKS, "path=/a b/c|x");
	check("\"\" x", TOK_MARKS, "@|x");
	check("a\"b c\"d", TOK_MARKS, "ab cd");
}

static void test_marks_dialect(void **state)
{
	check("\"\\\" \\\\ \\n \\t \\r \\x41\\x7e\"", TOK_MARKS, "@\" \\ \n \t \r A~");
	check("\"#x\" 'a b'", TOK_MARKS, "@#x|'a|b'");
	check("a\\ b", TOK_MARKS, "a\\|b");
	check_fail("mark a 0 \"abc", TOK_MARKS, TOK_UNTERMINATED, 9,
		   "missing closing \"");
	check_fail("x \"\\q\"", TOK_MARKS, TOK_BAD_ESCAPE, 3, NULL);
	check_fail("x \"\\x4\"", TOK_MARKS, TOK_BAD_HEX, 3,
		   "bad \\x escape (two hex digits, not 00)");
	check_fail("x \"\\x00\"", TOK_MARKS, TOK_BAD_HEX, 3, NULL);
	check_fail("x \"\\x", TOK_MARKS, TOK_BAD_HEX, 3, NULL);
	check_fail("x \"abc\\", TOK_MARKS, TOK_BAD_ESCAPE, 6, NULL);
	check_fail("1 2 3 4 5 6 7 8 9", TOK_MARKS, TOK_TOO_MANY, 16,
		   "too many words (at most 8)");
	check("1 2 3 4 5 6 7 8 # nine", TOK_MARKS, "1|2|3|4|5|6|7|8");
}

static void test_keymap_dialect(void **state)
{
	check("bind '#' next", TOK_KEYMAP, "bind|@#|next");
	check("bind \\# \\' \\\" \\\\ x", TOK_KEYMAP, "bind|#|'|\"|\\|x");
	check("a\\ b", TOK_KEYMAP, "a b");
	check("x \"a\\\"b\\\\c\\nd\"", TOK_KEYMAP, "x|@a\"b\\c\\nd");
	check("'a \"b\" \\c'", TOK_KEYMAP, "@a \"b\" \\c");
	check("x\\", TOK_KEYMAP, "x\\");
	check("-N \"two words\" q quit", TOK_KEYMAP, "-N|@two words|q|quit");
	check_fail("bind 'x", TOK_KEYMAP, TOK_UNTERMINATED, 5, "missing closing '");
}

static void test_too_long(void **state)
{
	char buf[4], *argv[4];
	struct tok_err err;

	assert_int_equal(tok_split("ab c", 0, buf, sizeof(buf), argv, NULL, 4, &err),
			 -pte_invalid);
	assert_int_equal(err.code, TOK_TOO_LONG);
	assert_string_equal(err.msg, "line too long");
	assert_int_equal(tok_split("ab", 0, buf, 3, argv, NULL, 4, &err), 1);
	assert_string_equal(argv[0], "ab");
}

/* tok_comment(): where a split would end the line, for a line taken as
 * typed (a config file's "goto 50% # middle"). */
static void test_comment(void **state)
{
	assert_int_equal(tok_comment("", 0), 0);
	assert_int_equal(tok_comment("goto 50%", 0), 8);
	assert_int_equal(tok_comment("goto 50% # middle", 0), 9);
	assert_int_equal(tok_comment("# all", 0), 0);
	assert_int_equal(tok_comment("goto #5", 0), 5);
	assert_int_equal(tok_comment("goto a#5", 0), 8);
	assert_int_equal(tok_comment("x \"a # b\" # c", 0), 10);
	assert_int_equal(tok_comment("x \"a \\\" # b\" # c", TOK_CESC), 13);
	/* a bad escape is not its to refuse; an open quote has no comment */
	assert_int_equal(tok_comment("x \"\\q\" # c", TOK_CESC), 7);
	assert_int_equal(tok_comment("x \"a # b", 0), 8);
	assert_int_equal(tok_comment("x 'a # b' # c", TOK_SINGLE), 10);
	assert_int_equal(tok_comment("x \\# # c", TOK_BSLASH), 5);
}

/* The line may be its own buffer: words never overtake the reading. */
static void test_in_place(void **state)
{
	char line[] = "\"a\\x41\" b\\ c \"d e\"f 'g h' i#j # k";
	char line2[] = "\\a 'b c'\\ d x";
	char *argv[MAXW];
	int quoted[MAXW];

	assert_int_equal(tok_split(line, TOK_MARKS, line, sizeof(line), argv,
				   quoted, MAXW, NULL), 7);
	assert_string_equal(argv[0], "aA");
	assert_int_equal(quoted[0], '"');
	assert_string_equal(argv[1], "b\\");
	assert_string_equal(argv[2], "c");
	assert_string_equal(argv[3], "d ef");
	assert_string_equal(argv[4], "'g");
	assert_string_equal(argv[5], "h'");
	assert_string_equal(argv[6], "i#j");

	assert_int_equal(tok_split(line2, TOK_KEYMAP, line2, sizeof(line2), argv,
				   quoted, MAXW, NULL), 3);
	assert_string_equal(argv[0], "a");
	assert_string_equal(argv[1], "b c d");
	assert_int_equal(quoted[1], '\'' | TOK_Q_SINGLE | TOK_Q_ESCAPED);
	assert_string_equal(argv[2], "x");
}

/* @quoted[i]: the quote the word began with, ' or " (it was 1 for
 * either, so a keymap's pipe could not tell '$HOME' from "$HOME"); with
 * TOK_QUOTES also how its characters were read (x'$HOME' and \$HOME
 * were just unquoted words). */
static void test_quote_kinds(void **state)
{
	static const struct {
		const char *line;
		unsigned flags;
		int want;
	} t[] = {
		{ "'$HOME'", TOK_KEYMAP, '\'' | TOK_Q_SINGLE },
		{ "\"$HOME\"", TOK_KEYMAP, '"' | TOK_Q_DOUBLE },
		{ "x'$HOME'", TOK_KEYMAP, TOK_Q_SINGLE },
		{ "\\$HOME", TOK_KEYMAP, TOK_Q_ESCAPED },
		{ "-F'\\t'", TOK_KEYMAP, TOK_Q_SINGLE },
		{ "abc-1.2_x/y:z,+=@%", TOK_KEYMAP, 0 },
		{ "\xc3\xa9t\xc3\xa9", TOK_KEYMAP, 0 },
		{ "$1", TOK_KEYMAP, TOK_Q_BARE },
		{ "a|b", TOK_KEYMAP, TOK_Q_BARE },
		{ "'a'$1", TOK_KEYMAP, '\'' | TOK_Q_SINGLE | TOK_Q_BARE },
		{ "\"a\"'b'", TOK_KEYMAP, '"' | TOK_Q_DOUBLE | TOK_Q_SINGLE },
		{ "''", TOK_KEYMAP, '\'' },
		{ "\"\"x", TOK_KEYMAP, '"' },
		/* without TOK_QUOTES the quote alone, as marks files take it */
		{ "'a'$1", TOK_SINGLE, '\'' },
		{ "x'a'", TOK_SINGLE, 0 },
		{ "'a'", 0, 0 },
		{ "\"a\"", TOK_MARKS, '"' },
	};
	char buf[64], *argv[2];
	int quoted[2];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		assert_int_equal(tok_split(t[i].line, t[i].flags, buf, sizeof(buf), argv,
					   quoted, 2, NULL), 1);
		if (quoted[0] != t[i].want)
			fail_msg("'%s': quoted 0x%x, want 0x%x", t[i].line,
				 (unsigned)quoted[0], (unsigned)t[i].want);
	}
}

/* tok_quote() gives back what tok_split() reads as the same word. */
static void test_quote_round_trip(void **state)
{
	static const char *const words[] = {
		"plain", "two words", "", "#hash", "a#b", "q\"uote", "back\\slash",
		"it's", "tab\there", "nl\nhere", "\x01\x7f", "\xc3\xa9t\xc3\xa9",
		"\\\"", "'", "-N",
	};
	static const unsigned dialects[] = { TOK_MARKS, TOK_KEYMAP, 0, TOK_CESC };
	size_t d, i;

	for (d = 0; d < sizeof(dialects) / sizeof(dialects[0]); d++) {
		char line[1024], buf[1024], *argv[32];
		size_t len = 0, nw = sizeof(words) / sizeof(words[0]);
		int n;

		line[0] = '\0';
		for (i = 0; i < nw; i++)
			assert_int_equal(tok_quote(line, sizeof(line), &len, words[i],
						   dialects[d]), 0);
		assert_int_equal(strlen(line), len);
		n = tok_split(line, dialects[d], buf, sizeof(buf), argv, NULL, 32, NULL);
		assert_int_equal(n, (int)nw);
		for (i = 0; i < nw; i++)
			assert_string_equal(argv[i], words[i]);
	}
}

static void test_quote_room(void **state)
{
	char out[8] = "abc";
	size_t len = 3;

	assert_int_equal(tok_quote(out, sizeof(out), &len, "defg", 0), -pte_invalid);
	assert_int_equal(len, 3);
	assert_string_equal(out, "abc");
	assert_int_equal(tok_quote(out, sizeof(out), &len, "def", 0), 0);
	assert_string_equal(out, "abc def");
	len = 0;
	assert_int_equal(tok_quote(out, sizeof(out), &len, "a b", TOK_MARKS), 0);
	assert_string_equal(out, "\"a b\"");
	len = 0;
	assert_int_equal(tok_quote(out, 5, &len, "a b", TOK_MARKS), -pte_invalid);
	assert_int_equal(tok_quote(NULL, 5, &len, "a", 0), -pte_invalid);
	assert_int_equal(tok_quote(out, 5, NULL, "a", 0), -pte_invalid);
	assert_int_equal(tok_quote(out, 5, &len, NULL, 0), -pte_invalid);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_blank),
		cmocka_unit_test(test_words),
		cmocka_unit_test(test_marks_dialect),
		cmocka_unit_test(test_keymap_dialect),
		cmocka_unit_test(test_too_long),
		cmocka_unit_test(test_comment),
		cmocka_unit_test(test_in_place),
		cmocka_unit_test(test_quote_kinds),
		cmocka_unit_test(test_quote_round_trip),
		cmocka_unit_test(test_quote_room),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
