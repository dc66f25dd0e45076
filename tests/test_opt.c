/* test_opt -- the option tables every subcommand parses its argv with:
 * operands in order, the forms of an option, --, --help, the errors'
 * exit statuses, and the --help text the tables generate. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt.h"

enum { T_OUT, T_STREAM, T_JSON, T_BAD, T_FILE, T_N };

static const struct opt test_opts[] = {
	{ NULL, 'o', "FILE", "the output", T_OUT },
	{ "stream", 0, "S", "the stream", T_STREAM },
	{ "json", 'j', NULL, "JSON\nof two lines", T_JSON },
	{ "bad", 0, "X", "always refused", T_BAD },
	{ "file", 0, "F", "a file that cannot be read", T_FILE },
	{ "hidden", 0, NULL, NULL, T_N },
	{ 0 }
};

static int calls;

static int take(const struct opt_cmd *cmd, void *ctx, const struct opt *o,
		const char *val)
{
	calls++;
	if (o->id == T_BAD)
		return -EINVAL;
	if (o->id == T_FILE)
		return -EIO;
	if (o->id == T_N)
		return 0;
	return opt_take_str(cmd, ctx, o, val);
}

static const char *got[T_N];
static const struct opt_group group = { "options:", test_opts, take, got };
static const struct opt_cmd cmd = { "ptbrowse test", "usage: ptbrowse test\n",
				    &group, 1 };

/* Parse the NULL-ended words after "test". */
static int parse(char **argv)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	memset(got, 0, sizeof(got));
	calls = 0;
	return opt_parse(&cmd, argc, argv);
}

static void test_operands(void **state)
{
	char *none[] = { "test", NULL };
	char *av[] = { "test", "a", "--json", "-", "--stream", "s1", "b", "", NULL };
	char *dd[] = { "test", "--", "--json", "-o", NULL };

	(void)state;
	assert_int_equal(parse(none), 0);
	assert_int_equal(parse(av), 4);
	assert_string_equal(av[1], "a");
	assert_string_equal(av[2], "-");
	assert_string_equal(av[3], "b");
	assert_string_equal(av[4], "");
	assert_string_equal(got[T_JSON], "");
	assert_string_equal(got[T_STREAM], "s1");
	/* after --, options are operands */
	assert_int_equal(parse(dd), 2);
	assert_string_equal(dd[1], "--json");
	assert_string_equal(dd[2], "-o");
	assert_null(got[T_JSON]);
}

static void test_forms(void **state)
{
	char *av[] = { "test", "--stream=x=y", "-o", "-", "-j", "--stream", "-1",
		       "--hidden", NULL };
	char *empty[] = { "test", "--stream=", NULL };

	(void)state;
	assert_int_equal(parse(av), 0);
	/* the last one wins; a value may start with '-' */
	assert_string_equal(got[T_STREAM], "-1");
	assert_string_equal(got[T_OUT], "-");
	assert_string_equal(got[T_JSON], "");
	assert_int_equal(calls, 5);
	assert_int_equal(parse(empty), 0);
	assert_string_equal(got[T_STREAM], "");
}

static void test_errors(void **state)
{
	char *unknown[] = { "test", "--jso", NULL };	/* no abbreviations */
	char *unknown_short[] = { "test", "-x", NULL };
	char *bundled[] = { "test", "-jo", "f", NULL };
	char *missing[] = { "test", "--stream", NULL };
	char *missing_short[] = { "test", "a", "-o", NULL };
	char *flag_value[] = { "test", "--json=1", NULL };
	char *bad[] = { "test", "--bad", "v", NULL };
	char *file[] = { "test", "--file", "f", "--json", NULL };

	(void)state;
	assert_int_equal(parse(unknown), -EINVAL);
	assert_int_equal(parse(unknown_short), -EINVAL);
	assert_int_equal(parse(bundled), -EINVAL);
	assert_int_equal(parse(missing), -EINVAL);
	assert_int_equal(parse(missing_short), -EINVAL);
	assert_int_equal(parse(flag_value), -EINVAL);
	assert_int_equal(calls, 0);
	assert_int_equal(parse(bad), -EINVAL);
	assert_int_equal(parse(file), -EIO);
	assert_null(got[T_JSON]);	/* stopped at the trouble */
	assert_int_equal(opt_one_trace(&cmd, 0, unknown), -EINVAL);
	assert_int_equal(opt_one_trace(&cmd, 2, bad), -EINVAL);
	assert_int_equal(opt_one_trace(&cmd, 1, bad), 0);
	assert_int_equal(opt_status(-EINVAL), 2);
	assert_int_equal(opt_status(-ERANGE), 2);
	assert_int_equal(opt_status(-EIO), 1);
	assert_int_equal(opt_status(-ECANCELED), 0);
}

/* --help: the usage text, then the table; hidden rows are not listed. */
static void test_help(void **state)
{
	static const char want[] =
		"usage: ptbrowse test\n"
		"\n"
		"options:\n"
		"  -o FILE          the output\n"
		"  --stream S       the stream\n"
		"  -j, --json       JSON\n"
		"                   of two lines\n"
		"  --bad X          always refused\n"
		"  --file F         a file that cannot be read\n"
		"  -h, --help       this text\n";
	char buf[1024];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	size_t n;

	(void)state;
	assert_non_null(f);
	opt_usage(&cmd, f);
	n = (size_t)ftell(f);
	fclose(f);
	buf[n < sizeof(buf) ? n : sizeof(buf) - 1] = 0;
	assert_string_equal(buf, want);
}

/* An option longer than the column pushes its text two spaces right. */
static void test_long_row(void **state)
{
	static const struct opt o[] = {
		{ "keep-tcal-on-ovf", 0, NULL, "keep", 0 },
		{ "no-wall-clock", 0, NULL, "print", 0 },
		{ 0 }
	};
	char buf[256];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	size_t n;

	(void)state;
	assert_non_null(f);
	opt_print(o, f);
	n = (size_t)ftell(f);
	fclose(f);
	buf[n] = 0;
	assert_string_equal(buf, "  --keep-tcal-on-ovf  keep\n"
				 "  --no-wall-clock  print\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_operands),
		cmocka_unit_test(test_forms),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_long_row),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
