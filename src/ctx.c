/* ctx -- who ran at an offset of a stream (see ctx.h). */
#include "ctx.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image.h"
#include "perfdata.h"
#include "pkt.h"
#include "ptdec.h"
#include "sideband.h"
#include "tm.h"
#include "trace.h"

/*
 * The time of a packet is the time model's estimate before it, the model
 * started afresh at the last PSB at or before it; so the answer does not
 * depend on the order of the questions, and ctx_ranges() (one pass) gives
 * what ctx_at() gives packet by packet.  The packets of a PSB+ before its
 * TSC take that TSC ("ahead"): the PSB+ belongs to what runs after it.
 */
struct ctx_reader {
	struct img_cursor cur;
	struct tm_model tm;
	struct pkt next;	/* read, not yet fed */
	uint64_t psb;		/* the PSB the model started at */
	uint8_t have_next;
	uint8_t started;
	uint8_t at_end;
	uint8_t head;		/* in a PSB+ before its TSC */
	uint8_t lost;		/* bytes were lost before next */
};

/* An answer of ctx_stretch_end(): the stretch holding [from, at] ends at
 * at (a TIP.PGD or OVF) at TSC tsc; or, if !found, is not known to end
 * (then at == from). */
struct ctx_end {
	uint64_t from, at, tsc;
	uint8_t found, used;
};

#define CTX_ENDS	16	/* stretch ends kept per stream */

#define CTX_STRETCH_MAX	(4u << 20)	/* bytes searched for a stretch's end */

#define CTX_CACHE 256	/* answers kept, direct-mapped by offset */

struct ctx_slot {
	uint64_t off;
	int stream;		/* -1: empty */
	int rc;
	struct ctx_task task;
};

/* Readers saved on the way through the PSB segment last walked, so that a
 * question behind the reader starts from the last one before it rather
 * than from the PSB (a cursor stepping backwards). */
#define CTX_CKPTS	64
#define CTX_CKPT_GAP	2048	/* bytes between two */

struct ctx_ckpts {
	uint64_t psb;		/* the segment's PSB */
	struct ctx_reader *r;	/* CTX_CKPTS of them, or NULL */
	size_t n;
	struct ctx_end ends[CTX_ENDS];	/* and the stream's stretch ends */
	size_t next_end;	/* the one replaced next */
};

struct ctx {
	const struct trace *t;
	struct sb *sb;
	struct ctx_reader *rd;	/* one per stream */
	struct ctx_ckpts *ck;	/* one per stream */
	struct ctx_slot cache[CTX_CACHE];
	struct ctx_stats st;
	uint64_t slack;		/* TSC ticks of a perf-time nanosecond, + 1:
				 * how far apart a switch and its TIP.PGD
				 * may look when both happened at once */
	uint8_t user_only;	/* the kernel was not traced (exclude_kernel):
				 * a switch ends a stretch of tracing */
};

int ctx_new(struct ctx **out, const struct trace *t, struct sb *sb)
{
	struct ctx *c;
	size_t i;

	if (!out || !t)
		return -pte_invalid;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -pte_nomem;
	c->rd = calloc(t->nstreams ? t->nstreams : 1, sizeof(*c->rd));
	c->ck = calloc(t->nstreams ? t->nstreams : 1, sizeof(*c->ck));
	if (!c->rd || !c->ck) {
		free(c->rd);
		free(c->ck);
		free(c);
		return -pte_nomem;
	}
	c->t = t;
	c->sb = sb;
	if (t->perf) {
		const struct perfdata_info *in = perfdata_info(t);

		c->user_only = in && in->have_config && in->exclude_kernel;
	}
	/* the sideband's switches are perf times, rounded to nanoseconds */
	if (t->nstreams && t->streams[0].timing.have_perf_conv &&
	    t->streams[0].timing.time_mult && t->streams[0].timing.time_shift < 32)
		c->slack = ((1ull << t->streams[0].timing.time_shift) +
			    t->streams[0].timing.time_mult - 1) /
			   t->streams[0].timing.time_mult + 1;
	for (i = 0; i < CTX_CACHE; i++)
		c->cache[i].stream = -1;
	*out = c;
	return 0;
}

void ctx_free(struct ctx *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->t->nstreams; i++)
		free(c->ck[i].r);
	free(c->ck);
	free(c->rd);
	free(c);
}

void ctx_stats(const struct ctx *c, struct ctx_stats *st)
{
	if (c && st)
		*st = c->st;
}

/* Feed @pkt to the model of @r, starting afresh at a PSB. */
static void ctx_feed(struct ctx_reader *r, const struct trace_stream *s,
		     const struct pkt *pkt)
{
	if (pkt->type == PKT_PSB) {
		tm_init(&r->tm, &s->timing);
		r->psb = pkt->offset;
		r->head = 1;
	} else if (pkt->type == PKT_TSC || pkt->type == PKT_PSBEND) {
		r->head = 0;
	}
	tm_advance(&r->tm, pkt);
}

/* Start @r over at the last PSB at or before @off (or the stream's start). */
static void ctx_restart(struct ctx *c, struct ctx_reader *r,
			const struct trace_stream *s, uint64_t off)
{
	struct ctx_ckpts *ck = &c->ck[s - c->t->streams];
	uint64_t psb = 0;
	size_t i;

	c->st.restarts++;
	if (img_find_psb_before(&s->img, off + 1, &psb))
		psb = 0;
	/* from the last reader saved before @off in its segment */
	if (ck->psb == psb && ck->n && ck->r[0].next.offset <= off) {
		for (i = ck->n; ck->r[i - 1].next.offset > off; i--)
			;
		*r = ck->r[i - 1];
		return;
	}
	if (ck->psb != psb) {
		ck->psb = psb;
		ck->n = 0;
	}
	tm_init(&r->tm, &s->timing);
	r->at_end = img_cursor_init(&r->cur, &s->img, psb) < 0;
	r->psb = psb;
	r->have_next = 0;
	r->head = 0;
	r->started = 1;
}

/* Read the next packet of @r into r->next.  Returns 0, or -1 at the end. */
static int ctx_read(struct ctx_reader *r)
{
	int n;

	while (!r->at_end) {
		n = img_cursor_next(&r->cur, &r->next);
		if (n == -pte_eos)
			break;
		if (n == -pte_gap || n < 0) {
			/* lost bytes: the time is unknown until the next PSB */
			tm_gap(&r->tm);
			r->lost = 1;
			if (n != -pte_gap &&
			    img_cursor_sync_forward(&r->cur,
						    img_cursor_offset(&r->cur) + 1) < 0)
				break;
			r->cur.gap = 0;
			continue;
		}
		r->have_next = 1;
		return 0;
	}
	r->at_end = 1;
	return -1;
}

/* The TSC of the PSB+ that @r is in the head of: a copy of the reader fed
 * on to its TSC.  Returns 0 and sets *@tsc, or -pte_no_time. */
static int ctx_ahead(const struct ctx_reader *r, const struct trace_stream *s,
		     uint64_t *tsc)
{
	struct ctx_reader copy = *r, *la = &copy;
	int ret = -pte_no_time, i;

	/* a PSB+ holds a handful of packets: a few dozen is plenty */
	for (i = 0; i < 64 && (la->have_next || !ctx_read(la)); i++) {
		la->have_next = 0;
		if (la->next.type == PKT_PSB && i)
			break;
		ctx_feed(la, s, &la->next);
		if (la->next.type == PKT_TSC) {
			ret = tm_now(&la->tm, tsc);
			break;
		}
		if (!la->head)
			break;
	}
	return ret;
}

/* Save @r (its next packet not yet fed) if it walks the segment of @ck,
 * CTX_CKPT_GAP bytes past the last one saved. */
static void ctx_checkpoint(struct ctx_ckpts *ck, const struct ctx_reader *r)
{
	uint64_t last;

	if (r->psb != ck->psb || ck->n == CTX_CKPTS)
		return;
	last = ck->n ? ck->r[ck->n - 1].next.offset : ck->psb;
	if (r->next.offset < last + CTX_CKPT_GAP)
		return;
	if (!ck->r && !(ck->r = malloc(CTX_CKPTS * sizeof(*ck->r))))
		return;		/* no memory: restarts from the PSB still work */
	ck->r[ck->n++] = *r;
}

/* The estimated TSC of the packet at @off of stream @stream. */
static int ctx_tsc(struct ctx *c, int stream, uint64_t off, uint64_t *tsc,
		   uint32_t *flags)
{
	const struct trace_stream *s = &c->t->streams[stream];
	struct ctx_reader *r = &c->rd[stream];
	uint64_t at = 0;

	if (r->started)
		at = r->have_next ? r->next.offset : img_cursor_offset(&r->cur);
	if (!r->started || off < at)
		ctx_restart(c, r, s, off);
	for (;;) {
		if (!r->have_next && ctx_read(r) < 0)
			break;
		ctx_checkpoint(&c->ck[stream], r);
		if (r->next.offset >= off)
			break;
		ctx_feed(r, s, &r->next);
		r->have_next = 0;
	}
	/* the packet at @off opens a PSB+, or is in one before its TSC */
	if (r->head || (r->have_next && r->next.offset == off &&
			r->next.type == PKT_PSB)) {
		if (!ctx_ahead(r, s, tsc)) {
			*flags |= CTX_F_TSC | CTX_F_AHEAD;
			return 0;
		}
		/* no TSC in it: what the model had, if anything */
	}
	if (tm_now(&r->tm, tsc) < 0)
		return -pte_no_time;
	*flags |= CTX_F_TSC;
	return 0;
}

/* Where the stretch of tracing holding the packet @r is at ends: the
 * first TIP.PGD or OVF from there, its offset into *@end and the TSC
 * before it into *@tsc (a copy of the reader walks on).
 * Returns 0 if found; 1 if the stream ends or loses bytes first, or no
 * end comes within CTX_STRETCH_MAX bytes or has a time. */
static int ctx_stretch_end(struct ctx_reader *r, struct ctx_ckpts *ck,
			   const struct trace_stream *s, uint64_t off,
			   uint64_t *end, uint64_t *tsc)
{
	struct ctx_end *e;
	size_t i;
	struct ctx_reader copy;
	int found = 0;

	for (i = 0; i < CTX_ENDS; i++) {
		e = &ck->ends[i];
		if (e->used && off >= e->from && off <= e->at) {
			*end = e->at;
			*tsc = e->tsc;
			return e->found ? 0 : 1;
		}
	}
	copy = *r;
	copy.lost = 0;
	while ((copy.have_next || !ctx_read(&copy)) && !copy.lost &&
	       copy.next.offset - off <= CTX_STRETCH_MAX) {
		if (copy.next.type == PKT_TIP_PGD || copy.next.type == PKT_OVF) {
			found = !tm_now(&copy.tm, tsc);
			*end = copy.next.offset;
			break;
		}
		ctx_feed(&copy, s, &copy.next);
		copy.have_next = 0;
	}
	e = &ck->ends[ck->next_end++ % CTX_ENDS];
	e->used = 1;
	e->found = (uint8_t)found;
	e->from = off;
	/* a stretch not known to end answers for its start alone */
	e->at = found ? *end : off;
	e->tsc = found ? *tsc : 0;
	return found ? 0 : 1;
}

/* How many times the thread on stream @stream changes in the sideband's
 * timeline after TSC @t0 and before @t1 by more than @slack (a switch at
 * the stretch's end comes after it: the kernel stops tracing, then
 * switches), not counting changes to an unknown task; the TSC of the
 * last change into *@at. */
static size_t ctx_changes(const struct sb *sb, int stream, uint64_t t0,
			  uint64_t t1, uint64_t slack, uint64_t *at)
{
	size_t lo = 0, hi = sb_nslices(sb, stream), n = 0;
	struct sb_slice sl;
	int32_t tid;

	if (t1 <= t0)
		return 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (!sb_slice(sb, stream, mid, &sl) && sl.tsc <= t0)
			lo = mid + 1;
		else
			hi = mid;
	}
	tid = lo && !sb_slice(sb, stream, lo - 1, &sl) ? sl.tid : -1;
	for (; !sb_slice(sb, stream, lo, &sl) && sl.tsc + slack < t1; lo++) {
		/* into an unknown task (a plain SWITCH's switch out, of a
		 * per-task recording: the CPU runs one not traced) is no
		 * change: A, unknown, B is one, from A to B */
		if (sl.tid < 0)
			continue;
		if (sl.tid != tid) {
			n++;
			*at = sl.tsc;
		}
		tid = sl.tid;
	}
	return n;
}

/* The TSC whose task the packet at estimated TSC @tsc belongs to, given
 * the stretch it is in ends at TSC @t1 (if @have_end), and the TSC to read
 * its comm at into *@comm_tsc.  A context switch happens in the kernel,
 * where user-only tracing is off: after the stretch's TIP.PGD, at most
 * a perf-time nanosecond apart when they look simultaneous; and the
 * estimate of an enable right after one can lie before the switch's
 * time.  So where the thread changed exactly once from @tsc to the
 * stretch's end, the stretch is the new thread's (as imgopt_reader_asid()
 * decides the process), named as it was when switched in; and no packet
 * is later than its stretch's end.  More than one change in a stretch, or
 * the kernel traced (a switch needs no TIP.PGD then): time alone. */
static uint64_t ctx_task_tsc(const struct ctx *c, int stream, uint64_t tsc,
			     int have_end, uint64_t t1, uint32_t *flags,
			     uint64_t *comm_tsc)
{
	uint64_t at = 0, last = t1 > c->slack ? t1 - c->slack - 1 : 0;

	*comm_tsc = tsc;
	if (!have_end)
		return tsc;
	if (c->user_only && ctx_changes(c->sb, stream, tsc, t1, c->slack, &at) == 1) {
		*flags |= CTX_F_STRETCH;
		*comm_tsc = at > tsc ? at : tsc;
		return last;
	}
	if (tsc > last)
		*comm_tsc = tsc = last;
	return tsc;
}

/* ctx_at() without the cache. */
static int ctx_lookup(struct ctx *c, int stream, uint64_t off,
		      struct ctx_task *task)
{
	const struct trace_stream *s = &c->t->streams[stream];
	struct sb_task sbt;
	uint64_t end, t1 = 0, when, comm_tsc;
	int ret, have_end;

	task->pid = task->tid = -1;
	task->cpu = s->cpu;
	task->asid = SB_ASID_NONE;
	task->tsc = 0;
	task->flags = c->sb ? CTX_F_SIDEBAND : 0;
	task->comm = "";
	if (s->tid >= 0)
		task->tid = s->tid;
	ret = ctx_tsc(c, stream, off, &task->tsc, &task->flags);
	if (!c->sb)
		return ret;
	if (ret < 0) {
		/* a per-thread stream needs no time to know its thread */
		if (s->tid >= 0 && !sb_task_at(c->sb, stream, 0, 0, &sbt)) {
			task->pid = sbt.pid;
			task->comm = sbt.comm;
		}
		return ret;
	}
	have_end = s->tid < 0 &&
		   !ctx_stretch_end(&c->rd[stream], &c->ck[stream], s, off, &end, &t1);
	when = ctx_task_tsc(c, stream, task->tsc, have_end, t1, &task->flags,
			    &comm_tsc);
	ret = sb_task_at(c->sb, stream, when, 0, &sbt);
	task->pid = sbt.pid;
	task->tid = sbt.tid;
	task->asid = sbt.asid;
	task->comm = when == comm_tsc ? sbt.comm : sb_comm(c->sb, sbt.tid, comm_tsc);
	return ret;
}

int ctx_at(struct ctx *c, int stream, uint64_t off, struct ctx_task *task)
{
	struct ctx_slot *slot;

	if (!c || !task || stream < 0 || (size_t)stream >= c->t->nstreams)
		return -pte_invalid;
	c->st.lookups++;
	slot = &c->cache[(off ^ (off >> 8) ^ (uint64_t)stream * 0x9e37) % CTX_CACHE];
	if (slot->stream == stream && slot->off == off) {
		c->st.hits++;
		*task = slot->task;
		return slot->rc;
	}
	slot->rc = ctx_lookup(c, stream, off, task);
	slot->task = *task;
	slot->off = off;
	slot->stream = stream;
	return slot->rc;
}

const char *ctx_format(const struct ctx_task *task, char *buf, size_t size)
{
	char pid[16] = "?", tid[16] = "?", cpu[16] = "";
	int n;

	if (!buf || !size)
		return buf;
	if (!task) {
		snprintf(buf, size, "?");
		return buf;
	}
	if (task->pid >= 0)
		snprintf(pid, sizeof(pid), "%" PRId32, task->pid);
	if (task->tid >= 0)
		snprintf(tid, sizeof(tid), "%" PRId32, task->tid);
	if (task->cpu >= 0)
		snprintf(cpu, sizeof(cpu), " cpu%" PRId32, task->cpu);
	n = snprintf(buf, size, "%s%s%s/%s%s", task->comm ? task->comm : "",
		     task->comm && *task->comm ? " " : "", pid, tid, cpu);
	(void)n;
	return buf;
}

void ctx_filter_init(struct ctx_filter *f)
{
	if (!f)
		return;
	f->pid = f->tid = -1;
	f->comm = NULL;
}

int ctx_filter_active(const struct ctx_filter *f)
{
	return f && (f->pid >= 0 || f->tid >= 0 || f->comm);
}

/* A pid or tid: a decimal number from 0 to INT32_MAX. */
static int ctx_parse_id(const char *val, int32_t *id)
{
	unsigned long v;
	char *end;

	if (!val || *val < '0' || *val > '9')
		return -pte_invalid;
	errno = 0;
	v = strtoul(val, &end, 10);
	if (errno || *end || v > INT32_MAX)
		return -pte_invalid;
	*id = (int32_t)v;
	return 0;
}

int ctx_filter_set(struct ctx_filter *f, const char *opt, const char *val)
{
	if (!f || !opt || !val)
		return -pte_invalid;
	if (!strcmp(opt, "--pid"))
		return ctx_parse_id(val, &f->pid);
	if (!strcmp(opt, "--tid"))
		return ctx_parse_id(val, &f->tid);
	if (!strcmp(opt, "--comm")) {
		f->comm = val;
		return 0;
	}
	return -pte_invalid;
}

int ctx_filter_match(const struct ctx_filter *f, const struct ctx_task *task)
{
	if (!ctx_filter_active(f))
		return 1;
	if (!task)
		return 0;
	if (f->pid >= 0 && task->pid != f->pid)
		return 0;
	if (f->tid >= 0 && task->tid != f->tid)
		return 0;
	if (f->comm && (!task->comm || strcmp(task->comm, f->comm)))
		return 0;
	return 1;
}

int ctx_keep(struct ctx *c, const struct ctx_filter *f, int stream,
	     uint64_t off)
{
	struct ctx_task task;
	int ret;

	if (!c || stream < 0 || (size_t)stream >= c->t->nstreams)
		return -pte_invalid;
	if (!ctx_filter_active(f))
		return 1;
	ret = ctx_at(c, stream, off, &task);
	if (ret == -pte_invalid)
		return ret;
	return ctx_filter_match(f, &task);
}

/* A growing list of ranges. */
struct ctx_rlist {
	struct ctx_range *r;
	size_t n, cap;
	int open;		/* the last range has no end yet */
};

/* The verdict @keep for the packets from @off on. */
static int ctx_rl_set(struct ctx_rlist *l, uint64_t off, int keep)
{
	if (keep && !l->open) {
		if (l->n && l->r[l->n - 1].to == off) {
			l->open = 1;	/* touching: merge */
			return 0;
		}
		if (l->n == l->cap) {
			size_t cap = l->cap ? 2 * l->cap : 16;
			struct ctx_range *p = realloc(l->r, cap * sizeof(*p));

			if (!p)
				return -pte_nomem;
			l->r = p;
			l->cap = cap;
		}
		l->r[l->n].from = off;
		l->r[l->n++].to = off;
		l->open = 1;
	} else if (!keep && l->open) {
		l->r[l->n - 1].to = off;
		l->open = 0;
		if (l->r[l->n - 1].from == off)
			l->n--;		/* nothing kept after all */
	}
	return 0;
}

/* The verdict of @f for the task at TSC @tsc of stream @stream (@have_tsc
 * 0: no time), named as at @comm_tsc. */
static int ctx_verdict(struct ctx *c, const struct ctx_filter *f, int stream,
		       int have_tsc, uint64_t tsc, uint64_t comm_tsc)
{
	const struct trace_stream *s = &c->t->streams[stream];
	struct ctx_task task;
	struct sb_task sbt;

	task.pid = task.tid = -1;
	task.comm = "";
	if (c->sb && (have_tsc || s->tid >= 0) &&
	    (!sb_task_at(c->sb, stream, tsc, 0, &sbt) || s->tid >= 0)) {
		task.pid = sbt.pid;
		task.tid = s->tid >= 0 ? s->tid : sbt.tid;
		task.comm = tsc == comm_tsc ? sbt.comm :
			    sb_comm(c->sb, task.tid, comm_tsc);
	}
	return ctx_filter_match(f, &task);
}

/* The packets of the current stretch whose time differs from the one
 * before: their verdicts wait for the stretch's end (ctx_task_tsc()). */
struct ctx_pend {
	uint64_t off, tsc;
	int have;
};

struct ctx_walk {
	struct ctx *c;
	const struct ctx_filter *f;
	int stream;
	struct ctx_rlist l;
	struct ctx_pend *p;
	size_t n, cap;
};

static int ctx_pend_add(struct ctx_walk *w, uint64_t off, int have, uint64_t tsc)
{
	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 64;
		struct ctx_pend *p = realloc(w->p, cap * sizeof(*p));

		if (!p)
			return -pte_nomem;
		w->p = p;
		w->cap = cap;
	}
	w->p[w->n].off = off;
	w->p[w->n].tsc = tsc;
	w->p[w->n++].have = have;
	return 0;
}

/* The stretch ended (at TSC @t1 if @have_end): the waiting verdicts. */
static int ctx_pend_flush(struct ctx_walk *w, int have_end, uint64_t t1)
{
	const struct trace_stream *s = &w->c->t->streams[w->stream];
	uint32_t flags = 0;
	size_t i;
	int ret = 0;

	for (i = 0; i < w->n && !ret; i++) {
		const struct ctx_pend *e = &w->p[i];
		uint64_t when = e->tsc, comm_tsc = e->tsc;

		if (e->have && s->tid < 0 && w->c->sb)
			when = ctx_task_tsc(w->c, w->stream, e->tsc, have_end,
					    t1, &flags, &comm_tsc);
		ret = ctx_rl_set(&w->l, e->off,
				 ctx_verdict(w->c, w->f, w->stream, e->have, when,
					     comm_tsc));
	}
	w->n = 0;
	return ret;
}

/* One pass of ctx_ranges() over reader @r. */
static int ctx_walk(struct ctx_walk *w, struct ctx_reader *r,
		    const struct trace_stream *s, uint64_t to, uint64_t *last)
{
	uint64_t tsc = 0, head_from = 0, tsc_v = 0;
	int ret = 0, in_head = 0, have, fresh = 1;

	while (!ret && !ctx_read(r)) {
		const struct pkt *p = &r->next;

		/* past @to once no verdict before it waits for its stretch */
		if (p->offset >= to && (!w->n || w->p[0].off >= to) &&
		    (!in_head || head_from >= to))
			break;
		r->have_next = 0;
		*last = p->offset + p->size;
		if (r->lost) {
			/* lost bytes end a stretch without an end */
			r->lost = 0;
			ret = ctx_pend_flush(w, 0, 0);
			fresh = 1;
		}
		if (!in_head) {
			have = !tm_now(&r->tm, &tsc);
			/* the task changes only when the estimate does */
			if (!ret && p->type != PKT_PSB &&
			    (fresh || !have || tsc != tsc_v))
				ret = ctx_pend_add(w, p->offset, have, tsc);
			tsc_v = tsc;
			fresh = !have;
		}
		if (p->type == PKT_PSB) {
			in_head = 1;
			head_from = p->offset;
		}
		if (!ret && !in_head &&
		    (p->type == PKT_TIP_PGD || p->type == PKT_OVF)) {
			have = !tm_now(&r->tm, &tsc);
			ret = ctx_pend_flush(w, have, tsc);
			fresh = 1;
		}
		ctx_feed(r, s, p);
		if (!ret && in_head && !r->head) {
			/* its TSC (or its end): the time of the whole PSB+ */
			in_head = 0;
			have = !tm_now(&r->tm, &tsc);
			ret = ctx_pend_add(w, head_from, have, tsc);
			tsc_v = tsc;
			fresh = !have;
		}
	}
	if (!ret && in_head)
		ret = ctx_pend_add(w, head_from, 0, 0);
	if (!ret)
		ret = ctx_pend_flush(w, 0, 0);
	return ret;
}

int ctx_ranges(struct ctx *c, const struct ctx_filter *f, int stream,
	       struct ctx_range **out, size_t *n)
{
	return ctx_ranges_in(c, f, stream, 0, UINT64_MAX, out, n);
}

int ctx_ranges_in(struct ctx *c, const struct ctx_filter *f, int stream,
		  uint64_t from, uint64_t to, struct ctx_range **out, size_t *n)
{
	const struct trace_stream *s;
	struct ctx_reader *r;
	struct ctx_walk w;
	uint64_t last = 0, psb = 0;
	size_t i, k;
	int ret;

	if (!c || !out || !n || stream < 0 || (size_t)stream >= c->t->nstreams ||
	    to <= from)
		return -pte_invalid;
	*out = NULL;
	*n = 0;
	s = &c->t->streams[stream];
	r = calloc(1, sizeof(*r));
	if (!r)
		return -pte_nomem;
	memset(&w, 0, sizeof(w));
	w.c = c;
	w.f = f;
	w.stream = stream;
	tm_init(&r->tm, &s->timing);
	r->started = 1;
	/* the model starts afresh at every PSB: from the one before @from,
	 * the verdicts are those of a walk from the start */
	if (from && img_find_psb_before(&s->img, from + 1, &psb))
		psb = 0;
	r->at_end = img_cursor_init(&r->cur, &s->img, psb) < 0;
	ret = ctx_walk(&w, r, s, to, &last);
	if (!ret && w.l.open)
		w.l.r[w.l.n - 1].to = last > s->img.size ? s->img.size : last;
	free(r);
	free(w.p);
	if (ret) {
		free(w.l.r);
		return ret;
	}
	/* clipped to [@from, @to) */
	for (i = k = 0; i < w.l.n; i++) {
		struct ctx_range x = w.l.r[i];

		if (x.from < from)
			x.from = from;
		if (x.to > to)
			x.to = to;
		if (x.from < x.to)
			w.l.r[k++] = x;
	}
	if (!k) {
		free(w.l.r);
		w.l.r = NULL;
	}
	*out = w.l.r;
	*n = k;
	return 0;
}

int ctx_restrict(const struct trace *t, int stream, const struct ctx_filter *f,
		 uint64_t from, uint64_t to, struct ctx_range **out, size_t *n,
		 char *err, size_t errlen)
{
	struct sb *sb = NULL;
	struct ctx *c = NULL;
	int ret;

	if (!t || !f || !out || !n || !err || !errlen)
		return -pte_invalid;
	if (t->kind == TRACE_RAW) {
		snprintf(err, errlen, "%s: no sideband (a raw trace): --pid, --tid "
			 "and --comm need a perf.data file", t->path);
		return -pte_invalid;
	}
	ret = sb_load(&sb, t, err, errlen);
	if (ret < 0)
		return ret;
	ret = ctx_new(&c, t, sb);
	if (!ret)
		ret = ctx_ranges_in(c, f, stream, from, to, out, n);
	if (ret == -pte_nomem)
		snprintf(err, errlen, "out of memory");
	else if (ret < 0)
		snprintf(err, errlen, "%s: %s", t->path, pte_strerror(ret));
	ctx_free(c);
	sb_free(sb);
	return ret;
}

int ctx_sideband_doubt(const struct trace *t, char *buf, size_t len)
{
	const struct perfdata_info *in = t ? perfdata_info(t) : NULL;
	uint64_t lost;

	if (!buf || !len)
		return 0;
	buf[0] = 0;
	if (!in)
		return 0;
	/* perf compresses what the kernel writes (switches, COMMs, FORKs,
	 * MMAPs): few records are left to read */
	if (in->ncompressed) {
		snprintf(buf, len, "%s: its sideband is compressed (perf record "
			 "-z: %" PRIu64 " records not read): which thread ran "
			 "when is unknown, so --pid, --tid and --comm cannot "
			 "work (record without -z)", t->path, in->ncompressed);
		return 1;
	}
	lost = perfdata_lost_records(t);
	if (lost) {
		snprintf(buf, len, "%s: %" PRIu64 " sideband records lost (perf's "
			 "buffer was full): thread attribution may be wrong",
			 t->path, lost);
		return 1;
	}
	return 0;
}

int ctx_ranges_has(const struct ctx_range *r, size_t n, uint64_t off)
{
	size_t lo = 0, hi = n;

	if (!r)
		return 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r[mid].to <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && r[lo].from <= off;
}
