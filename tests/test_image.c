/* test_image -- spans, stitching packets across them, gaps, PSB search. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "image.h"

#define PSB_BYTES 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, \
		  0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82

static const uint8_t stream[] = {
	PSB_BYTES,					/* 0 */
	0x19, 1, 2, 3, 4, 5, 6, 7,			/* 16 tsc */
	0x02, 0x23,					/* 24 psbend */
	0xcd, 1, 2, 3, 4, 5, 6, 7, 8,			/* 26 tip full */
	0x06, 0x06,					/* 35 tnt.8 x2 */
	PSB_BYTES,					/* 37 */
	0x02, 0x23,					/* 53 psbend */
	0x00,						/* 55 pad */
};

/* The packets of a single flat span, as the reference. */
static int walk(const struct img *img, uint64_t *offs, uint8_t *types, int max)
{
	struct img_cursor cur;
	struct pkt pkt;
	int n = 0, r;

	assert_int_equal(img_cursor_init(&cur, img, 0), 0);
	while ((r = img_cursor_next(&cur, &pkt)) > 0 && n < max) {
		offs[n] = pkt.offset;
		types[n] = pkt.type;
		n++;
	}
	assert_int_equal(r, -pte_eos);
	return n;
}

/* Split the stream at every possible pair of cut points into three spans
 * (heap copies of exactly their bytes, so ASan sees overreads); the packets
 * must not change. */
static void test_stitch_everywhere(void **state __attribute__((unused)))
{
	struct img_span flat;
	struct img img;
	uint64_t ref_off[64], off[64];
	uint8_t ref_type[64], type[64];
	int nref, n;
	size_t a, b, sz = sizeof(stream);

	img_init_flat(&img, &flat, stream, sz);
	nref = walk(&img, ref_off, ref_type, 64);
	assert_int_equal(nref, 9);

	for (a = 1; a < sz; a++) {
		for (b = a; b < sz; b++) {
			struct img_span spans[3];
			uint8_t *p[3];
			size_t cut[4] = { 0, a, b, sz }, i, ns = 0;

			for (i = 0; i < 3; i++) {
				size_t len = cut[i + 1] - cut[i];

				if (!len)
					continue;
				p[ns] = malloc(len);
				memcpy(p[ns], stream + cut[i], len);
				memset(&spans[ns], 0, sizeof(spans[ns]));
				spans[ns].data = p[ns];
				spans[ns].off = cut[i];
				spans[ns].size = len;
				ns++;
			}
			img.spans = spans;
			img.nspans = ns;
			img.size = sz;
			n = walk(&img, off, type, 64);
			assert_int_equal(n, nref);
			assert_memory_equal(off, ref_off, sizeof(off[0]) * (size_t)n);
			assert_memory_equal(type, ref_type, (size_t)n);
			for (i = 0; i < ns; i++)
				free(p[i]);
		}
	}
}

/* A gap between spans cutting a packet: no packet is joined across it; the
 * cursor reports the loss as -pte_gap at the cut packet's start (not as a
 * truncated packet) and goes on at the next PSB. */
static void test_gap(void **state __attribute__((unused)))
{
	struct img_span spans[2];
	struct img img;
	struct img_cursor cur;
	struct pkt pkt;
	int r, gaps = 0, errs = 0, n = 0;

	memset(spans, 0, sizeof(spans));
	spans[0].data = stream;
	spans[0].size = 30;		/* cuts the tip */
	spans[1].data = stream + 30;
	spans[1].off = 30;
	spans[1].size = sizeof(stream) - 30;
	spans[1].gap_before = 1;
	img.spans = spans;
	img.nspans = 2;
	img.size = sizeof(stream);
	img_cursor_init(&cur, &img, 0);
	for (;;) {
		r = img_cursor_next(&cur, &pkt);
		if (r == -pte_eos)
			break;
		if (r < 0) {
			errs++;
			assert_int_equal(r, -pte_gap);
			assert_int_equal(pkt.offset, 26);
			assert_int_equal(img_cursor_offset(&cur), 37);
			assert_true(cur.gap);
			gaps++;
			cur.gap = 0;
			continue;
		}
		n++;
		if (cur.gap) {
			gaps++;
			cur.gap = 0;
		}
	}
	assert_int_equal(errs, 1);
	assert_int_equal(gaps, 1);
	assert_int_equal(n, 3 + 3);
}

/*
 * A gap right after a whole packet: the bytes after it, up to the next PSB,
 * are not decoded (the span starts inside the tip here, at 28, whose last
 * bytes would read as packets); the cursor reports -pte_gap at the gap and
 * goes on at the PSB, once whether or not a PSB follows.
 */
static void test_gap_resync(void **state __attribute__((unused)))
{
	static const size_t cuts[] = { 28, 37, 50 };
	size_t k;

	for (k = 0; k < 3; k++) {
		struct img_span spans[2];
		struct img img;
		struct img_cursor cur;
		struct pkt pkt;
		uint64_t offs[16];
		int r, n = 0, gaps = 0;

		memset(spans, 0, sizeof(spans));
		spans[0].data = stream;
		spans[0].size = 26;		/* up to the tip */
		spans[1].data = stream + cuts[k];
		spans[1].off = 26;
		spans[1].size = sizeof(stream) - cuts[k];
		spans[1].gap_before = 1;
		img.spans = spans;
		img.nspans = 2;
		img.size = 26 + spans[1].size;
		img_cursor_init(&cur, &img, 0);
		for (;;) {
			r = img_cursor_next(&cur, &pkt);
			if (r == -pte_eos)
				break;
			if (r < 0) {
				assert_int_equal(r, -pte_gap);
				assert_int_equal(pkt.offset, 26);
				assert_true(cur.gap);
				cur.gap = 0;
				gaps++;
				continue;
			}
			assert_true(n < 16);
			offs[n++] = pkt.offset;
		}
		assert_int_equal(gaps, 1);
		/* psb, tsc, psbend; then from the PSB after the gap, if any */
		assert_int_equal(offs[0], 0);
		assert_int_equal(offs[2], 24);
		if (k < 2) {
			/* the PSB at 37 is now at 26 + 37 - cut */
			assert_int_equal(n, 3 + 3);
			assert_int_equal(offs[3], 26 + 37 - cuts[k]);
		} else {
			assert_int_equal(n, 3);
		}
	}
}

static void test_read_and_psb(void **state __attribute__((unused)))
{
	struct img_span spans[2];
	struct img img;
	uint8_t buf[16];
	uint64_t psb;

	memset(spans, 0, sizeof(spans));
	spans[0].data = stream;
	spans[0].size = 40;
	spans[1].data = stream + 40;
	spans[1].off = 40;
	spans[1].size = sizeof(stream) - 40;
	img.spans = spans;
	img.nspans = 2;
	img.size = sizeof(stream);
	assert_int_equal(img_span_of(&img, 39), 0);
	assert_int_equal(img_span_of(&img, 40), 1);
	assert_int_equal(img_span_of(&img, sizeof(stream)), -1);
	assert_int_equal(img_read(&img, 36, buf, 8), 8);
	assert_memory_equal(buf, stream + 36, 8);
	/* The PSB at 37 straddles the two spans and is still found. */
	assert_int_equal(img_find_psb_before(&img, sizeof(stream), &psb), 0);
	assert_int_equal(psb, 37);
	assert_int_equal(img_find_psb_before(&img, 37, &psb), 0);
	assert_int_equal(psb, 0);
	{
		struct img_cursor cur;

		img_cursor_init(&cur, &img, 0);
		assert_int_equal(img_cursor_sync_forward(&cur, 1), 0);
		assert_int_equal(img_cursor_offset(&cur), 37);
	}
	assert_int_equal(img_find_psb_before(&img, 0, &psb), -pte_nosync);
	spans[0].size = 37;
	spans[1].data = stream + 37;
	spans[1].off = 37;
	spans[1].size = sizeof(stream) - 37;
	assert_int_equal(img_find_psb_before(&img, sizeof(stream), &psb), 0);
	assert_int_equal(psb, 37);
	assert_int_equal(img_find_psb_before(&img, 37, &psb), 0);
	assert_int_equal(psb, 0);
}

/*
 * A run of 02 82 pairs longer than a PSB, cut by a seam: its PSB ends where
 * the whole run ends, as in the flat bytes, though neither span alone holds
 * 16 bytes of it.  (fuzz_image found this.)
 */
static void test_run_across_seam(void **state __attribute__((unused)))
{
	uint8_t run[28];
	struct img_span spans[3];
	struct img img;
	struct img_cursor cur;
	uint64_t psb;
	size_t i, cut;

	for (i = 0; i < 24; i += 2) {
		run[i] = 0x02;
		run[i + 1] = 0x82;
	}
	run[24] = 0x02;
	run[25] = 0x23;
	run[26] = run[27] = 0;
	for (cut = 1; cut < 26; cut++) {
		memset(spans, 0, sizeof(spans));
		spans[0].data = run;
		spans[0].size = cut;
		spans[1].data = run + cut;
		spans[1].off = cut;
		spans[1].size = sizeof(run) - cut;
		img.spans = spans;
		img.nspans = 2;
		img.size = sizeof(run);
		assert_int_equal(img_cursor_init(&cur, &img, 0), 0);
		assert_int_equal(img_cursor_sync_forward(&cur, 0), 0);
		assert_int_equal(img_cursor_offset(&cur), 8);
		assert_int_equal(img_find_psb_before(&img, sizeof(run), &psb), 0);
		assert_int_equal(psb, 8);
		assert_int_equal(img_find_psb_before(&img, 8, &psb),
				 -pte_nosync);
		/* Behind a gap the run is cut: no PSB in either part. */
		spans[1].gap_before = 1;
		if (cut > 8 && cut < 16) {
			assert_int_equal(img_cursor_sync_forward(&cur, 0),
					 -pte_nosync);
		}
	}
}

/* PSBs one by one, as `info` counted them before img_count_psbs(). */
static uint64_t count_stepwise(const struct img *img)
{
	struct img_cursor cur;
	uint64_t off, n = 0;

	for (off = 0; !img_cursor_init(&cur, img, off) &&
	     !img_cursor_sync_forward(&cur, off); off = img_cursor_offset(&cur) + 1)
		n++;
	return n;
}

/*
 * Random bytes rich in 02 82 runs of every length and alignment, cut into
 * spans with and without gaps: the one-pass count is the step-by-step one.
 */
static void test_count_psbs(void **state __attribute__((unused)))
{
	uint8_t buf[600];
	struct img_span spans[4];
	struct img img;
	unsigned seed = 12345;
	size_t i, k, ns;
	int round;

	assert_int_equal(img_count_psbs(NULL), 0);
	for (round = 0; round < 3000; round++) {
		size_t len = 1 + rand_r(&seed) % sizeof(buf), cuts[4];

		for (i = 0; i < len;) {
			size_t run = (size_t)(rand_r(&seed) % 3 ? 0 : rand_r(&seed) % 80);

			if (rand_r(&seed) % 2 && i < len)
				buf[i++] = (uint8_t)(rand_r(&seed) % 3 ? 0 : 0x82);
			for (k = 0; k < run && i + 1 < len; k++, i += 2) {
				buf[i] = 0x02;
				buf[i + 1] = 0x82;
			}
			if (i < len)
				buf[i++] = (uint8_t)rand_r(&seed);
		}
		ns = 1 + rand_r(&seed) % 4;
		cuts[0] = 0;
		for (k = 1; k < ns; k++)
			cuts[k] = cuts[k - 1] + (len - cuts[k - 1]) *
				  (size_t)(rand_r(&seed) % 100) / 100;
		memset(spans, 0, sizeof(spans));
		for (k = 0; k < ns; k++) {
			size_t end = k + 1 < ns ? cuts[k + 1] : len;

			spans[k].data = buf + cuts[k];
			spans[k].off = cuts[k];
			spans[k].size = end - cuts[k];
			spans[k].gap_before = k && rand_r(&seed) % 2;
		}
		img.spans = spans;
		img.nspans = ns;
		img.size = len;
		if (count_stepwise(&img) != img_count_psbs(&img))
			fail_msg("round %d: %llu stepwise, %llu counted", round,
				 (unsigned long long)count_stepwise(&img),
				 (unsigned long long)img_count_psbs(&img));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stitch_everywhere),
		cmocka_unit_test(test_gap),
		cmocka_unit_test(test_gap_resync),
		cmocka_unit_test(test_read_and_psb),
		cmocka_unit_test(test_run_across_seam),
		cmocka_unit_test(test_count_psbs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
