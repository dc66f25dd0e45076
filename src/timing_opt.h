/* timing_opt -- the timing options every command that decodes time takes. */
#ifndef PTBROWSE_TIMING_OPT_H
#define PTBROWSE_TIMING_OPT_H

#include "opt.h"
#include "tm_config.h"

/* As tm_config_option(), plus "--cpu auto": this machine's family, model
 * and stepping (none if it is not an Intel CPU), as ptdump does. */
int timing_option(struct tm_config *cfg, const char *opt, const char *val);

/* The timing options, a table for opt.h (the same rows and wording for
 * every command), and their heading in --help. */
extern const struct opt timing_opts[];
#define TIMING_OPT_HEADING "timing options (override what a perf.data file recorded):"

/* opt_take_fn for timing_opts: option @o with @val into the struct
 * tm_config at @cfg.
 * Returns 0, or -EINVAL if @val is bad (opt_parse() says so). */
int timing_opt_take(const struct opt_cmd *cmd, void *cfg, const struct opt *o,
		    const char *val);

#endif
