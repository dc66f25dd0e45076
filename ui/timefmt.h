/* timefmt -- times as the browser shows them (the panes, the status
 * line, the lists, goto's notes): enough digits that neighbours differ,
 * ticks without a TSC frequency, '≈' where P1's estimate was used. */
#ifndef TIMEFMT_H
#define TIMEFMT_H

#include <stddef.h>
#include <stdint.h>

struct ui;
struct win_row;

/* Format @ns as "12.345 us" into @buf. */
void timefmt_ns(char *buf, size_t size, double ns);
/* Write @ns as timefmt_ns() does, with enough decimals that times
 * @res ns apart differ (at most nanoseconds). */
void timefmt_ns_res(char *buf, size_t size, double ns, double res);
/* Whether times use a TSC frequency estimated from P1 (--nom-freq), so
 * that headings and labels must say so ('≈'). */
int timefmt_estimated(const struct ui *ui);
/* Whether the time @tsc of the packet at @off is disputed, so it may be
 * far off ('?' before it): 1 if the first TSC of its PSB segment
 * contradicts its neighbours' (idx_time_outlier(), a damaged PSB+ TSC),
 * 2 if @tsc lies past its segment's ceiling where that is damage
 * (idx_time_damage_ceiling(): a damaged TSC outside PSB+ before it).  0 without
 * an index, before the first PSB, or until the neighbours are
 * summarised. */
int timefmt_disputed(const struct ui *ui, uint64_t off, uint64_t tsc);
/* Whether @row's time was measured: a TSC or MTC packet's, not pulled
 * back by a clamp nor carried across lost data, rather than estimated
 * between such packets. */
int timefmt_row_measured(const struct win_row *row);
/* The mark every pane and line puts before @row's time and TSC: "?" if
 * disputed (timefmt_disputed()), "~" if estimated (not
 * timefmt_row_measured()), else "".  '≈' (an estimated TSC frequency)
 * is apart from it. */
const char *timefmt_row_mark(const struct ui *ui, const struct win_row *row);
/* The TSC of the row at @off, or 0 if it has none; a row of a PSB+
 * before its TSC takes that TSC (goto_idx_row_tsc(): a mark or region
 * edge at the trace's first PSB has a time).  *@mark the mark before it
 * (timefmt_row_mark() of the row the TSC is from). */
uint64_t timefmt_off_tsc(struct ui *ui, uint64_t off, const char **mark);
/* Write the time @ns between two TSCs into @buf with enough decimals
 * that times one TSC tick apart differ, '≈' first if the TSC frequency is
 * an estimate, '+' before a non-negative one if @sign ("?" if @ns is NAN). */
void timefmt_tsc(const struct ui *ui, char *buf, size_t size, double ns, int sign);
/* The note that times converted from units use the P1 estimate, the first
 * time it applies in this session.
 * Returns "" if the frequency is not estimated or the note was given. */
const char *timefmt_estimate_note(struct ui *ui);
/* The time in ns between TSCs @a and @b (b - a), or NAN if unknown. */
double timefmt_tsc_diff(const struct ui *ui, uint64_t a, uint64_t b);

#endif /* TIMEFMT_H */
