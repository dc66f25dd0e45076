/*
 * stall -- the longest gaps between timing packets and the slowest clean
 * periods of a whole trace, exactly (what :stalls lists).
 *
 * The index's time pass keeps, per PSB segment, only its largest gap and
 * its slowest period (struct idx_summary).  Ranked by those, the top N
 * segments hold every one of the N longest gaps (or slowest periods) of
 * the trace: a stall outside them ranks after N segments' best ones.  So
 * stall_top() reads every summary, then walks those segments (each from
 * the index's time carry, as the time pass saw them) for all their gaps
 * and periods and merges them, stopping early once the next segment's
 * best cannot make the list: two slow periods in one segment both show.
 *
 * Halted time is listed by segment, from the summaries alone (no walk):
 * the segments whose sleeps (PWRE, EXSTOP .. PWRX) closed there held the
 * core halted longest (idx_summary.nhalt, halt_lo, halt_hi), each at its
 * PSB; stall_halt_place() walks one for its longest sleep's place.
 *
 * A gap that ends at the first TSC of a segment whose TSC contradicts its
 * neighbours' (idx_time_outlier(): a damaged PSB+ TSC, most often far in
 * the future) is the jump into damaged time, no stall: a walk marks it
 * disputed and stall_top() leaves it out (and counts it).  Such a
 * segment's summary holds that jump as its largest gap, so it is no
 * bound to rank by: stall_top() walks every outlier segment whose
 * summary would make the list.  So it does a segment holding a TSC past
 * its ceiling (idx_time_ceiling(): a TSC outside PSB+ damaged far into
 * the future, which the next PSB+ TSC contradicts), for gaps and for
 * periods (calibrating from TSC to TSC, the jump is its slowest): the
 * gap into the time past the ceiling is disputed, and nothing ending in
 * that time (up to the next PSB+ TSC, which takes time back) is a gap or
 * a period.
 *
 * Order: the longer gap (the slower period: fewer cycles per tick,
 * tm_period_cmp(); the more halted time at most, then at least) first,
 * then the earlier packet (segment).
 */
#ifndef STALL_H
#define STALL_H

#include <stddef.h>
#include <stdint.h>

#include "image.h"
#include "index.h"
#include "tm.h"

enum stall_kind { STALL_GAP, STALL_PERIOD, STALL_HALT };

/* One gap, one period, or one segment's halted time. */
struct stall {
	uint64_t at;		/* the timing packet ending it (STALL_HALT:
				 * the segment's PSB) */
	size_t seg;		/* the segment holding that packet */
	uint64_t gap;		/* STALL_GAP: TSC ticks since the timing
				 * packet before (whole ticks) */
	struct tm_period per;	/* STALL_PERIOD: its cycles and ticks (seq
				 * 0) */
	uint32_t nhalt;		/* STALL_HALT: sleeps closed in the segment */
	uint8_t disputed;	/* STALL_GAP: it ends at the first TSC of an
				 * outlier segment (idx_time_outlier()), or
				 * past its segment's ceiling: the jump into
				 * damaged time */
	uint64_t halt_lo, halt_hi;	/* STALL_HALT: the core's halted time
				 * in them, TSC ticks, at least and at
				 * most (equal: exact) */
};

/* What stall_top() found. */
struct stall_list {
	struct stall *gaps;	/* the longest first, ngaps of them */
	size_t ngaps;
	struct stall *pers;	/* the slowest first */
	size_t npers;
	struct stall *halts;	/* the segments most halted first (none
				 * without a sleep) */
	size_t nhalts;
	size_t partial;		/* segments the time pass had not reached
				 * (left out) */
	size_t walked;		/* segments walked for the merge */
	size_t disputed;	/* gaps into damaged time left out (those
				 * the walked segments held) */
};

/* The @want longest gaps (none disputed), the @want slowest periods and
 * the @want segments with the most halted time of the trace @img indexed
 * by @idx
 * (whose time pass gives the summaries and carries), into @out
 * (stall_list_free() it).  It walks up to 2 * @want segments (and
 * outlier segments that might rank): run it
 * off the UI thread; *@cancel (if not NULL) set stops it between two.
 * It reads the mapping: call it where a SIGBUS is guarded against.
 * Returns 0.
 * Returns -pte_invalid if an argument is NULL or @want is 0.
 * Returns -pte_canceled if *@cancel was set (the lists are then empty).
 * Returns -pte_nomem if out of memory (the lists are then empty). */
int stall_top(const struct idx *idx, const struct img *img, size_t want,
	      const _Atomic int *cancel, struct stall_list *out);

/* Every gap (@kind STALL_GAP) or period ending in segment @seg, in
 * packet order, into a new array *@out (free() it) of *@n; the jump into
 * an outlier segment is among them, disputed (what its summary holds).
 * Returns 0, 1 if the time pass has not got there, -pte_invalid (also
 * for STALL_HALT: a segment's halted time is its summary's) or
 * -pte_nomem. */
int stall_segment(const struct idx *idx, const struct img *img, size_t seg,
		  enum stall_kind kind, struct stall **out, size_t *n);

/* The place of segment @seg's longest sleep (the most halted time at
 * most; the first of equals): its PWRX, or the anchor that closed it where
 * its PWRX lies in an earlier segment, walked from the index's carry as
 * the time pass saw it.
 * Returns 0 and sets *@at.
 * Returns 1 if the time pass has not got there or no sleep closes there.
 * Returns -pte_invalid if an argument is NULL or @seg is out of range. */
int stall_halt_place(const struct idx *idx, const struct img *img, size_t seg,
		     uint64_t *at);

/* Whether @a ranks before @b (both of @kind). */
int stall_before(enum stall_kind kind, const struct stall *a, const struct stall *b);

/* Free @l's arrays (NULL is fine); @l is then empty. */
void stall_list_free(struct stall_list *l);

#endif /* STALL_H */
