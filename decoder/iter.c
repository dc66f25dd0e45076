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
#include "pool.h"
#include "tm.h"

#define ITER_MAX_BOUNDS	((size_t)1 << 22)
#define CANCEL_STEP	(256u << 10)	/* bytes between cancel checks */
#define UNIT_SEGS	1024		/* segments per unit at most, a
					 * multiple of the index's carry step */

/* What one unit (a run of segments from a carry) found. */
struct iter_unit {
	struct iter_bound *b;
	size_t n, cap;
	uint64_t end;		/* its last byte + 1 */
	uint64_t head_hi;	/* the first CYC's cycles before its first
				 * boundary (the previous unit's last
				 * boundary's upper bound) */
	uint8_t head;		/* before its first boundary, 0: neither a
				 * CYC nor a decode error or gap; 1: a CYC
				 * first (head_hi); 2: an error or gap first
				 * (that bound stays unknown); 3: not looked
				 * at (segments skipped): iter_head() */
	uint8_t tail_lost;	/* data lost after its last boundary */
	uint8_t tail_want;	/* its last boundary awaits its upper bound
				 * from the next unit */
};

struct iter_job {
	const struct img *img;
	const struct idx *idx;
	struct srch_pred *pred;
	struct tm_config cfg;
	struct iter_opts opts;
	pthread_t thread;
	atomic_int cancel;
	atomic_int finished;
	struct iter_unit *units;
	size_t nunits, unit_segs;
	int pending_hi;		/* the last merged boundary awaits cyc_hi */
	int lost;		/* data lost since the last merged boundary */
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
	struct iter_unit *u;
	uint64_t types;		/* srch_pred_types() */
	struct tm_model tm;
	int lost;		/* data lost since the last boundary */
	int want_hi;		/* the last boundary awaits its upper bound */
	int skim;		/* the segment holds no boundary: stop when
				 * no packet is awaited (iter_settled()) */
};

/* Whether @w awaits nothing from the packets: no upper bound, and what
 * comes before the unit's first boundary is known. */
static inline int iter_settled(const struct iter_walk *w)
{
	return !w->want_hi && (w->u->n || w->u->head);
}

/* Append @b to @u's boundaries.  Returns 0 or -pte_nomem. */
static int iter_push(struct iter_unit *u, const struct iter_bound *b)
{
	if (u->n == u->cap) {
		size_t cap = u->cap ? u->cap * 2 : 64;
		struct iter_bound *v = realloc(u->b, cap * sizeof(*v));

		if (!v)
			return -pte_nomem;
		u->b = v;
		u->cap = cap;
	}
	u->b[u->n++] = *b;
	return 0;
}

/* Feed packet @pkt: a boundary if the predicate holds; at the next CYC,
 * the upper cycle bound of the last boundary (or, before the unit's
 * first boundary, of the previous unit's last).
 * Returns 0 or -pte_nomem. */
static int iter_packet(struct iter_walk *w, struct srch_ctx *ctx,
		       const struct pkt *pkt)
{
	struct iter_unit *u = w->u;
	struct tm_stamp st;
	struct iter_bound b;
	int r;

	srch_step(ctx, pkt);
	if (pkt->type == PKT_OVF)
		w->lost = 1;
	if (!(w->types >> pkt->type & 1) || !srch_match(w->j->pred, pkt, ctx)) {
		if (pkt->type == PKT_CYC && (w->want_hi || (!u->n && !u->head))) {
			tm_step(&w->tm, pkt, &st);
			if (u->n) {
				u->b[u->n - 1].cyc_hi = st.cycles;
			} else {
				u->head = 1;
				u->head_hi = st.cycles;
			}
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
	r = iter_push(u, &b);
	if (r)
		return r;
	w->lost = 0;
	w->want_hi = (st.flags & TM_F_BOUNDED) != 0;
	return 0;
}

/* Data was lost here: the next boundary's iteration is broken, and the
 * last boundary's upper bound stays unknown. */
static void iter_lost(struct iter_walk *w)
{
	tm_gap(&w->tm);
	w->lost = 1;
	w->want_hi = 0;
	if (!w->u->n && !w->u->head)
		w->u->head = 2;
}

/* Walk segment [@off, @end) inside span @sp: a plain cursor bounded by
 * the segment, so a packet running into the next PSB is cut (an error),
 * as through an image cursor, without its cost per packet.
 * Returns 0, 1 if it stopped early (@w->skim), -pte_canceled or
 * -pte_nomem. */
static int iter_span(struct iter_walk *w, struct srch_ctx *ctx,
		     const struct img_span *sp, uint64_t off, uint64_t end)
{
	struct pkt_decoder dec;
	struct pkt pkt;
	uint64_t next = off + CANCEL_STEP;
	int r;

	if (pkt_decoder_init(&dec, sp->data + (off - sp->off),
			     sp->data + (end - sp->off), off) < 0)
		return 0;
	for (;;) {
		r = pkt_next(&dec, &pkt);
		if (r == -pte_eos)
			return 0;
		if (r < 0) {
			iter_lost(w);	/* the rest of the segment is lost */
			return 0;
		}
		r = iter_packet(w, ctx, &pkt);
		if (r)
			return r;
		if (w->skim && iter_settled(w))
			return 1;
		if (pkt.offset >= next) {
			if (atomic_load(&w->j->cancel))
				return -pte_canceled;
			next = pkt.offset + CANCEL_STEP;
		}
	}
}

/* Walk segment [@off, @end) from its PSB.
 * Returns 0, 1 if it stopped early (@w->skim: the rest of the segment is
 * not walked), -pte_canceled or -pte_nomem. */
static int iter_segment(struct iter_walk *w, uint64_t off, uint64_t end)
{
	struct iter_job *j = w->j;
	struct img_cursor cur;
	struct srch_ctx ctx;
	struct pkt pkt;
	uint64_t next = off + CANCEL_STEP;
	long si = img_span_of(j->img, off);
	int r;

	if (img_gap_at(j->img, off))
		iter_lost(w);
	if (w->skim && iter_settled(w))
		return 1;
	srch_ctx_init(&ctx, j->pred, j->img);
	if (si >= 0 && end <= j->img->spans[si].off + j->img->spans[si].size)
		return iter_span(w, &ctx, &j->img->spans[si], off, end);
	if (img_cursor_init(&cur, j->img, off) < 0)
		return 0;
	while (img_cursor_offset(&cur) < end) {
		if (img_cursor_offset(&cur) >= next) {
			if (atomic_load(&j->cancel))
				return -pte_canceled;
			next = img_cursor_offset(&cur) + CANCEL_STEP;
		}
		r = img_cursor_next(&cur, &pkt);
		if (r == -pte_eos)
			return 0;
		if (cur.gap) {
			cur.gap = 0;
			iter_lost(w);
		}
		if (r >= 0 && pkt.offset + pkt.size > end)
			r = -pte_truncated;
		if (r < 0) {
			/* As the time pass: the rest of the segment is lost. */
			iter_lost(w);
			return 0;
		}
		r = iter_packet(w, &ctx, &pkt);
		if (r)
			return r;
		if (w->skim && iter_settled(w))
			return 1;
	}
	return 0;
}

/* A unit for a guarded body: the job and the unit's number. */
struct iter_unit_arg {
	struct iter_job *j;
	size_t k;
};

/* Segment @i at [@off, ...), holding no boundary, was not walked (or
 * only until iter_settled()): its data lost by its summary, and before
 * its PSB. */
static void iter_skip(struct iter_walk *w, size_t i, uint64_t off)
{
	struct idx_summary sum;

	if (idx_summary_counts(w->j->idx, i, &sum) || idx_summary_trouble(&sum) ||
	    img_gap_at(w->j->img, off))
		w->lost = 1;
}

/* Unit @k's start: *@tm from the index's carry at its first segment (or
 * a fresh model), *@sk that segment's seek, *@stop the segment after
 * its last.  Returns 0, or a negative error code. */
static int iter_unit_start(const struct iter_job *j, size_t k, struct tm_model *tm,
			   struct idx_seek *sk, size_t *stop)
{
	size_t i = k * j->unit_segs, n = idx_nseeks(j->idx);
	struct tm_carry c;
	int r;

	*stop = i + j->unit_segs < n ? i + j->unit_segs : n;
	tm_init(tm, &j->cfg);
	r = idx_seek_carry(j->idx, i, &c);
	if (r < 0)
		return r;
	if (!r)
		tm_restore(tm, &c);
	return idx_seek(j->idx, i, sk) ? -pte_internal : 0;
}

/* Unit @a->k: segments [k * unit_segs, ...) from the carry at the first
 * (a multiple of the index's carry step, so it costs no decode).  A
 * segment that cannot hold a boundary (srch_segment_may_hit()) is walked
 * only while a packet is awaited (iter_settled()); the time model then
 * catches up at the next segment walked, from the index's carries and
 * the time pass's fast walk (idx_time_advance()), which leave it as a
 * walk through every packet would. */
static int iter_unit_body(void *arg)
{
	const struct iter_unit_arg *a = arg;
	struct iter_job *j = a->j;
	size_t k = a->k;
	struct iter_unit *u = &j->units[k];
	struct iter_walk w = { .j = j, .u = u, .types = srch_pred_types(j->pred) };
	struct idx_seek sk, nx;
	struct tm_model t0;
	size_t i = k * j->unit_segs, n = idx_nseeks(j->idx), stop, at;
	int r;

	r = iter_unit_start(j, k, &w.tm, &sk, &stop);
	if (r < 0)
		return r;
	for (at = i; i < stop; i++, sk = nx) {	/* w.tm: segment at's start */
		u->end = j->img->size;
		if (i + 1 < n && !idx_seek(j->idx, i + 1, &nx))
			u->end = nx.offset;
		w.skim = !j->opts.straight &&
			 !srch_segment_may_hit(j->pred, j->img, j->idx, i);
		if (w.skim && !w.want_hi && !u->n && !u->head)
			u->head = 3;	/* the merge looks, if it must */
		if (w.skim && iter_settled(&w)) {
			iter_skip(&w, i, sk.offset);
			continue;
		}
		if (at < i && idx_time_advance(j->idx, at, i, &w.tm))
			return -pte_internal;
		if (w.skim)
			t0 = w.tm;
		r = iter_segment(&w, sk.offset, u->end);
		if (r < 0)
			return r;
		if (r) {
			w.tm = t0;
			at = i;
			iter_skip(&w, i, sk.offset);
		} else {
			at = i + 1;
		}
		if (atomic_load(&j->cancel))
			return -pte_canceled;
	}
	u->tail_lost = (uint8_t)w.lost;
	u->tail_want = (uint8_t)w.want_hi;
	return 0;
}

/* Pool unit @k, under the guard: a worker reads the mapping too. */
static int iter_run(void *ctx, unsigned worker, size_t k)
{
	struct iter_unit_arg a = { ctx, k };
	struct iter_job *j = ctx;

	(void)worker;
	return j->opts.guard ? j->opts.guard(iter_unit_body, &a) : iter_unit_body(&a);
}

/* What comes first in unit @k before its first boundary (iter_unit.head
 * 0, 1 or 2, and head_hi), by a walk through every packet from its
 * start until that is known.  Returns 0, -pte_canceled or -pte_nomem. */
static int iter_head(struct iter_job *j, size_t k)
{
	struct iter_unit tmp = { 0 };
	struct iter_walk w = { .j = j, .u = &tmp, .types = srch_pred_types(j->pred),
			       .skim = 1 };
	struct idx_seek sk, nx;
	size_t i = k * j->unit_segs, n = idx_nseeks(j->idx), stop;
	uint64_t end;
	int r;

	r = iter_unit_start(j, k, &w.tm, &sk, &stop);
	if (r < 0)
		return r;
	for (r = 0; i < stop && !r && !tmp.n && !tmp.head; i++, sk = nx) {
		end = j->img->size;
		if (i + 1 < n && !idx_seek(j->idx, i + 1, &nx))
			end = nx.offset;
		r = iter_segment(&w, sk.offset, end);
	}
	free(tmp.b);
	j->units[k].head = tmp.head;
	j->units[k].head_hi = tmp.head_hi;
	return r < 0 ? r : 0;
}

/* Unit @k, in order: its boundaries appended, what crosses from the one
 * before settled (the upper bound it awaited, data lost before its
 * first boundary).  Returns 0, -pte_nomem, or -pte_canceled at
 * max_bounds (truncated set). */
static int iter_merge(void *ctx, size_t k)
{
	struct iter_job *j = ctx;
	struct iter_unit *u = &j->units[k];
	size_t n = atomic_load(&j->nbounds), want = n + u->n;
	int r = 0;

	if (j->pending_hi && u->head == 3) {
		r = iter_head(j, k);
		if (r)
			return r;
	}
	if (j->pending_hi && u->head) {
		if (u->head == 1)
			j->b[n - 1].cyc_hi = u->head_hi;
		j->pending_hi = 0;
	}
	if (want > j->opts.max_bounds) {
		want = j->opts.max_bounds;
		j->truncated = 1;
		r = -pte_canceled;
	}
	if (want > j->cap) {
		size_t cap = j->cap ? j->cap : 1024;
		struct iter_bound *v;

		while (cap < want)
			cap *= 2;
		v = realloc(j->b, cap * sizeof(*v));
		if (!v)
			return -pte_nomem;
		j->b = v;
		j->cap = cap;
	}
	if (want > n) {
		memcpy(j->b + n, u->b, (want - n) * sizeof(*u->b));
		j->b[n].lost |= (uint8_t)j->lost;
		j->lost = u->tail_lost;
		j->pending_hi = want == n + u->n && u->tail_want;
	} else {
		j->lost |= u->tail_lost;
	}
	atomic_store(&j->nbounds, want);
	atomic_store(&j->done, u->end);
	free(u->b);
	u->b = NULL;
	return r;
}

static int iter_body(void *arg)
{
	struct iter_job *j = arg;
	struct pool_cfg cfg = { 0 };
	struct pool *p = NULL;
	size_t n = idx_nseeks(j->idx), per;
	int r;

	if (!n)
		return 0;
	/* Units of a multiple of 16 segments, several per thread. */
	cfg.nthreads = pool_threads(j->opts.nthreads);
	per = (n + cfg.nthreads * 8 - 1) / (cfg.nthreads * 8);
	per = (per + 15) & ~(size_t)15;
	j->unit_segs = per < UNIT_SEGS ? (per ? per : 16) : UNIT_SEGS;
	j->nunits = (n + j->unit_segs - 1) / j->unit_segs;
	j->units = calloc(j->nunits, sizeof(*j->units));
	if (!j->units)
		return -pte_nomem;
	cfg.nunits = j->nunits;
	cfg.window = (size_t)cfg.nthreads * 4;
	cfg.run = iter_run;
	cfg.ctx = j;
	cfg.cancel = &j->cancel;
	r = pool_start(&p, &cfg);
	if (r < 0)
		return r;
	r = pool_merge(p, iter_merge);
	pool_free(p);
	if (r == -pte_canceled && j->truncated)
		r = 0;
	return r;
}

static void *iter_thread(void *arg)
{
	struct iter_job *j = arg;
	size_t k;
	int r = j->opts.guard ? j->opts.guard(iter_body, j) : iter_body(j);

	for (k = 0; k < j->nunits; k++)
		free(j->units[k].b);
	free(j->units);
	j->units = NULL;
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
