/* marks_summary -- what happens inside a region: packet counts and timing. */
#include <pthread.h>
#include <string.h>

#include "index.h"
#include "marks.h"
#include "ptdec.h"
#include "trace.h"

/* Bytes decoded between progress updates and cancel checks. */
#define BM_PROGRESS_STEP (256 * 1024)

/* TSC packets carry bits 55:0. */
#define BM_TSC_MASK ((UINT64_C(1) << 56) - 1)

static void marks_count_packet(struct marks_summary *s, const struct pkt *p,
			    int *cbr_seen, uint8_t *cbr_prev)
{
	uint64_t bits;
	unsigned int k;

	s->packets++;
	s->by_type[p->type]++;
	s->by_class[pkt_type_class((enum pkt_type)p->type)]++;
	switch (p->type) {
	case PKT_PSB:
		s->psbs++;
		break;
	case PKT_TNT8:
	case PKT_TNT64:
		bits = p->u.tnt.bits;
		s->tnt_bits += p->u.tnt.nbits;
		for (k = 0; k < p->u.tnt.nbits; k++)
			if (bits >> k & 1)
				s->taken++;
		s->not_taken = s->tnt_bits - s->taken;
		break;
	case PKT_TIP:
	case PKT_TIP_PGE:
	case PKT_TIP_PGD:
		s->tips++;
		break;
	case PKT_CYC:
		s->cyc_cycles += p->u.cyc;
		break;
	case PKT_TSC:
		if (!s->has_tsc) {
			s->has_tsc = 1;
			s->first_tsc = p->u.tsc;
			s->first_tsc_off = p->offset;
		}
		s->last_tsc = p->u.tsc;
		s->last_tsc_off = p->offset;
		s->tsc_ticks = (s->last_tsc - s->first_tsc) & BM_TSC_MASK;
		break;
	case PKT_CBR:
		if (!s->cbrs)
			s->first_cbr = p->u.cbr;
		s->last_cbr = p->u.cbr;
		s->cbrs++;
		break;
	case PKT_OVF:
		s->ovfs++;
		break;
	}
	if (p->type == PKT_CBR) {
		if (*cbr_seen && *cbr_prev != p->u.cbr)
			s->cbr_changes++;
		*cbr_seen = 1;
		*cbr_prev = p->u.cbr;
	}
}

/* Where decoding starts: the PSB at or before @from, else the first one
 * after it.  Returns 0, or -pte_nosync if no PSB lies before @to. */
static int marks_summary_seek(const struct img *img, struct img_cursor *cur,
			   uint64_t from, uint64_t to)
{
	uint64_t psb;
	int ret;

	if (!img_find_psb_before(img, from + 1, &psb))
		return img_cursor_init(cur, img, psb) < 0 ? -pte_nosync : 0;
	ret = img_cursor_init(cur, img, from);
	if (ret < 0)
		return -pte_nosync;
	ret = img_cursor_sync_forward(cur, from);
	if (ret < 0 || img_cursor_offset(cur) >= to)
		return -pte_nosync;
	return 0;
}

/* One summary's walk over the packets. */
struct marks_walk {
	struct img_cursor cur;
	uint64_t from, to;		/* the range */
	uint64_t start;			/* where decoding started */
	uint64_t next_tick;		/* the next progress report */
	struct marks_summary *sum;
	struct marks_progress *prog;	/* may be NULL */
	marks_observe_fn *observe;	/* may be NULL */
	void *observe_ctx;
	uint8_t cbr_prev;		/* the last CBR's ratio, if cbr_seen */
	int cbr_seen;
};

/* Report progress every BM_PROGRESS_STEP bytes and poll for cancel.
 * Returns 0, or -pte_canceled. */
static int marks_walk_tick(struct marks_walk *w, uint64_t off)
{
	if (off < w->next_tick)
		return 0;
	w->next_tick = off + BM_PROGRESS_STEP;
	if (!w->prog)
		return 0;
	atomic_store(&w->prog->done, off - w->start);
	return atomic_load(&w->prog->cancel) ? -pte_canceled : 0;
}

/* After img_cursor_next() returned @ret for @p: count a decode error and
 * skip to the next PSB (ptdump's way), and tell the observer where bytes
 * were lost (a gap, or what the skip passed over).  Sets *@end if no PSB
 * follows the error.  Returns the observer's value (0: go on). */
static int marks_walk_lost(struct marks_walk *w, int ret, const struct pkt *p,
			   int *end)
{
	struct marks_summary *sum = w->sum;
	uint64_t lost = UINT64_MAX;	/* nothing lost */

	if (ret < 0 && ret != -pte_gap) {	/* a gap: cur.gap below */
		if (p->offset >= w->from && p->offset < w->to) {
			if (!sum->errors)
				sum->first_error_off = p->offset;
			sum->errors++;
			sum->by_class[PKC_ERROR]++;
		}
		if (img_cursor_sync_forward(&w->cur, p->offset + 1) < 0) {
			*end = 1;
			return 0;
		}
		lost = img_cursor_offset(&w->cur);
	}
	if (w->cur.gap) {
		/* At the gap (or the packet it cut); after a decode error,
		 * where decoding resumed past it. */
		lost = ret < 0 && ret != -pte_gap ? img_cursor_offset(&w->cur)
						  : p->offset;
		sum->gaps += lost >= w->from && lost < w->to;
		w->cur.gap = 0;
	}
	if (lost != UINT64_MAX && w->observe) {
		struct pkt gap = { .offset = lost, .type = PKT_INVALID };

		return w->observe(w->observe_ctx, &gap, lost >= w->from, sum);
	}
	return 0;
}

/* Decode, count and observe the next packet; sets *@end at the end of
 * the data.  Returns the observer's value (0: go on). */
static int marks_walk_step(struct marks_walk *w, int *end)
{
	struct pkt p;
	int ret, stop, in;

	ret = img_cursor_next(&w->cur, &p);
	if (ret == -pte_eos) {
		*end = 1;
		return 0;
	}
	stop = marks_walk_lost(w, ret, &p, end);
	if (stop || *end || ret < 0)
		return stop;
	in = p.offset >= w->from;
	if (in) {
		marks_count_packet(w->sum, &p, &w->cbr_seen, &w->cbr_prev);
	} else if (p.type == PKT_CBR) {
		w->cbr_seen = 1;
		w->cbr_prev = p.u.cbr;
	}
	return w->observe ? w->observe(w->observe_ctx, &p, in, w->sum) : 0;
}

static int marks_summarise(const struct img *img, uint64_t from, uint64_t to,
			struct marks_summary *sum, struct marks_progress *prog,
			marks_observe_fn *observe, void *observe_ctx)
{
	struct marks_walk w = { .from = from, .to = to, .sum = sum,
				.prog = prog, .observe = observe,
				.observe_ctx = observe_ctx };
	uint64_t off;
	struct pkt p;
	int ret, end = 0;

	memset(sum, 0, sizeof(*sum));
	sum->from = from;
	sum->to = to;
	sum->bytes = to - from;
	ret = marks_summary_seek(img, &w.cur, from, to);
	if (ret < 0) {
		ret = 0;
		goto out_done;
	}
	w.start = img_cursor_offset(&w.cur);
	if (prog) {
		atomic_store(&prog->total, to - w.start);
		atomic_store(&prog->done, 0);
	}
	w.next_tick = w.start + BM_PROGRESS_STEP;
	while (!end) {
		off = img_cursor_offset(&w.cur);
		if (off >= to) {
			/* The end edge: the packet the range ends at. */
			if (observe && img_cursor_next(&w.cur, &p) >= 0 && !w.cur.gap) {
				ret = observe(observe_ctx, &p, 2, sum);
				if (ret)
					goto out_done;
			}
			break;
		}
		ret = marks_walk_tick(&w, off);
		if (!ret)
			ret = marks_walk_step(&w, &end);
		if (ret)
			goto out_done;
	}
	ret = 0;
	if (observe)
		ret = observe(observe_ctx, NULL, 0, sum);
out_done:
	if (prog && !ret)
		atomic_store(&prog->done, atomic_load(&prog->total));
	return ret;
}

struct marks_summary_args {
	const struct img *img;
	uint64_t from, to;
	struct marks_summary *sum;
	struct marks_progress *prog;
	marks_observe_fn *observe;
	void *observe_ctx;
};

static int marks_summary_body(void *arg)
{
	struct marks_summary_args *a = arg;

	return marks_summarise(a->img, a->from, a->to, a->sum, a->prog, a->observe,
			    a->observe_ctx);
}

/* marks_region_summary() without marking @prog finished. */
static int marks_summary_run(const struct img *img, uint64_t from, uint64_t to,
			  struct marks_summary *sum, struct marks_progress *prog,
			  marks_observe_fn *observe, void *observe_ctx)
{
	struct marks_summary_args a = { img, from, to, sum, prog, observe, observe_ctx };

	if (!img || !sum)
		return -pte_invalid;
	if (a.to > img->size)
		a.to = img->size;
	if (from >= a.to)
		return -pte_invalid;
	/* The image is usually a mapping, which a shrinking file truncates. */
	return trace_guard(marks_summary_body, &a);
}

int marks_region_summary(const struct img *img, uint64_t from, uint64_t to,
		      struct marks_summary *sum, struct marks_progress *prog,
		      marks_observe_fn *observe, void *observe_ctx)
{
	int ret;

	ret = marks_summary_run(img, from, to, sum, prog, observe, observe_ctx);
	if (prog)
		atomic_store(&prog->finished, 1);
	return ret;
}

void marks_time_init(struct marks_time *bt, const struct tm_config *cfg)
{
	memset(bt, 0, sizeof(*bt));
	tm_init(&bt->tm, cfg);
}

/* Whether stamp @st of @pkt is a timing packet's own time: a TSC, or an
 * MTC placed on the crystal clock, the estimate not ahead of it. */
static int marks_time_anchor(const struct pkt *pkt, const struct tm_stamp *st)
{
	if (st->flags & (TM_F_CLAMPED | TM_F_LOST | TM_F_TSC_BACK | TM_F_REL))
		return 0;
	return pkt->type == PKT_TSC ||
	       (pkt->type == PKT_MTC && !(st->flags & (TM_F_UNTIED | TM_F_NO_CONFIG)));
}

/* Whether the packet at @off, after a TSC of its segment if @timed,
 * lies in a segment of @idx (NULL: none) whose TSC contradicts its
 * neighbours': its time is damaged. */
static int marks_time_outlier(const struct idx *idx, uint64_t off, int timed)
{
	size_t k;

	return timed && idx && !idx_find(idx, off, &k) && idx_time_outlier(idx, k);
}

/* Whether time @st of the packet at @off lies past the ceiling of its
 * segment of @idx (NULL: none) where that is damage,
 * idx_time_damage_ceiling(): a damaged TSC outside PSB+ took time there. */
static int marks_time_beyond(const struct idx *idx, uint64_t off, const struct tm_stamp *st)
{
	uint64_t ceil;
	size_t k;

	return idx && (st->flags & TM_F_TSC) && !idx_find(idx, off, &k) &&
	       idx_time_damage_ceiling(idx, k, &ceil) && st->tsc > ceil;
}

/* At the end: how sure the duration from @a to @b (at @b_off) is, and
 * the cycles between the first packet and @b. */
static void marks_time_sure(const struct marks_time *bt, const struct tm_stamp *b,
			    int b_anchor, uint64_t b_off, struct marks_summary *sum)
{
	const struct tm_stamp *s = &bt->start;

	sum->time_warm = bt->warm;
	sum->time_disputed = bt->jumped ||
			     marks_time_outlier(bt->idx, bt->first_off, bt->first_tsc) ||
			     marks_time_outlier(bt->idx, b_off, bt->end_tsc) ||
			     (bt->have_first && marks_time_beyond(bt->idx, bt->first_off, &bt->first)) ||
			     marks_time_beyond(bt->idx, b_off, b);
	sum->time_exact = sum->has_span && bt->first_anchor && b_anchor && !bt->lost &&
			  !sum->time_disputed;
	if (bt->have_start && (s->flags & b->flags & TM_F_CYC) && b->cycles >= s->cycles) {
		sum->has_cycles = 1;
		sum->cycles = b->cycles - s->cycles;
		sum->cycles_exact = (s->flags & b->flags & TM_F_EXACT) && !bt->lost;
	}
}

int marks_time_observe(void *ctx, const struct pkt *pkt, int in_range,
		    struct marks_summary *sum)
{
	struct marks_time *bt = ctx;
	struct tm_stamp st;
	double ns, cycles;

	if (pkt && pkt->type == PKT_INVALID) {
		tm_gap(&bt->tm);
		bt->lost |= in_range == 1;
		return 0;
	}
	if (pkt) {
		if (pkt->type == PKT_PSB || pkt->type == PKT_TSC)
			bt->seg_tsc = pkt->type == PKT_TSC;
		if (tm_step(&bt->tm, pkt, &st) < 0 || !in_range)
			return 0;
		/* a TSC where time went back, or left the stretch it went
		 * back to (a far-past PSB+ TSC's): the times each side are
		 * of stretches that disagree, also at the end edge */
		if (pkt->type == PKT_TSC &&
		    (tm_tsc_jumped(&bt->tm) || (st.flags & TM_F_RESYNC)))
			bt->jumped = 1;
		if (in_range == 2) {
			bt->end = st;
			bt->end_off = pkt->offset;
			bt->end_tsc = bt->seg_tsc;
			bt->have_end = (st.flags & TM_F_TSC) != 0;
			bt->end_anchor = (uint8_t)marks_time_anchor(pkt, &st);
			return 0;
		}
		if (st.flags & TM_F_OVF)
			bt->lost = 1;
		if (!bt->have_start)
			bt->start = st;
		bt->have_start = 1;
		if (st.flags & TM_F_FREQ) {
			if (!bt->khz_n || st.khz < bt->khz_min)
				bt->khz_min = st.khz;
			if (st.khz > bt->khz_max)
				bt->khz_max = st.khz;
			bt->khz_sum += st.khz;
			bt->khz_n++;
		}
		if (!(st.flags & TM_F_TSC))
			return 0;
		if (!bt->have_first) {
			bt->first = st;
			bt->first_off = pkt->offset;
			bt->first_tsc = bt->seg_tsc;
			bt->first_anchor = (uint8_t)marks_time_anchor(pkt, &st);
		}
		bt->have_first = 1;
		bt->last = st;
		if (!bt->have_end) {
			bt->end_off = pkt->offset;
			bt->end_tsc = bt->seg_tsc;
		}
		bt->last_anchor = (uint8_t)marks_time_anchor(pkt, &st);
		return 0;
	}
	if (bt->have_first) {
		const struct tm_stamp *a = &bt->first;
		const struct tm_stamp *b = bt->have_end ? &bt->end : &bt->last;
		int b_anchor = bt->have_end ? bt->end_anchor : bt->last_anchor;

		if (b->tsc >= a->tsc) {
			sum->has_span = 1;
			sum->span_ticks = b->tsc - a->tsc;
		}
		if ((a->flags & b->flags & TM_F_NS) && b->ns >= a->ns) {
			sum->has_time = 1;
			sum->duration_ns = (double)(b->ns - a->ns);
		}
		marks_time_sure(bt, b, b_anchor, bt->end_off, sum);
		bt->last = *b;
	}
	if (bt->khz_n) {
		sum->freq_min_mhz = bt->khz_min / 1000.0;
		sum->freq_max_mhz = bt->khz_max / 1000.0;
		sum->freq_avg_mhz = (double)bt->khz_sum / (double)bt->khz_n / 1000.0;
	}
	ns = sum->duration_ns;
	/* Across lost data (an OVF, a gap) the cycles lost are not counted:
	 * cycles over the duration would be no average (below the slowest
	 * measurement, as if halted), so the measurements' mean stays. */
	if (sum->has_time && ns > 0 && !bt->lost &&
	    (bt->first.flags & bt->last.flags & TM_F_CYC)) {
		cycles = (double)(bt->last.cycles - bt->first.cycles);
		/* cycles per ns is GHz */
		if (cycles > 0) {
			sum->freq_avg_mhz = cycles / ns * 1000.0;
			sum->freq_avg_wall = 1;
		}
	}
	return 0;
}

static void *marks_summary_thread(void *arg)
{
	struct marks_summary_job *job = arg;

	job->result = marks_summary_run(job->img, job->from, job->to, &job->sum,
				     &job->progress, job->observe,
				     job->observe_ctx);
	/* Last, so a poller that sees it also sees the result. */
	atomic_store(&job->progress.finished, 1);
	return NULL;
}

int marks_summary_start(struct marks_summary_job *job)
{
	if (!job || !job->img)
		return -pte_invalid;
	atomic_store(&job->progress.done, 0);
	atomic_store(&job->progress.total, job->to > job->from ? job->to - job->from : 0);
	atomic_store(&job->progress.cancel, 0);
	atomic_store(&job->progress.finished, 0);
	job->result = 0;
	if (pthread_create(&job->thread, NULL, marks_summary_thread, job))
		return -pte_nomem;
	return 0;
}

void marks_summary_cancel(struct marks_summary_job *job)
{
	if (job)
		atomic_store(&job->progress.cancel, 1);
}

int marks_summary_join(struct marks_summary_job *job)
{
	if (!job)
		return -pte_invalid;
	pthread_join(job->thread, NULL);
	return job->result;
}
