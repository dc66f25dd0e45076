/* index_time -- phase 3: the time model over the whole stream. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "index_int.h"

/*
 * Phase 3: the time model over the whole stream, in order.
 */

/* A new segment begins for @g. */
static void gacc_segment(struct gacc *g)
{
	g->has_first = 0;
	g->has_rest = 0;
	memset(&g->per, 0, sizeof(g->per));
}

/* Put the periods @a into @out. */
static void pacc_put(struct tsum *out, const struct pacc *a)
{
	out->has_per = (uint8_t)a->has;
	out->slow_off = a->slow_off;
	out->slow_ticks = a->slow.ticks;
	out->slow_frac = a->slow.ticks_frac;
	out->slow_cyc = a->slow.cycles;
	out->fast_ticks = a->fast.ticks;
	out->fast_frac = a->fast.ticks_frac;
	out->fast_cyc = a->fast.cycles;
	out->nhalt = a->nhalt;
	out->halt_lo = a->halt_lo;
	out->halt_hi = a->halt_hi;
}

/* Segment @i's gaps from @g's view of it and the timing packet before it
 * (@has_prev, @prev); @has_first: a first timing packet whose gap from
 * that one counts. */
static void gacc_sum(struct tsum *out, int has_prev, uint64_t prev,
		     int has_first, uint64_t first, int has_rest, uint64_t rest,
		     int has_last, uint64_t last, uint64_t first_off, uint64_t rest_off)
{
	memset(out, 0, sizeof(*out));
	out->has_gap = (uint8_t)has_rest;
	out->gap = has_rest ? rest : 0;
	out->gap_off = has_rest ? rest_off : 0;
	/* the first packet's gap wins a tie: it is the earlier packet */
	if (has_first && has_prev && first >= prev &&
	    (!out->has_gap || first - prev >= out->gap)) {
		out->has_gap = 1;
		out->gap = first - prev;
		out->gap_off = first_off;
	}
	out->has_last = (uint8_t)has_last;
	out->last = has_last ? last : 0;
}

/* Store segment @i's time summary; the caller publishes it. */
static int tsum_put(struct idx *idx, size_t i, const struct tsum *t)
{
	if (!idx->gblk[i >> BLK_SHIFT]) {
		idx->gblk[i >> BLK_SHIFT] = malloc(BLK_SIZE * sizeof(struct tsum));
		if (!idx->gblk[i >> BLK_SHIFT])
			return -pte_nomem;
	}
	idx->gblk[i >> BLK_SHIFT][i & BLK_MASK] = *t;
	return 0;
}

/* Store @g's summary of segment @i (decoded with the true state). */
static int tsum_from(struct idx *idx, size_t i, const struct gacc *g,
		     int has_prev0, uint64_t prev0)
{
	struct tsum t;

	gacc_sum(&t, has_prev0, prev0, g->has_first && !g->first_void, g->first,
		 g->has_rest, g->rest, g->has_prev, g->prev, g->first_off, g->rest_off);
	pacc_put(&t, &g->per);
	return tsum_put(idx, i, &t);
}

static struct tm_carry *carry_slot(const struct idx *idx, size_t c)
{
	return &idx->carry[c >> CARRY_BLK_SHIFT][c & ((1u << CARRY_BLK_SHIFT) - 1)];
}

struct time_arg {
	struct idx *idx;
	struct tm_model tm;
	size_t from, to;	/* segments */
	int publish;		/* store carries (phase 3) or not (a lookup) */
	int memo;		/* a lookup: keep each carry passed in the memo */
	uint64_t memo_gen;	/* unless it was cleared since the start */
	struct gacc g;		/* phase 3: the gaps */
};

static int time_body(void *arg)
{
	struct time_arg *ta = arg;
	struct idx *idx = ta->idx;
	size_t n = idx_nseeks(idx), i;
	uint64_t rel = ta->from < n ? idx_seek_off(idx, ta->from) : 0, credited;
	struct idx_skim_hint hint = IDX_SKIM_HINT_INIT;

	for (i = ta->from; i < ta->to; i++) {
		uint64_t off = idx_seek_off(idx, i);
		uint64_t end = i + 1 < n ? idx_seek_off(idx, i + 1) : idx->img->size;

		if (ta->publish) {
			if (atomic_load_explicit(&idx->cancel, memory_order_relaxed))
				return -pte_canceled;
			if (!(i & ((1u << CARRY_SHIFT) - 1))) {
				size_t c = i >> CARRY_SHIFT;

				if (!idx->carry[c >> CARRY_BLK_SHIFT]) {
					idx->carry[c >> CARRY_BLK_SHIFT] = malloc(
						sizeof(struct tm_carry) << CARRY_BLK_SHIFT);
					if (!idx->carry[c >> CARRY_BLK_SHIFT])
						return -pte_nomem;
				}
				tm_save(&ta->tm, carry_slot(idx, c));
				if (c >= atomic_load(&idx->ncarry))
					atomic_store_explicit(&idx->ncarry, c + 1,
							      memory_order_release);
			}
		}
		credited = 0;
		{
			int hp = ta->g.has_prev;
			uint64_t pv = ta->g.prev;

			gacc_segment(&ta->g);
			if (idx_time_segment(ta->publish ? idx : NULL, idx->img, off, end,
					 &ta->tm, &credited,
					 ta->publish ? &ta->g : NULL, NULL, &hint) < 0)
				return -pte_canceled;
			if (ta->publish) {
				int r = tsum_from(idx, i, &ta->g, hp, pv);

				if (r < 0)
					return r;
				atomic_store_explicit(&idx->ntsums, i + 1,
						      memory_order_release);
			}
		}
		if (ta->memo) {
			struct carry_memo *m = &idx->memo[(i + 1) % MEMO_SIZE];

			pthread_mutex_lock(&idx->memo_lock);
			if (idx->memo_gen == ta->memo_gen) {
				m->seg = i + 1;
				tm_save(&ta->tm, &m->carry);
			}
			pthread_mutex_unlock(&idx->memo_lock);
		}
		if (ta->publish) {
			atomic_fetch_add_explicit(&idx->done, end - off - credited,
						  memory_order_relaxed);
			/* In big steps: a segment rarely spans a whole page. */
			if (end - rel >= (4u << 20) || i + 1 == ta->to) {
				idx_release_range(idx, rel, end);
				rel = end;
			}
		}
	}
	if (ta->publish)
		atomic_fetch_add_explicit(&idx->skim_vec_bytes, hint.vec_bytes,
					  memory_order_relaxed);
	return 0;
}

/*
 * The parallel time pass.  The time model's state at a PSB depends on
 * everything before it, but little of it lasts: a PSB+'s TSC and TMA
 * re-anchor the time, an MTC period recalibrates, and the cycle count is
 * a prefix sum.  So each unit is timed on a worker from a provisional
 * state (the model warmed up over the segments before the unit, cycles
 * counting from 0), and the merge, in order, knows the true state at the
 * unit's start: where the two agree but for the cycles, every later
 * provisional carry of the unit is true once its cycles are shifted;
 * where they differ, the merge re-decodes the unit from the true state
 * until they agree at a carry point (or to the unit's end).  The carries
 * are thus those of the serial pass, bit for bit (tests/test_index.c).
 */

/* Whether carries @a and @b agree but for the cycle count. */
static int carry_same(const struct tm_carry *a, const struct tm_carry *b)
{
	struct tm_carry x = *a, y = *b;

	x.cycles = 0;
	y.cycles = 0;
	return !memcmp(&x, &y, sizeof(x));
}

/* The true cycle count at a point whose provisional count is @prov, where
 * an earlier point had @base true and @pbase provisional cycles (counts
 * saturate, and a saturated count stays). */
static uint64_t fix_cycles(uint64_t base, uint64_t pbase, uint64_t prov)
{
	uint64_t d;

	if (prov == UINT64_MAX)
		return UINT64_MAX;
	d = prov - pbase;
	return base + d < base ? UINT64_MAX : base + d;
}

static uint64_t seg_end(const struct idx *idx, size_t i, size_t n)
{
	return i + 1 < n ? idx_seek_off(idx, i + 1) : idx->img->size;
}

/* Store @c as the carry of segment @i (a multiple of 16). */
static int carry_put(struct idx *idx, size_t i, const struct tm_carry *c)
{
	size_t k = i >> CARRY_SHIFT;

	if (!idx->carry[k >> CARRY_BLK_SHIFT]) {
		idx->carry[k >> CARRY_BLK_SHIFT] =
			malloc(sizeof(struct tm_carry) << CARRY_BLK_SHIFT);
		if (!idx->carry[k >> CARRY_BLK_SHIFT])
			return -pte_nomem;
	}
	*carry_slot(idx, k) = *c;
	return 0;
}

/* Phase 3 worker: time unit @u from its provisional state. */
static int time_unit(struct idx *idx, struct unit3 *u)
{
	struct tm_model tm;
	struct tm_carry c;
	struct gacc g;
	struct idx_summary sm;
	size_t n = idx_nseeks(idx), i, k = 0, np;
	uint64_t credited;
	int ret;

	u->sum.s0 = u->s0;
	u->sum.s1 = u->s1;
	np = 2 + (((u->s1 - 1) >> CARRY_SHIFT) - (u->s0 >> CARRY_SHIFT));
	u->pts = malloc(np * sizeof(*u->pts));
	u->cps = malloc(np * sizeof(*u->cps));
	u->gs = malloc((u->s1 - u->s0) * sizeof(*u->gs));
	if (!u->pts || !u->cps || !u->gs)
		return -pte_nomem;
	memset(&g, 0, sizeof(g));
	g.mtc = idx->p3_gacc0.mtc;
	if (u->w0 == idx->p3_from)
		g = idx->p3_gacc0;
	u->n = 0;
	u->pts[u->n++] = u->s0;
	for (i = (u->s0 | ((1u << CARRY_SHIFT) - 1)) + 1; i < u->s1;
	     i += 1u << CARRY_SHIFT)
		u->pts[u->n++] = i;
	u->pts[u->n++] = u->s1;
	tm_init(&tm, &idx->cfg);
	if (u->w0 == idx->p3_from)
		tm_restore(&tm, &idx->p3_start);
	for (i = u->w0; i < u->s0; i++) {
		if (atomic_load_explicit(&idx->cancel, memory_order_relaxed))
			return -pte_canceled;
		idx_time_segment(NULL, idx->img, idx_seek_off(idx, i), seg_end(idx, i, n),
			     &tm, &credited, &g, NULL, &u->sum.hint);
	}
	tm_save(&tm, &c);
	c.cycles = 0;
	tm_restore(&tm, &c);
	for (i = u->s0;; i++) {
		uint64_t off, end;

		if (k < u->n && u->pts[k] == i)
			tm_save(&tm, &u->cps[k++]);
		if (i == u->s1)
			break;
		if (atomic_load_explicit(&idx->cancel, memory_order_relaxed))
			return -pte_canceled;
		off = idx_seek_off(idx, i);
		end = seg_end(idx, i, n);
		credited = 0;
		gacc_segment(&g);
		if (idx_time_segment(idx, idx->img, off, end, &tm, &credited, &g,
				 idx->sums_in_time ? &sm : NULL, &u->sum.hint) < 0)
			return -pte_canceled;
		if (idx->sums_in_time) {
			ret = idx_sum_put(idx, &u->sum, i, &sm);
			if (ret < 0)
				return ret;
		}
		u->gs[i - u->s0].has_first = (uint8_t)g.has_first;
		u->gs[i - u->s0].first_void = (uint8_t)g.first_void;
		u->gs[i - u->s0].first = g.first;
		u->gs[i - u->s0].has_rest = (uint8_t)g.has_rest;
		u->gs[i - u->s0].rest = g.rest;
		u->gs[i - u->s0].last = g.prev;
		u->gs[i - u->s0].first_off = g.first_off;
		u->gs[i - u->s0].rest_off = g.rest_off;
		u->gs[i - u->s0].per = g.per;
		atomic_fetch_add_explicit(&idx->done, end - off - credited,
					  memory_order_relaxed);
	}
	atomic_fetch_add_explicit(&idx->skim_vec_bytes, u->sum.hint.vec_bytes,
				  memory_order_relaxed);
	u->sum.hint.vec_bytes = 0;
	return 0;
}

static int time_unit_body(void *arg)
{
	struct idx_unit_arg *w = arg;

	return time_unit(w->idx, &w->idx->u3[w->unit]);
}

/* Run phase 3 unit @k (struct pool_cfg.run).  It keeps the pages: its
 * merge may re-read the unit, and drops them then. */
static int time_run(void *ctx, unsigned worker, size_t k)
{
	(void)worker;
	return idx_unit_guarded(ctx, time_unit_body, k);
}

struct replay_arg {
	struct idx *idx;
	struct unit3 *u;
	size_t j;		/* in: 0; out: the point where they agree, or
				 * the last */
	struct tm_carry t;	/* the true carry at point j */
};

/* Re-decode unit ra->u from the true carry at its start, storing the true
 * carries, until the provisional ones agree (guarded). */
static int replay_body(void *arg)
{
	struct replay_arg *ra = arg;
	struct idx *idx = ra->idx;
	struct unit3 *u = ra->u;
	struct idx_skim_hint hint = IDX_SKIM_HINT_INIT;
	struct tm_model tm;
	size_t n = idx_nseeks(idx), i;
	uint64_t credited;
	int ret;

	tm_init(&tm, &idx->cfg);
	tm_restore(&tm, &ra->t);
	for (i = u->s0; i < u->s1; i++) {
		int hp = idx->p3_gacc.has_prev;
		uint64_t pv = idx->p3_gacc.prev;

		if (atomic_load_explicit(&idx->cancel, memory_order_relaxed))
			return -pte_canceled;
		gacc_segment(&idx->p3_gacc);
		idx_time_segment(NULL, idx->img, idx_seek_off(idx, i), seg_end(idx, i, n),
			     &tm, &credited, &idx->p3_gacc, NULL, &hint);
		ret = tsum_from(idx, i, &idx->p3_gacc, hp, pv);
		if (ret < 0)
			return ret;
		idx->p3_replayed++;
		if (i + 1 != u->pts[ra->j + 1])
			continue;
		ra->j++;
		tm_save(&tm, &ra->t);
		/* (the point where they agree too: merge3() stores the
		 * points after it) */
		if (u->pts[ra->j] < u->s1) {
			ret = carry_put(idx, u->pts[ra->j], &ra->t);
			if (ret < 0)
				return ret;
		}
		if (carry_same(&ra->t, &u->cps[ra->j]))
			break;
	}
	return 0;
}

/* Merge phase 3 unit @k in order: make its carries true and publish
 * them. */
static int merge3(void *ctx, size_t k)
{
	struct idx *idx = ctx;
	struct unit3 *u = &idx->u3[k];
	struct replay_arg ra;
	struct tm_carry c;
	size_t m, n = idx_nseeks(idx);
	int ret = 0;

	if (idx->sums_in_time) {
		ret = idx_sum_merge(idx, &u->sum);
		if (ret < 0)
			goto out;
	}
	memset(&ra, 0, sizeof(ra));
	ra.idx = idx;
	ra.u = u;
	ra.t = idx->p3_carry;
	if (!(u->s0 & ((1u << CARRY_SHIFT) - 1)))
		ret = carry_put(idx, u->s0, &ra.t);
	if (!ret && !carry_same(&ra.t, &u->cps[0]))
		ret = idx->guard(replay_body, &ra);
	if (ret < 0)
		goto out;
	/* From point j on, the provisional carries hold but for cycles. */
	for (m = ra.j + 1; m < u->n; m++) {
		c = u->cps[m];
		c.cycles = fix_cycles(ra.t.cycles, u->cps[ra.j].cycles,
				      u->cps[m].cycles);
		if (u->pts[m] < u->s1)
			ret = carry_put(idx, u->pts[m], &c);
		if (ret < 0)
			goto out;
	}
	if (ra.j + 1 < u->n)
		ra.t = c;
	idx->p3_carry = ra.t;
	/* The gaps from point j on: the worker's but for the first, which
	 * follows the true timing packet before. */
	for (m = u->pts[ra.j]; m < u->s1; m++) {
		const struct gseg *gs = &u->gs[m - u->s0];
		struct gacc *g = &idx->p3_gacc;
		struct tsum t;

		gacc_sum(&t, g->has_prev, g->prev, gs->has_first && !gs->first_void,
			 gs->first, gs->has_rest, gs->rest, gs->has_first || g->has_prev,
			 gs->has_first ? gs->last : g->prev, gs->first_off, gs->rest_off);
		pacc_put(&t, &gs->per);
		ret = tsum_put(idx, m, &t);
		if (ret < 0)
			goto out;
		if (gs->has_first) {
			g->has_prev = 1;
			g->prev = gs->last;
		}
	}
	if (u->s1 > u->s0)
		atomic_store_explicit(&idx->ntsums, u->s1, memory_order_release);
	if (u->s1 > u->s0)
		atomic_store_explicit(&idx->ncarry,
				      ((u->s1 - 1) >> CARRY_SHIFT) + 1,
				      memory_order_release);
	idx_release_range(idx, idx_seek_off(idx, u->s0), seg_end(idx, u->s1 - 1, n));
out:
	free(u->pts);
	free(u->cps);
	free(u->gs);
	u->pts = NULL;
	u->cps = NULL;
	u->gs = NULL;
	return ret;
}

/* Where a phase 3 unit starting at segment @s0 ends: after about a chunk
 * of bytes, at most UNIT3_SEGS segments (its carries are kept until the
 * merge). */
static size_t cut3(const struct idx *idx, size_t s0, size_t n)
{
	uint64_t acc = 0;
	size_t i;

	for (i = s0; i < n && i - s0 < UNIT3_SEGS && acc < idx->chunk; i++)
		acc += seg_end(idx, i, n) - idx_seek_off(idx, i);
	return i;
}

/* The units of phase 3 over segments [@from, @n), each warmed up over
 * the segments before it. */
static int plan3(struct idx *idx, size_t from, size_t n)
{
	size_t i, k, nu = 0, w;
	/* a quarter of a unit at most: tests make units tiny */
	uint64_t acc, warm = idx->chunk / 4 < WARM_BYTES ? idx->chunk / 4 : WARM_BYTES;

	for (i = from; i < n; i = cut3(idx, i, n))
		nu++;
	idx->u3 = calloc(nu ? nu : 1, sizeof(*idx->u3));
	if (!idx->u3)
		return -pte_nomem;
	for (i = from, k = 0; k < nu; k++) {
		struct unit3 *u = &idx->u3[k];

		u->s0 = i;
		u->s1 = i = cut3(idx, i, n);
		acc = 0;
		for (w = u->s0; w > from && acc < warm &&
		     u->s0 - w < WARM_SEGS; w--)
			acc += seg_end(idx, w - 1, n) - idx_seek_off(idx, w - 1);
		u->w0 = w;
	}
	idx->nunits = nu;
	return 0;
}

/* The segment phase 3 starts at: the last carry's. */
static size_t phase3_from(const struct idx *idx)
{
	size_t c = atomic_load(&idx->ncarry);

	return c ? (c - 1) << CARRY_SHIFT : 0;
}

int idx_phase3_sums(const struct idx *idx)
{
	size_t from = phase3_from(idx);

	return idx->time_pass && idx->nthreads > 1 &&
	       atomic_load(&idx->nsums) == from && idx_nseeks(idx) > from;
}

int idx_phase3(struct idx *idx)
{
	struct time_arg *ta = malloc(sizeof(*ta));
	size_t n = idx_nseeks(idx), c = atomic_load(&idx->ncarry);
	uint64_t end;
	int ret;

	if (!ta)
		return -pte_nomem;
	memset(ta, 0, sizeof(*ta));
	ta->idx = idx;
	tm_init(&ta->tm, &idx->cfg);
	if (c) {
		/* Resume from the last carry (a grown trace). */
		c--;
		tm_restore(&ta->tm, carry_slot(idx, c));
	}
	ta->from = c << CARRY_SHIFT;
	ta->to = n;
	ta->publish = 1;
	ta->g.mtc = tm_mtc_timed(&idx->cfg);
	if (ta->from && atomic_load(&idx->ntsums) >= ta->from) {
		const struct tsum *t = &idx->gblk[(ta->from - 1) >> BLK_SHIFT]
						[(ta->from - 1) & BLK_MASK];

		ta->g.has_prev = t->has_last;
		ta->g.prev = t->last;
	}
	if (atomic_load(&idx->ntsums) > ta->from)
		atomic_store(&idx->ntsums, ta->from);
	idx->total = n ? idx->img->size - idx_seek_off(idx, ta->from < n ? ta->from : 0) : 0;
	if (idx->nthreads > 1 && n > ta->from) {
		/* On all cores; the model's end state is the last merge's. */
		idx->p3_from = ta->from;
		tm_save(&ta->tm, &idx->p3_start);
		idx->p3_carry = idx->p3_start;
		idx->p3_gacc = ta->g;
		idx->p3_gacc0 = ta->g;
		idx->p3_replayed = 0;
		ret = idx->sums_in_time ? idx_sum_reserve(idx, ta->from, n) : 0;
		if (!ret)
			ret = plan3(idx, ta->from, n);
		if (!ret)
			ret = idx_run_units(idx, time_run, merge3);
		idx_free_units(idx);
		if (!ret)
			tm_restore(&ta->tm, &idx->p3_carry);
	} else {
		ret = n ? idx->guard(time_body, ta) : 0;
	}
	if (!ret && n) {
		/* Time goes on after the last TSC packet: the trace ends at
		 * the model's last estimate. */
		pthread_mutex_lock(&idx->exc_lock);
		idx->have_end = !tm_now(&ta->tm, &end);
		idx->end_tsc = end;
		if (idx->have_end && idx->totals.have_tsc &&
		    end > idx->totals.last_tsc)
			idx->totals.last_tsc = end;
		pthread_mutex_unlock(&idx->exc_lock);
	}
	free(ta);
	return ret;
}

size_t idx_ncarried(const struct idx *idx)
{
	size_t n, c;

	if (!idx || !idx->time_pass)
		return 0;
	n = idx_nseeks(idx);
	/* Carries are published in order (the merges run in order), each
	 * good for the 16 segments from its own on. */
	c = atomic_load_explicit(&idx->ncarry, memory_order_acquire);
	if (c > (SIZE_MAX >> CARRY_SHIFT) || c << CARRY_SHIFT > n)
		return n;
	return c << CARRY_SHIFT;
}

int idx_seek_carry(const struct idx *idx, size_t i, struct tm_carry *out)
{
	struct time_arg *ta;
	size_t c, k;
	int ret;

	if (!idx || !out || i >= idx_nseeks(idx))
		return -pte_invalid;
	if (!idx->time_pass)
		return -pte_no_time;
	c = i >> CARRY_SHIFT;
	if (c >= atomic_load_explicit(&idx->ncarry, memory_order_acquire))
		return 1;
	if (!(i & ((1u << CARRY_SHIFT) - 1))) {
		*out = *carry_slot(idx, c);
		return 0;
	}
	ta = malloc(sizeof(*ta));
	if (!ta)
		return -pte_nomem;
	memset(ta, 0, sizeof(*ta));
	ta->idx = (struct idx *)idx;
	ta->memo = 1;
	tm_init(&ta->tm, &idx->cfg);
	/* From the nearest carry at or before @i: the checkpoint, or one
	 * an earlier replay left in the memo.  The lock covers the memo, not
	 * the replay: a search's lookups must not hold up the screen's. */
	tm_restore(&ta->tm, carry_slot(idx, c));
	ta->from = c << CARRY_SHIFT;
	pthread_mutex_lock(&((struct idx *)idx)->memo_lock);
	ta->memo_gen = idx->memo_gen;
	for (k = i; k > ta->from; k--) {
		const struct carry_memo *m = &idx->memo[k % MEMO_SIZE];

		if (m->seg == k) {
			tm_restore(&ta->tm, &m->carry);
			ta->from = k;
			break;
		}
	}
	pthread_mutex_unlock(&((struct idx *)idx)->memo_lock);
	ta->to = i;
	ret = ta->from < i ? idx->guard(time_body, ta) : 0;
	if (!ret)
		tm_save(&ta->tm, out);
	free(ta);
	return ret;
}


int idx_time_advance(const struct idx *idx, size_t from, size_t to,
		     struct tm_model *tm)
{
	struct idx_skim_hint hint = IDX_SKIM_HINT_INIT;
	size_t n, c, i;
	uint64_t credited;

	if (!idx || !tm || from > to || to > (n = idx_nseeks(idx)))
		return -pte_invalid;
	c = to >> CARRY_SHIFT;
	if (idx->time_pass && c << CARRY_SHIFT > from &&
	    c < atomic_load_explicit(&idx->ncarry, memory_order_acquire)) {
		tm_restore(tm, carry_slot(idx, c));
		from = c << CARRY_SHIFT;
	}
	for (i = from; i < to; i++)
		idx_time_segment(NULL, idx->img, idx_seek_off(idx, i),
			     seg_end(idx, i, n), tm, &credited, NULL, NULL, &hint);
	return 0;
}
