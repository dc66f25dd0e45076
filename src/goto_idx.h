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
 * stream's first TSC with the timing given (a TSC frequency, or P1's
 * estimate), as the browser's do.
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

#endif /* GOTO_IDX_H */
