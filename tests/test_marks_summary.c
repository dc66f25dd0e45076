/* test_marks_summary -- region summaries over a synthetic trace, their time
 * observer and background jobs; a region's time is not exact across a
 * damaged PSB+ TSC (a ptgen trace's). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "image.h"
#include "index.h"
#include "marks.h"
#include "ptdec.h"


/*
 * Region summaries over a synthetic trace.
 */

static const uint8_t psb[] = { 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
			       0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82 };
static uint8_t trace[4096];
static size_t trace_len;
static uint64_t seg_off[8];	/* where each segment's PSB is */

static void put(const uint8_t *b, size_t n)
{
	memcpy(trace + trace_len, b, n);
	trace_len += n;
}

#define PUT(...) put((const uint8_t[]){ __VA_ARGS__ }, sizeof((uint8_t[]){ __VA_ARGS__ }))

/* Segment k: psb, tsc k, cbr, psbend, tnt.8 (3 bits, 1 taken), tip,
 * cyc 31, tnt.8 (6 taken), pad. */
static void build_trace(void)
{
	int k;

	trace_len = 0;
	for (k = 0; k < 4; k++) {
		seg_off[k] = trace_len;
		put(psb, sizeof(psb));
		PUT(0x19, (uint8_t)(0x10 * (k + 1)), 0, 0, 0, 0, 0, 0);
		PUT(0x02, 0x03, (uint8_t)(k < 2 ? 20 : 30), 0x00);
		PUT(0x02, 0x23);
		PUT(0x14, 0x0d, 0xfb, 0xfe, 0x00);
	}
	seg_off[k] = trace_len;
}

static void test_summary(void **state)
{
	struct img_span span;
	struct marks_summary s;
	struct img img;

	build_trace();
	img_init_flat(&img, &span, trace, trace_len);
	assert_int_equal(marks_region_summary(&img, 5, 5, &s, NULL, NULL, NULL), -pte_invalid);

	/* the whole trace */
	assert_int_equal(marks_region_summary(&img, 0, trace_len, &s, NULL, NULL, NULL), 0);
	assert_int_equal(s.bytes, trace_len);
	assert_int_equal(s.packets, 4 * 9);
	assert_int_equal(s.psbs, 4);
	assert_int_equal(s.by_type[PKT_PSBEND], 4);
	assert_int_equal(s.by_class[PKC_SYNC], 12);
	assert_int_equal(s.by_class[PKC_BRANCH], 8);
	assert_int_equal(s.tnt_bits, 4 * 9);
	assert_int_equal(s.taken, 4 * 7);
	assert_int_equal(s.not_taken, 4 * 2);
	assert_int_equal(s.tips, 4);
	assert_int_equal(s.cyc_cycles, 4 * 31);
	assert_true(s.has_tsc);
	assert_int_equal(s.first_tsc, 0x10);
	assert_int_equal(s.last_tsc, 0x40);
	assert_int_equal(s.tsc_ticks, 0x30);
	assert_int_equal(s.first_tsc_off, 16);
	assert_int_equal(s.cbrs, 4);
	assert_int_equal(s.cbr_changes, 1);
	assert_int_equal(s.first_cbr, 20);
	assert_int_equal(s.last_cbr, 30);
	assert_int_equal(s.errors, 0);
	assert_int_equal(s.ovfs, 0);

	/* from the middle of segment 1 to the middle of segment 2: the lead-in
	 * from segment 1's PSB is decoded but not counted */
	assert_int_equal(marks_region_summary(&img, seg_off[1] + 30, seg_off[2] + 16, &s,
					   NULL, NULL, NULL), 0);
	/* a segment: psb 0, tsc 16, cbr 24, psbend 28, tnt 30, tip 31, cyc 32,
	 * tnt 33, pad 34; so tnt tip cyc tnt pad, then segment 2's psb */
	assert_int_equal(s.packets, 6);
	assert_int_equal(s.psbs, 1);
	assert_int_equal(s.tnt_bits, 9);
	assert_false(s.has_tsc);
	assert_int_equal(s.cbrs, 0);

	/* CBR changes, also against the ratio seen in the lead-in */
	assert_int_equal(marks_region_summary(&img, seg_off[2] + 1, seg_off[3] + 30, &s,
					   NULL, NULL, NULL), 0);
	assert_int_equal(s.cbrs, 2);
	assert_int_equal(s.cbr_changes, 0);
	assert_int_equal(s.psbs, 1);
	assert_int_equal(s.tsc_ticks, 0x10);
	assert_int_equal(marks_region_summary(&img, seg_off[1] + 26, seg_off[2] + 30, &s,
					   NULL, NULL, NULL), 0);
	assert_int_equal(s.cbrs, 1);
	assert_int_equal(s.cbr_changes, 1);
	assert_int_equal(s.first_cbr, 30);

	/* past the end is clipped */
	assert_int_equal(marks_region_summary(&img, seg_off[3], 1u << 30, &s,
					   NULL, NULL, NULL), 0);
	assert_int_equal(s.to, trace_len);
	assert_int_equal(s.packets, 9);
}

static void test_summary_errors(void **state)
{
	struct img_span span;
	struct marks_summary s;
	struct img img;

	build_trace();
	/* an unknown opcode and an OVF in segment 1 */
	trace[seg_off[1] + 33] = 0x02;
	trace[seg_off[1] + 34] = 0xff;	/* not a valid extended opcode */
	img_init_flat(&img, &span, trace, trace_len);
	assert_int_equal(marks_region_summary(&img, 0, trace_len, &s, NULL, NULL, NULL), 0);
	assert_int_equal(s.errors, 1);
	assert_int_equal(s.first_error_off, seg_off[1] + 33);
	assert_int_equal(s.psbs, 4);	/* resynchronised at segment 2 */
	build_trace();
	trace[seg_off[1] + 33] = 0x02;
	trace[seg_off[1] + 34] = 0xf3;	/* ovf replaces tnt.8 0xfe, pad */
	assert_int_equal(marks_region_summary(&img, 0, trace_len, &s, NULL, NULL, NULL), 0);
	assert_int_equal(s.ovfs, 1);
	assert_int_equal(s.by_class[PKC_ERROR], 1);
	assert_int_equal(s.errors, 0);

	/* no PSB at all: nothing to count */
	memset(trace, 0, trace_len);
	assert_int_equal(marks_region_summary(&img, 10, 100, &s, NULL, NULL, NULL), 0);
	assert_int_equal(s.packets, 0);
	assert_int_equal(s.bytes, 90);
}

static void test_summary_time(void **state)
{
	struct tm_config cfg = { .have_tsc_hz = 1, .tsc_hz = 1000000000 };
	struct img_span span;
	struct marks_summary s;
	struct marks_time bt;
	struct img img;

	build_trace();
	img_init_flat(&img, &span, trace, trace_len);
	/* nothing known about the recording: no wall clock */
	marks_time_init(&bt, NULL);
	assert_int_equal(marks_region_summary(&img, 0, trace_len, &s, NULL,
					   marks_time_observe, &bt), 0);
	assert_false(s.has_time);
	assert_int_equal(s.packets, 4 * 9);
	/* a 1 GHz TSC: one tick is a nanosecond, TSCs run 0x10..0x40 */
	marks_time_init(&bt, &cfg);
	assert_int_equal(marks_region_summary(&img, 0, trace_len, &s, NULL,
					   marks_time_observe, &bt), 0);
	assert_true(s.has_time);
	assert_true(s.duration_ns >= 0x30);
	assert_true(s.duration_ns < 0x60);
	/* the lead-in before the range sets the clock but is not timed */
	marks_time_init(&bt, &cfg);
	assert_int_equal(marks_region_summary(&img, seg_off[1] + 30, seg_off[2], &s, NULL,
					   marks_time_observe, &bt), 0);
	assert_true(s.has_time);
	assert_true(s.duration_ns < 0x10);
}

/* How sure a region's duration is: TSC to TSC exact in time, tnt.8 right
 * after a CYC to the same exact in cycles; warm when the caller says. */
static void test_summary_sure(void **state)
{
	struct tm_config cfg = { .have_tsc_hz = 1, .tsc_hz = 1000000000 };
	struct img_span span;
	struct marks_summary s;
	struct marks_time bt;
	struct img img;

	(void)state;
	build_trace();
	img_init_flat(&img, &span, trace, trace_len);
	/* segment 1's TSC to segment 2's (PSB+ TSCs: anchors, not cycle-exact) */
	marks_time_init(&bt, &cfg);
	assert_int_equal(marks_region_summary(&img, seg_off[1] + 16, seg_off[2] + 16, &s,
					   NULL, marks_time_observe, &bt), 0);
	assert_true(s.has_time && s.has_span);
	assert_int_equal(s.span_ticks, 0x10);
	assert_true(s.time_exact);
	assert_false(s.time_warm);
	/* cold from segment 1's PSB: no CYC before the start edge */
	assert_false(s.has_cycles);
	/* tnt.8 after segment 1's CYC to the one after segment 2's */
	marks_time_init(&bt, &cfg);
	bt.warm = 1;
	assert_int_equal(marks_region_summary(&img, seg_off[1] + 33, seg_off[2] + 33, &s,
					   NULL, marks_time_observe, &bt), 0);
	assert_true(s.has_span);
	assert_false(s.time_exact);
	assert_true(s.time_warm);
	assert_true(s.has_cycles);
	assert_int_equal(s.cycles, 31);
	assert_true(s.cycles_exact);
	/* an OVF between: nothing is exact */
	trace[seg_off[2] + 30] = 0x02;
	trace[seg_off[2] + 31] = 0xf3;	/* ovf replaces tnt.8, tip */
	marks_time_init(&bt, &cfg);
	assert_int_equal(marks_region_summary(&img, seg_off[1] + 16, seg_off[3] + 16, &s,
					   NULL, marks_time_observe, &bt), 0);
	assert_true(s.has_span);
	assert_false(s.time_exact);
	marks_time_init(&bt, &cfg);
	assert_int_equal(marks_region_summary(&img, seg_off[1] + 33, seg_off[3] + 33, &s,
					   NULL, marks_time_observe, &bt), 0);
	assert_false(s.cycles_exact);
}

struct observed {
	int packets, in_range, finals, lost;
	uint64_t lost_off;
};

static int observe(void *ctx, const struct pkt *pkt, int in_range,
		   struct marks_summary *sum)
{
	struct observed *o = ctx;

	if (!pkt) {
		o->finals++;
		sum->has_time = 1;
		sum->duration_ns = 42;
		return 0;
	}
	if (pkt->type == PKT_INVALID) {
		o->lost++;
		o->lost_off = pkt->offset;
		return 0;
	}
	o->packets++;
	o->in_range += in_range;
	return 0;
}

/* Lost bytes reach the observer: a gap between spans, a decode error. */
static void test_summary_lost(void **state)
{
	struct img_span spans[2];
	struct observed o = { 0 };
	struct marks_summary s;
	struct img img;

	build_trace();
	memset(spans, 0, sizeof(spans));
	spans[0].data = trace;
	spans[0].size = seg_off[2];
	spans[1].data = trace + seg_off[2];
	spans[1].off = seg_off[2];
	spans[1].size = trace_len - seg_off[2];
	spans[1].file_off = seg_off[2];
	spans[1].gap_before = 1;
	img.spans = spans;
	img.nspans = 2;
	img.size = trace_len;
	assert_int_equal(marks_region_summary(&img, 0, trace_len, &s, NULL, observe, &o), 0);
	assert_int_equal(s.gaps, 1);
	assert_int_equal(s.packets, 4 * 9);
	assert_int_equal(o.lost, 1);
	assert_int_equal(o.lost_off, seg_off[2]);
	assert_int_equal(o.packets, 4 * 9);

	/* a bad opcode in segment 1: decoding resumes at segment 2's PSB */
	trace[seg_off[1] + 33] = 0x02;
	trace[seg_off[1] + 34] = 0xff;
	memset(&o, 0, sizeof(o));
	assert_int_equal(marks_region_summary(&img, 0, trace_len, &s, NULL, observe, &o), 0);
	assert_int_equal(s.errors, 1);
	/* the resync crossed the gap too: one loss, reported once */
	assert_int_equal(o.lost, 1);
	assert_int_equal(o.lost_off, seg_off[2]);
	assert_int_equal(s.gaps, 1);
	assert_int_equal(s.packets, 4 * 9 - 2);
	assert_int_equal(o.packets, 4 * 9 - 2);
}

static void test_summary_job(void **state)
{
	struct marks_summary_job job = { 0 };
	struct observed o = { 0 };
	struct img_span span;
	static uint8_t big[8 << 20];
	struct img img;
	size_t i;
	int ret;

	build_trace();
	img_init_flat(&img, &span, trace, trace_len);
	job.img = &img;
	job.from = seg_off[1] + 30;
	job.to = trace_len;
	job.observe = observe;
	job.observe_ctx = &o;
	assert_int_equal(marks_summary_start(&job), 0);
	assert_int_equal(marks_summary_join(&job), 0);
	assert_int_equal(atomic_load(&job.progress.finished), 1);
	assert_int_equal(atomic_load(&job.progress.done), atomic_load(&job.progress.total));
	assert_int_equal(o.finals, 1);
	assert_int_equal(o.in_range, (int)job.sum.packets);
	assert_int_equal(o.packets, (int)job.sum.packets + 4);
	assert_true(job.sum.has_time);

	/* cancel a big one before it starts: it stops at the first check */
	for (i = 0; i + sizeof(psb) + 1 <= sizeof(big); i += sizeof(psb) + 1) {
		memcpy(big + i, psb, sizeof(psb));
		big[i + sizeof(psb)] = 0;
	}
	img_init_flat(&img, &span, big, sizeof(big));
	memset(&job, 0, sizeof(job));
	job.img = &img;
	job.from = 0;
	job.to = sizeof(big);
	assert_int_equal(marks_summary_start(&job), 0);
	marks_summary_cancel(&job);
	ret = marks_summary_join(&job);
	assert_true(ret == 0 || ret == -pte_canceled);
	assert_int_equal(atomic_load(&job.progress.finished), 1);
	/* synchronously, a preset cancel always stops */
	{
		struct marks_progress p = { 0 };
		struct marks_summary s;

		atomic_store(&p.cancel, 1);
		assert_int_equal(marks_region_summary(&img, 0, sizeof(big), &s, &p, NULL, NULL),
				 -pte_canceled);
		assert_true(s.packets < sizeof(big) / (sizeof(psb) + 1));
		assert_int_equal(atomic_load(&p.finished), 1);
	}
}

/* ptgen @args into a malloc'ed buffer (*@n bytes); NULL without ptgen. */
static uint8_t *gen(const char *args, size_t *n)
{
	const char *build = getenv("BUILD");
	char cmd[1024], path[] = "/tmp/test_marks_summary.XXXXXX";
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

/* Where a region around a damaged PSB+ TSC lies: the PSB+ TSC of the
 * segment before (prev_tsc), the PSB+ TSC (tsc), the first MTC after its
 * PSBEND (mtc) and the first TSC outside PSB+ after that in the same
 * segment (out_tsc). */
struct dmg_place {
	uint64_t prev_tsc, tsc, mtc, out_tsc;
};

/* The places around PSB number @k (from 0) of @d (@n bytes). */
static void dmg_find(const uint8_t *d, size_t n, size_t k, struct dmg_place *pl)
{
	struct pkt_decoder dec;
	struct pkt p;
	size_t npsb = 0;
	int in_psb = 0;

	memset(pl, 0, sizeof(*pl));
	/* (ptgen's traces begin with a PSB) */
	assert_int_equal(pkt_decoder_init(&dec, d, d + n, 0), 0);
	while (pkt_next(&dec, &p) > 0 && !pl->out_tsc) {
		if (p.type == PKT_PSB) {
			assert_true(npsb <= k);	/* no TSC outside PSB+ found */
			npsb++;
			in_psb = 1;
		} else if (p.type == PKT_PSBEND) {
			in_psb = 0;
		} else if (p.type == PKT_TSC && in_psb && npsb == k) {
			pl->prev_tsc = p.offset;
		} else if (p.type == PKT_TSC && in_psb && npsb == k + 1) {
			pl->tsc = p.offset;
		} else if (p.type == PKT_MTC && !in_psb && npsb == k + 1 && !pl->mtc) {
			pl->mtc = p.offset;
		} else if (p.type == PKT_TSC && !in_psb && pl->mtc) {
			pl->out_tsc = p.offset;
		}
	}
	assert_true(pl->prev_tsc && pl->tsc && pl->mtc && pl->out_tsc);
}

/* Summarise [@from, @to) of @img with time, warm from @idx's carry at
 * the PSB before @from, @idx given to the observer if @tell. */
static void dmg_summary(const struct img *img, struct idx *idx, int tell,
			const struct tm_config *cfg, uint64_t from, uint64_t to,
			struct marks_summary *s)
{
	struct tm_carry carry;
	struct marks_time bt;
	uint64_t at;
	size_t k;

	marks_time_init(&bt, cfg);
	bt.idx = tell ? idx : NULL;
	assert_int_equal(img_find_psb_before(img, from + 1, &at), 0);
	assert_int_equal(idx_find(idx, at, &k), 0);
	assert_int_equal(idx_seek_carry(idx, k, &carry), 0);
	tm_restore(&bt.tm, &carry);
	bt.warm = 1;
	assert_int_equal(marks_region_summary(img, from, to, s, NULL, marks_time_observe,
					      &bt), 0);
	assert_true(s->has_span);
}

/* The 128th PSB+ TSC of a ptgen trace damaged: far in the past (byte 5
 * cleared), a region from an MTC after it to the sound TSC outside PSB+
 * that leaves the stretch time went back to spans 2^44 ticks and was
 * called exact (the sound trace: 17689 ticks, exact); far in the future
 * (the top byte 0x7f), one from the segment before into it jumps by
 * months and was too.  Neither is exact now: the walk passes a TSC that
 * jumped, an edge lies in a segment whose TSC contradicts its
 * neighbours' (the index tells).  A TSC outside PSB+ far in the future:
 * an edge after it lies past the time its segment can have. */
static void test_summary_damaged(void **state)
{
	struct tm_config cfg;
	struct img_span span;
	struct marks_summary s;
	struct dmg_place pl;
	struct img img;
	struct idx *idx;
	size_t n;
	uint8_t *d = gen("--seed 5 --size 1MiB", &n), *dd;

	(void)state;
	if (!d) {
		printf("skipped: no ptgen in $BUILD/tools\n");
		return;
	}
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(tm_config_option(&cfg, "--mtc-freq", "3"), 1);
	assert_int_equal(tm_config_option(&cfg, "--nom-freq", "12"), 1);
	assert_int_equal(tm_config_option(&cfg, "--cpuid-0x15.eax", "2"), 1);
	assert_int_equal(tm_config_option(&cfg, "--cpuid-0x15.ebx", "100"), 1);
	dmg_find(d, n, 127, &pl);
	dd = malloc(n);
	assert_non_null(dd);
	img_init_flat(&img, &span, d, n);
	/* the sound trace: exact, neither disputed */
	assert_int_equal(idx_new(&idx, &img, &cfg), 0);
	assert_int_equal(idx_build(idx), 0);
	dmg_summary(&img, idx, 1, &cfg, pl.mtc, pl.out_tsc, &s);
	assert_true(s.time_exact);
	assert_false(s.time_disputed);
	assert_true(s.span_ticks < (1u << 20));
	dmg_summary(&img, idx, 1, &cfg, pl.prev_tsc, pl.mtc, &s);
	assert_true(s.time_exact);
	idx_free(idx);
	/* far past: the walk passes the TSC that leaves the stretch */
	memcpy(dd, d, n);
	dd[pl.tsc + 1 + 5] = 0;
	img_init_flat(&img, &span, dd, n);
	assert_int_equal(idx_new(&idx, &img, &cfg), 0);
	assert_int_equal(idx_build(idx), 0);
	assert_true(idx_time_outlier(idx, 127));
	dmg_summary(&img, idx, 0, &cfg, pl.mtc, pl.out_tsc, &s);
	assert_false(s.time_exact);
	assert_true(s.time_disputed);
	dmg_summary(&img, idx, 1, &cfg, pl.mtc, pl.out_tsc, &s);
	assert_false(s.time_exact);
	assert_true(s.time_disputed);
	idx_free(idx);
	/* far future: the end edge lies in the outlier segment */
	memcpy(dd, d, n);
	dd[pl.tsc + 1 + 6] = 0x7f;
	assert_int_equal(idx_new(&idx, &img, &cfg), 0);
	assert_int_equal(idx_build(idx), 0);
	assert_true(idx_time_outlier(idx, 127));
	dmg_summary(&img, idx, 1, &cfg, pl.prev_tsc, pl.mtc, &s);
	assert_false(s.time_exact);
	assert_true(s.time_disputed);
	/* one up to its PSB+'s TSC (the packets before it have the time
	 * before) is not disputed */
	dmg_summary(&img, idx, 1, &cfg, pl.prev_tsc, pl.tsc - 1, &s);
	assert_false(s.time_disputed);
	idx_free(idx);
	/* a TSC outside PSB+ far in the future: its segment is no outlier,
	 * but an edge after it lies past the next PSB+ TSC, its ceiling */
	memcpy(dd, d, n);
	dd[pl.out_tsc + 1 + 6] = 0x7f;
	assert_int_equal(idx_new(&idx, &img, &cfg), 0);
	assert_int_equal(idx_build(idx), 0);
	assert_false(idx_time_outlier(idx, 127));
	dmg_summary(&img, idx, 1, &cfg, pl.mtc, pl.out_tsc + 8, &s);
	assert_false(s.time_exact);
	assert_true(s.time_disputed);
	/* (one before it is not) */
	dmg_summary(&img, idx, 1, &cfg, pl.prev_tsc, pl.mtc + 1, &s);
	assert_false(s.time_disputed);
	idx_free(idx);
	free(dd);
	free(d);
}

/* An OVF between two TSCs (ptgen --ovf-rate, no PSB between): the
 * cycles lost in it are not counted, so cycles over the duration is no
 * average; it was (1931 MHz "halts included" with min 2799, max 2802 and
 * no halt).  The mean of the measurements, at least the slowest. */
static void test_summary_ovf_freq(void **state)
{
	struct tm_config cfg, none = { 0 };
	struct img_span span;
	struct marks_summary s;
	struct pkt_decoder dec;
	struct pkt p;
	struct img img;
	struct idx *idx;
	uint64_t tsc = 0, from = 0, to = 0;
	size_t n;
	int in_psb = 0;
	uint8_t *d = gen("--ovf-rate 0.001 -S 1M", &n);

	(void)state;
	if (!d) {
		printf("skipped: no ptgen in $BUILD/tools\n");
		return;
	}
	/* the first OVF with a TSC outside PSB+ each side, no PSB between */
	assert_int_equal(pkt_decoder_init(&dec, d, d + n, 0), 0);
	while (pkt_next(&dec, &p) > 0 && !to) {
		if (p.type == PKT_PSB) {
			in_psb = 1;
			tsc = from = 0;
		} else if (p.type == PKT_PSBEND) {
			in_psb = 0;
		} else if (p.type == PKT_TSC && !in_psb) {
			if (from)
				to = p.offset;
			else
				tsc = p.offset;
		} else if (p.type == PKT_OVF && tsc && !from) {
			from = tsc;
		}
	}
	assert_true(from && to);
	memset(&cfg, 0, sizeof(cfg));
	/* (its model gives the crystal: a wall clock) */
	assert_int_equal(tm_config_option(&cfg, "--cpu", "6/78/3"), 1);
	assert_int_equal(tm_config_option(&cfg, "--mtc-freq", "3"), 1);
	assert_int_equal(tm_config_option(&cfg, "--nom-freq", "12"), 1);
	assert_int_equal(tm_config_option(&cfg, "--cpuid-0x15.eax", "2"), 1);
	assert_int_equal(tm_config_option(&cfg, "--cpuid-0x15.ebx", "100"), 1);
	tm_config_merge(&cfg, &none);
	img_init_flat(&img, &span, d, n);
	assert_int_equal(idx_new(&idx, &img, &cfg), 0);
	assert_int_equal(idx_build(idx), 0);
	dmg_summary(&img, idx, 1, &cfg, from, to, &s);
	assert_int_equal(s.ovfs, 1);
	assert_false(s.time_exact);
	assert_false(s.cycles_exact);
	assert_false(s.freq_avg_wall);
	if (s.freq_avg_mhz > 0) {
		assert_true(s.freq_avg_mhz >= s.freq_min_mhz);
		assert_true(s.freq_avg_mhz <= s.freq_max_mhz);
	}
	idx_free(idx);
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_summary_errors),
		cmocka_unit_test(test_summary_time),
		cmocka_unit_test(test_summary_sure),
		cmocka_unit_test(test_summary_lost),
		cmocka_unit_test(test_summary_damaged),
		cmocka_unit_test(test_summary_ovf_freq),
		cmocka_unit_test(test_summary_job),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
