/* calltree -- the call tree and flat profile of a range of flow (see calltree.h). */
#include "calltree.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "calltree_int.h"
#include "ptdec.h"
#include "symfmt.h"

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

int ct_grow(void **p, size_t *cap, size_t n, size_t size)
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

/* A stack for thread @key (0 for the first), relative in a fragment. */
static void ct_stack_init(const struct ct *ct, struct ct_stack *s, uint64_t key)
{
	memset(s, 0, sizeof(*s));
	s->key = key;
	s->level = s->jump_func = CT_NONE;
	if (ct->frag) {
		s->relative = 1;
		s->pending = CT_PEND_UNKNOWN;
	}
}

/* A node with nothing in it, made at the end: its index, or CT_NONE. */
static uint32_t ct_node_new(struct ct *ct)
{
	size_t cap = ct->cap_nodes;
	struct ct_node *n;

	if (ct_grow((void **)&ct->nodes, &ct->cap_nodes, ct->nnodes,
		    sizeof(*ct->nodes)))
		return CT_NONE;
	if (cap != ct->cap_nodes || !ct->last_child) {
		uint32_t *l = realloc(ct->last_child, ct->cap_nodes * sizeof(*l));

		if (!l)
			return CT_NONE;
		ct->last_child = l;
	}
	if (ct->frag && (cap != ct->cap_nodes || !ct->groot)) {
		uint32_t *g = realloc(ct->groot, ct->cap_nodes * sizeof(*g));

		if (!g)
			return CT_NONE;
		ct->groot = g;
	}
	n = &ct->nodes[ct->nnodes];
	memset(n, 0, sizeof(*n));
	n->parent = n->func = CT_NONE;
	n->first_child = n->next_sibling = CT_NONE;
	if (ct->frag)
		ct->groot[ct->nnodes] = CT_ROOT;
	return (uint32_t)ct->nnodes++;
}

static int ct_parts_init(struct ct_parts *p)
{
	p->id = malloc(CT_PARTS * sizeof(*p->id));
	p->n = malloc(CT_PARTS * sizeof(*p->n));
	p->cap = CT_PARTS;
	return p->id && p->n ? 0 : -pte_nomem;
}

static void ct_parts_free(struct ct_parts *p)
{
	free(p->id);
	free(p->n);
	memset(p, 0, sizeof(*p));
}

/* ct_new() and ct_new_frag(). */
static int ct_make(struct ct **out, ct_resolve_fn resolve, void *ctx, int frag)
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
	ct->frag = frag;
	ct->stacks = calloc(1, sizeof(*ct->stacks));
	if (ct_node_new(ct) != CT_ROOT || !ct->stacks ||
	    ct_parts_init(&ct->pn) || ct_parts_init(&ct->pf)) {
		ct_free(ct);
		return -pte_nomem;
	}
	ct->nstacks = ct->cap_stacks = 1;
	ct->st = &ct->stacks[0];
	ct_stack_init(ct, ct->st, 0);
	ct->st->inherit = (uint8_t)frag;
	*out = ct;
	return 0;
}

int ct_new(struct ct **out, ct_resolve_fn resolve, void *ctx)
{
	return ct_make(out, resolve, ctx, 0);
}

int ct_new_frag(struct ct **out, ct_resolve_fn resolve, void *ctx)
{
	return ct_make(out, resolve, ctx, 1);
}

int ct_resolve_symfmt(void *sf, uint64_t asid, uint64_t ip,
		      struct symfmt_fn *fn)
{
	return symfmt_function(sf, asid, ip, fn);
}

/* Free what only feeding needs (a finished fragment keeps the rest). */
static void ct_free_feeding(struct ct *ct)
{
	free(ct->ipc);
	free(ct->node_map.key);
	free(ct->node_map.val);
	free(ct->func_map.key);
	free(ct->func_map.val);
	memset(&ct->node_map, 0, sizeof(ct->node_map));
	memset(&ct->func_map, 0, sizeof(ct->func_map));
	ct->ipc = NULL;
	ct_parts_free(&ct->pn);
	ct_parts_free(&ct->pf);
}

void ct_free_arrays(struct ct *ct)
{
	size_t i;

	for (i = 0; i < ct->nstacks; i++)
		free(ct->stacks[i].fr);
	free(ct->stacks);
	free(ct->nodes);
	free(ct->funcs);
	free(ct->groot);
	free(ct->last_child);
	free(ct->ops);
	free(ct->ticks);
	free(ct->xruns);
	free(ct->xparts);
	ct->stacks = ct->st = NULL;
	ct->nodes = NULL;
	ct->funcs = NULL;
	ct->groot = NULL;
	ct->last_child = NULL;
	ct->ops = NULL;
	ct->ticks = NULL;
	ct->xruns = NULL;
	ct->xparts = NULL;
	ct->nstacks = ct->nnodes = ct->nfuncs = ct->nops = ct->nticks = 0;
	ct->nxruns = ct->nxparts = 0;
}

void ct_free(struct ct *ct)
{
	if (!ct)
		return;
	ct_free_feeding(ct);
	ct_free_arrays(ct);
	free(ct->pack);
	free(ct);
}

/* A name's hash: functions are matched by what they are, so trees fed
 * from different resolvers (a fragment's, the tree it merges into) agree. */
static uint64_t ct_hash_name(const char *s)
{
	return XXH3_64bits(s, strlen(s));
}

uint32_t ct_func_intern(struct ct *ct, const char *name, uint64_t start,
			uint64_t end, uint8_t kind)
{
	struct ct_func *f;
	uint64_t key;
	uint32_t i;
	size_t len;

	key = ct_mix(start ^ ct_mix(ct_hash_name(name))) ^ kind;
	key = key ? key : 1;
	i = ct_map_get(&ct->func_map, key);
	/* a collision of different functions: compare what they are */
	while (i != CT_NONE && (ct->funcs[i].start != start ||
				ct->funcs[i].kind != kind ||
				strcmp(ct->funcs[i].name, name))) {
		key = ct_mix(key) | 1;
		i = ct_map_get(&ct->func_map, key);
	}
	if (i != CT_NONE)
		return i;
	if (ct_grow((void **)&ct->funcs, &ct->cap_funcs, ct->nfuncs,
		    sizeof(*ct->funcs)) ||
	    ct_map_put(&ct->func_map, key, (uint32_t)ct->nfuncs))
		return CT_NONE;
	i = (uint32_t)ct->nfuncs++;
	f = &ct->funcs[i];
	memset(f, 0, sizeof(*f));
	f->name = name;
	f->start = start;
	f->end = end;
	f->kind = kind;
	len = strlen(name);
	f->plt = kind == SYMFMT_FUNC && len > 4 && !strcmp(name + len - 4, "@plt");
	return i;
}

/* The names of callees in code without symbols, by entry (ct_entry()):
 * kept for the process's life, as the image set's names outlive the
 * trees, fragments and packs that hold them; made once each. */
static pthread_mutex_t ct_names_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ct_map ct_names;		/* name hash -> index */
static char **ct_name_v;
static size_t ct_name_n, ct_name_cap;

/* "@seg+0x@off", kept (see above), or NULL out of memory. */
static const char *ct_entry_name(const char *seg, uint64_t off)
{
	char buf[512], *s = NULL;
	const char *r = NULL;
	uint64_t key;
	uint32_t i;

	snprintf(buf, sizeof(buf), "%s+0x%" PRIx64, seg, off);
	key = ct_hash_name(buf) | 1;
	pthread_mutex_lock(&ct_names_lock);
	while ((i = ct_map_get(&ct_names, key)) != CT_NONE &&
	       strcmp(ct_name_v[i], buf))
		key = ct_mix(key) | 1;
	if (i != CT_NONE) {
		r = ct_name_v[i];
	} else if (!ct_grow((void **)&ct_name_v, &ct_name_cap, ct_name_n,
			    sizeof(*ct_name_v)) && (s = strdup(buf)) &&
		   !ct_map_put(&ct_names, key, (uint32_t)ct_name_n)) {
		ct_name_v[ct_name_n++] = s;
		r = s;
	} else {
		free(s);
	}
	pthread_mutex_unlock(&ct_names_lock);
	return r;
}

/* The callee entered at @ip in code without symbols (segment function
 * @func): named by its entry, "file+0xoff", the offset in the file as
 * symfmt_ip() writes such an IP (one segment's callees would otherwise be
 * one function, their calls summed over unrelated code).  Its range
 * starts at @ip.  Its index, or CT_NONE out of memory. */
static uint32_t ct_entry(struct ct *ct, uint32_t func, uint64_t ip)
{
	const struct ct_func *f = &ct->funcs[func];
	struct symfmt_fn fn = { 0 };
	uint64_t off = ip - f->start, end = f->end;
	const char *name;

	/* the file offset: the resolver's answer for the segment (a
	 * merge's replay, the instruction's address space unknown, may
	 * find the last one resolved the same) */
	if (ct->resolve(ct->rctx, ct->last_asid, ip, &fn) == 0 &&
	    fn.kind == SYMFMT_SEGMENT && fn.start == f->start && fn.name &&
	    !strcmp(fn.name, f->name))
		off += fn.file_off;
	name = ct_entry_name(f->name, off);
	if (!name)
		return CT_NONE;
	return ct_func_intern(ct, name, ip, end, SYMFMT_SEGMENT);
}

/* The function of @ip in @asid: its index, or CT_NONE out of memory.
 * ct->last_until is then where its answer may end (above @ip). */
static uint32_t ct_func_of(struct ct *ct, uint64_t asid, uint64_t ip)
{
	struct symfmt_fn fn = { 0 };	/* a resolver may leave until 0 */
	struct ct_ipc *c;
	uint32_t i;

	if (ct->last_func != CT_NONE && ct->last_asid == asid &&
	    ip >= ct->last_lo && ip < ct->last_until)
		return ct->last_func;
	/* made at the first instruction: a tree only merged into needs none */
	if (!ct->ipc && !(ct->ipc = calloc(CT_IPC, sizeof(*ct->ipc))))
		return CT_NONE;
	c = &ct->ipc[ct_mix(ip ^ asid * 0x9e3779b97f4a7c15ull) & (CT_IPC - 1)];
	if (c->func && c->ip == ip && c->asid == asid) {
		ct->last_asid = asid;
		ct->last_func = c->func - 1;
		ct->last_lo = ip;
		ct->last_until = c->until;
		return c->func - 1;
	}
	if (ct->resolve(ct->rctx, asid, ip, &fn) < 0 || !fn.name) {
		fn.name = "(unknown)";
		fn.start = ip;
		fn.end = ip + 1;
		fn.kind = SYMFMT_NONE;
		fn.until = 0;
	}
	/* what the resolver said holds, at least ip itself: a symbol's
	 * range short of a function nested in it (whose code is its own) */
	ct->last_lo = fn.kind == SYMFMT_FUNC && fn.from <= ip &&
		      fn.from >= fn.start ? fn.from : ip;
	ct->last_until = fn.until > ip ? fn.until : ip + 1;
	/* unknown code is one function: nothing tells its parts apart */
	if (fn.kind == SYMFMT_NONE)
		fn.start = 0;
	i = ct_func_intern(ct, fn.name, fn.start, fn.end, fn.kind);
	if (i == CT_NONE)
		return CT_NONE;
	ct->last_asid = asid;
	ct->last_func = i;
	c->ip = ip;
	c->asid = asid;
	c->until = ct->last_until;
	c->func = i + 1;
	return i;
}

uint32_t ct_child(struct ct *ct, uint32_t parent, uint32_t func,
		  uint64_t offset)
{
	uint64_t key = ((uint64_t)parent << 32 | func) + 1;
	struct ct_node *n, *p;
	uint32_t i = ct_map_get(&ct->node_map, key);

	if (i != CT_NONE)
		return i;
	i = ct_node_new(ct);
	if (i == CT_NONE || ct_map_put(&ct->node_map, key, i)) {
		if (i != CT_NONE)
			ct->nnodes--;
		return CT_NONE;
	}
	n = &ct->nodes[i];
	n->parent = parent;
	n->func = func;
	n->depth = ct->nodes[parent].depth + 1;
	n->offset = offset;
	if (ct->frag)
		ct->groot[i] = ct->groot[parent];
	/* children in order of first call: append */
	p = &ct->nodes[parent];
	if (p->first_child == CT_NONE)
		p->first_child = i;
	else
		ct->nodes[ct->last_child[parent]].next_sibling = i;
	ct->last_child[parent] = i;
	return i;
}

int ct_parts_add(struct ct_parts *p, uint32_t id, uint64_t n)
{
	size_t i;

	if (p->last < p->nparts && p->id[p->last] == id) {
		p->n[p->last] += n;
		return 0;
	}
	for (i = 0; i < p->nparts && p->id[i] != id; i++)
		;
	/* every part kept: one lumped into another would show the cycles
	 * of both as the other's and an exact 0 as its own */
	if (i == p->nparts) {
		if (p->nparts == p->cap) {
			size_t c = 2 * p->cap;
			uint32_t *id2 = realloc(p->id, c * sizeof(*id2));
			uint64_t *n2;

			if (!id2)
				return -pte_nomem;
			p->id = id2;
			n2 = realloc(p->n, c * sizeof(*n2));
			if (!n2)
				return -pte_nomem;
			p->n = n2;
			p->cap = c;
		}
		p->id[i] = id;
		p->n[i] = 0;
		p->nparts++;
	}
	p->n[i] += n;
	p->last = i;
	return 0;
}

/* Give the run's cycles @c (NULL: unknown) to the parts' sums: the
 * nodes' (or the functions' if @funcs). */
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

int ct_parts_close_nodes(struct ct *ct, struct ct_parts *p,
			 const struct ct_cyc *c)
{
	struct ct_xrun *x;
	size_t i;

	if (ct->frag) {
		for (i = 1; i < p->nparts; i++)
			if (ct->groot[p->id[i]] != ct->groot[p->id[0]])
				break;
	}
	if (!ct->frag || i >= p->nparts) {
		ct_parts_give(ct, p, 0, c);
		return 0;
	}
	/* split at the merge, where the parts' nodes are known */
	if (ct_grow((void **)&ct->xruns, &ct->cap_xruns, ct->nxruns,
		    sizeof(*ct->xruns)))
		return -pte_nomem;
	while (ct->nxparts + p->nparts > ct->cap_xparts)
		if (ct_grow((void **)&ct->xparts, &ct->cap_xparts,
			    ct->cap_xparts, sizeof(*ct->xparts)))
			return -pte_nomem;
	x = &ct->xruns[ct->nxruns++];
	memset(x, 0, sizeof(*x));
	if (c) {
		x->cyc = *c;
		x->have_cyc = 1;
	}
	x->first = (uint32_t)ct->nxparts;
	x->n = (uint32_t)p->nparts;
	for (i = 0; i < p->nparts; i++) {
		ct->xparts[ct->nxparts].node = p->id[i];
		ct->xparts[ct->nxparts++].n = p->n[i];
	}
	p->nparts = 0;
	return 0;
}

int ct_close_run(struct ct *ct)
{
	const struct ct_cyc *c = ct->in_run ? &ct->cyc : NULL;

	ct->in_run = 0;
	ct_parts_give(ct, &ct->pf, 1, c);
	return ct_parts_close_nodes(ct, &ct->pn, c);
}

int ct_run(struct ct *ct, const struct ct_cyc *cyc, uint64_t tsc, int have_tsc)
{
	int ret;

	if (!ct || ct->finished)
		return -pte_invalid;
	ret = ct_close_run(ct);
	if (ret < 0)
		return ret;
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
static int ct_pop(struct ct *ct)
{
	struct ct_frame *fr = &ct->st->fr[--ct->st->depth];

	if (ct->st->lazy > ct->st->depth + 1)
		ct->st->lazy = 0;	/* the binding's caller returned */
	if (fr->have_tsc && ct->have_tsc && ct->tsc >= fr->tsc) {
		ct->nodes[fr->node].tsc_ticks += ct->tsc - fr->tsc;
	} else if (ct->frag && !fr->have_tsc && ct->have_tsc) {
		/* called at the TSC before the fragment: count at the merge */
		if (ct_grow((void **)&ct->ticks, &ct->cap_ticks, ct->nticks,
			    sizeof(*ct->ticks)))
			return -pte_nomem;
		ct->ticks[ct->nticks].node = fr->node;
		ct->ticks[ct->nticks++].tsc = ct->tsc;
	}
	return 0;
}

int ct_push_at(struct ct *ct, uint32_t node, uint64_t tsc, uint8_t have_tsc,
	       uint64_t call_ip, uint8_t async)
{
	struct ct_stack *s = ct->st;
	struct ct_frame *fr;

	if (s->depth == CT_MAX_DEPTH || s->lost_depth) {
		s->lost_depth++;
		ct->truncated = 1;
		return 0;
	}
	if (ct_grow((void **)&s->fr, &s->cap, s->depth, sizeof(*s->fr)))
		return -pte_nomem;
	fr = &s->fr[s->depth++];
	fr->node = node;
	fr->tsc = tsc;
	fr->have_tsc = have_tsc;
	fr->call_ip = call_ip;
	fr->async = async;
	return 0;
}

uint32_t ct_stack_top(const struct ct *ct)
{
	const struct ct_stack *s = ct->st;

	return s->depth ? s->fr[s->depth - 1].node : s->level;
}

/* Record an op of the current thread (a fragment's), the TSC now. */
static struct ct_op *ct_op_add(struct ct *ct, uint8_t kind)
{
	struct ct_op *op;

	if (ct_grow((void **)&ct->ops, &ct->cap_ops, ct->nops, sizeof(*ct->ops)))
		return NULL;
	op = &ct->ops[ct->nops++];
	memset(op, 0, sizeof(*op));
	op->kind = kind;
	op->stack = (uint32_t)(ct->st - ct->stacks);
	op->tsc = ct->tsc;
	op->have_tsc = ct->have_tsc;
	op->func = op->node = CT_NONE;
	return op;
}

/* A move at a fragment's base (see calltree_int.h): the instruction of
 * @func lands in a new level node. */
static int ct_move_base(struct ct *ct, uint32_t func, uint64_t offset,
			uint64_t ip)
{
	struct ct_stack *s = ct->st;
	struct ct_op *op = ct_op_add(ct, CT_OP_MOVE);
	uint32_t node;

	if (!op)
		return -pte_nomem;
	node = ct_node_new(ct);
	if (node == CT_NONE)
		return -pte_nomem;
	op->func = func;
	op->node = node;
	op->offset = offset;
	op->ip = ip;
	op->pending = (int8_t)s->pending;
	ct->groot[node] = node;
	ct->nodes[node].offset = offset;
	s->level = node;
	s->ret_out = !ip;
	/* a return from the tree's frame: a lazy binding's caller's too */
	if (s->pending == CT_IC_RETURN)
		s->lazy = 0;
	/* through a PLT stub, a pending call may still be pending */
	s->pending = s->pending == CT_PEND_UNKNOWN && ct->funcs[func].plt ?
		     CT_PEND_UNKNOWN : 0;
	return 0;
}

/* Whether @ip is where frame @fr's call returns to: the instruction
 * after the call (2 to 15 bytes long; its length is not kept). */
static int ct_returns_to(const struct ct_frame *fr, uint64_t ip)
{
	return fr->call_ip && ip > fr->call_ip && ip - fr->call_ip <= 15;
}

/* Whether @ip lies inside function @func past its start: no call's or
 * tail call's target, but a longjmp's or an exception's landing (code
 * without symbols cannot tell). */
static int ct_mid_func(const struct ct *ct, uint32_t func, uint64_t ip)
{
	const struct ct_func *f = &ct->funcs[func];

	return f->kind == SYMFMT_FUNC && !f->plt && ip != f->start;
}

/* Whether an instruction of @func at @ip can be what a lazy binding
 * resolves to: a function's first, not a PLT stub nor the resolver. */
static int ct_lazy_target(const struct ct *ct, uint32_t func, uint64_t ip)
{
	const struct ct_func *f = &ct->funcs[func];

	return f->kind == SYMFMT_FUNC && !f->plt && ip == f->start &&
	       strncmp(f->name, "_dl_runtime_", 12);
}

/* The frames of the current thread a return to @ip pops: those up to
 * the one whose call returns there (a longjmp by return skips some).
 * Where none does, the stack is not what ran (a signal handler's
 * return, a switch of stacks): all of them, so the code after it starts
 * a top-level node (in a fragment, the tree's frames below decide), and
 * *@matched is 0. */
static size_t ct_ret_pops(const struct ct *ct, uint64_t ip, int *matched)
{
	const struct ct_stack *s = ct->st;
	size_t j;

	*matched = 1;
	/* to where is not known (ct_enabled()): the frame below; from the
	 * bottom frame (the function the range began in), into its caller,
	 * not traced: it ends, and what runs next is a top-level node's
	 * (as a return to no frame's), not a handler entered under it */
	if (!ip)
		return s->depth ? 1 : 0;
	for (j = s->depth; j--;) {
		if (ct_returns_to(&s->fr[j], ip))
			return s->depth - j;
		/* a handler returns (to the signal's trampoline, whose
		 * sigreturn goes back to the interrupted code); no return
		 * passes its frame */
		if (s->fr[j].async)
			return s->depth - j;
	}
	*matched = 0;
	return s->depth;
}

/* The frames of the current thread an indirect jump to @ip in @func
 * pops: where it lands inside a function (not a tail call: a longjmp, an
 * exception's landing pad) other than its own (a switch's table, after a
 * tail call too) and the top frame's, those above the
 * topmost frame of that function; where no frame is of it, all of them
 * (as a return to no frame), *@matched then 0.  Else none. */
static size_t ct_jump_pops(const struct ct *ct, uint32_t func, uint64_t ip,
			   int *matched)
{
	const struct ct_stack *s = ct->st;
	size_t j;

	*matched = 1;
	if (!s->depth || s->lost_depth || !ct_mid_func(ct, func, ip) ||
	    func == s->jump_func ||
	    ct->nodes[s->fr[s->depth - 1].node].func == func)
		return 0;
	for (j = s->depth - 1; j--;)
		if (ct->nodes[s->fr[j].node].func == func)
			return s->depth - 1 - j;
	*matched = 0;
	return s->depth;
}

/* Pop @n frames of the current thread. */
static int ct_pop_n(struct ct *ct, size_t n)
{
	int ret;

	while (n--)
		if ((ret = ct_pop(ct)) < 0)
			return ret;
	return 0;
}

/* Whether an instruction of @func at @ip after ct_enabled() enters a
 * handler: a function's first (a return into an interrupted function
 * lands past its start). */
static int ct_async_entry(const struct ct *ct, uint32_t func, uint64_t ip)
{
	const struct ct_func *f = &ct->funcs[func];

	return f->kind == SYMFMT_FUNC && !f->plt && ip == f->start;
}

/* Whether tracing enabled again at @ip resumes where the current
 * thread's top frame's call returns to: a call that left the traced range
 * (a stub's jump, a tail call out) came back to its caller, so the frame
 * is left as by its return (perf's thread stack pops likewise at a
 * trace's begin).  Not where tracing merely paused, nor a handler's
 * frame (entered without a call).  The top frame only: a deeper one
 * would take a return that skips frames (a longjmp from code not
 * traced), and a fragment cannot tell whether a frame before it is
 * where a resume lands once it has frames of its own above (its merge
 * must give one decode's tree). */
static int ct_resumes_ret(const struct ct *ct, uint64_t ip)
{
	const struct ct_stack *s = ct->st;

	return s->depth && !s->lost_depth &&
	       ct_returns_to(&s->fr[s->depth - 1], ip);
}

/* Whether the current thread's next move is the merged-into tree's to
 * make (a fragment's, see calltree_int.h): its pending call or return is
 * the tree's, or a return or jump from the tree's frames (a jump only
 * where it may land in a frame below, see ct_jump_pops()). */
static int ct_at_base(const struct ct *ct, uint32_t func, uint64_t ip)
{
	const struct ct_stack *s = ct->st;

	if (s->pending == CT_PEND_UNKNOWN)
		return 1;
	/* after a return that may have left the tree's bottom frame: a
	 * handler under the frame below, or a top-level node */
	if (s->pending == CT_PEND_ASYNC && !s->depth && s->ret_out)
		return 1;
	/* an entry into a handler under the tree's top */
	if (s->pending == CT_PEND_ASYNC && !s->depth && s->level == CT_NONE)
		return s->relative;
	/* tracing enabled again at the level: where the call of the
	 * tree's top frame returns to, maybe (ct_resumes_ret()) */
	if (s->pending == CT_PEND_ASYNC && !s->depth && s->relative &&
	    !ct_async_entry(ct, func, ip))
		return 1;
	if (s->depth || s->level == CT_NONE)
		return 0;
	return s->pending == CT_IC_RETURN ||
	       (s->pending == CT_IC_JUMP && ct_mid_func(ct, func, ip) &&
		func != s->jump_func) ||
	       /* the tree's frame may be resolving a lazy binding */
	       (s->pending == CT_IC_JUMP && s->relative && !s->lazy &&
		ct_lazy_target(ct, func, ip));
}

/* Push a frame for @func (@offset its first instruction's) under the
 * current thread's top: a call's, the call at @call_ip, or (@async) a
 * handler's entered without a call (counted in the node's calls, as its
 * entries, not in the function's). */
static int ct_push_frame(struct ct *ct, uint32_t func, uint64_t offset,
			 uint64_t ip, uint64_t call_ip, int async)
{
	struct ct_stack *s = ct->st;
	uint32_t node, entry = func;

	if (s->depth == CT_MAX_DEPTH || s->lost_depth) {
		s->lost_depth++;
		ct->truncated = 1;
		return 0;
	}
	/* a callee without a symbol: a line of its own, by its entry; the
	 * flat profile counts the call in its segment too, whose code it
	 * is (the entry's function holds no instruction: ct_top() leaves
	 * it out) */
	if (ct->funcs[func].kind == SYMFMT_SEGMENT &&
	    (entry = ct_entry(ct, func, ip)) == CT_NONE)
		return -pte_nomem;
	node = ct_child(ct, ct_stack_top(ct), entry, offset);
	if (node == CT_NONE)
		return -pte_nomem;
	ct->nodes[node].calls++;
	if (async) {
		ct->nodes[node].entries++;
	} else {
		ct->funcs[func].calls++;
		if (entry != func)
			ct->funcs[entry].calls++;
	}
	return ct_push_at(ct, node, ct->tsc, ct->have_tsc, call_ip, async);
}

/*
 * The first call through a lazily bound PLT entry: the stub jumps to the
 * PLT's start (code without a symbol, just below the stubs), which jumps
 * to the dynamic linker's resolver, which jumps to the function.  That
 * code is the stub's (the caller's node); the function the resolver
 * jumps to (a function's first instruction, the resolver's own calls
 * returned) is the call's.  @start: the stub's, if the last move was
 * into one.  Returns 1 if the move is made, 0 if not this, or
 * -pte_nomem.
 */
static int ct_lazy(struct ct *ct, uint32_t func, uint64_t offset, uint64_t ip,
		   uint64_t start)
{
	struct ct_stack *s = ct->st;
	int ret;

	if (s->pending == CT_IC_CALL && start && !s->lost_depth &&
	    (s->depth || s->level != CT_NONE) && !ct_lazy_target(ct, func, ip) &&
	    ip < start && start - ip < 0x10000) {
		s->pending = 0;
		s->lazy = s->depth + 1;
		s->lazy_call_ip = s->call_ip;
		return 1;
	}
	if (s->pending == CT_IC_JUMP && s->lazy && s->lazy == s->depth + 1 &&
	    !s->lost_depth && ct_lazy_target(ct, func, ip)) {
		s->pending = 0;
		s->lazy = 0;
		ret = ct_push_frame(ct, func, offset, ip, s->lazy_call_ip, 0);
		return ret < 0 ? ret : 1;
	}
	return 0;
}

int ct_enable_move(struct ct *ct, uint64_t offset)
{
	int ret;

	/* a return just before (a fault's) lands where is not known: in
	 * the frame below (address 0; any function: none is made) */
	if (ct->st->pending == CT_IC_RETURN && ct->nfuncs &&
	    (ret = ct_move(ct, 0, offset, 0)) < 0)
		return ret;
	ct->st->pending = CT_PEND_ASYNC;
	return 0;
}

int ct_enabled(struct ct *ct, uint64_t offset)
{
	struct ct_op *op;

	if (!ct || ct->finished)
		return -pte_invalid;
	if (ct->st->pending == CT_PEND_UNKNOWN) {
		/* the merged-into tree's pending: settled at the merge */
		op = ct_op_add(ct, CT_OP_ENABLE);
		if (!op)
			return -pte_nomem;
		op->offset = offset;
		ct->st->pending = CT_PEND_ASYNC;
		return 0;
	}
	return ct_enable_move(ct, offset);
}

int ct_resumed(struct ct *ct)
{
	if (!ct || ct->finished)
		return -pte_invalid;
	/* a fragment's pending unknown: the call may be the tree's (a PSB
	 * between the call out and its resume), the merge decides */
	if (ct->st->pending == CT_PEND_UNKNOWN)
		return ct_op_add(ct, CT_OP_RESUMED) ? 0 : -pte_nomem;
	/* decided at the next instruction, where it lands */
	ct->st->resumed = ct->st->pending == CT_IC_CALL;
	return 0;
}

int ct_move(struct ct *ct, uint32_t func, uint64_t offset, uint64_t ip)
{
	struct ct_stack *s = ct->st;
	int top = s->depth || s->level != CT_NONE, ret, matched;
	uint64_t plt;
	uint32_t node;
	size_t k;

	/* a PLT stub moved into last, for the move after it only */
	plt = s->plt_start;
	s->plt_start = 0;
	/* a call that left the traced range, back where it returns to
	 * (ct_resumed()): it ran nothing traced, no frame (a call to the
	 * next instruction, tracing paused, is taken for one) */
	if (s->resumed && s->pending == CT_IC_CALL && ip > s->call_ip &&
	    ip - s->call_ip <= 15)
		s->pending = 0;
	s->resumed = 0;
	if (ct_at_base(ct, func, ip))
		return ct_move_base(ct, func, offset, ip);
	/* a call through a PLT stub calls where the stub jumps: the stub's
	 * instructions are the caller's */
	if (s->pending == CT_IC_CALL && top && ct->funcs[func].plt) {
		s->plt_start = ct->funcs[func].start;
		return 0;
	}
	ret = ct_lazy(ct, func, offset, ip, plt);
	if (ret)
		return ret < 0 ? ret : 0;
	if (s->pending == CT_PEND_ASYNC) {
		s->pending = 0;
		if (top && ct_async_entry(ct, func, ip))
			return ct_push_frame(ct, func, offset, ip, 0, 1);
		if (ct_resumes_ret(ct, ip) && (ret = ct_pop(ct)) < 0)
			return ret;
	}
	if (s->pending == CT_IC_CALL && top) {
		s->pending = 0;
		return ct_push_frame(ct, func, offset, ip, s->call_ip, 0);
	}
	if (s->pending == CT_IC_RETURN && s->depth) {
		if (s->lost_depth) {
			s->lost_depth--;
		} else {
			k = ct_ret_pops(ct, ip, &matched);
			if ((ret = ct_pop_n(ct, k)) < 0)
				return ret;
			/* a fragment's frames saying nothing: the tree's */
			if (!matched && s->level != CT_NONE)
				return ct_move_base(ct, func, offset, ip);
		}
	} else if (s->pending == CT_IC_JUMP) {
		k = ct_jump_pops(ct, func, ip, &matched);
		if ((ret = ct_pop_n(ct, k)) < 0)
			return ret;
		if (!matched && s->level != CT_NONE)
			return ct_move_base(ct, func, offset, ip);
	}
	s->pending = 0;
	/* the first instruction, or a return above where the range began
	 * (not one to where is not known: no instruction is there) */
	if (!s->depth && s->level == CT_NONE && ip) {
		node = ct_child(ct, CT_ROOT, func, offset);
		if (node == CT_NONE)
			return -pte_nomem;
		return ct_push_at(ct, node, ct->tsc, ct->have_tsc, 0, 0);
	}
	return 0;
}

void ct_span_add(struct ct *ct, uint64_t tsc)
{
	if (!ct->have_span || tsc < ct->span_lo)
		ct->span_lo = tsc;
	if (!ct->have_span || tsc > ct->span_hi)
		ct->span_hi = tsc;
	ct->have_span = 1;
}

/* Feed @n consecutive instructions of function @func decided at @offset,
 * the last of class @iclass, the others moving nothing: as many
 * ct_insn()s, since after the first one's move the rest stay in its node
 * (a PLT stub's keep a pending call pending).  Returns 0 or -pte_nomem. */
static int ct_feed(struct ct *ct, uint32_t func, uint64_t offset, uint64_t ip,
		   uint64_t last_ip, uint64_t n, int iclass)
{
	uint32_t node;
	int ret;

	ret = ct_move(ct, func, offset, ip);
	if (ret < 0)
		return ret;
	node = ct_stack_top(ct);
	if (ct->have_tsc)
		ct_span_add(ct, ct->tsc);
	else if (ct->frag && !ct->have_span)
		ct->untimed_first = 1;
	ct->nodes[node].insns_self += n;
	ct->funcs[func].insns += n;
	if (ct->have_tsc) {
		ct->st->last_tsc = ct->tsc;
		ct->st->last = CT_LAST_TSC;
	} else if (ct->frag) {
		ct->st->last = CT_LAST_BEFORE;
	}
	if ((ret = ct_parts_add(&ct->pn, node, n)) < 0 ||
	    (ret = ct_parts_add(&ct->pf, func, n)) < 0)
		return ret;
	if (iclass == CT_IC_CALL || iclass == CT_IC_RETURN)
		ct->st->pending = iclass;
	/* (a PLT stub's jump keeps its call pending, and lands at a
	 * function's start: a fragment may not know the call) */
	else if (iclass == CT_IC_JUMP && !ct->st->pending && !ct->funcs[func].plt) {
		ct->st->pending = iclass;
		ct->st->jump_func = func;
	}
	if (iclass == CT_IC_CALL) {
		ct->st->call_ip = last_ip;
		ct->st->plt_start = 0;	/* a call of its own */
	}
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
	return ct_feed(ct, func, offset, ip, ip, 1, iclass);
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
	uint64_t cur = ip, until;
	int ret;

	if (!ct || ct->finished || (ninsns > 1 && (!count || last_ip <= ip)))
		return -pte_invalid;
	while (k < ninsns) {
		func = ct_func_of(ct, asid, cur);
		if (func == CT_NONE)
			return -pte_nomem;
		/* the function answers for the block's instructions below
		 * where its answer may end (a symbol's end; for code without
		 * symbols, the resolver's until), as ct_insn() would for
		 * each */
		until = ct->last_until;
		if (k + 1 == ninsns || last_ip < until)
			n = ninsns - k;
		else
			n = count(cctx, until) - k;
		if (n < 1 || n > ninsns - k)
			n = 1;		/* a count that makes no sense */
		ret = ct_feed(ct, func, offset, cur, last_ip, n,
			      k + n == ninsns ? iclass : 0);
		if (ret < 0)
			return ret;
		k += n;
		if (k < ninsns)
			cur = ct_block_addr(count, cctx, cur, last_ip, k);
	}
	return 0;
}

int ct_forget(struct ct *ct)
{
	struct ct_stack *s = ct->st;
	int ret;

	while (s->depth)
		if ((ret = ct_pop(ct)) < 0)
			return ret;
	/* the merged-into tree's frames are closed at the merge */
	if (s->relative && !ct_op_add(ct, CT_OP_BREAK))
		return -pte_nomem;
	s->lost_depth = 0;
	s->pending = 0;
	s->relative = 0;
	s->level = CT_NONE;
	s->ret_out = 0;
	s->lazy = 0;
	s->plt_start = 0;
	return 0;
}

long ct_stack_of(struct ct *ct, uint64_t key)
{
	struct ct_stack *old = ct->stacks, *s;
	size_t i, cur = (size_t)(ct->st - old);

	for (i = 0; i < ct->nstacks; i++)
		if (old[i].key == key && !old[i].inherit)
			return (long)i;
	if (ct->nstacks == ct->cap_stacks) {
		/* not realloc: ct->st points into the old array */
		s = malloc(2 * ct->cap_stacks * sizeof(*s));
		if (!s)
			return -pte_nomem;
		memcpy(s, old, ct->nstacks * sizeof(*s));
		ct->stacks = s;
		ct->st = &s[cur];
		ct->cap_stacks *= 2;
		free(old);
	}
	ct_stack_init(ct, &ct->stacks[i], key);
	ct->nstacks++;
	return (long)i;
}

int ct_thread(struct ct *ct, uint64_t key)
{
	long i;

	if (!ct || ct->finished)
		return -pte_invalid;
	if (ct->st->key == key && !ct->st->inherit)
		return 0;
	i = ct_stack_of(ct, key);
	if (i < 0)
		return (int)i;
	ct->st = &ct->stacks[i];
	return 0;
}

int ct_break(struct ct *ct)
{
	int ret;

	if (!ct || ct->finished)
		return -pte_invalid;
	ret = ct_close_run(ct);
	return ret < 0 ? ret : ct_forget(ct);
}

int ct_break_all(struct ct *ct)
{
	struct ct_stack *cur;
	size_t i;
	int ret;

	if (!ct || ct->finished)
		return -pte_invalid;
	ret = ct_close_run(ct);
	if (ret < 0)
		return ret;
	ct->breaks++;
	/* first: the merge closes the stacks of threads the fragment has
	 * not seen yet as well (before its own stacks' breaks) */
	if (ct->frag && !ct_op_add(ct, CT_OP_BREAK_ALL))
		return -pte_nomem;
	cur = ct->st;
	for (i = 0; i < ct->nstacks && ret >= 0; i++) {
		const struct ct_stack *s = &ct->stacks[i];

		/* a fragment's stack not fed yet: the break of all closes
		 * its frames at the merge (and the first one stays free for
		 * a thread of the same key, see ct_merge()) */
		if (s->relative && !s->depth && s->level == CT_NONE &&
		    s->pending == CT_PEND_UNKNOWN)
			continue;
		ct->st = &ct->stacks[i];
		ret = ct_forget(ct);
	}
	ct->st = cur;
	return ret < 0 ? ret : 0;
}

int ct_thread_lost(struct ct *ct, uint64_t key)
{
	int ret = ct_thread(ct, key);

	return ret < 0 ? ret : ct_forget(ct);
}

static void ct_sum_add(struct ct_sum *to, const struct ct_sum *s)
{
	to->lo += s->lo;
	to->hi += s->hi;
	to->unknown += s->unknown;
	to->known += s->known;
	to->flags |= s->flags;
}

/* Finish fragment @ct: its open frames stay, for the merge; what only
 * feeding needs goes, and the rest is packed (kept as it is if there is
 * no memory for the pack: ct_merge() takes either). */
static int ct_finish_frag(struct ct *ct)
{
	ct_free_feeding(ct);
	ct->finished = 1;
	if (ct_frag_pack(ct, &ct->pack) == 0)
		ct_free_arrays(ct);
	return 0;
}

/* Close the current thread's calls still open at the end of the range
 * at its last instruction (see ct_finish()).  Counted as open: their
 * time is a lower bound. */
static void ct_close_open(struct ct *ct)
{
	struct ct_stack *s = ct->st;
	uint64_t tsc = ct->tsc;
	uint8_t have_tsc = ct->have_tsc;
	size_t k;

	/* not the range's end: switched out, it may run on elsewhere */
	ct->tsc = s->last_tsc;
	ct->have_tsc = s->last == CT_LAST_TSC;
	for (k = 0; k < s->depth; k++)
		ct->nodes[s->fr[k].node].open++;
	ct_forget(ct);		/* a tree's, not a fragment's: no op to add */
	ct->tsc = tsc;
	ct->have_tsc = have_tsc;
}

int ct_finish(struct ct *ct)
{
	size_t i;
	int ret;

	if (!ct || ct->finished)
		return -pte_invalid;
	ret = ct_close_run(ct);
	if (ret < 0)
		return ret;
	if (ct->frag)
		return ct_finish_frag(ct);
	for (i = 0; i < ct->nstacks; i++) {
		ct->st = &ct->stacks[i];
		ct_close_open(ct);
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
	}
	/* the range's: not its top-level nodes' sum, which counts threads
	 * that ran at once (on another CPU, or switched out) twice */
	ct->nodes[CT_ROOT].tsc_ticks = ct->have_span ? ct->span_hi - ct->span_lo : 0;
	/* code the flow lost is in the range: its cycles are not counted */
	if (ct->breaks)
		ct->nodes[CT_ROOT].total.flags |= CT_S_LOST;
	ct->finished = 1;
	return 0;
}
