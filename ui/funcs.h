/*
 * funcs -- the function view (:funcs [REGION | FROM TO], F): the call
 * tree of the packet pane's rows, the visual selection, a region or the
 * range between two marks, built in the background (src/ctjob.h) with
 * progress and C-c; each call path with its calls, instructions, cycles
 * (with its callees and its own, exact or bounded as the trace says),
 * time and a bar of its share, like a flame chart turned on its side.
 * Nodes open and close, sort by cycles, instructions or calls, and Enter
 * jumps to a node's first call.
 */
#ifndef FUNCS_H
#define FUNCS_H

#include <stddef.h>

struct cmd_table;
struct ct_sum;
struct ui;

/* :funcs (cmd.h). */
extern const struct cmd_table funcs_cmds;

/* Whether the tree, or a region summary's (funcs_sum.h), is being built
 * (the loop polls faster). */
int funcs_busy(const struct ui *ui);
/* C-c: stop building.  Returns 1 if a build was running (and says so),
 * 0 if not. */
int funcs_interrupt(struct ui *ui);
/* Stop building and free the tree and the region summaries' trees
 * (before the trace, the stream or the images go away: reload, stream
 * switch, quit). */
void funcs_stop(struct ui *ui);

/* Sum @s's cycles as ct_sum_str() writes them into @buf, in at most
 * @width columns if they are wider (and @width is at least 14): each
 * number of 100000 or more as three significant digits and a unit
 * ("1.23M"), a bound rounded outwards ("~1.23M-2.35M+?" for
 * "~1234567-2345678+?"), every mark (~, >=, +?) kept. */
void funcs_cycles_str(const struct ct_sum *s, int width, char *buf, size_t size);

#endif /* FUNCS_H */
