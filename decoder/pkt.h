/*
 * pkt -- Intel PT packet decoding: a cursor over a caller-owned buffer.
 *
 * The buffer [begin, end) is never copied and never read outside its
 * bounds.  Offsets are 64-bit and relative to a caller-given base, so a
 * window of a 20 GiB mapping reports file offsets.
 *
 * Encodings follow the Intel SDM Vol. 3C chapter "Intel Processor Trace"
 * (see ../shared/spec/packets.md); names follow libipt's ptdump.
 */
#ifndef PKT_H
#define PKT_H

#include <stddef.h>
#include <stdint.h>

#include "ptdec.h"

/* Packet types.  The order is the display order of per-type statistics. */
enum pkt_type {
	PKT_INVALID = 0,
	PKT_PAD,
	PKT_PSB,
	PKT_PSBEND,
	PKT_TNT8,
	PKT_TNT64,
	PKT_TIP,
	PKT_TIP_PGE,
	PKT_TIP_PGD,
	PKT_FUP,
	PKT_MODE_EXEC,
	PKT_MODE_TSX,
	PKT_PIP,
	PKT_VMCS,
	PKT_CBR,
	PKT_TSC,
	PKT_TMA,
	PKT_MTC,
	PKT_CYC,
	PKT_OVF,
	PKT_STOP,
	PKT_MNT,
	PKT_EXSTOP,
	PKT_MWAIT,
	PKT_PWRE,
	PKT_PWRX,
	PKT_PTW,
	PKT_CFE,
	PKT_EVD,
	PKT_TRIG,
	PKT_BBP,
	PKT_BIP,
	PKT_BEP,
	PKT_NTYPES
};

/* Packet classes, for colours, statistics and the timeline. */
enum pkt_class {
	PKC_SYNC,	/* psb, psbend, pad */
	PKC_BRANCH,	/* tnt.8, tnt.64 */
	PKC_IP,		/* tip, tip.pge, tip.pgd, fup */
	PKC_TIMING,	/* tsc, tma, mtc, cyc, cbr */
	PKC_MODE,	/* mode.*, pip, vmcs */
	PKC_POWER,	/* mwait, pwre, pwrx, exstop */
	PKC_ERROR,	/* ovf, and decode errors */
	PKC_OTHER,	/* stop, mnt, ptw, cfe, evd, trig, bbp, bip, bep */
	PKC_NCLASSES
};

/* IP compression (IPBytes field of tip, tip.pge, tip.pgd, fup). */
enum pkt_ipc {
	PKT_IPC_SUPPRESSED = 0,
	PKT_IPC_UPDATE16 = 1,
	PKT_IPC_UPDATE32 = 2,
	PKT_IPC_SEXT48 = 3,
	PKT_IPC_UPDATE48 = 4,
	PKT_IPC_FULL = 6
};

/* The longest packet other than an unusually long CYC: PSB. */
#define PKT_MAX_SIZE 16
/* PSB is 8 repetitions of these two bytes. */
#define PKT_PSB_SIZE 16

/* A decoded packet: plain data, no pointers into the buffer. */
struct pkt {
	uint64_t offset;	/* of the first byte, base-relative */
	uint8_t type;		/* enum pkt_type */
	uint8_t size;		/* bytes; a CYC may exceed PKT_MAX_SIZE */
	union {
		struct {	/* tip, tip.pge, tip.pgd, fup */
			uint8_t ipc;	/* enum pkt_ipc */
			uint64_t ip;	/* the payload bits as stored */
		} ip;
		struct {	/* tnt.8, tnt.64 */
			uint64_t bits;	/* oldest branch in bit nbits-1; 1 = taken;
					 * shares its place with cyc (pkt_next) */
			uint8_t nbits;	/* 1..47 */
		} tnt;
		struct {	/* mode.exec */
			uint8_t csl, csd, iflag;
		} exec;
		struct {	/* mode.tsx */
			uint8_t intx, abrt;
		} tsx;
		struct {	/* pip */
			uint64_t cr3;	/* CR3[51:5], in place */
			uint8_t nr;	/* non-root */
		} pip;
		uint64_t vmcs;		/* vmcs: pointer[51:12], in place */
		uint8_t cbr;		/* core:bus ratio */
		uint64_t tsc;		/* TSC[55:0] */
		struct {	/* tma */
			uint16_t ctc;	/* CTC[15:0] */
			uint16_t fc;	/* FastCounter[8:0] */
		} tma;
		uint8_t mtc;		/* CTC[N+7:N] */
		uint64_t cyc;		/* core cycles since the last CYC */
		uint64_t mnt;		/* maintenance payload */
		uint8_t exstop_ip;	/* exstop: a FUP follows */
		struct {	/* mwait */
			uint32_t hints, ext;
		} mwait;
		struct {	/* pwre */
			uint8_t state, sub_state, hw;
		} pwre;
		struct {	/* pwrx */
			uint8_t last, deepest;	/* core C-states */
			uint8_t interrupt, store, autonomous;	/* wake reason */
		} pwrx;
		struct {	/* ptw */
			uint8_t plc;	/* payload size code: 0 = 4 bytes, 1 = 8 */
			uint8_t ip;	/* a FUP follows */
			uint64_t payload;
		} ptw;
		struct {	/* cfe */
			uint8_t ip, type, vector;
		} cfe;
		struct {	/* evd */
			uint8_t type;
			uint64_t payload;
		} evd;
		struct {	/* trig */
			uint8_t trbv;	/* trigger bit vector */
			uint8_t ip, mult, icntv;
			uint16_t icnt;
		} trig;
		struct {	/* bbp */
			uint8_t sz;	/* 1: bip payloads are 4 bytes, 0: 8 */
			uint8_t type;
		} bbp;
		struct {	/* bip */
			uint8_t id;
			uint64_t value;
		} bip;
		uint8_t bep_ip;		/* bep: a FUP follows */
	} u;
};

/*
 * What PSB searches remember: the last long run of 02 82 pairs whose end
 * was found.  Stepping through PSBs 16 bytes apart (one long run) would
 * otherwise walk the rest of the run for every PSB, which is quadratic.
 * A caller that steps owns one, for as long as the bytes it looked at stay
 * mapped and unchanged (the window cache, a search's scanner), and uses it
 * from one thread at a time.  All zero is empty.
 */
struct pkt_runs {
	const uint8_t *from;	/* a pair of the run (its start, or later) */
	const uint8_t *stop;	/* the run's end */
	const uint8_t *end;	/* the end of the buffer it was found in */
};

/* The packet cursor.  Initialise with pkt_decoder_init(); fields are
 * private to pkt.c but public so a cursor lives on the stack. */
struct pkt_decoder {
	const uint8_t *begin;
	const uint8_t *end;
	const uint8_t *pos;
	uint64_t base;		/* offset of begin */
	uint64_t bias;		/* base - begin: a byte's offset is bias + p */
	int8_t bip_sz;		/* -1 outside a block, else bbp's SZ */
	struct pkt_runs *runs;	/* for pkt_sync_*(); NULL (the default):
				 * remember nothing */
};

/* tnt.8 by its byte: the bit count in bits 8-15, the bits in 0-7
 * (pkt.c fills it). */
extern const uint16_t pkt_tnt8_table[256];

/* Set up @dec over [@begin, @end), whose first byte has offset @base.
 * The cursor starts at @begin, unsynchronised (no PSB is searched), with
 * no struct pkt_runs (set dec->runs to use one).
 * Returns 0, or -pte_invalid if a pointer is NULL or @end < @begin. */
int pkt_decoder_init(struct pkt_decoder *dec, const uint8_t *begin,
		     const uint8_t *end, uint64_t base);

/* pkt_next() for every packet; callers use pkt_next(). */
int pkt_next_slow(struct pkt_decoder *dec, struct pkt *pkt);

/* Decode the packet at the cursor into @pkt and advance past it.
 * On error the cursor stays put and @pkt->offset and @pkt->size tell
 * where and how much (size 0 if unknown); pkt->type is PKT_INVALID.
 * Returns the packet's size (> 0) on success.
 * Returns -pte_eos at the end of the buffer.
 * Returns -pte_truncated if the packet runs past the end.
 * Returns -pte_bad_opc on an unknown opcode.
 * Returns -pte_bad_ipc on a reserved IP compression.
 * Returns -pte_bad_packet on an impossible payload (e.g. an endless CYC).
 *
 * PAD, TNT.8, short CYCs and MTCs are most of a trace's packets: they are
 * decoded here, inline in the caller's loop, the rest out of line. */
static inline int pkt_next(struct pkt_decoder *dec, struct pkt *pkt)
{
	const uint8_t *p;
	unsigned b;

	if (__builtin_expect(!dec || !pkt || dec->pos >= dec->end, 0))
		return pkt_next_slow(dec, pkt);
	p = dec->pos;
	b = p[0];
	if (b == 0) {
		pkt->offset = dec->bias + (uint64_t)(uintptr_t)p;
		pkt->type = PKT_PAD;
		pkt->size = 1;
		dec->pos = p + 1;
		return 1;
	}
	if (!(b & 1) && b != 2 && (dec->bip_sz < 0 || (b & 7) != 4)) {
		unsigned e = pkt_tnt8_table[b];

		pkt->offset = dec->bias + (uint64_t)(uintptr_t)p;
		pkt->type = PKT_TNT8;
		pkt->size = 1;
		pkt->u.tnt.nbits = (uint8_t)(e >> 8);
		pkt->u.tnt.bits = e & 0xff;
		dec->pos = p + 1;
		return 1;
	}
	/* A cyc of one or two bytes; its size is as random as the cycle
	 * counts, so no branch on it. */
	if ((b & 3) == 3 && dec->end - p >= 2 && !((b >> 2) & p[1] & 1)) {
		unsigned ext = (b >> 2) & 1;
		uint64_t hi = (uint64_t)(p[1] >> 1) << 5;

		pkt->offset = dec->bias + (uint64_t)(uintptr_t)p;
		pkt->type = PKT_CYC;
		pkt->u.cyc = (uint64_t)(b >> 3) | (hi & (0 - (uint64_t)ext));
		pkt->size = (uint8_t)(1 + ext);
		dec->pos = p + 1 + ext;
		return (int)(1 + ext);
	}
	/* MTC: a tenth of the packets where there is no CYC. */
	if (b == 0x59 && dec->end - p >= 2) {
		pkt->offset = dec->bias + (uint64_t)(uintptr_t)p;
		pkt->type = PKT_MTC;
		pkt->size = 2;
		pkt->u.mtc = p[1];
		dec->pos = p + 2;
		return 2;
	}
	return pkt_next_slow(dec, pkt);
}

/* Move the cursor to the first PSB at or after the cursor + 1 if the cursor
 * is on a PSB, else at or after the cursor.
 * Returns 0, or -pte_nosync (cursor unchanged) if there is none. */
int pkt_sync_forward(struct pkt_decoder *dec);

/* Move the cursor to the last PSB that starts before the cursor.
 * Returns 0, or -pte_nosync (cursor unchanged) if there is none. */
int pkt_sync_backward(struct pkt_decoder *dec);

/* Put the cursor at offset @off (base-relative).  Does not sync.
 * Returns 0, or -pte_eos if @off is outside [base, base + size]. */
int pkt_sync_set(struct pkt_decoder *dec, uint64_t off);

/* The cursor's current offset, base-relative. */
static inline uint64_t pkt_offset(const struct pkt_decoder *dec)
{
	return dec->bias + (uint64_t)(uintptr_t)dec->pos;
}

/* The first pair 02 82 (the start of every PSB) in [@p, @end), or NULL. */
const uint8_t *pkt_find_pair(const uint8_t *p, const uint8_t *end);

/* The last pair 02 82 lying wholly in [@begin, @end), or NULL. */
const uint8_t *pkt_find_pair_back(const uint8_t *begin, const uint8_t *end);

/* Find the first PSB in [@p, @end).  Returns a pointer to it or NULL. */
const uint8_t *pkt_find_psb(const uint8_t *p, const uint8_t *end);

/* pkt_find_psb(), remembering long runs in @runs (may be NULL). */
const uint8_t *pkt_find_psb_runs(struct pkt_runs *runs, const uint8_t *p,
				 const uint8_t *end);

/* Apply IP packet @pkt to @last_ip (the IP compression state).
 * Returns 0 and updates *@last_ip, or -pte_bad_ipc for a reserved
 * compression, or 1 if the IP is suppressed (*@last_ip unchanged). */
int pkt_ip_update(const struct pkt *pkt, uint64_t *last_ip);

/* ptdump's name of packet type @type ("tnt.8", "mode.exec", ...). */
const char *pkt_type_name(enum pkt_type type);

/* The type called @name (ptdump spelling), or PKT_INVALID. */
enum pkt_type pkt_type_from_name(const char *name);

/* The class of packet type @type. */
enum pkt_class pkt_type_class(enum pkt_type type);

/* A short name of class @cls ("branch", "timing", ...). */
const char *pkt_class_name(enum pkt_class cls);

/* Whether @type is CYC-eligible, i.e. a CYC may be generated for it
 * (SDM 36.3.6, Table 36-12; pkt.c keeps the list, also as a mask of
 * 1 << type bits). */
int pkt_type_cyc_eligible(enum pkt_type type);
extern const uint64_t pkt_cyc_eligible_mask;

/* The size of the packet whose first byte is @b where that byte alone
 * gives it, outside a block (BBP) context: pad, tnt.8, a CYC of one byte,
 * mtc, tip, tip.pge, tip.pgd and fup, its type in *@type.  Returns 0 (and
 * leaves *@type) for every other byte, whose packets pkt_next() must
 * decode.  The fast walks build their tables from it. */
unsigned pkt_first_byte(unsigned b, enum pkt_type *type);

#endif /* PKT_H */
