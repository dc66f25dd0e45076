/* search_code -- searches for instructions: sym, call, ret (see
 * search_code.h). */
#include <pthread.h>
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
#include "memimg.h"
#include "pool.h"
#include "ptdec.h"
#include "search.h"
#include "search_code.h"
#include "tm_config.h"
#include "trace.h"

/* A unit of work: this many PSB segments at most; near the cursor one,
 * then two, four ..., so that a hit near it shows after little work. */
#define SC_UNIT_SEGS 64

/* A name's places: in every address space (r) and, for the quick look at
 * an IP, their union (iv: sorted, disjoint [start, end) pairs). */
struct sc_name {
	const char *name;
	const char *plt;	/* call's: its PLT stub's name too (a call
				 * through the PLT is a call of the function,
				 * as the call tree counts it), or NULL */
	struct imgopt_frange *r;
	size_t nr;
	uint64_t *iv;
	size_t niv;
};

struct search_code {
	unsigned code;		/* enum ctxterm_code */
	char sym[128], call[128], callplt[136];
	struct sc_name symn, calln;
};

/* Hits, growing. */
struct sc_vec {
	uint64_t *v;
	size_t n, cap;
};

/* A unit: segments [a, b). */
struct sc_span {
	size_t a, b;
};

struct sc_state {
	struct search_code_job *j;
	size_t merged;		/* units 0 .. merged - 1 are done (sc_known_lock) */
	struct idx *idx;	/* the PSBs: the index's, else */
	uint64_t *psb;		/* found here */
	size_t npsb;
	size_t cseg;		/* the segment of j->from */
	struct sc_span *u;	/* the units, in the search's order */
	size_t nu, capu;
	struct sc_vec *res;	/* per unit */
	struct code_dec *dec[POOL_MAX_THREADS];	/* per worker */
	struct tm_config tm;
};

/*
 * Decoders kept from one search to the next: a decoder's table of decoded
 * blocks is megabytes to fill and then warm, which is most of the time to
 * a first hit near the cursor.  Keyed by what they decode.
 */
#define SC_SPARE 8

struct sc_spare {
	struct code_dec *d;
	const struct imgset *set;
	const struct img *img;
	uint64_t size;
	int stream;
	struct tm_config tm;
};

static pthread_mutex_t sc_spare_lock = PTHREAD_MUTEX_INITIALIZER;
/* Guards search_code_job.priv and sc_state.merged: n and N read the done
 * units' hits while the search runs. */
static pthread_mutex_t sc_known_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sc_spare sc_spares[SC_SPARE];

/* A decoder for @j's stream: a kept one, else a new one.  Returns it, or
 * NULL when out of memory. */
static struct code_dec *sc_take(const struct search_code_job *j, const struct tm_config *tm)
{
	struct code_dec *d = NULL;
	size_t i;

	pthread_mutex_lock(&sc_spare_lock);
	for (i = 0; i < SC_SPARE && !d; i++) {
		struct sc_spare *p = &sc_spares[i];

		if (p->d && p->set == j->set && p->img == j->img && p->size == j->img->size &&
		    p->stream == j->stream && !memcmp(&p->tm, tm, sizeof(*tm))) {
			d = p->d;
			p->d = NULL;
		}
	}
	pthread_mutex_unlock(&sc_spare_lock);
	if (!d && code_dec_new(&d, j->set, j->stream, j->img, tm) < 0)
		return NULL;
	return d;
}

/* Keep @d (made by sc_take() for @j) for the next search. */
static void sc_give(struct code_dec *d, const struct search_code_job *j,
		    const struct tm_config *tm)
{
	size_t i;

	if (!d)
		return;
	pthread_mutex_lock(&sc_spare_lock);
	for (i = 0; i < SC_SPARE && d; i++) {
		struct sc_spare *p = &sc_spares[i];

		if (p->d)
			continue;
		p->d = d;
		p->set = j->set;
		p->img = j->img;
		p->size = j->img->size;
		p->stream = j->stream;
		p->tm = *tm;
		d = NULL;
	}
	pthread_mutex_unlock(&sc_spare_lock);
	code_dec_free(d);	/* no room */
}

void search_code_flush(void)
{
	size_t i;

	pthread_mutex_lock(&sc_spare_lock);
	for (i = 0; i < SC_SPARE; i++) {
		code_dec_free(sc_spares[i].d);
		sc_spares[i].d = NULL;
	}
	pthread_mutex_unlock(&sc_spare_lock);
}

static int sc_iv_cmp(const void *a, const void *b)
{
	const struct imgopt_frange *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int sc_one_name(void *arg, const char *name)
{
	(void)name;
	*(int *)arg = 1;
	return 0;
}

/* Whether any symbol table of @set names a function.  Returns 1 or 0. */
static int sc_has_symbols(const struct imgset *set)
{
	int any = 0;

	return imgopt_symbol_names(set, "", 1, sc_one_name, &any) == 0 && any;
}

/* Resolve @n->name in @set.  Returns 0, or -pte_invalid (said in @err),
 * or -pte_nomem. */
static int sc_resolve(struct sc_name *n, const struct imgset *set, const char *what,
		      char *err, size_t errlen)
{
	struct imgopt_frange *tmp, *pr = NULL;
	size_t i, npr = 0;
	int r = imgopt_find_function(set, n->name, &n->r, &n->nr);

	if (r < 0)
		return r;
	if (n->plt) {
		/* and the PLT stubs' places, after the function's */
		r = imgopt_find_function(set, n->plt, &pr, &npr);
		if (r < 0)
			return r;
		if (npr) {
			tmp = realloc(n->r, (n->nr + npr) * sizeof(*tmp));
			if (!tmp) {
				free(pr);
				return -pte_nomem;
			}
			memcpy(tmp + n->nr, pr, npr * sizeof(*pr));
			n->r = tmp;
			n->nr += npr;
		}
		free(pr);
	}
	if (!n->nr) {
		/* no code, or code without symbols: not a name missing */
		snprintf(err, errlen, "%s %s: %s", what, n->name,
			 !mi_count(imgopt_mi(set)) ? "no code given (--raw, --elf or a "
			 "perf.data's files)" : !sc_has_symbols(set) ?
			 "no symbols in the code given (a raw dump has none)" :
			 "no function of that name in the code's symbols");
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
	snprintf(sc->callplt, sizeof(sc->callplt), "%s@plt", sc->call);
	sc->calln.plt = sc->callplt;
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

/* Whether @ip, read in address space @asid (the record's, flow_rec.asid:
 * what flow and the code view name it by), is in function @n: in one of
 * its places at all, then by the name at @ip there. */
static int sc_in(const struct sc_name *n, const struct imgset *set, uint64_t asid,
		 uint64_t ip)
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
	return !imgopt_function(set, asid, ip, &name, &a, &b) &&
	       (!strcmp(name, n->name) || (n->plt && !strcmp(name, n->plt)));
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
		   const struct code_dec *d, const struct flow_rec *r)
{
	if ((sc->code & CTXTERM_RET) && r->iclass != FLOW_IC_RETURN &&
	    r->iclass != FLOW_IC_FAR_RETURN)
		return 0;
	if ((sc->code & CTXTERM_CALL) && r->iclass != FLOW_IC_CALL &&
	    r->iclass != FLOW_IC_FAR_CALL)
		return 0;
	return !(sc->code & CTXTERM_SYM) ||
	       sc_in(&sc->symn, set, code_dec_rec_asid(d, r), r->ip);
}

/* Whether record @r after a call is its target (an instruction, or where
 * tracing stopped at a TIP.PGD with its IP): 1, 0 if the flow breaks
 * there (no target), -1 if it is passed over (sc_passes()). */
static int sc_target(const struct flow_rec *r)
{
	if (r->kind == FLOW_EVENT && sc_passes(r))
		return -1;
	return r->kind == FLOW_INSN ||
	       (r->kind == FLOW_EVENT && r->ev == FLOW_EV_DISABLED &&
		!(r->flags & FLOW_F_NOIP));
}

int search_code_line(const struct search_code *sc, const struct imgset *set,
		     const struct code_dec *d, const struct flow_window *w, size_t line)
{
	const struct flow_rec *r;
	size_t k;
	int t;

	if (!sc || !w || line >= w->nlines)
		return 0;
	r = &w->lines[line].r;
	if (r->kind != FLOW_INSN || !sc_insn(sc, set, d, r))
		return 0;
	if (!(sc->code & CTXTERM_CALL))
		return 1;
	for (k = line + 1; k < w->nlines; k++) {
		r = &w->lines[k].r;
		t = sc_target(r);
		if (t < 0)
			continue;
		return t && sc_in(&sc->calln, set, code_dec_rec_asid(d, r), r->ip);
	}
	/* the target in the next segment: the search saw it, this window
	 * does not (the call is the packet's row to show) */
	return 1;
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
	uint64_t call_off = 0, k = 0;
	int pending = 0, ret = 0, e;

	if (code_dec_restart(d) < 0 || flow_seek(f, psb, end2) < 0)
		return -pte_nomem;
	while (!ret && !(e = flow_next(f, &r))) {
		/* a new search waits for this one to stop: soon */
		if (!(++k & 4095) && atomic_load(s->j->cancel))
			return -pte_canceled;
		if (pending) {
			int t = sc_target(&r);

			if (t < 0)
				continue;
			pending = 0;
			/* named where its code was read (flow_rec.asid) */
			if (t && sc_in(&sc->calln, set, code_dec_rec_asid(d, &r), r.ip))
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

/* The PSB of segment @i. */
static uint64_t sc_psb(const struct sc_state *s, size_t i)
{
	struct idx_seek sk;

	if (!s->idx)
		return s->psb[i];
	return idx_seek(s->idx, i, &sk) ? s->j->img->size : sk.offset;
}

/* The end of segment @i. */
static uint64_t sc_seg_end(const struct sc_state *s, size_t i)
{
	return i + 1 < s->npsb ? sc_psb(s, i + 1) : s->j->img->size;
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
	size_t a = s->u[u->unit].a, b = s->u[u->unit].b;
	struct sc_vec *v = &s->res[u->unit];
	struct code_dec **d = &s->dec[u->worker];
	int r = 0;

	if (atomic_load(s->j->cancel))
		return -pte_canceled;
	if (!*d && !(*d = sc_take(s->j, &s->tm)))
		return -pte_nomem;
	/* the unit's segments in one decode, from the PSB before them */
	if (sc_kept(s->j, sc_psb(s, a), sc_seg_end(s, b - 1)))
		r = sc_segment(s, *d, sc_psb(s, a ? a - 1 : 0), sc_psb(s, a),
			       sc_seg_end(s, b - 1),
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
	const struct sc_vec *v = &s->res[k];
	uint64_t a = sc_psb(s, s->u[k].a), b = sc_seg_end(s, s->u[k].b - 1);
	size_t i;
	int have = 0;
	uint64_t hit = 0;

	atomic_fetch_add(&j->done, b - a);
	pthread_mutex_lock(&sc_known_lock);
	s->merged = k + 1;
	pthread_mutex_unlock(&sc_known_lock);
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
		atomic_store(&j->first_wrapped, j->dir > 0 ? s->u[k].a < s->cseg :
			     s->u[k].a > s->cseg);
		atomic_store(&j->have_first, 1);
	}
	return 0;
}

/* The PSBs of the stream: the index's once its scan is done, else found
 * here into s->psb; and the cursor's segment.  Returns 0, -pte_canceled or
 * -pte_nomem. */
static int sc_psbs(struct sc_state *s)
{
	struct search_code_job *j = s->j;
	struct img_cursor cur;
	size_t cap = 0, lo, hi, mid;
	uint64_t off = 0, *p;

	if (j->idx && idx_scan_done(j->idx) && idx_nseeks(j->idx)) {
		s->idx = j->idx;
		s->npsb = idx_nseeks(j->idx);
		if (idx_find(j->idx, j->from, &s->cseg))
			s->cseg = 0;
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
	for (lo = 0, hi = s->npsb; lo < hi;) {	/* the last PSB at or before from */
		mid = lo + (hi - lo) / 2;
		if (s->psb[mid] <= j->from)
			lo = mid + 1;
		else
			hi = mid;
	}
	s->cseg = lo ? lo - 1 : 0;
	return 0;
}

static int sc_push(struct sc_state *s, size_t a, size_t b)
{
	struct sc_span *p;

	if (s->nu == s->capu) {
		s->capu = s->capu ? 2 * s->capu : 64;
		p = realloc(s->u, s->capu * sizeof(*p));
		if (!p)
			return -pte_nomem;
		s->u = p;
	}
	s->u[s->nu].a = a;
	s->u[s->nu].b = b;
	s->nu++;
	return 0;
}

/* The units in the order the search meets them: from the cursor's
 * segment in its direction, one segment, then twice as many each time up
 * to SC_UNIT_SEGS, to the end; then round from the other end. */
static int sc_plan(struct sc_state *s)
{
	size_t c = s->cseg, n = s->npsb, i, len = 1;
	int r = 0;

	if (s->j->dir > 0) {
		for (i = c; i < n && !r; len = len < SC_UNIT_SEGS ? 2 * len : len) {
			r = sc_push(s, i, i + len < n ? i + len : n);
			i = s->u[s->nu - 1].b;
		}
		for (i = 0; i < c && !r; i = s->u[s->nu - 1].b)
			r = sc_push(s, i, i + SC_UNIT_SEGS < c ? i + SC_UNIT_SEGS : c);
	} else {
		for (i = c + 1; i > 0 && !r; len = len < SC_UNIT_SEGS ? 2 * len : len) {
			r = sc_push(s, i > len ? i - len : 0, i);
			i = s->u[s->nu - 1].a;
		}
		for (i = n; i > c + 1 && !r; i = s->u[s->nu - 1].a)
			r = sc_push(s, i - (c + 1) > SC_UNIT_SEGS ? i - SC_UNIT_SEGS : c + 1, i);
	}
	if (r)
		return r;
	s->res = calloc(s->nu ? s->nu : 1, sizeof(*s->res));
	return s->res ? 0 : -pte_nomem;
}

static int sc_span_cmp(const void *x, const void *y)
{
	const struct sc_span *a = *(const struct sc_span *const *)x;
	const struct sc_span *b = *(const struct sc_span *const *)y;

	return a->a < b->a ? -1 : a->a > b->a;
}

/* The hits of units 0 .. @nu - 1 (all of them, or those done before a
 * cancel), in offset order, into j->hits. */
static int sc_collect(struct sc_state *s, size_t nu)
{
	struct search_code_job *j = s->j;
	struct sc_span **by = malloc((nu ? nu : 1) * sizeof(*by));
	size_t k, u, n = 0;

	if (!by)
		return -pte_nomem;
	for (k = 0; k < nu; k++) {
		by[k] = &s->u[k];
		n += s->res[k].n;
	}
	qsort(by, nu, sizeof(*by), sc_span_cmp);
	j->hits = malloc((n ? n : 1) * sizeof(*j->hits));
	if (!j->hits) {
		free(by);
		return -pte_nomem;
	}
	for (k = 0; k < nu; k++) {
		u = (size_t)(by[k] - s->u);
		if (s->res[u].n)
			memcpy(j->hits + j->nhits, s->res[u].v, s->res[u].n * sizeof(*j->hits));
		j->nhits += s->res[u].n;
	}
	free(by);
	return 0;
}

/* The unit holding the @t'th of the done units before the wrap, by
 * offset: forward they come in offset order, backward in reverse. */
static size_t sc_known_unit(const struct sc_state *s, size_t mw, size_t t)
{
	return s->j->dir > 0 ? t : mw - 1 - t;
}

/* search_code_known() with the lock held. */
static int sc_known(const struct sc_state *s, uint64_t off, int dir, uint64_t *hit)
{
	const struct sc_vec *v;
	size_t mw, lo, hi, mid, t, i;

	for (mw = 0; mw < s->merged && (s->j->dir > 0 ? s->u[mw].a >= s->cseg :
					 s->u[mw].b <= s->cseg + 1); mw++)
		;
	if (!mw || off < sc_psb(s, s->u[sc_known_unit(s, mw, 0)].a) ||
	    off >= sc_seg_end(s, s->u[sc_known_unit(s, mw, mw - 1)].b - 1))
		return 1;
	for (lo = 0, hi = mw; lo + 1 < hi;) {	/* the unit holding @off */
		mid = lo + (hi - lo) / 2;
		if (sc_psb(s, s->u[sc_known_unit(s, mw, mid)].a) <= off)
			lo = mid;
		else
			hi = mid;
	}
	for (t = lo; t < mw; dir > 0 ? t++ : t--) {
		v = &s->res[sc_known_unit(s, mw, t)];
		for (lo = 0, hi = v->n; lo < hi;) {	/* the first hit >= off */
			mid = lo + (hi - lo) / 2;
			if (v->v[mid] < off)
				lo = mid + 1;
			else
				hi = mid;
		}
		i = dir > 0 && lo < v->n && v->v[lo] == off ? lo + 1 : lo;
		if (dir > 0 && i < v->n) {
			*hit = v->v[i];
			return 0;
		}
		if (dir < 0 && lo > 0) {
			*hit = v->v[lo - 1];
			return 0;
		}
		if (dir < 0 && !t)
			break;
	}
	return 1;
}

int search_code_known(struct search_code_job *j, uint64_t off, int dir, uint64_t *hit)
{
	int r = 1;

	pthread_mutex_lock(&sc_known_lock);
	if (j && j->priv)
		r = sc_known(j->priv, off, dir, hit);
	pthread_mutex_unlock(&sc_known_lock);
	return r;
}

int search_code_find(struct search_code_job *j)
{
	struct sc_state s;
	struct pool_cfg cfg;
	struct pool *p = NULL;
	size_t k;
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
	if (!r && s.nu) {
		/* what lies before the first PSB cannot be decoded */
		atomic_store(&j->done, sc_psb(&s, 0));
		memset(&cfg, 0, sizeof(cfg));
		cfg.nthreads = j->nthreads;
		cfg.nunits = s.nu;
		cfg.window = 4 * (size_t)pool_threads(j->nthreads);
		cfg.run = sc_run;
		cfg.ctx = &s;
		cfg.cancel = j->cancel;
		pthread_mutex_lock(&sc_known_lock);
		j->priv = &s;
		pthread_mutex_unlock(&sc_known_lock);
		r = pool_start(&p, &cfg);
		if (!r)
			r = pool_merge(p, sc_merge);
		pool_free(p);
	}
	pthread_mutex_lock(&sc_known_lock);
	j->priv = NULL;	/* what it reads goes now */
	pthread_mutex_unlock(&sc_known_lock);
	/* stopped: the hits of the part done stay (a region round the
	 * cursor, each unit whole) */
	if (!r || r == -pte_canceled) {
		int c = sc_collect(&s, r ? s.merged : s.nu);

		r = c ? c : r;
	}
	for (w = 0; w < POOL_MAX_THREADS; w++)
		sc_give(s.dec[w], j, &s.tm);
	for (k = 0; s.res && k < s.nu; k++)
		free(s.res[k].v);
	free(s.res);
	free(s.u);
	free(s.psb);
	if (!r)
		atomic_store(&j->done, atomic_load(&j->total));
	return r;
}
