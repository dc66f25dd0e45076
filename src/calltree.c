/* calltree -- the call tree and flat profile of a range of flow (see calltree.h). */
#include "calltree.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptdec.h"
#include "symfmt.h"

#define CT_MAX_DEPTH	1024	/* frames kept; deeper calls are counted in
				 * the deepest (see ct_truncated()) */
#define CT_PARTS	16	/* nodes (functions) a run is split between;
				 * more are lumped into the last */
#define CT_IPC		4096	/* instructions whose function is kept (a
				 * power of two) */

/* A frame of the call stack. */
struct ct_frame {
	uint32_t node;
	uint64_t tsc;		/* at the call, if have_tsc */
	uint8_t have_tsc;
};

/* The call stack of one thread. */
struct ct_stack {
	uint64_t key;		/* the thread (ct_thread()) */
	struct ct_frame *fr;
	size_t depth, cap;
	uint64_t lost_depth;	/* calls deeper than CT_MAX_DEPTH, open */
	int pending;		/* its last instruction: CT_IC_CALL/RETURN/0 */
};

/* The instructions of the open run per node (or function). */
struct ct_parts {
	uint32_t id[CT_PARTS];
	uint64_t n[CT_PARTS];
	size_t nparts;
	size_t last;		/* the part added to last (a run's instructions
				 * mostly go to one) */
};

/* An instruction's function, kept: code without a symbol (a segment)
 * has no range that answers for its other instructions, and the lookup
 * by name costs hundreds of instructions per instruction. */
struct ct_ipc {
	uint64_t ip, asid;
	uint32_t func;		/* its index + 1; 0: an empty slot */
};

/* A hash table from a 64-bit key (never 0) to an index. */
struct ct_map {
	uint64_t *key;
	uint32_t *val;
	size_t cap, n;		/* cap a power of two */
};

struct ct {
	ct_resolve_fn resolve;
	void *rctx;
	struct ct_node *nodes;
	size_t nnodes, cap_nodes;
	struct ct_func *funcs;
	size_t nfuncs, cap_funcs;
	struct ct_map node_map;		/* (parent, func) -> node */
	struct ct_map func_map;		/* (start, kind, name) -> func */
	struct ct_stack *stacks;	/* one per thread; [0] the first */
	size_t nstacks, cap_stacks;
	struct ct_stack *st;	/* the current thread's */
	int truncated;
	/* the open run */
	int in_run;
	struct ct_cyc cyc;
	uint64_t tsc;
	uint8_t have_tsc;
	struct ct_parts pn, pf;	/* its nodes and functions */
	/* the last function resolved (a symbol's range answers again) */
	uint64_t last_asid;
	uint32_t last_func;
	struct ct_ipc *ipc;	/* CT_IPC slots, by address */
	int finished;
};

static uint64_t ct_mix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return k;
}

/* The index for @key in @m, or CT_NONE. */
static uint32_t ct_map_get(const struct ct_map *m, uint64_t key)
{
	size_t i;

	if (!m->cap)
		return CT_NONE;
	for (i = ct_mix(key) & (m->cap - 1); m->key[i]; i = (i + 1) & (m->cap - 1))
		if (m->key[i] == key)
			return m->val[i];
	return CT_NONE;
}

static int ct_map_put(struct ct_map *m, uint64_t key, uint32_t val)
{
	size_t i;

	if (2 * (m->n + 1) > m->cap) {
		struct ct_map g = { 0 };

		g.cap = m->cap ? 2 * m->cap : 256;
		g.key = calloc(g.cap, sizeof(*g.key));
		g.val = calloc(g.cap, sizeof(*g.val));
		if (!g.key || !g.val) {
			free(g.key);
			free(g.val);
			return -pte_nomem;
		}
		for (i = 0; i < m->cap; i++)
			if (m->key[i])
				ct_map_put(&g, m->key[i], m->val[i]);
		free(m->key);
		free(m->val);
		*m = g;
	}
	for (i = ct_mix(key) & (m->cap - 1); m->key[i]; i = (i + 1) & (m->cap - 1))
		;
	m->key[i] = key;
	m->val[i] = val;
	m->n++;
	return 0;
}

static int ct_grow(void **p, size_t *cap, size_t n, size_t size)
{
	size_t c;
	void *q;

	if (n < *cap)
		return 0;
	c = *cap ? 2 * *cap : 64;
	q = realloc(*p, c * size);
	if (!q)
		return -pte_nomem;
	*p = q;
	*cap = c;
	return 0;
}

int ct_new(struct ct **out, ct_resolve_fn resolve, void *ctx)
{
	struct ct *ct;

	if (!out || !resolve)
		return -pte_invalid;
	ct = calloc(1, sizeof(*ct));
	if (!ct)
		return -pte_nomem;
	ct->resolve = resolve;
	ct->rctx = ctx;
	ct->last_func = CT_NONE;
	/* the root */
	if (ct_grow((void **)&ct->nodes, &ct->cap_nodes, 0, sizeof(*ct->nodes))) {
		free(ct);
		return -pte_nomem;
	}
	memset(&ct->nodes[0], 0, sizeof(ct->nodes[0]));
	ct->nodes[0].parent = ct->nodes[0].func = CT_NONE;
	ct->nodes[0].first_child = ct->nodes[0].next_sibling = CT_NONE;
	ct->nnodes = 1;
	ct->stacks = calloc(1, sizeof(*ct->stacks));
	ct->ipc = calloc(CT_IPC, sizeof(*ct->ipc));
	if (!ct->stacks || !ct->ipc) {
		free(ct->stacks);
		free(ct->ipc);
		free(ct->nodes);
		free(ct);
		return -pte_nomem;
	}
	ct->nstacks = ct->cap_stacks = 1;
	ct->st = &ct->stacks[0];
	*out = ct;
	return 0;
}

int ct_resolve_symfmt(void *sf, uint64_t asid, uint64_t ip,
		      struct symfmt_fn *fn)
{
	return symfmt_function(sf, asid, ip, fn);
}

void ct_free(struct ct *ct)
{
	size_t i;

	if (!ct)
		return;
	for (i = 0; i < ct->nstacks; i++)
		free(ct->stacks[i].fr);
	free(ct->stacks);
	free(ct->ipc);
	free(ct->nodes);
	free(ct->funcs);
	free(ct->node_map.key);
	free(ct->node_map.val);
	free(ct->func_map.key);
	free(ct->func_map.val);
	free(ct);
}

/* The function of @ip in @asid: its index, or CT_NONE out of memory. */
static uint32_t ct_func_of(struct ct *ct, uint64_t asid, uint64_t ip)
{
	struct symfmt_fn fn;
	struct ct_func *f;
	struct ct_ipc *c = &ct->ipc[ct_mix(ip ^ asid * 0x9e3779b97f4a7c15ull) & (CT_IPC - 1)];
	uint64_t key;
	uint32_t i;

	if (ct->last_func != CT_NONE && ct->last_asid == asid) {
		f = &ct->funcs[ct->last_func];
		if (f->kind == SYMFMT_FUNC && ip >= f->start && ip < f->end)
			return ct->last_func;
	}
	if (c->func && c->ip == ip && c->asid == asid) {
		ct->last_asid = asid;
		ct->last_func = c->func - 1;
		return c->func - 1;
	}
	if (ct->resolve(ct->rctx, asid, ip, &fn) < 0 || !fn.name) {
		fn.name = "(unknown)";
		fn.start = ip;
		fn.end = ip + 1;
		fn.kind = SYMFMT_NONE;
	}
	/* unknown code is one function: nothing tells its parts apart */
	if (fn.kind == SYMFMT_NONE)
		fn.start = 0;
	key = ct_mix(fn.start ^ ct_mix((uint64_t)(uintptr_t)fn.name)) ^ fn.kind;
	key = key ? key : 1;
	i = ct_map_get(&ct->func_map, key);
	/* a collision of different functions: compare what they are */
	while (i != CT_NONE && (ct->funcs[i].start != fn.start ||
				ct->funcs[i].kind != fn.kind ||
				strcmp(ct->funcs[i].name, fn.name))) {
		key = ct_mix(key) | 1;
		i = ct_map_get(&ct->func_map, key);
	}
	if (i == CT_NONE) {
		if (ct_grow((void **)&ct->funcs, &ct->cap_funcs, ct->nfuncs,
			    sizeof(*ct->funcs)) ||
		    ct_map_put(&ct->func_map, key, (uint32_t)ct->nfuncs))
			return CT_NONE;
		i = (uint32_t)ct->nfuncs++;
		f = &ct->funcs[i];
		memset(f, 0, sizeof(*f));
		f->name = fn.name;
		f->start = fn.start;
		f->end = fn.end;
		f->kind = fn.kind;
		f->plt = fn.kind == SYMFMT_FUNC && strlen(fn.name) > 4 &&
			 !strcmp(fn.name + strlen(fn.name) - 4, "@plt");
	}
	ct->last_asid = asid;
	ct->last_func = i;
	c->ip = ip;
	c->asid = asid;
	c->func = i + 1;
	return i;
}

/* The child of @parent for function @func, made if new (@offset its first
 * instruction's).  Returns its index, or CT_NONE out of memory. */
static uint32_t ct_child(struct ct *ct, uint32_t parent, uint32_t func,
			 uint64_t offset)
{
	uint64_t key = ((uint64_t)parent << 32 | func) + 1;
	struct ct_node *n, *p;
	uint32_t i = ct_map_get(&ct->node_map, key), c;

	if (i != CT_NONE)
		return i;
	if (ct_grow((void **)&ct->nodes, &ct->cap_nodes, ct->nnodes,
		    sizeof(*ct->nodes)) ||
	    ct_map_put(&ct->node_map, key, (uint32_t)ct->nnodes))
		return CT_NONE;
	i = (uint32_t)ct->nnodes++;
	n = &ct->nodes[i];
	memset(n, 0, sizeof(*n));
	n->parent = parent;
	n->func = func;
	n->first_child = n->next_sibling = CT_NONE;
	n->depth = ct->nodes[parent].depth + 1;
	n->offset = offset;
	/* children in order of first call: append */
	p = &ct->nodes[parent];
	if (p->first_child == CT_NONE) {
		p->first_child = i;
	} else {
		for (c = p->first_child; ct->nodes[c].next_sibling != CT_NONE;
		     c = ct->nodes[c].next_sibling)
			;
		ct->nodes[c].next_sibling = i;
	}
	return i;
}

/* Add @n instructions of @id (a node or function) to the open run's. */
static void ct_parts_add(struct ct_parts *p, uint32_t id, uint64_t n)
{
	size_t i;

	if (p->last < p->nparts && p->id[p->last] == id) {
		p->n[p->last] += n;
		return;
	}
	for (i = 0; i < p->nparts && p->id[i] != id; i++)
		;
	if (i == p->nparts) {
		if (p->nparts == CT_PARTS)
			i = CT_PARTS - 1;	/* lumped with the last */
		else {
			p->id[i] = id;
			p->n[i] = 0;
			p->nparts++;
		}
	}
	p->n[i] += n;
	p->last = i;
}

/* Give the run's cycles @c (NULL: unknown) to the parts' sums. */
static void ct_parts_give(struct ct *ct, struct ct_parts *p, int funcs,
			  const struct ct_cyc *c)
{
	uint64_t total = 0, lo_left, hi_left, hi;
	size_t i;

	for (i = 0; i < p->nparts; i++)
		total += p->n[i];
	hi = c && (c->flags & CT_C_HI) ? c->hi : c ? c->lo : 0;
	lo_left = c ? c->lo : 0;
	hi_left = hi;
	for (i = 0; i < p->nparts; i++) {
		struct ct_sum *s = funcs ? &ct->funcs[p->id[i]].cyc :
					   &ct->nodes[p->id[i]].self;
		uint64_t lo_part, hi_part;

		if (!c || !(c->flags & CT_C_KNOWN)) {
			s->unknown += p->n[i];
			continue;
		}
		/* whole cycles; the remainder to the last part */
		if (i + 1 == p->nparts) {
			lo_part = lo_left;
			hi_part = hi_left;
		} else {
			lo_part = (uint64_t)((unsigned __int128)c->lo * p->n[i] / total);
			hi_part = (uint64_t)((unsigned __int128)hi * p->n[i] / total);
		}
		lo_left -= lo_part;
		hi_left -= hi_part;
		s->lo += lo_part;
		s->hi += hi_part;
		s->known += p->n[i];
		if (!(c->flags & CT_C_EXACT))
			s->flags |= c->flags & CT_C_HI ? CT_S_BOUNDED : CT_S_OPEN;
		if (p->nparts > 1)
			s->flags |= CT_S_SHARED;
	}
	p->nparts = 0;
}

/* Close the open run. */
static void ct_close_run(struct ct *ct)
{
	const struct ct_cyc *c = ct->in_run ? &ct->cyc : NULL;

	ct_parts_give(ct, &ct->pn, 0, c);
	ct_parts_give(ct, &ct->pf, 1, c);
	ct->in_run = 0;
}

int ct_run(struct ct *ct, const struct ct_cyc *cyc, uint64_t tsc, int have_tsc)
{
	if (!ct || ct->finished)
		return -pte_invalid;
	ct_close_run(ct);
	ct->in_run = 1;
	if (cyc)
		ct->cyc = *cyc;
	else
		memset(&ct->cyc, 0, sizeof(ct->cyc));
	/* an exact count is its own bounds */
	if (ct->cyc.flags & CT_C_EXACT)
		ct->cyc.hi = ct->cyc.lo, ct->cyc.flags |= CT_C_KNOWN | CT_C_HI;
	if (have_tsc) {
		ct->tsc = tsc;
		ct->have_tsc = 1;
	}
	return 0;
}

/* Pop the current thread's top frame, adding its time. */
static void ct_pop(struct ct *ct)
{
	struct ct_frame *fr = &ct->st->fr[--ct->st->depth];

	if (fr->have_tsc && ct->have_tsc && ct->tsc >= fr->tsc)
		ct->nodes[fr->node].tsc_ticks += ct->tsc - fr->tsc;
}

/* Push a frame for node @node.  Returns 0 or -pte_nomem. */
static int ct_push(struct ct *ct, uint32_t node)
{
	struct ct_stack *s = ct->st;
	struct ct_frame *fr;

	if (ct_grow((void **)&s->fr, &s->cap, s->depth, sizeof(*s->fr)))
		return -pte_nomem;
	fr = &s->fr[s->depth++];

	fr->node = node;
	fr->tsc = ct->tsc;
	fr->have_tsc = ct->have_tsc;
	return 0;
}

/* Move in the tree for the instruction of function @func after a call or
 * return (ct->pending).  Returns 0 or -pte_nomem. */
static int ct_move(struct ct *ct, uint32_t func, uint64_t offset)
{
	struct ct_stack *s = ct->st;
	uint32_t node;

	/* a call through a PLT stub calls where the stub jumps: the stub's
	 * instructions are the caller's */
	if (s->pending == CT_IC_CALL && s->depth && ct->funcs[func].plt)
		return 0;
	if (s->pending == CT_IC_CALL && s->depth) {
		s->pending = 0;
		if (s->depth == CT_MAX_DEPTH || s->lost_depth) {
			s->lost_depth++;
			ct->truncated = 1;
			return 0;
		}
		node = ct_child(ct, s->fr[s->depth - 1].node, func, offset);
		if (node == CT_NONE)
			return -pte_nomem;
		ct->nodes[node].calls++;
		ct->funcs[func].calls++;
		return ct_push(ct, node);
	}
	if (s->pending == CT_IC_RETURN && s->depth) {
		if (s->lost_depth)
			s->lost_depth--;
		else
			ct_pop(ct);
	}
	s->pending = 0;
	/* the first instruction, or a return above where the range began */
	if (!s->depth) {
		node = ct_child(ct, CT_ROOT, func, offset);
		if (node == CT_NONE)
			return -pte_nomem;
		return ct_push(ct, node);
	}
	return 0;
}

/* Feed @n consecutive instructions of function @func decided at @offset,
 * the last of class @iclass, the others moving nothing: as many
 * ct_insn()s, since after the first one's move the rest stay in its node
 * (a PLT stub's keep a pending call pending).  Returns 0 or -pte_nomem. */
static int ct_feed(struct ct *ct, uint32_t func, uint64_t offset, uint64_t n,
		   int iclass)
{
	uint32_t node;
	int ret;

	ret = ct_move(ct, func, offset);
	if (ret < 0)
		return ret;
	node = ct->st->fr[ct->st->depth - 1].node;
	ct->nodes[node].insns_self += n;
	ct->funcs[func].insns += n;
	ct_parts_add(&ct->pn, node, n);
	ct_parts_add(&ct->pf, func, n);
	if (iclass == CT_IC_CALL || iclass == CT_IC_RETURN)
		ct->st->pending = iclass;
	return 0;
}

int ct_insn(struct ct *ct, uint64_t offset, uint64_t asid, uint64_t ip,
	    int iclass)
{
	uint32_t func;

	if (!ct || ct->finished)
		return -pte_invalid;
	func = ct_func_of(ct, asid, ip);
	if (func == CT_NONE)
		return -pte_nomem;
	return ct_feed(ct, func, offset, 1, iclass);
}

uint32_t ct_count_sizes(const void *ctx, uint64_t addr)
{
	const struct ct_sizes *z = ctx;
	uint64_t a = z->ip;
	uint32_t i;

	for (i = 0; i < z->n && a < addr; i++)
		a += z->sizes[i];
	return i;
}

/* The address of instruction @k (from 0) of a block ending at @last_ip,
 * past @before (an earlier instruction's): the lowest address with k + 1
 * instructions at or below it.  A search, for the rare block that runs
 * past a symbol's end or through code without a symbol. */
static uint64_t ct_block_addr(ct_count_fn count, const void *cctx,
			      uint64_t before, uint64_t last_ip, uint32_t k)
{
	uint64_t lo = before + 1, hi = last_ip;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (count(cctx, mid + 1) >= k + 1)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

int ct_block(struct ct *ct, uint64_t offset, uint64_t asid, uint64_t ip,
	     uint64_t last_ip, uint32_t ninsns, int iclass, ct_count_fn count,
	     const void *cctx)
{
	uint32_t k = 0, n, func;
	uint64_t cur = ip;
	int ret;

	if (!ct || ct->finished || (ninsns > 1 && (!count || last_ip <= ip)))
		return -pte_invalid;
	while (k < ninsns) {
		const struct ct_func *f;

		func = ct_func_of(ct, asid, cur);
		if (func == CT_NONE)
			return -pte_nomem;
		f = &ct->funcs[func];
		/* a symbol's range answers for the block's instructions in
		 * it; code without one is resolved instruction by
		 * instruction, as ct_insn() does */
		if (k + 1 == ninsns || (f->kind == SYMFMT_FUNC && last_ip < f->end))
			n = ninsns - k;
		else if (f->kind == SYMFMT_FUNC)
			n = count(cctx, f->end) - k;
		else
			n = 1;
		if (n < 1 || n > ninsns - k)
			n = 1;		/* a count that makes no sense */
		ret = ct_feed(ct, func, offset, n, k + n == ninsns ? iclass : 0);
		if (ret < 0)
			return ret;
		k += n;
		if (k < ninsns)
			cur = ct_block_addr(count, cctx, cur, last_ip, k);
	}
	return 0;
}

/* Forget the current thread's stack, closing its calls. */
static void ct_forget(struct ct *ct)
{
	while (ct->st->depth)
		ct_pop(ct);
	ct->st->lost_depth = 0;
	ct->st->pending = 0;
}

int ct_thread(struct ct *ct, uint64_t key)
{
	size_t i;

	if (!ct || ct->finished)
		return -pte_invalid;
	if (ct->st->key == key)
		return 0;
	for (i = 0; i < ct->nstacks && ct->stacks[i].key != key; i++)
		;
	if (i == ct->nstacks) {
		size_t cur = (size_t)(ct->st - ct->stacks);

		if (ct_grow((void **)&ct->stacks, &ct->cap_stacks, ct->nstacks,
			    sizeof(*ct->stacks)))
			return -pte_nomem;
		ct->st = &ct->stacks[cur];
		memset(&ct->stacks[i], 0, sizeof(ct->stacks[i]));
		ct->stacks[i].key = key;
		ct->nstacks++;
	}
	ct->st = &ct->stacks[i];
	return 0;
}

int ct_break(struct ct *ct)
{
	if (!ct || ct->finished)
		return -pte_invalid;
	ct_close_run(ct);
	ct_forget(ct);
	return 0;
}

static void ct_sum_add(struct ct_sum *to, const struct ct_sum *s)
{
	to->lo += s->lo;
	to->hi += s->hi;
	to->unknown += s->unknown;
	to->known += s->known;
	to->flags |= s->flags;
}

int ct_finish(struct ct *ct)
{
	size_t i;

	if (!ct || ct->finished)
		return -pte_invalid;
	ct_close_run(ct);
	for (i = 0; i < ct->nstacks; i++) {
		ct->st = &ct->stacks[i];
		ct_forget(ct);
	}
	for (i = 0; i < ct->nnodes; i++) {
		ct->nodes[i].total = ct->nodes[i].self;
		ct->nodes[i].insns = ct->nodes[i].insns_self;
	}
	/* a child comes after its parent: sum from the last up */
	for (i = ct->nnodes - 1; i > 0; i--) {
		struct ct_node *n = &ct->nodes[i], *p = &ct->nodes[n->parent];

		ct_sum_add(&p->total, &n->total);
		p->insns += n->insns;
		if (n->parent == CT_ROOT)
			p->tsc_ticks += n->tsc_ticks;
	}
	ct->finished = 1;
	return 0;
}

size_t ct_nnodes(const struct ct *ct)
{
	return ct ? ct->nnodes : 0;
}

const struct ct_node *ct_node(const struct ct *ct, uint32_t i)
{
	return ct && i < ct->nnodes ? &ct->nodes[i] : NULL;
}

size_t ct_nfuncs(const struct ct *ct)
{
	return ct ? ct->nfuncs : 0;
}

const struct ct_func *ct_func(const struct ct *ct, uint32_t i)
{
	return ct && i < ct->nfuncs ? &ct->funcs[i] : NULL;
}

int ct_truncated(const struct ct *ct)
{
	return ct && ct->truncated;
}

/* qsort has no context argument: the tree and order being sorted. */
static __thread const struct ct *ct_sort_ct;
static __thread enum ct_order ct_sort_order;

static int ct_cmp3(uint64_t a, uint64_t b)
{
	return a < b ? 1 : a > b ? -1 : 0;
}

static int ct_cmp_func(const void *x, const void *y)
{
	const struct ct_func *a = &ct_sort_ct->funcs[*(const uint32_t *)x];
	const struct ct_func *b = &ct_sort_ct->funcs[*(const uint32_t *)y];
	int c;

	switch (ct_sort_order) {
	case CT_BY_CYCLES:
		c = ct_cmp3(a->cyc.lo, b->cyc.lo);
		break;
	case CT_BY_CALLS:
		c = ct_cmp3(a->calls, b->calls);
		break;
	default:
		c = 0;
		break;
	}
	if (!c)
		c = ct_cmp3(a->insns, b->insns);
	return c ? c : strcmp(a->name, b->name);
}

static int ct_cmp_node(const void *x, const void *y)
{
	uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;
	const struct ct_node *a = &ct_sort_ct->nodes[i];
	const struct ct_node *b = &ct_sort_ct->nodes[j];
	int c;

	switch (ct_sort_order) {
	case CT_BY_CYCLES:
		c = ct_cmp3(a->total.lo, b->total.lo);
		break;
	case CT_BY_CALLS:
		c = ct_cmp3(a->calls, b->calls);
		break;
	default:
		c = 0;
		break;
	}
	if (!c)
		c = ct_cmp3(a->insns, b->insns);
	/* then in order of first call */
	return c ? c : i < j ? -1 : i > j;
}

size_t ct_top(const struct ct *ct, enum ct_order order, uint32_t *idx,
	      size_t max)
{
	uint32_t *all;
	size_t i, n;

	if (!ct || !idx || !ct->nfuncs)
		return 0;
	all = malloc(ct->nfuncs * sizeof(*all));
	if (!all)
		return 0;
	for (i = 0; i < ct->nfuncs; i++)
		all[i] = (uint32_t)i;
	ct_sort_ct = ct;
	ct_sort_order = order;
	qsort(all, ct->nfuncs, sizeof(*all), ct_cmp_func);
	n = max && max < ct->nfuncs ? max : ct->nfuncs;
	memcpy(idx, all, n * sizeof(*idx));
	free(all);
	return n;
}

size_t ct_children(const struct ct *ct, uint32_t node, enum ct_order order,
		   uint32_t *idx, size_t max)
{
	uint32_t *all, c;
	size_t n = 0, cap = 0;

	if (!ct || !idx || node >= ct->nnodes)
		return 0;
	for (c = ct->nodes[node].first_child; c != CT_NONE; c = ct->nodes[c].next_sibling)
		cap++;
	if (!cap)
		return 0;
	all = malloc(cap * sizeof(*all));
	if (!all)
		return 0;
	for (c = ct->nodes[node].first_child; c != CT_NONE; c = ct->nodes[c].next_sibling)
		all[n++] = c;
	ct_sort_ct = ct;
	ct_sort_order = order;
	qsort(all, n, sizeof(*all), ct_cmp_node);
	if (max && max < n)
		n = max;
	memcpy(idx, all, n * sizeof(*idx));
	free(all);
	return n;
}

const char *ct_sum_str(const struct ct_sum *s, char *buf, size_t size)
{
	const char *tilde;
	size_t n;

	if (!buf || !size)
		return buf;
	if (!s || !s->known) {
		snprintf(buf, size, s && !s->unknown ? "0" : "?");
		return buf;
	}
	tilde = s->flags & CT_S_SHARED ? "~" : "";
	if (s->flags & CT_S_OPEN)
		snprintf(buf, size, "%s>=%" PRIu64, tilde, s->lo);
	else if ((s->flags & CT_S_BOUNDED) && s->hi != s->lo)
		snprintf(buf, size, "%s%" PRIu64 "-%" PRIu64, tilde, s->lo, s->hi);
	else
		snprintf(buf, size, "%s%" PRIu64, tilde, s->lo);
	n = strlen(buf);
	if (s->unknown && n + 2 < size)
		memcpy(buf + n, "+?", 3);
	return buf;
}
