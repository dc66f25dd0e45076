/*
 * goto_job -- the rest of a :goto to a TSC, a time or a cycle count that
 * the UI thread did not find in the first GOTO_JOB_ROWS rows it looked at
 * (a PSB segment may hold millions of packets): the rows after them are
 * looked at on a thread of its own, with windows of its own over the same
 * time model (the index's carries), until the first row at or after the
 * target or the end.  The status line shows how far it got; C-c stops it
 * (search_ui_stop()); it lands, as :goto would have, when found, unless a
 * key moved the cursor meanwhile.  One at a time: a new one replaces it.
 * The search module polls it (search_ui_poll(), search_ui_wait()) and
 * frees it with itself.
 */
#ifndef GOTO_JOB_H
#define GOTO_JOB_H

#include <stddef.h>
#include <stdint.h>

struct ui;
struct win_row;

/* Rows :goto looks at on the UI thread before handing the rest to a job. */
#define GOTO_JOB_ROWS 32768

enum goto_job_kind {
	GOTO_JOB_TSC,		/* the first row with a TSC >= the value */
	GOTO_JOB_CYCLES		/* the first row counted >= the value cycles */
};

/* Whether @row is what a goto of @kind to @v looks for.  Returns 1 or 0. */
int goto_job_hit(enum goto_job_kind kind, const struct win_row *row, uint64_t v);

/* Look for @kind @v from the row at offset @from on, in the background;
 * @what names the target in messages ("tsc 0x1a2b", "t 5ms"); @timed: a
 * goto by time (its landing says when it used P1's estimate).
 * Returns 0, -pte_invalid without an index, -pte_nomem. */
int goto_job_start(struct ui *ui, enum goto_job_kind kind, uint64_t v, uint64_t from,
		   const char *what, int timed);

/* Take a finished job's answer: land, or say there is none.  *@busy is
 * set to 2 while one runs (the loop then polls often).
 * Returns UI_DRAW_*. */
int goto_job_poll(struct ui *ui, int *busy);

/* Wait for a running job and take its answer (a script's wait-search). */
void goto_job_wait(struct ui *ui);

/* C-c: stop a running job, saying so.  Returns 1 if one ran, else 0. */
int goto_job_stop(struct ui *ui);

/* Cancel and free the job (none is fine), before the index or the trace
 * goes. */
void goto_job_free(struct ui *ui);

/* The status line's words for a running job ("  goto tsc 0x1a2b: 40%");
 * returns their length (0: none runs). */
size_t goto_job_status(struct ui *ui, char *buf, size_t size);

#endif /* GOTO_JOB_H */
