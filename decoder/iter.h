/*
 * iter -- loop iterations found from the trace: the hits of a search
 * predicate (a loop head's tip, a function's entry, a payload) taken as
 * iteration boundaries, each given its time and cycle count by the time
 * model, and the iterations between consecutive boundaries with their
 * durations and statistics.
 *
 * A job walks the image in the background on all cores, in one pass
 * over units of PSB segments taken in a spread order (the first units
 * done lie all over the trace), so that a picture of the units walked so
 * far (iter_partial()) stands for the whole early.  Each unit first runs
 * the predicate alone: the boundaries, and where data was lost (an OVF,
 * a decode error or a gap between spans, which breaks the iteration it
 * falls in); a segment that cannot hold a boundary (its index summary or
 * its bytes rule one out: srch_segment_may_hit()) is not decoded.  Then
 * it gives a time to each boundary a measured iteration may start or end
 * at, walking its segment from the index's time carry there (the time
 * pass's state, so the time is the one every other view shows, whatever
 * the cut: test_iter checks one thread against several); the last
 * boundary of a unit after lost data is timed once all are done, if the
 * next unit's first one says it needs it.  Then a boundary between two
 * broken iterations keeps no time (iter_bound.timed 0), and one whose
 * time the next PSB+ TSC takes back is disputed (iter_bound.ahead).  The
 * result is that of one walk through every packet from the start
 * (iter_opts.straight; test_iter compares them).  A boundary's cycles
 * are exact (TM_F_EXACT) or bounded: at or after its lower bound and
 * before the count at the next CYC, which the walk records as the upper
 * bound.
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
	uint8_t disputed;	/* timed, and tsc lies in damaged time: its
				 * segment's TSC contradicts its neighbours'
				 * (idx_time_outlier()), tsc is past the
				 * segment's ceiling where that is damage
				 * (idx_time_damage_ceiling()), or ahead */
	uint8_t anchor;		/* timed, and tsc is a timing packet's own
				 * time: a TSC, or an MTC the configuration
				 * places, not held back nor after lost data
				 * (as a region's edges, marks_summary.c) */
	uint8_t ahead;		/* timed, and the TSC of the PSB+ after it
				 * took time back (TM_F_RESYNC): the time
				 * since the PSB+ TSC before it ran ahead
				 * (an MTC or TSC damaged, say), by how much
				 * is not known */
};

/* One iteration: from boundary @from to the next one. */
struct iter_item {
	size_t from;		/* index of its first boundary */
	uint64_t ticks;		/* duration, TSC ticks (the model's estimate) */
	uint64_t ns;		/* iter_stats.ns: duration in nanoseconds, the
				 * difference of its ends' times as the panes
				 * show them (tm_tsc_to_ns() of each: perf's
				 * conversion rounds each end, so it is not a
				 * function of ticks alone); else 0 */
	uint64_t cyc_lo, cyc_hi;	/* duration in cycles: exact if equal;
					 * cyc_hi UINT64_MAX: unbounded */
	uint8_t has_cyc;	/* both ends have CYC cycles */
	uint8_t broken;		/* data lost inside: durations not measured */
	uint8_t disputed;	/* an end's time is disputed (iter_bound):
				 * ticks measure nothing (cycles do) */
	uint8_t exact;		/* both ends are anchors (iter_bound), not
				 * disputed: ticks exact, else the model's
				 * estimate */
	uint8_t no_tsc;		/* an end has no TSC-based time (before the
				 * trace's first TSC, or none in it): ticks
				 * 0, they measure nothing (cycles do) */
};

/* Statistics of the measured (not broken) iterations. */
struct iter_stats {
	size_t n;		/* measured iterations */
	size_t nbroken;		/* iterations with data lost inside */
	size_t ndisputed;	/* not broken, but left out of a measure in
				 * time (cycles 0): an end's time disputed */
	size_t nnotsc;		/* not broken nor disputed, but left out of
				 * a measure in time (cycles 0): an end
				 * without a TSC-based time (no_tsc) */
	size_t nexact;		/* measured ones whose ticks are exact */
	int cycles;		/* 1: every one is cycle-exact, so values are
				 * cycles; 0: time, in ns or ticks (ns) */
	int ns;			/* not cycles, and the configuration converts
				 * TSC to time (tm_tsc_to_ns()): values are
				 * nanoseconds (iter_item.ns); 0: TSC ticks */
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
	/* Tests: each worker waits this many milliseconds after each unit
	 * it walked (and iter_partial() shows), so that a walk of a small
	 * trace lasts long enough to be seen while it runs; a long wait
	 * holds a picture still until the job is cancelled.  0: none. */
	unsigned pace_ms;
};

/* A snapshot of a job. */
struct iter_progress {
	uint64_t done, total;	/* bytes walked (in the units done), bytes
				 * in all */
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
 * statistics in @st; times in ns as @cfg converts TSCs (NULL, or no
 * conversion: in ticks).
 * Returns 0, -pte_invalid if an argument is NULL (but @cfg), or
 * -pte_nomem. */
int iter_items(const struct iter_bound *b, size_t nb, const struct tm_config *cfg,
	       struct iter_item **out, size_t *n, struct iter_stats *st);

/* A picture of a job: its result once finished, else the iterations
 * found so far. */
struct iter_snap {
	struct iter_bound *b;	/* the boundaries known, in offset order */
	size_t nb;
	struct iter_item *items;	/* the iterations known, in boundary
					 * order; from indexes b */
	size_t n;
	struct iter_stats st;	/* of the items */
	size_t *order;		/* the measured items (st.n of them),
				 * slowest first, ties in boundary order */
	uint64_t done, total;	/* bytes walked, in all */
	int final;		/* the result: iter_bounds(), and iter_items()
				 * of them */
	int truncated;		/* final, and stopped at max_bounds */
};

/* A picture of @j into @s (free it with iter_snap_free()).  Once @j has
 * finished, its result (final set).  While it runs, the iterations
 * between boundaries of the units already walked: each run of
 * consecutive units done gives its boundaries and the iterations between
 * them (one that crosses from unit to unit counts once both are done).
 * No iteration ends at a run's first boundary (data lost before it is
 * not known yet), nor starts at a unit's last boundary after lost data
 * (whether it needs its time is known at the end).  Each measured item
 * is the result's for the same two boundaries, so a picture never has
 * more; except on a trace with more than max_bounds boundaries: once the
 * units done hold max_bounds, the picture keeps to the front units (and
 * their first max_bounds boundaries), but before that it may show
 * iterations the result (the first max_bounds) leaves out.  A broken
 * item's ticks and cycles (nothing measured) may differ from the
 * result's at the ends of a run, and so may a boundary's times and lost
 * flag.  It may be called from any thread while the walk runs (it takes
 * the job's lock for a copy of the units done), but not at the same time
 * as iter_free(@j) nor after it.
 * Returns 0 and fills @s.
 * Returns -pte_invalid if an argument is NULL.
 * Returns the job's status if it finished with an error (@s holds only
 * total).
 * Returns -pte_nomem if out of memory (@s holds only total). */
int iter_partial(struct iter_job *j, struct iter_snap *s);

/* Free what @s holds and clear it (NULL is fine). */
void iter_snap_free(struct iter_snap *s);

/* The value iterations are ranked by, and the statistics are of: cycles
 * when @st says every measured one is cycle-exact, else nanoseconds
 * where the configuration converts TSCs, else TSC ticks. */
static inline uint64_t iter_value(const struct iter_item *it,
				  const struct iter_stats *st)
{
	return st->cycles ? it->cyc_lo : st->ns ? it->ns : it->ticks;
}

#endif /* ITER_H */
