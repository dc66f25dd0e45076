/* test_esc -- strings from files escaped for the terminal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "esc.h"

static void test_null_and_empty(void **state)
{
	char buf[8] = "xx";
	uint32_t cp;

	assert_string_equal(esc_str(buf, sizeof(buf), NULL), "");
	assert_string_equal(esc_str(buf, sizeof(buf), ""), "");
	assert_int_equal(esc_utf8((const unsigned char *)"", 0, &cp), 0);
	esc_str(buf, 0, "abc");		/* no room at all: untouched */
	assert_string_equal(buf, "");
	esc_fputs(stdout, NULL);
}

static void test_utf8(void **state)
{
	static const struct {
		const char *s;
		size_t len;
		uint32_t cp;
	} t[] = {
		{ "A", 1, 'A' },
		{ "\xc3\xa9", 2, 0xe9 },
		{ "\xe2\x82\xac", 3, 0x20ac },
		{ "\xf0\x9f\x98\x80", 4, 0x1f600 },
		{ "\xf4\x8f\xbf\xbf", 4, 0x10ffff },
		{ "\xc0\x80", 0, 0 },		/* overlong NUL */
		{ "\xc1\xbf", 0, 0 },		/* overlong */
		{ "\xe0\x80\xaf", 0, 0 },	/* overlong '/' */
		{ "\xf0\x80\x80\xaf", 0, 0 },	/* overlong */
		{ "\xed\xa0\x80", 0, 0 },	/* a surrogate */
		{ "\xf4\x90\x80\x80", 0, 0 },	/* past U+10FFFF */
		{ "\xf5\x80\x80\x80", 0, 0 },
		{ "\xff", 0, 0 },
		{ "\x80", 0, 0 },		/* a lone continuation byte */
		{ "\xc3", 0, 0 },		/* cut short */
		{ "\xe2\x82", 0, 0 },
		{ "\xe2\x28\xa1", 0, 0 },	/* a bad continuation */
	};
	uint32_t cp;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		cp = 0;
		assert_int_equal(esc_utf8((const unsigned char *)t[i].s,
					  strlen(t[i].s), &cp), t[i].len);
		if (t[i].len)
			assert_int_equal(cp, t[i].cp);
	}
}

static void test_escapes(void **state)
{
	char buf[256];

	assert_string_equal(esc_str(buf, sizeof(buf), "GenuineIntel,6,85,7"),
			    "GenuineIntel,6,85,7");
	assert_string_equal(esc_str(buf, sizeof(buf), "a\x1b]0;pwned\x07z"),
			    "a\\x1b]0;pwned\\x07z");
	assert_string_equal(esc_str(buf, sizeof(buf), "\t\n\r\x7f"),
			    "\\x09\\x0a\\x0d\\x7f");
	/* C1 CSI, raw and in UTF-8 */
	assert_string_equal(esc_str(buf, sizeof(buf), "\x9b" "31m\xc2\x9b" "1m"),
			    "\\x9b31m\\xc2\\x9b1m");
	/* printable UTF-8 passes; bidi override and zero-width space do not */
	assert_string_equal(esc_str(buf, sizeof(buf), "caf\xc3\xa9 \xe2\x82\xac"),
			    "caf\xc3\xa9 \xe2\x82\xac");
	assert_string_equal(esc_str(buf, sizeof(buf), "\xe2\x80\xae" "abc\xe2\x80\x8b"),
			    "\\xe2\\x80\\xae" "abc\\xe2\\x80\\x8b");
	/* Latin-1 bytes are not UTF-8 */
	assert_string_equal(esc_str(buf, sizeof(buf), "na\xefve"), "na\\xefve");
	assert_string_equal(esc_str(buf, sizeof(buf), "a\\b"), "a\\b");
}

static void test_cut_short(void **state)
{
	char buf[6];

	/* never half an escape or half a character */
	assert_string_equal(esc_str(buf, sizeof(buf), "ab\x1b" "cd"), "ab");
	assert_string_equal(esc_str(buf, sizeof(buf), "a\x1b" "cd"), "a\\x1b");
	assert_string_equal(esc_str(buf, sizeof(buf), "abc\xe2\x82\xac"), "abc");
	assert_string_equal(esc_str(buf, sizeof(buf), "abcdefgh"), "abcde");
}

static void test_fputs(void **state)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	esc_fputs(f, "x\x1b[2Jy\xc3\xa9\xff");
	fclose(f);
	assert_string_equal(out, "x\\x1b[2Jy\xc3\xa9\\xff");
	free(out);
}

/* A message naming a file: the prefix as is, the rest escaped, one line. */
static void test_line(void **state)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	(void)state;
	assert_non_null(f);
	esc_line(f, "ptbrowse x: ", "%s: %s", "a\x1b[31m\nb", "no such file");
	fclose(f);
	assert_string_equal(out, "ptbrowse x: a\\x1b[31m\\x0ab: no such file\n");
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null_and_empty),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_cut_short),
		cmocka_unit_test(test_fputs),
		cmocka_unit_test(test_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
