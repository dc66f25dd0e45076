/* test_tm_config -- timing options, merging, and where the TSC frequency
 * comes from: the crystal of a CPU model that does not report it, and
 * the P1 estimate only when nothing better is known. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "ptdec.h"
#include "tm.h"
#include "tm_config.h"

/* @cfg from the options @opt[0..@n) (name, value pairs), then merged
 * with nothing, as every command does with a raw trace's stream. */
static void config(struct tm_config *cfg, const char *const *opt, size_t n)
{
	struct tm_config none;
	size_t i;

	memset(cfg, 0, sizeof(*cfg));
	memset(&none, 0, sizeof(none));
	for (i = 0; i + 1 < n; i += 2)
		assert_int_equal(tm_config_option(cfg, opt[i], opt[i + 1]), 1);
	tm_config_merge(cfg, &none);
}

static void test_null(void **state)
{
	(void)state;
	assert_int_equal(tm_config_crystal(NULL), 0);
	assert_int_equal(tm_config_tsc_source(NULL), TM_HZ_NONE);
	tm_config_merge(NULL, NULL);
}

/* Nothing known: ticks; P1 alone: an estimate. */
static void test_p1(void **state)
{
	static const char *const opt[] = { "--nom-freq", "32" };
	struct tm_config cfg;

	(void)state;
	config(&cfg, NULL, 0);
	assert_int_equal(tm_config_tsc_source(&cfg), TM_HZ_NONE);
	config(&cfg, opt, 2);
	assert_int_equal(tm_config_tsc_source(&cfg), TM_HZ_P1);
	assert_true(tm_tsc_hz(&cfg, 0) == 0);
	assert_true(tm_tsc_hz(&cfg, 1) == 3200000000ull);
}

/* The Alder Lake numbers: CPUID.15H 2/166 with the 38.4 MHz
 * crystal is 3.1872 GHz, not P1's 3.2 GHz; the model (0x9a) does not give
 * a crystal, so without ECX it stays the P1 estimate. */
static void test_cpuid_ecx(void **state)
{
	static const char *const opt[] = {
		"--cpu", "6/154/3", "--nom-freq", "32", "--cpuid-0x15.eax", "2",
		"--cpuid-0x15.ebx", "166", "--cpuid-0x15.ecx", "38400000",
	};
	struct tm_config cfg;

	(void)state;
	config(&cfg, opt, 10);
	assert_int_equal(tm_config_tsc_source(&cfg), TM_HZ_CPUID);
	assert_true(tm_tsc_hz(&cfg, 1) == 3187200000ull);
	config(&cfg, opt, 8);
	assert_int_equal(tm_config_crystal(&cfg), 0);
	assert_int_equal(tm_config_tsc_source(&cfg), TM_HZ_P1);
}

/* A model whose crystal the SDM and Linux know: Skylake client (the
 * quipper traces, 6/78) at 24 MHz gives 24 MHz * 100 / 2 = 1.2 GHz. */
static void test_model_crystal(void **state)
{
	static const char *const opt[] = {
		"--cpu", "6/78/3", "--nom-freq", "12", "--cpuid-0x15.eax", "2",
		"--cpuid-0x15.ebx", "100",
	};
	static const char *const skx[] = {
		"--cpu", "6/85/7", "--nom-freq", "37", "--cpuid-0x15.eax", "2",
		"--cpuid-0x15.ebx", "308",
	};
	struct tm_config cfg, perf;

	(void)state;
	config(&cfg, opt, 8);
	assert_int_equal(tm_config_crystal(&cfg), 24000000);
	assert_true(cfg.have_crystal_hz && cfg.crystal_model);
	assert_int_equal(tm_config_tsc_source(&cfg), TM_HZ_MODEL);
	assert_true(tm_tsc_hz(&cfg, 0) == 1200000000ull);
	/* Without CPUID.15H the crystal alone gives nothing. */
	config(&cfg, opt, 4);
	assert_false(cfg.have_crystal_hz);
	assert_int_equal(tm_config_tsc_source(&cfg), TM_HZ_P1);
	/* Xeon Scalable: 24 or 25 MHz, the model does not say. */
	config(&cfg, skx, 8);
	assert_int_equal(tm_config_crystal(&cfg), 0);
	assert_int_equal(tm_config_tsc_source(&cfg), TM_HZ_P1);
	/* --tsc-freq wins over CPUID, perf's conversion over both. */
	assert_int_equal(tm_config_option(&cfg, "--tsc-freq", "2GHz"), 1);
	assert_int_equal(tm_config_tsc_source(&cfg), TM_HZ_GIVEN);
	memset(&perf, 0, sizeof(perf));
	perf.have_perf_conv = 1;
	perf.time_shift = 31;
	perf.time_mult = 1 << 30;
	tm_config_merge(&cfg, &perf);
	assert_int_equal(tm_config_tsc_source(&cfg), TM_HZ_PERF);
	/* A model crystal merged from a stream stays a model crystal. */
	config(&cfg, opt, 8);
	memset(&perf, 0, sizeof(perf));
	tm_config_merge(&perf, &cfg);
	assert_true(perf.crystal_model);
}

/* Every conversion takes the source tm_config_tsc_source() names: with
 * perf's TIME_CONV (pt2perf's 600 >> 10: 1.7067 GHz) beside CPUID.15H
 * (2/100 on a 24 MHz crystal: 1.2 GHz) and --tsc-freq, tm_tsc_hz() is
 * perf's, as tm_tsc_to_ns() and tm_period_khz() are.  It gave CPUID's
 * (or --tsc-freq's): a time shown by perf's clock, targets and MHz by
 * another. */
static void test_perf_first(void **state)
{
	static const char *const opt[] = {
		"--cpu", "6/142/10", "--nom-freq", "24", "--cpuid-0x15.eax", "2",
		"--cpuid-0x15.ebx", "100", "--tsc-freq", "2.4GHz",
	};
	struct tm_config cfg, perf;
	struct tm_period p;
	uint64_t ns;

	(void)state;
	memset(&perf, 0, sizeof(perf));
	perf.have_perf_conv = 1;
	perf.time_shift = 10;
	perf.time_mult = 600;
	config(&cfg, opt, 8);
	tm_config_merge(&cfg, &perf);
	assert_int_equal(tm_config_tsc_source(&cfg), TM_HZ_PERF);
	assert_true(tm_tsc_hz(&cfg, 0) == 1706666667ull);
	assert_true(tm_tsc_hz(&cfg, 1) == 1706666667ull);
	/* 1024 ticks are 600 ns, by either */
	assert_int_equal(tm_tsc_to_ns(&cfg, 1024, &ns), 0);
	assert_true(ns == 600);
	assert_true(1024 * 1000000000ull / tm_tsc_hz(&cfg, 0) == 599);
	/* 100 cycles in 50 ticks (29.3 ns): 3413 MHz, not CPUID's 2400 */
	memset(&p, 0, sizeof(p));
	p.cycles = 100;
	p.ticks = 50;
	assert_int_equal(tm_period_khz(&cfg, &p, 0), 3413333);
	/* --tsc-freq given too: TIME_CONV still first (the man page's order) */
	config(&cfg, opt, 10);
	tm_config_merge(&cfg, &perf);
	assert_int_equal(tm_config_tsc_source(&cfg), TM_HZ_PERF);
	assert_true(tm_tsc_hz(&cfg, 0) == 1706666667ull);
	/* a time_mult of 0 is no conversion: --tsc-freq then, for both */
	perf.time_mult = 0;
	config(&cfg, opt, 10);
	tm_config_merge(&cfg, &perf);
	assert_int_equal(tm_config_tsc_source(&cfg), TM_HZ_GIVEN);
	assert_true(tm_tsc_hz(&cfg, 0) == 2400000000ull);
	assert_int_equal(tm_tsc_to_ns(&cfg, 2400, &ns), 0);
	assert_true(ns == 1000);
	/* shift 63, mult 1: no overflow, the largest Hz there is */
	perf.time_shift = 63;
	perf.time_mult = 1;
	memset(&cfg, 0, sizeof(cfg));
	tm_config_merge(&cfg, &perf);
	assert_true(tm_tsc_hz(&cfg, 0) == UINT64_MAX);
}

/* One half of CPUID.15H's ratio given: the other comes from the file
 * (it was zeroed, and with it the MTCs' timing); both given win whole. */
static void test_cpuid_half(void **state)
{
	struct tm_config cfg, file;

	(void)state;
	memset(&file, 0, sizeof(file));
	file.have_cpuid_15 = 1;
	file.cpuid_15_eax = 2;
	file.cpuid_15_ebx = 100;
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(tm_config_option(&cfg, "--cpuid-0x15.eax", "4"), 1);
	tm_config_merge(&cfg, &file);
	assert_int_equal(cfg.cpuid_15_eax, 4);
	assert_int_equal(cfg.cpuid_15_ebx, 100);
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(tm_config_option(&cfg, "--cpuid-0x15.ebx", "7"), 1);
	tm_config_merge(&cfg, &file);
	assert_int_equal(cfg.cpuid_15_eax, 2);
	assert_int_equal(cfg.cpuid_15_ebx, 7);
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(tm_config_option(&cfg, "--cpuid-0x15.ebx", "7"), 1);
	assert_int_equal(tm_config_option(&cfg, "--cpuid-0x15.eax", "3"), 1);
	tm_config_merge(&cfg, &file);
	assert_int_equal(cfg.cpuid_15_eax, 3);
	assert_int_equal(cfg.cpuid_15_ebx, 7);
	/* an options file's EBX, the command line's EAX, then the stream */
	memset(&cfg, 0, sizeof(cfg));
	memset(&file, 0, sizeof(file));
	assert_int_equal(tm_config_option(&cfg, "--cpuid-0x15.eax", "5"), 1);
	assert_int_equal(tm_config_option(&file, "--cpuid-0x15.ebx", "9"), 1);
	tm_config_merge(&cfg, &file);
	assert_int_equal(cfg.cpuid_15_eax, 5);
	assert_int_equal(cfg.cpuid_15_ebx, 9);
	assert_int_equal(cfg.cpuid_15_half, 0);
}

/* --cpu none (and --cpu auto on a CPU not Intel's) names no CPU: the
 * file's CPU stays out, as the rest of the command line wins option by
 * option (the merge took the file's 6/78/3 back, and SKL168 with it). */
static void test_cpu_none(void **state)
{
	struct tm_config cfg, file, out;

	(void)state;
	memset(&file, 0, sizeof(file));
	assert_int_equal(tm_config_option(&file, "--cpu", "6/78/3"), 1);
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(tm_config_option(&cfg, "--cpu", "none"), 1);
	tm_config_merge(&cfg, &file);
	assert_false(cfg.have_cpu);
	assert_int_equal(tm_config_skl168(&cfg), 0);
	/* none after a CPU, on the same command line */
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(tm_config_option(&cfg, "--cpu", "6/85/4"), 1);
	assert_int_equal(tm_config_option(&cfg, "--cpu", "none"), 1);
	tm_config_merge(&cfg, &file);
	assert_false(cfg.have_cpu);
	/* an options file's none, under a command line that says nothing,
	 * over the stream's CPU */
	memset(&out, 0, sizeof(out));
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(tm_config_option(&cfg, "--cpu", "none"), 1);
	tm_config_merge(&out, &cfg);
	tm_config_merge(&out, &file);
	assert_false(out.have_cpu);
	/* nothing said: the file's CPU */
	memset(&cfg, 0, sizeof(cfg));
	tm_config_merge(&cfg, &file);
	assert_true(cfg.have_cpu);
	assert_int_equal(tm_config_skl168(&cfg), 1);
}

/* Numbers are unsigned and all of the value: a sign or a leading blank
 * is refused (strtoul took them, and "-18446744073709551611" wrapped to
 * 5). */
static void test_numbers(void **state)
{
	static const char *const bad[][2] = {
		{ "--mtc-freq", " -18446744073709551611" },
		{ "--mtc-freq", "+3" },
		{ "--mtc-freq", " 3" },
		{ "--nom-freq", " -0" },
		{ "--nom-freq", "-0" },
		{ "--cpuid-0x15.eax", "\t2" },
		{ "--cpuid-0x15.ebx", "-1" },
		{ "--cpuid-0x15.ecx", " 24000000" },
		{ "--cpu", "-18446744073709551610/78" },
		{ "--cpu", "6/-178" },
		{ "--cpu", "6/ 78" },
		{ "--cpu", "6/78/+3" },
		{ "--cpu", " 6/78" },
		{ "--cpu", "6/78/ -3" },
		{ "--cpu", "" },
		{ "--cpu", "6/" },
	};
	struct tm_config cfg;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&cfg, 0, sizeof(cfg));
		assert_int_equal(tm_config_option(&cfg, bad[i][0], bad[i][1]),
				 -pte_invalid);
		assert_false(cfg.have_mtc_freq || cfg.have_nom_freq ||
			     cfg.have_cpuid_15 || cfg.have_crystal_hz ||
			     cfg.have_cpu);
	}
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(tm_config_option(&cfg, "--cpu", "0x6/0x4e/03"), 1);
	assert_int_equal(cfg.cpu_model, 0x4e);
	assert_int_equal(cfg.cpu_stepping, 3);
	assert_int_equal(tm_config_option(&cfg, "--mtc-freq", "0x3"), 1);
	assert_int_equal(cfg.mtc_freq, 3);
	assert_int_equal(tm_config_option(&cfg, "--nom-freq", "0"), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_p1),
		cmocka_unit_test(test_cpuid_ecx),
		cmocka_unit_test(test_model_crystal),
		cmocka_unit_test(test_cpuid_half),
		cmocka_unit_test(test_perf_first),
		cmocka_unit_test(test_cpu_none),
		cmocka_unit_test(test_numbers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
