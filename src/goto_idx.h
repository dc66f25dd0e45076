/*
 * goto_idx -- goto targets (goto.h) resolved for a command, without the
 * browser: the goto_ctx callbacks answered from a stream's index (the
 * cache's, else built on the first question that needs it, with the time
 * pass, and saved to the cache) and decoded windows, plus the trace's
 * marks.  `export` takes FROM and TO through it, so its places are the
 * ones :goto knows.
 *
 * Offsets, percentages, ^ and $ need nothing; psb, #N, tsc, t and cyc
 * need the index; 'a and NAME need the marks.  Times count from the
 * trace's origin, the earliest first TSC of its streams, with the timing
 * given (a TSC frequency, or P1's estimate), as the browser's do.
 */
#ifndef GOTO_IDX_H
#define GOTO_IDX_H

#include <stddef.h>
#include <stdint.h>

#include "goto.h"
#include "tm_config.h"

struct trace;
struct marks_set;
struct goto_idx;
struct win_row;
struct win_iter;
struct idx;
struct win_cache;

/* A resolver over stream @stream of @t with timing @cfg (copied) and the
 * marks @marks (may be NULL: no names).  @t and @marks must outlive it.
 * Nothing is decoded yet.
 * Returns 0 and sets *@out, -pte_invalid for a bad argument, -pte_nomem. */
int goto_idx_new(struct goto_idx **out, const struct trace *t, size_t stream,
		 const struct tm_config *cfg, const struct marks_set *marks);

/* Free @g (NULL is fine). */
void goto_idx_free(struct goto_idx *g);

/* Resolve goto target @arg with the cursor at @cursor (relative targets
 * move from there) into *@off.
 * Returns 0, or what goto_offset() returns, with its one-line message
 * ("goto: ...") in @err; -pte_sigbus if the trace shrank while being
 * indexed. */
int goto_idx_offset(struct goto_idx *g, const char *arg, uint64_t cursor,
		    uint64_t *off, char *err, size_t errlen);

/* The goto context of @g with the cursor at @cursor, for goto_resolve(). */
void goto_idx_ctx(struct goto_idx *g, uint64_t cursor, struct goto_ctx *ctx);

/* Whether @row (of a stream's windows) is a packet a goto to TSC >= @tsc
 * may land on: timed at or after @tsc, and not a row of a PSB+ before
 * that PSB+'s TSC, which still carries the time of the segment before
 * (an estimate that may have run past this TSC).  Every goto by TSC or
 * time, the commands' and the browser's, looks with this.
 * Returns 1 or 0. */
int goto_idx_tsc_hit(const struct win_row *row, uint64_t tsc);

/* The segment a goto to TSC @tsc looks from: idx_find_tsc()'s (the last
 * one starting at or before @tsc), or where that one starts at @tsc, the
 * first of those before it that end at @tsc: their last rows have @tsc
 * and come first.
 * Returns as idx_find_tsc(). */
int goto_idx_find_tsc(const struct idx *idx, uint64_t tsc, size_t *seg);

/* Whether @row is counted at or after @cyc core cycles from the start
 * (cycles that count from its segment's PSB are no count from the start).
 * Returns 1 or 0. */
int goto_idx_cyc_hit(const struct win_row *row, uint64_t cyc);

/* The first TSC shown @ns or more after TSC @t0 with timing @cfg (the
 * browser's and dump's times: tm_tsc_to_ns() of each less that of @t0,
 * else the ticks between at the TSC frequency): what "t 12.5ms" looks
 * for, so that it lands on no packet shown before 12.5 ms.
 * Returns 0 and sets *@tsc, -pte_no_time without a TSC frequency, or
 * what goto_tsc_after() returns (a message in @err). */
int goto_idx_time_tsc(const struct tm_config *cfg, uint64_t t0, uint64_t ns,
		      uint64_t *tsc, char *err, size_t len);

/* The TSC a move by time (t +3us) starts from at the row @it stands on:
 * its stamp's; for a row of a PSB+ with no time yet (the trace's first
 * PSB+, where the browser opens), that PSB+'s TSC, the time of the code
 * a decode from there starts with (offtsc_at() says the same).  @it may
 * move within that PSB+.
 * Returns 0 and sets *@tsc, or -pte_no_time. */
int goto_idx_row_tsc(struct win_iter *it, uint64_t *tsc);

/* The number of the last sync point at or before @off in @idx, into *@i,
 * as `psb N` counts them; while the index still looks for sync points
 * below @off (idx_find() would give the last one found so far) it is not
 * known.
 * Returns 0, 1 if not known yet, 2 if never (the index was stopped, C-c,
 * or failed before it got there), -pte_nosync if no sync point is at or
 * before @off. */
int goto_idx_psb_known(const struct idx *idx, uint64_t off, size_t *i);

/* The trace's time origin into *@t0: the earliest first TSC of its
 * streams, so that one instant reads the same on every stream.  Stream
 * @stream's (of @t; its windows @wc) is looked for in its first packets
 * and, with @idx, kept within its time range (idx_time_origin(): a
 * damaged first TSC is no origin); the others' come from their first
 * PSB+ (offtsc_streams_first(), near it): no stream is walked.  The
 * browser's times and the commands' time targets count from it.
 * Returns 0, or -pte_no_time if no stream has a TSC. */
int goto_idx_origin(struct win_cache *wc, const struct idx *idx,
		    const struct trace *t, int stream, uint64_t *t0);

#endif /* GOTO_IDX_H */
