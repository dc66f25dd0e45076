/* ctflow -- the call tree fed from flow windows (see ctflow.h). */
#include "ctflow.h"

#include <pthread.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>

#include "calltree.h"
#include "ctx.h"
#include "flow.h"
#include "image.h"
#include "pkt.h"
#include "sideband.h"
#include "ptdec.h"
#include "tm.h"
#include "trace.h"


/* The address space of the packet at @off into *@asid (0 without a
 * context), its thread's key for ct_thread() into *@thread (0 where
 * unknown, else the tid + 1) and its estimated TSC into *@tsc (0 where
 * unknown). */
static void ctf_task(const struct ctf_opts *o, uint64_t off, uint64_t *asid,
		     uint64_t *thread, uint64_t *tsc)
{
	struct ctx_task task;

	*asid = *thread = *tsc = 0;
	if (!o->ctx || ctx_at(o->ctx, o->stream, off, &task) < 0)
		return;
	*asid = task.asid;
	if (task.tid >= 0)
		*thread = (uint64_t)task.tid + 1;
	if (task.flags & CTX_F_TSC)
		*tsc = task.tsc;
}

/* The index of the last slice of @stream's timeline starting at or before
 * @tsc, or SIZE_MAX if none. */
static size_t ctf_slice_at(const struct sb *sb, int stream, uint64_t tsc)
{
	size_t lo = 0, hi = sb_nslices(sb, stream);
	struct sb_slice sl;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (!sb_slice(sb, stream, mid, &sl) && sl.tsc <= tsc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : SIZE_MAX;
}

/* The last answer of ctf_runs_elsewhere(), a walk of every timeline. */
struct ctf_mig {
	int32_t tid;		/* -1: none */
	int elsewhere;
};

static int ctf_cmp_pair(const void *x, const void *y)
{
	const int64_t *a = x, *b = y;

	return *a < *b ? -1 : *a > *b;
}

int ctf_migrants(struct sb *sb, int nstreams, int32_t **out, size_t *n)
{
	struct sb_slice sl;
	int64_t *p;
	size_t np = 0, cap = 0, i, j, k = 0;
	int32_t *m;
	int s;

	*out = NULL;
	*n = 0;
	for (s = 0; s < nstreams; s++)
		cap += sb_nslices(sb, s);
	p = malloc((cap ? cap : 1) * sizeof(*p));
	if (!p)
		return -pte_nomem;
	/* (tid, stream) pairs, sorted: a tid with two streams migrates */
	for (s = 0; s < nstreams; s++)
		for (j = 0; j < sb_nslices(sb, s); j++)
			if (!sb_slice(sb, s, j, &sl) && sl.tid >= 0 && np < cap)
				p[np++] = (int64_t)sl.tid << 16 | (s & 0xffff);
	qsort(p, np, sizeof(*p), ctf_cmp_pair);
	m = malloc((np ? np : 1) * sizeof(*m));
	if (!m) {
		free(p);
		return -pte_nomem;
	}
	for (i = 0; i < np; i = j) {
		for (j = i + 1; j < np && p[j] >> 16 == p[i] >> 16; j++)
			;
		if (p[j - 1] != p[i])
			m[k++] = (int32_t)(p[i] >> 16);
	}
	free(p);
	*out = m;
	*n = k;
	return 0;
}

/* Whether thread @tid runs on a stream other than @o->stream at all.
 * Not when: each CPU's TSC is its own (a simulated recording's cycle
 * model, or clocks that drift), so the times of two CPUs' switches do
 * not tell which came first. */
static int ctf_runs_elsewhere(const struct ctf_opts *o, int32_t tid)
{
	struct sb_slice sl;
	size_t n, j;
	int s;

	if (o->migrants) {
		size_t lo = 0, hi = o->nmigrants;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (o->migrants[mid] < tid)
				lo = mid + 1;
			else
				hi = mid;
		}
		return lo < o->nmigrants && o->migrants[lo] == tid;
	}
	for (s = 0; s < o->nstreams; s++) {
		if (s == o->stream)
			continue;
		n = sb_nslices(o->sb, s);
		for (j = 0; j < n; j++)
			if (!sb_slice(o->sb, s, j, &sl) && sl.tid == tid)
				return 1;
	}
	return 0;
}

/* Whether thread @tid, switched in on @o->stream at TSC @tsc, may have run
 * on another stream since it last left this one (its calls and returns
 * there are not in this stream, so its stack here is stale): it ran
 * here before, and it runs on another stream at some time.  Answered
 * from the sideband's timelines alone, the same wherever a decode starts
 * (a fragment's, the whole range's). */
static int ctf_ran_elsewhere(const struct ctf_opts *o, int32_t tid, uint64_t tsc,
			     struct ctf_mig *c)
{
	struct sb_slice sl;
	size_t n, j;

	if (!o->sb || o->nstreams < 2)
		return 0;
	n = sb_nslices(o->sb, o->stream);
	j = ctf_slice_at(o->sb, o->stream, tsc);
	if (j == SIZE_MAX || sb_slice(o->sb, o->stream, j, &sl))
		return 0;
	/* an estimate just before the switch in: the next slice's */
	if (sl.tid != tid && j + 1 < n && !sb_slice(o->sb, o->stream, j + 1, &sl) &&
	    sl.tid == tid)
		j++;
	if (sl.tid != tid)
		return 0;
	/* back over its stint here, then to the one before */
	while (j && !sb_slice(o->sb, o->stream, j - 1, &sl) && sl.tid == tid)
		j--;
	while (j && !sb_slice(o->sb, o->stream, j - 1, &sl) && sl.tid != tid)
		j--;
	if (!j)
		return 0;	/* its first stint here: no stack yet */
	if (c->tid != tid) {
		c->tid = tid;
		c->elsewhere = ctf_runs_elsewhere(o, tid);
	}
	return c->elsewhere;
}

/* The last instruction fed: its thread (0: unknown) and address space,
 * if any. */
struct ctf_prev {
	int have;
	uint64_t thread, asid;
};

/* The thread and address space of the last instruction line of @w kept
 * before line @i into *@p: the instruction the tree was fed last,
 * wherever this window starts feeding. */
static void ctf_before(const struct ctf_opts *o, const struct flow_window *w,
		       size_t i, struct ctf_prev *p)
{
	uint64_t tsc;

	while (i && (w->lines[i - 1].r.kind != FLOW_INSN ||
		     (o->keep && !ctx_ranges_has(o->keep, o->nkeep,
						 w->lines[i - 1].r.offset))))
		i--;
	p->have = i > 0;
	p->thread = p->asid = 0;
	if (i)
		ctf_task(o, w->lines[i - 1].r.offset, &p->asid, &p->thread, &tsc);
}

/* Whether event @r enables tracing again not where it stopped (a signal's
 * handler, a sigreturn, another thread). */
static int ctf_elsewhere(const struct flow_rec *r)
{
	return r->kind == FLOW_EVENT && r->ev == FLOW_EV_ENABLED &&
	       !(r->flags & (FLOW_F_STATUS | FLOW_F_RESUMED));
}

/* Whether the record decided at @off is fed (@o->keep), moving *@k. */
static int ctf_kept(const struct ctf_opts *o, uint64_t off, size_t *k)
{
	if (!o->keep)
		return 1;
	while (*k < o->nkeep && o->keep[*k].to <= off)
		(*k)++;
	if (*k < o->nkeep && o->keep[*k].from <= off)
		return 1;
	/* an offset before the hint (a record read ahead): search */
	return ctx_ranges_has(o->keep, o->nkeep, off);
}

/* Whether event @r may come with a context switch: the code after it may
 * be another thread's (a switch happens in the kernel, so in user-space
 * code it comes with tracing enabled again, or a paging event). */
static int ctf_may_switch(const struct flow_rec *r)
{
	if (r->kind != FLOW_EVENT)
		return r->kind == FLOW_ERROR;
	return r->ev == FLOW_EV_ENABLED || r->ev == FLOW_EV_PAGING ||
	       r->ev == FLOW_EV_ASYNC_PAGING || r->ev == FLOW_EV_OVERFLOW;
}

/* Whether event or error @r breaks the call stack. */
static int ctf_breaks(const struct flow_rec *r)
{
	if (r->kind == FLOW_ERROR)
		return 1;
	return r->kind == FLOW_EVENT && !(r->flags & FLOW_F_STATUS) &&
	       r->ev == FLOW_EV_OVERFLOW;
}

/* A block line of a window, for ct_block()'s count of its instructions
 * below an address. */
struct ctf_line {
	const struct flow_window *w;
	const struct flow_line *l;
};

static uint32_t ctf_below(const void *ctx, uint64_t addr)
{
	const struct ctf_line *b = ctx;

	return flow_line_below(b->w, b->l, addr);
}

/* Feed line @l of @w, an instruction line (a block line in a block
 * window), to @ct.  Returns ct_block()'s result. */
static int ctf_feed_line(struct ct *ct, const struct flow_window *w,
			 const struct flow_line *l, uint64_t asid)
{
	struct ctf_line b = { w, l };
	int iclass = l->r.iclass;

	/* a direct jump never unwinds (calltree.h): only indirect ones */
	if (iclass == FLOW_IC_JUMP && (l->r.flags & FLOW_F_DIRECT))
		iclass = FLOW_IC_OTHER;
	if (l->ninsns <= 1)
		return ct_insn(ct, l->r.offset, asid, l->r.ip, iclass);
	return ct_block(ct, l->r.offset, asid, l->r.ip, l->last_ip, l->ninsns,
			iclass, ctf_below, &b);
}

/*
 * Where the model cannot move its estimate between TSC packets (no MTC
 * timing, CYCs not calibrated yet: tm.h), a deciding packet's estimate is
 * the last TSC's.  At the start of a range that is the TSC before it, up
 * to a PSB period before the packet: such a stamp bounds nothing, and a
 * call or span starting there would count that period (74793 ticks for
 * a call of 47 instructions).  Those stamps are fed as untimed: the
 * range's time starts at the first estimate anchored at a TSC in the
 * range or moved by its packets, and a call made before it has no time.
 */
struct ctf_stale {
	int on;			/* the stamps equal to tsc are stale */
	int nom;		/* --nom-freq times CYCs (if there are any) */
	uint64_t tsc;		/* the estimate held before the range */
};

/* Start run @r in @ct: its cycles, and its estimate unless @st says it
 * is stale (which it stops saying once an estimate moved). */
static int ctf_run_start(struct ct *ct, const struct flow_run *r,
			 struct ctf_stale *st)
{
	struct ct_cyc c;
	int have = (r->tm_flags & TM_F_TSC) && !(r->tm_flags & TM_F_REL);

	c.lo = r->cycles.lo;
	c.hi = r->cycles.hi;
	c.flags = (uint8_t)((r->cycles.flags & FLOW_C_KNOWN ? CT_C_KNOWN : 0) |
			    (r->cycles.flags & FLOW_C_HI ? CT_C_HI : 0) |
			    (r->cycles.flags & FLOW_C_EXACT ? CT_C_EXACT : 0));
	if (have && st && st->on) {
		/* P1 moves the estimate from the first CYC on */
		if (r->tsc != st->tsc || (st->nom && (r->tm_flags & TM_F_CYC)))
			st->on = 0;
		else
			have = 0;
	}
	return ct_run(ct, &c, r->tsc, have);
}

/* ctf_window() for lines [@begin, @end) of @w, @st its stale stamps
 * (NULL: none). */
static int ctf_window_from(struct ct *ct, const struct flow_window *w,
			   const struct ctf_opts *o, size_t begin, size_t end,
			   struct ctf_stale *stale)
{
	uint32_t run = UINT32_MAX;
	uint64_t asid = 0, thread = 0, asid_off = UINT64_MAX, tsc;
	struct ctf_prev prev;
	size_t i, k = 0;
	int in = 1, ret, may_switch = 1, enabled = 0;
	struct ctf_mig mig = { -1, 0 };

	if (!ct || !w || !o)
		return -pte_invalid;
	ctf_before(o, w, begin, &prev);
	for (i = begin; i < end && i < w->nlines; i++) {
		const struct flow_line *l = &w->lines[i];

		if (!ctf_kept(o, l->r.offset, &k)) {
			if (in && (ret = ct_break(ct)) < 0)
				return ret;
			in = 0;
			run = UINT32_MAX;
			may_switch = 1;
			continue;
		}
		in = 1;
		if (l->r.kind != FLOW_INSN) {
			may_switch |= ctf_may_switch(&l->r);
			enabled |= ctf_elsewhere(&l->r);
			/* back where it stopped: a call out may have come
			 * back (calltree.h) */
			if (l->r.kind == FLOW_EVENT && l->r.ev == FLOW_EV_ENABLED &&
			    (l->r.flags & FLOW_F_RESUMED) &&
			    (ret = ct_resumed(ct)) < 0)
				return ret;
			if (ctf_breaks(&l->r)) {
				if ((ret = ct_break_all(ct)) < 0)
					return ret;
				run = UINT32_MAX;
			}
			continue;
		}
		if (l->run != run && l->run < w->nruns) {
			run = l->run;
			ret = ctf_run_start(ct, &w->runs[run], stale);
			if (ret < 0)
				return ret;
		}
		if (l->r.offset != asid_off) {
			ctf_task(o, l->r.offset, &asid, &thread, &tsc);
			asid_off = l->r.offset;
			/* the task the sideband says, where one may begin: the
			 * time of a packet is an estimate, a switch is not.  A
			 * thread back from another CPU comes without its stack */
			if (may_switch && o->sb && thread && prev.thread &&
			    thread != prev.thread &&
			    ctf_ran_elsewhere(o, (int32_t)(thread - 1), tsc, &mig))
				ret = ct_thread_lost(ct, thread);
			else
				ret = may_switch ? ct_thread(ct, thread) : 0;
			if (ret < 0)
				return ret;
			may_switch = 0;
		}
		/* on the same thread and code: a signal's handler entered,
		 * or its sigreturn (calltree.h) */
		if (enabled && prev.have && thread == prev.thread &&
		    asid == prev.asid && (ret = ct_enabled(ct, l->r.offset)) < 0)
			return ret;
		enabled = 0;
		ret = ctf_feed_line(ct, w, l, asid);
		if (ret < 0)
			return ret;
		prev.have = 1;
		prev.thread = thread;
		prev.asid = asid;
	}
	return 0;
}

int ctf_window(struct ct *ct, const struct flow_window *w,
	       const struct ctf_opts *o)
{
	return w ? ctf_window_from(ct, w, o, 0, w->nlines, NULL) : -pte_invalid;
}

/* The index after the last line of @w decided before @off (0: none). */
static size_t ctf_after(const struct flow_window *w, uint64_t off)
{
	size_t i = w->nlines;

	while (i && w->lines[i - 1].r.offset >= off)
		i--;
	return i;
}

/* Feed @tm the packets of @img from @from up to @to (the time model of a
 * window's walk), its state before the last PSB on the way into *@psb_carry
 * and that PSB's offset into *@psb (unchanged if none). */
static void ctf_time(struct tm_model *tm, const struct img *img, uint64_t from,
		     uint64_t to, struct tm_carry *psb_carry, uint64_t *psb)
{
	struct img_cursor cur;
	struct pkt pkt;
	int n;

	if (img_cursor_init(&cur, img, from) < 0)
		return;
	while ((n = img_cursor_next(&cur, &pkt)) != -pte_eos) {
		if (n < 0) {
			/* lost bytes: the model says so; on at the next PSB */
			tm_gap(tm);
			cur.gap = 0;
			if (n != -pte_gap &&
			    img_cursor_sync_forward(&cur, pkt.offset + 1) < 0)
				return;
			continue;
		}
		if (pkt.offset >= to)
			return;
		if (pkt.type == PKT_PSB) {
			tm_save(tm, psb_carry);
			*psb = pkt.offset;
		}
		tm_advance(tm, &pkt);
	}
}

/* The stale stamps of [@from, ...) of @img decoded with @o into *@st:
 * those equal to the estimate just before the first offset fed (@from,
 * or the first range kept), if it held there.  Not for a piece of a
 * longer decode (o->resume): its estimate moved in the pieces before. */
static void ctf_stale_init(struct ctf_stale *st, const struct ctf_opts *o,
			   const struct img *img, uint64_t from)
{
	struct img_cursor cur;
	struct tm_model tm;
	struct tm_carry c;
	uint64_t at, start = from, psb = UINT64_MAX, tsc;

	memset(st, 0, sizeof(*st));
	if (o->resume || tm_mtc_timed(o->tm))
		return;
	if (o->keep && o->nkeep && o->keep[0].from > start)
		start = o->keep[0].from;
	/* the model where the decode's is there: from the first PSB at or
	 * after @from (ctf_decode()), walked on to the first offset fed */
	if (img_cursor_init(&cur, img, 0) < 0 ||
	    img_cursor_sync_forward(&cur, from) < 0)
		return;
	at = img_cursor_offset(&cur);
	tm_init(&tm, o->tm);
	if (o->carry)
		tm_restore(&tm, o->carry);
	if (start > at)
		ctf_time(&tm, img, at, start, &c, &psb);
	tm_save(&tm, &c);
	if (c.ratio || tm_now(&tm, &tsc) < 0)
		return;
	st->on = 1;
	st->tsc = tsc;
	st->nom = o->tm && o->tm->have_nom_freq && o->tm->nom_freq && c.cbr;
}

/* A decoded window handed from the decoding thread to the feeding one. */
struct ctf_slot {
	struct flow_window w;
	size_t begin, end;	/* the lines to feed */
	uint64_t start;		/* the window's first offset */
	uint64_t at;		/* where the range is decoded up to after it */
	int full;		/* decoded, not fed yet */
};

/* One ctf_range(): its windows are decoded in a thread of their own while
 * the caller's feeds the tree the windows before (piped), or both in the
 * caller's thread, one window after the other. */
struct ctf_run {
	struct ct *ct;
	struct flow *f;
	const struct img *img;
	uint64_t from, to;
	const struct ctf_opts *o;
	int piped;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct ctf_slot slot[2];	/* piped: used in turn; else [0] */
	unsigned k;		/* the slot the decoder fills next */
	int stop;		/* the feeder stopped: decode no more */
	int eos, eos_ret;	/* the decoder is done, with this result */
	struct ctf_stale stale;	/* the feeder's */
};

/* The window to decode into next, or NULL if the feeder stopped. */
static struct ctf_slot *ctf_slot_get(struct ctf_run *r)
{
	struct ctf_slot *sl = &r->slot[r->piped ? r->k & 1 : 0];

	if (!r->piped)
		return sl;
	pthread_mutex_lock(&r->mu);
	while (sl->full && !r->stop)
		pthread_cond_wait(&r->cv, &r->mu);
	if (r->stop)
		sl = NULL;
	pthread_mutex_unlock(&r->mu);
	return sl;
}

/* Feed slot @sl's lines to the tree and say how far the range is done.
 * Returns 0, 1 if the window hook stopped it, -pte_canceled (more is to
 * come but the job was cancelled), or the hook's or ctf_window_from()'s
 * error. */
static int ctf_feed(struct ctf_run *r, struct ctf_slot *sl)
{
	const struct ctf_opts *o = r->o;
	int ret = o->window ? o->window(o->window_ctx, sl->start, &r->ct) : 0;

	if (ret)
		return ret;
	ret = ctf_window_from(r->ct, &sl->w, o, sl->begin, sl->end, &r->stale);
	if (ret < 0)
		return ret;
	if (o->done)
		atomic_store(o->done, sl->at - r->from);
	if (sl->at < r->to && o->cancel && atomic_load(o->cancel))
		return -pte_canceled;
	return 0;
}

/* Slot @sl is decoded: feed it now, or hand it to the feeder.  Returns 0,
 * or what stops the decoding (ctf_feed()'s stop or error, one thread). */
static int ctf_emit(struct ctf_run *r, struct ctf_slot *sl)
{
	if (!r->piped)
		return ctf_feed(r, sl);
	pthread_mutex_lock(&r->mu);
	sl->full = 1;
	r->k++;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
	return 0;
}

/* Where the window from PSB @at ends (*@next: the first PSB on the grid
 * after @at, or @to) and how far it is decoded (*@ext: the PSB after
 * *@next, below @to, or below @ahead for the last window of a piece).
 * Leaves @cur anywhere. */
static void ctf_cut(struct img_cursor *cur, uint64_t at, uint64_t to,
		    uint64_t grid, uint64_t ahead, uint64_t *next, uint64_t *ext)
{
	uint64_t lim;

	*next = to;
	if (to - at > grid - at % grid &&
	    !img_cursor_sync_forward(cur, at - at % grid + grid) &&
	    img_cursor_offset(cur) < to)
		*next = img_cursor_offset(cur);
	lim = *next == to && ahead > to ? ahead : to;
	*ext = lim;
	if (*next < lim && !img_cursor_sync_forward(cur, *next + 1) &&
	    img_cursor_offset(cur) < lim)
		*ext = img_cursor_offset(cur);
}

/*
 * Windows end at PSBs on the grid; each is decoded from the PSB before its
 * start (where the window before passed through) to the PSB after its end,
 * and gives the lines after the last one the window before gave, up to its
 * own last one decided before its end.  So the lines are those one decode
 * of the range gives: a decoder starting at a PSB may see other lines
 * there (it ties the instructions after the PSB to the PSB rather than to
 * the packet before; after a TIP.PGD it resynchronises), and a decoder
 * reads ahead, so a window's last instructions may come after a record its
 * end decided.  A piece of a longer decode (ctf_opts.resume, .ahead)
 * starts and ends as that decode's windows there do.
 */
static int ctf_decode(void *arg)
{
	struct ctf_run *r = arg;
	const struct ctf_opts *o = r->o;
	struct flow_wopts wo;
	struct img_cursor cur;
	struct tm_model tm;
	struct tm_carry carry;
	struct ctf_slot *sl;
	uint64_t at, next, ext, grid, start, psb, to = r->to;
	int ret = 0, first = !o->resume;

	memset(&wo, 0, sizeof(wo));
	/* a line per block of straight-line code: fed at once */
	wo.blocks = 1;
	wo.tm = o->tm;
	wo.carry = o->resume ? o->resume_carry : o->carry;
	grid = o->chunk ? o->chunk : CTF_GRID;
	if (img_cursor_init(&cur, r->img, 0) < 0)
		return 0;	/* an empty stream */
	/* the first window starts at the first PSB at or after from */
	if (img_cursor_sync_forward(&cur, r->from) < 0)
		return 0;
	at = start = img_cursor_offset(&cur);
	if (o->resume)
		start = o->resume_psb;
	/* the time model as the windows' walks run it, from the first one's
	 * PSB on, so each window's cycles count as one window's would */
	tm_init(&tm, o->tm);
	if (o->carry)
		tm_restore(&tm, o->carry);
	while (at < to) {
		ctf_cut(&cur, at, to, grid, o->ahead, &next, &ext);
		sl = ctf_slot_get(r);
		if (!sl)
			return 0;	/* the feeder has its result */
		ret = flow_window(r->f, start, ext, &wo, &sl->w);
		if (ret == -FLOW_E_NOMEM)
			return -pte_nomem;
		if (ret < 0)
			return -pte_internal;
		sl->begin = first ? 0 : ctf_after(&sl->w, at);
		sl->end = next == to && ext <= to ? sl->w.nlines : ctf_after(&sl->w, next);
		sl->start = at;
		sl->at = next;
		if (next < to) {
			psb = next;
			ctf_time(&tm, r->img, at, next, &carry, &psb);
			if (psb == next)
				tm_save(&tm, &carry);
			start = psb;
			wo.carry = &carry;
		}
		ret = ctf_emit(r, sl);
		if (ret)
			return ret < 0 ? ret : 0;
		first = 0;
		at = next;
	}
	return 0;
}

/* The decoding thread: its own SIGBUS guard, then the end said. */
static void *ctf_decoder(void *arg)
{
	struct ctf_run *r = arg;
	int ret = trace_guard(ctf_decode, r);

	pthread_mutex_lock(&r->mu);
	r->eos = 1;
	r->eos_ret = ret;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

/* A window to feed, under a SIGBUS guard of its own. */
struct ctf_fed {
	struct ctf_run *r;
	struct ctf_slot *sl;
};

static int ctf_feed_guarded(void *arg)
{
	struct ctf_fed *fd = arg;

	return ctf_feed(fd->r, fd->sl);
}

/* Feed the windows the decoding thread hands over, in order, until it is
 * done or feeding fails.  A SIGBUS while feeding (the sideband's reads of
 * the trace) comes back here as -pte_sigbus, never jumps past the join of
 * the thread that uses this stack frame.  Returns what ctf_range()
 * returns. */
static int ctf_feeder(struct ctf_run *r)
{
	unsigned k = 0;
	int ret = 0;

	for (;;) {
		struct ctf_slot *sl = &r->slot[k & 1];
		struct ctf_fed fd = { r, sl };

		pthread_mutex_lock(&r->mu);
		while (!sl->full && !r->eos)
			pthread_cond_wait(&r->cv, &r->mu);
		if (!sl->full) {
			ret = r->eos_ret;
			pthread_mutex_unlock(&r->mu);
			return ret;
		}
		pthread_mutex_unlock(&r->mu);
		ret = trace_guard(ctf_feed_guarded, &fd);
		pthread_mutex_lock(&r->mu);
		sl->full = 0;
		if (ret)
			r->stop = 1;
		pthread_cond_broadcast(&r->cv);
		pthread_mutex_unlock(&r->mu);
		if (ret)
			return ret < 0 ? ret : 0;
		k++;
	}
}

/*
 * Decoding (the flow, the packets' times: about three quarters of the
 * work) and feeding the tree overlap: a thread decodes the next window
 * while this one feeds the last, the windows fed in order, so the tree is
 * the one a single thread makes.  Where no thread can be started, one
 * thread does both.
 */
int ctf_range(struct ct *ct, struct flow *f, const struct img *img,
	      uint64_t from, uint64_t to, const struct ctf_opts *o)
{
	struct ctf_run r;
	pthread_t th;
	int ret;

	if (!ct || !f || !img || !o || to <= from)
		return -pte_invalid;
	memset(&r, 0, sizeof(r));
	r.ct = ct;
	r.f = f;
	r.img = img;
	r.from = from;
	r.to = to;
	r.o = o;
	ctf_stale_init(&r.stale, o, img, from);
	r.piped = !pthread_mutex_init(&r.mu, NULL);
	if (r.piped && pthread_cond_init(&r.cv, NULL)) {
		pthread_mutex_destroy(&r.mu);
		r.piped = 0;
	}
	if (r.piped && pthread_create(&th, NULL, ctf_decoder, &r)) {
		pthread_cond_destroy(&r.cv);
		pthread_mutex_destroy(&r.mu);
		r.piped = 0;
	}
	if (r.piped) {
		ret = ctf_feeder(&r);
		pthread_join(th, NULL);
		pthread_cond_destroy(&r.cv);
		pthread_mutex_destroy(&r.mu);
	} else {
		ret = ctf_decode(&r);
	}
	flow_window_free(&r.slot[0].w);
	flow_window_free(&r.slot[1].w);
	return ret;
}
