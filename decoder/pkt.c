/* pkt -- Intel PT packet decoding (SDM Vol. 3C, "Intel Processor Trace"). */
#include <string.h>

#include "pkt.h"

/* Extended opcodes: the byte after 02. */
enum {
	EXT_PSB = 0x82,
	EXT_PSBEND = 0x23,
	EXT_OVF = 0xf3,
	EXT_CBR = 0x03,
	EXT_TMA = 0x73,
	EXT_PIP = 0x43,
	EXT_TNT64 = 0xa3,
	EXT_STOP = 0x83,
	EXT_VMCS = 0xc8,
	EXT_MNT = 0xc3,
	EXT_EXSTOP = 0x62,
	EXT_EXSTOP_IP = 0xe2,
	EXT_MWAIT = 0xc2,
	EXT_PWRE = 0x22,
	EXT_PWRX = 0xa2,
	EXT_BBP = 0x63,
	EXT_BEP = 0x33,
	EXT_BEP_IP = 0xb3,
	EXT_CFE = 0x13,
	EXT_EVD = 0x53,
};

static const char *const type_names[PKT_NTYPES] = {
	[PKT_INVALID] = "invalid",
	[PKT_PAD] = "pad",
	[PKT_PSB] = "psb",
	[PKT_PSBEND] = "psbend",
	[PKT_TNT8] = "tnt.8",
	[PKT_TNT64] = "tnt.64",
	[PKT_TIP] = "tip",
	[PKT_TIP_PGE] = "tip.pge",
	[PKT_TIP_PGD] = "tip.pgd",
	[PKT_FUP] = "fup",
	[PKT_MODE_EXEC] = "mode.exec",
	[PKT_MODE_TSX] = "mode.tsx",
	[PKT_PIP] = "pip",
	[PKT_VMCS] = "vmcs",
	[PKT_CBR] = "cbr",
	[PKT_TSC] = "tsc",
	[PKT_TMA] = "tma",
	[PKT_MTC] = "mtc",
	[PKT_CYC] = "cyc",
	[PKT_OVF] = "ovf",
	[PKT_STOP] = "stop",
	[PKT_MNT] = "mnt",
	[PKT_EXSTOP] = "exstop",
	[PKT_MWAIT] = "mwait",
	[PKT_PWRE] = "pwre",
	[PKT_PWRX] = "pwrx",
	[PKT_PTW] = "ptw",
	[PKT_CFE] = "cfe",
	[PKT_EVD] = "evd",
	[PKT_TRIG] = "trig",
	[PKT_BBP] = "bbp",
	[PKT_BIP] = "bip",
	[PKT_BEP] = "bep",
};

static const uint8_t type_classes[PKT_NTYPES] = {
	[PKT_INVALID] = PKC_ERROR,
	[PKT_PAD] = PKC_SYNC,
	[PKT_PSB] = PKC_SYNC,
	[PKT_PSBEND] = PKC_SYNC,
	[PKT_TNT8] = PKC_BRANCH,
	[PKT_TNT64] = PKC_BRANCH,
	[PKT_TIP] = PKC_IP,
	[PKT_TIP_PGE] = PKC_IP,
	[PKT_TIP_PGD] = PKC_IP,
	[PKT_FUP] = PKC_IP,
	[PKT_MODE_EXEC] = PKC_MODE,
	[PKT_MODE_TSX] = PKC_MODE,
	[PKT_PIP] = PKC_MODE,
	[PKT_VMCS] = PKC_MODE,
	[PKT_CBR] = PKC_TIMING,
	[PKT_TSC] = PKC_TIMING,
	[PKT_TMA] = PKC_TIMING,
	[PKT_MTC] = PKC_TIMING,
	[PKT_CYC] = PKC_TIMING,
	[PKT_OVF] = PKC_ERROR,
	[PKT_STOP] = PKC_OTHER,
	[PKT_MNT] = PKC_OTHER,
	[PKT_EXSTOP] = PKC_POWER,
	[PKT_MWAIT] = PKC_POWER,
	[PKT_PWRE] = PKC_POWER,
	[PKT_PWRX] = PKC_POWER,
	[PKT_PTW] = PKC_OTHER,
	[PKT_CFE] = PKC_OTHER,
	[PKT_EVD] = PKC_OTHER,
	[PKT_TRIG] = PKC_OTHER,
	[PKT_BBP] = PKC_OTHER,
	[PKT_BIP] = PKC_OTHER,
	[PKT_BEP] = PKC_OTHER,
};

static const char *const class_names[PKC_NCLASSES] = {
	[PKC_SYNC] = "sync",
	[PKC_BRANCH] = "branch",
	[PKC_IP] = "ip",
	[PKC_TIMING] = "timing",
	[PKC_MODE] = "mode",
	[PKC_POWER] = "power",
	[PKC_ERROR] = "error",
	[PKC_OTHER] = "other",
};

/* pkt_tnt8_table: for an even byte other than 00 and 02, the stop bit's
 * position (the bit count) and the bits below it. */
#define T8_N(v)								\
	((v) >= 64 ? 6 : (v) >= 32 ? 5 : (v) >= 16 ? 4 : (v) >= 8 ? 3 :	\
	 (v) >= 4 ? 2 : (v) >= 2 ? 1 : 0)
#define T8(b)								\
	((b) & 1 || (b) < 4 ? 0 :					\
	 (uint16_t)(T8_N((b) >> 1) << 8 | (((b) >> 1) & ((1u << T8_N((b) >> 1)) - 1))))
#define T8_4(b) T8(b), T8((b) + 1), T8((b) + 2), T8((b) + 3)
#define T8_16(b) T8_4(b), T8_4((b) + 4), T8_4((b) + 8), T8_4((b) + 12)
#define T8_64(b) T8_16(b), T8_16((b) + 16), T8_16((b) + 32), T8_16((b) + 48)

const uint16_t pkt_tnt8_table[256] = {
	T8_64(0), T8_64(64), T8_64(128), T8_64(192)
};

const char *pkt_type_name(enum pkt_type type)
{
	if ((unsigned)type >= PKT_NTYPES)
		return "invalid";
	return type_names[type];
}

enum pkt_type pkt_type_from_name(const char *name)
{
	int t;

	if (!name)
		return PKT_INVALID;
	for (t = PKT_PAD; t < PKT_NTYPES; t++)
		if (!strcmp(name, type_names[t]))
			return (enum pkt_type)t;
	/* Accept the SDM's spellings too. */
	if (!strcmp(name, "tnt") || !strcmp(name, "tnt8"))
		return PKT_TNT8;
	if (!strcmp(name, "tnt64"))
		return PKT_TNT64;
	if (!strcmp(name, "pge"))
		return PKT_TIP_PGE;
	if (!strcmp(name, "pgd"))
		return PKT_TIP_PGD;
	return PKT_INVALID;
}

enum pkt_class pkt_type_class(enum pkt_type type)
{
	if ((unsigned)type >= PKT_NTYPES)
		return PKC_ERROR;
	return (enum pkt_class)type_classes[type];
}

const char *pkt_class_name(enum pkt_class cls)
{
	if ((unsigned)cls >= PKC_NCLASSES)
		return "?";
	return class_names[cls];
}

/*
 * SDM Table 36-12: TNT, TIP, TIP.PGE, TIP.PGD, MODE.Exec, MODE.TSX, PIP,
 * VMCS, OVF, MTC, TSC, PTWRITE, EXSTOP; MWAIT says so in its own
 * definition.  FUP and CBR are not (perf's decoder agrees on FUP; in the
 * cycle-accurate dynamorio traces no CYC precedes a FUP or a CBR).  The
 * event-trace packets (BBP .. TRIG) are from newer SDMs and kept as
 * eligible pending a check.
 */
const uint64_t pkt_cyc_eligible_mask =
	1ull << PKT_TNT8 | 1ull << PKT_TNT64 | 1ull << PKT_TIP |
	1ull << PKT_TIP_PGE | 1ull << PKT_TIP_PGD | 1ull << PKT_MODE_EXEC |
	1ull << PKT_MODE_TSX | 1ull << PKT_PIP | 1ull << PKT_VMCS |
	1ull << PKT_OVF | 1ull << PKT_MTC | 1ull << PKT_TSC | 1ull << PKT_PTW |
	1ull << PKT_EXSTOP | 1ull << PKT_MWAIT | 1ull << PKT_BBP |
	1ull << PKT_BIP | 1ull << PKT_BEP | 1ull << PKT_CFE | 1ull << PKT_EVD |
	1ull << PKT_TRIG;

int pkt_type_cyc_eligible(enum pkt_type type)
{
	return (unsigned)type < PKT_NTYPES && (pkt_cyc_eligible_mask >> type & 1);
}

unsigned pkt_first_byte(unsigned b, enum pkt_type *type)
{
	/* IP bytes by IPBytes (bits 7..5), -1 reserved (SDM 36.4.2.2) */
	static const int8_t ipsz[8] = { 0, 2, 4, 6, 6, -1, 8, -1 };
	unsigned low = b & 0x1f;

	if (b > 0xff)
		return 0;
	if (b == 0) {
		*type = PKT_PAD;
		return 1;
	}
	if (b != 2 && !(b & 1)) {
		*type = PKT_TNT8;
		return 1;
	}
	if ((b & 7) == 3) {
		*type = PKT_CYC;
		return 1;
	}
	if (b == 0x59) {
		*type = PKT_MTC;
		return 2;
	}
	if ((low == 0x0d || low == 0x11 || low == 0x01 || low == 0x1d) && ipsz[b >> 5] >= 0) {
		*type = low == 0x0d ? PKT_TIP : low == 0x11 ? PKT_TIP_PGE :
			low == 0x01 ? PKT_TIP_PGD : PKT_FUP;
		return (unsigned)(1 + ipsz[b >> 5]);
	}
	return 0;
}

int pkt_decoder_init(struct pkt_decoder *dec, const uint8_t *begin,
		     const uint8_t *end, uint64_t base)
{
	if (!dec || !begin || !end || end < begin)
		return -pte_invalid;
	dec->begin = begin;
	dec->end = end;
	dec->pos = begin;
	dec->base = base;
	dec->bias = base - (uint64_t)(uintptr_t)begin;
	dec->bip_sz = -1;
	dec->runs = NULL;
	return 0;
}

/* Little-endian load of @n (<= 8) bytes. */
static inline uint64_t le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	while (n--)
		v = (v << 8) | p[n];
	return v;
}

static const uint8_t psb_pattern[PKT_PSB_SIZE] = {
	0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
	0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
};

/* Size of the IP payload for compression @ipc, or -1 if reserved. */
static int ipc_size(unsigned ipc)
{
	static const int8_t sizes[8] = { 0, 2, 4, 6, 6, -1, 8, -1 };

	return sizes[ipc & 7];
}

static int decode_ip(const uint8_t *p, size_t left, enum pkt_type type,
		     struct pkt *pkt)
{
	unsigned ipc = p[0] >> 5;
	int n = ipc_size(ipc);

	if (n < 0)
		return -pte_bad_ipc;
	if (left < (size_t)n + 1)
		return -pte_truncated;
	pkt->type = type;
	pkt->u.ip.ipc = (uint8_t)ipc;
	pkt->u.ip.ip = le(p + 1, (unsigned)n);
	return n + 1;
}

static int decode_tnt8(const uint8_t *p, struct pkt *pkt)
{
	unsigned v = p[0] >> 1;
	int stop = 31 - __builtin_clz(v);	/* v != 0: p[0] is not 00 or 01 */

	pkt->type = PKT_TNT8;
	pkt->u.tnt.nbits = (uint8_t)stop;
	pkt->u.tnt.bits = v & ((1u << stop) - 1);
	return 1;
}

static int decode_cyc(const uint8_t *p, size_t left, struct pkt *pkt)
{
	uint64_t v = p[0] >> 3;
	unsigned shift = 5;
	size_t i = 0;

	/* 64 bits of payload take 1 + ceil(59 / 7) = 10 bytes; beyond that
	 * the value would not fit, so a longer CYC is a bad packet. */
	while (p[i] & (i ? 1 : 4)) {
		i++;
		if (i >= left)
			return -pte_truncated;
		if (i > 9)
			return -pte_bad_packet;
		/* the ninth extension byte has room for bits 63..61 only */
		if (i == 9 && (p[i] >> 4))
			return -pte_bad_packet;
		v |= (uint64_t)(p[i] >> 1) << shift;
		shift += 7;
	}
	pkt->type = PKT_CYC;
	pkt->u.cyc = v;
	return (int)i + 1;
}

static int decode_mode(const uint8_t *p, size_t left, struct pkt *pkt)
{
	uint8_t b;

	if (left < 2)
		return -pte_truncated;
	b = p[1];
	switch (b >> 5) {
	case 0:
		pkt->type = PKT_MODE_EXEC;
		pkt->u.exec.csl = b & 1;
		pkt->u.exec.csd = (b >> 1) & 1;
		pkt->u.exec.iflag = (b >> 2) & 1;
		return 2;
	case 1:
		pkt->type = PKT_MODE_TSX;
		pkt->u.tsx.intx = b & 1;
		pkt->u.tsx.abrt = (b >> 1) & 1;
		return 2;
	default:
		return -pte_bad_packet;
	}
}

/*
 * TRIG (0xd9): byte 1 holds IP (bit 7), ICNTV (bit 6) and MULT (bit 5);
 * byte 2 is TRBV, the trigger bit vector; ICNT[15:0] follows in bytes
 * 3..4 when ICNTV is set.  Hence 3 or 5 bytes.  This is the layout of
 * libipt's master branch (Intel's reference decoder); libipt 2.0.5 does
 * not know TRIG.
 */
static int decode_trig(const uint8_t *p, size_t left, struct pkt *pkt)
{
	int size;

	if (left < 3)
		return -pte_truncated;
	size = (p[1] & 0x40) ? 5 : 3;
	if (left < (size_t)size)
		return -pte_truncated;
	pkt->type = PKT_TRIG;
	pkt->u.trig.trbv = p[2];
	pkt->u.trig.icntv = (p[1] >> 6) & 1;
	pkt->u.trig.mult = (p[1] >> 5) & 1;
	pkt->u.trig.ip = p[1] >> 7;
	pkt->u.trig.icnt = size == 5 ? (uint16_t)le(p + 3, 2) : 0;
	return size;
}

/* The opcodes whose low five bits are 11001: tsc, mtc, mode, trig. */
static int decode_x19(const uint8_t *p, size_t left, struct pkt *pkt)
{
	switch (p[0]) {
	case 0x19:
		if (left < 8)
			return -pte_truncated;
		pkt->type = PKT_TSC;
		pkt->u.tsc = le(p + 1, 7);
		return 8;
	case 0x59:
		if (left < 2)
			return -pte_truncated;
		pkt->type = PKT_MTC;
		pkt->u.mtc = p[1];
		return 2;
	case 0x99:
		return decode_mode(p, left, pkt);
	case 0xd9:
		return decode_trig(p, left, pkt);
	default:
		return -pte_bad_opc;
	}
}

/* Check that @need bytes are there, for fixed-size extended packets. */
#define NEED(need)					\
	do {						\
		if (left < (size_t)(need))		\
			return -pte_truncated;		\
	} while (0)

/*
 * An extended packet (02 and its opcode byte).  One case per opcode, as
 * the SDM's table lists them: a table written as a switch, so it runs past
 * a hundred lines; cut in pieces it would scatter the opcode map.
 */
static int decode_ext(struct pkt_decoder *dec, const uint8_t *p, size_t left,
		      struct pkt *pkt)
{
	uint8_t op;

	NEED(2);
	op = p[1];
	switch (op) {
	case EXT_PSB:
		NEED(PKT_PSB_SIZE);
		if (memcmp(p, psb_pattern, PKT_PSB_SIZE))
			return -pte_bad_packet;
		pkt->type = PKT_PSB;
		dec->bip_sz = -1;
		return PKT_PSB_SIZE;
	case EXT_PSBEND:
		pkt->type = PKT_PSBEND;
		return 2;
	case EXT_OVF:
		pkt->type = PKT_OVF;
		dec->bip_sz = -1;
		return 2;
	case EXT_STOP:
		pkt->type = PKT_STOP;
		return 2;
	case EXT_CBR:
		NEED(4);
		pkt->type = PKT_CBR;
		pkt->u.cbr = p[2];
		return 4;
	case EXT_TMA:
		NEED(7);
		pkt->type = PKT_TMA;
		pkt->u.tma.ctc = (uint16_t)le(p + 2, 2);
		pkt->u.tma.fc = (uint16_t)(le(p + 5, 2) & 0x1ff);
		return 7;
	case EXT_PIP:
		NEED(8);
		pkt->type = PKT_PIP;
		pkt->u.pip.nr = p[2] & 1;
		/* CR3[51:5] sits in payload bits 47:1. */
		pkt->u.pip.cr3 = (le(p + 2, 6) >> 1) << 5;
		return 8;
	case EXT_TNT64: {
		uint64_t v;
		int stop;

		NEED(8);
		v = le(p + 2, 6);
		if (!v)
			return -pte_bad_packet;
		stop = 63 - __builtin_clzll(v);
		pkt->type = PKT_TNT64;
		pkt->u.tnt.nbits = (uint8_t)stop;
		pkt->u.tnt.bits = v & ((1ull << stop) - 1);
		return 8;
	}
	case EXT_VMCS:
		NEED(7);
		pkt->type = PKT_VMCS;
		pkt->u.vmcs = le(p + 2, 5) << 12;
		return 7;
	case EXT_MNT:
		NEED(3);
		if (p[2] != 0x88)
			return -pte_bad_opc;
		NEED(11);
		pkt->type = PKT_MNT;
		pkt->u.mnt = le(p + 3, 8);
		return 11;
	case EXT_EXSTOP:
	case EXT_EXSTOP_IP:
		pkt->type = PKT_EXSTOP;
		pkt->u.exstop_ip = op >> 7;
		return 2;
	case EXT_MWAIT:
		NEED(10);
		pkt->type = PKT_MWAIT;
		pkt->u.mwait.hints = (uint32_t)le(p + 2, 4);
		pkt->u.mwait.ext = (uint32_t)le(p + 6, 4);
		return 10;
	case EXT_PWRE: {
		unsigned v;

		NEED(4);
		v = (unsigned)le(p + 2, 2);
		pkt->type = PKT_PWRE;
		pkt->u.pwre.hw = (v >> 7) & 1;
		pkt->u.pwre.sub_state = (v >> 8) & 0xf;
		pkt->u.pwre.state = (v >> 12) & 0xf;
		return 4;
	}
	case EXT_PWRX: {
		uint64_t v;

		NEED(7);
		v = le(p + 2, 5);
		pkt->type = PKT_PWRX;
		pkt->u.pwrx.deepest = v & 0xf;
		pkt->u.pwrx.last = (v >> 4) & 0xf;
		pkt->u.pwrx.interrupt = (v >> 8) & 1;
		pkt->u.pwrx.store = (v >> 10) & 1;
		pkt->u.pwrx.autonomous = (v >> 11) & 1;
		return 7;
	}
	case EXT_BBP:
		NEED(3);
		pkt->type = PKT_BBP;
		pkt->u.bbp.sz = p[2] >> 7;
		pkt->u.bbp.type = p[2] & 0x1f;
		dec->bip_sz = (int8_t)pkt->u.bbp.sz;
		return 3;
	case EXT_BEP:
	case EXT_BEP_IP:
		pkt->type = PKT_BEP;
		pkt->u.bep_ip = op >> 7;
		dec->bip_sz = -1;
		return 2;
	case EXT_CFE:
		NEED(4);
		pkt->type = PKT_CFE;
		pkt->u.cfe.ip = p[2] >> 7;
		pkt->u.cfe.type = p[2] & 0x1f;
		pkt->u.cfe.vector = p[3];
		return 4;
	case EXT_EVD:
		NEED(11);
		pkt->type = PKT_EVD;
		pkt->u.evd.type = p[2] & 0x3f;
		pkt->u.evd.payload = le(p + 3, 8);
		return 11;
	default:
		break;
	}
	if ((op & 0x1f) == 0x12) {
		int size = (op & 0x60) == 0 ? 6 : (op & 0x60) == 0x20 ? 10 : -1;

		if (size < 0)
			return -pte_bad_packet;
		NEED(size);
		pkt->type = PKT_PTW;
		pkt->u.ptw.ip = op >> 7;
		pkt->u.ptw.plc = (op >> 5) & 3;
		pkt->u.ptw.payload = le(p + 2, (unsigned)size - 2);
		return size;
	}
	return -pte_bad_opc;
}

/*
 * BIP is only meaningful between BBP and BEP, where its opcode (low three
 * bits 100) would otherwise read as a TNT.8.
 */
static int decode_bip(struct pkt_decoder *dec, const uint8_t *p, size_t left,
		      struct pkt *pkt)
{
	int size = dec->bip_sz ? 5 : 9;

	NEED(size);
	pkt->type = PKT_BIP;
	pkt->u.bip.id = p[0] >> 3;
	pkt->u.bip.value = le(p + 1, (unsigned)size - 1);
	return size;
}

int pkt_next_slow(struct pkt_decoder *dec, struct pkt *pkt)
{
	const uint8_t *p;
	size_t left;
	uint8_t b;
	int size;

	if (!dec || !pkt)
		return -pte_invalid;
	p = dec->pos;
	pkt->offset = dec->base + (uint64_t)(p - dec->begin);
	pkt->type = PKT_INVALID;
	pkt->size = 0;
	if (p >= dec->end)
		return -pte_eos;
	left = (size_t)(dec->end - p);
	b = p[0];

	/*
	 * The hot path of a cycle-accurate trace: a CYC of one or two bytes,
	 * decoded without a branch on its size, which is as random as the
	 * cycle counts and would be mispredicted half the time.
	 */
	if ((b & 3) == 3 && left >= 2 && !((b >> 2) & p[1] & 1)) {
		unsigned ext = (b >> 2) & 1;
		uint64_t hi = (uint64_t)(p[1] >> 1) << 5;

		pkt->type = PKT_CYC;
		pkt->u.cyc = (uint64_t)(b >> 3) | (hi & (0 - (uint64_t)ext));
		pkt->size = (uint8_t)(1 + ext);
		dec->pos = p + 1 + ext;
		return (int)(1 + ext);
	}

	if (!(b & 1)) {
		if (b == 0) {
			pkt->type = PKT_PAD;
			size = 1;
		} else if (b == 2) {
			size = decode_ext(dec, p, left, pkt);
		} else if (dec->bip_sz >= 0 && (b & 7) == 4) {
			size = decode_bip(dec, p, left, pkt);
		} else {
			size = decode_tnt8(p, pkt);
		}
	} else if ((b & 3) == 3) {
		size = decode_cyc(p, left, pkt);
	} else {
		switch (b & 0x1f) {
		case 0x0d:
			size = decode_ip(p, left, PKT_TIP, pkt);
			break;
		case 0x11:
			size = decode_ip(p, left, PKT_TIP_PGE, pkt);
			break;
		case 0x01:
			size = decode_ip(p, left, PKT_TIP_PGD, pkt);
			break;
		case 0x1d:
			size = decode_ip(p, left, PKT_FUP, pkt);
			break;
		case 0x19:
			size = decode_x19(p, left, pkt);
			break;
		default:
			size = -pte_bad_opc;
			break;
		}
	}
	if (size < 0) {
		pkt->type = PKT_INVALID;
		return size;
	}
	pkt->size = (uint8_t)size;
	dec->pos = p + size;
	return size;
}

/*
 * The pair 02 82 that starts every PSB, searched for forward and backward
 * 64 bytes at a time where the CPU has AVX2.
 */
static const uint8_t *pair_fwd_scalar(const uint8_t *p, const uint8_t *end)
{
	while (end - p >= 2) {
		const uint8_t *q = memchr(p, 2, (size_t)(end - p - 1));

		if (!q)
			return NULL;
		if (q[1] == 0x82)
			return q;
		p = q + 1;
	}
	return NULL;
}

static const uint8_t *pair_back_scalar(const uint8_t *begin, const uint8_t *end)
{
	while (end - begin >= 2) {
		const uint8_t *q = memrchr(begin + 1, 0x82, (size_t)(end - begin - 1));

		if (!q)
			return NULL;
		if (q[-1] == 0x02)
			return q - 1;
		end = q;
	}
	return NULL;
}

#if defined(__x86_64__)
#include <immintrin.h>

/* Bit i set where a pair starts at @p + i, for i in 0..63 (reads 65
 * bytes). */
__attribute__((target("avx2")))
static inline uint64_t pair_mask64(const uint8_t *p)
{
	const __m256i c02 = _mm256_set1_epi8(2);
	const __m256i c82 = _mm256_set1_epi8((char)0x82);
	__m256i a0 = _mm256_loadu_si256((const __m256i *)p);
	__m256i a1 = _mm256_loadu_si256((const __m256i *)(p + 1));
	__m256i b0 = _mm256_loadu_si256((const __m256i *)(p + 32));
	__m256i b1 = _mm256_loadu_si256((const __m256i *)(p + 33));
	__m256i ma = _mm256_and_si256(_mm256_cmpeq_epi8(a0, c02),
				      _mm256_cmpeq_epi8(a1, c82));
	__m256i mb = _mm256_and_si256(_mm256_cmpeq_epi8(b0, c02),
				      _mm256_cmpeq_epi8(b1, c82));

	return (uint32_t)_mm256_movemask_epi8(ma) |
	       (uint64_t)(uint32_t)_mm256_movemask_epi8(mb) << 32;
}

__attribute__((target("avx2")))
static const uint8_t *pair_fwd_avx2(const uint8_t *p, const uint8_t *end)
{
	while (end - p >= 65) {
		uint64_t m = pair_mask64(p);

		if (m)
			return p + __builtin_ctzll(m);
		p += 64;
	}
	return pair_fwd_scalar(p, end);
}

__attribute__((target("avx2")))
static const uint8_t *pair_back_avx2(const uint8_t *begin, const uint8_t *end)
{
	/* Pairs starting at x .. x + 63 end by x + 64, inside [begin, end). */
	while (end - begin >= 65) {
		const uint8_t *x = end - 65;
		uint64_t m = pair_mask64(x);

		if (m)
			return x + 63 - __builtin_clzll(m);
		end = x + 1;
	}
	return pair_back_scalar(begin, end);
}
#endif

static const uint8_t *(*pair_fwd)(const uint8_t *, const uint8_t *) = pair_fwd_scalar;
static const uint8_t *(*pair_back)(const uint8_t *, const uint8_t *) = pair_back_scalar;

__attribute__((constructor))
static void pair_pick(void)
{
#if defined(__x86_64__)
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx2")) {
		pair_fwd = pair_fwd_avx2;
		pair_back = pair_back_avx2;
	}
#endif
}

const uint8_t *pkt_find_pair(const uint8_t *p, const uint8_t *end)
{
	return p < end ? pair_fwd(p, end) : NULL;
}

const uint8_t *pkt_find_pair_back(const uint8_t *begin, const uint8_t *end)
{
	return begin < end ? pair_back(begin, end) : NULL;
}

/* The end of the run of 02 82 pairs starting at @p. */
static const uint8_t *run_end(const uint8_t *p, const uint8_t *end)
{
	while (end - p >= 2 && p[0] == 0x02 && p[1] == 0x82)
		p += 2;
	return p;
}

/* The end of the run of pairs at @p, from or into @runs (may be NULL). */
static const uint8_t *run_end_memo(struct pkt_runs *runs, const uint8_t *p,
				   const uint8_t *end)
{
	const uint8_t *e;

	if (runs && runs->end == end && p >= runs->from && p < runs->stop &&
	    !((p - runs->from) & 1))
		return runs->stop;
	/* Before the run remembered, pairs all the way to it: the same run,
	 * found in the bytes between alone (stepping back PSB by PSB costs
	 * a step each, not the rest of the run). */
	if (runs && runs->end == end && p < runs->from &&
	    !((runs->from - p) & 1) && run_end(p, runs->from) == runs->from) {
		runs->from = p;
		return runs->stop;
	}
	e = run_end(p, end);
	if (runs && e - p >= 4 * PKT_PSB_SIZE) {
		runs->from = p;
		runs->stop = e;
		runs->end = end;
	}
	return e;
}

/*
 * A packet's payload may end in 02 82 right before a PSB, so a run of 02 82
 * pairs can be longer than 16 bytes.  The PSBs of a run are the 16-byte
 * blocks that end where the run ends: that is where a decoder in sync meets
 * them, and where the indexer places them.
 */
const uint8_t *pkt_find_psb_runs(struct pkt_runs *runs, const uint8_t *p,
				 const uint8_t *end)
{
	while (end - p >= PKT_PSB_SIZE) {
		const uint8_t *q = pkt_find_pair(p, end);
		const uint8_t *e;

		if (!q || end - q < PKT_PSB_SIZE)
			return NULL;
		e = run_end_memo(runs, q, end);
		if (e - q >= PKT_PSB_SIZE)
			return e - PKT_PSB_SIZE * ((e - q) / PKT_PSB_SIZE);
		p = e;
	}
	return NULL;
}

const uint8_t *pkt_find_psb(const uint8_t *p, const uint8_t *end)
{
	return pkt_find_psb_runs(NULL, p, end);
}

int pkt_sync_forward(struct pkt_decoder *dec)
{
	const uint8_t *q;

	if (!dec)
		return -pte_invalid;
	if (dec->pos >= dec->end)
		return -pte_nosync;
	q = pkt_find_psb_runs(dec->runs, dec->pos + 1, dec->end);
	if (!q)
		return -pte_nosync;
	dec->pos = q;
	dec->bip_sz = -1;
	return 0;
}

int pkt_sync_backward(struct pkt_decoder *dec)
{
	const uint8_t *p;

	if (!dec)
		return -pte_invalid;
	/* Walk back run by run; in each, the PSBs end where the run ends. */
	p = dec->pos;
	while (p > dec->begin) {
		const uint8_t *q = p - 1;
		const uint8_t *run, *e, *c;
		int cut = 0;

		if (*q != 0x82 && *q != 0x02) {
			/* A PSB before q ends in a pair: on to the last one. */
			const uint8_t *r = pkt_find_pair_back(dec->begin, q);

			if (!r)
				break;
			p = r + 2;
			continue;
		}
		/* Back to the run's start, but no further than two PSBs
		 * before its last byte q: the PSB sought is then inside. */
		run = q;
		while (run > dec->begin &&
		       run[-1] == (run[0] == 0x82 ? 0x02 : 0x82)) {
			if (q - run > 2 * PKT_PSB_SIZE && *run == 0x02) {
				cut = 1;
				break;
			}
			run--;
		}
		if (*run != 0x02)
			run++;
		e = run_end_memo(dec->runs, run, dec->end);
		if (e - run >= PKT_PSB_SIZE) {
			/* The last block ending at e - 16k that starts
			 * before the cursor. */
			c = e - PKT_PSB_SIZE;
			if (c >= dec->pos)
				c -= PKT_PSB_SIZE *
				     ((c - dec->pos) / PKT_PSB_SIZE + 1);
			if (c >= run) {
				dec->pos = c;
				dec->bip_sz = -1;
				return 0;
			}
		}
		if (cut)	/* cannot happen: a cut run holds the PSB */
			return -pte_internal;
		p = run;
		if (p == q + 1)	/* a lone 82: step over it */
			p = q;
	}
	return -pte_nosync;
}

int pkt_sync_set(struct pkt_decoder *dec, uint64_t off)
{
	if (!dec)
		return -pte_invalid;
	if (off < dec->base || off - dec->base > (uint64_t)(dec->end - dec->begin))
		return -pte_eos;
	dec->pos = dec->begin + (off - dec->base);
	dec->bip_sz = -1;
	return 0;
}

int pkt_ip_update(const struct pkt *pkt, uint64_t *last_ip)
{
	uint64_t ip, last;

	if (!pkt || !last_ip)
		return -pte_invalid;
	ip = pkt->u.ip.ip;
	last = *last_ip;
	switch (pkt->u.ip.ipc) {
	case PKT_IPC_SUPPRESSED:
		return 1;
	case PKT_IPC_UPDATE16:
		*last_ip = (last & ~0xffffull) | (ip & 0xffff);
		return 0;
	case PKT_IPC_UPDATE32:
		*last_ip = (last & ~0xffffffffull) | (ip & 0xffffffff);
		return 0;
	case PKT_IPC_SEXT48:
		*last_ip = (uint64_t)((int64_t)(ip << 16) >> 16);
		return 0;
	case PKT_IPC_UPDATE48:
		*last_ip = (last & ~0xffffffffffffull) | (ip & 0xffffffffffffull);
		return 0;
	case PKT_IPC_FULL:
		*last_ip = ip;
		return 0;
	default:
		return -pte_bad_ipc;
	}
}
