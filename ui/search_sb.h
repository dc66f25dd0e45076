/*
 * search_sb -- a search with sideband terms (src/ctxterm.h: comm, pid,
 * tid, switch) in the background: the stream's task ranges from the
 * perf.data sideband (ctx_ranges_in(), a megabyte at a time, with
 * progress and cancel), the switches where the task running changes
 * (ctx_at() packet by packet), then, with a packet expression, the
 * packets matching it inside the ranges (srch_filter_next()).  Hits are
 * the starts of the ranges, the switches (into a task the terms keep), or
 * the matching packets; kept sorted, so n and N are lookups.
 */
#ifndef SEARCH_SB_H
#define SEARCH_SB_H

#include <stddef.h>
#include <stdint.h>

struct ui;
struct ctxterm;
struct srch_pred;
struct search_sb;

/* Start a search of the current stream for terms @t and packet predicate
 * @pred (NULL: none; taken, freed with the search).
 * Returns 0 and sets *@out, -pte_invalid with a message on the message
 * line (a raw trace has no sideband), or -pte_nomem. */
int search_sb_start(struct search_sb **out, struct ui *ui,
		    const struct ctxterm *t, struct srch_pred *pred);

/* Stop it (C-c).  Returns 1 if it was running, 0 if not. */
int search_sb_cancel(struct search_sb *s);

/* Wait for it to finish. */
void search_sb_wait(struct search_sb *s);

/* Cancel, wait, free (NULL is fine). */
void search_sb_free(struct search_sb *s);

/* Progress: bytes done of total, hits, whether it finished, its status
 * (0, -pte_canceled, or an error). */
void search_sb_progress(struct search_sb *s, uint64_t *done, uint64_t *total,
			size_t *nhits, int *finished, int *status);

/* The @count'th hit after (@dir > 0) or before @off, wrapping (*@wrapped
 * says so).  Returns 0 and sets *@hit, 1 if the search has not finished,
 * -pte_eos if it found nothing. */
int search_sb_next(struct search_sb *s, uint64_t off, int dir, uint64_t count,
		   uint64_t *hit, int *wrapped);

/* The rank (1-based) of the hit at @off, or 0 if @off is none. */
size_t search_sb_rank(struct search_sb *s, uint64_t off);

#endif /* SEARCH_SB_H */
