/*
 * iter_stats -- the iterations' measures: each from its two boundaries
 * (cycles where CYC makes them exact, else time between TSC-based
 * times (in ns, each end converted as the panes convert it, where TSCs
 * convert), left out where time is damaged or missing), and the statistics
 * of them all (percentiles by a radix sort, the slowest first).  The
 * walk that finds the boundaries is iter.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "iter.h"
#include "iter_int.h"
#include "tm.h"

/* Duration of the iteration from @a to @z into @it, in ns too as @cfg
 * converts TSCs (NULL: not). */
static void iter_measure(const struct iter_bound *a, const struct iter_bound *z,
			 const struct tm_config *cfg, struct iter_item *it)
{
	uint64_t na, nz;

	it->broken = z->lost;
	it->disputed = a->disputed || z->disputed;
	/* Time from TSCs only: before the first one the model counts from
	 * 0 (TM_F_REL), and a span from there to a TSC's time, or between
	 * two such guesses, measures nothing. */
	it->no_tsc = !(a->flags & z->flags & TM_F_TSC);
	it->ticks = !it->no_tsc && z->tsc >= a->tsc ? z->tsc - a->tsc : 0;
	/* Time went back in between (only a PSB+ TSC takes it back), or
	 * the end is a TSC that took it back: the times disagree. */
	if (!it->no_tsc && (z->tsc < a->tsc || (z->flags & TM_F_RESYNC)))
		it->disputed = 1;
	it->exact = a->anchor && z->anchor && !it->disputed && !it->no_tsc;
	/* Each end converted as the panes convert it, so that the duration
	 * is their times' difference (a region's); a conversion of ticks
	 * alone may differ by a nanosecond either way. */
	it->ns = 0;
	if (cfg && it->ticks && !tm_tsc_to_ns(cfg, a->tsc, &na) &&
	    !tm_tsc_to_ns(cfg, z->tsc, &nz) && nz >= na)
		it->ns = nz - na;
	it->has_cyc = (a->flags & TM_F_CYC) && (z->flags & TM_F_CYC);
	if (!it->has_cyc)
		return;
	/* [z.lo - a.hi, z.hi - a.lo]: an unknown bound leaves it open. */
	it->cyc_lo = a->cyc_hi == UINT64_MAX || z->cyc_lo < a->cyc_hi ? 0 :
		z->cyc_lo - a->cyc_hi;
	it->cyc_hi = z->cyc_hi == UINT64_MAX ? UINT64_MAX : z->cyc_hi - a->cyc_lo;
}

/* A measured item's sort key: its value complemented (ascending is
 * slowest first) and its index. */
struct iter_key {
	uint64_t v;
	size_t i;
};

/* Sort @k[@n] by v, stably (ties keep their order), a byte at a time
 * from the lowest, passing over the bytes every key shares (the high
 * ones, mostly); @tmp has room for @n.  Returns the sorted array: @k or
 * @tmp.  (qsort() took most of a picture's time: a second for a
 * million.) */
static struct iter_key *iter_radix(struct iter_key *k, struct iter_key *tmp, size_t n)
{
	size_t cnt[256], i, at, c;
	unsigned sh;

	for (sh = 0; n && sh < 64; sh += 8) {
		memset(cnt, 0, sizeof(cnt));
		for (i = 0; i < n; i++)
			cnt[k[i].v >> sh & 255]++;
		if (cnt[k[0].v >> sh & 255] == n)
			continue;
		for (at = 0, i = 0; i < 256; i++) {
			c = cnt[i];
			cnt[i] = at;
			at += c;
		}
		for (i = 0; i < n; i++)
			tmp[cnt[k[i].v >> sh & 255]++] = k[i];
		{
			struct iter_key *x = k;

			k = tmp;
			tmp = x;
		}
	}
	return k;
}

/* The nearest-rank @pct percentile of the @n keys @k, slowest first. */
static uint64_t iter_rank(const struct iter_key *k, size_t n, unsigned pct)
{
	size_t r = (size_t)(((unsigned __int128)n * pct + 99) / 100);

	return ~k[n - (r ? r : 1)].v;
}

/* iter_int.h */
int iter_measure_all(const struct iter_bound *b, size_t nb, const uint8_t *cut,
		     const struct tm_config *cfg, struct iter_item *v, size_t *n,
		     struct iter_stats *st, size_t **order)
{
	uint64_t x;

	size_t i, k = 0, m = 0, cap = nb > 1 ? nb - 1 : 1;
	struct iter_key *key = malloc(cap * sizeof(*key)), *tmp = malloc(cap * sizeof(*tmp));
	struct iter_key *sorted;
	double sum = 0;

	if (!key || !tmp)
		goto nomem;
	st->cycles = 1;
	for (i = 0; i + 1 < nb; i++) {
		if (cut && cut[i + 1])
			continue;
		v[m].from = i;
		iter_measure(&b[i], &b[i + 1], cfg, &v[m]);
		if (v[m++].broken) {
			st->nbroken++;
			continue;
		}
		st->n++;
		if (!v[m - 1].has_cyc || v[m - 1].cyc_lo != v[m - 1].cyc_hi)
			st->cycles = 0;
	}
	if (!st->n)
		st->cycles = 0;
	/* in time, ranked by what the list shows: ns where TSCs convert */
	st->ns = !st->cycles && cfg && !tm_tsc_to_ns(cfg, 0, &x);
	/* in time, an end in damaged time or without a TSC measures
	 * nothing (in cycles, CYC counted them all the same) */
	for (i = 0; !st->cycles && i < m; i++)
		if (!v[i].broken && (v[i].disputed || v[i].no_tsc)) {
			st->n--;
			if (v[i].disputed)
				st->ndisputed++;
			else
				st->nnotsc++;
		}
	for (i = 0; i < m; i++)
		if (!v[i].broken && (st->cycles || !(v[i].disputed || v[i].no_tsc))) {
			key[k].v = ~iter_value(&v[i], st);
			key[k++].i = i;
			st->nexact += v[i].exact;
			sum += (double)iter_value(&v[i], st);
		}
	sorted = iter_radix(key, tmp, k);
	if (k) {
		st->max = ~sorted[0].v;
		st->min = ~sorted[k - 1].v;
		st->p50 = iter_rank(sorted, k, 50);
		st->p90 = iter_rank(sorted, k, 90);
		st->p99 = iter_rank(sorted, k, 99);
		st->mean = sum / (double)k;
	}
	if (order) {
		/* the indexes over the keys they came in: no more memory */
		size_t *o = (size_t *)(sorted == key ? tmp : key);

		for (i = 0; i < k; i++)
			o[i] = sorted[i].i;
		*order = realloc(o, (k ? k : 1) * sizeof(*o));
		if (!*order)
			*order = o;
		free(sorted);
	} else {
		free(key);
		free(tmp);
	}
	*n = m;
	return 0;

nomem:
	free(key);
	free(tmp);
	return -pte_nomem;
}

int iter_items(const struct iter_bound *b, size_t nb, const struct tm_config *cfg,
	       struct iter_item **out, size_t *n, struct iter_stats *st)
{
	struct iter_item *v;

	if (!out || !n || !st || (!b && nb))
		return -pte_invalid;
	memset(st, 0, sizeof(*st));
	*out = NULL;
	*n = 0;
	v = calloc(nb > 1 ? nb - 1 : 1, sizeof(*v));
	if (!v || iter_measure_all(b, nb, NULL, cfg, v, n, st, NULL) < 0) {
		free(v);
		return -pte_nomem;
	}
	*out = v;
	return 0;
}
