/*
 * ctidx -- the code index: the call tree of every chunk of a stream, made
 * once in the background, so that the tree of a large range is a merge
 * of the fragments of the chunks inside it and two short decodes at its
 * edges instead of a decode of the whole range.
 *
 * Chunks lie on ctflow.h's grid: chunk k runs from the first PSB at or
 * after a multiple of the grid (its boundary, B_k) to the next boundary.
 * A chunk's fragment (calltree.h's ct_new_frag(): a tree relative to the
 * call stacks it starts in) is fed what a decode of a longer range feeds
 * between the two boundaries (ctflow.h's pieces: the window is decoded
 * from the PSB before B_k, with the index's time carry there), so that a
 * range's tree -- its start edge decoded from the range's first PSB up
 * to the first boundary after it, the fragments of the chunks after it,
 * and its end edge decoded from the last boundary they reach -- is the
 * tree one decode of the range makes, cycles included.
 *
 * It needs the packet index finished with its time pass (index.h: the
 * seek points and carries).  Workers (low priority) make the fragments in
 * batches of consecutive chunks; a fragment is published once made, and
 * the memory they hold is counted: past the budget the workers stop (the
 * chunks without a fragment are decoded as before).  Names in fragments
 * are the image set's (symfmt.h), which must outlive the index; those of
 * fragments loaded from a file (ctidx_load()) are the index's own.
 */
#ifndef CTIDX_H
#define CTIDX_H

#include <stddef.h>
#include <stdint.h>

#include "tm.h"

struct ct;
struct ctdec;
struct ctidx;
struct idx;
struct imgset;
struct tm_config;
struct trace;

/* The fragments' memory budget by default. */
#define CTIDX_MAX_BYTES ((size_t)1 << 30)

struct ctidx_opts {
	const struct trace *t;		/* these outlive the index */
	int stream;
	const struct imgset *set;
	const struct tm_config *tm;	/* the stream's timing (NULL: none) */
	const struct idx *idx;		/* the stream's index, finished with
					 * its time pass */
	uint64_t grid;			/* 0: CTF_GRID (ctflow.h); a range's
					 * decode must use the same */
	size_t max_bytes;		/* 0: CTIDX_MAX_BYTES */
	unsigned nthreads;		/* workers; 0: 2 */
	unsigned fan;			/* 4: the fragments of 4, 16 and 64
					 * chunks are merged ahead too (2: of
					 * 2, 4 and 8); 0: none.  A merge costs
					 * a few microseconds, so it pays only
					 * for ranges of hundreds of chunks: on
					 * the sample's tiled trace it saved a
					 * third of a 60 MiB range's CPU time,
					 * for three times the memory (a
					 * fragment of 4 chunks is about as big
					 * as the 4) */
	int nice;			/* the workers' nice value (0: as
					 * the caller's) */
	const char *cache;		/* NULL, or a file (ctidx_save()) the
					 * workers load the fragments from if
					 * it holds this index's, and save them
					 * to once all are made (copied) */
	const void *key;		/* with @cache: what else the fragments
					 * depend on (the trace's identity,
					 * timing, images: the caller's; copied) */
	size_t keylen;
};

/* An index of the chunks of @o's stream (the boundaries, from the packet
 * index's seek points; no fragment yet).
 * Returns 0 and sets *@out; -pte_invalid for a NULL or bad argument or
 * an index without its time pass; -pte_nomem. */
int ctidx_new(struct ctidx **out, const struct ctidx_opts *o);

/* Start the workers (the first loads ctidx_opts.cache if it fits; the
 * others wait for it, and make the fragments if it did not).
 * Returns 0, -pte_invalid if started already, or
 * -pte_nomem if no thread could be started. */
int ctidx_start(struct ctidx *ci);

/* Ask the workers to stop soon (between windows). */
void ctidx_cancel(struct ctidx *ci);

/* Wait for the workers.  Returns the build's status (ctidx_progress()). */
int ctidx_wait(struct ctidx *ci);

/* Cancel, wait and free (NULL is fine). */
void ctidx_free(struct ctidx *ci);

struct ctidx_progress {
	uint64_t done, total;	/* bytes of the stream's chunks whose
				 * fragments are made, of all */
	size_t nfrags, nchunks;
	size_t nups;		/* fragments of several chunks made */
	size_t bytes, max_bytes;	/* the fragments' memory, its budget */
	double elapsed;		/* seconds since ctidx_start() (to the
				 * end, once finished) */
	int started, finished;
	int loading;		/* the workers are reading the cache file */
	int loaded;		/* the fragments came from ctidx_load() or
				 * the cache file */
	int saved;		/* 1: saved to the cache file once made;
				 * 0: not (yet); or ctidx_save()'s error */
	const char *save_err;	/* then its message (lives as long as the
				 * index); else NULL */
	int status;		/* once finished: 0; -pte_canceled;
				 * -pte_nomem (out of memory, or past the
				 * budget: the fragments made stay); or what
				 * decoding failed with (-pte_sigbus) */
};

/* A snapshot of @ci's build, from any thread. */
void ctidx_progress(const struct ctidx *ci, struct ctidx_progress *p);

/* How a range splits: its first PSB, the chunks whose fragments stand for
 * its middle, and where its end edge starts. */
struct ctidx_plan {
	uint64_t start;		/* the first PSB at or after FROM */
	size_t ka;		/* the first chunk after start: the start
				 * edge is [start, B_ka) */
	size_t kend;		/* the chunks [ka, kend) are its middle, the
				 * end edge [B_kend, TO) */
	size_t kb;		/* the last chunk starting before TO: any
				 * boundary in [ka, kb] cuts the range in
				 * two pieces (ctflow.h) */
};

/* How [@from, @to) splits into @p.
 * Returns 0; 1 if no boundary lies inside it (decode it whole); or
 * -pte_invalid. */
int ctidx_plan(const struct ctidx *ci, uint64_t from, uint64_t to,
	       struct ctidx_plan *p);

/* Boundary @k as a place to resume a decode at (ctflow.h's resume). */
struct ctidx_cut {
	uint64_t off;		/* B_k */
	uint64_t prev;		/* the PSB before it */
	struct tm_carry at, before;	/* the time model just before each */
};

/* Boundary @k (> 0) into @c.  Returns 0, -pte_invalid for a bad @k, or
 * idx_seek_carry()'s error. */
int ctidx_cut(const struct ctidx *ci, size_t k, struct ctidx_cut *c);

/* The grid its chunks lie on. */
uint64_t ctidx_grid(const struct ctidx *ci);

/* B_@k (the stream's size for k past the last chunk). */
uint64_t ctidx_cut_off(const struct ctidx *ci, size_t k);

/* Whether the fragments of chunks [@ka, @kb) are all made. */
int ctidx_covers(const struct ctidx *ci, size_t ka, size_t kb);

/* Merge the fragments of chunks [@ka, @kb), in order, into @dst (being
 * fed; calltree.h's ct_merge()).  Returns 0; -pte_nomem; -pte_invalid if
 * one is missing (ctidx_covers()) or for a bad argument. */
int ctidx_merge(const struct ctidx *ci, struct ct *dst, size_t ka, size_t kb);

/*
 * The fragments in a file, to make the index once per trace, timing and
 * code: a header (magic, format version, grid, fan, stream size, the
 * chunks' boundaries, the caller's key), each fragment's pack with names
 * as numbers, the names, and an XXH3 of all that.  A file of another
 * version, index or key, short or corrupt, is not loaded.
 */
#define CTIDX_FILE_VERSION 9

/* Save @ci's fragments (all made: finished without error) to @path
 * (atomically, through safefile.h, replacing what is there unless it is
 * the trace: a cache file is ours), with @key (@keylen bytes), unless *@cancel (if not NULL) is set
 * first.  Returns 0; -pte_invalid if @ci is not complete or for a bad
 * argument; -pte_canceled; -pte_nomem; -pte_io with a message in @err. */
int ctidx_save(const struct ctidx *ci, const char *path, const void *key,
	       size_t keylen, const _Atomic int *cancel, char *err, size_t errlen);

/* Load the fragments of unstarted @ci from @path, saved by ctidx_save()
 * with the same @key for an index with the same grid, fan, size and
 * boundaries; @ci is then finished (ctidx_progress()'s loaded).  Names
 * in a loaded index are its own: trees merged from it must not outlive
 * it.  Returns 0 if loaded; 1 if not (no file, another version, index
 * or key, short or corrupt: @ci is as before); -pte_invalid if @ci was
 * started or for a bad argument; -pte_nomem. */
int ctidx_load(struct ctidx *ci, const char *path, const void *key, size_t keylen);

/* A decoder of the index's stream for a range's edges (ctdec.h): one kept
 * warm from an earlier range, or a new one; give it back with
 * ctidx_dec_put().  Any thread.  Returns 0 and sets *@out, -pte_nomem,
 * or -pte_invalid. */
int ctidx_dec_get(const struct ctidx *ci, struct ctdec **out);
/* Keep @d for the next range, or free it (NULL is fine). */
void ctidx_dec_put(const struct ctidx *ci, struct ctdec *d);

#endif /* CTIDX_H */
