/*
 * test_tm -- the time model, from the SDM's own tables (Example 36-2,
 * Table 36-14) written as byte streams, from hand-made timing sequences
 * (TMA arithmetic, MTC wrap and loss, CBR changes, OVF, sleep), and over
 * every shared trace (monotonic time; PSB carry equals whole decoding).
 * Also the timing options of tm_config and libipt's estimator's edges.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "helpers.h"
#include "pkt.h"
#include "tm.h"
#include "tm_config.h"
#include "tm_ptdump.h"

/* --- a tiny encoder for hand-built streams --- */

struct buf {
	uint8_t b[4096];
	size_t n;
};

static void put(struct buf *b, const uint8_t *p, size_t n)
{
	assert_true(b->n + n <= sizeof(b->b));
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

#define PUT(b, ...) do { static const uint8_t p_[] = { __VA_ARGS__ }; \
	put((b), p_, sizeof(p_)); } while (0)

static void e_psb(struct buf *b)
{
	int i;

	for (i = 0; i < 8; i++)
		PUT(b, 0x02, 0x82);
}

static void e_psbend(struct buf *b) { PUT(b, 0x02, 0x23); }
static void e_tip(struct buf *b) { PUT(b, 0x0d); }	/* IP suppressed */
static void e_fup(struct buf *b) { PUT(b, 0x1d); }
static void e_pip(struct buf *b) { PUT(b, 0x02, 0x43, 0, 0x10, 0, 0, 0, 0); }
static void e_mode_exec(struct buf *b) { PUT(b, 0x99, 0x01); }
static void e_ovf(struct buf *b) { PUT(b, 0x02, 0xf3); }
static void e_pwre(struct buf *b) { PUT(b, 0x02, 0x22, 0x00, 0x20); }
static void e_pwrx(struct buf *b) { PUT(b, 0x02, 0xa2, 0x21, 0x01, 0, 0, 0); }
static void e_exstop(struct buf *b) { PUT(b, 0x02, 0xe2); }	/* + FUP */

/* tnt.8 with @n bits (1..6), all not taken. */
static void e_tnt(struct buf *b, unsigned n)
{
	uint8_t v = (uint8_t)(1u << (n + 1));

	put(b, &v, 1);
}

static void e_cyc(struct buf *b, uint64_t v)
{
	uint8_t p[10];
	size_t n = 0;

	p[n] = (uint8_t)(((v & 0x1f) << 3) | 0x3);
	v >>= 5;
	while (v) {
		/* Exp: bit 2 of the first byte, bit 0 of the others */
		p[n] |= n ? 0x1 : 0x4;
		n++;
		p[n] = (uint8_t)((v & 0x7f) << 1);
		v >>= 7;
	}
	put(b, p, n + 1);
}

static void e_tsc(struct buf *b, uint64_t tsc)
{
	uint8_t p[8] = { 0x19 };
	int i;

	for (i = 0; i < 7; i++)
		p[1 + i] = (uint8_t)(tsc >> (8 * i));
	put(b, p, sizeof(p));
}

static void e_tma(struct buf *b, uint16_t ctc, uint16_t fc)
{
	uint8_t p[7] = { 0x02, 0x73, (uint8_t)ctc, (uint8_t)(ctc >> 8), 0,
			 (uint8_t)fc, (uint8_t)((fc >> 8) & 1) };

	put(b, p, sizeof(p));
}

static void e_mtc(struct buf *b, uint8_t v)
{
	uint8_t p[2] = { 0x59, v };

	put(b, p, sizeof(p));
}

static void e_cbr(struct buf *b, uint8_t v)
{
	uint8_t p[4] = { 0x02, 0x03, v, 0 };

	put(b, p, sizeof(p));
}

/* Decode all of @b through a fresh model with @cfg into @st (at most
 * @max); @types gets the packet types.  Returns the number of packets. */
static size_t run(const struct buf *b, const struct tm_config *cfg,
		  struct tm_stamp *st, uint8_t *types, size_t max)
{
	struct pkt_decoder dec;
	struct pkt pkt;
	struct tm_model tm;
	size_t n = 0;
	int r;

	tm_init(&tm, cfg);
	assert_int_equal(pkt_decoder_init(&dec, b->b, b->b + b->n, 0), 0);
	while ((r = pkt_next(&dec, &pkt)) > 0) {
		assert_true(n < max);
		assert_int_equal(tm_step(&tm, &pkt, &st[n]), 0);
		if (types)
			types[n] = pkt.type;
		n++;
	}
	assert_int_equal(r, -pte_eos);
	return n;
}

/* A configuration like the dynamorio traces', and no cycle threshold
 * (CycThresh 0, as perf.data tells): the hand-made streams below have a
 * CYC in every cycle with a CYC-eligible packet, so no cycles hide at an
 * MTC without one. */
static struct tm_config dr_cfg(void)
{
	struct tm_config c;

	memset(&c, 0, sizeof(c));
	assert_int_equal(tm_config_option(&c, "--mtc-freq", "3"), 1);
	assert_int_equal(tm_config_option(&c, "--nom-freq", "37"), 1);
	assert_int_equal(tm_config_option(&c, "--cpuid-0x15.eax", "2"), 1);
	assert_int_equal(tm_config_option(&c, "--cpuid-0x15.ebx", "308"), 1);
	c.have_cyc_thresh = 1;
	c.cyc_thresh = 0;
	return c;
}

/* --- NULL and edges --- */

static void test_null(void **state __attribute__((unused)))
{
	struct tm_model tm;
	struct tm_stamp st;
	struct tm_carry c;
	struct pkt pkt;
	uint64_t ns;

	memset(&pkt, 0, sizeof(pkt));
	tm_init(NULL, NULL);
	tm_init(&tm, NULL);
	assert_int_equal(tm_step(NULL, &pkt, &st), -pte_invalid);
	assert_int_equal(tm_step(&tm, NULL, &st), -pte_invalid);
	assert_int_equal(tm_step(&tm, &pkt, NULL), -pte_invalid);
	tm_save(NULL, &c);
	tm_restore(NULL, &c);
	tm_gap(NULL);
	assert_int_equal(tm_tsc_to_ns(NULL, 1, &ns), -pte_invalid);
	assert_int_equal(tm_tsc_to_ns(&tm.cfg, 1, &ns), -pte_no_time);
	/* The index keeps one every 16 PSBs. */
	assert_true(sizeof(struct tm_carry) <= 104);

	/* Nothing seen: relative time 0, no cycles, no flags of trouble. */
	pkt.type = PKT_PAD;
	assert_int_equal(tm_step(&tm, &pkt, &st), 0);
	assert_int_equal(st.tsc, 0);
	assert_int_equal(st.flags, TM_F_REL);
}

static void test_config(void **state __attribute__((unused)))
{
	struct tm_config c, d;

	memset(&c, 0, sizeof(c));
	assert_int_equal(tm_config_option(&c, "--lastip", NULL), 0);
	assert_int_equal(tm_config_option(&c, "--mtc-freq", NULL), -pte_invalid);
	assert_int_equal(tm_config_option(&c, "--mtc-freq", ""), -pte_invalid);
	assert_int_equal(tm_config_option(&c, "--mtc-freq", "3x"), -pte_invalid);
	assert_int_equal(tm_config_option(&c, "--mtc-freq", "16"), -pte_invalid);
	assert_int_equal(tm_config_option(&c, "--mtc-freq", "-1"), -pte_invalid);
	assert_int_equal(tm_config_option(&c, "--nom-freq", "256"), -pte_invalid);
	assert_int_equal(tm_config_option(&c, "--nom-freq", "0x25"), 1);
	assert_int_equal(c.nom_freq, 37);
	assert_int_equal(tm_config_option(&c, "--cpuid-0x15.ebx", "0x134"), 1);
	assert_int_equal(c.cpuid_15_ebx, 308);
	assert_int_equal(tm_config_option(&c, "--cpuid-0x15.eax", "4294967296"),
			 -pte_invalid);
	assert_int_equal(tm_config_option(&c, "--cpu", "6"), -pte_invalid);
	assert_int_equal(tm_config_option(&c, "--cpu", "6/x"), -pte_invalid);
	assert_int_equal(tm_config_option(&c, "--cpu", "6/78/3/1"), -pte_invalid);
	assert_int_equal(tm_config_option(&c, "--cpu", "6/78"), 1);
	assert_true(c.have_cpu && c.cpu_family == 6 && c.cpu_model == 78 &&
		    c.cpu_stepping == 0);
	assert_true(tm_config_skl168(&c));
	assert_true(tm_config_cpu_known(&c));
	assert_int_equal(tm_config_option(&c, "--cpu", "6/0x55/4"), 1);
	assert_false(tm_config_skl168(&c));
	assert_true(tm_config_cpu_known(&c));
	assert_int_equal(tm_config_option(&c, "--cpu", "6/1"), 1);
	assert_false(tm_config_cpu_known(&c));
	assert_int_equal(tm_config_option(&c, "--cpu", "none"), 1);
	assert_false(c.have_cpu);
	assert_int_equal(tm_config_option(&c, "--tsc-freq", "2.1GHz"), 1);
	assert_true(c.tsc_hz == 2100000000ull);
	assert_int_equal(tm_config_option(&c, "--tsc-freq", "3000000000"), 1);
	assert_true(c.tsc_hz == 3000000000ull);
	assert_int_equal(tm_config_option(&c, "--tsc-freq", "24M"), 1);
	assert_true(c.tsc_hz == 24000000ull);
	assert_int_equal(tm_config_option(&c, "--tsc-freq", "fast"), -pte_invalid);
	assert_int_equal(tm_config_option(&c, "--tsc-freq", "0"), -pte_invalid);

	/* Command-line values win; the rest fills in. */
	memset(&d, 0, sizeof(d));
	d.have_mtc_freq = 1;
	d.mtc_freq = 9;
	d.have_nom_freq = 1;
	d.nom_freq = 1;
	d.have_perf_conv = 1;
	d.time_mult = 7;
	tm_config_merge(&c, &d);
	assert_int_equal(c.mtc_freq, 9);
	assert_int_equal(c.nom_freq, 37);
	assert_int_equal(c.time_mult, 7);
}

static void test_ns(void **state __attribute__((unused)))
{
	struct tm_config c;
	uint64_t ns;

	memset(&c, 0, sizeof(c));
	c.have_tsc_hz = 1;
	c.tsc_hz = 2000000000ull;
	assert_int_equal(tm_tsc_to_ns(&c, 4000000000ull, &ns), 0);
	assert_true(ns == 2000000000ull);
	/* Crystal clock times the TSC:crystal ratio. */
	c.have_tsc_hz = 0;
	c.have_crystal_hz = 1;
	c.crystal_hz = 24000000;
	c.have_cpuid_15 = 1;
	c.cpuid_15_eax = 2;
	c.cpuid_15_ebx = 100;
	assert_true(tm_tsc_hz(&c, 0) == 1200000000ull);
	/* perf's conversion: time_zero + tsc * mult >> shift. */
	c.have_perf_conv = 1;
	c.time_zero = 1000;
	c.time_mult = 3 << 9;
	c.time_shift = 10;
	assert_int_equal(tm_tsc_to_ns(&c, 1ull << 40, &ns), 0);
	assert_true(ns == 1000 + (1ull << 40) / 2 * 3);
	/* No TSC frequency: only an estimate from P1. */
	memset(&c, 0, sizeof(c));
	c.have_nom_freq = 1;
	c.nom_freq = 24;
	assert_true(tm_tsc_hz(&c, 0) == 0);
	assert_true(tm_tsc_hz(&c, 1) == 2400000000ull);
}

/* --- cycles: Example 36-2 and Table 36-14 --- */

/*
 * Example 36-2, CYC with multi-packet operations:
 *   x     jnz Foo (not taken)  CYC(?)
 *   x+9   jmp %eax             TNT, CYC(9), TIP
 *   x+12  jnz Bar (not taken)  CYC(3)
 *   x+32  int3 (task gate)     TNT, FUP, CYC(10), PIP, CYC(20), MODE.Exec, TIP
 * The first CYC-eligible packet after a CYC is exact; the others are
 * bounded by the CYCs around them.
 */
static void test_example_36_2(void **state __attribute__((unused)))
{
	static const struct {
		uint8_t type;
		uint64_t cycles;	/* x = 100 */
		uint32_t mark;		/* TM_F_EXACT or TM_F_BOUNDED */
		uint64_t delta;
	} want[] = {
		{ PKT_CYC, 100, TM_F_EXACT, 100 },
		{ PKT_TNT8, 100, TM_F_EXACT, 100 },	/* its first branch */
		{ PKT_CYC, 109, TM_F_EXACT, 9 },
		{ PKT_TIP, 109, TM_F_EXACT, 9 },
		{ PKT_CYC, 112, TM_F_EXACT, 3 },
		{ PKT_TNT8, 112, TM_F_EXACT, 3 },
		{ PKT_FUP, 112, TM_F_BOUNDED, 0 },	/* in [112, 122) */
		{ PKT_CYC, 122, TM_F_EXACT, 10 },
		{ PKT_PIP, 122, TM_F_EXACT, 10 },
		{ PKT_CYC, 142, TM_F_EXACT, 20 },
		{ PKT_MODE_EXEC, 142, TM_F_EXACT, 20 },
		{ PKT_TIP, 142, TM_F_BOUNDED, 0 },
	};
	struct tm_stamp st[16];
	uint8_t types[16];
	struct buf b = { .n = 0 };
	size_t n, i;

	e_cyc(&b, 100);
	e_tnt(&b, 3);
	e_cyc(&b, 9);
	e_tip(&b);
	e_cyc(&b, 3);
	e_tnt(&b, 1);
	e_fup(&b);
	e_cyc(&b, 10);
	e_pip(&b);
	e_cyc(&b, 20);
	e_mode_exec(&b);
	e_tip(&b);
	n = run(&b, NULL, st, types, 16);
	assert_int_equal(n, sizeof(want) / sizeof(want[0]));
	for (i = 0; i < n; i++) {
		assert_int_equal(types[i], want[i].type);
		assert_true(st[i].cycles == want[i].cycles);
		assert_int_equal(st[i].flags & (TM_F_EXACT | TM_F_BOUNDED),
				 want[i].mark);
		assert_true(st[i].cyc_delta == want[i].delta);
		assert_true(st[i].flags & TM_F_CYC);
		/* No calibration: the cycles don't move time. */
		assert_true(!(st[i].flags & TM_F_UNCAL) ==
			    (types[i] != PKT_CYC));
	}
}

/*
 * Table 36-14: which packets carry a CYC at thresholds 0, 16, 32 and 64.
 * The stream for each column is built from the table; every packet's true
 * time must be the exact cycle count where the table has a CYC, and lie in
 * [cycles, next CYC's cycles) where it doesn't.
 */
static void test_table_36_14(void **state __attribute__((unused)))
{
	static const unsigned when[8] = { 0, 9, 15, 30, 38, 46, 64, 71 };
	static const uint8_t is_pip[8] = { 0, 0, 0, 0, 1, 0, 0, 0 };
	/* Table 36-14's columns: 'C' where a CYC precedes the TIP/PIP. */
	static const char *const table[4] = {
		"CCCCCCCC", "C..C.CC.", "C...C..C", "C.....C.",
	};
	static const unsigned thresholds[4] = { 0, 16, 32, 64 };
	const unsigned x = 1000;
	int t;

	for (t = 0; t < 4; t++) {
		const char *col = table[t];
		struct tm_stamp st[32];
		uint8_t types[32];
		struct buf b = { .n = 0 };
		unsigned last = 0, i, k;
		size_t n;

		/* The table follows the rule of SDM 36.3.6.3. */
		for (i = 0; i < 8; i++) {
			int cyc = !i || when[i] - last >= thresholds[t];

			assert_int_equal(cyc, col[i] == 'C');
			if (cyc) {
				e_cyc(&b, i ? when[i] - last : x);
				last = when[i];
			}
			if (is_pip[i])
				e_pip(&b);
			else
				e_tip(&b);
		}
		n = run(&b, NULL, st, types, 32);
		for (i = 0, k = 0; k < n; k++) {
			uint64_t truth, next;
			size_t j;

			if (types[k] == PKT_CYC)
				continue;
			truth = x + when[i];
			assert_int_equal(types[k], is_pip[i] ? PKT_PIP : PKT_TIP);
			if (col[i] == 'C') {
				assert_true(st[k].flags & TM_F_EXACT);
				assert_true(st[k].cycles == truth);
			} else {
				assert_true(st[k].flags & TM_F_BOUNDED);
				assert_true(st[k].cycles <= truth);
				/* The upper bound: the next CYC, if any. */
				for (j = k + 1; j < n && types[j] != PKT_CYC; j++)
					;
				next = j < n ? st[j].cycles : UINT64_MAX;
				assert_true(truth < next);
			}
			i++;
		}
		assert_int_equal(i, 8);
	}
}

/* Standalone CYCs accumulate onto the next CYC-eligible packet. */
static void test_standalone_cyc(void **state __attribute__((unused)))
{
	struct tm_stamp st[8];
	struct buf b = { .n = 0 };
	size_t n;

	e_cyc(&b, 4095);
	e_cyc(&b, 4095);
	PUT(&b, 0x00);		/* pad: not CYC-eligible */
	e_cyc(&b, 10);
	e_tip(&b);
	n = run(&b, NULL, st, NULL, 8);
	assert_int_equal(n, 5);
	assert_true(st[2].flags & TM_F_BOUNDED);
	assert_true(st[4].flags & TM_F_EXACT);
	assert_true(st[4].cycles == 8200);
	assert_true(st[4].cyc_delta == 8200);
}

/* --- time: TMA, MTC, CBR, OVF, sleep --- */

/* Whether @s is within a tick of @ticks (ratios are Q32.32, so products
 * may fall a hair short). */
static int near(const struct tm_stamp *s, uint64_t ticks)
{
	unsigned __int128 q = ((unsigned __int128)s->tsc << 32) | s->tsc_frac;
	unsigned __int128 e = (unsigned __int128)ticks << 32;

	return (q > e ? q - e : e - q) < ((unsigned __int128)1 << 32);
}

#define T0 0x924c2fedc03f8ull

/* PSB+ as in the dynamorio traces: TSC, TMA(ctc, fc), CBR. */
static void psb_plus(struct buf *b, uint64_t tsc, uint16_t ctc, uint16_t fc,
		     uint8_t cbr)
{
	e_psb(b);
	e_tsc(b, tsc);
	e_tma(b, ctc, fc);
	e_cbr(b, cbr);
	e_psbend(b);
}

/* TMA's CTC and FastCounter place the TSC in the crystal clock; the first
 * MTC is CTC delta * EBX/EAX after the TSC's CTC tick (SDM 36.8.3.1). */
static void test_tma(void **state __attribute__((unused)))
{
	struct tm_config c = dr_cfg();
	struct tm_stamp st[16];
	struct buf b = { .n = 0 };
	size_t n;

	/* CTC 0x4ce, MTC 0x9a << 3 = 0x4d0: 2 CTC ticks = 308 TSC ticks,
	 * from T0 - 12 (the FastCounter). */
	psb_plus(&b, T0, 0xd4ce, 0xc, 12);
	e_mtc(&b, 0x9a);
	e_mtc(&b, 0x9b);
	n = run(&b, &c, st, NULL, 16);
	assert_int_equal(n, 7);
	assert_true(st[1].tsc == T0 && (st[1].flags & TM_F_TSC));
	assert_true(st[5].tsc == T0 - 12 + 308 && st[5].tsc_frac == 0);
	assert_true(st[6].tsc == T0 - 12 + 308 + 1232);
	assert_int_equal(st[6].flags & (TM_F_MTC_LOST | TM_F_CLAMPED), 0);
	assert_int_equal(st[4].cbr, 12);

	/* A TMA without a TSC before it is flagged and ignored. */
	b.n = 0;
	e_tma(&b, 0x10, 0);
	e_tsc(&b, T0);
	e_tma(&b, 0x10, 0);
	e_tma(&b, 0x10, 0);
	n = run(&b, &c, st, NULL, 16);
	assert_true(st[0].flags & TM_F_TMA_NO_TSC);
	assert_false(st[2].flags & TM_F_TMA_NO_TSC);
	assert_true(st[3].flags & TM_F_TMA_NO_TSC);

	/* An MTC between a TSC and its TMA (seen in the quipper traces) is
	 * placed when the TMA comes: 2 CTC ticks after T0 - fc. */
	b.n = 0;
	e_tsc(&b, T0);
	e_mtc(&b, 0x9a);
	e_tma(&b, 0xd4ce, 0xc);
	e_mtc(&b, 0x9b);
	n = run(&b, &c, st, NULL, 16);
	assert_int_equal(n, 4);
	assert_true(st[1].tsc == T0);
	assert_true(st[2].tsc == T0 - 12 + 308);
	assert_int_equal(st[2].flags & (TM_F_TMA_NO_TSC | TM_F_MTC_LOST), 0);
	assert_true(st[3].tsc == T0 - 12 + 308 + 1232);
	assert_int_equal(st[3].flags & TM_F_MTC_LOST, 0);

	/* Without mtc-freq or cpuid-0x15, MTC and TMA say so. */
	b.n = 0;
	e_tsc(&b, T0);
	e_tma(&b, 0x10, 0);
	e_mtc(&b, 3);
	n = run(&b, NULL, st, NULL, 16);
	assert_true(st[1].flags & TM_F_NO_CONFIG);
	assert_true(st[2].flags & TM_F_NO_CONFIG);
	assert_true(st[2].tsc == T0);
}

/* MTC payloads wrap at 256; a gap in them counts the dropped MTCs and
 * time recovers from the payload. */
static void test_mtc_wrap_and_loss(void **state __attribute__((unused)))
{
	static const uint8_t mtc[] = { 0xfe, 0xff, 0x00, 0x01, 0x04, 0x05,
				       0x04, 0x04 };
	static const unsigned periods[] = { 0, 1, 2, 3, 6, 7, 7 + 255,
					    7 + 255 + 256 };
	static const unsigned lost[] = { 0, 0, 0, 0, 2, 0, 254, 255 };
	struct tm_config c = dr_cfg();
	struct tm_stamp st[32];
	struct buf b = { .n = 0 };
	uint64_t first;
	size_t n, i;

	/* TMA CTC right at 0xfe << 3: the first MTC is 8 CTC ticks on. */
	psb_plus(&b, T0, (uint16_t)(0xfd << 3), 0, 12);
	for (i = 0; i < sizeof(mtc); i++)
		e_mtc(&b, mtc[i]);
	n = run(&b, &c, st, NULL, 32);
	assert_int_equal(n, 5 + sizeof(mtc));
	first = st[5].tsc;
	assert_true(first == T0 + 1232);
	for (i = 0; i < sizeof(mtc); i++) {
		const struct tm_stamp *s = &st[5 + i];

		assert_true(s->tsc == first + (uint64_t)periods[i] * 1232);
		assert_int_equal(s->lost_mtc, lost[i]);
		assert_int_equal(!!(s->flags & TM_F_MTC_LOST), !!lost[i]);
	}
}

/* CYCs between MTCs advance time by cycles * measured ratio, never past
 * the next MTC; the measured frequency comes from the last MTC period. */
static void test_cyc_between_mtc(void **state __attribute__((unused)))
{
	struct tm_config c = dr_cfg();
	struct tm_stamp st[32];
	struct buf b = { .n = 0 };
	uint64_t m1, m2;
	size_t n;

	psb_plus(&b, T0, (uint16_t)(0x0f << 3), 0, 12);
	e_mtc(&b, 0x10);	/* [5] */
	e_cyc(&b, 390);		/* [6] */
	e_mtc(&b, 0x11);	/* [7]: 390 cycles per 1232 ticks */
	e_cyc(&b, 100);		/* [8] */
	e_tip(&b);		/* [9] */
	e_cyc(&b, 1000);	/* [10]: would pass the next MTC */
	e_tip(&b);		/* [11] */
	e_mtc(&b, 0x12);	/* [12] */
	e_cyc(&b, 400);		/* [13] */
	n = run(&b, &c, st, NULL, 32);
	assert_int_equal(n, 14);
	m1 = st[7].tsc;
	assert_true(m1 == T0 + 2 * 1232);
	/* Before calibration: P1/CBR = 37/12 ticks per cycle. */
	assert_true(near(&st[6], T0 + 1232 + 390 * 37 / 12));
	assert_true(near(&st[8], m1 + 100 * 1232 / 390));
	assert_true(st[8].flags & TM_F_FREQ);
	/* 390 cycles in 1232 ticks of a 3.7 GHz (P1 * 100 MHz) TSC. */
	assert_int_equal(st[8].khz, (uint32_t)(390ull * 3700000 / 1232));
	assert_true(st[9].tsc == st[8].tsc && (st[9].flags & TM_F_EXACT));
	/* Capped at the next MTC's time, which then is no surprise. */
	m2 = m1 + 1232;
	assert_true(st[10].tsc == m2 && st[10].tsc_frac == 0);
	assert_true(st[12].tsc == m2);
	assert_false(st[12].flags & TM_F_CLAMPED);
	/* 1100 cycles in that period: the core sped up. */
	assert_int_equal(st[12].khz, (uint32_t)(1100ull * 3700000 / 1232));
	assert_true(near(&st[13], m2 + 400 * 1232 / 1100));
}

/* Clean periods are measured, a period without cycles too (a stall),
 * and compare by cycles per tick; a period holding a sleep is not. */
static void test_periods(void **state __attribute__((unused)))
{
	struct tm_config c = dr_cfg();
	struct buf b = { .n = 0 };
	struct pkt_decoder dec;
	struct tm_model tm;
	struct tm_period p[8], none;
	struct pkt pkt;
	size_t n = 0;
	uint64_t seq = 0;

	assert_int_equal(tm_last_period(NULL, &none), -pte_invalid);
	psb_plus(&b, T0, (uint16_t)(0x0f << 3), 0, 12);
	e_mtc(&b, 0x10);
	e_cyc(&b, 390);
	e_mtc(&b, 0x11);	/* 390 cycles in 1232 ticks */
	e_tip(&b);
	e_mtc(&b, 0x12);	/* no cycles: the slowest */
	e_cyc(&b, 1100);
	e_mtc(&b, 0x13);	/* 1100 cycles: the fastest */
	e_pwre(&b);
	e_pwrx(&b);
	e_cyc(&b, 50);
	e_mtc(&b, 0x14);	/* a sleep: not measured */
	tm_init(&tm, &c);
	assert_int_equal(tm_last_period(&tm, &none), 0);
	assert_int_equal(none.seq, 0);
	assert_int_equal(pkt_decoder_init(&dec, b.b, b.b + b.n, 0), 0);
	while (pkt_next(&dec, &pkt) > 0) {
		tm_advance(&tm, &pkt);
		tm_last_period(&tm, &p[n]);
		if (p[n].seq != seq) {
			seq = p[n].seq;
			assert_true(++n < 8);
		}
	}
	/* MTC 0x10 follows the TMA's tick, not an MTC: no period yet. */
	assert_int_equal(n, 3);
	assert_int_equal(p[0].cycles, 390);
	assert_int_equal(p[0].ticks, 1232);
	assert_int_equal(p[0].ticks_frac, 0);
	assert_int_equal(p[1].cycles, 0);
	assert_int_equal(p[2].cycles, 1100);
	assert_true(tm_period_cmp(&p[1], &p[0]) < 0);
	assert_true(tm_period_cmp(&p[2], &p[0]) > 0);
	assert_int_equal(tm_period_cmp(&p[0], &p[0]), 0);
	/* 390 cycles in 1232 ticks of a 3.7 GHz TSC (P1's estimate). */
	assert_int_equal(tm_period_khz(&c, &p[0], 1), 390ull * 3700000 / 1232);
	assert_int_equal(tm_period_khz(&c, &p[0], 0), 0);
	assert_int_equal(tm_period_khz(&c, &p[1], 1), 0);
}

/* Feed @b to a fresh model with @cfg; *@freq: whether any stamp had a
 * measured frequency.  Returns the periods measured; the last in @p. */
static uint64_t thresh_run(const struct buf *b, const struct tm_config *cfg,
			   struct tm_period *p, int *freq)
{
	struct pkt_decoder dec;
	struct pkt pkt;
	struct tm_model tm;
	struct tm_stamp st;

	*freq = 0;
	tm_init(&tm, cfg);
	assert_int_equal(pkt_decoder_init(&dec, b->b, b->b + b->n, 0), 0);
	while (pkt_next(&dec, &pkt) > 0) {
		assert_int_equal(tm_step(&tm, &pkt, &st), 0);
		*freq |= !!(st.flags & TM_F_FREQ);
	}
	tm_last_period(&tm, p);
	return p->seq;
}

/* A cycle threshold (SDM 36.3.6.3): a CYC only after 2^(CycThresh-1)
 * cycles, so at an MTC without a CYC right before it up to that less one
 * cycles may be unreported.  A period with such an end measures only
 * where those are at most 1/256 of its cycles: not an MTC period with no
 * CYC (a hidden one, not a stall) nor one whose one CYC holds earlier
 * periods' cycles; it goes on to the next MTC (a new one starts at an MTC
 * in a CYC's cycle).  The threshold: the configuration's, else the least
 * CYC payload seen bounds it (2100: at most 2048). */
static void test_cyc_thresh(void **state __attribute__((unused)))
{
	struct tm_config c = dr_cfg();
	struct tm_period p;
	struct buf b = { .n = 0 };
	int freq, k;

	for (k = 0; k < 2; k++) {
		/* k 0: the threshold unknown; 1: CycThresh 12 */
		c.have_cyc_thresh = (uint8_t)k;
		c.cyc_thresh = 12;
		b.n = 0;
		psb_plus(&b, T0, (uint16_t)(0x0f << 3), 0, 12);
		e_mtc(&b, 0x10);
		e_tnt(&b, 1);
		e_mtc(&b, 0x11);	/* no CYC: not a 0-cycle stall */
		e_cyc(&b, 2100);	/* the CYC of several periods */
		e_tnt(&b, 1);
		e_mtc(&b, 0x12);
		e_tnt(&b, 1);
		e_mtc(&b, 0x13);
		assert_int_equal(thresh_run(&b, &c, &p, &freq), 0);
		assert_false(freq);
		/* from MTC 0x10 on, 602100 cycles: 2047 hidden at most at
		 * MTC 0x10, 1/294 */
		e_cyc(&b, 600000);
		e_mtc(&b, 0x14);
		assert_int_equal(thresh_run(&b, &c, &p, &freq), 1);
		assert_int_equal(p.cycles, 602100);
		assert_int_equal(p.ticks, 4 * 1232);
		assert_true(freq);
		/* both MTCs in a CYC's cycle: nothing hidden */
		e_cyc(&b, 3000);
		e_mtc(&b, 0x15);
		assert_int_equal(thresh_run(&b, &c, &p, &freq), 2);
		assert_int_equal(p.cycles, 3000);
	}
	/* Without a threshold (dr_cfg()) the 2100 cycles' period is a
	 * measurement and the one with no CYC after it a stall. */
	c = dr_cfg();
	b.n = 0;
	psb_plus(&b, T0, (uint16_t)(0x0f << 3), 0, 12);
	e_mtc(&b, 0x10);
	e_cyc(&b, 2100);
	e_tnt(&b, 1);
	e_mtc(&b, 0x11);
	assert_int_equal(thresh_run(&b, &c, &p, &freq), 1);
	assert_int_equal(p.cycles, 2100);
	assert_true(freq);
	e_tnt(&b, 1);
	e_mtc(&b, 0x12);
	assert_int_equal(thresh_run(&b, &c, &p, &freq), 2);
	assert_int_equal(p.cycles, 0);
}

/* A CBR change drops the measured ratio: P1/CBR until recalibrated. */
static void test_cbr_change(void **state __attribute__((unused)))
{
	struct tm_config c;
	struct tm_stamp st[16];
	struct buf b = { .n = 0 };
	size_t n;

	memset(&c, 0, sizeof(c));
	c.have_nom_freq = 1;
	c.nom_freq = 24;
	c.have_cyc_thresh = 1;	/* none: no cycles hide (dr_cfg()) */
	e_tsc(&b, 1000000);	/* [0] */
	e_cbr(&b, 12);		/* [1] */
	e_cyc(&b, 120);		/* [2]: 2 ticks per cycle */
	e_cbr(&b, 24);		/* [3] */
	e_cyc(&b, 120);		/* [4]: 1 tick per cycle */
	e_cbr(&b, 48);		/* [5] */
	e_cyc(&b, 120);		/* [6]: half a tick per cycle */
	n = run(&b, &c, st, NULL, 16);
	assert_int_equal(n, 7);
	assert_true(st[2].tsc == 1000240);
	assert_true(st[4].tsc == 1000360 && st[4].cbr == 24);
	assert_true(st[6].tsc == 1000420 && st[6].cbr == 48);

	/* Measured between TSCs (no MTC): 300 ticks over 100 cycles, until
	 * the frequency changes. */
	b.n = 0;
	e_tsc(&b, 1000000);	/* [0] */
	e_cbr(&b, 24);		/* [1] */
	e_cyc(&b, 100);		/* [2]: 1000100 by P1/CBR */
	e_tsc(&b, 1000300);	/* [3]: the CYC before it was its cycle */
	e_cyc(&b, 10);		/* [4]: 3 ticks per cycle from the TSC */
	e_cyc(&b, 10);		/* [5] */
	e_cbr(&b, 12);		/* [6] */
	e_cyc(&b, 10);		/* [7]: back to P1/CBR = 2 */
	n = run(&b, &c, st, NULL, 16);
	assert_int_equal(n, 8);
	assert_true(st[2].tsc == 1000100);
	assert_true(st[3].tsc == 1000300 && (st[3].flags & TM_F_EXACT));
	assert_true(st[4].tsc == 1000330);
	assert_true(st[5].tsc == 1000360);
	assert_true(st[5].flags & TM_F_FREQ);
	/* The frequency changed: the measurement no longer holds. */
	assert_false(st[6].flags & TM_F_FREQ);
	assert_true(st[7].tsc == 1000380);
}

/* An OVF in the middle of an MTC period: the packet after it is not
 * exact, the period does not calibrate, time stays monotonic. */
static void test_ovf_mid_period(void **state __attribute__((unused)))
{
	struct tm_config c = dr_cfg();
	struct tm_stamp st[32];
	struct buf b = { .n = 0 };
	size_t n, i;

	psb_plus(&b, T0, (uint16_t)(0x0f << 3), 0, 12);
	e_mtc(&b, 0x10);	/* [5] */
	e_cyc(&b, 400);		/* [6] */
	e_mtc(&b, 0x11);	/* [7]: calibrates 400/period */
	e_cyc(&b, 100);		/* [8] */
	e_ovf(&b);		/* [9] */
	e_tip(&b);		/* [10] */
	e_cyc(&b, 50);		/* [11] */
	e_mtc(&b, 0x12);	/* [12]: 150 cycles: must not calibrate */
	e_cyc(&b, 100);		/* [13] */
	e_tsc(&b, T0 + 100000);	/* [14]: the time is known again */
	e_tip(&b);		/* [15] */
	n = run(&b, &c, st, NULL, 32);
	assert_int_equal(n, 16);
	assert_true(st[9].flags & TM_F_OVF);
	assert_false(st[10].flags & TM_F_EXACT);
	/* From the OVF to the next TSC the time is a guess, and says so. */
	for (i = 0; i < n; i++)
		assert_int_equal(!!(st[i].flags & TM_F_LOST), i >= 9 && i < 14);
	assert_true(st[12].khz == st[8].khz);
	/* Still 400 cycles per period after the OVF. */
	assert_true(near(&st[13], st[12].tsc + 308));
	for (i = 1; i < n; i++)
		assert_true(st[i].tsc > st[i - 1].tsc ||
			    (st[i].tsc == st[i - 1].tsc &&
			     st[i].tsc_frac >= st[i - 1].tsc_frac));
}

/* Erratum SKL168 (Skylake and kin): CYCs right before a PSB may be lost,
 * so an MTC period holding a PSB does not calibrate there; elsewhere it
 * does. */
static void test_skl168(void **state __attribute__((unused)))
{
	static const char *const cpus[] = { "6/85/4", "6/78/3" };
	uint32_t khz[2];
	int k;

	for (k = 0; k < 2; k++) {
		struct tm_config c = dr_cfg();
		struct tm_stamp st[32];
		struct buf b = { .n = 0 };
		size_t n;

		assert_int_equal(tm_config_option(&c, "--cpu", cpus[k]), 1);
		psb_plus(&b, T0, (uint16_t)(0x0f << 3), 0, 12);
		e_mtc(&b, 0x10);	/* [5] */
		e_cyc(&b, 400);		/* [6] */
		e_mtc(&b, 0x11);	/* [7]: 400 cycles a period */
		e_cyc(&b, 300);		/* [8] */
		e_psb(&b);		/* [9]: a CYC may have gone missing */
		e_psbend(&b);		/* [10] */
		e_mtc(&b, 0x12);	/* [11]: 300 cycles: calibrates, or not */
		n = run(&b, &c, st, NULL, 32);
		assert_int_equal(n, 12);
		assert_true(st[7].flags & TM_F_FREQ);
		assert_true(st[11].flags & TM_F_FREQ);
		khz[k] = st[11].khz;
		if (k)
			assert_int_equal(st[11].khz, st[7].khz);
		else
			assert_true(st[11].khz < st[7].khz);
	}
	assert_true(khz[1] > khz[0]);
}

/* Seed 004: the core clock stops in a C-state while the crystal runs.  A
 * period with a sleep must not calibrate, and time must not go back. */
static void test_sleep(void **state __attribute__((unused)))
{
	struct tm_config c = dr_cfg();
	struct tm_stamp st[32];
	struct buf b = { .n = 0 };
	size_t n;

	psb_plus(&b, T0, (uint16_t)(0x0f << 3), 0, 12);
	e_mtc(&b, 0x10);	/* [5] */
	e_cyc(&b, 400);		/* [6] */
	e_mtc(&b, 0x11);	/* [7] */
	e_cyc(&b, 10);		/* [8] */
	e_pwre(&b);		/* [9] */
	e_pwrx(&b);		/* [10] */
	e_cyc(&b, 10);		/* [11] */
	e_mtc(&b, 0x14);	/* [12]: three periods, 20 cycles */
	e_cyc(&b, 100);		/* [13] */
	n = run(&b, &c, st, NULL, 32);
	assert_int_equal(n, 14);
	assert_true(st[9].flags & TM_F_SLEEP);
	assert_true(st[10].flags & TM_F_SLEEP);
	assert_false(st[12].flags & TM_F_MTC_LOST);
	assert_true(st[12].tsc == st[7].tsc + 3 * 1232);
	/* Still 400 cycles per period: no calibration over the sleep. */
	assert_true(near(&st[13], st[12].tsc + 308));
	assert_true(st[12].khz == st[8].khz);
}

/* Feed @b to @tm with tm_step(), cutting it over a carry (tm_save() and
 * a fresh model's tm_restore()) before packet @cut; *@before gets the
 * estimate before the last packet. */
static void feed_cut(struct tm_model *tm, const struct tm_config *cfg,
		     const struct buf *b, size_t cut, uint64_t *before)
{
	struct pkt_decoder dec;
	struct pkt pkt;
	struct tm_stamp st;
	struct tm_carry c;
	size_t n = 0;

	tm_init(tm, cfg);
	assert_int_equal(pkt_decoder_init(&dec, b->b, b->b + b->n, 0), 0);
	while (pkt_next(&dec, &pkt) > 0) {
		if (n++ == cut) {
			tm_save(tm, &c);
			tm_init(tm, cfg);
			tm_restore(tm, &c);
		}
		if (tm_now(tm, before) < 0)
			*before = 0;
		assert_int_equal(tm_step(tm, &pkt, &st), 0);
	}
}

/* MTCFreq 9 and up: an MTC's payload is CTC[MTCFreq+7:MTCFreq], so from
 * one MTC to the next the CTC wraps every 2^(MTCFreq+8), not 2^16; only
 * the TMA's CTC is 16 bits (SDM 36.4.2.12, 36.8.3.1).  MTCs 200 periods
 * apart (a loss, or a sleep) land where libipt's estimator puts them, the
 * same payload twice is 256 periods; the same across a carry. */
static void test_mtc_freq9(void **state __attribute__((unused)))
{
	/* payload, periods since the MTC before (0: the TMA's) */
	static const uint8_t pay[] = { 0x00, 0x01, 0xc9, 0xca, 0xca, 0x02 };
	static const unsigned per[] = { 1, 1, 200, 1, 256, 56 };
	struct tm_config c;
	struct tm_stamp st[24];
	struct tm_model tm;
	struct tm_ptdump tmp;
	struct tm_ptdump_out out;
	struct pkt_decoder dec;
	struct pkt pkt;
	struct buf b = { .n = 0 };
	uint64_t t, e0;
	size_t n, i, k, cut;

	memset(&c, 0, sizeof(c));
	assert_int_equal(tm_config_option(&c, "--mtc-freq", "9"), 1);
	assert_int_equal(tm_config_option(&c, "--cpuid-0x15.eax", "1"), 1);
	assert_int_equal(tm_config_option(&c, "--cpuid-0x15.ebx", "1"), 1);
	/* CTC 0x1fe00 at the TSC: the TMA holds 0xfe00, the first MTC's
	 * payload is 0x20000 >> 9 = 0x100, 0x00 in 8 bits. */
	e_psb(&b);
	e_tsc(&b, T0);
	e_tma(&b, 0xfe00, 0);
	e_psbend(&b);
	for (i = 0; i < sizeof(pay); i++)
		e_mtc(&b, pay[i]);	/* [4 + i] */
	n = run(&b, &c, st, NULL, 24);
	assert_int_equal(n, 4 + sizeof(pay));
	tm_ptdump_init(&tmp, &c, TMP_SHOW_TIME);
	assert_int_equal(pkt_decoder_init(&dec, b.b, b.b + b.n, 0), 0);
	for (t = T0, k = 0; pkt_next(&dec, &pkt) > 0; k++) {
		memset(&out, 0, sizeof(out));
		assert_int_equal(tm_ptdump_step(&tmp, &pkt, &out), 0);
		if (k < 4)
			continue;
		i = k - 4;
		t += (uint64_t)per[i] * 512;
		assert_true(st[k].tsc == t && st[k].tsc_frac == 0);
		assert_int_equal(st[k].flags & (TM_F_CLAMPED | TM_F_UNTIED), 0);
		assert_int_equal(st[k].lost_mtc, per[i] - 1);
		/* libipt's estimator (no CYCs: its time is the MTC's); it
		 * takes the same payload twice for no time, not a wrap */
		if (i < 4)
			assert_true(out.col_ok && out.value == t);
	}
	for (cut = 1; cut < n; cut++) {
		feed_cut(&tm, &c, &b, cut, &e0);
		assert_true(tm.est >> 32 == t);
	}
}

/* Halted time: the first anchor after a PWRX closes the sleep, at most
 * the estimate's move to it; at least that less the span the EXSTOP's
 * time was extrapolated over from the anchor before (all of it only where
 * the EXSTOP's time is an anchor's), 0 where a CYC ran after the PWRX or
 * no ratio placed the cycles before the EXSTOP; the same across a
 * carry. */
static void test_halt(void **state __attribute__((unused)))
{
	struct tm_config c = dr_cfg(), none;
	struct tm_stamp st[24];
	struct tm_model tm;
	uint64_t lo, hi, e0, span;
	tm_q q7, q11;
	int k;

	for (k = 0; k < 4; k++) {
		struct buf b = { .n = 0 };
		size_t cut;

		psb_plus(&b, T0, (uint16_t)(0x0f << 3), 0, 12);
		e_mtc(&b, 0x10);	/* [5] */
		e_cyc(&b, 400);		/* [6] */
		e_mtc(&b, 0x11);	/* [7] */
		e_cyc(&b, k == 3 ? 0 : 10);	/* [8] */
		e_pwre(&b);		/* [9] */
		e_cyc(&b, k == 3 ? 0 : 5);	/* [10] */
		e_exstop(&b);		/* [11]: settles the CYC */
		e_fup(&b);		/* [12] */
		e_pwrx(&b);		/* [13] */
		if (k == 1)
			e_cyc(&b, 30);	/* [14]: ran after the wake */
		if (k == 2)
			e_mtc(&b, 0x15);	/* the next MTC closes it */
		else
			e_tsc(&b, T0 + 100000);
		run(&b, &c, st, NULL, 24);
		assert_true(st[11].flags & TM_F_EXACT);
		/* 15 cycles at 400 a period past MTC [7]; k 3: none, the
		 * EXSTOP's time is the MTC's */
		q7 = ((tm_q)st[7].tsc << 32) | st[7].tsc_frac;
		q11 = ((tm_q)st[11].tsc << 32) | st[11].tsc_frac;
		span = (uint64_t)((q11 - q7 + ((tm_q)1 << 32) - 1) >> 32);
		assert_true(k == 3 ? span == 0 : span == 47);
		for (cut = 9; cut < 16; cut++) {
			feed_cut(&tm, &c, &b, cut, &e0);
			assert_int_equal(tm_last_halt(&tm, &lo, &hi), 1);
			assert_int_equal(hi, (k == 2 ? tm.est >> 32 : T0 + 100000) - e0);
			assert_true(hi > span);
			assert_int_equal(lo, k == 1 ? 0 : hi - span);
		}
	}
	/* Without a ratio the cycles before the EXSTOP do not move time:
	 * its time is unknown, at least 0 halted (20000 cycles ran, and
	 * the TSC 30000 ticks on) */
	{
		struct buf b = { .n = 0 };
		size_t cut;

		memset(&none, 0, sizeof(none));
		e_psb(&b);
		e_tsc(&b, T0);
		e_psbend(&b);
		e_tnt(&b, 1);
		e_cyc(&b, 20000);
		e_pwre(&b);
		e_exstop(&b);
		e_pwrx(&b);
		e_tsc(&b, T0 + 30000);
		for (cut = 1; cut < 9; cut++) {
			feed_cut(&tm, &none, &b, cut, &e0);
			assert_int_equal(tm_last_halt(&tm, &lo, &hi), 1);
			assert_int_equal(hi, 30000);
			assert_int_equal(lo, 0);
		}
	}
	/* No sleep, no halt; an OVF drops the sleep's end */
	{
		struct buf b = { .n = 0 };

		psb_plus(&b, T0, (uint16_t)(0x0f << 3), 0, 12);
		e_cyc(&b, 10);
		e_tsc(&b, T0 + 5000);
		e_pwre(&b);
		e_exstop(&b);
		e_pwrx(&b);
		e_ovf(&b);
		e_tsc(&b, T0 + 90000);
		feed_cut(&tm, &c, &b, 100, &e0);
		assert_int_equal(tm_last_halt(&tm, &lo, &hi), 0);
		assert_int_equal(lo, 0);
		assert_int_equal(hi, 0);
	}
}

/* TSC behind the estimate: held and flagged; behind the last TSC: also
 * flagged as going backwards. */
static void test_tsc_back(void **state __attribute__((unused)))
{
	struct tm_config c;
	struct tm_stamp st[8];
	struct buf b = { .n = 0 };

	memset(&c, 0, sizeof(c));
	c.have_nom_freq = 1;
	c.nom_freq = 10;
	e_tsc(&b, 5000);
	e_cbr(&b, 10);
	e_cyc(&b, 100);		/* 5100 */
	e_tsc(&b, 5050);	/* behind the estimate */
	e_tsc(&b, 4000);	/* behind the last TSC */
	e_tsc(&b, 6000);
	run(&b, &c, st, NULL, 8);
	assert_true(st[2].tsc == 5100);
	assert_true(st[3].tsc == 5100 && (st[3].flags & TM_F_CLAMPED));
	assert_false(st[3].flags & TM_F_TSC_BACK);
	assert_true(st[4].tsc == 5100);
	assert_true(st[4].flags & TM_F_TSC_BACK);
	assert_true(st[5].tsc == 6000 && !(st[5].flags & TM_F_CLAMPED));
}


/* One PSB segment of the resync streams: PSB+ with TSC @tsc, TMA(@ctc, 0)
 * and CBR 12, then four MTC periods of 100 cycles (MTC payloads from
 * @mtc on). */
static void resync_seg(struct buf *b, uint64_t tsc, uint16_t ctc, uint8_t mtc)
{
	uint8_t k;

	psb_plus(b, tsc, ctc, 0, 12);
	for (k = 0; k < 4; k++) {
		e_cyc(b, 60);
		e_tnt(b, 2);
		e_cyc(b, 40);
		e_mtc(b, (uint8_t)(mtc + k));
	}
}

/* Four segments 5 MTC periods apart (1232 ticks each with dr_cfg()),
 * the second's PSB+ TSC @tsc_b (T0 + 5 * 1232 when sound), a sleep at its
 * end that the third's PSB+ TSC closes.  Returns the third PSB's offset. */
static size_t resync_stream(struct buf *b, uint64_t tsc_b)
{
	size_t third;

	resync_seg(b, T0, 0x0f << 3, 0x10);
	resync_seg(b, tsc_b, 0x14 << 3, 0x15);
	e_cyc(b, 10);
	e_pwre(b);
	e_exstop(b);
	e_fup(b);
	e_pwrx(b);
	third = b->n;
	resync_seg(b, T0 + 10 * 1232, 0x19 << 3, 0x1a);
	resync_seg(b, T0 + 15 * 1232, 0x1e << 3, 0x1f);
	e_cyc(b, 100);
	e_tnt(b, 1);
	return third;
}

/* What the resync tests look at, per packet. */
struct rs_rec {
	struct tm_stamp st;
	uint64_t off;
	uint8_t type;
	uint64_t per_ticks;	/* the last period measured, 0 none */
	uint64_t nhalt, halt_hi;
};

/* Decode @b from offset @from with a fresh model into @out (at most
 * @max).  Returns the number of packets. */
static size_t rs_run(const struct buf *b, size_t from, struct rs_rec *out,
		     size_t max)
{
	struct tm_config c = dr_cfg();
	struct pkt_decoder dec;
	struct pkt pkt;
	struct tm_model tm;
	struct tm_period per;
	uint64_t lo;
	size_t n = 0;
	int r;

	tm_init(&tm, &c);
	assert_int_equal(pkt_decoder_init(&dec, b->b + from, b->b + b->n, from), 0);
	while ((r = pkt_next(&dec, &pkt)) > 0) {
		assert_true(n < max);
		assert_int_equal(tm_step(&tm, &pkt, &out[n].st), 0);
		out[n].off = pkt.offset;
		out[n].type = (uint8_t)pkt.type;
		tm_last_period(&tm, &per);
		out[n].per_ticks = per.ticks;
		out[n].nhalt = tm_last_halt(&tm, &lo, &out[n].halt_hi);
		n++;
	}
	assert_int_equal(r, -pte_eos);
	return n;
}

/* After the third PSB, a decode of @b from the start agrees with a fresh
 * one from there: every anchor (TSC, MTC) at once; every packet once both
 * calibrated (the second MTC after the TSC: until then the first has the
 * ratio it measured before, the second none).  No period or sleep spans
 * the damage. */
static void rs_check_after(const struct buf *b, size_t third)
{
	static struct rs_rec all[512], tail[256];
	size_t n = rs_run(b, 0, all, 512), m = rs_run(b, third, tail, 256);
	size_t i, j, nmtc = 0;

	for (i = 0; i < n; i++) {
		assert_true(all[i].per_ticks <= 2 * 1232);
		assert_true(all[i].halt_hi <= 2 * 1232);
	}
	for (i = 0; i < n && all[i].off < third; i++)
		;
	assert_int_equal(n - i, m);
	for (j = 0; j < m; j++, i++) {
		assert_true(all[i].off == tail[j].off);
		if (all[i].type == PKT_MTC)
			nmtc++;
		if (!(tail[j].st.flags & TM_F_TSC))
			continue;	/* before the fresh one's TSC */
		if (all[i].type == PKT_TSC || all[i].type == PKT_MTC || nmtc >= 2) {
			assert_true(all[i].st.tsc == tail[j].st.tsc);
			assert_true(all[i].st.tsc_frac == tail[j].st.tsc_frac);
		}
		if (nmtc >= 2) {
			assert_int_equal(all[i].st.flags, tail[j].st.flags);
			assert_int_equal(all[i].st.khz, tail[j].st.khz);
		}
	}
	assert_true(nmtc == 8);
}

/* The index of the packet at offset @off in @r[0..@n). */
static size_t rs_at(const struct rs_rec *r, size_t n, size_t off)
{
	size_t i;

	for (i = 0; i < n && r[i].off != off; i++)
		;
	assert_true(i < n);
	return i;
}

/* A PSB+ TSC far in the future: its segment runs there, the next PSB+
 * TSC contradicts it and time goes back to it (TM_F_RESYNC), and from
 * there on the times are those of a decode that starts there. */
static void test_resync_future(void **state __attribute__((unused)))
{
	static struct rs_rec r[512];
	struct buf b = { .n = 0 };
	size_t third = resync_stream(&b, T0 + 5 * 1232 + (1ull << 54)), n, i;

	n = rs_run(&b, 0, r, 512);
	/* the damaged segment: far ahead, consistently so */
	for (i = 0; i < n && r[i].off < third; i++)
		if (r[i].type == PKT_TSC && r[i].st.tsc > T0 + (1ull << 53))
			break;
	assert_true(i < n && !(r[i].st.flags & (TM_F_RESYNC | TM_F_TSC_BACK)));
	/* the next PSB+ TSC: back to the trace's time */
	i = rs_at(r, n, third + 16);
	assert_int_equal(r[i].type, PKT_TSC);
	assert_true(r[i].st.tsc == T0 + 10 * 1232 && r[i].st.tsc_frac == 0);
	assert_true(r[i].st.flags & TM_F_RESYNC);
	assert_true(r[i].st.flags & TM_F_TSC_BACK);
	assert_false(r[i].st.flags & TM_F_CLAMPED);
	/* the sleep it closed: no halted time across the jump */
	assert_int_equal(r[i].nhalt, 0);
	/* the MTCs after it are placed from its TMA, not clamped */
	for (; i < n; i++)
		assert_false(r[i].st.flags & (TM_F_CLAMPED | TM_F_UNTIED |
					      TM_F_MTC_LOST));
	assert_true(r[n - 3].st.tsc == T0 + 19 * 1232);
	rs_check_after(&b, third);
}

/* A PSB+ TSC far in the past: time goes back to it (its own segment is
 * the damage), and the next PSB+ TSC leaves it forwards, measuring no
 * period or sleep across. */
static void test_resync_past(void **state __attribute__((unused)))
{
	static struct rs_rec r[512];
	struct buf b = { .n = 0 };
	uint64_t bad = T0 + 5 * 1232 - (1ull << 50);
	size_t third = resync_stream(&b, bad), n, i;

	n = rs_run(&b, 0, r, 512);
	for (i = 0; i < n && !(r[i].type == PKT_TSC && r[i].st.tsc == bad); i++)
		;
	assert_true(i < n);
	assert_true(r[i].st.flags & TM_F_RESYNC);
	assert_true(r[i].st.flags & TM_F_TSC_BACK);
	/* its segment's MTCs follow it, not the time before */
	assert_true(r[i + 7].type == PKT_MTC && r[i + 7].st.tsc == bad + 1232);
	assert_false(r[i + 7].st.flags & TM_F_CLAMPED);
	i = rs_at(r, n, third + 16);
	assert_true(r[i].st.tsc == T0 + 10 * 1232);
	assert_false(r[i].st.flags & (TM_F_RESYNC | TM_F_TSC_BACK |
				      TM_F_CLAMPED));
	assert_int_equal(r[i].nhalt, 0);
	rs_check_after(&b, third);
}

/* An MTC one payload after the last, placed far later by a damaged
 * PSB+ TSC between (with its TMA): the crystal clock says one period,
 * the TSC says 2^54 ticks; the trace contradicts itself, and that is no
 * period (no stall of 2^54 ticks). */
static void test_resync_no_period(void **state __attribute__((unused)))
{
	static struct rs_rec r[128];
	struct buf b = { .n = 0 };
	/* 100 ticks past CTC tick 0x9b, in the MTC period before 0x14 */
	uint64_t t = T0 + 4 * 1232 + 3 * 154 + 100;
	size_t n, i;
	int k;

	for (k = 0; k < 2; k++) {
		b.n = 0;
		resync_seg(&b, T0, 0x0f << 3, 0x10);
		psb_plus(&b, k ? t + (1ull << 54) : t, (0x13 << 3) | 3, 100, 12);
		e_cyc(&b, 100);
		e_mtc(&b, 0x14);
		n = rs_run(&b, 0, r, 128);
		assert_true(r[n - 1].type == PKT_MTC);
		assert_true(r[n - 1].st.tsc == (k ? (1ull << 54) : 0) + T0 + 5 * 1232);
		for (i = 0; i < n; i++)
			assert_true(r[i].per_ticks <= 2 * 1232);
		/* the sound one measured it */
		assert_true(k || r[n - 1].per_ticks == 1232);
	}
}

/* Without MTCs: a PSB+ TSC far in the future, a TSC outside PSB+ back at
 * the trace's time (held: a lone TSC restates nothing), then a PSB+ TSC
 * that sides with it: behind the estimate, though not behind the last
 * anchor (the held TSC), it re-synchronises (TM_F_RESYNC alone).  One that
 * sides with the estimate instead changes nothing. */
static void test_resync_disputed(void **state __attribute__((unused)))
{
	struct tm_config c = dr_cfg();
	struct tm_stamp st[64];
	uint8_t types[64];
	struct buf b = { .n = 0 };
	uint64_t far = T0 + (1ull << 54);
	size_t n, i, k;

	for (k = 0; k < 2; k++) {
		b.n = 0;
		e_psb(&b);
		e_tsc(&b, T0);
		e_cbr(&b, 12);
		e_psbend(&b);
		e_cyc(&b, 100);
		e_psb(&b);
		e_tsc(&b, k ? far : T0 + 1000);	/* damaged, or the lone one is */
		e_psbend(&b);
		e_cyc(&b, 100);
		e_tsc(&b, k ? T0 + 2000 : T0 + 500);	/* held */
		e_cyc(&b, 100);
		e_psb(&b);
		e_tsc(&b, T0 + 3000);
		e_psbend(&b);
		e_cyc(&b, 100);
		n = run(&b, &c, st, types, 64);
		for (i = n; i > 0 && types[i - 1] != PKT_TSC; i--)
			;
		assert_true(i > 0);
		i--;
		if (k) {
			assert_true(st[i].tsc == T0 + 3000);
			assert_int_equal(st[i].flags & (TM_F_RESYNC | TM_F_TSC_BACK |
							 TM_F_CLAMPED), TM_F_RESYNC);
		} else {
			assert_true(st[i].tsc == T0 + 3000);
			assert_false(st[i].flags & (TM_F_RESYNC | TM_F_TSC_BACK |
						    TM_F_CLAMPED));
		}
		/* the lone one: held and flagged */
		for (i--; types[i] != PKT_TSC; i--)
			;
		assert_true(st[i].flags & TM_F_TSC_BACK);
		assert_true(st[i].flags & TM_F_CLAMPED);
	}
}

/* A PSB+ TSC far in the past (time goes back to it, its TMA ties the
 * crystal clock to it), then a sound TSC outside PSB+ without a TMA:
 * the MTCs after it are not placed from the damaged TSC's reference
 * (wrapped past the sound TSC, they ran ahead of the next PSB+ TSC,
 * which then went back too, dropping its segment's measurements).  The
 * next PSB+ TSC leaves the stretch forwards, as usual. */
static void test_resync_past_then_tsc(void **state __attribute__((unused)))
{
	static struct rs_rec r[256];
	struct buf b = { .n = 0 };
	size_t n, i, third;
	int k;

	for (k = 0; k < 4; k++) {
		b.n = 0;
		resync_seg(&b, T0, 0x0f << 3, 0x10);
		/* (the damage in a few phases of the CTC wrap) */
		psb_plus(&b, T0 + 5 * 1232 - (1ull << 50) - (uint64_t)k * 77777, 0x14 << 3, 0, 12);
		e_cyc(&b, 100);
		e_mtc(&b, 0x15);
		e_cyc(&b, 100);
		e_tsc(&b, T0 + 6 * 1232 + 100);
		e_cyc(&b, 100);
		e_mtc(&b, 0x16);
		e_cyc(&b, 100);
		e_mtc(&b, 0x17);
		third = b.n;
		resync_seg(&b, T0 + 10 * 1232, 0x19 << 3, 0x1a);
		n = rs_run(&b, 0, r, 256);
		i = rs_at(r, n, third + 16);
		assert_int_equal(r[i].type, PKT_TSC);
		assert_true(r[i].st.tsc == T0 + 10 * 1232);
		assert_false(r[i].st.flags & (TM_F_RESYNC | TM_F_TSC_BACK | TM_F_CLAMPED));
		/* the MTCs between: after the sound TSC, before the next */
		for (i = rs_at(r, n, third) - 1; r[i].type != PKT_TSC; i--)
			if (r[i].type == PKT_MTC)
				assert_true(r[i].st.tsc > T0 + 6 * 1232 &&
					    r[i].st.tsc < T0 + 10 * 1232);
		/* its segment measured its periods */
		assert_true(r[n - 3].per_ticks == 1232);
	}
}

/* A PSB+ TSC behind the estimate (CYCs ran it up to the next MTC's
 * time) but not behind the last anchor is the usual overshoot: the
 * estimate holds (TM_F_CLAMPED), no resync. */
static void test_resync_not_overshoot(void **state __attribute__((unused)))
{
	static struct rs_rec r[256];
	struct buf b = { .n = 0 };
	uint64_t tb = T0 + 5 * 1232;
	size_t n, i, second;

	resync_seg(&b, T0, 0x0f << 3, 0x10);
	e_cyc(&b, 1000);	/* to the next MTC's time, tb */
	second = b.n;
	/* 100 ticks before tb: FastCounter 54 past CTC tick 0x9f */
	psb_plus(&b, tb - 100, (0x14 << 3) - 1, 54, 12);
	e_cyc(&b, 100);
	e_mtc(&b, 0x15);
	n = rs_run(&b, 0, r, 256);
	i = rs_at(r, n, second + 16);
	assert_int_equal(r[i].type, PKT_TSC);
	assert_true(r[i - 1].st.tsc == tb);
	assert_true(r[i].st.tsc == tb);
	assert_true(r[i].st.flags & TM_F_CLAMPED);
	assert_false(r[i].st.flags & (TM_F_RESYNC | TM_F_TSC_BACK));
	assert_true(r[n - 1].st.tsc == T0 + 6 * 1232);
	assert_false(r[n - 1].st.flags & TM_F_CLAMPED);
}


/* A far-past TSC outside PSB+ (held, disputed), then a PSB+ whose TSC
 * lies a few ticks behind an MTC of the same PSB+, as real traces show:
 * less than an MTC period behind it is no contradiction, so no resync,
 * and the segment measures its periods (k 0).  Where the time before the
 * held TSC was far ahead (a far-future PSB+ segment; the held TSC and its
 * TMA place the MTCs soundly), the estimate is more than a period past
 * that MTC and the PSB+ TSC sides with the held one: time goes back
 * (k 1). */
/* A carry saved with a crystal clock reference, in a stretch time went
 * back to, restored into a model without the CPUID.15H ratio (a damaged
 * index blob's carry is not checked against its configuration): a TSC
 * outside PSB+ then measured a CTC wrap by a ratio of 0, a division by
 * zero (fuzz_idxcache).  Such a model keeps no reference. */
static void test_restore_ref_unconfigured(void **state __attribute__((unused)))
{
	struct tm_config cfg = dr_cfg(), bare;
	struct buf b = { .n = 0 };
	struct pkt_decoder dec;
	struct tm_model tm;
	struct tm_carry c;
	struct tm_stamp st;
	struct pkt pkt;
	uint64_t back = T0 - (1ull << 40);

	resync_seg(&b, T0, 0x0f << 3, 0x10);
	psb_plus(&b, back, 0x14 << 3, 0, 12);	/* time goes back: a stretch */
	tm_init(&tm, &cfg);
	assert_int_equal(pkt_decoder_init(&dec, b.b, b.b + b.n, 0), 0);
	while (pkt_next(&dec, &pkt) > 0)
		assert_int_equal(tm_step(&tm, &pkt, &st), 0);
	tm_save(&tm, &c);
	memset(&bare, 0, sizeof(bare));
	assert_int_equal(tm_config_option(&bare, "--mtc-freq", "3"), 1);
	tm_init(&tm, &bare);
	tm_restore(&tm, &c);
	b.n = 0;
	e_tsc(&b, back + 5000);
	assert_int_equal(pkt_decoder_init(&dec, b.b, b.b + b.n, 0), 0);
	assert_true(pkt_next(&dec, &pkt) > 0);
	assert_int_equal(tm_step(&tm, &pkt, &st), 0);
	assert_true(st.tsc == back + 5000);
}

static void test_resync_disputed_mtc(void **state __attribute__((unused)))
{
	static struct rs_rec r[256];
	struct buf b = { .n = 0 };
	uint64_t t6 = T0 + 6 * 1232, far = 1ull << 54;
	size_t n, i, second;
	int k;

	for (k = 0; k < 2; k++) {
		b.n = 0;
		resync_seg(&b, T0, 0x0f << 3, 0x10);
		if (k) {
			/* far ahead, then back outside PSB+ with a TMA: 100
			 * ticks past CTC tick 0xa0 */
			psb_plus(&b, T0 + 5 * 1232 + far, 0x14 << 3, 0, 12);
			e_cyc(&b, 100);
			e_tsc(&b, T0 + 5 * 1232 + 100);
			e_tma(&b, 0x14 << 3, 100);
		} else {
			e_cyc(&b, 100);
			e_tsc(&b, T0 - (1ull << 40));
		}
		e_cyc(&b, 100);
		e_mtc(&b, 0x15);	/* T0 + 6 * 1232 */
		e_cyc(&b, 100);
		e_tnt(&b, 1);
		second = b.n;
		/* MTC 0x16 at t6 + 1232, the TSC 20 ticks before it */
		e_psb(&b);
		e_mtc(&b, 0x16);
		e_tsc(&b, t6 + 1232 - 20);
		e_tma(&b, (0x16 << 3) - 1, 154 - 20);
		e_cbr(&b, 12);
		e_psbend(&b);
		e_cyc(&b, 100);
		e_tnt(&b, 1);
		e_cyc(&b, 100);
		e_mtc(&b, 0x17);
		n = rs_run(&b, 0, r, 256);
		i = rs_at(r, n, second + 16 + 2);
		assert_int_equal(r[i].type, PKT_TSC);
		assert_true(r[n - 1].type == PKT_MTC);
		if (k) {
			assert_true(r[i].st.flags & TM_F_RESYNC);
			assert_true(r[i].st.tsc == t6 + 1232 - 20);
		} else {
			assert_false(r[i].st.flags & TM_F_RESYNC);
			assert_true(r[i].st.tsc >= t6 + 1232);
			/* the next MTC period measured */
			assert_true(r[n - 1].per_ticks == 1232);
			assert_true(r[n - 1].st.khz != 0);
		}
		assert_true(r[n - 1].st.tsc == t6 + 2 * 1232);
		assert_false(r[n - 1].st.flags & (TM_F_CLAMPED | TM_F_UNTIED));
	}
}

/* Feed @b to a fresh model with @cfg; returns the periods measured. */
static uint64_t periods_of(const struct buf *b, const struct tm_config *cfg)
{
	struct pkt_decoder dec;
	struct pkt pkt;
	struct tm_model tm;
	struct tm_stamp st;
	struct tm_period per;

	tm_init(&tm, cfg);
	assert_int_equal(pkt_decoder_init(&dec, b->b, b->b + b->n, 0), 0);
	while (pkt_next(&dec, &pkt) > 0)
		assert_int_equal(tm_step(&tm, &pkt, &st), 0);
	tm_last_period(&tm, &per);
	return per.seq;
}

/* Without MTCs, a period that ends at a PSB+ TSC holds no stop of the
 * core clock (each is followed by a TSC of its own, SDM 36.4.2.11): one
 * with fewer cycles than CBR x 100 MHz at a sixteenth (clock modulation)
 * gives, counting 2^14 not yet reported, is no period (a far-future
 * PSB+ TSC); one at that bound still is; one that ends at a TSC outside
 * PSB+ (after a wake) always is.  Without a CBR, under RATIO_MAX. */
static void test_psb_period_ran(void **state __attribute__((unused)))
{
	/* 1000 cycles: at most (1000 + 16384) * 16 ticks at CBR = P1 */
	static const struct {
		uint64_t ticks;
		int psb, cbr;
		uint64_t want;
	} v[] = {
		{ 1000, 1, 1, 2 },
		{ 278144, 1, 1, 2 },
		{ 278145, 1, 1, 1 },
		{ 1ull << 54, 1, 1, 1 },
		{ 1ull << 54, 0, 1, 2 },
		/* 1024 ticks a cycle, RATIO_MAX */
		{ 17384ull * 1024, 1, 0, 2 },
		{ 17384ull * 1024 + 1, 1, 0, 1 },
		{ 17384ull * 1024 + 1, 0, 0, 2 },
	};
	struct tm_config c;
	size_t i;

	memset(&c, 0, sizeof(c));
	assert_int_equal(tm_config_option(&c, "--nom-freq", "12"), 1);
	c.have_cyc_thresh = 1;	/* none: no cycles hide (dr_cfg()) */
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct buf b = { .n = 0 };

		e_psb(&b);
		e_tsc(&b, T0);
		if (v[i].cbr)
			e_cbr(&b, 12);
		e_psbend(&b);
		e_cyc(&b, 1000);
		e_tnt(&b, 1);
		e_psb(&b);
		e_tsc(&b, T0 + 1000);
		e_psbend(&b);
		e_cyc(&b, 1000);
		e_tnt(&b, 1);
		if (v[i].psb)
			e_psb(&b);
		e_tsc(&b, T0 + 1000 + v[i].ticks);
		if (v[i].psb)
			e_psbend(&b);
		e_cyc(&b, 10);
		if (!v[i].cbr) {
			struct tm_config n;

			memset(&n, 0, sizeof(n));
			n.have_cyc_thresh = 1;
			assert_int_equal(periods_of(&b, &n), v[i].want);
		} else {
			assert_int_equal(periods_of(&b, &c), v[i].want);
		}
	}
}

/* --- the SDM's rules that an independent reference checked (issue 20) --- */

/* A CYC counts the cycles since the previous CYC (SDM 36.4.2.14).  One
 * right before a TSC (CYC-eligible) was sent in the TSC's cycle, so the
 * next CYC advances from the TSC, even when the estimate was behind it
 * (after an overflow). */
static void test_cyc_after_tsc(void **state __attribute__((unused)))
{
	struct tm_config c = dr_cfg();
	struct tm_stamp st[32];
	struct buf b = { .n = 0 };
	const uint64_t t1 = T0 + 100000;
	size_t n;

	psb_plus(&b, T0, (uint16_t)(0x0f << 3), 0, 12);
	e_mtc(&b, 0x10);	/* [5] */
	e_cyc(&b, 400);		/* [6] */
	e_mtc(&b, 0x11);	/* [7]: 400 cycles per 1232 ticks */
	e_ovf(&b);		/* [8] */
	e_cyc(&b, 50);		/* [9] */
	e_tsc(&b, t1);		/* [10]: the CYC's cycle */
	e_cyc(&b, 100);		/* [11]: 100 cycles after the TSC */
	e_tip(&b);		/* [12] */
	n = run(&b, &c, st, NULL, 32);
	assert_int_equal(n, 13);
	assert_true(st[10].tsc == t1 && (st[10].flags & TM_F_EXACT));
	assert_int_equal(st[10].cyc_delta, 50);
	assert_true(near(&st[11], t1 + 308));
	assert_false(st[11].flags & TM_F_CLAMPED);
}

/* EXSTOP alone is no sleep: execution goes on (a P-state or frequency
 * change, SDM 36.4.2.22).  Its period does not calibrate; the next clean
 * one does. */
static void test_exstop_in_execution(void **state __attribute__((unused)))
{
	struct tm_config c = dr_cfg();
	struct tm_stamp st[32];
	struct buf b = { .n = 0 };
	size_t n, i;

	psb_plus(&b, T0, (uint16_t)(0x0f << 3), 0, 12);
	e_mtc(&b, 0x10);	/* [5] */
	e_cyc(&b, 400);		/* [6] */
	e_mtc(&b, 0x11);	/* [7]: 400 a period */
	e_cyc(&b, 10);		/* [8] */
	e_exstop(&b);		/* [9] */
	e_fup(&b);		/* [10] */
	e_cyc(&b, 100);		/* [11] */
	e_tip(&b);		/* [12] */
	e_mtc(&b, 0x12);	/* [13]: 110 cycles, stopped: no measurement */
	e_cyc(&b, 200);		/* [14] */
	e_tip(&b);		/* [15] */
	e_mtc(&b, 0x13);	/* [16]: clean, 200 a period: measured */
	e_tnt(&b, 3);		/* [17] */
	n = run(&b, &c, st, NULL, 32);
	assert_int_equal(n, 18);
	for (i = 0; i < n; i++)
		assert_false(st[i].flags & TM_F_SLEEP);
	assert_int_equal(st[13].khz, st[8].khz);
	assert_int_equal(st[16].khz, (uint32_t)(200ull * 3700000 / 1232));
	assert_false(st[13].flags & TM_F_MTC_LOST);
}

/* After a TSC and its TMA the next MTC comes at the next CTC boundary
 * after TMA.CTC, not a whole period after the TSC (SDM 36.8.3): nothing
 * before it may be later. */
static void test_cap_after_tma(void **state __attribute__((unused)))
{
	struct tm_config c = dr_cfg();
	struct tm_stamp st[16];
	struct buf b = { .n = 0 };
	size_t n;

	/* CTC 5 ticks into an 8-tick MTC period: 3 CTC ticks (462 TSC
	 * ticks) to the next MTC. */
	psb_plus(&b, T0, (uint16_t)(0x0f << 3 | 5), 0, 12);
	e_cyc(&b, 10000);	/* [5]: 30833 ticks at P1/CBR */
	e_tip(&b);		/* [6] */
	e_mtc(&b, 0x10);	/* [7] */
	n = run(&b, &c, st, NULL, 16);
	assert_int_equal(n, 8);
	assert_true(st[5].tsc == T0 + 462 && st[5].tsc_frac == 0);
	assert_true(st[7].tsc == T0 + 462);
	assert_false(st[7].flags & TM_F_CLAMPED);
}

/* PSB+ is status only (SDM 36.3.7): a CYC before the PSB is not its
 * TSC's cycle; it applies to the first CYC-eligible packet after
 * PSBEND. */
static void test_psb_status_only(void **state __attribute__((unused)))
{
	struct tm_config c = dr_cfg();
	struct tm_stamp st[16];
	uint8_t types[16];
	struct buf b = { .n = 0 };
	size_t n, i;

	psb_plus(&b, T0, (uint16_t)(0x0f << 3), 0, 12);
	e_cyc(&b, 50);		/* [5] */
	e_psb(&b);		/* [6] */
	e_mode_exec(&b);	/* [7] */
	e_tsc(&b, T0 + 1000);	/* [8] */
	e_tma(&b, (uint16_t)(0x0f << 3 | 6), 76);	/* [9] */
	e_psbend(&b);		/* [10] */
	e_tip(&b);		/* [11] */
	n = run(&b, &c, st, types, 16);
	assert_int_equal(n, 12);
	for (i = 6; i <= 10; i++)
		assert_false(st[i].flags & TM_F_EXACT);
	assert_true(st[8].flags & TM_F_BOUNDED);
	assert_true(st[11].flags & TM_F_EXACT);
	assert_int_equal(st[11].cyc_delta, 50);
}

/* An MTC between a TSC and its TMA is placed at its own CTC boundary,
 * chained from the MTC before, not at the TSC's time. */
static void test_mtc_before_tma(void **state __attribute__((unused)))
{
	struct tm_config c = dr_cfg();
	struct tm_stamp st[16];
	struct buf b = { .n = 0 };
	const uint64_t m1 = T0 - 12 + 308;	/* MTC 0x9a */
	size_t n;

	psb_plus(&b, T0, 0xd4ce, 0xc, 12);
	e_mtc(&b, 0x9a);	/* [5] */
	/* A TSC between MTCs 0x9b and 0x9c: CTC 0xd4db and 10 ticks. */
	e_tsc(&b, m1 + 1232 + 3 * 154 + 10);	/* [6] */
	e_mtc(&b, 0x9c);	/* [7] */
	e_tma(&b, 0xd4db, 10);	/* [8] */
	e_mtc(&b, 0x9d);	/* [9] */
	n = run(&b, &c, st, NULL, 16);
	assert_int_equal(n, 10);
	assert_true(st[5].tsc == m1);
	assert_true(st[7].tsc == m1 + 2 * 1232);
	assert_int_equal(st[7].flags & (TM_F_UNTIED | TM_F_MTC_LOST |
					TM_F_CLAMPED), 0);
	assert_int_equal(st[8].flags & TM_F_TMA_NO_TSC, 0);
	assert_true(st[9].tsc == m1 + 3 * 1232);
	assert_int_equal(st[9].flags & (TM_F_MTC_LOST | TM_F_CLAMPED), 0);

	/* With no MTC before, nothing ties it: shown at the estimate,
	 * flagged, and placed when the TMA comes. */
	b.n = 0;
	e_tsc(&b, T0);		/* [0] */
	e_mtc(&b, 0x9a);	/* [1] */
	e_tma(&b, 0xd4ce, 0xc);	/* [2] */
	n = run(&b, &c, st, NULL, 16);
	assert_true(st[1].tsc == T0 && (st[1].flags & TM_F_UNTIED));
	assert_true(st[2].tsc == T0 - 12 + 308);
}

/* A TSC without a TMA does not stop the MTC chain: the next MTC is
 * placed from the last MTC's payload, the TSC telling how often it
 * wrapped (SDM 36.4.2.12). */
static void test_tsc_without_tma(void **state __attribute__((unused)))
{
	static const unsigned sleeps[] = { 50, 300 };
	size_t k;

	for (k = 0; k < 2; k++) {
		struct tm_config c = dr_cfg();
		struct tm_stamp st[32];
		struct buf b = { .n = 0 };
		uint64_t m1 = T0 + 2 * 1232, tsc = m1 + sleeps[k] * 1232 + 600;
		size_t n;

		psb_plus(&b, T0, (uint16_t)(0x0f << 3), 0, 12);
		e_mtc(&b, 0x10);	/* [5] */
		e_mtc(&b, 0x11);	/* [6] */
		e_pwre(&b);		/* [7] */
		e_exstop(&b);		/* [8] */
		e_fup(&b);		/* [9] */
		e_pwrx(&b);		/* [10] */
		e_tsc(&b, tsc);		/* [11]: no TMA */
		e_cyc(&b, 10);		/* [12] */
		e_tip(&b);		/* [13] */
		e_mtc(&b, (uint8_t)(0x11 + sleeps[k] + 1));	/* [14] */
		n = run(&b, &c, st, NULL, 32);
		assert_int_equal(n, 15);
		assert_true(st[6].tsc == m1);
		assert_true(st[14].tsc == m1 + (sleeps[k] + 1) * 1232);
		assert_int_equal(st[14].flags & (TM_F_UNTIED | TM_F_CLAMPED |
						 TM_F_MTC_LOST), 0);
	}
}

/* Without MTCs, time calibrates from TSC to TSC; an EXSTOP spoils only
 * its own period. */
static void test_tsc_only_calibration(void **state __attribute__((unused)))
{
	struct tm_config c;
	struct tm_stamp st[16];
	struct buf b = { .n = 0 };
	size_t n;

	memset(&c, 0, sizeof(c));
	c.have_nom_freq = 1;
	c.nom_freq = 24;
	e_tsc(&b, 1000000);	/* [0] */
	e_cbr(&b, 24);		/* [1] */
	e_exstop(&b);		/* [2] */
	e_fup(&b);		/* [3] */
	e_cyc(&b, 100);		/* [4] */
	e_tsc(&b, 1000500);	/* [5]: stopped in this period */
	e_cyc(&b, 100);		/* [6] */
	e_tsc(&b, 1000800);	/* [7]: 3 ticks a cycle */
	e_cyc(&b, 10);		/* [8] */
	n = run(&b, &c, st, NULL, 16);
	assert_int_equal(n, 9);
	assert_true(st[6].tsc == 1000600);	/* P1/CBR still */
	assert_true(st[8].tsc == 1000830);
	assert_true(st[8].flags & TM_F_FREQ);
}

/* --- shared traces --- */

struct trace {
	const char *path;	/* under $SHARED/traces */
	int quipper;		/* else dynamorio */
};

static const struct trace traces[] = {
	{ "dynamorio-drpt2trace/head_test_simple.raw.pt.bin", 0 },
	{ "dynamorio-drpt2trace/hist_2aad718d_test_simple.tracedir.pt.bin", 0 },
	{ "dynamorio-drpt2trace/hist_316e5058_drptpostprocessor.pt.bin", 0 },
	{ "quipper-perf-intel-pt/perf.data.intel_pt-4.14.idx0.cpu0.pt", 1 },
	{ "quipper-perf-intel-pt/perf.data.intel_pt-4.14.idx3.cpu3.pt", 1 },
	{ "quipper-perf-intel-pt/perf.data.piped.intel_pt-4.14.idx0.cpu0.pt", 1 },
	{ "quipper-perf-intel-pt/perf.data.piped.intel_pt-4.14.idx3.cpu3.pt", 1 },
	{ "keeper-perf-event-sample/traced_data.bin", 0 },
};

static uint8_t *load(const char *rel, size_t *size)
{
	char path[4096];
	uint8_t *p = helpers_read_file(helpers_shared_path(path, sizeof(path), rel), size);

	if (!p)
		print_error("cannot open %s (SHARED?)\n", path);
	return p;
}

static struct tm_config trace_cfg(const struct trace *t)
{
	struct tm_config c = dr_cfg();

	if (t->quipper) {
		assert_int_equal(tm_config_option(&c, "--nom-freq", "12"), 1);
		assert_int_equal(tm_config_option(&c, "--cpuid-0x15.ebx", "100"), 1);
	}
	return c;
}

struct rec {
	uint64_t off;
	struct tm_stamp st;
};

/*
 * Decode [@from, @to) of @p with @tm, resyncing after errors as the
 * browser does (tm_gap), into @out (may be NULL).  At each PSB, @carry
 * (may be NULL) gets the state and @psbs its offset.
 */
static size_t decode(struct tm_model *tm, const uint8_t *p, size_t from, size_t to,
		     struct rec *out, struct tm_carry *carry, uint64_t *psbs,
		     size_t *npsb)
{
	struct pkt_decoder dec;
	struct pkt pkt;
	size_t n = 0;
	int r;

	assert_int_equal(pkt_decoder_init(&dec, p + from, p + to, from), 0);
	for (;;) {
		r = pkt_next(&dec, &pkt);
		if (r == -pte_eos)
			break;
		if (r < 0) {
			pkt_sync_set(&dec, pkt.offset + 1);
			if (pkt_sync_forward(&dec) < 0)
				break;
			tm_gap(tm);
			continue;
		}
		if (pkt.type == PKT_PSB && carry) {
			tm_save(tm, &carry[*npsb]);
			psbs[(*npsb)++] = pkt.offset;
		}
		if (out) {
			out[n].off = pkt.offset;
			assert_int_equal(tm_step(tm, &pkt, &out[n].st), 0);
		} else {
			struct tm_stamp st;

			assert_int_equal(tm_step(tm, &pkt, &st), 0);
		}
		n++;
	}
	return n;
}

static int q_less(const struct tm_stamp *a, const struct tm_stamp *b)
{
	return a->tsc < b->tsc || (a->tsc == b->tsc && a->tsc_frac < b->tsc_frac);
}

/* Over every shared trace: time never decreases, cycles never decrease,
 * and decoding each PSB segment from its carried state gives exactly the
 * stamps of decoding the whole trace. */
static void test_shared_traces(void **state __attribute__((unused)))
{
	size_t t;

	for (t = 0; t < sizeof(traces) / sizeof(traces[0]); t++) {
		struct tm_config cfg = trace_cfg(&traces[t]);
		size_t size, n, i, k, npsb = 0, first;
		struct tm_carry *carry;
		struct rec *whole, *seg;
		uint64_t *psbs;
		const uint8_t *psb;
		uint8_t *p;
		struct tm_model tm;

		p = load(traces[t].path, &size);
		assert_non_null(p);
		whole = calloc(size + 1, sizeof(*whole));
		seg = calloc(size + 1, sizeof(*seg));
		carry = calloc(size / 16 + 1, sizeof(*carry));
		psbs = calloc(size / 16 + 1, sizeof(*psbs));
		assert_true(whole && seg && carry && psbs);

		psb = pkt_find_psb(p, p + size);
		assert_non_null(psb);
		first = (size_t)(psb - p);
		tm_init(&tm, &cfg);
		n = decode(&tm, p, first, size, whole, carry, psbs, &npsb);
		assert_true(n > 0 && npsb > 0);
		for (i = 1; i < n; i++) {
			assert_false(q_less(&whole[i].st, &whole[i - 1].st));
			assert_true(whole[i].st.cycles >= whole[i - 1].st.cycles);
		}

		/* Segment by segment from the carried state. */
		for (i = 0, k = 0; k < npsb; k++) {
			size_t end = k + 1 < npsb ? psbs[k + 1] : size, m, j;

			tm_init(&tm, &cfg);
			tm_restore(&tm, &carry[k]);
			m = decode(&tm, p, psbs[k], end, seg, NULL, NULL, NULL);
			while (i < n && whole[i].off < psbs[k])
				i++;
			for (j = 0; j < m; j++, i++) {
				assert_true(i < n);
				assert_true(seg[j].off == whole[i].off);
				assert_memory_equal(&seg[j].st, &whole[i].st,
						    sizeof(seg[j].st));
			}
		}
		free(psbs);
		free(carry);
		free(seg);
		free(whole);
		free(p);
	}
}

/* Tiled: a real trace repeated with its TSCs shifted forward stays
 * monotonic across the seams (a poor man's multi-GiB trace). */
static void test_tiled(void **state __attribute__((unused)))
{
	const struct trace *t = &traces[2];
	struct tm_config cfg = trace_cfg(t);
	uint64_t last_tsc = 0, last_frac = 0, shift = 0, max_tsc = 0;
	size_t size, rep;
	uint8_t *p;
	struct tm_model tm;

	p = load(t->path, &size);
	assert_non_null(p);
	tm_init(&tm, &cfg);
	for (rep = 0; rep < 20; rep++) {
		struct pkt_decoder dec;
		struct pkt pkt;
		struct tm_stamp st;
		int r;

		assert_int_equal(pkt_decoder_init(&dec, p, p + size, 0), 0);
		assert_int_equal(pkt_sync_forward(&dec), 0);
		while ((r = pkt_next(&dec, &pkt)) != -pte_eos) {
			if (r < 0) {
				pkt_sync_set(&dec, pkt.offset + 1);
				if (pkt_sync_forward(&dec) < 0)
					break;
				tm_gap(&tm);
				continue;
			}
			if (pkt.type == PKT_TSC) {
				if (pkt.u.tsc > max_tsc)
					max_tsc = pkt.u.tsc;
				pkt.u.tsc += shift;
			}
			assert_int_equal(tm_step(&tm, &pkt, &st), 0);
			assert_true(st.tsc > last_tsc ||
				    (st.tsc == last_tsc && st.tsc_frac >= last_frac));
			last_tsc = st.tsc;
			last_frac = st.tsc_frac;
		}
		shift = (max_tsc - 0x924c2fedc03f8ull + 100000) * (rep + 1);
	}
	free(p);
}

/* --- libipt's estimator: the edges the golden files don't reach --- */

static void test_ptdump_edges(void **state __attribute__((unused)))
{
	struct tm_config c = dr_cfg();
	struct tm_ptdump tmp;
	struct tm_ptdump_out out;
	struct pkt pkt;

	assert_string_equal(tm_ptdump_errstr(TMP_E_NO_TIME), "no timing information");
	assert_string_equal(tm_ptdump_errstr(-TMP_E_BAD_CONTEXT),
			    "unexpected packet context");
	assert_string_equal(tm_ptdump_errstr(99), "internal error");
	assert_int_equal(tm_ptdump_step(NULL, &pkt, &out), -pte_invalid);

	/* A TMA without TSC: libipt's "unexpected packet context". */
	tm_ptdump_init(&tmp, &c, TMP_SHOW_TIME);
	memset(&pkt, 0, sizeof(pkt));
	pkt.type = PKT_TMA;
	assert_int_equal(tm_ptdump_step(&tmp, &pkt, &out), 0);
	assert_int_equal(out.ndiag, 2);
	assert_string_equal(out.diag[0].msg, "error updating time");
	assert_int_equal(out.diag[0].err, TMP_E_BAD_CONTEXT);
	assert_int_equal(out.diag[1].err, TMP_E_NO_TIME);
	assert_false(out.col_ok);

	/* --no-wall-clock prints relative time without complaint. */
	tm_ptdump_init(&tmp, &c, TMP_SHOW_TIME | TMP_NO_WALL_CLOCK);
	pkt.type = PKT_MTC;
	pkt.u.mtc = 5;
	assert_int_equal(tm_ptdump_step(&tmp, &pkt, &out), 0);
	assert_int_equal(out.ndiag, 0);
	assert_true(out.col == TMP_COL_TSC && out.col_ok && out.value == 0);

	/* --no-tcal: CYCs can't be converted. */
	tm_ptdump_init(&tmp, &c, TMP_SHOW_TIME | TMP_NO_TCAL);
	pkt.type = PKT_CYC;
	pkt.u.cyc = 5;
	assert_int_equal(tm_ptdump_step(&tmp, &pkt, &out), 0);
	assert_int_equal(out.ndiag, 2);
	assert_string_equal(out.diag[0].msg,
			    "error updating time: no calibration");

	/* Without cpuid-0x15, an MTC after TSC+TMA is a bad configuration. */
	memset(&c, 0, sizeof(c));
	c.have_mtc_freq = 1;
	tm_ptdump_init(&tmp, &c, TMP_SHOW_TCAL);
	pkt.type = PKT_TSC;
	pkt.u.tsc = 1000;
	tm_ptdump_step(&tmp, &pkt, &out);
	pkt.type = PKT_TMA;
	tm_ptdump_step(&tmp, &pkt, &out);
	pkt.type = PKT_MTC;
	pkt.u.mtc = 1;
	tm_ptdump_step(&tmp, &pkt, &out);
	assert_true(out.ndiag >= 1);
	assert_string_equal(out.diag[0].msg, "error updating time");
	assert_int_equal(out.diag[0].err, TMP_E_BAD_CONFIG);
}

/* Feed @n packets of type/payload pairs to @tmp; return the last out. */
static struct tm_ptdump_out feed(struct tm_ptdump *tmp, const struct pkt *pkts, size_t n)
{
	struct tm_ptdump_out out;
	size_t i;

	memset(&out, 0, sizeof(out));
	for (i = 0; i < n; i++)
		assert_int_equal(tm_ptdump_step(tmp, &pkts[i], &out), 0);
	return out;
}

#define P_MTC(v) { .type = PKT_MTC, .u.mtc = (v) }
#define P_CYC(v) { .type = PKT_CYC, .u.cyc = (v) }

/* SKL168 (CYCs dropped before a PSB): with the erratum, the first MTC
 * after a PSB that follows lost MTCs does not calibrate. */
static void test_ptdump_skl168(void **state __attribute__((unused)))
{
	static const struct pkt pkts[] = {
		{ .type = PKT_TSC, .u.tsc = 1000000 },
		{ .type = PKT_TMA, .u.tma = { .ctc = 0, .fc = 0 } },
		P_MTC(1), P_CYC(100), P_MTC(2),		/* fcr 1232/100 */
		{ .type = PKT_PSB }, { .type = PKT_PSBEND },
		P_CYC(300), P_MTC(4),			/* 2464/300 */
	};
	struct tm_config c = dr_cfg();
	struct tm_ptdump tmp;
	struct tm_ptdump_out out;

	c.have_nom_freq = 0;
	assert_int_equal(tm_config_option(&c, "--cpu", "6/85"), 1);
	tm_ptdump_init(&tmp, &c, TMP_SHOW_TCAL);
	out = feed(&tmp, pkts, 5);
	assert_true(out.col == TMP_COL_FCR && out.col_ok);
	assert_true(out.value == (1232ull << 8) / 100);
	out = feed(&tmp, pkts + 5, 4);
	assert_true(out.value == (2464ull << 8) / 300);

	assert_int_equal(tm_config_option(&c, "--cpu", "6/78"), 1);
	tm_ptdump_init(&tmp, &c, TMP_SHOW_TCAL);
	feed(&tmp, pkts, 5);
	out = feed(&tmp, pkts + 5, 4);
	assert_true(out.value == (1232ull << 8) / 100);
}

/* An OVF forgets the calibration, unless --keep-tcal-on-ovf. */
/* MTC times from TSC, TMA and MTC payloads equal the plain 128-bit
 * formula (CTC delta * EBX << 32) / EAX over TSC:crystal ratios whose
 * remainders matter, every MTC frequency and payload jumps (the first MTC
 * from the TMA's CTC[15:0], the others from the last payload, wrapping at
 * 2^(MTCFreq+8)): the 64-bit
 * split and the one-period shortcut in tm.c give the same floor; a twin
 * fed by tm_advance() (the steady-MTC path) carries the same state. */
static void test_ctc_ticks_exact(void **state __attribute__((unused)))
{
	static const uint32_t eaxs[] = { 1, 2, 3, 7, 25, 1000003, 0x7fffffff,
					 0xffffffff };
	static const uint32_t ebxs[] = { 1, 100, 308, 65537, 0xfffffffe };
	static const uint8_t steps[] = { 1, 1, 2, 1, 7, 1, 0, 1, 200, 1 };
	unsigned e, x, freq, k;

	for (e = 0; e < sizeof(eaxs) / sizeof(eaxs[0]); e++)
	for (x = 0; x < sizeof(ebxs) / sizeof(ebxs[0]); x++)
	for (freq = 0; freq <= 15; freq++) {
		/* from the TMA CTC[15:0], from an MTC CTC[freq+7:0] */
		unsigned bits = freq + 8 < 16 ? freq + 8 : 16;
		uint32_t mask = (1u << bits) - 1;
		struct tm_config c;
		struct tm_model tm, tw;
		struct tm_carry ca, cb;
		struct tm_stamp st;
		struct pkt pk;
		tm_q t, est;
		uint32_t ref;
		uint8_t pay = 0x35;

		memset(&c, 0, sizeof(c));
		c.have_mtc_freq = 1;
		c.mtc_freq = (uint8_t)freq;
		c.have_cpuid_15 = 1;
		c.cpuid_15_eax = eaxs[e];
		c.cpuid_15_ebx = ebxs[x];
		tm_init(&tm, &c);
		tm_init(&tw, &c);
		memset(&pk, 0, sizeof(pk));
		pk.type = PKT_TSC;
		pk.u.tsc = 1ull << 40;
		tm_step(&tm, &pk, &st);
		tm_advance(&tw, &pk);
		pk.type = PKT_TMA;
		pk.u.tma.ctc = 0x1234;
		pk.u.tma.fc = 0x55;
		tm_step(&tm, &pk, &st);
		tm_advance(&tw, &pk);
		t = ((tm_q)1 << 72) - ((tm_q)0x55 << 32);
		est = (tm_q)1 << 72;
		ref = 0x1234;
		for (k = 0; k < sizeof(steps) / sizeof(steps[0]); k++) {
			uint64_t d;

			pay = (uint8_t)(pay + steps[k]);
			d = (((uint32_t)pay << freq) - ref) & mask;
			if (!d && k)	/* the same payload: a full wrap */
				d = (uint64_t)mask + 1;
			t += ((tm_q)d * c.cpuid_15_ebx << 32) / c.cpuid_15_eax;
			if (t > est)
				est = t;
			ref = (uint32_t)pay << freq;
			mask = (1u << (freq + 8)) - 1;
			/* cycles in the period, so that it calibrates (never
			 * past the MTC: the estimate stops at its time) */
			pk.type = PKT_CYC;
			pk.u.cyc = 100 + k;
			tm_step(&tm, &pk, &st);
			tm_advance(&tw, &pk);
			pk.type = PKT_MTC;
			pk.u.mtc = pay;
			tm_step(&tm, &pk, &st);
			tm_advance(&tw, &pk);
			assert_true(st.tsc == (uint64_t)(est >> 32));
			assert_true(st.tsc_frac == (uint32_t)est);
			tm_save(&tm, &ca);
			tm_save(&tw, &cb);
			assert_memory_equal(&ca, &cb, sizeof(ca));
		}
	}
}

static void test_ptdump_ovf(void **state __attribute__((unused)))
{
	static const struct pkt pkts[] = {
		{ .type = PKT_CBR, .u.cbr = 12 },
		{ .type = PKT_OVF },
		{ .type = PKT_MTC, .u.mtc = 1 },
	};
	struct tm_config c = dr_cfg();
	struct tm_ptdump tmp;
	struct tm_ptdump_out out;

	tm_ptdump_init(&tmp, &c, TMP_SHOW_TCAL);
	out = feed(&tmp, pkts, 1);
	assert_true(out.col_ok && out.value == (37u << 8) / 12);
	out = feed(&tmp, pkts + 1, 2);
	assert_false(out.col_ok);
	assert_int_equal(out.ndiag, 1);
	assert_string_equal(out.diag[0].msg, "error printing time");

	tm_ptdump_init(&tmp, &c, TMP_SHOW_TCAL | TMP_KEEP_TCAL_ON_OVF);
	out = feed(&tmp, pkts, 3);
	assert_true(out.col_ok && out.value == (37u << 8) / 12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_halt),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_ns),
		cmocka_unit_test(test_example_36_2),
		cmocka_unit_test(test_table_36_14),
		cmocka_unit_test(test_standalone_cyc),
		cmocka_unit_test(test_tma),
		cmocka_unit_test(test_mtc_wrap_and_loss),
		cmocka_unit_test(test_mtc_freq9),
		cmocka_unit_test(test_cyc_between_mtc),
		cmocka_unit_test(test_periods),
		cmocka_unit_test(test_cyc_thresh),
		cmocka_unit_test(test_cbr_change),
		cmocka_unit_test(test_ovf_mid_period),
		cmocka_unit_test(test_skl168),
		cmocka_unit_test(test_sleep),
		cmocka_unit_test(test_tsc_back),
		cmocka_unit_test(test_resync_future),
		cmocka_unit_test(test_resync_past),
		cmocka_unit_test(test_resync_past_then_tsc),
		cmocka_unit_test(test_resync_not_overshoot),
		cmocka_unit_test(test_resync_no_period),
		cmocka_unit_test(test_resync_disputed),
		cmocka_unit_test(test_resync_disputed_mtc),
		cmocka_unit_test(test_restore_ref_unconfigured),
		cmocka_unit_test(test_psb_period_ran),
		cmocka_unit_test(test_cyc_after_tsc),
		cmocka_unit_test(test_exstop_in_execution),
		cmocka_unit_test(test_cap_after_tma),
		cmocka_unit_test(test_psb_status_only),
		cmocka_unit_test(test_mtc_before_tma),
		cmocka_unit_test(test_tsc_without_tma),
		cmocka_unit_test(test_tsc_only_calibration),
		cmocka_unit_test(test_shared_traces),
		cmocka_unit_test(test_tiled),
		cmocka_unit_test(test_ptdump_edges),
		cmocka_unit_test(test_ptdump_skl168),
		cmocka_unit_test(test_ptdump_ovf),
		cmocka_unit_test(test_ctc_ticks_exact),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
