/* search_scan -- the scanner over a range, and the filter view's source. */
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "search_int.h"

/*
 * The scanner: every packet with an offset in [a, b) that matches, in
 * offset order, to a callback.
 */


static int canceled(const struct scan *sc)
{
	return sc->cancel && atomic_load_explicit(sc->cancel, memory_order_relaxed);
}

/* Put @cur at @off of the scanned image, sharing the scanner's runs.
 * Returns as img_cursor_init(). */
static int scan_cursor(struct scan *sc, struct img_cursor *cur, uint64_t off)
{
	int r = img_cursor_init(cur, sc->img, off);

	cur->runs = &sc->runs;
	return r;
}

/* The last PSB at or before @off.  Returns 0 or -pte_nosync. */
static int psb_at_or_before(struct scan *sc, uint64_t off, uint64_t *psb)
{
	if (sc->idx) {
		struct idx_progress pr;
		struct idx_seek sk;
		size_t i;

		idx_progress(sc->idx, &pr);
		if (pr.scanned > off && !idx_find(sc->idx, off, &i) &&
		    !idx_seek(sc->idx, i, &sk)) {
			*psb = sk.offset;
			return 0;
		}
	}
	if (off >= UINT64_MAX - 1)
		return -pte_nosync;
	return img_find_psb_before_runs(sc->img, &sc->runs, off + 1, psb);
}

/* The index of the seek point at exactly @off.  Returns 0 or -1. */
static int seek_at(struct idx *idx, uint64_t off, size_t *i)
{
	struct idx_seek sk;

	if (idx_find(idx, off, i) || idx_seek(idx, *i, &sk) || sk.offset != off)
		return -1;
	return 0;
}

/* Whether the segment starting with the PSB at @off cannot match; sets
 * *@next to the next seek point (UINT64_MAX: none). */
static int segment_skippable(const struct scan *sc, uint64_t off, uint64_t *next)
{
	struct idx_summary sum;
	struct idx_seek sk;
	size_t i;

	if (seek_at(sc->idx, off, &i) || idx_summary(sc->idx, i, &sum))
		return 0;
	if (sc->pred->history) {
		uint64_t t;

		/* Gaps carry across segments: skip only where the index
		 * says the time of the last timing packet (the one a gap
		 * after the skip counts from) and times as ours. */
		if (!sc->time_same || !sum.have_time ||
		    idx_last_timing(sc->idx, i, &t) == 1)
			return 0;
	} else {
		sum.have_time = 0;
	}
	if (srch_segment_may_match(sc->pred, &sum))
		return 0;
	if (i + 1 < idx_nseeks(sc->idx) && !idx_seek(sc->idx, i + 1, &sk))
		*next = sk.offset;
	else
		*next = UINT64_MAX;
	return 1;
}

/* The offset of the seek point after the one at @psb: where its segment
 * ends (UINT64_MAX: the last, or not known yet; 0 if @psb is none). */
static uint64_t segment_end(const struct scan *sc, uint64_t psb)
{
	struct idx_seek sk;
	size_t i;

	if (seek_at(sc->idx, psb, &i))
		return 0;
	if (i + 1 < idx_nseeks(sc->idx) && !idx_seek(sc->idx, i + 1, &sk))
		return sk.offset;
	return UINT64_MAX;
}

/* The first PSB after @off (UINT64_MAX: none): where the segment holding
 * @off ends, as the index places it (its next seek point, when it has
 * one) or as a PSB search finds it (the same PSBs). */
static uint64_t psb_after(struct scan *sc, uint64_t off)
{
	struct img_cursor cur;
	uint64_t e;

	if (sc->idx) {
		e = segment_end(sc, off);
		if (e && e != UINT64_MAX)
			return e;
	}
	if (off == UINT64_MAX || scan_cursor(sc, &cur, off) ||
	    img_cursor_sync_forward(&cur, off + 1))
		return UINT64_MAX;
	return img_cursor_offset(&cur);
}

/*
 * Whether packet @pkt, decoded (@r >= 0), runs into the PSB that ends its
 * segment, *@seg_end (the first PSB after the last PSB decoded; found
 * again at each PSB, and past it).  The index, the packet pane and the
 * time pass decode a segment up to its end and cut such a packet (a
 * corrupted one that swallows the PSB's first bytes) as an error, and
 * decode on from that PSB; read whole it would hide the PSB.  Returns 1
 * with @pkt made that error row (PKT_INVALID, up to the PSB), else 0.
 */
static inline int cut_at_psb(struct scan *sc, struct pkt *pkt, int r,
			     uint64_t *seg_end)
{
	uint64_t off = pkt->offset;

	if (r < 0)
		return 0;
	if (__builtin_expect(pkt->type == PKT_PSB || off >= *seg_end, 0))
		*seg_end = psb_after(sc, off);
	if (__builtin_expect(off + pkt->size <= *seg_end, 1))
		return 0;
	memset(pkt, 0, sizeof(*pkt));
	pkt->type = PKT_INVALID;
	pkt->offset = off;
	pkt->size = (uint8_t)(*seg_end - off);
	return 1;
}

/* Give @ctx's time model the index's state at the PSB at @psb, so times
 * are those of a decode from the start (when phase 2 got there). */
static void restore_carry(const struct scan *sc, uint64_t psb,
			  struct srch_ctx *ctx)
{
	struct tm_carry carry;
	size_t i;

	if (seek_at(sc->idx, psb, &i) || idx_seek_carry(sc->idx, i, &carry))
		return;
	tm_restore(&ctx->tm, &carry);
}

/* Decode-everything path. */
static int scan_decode(struct scan *sc, uint64_t a, uint64_t b)
{
	struct img_cursor cur;
	struct srch_ctx ctx;
	struct pkt pkt;
	uint64_t start, next, mark, seg_end = 0;
	int r, skip = sc->skip && sc->idx && (!sc->pred->history || sc->time_same);
	int skipped = 0;	/* the time model needs the index's state */

	if (psb_at_or_before(sc, a, &start)) {
		if (scan_cursor(sc, &cur, a) ||
		    img_cursor_sync_forward(&cur, a))
			return 0;
		start = img_cursor_offset(&cur);
	} else if (sc->pred->history && start > 0) {
		uint64_t earlier;

		/* One segment earlier, for the packet before the first. */
		if (!psb_at_or_before(sc, start - 1, &earlier))
			start = earlier;
	}
	if (scan_cursor(sc, &cur, start))
		return 0;
	srch_ctx_init(&ctx, sc->pred, sc->img);
	if (ctx.use_tm && sc->idx)
		restore_carry(sc, start, &ctx);
	mark = start;
	for (;;) {
		/* Within a span, the inline decoder; at its end, the cursor
		 * (which stitches packets across spans). */
		r = pkt_next(&cur.dec, &pkt);
		if (__builtin_expect(r == -pte_eos || r == -pte_truncated, 0))
			r = img_cursor_next(&cur, &pkt);
		if (r == -pte_eos)
			break;
		if (pkt.offset >= b)
			break;
		if (pkt.offset - mark >= STEP_BYTES) {
			if (canceled(sc))
				return -pte_canceled;
			if (sc->progress)
				sc->progress(sc->arg, pkt.offset);
			mark = pkt.offset;
		}
		if (cur.gap) {
			cur.gap = 0;
			if (ctx.use_tm)
				tm_gap(&ctx.tm);
		}
		if (r >= 0 && pkt.type == PKT_PSB && skip &&
		    segment_skippable(sc, pkt.offset, &next)) {
			if (next >= b || scan_cursor(sc, &cur, next))
				break;
			skipped = 1;
			continue;
		}
		if (cut_at_psb(sc, &pkt, r, &seg_end))
			r = -pte_truncated;	/* on at the PSB, below */
		if (skipped && ctx.use_tm && r >= 0 && pkt.type == PKT_PSB) {
			/* Where the skipped segments left the model, and the
			 * timing packet a gap counts from. */
			size_t i;
			uint64_t t;

			restore_carry(sc, pkt.offset, &ctx);
			if (!seek_at(sc->idx, pkt.offset, &i) && i > 0) {
				ctx.have_prev = !idx_last_timing(sc->idx, i - 1, &t);
				ctx.prev_time = ctx.have_prev ? t : 0;
			}
		}
		skipped = 0;
		/* Data lost right before a PSB is no error row (the window
		 * marks the PSB); nothing to match. */
		if (r == -pte_gap && pkt.offset == img_cursor_offset(&cur))
			continue;
		srch_step_fast(&ctx, &pkt);
		if (pkt.offset >= a && srch_match(sc->pred, &pkt, &ctx) &&
		    sc->hit(sc->arg, &pkt))
			return 1;
		/* after a gap the cursor is on the next PSB already */
		if (r < 0 && r != -pte_gap &&
		    img_cursor_sync_forward(&cur, pkt.offset + 1))
			break;
	}
	return 0;
}

static inline int pf_at(const struct prefilter *pf, const uint8_t *p)
{
	unsigned i;

	for (i = 0; i < pf->len; i++)
		if ((p[i] & pf->mask[i]) != pf->val[i])
			return 0;
	return 1;
}

/* The first q in [p, e) with the anchor at q, reading q[1] < lim. */
static const uint8_t *pf_anchor(const struct prefilter *pf, const uint8_t *p,
				const uint8_t *e, const uint8_t *lim)
{
	uint8_t m0 = pf->mask[pf->k], v0 = pf->val[pf->k];
	uint8_t m1 = pf->mask[pf->k + 1], v1 = pf->val[pf->k + 1];

#if defined(__SSE2__)
	const __m128i M0 = _mm_set1_epi8((char)m0), V0 = _mm_set1_epi8((char)v0);
	const __m128i M1 = _mm_set1_epi8((char)m1), V1 = _mm_set1_epi8((char)v1);

	while (p + 16 <= e && p + 17 <= lim) {
		__m128i x = _mm_loadu_si128((const __m128i *)p);
		__m128i y = _mm_loadu_si128((const __m128i *)(p + 1));
		unsigned k = (unsigned)_mm_movemask_epi8(_mm_and_si128(
			_mm_cmpeq_epi8(_mm_and_si128(x, M0), V0),
			_mm_cmpeq_epi8(_mm_and_si128(y, M1), V1)));

		if (k)
			return p + __builtin_ctz(k);
		p += 16;
	}
#endif
	for (; p < e && p + 1 < lim; p++)
		if ((p[0] & m0) == v0 && (p[1] & m1) == v1)
			return p;
	return NULL;
}

/* The first offset c in [lo, hi) where the prefilter matches, reading
 * across spans but not gaps.  Returns it or UINT64_MAX. */
static uint64_t pf_find(const struct scan *sc, uint64_t lo, uint64_t hi)
{
	const struct img *img = sc->img;
	const struct prefilter *pf = &sc->pred->pf;
	long si = img_span_of(img, lo);
	uint8_t buf[PF_MAX];

	if (si < 0)
		return UINT64_MAX;
	for (; (size_t)si < img->nspans; si++) {
		const struct img_span *s = &img->spans[si];
		uint64_t send = s->off + s->size;
		uint64_t c0 = lo > s->off ? lo : s->off;
		uint64_t c1 = hi < send ? hi : send;
		uint64_t cf = s->size >= pf->len ? send - pf->len + 1 : s->off;
		uint64_t c;

		if (c0 >= hi)
			break;
		if (cf > c1)
			cf = c1;
		if (c0 < cf) {
			const uint8_t *p = s->data + (c0 - s->off) + pf->k;
			const uint8_t *e = s->data + (cf - s->off) + pf->k;
			const uint8_t *q;

			while ((q = pf_anchor(pf, p, e, s->data + s->size))) {
				if (pf_at(pf, q - pf->k))
					return s->off + (uint64_t)(q - pf->k - s->data);
				p = q + 1;
			}
		}
		/* Patterns running into the next span. */
		for (c = c0 > cf ? c0 : cf; c < c1; c++)
			if (img_read(img, c, buf, pf->len) == pf->len &&
			    pf_at(pf, buf))
				return c;
	}
	return UINT64_MAX;
}

int srch_segment_may_hit(const struct srch_pred *pred, const struct img *img,
			 const struct idx *idx, size_t i)
{
	struct idx_summary sum;
	struct idx_seek sk;
	struct scan sc;

	if (!pred || !img || !idx || idx_seek(idx, i, &sk) ||
	    idx_summary_counts(idx, i, &sum))
		return 1;
	sum.have_time = 0;
	if (!srch_segment_may_match(pred, &sum))
		return 0;
	if (!pred->has_pf)
		return 1;
	memset(&sc, 0, sizeof(sc));
	sc.pred = pred;
	sc.img = img;
	return pf_find(&sc, sk.offset, sk.offset + sum.size) != UINT64_MAX;
}

/* Where candidates for the error rows starting before @b end: the first
 * PSB after @b - 1 (an error row runs up to it), or @end if that is
 * further. */
static uint64_t err_scan_end(struct scan *sc, uint64_t b, uint64_t end)
{
	uint64_t e = b ? psb_after(sc, b - 1) : 0;

	if (e > sc->img->size)
		e = sc->img->size;
	return e > end ? e : end;
}

/* Prefilter path: decode only around candidates. */
static int scan_prefilter(struct scan *sc, uint64_t a, uint64_t b)
{
	struct img_cursor cur;
	struct srch_ctx ctx;
	struct pkt pkt;
	uint64_t pos = a, end = b + PF_SLACK, done = 0, curoff = 0, next;
	uint64_t chk_end = 0;	/* the end of the segment checked last */
	uint64_t seg_end = 0;	/* cut_at_psb()'s */
	int have_cur = 0, r;

	if (end > sc->img->size || end < b)
		end = sc->img->size;
	/* An error row holds bytes up to the next PSB: one starting before
	 * @b may hold the pattern's only start far past it. */
	if ((sc->pred->mask & ERR_BIT) && b < end)
		end = err_scan_end(sc, b, end);
	while (pos < end) {
		uint64_t lim = pos + SCAN_PIECE < end ? pos + SCAN_PIECE : end;
		uint64_t c = pf_find(sc, pos, lim), p;

		if (canceled(sc))
			return -pte_canceled;
		if (c == UINT64_MAX) {
			pos = lim;
			if (sc->progress)
				sc->progress(sc->arg, pos);
			continue;
		}
		if (c < done) {
			pos = c + 1 > done ? c + 1 : done;
			continue;
		}
		/* A candidate past the segment checked last: one the
		 * summaries rule out is skipped, even near the cursor
		 * (segments are often shorter than PF_CONTINUE). */
		if (!have_cur || c - curoff > PF_CONTINUE ||
		    (sc->skip && sc->idx && c >= chk_end)) {
			if (psb_at_or_before(sc, c, &p)) {
				pos = c + 1;
				continue;
			}
			if (!have_cur || p > curoff) {
				if (sc->skip && sc->idx &&
				    segment_skippable(sc, p, &next)) {
					pos = next > c + 1 ? next : c + 1;
					have_cur = 0;
					continue;
				}
				chk_end = sc->skip && sc->idx ? segment_end(sc, p) : 0;
			}
			if (!have_cur || (p > curoff && c - curoff > PF_CONTINUE)) {
				if (scan_cursor(sc, &cur, p))
					return 0;
				srch_ctx_init(&ctx, sc->pred, sc->img);
				have_cur = 1;
			}
		}
		/* Decode up to and including the packet holding byte c. */
		for (;;) {
			r = img_cursor_next(&cur, &pkt);
			if (r == -pte_eos) {
				have_cur = 0;
				done = sc->img->size;
				break;
			}
			if (pkt.offset >= b)
				return 0;
			cur.gap = 0;
			if (cut_at_psb(sc, &pkt, r, &seg_end))
				r = -pte_truncated;
			srch_step_fast(&ctx, &pkt);
			if (pkt.offset >= a && srch_match(sc->pred, &pkt, &ctx) &&
			    sc->hit(sc->arg, &pkt))
				return 1;
			if (r < 0) {
				if (r != -pte_gap &&
				    img_cursor_sync_forward(&cur, pkt.offset + 1)) {
					have_cur = 0;
					done = sc->img->size;
					break;
				}
				done = img_cursor_offset(&cur);
				srch_ctx_init(&ctx, sc->pred, sc->img);
				if (done > c)
					break;
				continue;
			}
			done = pkt.offset + pkt.size;
			if (done > c)
				break;
		}
		curoff = img_cursor_offset(&cur);
		pos = c + 1 > done ? c + 1 : done;
	}
	return 0;
}

int srch_scan_range(struct scan *sc, uint64_t a, uint64_t b)
{
	if (a >= b)
		return 0;
	if (sc->prefilter && sc->pred->has_pf)
		return scan_prefilter(sc, a, b);
	return scan_decode(sc, a, b);
}

/*
 * The filter view's source.
 */

/* Whether @idx's time model (its carries, its gap summaries) runs with
 * @pred's configuration, so its times are the search's. */
int srch_time_same(const struct srch_pred *pred, const struct idx *idx)
{
	struct tm_config none;

	if (!idx)
		return 0;
	memset(&none, 0, sizeof(none));
	return !memcmp(pred->have_cfg ? &pred->cfg : &none, idx_config(idx),
		       sizeof(none));
}

static void filter_scan(struct scan *sc, const struct srch_pred *pred,
			const struct img *img, struct idx *idx)
{
	memset(sc, 0, sizeof(*sc));
	sc->pred = pred;
	sc->img = img;
	sc->idx = idx;
	sc->skip = 1;
	sc->prefilter = 1;
	sc->time_same = srch_time_same(pred, idx);
}

int srch_filter_next(const struct srch_pred *pred, const struct img *img,
		     struct idx *idx, uint64_t off, uint64_t budget,
		     struct pkt *hit, uint64_t *resume)
{
	size_t got;

	return srch_filter_fill(pred, img, idx, off, 1, budget, hit, 1, &got,
				resume);
}

int srch_filter_prev(const struct srch_pred *pred, const struct img *img,
		     struct idx *idx, uint64_t off, uint64_t budget,
		     struct pkt *hit, uint64_t *resume)
{
	size_t got;

	return srch_filter_fill(pred, img, idx, off, -1, budget, hit, 1, &got,
				resume);
}

/* Hits of a fill: the first n going forward, the last n (a ring) going
 * backward. */
struct fill {
	struct pkt *out;
	size_t n, count;
	int ring;
};

static int fill_hit(void *arg, const struct pkt *pkt)
{
	struct fill *f = arg;

	if (f->ring) {
		f->out[f->count++ % f->n] = *pkt;
		return 0;
	}
	f->out[f->count++] = *pkt;
	return f->count == f->n;
}

int srch_filter_fill(const struct srch_pred *pred, const struct img *img,
		     struct idx *idx, uint64_t off, int dir, uint64_t budget,
		     struct pkt *out, size_t n, size_t *got, uint64_t *resume)
{
	struct fill f = { .out = out, .n = n };
	struct scan sc;
	uint64_t a, b;
	size_t i, k;

	if (!pred || !img || !out || !got || !resume || !dir)
		return -pte_invalid;
	*got = 0;
	if (!n)
		return 0;
	if (!budget)
		budget = FILTER_BUDGET;
	filter_scan(&sc, pred, img, idx);
	sc.hit = fill_hit;
	sc.arg = &f;
	if (dir > 0) {
		if (off >= img->size)
			return -pte_eos;
		b = img->size - off > budget ? off + budget : img->size;
		if (b < img->size) {
			struct img_cursor cur;

			if (scan_cursor(&sc, &cur, b) ||
			    img_cursor_sync_forward(&cur, b))
				b = img->size;
			else
				b = img_cursor_offset(&cur);
		}
		srch_scan_range(&sc, off, b);
		*got = f.count;
		if (f.count == n) {
			*resume = out[n - 1].offset + 1;
			return 0;
		}
		if (b >= img->size)
			return -pte_eos;
		*resume = b;
		return 1;
	}
	if (off > img->size)
		off = img->size;
	if (!off)
		return -pte_eos;
	a = off > budget ? off - budget : 0;
	if (a && psb_at_or_before(&sc, a, &a))
		a = 0;
	f.ring = 1;
	srch_scan_range(&sc, a, off);
	/* Nearest first: the ring's newest entry is at (count - 1) % n. */
	k = f.count < n ? f.count : n;
	if (k) {
		struct pkt *tmp = malloc(k * sizeof(*tmp));

		if (!tmp)
			return -pte_nomem;
		for (i = 0; i < k; i++)
			tmp[i] = out[(f.count - 1 - i) % n];
		memcpy(out, tmp, k * sizeof(*tmp));
		free(tmp);
	}
	*got = k;
	if (k == n) {
		*resume = out[n - 1].offset;
		return 0;
	}
	if (!a)
		return -pte_eos;
	*resume = a;
	return 1;
}
