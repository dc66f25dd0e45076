/*
 * index_tskim -- the time pass's skim: the packets of a segment fed to the
 * time model (and with phase 3's summaries, counted as phase 2 counts
 * them) at index speed.  index_time.c schedules it over the segments.
 */
#include <pthread.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "index_int.h"
#include "vsize.h"

/* A timing packet came: the model's estimate is its time (@jumped: no
 * gap to it, tm_tsc_jumped()). */
static inline void gacc_at(struct gacc *g, const struct tm_model *tm, uint64_t off,
			   int jumped)
{
	uint64_t t = (uint64_t)(tm->est >> 32);

	if (!g->has_first) {
		g->has_first = 1;
		g->first = t;
		g->first_off = off;
		g->first_void = jumped;
	} else if (!jumped && t >= g->prev && (!g->has_rest || t - g->prev > g->rest)) {
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

/* After the model took a packet of @type at @off: the timing packets'
 * times (a TSC, an MTC where the configuration places them) and the
 * periods and sleeps they may end (a TSC, TMA or MTC) into @g. */
static inline void gacc_pkt(struct gacc *g, const struct tm_model *tm,
			    enum pkt_type type, uint64_t off)
{
	if (type == PKT_TSC || (type == PKT_MTC && g->mtc))
		gacc_at(g, tm, off, type == PKT_TSC && tm_tsc_jumped(tm));
	if (type == PKT_TSC || type == PKT_MTC || type == PKT_TMA)
		gacc_per(g, tm, off);
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
	uint64_t nmode, nother;		/* and the mode and other classes' */
	uint64_t cycles, cmax;		/* CYC sum and largest */
#if defined(__x86_64__)
	__m128i vmax;			/* tsk16()'s largest one-byte CYCs */
#endif
};

struct tbatch;
struct tvblk;	/* tsk_vec()'s block (x86-64 only) */
#if defined(__x86_64__)
typedef const uint8_t *tsk_vec_fn(const uint8_t *p, const uint8_t *fend,
				  struct tvblk *vb, struct tbatch *bt,
				  struct tcnt *c, uint64_t *np);
static tsk_vec_fn tsk_vec_sse2, tsk_vec_avx2, tsk_vec_sse2_c, tsk_vec_avx2_c;
/* The CPU's (tsk_fill() picks), without and with counts. */
static tsk_vec_fn *tsk_vec = tsk_vec_sse2, *tsk_vec_c = tsk_vec_sse2_c;
#endif

static void tsk_fill(void)
{
	unsigned b;

	for (b = 0; b < 256; b++) {
		enum pkt_type type = PKT_INVALID;
		unsigned sz = pkt_first_byte(b, &type);

		/* CYCs and MTCs go to the model */
		if (!sz || type == PKT_CYC || type == PKT_MTC)
			continue;
		tsk_size[b] = (uint8_t)sz;
		tsk_type[b] = (uint8_t)type;
		tsk_inc[b] = 1ull << (type == PKT_PAD ? TC_SYNC :
				      type == PKT_TNT8 ? TC_BRANCH : TC_IP);
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
		tm_cyc_open(tm, v);
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
	if (g)
		gacc_pkt(g, tm, PKT_MTC, g->base_off + (uint64_t)(p - g->base));
}

/* For tsk_fast()'s tail: whether the packet at @p is a CYC of one or two
 * bytes or one sized from its first byte, and whole before @end (its
 * CYC test reads the second byte). */
static inline int tsk_whole(const uint8_t *p, const uint8_t *end)
{
	if ((*p & 3) == 3)
		return (*p & 7) != 7 || end - p >= 2;
	return tsk_size[*p] && tsk_size[*p] <= end - p;
}

/*
 * The packets at which the model only settles a pending CYC, beyond those
 * sized from their first byte: tnt.64 (a zero payload is an error),
 * mode.exec/tsx, pip and ptw (a TIP-heavy trace has one every 200 packets
 * or so; pkt_next() for each cost 3% of the time pass).  Their size and
 * *@type, counted into @c; 0 for any other.  Reads up to 8 bytes.
 */
static inline __attribute__((always_inline)) unsigned
tsk_ext(const uint8_t *p, struct tcnt *c, enum pkt_type *type)
{
	if (p[0] == 0x99 && !(p[1] & 0xc0)) {
		if (c)
			c->nmode++;
		*type = p[1] & 0x20 ? PKT_MODE_TSX : PKT_MODE_EXEC;
		return 2;
	}
	if (p[0] != 2)
		return 0;
	if (p[1] == 0xa3 && (p[2] | p[3] | p[4] | p[5] | p[6] | p[7])) {
		if (c)
			c->acc += 1ull << TC_BRANCH;
		*type = PKT_TNT64;
		return 8;
	}
	if (p[1] == 0x43) {
		if (c)
			c->nmode++;
		*type = PKT_PIP;
		return 8;
	}
	if ((p[1] & 0x5f) == 0x12) {
		/* ptw: 6 or 10 bytes (0x20 set) */
		if (c)
			c->nother++;
		*type = PKT_PTW;
		return p[1] & 0x20 ? 10 : 6;
	}
	return 0;
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
	 struct tvblk *vb, uint64_t *np_io, const int tail)
{
	/* counted in a copy the compiler keeps in registers */
	struct tcnt lc = cp ? *cp : (struct tcnt){ 0 };
	struct tcnt *c = cp ? &lc : NULL;
	int acted = *acted_io;
	struct tbatch bt = { 0 };
	uint64_t np = 0;

	while (p < fend) {
		unsigned b = *p, sz;
		enum pkt_type type;

		if (tail && !tsk_whole(p, fend))
			break;
#if defined(__x86_64__)
		if (tail) {
			/* (sized one by one) */
		} else if (bt.on && vb) {
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
		if (tail) {
			np--;
			break;
		}
		sz = tsk_ext(p, c, &type);
		if (sz) {
			tsk_elig(type, &bt, tm, fast, &acted);
			p += sz;
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
	s->per_class[PKC_MODE] += c->nmode;
	s->per_class[PKC_OTHER] += c->nother;
	s->npackets += (a >> TC_SYNC & 0xffff) + (a >> TC_BRANCH & 0xffff) +
		       (a >> TC_IP & 0xffff) + (a >> TC_TIMING & 0xffff) +
		       c->nmode + c->nother;
	c->acc = 0;
	c->nmode = c->nother = 0;
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
	struct tvblk blk, *vb = &blk;

	blk.q = NULL;
#else
	struct tvblk *vb = NULL;	/* no sparse loop */
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
			p = tsk_fast(p, fend, tm, g, &fast, &acted, count ? &c : NULL,
				     hint->sparse ? vb : NULL, &np, 0);
			if (hint->sparse && vb)
				hint->vec_bytes += (uint64_t)(p - from);
			idx_skim_learn(hint, (uint64_t)(p - from), np);
			if (count)
				tcnt_flush(&c, s);
			if (p >= end)
				break;
			if (p >= next)
				continue;
		} else if (dec.bip_sz < 0) {
			uint64_t np = 0;

			/* The segment's last bytes: its CYCs and the packets
			 * sized from their first byte the same way, the rest
			 * (and any cut short) by pkt_next() (a 4 KiB segment
			 * of a TIP-heavy trace has ten packets there) */
			p = tsk_fast(p, end, tm, g, &fast, &acted, count ? &c : NULL,
				     NULL, &np, 1);
			if (count)
				tcnt_flush(&c, s);
			if (p >= end)
				break;
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
		if (g)
			gacc_pkt(g, tm, pkt.type, pkt.offset);
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

int idx_time_segment(struct idx *idx, const struct img *img, uint64_t off,
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
		if (g)
			gacc_pkt(g, tm, pkt.type, pkt.offset);
	}
	return 0;
}
