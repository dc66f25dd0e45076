/* test_pkt -- the packet decoder, packet by packet, from hand-written bytes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pkt.h"

#define PSB_BYTES 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, \
		  0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82

/* Decode exactly one packet from @bytes and check it used all @n bytes. */
static struct pkt one(const uint8_t *bytes, size_t n)
{
	struct pkt_decoder dec;
	struct pkt pkt, end;

	assert_int_equal(pkt_decoder_init(&dec, bytes, bytes + n, 0x1000), 0);
	assert_int_equal(pkt_next(&dec, &pkt), (int)n);
	assert_int_equal(pkt.size, n);
	assert_int_equal(pkt.offset, 0x1000);
	assert_int_equal(pkt_next(&dec, &end), -pte_eos);
	return pkt;
}

#define ONE(...) ({ static const uint8_t b_[] = { __VA_ARGS__ }; one(b_, sizeof(b_)); })

static void test_null(void **state __attribute__((unused)))
{
	struct pkt_decoder dec;
	struct pkt pkt;
	uint8_t b = 0;

	assert_int_equal(pkt_decoder_init(NULL, &b, &b, 0), -pte_invalid);
	assert_int_equal(pkt_decoder_init(&dec, NULL, &b, 0), -pte_invalid);
	assert_int_equal(pkt_decoder_init(&dec, &b + 1, &b, 0), -pte_invalid);
	assert_int_equal(pkt_decoder_init(&dec, &b, &b, 0), 0);
	assert_int_equal(pkt_next(&dec, &pkt), -pte_eos);
	assert_int_equal(pkt_next(NULL, &pkt), -pte_invalid);
	assert_int_equal(pkt_next(&dec, NULL), -pte_invalid);
	assert_int_equal(pkt_sync_forward(NULL), -pte_invalid);
	assert_int_equal(pkt_sync_forward(&dec), -pte_nosync);
	assert_int_equal(pkt_sync_backward(&dec), -pte_nosync);
}

static void test_simple(void **state __attribute__((unused)))
{
	assert_int_equal(ONE(0x00).type, PKT_PAD);
	assert_int_equal(ONE(PSB_BYTES).type, PKT_PSB);
	assert_int_equal(ONE(0x02, 0x23).type, PKT_PSBEND);
	assert_int_equal(ONE(0x02, 0xf3).type, PKT_OVF);
	assert_int_equal(ONE(0x02, 0x83).type, PKT_STOP);
}

static void test_tnt(void **state __attribute__((unused)))
{
	struct pkt p;

	/* 0x06: stop bit at payload bit 1, one taken branch. */
	p = ONE(0x06);
	assert_int_equal(p.type, PKT_TNT8);
	assert_int_equal(p.u.tnt.nbits, 1);
	assert_int_equal(p.u.tnt.bits, 1);
	/* 0xfe: six branches, all taken. */
	p = ONE(0xfe);
	assert_int_equal(p.u.tnt.nbits, 6);
	assert_int_equal(p.u.tnt.bits, 0x3f);
	/* 0x14 = 0001 0100: payload 1010: stop, then 0 1 0. */
	p = ONE(0x14);
	assert_int_equal(p.u.tnt.nbits, 3);
	assert_int_equal(p.u.tnt.bits, 2);
	/* tnt.64 with 47 bits. */
	p = ONE(0x02, 0xa3, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff);
	assert_int_equal(p.type, PKT_TNT64);
	assert_int_equal(p.u.tnt.nbits, 47);
	assert_int_equal(p.u.tnt.bits, 0x7fffffffffffull);
	p = ONE(0x02, 0xa3, 0x05, 0, 0, 0, 0, 0);
	assert_int_equal(p.u.tnt.nbits, 2);
	assert_int_equal(p.u.tnt.bits, 1);
}

static void test_tnt64_empty(void **state __attribute__((unused)))
{
	static const uint8_t b[] = { 0x02, 0xa3, 0, 0, 0, 0, 0, 0 };
	struct pkt_decoder dec;
	struct pkt pkt;

	pkt_decoder_init(&dec, b, b + sizeof(b), 0);
	assert_int_equal(pkt_next(&dec, &pkt), -pte_bad_packet);
}

static void test_ip(void **state __attribute__((unused)))
{
	struct pkt p;
	uint64_t ip = 0xffffffffb960d300ull;

	p = ONE(0x0d);
	assert_int_equal(p.type, PKT_TIP);
	assert_int_equal(p.u.ip.ipc, PKT_IPC_SUPPRESSED);
	assert_int_equal(pkt_ip_update(&p, &ip), 1);

	p = ONE(0x2d, 0x34, 0x12);
	assert_int_equal(p.u.ip.ipc, PKT_IPC_UPDATE16);
	assert_int_equal(pkt_ip_update(&p, &ip), 0);
	assert_int_equal(ip, 0xffffffffb9601234ull);

	p = ONE(0x51, 0x78, 0x56, 0x34, 0x12);
	assert_int_equal(p.type, PKT_TIP_PGE);
	assert_int_equal(p.u.ip.ipc, PKT_IPC_UPDATE32);
	pkt_ip_update(&p, &ip);
	assert_int_equal(ip, 0xffffffff12345678ull);

	/* sext-48: bit 47 set is extended. */
	p = ONE(0x7d, 0x00, 0xd3, 0x60, 0xb9, 0xff, 0xff);
	assert_int_equal(p.type, PKT_FUP);
	assert_int_equal(p.u.ip.ipc, PKT_IPC_SEXT48);
	ip = 0;
	pkt_ip_update(&p, &ip);
	assert_int_equal(ip, 0xffffffffb960d300ull);

	p = ONE(0x81, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06);
	assert_int_equal(p.type, PKT_TIP_PGD);
	assert_int_equal(p.u.ip.ipc, PKT_IPC_UPDATE48);
	ip = 0xaaaa000000000000ull;
	pkt_ip_update(&p, &ip);
	assert_int_equal(ip, 0xaaaa060504030201ull);

	p = ONE(0xcd, 1, 2, 3, 4, 5, 6, 7, 8);
	assert_int_equal(p.u.ip.ipc, PKT_IPC_FULL);
	pkt_ip_update(&p, &ip);
	assert_int_equal(ip, 0x0807060504030201ull);
}

static void test_ip_reserved(void **state __attribute__((unused)))
{
	static const uint8_t b5[] = { 0xad, 0, 0, 0, 0, 0, 0, 0, 0 };
	static const uint8_t b7[] = { 0xfd, 0, 0, 0, 0, 0, 0, 0, 0 };
	struct pkt_decoder dec;
	struct pkt pkt;

	pkt_decoder_init(&dec, b5, b5 + sizeof(b5), 0x40);
	assert_int_equal(pkt_next(&dec, &pkt), -pte_bad_ipc);
	assert_int_equal(pkt.offset, 0x40);
	assert_int_equal(pkt_offset(&dec), 0x40);	/* cursor stays */
	pkt_decoder_init(&dec, b7, b7 + sizeof(b7), 0);
	assert_int_equal(pkt_next(&dec, &pkt), -pte_bad_ipc);
}

static void test_mode(void **state __attribute__((unused)))
{
	struct pkt p;

	p = ONE(0x99, 0x01);
	assert_int_equal(p.type, PKT_MODE_EXEC);
	assert_int_equal(p.u.exec.csl, 1);
	assert_int_equal(p.u.exec.csd, 0);
	p = ONE(0x99, 0x06);
	assert_int_equal(p.u.exec.csd, 1);
	assert_int_equal(p.u.exec.iflag, 1);
	p = ONE(0x99, 0x23);
	assert_int_equal(p.type, PKT_MODE_TSX);
	assert_int_equal(p.u.tsx.intx, 1);
	assert_int_equal(p.u.tsx.abrt, 1);
}

static void test_timing(void **state __attribute__((unused)))
{
	struct pkt p;

	p = ONE(0x19, 0xe2, 0x05, 0xac, 0x8f, 0x08, 0xa1, 0x2f);
	assert_int_equal(p.type, PKT_TSC);
	assert_int_equal(p.u.tsc, 0x2fa1088fac05e2ull);
	p = ONE(0x02, 0x73, 0x35, 0x3f, 0x00, 0xff, 0x01);
	assert_int_equal(p.type, PKT_TMA);
	assert_int_equal(p.u.tma.ctc, 0x3f35);
	assert_int_equal(p.u.tma.fc, 0x1ff);
	p = ONE(0x02, 0x03, 0x0c, 0x00);
	assert_int_equal(p.type, PKT_CBR);
	assert_int_equal(p.u.cbr, 0xc);
	p = ONE(0x59, 0xe7);
	assert_int_equal(p.type, PKT_MTC);
	assert_int_equal(p.u.mtc, 0xe7);
}

/* SDM 36.4.2.14: CYC below 32 is one byte; 32..4095 two bytes, and so on. */
static void test_cyc(void **state __attribute__((unused)))
{
	struct pkt p;

	p = ONE(0x03);
	assert_int_equal(p.type, PKT_CYC);
	assert_int_equal(p.u.cyc, 0);
	p = ONE(0xfb);			/* 31, Exp = 0 */
	assert_int_equal(p.u.cyc, 31);
	p = ONE(0x07, 0x02);		/* 32 = 0b1_00000 */
	assert_int_equal(p.u.cyc, 32);
	p = ONE(0xff, 0xfe);		/* 4095 */
	assert_int_equal(p.u.cyc, 4095);
	p = ONE(0x07, 0x01, 0x02);	/* 4096: three bytes */
	assert_int_equal(p.u.cyc, 4096);
	/* ptdump shows 9f for the first CYC of head_test_simple: bytes? */
	p = ONE(0xff, 0x08);		/* 31 | 4 << 5 = 159 = 0x9f */
	assert_int_equal(p.u.cyc, 0x9f);
	/* 64 bits of cycles in ten bytes. */
	p = ONE(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02);
	assert_int_equal(p.size, 10);
}

static void test_cyc_endless(void **state __attribute__((unused)))
{
	uint8_t b[32];
	struct pkt_decoder dec;
	struct pkt pkt;

	memset(b, 0xff, sizeof(b));
	pkt_decoder_init(&dec, b, b + sizeof(b), 0);
	assert_int_equal(pkt_next(&dec, &pkt), -pte_bad_packet);
}

static void test_ext(void **state __attribute__((unused)))
{
	struct pkt p;

	p = ONE(0x02, 0x43, 0x01, 0xa0, 0x41, 0xfd, 0x03, 0x00);
	assert_int_equal(p.type, PKT_PIP);
	assert_int_equal(p.u.pip.nr, 1);
	assert_int_equal(p.u.pip.cr3, ((0x0003fd41a001ull >> 1) << 5));
	p = ONE(0x02, 0xc8, 0x01, 0x02, 0x03, 0x04, 0x05);
	assert_int_equal(p.type, PKT_VMCS);
	assert_int_equal(p.u.vmcs, 0x0504030201000ull);
	p = ONE(0x02, 0xc3, 0x88, 1, 2, 3, 4, 5, 6, 7, 8);
	assert_int_equal(p.type, PKT_MNT);
	assert_int_equal(p.u.mnt, 0x0807060504030201ull);
	p = ONE(0x02, 0x62);
	assert_int_equal(p.type, PKT_EXSTOP);
	assert_int_equal(p.u.exstop_ip, 0);
	p = ONE(0x02, 0xe2);
	assert_int_equal(p.u.exstop_ip, 1);
	p = ONE(0x02, 0xc2, 1, 0, 0, 0, 2, 0, 0, 0);
	assert_int_equal(p.type, PKT_MWAIT);
	assert_int_equal(p.u.mwait.hints, 1);
	assert_int_equal(p.u.mwait.ext, 2);
	/* pwre: state 2, sub-state 1, hw (payload bit 7). */
	p = ONE(0x02, 0x22, 0x80, 0x21);
	assert_int_equal(p.type, PKT_PWRE);
	assert_int_equal(p.u.pwre.state, 2);
	assert_int_equal(p.u.pwre.sub_state, 1);
	assert_int_equal(p.u.pwre.hw, 1);
	/* pwrx: last c2, deepest c3, woken by an interrupt. */
	p = ONE(0x02, 0xa2, 0x23, 0x01, 0, 0, 0);
	assert_int_equal(p.type, PKT_PWRX);
	assert_int_equal(p.u.pwrx.deepest, 3);
	assert_int_equal(p.u.pwrx.last, 2);
	assert_int_equal(p.u.pwrx.interrupt, 1);
	p = ONE(0x02, 0x12, 1, 2, 3, 4);
	assert_int_equal(p.type, PKT_PTW);
	assert_int_equal(p.u.ptw.plc, 0);
	assert_int_equal(p.u.ptw.payload, 0x04030201);
	p = ONE(0x02, 0xb2, 1, 2, 3, 4, 5, 6, 7, 8);
	assert_int_equal(p.u.ptw.plc, 1);
	assert_int_equal(p.u.ptw.ip, 1);
	assert_int_equal(p.u.ptw.payload, 0x0807060504030201ull);
	p = ONE(0x02, 0x13, 0x81, 0x0e);
	assert_int_equal(p.type, PKT_CFE);
	assert_int_equal(p.u.cfe.ip, 1);
	assert_int_equal(p.u.cfe.type, 1);
	assert_int_equal(p.u.cfe.vector, 0x0e);
	p = ONE(0x02, 0x53, 0x02, 1, 2, 3, 4, 5, 6, 7, 8);
	assert_int_equal(p.type, PKT_EVD);
	assert_int_equal(p.u.evd.type, 2);
	/* TRIG as libipt's master branch lays it out: flags, then TRBV */
	p = ONE(0xd9, 0x00, 0x03);
	assert_int_equal(p.type, PKT_TRIG);
	assert_int_equal(p.u.trig.trbv, 3);
	p = ONE(0xd9, 0x20, 0x81);
	assert_int_equal(p.u.trig.mult, 1);
	assert_int_equal(p.u.trig.icntv, 0);
	assert_int_equal(p.u.trig.trbv, 0x81);
	p = ONE(0xd9, 0xc0, 0x00, 0x34, 0x12);
	assert_int_equal(p.u.trig.ip, 1);
	assert_int_equal(p.u.trig.icntv, 1);
	assert_int_equal(p.u.trig.icnt, 0x1234);
}

static void test_block(void **state __attribute__((unused)))
{
	static const uint8_t b[] = {
		0x02, 0x63, 0x81,		/* bbp sz=1 (4-byte bips), type 1 */
		0x0c, 1, 2, 3, 4,		/* bip id 1 */
		0x02, 0x33,			/* bep */
		0x0c,				/* tnt.8 again outside a block */
	};
	struct pkt_decoder dec;
	struct pkt p;

	pkt_decoder_init(&dec, b, b + sizeof(b), 0);
	assert_int_equal(pkt_next(&dec, &p), 3);
	assert_int_equal(p.type, PKT_BBP);
	assert_int_equal(p.u.bbp.sz, 1);
	assert_int_equal(pkt_next(&dec, &p), 5);
	assert_int_equal(p.type, PKT_BIP);
	assert_int_equal(p.u.bip.id, 1);
	assert_int_equal(p.u.bip.value, 0x04030201);
	assert_int_equal(pkt_next(&dec, &p), 2);
	assert_int_equal(p.type, PKT_BEP);
	assert_int_equal(pkt_next(&dec, &p), 1);
	assert_int_equal(p.type, PKT_TNT8);
}

static void test_unknown(void **state __attribute__((unused)))
{
	static const uint8_t ops[][2] = {
		{ 0x05, 0 }, { 0x39, 0 }, { 0x02, 0x00 }, { 0x02, 0xff },
		{ 0x99, 0x40 },
	};
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		struct pkt_decoder dec;
		struct pkt pkt;
		int r;

		pkt_decoder_init(&dec, ops[i], ops[i] + 2, 0);
		r = pkt_next(&dec, &pkt);
		assert_true(r == -pte_bad_opc || r == -pte_bad_packet);
		assert_int_equal(pkt.type, PKT_INVALID);
	}
}

/* Every packet cut at every byte reports a truncated packet, never reads
 * past the end, and never succeeds. */
static void test_truncated(void **state __attribute__((unused)))
{
	static const uint8_t pkts[][16] = {
		{ PSB_BYTES },
		{ 0x19, 1, 2, 3, 4, 5, 6, 7 },
		{ 0xcd, 1, 2, 3, 4, 5, 6, 7, 8 },
		{ 0x02, 0x73, 1, 2, 0, 3, 0 },
		{ 0x02, 0x43, 1, 2, 3, 4, 5, 6 },
		{ 0x02, 0xc3, 0x88, 1, 2, 3, 4, 5, 6, 7, 8 },
		{ 0x02, 0xc2, 1, 2, 3, 4, 5, 6, 7, 8 },
		{ 0x02, 0xb2, 1, 2, 3, 4, 5, 6, 7, 8 },
		{ 0x07, 0x03, 0x02 },
		{ 0x59, 1 },
		{ 0x99, 1 },
		{ 0x02, 0x53, 2, 1, 2, 3, 4, 5, 6, 7, 8 },
		{ 0xd9, 0x40, 0, 1, 2 },
		{ 0x02, 0xa3, 1, 2, 3, 4, 5, 0x80 },	/* tnt.64 */
		{ 0x02, 0x22, 0x00, 0x20 },		/* pwre */
		{ 0x02, 0xa2, 0x21, 0x01, 0, 0, 0 },	/* pwrx */
		{ 0x02, 0xc8, 1, 2, 3, 4, 5 },		/* vmcs */
		{ 0x02, 0x03, 0x20, 0 },		/* cbr */
		{ 0x02, 0x13, 0x81, 0x20 },		/* cfe */
		{ 0x02, 0x63, 0x80 },			/* bbp */
		{ 0x02, 0x12, 1, 2, 3, 4 },		/* ptw, 4 bytes */
		{ 0x02, 0x23 },				/* psbend */
		{ 0x02, 0xf3 },				/* ovf */
		{ 0x02, 0x83 },				/* stop */
		{ 0x02, 0x62 },				/* exstop */
		{ 0x02, 0x33 },				/* bep */
		{ 0x99, 0x21 },				/* mode.tsx */
		{ 0x3d, 1, 2 },				/* fup, 16 bits */
		{ 0x5d, 1, 2, 3, 4 },			/* fup, 32 bits */
		{ 0x7d, 1, 2, 3, 4, 5, 6 },		/* fup, sext 48 */
		{ 0x91, 1, 2, 3, 4, 5, 6 },		/* tip.pge, 48 bits */
		{ 0x21, 1, 2 },				/* tip.pgd, 16 bits */
		{ 0xd9, 0x00, 1 },			/* trig, no icnt */
		{ 0x07, 0x03, 0x03, 0x02 },		/* cyc of 4 bytes */
	};
	static const size_t sizes[] = { 16, 8, 9, 7, 8, 11, 10, 10, 3, 2, 2, 11, 5,
					8, 4, 7, 7, 4, 4, 3, 6, 2, 2, 2, 2, 2, 2,
					3, 5, 7, 7, 3, 3, 4 };
	size_t i, cut;

	assert_int_equal(sizeof(sizes) / sizeof(sizes[0]), sizeof(pkts) / sizeof(pkts[0]));

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		for (cut = 1; cut < sizes[i]; cut++) {
			/* A heap copy of exactly @cut bytes, so ASan catches
			 * any read past the end. */
			uint8_t *b = malloc(cut);
			struct pkt_decoder dec;
			struct pkt pkt;

			memcpy(b, pkts[i], cut);
			pkt_decoder_init(&dec, b, b + cut, 100);
			assert_int_equal(pkt_next(&dec, &pkt), -pte_truncated);
			assert_int_equal(pkt.offset, 100);
			free(b);
		}
		/* and whole, it decodes to its size */
		{
			struct pkt_decoder dec;
			struct pkt pkt;

			pkt_decoder_init(&dec, pkts[i], pkts[i] + sizes[i], 0);
			assert_int_equal(pkt_next(&dec, &pkt), (int)sizes[i]);
		}
	}
	/* BIP exists only inside a block: after a BBP (8-byte values). */
	{
		static const uint8_t blk[] = { 0x02, 0x63, 0x00, 0x0c, 1, 2, 3, 4, 5, 6, 7, 8 };

		for (cut = 4; cut < sizeof(blk); cut++) {
			uint8_t *b = malloc(cut);
			struct pkt_decoder dec;
			struct pkt pkt;

			memcpy(b, blk, cut);
			pkt_decoder_init(&dec, b, b + cut, 0);
			assert_int_equal(pkt_next(&dec, &pkt), 3);
			assert_int_equal(pkt.type, PKT_BBP);
			assert_int_equal(pkt_next(&dec, &pkt), -pte_truncated);
			assert_int_equal(pkt.offset, 3);
			free(b);
		}
	}
}

static void test_sync(void **state __attribute__((unused)))
{
	static const uint8_t b[] = {
		0x06, 0x06, PSB_BYTES, 0x02, 0x23, 0x06, PSB_BYTES, 0x06,
	};
	struct pkt_decoder dec;

	pkt_decoder_init(&dec, b, b + sizeof(b), 0);
	assert_int_equal(pkt_sync_forward(&dec), 0);
	assert_int_equal(pkt_offset(&dec), 2);
	/* On a PSB, sync forward moves to the next one. */
	assert_int_equal(pkt_sync_forward(&dec), 0);
	assert_int_equal(pkt_offset(&dec), 21);
	assert_int_equal(pkt_sync_forward(&dec), -pte_nosync);
	assert_int_equal(pkt_offset(&dec), 21);
	/* Backward: the last PSB starting before the cursor. */
	assert_int_equal(pkt_sync_backward(&dec), 0);
	assert_int_equal(pkt_offset(&dec), 2);
	assert_int_equal(pkt_sync_backward(&dec), -pte_nosync);
	assert_int_equal(pkt_sync_set(&dec, sizeof(b)), 0);
	assert_int_equal(pkt_sync_backward(&dec), 0);
	assert_int_equal(pkt_offset(&dec), 21);
	assert_int_equal(pkt_sync_set(&dec, sizeof(b) + 1), -pte_eos);
}

/* 02 82 runs longer than a PSB: a payload may end in 02 82 right before a
 * PSB, so the PSBs of a run are the 16-byte blocks ending where it ends. */
static void test_sync_false_starts(void **state __attribute__((unused)))
{
	uint8_t b[64];
	struct pkt_decoder dec;
	size_t i;

	for (i = 0; i < sizeof(b); i += 2) {
		b[i] = 0x02;
		b[i + 1] = 0x82;
	}
	b[sizeof(b) - 1] = 0x00;	/* the run is [0, 62): PSBs 14, 30, 46 */
	pkt_decoder_init(&dec, b, b + sizeof(b), 0);
	assert_ptr_equal(pkt_find_psb(b, b + sizeof(b)), b + 14);
	assert_ptr_equal(pkt_find_psb(b + 15, b + sizeof(b)), b + 30);
	assert_int_equal(pkt_sync_forward(&dec), 0);
	assert_int_equal(pkt_offset(&dec), 14);
	assert_int_equal(pkt_sync_forward(&dec), 0);
	assert_int_equal(pkt_offset(&dec), 30);
	assert_int_equal(pkt_sync_forward(&dec), 0);
	assert_int_equal(pkt_offset(&dec), 46);
	assert_int_equal(pkt_sync_forward(&dec), -pte_nosync);
	pkt_sync_set(&dec, 40);
	assert_int_equal(pkt_sync_backward(&dec), 0);
	assert_int_equal(pkt_offset(&dec), 30);
	assert_int_equal(pkt_sync_backward(&dec), 0);
	assert_int_equal(pkt_offset(&dec), 14);
	assert_int_equal(pkt_sync_backward(&dec), -pte_nosync);
	/* A tsc payload ending in 02 82 right before a real PSB. */
	{
		static const uint8_t t[] = {
			0x19, 1, 2, 3, 4, 5, 0x02, 0x82,
			0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
			0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
			0x02, 0x23,
		};
		struct pkt p;

		assert_ptr_equal(pkt_find_psb(t, t + sizeof(t)), t + 8);
		pkt_decoder_init(&dec, t, t + sizeof(t), 0);
		assert_int_equal(pkt_next(&dec, &p), 8);
		assert_int_equal(pkt_next(&dec, &p), 16);
		assert_int_equal(p.type, PKT_PSB);
		pkt_sync_set(&dec, sizeof(t));
		assert_int_equal(pkt_sync_backward(&dec), 0);
		assert_int_equal(pkt_offset(&dec), 8);
	}
	/* A run of 7 pairs then junk is not a PSB. */
	memset(b + 14, 0, sizeof(b) - 14);
	assert_null(pkt_find_psb(b, b + sizeof(b)));
	pkt_decoder_init(&dec, b, b + sizeof(b), 0);
	pkt_sync_set(&dec, 30);
	assert_int_equal(pkt_sync_backward(&dec), -pte_nosync);
}

/* From every offset of random buffers rich in 02 and 82, backward sync
 * lands on the last PSB before it that the forward search finds. */
static void test_sync_backward_random(void **state __attribute__((unused)))
{
	static const uint8_t alphabet[] = { 0x02, 0x82, 0x02, 0x82, 0x02,
					    0x82, 0x00, 0x23, 0x06, 0x99 };
	uint8_t b[300];
	uint64_t seed = 12345;
	int round;

	for (round = 0; round < 2000; round++) {
		long psb_before[sizeof(b) + 1];
		struct pkt_decoder dec;
		const uint8_t *q;
		size_t i, n = 20 + (size_t)(round % 280), run = 0;
		long last = -1;

		for (i = 0; i < n; i++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			/* long clean runs too, not only noise */
			if (run) {
				b[i] = (i & 1) ? 0x82 : 0x02;
				run--;
			} else if ((seed >> 60) == 0) {
				run = (size_t)(seed >> 40) % 40;
				b[i] = (i & 1) ? 0x82 : 0x02;
			} else {
				b[i] = (seed >> 33) % 7 == 0 ? (uint8_t)(seed >> 20) :
				       alphabet[(seed >> 33) % sizeof(alphabet)];
			}
		}
		/* psb_before[k]: the last PSB starting before offset k */
		q = pkt_find_psb(b, b + n);
		for (i = 0; i <= n; i++) {
			while (q && (size_t)(q - b) < i) {
				last = q - b;
				q = pkt_find_psb(q + 1, b + n);
			}
			psb_before[i] = last;
		}
		pkt_decoder_init(&dec, b, b + n, 0);
		for (i = 0; i <= n; i++) {
			pkt_sync_set(&dec, i);
			if (psb_before[i] < 0) {
				assert_int_equal(pkt_sync_backward(&dec), -pte_nosync);
			} else {
				assert_int_equal(pkt_sync_backward(&dec), 0);
				assert_int_equal(pkt_offset(&dec), psb_before[i]);
			}
		}
	}
}

/* The 02 82 pair finders, forward and backward, against a naive scan
 * over every sub-range of random buffers. */
static void test_find_pair(void **state __attribute__((unused)))
{
	static const uint8_t alphabet[] = { 0x02, 0x82, 0x00, 0x03, 0x82 };
	uint8_t b[200];
	uint64_t seed = 777;
	int round;

	for (round = 0; round < 300; round++) {
		size_t i, a, e;

		for (i = 0; i < sizeof(b); i++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			b[i] = (seed >> 61) == 0 ? alphabet[(seed >> 40) % 5] :
			       (uint8_t)(seed >> 33);
			if (round % 3 == 0 && (seed >> 58) != 0)
				b[i] = 0x55;	/* sparse: long stretches without */
		}
		for (a = 0; a < sizeof(b); a += 1 + a / 8) {
			for (e = a; e <= sizeof(b); e += 1 + (e - a) / 4) {
				const uint8_t *f = NULL, *l = NULL;
				size_t k;

				for (k = a; k + 1 < e; k++) {
					if (b[k] == 0x02 && b[k + 1] == 0x82) {
						if (!f)
							f = b + k;
						l = b + k;
					}
				}
				assert_ptr_equal(pkt_find_pair(b + a, b + e), f);
				assert_ptr_equal(pkt_find_pair_back(b + a, b + e), l);
			}
		}
	}
}

static void test_names(void **state __attribute__((unused)))
{
	int t;

	for (t = PKT_PAD; t < PKT_NTYPES; t++) {
		assert_int_equal(pkt_type_from_name(pkt_type_name(t)), t);
		assert_true(pkt_type_class(t) < PKC_NCLASSES);
	}
	assert_string_equal(pkt_type_name(PKT_TNT8), "tnt.8");
	assert_int_equal(pkt_type_from_name("nonsense"), PKT_INVALID);
	assert_int_equal(pkt_type_from_name(NULL), PKT_INVALID);
	assert_true(pkt_type_cyc_eligible(PKT_TIP));
	assert_true(pkt_type_cyc_eligible(PKT_TSC));
	assert_true(pkt_type_cyc_eligible(PKT_MTC));
	assert_false(pkt_type_cyc_eligible(PKT_FUP));
	assert_false(pkt_type_cyc_eligible(PKT_CBR));
	assert_false(pkt_type_cyc_eligible(PKT_PAD));
	assert_string_equal(pte_strerror(-pte_truncated), "truncated packet");
	assert_string_equal(pte_strerror(9999), "unknown error");
}

/* pkt_first_byte() sizes exactly the packets pkt_next() decodes to that
 * size and type from their first byte, whatever follows; the fast walks'
 * tables come from it. */
static void test_first_byte(void **state __attribute__((unused)))
{
	unsigned b, f, nsized = 0;

	for (b = 0; b < 256; b++) {
		enum pkt_type type = PKT_INVALID;
		unsigned sz = pkt_first_byte(b, &type);

		if (!sz) {
			assert_int_equal(type, PKT_INVALID);
			continue;
		}
		nsized++;
		for (f = 0; f < 256; f += 85) {
			uint8_t buf[32];
			struct pkt_decoder dec;
			struct pkt p;

			memset(buf, (int)f, sizeof(buf));
			buf[0] = (uint8_t)b;
			if (type == PKT_CYC)
				buf[1] = 0;	/* not a second byte of it */
			assert_int_equal(pkt_decoder_init(&dec, buf, buf + sizeof(buf), 0), 0);
			assert_true(pkt_next(&dec, &p) > 0);
			assert_int_equal(p.type, type);
			assert_int_equal(p.size, sz);
		}
	}
	/* pad, 126 tnt.8 (even bytes but 0 and 2), 32 one-byte cycs, mtc,
	 * 4 x 6 ip packets */
	assert_int_equal(nsized, 1 + 126 + 32 + 1 + 24);
	assert_int_equal(pkt_first_byte(256, &(enum pkt_type){ PKT_INVALID }), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_simple),
		cmocka_unit_test(test_tnt),
		cmocka_unit_test(test_tnt64_empty),
		cmocka_unit_test(test_ip),
		cmocka_unit_test(test_ip_reserved),
		cmocka_unit_test(test_mode),
		cmocka_unit_test(test_timing),
		cmocka_unit_test(test_cyc),
		cmocka_unit_test(test_cyc_endless),
		cmocka_unit_test(test_ext),
		cmocka_unit_test(test_block),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_sync),
		cmocka_unit_test(test_sync_false_starts),
		cmocka_unit_test(test_sync_backward_random),
		cmocka_unit_test(test_find_pair),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_first_byte),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
