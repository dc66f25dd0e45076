/*
 * ptenc.h -- Intel PT packet encoding shared by the trace writers in
 * tools/ (ptgen, ptrecord).  Each pte_*() writes one packet at @p, per
 * the SDM's encodings (../shared/spec/packets.md), and returns the end
 * of what it wrote; the caller keeps room for the largest packet (16
 * bytes for a PSB, 11 for a CYC).  No state: IP compression, TNT
 * accumulation and timing belong to the writer.
 */
#ifndef PTENC_H
#define PTENC_H

#include <stdint.h>
#include <string.h>

/* Opcodes of the IP packets (low 5 bits of byte 0). */
#define PTE_TIP		0x0d
#define PTE_TIP_PGE	0x11
#define PTE_TIP_PGD	0x01
#define PTE_FUP		0x1d

/* IPBytes values (SDM "IP compression"). */
#define PTE_IPC_SUPPRESSED	0
#define PTE_IPC_UPD16		1
#define PTE_IPC_UPD32		2
#define PTE_IPC_SEXT48		3
#define PTE_IPC_UPD48		4
#define PTE_IPC_FULL		6

/* The TNT bits a packet can hold. */
#define PTE_TNT8_MAX	6
#define PTE_TNT64_MAX	47

/* @n little-endian bytes of @v at @p. */
static inline uint8_t *pte_le(uint8_t *p, uint64_t v, int n)
{
	while (n--) {
		*p++ = (uint8_t)v;
		v >>= 8;
	}
	return p;
}

/* CYC of @v core cycles: 5 bits in the opcode byte, then 7 bits per
 * extension byte.  The value stays below 2^61: libipt's decoder rejects
 * a ninth extension. */
static inline uint8_t *pte_cyc(uint8_t *p, uint64_t v)
{
	uint8_t b;

	if (v < 4096) {
		/* the common case, without a branch on the size */
		unsigned ext = v >= 32;

		p[0] = (uint8_t)(0x03 | ext << 2 | (v & 0x1f) << 3);
		p[1] = (uint8_t)(v >> 5 << 1);
		return p + 1 + ext;
	}
	if (v >> 61)
		v = (1ull << 61) - 1;
	b = (uint8_t)(0x07 | (v & 0x1f) << 3);
	*p++ = b;
	v >>= 5;
	while (v) {
		b = (uint8_t)((v & 0x7f) << 1);
		v >>= 7;
		if (v)
			b |= 1;
		*p++ = b;
	}
	return p;
}

/* The payload bytes of each IPBytes value (5 and 7 are reserved). */
static inline int pte_ip_size(unsigned ipc)
{
	static const uint8_t sizes[8] = { 0, 2, 4, 6, 6, 0, 8, 0 };

	return sizes[ipc & 7];
}

/* An IP packet (@opc one of PTE_TIP...) with IPBytes @ipc for @ip. */
static inline uint8_t *pte_ip(uint8_t *p, uint8_t opc, unsigned ipc,
			      uint64_t ip)
{
	*p++ = (uint8_t)(opc | ipc << 5);
	return pte_le(p, ip, pte_ip_size(ipc));
}

/* The smallest IPBytes that carries @ip against the last IP @last
 * (@valid: there is one since the last PSB), in the hardware's order of
 * preference. */
static inline unsigned pte_ipc_best(uint64_t last, int valid, uint64_t ip)
{
	if (valid && (ip >> 16) == (last >> 16))
		return PTE_IPC_UPD16;
	if (valid && (ip >> 32) == (last >> 32))
		return PTE_IPC_UPD32;
	if ((uint64_t)((int64_t)(ip << 16) >> 16) == ip)
		return PTE_IPC_SEXT48;
	if (valid && (ip >> 48) == (last >> 48))
		return PTE_IPC_UPD48;
	return PTE_IPC_FULL;
}

/* A short TNT of @n (1..6) bits, @bits holding the oldest branch in bit
 * n-1 and the newest in bit 0. */
static inline uint8_t *pte_tnt8(uint8_t *p, uint64_t bits, unsigned n)
{
	*p++ = (uint8_t)((1u << n | (bits & ((1u << n) - 1))) << 1);
	return p;
}

/* A long TNT of @n (1..47) bits, ordered as for pte_tnt8(). */
static inline uint8_t *pte_tnt64(uint8_t *p, uint64_t bits, unsigned n)
{
	p[0] = 0x02;
	p[1] = 0xa3;
	return pte_le(p + 2, 1ull << n | (bits & ((1ull << n) - 1)), 6);
}

static inline uint8_t *pte_psb(uint8_t *p)
{
	int i;

	for (i = 0; i < 8; i++) {
		p[2 * i] = 0x02;
		p[2 * i + 1] = 0x82;
	}
	return p + 16;
}

static inline uint8_t *pte_psbend(uint8_t *p)
{
	p[0] = 0x02;
	p[1] = 0x23;
	return p + 2;
}

/* TSC[55:0]. */
static inline uint8_t *pte_tsc(uint8_t *p, uint64_t tsc)
{
	*p++ = 0x19;
	return pte_le(p, tsc, 7);
}

/* TMA: CTC[15:0] and the 9-bit FastCounter at the preceding TSC. */
static inline uint8_t *pte_tma(uint8_t *p, uint64_t ctc, uint64_t fc)
{
	p[0] = 0x02;
	p[1] = 0x73;
	p = pte_le(p + 2, ctc & 0xffff, 2);
	*p++ = 0;
	return pte_le(p, fc & 0x1ff, 2);
}

static inline uint8_t *pte_cbr(uint8_t *p, unsigned cbr)
{
	p[0] = 0x02;
	p[1] = 0x03;
	p[2] = (uint8_t)cbr;
	p[3] = 0;
	return p + 4;
}

/* MTC with CTC[N+7:N], @ctc8 being (ART >> MTCFreq) & 0xff. */
static inline uint8_t *pte_mtc(uint8_t *p, uint64_t ctc8)
{
	p[0] = 0x59;
	p[1] = (uint8_t)ctc8;
	return p + 2;
}

/* MODE.Exec: bit 0 CS.L, bit 1 CS.D (64-bit code: CS.L only). */
static inline uint8_t *pte_mode_exec(uint8_t *p, int csl, int csd)
{
	p[0] = 0x99;
	p[1] = (uint8_t)((csl ? 1 : 0) | (csd ? 2 : 0));
	return p + 2;
}

/* MODE.TSX: bit 0 InTX, bit 1 TXAbort. */
static inline uint8_t *pte_mode_tsx(uint8_t *p, unsigned bits)
{
	p[0] = 0x99;
	p[1] = (uint8_t)(0x20 | (bits & 3));
	return p + 2;
}

static inline uint8_t *pte_pads(uint8_t *p, unsigned n)
{
	memset(p, 0, n);
	return p + n;
}

#endif
