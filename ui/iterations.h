/*
 * iterations -- :iterations EXPR: a search's hits as loop iteration
 * boundaries, their durations as a histogram with p50/p90/p99/max and the
 * slowest listed, jumpable and savable as regions (a view; the walk runs
 * in the background, decoder/iter.h).
 */
#ifndef ITERATIONS_H
#define ITERATIONS_H

struct cmd_table;
struct ui;

/* :iterations (cmd.h). */
extern const struct cmd_table iterations_cmds;

/* Stop a walk and close the view: before the trace's mapping goes. */
void iterations_stop(struct ui *ui);

/* Wait for a running walk to finish (the script's wait-iterations). */
void iterations_wait(struct ui *ui);

/* Wait until a running walk has walked a part (one unit, so the view
 * shows a partial picture) or finished (the script's
 * wait-iterations-partial; bench's first picture). */
void iterations_wait_partial(struct ui *ui);

/* Whether a walk is running: the loop then looks for its end often, so a
 * walk of a tenth of a second shows its result as soon as it is done.
 * Returns 1 or 0. */
int iterations_busy(const struct ui *ui);

#endif /* ITERATIONS_H */
