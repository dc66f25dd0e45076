/*
 * test_ctdec -- a stream's decoder for call trees: bad arguments are
 * refused and NULL is fine where said; its use on a recording (the tree
 * of a range, pieces in parallel, the code index's fragments) is
 * test_ctidx's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "ctdec.h"
#include "ptdec.h"

static void test_null(void **state)
{
	struct ctdec *d = NULL;

	(void)state;
	assert_int_equal(ctdec_new(NULL, NULL, 0, NULL), -pte_invalid);
	assert_int_equal(ctdec_new(&d, NULL, 0, NULL), -pte_invalid);
	assert_null(d);
	assert_null(ctdec_flow(NULL));
	assert_null(ctdec_symfmt(NULL));
	ctdec_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
