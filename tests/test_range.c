/* test_range -- TRACE[:FROM[-TO]] splitting: plain names, offsets, ranges,
 * names with colons that are not ranges, and TO not above FROM. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "range.h"

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
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
