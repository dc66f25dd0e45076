/* test_timefmt -- times between TSCs (ui/timefmt.h): with perf's
 * conversion a time_zero near 2^64 must not round a difference to a
 * double's step there (2048 ns), as :stalls' gaps were. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "timefmt.h"
#include "ui.h"

/* A browser state with quipper's perf.data.intel_pt-4.14 clock. */
static struct ui *quipper_ui(void)
{
	struct ui *ui = calloc(1, sizeof(*ui));

	assert_non_null(ui);
	ui->tmcfg.have_perf_conv = 1;
	ui->tmcfg.time_shift = 31;
	ui->tmcfg.time_mult = 1789569706;
	ui->tmcfg.time_zero = 18446744041015200657ull;
	return ui;
}

static void test_perf_diff(void **state)
{
	struct ui *ui = quipper_ui();

	(void)state;
	/* :stalls' gap at 0xdf36 of cpu3: 43050 ticks, 35.874 us by
	 * perf's conversion (it showed 36.864 us) */
	assert_true(timefmt_tsc_diff(ui, 0, 43050) == 35874.0);
	/* 400 ticks are 333 ns, not 2.048 us */
	assert_true(timefmt_tsc_diff(ui, 0, 400) == 333.0);
	assert_true(timefmt_tsc_diff(ui, 400, 0) == -333.0);
	assert_true(timefmt_tsc_diff(ui, 0, 0) == 0.0);
	/* a time_zero that wraps the sum past 2^64 */
	ui->tmcfg.time_zero = UINT64_MAX - 100;
	assert_true(timefmt_tsc_diff(ui, 0, 43050) == 35874.0);
	free(ui);
}

/* Without perf's conversion: the frequency, the same tick count from
 * any start the same time (the lists and :iterations agreed to 1 ns). */
static void test_hz_diff(void **state)
{
	struct ui *ui = calloc(1, sizeof(*ui));

	(void)state;
	assert_non_null(ui);
	assert_true(isnan(timefmt_tsc_diff(ui, 0, 1)));
	ui->tmcfg.have_tsc_hz = 1;
	ui->tmcfg.tsc_hz = 1200000000;
	assert_true(timefmt_tsc_diff(ui, 0, 173425) == 144520.0);
	assert_true(fabs(timefmt_tsc_diff(ui, 0x106d0fd0e46cull,
					  0x106d0fd0e46cull + 173425) - 144520.0) <= 1.0);
	free(ui);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_perf_diff),
		cmocka_unit_test(test_hz_diff),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
