/*
 * test_diff_libipt -- our packet decoder against libipt's, packet by packet.
 *
 * Random packet streams of every type libipt 2.0.5 knows, in every IP
 * compression, are written with libipt's encoder and decoded by both
 * pkt_next() and pt_pkt_next(); offsets, sizes, types and every field must
 * agree, with each other and with what was encoded.  One deliberate
 * difference: pwre's hw bit (the SDM puts it at payload bit 7, libipt 2.x
 * reads bit 3), which is skipped.  Packets libipt 2.0.5 lacks (cfe, evd,
 * trig, bbp/bip/bep) are checked against a tiny encoder here instead.
 * Random bytes check that both decoders fail on the same packets.
 */
#include "../tools/ipt_compat.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "pkt.h"

/* Packets per run: at least a million, in rounds of one buffer each. */
#define DIFF_PACKETS	(1u << 20)
#define DIFF_ROUND	(1u << 16)
#define DIFF_BUF	(DIFF_ROUND * 20)

struct rng {
	uint64_t s;
};

/* splitmix64: small, and good enough to pick packets. */
static uint64_t rnd(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t rnd_below(struct rng *r, uint64_t n)
{
	return rnd(r) % n;
}

/* A value with a random number of significant bits, so that small and
 * large payloads both turn up. */
static uint64_t rnd_bits(struct rng *r, unsigned max_bits)
{
	unsigned bits = (unsigned)rnd_below(r, max_bits + 1);

	return bits ? rnd(r) >> (64 - bits) : 0;
}

static const enum pt_packet_type ipt_types[] = {
	ppt_pad, ppt_psb, ppt_psbend, ppt_fup, ppt_tip, ppt_tip_pge,
	ppt_tip_pgd, ppt_tnt_8, ppt_tnt_64, ppt_mode, ppt_pip, ppt_vmcs,
	ppt_cbr, ppt_tsc, ppt_tma, ppt_mtc, ppt_cyc, ppt_stop, ppt_ovf,
	ppt_mnt, ppt_exstop, ppt_mwait, ppt_pwre, ppt_pwrx, ppt_ptw,
};
#define NIPT_TYPES (sizeof(ipt_types) / sizeof(ipt_types[0]))

/* A random packet of type @type with every payload inside its legal range
 * (libipt's encoder does not mask all of them). */
static void random_packet(struct rng *r, enum pt_packet_type type,
			  struct pt_packet *p)
{
	static const enum pt_ip_compression ipcs[] = {
		pt_ipc_suppressed, pt_ipc_update_16, pt_ipc_update_32,
		pt_ipc_sext_48, pt_ipc_update_48, pt_ipc_full,
	};
	static const unsigned ipc_bytes[] = { 0, 2, 4, 6, 6, 0, 8 };
	unsigned n;

	memset(p, 0, sizeof(*p));
	p->type = type;
	switch (type) {
	case ppt_fup:
	case ppt_tip:
	case ppt_tip_pge:
	case ppt_tip_pgd:
		p->payload.ip.ipc = ipcs[rnd_below(r, 6)];
		n = ipc_bytes[p->payload.ip.ipc];
		p->payload.ip.ip = n == 8 ? rnd(r) :
				   rnd(r) & ((1ull << (n * 8)) - 1);
		break;
	case ppt_tnt_8:
		/* 0 bits would write 02, an extended opcode */
		n = 1 + (unsigned)rnd_below(r, 6);
		p->payload.tnt.bit_size = (uint8_t)n;
		p->payload.tnt.payload = rnd(r) & ((1ull << n) - 1);
		break;
	case ppt_tnt_64:
		n = 1 + (unsigned)rnd_below(r, 47);
		p->payload.tnt.bit_size = (uint8_t)n;
		p->payload.tnt.payload = rnd(r) & ((1ull << n) - 1);
		break;
	case ppt_mode:
		if (rnd(r) & 1) {
			p->payload.mode.leaf = pt_mol_exec;
			p->payload.mode.bits.exec.csl = rnd(r) & 1;
			p->payload.mode.bits.exec.csd = rnd(r) & 1;
		} else {
			p->payload.mode.leaf = pt_mol_tsx;
			p->payload.mode.bits.tsx.intx = rnd(r) & 1;
			p->payload.mode.bits.tsx.abrt = rnd(r) & 1;
		}
		break;
	case ppt_pip:
		p->payload.pip.cr3 = rnd(r) & 0x000fffffffffffe0ull;
		p->payload.pip.nr = rnd(r) & 1;
		break;
	case ppt_vmcs:
		p->payload.vmcs.base = rnd(r) & 0x000ffffffffff000ull;
		break;
	case ppt_cbr:
		p->payload.cbr.ratio = (uint8_t)rnd(r);
		break;
	case ppt_tsc:
		p->payload.tsc.tsc = rnd_bits(r, 56);
		break;
	case ppt_tma:
		p->payload.tma.ctc = (uint16_t)rnd(r);
		p->payload.tma.fc = (uint16_t)(rnd(r) & 0x1ff);
		break;
	case ppt_mtc:
		p->payload.mtc.ctc = (uint8_t)rnd(r);
		break;
	case ppt_cyc:
		/* libipt's decoder takes at most 61 bits */
		p->payload.cyc.value = rnd_bits(r, 61);
		break;
	case ppt_mnt:
		p->payload.mnt.payload = rnd(r);
		break;
	case ppt_exstop:
		p->payload.exstop.ip = rnd(r) & 1;
		break;
	case ppt_mwait:
		p->payload.mwait.hints = (uint32_t)rnd(r);
		p->payload.mwait.ext = (uint32_t)rnd(r);
		break;
	case ppt_pwre:
		p->payload.pwre.state = rnd(r) & 0xf;
		p->payload.pwre.sub_state = rnd(r) & 0xf;
		p->payload.pwre.hw = rnd(r) & 1;
		break;
	case ppt_pwrx:
		p->payload.pwrx.last = rnd(r) & 0xf;
		p->payload.pwrx.deepest = rnd(r) & 0xf;
		p->payload.pwrx.interrupt = rnd(r) & 1;
		p->payload.pwrx.store = rnd(r) & 1;
		p->payload.pwrx.autonomous = rnd(r) & 1;
		break;
	case ppt_ptw:
		p->payload.ptw.plc = rnd(r) & 1;
		p->payload.ptw.ip = rnd(r) & 1;
		p->payload.ptw.payload = p->payload.ptw.plc ? rnd(r) :
					 rnd(r) & 0xffffffffull;
		break;
	default:
		break;
	}
}

/* Our type for libipt packet @p. */
static enum pkt_type our_type(const struct pt_packet *p)
{
	switch (p->type) {
	case ppt_pad: return PKT_PAD;
	case ppt_psb: return PKT_PSB;
	case ppt_psbend: return PKT_PSBEND;
	case ppt_fup: return PKT_FUP;
	case ppt_tip: return PKT_TIP;
	case ppt_tip_pge: return PKT_TIP_PGE;
	case ppt_tip_pgd: return PKT_TIP_PGD;
	case ppt_tnt_8: return PKT_TNT8;
	case ppt_tnt_64: return PKT_TNT64;
	case ppt_mode:
		return p->payload.mode.leaf == pt_mol_exec ? PKT_MODE_EXEC :
		       p->payload.mode.leaf == pt_mol_tsx ? PKT_MODE_TSX :
		       PKT_INVALID;
	case ppt_pip: return PKT_PIP;
	case ppt_vmcs: return PKT_VMCS;
	case ppt_cbr: return PKT_CBR;
	case ppt_tsc: return PKT_TSC;
	case ppt_tma: return PKT_TMA;
	case ppt_mtc: return PKT_MTC;
	case ppt_cyc: return PKT_CYC;
	case ppt_stop: return PKT_STOP;
	case ppt_ovf: return PKT_OVF;
	case ppt_mnt: return PKT_MNT;
	case ppt_exstop: return PKT_EXSTOP;
	case ppt_mwait: return PKT_MWAIT;
	case ppt_pwre: return PKT_PWRE;
	case ppt_pwrx: return PKT_PWRX;
	case ppt_ptw: return PKT_PTW;
	default: return PKT_INVALID;
	}
}

/* Print both packets before cmocka fails, so a mismatch names itself. */
static void report(const char *what, const struct pkt *o,
		   const struct pt_packet *l)
{
	print_error("mismatch in %s at offset 0x%llx: ours %s size %u, "
		    "libipt type %d size %u\n", what,
		    (unsigned long long)o->offset, pkt_type_name(o->type),
		    o->size, (int)l->type, l->size);
}

#define SAME(what, a, b)						\
	do {								\
		if ((uint64_t)(a) != (uint64_t)(b)) {			\
			report(what, o, l);				\
			assert_int_equal((uint64_t)(a), (uint64_t)(b));	\
		}							\
	} while (0)

/* The random packets' seed (main()). */
static uint64_t diff_seed;

/*
 * Compare our packet @o with libipt's @l field by field.  Called twice per
 * packet: with what libipt decoded and with what was encoded.
 */
static void compare(const struct pkt *o, const struct pt_packet *l,
		    int check_iflag)
{
	SAME("type", o->type, our_type(l));
	switch (l->type) {
	case ppt_fup:
	case ppt_tip:
	case ppt_tip_pge:
	case ppt_tip_pgd:
		SAME("ipc", o->u.ip.ipc, l->payload.ip.ipc);
		SAME("ip", o->u.ip.ip, l->payload.ip.ip);
		break;
	case ppt_tnt_8:
	case ppt_tnt_64:
		SAME("tnt size", o->u.tnt.nbits, l->payload.tnt.bit_size);
		SAME("tnt bits", o->u.tnt.bits, l->payload.tnt.payload);
		break;
	case ppt_mode:
		if (l->payload.mode.leaf == pt_mol_exec) {
			SAME("csl", o->u.exec.csl, l->payload.mode.bits.exec.csl);
			SAME("csd", o->u.exec.csd, l->payload.mode.bits.exec.csd);
			/* libipt 2.0.5 neither writes nor reads IF */
			if (check_iflag)
				SAME("iflag", o->u.exec.iflag, 0);
		} else {
			SAME("intx", o->u.tsx.intx, l->payload.mode.bits.tsx.intx);
			SAME("abrt", o->u.tsx.abrt, l->payload.mode.bits.tsx.abrt);
		}
		break;
	case ppt_pip:
		SAME("cr3", o->u.pip.cr3, l->payload.pip.cr3);
		SAME("nr", o->u.pip.nr, l->payload.pip.nr);
		break;
	case ppt_vmcs:
		SAME("vmcs", o->u.vmcs, l->payload.vmcs.base);
		break;
	case ppt_cbr:
		SAME("cbr", o->u.cbr, l->payload.cbr.ratio);
		break;
	case ppt_tsc:
		SAME("tsc", o->u.tsc, l->payload.tsc.tsc);
		break;
	case ppt_tma:
		SAME("tma ctc", o->u.tma.ctc, l->payload.tma.ctc);
		SAME("tma fc", o->u.tma.fc, l->payload.tma.fc);
		break;
	case ppt_mtc:
		SAME("mtc", o->u.mtc, l->payload.mtc.ctc);
		break;
	case ppt_cyc:
		SAME("cyc", o->u.cyc, l->payload.cyc.value);
		break;
	case ppt_mnt:
		SAME("mnt", o->u.mnt, l->payload.mnt.payload);
		break;
	case ppt_exstop:
		SAME("exstop ip", o->u.exstop_ip, l->payload.exstop.ip);
		break;
	case ppt_mwait:
		SAME("mwait hints", o->u.mwait.hints, l->payload.mwait.hints);
		SAME("mwait ext", o->u.mwait.ext, l->payload.mwait.ext);
		break;
	case ppt_pwre:
		SAME("pwre state", o->u.pwre.state, l->payload.pwre.state);
		SAME("pwre sub", o->u.pwre.sub_state, l->payload.pwre.sub_state);
		/*
		 * The deliberate difference: the SDM puts HW at payload bit
		 * 7, libipt 2.x at bit 3, so the two never agree on it.
		 */
		break;
	case ppt_pwrx:
		SAME("pwrx last", o->u.pwrx.last, l->payload.pwrx.last);
		SAME("pwrx deepest", o->u.pwrx.deepest, l->payload.pwrx.deepest);
		SAME("pwrx int", o->u.pwrx.interrupt, l->payload.pwrx.interrupt);
		SAME("pwrx store", o->u.pwrx.store, l->payload.pwrx.store);
		SAME("pwrx hw", o->u.pwrx.autonomous, l->payload.pwrx.autonomous);
		break;
	case ppt_ptw:
		SAME("ptw plc", o->u.ptw.plc, l->payload.ptw.plc);
		SAME("ptw ip", o->u.ptw.ip, l->payload.ptw.ip);
		SAME("ptw payload", o->u.ptw.payload, l->payload.ptw.payload);
		break;
	default:
		break;
	}
}

struct diff {
	struct rng rng;
	uint8_t *buf;
	struct pt_packet *sent;	/* what was encoded, in order */
	struct pt_encoder *enc;
	struct pt_packet_decoder *ldec;
	struct pt_config cfg;
};

static int diff_setup(void **state)
{
	struct diff *d = calloc(1, sizeof(*d));

	if (!d)
		return -1;
	d->buf = malloc(DIFF_BUF);
	d->sent = malloc(DIFF_ROUND * sizeof(*d->sent));
	if (!d->buf || !d->sent)
		return -1;
	pt_config_init(&d->cfg);
	d->cfg.begin = d->buf;
	d->cfg.end = d->buf + DIFF_BUF;
	d->enc = pt_alloc_encoder(&d->cfg);
	d->ldec = pt_pkt_alloc_decoder(&d->cfg);
	if (!d->enc || !d->ldec)
		return -1;
	d->rng.s = diff_seed;
	*state = d;
	return 0;
}

static int diff_teardown(void **state)
{
	struct diff *d = *state;

	pt_pkt_free_decoder(d->ldec);
	pt_free_encoder(d->enc);
	free(d->sent);
	free(d->buf);
	free(d);
	return 0;
}

/* Encode up to DIFF_ROUND random packets; returns the bytes written and
 * sets *@count. */
static size_t encode_round(struct diff *d, size_t *count)
{
	uint64_t off = 0;
	size_t n;

	assert_int_equal(pt_enc_sync_set(d->enc, 0), 0);
	for (n = 0; n < DIFF_ROUND; n++) {
		struct pt_packet *p = &d->sent[n];
		int r;

		random_packet(&d->rng, ipt_types[rnd_below(&d->rng, NIPT_TYPES)],
			      p);
		r = pt_enc_next(d->enc, p);
		if (r == -ipt_pte_eos)
			break;
		if (r < 0)
			print_error("pt_enc_next(type %d): %d\n", p->type, r);
		assert_true(r > 0);
		p->size = (uint8_t)r;
	}
	assert_int_equal(pt_enc_get_offset(d->enc, &off), 0);
	*count = n;
	return (size_t)off;
}

/* Decode @len bytes holding the @count packets in d->sent with both
 * decoders, in lockstep. */
static void decode_round(struct diff *d, size_t len, size_t count,
			 uint64_t base)
{
	struct pkt_decoder dec;
	struct pt_config cfg = d->cfg;
	struct pt_packet_decoder *ldec;
	uint64_t expect = 0;
	size_t i;

	/* libipt must see the real end, or it decodes the stale bytes
	 * after it */
	cfg.end = d->buf + len;
	ldec = pt_pkt_alloc_decoder(&cfg);
	assert_non_null(ldec);
	assert_int_equal(pt_pkt_sync_set(ldec, 0), 0);
	assert_int_equal(pkt_decoder_init(&dec, d->buf, d->buf + len, base), 0);
	for (i = 0; i < count; i++) {
		const struct pt_packet *l = &d->sent[i];
		struct pt_packet lp;
		struct pkt op, *o = &op;
		uint64_t loff;
		int r, lr;

		assert_int_equal(pt_pkt_get_offset(ldec, &loff), 0);
		lr = pt_pkt_next(ldec, &lp, sizeof(lp));
		r = pkt_next(&dec, &op);
		if (r < 0 || lr < 0)
			print_error("packet %zu at 0x%llx (sent type %d): ours %d, "
				    "libipt %d\n", i, (unsigned long long)expect,
				    (int)l->type, r, lr);
		assert_true(r > 0);
		assert_true(lr > 0);
		SAME("offset", op.offset, base + expect);
		SAME("libipt offset", loff, expect);
		SAME("size", op.size, lp.size);
		SAME("size", r, lr);
		SAME("encoded size", op.size, l->size);
		compare(&op, &lp, 1);
		compare(&op, l, 1);
		expect += (uint64_t)op.size;
	}
	{
		struct pkt end;

		assert_int_equal(pkt_next(&dec, &end), -pte_eos);
	}
	pt_pkt_free_decoder(ldec);
}

/* A million and more random packets of every libipt type, at a base
 * beyond 4 GiB so offsets must be 64-bit. */
static void test_diff_random(void **state)
{
	struct diff *d = *state;
	size_t total = 0, round = 0;

	while (total < DIFF_PACKETS) {
		size_t count, len = encode_round(d, &count);

		decode_round(d, len, count, 0x140000000ull + round++ * DIFF_BUF);
		total += count;
	}
	print_message("random: %zu packets in %zu rounds agreed\n", total,
		      round);
	assert_true(total >= 1000000);
}

/* Every IP packet type in every compression, with the extreme payloads. */
static void test_diff_ip_all(void **state)
{
	static const enum pt_packet_type types[] = {
		ppt_tip, ppt_tip_pge, ppt_tip_pgd, ppt_fup,
	};
	static const enum pt_ip_compression ipcs[] = {
		pt_ipc_suppressed, pt_ipc_update_16, pt_ipc_update_32,
		pt_ipc_sext_48, pt_ipc_update_48, pt_ipc_full,
	};
	static const uint64_t ips[] = {
		0, 1, 0xffff, 0xffffffff, 0x7fffffffffffull,
		0x800000000000ull, 0xffffffffffffull, ~0ull,
	};
	static const unsigned bytes[] = { 0, 2, 4, 6, 6, 0, 8 };
	struct diff *d = *state;
	size_t t, c, i, n = 0;
	uint64_t off = 0;

	assert_int_equal(pt_enc_sync_set(d->enc, 0), 0);
	for (t = 0; t < 4; t++)
		for (c = 0; c < 6; c++)
			for (i = 0; i < sizeof(ips) / sizeof(ips[0]); i++) {
				struct pt_packet *p = &d->sent[n++];
				unsigned b = bytes[ipcs[c]];

				memset(p, 0, sizeof(*p));
				p->type = types[t];
				p->payload.ip.ipc = ipcs[c];
				p->payload.ip.ip = b == 8 ? ips[i] :
					ips[i] & ((1ull << (b * 8)) - 1);
				p->size = (uint8_t)pt_enc_next(d->enc, p);
				assert_true(p->size == 1 + b);
			}
	assert_int_equal(pt_enc_get_offset(d->enc, &off), 0);
	decode_round(d, (size_t)off, n, 0);
}

/* Every packet cut short: ours says truncated, libipt says end of
 * stream (it cannot tell the two apart), and nothing is read past the
 * cut (ASan builds check that). */
static void test_diff_truncated(void **state)
{
	struct diff *d = *state;
	size_t i;

	for (i = 0; i < 20000; i++) {
		struct pt_packet p, lp;
		struct pkt op;
		struct pkt_decoder dec;
		struct pt_packet_decoder *ldec;
		struct pt_config cfg = d->cfg;
		uint8_t *cut;
		int size, k;

		random_packet(&d->rng,
			      ipt_types[rnd_below(&d->rng, NIPT_TYPES)], &p);
		assert_int_equal(pt_enc_sync_set(d->enc, 0), 0);
		size = pt_enc_next(d->enc, &p);
		assert_true(size > 0);
		for (k = 1; k < size; k++) {
			/* the cut packet at the very end of a heap block */
			cut = malloc((size_t)k);
			assert_non_null(cut);
			memcpy(cut, d->buf, (size_t)k);
			assert_int_equal(pkt_decoder_init(&dec, cut, cut + k, 7), 0);
			assert_int_equal(pkt_next(&dec, &op), -pte_truncated);
			assert_int_equal(op.offset, 7);
			assert_int_equal(op.type, PKT_INVALID);
			assert_int_equal(pkt_offset(&dec), 7);
			cfg.begin = cut;
			cfg.end = cut + k;
			ldec = pt_pkt_alloc_decoder(&cfg);
			assert_non_null(ldec);
			assert_int_equal(pt_pkt_sync_set(ldec, 0), 0);
			assert_int_equal(pt_pkt_next(ldec, &lp, sizeof(lp)),
					 -ipt_pte_eos);
			pt_pkt_free_decoder(ldec);
			free(cut);
		}
	}
}

/* Extended opcodes worth aiming random bytes at. */
static const uint8_t ext_codes[] = {
	0x82, 0x23, 0xf3, 0x03, 0x73, 0x43, 0xa3, 0x83, 0xc8, 0xc3, 0x62,
	0xe2, 0xc2, 0x22, 0xa2, 0x12, 0x32, 0x52, 0x72, 0x92, 0xb2, 0xd2,
	0xf2, 0x13, 0x53, 0x63, 0x33, 0xb3, 0x00, 0x04, 0xff,
};

/* Random bytes, biased towards opcodes, so that errors turn up. */
static void random_bytes(struct rng *r, uint8_t *b, size_t n)
{
	size_t i = 0;

	while (i < n) {
		uint64_t v = rnd(r);

		switch (v & 7) {
		case 0:
			b[i++] = 0x02;
			if (i < n)
				b[i++] = ext_codes[(v >> 8) % sizeof(ext_codes)];
			if (i < n && b[i - 1] == 0xc3 && (v >> 16) & 1)
				b[i++] = 0x88;
			break;
		case 1:
			/* 02 82 runs: PSBs, whole and broken */
			while (i + 1 < n && (v >>= 1) & 0x100) {
				b[i++] = 0x02;
				b[i++] = 0x82;
			}
			break;
		case 2:
			b[i++] = (uint8_t)((v >> 8) | 3);	/* cyc */
			break;
		default:
			b[i++] = (uint8_t)(v >> 8);
			break;
		}
	}
}

/* Whether the packet at @p (@left bytes to the end) is one libipt 2.0.5
 * does not know: trig, cfe, evd, bbp, bep. */
static int libipt_lacks(const uint8_t *p, size_t left)
{
	if (p[0] == 0xd9)
		return 1;
	if (p[0] != 0x02 || left < 2)
		return 0;
	return p[1] == 0x13 || p[1] == 0x53 || p[1] == 0x63 ||
	       p[1] == 0x33 || p[1] == 0xb3;
}

/* Whether the CYC at @p has nine or more extension bytes: libipt stops
 * at 61 bits (eight), we take up to 64. */
static int long_cyc(const uint8_t *p, size_t left)
{
	size_t i;

	if ((p[0] & 3) != 3 || !(p[0] & 4))
		return 0;
	for (i = 1; i < left && i < 9; i++)
		if (!(p[i] & 1))
			return 0;
	return i == 9;
}

/* Whether a disagreement on @o (result @r), decoded from @b (the buffer
 * its offset is relative to, @len bytes), is one we mean to have. */
static int known_difference(const struct pkt *o, int r, const uint8_t *b,
			    size_t len)
{
	const uint8_t *p = b + o->offset;
	size_t left = len - (size_t)o->offset;

	if (r == -pte_eos)
		return 0;
	if (libipt_lacks(p, left) || long_cyc(p, left))
		return 1;
	if (r < 0)
		return 0;
	switch (o->type) {
	case PKT_TMA:
		/* libipt 2.0.5 rejects set reserved bits (byte 4, and
		 * FastCounter bits 15..9); the SDM says reserved bits are
		 * not guaranteed to be 0, so we read past them */
		return p[4] || (p[6] & 0xfe);
	case PKT_BIP:
		return 1;	/* only after a bbp, which libipt lacks */
	default:
		return 0;
	}
}

/* On random bytes both decoders succeed or fail on the same packets,
 * and agree on what they decode. */
static void test_diff_garbage(void **state)
{
	struct diff *d = *state;
	size_t i, agreed = 0, known = 0;
	uint8_t b[64];

	for (i = 0; i < 100000; i++) {
		struct pt_config cfg = d->cfg;
		struct pt_packet_decoder *ldec;
		struct pkt_decoder dec;

		random_bytes(&d->rng, b, sizeof(b));
		cfg.begin = b;
		cfg.end = b + sizeof(b);
		ldec = pt_pkt_alloc_decoder(&cfg);
		assert_non_null(ldec);
		assert_int_equal(pt_pkt_sync_set(ldec, 0), 0);
		pkt_decoder_init(&dec, b, b + sizeof(b), 0);
		for (;;) {
			struct pt_packet lp, *l = &lp;
			struct pkt op, *o = &op;
			int r = pkt_next(&dec, &op);
			int lr = pt_pkt_next(ldec, &lp, sizeof(lp));

			if (known_difference(&op, r, b, sizeof(b))) {
				known++;
				break;
			}
			if ((r < 0) != (lr < 0) ||
			    (r < 0 && (r == -pte_truncated || r == -pte_eos) !=
			     (lr == -ipt_pte_eos)))
				print_error("bytes at 0x%llx: ours %d (%s), "
					    "libipt %d: %02x %02x %02x\n",
					    (unsigned long long)op.offset, r,
					    pkt_type_name(op.type), lr,
					    b[op.offset], op.offset + 1 < sizeof(b) ?
					    b[op.offset + 1] : 0, op.offset + 2 <
					    sizeof(b) ? b[op.offset + 2] : 0);
			assert_int_equal(r < 0, lr < 0);
			if (r < 0) {
				/* the same verdict, in each one's words */
				if (r == -pte_truncated || r == -pte_eos)
					assert_int_equal(lr, -ipt_pte_eos);
				else
					assert_true(lr == -ipt_pte_bad_opc ||
						    lr == -ipt_pte_bad_packet);
				break;
			}
			SAME("size", r, lr);
			compare(o, l, 0);
			agreed++;
		}
		pt_pkt_free_decoder(ldec);
	}
	print_message("garbage: %zu packets agreed, %zu known differences\n",
		      agreed, known);
}

/* A tiny encoder for what libipt 2.0.5 lacks, from the SDM layouts in
 * ../shared/spec/packets.md. */
static size_t enc_cfe(uint8_t *b, unsigned ip, unsigned type, unsigned vec)
{
	b[0] = 0x02;
	b[1] = 0x13;
	b[2] = (uint8_t)(ip << 7 | type);
	b[3] = (uint8_t)vec;
	return 4;
}

static size_t enc_le(uint8_t *b, uint64_t v, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++, v >>= 8)
		b[i] = (uint8_t)v;
	return n;
}

static size_t enc_evd(uint8_t *b, unsigned type, uint64_t payload)
{
	b[0] = 0x02;
	b[1] = 0x53;
	b[2] = (uint8_t)type;
	return 3 + enc_le(b + 3, payload, 8);
}

/* TRIG as libipt's master branch (Intel's reference) lays it out: byte 1
 * IP (bit 7), ICNTV (bit 6), MULT (bit 5); byte 2 TRBV; ICNT in bytes
 * 3..4 when ICNTV is set. */
static size_t enc_trig(uint8_t *b, unsigned ip, unsigned icntv, unsigned mult,
		       unsigned trbv, unsigned icnt)
{
	b[0] = 0xd9;
	b[1] = (uint8_t)(ip << 7 | icntv << 6 | mult << 5);
	b[2] = (uint8_t)trbv;
	if (!icntv)
		return 3;
	return 3 + enc_le(b + 3, icnt, 2);
}

static size_t enc_bbp(uint8_t *b, unsigned sz, unsigned type)
{
	b[0] = 0x02;
	b[1] = 0x63;
	b[2] = (uint8_t)(sz << 7 | type);
	return 3;
}

static size_t enc_bip(uint8_t *b, unsigned sz, unsigned id, uint64_t v)
{
	b[0] = (uint8_t)(id << 3 | 4);
	return 1 + enc_le(b + 1, v, sz ? 4 : 8);
}

static size_t enc_bep(uint8_t *b, unsigned ip)
{
	b[0] = 0x02;
	b[1] = (uint8_t)(ip ? 0xb3 : 0x33);
	return 2;
}

static void test_own_types(void **state)
{
	struct diff *d = *state;
	struct rng *r = &d->rng;
	size_t i;

	for (i = 0; i < 200000; i++) {
		uint8_t b[128];
		struct pkt_decoder dec;
		struct pkt p;
		uint64_t v = rnd(r), w = rnd(r);
		unsigned ip = v & 1, t5 = (v >> 1) & 0x1f, t6 = (v >> 1) & 0x3f;
		unsigned byte = (v >> 8) & 0xff, sz = (v >> 16) & 1;
		unsigned icntv = (v >> 17) & 1, mult = (v >> 18) & 1;
		unsigned icnt = (v >> 20) & 0xffff, nbip, k;
		size_t n = 0, at[8];

		switch (i % 4) {
		case 0:
			n = enc_cfe(b, ip, t5, byte);
			assert_int_equal(pkt_decoder_init(&dec, b, b + n, 0), 0);
			assert_int_equal(pkt_next(&dec, &p), (int)n);
			assert_int_equal(p.type, PKT_CFE);
			assert_int_equal(p.u.cfe.ip, ip);
			assert_int_equal(p.u.cfe.type, t5);
			assert_int_equal(p.u.cfe.vector, byte);
			break;
		case 1:
			n = enc_evd(b, t6, w);
			assert_int_equal(pkt_decoder_init(&dec, b, b + n, 0), 0);
			assert_int_equal(pkt_next(&dec, &p), (int)n);
			assert_int_equal(p.type, PKT_EVD);
			assert_int_equal(p.u.evd.type, t6);
			assert_int_equal(p.u.evd.payload, w);
			break;
		case 2:
			n = enc_trig(b, ip, icntv, mult, byte, icnt);
			assert_int_equal(pkt_decoder_init(&dec, b, b + n, 0), 0);
			assert_int_equal(pkt_next(&dec, &p), (int)n);
			assert_int_equal(p.type, PKT_TRIG);
			assert_int_equal(p.u.trig.ip, ip);
			assert_int_equal(p.u.trig.icntv, icntv);
			assert_int_equal(p.u.trig.mult, mult);
			assert_int_equal(p.u.trig.trbv, byte);
			assert_int_equal(p.u.trig.icnt, icntv ? icnt : 0);
			break;
		default:
			/* a block: bbp, bips, bep, then a tnt.8 with the
			 * same low bits as a bip, which is a tnt.8 again */
			n = enc_bbp(b, sz, t5);
			nbip = (unsigned)(w & 7);
			for (k = 0; k < nbip; k++) {
				at[k] = n;
				n += enc_bip(b + n, sz, (unsigned)(w >> (8 + 5 * k)) & 0x1f,
					     rnd(r));
			}
			n += enc_bep(b + n, ip);
			b[n++] = 0x0c;
			assert_int_equal(pkt_decoder_init(&dec, b, b + n, 0), 0);
			assert_int_equal(pkt_next(&dec, &p), 3);
			assert_int_equal(p.type, PKT_BBP);
			assert_int_equal(p.u.bbp.sz, sz);
			assert_int_equal(p.u.bbp.type, t5);
			for (k = 0; k < nbip; k++) {
				uint64_t val = 0;

				memcpy(&val, b + at[k] + 1, sz ? 4 : 8);
				assert_int_equal(pkt_next(&dec, &p), sz ? 5 : 9);
				assert_int_equal(p.type, PKT_BIP);
				assert_int_equal(p.offset, at[k]);
				assert_int_equal(p.u.bip.id, b[at[k]] >> 3);
				assert_int_equal(p.u.bip.value, val);
			}
			assert_int_equal(pkt_next(&dec, &p), 2);
			assert_int_equal(p.type, PKT_BEP);
			assert_int_equal(p.u.bep_ip, ip);
			assert_int_equal(pkt_next(&dec, &p), 1);
			assert_int_equal(p.type, PKT_TNT8);
			break;
		}
		assert_int_equal(pkt_next(&dec, &p), -pte_eos);
	}
}

/* The PSB offsets of the @count packets in d->sent, into @psb; returns
 * how many. */
static size_t psb_offsets(const struct diff *d, size_t count, uint64_t *psb)
{
	uint64_t off = 0;
	size_t i, n = 0;

	for (i = 0; i < count; i++) {
		if (d->sent[i].type == ppt_psb)
			psb[n++] = off;
		off += d->sent[i].size;
	}
	return n;
}

/*
 * Sync forward from random offsets of a random packet stream, by both
 * decoders, lands on the first PSB after the offset; ours syncs backward
 * to the last PSB before it.  PSBs are frequent here and never back to
 * back: in a run of two PSBs libipt picks the second, we the first.
 */
static void test_diff_sync(void **state)
{
	struct diff *d = *state;
	uint64_t *psb = malloc(DIFF_ROUND * sizeof(*psb));
	uint64_t off = 0;
	size_t n, i, count, npsb, len;
	int prev_psb = 0;

	assert_non_null(psb);
	assert_int_equal(pt_enc_sync_set(d->enc, 0), 0);
	for (n = 0; n < DIFF_ROUND / 4; n++) {
		struct pt_packet *p = &d->sent[n];
		enum pt_packet_type t;
		int r;

		do {
			t = (rnd(&d->rng) & 7) ? ipt_types[rnd_below(&d->rng, NIPT_TYPES)]
					       : ppt_psb;
		} while (t == ppt_psb && prev_psb);
		prev_psb = t == ppt_psb;
		random_packet(&d->rng, t, p);
		r = pt_enc_next(d->enc, p);
		assert_true(r > 0);
		p->size = (uint8_t)r;
	}
	count = n;
	assert_int_equal(pt_enc_get_offset(d->enc, &off), 0);
	len = (size_t)off;
	npsb = psb_offsets(d, count, psb);
	assert_true(npsb > 1000);

	for (i = 0; i < 20000; i++) {
		uint64_t x = rnd_below(&d->rng, len), want_fwd = 0, want_back = 0;
		int have_fwd = 0, have_back = 0;
		struct pt_config cfg = d->cfg;
		struct pt_packet_decoder *ldec;
		struct pkt_decoder dec;
		size_t k;
		int r;

		for (k = 0; k < npsb; k++) {
			if (psb[k] > x && !have_fwd) {
				want_fwd = psb[k];
				have_fwd = 1;
			}
			if (psb[k] < x) {
				want_back = psb[k];
				have_back = 1;
			}
		}
		pkt_decoder_init(&dec, d->buf, d->buf + len, 0);
		assert_int_equal(pkt_sync_set(&dec, x), 0);
		r = pkt_sync_forward(&dec);
		assert_int_equal(r, have_fwd ? 0 : -pte_nosync);
		if (have_fwd)
			assert_int_equal(pkt_offset(&dec), want_fwd);
		assert_int_equal(pkt_sync_set(&dec, x), 0);
		r = pkt_sync_backward(&dec);
		assert_int_equal(r, have_back ? 0 : -pte_nosync);
		if (have_back)
			assert_int_equal(pkt_offset(&dec), want_back);

		/* libipt, on a fresh decoder over [x + 1, len) */
		cfg.begin = d->buf + x + 1;
		cfg.end = d->buf + len;
		if (cfg.begin >= cfg.end)
			continue;
		ldec = pt_pkt_alloc_decoder(&cfg);
		assert_non_null(ldec);
		r = pt_pkt_sync_forward(ldec);
		if (have_fwd) {
			uint64_t lo = 0;

			assert_int_equal(r, 0);
			assert_int_equal(pt_pkt_get_sync_offset(ldec, &lo), 0);
			assert_int_equal(lo + x + 1, want_fwd);
		} else {
			assert_int_equal(r, -ipt_pte_eos);
		}
		pt_pkt_free_decoder(ldec);
	}
	free(psb);
}

/* CYC payloads at the 64-bit limit: libipt stops at 61 bits, we take
 * all 64, and refuse a value that does not fit. */
static void test_cyc_limit(void **state)
{
	/* 2^64 - 1: 5 + 8 * 7 + 3 bits */
	static const uint8_t max[] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0e,
	};
	/* one bit more: bit 64 */
	static const uint8_t over[] = {
		0x07, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x10,
	};
	struct pkt_decoder dec;
	struct pkt p;

	(void)state;
	pkt_decoder_init(&dec, max, max + sizeof(max), 0);
	assert_int_equal(pkt_next(&dec, &p), 10);
	assert_int_equal(p.type, PKT_CYC);
	assert_int_equal(p.u.cyc, ~0ull);
	pkt_decoder_init(&dec, over, over + sizeof(over), 0);
	assert_int_equal(pkt_next(&dec, &p), -pte_bad_packet);
	assert_int_equal(p.type, PKT_INVALID);
}

int main(void)
{
	const char *env = getenv("DIFF_SEED");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diff_ip_all),
		cmocka_unit_test(test_diff_random),
		cmocka_unit_test(test_diff_truncated),
		cmocka_unit_test(test_diff_sync),
		cmocka_unit_test(test_diff_garbage),
		cmocka_unit_test(test_own_types),
		cmocka_unit_test(test_cyc_limit),
	};

	/* Other packets on every run; the seed is printed, and DIFF_SEED
	 * replays a run. */
	diff_seed = env && *env ? strtoull(env, NULL, 0) :
		    (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ull | 1;
	printf("test_diff_libipt: DIFF_SEED=0x%" PRIx64 "\n", diff_seed);
	return cmocka_run_group_tests(tests, diff_setup, diff_teardown);
}
