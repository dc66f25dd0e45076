/* index_time -- phase 3: the time model over the whole stream. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "index_int.h"
#include "vsize.h"

/*
 * Phase 3: the time model over the whole stream, in order.
 */

/* A timing packet came: the model's estimate is its time. */
static inline void gacc_at(struct gacc *g, const struct tm_model *tm, uint64_t off)
{
	uint64_t t = (uint64_t)(tm->est >> 32);

	if (!g->has_first) {
		g->has_first = 1;
		g->first = t;
		g->first_off = off;
	} else if (t >= g->prev && (!g->has_rest || t - g->prev > g->rest)) {
		g->has_rest = 1;
		g->rest = t - g->prev;
		g->rest_off = off;
	}
	g->has_prev = 1;
	g->prev = t;
}

/* After a packet ending at @off that may end a clean period (a TSC, TMA
 * or MTC): a new period, if the model measured one, goes into @g's. */
static inline void gacc_per(struct gacc *g, const struct tm_model *tm,
			    uint64_t off)
{
	struct pacc *a = &g->per;
	struct tm_period p;
	uint64_t lo, hi;

	if (tm->nhalt != g->hseq) {
		/* an anchor closes one sleep at most */
		g->hseq = tm_last_halt(tm, &lo, &hi);
		a->nhalt++;
		a->halt_lo += lo;
		a->halt_hi += hi;
	}
	if (tm->nper == g->pseq)
		return;
	g->pseq = tm->nper;
	tm_last_period(tm, &p);
	p.seq = 0;
	if (!a->has || tm_period_cmp(&p, &a->slow) < 0) {
		a->slow = p;
		a->slow_off = off;
	}
	if (!a->has || tm_period_cmp(&p, &a->fast) > 0)
		a->fast = p;
	a->has = 1;
}

/* A new segment begins for @g. */
static void gacc_segment(struct gacc *g)
{
	g->has_first = 0;
	g->has_rest = 0;
	memset(&g->per, 0, sizeof(g->per));
}

/* Put the periods @a into @out. */
static void pacc_put(struct tsum *out, const struct pacc *a)
{
	out->has_per = (uint8_t)a->has;
	out->slow_off = a->slow_off;
	out->slow_ticks = a->slow.ticks;
	out->slow_frac = a->slow.ticks_frac;
	out->slow_cyc = a->slow.cycles;
	out->fast_ticks = a->fast.ticks;
	out->fast_frac = a->fast.ticks_frac;
	out->fast_cyc = a->fast.cycles;
	out->nhalt = a->nhalt;
	out->halt_lo = a->halt_lo;
	out->halt_hi = a->halt_hi;
}

/* Segment @i's gaps from @g's view of it and the timing packet before it
 * (@has_prev, @prev). */
static void gacc_sum(struct tsum *out, int has_prev, uint64_t prev,
		     int has_first, uint64_t first, int has_rest, uint64_t rest,
		     int has_last, uint64_t last, uint64_t first_off, uint64_t rest_off)
{
	memset(out, 0, sizeof(*out));
	out->has_gap = (uint8_t)has_rest;
	out->gap = has_rest ? rest : 0;
	out->gap_off = has_rest ? rest_off : 0;
	/* the first packet's gap wins a tie: it is the earlier packet */
	if (has_first && has_prev && first >= prev &&
	    (!out->has_gap || first - prev >= out->gap)) {
		out->has_gap = 1;
		out->gap = first - prev;
		out->gap_off = first_off;
	}
	out->has_last = (uint8_t)has_last;
	out->last = has_last ? last : 0;
}

/* Store segment @i's time summary; the caller publishes it. */
static int tsum_put(struct idx *idx, size_t i, const struct tsum *t)
{
	if (!idx->gblk[i >> BLK_SHIFT]) {
		idx->gblk[i >> BLK_SHIFT] = malloc(BLK_SIZE * sizeof(struct tsum));
		if (!idx->gblk[i >> BLK_SHIFT])
			return -pte_nomem;
	}
	idx->gblk[i >> BLK_SHIFT][i & BLK_MASK] = *t;
	return 0;
}

/* Store @g's summary of segment @i (decoded with the true state). */
static int tsum_from(struct idx *idx, size_t i, const struct gacc *g,
		     int has_prev0, uint64_t prev0)
{
	struct tsum t;

	gacc_sum(&t, has_prev0, prev0, g->has_first, g->first, g->has_rest,
		 g->rest, g->has_prev, g->prev, g->first_off, g->rest_off);
	pacc_put(&t, &g->per);
	return tsum_put(idx, i, &t);
}

/*
 * The time pass's skim: the packets that make up nearly all of a trace
 * are sized from their first byte; CYCs and MTCs go to the model, and of
 * the others only the first CYC-eligible one after a packet the model
 * acted on (it may settle a pending CYC: tm_advance() does nothing else
 * for them).  Everything else, and anything near the end, goes through
 * pkt_next(), so the model sees what a pkt_next() walk feeds it.
 */
static uint8_t tsk_size[256];	/* 0: ask pkt_next() */
static uint8_t tsk_type[256];	/* enum pkt_type of the sized ones */
static pthread_once_t tsk_once = PTHREAD_ONCE_INIT;

/*
 * Phase 3 also summarises the segments when it runs right after phase 1
 * (idx_phase3_sums()): the skim that feeds the model counts packets per
 * class as phase 2's does.  The packets the fast loop sizes fall in four
 * classes, counted in 16-bit lanes of one register (struct tcnt.acc);
 * a fast loop is given at most TC_STEP bytes, and its 16-byte steps
 * (tsk16(), tsk_plain16()) may pass their end by 15, so no lane
 * overflows.
 */
#define TC_SYNC		0		/* lane shifts */
#define TC_BRANCH	16
#define TC_IP		32
#define TC_TIMING	48
#define TC_STEP		(65535u - 15)
static uint64_t tsk_inc[256];	/* the sized ones' lane, 1 << TC_* */

#if defined(__x86_64__)
/*
 * tsk_vec()'s table, for every header vsize16(p, 1) sizes: with x the
 * packet's first two bytes (little-endian), (x >> 4 | TV_VAL) & tv_tab[b]
 * holds a cyc's cycles in bits 19..0 (as index_sum.c's vec_cyc gives
 * them) and a one in the packet's field; bit 63 marks the CYC-eligible
 * ones.  Summed over a block (at most TV_BLOCK packets, each field 8
 * bits), the fields count the packets by kind; the cyc's field is the
 * highest, so the largest sum of one packet is the largest cyc's.
 */
#define TV_BLOCK	128		/* bytes sized at once */
#define TV_CYCLES	0xfffffull	/* a block's cycles: < 2^18 */
#define TV_SYNC		20		/* pad */
#define TV_BRANCH	28		/* tnt.8 */
#define TV_IP		36		/* tip, tip.pge, tip.pgd */
#define TV_FUP		44		/* (not CYC-eligible) */
#define TV_CYC		52
#define TV_ELIG		63
#define TV_VAL		(31ull | 1ull << TV_SYNC | 1ull << TV_BRANCH | \
			 1ull << TV_IP | 1ull << TV_FUP | 1ull << TV_CYC)
#define TV_FIELD(v, f)	((v) >> (f) & 0xff)
static uint64_t tv_tab[256];
#endif

/* What the summarising skim counted so far, beside the summary. */
struct tcnt {
	uint64_t acc;			/* packets, by TC_* lanes */
	uint64_t cycles, cmax;		/* CYC sum and largest */
#if defined(__x86_64__)
	__m128i vmax;			/* tsk16()'s largest one-byte CYCs */
#endif
};

#if defined(__x86_64__)
struct tbatch;
struct tvblk;
typedef const uint8_t *tsk_vec_fn(const uint8_t *p, const uint8_t *fend,
				  struct tvblk *vb, struct tbatch *bt,
				  struct tcnt *c, uint64_t *np);
static tsk_vec_fn tsk_vec_sse2, tsk_vec_avx2, tsk_vec_sse2_c, tsk_vec_avx2_c;
/* The CPU's (tsk_fill() picks), without and with counts. */
static tsk_vec_fn *tsk_vec = tsk_vec_sse2, *tsk_vec_c = tsk_vec_sse2_c;
#endif

static void tsk_fill(void)
{
	static const int8_t ipsz[8] = { 0, 2, 4, 6, 6, -1, 8, -1 };
	unsigned b;

	for (b = 0; b < 256; b++) {
		if (b == 0) {
			tsk_size[b] = 1;
			tsk_type[b] = PKT_PAD;
			tsk_inc[b] = 1ull << TC_SYNC;
		} else if (b != 2 && !(b & 1)) {
			tsk_size[b] = 1;
			tsk_type[b] = PKT_TNT8;
			tsk_inc[b] = 1ull << TC_BRANCH;
		} else if (((b & 0x1f) == 0x0d || (b & 0x1f) == 0x11 ||
			    (b & 0x1f) == 0x01 || (b & 0x1f) == 0x1d) &&
			   ipsz[b >> 5] >= 0) {
			tsk_size[b] = (uint8_t)(1 + ipsz[b >> 5]);
			tsk_type[b] = (b & 0x1f) == 0x0d ? PKT_TIP :
				      (b & 0x1f) == 0x11 ? PKT_TIP_PGE :
				      (b & 0x1f) == 0x01 ? PKT_TIP_PGD : PKT_FUP;
			tsk_inc[b] = 1ull << TC_IP;
		}
	}
#if defined(__x86_64__)
	for (b = 0; b < 256; b++) {
		if ((b & 3) == 3)
			tv_tab[b] = (b >> 3 | ((b & 4) ? 0xfe0u : 0)) | 1ull << TV_CYC;
		else if (!tsk_size[b])
			continue;
		else if (tsk_type[b] == PKT_PAD)
			tv_tab[b] = 1ull << TV_SYNC;
		else if (tsk_type[b] == PKT_TNT8)
			tv_tab[b] = 1ull << TV_BRANCH;
		else if (tsk_type[b] == PKT_FUP)
			tv_tab[b] = 1ull << TV_FUP;
		else
			tv_tab[b] = 1ull << TV_IP;
		if (pkt_cyc_eligible_mask >> tsk_type[b] & 1)
			tv_tab[b] |= 1ull << TV_ELIG;
	}
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi")) {
		tsk_vec = tsk_vec_avx2;
		tsk_vec_c = tsk_vec_avx2_c;
	}
#endif
}

#if defined(__x86_64__)
/*
 * In a run of CYCs (struct batch of time_skim()): the leading pads, tnt.8s
 * and CYCs of one or two bytes among the 16 bytes at @p (which may read
 * 17), sixteen bytes at a time, as skim16() does.  A two-byte CYC's
 * header (bits 2..0 all set) is never another packet's byte, and its
 * extension byte (bit 0 clear) never such a header, so the extensions are
 * the bytes after those headers.  Adds the CYCs to *@sum and *@n; a tnt.8
 * (CYC-eligible) among them sets *@set and restarts the tail; the CYCs
 * after the last one go to *@tail and *@tail_n.  Adds the packets to
 * *@np.  Returns how many bytes.
 */
static inline __attribute__((always_inline)) unsigned
tsk16(const uint8_t *p, uint64_t *sum, uint64_t *n,
      int *set, uint64_t *tail, uint64_t *tail_n, struct tcnt *c, uint64_t *np)
{
	const __m128i z = _mm_setzero_si128();
	__m128i v = _mm_loadu_si128((const __m128i *)p);
	__m128i v1 = _mm_loadu_si128((const __m128i *)(p + 1));
	__m128i lo3 = _mm_and_si128(v, _mm_set1_epi8(7));
	__m128i cyc1 = _mm_cmpeq_epi8(lo3, _mm_set1_epi8(3));
	/* two-byte CYCs: the header, and its extension byte after it */
	__m128i cyc2 = _mm_and_si128(_mm_cmpeq_epi8(lo3, _mm_set1_epi8(7)),
				     _mm_cmpeq_epi8(_mm_and_si128(v1, _mm_set1_epi8(1)), z));
	__m128i ext = _mm_slli_si128(cyc2, 1);
	unsigned mpad = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, z));
	unsigned meven = (unsigned)_mm_movemask_epi8(
		_mm_cmpeq_epi8(_mm_and_si128(v, _mm_set1_epi8(1)), z));
	unsigned mtwo = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(2)));
	unsigned mcyc = (unsigned)_mm_movemask_epi8(cyc1);
	/* (a header in the last byte has its extension past them) */
	unsigned mc2 = (unsigned)_mm_movemask_epi8(cyc2) & 0x7fff;
	unsigned mext = mc2 << 1;
	unsigned ok = ((((meven & ~mtwo) | mcyc | mc2) & ~mext) | mext) & 0xffff;
	unsigned j = ok == 0xffff ? 16 : (unsigned)__builtin_ctz(~ok);
	unsigned m = (1u << j) - 1, mt, h, mc, nc;
	__m128i val, hi, pre, after, sad;
	uint64_t s;

	if (!j)
		return 0;
	mc2 &= m;
	mext &= m;
	mc = (mcyc | mc2) & m;
	nc = (unsigned)__builtin_popcount(mc);
	mt = meven & ~mpad & ~mtwo & ~mext & m;
	val = _mm_and_si128(_mm_and_si128(_mm_srli_epi16(v, 3), _mm_set1_epi8(0x1f)),
			    _mm_or_si128(cyc1, cyc2));
	hi = _mm_and_si128(_mm_and_si128(_mm_srli_epi16(v, 1), _mm_set1_epi8(0x7f)), ext);
	*np += j - (unsigned)__builtin_popcount(mext);
	if (c) {
		unsigned npd = (unsigned)__builtin_popcount(mpad & ~mext & m);

		c->acc += (uint64_t)npd << TC_SYNC |
			  (uint64_t)(j - (unsigned)__builtin_popcount(mext) - npd - nc) << TC_BRANCH |
			  (uint64_t)nc << TC_TIMING;
	}
	pre = _mm_loadu_si128((const __m128i *)(idx_skim_prefix + 16 - j));
	if (mc) {
		sad = _mm_add_epi64(_mm_sad_epu8(_mm_and_si128(val, pre), z),
				    _mm_slli_epi64(_mm_sad_epu8(_mm_and_si128(hi, pre), z), 5));
		/* (each half under 8 * (31 + 127 * 32): 16 bits) */
		s = (uint64_t)_mm_cvtsi128_si64(sad) + (uint64_t)_mm_extract_epi16(sad, 4);
		*sum += s;
		*n += nc;
		if (c) {
			unsigned k2;

			c->vmax = _mm_max_epu8(c->vmax, _mm_and_si128(_mm_and_si128(val, cyc1), pre));
			for (k2 = mc2; k2; k2 &= k2 - 1) {
				unsigned at = (unsigned)__builtin_ctz(k2);
				uint64_t cv = (uint64_t)(p[at] >> 3) | (uint64_t)(p[at + 1] >> 1) << 5;

				c->cmax = cv > c->cmax ? cv : c->cmax;
			}
		}
	} else {
		s = 0;
	}
	if (!mt) {
		*tail += s;
		*tail_n += nc;
		return j;
	}
	/* The CYCs after the last tnt.8: bytes [h + 1, j). */
	h = 31 - (unsigned)__builtin_clz(mt);
	*set = 1;
	mc &= ~((2u << h) - 1);
	*tail_n = (unsigned)__builtin_popcount(mc);
	*tail = 0;
	if (mc) {
		after = _mm_andnot_si128(
			_mm_loadu_si128((const __m128i *)(idx_skim_prefix + 16 - (h + 1))), pre);
		sad = _mm_add_epi64(_mm_sad_epu8(_mm_and_si128(val, after), z),
				    _mm_slli_epi64(_mm_sad_epu8(_mm_and_si128(hi, after), z), 5));
		*tail = (uint64_t)_mm_cvtsi128_si64(sad) + (uint64_t)_mm_extract_epi16(sad, 4);
	}
	return j;
}

/* Outside a run of CYCs, with no CYC pending: the leading pads and tnt.8s
 * among the 16 bytes at @p, which change nothing.  Returns how many. */
static inline __attribute__((always_inline)) unsigned
tsk_plain16(const uint8_t *p, struct tcnt *c)
{
	__m128i v = _mm_loadu_si128((const __m128i *)p);
	unsigned meven = (unsigned)_mm_movemask_epi8(
		_mm_cmpeq_epi8(_mm_and_si128(v, _mm_set1_epi8(1)), _mm_setzero_si128()));
	unsigned mtwo = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(2)));
	unsigned ok = meven & ~mtwo & 0xffff;
	unsigned j = ok == 0xffff ? 16 : (unsigned)__builtin_ctz(~ok);

	if (c) {
		unsigned mpad = (unsigned)_mm_movemask_epi8(
			_mm_cmpeq_epi8(v, _mm_setzero_si128()));
		unsigned np = (unsigned)__builtin_popcount(mpad & ((1u << j) - 1));

		c->acc += (uint64_t)np << TC_SYNC | (uint64_t)(j - np) << TC_BRANCH;
	}
	return j;
}
#endif

/* A run of CYCs after one fed to the model, with only packets that
 * settle a pending CYC between them: fed at once (tm_advance_cycs()). */
struct tbatch {
	int on, set;			/* a run is open; one settled */
	uint64_t sum, n;		/* its CYCs */
	uint64_t tail, tn;		/* the CYCs after the last that settled */
};

/* Feed the open run @bt to @tm; the model acted. */
static inline __attribute__((always_inline)) void
tbatch_flush(struct tbatch *bt, struct tm_model *tm, struct tcnt *c, int *acted)
{
	if (!bt->on)
		return;
	tm_advance_cycs(tm, bt->sum, bt->n, bt->set, bt->tail, bt->tn);
	if (c)
		c->cycles += bt->sum;
	bt->on = 0;
	*acted = 1;
}

/* A CYC of @v cycles: into the open run, else a run opens with it where
 * the model allows (tm_cyc_joins()), else it is fed and a run opens. */
static inline __attribute__((always_inline)) void
tsk_cyc(uint64_t v, struct tbatch *bt, struct tm_model *tm, struct pkt *fast,
	struct tcnt *c)
{
	if (c) {
		c->acc += 1ull << TC_TIMING;
		c->cmax = v > c->cmax ? v : c->cmax;
	}
	if (!bt->on) {
		memset(bt, 0, sizeof(*bt));
		bt->on = 1;
		if (!tm_cyc_joins(tm)) {
			/* it counts from an anchor, or from a CYC before */
			fast->type = PKT_CYC;
			fast->u.cyc = v;
			tm_advance(tm, fast);
			if (c)
				c->cycles += v;
			return;
		}
	}
	bt->sum += v;
	bt->n++;
	bt->tail += v;
	bt->tn++;
}

/* A CYC-eligible packet of @type: it settles the run's CYCs, or the
 * pending one if the model acted on the packet before. */
static inline __attribute__((always_inline)) void
tsk_elig(enum pkt_type type, struct tbatch *bt, struct tm_model *tm,
	 struct pkt *fast, int *acted)
{
	if (bt->on) {
		bt->set = 1;
		bt->tail = bt->tn = 0;
	} else if (*acted) {
		fast->type = type;
		tm_advance(tm, fast);
		*acted = 0;
	}
}

#if defined(__x86_64__)
/* tsk_vec()'s sizes of the block at q, kept from one call to the next
 * (the fast loop leaves at each mtc, and comes back into the block). */
struct tvblk {
	const uint8_t *q;		/* NULL: none */
	_Alignas(32) uint8_t sz[TV_BLOCK], sz2[TV_BLOCK];
};

/*
 * tsk16() for sparse traces (TIP-heavy ones), as skim_vec_sse2() is
 * skim_fast()'s in index_sum.c: in an open run @bt, the packets from @p
 * on that vsize16(p, 1) sizes, one or (with AVX2) two a step, the chain
 * one load and an add.  A CYC adds to the run and its tail, a
 * CYC-eligible packet sets the run and empties the tail, any other sized
 * packet (pad, fup) changes nothing: tsk16()'s and tsk_fast()'s rules.
 * With @count, counts into @c.  Adds the packets it took to *@np.
 * Returns where it stopped: at a packet it does not size, or where fewer
 * than TV_BLOCK bytes are left before @fend (packets it takes start
 * before @fend).
 */
static inline __attribute__((always_inline)) const uint8_t *
tsk_vec_body(const uint8_t *p, const uint8_t *fend, struct tvblk *vb,
	     struct tbatch *bt, struct tcnt *c, uint64_t *np, const int avx2,
	     const int count)
{
	const uint8_t *q = vb->q;
	uint64_t cmax = 0, k = 0, acc = 0;
	int h;

	for (;;) {
		/* per block: the fields of struct tv_tab, summed */
		uint64_t sum = 0, tail = 0;
		size_t i;	/* not unsigned: no zero-extension at each packet */

		if (!q || p >= q + TV_BLOCK || q + TV_BLOCK > fend) {
			if (fend - p < TV_BLOCK)
				break;
			q = p;
			for (h = 0; h < TV_BLOCK; h += 64) {
				if (avx2)
					vsize64_avx2(q + h, vb->sz + h, vb->sz2 + h, 1);
				else
					vsize64_sse2(q + h, vb->sz + h, vb->sz2 + h, 1);
			}
		}
		/* One packet, or two (the second's masked out by m where
		 * there is none); the tail keeps what came after the last
		 * CYC-eligible one. */
		i = (size_t)(p - q);
		while (i < TV_BLOCK) {
			size_t s = vb->sz[i], d = avx2 ? vb->sz2[i] : s;
			uint16_t x, y;
			uint64_t m, tx, ty, vx, vy;

			if (__builtin_expect(!s, 0))
				break;
			memcpy(&x, q + i, sizeof(x));
			memcpy(&y, q + i + s, sizeof(y));
			m = -(uint64_t)(d != s);
			tx = tv_tab[x & 0xff];
			ty = tv_tab[y & 0xff] & m;
			vx = ((uint64_t)(x >> 4) | TV_VAL) & tx;
			vy = ((uint64_t)(y >> 4) | TV_VAL) & ty;
			sum += vx + vy;
			tail = (tail & ~(uint64_t)((int64_t)tx >> TV_ELIG)) + vx;
			tail = (tail & ~(uint64_t)((int64_t)ty >> TV_ELIG)) + vy;
			if (count) {
				cmax = vx > cmax ? vx : cmax;
				cmax = vy > cmax ? vy : cmax;
			}
			i += d;
		}
		p = q + i;
		bt->sum += sum & TV_CYCLES;
		bt->n += TV_FIELD(sum, TV_CYC);
		if (TV_FIELD(sum, TV_BRANCH) + TV_FIELD(sum, TV_IP)) {
			bt->set = 1;
			bt->tail = tail & TV_CYCLES;
			bt->tn = TV_FIELD(tail, TV_CYC);
		} else {
			bt->tail += tail & TV_CYCLES;
			bt->tn += TV_FIELD(tail, TV_CYC);
		}
		if (count)
			acc += TV_FIELD(sum, TV_SYNC) << TC_SYNC |
			       (TV_FIELD(sum, TV_BRANCH) << TC_BRANCH) |
			       (TV_FIELD(sum, TV_IP) + TV_FIELD(sum, TV_FUP)) << TC_IP |
			       TV_FIELD(sum, TV_CYC) << TC_TIMING;
		k += TV_FIELD(sum, TV_SYNC) + TV_FIELD(sum, TV_BRANCH) +
		     TV_FIELD(sum, TV_IP) + TV_FIELD(sum, TV_FUP) +
		     TV_FIELD(sum, TV_CYC);
		if (i < TV_BLOCK)
			break;
	}
	vb->q = q;
	if (count) {
		/* a cyc's field is the highest: the largest is a cyc's */
		c->acc += acc;
		if (cmax >> TV_CYC & 1)
			c->cmax = (cmax & TV_CYCLES) > c->cmax ? cmax & TV_CYCLES : c->cmax;
	}
	*np += k;
	return p;
}

/* tsk_vec_body() built four times: without and with counts, SSE2 and
 * AVX2 (its sizes inline into the loop, and it steps over pairs).  Not
 * inlined into tsk_fast(): a call each time the loop enters a run costs
 * less than its registers would there (as for skim_vec_sse2()). */
static __attribute__((noinline)) const uint8_t *
tsk_vec_sse2(const uint8_t *p, const uint8_t *fend, struct tvblk *vb,
	     struct tbatch *bt, struct tcnt *c, uint64_t *np)
{
	return tsk_vec_body(p, fend, vb, bt, c, np, 0, 0);
}

static __attribute__((noinline)) const uint8_t *
tsk_vec_sse2_c(const uint8_t *p, const uint8_t *fend, struct tvblk *vb,
	       struct tbatch *bt, struct tcnt *c, uint64_t *np)
{
	return tsk_vec_body(p, fend, vb, bt, c, np, 0, 1);
}

__attribute__((target("avx2,bmi"), noinline))
static const uint8_t *
tsk_vec_avx2(const uint8_t *p, const uint8_t *fend, struct tvblk *vb,
	     struct tbatch *bt, struct tcnt *c, uint64_t *np)
{
	return tsk_vec_body(p, fend, vb, bt, c, np, 1, 0);
}

__attribute__((target("avx2,bmi"), noinline))
static const uint8_t *
tsk_vec_avx2_c(const uint8_t *p, const uint8_t *fend, struct tvblk *vb,
	       struct tbatch *bt, struct tcnt *c, uint64_t *np)
{
	return tsk_vec_body(p, fend, vb, bt, c, np, 1, 1);
}
#endif

/* The MTC at @p (no run open), and its time into @g. */
static inline __attribute__((always_inline)) void
tsk_mtc(const uint8_t *p, struct tm_model *tm, struct gacc *g, struct pkt *fast,
	struct tcnt *c)
{
	if (c)
		c->acc += 1ull << TC_TIMING;
	fast->type = PKT_MTC;
	fast->u.mtc = p[1];
	tm_advance(tm, fast);
	if (g) {
		uint64_t at = g->base_off + (uint64_t)(p - g->base);

		if (g->mtc)
			gacc_at(g, tm, at);
		gacc_per(g, tm, at);
	}
}

/*
 * The time skim's fast loop over [@p, @fend), which ends at least
 * PKT_MAX_SIZE bytes before the buffer does.  *@acted tells whether the
 * model acted on the last packet fed (then the next CYC-eligible one may
 * settle a pending CYC); @fast is scratch for the packets fed.  With @vb
 * (sparse packets: struct idx_skim_hint), runs go to tsk_vec(), else to
 * tsk16().  Adds the packets it took to *@np.  Returns where it stopped:
 * @fend, or a packet pkt_next() must decode.
 */
static inline __attribute__((always_inline)) const uint8_t *
tsk_fast(const uint8_t *p, const uint8_t *fend, struct tm_model *tm,
	 struct gacc *g, struct pkt *fast, int *acted_io, struct tcnt *cp,
	 struct tvblk *vb, uint64_t *np_io)
{
	/* counted in a copy the compiler keeps in registers */
	struct tcnt lc = cp ? *cp : (struct tcnt){ 0 };
	struct tcnt *c = cp ? &lc : NULL;
	int acted = *acted_io;
	struct tbatch bt = { 0 };
	uint64_t np = 0;

	while (p < fend) {
		unsigned b = *p, sz;

#if defined(__x86_64__)
		if (bt.on && vb) {
			/* then the packet it stopped at, here */
			p = c ? tsk_vec_c(p, fend, vb, &bt, c, &np) :
				tsk_vec(p, fend, vb, &bt, c, &np);
			if (p >= fend)
				break;
			b = *p;
		} else if (bt.on && (idx_skim_size[b] == 1 || (b & 7) == 7)) {
			unsigned j = tsk16(p, &bt.sum, &bt.n, &bt.set, &bt.tail,
					   &bt.tn, c, &np);

			if (j) {
				p += j;
				continue;
			}
		} else if (!acted && !(b & 1) && b != 2) {
			unsigned j = tsk_plain16(p, c);

			p += j;
			np += j;
			continue;
		}
#else
		(void)vb;
#endif
		np++;
		if ((b & 7) == 3 || ((b & 7) == 7 && !(p[1] & 1))) {
			tsk_cyc(b & 4 ? (b >> 3) | (uint64_t)(p[1] >> 1) << 5 : b >> 3,
				&bt, tm, fast, c);
			p += 1 + ((b & 4) >> 2);
			continue;
		}
		sz = tsk_size[b];
		if (__builtin_expect(sz != 0, 1)) {
			if (c)
				c->acc += tsk_inc[b];
			if (pkt_cyc_eligible_mask >> tsk_type[b] & 1)
				tsk_elig((enum pkt_type)tsk_type[b], &bt, tm, fast, &acted);
			p += sz;
			continue;
		}
		if (b == 2 && p[1] == 0xa3 &&
		    (p[2] | p[3] | p[4] | p[5] | p[6] | p[7])) {
			/* tnt.64 (a zero payload is an error) */
			if (c)
				c->acc += 1ull << TC_BRANCH;
			tsk_elig(PKT_TNT64, &bt, tm, fast, &acted);
			p += 8;
			continue;
		}
		tbatch_flush(&bt, tm, c, &acted);
		if (b != 0x59) {
			np--;
			break;
		}
		tsk_mtc(p, tm, g, fast, c);
		acted = 1;
		p += 2;
	}
	tbatch_flush(&bt, tm, c, &acted);
	if (cp)
		*cp = lc;
	*acted_io = acted;
	*np_io += np;
	return p;
}

/* Add the lanes of @c to @s (then empty). */
static inline void tcnt_flush(struct tcnt *c, struct idx_summary *s)
{
	uint64_t a = c->acc;

	s->per_class[PKC_SYNC] += a >> TC_SYNC & 0xffff;
	s->per_class[PKC_BRANCH] += a >> TC_BRANCH & 0xffff;
	s->per_class[PKC_IP] += a >> TC_IP & 0xffff;
	s->per_class[PKC_TIMING] += a >> TC_TIMING & 0xffff;
	s->npackets += (a >> TC_SYNC & 0xffff) + (a >> TC_BRANCH & 0xffff) +
		       (a >> TC_IP & 0xffff) + (a >> TC_TIMING & 0xffff);
	c->acc = 0;
}

/* Add the cycles @c counted to @s. */
static void tcnt_finish(const struct tcnt *c, struct idx_summary *s)
{
	uint64_t cmax = c->cmax;
#if defined(__x86_64__)
	uint8_t m[16];
	int k;

	_mm_storeu_si128((__m128i *)m, c->vmax);
	for (k = 0; k < 16; k++)
		cmax = m[k] > cmax ? m[k] : cmax;
#endif
	s->cycles += c->cycles;
	if (cmax > s->max_cyc)
		s->max_cyc = cmax;
}

/* What idx_time_feed() gives and takes beside the model. */
struct feed_io {
	const _Atomic int *stop;	/* set: stop (NULL: never) */
	int lost;			/* a packet could not be decoded */
	int8_t bip;			/* the decoder's block state at the end */
};

/* Feed the packets of [@p, @end) (at offset @off) to @tm; with @idx,
 * credit progress and look for a cancel as for idx_pace(); with @count
 * (a constant: the loops are built twice), count them into @s as phase
 * 2's skim does; with @fio, idx_time_feed()'s.  @hint picks the loop for
 * runs of CYCs (tsk_vec() where packets are sparse) and learns.  Returns
 * 0, or -pte_canceled. */
static inline __attribute__((always_inline)) int
time_skim_body(struct idx *idx, const uint8_t *p, const uint8_t *end,
	       uint64_t off, struct tm_model *tm, uint64_t *credited,
	       struct gacc *g, struct idx_summary *s, const int count,
	       struct feed_io *fio, struct idx_skim_hint *hint)
{
	const uint8_t *begin = p;
	const uint8_t *next = end - p > CANCEL_STEP ? p + CANCEL_STEP : end;
	struct pkt_decoder dec;
	struct pkt pkt, fast;
	struct tcnt c;
	int r, acted = 1;
#if defined(__x86_64__)
	struct tvblk vb;

	vb.q = NULL;
#endif

	memset(&c, 0, sizeof(c));
	memset(&fast, 0, sizeof(fast));
	pkt_decoder_init(&dec, p, end, off);
	if (g) {
		g->base = p;
		g->base_off = off;
	}
	while (p < end) {
		if (p >= next) {
			if (idx_pace(idx, (uint64_t)(p - begin), credited) < 0 ||
			    (fio && fio->stop && atomic_load(fio->stop)))
				return -pte_canceled;
			next = end - p > CANCEL_STEP ? p + CANCEL_STEP : end;
		}
		if (dec.bip_sz < 0 && end - p > PKT_MAX_SIZE) {
			const uint8_t *fend = end - PKT_MAX_SIZE < next ?
					      end - PKT_MAX_SIZE : next;

			const uint8_t *from = p;
			uint64_t np = 0;

			/* (one packet at each TC_STEP goes through
			 * pkt_next(): the same counts and time) */
			if (count && fend - p > TC_STEP)
				fend = p + TC_STEP;
#if defined(__x86_64__)
			p = tsk_fast(p, fend, tm, g, &fast, &acted, count ? &c : NULL,
				     hint->sparse ? &vb : NULL, &np);
			if (hint->sparse)
				hint->vec_bytes += (uint64_t)(p - from);
#else
			p = tsk_fast(p, fend, tm, g, &fast, &acted, count ? &c : NULL,
				     NULL, &np);
#endif
			idx_skim_learn(hint, (uint64_t)(p - from), np);
			if (count)
				tcnt_flush(&c, s);
			if (p >= end)
				break;
			if (p >= next)
				continue;
		}
		dec.pos = p;
		r = pkt_next(&dec, &pkt);
		if (r == -pte_eos)
			break;
		if (r < 0) {
			tm_gap(tm);
			if (count)
				idx_sum_error(s, r);
			if (fio)
				fio->lost = 1;
			break;
		}
		if (count)
			idx_sum_count(s, &pkt);
		tm_advance(tm, &pkt);
		if (g && (pkt.type == PKT_TSC || (pkt.type == PKT_MTC && g->mtc)))
			gacc_at(g, tm, pkt.offset);
		if (g && (pkt.type == PKT_TSC || pkt.type == PKT_MTC ||
			  pkt.type == PKT_TMA))
			gacc_per(g, tm, pkt.offset);
		acted = 1;
		p = dec.pos;
	}
	if (count)
		tcnt_finish(&c, s);
	if (fio)
		fio->bip = dec.bip_sz;
	return 0;
}

/* time_skim_body() without and with a summary: built twice each, the
 * CPU picking at load time (tsk16's popcounts are one instruction with
 * POPCNT and a libgcc call without). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("popcnt", "default"), noinline))
#endif
static int time_skim(struct idx *idx, const uint8_t *p, const uint8_t *end,
		     uint64_t off, struct tm_model *tm, uint64_t *credited,
		     struct gacc *g, struct idx_skim_hint *hint)
{
	return time_skim_body(idx, p, end, off, tm, credited, g, NULL, 0, NULL,
			      hint);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("popcnt", "default"), noinline))
#endif
static int time_skim_sum(struct idx *idx, const uint8_t *p, const uint8_t *end,
			 uint64_t off, struct tm_model *tm, uint64_t *credited,
			 struct gacc *g, struct idx_summary *s,
			 struct idx_skim_hint *hint)
{
	return time_skim_body(idx, p, end, off, tm, credited, g, s, 1, NULL, hint);
}

/* time_skim() for idx_time_feed(): no progress, no gaps. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("popcnt", "default"), noinline))
#endif
static int time_skim_feed(const uint8_t *p, const uint8_t *end, uint64_t off,
			  struct tm_model *tm, struct feed_io *fio)
{
	struct idx_skim_hint hint = IDX_SKIM_HINT_INIT;
	uint64_t credited = 0;

	return time_skim_body(NULL, p, end, off, tm, &credited, NULL, NULL, 0, fio,
			      &hint);
}

int idx_time_use_avx2(int avx2)
{
	pthread_once(&tsk_once, tsk_fill);
#if defined(__x86_64__)
	if (!avx2) {
		tsk_vec = tsk_vec_sse2;
		tsk_vec_c = tsk_vec_sse2_c;
		return 0;
	}
	if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("bmi") ||
	    !__builtin_cpu_supports("popcnt"))
		return -pte_invalid;
	tsk_vec = tsk_vec_avx2;
	tsk_vec_c = tsk_vec_avx2_c;
	return 0;
#else
	(void)avx2;
	return -pte_invalid;
#endif
}

int idx_time_feed(struct pkt_decoder *dec, const uint8_t *to, struct tm_model *tm,
		  const _Atomic int *stop)
{
	struct feed_io fio = { stop, 0, -1 };
	int r;

	if (!dec || !tm || !to || dec->bip_sz >= 0 || to < dec->pos || to > dec->end)
		return -pte_invalid;
	pthread_once(&tsk_once, tsk_fill);
	idx_sum_init();		/* tsk16() */
	r = time_skim_feed(dec->pos, to, dec->base + (uint64_t)(dec->pos - dec->begin),
			   tm, &fio);
	if (r < 0)
		return r;
	if (fio.lost)
		return 1;
	dec->pos = to;
	dec->bip_sz = fio.bip;
	return 0;
}

/* Feed the packets of segment [@off, @end) to @tm, as a window decoder
 * would: a decode error (or a packet running into the next PSB) ends the
 * segment and loses data.  With @idx, progress is credited and a cancel
 * seen every CANCEL_STEP bytes (*@credited as for idx_pace()).  With @s,
 * the segment's summary goes there too (phase 2's, bit for bit).  @hint
 * carries what the skim learns from one segment to the next.  Returns 0,
 * or -pte_canceled (@tm is then mid-segment). */
static int time_segment(struct idx *idx, const struct img *img, uint64_t off,
			uint64_t end, struct tm_model *tm, uint64_t *credited,
			struct gacc *g, struct idx_summary *s,
			struct idx_skim_hint *hint)
{
	struct img_cursor cur;
	struct pkt pkt;
	long si = img_span_of(img, off);
	uint64_t next = off + CANCEL_STEP;
	int r;

	if (s && !idx_sum_plain(img, off, end)) {
		/* Spans and gaps: summarised apart (rare), as phase 2 does */
		uint64_t none = 0;

		idx_summarise(NULL, img, off, end, s, &none, NULL);
		s = NULL;
	}

	if (g) {
		g->pseq = tm->nper;	/* periods before were looked at */
		g->hseq = tm->nhalt;	/* and sleeps */
	}
	if (img_gap_at(img, off))
		tm_gap(tm);	/* data lost right before the PSB */
	if (si >= 0 && end <= img->spans[si].off + img->spans[si].size) {
		/* Within one span: a plain cursor bounded by the segment, so
		 * a packet running into the next PSB is cut (an error). */
		const struct img_span *sp = &img->spans[si];

		pthread_once(&tsk_once, tsk_fill);
		idx_sum_init();		/* tsk16() */
		if (s) {
			memset(s, 0, sizeof(*s));
			s->size = end - off;
			return time_skim_sum(idx, sp->data + (off - sp->off),
					     sp->data + (end - sp->off), off, tm,
					     credited, g, s, hint);
		}
		return time_skim(idx, sp->data + (off - sp->off),
				 sp->data + (end - sp->off), off, tm, credited, g,
				 hint);
	}
	if (img_cursor_init(&cur, img, off) < 0)
		return 0;
	while (img_cursor_offset(&cur) < end) {
		if (img_cursor_offset(&cur) >= next) {
			if (idx_pace(idx, img_cursor_offset(&cur) - off, credited) < 0)
				return -pte_canceled;
			next = img_cursor_offset(&cur) + CANCEL_STEP;
		}
		r = img_cursor_next(&cur, &pkt);
		if (r == -pte_eos)
			return 0;
		if (cur.gap) {
			cur.gap = 0;
			tm_gap(tm);
		}
		if (r >= 0 && pkt.offset + pkt.size > end)
			r = -pte_truncated;
		if (r < 0) {
			tm_gap(tm);
			return 0;
		}
		tm_advance(tm, &pkt);
		if (g && (pkt.type == PKT_TSC || (pkt.type == PKT_MTC && g->mtc)))
			gacc_at(g, tm, pkt.offset);
		if (g && (pkt.type == PKT_TSC || pkt.type == PKT_MTC ||
			  pkt.type == PKT_TMA))
			gacc_per(g, tm, pkt.offset);
	}
	return 0;
}

static struct tm_carry *carry_slot(const struct idx *idx, size_t c)
{
	return &idx->carry[c >> CARRY_BLK_SHIFT][c & ((1u << CARRY_BLK_SHIFT) - 1)];
}

struct time_arg {
	struct idx *idx;
	struct tm_model tm;
	size_t from, to;	/* segments */
	int publish;		/* store carries (phase 3) or not (a lookup) */
	int memo;		/* a lookup: keep each carry passed in the memo */
	uint64_t memo_gen;	/* unless it was cleared since the start */
	struct gacc g;		/* phase 3: the gaps */
};

static int time_body(void *arg)
{
	struct time_arg *ta = arg;
	struct idx *idx = ta->idx;
	size_t n = idx_nseeks(idx), i;
	uint64_t rel = ta->from < n ? idx_seek_off(idx, ta->from) : 0, credited;
	struct idx_skim_hint hint = IDX_SKIM_HINT_INIT;

	for (i = ta->from; i < ta->to; i++) {
		uint64_t off = idx_seek_off(idx, i);
		uint64_t end = i + 1 < n ? idx_seek_off(idx, i + 1) : idx->img->size;

		if (ta->publish) {
			if (atomic_load_explicit(&idx->cancel, memory_order_relaxed))
				return -pte_canceled;
			if (!(i & ((1u << CARRY_SHIFT) - 1))) {
				size_t c = i >> CARRY_SHIFT;

				if (!idx->carry[c >> CARRY_BLK_SHIFT]) {
					idx->carry[c >> CARRY_BLK_SHIFT] = malloc(
						sizeof(struct tm_carry) << CARRY_BLK_SHIFT);
					if (!idx->carry[c >> CARRY_BLK_SHIFT])
						return -pte_nomem;
				}
				tm_save(&ta->tm, carry_slot(idx, c));
				if (c >= atomic_load(&idx->ncarry))
					atomic_store_explicit(&idx->ncarry, c + 1,
							      memory_order_release);
			}
		}
		credited = 0;
		{
			int hp = ta->g.has_prev;
			uint64_t pv = ta->g.prev;

			gacc_segment(&ta->g);
			if (time_segment(ta->publish ? idx : NULL, idx->img, off, end,
					 &ta->tm, &credited,
					 ta->publish ? &ta->g : NULL, NULL, &hint) < 0)
				return -pte_canceled;
			if (ta->publish) {
				int r = tsum_from(idx, i, &ta->g, hp, pv);

				if (r < 0)
					return r;
				atomic_store_explicit(&idx->ntsums, i + 1,
						      memory_order_release);
			}
		}
		if (ta->memo) {
			struct carry_memo *m = &idx->memo[(i + 1) % MEMO_SIZE];

			pthread_mutex_lock(&idx->memo_lock);
			if (idx->memo_gen == ta->memo_gen) {
				m->seg = i + 1;
				tm_save(&ta->tm, &m->carry);
			}
			pthread_mutex_unlock(&idx->memo_lock);
		}
		if (ta->publish) {
			atomic_fetch_add_explicit(&idx->done, end - off - credited,
						  memory_order_relaxed);
			/* In big steps: a segment rarely spans a whole page. */
			if (end - rel >= (4u << 20) || i + 1 == ta->to) {
				idx_release_range(idx, rel, end);
				rel = end;
			}
		}
	}
	if (ta->publish)
		atomic_fetch_add_explicit(&idx->skim_vec_bytes, hint.vec_bytes,
					  memory_order_relaxed);
	return 0;
}

/*
 * The parallel time pass.  The time model's state at a PSB depends on
 * everything before it, but little of it lasts: a PSB+'s TSC and TMA
 * re-anchor the time, an MTC period recalibrates, and the cycle count is
 * a prefix sum.  So each unit is timed on a worker from a provisional
 * state (the model warmed up over the segments before the unit, cycles
 * counting from 0), and the merge, in order, knows the true state at the
 * unit's start: where the two agree but for the cycles, every later
 * provisional carry of the unit is true once its cycles are shifted;
 * where they differ, the merge re-decodes the unit from the true state
 * until they agree at a carry point (or to the unit's end).  The carries
 * are thus those of the serial pass, bit for bit (tests/test_index.c).
 */

/* Whether carries @a and @b agree but for the cycle count. */
static int carry_same(const struct tm_carry *a, const struct tm_carry *b)
{
	struct tm_carry x = *a, y = *b;

	x.cycles = 0;
	y.cycles = 0;
	return !memcmp(&x, &y, sizeof(x));
}

/* The true cycle count at a point whose provisional count is @prov, where
 * an earlier point had @base true and @pbase provisional cycles (counts
 * saturate, and a saturated count stays). */
static uint64_t fix_cycles(uint64_t base, uint64_t pbase, uint64_t prov)
{
	uint64_t d;

	if (prov == UINT64_MAX)
		return UINT64_MAX;
	d = prov - pbase;
	return base + d < base ? UINT64_MAX : base + d;
}

static uint64_t seg_end(const struct idx *idx, size_t i, size_t n)
{
	return i + 1 < n ? idx_seek_off(idx, i + 1) : idx->img->size;
}

/* Store @c as the carry of segment @i (a multiple of 16). */
static int carry_put(struct idx *idx, size_t i, const struct tm_carry *c)
{
	size_t k = i >> CARRY_SHIFT;

	if (!idx->carry[k >> CARRY_BLK_SHIFT]) {
		idx->carry[k >> CARRY_BLK_SHIFT] =
			malloc(sizeof(struct tm_carry) << CARRY_BLK_SHIFT);
		if (!idx->carry[k >> CARRY_BLK_SHIFT])
			return -pte_nomem;
	}
	*carry_slot(idx, k) = *c;
	return 0;
}

/* Phase 3 worker: time unit @u from its provisional state. */
static int time_unit(struct idx *idx, struct unit3 *u)
{
	struct tm_model tm;
	struct tm_carry c;
	struct gacc g;
	struct idx_summary sm;
	size_t n = idx_nseeks(idx), i, k = 0, np;
	uint64_t credited;
	int ret;

	u->sum.s0 = u->s0;
	u->sum.s1 = u->s1;
	np = 2 + (((u->s1 - 1) >> CARRY_SHIFT) - (u->s0 >> CARRY_SHIFT));
	u->pts = malloc(np * sizeof(*u->pts));
	u->cps = malloc(np * sizeof(*u->cps));
	u->gs = malloc((u->s1 - u->s0) * sizeof(*u->gs));
	if (!u->pts || !u->cps || !u->gs)
		return -pte_nomem;
	memset(&g, 0, sizeof(g));
	g.mtc = idx->p3_gacc0.mtc;
	if (u->w0 == idx->p3_from)
		g = idx->p3_gacc0;
	u->n = 0;
	u->pts[u->n++] = u->s0;
	for (i = (u->s0 | ((1u << CARRY_SHIFT) - 1)) + 1; i < u->s1;
	     i += 1u << CARRY_SHIFT)
		u->pts[u->n++] = i;
	u->pts[u->n++] = u->s1;
	tm_init(&tm, &idx->cfg);
	if (u->w0 == idx->p3_from)
		tm_restore(&tm, &idx->p3_start);
	for (i = u->w0; i < u->s0; i++) {
		if (atomic_load_explicit(&idx->cancel, memory_order_relaxed))
			return -pte_canceled;
		time_segment(NULL, idx->img, idx_seek_off(idx, i), seg_end(idx, i, n),
			     &tm, &credited, &g, NULL, &u->sum.hint);
	}
	tm_save(&tm, &c);
	c.cycles = 0;
	tm_restore(&tm, &c);
	for (i = u->s0;; i++) {
		uint64_t off, end;

		if (k < u->n && u->pts[k] == i)
			tm_save(&tm, &u->cps[k++]);
		if (i == u->s1)
			break;
		if (atomic_load_explicit(&idx->cancel, memory_order_relaxed))
			return -pte_canceled;
		off = idx_seek_off(idx, i);
		end = seg_end(idx, i, n);
		credited = 0;
		gacc_segment(&g);
		if (time_segment(idx, idx->img, off, end, &tm, &credited, &g,
				 idx->sums_in_time ? &sm : NULL, &u->sum.hint) < 0)
			return -pte_canceled;
		if (idx->sums_in_time) {
			ret = idx_sum_put(idx, &u->sum, i, &sm);
			if (ret < 0)
				return ret;
		}
		u->gs[i - u->s0].has_first = (uint8_t)g.has_first;
		u->gs[i - u->s0].first = g.first;
		u->gs[i - u->s0].has_rest = (uint8_t)g.has_rest;
		u->gs[i - u->s0].rest = g.rest;
		u->gs[i - u->s0].last = g.prev;
		u->gs[i - u->s0].first_off = g.first_off;
		u->gs[i - u->s0].rest_off = g.rest_off;
		u->gs[i - u->s0].per = g.per;
		atomic_fetch_add_explicit(&idx->done, end - off - credited,
					  memory_order_relaxed);
	}
	atomic_fetch_add_explicit(&idx->skim_vec_bytes, u->sum.hint.vec_bytes,
				  memory_order_relaxed);
	u->sum.hint.vec_bytes = 0;
	return 0;
}

static int time_unit_body(void *arg)
{
	struct idx_unit_arg *w = arg;

	return time_unit(w->idx, &w->idx->u3[w->unit]);
}

/* Run phase 3 unit @k (struct pool_cfg.run).  It keeps the pages: its
 * merge may re-read the unit, and drops them then. */
static int time_run(void *ctx, unsigned worker, size_t k)
{
	(void)worker;
	return idx_unit_guarded(ctx, time_unit_body, k);
}

struct replay_arg {
	struct idx *idx;
	struct unit3 *u;
	size_t j;		/* in: 0; out: the point where they agree, or
				 * the last */
	struct tm_carry t;	/* the true carry at point j */
};

/* Re-decode unit ra->u from the true carry at its start, storing the true
 * carries, until the provisional ones agree (guarded). */
static int replay_body(void *arg)
{
	struct replay_arg *ra = arg;
	struct idx *idx = ra->idx;
	struct unit3 *u = ra->u;
	struct idx_skim_hint hint = IDX_SKIM_HINT_INIT;
	struct tm_model tm;
	size_t n = idx_nseeks(idx), i;
	uint64_t credited;
	int ret;

	tm_init(&tm, &idx->cfg);
	tm_restore(&tm, &ra->t);
	for (i = u->s0; i < u->s1; i++) {
		int hp = idx->p3_gacc.has_prev;
		uint64_t pv = idx->p3_gacc.prev;

		if (atomic_load_explicit(&idx->cancel, memory_order_relaxed))
			return -pte_canceled;
		gacc_segment(&idx->p3_gacc);
		time_segment(NULL, idx->img, idx_seek_off(idx, i), seg_end(idx, i, n),
			     &tm, &credited, &idx->p3_gacc, NULL, &hint);
		ret = tsum_from(idx, i, &idx->p3_gacc, hp, pv);
		if (ret < 0)
			return ret;
		idx->p3_replayed++;
		if (i + 1 != u->pts[ra->j + 1])
			continue;
		ra->j++;
		tm_save(&tm, &ra->t);
		if (carry_same(&ra->t, &u->cps[ra->j]))
			break;
		if (u->pts[ra->j] < u->s1) {
			ret = carry_put(idx, u->pts[ra->j], &ra->t);
			if (ret < 0)
				return ret;
		}
	}
	return 0;
}

/* Merge phase 3 unit @k in order: make its carries true and publish
 * them. */
static int merge3(void *ctx, size_t k)
{
	struct idx *idx = ctx;
	struct unit3 *u = &idx->u3[k];
	struct replay_arg ra;
	struct tm_carry c;
	size_t m, n = idx_nseeks(idx);
	int ret = 0;

	if (idx->sums_in_time) {
		ret = idx_sum_merge(idx, &u->sum);
		if (ret < 0)
			goto out;
	}
	memset(&ra, 0, sizeof(ra));
	ra.idx = idx;
	ra.u = u;
	ra.t = idx->p3_carry;
	if (!(u->s0 & ((1u << CARRY_SHIFT) - 1)))
		ret = carry_put(idx, u->s0, &ra.t);
	if (!ret && !carry_same(&ra.t, &u->cps[0]))
		ret = idx->guard(replay_body, &ra);
	if (ret < 0)
		goto out;
	/* From point j on, the provisional carries hold but for cycles. */
	for (m = ra.j + 1; m < u->n; m++) {
		c = u->cps[m];
		c.cycles = fix_cycles(ra.t.cycles, u->cps[ra.j].cycles,
				      u->cps[m].cycles);
		if (u->pts[m] < u->s1)
			ret = carry_put(idx, u->pts[m], &c);
		if (ret < 0)
			goto out;
	}
	if (ra.j + 1 < u->n)
		ra.t = c;
	idx->p3_carry = ra.t;
	/* The gaps from point j on: the worker's but for the first, which
	 * follows the true timing packet before. */
	for (m = u->pts[ra.j]; m < u->s1; m++) {
		const struct gseg *gs = &u->gs[m - u->s0];
		struct gacc *g = &idx->p3_gacc;
		struct tsum t;

		gacc_sum(&t, g->has_prev, g->prev, gs->has_first, gs->first,
			 gs->has_rest, gs->rest, gs->has_first || g->has_prev,
			 gs->has_first ? gs->last : g->prev, gs->first_off, gs->rest_off);
		pacc_put(&t, &gs->per);
		ret = tsum_put(idx, m, &t);
		if (ret < 0)
			goto out;
		if (gs->has_first) {
			g->has_prev = 1;
			g->prev = gs->last;
		}
	}
	if (u->s1 > u->s0)
		atomic_store_explicit(&idx->ntsums, u->s1, memory_order_release);
	if (u->s1 > u->s0)
		atomic_store_explicit(&idx->ncarry,
				      ((u->s1 - 1) >> CARRY_SHIFT) + 1,
				      memory_order_release);
	idx_release_range(idx, idx_seek_off(idx, u->s0), seg_end(idx, u->s1 - 1, n));
out:
	free(u->pts);
	free(u->cps);
	free(u->gs);
	u->pts = NULL;
	u->cps = NULL;
	u->gs = NULL;
	return ret;
}

/* Where a phase 3 unit starting at segment @s0 ends: after about a chunk
 * of bytes, at most UNIT3_SEGS segments (its carries are kept until the
 * merge). */
static size_t cut3(const struct idx *idx, size_t s0, size_t n)
{
	uint64_t acc = 0;
	size_t i;

	for (i = s0; i < n && i - s0 < UNIT3_SEGS && acc < idx->chunk; i++)
		acc += seg_end(idx, i, n) - idx_seek_off(idx, i);
	return i;
}

/* The units of phase 3 over segments [@from, @n), each warmed up over
 * the segments before it. */
static int plan3(struct idx *idx, size_t from, size_t n)
{
	size_t i, k, nu = 0, w;
	/* a quarter of a unit at most: tests make units tiny */
	uint64_t acc, warm = idx->chunk / 4 < WARM_BYTES ? idx->chunk / 4 : WARM_BYTES;

	for (i = from; i < n; i = cut3(idx, i, n))
		nu++;
	idx->u3 = calloc(nu ? nu : 1, sizeof(*idx->u3));
	if (!idx->u3)
		return -pte_nomem;
	for (i = from, k = 0; k < nu; k++) {
		struct unit3 *u = &idx->u3[k];

		u->s0 = i;
		u->s1 = i = cut3(idx, i, n);
		acc = 0;
		for (w = u->s0; w > from && acc < warm &&
		     u->s0 - w < WARM_SEGS; w--)
			acc += seg_end(idx, w - 1, n) - idx_seek_off(idx, w - 1);
		u->w0 = w;
	}
	idx->nunits = nu;
	return 0;
}

/* The segment phase 3 starts at: the last carry's. */
static size_t phase3_from(const struct idx *idx)
{
	size_t c = atomic_load(&idx->ncarry);

	return c ? (c - 1) << CARRY_SHIFT : 0;
}

int idx_phase3_sums(const struct idx *idx)
{
	size_t from = phase3_from(idx);

	return idx->time_pass && idx->nthreads > 1 &&
	       atomic_load(&idx->nsums) == from && idx_nseeks(idx) > from;
}

int idx_phase3(struct idx *idx)
{
	struct time_arg *ta = malloc(sizeof(*ta));
	size_t n = idx_nseeks(idx), c = atomic_load(&idx->ncarry);
	uint64_t end;
	int ret;

	if (!ta)
		return -pte_nomem;
	memset(ta, 0, sizeof(*ta));
	ta->idx = idx;
	tm_init(&ta->tm, &idx->cfg);
	if (c) {
		/* Resume from the last carry (a grown trace). */
		c--;
		tm_restore(&ta->tm, carry_slot(idx, c));
	}
	ta->from = c << CARRY_SHIFT;
	ta->to = n;
	ta->publish = 1;
	ta->g.mtc = tm_mtc_timed(&idx->cfg);
	if (ta->from && atomic_load(&idx->ntsums) >= ta->from) {
		const struct tsum *t = &idx->gblk[(ta->from - 1) >> BLK_SHIFT]
						[(ta->from - 1) & BLK_MASK];

		ta->g.has_prev = t->has_last;
		ta->g.prev = t->last;
	}
	if (atomic_load(&idx->ntsums) > ta->from)
		atomic_store(&idx->ntsums, ta->from);
	idx->total = n ? idx->img->size - idx_seek_off(idx, ta->from < n ? ta->from : 0) : 0;
	if (idx->nthreads > 1 && n > ta->from) {
		/* On all cores; the model's end state is the last merge's. */
		idx->p3_from = ta->from;
		tm_save(&ta->tm, &idx->p3_start);
		idx->p3_carry = idx->p3_start;
		idx->p3_gacc = ta->g;
		idx->p3_gacc0 = ta->g;
		idx->p3_replayed = 0;
		ret = idx->sums_in_time ? idx_sum_reserve(idx, ta->from, n) : 0;
		if (!ret)
			ret = plan3(idx, ta->from, n);
		if (!ret)
			ret = idx_run_units(idx, time_run, merge3);
		idx_free_units(idx);
		if (!ret)
			tm_restore(&ta->tm, &idx->p3_carry);
	} else {
		ret = n ? idx->guard(time_body, ta) : 0;
	}
	if (!ret && n) {
		/* Time goes on after the last TSC packet: the trace ends at
		 * the model's last estimate. */
		pthread_mutex_lock(&idx->exc_lock);
		if (!tm_now(&ta->tm, &end) && idx->totals.have_tsc &&
		    end > idx->totals.last_tsc)
			idx->totals.last_tsc = end;
		pthread_mutex_unlock(&idx->exc_lock);
	}
	free(ta);
	return ret;
}

size_t idx_ncarried(const struct idx *idx)
{
	size_t n, c;

	if (!idx || !idx->time_pass)
		return 0;
	n = idx_nseeks(idx);
	/* Carries are published in order (the merges run in order), each
	 * good for the 16 segments from its own on. */
	c = atomic_load_explicit(&idx->ncarry, memory_order_acquire);
	if (c > (SIZE_MAX >> CARRY_SHIFT) || c << CARRY_SHIFT > n)
		return n;
	return c << CARRY_SHIFT;
}

int idx_seek_carry(const struct idx *idx, size_t i, struct tm_carry *out)
{
	struct time_arg *ta;
	size_t c, k;
	int ret;

	if (!idx || !out || i >= idx_nseeks(idx))
		return -pte_invalid;
	if (!idx->time_pass)
		return -pte_no_time;
	c = i >> CARRY_SHIFT;
	if (c >= atomic_load_explicit(&idx->ncarry, memory_order_acquire))
		return 1;
	if (!(i & ((1u << CARRY_SHIFT) - 1))) {
		*out = *carry_slot(idx, c);
		return 0;
	}
	ta = malloc(sizeof(*ta));
	if (!ta)
		return -pte_nomem;
	memset(ta, 0, sizeof(*ta));
	ta->idx = (struct idx *)idx;
	ta->memo = 1;
	tm_init(&ta->tm, &idx->cfg);
	/* From the nearest carry at or before @i: the checkpoint, or one
	 * an earlier replay left in the memo.  The lock covers the memo, not
	 * the replay: a search's lookups must not hold up the screen's. */
	tm_restore(&ta->tm, carry_slot(idx, c));
	ta->from = c << CARRY_SHIFT;
	pthread_mutex_lock(&((struct idx *)idx)->memo_lock);
	ta->memo_gen = idx->memo_gen;
	for (k = i; k > ta->from; k--) {
		const struct carry_memo *m = &idx->memo[k % MEMO_SIZE];

		if (m->seg == k) {
			tm_restore(&ta->tm, &m->carry);
			ta->from = k;
			break;
		}
	}
	pthread_mutex_unlock(&((struct idx *)idx)->memo_lock);
	ta->to = i;
	ret = ta->from < i ? idx->guard(time_body, ta) : 0;
	if (!ret)
		tm_save(&ta->tm, out);
	free(ta);
	return ret;
}


int idx_time_advance(const struct idx *idx, size_t from, size_t to,
		     struct tm_model *tm)
{
	struct idx_skim_hint hint = IDX_SKIM_HINT_INIT;
	size_t n, c, i;
	uint64_t credited;

	if (!idx || !tm || from > to || to > (n = idx_nseeks(idx)))
		return -pte_invalid;
	c = to >> CARRY_SHIFT;
	if (idx->time_pass && c << CARRY_SHIFT > from &&
	    c < atomic_load_explicit(&idx->ncarry, memory_order_acquire)) {
		tm_restore(tm, carry_slot(idx, c));
		from = c << CARRY_SHIFT;
	}
	for (i = from; i < to; i++)
		time_segment(NULL, idx->img, idx_seek_off(idx, i),
			     seg_end(idx, i, n), tm, &credited, NULL, NULL, &hint);
	return 0;
}
