/* test_cmd -- the command table (ui/cmd.h): the prompt's dialect of the
 * tokenizer, every action has exactly one row, a second row is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "action_list.h"
#include "cmd.h"
#include "cmd_tables.h"
#include "ptdec.h"
#include "tok.h"

static char buf[CMD_BUF], *argv[CMD_MAX_WORDS];
static int quoted[CMD_MAX_WORDS];
static struct tok_err e;

static int split(const char *line, unsigned flags)
{
	return tok_split(line, CMD_TOK | flags, buf, sizeof(buf), argv, quoted,
			 CMD_MAX_WORDS, &e);
}

/* The prompt's dialect: "..." with the marks file's escapes, and nothing
 * else quotes: 'a and `a are goto targets, #5 is packet 5. */
static void test_dialect(void **state)
{
	assert_int_equal(split("mark hot \"spin \\\"loop\\\"\\n\\x41\"", 0), 3);
	assert_string_equal(argv[2], "spin \"loop\"\nA");
	assert_int_equal(quoted[1], 0);
	assert_true(quoted[2]);
	assert_int_equal(split("region hot 'a 'b", 0), 4);
	assert_string_equal(argv[2], "'a");
	assert_string_equal(argv[3], "'b");
	assert_int_equal(split("goto #5 `a", 0), 3);
	assert_string_equal(argv[1], "#5");
	assert_int_equal(split("mark x it's", 0), 3);
	assert_string_equal(argv[2], "it's");
	/* a config file's line: # starts a comment */
	assert_int_equal(split("set raw on # show the bytes", TOK_COMMENT), 3);
	assert_int_equal(split("mark a \"b", 0), -pte_invalid);
}

static int test_run(struct ui *ui, const struct cmd_args *a)
{
	return 0;
}

static void test_table(void **state)
{
	static const struct cmd_row twice[] = { { ACTION_QUIT, test_run, CMD_NONE, 0, 0 } };
	static const struct cmd_row bad[] = { { ACTION__N, test_run, CMD_NONE, 0, 0 } };
	static CMD_TABLE(twice_cmds, twice);
	static CMD_TABLE(bad_cmds, bad);
	int a;

	assert_null(cmd_find(ACTION_NONE));
	assert_null(cmd_find(ACTION__N));
	assert_int_equal(cmd_tables_register(), 0);
	/* registering again is harmless */
	assert_int_equal(cmd_tables_register(), 0);
	/* every action has a row (the count prefixes too: typed at the
	 * prompt, they start the next key's count) */
	for (a = 0; a < ACTION__N; a++) {
		const struct cmd_row *row = cmd_find((enum action)a);

		if (!row)
			fail_msg("%s: no row", action_table[a].name);
		assert_int_equal(row->action, a);
		/* the keymap's commands split as a .keys line does */
		if (a == ACTION_BIND || a == ACTION_UNBIND || a == ACTION_SOURCE)
			assert_int_equal(row->tok, TOK_KEYMAP);
		/* a command taking arguments has a spec for them */
		if ((action_table[a].flags & ACT_ARGS) && row->spec == CMD_NONE)
			fail_msg("%s: takes arguments, spec none", action_table[a].name);
		/* and one without ACT_ARGS none: cmd_line() refuses any
		 * beyond its count or key, for every such row */
		if (!(action_table[a].flags & ACT_ARGS) && row->spec != CMD_NONE)
			fail_msg("%s: takes no arguments, has a spec", action_table[a].name);
	}
	/* a second row for an action is a bug */
	assert_int_equal(cmd_register(&twice_cmds), -pte_invalid);
	assert_int_equal(cmd_register(&bad_cmds), -pte_invalid);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dialect),
		cmocka_unit_test(test_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
