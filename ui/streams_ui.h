/*
 * streams_ui -- the streams (CPUs) of a perf.data file: the list and
 * switching (each stream keeps its own cursor and marks file; marks not
 * saved to a file are kept in memory while another stream is shown).  The
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

/* Free the marks kept for the streams left (their changes unsaved, e.g.
 * with --no-state): at the end, or when another trace is opened. */
void streams_ui_free(void);

#endif /* STREAMS_UI_H */
