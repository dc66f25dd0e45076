/* panes -- focus, scroll-left/right, timeline-zoom, timeline-axis,
 * recenter, redraw (cmd.h). */
#ifndef PANES_H
#define PANES_H

struct cmd_table;

extern const struct cmd_table panes_cmds;

#endif /* PANES_H */
