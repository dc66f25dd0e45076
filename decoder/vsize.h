/* vsize -- packet sizes at every byte of a block, by vector compares: the
 * sparse skim loops of phase 2 (index_sum.c) and of the time pass
 * (index_tskim.c). */
#ifndef PTDEC_VSIZE_H
#define PTDEC_VSIZE_H

#if defined(__x86_64__)
#include <immintrin.h>
#include <stdint.h>

/*
 * The size of a packet starting at each of the 16 bytes at @p (which may
 * read 17), for the headers of the packets most traces are made of:
 * one-byte ones, tip/fup by their IP bytes, a cyc with one extension byte
 * and, unless @time (the time pass stops at them), mtc and mode.exec/tsx;
 * 0 for any other (the caller's scalar loop or pkt_next() sizes those).
 * The same sizes as pkt_next()'s: test_index's test_skim_sizes checks
 * every first two bytes, both ways (and vsize32()'s).
 */
static inline __attribute__((always_inline)) __m128i
vsize16(const uint8_t *p, const int time)
{
	const __m128i z = _mm_setzero_si128(), c1 = _mm_set1_epi8(1);
	const __m128i c7 = _mm_set1_epi8(7);
	__m128i v = _mm_loadu_si128((const __m128i *)p);
	__m128i v1 = _mm_loadu_si128((const __m128i *)(p + 1));
	__m128i lo3 = _mm_and_si128(v, c7);
	/* pad, tnt.8 (even, not 02) and a one-byte cyc */
	__m128i one = _mm_or_si128(
		_mm_andnot_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(2)),
				 _mm_cmpeq_epi8(_mm_and_si128(v, c1), z)),
		_mm_cmpeq_epi8(lo3, _mm_set1_epi8(3)));
	/* cyc with one extension byte (its low bit clear); mtc, mode below */
	__m128i two = _mm_and_si128(_mm_cmpeq_epi8(lo3, c7),
				    _mm_cmpeq_epi8(_mm_and_si128(v1, c1), z));
	/* tip, tip.pge, tip.pgd, fup: 1 + the IP bytes of bits 7..5 */
	__m128i t = _mm_and_si128(v, _mm_set1_epi8(0x1f));

	__m128i tipf = _mm_or_si128(
		_mm_or_si128(_mm_cmpeq_epi8(t, c1), _mm_cmpeq_epi8(t, _mm_set1_epi8(0x0d))),
		_mm_or_si128(_mm_cmpeq_epi8(t, _mm_set1_epi8(0x11)),
			     _mm_cmpeq_epi8(t, _mm_set1_epi8(0x1d))));
	__m128i h = _mm_and_si128(v, _mm_set1_epi8((char)0xe0));
	__m128i h4 = _mm_cmpeq_epi8(h, _mm_set1_epi8((char)0x80));
	__m128i h6 = _mm_cmpeq_epi8(h, _mm_set1_epi8((char)0xc0));
	__m128i bad = _mm_or_si128(_mm_cmpeq_epi8(h, _mm_set1_epi8((char)0xa0)),
				   _mm_cmpeq_epi8(h, _mm_set1_epi8((char)0xe0)));
	/* 1 + 2 * (bits 7..5) up to 3; 7 for 4 (6 bytes), 9 for 6 (8) */
	__m128i hs = _mm_add_epi8(_mm_and_si128(_mm_srli_epi16(v, 4), _mm_set1_epi8(0x0e)), c1);

	if (!time)
		two = _mm_or_si128(two, _mm_or_si128(
			_mm_cmpeq_epi8(v, _mm_set1_epi8(0x59)),
			_mm_and_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8((char)0x99)),
				      _mm_cmpeq_epi8(_mm_and_si128(v1, _mm_set1_epi8((char)0xc0)), z))));

	hs = _mm_or_si128(_mm_andnot_si128(_mm_or_si128(_mm_or_si128(h4, h6), bad), hs),
			  _mm_or_si128(_mm_and_si128(h4, c7),
				       _mm_and_si128(h6, _mm_set1_epi8(9))));
	return _mm_or_si128(_mm_or_si128(_mm_and_si128(one, c1),
					 _mm_and_si128(two, _mm_set1_epi8(2))),
			    _mm_and_si128(tipf, hs));
}

/*
 * vsize16() for the 64 bytes at @p (it reads 65) into @sz, and into @sz2
 * the bytes to the packet after the next where vsize64_avx2() can tell
 * them (SSE2 has no byte shuffle: here only to the next).
 */
static inline __attribute__((always_inline)) void
vsize64_sse2(const uint8_t *p, uint8_t *sz, uint8_t *sz2, const int time)
{
	int h;

	for (h = 0; h < 64; h += 16) {
		__m128i v = vsize16(p + h, time);

		_mm_storeu_si128((__m128i *)(sz + h), v);
		_mm_storeu_si128((__m128i *)(sz2 + h), v);
	}
}

/* vsize16() 32 bytes at a time, the IP sizes from a table (vpshufb). */
__attribute__((target("avx2")))
static inline __m256i vsize32(const uint8_t *p, const int time)
{
	const __m256i z = _mm256_setzero_si256(), c1 = _mm256_set1_epi8(1);
	const __m256i c7 = _mm256_set1_epi8(7);
	__m256i v = _mm256_loadu_si256((const __m256i *)p);
	__m256i v1 = _mm256_loadu_si256((const __m256i *)(p + 1));
	__m256i lo3 = _mm256_and_si256(v, c7);
	__m256i one = _mm256_or_si256(
		_mm256_andnot_si256(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(2)),
				    _mm256_cmpeq_epi8(_mm256_and_si256(v, c1), z)),
		_mm256_cmpeq_epi8(lo3, _mm256_set1_epi8(3)));
	__m256i two = _mm256_and_si256(_mm256_cmpeq_epi8(lo3, c7),
				       _mm256_cmpeq_epi8(_mm256_and_si256(v1, c1), z));
	__m256i t = _mm256_and_si256(v, _mm256_set1_epi8(0x1f));
	__m256i tipf = _mm256_or_si256(
		_mm256_or_si256(_mm256_cmpeq_epi8(t, c1), _mm256_cmpeq_epi8(t, _mm256_set1_epi8(0x0d))),
		_mm256_or_si256(_mm256_cmpeq_epi8(t, _mm256_set1_epi8(0x11)),
				_mm256_cmpeq_epi8(t, _mm256_set1_epi8(0x1d))));
	/* 1 + the IP bytes of bits 7..5 (0 where reserved), per 128-bit lane */
	__m256i hs;

	if (!time)
		two = _mm256_or_si256(two, _mm256_or_si256(
			_mm256_cmpeq_epi8(v, _mm256_set1_epi8(0x59)),
			_mm256_and_si256(_mm256_cmpeq_epi8(v, _mm256_set1_epi8((char)0x99)),
					 _mm256_cmpeq_epi8(_mm256_and_si256(v1, _mm256_set1_epi8((char)0xc0)), z))));
	hs = _mm256_shuffle_epi8(
		_mm256_setr_epi8(1, 3, 5, 7, 7, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0,
				 1, 3, 5, 7, 7, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0),
		_mm256_and_si256(_mm256_srli_epi16(v, 5), c7));

	return _mm256_or_si256(_mm256_or_si256(_mm256_and_si256(one, c1),
					       _mm256_and_si256(two, _mm256_set1_epi8(2))),
			       _mm256_and_si256(tipf, hs));
}

/*
 * vsize64_sse2() with vsize32(), and @sz2 the bytes to the packet after
 * the next where both are sized and the next starts in the same 16 bytes
 * (a byte shuffle of the sizes by where the next starts), else to the
 * next: the loop then steps over two packets at a time, half the chain.
 */
__attribute__((target("avx2")))
static inline void vsize64_avx2(const uint8_t *p, uint8_t *sz, uint8_t *sz2,
				const int time)
{
	const __m256i lane = _mm256_setr_epi8(
		0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
		0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
	int h;

	for (h = 0; h < 64; h += 32) {
		__m256i v = vsize32(p + h, time);
		__m256i n = _mm256_add_epi8(lane, v);
		/* past the lane: an index with bit 7 set shuffles in 0 */
		/* (a packet not sized points at itself: 0 again) */
		__m256i v2 = _mm256_shuffle_epi8(v, _mm256_or_si256(n,
			_mm256_cmpgt_epi8(n, _mm256_set1_epi8(15))));

		_mm256_storeu_si256((__m256i *)(sz + h), v);
		_mm256_storeu_si256((__m256i *)(sz2 + h), _mm256_add_epi8(v, v2));
	}
}

/*
 * For the 32 bytes at @p (two 16-byte lanes; it reads 33): vsize32()'s
 * sizes into @sz, and for each byte the walk over its lane from a packet
 * starting there: into @rch the packets it meets (bits of the lane, the
 * first included), into @ext where it leaves: the lane's byte ext & 0x7f,
 * past the lane (16 or more), or, with 0x80 set, a packet the sizes leave
 * to others (the walk stops there).  A lane's 16 walks are found together
 * by doubling: each byte's walk so far is joined with the walk from where
 * it got to (a byte shuffle), four times, for 16 packets at most in a lane.
 * A byte not sized points at itself and stays there.
 */
__attribute__((target("avx2")))
static inline void vsize_walk32(const uint8_t *p, uint8_t *sz, uint8_t *ext,
				uint16_t *rch, const int time)
{
	const __m256i jrel = _mm256_setr_epi8(
		0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
		0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
	const __m256i blo = _mm256_setr_epi8(
		1, 2, 4, 8, 16, 32, 64, (char)128, 0, 0, 0, 0, 0, 0, 0, 0,
		1, 2, 4, 8, 16, 32, 64, (char)128, 0, 0, 0, 0, 0, 0, 0, 0);
	const __m256i bhi = _mm256_setr_epi8(
		0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 64, (char)128,
		0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 64, (char)128);
	const __m256i c15 = _mm256_set1_epi8(15), c80 = _mm256_set1_epi8((char)0x80);
	__m256i v = vsize32(p, time);
	__m256i none = _mm256_cmpeq_epi8(v, _mm256_setzero_si256());
	__m256i nx = _mm256_add_epi8(jrel, v);
	__m256i rlo = _mm256_andnot_si256(none, blo);
	__m256i rhi = _mm256_andnot_si256(none, bhi);
	__m256i ul, uh;
	int r;

	_mm256_storeu_si256((__m256i *)sz, v);
	for (r = 0; r < 4; r++) {
		/* past the lane: stays (an index with bit 7 shuffles in 0) */
		__m256i past = _mm256_cmpgt_epi8(nx, c15);
		__m256i idx = _mm256_or_si256(nx, _mm256_and_si256(past, c80));

		rlo = _mm256_or_si256(rlo, _mm256_shuffle_epi8(rlo, idx));
		rhi = _mm256_or_si256(rhi, _mm256_shuffle_epi8(rhi, idx));
		nx = _mm256_blendv_epi8(_mm256_shuffle_epi8(nx, idx), nx, past);
	}
	/* still within the lane: at a byte not sized */
	_mm256_storeu_si256((__m256i *)ext, _mm256_or_si256(nx,
		_mm256_andnot_si256(_mm256_cmpgt_epi8(nx, c15), c80)));
	ul = _mm256_unpacklo_epi8(rlo, rhi);
	uh = _mm256_unpackhi_epi8(rlo, rhi);
	_mm256_storeu_si256((__m256i *)rch, _mm256_permute2x128_si256(ul, uh, 0x20));
	_mm256_storeu_si256((__m256i *)(rch + 16), _mm256_permute2x128_si256(ul, uh, 0x31));
}

/* The 32 bits of @m as bytes: 0xff where set. */
__attribute__((target("avx2")))
static inline __m256i vsize_bytes(uint32_t m)
{
	const __m256i pick = _mm256_setr_epi8(
		0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
		2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
	const __m256i bit = _mm256_set1_epi64x((long long)0x8040201008040201ull);
	__m256i v = _mm256_shuffle_epi8(_mm256_set1_epi32((int)m), pick);

	return _mm256_cmpeq_epi8(_mm256_and_si256(v, bit), bit);
}

#endif

#endif
