/* test_json -- JSON strings are valid UTF-8 JSON whatever the bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

/* json_string(@s) as a string (static). */
static const char *js(const char *s)
{
	static char buf[1024];
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	json_string(f, s);
	fclose(f);
	snprintf(buf, sizeof(buf), "%s", out);
	free(out);
	return buf;
}

static void test_null(void **state)
{
	assert_string_equal(js(NULL), "\"\"");
	assert_string_equal(js(""), "\"\"");
}

static void test_plain(void **state)
{
	assert_string_equal(js("cpu3"), "\"cpu3\"");
	assert_string_equal(js("say \"hi\"\\"), "\"say \\\"hi\\\"\\\\\"");
	assert_string_equal(js("a\nb\tc\x1b\x7f"), "\"a\\nb\\tc\\u001b\\u007f\"");
	assert_string_equal(js("caf\xc3\xa9 \xf0\x9f\x98\x80"), "\"caf\xc3\xa9 \xf0\x9f\x98\x80\"");
}

static void test_invalid_utf8(void **state)
{
	/* each byte that is not UTF-8 is one U+FFFD */
	assert_string_equal(js("na\xefve"), "\"na\\ufffdve\"");
	assert_string_equal(js("\xff\xfe"), "\"\\ufffd\\ufffd\"");
	assert_string_equal(js("\xc0\x80"), "\"\\ufffd\\ufffd\"");
	assert_string_equal(js("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\"");
	assert_string_equal(js("ab\xe2\x82"), "\"ab\\ufffd\\ufffd\"");
	/* C1 controls and bidi overrides are escaped, not passed */
	assert_string_equal(js("\xc2\x9b" "1m\xe2\x80\xae"), "\"\\u009b1m\\u202e\"");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_invalid_utf8),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
