/*
 * streams_ui -- the streams (CPUs) of a perf.data file: the list and
 * switching (each stream keeps its own cursor and marks file; marks not
 * saved to a file are kept in memory while another stream is shown, by
 * the stream's name, across R too).  The sideband on the timeline is
 * streams_tl.c's.
 */
#ifndef STREAMS_UI_H
#define STREAMS_UI_H

#include <stdint.h>
#include <stdio.h>

struct ui;
struct cmd_table;
struct trace;

/* :streams [STREAM] (cmd.h). */
extern const struct cmd_table streams_ui_cmds;

/* Switch to stream @s, keeping a cursor per stream.  Returns UI_DRAW_*. */
int streams_ui_switch(struct ui *ui, int s);

/* At the end, the terminal given back: marks_flush_final() of the marks
 * kept for the streams left (a failed or busy save), each failure said
 * on @err.  Returns 0, or -1 if any marks were not saved (exit 1). */
int streams_ui_flush_final(FILE *err);

/* Free the marks kept for the streams left (their changes unsaved, e.g.
 * with --no-state): at the end. */
void streams_ui_free(void);

/* The stream of @t called @name exactly (a reload finds the stream shown
 * again by it).  Returns its index, or -1 if there is none. */
int streams_ui_find(const struct trace *t, const char *name);

/* Leave the stream shown, called @name, as a switch or R does: keep its
 * cursor and, if no file holds their changes (--no-state, a failed save),
 * its marks (ui->bm) in memory under its name; close ui->bm (NULL after). */
void streams_ui_leave(struct ui *ui, const char *name);

/* Open the marks of the stream shown into ui->bm (NULL if they cannot be
 * opened): those kept in memory for it, else its marks file's.  Marks
 * kept for the file as it was before R opened it again are merged into
 * its marks file's for the new content (marks_merge(): those past the
 * stream's end now are said and not kept), with a warning if the file
 * was rewritten, not only grown. */
void streams_ui_open_marks(struct ui *ui);

/* After R on a trace that grew in place: if the content now has a marks
 * file of its own for the stream shown (the trace shrank while shown and
 * got its tail back, or another ptbrowse opened it grown), ui->bm, saved
 * under the shorter content's identity, becomes that file's set with
 * ui->bm's marks merged in (marks_merge(); the shorter content's file is
 * left as it is).  Else ui->bm stays, grown. */
void streams_ui_regrown(struct ui *ui);

/* After R: ui->trace was opened again (@reopened; @rewritten if not
 * only grown) or grew in place.  The marks kept in memory for each
 * stream stay under its name; a stream the file no longer has is said,
 * its marks kept until it comes back. */
void streams_ui_reloaded(struct ui *ui, int reopened, int rewritten);

#endif /* STREAMS_UI_H */
