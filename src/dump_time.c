/*
 * dump_time -- the timing columns of `ptbrowse dump`.  Placeholder until the
 * time model lands: timing options are recognised and refused clearly.
 */
#include <stdio.h>
#include <string.h>

#include "dump.h"

static const char *const timing_opts[] = {
	"--time", "--tcal", "--time-delta", "--no-tcal", "--no-wall-clock",
	"--cycles", "--cpu", "--mtc-freq", "--nom-freq", "--cpuid-0x15.eax",
	"--cpuid-0x15.ebx", "--tsc-freq", NULL,
};

const char *dump_time_usage(void)
{
	return "  (timing options --time, --tcal, ... are not available yet)\n";
}

int dump_time_option(struct dump_state *st, int argc, char **argv, int *i)
{
	int k;

	for (k = 0; timing_opts[k]; k++) {
		if (!strcmp(argv[*i], timing_opts[k])) {
			fprintf(stderr, "ptbrowse dump: %s: timing is not "
					"available in this version yet\n", argv[*i]);
			return -1;
		}
	}
	return 0;
}

int dump_time_setup(struct dump_state *st, const struct tm_config *cfg)
{
	return 0;
}

void dump_time_reset(struct dump_state *st)
{
}

void dump_time_packet(struct dump_state *st, struct dump_line *line,
		      const struct pkt *pkt)
{
}
