/*
 * export_job -- :export's copy on a thread of its own (src/export.h's
 * export_slice_progress()), so the browser answers keys while a big
 * slice is written.  The status line shows "export N% (C-c stops)"; C-c
 * stops it, and then nothing is written (the temporary files go, a file
 * already at the target stays as it was); when it ends a message says
 * what was written.  One at a time.  Quitting, R and a stream switch stop
 * it as C-c does (the trace's mapping it reads goes away).  The search
 * module polls it and stops and frees it with itself (search_ui.c), as
 * it does a :goto's job.  A script (a virtual screen) waits for it in
 * export_job_start(): its next line sees the result.
 */
#ifndef EXPORT_JOB_H
#define EXPORT_JOB_H

#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

struct ui;
struct safefile_keep;

/* Write the slice [@from, @to) of the stream shown to @path, never over
 * the @nkeep files of @keep (export_slice()), in the background.
 * Returns UI_DRAW_*, having said why not if it did not start (one runs
 * already, out of memory). */
int export_job_start(struct ui *ui, uint64_t from, uint64_t to, const char *path,
		     const struct safefile_keep *keep, size_t nkeep);

/* Say what a finished job did and free it.  *@busy is raised to 2 while
 * one runs (the loop then polls often).  Returns UI_DRAW_*. */
int export_job_poll(struct ui *ui, int *busy);

/* Wait for a running job and say what it did. */
void export_job_wait(struct ui *ui);

/* C-c: stop a running job, saying so.  Returns 1 if one ran, else 0. */
int export_job_stop(struct ui *ui);

/* Stop and free the job (none is fine), before the trace's mapping
 * goes; a running one says it stopped. */
void export_job_free(struct ui *ui);

/* The status line's words for a running job ("  export 40% (C-c
 * stops)"); returns their length (0: none runs). */
size_t export_job_status(struct ui *ui, char *buf, size_t size);

/* At the browser's end, the terminal given back: stop a running copy
 * and say on @out (each line led by @prog) that nothing was written, or
 * what a copy done but not yet said wrote.  Returns 0, or -1 if an
 * export was stopped or failed. */
int export_job_quit(FILE *out, const char *prog);

#endif /* EXPORT_JOB_H */
