/* timing_opt -- the timing options every command that decodes time takes. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "timing_opt.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

/* This machine's family/model/stepping, as libipt reads them; a CPU that
 * is not Intel's is "none". */
static void cpu_auto(struct tm_config *cfg)
{
	unsigned a, b, c, d, family, model;

	cfg->have_cpu = 0;
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
	cfg->have_cpu = 1;
	cfg->cpu_family = (uint16_t)family;
	cfg->cpu_model = (uint8_t)model;
	cfg->cpu_stepping = (uint8_t)(a & 0xf);
}
#else
static void cpu_auto(struct tm_config *cfg)
{
	cfg->have_cpu = 0;
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

int timing_arg(struct tm_config *cfg, int argc, char **argv, int *i, const char *cmd)
{
	const char *a = argv[*i], *eq = strchr(a, '='), *val;
	char opt[32];
	int r;

	if (a[0] != '-' || a[1] != '-')
		return 0;
	if (eq && (size_t)(eq - a) < sizeof(opt)) {
		memcpy(opt, a, (size_t)(eq - a));
		opt[eq - a] = 0;
		val = eq + 1;
	} else {
		snprintf(opt, sizeof(opt), "%s", a);
		val = *i + 1 < argc ? argv[*i + 1] : NULL;
	}
	r = timing_option(cfg, opt, val);
	if (r < 0) {
		if (!val)
			fprintf(stderr, "ptbrowse %s: %s: missing argument\n", cmd, opt);
		else
			fprintf(stderr, "ptbrowse %s: %s: bad argument: %s\n", cmd,
				opt, val);
		return -1;
	}
	if (r > 0 && !eq)
		++*i;
	return r > 0;
}
