/* test_pipe_ui -- pipe's line: the format, the rows, the command. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "pipe_ui.h"
#include "ptdec.h"

static void test_empty(void **state)
{
	struct pipe_req r;
	char err[128] = "";

	assert_int_equal(pipe_ui_parse(NULL, &r, err, sizeof(err)), -pte_invalid);
	assert_non_null(strstr(err, "no command"));
	assert_int_equal(pipe_ui_parse("   ", &r, err, sizeof(err)), -pte_invalid);
	assert_int_equal(pipe_ui_parse("raw", &r, err, sizeof(err)), -pte_invalid);
	assert_int_equal(pipe_ui_parse("text region hot", &r, err, sizeof(err)),
			 -pte_invalid);
	assert_int_equal(pipe_ui_parse("region", &r, err, sizeof(err)), -pte_invalid);
	assert_non_null(strstr(err, "which region"));
	assert_int_equal(pipe_ui_parse("rows 0 wc", &r, err, sizeof(err)), -pte_invalid);
	assert_int_equal(pipe_ui_parse("rows 5x wc", &r, err, sizeof(err)), -pte_invalid);
	assert_int_equal(pipe_ui_parse("rows wc", &r, err, sizeof(err)), -pte_invalid);
}

static void test_command_only(void **state)
{
	struct pipe_req r;
	char err[128];

	assert_int_equal(pipe_ui_parse("  wc -l | sort  ", &r, err, sizeof(err)), 0);
	assert_string_equal(r.cmd, "wc -l | sort  ");
	assert_int_equal(r.raw, 0);
	assert_string_equal(r.region, "");
	assert_int_equal(r.rows, 0);
}

static void test_words(void **state)
{
	struct pipe_req r;
	char err[128];

	assert_int_equal(pipe_ui_parse("raw region hot ptdump /dev/stdin", &r, err,
				       sizeof(err)), 0);
	assert_int_equal(r.raw, 1);
	assert_string_equal(r.region, "hot");
	assert_string_equal(r.cmd, "ptdump /dev/stdin");
	/* Either order; the format once, the rows once. */
	assert_int_equal(pipe_ui_parse("rows 100 text wc -l", &r, err, sizeof(err)), 0);
	assert_int_equal(r.raw, 0);
	assert_int_equal(r.rows, 100);
	assert_string_equal(r.cmd, "wc -l");
	assert_int_equal(pipe_ui_parse("rows 0x10 grep tip", &r, err, sizeof(err)), 0);
	assert_int_equal(r.rows, 16);
	/* A second format word is the command's. */
	assert_int_equal(pipe_ui_parse("text raw", &r, err, sizeof(err)), 0);
	assert_string_equal(r.cmd, "raw");
	/* -- ends the words: a command called "region". */
	assert_int_equal(pipe_ui_parse("text -- region x", &r, err, sizeof(err)), 0);
	assert_string_equal(r.cmd, "region x");
	assert_string_equal(r.region, "");
	/* A word that only starts like one is the command. */
	assert_int_equal(pipe_ui_parse("rawdump -x", &r, err, sizeof(err)), 0);
	assert_string_equal(r.cmd, "rawdump -x");
	assert_int_equal(r.raw, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_command_only),
		cmocka_unit_test(test_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
