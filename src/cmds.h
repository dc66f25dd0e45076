/*
 * cmds -- the command-line subcommands.  Each lives in src/cmd_NAME.c (or
 * ui/ for the browser) and is listed once in main.c's table.
 */
#ifndef CMDS_H
#define CMDS_H

#include <stdio.h>

/* Each returns the process exit status: 0 ok, 1 trouble, 2 usage. */
int cmd_dump_main(int argc, char **argv);
int cmd_browse_main(int argc, char **argv);
int cmd_info_main(int argc, char **argv);
int cmd_extract_main(int argc, char **argv);
int cmd_marks_main(int argc, char **argv);
int cmd_export_main(int argc, char **argv);
int cmd_index_main(int argc, char **argv);
int cmd_flow_main(int argc, char **argv);
int cmd_calls_main(int argc, char **argv);

/* Write the browser's options, a line each, to @f (for its --help and
 * ptbrowse --help). */
void cmd_browse_options(FILE *f);

#endif /* CMDS_H */
