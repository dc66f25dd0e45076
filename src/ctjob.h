/*
 * ctjob -- the call tree of a range of one stream (calltree.h, fed by
 * ctflow.h), decoded with a decoder, a symbol cache and sideband
 * questions of its own over a shared image set (imgopt.h): in the
 * caller's thread (ctjob_run(): `ptbrowse calls`, `marks --summary`) or
 * in a thread of its own, with progress and cancel (ctjob_start(): the
 * browser's function view and region summaries).
 *
 * The address space of each instruction is the sideband's task at its
 * deciding packet's time (ctx.h), or PIP's CR3 without sideband; the
 * image set is only read, so several jobs and the browser may share it.
 */
#ifndef CTJOB_H
#define CTJOB_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "tm.h"

struct ct;
struct ctdec;
struct ctidx;
struct ctx_range;
struct img;
struct flow;
struct imgset;
struct symfmt;
struct tm_config;
struct trace;

struct ctjob {
	/* set these, then call ctjob_run() or ctjob_start() */
	const struct trace *t;		/* must outlive the job */
	int stream;			/* the stream decoded */
	const struct imgset *set;	/* the code and symbols (outlives it) */
	const struct tm_config *tm;	/* the stream's timing (NULL: none) */
	struct tm_carry carry;		/* the time model just before the first
					 * PSB at or after from (ctflow.h) */
	int have_carry;			/* carry is set */
	int restricted;			/* only the ranges in keep (ctx.h;
					 * none: an empty tree); 0: all */
	const struct ctx_range *keep;
	size_t nkeep;
	uint64_t from, to;		/* the range, to > from */
	uint64_t grid;			/* the windows' grid (ctflow.h's
					 * chunk; 0: CTF_GRID); with ci, ci's */
	const struct ctidx *ci;		/* the code index of the stream (NULL:
					 * none): with have_carry (and no
					 * restriction but one range that
					 * ends at TO), the tree is its
					 * fragments of the range's middle and
					 * the edges decoded here, or the range
					 * decoded in two pieces in parallel
					 * where no fragments are there yet;
					 * the same tree either way.  It must
					 * outlive the job. */
	/* progress, read from any thread */
	_Atomic uint64_t done;		/* bytes of [from, to) decoded */
	_Atomic int cancel;		/* ctjob_cancel() sets it */
	_Atomic int finished;		/* 1 once result and ct are final */
	/* the result, once finished */
	int result;			/* ctjob_run()'s return */
	struct ct *ct;			/* the tree, finished (partial after a
					 * cancel); NULL if none was made */
	size_t merged;			/* the code index's chunks merged
					 * into it (0: all decoded here) */
	/* private */
	struct ctdec *dec;		/* the tree's resolver lives in it */
	pthread_t thread;
	int started;
};

/* Decode @j's range into j->ct in this thread, then set j->finished.
 * Returns 0; -pte_canceled if j->cancel was set (j->ct holds what was
 * decoded before, finished); -pte_nomem; -pte_invalid for a NULL @j,
 * trace or image set, or an empty range; -pte_sigbus if the trace shrank
 * under it (j->ct is then NULL). */
int ctjob_run(struct ctjob *j);

/* Run ctjob_run() in a new thread; poll j->finished, j->done.
 * Returns 0, or -pte_nomem if no thread could be started. */
int ctjob_start(struct ctjob *j);

/* Ask @j to stop soon (between windows of 64 KiB of trace). */
void ctjob_cancel(struct ctjob *j);

/* Wait for a started job's thread (nothing if none).  Returns its
 * result. */
int ctjob_join(struct ctjob *j);

/* Stop and join @j, and free what it made (the tree and its names).
 * The settings stay; NULL is fine. */
void ctjob_release(struct ctjob *j);

/* Set @j to the range [@from, @to) of @img decoded from @psb, the PSB at
 * or before @from where there is one (else @from): a decode starts at a
 * PSB, and only what packets in [@from, @to) decide counts (@keep, which
 * must outlive the job, then holds the range).  Returns 1 if no PSB
 * starts before @to, so nothing can be decoded, else 0. */
int ctjob_range(struct ctjob *j, const struct img *img, uint64_t psb, uint64_t from,
		uint64_t to, struct ctx_range *keep);

/* Why a finished tree @ct has no instructions, into @buf: "no code
 * decoded (...)" where none could be (@nopsb, ctjob_range()'s answer; @ct
 * may then be NULL) or the flow broke, "" where the range decided none. */
const char *ctjob_none(const struct ct *ct, int nopsb, char *buf, size_t size);

#endif /* CTJOB_H */
