/*
 * funcs_sum -- the top functions of the regions the marks list summarises
 * (:marks, :regions A, and :regions A B side by side), by cycles and by
 * instructions with their calls (src/ctsum.h), each region's call tree
 * built in the background (src/ctjob.h) where the trace has code, else
 * the reason there is none.
 */
#ifndef FUNCS_SUM_H
#define FUNCS_SUM_H

#include <stdint.h>

struct ct;
struct ctjob;
struct ctx_range;
struct tm_carry;
struct ui;

/* The time model's state just before the first PSB at or after @from,
 * from the index (ctjob's carry), so that a tree's cycles are known from
 * the range's first packet as the browser's panes know them.
 * Returns 0 and sets *@c, or -1 without an index or its time pass there. */
int funcs_sum_carry(struct ui *ui, uint64_t from, struct tm_carry *c);

/* Set job @j's range to [@from, @to) of the browser's stream: decoded
 * from the PSB at or before @from (a decode starts at a PSB: from the one
 * after, what [@from, it) decided was lost, all of a range without one),
 * counting only what packets in [@from, @to) decide (@keep, which must
 * outlive the job, then holds the range), with the time model's state
 * at that PSB (funcs_sum_carry()).  *@nopsb: 1 if no PSB starts before
 * @to, so nothing can be decoded (its tree is empty, not exact 0s). */
void funcs_sum_range(struct ui *ui, struct ctjob *j, struct ctx_range *keep,
		     uint64_t from, uint64_t to, int *nopsb);


/* Wait for job @j's tree: as long as it takes in --script mode, else
 * up to 50 ms (the code index makes most in less). */
void funcs_sum_settle(struct ui *ui, const struct ctjob *j);

/* Draw the functions of [@from, @to) (named @name) and, if @name2 is not
 * NULL, of [@from2, @to2) beside them, in the box at (@y, @x), @w x @h;
 * starts building what is not built (in --script mode it waits). */
void funcs_sum_box(struct ui *ui, int y, int x, int w, int h, const char *name,
		   uint64_t from, uint64_t to, const char *name2, uint64_t from2,
		   uint64_t to2);
/* Whether a tree is being built (the loop polls faster). */
int funcs_sum_busy(void);
/* C-c: stop building (what was built stays, marked partial). */
void funcs_sum_cancel(void);
/* Stop and free the trees (before the trace, stream or images go). */
void funcs_sum_stop(void);

#endif /* FUNCS_SUM_H */
