/*
 * tm_config -- what the time model needs to know about the recording.
 * Filled from the command line (ptdump's option names), from perf.data's
 * AUXTRACE_INFO and TIME_CONV, or left unknown.  Each field has a have_
 * flag so "0" and "unknown" stay apart.
 */
#ifndef TM_CONFIG_H
#define TM_CONFIG_H

#include <stdint.h>

struct tm_config {
	uint8_t have_mtc_freq;
	uint8_t mtc_freq;	/* IA32_RTIT_CTL.MTCFreq */
	uint8_t have_nom_freq;
	uint8_t nom_freq;	/* P1, the max non-turbo ratio */
	uint8_t have_cpuid_15;
	uint32_t cpuid_15_eax;	/* TSC:ART ratio denominator */
	uint32_t cpuid_15_ebx;	/* TSC:ART ratio numerator */
	uint8_t have_tsc_hz;
	uint64_t tsc_hz;	/* TSC frequency, for wall-clock time */
	uint8_t have_perf_conv;	/* perf's TSC -> ns conversion */
	uint16_t time_shift;
	uint32_t time_mult;
	uint64_t time_zero;
	uint8_t have_cpu;
	uint16_t cpu_family;
	uint8_t cpu_model;
	uint8_t cpu_stepping;
	uint8_t have_cyc_thresh;
	uint8_t cyc_thresh;	/* IA32_RTIT_CTL.CycThresh, if known */
	uint8_t have_crystal_hz;
	uint32_t crystal_hz;	/* CPUID.15H ECX: the crystal (ART) clock */
};

/* Parse one ptdump-style timing option (--mtc-freq, --nom-freq,
 * --cpuid-0x15.eax, --cpuid-0x15.ebx, --cpu, --tsc-freq) with value @val
 * into @cfg.  Numbers are decimal, 0x.. hex or 0.. octal, as in ptdump;
 * --cpu takes f/m[/s] or "none"; --tsc-freq takes Hz with an optional
 * k, M or G prefix and Hz suffix ("2.1GHz", "2100000000").  Our own
 * --cpuid-0x15.ecx gives the crystal clock in Hz.
 * Returns 1 if @opt is a timing option and was applied, 0 if it is not a
 * timing option, -pte_invalid if @val is missing or bad. */
int tm_config_option(struct tm_config *cfg, const char *opt, const char *val);

/* Fill what @cfg lacks from @from (command-line values win). */
void tm_config_merge(struct tm_config *cfg, const struct tm_config *from);

/* Whether @cfg names a CPU with erratum SKL168 ("CYC packets can be
 * dropped when immediately preceding PSB"), the one erratum libipt applies
 * to timing: family 6, models 0x4e, 0x5e, 0x8e, 0x9e, 0xa5, 0xa6. */
int tm_config_skl168(const struct tm_config *cfg);

/* Whether libipt knows the errata of the CPU @cfg names (ptdump says
 * "failed to determine errata: unknown cpu" otherwise). */
int tm_config_cpu_known(const struct tm_config *cfg);

#endif /* TM_CONFIG_H */
