/*
 * ctflow -- feeding the call tree (calltree.h) from the flow decoder's
 * windows (flow.h: lines with their runs and cycles), over a range of a
 * stream that may be far larger than one window: decoded PSB segment by
 * PSB segment (a few dozen KiB of trace at a time), so memory stays small
 * and the tree is what one decode of the whole range gives (the time
 * model's state carried from window to window).
 *
 * Errors and overflows break the flow of every thread (ct_break_all():
 * any of them may have run in what was lost); tracing disabled and
 * enabled again does not.  A thread switched in on a CPU's stream after
 * it ran on another CPU (the sideband's timelines say so) has its stack
 * there forgotten (ct_thread_lost()): its calls and returns over there
 * are not in this stream.  Tracing enabled again elsewhere on the same
 * thread and code may enter a signal's handler (ct_enabled()).  With a restriction (ctx.h's ranges), only the
 * instructions decided by packets inside the ranges are fed, and leaving
 * a range breaks the flow: the code of other tasks in between is not in
 * the tree.
 */
#ifndef CTFLOW_H
#define CTFLOW_H

#include <stddef.h>
#include <stdint.h>

struct ct;
struct ctx;
struct ctx_range;
struct flow;
struct sb;
struct flow_window;
struct img;
struct tm_carry;
struct tm_config;

/* The grid windows end on by default (struct ctf_opts.chunk), which is
 * the code index's chunk: a range's two edges are decoded when it is
 * asked for (up to a chunk each), so a small grid answers fast, and the
 * index holds a fragment per chunk.  On b_code's tiled p_sample trace (a
 * PSB every 4 KiB), a 1 MiB range from the code index took 11-13 ms of
 * CPU with 32 KiB, 5-9 ms with 8 KiB, whose fragments take 80 bytes per
 * KiB of trace (50 with 32 KiB). */
#define CTF_GRID (8 * 1024)

/* What ctf_range() needs. */
struct ctf_opts {
	int stream;		/* the stream decoded (for @ctx) */
	struct ctx *ctx;	/* the address space at an offset (ctx_at());
				 * NULL: 0, the common one */
	struct sb *sb;		/* the sideband @ctx reads (NULL: none): where
				 * else a thread ran */
	int nstreams;		/* the trace's streams (@sb's timelines) */
	const int32_t *migrants;	/* ctf_migrants() of @sb, or NULL (then
					 * @sb's timelines are walked) */
	size_t nmigrants;
	const struct tm_config *tm;	/* the stream's timing (cycles count
					 * without it; its time needs it) */
	const struct tm_carry *carry;	/* the time model's state just before
					 * the first PSB at or after FROM (the
					 * index's idx_seek_carry()), so that
					 * cycles are known from the range's
					 * first packet as decoding from the
					 * stream's start knows them; NULL: the
					 * time starts at that PSB.  Later
					 * windows carry it on themselves. */
	const struct ctx_range *keep;	/* NULL: everything */
	size_t nkeep;
	uint64_t chunk;		/* the grid: windows end at the first PSB at
				 * or after each multiple of it (0:
				 * CTF_GRID, which the code index shares:
				 * decodes on the same grid feed a tree
				 * the same calls, see ctf_range()) */
	/* A piece of a longer decode (ctidx.h, ctjob.h), so that the pieces
	 * fed in order make the tree the longer decode makes: */
	uint64_t ahead;		/* 0, or the end of the longer decode (past
				 * TO, a PSB on the grid): the last window
				 * reads on to the PSB after TO (below
				 * @ahead) and feeds only the lines decided
				 * before TO, as the longer decode's window
				 * ending there does */
	int resume;		/* FROM is a PSB on the grid the longer
				 * decode passes through: the first window
				 * is decoded from the PSB before it
				 * (@resume_psb, with @resume_carry) and
				 * feeds the lines decided at or after FROM,
				 * as the longer decode's does (@carry is
				 * still the state just before FROM) */
	uint64_t resume_psb;
	const struct tm_carry *resume_carry;
	/* Called by the feeding thread before each window's lines, with the
	 * window's first offset: may set *@ct to the tree fed from there on
	 * (the code index makes a fragment per window).  Returns 0, > 0 to
	 * stop there (ctf_range() then returns 0), or a negative pte code
	 * (ctf_range() returns it).  NULL: none. */
	int (*window)(void *ctx, uint64_t at, struct ct **ct);
	void *window_ctx;
	_Atomic int *cancel;	/* polled between windows: non-zero stops
				 * (NULL: never) */
	_Atomic uint64_t *done;	/* bytes of [FROM, TO) decoded so far,
				 * stored after each window (NULL: none) */
};

/* The threads @sb's timelines show on two of the @nstreams streams or
 * more, sorted, into *@out (free() it) and *@n.
 * Returns 0, or -pte_nomem. */
int ctf_migrants(struct sb *sb, int nstreams, int32_t **out, size_t *n);

/* Feed window @w's lines to @ct (see above).
 * Returns 0, or -pte_nomem, or -pte_invalid for NULL arguments. */
int ctf_window(struct ct *ct, const struct flow_window *w,
	       const struct ctf_opts *o);

/* Decode [@from, @to) of @img (the stream @f decodes) window by window
 * and feed it to @ct (not finished: call ct_finish()).  Decoding starts at
 * the first PSB at or after @from, as flow_seek() does.  Windows end on
 * the grid (@o->chunk), wherever the range starts: each window's calls to
 * @ct depend on where it starts, so decodes that share the grid feed the
 * same calls between two PSBs on it (the code index's fragments, the
 * pieces of a range decoded in parallel).  A second thread
 * decodes the next window while this one feeds the last (one thread if
 * none can be started): @f, its read callbacks and @o->ctx are each used
 * by one thread at a time, @f's by the decoding one, @ct's resolver and
 * @o->ctx by this one.
 * Returns 0; -pte_canceled if @o->cancel was set (@ct holds the windows
 * fed before); -pte_nomem; -pte_invalid for NULL arguments or @to <= @from;
 * or -pte_sigbus if the trace shrank (the decoding thread guards itself;
 * this one's feeding is guarded too).
 * Where the time model holds its estimate just before the first offset
 * fed (@from, or @o->keep's first range) at a TSC (no MTC timing, CYCs not
 * calibrated yet), the runs stamped with that estimate are fed without a
 * TSC until one moves: it may be a PSB period before their packets, so the
 * range's time starts at the first estimate anchored or moved in it, and
 * a call made before has no time (not for a piece, @o->resume). */
int ctf_range(struct ct *ct, struct flow *f, const struct img *img,
	      uint64_t from, uint64_t to, const struct ctf_opts *o);

#endif /* CTFLOW_H */
