/* fuzz_config -- the timing configuration the fuzz targets of the time
 * pass, :iterations and :stalls run under: ptgen's (`ptgen
 * --print-config`, the one their generated seeds were made with), through
 * the options parser the program reads it with. */
#ifndef FUZZ_CONFIG_H
#define FUZZ_CONFIG_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tm_config.h"

/* ptgen's configuration into @cfg, on CPU model @model (ptgen's: 78). */
static inline void fuzz_ptgen_config(struct tm_config *cfg, unsigned model)
{
	static const char *const opts[] = { "--mtc-freq", "3", "--nom-freq", "12",
		"--cpuid-0x15.eax", "2", "--cpuid-0x15.ebx", "100" };
	char cpu[16];
	size_t k;

	memset(cfg, 0, sizeof(*cfg));
	for (k = 0; k < sizeof(opts) / sizeof(opts[0]); k += 2)
		if (tm_config_option(cfg, opts[k], opts[k + 1]) != 1)
			abort();
	snprintf(cpu, sizeof(cpu), "6/%u/3", model);
	if (tm_config_option(cfg, "--cpu", cpu) != 1)
		abort();
}

/* The configuration byte @c into @cfg: none (bit 0 clear), ptgen's
 * (bits 1..0 set), or ptgen's with MTC frequency @c >> 2 & 15. */
static inline void fuzz_config_byte(uint8_t c, struct tm_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	if (!(c & 1))
		return;
	fuzz_ptgen_config(cfg, 78);
	if (!(c & 2))
		cfg->mtc_freq = (c >> 2) & 0xf;
}

#endif /* FUZZ_CONFIG_H */
