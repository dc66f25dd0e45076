/*
 * iterations -- :iterations EXPR: a search's hits as loop iteration
 * boundaries, their durations as a histogram with p50/p90/p99/max and the
 * slowest listed, jumpable and savable as regions (a view; the walk runs
 * in the background, decoder/iter.h, and the view shows the part walked
 * so far until the result).
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

/* Whether a walk is running, or the view is open with a picture of it to
 * make or take in (a partial one, or the result): the loop then draws
 * often, so the view fills as the walk goes and a walk of a tenth of a
 * second shows its result as soon as it is done.  With the view closed
 * (a jump from its partial list), a picture it asked for is dropped here
 * once made.  Returns 1 or 0. */
int iterations_busy(const struct ui *ui);

#endif /* ITERATIONS_H */
