/*
 * funcs_idx -- the browser's code index (src/ctidx.h): made in the
 * background, at low priority, for the stream shown once its packet index
 * is complete (with its time pass) and its code is loaded; the function
 * view and region summaries take their trees from it where it covers a
 * range.  Stopped with them (funcs_stop()), C-c stops it too.
 */
#ifndef FUNCS_IDX_H
#define FUNCS_IDX_H

#include <stddef.h>

struct ctidx;
struct ui;

/* The code index of the stream shown (being made or made), or NULL. */
const struct ctidx *funcs_idx(struct ui *ui);
/* The packet index of the stream shown is complete: start the code
 * index if there is code (once per index; in --script mode only
 * funcs_idx_wait() starts it). */
void funcs_idx_ready(struct ui *ui);
/* Stop and free it (before the trace, the stream or the images go). */
void funcs_idx_stop(struct ui *ui);
/* Whether it is being made (the loop polls faster). */
int funcs_idx_busy(void);
/* C-c: stop making it.  Returns 1 if it was running (and says so). */
int funcs_idx_interrupt(struct ui *ui);
/* Its state for the header ("code 45%" while made, "" else) into @buf. */
void funcs_idx_status(struct ui *ui, char *buf, size_t size);
/* Its state for :info into @buf ("" if none). */
void funcs_idx_info(struct ui *ui, char *buf, size_t size);
/* Start the code index (the packet index complete: wait-index first) and
 * wait until it is made (the script's wait-code-index; @bench: print the
 * time and memory, bench-code-index). */
void funcs_idx_wait(struct ui *ui, int bench);

#endif /* FUNCS_IDX_H */
