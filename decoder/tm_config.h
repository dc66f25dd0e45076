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
	uint8_t cpuid_15_half;	/* 0: both halves below given; TM_CPUID15_EAX
				 * or _EBX: only that one (an option; the
				 * merge takes the other from the file) */
	uint32_t cpuid_15_eax;	/* TSC:ART ratio denominator */
	uint32_t cpuid_15_ebx;	/* TSC:ART ratio numerator */
	uint8_t have_tsc_hz;
	uint64_t tsc_hz;	/* TSC frequency, for wall-clock time */
	uint8_t have_perf_conv;	/* perf's TSC -> ns conversion */
	uint16_t time_shift;
	uint32_t time_mult;
	uint64_t time_zero;
	uint8_t have_cpu;
	uint8_t cpu_none;	/* --cpu none (or auto on a CPU not Intel's)
				 * was given: no CPU, which a merge must
				 * not fill from a file */
	uint16_t cpu_family;
	uint8_t cpu_model;
	uint8_t cpu_stepping;
	uint8_t have_cyc_thresh;
	uint8_t cyc_thresh;	/* IA32_RTIT_CTL.CycThresh, if known */
	uint8_t have_crystal_hz;
	uint32_t crystal_hz;	/* CPUID.15H ECX: the crystal (ART) clock */
	uint8_t crystal_model;	/* crystal_hz is the CPU model's known
				 * crystal (tm_config_crystal()), not given */
};

/* struct tm_config's cpuid_15_half. */
#define TM_CPUID15_EAX	1
#define TM_CPUID15_EBX	2

/* Where the TSC frequency comes from (tm_config_tsc_source()). */
enum tm_hz_source {
	TM_HZ_NONE,		/* unknown: times stay in TSC ticks */
	TM_HZ_PERF,		/* perf's TIME_CONV (time_mult, time_shift) */
	TM_HZ_GIVEN,		/* --tsc-freq */
	TM_HZ_CPUID,		/* CPUID.15H: crystal (ECX) * EBX / EAX */
	TM_HZ_MODEL,		/* CPUID.15H EBX / EAX with the CPU model's
				 * known crystal */
	TM_HZ_P1,		/* an estimate: P1 (--nom-freq) * 100 MHz */
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

/* Fill what @cfg lacks from @from (command-line values win, a --cpu none
 * among them), then what
 * follows from the result: the crystal clock of a CPU that does not
 * report it (tm_config_crystal()) when CPUID.15H's ratio is known. */
void tm_config_merge(struct tm_config *cfg, const struct tm_config *from);

/* The crystal (ART) clock in Hz that CPUs of @cfg's family and model run
 * on although CPUID.15H ECX reports 0, as the SDM (Table "Nominal Core
 * Crystal Clock Frequency") and Linux (arch/x86/kernel/tsc.c) list them:
 * 24 MHz for 6th-9th generation Core (family 6, models 0x4e, 0x5e, 0x8e,
 * 0x9e), 19.2 MHz for Goldmont and Goldmont Plus (0x5c, 0x7a), 25 MHz
 * for Denverton (0x5f).  Xeon Scalable (0x55) is left out: parts with a
 * 24 MHz and a 25 MHz crystal share the model (Linux dropped it).
 * Returns the Hz, or 0 if unknown. */
uint32_t tm_config_crystal(const struct tm_config *cfg);

/* Where the TSC frequency that converts ticks to time comes from, in the
 * order used: perf's conversion, --tsc-freq, CPUID.15H with the crystal
 * (given, or the model's), else the P1 estimate.  Returns the source. */
enum tm_hz_source tm_config_tsc_source(const struct tm_config *cfg);

/* Whether @cfg names a CPU with erratum SKL168 ("CYC packets can be
 * dropped when immediately preceding PSB"), the one erratum libipt applies
 * to timing: family 6, models 0x4e, 0x5e, 0x8e, 0x9e, 0xa5, 0xa6. */
int tm_config_skl168(const struct tm_config *cfg);

/* Whether libipt knows the errata of the CPU @cfg names (ptdump says
 * "failed to determine errata: unknown cpu" otherwise). */
int tm_config_cpu_known(const struct tm_config *cfg);

#endif /* TM_CONFIG_H */
