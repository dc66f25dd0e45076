/* index -- lifecycle, the builder's coordinator, progress and lookups. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "index_int.h"
#include "pool.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int plain_guard(int (*body)(void *), void *arg)
{
	return body(arg);
}

void idx_memo_clear(struct idx *idx)
{
	size_t k;

	idx->memo_gen++;	/* replays under way keep theirs */
	for (k = 0; k < MEMO_SIZE; k++)
		idx->memo[k].seg = SIZE_MAX;
}

const struct tm_config *idx_config(const struct idx *idx)
{
	return &idx->cfg;
}

int idx_new(struct idx **out, const struct img *img, const struct tm_config *cfg)
{
	struct idx *idx;

	if (!out || !img)
		return -pte_invalid;
	idx = calloc(1, sizeof(*idx));
	if (!idx)
		return -pte_nomem;
	idx->img = img;
	if (cfg)
		idx->cfg = *cfg;
	idx->chunk = DEFAULT_CHUNK;
	idx->guard = plain_guard;
	idx->time_pass = 1;
	/* At most one PSB per 16 bytes. */
	idx->nblk = (size_t)((img->size / PKT_PSB_SIZE) >> BLK_SHIFT) + 1;
	idx->sblk = calloc(idx->nblk, sizeof(*idx->sblk));
	idx->ublk = calloc(idx->nblk, sizeof(*idx->ublk));
	idx->oblk = calloc(idx->nblk, sizeof(*idx->oblk));
	idx->carry = calloc(idx->nblk, sizeof(*idx->carry));
	idx->gblk = calloc(idx->nblk, sizeof(*idx->gblk));
	if (!idx->sblk || !idx->ublk || !idx->oblk || !idx->carry || !idx->gblk)
		goto out_free;
	pthread_mutex_init(&idx->lock, NULL);
	pthread_mutex_init(&idx->exc_lock, NULL);
	pthread_mutex_init(&idx->memo_lock, NULL);
	idx_memo_clear(idx);
	*out = idx;
	return 0;

out_free:
	free(idx->sblk);
	free(idx->ublk);
	free(idx->oblk);
	free(idx->carry);
	free(idx->gblk);
	free(idx);
	return -pte_nomem;
}

void idx_free_units(struct idx *idx)
{
	size_t i;

	if (idx->u1)
		for (i = 0; i < idx->nunits; i++)
			free(idx->u1[i].seeks);
	if (idx->u2)
		for (i = 0; i < idx->nunits; i++)
			free(idx->u2[i].exc);
	if (idx->u3)
		for (i = 0; i < idx->nunits; i++) {
			free(idx->u3[i].pts);
			free(idx->u3[i].cps);
			free(idx->u3[i].gs);
			free(idx->u3[i].sum.exc);
		}
	free(idx->u1);
	free(idx->u2);
	free(idx->u3);
	idx->u1 = NULL;
	idx->u2 = NULL;
	idx->u3 = NULL;
	idx->nunits = 0;
}

void idx_free(struct idx *idx)
{
	if (!idx)
		return;
	if (idx->started && !idx->joined) {
		idx_cancel(idx);
		idx_wait(idx);
	}
	idx_free_units(idx);
	idx->started = 0;	/* idx_reset() frees only an idle index */
	idx_reset(idx);
	free(idx->sblk);
	free(idx->ublk);
	free(idx->oblk);
	free(idx->carry);
	free(idx->gblk);
	pthread_mutex_destroy(&idx->lock);
	pthread_mutex_destroy(&idx->exc_lock);
	pthread_mutex_destroy(&idx->memo_lock);
	free(idx);
}

int idx_set_threads(struct idx *idx, unsigned nthreads)
{
	if (!idx || idx->started)
		return -pte_invalid;
	idx->nthreads = nthreads;
	return 0;
}

int idx_set_chunk_size(struct idx *idx, uint64_t bytes)
{
	if (!idx || idx->started || !bytes)
		return -pte_invalid;
	idx->chunk = (bytes + 63) & ~(uint64_t)63;
	return 0;
}

int idx_set_phase1_only(struct idx *idx, int on)
{
	if (!idx || idx->started)
		return -pte_invalid;
	idx->phase1_only = !!on;
	return 0;
}

int idx_set_time_pass(struct idx *idx, int on)
{
	if (!idx || idx->started)
		return -pte_invalid;
	idx->time_pass = !!on;
	return 0;
}

int idx_set_guard(struct idx *idx, int (*guard)(int (*body)(void *), void *arg))
{
	if (!idx || idx->started)
		return -pte_invalid;
	idx->guard = guard ? guard : plain_guard;
	return 0;
}

int idx_set_release(struct idx *idx,
		    void (*release)(void *ctx, const uint8_t *p, size_t n),
		    void *ctx)
{
	if (!idx || idx->started)
		return -pte_invalid;
	idx->release = release;
	idx->release_ctx = ctx;
	return 0;
}

int idx_set_willneed(struct idx *idx,
		     void (*willneed)(void *ctx, const uint8_t *p, size_t n))
{
	if (!idx || idx->started)
		return -pte_invalid;
	idx->willneed = willneed;
	return 0;
}

size_t idx_nseeks(const struct idx *idx)
{
	return idx ? atomic_load_explicit(&idx->nseeks, memory_order_acquire) : 0;
}

int idx_scan_done(const struct idx *idx)
{
	return idx ? atomic_load(&idx->scan_done) : 0;
}

/* Whether data was lost between the PSBs at @prev and @off. */
static int gap_between(const struct img *img, uint64_t prev, uint64_t off)
{
	long a = img_span_of(img, prev), b = img_span_of(img, off), i;

	if (a < 0 || b < 0)
		return 0;
	for (i = a + 1; i <= b; i++)
		if (img->spans[i].gap_before)
			return 1;
	return 0;
}

int idx_segment_span(const struct idx *idx, size_t i, uint64_t *from,
		     uint64_t *to)
{
	size_t n = idx_nseeks(idx);

	if (!idx || !from || !to || i >= n)
		return -pte_invalid;
	*from = idx->sblk[i >> BLK_SHIFT][i & BLK_MASK].off;
	*to = i + 1 < n ? idx->sblk[(i + 1) >> BLK_SHIFT][(i + 1) & BLK_MASK].off :
			  idx->img->size;
	return 0;
}

int idx_seek(const struct idx *idx, size_t i, struct idx_seek *out)
{
	const struct seek_packed *p;
	uint32_t ctx;

	if (!idx || !out || i >= idx_nseeks(idx))
		return -pte_invalid;
	p = &idx->sblk[i >> BLK_SHIFT][i & BLK_MASK];
	ctx = (uint32_t)(p->misc >> 40);
	if (ctx == CTX_NONE) {
		idx_decode_psbplus(idx->img, p->off, out);
	} else {
		memset(out, 0, sizeof(*out));
		out->offset = p->off;
		out->tsc = p->tsc_cbr & ((1ull << 56) - 1);
		out->cbr = (uint8_t)(p->tsc_cbr >> 56);
		out->fup_ip = p->ip;
		out->ctc = (uint16_t)p->misc;
		out->fc = (uint16_t)(p->misc >> 16) & 0x1ff;
		out->exec = (uint8_t)(p->misc >> 25) & 7;
		out->tsx = (uint8_t)(p->misc >> 28) & 3;
		out->flags = (uint16_t)(p->misc >> 30) & SEEK_FLAG_MASK;
		if (ctx) {
			const struct ctx_entry *e =
				&idx->cblk[ctx >> CTX_SHIFT][ctx & (CTX_BLK - 1)];

			out->cr3 = e->cr3;
			out->vmcs = e->vmcs;
			out->nr = e->nr;
		}
	}
	if (i > 0 && gap_between(idx->img, idx_seek_off(idx, i - 1), p->off))
		out->flags |= IDX_GAP;
	return 0;
}

int idx_find(const struct idx *idx, uint64_t off, size_t *i)
{
	size_t lo = 0, hi, n;

	if (!idx || !i)
		return -pte_invalid;
	n = idx_nseeks(idx);
	if (!n || idx_seek_off(idx, 0) > off)
		return -pte_nosync;
	hi = n;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (idx_seek_off(idx, mid) <= off)
			lo = mid;
		else
			hi = mid;
	}
	*i = lo;
	return 0;
}

/*
 * The builder: a coordinator thread runs the phases; each phase cuts its
 * work into units that the pool's workers run and the coordinator merges
 * in order.
 */

/* Call @fn(release_ctx, p, n) on the bytes of logical [@a, @b), span by
 * span. */
void idx_range_call(struct idx *idx, uint64_t a, uint64_t b,
		    void (*fn)(void *ctx, const uint8_t *p, size_t n))
{
	long si;

	if (!fn || b <= a)
		return;
	si = img_span_of(idx->img, a);
	while (si >= 0 && (size_t)si < idx->img->nspans && a < b) {
		const struct img_span *s = &idx->img->spans[si];
		uint64_t e = s->off + s->size < b ? s->off + s->size : b;

		fn(idx->release_ctx, s->data + (a - s->off), (size_t)(e - a));
		a = e;
		si++;
	}
}

void idx_release_range(struct idx *idx, uint64_t a, uint64_t b)
{
	idx_range_call(idx, a, b, idx->release);
}

int idx_unit_guarded(struct idx *idx, int (*body)(void *), size_t k)
{
	struct idx_unit_arg w = { idx, k };

	return idx->guard(body, &w);
}

int idx_run_units(struct idx *idx,
		  int (*run)(void *ctx, unsigned worker, size_t k),
		  int (*merge)(void *ctx, size_t k))
{
	struct pool_cfg cfg = {
		.nthreads = idx->nthreads, .nunits = idx->nunits, .window = 4,
		.run = run, .ctx = idx, .cancel = &idx->cancel,
	};
	struct pool *p;
	int ret, st;

	ret = pool_start(&p, &cfg);
	if (ret < 0)
		return ret;
	ret = pool_merge(p, merge);
	st = pool_wait(p);
	pool_free(p);
	if (!ret && atomic_load(&idx->cancel))
		ret = -pte_canceled;
	/* The first real failure wins over the cancels it caused. */
	if (ret == -pte_canceled && st < 0 && st != -pte_canceled)
		ret = st;
	return ret;
}

static void set_phase(struct idx *idx, enum idx_phase ph)
{
	pthread_mutex_lock(&idx->lock);
	idx->tphase = now();
	atomic_store(&idx->done, 0);
	atomic_store(&idx->phase, ph);
	pthread_mutex_unlock(&idx->lock);
}

static void *coordinator(void *arg)
{
	struct idx *idx = arg;
	int ret = 0;

	idx_sum_init();
	if (!idx->cblk)
		ret = idx_ctx_reserve(idx, 0);
	if (!ret && !atomic_load(&idx->scan_done)) {
		set_phase(idx, IDX_SCAN);
		ret = idx_phase1(idx);
		if (!ret) {
			double dt = now() - idx->tphase;

			idx->rate1 = dt > 0 ? (double)idx->total / dt : 0;
			atomic_store(&idx->scanned, idx->img->size);
			atomic_store(&idx->scan_done, 1);
		}
	}
	if (!ret && !idx->phase1_only && idx_phase3_sums(idx)) {
		/* One pass over the bytes, not two: the time pass's skim
		 * counts the packets as phase 2's would. */
		idx->sums_in_time = 1;
		set_phase(idx, IDX_TIME);
		ret = idx_phase3(idx);
		if (!ret)
			idx->sums_done = 1;
	} else if (!ret && !idx->phase1_only) {
		set_phase(idx, IDX_SEGMENTS);
		ret = idx_phase2(idx);
		if (!ret)
			idx->sums_done = 1;
		if (!ret && idx->time_pass) {
			set_phase(idx, IDX_TIME);
			ret = idx_phase3(idx);
		}
	}
	idx->sums_in_time = 0;
	if (!ret && !idx->phase1_only)
		idx_time_range(idx);
	if (!ret && !idx->phase1_only)
		idx->complete = 1;
	pthread_mutex_lock(&idx->lock);
	atomic_store(&idx->status, ret);
	atomic_store(&idx->phase, IDX_DONE);
	atomic_store(&idx->finished, 1);
	pthread_mutex_unlock(&idx->lock);
	return NULL;
}

int idx_start(struct idx *idx)
{
	if (!idx || idx->started)
		return -pte_invalid;
	idx->nthreads = pool_threads(idx->nthreads);
	idx->t0 = now();
	idx->tphase = idx->t0;
	idx->started = 1;
	if (pthread_create(&idx->coord, NULL, coordinator, idx)) {
		idx->started = 0;
		return -pte_nomem;
	}
	return 0;
}

int idx_wait(struct idx *idx)
{
	if (!idx || !idx->started)
		return -pte_invalid;
	if (!idx->joined) {
		pthread_join(idx->coord, NULL);
		idx->joined = 1;
	}
	return atomic_load(&idx->status);
}

int idx_build(struct idx *idx)
{
	int ret = idx_start(idx);

	return ret < 0 ? ret : idx_wait(idx);
}

void idx_cancel(struct idx *idx)
{
	if (idx)
		atomic_store(&idx->cancel, 1);
}

/* How much of the whole build @p is, the phases weighted by their cost
 * per byte (1 : 10 : 20, as for the eta). */
static double progress_frac(const struct idx *idx, const struct idx_progress *p)
{
	double w[3] = { 1, 10, 20 }, all = w[0], before = 0, part;

	if (p->finished)
		return 1;
	if (!idx->phase1_only)
		all += w[1];
	if (!idx->phase1_only && idx->time_pass)
		all += w[2];
	part = p->total ? (double)p->done / (double)p->total : 0;
	if (part > 1)
		part = 1;
	switch (p->phase) {
	case IDX_SCAN:
		return part * w[0] / all;
	case IDX_SEGMENTS:
		before = w[0];
		return (before + part * w[1]) / all;
	case IDX_TIME:
		if (idx->sums_in_time)
			return (w[0] + part * (w[1] + w[2])) / all;
		before = w[0] + (idx->phase1_only ? 0 : w[1]);
		return (before + part * w[2]) / all;
	default:
		return 0;
	}
}

void idx_progress(const struct idx *idx, struct idx_progress *p)
{
	struct idx *m = (struct idx *)idx;
	double t, dt, left1 = 0, rate2;

	memset(p, 0, sizeof(*p));
	if (!idx)
		return;
	pthread_mutex_lock(&m->lock);
	t = now();
	p->phase = (enum idx_phase)atomic_load(&idx->phase);
	p->done = atomic_load(&idx->done);
	p->total = idx->total;
	p->finished = atomic_load(&idx->finished);
	p->status = atomic_load(&idx->status);
	p->elapsed = idx->started ? t - idx->t0 : 0;
	dt = t - idx->tphase;
	p->rate = dt > 0 ? (double)p->done / dt : 0;
	pthread_mutex_unlock(&m->lock);
	p->nseeks = idx_nseeks(idx);
	p->scanned = atomic_load(&idx->scanned);
	p->eta = -1;
	/* The phases' relative speeds, as measured (bench_index, CPU
	 * seconds): summaries at about a tenth of the scan's speed, the time
	 * pass at about half the summaries'. */
	if (p->finished) {
		p->eta = 0;
	} else if (p->rate > 0 && p->phase == IDX_SCAN) {
		left1 = (double)(p->total - p->done) / p->rate;
		p->eta = left1;
		if (!idx->phase1_only)
			p->eta += (double)idx->img->size / (p->rate / 10);
		if (!idx->phase1_only && idx->time_pass)
			p->eta += (double)idx->img->size / (p->rate / 20);
	} else if (p->rate > 0 && p->phase == IDX_SEGMENTS) {
		rate2 = p->rate;
		p->eta = (double)(p->total - p->done) / rate2;
		if (idx->time_pass)
			p->eta += (double)p->total / (rate2 / 2);
	} else if (p->rate > 0 && p->phase == IDX_TIME) {
		p->eta = (double)(p->total - p->done) / p->rate;
	}
	p->frac = progress_frac(idx, p);
}

size_t idx_nsummaries(const struct idx *idx)
{
	return idx ? atomic_load_explicit(&idx->nsums, memory_order_acquire) : 0;
}

/* The exception of segment @i (exc_lock held), or NULL. */
const struct sum_exc *idx_find_exc(const struct idx *idx, size_t i)
{
	size_t lo = 0, hi = idx->nexc;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (idx->exc[mid].seg < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < idx->nexc && idx->exc[lo].seg == i ? &idx->exc[lo] : NULL;
}

/* Packets in segment @i (summarised). */
static uint64_t seg_npackets(const struct idx *idx, size_t i)
{
	const struct sum_packed *p = &idx->ublk[i >> BLK_SHIFT][i & BLK_MASK];
	uint64_t np = 0;
	int c;

	if ((p->tsc_flags >> 56) & SUM_EXC) {
		const struct sum_exc *e;

		pthread_mutex_lock((pthread_mutex_t *)&idx->exc_lock);
		e = idx_find_exc(idx, i);
		np = e ? e->full.npackets : 0;
		pthread_mutex_unlock((pthread_mutex_t *)&idx->exc_lock);
		return np;
	}
	for (c = 0; c < PKC_NCLASSES; c++)
		np += p->cnt[c];
	return np;
}

/* The first ordinal of segment @i (summarised). */
static uint64_t seg_ordinal(const struct idx *idx, size_t i)
{
	size_t g = (i & BLK_MASK) >> GRP_SHIFT, j;
	uint64_t ord = idx->oblk[i >> BLK_SHIFT][g];

	for (j = i & ~(size_t)((1u << GRP_SHIFT) - 1); j < i; j++)
		ord += seg_npackets(idx, j);
	return ord;
}

/* The time pass's part of @out, emptied (have_time 0). */
static void idx_time_clear(struct idx_summary *out)
{
	out->have_time = 0;
	out->has_gap = 0;
	out->max_gap = 0;
	out->gap_off = 0;
	out->has_period = 0;
	memset(&out->slow_period, 0, sizeof(out->slow_period));
	memset(&out->fast_period, 0, sizeof(out->fast_period));
	out->slow_off = 0;
	out->nhalt = 0;
	out->halt_lo = 0;
	out->halt_hi = 0;
}

/* The time pass's part of segment @i's summary into @out, if it got
 * there (else have_time 0). */
static void idx_time_fill(const struct idx *idx, size_t i, struct idx_summary *out)
{
	idx_time_clear(out);
	if (i < atomic_load_explicit(&idx->ntsums, memory_order_acquire)) {
		const struct tsum *t = &idx->gblk[i >> BLK_SHIFT][i & BLK_MASK];

		out->have_time = 1;
		out->has_gap = t->has_gap;
		out->max_gap = t->gap;
		out->gap_off = t->gap_off;
		out->has_period = t->has_per;
		if (t->has_per) {
			out->slow_off = t->slow_off;
			out->slow_period.ticks = t->slow_ticks;
			out->slow_period.ticks_frac = t->slow_frac;
			out->slow_period.cycles = t->slow_cyc;
			out->fast_period.ticks = t->fast_ticks;
			out->fast_period.ticks_frac = t->fast_frac;
			out->fast_period.cycles = t->fast_cyc;
		}
		out->nhalt = t->nhalt;
		out->halt_lo = t->halt_lo;
		out->halt_hi = t->halt_hi;
	}
}

int idx_halted(const struct idx *idx, uint64_t *n, uint64_t *lo, uint64_t *hi)
{
	size_t i, nt;

	if (!idx || !n || !lo || !hi)
		return -pte_invalid;
	*n = *lo = *hi = 0;
	if (!idx->time_pass)
		return -pte_no_time;
	nt = atomic_load_explicit(&idx->ntsums, memory_order_acquire);
	for (i = 0; i < nt; i++) {
		const struct tsum *t = &idx->gblk[i >> BLK_SHIFT][i & BLK_MASK];

		*n += t->nhalt;
		*lo += t->halt_lo;
		*hi += t->halt_hi;
	}
	return nt == idx_nseeks(idx) && idx->complete ? 0 : 1;
}

int idx_summary(const struct idx *idx, size_t i, struct idx_summary *out)
{
	int r = idx_summary_counts(idx, i, out);

	if (r)
		return r;
	out->first_ordinal = seg_ordinal(idx, i);
	idx_time_fill(idx, i, out);
	return 0;
}

int idx_summary_counts(const struct idx *idx, size_t i, struct idx_summary *out)
{
	const struct sum_packed *p;
	size_t n;
	int c;

	if (!idx || !out)
		return -pte_invalid;
	if (i >= idx_nseeks(idx) && idx_scan_done(idx))
		return -pte_invalid;
	if (i >= idx_nsummaries(idx))
		return 1;
	p = &idx->ublk[i >> BLK_SHIFT][i & BLK_MASK];
	memset(out, 0, sizeof(*out));
	if ((p->tsc_flags >> 56) & SUM_EXC) {
		const struct sum_exc *e;

		pthread_mutex_lock((pthread_mutex_t *)&idx->exc_lock);
		e = idx_find_exc(idx, i);
		if (e)
			*out = e->full;
		pthread_mutex_unlock((pthread_mutex_t *)&idx->exc_lock);
		if (!e)
			return -pte_internal;
	} else {
		for (c = 0; c < PKC_NCLASSES; c++) {
			out->per_class[c] = p->cnt[c];
			out->npackets += p->cnt[c];
		}
		out->cycles = p->cycles;
		out->max_cyc = p->max_cyc;
		out->have_tsc = !!((p->tsc_flags >> 56) & SUM_TSC);
		if (out->have_tsc) {
			out->first_tsc = p->tsc_flags & ((1ull << 56) - 1);
			out->last_tsc = out->first_tsc + p->tsc_span;
		}
	}
	n = idx_nseeks(idx);
	out->size = (i + 1 < n ? idx_seek_off(idx, i + 1) : idx->img->size) - idx_seek_off(idx, i);
	out->first_ordinal = 0;
	idx_time_clear(out);
	return 0;
}

int idx_time_summary(const struct idx *idx, size_t i, struct idx_summary *out)
{
	if (!idx || !out || i >= idx_nseeks(idx))
		return -pte_invalid;
	idx_time_fill(idx, i, out);
	return out->have_time ? 0 : 1;
}

int idx_last_timing(const struct idx *idx, size_t i, uint64_t *tsc)
{
	const struct tsum *t;

	if (!idx || !tsc || i >= idx_nseeks(idx))
		return -pte_invalid;
	if (i >= atomic_load_explicit(&idx->ntsums, memory_order_acquire))
		return 1;
	t = &idx->gblk[i >> BLK_SHIFT][i & BLK_MASK];
	if (!t->has_last)
		return -pte_no_time;
	*tsc = t->last;
	return 0;
}

int idx_totals(const struct idx *idx, struct idx_summary *out)
{
	if (!idx || !out)
		return -pte_invalid;
	pthread_mutex_lock((pthread_mutex_t *)&idx->exc_lock);
	*out = idx->totals;
	pthread_mutex_unlock((pthread_mutex_t *)&idx->exc_lock);
	out->size = idx->img->size;
	out->first_ordinal = 0;
	return idx->sums_done ? 0 : 1;
}

int idx_find_ordinal(const struct idx *idx, uint64_t ord, size_t *seg)
{
	size_t n, lo, hi, g, ng, i;
	uint64_t base;

	if (!idx || !seg)
		return -pte_invalid;
	n = idx_nsummaries(idx);
	if (!n)
		return idx->sums_done ? -pte_eos : 1;
	/* Binary search the group bases, then walk the group. */
	ng = ((n - 1) >> GRP_SHIFT) + 1;
	lo = 0;
	hi = ng;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		size_t s = mid << GRP_SHIFT;

		if (idx->oblk[s >> BLK_SHIFT][(s & BLK_MASK) >> GRP_SHIFT] <= ord)
			lo = mid;
		else
			hi = mid;
	}
	g = lo << GRP_SHIFT;
	base = idx->oblk[g >> BLK_SHIFT][(g & BLK_MASK) >> GRP_SHIFT];
	if (base > ord)
		return -pte_invalid;
	for (i = g; i < n && i < g + (1u << GRP_SHIFT); i++) {
		uint64_t np = seg_npackets(idx, i);

		if (ord < base + np) {
			*seg = i;
			return 0;
		}
		base += np;
	}
	return idx->sums_done && n == idx_nseeks(idx) ? -pte_eos : 1;
}

/* Segment @i's first TSC, if it has one (summarised). */
static int seg_first_tsc(const struct idx *idx, size_t i, uint64_t *tsc)
{
	const struct sum_packed *p = &idx->ublk[i >> BLK_SHIFT][i & BLK_MASK];
	unsigned f = (unsigned)(p->tsc_flags >> 56);

	if (!(f & SUM_TSC))
		return 0;
	if (f & SUM_EXC) {
		struct idx_summary s;

		if (idx_summary_counts(idx, i, &s) || !s.have_tsc)
			return 0;
		*tsc = s.first_tsc;
		return 1;
	}
	*tsc = p->tsc_flags & ((1ull << 56) - 1);
	return 1;
}

/* How far idx_time_outlier() looks for a timed neighbour each side. */
#define OUTLIER_REACH 4

/*
 * How far off its neighbours a segment's TSC at an edge of the trace (a
 * neighbour on one side only) must lie, in the direction time runs, to
 * be taken for damage: both 2^44 ticks (an hour and more at any TSC rate;
 * a damaged byte 5 or above of the payload moves it by 2^40 or more, and
 * a TSC is rarely much above 2^44 ticks, so a far-past one lies that far)
 * and 2^16 times those neighbours' own distance.  A sound trace whose
 * first or last PSB is that far from the next one is taken for damaged
 * too; one idle for minutes at its start or end (an idle CPU, a thread
 * asleep: 2^40 ticks was taken for damage) is not.
 */
#define EDGE_FAR_TICKS (1ull << 44)
#define EDGE_FAR_SHIFT 16

/* The first TSCs of the nearest two segments with one from segment @i on
 * in direction @dir (1 or -1), each up to OUTLIER_REACH segments from the
 * one before.  Returns how many were found (0 to 2), and sets *@edge if
 * none was because the trace ends that way. */
static int seg_neighbours(const struct idx *idx, size_t i, int dir, uint64_t v[2],
			  int *edge)
{
	size_t n = idx_nsummaries(idx), j = i, k;
	int got = 0;

	*edge = 0;
	while (got < 2) {
		for (k = 0; k < OUTLIER_REACH; k++) {
			if (dir < 0 ? j == 0 : j + 1 >= n) {
				*edge = !got;
				return got;
			}
			j = dir < 0 ? j - 1 : j + 1;
			if (seg_first_tsc(idx, j, &v[got]))
				break;
		}
		if (k == OUTLIER_REACH)
			return got;
		got++;
	}
	return got;
}

/* Whether @gap ticks away from neighbours @spacing ticks apart is far. */
static int edge_far(uint64_t gap, uint64_t spacing)
{
	return gap >= EDGE_FAR_TICKS && (gap >> EDGE_FAR_SHIFT) > spacing;
}

int idx_time_outlier(const struct idx *idx, size_t i)
{
	uint64_t t, l[2], r[2];
	int nl, nr, el, er;

	if (!idx || i >= idx_nsummaries(idx) || !seg_first_tsc(idx, i, &t))
		return 0;
	nl = seg_neighbours(idx, i, -1, l, &el);
	nr = seg_neighbours(idx, i, 1, r, &er);
	/* The neighbours agree with each other, not with this one. */
	if (nl && nr)
		return l[0] <= r[0] && (t < l[0] || t > r[0]);
	/* At the start: the next two in order, this one after both or
	 * far before them. */
	if (el && nr == 2 && r[0] <= r[1])
		return t > r[1] || (t < r[0] && edge_far(r[0] - t, r[1] - r[0]));
	/* At the end: the last two in order, this one before both or far
	 * after them. */
	if (er && nl == 2 && l[1] <= l[0])
		return t < l[1] || (t > l[0] && edge_far(t - l[0], l[0] - l[1]));
	return 0;
}

/* The least allowance idx_time_ceiling() gives the model's estimates past
 * the next PSB+ TSC, in ticks (tens of microseconds at any TSC rate). */
#define CEILING_MIN_TICKS (1ull << 16)

int idx_time_ceiling(const struct idx *idx, size_t i, uint64_t *tsc)
{
	const struct tm_config *cfg;
	uint64_t next, own, room = CEILING_MIN_TICKS, per;
	size_t n, j, k;

	if (!idx || !tsc || i >= (n = idx_nsummaries(idx)) || idx_time_outlier(idx, i))
		return 0;
	for (j = i + 1, k = 0; j < n && k < OUTLIER_REACH; j++, k++) {
		if (seg_first_tsc(idx, j, &next))
			break;
	}
	if (j >= n || k == OUTLIER_REACH || idx_time_outlier(idx, j))
		return 0;
	/* An MTC's time may lie up to a period past the next PSB+ TSC (its
	 * CTC boundary as the reference places it), and CYCs extrapolated
	 * at a core:bus ratio that was off may run past it: twice the time
	 * from this segment's TSC covers a ratio off by half. */
	cfg = idx_config(idx);
	if (cfg->have_mtc_freq && cfg->have_cpuid_15 && cfg->cpuid_15_eax) {
		per = ((uint64_t)cfg->cpuid_15_ebx << cfg->mtc_freq) / cfg->cpuid_15_eax;
		if (2 * per > room)
			room = 2 * per;
	}
	if (seg_first_tsc(idx, i, &own) && own < next && next - own > room)
		room = next - own;
	*tsc = next + room < next ? UINT64_MAX : next + room;
	return 1;
}

int idx_time_overrun(const struct idx *idx, size_t i, uint64_t *ceil)
{
	struct idx_summary s;

	return idx_time_ceiling(idx, i, ceil) && !idx_summary_counts(idx, i, &s) &&
	       s.have_tsc && (s.tsc_back || s.last_tsc > *ceil);
}

int idx_time_damage_ceiling(const struct idx *idx, size_t i, uint64_t *ceil)
{
	uint64_t c;

	if (!idx || !ceil || !idx_time_ceiling(idx, i, ceil))
		return 0;
	return idx_time_overrun(idx, i, &c) || (i && idx_time_overrun(idx, i - 1, &c));
}

/*
 * The trace's time range, once: the merges took the least and the
 * greatest TSC of all segments, so one damaged PSB+ TSC (far in the
 * future or the past) stretched it, and with it the timeline's axis.
 */
void idx_time_range(struct idx *idx)
{
	size_t n = idx_nsummaries(idx), i;
	struct idx_summary s;
	uint64_t first = 0, last = 0, t;
	int have = 0;

	for (i = 0; i < n; i++) {
		if (idx_summary_counts(idx, i, &s) || !s.have_tsc ||
		    idx_time_outlier(idx, i))
			continue;
		/* (a last TSC past the next PSB+ TSC is damage) */
		if (s.last_tsc > s.first_tsc && idx_time_ceiling(idx, i, &t) && s.last_tsc > t)
			s.last_tsc = s.first_tsc;
		if (!have || s.first_tsc < first)
			first = s.first_tsc;
		if (!have || s.last_tsc > last)
			last = s.last_tsc;
		have = 1;
	}
	if (!have)
		return;
	/* The model's estimate at the end counts from the last segment's
	 * TSC, which may be an outlier's: then it, and that segment's own
	 * last TSC (a sound one after its damaged first?), only if in
	 * order and not far off. */
	for (i = n; i > 0 && !seg_first_tsc(idx, i - 1, &t); i--)
		;
	if (i && idx_time_outlier(idx, i - 1)) {
		if (!idx_summary_counts(idx, i - 1, &s) && s.last_tsc > last &&
		    s.last_tsc - last < EDGE_FAR_TICKS)
			last = s.last_tsc;
		if (idx->have_end && idx->end_tsc > last &&
		    idx->end_tsc - last < EDGE_FAR_TICKS)
			last = idx->end_tsc;
	} else if (idx->have_end && idx->end_tsc > last) {
		last = idx->end_tsc;
	}
	pthread_mutex_lock(&idx->exc_lock);
	idx->totals.first_tsc = first;
	idx->totals.last_tsc = last;
	pthread_mutex_unlock(&idx->exc_lock);
}

int idx_end_estimated(const struct idx *idx)
{
	struct idx_summary tot, s;
	size_t i = idx ? idx_nsummaries(idx) : 0;
	uint64_t t;

	if (!i || idx_totals(idx, &tot) || !tot.have_tsc)
		return 0;
	/* The last TSC packet: the last sound segment's (as
	 * idx_time_range() takes them; a cached index keeps no flag). */
	while (i--) {
		if (idx_summary_counts(idx, i, &s) || !s.have_tsc || idx_time_outlier(idx, i))
			continue;
		if (s.last_tsc > s.first_tsc && idx_time_ceiling(idx, i, &t) && s.last_tsc > t)
			s.last_tsc = s.first_tsc;
		return tot.last_tsc > s.last_tsc;
	}
	return 0;
}

int idx_time_origin(const struct idx *idx, uint64_t *t0)
{
	struct idx_summary t;
	size_t n, i;
	uint64_t f;

	if (!idx || !t0 || !idx->complete || idx_totals(idx, &t) || !t.have_tsc)
		return 0;
	/* (a TSC before the first PSB, of a trace that starts mid-stream,
	 * is no segment's: only an outlier first segment moves it, and
	 * one inside the time range only if it is that segment's: damage
	 * that moved it by less than the trace's length) */
	n = idx_nsummaries(idx);
	for (i = 0; i < n && !seg_first_tsc(idx, i, &f); i++)
		;
	if (i == n || !idx_time_outlier(idx, i) ||
	    (*t0 >= t.first_tsc && *t0 <= t.last_tsc && *t0 != f) || *t0 == t.first_tsc)
		return 0;
	*t0 = t.first_tsc;
	return 1;
}

/* Segment @i's first TSC, if it has one and it is no outlier. */
static int seg_time(const struct idx *idx, size_t i, uint64_t *tsc)
{
	return seg_first_tsc(idx, i, tsc) && !idx_time_outlier(idx, i);
}

int idx_find_tsc(const struct idx *idx, uint64_t tsc, size_t *seg)
{
	size_t n, lo, hi, mid, j, first = SIZE_MAX;
	uint64_t t;

	if (!idx || !seg)
		return -pte_invalid;
	n = idx_nsummaries(idx);
	for (j = 0; j < n; j++)
		if (seg_time(idx, j, &t)) {
			first = j;
			break;
		}
	if (first == SIZE_MAX)
		return idx->sums_done ? -pte_no_time : 1;
	if (tsc <= t) {
		*seg = first;
		return 0;
	}
	/* Invariant: the segment at lo has a time <= tsc. */
	lo = first;
	hi = n;
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		/* Segments without a time take the nearest one before. */
		for (j = mid; j > lo && !seg_time(idx, j, &t); j--)
			;
		if (j == lo) {
			/* None in (lo, mid]: look right of mid instead. */
			size_t r;

			for (r = mid + 1; r < hi && !seg_time(idx, r, &t); r++)
				;
			if (r == hi || t > tsc) {
				hi = mid;
				continue;
			}
			lo = r;
			continue;
		}
		if (t <= tsc)
			lo = j;
		else
			hi = j;
	}
	*seg = lo;
	if (lo + 1 == n && !idx->sums_done)
		return 1;
	return 0;
}

int idx_next_trouble(const struct idx *idx, size_t from, int dir, size_t *seg)
{
	size_t lo = 0, hi;
	int ret;

	if (!idx || !seg || !dir)
		return -pte_invalid;
	pthread_mutex_lock((pthread_mutex_t *)&idx->exc_lock);
	hi = idx->ntrouble;
	/* The first trouble entry > from. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (idx->trouble[mid] <= from)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (dir > 0) {
		if (lo < idx->ntrouble) {
			*seg = (size_t)idx->trouble[lo];
			ret = 0;
		} else {
			ret = idx->sums_done ? -pte_eos : 1;
		}
	} else {
		/* The last entry < from. */
		while (lo > 0 && idx->trouble[lo - 1] >= from)
			lo--;
		if (lo > 0) {
			*seg = (size_t)idx->trouble[lo - 1];
			ret = 0;
		} else {
			ret = from <= idx_nsummaries(idx) ? -pte_eos : 1;
		}
	}
	pthread_mutex_unlock((pthread_mutex_t *)&idx->exc_lock);
	return ret;
}

int idx_complete(const struct idx *idx)
{
	return idx && idx->complete;
}

