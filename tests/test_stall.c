/* test_stall -- the N longest gaps and slowest periods of a trace
 * (decoder/stall.h): a segment's walk agrees with its index summary, and
 * stall_top() equals sorting every gap and period of every segment, on
 * ptgen traces and on one with the two slowest periods planted in one
 * segment (and two long gaps in another), which the summaries alone,
 * keeping one per segment, would miss; the segments most halted are the
 * summaries' sorted, sleeps planted by ptgen --sleep-at rank first, and a
 * trace without sleeps has none; their sleeps and halted time are what a
 * plain pkt_next() walk of the trace finds (ptgen traces, planted sleeps
 * alone, shared real traces), and so is each segment's longest sleep's
 * place, also where its PWRX came before the segment's PSB. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "helpers.h"
#include "index.h"
#include "pkt.h"
#include "stall.h"
#include "tm.h"

/* ptgen's default timing configuration (--print-config). */
static void gen_cfg(struct tm_config *c)
{
	memset(c, 0, sizeof(*c));
	assert_int_equal(tm_config_option(c, "--mtc-freq", "3"), 1);
	assert_int_equal(tm_config_option(c, "--nom-freq", "12"), 1);
	assert_int_equal(tm_config_option(c, "--cpuid-0x15.eax", "2"), 1);
	assert_int_equal(tm_config_option(c, "--cpuid-0x15.ebx", "100"), 1);
}

/* ptgen @args into a malloc'ed buffer (*@n bytes); NULL without ptgen. */
static uint8_t *gen(const char *args, size_t *n)
{
	const char *build = getenv("BUILD");
	char cmd[1024], path[] = "/tmp/test_stall.XXXXXX";
	uint8_t *d = NULL;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "%s/tools/ptgen %s -o %s 2>/dev/null",
		 build ? build : "build", args, path);
	if (system(cmd) == 0)
		d = helpers_read_file(path, n);
	unlink(path);
	snprintf(cmd, sizeof(cmd), "%s.options", path);
	unlink(cmd);
	return d;
}

struct trace {
	struct img img;
	struct img_span span;
	struct idx *idx;
	struct tm_config cfg;
	const uint8_t *d;	/* the bytes indexed, n of them */
	size_t n;
};

/* Index @d (@n bytes) with timing configuration @cfg. */
static void tr_index_cfg(struct trace *t, uint8_t *d, size_t n, const struct tm_config *cfg)
{
	t->cfg = *cfg;
	t->d = d;
	t->n = n;
	img_init_flat(&t->img, &t->span, d, n);
	assert_int_equal(idx_new(&t->idx, &t->img, &t->cfg), 0);
	assert_int_equal(idx_build(t->idx), 0);
}

/* Index @d (@n bytes), a ptgen trace. */
static void tr_index(struct trace *t, uint8_t *d, size_t n)
{
	struct tm_config cfg;

	gen_cfg(&cfg);
	tr_index_cfg(t, d, n, &cfg);
}

/* Every stall of @kind in the trace but the disputed gaps (counted in
 * *@nd if not NULL), sorted best first, into *@n. */
static struct stall *all_sorted_d(struct trace *t, enum stall_kind kind, size_t *n,
				  size_t *nd)
{
	struct stall *all = NULL, *v;
	size_t i, k, nv, na = 0;

	if (nd)
		*nd = 0;
	for (i = 0; i < idx_nseeks(t->idx); i++) {
		assert_int_equal(stall_segment(t->idx, &t->img, i, kind, &v, &nv), 0);
		all = realloc(all, (na + nv + 1) * sizeof(*all));
		assert_non_null(all);
		for (k = 0; k < nv; k++) {
			/* only the jump into an outlier segment, its first
			 * TSC, or into time past the segment's ceiling */
			if (v[k].disputed) {
				uint64_t ceil;

				assert_int_equal(kind, STALL_GAP);
				assert_true(idx_time_outlier(t->idx, i) ||
					    idx_time_ceiling(t->idx, i, &ceil));
				assert_int_equal(t->d[v[k].at], 0x19);
				if (nd)
					(*nd)++;
				continue;
			}
			all[na++] = v[k];
		}
		free(v);
	}
	/* insertion sort: a few thousand at most */
	for (i = 1; i < na; i++) {
		struct stall x = all[i];

		for (k = i; k > 0 && stall_before(kind, &x, &all[k - 1]); k--)
			all[k] = all[k - 1];
		all[k] = x;
	}
	*n = na;
	return all;
}

/* all_sorted_d() without the count. */
static struct stall *all_sorted(struct trace *t, enum stall_kind kind, size_t *n)
{
	return all_sorted_d(t, kind, n, NULL);
}

/* The segments with sleeps, most halted first, from every summary, into
 * *@n. */
static struct stall *halts_sorted(struct trace *t, size_t *n)
{
	struct stall *all = calloc(idx_nseeks(t->idx) + 1, sizeof(*all)), x;
	struct idx_summary s;
	size_t i, k, na = 0;
	uint64_t end;

	assert_non_null(all);
	for (i = 0; i < idx_nseeks(t->idx); i++) {
		assert_int_equal(idx_time_summary(t->idx, i, &s), 0);
		if (!s.nhalt)
			continue;
		assert_true(s.halt_lo <= s.halt_hi);
		memset(&x, 0, sizeof(x));
		x.seg = i;
		x.nhalt = s.nhalt;
		x.halt_lo = s.halt_lo;
		x.halt_hi = s.halt_hi;
		assert_int_equal(idx_segment_span(t->idx, i, &x.at, &end), 0);
		for (k = na++; k > 0 && stall_before(STALL_HALT, &x, &all[k - 1]); k--)
			all[k] = all[k - 1];
		all[k] = x;
	}
	*n = na;
	return all;
}

/* stall_top()'s halted segments = the first @want of halts_sorted(). */
static void check_halts(struct trace *t, const struct stall_list *l, size_t want)
{
	size_t n, i;
	struct stall *all = halts_sorted(t, &n);

	assert_int_equal(l->nhalts, n < want ? n : want);
	for (i = 0; i < l->nhalts; i++) {
		uint64_t at, from, end;

		/* the place of its longest sleep, inside the segment */
		assert_int_equal(stall_halt_place(t->idx, &t->img, all[i].seg, &at), 0);
		assert_int_equal(idx_segment_span(t->idx, all[i].seg, &from, &end), 0);
		assert_true(at >= from && at < end);
		assert_int_equal(l->halts[i].seg, all[i].seg);
		assert_int_equal(l->halts[i].at, all[i].at);
		assert_int_equal(l->halts[i].nhalt, all[i].nhalt);
		assert_int_equal(l->halts[i].halt_lo, all[i].halt_lo);
		assert_int_equal(l->halts[i].halt_hi, all[i].halt_hi);
	}
	free(all);
}

/* One segment's sleeps as a plain walk sees them. */
struct seg_halt {
	uint64_t nhalt, lo, hi;	/* sleeps closed in it, halted time summed */
	uint64_t best_hi, best_at;	/* its longest sleep (the first of
				 * equals): halted at most, its place */
	int early;		/* that sleep's PWRX lies before the PSB */
};

/* Walk @t's trace segment by segment with pkt_next() and one time model
 * from the first PSB (a decode error loses the rest of its segment, as
 * in the time pass), into a new array of idx_nseeks() seg_halt: where
 * each sleep closes, its halted time, and each segment's longest sleep,
 * placed at its PWRX or, where that came in an earlier segment, at the
 * anchor closing it.  Neither the index's carries or summaries nor
 * stall.c's walk take part. */
static struct seg_halt *walk_halts(struct trace *t)
{
	size_t ns = idx_nseeks(t->idx), i;
	struct seg_halt *sh = calloc(ns + 1, sizeof(*sh));
	uint64_t hseq = 0, pwrx_at = 0, from, end, lo, hi;
	struct pkt_decoder dec;
	struct tm_model tm;
	struct tm_stamp st;
	struct pkt p;
	int r;

	assert_non_null(sh);
	tm_init(&tm, &t->cfg);
	for (i = 0; i < ns; i++) {
		assert_int_equal(idx_segment_span(t->idx, i, &from, &end), 0);
		assert_true(from <= end && end <= t->n);
		assert_int_equal(pkt_decoder_init(&dec, t->d + from, t->d + end, from), 0);
		while ((r = pkt_next(&dec, &p)) != -pte_eos) {
			if (r < 0) {
				tm_gap(&tm);
				break;
			}
			if (p.type == PKT_PWRX)
				pwrx_at = p.offset;
			tm_step(&tm, &p, &st);
			if (tm_last_halt(&tm, &lo, &hi) == hseq)
				continue;
			hseq = tm_last_halt(&tm, &lo, &hi);
			assert_true(lo <= hi);
			if (!sh[i].nhalt || hi > sh[i].best_hi) {
				sh[i].best_hi = hi;
				sh[i].early = pwrx_at < from;
				sh[i].best_at = sh[i].early ? p.offset : pwrx_at;
			}
			sh[i].nhalt++;
			sh[i].lo += lo;
			sh[i].hi += hi;
		}
	}
	return sh;
}

/* stall_top()'s halted segments @l (asked for @want) = walk_halts()'s
 * most halted, ranked the same way: the same segments, sleeps and
 * halted time; and every segment's longest sleep where the walk places
 * it.  Returns how many segments had a sleep; *@early (if not NULL):
 * how many longest sleeps had their PWRX before the segment's PSB. */
static size_t check_halts_walk(struct trace *t, const struct stall_list *l, size_t want,
			       size_t *early)
{
	size_t ns = idx_nseeks(t->idx), i, k, na = 0, ne = 0;
	struct seg_halt *sh = walk_halts(t);
	struct stall *all = calloc(ns + 1, sizeof(*all)), x;
	uint64_t at, end;
	int r;

	assert_non_null(all);
	for (i = 0; i < ns; i++) {
		r = stall_halt_place(t->idx, &t->img, i, &at);
		if (!sh[i].nhalt) {
			assert_int_equal(r, 1);
			continue;
		}
		assert_int_equal(r, 0);
		if (at != sh[i].best_at)
			fail_msg("segment %zu: its longest sleep at 0x%llx, a walk says 0x%llx",
				 i, (unsigned long long)at, (unsigned long long)sh[i].best_at);
		ne += sh[i].early;
		memset(&x, 0, sizeof(x));
		x.seg = i;
		x.nhalt = (uint32_t)sh[i].nhalt;
		x.halt_lo = sh[i].lo;
		x.halt_hi = sh[i].hi;
		assert_int_equal(idx_segment_span(t->idx, i, &x.at, &end), 0);
		for (k = na++; k > 0 && stall_before(STALL_HALT, &x, &all[k - 1]); k--)
			all[k] = all[k - 1];
		all[k] = x;
	}
	assert_int_equal(l->nhalts, na < want ? na : want);
	for (i = 0; i < l->nhalts; i++) {
		if (l->halts[i].seg != all[i].seg || l->halts[i].nhalt != all[i].nhalt ||
		    l->halts[i].halt_lo != all[i].halt_lo ||
		    l->halts[i].halt_hi != all[i].halt_hi)
			fail_msg("halted #%zu: segment %zu, %u sleeps, %llu..%llu ticks; "
				 "a walk says segment %zu, %u, %llu..%llu", i,
				 l->halts[i].seg, l->halts[i].nhalt,
				 (unsigned long long)l->halts[i].halt_lo,
				 (unsigned long long)l->halts[i].halt_hi, all[i].seg,
				 all[i].nhalt, (unsigned long long)all[i].halt_lo,
				 (unsigned long long)all[i].halt_hi);
		assert_int_equal(l->halts[i].at, all[i].at);
	}
	free(all);
	free(sh);
	if (early)
		*early = ne;
	return na;
}

/* stall_top(@want) = the first @want of every stall sorted.  Returns how
 * many of the first @want share a segment with an earlier one. */
static size_t check_top(struct trace *t, size_t want)
{
	struct stall_list l;
	struct stall *all[2];
	size_t na[2], i, k, shared = 0;

	assert_int_equal(stall_top(t->idx, &t->img, want, NULL, &l), 0);
	assert_int_equal(l.partial, 0);
	all[0] = all_sorted(t, STALL_GAP, &na[0]);
	all[1] = all_sorted(t, STALL_PERIOD, &na[1]);
	assert_int_equal(l.ngaps, na[0] < want ? na[0] : want);
	assert_int_equal(l.npers, na[1] < want ? na[1] : want);
	for (i = 0; i < l.ngaps; i++) {
		assert_int_equal(l.gaps[i].at, all[0][i].at);
		assert_int_equal(l.gaps[i].gap, all[0][i].gap);
		assert_int_equal(l.gaps[i].seg, all[0][i].seg);
	}
	for (i = 0; i < l.npers; i++) {
		assert_int_equal(l.pers[i].at, all[1][i].at);
		assert_memory_equal(&l.pers[i].per, &all[1][i].per, sizeof(l.pers[i].per));
		for (k = 0; k < i; k++)
			if (l.pers[k].seg == l.pers[i].seg) {
				shared++;
				break;
			}
	}
	for (i = 0; i < l.ngaps; i++)
		for (k = 0; k < i; k++)
			if (l.gaps[k].seg == l.gaps[i].seg) {
				shared++;
				break;
			}
	check_halts(t, &l, want);
	check_halts_walk(t, &l, want, NULL);
	free(all[0]);
	free(all[1]);
	stall_list_free(&l);
	return shared;
}

/* Each segment's walk finds the largest gap and the slowest period its
 * summary holds, at the same packets, and closes a sleep where the
 * summary counts one. */
static void check_summaries(struct trace *t)
{
	size_t i, k, n;
	struct stall *v;
	uint64_t at;

	for (i = 0; i < idx_nseeks(t->idx); i++) {
		struct idx_summary s;
		size_t best = 0;

		assert_int_equal(idx_time_summary(t->idx, i, &s), 0);
		assert_int_equal(stall_segment(t->idx, &t->img, i, STALL_GAP, &v, &n), 0);
		assert_int_equal(n > 0, s.has_gap);
		for (k = 1; k < n; k++)
			if (stall_before(STALL_GAP, &v[k], &v[best]))
				best = k;
		if (n) {
			assert_int_equal(v[best].gap, s.max_gap);
			assert_int_equal(v[best].at, s.gap_off);
		}
		free(v);
		assert_int_equal(stall_segment(t->idx, &t->img, i, STALL_PERIOD, &v, &n), 0);
		assert_int_equal(n > 0, s.has_period);
		best = 0;
		for (k = 1; k < n; k++)
			if (stall_before(STALL_PERIOD, &v[k], &v[best]))
				best = k;
		if (n) {
			assert_int_equal(tm_period_cmp(&v[best].per, &s.slow_period), 0);
			assert_int_equal(v[best].per.ticks, s.slow_period.ticks);
			assert_int_equal(v[best].at, s.slow_off);
		}
		free(v);
		/* the walk from the carry closes sleeps where the time pass did */
		assert_int_equal(stall_halt_place(t->idx, &t->img, i, &at) == 0, s.nhalt > 0);
	}
}

static void test_null(void **state)
{
	struct stall_list l;
	struct stall *v;
	size_t n;

	(void)state;
	assert_int_equal(stall_top(NULL, NULL, 5, NULL, &l), -pte_invalid);
	assert_int_equal(stall_segment(NULL, NULL, 0, STALL_GAP, &v, &n), -pte_invalid);
	stall_list_free(NULL);
}

/* A segment's halted time is its summary's: no walk for it; the place of
 * its longest sleep needs arguments and a segment with a sleep. */
static void test_halt_segment(void **state)
{
	struct trace t;
	struct stall *v;
	uint64_t at;
	size_t n;
	uint8_t *d = gen("--seed 3 --size 64KiB", &n);

	(void)state;
	if (!d) {
		printf("skipped: no ptgen in $BUILD/tools\n");
		return;
	}
	tr_index(&t, d, n);
	assert_int_equal(stall_segment(t.idx, &t.img, 0, STALL_HALT, &v, &n), -pte_invalid);
	assert_int_equal(stall_halt_place(NULL, &t.img, 0, &at), -pte_invalid);
	assert_int_equal(stall_halt_place(t.idx, &t.img, 0, NULL), -pte_invalid);
	assert_int_equal(stall_halt_place(t.idx, &t.img, idx_nseeks(t.idx), &at),
			 -pte_invalid);
	idx_free(t.idx);
	free(d);
}

/* Whether a PWRX packet starts at @at in @d (@n bytes). */
static int is_pwrx(const uint8_t *d, size_t n, uint64_t at)
{
	struct pkt_decoder dec;
	struct pkt p;

	assert_int_equal(pkt_decoder_init(&dec, d, d + n, 0), 0);
	assert_int_equal(pkt_sync_forward(&dec), 0);
	while (pkt_next(&dec, &p) >= 0 && p.offset <= at)
		if (p.offset == at)
			return p.type == PKT_PWRX;
	return 0;
}

/* The segment holding the first PWRX at or after @off in @d (@n bytes). */
static size_t pwrx_seg(struct trace *t, const uint8_t *d, size_t n, uint64_t off)
{
	struct pkt_decoder dec;
	struct pkt p;
	uint64_t from, end;
	size_t i;

	assert_int_equal(pkt_decoder_init(&dec, d, d + n, 0), 0);
	assert_int_equal(pkt_sync_forward(&dec), 0);
	while (pkt_next(&dec, &p) >= 0)
		if (p.type == PKT_PWRX && p.offset >= off)
			break;
	assert_int_equal(p.type, PKT_PWRX);
	for (i = 0; i < idx_nseeks(t->idx); i++) {
		assert_int_equal(idx_segment_span(t->idx, i, &from, &end), 0);
		if (p.offset >= from && p.offset < end)
			return i;
	}
	fail_msg("no segment holds the PWRX at 0x%llx", (unsigned long long)p.offset);
	return 0;
}

/* Sleeps planted by ptgen --sleep-at (1M ticks at 128 KiB, 2M at 320
 * KiB, among ptgen's own of at most 80000 each): the segments holding
 * them are the two most halted, the longer first, each with at least its
 * planted sleeps and time; --no-sleep: no halted segment at all. */
static void test_halts(void **state)
{
	struct stall_list l;
	struct trace t;
	size_t n, s1, s2;
	uint64_t at;
	uint8_t *d = gen("--seed 3 --size 512KiB --sleep-at 0x20000:1000000 "
			 "--sleep-at 0x50000:2000000", &n);

	(void)state;
	if (!d) {
		printf("skipped: no ptgen in $BUILD/tools\n");
		return;
	}
	tr_index(&t, d, n);
	s1 = pwrx_seg(&t, d, n, 0x20000);
	s2 = pwrx_seg(&t, d, n, 0x50000);
	/* asked to stop: stopped before its first walk, nothing listed */
	{
		_Atomic int stop = 1;

		assert_int_equal(stall_top(t.idx, &t.img, 3, &stop, &l), -pte_canceled);
		assert_int_equal(l.ngaps + l.npers + l.nhalts, 0);
		assert_null(l.gaps);
	}
	assert_int_equal(stall_top(t.idx, &t.img, 3, NULL, &l), 0);
	assert_int_equal(l.nhalts, 3);
	assert_int_equal(l.halts[0].seg, s2);
	assert_int_equal(l.halts[1].seg, s1);
	/* 80000 ticks a sleep at most: 25 and 13 of them */
	assert_true(l.halts[0].nhalt >= 25);
	assert_true(l.halts[1].nhalt >= 13);
	assert_true(l.halts[0].halt_hi >= 2000000);
	assert_true(l.halts[1].halt_hi >= 1000000);
	assert_true(l.halts[2].halt_hi < 1000000);
	/* their longest sleeps: planted ones, at their PWRXs */
	assert_int_equal(stall_halt_place(t.idx, &t.img, s2, &at), 0);
	assert_true(is_pwrx(d, n, at) && at >= 0x50000 && at < 0x60000);
	assert_int_equal(stall_halt_place(t.idx, &t.img, s1, &at), 0);
	assert_true(is_pwrx(d, n, at) && at >= 0x20000 && at < 0x30000);
	stall_list_free(&l);
	check_top(&t, 1);
	check_top(&t, 20);
	idx_free(t.idx);
	free(d);
	d = gen("--seed 3 --size 512KiB --no-sleep", &n);
	assert_non_null(d);
	tr_index(&t, d, n);
	assert_int_equal(stall_top(t.idx, &t.img, 5, NULL, &l), 0);
	assert_int_equal(l.nhalts, 0);
	assert_true(l.ngaps > 0);
	stall_list_free(&l);
	idx_free(t.idx);
	free(d);
}

/* ptgen traces: walks = summaries, top = sorted, for several N. */
static void test_gen(void **state)
{
	static const char *const gens[] = {
		"--seed 3 --size 512KiB --ovf-rate 0.001",
		"--seed 5 --size 512KiB --mix tip --exstop-rate 0.001",
	};
	size_t g, n;

	(void)state;
	for (g = 0; g < sizeof(gens) / sizeof(gens[0]); g++) {
		struct trace t;
		uint8_t *d = gen(gens[g], &n);

		if (!d) {
			printf("skipped: no ptgen in $BUILD/tools\n");
			return;
		}
		tr_index(&t, d, n);
		check_summaries(&t);
		check_top(&t, 1);
		check_top(&t, 7);
		check_top(&t, 40);
		idx_free(t.idx);
		free(d);
	}
}

/* One PSB+ TSC in the middle damaged, far into the future (its top byte
 * 0x7f) or the past (byte 5 cleared: ptgen's TSCs are about 2^44): the
 * walks still agree with the summaries across the PSB+ where time goes
 * back (no gap across it, tm_tsc_jumped()). */
static void test_damaged_tsc(void **state)
{
	static const int byte[] = { 6, 5 };
	static const uint8_t val[] = { 0x7f, 0x00 };
	size_t n, g;

	(void)state;
	for (g = 0; g < 2; g++) {
		struct pkt_decoder dec;
		struct pkt pkt;
		struct trace t;
		uint8_t *d = gen("--seed 5 --size 1MiB", &n);
		const uint8_t *psb;
		int done = 0;

		if (!d) {
			printf("skipped: no ptgen in $BUILD/tools\n");
			return;
		}
		psb = pkt_find_psb(d + n / 2, d + n);
		assert_non_null(psb);
		pkt_decoder_init(&dec, psb, d + n, (uint64_t)(psb - d));
		while (!done && pkt_next(&dec, &pkt) > 0 && pkt.type != PKT_PSBEND)
			if (pkt.type == PKT_TSC) {
				d[pkt.offset + 1 + (size_t)byte[g]] = val[g];
				done = 1;
			}
		assert_true(done);
		tr_index(&t, d, n);
		check_summaries(&t);
		check_top(&t, 1);
		check_top(&t, 7);
		idx_free(t.idx);
		free(d);
	}
}

/* The PSB+ TSC of the PSB+ at or after @from in @d (@n bytes) damaged:
 * payload byte @byte set to @val.  Returns the TSC's offset. */
static uint64_t damage_psb_tsc(uint8_t *d, size_t n, size_t from, int byte, uint8_t val)
{
	struct pkt_decoder dec;
	struct pkt pkt;
	const uint8_t *psb = pkt_find_psb(d + from, d + n);

	assert_non_null(psb);
	pkt_decoder_init(&dec, psb, d + n, (uint64_t)(psb - d));
	while (pkt_next(&dec, &pkt) > 0 && pkt.type != PKT_PSBEND)
		if (pkt.type == PKT_TSC) {
			d[pkt.offset + 1 + (size_t)byte] = val;
			return pkt.offset;
		}
	fail_msg("no TSC in the PSB+ at 0x%zx", (size_t)(psb - d));
	return 0;
}

/* A PSB+ TSC made far-future (its top byte 0x7f): the gap into it is the
 * jump into damaged time, no stall: :stalls lists the real ones (the
 * sound trace's, but the one that TSC ended) and counts it left out;
 * without it, the other gaps of its segment still rank. */
static void test_damaged_jump(void **state)
{
	struct stall_list l, ls;
	struct trace t, ts;
	uint64_t at;
	size_t n, i, k, nd;
	uint8_t *d = gen("--seed 5 --size 1MiB", &n), *sound;
	struct stall *all;

	(void)state;
	if (!d) {
		printf("skipped: no ptgen in $BUILD/tools\n");
		return;
	}
	sound = malloc(n);
	assert_non_null(sound);
	memcpy(sound, d, n);
	at = damage_psb_tsc(d, n, n / 2, 6, 0x7f);
	tr_index(&t, d, n);
	tr_index(&ts, sound, n);
	assert_int_equal(stall_top(t.idx, &t.img, 5, NULL, &l), 0);
	assert_int_equal(stall_top(ts.idx, &ts.img, 6, NULL, &ls), 0);
	assert_int_equal(l.ngaps, 5);
	/* the sound trace's list, less the gap that TSC ended */
	for (i = k = 0; i < l.ngaps; i++, k++) {
		assert_int_not_equal(l.gaps[i].at, at);
		if (ls.gaps[k].at == at)
			k++;
		assert_int_equal(l.gaps[i].at, ls.gaps[k].at);
		assert_int_equal(l.gaps[i].gap, ls.gaps[k].gap);
	}
	assert_int_equal(l.disputed, 1);
	assert_int_equal(ls.disputed, 0);
	all = all_sorted_d(&t, STALL_GAP, &n, &nd);
	assert_int_equal(nd, 1);
	free(all);
	check_top(&t, 1);
	check_top(&t, 7);
	stall_list_free(&l);
	stall_list_free(&ls);
	idx_free(t.idx);
	idx_free(ts.idx);
	free(sound);
	free(d);
}

/* Set byte @byte of the first TSC outside PSB+ at or after byte @from of
 * @d (after a PSB) to @val; *@next gets the offset of the next PSB+ TSC.
 * Returns the damaged TSC's offset. */
static uint64_t damage_inner_tsc(uint8_t *d, size_t n, size_t from, int byte, uint8_t val,
				 uint64_t *next)
{
	struct pkt_decoder dec;
	struct pkt pkt;
	const uint8_t *psb = pkt_find_psb(d + from, d + n);
	uint64_t at = 0;
	int in_psb = 0;

	assert_non_null(psb);
	pkt_decoder_init(&dec, psb, d + n, (uint64_t)(psb - d));
	while (pkt_next(&dec, &pkt) > 0) {
		if (pkt.type == PKT_PSB)
			in_psb = 1;
		else if (pkt.type == PKT_PSBEND)
			in_psb = 0;
		else if (pkt.type == PKT_TSC && !in_psb && !at)
			at = pkt.offset;
		else if (pkt.type == PKT_TSC && in_psb && at) {
			*next = pkt.offset;
			d[at + 1 + (size_t)byte] = val;
			return at;
		}
	}
	fail_msg("no TSC outside PSB+ after 0x%zx", (size_t)(psb - d));
	return 0;
}

/* A TSC outside PSB+ made far-future (its top byte 0x7f): the gap into it
 * is the jump into damaged time (it ranked first as an exact gap of
 * 29789435 s), and nothing is measured in the time it took up to the next
 * PSB+ TSC; the rest is the sound trace's, and the top N hold N real
 * stalls (the segment's summary ranks first with the jump: no bound). */
static void test_damaged_inner(void **state)
{
	static const char *const kinds[] = {
		"--seed 5 --size 1MiB", "--seed 6 --size 1MiB --no-mtc",
	};
	struct stall_list l, ls;
	struct trace t, ts;
	uint64_t at, next = 0, ceil;
	size_t n, i, k, j, nd;
	uint8_t *d, *sound;
	struct stall *all;
	int kind;

	(void)state;
	for (j = 0; j < sizeof(kinds) / sizeof(kinds[0]); j++) {
		d = gen(kinds[j], &n);
		if (!d) {
			printf("skipped: no ptgen in $BUILD/tools\n");
			return;
		}
		sound = malloc(n);
		assert_non_null(sound);
		memcpy(sound, d, n);
		at = damage_inner_tsc(d, n, n / 2, 6, 0x7f, &next);
		tr_index(&t, d, n);
		tr_index(&ts, sound, n);
		assert_int_equal(idx_find(t.idx, at, &i), 0);
		assert_false(idx_time_outlier(t.idx, i));
		assert_int_equal(idx_time_ceiling(t.idx, i, &ceil), 1);
		assert_true(ceil < 0x7f000000000000ull);
		assert_int_equal(stall_top(t.idx, &t.img, 5, NULL, &l), 0);
		assert_int_equal(stall_top(ts.idx, &ts.img, 40, NULL, &ls), 0);
		assert_int_equal(l.ngaps, 5);
		assert_int_equal(l.disputed, 1);
		assert_int_equal(ls.disputed, 0);
		/* the sound trace's lists, less what ends from that TSC to
		 * the next PSB+ TSC */
		for (kind = 0; kind < 2; kind++) {
			const struct stall *v = kind ? l.pers : l.gaps, *w = kind ? ls.pers : ls.gaps;
			size_t nv = kind ? l.npers : l.ngaps, nw = kind ? ls.npers : ls.ngaps;

			for (i = k = 0; i < nv; i++, k++) {
				while (k < nw && w[k].at >= at && w[k].at <= next)
					k++;
				assert_true(k < nw);
				assert_int_equal(v[i].at, w[k].at);
				if (kind)
					assert_memory_equal(&v[i].per, &w[k].per, sizeof(v[i].per));
				else
					assert_int_equal(v[i].gap, w[k].gap);
			}
		}
		all = all_sorted_d(&t, STALL_GAP, &n, &nd);
		assert_int_equal(nd, 1);
		free(all);
		check_top(&t, 1);
		check_top(&t, 7);
		stall_list_free(&l);
		stall_list_free(&ls);
		idx_free(t.idx);
		idx_free(ts.idx);
		free(sound);
		free(d);
	}
}

/* The CYCs between the MTCs at packets @a and @b (pk[], offsets) made 1
 * cycle each (the same bytes long): a slow period. */
static void slow_down(uint8_t *d, const struct pkt *pk, size_t a, size_t b)
{
	size_t k, e;

	for (k = a + 1; k < b; k++) {
		if (pk[k].type != PKT_CYC)
			continue;
		d[pk[k].offset] = (uint8_t)((1 << 3) | (pk[k].size > 1 ? 4 : 0) | 3);
		for (e = 1; e < (size_t)pk[k].size; e++)
			d[pk[k].offset + e] = e + 1 < (size_t)pk[k].size ? 1 : 0;
	}
}

/* Whether packets (@a, @b) of pk[] hold a CYC and nothing that would keep
 * the period from being measured (or end the segment). */
static int clean_between(const struct pkt *pk, size_t a, size_t b)
{
	size_t k;
	int cyc = 0;

	for (k = a + 1; k < b; k++) {
		switch (pk[k].type) {
		case PKT_CYC:
			cyc = 1;
			break;
		case PKT_PSB: case PKT_PSBEND: case PKT_OVF: case PKT_EXSTOP:
		case PKT_PWRE: case PKT_PWRX: case PKT_CBR: case PKT_TSC:
		case PKT_TMA: case PKT_MWAIT:
			return 0;
		default:
			break;
		}
	}
	return cyc;
}

/* A stall of @add ticks before the TSC packet (outside PSB+) at @off of
 * @d: it and every TSC after it moved @add ticks forward (one TSC alone
 * ahead of the next PSB+ TSC is damage, idx_time_ceiling()). */
static void tsc_forward(uint8_t *d, size_t n, uint64_t off, uint64_t add)
{
	struct pkt_decoder dec;
	struct pkt pkt;
	uint64_t v;
	int e;

	assert_int_equal(d[off], 0x19);
	pkt_decoder_init(&dec, d + off, d + n, off);
	while (pkt_next(&dec, &pkt) > 0) {
		if (pkt.type != PKT_TSC)
			continue;
		v = pkt.u.tsc + add;
		for (e = 0; e < 7; e++)
			d[pkt.offset + 1 + e] = (uint8_t)(v >> (8 * e));
	}
}

/* Two slow periods planted in one segment (two MTC periods in a row, all
 * their CYCs 1 cycle) and two long gaps in another (two TSCs outside
 * PSB+ moved forward): stall_top(2) lists both of each, which one per
 * segment from the summaries could not. */
static void test_planted(void **state)
{
	struct pkt_decoder dec;
	struct pkt *pk;
	struct trace t, tg;
	struct stall_list l;
	uint8_t *g;
	size_t n, np = 0, cap = 1 << 16, k, m[3], nm;
	size_t planted = 0;
	uint8_t *d = gen("--seed 8 --size 256KiB --ovf-rate 0", &n);


	(void)state;
	if (!d) {
		printf("skipped: no ptgen in $BUILD/tools\n");
		return;
	}
	pk = malloc(cap * sizeof(*pk));
	g = malloc(n);
	assert_non_null(pk);
	assert_non_null(g);
	memcpy(g, d, n);	/* the gaps go into a copy */
	assert_int_equal(pkt_decoder_init(&dec, d, d + n, 0), 0);
	assert_int_equal(pkt_sync_forward(&dec), 0);
	while (np < cap && pkt_next(&dec, &pk[np]) >= 0)
		np++;
	/* three MTCs in a row, payloads consecutive, clean between, past
	 * the middle: slow down both periods */
	for (k = np / 2, nm = 0; k < np && !planted; k++) {
		if (pk[k].type == PKT_PSB)
			nm = 0;
		if (pk[k].type != PKT_MTC)
			continue;
		if (nm && (((unsigned)pk[m[nm - 1]].u.mtc + 1) & 0xff) != pk[k].u.mtc)
			nm = 0;
		if (nm && !clean_between(pk, m[nm - 1], k))
			nm = 0;
		m[nm++] = k;
		if (nm == 3) {
			slow_down(d, pk, m[0], m[1]);
			slow_down(d, pk, m[1], m[2]);
			planted = 1;
		}
	}
	assert_true(planted);
	/* in the copy, two stalls before TSCs outside PSB+ in one segment
	 * (a TSC to TSC period of the jump would be slower than the planted
	 * ones) */
	for (k = np / 4, nm = 1, planted = 0; k < np && planted < 2; k++) {
		if (pk[k].type == PKT_PSB) {
			nm = 1;
			planted = 0;
		} else if (pk[k].type == PKT_PSBEND) {
			nm = 0;
		} else if (pk[k].type == PKT_TSC && !nm) {
			m[planted++] = k;
		}
	}
	assert_int_equal(planted, 2);
	tsc_forward(g, n, pk[m[0]].offset, 1ull << 28);
	tsc_forward(g, n, pk[m[1]].offset, 1ull << 30);
	tr_index(&tg, g, n);
	assert_int_equal(stall_top(tg.idx, &tg.img, 2, NULL, &l), 0);
	assert_int_equal(l.ngaps, 2);
	assert_int_equal(l.gaps[0].at, pk[m[1]].offset);
	assert_int_equal(l.gaps[1].at, pk[m[0]].offset);
	assert_int_equal(l.gaps[0].seg, l.gaps[1].seg);
	stall_list_free(&l);
	assert_true(check_top(&tg, 2) >= 1);
	check_top(&tg, 10);
	idx_free(tg.idx);
	free(g);
	tr_index(&t, d, n);
	/* the periods: the MTCs found above, again */
	for (k = np / 2, nm = 0, planted = 0; k < np && !planted; k++) {
		if (pk[k].type == PKT_PSB)
			nm = 0;
		if (pk[k].type != PKT_MTC)
			continue;
		if (nm && (((unsigned)pk[m[nm - 1]].u.mtc + 1) & 0xff) != pk[k].u.mtc)
			nm = 0;
		if (nm && !clean_between(pk, m[nm - 1], k))
			nm = 0;
		m[nm++] = k;
		planted = nm == 3;
	}
	assert_int_equal(stall_top(t.idx, &t.img, 2, NULL, &l), 0);
	assert_int_equal(l.npers, 2);
	/* the two planted periods, ending at the second and third MTC */
	assert_true((l.pers[0].at == pk[m[1]].offset && l.pers[1].at == pk[m[2]].offset) ||
		    (l.pers[0].at == pk[m[2]].offset && l.pers[1].at == pk[m[1]].offset));
	assert_int_equal(l.pers[0].seg, l.pers[1].seg);
	stall_list_free(&l);
	assert_true(check_top(&t, 2) >= 1);
	check_top(&t, 10);
	idx_free(t.idx);
	free(pk);
	free(d);
}

/* Sleeps planted by ptgen --sleep-at with no others (--no-sleep; EXSTOPs
 * alone are no sleeps): a plain walk finds them in two segments, and
 * stall_top() lists those two with the walk's sums, for several N; no
 * planted sleep, no halted segment. */
static void test_halts_walk(void **state)
{
	static const char *const gens[] = {
		"--seed 4 --size 512KiB --no-sleep --exstop-rate 0.002 "
		"--sleep-at 0x18000:600000 --sleep-at 0x48000:300000",
		"--seed 4 --size 512KiB --no-sleep --exstop-rate 0.002",
	};
	static const size_t wants[] = { 1, 2, 5 };
	struct stall_list l;
	size_t g, k, n, s1 = 0, s2 = 0;

	(void)state;
	for (g = 0; g < sizeof(gens) / sizeof(gens[0]); g++) {
		struct trace t;
		uint8_t *d = gen(gens[g], &n);

		if (!d) {
			printf("skipped: no ptgen in $BUILD/tools\n");
			return;
		}
		tr_index(&t, d, n);
		if (!g) {
			s1 = pwrx_seg(&t, d, n, 0x18000);
			s2 = pwrx_seg(&t, d, n, 0x48000);
		}
		for (k = 0; k < sizeof(wants) / sizeof(wants[0]); k++) {
			assert_int_equal(stall_top(t.idx, &t.img, wants[k], NULL, &l), 0);
			assert_int_equal(check_halts_walk(&t, &l, wants[k], NULL), g ? 0 : 2);
			if (!g) {
				assert_int_equal(l.halts[0].seg, s1);
				assert_true(l.halts[0].halt_hi >= 600000);
			}
			if (!g && l.nhalts > 1) {
				assert_int_equal(l.halts[1].seg, s2);
				assert_true(l.halts[1].halt_hi >= 300000);
			}
			stall_list_free(&l);
		}
		check_top(&t, 3);
		idx_free(t.idx);
		free(d);
	}
}

/* The shared real traces with timing (none of them holds a power event:
 * no PWRE, EXSTOP or PWRX; they show nothing is made up): a walk and
 * stall_top() agree, and on the gaps and periods too. */
static void test_halts_real(void **state)
{
	static const struct {
		const char *name;
		const char *opt[8];
	} real[] = {
		{ "quipper-perf-intel-pt/perf.data.intel_pt-4.14.idx0.cpu0.pt",
		  { "--mtc-freq", "3", "--nom-freq", "12",
		    "--cpuid-0x15.eax", "2", "--cpuid-0x15.ebx", "100" } },
		{ "dynamorio-drpt2trace/head_test_simple.raw.pt.bin",
		  { "--mtc-freq", "3", "--nom-freq", "37",
		    "--cpuid-0x15.eax", "2", "--cpuid-0x15.ebx", "308" } },
	};
	struct tm_config cfg;
	struct stall_list l;
	char path[4096];
	size_t k, j, n, done = 0;

	(void)state;
	for (k = 0; k < sizeof(real) / sizeof(real[0]); k++) {
		struct trace t;
		uint8_t *d = helpers_read_file(helpers_shared_path(path, sizeof(path),
								   real[k].name), &n);

		if (!d)
			continue;
		memset(&cfg, 0, sizeof(cfg));
		for (j = 0; j + 1 < 8; j += 2)
			assert_int_equal(tm_config_option(&cfg, real[k].opt[j],
							  real[k].opt[j + 1]), 1);
		tr_index_cfg(&t, d, n, &cfg);
		assert_int_equal(stall_top(t.idx, &t.img, 5, NULL, &l), 0);
		assert_int_equal(check_halts_walk(&t, &l, 5, NULL), 0);
		stall_list_free(&l);
		check_top(&t, 5);
		idx_free(t.idx);
		free(d);
		done++;
	}
	if (!done) {
		printf("skipped: no shared traces\n");
		skip();
	}
}

/* A PSB+ at @b: PSB, TSC @tsc, TMA, CBR, PSBEND.  Returns its length. */
static size_t put_psbplus(uint8_t *b, uint64_t tsc)
{
	static const uint8_t tail[] = {
		0x02, 0x73, 0x34, 0x12, 0, 5, 0,	/* tma */
		0x02, 0x03, 24, 0,			/* cbr */
		0x02, 0x23,				/* psbend */
	};
	size_t p, e;

	for (p = 0; p < 16; p += 2) {
		b[p] = 0x02;
		b[p + 1] = 0x82;
	}
	b[p++] = 0x19;
	for (e = 0; e < 7; e++)
		b[p++] = (uint8_t)(tsc >> (8 * e));
	memcpy(b + p, tail, sizeof(tail));
	return p + sizeof(tail);
}

/* A sleep at @b: PWRE, EXSTOP, PWRX (its last 7 bytes).  Returns its
 * length. */
static size_t put_sleep(uint8_t *b)
{
	static const uint8_t s[] = {
		0x02, 0x22, 0x00, 0x10,			/* pwre c1 */
		0x02, 0x62,				/* exstop */
		0x02, 0xa2, 0x11, 0x01, 0, 0, 0,	/* pwrx, an interrupt */
	};

	memcpy(b, s, sizeof(s));
	return sizeof(s);
}

/* A sleep whose PWRX comes right before the PSB, closed by the next
 * PSB+'s TSC 100000 ticks on, then one of @later ticks inside that
 * segment, closed by a TSC: the segment holds both; its longest sleep is
 * placed at the PSB+'s TSC (the first of equals too), or at the second
 * sleep's PWRX if that is longer. */
static void check_early_sleep(uint64_t later)
{
	const uint64_t t1 = 0x1000000;
	struct stall_list l;
	struct trace t;
	uint8_t *b = calloc(256, 1);
	uint64_t at, end, seg1, tsc1_at, pwrx2_at;
	size_t p, e;

	assert_non_null(b);
	p = put_psbplus(b, t1);
	p += put_sleep(b + p);
	seg1 = p;
	tsc1_at = p + 16;
	p += put_psbplus(b + p, t1 + 100000);
	b[p++] = 0;	/* pad */
	p += put_sleep(b + p);
	pwrx2_at = p - 7;
	b[p++] = 0x19;	/* tsc */
	for (e = 0; e < 7; e++)
		b[p++] = (uint8_t)((t1 + 100000 + later) >> (8 * e));
	tr_index(&t, b, p);
	assert_int_equal(idx_nseeks(t.idx), 2);
	assert_int_equal(idx_segment_span(t.idx, 1, &at, &end), 0);
	assert_int_equal(at, seg1);
	/* the first sleep closes in segment 1, not where its PWRX lies */
	assert_int_equal(stall_halt_place(t.idx, &t.img, 0, &at), 1);
	assert_int_equal(stall_halt_place(t.idx, &t.img, 1, &at), 0);
	assert_int_equal(at, later > 100000 ? pwrx2_at : tsc1_at);
	assert_int_equal(stall_top(t.idx, &t.img, 3, NULL, &l), 0);
	assert_int_equal(l.nhalts, 1);
	assert_int_equal(l.halts[0].seg, 1);
	assert_int_equal(l.halts[0].at, seg1);
	assert_int_equal(l.halts[0].nhalt, 2);
	/* no CYC settled either EXSTOP: at most the estimate's moves, at
	 * least nothing */
	assert_int_equal(l.halts[0].halt_hi, 100000 + later);
	assert_int_equal(l.halts[0].halt_lo, 0);
	check_halts_walk(&t, &l, 3, &e);
	assert_int_equal(e, later > 100000 ? 0 : 1);
	stall_list_free(&l);
	idx_free(t.idx);
	free(b);
}

/* The place of a segment's longest sleep whose PWRX lies in the segment
 * before: the anchor closing it (stall_halt_place()).  Crafted, and on a
 * ptgen trace with a PSB every 256 bytes, where some sleeps straddle one:
 * every segment's place is a walk's. */
static void test_halt_early(void **state)
{
	struct stall_list l;
	struct trace t;
	size_t n, early;
	uint8_t *d;

	(void)state;
	check_early_sleep(5000);
	check_early_sleep(100000);
	check_early_sleep(250000);
	d = gen("--seed 3 --size 512KiB --psb-period 256", &n);
	if (!d) {
		printf("skipped: no ptgen in $BUILD/tools\n");
		return;
	}
	tr_index(&t, d, n);
	assert_int_equal(stall_top(t.idx, &t.img, 10, NULL, &l), 0);
	assert_true(check_halts_walk(&t, &l, 10, &early) >= 10);
	assert_true(early > 0);
	stall_list_free(&l);
	idx_free(t.idx);
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_gen),
		cmocka_unit_test(test_damaged_tsc),
		cmocka_unit_test(test_damaged_jump),
		cmocka_unit_test(test_damaged_inner),
		cmocka_unit_test(test_planted),
		cmocka_unit_test(test_halt_segment),
		cmocka_unit_test(test_halts),
		cmocka_unit_test(test_halts_walk),
		cmocka_unit_test(test_halts_real),
		cmocka_unit_test(test_halt_early),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
