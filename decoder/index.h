/*
 * index -- PSB seek points and per-segment summaries of one trace image,
 * built in the background on all cores.
 *
 * Phase 1 finds every PSB (a vectorised search for "02 82", validated
 * against the whole 16-byte pattern) and decodes the PSB+ after each one
 * into a seek point: where decoding may start, with the state it needs.
 * Seek points are published as an in-order prefix while the scan runs, so
 * a browser can use the part already scanned ("scanned up to byte X").
 *
 * Phase 2 then decodes every PSB segment once -- segment i runs from seek
 * point i to seek point i + 1 (or the end) -- and stores its summary:
 * packet count and first ordinal (for "#N"), packets per class, first and
 * last TSC estimate, cycles, OVFs, decode errors and gaps.  Before a summary
 * exists the lookups answer "not yet" (1), never a guess.
 *
 * Phase 3 (the time pass) runs the time model (tm.h) over the whole
 * stream, keeping its carried state every 16 PSBs; the state at any PSB
 * is then a short decode away (idx_seek_carry()).  It runs on all cores:
 * each unit of segments from a provisional state, fixed up in order, so
 * the carries are those of one pass from the start, bit for bit.  Where
 * it follows phase 1 on all cores (a build with the time pass), phases 2
 * and 3 are one pass over the bytes: the time pass's skim counts the
 * packets as phase 2's would, and the progress says IDX_TIME for both.
 *
 * In a run of 02 82 pairs longer than 16 bytes (a payload may end in
 * 02 82 right before a PSB) the PSBs are the 16-byte blocks that end where
 * the run ends: that is where a sequential decoder meets them.
 *
 * Packet ordinals count from 0 at the first PSB; bytes before the first
 * PSB cannot be decoded reliably and are not counted.
 *
 * Reading the index from one thread while the builder runs is safe: seek
 * points and summaries never move once published.  Everything is memory
 * only; the caller owns the image's bytes (the file mapping).
 */
#ifndef INDEX_H
#define INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "image.h"
#include "pkt.h"
#include "ptdec.h"
#include "tm.h"
#include "tm_config.h"

struct idx;
struct tm_carry;

/* What the PSB+ of a seek point held (struct idx_seek.flags). */
enum idx_seek_flag {
	IDX_HAVE_TSC = 1 << 0,
	IDX_HAVE_TMA = 1 << 1,
	IDX_HAVE_CBR = 1 << 2,
	IDX_HAVE_EXEC = 1 << 3,	/* mode.exec */
	IDX_HAVE_TSX = 1 << 4,	/* mode.tsx */
	IDX_HAVE_PIP = 1 << 5,
	IDX_HAVE_VMCS = 1 << 6,
	IDX_HAVE_FUP = 1 << 7,	/* tracing was on: the IP at the PSB */
	IDX_PSBEND = 1 << 8,	/* the PSB+ ended with a PSBEND */
	IDX_BAD_PSBPLUS = 1 << 9,/* a decode error or truncation inside PSB+ */
	IDX_GAP = 1 << 10,	/* data was lost between the previous PSB and this one */
};

/* A seek point: a PSB and the state its PSB+ describes. */
struct idx_seek {
	uint64_t offset;	/* logical offset of the PSB in the image */
	uint64_t tsc;		/* TSC[55:0] */
	uint64_t fup_ip;	/* the FUP's IP (compression state reset at PSB) */
	uint64_t cr3;		/* PIP's CR3, in place (struct pkt u.pip.cr3) */
	uint64_t vmcs;		/* VMCS pointer, in place */
	uint16_t ctc;		/* TMA CTC[15:0] */
	uint16_t fc;		/* TMA FastCounter[8:0] */
	uint8_t cbr;		/* core:bus ratio */
	uint8_t exec;		/* mode.exec: bit 0 CS.L, bit 1 CS.D, bit 2 IF */
	uint8_t tsx;		/* mode.tsx: bit 0 InTX, bit 1 TXAbort */
	uint8_t nr;		/* PIP's non-root bit */
	uint16_t flags;		/* enum idx_seek_flag */
};

/* What phase 2 learned about one PSB segment (or, from idx_totals(), about
 * all of them). */
struct idx_summary {
	uint64_t first_ordinal;	/* ordinal of the segment's PSB */
	uint64_t npackets;	/* packets in the segment, errors included */
	uint64_t size;		/* bytes, PSB to next PSB (or end) */
	uint64_t per_class[PKC_NCLASSES];	/* packets per enum pkt_class */
	uint8_t have_tsc;	/* first_tsc and last_tsc are meaningful */
	uint64_t first_tsc;	/* TSC estimate of the first timed packet */
	uint64_t last_tsc;	/* and of the last one */
	uint8_t tsc_back;	/* a TSC payload below an earlier one here:
				 * first_tsc..last_tsc bound them not */
	uint64_t cycles;	/* CYC core cycles in the segment */
	uint64_t max_cyc;	/* the largest CYC payload, 0 if none */
	uint32_t novf;		/* OVF packets */
	uint32_t nerrors;	/* decode errors (each skips to the next PSB) */
	uint32_t ngaps;		/* data lost between two spans (perf.data) */
	/* From the time pass (idx_summary() only), as a search's "gap"
	 * sees it: TSC packets, and MTCs if the configuration places them */
	uint8_t have_time;	/* the time pass got here: has_gap, max_gap */
	uint8_t has_gap;	/* a timing packet here follows another */
	uint64_t max_gap;	/* the largest such gap (the earlier packet may
				 * be in an earlier segment), TSC ticks */
	uint64_t gap_off;	/* the packet ending it (the first of equals) */
	/* The clean periods the time model measured (tm_last_period(): MTC
	 * to MTC, or TSC to TSC where no MTCs come) that end here, from the
	 * time pass: the slowest (fewest cycles per tick, so the lowest
	 * MHz; the first of equals) and the fastest */
	uint8_t has_period;	/* slow_period, fast_period, slow_off */
	struct tm_period slow_period, fast_period;	/* seq is 0 */
	uint64_t slow_off;	/* the packet ending the slowest */
	/* Sleeps (PWRE, EXSTOP .. PWRX) closed here, each by the first
	 * anchor (TSC or MTC) after its PWRX, from the time pass
	 * (tm_last_halt()): how many, and the core's halted time in them,
	 * at least and at most, whole TSC ticks (equal only where each
	 * EXSTOP's time is an anchor's, tm_last_halt()) */
	uint32_t nhalt;
	uint64_t halt_lo, halt_hi;
};

/* Whether @s holds trouble: an OVF, a decode error or a gap. */
static inline int idx_summary_trouble(const struct idx_summary *s)
{
	return s->novf || s->nerrors || s->ngaps;
}

enum idx_phase {
	IDX_IDLE,		/* not started */
	IDX_SCAN,		/* phase 1: finding PSBs */
	IDX_SEGMENTS,		/* phase 2: summarising segments */
	IDX_TIME,		/* phase 3: the time model's state at each PSB
				 * (and the summaries, in one pass with it) */
	IDX_DONE,		/* finished: see idx_progress.status */
};

/* A snapshot of the builder's progress, cheap to take from any thread. */
struct idx_progress {
	enum idx_phase phase;
	uint64_t done;		/* bytes of the current phase done */
	uint64_t total;		/* bytes of the current phase */
	double rate;		/* bytes per second in the current phase */
	double eta;		/* seconds until every phase ends; < 0 unknown */
	double frac;		/* of the whole build done, 0..1: the phases
				 * weighted by their cost per byte */
	double elapsed;		/* seconds since idx_start() */
	size_t nseeks;		/* seek points published so far */
	uint64_t scanned;	/* every PSB below this offset is published */
	int finished;		/* the builder stopped (done, failed or cancelled) */
	int status;		/* once finished: 0 or a negative pte code */
};

/* Create an index over @img (which must outlive it) with timing
 * configuration @cfg (copied; NULL means unknown).
 * Returns 0 and sets *@out, or -pte_invalid, or -pte_nomem. */
int idx_new(struct idx **out, const struct img *img, const struct tm_config *cfg);

/* The timing configuration @idx was made with (all unknown if none). */
const struct tm_config *idx_config(const struct idx *idx);

/* Cancel and wait for the builder, then free @idx (NULL is fine). */
void idx_free(struct idx *idx);

/* Knobs, before idx_start().  @nthreads 0 means one per online CPU; the
 * chunk size (bytes per unit of work, default 16 MiB) is rounded up to
 * 64 bytes; tests make it tiny to put PSBs on chunk boundaries.
 * Returns 0, or -pte_invalid if building already started. */
int idx_set_threads(struct idx *idx, unsigned nthreads);
int idx_set_chunk_size(struct idx *idx, uint64_t bytes);

/* Skip phases 2 and 3 (seek points only).  Returns 0 or -pte_invalid. */
int idx_set_phase1_only(struct idx *idx, int on);

/* Skip phase 3, the time pass (on by default); idx_seek_carry() then
 * answers -pte_no_time.  Returns 0 or -pte_invalid. */
int idx_set_time_pass(struct idx *idx, int on);

/* Run every worker's body through @guard, which calls body(arg) and returns
 * its result, or -pte_sigbus if the mapping vanished under it (trace_guard()
 * in src/trace.h has this shape).  Returns 0 or -pte_invalid. */
int idx_set_guard(struct idx *idx, int (*guard)(int (*body)(void *), void *arg));

/* Tell @release(@ctx, p, n) about bytes [p, p + n) the builder is done with,
 * so the caller can drop them from its page tables (keeps RSS down).
 * Returns 0 or -pte_invalid. */
int idx_set_release(struct idx *idx,
		    void (*release)(void *ctx, const uint8_t *p, size_t n),
		    void *ctx);

/* Tell @willneed(ctx of idx_set_release(), p, n) about bytes the builder
 * will read soon, so the caller can have them read ahead.
 * Returns 0 or -pte_invalid. */
int idx_set_willneed(struct idx *idx,
		     void (*willneed)(void *ctx, const uint8_t *p, size_t n));

/* Start building in background threads.
 * Returns 0, -pte_invalid if already started, or -pte_nomem. */
int idx_start(struct idx *idx);

/* Wait for the builder to stop.
 * Returns 0 if the index is complete, -pte_canceled, -pte_sigbus, or
 * another negative pte code. */
int idx_wait(struct idx *idx);

/* Build in the calling thread's time: idx_start() + idx_wait(). */
int idx_build(struct idx *idx);

/* Ask the builder to stop soon (it checks every few hundred KiB); safe
 * from a signal handler.  idx_wait() then returns -pte_canceled. */
void idx_cancel(struct idx *idx);

/* Take a progress snapshot into @p. */
void idx_progress(const struct idx *idx, struct idx_progress *p);

/* The number of seek points published so far. */
size_t idx_nseeks(const struct idx *idx);

/* Whether phase 1 has finished (idx_nseeks() is final). */
int idx_scan_done(const struct idx *idx);

/* Copy seek point @i into @out.
 * Returns 0, or -pte_invalid if @i >= idx_nseeks(). */
int idx_seek(const struct idx *idx, size_t i, struct idx_seek *out);

/* Segment @i's bytes: from its seek point's offset to the next one's, or
 * to the end of the image for the last published (while phase 1 runs, a
 * PSB found later may end it sooner: see idx_scan_done()).  Cheaper than
 * two idx_seek() calls: nothing of the PSB+ is decoded.
 * Returns 0, or -pte_invalid if @i >= idx_nseeks() or an argument is
 * NULL. */
int idx_segment_span(const struct idx *idx, size_t i, uint64_t *from,
		     uint64_t *to);

/* The index of the last seek point at or before logical offset @off.
 * Returns 0 and sets *@i, or -pte_nosync if no published seek point is at
 * or before @off. */
int idx_find(const struct idx *idx, uint64_t off, size_t *i);

/* The time model's state when segment @i begins (tm_save() before its
 * PSB), so decoding from seek point @i gives the same times as decoding
 * from the start.  Costs a decode of up to 15 segments.  A decode error
 * ends a segment and counts as lost data (tm_gap()).
 * Returns 0, 1 if the time pass has not got there yet, -pte_invalid for a
 * bad @i, -pte_no_time if the time pass is off, or -pte_sigbus. */
int idx_seek_carry(const struct idx *idx, size_t i, struct tm_carry *out);

/* Move @tm, the state when segment @from begins, to the state when
 * segment @to (> @from) begins, as the time pass would: from the last
 * saved carry in (@from, @to] if there is one (tm_restore()d, @tm keeping
 * its configuration), then the time pass's fast walk over the segments
 * after it.  Call it where a SIGBUS is guarded against, as for any read
 * of the mapping.
 * Returns 0, or -pte_invalid for a bad argument (@tm is then as it was). */
int idx_time_advance(const struct idx *idx, size_t from, size_t to,
		     struct tm_model *tm);

/* Feed the packets from @dec's cursor up to @to to @tm with the time
 * pass's fast walk: the same state as tm_advance() on each packet, at a
 * fraction of the cost, and @dec left at @to in the state a pkt_next()
 * walk would leave it in (inside a block of BIP packets or not).  @dec
 * must be outside a block (bip_sz < 0) at a packet's start, and @to in
 * [cursor, end] where a packet starts or at the end; no packet is read
 * past @to.  *@stop (if not NULL) set stops it within 256 KiB.  Call it
 * where a SIGBUS is guarded against, as for any read of the mapping.
 * Returns 0, 1 if a packet could not be decoded (@tm took the loss,
 * tm_gap(), the packets after it were not fed and @dec did not move),
 * -pte_canceled if *@stop was set (@tm and @dec are then mid-way), or
 * -pte_invalid. */
int idx_time_feed(struct pkt_decoder *dec, const uint8_t *to, struct tm_model *tm,
		  const _Atomic int *stop);

/* The number of segments, from the first, whose carry idx_seek_carry()
 * can give now (an in-order prefix that only grows while the time pass
 * runs; safe from any thread).  0 if the time pass is off or has not
 * published a carry yet. */
size_t idx_ncarried(const struct idx *idx);

/* Copy the summary of segment @i into @out.
 * Returns 0, 1 if it does not exist yet, or -pte_invalid if @i is out of
 * range. */
int idx_summary(const struct idx *idx, size_t i, struct idx_summary *out);

/* idx_summary() without first_ordinal and the time pass's part (both 0),
 * which cost a walk over the segments before @i: for a test of every
 * segment's types (srch_segment_may_hit()).  Returns as idx_summary(). */
int idx_summary_counts(const struct idx *idx, size_t i, struct idx_summary *out);

/* Only the time pass's part of segment @i's summary (have_time, has_gap,
 * max_gap, gap_off, the periods; the rest of @out is left as it was): a
 * read of one entry, for a walk over every segment (:stalls).
 * Returns 0, 1 if the time pass has not got there yet, or -pte_invalid
 * for a bad @i. */
int idx_time_summary(const struct idx *idx, size_t i, struct idx_summary *out);

/* The number of segments summarised so far, as an in-order prefix. */
size_t idx_nsummaries(const struct idx *idx);

/* The halted time of the whole trace (struct idx_summary.nhalt, halt_lo,
 * halt_hi summed over the segments the time pass got to) into *@n, *@lo
 * and *@hi.  Returns 0, 1 if the time pass has not finished (the sums
 * so far), -pte_no_time if the index has no time pass, -pte_invalid for
 * a NULL argument. */
int idx_halted(const struct idx *idx, uint64_t *n, uint64_t *lo, uint64_t *hi);

/* The time (the model's estimate, whole TSC ticks) of the last timing
 * packet (TSC, or MTC if the configuration places them) at or before the
 * end of segment @i, from the time pass.
 * Returns 0 and sets *@tsc, 1 if the time pass has not got there,
 * -pte_no_time if no timing packet came so far, -pte_invalid for a bad
 * @i. */
int idx_last_timing(const struct idx *idx, size_t i, uint64_t *tsc);

/* Whether idx_totals()' last_tsc is the time model's estimate at the end
 * of the trace (the time pass ran, and past the last TSC packet), not a
 * TSC packet's.  Returns 1 or 0. */
int idx_end_estimated(const struct idx *idx);

/* The sum of all summaries (first_tsc the earliest, last_tsc the latest;
 * once complete, of the segments that are no outliers, idx_time_outlier(),
 * and last_tsc at least the time model's estimate at the end unless the
 * last segment with a TSC is an outlier).
 * Returns 0, or 1 if phase 2 has not finished (partial sums are given). */
int idx_totals(const struct idx *idx, struct idx_summary *out);

/* The segment holding packet ordinal @ord.
 * Returns 0 and sets *@seg, 1 if not known yet, -pte_eos if @ord is past
 * the last packet. */
int idx_find_ordinal(const struct idx *idx, uint64_t ord, size_t *seg);

/* Whether segment @i's first TSC contradicts its neighbours': the nearest
 * segments with a TSC each side (up to 4 away) are in order, and it lies
 * outside them; at an edge of the trace (no segment with a TSC before it,
 * or after it), the next two (the last two) are in order and it lies on
 * their wrong side, or 2^44 ticks and 2^16 times their distance off them
 * the other way.  One damaged PSB+ TSC makes its segment such an outlier
 * (the time model goes back at the next PSB+, TM_F_RESYNC); lookups by
 * time skip it.  Two adjacent damaged segments may be none.  A few
 * summary reads.  Returns 1 or 0 (0 for a segment not summarised, or one
 * without the neighbours). */
int idx_time_outlier(const struct idx *idx, size_t i);

/* The latest time a packet of segment @i can have in a sound trace: the
 * first TSC of the next segment with one (up to 4 on) that is no outlier,
 * idx_time_outlier(), with room for the model's estimates past it (two
 * MTC periods, the time from @i's own first TSC to it, or 2^16 ticks,
 * the most).  A time of @i's beyond it came from a damaged TSC outside
 * PSB+ (the model takes one far in the future as it comes; the next PSB+
 * TSC takes time back): it and what was measured up to it is disputed.
 * A few summary reads.  Returns 1 and sets *@tsc, or 0 if that is not
 * known (@i is an outlier, not summarised, or no such segment follows). */
int idx_time_ceiling(const struct idx *idx, size_t i, uint64_t *tsc);

/* Whether segment @i holds a TSC payload past its ceiling,
 * idx_time_ceiling() (into *@ceil): a TSC outside PSB+ damaged far into
 * the future, so its times past *@ceil are disputed.  Only then: a sound
 * segment's estimates may run past the ceiling too where the timing
 * options are wrong (a core:bus ratio from a wrong --nom-freq without
 * CPUID.15H), and they are no damage.  Its summary then holds the jump
 * as its largest gap (and, calibrating from TSC to TSC, its slowest
 * period): a bound, no more, on what a walk that leaves out what ends
 * past the ceiling finds (stall_segment()).  Where its TSC payloads go
 * back the largest is not known: maybe.  Returns 1 or 0. */
int idx_time_overrun(const struct idx *idx, size_t i, uint64_t *ceil);

/* The ceiling of segment @i (idx_time_ceiling(), into *@ceil) where a
 * time of its past it is damage: the segment, or the one before it (its
 * packets before its own PSB+ TSC have the time that one ended with),
 * holds a TSC payload past its ceiling (idx_time_overrun()).  Returns 1,
 * or 0 where no time of @i's is taken for damaged that way. */
int idx_time_damage_ceiling(const struct idx *idx, size_t i, uint64_t *ceil);

/* Set @t0, the first TSC of the trace's first packets (its time origin),
 * to the trace's first TSC if the index is complete, the first segment
 * with a TSC is an outlier, idx_time_outlier() (its TSC damaged), and @t0
 * is that segment's first TSC or lies outside the time range
 * (idx_totals()).  Returns 1 if it did, 0 if not. */
int idx_time_origin(const struct idx *idx, uint64_t *t0);

/* The last segment whose first TSC estimate is at or before @tsc (the first
 * segment with time if @tsc precedes them all; outliers, idx_time_outlier(),
 * are skipped).
 * Returns 0 and sets *@seg, 1 if not known yet, -pte_no_time if no segment
 * has a time. */
int idx_find_tsc(const struct idx *idx, uint64_t tsc, size_t *seg);

/* The nearest segment after (@dir > 0) or before (@dir < 0) segment @from
 * that holds an OVF, a decode error or a gap.
 * Returns 0 and sets *@seg, 1 if the summaries needed are not there yet,
 * -pte_eos if there is none. */
int idx_next_trouble(const struct idx *idx, size_t from, int dir, size_t *seg);

/*
 * Persistence (src/idxcache.c does the file part).  The blob is
 * self-describing but carries no checksum: the caller adds one.
 */

/* Serialise a finished index into a malloc'ed blob *@buf of *@len bytes.
 * Returns 0, -pte_invalid if the index is not complete, or -pte_nomem. */
int idx_save(const struct idx *idx, void **buf, size_t *len);

/* Serialise a finished index piece by piece through @emit(@ctx, p, n),
 * which returns 0 or a negative pte code (without a copy of the whole).
 * Returns 0, -pte_invalid if the index is not complete, or what @emit
 * returned. */
int idx_save_to(const struct idx *idx,
		int (*emit)(void *ctx, const void *p, size_t n), void *ctx);

/* Load the blob [@buf, @buf + @len) into a fresh index (not started).  If
 * the image is longer than the indexed size recorded in the blob (a trace
 * that grew), the old part is kept and idx_start() indexes only from the
 * last old PSB on.
 * On failure @idx is left empty, as idx_new() made it.
 * Returns 0, -pte_bad_file if the blob is malformed or does not fit the
 * image, -pte_invalid if @idx was started or has content or @buf is not
 * 8-byte aligned, or -pte_nomem. */
int idx_load(struct idx *idx, const void *buf, size_t len);

/* As idx_load(), but the index keeps using @buf (mapped copy-on-write,
 * writable) instead of copying it; @unborrow(@ctx) is called when the
 * index no longer needs it (idx_reset(), idx_free(), or a failed load).
 * Returns as idx_load(). */
int idx_load_mapped(struct idx *idx, void *buf, size_t len,
		    void (*unborrow)(void *ctx), void *ctx);

/* Forget everything idx_load() put into @idx (which was not started), so
 * it can be built from scratch.  Returns 0, or -pte_invalid if started. */
int idx_reset(struct idx *idx);

/* Whether the index is complete, the time pass included (nothing left for
 * idx_start() to do). */
int idx_complete(const struct idx *idx);

#endif /* INDEX_H */
