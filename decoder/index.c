/* index -- PSB seek points and segment summaries, built on all cores. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "index.h"
#include "pool.h"
#include "tm.h"

/*
 * Storage.  Seek points and summaries live in fixed blocks that never move,
 * so a reader holding an index i < nseeks (loaded with acquire) reads a
 * finished entry while the builder appends more.  Both are packed to stay
 * within 72 bytes per PSB together:
 *
 *   seek (32 bytes): offset; tsc:56|cbr:8; fup ip; ctc:16|fc:9|exec:3|
 *   tsx:2|flags:10|ctx:24, where ctx indexes an interned (cr3, nr, vmcs).
 *
 *   summary (40 bytes): first_tsc:56|sflags:8; tsc span; cycles; the
 *   largest CYC; packets per class as u16.  Anything that does not fit (and every OVF, error
 *   or gap) goes to a sorted exception list.  The first ordinal is kept per
 *   group of 64 segments and summed within the group.
 */
#define BLK_SHIFT	16
#define BLK_SIZE	(1u << BLK_SHIFT)
#define BLK_MASK	(BLK_SIZE - 1)
#define GRP_SHIFT	6		/* segments per ordinal base: 64 */
#define CTX_SHIFT	12
#define CTX_BLK		(1u << CTX_SHIFT)
#define CTX_NONE	0xffffffu	/* too many contexts: re-decode */
#define CTX_MAX		0xfffff0u

#define SEEK_FLAG_MASK	0x3ffu		/* flags stored; IDX_GAP is derived */
#define PSBPLUS_MAX	64		/* packets looked at after a PSB */
#define CANCEL_STEP	(256u << 10)	/* bytes between cancel checks */
#define DEFAULT_CHUNK	(16u << 20)
#define CARRY_SHIFT	4		/* a time model carry every 16 PSBs */
#define CARRY_BLK_SHIFT	(BLK_SHIFT - CARRY_SHIFT)	/* per block */
#define MEMO_SIZE	64		/* replayed carries kept, by segment */
#define WARM_BYTES	(64u << 10)	/* phase 3: a unit's warm-up, at least */
#define WARM_SEGS	64		/* and at most this many segments */
#define UNIT3_SEGS	16384		/* phase 3: segments per unit, at most */

struct seek_packed {
	uint64_t off;
	uint64_t tsc_cbr;
	uint64_t ip;
	uint64_t misc;
};

struct ctx_entry {		/* also the blob's layout */
	uint64_t cr3;
	uint64_t vmcs;
	uint64_t nr;
};

/* Summary flags (top byte of first_tsc). */
#define SUM_TSC		0x01	/* the segment has a time */
#define SUM_EXC		0x02	/* see the exception list */

struct sum_packed {
	uint64_t tsc_flags;
	uint32_t tsc_span;
	uint32_t cycles;
	uint32_t max_cyc;
	uint32_t pad;
	uint16_t cnt[PKC_NCLASSES];
};


/* What the time pass learned about one segment (the blob's layout too):
 * the largest gap between two timing packets (TSC, or MTC when the
 * configuration places MTCs) the later of which lies in the segment, and
 * the time of the last timing packet at the segment's end (perhaps in an
 * earlier segment); times are the model's estimates, whole ticks. */
struct tsum {
	uint64_t gap;
	uint64_t last;
	uint8_t has_gap, has_last;
	uint8_t pad[6];
};

/* The time pass's gap accumulator. */
struct gacc {
	int mtc;			/* MTCs are timing packets (CTC known) */
	int has_prev;			/* prev: the last timing packet's time */
	uint64_t prev;
	int has_first, has_rest;	/* in this segment: the first timing
					 * packet's time, the largest gap but
					 * the first's */
	uint64_t first, rest;
};

/* A segment of a phase 3 unit, as the worker saw it. */
struct gseg {
	uint64_t first, rest, last;
	uint8_t has_first, has_rest;
};

/* A summary that does not fit the packed form, or one with trouble. */
struct sum_exc {
	uint64_t seg;
	struct idx_summary full;
};

/* A run of 02 82 pairs cut by a chunk edge. */
struct run_piece {
	uint64_t s, e;			/* [s, e) inside the chunk */
	uint8_t open_left;		/* the run started before the chunk */
	uint8_t open_right;		/* the run goes on after it */
	uint8_t used;
};

/* Phase 1 unit of work: bytes [a, b) of span `span`. */
struct unit1 {
	struct run_piece left, right;
	size_t span;
	uint64_t a, b;			/* logical offsets */
	struct idx_seek *seeks;		/* found, in order */
	size_t n, cap;
};

/* Phase 2 unit of work: segments [s0, s1). */
struct unit2 {
	size_t s0, s1;
	struct sum_exc *exc;
	size_t n, cap;
};

/*
 * Phase 3 unit of work: segments [s0, s1), timed from a provisional carry
 * (the true one only for the first unit).  Its carries at the points s0,
 * every multiple of 16 after it, and s1 are kept; the merge fixes them up
 * in order (see merge3()).
 */
struct unit3 {
	size_t s0, s1;
	size_t w0;			/* warm up from segment w0 (< s0) */
	size_t *pts;			/* the points, ascending */
	struct tm_carry *cps;		/* the provisional carry at each */
	size_t n;
	struct gseg *gs;		/* per segment, provisional */
};

struct idx {
	const struct img *img;
	struct tm_config cfg;
	unsigned nthreads;
	uint64_t chunk;
	int phase1_only;
	int (*guard)(int (*body)(void *), void *arg);
	void (*release)(void *ctx, const uint8_t *p, size_t n);
	void (*willneed)(void *ctx, const uint8_t *p, size_t n);
	void *release_ctx;

	/* seek points */
	struct seek_packed **sblk;
	size_t nblk;			/* length of sblk and ublk */
	_Atomic size_t nseeks;
	_Atomic uint64_t scanned;
	_Atomic int scan_done;
	int run_open;			/* the merger's run across chunks */
	uint64_t run_start, run_end;

	/* interned (cr3, nr, vmcs); only the merger writes */
	struct ctx_entry **cblk;
	size_t ncblk;
	size_t nctx;
	uint32_t *hslot;		/* open addressing: index + 1, 0 empty */
	size_t hcap;

	/* summaries */
	struct sum_packed **ublk;
	uint64_t **oblk;		/* first ordinal per 64 segments */
	_Atomic size_t nsums;
	uint64_t ord_next;		/* ordinal after the last merged segment */
	pthread_mutex_t exc_lock;	/* exc, trouble and totals */
	struct sum_exc *exc;
	size_t nexc, excap;
	uint64_t *trouble;		/* segments with OVFs, errors or gaps */
	size_t ntrouble, trcap;
	struct idx_summary totals;

	/* phase 3: tm carries at segments 0, 16, 32, ...; block i of
	 * carries covers seek block i */
	int time_pass;
	struct tm_carry **carry;
	_Atomic size_t ncarry;
	struct tsum **gblk;		/* per segment, as ublk */
	_Atomic size_t ntsums;
	int sums_done;
	/* carries between those, as replays found them: stepping from a
	 * segment to its neighbour replays one segment, not up to 15 */
	pthread_mutex_t memo_lock;
	uint64_t memo_gen;	/* memo_clear()s so far */
	struct carry_memo {
		size_t seg;		/* SIZE_MAX: empty */
		struct tm_carry carry;
	} memo[MEMO_SIZE];

	/* a mapped blob backing full blocks (idx_load_mapped()) */
	const uint8_t *borrow_lo, *borrow_hi;
	void (*unborrow)(void *ctx);
	void *unborrow_ctx;

	/* where building resumes (a loaded index of a grown trace) */
	uint64_t resume_off;
	int complete;

	/* the builder */
	pthread_t coord;
	int started, joined;
	_Atomic int cancel;
	_Atomic int finished;
	_Atomic int status;
	_Atomic int phase;
	_Atomic uint64_t done;
	uint64_t total;
	double t0, tphase, rate1;

	/* the work queue of the current phase */
	pthread_mutex_t lock;
	size_t nunits;
	struct unit1 *u1;
	struct unit2 *u2;
	struct unit3 *u3;
	size_t p3_from;			/* phase 3's first segment */
	struct tm_carry p3_start;	/* the true carry there */
	struct tm_carry p3_carry;	/* the true carry where the merge is */
	struct gacc p3_gacc;		/* and the true gap state there */
	struct gacc p3_gacc0;		/* the true gap state at p3_from */
	uint64_t p3_replayed;		/* segments the merges re-decoded */
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int plain_guard(int (*body)(void *), void *arg)
{
	return body(arg);
}

static void memo_clear(struct idx *idx)
{
	size_t k;

	idx->memo_gen++;	/* replays under way keep theirs */
	for (k = 0; k < MEMO_SIZE; k++)
		idx->memo[k].seg = SIZE_MAX;
}

const struct tm_config *idx_config(const struct idx *idx)
{
	return &idx->cfg;
}

int idx_new(struct idx **out, const struct img *img, const struct tm_config *cfg)
{
	struct idx *idx;

	if (!out || !img)
		return -pte_invalid;
	idx = calloc(1, sizeof(*idx));
	if (!idx)
		return -pte_nomem;
	idx->img = img;
	if (cfg)
		idx->cfg = *cfg;
	idx->chunk = DEFAULT_CHUNK;
	idx->guard = plain_guard;
	idx->time_pass = 1;
	/* At most one PSB per 16 bytes. */
	idx->nblk = (size_t)((img->size / PKT_PSB_SIZE) >> BLK_SHIFT) + 1;
	idx->sblk = calloc(idx->nblk, sizeof(*idx->sblk));
	idx->ublk = calloc(idx->nblk, sizeof(*idx->ublk));
	idx->oblk = calloc(idx->nblk, sizeof(*idx->oblk));
	idx->carry = calloc(idx->nblk, sizeof(*idx->carry));
	idx->gblk = calloc(idx->nblk, sizeof(*idx->gblk));
	if (!idx->sblk || !idx->ublk || !idx->oblk || !idx->carry || !idx->gblk)
		goto out_free;
	pthread_mutex_init(&idx->lock, NULL);
	pthread_mutex_init(&idx->exc_lock, NULL);
	pthread_mutex_init(&idx->memo_lock, NULL);
	memo_clear(idx);
	*out = idx;
	return 0;

out_free:
	free(idx->sblk);
	free(idx->ublk);
	free(idx->oblk);
	free(idx->carry);
	free(idx->gblk);
	free(idx);
	return -pte_nomem;
}

static void free_units(struct idx *idx)
{
	size_t i;

	if (idx->u1)
		for (i = 0; i < idx->nunits; i++)
			free(idx->u1[i].seeks);
	if (idx->u2)
		for (i = 0; i < idx->nunits; i++)
			free(idx->u2[i].exc);
	if (idx->u3)
		for (i = 0; i < idx->nunits; i++) {
			free(idx->u3[i].pts);
			free(idx->u3[i].cps);
			free(idx->u3[i].gs);
		}
	free(idx->u1);
	free(idx->u2);
	free(idx->u3);
	idx->u1 = NULL;
	idx->u2 = NULL;
	idx->u3 = NULL;
	idx->nunits = 0;
}

void idx_free(struct idx *idx)
{
	if (!idx)
		return;
	if (idx->started && !idx->joined) {
		idx_cancel(idx);
		idx_wait(idx);
	}
	free_units(idx);
	idx->started = 0;	/* idx_reset() frees only an idle index */
	idx_reset(idx);
	free(idx->sblk);
	free(idx->ublk);
	free(idx->oblk);
	free(idx->carry);
	free(idx->gblk);
	pthread_mutex_destroy(&idx->lock);
	pthread_mutex_destroy(&idx->exc_lock);
	pthread_mutex_destroy(&idx->memo_lock);
	free(idx);
}

int idx_set_threads(struct idx *idx, unsigned nthreads)
{
	if (!idx || idx->started)
		return -pte_invalid;
	idx->nthreads = nthreads;
	return 0;
}

int idx_set_chunk_size(struct idx *idx, uint64_t bytes)
{
	if (!idx || idx->started || !bytes)
		return -pte_invalid;
	idx->chunk = (bytes + 63) & ~(uint64_t)63;
	return 0;
}

int idx_set_phase1_only(struct idx *idx, int on)
{
	if (!idx || idx->started)
		return -pte_invalid;
	idx->phase1_only = !!on;
	return 0;
}

int idx_set_time_pass(struct idx *idx, int on)
{
	if (!idx || idx->started)
		return -pte_invalid;
	idx->time_pass = !!on;
	return 0;
}

int idx_set_guard(struct idx *idx, int (*guard)(int (*body)(void *), void *arg))
{
	if (!idx || idx->started)
		return -pte_invalid;
	idx->guard = guard ? guard : plain_guard;
	return 0;
}

int idx_set_release(struct idx *idx,
		    void (*release)(void *ctx, const uint8_t *p, size_t n),
		    void *ctx)
{
	if (!idx || idx->started)
		return -pte_invalid;
	idx->release = release;
	idx->release_ctx = ctx;
	return 0;
}

int idx_set_willneed(struct idx *idx,
		     void (*willneed)(void *ctx, const uint8_t *p, size_t n))
{
	if (!idx || idx->started)
		return -pte_invalid;
	idx->willneed = willneed;
	return 0;
}

/*
 * Finding PSBs.  A PSB is 8 pairs of 02 82.  A payload may end in 02 or
 * in 02 82 pairs right before a PSB, so a run of pairs can be longer than
 * 16 bytes; what follows a PSB is never 82 nor a broken PSB, so the PSBs
 * of a run are the 16-byte blocks that end where the run ends (a sequential
 * decoder meets them there).  Each worker finds the runs of its chunk and
 * places their PSBs; a run cut by a chunk edge is passed to the merger,
 * which joins the pieces and places the PSBs once the run's end is known.
 * Every byte is looked at a bounded number of times, however long a run.
 */
static const uint8_t psb_bytes[PKT_PSB_SIZE] = {
	2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82
};

/* Whether a pair 02 82 starts at logical offset @off (reading across
 * spans, not across gaps). */
static int pair_at(const struct img *img, uint64_t off)
{
	uint8_t b[2];

	if (img_read(img, off, b, 2) != 2)
		return 0;
	return b[0] == 2 && b[1] == 0x82;
}

/* The first pair start in [@x, @b) of span @si, or UINT64_MAX. */
static uint64_t next_pair(const struct img *img, size_t si, uint64_t x, uint64_t b)
{
	const struct img_span *s = &img->spans[si];
	const uint8_t *base = s->data - s->off;	/* logical -> pointer */
	uint64_t send = s->off + s->size;
	uint64_t lim = b + 1 < send ? b + 1 : send;	/* q + 1 must exist */
	const uint8_t *q;

	if (x >= b)
		return UINT64_MAX;
	if (lim > x + 1) {
		q = pkt_find_pair(base + x, base + lim);
		if (q)
			return (uint64_t)(q - base) < b ? (uint64_t)(q - base) : UINT64_MAX;
	}
	/* The span's last byte may start a pair that ends in the next span. */
	if (b == send && base[send - 1] == 2 && send - 1 >= x && pair_at(img, send - 1))
		return send - 1;
	return UINT64_MAX;
}

/* The end of the run of pairs at @q: the first offset >= @q with no pair,
 * or the first one >= @b if the run gets that far. */
static uint64_t run_end(const struct img *img, size_t si, uint64_t q, uint64_t b)
{
	const struct img_span *s = &img->spans[si];
	const uint8_t *base = s->data - s->off;
	uint64_t send = s->off + s->size;

	while (q + PKT_PSB_SIZE <= send && q + PKT_PSB_SIZE <= b &&
	       !memcmp(base + q, psb_bytes, PKT_PSB_SIZE))
		q += PKT_PSB_SIZE;
	while (q < b && pair_at(img, q))
		q += 2;
	return q;
}

/* Decode the PSB+ after the PSB at @off into @sk. */
static void decode_psbplus(const struct img *img, uint64_t off, struct idx_seek *sk)
{
	struct img_cursor cur;
	struct pkt pkt;
	uint64_t last_ip = 0;
	int i, ret;

	memset(sk, 0, sizeof(*sk));
	sk->offset = off;
	if (img_cursor_init(&cur, img, off) < 0 || img_cursor_next(&cur, &pkt) < 0 ||
	    pkt.type != PKT_PSB) {
		sk->flags = IDX_BAD_PSBPLUS;
		return;
	}
	for (i = 0; i < PSBPLUS_MAX; i++) {
		ret = img_cursor_next(&cur, &pkt);
		if (ret == -pte_eos || cur.gap)
			return;
		if (ret < 0) {
			sk->flags |= IDX_BAD_PSBPLUS;
			return;
		}
		switch (pkt.type) {
		case PKT_TSC:
			sk->tsc = pkt.u.tsc;
			sk->flags |= IDX_HAVE_TSC;
			break;
		case PKT_TMA:
			sk->ctc = pkt.u.tma.ctc;
			sk->fc = pkt.u.tma.fc & 0x1ff;
			sk->flags |= IDX_HAVE_TMA;
			break;
		case PKT_CBR:
			sk->cbr = pkt.u.cbr;
			sk->flags |= IDX_HAVE_CBR;
			break;
		case PKT_MODE_EXEC:
			sk->exec = (uint8_t)((pkt.u.exec.csl & 1) |
					     (pkt.u.exec.csd & 1) << 1 |
					     (pkt.u.exec.iflag & 1) << 2);
			sk->flags |= IDX_HAVE_EXEC;
			break;
		case PKT_MODE_TSX:
			sk->tsx = (uint8_t)((pkt.u.tsx.intx & 1) |
					    (pkt.u.tsx.abrt & 1) << 1);
			sk->flags |= IDX_HAVE_TSX;
			break;
		case PKT_PIP:
			sk->cr3 = pkt.u.pip.cr3;
			sk->nr = pkt.u.pip.nr & 1;
			sk->flags |= IDX_HAVE_PIP;
			break;
		case PKT_VMCS:
			sk->vmcs = pkt.u.vmcs;
			sk->flags |= IDX_HAVE_VMCS;
			break;
		case PKT_FUP:
			ret = pkt_ip_update(&pkt, &last_ip);
			if (ret < 0) {
				sk->flags |= IDX_BAD_PSBPLUS;
				return;
			}
			if (ret == 0) {
				sk->fup_ip = last_ip;
				sk->flags |= IDX_HAVE_FUP;
			}
			break;
		case PKT_PSBEND:
			sk->flags |= IDX_PSBEND;
			return;
		case PKT_PAD:
		case PKT_CYC:
		case PKT_MTC:
			break;
		default:
			/* Not status: the PSB+ ended without a PSBEND. */
			return;
		}
	}
}

static int push_seek(struct unit1 *u, const struct idx_seek *sk)
{
	if (u->n == u->cap) {
		size_t cap = u->cap ? u->cap * 2 : 64;
		struct idx_seek *p = realloc(u->seeks, cap * sizeof(*p));

		if (!p)
			return -pte_nomem;
		u->seeks = p;
		u->cap = cap;
	}
	u->seeks[u->n++] = *sk;
	return 0;
}

/* Place the PSBs of the run [@r, @e) that start in [@lo, @hi). */
static int place_run(const struct img *img, uint64_t r, uint64_t e, uint64_t lo,
		     uint64_t hi, struct unit1 *u)
{
	struct idx_seek sk;
	uint64_t q;
	int ret;

	if (e - r < PKT_PSB_SIZE)
		return 0;
	/* The lowest q = e - 16j with q >= max(r, lo). */
	if (lo < r)
		lo = r;
	q = e - PKT_PSB_SIZE;
	if (q < lo)
		return 0;
	q -= (q - lo) / PKT_PSB_SIZE * PKT_PSB_SIZE;
	for (; q + PKT_PSB_SIZE <= e && q < hi; q += PKT_PSB_SIZE) {
		decode_psbplus(img, q, &sk);
		ret = push_seek(u, &sk);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* Phase 1 worker body: the runs of pairs of one unit. */
static int scan_unit(struct idx *idx, struct unit1 *u)
{
	const struct img *img = idx->img;
	const struct img_span *s = &img->spans[u->span];
	uint64_t x = u->a, q, t, stop;
	int open_left, open_right, ret;

	while (x < u->b) {
		if (atomic_load_explicit(&idx->cancel, memory_order_relaxed))
			return -pte_canceled;
		stop = u->b - x > CANCEL_STEP ? x + CANCEL_STEP : u->b;
		q = next_pair(img, u->span, x, stop);
		if (q == UINT64_MAX) {
			x = stop;
			continue;
		}
		t = run_end(img, u->span, q, u->b);
		/* Only the first run can come from before the chunk and only
		 * the last can go on after it. */
		open_left = q < u->a + 2 && q >= 2 && (q - 2 >= s->off || !s->gap_before) &&
			    pair_at(img, q - 2);
		open_right = t >= u->b && pair_at(img, t);
		if (open_left || open_right) {
			struct run_piece *pc = open_left ? &u->left : &u->right;

			pc->s = q;
			pc->e = t;
			pc->open_left = (uint8_t)open_left;
			pc->open_right = (uint8_t)open_right;
			pc->used = 1;
			if (open_left && open_right)
				u->right = *pc;
			/* A piece open on one side only still places the
			 * PSBs it can: none, since its other end decides. */
		} else {
			ret = place_run(img, q, t, u->a, u->b, u);
			if (ret < 0)
				return ret;
		}
		x = t > q ? t : q + 1;
	}
	return 0;
}

/* Intern a PSB+ context; CTX_NONE when the table is full. */
static uint32_t ctx_intern(struct idx *idx, const struct idx_seek *sk)
{
	uint64_t h;
	size_t i, ncap;
	struct ctx_entry *e;

	if (!(sk->flags & (IDX_HAVE_PIP | IDX_HAVE_VMCS)) && !sk->cr3 && !sk->vmcs)
		return 0;	/* entry 0 is the empty context */
	if (!idx->nctx)
		return CTX_NONE;
	if (idx->nctx * 2 >= idx->hcap) {
		uint32_t *hs;

		ncap = idx->hcap ? idx->hcap * 2 : 1024;
		while (ncap <= idx->nctx * 2)	/* a loaded table starts hashless */
			ncap *= 2;
		hs = calloc(ncap, sizeof(*hs));
		if (!hs)
			return CTX_NONE;
		for (i = 1; i < idx->nctx; i++) {
			e = &idx->cblk[i >> CTX_SHIFT][i & (CTX_BLK - 1)];
			h = (e->cr3 ^ e->vmcs * 0x9e3779b97f4a7c15ull ^ e->nr) *
			    0xff51afd7ed558ccdull;
			h ^= h >> 29;
			while (hs[h & (ncap - 1)])
				h++;
			hs[h & (ncap - 1)] = (uint32_t)i;
		}
		free(idx->hslot);
		idx->hslot = hs;
		idx->hcap = ncap;
	}
	h = (sk->cr3 ^ sk->vmcs * 0x9e3779b97f4a7c15ull ^ sk->nr) *
	    0xff51afd7ed558ccdull;
	h ^= h >> 29;
	for (;; h++) {
		uint32_t v = idx->hslot[h & (idx->hcap - 1)];

		if (!v)
			break;
		e = &idx->cblk[v >> CTX_SHIFT][v & (CTX_BLK - 1)];
		if (e->cr3 == sk->cr3 && e->vmcs == sk->vmcs && e->nr == sk->nr)
			return v;
	}
	if (idx->nctx >= CTX_MAX)
		return CTX_NONE;
	i = idx->nctx;
	if ((i >> CTX_SHIFT) >= idx->ncblk) {
		idx->cblk[idx->ncblk] = calloc(CTX_BLK, sizeof(*e));
		if (!idx->cblk[idx->ncblk])
			return CTX_NONE;
		idx->ncblk++;
	}
	e = &idx->cblk[i >> CTX_SHIFT][i & (CTX_BLK - 1)];
	e->cr3 = sk->cr3;
	e->vmcs = sk->vmcs;
	e->nr = sk->nr;
	idx->hslot[h & (idx->hcap - 1)] = (uint32_t)i;
	idx->nctx++;
	return (uint32_t)i;
}

/*
 * The ctx table's blocks are reallocated only by the merger; readers use
 * the block pointer array, so it must not move under them.  Keep it big
 * enough from the start instead of growing it.
 */
static int ctx_reserve(struct idx *idx, int empty)
{
	size_t n = (CTX_MAX >> CTX_SHIFT) + 1;

	idx->cblk = calloc(n, sizeof(*idx->cblk));
	if (idx->cblk && empty)
		return 0;
	if (!idx->cblk || !(idx->cblk[0] = calloc(CTX_BLK, sizeof(struct ctx_entry))))
		return -pte_nomem;
	idx->ncblk = 1;
	idx->nctx = 1;
	return 0;
}

/* Append seek point @sk (the merger only). */
static int publish_seek(struct idx *idx, const struct idx_seek *sk)
{
	size_t i = atomic_load_explicit(&idx->nseeks, memory_order_relaxed);
	struct seek_packed *p;
	uint32_t ctx;

	if ((i >> BLK_SHIFT) >= idx->nblk)
		return -pte_internal;
	if (!idx->sblk[i >> BLK_SHIFT]) {
		idx->sblk[i >> BLK_SHIFT] = malloc(BLK_SIZE * sizeof(*p));
		if (!idx->sblk[i >> BLK_SHIFT])
			return -pte_nomem;
	}
	ctx = ctx_intern(idx, sk);
	p = &idx->sblk[i >> BLK_SHIFT][i & BLK_MASK];
	p->off = sk->offset;
	p->tsc_cbr = (sk->tsc & ((1ull << 56) - 1)) | (uint64_t)sk->cbr << 56;
	p->ip = sk->fup_ip;
	p->misc = (uint64_t)sk->ctc | (uint64_t)(sk->fc & 0x1ff) << 16 |
		  (uint64_t)(sk->exec & 7) << 25 | (uint64_t)(sk->tsx & 3) << 28 |
		  (uint64_t)(sk->flags & SEEK_FLAG_MASK) << 30 | (uint64_t)ctx << 40;
	atomic_store_explicit(&idx->nseeks, i + 1, memory_order_release);
	return 0;
}

static uint64_t seek_off(const struct idx *idx, size_t i)
{
	return idx->sblk[i >> BLK_SHIFT][i & BLK_MASK].off;
}

size_t idx_nseeks(const struct idx *idx)
{
	return idx ? atomic_load_explicit(&idx->nseeks, memory_order_acquire) : 0;
}

int idx_scan_done(const struct idx *idx)
{
	return idx ? atomic_load(&idx->scan_done) : 0;
}

/* Whether data was lost between the PSBs at @prev and @off. */
static int gap_between(const struct img *img, uint64_t prev, uint64_t off)
{
	long a = img_span_of(img, prev), b = img_span_of(img, off), i;

	if (a < 0 || b < 0)
		return 0;
	for (i = a + 1; i <= b; i++)
		if (img->spans[i].gap_before)
			return 1;
	return 0;
}

int idx_seek(const struct idx *idx, size_t i, struct idx_seek *out)
{
	const struct seek_packed *p;
	uint32_t ctx;

	if (!idx || !out || i >= idx_nseeks(idx))
		return -pte_invalid;
	p = &idx->sblk[i >> BLK_SHIFT][i & BLK_MASK];
	ctx = (uint32_t)(p->misc >> 40);
	if (ctx == CTX_NONE) {
		decode_psbplus(idx->img, p->off, out);
	} else {
		memset(out, 0, sizeof(*out));
		out->offset = p->off;
		out->tsc = p->tsc_cbr & ((1ull << 56) - 1);
		out->cbr = (uint8_t)(p->tsc_cbr >> 56);
		out->fup_ip = p->ip;
		out->ctc = (uint16_t)p->misc;
		out->fc = (uint16_t)(p->misc >> 16) & 0x1ff;
		out->exec = (uint8_t)(p->misc >> 25) & 7;
		out->tsx = (uint8_t)(p->misc >> 28) & 3;
		out->flags = (uint16_t)(p->misc >> 30) & SEEK_FLAG_MASK;
		if (ctx) {
			const struct ctx_entry *e =
				&idx->cblk[ctx >> CTX_SHIFT][ctx & (CTX_BLK - 1)];

			out->cr3 = e->cr3;
			out->vmcs = e->vmcs;
			out->nr = e->nr;
		}
	}
	if (i > 0 && gap_between(idx->img, seek_off(idx, i - 1), p->off))
		out->flags |= IDX_GAP;
	return 0;
}

int idx_find(const struct idx *idx, uint64_t off, size_t *i)
{
	size_t lo = 0, hi, n;

	if (!idx || !i)
		return -pte_invalid;
	n = idx_nseeks(idx);
	if (!n || seek_off(idx, 0) > off)
		return -pte_nosync;
	hi = n;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (seek_off(idx, mid) <= off)
			lo = mid;
		else
			hi = mid;
	}
	*i = lo;
	return 0;
}

/*
 * Phase 2: one pass over a segment.
 */
static uint8_t pkt_cls[PKT_NTYPES];
static pthread_once_t cls_once = PTHREAD_ONCE_INIT;
static pthread_once_t skim_once = PTHREAD_ONCE_INIT;

static void cls_fill(void)
{
	int t;

	for (t = 0; t < PKT_NTYPES; t++)
		pkt_cls[t] = (uint8_t)pkt_type_class((enum pkt_type)t);
}

static void count_pkt(struct idx_summary *s, const struct pkt *pkt)
{
	s->npackets++;
	s->per_class[pkt_cls[pkt->type]]++;
	switch (pkt->type) {
	case PKT_TSC:
		if (!s->have_tsc)
			s->first_tsc = pkt->u.tsc;
		s->have_tsc = 1;
		s->last_tsc = pkt->u.tsc;
		break;
	case PKT_CYC:
		s->cycles += pkt->u.cyc;
		if (pkt->u.cyc > s->max_cyc)
			s->max_cyc = pkt->u.cyc;
		break;
	case PKT_OVF:
		s->novf++;
		break;
	default:
		break;
	}
}

/* An error row, as the window shows it: a decode error, or the loss of
 * the data up to the next PSB at a gap (-pte_gap). */
static void count_error(struct idx_summary *s, int err)
{
	s->npackets++;
	s->per_class[PKC_ERROR]++;
	if (err == -pte_gap)
		s->ngaps++;
	else
		s->nerrors++;
}

/*
 * Inside a segment, which may be many megabytes long: every CANCEL_STEP
 * bytes, credit the bytes done since the last call (*@credited holds
 * what was credited so far of the @done bytes of this segment) and look
 * for a cancel.  Returns -pte_canceled or 0.
 */
static int pace(struct idx *idx, uint64_t done, uint64_t *credited)
{
	if (!idx)
		return 0;
	atomic_fetch_add_explicit(&idx->done, done - *credited,
				  memory_order_relaxed);
	*credited = done;
	return atomic_load_explicit(&idx->cancel, memory_order_relaxed) ?
	       -pte_canceled : 0;
}

/*
 * A skimming pass for the summaries: the packets that make up nearly all
 * of a trace (tnt.8, pad, one-byte cyc, tip/fup, mtc, psbend, cbr, tma,
 * pip) are sized and classed from one or two bytes by table; everything
 * else, and anything near the end, goes through pkt_next(), so the counts
 * are exactly those of a pkt_next() walk (tests/test_index.c checks).
 */
static uint8_t skim_size[256];	/* 0: ask pkt_next() */
static uint64_t skim_inc[256];	/* 1 << 8 * class */
static uint8_t skim_cyc[256];	/* cycles of a one-byte cyc */
static uint8_t skim_ext_size[256];	/* 02 xx, by xx */
static uint64_t skim_ext_inc[256];

#define INC(cls)	(1ull << 8 * (cls))

static void skim_fill(void)
{
	static const int8_t ipsz[8] = { 0, 2, 4, 6, 6, -1, 8, -1 };
	unsigned b;

	for (b = 0; b < 256; b++) {
		uint8_t sz = 0, cls = PKC_OTHER;

		if (b == 0) {
			sz = 1;
			cls = PKC_SYNC;
		} else if (b == 2) {
			sz = 0;
		} else if (!(b & 1)) {
			sz = 1;
			cls = PKC_BRANCH;
		} else if ((b & 3) == 3) {
			if (!(b & 4)) {
				sz = 1;
				cls = PKC_TIMING;
				skim_cyc[b] = (uint8_t)(b >> 3);
			}
		} else if ((b & 0x1f) == 0x0d || (b & 0x1f) == 0x11 ||
			   (b & 0x1f) == 0x01 || (b & 0x1f) == 0x1d) {
			if (ipsz[b >> 5] >= 0) {
				sz = (uint8_t)(1 + ipsz[b >> 5]);
				cls = PKC_IP;
			}
		} else if (b == 0x59) {
			sz = 2;
			cls = PKC_TIMING;
		}
		skim_size[b] = sz;
		skim_inc[b] = sz ? INC(cls) : 0;
	}
	skim_ext_size[0x23] = 2;	/* psbend */
	skim_ext_inc[0x23] = INC(PKC_SYNC);
	skim_ext_size[0x03] = 4;	/* cbr */
	skim_ext_inc[0x03] = INC(PKC_TIMING);
	skim_ext_size[0x73] = 7;	/* tma */
	skim_ext_inc[0x73] = INC(PKC_TIMING);
	skim_ext_size[0x43] = 8;	/* pip */
	skim_ext_inc[0x43] = INC(PKC_MODE);
}

/* Add the byte-packed class counts @acc into @cnt. */
static inline void skim_flush(uint64_t acc, uint64_t *cnt)
{
	int c;

	for (c = 0; c < PKC_NCLASSES; c++)
		cnt[c] += (acc >> 8 * c) & 0xff;
}

#if defined(__x86_64__)
static const uint8_t skim_prefix[32] = {
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
};

/*
 * Count the leading one-byte packets (pad, tnt.8, one-byte cyc) among the
 * 16 bytes at @p, sixteen at a time: each such byte is a whole packet, so
 * the next one starts right after it.  Returns how many there were.
 */
static inline unsigned skim16(const uint8_t *p, uint64_t *cnt, uint64_t *cycles,
			     __m128i *vmax)
{
	const __m128i z = _mm_setzero_si128();
	__m128i v = _mm_loadu_si128((const __m128i *)p);
	__m128i cyc = _mm_cmpeq_epi8(_mm_and_si128(v, _mm_set1_epi8(7)),
				     _mm_set1_epi8(3));
	unsigned mpad = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, z));
	unsigned meven = (unsigned)_mm_movemask_epi8(
		_mm_cmpeq_epi8(_mm_and_si128(v, _mm_set1_epi8(1)), z));
	unsigned mtwo = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(2)));
	unsigned mcyc = (unsigned)_mm_movemask_epi8(cyc);
	unsigned ok = ((meven & ~mtwo) | mcyc) & 0xffff;
	unsigned j = ok == 0xffff ? 16 : (unsigned)__builtin_ctz(~ok);
	unsigned m = (1u << j) - 1, np, nc;

	if (!j)
		return 0;
	np = (unsigned)__builtin_popcount(mpad & m);
	nc = (unsigned)__builtin_popcount(mcyc & m);
	cnt[PKC_SYNC] += np;
	cnt[PKC_TIMING] += nc;
	cnt[PKC_BRANCH] += j - np - nc;
	if (mcyc & m) {
		__m128i val = _mm_and_si128(_mm_srli_epi16(v, 3), _mm_set1_epi8(0x1f));
		__m128i pre = _mm_loadu_si128((const __m128i *)(skim_prefix + 16 - j));
		__m128i vals = _mm_and_si128(val, _mm_and_si128(cyc, pre));
		__m128i sad = _mm_sad_epu8(vals, z);

		*vmax = _mm_max_epu8(*vmax, vals);

		*cycles += (uint64_t)_mm_cvtsi128_si64(sad) +
			   (uint64_t)_mm_extract_epi16(sad, 4);
	}
	return j;
}
#endif

/* Built twice, the CPU picking at load time: skim16's popcounts are one
 * instruction with POPCNT and a libgcc call without. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("popcnt", "default"), noinline))
#endif
static int skim(struct idx *idx, const uint8_t *p, const uint8_t *end,
		uint64_t off, struct idx_summary *s, uint64_t *credited)
{
	/* Pointers stay inside [p, end]: past the end is undefined. */
	const uint8_t *begin = p;
	const uint8_t *next = end - p > CANCEL_STEP ? p + CANCEL_STEP : end;
	struct pkt_decoder dec;
	struct pkt pkt;
	uint64_t cnt[PKC_NCLASSES] = { 0 }, cycles = 0, cmax = 0;
	int ret, c, status = 0;
#if defined(__x86_64__)
	__m128i vmax = _mm_setzero_si128();
#endif

	pkt_decoder_init(&dec, p, end, off);
	while (p < end) {
		if (p >= next) {
			status = pace(idx, (uint64_t)(p - begin), credited);
			if (status < 0)
				break;
			next = end - p > CANCEL_STEP ? p + CANCEL_STEP : end;
		}
		/*
		 * The fast loop: no bounds checks (every fast packet is at
		 * most 9 bytes), class counts packed in bytes of one register
		 * (flushed before a byte can overflow), so the only chain
		 * from one packet to the next is the size lookup.  It stops
		 * every CANCEL_STEP bytes.
		 */
		if (dec.bip_sz < 0 && end - p > PKT_MAX_SIZE) {
			const uint8_t *fend = end - PKT_MAX_SIZE;
			uint64_t acc = 0;
			unsigned k = 0;

			if (fend > next)
				fend = next;

			while (p < fend) {
				unsigned b = *p, sz = skim_size[b];

#if defined(__x86_64__)
				if (sz == 1) {
					unsigned j = skim16(p, cnt, &cycles, &vmax);

					if (j) {
						p += j;
						continue;
					}
				}
#endif
				acc += skim_inc[b];
				cycles += skim_cyc[b];
				cmax = skim_cyc[b] > cmax ? skim_cyc[b] : cmax;
				/* A branch, not arithmetic: predicted, it lets the
				 * next load start before this one's size is known. */
				if (__builtin_expect(sz == 1, 1)) {
					p++;
				} else if (sz) {
					p += sz;
				} else if (b == 0x99 && (p[1] >> 5) < 2) {
					/* mode.exec, mode.tsx */
					acc += INC(PKC_MODE);
					p += 2;
				} else if ((b & 7) == 7 && !(p[1] & 1)) {
					/* cyc with one extension byte */
					uint64_t v = (b >> 3) | (uint64_t)(p[1] >> 1) << 5;

					acc += INC(PKC_TIMING);
					cycles += v;
					cmax = v > cmax ? v : cmax;
					p += 2;
				} else {
					if (b != 2 || !(sz = skim_ext_size[p[1]]))
						break;
					acc += skim_ext_inc[p[1]];
					p += sz;
				}
				if (++k == 255) {
					skim_flush(acc, cnt);
					acc = 0;
					k = 0;
				}
			}
			skim_flush(acc, cnt);
			if (p >= end)
				break;
			if (p >= next)
				continue;
		}
		dec.pos = p;
		ret = pkt_next(&dec, &pkt);
		if (ret == -pte_eos)
			break;
		if (ret < 0) {
			/* Counted as one error packet; the rest of the
			 * segment cannot be trusted. */
			count_error(s, ret);
			break;
		}
		count_pkt(s, &pkt);
		p = dec.pos;
	}
	s->cycles += cycles;
#if defined(__x86_64__)
	{
		uint8_t m[16];
		int k;

		_mm_storeu_si128((__m128i *)m, vmax);
		for (k = 0; k < 16; k++)
			cmax = m[k] > cmax ? m[k] : cmax;
	}
#endif
	if (cmax > s->max_cyc)
		s->max_cyc = cmax;
	for (c = 0; c < PKC_NCLASSES; c++) {
		s->per_class[c] += cnt[c];
		s->npackets += cnt[c];
	}
	return status;
}

/* Summarise the segment [@off, @end); *@credited as for pace().
 * Returns 0, or -pte_canceled (the summary is then partial). */
static int summarise(struct idx *idx, uint64_t off, uint64_t end,
		     struct idx_summary *s, uint64_t *credited)
{
	const struct img *img = idx->img;
	const struct img_span *sp;
	struct img_cursor cur;
	struct pkt pkt;
	uint64_t next = off + CANCEL_STEP;
	long si;
	int ret;

	memset(s, 0, sizeof(*s));
	s->size = end - off;
	si = img_span_of(img, off);
	if (si < 0)
		return 0;
	sp = &img->spans[si];
	if (end < sp->off + sp->size ||
	    (end == sp->off + sp->size && !img_gap_at(img, end))) {
		/* The common case: one span, skimmed.  (Not when a gap cuts
		 * the last packet: the cursor tells that apart.) */
		return skim(idx, sp->data + (off - sp->off),
			    sp->data + (end - sp->off), off, s, credited);
	}
	if (img_cursor_init(&cur, img, off) < 0)
		return 0;
	while (img_cursor_offset(&cur) < end) {
		if (img_cursor_offset(&cur) >= next) {
			if (pace(idx, img_cursor_offset(&cur) - off, credited) < 0)
				return -pte_canceled;
			next = img_cursor_offset(&cur) + CANCEL_STEP;
		}
		ret = img_cursor_next(&cur, &pkt);
		if (ret == -pte_eos)
			return 0;
		if (ret < 0 || img_cursor_offset(&cur) > end) {
			count_error(s, ret);
			/* data lost after the end: the error row is the last */
			if (ret != -pte_gap && end == img->size)
				s->ngaps += (uint32_t)img_gap_at(img, end);
			return 0;
		}
		count_pkt(s, &pkt);
	}
	/* Data lost right after the segment's last packet, before the next
	 * PSB: the segment it cut counts it (the window marks that PSB). */
	s->ngaps += (uint32_t)img_gap_at(img, end);
	return 0;
}

static int push_exc(struct unit2 *u, uint64_t seg, const struct idx_summary *s)
{
	if (u->n == u->cap) {
		size_t cap = u->cap ? u->cap * 2 : 16;
		struct sum_exc *p = realloc(u->exc, cap * sizeof(*p));

		if (!p)
			return -pte_nomem;
		u->exc = p;
		u->cap = cap;
	}
	u->exc[u->n].seg = seg;
	u->exc[u->n].full = *s;
	u->n++;
	return 0;
}

/* Store @s as segment @i's packed summary; 1 if it needs an exception. */
static int pack_summary(struct idx *idx, size_t i, const struct idx_summary *s)
{
	struct sum_packed *p = &idx->ublk[i >> BLK_SHIFT][i & BLK_MASK];
	int exc = 0, c;
	uint64_t span = s->last_tsc - s->first_tsc;

	memset(p, 0, sizeof(*p));
	for (c = 0; c < PKC_NCLASSES; c++) {
		if (s->per_class[c] > 0xffff)
			exc = 1;
		p->cnt[c] = (uint16_t)(s->per_class[c] > 0xffff ? 0xffff : s->per_class[c]);
	}
	if (s->cycles > 0xffffffffu || s->max_cyc > 0xffffffffu ||
	    idx_summary_trouble(s) ||
	    (s->have_tsc && (span > 0xffffffffu || s->first_tsc >> 56 ||
			     s->last_tsc < s->first_tsc)))
		exc = 1;
	p->cycles = (uint32_t)s->cycles;
	p->max_cyc = (uint32_t)s->max_cyc;
	p->tsc_span = (uint32_t)span;
	p->tsc_flags = (s->first_tsc & ((1ull << 56) - 1)) |
		       (uint64_t)((s->have_tsc ? SUM_TSC : 0) | (exc ? SUM_EXC : 0)) << 56;
	return exc;
}

/* Phase 2 worker body. */
static int sum_unit(struct idx *idx, struct unit2 *u)
{
	uint64_t size = idx->img->size, end;
	struct idx_summary s;
	size_t i, n = atomic_load(&idx->nseeks);
	int ret;

	for (i = u->s0; i < u->s1; i++) {
		uint64_t credited = 0;

		if (atomic_load_explicit(&idx->cancel, memory_order_relaxed))
			return -pte_canceled;
		end = i + 1 < n ? seek_off(idx, i + 1) : size;
		if (summarise(idx, seek_off(idx, i), end, &s, &credited) < 0)
			return -pte_canceled;
		if (pack_summary(idx, i, &s)) {
			ret = push_exc(u, i, &s);
			if (ret < 0)
				return ret;
		}
		atomic_fetch_add_explicit(&idx->done, s.size - credited,
					  memory_order_relaxed);
	}
	return 0;
}

/*
 * The builder: a coordinator thread hands out units to workers and merges
 * their results in order.
 */
struct worker_arg {
	struct idx *idx;
	size_t unit;
};

static int scan_body(void *arg)
{
	struct worker_arg *w = arg;

	return scan_unit(w->idx, &w->idx->u1[w->unit]);
}

static int sum_body(void *arg)
{
	struct worker_arg *w = arg;

	return sum_unit(w->idx, &w->idx->u2[w->unit]);
}

static int time_unit_body(void *arg);

/* Call @fn(release_ctx, p, n) on the bytes of logical [@a, @b), span by
 * span. */
static void range_call(struct idx *idx, uint64_t a, uint64_t b,
		       void (*fn)(void *ctx, const uint8_t *p, size_t n))
{
	long si;

	if (!fn || b <= a)
		return;
	si = img_span_of(idx->img, a);
	while (si >= 0 && (size_t)si < idx->img->nspans && a < b) {
		const struct img_span *s = &idx->img->spans[si];
		uint64_t e = s->off + s->size < b ? s->off + s->size : b;

		fn(idx->release_ctx, s->data + (a - s->off), (size_t)(e - a));
		a = e;
		si++;
	}
}

static void release_range(struct idx *idx, uint64_t a, uint64_t b)
{
	range_call(idx, a, b, idx->release);
}

/* A unit's guarded body, with what it works on. */
static int unit_guarded(struct idx *idx, int (*body)(void *), size_t k)
{
	struct worker_arg w = { idx, k };

	return idx->guard(body, &w);
}

/* Run unit @k of the current phase (struct pool_cfg.run). */
static int unit_run(void *ctx, unsigned worker, size_t k)
{
	struct idx *idx = ctx;
	int ret;

	(void)worker;
	/* Pages are dropped as soon as a unit is done, so only the units in
	 * the workers' hands stay mapped. */
	if (idx->u1) {
		struct unit1 *u = &idx->u1[k];

		/* Read ahead of the scan, this unit and the next: the mapping
		 * may be advised for random access (the browser's). */
		range_call(idx, u->a, k + 1 < idx->nunits ? idx->u1[k + 1].b : u->b,
			   idx->willneed);
		ret = unit_guarded(idx, scan_body, k);
		release_range(idx, u->a, u->b);
		if (!ret)
			atomic_fetch_add_explicit(&idx->done, u->b - u->a,
						  memory_order_relaxed);
	} else if (idx->u2) {
		size_t s0 = idx->u2[k].s0, s1 = idx->u2[k].s1;
		size_t n = idx_nseeks(idx);

		ret = unit_guarded(idx, sum_body, k);
		if (s1 > s0)
			release_range(idx, seek_off(idx, s0),
				      s1 < n ? seek_off(idx, s1) : idx->img->size);
	} else {
		/* Phase 3 keeps the pages: its merge may re-read the unit,
		 * and drops them then. */
		ret = unit_guarded(idx, time_unit_body, k);
	}
	return ret;
}

/* Run the current unit table on nthreads workers, calling @merge for each
 * unit in order, at most four units ahead of it.  Returns the first
 * failure. */
static int run_units(struct idx *idx, int (*merge)(void *ctx, size_t k))
{
	struct pool_cfg cfg = {
		.nthreads = idx->nthreads, .nunits = idx->nunits, .window = 4,
		.run = unit_run, .ctx = idx, .cancel = &idx->cancel,
	};
	struct pool *p;
	int ret, st;

	ret = pool_start(&p, &cfg);
	if (ret < 0)
		return ret;
	ret = pool_merge(p, merge);
	st = pool_wait(p);
	pool_free(p);
	if (!ret && atomic_load(&idx->cancel))
		ret = -pte_canceled;
	/* The first real failure wins over the cancels it caused. */
	if (ret == -pte_canceled && st < 0 && st != -pte_canceled)
		ret = st;
	return ret;
}

struct tail_arg {
	struct idx *idx;
	uint64_t r, e;
	struct unit1 out;
};

/* Place the PSBs of a run that crossed chunk edges (guarded). */
static int tail_body(void *arg)
{
	struct tail_arg *ta = arg;

	return place_run(ta->idx->img, ta->r, ta->e, 0, UINT64_MAX, &ta->out);
}

static int publish_run(struct idx *idx, uint64_t r, uint64_t e)
{
	struct tail_arg ta;
	size_t i;
	int ret;

	memset(&ta, 0, sizeof(ta));
	ta.idx = idx;
	ta.r = r;
	ta.e = e;
	ret = idx->guard(tail_body, &ta);
	for (i = 0; !ret && i < ta.out.n; i++)
		ret = publish_seek(idx, &ta.out.seeks[i]);
	free(ta.out.seeks);
	return ret;
}

/*
 * Merge phase 1 unit @k in order.  idx->run_open says a run reached the
 * end of the previous unit: it started at run_start and reaches run_end.
 */
static int merge1(void *ctx, size_t k)
{
	struct idx *idx = ctx;
	struct unit1 *u = &idx->u1[k];
	size_t i;
	int ret;

	if (idx->run_open) {
		if (u->left.used && u->left.open_left && u->left.s <= idx->run_end) {
			if (u->left.open_right) {
				/* The run covers the whole unit. */
				idx->run_end = u->left.e;
				goto out_done;
			}
			ret = publish_run(idx, idx->run_start, u->left.e);
		} else {
			ret = publish_run(idx, idx->run_start, idx->run_end);
		}
		if (ret < 0)
			return ret;
		idx->run_open = 0;
	} else if (u->left.used && u->left.open_left && !u->left.open_right) {
		/* Joined to bytes before a resume point: place what starts
		 * at or after it. */
		ret = publish_run(idx, u->left.s, u->left.e);
		if (ret < 0)
			return ret;
	}
	for (i = 0; i < u->n; i++) {
		ret = publish_seek(idx, &u->seeks[i]);
		if (ret < 0)
			return ret;
	}
	if (u->right.used && u->right.open_right) {
		idx->run_open = 1;
		idx->run_start = u->right.s;
		idx->run_end = u->right.e;
	}
out_done:
	free(u->seeks);
	u->seeks = NULL;
	u->n = u->cap = 0;
	atomic_store_explicit(&idx->scanned, idx->run_open ? idx->run_start : u->b,
			      memory_order_release);
	/* The last unit: a run still open ends with the data. */
	if (idx->run_open && k + 1 == idx->nunits) {
		idx->run_open = 0;
		return publish_run(idx, idx->run_start, idx->run_end);
	}
	return 0;
}

static int phase1(struct idx *idx)
{
	const struct img *img = idx->img;
	size_t si, n = 0, k;
	uint64_t a, b, start = idx->resume_off;
	int ret;

	for (si = 0; si < img->nspans; si++) {
		const struct img_span *s = &img->spans[si];

		if (s->off + s->size <= start)
			continue;
		a = s->off > start ? s->off : start;
		n += (size_t)((s->off + s->size - a + idx->chunk - 1) / idx->chunk);
	}
	idx->u1 = calloc(n ? n : 1, sizeof(*idx->u1));
	if (!idx->u1)
		return -pte_nomem;
	k = 0;
	for (si = 0; si < img->nspans; si++) {
		const struct img_span *s = &img->spans[si];

		if (s->off + s->size <= start)
			continue;
		for (a = s->off > start ? s->off : start; a < s->off + s->size; a = b) {
			b = s->size - (a - s->off) > idx->chunk ? a + idx->chunk
								: s->off + s->size;
			idx->u1[k].span = si;
			idx->u1[k].a = a;
			idx->u1[k].b = b;
			k++;
		}
	}
	idx->nunits = n;
	idx->total = img->size - start;
	ret = run_units(idx, merge1);
	free_units(idx);
	return ret;
}

static int merge2(void *ctx, size_t k)
{
	struct idx *idx = ctx;
	struct unit2 *u = &idx->u2[k];
	const struct sum_packed *p;
	size_t i, e = 0;
	uint64_t np;
	int c;

	pthread_mutex_lock(&idx->exc_lock);
	if (idx->nexc + u->n > idx->excap) {
		size_t cap = (idx->nexc + u->n) * 2;
		struct sum_exc *x = realloc(idx->exc, cap * sizeof(*x));

		if (!x)
			goto out_nomem;
		idx->exc = x;
		idx->excap = cap;
	}
	for (i = u->s0; i < u->s1; i++) {
		p = &idx->ublk[i >> BLK_SHIFT][i & BLK_MASK];
		if (!(i & ((1u << GRP_SHIFT) - 1)))
			idx->oblk[i >> BLK_SHIFT][(i & BLK_MASK) >> GRP_SHIFT] = idx->ord_next;
		if ((p->tsc_flags >> 56) & SUM_EXC) {
			const struct idx_summary *f = &u->exc[e].full;

			if (e >= u->n || u->exc[e].seg != i)
				goto out_internal;
			if (idx_summary_trouble(f)) {
				if (idx->ntrouble == idx->trcap) {
					size_t cap = idx->trcap ? idx->trcap * 2 : 64;
					uint64_t *t = realloc(idx->trouble, cap * sizeof(*t));

					if (!t)
						goto out_nomem;
					idx->trouble = t;
					idx->trcap = cap;
				}
				idx->trouble[idx->ntrouble++] = i;
			}
			idx->exc[idx->nexc++] = u->exc[e++];
			np = f->npackets;
			for (c = 0; c < PKC_NCLASSES; c++)
				idx->totals.per_class[c] += f->per_class[c];
			idx->totals.cycles += f->cycles;
			if (f->max_cyc > idx->totals.max_cyc)
				idx->totals.max_cyc = f->max_cyc;
			idx->totals.novf += f->novf;
			idx->totals.nerrors += f->nerrors;
			idx->totals.ngaps += f->ngaps;
		} else {
			np = 0;
			for (c = 0; c < PKC_NCLASSES; c++) {
				np += p->cnt[c];
				idx->totals.per_class[c] += p->cnt[c];
			}
			idx->totals.cycles += p->cycles;
			if (p->max_cyc > idx->totals.max_cyc)
				idx->totals.max_cyc = p->max_cyc;
		}
		if ((p->tsc_flags >> 56) & SUM_TSC) {
			uint64_t first = p->tsc_flags & ((1ull << 56) - 1);
			uint64_t last = first + p->tsc_span;

			if ((p->tsc_flags >> 56) & SUM_EXC) {
				first = idx->exc[idx->nexc - 1].full.first_tsc;
				last = idx->exc[idx->nexc - 1].full.last_tsc;
			}
			if (!idx->totals.have_tsc || first < idx->totals.first_tsc)
				idx->totals.first_tsc = first;
			if (!idx->totals.have_tsc || last > idx->totals.last_tsc)
				idx->totals.last_tsc = last;
			idx->totals.have_tsc = 1;
		}
		idx->totals.npackets += np;
		idx->ord_next += np;
	}
	pthread_mutex_unlock(&idx->exc_lock);
	atomic_store_explicit(&idx->nsums, u->s1, memory_order_release);
	free(u->exc);
	u->exc = NULL;
	u->n = u->cap = 0;
	return 0;

out_nomem:
	pthread_mutex_unlock(&idx->exc_lock);
	return -pte_nomem;
out_internal:
	pthread_mutex_unlock(&idx->exc_lock);
	return -pte_internal;
}

static int phase2(struct idx *idx)
{
	size_t n = idx_nseeks(idx), s0 = atomic_load(&idx->nsums), i, k, nu;
	uint64_t acc, bytes;
	int ret;

	for (i = s0 >> BLK_SHIFT; i <= (n ? (n - 1) >> BLK_SHIFT : 0) && n; i++) {
		if (!idx->ublk[i]) {
			idx->ublk[i] = malloc(BLK_SIZE * sizeof(struct sum_packed));
			if (!idx->ublk[i])
				return -pte_nomem;
		}
		if (!idx->oblk[i]) {
			idx->oblk[i] = malloc((BLK_SIZE >> GRP_SHIFT) * sizeof(uint64_t));
			if (!idx->oblk[i])
				return -pte_nomem;
		}
	}
	/* Units of about a chunk of bytes each, whole segments. */
	nu = 0;
	acc = 0;
	for (i = s0; i < n; i++) {
		bytes = (i + 1 < n ? seek_off(idx, i + 1) : idx->img->size) - seek_off(idx, i);
		acc += bytes;
		if (acc >= idx->chunk || i + 1 == n) {
			nu++;
			acc = 0;
		}
	}
	idx->u2 = calloc(nu ? nu : 1, sizeof(*idx->u2));
	if (!idx->u2)
		return -pte_nomem;
	k = 0;
	acc = 0;
	idx->u2[0].s0 = s0;
	for (i = s0; i < n; i++) {
		bytes = (i + 1 < n ? seek_off(idx, i + 1) : idx->img->size) - seek_off(idx, i);
		acc += bytes;
		if (acc >= idx->chunk || i + 1 == n) {
			idx->u2[k].s1 = i + 1;
			k++;
			if (k < nu)
				idx->u2[k].s0 = i + 1;
			acc = 0;
		}
	}
	idx->nunits = nu;
	idx->total = n > s0 ? idx->img->size - seek_off(idx, s0) : 0;
	ret = run_units(idx, merge2);
	free_units(idx);
	return ret;
}

/*
 * Phase 3: the time model over the whole stream, in order.
 */

/* A timing packet came: the model's estimate is its time. */
static inline void gacc_at(struct gacc *g, const struct tm_model *tm)
{
	uint64_t t = (uint64_t)(tm->est >> 32);

	if (!g->has_first) {
		g->has_first = 1;
		g->first = t;
	} else if (t >= g->prev && (!g->has_rest || t - g->prev > g->rest)) {
		g->has_rest = 1;
		g->rest = t - g->prev;
	}
	g->has_prev = 1;
	g->prev = t;
}

/* A new segment begins for @g. */
static void gacc_segment(struct gacc *g)
{
	g->has_first = 0;
	g->has_rest = 0;
}

/* Segment @i's gaps from @g's view of it and the timing packet before it
 * (@has_prev, @prev). */
static void gacc_sum(struct tsum *out, int has_prev, uint64_t prev,
		     int has_first, uint64_t first, int has_rest, uint64_t rest,
		     int has_last, uint64_t last)
{
	memset(out, 0, sizeof(*out));
	out->has_gap = (uint8_t)has_rest;
	out->gap = has_rest ? rest : 0;
	if (has_first && has_prev && first >= prev &&
	    (!out->has_gap || first - prev > out->gap)) {
		out->has_gap = 1;
		out->gap = first - prev;
	}
	out->has_last = (uint8_t)has_last;
	out->last = has_last ? last : 0;
}

/* Store segment @i's time summary; the caller publishes it. */
static int tsum_put(struct idx *idx, size_t i, const struct tsum *t)
{
	if (!idx->gblk[i >> BLK_SHIFT]) {
		idx->gblk[i >> BLK_SHIFT] = malloc(BLK_SIZE * sizeof(struct tsum));
		if (!idx->gblk[i >> BLK_SHIFT])
			return -pte_nomem;
	}
	idx->gblk[i >> BLK_SHIFT][i & BLK_MASK] = *t;
	return 0;
}

/* Store @g's summary of segment @i (decoded with the true state). */
static int tsum_from(struct idx *idx, size_t i, const struct gacc *g,
		     int has_prev0, uint64_t prev0)
{
	struct tsum t;

	gacc_sum(&t, has_prev0, prev0, g->has_first, g->first, g->has_rest,
		 g->rest, g->has_prev, g->prev);
	return tsum_put(idx, i, &t);
}

/*
 * The time pass's skim: the packets that make up nearly all of a trace
 * are sized from their first byte; CYCs and MTCs go to the model, and of
 * the others only the first CYC-eligible one after a packet the model
 * acted on (it may settle a pending CYC: tm_advance() does nothing else
 * for them).  Everything else, and anything near the end, goes through
 * pkt_next(), so the model sees what a pkt_next() walk feeds it.
 */
static uint8_t tsk_size[256];	/* 0: ask pkt_next() */
static uint8_t tsk_type[256];	/* enum pkt_type of the sized ones */
static pthread_once_t tsk_once = PTHREAD_ONCE_INIT;

static void tsk_fill(void)
{
	static const int8_t ipsz[8] = { 0, 2, 4, 6, 6, -1, 8, -1 };
	unsigned b;

	for (b = 0; b < 256; b++) {
		if (b == 0) {
			tsk_size[b] = 1;
			tsk_type[b] = PKT_PAD;
		} else if (b != 2 && !(b & 1)) {
			tsk_size[b] = 1;
			tsk_type[b] = PKT_TNT8;
		} else if (((b & 0x1f) == 0x0d || (b & 0x1f) == 0x11 ||
			    (b & 0x1f) == 0x01 || (b & 0x1f) == 0x1d) &&
			   ipsz[b >> 5] >= 0) {
			tsk_size[b] = (uint8_t)(1 + ipsz[b >> 5]);
			tsk_type[b] = (b & 0x1f) == 0x0d ? PKT_TIP :
				      (b & 0x1f) == 0x11 ? PKT_TIP_PGE :
				      (b & 0x1f) == 0x01 ? PKT_TIP_PGD : PKT_FUP;
		}
	}
}

#if defined(__x86_64__)
/*
 * In a run of CYCs (struct batch of time_skim()): the leading one-byte
 * packets (pad, tnt.8, one-byte cyc) among the 16 bytes at @p, sixteen at
 * a time, as skim16() does.  Adds their CYCs to *@sum and *@n; a tnt.8
 * (CYC-eligible) among them sets *@set and restarts the tail; the CYCs
 * after the last one go to *@tail and *@tail_n.  Returns how many bytes.
 */
static inline __attribute__((always_inline)) unsigned
tsk16(const uint8_t *p, uint64_t *sum, uint64_t *n,
     int *set, uint64_t *tail, uint64_t *tail_n)
{
	const __m128i z = _mm_setzero_si128();
	__m128i v = _mm_loadu_si128((const __m128i *)p);
	__m128i cyc = _mm_cmpeq_epi8(_mm_and_si128(v, _mm_set1_epi8(7)),
				     _mm_set1_epi8(3));
	unsigned mpad = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, z));
	unsigned meven = (unsigned)_mm_movemask_epi8(
		_mm_cmpeq_epi8(_mm_and_si128(v, _mm_set1_epi8(1)), z));
	unsigned mtwo = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(2)));
	unsigned mcyc = (unsigned)_mm_movemask_epi8(cyc);
	unsigned ok = ((meven & ~mtwo) | mcyc) & 0xffff;
	unsigned j = ok == 0xffff ? 16 : (unsigned)__builtin_ctz(~ok);
	unsigned m = (1u << j) - 1, mt, h, mc;
	__m128i val, pre, sad;
	uint64_t s;

	if (!j)
		return 0;
	mc = mcyc & m;
	mt = meven & ~mpad & ~mtwo & m;
	val = _mm_and_si128(_mm_and_si128(_mm_srli_epi16(v, 3), _mm_set1_epi8(0x1f)), cyc);
	if (mc) {
		pre = _mm_loadu_si128((const __m128i *)(skim_prefix + 16 - j));
		sad = _mm_sad_epu8(_mm_and_si128(val, pre), z);
		s = (uint64_t)_mm_cvtsi128_si64(sad) + (uint64_t)_mm_extract_epi16(sad, 4);
		*sum += s;
		*n += (unsigned)__builtin_popcount(mc);
	} else {
		s = 0;
	}
	if (!mt) {
		*tail += s;
		*tail_n += (unsigned)__builtin_popcount(mc);
		return j;
	}
	/* The CYCs after the last tnt.8: bytes [h + 1, j). */
	h = 31 - (unsigned)__builtin_clz(mt);
	*set = 1;
	mc &= ~((2u << h) - 1);
	*tail_n = (unsigned)__builtin_popcount(mc);
	*tail = 0;
	if (mc) {
		pre = _mm_andnot_si128(
			_mm_loadu_si128((const __m128i *)(skim_prefix + 16 - (h + 1))),
			_mm_loadu_si128((const __m128i *)(skim_prefix + 16 - j)));
		sad = _mm_sad_epu8(_mm_and_si128(val, pre), z);
		*tail = (uint64_t)_mm_cvtsi128_si64(sad) + (uint64_t)_mm_extract_epi16(sad, 4);
	}
	return j;
}

/* Outside a run of CYCs, with no CYC pending: the leading pads and tnt.8s
 * among the 16 bytes at @p, which change nothing.  Returns how many. */
static inline unsigned tsk_plain16(const uint8_t *p)
{
	__m128i v = _mm_loadu_si128((const __m128i *)p);
	unsigned meven = (unsigned)_mm_movemask_epi8(
		_mm_cmpeq_epi8(_mm_and_si128(v, _mm_set1_epi8(1)), _mm_setzero_si128()));
	unsigned mtwo = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(2)));
	unsigned ok = meven & ~mtwo & 0xffff;

	return ok == 0xffff ? 16 : (unsigned)__builtin_ctz(~ok);
}
#endif

/* Feed the packets of [@p, @end) (at offset @off) to @tm; with @idx,
 * credit progress and look for a cancel as for pace().
 * Returns 0, or -pte_canceled. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("popcnt", "default"), noinline))
#endif
static int time_skim(struct idx *idx, const uint8_t *p, const uint8_t *end,
		     uint64_t off, struct tm_model *tm, uint64_t *credited,
		     struct gacc *g)
{
	const uint8_t *begin = p;
	const uint8_t *next = end - p > CANCEL_STEP ? p + CANCEL_STEP : end;
	struct pkt_decoder dec;
	struct pkt pkt, fast;
	int r, acted = 1;
	/* A run of CYCs after one fed to the model, with only packets that
	 * settle a pending CYC between them: fed at once (tm_advance_cycs) */
	int batch = 0, bset = 0;
	uint64_t bsum = 0, bn = 0, btail = 0, btn = 0;

	memset(&fast, 0, sizeof(fast));
	pkt_decoder_init(&dec, p, end, off);
	while (p < end) {
		if (p >= next) {
			if (pace(idx, (uint64_t)(p - begin), credited) < 0)
				return -pte_canceled;
			next = end - p > CANCEL_STEP ? p + CANCEL_STEP : end;
		}
		if (dec.bip_sz < 0 && end - p > PKT_MAX_SIZE) {
			const uint8_t *fend = end - PKT_MAX_SIZE;

			if (fend > next)
				fend = next;
			while (p < fend) {
				unsigned b = *p, sz;
				uint64_t v;

#if defined(__x86_64__)
				if (batch && skim_size[b] == 1) {
					unsigned j = tsk16(p, &bsum, &bn, &bset, &btail, &btn);

					if (j) {
						p += j;
						continue;
					}
				} else if (!acted && !(b & 1) && b != 2) {
					p += tsk_plain16(p);
					continue;
				}
#endif
				if ((b & 7) == 3 || ((b & 7) == 7 && !(p[1] & 1))) {
					v = b & 4 ? (b >> 3) | (uint64_t)(p[1] >> 1) << 5 : b >> 3;
					if (batch) {
						bsum += v;
						bn++;
						btail += v;
						btn++;
					} else {
						fast.type = PKT_CYC;
						fast.u.cyc = v;
						tm_advance(tm, &fast);
						batch = 1;
						bset = 0;
						bsum = bn = btail = btn = 0;
					}
					p += 1 + ((b & 4) >> 2);
					continue;
				}
				sz = tsk_size[b];
				if (__builtin_expect(sz != 0, 1)) {
					if (pkt_cyc_eligible_mask >> tsk_type[b] & 1) {
						if (batch) {
							bset = 1;
							btail = btn = 0;
						} else if (acted) {
							fast.type = tsk_type[b];
							tm_advance(tm, &fast);
							acted = 0;
						}
					}
					p += sz;
					continue;
				}
				if (b == 2 && p[1] == 0xa3 &&
				    (p[2] | p[3] | p[4] | p[5] | p[6] | p[7])) {
					/* tnt.64 (a zero payload is an error) */
					if (batch) {
						bset = 1;
						btail = btn = 0;
					} else if (acted) {
						fast.type = PKT_TNT64;
						tm_advance(tm, &fast);
						acted = 0;
					}
					p += 8;
					continue;
				}
				if (batch) {
					tm_advance_cycs(tm, bsum, bn, bset, btail, btn);
					batch = 0;
					acted = 1;
				}
				if (b == 0x59) {
					fast.type = PKT_MTC;
					fast.u.mtc = p[1];
					tm_advance(tm, &fast);
					if (g && g->mtc)
						gacc_at(g, tm);
					acted = 1;
					p += 2;
				} else {
					break;
				}
			}
			if (batch) {
				tm_advance_cycs(tm, bsum, bn, bset, btail, btn);
				batch = 0;
				acted = 1;
			}
			if (p >= end)
				break;
			if (p >= next)
				continue;
		}
		dec.pos = p;
		r = pkt_next(&dec, &pkt);
		if (r == -pte_eos)
			break;
		if (r < 0) {
			tm_gap(tm);
			break;
		}
		tm_advance(tm, &pkt);
		if (g && (pkt.type == PKT_TSC || (pkt.type == PKT_MTC && g->mtc)))
			gacc_at(g, tm);
		acted = 1;
		p = dec.pos;
	}
	return 0;
}

/* Feed the packets of segment [@off, @end) to @tm, as a window decoder
 * would: a decode error (or a packet running into the next PSB) ends the
 * segment and loses data.  With @idx, progress is credited and a cancel
 * seen every CANCEL_STEP bytes (*@credited as for pace()).
 * Returns 0, or -pte_canceled (@tm is then mid-segment). */
static int time_segment(struct idx *idx, const struct img *img, uint64_t off,
			uint64_t end, struct tm_model *tm, uint64_t *credited,
			struct gacc *g)
{
	struct img_cursor cur;
	struct pkt pkt;
	long si = img_span_of(img, off);
	uint64_t next = off + CANCEL_STEP;
	int r;

	if (img_gap_at(img, off))
		tm_gap(tm);	/* data lost right before the PSB */
	if (si >= 0 && end <= img->spans[si].off + img->spans[si].size) {
		/* Within one span: a plain cursor bounded by the segment, so
		 * a packet running into the next PSB is cut (an error). */
		const struct img_span *sp = &img->spans[si];

		pthread_once(&tsk_once, tsk_fill);
		pthread_once(&skim_once, skim_fill);	/* tsk16() */
		return time_skim(idx, sp->data + (off - sp->off),
				 sp->data + (end - sp->off), off, tm, credited, g);
	}
	if (img_cursor_init(&cur, img, off) < 0)
		return 0;
	while (img_cursor_offset(&cur) < end) {
		if (img_cursor_offset(&cur) >= next) {
			if (pace(idx, img_cursor_offset(&cur) - off, credited) < 0)
				return -pte_canceled;
			next = img_cursor_offset(&cur) + CANCEL_STEP;
		}
		r = img_cursor_next(&cur, &pkt);
		if (r == -pte_eos)
			return 0;
		if (cur.gap) {
			cur.gap = 0;
			tm_gap(tm);
		}
		if (r >= 0 && pkt.offset + pkt.size > end)
			r = -pte_truncated;
		if (r < 0) {
			tm_gap(tm);
			return 0;
		}
		tm_advance(tm, &pkt);
		if (g && (pkt.type == PKT_TSC || (pkt.type == PKT_MTC && g->mtc)))
			gacc_at(g, tm);
	}
	return 0;
}

static struct tm_carry *carry_slot(const struct idx *idx, size_t c)
{
	return &idx->carry[c >> CARRY_BLK_SHIFT][c & ((1u << CARRY_BLK_SHIFT) - 1)];
}

struct time_arg {
	struct idx *idx;
	struct tm_model tm;
	size_t from, to;	/* segments */
	int publish;		/* store carries (phase 3) or not (a lookup) */
	int memo;		/* a lookup: keep each carry passed in the memo */
	uint64_t memo_gen;	/* unless it was cleared since the start */
	struct gacc g;		/* phase 3: the gaps */
};

static int time_body(void *arg)
{
	struct time_arg *ta = arg;
	struct idx *idx = ta->idx;
	size_t n = idx_nseeks(idx), i;
	uint64_t rel = ta->from < n ? seek_off(idx, ta->from) : 0, credited;

	for (i = ta->from; i < ta->to; i++) {
		uint64_t off = seek_off(idx, i);
		uint64_t end = i + 1 < n ? seek_off(idx, i + 1) : idx->img->size;

		if (ta->publish) {
			if (atomic_load_explicit(&idx->cancel, memory_order_relaxed))
				return -pte_canceled;
			if (!(i & ((1u << CARRY_SHIFT) - 1))) {
				size_t c = i >> CARRY_SHIFT;

				if (!idx->carry[c >> CARRY_BLK_SHIFT]) {
					idx->carry[c >> CARRY_BLK_SHIFT] = malloc(
						sizeof(struct tm_carry) << CARRY_BLK_SHIFT);
					if (!idx->carry[c >> CARRY_BLK_SHIFT])
						return -pte_nomem;
				}
				tm_save(&ta->tm, carry_slot(idx, c));
				if (c >= atomic_load(&idx->ncarry))
					atomic_store_explicit(&idx->ncarry, c + 1,
							      memory_order_release);
			}
		}
		credited = 0;
		{
			int hp = ta->g.has_prev;
			uint64_t pv = ta->g.prev;

			gacc_segment(&ta->g);
			if (time_segment(ta->publish ? idx : NULL, idx->img, off, end,
					 &ta->tm, &credited,
					 ta->publish ? &ta->g : NULL) < 0)
				return -pte_canceled;
			if (ta->publish) {
				int r = tsum_from(idx, i, &ta->g, hp, pv);

				if (r < 0)
					return r;
				atomic_store_explicit(&idx->ntsums, i + 1,
						      memory_order_release);
			}
		}
		if (ta->memo) {
			struct carry_memo *m = &idx->memo[(i + 1) % MEMO_SIZE];

			pthread_mutex_lock(&idx->memo_lock);
			if (idx->memo_gen == ta->memo_gen) {
				m->seg = i + 1;
				tm_save(&ta->tm, &m->carry);
			}
			pthread_mutex_unlock(&idx->memo_lock);
		}
		if (ta->publish) {
			atomic_fetch_add_explicit(&idx->done, end - off - credited,
						  memory_order_relaxed);
			/* In big steps: a segment rarely spans a whole page. */
			if (end - rel >= (4u << 20) || i + 1 == ta->to) {
				release_range(idx, rel, end);
				rel = end;
			}
		}
	}
	return 0;
}

/*
 * The parallel time pass.  The time model's state at a PSB depends on
 * everything before it, but little of it lasts: a PSB+'s TSC and TMA
 * re-anchor the time, an MTC period recalibrates, and the cycle count is
 * a prefix sum.  So each unit is timed on a worker from a provisional
 * state (the model warmed up over the segments before the unit, cycles
 * counting from 0), and the merge, in order, knows the true state at the
 * unit's start: where the two agree but for the cycles, every later
 * provisional carry of the unit is true once its cycles are shifted;
 * where they differ, the merge re-decodes the unit from the true state
 * until they agree at a carry point (or to the unit's end).  The carries
 * are thus those of the serial pass, bit for bit (tests/test_index.c).
 */

/* Whether carries @a and @b agree but for the cycle count. */
static int carry_same(const struct tm_carry *a, const struct tm_carry *b)
{
	struct tm_carry x = *a, y = *b;

	x.cycles = 0;
	y.cycles = 0;
	return !memcmp(&x, &y, sizeof(x));
}

/* The true cycle count at a point whose provisional count is @prov, where
 * an earlier point had @base true and @pbase provisional cycles (counts
 * saturate, and a saturated count stays). */
static uint64_t fix_cycles(uint64_t base, uint64_t pbase, uint64_t prov)
{
	uint64_t d;

	if (prov == UINT64_MAX)
		return UINT64_MAX;
	d = prov - pbase;
	return base + d < base ? UINT64_MAX : base + d;
}

static uint64_t seg_end(const struct idx *idx, size_t i, size_t n)
{
	return i + 1 < n ? seek_off(idx, i + 1) : idx->img->size;
}

/* Store @c as the carry of segment @i (a multiple of 16). */
static int carry_put(struct idx *idx, size_t i, const struct tm_carry *c)
{
	size_t k = i >> CARRY_SHIFT;

	if (!idx->carry[k >> CARRY_BLK_SHIFT]) {
		idx->carry[k >> CARRY_BLK_SHIFT] =
			malloc(sizeof(struct tm_carry) << CARRY_BLK_SHIFT);
		if (!idx->carry[k >> CARRY_BLK_SHIFT])
			return -pte_nomem;
	}
	*carry_slot(idx, k) = *c;
	return 0;
}

/* Phase 3 worker: time unit @u from its provisional state. */
static int time_unit(struct idx *idx, struct unit3 *u)
{
	struct tm_model tm;
	struct tm_carry c;
	struct gacc g;
	size_t n = idx_nseeks(idx), i, k = 0, np;
	uint64_t credited;

	np = 2 + (((u->s1 - 1) >> CARRY_SHIFT) - (u->s0 >> CARRY_SHIFT));
	u->pts = malloc(np * sizeof(*u->pts));
	u->cps = malloc(np * sizeof(*u->cps));
	u->gs = malloc((u->s1 - u->s0) * sizeof(*u->gs));
	if (!u->pts || !u->cps || !u->gs)
		return -pte_nomem;
	memset(&g, 0, sizeof(g));
	g.mtc = idx->p3_gacc0.mtc;
	if (u->w0 == idx->p3_from)
		g = idx->p3_gacc0;
	u->n = 0;
	u->pts[u->n++] = u->s0;
	for (i = (u->s0 | ((1u << CARRY_SHIFT) - 1)) + 1; i < u->s1;
	     i += 1u << CARRY_SHIFT)
		u->pts[u->n++] = i;
	u->pts[u->n++] = u->s1;
	tm_init(&tm, &idx->cfg);
	if (u->w0 == idx->p3_from)
		tm_restore(&tm, &idx->p3_start);
	for (i = u->w0; i < u->s0; i++) {
		if (atomic_load_explicit(&idx->cancel, memory_order_relaxed))
			return -pte_canceled;
		time_segment(NULL, idx->img, seek_off(idx, i), seg_end(idx, i, n),
			     &tm, &credited, &g);
	}
	tm_save(&tm, &c);
	c.cycles = 0;
	tm_restore(&tm, &c);
	for (i = u->s0;; i++) {
		uint64_t off, end;

		if (k < u->n && u->pts[k] == i)
			tm_save(&tm, &u->cps[k++]);
		if (i == u->s1)
			break;
		if (atomic_load_explicit(&idx->cancel, memory_order_relaxed))
			return -pte_canceled;
		off = seek_off(idx, i);
		end = seg_end(idx, i, n);
		credited = 0;
		gacc_segment(&g);
		if (time_segment(idx, idx->img, off, end, &tm, &credited, &g) < 0)
			return -pte_canceled;
		u->gs[i - u->s0].has_first = (uint8_t)g.has_first;
		u->gs[i - u->s0].first = g.first;
		u->gs[i - u->s0].has_rest = (uint8_t)g.has_rest;
		u->gs[i - u->s0].rest = g.rest;
		u->gs[i - u->s0].last = g.prev;
		atomic_fetch_add_explicit(&idx->done, end - off - credited,
					  memory_order_relaxed);
	}
	return 0;
}

static int time_unit_body(void *arg)
{
	struct worker_arg *w = arg;

	return time_unit(w->idx, &w->idx->u3[w->unit]);
}

struct replay_arg {
	struct idx *idx;
	struct unit3 *u;
	size_t j;		/* in: 0; out: the point where they agree, or
				 * the last */
	struct tm_carry t;	/* the true carry at point j */
};

/* Re-decode unit ra->u from the true carry at its start, storing the true
 * carries, until the provisional ones agree (guarded). */
static int replay_body(void *arg)
{
	struct replay_arg *ra = arg;
	struct idx *idx = ra->idx;
	struct unit3 *u = ra->u;
	struct tm_model tm;
	size_t n = idx_nseeks(idx), i;
	uint64_t credited;
	int ret;

	tm_init(&tm, &idx->cfg);
	tm_restore(&tm, &ra->t);
	for (i = u->s0; i < u->s1; i++) {
		int hp = idx->p3_gacc.has_prev;
		uint64_t pv = idx->p3_gacc.prev;

		if (atomic_load_explicit(&idx->cancel, memory_order_relaxed))
			return -pte_canceled;
		gacc_segment(&idx->p3_gacc);
		time_segment(NULL, idx->img, seek_off(idx, i), seg_end(idx, i, n),
			     &tm, &credited, &idx->p3_gacc);
		ret = tsum_from(idx, i, &idx->p3_gacc, hp, pv);
		if (ret < 0)
			return ret;
		idx->p3_replayed++;
		if (i + 1 != u->pts[ra->j + 1])
			continue;
		ra->j++;
		tm_save(&tm, &ra->t);
		if (carry_same(&ra->t, &u->cps[ra->j]))
			break;
		if (u->pts[ra->j] < u->s1) {
			ret = carry_put(idx, u->pts[ra->j], &ra->t);
			if (ret < 0)
				return ret;
		}
	}
	return 0;
}

/* Merge phase 3 unit @k in order: make its carries true and publish
 * them. */
static int merge3(void *ctx, size_t k)
{
	struct idx *idx = ctx;
	struct unit3 *u = &idx->u3[k];
	struct replay_arg ra;
	struct tm_carry c;
	size_t m, n = idx_nseeks(idx);
	int ret = 0;

	memset(&ra, 0, sizeof(ra));
	ra.idx = idx;
	ra.u = u;
	ra.t = idx->p3_carry;
	if (!(u->s0 & ((1u << CARRY_SHIFT) - 1)))
		ret = carry_put(idx, u->s0, &ra.t);
	if (!ret && !carry_same(&ra.t, &u->cps[0]))
		ret = idx->guard(replay_body, &ra);
	if (ret < 0)
		goto out;
	/* From point j on, the provisional carries hold but for cycles. */
	for (m = ra.j + 1; m < u->n; m++) {
		c = u->cps[m];
		c.cycles = fix_cycles(ra.t.cycles, u->cps[ra.j].cycles,
				      u->cps[m].cycles);
		if (u->pts[m] < u->s1)
			ret = carry_put(idx, u->pts[m], &c);
		if (ret < 0)
			goto out;
	}
	if (ra.j + 1 < u->n)
		ra.t = c;
	idx->p3_carry = ra.t;
	/* The gaps from point j on: the worker's but for the first, which
	 * follows the true timing packet before. */
	for (m = u->pts[ra.j]; m < u->s1; m++) {
		const struct gseg *gs = &u->gs[m - u->s0];
		struct gacc *g = &idx->p3_gacc;
		struct tsum t;

		gacc_sum(&t, g->has_prev, g->prev, gs->has_first, gs->first,
			 gs->has_rest, gs->rest, gs->has_first || g->has_prev,
			 gs->has_first ? gs->last : g->prev);
		ret = tsum_put(idx, m, &t);
		if (ret < 0)
			goto out;
		if (gs->has_first) {
			g->has_prev = 1;
			g->prev = gs->last;
		}
	}
	if (u->s1 > u->s0)
		atomic_store_explicit(&idx->ntsums, u->s1, memory_order_release);
	if (u->s1 > u->s0)
		atomic_store_explicit(&idx->ncarry,
				      ((u->s1 - 1) >> CARRY_SHIFT) + 1,
				      memory_order_release);
	release_range(idx, seek_off(idx, u->s0), seg_end(idx, u->s1 - 1, n));
out:
	free(u->pts);
	free(u->cps);
	free(u->gs);
	u->pts = NULL;
	u->cps = NULL;
	u->gs = NULL;
	return ret;
}

/* Where a phase 3 unit starting at segment @s0 ends: after about a chunk
 * of bytes, at most UNIT3_SEGS segments (its carries are kept until the
 * merge). */
static size_t cut3(const struct idx *idx, size_t s0, size_t n)
{
	uint64_t acc = 0;
	size_t i;

	for (i = s0; i < n && i - s0 < UNIT3_SEGS && acc < idx->chunk; i++)
		acc += seg_end(idx, i, n) - seek_off(idx, i);
	return i;
}

/* The units of phase 3 over segments [@from, @n), each warmed up over
 * the segments before it. */
static int plan3(struct idx *idx, size_t from, size_t n)
{
	size_t i, k, nu = 0, w;
	/* a quarter of a unit at most: tests make units tiny */
	uint64_t acc, warm = idx->chunk / 4 < WARM_BYTES ? idx->chunk / 4 : WARM_BYTES;

	for (i = from; i < n; i = cut3(idx, i, n))
		nu++;
	idx->u3 = calloc(nu ? nu : 1, sizeof(*idx->u3));
	if (!idx->u3)
		return -pte_nomem;
	for (i = from, k = 0; k < nu; k++) {
		struct unit3 *u = &idx->u3[k];

		u->s0 = i;
		u->s1 = i = cut3(idx, i, n);
		acc = 0;
		for (w = u->s0; w > from && acc < warm &&
		     u->s0 - w < WARM_SEGS; w--)
			acc += seg_end(idx, w - 1, n) - seek_off(idx, w - 1);
		u->w0 = w;
	}
	idx->nunits = nu;
	return 0;
}

static int phase3(struct idx *idx)
{
	struct time_arg *ta = malloc(sizeof(*ta));
	size_t n = idx_nseeks(idx), c = atomic_load(&idx->ncarry);
	uint64_t end;
	int ret;

	if (!ta)
		return -pte_nomem;
	memset(ta, 0, sizeof(*ta));
	ta->idx = idx;
	tm_init(&ta->tm, &idx->cfg);
	if (c) {
		/* Resume from the last carry (a grown trace). */
		c--;
		tm_restore(&ta->tm, carry_slot(idx, c));
	}
	ta->from = c << CARRY_SHIFT;
	ta->to = n;
	ta->publish = 1;
	ta->g.mtc = idx->cfg.have_mtc_freq && idx->cfg.mtc_freq <= 15 &&
		    idx->cfg.have_cpuid_15 && idx->cfg.cpuid_15_eax &&
		    idx->cfg.cpuid_15_ebx;
	if (ta->from && atomic_load(&idx->ntsums) >= ta->from) {
		const struct tsum *t = &idx->gblk[(ta->from - 1) >> BLK_SHIFT]
						[(ta->from - 1) & BLK_MASK];

		ta->g.has_prev = t->has_last;
		ta->g.prev = t->last;
	}
	if (atomic_load(&idx->ntsums) > ta->from)
		atomic_store(&idx->ntsums, ta->from);
	idx->total = n ? idx->img->size - seek_off(idx, ta->from < n ? ta->from : 0) : 0;
	if (idx->nthreads > 1 && n > ta->from) {
		/* On all cores; the model's end state is the last merge's. */
		idx->p3_from = ta->from;
		tm_save(&ta->tm, &idx->p3_start);
		idx->p3_carry = idx->p3_start;
		idx->p3_gacc = ta->g;
		idx->p3_gacc0 = ta->g;
		idx->p3_replayed = 0;
		ret = plan3(idx, ta->from, n);
		if (!ret)
			ret = run_units(idx, merge3);
		free_units(idx);
		if (!ret)
			tm_restore(&ta->tm, &idx->p3_carry);
	} else {
		ret = n ? idx->guard(time_body, ta) : 0;
	}
	if (!ret && n) {
		/* Time goes on after the last TSC packet: the trace ends at
		 * the model's last estimate. */
		pthread_mutex_lock(&idx->exc_lock);
		if (!tm_now(&ta->tm, &end) && idx->totals.have_tsc &&
		    end > idx->totals.last_tsc)
			idx->totals.last_tsc = end;
		pthread_mutex_unlock(&idx->exc_lock);
	}
	free(ta);
	return ret;
}

static void set_phase(struct idx *idx, enum idx_phase ph)
{
	pthread_mutex_lock(&idx->lock);
	idx->tphase = now();
	atomic_store(&idx->done, 0);
	atomic_store(&idx->phase, ph);
	pthread_mutex_unlock(&idx->lock);
}

static void *coordinator(void *arg)
{
	struct idx *idx = arg;
	int ret = 0;

	pthread_once(&cls_once, cls_fill);
	pthread_once(&skim_once, skim_fill);
	if (!idx->cblk)
		ret = ctx_reserve(idx, 0);
	if (!ret && !atomic_load(&idx->scan_done)) {
		set_phase(idx, IDX_SCAN);
		ret = phase1(idx);
		if (!ret) {
			double dt = now() - idx->tphase;

			idx->rate1 = dt > 0 ? (double)idx->total / dt : 0;
			atomic_store(&idx->scanned, idx->img->size);
			atomic_store(&idx->scan_done, 1);
		}
	}
	if (!ret && !idx->phase1_only) {
		set_phase(idx, IDX_SEGMENTS);
		ret = phase2(idx);
		if (!ret)
			idx->sums_done = 1;
	}
	if (!ret && !idx->phase1_only && idx->time_pass) {
		set_phase(idx, IDX_TIME);
		ret = phase3(idx);
	}
	if (!ret && !idx->phase1_only)
		idx->complete = 1;
	pthread_mutex_lock(&idx->lock);
	atomic_store(&idx->status, ret);
	atomic_store(&idx->phase, IDX_DONE);
	atomic_store(&idx->finished, 1);
	pthread_mutex_unlock(&idx->lock);
	return NULL;
}

int idx_start(struct idx *idx)
{
	if (!idx || idx->started)
		return -pte_invalid;
	idx->nthreads = pool_threads(idx->nthreads);
	idx->t0 = now();
	idx->tphase = idx->t0;
	idx->started = 1;
	if (pthread_create(&idx->coord, NULL, coordinator, idx)) {
		idx->started = 0;
		return -pte_nomem;
	}
	return 0;
}

int idx_wait(struct idx *idx)
{
	if (!idx || !idx->started)
		return -pte_invalid;
	if (!idx->joined) {
		pthread_join(idx->coord, NULL);
		idx->joined = 1;
	}
	return atomic_load(&idx->status);
}

int idx_build(struct idx *idx)
{
	int ret = idx_start(idx);

	return ret < 0 ? ret : idx_wait(idx);
}

void idx_cancel(struct idx *idx)
{
	if (idx)
		atomic_store(&idx->cancel, 1);
}

/* How much of the whole build @p is, the phases weighted by their cost
 * per byte (1 : 10 : 20, as for the eta). */
static double progress_frac(const struct idx *idx, const struct idx_progress *p)
{
	double w[3] = { 1, 10, 20 }, all = w[0], before = 0, part;

	if (p->finished)
		return 1;
	if (!idx->phase1_only)
		all += w[1];
	if (!idx->phase1_only && idx->time_pass)
		all += w[2];
	part = p->total ? (double)p->done / (double)p->total : 0;
	if (part > 1)
		part = 1;
	switch (p->phase) {
	case IDX_SCAN:
		return part * w[0] / all;
	case IDX_SEGMENTS:
		before = w[0];
		return (before + part * w[1]) / all;
	case IDX_TIME:
		before = w[0] + (idx->phase1_only ? 0 : w[1]);
		return (before + part * w[2]) / all;
	default:
		return 0;
	}
}

void idx_progress(const struct idx *idx, struct idx_progress *p)
{
	struct idx *m = (struct idx *)idx;
	double t, dt, left1 = 0, rate2;

	memset(p, 0, sizeof(*p));
	if (!idx)
		return;
	pthread_mutex_lock(&m->lock);
	t = now();
	p->phase = (enum idx_phase)atomic_load(&idx->phase);
	p->done = atomic_load(&idx->done);
	p->total = idx->total;
	p->finished = atomic_load(&idx->finished);
	p->status = atomic_load(&idx->status);
	p->elapsed = idx->started ? t - idx->t0 : 0;
	dt = t - idx->tphase;
	p->rate = dt > 0 ? (double)p->done / dt : 0;
	pthread_mutex_unlock(&m->lock);
	p->nseeks = idx_nseeks(idx);
	p->scanned = atomic_load(&idx->scanned);
	p->eta = -1;
	/* The phases' relative speeds, as measured (bench_index, CPU
	 * seconds): summaries at about a tenth of the scan's speed, the time
	 * pass at about half the summaries'. */
	if (p->finished) {
		p->eta = 0;
	} else if (p->rate > 0 && p->phase == IDX_SCAN) {
		left1 = (double)(p->total - p->done) / p->rate;
		p->eta = left1;
		if (!idx->phase1_only)
			p->eta += (double)idx->img->size / (p->rate / 10);
		if (!idx->phase1_only && idx->time_pass)
			p->eta += (double)idx->img->size / (p->rate / 20);
	} else if (p->rate > 0 && p->phase == IDX_SEGMENTS) {
		rate2 = p->rate;
		p->eta = (double)(p->total - p->done) / rate2;
		if (idx->time_pass)
			p->eta += (double)p->total / (rate2 / 2);
	} else if (p->rate > 0 && p->phase == IDX_TIME) {
		p->eta = (double)(p->total - p->done) / p->rate;
	}
	p->frac = progress_frac(idx, p);
}

int idx_seek_carry(const struct idx *idx, size_t i, struct tm_carry *out)
{
	struct time_arg *ta;
	size_t c, k;
	int ret;

	if (!idx || !out || i >= idx_nseeks(idx))
		return -pte_invalid;
	if (!idx->time_pass)
		return -pte_no_time;
	c = i >> CARRY_SHIFT;
	if (c >= atomic_load_explicit(&idx->ncarry, memory_order_acquire))
		return 1;
	if (!(i & ((1u << CARRY_SHIFT) - 1))) {
		*out = *carry_slot(idx, c);
		return 0;
	}
	ta = malloc(sizeof(*ta));
	if (!ta)
		return -pte_nomem;
	memset(ta, 0, sizeof(*ta));
	ta->idx = (struct idx *)idx;
	ta->memo = 1;
	tm_init(&ta->tm, &idx->cfg);
	/* From the nearest carry at or before @i: the checkpoint, or one
	 * an earlier replay left in the memo.  The lock covers the memo, not
	 * the replay: a search's lookups must not hold up the screen's. */
	tm_restore(&ta->tm, carry_slot(idx, c));
	ta->from = c << CARRY_SHIFT;
	pthread_mutex_lock(&((struct idx *)idx)->memo_lock);
	ta->memo_gen = idx->memo_gen;
	for (k = i; k > ta->from; k--) {
		const struct carry_memo *m = &idx->memo[k % MEMO_SIZE];

		if (m->seg == k) {
			tm_restore(&ta->tm, &m->carry);
			ta->from = k;
			break;
		}
	}
	pthread_mutex_unlock(&((struct idx *)idx)->memo_lock);
	ta->to = i;
	ret = ta->from < i ? idx->guard(time_body, ta) : 0;
	if (!ret)
		tm_save(&ta->tm, out);
	free(ta);
	return ret;
}

size_t idx_nsummaries(const struct idx *idx)
{
	return idx ? atomic_load_explicit(&idx->nsums, memory_order_acquire) : 0;
}

/* The exception of segment @i (exc_lock held), or NULL. */
static const struct sum_exc *find_exc(const struct idx *idx, size_t i)
{
	size_t lo = 0, hi = idx->nexc;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (idx->exc[mid].seg < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < idx->nexc && idx->exc[lo].seg == i ? &idx->exc[lo] : NULL;
}

/* Packets in segment @i (summarised). */
static uint64_t seg_npackets(const struct idx *idx, size_t i)
{
	const struct sum_packed *p = &idx->ublk[i >> BLK_SHIFT][i & BLK_MASK];
	uint64_t np = 0;
	int c;

	if ((p->tsc_flags >> 56) & SUM_EXC) {
		const struct sum_exc *e;

		pthread_mutex_lock((pthread_mutex_t *)&idx->exc_lock);
		e = find_exc(idx, i);
		np = e ? e->full.npackets : 0;
		pthread_mutex_unlock((pthread_mutex_t *)&idx->exc_lock);
		return np;
	}
	for (c = 0; c < PKC_NCLASSES; c++)
		np += p->cnt[c];
	return np;
}

/* The first ordinal of segment @i (summarised). */
static uint64_t seg_ordinal(const struct idx *idx, size_t i)
{
	size_t g = (i & BLK_MASK) >> GRP_SHIFT, j;
	uint64_t ord = idx->oblk[i >> BLK_SHIFT][g];

	for (j = i & ~(size_t)((1u << GRP_SHIFT) - 1); j < i; j++)
		ord += seg_npackets(idx, j);
	return ord;
}

int idx_summary(const struct idx *idx, size_t i, struct idx_summary *out)
{
	const struct sum_packed *p;
	size_t n;
	int c;

	if (!idx || !out)
		return -pte_invalid;
	if (i >= idx_nseeks(idx) && idx_scan_done(idx))
		return -pte_invalid;
	if (i >= idx_nsummaries(idx))
		return 1;
	p = &idx->ublk[i >> BLK_SHIFT][i & BLK_MASK];
	memset(out, 0, sizeof(*out));
	if ((p->tsc_flags >> 56) & SUM_EXC) {
		const struct sum_exc *e;

		pthread_mutex_lock((pthread_mutex_t *)&idx->exc_lock);
		e = find_exc(idx, i);
		if (e)
			*out = e->full;
		pthread_mutex_unlock((pthread_mutex_t *)&idx->exc_lock);
		if (!e)
			return -pte_internal;
	} else {
		for (c = 0; c < PKC_NCLASSES; c++) {
			out->per_class[c] = p->cnt[c];
			out->npackets += p->cnt[c];
		}
		out->cycles = p->cycles;
		out->max_cyc = p->max_cyc;
		out->have_tsc = !!((p->tsc_flags >> 56) & SUM_TSC);
		if (out->have_tsc) {
			out->first_tsc = p->tsc_flags & ((1ull << 56) - 1);
			out->last_tsc = out->first_tsc + p->tsc_span;
		}
	}
	n = idx_nseeks(idx);
	out->size = (i + 1 < n ? seek_off(idx, i + 1) : idx->img->size) - seek_off(idx, i);
	out->first_ordinal = seg_ordinal(idx, i);
	out->have_time = 0;
	out->has_gap = 0;
	out->max_gap = 0;
	if (i < atomic_load_explicit(&idx->ntsums, memory_order_acquire)) {
		const struct tsum *t = &idx->gblk[i >> BLK_SHIFT][i & BLK_MASK];

		out->have_time = 1;
		out->has_gap = t->has_gap;
		out->max_gap = t->gap;
	}
	return 0;
}

int idx_last_timing(const struct idx *idx, size_t i, uint64_t *tsc)
{
	const struct tsum *t;

	if (!idx || !tsc || i >= idx_nseeks(idx))
		return -pte_invalid;
	if (i >= atomic_load_explicit(&idx->ntsums, memory_order_acquire))
		return 1;
	t = &idx->gblk[i >> BLK_SHIFT][i & BLK_MASK];
	if (!t->has_last)
		return -pte_no_time;
	*tsc = t->last;
	return 0;
}

int idx_totals(const struct idx *idx, struct idx_summary *out)
{
	if (!idx || !out)
		return -pte_invalid;
	pthread_mutex_lock((pthread_mutex_t *)&idx->exc_lock);
	*out = idx->totals;
	pthread_mutex_unlock((pthread_mutex_t *)&idx->exc_lock);
	out->size = idx->img->size;
	out->first_ordinal = 0;
	return idx->sums_done ? 0 : 1;
}

int idx_find_ordinal(const struct idx *idx, uint64_t ord, size_t *seg)
{
	size_t n, lo, hi, g, ng, i;
	uint64_t base;

	if (!idx || !seg)
		return -pte_invalid;
	n = idx_nsummaries(idx);
	if (!n)
		return idx->sums_done ? -pte_eos : 1;
	/* Binary search the group bases, then walk the group. */
	ng = ((n - 1) >> GRP_SHIFT) + 1;
	lo = 0;
	hi = ng;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		size_t s = mid << GRP_SHIFT;

		if (idx->oblk[s >> BLK_SHIFT][(s & BLK_MASK) >> GRP_SHIFT] <= ord)
			lo = mid;
		else
			hi = mid;
	}
	g = lo << GRP_SHIFT;
	base = idx->oblk[g >> BLK_SHIFT][(g & BLK_MASK) >> GRP_SHIFT];
	if (base > ord)
		return -pte_invalid;
	for (i = g; i < n && i < g + (1u << GRP_SHIFT); i++) {
		uint64_t np = seg_npackets(idx, i);

		if (ord < base + np) {
			*seg = i;
			return 0;
		}
		base += np;
	}
	return idx->sums_done && n == idx_nseeks(idx) ? -pte_eos : 1;
}

/* Segment @i's first TSC, if it has one (summarised). */
static int seg_first_tsc(const struct idx *idx, size_t i, uint64_t *tsc)
{
	const struct sum_packed *p = &idx->ublk[i >> BLK_SHIFT][i & BLK_MASK];
	unsigned f = (unsigned)(p->tsc_flags >> 56);

	if (!(f & SUM_TSC))
		return 0;
	if (f & SUM_EXC) {
		struct idx_summary s;

		if (idx_summary(idx, i, &s) || !s.have_tsc)
			return 0;
		*tsc = s.first_tsc;
		return 1;
	}
	*tsc = p->tsc_flags & ((1ull << 56) - 1);
	return 1;
}

int idx_find_tsc(const struct idx *idx, uint64_t tsc, size_t *seg)
{
	size_t n, lo, hi, mid, j, first = SIZE_MAX;
	uint64_t t;

	if (!idx || !seg)
		return -pte_invalid;
	n = idx_nsummaries(idx);
	for (j = 0; j < n; j++)
		if (seg_first_tsc(idx, j, &t)) {
			first = j;
			break;
		}
	if (first == SIZE_MAX)
		return idx->sums_done ? -pte_no_time : 1;
	if (tsc <= t) {
		*seg = first;
		return 0;
	}
	/* Invariant: the segment at lo has a time <= tsc. */
	lo = first;
	hi = n;
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		/* Segments without a time take the nearest one before. */
		for (j = mid; j > lo && !seg_first_tsc(idx, j, &t); j--)
			;
		if (j == lo) {
			/* None in (lo, mid]: look right of mid instead. */
			size_t r;

			for (r = mid + 1; r < hi && !seg_first_tsc(idx, r, &t); r++)
				;
			if (r == hi || t > tsc) {
				hi = mid;
				continue;
			}
			lo = r;
			continue;
		}
		if (t <= tsc)
			lo = j;
		else
			hi = j;
	}
	*seg = lo;
	if (lo + 1 == n && !idx->sums_done)
		return 1;
	return 0;
}

int idx_next_trouble(const struct idx *idx, size_t from, int dir, size_t *seg)
{
	size_t lo = 0, hi;
	int ret;

	if (!idx || !seg || !dir)
		return -pte_invalid;
	pthread_mutex_lock((pthread_mutex_t *)&idx->exc_lock);
	hi = idx->ntrouble;
	/* The first trouble entry > from. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (idx->trouble[mid] <= from)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (dir > 0) {
		if (lo < idx->ntrouble) {
			*seg = (size_t)idx->trouble[lo];
			ret = 0;
		} else {
			ret = idx->sums_done ? -pte_eos : 1;
		}
	} else {
		/* The last entry < from. */
		while (lo > 0 && idx->trouble[lo - 1] >= from)
			lo--;
		if (lo > 0) {
			*seg = (size_t)idx->trouble[lo - 1];
			ret = 0;
		} else {
			ret = from <= idx_nsummaries(idx) ? -pte_eos : 1;
		}
	}
	pthread_mutex_unlock((pthread_mutex_t *)&idx->exc_lock);
	return ret;
}

int idx_complete(const struct idx *idx)
{
	return idx && idx->complete;
}

uint64_t idx_size(const struct idx *idx)
{
	return idx ? idx->img->size : 0;
}

/*
 * Persistence.  The blob is a small header, then the packed arrays in this
 * order: seeks, contexts, summaries, ordinal bases, exceptions, trouble,
 * carries; in this machine's byte order (the magic tells another order
 * apart).  Full blocks lie contiguously, so a mapped blob can back them
 * directly (idx_load_mapped()).
 */
#define BLOB_MAGIC	0x31584449425450ull	/* "PTBIDX1" little-endian */
#define BLOB_VERSION	7	/* 7: each summary holds the largest CYC */

struct blob_hdr {
	uint64_t magic;
	uint32_t version;
	uint32_t hdr_size;
	uint64_t size;		/* image bytes indexed */
	uint64_t nseeks, nctx, nexc, ntrouble;
	uint64_t npackets, cycles, first_tsc, last_tsc;
	uint64_t per_class[PKC_NCLASSES];
	uint32_t novf, nerrors;
	uint32_t have_tsc, ngaps;
	uint64_t ncarry;	/* tm carries, one per 16 segments */
	uint64_t carry_size;	/* sizeof(struct tm_carry) when saved */
	uint64_t max_cyc;	/* the largest CYC */
	uint64_t ntsum;		/* time pass summaries */
};


/* Byte offsets of the arrays, from the start of the blob. */
struct blob_layout {
	uint64_t seeks, ctx, sums, obase, exc, trouble, carry, tsum, end;
};

static size_t ngroups(size_t n)
{
	return (n + (1u << GRP_SHIFT) - 1) >> GRP_SHIFT;
}

/* Lay out the arrays of @h; 0, or -1 if the counts overflow. */
static int blob_layout(const struct blob_hdr *h, struct blob_layout *l)
{
	/* Each count is bounded first, so the sums below cannot wrap. */
	if (h->nseeks > (1ull << 40) || h->nctx > CTX_MAX || h->nexc > (1ull << 40) ||
	    h->ntrouble > (1ull << 40) || h->ncarry > (1ull << 40) ||
	    h->ntsum > (1ull << 40))
		return -1;
	l->seeks = sizeof(*h);
	l->ctx = l->seeks + h->nseeks * sizeof(struct seek_packed);
	l->sums = l->ctx + h->nctx * sizeof(struct ctx_entry);
	l->obase = l->sums + h->nseeks * sizeof(struct sum_packed);
	l->exc = l->obase + ngroups((size_t)h->nseeks) * sizeof(uint64_t);
	l->trouble = l->exc + h->nexc * sizeof(struct sum_exc);
	l->carry = l->trouble + h->ntrouble * sizeof(uint64_t);
	l->tsum = l->carry + h->ncarry * sizeof(struct tm_carry);
	l->end = l->tsum + h->ntsum * sizeof(struct tsum);
	return 0;
}

/* Emit @n entries of @size bytes from the blocks @blk of @per entries. */
static int emit_blocks(void *const *blk, size_t per, size_t size, size_t n,
		       int (*emit)(void *ctx, const void *p, size_t n), void *ctx)
{
	size_t i, k;
	int ret;

	for (i = 0; i < n; i += per) {
		k = n - i < per ? n - i : per;
		ret = emit(ctx, blk[i / per], k * size);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int idx_save_to(const struct idx *idx,
		int (*emit)(void *ctx, const void *p, size_t n), void *ctx)
{
	struct blob_hdr h;
	size_t n;
	int c, ret;

	if (!idx || !emit || !idx->complete)
		return -pte_invalid;
	n = idx_nseeks(idx);
	memset(&h, 0, sizeof(h));
	h.magic = BLOB_MAGIC;
	h.version = BLOB_VERSION;
	h.hdr_size = sizeof(h);
	h.size = idx->img->size;
	h.nseeks = n;
	h.nctx = idx->nctx;
	h.nexc = idx->nexc;
	h.ntrouble = idx->ntrouble;
	h.npackets = idx->totals.npackets;
	h.cycles = idx->totals.cycles;
	h.max_cyc = idx->totals.max_cyc;
	h.first_tsc = idx->totals.first_tsc;
	h.last_tsc = idx->totals.last_tsc;
	for (c = 0; c < PKC_NCLASSES; c++)
		h.per_class[c] = idx->totals.per_class[c];
	h.novf = idx->totals.novf;
	h.nerrors = idx->totals.nerrors;
	h.ngaps = idx->totals.ngaps;
	h.have_tsc = idx->totals.have_tsc;
	h.ncarry = atomic_load(&idx->ncarry);
	h.carry_size = sizeof(struct tm_carry);
	h.ntsum = atomic_load(&idx->ntsums);
	ret = emit(ctx, &h, sizeof(h));
	if (!ret)
		ret = emit_blocks((void *const *)idx->sblk, BLK_SIZE,
				  sizeof(struct seek_packed), n, emit, ctx);
	if (!ret)
		ret = emit_blocks((void *const *)idx->cblk, CTX_BLK,
				  sizeof(struct ctx_entry), idx->nctx, emit, ctx);
	if (!ret)
		ret = emit_blocks((void *const *)idx->ublk, BLK_SIZE,
				  sizeof(struct sum_packed), n, emit, ctx);
	if (!ret)
		ret = emit_blocks((void *const *)idx->oblk, BLK_SIZE >> GRP_SHIFT,
				  sizeof(uint64_t), ngroups(n), emit, ctx);
	if (!ret && idx->nexc)
		ret = emit(ctx, idx->exc, idx->nexc * sizeof(struct sum_exc));
	if (!ret && idx->ntrouble)
		ret = emit(ctx, idx->trouble, idx->ntrouble * sizeof(uint64_t));
	if (!ret)
		ret = emit_blocks((void *const *)idx->carry, 1u << CARRY_BLK_SHIFT,
				  sizeof(struct tm_carry), (size_t)h.ncarry, emit, ctx);
	if (!ret)
		ret = emit_blocks((void *const *)idx->gblk, BLK_SIZE,
				  sizeof(struct tsum), (size_t)h.ntsum, emit, ctx);
	return ret;
}

struct membuf {
	uint8_t *p;
	size_t len, cap;
};

static int emit_mem(void *ctx, const void *p, size_t n)
{
	struct membuf *m = ctx;

	if (m->len + n > m->cap) {
		size_t cap = (m->len + n) * 2;
		uint8_t *q = realloc(m->p, cap);

		if (!q)
			return -pte_nomem;
		m->p = q;
		m->cap = cap;
	}
	memcpy(m->p + m->len, p, n);
	m->len += n;
	return 0;
}

int idx_save(const struct idx *idx, void **buf, size_t *len)
{
	struct membuf m = { NULL, 0, 0 };
	int ret;

	if (!idx || !buf || !len)
		return -pte_invalid;
	ret = idx_save_to(idx, emit_mem, &m);
	if (ret < 0) {
		free(m.p);
		return ret;
	}
	*buf = m.p;
	*len = m.len;
	return 0;
}

/* Validate the header and arrays of the blob @b (@len bytes). */
static int blob_check(const struct idx *idx, const uint8_t *b, size_t len,
		      struct blob_hdr *h, struct blob_layout *l)
{
	const struct seek_packed *sp;
	const struct sum_exc *ex;
	const uint64_t *tr;
	size_t i;

	if (len < sizeof(*h))
		return -pte_bad_file;
	memcpy(h, b, sizeof(*h));
	if (h->magic != BLOB_MAGIC || h->version != BLOB_VERSION ||
	    h->hdr_size != sizeof(*h) || blob_layout(h, l) < 0 || l->end != len)
		return -pte_bad_file;
	if (h->size > idx->img->size || h->nseeks > h->size / PKT_PSB_SIZE + 1 ||
	    (h->nseeks >> BLK_SHIFT) >= idx->nblk || h->nctx < 1 ||
	    h->nexc > h->nseeks || h->ntrouble > h->nexc ||
	    h->carry_size != sizeof(struct tm_carry) ||
	    h->ncarry > (h->nseeks + (1u << CARRY_SHIFT) - 1) >> CARRY_SHIFT ||
	    h->ntsum > h->nseeks ||
	    (h->ncarry && h->ntsum < (h->ncarry - 1) << CARRY_SHIFT))
		return -pte_bad_file;
	sp = (const void *)(b + l->seeks);
	for (i = 0; i < h->nseeks; i++) {
		uint32_t ctx = (uint32_t)(sp[i].misc >> 40);

		if (sp[i].off >= h->size || (i && sp[i].off < sp[i - 1].off + PKT_PSB_SIZE))
			return -pte_bad_file;
		if (ctx != CTX_NONE && ctx >= h->nctx)
			return -pte_bad_file;
	}
	ex = (const void *)(b + l->exc);
	for (i = 0; i < h->nexc; i++)
		if (ex[i].seg >= h->nseeks || (i && ex[i].seg <= ex[i - 1].seg))
			return -pte_bad_file;
	tr = (const void *)(b + l->trouble);
	for (i = 0; i < h->ntrouble; i++)
		if (tr[i] >= h->nseeks || (i && tr[i] <= tr[i - 1]))
			return -pte_bad_file;
	return 0;
}

/* Point the blocks @blk at @n entries of @size bytes at @src, @per to a
 * block: full blocks borrowed (if @borrow), the rest copied. */
static int load_blocks(struct idx *idx, void **blk, size_t per, size_t size,
		       size_t n, const uint8_t *src, int borrow)
{
	size_t i, k;

	for (i = 0; i < n; i += per) {
		k = n - i < per ? n - i : per;
		if (borrow && k == per) {
			blk[i / per] = (void *)(src + i * size);
			continue;
		}
		blk[i / per] = malloc(per * size);
		if (!blk[i / per])
			return -pte_nomem;
		memcpy(blk[i / per], src + i * size, k * size);
	}
	(void)idx;
	return 0;
}

/*
 * A loaded index of a trace that grew: forget the last segment (its end
 * moved) and, if its PSB sits in a run of 02 82 pairs, every PSB of that
 * run (PSBs are placed from the run's end, which may have moved too).
 */
static void drop_tail(struct idx *idx)
{
	size_t n = idx_nseeks(idx), k, ks, m;
	uint64_t r = seek_off(idx, n - 1);
	struct idx_summary s;
	int c;

	while (r >= 2 && pair_at(idx->img, r - 2))
		r -= 2;
	for (k = n - 1; k > 0 && seek_off(idx, k - 1) >= r; k--)
		;
	/* Seek points from k on may move; the segment before them ends at
	 * seek point k, so its summary is redone too. */
	ks = k ? k - 1 : 0;
	for (m = atomic_load(&idx->nsums); m > ks; m--) {
		if (idx_summary(idx, m - 1, &s) == 0) {
			for (c = 0; c < PKC_NCLASSES; c++)
				idx->totals.per_class[c] -= s.per_class[c];
			idx->totals.npackets -= s.npackets;
			idx->totals.cycles -= s.cycles;
			idx->totals.novf -= s.novf;
			idx->totals.nerrors -= s.nerrors;
			idx->totals.ngaps -= s.ngaps;
		}
		if (idx->nexc && idx->exc[idx->nexc - 1].seg == m - 1)
			idx->nexc--;
		if (idx->ntrouble && idx->trouble[idx->ntrouble - 1] == m - 1)
			idx->ntrouble--;
	}
	idx->ord_next = idx->totals.npackets;
	idx->resume_off = r;
	atomic_store(&idx->nseeks, k);
	atomic_store(&idx->nsums, ks);
	/* A carry at segment c depends on the segments before c: those up
	 * to ks stay. */
	if (atomic_load(&idx->ncarry) > (ks >> CARRY_SHIFT) + 1)
		atomic_store(&idx->ncarry, (ks >> CARRY_SHIFT) + 1);
	if (atomic_load(&idx->ntsums) > ks)
		atomic_store(&idx->ntsums, ks);
	pthread_mutex_lock(&idx->memo_lock);
	memo_clear(idx);
	pthread_mutex_unlock(&idx->memo_lock);
}

static int load_blob(struct idx *idx, const uint8_t *b, size_t len, int borrow)
{
	struct blob_layout l;
	struct blob_hdr h;
	size_t n, i;
	int c, ret;

	ret = blob_check(idx, b, len, &h, &l);
	if (ret < 0)
		return ret;
	n = (size_t)h.nseeks;
	ret = ctx_reserve(idx, 1);
	if (ret < 0)
		return ret;
	/* Contexts come as they are; the lookup hash is rebuilt only if a
	 * grown trace adds some. */
	ret = load_blocks(idx, (void **)idx->cblk, CTX_BLK, sizeof(struct ctx_entry),
			  (size_t)h.nctx, b + l.ctx, borrow);
	if (ret < 0)
		return ret;
	idx->nctx = (size_t)h.nctx;
	idx->ncblk = ((size_t)h.nctx + CTX_BLK - 1) >> CTX_SHIFT;
	ret = load_blocks(idx, (void **)idx->sblk, BLK_SIZE, sizeof(struct seek_packed),
			  n, b + l.seeks, borrow);
	if (!ret)
		ret = load_blocks(idx, (void **)idx->ublk, BLK_SIZE,
				  sizeof(struct sum_packed), n, b + l.sums, borrow);
	if (!ret)
		ret = load_blocks(idx, (void **)idx->oblk, BLK_SIZE >> GRP_SHIFT,
				  sizeof(uint64_t), ngroups(n), b + l.obase, borrow);
	if (!ret)
		ret = load_blocks(idx, (void **)idx->carry, 1u << CARRY_BLK_SHIFT,
				  sizeof(struct tm_carry), (size_t)h.ncarry, b + l.carry,
				  borrow);
	if (!ret)
		ret = load_blocks(idx, (void **)idx->gblk, BLK_SIZE,
				  sizeof(struct tsum), (size_t)h.ntsum, b + l.tsum,
				  borrow);
	if (ret < 0)
		return ret;
	idx->exc = malloc((h.nexc ? h.nexc : 1) * sizeof(struct sum_exc));
	idx->trouble = malloc((h.ntrouble ? h.ntrouble : 1) * sizeof(uint64_t));
	if (!idx->exc || !idx->trouble)
		return -pte_nomem;
	memcpy(idx->exc, b + l.exc, h.nexc * sizeof(struct sum_exc));
	memcpy(idx->trouble, b + l.trouble, h.ntrouble * sizeof(uint64_t));
	idx->nexc = h.nexc;
	idx->excap = h.nexc ? h.nexc : 1;
	idx->ntrouble = h.ntrouble;
	idx->trcap = h.ntrouble ? h.ntrouble : 1;
	/* Every packed summary flagged as an exception must have one. */
	for (i = 0; i < n; i++) {
		const struct sum_packed *sp = &idx->ublk[i >> BLK_SHIFT][i & BLK_MASK];

		if (((sp->tsc_flags >> 56) & SUM_EXC) && !find_exc(idx, i))
			return -pte_bad_file;
	}
	idx->totals.npackets = h.npackets;
	idx->totals.cycles = h.cycles;
	idx->totals.max_cyc = h.max_cyc;
	idx->totals.first_tsc = h.first_tsc;
	idx->totals.last_tsc = h.last_tsc;
	for (c = 0; c < PKC_NCLASSES; c++)
		idx->totals.per_class[c] = h.per_class[c];
	idx->totals.novf = h.novf;
	idx->totals.nerrors = h.nerrors;
	idx->totals.ngaps = h.ngaps;
	idx->totals.have_tsc = (uint8_t)!!h.have_tsc;
	idx->ord_next = h.npackets;
	atomic_store(&idx->ncarry, (size_t)h.ncarry);
	atomic_store(&idx->ntsums, (size_t)h.ntsum);
	atomic_store(&idx->nseeks, n);
	atomic_store(&idx->nsums, n);
	if (h.size == idx->img->size) {
		atomic_store(&idx->scanned, h.size);
		atomic_store(&idx->scan_done, 1);
		idx->sums_done = 1;
		if (idx->time_pass &&
		    h.ncarry < (n + (1u << CARRY_SHIFT) - 1) >> CARRY_SHIFT)
			return 0;	/* idx_start() runs the time pass */
		atomic_store(&idx->finished, 1);
		atomic_store(&idx->phase, IDX_DONE);
		idx->complete = 1;
		return 0;
	}
	/* The trace grew: redo the last segment and scan the tail. */
	if (n)
		drop_tail(idx);
	else
		idx->resume_off = 0;
	atomic_store(&idx->scanned, idx->resume_off);
	return 0;
}

/* Free block @p unless it lives in the borrowed blob. */
static void free_block(struct idx *idx, void *p)
{
	if ((const uint8_t *)p >= idx->borrow_lo && (const uint8_t *)p < idx->borrow_hi)
		return;
	free(p);
}

int idx_reset(struct idx *idx)
{
	size_t i;

	if (!idx || idx->started)
		return -pte_invalid;
	for (i = 0; i < idx->nblk; i++) {
		free_block(idx, idx->sblk[i]);
		free_block(idx, idx->ublk[i]);
		free_block(idx, idx->oblk[i]);
		free_block(idx, idx->carry[i]);
		free_block(idx, idx->gblk[i]);
		idx->sblk[i] = NULL;
		idx->ublk[i] = NULL;
		idx->oblk[i] = NULL;
		idx->carry[i] = NULL;
		idx->gblk[i] = NULL;
	}
	for (i = 0; i < idx->ncblk; i++)
		free_block(idx, idx->cblk[i]);
	if (idx->unborrow)
		idx->unborrow(idx->unborrow_ctx);
	idx->unborrow = NULL;
	idx->borrow_lo = idx->borrow_hi = NULL;
	free(idx->cblk);
	free(idx->hslot);
	free(idx->exc);
	free(idx->trouble);
	idx->cblk = NULL;
	idx->ncblk = idx->nctx = idx->hcap = 0;
	idx->hslot = NULL;
	idx->exc = NULL;
	idx->nexc = idx->excap = 0;
	idx->trouble = NULL;
	idx->ntrouble = idx->trcap = 0;
	memset(&idx->totals, 0, sizeof(idx->totals));
	idx->ord_next = 0;
	idx->resume_off = 0;
	idx->complete = 0;
	idx->sums_done = 0;
	atomic_store(&idx->ncarry, 0);
	atomic_store(&idx->ntsums, 0);
	pthread_mutex_lock(&idx->memo_lock);
	memo_clear(idx);
	pthread_mutex_unlock(&idx->memo_lock);
	atomic_store(&idx->nseeks, 0);
	atomic_store(&idx->nsums, 0);
	atomic_store(&idx->scanned, 0);
	atomic_store(&idx->scan_done, 0);
	atomic_store(&idx->finished, 0);
	atomic_store(&idx->phase, IDX_IDLE);
	return 0;
}

int idx_load(struct idx *idx, const void *buf, size_t len)
{
	int ret;

	if (!idx || !buf || (uintptr_t)buf % 8)
		return -pte_invalid;
	if (idx->started || idx_nseeks(idx) || idx->nctx)
		return -pte_invalid;
	ret = load_blob(idx, buf, len, 0);
	if (ret < 0)
		idx_reset(idx);
	return ret;
}

int idx_load_mapped(struct idx *idx, void *buf, size_t len,
		    void (*unborrow)(void *ctx), void *ctx)
{
	int ret;

	if (!idx || !buf || (uintptr_t)buf % 8)
		return -pte_invalid;
	if (idx->started || idx_nseeks(idx) || idx->nctx)
		return -pte_invalid;
	idx->borrow_lo = buf;
	idx->borrow_hi = (const uint8_t *)buf + len;
	idx->unborrow = unborrow;
	idx->unborrow_ctx = ctx;
	ret = load_blob(idx, buf, len, 1);
	if (ret < 0)
		idx_reset(idx);
	return ret;
}
