/* test_xdg -- XDG directory lookup and mkdir -p. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "ptdec.h"
#include "xdg.h"

static char tmpdir[] = "/tmp/test_xdg.XXXXXX";

static int setup(void **state)
{
	if (!mkdtemp(tmpdir))
		return -1;
	unsetenv("XDG_CONFIG_HOME");
	unsetenv("XDG_STATE_HOME");
	unsetenv("XDG_CACHE_HOME");
	setenv("HOME", tmpdir, 1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return helpers_rm_rf(tmpdir);
}

static void test_null(void **state)
{
	char buf[64];

	assert_int_equal(xdg_path(XDG_STATE, NULL, NULL, 0, NULL, 0), -pte_invalid);
	assert_int_equal(xdg_path((enum xdg_kind)9, NULL, buf, sizeof(buf), NULL, 0),
			 -pte_invalid);
	assert_int_equal(xdg_mkdir_p(NULL, 0700, NULL, 0), -pte_invalid);
	assert_int_equal(xdg_mkdir_p("", 0700, NULL, 0), -pte_invalid);
}

static void test_defaults(void **state)
{
	char buf[4096], want[4096];

	assert_int_equal(xdg_path(XDG_CONFIG, NULL, buf, sizeof(buf), NULL, 0), 0);
	snprintf(want, sizeof(want), "%s/.config/ptbrowse", tmpdir);
	assert_string_equal(buf, want);
	assert_int_equal(xdg_path(XDG_STATE, "traces", buf, sizeof(buf), NULL, 0), 0);
	snprintf(want, sizeof(want), "%s/.local/state/ptbrowse/traces", tmpdir);
	assert_string_equal(buf, want);
	assert_int_equal(xdg_path(XDG_CACHE, "", buf, sizeof(buf), NULL, 0), 0);
	snprintf(want, sizeof(want), "%s/.cache/ptbrowse", tmpdir);
	assert_string_equal(buf, want);
}

static void test_env(void **state)
{
	char buf[4096];

	setenv("XDG_STATE_HOME", "/somewhere/state", 1);
	assert_int_equal(xdg_path(XDG_STATE, "x", buf, sizeof(buf), NULL, 0), 0);
	assert_string_equal(buf, "/somewhere/state/ptbrowse/x");
	/* relative values are ignored */
	setenv("XDG_STATE_HOME", "rel/state", 1);
	assert_int_equal(xdg_path(XDG_STATE, NULL, buf, sizeof(buf), NULL, 0), 0);
	assert_non_null(strstr(buf, "/.local/state/ptbrowse"));
	unsetenv("XDG_STATE_HOME");
}

static void test_no_home(void **state)
{
	char buf[64], err[256] = "";

	unsetenv("HOME");
	assert_int_equal(xdg_path(XDG_CACHE, NULL, buf, sizeof(buf), err, sizeof(err)),
			 -pte_bad_config);
	assert_non_null(strstr(err, "XDG_CACHE_HOME"));
	setenv("HOME", tmpdir, 1);
}

static void test_too_long(void **state)
{
	char buf[8], err[256] = "";

	assert_int_equal(xdg_path(XDG_CACHE, NULL, buf, sizeof(buf), err, sizeof(err)),
			 -pte_nomem);
	assert_non_null(strstr(err, "too long"));
}

static void test_mkdir(void **state)
{
	char buf[4096], err[512] = "";
	struct stat st;

	assert_int_equal(xdg_dir(XDG_STATE, "traces", buf, sizeof(buf), err, sizeof(err)), 0);
	assert_int_equal(stat(buf, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	/* again: already there */
	assert_int_equal(xdg_dir(XDG_STATE, "traces", buf, sizeof(buf), err, sizeof(err)), 0);
}

static void test_mkdir_blocked(void **state)
{
	char path[4096], err[512] = "";
	FILE *f;

	/* a file where a directory should be stops even root */
	snprintf(path, sizeof(path), "%s/blocker", tmpdir);
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/blocker/sub/dir", tmpdir);
	assert_int_equal(xdg_mkdir_p(path, 0700, err, sizeof(err)), -pte_io);
	assert_non_null(strstr(err, "cannot create directory"));
	assert_non_null(strstr(err, "blocker"));
	snprintf(path, sizeof(path), "%s/blocker", tmpdir);
	assert_int_equal(xdg_mkdir_p(path, 0700, err, sizeof(err)), -pte_io);
	assert_non_null(strstr(err, "in the way"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_env),
		cmocka_unit_test(test_no_home),
		cmocka_unit_test(test_too_long),
		cmocka_unit_test(test_mkdir),
		cmocka_unit_test(test_mkdir_blocked),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
