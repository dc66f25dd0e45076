/* reload -- R: show the trace as it is on disk now: grown, rewritten or
 * replaced (the file's identity tells which). */
#ifndef RELOAD_H
#define RELOAD_H

struct ui;
struct cmd_table;

/* :reload (cmd.h). */
extern const struct cmd_table reload_cmds;

/* Remember the identity of ui->trace's file, for :reload. */
void reload_remember(struct ui *ui);

#endif /* RELOAD_H */
