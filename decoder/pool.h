/*
 * pool -- a few worker threads running numbered units of work in order.
 *
 * The index builder and the background search both cut their work into
 * units 0 .. n-1 and run them on all cores.  Workers take units in
 * ascending order.  The owner may merge the results in that order from
 * its own thread (pool_merge()); with a window, no worker runs further
 * than that many units ahead of the merge, which bounds the memory held
 * by results not yet merged.
 *
 * Cancelling is a flag the owner holds (it may be set from a signal
 * handler, where taking a lock is not allowed), so waits inside the pool
 * are short and look at the flag again by themselves.
 */
#ifndef POOL_H
#define POOL_H

#include <stdatomic.h>
#include <stddef.h>

#include "ptdec.h"

/* The most threads a pool runs. */
#define POOL_MAX_THREADS 64

struct pool;

/* What a pool runs. */
struct pool_cfg {
	unsigned nthreads;	/* 0: one per online CPU (pool_threads()) */
	size_t nunits;		/* units 0 .. nunits - 1 */
	size_t window;		/* 0: no limit; else units handed out stay
				 * below the merged ones + window */
	/* Run unit @unit on worker @worker (0 .. nthreads - 1; a worker
	 * runs one unit at a time).  Returns 0, or a negative pte code,
	 * which cancels the pool. */
	int (*run)(void *ctx, unsigned worker, size_t unit);
	void *ctx;
	atomic_int *cancel;	/* the owner's cancel flag; the pool sets it
				 * when a unit fails */
};

/* How many threads a pool asked for @n runs: @n (0: one per online CPU),
 * at most POOL_MAX_THREADS. */
unsigned pool_threads(unsigned n);

/* Start the workers of @cfg (copied; its nthreads resolved by
 * pool_threads()).  Fewer threads than asked may start.
 * Returns 0 and sets *@out (free with pool_free()), -pte_invalid if an
 * argument is NULL, or -pte_nomem if out of memory or no thread could
 * start. */
int pool_start(struct pool **out, const struct pool_cfg *cfg);

/* The number of threads that started (at most cfg.nthreads). */
unsigned pool_nthreads(const struct pool *p);

/* In the calling thread, call @merge(cfg.ctx, k) for k = 0, 1, ... as each
 * unit k has run; call it at most once per pool.
 * Returns 0 when every unit was merged; the first failure of a unit (in
 * unit order) or of @merge; or -pte_canceled if the cancel flag stopped
 * the units first.  On failure it sets the cancel flag. */
int pool_merge(struct pool *p, int (*merge)(void *ctx, size_t unit));

/* The number of units 0 .. k - 1 that have all run successfully: every
 * result of a unit below it is there. */
size_t pool_done(struct pool *p);

/* Whether every worker has stopped; if so, *@status (may be NULL) is what
 * pool_wait() returns. */
int pool_finished(struct pool *p, int *status);

/* Wait for every worker to stop (several threads may wait).
 * Returns 0 if every unit ran; the first failure of a unit other than
 * -pte_canceled; else -pte_canceled. */
int pool_wait(struct pool *p);

/* Wait for the workers (pool_wait()) and free @p (NULL is fine); set the
 * cancel flag first to stop them soon. */
void pool_free(struct pool *p);

#endif /* POOL_H */
