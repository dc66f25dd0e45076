/* search_code -- searches for instructions: sym, call, ret (see
 * search_code.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "code.h"
#include "ctx.h"
#include "ctxterm.h"
#include "flow.h"
#include "image.h"
#include "imgopt.h"
#include "index.h"
#include "pool.h"
#include "ptdec.h"
#include "search.h"
#include "search_code.h"
#include "tm_config.h"
#include "trace.h"

#define SC_UNIT_BYTES (256u << 10)	/* a unit of work: segments up to */
#define SC_UNIT_SEGS 64			/* this many bytes or segments */

/* A name's places: in every address space (r) and, for the quick look at
 * an IP, their union (iv: sorted, disjoint [start, end) pairs). */
struct sc_name {
	const char *name;
	struct imgopt_frange *r;
	size_t nr;
	uint64_t *iv;
	size_t niv;
};

struct search_code {
	unsigned code;		/* enum ctxterm_code */
	char sym[128], call[128];
	struct sc_name symn, calln;
};

/* Hits, growing. */
struct sc_vec {
	uint64_t *v;
	size_t n, cap;
};

struct sc_state {
	struct search_code_job *j;
	uint64_t *psb;		/* the PSBs */
	size_t npsb;
	size_t *gfirst;		/* group g: segments gfirst[g] .. gfirst[g + 1] - 1 */
	size_t ngroups;
	size_t *order;		/* unit k is group order[k] */
	struct sc_vec *res;	/* per group */
	struct code_dec *dec[POOL_MAX_THREADS];	/* per worker */
	struct tm_config tm;
};

static int sc_iv_cmp(const void *a, const void *b)
{
	const struct imgopt_frange *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Resolve @n->name in @set.  Returns 0, or -pte_invalid (said in @err),
 * or -pte_nomem. */
static int sc_resolve(struct sc_name *n, const struct imgset *set, const char *what,
		      char *err, size_t errlen)
{
	struct imgopt_frange *tmp;
	size_t i;
	int r = imgopt_find_function(set, n->name, &n->r, &n->nr);

	if (r < 0)
		return r;
	if (!n->nr) {
		snprintf(err, errlen, "%s %s: no function of that name in the code's "
			 "symbols", what, n->name);
		return -pte_invalid;
	}
	tmp = malloc(n->nr * sizeof(*tmp));
	n->iv = malloc(2 * n->nr * sizeof(*n->iv));
	if (!tmp || !n->iv) {
		free(tmp);
		return -pte_nomem;
	}
	memcpy(tmp, n->r, n->nr * sizeof(*tmp));
	qsort(tmp, n->nr, sizeof(*tmp), sc_iv_cmp);
	for (i = 0; i < n->nr; i++) {
		if (n->niv && tmp[i].start <= n->iv[2 * n->niv - 1]) {
			if (tmp[i].end > n->iv[2 * n->niv - 1])
				n->iv[2 * n->niv - 1] = tmp[i].end;
			continue;
		}
		n->iv[2 * n->niv] = tmp[i].start;
		n->iv[2 * n->niv + 1] = tmp[i].end;
		n->niv++;
	}
	free(tmp);
	return 0;
}

int search_code_new(struct search_code **out, const struct imgset *set,
		    const struct ctxterm *t, char *err, size_t errlen)
{
	struct search_code *sc;
	int r = 0;

	*out = NULL;
	if (!t || !t->code) {
		snprintf(err, errlen, "no code term (sym, call, ret)");
		return -pte_invalid;
	}
	if (!set) {
		snprintf(err, errlen, "no code is known (--raw, --elf or a perf.data's files)");
		return -pte_invalid;
	}
	sc = calloc(1, sizeof(*sc));
	if (!sc)
		return -pte_nomem;
	sc->code = t->code;
	memcpy(sc->sym, t->sym, sizeof(sc->sym));
	memcpy(sc->call, t->call, sizeof(sc->call));
	sc->symn.name = sc->sym;
	sc->calln.name = sc->call;
	if (t->code & CTXTERM_SYM)
		r = sc_resolve(&sc->symn, set, "sym", err, errlen);
	if (!r && (t->code & CTXTERM_CALL))
		r = sc_resolve(&sc->calln, set, "call", err, errlen);
	if (r < 0) {
		search_code_free(sc);
		return r;
	}
	*out = sc;
	return 0;
}

void search_code_free(struct search_code *sc)
{
	if (!sc)
		return;
	free(sc->symn.r);
	free(sc->symn.iv);
	free(sc->calln.r);
	free(sc->calln.iv);
	free(sc);
}

/* Whether @ip of the code the packet at @off decided is in function @n:
 * in one of its places at all, then by the name at @ip in that packet's
 * address space (what flow prints). */
static int sc_in(const struct sc_name *n, const struct imgset *set, struct code_dec *d,
		 uint64_t off, uint64_t ip)
{
	size_t lo = 0, hi = n->niv, mid;
	const char *name;
	uint64_t a, b;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (n->iv[2 * mid + 1] <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == n->niv || ip < n->iv[2 * lo])
		return 0;
	return !imgopt_function(set, code_dec_asid(d, off), ip, &name, &a, &b) &&
	       !strcmp(name, n->name);
}

static int sc_add(struct sc_vec *v, uint64_t off)
{
	uint64_t *p;

	if (v->n && v->v[v->n - 1] == off)
		return 0;
	if (v->n == v->cap) {
		size_t cap = v->cap ? 2 * v->cap : 64;

		p = realloc(v->v, cap * sizeof(*p));
		if (!p)
			return -pte_nomem;
		v->v = p;
		v->cap = cap;
	}
	v->v[v->n++] = off;
	return 0;
}

/* Whether an event between a call and its target leaves the target to
 * come (a status update, an event bound to an instruction). */
static int sc_passes(const struct flow_rec *r)
{
	if (r->flags & FLOW_F_STATUS)
		return 1;
	switch (r->ev) {
	case FLOW_EV_EXEC_MODE: case FLOW_EV_TSX: case FLOW_EV_CBR: case FLOW_EV_MNT:
	case FLOW_EV_PTWRITE: case FLOW_EV_PWRE: case FLOW_EV_PWRX:
	case FLOW_EV_EXSTOP: case FLOW_EV_MWAIT: case FLOW_EV_VMCS:
		return 1;
	default:
		return 0;
	}
}

/* Whether instruction @r, decided at r->offset, meets the terms other than
 * call's target. */
static int sc_insn(const struct search_code *sc, const struct imgset *set,
		   struct code_dec *d, const struct flow_rec *r)
{
	if ((sc->code & CTXTERM_RET) && r->iclass != FLOW_IC_RETURN &&
	    r->iclass != FLOW_IC_FAR_RETURN)
		return 0;
	if ((sc->code & CTXTERM_CALL) && r->iclass != FLOW_IC_CALL &&
	    r->iclass != FLOW_IC_FAR_CALL)
		return 0;
	return !(sc->code & CTXTERM_SYM) || sc_in(&sc->symn, set, d, r->offset, r->ip);
}

/*
 * The hits decided in [@from, @end) into @v, decoding from the PSB @psb
 * (the one before @from: one decode from the start passes through the PSB
 * at @from, where a decode starting there would tie the instructions after
 * it to the PSB instead of to the packet before) up to @end2 (the next
 * segment's end) so that a call whose target the next segment's packets
 * give still has one.  Records of a later packet may come before the last
 * instructions (the next PSB+'s status events): the decode ends at its
 * first instruction decided at or after @end.
 */
static int sc_segment(struct sc_state *s, struct code_dec *d, uint64_t psb,
		      uint64_t from, uint64_t end, uint64_t end2, struct sc_vec *v)
{
	const struct search_code *sc = s->j->sc;
	const struct imgset *set = s->j->set;
	struct flow *f = code_dec_flow(d);
	struct flow_rec r;
	uint64_t call_off = 0;
	int pending = 0, ret = 0, e;

	if (code_dec_restart(d) < 0 || flow_seek(f, psb, end2) < 0)
		return -pte_nomem;
	while (!ret && !(e = flow_next(f, &r))) {
		if (pending) {
			uint64_t target = r.ip;

			if (r.kind == FLOW_EVENT && sc_passes(&r))
				continue;
			pending = 0;
			if ((r.kind == FLOW_INSN ||
			     (r.kind == FLOW_EVENT && r.ev == FLOW_EV_DISABLED &&
			      !(r.flags & FLOW_F_NOIP))) &&
			    sc_in(&sc->calln, set, d, call_off, target))
				ret = sc_add(v, call_off);
		}
		if (r.kind != FLOW_INSN)
			continue;
		if (r.offset >= end)
			break;
		if (r.offset < from || !sc_insn(sc, set, d, &r))
			continue;
		if (s->j->keep && !ctx_ranges_has(s->j->keep, s->j->nkeep, r.offset))
			continue;
		if (sc->code & CTXTERM_CALL) {
			pending = 1;
			call_off = r.offset;
			continue;
		}
		ret = sc_add(v, r.offset);
	}
	return ret;
}

static int sc_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Keep the hits of @v that the packet predicate matches. */
static int sc_pred(const struct search_code_job *j, struct sc_vec *v)
{
	struct pkt pk[256];
	size_t got, i, k = 0, out = 0;
	uint64_t off, resume;
	int r;

	if (!j->pred || !v->n)
		return 0;
	off = v->v[0];
	while (k < v->n) {
		got = 0;
		r = srch_filter_fill(j->pred, j->img, NULL, off, 1, 0, pk,
				     sizeof(pk) / sizeof(pk[0]), &got, &resume);
		for (i = 0; i < got && k < v->n; i++) {
			while (k < v->n && v->v[k] < pk[i].offset)
				k++;
			if (k < v->n && v->v[k] == pk[i].offset)
				v->v[out++] = v->v[k++];
		}
		if (r < 0 || (r == 0 && !got))
			break;
		off = got ? pk[got - 1].offset + 1 : resume;
		if (k < v->n && off < v->v[k])
			off = v->v[k];	/* skip to the next hit */
	}
	v->n = out;
	return 0;
}

/* Whether [@a, @b) meets a range of j->keep (all do without). */
static int sc_kept(const struct search_code_job *j, uint64_t a, uint64_t b)
{
	size_t lo = 0, hi = j->nkeep, mid;

	if (!j->keep)
		return 1;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (j->keep[mid].to <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < j->nkeep && j->keep[lo].from < b;
}

/* The end of segment @i. */
static uint64_t sc_seg_end(const struct sc_state *s, size_t i)
{
	return i + 1 < s->npsb ? s->psb[i + 1] : s->j->img->size;
}

struct sc_unit {
	struct sc_state *s;
	unsigned worker;
	size_t unit;
};

static int sc_unit_body(void *arg)
{
	struct sc_unit *u = arg;
	struct sc_state *s = u->s;
	size_t g = s->order[u->unit], a = s->gfirst[g], b = s->gfirst[g + 1];
	struct sc_vec *v = &s->res[g];
	struct code_dec **d = &s->dec[u->worker];
	int r = 0;

	if (atomic_load(s->j->cancel))
		return -pte_canceled;
	if (!*d && code_dec_new(d, s->j->set, s->j->stream, s->j->img, &s->tm) < 0)
		return -pte_nomem;
	/* the group's segments in one decode, from the PSB before them */
	if (sc_kept(s->j, s->psb[a], sc_seg_end(s, b - 1)))
		r = sc_segment(s, *d, s->psb[a ? a - 1 : 0], s->psb[a], sc_seg_end(s, b - 1),
			       b < s->npsb ? sc_seg_end(s, b) : s->j->img->size, v);
	if (!r && v->n)
		qsort(v->v, v->n, sizeof(*v->v), sc_u64_cmp);
	return r ? r : sc_pred(s->j, v);
}

static int sc_run(void *ctx, unsigned worker, size_t unit)
{
	struct sc_unit u = { ctx, worker, unit };

	return trace_guard(sc_unit_body, &u);
}

/* Unit @k has run: its bytes are done, and its hits may be the first. */
static int sc_merge(void *ctx, size_t k)
{
	struct sc_state *s = ctx;
	struct search_code_job *j = s->j;
	size_t g = s->order[k], cg = s->order[0], i;
	const struct sc_vec *v = &s->res[g];
	uint64_t a = s->psb[s->gfirst[g]], b = sc_seg_end(s, s->gfirst[g + 1] - 1);
	int have = 0;
	uint64_t hit = 0;

	atomic_fetch_add(&j->done, b - a);
	if (atomic_load(&j->have_first) || !v->n)
		return 0;
	if (j->dir > 0) {
		for (i = 0; i < v->n && !have; i++)
			if (k || v->v[i] > j->from)
				have = 1, hit = v->v[i];
	} else {
		for (i = v->n; i > 0 && !have; i--)
			if (k || v->v[i - 1] < j->from)
				have = 1, hit = v->v[i - 1];
	}
	if (have) {
		atomic_store(&j->first, hit);
		atomic_store(&j->first_wrapped, j->dir > 0 ? g < cg : g > cg);
		atomic_store(&j->have_first, 1);
	}
	return 0;
}

/* The PSBs of the stream into s->psb: the index's once its scan is done,
 * else found here.  Returns 0, -pte_canceled or -pte_nomem. */
static int sc_psbs(struct sc_state *s)
{
	struct search_code_job *j = s->j;
	struct img_cursor cur;
	struct idx_seek sk;
	size_t cap = 0, i, n = j->idx && idx_scan_done(j->idx) ? idx_nseeks(j->idx) : 0;
	uint64_t off = 0, *p;

	if (n) {
		s->psb = malloc(n * sizeof(*s->psb));
		if (!s->psb)
			return -pte_nomem;
		for (i = 0; i < n && !idx_seek(j->idx, i, &sk); i++)
			s->psb[i] = sk.offset;
		s->npsb = i;
		return 0;
	}
	if (img_cursor_init(&cur, j->img, 0) < 0)
		return 0;
	while (!img_cursor_sync_forward(&cur, off)) {
		if (s->npsb == cap) {
			cap = cap ? 2 * cap : 1024;
			p = realloc(s->psb, cap * sizeof(*p));
			if (!p)
				return -pte_nomem;
			s->psb = p;
		}
		s->psb[s->npsb++] = img_cursor_offset(&cur);
		off = img_cursor_offset(&cur) + 1;
		if (!(s->npsb & 1023) && atomic_load(j->cancel))
			return -pte_canceled;
	}
	return 0;
}

/* Groups of segments and the order the search meets them in. */
static int sc_plan(struct sc_state *s)
{
	struct search_code_job *j = s->j;
	size_t i, k, cg = 0;
	uint64_t start = 0;

	s->gfirst = malloc((s->npsb + 1) * sizeof(*s->gfirst));
	if (!s->gfirst)
		return -pte_nomem;
	for (i = 0; i < s->npsb; i++) {
		if (!s->ngroups || i - s->gfirst[s->ngroups - 1] >= SC_UNIT_SEGS ||
		    s->psb[i] - start >= SC_UNIT_BYTES) {
			s->gfirst[s->ngroups++] = i;
			start = s->psb[i];
		}
		if (s->psb[i] <= j->from)
			cg = s->ngroups - 1;
	}
	s->gfirst[s->ngroups] = s->npsb;
	s->order = malloc((s->ngroups ? s->ngroups : 1) * sizeof(*s->order));
	s->res = calloc(s->ngroups ? s->ngroups : 1, sizeof(*s->res));
	if (!s->order || !s->res)
		return -pte_nomem;
	for (k = 0; k < s->ngroups; k++)
		s->order[k] = j->dir > 0 ? (cg + k) % s->ngroups :
			      (cg + s->ngroups - k) % s->ngroups;
	return 0;
}

/* The groups' hits, in offset order, into j->hits. */
static int sc_collect(struct sc_state *s)
{
	struct search_code_job *j = s->j;
	size_t g, n = 0;

	for (g = 0; g < s->ngroups; g++)
		n += s->res[g].n;
	j->hits = malloc((n ? n : 1) * sizeof(*j->hits));
	if (!j->hits)
		return -pte_nomem;
	for (g = 0; g < s->ngroups; g++) {
		if (s->res[g].n)
			memcpy(j->hits + j->nhits, s->res[g].v, s->res[g].n * sizeof(*j->hits));
		j->nhits += s->res[g].n;
	}
	return 0;
}

int search_code_find(struct search_code_job *j)
{
	struct sc_state s;
	struct pool_cfg cfg;
	struct pool *p = NULL;
	size_t g;
	unsigned w;
	int r;

	if (!j || !j->sc || !j->img || !j->cancel)
		return -pte_invalid;
	memset(&s, 0, sizeof(s));
	s.j = j;
	if (j->tm)
		s.tm = *j->tm;
	j->hits = NULL;
	j->nhits = 0;
	atomic_store(&j->total, j->img->size ? j->img->size : 1);
	r = sc_psbs(&s);
	if (!r)
		r = sc_plan(&s);
	if (!r && s.ngroups) {
		/* what lies before the first PSB cannot be decoded */
		atomic_store(&j->done, s.psb[0]);
		memset(&cfg, 0, sizeof(cfg));
		cfg.nthreads = j->nthreads;
		cfg.nunits = s.ngroups;
		cfg.window = 4 * (size_t)pool_threads(j->nthreads);
		cfg.run = sc_run;
		cfg.ctx = &s;
		cfg.cancel = j->cancel;
		r = pool_start(&p, &cfg);
		if (!r)
			r = pool_merge(p, sc_merge);
		pool_free(p);
	}
	if (!r)
		r = sc_collect(&s);
	for (w = 0; w < POOL_MAX_THREADS; w++)
		code_dec_free(s.dec[w]);
	for (g = 0; s.res && g < s.ngroups; g++)
		free(s.res[g].v);
	free(s.res);
	free(s.order);
	free(s.gfirst);
	free(s.psb);
	if (!r)
		atomic_store(&j->done, atomic_load(&j->total));
	return r;
}
