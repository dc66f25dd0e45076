/*
 * offtsc -- the estimated TSC at an offset of a stream, for matching the
 * flow decoder's position to a perf.data's sideband (sideband.h).
 *
 * A packet cursor and a time model (tm.h) fed forward from where the last
 * question left them; a question about an earlier offset restarts from the
 * last PSB before it (whose PSB+ TSC anchors the time again).  Questions
 * in stream order cost one pass over the stream in all.  One per decoder:
 * not thread-safe.
 */
#ifndef OFFTSC_H
#define OFFTSC_H

#include <stddef.h>
#include <stdint.h>

struct img;
struct tm_config;
struct offtsc;
struct trace;

/* A new reader of @img (which must outlive it) timed with @cfg (copied).
 * Returns 0 and sets *@out, or -pte_nomem, or -pte_invalid. */
int offtsc_new(struct offtsc **out, const struct img *img,
	       const struct tm_config *cfg);

/* Free @ot (NULL is fine). */
void offtsc_free(struct offtsc *ot);

/* The estimated TSC when the packet at @off starts: every packet before
 * it fed to the time model.  @ot is a struct offtsc (void * to fit
 * imgopt_reader's tsc_at).  At a PSB, or inside its PSB+, with no TSC
 * before it: the PSB+'s own TSC (at its PSBEND), the time of the code a
 * decode from that PSB starts with.
 * Returns 0 and sets *@tsc.
 * Returns -pte_no_time if no TSC is known there (none since the PSB the
 * model started from), -pte_invalid on NULL arguments. */
int offtsc_at(void *ot, uint64_t off, uint64_t *tsc);

/* Where the stretch of tracing that holds @off ends: the first TIP.PGD or
 * OVF at or after @off, its offset into *@end and the estimated TSC when
 * it starts into *@tsc.  (A stretch of user-only tracing ends in the
 * kernel, where tasks are switched: sideband.h, sb_changes().)  Moves
 * the reader forward as offtsc_at() does.
 * Returns 0 if found.
 * Returns 1 if the stream ends, or loses bytes, first.
 * Returns -pte_no_time if no TSC is known there, -pte_invalid on NULL
 * arguments. */
int offtsc_stretch_end(void *ot, uint64_t off, uint64_t *end, uint64_t *tsc);

/* The first TSC of @img, decoded from its first PSB (its PSB+ TSC),
 * looked for in the 64 KiB from there: cheap enough for the UI thread.
 * Returns 0 and sets *@tsc, -pte_no_time if none is there, -pte_invalid
 * on NULL arguments. */
int offtsc_first(const struct img *img, const struct tm_config *cfg,
		 uint64_t *tsc);

/* The earliest first TSC (offtsc_first(), each stream with its own
 * timing) of the streams of @t but stream @skip (SIZE_MAX: none): with
 * the shown stream's own, the origin the times of every stream of a
 * trace count from, so one instant reads the same on each.  With @near
 * (the shown stream's origin, which its index checked), a first TSC more
 * than OFFTSC_SPREAD_S seconds before it is taken for a damaged one and
 * left out: one stream's bad TSC would put every time hours off.
 * Returns 0 and sets *@tsc, -pte_no_time if no such stream has a TSC,
 * -pte_invalid on NULL arguments. */
#define OFFTSC_SPREAD_S 60
int offtsc_streams_first(const struct trace *t, size_t skip,
			 const uint64_t *near, uint64_t *tsc);

#endif /* OFFTSC_H */
