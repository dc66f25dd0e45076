/* test_status -- the status line's note (ui/status.h): whole where it
 * fits, cut with an ellipsis where a few words fit, else left out, never
 * past the width (the index progress bar is drawn right of it). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "status.h"

#define NOTE "cycles from the segment's PSB until indexed"

/* Display columns of UTF-8 @s. */
static int cols(const char *s)
{
	int c = 0;

	for (; *s; s++)
		c += ((unsigned char)*s & 0xc0) != 0x80;
	return c;
}

/* The note on @text within @width columns, into @buf. */
static size_t add(char *buf, size_t size, const char *text, const char *note, int width,
		  int utf8)
{
	size_t len = (size_t)snprintf(buf, size, "%s", text);

	return status_add_note(buf, size, len, note, width, utf8);
}

static void test_whole(void **state)
{
	char buf[256];
	size_t len = add(buf, sizeof(buf), " 0xa3d8  cyc #?", NOTE, 100, 1);

	assert_string_equal(buf, " 0xa3d8  cyc #?  [" NOTE "]");
	assert_int_equal(len, strlen(buf));
	/* exactly as wide as the width */
	len = add(buf, sizeof(buf), "abc", NOTE, 3 + 4 + cols(NOTE), 1);
	assert_string_equal(buf, "abc  [" NOTE "]");
}

/* The b2.pt line of the review: 100 columns, the bar's 24 on the right.
 * The note went on whole and the bar was drawn over its end. */
static void test_cut(void **state)
{
	const char *text = " 0xa3d8/0x800000 0.5%  cyc #?  tsc ~0x1078ca5a9bea  ~+380033t";
	char buf[256];

	add(buf, sizeof(buf), text, NOTE, 76, 1);
	assert_true(cols(buf) <= 76);
	assert_memory_equal(buf, text, strlen(text));
	assert_string_equal(buf + strlen(text), "  [cycles…]");
	/* without UTF-8; cut at the end of a word */
	add(buf, sizeof(buf), text, NOTE, 80, 0);
	assert_true(cols(buf) <= 80);
	assert_string_equal(buf + strlen(text), "  [cycles from...]");
	/* a multi-byte character is never cut in two */
	add(buf, sizeof(buf), "x", "ééééééééééééééé", 17, 1);
	assert_string_equal(buf, "x  [ééééééééééé…]");
	assert_int_equal(cols(buf), 17);
}

static void test_dropped(void **state)
{
	char buf[256];
	const char *text = "0123456789012345678901234567890123456789";
	size_t len = add(buf, sizeof(buf), text, NOTE, 50, 1);

	/* "  [" "…]" and fewer than 8 characters: no stub */
	assert_string_equal(buf, text);
	assert_int_equal(len, strlen(text));
	/* the text alone wider than the width: nothing added */
	len = add(buf, sizeof(buf), text, NOTE, 20, 1);
	assert_string_equal(buf, text);
	/* a full buffer stays full */
	memset(buf, 'x', 15);
	buf[15] = 0;
	assert_int_equal(status_add_note(buf, 16, 15, NOTE, 200, 1), 15);
	assert_int_equal(strlen(buf), 15);
	/* a buffer too small for the note: cut, terminated */
	assert_int_equal(status_add_note(buf, 20, 3, NOTE, 200, 1), 19);
	assert_int_equal(strlen(buf), 19);
}

/* The fields of the review's 80-column line: the search's rank, the
 * segment count and the TSC were cut mid-number; whole fields go now,
 * the highest rank first. */
static void test_fit(void **state)
{
	struct status_field f[] = {
		{ " 0x2666666", 0, 0, 0 }, { "/0x30000000", 6, 0, 0 }, { " 5.0%", 1, 0, 0 },
		{ "  tip", 3, 0, 0 }, { " #33618979", 8, 0, 0 }, { "  psb 98113/196227", 5, 0, 0 },
		{ "  tsc ~0x10f8b787e3b5", 7, 0, 0 }, { "  ~25.503762 ms", 4, 0, 0 },
		{ "  /tip [21286/42557]", 2, 0, 0 },
	};
	unsigned all = (1u << 9) - 1, keep;

	/* 115 columns in all */
	assert_int_equal(status_fit(f, 9, 115), all);
	/* the number goes first, then the TSC, the size, the segment; the
	 * number comes back where it fits again without the TSC */
	assert_int_equal(status_fit(f, 9, 114), all & ~(1u << 4));
	assert_int_equal(status_fit(f, 9, 104), all & ~(1u << 6));
	keep = status_fit(f, 9, 79);
	assert_int_equal(keep, all & ~(1u << 4 | 1u << 6 | 1u << 1));
	keep = status_fit(f, 9, 60);
	assert_int_equal(keep, all & ~(1u << 4 | 1u << 6 | 1u << 1 | 1u << 5));
	/* the search's rank outlasts the packet and its time */
	keep = status_fit(f, 9, 36);
	assert_int_equal(keep, 1u << 0 | 1u << 2 | 1u << 8);
	/* the offset stays, whatever the width */
	assert_int_equal(status_fit(f, 9, 12), 1u << 0);
	assert_int_equal(status_fit(f, 9, 3), 1u << 0);
	/* a tie: the later one goes first; empty fields never count */
	{
		struct status_field g[] = { { "aaaa", 0, 0, 0 }, { "", 9, 0, 0 }, { "bb", 1, 0, 0 }, { "cc", 1, 0, 0 } };

		assert_int_equal(status_fit(g, 4, 6), 1u << 0 | 1u << 1 | 1u << 2);
	}
}

/* A regression review's line: a filter, then a search too long for the
 * line, went whole, and with it every field dropped before it: the line
 * showed the offset alone.  A text loses its middle where that is enough,
 * and fields left out that fit again come back. */
static void test_fit_cut(void **state)
{
	struct status_field f[] = {
		{ " 0x11", 0, 0, 0 }, { " 0.0%", 2, 0, 0 }, { "  mode.exec", 4, 0, 0 },
		{ "  psb 0/1023", 6, 0, 0 },
		{ "  /tip.pge or tip.pgd or fup or mode.exec or psbend [-/0]", 3, 16, 0 },
		{ "  filter: psb or ovf or mode.exec or cbr", 1, 16, 0 },
	};
	unsigned keep;

	(void)state;
	keep = status_fit(f, 6, 79);
	/* 5 + 5 + 11 + 12 + 57 + 40 = 130: psb goes, then the type, then
	 * the search loses its middle (not the rest of the line) */
	assert_int_equal(keep, 1u << 0 | 1u << 1 | 1u << 4 | 1u << 5);
	assert_int_equal(f[4].cols, 79 - 5 - 5 - 40);
	assert_int_equal(f[5].cols, 40);
	/* too narrow for the search's fewest: it goes, the type comes back */
	keep = status_fit(f, 6, 61);
	assert_int_equal(keep, 1u << 0 | 1u << 1 | 1u << 2 | 1u << 5);
	assert_int_equal(f[2].cols, 11);
	/* the filter stays longest, cut */
	keep = status_fit(f, 6, 30);
	assert_int_equal(keep, 1u << 0 | 1u << 5);
	assert_int_equal(f[5].cols, 25);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_dropped),
		cmocka_unit_test(test_fit),
		cmocka_unit_test(test_fit_cut),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
