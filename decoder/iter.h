/*
 * iter -- loop iterations found from the trace: the hits of a search
 * predicate (a loop head's tip, a function's entry, a payload) taken as
 * iteration boundaries, each given its time and cycle count by the time
 * model, and the iterations between consecutive boundaries with their
 * durations and statistics.
 *
 * A job walks the image in the background on all cores, in two passes
 * over units of PSB segments.  The first runs the predicate alone: the
 * boundaries, and where data was lost (an OVF, a decode error or a gap
 * between spans, which breaks the iteration it falls in); a segment that
 * cannot hold a boundary (its index summary or its bytes rule one out:
 * srch_segment_may_hit()) is not decoded.  The second gives a time to
 * each boundary a measured iteration starts or ends at, walking its
 * segment from the index's time carry there (the time pass's state, so
 * the time is the one every other view shows, whatever the cut: test_iter
 * checks one thread against several); a boundary between two broken
 * iterations keeps none (iter_bound.timed 0).  The result is that of one
 * walk through every packet from the start (iter_opts.straight; test_iter
 * compares them).  A boundary's cycles are
 * exact (TM_F_EXACT) or bounded: at or after its lower bound and before
 * the count at the next CYC, which the walk records as the upper bound.
 */
#ifndef ITER_H
#define ITER_H

#include <stddef.h>
#include <stdint.h>

#include "image.h"
#include "index.h"
#include "ptdec.h"
#include "search.h"
#include "tm_config.h"

struct iter_job;

/* One boundary: a hit of the predicate. */
struct iter_bound {
	uint64_t offset;	/* the packet */
	uint64_t tsc;		/* its time, whole TSC ticks */
	uint64_t cyc_lo;	/* cycles since the start: exact if cyc_lo ==
				 * cyc_hi, else [cyc_lo, cyc_hi] */
	uint64_t cyc_hi;	/* UINT64_MAX: the upper bound is unknown */
	uint32_t flags;		/* its stamp's enum tm_flag */
	uint8_t lost;		/* data was lost since the previous boundary */
	uint8_t timed;		/* tsc, cycles and flags hold; 0: both
				 * iterations around it are broken (or there
				 * are none), so none was worked out: all 0 */
};

/* One iteration: from boundary @from to the next one. */
struct iter_item {
	size_t from;		/* index of its first boundary */
	uint64_t ticks;		/* duration, TSC ticks (the model's estimate) */
	uint64_t cyc_lo, cyc_hi;	/* duration in cycles: exact if equal;
					 * cyc_hi UINT64_MAX: unbounded */
	uint8_t has_cyc;	/* both ends have CYC cycles */
	uint8_t broken;		/* data lost inside: durations not measured */
};

/* Statistics of the measured (not broken) iterations. */
struct iter_stats {
	size_t n;		/* measured iterations */
	size_t nbroken;		/* iterations with data lost inside */
	int cycles;		/* 1: every one is cycle-exact, so values are
				 * cycles; 0: TSC ticks */
	uint64_t min, p50, p90, p99, max;	/* nearest rank */
	double mean;
};

/* Options of a job; zero means the default. */
struct iter_opts {
	unsigned nthreads;	/* default: one per online CPU */
	size_t max_bounds;	/* boundaries kept (default 1 << 22); the
				 * walk stops there and says so */
	int straight;		/* one walk through every packet of every
				 * segment from the start, the model at each
				 * (the result is the same; for tests) */
	/* Run the walk as guard(body, arg) (srch_opts.guard). */
	int (*guard)(int (*body)(void *), void *arg);
	/* The boundaries given: the packets at these offsets (sorted,
	 * unique; copied) instead of the predicate's hits, which is then
	 * NULL -- the hits of a search the decoder cannot run itself, such
	 * as a function's entry found by decoding the code.  Data lost is
	 * found as for a predicate, and so are the times. */
	const uint64_t *offsets;
	size_t noffsets;
};

/* A snapshot of a job. */
struct iter_progress {
	uint64_t done, total;	/* bytes walked, bytes in all: each pass
				 * counts half of them */
	size_t nbounds;		/* boundaries found so far */
	int finished;		/* the thread stopped */
	int status;		/* once finished: 0, -pte_canceled,
				 * -pte_sigbus, -pte_nomem */
	int truncated;		/* stopped at max_bounds */
};

/* Find the boundaries of @pred (the job takes it: iter_free() frees it,
 * and so does a failed start; NULL with iter_opts.offsets) in @img with
 * @idx's seek points
 * and time carries (the index must be complete and keep its time pass;
 * both must outlive the job) and timing configuration @cfg (copied), in a
 * background thread.
 * Returns 0 and sets *@out.
 * Returns -pte_invalid if an argument is NULL (but @pred with offsets).
 * Returns -pte_no_time if the index has no time pass or is not complete.
 * Returns -pte_nomem if out of memory or the thread could not start. */
int iter_start(struct iter_job **out, const struct img *img,
	       const struct idx *idx, const struct srch_pred *pred,
	       const struct tm_config *cfg, const struct iter_opts *opts);

/* Take a snapshot of @j into @p. */
void iter_progress(struct iter_job *j, struct iter_progress *p);

/* Ask @j to stop soon; safe from a signal handler. */
void iter_cancel(struct iter_job *j);

/* Wait for @j's thread.  Returns its status (iter_progress.status). */
int iter_wait(struct iter_job *j);

/* Cancel, wait and free @j (NULL is fine). */
void iter_free(struct iter_job *j);

/* The boundaries of a finished job, in offset order, and their number in
 * *@n.  Returns NULL (and *@n 0) until the job has finished. */
const struct iter_bound *iter_bounds(struct iter_job *j, size_t *n);

/* The @nb - 1 iterations between boundaries @b[0..@nb) into a new array
 * *@out (free() it) of *@n items, in boundary order, and their
 * statistics in @st.
 * Returns 0, -pte_invalid if an argument is NULL, or -pte_nomem. */
int iter_items(const struct iter_bound *b, size_t nb, struct iter_item **out,
	       size_t *n, struct iter_stats *st);

/* The value iterations are ranked by: cycles when @st says every
 * measured one is cycle-exact, else TSC ticks. */
static inline uint64_t iter_value(const struct iter_item *it,
				  const struct iter_stats *st)
{
	return st->cycles ? it->cyc_lo : it->ticks;
}

#endif /* ITER_H */
