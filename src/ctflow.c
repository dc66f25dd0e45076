/* ctflow -- the call tree fed from flow windows (see ctflow.h). */
#include "ctflow.h"

#include <stdatomic.h>
#include <string.h>

#include "calltree.h"
#include "ctx.h"
#include "flow.h"
#include "image.h"
#include "pkt.h"
#include "ptdec.h"
#include "tm.h"

#define CTF_CHUNK (64 * 1024)

/* The address space of the packet at @off into *@asid (0 without a
 * context) and its thread's key for ct_thread() into *@thread (0 where
 * unknown, else the tid + 1). */
static void ctf_task(const struct ctf_opts *o, uint64_t off, uint64_t *asid,
		     uint64_t *thread)
{
	struct ctx_task task;

	*asid = *thread = 0;
	if (!o->ctx || ctx_at(o->ctx, o->stream, off, &task) < 0)
		return;
	*asid = task.asid;
	if (task.tid >= 0)
		*thread = (uint64_t)task.tid + 1;
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

/* ctf_window() for lines [@begin, @end) of @w. */
static int ctf_window_from(struct ct *ct, const struct flow_window *w,
			   const struct ctf_opts *o, size_t begin, size_t end)
{
	uint32_t run = UINT32_MAX;
	uint64_t asid = 0, thread, asid_off = UINT64_MAX;
	size_t i, k = 0;
	int in = 1, ret, may_switch = 1;

	if (!ct || !w || !o)
		return -pte_invalid;
	for (i = begin; i < end && i < w->nlines; i++) {
		const struct flow_line *l = &w->lines[i];
		const struct flow_run *r;
		struct ct_cyc c;

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
			if (ctf_breaks(&l->r)) {
				if ((ret = ct_break(ct)) < 0)
					return ret;
				run = UINT32_MAX;
			}
			continue;
		}
		if (l->run != run && l->run < w->nruns) {
			run = l->run;
			r = &w->runs[run];
			c.lo = r->cycles.lo;
			c.hi = r->cycles.hi;
			c.flags = (uint8_t)((r->cycles.flags & FLOW_C_KNOWN ? CT_C_KNOWN : 0) |
					    (r->cycles.flags & FLOW_C_HI ? CT_C_HI : 0) |
					    (r->cycles.flags & FLOW_C_EXACT ? CT_C_EXACT : 0));
			ret = ct_run(ct, &c, r->tsc,
				     (r->tm_flags & TM_F_TSC) && !(r->tm_flags & TM_F_REL));
			if (ret < 0)
				return ret;
		}
		if (l->r.offset != asid_off) {
			ctf_task(o, l->r.offset, &asid, &thread);
			asid_off = l->r.offset;
			/* the task the sideband says, where one may begin: the
			 * time of a packet is an estimate, a switch is not */
			if (may_switch && (ret = ct_thread(ct, thread)) < 0)
				return ret;
			may_switch = 0;
		}
		ret = ct_insn(ct, l->r.offset, asid, l->r.ip, l->r.iclass);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int ctf_window(struct ct *ct, const struct flow_window *w,
	       const struct ctf_opts *o)
{
	return w ? ctf_window_from(ct, w, o, 0, w->nlines) : -pte_invalid;
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

/*
 * Windows end at PSBs; each is decoded from the PSB before its start (where
 * the window before passed through) to the PSB after its end, and gives
 * the lines after the last one the window before gave, up to its own last
 * one decided before its end.  So the lines are those one decode of the
 * range gives: a decoder starting at a PSB may see other lines there (it
 * ties the instructions after the PSB to the PSB rather than to the
 * packet before; after a TIP.PGD it resynchronises), and a decoder reads
 * ahead, so a window's last instructions may come after a record its end
 * decided.
 */
int ctf_range(struct ct *ct, struct flow *f, const struct img *img,
	      uint64_t from, uint64_t to, const struct ctf_opts *o)
{
	struct flow_window w;
	struct flow_wopts wo;
	struct img_cursor cur;
	struct tm_model tm;
	struct tm_carry carry;
	uint64_t at, next, ext, chunk, start, psb;
	size_t begin;
	int ret = 0, first = 1;

	if (!ct || !f || !img || !o || to <= from)
		return -pte_invalid;
	memset(&w, 0, sizeof(w));
	memset(&wo, 0, sizeof(wo));
	wo.tm = o->tm;
	wo.carry = o->carry;
	chunk = o->chunk ? o->chunk : CTF_CHUNK;
	if (img_cursor_init(&cur, img, 0) < 0)
		return 0;	/* an empty stream */
	/* the first window starts at the first PSB at or after @from */
	if (img_cursor_sync_forward(&cur, from) < 0)
		return 0;
	at = start = img_cursor_offset(&cur);
	/* the time model as the windows' walks run it, from the first one's
	 * PSB on, so each window's cycles count as one window's would */
	tm_init(&tm, o->tm);
	if (o->carry)
		tm_restore(&tm, o->carry);
	while (at < to) {
		next = ext = to;
		if (to - at > chunk && !img_cursor_sync_forward(&cur, at + chunk) &&
		    img_cursor_offset(&cur) < to) {
			next = img_cursor_offset(&cur);
			ext = !img_cursor_sync_forward(&cur, next + 1) &&
			      img_cursor_offset(&cur) < to ? img_cursor_offset(&cur) : to;
			img_cursor_sync_forward(&cur, next);
		}
		ret = flow_window(f, start, ext, &wo, &w);
		if (ret == -FLOW_E_NOMEM) {
			ret = -pte_nomem;
			break;
		}
		if (ret < 0) {
			ret = -pte_internal;
			break;
		}
		begin = first ? 0 : ctf_after(&w, at);
		ret = ctf_window_from(ct, &w, o, begin,
				      next == to ? w.nlines : ctf_after(&w, next));
		if (ret < 0)
			break;
		if (next < to) {
			psb = next;
			ctf_time(&tm, img, at, next, &carry, &psb);
			if (psb == next)
				tm_save(&tm, &carry);
			start = psb;
			wo.carry = &carry;
		}
		first = 0;
		at = next;
		if (o->done)
			atomic_store(o->done, at - from);
		if (at < to && o->cancel && atomic_load(o->cancel)) {
			ret = -pte_canceled;
			break;
		}
	}
	flow_window_free(&w);
	return ret;
}
