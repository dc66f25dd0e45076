/* test_iter -- loop iterations from a predicate's hits (decoder/iter.h): a
 * synthetic cycle-accurate trace with a planted slow iteration, bounded
 * and broken iterations, statistics, cancel; the walk that skips segments
 * without a boundary against the straight one on ptgen and shared traces. */
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
#include "iter.h"
#include "iter_int.h"
#include "search.h"
#include "tm.h"

struct buf {
	uint8_t d[1 << 20];
	size_t n;
};

static void put(struct buf *b, const uint8_t *p, size_t n)
{
	assert_true(b->n + n <= sizeof(b->d));
	memcpy(b->d + b->n, p, n);
	b->n += n;
}

static void psb(struct buf *b, uint64_t tsc)
{
	static const uint8_t end[] = { 0x02, 0x23 };
	uint8_t t[8] = { 0x19 };
	int i;

	for (i = 0; i < 8; i++)
		put(b, (const uint8_t[]){ 0x02, 0x82 }, 2);
	for (i = 0; i < 7; i++)
		t[1 + i] = (uint8_t)(tsc >> (8 * i));
	put(b, t, sizeof(t));
	put(b, end, sizeof(end));
}

/* A PSB+ without a TSC. */
static void psb_plain(struct buf *b)
{
	int i;

	for (i = 0; i < 8; i++)
		put(b, (const uint8_t[]){ 0x02, 0x82 }, 2);
	put(b, (const uint8_t[]){ 0x02, 0x23 }, 2);
}

/* A CYC of @v < 4096 cycles. */
static void cyc(struct buf *b, unsigned v)
{
	if (v < 32) {
		put(b, (const uint8_t[]){ (uint8_t)(v << 3 | 3) }, 1);
		return;
	}
	put(b, (const uint8_t[]){ (uint8_t)((v & 31) << 3 | 7),
				  (uint8_t)(((v >> 5) & 0x7f) << 1) }, 2);
}

/* A TIP to @ip (6 bytes, sign-extended). */
static void tip(struct buf *b, uint64_t ip)
{
	uint8_t p[7] = { 0x6d };
	int i;

	for (i = 0; i < 6; i++)
		p[1 + i] = (uint8_t)(ip >> (8 * i));
	put(b, p, sizeof(p));
}

static void tnt(struct buf *b)
{
	put(b, (const uint8_t[]){ 0x06 }, 1);	/* one taken bit */
}

struct fixture {
	struct buf b;
	struct img img;
	struct img_span span;
	struct idx *idx;
	struct tm_config cfg;
};

static void fx_index(struct fixture *f)
{
	img_init_flat(&f->img, &f->span, f->b.d, f->b.n);
	assert_int_equal(idx_new(&f->idx, &f->img, &f->cfg), 0);
	assert_int_equal(idx_build(f->idx), 0);
	assert_true(idx_complete(f->idx));
}

/* Run a job for @expr on @nthreads threads (0: all) to its end. */
static struct iter_job *fx_run_n(struct fixture *f, const char *expr, unsigned nthreads)
{
	struct srch_pred *p = NULL;
	struct iter_job *j = NULL;
	struct iter_opts o = { .nthreads = nthreads };
	char err[128];

	assert_int_equal(srch_parse(expr, &p, err, sizeof(err)), 0);
	assert_int_equal(iter_start(&j, &f->img, f->idx, p, &f->cfg, &o), 0);
	assert_int_equal(iter_wait(j), 0);
	return j;
}

static struct iter_job *fx_run(struct fixture *f, const char *expr)
{
	return fx_run_n(f, expr, 0);
}

/* Boundaries of @expr on @img over @idx with the segment skipping and
 * without (iter_opts.straight), on @nthreads threads: the same, bit for
 * bit.  Returns how many. */
static size_t same_as_straight(const struct img *img, struct idx *idx,
			       const struct tm_config *cfg, const char *expr,
			       unsigned nthreads)
{
	struct iter_job *j[2];
	const struct iter_bound *b[2];
	size_t n[2], i;
	int k;

	for (k = 0; k < 2; k++) {
		struct srch_pred *p = NULL;
		struct iter_opts o = { .nthreads = nthreads, .straight = k };
		char err[128];

		assert_int_equal(srch_parse(expr, &p, err, sizeof(err)), 0);
		assert_int_equal(iter_start(&j[k], img, idx, p, cfg, &o), 0);
		assert_int_equal(iter_wait(j[k]), 0);
		b[k] = iter_bounds(j[k], &n[k]);
	}
	if (n[0] != n[1])
		fail_msg("%s: %zu boundaries, straight %zu", expr, n[0], n[1]);
	for (i = 0; i < n[0]; i++)
		if (memcmp(&b[0][i], &b[1][i], sizeof(b[0][i])))
			fail_msg("%s: boundary %zu at 0x%llx differs", expr, i,
				 (unsigned long long)b[1][i].offset);
	/* The same offsets given (iter_opts.offsets: a code search's hits):
	 * the same boundaries, lost data and times, skipping or straight */
	{
		uint64_t *offs = malloc((n[0] ? n[0] : 1) * sizeof(*offs));

		assert_non_null(offs);
		for (i = 0; i < n[0]; i++)
			offs[i] = b[0][i].offset;
		for (k = 0; k < 2; k++) {
			struct iter_opts o = { .nthreads = nthreads, .straight = k,
					       .offsets = offs, .noffsets = n[0] };
			const struct iter_bound *g;
			struct iter_job *jg;
			size_t ng;

			assert_int_equal(iter_start(&jg, img, idx, NULL, cfg, &o), 0);
			assert_int_equal(iter_wait(jg), 0);
			g = iter_bounds(jg, &ng);
			if (ng != n[0])
				fail_msg("%s: %zu boundaries given, %zu found", expr, n[0], ng);
			for (i = 0; i < ng; i++)
				if (memcmp(&g[i], &b[0][i], sizeof(g[i])))
					fail_msg("%s: given boundary %zu at 0x%llx differs", expr,
						 i, (unsigned long long)g[i].offset);
			iter_free(jg);
		}
		free(offs);
	}
	iter_free(j[0]);
	iter_free(j[1]);
	return n[0];
}

static void test_null(void **state)
{
	struct iter_job *j = NULL;
	struct iter_item *v;
	struct iter_stats st;
	size_t n;

	(void)state;
	assert_int_equal(iter_start(&j, NULL, NULL, NULL, NULL, NULL), -pte_invalid);
	assert_int_equal(iter_items(NULL, 1, NULL, &v, &n, &st), -pte_invalid);
	assert_int_equal(iter_items(NULL, 0, NULL, &v, &n, &st), 0);
	assert_int_equal(n, 0);
	assert_int_equal(st.n, 0);
	free(v);
	iter_free(NULL);
	assert_null(iter_bounds(NULL, &n));
}

/* 200 iterations of 100 + k % 7 cycles, one of 3000 planted at 150, over
 * several PSB segments: the slowest is the planted one, exact in cycles. */
static void test_planted(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	const struct iter_bound *b;
	struct iter_job *j;
	struct iter_item *v;
	struct iter_stats st;
	size_t nb, n, i, slow = 0;
	int k;

	(void)state;
	psb(&f->b, 0x1000);
	for (k = 0; k < 201; k++) {
		if (k && k % 40 == 0)
			psb(&f->b, 0x1000 + (uint64_t)k * 400);
		cyc(&f->b, k == 150 ? 3000 : 100 + k % 7);
		tip(&f->b, 0x401000);
		tnt(&f->b);
		cyc(&f->b, 3);
		tip(&f->b, 0x402000);	/* not a boundary */
	}
	fx_index(f);
	j = fx_run(f, "tip 0x401000");
	b = iter_bounds(j, &nb);
	assert_int_equal(nb, 201);
	for (i = 0; i < nb; i++)
		assert_true(b[i].flags & TM_F_EXACT);
	assert_int_equal(iter_items(b, nb, NULL, &v, &n, &st), 0);
	assert_int_equal(n, 200);
	assert_int_equal(st.n, 200);
	assert_int_equal(st.nbroken, 0);
	assert_true(st.cycles);
	for (i = 0; i < n; i++) {
		/* From TIP k to TIP k + 1: the CYC 3 and the next one. */
		assert_int_equal(v[i].cyc_lo, v[i].cyc_hi);
		if (iter_value(&v[i], &st) > iter_value(&v[slow], &st))
			slow = i;
	}
	assert_int_equal(slow, 149);
	assert_int_equal(v[149].cyc_lo, 3000 + 3);
	assert_int_equal(st.max, 3003);
	assert_int_equal(st.min, 103);
	assert_true(st.p50 >= 103 && st.p50 <= 109);
	assert_true(st.p99 <= 109);
	free(v);
	iter_free(j);
	idx_free(f->idx);
	free(f);
}

/* A boundary that is not cycle-exact (a PAD-free TNT between CYC and the
 * TIP makes the TIP the second eligible packet) gives bounds; an OVF
 * breaks the iteration it falls in. */
static void test_bounded_broken(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	const struct iter_bound *b;
	struct iter_job *j;
	struct iter_item *v;
	struct iter_stats st;
	size_t nb, n;
	int k;

	(void)state;
	psb(&f->b, 0x1000);
	for (k = 0; k < 10; k++) {
		cyc(&f->b, 50);
		if (k == 4)
			tnt(&f->b);	/* boundary 4: bounded */
		if (k == 7)
			put(&f->b, (const uint8_t[]){ 0x02, 0xf3 }, 2);	/* ovf */
		tip(&f->b, 0x401000);
	}
	cyc(&f->b, 9);
	tnt(&f->b);
	fx_index(f);
	j = fx_run(f, "tip 0x401000");
	b = iter_bounds(j, &nb);
	assert_int_equal(nb, 10);
	assert_true(b[4].flags & TM_F_BOUNDED);
	assert_true(b[4].cyc_hi != UINT64_MAX && b[4].cyc_hi > b[4].cyc_lo);
	assert_true(b[7].lost);
	assert_int_equal(iter_items(b, nb, NULL, &v, &n, &st), 0);
	assert_int_equal(n, 9);
	assert_int_equal(st.nbroken, 1);
	assert_true(v[6].broken);
	assert_false(st.cycles);	/* iterations 3 and 4 are bounded */
	assert_true(v[3].cyc_lo < v[3].cyc_hi);
	assert_true(v[3].cyc_lo <= 50 && 50 <= v[3].cyc_hi);
	free(v);
	iter_free(j);
	idx_free(f->idx);
	free(f);
}

/* 400 PSB segments of random loops (CYCs, TNTs before some boundaries so
 * they are bounded, OVFs, a boundary-free stretch) into @f, indexed. */
static void fx_loops(struct fixture *f)
{
	unsigned seed = 7;
	int k;

	for (k = 0; k < 8000; k++) {
		seed = seed * 1103515245u + 12345u;
		if (k % 20 == 0)
			psb(&f->b, 0x1000 + (uint64_t)k * 64);
		if (k >= 3000 && k < 3400) {	/* no boundary here */
			cyc(&f->b, 7);
			tip(&f->b, 0x403000);
			continue;
		}
		cyc(&f->b, 20 + (seed >> 16) % 400);
		if ((seed >> 8) % 5 == 0)
			tnt(&f->b);
		if ((seed >> 4) % 97 == 0)
			put(&f->b, (const uint8_t[]){ 0x02, 0xf3 }, 2);
		tip(&f->b, 0x401000);
		if ((seed >> 12) % 3 == 0)
			tnt(&f->b);
	}
	fx_index(f);
}

/* fx_loops(): one thread and four find the same boundaries, bit for bit,
 * whatever the units' cuts. */
static void test_threads(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	const struct iter_bound *b1, *b4;
	struct iter_job *j1, *j4, *jc;
	size_t n1, n4, nc, i, nbounded = 0, nlost = 0, nhi = 0;

	(void)state;
	fx_loops(f);
	j1 = fx_run_n(f, "tip 0x401000", 1);
	j4 = fx_run_n(f, "tip 0x401000", 4);
	b1 = iter_bounds(j1, &n1);
	b4 = iter_bounds(j4, &n4);
	assert_int_equal(n1, 7600);
	assert_int_equal(n4, n1);
	for (i = 0; i < n1; i++) {
		assert_memory_equal(&b1[i], &b4[i], sizeof(b1[i]));
		/* a time where a measured iteration starts or ends, only */
		assert_int_equal(b1[i].timed, (i && !b1[i].lost) ||
				 (i + 1 < n1 && !b1[i + 1].lost));
		nbounded += b1[i].cyc_lo != b1[i].cyc_hi;
		nhi += b1[i].cyc_lo != b1[i].cyc_hi && b1[i].cyc_hi != UINT64_MAX;
		nlost += b1[i].lost;
	}
	/* The cases are there: bounded (with their upper bound, across
	 * units too), and lost data. */
	assert_true(nbounded > 100 && nhi + 5 >= nbounded);
	assert_true(nlost > 10);
	/* Skipping the boundary-free stretch changes nothing. */
	assert_int_equal(same_as_straight(&f->img, f->idx, &f->cfg, "tip 0x401000", 1), 7600);
	assert_int_equal(same_as_straight(&f->img, f->idx, &f->cfg, "tip 0x401000", 4), 7600);
	same_as_straight(&f->img, f->idx, &f->cfg, "ovf", 2);
	/* An OVF's iterations are all broken (it loses data): no time. */
	jc = fx_run_n(f, "ovf", 2);
	b4 = iter_bounds(jc, &nc);
	assert_true(nc > 10);
	for (i = 0; i < nc; i++)
		assert_true(b4[i].lost && !b4[i].timed && !b4[i].tsc && !b4[i].flags);
	iter_free(jc);
	b4 = iter_bounds(j4, &n4);
	/* At max_bounds the walk stops with what it has: on 3 workers, and on
	 * as many workers as units (all walked at once, before the front
	 * units are known to reach the limit). */
	{
		static const struct { size_t lim; unsigned threads; } mb[] = {
			{ 1000, 3 }, { 1, 64 }, { 2, 64 }, { 37, 64 }, { 1000, 64 },
			{ 7599, 64 }, { 7600, 64 },
		};
		size_t e;

		for (e = 0; e < sizeof(mb) / sizeof(mb[0]); e++) {
			struct srch_pred *p = NULL;
			struct iter_opts o = { .nthreads = mb[e].threads, .max_bounds = mb[e].lim };
			struct iter_progress pr;
			struct iter_snap s;
			char err[64];

			assert_int_equal(srch_parse("tip 0x401000", &p, err, sizeof(err)), 0);
			assert_int_equal(iter_start(&jc, &f->img, f->idx, p, &f->cfg, &o), 0);
			assert_int_equal(iter_wait(jc), 0);
			iter_progress(jc, &pr);
			assert_int_equal(pr.truncated, mb[e].lim < 7600);
			iter_bounds(jc, &nc);
			assert_int_equal(nc, mb[e].lim);
			/* (the last one's time depends on the next) */
			assert_memory_equal(iter_bounds(jc, &nc), b1,
					    (mb[e].lim - 1) * sizeof(*b1));
			for (i = 0; i < nc; i++)
				assert_int_equal(iter_bounds(jc, &nc)[i].offset, b1[i].offset);
			assert_int_equal(iter_partial(jc, &s), 0);
			assert_true(s.final && s.truncated == pr.truncated && s.nb == nc);
			iter_snap_free(&s);
			iter_free(jc);
		}
	}
	iter_free(j1);
	iter_free(j4);
	idx_free(f->idx);
	free(f);
}

/* A bounded boundary ends unit 0 (segments 0-15); unit 1 starts with
 * segments that hold no boundary but CYCs: the first of them gives it
 * its upper bound though the walk skipped them (iter_head()). */
static void test_skip_head(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	const struct iter_bound *b;
	struct iter_job *j;
	size_t nb;
	int s, k;

	(void)state;
	for (s = 0; s < 48; s++) {
		psb(&f->b, 0x1000 + (uint64_t)s * 4000);
		for (k = 0; k < 5; k++) {
			cyc(&f->b, 9);
			tip(&f->b, 0x402000);
		}
		if (s < 16 || s >= 40) {
			cyc(&f->b, 50);
			tnt(&f->b);
			tip(&f->b, 0x401000);	/* bounded: a TNT before */
		}
	}
	fx_index(f);
	assert_int_equal(same_as_straight(&f->img, f->idx, &f->cfg, "tip 0x401000", 1), 24);
	assert_int_equal(same_as_straight(&f->img, f->idx, &f->cfg, "tip 0x401000", 3), 24);
	j = fx_run_n(f, "tip 0x401000", 1);
	b = iter_bounds(j, &nb);
	assert_true(b[15].flags & TM_F_BOUNDED);
	assert_true(b[15].cyc_hi != UINT64_MAX);
	iter_free(j);
	idx_free(f->idx);
	free(f);
}

/* Unit 0 (segments 0-15) ends with a boundary data was lost before (an
 * OVF) and a TNT makes bounded; unit 1 starts with a measured iteration
 * from it: the join times it (iter_fix()), bound included, as the
 * straight walk does; with an OVF before unit 1's first boundary too, it
 * keeps no time. */
static void test_defer(void **state)
{
	struct fixture *f;
	const struct iter_bound *b;
	struct iter_job *j;
	size_t nb;
	int s, k, pass;

	(void)state;
	for (pass = 0; pass < 2; pass++) {
		f = calloc(1, sizeof(*f));
		for (s = 0; s < 48; s++) {
			psb(&f->b, 0x1000 + (uint64_t)s * 4000);
			for (k = 0; k < 3; k++) {
				cyc(&f->b, 9 + (unsigned)k);
				if (s == 15 && k == 2) {
					put(&f->b, (const uint8_t[]){ 0x02, 0xf3 }, 2);
					tnt(&f->b);
				}
				if (pass && s == 16 && k == 0)
					put(&f->b, (const uint8_t[]){ 0x02, 0xf3 }, 2);
				tip(&f->b, 0x401000);
				cyc(&f->b, 5);
				tip(&f->b, 0x402000);
			}
		}
		fx_index(f);
		assert_int_equal(same_as_straight(&f->img, f->idx, &f->cfg, "tip 0x401000", 1), 144);
		assert_int_equal(same_as_straight(&f->img, f->idx, &f->cfg, "tip 0x401000", 3), 144);
		j = fx_run_n(f, "tip 0x401000", 1);
		b = iter_bounds(j, &nb);
		assert_true(b[47].lost);
		if (!pass) {
			assert_true(b[47].timed && (b[47].flags & TM_F_BOUNDED));
			assert_true(b[47].cyc_hi != UINT64_MAX && b[47].cyc_hi > b[47].cyc_lo);
		} else {
			assert_true(b[48].lost && !b[47].timed);
		}
		iter_free(j);
		idx_free(f->idx);
		free(f);
	}
}

/* Boundaries inside blocks of BIP packets (BBP .. BEP), where a byte
 * that would be a tnt.8 outside is a BIP: the time pass's fast walk up
 * to one leaves the walk's decoder inside the block, so the boundary and
 * the packets after it decode as a walk from the PSB decodes them. */
static void test_in_block(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	static const uint8_t bbp[] = { 0x02, 0x63, 0x80 };	/* 4-byte BIPs */
	static const uint8_t bip[] = { 0x0c, 1, 2, 3, 4 };	/* id 1 */
	static const uint8_t bep[] = { 0x02, 0x33 };
	struct iter_job *j;
	size_t nb;
	int s, k;

	(void)state;
	for (s = 0; s < 40; s++) {
		psb(&f->b, 0x1000 + (uint64_t)s * 3000);
		for (k = 0; k < 4; k++) {
			cyc(&f->b, 7 + (unsigned)k);
			tip(&f->b, 0x402000);
			tnt(&f->b);
			if ((s + k) % 3 == 0) {
				put(&f->b, bbp, sizeof(bbp));
				put(&f->b, bip, sizeof(bip));
				cyc(&f->b, 3);
				put(&f->b, bip, sizeof(bip));
				put(&f->b, bep, sizeof(bep));
			}
			cyc(&f->b, 40);
			tip(&f->b, 0x401000);
		}
	}
	fx_index(f);
	nb = same_as_straight(&f->img, f->idx, &f->cfg, "bip", 2);
	assert_true(nb > 80);
	same_as_straight(&f->img, f->idx, &f->cfg, "bep", 1);
	same_as_straight(&f->img, f->idx, &f->cfg, "tip 0x401000", 2);
	j = fx_run(f, "bip");
	assert_non_null(iter_bounds(j, &nb));
	iter_free(j);
	idx_free(f->idx);
	free(f);
}

/* Index @d[@n] with @cfg and check the skipping walk against the straight
 * one for boundaries rare (ruled out by the summaries or the bytes) and
 * frequent; returns the boundaries of the rare ones. */
static size_t check_trace(const uint8_t *d, size_t n, const struct tm_config *cfg)
{
	static const char *const exprs[] = {
		"ovf", "error", "tip.pgd", "tip 0x7f3a2e5e89b9",
		"tip 0x55555500c84a or ovf", "cyc > 300", "pwre", "tip", "psb",
		"mode.exec", "tsc",
	};
	struct img_span sp;
	struct img img;
	struct idx *idx;
	size_t e, rare = 0;

	img_init_flat(&img, &sp, d, n);
	assert_int_equal(idx_new(&idx, &img, cfg), 0);
	assert_int_equal(idx_build(idx), 0);
	for (e = 0; e < sizeof(exprs) / sizeof(exprs[0]); e++) {
		size_t k = same_as_straight(&img, idx, cfg, exprs[e], 2);

		if (e < 5)
			rare += k;
	}
	idx_free(idx);
	return rare;
}

/* What `ptgen --print-config` says of every trace it makes. */
static struct tm_config gen_cfg(void)
{
	struct tm_config c;

	memset(&c, 0, sizeof(c));
	c.have_cpu = 1;
	c.cpu_family = 6;
	c.cpu_model = 78;
	c.cpu_stepping = 3;
	c.have_mtc_freq = 1;
	c.mtc_freq = 3;
	c.have_nom_freq = 1;
	c.nom_freq = 12;
	c.have_cpuid_15 = 1;
	c.cpuid_15_eax = 2;
	c.cpuid_15_ebx = 100;
	return c;
}

/* ptgen traces (OVFs, decode errors, a trace without CYC) and the shared
 * traces: skipping = straight. */
static void test_skip_same(void **state)
{
	static const char *const gens[] = {
		"--seed 3 --size 3MiB --ovf-rate 0.001",
		"--seed 4 --size 2MiB --ovf-rate 0.0005 --corrupt-rate 0.000002",
		"--seed 5 --size 2MiB --no-cyc --mix tip",
		"--seed 6 --size 2MiB --cyc-thresh 3 --mix tnt --ovf-rate 0.001",
	};
	static const char *const shared[] = {
		"keeper-perf-event-sample/traced_data.bin",
		"quipper-perf-intel-pt/perf.data.intel_pt-4.14.idx0.cpu0.pt",
		"dynamorio-drpt2trace/hist_316e5058_drptpostprocessor.pt.bin",
	};
	const char *build = getenv("BUILD");
	struct tm_config cfg;
	size_t g, rare = 0, ran = 0;

	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	for (g = 0; g < sizeof(gens) / sizeof(gens[0]); g++) {
		char cmd[1024], path[] = "/tmp/test_iter.XXXXXX";
		struct helpers_map m;
		int fd = mkstemp(path);

		assert_true(fd >= 0);
		close(fd);
		snprintf(cmd, sizeof(cmd), "%s/tools/ptgen %s -o %s 2>/dev/null",
			 build ? build : "build", gens[g], path);
		if (system(cmd) == 0 && !helpers_map_file(path, &m)) {
			struct tm_config gcfg = gen_cfg();

			/* without a configuration and with ptgen's (MTCs
			 * placed on the crystal clock: the model runs them) */
			rare += check_trace(m.data, m.size, &cfg);
			check_trace(m.data, m.size, &gcfg);
			ran++;
			helpers_unmap(&m);
		}
		unlink(path);
		snprintf(cmd, sizeof(cmd), "%s.options", path);
		unlink(cmd);
	}
	if (!ran)
		printf("skipped: no ptgen in $BUILD/tools\n");
	else
		assert_true(rare > 0);	/* the skipping was put to work */
	for (g = 0; g < sizeof(shared) / sizeof(shared[0]); g++) {
		struct helpers_map m;

		if (helpers_map_shared(shared[g], &m)) {
			printf("skipped: no shared trace %s\n", shared[g]);
			continue;
		}
		check_trace(m.data, m.size, &cfg);
		helpers_unmap(&m);
	}
}

/* The statistics of the iterations of 'psb' (one per segment) of
 * @d[@n] with @cfg into @st. */
static void psb_iterations(const uint8_t *d, size_t n, const struct tm_config *cfg,
			   struct iter_stats *st)
{
	struct fixture *f = calloc(1, sizeof(*f));
	const struct iter_bound *b;
	struct iter_item *items;
	struct iter_job *j;
	size_t nb, ni;

	assert_non_null(f);
	f->cfg = *cfg;
	img_init_flat(&f->img, &f->span, d, n);
	assert_int_equal(idx_new(&f->idx, &f->img, &f->cfg), 0);
	assert_int_equal(idx_build(f->idx), 0);
	j = fx_run(f, "psb");
	b = iter_bounds(j, &nb);
	assert_int_equal(iter_items(b, nb, NULL, &items, &ni, st), 0);
	free(items);
	iter_free(j);
	idx_free(f->idx);
	free(f);
}

/* A TSC outside PSB+ far in the future (top byte 0x7f) in a trace without
 * CYC (iterations in time): the two iterations with an end in the time it
 * took (up to the next PSB+ TSC, which takes it back) are left out,
 * counted (the slowest was 2^56 ticks, shown as measured). */
static void test_damaged_time(void **state)
{
	const char *build = getenv("BUILD");
	char cmd[1024], path[] = "/tmp/test_iter.XXXXXX";
	struct tm_config cfg = gen_cfg();
	struct iter_stats good, bad;
	struct helpers_map m;
	struct pkt_decoder dec;
	struct pkt pkt;
	uint8_t *d;
	size_t npsb = 0;
	uint64_t at = 0;
	int fd = mkstemp(path), in_psb = 0;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "%s/tools/ptgen --seed 5 --size 1MiB --no-cyc -o %s 2>/dev/null",
		 build ? build : "build", path);
	if (system(cmd) != 0 || helpers_map_file(path, &m)) {
		printf("skipped: no ptgen in $BUILD/tools\n");
		unlink(path);
		return;
	}
	unlink(path);
	snprintf(cmd, sizeof(cmd), "%s.options", path);
	unlink(cmd);
	d = malloc(m.size);
	assert_non_null(d);
	memcpy(d, m.data, m.size);
	/* the last TSC outside PSB+ of the 64th segment */
	assert_int_equal(pkt_decoder_init(&dec, d, d + m.size, 0), 0);
	while (pkt_next(&dec, &pkt) > 0 && npsb < 65) {
		if (pkt.type == PKT_PSB)
			npsb++, in_psb = 1;
		else if (pkt.type == PKT_PSBEND)
			in_psb = 0;
		else if (pkt.type == PKT_TSC && !in_psb && npsb == 64)
			at = pkt.offset;
	}
	assert_true(at > 0);
	psb_iterations(d, m.size, &cfg, &good);
	d[at + 7] = 0x7f;
	psb_iterations(d, m.size, &cfg, &bad);
	assert_int_equal(good.cycles, 0);
	assert_int_equal(bad.cycles, 0);
	assert_int_equal(good.ndisputed, 0);
	assert_int_equal(bad.ndisputed, 2);
	assert_int_equal(bad.n + bad.ndisputed, good.n);
	assert_true(bad.max <= good.max);
	free(d);
	helpers_unmap(&m);
}

/* Boundaries before the trace's first TSC (the model counts from 0,
 * TM_F_REL), in time (bounded cycles): the iterations up to and across
 * the first TSC are left out, counted (the one across measured the
 * TSC's value: the slowest, by far); with no TSC at all, every one is
 * (they measured 0 ticks) and none is measured. */
static void test_no_tsc(void **state)
{
	struct fixture *f;
	const struct iter_bound *b;
	struct iter_job *j;
	struct iter_item *v;
	struct iter_stats st;
	size_t nb, n, i;
	int k, pass;

	(void)state;
	for (pass = 0; pass < 2; pass++) {
		f = calloc(1, sizeof(*f));
		psb_plain(&f->b);
		for (k = 0; k < 15; k++) {
			if (k == 5) {
				if (pass)
					psb_plain(&f->b);
				else
					psb(&f->b, 0x100000);
			}
			cyc(&f->b, 50 + (unsigned)k);
			tnt(&f->b);	/* bounded: in time */
			tip(&f->b, 0x401000);
		}
		cyc(&f->b, 9);
		tnt(&f->b);
		fx_index(f);
		assert_int_equal(same_as_straight(&f->img, f->idx, &f->cfg, "tip 0x401000", 2), 15);
		j = fx_run(f, "tip 0x401000");
		b = iter_bounds(j, &nb);
		assert_int_equal(nb, 15);
		assert_int_equal(iter_items(b, nb, NULL, &v, &n, &st), 0);
		assert_int_equal(n, 14);
		assert_false(st.cycles);
		assert_int_equal(st.nbroken, 0);
		assert_int_equal(st.ndisputed, 0);
		for (i = 0; i < n; i++)
			assert_int_equal(v[i].no_tsc, pass || i < 5);
		if (!pass) {
			assert_int_equal(st.nnotsc, 5);
			assert_int_equal(st.n, 9);
			assert_true(st.max < 0x1000);
		} else {
			assert_int_equal(st.nnotsc, 14);
			assert_int_equal(st.n, 0);
		}
		free(v);
		iter_free(j);
		idx_free(f->idx);
		free(f);
	}
}

/* In time, iterations are ranked by the duration their rows show: the
 * difference of their ends' times as perf's conversion gives each (the
 * panes' times), not their TSC ticks, which that conversion does not
 * turn into the same time from every start.  At half a nanosecond a tick,
 * 3 ticks from an even TSC are 1 ns, from an odd one 2 ns, and 2 ticks
 * always 1 ns: ranked by ticks the list read 1 ns, 2 ns, 1 ns.  Ends 0
 * and 1 are anchors (iteration 0 exact), the others estimates; ties stay
 * in boundary order, and the statistics are of the same measure. */
static void test_rank_ns(void **state)
{
	static const uint64_t tsc[] = { 100, 103, 105, 108 };
	struct tm_config cfg;
	struct iter_bound b[4];
	struct iter_item v[3];
	struct iter_stats st;
	size_t i, n, *order = NULL;

	(void)state;
	memset(b, 0, sizeof(b));
	for (i = 0; i < 4; i++) {
		b[i].offset = 0x100 * (i + 1);
		b[i].tsc = tsc[i];
		b[i].flags = TM_F_TSC;
		b[i].timed = 1;
		b[i].anchor = i < 2;
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.have_perf_conv = 1;
	cfg.time_mult = 1;
	cfg.time_shift = 1;	/* a tick is half a nanosecond */
	memset(&st, 0, sizeof(st));
	assert_int_equal(iter_measure_all(b, 4, NULL, &cfg, v, &n, &st, &order), 0);
	assert_int_equal(n, 3);
	assert_int_equal(st.n, 3);
	assert_false(st.cycles);
	assert_true(st.ns);
	assert_int_equal(st.nexact, 1);
	assert_true(v[0].exact && !v[1].exact && !v[2].exact);
	assert_int_equal(v[0].ticks, 3);
	assert_int_equal(v[0].ns, 1);
	assert_int_equal(v[1].ns, 1);
	assert_int_equal(v[2].ns, 2);
	assert_int_equal(order[0], 2);
	assert_int_equal(order[1], 0);	/* a tie: boundary order */
	assert_int_equal(order[2], 1);
	assert_int_equal(st.max, 2);
	assert_int_equal(st.min, 1);
	assert_int_equal(st.p50, 1);
	for (i = 1; i < n; i++)
		assert_true(iter_value(&v[order[i - 1]], &st) >= iter_value(&v[order[i]], &st));
	free(order);
	/* Without a conversion: ticks, the ties in boundary order. */
	memset(&st, 0, sizeof(st));
	assert_int_equal(iter_measure_all(b, 4, NULL, NULL, v, &n, &st, &order), 0);
	assert_false(st.ns);
	assert_int_equal(order[0], 0);
	assert_int_equal(order[1], 2);
	assert_int_equal(order[2], 1);
	assert_int_equal(st.max, 3);
	assert_int_equal(v[0].ns, 0);
	free(order);
}

/* A TSC outside PSB+ a little ahead (not past the segment's ceiling)
 * in segment 5 of 10, so the next PSB+ TSC takes time back (TM_F_RESYNC):
 * the boundaries since segment 5's PSB+ TSC ran ahead (iter_bound.ahead),
 * and the iterations with an end among them are left out, counted (the
 * one across the PSB measured 0 ticks, time having gone back; the one
 * before it, the run-ahead); the skipping walk finds the same as the
 * straight one. */
static void test_resync(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	static const uint8_t ahead[] = { 0x19, 0x00, 0x40, 0x07, 0, 0, 0, 0 };	/* 0x74000 */
	const struct iter_bound *b;
	struct iter_job *j;
	struct iter_item *v;
	struct iter_stats st;
	size_t nb, n, i;
	int s, k;

	(void)state;
	for (s = 0; s < 10; s++) {
		psb(&f->b, 0x10000 * (uint64_t)(s + 1));
		for (k = 0; k < 10; k++) {
			if (s == 5 && k == 5)
				put(&f->b, ahead, sizeof(ahead));
			cyc(&f->b, 1600);
			tnt(&f->b);	/* bounded: in time */
			tip(&f->b, 0x401000);
		}
	}
	fx_index(f);
	assert_int_equal(same_as_straight(&f->img, f->idx, &f->cfg, "tip 0x401000", 1), 100);
	assert_int_equal(same_as_straight(&f->img, f->idx, &f->cfg, "tip 0x401000", 3), 100);
	assert_int_equal(same_as_straight(&f->img, f->idx, &f->cfg, "psb", 2), 10);
	j = fx_run(f, "tip 0x401000");
	b = iter_bounds(j, &nb);
	assert_int_equal(nb, 100);
	for (i = 0; i < nb; i++)
		assert_int_equal(b[i].ahead, i >= 50 && i < 60);
	assert_true(b[60].tsc < b[59].tsc);
	assert_int_equal(iter_items(b, nb, NULL, &v, &n, &st), 0);
	assert_false(st.cycles);
	assert_int_equal(st.ndisputed, 11);
	assert_int_equal(st.n, 99 - 11);
	for (i = 0; i < n; i++)
		assert_int_equal(v[i].disputed, i >= 49 && i < 60);
	assert_int_equal(st.nexact, 0);		/* TIPs: the model's estimates */
	free(v);
	iter_free(j);
	/* The TSCs as boundaries: their own times (anchors) where the
	 * estimate was not ahead of them, so those iterations are exact: the
	 * TSCs' distance; but for those around the one ahead: it and segment
	 * 5's PSB+ TSC before it ran ahead, segment 6's took time back. */
	j = fx_run(f, "tsc");
	b = iter_bounds(j, &nb);
	assert_int_equal(nb, 11);
	assert_int_equal(iter_items(b, nb, NULL, &v, &n, &st), 0);
	assert_false(st.cycles);
	assert_int_equal(st.ndisputed, 3);
	assert_int_equal(st.n, 7);
	assert_true(st.nexact > 0 && st.nexact <= st.n);
	for (i = 0; i < n; i++) {
		assert_int_equal(v[i].disputed, i >= 4 && i < 7);
		assert_true(!v[i].exact || (!v[i].disputed && v[i].ticks == 0x10000));
	}
	free(v);
	iter_free(j);
	idx_free(f->idx);
	free(f);
}

/* The final result of @expr on @f: boundaries *@fb[*@nfb], items *@fi. */
struct final {
	const struct iter_bound *b;
	size_t nb, n;
	struct iter_item *items;
	struct iter_stats st;
};

/* Picture @s against final result @fr: each item is the final one of the
 * same pair of boundaries (measured ones in full, broken ones broken);
 * never more measured.  Returns the picture's measured items. */
static size_t check_snap(const struct iter_snap *s, const struct final *fr)
{
	size_t i, lo, hi;

	assert_true(s->st.n <= fr->st.n);
	assert_true(s->n <= fr->n);
	assert_true(s->done <= s->total);
	/* the measured items, slowest first, ties in boundary order */
	assert_non_null(s->order);
	for (i = 0; i < s->st.n; i++) {
		const struct iter_item *x = &s->items[s->order[i]];

		assert_true(s->order[i] < s->n && !x->broken);
		if (i) {
			uint64_t a = iter_value(&s->items[s->order[i - 1]], &s->st);
			uint64_t z = iter_value(x, &s->st);

			assert_true(a > z || (a == z && s->order[i - 1] < s->order[i]));
		}
	}
	if (s->st.n) {
		assert_int_equal(s->st.max, iter_value(&s->items[s->order[0]], &s->st));
		assert_int_equal(s->st.min, iter_value(&s->items[s->order[s->st.n - 1]], &s->st));
	}
	for (i = 0; i < s->n; i++) {
		const struct iter_item *x = &s->items[i], *y;
		uint64_t off = s->b[x->from].offset;

		assert_true(x->from + 1 < s->nb);
		for (lo = 0, hi = fr->nb; lo < hi;) {
			size_t mid = lo + (hi - lo) / 2;

			if (fr->b[mid].offset < off)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo + 1 >= fr->nb || fr->b[lo].offset != off)
			fail_msg("item %zu from 0x%llx: no such final boundary", i,
				 (unsigned long long)off);
		assert_int_equal(fr->b[lo + 1].offset, s->b[x->from + 1].offset);
		y = &fr->items[lo];
		assert_int_equal(x->broken, y->broken);
		if (x->broken)
			continue;
		assert_int_equal(x->ticks, y->ticks);
		assert_int_equal(x->has_cyc, y->has_cyc);
		assert_int_equal(x->cyc_lo, y->cyc_lo);
		assert_int_equal(x->cyc_hi, y->cyc_hi);
	}
	return s->st.n;
}

/* Start @expr on @f with @o.  Returns the job. */
static struct iter_job *fx_start(struct fixture *f, const char *expr,
				 const struct iter_opts *o)
{
	struct srch_pred *p = NULL;
	struct iter_job *j = NULL;
	char err[128];

	assert_int_equal(srch_parse(expr, &p, err, sizeof(err)), 0);
	assert_int_equal(iter_start(&j, &f->img, f->idx, p, &f->cfg, o), 0);
	return j;
}

/* Wait until @j has walked every unit it will before its workers' long
 * pace: @want bytes (0: any), or no change for a while. */
static void wait_walked(struct iter_job *j, uint64_t want)
{
	struct iter_progress p;
	uint64_t last = 0;
	int still = 0, n;

	/* (a minute at most: fewer workers than asked for may start) */
	for (n = 0; n < 30000; n++) {
		iter_progress(j, &p);
		if (want ? p.done >= want : p.done && p.done == last && ++still > 50)
			return;
		if (p.done != last)
			still = 0;
		last = p.done;
		usleep(2000);
	}
	fail_msg("the walk never got to %llu bytes (%llu)", (unsigned long long)want,
		 (unsigned long long)p.done);
}

/* iter_partial(): pictures while the walk runs hold only final items
 * (never more measured than the result), the units done spread over the
 * trace; with every unit done, the picture is the result's items; after
 * the end, the result itself. */
static void test_partial(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct iter_opts o = { .nthreads = 2 };
	struct iter_progress pr;
	struct iter_snap s;
	struct final fr;
	struct iter_job *j, *jf;
	uint64_t before = 0;
	size_t i, seen = 0;
	int pass;

	(void)state;
	assert_int_equal(iter_partial(NULL, &s), -pte_invalid);
	fx_loops(f);
	jf = fx_run_n(f, "tip 0x401000", 2);
	fr.b = iter_bounds(jf, &fr.nb);
	assert_int_equal(iter_items(fr.b, fr.nb, NULL, &fr.items, &fr.n, &fr.st), 0);
	assert_true(fr.st.n > 1000 && fr.st.nbroken > 10);
	/* after the end: the result */
	assert_int_equal(iter_partial(jf, &s), 0);
	assert_true(s.final && !s.truncated && s.done == s.total);
	assert_int_equal(s.nb, fr.nb);
	assert_memory_equal(s.b, fr.b, fr.nb * sizeof(*fr.b));
	assert_int_equal(s.n, fr.n);
	assert_memory_equal(s.items, fr.items, fr.n * sizeof(*fr.items));
	assert_memory_equal(&s.st, &fr.st, sizeof(fr.st));
	iter_snap_free(&s);
	iter_snap_free(NULL);

	/* Held still after the first units (a long pace): one worker's,
	 * two workers', four: their units lie apart, so some pictures have
	 * several runs; then pictures along a paced walk to its end. */
	for (pass = 0; pass < 3; pass++) {
		o.nthreads = 1u << pass;
		o.pace_ms = 600000;
		j = fx_start(f, "tip 0x401000", &o);
		wait_walked(j, 0);
		assert_int_equal(iter_partial(j, &s), 0);
		assert_false(s.final);
		assert_true(s.done > 0 && s.done < s.total);
		/* the second unit taken is the middle one */
		if (o.nthreads > 1)
			assert_true(s.nb && s.b[s.nb - 1].offset > f->b.n / 2);
		seen += check_snap(&s, &fr) > 0;
		iter_snap_free(&s);
		iter_free(j);
	}
	assert_true(seen > 0);
	/* Every unit done (a worker each), held still: the result's items. */
	o.nthreads = 64;
	j = fx_start(f, "tip 0x401000", &o);
	wait_walked(j, f->b.n);
	assert_int_equal(iter_partial(j, &s), 0);
	assert_false(s.final);
	check_snap(&s, &fr);
	assert_int_equal(s.n, fr.n);
	assert_memory_equal(&s.st, &fr.st, sizeof(fr.st));
	for (i = 0; i < s.n; i++)
		assert_int_equal(s.items[i].from, fr.items[i].from);
	iter_snap_free(&s);
	iter_free(j);
	/* Front to back after max_bounds (every unit done at once, held
	 * still): the picture keeps to the front units' first 1000, items
	 * of the truncated result. */
	{
		struct iter_opts ot = { .nthreads = 64, .max_bounds = 1000 };
		struct final ft;
		struct iter_job *jt = fx_start(f, "tip 0x401000", &ot);

		assert_int_equal(iter_wait(jt), 0);
		ft.b = iter_bounds(jt, &ft.nb);
		assert_int_equal(ft.nb, 1000);
		assert_int_equal(iter_items(ft.b, ft.nb, NULL, &ft.items, &ft.n, &ft.st), 0);
		ot.pace_ms = 600000;
		j = fx_start(f, "tip 0x401000", &ot);
		wait_walked(j, 0);
		assert_int_equal(iter_partial(j, &s), 0);
		assert_false(s.final);
		assert_true(s.nb <= 1000 && s.nb > 1);
		assert_int_equal(s.b[0].offset, ft.b[0].offset);
		assert_true(check_snap(&s, &ft) > 0);
		iter_snap_free(&s);
		iter_free(j);
		free(ft.items);
		iter_free(jt);
	}
	/* Along a paced walk: consistent pictures, growing, then the result. */
	o.nthreads = 2;
	o.pace_ms = 3;
	j = fx_start(f, "tip 0x401000", &o);
	for (;;) {
		iter_progress(j, &pr);
		assert_int_equal(iter_partial(j, &s), 0);
		check_snap(&s, &fr);
		assert_true(s.done >= before && s.done >= pr.done);
		before = s.done;
		if (s.final)
			break;
		iter_snap_free(&s);
		usleep(1000);
	}
	assert_int_equal(s.n, fr.n);
	assert_memory_equal(s.items, fr.items, fr.n * sizeof(*fr.items));
	iter_snap_free(&s);
	iter_free(j);
	free(fr.items);
	iter_free(jf);
	idx_free(f->idx);
	free(f);
}

/* A picture taken as the job ends (many short jobs, pictures taken
 * back to back): never less walked than the one before, so never the
 * empty picture of a job whose units are freed but that has not said it
 * finished. */
static void test_partial_end(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct iter_opts o = { .nthreads = 64 };
	struct iter_snap s;
	struct iter_job *j;
	uint64_t before;
	int k, round;

	(void)state;
	for (k = 0; k < 400; k++) {
		psb(&f->b, 0x1000 + (uint64_t)k * 64);
		cyc(&f->b, 100);
		tip(&f->b, 0x401000);
	}
	fx_index(f);
	for (round = 0; round < 300; round++) {
		j = fx_start(f, "tip 0x401000", &o);
		for (before = 0;;) {
			assert_int_equal(iter_partial(j, &s), 0);
			if (s.done < before)
				fail_msg("round %d: a picture of %llu bytes after one of %llu", round,
					 (unsigned long long)s.done, (unsigned long long)before);
			before = s.done;
			if (s.final)
				break;
			iter_snap_free(&s);
		}
		assert_int_equal(s.nb, 400);
		iter_snap_free(&s);
		iter_free(j);
	}
	idx_free(f->idx);
	free(f);
}

/* No time pass: refused; a job freed while running stops. */
static void test_refused_cancel(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct srch_pred *p = NULL;
	struct iter_job *j = NULL;
	char err[64];
	int k;

	(void)state;
	psb(&f->b, 0x1000);
	for (k = 0; k < 3000; k++) {
		cyc(&f->b, 10);
		tip(&f->b, 0x401000);
	}
	img_init_flat(&f->img, &f->span, f->b.d, f->b.n);
	assert_int_equal(idx_new(&f->idx, &f->img, &f->cfg), 0);
	assert_int_equal(idx_set_time_pass(f->idx, 0), 0);
	assert_int_equal(idx_build(f->idx), 0);
	assert_int_equal(srch_parse("tip", &p, err, sizeof(err)), 0);
	assert_int_equal(iter_start(&j, &f->img, f->idx, p, &f->cfg, NULL), -pte_no_time);
	idx_free(f->idx);
	fx_index(f);
	assert_int_equal(srch_parse("tip", &p, err, sizeof(err)), 0);
	assert_int_equal(iter_start(&j, &f->img, f->idx, p, &f->cfg, NULL), 0);
	iter_free(j);
	idx_free(f->idx);
	free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_planted),
		cmocka_unit_test(test_bounded_broken),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_partial),
		cmocka_unit_test(test_partial_end),
		cmocka_unit_test(test_skip_same),
		cmocka_unit_test(test_skip_head),
		cmocka_unit_test(test_defer),
		cmocka_unit_test(test_in_block),
		cmocka_unit_test(test_refused_cancel),
		cmocka_unit_test(test_damaged_time),
		cmocka_unit_test(test_no_tsc),
		cmocka_unit_test(test_resync),
		cmocka_unit_test(test_rank_ns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
