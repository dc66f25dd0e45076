/*
 * search -- predicates over packets, a background search over a whole
 * image on all cores, and the filter view's bounded-work iterator.
 *
 * The packet sequence searched is the one every other layer decodes: from
 * each PSB on (the IP compression state is reset there, so decoding from a
 * seek point gives exact IPs), a decode error being one pseudo packet of
 * type PKT_INVALID after which decoding resumes at the next PSB.  Bytes
 * before the first PSB are not searched.
 *
 * Speed: a predicate that only a packet holding some bytes can satisfy
 * (ovf: "02 f3", cbr 0x20: "02 03 20", tip 0x401000: an IP opcode and
 * "00 10", bytes 02 f3) is searched by a vectorised scan for those bytes;
 * only the PSB segment around a candidate is decoded.  Other predicates
 * decode every packet, skipping segments whose index summary rules a match
 * out (srch_segment_may_match()).
 *
 * Search syntax (srch_parse()), case-sensitive, words separated by blanks:
 *   TYPE            a packet type by ptdump name: tip, tip.pge, ovf, tnt.8,
 *                   mode.exec, ...; "tnt" is tnt.8 or tnt.64
 *   CLASS           sync, branch, ip, timing, mode, power, error, other;
 *                   "error" is ovf and decode errors
 *   TYPE VALUE      the type's main value: tip/fup/tip.pge/tip.pgd and
 *                   "ip": the reconstructed IP; cbr, mtc, tsc, cyc, vmcs,
 *                   pip (cr3), tma (ctc), mode.exec (16, 32 or 64; the
 *                   reserved CS.L=CS.D=1 is none of them),
 *                   tnt.8/tnt.64 (number of bits), ptw/mnt (payload)
 *   TYPE FIELD=VALUE  a named field: ip, cbr, mtc, tsc, cyc, cr3, nr,
 *                   vmcs, ctc, fc, bits, intx, abrt, nbits, payload
 *   an operator     = == != < <= > >= before a value ("tsc >= 0x1000",
 *                   "pip cr3=0x1000", "cyc > 1000"); a range A-B
 *                   (inclusive: "ip 0x400000-0x4fffff") takes none
 *   a number        decimal or 0x hex (a leading 0 is not octal)
 *   bytes HEX...    raw bytes starting inside a packet ("bytes 02 f3",
 *   x:HEX           "x:02f3"); the hit is the packet holding the first byte:
 *                   a decode error's too, whose bytes run to the next PSB
 *                   (or the end, or a gap), as the packet pane shows them
 *   gap OP TIME     a timed packet (tsc, or mtc when the configuration
 *                   gives MTC timing) whose time, by the time model, is OP
 *                   TIME after the previous timed packet's (OP defaults
 *                   to >): model times, not payloads, so at a TSC behind
 *                   the estimate (held, TM_F_CLAMPED) gaps count to and
 *                   from the time held; TIME in tsc ticks (5000,
 *                   5000tsc) or with ns, us, ms, s (2.5us; needs
 *                   srch_pred_set_config());
 *                   a range "gap 1us-20us" or "gap 1us-20" (its upper
 *                   end in the lower one's unit unless it has one; ticks
 *                   and times do not mix)
 *   not X, !X       X does not hold
 *   X and Y, X & Y  both (also just "X Y")
 *   X or Y, X | Y   either; "and" binds tighter; parentheses group
 *                   (at most 256 levels of ( and not, 64 nodes)
 */
#ifndef SEARCH_H
#define SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "image.h"
#include "index.h"
#include "pkt.h"
#include "ptdec.h"
#include "tm.h"
#include "tm_config.h"

struct srch_pred;
struct srch;

/* Parse search text @text into a new predicate *@out.  On error, a one-line
 * message goes to @err (@errlen bytes, may be 0).
 * Returns 0 and sets *@out (free with srch_pred_free()).
 * Returns -pte_invalid if @text does not parse (see @err).
 * Returns -pte_nomem if out of memory. */
int srch_parse(const char *text, struct srch_pred **out, char *err,
	       size_t errlen);

/* Free @pred (NULL is fine). */
void srch_pred_free(struct srch_pred *pred);

/* Write @pred in a canonical form ("(tip & ip=0x401000)") into @buf.
 * Returns the length it needs, as snprintf. */
int srch_pred_format(const struct srch_pred *pred, char *buf, size_t len);

/* Give @pred the stream's timing configuration (copied), for "gap" in time
 * units and MTC times.  NULL means nothing is known.  Until it succeeds, a
 * gap in time units matches nothing and srch_start() refuses @pred.  The
 * index given to a gap search should use the same configuration: its PSB
 * carry makes times after a PSB exact (without it they are estimates).
 * Returns 0, -pte_invalid if @pred is NULL, or -pte_no_calib if @pred has
 * a gap in time units and @cfg gives no TSC frequency (not even P1). */
int srch_pred_set_config(struct srch_pred *pred, const struct tm_config *cfg);

/* Whether @pred needs packets before the one tested (a gap): such a
 * predicate is evaluated from one PSB segment earlier than asked. */
int srch_pred_has_history(const struct srch_pred *pred);

/* Whether @pred has a gap in time units (converted with the TSC
 * frequency srch_pred_set_config() gave it). */
int srch_pred_uses_time(const struct srch_pred *pred);

/* The packet types that may match @pred at all: bit 1 << enum pkt_type
 * (bit 0: decode errors); 0 for NULL.  A walk that only wants hits skips
 * srch_match() for the others. */
uint64_t srch_pred_types(const struct srch_pred *pred);

/* The decoding state a predicate is evaluated in.  Fields are private to
 * search_match.c but public so a context lives on the stack. */
struct srch_ctx {
	const struct img *img;	/* for bytes predicates; may be NULL */
	uint64_t last_ip;	/* IP compression state */
	uint64_t ip;		/* this packet's IP, if ip_ok */
	uint64_t gap;		/* ticks since the previous timed packet */
	uint64_t prev_time;	/* time of the previous timed packet */
	uint8_t ip_ok;
	uint8_t gap_ok;
	uint8_t have_prev;
	uint8_t use_tm;
	uint8_t need_ip;	/* track IPs (the predicate compares them) */
	struct tm_model tm;
};

/* Set @ctx up for decoding image @img (NULL: bytes predicates never match)
 * with @pred's needs, at a PSB or the start of decoding. */
void srch_ctx_init(struct srch_ctx *ctx, const struct srch_pred *pred,
		   const struct img *img);

/* Feed packet @pkt (in stream order; a decode error is a packet of type
 * PKT_INVALID) to @ctx before testing it with srch_match(). */
void srch_step(struct srch_ctx *ctx, const struct pkt *pkt);

/* Whether @pkt satisfies @pred.  @ctx, fed up to and including @pkt by
 * srch_step(), gives IPs, gaps and bytes; with @ctx NULL, compressed IPs,
 * gaps and bytes never match.
 * Returns 1 if it matches, 0 if not. */
int srch_match(const struct srch_pred *pred, const struct pkt *pkt,
	       const struct srch_ctx *ctx);

/* Whether a PSB segment summarised by @sum may hold a match.
 * Returns 0 if it cannot (the search skips it), 1 if it may. */
int srch_segment_may_match(const struct srch_pred *pred,
			   const struct idx_summary *sum);

/* Whether PSB segment @i of @idx (over @img) may hold a packet matching
 * @pred when decoded from its PSB with a fresh srch_ctx: neither its
 * summary (its types, its largest CYC, its TSCs; not the time pass's
 * gaps) nor, for a predicate that only some bytes satisfy, a scan of its
 * bytes rules one out.  Call it where a SIGBUS is guarded against.
 * Returns 0 if it cannot, 1 if it may (also when @idx cannot say). */
int srch_segment_may_hit(const struct srch_pred *pred, const struct img *img,
			 const struct idx *idx, size_t i);

/* Options of a background search; zero means the default. */
struct srch_opts {
	unsigned nthreads;	/* default: one per online CPU */
	size_t max_hits;	/* hits kept, nearest first (default 65536) */
	uint64_t job_size;	/* largest unit of work (default 32 MiB) */
	int no_wrap;		/* do not continue at the other end */
	int no_skip;		/* ignore index summaries */
	int no_prefilter;	/* decode everything */
	/* Every hit was counted by a finished search with the same
	 * predicate over the same image (from elsewhere): this one says
	 * that count and only finds the nearest max_hits, skipping the work
	 * beyond them (n and N past the kept hits keep their count instead
	 * of counting them all again).  0: count. */
	uint64_t known_hits;
	/* Run each unit of work as guard(body, arg), which returns body's
	 * result or -pte_sigbus if the mapping vanished (trace_guard() in
	 * src/trace.h); NULL: unguarded. */
	int (*guard)(int (*body)(void *), void *arg);
};

/* A snapshot of a search (srch_status()). */
struct srch_status {
	uint64_t done;		/* bytes searched */
	uint64_t total;		/* bytes to search */
	uint64_t nhits;		/* matches counted so far (all of them), or
				 * srch_opts.known_hits */
	int count_known;	/* nhits is the whole count (known_hits) */
	size_t nkept;		/* of which kept: the nearest ones */
	int have_first;		/* first is the first hit, for certain */
	uint64_t first;		/* offset of the first hit in the direction */
	int first_wrapped;	/* it lies past the end (forward) or before
				 * the start (backward): "search hit BOTTOM,
				 * continuing at TOP" */
	int finished;		/* the workers stopped */
	int status;		/* once finished: 0, -pte_canceled, ... */
};

/* Search image @img for packets matching @pred (copied) in the background,
 * starting after (@dir > 0) or before (@dir < 0) offset @from and wrapping
 * around at the end (the packet at @from itself comes last).  @idx (may be
 * NULL, may be still building) gives seek points and summaries; @img and
 * @idx must outlive the search.  Memory is bounded: the nearest max_hits
 * hits are kept (8 bytes each), the rest only counted.
 * Returns 0 and sets *@out.
 * Returns -pte_invalid if an argument is NULL or @dir is 0.
 * Returns -pte_no_calib if @pred has a gap in time units and no TSC
 * frequency (srch_pred_set_config()).
 * Returns -pte_nomem if out of memory or no thread could start. */
int srch_start(struct srch **out, const struct img *img, struct idx *idx,
	       const struct srch_pred *pred, uint64_t from, int dir);

/* srch_start() with options @opts (NULL: defaults). */
int srch_start_opts(struct srch **out, const struct img *img,
		    struct idx *idx, const struct srch_pred *pred,
		    uint64_t from, int dir, const struct srch_opts *opts);

/* Ask the search to stop now; safe from a signal handler. */
void srch_cancel(struct srch *s);

/* Wait for the search to end.
 * Returns 0 if it searched everything, -pte_canceled, or -pte_sigbus if
 * the guard reported that the mapping vanished. */
int srch_wait(struct srch *s);

/* Cancel, wait and free @s (NULL is fine). */
void srch_free(struct srch *s);

/* Take a snapshot of @s into @st. */
void srch_status(struct srch *s, struct srch_status *st);

/* The next hit after (@dir > 0) or before (@dir < 0) offset @off, for
 * "n" and "N", wrapping around at the ends; *@wrapped (may be NULL) tells
 * that it wrapped.
 * Returns 0 and sets *@hit.
 * Returns 1 if not known yet or not kept (run a new search from @off).
 * Returns -pte_eos if the finished search found nothing at all. */
int srch_next_hit(struct srch *s, uint64_t off, int dir, uint64_t *hit,
		  int *wrapped);

/* Copy up to @n kept hits with offsets in [@lo, @hi), in offset order,
 * into @out (for highlighting).  Returns how many were copied. */
size_t srch_hits(struct srch *s, uint64_t lo, uint64_t hi, uint64_t *out,
		 size_t n);

/* The filter view's source: the first packet matching @pred at or after
 * offset @off, decoding at most about @budget bytes (0: 4 MiB).  @idx may
 * be NULL.
 * Returns 0 and fills *@hit.
 * Returns 1 if none was found within the budget: call again with *@resume.
 * Returns -pte_eos if there is none up to the end. */
int srch_filter_next(const struct srch_pred *pred, const struct img *img,
		     struct idx *idx, uint64_t off, uint64_t budget,
		     struct pkt *hit, uint64_t *resume);

/* The last packet matching @pred before offset @off, as srch_filter_next()
 * (returns 1 with *@resume to call again with; -pte_eos at the start). */
int srch_filter_prev(const struct srch_pred *pred, const struct img *img,
		     struct idx *idx, uint64_t off, uint64_t budget,
		     struct pkt *hit, uint64_t *resume);

/* Up to @n packets matching @pred for a screen of the filter view: at or
 * after @off in offset order (@dir > 0), or before @off nearest first
 * (@dir < 0), into @out, decoding about @budget bytes (0: 4 MiB); *@got
 * tells how many.
 * Returns 0 if @n were found.
 * Returns 1 if the budget ran out first: continue from *@resume (keeping
 * the *@got found).
 * Returns -pte_eos if the end (or the start) came first.
 * Returns -pte_invalid if an argument is NULL. */
int srch_filter_fill(const struct srch_pred *pred, const struct img *img,
		     struct idx *idx, uint64_t off, int dir, uint64_t budget,
		     struct pkt *out, size_t n, size_t *got, uint64_t *resume);

#endif /* SEARCH_H */
