/* test_timing_opt -- the timing options shared by dump, index and the
 * browser, "--cpu auto" included. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "ptdec.h"
#include "timing_opt.h"

static void test_cpu(void **state)
{
	struct tm_config cfg;

	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(timing_option(&cfg, "--cpu", "6/85/4"), 1);
	assert_true(cfg.have_cpu);
	assert_int_equal(cfg.cpu_family, 6);
	assert_int_equal(cfg.cpu_model, 85);
	assert_int_equal(cfg.cpu_stepping, 4);
	assert_int_equal(timing_option(&cfg, "--cpu", "none"), 1);
	assert_false(cfg.have_cpu);
	/* This machine, whatever it is: Intel's family is 6 or >= 15. */
	assert_int_equal(timing_option(&cfg, "--cpu", "auto"), 1);
	if (cfg.have_cpu)
		assert_true(cfg.cpu_family == 6 || cfg.cpu_family >= 15);
	assert_int_equal(timing_option(&cfg, "--cpu", "bogus"), -pte_invalid);
	assert_int_equal(timing_option(&cfg, "--cpu", NULL), -pte_invalid);
}

static void test_others(void **state)
{
	struct tm_config cfg;

	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(timing_option(&cfg, "--mtc-freq", "3"), 1);
	assert_true(cfg.have_mtc_freq);
	assert_int_equal(cfg.mtc_freq, 3);
	assert_int_equal(timing_option(&cfg, "--tsc-freq", "2.1GHz"), 1);
	assert_true(cfg.have_tsc_hz);
	assert_int_equal(timing_option(&cfg, "--no-such", "1"), 0);
	assert_int_equal(timing_option(&cfg, "--nom-freq", "x"), -pte_invalid);
}

/* The command-line forms through opt.h: "--opt VALUE", "--opt=VALUE",
 * errors. */
static void test_arg(void **state)
{
	struct tm_config cfg;
	const struct opt_group g = { TIMING_OPT_HEADING, timing_opts, timing_opt_take, &cfg };
	const struct opt_cmd cmd = { "ptbrowse info", "usage\n", &g, 1 };
	char *ok[] = { "info", "--mtc-freq", "4", "--nom-freq=12", "T", "--cpu", "auto" };
	char *bad[] = { "info", "--tsc-freq", "x" };
	char *missing[] = { "info", "--cpu" };
	char *unknown[] = { "info", "--json" };

	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(opt_parse(&cmd, 7, ok), 1);
	assert_string_equal(ok[1], "T");
	assert_int_equal(cfg.mtc_freq, 4);
	assert_int_equal(cfg.nom_freq, 12);
	assert_int_equal(opt_parse(&cmd, 3, bad), -EINVAL);
	assert_int_equal(opt_parse(&cmd, 2, missing), -EINVAL);
	assert_int_equal(opt_parse(&cmd, 2, unknown), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpu),
		cmocka_unit_test(test_others),
		cmocka_unit_test(test_arg),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
