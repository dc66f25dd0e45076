/* timing_opt -- the timing options every command that decodes time takes. */
#ifndef PTBROWSE_TIMING_OPT_H
#define PTBROWSE_TIMING_OPT_H

#include "tm_config.h"

/* As tm_config_option(), plus "--cpu auto": this machine's family, model
 * and stepping (none if it is not an Intel CPU), as ptdump does. */
int timing_option(struct tm_config *cfg, const char *opt, const char *val);

#endif
