/* window -- lazily decoded rows of PSB segments, with a small LRU cache. */
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "window.h"

/* At most this many windows, whatever their size. */
#define WIN_MAX_COUNT 65536
/* At most this many chunk starts (about 300 bytes each), all segments. */
#define WIN_MAX_CHUNKS 16384

/* The decoder state carried from one chunk of a segment to the next. */
struct win_state {
	uint64_t ip;
	uint64_t cyc_total;
	uint64_t tsc;
	uint32_t flags;		/* WIN_F_PSBPLUS, _HAVE_TSC, _HAVE_CBR, _PRE_PSB */
	uint8_t cbr;
	uint8_t have_ip;	/* ip is meaningful (IP compression state) */
	uint8_t ip_bits;	/* low bits of ip known (struct win_row) */
	struct tm_model tm;	/* the time model */
};

struct win {
	uint64_t start;		/* offset of the first row */
	uint64_t end;		/* offset just past the last row */
	uint64_t seg;		/* the segment's PSB (or 0 before the first) */
	uint64_t seg_end;	/* the next PSB, or the end of the image */
	struct win_state out;	/* state after the last row */
	struct win_row *rows;
	size_t nrows;
	int pins;
	struct win *newer, *older;	/* the LRU list */
	struct win *next_start;		/* hash chain by start */
	struct win *next_end;		/* hash chain by end */
};

/*
 * Where the chunks of a long segment start, with the decoder state there:
 * a jump deep into a segment resumes at the nearest known chunk instead
 * of decoding from the PSB, and chunks passed on the way are decoded but
 * not kept.  A segment's chunk starts are found in order from its PSB
 * and kept sorted; past the cache's limit the largest list loses every
 * other one, so a jump into a huge segment decodes a few chunks more,
 * never the segment again.
 */
struct win_chunk {
	uint64_t start;
	struct win_state st;
};

struct win_chunks {
	uint64_t seg;
	struct win_chunk *m;
	size_t n, cap;
	struct win_chunks *next;	/* hash chain */
};

#define WIN_CHUNK_BUCKETS 256

struct win_cache {
	const struct img *img;
	struct win_psb_ops ops;
	int have_ops;
	struct tm_config cfg;
	size_t max_bytes;
	size_t bytes;
	uint64_t decoded;
	/* Windows by recent use, and hashed by start and by end: walking a
	 * trace of tiny segments (PSBs 16 bytes apart) keeps many windows,
	 * and each step must stay O(1). */
	struct win *newest, *oldest;
	struct win **by_start, **by_end;
	size_t nbuckets, count;
	struct win_row *scratch;	/* WIN_MAX_ROWS rows to decode into */
	struct win_chunks *chunks[WIN_CHUNK_BUCKETS];
	size_t nchunks, max_chunks;
	/* the segments looked up last: without an index, finding a long
	 * segment's end is a scan of all of it */
	struct win_seg {
		uint64_t seg, seg_end;
		int pre_psb, valid;
	} segs[4];
	unsigned seg_next;
	uint64_t first_psb;
	int have_first_psb;
	/* the last long run of 02 82 pairs a PSB search walked: stepping
	 * through PSBs 16 bytes apart walks it once, not once a PSB */
	struct pkt_runs runs;
	struct win_watch watch;		/* tick NULL: nobody watches */
	int stopped;			/* the watch stopped the last walk */
	/* which caches decode alike (win_cache_copy_chunks()): new for
	 * each cache and each timing configuration, copied by _new_like() */
	uint64_t kin;
};

/* The last kin given out (caches are made on several threads). */
static _Atomic uint64_t win_kin;

/* The PSB at or before @off, without an index. */
static int img_psb_at_or_before(struct win_cache *wc, uint64_t off,
				uint64_t *psb)
{
	return img_find_psb_before_runs(wc->img, &wc->runs, off + 1, psb);
}

/* The first PSB after @off, without an index. */
static int img_psb_after(struct win_cache *wc, uint64_t off, uint64_t *psb)
{
	const struct img *img = wc->img;
	struct img_cursor cur;

	if (off + 1 >= img->size)
		return -pte_nosync;
	if (img_cursor_init(&cur, img, off + 1) < 0)
		return -pte_nosync;
	cur.runs = &wc->runs;
	if (img_cursor_sync_forward(&cur, off + 1) < 0)
		return -pte_nosync;
	*psb = img_cursor_offset(&cur);
	return 0;
}

int win_psb_at_or_before(struct win_cache *wc, uint64_t off, uint64_t *psb)
{
	if (wc->have_ops && wc->ops.psb_at_or_before)
		return wc->ops.psb_at_or_before(wc->ops.ctx, off, psb);
	return img_psb_at_or_before(wc, off, psb);
}

int win_psb_after(struct win_cache *wc, uint64_t off, uint64_t *psb)
{
	if (wc->have_ops && wc->ops.psb_after)
		return wc->ops.psb_after(wc->ops.ctx, off, psb);
	return img_psb_after(wc, off, psb);
}

void win_cache_set_watch(struct win_cache *wc, const struct win_watch *w)
{
	if (!wc)
		return;
	if (w)
		wc->watch = *w;
	else
		memset(&wc->watch, 0, sizeof(wc->watch));
}

/* @err for a window that could not be had, or -pte_canceled if the watch
 * stopped the walk to it. */
static int win_fail(struct win_cache *wc, int err)
{
	if (!wc->stopped)
		return err;
	wc->stopped = 0;
	return -pte_canceled;
}

int win_cache_new(struct win_cache **out, const struct img *img,
		  const struct win_psb_ops *ops, size_t max_bytes)
{
	struct win_cache *wc;

	if (!out || !img)
		return -pte_invalid;
	wc = calloc(1, sizeof(*wc));
	if (!wc)
		return -pte_nomem;
	wc->scratch = malloc(WIN_MAX_ROWS * sizeof(*wc->scratch));
	if (!wc->scratch) {
		free(wc);
		return -pte_nomem;
	}
	wc->img = img;
	wc->max_bytes = max_bytes;
	wc->max_chunks = WIN_MAX_CHUNKS;
	wc->kin = atomic_fetch_add(&win_kin, 1) + 1;
	win_cache_set_psb_ops(wc, ops);
	*out = wc;
	return 0;
}

int win_cache_new_like(struct win_cache **out, const struct win_cache *like,
		       size_t max_bytes)
{
	struct win_cache *wc;
	int r;

	if (!out || !like)
		return -pte_invalid;
	r = win_cache_new(&wc, like->img, like->have_ops ? &like->ops : NULL, max_bytes);
	if (r < 0)
		return r;
	wc->cfg = like->cfg;
	wc->max_chunks = like->max_chunks;
	wc->kin = like->kin;
	*out = wc;
	return 0;
}

static void win_free(struct win *w)
{
	free(w->rows);
	free(w);
}

static size_t win_hash(const struct win_cache *wc, uint64_t off)
{
	return (size_t)((off * 0x9e3779b97f4a7c15ull) >> 32) & (wc->nbuckets - 1);
}

/* Grow the hash tables to keep chains short.  Returns 0 or -pte_nomem. */
static int win_rehash(struct win_cache *wc)
{
	size_t n = wc->nbuckets ? 2 * wc->nbuckets : 256;
	struct win **bs = calloc(n, sizeof(*bs)), **be = calloc(n, sizeof(*be));
	struct win *w;

	if (!bs || !be) {
		free(bs);
		free(be);
		return -pte_nomem;
	}
	free(wc->by_start);
	free(wc->by_end);
	wc->by_start = bs;
	wc->by_end = be;
	wc->nbuckets = n;
	for (w = wc->newest; w; w = w->older) {
		size_t hs = win_hash(wc, w->start), he = win_hash(wc, w->end);

		w->next_start = bs[hs];
		bs[hs] = w;
		w->next_end = be[he];
		be[he] = w;
	}
	return 0;
}

/* Add @w to the list (as the newest) and the hash tables. */
static int win_link(struct win_cache *wc, struct win *w)
{
	size_t h;

	if (wc->count + 1 > wc->nbuckets && win_rehash(wc) < 0 && !wc->nbuckets)
		return -pte_nomem;
	w->older = wc->newest;
	w->newer = NULL;
	if (wc->newest)
		wc->newest->newer = w;
	else
		wc->oldest = w;
	wc->newest = w;
	h = win_hash(wc, w->start);
	w->next_start = wc->by_start[h];
	wc->by_start[h] = w;
	h = win_hash(wc, w->end);
	w->next_end = wc->by_end[h];
	wc->by_end[h] = w;
	wc->count++;
	wc->bytes += w->nrows * sizeof(*w->rows);
	return 0;
}

static void win_unlink(struct win_cache *wc, struct win *w)
{
	struct win **pp;

	if (w->newer)
		w->newer->older = w->older;
	else
		wc->newest = w->older;
	if (w->older)
		w->older->newer = w->newer;
	else
		wc->oldest = w->newer;
	for (pp = &wc->by_start[win_hash(wc, w->start)]; *pp != w;
	     pp = &(*pp)->next_start)
		;
	*pp = w->next_start;
	for (pp = &wc->by_end[win_hash(wc, w->end)]; *pp != w;
	     pp = &(*pp)->next_end)
		;
	*pp = w->next_end;
	wc->count--;
	wc->bytes -= w->nrows * sizeof(*w->rows);
}

/* Make @w the most recently used. */
static void win_touch(struct win_cache *wc, struct win *w)
{
	if (wc->newest == w)
		return;
	w->newer->older = w->older;
	if (w->older)
		w->older->newer = w->newer;
	else
		wc->oldest = w->newer;
	w->newer = NULL;
	w->older = wc->newest;
	wc->newest->newer = w;
	wc->newest = w;
}

static struct win_chunks **chunk_slot(struct win_cache *wc, uint64_t seg)
{
	struct win_chunks **pp;

	pp = &wc->chunks[(size_t)((seg * 0x9e3779b97f4a7c15ull) >> 56) &
			(WIN_CHUNK_BUCKETS - 1)];
	while (*pp && (*pp)->seg != seg)
		pp = &(*pp)->next;
	return pp;
}

static void chunk_clear(struct win_cache *wc)
{
	size_t b;

	for (b = 0; b < WIN_CHUNK_BUCKETS; b++) {
		struct win_chunks *sm = wc->chunks[b], *n;

		for (; sm; sm = n) {
			n = sm->next;
			free(sm->m);
			free(sm);
		}
		wc->chunks[b] = NULL;
	}
	wc->nchunks = 0;
}

/*
 * Make room in the segment with the most chunk starts, keeping its first:
 * drop each start closer than twice the smallest gap to the one kept
 * before it.  The densest stretch (the starts just appended, one a chunk)
 * is halved and the spacing stays about even, so a jump decodes a few
 * chunks more, never the segment again.  With one start per segment,
 * forget them all.
 */
static void chunk_thin(struct win_cache *wc)
{
	struct win_chunks *big = NULL, *sm;
	uint64_t gap = UINT64_MAX;
	size_t b, i, j;

	for (b = 0; b < WIN_CHUNK_BUCKETS; b++)
		for (sm = wc->chunks[b]; sm; sm = sm->next)
			if (!big || sm->n > big->n)
				big = sm;
	if (!big || big->n < 2) {
		chunk_clear(wc);
		return;
	}
	for (i = 1; i < big->n; i++)
		if (big->m[i].start - big->m[i - 1].start < gap)
			gap = big->m[i].start - big->m[i - 1].start;
	gap = gap > UINT64_MAX / 2 ? UINT64_MAX : 2 * gap;
	for (i = j = 1; i < big->n; i++)
		if (big->m[i].start - big->m[j - 1].start >= gap)
			big->m[j++] = big->m[i];
	wc->nchunks -= big->n - j;
	big->n = j;
}

size_t win_cache_chunks(const struct win_cache *wc)
{
	return wc->nchunks;
}

void win_cache_set_max_chunks(struct win_cache *wc, size_t n)
{
	wc->max_chunks = n ? n : 1;
}

/* Remember that a chunk of segment @seg starts at @start with state @st.
 * Best effort: a failed allocation only costs a later decode. */
static void chunk_add(struct win_cache *wc, uint64_t seg, uint64_t start,
		      const struct win_state *st)
{
	struct win_chunks **pp, *sm;

	if (wc->nchunks >= wc->max_chunks)
		chunk_thin(wc);
	pp = chunk_slot(wc, seg);
	sm = *pp;
	if (!sm) {
		sm = calloc(1, sizeof(*sm));
		if (!sm)
			return;
		sm->seg = seg;
		*pp = sm;
	}
	/* Starts come in order; one already known is known with its state. */
	if (sm->n && sm->m[sm->n - 1].start >= start)
		return;
	if (sm->n == sm->cap) {
		size_t cap = sm->cap ? 2 * sm->cap : 16;
		struct win_chunk *m = realloc(sm->m, cap * sizeof(*m));

		if (!m)
			return;
		sm->m = m;
		sm->cap = cap;
	}
	sm->m[sm->n].start = start;
	sm->m[sm->n].st = *st;
	sm->n++;
	wc->nchunks++;
}

/* The last known chunk start of segment @seg at or before @off. */
static const struct win_chunk *chunk_find(struct win_cache *wc, uint64_t seg,
					 uint64_t off)
{
	struct win_chunks *sm = *chunk_slot(wc, seg);
	size_t lo = 0, hi;

	if (!sm || !sm->n || sm->m[0].start > off)
		return NULL;
	hi = sm->n;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (sm->m[mid].start <= off)
			lo = mid;
		else
			hi = mid;
	}
	return &sm->m[lo];
}

int win_cache_alike(const struct win_cache *a, const struct win_cache *b)
{
	return a && b && a->img == b->img && a->kin == b->kin;
}

int win_cache_copy_chunks(struct win_cache *dst, const struct win_cache *src, uint64_t seg)
{
	struct win_chunks **pp, *d, *sm;
	struct win_chunk *m;
	size_t i = 0, j = 0, n = 0, added;

	if (!win_cache_alike(dst, src))
		return -pte_invalid;
	sm = *chunk_slot((struct win_cache *)src, seg);
	if (!sm || !sm->n)
		return 0;
	pp = chunk_slot(dst, seg);
	d = *pp;
	if (!d) {
		if (!(d = calloc(1, sizeof(*d))))
			return -pte_nomem;
		d->seg = seg;
		*pp = d;
	}
	/* both lists are in order: merge them, @dst's own start first where
	 * both know one (the same start has the same state) */
	m = malloc((d->n + sm->n) * sizeof(*m));
	if (!m)
		return -pte_nomem;
	while (i < d->n || j < sm->n) {
		if (j == sm->n || (i < d->n && d->m[i].start <= sm->m[j].start)) {
			if (j < sm->n && d->m[i].start == sm->m[j].start)
				j++;
			m[n++] = d->m[i++];
		} else {
			m[n++] = sm->m[j++];
		}
	}
	added = n - d->n;
	free(d->m);
	d->m = m;
	d->cap = d->n + sm->n;
	d->n = n;
	dst->nchunks += added;
	while (dst->nchunks > dst->max_chunks) {
		size_t before = dst->nchunks;

		chunk_thin(dst);
		if (dst->nchunks == before)
			break;
	}
	return (int)(added > INT_MAX ? INT_MAX : added);
}

void win_cache_free(struct win_cache *wc)
{
	struct win *w, *n;

	if (!wc)
		return;
	for (w = wc->newest; w; w = n) {
		n = w->older;
		win_free(w);
	}
	chunk_clear(wc);
	free(wc->by_start);
	free(wc->by_end);
	free(wc->scratch);
	free(wc);
}

void win_cache_set_psb_ops(struct win_cache *wc, const struct win_psb_ops *ops)
{
	if (!wc)
		return;
	wc->have_ops = ops != NULL;
	if (ops)
		wc->ops = *ops;
}

/* Drop every unpinned window. */
static void win_drop_all(struct win_cache *wc)
{
	struct win *w, *n;

	for (w = wc->newest; w; w = n) {
		n = w->older;
		if (w->pins)
			continue;
		win_unlink(wc, w);
		win_free(w);
	}
}

void win_cache_set_timing(struct win_cache *wc, const struct tm_config *cfg)
{
	if (!wc)
		return;
	if (cfg)
		wc->cfg = *cfg;
	else
		memset(&wc->cfg, 0, sizeof(wc->cfg));
	win_drop_all(wc);
	chunk_clear(wc);	/* they hold time model states */
	wc->kin = atomic_fetch_add(&win_kin, 1) + 1;
}

/* Forget the chunk starts of segments before @below decoded without a
 * carry: a walk from them would go on without it. */
static void chunk_drop_seg_rel(struct win_cache *wc, uint64_t below)
{
	size_t b;

	for (b = 0; b < WIN_CHUNK_BUCKETS; b++) {
		struct win_chunks **pp = &wc->chunks[b], *sm;

		while ((sm = *pp)) {
			if (sm->seg < below && sm->n &&
			    (sm->m[0].st.flags & WIN_F_SEG_REL)) {
				*pp = sm->next;
				wc->nchunks -= sm->n;
				free(sm->m);
				free(sm);
			} else {
				pp = &sm->next;
			}
		}
	}
}

size_t win_cache_drop_seg_rel(struct win_cache *wc, uint64_t below)
{
	struct win *w, *n;
	size_t dropped = 0;

	if (!wc)
		return 0;
	for (w = wc->newest; w; w = n) {
		n = w->older;
		if (w->pins || w->seg >= below || !(w->out.flags & WIN_F_SEG_REL))
			continue;
		win_unlink(wc, w);
		win_free(w);
		dropped++;
	}
	chunk_drop_seg_rel(wc, below);
	return dropped;
}

size_t win_cache_bytes(const struct win_cache *wc)
{
	return wc ? wc->bytes : 0;
}

uint64_t win_cache_decoded(const struct win_cache *wc)
{
	return wc ? wc->decoded : 0;
}

/* Drop least recently used unpinned windows until under the bound. */
static void win_evict(struct win_cache *wc)
{
	struct win *w = wc->oldest, *n;

	while (w && (wc->bytes > wc->max_bytes || wc->count > WIN_MAX_COUNT)) {
		n = w->newer;
		if (!w->pins) {
			win_unlink(wc, w);
			win_free(w);
		}
		w = n;
	}
}

/* Apply packet @pkt to state @st and fill in row @row from it. */
static void win_apply(struct win_state *st, const struct pkt *pkt,
		      struct win_row *row)
{
	int r;

	switch (pkt->type) {
	case PKT_PSB:
		/* SDM: no IP compression state survives a PSB. */
		st->ip = 0;
		st->ip_bits = 64;
		st->have_ip = 0;
		st->flags |= WIN_F_PSBPLUS;
		break;
	case PKT_TIP:
	case PKT_TIP_PGE:
	case PKT_TIP_PGD:
	case PKT_FUP:
		r = pkt_ip_update(pkt, &st->ip);
		if (r == 0) {
			/* Before the first PSB the bytes an IP packet does
			 * not give are unknown, not zero. */
			uint8_t bits = pkt->u.ip.ipc == PKT_IPC_UPDATE16 ? 16 :
				       pkt->u.ip.ipc == PKT_IPC_UPDATE32 ? 32 :
				       pkt->u.ip.ipc == PKT_IPC_UPDATE48 ? 48 : 64;

			if (bits > st->ip_bits)
				st->ip_bits = bits;
			st->have_ip = 1;
			row->flags |= WIN_F_HAVE_IP;
		} else if (r == 1) {
			row->flags |= WIN_F_IP_SUPP;
		}
		break;
	case PKT_CYC:
		st->cyc_total += pkt->u.cyc;
		break;
	case PKT_TSC:
		st->tsc = pkt->u.tsc;
		st->flags |= WIN_F_HAVE_TSC;
		break;
	case PKT_CBR:
		st->cbr = pkt->u.cbr;
		st->flags |= WIN_F_HAVE_CBR;
		break;
	case PKT_OVF:
		/* After an overflow the IP must come again in full. */
		st->have_ip = 0;
		break;
	default:
		break;
	}
	tm_step(&st->tm, pkt, &row->ts);
	row->flags |= st->flags;
	row->ip = st->ip;
	row->ip_bits = st->ip_bits;
	row->cyc_total = st->cyc_total;
	row->tsc = st->tsc;
	row->cbr = st->cbr;
	if (pkt->type == PKT_PSBEND)
		st->flags &= ~WIN_F_PSBPLUS;
}

/* The backward pass: a bounded packet happened before the next CYC, so
 * that CYC's cycle count is its upper bound. */
static void win_bound_cycles(struct win_row *rows, size_t n)
{
	uint64_t next = 0;
	size_t i = n;

	while (i--) {
		struct win_row *row = &rows[i];

		if (row->flags & WIN_F_ERROR) {
			next = 0;
			continue;
		}
		if (row->ts.flags & TM_F_BOUNDED)
			row->cyc_hi = next;
		if (row->pkt.type == PKT_CYC || (row->ts.flags & TM_F_EXACT))
			next = row->ts.cycles;
	}
}

/*
 * Decode the chunk of a segment ending at @seg_end that starts at @start
 * with state *@st into the scratch rows, leaving the state after it in
 * *@st and its end in *@end.  Stops before the segment's end, after
 * WIN_MAX_ROWS rows, or at an error, which becomes a row covering the
 * rest of the segment.  Returns the number of rows.
 */
/* Make @row the error row @err covering [@off, @seg_end): nothing in it
 * decodes (a bad packet, or data lost at a gap). */
static void win_error_row(struct win_row *row, uint64_t off, uint64_t seg_end,
			  int err, uint32_t flags)
{
	memset(&row->pkt, 0, sizeof(row->pkt));
	row->pkt.type = PKT_INVALID;
	row->pkt.offset = off;
	row->size = seg_end - off;
	row->pkt.size = row->size > 255 ? 255 : (uint8_t)row->size;
	row->err = err;
	row->flags |= WIN_F_ERROR | flags;
}

static size_t win_decode_rows(struct win_cache *wc, uint64_t start,
			      uint64_t seg, uint64_t seg_end,
			      struct win_state *stp, uint64_t *end)
{
	struct img_cursor cur;
	struct win_state st = *stp;
	struct win_row *rows = wc->scratch;
	size_t n = 0;
	uint64_t off = start;
	int lost = img_gap_at(wc->img, start);

	*end = start;
	if (img_cursor_init(&cur, wc->img, start) < 0)
		return 0;
	wc->decoded++;
	if (lost && start != seg) {
		/* The chunk before ended right at a gap: what follows it up
		 * to the next PSB cannot be decoded (the cursor, put here,
		 * would not know). */
		memset(&rows[0], 0, sizeof(rows[0]));
		win_error_row(&rows[0], start, seg_end, -pte_gap, WIN_F_GAP);
		st.ip = 0;
		st.have_ip = 0;
		tm_gap(&st.tm);
		*stp = st;
		*end = seg_end;
		return 1;
	}
	while (n < WIN_MAX_ROWS && off < seg_end) {
		struct win_row *row = &rows[n];
		int r;

		memset(row, 0, sizeof(*row));
		r = img_cursor_next(&cur, &row->pkt);
		if (r == -pte_eos)
			break;
		if (lost) {
			/* A PSB right after a gap: the loss is before it. */
			cur.gap = 1;
			lost = 0;
		}
		if (cur.gap) {
			cur.gap = 0;
			row->flags |= WIN_F_GAP;
			st.ip = 0;
			st.have_ip = 0;
			tm_gap(&st.tm);
		}
		if (r >= 0 && off + row->pkt.size > seg_end)
			r = -pte_truncated;	/* it runs into the next PSB */
		if (r < 0) {
			win_error_row(row, off, seg_end, r, st.flags & WIN_F_PRE_PSB);
			st.have_ip = 0;
			tm_gap(&st.tm);
			n++;
			off = seg_end;
			break;
		}
		row->size = row->pkt.size;
		win_apply(&st, &row->pkt, row);
		off = img_cursor_offset(&cur);
		n++;
	}
	/* Data lost after the end of the image: the last row says so (a
	 * gap row there already is that loss). */
	if (n && off == seg_end && seg_end == wc->img->size &&
	    rows[n - 1].err != -pte_gap && img_gap_at(wc->img, seg_end))
		rows[n - 1].flags |= WIN_F_GAP_END;
	*stp = st;
	*end = off;
	return n;
}

/* Make a cached window of the @n scratch rows of the chunk [@start, @end)
 * of segment [@seg, @seg_end), with state @out after it. */
static struct win *win_make(struct win_cache *wc, size_t n, uint64_t start,
			    uint64_t end, uint64_t seg, uint64_t seg_end,
			    const struct win_state *out)
{
	struct win_row *rows = wc->scratch;
	struct win *w;

	if (!n) {
		/* Nothing to decode here: the end of the image. */
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	win_bound_cycles(rows, n);
	w->rows = malloc(n * sizeof(*rows));
	if (!w->rows)
		goto out_free;
	memcpy(w->rows, rows, n * sizeof(*rows));
	w->nrows = n;
	w->start = start;
	w->end = end;
	w->seg = seg;
	w->seg_end = seg_end;
	w->out = *out;
	if (win_link(wc, w) < 0) {
		free(w->rows);
		goto out_free;
	}
	if (end < seg_end && end > start)
		chunk_add(wc, seg, end, out);
	return w;

out_free:
	free(w);
	return NULL;
}

/* Decode the chunk of segment [@seg, @seg_end) that starts at @start with
 * state @in into a new cached window. */
static struct win *win_decode(struct win_cache *wc, uint64_t start,
			      uint64_t seg, uint64_t seg_end,
			      const struct win_state *in)
{
	struct win_state st = *in;
	uint64_t end;
	size_t n = win_decode_rows(wc, start, seg, seg_end, &st, &end);

	return win_make(wc, n, start, end, seg, seg_end, &st);
}

/* The cached window starting exactly at @start, or NULL. */
static struct win *win_find_start(struct win_cache *wc, uint64_t start)
{
	struct win *w;

	if (!wc->nbuckets)
		return NULL;
	for (w = wc->by_start[win_hash(wc, start)]; w; w = w->next_start)
		if (w->start == start)
			return w;
	return NULL;
}

/* The window following @w in its segment (a chunk continuation). */
static struct win *win_chunk_after(struct win_cache *wc, struct win *w)
{
	struct win *n = win_find_start(wc, w->end);
	struct win_state st;

	if (n)
		return n;
	st = w->out;
	w->pins++;	/* keep it while the new window may evict */
	n = win_decode(wc, w->end, w->seg, w->seg_end, &st);
	w->pins--;
	return n;
}

/*
 * Decode from the chunk of segment [@seg, @seg_end) at @start (state @in)
 * up to the chunk holding @off, which becomes a cached window; the chunks
 * before it are decoded only for their ends and states, kept as chunk
 * starts.
 * Returns that window; NULL on failure or at the end of the image.
 */
static struct win *win_walk(struct win_cache *wc, uint64_t start,
			    const struct win_state *in, uint64_t seg,
			    uint64_t seg_end, uint64_t off)
{
	struct win_state st = *in;
	struct win *w;
	uint64_t end;
	size_t n;

	for (;;) {
		n = win_decode_rows(wc, start, seg, seg_end, &st, &end);
		if (!n)
			return NULL;
		if (end > off || end >= seg_end || end <= start)
			break;
		chunk_add(wc, seg, end, &st);
		start = end;
		if (wc->watch.tick && wc->watch.tick(wc->watch.ctx, seg, end, seg_end, off)) {
			wc->stopped = 1;
			return NULL;
		}
		if ((w = win_find_start(wc, start))) {
			/* decoded before, and still cached */
			while (w->end <= off && w->end < w->seg_end) {
				struct win *nx = win_find_start(wc, w->end);

				if (!nx)
					return win_walk(wc, w->end, &w->out,
							seg, seg_end, off);
				w = nx;
			}
			win_touch(wc, w);
			return w;
		}
	}
	w = win_make(wc, n, start, end, seg, seg_end, &st);
	if (w)
		win_touch(wc, w);
	return w;
}

/* A cached window that ends a segment exactly at @off, or NULL. */
static const struct win *win_ending_at(struct win_cache *wc, uint64_t off)
{
	const struct win *w;

	if (!wc->nbuckets)
		return NULL;
	for (w = wc->by_end[win_hash(wc, off)]; w; w = w->next_end)
		if (w->end == off && w->seg_end == off)
			return w;
	return NULL;
}

/* The time model's state at the PSB at @seg, from the index, into @tm.
 * Returns 0, or non-zero if it is not known. */
static int win_carry(struct win_cache *wc, uint64_t seg, struct tm_model *tm)
{
	struct tm_carry carry;

	if (!wc->have_ops || !wc->ops.carry || wc->ops.carry(wc->ops.ctx, seg, &carry))
		return 1;
	tm_restore(tm, &carry);
	return 0;
}

/* The trace's first PSB (or its size if it has none). */
static uint64_t win_first_psb(struct win_cache *wc)
{
	if (!wc->have_first_psb) {
		struct img_cursor cur;

		wc->first_psb = wc->img->size;
		if (!img_cursor_init(&cur, wc->img, 0) &&
		    !img_cursor_sync_forward(&cur, 0))
			wc->first_psb = img_cursor_offset(&cur);
		wc->have_first_psb = 1;
	}
	return wc->first_psb;
}

/* The segment [*@seg, *@seg_end) holding @off; *@pre_psb if it is the
 * bytes before the first PSB. */
static void win_segment(struct win_cache *wc, uint64_t off, uint64_t *seg,
			uint64_t *seg_end, int *pre_psb)
{
	struct win_seg *m;
	size_t k;

	for (k = 0; k < 4; k++) {
		m = &wc->segs[k];
		if (m->valid && m->seg <= off && off < m->seg_end) {
			*seg = m->seg;
			*seg_end = m->seg_end;
			*pre_psb = m->pre_psb;
			return;
		}
	}
	*pre_psb = win_psb_at_or_before(wc, off, seg) < 0;
	if (*pre_psb)
		*seg = 0;
	if (win_psb_after(wc, *seg, seg_end) < 0)
		*seg_end = wc->img->size;
	m = &wc->segs[wc->seg_next++ & 3];
	m->seg = *seg;
	m->seg_end = *seg_end;
	m->pre_psb = *pre_psb;
	m->valid = 1;
}

/* The window holding offset @off, decoded if need be, or NULL. */
static struct win *win_lookup(struct win_cache *wc, uint64_t off)
{
	struct win_state st;
	struct win *w;
	uint64_t seg, seg_end;
	const struct win_chunk *chunk;
	const struct win *prev;
	int pre_psb;

	if (!wc->img->size)
		return NULL;
	if (off >= wc->img->size)
		off = wc->img->size - 1;
	/* Stepping from a window to the next or previous one asks for
	 * exactly a start or the byte before an end: hashed. */
	w = win_find_start(wc, off);
	if (!w && wc->nbuckets) {
		for (w = wc->by_end[win_hash(wc, off + 1)]; w; w = w->next_end)
			if (w->end == off + 1 && w->start <= off)
				break;
	}
	/* Otherwise the segment's windows are found by their starts, chunk
	 * after chunk, as they were decoded. */
	if (w)
		goto out_hit;
	win_segment(wc, off, &seg, &seg_end, &pre_psb);
	chunk = chunk_find(wc, seg, off);
	if (chunk) {
		/* Deep in a long segment: from the nearest chunk known. */
		w = win_find_start(wc, chunk->start);
		if (!w)
			return win_walk(wc, chunk->start, &chunk->st, seg,
					seg_end, off);
		goto out_chunks;
	}
	w = win_find_start(wc, seg);
	if (!w) {
		/* Only a decode needs the time model's state at the PSB,
		 * which the index may have to replay segments to give. */
		memset(&st, 0, sizeof(st));
		tm_init(&st.tm, &wc->cfg);
		if (pre_psb) {
			st.flags = WIN_F_PRE_PSB;
		} else if (!win_carry(wc, seg, &st.tm)) {
			/* from the trace's start */
		} else if ((prev = win_ending_at(wc, seg)) &&
			   !(prev->out.flags & WIN_F_PRE_PSB)) {
			/* The segment before is cached to its end: where it
			 * ended is where this one starts.  Not the bytes
			 * before the first PSB: what they seem to count is
			 * no time of the trace's, which starts at that PSB
			 * (as dump and the index count). */
			st.tm = prev->out.tm;
			st.flags |= prev->out.flags & WIN_F_SEG_REL;
		} else if (seg != win_first_psb(wc)) {
			st.flags |= WIN_F_SEG_REL;
		}
		return win_walk(wc, seg, &st, seg, seg_end, off);
	}
out_chunks:
	while (w->end <= off && w->end < w->seg_end) {
		struct win *n = win_find_start(wc, w->end);

		if (!n)
			return win_walk(wc, w->end, &w->out, seg, seg_end, off);
		w = n;
	}
	if (off >= w->end && w->end < wc->img->size) {
		/* The image ended early (a gap, a cut); nothing holds @off. */
		return w;
	}
out_hit:
	win_touch(wc, w);
	return w;
}

/* The window after @w, or NULL at the end. */
static struct win *win_following(struct win_cache *wc, struct win *w)
{
	struct win *n;

	if (w->end >= wc->img->size)
		return NULL;
	if (w->end < w->seg_end)
		n = win_chunk_after(wc, w);
	else
		n = win_lookup(wc, w->end);
	if (n && n->start != w->end)
		return NULL;	/* no progress: treat as the end */
	return n;
}

/* The window before @w, or NULL at the start. */
static struct win *win_preceding(struct win_cache *wc, struct win *w)
{
	struct win *p;

	if (!w->start)
		return NULL;
	w->pins++;
	p = win_lookup(wc, w->start - 1);
	w->pins--;
	if (p && p->end != w->start)
		return NULL;
	return p;
}

static void win_pin(struct win_iter *it, struct win *w, size_t i)
{
	if (it->w)
		it->w->pins--;
	it->w = w;
	it->i = i;
	if (w) {
		w->pins++;
		win_touch(it->wc, w);
	}
}

int win_seek(struct win_iter *it, struct win_cache *wc, uint64_t off)
{
	struct win *w;
	size_t lo, hi;

	if (!it || !wc)
		return -pte_invalid;
	if (it->w && it->wc != wc)
		win_iter_release(it);
	it->wc = wc;
	if (!wc->img->size)
		return -pte_eos;
	w = win_lookup(wc, off);
	if (!w)
		return win_fail(wc, -pte_nomem);
	/* The last row starting at or before @off. */
	lo = 0;
	hi = w->nrows;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (w->rows[mid].pkt.offset <= off)
			lo = mid;
		else
			hi = mid;
	}
	win_pin(it, w, lo);
	win_evict(wc);
	return 0;
}

int win_next(struct win_iter *it)
{
	struct win *n;

	if (!it || !it->w)
		return -pte_invalid;
	if (it->i + 1 < it->w->nrows) {
		it->i++;
		return 0;
	}
	n = win_following(it->wc, it->w);
	if (!n)
		return win_fail(it->wc, -pte_eos);
	win_pin(it, n, 0);
	win_evict(it->wc);
	return 0;
}

int win_prev(struct win_iter *it)
{
	struct win *p;

	if (!it || !it->w)
		return -pte_invalid;
	if (it->i > 0) {
		it->i--;
		return 0;
	}
	p = win_preceding(it->wc, it->w);
	if (!p)
		return win_fail(it->wc, -pte_eos);
	win_pin(it, p, p->nrows - 1);
	win_evict(it->wc);
	return 0;
}

const struct win_row *win_row(const struct win_iter *it)
{
	if (!it || !it->w)
		return NULL;
	return &it->w->rows[it->i];
}

void win_iter_release(struct win_iter *it)
{
	if (!it)
		return;
	if (it->w)
		it->w->pins--;
	it->w = NULL;
	it->i = 0;
}

int win_prefetch(struct win_cache *wc, uint64_t off, int dir)
{
	struct win *w, *n;

	if (!wc)
		return -pte_invalid;
	w = win_lookup(wc, off);
	if (!w)
		return win_fail(wc, wc->img->size ? -pte_nomem : -pte_eos);
	w->pins++;
	n = dir > 0 ? win_following(wc, w) : win_preceding(wc, w);
	w->pins--;
	win_evict(wc);
	return n ? 0 : win_fail(wc, -pte_eos);
}

size_t win_row_bytes(const struct win_iter *it, uint8_t *buf, size_t n)
{
	const struct win_row *row = win_row(it);

	if (!row)
		return 0;
	if (n > row->size)
		n = row->size;
	return img_read(it->wc->img, row->pkt.offset, buf, n);
}
