/*
 * iter -- loop iterations from the hits of a predicate (iter.h): the walk
 * in a background thread, then durations and statistics.
 *
 * One pass over units of segments, on all cores, in a spread order (unit
 * 0, the middle, the quarters, ...: bit-reversed), so the units walked
 * so far sample the whole trace and iter_partial() can show a
 * representative picture early.  A unit first runs the predicate alone
 * (which packets are boundaries, and where data was lost), then gives a
 * time to each of its boundaries a measured iteration may start or end
 * at, each walked from the index's carry at its segment, and the PSB+
 * TSCs that begin it and the next one say whether time ran ahead there
 * (iter_ahead()); its last
 * bounded boundary's upper bound is looked for past the unit, up to the
 * next CYC, loss or boundary (the predicate runs there too).  Once every
 * unit is walked they are joined in order: data lost at the end of one
 * breaks the iteration to the next one's first boundary, a unit's last
 * boundary after lost data is timed now if that iteration is measured
 * (iter_fix()), and a boundary no measured iteration touches loses its
 * time (iter_untime()), as in the straight walk.  When the units walked
 * hold max_bounds boundaries, the rest go front to back, and the walk
 * stops once the first units hold more than max_bounds.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__)
#include <emmintrin.h>
#endif

#include "iter.h"
#include "iter_int.h"
#include "pool.h"
#include "tm.h"

#define ITER_MAX_BOUNDS	((size_t)1 << 22)
#define CANCEL_STEP	(256u << 10)	/* bytes between cancel checks */
#define UNIT_SEGS	256		/* segments per unit at most: about a
					 * MiB, a few ms, so a 4 GiB trace's
					 * first units are done early */
#define NONE		SIZE_MAX

/* What one unit (a run of segments) found. */
struct iter_unit {
	struct iter_bound *b;	/* its boundaries; the first one's lost
				 * flag tells of this unit only */
	size_t n, cap;
	uint64_t begin, end;	/* its first byte, its last byte + 1 */
	uint8_t tail_lost;	/* data lost after its last boundary */
	uint8_t defer;		/* its last boundary's time is left to the
				 * join (iter_unit_needs()) */
	uint8_t taken;		/* a worker has it (under the job's mu) */
	uint8_t done;		/* walked: b, n, tail_lost hold (mu) */
};

struct iter_job {
	const struct img *img;
	const struct idx *idx;
	struct srch_pred *pred;
	struct tm_config cfg;
	struct iter_opts opts;
	pthread_t thread;
	atomic_int cancel;	/* the owner's (iter_cancel()) */
	atomic_int stop;	/* the pool's: set by iter_cancel() */
	atomic_int finished;
	/* mu guards the units' taking and results, the fields to its
	 * comment's end, and the swap of units for the result (b) */
	pthread_mutex_t mu;
	struct iter_unit *units;
	size_t nunits, unit_segs;
	size_t *order;		/* the units in the spread order */
	size_t spread;		/* the next of order[] to look at */
	size_t front;		/* the first unit that may not be taken */
	int in_order;		/* the units done hold max_bounds
				 * boundaries: the rest go front to back */
	size_t held;		/* boundaries in the units done */
	size_t pfx;		/* units 0 .. pfx - 1 are all done */
	size_t pfx_bounds;	/* and hold this many boundaries */
	size_t cut;		/* the unit past which max_bounds is
				 * certainly reached: later ones need not
				 * run (NONE: not known) */
	uint64_t done_bytes;	/* in the units done */
	/* (end of mu's) */
	unsigned classes;	/* the classes of the predicate's types */
	atomic_size_t nbounds;	/* while running: boundaries in the units
				 * done; then the result's */
	atomic_uint_fast64_t done;	/* done_bytes, for iter_progress() */
	int status;
	int truncated;
	int joined;
	struct iter_bound *b;	/* the result, once finished */
	size_t cap;
	uint64_t *offs;		/* iter_opts.offsets' copy, or NULL */
	size_t noffs;
};

/* Whether the walk must stop: the owner cancelled, or the pool stopped. */
static int iter_stopped(struct iter_job *j)
{
	return atomic_load(&j->cancel) || atomic_load(&j->stop);
}

/* A walk through packets: the find pass's (and the straight walk's), or
 * the time pass's. */
struct iter_walk {
	struct iter_job *j;
	struct srch_ctx ctx;	/* the find pass: the segment's */
	uint64_t types;		/* srch_pred_types() */
	struct iter_unit *u;	/* the find pass: where boundaries go */
	int timed;		/* the straight walk: the model runs too */
	int lost;		/* data lost since the last boundary */
	int want_hi;		/* the straight walk: the last boundary
				 * awaits its upper bound */
	size_t pend;		/* the straight walk: the first boundary
				 * awaiting the next PSB+ TSC (ahead) */
	int in_psb;		/* the straight walk: in PSB+, before its
				 * TSC */
	struct tm_model tm;
	uint64_t find_from;	/* packets from here on are looked at as
				 * boundaries (srch_ctx kept): the find
				 * pass's 0, the time pass's past its unit */
	/* the time pass */
	struct iter_bound *b;	/* the unit's boundaries */
	size_t nb;		/* how many */
	int last;		/* the last one needs its time even after
				 * lost data (iter_unit_needs()) */
	size_t bi;		/* the next boundary to meet */
	uint64_t next_off;	/* boundary bi's offset (UINT64_MAX: none) */
	size_t want;		/* the boundary awaiting its upper bound */
	int cont;		/* the segment holds no boundary to time:
				 * stop once nothing is awaited */
	size_t oi;		/* the find pass with given offsets: the
				 * first not passed yet */
	uint64_t quick;		/* the find pass, for a predicate that needs
				 * neither IPs nor time (srch_ctx): the
				 * types a packet must have to be looked at
				 * (boundaries' and OVF), else all */
	/* one packet: 0 go on, 1 stop the segment, < 0 an error */
	int (*packet)(struct iter_walk *w, const struct pkt *pkt);
	/* data lost here: 1 stop the segment */
	int (*lose)(struct iter_walk *w);
};

/* Append @b to @u's boundaries.  Returns 0 or -pte_nomem. */
static int iter_push(struct iter_unit *u, const struct iter_bound *b)
{
	if (u->n == u->cap) {
		size_t cap = u->cap ? u->cap * 2 : 64;
		struct iter_bound *v = realloc(u->b, cap * sizeof(*v));

		if (!v)
			return -pte_nomem;
		u->b = v;
		u->cap = cap;
	}
	u->b[u->n++] = *b;
	return 0;
}

/* Whether boundary @k of @b[@nb] starts or ends a measured iteration
 * (then it needs its time). */
static inline int iter_needed(const struct iter_bound *b, size_t nb, size_t k)
{
	return (k && !b[k].lost) || (k + 1 < nb && !b[k + 1].lost);
}

/* Whether boundary @k of a unit's @b[@nb] may need its time, as far as
 * the unit can tell (a superset of iter_needed()'s: its first one's lost
 * flag may still be set by data lost in an earlier unit); its last one,
 * if data was lost before it, only if @last -- else only the next unit's
 * first boundary tells, and the join times it if need be (iter_fix()),
 * rather than every unit replaying the model up to an OVF's. */
static inline int iter_unit_needs(const struct iter_bound *b, size_t nb, size_t k,
				  int last)
{
	return !b[k].lost || (k + 1 < nb ? !b[k + 1].lost : last);
}

/* Whether @pkt is a boundary, its walk's srch_ctx fed with it. */
static int iter_is_bound(struct iter_walk *w, const struct pkt *pkt)
{
	const struct iter_job *j = w->j;

	if (w->ctx.need_ip || w->ctx.use_tm)
		srch_step(&w->ctx, pkt);	/* else it would keep nothing */
	if (j->offs) {
		while (w->oi < j->noffs && j->offs[w->oi] < pkt->offset)
			w->oi++;
		return w->oi < j->noffs && j->offs[w->oi] == pkt->offset;
	}
	return w->types >> pkt->type & 1 && srch_match(j->pred, pkt, &w->ctx);
}

/* Whether stamp @st of boundary @pkt is a timing packet's own time (an
 * anchor): a TSC, or an MTC the configuration places on the crystal
 * clock, the estimate not ahead of it, no data lost before it; as a
 * region's edges are (marks_summary.c), so an iteration between two is
 * exact in time as a region between them is.  Returns 1 or 0. */
static int iter_anchor(const struct pkt *pkt, const struct tm_stamp *st)
{
	if (st->flags & (TM_F_CLAMPED | TM_F_LOST | TM_F_TSC_BACK | TM_F_REL))
		return 0;
	return pkt->type == PKT_TSC ||
	       (pkt->type == PKT_MTC && !(st->flags & (TM_F_UNTIED | TM_F_NO_CONFIG)));
}

/* The straight walk's PSB+ (iter_psb_verdict() for the time pass): the
 * boundaries since the last PSB+ TSC await the next one, which says
 * whether time ran ahead (iter_bound.ahead); a PSB+ without a TSC (its
 * PSBEND, the next PSB, or data lost in it) says nothing of them.
 * @pkt is stepped to @st if it is a TSC of PSB+ (a boundary's stamp
 * already, if @stepped).  Before the boundary @pkt may be is pushed. */
static void iter_pend(struct iter_walk *w, const struct pkt *pkt, struct tm_stamp *st,
		      int stepped)
{
	struct iter_unit *u = w->u;
	size_t k;

	if (pkt->type == PKT_PSB) {
		if (w->in_psb)
			w->pend = u->n;
		w->in_psb = 1;
	} else if (w->in_psb && pkt->type == PKT_PSBEND) {
		w->pend = u->n;
		w->in_psb = 0;
	} else if (w->in_psb && pkt->type == PKT_TSC) {
		if (!stepped)
			tm_step(&w->tm, pkt, st);
		for (k = w->pend; st->flags & TM_F_RESYNC && k < u->n; k++)
			u->b[k].ahead = 1;
		w->pend = u->n;
		w->in_psb = 0;
	}
}

/* The find pass's packet (and, @w->timed, the straight walk's, where the
 * model runs through every packet): a boundary if the predicate holds;
 * at the next CYC, the last boundary's upper cycle bound.
 * Returns 0 or -pte_nomem. */
static int iter_find_packet(struct iter_walk *w, const struct pkt *pkt)
{
	struct iter_unit *u = w->u;
	struct tm_stamp st;
	struct iter_bound b;
	int r;

	if (pkt->type == PKT_OVF)
		w->lost = 1;
	if (!iter_is_bound(w, pkt)) {
		if (!w->timed)
			return 0;
		if (w->in_psb && pkt->type == PKT_TSC) {
			iter_pend(w, pkt, &st, 0);
			return 0;
		}
		iter_pend(w, pkt, &st, 1);
		if (pkt->type == PKT_CYC && w->want_hi) {
			tm_step(&w->tm, pkt, &st);
			u->b[u->n - 1].cyc_hi = st.cycles;
			w->want_hi = 0;
			return 0;
		}
		tm_advance(&w->tm, pkt);
		return 0;
	}
	memset(&b, 0, sizeof(b));
	b.offset = pkt->offset;
	b.lost = (uint8_t)w->lost;
	if (w->timed) {
		tm_step(&w->tm, pkt, &st);
		iter_pend(w, pkt, &st, 1);
		b.tsc = st.tsc;
		b.cyc_lo = st.cycles;
		b.cyc_hi = (st.flags & TM_F_BOUNDED) ? UINT64_MAX : st.cycles;
		b.flags = st.flags;
		b.anchor = (uint8_t)iter_anchor(pkt, &st);
		b.timed = 1;
		w->want_hi = (st.flags & TM_F_BOUNDED) != 0;
	}
	r = iter_push(u, &b);
	if (r)
		return r;
	w->lost = 0;
	return 0;
}

/* Data was lost here (a decode error, a gap): the next boundary's
 * iteration is broken, and the last boundary's upper bound stays
 * unknown.  Returns 0: the segment goes on (or ends, on an error). */
static int iter_find_lose(struct iter_walk *w)
{
	if (w->timed) {
		tm_gap(&w->tm);
		w->want_hi = 0;
		if (w->in_psb)
			w->pend = w->u->n;	/* its TSC is lost */
		w->in_psb = 0;
	}
	w->lost = 1;
	return 0;
}

/* The offset of the unit's boundary @k, or UINT64_MAX past them. */
static inline uint64_t iter_off(const struct iter_walk *w, size_t k)
{
	return k < w->nb ? w->b[k].offset : UINT64_MAX;
}

/* The time pass's packet: at a boundary, its time (if it may need one);
 * at the next CYC, that boundary's upper cycle bound; past the unit, a
 * boundary ends the wait for it (as the straight walk's next boundary
 * does).
 * Returns 0, or 1 in a segment walked only for the bound once it came
 * (or cannot come). */
static int iter_time_packet(struct iter_walk *w, const struct pkt *pkt)
{
	struct tm_stamp st;
	struct iter_bound *x;

	if (pkt->offset >= w->find_from && iter_is_bound(w, pkt)) {
		w->want = NONE;
		return 1;
	}
	if (pkt->offset == w->next_off) {
		tm_step(&w->tm, pkt, &st);
		x = &w->b[w->bi];
		w->want = NONE;
		if (iter_unit_needs(w->b, w->nb, w->bi, w->last)) {
			x->tsc = st.tsc;
			x->cyc_lo = st.cycles;
			x->cyc_hi = (st.flags & TM_F_BOUNDED) ? UINT64_MAX : st.cycles;
			x->flags = st.flags;
			x->anchor = (uint8_t)iter_anchor(pkt, &st);
			x->timed = 1;
			if (st.flags & TM_F_BOUNDED)
				w->want = w->bi;
		}
		w->next_off = iter_off(w, ++w->bi);
		return w->cont && w->want == NONE;
	}
	if (w->want != NONE && pkt->type == PKT_CYC) {
		tm_step(&w->tm, pkt, &st);
		w->b[w->want].cyc_hi = st.cycles;
		w->want = NONE;
		return w->cont;
	}
	tm_advance(&w->tm, pkt);
	return 0;
}

/* The time pass: data lost here, the awaited bound is not coming.
 * Returns 1 where the segment was walked only for it. */
static int iter_time_lose(struct iter_walk *w)
{
	tm_gap(&w->tm);
	w->want = NONE;
	return w->cont;
}

/* The find pass's sizes of the packets that make up nearly all of a
 * trace, from their first byte (0: ask pkt_next()), and their types. */
static uint8_t iq_size[256], iq_type[256];
static pthread_once_t iq_once = PTHREAD_ONCE_INIT;

static void iq_fill(void)
{
	unsigned b;

	for (b = 0; b < 256; b++) {
		enum pkt_type type = PKT_INVALID;

		iq_size[b] = (uint8_t)pkt_first_byte(b, &type);
		iq_type[b] = (uint8_t)type;
	}
}

/* The find pass's fast loop (@w->quick: only packets of those types are
 * looked at) over [@p, @fend), which ends at least PKT_MAX_SIZE bytes
 * before the segment does: packets sized from their first byte are
 * stepped over.  Returns where it stopped: @fend, or a packet pkt_next()
 * must decode (one it does not size, or one of those types). */
static inline const uint8_t *iter_quick(const struct iter_walk *w, const uint8_t *p,
					const uint8_t *fend)
{
	uint64_t quick = w->quick;
#if defined(__x86_64__)
	/* the one-byte packets (pad, tnt.8, cyc) are stepped over sixteen
	 * bytes at a time where none of them is looked at */
	const int runs = !(quick & (1ull << PKT_PAD | 1ull << PKT_TNT8 |
				    1ull << PKT_CYC));
#endif

	while (p < fend) {
		unsigned b = *p, sz = iq_size[b];

#if defined(__x86_64__)
		if (runs && sz == 1) {
			__m128i v = _mm_loadu_si128((const __m128i *)p);
			unsigned meven = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(
				_mm_and_si128(v, _mm_set1_epi8(1)), _mm_setzero_si128()));
			unsigned mtwo = (unsigned)_mm_movemask_epi8(
				_mm_cmpeq_epi8(v, _mm_set1_epi8(2)));
			unsigned mcyc = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(
				_mm_and_si128(v, _mm_set1_epi8(7)), _mm_set1_epi8(3)));
			unsigned ok = ((meven & ~mtwo) | mcyc) & 0xffff;
			unsigned j = ok == 0xffff ? 16 : (unsigned)__builtin_ctz(~ok);

			/* (none: a one-byte packet of another kind, such as
			 * a tip.pgd without an IP) */
			if (j) {
				p += j;
				continue;
			}
		}
#endif
		if (sz) {
			if (quick >> iq_type[b] & 1)
				break;
			p += sz;
		} else if ((b & 7) == 7 && !(p[1] & 1) && !(quick >> PKT_CYC & 1)) {
			p += 2;		/* a cyc with one extension byte */
		} else {
			break;
		}
	}
	return p;
}

/* The time pass in a segment, at @dec (segment [@off, @end), where no
 * bound is awaited: the packets up to the next boundary that needs its
 * time fed to the model at once (idx_time_feed()), @dec left there for
 * the walk to take the boundary; with none left, the rest of the segment.
 * Returns 0 (@dec at the boundary), 1 (the segment is done) or a
 * negative error code. */
static int iter_time_skip(struct iter_walk *w, struct pkt_decoder *dec,
			  uint64_t off, uint64_t end)
{
	struct iter_job *j = w->j;
	const uint8_t *start = dec->begin + (off - dec->base);
	uint64_t at = dec->base + (uint64_t)(dec->pos - dec->begin), to = end;
	size_t k;
	int r;

	for (k = w->bi; k < w->nb && w->b[k].offset < end &&
	     !iter_unit_needs(w->b, w->nb, k, w->last); k++)
		;
	if (k < w->nb && w->b[k].offset < end) {
		to = w->b[k].offset;
		w->bi = k;
		w->next_off = to;
	}
	if (to > at) {
		r = idx_time_feed(dec, start + (to - off), &w->tm, &j->stop);
		if (r < 0)
			return r;
		if (r)
			return 1;	/* the rest of the segment is lost */
	}
	return to == end;
}

/* Walk segment [@off, @end) inside span @sp: a plain cursor bounded by
 * the segment, so a packet running into the next PSB is cut (an error),
 * as through an image cursor, without its cost per packet.
 * Returns 0, 1 if it stopped early, -pte_canceled or -pte_nomem. */
static int iter_span(struct iter_walk *w, const struct img_span *sp, uint64_t off,
		     uint64_t end)
{
	struct pkt_decoder dec;
	struct pkt pkt;
	uint64_t next = off + CANCEL_STEP;
	int r;

	if (pkt_decoder_init(&dec, sp->data + (off - sp->off),
			     sp->data + (end - sp->off), off) < 0)
		return 0;
	if (w->quick != ~0ull)
		pthread_once(&iq_once, iq_fill);
	for (;;) {
		/* the time pass, nothing awaited: the time pass's fast walk
		 * up to the next boundary to time, or to the segment's end */
		if (w->packet == iter_time_packet && w->want == NONE && dec.bip_sz < 0) {
			r = iter_time_skip(w, &dec, off, end);
			if (r)
				return r > 0 ? 0 : r;
		}
		/* outside a block, a TNT's byte cannot be a BIP's */
		if (w->quick != ~0ull && dec.bip_sz < 0 && dec.end - dec.pos > PKT_MAX_SIZE) {
			const uint8_t *fend = dec.end - PKT_MAX_SIZE;

			if (fend - dec.pos > CANCEL_STEP)
				fend = dec.pos + CANCEL_STEP;
			dec.pos = iter_quick(w, dec.pos, fend);
			if (dec.pos >= fend) {
				if (iter_stopped(w->j))
					return -pte_canceled;
				continue;
			}
		}
		r = pkt_next(&dec, &pkt);
		if (r == -pte_eos)
			return 0;
		if (r < 0) {
			w->lose(w);	/* the rest of the segment is lost */
			return 0;
		}
		if (!(w->quick >> pkt.type & 1))
			continue;
		r = w->packet(w, &pkt);
		if (r)
			return r;
		if (pkt.offset >= next) {
			if (iter_stopped(w->j))
				return -pte_canceled;
			next = pkt.offset + CANCEL_STEP;
		}
	}
}

/* The first of the given offsets at or after @off. */
static size_t iter_offs_lower(const struct iter_job *j, uint64_t off)
{
	size_t lo = 0, hi = j->noffs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (j->offs[mid] < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Walk segment [@off, @end) from its PSB, as the index's time pass does
 * (a decode error or a gap between spans loses data; an error ends the
 * segment).  Returns 0, 1 if it stopped early, -pte_canceled or
 * -pte_nomem. */
static int iter_segment(struct iter_walk *w, uint64_t off, uint64_t end)
{
	struct iter_job *j = w->j;
	struct img_cursor cur;
	struct pkt pkt;
	uint64_t next = off + CANCEL_STEP;
	long si = img_span_of(j->img, off);
	int r;

	if (img_gap_at(j->img, off) && w->lose(w))
		return 1;
	w->quick = ~0ull;
	if (off >= w->find_from && j->offs) {
		w->oi = iter_offs_lower(j, off);
	} else if (off >= w->find_from) {
		srch_ctx_init(&w->ctx, j->pred, j->img);
		if (w->packet == iter_find_packet && !w->timed && !w->ctx.need_ip &&
		    !w->ctx.use_tm)
			w->quick = w->types | 1ull << PKT_OVF;
	}
	if (si >= 0 && end <= j->img->spans[si].off + j->img->spans[si].size)
		return iter_span(w, &j->img->spans[si], off, end);
	if (img_cursor_init(&cur, j->img, off) < 0)
		return 0;
	while (img_cursor_offset(&cur) < end) {
		if (img_cursor_offset(&cur) >= next) {
			if (iter_stopped(j))
				return -pte_canceled;
			next = img_cursor_offset(&cur) + CANCEL_STEP;
		}
		r = img_cursor_next(&cur, &pkt);
		if (r == -pte_eos)
			return 0;
		if (cur.gap) {
			cur.gap = 0;
			if (w->lose(w))
				return 1;
		}
		if (r >= 0 && pkt.offset + pkt.size > end)
			r = -pte_truncated;
		if (r < 0) {
			w->lose(w);	/* the rest of the segment is lost */
			return 0;
		}
		r = w->packet(w, &pkt);
		if (r)
			return r;
	}
	return 0;
}

/* A unit for a guarded body: the job and the unit's number. */
struct iter_unit_arg {
	struct iter_job *j;
	size_t k;
};

/* Whether segment @i may hold a boundary (srch_segment_may_hit()); if
 * not, *@lost is set where its summary or the image tells of lost data.
 * One summary read decides for most segments (a million on 4 GiB): the
 * classes of the predicate's types first, then the predicate on the
 * summary, the bytes only where those may match. */
static int iter_may_hit(const struct iter_job *j, size_t i, int *lost)
{
	struct idx_summary sum;
	struct idx_seek sk;
	int c;

	if (idx_summary_counts(j->idx, i, &sum))
		return 1;
	if (j->offs) {
		uint64_t off, end;
		size_t k;

		/* a given offset in the segment */
		if (idx_segment_span(j->idx, i, &off, &end))
			return 1;
		k = iter_offs_lower(j, off);
		if (k < j->noffs && j->offs[k] < end)
			return 1;
	} else {
		/* a boundary is a packet of the predicate's types: of their
		 * classes */
		for (c = 0; c < PKC_NCLASSES &&
		     !(j->classes >> c & 1 && sum.per_class[c]); c++)
			;
		if (c < PKC_NCLASSES && srch_segment_may_match(j->pred, &sum) &&
		    srch_segment_may_hit(j->pred, j->img, j->idx, i))
			return 1;
	}
	/* one span: no gap but at the end (a lost tail holds no PSB) */
	if (idx_summary_trouble(&sum) ||
	    (j->img->nspans > 1 && !idx_seek(j->idx, i, &sk) &&
	     img_gap_at(j->img, sk.offset)))
		*lost = 1;
	return 0;
}

/* Find, unit @u of segments [@s0, @s1): its boundaries and where data
 * was lost; a segment that cannot hold a boundary (srch_segment_may_hit())
 * is not walked, its summary telling of lost data.  With
 * iter_opts.straight, one unit walks every packet of every segment from
 * the start with the model (the reference).
 * Returns 0 or a negative error code. */
static int iter_find(struct iter_job *j, struct iter_unit *u, size_t s0, size_t s1)
{
	struct iter_walk w = { .j = j, .u = u, .types = srch_pred_types(j->pred),
			       .packet = iter_find_packet, .lose = iter_find_lose };
	struct tm_carry c;
	uint64_t off, end;
	size_t i;
	int r;

	if (j->opts.straight) {
		w.timed = 1;
		tm_init(&w.tm, &j->cfg);
		r = idx_seek_carry(j->idx, s0, &c);
		if (r < 0)
			return r;
		if (!r)
			tm_restore(&w.tm, &c);
	}
	for (i = s0; i < s1; i++) {
		if (!j->opts.straight && !iter_may_hit(j, i, &w.lost))
			continue;
		if (idx_segment_span(j->idx, i, &off, &end))
			return -pte_internal;
		r = iter_segment(&w, off, end);
		if (r < 0)
			return r;
		if (iter_stopped(j))
			return -pte_canceled;
	}
	u->tail_lost = (uint8_t)w.lost;
	return 0;
}

/* The first of @b[@nb] at or after offset @off. */
static size_t iter_lower(const struct iter_bound *b, size_t nb, uint64_t off)
{
	size_t lo = 0, hi = nb;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (b[mid].offset < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Bring @w->tm to the start of segment @i: from segment *@at, where it
 * is (NONE: nowhere), with the index's carries and fast walk.  Returns 0
 * or a negative error code. */
static int iter_time_seek(struct iter_walk *w, size_t at, size_t i)
{
	struct tm_carry c;
	int r;

	if (at != NONE && at <= i)
		return at < i && idx_time_advance(w->j->idx, at, i, &w->tm) ?
			-pte_internal : 0;
	tm_init(&w->tm, &w->j->cfg);
	r = idx_seek_carry(w->j->idx, i, &c);
	if (r < 0)
		return r;
	if (!r)
		tm_restore(&w->tm, &c);
	return 0;
}

/* The PSB+ of segment @k, model @tm (a copy: it is stepped) at its
 * start, as the straight walk sees it (iter_pend()): whether its TSC took
 * time back (TM_F_RESYNC), and where the boundaries that take that
 * verdict end (*@cut): at the TSC, else at its PSBEND, where data was
 * lost in it, or at the segment's end.  Returns 1 or 0. */
static int iter_psb_verdict(const struct iter_job *j, struct tm_model *tm, size_t k,
			    uint64_t *cut)
{
	struct img_cursor cur;
	struct tm_stamp st;
	struct pkt pkt;
	uint64_t off, end;

	*cut = UINT64_MAX;
	if (idx_segment_span(j->idx, k, &off, &end))
		return 0;
	*cut = end;
	if (img_cursor_init(&cur, j->img, off) < 0)
		return 0;
	while (img_cursor_offset(&cur) < end) {
		uint64_t at = img_cursor_offset(&cur);
		int r = img_cursor_next(&cur, &pkt);

		if (r < 0 || cur.gap || pkt.offset + pkt.size > end) {
			*cut = r < 0 || !cur.gap ? at : pkt.offset;
			return 0;
		}
		if (pkt.type == PKT_TSC) {
			tm_step(tm, &pkt, &st);
			*cut = pkt.offset;
			return (st.flags & TM_F_RESYNC) != 0;
		}
		if (pkt.type == PKT_PSBEND) {
			*cut = pkt.offset;
			return 0;
		}
		tm_advance(tm, &pkt);
	}
	return 0;
}

/* The ahead flags of @u's timed boundaries in segment @i (bytes
 * [@off, @end)), walked from model @t0 to model @t1 (at its end): those
 * before its PSB+ TSC take that TSC's verdict, the others the next
 * segment's (iter_psb_verdict()).  Returns 0. */
static int iter_ahead(struct iter_job *j, struct iter_unit *u, size_t i, uint64_t off,
		      uint64_t end, const struct tm_model *t0, const struct tm_model *t1)
{
	struct tm_model tm = *t0;
	uint64_t cut, cut1;
	int own = iter_psb_verdict(j, &tm, i, &cut), next = 0;
	size_t k;

	tm = *t1;
	if (i + 1 < idx_nseeks(j->idx))
		next = iter_psb_verdict(j, &tm, i + 1, &cut1);
	for (k = iter_lower(u->b, u->n, off); k < u->n && u->b[k].offset < end; k++)
		if (u->b[k].timed)
			u->b[k].ahead = (uint8_t)(u->b[k].offset < cut ? own : next);
	return 0;
}

/* Time, unit @u (its segments end before segment @s1): the time of each
 * of its boundaries that may need one (iter_unit_needs(), with @last),
 * each segment
 * holding one walked from the model's state at its start (the index's
 * carries), and on past it while its upper bound is awaited -- past the
 * unit too, up to the next boundary (the predicate runs there).
 * Returns 0 or a negative error code. */
static int iter_time(struct iter_job *j, struct iter_unit *u, size_t s1, int last)
{
	size_t n = idx_nseeks(j->idx), nb = u->n, i = NONE, at = NONE, nk;
	struct iter_walk w = { .j = j, .b = u->b, .nb = nb, .want = NONE, .last = last,
			       .types = srch_pred_types(j->pred), .find_from = UINT64_MAX,
			       .packet = iter_time_packet, .lose = iter_time_lose };
	struct tm_model t0;
	uint64_t off, end;
	int r;

	if (s1 < n && idx_segment_span(j->idx, s1, &w.find_from, &end))
		return -pte_internal;
	for (;;) {
		if (w.want != NONE) {
			i++;	/* on for the awaited bound */
		} else {
			for (nk = w.bi; nk < nb && !iter_unit_needs(u->b, nb, nk, last); nk++)
				;
			if (nk >= nb || idx_find(j->idx, u->b[nk].offset, &i))
				break;
		}
		if (i >= n || idx_segment_span(j->idx, i, &off, &end))
			break;
		w.bi = iter_lower(u->b, nb, off);
		w.next_off = iter_off(&w, w.bi);
		for (nk = w.bi; nk < nb && u->b[nk].offset < end &&
		     !iter_unit_needs(u->b, nb, nk, last); nk++)
			;
		w.cont = !(nk < nb && u->b[nk].offset < end);
		if (w.cont && w.want == NONE)
			break;
		r = iter_time_seek(&w, at, i);
		if (r < 0)
			return r;
		t0 = w.tm;
		r = iter_segment(&w, off, end);
		if (r < 0)
			return r;
		if (r) {
			w.tm = t0;	/* stopped inside: back to its start */
			at = i;
		} else {
			at = i + 1;
			/* (one that holds boundaries to time is walked
			 * whole) */
			if (!w.cont)
				iter_ahead(j, u, i, off, end, &t0, &w.tm);
		}
		if (iter_stopped(j))
			return -pte_canceled;
	}
	return 0;
}

/* Unit @a->k: find its boundaries, then time them. */
static int iter_unit_body(void *arg)
{
	const struct iter_unit_arg *a = arg;
	struct iter_job *j = a->j;
	size_t n = idx_nseeks(j->idx), s0 = a->k * j->unit_segs;
	size_t s1 = s0 + j->unit_segs < n ? s0 + j->unit_segs : n;
	struct iter_unit *u = &j->units[a->k];
	int r = iter_find(j, u, s0, s1);

	if (r || j->opts.straight)
		return r;
	u->defer = u->n && u->b[u->n - 1].lost;
	return iter_time(j, u, s1, 0);
}

/* The next unit to walk: in the spread order, or front to back once the
 * units done hold max_bounds boundaries (the result is then the first
 * units'); *@skip set if it lies past the unit where max_bounds is
 * certainly reached.  Returns its number, or NONE if none is left. */
static size_t iter_take(struct iter_job *j, int *skip)
{
	size_t k = NONE;

	pthread_mutex_lock(&j->mu);
	if (!j->in_order) {
		while (j->spread < j->nunits && j->units[j->order[j->spread]].taken)
			j->spread++;
		if (j->spread < j->nunits)
			k = j->order[j->spread];
	}
	if (k == NONE) {
		while (j->front < j->nunits && j->units[j->front].taken)
			j->front++;
		if (j->front < j->nunits)
			k = j->front;
	}
	if (k != NONE)
		j->units[k].taken = 1;
	*skip = k != NONE && j->cut != NONE && k > j->cut;
	pthread_mutex_unlock(&j->mu);
	return k;
}

/* Unit @k is walked: iter_partial() may show it; the units done from the
 * front and what they hold, against max_bounds. */
static void iter_done(struct iter_job *j, size_t k)
{
	struct iter_unit *u = &j->units[k];

	pthread_mutex_lock(&j->mu);
	u->done = 1;
	j->held += u->n;
	j->done_bytes += u->end - u->begin;
	if (j->held >= j->opts.max_bounds)
		j->in_order = 1;
	for (; j->pfx < j->nunits && j->units[j->pfx].done; j->pfx++) {
		j->pfx_bounds += j->units[j->pfx].n;
		if (j->cut == NONE && j->pfx_bounds > j->opts.max_bounds)
			j->cut = j->pfx;
	}
	atomic_store(&j->nbounds, j->held);
	atomic_store(&j->done, j->done_bytes);
	pthread_mutex_unlock(&j->mu);
}

/* iter_opts.pace_ms (tests): wait, looking at the stop flags. */
static void iter_pace(struct iter_job *j)
{
	struct timespec ts = { 0, 5 * 1000 * 1000 };
	unsigned ms;

	for (ms = 0; ms < j->opts.pace_ms && !iter_stopped(j); ms += 5)
		nanosleep(&ts, NULL);
}

/* Pool run @k: a unit taken by iter_take() (the pool's order is not the
 * walk's), under the guard: a worker reads the mapping. */
static int iter_run(void *ctx, unsigned worker, size_t k)
{
	struct iter_job *j = ctx;
	struct iter_unit_arg a = { j, 0 };
	int skip, r;

	(void)worker;
	(void)k;
	a.k = iter_take(j, &skip);
	if (a.k == NONE)
		return -pte_internal;
	if (skip)
		return 0;
	r = j->opts.guard ? j->opts.guard(iter_unit_body, &a) : iter_unit_body(&a);
	if (r)
		return r;
	iter_done(j, a.k);
	iter_pace(j);
	return 0;
}

/* The pool's merge: the units' results are taken by iter_join(). */
static int iter_merge(void *ctx, size_t k)
{
	(void)ctx;
	(void)k;
	return 0;
}

/* Run every unit on the pool.  Returns 0 or a negative error code. */
static int iter_pass(struct iter_job *j, unsigned nthreads)
{
	struct pool_cfg cfg = { 0 };
	struct pool *p = NULL;
	int r;

	cfg.nthreads = nthreads;
	cfg.nunits = j->nunits;
	cfg.run = iter_run;
	cfg.ctx = j;
	cfg.cancel = &j->stop;
	r = pool_start(&p, &cfg);
	if (r < 0)
		return r;
	r = pool_merge(p, iter_merge);
	pool_free(p);
	return r;
}

/* The units' boundaries joined in order into the result (the first
 * max_bounds: truncated set if there are more), data lost at the end of
 * one marked on the next boundary; the boundaries whose
 * time was left to the join (iter_unit.defer) into a new array
 * *@fix[*@nfix].  Returns 0 or -pte_nomem. */
static int iter_join(struct iter_job *j, size_t **fix, size_t *nfix)
{
	size_t k, nb = 0, want, m;
	struct iter_bound *b;
	int lost = 0;

	for (k = 0; k < j->nunits; k++)
		nb += j->units[k].n;
	want = nb > j->opts.max_bounds ? j->opts.max_bounds : nb;
	b = malloc((want ? want : 1) * sizeof(*b));
	*fix = malloc(j->nunits * sizeof(**fix));
	*nfix = 0;
	if (!b || !*fix) {
		free(b);
		return -pte_nomem;
	}
	for (nb = 0, k = 0; k < j->nunits && nb < want; k++) {
		const struct iter_unit *u = &j->units[k];

		m = u->n < want - nb ? u->n : want - nb;
		if (m) {
			memcpy(b + nb, u->b, m * sizeof(*b));
			b[nb].lost |= (uint8_t)lost;
			lost = u->tail_lost;
			nb += m;
			if (u->defer && m == u->n)
				(*fix)[(*nfix)++] = nb - 1;
		} else {
			lost |= u->tail_lost;
		}
	}
	/* (the units' stay for iter_partial() until the job ends) */
	pthread_mutex_lock(&j->mu);
	j->truncated = want < j->held;
	j->b = b;
	j->cap = want;
	atomic_store(&j->nbounds, want);
	pthread_mutex_unlock(&j->mu);
	return 0;
}

/* The boundaries @fix[@nfix] of the result whose units left their time
 * to the join: each one a measured iteration starts at is walked to
 * from its segment's carry, and on for its upper bound up to the next
 * boundary.  Returns 0 or a negative error code. */
static int iter_fix(struct iter_job *j, const size_t *fix, size_t nfix)
{
	size_t nb = atomic_load(&j->nbounds), k, seg;
	int r;

	for (k = 0; k < nfix; k++) {
		struct iter_unit one = { .b = &j->b[fix[k]], .n = 1 };

		if (!iter_needed(j->b, nb, fix[k]))
			continue;
		if (idx_find(j->idx, one.b->offset, &seg))
			return -pte_internal;
		r = iter_time(j, &one, seg + 1, 1);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Whether boundary @k of @b[@nb] needs its time (iter_needed()) where
 * @cut (NULL: none) marks boundaries no iteration ends at. */
static int iter_needed_cut(const struct iter_bound *b, size_t nb, const uint8_t *cut,
			   size_t k)
{
	if (!cut)
		return iter_needed(b, nb, k);
	return (k && !cut[k] && !b[k].lost) || (k + 1 < nb && !cut[k + 1] && !b[k + 1].lost);
}

/* A boundary no measured iteration touches keeps no time: the unit
 * walks time every one that may need it, and the straight walk all. */
static void iter_untime(struct iter_bound *b, size_t nb, const uint8_t *cut)
{
	size_t k;

	for (k = 0; k < nb; k++)
		if (!iter_needed_cut(b, nb, cut, k)) {
			b[k].tsc = b[k].cyc_lo = b[k].cyc_hi = 0;
			b[k].flags = 0;
			b[k].timed = 0;
			b[k].anchor = b[k].ahead = 0;
		}
}

/* Mark the timed boundaries of @b[@nb] (in offset order) whose time lies
 * in damaged time (iter_bound.disputed), reading @idx once per segment. */
static void iter_dispute(const struct idx *idx, struct iter_bound *b, size_t nb)
{
	uint64_t ceil = UINT64_MAX, from = 1, end = 0;
	size_t k, seg;
	int outlier = 0;

	for (k = 0; k < nb; k++) {
		b[k].disputed = 0;
		if (!b[k].timed)
			continue;
		if (b[k].offset < from || b[k].offset >= end) {
			if (idx_find(idx, b[k].offset, &seg) ||
			    idx_segment_span(idx, seg, &from, &end)) {
				from = 1;
				end = 0;
				continue;
			}
			outlier = idx_time_outlier(idx, seg);
			if (outlier || !idx_time_damage_ceiling(idx, seg, &ceil))
				ceil = UINT64_MAX;
		}
		b[k].disputed = (uint8_t)(outlier || b[k].tsc > ceil || b[k].ahead);
	}
}

/* @n unit numbers into @order in the spread order: bit-reversed
 * counting, so that the first units of it lie evenly over the trace. */
static void iter_spread(size_t *order, size_t n)
{
	unsigned bits = 0, b;
	size_t i, k = 0, x, r;

	while (((size_t)1 << bits) < n)
		bits++;
	for (i = 0; i < (size_t)1 << bits; i++) {
		for (r = 0, x = i, b = 0; b < bits; b++, x >>= 1)
			r = r << 1 | (x & 1);
		if (r < n)
			order[k++] = r;
	}
}

/* The units of @n segments: their bytes, the order they are walked in.
 * Returns 0, -pte_nomem or -pte_internal. */
static int iter_units(struct iter_job *j, size_t n, unsigned nthreads)
{
	size_t per, k, s1;
	uint64_t off, end;

	/* Units of a multiple of 16 segments, several per thread; the
	 * straight walk is one unit. */
	per = (n + nthreads * 8 - 1) / (nthreads * 8);
	per = (per + 15) & ~(size_t)15;
	j->unit_segs = per < UNIT_SEGS ? (per ? per : 16) : UNIT_SEGS;
	if (j->opts.straight)
		j->unit_segs = n;
	j->nunits = (n + j->unit_segs - 1) / j->unit_segs;
	j->order = malloc(j->nunits * sizeof(*j->order));
	pthread_mutex_lock(&j->mu);
	j->units = calloc(j->nunits, sizeof(*j->units));
	pthread_mutex_unlock(&j->mu);
	if (!j->units || !j->order)
		return -pte_nomem;
	for (k = 0; k < j->nunits; k++) {
		s1 = (k + 1) * j->unit_segs < n ? (k + 1) * j->unit_segs : n;
		if (idx_segment_span(j->idx, k * j->unit_segs, &j->units[k].begin, &end) ||
		    idx_segment_span(j->idx, s1 - 1, &off, &j->units[k].end))
			return -pte_internal;
	}
	iter_spread(j->order, j->nunits);
	j->cut = NONE;
	return 0;
}

static int iter_body(void *arg)
{
	struct iter_job *j = arg;
	size_t n = idx_nseeks(j->idx), *fix = NULL, nfix = 0;
	unsigned nthreads = pool_threads(j->opts.nthreads);
	int r, t;

	if (!n)
		return 0;
	if (j->opts.straight)
		nthreads = 1;
	r = iter_units(j, n, nthreads);
	if (r)
		return r;
	for (t = 0; j->pred && t < PKT_NTYPES; t++)
		if (srch_pred_types(j->pred) >> t & 1)
			j->classes |= 1u << pkt_type_class((enum pkt_type)t);
	r = iter_pass(j, nthreads);
	if (r)
		return r;
	r = iter_join(j, &fix, &nfix);
	if (!r)
		r = iter_fix(j, fix, nfix);
	free(fix);
	if (r)
		return r;
	iter_untime(j->b, atomic_load(&j->nbounds), NULL);
	iter_dispute(j->idx, j->b, atomic_load(&j->nbounds));
	return 0;
}

static void *iter_thread(void *arg)
{
	struct iter_job *j = arg;
	size_t k;
	int r = j->opts.guard ? j->opts.guard(iter_body, j) : iter_body(j);

	/* Finished before the units go, under mu: iter_partial() finds
	 * the units gone only once it can see the result (else a picture
	 * in between came back empty). */
	pthread_mutex_lock(&j->mu);
	if (r < 0)
		atomic_store(&j->nbounds, 0);	/* iter_bounds() has none */
	j->status = r;
	atomic_store(&j->finished, 1);
	for (k = 0; j->units && k < j->nunits; k++)
		free(j->units[k].b);
	free(j->units);
	j->units = NULL;
	free(j->order);
	j->order = NULL;
	pthread_mutex_unlock(&j->mu);
	return NULL;
}

int iter_start(struct iter_job **out, const struct img *img,
	       const struct idx *idx, const struct srch_pred *pred,
	       const struct tm_config *cfg, const struct iter_opts *opts)
{
	struct iter_job *j;
	struct tm_carry c;

	if (!out || !img || !idx || !cfg || (!pred && !(opts && opts->offsets)) ||
	    (opts && opts->noffsets && !opts->offsets)) {
		srch_pred_free((struct srch_pred *)pred);
		return -pte_invalid;
	}
	if (!idx_complete(idx) || idx_seek_carry(idx, 0, &c) == -pte_no_time) {
		srch_pred_free((struct srch_pred *)pred);
		return -pte_no_time;
	}
	j = calloc(1, sizeof(*j));
	if (!j) {
		srch_pred_free((struct srch_pred *)pred);
		return -pte_nomem;
	}
	pthread_mutex_init(&j->mu, NULL);
	j->img = img;
	j->idx = idx;
	j->pred = (struct srch_pred *)pred;
	j->cfg = *cfg;
	if (opts)
		j->opts = *opts;
	if (!j->opts.max_bounds)
		j->opts.max_bounds = ITER_MAX_BOUNDS;
	if (j->opts.offsets) {
		/* copied: the caller's may go; an empty set is one that
		 * holds none */
		j->offs = malloc((j->opts.noffsets ? j->opts.noffsets : 1) * sizeof(*j->offs));
		if (!j->offs)
			goto nomem;
		memcpy(j->offs, j->opts.offsets, j->opts.noffsets * sizeof(*j->offs));
		j->noffs = j->opts.noffsets;
		j->opts.offsets = NULL;
	}
	if (pthread_create(&j->thread, NULL, iter_thread, j))
		goto nomem;
	*out = j;
	return 0;

nomem:
	pthread_mutex_destroy(&j->mu);
	srch_pred_free(j->pred);
	free(j->offs);
	free(j);
	return -pte_nomem;
}

void iter_progress(struct iter_job *j, struct iter_progress *p)
{
	memset(p, 0, sizeof(*p));
	if (!j)
		return;
	p->total = j->img->size;
	p->done = atomic_load(&j->done);
	p->nbounds = atomic_load(&j->nbounds);
	p->finished = atomic_load(&j->finished);
	if (p->finished) {
		p->status = j->status;
		p->truncated = j->truncated;
		if (!p->status)
			p->done = p->total;
	}
}

void iter_cancel(struct iter_job *j)
{
	if (j) {
		atomic_store(&j->cancel, 1);
		atomic_store(&j->stop, 1);
	}
}

int iter_wait(struct iter_job *j)
{
	if (!j)
		return -pte_invalid;
	if (!j->joined) {
		pthread_join(j->thread, NULL);
		j->joined = 1;
	}
	return j->status;
}

void iter_free(struct iter_job *j)
{
	if (!j)
		return;
	iter_cancel(j);
	iter_wait(j);
	srch_pred_free(j->pred);
	pthread_mutex_destroy(&j->mu);
	free(j->b);
	free(j->offs);
	free(j);
}

const struct iter_bound *iter_bounds(struct iter_job *j, size_t *n)
{
	*n = 0;
	if (!j || !atomic_load(&j->finished))
		return NULL;
	*n = atomic_load(&j->nbounds);
	return j->b;
}

void iter_snap_free(struct iter_snap *s)
{
	if (!s)
		return;
	free(s->b);
	free(s->items);
	free(s->order);
	memset(s, 0, sizeof(*s));
}

/* The boundaries of the units done into @s->b (and @cut: the first of
 * each run of consecutive units done, and the one after a boundary whose
 * time is left to the join, which no iteration ends at), data
 * lost joined within a run as iter_join() does; front to back, the
 * first units only and the first max_bounds of theirs, once the walk
 * goes so.  Under the job's mu.  Returns 0 or -pte_nomem. */
static int iter_partial_bounds(struct iter_job *j, struct iter_snap *s, uint8_t **cut)
{
	size_t k, nb = 0, m, lim = j->in_order ? j->pfx : j->nunits;
	size_t max = j->in_order ? j->opts.max_bounds : SIZE_MAX;
	int lost = 0, first = 1;

	for (k = 0; k < lim; k++)
		if (j->units[k].done)
			nb += j->units[k].n;
	nb = nb < max ? nb : max;
	s->b = malloc((nb ? nb : 1) * sizeof(*s->b));
	*cut = calloc(nb ? nb : 1, 1);
	if (!s->b || !*cut)
		return -pte_nomem;
	for (k = 0; k < lim && s->nb < nb; k++) {
		const struct iter_unit *u = &j->units[k];

		if (!u->done) {
			first = 1;	/* a run ends: what it lost is unknown */
			lost = 0;
			continue;
		}
		m = u->n < nb - s->nb ? u->n : nb - s->nb;
		if (!m) {
			lost |= u->tail_lost;
			continue;
		}
		memcpy(s->b + s->nb, u->b, m * sizeof(*s->b));
		s->b[s->nb].lost |= (uint8_t)lost;
		(*cut)[s->nb] = (uint8_t)first;
		lost = u->tail_lost;
		s->nb += m;
		/* a last boundary the join times: no iteration from it yet */
		first = u->defer && m == u->n;
	}
	s->done = j->done_bytes;
	return 0;
}

int iter_partial(struct iter_job *j, struct iter_snap *s)
{
	uint8_t *cut = NULL;
	size_t nb;
	int r = 0;

	if (!s)
		return -pte_invalid;
	memset(s, 0, sizeof(*s));
	if (!j)
		return -pte_invalid;
	s->total = j->img->size;
	if (atomic_load(&j->finished)) {
		if (j->status < 0)
			return j->status;
		nb = atomic_load(&j->nbounds);
		s->b = malloc((nb ? nb : 1) * sizeof(*s->b));
		if (!s->b)
			return -pte_nomem;
		if (nb)
			memcpy(s->b, j->b, nb * sizeof(*s->b));
		s->nb = nb;
		s->done = s->total;
		s->final = 1;
		s->truncated = j->truncated;
	} else {
		pthread_mutex_lock(&j->mu);
		if (!j->units) {
			/* not made yet, or freed as the job ends */
			pthread_mutex_unlock(&j->mu);
			if (atomic_load(&j->finished))
				return iter_partial(j, s);
		} else {
			r = iter_partial_bounds(j, s, &cut);
			pthread_mutex_unlock(&j->mu);
		}
		if (r < 0)
			goto fail;
		iter_untime(s->b, s->nb, cut);
		iter_dispute(j->idx, s->b, s->nb);
	}
	s->items = calloc(s->nb > 1 ? s->nb - 1 : 1, sizeof(*s->items));
	if (!s->items || iter_measure_all(s->b, s->nb, cut, &j->cfg, s->items, &s->n,
					  &s->st, &s->order) < 0) {
		r = -pte_nomem;
		goto fail;
	}
	free(cut);
	return 0;

fail:
	free(cut);
	iter_snap_free(s);
	s->total = j->img->size;	/* as on the other failures */
	return r;
}
