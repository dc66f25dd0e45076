/* timing_opt -- the timing options every command that decodes time takes. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "timing_opt.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

/* This machine's family/model/stepping, as libipt reads them; a CPU that
 * is not Intel's is "none" (cpu_none: a file's CPU does not fill it in). */
static void cpu_auto(struct tm_config *cfg)
{
	unsigned a, b, c, d, family, model;

	cfg->cpu_none = 1;
	cfg->have_cpu = 0;
	cfg->cpu_family = 0;
	cfg->cpu_model = 0;
	cfg->cpu_stepping = 0;
	if (!__get_cpuid(0, &a, &b, &c, &d) ||
	    b != 0x756e6547 || d != 0x49656e69 || c != 0x6c65746e)
		return;	/* not "GenuineIntel" */
	__get_cpuid(1, &a, &b, &c, &d);
	family = (a >> 8) & 0xf;
	model = (a >> 4) & 0xf;
	if (family == 0xf)
		family += (a >> 20) & 0xff;
	if (family == 0x6 || family >= 0xf)
		model += ((a >> 16) & 0xf) << 4;
	cfg->cpu_none = 0;
	cfg->have_cpu = 1;
	cfg->cpu_family = (uint16_t)family;
	cfg->cpu_model = (uint8_t)model;
	cfg->cpu_stepping = (uint8_t)(a & 0xf);
}
#else
static void cpu_auto(struct tm_config *cfg)
{
	cfg->cpu_none = 1;
	cfg->have_cpu = 0;
	cfg->cpu_family = 0;
	cfg->cpu_model = 0;
	cfg->cpu_stepping = 0;
}
#endif

int timing_option(struct tm_config *cfg, const char *opt, const char *val)
{
	if (opt && val && !strcmp(opt, "--cpu") && !strcmp(val, "auto")) {
		cpu_auto(cfg);
		return 1;
	}
	return tm_config_option(cfg, opt, val);
}

const struct opt timing_opts[] = {
	{ "cpu", 0, "F/M[/S]|auto|none", "the recording CPU (for errata such as SKL168)", 0 },
	{ "mtc-freq", 0, "N", "IA32_RTIT_CTL.MTCFreq", 0 },
	{ "nom-freq", 0, "N", "the max non-turbo ratio (P1)", 0 },
	{ "cpuid-0x15.eax", 0, "N", "CPUID.15H's TSC:crystal clock ratio: its\n"
	  "denominator", 0 },
	{ "cpuid-0x15.ebx", 0, "N", "and its numerator", 0 },
	{ "cpuid-0x15.ecx", 0, "HZ", "the crystal clock frequency", 0 },
	{ "tsc-freq", 0, "HZ", "the TSC frequency, for wall-clock time (e.g. 2.4GHz)", 0 },
	{ 0 }
};

int timing_opt_take(const struct opt_cmd *cmd, void *cfg, const struct opt *o,
		    const char *val)
{
	char opt[32];

	snprintf(opt, sizeof(opt), "--%s", o->name);
	return timing_option(cfg, opt, val) == 1 ? 0 : -EINVAL;
}
