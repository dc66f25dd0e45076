/* test_select -- the packet row under a drag's end, inside the pane and
 * past its edges. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "select.h"

static void test_no_rows(void **state)
{
	assert_int_equal(select_drag_row(1, 0, 5), -1);
	assert_int_equal(select_drag_row(1, 1, 1), -1);	/* a heading alone */
}

static void test_rows(void **state)
{
	/* A pane at line 1 of 10 lines: the heading, then rows 0..8. */
	assert_int_equal(select_drag_row(1, 10, 2), 0);
	assert_int_equal(select_drag_row(1, 10, 6), 4);
	assert_int_equal(select_drag_row(1, 10, 10), 8);
	/* Past the edges: the first and the last row. */
	assert_int_equal(select_drag_row(1, 10, 1), 0);
	assert_int_equal(select_drag_row(1, 10, 0), 0);
	assert_int_equal(select_drag_row(1, 10, 11), 8);
	assert_int_equal(select_drag_row(1, 10, 39), 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_rows),
		cmocka_unit_test(test_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
