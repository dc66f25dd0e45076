/* ctidx -- the code index: a call tree fragment per chunk (see ctidx.h). */
#include "ctidx.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

#include "calltree.h"
#include "ctdec.h"
#include "ctflow.h"
#include "idxcache.h"
#include "index.h"
#include "ptdec.h"
#include "safefile.h"
#include "trace.h"

/* Fragments of fan^L chunks (level L, ctidx_opts.fan) merged ahead of
 * time, up to CTIDX_LEVELS - 1, so that a range merges a few of each
 * level: each merge has a fixed cost besides its fragment's nodes (a
 * merged fragment holds about as many nodes as its parts together). */
#define CTIDX_LEVELS 4
/* Chunks a worker takes at a time (a multiple of the highest level's):
 * each batch decodes the window before its first chunk's boundary
 * again, and one past its last. */
#define CTIDX_BATCH 64
#define CTIDX_MAX_THREADS 8

/* A chunk: its boundary and, once made, its fragment (packed). */
struct ctidx_chunk {
	uint64_t off;			/* B_k, a PSB */
	size_t seek;			/* its seek point in the index */
	struct ct_pack *_Atomic frag;	/* NULL until published */
};

/* Decoders kept for the ranges asked for: warm (their block caches, their
 * symbols), where a new one would start with both empty and allocate
 * them again for each range. */
#define CTIDX_POOL 4
struct ctidx_pool {
	pthread_mutex_t mu;
	struct ctdec *dec[CTIDX_POOL];
	size_t n;
};

struct ctidx {
	struct ctidx_opts o;
	struct ctidx_pool *pool;
	uint64_t grid, size;
	struct ctidx_chunk *ch;
	size_t n;
	size_t fan;
	struct ct_pack *_Atomic *up[CTIDX_LEVELS];	/* [1..]: level L's
							 * fragment j covers
							 * chunks [j, j + 1)
							 * * fan^L */
	pthread_t th[CTIDX_MAX_THREADS];
	unsigned nth;
	int started;
	struct timespec t0;
	_Atomic size_t next;		/* the next batch's first chunk */
	_Atomic int cancel;
	_Atomic int status;
	_Atomic unsigned running;	/* workers not done */
	_Atomic uint64_t done;		/* bytes of chunks published */
	_Atomic size_t bytes, nfrags, nups;
	_Atomic uint64_t elapsed_ns;	/* set by the last worker */
	char *cache;			/* ctidx_opts.cache, key: copies */
	void *key;
	char *names;			/* a loaded index's names */
	_Atomic int loading;		/* the cache is being read: wait */
	_Atomic int load_claim;		/* a worker reads it */
	_Atomic int loaded, saved;	/* ctidx_progress()'s */
	char save_err[512];	/* why the save failed, written before saved */
};

static double ctidx_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

/* The boundaries: each seek point with a multiple of the grid in
 * (the previous one's offset, its own]. */
static int ctidx_bounds(struct ctidx *ci)
{
	size_t i, ns = idx_nseeks(ci->o.idx), cap = 0;
	uint64_t prev = 0;
	struct idx_seek sk;

	for (i = 0; i < ns; i++) {
		if (idx_seek(ci->o.idx, i, &sk) < 0)
			return -pte_internal;
		if (i && sk.offset / ci->grid == prev / ci->grid) {
			prev = sk.offset;
			continue;
		}
		prev = sk.offset;
		if (ci->n == cap) {
			struct ctidx_chunk *c;

			cap = cap ? 2 * cap : 1024;
			c = realloc(ci->ch, cap * sizeof(*c));
			if (!c)
				return -pte_nomem;
			ci->ch = c;
		}
		ci->ch[ci->n].off = sk.offset;
		ci->ch[ci->n].seek = i;
		atomic_init(&ci->ch[ci->n].frag, NULL);
		ci->n++;
	}
	return 0;
}

int ctidx_new(struct ctidx **out, const struct ctidx_opts *o)
{
	struct ctidx *ci;
	struct idx_progress p;
	size_t l, span;
	int r;

	if (!out || !o || !o->t || !o->set || !o->idx || o->stream < 0 ||
	    (size_t)o->stream >= o->t->nstreams)
		return -pte_invalid;
	idx_progress(o->idx, &p);
	if (!p.finished || p.status || idx_ncarried(o->idx) < idx_nseeks(o->idx))
		return -pte_invalid;
	ci = calloc(1, sizeof(*ci));
	if (!ci)
		return -pte_nomem;
	ci->o = *o;
	ci->grid = o->grid ? o->grid : CTF_GRID;
	ci->fan = o->fan == 2 || o->fan == 4 ? o->fan : 0;
	if (!ci->o.max_bytes)
		ci->o.max_bytes = CTIDX_MAX_BYTES;
	if (!ci->o.nthreads)
		ci->o.nthreads = 2;
	if (ci->o.nthreads > CTIDX_MAX_THREADS)
		ci->o.nthreads = CTIDX_MAX_THREADS;
	ci->size = o->t->streams[o->stream].img.size;
	ci->o.cache = NULL;
	ci->o.key = NULL;
	if (o->cache) {
		ci->cache = strdup(o->cache);
		ci->key = malloc(o->keylen ? o->keylen : 1);
		if (!ci->cache || !ci->key) {
			free(ci->cache);
			free(ci->key);
			free(ci);
			return -pte_nomem;
		}
		if (o->keylen)
			memcpy(ci->key, o->key, o->keylen);
	}
	atomic_init(&ci->next, 0);
	ci->pool = calloc(1, sizeof(*ci->pool));
	if (!ci->pool || pthread_mutex_init(&ci->pool->mu, NULL)) {
		free(ci->pool);
		free(ci->cache);
		free(ci->key);
		free(ci);
		return -pte_nomem;
	}
	r = ctidx_bounds(ci);
	for (l = 1, span = ci->fan; !r && ci->fan && l < CTIDX_LEVELS; l++, span *= ci->fan) {
		ci->up[l] = calloc(ci->n / span + 1, sizeof(*ci->up[l]));
		if (!ci->up[l])
			r = -pte_nomem;
	}
	if (r < 0) {
		ctidx_free(ci);
		return r;
	}
	*out = ci;
	return 0;
}

uint64_t ctidx_grid(const struct ctidx *ci)
{
	return ci ? ci->grid : CTF_GRID;
}

uint64_t ctidx_cut_off(const struct ctidx *ci, size_t k)
{
	return k < ci->n ? ci->ch[k].off : ci->size;
}

int ctidx_cut(const struct ctidx *ci, size_t k, struct ctidx_cut *c)
{
	struct idx_seek sk;
	int r;

	if (!ci || !c || !k || k >= ci->n || !ci->ch[k].seek)
		return -pte_invalid;
	c->off = ci->ch[k].off;
	if (idx_seek(ci->o.idx, ci->ch[k].seek - 1, &sk) < 0)
		return -pte_invalid;
	c->prev = sk.offset;
	r = idx_seek_carry(ci->o.idx, ci->ch[k].seek, &c->at);
	if (!r)
		r = idx_seek_carry(ci->o.idx, ci->ch[k].seek - 1, &c->before);
	return r ? (r > 0 ? -pte_invalid : r) : 0;
}

/* The first chunk whose boundary is above @off (ci->n if none). */
static size_t ctidx_above(const struct ctidx *ci, uint64_t off)
{
	size_t lo = 0, hi = ci->n;

	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;

		if (ci->ch[m].off > off)
			hi = m;
		else
			lo = m + 1;
	}
	return lo;
}

int ctidx_plan(const struct ctidx *ci, uint64_t from, uint64_t to,
	       struct ctidx_plan *p)
{
	struct idx_seek sk;
	size_t i;

	if (!ci || !p || to <= from)
		return -pte_invalid;
	/* the range's first PSB, as ctf_range() finds it */
	if (idx_find(ci->o.idx, from, &i) < 0)
		i = 0;
	if (idx_seek(ci->o.idx, i, &sk) < 0)
		return 1;
	if (sk.offset < from && idx_seek(ci->o.idx, ++i, &sk) < 0)
		return 1;
	p->start = sk.offset;
	p->ka = ctidx_above(ci, p->start);
	if (p->ka >= ci->n || ci->ch[p->ka].off >= to)
		return 1;
	p->kb = ctidx_above(ci, to - 1) - 1;
	/* chunk kb - 1's window reads on to the PSB after B_kb: inside the
	 * range only if that PSB is */
	p->kend = p->kb;
	if (p->kb > p->ka &&
	    (idx_seek(ci->o.idx, ci->ch[p->kb].seek + 1, &sk) < 0 || sk.offset > to))
		p->kend = p->kb - 1;
	return 0;
}

int ctidx_covers(const struct ctidx *ci, size_t ka, size_t kb)
{
	size_t k;

	if (!ci || kb > ci->n)
		return 0;
	for (k = ka; k < kb; k++)
		if (!atomic_load(&ci->ch[k].frag))
			return 0;
	return 1;
}

/* The chunks a fragment of level @l covers: fan^l. */
static size_t ctidx_span(const struct ctidx *ci, size_t l)
{
	size_t span = 1;

	while (l--)
		span *= ci->fan;
	return span;
}

/* The fragment of the @span chunks from @k at level @l (0: chunk k's), or
 * NULL if not made. */
static struct ct_pack *ctidx_frag(const struct ctidx *ci, size_t l, size_t span,
				  size_t k)
{
	return l ? atomic_load(&ci->up[l][k / span]) : atomic_load(&ci->ch[k].frag);
}

int ctidx_merge(const struct ctidx *ci, struct ct *dst, size_t ka, size_t kb)
{
	size_t k, l, span;
	int r;

	if (!ci || !dst || kb > ci->n)
		return -pte_invalid;
	for (k = ka; k < kb; k += span) {
		struct ct_pack *f = NULL;

		/* the longest fragment made that starts here and fits */
		for (l = ci->fan ? CTIDX_LEVELS - 1 : 0, span = 1; l; l--) {
			size_t s = ctidx_span(ci, l);

			if (k % s || k + s > kb)
				continue;
			f = ctidx_frag(ci, l, s, k);
			if (f) {
				span = s;
				break;
			}
		}
		if (!f)
			f = ctidx_frag(ci, 0, 1, k);
		if (!f)
			return -pte_invalid;
		r = ct_merge_pack(dst, f);
		if (r < 0)
			return r;
	}
	return 0;
}

/* A worker's batch of chunks being made. */
struct ctidx_batch {
	struct ctidx *ci;
	struct ctdec *d;
	size_t k, end;		/* the chunk fed now; the batch's end */
	struct ct *cur;		/* its fragment */
};

/* Publish the current chunk's fragment, packed.  Returns 0 or -pte_nomem
 * (out of memory, or past the budget). */
static int ctidx_publish(struct ctidx_batch *b)
{
	struct ctidx *ci = b->ci;
	struct ct_pack *p;
	size_t k = b->k;
	int r = ct_finish(b->cur);

	if (!r)
		r = ct_frag_pack(b->cur, &p);
	ct_free(b->cur);
	b->cur = NULL;
	if (r < 0)
		return r;
	atomic_fetch_add(&ci->bytes, ct_pack_bytes(p));
	atomic_store(&ci->ch[k].frag, p);
	atomic_fetch_add(&ci->nfrags, 1);
	atomic_fetch_add(&ci->done, ctidx_cut_off(ci, k + 1) - ci->ch[k].off);
	return atomic_load(&ci->bytes) > ci->o.max_bytes ? -pte_nomem : 0;
}

/* ctf_opts.window: a window starts at the next boundary: the chunk before
 * is made; the next one gets a fragment of its own, or the batch ends. */
static int ctidx_window(void *arg, uint64_t at, struct ct **ct)
{
	struct ctidx_batch *b = arg;
	int r;

	if (b->cur && at == b->ci->ch[b->k].off && *ct == b->cur)
		return 0;	/* the batch's first window */
	r = ctidx_publish(b);
	if (r < 0)
		return r;
	if (++b->k >= b->end)
		return 1;
	if (at != b->ci->ch[b->k].off)
		return -pte_internal;	/* the decode's grid is not ours */
	r = ct_new_frag(&b->cur, ct_resolve_symfmt, ctdec_symfmt(b->d));
	if (r < 0)
		return r;
	*ct = b->cur;
	return 0;
}

/* Make the fragments of chunks [@k0, @k1) (0 < k0 < k1 < ci->n).
 * Returns 0 or a negative pte code. */
static int ctidx_batch(struct ctidx *ci, struct ctdec *d, size_t k0, size_t k1)
{
	struct ctidx_batch b = { ci, d, k0, k1, NULL };
	struct ctidx_cut c;
	struct ctf_opts o;
	int r;

	r = ctidx_cut(ci, k0, &c);
	if (r < 0)
		return r;
	r = ct_new_frag(&b.cur, ct_resolve_symfmt, ctdec_symfmt(d));
	if (r < 0)
		return r;
	memset(&o, 0, sizeof(o));
	ctdec_opts(d, &o);
	o.tm = ci->o.tm;
	o.chunk = ci->grid;
	o.carry = &c.at;
	o.resume = 1;
	o.resume_psb = c.prev;
	o.resume_carry = &c.before;
	o.cancel = &ci->cancel;
	o.window = ctidx_window;
	o.window_ctx = &b;
	/* on to the boundary after the batch's end, where the hook stops */
	r = ctf_range(b.cur, ctdec_flow(d), &ci->o.t->streams[ci->o.stream].img,
		      c.off, ctidx_cut_off(ci, k1 + 1), &o);
	ct_free(b.cur);
	return r;
}

/* The fragment of level @l's block @j: its ci->fan parts (level l - 1)
 * merged in order, if all are made.  Returns 0 (also when a part is
 * missing: no fragment then) or a negative pte code. */
static int ctidx_up(struct ctidx *ci, struct ctdec *d, size_t l, size_t j)
{
	struct ct *f;
	struct ct_pack *p;
	size_t i, span = ctidx_span(ci, l - 1), part;
	int r;

	for (i = 0; i < ci->fan; i++)
		if (!ctidx_frag(ci, l - 1, span, (j * ci->fan + i) * span))
			return 0;
	r = ct_new_frag(&f, ct_resolve_symfmt, ctdec_symfmt(d));
	for (i = 0; !r && i < ci->fan; i++) {
		part = (j * ci->fan + i) * span;
		r = ct_merge_pack(f, ctidx_frag(ci, l - 1, span, part));
	}
	if (!r)
		r = ct_finish(f);
	if (!r)
		r = ct_frag_pack(f, &p);
	ct_free(f);
	if (r < 0)
		return r;
	atomic_fetch_add(&ci->bytes, ct_pack_bytes(p));
	atomic_store(&ci->up[l][j], p);
	atomic_fetch_add(&ci->nups, 1);
	return atomic_load(&ci->bytes) > ci->o.max_bytes ? -pte_nomem : 0;
}

/* The higher levels' fragments inside batch [@k0, @k0 + CTIDX_BATCH).
 * Returns 0 or a negative pte code. */
static int ctidx_ups(struct ctidx *ci, struct ctdec *d, size_t k0)
{
	size_t l, j, span = 1;
	int r;

	for (l = 1; l < CTIDX_LEVELS; l++) {
		span *= ci->fan;
		for (j = k0 / span; j < (k0 + CTIDX_BATCH) / span && (j + 1) * span <= ci->n; j++) {
			r = ctidx_up(ci, d, l, j);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/* A worker's thread's priority: below the browser's. */
static void ctidx_nice(int nice)
{
#ifdef SYS_gettid
	if (nice)
		setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), nice);
#else
	(void)nice;
#endif
}

static int ctidx_read(struct ctidx *ci, const char *path, const void *key,
		      size_t keylen);

/* The first worker loads the cache file if there is one; the others wait
 * for it.  Returns 0 or a negative pte code. */
static int ctidx_load_first(struct ctidx *ci)
{
	struct timespec ms = { 0, 1000000 };
	int r;

	if (atomic_exchange(&ci->load_claim, 1)) {
		while (atomic_load(&ci->loading) && !atomic_load(&ci->cancel))
			nanosleep(&ms, NULL);
		return 0;
	}
	r = ci->cache ? ctidx_read(ci, ci->cache, ci->key, ci->o.keylen) : 1;
	if (!r) {
		atomic_store(&ci->loaded, 1);
		atomic_store(&ci->next, ci->n);	/* nothing left to make */
	}
	atomic_store(&ci->loading, 0);
	return r < 0 ? r : 0;
}

static int ctidx_work(void *arg)
{
	struct ctidx *ci = arg;
	struct ctdec *d;
	size_t k0;
	int r;

	r = ctidx_load_first(ci);
	if (r < 0 || atomic_load(&ci->loaded))
		return r;
	r = ctdec_new(&d, ci->o.t, ci->o.stream, ci->o.set);
	if (r < 0)
		return r;
	/* chunk 0 starts at the first PSB (no decode passes through it), and
	 * the last is never inside a range (no boundary follows it) */
	while (!atomic_load(&ci->cancel) &&
	       (k0 = atomic_fetch_add(&ci->next, CTIDX_BATCH)) + 1 < ci->n) {
		r = ctidx_batch(ci, d, k0 ? k0 : 1, k0 + CTIDX_BATCH < ci->n - 1 ?
				k0 + CTIDX_BATCH : ci->n - 1);
		if (!r && ci->fan)
			r = ctidx_ups(ci, d, k0);
		if (r < 0)
			break;
	}
	ctdec_free(d);
	return r;
}

static void *ctidx_worker(void *arg)
{
	struct ctidx *ci = arg;
	int r, zero = 0;

	ctidx_nice(ci->o.nice);
	r = trace_guard(ctidx_work, ci);
	if (r < 0) {
		/* the first failure is the build's; the others stop */
		atomic_compare_exchange_strong(&ci->status, &zero, r);
		atomic_store(&ci->cancel, 1);
	}
	if (atomic_fetch_sub(&ci->running, 1) == 1) {
		atomic_store(&ci->elapsed_ns, (uint64_t)(ctidx_since(&ci->t0) * 1e9));
		/* made, not loaded: saved for the next session (after the
		 * end is reported: only the cache waits for it) */
		if (ci->cache && !atomic_load(&ci->loaded) && !atomic_load(&ci->status) &&
		    !atomic_load(&ci->cancel)) {
			r = ctidx_save(ci, ci->cache, ci->key, ci->o.keylen, &ci->cancel,
				       ci->save_err, sizeof(ci->save_err));
			atomic_store(&ci->saved, r < 0 ? r : 1);
			/* (within the cache's limit, the trace's own files
			 * kept; after a failed write too: a full disk failed
			 * every save, and the cache stayed over its limit) */
			if (r >= 0 || r == -pte_io)
				(void)idxcache_trim(ci->cache, NULL, 0);
		}
	}
	return NULL;
}

int ctidx_start(struct ctidx *ci)
{
	unsigned i;

	if (!ci || ci->started)
		return -pte_invalid;
	ci->started = 1;
	clock_gettime(CLOCK_MONOTONIC, &ci->t0);
	atomic_store(&ci->loading, 1);
	atomic_store(&ci->running, ci->o.nthreads);
	for (i = 0; i < ci->o.nthreads; i++) {
		if (pthread_create(&ci->th[i], NULL, ctidx_worker, ci))
			break;
		ci->nth++;
	}
	/* the workers that did not start are done */
	if (i < ci->o.nthreads &&
	    atomic_fetch_sub(&ci->running, ci->o.nthreads - i) == ci->o.nthreads - i)
		atomic_store(&ci->elapsed_ns, (uint64_t)(ctidx_since(&ci->t0) * 1e9));
	return ci->nth ? 0 : -pte_nomem;
}

void ctidx_cancel(struct ctidx *ci)
{
	if (ci)
		atomic_store(&ci->cancel, 1);
}

int ctidx_wait(struct ctidx *ci)
{
	unsigned i;

	if (!ci)
		return -pte_invalid;
	for (i = 0; i < ci->nth; i++)
		pthread_join(ci->th[i], NULL);
	ci->nth = 0;
	if (!atomic_load(&ci->status) && atomic_load(&ci->cancel))
		return -pte_canceled;
	return atomic_load(&ci->status);
}

void ctidx_free(struct ctidx *ci)
{
	size_t k, l, span;

	if (!ci)
		return;
	ctidx_cancel(ci);
	ctidx_wait(ci);
	for (k = 0; k < ci->n; k++)
		ct_pack_free(atomic_load(&ci->ch[k].frag));
	for (l = 1, span = ci->fan; ci->fan && l < CTIDX_LEVELS; l++, span *= ci->fan) {
		for (k = 0; ci->up[l] && k < ci->n / span + 1; k++)
			ct_pack_free(atomic_load(&ci->up[l][k]));
		free(ci->up[l]);
	}
	free(ci->ch);
	free(ci->names);
	free(ci->cache);
	free(ci->key);
	while (ci->pool->n)
		ctdec_free(ci->pool->dec[--ci->pool->n]);
	pthread_mutex_destroy(&ci->pool->mu);
	free(ci->pool);
	free(ci);
}

int ctidx_dec_get(const struct ctidx *ci, struct ctdec **out)
{
	struct ctidx_pool *pl;

	if (!ci || !out)
		return -pte_invalid;
	pl = ci->pool;
	*out = NULL;
	pthread_mutex_lock(&pl->mu);
	if (pl->n)
		*out = pl->dec[--pl->n];
	pthread_mutex_unlock(&pl->mu);
	if (*out)
		return 0;
	return ctdec_new(out, ci->o.t, ci->o.stream, ci->o.set);
}

void ctidx_dec_put(const struct ctidx *ci, struct ctdec *d)
{
	struct ctidx_pool *pl;

	if (!ci || !d) {
		ctdec_free(d);
		return;
	}
	pl = ci->pool;
	pthread_mutex_lock(&pl->mu);
	if (pl->n < CTIDX_POOL) {
		pl->dec[pl->n++] = d;
		d = NULL;
	}
	pthread_mutex_unlock(&pl->mu);
	ctdec_free(d);
}

void ctidx_progress(const struct ctidx *ci, struct ctidx_progress *p)
{
	memset(p, 0, sizeof(*p));
	if (!ci)
		return;
	p->total = ci->size;
	p->done = atomic_load(&ci->done);
	p->nchunks = ci->n;
	p->nfrags = atomic_load(&ci->nfrags);
	p->nups = atomic_load(&ci->nups);
	p->bytes = atomic_load(&ci->bytes);
	p->max_bytes = ci->o.max_bytes;
	p->started = ci->started;
	p->loading = ci->started && ci->cache && atomic_load(&ci->loading);
	p->loaded = atomic_load(&ci->loaded);
	p->saved = atomic_load(&ci->saved);
	p->save_err = p->saved < 0 ? ci->save_err : NULL;
	p->finished = ci->started && !atomic_load(&ci->running);
	p->elapsed = p->finished ? (double)atomic_load(&ci->elapsed_ns) * 1e-9 :
		     ci->started ? ctidx_since(&ci->t0) : 0;
	p->status = atomic_load(&ci->status);
	if (p->finished && !p->status && atomic_load(&ci->cancel))
		p->status = -pte_canceled;
}

/* The file (ctidx.h): "PTBCODEX", then the header, the packs, the names,
 * where the names start and the XXH3 of everything before it. */
static const char ctidx_magic[8] = { 'P', 'T', 'B', 'C', 'O', 'D', 'E', 'X' };

/* Level @l's number of fragment slots (0: the chunks). */
static size_t ctidx_nslots(const struct ctidx *ci, size_t l)
{
	return l ? ci->n / ctidx_span(ci, l) + 1 : ci->n;
}

static _Atomic(struct ct_pack *) *ctidx_slot(struct ctidx *ci, size_t l, size_t j)
{
	return l ? &ci->up[l][j] : &ci->ch[j].frag;
}

/* The names written so far, numbered from 1 in order of first use. */
struct ctidx_names {
	const char **v;
	size_t n, cap;
	uint32_t *slot;		/* open addressing: a name's number */
	size_t nslot;		/* a power of two */
	int nomem;
};

static uint64_t ctidx_hash_str(const char *s)
{
	return XXH3_64bits(s, strlen(s));
}

static int ctidx_names_grow(struct ctidx_names *nm)
{
	size_t ns = nm->nslot ? 2 * nm->nslot : 1024, i, h;
	uint32_t *slot = calloc(ns, sizeof(*slot));
	const char **v = realloc(nm->v, ns / 2 * sizeof(*v));

	if (!slot || !v) {
		free(slot);
		if (v)
			nm->v = v;
		return -pte_nomem;
	}
	nm->v = v;
	nm->cap = ns / 2;
	for (i = 0; i < nm->n; i++) {
		for (h = ctidx_hash_str(nm->v[i]) & (ns - 1); slot[h]; h = (h + 1) & (ns - 1))
			;
		slot[h] = (uint32_t)i + 1;
	}
	free(nm->slot);
	nm->slot = slot;
	nm->nslot = ns;
	return 0;
}

/* ct_name_map_fn: a name's number (as a pointer). */
static const char *ctidx_name_num(void *ctx, const char *name)
{
	struct ctidx_names *nm = ctx;
	size_t h;

	if (nm->n >= nm->cap && ctidx_names_grow(nm) < 0) {
		nm->nomem = 1;
		return NULL;
	}
	for (h = ctidx_hash_str(name) & (nm->nslot - 1); nm->slot[h];
	     h = (h + 1) & (nm->nslot - 1))
		if (!strcmp(nm->v[nm->slot[h] - 1], name))
			return (const char *)(uintptr_t)nm->slot[h];
	nm->v[nm->n++] = name;
	nm->slot[h] = (uint32_t)nm->n;
	return (const char *)(uintptr_t)nm->n;
}

/* A buffered writer hashing what it writes. */
struct ctidx_w {
	struct safefile *f;
	XXH3_state_t st;
	int bad;
	uint64_t total;		/* bytes put */
	size_t n;
	uint8_t buf[1 << 16];
};

static void ctidx_flush(struct ctidx_w *w)
{
	if (!w->bad && w->n && safefile_write(w->f, w->buf, w->n) < 0)
		w->bad = 1;
	w->n = 0;
}

static void ctidx_put(struct ctidx_w *w, const void *p, size_t n)
{
	XXH3_64bits_update(&w->st, p, n);
	w->total += n;
	if (n > sizeof(w->buf) - w->n) {
		ctidx_flush(w);
		if (n > sizeof(w->buf)) {
			if (!w->bad && safefile_write(w->f, p, n) < 0)
				w->bad = 1;
			return;
		}
	}
	memcpy(w->buf + w->n, p, n);
	w->n += n;
}

static void ctidx_put64(struct ctidx_w *w, uint64_t v)
{
	ctidx_put(w, &v, sizeof(v));
}

/* The header: what the fragments were made from. */
static void ctidx_put_head(struct ctidx_w *w, const struct ctidx *ci,
			   const void *key, size_t keylen)
{
	size_t k;

	ctidx_put(w, ctidx_magic, sizeof(ctidx_magic));
	ctidx_put64(w, CTIDX_FILE_VERSION);
	ctidx_put64(w, ci->fan);
	ctidx_put64(w, ci->grid);
	ctidx_put64(w, ci->size);
	ctidx_put64(w, ci->n);
	for (k = 0; k < ci->n; k++)
		ctidx_put64(w, ci->ch[k].off);
	ctidx_put64(w, keylen);
	ctidx_put(w, key, keylen);
}

/* Every fragment, its names numbered into @nm.  Returns 0, -pte_canceled
 * or -pte_nomem. */
static int ctidx_put_packs(struct ctidx_w *w, const struct ctidx *ci,
			   struct ctidx_names *nm, const _Atomic int *cancel)
{
	size_t l, j, len;
	int r;

	for (l = 0; l < (ci->fan ? CTIDX_LEVELS : 1); l++) {
		for (j = 0; j < ctidx_nslots(ci, l); j++) {
			struct ct_pack *p = atomic_load(ctidx_slot((struct ctidx *)ci, l, j)), *q;
			const void *data;

			if (cancel && atomic_load(cancel))
				return -pte_canceled;
			if (!p) {
				ctidx_put64(w, 0);
				continue;
			}
			r = ct_pack_map(p, ctidx_name_num, nm, &q);
			if (r < 0)
				return nm->nomem || r == -pte_nomem ? -pte_nomem : -pte_internal;
			data = ct_pack_data(q, &len);
			ctidx_put64(w, (uint64_t)len + 1);
			ctidx_put(w, data, len);
			ct_pack_free(q);
		}
	}
	return 0;
}

/* Remove what saves of @path killed half way left beside it (their
 * temporary files, as big as the file): nothing else would. */
static void ctidx_clean_dead(const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path),
			 path);
	(void)safefile_clean_dead(dir, slash ? slash + 1 : path, NULL);
}

int ctidx_save(const struct ctidx *ci, const char *path, const void *key,
	       size_t keylen, const _Atomic int *cancel, char *err, size_t errlen)
{
	/* a cache (as idxcache's): no fsync, a file cut short fails its
	 * hash; a damaged one is replaced (it is ours), the trace never */
	struct safefile_keep keep = { 0, 0, "the trace" };
	struct safefile_opts so = { .flags = SAFEFILE_NOFOLLOW | SAFEFILE_NOSYNC,
				    .mode = 0600, .keep = &keep, .nkeep = 1 };
	struct ctidx_names nm = { 0 };
	struct ctidx_w *w;
	uint64_t noff, h;
	size_t i;
	int r;

	if (!ci || !path || (!key && keylen) || !ci->started ||
	    atomic_load(&ci->running) || atomic_load(&ci->status) || atomic_load(&ci->cancel))
		return -pte_invalid;
	keep.dev = ci->o.t->dev;
	keep.ino = ci->o.t->ino;
	ctidx_clean_dead(path);
	w = calloc(1, sizeof(*w));
	if (!w)
		return -pte_nomem;
	XXH3_INITSTATE(&w->st);
	XXH3_64bits_reset(&w->st);
	r = safefile_create(&w->f, path, &so, err, errlen);
	if (r < 0)
		goto out;
	ctidx_put_head(w, ci, key, keylen);
	r = ctidx_put_packs(w, ci, &nm, cancel);
	if (r < 0)
		goto out;
	/* the names after the packs, where the loader finds them first */
	noff = w->total;
	ctidx_put64(w, nm.n);
	for (i = 0; i < nm.n; i++)
		ctidx_put(w, nm.v[i], strlen(nm.v[i]) + 1);
	ctidx_put64(w, noff);
	h = XXH3_64bits_digest(&w->st);
	ctidx_put64(w, h);
	ctidx_flush(w);
	if (w->bad) {
		snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
		r = -pte_io;
		goto out;
	}
	r = safefile_commit(w->f, err, errlen) < 0 ? -pte_io : 0;
	w->f = NULL;
out:
	safefile_abort(w->f);
	free(nm.v);
	free(nm.slot);
	free(w);
	return r;
}

/* A file being read: every length checked against what is left. */
struct ctidx_r {
	const uint8_t *p;
	size_t pos, len;
	int bad;
};

static const void *ctidx_get(struct ctidx_r *r, size_t n)
{
	const void *p = r->p + r->pos;

	if (r->bad || n > r->len - r->pos) {
		r->bad = 1;
		return NULL;
	}
	r->pos += n;
	return p;
}

static uint64_t ctidx_get64(struct ctidx_r *r)
{
	const void *p = ctidx_get(r, sizeof(uint64_t));
	uint64_t v = 0;

	if (p)
		memcpy(&v, p, sizeof(v));
	return v;
}

/* Whether the header is @ci's, made with @key. */
static int ctidx_same_head(struct ctidx_r *r, const struct ctidx *ci,
			   const void *key, size_t keylen)
{
	const void *m = ctidx_get(r, sizeof(ctidx_magic));
	size_t k;

	if (!m || memcmp(m, ctidx_magic, sizeof(ctidx_magic)) ||
	    ctidx_get64(r) != CTIDX_FILE_VERSION || ctidx_get64(r) != ci->fan ||
	    ctidx_get64(r) != ci->grid || ctidx_get64(r) != ci->size ||
	    ctidx_get64(r) != ci->n)
		return 0;
	for (k = 0; k < ci->n; k++)
		if (ctidx_get64(r) != ci->ch[k].off)
			return 0;
	if (ctidx_get64(r) != keylen)
		return 0;
	m = ctidx_get(r, keylen);
	return m && !r->bad && (!keylen || !memcmp(m, key, keylen));
}

/* The loaded names: numbers back to strings (ct_name_map_fn). */
struct ctidx_lnames {
	const char **v;
	uint64_t n;
};

static const char *ctidx_name_str(void *ctx, const char *name)
{
	const struct ctidx_lnames *ln = ctx;
	uintptr_t i = (uintptr_t)name;

	return i >= 1 && i <= ln->n ? ln->v[i - 1] : NULL;
}

/* The names of a file whose last 16 bytes are read: a copy owned by @ci.
 * Returns 0, 1 if they do not read back, or -pte_nomem. */
static int ctidx_get_names(struct ctidx *ci, const uint8_t *p, size_t len,
			   struct ctidx_lnames *ln)
{
	struct ctidx_r r = { p, 0, len, 0 };
	uint64_t i, n = ctidx_get64(&r);
	char *s;

	if (r.bad || n > len)
		return 1;
	ci->names = malloc(len - r.pos + 1);
	ln->v = calloc(n ? n : 1, sizeof(*ln->v));
	if (!ci->names || !ln->v)
		return -pte_nomem;
	memcpy(ci->names, p + r.pos, len - r.pos);
	ci->names[len - r.pos] = 0;
	for (i = 0, s = ci->names; i < n; i++) {
		char *end = memchr(s, 0, (size_t)(ci->names + (len - r.pos) - s));

		if (!end)
			return 1;
		ln->v[i] = s;
		s = end + 1;
	}
	ln->n = n;
	return 0;
}

/* The packs, into @ci's empty slots.  Returns 0, 1 if they do not read
 * back, -pte_canceled or -pte_nomem. */
static int ctidx_get_packs(struct ctidx *ci, struct ctidx_r *r,
			   struct ctidx_lnames *ln)
{
	size_t l, j;
	int ret;

	for (l = 0; l < (ci->fan ? CTIDX_LEVELS : 1); l++) {
		for (j = 0; j < ctidx_nslots(ci, l); j++) {
			uint64_t len = ctidx_get64(r);
			const void *data;
			struct ct_pack *raw, *p;

			if (atomic_load(&ci->cancel))
				return -pte_canceled;
			if (!len)
				continue;
			data = ctidx_get(r, (size_t)(len - 1));
			if (!data || len - 1 > SIZE_MAX - 1)
				return 1;
			ret = ct_pack_new(data, (size_t)(len - 1), &raw);
			if (ret < 0)
				return ret;
			ret = ct_pack_map(raw, ctidx_name_str, ln, &p);
			ct_pack_free(raw);
			if (ret < 0)
				return ret == -pte_nomem ? ret : 1;
			atomic_store(ctidx_slot(ci, l, j), p);
			atomic_fetch_add(&ci->bytes, ct_pack_bytes(p));
			if (l) {
				atomic_fetch_add(&ci->nups, 1);
				continue;
			}
			atomic_fetch_add(&ci->nfrags, 1);
			atomic_fetch_add(&ci->done, ctidx_cut_off(ci, j + 1) - ci->ch[j].off);
		}
	}
	return 0;
}

/* Drop every fragment (a load that failed half way). */
static void ctidx_drop(struct ctidx *ci)
{
	size_t l, j;

	for (l = 0; l < (ci->fan ? CTIDX_LEVELS : 1); l++)
		for (j = 0; j < ctidx_nslots(ci, l); j++)
			ct_pack_free(atomic_exchange(ctidx_slot(ci, l, j), NULL));
	free(ci->names);
	ci->names = NULL;
	atomic_store(&ci->bytes, 0);
	atomic_store(&ci->nfrags, 0);
	atomic_store(&ci->nups, 0);
	atomic_store(&ci->done, 0);
}

/* Mark the cache file @fd (opened at @path), just loaded, used: its mtime
 * becomes now, what idxcache_trim() removes the oldest by, as
 * idxcache_load() marks the index.  Else a code index loaded while its
 * index was rebuilt kept the mtime of its save and went first.  Never a
 * link's target: only the file the name itself is. */
static void ctidx_touch(int fd, const char *path)
{
	struct stat st, lst;

	if (!fstat(fd, &st) && !lstat(path, &lst) && S_ISREG(lst.st_mode) &&
	    lst.st_dev == st.st_dev && lst.st_ino == st.st_ino)
		(void)futimens(fd, NULL);
}

/* Read @path's fragments into @ci (a load marks the file used).  Returns
 * 0, 1 if not loaded, -pte_canceled or -pte_nomem. */
static int ctidx_read(struct ctidx *ci, const char *path, const void *key,
		      size_t keylen)
{
	struct ctidx_lnames ln = { 0 };
	struct ctidx_r r = { 0 };
	struct stat st;
	void *map = MAP_FAILED;
	uint64_t noff, h;
	int fd, ret = 1;

	fd = safefile_open_read(path, 0);
	if (fd < 0)
		return 1;
	if (fstat(fd, &st) || st.st_size < 64 || (uint64_t)st.st_size > SIZE_MAX)
		goto out;
	r.len = (size_t)st.st_size;
	map = mmap(NULL, r.len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		goto out;
	r.p = map;
	memcpy(&h, r.p + r.len - 8, 8);
	memcpy(&noff, r.p + r.len - 16, 8);
	if (XXH3_64bits(r.p, r.len - 8) != h || noff > r.len - 16)
		goto out;
	ret = ctidx_get_names(ci, r.p + noff, r.len - 16 - (size_t)noff, &ln);
	if (ret)
		goto out;
	/* the header and the packs end where the names start */
	r.len = (size_t)noff;
	ret = ctidx_same_head(&r, ci, key, keylen) ? 0 : 1;
	if (!ret)
		ret = ctidx_get_packs(ci, &r, &ln);
	if (!ret && r.pos != r.len)
		ret = 1;
out:
	if (ret)
		ctidx_drop(ci);
	else
		ctidx_touch(fd, path);
	free(ln.v);
	if (map != MAP_FAILED)
		munmap(map, (size_t)st.st_size);
	close(fd);
	return ret;
}

int ctidx_load(struct ctidx *ci, const char *path, const void *key, size_t keylen)
{
	int r;

	if (!ci || !path || (!key && keylen) || ci->started)
		return -pte_invalid;
	r = ctidx_read(ci, path, key, keylen);
	if (r)
		return r;
	ci->started = 1;
	clock_gettime(CLOCK_MONOTONIC, &ci->t0);
	atomic_store(&ci->loaded, 1);
	atomic_store(&ci->running, 0);
	return 0;
}
