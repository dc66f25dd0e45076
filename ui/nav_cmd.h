/* nav_cmd -- the navigation commands (cmd.h): cursor-down ... jump-back. */
#ifndef NAV_CMD_H
#define NAV_CMD_H

struct cmd_table;

extern const struct cmd_table nav_cmds;

#endif /* NAV_CMD_H */
