/* memimg -- code segments by address space (see memimg.h). */
#include "memimg.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ptdec.h"

struct mi_seg {
	uint64_t asid;
	uint64_t addr;		/* first byte */
	uint64_t end;		/* one past the last byte */
	const uint8_t *data;
	uint64_t file_off;	/* the offset in its file of its first byte */
	char *name;
	void *map;		/* set if mi_add_raw() mapped it */
	size_t maplen;
};

/* A run of addresses [lo, hi) where one segment is the newest of a view. */
struct mi_run {
	uint64_t lo, hi;
	size_t seg;
};

/* The newest segment at each address among some segments: those of one
 * address space, those of every space (MI_ASID_ANY), or all of them. */
struct mi_view {
	uint64_t asid;
	struct mi_run *runs;	/* by address, disjoint */
	size_t nruns;
	size_t last;		/* the run the last look-up found (a hint) */
};

/* The segments added before it, by address: look-ups are logarithmic in
 * their number.  Later segments (the tail) are looked at one by one until
 * there are more than MI_TAIL of them, so that adding code and looking up
 * in turn (imgopt_load() does) does not rebuild it every time. */
struct mi_index {
	size_t nseg;		/* it covers segs[0, nseg) */
	struct mi_view all;	/* every segment: reads in MI_ASID_ANY */
	struct mi_view any;	/* the segments in every space */
	struct mi_view *spaces;	/* one per other asid, by asid */
	size_t nspaces;
	size_t lastsp;		/* the space the last look-up used (a hint) */
	uint64_t *starts;	/* every segment's first byte, sorted */
};

#define MI_TAIL 16

struct mi {
	struct mi_seg *segs;	/* in the order added: later ones win */
	size_t n, cap;
	struct mi_index *idx;	/* built on the first look-up after adds */
	pthread_mutex_t lock;	/* held to rebuild idx */
};

static void index_free(struct mi_index *x);

int mi_new(struct mi **out)
{
	struct mi *mi;

	if (!out)
		return -pte_invalid;
	mi = calloc(1, sizeof(*mi));
	if (!mi)
		return -pte_nomem;
	pthread_mutex_init(&mi->lock, NULL);
	*out = mi;
	return 0;
}

void mi_free(struct mi *mi)
{
	size_t i;

	if (!mi)
		return;
	for (i = 0; i < mi->n; i++) {
		if (mi->segs[i].map)
			munmap(mi->segs[i].map, mi->segs[i].maplen);
		free(mi->segs[i].name);
	}
	free(mi->segs);
	index_free(mi->idx);
	pthread_mutex_destroy(&mi->lock);
	free(mi);
}

static int seg_push(struct mi *mi, const struct mi_seg *s)
{
	if (mi->n == mi->cap) {
		size_t cap = mi->cap ? 2 * mi->cap : 16;
		struct mi_seg *p = realloc(mi->segs, cap * sizeof(*p));

		if (!p)
			return -pte_nomem;
		mi->segs = p;
		mi->cap = cap;
	}
	mi->segs[mi->n++] = *s;
	return 0;
}

int mi_add(struct mi *mi, uint64_t asid, uint64_t addr, const uint8_t *data,
	   uint64_t size, const char *name)
{
	return mi_add_file(mi, asid, addr, data, size, name, 0);
}

int mi_add_file(struct mi *mi, uint64_t asid, uint64_t addr, const uint8_t *data,
		uint64_t size, const char *name, uint64_t file_off)
{
	struct mi_seg s = { 0 };
	int err;

	if (!mi || !data || !size || addr + size < addr)
		return -pte_invalid;
	s.asid = asid;
	s.addr = addr;
	s.end = addr + size;
	s.data = data;
	s.file_off = file_off;
	s.name = strdup(name ? name : "?");
	if (!s.name)
		return -pte_nomem;
	err = seg_push(mi, &s);
	if (err)
		free(s.name);
	return err;
}

static int asid_match(const struct mi_seg *s, uint64_t asid)
{
	return s->asid == MI_ASID_ANY || asid == MI_ASID_ANY || s->asid == asid;
}

int mi_raw_spec(const char *spec, unsigned long long *addr, char *err, size_t errlen)
{
	const char *colon = strrchr(spec, ':');
	char *end;

	if (!colon || colon == spec || !colon[1]) {
		snprintf(err, errlen, "--raw %s: expected FILE:ADDR (e.g. code.bin:0x400000)",
			 spec);
		return -pte_invalid;
	}
	errno = 0;
	*addr = strtoull(colon + 1, &end, 0);
	if (errno || *end || colon[1] == '-') {
		snprintf(err, errlen, "--raw %s: bad address '%s' (expected a number such as 0x400000)",
			 spec, colon + 1);
		return -pte_invalid;
	}
	return 0;
}

int mi_add_raw(struct mi *mi, const char *spec, char *err, size_t errlen)
{
	const char *colon;
	unsigned long long addr;
	struct mi_seg s = { 0 };
	struct stat st;
	char *file;
	void *map;
	size_t i;
	int fd, ret;

	if (!mi || !spec || !err)
		return -pte_invalid;
	ret = mi_raw_spec(spec, &addr, err, errlen);
	if (ret < 0)
		return ret;
	colon = strrchr(spec, ':');
	file = strndup(spec, (size_t)(colon - spec));
	if (!file)
		return -pte_nomem;
	fd = open(file, O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		snprintf(err, errlen, "%s: %s", file, strerror(errno));
		ret = -pte_io;
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", file);
		ret = -pte_invalid;
		goto out_close;
	}
	if (!st.st_size) {
		snprintf(err, errlen, "%s: empty file: no code to load at 0x%llx", file, addr);
		ret = -pte_invalid;
		goto out_close;
	}
	if (addr + (uint64_t)st.st_size < addr) {
		snprintf(err, errlen, "%s: %lld bytes at 0x%llx run past the end of the address space",
			 file, (long long)st.st_size, addr);
		ret = -pte_invalid;
		goto out_close;
	}
	for (i = 0; i < mi->n; i++) {
		const struct mi_seg *o = &mi->segs[i];

		if (o->asid == MI_ASID_ANY && addr < o->end &&
		    o->addr < addr + (uint64_t)st.st_size) {
			snprintf(err, errlen, "%s at 0x%llx-0x%llx overlaps %s at 0x%" PRIx64
				 "-0x%" PRIx64, file, addr,
				 addr + (uint64_t)st.st_size - 1, o->name, o->addr,
				 o->end - 1);
			ret = -pte_invalid;
			goto out_close;
		}
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		snprintf(err, errlen, "%s: cannot map: %s", file, strerror(errno));
		ret = -pte_io;
		goto out_close;
	}
	s.asid = MI_ASID_ANY;
	s.addr = addr;
	s.end = addr + (uint64_t)st.st_size;
	s.data = map;
	s.name = file;
	s.map = map;
	s.maplen = (size_t)st.st_size;
	ret = seg_push(mi, &s);
	if (ret) {
		munmap(map, s.maplen);
		goto out_close;
	}
	file = NULL;	/* the segment owns it */
out_close:
	if (fd >= 0)
		close(fd);
	free(file);
	return ret;
}

static void index_free(struct mi_index *x)
{
	size_t i;

	if (!x)
		return;
	for (i = 0; i < x->nspaces; i++)
		free(x->spaces[i].runs);
	free(x->spaces);
	free(x->all.runs);
	free(x->any.runs);
	free(x->starts);
	free(x);
}

/* Sift @heap[@i] (segment indices, the newest on top) down. */
static void heap_down(size_t *heap, size_t n, size_t i)
{
	for (;;) {
		size_t c = 2 * i + 1, t;

		if (c >= n)
			return;
		if (c + 1 < n && heap[c + 1] > heap[c])
			c++;
		if (heap[i] >= heap[c])
			return;
		t = heap[i];
		heap[i] = heap[c];
		heap[c] = t;
		i = c;
	}
}

static void heap_push(size_t *heap, size_t *n, size_t seg)
{
	size_t i = (*n)++;

	heap[i] = seg;
	while (i && heap[(i - 1) / 2] < heap[i]) {
		size_t p = (i - 1) / 2, t = heap[p];

		heap[p] = heap[i];
		heap[i] = t;
		i = p;
	}
}

/* Fill @v with the newest of the @m segments @ord names (sorted by first
 * byte) at each address: a sweep keeping the segments that cover the
 * current address in a heap, the newest on top; ones that have ended are
 * dropped when they come to the top.  @heap has room for @m.
 * Returns 0 or -pte_nomem. */
static int view_build(struct mi_view *v, const struct mi_seg *segs,
		      const size_t *ord, size_t m, size_t *heap)
{
	size_t p = 0, nh = 0;
	uint64_t x = 0, nx;

	v->runs = malloc((2 * m + 1) * sizeof(*v->runs));
	if (!v->runs)
		return -pte_nomem;
	v->nruns = 0;
	v->last = 0;
	for (;;) {
		struct mi_run *prev = v->nruns ? &v->runs[v->nruns - 1] : NULL;
		size_t top;

		while (p < m && segs[ord[p]].addr <= x)
			heap_push(heap, &nh, ord[p++]);
		while (nh && segs[heap[0]].end <= x) {
			heap[0] = heap[--nh];
			heap_down(heap, nh, 0);
		}
		if (!nh) {
			if (p == m)
				return 0;
			x = segs[ord[p]].addr;
			continue;
		}
		top = heap[0];
		nx = segs[top].end;
		if (p < m && segs[ord[p]].addr < nx)
			nx = segs[ord[p]].addr;
		if (prev && prev->hi == x && prev->seg == top)
			prev->hi = nx;
		else
			v->runs[v->nruns++] = (struct mi_run){ x, nx, top };
		x = nx;
	}
}

/* A segment as the index sorts it. */
struct mi_key {
	uint64_t asid, addr;
	size_t seg;
};

/* By address space, then first byte (the order views are built in). */
static int key_cmp(const void *a, const void *b)
{
	const struct mi_key *x = a, *y = b;

	if (x->asid != y->asid)
		return x->asid < y->asid ? -1 : 1;
	return (x->addr > y->addr) - (x->addr < y->addr);
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Build the views of each address space of @x->nseg segments from @ord
 * (their indices, by address space then first byte; MI_ASID_ANY sorts
 * last).  Returns 0 or -pte_nomem. */
static int index_spaces(struct mi_index *x, const struct mi_seg *segs,
			const size_t *ord, size_t *heap)
{
	size_t i, j, n = x->nseg, nsp = 0;
	int ret;

	for (i = 0; i < n; i++)
		if (segs[ord[i]].asid != MI_ASID_ANY &&
		    (!i || segs[ord[i]].asid != segs[ord[i - 1]].asid))
			nsp++;
	x->spaces = calloc(nsp ? nsp : 1, sizeof(*x->spaces));
	if (!x->spaces)
		return -pte_nomem;
	for (i = 0; i < n; i = j) {
		struct mi_view *v;

		for (j = i; j < n && segs[ord[j]].asid == segs[ord[i]].asid; j++)
			;
		v = segs[ord[i]].asid == MI_ASID_ANY ? &x->any :
		    &x->spaces[x->nspaces++];
		v->asid = segs[ord[i]].asid;
		ret = view_build(v, segs, ord + i, j - i, heap);
		if (ret)
			return ret;
	}
	return 0;
}

/* Sort @n segments into @ord: by address space then first byte, or (if
 * @by_addr) by first byte alone.  Returns 0 or -pte_nomem. */
static int index_order(const struct mi_seg *segs, size_t n, int by_addr,
		       size_t *ord)
{
	struct mi_key *k = malloc((n ? n : 1) * sizeof(*k));
	size_t i;

	if (!k)
		return -pte_nomem;
	for (i = 0; i < n; i++)
		k[i] = (struct mi_key){ by_addr ? 0 : segs[i].asid,
					segs[i].addr, i };
	qsort(k, n, sizeof(*k), key_cmp);
	for (i = 0; i < n; i++)
		ord[i] = k[i].seg;
	free(k);
	return 0;
}

/* A new index of @mi's segments, or NULL if out of memory. */
static struct mi_index *index_build(const struct mi *mi)
{
	struct mi_index *x = calloc(1, sizeof(*x));
	size_t i, n = mi->n, *ord, *heap;
	int ret = -pte_nomem;

	ord = malloc((n ? n : 1) * sizeof(*ord));
	heap = malloc((n ? n : 1) * sizeof(*heap));
	if (x)
		x->starts = malloc((n ? n : 1) * sizeof(*x->starts));
	if (!x || !ord || !heap || !x->starts)
		goto out_free;
	x->nseg = n;
	for (i = 0; i < n; i++)
		x->starts[i] = mi->segs[i].addr;
	qsort(x->starts, n, sizeof(*x->starts), u64_cmp);
	ret = index_order(mi->segs, n, 0, ord);
	if (!ret)
		ret = index_spaces(x, mi->segs, ord, heap);
	if (!ret)
		ret = index_order(mi->segs, n, 1, ord);
	if (!ret)
		ret = view_build(&x->all, mi->segs, ord, n, heap);
out_free:
	free(ord);
	free(heap);
	if (ret) {
		index_free(x);
		return NULL;
	}
	return x;
}

/* @mi's index, rebuilt if more than MI_TAIL segments came after it; NULL
 * if there is none (few segments, or out of memory: look-ups then walk
 * them all, as the tail is walked). */
static struct mi_index *index_get(const struct mi *cmi)
{
	struct mi *mi = (struct mi *)cmi;	/* the index is a cache */
	struct mi_index *x = __atomic_load_n(&mi->idx, __ATOMIC_ACQUIRE);

	if (mi->n - (x ? x->nseg : 0) <= MI_TAIL)
		return x;
	pthread_mutex_lock(&mi->lock);
	x = mi->idx;
	if (mi->n - (x ? x->nseg : 0) > MI_TAIL) {
		struct mi_index *nx = index_build(mi);

		if (nx) {
			/* every thread that loaded the old one is waiting
			 * here (no segment is added while others read) */
			index_free(x);
			__atomic_store_n(&mi->idx, nx, __ATOMIC_RELEASE);
			x = nx;
		}
	}
	pthread_mutex_unlock(&mi->lock);
	return x;
}

/* Into *@best view @v's segment at @at if it is newer, and into *@lim
 * where @v's answer next changes (past @at) if that is sooner. */
static void view_probe(struct mi_view *v, uint64_t at, long *best,
		       uint64_t *lim)
{
	/* read once: threads sharing the image (a decoding and a feeding
	 * one, the browser and a job) each move the hint */
	size_t r = __atomic_load_n(&v->last, __ATOMIC_RELAXED);
	size_t lo = 0, hi = v->nruns;

	/* sequential reads stay in a run or go on to the next */
	if (r < v->nruns && v->runs[r].lo <= at && at >= v->runs[r].hi &&
	    r + 1 < v->nruns && v->runs[r + 1].lo <= at)
		r++;
	if (r >= v->nruns || at < v->runs[r].lo || at >= v->runs[r].hi) {
		while (lo < hi) {	/* the first run ending past @at */
			size_t mid = lo + (hi - lo) / 2;

			if (v->runs[mid].hi <= at)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == v->nruns)
			return;
		r = lo;
		if (v->runs[r].lo > at) {
			if (v->runs[r].lo < *lim)
				*lim = v->runs[r].lo;
			return;
		}
	}
	__atomic_store_n(&v->last, r, __ATOMIC_RELAXED);
	if ((long)v->runs[r].seg > *best)
		*best = (long)v->runs[r].seg;
	if (v->runs[r].hi < *lim)
		*lim = v->runs[r].hi;
}

/* The view of the segments of @asid alone, or NULL if it has none. */
static struct mi_view *space_of(struct mi_index *x, uint64_t asid)
{
	size_t lo = 0, hi = x->nspaces;
	size_t h = __atomic_load_n(&x->lastsp, __ATOMIC_RELAXED);

	if (h < x->nspaces && x->spaces[h].asid == asid)
		return &x->spaces[h];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (x->spaces[mid].asid < asid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == x->nspaces || x->spaces[lo].asid != asid)
		return NULL;
	__atomic_store_n(&x->lastsp, lo, __ATOMIC_RELAXED);
	return &x->spaces[lo];
}

/* The newest segment holding @at in @asid, or -1; into *@lim (if it holds
 * one) an address past @at up to which that answer holds.  @x is
 * index_get()'s. */
static long find(const struct mi *mi, struct mi_index *x, uint64_t asid,
		 uint64_t at, uint64_t *lim)
{
	uint64_t l = UINT64_MAX;
	long best = -1;
	size_t j;

	if (x && asid == MI_ASID_ANY) {
		view_probe(&x->all, at, &best, &l);
	} else if (x) {
		struct mi_view *v = space_of(x, asid);

		view_probe(&x->any, at, &best, &l);
		if (v)
			view_probe(v, at, &best, &l);
	}
	/* the segments added since: newer than any in the index */
	for (j = x ? x->nseg : 0; j < mi->n; j++) {
		const struct mi_seg *s = &mi->segs[j];

		if (!asid_match(s, asid) || s->end <= at)
			continue;
		if (s->addr <= at)
			best = (long)j;
		if (s->addr > at && s->addr < l)
			l = s->addr;
		else if (s->addr <= at && s->end < l)
			l = s->end;
	}
	if (lim)
		*lim = l;
	return best;
}

int mi_read(void *vmi, uint64_t asid, uint64_t ip, uint8_t *buf, size_t size)
{
	struct mi *mi = vmi;
	struct mi_index *x;
	size_t done = 0;

	if (!mi || !buf)
		return -pte_invalid;
	x = index_get(mi);
	while (done < size) {
		uint64_t at = ip + done, lim;
		long i = find(mi, x, asid, at, &lim);
		size_t n;

		if (i < 0)
			break;
		n = size - done;
		if (lim - at < n)
			n = (size_t)(lim - at);
		memcpy(buf + done, mi->segs[i].data + (at - mi->segs[i].addr), n);
		done += n;
		if (at + n < at)	/* the top of the address space */
			break;
	}
	if (!done)
		return -pte_nomap;
	return (int)done;
}

const char *mi_name_at(const struct mi *mi, uint64_t asid, uint64_t ip,
		       uint64_t *start, uint64_t *end)
{
	return mi_name_span(mi, asid, ip, start, end, NULL, NULL);
}

/* The first byte of any segment (of any address space) past @ip, if
 * before @u; else @u. */
static uint64_t next_start(const struct mi *mi, const struct mi_index *x,
			   uint64_t ip, uint64_t u)
{
	size_t lo = 0, hi = x ? x->nseg : 0, j;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (x->starts[mid] <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (x && lo < x->nseg && x->starts[lo] < u)
		u = x->starts[lo];
	for (j = x ? x->nseg : 0; j < mi->n; j++)
		if (mi->segs[j].addr > ip && mi->segs[j].addr < u)
			u = mi->segs[j].addr;
	return u;
}

const char *mi_name_span(const struct mi *mi, uint64_t asid, uint64_t ip,
			 uint64_t *start, uint64_t *end, uint64_t *until,
			 uint64_t *file_off)
{
	struct mi_index *x;
	long i;

	if (!mi)
		return NULL;
	x = index_get(mi);
	i = find(mi, x, asid, ip, NULL);
	if (i < 0)
		return NULL;
	/* any other segment starting inside may answer there instead (a
	 * newer one of this space, or one the caller falls back to) */
	if (until)
		*until = next_start(mi, x, ip, mi->segs[i].end);
	if (start)
		*start = mi->segs[i].addr;
	if (end)
		*end = mi->segs[i].end;
	if (file_off)
		*file_off = mi->segs[i].file_off;
	return mi->segs[i].name;
}

const char *mi_overlap(const struct mi *mi, uint64_t asid, uint64_t lo,
		       uint64_t hi, uint64_t *start, uint64_t *end, int *dump)
{
	const struct mi_seg *s;
	size_t i;

	if (!mi || lo >= hi)
		return NULL;
	for (i = mi->n; i-- > 0;) {
		s = &mi->segs[i];
		if (s->addr >= hi || s->end <= lo || !asid_match(s, asid))
			continue;
		if (start)
			*start = s->addr;
		if (end)
			*end = s->end;
		if (dump)
			*dump = s->map != NULL;
		return s->name;
	}
	return NULL;
}

size_t mi_count(const struct mi *mi)
{
	return mi ? mi->n : 0;
}
