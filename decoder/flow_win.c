/*
 * flow_win -- windows of the flow for the code view: lines with their call
 * depth, grouped in runs with their cycles (see flow.h, "Windows").
 *
 * Two passes: the flow decoder gives the lines (and, past the window's
 * end, what ends its last run); then one walk of the packets from the
 * window's PSB through the time model stamps the packets that start and
 * end runs.  A bounded stamp's upper bound is the cycle count at the next
 * CYC, so the walk goes on past the last packet asked about until that CYC
 * (or a while: see WALK_PAST).  A block window (flow.h) takes the decoder's
 * records a block at a time (fi_next_blk()) and joins them into block
 * lines, keeping the instructions' sizes for flow_line_below().
 */
#include "flow_int.h"

#include <stdlib.h>
#include <string.h>

#include "image.h"

/* How far past the window the walk looks for the CYC that bounds its last
 * stamps; beyond it, they stay unbounded above. */
#define WALK_PAST	(64 * 1024)

/* How many records past the window's end decoding looks for the packet
 * that ends the last run. */
#define PEEK_PAST	4096

/* A packet to stamp. */
struct want {
	uint64_t off;
	struct flow_cyc c;	/* its cycle count */
	uint64_t tsc;
	uint32_t tm_flags;
	uint8_t done;		/* stamped */
};

void flow_window_free(struct flow_window *w)
{
	if (!w)
		return;
	free(w->lines);
	free(w->runs);
	free(w->sizes);
	memset(w, 0, sizeof(*w));
	w->psb = UINT64_MAX;
}

static int grow(void **p, size_t *cap, size_t n, size_t size)
{
	size_t c;
	void *q;

	if (n < *cap)
		return 0;
	c = *cap ? *cap * 2 : 256;
	while (c <= n)
		c *= 2;
	q = realloc(*p, c * size);
	if (!q)
		return -FLOW_E_NOMEM;
	*p = q;
	*cap = c;
	return 0;
}

/* Whether event record @r ends the run before it: tracing stops (its time
 * ends the run), or the flow breaks (the time of the end is unknown). */
static int breaks(const struct flow_rec *r)
{
	if (r->kind == FLOW_ERROR)
		return 1;
	if (r->flags & FLOW_F_STATUS)
		return 0;
	switch (r->ev) {
	case FLOW_EV_DISABLED:
	case FLOW_EV_ASYNC_DISABLED:
	case FLOW_EV_OVERFLOW:
	case FLOW_EV_ENABLED:
	case FLOW_EV_STOP:
		return 1;
	default:
		return 0;
	}
}

/* The packet whose time ends a run decided at @off, given record @r that
 * follows it: UINT64_MAX where the end's time is unknown, 0 where @r does
 * not settle it (an event inside the run). */
static uint64_t run_end(uint64_t off, const struct flow_rec *r)
{
	if (r->kind == FLOW_INSN)
		return r->offset == off ? 0 : r->offset > off ? r->offset : UINT64_MAX;
	if (!breaks(r))
		return 0;
	if (r->kind == FLOW_EVENT && r->offset >= off &&
	    (r->ev == FLOW_EV_DISABLED || r->ev == FLOW_EV_ASYNC_DISABLED))
		return r->offset;
	return UINT64_MAX;
}

/* The block line of @w that record @r (@o) continues, or NULL: the last
 * line, if @r is an instruction of the same run, mode and speculation,
 * and that line ends in no branch (then the code is contiguous). */
static struct flow_line *win_joins(struct flow_window *w, const struct flow_rec *r,
				   const struct fi_blk *o, int open)
{
	struct flow_line *l;

	if (!w->blocks || !o->n || !open || !w->nlines)
		return NULL;
	l = &w->lines[w->nlines - 1];
	if (l->ninsns && l->r.iclass == FLOW_IC_OTHER && l->run == w->nruns - 1 &&
	    r->offset == l->r.offset && l->r.mode == r->mode &&
	    !((l->r.flags ^ r->flags) & FLOW_F_SPEC) &&
	    l->last_ip + l->r.size == r->ip)
		return l;
	return NULL;
}

/* Extend block line @l (win_joins()) with record @r's instructions @o;
 * their sizes are the caller's to store. */
static inline void win_extend(struct flow_line *l, const struct flow_rec *r,
			      const struct fi_blk *o)
{
	l->ninsns += o->n;
	l->last_ip = o->last_ip;
	l->r.size = r->size;
	l->r.iclass = r->iclass;
	l->r.flags = r->flags;
}

/* The call depth over a window, and the return addresses of the calls
 * open (the latest WIN_RETS): a call that left the traced range (a
 * stub's jump) comes back at its return address with tracing enabled
 * again, or resumed right there (an indirect call out), and is then
 * left as by its return; a count of calls and returns alone went one
 * deeper at each. */
#define WIN_RETS 64

struct win_depth {
	int32_t depth;
	uint8_t check;		/* the next instruction may be such a return:
				 * after a call, or tracing enabled */
	uint32_t n;		/* return addresses kept */
	uint64_t ret[WIN_RETS];
};

/* The next instruction is at @ip: where the latest call open returns to
 * (only after a call or an enable) leaves it. */
static inline void wd_at(struct win_depth *d, uint64_t ip)
{
	if (!d->check)
		return;
	d->check = 0;
	if (d->n && d->ret[d->n - 1] == ip) {
		d->n--;
		d->depth--;
	}
}

/* After record @r (@o its instructions: a call or return is the last). */
static inline void wd_after(struct win_depth *d, const struct flow_rec *r,
			    const struct fi_blk *o)
{
	if (r->kind == FLOW_EVENT && r->ev == FLOW_EV_ENABLED)
		d->check = 1;
	if (r->kind != FLOW_INSN || !o->n)
		return;
	if (r->iclass == FLOW_IC_CALL || r->iclass == FLOW_IC_FAR_CALL) {
		d->depth++;
		if (d->n == WIN_RETS) {
			memmove(d->ret, d->ret + 1, (WIN_RETS - 1) * sizeof(*d->ret));
			d->n--;
		}
		d->ret[d->n++] = o->last_ip + o->sizes[o->n - 1];
		d->check = 1;
	} else if (r->iclass == FLOW_IC_RETURN || r->iclass == FLOW_IC_FAR_RETURN) {
		d->depth--;
		if (d->n)
			d->n--;
	}
}

/* Add line @r to @w: its depth, its run.  @o: its instructions (in a
 * block window, maybe several, which may continue the last line). */
static int add_line(struct flow_window *w, const struct flow_rec *r,
		    const struct fi_blk *o, struct win_depth *d, int *open)
{
	struct flow_line *l;
	struct flow_run *run = *open ? &w->runs[w->nruns - 1] : NULL;
	uint64_t end;

	if (w->blocks && o->n) {
		if (grow((void **)&w->sizes, &w->sizes_cap, w->nsizes + BLK_MAX,
			 sizeof(*w->sizes)) < 0)
			return -FLOW_E_NOMEM;
		l = win_joins(w, r, o, *open);
		if (l) {
			memcpy(w->sizes + w->nsizes, o->sizes, o->n);
			w->nsizes += o->n;
			win_extend(l, r, o);
			run->ninsns += o->n;
			goto out_depth;
		}
	}
	if (grow((void **)&w->lines, &w->lines_cap, w->nlines, sizeof(*w->lines)) < 0)
		return -FLOW_E_NOMEM;
	l = &w->lines[w->nlines];
	l->r = *r;
	l->depth = d->depth;
	l->run = UINT32_MAX;
	l->ninsns = o->n;
	l->last_ip = o->n ? o->last_ip : 0;
	l->size_at = 0;
	if (w->blocks && o->n) {
		l->size_at = (uint32_t)w->nsizes;
		memcpy(w->sizes + w->nsizes, o->sizes, o->n);
		w->nsizes += o->n;
	}
	if (run && (end = run_end(run->offset, r))) {
		run->end_offset = end;
		*open = 0;
		run = NULL;
	}
	if (r->kind == FLOW_INSN) {
		if (!run) {
			if (grow((void **)&w->runs, &w->runs_cap, w->nruns, sizeof(*w->runs)) < 0)
				return -FLOW_E_NOMEM;
			run = &w->runs[w->nruns++];
			memset(run, 0, sizeof(*run));
			run->offset = r->offset;
			run->end_offset = UINT64_MAX;
			run->first = (uint32_t)w->nlines;
			*open = 1;
		}
		run->nlines = (uint32_t)(w->nlines - run->first + 1);
		run->ninsns += o->n;
		l->run = (uint32_t)(w->nruns - 1);
	}
	w->nlines++;
out_depth:
	wd_after(d, r, o);
	return 0;
}

/* add_line() for the common record: instructions (one, or in a block
 * window maybe several) while a run is open, with room for them.
 * Returns 1 if done, 0 if add_line() must take it. */
static inline int add_insns(struct flow_window *w, const struct flow_rec *r,
			    const struct fi_blk *o, struct win_depth *d, int open)
{
	struct flow_run *run;
	struct flow_line *l;

	if (!open || !o->n || w->nlines >= w->lines_cap || w->nruns >= w->runs_cap ||
	    (w->blocks && w->nsizes + BLK_MAX >= w->sizes_cap))
		return 0;
	/* only now: with no run yet, runs may be NULL */
	run = &w->runs[w->nruns - 1];
	/* a block's sizes at once (what lies past its n is overwritten) */
	if (w->blocks && o->full)
		memcpy(w->sizes + w->nsizes, o->sizes, BLK_MAX);
	else if (w->blocks)
		memcpy(w->sizes + w->nsizes, o->sizes, o->n);
	l = &w->lines[w->nlines - 1];
	if (r->offset != run->offset) {
		/* run_end() of an instruction: the next run begins */
		run->end_offset = r->offset > run->offset ? r->offset : UINT64_MAX;
		run = &w->runs[w->nruns++];
		memset(run, 0, sizeof(*run));
		run->offset = r->offset;
		run->end_offset = UINT64_MAX;
		run->first = (uint32_t)w->nlines;
	} else if (win_joins(w, r, o, open)) {
		/* the run's last line goes on */
		win_extend(l, r, o);
		goto out_depth;
	}
	l++;
	l->r = *r;
	l->depth = d->depth;
	l->run = (uint32_t)(w->nruns - 1);
	l->ninsns = o->n;
	l->last_ip = o->last_ip;
	l->size_at = w->blocks ? (uint32_t)w->nsizes : 0;
	run->nlines = (uint32_t)(w->nlines - run->first + 1);
	w->nlines++;
out_depth:
	run->ninsns += o->n;
	if (w->blocks)
		w->nsizes += o->n;
	wd_after(d, r, o);
	return 1;
}

/* The next record of the window: one instruction, or in a block window
 * maybe several (@o says). */
static int win_next(struct flow *f, int blocks, struct flow_rec *r, struct fi_blk *o)
{
	int err;

	if (blocks)
		return fi_next_blk(f, r, o);
	err = flow_next(f, r);
	fi_blk_one(r, o);
	return err;
}

/*
 * The end of run @run, which the window (ending before @to) cut: the
 * instructions its packet decided go on past the window's last line.  Its
 * cycles must not be the whole run's (the next window, or nothing, holds
 * the rest): where the code reached the IP of a PSB at or past @to
 * (fi_past()), decoding from that PSB gives the rest as a run of the PSB,
 * so this one ends at the PSB's time (bounded, mostly: no CYC comes with
 * it) and the two add up to the whole.  Cut anywhere else (max_lines, an
 * event past @to among its instructions) its end's time is unknown.
 */
static uint64_t win_cut_end(const struct flow *f, const struct flow_run *run,
			    uint64_t to)
{
	if (f->psb_passed != UINT64_MAX && f->psb_passed >= to &&
	    f->psb_passed > run->offset)
		return f->psb_passed;
	return UINT64_MAX;
}

/* Decode the lines of [@from, @to) into @w, and what ends the last run. */
static int win_decode(struct flow *f, uint64_t from, uint64_t to,
		      size_t max_lines, struct flow_window *w)
{
	size_t peek = 0;
	struct flow_rec r;
	struct fi_blk o;
	struct win_depth d = { 0 };
	int open = 0, err, past;

	flow_seek(f, from, UINT64_MAX);
	while (!(err = win_next(f, w->blocks, &r, &o))) {
		if (w->psb == UINT64_MAX && f->synced)
			w->psb = f->sync;
		past = fi_past(f, &r, to);
		if (past == 1)
			continue;
		if (past || (max_lines && w->nlines >= max_lines &&
			     !win_joins(w, &r, &o, open))) {
			if (!past)
				w->truncated = 1;
			break;
		}
		if (r.kind == FLOW_INSN && o.n)
			wd_at(&d, r.ip);
		if (add_insns(w, &r, &o, &d, open))
			continue;
		err = add_line(w, &r, &o, &d, &open);
		if (err < 0)
			return err;
	}
	if (err == -FLOW_E_EOS || !open)
		return 0;
	if (err < 0)
		return err;
	/* the last run ends at a record past the window */
	do {
		struct flow_run *run = &w->runs[w->nruns - 1];
		uint64_t end = run_end(run->offset, &r);

		if (r.kind == FLOW_INSN && r.offset == run->offset) {
			run->end_offset = win_cut_end(f, run, to);
			break;
		}
		if (end) {
			run->end_offset = end;
			break;
		}
	} while (++peek < PEEK_PAST && !flow_next(f, &r));
	return 0;
}

static int cmp_want(const void *a, const void *b)
{
	const struct want *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* The packets the runs start and end at, sorted, each once. */
static struct want *win_wants(const struct flow_window *w, size_t *n)
{
	struct want *v = malloc((2 * w->nruns + 1) * sizeof(*v));
	size_t i, k = 0;
	int sorted = 1;

	if (!v)
		return NULL;
	for (i = 0; i < w->nruns; i++) {
		v[k++].off = w->runs[i].offset;
		if (w->runs[i].end_offset != UINT64_MAX)
			v[k++].off = w->runs[i].end_offset;
	}
	/* a run mostly ends where the next begins: in order already but
	 * for a few (events at a PSB), so sort only if needed */
	for (i = 1; i < k && sorted; i++)
		sorted = v[i - 1].off <= v[i].off;
	if (!sorted)
		qsort(v, k, sizeof(*v), cmp_want);
	for (i = 0, *n = 0; i < k; i++)
		if (!*n || v[*n - 1].off != v[i].off) {
			uint64_t off = v[i].off;

			memset(&v[*n], 0, sizeof(v[0]));
			v[(*n)++].off = off;
		}
	return v;
}

/* Stamp wanted packet @wt with @st. */
static void stamp(struct want *wt, const struct tm_stamp *st)
{
	wt->done = 1;
	wt->tsc = st->tsc;
	wt->tm_flags = st->flags;
	if (!(st->flags & TM_F_CYC))
		return;
	wt->c.lo = wt->c.hi = st->cycles;
	wt->c.flags = FLOW_C_KNOWN;
	if (st->flags & TM_F_EXACT)
		wt->c.flags |= FLOW_C_HI | FLOW_C_EXACT;
}

/* Walk the packets from @w's PSB with the time model, stamping @v. */
static void win_walk(const struct flow *f, const struct flow_wopts *o,
		     const struct flow_window *w, struct want *v, size_t n)
{
	struct img_cursor cur;
	struct tm_model tm;
	struct tm_stamp st;
	struct pkt pkt;
	size_t next = 0, open = 0, i;
	uint64_t last = v[n - 1].off;
	int len;

	tm_init(&tm, o ? o->tm : NULL);
	if (o && o->carry)
		tm_restore(&tm, o->carry);
	if (img_cursor_init(&cur, f->cfg.img, w->psb) < 0)
		return;
	/* open: the stamps before it are bounded and wait for their CYC */
	for (;;) {
		/* inside the span, as nearly always, without the cursor's
		 * wrapper (as flow_pkt.c's q_fetch()) */
		len = pkt_next(&cur.dec, &pkt);
		if (len == -pte_eos || len == -pte_truncated)
			len = img_cursor_next(&cur, &pkt);
		if (len == -pte_eos)
			break;
		if (len < 0) {
			/* lost bytes: the model says so; on at the next PSB.
			 * The bounded stamps before wait for no CYC: the
			 * next one counts none of the cycles lost here (as
			 * window.c's win_bound_cycles() at an error row). */
			tm_gap(&tm);
			open = next;
			cur.gap = 0;
			if (len != -pte_gap &&
			    img_cursor_sync_forward(&cur, pkt.offset + 1) < 0)
				break;
			continue;
		}
		while (next < n && v[next].off < pkt.offset)
			next++;	/* not a packet start: never stamped */
		if (next == n && (pkt.offset > last + WALK_PAST || open == n))
			break;
		if (pkt.type == PKT_CYC) {
			/* a CYC's stamp would say no more than the model's
			 * cycles (tm.h: tm_advance() as tm_step()), and most
			 * packets of a cycle-accurate trace are CYCs */
			tm_advance(&tm, &pkt);
			/* the upper bound of the bounded ones before */
			for (i = open; i < next; i++)
				if ((v[i].c.flags & (FLOW_C_KNOWN | FLOW_C_HI)) ==
				    FLOW_C_KNOWN) {
					v[i].c.hi = tm.cycles;
					v[i].c.flags |= FLOW_C_HI;
				}
			open = next;
		} else if (next < n && v[next].off == pkt.offset) {
			tm_step(&tm, &pkt, &st);
			stamp(&v[next++], &st);
		} else {
			tm_advance(&tm, &pkt);
		}
	}
}

/* The stamped want at @off in @v (sorted), or NULL; *@hint is where the
 * last search ended: the runs ask in order, so a look there and just past
 * it mostly answers without a search. */
static const struct want *find_want(const struct want *v, size_t n, uint64_t off,
				    size_t *hint)
{
	size_t lo = 0, hi = n, h = *hint;

	if (h < n && v[h].off <= off) {
		if (v[h].off < off && h + 1 < n && v[h + 1].off >= off)
			h++;
		if (v[h].off == off) {
			*hint = h;
			return v[h].done ? &v[h] : NULL;
		}
		lo = h;
	}

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	*hint = lo;
	return lo < n && v[lo].off == off && v[lo].done ? &v[lo] : NULL;
}

/* A run's cycles from its ends' stamps @s and @e (either may be NULL). */
static void run_cycles(struct flow_cyc *c, const struct want *s, const struct want *e)
{
	memset(c, 0, sizeof(*c));
	if (!s || !e || !(s->c.flags & FLOW_C_KNOWN) || !(e->c.flags & FLOW_C_KNOWN))
		return;
	c->flags = FLOW_C_KNOWN;
	if ((s->c.flags & FLOW_C_HI) && e->c.lo > s->c.hi)
		c->lo = e->c.lo - s->c.hi;
	if (e->c.flags & FLOW_C_HI) {
		c->hi = e->c.hi >= s->c.lo ? e->c.hi - s->c.lo : 0;
		c->flags |= FLOW_C_HI;
	}
	if ((s->c.flags & FLOW_C_EXACT) && (e->c.flags & FLOW_C_EXACT))
		c->flags |= FLOW_C_EXACT;
}

int flow_window(struct flow *f, uint64_t from, uint64_t to,
		const struct flow_wopts *o, struct flow_window *w)
{
	struct want *v;
	size_t n = 0, i, hs = 0, he = 0;
	int err;

	if (!f || !w || to <= from)
		return -FLOW_E_INVALID;
	/* the buffers stay for this window */
	w->nlines = w->nruns = w->nsizes = 0;
	w->psb = UINT64_MAX;
	w->truncated = 0;
	w->blocks = o && o->blocks;
	err = win_decode(f, from, to, o ? o->max_lines : 0, w);
	if (err < 0)
		goto out_free;
	if (!w->nruns || w->psb == UINT64_MAX)
		return 0;
	v = win_wants(w, &n);
	if (!v) {
		err = -FLOW_E_NOMEM;
		goto out_free;
	}
	win_walk(f, o, w, v, n);
	for (i = 0; i < w->nruns; i++) {
		struct flow_run *run = &w->runs[i];
		const struct want *s = find_want(v, n, run->offset, &hs);
		const struct want *e = run->end_offset == UINT64_MAX ? NULL :
				       find_want(v, n, run->end_offset, &he);

		if (s) {
			run->at = s->c;
			run->tsc = s->tsc;
			run->tm_flags = s->tm_flags;
		}
		run_cycles(&run->cycles, s, e);
	}
	free(v);
	return 0;
out_free:
	flow_window_free(w);
	return err;
}

size_t flow_window_line_at(const struct flow_window *w, uint64_t off)
{
	size_t i;

	if (!w)
		return 0;
	/* events may carry offsets out of order: look at every line */
	for (i = 0; i < w->nlines; i++)
		if (w->lines[i].r.offset >= off)
			return i;
	return w->nlines;
}

uint32_t flow_line_below(const struct flow_window *w, const struct flow_line *l,
			 uint64_t addr)
{
	uint64_t ip;
	uint32_t k;

	if (!w || !l || l->r.kind != FLOW_INSN)
		return 0;
	if (l->last_ip < addr)
		return l->ninsns;
	if (l->r.ip >= addr || !w->blocks)
		return 0;
	/* inside: walk the sizes (straight-line code, rising addresses) */
	for (k = 0, ip = l->r.ip; k < l->ninsns && ip < addr; k++)
		ip += w->sizes[l->size_at + k];
	return k;
}

uint64_t flow_line_ip(const struct flow_window *w, const struct flow_line *l,
		      uint32_t k)
{
	uint64_t ip;
	uint32_t i;

	if (!w || !l || l->r.kind != FLOW_INSN || k >= l->ninsns)
		return 0;
	if (k + 1 == l->ninsns)
		return l->last_ip;
	for (i = 0, ip = l->r.ip; i < k; i++)
		ip += w->sizes[l->size_at + i];
	return ip;
}
