/* fuzz_tskim -- the time pass's fast walks against plain ones, on any
 * bytes (the first byte picks the timing configuration and the size of
 * the parallel build's units).  Their vector
 * loops size packets from every byte of a block and read ahead of the
 * packet they are at, so the sanitizers watch the reads, and the results
 * must be a plain walk's: idx_time_feed() with each instruction set
 * leaves the model as pkt_next() feeding tm_advance() does, and the index
 * built on two threads in units of a few segments (one pass: the time
 * pass counts the packets) has the summaries and carries of the one
 * built on one thread (phase 2, then the serial time pass).  A
 * difference aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_config.h"
#include "image.h"
#include "index.h"
#include "index_int.h"
#include "pkt.h"
#include "tm.h"
#include "tm_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The configuration byte @c: none, ptgen's (the one its generated seeds
 * were made with), or small values that may be damage. */
static void pick_config(uint8_t c, struct tm_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	switch (c & 3) {
	case 0:
		return;
	case 1:
	case 2:
		fuzz_ptgen_config(cfg, c & 4 ? 78 : 85);
		return;
	default:
		cfg->have_mtc_freq = 1;
		cfg->mtc_freq = (c >> 2) & 0xf;
		cfg->have_nom_freq = 1;
		cfg->nom_freq = (uint8_t)(1 + (c >> 4));
		cfg->have_cpuid_15 = 1;
		cfg->cpuid_15_eax = 1 + ((c >> 6) & 1);
		cfg->cpuid_15_ebx = 1 + (c >> 7) * 99;
		return;
	}
}

/* idx_time_feed() over all of [@d, @d + @n) leaves the model as a
 * pkt_next() walk feeding tm_advance() (taking the loss at the first
 * packet it cannot decode, and stopping there). */
static void feed_check(const uint8_t *d, size_t n, const struct tm_config *cfg)
{
	struct tm_model a, b;
	struct tm_carry ca, cb;
	struct pkt_decoder da, db;
	struct pkt pkt;
	int r, lost = 0;

	tm_init(&a, cfg);
	pkt_decoder_init(&da, d, d + n, 0);
	for (;;) {
		r = pkt_next(&da, &pkt);
		if (r == -pte_eos)
			break;
		if (r < 0) {
			tm_gap(&a);
			lost = 1;
			break;
		}
		tm_advance(&a, &pkt);
	}
	tm_init(&b, cfg);
	pkt_decoder_init(&db, d, d + n, 0);
	r = idx_time_feed(&db, d + n, &b, NULL);
	if (r != lost)
		abort();
	/* the decoder: at the end in the walk's block state, or (a packet
	 * it could not decode) not moved */
	if (lost ? db.pos != d : (db.pos != d + n || db.bip_sz != da.bip_sz))
		abort();
	tm_save(&a, &ca);
	tm_save(&b, &cb);
	if (memcmp(&ca, &cb, sizeof(ca)))
		abort();
	/* and what the carry leaves out: the periods and sleeps counted */
	if (a.nper != b.nper || a.per_ticks != b.per_ticks ||
	    a.per_cyc != b.per_cyc || a.nhalt != b.nhalt ||
	    a.halt_lo != b.halt_lo || a.halt_hi != b.halt_hi)
		abort();
}

static struct idx *build(const struct img *img, const struct tm_config *cfg,
			 unsigned threads, uint64_t chunk)
{
	struct idx *idx;

	if (idx_new(&idx, img, cfg))
		abort();
	if (idx_set_time_pass(idx, 1) || idx_set_threads(idx, threads) ||
	    idx_set_chunk_size(idx, chunk) || idx_build(idx) < 0)
		abort();
	return idx;
}

/* The one-pass parallel index of [@d, @d + @n) against the serial one. */
static void index_check(const uint8_t *d, size_t n, const struct tm_config *cfg,
			uint64_t chunk)
{
	struct img_span sp;
	struct img img;
	struct idx *ser, *par;
	struct idx_summary sa, sc;
	struct tm_carry ca, cc;
	size_t i, ns;

	img_init_flat(&img, &sp, d, n);
	ser = build(&img, cfg, 1, 64 << 10);
	par = build(&img, cfg, 2, chunk);
	ns = idx_nseeks(ser);
	if (idx_nseeks(par) != ns)
		abort();
	for (i = 0; i < ns; i++) {
		uint64_t la = 0, lc = 0;
		int ra, rc;

		if (idx_summary(ser, i, &sa) || idx_summary(par, i, &sc))
			abort();
		if (sa.npackets != sc.npackets || sa.cycles != sc.cycles ||
		    sa.max_cyc != sc.max_cyc || sa.size != sc.size ||
		    sa.first_ordinal != sc.first_ordinal ||
		    memcmp(sa.per_class, sc.per_class, sizeof(sa.per_class)) ||
		    sa.have_tsc != sc.have_tsc || sa.first_tsc != sc.first_tsc ||
		    sa.last_tsc != sc.last_tsc || sa.novf != sc.novf ||
		    sa.nerrors != sc.nerrors || sa.ngaps != sc.ngaps ||
		    sa.has_gap != sc.has_gap || sa.max_gap != sc.max_gap ||
		    sa.gap_off != sc.gap_off || sa.nhalt != sc.nhalt ||
		    sa.halt_lo != sc.halt_lo || sa.halt_hi != sc.halt_hi ||
		    sa.has_period != sc.has_period || sa.slow_off != sc.slow_off ||
		    memcmp(&sa.slow_period, &sc.slow_period, sizeof(sa.slow_period)) ||
		    memcmp(&sa.fast_period, &sc.fast_period, sizeof(sa.fast_period)))
			abort();
		ra = idx_last_timing(ser, i, &la);
		rc = idx_last_timing(par, i, &lc);
		if (ra != rc || la != lc)
			abort();
		ra = idx_seek_carry(ser, i, &ca);
		rc = idx_seek_carry(par, i, &cc);
		if (ra != rc || (!ra && memcmp(&ca, &cc, sizeof(ca))))
			abort();
	}
	{
		struct idx_summary ta, tc;

		idx_totals(ser, &ta);
		idx_totals(par, &tc);
		if (ta.npackets != tc.npackets || ta.cycles != tc.cycles ||
		    ta.max_cyc != tc.max_cyc || ta.first_tsc != tc.first_tsc ||
		    ta.last_tsc != tc.last_tsc ||
		    memcmp(ta.per_class, tc.per_class, sizeof(ta.per_class)))
			abort();
	}
	idx_free(par);
	idx_free(ser);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tm_config cfg;
	const uint8_t *d;
	size_t n;
	int isa;

	if (size < 2)
		return 0;
	pick_config(data[0], &cfg);
	/* the rest, so the trace ends where the input does */
	d = data + 1;
	n = size - 1;
	for (isa = 1; isa >= 0; isa--) {
		/* (without AVX2 only the SSE2 loops run) */
		if (idx_skim_use_avx2(isa) < 0)
			continue;
		feed_check(d, n, &cfg);
		/* units of 64 bytes to 2 KiB: most cut segments unevenly,
		 * so carry points fall inside units */
		index_check(d, n, &cfg, 64 * (1 + (uint64_t)(data[0] >> 3)));
	}
	idx_skim_use_avx2(1);
	return 0;
}
