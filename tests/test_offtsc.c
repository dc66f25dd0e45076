/*
 * test_offtsc -- the TSC at a stream offset: the last TSC before it (no
 * MTC or CYC here to refine it), forward and backward questions, none
 * before the first TSC (but the PSB+'s own at a PSB and inside its PSB+),
 * and a decode error in between; questions stepping
 * back PSB by PSB through a long run of PSBs cost a step each.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "image.h"
#include "offtsc.h"
#include "ptdec.h"
#include "trace_types.h"

#define PSB 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, \
	    2, 0x82
#define TSC(b1, b2) 0x19, b1, b2, 0, 0, 0, 0, 0
#define PSBEND 2, 0x23
#define PAD4 0, 0, 0, 0

static const uint8_t trace[] = {
	PAD4,				/* 0: no time yet */
	PSB, TSC(0x00, 0x10), PSBEND,	/* 4: tsc 0x1000 at 20 */
	0x06, PAD4,			/* 30: tnt, pads */
	PSB, TSC(0x00, 0x20), PSBEND,	/* 35: tsc 0x2000 at 51 */
	0x06, PAD4,			/* 61 */
	0x02, 0xcc, 0x00,		/* 66: a bad opcode */
	PSB, TSC(0x00, 0x30), PSBEND,	/* 69: tsc 0x3000 at 85 */
	0x06,				/* 95 */
};

static void test_offtsc(void **state)
{
	struct img img;
	struct img_span span;
	struct offtsc *ot;
	uint64_t tsc = 0;

	(void)state;
	img_init_flat(&img, &span, trace, sizeof(trace));
	assert_int_equal(offtsc_new(NULL, &img, NULL), -pte_invalid);
	assert_int_equal(offtsc_new(&ot, &img, NULL), 0);
	assert_int_equal(offtsc_at(NULL, 0, &tsc), -pte_invalid);
	assert_int_equal(offtsc_at(ot, 2, &tsc), -pte_no_time);
	/* inside a PSB+ with no TSC before it: the PSB+'s own TSC (the time
	 * of the code a decode from that PSB starts with) */
	assert_int_equal(offtsc_at(ot, 20, &tsc), 0);
	assert_int_equal(tsc, 0x1000);
	assert_int_equal(offtsc_at(ot, 4, &tsc), 0);
	assert_int_equal(tsc, 0x1000);
	assert_int_equal(offtsc_at(ot, 30, &tsc), 0);
	assert_int_equal(tsc, 0x1000);
	assert_int_equal(offtsc_at(ot, 61, &tsc), 0);
	assert_int_equal(tsc, 0x2000);
	/* past the bad bytes */
	assert_int_equal(offtsc_at(ot, 95, &tsc), 0);
	assert_int_equal(tsc, 0x3000);
	/* backwards: from the PSB before */
	assert_int_equal(offtsc_at(ot, 33, &tsc), 0);
	assert_int_equal(tsc, 0x1000);
	assert_int_equal(offtsc_at(ot, 62, &tsc), 0);
	assert_int_equal(tsc, 0x2000);
	/* at and past the end */
	assert_int_equal(offtsc_at(ot, 1000, &tsc), 0);
	assert_int_equal(tsc, 0x3000);
	offtsc_free(ot);
	offtsc_free(NULL);
}

/* Stretches of tracing: a TIP.PGE, a TIP, a TSC inside, the TIP.PGD that
 * ends it; an OVF ends one too; none ends the last. */
static const uint8_t stretches[] = {
	PSB, TSC(0x00, 0x10), PSBEND,	/* 0: tsc 0x1000 at 16 */
	0x31, 0x10, 0x20,		/* 26: tip.pge, ipc 1 */
	0x2d, 0x20, 0x20,		/* 29: tip */
	TSC(0x00, 0x11),		/* 32: tsc 0x1100 */
	0x21, 0x30, 0x20,		/* 40: tip.pgd */
	0x31, 0x10, 0x20,		/* 43: tip.pge, ipc 1 */
	TSC(0x00, 0x12),		/* 46: tsc 0x1200 */
	0x02, 0xf3,			/* 54: ovf */
	0x31, 0x10, 0x20,		/* 56: tip.pge, ipc 1 */
	0x06,				/* 59: tnt, then the end */
};

static void test_stretch_end(void **state)
{
	struct img img;
	struct img_span span;
	struct offtsc *ot;
	uint64_t tsc = 0, end = 0;

	(void)state;
	img_init_flat(&img, &span, stretches, sizeof(stretches));
	assert_int_equal(offtsc_new(&ot, &img, NULL), 0);
	assert_int_equal(offtsc_stretch_end(NULL, 26, &end, &tsc), -pte_invalid);
	assert_int_equal(offtsc_stretch_end(ot, 26, &end, &tsc), 0);
	assert_int_equal(end, 40);
	assert_int_equal(tsc, 0x1100);
	/* a question inside the same stretch: the same answer */
	tsc = end = 0;
	assert_int_equal(offtsc_stretch_end(ot, 29, &end, &tsc), 0);
	assert_int_equal(end, 40);
	assert_int_equal(tsc, 0x1100);
	assert_int_equal(offtsc_stretch_end(ot, 43, &end, &tsc), 0);
	assert_int_equal(end, 54);
	assert_int_equal(tsc, 0x1200);
	/* the last stretch has no end */
	assert_int_equal(offtsc_stretch_end(ot, 56, &end, &tsc), 1);
	/* and backwards again */
	assert_int_equal(offtsc_stretch_end(ot, 29, &end, &tsc), 0);
	assert_int_equal(end, 40);
	assert_int_equal(tsc, 0x1100);
	/* the time at a packet is still the time before it */
	assert_int_equal(offtsc_at(ot, 26, &tsc), 0);
	assert_int_equal(tsc, 0x1000);
	offtsc_free(ot);
}

/* CPU seconds of questions at every PSB of @n back-to-back PSBs (and a
 * PSBEND), last to first: each restarts at the PSB before. */
static double back_through_psbs(size_t n)
{
	static const uint8_t one[] = { PSB };
	uint8_t *buf = malloc(n * 16 + 2);
	struct img_span span;
	struct offtsc *ot;
	struct timespec a, b;
	struct img img;
	uint64_t tsc;
	size_t i;

	assert_non_null(buf);
	for (i = 0; i < n; i++)
		memcpy(buf + 16 * i, one, 16);
	buf[16 * n] = 2;
	buf[16 * n + 1] = 0x23;
	img_init_flat(&img, &span, buf, n * 16 + 2);
	assert_int_equal(offtsc_new(&ot, &img, NULL), 0);
	assert_int_equal(offtsc_at(ot, 16 * n, &tsc), -pte_no_time);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
	for (i = n; i-- > 0;)
		assert_int_equal(offtsc_at(ot, 16 * i + 1, &tsc), -pte_no_time);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
	offtsc_free(ot);
	free(buf);
	return (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
}

/* The reader keeps the run it found (struct pkt_runs): four times the
 * PSBs cost about four times as much, not sixteen (t_limits' measure;
 * the best of three, so another process's burst does not count). */
static void test_psb_run_backwards(void **state)
{
	double t1 = 1e9, t4 = 1e9, t;
	int k;

	(void)state;
	for (k = 0; k < 3; k++) {
		t = back_through_psbs(8192);
		t1 = t < t1 ? t : t1;
		t = back_through_psbs(4 * 8192);
		t4 = t < t4 ? t : t4;
	}
	print_message("%.4fs, 4x the PSBs %.4fs\n", t1, t4);
	assert_true(t4 < 10 * (t1 + 0.001));
}

/* The trace's time origin: the earliest first TSC of its streams, each
 * from its first PSB+; a stream without one counts for nothing. */
static void test_streams_first(void **state)
{
	static const uint8_t early[] = {
		PAD4, PSB, TSC(0x00, 0x08), PSBEND, 0x06,	/* tsc 0x800 */
	};
	static const uint8_t none[] = { PAD4, PSB, PSBEND, 0x06, PAD4 };
	struct trace_stream st[3];
	struct img_span sp[3];
	struct trace t;
	uint64_t tsc = 0;

	(void)state;
	memset(st, 0, sizeof(st));
	memset(&t, 0, sizeof(t));
	img_init_flat(&st[0].img, &sp[0], trace, sizeof(trace));
	img_init_flat(&st[1].img, &sp[1], none, sizeof(none));
	img_init_flat(&st[2].img, &sp[2], early, sizeof(early));
	assert_int_equal(offtsc_first(&st[0].img, &st[0].timing, &tsc), 0);
	assert_int_equal(tsc, 0x1000);
	assert_int_equal(offtsc_first(&st[1].img, &st[1].timing, &tsc), -pte_no_time);
	assert_int_equal(offtsc_first(NULL, &st[0].timing, &tsc), -pte_invalid);
	t.streams = st;
	t.nstreams = 3;
	assert_int_equal(offtsc_streams_first(&t, SIZE_MAX, NULL, &tsc), 0);
	assert_int_equal(tsc, 0x800);
	/* the shown stream's own is the caller's */
	assert_int_equal(offtsc_streams_first(&t, 2, NULL, &tsc), 0);
	assert_int_equal(tsc, 0x1000);
	/* near the shown stream's origin, which its index checked: a first
	 * TSC more than a minute before it (2^36 ticks without a frequency)
	 * is a damaged one, left out */
	{
		uint64_t near = 0x800 + (1ull << 36) + 1;

		assert_int_equal(offtsc_streams_first(&t, SIZE_MAX, &near, &tsc), 0);
		assert_int_equal(tsc, 0x1000);
		near = 0x800 + (1ull << 36);
		assert_int_equal(offtsc_streams_first(&t, SIZE_MAX, &near, &tsc), 0);
		assert_int_equal(tsc, 0x800);
	}
	t.nstreams = 2;
	assert_int_equal(offtsc_streams_first(&t, 0, NULL, &tsc), -pte_no_time);
	assert_int_equal(offtsc_streams_first(NULL, 0, NULL, &tsc), -pte_invalid);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_offtsc),
		cmocka_unit_test(test_stretch_end),
		cmocka_unit_test(test_psb_run_backwards),
		cmocka_unit_test(test_streams_first),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
