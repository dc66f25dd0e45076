/*
 * search_code -- the code terms of a search (src/ctxterm.h: "sym NAME",
 * "call NAME", "ret"): the packets that decided such instructions.
 *
 * Every PSB segment of the stream is decoded as the code view decodes it
 * (code.h: what `ptbrowse flow TRACE:PSB-NEXT` prints), on all cores
 * (decoder/pool.h), so the code view at a hit shows the instruction.  A
 * hit is the offset of the packet that decided it (flow's r.offset).
 *
 * Fast where it can be exact: a name is resolved once to its address
 * ranges in every address space (imgopt_find_function()), an instruction
 * is looked at only if its IP lies in one, and only then is its address
 * space asked (the function flow names there must be NAME).  A segment
 * outside the task's ranges (pid, tid, comm) is not decoded.  There is no
 * packet pre-filter: a direct call, a fall-through or a conditional
 * branch enters a function without a packet naming it, so only decoding
 * finds every hit.
 *
 * A call's target is the next instruction the flow gives (past status
 * updates and events bound to an instruction), or the IP where tracing
 * stopped at a TIP.PGD; where the flow breaks right after the call (an
 * overflow, an error, an interrupt), the target is unknown and the call
 * is no hit.
 *
 * Segments go to the workers in the order a search meets them: from the
 * cursor's segment in the search's direction, wrapping around; the first
 * hit is published as soon as every segment before it is done.
 */
#ifndef SEARCH_CODE_H
#define SEARCH_CODE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct code_dec;
struct ctxterm;
struct ctx_range;
struct flow_window;
struct idx;
struct img;
struct imgset;
struct srch_pred;
struct tm_config;
struct search_code;

/* The code terms of @t (t->code), their names resolved in @set.
 * Returns 0 and sets *@out.
 * Returns -pte_invalid with a one-line message in @err if @t has no code
 * term, @set is NULL (no code known) or a name is no function of @set.
 * Returns -pte_nomem. */
int search_code_new(struct search_code **out, const struct imgset *set,
		    const struct ctxterm *t, char *err, size_t errlen);

/* Free @sc (NULL is fine). */
void search_code_free(struct search_code *sc);

/* Whether line @line of @w (decoded by @d over @set, flow's order) is an
 * instruction @sc's terms describe: the row of a hit (its packet is the
 * hit), for the code view to put the cursor on.  A call whose target
 * lies past @w counts (the search decoded on into the next segment).
 * Returns 1 or 0. */
int search_code_line(const struct search_code *sc, const struct imgset *set,
		     const struct code_dec *d, const struct flow_window *w, size_t line);

/* One search: set the inputs, then search_code_find(). */
struct search_code_job {
	const struct search_code *sc;	/* the terms */
	const struct imgset *set;	/* the code (outlives the job) */
	int stream;			/* the stream of @img, for sideband */
	const struct img *img;		/* the stream */
	const struct tm_config *tm;	/* its timing (copied per worker) */
	struct idx *idx;		/* its PSBs once its scan is done;
					 * NULL: scanned here */
	const struct ctx_range *keep;	/* only hits in these; NULL: all */
	size_t nkeep;
	const struct srch_pred *pred;	/* only packets matching it; NULL:
					 * any */
	uint64_t from;			/* the order of the search: after */
	int dir;			/* (1) or before (-1) @from, wrapping */
	unsigned nthreads;		/* 0: one per CPU */
	_Atomic int *cancel;		/* non-zero stops it (not NULL) */
	/* read from any thread while it runs */
	_Atomic uint64_t done, total;	/* bytes decoded of all */
	_Atomic int have_first;		/* first is the first hit in the
					 * search's order */
	_Atomic uint64_t first;
	_Atomic int first_wrapped;	/* it lies past the end (or before
					 * the start) */
	/* the result */
	uint64_t *hits;			/* sorted, unique (free() it) */
	size_t nhits;
	void *priv;			/* search_code_known()'s (private) */
};

/* Forget the decoders kept for the next search (each keeps its decoded
 * blocks: a search's first hit then costs no table of blocks to fill).
 * Call it, with no search running, before the image set they read is
 * freed (a reload, the end). */
void search_code_flush(void);

/* While @j runs (from any thread): the first hit after @off (@dir > 0)
 * or the last before it, if the part already decoded -- the segments from
 * the cursor's on in the search's direction, before it wraps -- holds
 * both @off and that hit, so that n and N go on before the search ends.
 * Returns 0 and sets *@hit, or 1 if not known (yet; or the search is not
 * running). */
int search_code_known(struct search_code_job *j, uint64_t off, int dir, uint64_t *hit);

/* Decode the stream of @j in this thread and its pool, into j->hits.
 * Returns 0; -pte_canceled if *j->cancel was set (j->hits then holds the
 * hits of the part done: whole units from the cursor's segment on);
 * -pte_nomem; -pte_sigbus if the trace shrank; -pte_invalid for a NULL
 * @j or input. */
int search_code_find(struct search_code_job *j);

#endif /* SEARCH_CODE_H */
