/* test_index -- PSB seek points and segment summaries against naive scans. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <pthread.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <unistd.h>

#include "helpers.h"
#include "index.h"
#include "index_int.h"
#include "pkt.h"
#include "tm.h"

static const uint8_t psb[16] = {
	2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82
};

/*
 * What a sequential reader sees: in each maximal run of 02 82 pairs, the
 * 16-byte blocks that end where the run ends (a payload may end in 02 82
 * just before a PSB; nothing after a PSB starts with 82).
 */
static size_t naive_psbs(const uint8_t *b, size_t n, uint64_t **out)
{
	uint64_t *v = malloc((n / 16 + 1) * sizeof(*v));
	size_t k = 0, p = 0, e, q;

	assert_non_null(v);
	while (p + 1 < n) {
		if (b[p] != 2 || b[p + 1] != 0x82) {
			p++;
			continue;
		}
		for (e = p; e + 1 < n && b[e] == 2 && b[e + 1] == 0x82; e += 2)
			;
		if (e - p >= 16)
			for (q = p + (e - p) % 16; q + 16 <= e; q += 16)
				v[k++] = q;
		p = e;
	}
	*out = v;
	return k;
}

/* Build an index over spans @sp (@nsp of them) and check its seek points
 * against the naive scan of @buf, for several chunk sizes and threads. */
static void check_spans(const uint8_t *buf, size_t n, struct img_span *sp,
			size_t nsp, int phase2)
{
	static const uint64_t chunks[] = { 64, 128, 192, 4096, 1 << 20 };
	static const unsigned threads[] = { 1, 2, 3 };
	uint64_t *want;
	size_t nwant = naive_psbs(buf, n, &want), c, t, i;
	struct img img = { sp, nsp, n };

	for (c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
		for (t = 0; t < sizeof(threads) / sizeof(threads[0]); t++) {
			struct idx *idx;
			struct idx_seek sk;
			uint64_t from, to;
			size_t k;

			assert_int_equal(idx_new(&idx, &img, NULL), 0);
			assert_int_equal(idx_set_chunk_size(idx, chunks[c]), 0);
			assert_int_equal(idx_set_threads(idx, threads[t]), 0);
			assert_int_equal(idx_set_phase1_only(idx, !phase2), 0);
			assert_int_equal(idx_build(idx), 0);
			if (idx_nseeks(idx) != nwant)
				fail_msg("chunk %llu threads %u: %zu PSBs, want %zu",
					 (unsigned long long)chunks[c], threads[t],
					 idx_nseeks(idx), nwant);
			for (i = 0; i < nwant; i++) {
				assert_int_equal(idx_seek(idx, i, &sk), 0);
				if (sk.offset != want[i])
					fail_msg("chunk %llu: PSB %zu at %llu, want %llu",
						 (unsigned long long)chunks[c], i,
						 (unsigned long long)sk.offset,
						 (unsigned long long)want[i]);
				assert_int_equal(idx_segment_span(idx, i, &from, &to), 0);
				assert_int_equal(from, want[i]);
				assert_int_equal(to, i + 1 < nwant ? want[i + 1] : n);
				assert_int_equal(idx_find(idx, want[i], &k), 0);
				assert_int_equal(k, i);
				if (want[i] + 1 < n) {
					assert_int_equal(idx_find(idx, want[i] + 1, &k), 0);
					assert_int_equal(k, i);
				}
			}
			assert_int_equal(idx_segment_span(idx, nwant, &from, &to), -pte_invalid);
			if (nwant && want[0] > 0)
				assert_int_equal(idx_find(idx, want[0] - 1, &k), -pte_nosync);
			assert_int_equal(idx_scan_done(idx), 1);
			idx_free(idx);
		}
	}
	free(want);
}

static void check_buf(const uint8_t *buf, size_t n, int phase2)
{
	struct img_span sp;
	struct img img;

	img_init_flat(&img, &sp, buf, n);
	check_spans(buf, n, &sp, 1, phase2);
}

static uint64_t rng_state = 88172645463325252ull;

static uint8_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint8_t)rng_state;
}

/* Random bytes without 02 (so no accidental pattern). */
static uint8_t *noise(size_t n)
{
	uint8_t *b = malloc(n);
	size_t i;

	assert_non_null(b);
	for (i = 0; i < n; i++) {
		b[i] = rnd();
		if (b[i] == 2)
			b[i] = 3;
	}
	return b;
}

static void fill_run(uint8_t *b, size_t at, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		b[at + i] = (i & 1) ? 0x82 : 2;
}

static void test_null(void **state)
{
	struct idx *idx;
	struct idx_seek sk;
	struct idx_summary s;
	struct img_span sp;
	struct img img;
	uint8_t b[4] = { 0 };
	size_t k;

	(void)state;
	assert_int_equal(idx_new(NULL, NULL, NULL), -pte_invalid);
	assert_int_equal(idx_time_summary(NULL, 0, &s), -pte_invalid);
	img_init_flat(&img, &sp, b, sizeof(b));
	assert_int_equal(idx_new(&idx, &img, NULL), 0);
	assert_int_equal(idx_seek(idx, 0, &sk), -pte_invalid);
	assert_int_equal(idx_find(idx, 0, &k), -pte_nosync);
	assert_int_equal(idx_summary(idx, 0, &s), 1);
	assert_int_equal(idx_find_ordinal(idx, 0, &k), 1);
	assert_int_equal(idx_wait(idx), -pte_invalid);
	assert_int_equal(idx_build(idx), 0);
	assert_int_equal(idx_nseeks(idx), 0);
	assert_int_equal(idx_totals(idx, &s), 0);
	assert_int_equal(s.npackets, 0);
	assert_int_equal(idx_find_ordinal(idx, 0, &k), -pte_eos);
	assert_int_equal(idx_next_trouble(idx, 0, 1, &k), -pte_eos);
	assert_int_equal(idx_time_outlier(idx, 0), 0);
	assert_int_equal(idx_time_outlier(NULL, 0), 0);
	assert_int_equal(idx_start(idx), -pte_invalid);
	idx_free(idx);
	idx_free(NULL);
}

static void test_none(void **state)
{
	uint8_t *b = noise(100000);

	(void)state;
	/* False starts: 02 82 pairs and a 15-byte pattern, no PSB. */
	fill_run(b, 1000, 15);
	fill_run(b, 2000, 2);
	fill_run(b, 99990, 10);
	check_buf(b, 100000, 1);
	free(b);
}

static void test_boundaries(void **state)
{
	size_t n = 64 * 64, k;
	uint8_t *b;

	(void)state;
	/* A PSB ending or starting at every position around chunk edges. */
	for (k = 0; k < 20; k++) {
		b = noise(n);
		fill_run(b, 64 - k, 16);
		fill_run(b, 128 + k, 16);
		fill_run(b, 192 * 2 - 8 - k, 16);
		fill_run(b, n - 16, 16);	/* at the very end */
		check_buf(b, n, 1);
		free(b);
	}
	/* A PSB cut by the end of the buffer is not one. */
	b = noise(n);
	fill_run(b, n - 15, 15);
	check_buf(b, n, 1);
	free(b);
}

static void test_runs(void **state)
{
	size_t n = 4096, len, at;
	uint8_t *b;

	(void)state;
	/* Runs of 02 82 (and a trailing 02) straddling chunk edges: the
	 * alignment of the PSBs is set by where the run starts. */
	for (len = 15; len <= 200; len += 7) {
		for (at = 40; at < 200; at += 22) {
			b = noise(n);
			fill_run(b, at, len);
			fill_run(b, at + len + 40, len | 1);
			check_buf(b, n, 1);
			free(b);
		}
	}
}

static void test_dense(void **state)
{
	size_t n = 4u << 20, i;
	uint8_t *b = noise(n);
	struct img_span sp;
	struct img img;
	struct idx *idx;
	struct idx_summary s;

	(void)state;
	/* 262143 PSBs 16 bytes apart, starting off the chunk alignment. */
	fill_run(b, 6, n - 16);
	img_init_flat(&img, &sp, b, n);
	assert_int_equal(idx_new(&idx, &img, NULL), 0);
	assert_int_equal(idx_set_chunk_size(idx, 4096), 0);
	assert_int_equal(idx_build(idx), 0);
	assert_int_equal(idx_nseeks(idx), (n - 16) / 16);
	for (i = 0; i < idx_nseeks(idx); i += 1000) {
		struct idx_seek sk;

		assert_int_equal(idx_seek(idx, i, &sk), 0);
		assert_int_equal(sk.offset, 6 + 16 * i);
	}
	assert_int_equal(idx_totals(idx, &s), 0);
	assert_true(s.npackets >= idx_nseeks(idx));
	idx_free(idx);

	/* Full blocks borrowed from a "mapped" blob, for a whole and for a
	 * grown image (the prefix ends inside the run). */
	{
		struct img_span sp2;
		struct img img2;
		struct idx *half, *re, *fresh;
		void *blob;
		size_t len, k;

		img_init_flat(&img2, &sp2, b, n / 2 + 5);
		assert_int_equal(idx_new(&half, &img2, NULL), 0);
		assert_int_equal(idx_build(half), 0);
		assert_int_equal(idx_save(half, &blob, &len), 0);
		assert_int_equal(idx_new(&re, &img2, NULL), 0);
		assert_int_equal(idx_load_mapped(re, blob, len, NULL, NULL), 0);
		assert_int_equal(idx_nseeks(re), idx_nseeks(half));
		for (k = 0; k < idx_nseeks(re); k += 9999) {
			struct idx_seek x, y;

			assert_int_equal(idx_seek(re, k, &x), 0);
			assert_int_equal(idx_seek(half, k, &y), 0);
			assert_memory_equal(&x, &y, sizeof(x));
		}
		idx_free(re);
		assert_int_equal(idx_new(&re, &img, NULL), 0);
		assert_int_equal(idx_load_mapped(re, blob, len, free, blob), 0);
		assert_int_equal(idx_build(re), 0);
		assert_int_equal(idx_new(&fresh, &img, NULL), 0);
		assert_int_equal(idx_build(fresh), 0);
		assert_int_equal(idx_nseeks(re), idx_nseeks(fresh));
		for (k = 0; k < idx_nseeks(re); k += 777) {
			struct idx_seek x, y;
			struct idx_summary u, v;

			assert_int_equal(idx_seek(re, k, &x), 0);
			assert_int_equal(idx_seek(fresh, k, &y), 0);
			assert_memory_equal(&x, &y, sizeof(x));
			assert_int_equal(idx_summary(re, k, &u), 0);
			assert_int_equal(idx_summary(fresh, k, &v), 0);
			assert_int_equal(u.npackets, v.npackets);
			assert_int_equal(u.first_ordinal, v.first_ordinal);
		}
		idx_free(fresh);
		idx_free(re);	/* frees the blob */
		idx_free(half);
	}
	free(b);
}

/* Read a shared trace file, or skip. */
static uint8_t *read_shared(const char *rel, size_t *n)
{
	char path[4096];

	return helpers_read_file(helpers_shared_path(path, sizeof(path), rel), n);
}

static const char *const shared_traces[] = {
	"dynamorio-drpt2trace/head_test_simple.raw.pt.bin",
	"dynamorio-drpt2trace/hist_2aad718d_test_simple.tracedir.pt.bin",
	"dynamorio-drpt2trace/hist_316e5058_drptpostprocessor.pt.bin",
	"keeper-perf-event-sample/traced_data.bin",
	"quipper-perf-intel-pt/perf.data.intel_pt-4.14.idx0.cpu0.pt",
	"quipper-perf-intel-pt/perf.data.intel_pt-4.14.idx3.cpu3.pt",
	"quipper-perf-intel-pt/perf.data.piped.intel_pt-4.14.idx0.cpu0.pt",
	"quipper-perf-intel-pt/perf.data.piped.intel_pt-4.14.idx3.cpu3.pt",
};

/* Decode the PSB+ at @off the plain way. */
static void expect_psbplus(const uint8_t *b, size_t n, uint64_t off,
			   const struct idx_seek *got)
{
	struct pkt_decoder dec;
	struct pkt pkt;
	struct idx_seek w;
	uint64_t ip = 0;
	int i;

	memset(&w, 0, sizeof(w));
	pkt_decoder_init(&dec, b, b + n, 0);
	assert_int_equal(pkt_sync_set(&dec, off), 0);
	assert_int_equal(pkt_next(&dec, &pkt), 16);
	for (i = 0; i < 64; i++) {
		int r = pkt_next(&dec, &pkt);

		if (r == -pte_eos)
			break;
		if (r < 0) {
			w.flags |= IDX_BAD_PSBPLUS;
			break;
		}
		if (pkt.type == PKT_TSC) {
			w.tsc = pkt.u.tsc;
			w.flags |= IDX_HAVE_TSC;
		} else if (pkt.type == PKT_TMA) {
			w.ctc = pkt.u.tma.ctc;
			w.fc = pkt.u.tma.fc;
			w.flags |= IDX_HAVE_TMA;
		} else if (pkt.type == PKT_CBR) {
			w.cbr = pkt.u.cbr;
			w.flags |= IDX_HAVE_CBR;
		} else if (pkt.type == PKT_MODE_EXEC) {
			w.exec = (uint8_t)(pkt.u.exec.csl | pkt.u.exec.csd << 1 |
					   pkt.u.exec.iflag << 2);
			w.flags |= IDX_HAVE_EXEC;
		} else if (pkt.type == PKT_MODE_TSX) {
			w.tsx = (uint8_t)(pkt.u.tsx.intx | pkt.u.tsx.abrt << 1);
			w.flags |= IDX_HAVE_TSX;
		} else if (pkt.type == PKT_PIP) {
			w.cr3 = pkt.u.pip.cr3;
			w.nr = pkt.u.pip.nr;
			w.flags |= IDX_HAVE_PIP;
		} else if (pkt.type == PKT_VMCS) {
			w.vmcs = pkt.u.vmcs;
			w.flags |= IDX_HAVE_VMCS;
		} else if (pkt.type == PKT_FUP) {
			if (pkt_ip_update(&pkt, &ip) == 0) {
				w.fup_ip = ip;
				w.flags |= IDX_HAVE_FUP;
			}
		} else if (pkt.type == PKT_PSBEND) {
			w.flags |= IDX_PSBEND;
			break;
		} else if (pkt.type != PKT_PAD && pkt.type != PKT_CYC &&
			   pkt.type != PKT_MTC) {
			break;
		}
	}
	assert_int_equal(got->flags, w.flags);
	assert_int_equal(got->tsc, w.tsc);
	assert_int_equal(got->ctc, w.ctc);
	assert_int_equal(got->fc, w.fc);
	assert_int_equal(got->cbr, w.cbr);
	assert_int_equal(got->exec, w.exec);
	assert_int_equal(got->tsx, w.tsx);
	assert_int_equal(got->cr3, w.cr3);
	assert_int_equal(got->nr, w.nr);
	assert_int_equal(got->vmcs, w.vmcs);
	assert_int_equal(got->fup_ip, w.fup_ip);
}

/* Walk the whole buffer with pkt_next from the first PSB, resyncing after
 * errors, and compare per-segment counts with the index's summaries. */
static void expect_summaries(struct idx *idx, const uint8_t *b, size_t n)
{
	size_t ns = idx_nseeks(idx), i;
	uint64_t ord = 0, maxall = 0;
	struct idx_summary tot;

	assert_int_equal(idx_nsummaries(idx), ns);
	for (i = 0; i < ns; i++) {
		struct idx_seek sk, nx;
		struct idx_summary s;
		struct pkt_decoder dec;
		struct pkt pkt;
		uint64_t end, cnt[PKC_NCLASSES] = { 0 }, np = 0, ovf = 0, err = 0;
		uint64_t maxc = 0, tfirst = 0, tlast = 0;
		int have_tsc = 0, tsc_back = 0;
		size_t k;
		int c, r;

		assert_int_equal(idx_seek(idx, i, &sk), 0);
		end = n;
		if (i + 1 < ns) {
			assert_int_equal(idx_seek(idx, i + 1, &nx), 0);
			end = nx.offset;
		}
		pkt_decoder_init(&dec, b + sk.offset, b + end, sk.offset);
		for (;;) {
			r = pkt_next(&dec, &pkt);
			if (r == -pte_eos)
				break;
			np++;
			if (r < 0) {
				cnt[PKC_ERROR]++;
				err++;
				break;
			}
			cnt[pkt_type_class(pkt.type)]++;
			if (pkt.type == PKT_OVF)
				ovf++;
			if (pkt.type == PKT_CYC && pkt.u.cyc > maxc)
				maxc = pkt.u.cyc;
			if (pkt.type == PKT_TSC) {
				if (!have_tsc)
					tfirst = pkt.u.tsc;
				else if (pkt.u.tsc < tlast)
					tsc_back = 1;
				have_tsc = 1;
				tlast = pkt.u.tsc;
			}
		}
		assert_int_equal(idx_summary(idx, i, &s), 0);
		assert_int_equal(s.have_tsc, have_tsc);
		assert_int_equal(s.first_tsc, tfirst);
		assert_int_equal(s.last_tsc, tlast);
		assert_int_equal(s.tsc_back, tsc_back);
		{
			/* The same counts without the ordinal and time. */
			struct idx_summary c2, s2 = s;

			assert_int_equal(idx_summary_counts(idx, i, &c2), 0);
			s2.first_ordinal = 0;
			s2.have_time = s2.has_gap = s2.has_period = 0;
			s2.max_gap = s2.gap_off = s2.slow_off = 0;
			s2.nhalt = 0;
			s2.halt_lo = s2.halt_hi = 0;
			memset(&s2.slow_period, 0, sizeof(s2.slow_period));
			memset(&s2.fast_period, 0, sizeof(s2.fast_period));
			assert_memory_equal(&c2, &s2, sizeof(s2));
		}
		assert_int_equal(s.npackets, np);
		assert_int_equal(s.first_ordinal, ord);
		assert_int_equal(s.size, end - sk.offset);
		assert_int_equal(s.novf, ovf);
		assert_int_equal(s.nerrors, err);
		assert_int_equal(s.max_cyc, maxc);
		if (maxc > maxall)
			maxall = maxc;
		for (c = 0; c < PKC_NCLASSES; c++)
			assert_int_equal(s.per_class[c], cnt[c]);
		if (np) {
			assert_int_equal(idx_find_ordinal(idx, ord, &k), 0);
			assert_int_equal(k, i);
			assert_int_equal(idx_find_ordinal(idx, ord + np - 1, &k), 0);
			assert_int_equal(k, i);
		}
		ord += np;
	}
	assert_int_equal(idx_totals(idx, &tot), 0);
	assert_int_equal(tot.npackets, ord);
	assert_int_equal(tot.max_cyc, maxall);
	if (ns) {
		size_t k;

		assert_int_equal(idx_find_ordinal(idx, ord, &k), -pte_eos);
	}
}

static void test_shared(void **state)
{
	size_t t, n, i, found = 0;

	(void)state;
	for (t = 0; t < sizeof(shared_traces) / sizeof(shared_traces[0]); t++) {
		uint8_t *b = read_shared(shared_traces[t], &n);
		struct img_span sp;
		struct img img;
		struct idx *idx;

		if (!b)
			continue;
		found++;
		check_buf(b, n, 0);
		img_init_flat(&img, &sp, b, n);
		assert_int_equal(idx_new(&idx, &img, NULL), 0);
		assert_int_equal(idx_set_chunk_size(idx, 1024), 0);
		assert_int_equal(idx_build(idx), 0);
		assert_true(idx_nseeks(idx) > 0);
		for (i = 0; i < idx_nseeks(idx); i++) {
			struct idx_seek sk;

			assert_int_equal(idx_seek(idx, i, &sk), 0);
			expect_psbplus(b, n, sk.offset, &sk);
		}
		expect_summaries(idx, b, n);
		idx_free(idx);
		free(b);
	}
	if (!found)
		skip();
}

/* A crafted trace: PSB+ with every status packet, then a few packets. */
static size_t put_segment(uint8_t *b, unsigned i, int ovf, int bad)
{
	size_t p = 0;

	memcpy(b, psb, 16);
	p = 16;
	b[p++] = 0x19;			/* tsc */
	memset(b + p, 0, 7);
	b[p] = (uint8_t)(i + 1);
	b[p + 3] = 1;
	p += 7;
	b[p++] = 2; b[p++] = 0x73;	/* tma ctc 0x1234 fc 5 */
	b[p++] = 0x34; b[p++] = 0x12; b[p++] = 0; b[p++] = 5; b[p++] = 0;
	b[p++] = 2; b[p++] = 3; b[p++] = (uint8_t)(20 + i); b[p++] = 0;	/* cbr */
	b[p++] = 0x99; b[p++] = 0x01;	/* mode.exec cs.l */
	b[p++] = 0x99; b[p++] = 0x20;	/* mode.tsx */
	b[p++] = 2; b[p++] = 0x43;	/* pip cr3 */
	/* many address spaces: the context table grows past its first hash */
	b[p++] = (uint8_t)(i & 1 ? 0x21 : 0x40); b[p++] = (uint8_t)i;
	b[p++] = (uint8_t)(i >> 8); b[p++] = 0;
	b[p++] = 0; b[p++] = 0;
	b[p++] = 0x7d;			/* fup sext48 */
	b[p++] = 0x10; b[p++] = 0x20; b[p++] = (uint8_t)i; b[p++] = 0; b[p++] = 0; b[p++] = 0;
	b[p++] = 2; b[p++] = 0x23;	/* psbend */
	b[p++] = 0x4;			/* tnt.8 */
	b[p++] = 0x03 | 8 << 3;		/* cyc 8 */
	b[p++] = 0x59; b[p++] = 7;	/* mtc */
	if (ovf) {
		b[p++] = 2;
		b[p++] = 0xf3;
	}
	b[p++] = 0;			/* pad */
	if (bad)
		b[p++] = 0x39;			/* a bad opcode */
	return p;
}

/* Data lost inside a segment (a perf.data hole) is a gap, not an error:
 * one error row, counted in ngaps, and trouble for navigation; so when the
 * gap cuts a packet (@at bytes into segment 1: 16 is after its PSB, 20
 * inside its TSC). */
static void check_gap_summary(size_t at)
{
	uint8_t b[1024];
	size_t n = 0, mid = 0, k;
	unsigned i;
	struct img_span sp[2];
	struct img img;
	struct idx *idx, *re;
	struct idx_summary s;
	void *blob;
	size_t len;

	for (i = 0; i < 3; i++) {
		if (i == 1)
			mid = n + at;
		n += put_segment(b + n, i, 0, 0);
	}
	memset(sp, 0, sizeof(sp));
	sp[0].data = b;
	sp[0].size = mid;
	sp[1].data = b + mid;
	sp[1].off = mid;
	sp[1].size = n - mid;
	sp[1].gap_before = 1;
	img.spans = sp;
	img.nspans = 2;
	img.size = n;
	assert_int_equal(idx_new(&idx, &img, NULL), 0);
	assert_int_equal(idx_build(idx), 0);
	assert_int_equal(idx_nseeks(idx), 3);
	assert_int_equal(idx_summary(idx, 1, &s), 0);
	assert_int_equal(s.ngaps, 1);
	assert_int_equal(s.nerrors, 0);
	assert_int_equal(s.per_class[PKC_ERROR], 1);
	assert_int_equal(idx_summary(idx, 0, &s), 0);
	assert_int_equal(s.ngaps + s.nerrors, 0);
	assert_int_equal(idx_next_trouble(idx, 0, 1, &k), 0);
	assert_int_equal(k, 1);
	assert_int_equal(idx_totals(idx, &s), 0);
	assert_int_equal(s.ngaps, 1);
	assert_int_equal(s.nerrors, 0);
	/* and so after a save and a load */
	assert_int_equal(idx_save(idx, &blob, &len), 0);
	assert_int_equal(idx_new(&re, &img, NULL), 0);
	assert_int_equal(idx_load(re, blob, len), 0);
	assert_int_equal(idx_summary(re, 1, &s), 0);
	assert_int_equal(s.ngaps, 1);
	assert_int_equal(idx_totals(re, &s), 0);
	assert_int_equal(s.ngaps, 1);
	assert_int_equal(s.nerrors, 0);
	assert_int_equal(idx_next_trouble(re, 0, 1, &k), 0);
	assert_int_equal(k, 1);
	idx_free(re);
	free(blob);
	idx_free(idx);
}

static void test_gap_summary(void **state)
{
	(void)state;
	check_gap_summary(16);
	check_gap_summary(20);
}

static void test_crafted(void **state)
{
	uint8_t *b = calloc(1, 1 << 16);
	size_t n = 0, k;
	unsigned i;
	struct img_span sp;
	struct img img;
	struct idx *idx;
	struct idx_seek sk;
	struct idx_summary s;

	(void)state;
	for (i = 0; i < 200; i++)
		n += put_segment(b + n, i, i % 17 == 3, i % 23 == 5);
	img_init_flat(&img, &sp, b, n);
	assert_int_equal(idx_new(&idx, &img, NULL), 0);
	assert_int_equal(idx_set_chunk_size(idx, 256), 0);
	assert_int_equal(idx_build(idx), 0);
	assert_int_equal(idx_nseeks(idx), 200);
	for (i = 0; i < 200; i++) {
		assert_int_equal(idx_seek(idx, i, &sk), 0);
		expect_psbplus(b, n, sk.offset, &sk);
		assert_true(sk.flags & IDX_HAVE_PIP);
		assert_true(sk.flags & IDX_PSBEND);
		assert_int_equal(sk.cbr, 20 + i);
		assert_int_equal(sk.ctc, 0x1234);
	}
	expect_summaries(idx, b, n);
	/* Trouble navigation: OVF at 3, 20, ...; errors at 5, 28, ... */
	assert_int_equal(idx_next_trouble(idx, 0, 1, &k), 0);
	assert_int_equal(k, 3);
	assert_int_equal(idx_next_trouble(idx, 3, 1, &k), 0);
	assert_int_equal(k, 5);
	assert_int_equal(idx_next_trouble(idx, 5, -1, &k), 0);
	assert_int_equal(k, 3);
	assert_int_equal(idx_next_trouble(idx, 3, -1, &k), -pte_eos);
	assert_int_equal(idx_next_trouble(idx, 199, 1, &k), -pte_eos);
	assert_int_equal(idx_summary(idx, 3, &s), 0);
	assert_int_equal(s.novf, 1);
	assert_int_equal(idx_summary(idx, 5, &s), 0);
	assert_int_equal(s.nerrors, 1);
	/* TSC lookup: segment i has TSC (i + 1) | 1 << 24. */
	assert_int_equal(idx_find_tsc(idx, (1u << 24) + 50, &k), 0);
	assert_int_equal(k, 49);
	assert_int_equal(idx_find_tsc(idx, 0, &k), 0);
	assert_int_equal(k, 0);
	assert_int_equal(idx_find_tsc(idx, UINT64_MAX, &k), 0);
	assert_int_equal(k, 199);
	idx_free(idx);
	free(b);
}

static void test_spans(void **state)
{
	uint8_t *b = noise(8192);
	struct img_span sp[3];
	size_t cut;

	(void)state;
	/* A PSB straddling two contiguous spans is found; one across a gap
	 * is not. */
	for (cut = 1000; cut < 1016; cut++) {
		uint8_t *c = noise(8192);

		fill_run(c, 992, 16);
		fill_run(c, 3000, 16);
		memset(sp, 0, sizeof(sp));
		sp[0].data = c;
		sp[0].size = cut;
		sp[1].data = c + cut;
		sp[1].off = cut;
		sp[1].size = 5000 - cut;
		sp[2].data = c + 5000;
		sp[2].off = 5000;
		sp[2].size = 8192 - 5000;
		check_spans(c, 8192, sp, 3, 1);
		free(c);
	}
	/*
	 * A span 64k + 1 bytes long: with chunks of 64, 128 and 192 its last
	 * unit is one byte.  When that byte is the 82 of a pair begun in the
	 * unit before, no pair starts in the unit, yet the run goes on
	 * through it into the next span: a PSB (or a run of pairs before
	 * one) straddling the spans is still found.
	 */
	for (cut = 385 - 17; cut <= 385 + 1; cut++) {
		size_t extra;

		for (extra = 0; extra <= 4; extra += 4) {
			uint8_t *c = noise(8192);

			fill_run(c, cut - extra, 16 + extra);
			fill_run(c, 3000, 16);
			memset(sp, 0, sizeof(sp));
			sp[0].data = c;
			sp[0].size = 385;
			sp[1].data = c + 385;
			sp[1].off = 385;
			sp[1].size = 5000 - 385;
			sp[2].data = c + 5000;
			sp[2].off = 5000;
			sp[2].size = 8192 - 5000;
			check_spans(c, 8192, sp, 3, 1);
			free(c);
		}
	}
	free(b);
}

/* A cancel that arrives while the builder waits on its condition is not
 * lost: idx_wait() returns (it hung before, about one run in six). */
static void test_cancel_race(void **state)
{
	size_t n = 4u << 20, i;
	uint8_t *b = noise(n);
	struct img_span sp;
	struct img img;
	int k;

	(void)state;
	for (i = 0; i + 16 <= n; i += 4096)
		fill_run(b, i, 16);
	img_init_flat(&img, &sp, b, n);
	for (k = 0; k < 50; k++) {
		struct idx *idx;
		int r;

		assert_int_equal(idx_new(&idx, &img, NULL), 0);
		assert_int_equal(idx_set_chunk_size(idx, 1 << 14), 0);
		assert_int_equal(idx_start(idx), 0);
		if (k & 1)
			usleep((useconds_t)(k * 100));
		idx_cancel(idx);
		r = idx_wait(idx);
		assert_true(r == -pte_canceled || r == 0);
		idx_free(idx);
	}
	free(b);
}

static void test_cancel_progress(void **state)
{
	size_t n = 32u << 20;
	uint8_t *b = noise(n);
	struct img_span sp;
	struct img img;
	struct idx *idx;
	struct idx_progress p;
	size_t i;

	(void)state;
	for (i = 0; i + 16 <= n; i += 4096)
		fill_run(b, i, 16);
	img_init_flat(&img, &sp, b, n);
	assert_int_equal(idx_new(&idx, &img, NULL), 0);
	idx_progress(idx, &p);
	assert_int_equal(p.phase, IDX_IDLE);
	assert_int_equal(p.finished, 0);
	assert_int_equal(idx_set_chunk_size(idx, 1 << 16), 0);
	assert_int_equal(idx_start(idx), 0);
	assert_int_equal(idx_set_threads(idx, 1), -pte_invalid);
	idx_cancel(idx);
	assert_int_equal(idx_wait(idx), -pte_canceled);
	idx_progress(idx, &p);
	assert_int_equal(p.finished, 1);
	assert_int_equal(p.status, -pte_canceled);
	/* The published prefix stays consistent. */
	for (i = 0; i < idx_nseeks(idx); i++) {
		struct idx_seek sk;

		assert_int_equal(idx_seek(idx, i, &sk), 0);
		assert_int_equal(sk.offset, i * 4096);
	}
	idx_free(idx);

	assert_int_equal(idx_new(&idx, &img, NULL), 0);
	assert_int_equal(idx_build(idx), 0);
	idx_progress(idx, &p);
	assert_int_equal(p.finished, 1);
	assert_int_equal(p.status, 0);
	assert_int_equal(p.phase, IDX_DONE);
	assert_int_equal(p.nseeks, n / 4096);
	assert_int_equal(p.scanned, n);
	idx_free(idx);
	free(b);
}

static void test_save_load(void **state)
{
	uint8_t *b = calloc(1, 1 << 18);
	size_t n = 0, half = 0, len, len2, i;
	unsigned k;
	struct img_span sp, sp2;
	struct img img, img2;
	struct idx *idx, *re;
	void *blob, *blob2;

	(void)state;
	for (k = 0; k < 3000; k++) {
		n += put_segment(b + n, k, k % 17 == 3, k % 23 == 5);
		if (k == 1499)
			half = n + 7;	/* cut inside the next PSB */
	}
	img_init_flat(&img, &sp, b, n);
	assert_int_equal(idx_new(&idx, &img, NULL), 0);
	assert_int_equal(idx_save(idx, &blob, &len), -pte_invalid);
	assert_int_equal(idx_build(idx), 0);
	assert_int_equal(idx_save(idx, &blob, &len), 0);
	/* Round trip. */
	assert_int_equal(idx_new(&re, &img, NULL), 0);
	assert_int_equal(idx_load(re, blob, len), 0);
	assert_true(idx_complete(re));
	expect_summaries(re, b, n);
	assert_int_equal(idx_save(re, &blob2, &len2), 0);
	assert_int_equal(len2, len);
	assert_memory_equal(blob, blob2, len);
	free(blob2);
	idx_free(re);
	/* Truncated blobs are refused. */
	for (i = 0; i < len; i += len / 50 + 1) {
		assert_int_equal(idx_new(&re, &img, NULL), 0);
		assert_int_equal(idx_load(re, blob, i), -pte_bad_file);
		idx_free(re);
	}
	free(blob);
	idx_free(idx);

	/* A grown trace: index the first part, then load it over the whole. */
	img_init_flat(&img2, &sp2, b, half);
	assert_int_equal(idx_new(&idx, &img2, NULL), 0);
	assert_int_equal(idx_build(idx), 0);
	assert_int_equal(idx_nseeks(idx), 1500);
	assert_int_equal(idx_save(idx, &blob, &len), 0);
	idx_free(idx);
	assert_int_equal(idx_new(&re, &img, NULL), 0);
	assert_int_equal(idx_load(re, blob, len), 0);
	assert_false(idx_complete(re));
	assert_int_equal(idx_nseeks(re), 1499);
	assert_int_equal(idx_build(re), 0);
	assert_int_equal(idx_nseeks(re), 3000);
	expect_summaries(re, b, n);
	assert_int_equal(idx_new(&idx, &img, NULL), 0);
	assert_int_equal(idx_build(idx), 0);
	for (i = 0; i < 3000; i++) {
		struct idx_seek sk;
		struct idx_summary s1, s2;
		uint64_t l1 = 0, l2 = 0;

		assert_int_equal(idx_seek(re, i, &sk), 0);
		expect_psbplus(b, n, sk.offset, &sk);
		/* the time pass's summaries go on as a whole build's */
		assert_int_equal(idx_summary(re, i, &s1), 0);
		assert_int_equal(idx_summary(idx, i, &s2), 0);
		assert_true(s1.have_time && s2.have_time);
		assert_int_equal(s1.has_gap, s2.has_gap);
		assert_int_equal(s1.max_gap, s2.max_gap);
		assert_int_equal(s1.gap_off, s2.gap_off);
		assert_int_equal(s1.has_period, s2.has_period);
		assert_int_equal(s1.slow_off, s2.slow_off);
		assert_memory_equal(&s1.slow_period, &s2.slow_period, sizeof(s1.slow_period));
		assert_memory_equal(&s1.fast_period, &s2.fast_period, sizeof(s1.fast_period));
		assert_int_equal(idx_last_timing(re, i, &l1), idx_last_timing(idx, i, &l2));
		assert_int_equal(l1, l2);
	}
	idx_free(idx);
	idx_free(re);
	/* A blob of a longer image does not fit a shorter one. */
	assert_int_equal(idx_new(&idx, &img, NULL), 0);
	assert_int_equal(idx_build(idx), 0);
	assert_int_equal(idx_save(idx, &blob2, &len2), 0);
	idx_free(idx);
	assert_int_equal(idx_new(&re, &img2, NULL), 0);
	assert_int_equal(idx_load(re, blob2, len2), -pte_bad_file);
	idx_free(re);
	free(blob2);
	free(blob);
	free(b);
}

/* Generate a trace with ptgen ($BUILD/tools/ptgen), or return NULL. */
static uint8_t *generate(const char *args, size_t *n)
{
	const char *build = getenv("BUILD");
	char cmd[1024], path[] = "/tmp/test_index.XXXXXX";
	uint8_t *b = NULL;
	FILE *f;
	long sz;
	int fd = mkstemp(path);

	if (fd < 0)
		return NULL;
	close(fd);
	snprintf(cmd, sizeof(cmd), "%s/tools/ptgen %s -o %s 2>/dev/null",
		 build ? build : "build", args, path);
	if (system(cmd) == 0 && (f = fopen(path, "rb"))) {
		fseek(f, 0, SEEK_END);
		sz = ftell(f);
		fseek(f, 0, SEEK_SET);
		b = malloc((size_t)sz);
		if (b && fread(b, 1, (size_t)sz, f) == (size_t)sz)
			*n = (size_t)sz;
		else {
			free(b);
			b = NULL;
		}
		fclose(f);
	}
	unlink(path);
	return b;
}

/* Times from a carry equal times from the start (the window's rules). */
static void feed(const uint8_t *b, uint64_t off, uint64_t end, struct tm_model *tm,
		 struct tm_stamp *last, uint64_t *npk)
{
	struct pkt_decoder dec;
	struct pkt pkt;
	int r;

	pkt_decoder_init(&dec, b + off, b + end, off);
	for (;;) {
		r = pkt_next(&dec, &pkt);
		if (r == -pte_eos)
			return;
		if (r < 0) {
			tm_gap(tm);
			return;
		}
		tm_step(tm, &pkt, last);
		(*npk)++;
	}
}

struct carry_asker {
	struct idx *idx;
	const struct tm_carry *all;
	size_t ns;
	unsigned seed;
	int bad;
};

static void *ask_carries(void *arg)
{
	struct carry_asker *a = arg;
	size_t i, at = 0;

	for (i = 0; i < 3000; i++) {
		struct tm_carry carry;

		at = i % 3 ? (at + 1) % a->ns : (size_t)rand_r(&a->seed) % a->ns;
		if (idx_seek_carry(a->idx, at, &carry) ||
		    memcmp(&carry, &a->all[at], sizeof(carry)))
			a->bad++;
	}
	return NULL;
}

/*
 * idx_ncarried() while the time pass runs, asked from another thread as
 * the browser's UI thread asks: an in-order prefix that only grows, every
 * carry in it given at once and equal to the finished index's, all of
 * them at the end; none with the time pass off.
 */
static void test_ncarried(void **state)
{
	size_t n = 0, i, ns, k, last = 0, polls = 0;
	uint8_t *b = generate("--seed 9 --size 4MiB --psb-period 2048", &n);
	struct img_span sp;
	struct img img;
	struct idx *ref, *idx;
	struct tm_config cfg;
	struct idx_progress p;
	struct tm_carry want, got;

	(void)state;
	if (!b) {
		printf("skipped: no ptgen in $BUILD/tools\n");
		skip();
	}
	memset(&cfg, 0, sizeof(cfg));
	tm_config_option(&cfg, "--mtc-freq", "3");
	tm_config_option(&cfg, "--nom-freq", "12");
	tm_config_option(&cfg, "--cpuid-0x15.eax", "2");
	tm_config_option(&cfg, "--cpuid-0x15.ebx", "100");
	img_init_flat(&img, &sp, b, n);
	assert_int_equal(idx_new(&ref, &img, &cfg), 0);
	assert_int_equal(idx_build(ref), 0);
	ns = idx_nseeks(ref);
	assert_int_equal(idx_ncarried(ref), ns);
	assert_int_equal(idx_new(&idx, &img, &cfg), 0);
	assert_int_equal(idx_set_chunk_size(idx, 64 << 10), 0);
	assert_int_equal(idx_ncarried(idx), 0);
	assert_int_equal(idx_start(idx), 0);
	do {
		idx_progress(idx, &p);
		k = idx_ncarried(idx);
		assert_true(k >= last);
		assert_true(k <= ns);
		for (i = k > 3 ? k - 3 : 0; i < k; i++) {
			assert_int_equal(idx_seek_carry(idx, i, &got), 0);
			assert_int_equal(idx_seek_carry(ref, i, &want), 0);
			assert_memory_equal(&got, &want, sizeof(got));
		}
		if (k && k < ns && idx_seek_carry(idx, k / 2, &got) == 0) {
			assert_int_equal(idx_seek_carry(ref, k / 2, &want), 0);
			assert_memory_equal(&got, &want, sizeof(got));
		}
		last = k;
		polls++;
	} while (!p.finished);
	assert_int_equal(idx_wait(idx), 0);
	assert_int_equal(idx_ncarried(idx), ns);
	assert_true(polls > 0);
	idx_free(idx);
	/* The time pass off: no carry, ever. */
	assert_int_equal(idx_new(&idx, &img, &cfg), 0);
	assert_int_equal(idx_set_time_pass(idx, 0), 0);
	assert_int_equal(idx_build(idx), 0);
	assert_int_equal(idx_ncarried(idx), 0);
	idx_free(idx);
	idx_free(ref);
	free(b);
}

static void test_generated(void **state)
{
	size_t n = 0, i, ns, prev = 0;
	struct tm_carry *all;
	uint8_t *b = generate("--seed 7 --size 3MiB --psb-period 2048 --ovf-rate 0.001", &n);
	struct img_span sp;
	struct img img;
	struct idx *idx;
	struct tm_config cfg;
	struct tm_model seq, from;
	struct tm_stamp a, c;

	(void)state;
	if (!b) {
		printf("skipped: no ptgen in $BUILD/tools\n");
		skip();
	}
	memset(&cfg, 0, sizeof(cfg));
	tm_config_option(&cfg, "--mtc-freq", "3");
	tm_config_option(&cfg, "--nom-freq", "12");
	tm_config_option(&cfg, "--cpuid-0x15.eax", "2");
	tm_config_option(&cfg, "--cpuid-0x15.ebx", "100");
	check_buf(b, n, 0);
	img_init_flat(&img, &sp, b, n);
	assert_int_equal(idx_new(&idx, &img, &cfg), 0);
	assert_int_equal(idx_set_chunk_size(idx, 64 << 10), 0);
	assert_int_equal(idx_build(idx), 0);
	ns = idx_nseeks(idx);
	assert_true(ns > 1000);
	expect_summaries(idx, b, n);
	/* Decode every segment from the start; at some, restart from the
	 * index's carry and compare the last stamp of the segment. */
	tm_init(&seq, &cfg);
	all = calloc(ns, sizeof(*all));
	assert_non_null(all);
	for (i = 0; i < ns; i++) {
		struct idx_seek sk, nx;
		struct tm_carry carry, mine;
		uint64_t end = n, k1 = 0, k2 = 0;

		tm_save(&seq, &all[i]);

		assert_int_equal(idx_seek(idx, i, &sk), 0);
		if (i + 1 < ns) {
			assert_int_equal(idx_seek(idx, i + 1, &nx), 0);
			end = nx.offset;
		}
		if (i % 7 == 0 || i % 16 == 0 || i % 16 == 15) {
			assert_int_equal(idx_seek_carry(idx, i, &carry), 0);
			tm_save(&seq, &mine);
			assert_memory_equal(&carry, &mine, sizeof(carry));
			tm_init(&from, &cfg);
			tm_restore(&from, &carry);
			memset(&c, 0, sizeof(c));
			feed(b, sk.offset, end, &from, &c, &k2);
		}
		memset(&a, 0, sizeof(a));
		feed(b, sk.offset, end, &seq, &a, &k1);
		if (i % 7 == 0 || i % 16 == 0 || i % 16 == 15) {
			assert_int_equal(k1, k2);
			assert_int_equal(a.tsc, c.tsc);
			assert_int_equal(a.tsc_frac, c.tsc_frac);
			assert_int_equal(a.cycles, c.cycles);
			assert_int_equal(a.flags, c.flags);
		}
	}
	/* Carries asked for in any order, as a browser stepping forward
	 * and back and jumping asks (some come from the memo of earlier
	 * replays), equal those of the walk from the start. */
	for (i = 0; i < 4000; i++) {
		static const int steps[] = { 1, 1, 1, -1, -1, 2, -3, 17, -40 };
		struct tm_carry carry;
		size_t at;

		if (i % 50 == 0)
			at = (i * 7919) % ns;
		else
			at = (size_t)((long)prev + steps[i % 9] + (long)ns) % ns;
		assert_int_equal(idx_seek_carry(idx, at, &carry), 0);
		assert_memory_equal(&carry, &all[at], sizeof(carry));
		prev = at;
	}
	{
		struct tm_carry carry;

		assert_int_equal(idx_seek_carry(idx, ns, &carry), -pte_invalid);
	}
	/* Two threads asking at once (the screen and a search) replay side
	 * by side and fill the memo for each other: the same carries. */
	{
		struct carry_asker ask[2] = {
			{ idx, all, ns, 1, 0 }, { idx, all, ns, 2, 0 },
		};
		pthread_t t;

		assert_int_equal(pthread_create(&t, NULL, ask_carries, &ask[0]), 0);
		ask_carries(&ask[1]);
		pthread_join(t, NULL);
		assert_int_equal(ask[0].bad, 0);
		assert_int_equal(ask[1].bad, 0);
	}
	free(all);
	idx_free(idx);
	free(b);
}

/* The timing configuration ptgen says for @args (--print-config). */
static int gen_config(const char *args, struct tm_config *cfg)
{
	const char *build = getenv("BUILD");
	char cmd[1024], line[1024], *tok, *save = NULL, *opt = NULL;
	FILE *f;

	memset(cfg, 0, sizeof(*cfg));
	snprintf(cmd, sizeof(cmd), "%s/tools/ptgen %s --print-config 2>/dev/null",
		 build ? build : "build", args);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	if (!fgets(line, sizeof(line), f)) {
		pclose(f);
		return -1;
	}
	pclose(f);
	for (tok = strtok_r(line, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
		if (!opt) {
			opt = tok;
			continue;
		}
		if (tm_config_option(cfg, opt, tok) != 1)
			return -1;
		opt = NULL;
	}
	return 0;
}

/* Build an index of @img with @threads threads and units of @chunk bytes. */
static struct idx *build_timed(const struct img *img, const struct tm_config *cfg,
			       unsigned threads, uint64_t chunk)
{
	struct idx *idx;

	assert_int_equal(idx_new(&idx, img, cfg), 0);
	assert_int_equal(idx_set_threads(idx, threads), 0);
	assert_int_equal(idx_set_chunk_size(idx, chunk), 0);
	assert_int_equal(idx_build(idx), 0);
	return idx;
}

/* The parallel time pass gives the serial pass's carries, bit for bit, at
 * every segment, and the same end of time. */
static void expect_parallel_time(const uint8_t *b, size_t n, const struct tm_config *cfg,
				 const char *what)
{
	static const uint64_t chunks[] = { 64, 1024, 16 << 10, 256 << 10 };
	struct img_span sp;
	struct img img;
	struct idx *ser, *par;
	struct idx_summary ts, tp;
	size_t i, k, ns;

	img_init_flat(&img, &sp, b, n);
	ser = build_timed(&img, cfg, 1, 64 << 10);
	ns = idx_nseeks(ser);
	idx_totals(ser, &ts);
	/* The serial pass (its skim) equals a pkt_next() walk: carries, and
	 * gaps between timing packets as a search sees them. */
	{
		struct tm_model seq;
		struct tm_stamp st;
		uint64_t prev = 0, pseq = 0, hseq = 0, nhalt_all = 0;
		int have_prev = 0;

		tm_init(&seq, cfg);
		for (i = 0; i < ns; i++) {
			struct idx_seek sk, nx;
			struct tm_carry a, w;
			struct idx_summary su;
			struct pkt_decoder dec;
			struct pkt pkt;
			uint64_t gmax = 0, last, slow_off = 0, goff = 0;
			uint64_t hlo = 0, hhi = 0, nh = 0, lo, hi;
			int has_gap = 0, r, has_per = 0;
			struct tm_period per, slow, fast;

			assert_int_equal(idx_seek(ser, i, &sk), 0);
			nx.offset = n;
			if (i + 1 < ns)
				assert_int_equal(idx_seek(ser, i + 1, &nx), 0);
			tm_save(&seq, &w);
			assert_int_equal(idx_seek_carry(ser, i, &a), 0);
			if (memcmp(&a, &w, sizeof(a))) {
				printf("%s: serial carry %zu of %zu differs from a walk\n",
				       what, i, ns);
				fail();
			}
			pkt_decoder_init(&dec, b + sk.offset, b + nx.offset, sk.offset);
			while ((r = pkt_next(&dec, &pkt)) != -pte_eos) {
				if (r < 0) {
					tm_gap(&seq);
					break;
				}
				tm_step(&seq, &pkt, &st);
				/* the sleeps closed, at any packet */
				if (tm_last_halt(&seq, &lo, &hi) != hseq) {
					hseq = tm_last_halt(&seq, &lo, &hi);
					assert_true(lo <= hi);
					nh++;
					hlo += lo;
					hhi += hi;
				}
				/* Every packet looked at: a period may end at
				 * any (the index looks after timing ones). */
				tm_last_period(&seq, &per);
				if (per.seq != pseq) {
					pseq = per.seq;
					per.seq = 0;
					if (!has_per || tm_period_cmp(&per, &slow) < 0) {
						slow = per;
						slow_off = pkt.offset;
					}
					if (!has_per || tm_period_cmp(&per, &fast) > 0)
						fast = per;
					has_per = 1;
				}
				if (pkt.type != PKT_TSC && (pkt.type != PKT_MTC ||
							    (st.flags & TM_F_NO_CONFIG)))
					continue;
				/* (none across a TSC where time went back, or
				 * the next PSB+'s after it) */
				if (have_prev && st.tsc >= prev &&
				    !(pkt.type == PKT_TSC && tm_tsc_jumped(&seq)) &&
				    (!has_gap || st.tsc - prev > gmax)) {
					has_gap = 1;
					gmax = st.tsc - prev;
					goff = pkt.offset;
				}
				have_prev = 1;
				prev = st.tsc;
			}
			assert_int_equal(idx_summary(ser, i, &su), 0);
			assert_true(su.have_time);
			if (su.has_gap != has_gap || su.max_gap != gmax ||
			    (has_gap && su.gap_off != goff)) {
				printf("%s: segment %zu: gap %d %llu, a walk says %d %llu\n",
				       what, i, su.has_gap, (unsigned long long)su.max_gap,
				       has_gap, (unsigned long long)gmax);
				fail();
			}
			{
				struct idx_summary tt;

				assert_int_equal(idx_time_summary(ser, i, &tt), 0);
				assert_int_equal(tt.max_gap, su.max_gap);
				assert_int_equal(tt.has_gap, su.has_gap);
				assert_int_equal(tt.has_period, su.has_period);
				assert_int_equal(tt.slow_off, su.slow_off);
				assert_memory_equal(&tt.slow_period, &su.slow_period,
						    sizeof(tt.slow_period));
			}
			if (su.has_period != has_per ||
			    (has_per && (su.slow_off != slow_off ||
					 memcmp(&su.slow_period, &slow, sizeof(slow)) ||
					 memcmp(&su.fast_period, &fast, sizeof(fast))))) {
				printf("%s: segment %zu: periods %d slow %u/%llu at %llx, "
				       "a walk says %d %u/%llu at %llx\n", what, i,
				       su.has_period, su.slow_period.cycles,
				       (unsigned long long)su.slow_period.ticks,
				       (unsigned long long)su.slow_off, has_per,
				       slow.cycles, (unsigned long long)slow.ticks,
				       (unsigned long long)slow_off);
				fail();
			}
			if (su.nhalt != nh || su.halt_lo != hlo || su.halt_hi != hhi) {
				printf("%s: segment %zu: %u sleeps, halted %llu..%llu; "
				       "a walk says %llu, %llu..%llu\n", what, i, su.nhalt,
				       (unsigned long long)su.halt_lo,
				       (unsigned long long)su.halt_hi,
				       (unsigned long long)nh, (unsigned long long)hlo,
				       (unsigned long long)hhi);
				fail();
			}
			nhalt_all += nh;
			r = idx_last_timing(ser, i, &last);
			assert_int_equal(r, have_prev ? 0 : -pte_no_time);
			if (have_prev)
				assert_int_equal(last, prev);
		}
		/* ptgen's traces sleep now and then */
		if (!strncmp(what, "--seed 2 ", 9))
			assert_true(nhalt_all > 0);
		{
			uint64_t n3, lo3, hi3;

			assert_int_equal(idx_halted(ser, &n3, &lo3, &hi3), 0);
			assert_int_equal(n3, nhalt_all);
		}
	}
#if defined(__x86_64__)
	/* phase 2's sparse loop and the serial time pass's ran: the walk
	 * above checked the latter's time */
	if (strstr(what, "--mix tip") && !strstr(what, "--psb-period") &&
	    idx_skim_vec_bytes(ser) <= n) {
		printf("%s: the sparse loops took %llu bytes of 2 x %zu\n", what,
		       (unsigned long long)idx_skim_vec_bytes(ser), n);
		fail();
	}
#endif
	for (k = 0; k < sizeof(chunks) / sizeof(chunks[0]); k++) {
		par = build_timed(&img, cfg, 3, chunks[k]);
		assert_int_equal(idx_nseeks(par), ns);
		for (i = 0; i < ns; i++) {
			struct tm_carry a, c;
			struct idx_summary sa, sc;
			uint64_t la = 0, lc = 0;

			assert_int_equal(idx_summary(ser, i, &sa), 0);
			assert_int_equal(idx_summary(par, i, &sc), 0);
			assert_true(sc.have_time);
			/* the counts: phase 2's skim (serial) and the time
			 * pass's (parallel, one pass) */
			if (sa.npackets != sc.npackets || sa.cycles != sc.cycles ||
			    sa.max_cyc != sc.max_cyc ||
			    memcmp(sa.per_class, sc.per_class, sizeof(sa.per_class))) {
				printf("%s: chunk %llu: segment %zu: %llu packets, "
				       "%llu cycles, max %llu; one pass: %llu, %llu, %llu\n",
				       what, (unsigned long long)chunks[k], i,
				       (unsigned long long)sa.npackets,
				       (unsigned long long)sa.cycles,
				       (unsigned long long)sa.max_cyc,
				       (unsigned long long)sc.npackets,
				       (unsigned long long)sc.cycles,
				       (unsigned long long)sc.max_cyc);
				fail();
			}
			assert_int_equal(sa.first_ordinal, sc.first_ordinal);
			assert_int_equal(sa.size, sc.size);
			assert_int_equal(sa.have_tsc, sc.have_tsc);
			assert_int_equal(sa.first_tsc, sc.first_tsc);
			assert_int_equal(sa.last_tsc, sc.last_tsc);
			assert_int_equal(sa.tsc_back, sc.tsc_back);
			assert_int_equal(sa.novf, sc.novf);
			assert_int_equal(sa.nerrors, sc.nerrors);
			assert_int_equal(sa.ngaps, sc.ngaps);
			assert_int_equal(sa.has_gap, sc.has_gap);
			assert_int_equal(sa.nhalt, sc.nhalt);
			assert_int_equal(sa.halt_lo, sc.halt_lo);
			assert_int_equal(sa.halt_hi, sc.halt_hi);
			assert_int_equal(sa.max_gap, sc.max_gap);
			assert_int_equal(sa.gap_off, sc.gap_off);
			assert_int_equal(sa.has_period, sc.has_period);
			assert_int_equal(sa.slow_off, sc.slow_off);
			assert_memory_equal(&sa.slow_period, &sc.slow_period,
					    sizeof(sa.slow_period));
			assert_memory_equal(&sa.fast_period, &sc.fast_period,
					    sizeof(sa.fast_period));
			assert_int_equal(idx_last_timing(ser, i, &la),
					 idx_last_timing(par, i, &lc));
			assert_int_equal(la, lc);
			assert_int_equal(idx_seek_carry(ser, i, &a), 0);
			assert_int_equal(idx_seek_carry(par, i, &c), 0);
			if (memcmp(&a, &c, sizeof(a))) {
				printf("%s: chunk %llu: carry %zu of %zu differs\n", what,
				       (unsigned long long)chunks[k], i, ns);
				fail();
			}
		}
#if defined(__x86_64__)
		/* one pass (no phase 2): the time pass's sparse loop ran
		 * (not in segments too short for its blocks) */
		if (strstr(what, "--mix tip") && !strstr(what, "--psb-period") &&
		    idx_skim_vec_bytes(par) <= n / 2) {
			printf("%s: chunk %llu: the sparse loop took %llu bytes of %zu\n",
			       what, (unsigned long long)chunks[k],
			       (unsigned long long)idx_skim_vec_bytes(par), n);
			fail();
		}
#endif
		idx_totals(par, &tp);
		assert_int_equal(tp.last_tsc, ts.last_tsc);
		assert_int_equal(tp.first_tsc, ts.first_tsc);
		assert_int_equal(tp.npackets, ts.npackets);
		assert_int_equal(tp.cycles, ts.cycles);
		assert_int_equal(tp.max_cyc, ts.max_cyc);
		assert_memory_equal(tp.per_class, ts.per_class, sizeof(tp.per_class));
		idx_free(par);
	}
	idx_free(ser);
}

/* How many times of segment @i of @idx (over @b, model @cfg), walked from
 * its carry, lie past @ceil, the first at *@at; the packets before its
 * first TSC are not counted (they have the time before: a damaged PSB+
 * TSC's segment's, past the ceiling). */
static size_t seg_past(const uint8_t *b, struct idx *idx, const struct tm_config *cfg,
		       size_t i, uint64_t ceil, uint64_t *at)
{
	struct pkt_decoder dec;
	struct tm_model tm;
	struct tm_carry c;
	struct tm_stamp st;
	struct pkt pkt;
	uint64_t from, end;
	size_t past = 0;
	int seen = 0;

	assert_int_equal(idx_segment_span(idx, i, &from, &end), 0);
	tm_init(&tm, cfg);
	assert_int_equal(idx_seek_carry(idx, i, &c), 0);
	tm_restore(&tm, &c);
	pkt_decoder_init(&dec, b + from, b + end, from);
	while (pkt_next(&dec, &pkt) >= 0) {
		tm_step(&tm, &pkt, &st);
		seen |= pkt.type == PKT_TSC;
		if (seen && (st.flags & TM_F_TSC) && st.tsc > ceil && !past++)
			*at = pkt.offset;
	}
	return past;
}

/* No time of a sound trace lies past its segment's ceiling,
 * idx_time_ceiling(): walked from each carry, every packet's.  Returns
 * how many segments have one. */
static size_t expect_under_ceiling(const uint8_t *b, size_t n, const struct tm_config *cfg,
				   const char *what)
{
	struct img_span sp;
	struct img img;
	struct idx *idx;
	uint64_t ceil, at = 0;
	size_t i, ns, nceil = 0;

	img_init_flat(&img, &sp, b, n);
	idx = build_timed(&img, cfg, 2, 64 << 10);
	ns = idx_nseeks(idx);
	for (i = 0; i < ns; i++) {
		if (!idx_time_ceiling(idx, i, &ceil))
			continue;
		nceil++;
		if (seg_past(b, idx, cfg, i, ceil, &at))
			fail_msg("%s: segment %zu: a time at 0x%" PRIx64 " past its ceiling %"
				 PRIu64, what, i, at, ceil);
	}
	idx_free(idx);
	return nceil;
}

static void test_parallel_time(void **state)
{
	static const char *const kinds[] = {
		"--seed 2 --size 2MiB",
		"--seed 3 --size 2MiB --cyc-thresh 4 --ovf-rate 0.001",
		"--seed 4 --size 2MiB --exstop-rate 0.01",
		"--seed 5 --size 2MiB --no-mtc",
		"--seed 6 --size 2MiB --no-cyc",
		"--seed 7 --size 2MiB --no-cyc --no-mtc",
		"--seed 8 --size 2MiB --ovf-rate 0.01",
		"--seed 9 --size 2MiB --corrupt-rate 0.00002",
		"--seed 10 --size 2MiB --mtc-freq 0",
		"--seed 11 --size 2MiB --psb-period 256",
		"--seed 12 --size 2MiB --psb-period 65536 --cyc-thresh 2",
		/* sparse: the time pass's tsk_vec() loop */
		"--seed 13 --size 2MiB --mix tip",
		"--seed 14 --size 2MiB --mix tip --cyc-thresh 4 --ovf-rate 0.001",
		"--seed 15 --size 2MiB --mix tip --exstop-rate 0.01",
		"--seed 17 --size 2MiB --mix tip --psb-period 256",
		"--seed 16 --size 2MiB --mix tnt",
	};
	static const struct {
		const char *name;
		const char *opt[10];
	} real[] = {
		{ "dynamorio-drpt2trace/head_test_simple.raw.pt.bin",
		  { "--cpu", "6/85/4", "--mtc-freq", "3", "--nom-freq", "37",
		    "--cpuid-0x15.eax", "2", "--cpuid-0x15.ebx", "308" } },
		{ "dynamorio-drpt2trace/hist_2aad718d_test_simple.tracedir.pt.bin",
		  { "--cpu", "6/85/7", "--mtc-freq", "3", "--nom-freq", "37",
		    "--cpuid-0x15.eax", "2", "--cpuid-0x15.ebx", "308" } },
		{ "dynamorio-drpt2trace/hist_316e5058_drptpostprocessor.pt.bin",
		  { "--cpu", "6/85/4", "--mtc-freq", "3", "--nom-freq", "37",
		    "--cpuid-0x15.eax", "2", "--cpuid-0x15.ebx", "308" } },
		{ "keeper-perf-event-sample/traced_data.bin", { NULL } },
		{ "quipper-perf-intel-pt/perf.data.intel_pt-4.14.idx0.cpu0.pt",
		  { "--cpu", "6/78/3", "--mtc-freq", "3", "--nom-freq", "12",
		    "--cpuid-0x15.eax", "2", "--cpuid-0x15.ebx", "100" } },
		{ "quipper-perf-intel-pt/perf.data.intel_pt-4.14.idx3.cpu3.pt",
		  { "--cpu", "6/78/3", "--mtc-freq", "3", "--nom-freq", "12",
		    "--cpuid-0x15.eax", "2", "--cpuid-0x15.ebx", "100" } },
		{ "quipper-perf-intel-pt/perf.data.piped.intel_pt-4.14.idx0.cpu0.pt",
		  { "--cpu", "6/78/3", "--mtc-freq", "3", "--nom-freq", "12",
		    "--cpuid-0x15.eax", "2", "--cpuid-0x15.ebx", "100" } },
		{ "quipper-perf-intel-pt/perf.data.piped.intel_pt-4.14.idx3.cpu3.pt",
		  { "--cpu", "6/78/3", "--mtc-freq", "3", "--nom-freq", "12",
		    "--cpuid-0x15.eax", "2", "--cpuid-0x15.ebx", "100" } },
	};
	struct tm_config cfg;
	size_t k, j, n = 0;
	uint8_t *b;
	int ngen = 0, nreal = 0;

	(void)state;
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		b = generate(kinds[k], &n);
		if (!b)
			continue;
		assert_int_equal(gen_config(kinds[k], &cfg), 0);
		expect_parallel_time(b, n, &cfg, kinds[k]);
		assert_true(expect_under_ceiling(b, n, &cfg, kinds[k]) > 0);
		/* a sparse kind with the SSE2 loops too, which an AVX2
		 * machine runs nowhere else */
		if (strstr(kinds[k], "--seed 13 ") && idx_skim_use_avx2(0) == 0) {
			expect_parallel_time(b, n, &cfg, kinds[k]);
			idx_skim_use_avx2(1);
		}
		free(b);
		ngen++;
	}
	for (k = 0; k < sizeof(real) / sizeof(real[0]); k++) {
		b = read_shared(real[k].name, &n);
		if (!b)
			continue;
		memset(&cfg, 0, sizeof(cfg));
		for (j = 0; j + 1 < 10 && real[k].opt[j]; j += 2)
			assert_int_equal(tm_config_option(&cfg, real[k].opt[j],
							  real[k].opt[j + 1]), 1);
		expect_parallel_time(b, n, &cfg, real[k].name);
		expect_under_ceiling(b, n, &cfg, real[k].name);
		free(b);
		nreal++;
	}
	if (!ngen && !nreal) {
		printf("skipped: no ptgen in $BUILD/tools, no shared traces\n");
		skip();
	}
}

/* Set byte @k of the payload of the first PSB+ TSC at or after byte @at of
 * @b to @v (one damaged TSC).  Returns its segment's PSB offset. */
static uint64_t patch_psb_tsc(uint8_t *b, size_t n, size_t at, int k, uint8_t v)
{
	const uint8_t *at_psb = pkt_find_psb(b + at, b + n);
	struct pkt_decoder dec;
	struct pkt pkt;

	assert_non_null(at_psb);
	assert_int_equal(pkt_decoder_init(&dec, at_psb, b + n, (uint64_t)(at_psb - b)), 0);
	while (pkt_next(&dec, &pkt) > 0 && pkt.type != PKT_PSBEND)
		if (pkt.type == PKT_TSC) {
			b[pkt.offset + 1 + (size_t)k] = v;
			return (uint64_t)(at_psb - b);
		}
	fail();
	return 0;
}

/* One PSB+ TSC damaged in a ptgen trace (timed as CPU @cpu, NULL: as
 * ptgen says), in its middle, its first or its last segment (@where 0,
 * -1, 1), or its segment 10 (@where 2: seed 5's
 * has a TSC outside PSB+ too), far into the future (its top byte 0x7f)
 * or the past (its TSCs are about 2^44: byte 5 cleared): the parallel
 * time pass equals the serial one; the index names the damaged segment an
 * outlier (idx_time_outlier()), and only it; the trace's time range is the
 * sound trace's (at an edge, without the damaged segment's own times); a
 * lookup by the time of a segment finds it; from the second segment after
 * the damage on, the time model's carries are those of the sound trace
 * (the model went back at the PSB+ after the damage, tm.h). */
static void damaged_tsc(const char *kind, const char *cpu, int where)
{
	static const struct {
		int byte;
		uint8_t v;
	} dmg[] = { { 6, 0x7f }, { 5, 0x00 } };
	struct img_span sp, sp2;
	struct img img, img2;
	struct idx *good, *bad;
	struct idx_summary tg, tb;
	struct tm_config cfg;
	uint8_t *b0, *b;
	size_t n = 0, ns, i, d, k, seg, nout;
	uint64_t off, at_off, t, gmax = 0, pmax = 0, hmax = 0;
	struct idx_summary g1, gl;
	struct idx_seek sk;

	b0 = generate(kind, &n);
	if (!b0) {
		printf("skipped: no ptgen in $BUILD/tools\n");
		skip();
	}
	assert_int_equal(gen_config(kind, &cfg), 0);
	if (cpu)
		assert_int_equal(tm_config_option(&cfg, "--cpu", cpu), 1);
	img_init_flat(&img, &sp, b0, n);
	good = build_timed(&img, &cfg, 1, 64 << 10);
	ns = idx_nseeks(good);
	idx_totals(good, &tg);
	assert_int_equal(idx_summary(good, 1, &g1), 0);
	assert_int_equal(idx_summary(good, ns - 2, &gl), 0);
	assert_int_equal(idx_seek(good, where < 0 ? 0 : where == 1 ? ns - 1 : 10, &sk), 0);
	at_off = where ? sk.offset : n / 2;
	for (i = 0; i < ns; i++) {
		struct idx_summary s;

		assert_int_equal(idx_summary(good, i, &s), 0);
		gmax = s.max_gap > gmax ? s.max_gap : gmax;
		if (s.has_period && s.slow_period.ticks > pmax)
			pmax = s.slow_period.ticks;
		hmax = s.halt_hi > hmax ? s.halt_hi : hmax;
	}
	b = malloc(n);
	assert_non_null(b);
	for (d = 0; d < sizeof(dmg) / sizeof(dmg[0]); d++) {
		memcpy(b, b0, n);
		off = patch_psb_tsc(b, n, at_off, dmg[d].byte, dmg[d].v);
		assert_int_not_equal(memcmp(b, b0, n), 0);
		expect_parallel_time(b, n, &cfg, kind);
		img_init_flat(&img2, &sp2, b, n);
		bad = build_timed(&img2, &cfg, 1, 64 << 10);
		assert_int_equal(idx_nseeks(bad), ns);
		assert_int_equal(idx_find(bad, off, &k), 0);
		for (i = 0, nout = 0; i < ns; i++)
			nout += (size_t)idx_time_outlier(bad, i);
		assert_int_equal(nout, 1);
		assert_int_equal(idx_time_outlier(bad, ns), 0);
		assert_true(idx_time_outlier(bad, k));
		idx_totals(bad, &tb);
		if (where < 0) {
			/* (from the next segment's first TSC) */
			assert_true(tb.first_tsc >= tg.first_tsc && tb.first_tsc <= g1.first_tsc);
		} else {
			assert_int_equal(tb.first_tsc, tg.first_tsc);
		}
		if (where == 1) {
			/* (to the segment before's last TSC at least) */
			assert_true(tb.last_tsc >= gl.last_tsc && tb.last_tsc <= tg.last_tsc);
		} else {
			assert_int_equal(tb.last_tsc, tg.last_tsc);
		}
		for (i = 1; i < 8; i++) {
			struct idx_summary s;
			size_t at = ns * i / 8;

			assert_int_equal(idx_summary(good, at, &s), 0);
			assert_true(s.have_tsc);
			assert_int_equal(idx_find_tsc(bad, s.first_tsc, &seg), 0);
			/* (the damaged segment's own time is skipped) */
			assert_true(seg == at || (at == k && seg + 1 == k));
		}
		for (i = k + 2; i < ns; i++) {
			struct tm_carry a, c;

			assert_int_equal(idx_seek_carry(good, i, &a), 0);
			assert_int_equal(idx_seek_carry(bad, i, &c), 0);
			/* (after a far-past one, time went back at k only:
			 * a TSC outside PSB+ in segment k made its MTCs run a
			 * CTC wrap ahead, and time go back at k + 1 too, its
			 * measurements dropped; the state says so) */
			if (i == k + 2 && !dmg[d].v && k)
				assert_int_equal(a.state, c.state);
			/* (at k + 2 the model still knows it went back, and
			 * without MTCs the estimate after the PSB+ TSC where
			 * it did counted from it, not from a held one) */
			if (i == k + 2) {
				assert_true(a.anchor == c.anchor && a.ratio == c.ratio);
				continue;
			}
			if (memcmp(&a, &c, sizeof(a))) {
				printf("damage at segment %zu: carry %zu differs\n", k, i);
				fail();
			}
		}
		/* No period or sleep longer than the sound trace's longest,
		 * nor a gap but in the damaged segment. */
		for (i = 0; i < ns; i++) {
			struct idx_summary s;

			assert_int_equal(idx_summary(bad, i, &s), 0);
			/* (its own TSC's jump forward is a gap; a sleep the
			 * damaged TSC closes (seed 5's segment 10: a far-future
			 * one), or one that a sound TSC closes after a far-past
			 * first one, is as long as the jump: README's limits,
			 * not mended) */
			if (i == k)
				s.max_gap = 0;
			if (i == k && where)
				s.halt_hi = 0;
			if (s.max_gap > gmax || (s.has_period && s.slow_period.ticks > pmax) ||
			    s.halt_hi > hmax)
				printf("%s, %s: segment %zu (damage at %zu): gap %llu > %llu, "
				       "period %llu > %llu, or halt %llu > %llu\n",
				       kind, dmg[d].v ? "far future" : "far past", i, k,
				       (unsigned long long)s.max_gap, (unsigned long long)gmax,
				       (unsigned long long)s.slow_period.ticks,
				       (unsigned long long)pmax,
				       (unsigned long long)s.halt_hi, (unsigned long long)hmax);
			assert_true(s.max_gap <= gmax);
			assert_true(!s.has_period || s.slow_period.ticks <= pmax);
			assert_true(s.halt_hi <= hmax);
		}
		assert_int_equal(idx_last_timing(bad, ns - 1, &t), 0);
		idx_free(bad);
	}
	free(b);
	idx_free(good);
	free(b0);
}

/* damaged_tsc() in the middle, the first and the last segment of a trace
 * with MTCs and of one with TSCs only (which calibrates from TSC to TSC),
 * on ptgen's CPU (6/78, erratum SKL168: no period spans a PSB) and on
 * one without the erratum (6/85/4: TSC-to-TSC periods end at PSB+ TSCs,
 * the damaged one's too). */
static void test_damaged_tsc(void **state)
{
	int w;

	(void)state;
	for (w = -1; w <= 1; w++) {
		damaged_tsc("--seed 5 --size 1MiB", NULL, w);
		damaged_tsc("--seed 6 --size 1MiB --no-mtc", NULL, w);
		damaged_tsc("--seed 6 --size 1MiB --no-mtc", "6/85/4", w);
	}
	damaged_tsc("--seed 5 --size 1MiB", NULL, 2);
	damaged_tsc("--seed 5 --size 1MiB", "6/85/4", 2);
}

/* The first PSB+ TSC moved forward by less than the trace's length: it
 * lies inside the time range, and is still no time origin (it was kept:
 * every time counted from the damaged TSC, the axis started before 0). */
static void test_time_origin_near(void **state)
{
	struct img_span sp, sp2;
	struct img img, img2;
	struct idx *good, *bad;
	struct idx_summary tg, tb;
	struct tm_config cfg;
	const char *kind = "--seed 5 --size 1MiB";
	uint8_t *b0, *b;
	size_t n = 0, i;
	uint64_t off, t0 = 0, t;

	(void)state;
	b0 = generate(kind, &n);
	if (!b0) {
		printf("skipped: no ptgen in $BUILD/tools\n");
		skip();
	}
	assert_int_equal(gen_config(kind, &cfg), 0);
	b = malloc(n);
	assert_non_null(b);
	memcpy(b, b0, n);
	off = patch_psb_tsc(b, n, 0, 2, 0x64);
	img_init_flat(&img, &sp, b0, n);
	img_init_flat(&img2, &sp2, b, n);
	good = build_timed(&img, &cfg, 1, 64 << 10);
	bad = build_timed(&img2, &cfg, 1, 64 << 10);
	idx_totals(good, &tg);
	idx_totals(bad, &tb);
	/* the damaged TSC: the first of the first PSB+ */
	for (i = off; i + 8 <= n && b[i] != 0x19; i++)
		;
	for (t0 = 0, t = 0; t < 7; t++)
		t0 |= (uint64_t)b[i + 1 + t] << (8 * t);
	assert_true(t0 > tg.first_tsc && t0 < tg.last_tsc);
	assert_true(idx_time_outlier(bad, 0));
	assert_true(t0 >= tb.first_tsc && t0 <= tb.last_tsc);
	assert_int_equal(idx_time_origin(bad, &t0), 1);
	assert_int_equal(t0, tb.first_tsc);
	assert_int_equal(idx_time_origin(bad, &t0), 0);
	/* a sound trace's origin stays */
	t = tg.first_tsc;
	assert_int_equal(idx_time_origin(good, &t), 0);
	assert_int_equal(t, tg.first_tsc);
	idx_free(bad);
	idx_free(good);
	free(b);
	free(b0);
}

/* Add @delta to every TSC packet's payload of @b at or after @from
 * (@dir 1) or before it (@dir -1). */
static void shift_tscs(uint8_t *b, size_t n, size_t from, int dir, int64_t delta)
{
	struct pkt_decoder dec;
	struct pkt pkt;
	int r;

	assert_int_equal(pkt_decoder_init(&dec, b, b + n, 0), 0);
	assert_int_equal(pkt_sync_forward(&dec), 0);
	while ((r = pkt_next(&dec, &pkt)) != -pte_eos) {
		uint64_t v = 0;
		int k;

		if (r < 0 || pkt.type != PKT_TSC ||
		    (dir > 0 ? pkt.offset < from : pkt.offset >= from))
			continue;
		for (k = 0; k < 7; k++)
			v |= (uint64_t)b[pkt.offset + 1 + k] << (8 * k);
		v += (uint64_t)delta;
		for (k = 0; k < 7; k++)
			b[pkt.offset + 1 + k] = (uint8_t)(v >> (8 * k));
	}
}

/* A sound trace idle for 2^41 ticks (half an hour at 1.2 GHz) before its
 * last PSB, or after its first: the edge segment is no outlier (2^40 made
 * it one: its times were marked disputed, :stalls left the gap out, the
 * timeline's axis ended before it, found by a review). */
static void test_edge_idle(void **state)
{
	const char *kind = "--seed 9 --size 256KiB --no-mtc";
	struct img_span sp;
	struct img img;
	struct tm_config cfg;
	struct idx *idx;
	struct idx_seek sk;
	uint8_t *b0, *b;
	size_t n = 0, ns;
	int end;

	(void)state;
	b0 = generate(kind, &n);
	if (!b0) {
		printf("skipped: no ptgen in $BUILD/tools\n");
		skip();
	}
	assert_int_equal(gen_config(kind, &cfg), 0);
	b = malloc(n);
	assert_non_null(b);
	for (end = 0; end < 2; end++) {
		memcpy(b, b0, n);
		img_init_flat(&img, &sp, b0, n);
		idx = build_timed(&img, &cfg, 1, 64 << 10);
		ns = idx_nseeks(idx);
		assert_int_equal(idx_seek(idx, end ? ns - 1 : 1, &sk), 0);
		idx_free(idx);
		shift_tscs(b, n, sk.offset, end ? 1 : -1, end ? 1ll << 41 : -(1ll << 41));
		img_init_flat(&img, &sp, b, n);
		idx = build_timed(&img, &cfg, 1, 64 << 10);
		assert_int_equal(idx_time_outlier(idx, end ? ns - 1 : 0), 0);
		idx_free(idx);
	}
	free(b);
	free(b0);
}

/* A TSC outside PSB+ far in the future (top byte 0x7f, the last TSC of
 * its segment): its segment is no outlier, its ceiling lies below it and
 * the trace's time range ends where the sound trace's does (it ran to
 * that TSC).  A stall (that TSC and all after it 2^30 ticks on) is sound:
 * no time past a ceiling. */
static void test_time_ceiling(void **state)
{
	const char *kind = "--seed 5 --size 1MiB";
	struct pkt_decoder dec;
	struct pkt pkt;
	struct img_span sp;
	struct img img;
	struct tm_config cfg;
	struct idx *good, *bad;
	struct idx_summary tg, tb;
	uint8_t *b0, *b;
	size_t n = 0, seg, npsb = 0;
	uint64_t at = 0, ceil;
	int in_psb = 0;

	(void)state;
	b0 = generate(kind, &n);
	if (!b0) {
		printf("skipped: no ptgen in $BUILD/tools\n");
		skip();
	}
	assert_int_equal(gen_config(kind, &cfg), 0);
	/* the last TSC outside PSB+ of the 128th segment */
	assert_int_equal(pkt_decoder_init(&dec, b0, b0 + n, 0), 0);
	while (pkt_next(&dec, &pkt) > 0 && npsb < 129) {
		if (pkt.type == PKT_PSB)
			npsb++, in_psb = 1;
		else if (pkt.type == PKT_PSBEND)
			in_psb = 0;
		else if (pkt.type == PKT_TSC && !in_psb && npsb == 128)
			at = pkt.offset;
	}
	assert_true(at > 0);
	b = malloc(n);
	assert_non_null(b);
	memcpy(b, b0, n);
	b[at + 7] = 0x7f;
	img_init_flat(&img, &sp, b0, n);
	good = build_timed(&img, &cfg, 2, 64 << 10);
	img_init_flat(&img, &sp, b, n);
	bad = build_timed(&img, &cfg, 2, 64 << 10);
	assert_int_equal(idx_find(bad, at, &seg), 0);
	assert_false(idx_time_outlier(bad, seg));
	assert_int_equal(idx_time_ceiling(bad, seg, &ceil), 1);
	assert_true(ceil < 0x7f000000000000ull);
	assert_int_equal(idx_time_ceiling(good, seg, &ceil), 1);
	assert_int_equal(idx_totals(good, &tg), 0);
	assert_int_equal(idx_totals(bad, &tb), 0);
	assert_int_equal(tb.first_tsc, tg.first_tsc);
	assert_int_equal(tb.last_tsc, tg.last_tsc);
	idx_free(bad);
	/* the stall */
	memcpy(b, b0, n);
	shift_tscs(b, n, at, 1, 1ll << 30);
	expect_under_ceiling(b, n, &cfg, "a stall");
	idx_free(good);
	free(b);
	free(b0);
}

/* A sound trace read with a wrong P1 (--nom-freq 40 for 12) and no
 * CPUID.15H: the CYC estimates run past many segments' ceilings, but no
 * TSC payload does, so none of its times is taken for damaged (they
 * were: '?' and "a damaged TSC before it" on most rows, found by a
 * review). */
static void test_ceiling_wrong_p1(void **state)
{
	const char *kind = "--seed 5 --size 1MiB";
	struct img_span sp;
	struct img img;
	struct tm_config cfg;
	struct idx *idx;
	uint64_t ceil, at;
	size_t i, ns, past = 0;
	uint8_t *b;
	size_t n = 0;

	(void)state;
	b = generate(kind, &n);
	if (!b) {
		printf("skipped: no ptgen in $BUILD/tools\n");
		skip();
	}
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(tm_config_option(&cfg, "--mtc-freq", "3"), 1);
	assert_int_equal(tm_config_option(&cfg, "--nom-freq", "40"), 1);
	img_init_flat(&img, &sp, b, n);
	idx = build_timed(&img, &cfg, 2, 64 << 10);
	ns = idx_nseeks(idx);
	for (i = 0; i < ns; i++) {
		assert_int_equal(idx_time_damage_ceiling(idx, i, &ceil), 0);
		if (idx_time_ceiling(idx, i, &ceil))
			past += seg_past(b, idx, &cfg, i, ceil, &at);
	}
	/* (the estimates do run past: the test tests something) */
	assert_true(past > 0);
	idx_free(idx);
	free(b);
}

/* The model's state that idx_time_feed() must leave as tm_advance() does
 * (all but the caches of the last MHz asked for). */
static int feed_same(const struct tm_model *a, const struct tm_model *b, const char **what)
{
#define FEED_F(x) if (a->x != b->x) { *what = #x; return 0; }
	FEED_F(est) FEED_F(anchor) FEED_F(cyc_est) FEED_F(ref_time) FEED_F(cal)
	FEED_F(ratio) FEED_F(cycles) FEED_F(pending) FEED_F(cyc_cal) FEED_F(state)
	FEED_F(ref_ctc) FEED_F(last_mtc) FEED_F(cbr) FEED_F(nper) FEED_F(per_ticks)
	FEED_F(per_cyc) FEED_F(nhalt) FEED_F(halt_lo) FEED_F(halt_hi) FEED_F(period)
	FEED_F(tsc_jumped)
#undef FEED_F
	return 1;
}

/* idx_time_feed() from any packet to any later one of a segment (from
 * the index's carry at its PSB) leaves the model as tm_advance() on each
 * packet does, the decoder where a pkt_next() walk leaves it (in a BIP
 * block or not), and the next packet's stamp the same; a cut past a
 * decode error says so, the model taking the loss; a stop flag set stops
 * it.  ptgen traces with OVFs, corrupt bytes, sleeps, without CYC, with a
 * cycle threshold, each without and with ptgen's timing configuration. */
static void test_time_feed(void **state)
{
	static const char *const gens[] = {
		"--seed 3 --size 1MiB --ovf-rate 0.001 --corrupt-rate 0.00002",
		"--seed 4 --size 1MiB --no-cyc --mix tip",
		"--seed 5 --size 1MiB --cyc-thresh 3 --mix tnt",
		/* feeds long enough for the sparse loop (the last KiBs) */
		"--seed 6 --size 1MiB --mix tip --psb-period 6144",
	};
	static const char *const opts[] = { "--mtc-freq", "3", "--nom-freq", "12",
		"--cpuid-0x15.eax", "2", "--cpuid-0x15.ebx", "100" };
	size_t g, nchecks = 0, nlost = 0, nblock = 0;
	unsigned long long seed = 88172645463325252ull;

	(void)state;
	for (g = 0; g < 2 * sizeof(gens) / sizeof(gens[0]); g++) {
		size_t n = 0, ns, i, k;
		uint8_t *d = generate(gens[g / 2], &n);
		struct tm_config cfg;
		struct img_span sp;
		struct img img;
		struct idx *idx;

		if (!d) {
			printf("skipped: no ptgen in $BUILD/tools\n");
			skip();
		}
		memset(&cfg, 0, sizeof(cfg));
		for (k = 0; g % 2 && k < sizeof(opts) / sizeof(opts[0]); k += 2)
			assert_int_equal(tm_config_option(&cfg, opts[k], opts[k + 1]), 1);
		img_init_flat(&img, &sp, d, n);
		assert_int_equal(idx_new(&idx, &img, &cfg), 0);
		assert_int_equal(idx_build(idx), 0);
		ns = idx_nseeks(idx);
		for (i = 0; i < ns; i++) {
			uint64_t off, end, offs[4096];
			int8_t bips[4096];
			struct tm_model base;
			struct tm_carry c;
			struct pkt_decoder dec;
			struct pkt pkt;
			size_t np = 0, t;
			int r, err = 0;

			assert_int_equal(idx_segment_span(idx, i, &off, &end), 0);
			tm_init(&base, &cfg);
			assert_true(idx_seek_carry(idx, i, &c) >= 0);
			if (idx_seek_carry(idx, i, &c) == 0)
				tm_restore(&base, &c);
			pkt_decoder_init(&dec, d + off, d + end, off);
			for (;;) {
				if (np == 4096)
					break;
				offs[np] = (uint64_t)(dec.pos - d);
				bips[np++] = dec.bip_sz;
				r = pkt_next(&dec, &pkt);
				if (r < 0) {
					err = r != -pte_eos;
					break;
				}
			}
			if (np == 4096)
				continue;
			for (t = 0; t < 6; t++) {
				size_t a, b, q;
				struct tm_model m1 = base, m2;
				struct pkt_decoder d1, d2;
				const char *what = "";
				int fr, lost = 0;

				seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
				/* the first from the PSB, the second to the end
				 * (past a decode error, if there is one) */
				a = t > 1 ? seed % np : 0;
				b = t == 1 ? np - 1 : a + (seed >> 20) % (np - a);
				if (bips[a] >= 0)
					continue;
				pkt_decoder_init(&d1, d + off, d + end, off);
				for (q = 0; q < a; q++) {
					pkt_next(&d1, &pkt);
					tm_advance(&m1, &pkt);
				}
				m2 = m1;
				d2 = d1;
				for (q = a; q < b; q++) {
					pkt_next(&d1, &pkt);
					tm_advance(&m1, &pkt);
				}
				if (b == np - 1 && err) {
					tm_gap(&m1);
					lost = 1;
				}
				fr = idx_time_feed(&d2, lost ? d + end : d + offs[b], &m2, NULL);
				assert_int_equal(fr, lost);
				if (!feed_same(&m1, &m2, &what))
					fail_msg("seg %zu, cut %#" PRIx64 "..%#" PRIx64 ": %s differs",
						 i, offs[a], offs[b], what);
				nchecks++;
				nlost += (size_t)lost;
				if (lost || b == np - 1)
					continue;
				assert_ptr_equal(d1.pos, d2.pos);
				assert_int_equal(d1.bip_sz, d2.bip_sz);
				nblock += d2.bip_sz >= 0;
				{
					struct tm_stamp s1, s2;
					struct pkt p1, p2;

					assert_int_equal(pkt_next(&d1, &p1), pkt_next(&d2, &p2));
					assert_int_equal(p1.type, p2.type);
					tm_step(&m1, &p1, &s1);
					tm_step(&m2, &p2, &s2);
					assert_memory_equal(&s1, &s2, sizeof(s1));
				}
			}
		}
		/* a stop flag set: stopped at the first look (256 KiB in) */
		{
			_Atomic int stop = 1;
			struct pkt_decoder dd;
			struct tm_model m;
			uint64_t off, end;

			tm_init(&m, &cfg);
			assert_int_equal(idx_segment_span(idx, 0, &off, &end), 0);
			pkt_decoder_init(&dd, d + off, d + n, off);
			assert_int_equal(idx_time_feed(&dd, d + off, &m, &stop), 0);
			assert_int_equal(idx_time_feed(NULL, d + off, &m, NULL), -pte_invalid);
		}
		idx_free(idx);
		free(d);
	}
	assert_true(nchecks > 1000);
	assert_true(nlost > 0);
	(void)nblock;
}

/*
 * One class of one-byte packets for more than 64 KiB with no PSB between
 * (a tnt.8, then a hole of zeros: pads): the time pass's summaries count
 * them as phase 2's do.  Its loop counts in 16-bit lanes, and its 16-byte
 * steps may pass the end it was given by 15 bytes.
 */
static void test_long_pads(void **state)
{
	size_t n = 0, cap = 300 << 10;
	uint8_t *b = malloc(cap);
	struct img_span sp;
	struct img img;
	struct idx *idx;
	int k;

	(void)state;
	assert_non_null(b);
	memset(b, 0, cap);
	for (k = 0; k < 2; k++) {
		memcpy(b + n, psb, sizeof(psb));
		n += sizeof(psb);
		b[n++] = 2;
		b[n++] = 0x23;	/* psbend */
		b[n++] = 0x04;	/* tnt.8, then pads */
		n += 140 << 10;
	}
	img_init_flat(&img, &sp, b, n);
	/* the time pass's summaries, then phase 2's */
	for (k = 0; k < 2; k++) {
		assert_int_equal(idx_new(&idx, &img, NULL), 0);
		assert_int_equal(idx_set_threads(idx, 2), 0);
		assert_int_equal(idx_set_time_pass(idx, !k), 0);
		assert_int_equal(idx_build(idx), 0);
		assert_int_equal(idx_nseeks(idx), 2);
		expect_summaries(idx, b, n);
		idx_free(idx);
	}
	free(b);
}

/*
 * A phase 3 unit whose provisional start disagrees with the true carry is
 * decoded again from the true one until the two agree at a carry point;
 * that point's carry is stored too (it was left unwritten: whatever the
 * allocator had there).  Segments of 256 bytes, a TSC in every PSB+ but
 * those of segments 12 to 14: the unit of segments 15 to 19 (chunks of
 * five segments) warms up over 13 and 14, so it starts without a TSC,
 * while the true carry has segment 11's; both take segment 15's and
 * agree at segment 16, inside the unit.  Its carry must be the serial
 * pass's, as every other.
 */
static void test_replay_meets(void **state)
{
	enum { SEG = 256, NSEG = 40 };
	uint8_t *b = calloc(NSEG, SEG);
	struct img_span sp;
	struct img img;
	struct idx *ser, *par;
	size_t i, k;

	(void)state;
	assert_non_null(b);
	for (i = 0; i < NSEG; i++) {
		uint8_t *p = b + i * SEG;
		uint64_t tsc = 1000000 + 5000 * (uint64_t)i;

		memcpy(p, psb, sizeof(psb));
		p += sizeof(psb);
		if (i < 12 || i > 14) {
			*p++ = 0x19;	/* tsc */
			for (k = 0; k < 7; k++)
				*p++ = (uint8_t)(tsc >> 8 * k);
		}
		*p++ = 2;
		*p++ = 0x23;	/* psbend, then pads */
	}
	img_init_flat(&img, &sp, b, NSEG * SEG);
	ser = build_timed(&img, NULL, 1, 64 << 10);
	par = build_timed(&img, NULL, 2, 5 * SEG);
	assert_int_equal(idx_nseeks(ser), NSEG);
	assert_int_equal(idx_nseeks(par), NSEG);
	for (i = 0; i < NSEG; i++) {
		struct tm_carry a, c;
		struct idx_summary sa, sc;
		uint64_t la = 0, lc = 0;

		assert_int_equal(idx_seek_carry(ser, i, &a), 0);
		assert_int_equal(idx_seek_carry(par, i, &c), 0);
		if (memcmp(&a, &c, sizeof(a))) {
			printf("carry %zu differs\n", i);
			fail();
		}
		/* and the gaps around the point where the two meet */
		assert_int_equal(idx_time_summary(ser, i, &sa), 0);
		assert_int_equal(idx_time_summary(par, i, &sc), 0);
		assert_int_equal(sa.has_gap, sc.has_gap);
		assert_int_equal(sa.max_gap, sc.max_gap);
		assert_int_equal(sa.gap_off, sc.gap_off);
		assert_int_equal(idx_last_timing(ser, i, &la), idx_last_timing(par, i, &lc));
		assert_int_equal(la, lc);
	}
	idx_free(par);
	idx_free(ser);
	free(b);
}

/*
 * The time pass's loops over runs of CYCs leave the model as a walk does,
 * the cycles still pending included: tsk_vec() for sparse runs (which a
 * feed takes after IDX_SKIM_LEARN bytes of them), tsk16() for dense ones
 * (one- and two-byte CYCs among tnt.8s).  Long runs of CYCs among tips,
 * tnt.8s, fups and pads (@dense: mostly tnt.8s and CYCs), now and then an
 * mtc or a mode (which end a run), cut after a quiet stretch (a fup and
 * pads settle nothing) where the CYCs after the last CYC-eligible packet
 * are still pending.
 */
static void time_runs_each(int dense)
{
	static const uint8_t ipcode[] = { 1, 2, 3, 4, 6 };
	static const uint8_t ipbytes[8] = { 0, 2, 4, 6, 6, 0, 8, 0 };
	static const uint8_t tipop[] = { 0x0d, 0x11, 0x01 };
	const size_t cap = 96 << 10;
	uint8_t *b = malloc(cap + 64);
	size_t n = 0, cuts[64], ncut = 0, k, npend = 0;
	struct tm_config cfg;
	struct tm_model walk;
	struct pkt_decoder dec;
	struct pkt pkt;
	unsigned v;
	int full = 0;

	assert_non_null(b);
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(tm_config_option(&cfg, "--mtc-freq", "3"), 1);
	assert_int_equal(tm_config_option(&cfg, "--nom-freq", "12"), 1);
	assert_int_equal(tm_config_option(&cfg, "--cpuid-0x15.eax", "2"), 1);
	assert_int_equal(tm_config_option(&cfg, "--cpuid-0x15.ebx", "100"), 1);
	/* a time to count from: tsc, tma, cbr */
	memcpy(b, "\x19\x00\x10\x00\x00\x00\x01\x00", 8);
	memcpy(b + 8, "\x02\x73\x34\x12\x00\x10\x00", 7);
	memcpy(b + 15, "\x02\x03\x20\x00", 4);
	n = 19;
	while (n + 64 < cap) {
		unsigned r = rnd() % 200;

		if (dense && r >= 110)	/* tnt.8s and CYCs mostly */
			r = r < 190 ? r % 110 : r;
		if (!full && n > 8192) {
			/* once: a block of one-byte CYCs only (its count
			 * fills a field of tsk_vec()'s sums) */
			for (v = 0; v < 200; v++)
				b[n++] = (uint8_t)(rnd() << 3 | 3);
			full = 1;
		} else if (ncut < 64 && n > 4096 && rnd() < 2) {
			/* quiet: a cyc, a fup and pads, then a cut */
			b[n++] = (uint8_t)(rnd() << 3 | 7);
			b[n++] = (uint8_t)(rnd() << 1);
			b[n++] = 0x3d;		/* fup, 2 IP bytes */
			b[n++] = rnd();
			b[n++] = rnd();
			for (v = 0; v < 20; v++)
				b[n++] = 0;
			cuts[ncut++] = n;
		} else if (r < 70) {	/* cyc: 1 or 2 bytes */
			v = rnd() % 3 == 0;
			b[n++] = (uint8_t)(rnd() << 3 | 3 | (v ? 4 : 0));
			if (v)
				b[n++] = (uint8_t)(rnd() << 1);
		} else if (r < 110) {	/* tnt.8 */
			v = rnd() & 0xfe;
			b[n++] = (uint8_t)(v == 2 || v == 0 ? 4 : v);
		} else if (r < 160) {	/* tip, tip.pge, tip.pgd */
			k = ipcode[rnd() % 5];
			b[n++] = (uint8_t)(tipop[rnd() % 3] | k << 5);
			for (v = 0; v < ipbytes[k]; v++)
				b[n++] = rnd();
		} else if (r < 180) {	/* fup */
			k = ipcode[rnd() % 5];
			b[n++] = (uint8_t)(0x1d | k << 5);
			for (v = 0; v < ipbytes[k]; v++)
				b[n++] = rnd();
		} else if (r < 195) {
			b[n++] = 0;	/* pad */
		} else if (r < 198) {
			b[n++] = 0x59;	/* mtc */
			b[n++] = rnd();
		} else {		/* mode.exec */
			b[n++] = 0x99;
			b[n++] = (uint8_t)(rnd() & 3);
		}
	}
	assert_true(ncut > 8);
	/* the walk, with the model at each cut */
	tm_init(&walk, &cfg);
	pkt_decoder_init(&dec, b, b + n, 0);
	for (k = 0; k < ncut; k++) {
		struct tm_model feed;
		struct pkt_decoder d2;
		const char *what = "";

		while ((size_t)(dec.pos - b) < cuts[k]) {
			assert_true(pkt_next(&dec, &pkt) >= 0);
			tm_advance(&walk, &pkt);
		}
		assert_int_equal((size_t)(dec.pos - b), cuts[k]);
		tm_init(&feed, &cfg);
		pkt_decoder_init(&d2, b, b + n, 0);
		assert_int_equal(idx_time_feed(&d2, b + cuts[k], &feed, NULL), 0);
		if (!feed_same(&walk, &feed, &what))
			fail_msg("%s: cut %zu at %#zx: %s differs", dense ? "dense" : "sparse",
				 k, cuts[k], what);
		npend += walk.pending != 0;
	}
	/* cycles were pending at most cuts */
	assert_true(npend > ncut / 2);
	free(b);
}

static void test_time_runs(void **state)
{
	int avx2;

	(void)state;
	/* the SSE2 loops too, which an AVX2 machine runs nowhere else */
	for (avx2 = 1; avx2 >= 0; avx2--) {
		if (idx_skim_use_avx2(avx2) < 0)
			continue;
		time_runs_each(0);
		time_runs_each(1);
	}
	idx_skim_use_avx2(1);
}

/* Append one random packet of a sparse mix (mostly tip/fup with every IP
 * size, cyc of one to three bytes, and now and then every other kind the
 * skim sizes itself) at @b; returns its size. */
static size_t put_sparse_packet(uint8_t *b)
{
	static const uint8_t ipcode[] = { 0, 1, 2, 3, 4, 6 };
	static const uint8_t ipbytes[] = { 0, 2, 4, 6, 6, 0, 8 };
	static const uint8_t tipop[] = { 0x0d, 0x11, 0x01, 0x1d };
	unsigned r = rnd(), k, v;
	size_t n = 0;

	if (r < 110) {		/* tip family */
		k = ipcode[rnd() % 6];
		b[n++] = (uint8_t)(tipop[rnd() & 3] | k << 5);
		for (v = 0; v < ipbytes[k]; v++)
			b[n++] = rnd();
	} else if (r < 160) {	/* cyc: 1, 2 or 3 bytes */
		v = rnd() % 3;
		b[n++] = (uint8_t)(rnd() << 3 | 3 | (v ? 4 : 0));
		if (v)
			b[n++] = (uint8_t)(rnd() << 1 | (v == 2));
		if (v == 2)
			b[n++] = (uint8_t)(rnd() << 1);
	} else if (r < 190) {	/* tnt.8 or pad */
		v = rnd() & 0xfe;
		b[n++] = (uint8_t)(v == 2 ? 0 : v);
	} else if (r < 200) {
		b[n++] = 0x59;	/* mtc */
		b[n++] = rnd();
	} else if (r < 210) {	/* mode.exec, mode.tsx */
		b[n++] = 0x99;
		b[n++] = (uint8_t)((rnd() & 1) << 5 | (rnd() & 3));
	} else if (r < 215) {	/* tsc */
		b[n++] = 0x19;
		for (v = 0; v < 7; v++)
			b[n++] = rnd();
	} else {		/* an extended one */
		static const uint8_t ext[][11] = {
			{ 3, 2, 0x23 },				/* psbend */
			{ 4, 2, 0x03, 0x20, 0 },		/* cbr */
			{ 7, 2, 0x73, 0x34, 0x12, 0, 0x10, 0 },	/* tma */
			{ 8, 2, 0x43, 0, 0x10, 0x42, 0x64, 1, 0 },	/* pip */
			{ 8, 2, 0xa3, 1, 0, 0, 0, 0, 0x80 },	/* tnt.64 */
			{ 2, 2, 0xf3 },				/* ovf */
			{ 4, 2, 0x22, 0x20, 0 },		/* pwre */
			{ 7, 2, 0xa2, 1, 2, 0, 0, 0 },		/* pwrx */
			{ 2, 2, 0x62 },				/* exstop */
			{ 10, 2, 0xc2, 1, 0, 0, 0, 2, 0, 0, 0 },	/* mwait */
			{ 6, 2, 0x12, 1, 2, 3, 4 },		/* ptw, 4 bytes */
			{ 10, 2, 0x32, 1, 2, 3, 4, 5, 6, 7, 8 },	/* and 8 */
		};
		k = rnd() % (sizeof(ext) / sizeof(ext[0]));
		memcpy(b, ext[k] + 1, ext[k][0]);
		n = ext[k][0];
	}
	return n;
}

/*
 * The skim's block loops for sparse packets (skim_walk_avx2() and
 * skim_vec_sse2(), which a worker takes once it has seen fewer than
 * IDX_SKIM_SPARSE packets per 100 bytes) count what a pkt_next() walk
 * does: a random sparse mix with every kind they size and every one they
 * leave to others, at every alignment, and ptgen's TIP-heavy traces.
 */
static void skim_sparse_each(void);

static void test_skim_sparse(void **state)
{
	int avx2, n = 0;

	(void)state;
	/* the SSE2 loop too, which an AVX2 machine runs nowhere else */
	for (avx2 = 1; avx2 >= 0; avx2--) {
		if (idx_skim_use_avx2(avx2) < 0)
			continue;
		skim_sparse_each();
		n++;
	}
	idx_skim_use_avx2(1);
	if (!n)		/* no sparse loops here: the scalar one */
		skim_sparse_each();
}

static void skim_sparse_each(void)
{
	static const char *const gens[] = {
		"--seed 21 --size 1MiB --mix tip",
		"--seed 22 --size 1MiB --mix tip --no-cyc --ovf-rate 0.001",
	};
	size_t cap = 1 << 20, n = 0, g, seg = 0;
	uint8_t *b = malloc(cap + 64), *e;
	struct idx_summary tot;
	struct img_span sp;
	struct img img;
	struct idx *idx;

	assert_non_null(b);
	while (n + 64 < cap) {
		if (n >= seg) {
			memcpy(b + n, psb, sizeof(psb));
			n += sizeof(psb);
			b[n++] = 2;
			b[n++] = 0x23;
			seg = n + 4096 + rnd() * 64;
		}
		n += put_sparse_packet(b + n);
	}
	/* exactly n bytes: a read past the end is the sanitizers' to see */
	e = malloc(n);
	assert_non_null(e);
	memcpy(e, b, n);
	free(b);
	img_init_flat(&img, &sp, e, n);
	assert_int_equal(idx_new(&idx, &img, NULL), 0);
	assert_int_equal(idx_set_threads(idx, 1), 0);
	assert_int_equal(idx_set_time_pass(idx, 0), 0);
	assert_int_equal(idx_build(idx), 0);
	expect_summaries(idx, e, n);
	assert_int_equal(idx_totals(idx, &tot), 0);
	/* the mix is valid and sparse: no segment ended early, and the
	 * sparse loop skimmed most of it */
	assert_int_equal(tot.nerrors, 0);
	assert_true(tot.npackets * 100 < (uint64_t)IDX_SKIM_SPARSE * n);
#if defined(__x86_64__)
	assert_true(idx_skim_vec_bytes(idx) > n / 2);
#endif
	idx_free(idx);
	free(e);
	for (g = 0; g < sizeof(gens) / sizeof(gens[0]); g++) {
		uint8_t *d = generate(gens[g], &n);

		if (!d) {
			printf("skipped: no ptgen in $BUILD/tools\n");
			skip();
		}
		img_init_flat(&img, &sp, d, n);
		assert_int_equal(idx_new(&idx, &img, NULL), 0);
		/* phase 2's skim (with the time pass, phase 3 counts) */
		assert_int_equal(idx_set_time_pass(idx, 0), 0);
		assert_int_equal(idx_build(idx), 0);
		expect_summaries(idx, d, n);
#if defined(__x86_64__)
		assert_true(idx_skim_vec_bytes(idx) > n / 2);
#endif
		idx_free(idx);
		free(d);
	}
}

/*
 * The sparse skim loops' sizes (idx_skim_sizes(), SSE2 and AVX2, phase
 * 2's and the time pass's) for every first two bytes of a packet, at
 * lanes where the vectors meet, with several bytes after them: each size
 * given is the one pkt_next() decodes (and 0 leaves the packet to the
 * others, always right), and so is the size of the packet after it where
 * one is given.  The time pass's leave mtc and mode packets to its scalar
 * loop.
 */
static void skim_sizes_each(unsigned avx2, unsigned time, unsigned *nsized,
			    unsigned *npairs)
{
	static const uint8_t fill[] = { 0x00, 0xff, 0x5a, 0x81 };
	static const unsigned lanes[] = { 0, 15, 16, 31, 32, 63 };
	uint8_t buf[96], out[64], out2[64];
	unsigned b0, b1, f, l;

	for (f = 0; f < sizeof(fill); f++)
		for (l = 0; l < sizeof(lanes) / sizeof(lanes[0]); l++)
			for (b0 = 0; b0 < 256; b0++)
				for (b1 = 0; b1 < 256; b1++) {
					unsigned at = lanes[l];
					struct pkt_decoder dec;
					struct pkt pkt;
					int r;

					memset(buf, fill[f], sizeof(buf));
					buf[at] = (uint8_t)b0;
					buf[at + 1] = (uint8_t)b1;
					assert_int_equal(idx_skim_sizes(buf, out, out2, (int)avx2,
									(int)time), 0);
					if (!out[at]) {
						assert_int_equal(out2[at], 0);
						continue;
					}
					(*nsized)++;
					pkt_decoder_init(&dec, buf + at, buf + sizeof(buf), 0);
					r = pkt_next(&dec, &pkt);
					if (r < 0 || pkt.size != out[at] ||
					    (time && (pkt.type == PKT_MTC ||
						      pkt.type == PKT_MODE_EXEC ||
						      pkt.type == PKT_MODE_TSX)))
						fail_msg("%s%s %02x %02x (fill %02x, lane %u): size %u, pkt_next %d size %u",
							 avx2 ? "AVX2" : "SSE2", time ? " time" : "",
							 b0, b1, fill[f], at, out[at], r, pkt.size);
					if (out2[at] == out[at])
						continue;
					/* and the packet after it */
					(*npairs)++;
					r = pkt_next(&dec, &pkt);
					if (r < 0 || pkt.size != out2[at] - out[at] ||
					    (time && (pkt.type == PKT_MTC ||
						      pkt.type == PKT_MODE_EXEC ||
						      pkt.type == PKT_MODE_TSX)))
						fail_msg("%s%s %02x %02x (fill %02x, lane %u): then %u, pkt_next %d size %u",
							 avx2 ? "AVX2" : "SSE2", time ? " time" : "",
							 b0, b1, fill[f], at, out2[at] - out[at], r,
							 pkt.size);
				}
}

static void test_skim_sizes(void **state)
{
	uint8_t buf[96], out[64], out2[64];
	unsigned avx2, nsized = 0, nvariants = 0, npairs = 0;

	(void)state;
	memset(buf, 0, sizeof(buf));
	for (avx2 = 0; avx2 < 2; avx2++) {
		if (idx_skim_sizes(buf, out, out2, (int)avx2, 0) < 0) {
			printf("no %s skim on this machine\n", avx2 ? "AVX2" : "SSE2");
			continue;
		}
		nvariants++;
		skim_sizes_each(avx2, 0, &nsized, &npairs);
		skim_sizes_each(avx2, 1, &nsized, &npairs);
	}
	if (!nvariants)
		skip();
	/* most first bytes are sized; AVX2 pairs many */
	assert_true(nsized > nvariants * 2 * 4 * 6 * 256 * 256 / 2);
	if (nvariants == 2)
		assert_true(npairs > 2 * 6 * 256 * 256);
}

/* One progress fraction for the whole build: it never goes back across
 * the phases and ends at 1. */
static void test_progress_frac(void **state)
{
	size_t n = 0;
	uint8_t *b = generate("--seed 5 --size 8MiB", &n);
	struct img_span sp;
	struct img img;
	struct idx *idx;
	struct idx_progress p;
	double last = 0;
	int phases = 0, ph = -1;

	(void)state;
	if (!b) {
		printf("skipped: no ptgen in $BUILD/tools\n");
		skip();
	}
	img_init_flat(&img, &sp, b, n);
	assert_int_equal(idx_new(&idx, &img, NULL), 0);
	assert_int_equal(idx_set_chunk_size(idx, 256 << 10), 0);
	assert_int_equal(idx_start(idx), 0);
	for (;;) {
		idx_progress(idx, &p);
		assert_true(p.frac >= last - 1e-9);
		assert_true(p.frac <= 1);
		last = p.frac;
		if ((int)p.phase != ph) {
			ph = (int)p.phase;
			phases++;
		}
		if (p.finished)
			break;
		usleep(100);
	}
	assert_int_equal(idx_wait(idx), 0);
	assert_true(p.frac == 1);
	idx_free(idx);
	free(b);
}

/*
 * One PSB segment of 32 MiB: phases 2 and 3 report progress inside it,
 * and a cancel there stops the build (checked between segments only, the
 * build would run to its end and succeed).
 */
static void test_cancel_long_segment(void **state)
{
	size_t n = 0;
	uint8_t *b = generate("--seed 3 --size 32MiB --psb-period 1GiB", &n);
	enum idx_phase phases[] = { IDX_SEGMENTS, IDX_TIME };
	struct img_span sp;
	struct img img;
	size_t k;

	(void)state;
	if (!b) {
		printf("skipped: no ptgen in $BUILD/tools\n");
		skip();
	}
	img_init_flat(&img, &sp, b, n);
	for (k = 0; k < 2; k++) {
		struct idx_progress p;
		struct idx *idx;
		int seen = 0;

		assert_int_equal(idx_new(&idx, &img, NULL), 0);
		assert_int_equal(idx_set_threads(idx, 1), 0);
		assert_int_equal(idx_start(idx), 0);
		for (;;) {
			idx_progress(idx, &p);
			if (p.finished)
				break;
			if (p.phase == phases[k] && p.done > 0 &&
			    p.done < p.total / 2) {
				seen = 1;
				idx_cancel(idx);
				break;
			}
			usleep(50);
		}
		assert_true(seen);
		assert_int_equal(idx_wait(idx), -pte_canceled);
		idx_free(idx);
	}
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_boundaries),
		cmocka_unit_test(test_runs),
		cmocka_unit_test(test_dense),
		cmocka_unit_test(test_shared),
		cmocka_unit_test(test_crafted),
		cmocka_unit_test(test_gap_summary),
		cmocka_unit_test(test_spans),
		cmocka_unit_test(test_cancel_progress),
		cmocka_unit_test(test_cancel_race),
		cmocka_unit_test(test_cancel_long_segment),
		cmocka_unit_test(test_save_load),
		cmocka_unit_test(test_generated),
		cmocka_unit_test(test_ncarried),
		cmocka_unit_test(test_parallel_time),
		cmocka_unit_test(test_time_ceiling),
		cmocka_unit_test(test_ceiling_wrong_p1),
		cmocka_unit_test(test_damaged_tsc),
		cmocka_unit_test(test_time_origin_near),
		cmocka_unit_test(test_edge_idle),
		cmocka_unit_test(test_progress_frac),
		cmocka_unit_test(test_time_feed),
		cmocka_unit_test(test_time_runs),
		cmocka_unit_test(test_long_pads),
		cmocka_unit_test(test_replay_meets),
		cmocka_unit_test(test_skim_sparse),
		cmocka_unit_test(test_skim_sizes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
