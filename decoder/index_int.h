/*
 * index_int -- what the files of the index share: the packed storage, the
 * builder's units and state, and the functions one file gives another.
 * Not for callers outside decoder/index*.c: they use index.h.
 *
 *   index.c       lifecycle, the builder (a coordinator thread over a
 *                 pool of workers), progress and the lookups
 *   index_scan.c  phase 1: PSBs and their PSB+ -> seek points
 *   index_sum.c   phase 2: one summary per PSB segment
 *   index_time.c  phase 3: the time pass, idx_seek_carry()
 *   index_tskim.c phase 3's skim of one segment, idx_time_feed()
 *   index_blob.c  the cache blob: idx_save(), idx_load(), idx_reset()
 *
 * index.c's coordinator calls the three phases; they call back into
 * index.c for idx_run_units() and the page release.  index_tskim.c borrows
 * index_sum.c's skim tables and idx_pace(); index_blob.c uses index.c's
 * lookups and index_scan.c's idx_pair_at() and idx_ctx_reserve().
 */
#ifndef INDEX_INT_H
#define INDEX_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "index.h"
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
 *   largest CYC; packets per class as u16.  Anything that does not fit
 *   (and every OVF, error or gap) goes to a sorted exception list.  The
 *   first ordinal is kept per group of 64 segments and summed within the
 *   group.
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
	/* the slowest and the fastest clean period (struct tm_period) that
	 * ended in the segment, and the offset of the packet ending the
	 * slowest (the first of equals) */
	uint64_t slow_off;
	uint64_t gap_off;		/* the packet ending the largest gap */
	uint64_t slow_ticks, fast_ticks;
	uint32_t slow_frac, fast_frac;
	uint32_t slow_cyc, fast_cyc;
	uint8_t has_gap, has_last, has_per;
	uint8_t pad;
	/* the sleeps closed in the segment (tm_last_halt()): how many, and
	 * their halted time, at least and at most, whole ticks */
	uint32_t nhalt;
	uint64_t halt_lo, halt_hi;
};

/* Periods of one segment, as the time pass sees them. */
struct pacc {
	int has;			/* a period ended here */
	struct tm_period slow, fast;
	uint64_t slow_off;
	uint32_t nhalt;			/* sleeps closed here, halted time */
	uint64_t halt_lo, halt_hi;
};

/* The time pass's gap accumulator. */
struct gacc {
	int mtc;			/* MTCs are timing packets (CTC known) */
	int has_prev;			/* prev: the last timing packet's time */
	uint64_t prev;
	int has_first, has_rest;	/* in this segment: the first timing
					 * packet's time, the largest gap but
					 * the first's, and their packets */
	uint64_t first, rest;
	uint64_t first_off, rest_off;
	int first_void;			/* the first's gap measures nothing
					 * (tm_tsc_jumped()) */
	/* the clean periods (tm_last_period()): the model's count at the
	 * last look, this segment's, and where the bytes being skimmed lie
	 * (an offset for a pointer) */
	uint64_t pseq;
	uint64_t hseq;			/* and the sleeps closed (tm_last_halt()) */
	struct pacc per;
	const uint8_t *base;
	uint64_t base_off;
};

/* A segment of a phase 3 unit, as the worker saw it. */
struct gseg {
	uint64_t first, rest, last;
	uint64_t first_off, rest_off;
	uint8_t has_first, has_rest, first_void;
	struct pacc per;
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

/*
 * What a skim has learnt of the packets it walks, for the next segments
 * of one phase-2 or phase-3 unit: whether they are sparse (few one-byte
 * packets, as in a TIP-heavy trace), where a loop over sizes of whole
 * blocks beats one over single packets.  Speed only: the counts and
 * times are the same either way.  vec_bytes counts what that loop skimmed
 * (tests see it ran).
 */
struct idx_skim_hint {
	int sparse;
	uint64_t bytes, npackets;	/* since the last guess */
	uint64_t vec_bytes;
};
#define IDX_SKIM_HINT_INIT	{ 0, 0, 0, 0 }
#define IDX_SKIM_SPARSE	72	/* packets per 100 bytes: sparse below */
#define IDX_SKIM_LEARN	4096	/* bytes to a new guess */

/* Learn from @bytes skimmed as @npackets whether the next are sparse:
 * fewer than IDX_SKIM_SPARSE packets per 100 bytes over the last
 * IDX_SKIM_LEARN bytes at least.  (A guess for speed only: both loops count
 * the same.) */
static inline void idx_skim_learn(struct idx_skim_hint *h, uint64_t bytes,
				  uint64_t npackets)
{
	h->bytes += bytes;
	h->npackets += npackets;
	if (h->bytes < IDX_SKIM_LEARN)
		return;
	h->sparse = h->npackets * 100 < (uint64_t)IDX_SKIM_SPARSE * h->bytes;
	h->bytes = h->npackets = 0;
}

/* Phase 2 unit of work: segments [s0, s1). */
struct unit2 {
	size_t s0, s1;
	struct sum_exc *exc;
	size_t n, cap;
	struct idx_skim_hint hint;
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
	struct unit2 sum;		/* the summaries (sums_in_time) */
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
	_Atomic uint64_t skim_vec_bytes;	/* struct idx_skim_hint's, summed */
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
	_Atomic int sums_in_time;	/* phase 3 summarises (no phase 2) */
	/* the time model's estimate at the end (phase 3), which may be past
	 * the last TSC packet */
	int have_end;
	uint64_t end_tsc;
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
	_Atomic uint64_t total;	/* bytes of the current phase (progress) */
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

/* The offset of seek point @i (published). */
static inline uint64_t idx_seek_off(const struct idx *idx, size_t i)
{
	return idx->sblk[i >> BLK_SHIFT][i & BLK_MASK].off;
}

/* What a guarded unit body gets: the index and the unit's number. */
struct idx_unit_arg {
	struct idx *idx;
	size_t unit;
};

/* index.c */

/* Forget the replayed carries (memo_lock held or no reader running). */
void idx_memo_clear(struct idx *idx);

/* Free the current phase's unit table. */
void idx_free_units(struct idx *idx);

/* Set the totals' first and last TSC from the summaries, leaving out
 * the segments idx_time_outlier() names, and the end of time from
 * have_end, end_tsc (all summarised; exc_lock not held). */
void idx_time_range(struct idx *idx);

/* Run units 0 .. idx->nunits - 1 with @run on the pool (at most nthreads
 * workers), calling @merge for each in order from this thread, at most four
 * units ahead of it.  Returns 0 or the first failure (a unit's, @merge's,
 * or -pte_canceled). */
int idx_run_units(struct idx *idx,
		  int (*run)(void *ctx, unsigned worker, size_t k),
		  int (*merge)(void *ctx, size_t k));

/* Call @body(struct idx_unit_arg *) for unit @k through the guard.
 * Returns what the guard returns. */
int idx_unit_guarded(struct idx *idx, int (*body)(void *arg), size_t k);

/* Call @fn(release_ctx, p, n) on the bytes of logical [@a, @b), span by
 * span (nothing if @fn is NULL). */
void idx_range_call(struct idx *idx, uint64_t a, uint64_t b,
		    void (*fn)(void *ctx, const uint8_t *p, size_t n));

/* Tell the release callback the builder is done with [@a, @b). */
void idx_release_range(struct idx *idx, uint64_t a, uint64_t b);

/* The exception of segment @i (exc_lock held), or NULL. */
const struct sum_exc *idx_find_exc(const struct idx *idx, size_t i);

/* index_scan.c */

/* Whether a pair 02 82 starts at logical offset @off (reading across
 * spans, not across gaps). */
int idx_pair_at(const struct img *img, uint64_t off);

/* Decode the PSB+ after the PSB at @off into @sk. */
void idx_decode_psbplus(const struct img *img, uint64_t off, struct idx_seek *sk);

/* Allocate the context table (with its empty entry 0 unless @empty).
 * Returns 0 or -pte_nomem. */
int idx_ctx_reserve(struct idx *idx, int empty);

/* Phase 1: find the PSBs from resume_off on and publish seek points.
 * Returns 0, -pte_canceled, -pte_nomem or a guard's failure. */
int idx_phase1(struct idx *idx);

/* index_sum.c */

/* Fill the class and skim tables (once; any thread). */
void idx_sum_init(void);

/* Credit progress and look for a cancel inside a long segment (see
 * index_sum.c).  Returns 0 or -pte_canceled. */
int idx_pace(struct idx *idx, uint64_t done, uint64_t *credited);

/* Bytes of a packet by its first byte, 0 where pkt_next() must tell
 * (idx_sum_init() fills it). */
extern uint8_t idx_skim_size[256];

/* The sizes the sparse skim loop (with @time, the time pass's, which
 * leaves mtc and mode to its scalar loop) gives a packet starting at each
 * of the 64 bytes at @p (it reads @p[0..64]) into @out, with SSE2 or
 * (@avx2) AVX2: 0 where it leaves the packet to others; into @out2 the
 * bytes to the packet after the next, or to the next (the same as @out)
 * where it cannot tell.  For tests: every size it gives must be
 * pkt_next()'s.  Returns 0, or -pte_invalid where that loop is not built
 * (not x86-64) or the CPU lacks AVX2. */
int idx_skim_sizes(const uint8_t *p, uint8_t out[64], uint8_t out2[64],
		   int avx2, int time);

/* Bytes phase 2 and the time pass skimmed with their sparse loops so far,
 * summed (for tests). */
uint64_t idx_skim_vec_bytes(const struct idx *idx);

/* For tests, before any index is built or fed: the sparse loops of phase
 * 2 and the time pass with AVX2 (@avx2, where the CPU has it, as they
 * start) or SSE2.  Returns 0, or -pte_invalid where the CPU lacks AVX2 or
 * the loops are not built (not x86-64). */
int idx_skim_use_avx2(int avx2);
/* The time pass's part of idx_skim_use_avx2(). */
int idx_time_use_avx2(int avx2);

/* Feed the packets of segment [@off, @end) to @tm, as a window decoder
 * would: a decode error (or a packet running into the next PSB) ends the
 * segment and loses data.  With @idx, progress is credited and a cancel
 * seen every CANCEL_STEP bytes (*@credited as for idx_pace()).  With @s,
 * the segment's summary goes there too (phase 2's, bit for bit).  @hint
 * carries what the skim learns from one segment to the next.  Returns 0,
 * or -pte_canceled (@tm is then mid-segment). */
int idx_time_segment(struct idx *idx, const struct img *img, uint64_t off,
		     uint64_t end, struct tm_model *tm, uint64_t *credited,
		     struct gacc *g, struct idx_summary *s,
		     struct idx_skim_hint *hint);

#if defined(__x86_64__)
/* 16 bytes of 0xff then 16 of 0: a load at 16 - j masks j bytes. */
extern const uint8_t idx_skim_prefix[32];
#endif

/* Count packet @pkt into @s. */
void idx_sum_count(struct idx_summary *s, const struct pkt *pkt);

/* Count an error row into @s, as the window shows it: a decode error
 * @err, or the loss of the data up to the next PSB at a gap (-pte_gap). */
void idx_sum_error(struct idx_summary *s, int err);

/* Whether segment [@off, @end) of @img is skimmed as one span's bytes
 * (then a pkt_next() walk over them counts what idx_summarise() does).
 * Returns 1 if so, else 0. */
int idx_sum_plain(const struct img *img, uint64_t off, uint64_t end);

/* Summarise segment [@off, @end) of @img into @s, crediting progress to
 * @idx (NULL: none) as idx_pace() does with *@credited, learning into
 * @hint (NULL: a fresh guess of its own).
 * Returns 0, or -pte_canceled (the summary is then partial). */
int idx_summarise(struct idx *idx, const struct img *img, uint64_t off,
		  uint64_t end, struct idx_summary *s, uint64_t *credited,
		  struct idx_skim_hint *hint);

/* Allocate the summary blocks of segments [@s0, @n).
 * Returns 0 or -pte_nomem. */
int idx_sum_reserve(struct idx *idx, size_t s0, size_t n);

/* Store @s as segment @i's summary (a worker, for its unit @u: what does
 * not pack goes to @u's exceptions).  Returns 0 or -pte_nomem. */
int idx_sum_put(struct idx *idx, struct unit2 *u, size_t i,
		const struct idx_summary *s);

/* Merge the summaries of unit @u (segments u->s0 .. u->s1, in order after
 * the last merged): ordinals, exceptions, trouble and totals, then publish
 * them; frees @u's exceptions.  Returns 0, -pte_nomem or -pte_internal. */
int idx_sum_merge(struct idx *idx, struct unit2 *u);

/* Phase 2: summarise the segments from nsums on.
 * Returns 0, -pte_canceled, -pte_nomem or a guard's failure. */
int idx_phase2(struct idx *idx);

/* index_time.c */

/* Whether phase 3 can summarise the segments too, in the same pass
 * (then phase 2 is not run): on all cores, the summaries ending where
 * phase 3 starts.  Returns 1 if so, else 0. */
int idx_phase3_sums(const struct idx *idx);

/* Phase 3: the time pass from the last carry on (with the summaries if
 * sums_in_time is set).
 * Returns 0, -pte_canceled, -pte_nomem or a guard's failure. */
int idx_phase3(struct idx *idx);

#endif /* INDEX_INT_H */
