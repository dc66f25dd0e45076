/* ctfrag -- merging call-tree fragments, and their packed form (see
 * calltree.h; what a fragment records: calltree_int.h). */
#include <stdlib.h>
#include <string.h>

#include "calltree.h"
#include "calltree_int.h"
#include "ptdec.h"

/* A merge's maps from the fragment's indices to the tree's. */
struct ctm {
	struct ct *dst;
	const struct ct *f;
	uint32_t *fmap;		/* functions */
	uint32_t *nmap;		/* nodes */
	uint8_t *folded;	/* nodes past CT_MAX_DEPTH in dst: folded
				 * into their deepest kept ancestor */
	size_t *smap;		/* stacks */
	uint64_t tsc0;		/* dst's TSC before the fragment */
	uint8_t have_tsc0;
};

static void ctm_sum_add(struct ct_sum *to, const struct ct_sum *s)
{
	to->lo += s->lo;
	to->hi += s->hi;
	to->unknown += s->unknown;
	to->known += s->known;
	to->flags |= s->flags;
}

/* Whether @f fed instructions on the thread dst is on, and later on a
 * thread with that key: the two are one stack in the whole flow, which
 * the fragment cannot know (feed ct_thread() first to avoid it). */
static int ctm_conflict(const struct ct *dst, const struct ct *f)
{
	const struct ct_stack *s0 = &f->stacks[0];
	size_t i;
	int used = s0->depth || !s0->relative || s0->level != CT_NONE;

	if (!s0->inherit || dst->st->inherit)
		return 0;
	/* a break of stack 0 alone is no use: it closes dst's frames, which
	 * the whole flow closed too */
	for (i = 0; i < f->nops && !used; i++)
		used = f->ops[i].stack == 0 && f->ops[i].kind == CT_OP_MOVE;
	for (i = 1; i < f->nstacks && used; i++)
		if (f->stacks[i].key == dst->st->key)
			return 1;
	return 0;
}

/* The functions: matched or made in the fragment's order (that of first
 * use), their counts added. */
static int ctm_funcs(struct ctm *m)
{
	size_t i;

	for (i = 0; i < m->f->nfuncs; i++) {
		const struct ct_func *g = &m->f->funcs[i];
		struct ct_func *d;
		uint32_t k = ct_func_intern(m->dst, g->name, g->start, g->end,
					    g->kind);

		if (k == CT_NONE)
			return -pte_nomem;
		m->fmap[i] = k;
		d = &m->dst->funcs[k];
		d->insns += g->insns;
		d->calls += g->calls;
		ctm_sum_add(&d->cyc, &g->cyc);
	}
	return 0;
}

/* The stacks: the one dst is on for the fragment's first (its thread
 * unknown), by key for the others. */
static int ctm_stacks(struct ctm *m)
{
	size_t i, cur = (size_t)(m->dst->st - m->dst->stacks);

	for (i = 0; i < m->f->nstacks; i++) {
		long k;

		if (m->f->stacks[i].inherit) {
			m->smap[i] = cur;
			continue;
		}
		k = ct_stack_of(m->dst, m->f->stacks[i].key);
		if (k < 0)
			return (int)k;
		m->smap[i] = (size_t)k;
	}
	return 0;
}

/* Replay op @op on dst, as feeding would have done it. */
static int ctm_op(struct ctm *m, const struct ct_op *op)
{
	struct ct *dst = m->dst;
	int ret;

	dst->st = &dst->stacks[m->smap[op->stack]];
	if (op->have_tsc) {
		dst->tsc = op->tsc;
		dst->have_tsc = 1;
	}
	if (op->kind == CT_OP_BREAK)
		return ct_forget(dst);
	if (op->kind == CT_OP_BREAK_ALL)
		return ct_break_all(dst);
	if (op->kind == CT_OP_ENABLE)
		return ct_enabled(dst, op->offset);
	if (op->kind == CT_OP_RESUMED)
		return ct_resumed(dst);
	if (op->pending == CT_IC_RETURN || op->pending == CT_IC_JUMP ||
	    op->pending == CT_PEND_ASYNC)
		dst->st->pending = op->pending;
	/* a jump deferred lands outside its function (ct_move()) */
	if (op->pending == CT_IC_JUMP)
		dst->st->jump_func = CT_NONE;
	ret = ct_move(dst, m->fmap[op->func], op->offset, op->ip);
	if (ret < 0)
		return ret;
	/* the fragment's move made a node; one the merge's does not (a pack
	 * from a file: a move to IP 0) maps it to none, but for a return to
	 * where is not known that left dst's bottom frame (ct_enabled()):
	 * the fragment's level there holds nothing, its next move is dst's */
	m->nmap[op->node] = ct_stack_top(dst);
	if (m->nmap[op->node] == CT_NONE && !op->ip &&
	    !m->f->nodes[op->node].insns_self && !m->f->nodes[op->node].calls)
		m->nmap[op->node] = CT_ROOT;
	return m->nmap[op->node] == CT_NONE ? -pte_bad_file : 0;
}

/* Node @i, not a level node: under its parent's node, or folded into it
 * past CT_MAX_DEPTH. */
static int ctm_graft(struct ctm *m, uint32_t i)
{
	const struct ct_node *n = &m->f->nodes[i];
	uint32_t p = m->nmap[n->parent], func = m->fmap[n->func];

	if (m->folded[n->parent] || m->dst->nodes[p].depth >= CT_MAX_DEPTH) {
		m->nmap[i] = p;
		m->folded[i] = 1;
		m->dst->truncated = 1;
		/* calls not seen (a handler's entries are no function's) */
		m->dst->funcs[func].calls -= n->calls - n->entries;
		return 0;
	}
	m->nmap[i] = ct_child(m->dst, p, func, n->offset);
	return m->nmap[i] == CT_NONE ? -pte_nomem : 0;
}

/* The nodes in the fragment's order (that of first use), the ops
 * replayed where their level nodes come; then the ops left. */
static int ctm_nodes(struct ctm *m)
{
	const struct ct *f = m->f;
	size_t k = 0;
	uint32_t i;
	int ret;

	m->nmap[CT_ROOT] = CT_ROOT;
	for (i = 1; i < f->nnodes; i++) {
		const struct ct_node *n = &f->nodes[i];
		struct ct_node *d;

		if (f->groot[i] == i) {
			while (k < f->nops) {
				const struct ct_op *op = &f->ops[k++];

				if ((ret = ctm_op(m, op)) < 0)
					return ret;
				if (op->kind == CT_OP_MOVE && op->node == i)
					break;
			}
		} else if ((ret = ctm_graft(m, i)) < 0) {
			return ret;
		}
		d = &m->dst->nodes[m->nmap[i]];
		if (!m->folded[i]) {
			d->calls += n->calls;
			d->entries += n->entries;
			d->tsc_ticks += n->tsc_ticks;
		}
		d->insns_self += n->insns_self;
		ctm_sum_add(&d->self, &n->self);
	}
	while (k < f->nops)
		if ((ret = ctm_op(m, &f->ops[k++])) < 0)
			return ret;
	return 0;
}

/* The returns from frames called before the fragment's first TSC: from
 * dst's TSC then. */
static int ctm_ticks(struct ctm *m)
{
	struct ct *dst = m->dst;
	size_t i;

	for (i = 0; i < m->f->nticks; i++) {
		const struct ct_tick *t = &m->f->ticks[i];
		uint32_t node = m->nmap[t->node];

		if (m->folded[t->node])
			continue;
		if (m->have_tsc0) {
			if (t->tsc >= m->tsc0)
				dst->nodes[node].tsc_ticks += t->tsc - m->tsc0;
		} else if (dst->frag) {
			if (ct_grow((void **)&dst->ticks, &dst->cap_ticks,
				    dst->nticks, sizeof(*dst->ticks)))
				return -pte_nomem;
			dst->ticks[dst->nticks].node = node;
			dst->ticks[dst->nticks++].tsc = t->tsc;
		}
	}
	return 0;
}

/* The runs kept whole: split between the nodes they landed on. */
static int ctm_xruns(struct ctm *m)
{
	struct ct_parts p = { 0 };
	size_t i, j;
	int ret = 0;

	if (!m->f->nxruns)
		return 0;
	p.id = malloc(CT_PARTS * sizeof(*p.id));
	p.n = malloc(CT_PARTS * sizeof(*p.n));
	p.cap = CT_PARTS;
	if (!p.id || !p.n) {
		ret = -pte_nomem;
		goto out_free;
	}
	for (i = 0; i < m->f->nxruns && !ret; i++) {
		const struct ct_xrun *x = &m->f->xruns[i];

		for (j = 0; j < x->n && !ret; j++) {
			const struct ct_xpart *xp = &m->f->xparts[x->first + j];

			ret = ct_parts_add(&p, m->nmap[xp->node], xp->n);
		}
		if (!ret)
			ret = ct_parts_close_nodes(m->dst, &p,
						   x->have_cyc ? &x->cyc : NULL);
	}
out_free:
	free(p.id);
	free(p.n);
	return ret;
}

/* The calls open at the fragment's end go on dst's stacks, and each
 * thread's pending call or return, if the fragment knows it. */
static int ctm_frames(struct ctm *m)
{
	struct ct *dst = m->dst;
	size_t i, k;
	int ret;

	for (i = 0; i < m->f->nstacks; i++) {
		const struct ct_stack *s = &m->f->stacks[i];

		dst->st = &dst->stacks[m->smap[i]];
		/* a lazy binding resolved since a depth of the fragment's */
		if (s->lazy)
			dst->st->lazy = dst->st->depth + s->lazy;
		if (s->lazy)
			dst->st->lazy_call_ip = s->lazy_call_ip;
		for (k = 0; k < s->depth; k++) {
			const struct ct_frame *fr = &s->fr[k];

			if (m->folded[fr->node]) {
				dst->st->lost_depth++;
				continue;
			}
			ret = ct_push_at(dst, m->nmap[fr->node],
					 fr->have_tsc ? fr->tsc : m->tsc0,
					 fr->have_tsc ? 1 : m->have_tsc0,
					 fr->call_ip, fr->async);
			if (ret < 0)
				return ret;
		}
		dst->st->lost_depth += s->lost_depth;
		/* its last instruction, if the fragment fed it one, for
		 * calls still open at the end (ct_finish()) */
		if (s->last == CT_LAST_TSC || (s->last == CT_LAST_BEFORE &&
					       m->have_tsc0)) {
			dst->st->last_tsc = s->last == CT_LAST_TSC ?
					    s->last_tsc : m->tsc0;
			dst->st->last = CT_LAST_TSC;
		} else if (s->last == CT_LAST_BEFORE && dst->frag) {
			dst->st->last = CT_LAST_BEFORE;
		}
		if (s->pending != CT_PEND_UNKNOWN) {
			dst->st->pending = s->pending;
			dst->st->call_ip = s->call_ip;
			dst->st->plt_start = s->plt_start;
			dst->st->jump_func = s->jump_func == CT_NONE ? CT_NONE :
					     m->fmap[s->jump_func];
		}
	}
	return 0;
}

/* The span of instruction TSCs: the fragment's, and the TSC before it
 * for its instructions before its first TSC, as feeding would have. */
static void ctm_span(struct ctm *m)
{
	if (m->f->untimed_first && m->have_tsc0)
		ct_span_add(m->dst, m->tsc0);
	else if (m->f->untimed_first && !m->dst->have_span)
		m->dst->untimed_first = 1;
	if (m->f->have_span) {
		ct_span_add(m->dst, m->f->span_lo);
		ct_span_add(m->dst, m->f->span_hi);
	}
}

int ct_merge(struct ct *dst, const struct ct *frag)
{
	struct ctm m = { dst, frag, NULL, NULL, NULL, NULL, 0, 0 };
	int ret;

	if (frag && frag->pack)
		return ct_merge_pack(dst, frag->pack);
	if (!dst || !frag || dst == frag || dst->finished || !frag->frag ||
	    !frag->finished || ctm_conflict(dst, frag))
		return -pte_invalid;
	/* the fragment's first instructions are in no run of dst's */
	ret = ct_close_run(dst);
	if (ret < 0)
		return ret;
	m.tsc0 = dst->tsc;
	m.have_tsc0 = dst->have_tsc;
	m.fmap = malloc((frag->nfuncs + 1) * sizeof(*m.fmap));
	m.nmap = malloc(frag->nnodes * sizeof(*m.nmap));
	m.folded = calloc(frag->nnodes, 1);
	m.smap = malloc(frag->nstacks * sizeof(*m.smap));
	ret = -pte_nomem;
	if (!m.fmap || !m.nmap || !m.folded || !m.smap)
		goto out_free;
	if ((ret = ctm_funcs(&m)) < 0 || (ret = ctm_stacks(&m)) < 0 ||
	    (ret = ctm_nodes(&m)) < 0 || (ret = ctm_ticks(&m)) < 0 ||
	    (ret = ctm_xruns(&m)) < 0 || (ret = ctm_frames(&m)) < 0)
		goto out_free;
	ctm_span(&m);
	dst->st = &dst->stacks[m.smap[frag->st - frag->stacks]];
	if (frag->have_tsc) {
		dst->tsc = frag->tsc;
		dst->have_tsc = 1;
	}
	dst->truncated |= frag->truncated;
out_free:
	free(m.fmap);
	free(m.nmap);
	free(m.folded);
	free(m.smap);
	return ret;
}

size_t ct_frag_bytes(const struct ct *frag)
{
	size_t n, i;

	if (!frag)
		return 0;
	if (frag->pack)
		return sizeof(*frag) + ct_pack_bytes(frag->pack);
	n = sizeof(*frag) + frag->nnodes * (sizeof(*frag->nodes) + sizeof(*frag->groot)) +
	    frag->nfuncs * sizeof(*frag->funcs) + frag->nops * sizeof(*frag->ops) +
	    frag->nticks * sizeof(*frag->ticks) + frag->nxruns * sizeof(*frag->xruns) +
	    frag->nxparts * sizeof(*frag->xparts) + frag->nstacks * sizeof(*frag->stacks);
	for (i = 0; i < frag->nstacks; i++)
		n += frag->stacks[i].depth * sizeof(*frag->stacks[i].fr);
	return n;
}

/*
 * The packed form: the fragment's fields as LEB128 varints (signed ones
 * zigzagged, offsets and TSCs as deltas), in one allocation.  Names are
 * kept as pointers: a pack lives in the process that made it.  One walk
 * over the fields counts, writes or reads them.
 */
/* A walk over a fragment's fields: counting (out NULL), writing or
 * reading (in). */
struct ctp {
	uint8_t *out;
	const uint8_t *in;
	size_t pos, len;
	int bad;		/* read past the end or a value out of range */
};

static void ctp_u(struct ctp *io, uint64_t *v)
{
	uint64_t x = 0;
	unsigned sh = 0;
	uint8_t b;

	if (!io->in) {
		x = *v;
		do {
			b = (uint8_t)(x & 0x7f);
			x >>= 7;
			if (io->out)
				io->out[io->pos] = (uint8_t)(b | (x ? 0x80 : 0));
			io->pos++;
		} while (x);
		return;
	}
	do {
		if (io->pos >= io->len || sh > 63) {
			io->bad = 1;
			*v = 0;
			return;
		}
		b = io->in[io->pos++];
		x |= (uint64_t)(b & 0x7f) << sh;
		sh += 7;
	} while (b & 0x80);
	*v = x;
}

/* A signed difference @v - @base, zigzagged. */
static void ctp_d(struct ctp *io, uint64_t *v, uint64_t base)
{
	uint64_t z = 0;

	if (!io->in) {
		int64_t d = (int64_t)(*v - base);

		z = ((uint64_t)d << 1) ^ (uint64_t)(d >> 63);
	}
	ctp_u(io, &z);
	if (io->in)
		*v = base + ((z >> 1) ^ (0 - (z & 1)));
}

#define CTP(io, lv) do {						\
		uint64_t v_ = (uint64_t)(lv);				\
		ctp_u((io), &v_);					\
		(lv) = (__typeof__(lv))v_;				\
	} while (0)

/* An index that may be CT_NONE (or CT_PEND_UNKNOWN), stored plus one. */
#define CTP1(io, lv) do {						\
		uint64_t v_ = (uint64_t)(lv) + 1;			\
		if ((lv) == (__typeof__(lv))-1)				\
			v_ = 0;						\
		ctp_u((io), &v_);					\
		(lv) = v_ ? (__typeof__(lv))(v_ - 1) : (__typeof__(lv))-1; \
	} while (0)

/* A sum of cycles over @insns instructions (their cycles mostly known or
 * unknown: the two add up to @insns). */
static void ctp_sum(struct ctp *io, struct ct_sum *s, uint64_t insns)
{
	CTP(io, s->lo);
	ctp_d(io, &s->hi, s->lo);
	CTP(io, s->unknown);
	ctp_d(io, &s->known, insns - s->unknown);
	CTP(io, s->flags);
}

/* Allocate @n zeroed elements of @size when reading (a count larger than
 * the bytes left is bad: each element takes one at least). */
static void *ctp_alloc(struct ctp *io, void *p, size_t n, size_t size)
{
	if (!io->in)
		return p;
	if (n > io->len - io->pos + 1) {
		io->bad = 1;
		return NULL;
	}
	p = calloc(n ? n : 1, size);
	if (!p)
		io->bad = 1;
	return p;
}

static void ctp_funcs(struct ctp *io, struct ct *f)
{
	uint64_t prev_name = 0, prev_start = 0, kind;
	size_t i;

	f->funcs = ctp_alloc(io, f->funcs, f->nfuncs, sizeof(*f->funcs));
	for (i = 0; i < f->nfuncs && !io->bad; i++) {
		struct ct_func *g = &f->funcs[i];
		uint64_t name = (uintptr_t)g->name;

		/* names from one symbol table, code from one binary: close */
		ctp_d(io, &name, prev_name);
		g->name = (const char *)(uintptr_t)name;
		prev_name = name;
		ctp_d(io, &g->start, prev_start);
		prev_start = g->start;
		ctp_d(io, &g->end, g->start);
		kind = (uint64_t)g->kind | (uint64_t)g->plt << 6;
		CTP(io, kind);
		g->kind = (uint8_t)(kind & 0x3f);
		g->plt = (uint8_t)(kind >> 6);
		CTP(io, g->insns);
		CTP(io, g->calls);
		ctp_sum(io, &g->cyc, g->insns);
	}
}

static void ctp_nodes(struct ctp *io, struct ct *f)
{
	uint64_t off = 0;
	uint32_t i;

	f->nodes = ctp_alloc(io, f->nodes, f->nnodes, sizeof(*f->nodes));
	f->groot = ctp_alloc(io, f->groot, f->nnodes, sizeof(*f->groot));
	if (io->bad || !f->nnodes) {
		io->bad = 1;
		return;
	}
	f->nodes[0].parent = f->nodes[0].func = CT_NONE;
	for (i = 1; i < f->nnodes && !io->bad; i++) {
		struct ct_node *n = &f->nodes[i];
		uint64_t up = n->parent == CT_NONE ? 0 : i - n->parent;

		CTP(io, up);
		CTP1(io, n->func);
		CTP(io, n->calls);
		CTP(io, n->entries);
		CTP(io, n->insns_self);
		ctp_sum(io, &n->self, n->insns_self);
		CTP(io, n->tsc_ticks);
		ctp_d(io, &n->offset, off);
		off = n->offset;
		if (!io->in)
			continue;
		if (up > i || (up && n->func >= f->nfuncs)) {
			io->bad = 1;
			break;
		}
		n->parent = up ? i - (uint32_t)up : CT_NONE;
		f->groot[i] = up ? f->groot[n->parent] : i;
	}
}

static void ctp_ops(struct ctp *io, struct ct *f)
{
	uint64_t off = 0, tsc = 0;
	size_t i;

	f->ops = ctp_alloc(io, f->ops, f->nops, sizeof(*f->ops));
	for (i = 0; i < f->nops && !io->bad; i++) {
		struct ct_op *op = &f->ops[i];

		CTP(io, op->kind);
		CTP1(io, op->pending);
		CTP(io, op->stack);
		CTP1(io, op->func);
		CTP1(io, op->node);
		ctp_d(io, &op->offset, off);
		CTP(io, op->ip);
		CTP(io, op->have_tsc);
		ctp_d(io, &op->tsc, tsc);
		off = op->offset;
		tsc = op->tsc;
		if (io->in && (op->stack >= f->nstacks ||
			       (op->kind == CT_OP_MOVE &&
				(op->func >= f->nfuncs || op->node >= f->nnodes))))
			io->bad = 1;
	}
}

static void ctp_runs(struct ctp *io, struct ct *f)
{
	size_t i;

	f->ticks = ctp_alloc(io, f->ticks, f->nticks, sizeof(*f->ticks));
	for (i = 0; i < f->nticks && !io->bad; i++) {
		CTP(io, f->ticks[i].node);
		CTP(io, f->ticks[i].tsc);
		if (io->in && f->ticks[i].node >= f->nnodes)
			io->bad = 1;
	}
	f->xruns = ctp_alloc(io, f->xruns, f->nxruns, sizeof(*f->xruns));
	for (i = 0; i < f->nxruns && !io->bad; i++) {
		struct ct_xrun *x = &f->xruns[i];

		CTP(io, x->have_cyc);
		CTP(io, x->cyc.lo);
		ctp_d(io, &x->cyc.hi, x->cyc.lo);
		CTP(io, x->cyc.flags);
		CTP(io, x->first);
		CTP(io, x->n);
		if (io->in && ((uint64_t)x->first + x->n > f->nxparts))
			io->bad = 1;
	}
	f->xparts = ctp_alloc(io, f->xparts, f->nxparts, sizeof(*f->xparts));
	for (i = 0; i < f->nxparts && !io->bad; i++) {
		CTP(io, f->xparts[i].node);
		CTP(io, f->xparts[i].n);
		if (io->in && f->xparts[i].node >= f->nnodes)
			io->bad = 1;
	}
}

static void ctp_stacks(struct ctp *io, struct ct *f)
{
	size_t i, k;

	for (i = 0; i < f->nstacks && !io->bad; i++) {
		struct ct_stack *s = &f->stacks[i];

		CTP(io, s->key);
		CTP(io, s->inherit);
		CTP(io, s->relative);
		CTP1(io, s->pending);
		CTP1(io, s->level);
		CTP(io, s->call_ip);
		CTP1(io, s->jump_func);
		CTP(io, s->plt_start);
		CTP(io, s->lazy);
		CTP(io, s->lazy_call_ip);
		if (io->in && s->jump_func != CT_NONE && s->jump_func >= f->nfuncs)
			io->bad = 1;
		CTP(io, s->last);
		CTP(io, s->last_tsc);
		if (io->in && s->last > CT_LAST_BEFORE)
			io->bad = 1;
		CTP(io, s->lost_depth);
		CTP(io, s->depth);
		s->fr = ctp_alloc(io, s->fr, s->depth, sizeof(*s->fr));
		if (io->in)
			s->cap = s->depth;
		for (k = 0; k < s->depth && !io->bad; k++) {
			CTP(io, s->fr[k].node);
			CTP(io, s->fr[k].have_tsc);
			CTP(io, s->fr[k].tsc);
			CTP(io, s->fr[k].call_ip);
			CTP(io, s->fr[k].async);
			if (io->in && s->fr[k].node >= f->nnodes)
				io->bad = 1;
		}
	}
}

/* Walk every field of fragment @f (filled in when reading). */
static void ctp_walk(struct ctp *io, struct ct *f)
{
	size_t cur = io->in ? 0 : (size_t)(f->st - f->stacks);

	CTP(io, f->nfuncs);
	CTP(io, f->nnodes);
	CTP(io, f->nops);
	CTP(io, f->nticks);
	CTP(io, f->nxruns);
	CTP(io, f->nxparts);
	CTP(io, f->nstacks);
	CTP(io, cur);
	CTP(io, f->tsc);
	CTP(io, f->have_tsc);
	CTP(io, f->truncated);
	CTP(io, f->have_span);
	CTP(io, f->untimed_first);
	CTP(io, f->span_lo);
	ctp_d(io, &f->span_hi, f->span_lo);
	f->stacks = ctp_alloc(io, f->stacks, f->nstacks, sizeof(*f->stacks));
	if (io->in && !f->stacks)
		f->nstacks = 0;	/* ct_free() walks them */
	if (io->bad || cur >= f->nstacks) {
		io->bad = 1;
		return;
	}
	f->st = &f->stacks[cur];
	ctp_funcs(io, f);
	ctp_nodes(io, f);
	ctp_stacks(io, f);
	ctp_ops(io, f);
	ctp_runs(io, f);
}

int ct_frag_pack(const struct ct *frag, struct ct_pack **out)
{
	struct ctp io = { 0 };
	struct ct_pack *p;

	if (!out || !frag || !frag->frag || !frag->finished)
		return -pte_invalid;
	if (frag->pack) {
		p = malloc(ct_pack_bytes(frag->pack));
		if (!p)
			return -pte_nomem;
		memcpy(p, frag->pack, ct_pack_bytes(frag->pack));
		*out = p;
		return 0;
	}
	/* writing reads the fields only (the casts assign them unchanged) */
	ctp_walk(&io, (struct ct *)frag);
	p = malloc(sizeof(*p) + io.pos);
	if (!p)
		return -pte_nomem;
	p->len = io.pos;
	io.out = p->data;
	io.pos = 0;
	ctp_walk(&io, (struct ct *)frag);
	*out = p;
	return 0;
}

size_t ct_pack_bytes(const struct ct_pack *p)
{
	return p ? sizeof(*p) + p->len : 0;
}

void ct_pack_free(struct ct_pack *p)
{
	free(p);
}

/* ctp_check()'s stacks, given the level node of each one's last move
 * (@level) and whether it broke (@broke). */
static int ctp_check_stacks(const struct ct *f, const uint32_t *level,
			    const uint8_t *broke)
{
	size_t i, k;

	for (i = 0; i < f->nstacks; i++) {
		const struct ct_stack *s = &f->stacks[i];
		uint32_t up = s->level == CT_NONE ? CT_ROOT : s->level;

		if ((s->pending != 0 && s->pending != CT_IC_CALL &&
		     s->pending != CT_IC_RETURN && s->pending != CT_IC_JUMP &&
		     s->pending != CT_PEND_ASYNC && s->pending != CT_PEND_UNKNOWN) ||
		    s->level != level[i] || (s->relative != 0) == (broke[i] != 0) ||
		    s->depth > CT_MAX_DEPTH || (s->lost_depth && s->depth != CT_MAX_DEPTH) ||
		    (s->relative && s->level == CT_NONE && s->depth))
			return -pte_bad_file;
		for (k = 0; k < s->depth; k++) {
			uint32_t node = s->fr[k].node;

			if (!node || f->nodes[node].parent != up)
				return -pte_bad_file;
			up = node;
		}
	}
	return 0;
}

/* What ct_merge() takes for granted beyond the indices ctp_walk() checks,
 * for a pack read from a file (any values behind a valid checksum), as
 * feeding makes it: the ops, moves into level nodes (one each, with the
 * pending return a fragment records) and breaks (one a stack at most,
 * the last of its ops; a break of all, which any stack's may follow);
 * each level node reached by a move (else the
 * merge never maps it); each stack's pending instruction one a thread
 * has, its base the level node of its last move (none after a break,
 * which makes it not relative), its frames a chain of calls from there
 * (or from the root), and frames lost past CT_MAX_DEPTH only above a
 * full stack.  So a frame's node is as deep as the stack it is pushed
 * on, and a merge never leaves a stack without a node on top.
 * Returns 0, -pte_bad_file, or -pte_nomem. */
static int ctp_check(const struct ct *f)
{
	uint8_t *moved = calloc(f->nnodes, 1), *broke = calloc(f->nstacks, 1);
	uint32_t *level = malloc(f->nstacks * sizeof(*level));
	size_t i;
	int ret = -pte_nomem;

	if (!moved || !broke || !level)
		goto out_free;
	ret = -pte_bad_file;
	for (i = 0; i < f->nstacks; i++)
		level[i] = CT_NONE;
	for (i = 0; i < f->nops; i++) {
		const struct ct_op *op = &f->ops[i];

		if (op->kind == CT_OP_BREAK_ALL || op->kind == CT_OP_ENABLE ||
		    op->kind == CT_OP_RESUMED)
			continue;	/* (a break of all: its stacks' own
					 * breaks follow) */
		if ((op->kind != CT_OP_MOVE && op->kind != CT_OP_BREAK) ||
		    broke[op->stack])
			goto out_free;
		if (op->kind == CT_OP_BREAK) {
			broke[op->stack] = 1;
			level[op->stack] = CT_NONE;
			continue;
		}
		if (!op->node || f->groot[op->node] != op->node || moved[op->node] ||
		    (op->pending != CT_IC_RETURN && op->pending != CT_IC_JUMP &&
		     op->pending != CT_PEND_ASYNC && op->pending != CT_PEND_UNKNOWN))
			goto out_free;
		moved[op->node] = 1;
		level[op->stack] = op->node;
	}
	for (i = 1; i < f->nnodes; i++)
		if (f->groot[i] == i && !moved[i])
			goto out_free;
	ret = ctp_check_stacks(f, level, broke);
out_free:
	free(moved);
	free(broke);
	free(level);
	return ret;
}

/* Pack @p replayed into a new finished fragment *@out (ct_free() it).
 * Returns 0, 1 if it does not read back (*@out then holds what did), or
 * -pte_nomem. */
static int ctp_unpack(const struct ct_pack *p, struct ct **out)
{
	struct ctp io = { 0 };
	struct ct *f = calloc(1, sizeof(*f));

	if (!f)
		return -pte_nomem;
	f->frag = f->finished = 1;
	io.in = p->data;
	io.len = p->len;
	ctp_walk(&io, f);
	*out = f;
	return io.bad ? 1 : 0;
}

/* Read pack @p into a new finished fragment *@out.  Returns 0,
 * -pte_bad_file if it does not read back or could not be merged
 * (ctp_check()), or -pte_nomem. */
static int ctp_read(const struct ct_pack *p, struct ct **out)
{
	struct ct *f;
	int ret = ctp_unpack(p, &f);

	if (ret == -pte_nomem)
		return ret;
	ret = ret ? -pte_bad_file : ctp_check(f);
	if (ret < 0) {
		ct_free(f);
		return ret;
	}
	*out = f;
	return 0;
}

int ct_pack_map(const struct ct_pack *p, ct_name_map_fn map, void *ctx,
		struct ct_pack **out)
{
	struct ct *f;
	size_t i;
	int ret;

	if (!p || !map || !out)
		return -pte_invalid;
	ret = ctp_read(p, &f);
	if (ret < 0)
		return ret;
	for (i = 0; i < f->nfuncs && !ret; i++) {
		f->funcs[i].name = map(ctx, f->funcs[i].name);
		if (!f->funcs[i].name)
			ret = -pte_invalid;
	}
	if (!ret)
		ret = ct_frag_pack(f, out);
	ct_free(f);
	return ret;
}

const void *ct_pack_data(const struct ct_pack *p, size_t *len)
{
	*len = p ? p->len : 0;
	return p ? p->data : NULL;
}

int ct_pack_new(const void *data, size_t len, struct ct_pack **out)
{
	struct ct_pack *p;

	if (!out || (!data && len))
		return -pte_invalid;
	p = malloc(sizeof(*p) + len);
	if (!p)
		return -pte_nomem;
	p->len = len;
	if (len)
		memcpy(p->data, data, len);
	*out = p;
	return 0;
}

int ct_merge_pack(struct ct *dst, const struct ct_pack *p)
{
	struct ct *f;
	int ret;

	if (!dst || !p)
		return -pte_invalid;
	ret = ctp_unpack(p, &f);
	if (ret == -pte_nomem)
		return ret;
	/* (our own packs, checked when they were made or loaded) */
	ret = ret ? -pte_internal : ct_merge(dst, f);
	ct_free(f);
	return ret;
}
