/* settings -- :set, bind, unbind, source, save-screen, command-prompt,
 * describe-key, cancel, interrupt, suspend, quit (cmd.h). */
#ifndef SETTINGS_H
#define SETTINGS_H

struct cmd_table;

extern const struct cmd_table settings_cmds;

#endif /* SETTINGS_H */
