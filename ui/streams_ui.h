/*
 * streams_ui -- the streams (CPUs) of a perf.data file: the list and
 * switching (each stream keeps its own cursor and marks file).  The
 * sideband on the timeline is streams_tl.c's.
 */
#ifndef STREAMS_UI_H
#define STREAMS_UI_H

#include <stdint.h>

struct ui;
struct cmd_table;

/* :streams [STREAM] (cmd.h). */
extern const struct cmd_table streams_ui_cmds;

/* Switch to stream @s, keeping a cursor per stream.  Returns UI_DRAW_*. */
int streams_ui_switch(struct ui *ui, int s);

#endif /* STREAMS_UI_H */
