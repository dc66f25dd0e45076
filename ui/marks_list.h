/* marks_list -- the marks list view (:marks, :regions; cmd.h). */
#ifndef MARKS_LIST_H
#define MARKS_LIST_H

struct cmd_table;

extern const struct cmd_table marks_list_cmds;

#endif /* MARKS_LIST_H */
