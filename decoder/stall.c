/*
 * stall -- the N longest gaps and N slowest periods of a trace (stall.h):
 * the top segments by their summaries, then a walk of those segments;
 * the N segments most halted, by their summaries alone.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "stall.h"

/* A growing array of stalls. */
struct stall_acc {
	struct stall *v;
	size_t n, cap;
};

/* Append @s to @a.  Returns 0 or -pte_nomem. */
static int stall_push(struct stall_acc *a, const struct stall *s)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 16;
		struct stall *v = realloc(a->v, cap * sizeof(*v));

		if (!v)
			return -pte_nomem;
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n++] = *s;
	return 0;
}

int stall_before(enum stall_kind kind, const struct stall *a, const struct stall *b)
{
	int c;

	if (kind == STALL_GAP) {
		if (a->gap != b->gap)
			return a->gap > b->gap;
	} else if (kind == STALL_HALT) {
		if (a->halt_hi != b->halt_hi)
			return a->halt_hi > b->halt_hi;
		if (a->halt_lo != b->halt_lo)
			return a->halt_lo > b->halt_lo;
	} else {
		c = tm_period_cmp(&a->per, &b->per);
		if (c)
			return c < 0;
	}
	return a->at < b->at;
}

/* The walk of one segment: the time model as the time pass runs it, and
 * what it records. */
struct stall_walk {
	struct tm_model tm;
	size_t seg;
	int mtc;		/* tm_mtc_timed(): MTCs are timing packets */
	int outlier;		/* idx_time_outlier(): the gap to its first
				 * TSC is the jump into damaged time */
	int overrun;		/* idx_time_overrun(): times past ceil are
				 * damaged (a TSC outside PSB+) */
	uint64_t ceil;
	int seen_tsc;		/* a TSC came in the segment */
	int has_prev;		/* prev: the last timing packet's time */
	uint64_t prev;
	uint64_t pseq;		/* periods measured so far */
	struct stall_acc *gaps, *pers;
	/* the longest sleep closed here (halts set): its halted time at
	 * most, its place (its PWRX, else the anchor closing it) */
	int halts, have_best, pwrx;
	uint64_t hseq;		/* sleeps closed so far */
	uint64_t pwrx_at;	/* the last PWRX not yet closed (pwrx) */
	uint64_t best_hi, best_at;
};

/* After anchor @pkt: a sleep it closed is @w's longest if it is (an anchor
 * closes one at most), at its PWRX if that came in this segment. */
static void stall_halt(struct stall_walk *w, const struct pkt *pkt)
{
	uint64_t lo, hi;

	if (w->tm.nhalt == w->hseq)
		return;
	w->hseq = tm_last_halt(&w->tm, &lo, &hi);
	if (!w->have_best || hi > w->best_hi) {
		w->have_best = 1;
		w->best_hi = hi;
		w->best_at = w->pwrx ? w->pwrx_at : pkt->offset;
	}
	w->pwrx = 0;
}

/* Feed @pkt: a timing packet ends a gap, a new clean period ends there.
 * Returns 0 or -pte_nomem. */
static int stall_packet(struct stall_walk *w, const struct pkt *pkt)
{
	struct stall s;
	struct tm_stamp st;
	struct tm_period p;
	uint64_t now;
	int r;

	memset(&s, 0, sizeof(s));
	s.at = pkt->offset;
	s.seg = w->seg;
	if (pkt->type == PKT_PWRX) {
		w->pwrx = 1;
		w->pwrx_at = pkt->offset;
	}
	if (pkt->type == PKT_TSC || (pkt->type == PKT_MTC && w->mtc)) {
		tm_step(&w->tm, pkt, &st);
		/* a time behind the last is no gap, nor one across a TSC
		 * where time went back (the time pass's rules); none in
		 * the stretch a damaged TSC took time to (no measure) */
		if (w->has_prev && st.tsc >= w->prev && w->gaps &&
		    !(pkt->type == PKT_TSC && tm_tsc_jumped(&w->tm)) &&
		    !(w->overrun && w->prev > w->ceil)) {
			s.gap = st.tsc - w->prev;
			s.disputed = (pkt->type == PKT_TSC && w->outlier && !w->seen_tsc) ||
				     (w->overrun && st.tsc > w->ceil);
			r = stall_push(w->gaps, &s);
			if (r)
				return r;
		}
		w->has_prev = 1;
		w->prev = st.tsc;
		if (pkt->type == PKT_TSC)
			w->seen_tsc = 1;
	} else {
		tm_advance(&w->tm, pkt);
	}
	if (pkt->type != PKT_TSC && pkt->type != PKT_MTC && pkt->type != PKT_TMA)
		return 0;
	/* where the time pass sums sleeps and periods (gacc_per()) */
	if (w->halts)
		stall_halt(w, pkt);
	tm_last_period(&w->tm, &p);
	if (p.seq == w->pseq)
		return 0;
	w->pseq = p.seq;
	/* (one ending in damaged time measured nothing) */
	if (!w->pers || (w->overrun && !tm_now(&w->tm, &now) && now > w->ceil))
		return 0;
	s.gap = 0;
	s.per = p;
	s.per.seq = 0;
	return stall_push(w->pers, &s);
}

/* Walk segment @w->seg from its carry into @w's gaps and pers (either
 * NULL) and, with halts, its longest sleep.
 * Returns 0, 1 if the time pass has not got there, or a negative error
 * code. */
static int stall_walk(const struct idx *idx, const struct img *img, struct stall_walk *wp)
{
	struct stall_walk w = *wp;
	size_t seg = w.seg;
	struct img_cursor cur;
	struct tm_carry c;
	struct tm_period p;
	struct pkt pkt;
	uint64_t from, end;
	int r;

	if (idx_segment_span(idx, seg, &from, &end))
		return -pte_invalid;
	if (seg) {
		r = idx_last_timing(idx, seg - 1, &w.prev);
		if (r > 0 || (r < 0 && r != -pte_no_time))
			return r;
		w.has_prev = !r;
	}
	tm_init(&w.tm, idx_config(idx));
	r = idx_seek_carry(idx, seg, &c);
	if (r)
		return r;
	tm_restore(&w.tm, &c);
	w.mtc = tm_mtc_timed(idx_config(idx));
	w.outlier = w.gaps && idx_time_outlier(idx, seg);
	w.overrun = (w.gaps || w.pers) && idx_time_overrun(idx, seg, &w.ceil);
	tm_last_period(&w.tm, &p);
	w.pseq = p.seq;
	w.hseq = w.tm.nhalt;
	if (img_gap_at(img, from))
		tm_gap(&w.tm);
	r = 0;
	if (img_cursor_init(&cur, img, from) < 0)
		goto out;
	while (img_cursor_offset(&cur) < end) {
		r = img_cursor_next(&cur, &pkt);
		if (r == -pte_eos)
			break;
		if (cur.gap) {
			cur.gap = 0;
			tm_gap(&w.tm);
		}
		if (r >= 0 && pkt.offset + pkt.size > end)
			r = -pte_truncated;
		if (r < 0)
			break;	/* as the time pass: the rest is lost */
		r = stall_packet(&w, &pkt);
		if (r)
			return r;
	}
	r = 0;
out:
	wp->have_best = w.have_best;
	wp->best_hi = w.best_hi;
	wp->best_at = w.best_at;
	return r;
}

int stall_segment(const struct idx *idx, const struct img *img, size_t seg,
		  enum stall_kind kind, struct stall **out, size_t *n)
{
	struct stall_acc a = { 0 };
	struct stall_walk w = { 0 };
	int r;

	if (!idx || !img || !out || !n || kind == STALL_HALT)
		return -pte_invalid;
	*out = NULL;
	*n = 0;
	w.seg = seg;
	w.gaps = kind == STALL_GAP ? &a : NULL;
	w.pers = kind == STALL_GAP ? NULL : &a;
	r = stall_walk(idx, img, &w);
	if (r) {
		free(a.v);
		return r;
	}
	*out = a.v;
	*n = a.n;
	return 0;
}

/* Insert @s into the @want best of @v (*@nv so far, sorted). */
static void stall_keep(enum stall_kind kind, struct stall *v, size_t *nv,
		       size_t want, const struct stall *s)
{
	size_t k;

	if (*nv == want && !stall_before(kind, s, &v[want - 1]))
		return;
	k = *nv < want ? (*nv)++ : want - 1;
	while (k > 0 && stall_before(kind, s, &v[k - 1])) {
		v[k] = v[k - 1];
		k--;
	}
	v[k] = *s;
}

/* From the summaries: the @want segments whose largest gap ranks first
 * into @gc (*@ngc, best first, each as that gap) but outlier and overrun
 * segments that would rank there into @odd, the @want whose slowest
 * period does into @pc (*@npc) but overrun ones into @oddp, the @want
 * most halted into @out's halts (their at still 0); @out's partial
 * counts segments without a time summary.
 * Returns 0 or -pte_nomem. */
static int stall_candidates(const struct idx *idx, struct stall *gc, size_t *ngc,
			    struct stall_acc *odd, struct stall *pc, size_t *npc,
			    struct stall_acc *oddp, size_t want, struct stall_list *out)
{
	size_t ns = idx_nseeks(idx), i;
	struct idx_summary s;
	struct stall c;
	uint64_t ceil;
	int r;

	for (i = 0; i < ns; i++) {
		/* the time pass's part alone: one read per segment */
		if (idx_time_summary(idx, i, &s)) {
			out->partial++;
			continue;
		}
		memset(&c, 0, sizeof(c));
		c.seg = i;
		c.gap = s.max_gap;
		c.at = s.gap_off;
		/* an outlier's or overrun's largest gap may be the jump
		 * into its damaged time: no bound (asked only of those that
		 * would rank) */
		if (s.has_gap && (*ngc < want || stall_before(STALL_GAP, &c, &gc[want - 1])) &&
		    (idx_time_outlier(idx, i) || idx_time_overrun(idx, i, &ceil))) {
			r = stall_push(odd, &c);
			if (r)
				return r;
		} else if (s.has_gap) {
			stall_keep(STALL_GAP, gc, ngc, want, &c);
		}
		if (s.has_period) {
			c.gap = 0;
			c.per = s.slow_period;
			c.at = s.slow_off;
			if ((*npc < want || stall_before(STALL_PERIOD, &c, &pc[want - 1])) &&
			    idx_time_overrun(idx, i, &ceil)) {
				r = stall_push(oddp, &c);
				if (r)
					return r;
			} else {
				stall_keep(STALL_PERIOD, pc, npc, want, &c);
			}
		}
		if (s.nhalt) {
			memset(&c, 0, sizeof(c));
			c.seg = i;
			c.nhalt = s.nhalt;
			c.halt_lo = s.halt_lo;
			c.halt_hi = s.halt_hi;
			stall_keep(STALL_HALT, out->halts, &out->nhalts, want, &c);
		}
	}
	return 0;
}

/* Walk candidate segments @cand[0..@nc) (best first) in order into the
 * @want best stalls of @kind @v (*@nv), until the next one's best cannot
 * make the list (@all: walk them all, outliers, whose summary bounds
 * nothing); a disputed gap is left out and counted in *@disputed.
 * Returns 0 or a negative error code. */
static int stall_merge(const struct idx *idx, const struct img *img,
		       enum stall_kind kind, const struct stall *cand, size_t nc,
		       int all, size_t want, struct stall *v, size_t *nv,
		       struct stall_list *out, const _Atomic int *cancel)
{
	struct stall_acc a = { 0 };
	struct stall_walk w;
	size_t k, i;
	int r = 0;

	for (k = 0; k < nc; k++) {
		/* everything in cand[k..] ranks at or after cand[k] */
		if (!all && *nv == want && !stall_before(kind, &cand[k], &v[want - 1]))
			break;
		if (cancel && atomic_load(cancel)) {
			r = -pte_canceled;
			break;
		}
		a.n = 0;
		memset(&w, 0, sizeof(w));
		w.seg = cand[k].seg;
		w.gaps = kind == STALL_GAP ? &a : NULL;
		w.pers = kind == STALL_GAP ? NULL : &a;
		r = stall_walk(idx, img, &w);
		if (r > 0)
			r = 0;	/* not reached: its summary came, so it is */
		if (r < 0)
			break;
		out->walked++;
		/* a walk that disagrees with its summary keeps the summary's
		 * (not an outlier's: it may be the jump) */
		if (!a.n && !all)
			stall_keep(kind, v, nv, want, &cand[k]);
		for (i = 0; i < a.n; i++) {
			if (a.v[i].disputed)
				out->disputed++;
			else
				stall_keep(kind, v, nv, want, &a.v[i]);
		}
	}
	free(a.v);
	return r;
}

int stall_halt_place(const struct idx *idx, const struct img *img, size_t seg,
		     uint64_t *at)
{
	struct stall_walk w = { .seg = seg, .halts = 1 };
	int r;

	if (!idx || !img || !at)
		return -pte_invalid;
	r = stall_walk(idx, img, &w);
	if (r)
		return r;
	if (!w.have_best)
		return 1;
	*at = w.best_at;
	return 0;
}

int stall_top(const struct idx *idx, const struct img *img, size_t want,
	      const _Atomic int *cancel, struct stall_list *out)
{
	struct stall_acc odd = { 0 }, oddp = { 0 };
	struct stall *gc, *pc;
	size_t ngc = 0, npc = 0, i;
	uint64_t end;
	int r;

	if (!idx || !img || !out || !want)
		return -pte_invalid;
	memset(out, 0, sizeof(*out));
	gc = calloc(5 * want, sizeof(*gc));
	if (!gc)
		return -pte_nomem;
	pc = gc + want;
	out->gaps = pc + want;
	out->pers = out->gaps + want;
	out->halts = out->pers + want;
	r = stall_candidates(idx, gc, &ngc, &odd, pc, &npc, &oddp, want, out);
	/* a segment's place: its PSB (equal halts stayed in segment order;
	 * stall_halt_place() finds its longest sleep, a walk) */
	for (i = 0; i < out->nhalts; i++)
		if (idx_segment_span(idx, out->halts[i].seg, &out->halts[i].at, &end))
			out->halts[i].at = 0;
	if (!r)
		r = stall_merge(idx, img, STALL_GAP, odd.v, odd.n, 1, want, out->gaps,
				&out->ngaps, out, cancel);
	free(odd.v);
	if (!r)
		r = stall_merge(idx, img, STALL_GAP, gc, ngc, 0, want, out->gaps,
				&out->ngaps, out, cancel);
	if (!r)
		r = stall_merge(idx, img, STALL_PERIOD, oddp.v, oddp.n, 1, want, out->pers,
				&out->npers, out, cancel);
	free(oddp.v);
	if (!r)
		r = stall_merge(idx, img, STALL_PERIOD, pc, npc, 0, want, out->pers,
				&out->npers, out, cancel);
	/* out->gaps lies in gc's block: move it (and pers, halts) to the
	 * front, keep one */
	memmove(gc, out->gaps, 3 * want * sizeof(*gc));
	out->gaps = gc;
	out->pers = gc + want;
	out->halts = gc + 2 * want;
	if (r < 0) {
		stall_list_free(out);
		return r;
	}
	return 0;
}

void stall_list_free(struct stall_list *l)
{
	if (!l)
		return;
	free(l->gaps);
	memset(l, 0, sizeof(*l));
}
