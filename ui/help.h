/* help -- the help screen (generated from the keymap and the action table)
 * and the message log, in one pager view. */
#ifndef HELP_H
#define HELP_H

struct ui;
struct cmd_table;

/* What the pager shows. */
enum { UI_PAGER_HELP = 1, UI_PAGER_MESSAGES = 2 };

/* :help, :messages (cmd.h). */
extern const struct cmd_table help_cmds;
/* Open the pager on the help text (UI_PAGER_HELP) or the message log
 * (UI_PAGER_MESSAGES) at line @top. */
void help_open(struct ui *ui, int what, int top);
/* The help line of action @a (for ':help COMMAND'), or -1. */
int help_line_of(const struct ui *ui, int a);

#endif /* HELP_H */
