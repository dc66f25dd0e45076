/* test_window -- lazy windows: every packet exactly once, both ways. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"
#include "image.h"
#include "index.h"
#include "pkt.h"
#include "window.h"

static const char *const traces[] = {
	"dynamorio-drpt2trace/head_test_simple.raw.pt.bin",
	"dynamorio-drpt2trace/hist_2aad718d_test_simple.tracedir.pt.bin",
	"dynamorio-drpt2trace/hist_316e5058_drptpostprocessor.pt.bin",
	"keeper-perf-event-sample/traced_data.bin",
	"quipper-perf-intel-pt/perf.data.intel_pt-4.14.idx0.cpu0.pt",
	"quipper-perf-intel-pt/perf.data.intel_pt-4.14.idx3.cpu3.pt",
	"quipper-perf-intel-pt/perf.data.piped.intel_pt-4.14.idx0.cpu0.pt",
	"quipper-perf-intel-pt/perf.data.piped.intel_pt-4.14.idx3.cpu3.pt",
};

/* A mapped file. */
/* One packet of the reference walk. */
struct ref {
	uint64_t off;
	uint8_t type;
	uint8_t size;
};

/*
 * The reference: a plain pkt_next walk from the first PSB (ptdump's start),
 * re-synchronising at the next PSB after an error.  Error positions are
 * recorded with type PKT_INVALID.
 */
static size_t ref_walk(const uint8_t *buf, size_t size, struct ref **out)
{
	struct pkt_decoder dec;
	struct ref *r = NULL;
	size_t n = 0, cap = 0;
	struct pkt pkt;

	const uint8_t *first = pkt_find_psb(buf, buf + size);

	assert_int_equal(pkt_decoder_init(&dec, buf, buf + size, 0), 0);
	*out = NULL;
	if (!first)
		return 0;
	assert_int_equal(pkt_sync_set(&dec, (uint64_t)(first - buf)), 0);
	for (;;) {
		int s = pkt_next(&dec, &pkt);

		if (s == -pte_eos)
			break;
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			r = realloc(r, cap * sizeof(*r));
			assert_non_null(r);
		}
		r[n].off = pkt_offset(&dec);
		if (s < 0) {
			r[n].type = PKT_INVALID;
			r[n].size = 0;
			n++;
			if (pkt_sync_forward(&dec) < 0)
				break;
			continue;
		}
		r[n].off = pkt.offset;
		r[n].type = pkt.type;
		r[n].size = pkt.size;
		n++;
	}
	*out = r;
	return n;
}

/* Check the window rows of @img, visited forward from offset 0 and then
 * backward from the end, against the reference walk. */
static void check_walk(const uint8_t *buf, size_t size, size_t max_bytes)
{
	struct img_span span;
	struct img img;
	struct win_cache *wc;
	struct win_iter it = { 0 };
	struct ref *ref;
	size_t nref = ref_walk(buf, size, &ref), i = 0, nrows = 0, k;
	uint64_t *offs = NULL, expect = 0;
	size_t cap = 0;
	const struct win_row *row;

	img_init_flat(&img, &span, buf, size);
	assert_int_equal(win_cache_new(&wc, &img, NULL, max_bytes), 0);
	assert_int_equal(win_seek(&it, wc, 0), 0);
	do {
		row = win_row(&it);
		assert_non_null(row);
		/* No gap and no duplicate: each row starts where the last ended. */
		assert_int_equal(row->pkt.offset, expect);
		assert_true(row->size > 0);
		expect = row->pkt.offset + row->size;
		if (nrows == cap) {
			cap = cap ? cap * 2 : 1024;
			offs = realloc(offs, cap * sizeof(*offs));
			assert_non_null(offs);
		}
		offs[nrows++] = row->pkt.offset;
		if (row->flags & WIN_F_PRE_PSB)
			continue;	/* ptdump shows nothing before the first PSB */
		assert_true(i < nref);
		assert_int_equal(row->pkt.offset, ref[i].off);
		if (row->flags & WIN_F_ERROR) {
			assert_int_equal(ref[i].type, PKT_INVALID);
			assert_true(row->err < 0);
		} else {
			assert_int_equal(row->pkt.type, ref[i].type);
			assert_int_equal(row->pkt.size, ref[i].size);
		}
		i++;
	} while (win_next(&it) == 0);
	assert_int_equal(i, nref);
	assert_int_equal(expect, size);

	/* The same rows backward. */
	k = nrows;
	do {
		row = win_row(&it);
		assert_true(k > 0);
		assert_int_equal(row->pkt.offset, offs[--k]);
	} while (win_prev(&it) == 0);
	assert_int_equal(k, 0);

	/* Seeking lands on the row holding the offset. */
	for (k = 0; k < 64; k++) {
		uint64_t off = (uint64_t)k * size / 64 + k;

		assert_int_equal(win_seek(&it, wc, off), 0);
		row = win_row(&it);
		assert_true(row->pkt.offset <= off || off >= size);
		if (off < size)
			assert_true(off < row->pkt.offset + row->size);
	}
	win_iter_release(&it);
	if (max_bytes >= (64 << 20))
		assert_true(win_cache_bytes(wc) > 0);
	win_cache_free(wc);
	free(offs);
	free(ref);
}

static void test_null(void **state)
{
	struct win_cache *wc;
	struct win_iter it = { 0 };
	struct img_span span;
	struct img img;

	assert_int_equal(win_cache_new(NULL, NULL, NULL, 0), -pte_invalid);
	assert_int_equal(win_cache_new(&wc, NULL, NULL, 0), -pte_invalid);
	assert_int_equal(win_next(NULL), -pte_invalid);
	assert_int_equal(win_prev(&it), -pte_invalid);
	assert_null(win_row(&it));
	win_cache_free(NULL);

	img_init_flat(&img, &span, (const uint8_t *)"", 0);
	assert_int_equal(win_cache_new(&wc, &img, NULL, 1 << 20), 0);
	assert_int_equal(win_seek(&it, wc, 0), -pte_eos);
	assert_int_equal(win_prefetch(wc, 0, 1), -pte_eos);
	win_iter_release(&it);
	win_cache_free(wc);
}

static void test_shared_traces(void **state)
{
	size_t t;

	for (t = 0; t < sizeof(traces) / sizeof(traces[0]); t++) {
		struct helpers_map m;

		if (helpers_map_shared(traces[t], &m) < 0) {
			print_error("cannot open %s (SHARED?)\n", traces[t]);
			fail();
		}
		check_walk(m.data, m.size, 64 << 20);
		/* A cache too small for two windows: eviction and re-decoding
		 * must give the same rows. */
		check_walk(m.data, m.size, 0);
		munmap(m.data, m.size);
	}
}

static const uint8_t psb[16] = {
	0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
	0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
};

static size_t put(uint8_t *buf, size_t at, const void *p, size_t n)
{
	memcpy(buf + at, p, n);
	return at + n;
}

/* Bytes before the first PSB form their own window; they are followed by
 * the PSB with nothing missing. */
static void test_pre_psb(void **state)
{
	struct helpers_map m;
	struct img_span span;
	struct img img;
	struct win_cache *wc;
	struct win_iter it = { 0 };
	const struct win_row *row;

	if (helpers_map_shared(traces[1], &m) < 0)
		fail();
	img_init_flat(&img, &span, m.data, m.size);
	assert_int_equal(win_cache_new(&wc, &img, NULL, 1 << 20), 0);
	assert_int_equal(win_seek(&it, wc, 3), 0);
	row = win_row(&it);
	assert_true(row->flags & WIN_F_PRE_PSB);
	assert_true(row->pkt.offset <= 3);
	while (win_row(&it)->pkt.offset < 8)
		assert_int_equal(win_next(&it), 0);
	row = win_row(&it);
	assert_int_equal(row->pkt.offset, 8);
	assert_int_equal(row->pkt.type, PKT_PSB);
	assert_false(row->flags & WIN_F_PRE_PSB);
	assert_int_equal(win_prev(&it), 0);
	assert_true(win_row(&it)->flags & WIN_F_PRE_PSB);
	win_iter_release(&it);
	win_cache_free(wc);
	munmap(m.data, m.size);
}

/*
 * Cycles seemingly counted by bytes before the first PSB are no time of
 * the trace's: without an index, the first segment counts from its PSB
 * whether the pre-PSB window was walked through or not (as dump and the
 * index do), and so does the segment after it.
 */
static void test_pre_psb_cycles(void **state)
{
	enum { PRE = 10, PER = 5 };
	uint8_t buf[2 * (PRE + 2 * (16 + 2 + 2 * PER))];
	size_t n = 0, k, i;
	uint64_t starts[2];
	struct img_span span;
	struct img img;
	struct win_cache *wc;
	struct win_iter it = { 0 };
	const struct win_row *row;
	int pass;

	(void)state;
	for (i = 0; i < PRE; i++) {
		buf[n++] = (7 << 3) | 3;	/* cyc 7 */
		buf[n++] = 0x06;		/* tnt.8 */
	}
	for (k = 0; k < 2; k++) {
		starts[k] = n;
		n = put(buf, n, psb, 16);
		buf[n++] = 0x02;
		buf[n++] = 0x23;		/* psbend */
		for (i = 0; i < PER; i++) {
			buf[n++] = (1 << 3) | 3;	/* cyc 1 */
			buf[n++] = 0x06;		/* tnt.8 */
		}
	}
	img_init_flat(&img, &span, buf, n);
	for (pass = 0; pass < 2; pass++) {
		/* From the start, through the pre-PSB window; then a seek
		 * straight to the first PSB. */
		assert_int_equal(win_cache_new(&wc, &img, NULL, 1 << 20), 0);
		assert_int_equal(win_seek(&it, wc, pass ? starts[0] : 0), 0);
		if (!pass) {
			row = win_row(&it);
			assert_true(row->flags & WIN_F_PRE_PSB);
			while (win_row(&it)->pkt.offset < starts[0])
				assert_int_equal(win_next(&it), 0);
		}
		do {
			row = win_row(&it);
			assert_false(row->flags & (WIN_F_PRE_PSB | WIN_F_SEG_REL));
			if (row->pkt.offset == starts[0])
				assert_int_equal(row->ts.cycles, 0);
			if (row->pkt.offset + row->size == starts[1])
				assert_int_equal(row->ts.cycles, PER);
		} while (!win_next(&it));
		assert_int_equal(row->pkt.offset + row->size, n);
		assert_int_equal(row->ts.cycles, 2 * PER);
		win_iter_release(&it);
		win_cache_free(wc);
	}
}

/* A bad opcode becomes one error row up to the next PSB; rows resume
 * there, and an IP after the PSB starts from a reset last IP. */
static void test_error_row(void **state)
{
	static const uint8_t psbend[2] = { 0x02, 0x23 };
	static const uint8_t bad[4] = { 0x02, 0x01, 0x00, 0x00 };
	static const uint8_t tip16[3] = { 0x2d, 0x34, 0x12 };	/* tip 1: 1234 */
	uint8_t buf[128];
	size_t n = 0, bad_at, psb2;
	struct img_span span;
	struct img img;
	struct win_cache *wc;
	struct win_iter it = { 0 };
	const struct win_row *row;

	n = put(buf, n, psb, 16);
	n = put(buf, n, psbend, 2);
	bad_at = n;
	n = put(buf, n, bad, 4);
	psb2 = n;
	n = put(buf, n, psb, 16);
	n = put(buf, n, psbend, 2);
	n = put(buf, n, tip16, 3);
	img_init_flat(&img, &span, buf, n);
	assert_int_equal(win_cache_new(&wc, &img, NULL, 1 << 20), 0);
	assert_int_equal(win_seek(&it, wc, bad_at + 1), 0);
	row = win_row(&it);
	assert_true(row->flags & WIN_F_ERROR);
	assert_int_equal(row->pkt.offset, bad_at);
	assert_int_equal(row->size, psb2 - bad_at);
	assert_int_equal(row->err, -pte_bad_opc);
	assert_int_equal(win_next(&it), 0);
	assert_int_equal(win_row(&it)->pkt.type, PKT_PSB);
	assert_int_equal(win_row(&it)->pkt.offset, psb2);
	assert_true(win_row(&it)->flags & WIN_F_PSBPLUS);
	assert_int_equal(win_next(&it), 0);
	assert_int_equal(win_row(&it)->pkt.type, PKT_PSBEND);
	assert_int_equal(win_next(&it), 0);
	row = win_row(&it);
	assert_int_equal(row->pkt.type, PKT_TIP);
	assert_false(row->flags & WIN_F_PSBPLUS);
	assert_true(row->flags & WIN_F_HAVE_IP);
	assert_int_equal(row->ip, 0x1234);
	assert_int_equal(win_next(&it), -pte_eos);
	assert_int_equal(win_prev(&it), 0);
	assert_int_equal(win_prev(&it), 0);
	assert_int_equal(win_prev(&it), 0);
	assert_true(win_row(&it)->flags & WIN_F_ERROR);
	win_iter_release(&it);
	win_cache_free(wc);
}

/* A segment longer than WIN_MAX_ROWS is cut into chunks that join up. */
static void test_chunks(void **state)
{
	size_t npad = WIN_MAX_ROWS * 2 + 100, n = 0, k;
	uint8_t *buf = calloc(1, npad + 64);
	struct img_span span;
	struct img img;
	struct win_cache *wc;
	struct win_iter it = { 0 };
	static const uint8_t cyc1 = 0x0b;		/* cyc 1 */
	static const uint8_t cyc[2] = { 0x07, 0x02 };	/* cyc 0x20 */

	assert_non_null(buf);
	n = put(buf, n, psb, 16);
	n = put(buf, n, &cyc1, 1);
	n += npad;			/* calloc made them pads */
	n = put(buf, n, cyc, 2);
	img_init_flat(&img, &span, buf, n);
	assert_int_equal(win_cache_new(&wc, &img, NULL, 1 << 20), 0);
	assert_int_equal(win_seek(&it, wc, n - 1), 0);
	assert_int_equal(win_row(&it)->pkt.type, PKT_CYC);
	assert_int_equal(win_row(&it)->cyc_total, 1 + 0x20);
	for (k = 0; k < npad; k++) {
		assert_int_equal(win_prev(&it), 0);
		assert_int_equal(win_row(&it)->pkt.type, PKT_PAD);
		assert_int_equal(win_row(&it)->cyc_total, 1);
	}
	assert_int_equal(win_prev(&it), 0);
	assert_int_equal(win_row(&it)->pkt.type, PKT_CYC);
	assert_int_equal(win_prev(&it), 0);
	assert_int_equal(win_row(&it)->pkt.type, PKT_PSB);
	assert_int_equal(win_prev(&it), -pte_eos);
	assert_true(win_cache_decoded(wc) >= 3);
	assert_int_equal(win_prefetch(wc, 0, 1), 0);
	win_iter_release(&it);
	win_cache_free(wc);
	free(buf);
}

/*
 * Gaps: a chunk of WIN_MAX_ROWS rows that ends right at a gap (the next
 * chunk must not decode the bytes after it as packets), and a gap right
 * before a PSB (its row is marked).  The rows, both ways, are those the
 * index counts: its ordinals name the same rows.
 */
static void test_gaps(void **state)
{
	size_t g = 16 + WIN_MAX_ROWS - 1, e1 = g + 40 + 16 + 10, n = e1 + 16 + 5;
	uint8_t *buf = calloc(1, n);	/* zeros: pads */
	struct img_span sp[3];
	struct img img;
	struct win_cache *wc;
	struct win_iter it = { 0 };
	struct idx *idx;
	struct idx_summary s;
	size_t rows = 0, k;

	(void)state;
	assert_non_null(buf);
	put(buf, 0, psb, 16);
	put(buf, g + 40, psb, 16);
	put(buf, e1, psb, 16);
	memset(sp, 0, sizeof(sp));
	sp[0].data = buf;
	sp[0].size = g;
	sp[1].data = buf + g;
	sp[1].off = g;
	sp[1].size = e1 - g;
	sp[1].gap_before = 1;
	sp[2].data = buf + e1;
	sp[2].off = e1;
	sp[2].size = n - e1;
	sp[2].gap_before = 1;
	img.spans = sp;
	img.nspans = 3;
	img.size = n;
	assert_int_equal(win_cache_new(&wc, &img, NULL, 1 << 20), 0);
	assert_int_equal(win_seek(&it, wc, 0), 0);
	do {
		const struct win_row *r = win_row(&it);

		if (rows < WIN_MAX_ROWS) {
			assert_int_equal(r->pkt.offset, rows ? 15 + rows : 0);
			assert_false(r->flags & (WIN_F_ERROR | WIN_F_GAP));
		} else if (rows == WIN_MAX_ROWS) {
			/* the gap: one row up to the next PSB */
			assert_int_equal(r->pkt.offset, g);
			assert_int_equal(r->err, -pte_gap);
			assert_int_equal(r->size, 40);
			assert_true(r->flags & WIN_F_GAP);
		} else if (r->pkt.offset == e1) {
			assert_int_equal(r->pkt.type, PKT_PSB);
			assert_true(r->flags & WIN_F_GAP);
			assert_false(r->flags & WIN_F_ERROR);
		} else {
			assert_false(r->flags & (WIN_F_ERROR | WIN_F_GAP));
		}
		rows++;
	} while (win_next(&it) == 0);
	/* psb, pads, gap; psb, 10 pads; psb, 5 pads */
	assert_int_equal(rows, WIN_MAX_ROWS + 1 + 11 + 6);
	for (k = 1; k < rows; k++)
		assert_int_equal(win_prev(&it), 0);
	assert_int_equal(win_row(&it)->pkt.offset, 0);
	assert_int_equal(win_prev(&it), -pte_eos);
	win_iter_release(&it);
	win_cache_free(wc);

	assert_int_equal(idx_new(&idx, &img, NULL), 0);
	assert_int_equal(idx_build(idx), 0);
	assert_int_equal(idx_nseeks(idx), 3);
	assert_int_equal(idx_summary(idx, 0, &s), 0);
	assert_int_equal(s.npackets, WIN_MAX_ROWS + 1);
	assert_int_equal(s.ngaps, 1);
	assert_int_equal(s.nerrors, 0);
	assert_int_equal(idx_summary(idx, 1, &s), 0);
	assert_int_equal(s.npackets, 11);
	assert_int_equal(s.ngaps, 1);	/* the one at its end */
	assert_int_equal(idx_summary(idx, 2, &s), 0);
	assert_int_equal(s.npackets, 6);
	assert_int_equal(s.ngaps, 0);
	assert_int_equal(idx_totals(idx, &s), 0);
	assert_int_equal(s.npackets, rows);
	assert_int_equal(s.ngaps, 2);
	idx_free(idx);
	free(buf);
}

/* A row of a walk from the start, to compare jumps with. */
struct ref_row {
	uint64_t off, cyc_total, ip;
};

/* The index of the last row of @ref starting at or before @off. */
static size_t ref_at(const struct ref_row *ref, size_t nrows, uint64_t off)
{
	size_t lo = 0, hi = nrows;

	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (ref[mid].off <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* A segment of @cap bytes and more (n returned): one PSB, then random
 * pads, TNTs, CYCs, MTCs and TIPs from @seed. */
static size_t long_segment(uint8_t *buf, size_t cap, uint64_t *seedp)
{
	uint64_t seed = *seedp;
	size_t n = 0;

	n = put(buf, n, psb, 16);
	while (n < cap) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		switch ((seed >> 61) & 7) {
		case 0:
			buf[n++] = 0x00;			/* pad */
			break;
		case 1:
		case 2:
			buf[n++] = (uint8_t)(((seed >> 40) & 0x7e) | 0x80);	/* tnt.8 */
			break;
		case 3:
		case 4:
			buf[n++] = (uint8_t)(((seed >> 32) & 0xf8) | 0x03);	/* cyc */
			break;
		case 5:
			buf[n++] = 0x59;			/* mtc */
			buf[n++] = (uint8_t)(seed >> 24);
			break;
		default:
			buf[n++] = 0x2d;			/* tip, 16 bits */
			buf[n++] = (uint8_t)(seed >> 16);
			buf[n++] = (uint8_t)(seed >> 8);
			break;
		}
	}
	*seedp = seed;
	return n;
}

/*
 * A segment of many chunks (a PSB period of megabytes, or no PSB after
 * the first): jumps anywhere in it give the rows of a walk from its PSB,
 * the cache stays within its bound, and once a chunk boundary has been
 * passed a jump near it decodes a chunk or two, not the segment again.
 */
static void test_long_segment(void **state)
{
	size_t cap = 3u << 20, n = 0, nrows = 0, rcap = 0, k, nchunks;
	uint8_t *buf = malloc(cap + 64);
	struct ref_row *ref = NULL;
	struct img_span span;
	struct img img;
	struct win_cache *wc;
	struct win_iter it = { 0 };
	const size_t max_bytes = 4 * WIN_MAX_ROWS * sizeof(struct win_row);
	uint64_t seed = 99, before, worst = 0;

	(void)state;
	assert_non_null(buf);
	n = long_segment(buf, cap, &seed);
	img_init_flat(&img, &span, buf, n);
	/* The reference: every row, walked from the start. */
	assert_int_equal(win_cache_new(&wc, &img, NULL, 64u << 20), 0);
	assert_int_equal(win_seek(&it, wc, 0), 0);
	do {
		const struct win_row *row = win_row(&it);

		if (nrows == rcap) {
			rcap = rcap ? 2 * rcap : 1 << 16;
			ref = realloc(ref, rcap * sizeof(*ref));
			assert_non_null(ref);
		}
		ref[nrows].off = row->pkt.offset;
		ref[nrows].cyc_total = row->cyc_total;
		ref[nrows].ip = row->ip;
		nrows++;
	} while (!win_next(&it));
	win_iter_release(&it);
	win_cache_free(wc);
	assert_true(nrows > 100 * WIN_MAX_ROWS);

	/* Jumps, with a cache of four windows. */
	assert_int_equal(win_cache_new(&wc, &img, NULL, max_bytes), 0);
	for (k = 0; k < 300; k++) {
		uint64_t off;
		size_t lo;
		const struct win_row *row;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		off = k == 0 ? n - 1 : (seed >> 20) % n;
		before = win_cache_decoded(wc);
		assert_int_equal(win_seek(&it, wc, off), 0);
		/* after the first jump to the end, every chunk start is known */
		if (k > 0)
			assert_true(win_cache_decoded(wc) - before <= 1);
		lo = ref_at(ref, nrows, off);
		row = win_row(&it);
		assert_int_equal(row->pkt.offset, ref[lo].off);
		assert_int_equal(row->cyc_total, ref[lo].cyc_total);
		assert_int_equal(row->ip, ref[lo].ip);
		/* a few steps each way cross chunk boundaries seamlessly */
		if (k % 10 == 0) {
			size_t j;

			for (j = 1; j < 5000 && lo + j < nrows; j++) {
				assert_int_equal(win_next(&it), 0);
				assert_int_equal(win_row(&it)->pkt.offset, ref[lo + j].off);
				assert_int_equal(win_row(&it)->cyc_total,
						 ref[lo + j].cyc_total);
			}
		}
		assert_true(win_cache_bytes(wc) <=
			    max_bytes + WIN_MAX_ROWS * sizeof(struct win_row));
	}
	win_iter_release(&it);
	nchunks = win_cache_chunks(wc);
	win_cache_free(wc);

	/* Past the limit on chunk starts every other one goes, not all: a jump
	 * decodes a few chunks more, not the segment from its PSB. */
	assert_int_equal(win_cache_new(&wc, &img, NULL, max_bytes), 0);
	win_cache_set_max_chunks(wc, 16);
	for (k = 0; k < 200; k++) {
		uint64_t off;
		size_t lo;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		off = k == 0 ? n - 1 : (seed >> 20) % n;
		before = win_cache_decoded(wc);
		assert_int_equal(win_seek(&it, wc, off), 0);
		assert_true(win_cache_chunks(wc) <= 16);
		if (k > 0 && win_cache_decoded(wc) - before > worst)
			worst = win_cache_decoded(wc) - before;
		lo = ref_at(ref, nrows, off);
		assert_int_equal(win_row(&it)->pkt.offset, ref[lo].off);
		assert_int_equal(win_row(&it)->cyc_total, ref[lo].cyc_total);
		assert_int_equal(win_row(&it)->ip, ref[lo].ip);
	}
	/* 16 marks over the segment, at least 8 after a thinning: no jump
	 * decodes more than two spans of them (clearing them all made it
	 * the whole segment, 470 chunks). */
	assert_true(worst <= 2 * nchunks / 16 + 2);
	win_iter_release(&it);
	win_cache_free(wc);
	free(ref);
	free(buf);
}

/* A watch that stops a walk at its @stop_at'th tick. */
struct watch_rec {
	unsigned ticks, stop_at;
	uint64_t seg, seg_end, last_at;
	int ordered;
	uint64_t want;
};

static int watch_tick(void *ctx, uint64_t seg, uint64_t at, uint64_t seg_end, uint64_t want)
{
	struct watch_rec *w = ctx;

	w->want = want;

	if (w->ticks && at <= w->last_at)
		w->ordered = 0;
	w->seg = seg;
	w->seg_end = seg_end;
	w->last_at = at;
	return ++w->ticks == w->stop_at;
}

/*
 * A walk deep into a long segment is watched a chunk at a time and can be
 * stopped: the seek fails with -pte_canceled, the iterator keeps its row,
 * and the walk asked again resumes where it stopped, with the rows a walk
 * from the PSB gives.
 */
static void test_watch(void **state)
{
	size_t cap = 1u << 20, n;
	uint8_t *buf = malloc(cap + 64);
	uint64_t seed = 7, before, total;
	struct watch_rec rec = { 0, 10, 0, 0, 0, 1 };
	struct win_watch watch = { watch_tick, &rec };
	struct img_span span;
	struct img img;
	struct win_cache *wc, *ref;
	struct win_iter it = { 0 }, rit = { 0 };

	(void)state;
	assert_non_null(buf);
	n = long_segment(buf, cap, &seed);
	img_init_flat(&img, &span, buf, n);
	/* the reference: the last row, and the chunks a walk to it decodes */
	assert_int_equal(win_cache_new(&ref, &img, NULL, 64u << 20), 0);
	assert_int_equal(win_seek(&rit, ref, n - 1), 0);
	total = win_cache_decoded(ref);
	assert_true(total > 20);

	assert_int_equal(win_cache_new(&wc, &img, NULL, 64u << 20), 0);
	win_cache_set_watch(wc, &watch);
	assert_int_equal(win_seek(&it, wc, 0), 0);
	assert_int_equal(win_seek(&it, wc, n - 1), -pte_canceled);
	assert_int_equal(rec.ticks, 10);
	assert_true(rec.ordered);
	assert_int_equal(rec.seg, 0);
	assert_int_equal(rec.seg_end, n);
	assert_true(rec.last_at > 0 && rec.last_at < n);
	assert_int_equal(rec.want, n - 1);
	/* the iterator kept its row; a step needs no walk */
	assert_int_equal(win_row(&it)->pkt.offset, 0);
	assert_int_equal(win_next(&it), 0);
	/* the stop is not remembered: a failure after it is its own */
	assert_int_equal(win_seek(&it, wc, 0), 0);
	assert_int_equal(win_prev(&it), -pte_eos);

	/* asked again, unwatched: on from the tenth chunk, not the PSB */
	win_cache_set_watch(wc, NULL);
	before = win_cache_decoded(wc);
	assert_int_equal(win_seek(&it, wc, n - 1), 0);
	assert_true(win_cache_decoded(wc) - before <= total - 10);
	assert_int_equal(win_row(&it)->pkt.offset, win_row(&rit)->pkt.offset);
	assert_int_equal(win_row(&it)->cyc_total, win_row(&rit)->cyc_total);
	assert_int_equal(win_row(&it)->ip, win_row(&rit)->ip);
	/* a prefetch stopped says so too */
	win_iter_release(&it);
	win_cache_free(wc);
	assert_int_equal(win_cache_new(&wc, &img, NULL, 64u << 20), 0);
	memset(&rec, 0, sizeof(rec));
	rec.stop_at = 1;
	rec.ordered = 1;
	win_cache_set_watch(wc, &watch);
	assert_int_equal(win_seek(&it, wc, 0), 0);
	assert_int_equal(win_prefetch(wc, n - 1, -1), -pte_canceled);
	assert_int_equal(rec.ticks, 1);
	win_iter_release(&it);
	win_iter_release(&rit);
	win_cache_free(wc);
	win_cache_free(ref);
	free(buf);
}

/*
 * A walk done in a cache made like another (a background job's) and
 * stopped half way hands its chunk starts over: the other cache's walk to
 * the end then decodes only the rest, with the rows a walk from the PSB
 * gives.  Caches that do not decode alike refuse.
 */
static void test_copy_chunks(void **state)
{
	size_t cap = 1u << 20, n;
	uint8_t *buf = malloc(cap + 64);
	uint64_t seed = 11, total, before;
	struct watch_rec rec = { 0, 10, 0, 0, 0, 1, 0 };
	struct win_watch watch = { watch_tick, &rec };
	struct img_span span;
	struct img img;
	struct win_cache *ref, *wc, *job, *other;
	struct win_iter it = { 0 }, rit = { 0 };
	struct tm_config cfg;

	(void)state;
	assert_non_null(buf);
	n = long_segment(buf, cap, &seed);
	img_init_flat(&img, &span, buf, n);
	assert_int_equal(win_cache_new(&ref, &img, NULL, 64u << 20), 0);
	assert_int_equal(win_seek(&rit, ref, n - 1), 0);
	total = win_cache_decoded(ref);
	assert_true(total > 20);

	assert_int_equal(win_cache_new(&wc, &img, NULL, 64u << 20), 0);
	assert_int_equal(win_cache_new_like(&job, wc, 8u << 20), 0);
	win_cache_set_watch(job, &watch);
	assert_int_equal(win_seek(&it, job, n - 1), -pte_canceled);
	assert_int_equal(rec.ticks, 10);
	assert_int_equal(win_cache_copy_chunks(wc, job, 0), 10);
	/* known already: nothing more */
	assert_int_equal(win_cache_copy_chunks(wc, job, 0), 0);
	assert_int_equal(win_cache_copy_chunks(wc, job, 12345), 0);
	assert_int_equal(win_cache_chunks(wc), 10);
	before = win_cache_decoded(wc);
	assert_int_equal(win_seek(&it, wc, n - 1), 0);
	assert_true(win_cache_decoded(wc) - before <= total - 10);
	assert_int_equal(win_row(&it)->pkt.offset, win_row(&rit)->pkt.offset);
	assert_int_equal(win_row(&it)->cyc_total, win_row(&rit)->cyc_total);
	assert_int_equal(win_row(&it)->ip, win_row(&rit)->ip);
	/* the job's starts merge with the cache's own, in order */
	assert_int_equal(win_cache_copy_chunks(job, wc, 0), (int)win_cache_chunks(wc) - 10);
	assert_int_equal(win_cache_chunks(job), win_cache_chunks(wc));

	/* another image, or another timing configuration: refused */
	assert_int_equal(win_cache_copy_chunks(wc, ref, 0), -pte_invalid);
	assert_int_equal(win_cache_new_like(&other, wc, 8u << 20), 0);
	memset(&cfg, 0, sizeof(cfg));
	win_cache_set_timing(other, &cfg);
	assert_int_equal(win_cache_copy_chunks(wc, other, 0), -pte_invalid);
	assert_int_equal(win_cache_copy_chunks(other, wc, 0), -pte_invalid);
	win_cache_free(other);
	win_iter_release(&it);
	win_iter_release(&rit);
	win_cache_free(job);
	win_cache_free(wc);
	win_cache_free(ref);
	free(buf);
}

/*
 * Without an index, a segment's cycle counts continue from the segment
 * before when that is cached to its end, and are flagged WIN_F_SEG_REL
 * (counted from its own PSB) when reached by a jump.
 */
static void test_seg_rel(void **state)
{
	enum { NSEG = 6, PER = 5000 };	/* two chunks a segment */
	size_t n = 0, k, i;
	uint8_t *buf = malloc(NSEG * (16 + 2 + PER * 2));
	uint64_t starts[NSEG], total[NSEG + 1];
	struct img_span span;
	struct img img;
	struct win_cache *wc;
	struct win_iter it = { 0 };
	const struct win_row *row;

	(void)state;
	assert_non_null(buf);
	total[0] = 0;
	for (k = 0; k < NSEG; k++) {
		starts[k] = n;
		n = put(buf, n, psb, 16);
		buf[n++] = 0x02;
		buf[n++] = 0x23;		/* psbend */
		for (i = 0; i < PER; i++) {
			buf[n++] = (uint8_t)(((k + 1) << 3) | 3);	/* cyc k + 1 */
			buf[n++] = 0x06;		/* tnt.8 */
		}
		total[k + 1] = total[k] + (k + 1) * PER;
	}
	img_init_flat(&img, &span, buf, n);
	/* A jump into segment 3: counted from its PSB, and flagged. */
	assert_int_equal(win_cache_new(&wc, &img, NULL, 64u << 20), 0);
	assert_int_equal(win_seek(&it, wc, starts[4] - 1), 0);
	row = win_row(&it);
	assert_true(row->flags & WIN_F_SEG_REL);
	assert_int_equal(row->ts.cycles, 4 * PER);
	/* Segment 4 follows a cached segment 3: it goes on from there,
	 * still flagged, as segment 3 was. */
	assert_int_equal(win_seek(&it, wc, starts[4] + 20), 0);
	assert_true(win_row(&it)->flags & WIN_F_SEG_REL);
	/* +20: the second cyc after psb and psbend, 5 cycles each */
	assert_int_equal(win_row(&it)->ts.cycles, 4 * PER + 2 * 5);
	win_iter_release(&it);
	win_cache_free(wc);
	/* A walk from the start: every count from the trace's start. */
	assert_int_equal(win_cache_new(&wc, &img, NULL, 64u << 20), 0);
	assert_int_equal(win_seek(&it, wc, 0), 0);
	k = 0;
	do {
		row = win_row(&it);
		assert_false(row->flags & WIN_F_SEG_REL);
		if (k + 1 < NSEG && row->pkt.offset == starts[k + 1])
			k++;
		if (row->pkt.offset + row->size == (k + 1 < NSEG ? starts[k + 1] : n))
			assert_int_equal(row->ts.cycles, total[k + 1]);
	} while (!win_next(&it));
	/* ... and a jump back into a segment still cached agrees. */
	assert_int_equal(win_seek(&it, wc, starts[5] - 1), 0);
	assert_false(win_row(&it)->flags & WIN_F_SEG_REL);
	assert_int_equal(win_row(&it)->ts.cycles, total[5]);
	win_iter_release(&it);
	win_cache_free(wc);
	free(buf);
}

/* The index's carries, given only for the first @ready segments: a time
 * pass still running. */
struct gate {
	struct idx *idx;
	size_t ready;
};

static int gate_carry(void *ctx, uint64_t at, struct tm_carry *out)
{
	struct gate *g = ctx;
	size_t i;

	if (idx_find(g->idx, at, &i) || i >= g->ready)
		return 1;
	return idx_seek_carry(g->idx, i, out);
}

/*
 * Windows decoded before their segment had a carry (WIN_F_SEG_REL) are
 * dropped by win_cache_drop_seg_rel() once it has one, and decode again
 * with the cycles since the trace's start; segments not yet carried, and
 * pinned windows, stay.
 */
static void test_drop_seg_rel(void **state)
{
	enum { NSEG = 6, PER = 5000 };	/* two chunks a segment */
	size_t n = 0, k, i;
	uint8_t *buf = malloc(NSEG * (16 + 2 + PER * 2));
	uint64_t starts[NSEG], total[NSEG + 1];
	struct img_span span;
	struct img img;
	struct tm_config cfg;
	struct gate g = { 0 };
	struct win_psb_ops ops = { 0 };
	struct win_cache *wc;
	struct win_iter it = { 0 };

	(void)state;
	assert_non_null(buf);
	total[0] = 0;
	for (k = 0; k < NSEG; k++) {
		starts[k] = n;
		n = put(buf, n, psb, 16);
		buf[n++] = 0x02;
		buf[n++] = 0x23;		/* psbend */
		for (i = 0; i < PER; i++) {
			buf[n++] = (uint8_t)(((k + 1) << 3) | 3);	/* cyc k + 1 */
			buf[n++] = 0x06;		/* tnt.8 */
		}
		total[k + 1] = total[k] + (k + 1) * PER;
	}
	img_init_flat(&img, &span, buf, n);
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(idx_new(&g.idx, &img, &cfg), 0);
	assert_int_equal(idx_ncarried(g.idx), 0);
	assert_int_equal(idx_build(g.idx), 0);
	assert_int_equal(idx_nseeks(g.idx), NSEG);
	assert_int_equal(idx_ncarried(g.idx), NSEG);
	ops.carry = gate_carry;
	ops.ctx = &g;
	assert_int_equal(win_cache_new(&wc, &img, &ops, 64u << 20), 0);
	win_cache_set_timing(wc, &cfg);
	/* No carry yet: segments 3 and 4 count from segment 3's PSB. */
	assert_int_equal(win_seek(&it, wc, starts[4] - 1), 0);
	assert_true(win_row(&it)->flags & WIN_F_SEG_REL);
	assert_int_equal(win_row(&it)->ts.cycles, 4 * PER);
	assert_int_equal(win_seek(&it, wc, starts[4] + 20), 0);
	assert_true(win_row(&it)->flags & WIN_F_SEG_REL);
	/* Nothing carried below segment 3's PSB: nothing dropped. */
	assert_int_equal(win_cache_drop_seg_rel(wc, starts[3]), 0);
	/* Segment 3 carried: its windows go, segment 4's (pinned) stay. */
	g.ready = 4;
	assert_true(win_cache_drop_seg_rel(wc, starts[4]) >= 1);
	win_iter_release(&it);
	assert_int_equal(win_seek(&it, wc, starts[4] - 1), 0);
	assert_false(win_row(&it)->flags & WIN_F_SEG_REL);
	assert_int_equal(win_row(&it)->ts.cycles, total[4]);
	assert_int_equal(win_seek(&it, wc, starts[4] + 20), 0);
	assert_true(win_row(&it)->flags & WIN_F_SEG_REL);
	/* Everything carried; the pinned window stays until unpinned. */
	g.ready = NSEG;
	assert_int_equal(win_cache_drop_seg_rel(wc, UINT64_MAX), 0);
	win_iter_release(&it);
	assert_true(win_cache_drop_seg_rel(wc, UINT64_MAX) >= 1);
	assert_int_equal(win_seek(&it, wc, starts[4] + 20), 0);
	assert_false(win_row(&it)->flags & WIN_F_SEG_REL);
	assert_int_equal(win_row(&it)->ts.cycles, total[4] + 2 * 5);
	/* Windows decoded with their carry are kept. */
	assert_int_equal(win_cache_drop_seg_rel(wc, UINT64_MAX), 0);
	win_iter_release(&it);
	win_cache_free(wc);
	idx_free(g.idx);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_pre_psb),
		cmocka_unit_test(test_pre_psb_cycles),
		cmocka_unit_test(test_error_row),
		cmocka_unit_test(test_chunks),
		cmocka_unit_test(test_gaps),
		cmocka_unit_test(test_long_segment),
		cmocka_unit_test(test_watch),
		cmocka_unit_test(test_copy_chunks),
		cmocka_unit_test(test_seg_rel),
		cmocka_unit_test(test_drop_seg_rel),
		cmocka_unit_test(test_shared_traces),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
