/* test_range -- TRACE[:FROM[-TO]] splitting: plain names, offsets, ranges,
 * names with colons that are not ranges, files whose own names hold the
 * colon, 0x hex or decimal, and TO not above FROM. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <unistd.h>

#include "ptdec.h"
#include "range.h"
#include "trace.h"

static void test_split(void **state)
{
	char a[64];
	uint64_t from = 7, to = 7;
	int have = 9;

	(void)state;
	strcpy(a, "trace.pt");
	assert_int_equal(range_split(a, &from, &to, &have), 0);
	assert_string_equal(a, "trace.pt");
	assert_int_equal(have, 0);

	strcpy(a, "trace.pt:0x100");
	assert_int_equal(range_split(a, &from, &to, &have), 1);
	assert_string_equal(a, "trace.pt");
	assert_true(from == 0x100 && !have);

	strcpy(a, "dir:x/trace.pt:4096-0x2000");
	assert_int_equal(range_split(a, &from, &to, &have), 1);
	assert_string_equal(a, "dir:x/trace.pt");
	assert_true(from == 4096 && to == 0x2000 && have);

	/* not numbers: part of the name */
	strcpy(a, "c:trace");
	assert_int_equal(range_split(a, &from, &to, &have), 0);
	assert_string_equal(a, "c:trace");
	strcpy(a, "t:0x10-zz");
	assert_int_equal(range_split(a, &from, &to, &have), 0);
	strcpy(a, "t:");
	assert_int_equal(range_split(a, &from, &to, &have), 0);

	/* TO must be above FROM */
	strcpy(a, "t:0x20-0x20");
	assert_int_equal(range_split(a, &from, &to, &have), -1);

	/* hex with 0x, else decimal: a leading 0 is no octal */
	strcpy(a, "t:8196-0020");
	assert_int_equal(range_split(a, &from, &to, &have), -1);
	strcpy(a, "t:0020-8196");
	assert_int_equal(range_split(a, &from, &to, &have), 1);
	assert_true(from == 20 && to == 8196 && have);
	strcpy(a, "t:08196");
	assert_int_equal(range_split(a, &from, &to, &have), 1);
	assert_true(from == 8196 && !have);
	strcpy(a, "t:0X1f-0x20");
	assert_int_equal(range_split(a, &from, &to, &have), 1);
	assert_true(from == 0x1f && to == 0x20);
	/* no sign, no blank, no 0x without digits: not a range (t is no
	 * file here, so the name stays whole) */
	strcpy(a, "t:-1");
	assert_int_equal(range_split(a, &from, &to, &have), 0);
	strcpy(a, "t:0x10- 0x20");
	assert_int_equal(range_split(a, &from, &to, &have), 0);
	strcpy(a, "t:0x");
	assert_int_equal(range_split(a, &from, &to, &have), 0);
	strcpy(a, "t:99999999999999999999");
	assert_int_equal(range_split(a, &from, &to, &have), 0);
}

/* An existing file: its own name wins over a range suffix, and a suffix
 * after it that starts as a number but is no range is a bad range. */
static void test_split_file(void **state)
{
	char dir[] = "/tmp/test_range.XXXXXX", a[128], b[160];
	uint64_t from = 7, to = 7;
	int have = 9;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(a, sizeof(a), "%s/a:0x2004", dir);
	f = fopen(a, "w");
	assert_non_null(f);
	fclose(f);
	snprintf(b, sizeof(b), "%s", a);
	assert_int_equal(range_split(b, &from, &to, &have), 0);
	assert_string_equal(b, a);
	assert_int_equal(have, 0);
	snprintf(b, sizeof(b), "%s:0x10-0x20", a);
	assert_int_equal(range_split(b, &from, &to, &have), 1);
	assert_string_equal(b, a);
	assert_true(from == 0x10 && to == 0x20 && have);

	snprintf(b, sizeof(b), "%s:-1", a);
	assert_int_equal(range_split(b, &from, &to, &have), -1);
	snprintf(b, sizeof(b), "%s:0x10-", a);
	assert_int_equal(range_split(b, &from, &to, &have), -1);
	snprintf(b, sizeof(b), "%s:99999999999999999999", a);
	assert_int_equal(range_split(b, &from, &to, &have), -1);
	/* a name, or a path under a directory: no range meant */
	snprintf(b, sizeof(b), "%s:hot", a);
	assert_int_equal(range_split(b, &from, &to, &have), 0);
	snprintf(b, sizeof(b), "%s:1/x.pt", a);
	assert_int_equal(range_split(b, &from, &to, &have), 0);
	unlink(a);
	assert_int_equal(rmdir(dir), 0);
}

/* TRACE:NAME: split only when TRACE is a file and the whole is not. */
static void test_split_name(void **state)
{
	char dir[] = "/tmp/test_range.XXXXXX", a[64], b[128], err[256];
	const char *name = "x";
	struct trace *t;
	uint64_t from, to;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(a, sizeof(a), "%s/t.pt", dir);
	f = fopen(a, "w");
	assert_non_null(f);
	fputs("\002\202\002\202\002\202\002\202\002\202\002\202\002\202\002\202", f);
	fclose(f);

	snprintf(b, sizeof(b), "%s:hot", a);
	assert_int_equal(range_split_name(b, &name), 1);
	assert_string_equal(b, a);
	assert_string_equal(name, "hot");
	/* no such file before the colon, or a '/' after it: whole */
	snprintf(b, sizeof(b), "%s/nothere.pt:hot", dir);
	assert_int_equal(range_split_name(b, &name), 0);
	assert_null(name);
	assert_non_null(strstr(b, ":hot"));
	snprintf(b, sizeof(b), "%s:x/y", a);
	assert_int_equal(range_split_name(b, &name), 0);
	snprintf(b, sizeof(b), "%s:", a);
	assert_int_equal(range_split_name(b, &name), 0);
	/* a file whose name has the colon wins */
	snprintf(b, sizeof(b), "%s:hot", a);
	f = fopen(b, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(range_split_name(b, &name), 0);
	unlink(b);

	/* No marks: the name is not found, and the message says where. */
	setenv("XDG_STATE_HOME", dir, 1);
	assert_int_equal(trace_open(&t, a, err, sizeof(err)), 0);
	assert_int_equal(range_of_name(t, 0, "hot", &from, &to, err, sizeof(err)),
			 -pte_invalid);
	assert_non_null(strstr(err, "t.pt: no region, mark or bookmark 'hot'"));
	assert_int_equal(range_of_name(t, 1, "hot", &from, &to, err, sizeof(err)),
			 -pte_invalid);
	trace_close(t);
	snprintf(b, sizeof(b), "rm -rf '%s'", dir);
	assert_int_equal(system(b), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_split_file),
		cmocka_unit_test(test_split_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
