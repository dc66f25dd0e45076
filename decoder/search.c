/* search -- the background search on all cores, its hits, n and N. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "pool.h"
#include "search_int.h"

/*
 * The background search.  The range is cut into jobs ordered by distance
 * from the start in the search direction ("key": 1 is the nearest byte,
 * the start itself is the farthest, reached after wrapping).  Workers take
 * jobs in that order; hits go to a sorted array of the nearest max_hits.
 */

struct job {
	uint64_t a, b;		/* hits in [a, b) */
	uint64_t kmin;		/* the smallest key in the job */
	uint64_t rep;		/* progress reported up to */
};

struct srch {
	const struct img *img;
	struct idx *idx;
	struct srch_pred pred;
	struct srch_opts o;
	uint64_t from, size;
	int dir;

	struct job *jobs;
	size_t njobs;
	struct pool *pool;	/* runs the jobs */
	struct worker *workers;	/* one per pool thread */

	pthread_mutex_t lock;
	uint64_t *keys;		/* sorted, nkept of max_hits; under lock */
	uint64_t *tmp;		/* merge buffer */
	size_t nkept;
	int truncated;		/* hits beyond the kept ones were dropped */
	atomic_uint_fast64_t kmax;	/* the largest kept key once full */
	atomic_uint_fast64_t nhits;
	atomic_uint_fast64_t done;
	uint64_t total;

	atomic_int cancel;
};

/* Per-worker state. */
struct worker {
	struct srch *s;
	struct scan sc;
	struct job *job;
	uint64_t keys[LOCAL_HITS];
	size_t n;
	uint64_t count;
	int flushed_first;
	int dropped;		/* hits farther than every kept one */
};

static uint64_t key_of(const struct srch *s, uint64_t o)
{
	if (s->dir > 0)
		return o > s->from ? o - s->from : o + s->size - s->from;
	return o < s->from ? s->from - o : s->from + s->size - o;
}

static uint64_t off_of(const struct srch *s, uint64_t k)
{
	if (s->dir > 0)
		return s->from + k < s->size ? s->from + k : s->from + k - s->size;
	return k <= s->from ? s->from - k : s->from + s->size - k;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Merge the worker's hits into the kept set. */
static void flush(struct worker *w)
{
	struct srch *s = w->s;
	size_t i = 0, j = 0, n = 0, max = s->o.max_hits;

	atomic_fetch_add(&s->nhits, w->count);
	w->count = 0;
	if (!w->n && !w->dropped)
		return;
	qsort(w->keys, w->n, sizeof(w->keys[0]), cmp_u64);
	pthread_mutex_lock(&s->lock);
	if (w->dropped)
		s->truncated = 1;
	w->dropped = 0;
	while (n < max && (i < s->nkept || j < w->n)) {
		if (j >= w->n || (i < s->nkept && s->keys[i] <= w->keys[j]))
			s->tmp[n++] = s->keys[i++];
		else
			s->tmp[n++] = w->keys[j++];
	}
	if (i < s->nkept || j < w->n)
		s->truncated = 1;
	memcpy(s->keys, s->tmp, n * sizeof(s->keys[0]));
	s->nkept = n;
	if (n == max)
		atomic_store(&s->kmax, s->keys[n - 1]);
	pthread_mutex_unlock(&s->lock);
	w->n = 0;
}

static int worker_hit(void *arg, const struct pkt *pkt)
{
	struct worker *w = arg;
	uint64_t k = key_of(w->s, pkt->offset);

	w->count++;
	if (k > atomic_load_explicit(&w->s->kmax, memory_order_relaxed)) {
		/* Farther than every kept hit: counted, not kept. */
		w->dropped = 1;
		return 0;
	}
	w->keys[w->n++] = k;
	if (w->n == LOCAL_HITS || !w->flushed_first) {
		w->flushed_first = 1;
		flush(w);
	}
	return 0;
}

static void worker_progress(void *arg, uint64_t upto)
{
	struct worker *w = arg;
	struct job *j = w->job;

	if (upto > j->b)
		upto = j->b;
	if (upto > j->rep) {
		atomic_fetch_add(&w->s->done, upto - j->rep);
		j->rep = upto;
	}
}

/* One job, in the guard's frame. */
struct job_arg {
	struct scan *sc;
	const struct job *job;
};

static int job_body(void *arg)
{
	struct job_arg *ja = arg;

	return srch_scan_range(ja->sc, ja->job->a, ja->job->b);
}

/* Whether job @j need not run: with the count known, its hits would all
 * be farther than every kept one (which are then not all the hits). */
static int job_beyond(struct srch *s, const struct job *j)
{
	int beyond;

	if (!s->o.known_hits)
		return 0;
	pthread_mutex_lock(&s->lock);
	beyond = s->nkept == s->o.max_hits && j->kmin > s->keys[s->nkept - 1];
	if (beyond)
		s->truncated = 1;
	pthread_mutex_unlock(&s->lock);
	return beyond;
}

/* Run job @j on worker @wi (struct pool_cfg.run). */
static int job_run(void *ctx, unsigned wi, size_t j)
{
	struct srch *s = ctx;
	struct worker *w = &s->workers[wi];
	int rc;

	w->job = &s->jobs[j];
	w->job->rep = w->job->a;
	w->flushed_first = 0;
	if (job_beyond(s, w->job)) {
		worker_progress(w, w->job->b);
		return 0;
	}
	if (s->o.guard) {
		struct job_arg ja = { &w->sc, w->job };

		rc = s->o.guard(job_body, &ja);
	} else {
		rc = srch_scan_range(&w->sc, w->job->a, w->job->b);
	}
	flush(w);
	if (rc < 0)
		return rc;
	worker_progress(w, w->job->b);
	return 0;
}

/* Set worker @w of search @s up. */
static void worker_init(struct worker *w, struct srch *s)
{
	w->s = s;
	w->sc.pred = &s->pred;
	w->sc.img = s->img;
	w->sc.idx = s->idx;
	w->sc.cancel = &s->cancel;
	w->sc.skip = !s->o.no_skip;
	w->sc.prefilter = !s->o.no_prefilter;
	w->sc.time_same = srch_time_same(&s->pred, s->idx);
	w->sc.hit = worker_hit;
	w->sc.progress = worker_progress;
	w->sc.arg = w;
}

/* Cut [lo, hi) into jobs in key order, growing from @*size. */
static int add_jobs(struct srch *s, uint64_t lo, uint64_t hi, uint64_t *size,
		    size_t *cap)
{
	while (lo < hi) {
		uint64_t n = hi - lo < *size ? hi - lo : *size;
		struct job *j;

		if (s->njobs == *cap) {
			size_t nc = *cap ? *cap * 2 : 64;
			struct job *nj = realloc(s->jobs, nc * sizeof(*nj));

			if (!nj)
				return -pte_nomem;
			s->jobs = nj;
			*cap = nc;
		}
		j = &s->jobs[s->njobs++];
		if (s->dir > 0) {
			j->a = lo;
			j->b = lo + n;
			lo += n;
		} else {
			j->a = hi - n;
			j->b = hi;
			hi -= n;
		}
		j->kmin = key_of(s, s->dir > 0 ? j->a : j->b - 1);
		if (*size < s->o.job_size)
			*size = *size * 2 < s->o.job_size ? *size * 2 : s->o.job_size;
	}
	return 0;
}

/* The jobs of @s: from the start in the search direction to the end,
 * then (wrapping) the rest.  Returns 0 or -pte_nomem. */
static int plan_jobs(struct srch *s)
{
	uint64_t js = FIRST_JOB;
	size_t cap = 0, i;

	if (js > s->o.job_size)
		js = s->o.job_size;
	if (s->dir > 0) {
		if (s->from + 1 <= s->size &&
		    add_jobs(s, s->from + 1, s->size, &js, &cap))
			return -pte_nomem;
		if (!s->o.no_wrap &&
		    add_jobs(s, 0, s->from + 1 < s->size ? s->from + 1 : s->size,
			     &js, &cap))
			return -pte_nomem;
	} else {
		if (add_jobs(s, 0, s->from, &js, &cap))
			return -pte_nomem;
		if (!s->o.no_wrap && add_jobs(s, s->from, s->size, &js, &cap))
			return -pte_nomem;
	}
	for (i = 0; i < s->njobs; i++)
		s->total += s->jobs[i].b - s->jobs[i].a;
	return 0;
}

/* Free what srch_start_opts() made of @s (no pool running). */
static void srch_destroy(struct srch *s)
{
	free(s->workers);
	free(s->tmp);
	free(s->keys);
	free(s->jobs);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

int srch_start_opts(struct srch **out, const struct img *img,
		    struct idx *idx, const struct srch_pred *pred,
		    uint64_t from, int dir, const struct srch_opts *opts)
{
	struct pool_cfg cfg = { .run = job_run };
	struct srch *s;
	unsigned i;
	int rc;

	if (!out || !img || !pred || !dir)
		return -pte_invalid;
	if (pred->has_ns && !pred->calibrated)
		return -pte_no_calib;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -pte_nomem;
	s->img = img;
	s->idx = idx;
	s->pred = *pred;
	if (opts)
		s->o = *opts;
	if (!s->o.max_hits)
		s->o.max_hits = DEFAULT_HITS;
	if (!s->o.job_size)
		s->o.job_size = DEFAULT_JOB;
	s->o.nthreads = pool_threads(s->o.nthreads);
	s->size = img->size;
	s->dir = dir > 0 ? 1 : -1;
	/* Forward from past the end is forward from the last byte: every
	 * hit then lies after wrapping (and keys stay >= 1). */
	if (s->dir > 0)
		s->from = from < img->size ? from : img->size ? img->size - 1 : 0;
	else
		s->from = from < img->size ? from : img->size;
	atomic_init(&s->kmax, UINT64_MAX);
	atomic_init(&s->nhits, 0);
	atomic_init(&s->done, 0);
	atomic_init(&s->cancel, 0);
	pthread_mutex_init(&s->lock, NULL);
	rc = plan_jobs(s);
	s->keys = malloc(s->o.max_hits * sizeof(*s->keys));
	s->tmp = malloc(s->o.max_hits * sizeof(*s->tmp));
	s->workers = calloc(s->o.nthreads, sizeof(*s->workers));
	if (rc < 0 || !s->keys || !s->tmp || !s->workers) {
		srch_destroy(s);
		return -pte_nomem;
	}
	for (i = 0; i < s->o.nthreads; i++)
		worker_init(&s->workers[i], s);
	cfg.nthreads = s->o.nthreads;
	cfg.nunits = s->njobs;
	cfg.ctx = s;
	cfg.cancel = &s->cancel;
	rc = pool_start(&s->pool, &cfg);
	if (rc < 0) {
		srch_destroy(s);
		return rc;
	}
	*out = s;
	return 0;
}

int srch_start(struct srch **out, const struct img *img, struct idx *idx,
	       const struct srch_pred *pred, uint64_t from, int dir)
{
	return srch_start_opts(out, img, idx, pred, from, dir, NULL);
}

void srch_cancel(struct srch *s)
{
	if (s)
		atomic_store(&s->cancel, 1);
}

/* Whether every job ran. */
static int all_done(const struct srch *s)
{
	return pool_done(s->pool) >= s->njobs;
}

int srch_wait(struct srch *s)
{
	if (!s)
		return -pte_invalid;
	return pool_wait(s->pool);
}

void srch_free(struct srch *s)
{
	if (!s)
		return;
	srch_cancel(s);
	pool_free(s->pool);
	srch_destroy(s);
}

/* The first key not yet known for certain; under lock. */
static uint64_t known_below(const struct srch *s)
{
	size_t fu = pool_done(s->pool);
	uint64_t k = fu >= s->njobs ? UINT64_MAX : s->jobs[fu].kmin;

	/* Beyond the farthest kept hit, dropped hits may lie. */
	if (s->truncated && s->nkept && s->keys[s->nkept - 1] < k)
		k = s->keys[s->nkept - 1] + 1;
	return k;
}

static int wrapped_key(const struct srch *s, uint64_t k)
{
	return s->dir > 0 ? k >= s->size - s->from : k > s->from;
}

void srch_status(struct srch *s, struct srch_status *st)
{
	memset(st, 0, sizeof(*st));
	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	st->done = atomic_load(&s->done);
	st->total = s->total;
	st->nhits = atomic_load(&s->nhits);
	if (s->o.known_hits) {
		st->nhits = s->o.known_hits;
		st->count_known = 1;
	}
	st->nkept = s->nkept;
	if (s->nkept) {
		uint64_t k = s->keys[0];
		size_t fu = pool_done(s->pool);
		int certain = k < known_below(s);

		/* Forward, a running job finds its hits nearest first, and
		 * flushes the first one at once. */
		if (!certain && s->dir > 0 && fu < s->njobs &&
		    fu + 1 < s->njobs && k < s->jobs[fu + 1].kmin)
			certain = 1;
		if (!certain && s->dir > 0 && fu < s->njobs && fu + 1 == s->njobs)
			certain = 1;
		if (certain) {
			st->have_first = 1;
			st->first = off_of(s, k);
			st->first_wrapped = wrapped_key(s, k);
		}
	}
	st->finished = pool_finished(s->pool, &st->status);
	pthread_mutex_unlock(&s->lock);
}

/* The index of the first kept key > @k. */
static size_t upper(const struct srch *s, uint64_t k)
{
	size_t lo = 0, hi = s->nkept;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->keys[mid] <= k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int srch_next_hit(struct srch *s, uint64_t off, int dir, uint64_t *hit,
		  int *wrapped)
{
	uint64_t kq, known, k;
	size_t i;
	int complete, rc = 1;

	if (!s || !hit || !dir)
		return -pte_invalid;
	pthread_mutex_lock(&s->lock);
	complete = all_done(s) && !s->truncated;
	known = known_below(s);
	if (complete && !s->nkept) {
		rc = -pte_eos;
		goto out;
	}
	/* Forward from the end is forward from the last byte (to the top). */
	if (off > s->size)
		off = s->size;
	if (dir > 0 && off == s->size && off)
		off--;
	/* A hit at the start has key size: the far end of the ring, which
	 * is also where the start lies (key 0) going on. */
	kq = key_of(s, off);
	if ((dir > 0) == (s->dir > 0)) {
		if (kq >= s->size)
			kq = 0;
		i = upper(s, kq);
		if (i < s->nkept && s->keys[i] < known) {
			k = s->keys[i];
		} else if (complete) {
			k = s->keys[0];
		} else {
			goto out;
		}
	} else {
		/* The largest key below kq, if nothing unknown lies between. */
		i = upper(s, kq ? kq - 1 : 0);
		if (kq && i > 0 && kq <= known) {
			k = s->keys[i - 1];
		} else if (complete) {
			k = s->keys[s->nkept - 1];
		} else {
			goto out;
		}
	}
	*hit = off_of(s, k);
	if (wrapped)
		*wrapped = dir > 0 ? *hit <= off : *hit >= off;
	rc = 0;
out:
	pthread_mutex_unlock(&s->lock);
	return rc;
}

size_t srch_hits(struct srch *s, uint64_t lo, uint64_t hi, uint64_t *out,
		 size_t n)
{
	size_t i, m = 0;

	if (!s || !out)
		return 0;
	pthread_mutex_lock(&s->lock);
	for (i = 0; i < s->nkept && m < n; i++) {
		uint64_t o = off_of(s, s->keys[i]);

		if (o >= lo && o < hi)
			out[m++] = o;
	}
	pthread_mutex_unlock(&s->lock);
	qsort(out, m, sizeof(*out), cmp_u64);
	return m;
}
