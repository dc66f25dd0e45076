/*
 * search_sb -- a search with sideband or code terms (src/ctxterm.h: comm,
 * pid, tid, switch; sym, call, ret) in the background: the stream's task
 * ranges from the perf.data sideband (ctx_ranges_in(), a megabyte at a
 * time, with progress and cancel), the switches where the task running
 * changes (ctx_at() packet by packet), the packets that decided the
 * instructions the code terms describe (search_code.h, on all cores, the
 * first hit known early), then, with a packet expression, the packets
 * matching it inside the ranges (srch_filter_next()).  Hits are the starts
 * of the ranges, the switches (into a task the terms keep), the code hits
 * inside the ranges matching the packet expression, or the matching
 * packets; all kept sorted (8 bytes each), so n and N are lookups.
 */
#ifndef SEARCH_SB_H
#define SEARCH_SB_H

#include <stddef.h>
#include <stdint.h>

struct ui;
struct ctxterm;
struct ctx_range;
struct search_code;
struct srch_pred;
struct search_sb;

/* Start a search of the current stream for terms @t, code terms @code
 * (search_code.h; NULL: none; taken, freed with the search) and packet
 * predicate @pred (NULL: none; taken), its hits found first after (@dir
 * > 0) or before ui->cursor.
 * Returns 0 and sets *@out, -pte_invalid with a message on the message
 * line (a raw trace has no sideband for comm, pid, tid, switch), or
 * -pte_nomem. */
int search_sb_start(struct search_sb **out, struct ui *ui, const struct ctxterm *t,
		    struct search_code *code, struct srch_pred *pred, int dir);

/* The first hit in the search's direction from where it started, known
 * before the search ends (a code search's).  Returns 0 and sets *@hit and
 * *@wrapped, or 1 if not known (yet). */
int search_sb_first(struct search_sb *s, uint64_t *hit, int *wrapped);

/* Stop it (C-c).  Returns 1 if it was running, 0 if not. */
int search_sb_cancel(struct search_sb *s);

/* Wait for it to finish. */
void search_sb_wait(struct search_sb *s);

/* Wait for its first hit to be known (search_sb_first()) or for it to
 * finish, as a script waits for a search's first hit. */
void search_sb_wait_first(struct search_sb *s);

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

/* For the filter view: the first hit at or after @off (@dir > 0) or the
 * last one before @off, without wrapping.  Returns 0 and sets *@hit, 1 if
 * the search has not finished, -pte_eos if there is none. */
int search_sb_row(struct search_sb *s, uint64_t off, int dir, uint64_t *hit);

/* The ranges of the stream its comm/pid/tid terms keep (all of it
 * without), sorted, once finished: *@r (the search's) and *@n.  Returns
 * 0, or 1 if the search has not finished. */
int search_sb_ranges_kept(struct search_sb *s, const struct ctx_range **r, size_t *n);

#endif /* SEARCH_SB_H */
