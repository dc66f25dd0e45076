/* test_timing_opt -- the timing options shared by dump, index and the
 * browser, "--cpu auto" included. */
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

/* The command-line forms: "--opt VALUE", "--opt=VALUE", errors. */
static void test_arg(void **state)
{
	char *argv[] = { "info", "--mtc-freq", "4", "--nom-freq=12", "--json",
			 "--tsc-freq", "x", "--cpu" };
	int argc = (int)(sizeof(argv) / sizeof(argv[0])), i;
	struct tm_config cfg;

	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	i = 1;
	assert_int_equal(timing_arg(&cfg, argc, argv, &i, "info"), 1);
	assert_int_equal(i, 2);		/* on the value: the caller's i++ passes it */
	assert_int_equal(cfg.mtc_freq, 4);
	i = 3;
	assert_int_equal(timing_arg(&cfg, argc, argv, &i, "info"), 1);
	assert_int_equal(i, 3);
	assert_int_equal(cfg.nom_freq, 12);
	i = 4;
	assert_int_equal(timing_arg(&cfg, argc, argv, &i, "info"), 0);
	i = 5;
	assert_int_equal(timing_arg(&cfg, argc, argv, &i, "info"), -1);
	i = 7;
	assert_int_equal(timing_arg(&cfg, argc, argv, &i, "info"), -1);
	i = 0;
	assert_int_equal(timing_arg(&cfg, argc, argv, &i, "info"), 0);
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
