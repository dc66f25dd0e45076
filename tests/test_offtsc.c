/*
 * test_offtsc -- the TSC at a stream offset: the last TSC before it (no
 * MTC or CYC here to refine it), forward and backward questions, none
 * before the first TSC, and a decode error in between.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "image.h"
#include "offtsc.h"
#include "ptdec.h"

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
	/* the TSC packet itself: not yet fed */
	assert_int_equal(offtsc_at(ot, 20, &tsc), -pte_no_time);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_offtsc),
		cmocka_unit_test(test_stretch_end),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
