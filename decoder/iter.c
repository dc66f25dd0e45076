/*
 * iter -- loop iterations from the hits of a predicate (iter.h): the walk
 * in a background thread, then durations and statistics.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "iter.h"
#include "tm.h"

#define ITER_MAX_BOUNDS	((size_t)1 << 22)
#define CANCEL_STEP	(256u << 10)	/* bytes between cancel checks */

struct iter_job {
	const struct img *img;
	const struct idx *idx;
	struct srch_pred *pred;
	struct tm_config cfg;
	struct iter_opts opts;
	pthread_t thread;
	atomic_int cancel;
	atomic_int finished;
	atomic_uint_fast64_t done;
	atomic_size_t nbounds;
	int status;
	int truncated;
	int joined;
	struct iter_bound *b;	/* the thread's until finished */
	size_t cap;
};

/* The walk's state across segments. */
struct iter_walk {
	struct iter_job *j;
	struct tm_model tm;
	int lost;		/* data lost since the last boundary */
	int want_hi;		/* the last boundary awaits its upper bound */
};

static int iter_push(struct iter_job *j, const struct iter_bound *b)
{
	size_t n = atomic_load(&j->nbounds);

	if (n == j->cap) {
		size_t cap = j->cap ? j->cap * 2 : 1024;
		struct iter_bound *v;

		if (cap > j->opts.max_bounds)
			cap = j->opts.max_bounds;
		if (n == cap)
			return 1;
		v = realloc(j->b, cap * sizeof(*v));
		if (!v)
			return -pte_nomem;
		j->b = v;
		j->cap = cap;
	}
	j->b[n] = *b;
	atomic_store(&j->nbounds, n + 1);
	return 0;
}

/* Feed packet @pkt: a boundary if the predicate holds, the upper cycle
 * bound of the last boundary at the next CYC.
 * Returns 0, 1 at max_bounds, or -pte_nomem. */
static int iter_packet(struct iter_walk *w, struct srch_ctx *ctx,
		       const struct pkt *pkt)
{
	struct iter_job *j = w->j;
	struct tm_stamp st;
	struct iter_bound b;
	int r;

	srch_step(ctx, pkt);
	if (pkt->type == PKT_OVF)
		w->lost = 1;
	if (!srch_match(j->pred, pkt, ctx)) {
		if (w->want_hi && pkt->type == PKT_CYC) {
			tm_step(&w->tm, pkt, &st);
			j->b[atomic_load(&j->nbounds) - 1].cyc_hi = st.cycles;
			w->want_hi = 0;
			return 0;
		}
		tm_advance(&w->tm, pkt);
		return 0;
	}
	tm_step(&w->tm, pkt, &st);
	memset(&b, 0, sizeof(b));
	b.offset = pkt->offset;
	b.tsc = st.tsc;
	b.cyc_lo = st.cycles;
	b.cyc_hi = (st.flags & TM_F_BOUNDED) ? UINT64_MAX : st.cycles;
	b.flags = st.flags;
	b.lost = (uint8_t)(w->lost || (st.flags & TM_F_OVF));
	r = iter_push(j, &b);
	if (r)
		return r;
	w->lost = 0;
	w->want_hi = (st.flags & TM_F_BOUNDED) != 0;
	return 0;
}

/* Walk segment [@off, @end) from its PSB.
 * Returns 0, 1 at max_bounds, -pte_canceled or -pte_nomem. */
static int iter_segment(struct iter_walk *w, uint64_t off, uint64_t end)
{
	struct iter_job *j = w->j;
	struct img_cursor cur;
	struct srch_ctx ctx;
	struct pkt pkt;
	uint64_t next = off + CANCEL_STEP;
	int r;

	if (img_gap_at(j->img, off)) {
		tm_gap(&w->tm);
		w->lost = 1;
	}
	if (img_cursor_init(&cur, j->img, off) < 0)
		return 0;
	srch_ctx_init(&ctx, j->pred, j->img);
	while (img_cursor_offset(&cur) < end) {
		if (img_cursor_offset(&cur) >= next) {
			if (atomic_load(&j->cancel))
				return -pte_canceled;
			atomic_store(&j->done, img_cursor_offset(&cur));
			next = img_cursor_offset(&cur) + CANCEL_STEP;
		}
		r = img_cursor_next(&cur, &pkt);
		if (r == -pte_eos)
			return 0;
		if (cur.gap) {
			cur.gap = 0;
			tm_gap(&w->tm);
			w->lost = 1;
		}
		if (r >= 0 && pkt.offset + pkt.size > end)
			r = -pte_truncated;
		if (r < 0) {
			/* As the time pass: the rest of the segment is lost. */
			tm_gap(&w->tm);
			w->lost = 1;
			w->want_hi = 0;
			return 0;
		}
		r = iter_packet(w, &ctx, &pkt);
		if (r)
			return r;
	}
	return 0;
}

static int iter_body(void *arg)
{
	struct iter_job *j = arg;
	struct iter_walk w = { .j = j };
	struct idx_seek sk, nx;
	struct tm_carry c;
	size_t i, n = idx_nseeks(j->idx);
	int r;

	tm_init(&w.tm, &j->cfg);
	if (!n || idx_seek(j->idx, 0, &sk))
		return 0;
	r = idx_seek_carry(j->idx, 0, &c);
	if (r < 0)
		return r;
	if (!r)
		tm_restore(&w.tm, &c);
	for (i = 0; i < n; i++, sk = nx) {
		uint64_t end = j->img->size;

		if (i + 1 < n && !idx_seek(j->idx, i + 1, &nx))
			end = nx.offset;
		r = iter_segment(&w, sk.offset, end);
		if (r)
			return r;
		atomic_store(&j->done, end);
	}
	return 0;
}

static void *iter_thread(void *arg)
{
	struct iter_job *j = arg;
	int r = j->opts.guard ? j->opts.guard(iter_body, j) : iter_body(j);

	if (r == 1) {
		j->truncated = 1;
		r = 0;
	}
	j->status = r;
	atomic_store(&j->finished, 1);
	return NULL;
}

int iter_start(struct iter_job **out, const struct img *img,
	       const struct idx *idx, const struct srch_pred *pred,
	       const struct tm_config *cfg, const struct iter_opts *opts)
{
	struct iter_job *j;
	struct tm_carry c;

	if (!out || !img || !idx || !pred || !cfg) {
		srch_pred_free((struct srch_pred *)pred);
		return -pte_invalid;
	}
	if (!idx_complete(idx) || idx_seek_carry(idx, 0, &c) == -pte_no_time) {
		srch_pred_free((struct srch_pred *)pred);
		return -pte_no_time;
	}
	j = calloc(1, sizeof(*j));
	if (!j) {
		srch_pred_free((struct srch_pred *)pred);
		return -pte_nomem;
	}
	j->img = img;
	j->idx = idx;
	j->pred = (struct srch_pred *)pred;
	j->cfg = *cfg;
	if (opts)
		j->opts = *opts;
	if (!j->opts.max_bounds)
		j->opts.max_bounds = ITER_MAX_BOUNDS;
	if (pthread_create(&j->thread, NULL, iter_thread, j)) {
		srch_pred_free(j->pred);
		free(j);
		return -pte_nomem;
	}
	*out = j;
	return 0;
}

void iter_progress(struct iter_job *j, struct iter_progress *p)
{
	memset(p, 0, sizeof(*p));
	if (!j)
		return;
	p->total = j->img->size;
	p->done = atomic_load(&j->done);
	p->nbounds = atomic_load(&j->nbounds);
	p->finished = atomic_load(&j->finished);
	if (p->finished) {
		p->status = j->status;
		p->truncated = j->truncated;
		if (!p->status)
			p->done = p->total;
	}
}

void iter_cancel(struct iter_job *j)
{
	if (j)
		atomic_store(&j->cancel, 1);
}

int iter_wait(struct iter_job *j)
{
	if (!j)
		return -pte_invalid;
	if (!j->joined) {
		pthread_join(j->thread, NULL);
		j->joined = 1;
	}
	return j->status;
}

void iter_free(struct iter_job *j)
{
	if (!j)
		return;
	iter_cancel(j);
	iter_wait(j);
	srch_pred_free(j->pred);
	free(j->b);
	free(j);
}

const struct iter_bound *iter_bounds(struct iter_job *j, size_t *n)
{
	*n = 0;
	if (!j || !atomic_load(&j->finished))
		return NULL;
	*n = atomic_load(&j->nbounds);
	return j->b;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The nearest-rank @pct percentile of sorted @v[@n > 0]. */
static uint64_t iter_rank(const uint64_t *v, size_t n, unsigned pct)
{
	size_t k = (size_t)(((unsigned __int128)n * pct + 99) / 100);

	return v[k ? k - 1 : 0];
}

/* Duration of the iteration from @a to @z into @it. */
static void iter_measure(const struct iter_bound *a, const struct iter_bound *z,
			 struct iter_item *it)
{
	it->broken = z->lost;
	it->ticks = z->tsc >= a->tsc ? z->tsc - a->tsc : 0;
	it->has_cyc = (a->flags & TM_F_CYC) && (z->flags & TM_F_CYC);
	if (!it->has_cyc)
		return;
	/* [z.lo - a.hi, z.hi - a.lo]: an unknown bound leaves it open. */
	it->cyc_lo = a->cyc_hi == UINT64_MAX || z->cyc_lo < a->cyc_hi ? 0 :
		z->cyc_lo - a->cyc_hi;
	it->cyc_hi = z->cyc_hi == UINT64_MAX ? UINT64_MAX : z->cyc_hi - a->cyc_lo;
}

int iter_items(const struct iter_bound *b, size_t nb, struct iter_item **out,
	       size_t *n, struct iter_stats *st)
{
	struct iter_item *v;
	uint64_t *val;
	size_t i, k = 0, m = nb > 1 ? nb - 1 : 0;
	double sum = 0;

	if (!out || !n || !st || (!b && nb))
		return -pte_invalid;
	memset(st, 0, sizeof(*st));
	*out = NULL;
	*n = 0;
	v = calloc(m ? m : 1, sizeof(*v));
	val = calloc(m ? m : 1, sizeof(*val));
	if (!v || !val) {
		free(v);
		free(val);
		return -pte_nomem;
	}
	st->cycles = 1;
	for (i = 0; i < m; i++) {
		v[i].from = i;
		iter_measure(&b[i], &b[i + 1], &v[i]);
		if (v[i].broken) {
			st->nbroken++;
			continue;
		}
		st->n++;
		if (!v[i].has_cyc || v[i].cyc_lo != v[i].cyc_hi)
			st->cycles = 0;
	}
	if (!st->n)
		st->cycles = 0;
	for (i = 0; i < m; i++)
		if (!v[i].broken) {
			val[k] = iter_value(&v[i], st);
			sum += (double)val[k++];
		}
	if (k) {
		qsort(val, k, sizeof(*val), u64_cmp);
		st->min = val[0];
		st->max = val[k - 1];
		st->p50 = iter_rank(val, k, 50);
		st->p90 = iter_rank(val, k, 90);
		st->p99 = iter_rank(val, k, 99);
		st->mean = sum / (double)k;
	}
	free(val);
	*out = v;
	*n = m;
	return 0;
}
