/*
 * ptdec -- the ptbrowse decoder library.  No UI, no I/O, never exits.
 *
 * Layers, bottom up (each file owns one):
 *   pkt.h     bytes -> packets: a cursor over a caller-owned [begin, end)
 *             buffer, one packet at a time, sync forward/backward to PSB.
 *   image.h   a trace as a list of byte spans (one for a raw file, one per
 *             AUXTRACE payload for perf.data), with gaps between them.
 *   tm.h      the time model: TSC, TMA, MTC, CYC and CBR -> a time and a
 *             cycle count for every packet.
 *   index.h   PSB seek points with their PSB+ state (phase 1) and per
 *             segment summaries (phase 2), built in the background.
 *   window.h  lazily decoded rows of one PSB segment, with a small LRU.
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
