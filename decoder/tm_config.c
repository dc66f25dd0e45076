/*
 * tm_config -- timing options with ptdump's names, and merging them with
 * what a perf.data file says.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ptdec.h"
#include "tm_config.h"

/* Parse an unsigned number at @s as ptdump does (strtoull base 0) into
 * @v, leaving @end after it.  A digit must come first: strtoull skips
 * blanks and takes a sign, and "-18446744073709551611" would wrap to 5.
 * Returns 0, or -pte_invalid if there is no number or it exceeds @max. */
static int parse_num(const char *s, uint64_t max, uint64_t *v, char **end)
{
	if (!s || !isdigit((unsigned char)*s))
		return -pte_invalid;
	errno = 0;
	*v = strtoull(s, end, 0);
	if (errno || *v > max)
		return -pte_invalid;
	return 0;
}

/* Parse an unsigned number that is all of @s.
 * Returns 0, or -pte_invalid if @s is empty, has junk or exceeds @max. */
static int parse_uint(const char *s, uint64_t max, uint64_t *v)
{
	char *end;

	if (parse_num(s, max, v, &end) < 0 || *end)
		return -pte_invalid;
	return 0;
}

/* "f/m[/s]", each part a number, or "none" (cpu_none: the merge keeps
 * it). */
static int parse_cpu(struct tm_config *cfg, const char *s)
{
	uint64_t f, m, st = 0;
	char *end;

	if (!strcmp(s, "none")) {
		cfg->cpu_none = 1;
		cfg->have_cpu = 0;
		cfg->cpu_family = 0;
		cfg->cpu_model = 0;
		cfg->cpu_stepping = 0;
		return 0;
	}
	if (parse_num(s, UINT16_MAX, &f, &end) < 0 || *end != '/')
		return -pte_invalid;
	if (parse_num(end + 1, UINT8_MAX, &m, &end) < 0)
		return -pte_invalid;
	if (*end == '/' && parse_num(end + 1, UINT8_MAX, &st, &end) < 0)
		return -pte_invalid;
	if (*end)
		return -pte_invalid;
	cfg->cpu_none = 0;
	cfg->have_cpu = 1;
	cfg->cpu_family = (uint16_t)f;
	cfg->cpu_model = (uint8_t)m;
	cfg->cpu_stepping = (uint8_t)st;
	return 0;
}

/* Half @half of CPUID.15H's ratio given in @cfg: with the other given
 * too, the ratio is whole. */
static void cfg_cpuid_half(struct tm_config *cfg, uint8_t half)
{
	if (!cfg->have_cpuid_15)
		cfg->cpuid_15_half = half;
	else if (cfg->cpuid_15_half && cfg->cpuid_15_half != half)
		cfg->cpuid_15_half = 0;
	cfg->have_cpuid_15 = 1;
}

/* Hz with an optional decimal fraction, k/M/G prefix and "Hz" suffix. */
static int parse_hz(const char *s, uint64_t *hz)
{
	double v, mul = 1;
	char *end;

	if (!s || !*s || *s == '-')
		return -pte_invalid;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s)
		return -pte_invalid;
	switch (*end) {
	case 'k': case 'K': mul = 1e3; end++; break;
	case 'M': mul = 1e6; end++; break;
	case 'G': mul = 1e9; end++; break;
	}
	if (!strcmp(end, "Hz") || !strcmp(end, "hz"))
		end += 2;
	if (*end)
		return -pte_invalid;
	v *= mul;
	if (!(v >= 1) || v > 1e12)
		return -pte_invalid;
	*hz = (uint64_t)(v + 0.5);
	return 0;
}

int tm_config_option(struct tm_config *cfg, const char *opt, const char *val)
{
	uint64_t v;

	if (!cfg || !opt)
		return -pte_invalid;
	if (!strcmp(opt, "--mtc-freq")) {
		if (parse_uint(val, 15, &v) < 0)
			return -pte_invalid;
		cfg->have_mtc_freq = 1;
		cfg->mtc_freq = (uint8_t)v;
	} else if (!strcmp(opt, "--nom-freq")) {
		if (parse_uint(val, UINT8_MAX, &v) < 0)
			return -pte_invalid;
		cfg->have_nom_freq = 1;
		cfg->nom_freq = (uint8_t)v;
	} else if (!strcmp(opt, "--cpuid-0x15.eax")) {
		if (parse_uint(val, UINT32_MAX, &v) < 0)
			return -pte_invalid;
		cfg_cpuid_half(cfg, TM_CPUID15_EAX);
		cfg->cpuid_15_eax = (uint32_t)v;
	} else if (!strcmp(opt, "--cpuid-0x15.ebx")) {
		if (parse_uint(val, UINT32_MAX, &v) < 0)
			return -pte_invalid;
		cfg_cpuid_half(cfg, TM_CPUID15_EBX);
		cfg->cpuid_15_ebx = (uint32_t)v;
	} else if (!strcmp(opt, "--cpuid-0x15.ecx")) {
		if (parse_uint(val, UINT32_MAX, &v) < 0 || !v)
			return -pte_invalid;
		cfg->have_crystal_hz = 1;
		cfg->crystal_hz = (uint32_t)v;
	} else if (!strcmp(opt, "--cpu")) {
		if (!val || parse_cpu(cfg, val) < 0)
			return -pte_invalid;
	} else if (!strcmp(opt, "--tsc-freq")) {
		if (parse_hz(val, &v) < 0)
			return -pte_invalid;
		cfg->have_tsc_hz = 1;
		cfg->tsc_hz = v;
	} else {
		return 0;
	}
	return 1;
}

void tm_config_merge(struct tm_config *cfg, const struct tm_config *from)
{
	if (!cfg || !from)
		return;
	if (!cfg->have_mtc_freq && from->have_mtc_freq) {
		cfg->have_mtc_freq = 1;
		cfg->mtc_freq = from->mtc_freq;
	}
	if (!cfg->have_nom_freq && from->have_nom_freq) {
		cfg->have_nom_freq = 1;
		cfg->nom_freq = from->nom_freq;
	}
	/* EAX and EBX are one ratio, but an option gives one half: the
	 * other comes from @from (option by option, as the man page says;
	 * it zeroed the other half, and MTC timing with it). */
	if (!cfg->have_cpuid_15 && from->have_cpuid_15) {
		cfg->have_cpuid_15 = 1;
		cfg->cpuid_15_half = from->cpuid_15_half;
		cfg->cpuid_15_eax = from->cpuid_15_eax;
		cfg->cpuid_15_ebx = from->cpuid_15_ebx;
	} else if (cfg->cpuid_15_half && from->have_cpuid_15 &&
		   (!from->cpuid_15_half || from->cpuid_15_half != cfg->cpuid_15_half)) {
		if (cfg->cpuid_15_half == TM_CPUID15_EAX)
			cfg->cpuid_15_ebx = from->cpuid_15_ebx;
		else
			cfg->cpuid_15_eax = from->cpuid_15_eax;
		cfg->cpuid_15_half = 0;
	}
	if (!cfg->have_tsc_hz && from->have_tsc_hz) {
		cfg->have_tsc_hz = 1;
		cfg->tsc_hz = from->tsc_hz;
	}
	if (!cfg->have_perf_conv && from->have_perf_conv) {
		cfg->have_perf_conv = 1;
		cfg->time_shift = from->time_shift;
		cfg->time_mult = from->time_mult;
		cfg->time_zero = from->time_zero;
	}
	/* "--cpu none" stays: have_cpu alone cannot tell it from nothing
	 * said. */
	if (!cfg->have_cpu && !cfg->cpu_none &&
	    (from->have_cpu || from->cpu_none)) {
		cfg->cpu_none = from->cpu_none;
		cfg->have_cpu = from->have_cpu;
		cfg->cpu_family = from->cpu_family;
		cfg->cpu_model = from->cpu_model;
		cfg->cpu_stepping = from->cpu_stepping;
	}
	if (!cfg->have_cyc_thresh && from->have_cyc_thresh) {
		cfg->have_cyc_thresh = 1;
		cfg->cyc_thresh = from->cyc_thresh;
	}
	if (!cfg->have_crystal_hz && from->have_crystal_hz) {
		cfg->have_crystal_hz = 1;
		cfg->crystal_hz = from->crystal_hz;
		cfg->crystal_model = from->crystal_model;
	}
	if (!cfg->have_crystal_hz && cfg->have_cpuid_15 && tm_config_crystal(cfg)) {
		cfg->have_crystal_hz = 1;
		cfg->crystal_hz = tm_config_crystal(cfg);
		cfg->crystal_model = 1;
	}
}

uint32_t tm_config_crystal(const struct tm_config *cfg)
{
	if (!cfg || !cfg->have_cpu || cfg->cpu_family != 6)
		return 0;
	switch (cfg->cpu_model) {
	case 0x4e: case 0x5e: case 0x8e: case 0x9e:
		return 24000000;
	case 0x5c: case 0x7a:
		return 19200000;
	case 0x5f:
		return 25000000;
	default:
		return 0;
	}
}

enum tm_hz_source tm_config_tsc_source(const struct tm_config *cfg)
{
	if (!cfg)
		return TM_HZ_NONE;
	/* (a time_mult of 0 stops perf's clock: no conversion) */
	if (cfg->have_perf_conv && cfg->time_shift < 64 && cfg->time_mult)
		return TM_HZ_PERF;
	if (cfg->have_tsc_hz && cfg->tsc_hz)
		return TM_HZ_GIVEN;
	if (cfg->have_crystal_hz && cfg->have_cpuid_15 && cfg->cpuid_15_eax &&
	    cfg->cpuid_15_ebx)
		return cfg->crystal_model ? TM_HZ_MODEL : TM_HZ_CPUID;
	if (cfg->have_nom_freq && cfg->nom_freq)
		return TM_HZ_P1;
	return TM_HZ_NONE;
}

int tm_config_skl168(const struct tm_config *cfg)
{
	if (!cfg || !cfg->have_cpu || cfg->cpu_family != 6)
		return 0;
	switch (cfg->cpu_model) {
	case 0x4e: case 0x5e: case 0x8e: case 0x9e: case 0xa5: case 0xa6:
		return 1;
	default:
		return 0;
	}
}

int tm_config_cpu_known(const struct tm_config *cfg)
{
	if (!cfg || !cfg->have_cpu)
		return 0;
	if (cfg->cpu_family == 0x13)
		return cfg->cpu_model == 0x01;
	if (cfg->cpu_family != 6)
		return 0;
	switch (cfg->cpu_model) {
	case 0x3d: case 0x47: case 0x4f: case 0x56:
	case 0x4e: case 0x5e: case 0x8e: case 0x9e: case 0xa5: case 0xa6:
	case 0x55: case 0x6a: case 0x6c: case 0x8f: case 0xad: case 0xae:
	case 0xcf:
	case 0x66: case 0x7d: case 0x7e: case 0x8c: case 0x8d: case 0xa7:
	case 0xa8:
	case 0x97: case 0x9a: case 0xbf: case 0xb7: case 0xb5: case 0xaa:
	case 0xac: case 0xba: case 0xcc: case 0xbd: case 0xc5: case 0xc6:
	case 0x5c: case 0x5f:
	case 0x7a: case 0x86: case 0x96: case 0x9c: case 0xb6: case 0xaf:
	case 0xdd:
		return 1;
	default:
		return 0;
	}
}
