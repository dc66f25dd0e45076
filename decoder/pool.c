/* pool -- worker threads running numbered units in order. */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "pool.h"

#define PENDING	1		/* a unit's status before it ran */

struct pool_thread {
	struct pool *p;
	unsigned id;
	pthread_t th;
};

struct pool {
	struct pool_cfg cfg;
	struct pool_thread *th;
	unsigned nth;			/* threads started */

	pthread_mutex_t lock;
	pthread_cond_t cond;
	int *status;			/* per unit: PENDING, 0 or < 0 */
	size_t next;			/* the next unit to hand out */
	size_t merged;			/* units merged (pool_merge()) */
	size_t done;			/* units below it all returned 0 */
	int fail;			/* the first failure but a cancel */
	unsigned running;		/* workers not yet stopped */
	int finished;
	int final;			/* pool_wait()'s answer, at the end */
	int joined;
};

unsigned pool_threads(unsigned n)
{
	long ncpu;

	if (!n) {
		ncpu = sysconf(_SC_NPROCESSORS_ONLN);
		n = ncpu > 0 ? (unsigned)ncpu : 1;
	}
	return n > POOL_MAX_THREADS ? POOL_MAX_THREADS : n;
}

static int canceled(const struct pool *p)
{
	return atomic_load_explicit(p->cfg.cancel, memory_order_relaxed);
}

/*
 * Wait on the condition, but never for long: the owner's cancel flag is set
 * without the lock (it must be safe in a signal handler, where taking the
 * lock to broadcast is not), so a waiter must look at it again by itself.
 */
static void wait_briefly(struct pool *p)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += 20 * 1000 * 1000;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(&p->cond, &p->lock, &ts);
}

/* A worker stops (lock held); the last one settles the answer. */
static void worker_stop(struct pool *p, unsigned n)
{
	p->running -= n;
	if (p->running)
		return;
	p->final = p->fail ? p->fail :
		   p->done == p->cfg.nunits ? 0 : -pte_canceled;
	p->finished = 1;
	pthread_cond_broadcast(&p->cond);
}

/* Record unit @k's result @ret (lock held). */
static void unit_done(struct pool *p, size_t k, int ret)
{
	p->status[k] = ret;
	if (ret < 0) {
		/* The first real failure wins over the cancels it causes in
		 * the other workers. */
		if (ret != -pte_canceled && !p->fail)
			p->fail = ret;
		atomic_store(p->cfg.cancel, 1);
	}
	while (p->done < p->cfg.nunits && p->status[p->done] == 0)
		p->done++;
	pthread_cond_broadcast(&p->cond);
}

static void *worker(void *arg)
{
	struct pool_thread *t = arg;
	struct pool *p = t->p;
	size_t k;
	int ret;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (p->next < p->cfg.nunits && p->cfg.window &&
		       p->next >= p->merged + p->cfg.window && !canceled(p))
			wait_briefly(p);
		if (p->next >= p->cfg.nunits || canceled(p))
			break;
		k = p->next++;
		pthread_mutex_unlock(&p->lock);
		ret = p->cfg.run(p->cfg.ctx, t->id, k);
		pthread_mutex_lock(&p->lock);
		unit_done(p, k, ret < 0 ? ret : 0);
	}
	worker_stop(p, 1);
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int pool_start(struct pool **out, const struct pool_cfg *cfg)
{
	struct pool *p;
	unsigned i;
	size_t k;

	if (!out || !cfg || !cfg->run || !cfg->cancel)
		return -pte_invalid;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -pte_nomem;
	p->cfg = *cfg;
	p->cfg.nthreads = pool_threads(cfg->nthreads);
	k = cfg->nunits ? cfg->nunits : 1;
	p->status = malloc(k * sizeof(*p->status));
	p->th = calloc(p->cfg.nthreads, sizeof(*p->th));
	if (!p->status || !p->th)
		goto out_free;
	for (k = 0; k < cfg->nunits; k++)
		p->status[k] = PENDING;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	/* Count every worker before any runs, so none settles the answer
	 * while others are still being created. */
	p->running = p->cfg.nthreads;
	for (i = 0; i < p->cfg.nthreads; i++) {
		p->th[i].p = p;
		p->th[i].id = i;
		if (pthread_create(&p->th[i].th, NULL, worker, &p->th[i]))
			break;
		p->nth++;
	}
	if (p->nth < p->cfg.nthreads) {
		pthread_mutex_lock(&p->lock);
		worker_stop(p, p->cfg.nthreads - p->nth);
		pthread_mutex_unlock(&p->lock);
	}
	if (!p->nth) {
		pthread_mutex_destroy(&p->lock);
		pthread_cond_destroy(&p->cond);
		goto out_free;
	}
	*out = p;
	return 0;

out_free:
	free(p->th);
	free(p->status);
	free(p);
	return -pte_nomem;
}

unsigned pool_nthreads(const struct pool *p)
{
	return p ? p->nth : 0;
}

int pool_merge(struct pool *p, int (*merge)(void *ctx, size_t unit))
{
	size_t k;
	int ret = 0, st;

	if (!p || !merge)
		return -pte_invalid;
	for (k = 0; k < p->cfg.nunits; k++) {
		pthread_mutex_lock(&p->lock);
		while (p->status[k] == PENDING &&
		       !(canceled(p) && k >= p->next))
			wait_briefly(p);
		st = p->status[k] == PENDING ? -pte_canceled : p->status[k];
		pthread_mutex_unlock(&p->lock);
		if (st < 0) {
			ret = st;
			break;
		}
		ret = merge(p->cfg.ctx, k);
		if (ret < 0)
			break;
		pthread_mutex_lock(&p->lock);
		p->merged = k + 1;
		pthread_cond_broadcast(&p->cond);
		pthread_mutex_unlock(&p->lock);
	}
	if (ret < 0) {
		atomic_store(p->cfg.cancel, 1);
		pthread_mutex_lock(&p->lock);
		pthread_cond_broadcast(&p->cond);
		pthread_mutex_unlock(&p->lock);
	}
	return ret;
}

size_t pool_done(struct pool *p)
{
	size_t n;

	if (!p)
		return 0;
	pthread_mutex_lock(&p->lock);
	n = p->done;
	pthread_mutex_unlock(&p->lock);
	return n;
}

int pool_finished(struct pool *p, int *status)
{
	int f;

	if (!p)
		return 0;
	pthread_mutex_lock(&p->lock);
	f = p->finished;
	if (f && status)
		*status = p->final;
	pthread_mutex_unlock(&p->lock);
	return f;
}

int pool_wait(struct pool *p)
{
	unsigned i;
	int ret;

	if (!p)
		return -pte_invalid;
	pthread_mutex_lock(&p->lock);
	if (!p->joined) {
		p->joined = 1;
		pthread_mutex_unlock(&p->lock);
		for (i = 0; i < p->nth; i++)
			pthread_join(p->th[i].th, NULL);
		pthread_mutex_lock(&p->lock);
	}
	/* A second waiter may get here before the joins end. */
	while (!p->finished)
		wait_briefly(p);
	ret = p->final;
	pthread_mutex_unlock(&p->lock);
	return ret;
}

void pool_free(struct pool *p)
{
	if (!p)
		return;
	pool_wait(p);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
	free(p->th);
	free(p->status);
	free(p);
}
