/*
 * ptdec -- the ptbrowse decoder library.  No UI, no I/O, never exits.
 *
 * The files of decoder/, bottom up: each calls only files listed before
 * it (in parentheses, where it calls more than ptdec.h), so there is no
 * cycle; it talks to its callers through callbacks.
 *   ptdec.h, error.c  the error codes (enum pte) and pte_strerror().
 *   tm_config.h/.c    what the recording says about its clocks.
 *   pool.h/.c         worker threads running numbered units in order,
 *                     with an in-order merge (index and search use it).
 *   pkt.h/.c          bytes -> packets: a cursor over a caller-owned
 *                     [begin, end), sync forward/backward to PSB.
 *   image.h/.c        a trace as spans with gaps between them (one span
 *                     for a raw file, one per AUXTRACE payload); a cursor
 *                     across spans.                          (pkt)
 *   tm.h/.c           the time model: TSC, TMA, MTC, CYC and CBR -> a
 *                     time and a cycle count per packet.
 *                                                (tm_config, pkt)
 *   tm_ptdump.h/.c    libipt's own estimate, for ptdump-equal dumps.
 *                                                (tm_config, pkt)
 *   index.h           PSB seek points (phase 1), segment summaries (2),
 *                     the time model's state every 16 PSBs (3), built in
 *                     the background; the cache blob.  index.c (lifecycle,
 *                     builder, lookups), index_scan.c, index_sum.c,
 *                     index_time.c, index_tskim.c, index_blob.c share
 *                     index_int.h.
 *                                                (pool, pkt, image, tm)
 *   window.h/.c       lazily decoded rows of PSB segments, an LRU cache;
 *                     seek points come from the caller's callbacks (the
 *                     index, when there is one).
 *                                                (pkt, image, tm)
 *   flow.h            the instruction flow (Zydis): flow.c (the decoder),
 *                     flow_pkt.c (its packet layer: branches, events),
 *                     flow_blk.c (code read, decoded into basic blocks,
 *                     cached), flow_win.c (windows of lines and runs
 *                     for the code view) share flow_int.h.
 *                                                (pkt, image, tm)
 *   search.h          predicates and the background search on all cores:
 *                     search_parse.c, search_match.c, search_scan.c,
 *                     search.c share search_int.h.
 *                                   (pool, pkt, image, tm, index)
 *   iter.h/.c         loop iterations: a predicate's hits as boundaries,
 *                     walked with the time model on all cores in the
 *                     background; durations and statistics.
 *                             (pool, pkt, image, tm, index, search)
 *
 * Every function returns 0 (or a count) on success and a negative
 * enum pte value on failure; pte_strerror() names it.
 */
#ifndef PTDEC_H
#define PTDEC_H

#include <stdint.h>

/* Error codes, returned negated. */
enum pte {
	pte_ok = 0,
	pte_internal,	/* a bug in ptbrowse */
	pte_invalid,	/* bad argument */
	pte_eos,	/* clean end of the buffer */
	pte_truncated,	/* a packet is cut by the end of the buffer */
	pte_bad_opc,	/* an unknown opcode */
	pte_bad_packet,	/* a known opcode with a reserved or impossible payload */
	pte_bad_ipc,	/* a reserved IP compression */
	pte_nosync,	/* no PSB found */
	pte_nomem,	/* out of memory */
	pte_io,		/* an I/O error (errno has details) */
	pte_canceled,	/* the operation was cancelled */
	pte_bad_file,	/* a file is not in the expected format */
	pte_no_time,	/* no timing information */
	pte_no_calib,	/* no calibration */
	pte_bad_config,	/* an inconsistent configuration */
	pte_sigbus,	/* the mapped file shrank under us */
	pte_gap,	/* trace data was lost (a gap between spans) */
	pte_nomap,	/* no code (memory image) at an address */
	pte_max
};

/* A short description of error @err (negative or positive). */
const char *pte_strerror(int err);

#endif /* PTDEC_H */
