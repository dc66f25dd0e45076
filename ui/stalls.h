/*
 * stalls -- the longest gaps between timing packets of the whole trace
 * (:stalls [N]), from the index's per-segment summaries: a list view with
 * a jump to each.
 */
#ifndef STALLS_H
#define STALLS_H

struct cmd_table;

/* :stalls (cmd.h). */
extern const struct cmd_table stalls_cmds;

#endif /* STALLS_H */
