/* index_sum -- phase 2: a summary of every PSB segment. */
#include <endian.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "index_int.h"
#include "vsize.h"

/*
 * Phase 2: one pass over a segment.
 */
static uint8_t pkt_cls[PKT_NTYPES];
static pthread_once_t cls_once = PTHREAD_ONCE_INIT;
static pthread_once_t skim_once = PTHREAD_ONCE_INIT;

static void cls_fill(void)
{
	int t;

	for (t = 0; t < PKT_NTYPES; t++)
		pkt_cls[t] = (uint8_t)pkt_type_class((enum pkt_type)t);
}

/* A TSC of value @tsc into @s's first, last and going back (its count
 * is the caller's). */
static inline void sum_tsc(struct idx_summary *s, uint64_t tsc)
{
	if (!s->have_tsc)
		s->first_tsc = tsc;
	else if (tsc < s->last_tsc)
		s->tsc_back = 1;
	s->have_tsc = 1;
	s->last_tsc = tsc;
}

void idx_sum_count(struct idx_summary *s, const struct pkt *pkt)
{
	s->npackets++;
	s->per_class[pkt_cls[pkt->type]]++;
	switch (pkt->type) {
	case PKT_TSC:
		sum_tsc(s, pkt->u.tsc);
		break;
	case PKT_CYC:
		s->cycles += pkt->u.cyc;
		if (pkt->u.cyc > s->max_cyc)
			s->max_cyc = pkt->u.cyc;
		break;
	case PKT_OVF:
		s->novf++;
		break;
	default:
		break;
	}
}

void idx_sum_error(struct idx_summary *s, int err)
{
	s->npackets++;
	s->per_class[PKC_ERROR]++;
	if (err == -pte_gap)
		s->ngaps++;
	else
		s->nerrors++;
}

/*
 * Inside a segment, which may be many megabytes long: every CANCEL_STEP
 * bytes, credit the bytes done since the last call (*@credited holds
 * what was credited so far of the @done bytes of this segment) and look
 * for a cancel.  Returns -pte_canceled or 0.
 */
int idx_pace(struct idx *idx, uint64_t done, uint64_t *credited)
{
	if (!idx)
		return 0;
	atomic_fetch_add_explicit(&idx->done, done - *credited,
				  memory_order_relaxed);
	*credited = done;
	return atomic_load_explicit(&idx->cancel, memory_order_relaxed) ?
	       -pte_canceled : 0;
}

/*
 * A skimming pass for the summaries: the packets that make up nearly all
 * of a trace (tnt.8, pad, one-byte cyc, tip/fup, mtc, psbend, cbr, tma,
 * pip) are sized and classed from one or two bytes by table; everything
 * else, and anything near the end, goes through pkt_next(), so the counts
 * are exactly those of a pkt_next() walk (tests/test_index.c checks).
 */
uint8_t idx_skim_size[256];	/* 0: ask pkt_next() */
static uint64_t skim_inc[256];	/* 1 << 8 * class */
static uint8_t skim_cyc[256];	/* cycles of a one-byte cyc */
static uint8_t skim_ext_size[256];	/* 02 xx, by xx */
static uint64_t skim_ext_inc[256];
/* skim_vec_sse2()'s, for every header vsize16() sizes: the class, and a
 * cyc's cycles from its first two bytes x (little-endian) as
 * (x >> 4 | 31) & vec_cyc: the first byte's bits 7..3, and with an
 * extension byte (0xfe0 set) that byte's bits 7..1 above them */
static uint64_t vec_inc[256];
static uint16_t vec_cyc[256];
#if defined(__x86_64__)
struct skim_acc;
static const uint8_t *skim_vec_sse2(const uint8_t *p, const uint8_t *fend,
				    struct skim_acc *a);
static const uint8_t *skim_walk_avx2(const uint8_t *p, const uint8_t *fend,
				     struct skim_acc *a);
/* The CPU's (skim_fill() picks): with AVX2, walks of whole lanes take
 * a quarter off phase 2 on a TIP-heavy trace. */
static const uint8_t *(*skim_vec)(const uint8_t *p, const uint8_t *fend,
				  struct skim_acc *a) = skim_vec_sse2;
#endif

#define INC(cls)	(1ull << 8 * (cls))

static void skim_fill(void)
{
	unsigned b;

	for (b = 0; b < 256; b++) {
		enum pkt_type type = PKT_INVALID;
		unsigned sz = pkt_first_byte(b, &type);
		enum pkt_class cls = sz ? pkt_type_class(type) : PKC_OTHER;

		if (type == PKT_CYC)
			skim_cyc[b] = (uint8_t)(b >> 3);
		idx_skim_size[b] = (uint8_t)sz;
		skim_inc[b] = sz ? INC(cls) : 0;
		vec_inc[b] = skim_inc[b];
		if ((b & 3) == 3) {
			vec_inc[b] = INC(PKC_TIMING);
			vec_cyc[b] = (uint16_t)(b >> 3 | ((b & 4) ? 0xfe0 : 0));
		}
	}
	vec_inc[0x99] = INC(PKC_MODE);
	skim_ext_size[0x23] = 2;	/* psbend */
	skim_ext_inc[0x23] = INC(PKC_SYNC);
	skim_ext_size[0x03] = 4;	/* cbr */
	skim_ext_inc[0x03] = INC(PKC_TIMING);
	skim_ext_size[0x73] = 7;	/* tma */
	skim_ext_inc[0x73] = INC(PKC_TIMING);
	skim_ext_size[0x43] = 8;	/* pip */
	skim_ext_inc[0x43] = INC(PKC_MODE);
	/* the power events and ptwrite, sized by their second byte: a
	 * trace of sleeps or writes otherwise leaves the fast loop at each */
	skim_ext_size[0x62] = skim_ext_size[0xe2] = 2;	/* exstop */
	skim_ext_size[0xc2] = 10;			/* mwait */
	skim_ext_size[0x22] = 4;			/* pwre */
	skim_ext_size[0xa2] = 7;			/* pwrx */
	skim_ext_inc[0x62] = skim_ext_inc[0xe2] = skim_ext_inc[0xc2] =
		skim_ext_inc[0x22] = skim_ext_inc[0xa2] = INC(PKC_POWER);
#if defined(__x86_64__)
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt"))
		skim_vec = skim_walk_avx2;
#endif
	skim_ext_size[0x12] = skim_ext_size[0x92] = 6;	/* ptw, 4 bytes */
	skim_ext_size[0x32] = skim_ext_size[0xb2] = 10;	/* and 8 */
	skim_ext_inc[0x12] = skim_ext_inc[0x92] = skim_ext_inc[0x32] =
		skim_ext_inc[0xb2] = INC(PKC_OTHER);
}

void idx_sum_init(void)
{
	pthread_once(&cls_once, cls_fill);
	pthread_once(&skim_once, skim_fill);
}

/* Add the byte-packed class counts @acc into @cnt. */
static inline void skim_flush(uint64_t acc, uint64_t *cnt)
{
	int c;

	for (c = 0; c < PKC_NCLASSES; c++)
		cnt[c] += (acc >> 8 * c) & 0xff;
}

#if defined(__x86_64__)
const uint8_t idx_skim_prefix[32] = {
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
};

/*
 * Count the leading one-byte packets (pad, tnt.8, one-byte cyc) among the
 * 16 bytes at @p, sixteen at a time: each such byte is a whole packet, so
 * the next one starts right after it.  Returns how many there were.
 */
static inline unsigned skim16(const uint8_t *p, uint64_t *cnt, uint64_t *cycles,
			     __m128i *vmax)
{
	const __m128i z = _mm_setzero_si128();
	__m128i v = _mm_loadu_si128((const __m128i *)p);
	__m128i cyc = _mm_cmpeq_epi8(_mm_and_si128(v, _mm_set1_epi8(7)),
				     _mm_set1_epi8(3));
	unsigned mpad = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, z));
	unsigned meven = (unsigned)_mm_movemask_epi8(
		_mm_cmpeq_epi8(_mm_and_si128(v, _mm_set1_epi8(1)), z));
	unsigned mtwo = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(2)));
	unsigned mcyc = (unsigned)_mm_movemask_epi8(cyc);
	unsigned ok = ((meven & ~mtwo) | mcyc) & 0xffff;
	unsigned j = ok == 0xffff ? 16 : (unsigned)__builtin_ctz(~ok);
	unsigned m = (1u << j) - 1, np, nc;

	if (!j)
		return 0;
	np = (unsigned)__builtin_popcount(mpad & m);
	nc = (unsigned)__builtin_popcount(mcyc & m);
	cnt[PKC_SYNC] += np;
	cnt[PKC_TIMING] += nc;
	cnt[PKC_BRANCH] += j - np - nc;
	if (mcyc & m) {
		__m128i val = _mm_and_si128(_mm_srli_epi16(v, 3), _mm_set1_epi8(0x1f));
		__m128i pre = _mm_loadu_si128((const __m128i *)(idx_skim_prefix + 16 - j));
		__m128i vals = _mm_and_si128(val, _mm_and_si128(cyc, pre));
		__m128i sad = _mm_sad_epu8(vals, z);

		*vmax = _mm_max_epu8(*vmax, vals);

		*cycles += (uint64_t)_mm_cvtsi128_si64(sad) +
			   (uint64_t)_mm_extract_epi16(sad, 4);
	}
	return j;
}
#endif

/* What a skim has counted so far, before it goes into the summary. */
struct skim_acc {
	struct idx_summary *sum;	/* TSCs go straight in: in order */
	uint64_t cnt[PKC_NCLASSES];	/* packets per class */
	uint64_t cycles, cmax;		/* CYC sum and largest */
#if defined(__x86_64__)
	__m128i vmax;			/* skim16()'s largest one-byte CYCs */
#endif
};

/*
 * The fast loop over [@p, @fend), which ends at least PKT_MAX_SIZE bytes
 * before the buffer does: no bounds checks (every fast packet is at most
 * 9 bytes), class counts packed in bytes of one register (flushed before
 * a byte can overflow), so the only chain from one packet to the next is
 * the size lookup.  Returns where it stopped: @fend, or a packet it does
 * not size (pkt_next() decodes that one).
 */
static inline __attribute__((always_inline)) const uint8_t *
skim_fast(const uint8_t *p, const uint8_t *fend, struct skim_acc *a)
{
	uint64_t acc = 0, cycles = a->cycles, cmax = a->cmax;
	unsigned k = 0;
#if defined(__x86_64__)
	__m128i vmax = a->vmax;
#endif

	while (p < fend) {
		unsigned b = *p, sz = idx_skim_size[b];

#if defined(__x86_64__)
		if (sz == 1) {
			unsigned j = skim16(p, a->cnt, &cycles, &vmax);

			if (j) {
				p += j;
				continue;
			}
		}
#endif
		acc += skim_inc[b];
		cycles += skim_cyc[b];
		cmax = skim_cyc[b] > cmax ? skim_cyc[b] : cmax;
		/* A branch, not arithmetic: predicted, it lets the next load
		 * start before this one's size is known. */
		if (__builtin_expect(sz == 1, 1)) {
			p++;
		} else if (sz) {
			p += sz;
		} else if (b == 0x99 && (p[1] >> 5) < 2) {
			/* mode.exec, mode.tsx */
			acc += INC(PKC_MODE);
			p += 2;
		} else if ((b & 7) == 7 && !(p[1] & 1)) {
			/* cyc with one extension byte */
			uint64_t v = (b >> 3) | (uint64_t)(p[1] >> 1) << 5;

			acc += INC(PKC_TIMING);
			cycles += v;
			cmax = v > cmax ? v : cmax;
			p += 2;
		} else if (b == 2 && p[1] == 0xa3 &&
			   (p[2] | p[3] | p[4] | p[5] | p[6] | p[7])) {
			/* tnt.64 (a zero payload is an error) */
			acc += INC(PKC_BRANCH);
			p += 8;
		} else if (b == 0x19) {
			/* tsc: 7 bytes, little-endian */
			uint64_t v;

			memcpy(&v, p, sizeof(v));
			sum_tsc(a->sum, le64toh(v) >> 8);
			acc += INC(PKC_TIMING);
			p += 8;
		} else {
			if (b != 2 || !(sz = skim_ext_size[p[1]]))
				break;
			acc += skim_ext_inc[p[1]];
			p += sz;
		}
		if (++k == 255) {
			skim_flush(acc, a->cnt);
			acc = 0;
			k = 0;
		}
	}
	skim_flush(acc, a->cnt);
	a->cycles = cycles;
	a->cmax = cmax;
#if defined(__x86_64__)
	a->vmax = vmax;
#endif
	return p;
}

#if defined(__x86_64__)
int idx_skim_sizes(const uint8_t *p, uint8_t out[64], uint8_t out2[64],
		   int avx2, int time)
{
	if (!avx2) {
		if (time)
			vsize64_sse2(p, out, out2, 1);
		else
			vsize64_sse2(p, out, out2, 0);
		return 0;
	}
	__builtin_cpu_init();
	if (!__builtin_cpu_supports("avx2"))
		return -pte_invalid;
	if (time)
		vsize64_avx2(p, out, out2, 1);
	else
		vsize64_avx2(p, out, out2, 0);
	return 0;
}

/*
 * skim_fast() for traces of few one-byte packets (TIP-heavy ones): its
 * chain from one packet to the next is a byte load, a table load and a
 * mispredicted branch where sizes vary.  Here the vector sizing gives the
 * size of a packet at every byte of a block at once, so the chain is one
 * load from the block's sizes and an add.  The same contract and counts
 * as skim_fast(); packets it does not size go to skim_fast() one at a
 * time.  Not inlined into skim(): its registers would crowd skim_fast()'s
 * loop there (dense traces were 20-45% slower).  With AVX2,
 * skim_walk_avx2() runs instead.
 */
/* Bytes a block: the loop leaves each once (a mispredicted branch). */
#define VEC_BLOCK	128

static __attribute__((noinline)) const uint8_t *
skim_vec_sse2(const uint8_t *p, const uint8_t *fend, struct skim_acc *a)
{
	_Alignas(32) uint8_t sz[VEC_BLOCK];
	uint64_t acc = 0, cycles = a->cycles, cmax = a->cmax;
	unsigned k = 0;
	size_t i = 0;	/* not unsigned: no zero-extension at each packet */
	int h;

	/* A block reads VEC_BLOCK + 1 bytes; its last packet may end 8
	 * past it. */
	while (fend - p >= VEC_BLOCK) {
		const uint8_t *q;

		for (h = 0; h < VEC_BLOCK; h += 16)
			_mm_store_si128((__m128i *)(sz + h), vsize16(p + h, 0));
		while (i < VEC_BLOCK) {
			size_t s = sz[i];
			uint16_t x;
			uint64_t v;

			if (__builtin_expect(!s, 0))
				break;
			memcpy(&x, p + i, sizeof(x));
			acc += vec_inc[x & 0xff];
			v = (uint64_t)((x >> 4 | 31) & vec_cyc[x & 0xff]);
			cycles += v;
			cmax = v > cmax ? v : cmax;
			i += s;
		}
		/* at most VEC_BLOCK packets a block: flushed before 255 */
		if (++k == 255 / VEC_BLOCK) {
			skim_flush(acc, a->cnt);
			acc = 0;
			k = 0;
		}
		if (i >= VEC_BLOCK) {
			p += VEC_BLOCK;
			i -= VEC_BLOCK;
			continue;
		}
		/* One packet vsize16() does not size. */
		skim_flush(acc, a->cnt);
		acc = 0;
		k = 0;
		a->cycles = cycles;
		a->cmax = cmax;
		q = skim_fast(p + i, p + i + 1, a);
		if (q == p + i)
			return q;
		cycles = a->cycles;
		cmax = a->cmax;
		p = q;
		i = 0;
	}
	skim_flush(acc, a->cnt);
	a->cycles = cycles;
	a->cmax = cmax;
	return skim_fast(p + i, fend, a);
}

/* What skim_walk_avx2() has counted: into @a. */
__attribute__((target("avx2,popcnt")))
static inline void walk_fold(struct skim_acc *a, uint64_t cycles, __m256i vmax)
{
	_Alignas(32) uint16_t m[16];
	int j;

	a->cycles = cycles;
	_mm256_store_si256((__m256i *)m, vmax);
	for (j = 0; j < 16; j++)
		a->cmax = m[j] > a->cmax ? m[j] : a->cmax;
}

/* The 4 64-bit lanes of @v, added. */
__attribute__((target("avx2,popcnt")))
static inline uint64_t walk_hsum(__m256i v)
{
	__m128i x = _mm_add_epi64(_mm256_castsi256_si128(v),
				  _mm256_extracti128_si256(v, 1));

	return (uint64_t)_mm_cvtsi128_si64(x) + (uint64_t)_mm_extract_epi64(x, 1);
}

/*
 * skim_vec_sse2() with AVX2 and no chain from packet to packet: for each
 * block, vsize_walk32() gives the walks over its 16-byte lanes at once, a
 * walk of the block a lane a step collects where its packets start, and
 * the counts, cycles and largest CYC come from vector compares of those
 * packets' headers.  The same contract and counts as skim_fast().
 */
__attribute__((target("avx2,popcnt"), noinline))
static const uint8_t *
skim_walk_avx2(const uint8_t *p, const uint8_t *fend, struct skim_acc *a)
{
	const __m256i z = _mm256_setzero_si256();
	_Alignas(32) uint8_t sz[VEC_BLOCK], ext[VEC_BLOCK];
	_Alignas(32) uint16_t rch[VEC_BLOCK];
	__m256i vmax = z;	/* the largest CYC, 16-bit lanes */
	uint64_t cycles = a->cycles;
	int h;

	/* A block reads VEC_BLOCK + 1 bytes; its last packet may end 8
	 * past it. */
	while (fend - p >= VEC_BLOCK) {
		unsigned __int128 starts = 0;
		__m256i vlo = z, vhi = z;
		uint64_t npad = 0, ntnt = 0, ncyc = 0, nmtc = 0, nmode = 0, nall = 0;
		size_t i = 0, end;
		int stop = 0, lim;
		const uint8_t *q;

		for (h = 0; h < VEC_BLOCK; h += 32)
			vsize_walk32(p + h, sz + h, ext + h, rch + h, 0);
		for (;;) {
			size_t base = i & ~(size_t)15;
			unsigned e = ext[i];

			starts |= (unsigned __int128)rch[i] << base;
			i = base + (e & 0x7f);
			if (e & 0x80) {
				stop = 1;
				break;
			}
			if (i >= VEC_BLOCK)
				break;
		}
		end = i;
		lim = end < VEC_BLOCK ? (int)end : VEC_BLOCK;
		for (h = 0; h < lim; h += 32) {
			__m256i v = _mm256_loadu_si256((const __m256i *)(p + h));
			__m256i v1 = _mm256_loadu_si256((const __m256i *)(p + h + 1));
			__m256i st = vsize_bytes((uint32_t)(starts >> h));
			__m256i lo3 = _mm256_and_si256(v, _mm256_set1_epi8(7));
			/* sized, bits 2..0 set: a cyc with an extension byte */
			__m256i c2 = _mm256_and_si256(st, _mm256_cmpeq_epi8(lo3, _mm256_set1_epi8(7)));
			__m256i cyc = _mm256_or_si256(c2, _mm256_and_si256(st,
				_mm256_cmpeq_epi8(lo3, _mm256_set1_epi8(3))));
			__m256i pad = _mm256_and_si256(st, _mm256_cmpeq_epi8(v, z));
			/* tnt.8: even, not a pad (02 is never sized) */
			__m256i tnt = _mm256_andnot_si256(pad, _mm256_and_si256(st,
				_mm256_cmpeq_epi8(_mm256_and_si256(v, _mm256_set1_epi8(1)), z)));
			__m256i mtc = _mm256_and_si256(st, _mm256_cmpeq_epi8(v, _mm256_set1_epi8(0x59)));
			__m256i mode = _mm256_and_si256(st, _mm256_cmpeq_epi8(v,
				_mm256_set1_epi8((char)0x99)));
			const __m256i lb = _mm256_set1_epi16(0xff);
			__m256i lo, hi, ev, od;

			npad += (uint64_t)__builtin_popcount((uint32_t)_mm256_movemask_epi8(pad));
			ntnt += (uint64_t)__builtin_popcount((uint32_t)_mm256_movemask_epi8(tnt));
			ncyc += (uint64_t)__builtin_popcount((uint32_t)_mm256_movemask_epi8(cyc));
			nmtc += (uint64_t)__builtin_popcount((uint32_t)_mm256_movemask_epi8(mtc));
			nmode += (uint64_t)__builtin_popcount((uint32_t)_mm256_movemask_epi8(mode));
			nall += (uint64_t)__builtin_popcount((uint32_t)_mm256_movemask_epi8(st));
			/* a cyc's cycles: bits 7..3, and its extension's 7..1 */
			lo = _mm256_and_si256(cyc, _mm256_and_si256(_mm256_srli_epi16(v, 3),
								 _mm256_set1_epi8(0x1f)));
			hi = _mm256_and_si256(c2, _mm256_and_si256(_mm256_srli_epi16(v1, 1),
								_mm256_set1_epi8(0x7f)));
			vlo = _mm256_add_epi64(vlo, _mm256_sad_epu8(lo, z));
			vhi = _mm256_add_epi64(vhi, _mm256_sad_epu8(hi, z));
			ev = _mm256_add_epi16(_mm256_and_si256(lo, lb),
					      _mm256_slli_epi16(_mm256_and_si256(hi, lb), 5));
			od = _mm256_add_epi16(_mm256_srli_epi16(lo, 8),
					      _mm256_slli_epi16(_mm256_srli_epi16(hi, 8), 5));
			vmax = _mm256_max_epu16(vmax, _mm256_max_epu16(ev, od));
		}
		a->cnt[PKC_SYNC] += npad;
		a->cnt[PKC_BRANCH] += ntnt;
		a->cnt[PKC_TIMING] += ncyc + nmtc;
		a->cnt[PKC_MODE] += nmode;
		a->cnt[PKC_IP] += nall - npad - ntnt - ncyc - nmtc - nmode;
		cycles += walk_hsum(vlo) + 32 * walk_hsum(vhi);
		if (!stop) {
			p += end;
			continue;
		}
		/* One packet vsize32() does not size. */
		walk_fold(a, cycles, vmax);
		vmax = z;
		q = skim_fast(p + end, p + end + 1, a);
		if (q == p + end)
			return q;
		cycles = a->cycles;
		p = q;
	}
	walk_fold(a, cycles, vmax);
	return skim_fast(p, fend, a);
}
#else
int idx_skim_sizes(const uint8_t *p, uint8_t out[64], uint8_t out2[64],
		   int avx2, int time)
{
	(void)p;
	(void)avx2;
	(void)time;
	memset(out, 0, 64);
	memset(out2, 0, 64);
	return -pte_invalid;
}
#endif

/* Add what @a counted to @s. */
static void skim_finish(const struct skim_acc *a, struct idx_summary *s)
{
	uint64_t cmax = a->cmax;
	int c;
#if defined(__x86_64__)
	uint8_t m[16];

	_mm_storeu_si128((__m128i *)m, a->vmax);
	for (c = 0; c < 16; c++)
		cmax = m[c] > cmax ? m[c] : cmax;
#endif
	s->cycles += a->cycles;
	if (cmax > s->max_cyc)
		s->max_cyc = cmax;
	for (c = 0; c < PKC_NCLASSES; c++) {
		s->per_class[c] += a->cnt[c];
		s->npackets += a->cnt[c];
	}
}

/* Packets counted in @a so far. */
static inline uint64_t skim_npackets(const struct skim_acc *a)
{
	uint64_t n = 0;
	int c;

	for (c = 0; c < PKC_NCLASSES; c++)
		n += a->cnt[c];
	return n;
}

/* Built twice, the CPU picking at load time: skim16's popcounts are one
 * instruction with POPCNT and a libgcc call without. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("popcnt", "default"), noinline))
#endif
static int skim(struct idx *idx, const uint8_t *p, const uint8_t *end,
		uint64_t off, struct idx_summary *s, uint64_t *credited,
		struct idx_skim_hint *hint)
{
	/* Pointers stay inside [p, end]: past the end is undefined. */
	const uint8_t *begin = p;
	const uint8_t *next = end - p > CANCEL_STEP ? p + CANCEL_STEP : end;
	struct pkt_decoder dec;
	struct pkt pkt;
	struct skim_acc a;
	int ret, status = 0;

	memset(&a, 0, sizeof(a));
	a.sum = s;
	pkt_decoder_init(&dec, p, end, off);
	while (p < end) {
		if (p >= next) {
			status = idx_pace(idx, (uint64_t)(p - begin), credited);
			if (status < 0)
				break;
			next = end - p > CANCEL_STEP ? p + CANCEL_STEP : end;
		}
		/* The fast loop stops every CANCEL_STEP bytes. */
		if (dec.bip_sz < 0 && end - p > PKT_MAX_SIZE) {
			const uint8_t *fend = end - PKT_MAX_SIZE < next ?
					      end - PKT_MAX_SIZE : next;
#if defined(__x86_64__)
			const uint8_t *from = p;
			uint64_t n0 = skim_npackets(&a);

			if (hint->sparse) {
				p = skim_vec(p, fend, &a);
				hint->vec_bytes += (uint64_t)(p - from);
			} else {
				p = skim_fast(p, fend, &a);
			}
			idx_skim_learn(hint, (uint64_t)(p - from), skim_npackets(&a) - n0);
#else
			p = skim_fast(p, fend, &a);
#endif
			if (p >= end)
				break;
			if (p >= next)
				continue;
		}
		dec.pos = p;
		ret = pkt_next(&dec, &pkt);
		if (ret == -pte_eos)
			break;
		if (ret < 0) {
			/* Counted as one error packet; the rest of the
			 * segment cannot be trusted. */
			idx_sum_error(s, ret);
			break;
		}
		idx_sum_count(s, &pkt);
		p = dec.pos;
	}
	skim_finish(&a, s);
	return status;
}

/* idx_sum_plain() for a segment ending at @end in span @sp of @img. */
static int span_plain(const struct img *img, const struct img_span *sp,
		      uint64_t end)
{
	/* Not when a gap cuts the last packet: the cursor tells that apart. */
	return end < sp->off + sp->size ||
	       (end == sp->off + sp->size && !img_gap_at(img, end));
}

int idx_sum_plain(const struct img *img, uint64_t off, uint64_t end)
{
	long si = img_span_of(img, off);

	return si >= 0 && span_plain(img, &img->spans[si], end);
}

int idx_summarise(struct idx *idx, const struct img *img, uint64_t off,
		  uint64_t end, struct idx_summary *s, uint64_t *credited,
		  struct idx_skim_hint *hint)
{
	struct idx_skim_hint own = IDX_SKIM_HINT_INIT;
	const struct img_span *sp;
	struct img_cursor cur;
	struct pkt pkt;
	uint64_t next = off + CANCEL_STEP;
	long si;
	int ret;

	memset(s, 0, sizeof(*s));
	s->size = end - off;
	si = img_span_of(img, off);
	if (si < 0)
		return 0;
	sp = &img->spans[si];
	if (span_plain(img, sp, end)) {
		/* The common case: one span, skimmed. */
		return skim(idx, sp->data + (off - sp->off),
			    sp->data + (end - sp->off), off, s, credited,
			    hint ? hint : &own);
	}
	if (img_cursor_init(&cur, img, off) < 0)
		return 0;
	while (img_cursor_offset(&cur) < end) {
		if (img_cursor_offset(&cur) >= next) {
			if (idx_pace(idx, img_cursor_offset(&cur) - off, credited) < 0)
				return -pte_canceled;
			next = img_cursor_offset(&cur) + CANCEL_STEP;
		}
		ret = img_cursor_next(&cur, &pkt);
		if (ret == -pte_eos)
			return 0;
		if (ret < 0 || img_cursor_offset(&cur) > end) {
			idx_sum_error(s, ret);
			/* data lost after the end: the error row is the last */
			if (ret != -pte_gap && end == img->size)
				s->ngaps += (uint32_t)img_gap_at(img, end);
			return 0;
		}
		idx_sum_count(s, &pkt);
	}
	/* Data lost right after the segment's last packet, before the next
	 * PSB: the segment it cut counts it (the window marks that PSB). */
	s->ngaps += (uint32_t)img_gap_at(img, end);
	return 0;
}

static int push_exc(struct unit2 *u, uint64_t seg, const struct idx_summary *s)
{
	if (u->n == u->cap) {
		size_t cap = u->cap ? u->cap * 2 : 16;
		struct sum_exc *p = realloc(u->exc, cap * sizeof(*p));

		if (!p)
			return -pte_nomem;
		u->exc = p;
		u->cap = cap;
	}
	u->exc[u->n].seg = seg;
	u->exc[u->n].full = *s;
	u->n++;
	return 0;
}

/* Store @s as segment @i's packed summary; 1 if it needs an exception. */
static int pack_summary(struct idx *idx, size_t i, const struct idx_summary *s)
{
	struct sum_packed *p = &idx->ublk[i >> BLK_SHIFT][i & BLK_MASK];
	int exc = 0, c;
	uint64_t span = s->last_tsc - s->first_tsc;

	memset(p, 0, sizeof(*p));
	for (c = 0; c < PKC_NCLASSES; c++) {
		if (s->per_class[c] > 0xffff)
			exc = 1;
		p->cnt[c] = (uint16_t)(s->per_class[c] > 0xffff ? 0xffff : s->per_class[c]);
	}
	if (s->cycles > 0xffffffffu || s->max_cyc > 0xffffffffu ||
	    idx_summary_trouble(s) || s->tsc_back ||
	    (s->have_tsc && (span > 0xffffffffu || s->first_tsc >> 56 ||
			     s->last_tsc < s->first_tsc)))
		exc = 1;
	p->cycles = (uint32_t)s->cycles;
	p->max_cyc = (uint32_t)s->max_cyc;
	p->tsc_span = (uint32_t)span;
	p->tsc_flags = (s->first_tsc & ((1ull << 56) - 1)) |
		       (uint64_t)((s->have_tsc ? SUM_TSC : 0) | (exc ? SUM_EXC : 0)) << 56;
	return exc;
}

int idx_sum_put(struct idx *idx, struct unit2 *u, size_t i,
		const struct idx_summary *s)
{
	return pack_summary(idx, i, s) ? push_exc(u, i, s) : 0;
}

/* Phase 2 worker body. */
static int sum_unit(struct idx *idx, struct unit2 *u)
{
	uint64_t size = idx->img->size, end;
	struct idx_summary s;
	size_t i, n = atomic_load(&idx->nseeks);
	int ret;

	for (i = u->s0; i < u->s1; i++) {
		uint64_t credited = 0;

		if (atomic_load_explicit(&idx->cancel, memory_order_relaxed))
			return -pte_canceled;
		end = i + 1 < n ? idx_seek_off(idx, i + 1) : size;
		if (idx_summarise(idx, idx->img, idx_seek_off(idx, i), end, &s,
				  &credited, &u->hint) < 0)
			return -pte_canceled;
		ret = idx_sum_put(idx, u, i, &s);
		if (ret < 0)
			return ret;
		atomic_fetch_add_explicit(&idx->done, s.size - credited,
					  memory_order_relaxed);
	}
	atomic_fetch_add_explicit(&idx->skim_vec_bytes, u->hint.vec_bytes,
				  memory_order_relaxed);
	u->hint.vec_bytes = 0;
	return 0;
}

int idx_skim_use_avx2(int avx2)
{
	idx_sum_init();
#if defined(__x86_64__)
	if (!avx2) {
		skim_vec = skim_vec_sse2;
		return idx_time_use_avx2(0);
	}
	/* (the time pass's needs BMI too: both switch, or neither) */
	if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("popcnt") ||
	    idx_time_use_avx2(1) < 0)
		return -pte_invalid;
	skim_vec = skim_walk_avx2;
	return 0;
#else
	(void)avx2;
	return -pte_invalid;
#endif
}

uint64_t idx_skim_vec_bytes(const struct idx *idx)
{
	return atomic_load(&idx->skim_vec_bytes);
}

static int sum_body(void *arg)
{
	struct idx_unit_arg *w = arg;

	return sum_unit(w->idx, &w->idx->u2[w->unit]);
}

/* Run phase 2 unit @k (struct pool_cfg.run), then drop its pages. */
static int sum_run(void *ctx, unsigned worker, size_t k)
{
	struct idx *idx = ctx;
	size_t s0 = idx->u2[k].s0, s1 = idx->u2[k].s1;
	size_t n = idx_nseeks(idx);
	int ret;

	(void)worker;
	ret = idx_unit_guarded(idx, sum_body, k);
	if (s1 > s0)
		idx_release_range(idx, idx_seek_off(idx, s0),
			      s1 < n ? idx_seek_off(idx, s1) : idx->img->size);
	return ret;
}

static int merge2(void *ctx, size_t k)
{
	struct idx *idx = ctx;

	return idx_sum_merge(idx, &idx->u2[k]);
}

int idx_sum_merge(struct idx *idx, struct unit2 *u)
{
	const struct sum_packed *p;
	size_t i, e = 0;
	uint64_t np;
	int c;

	pthread_mutex_lock(&idx->exc_lock);
	if (idx->nexc + u->n > idx->excap) {
		size_t cap = (idx->nexc + u->n) * 2;
		struct sum_exc *x = realloc(idx->exc, cap * sizeof(*x));

		if (!x)
			goto out_nomem;
		idx->exc = x;
		idx->excap = cap;
	}
	for (i = u->s0; i < u->s1; i++) {
		p = &idx->ublk[i >> BLK_SHIFT][i & BLK_MASK];
		if (!(i & ((1u << GRP_SHIFT) - 1)))
			idx->oblk[i >> BLK_SHIFT][(i & BLK_MASK) >> GRP_SHIFT] = idx->ord_next;
		if ((p->tsc_flags >> 56) & SUM_EXC) {
			const struct idx_summary *f = &u->exc[e].full;

			if (e >= u->n || u->exc[e].seg != i)
				goto out_internal;
			if (idx_summary_trouble(f)) {
				if (idx->ntrouble == idx->trcap) {
					size_t cap = idx->trcap ? idx->trcap * 2 : 64;
					uint64_t *t = realloc(idx->trouble, cap * sizeof(*t));

					if (!t)
						goto out_nomem;
					idx->trouble = t;
					idx->trcap = cap;
				}
				idx->trouble[idx->ntrouble++] = i;
			}
			idx->exc[idx->nexc++] = u->exc[e++];
			np = f->npackets;
			for (c = 0; c < PKC_NCLASSES; c++)
				idx->totals.per_class[c] += f->per_class[c];
			idx->totals.cycles += f->cycles;
			if (f->max_cyc > idx->totals.max_cyc)
				idx->totals.max_cyc = f->max_cyc;
			idx->totals.novf += f->novf;
			idx->totals.nerrors += f->nerrors;
			idx->totals.ngaps += f->ngaps;
		} else {
			np = 0;
			for (c = 0; c < PKC_NCLASSES; c++) {
				np += p->cnt[c];
				idx->totals.per_class[c] += p->cnt[c];
			}
			idx->totals.cycles += p->cycles;
			if (p->max_cyc > idx->totals.max_cyc)
				idx->totals.max_cyc = p->max_cyc;
		}
		if ((p->tsc_flags >> 56) & SUM_TSC) {
			uint64_t first = p->tsc_flags & ((1ull << 56) - 1);
			uint64_t last = first + p->tsc_span;

			if ((p->tsc_flags >> 56) & SUM_EXC) {
				first = idx->exc[idx->nexc - 1].full.first_tsc;
				last = idx->exc[idx->nexc - 1].full.last_tsc;
			}
			if (!idx->totals.have_tsc || first < idx->totals.first_tsc)
				idx->totals.first_tsc = first;
			if (!idx->totals.have_tsc || last > idx->totals.last_tsc)
				idx->totals.last_tsc = last;
			idx->totals.have_tsc = 1;
		}
		idx->totals.npackets += np;
		idx->ord_next += np;
	}
	pthread_mutex_unlock(&idx->exc_lock);
	atomic_store_explicit(&idx->nsums, u->s1, memory_order_release);
	free(u->exc);
	u->exc = NULL;
	u->n = u->cap = 0;
	return 0;

out_nomem:
	pthread_mutex_unlock(&idx->exc_lock);
	return -pte_nomem;
out_internal:
	pthread_mutex_unlock(&idx->exc_lock);
	return -pte_internal;
}

int idx_sum_reserve(struct idx *idx, size_t s0, size_t n)
{
	size_t i;

	for (i = s0 >> BLK_SHIFT; i <= (n ? (n - 1) >> BLK_SHIFT : 0) && n; i++) {
		if (!idx->ublk[i]) {
			idx->ublk[i] = malloc(BLK_SIZE * sizeof(struct sum_packed));
			if (!idx->ublk[i])
				return -pte_nomem;
		}
		if (!idx->oblk[i]) {
			idx->oblk[i] = malloc((BLK_SIZE >> GRP_SHIFT) * sizeof(uint64_t));
			if (!idx->oblk[i])
				return -pte_nomem;
		}
	}
	return 0;
}

int idx_phase2(struct idx *idx)
{
	size_t n = idx_nseeks(idx), s0 = atomic_load(&idx->nsums), i, k, nu;
	uint64_t acc, bytes;
	int ret;

	ret = idx_sum_reserve(idx, s0, n);
	if (ret < 0)
		return ret;
	/* Units of about a chunk of bytes each, whole segments. */
	nu = 0;
	acc = 0;
	for (i = s0; i < n; i++) {
		bytes = (i + 1 < n ? idx_seek_off(idx, i + 1) : idx->img->size) - idx_seek_off(idx, i);
		acc += bytes;
		if (acc >= idx->chunk || i + 1 == n) {
			nu++;
			acc = 0;
		}
	}
	idx->u2 = calloc(nu ? nu : 1, sizeof(*idx->u2));
	if (!idx->u2)
		return -pte_nomem;
	k = 0;
	acc = 0;
	idx->u2[0].s0 = s0;
	for (i = s0; i < n; i++) {
		bytes = (i + 1 < n ? idx_seek_off(idx, i + 1) : idx->img->size) - idx_seek_off(idx, i);
		acc += bytes;
		if (acc >= idx->chunk || i + 1 == n) {
			idx->u2[k].s1 = i + 1;
			k++;
			if (k < nu)
				idx->u2[k].s0 = i + 1;
			acc = 0;
		}
	}
	idx->nunits = nu;
	idx->total = n > s0 ? idx->img->size - idx_seek_off(idx, s0) : 0;
	ret = idx_run_units(idx, sum_run, merge2);
	idx_free_units(idx);
	return ret;
}

