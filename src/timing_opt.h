/* timing_opt -- the timing options every command that decodes time takes. */
#ifndef PTBROWSE_TIMING_OPT_H
#define PTBROWSE_TIMING_OPT_H

#include "tm_config.h"

/* As tm_config_option(), plus "--cpu auto": this machine's family, model
 * and stepping (none if it is not an Intel CPU), as ptdump does. */
int timing_option(struct tm_config *cfg, const char *opt, const char *val);

/* The timing option at @argv[*@i] ("--opt VALUE" or "--opt=VALUE") into
 * @cfg, moving *@i past its value.  A bad value is reported on stderr as
 * "ptbrowse @cmd: --opt: bad argument: VALUE" (or "missing argument").  Returns 1 if taken, 0 if it is no timing option,
 * -1 after reporting a bad or missing value. */
int timing_arg(struct tm_config *cfg, int argc, char **argv, int *i, const char *cmd);

#endif
