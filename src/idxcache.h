/*
 * idxcache -- finished indexes saved in $XDG_CACHE_HOME/ptbrowse/index/.
 *
 * One file per stream and timing configuration, named after an XXH3 of
 * the trace file's first 64 KiB, one of the timing options and the stream
 * name, so a renamed or copied trace finds it and a
 * trace that grew (whose beginning stays put) finds its old index.  When
 * that file holds another trace's index (one beginning the same: not this
 * trace, nor a shorter state of it), the name adds the trace file's
 * device and inode, which an append keeps: two such traces opened in
 * turn each keep their own.  The
 * file holds a versioned header with the identity of the trace it was
 * made from (size, mtime, sampled XXH3; decoder/../src/identity.h), an
 * XXH3 of the header and one of the body.  Whatever does not check out
 * -- another version, another trace, a changed trace, a truncated or
 * corrupted file -- is ignored and rebuilt, never trusted.  Writes go to
 * a temporary file renamed into place.
 */
#ifndef IDXCACHE_H
#define IDXCACHE_H

#include <stddef.h>

#include "identity.h"
#include "index.h"
#include "trace.h"

/* What idxcache_load() found. */
enum idxcache_result {
	IDXCACHE_HIT = 0,	/* the index is complete */
	IDXCACHE_GROWN = 1,	/* the old part is loaded; idx_start() does the tail */
	IDXCACHE_MISS = 2,	/* nothing usable; build from scratch */
	IDXCACHE_PARTIAL = 3,	/* all but the time pass; idx_start() adds it */
};

/* idxcache_load()'s reason when the file named by the trace's first
 * 64 KiB holds another trace's index (one beginning the same) and this
 * trace has no file of its own yet.  Which it is cannot be told: a trace
 * never indexed, or a copy changed since, is told neither "changed". */
#define IDXCACHE_OTHER "the cache file named by its first 64 KiB is another " \
	"trace's, or its own before a change"

/* Write the cache file path for stream @stream of @t, indexed with the
 * timing options @tm (idx_config(); NULL: none), into @buf (the first
 * 64 KiB's and the timing's name, or the inode's too while that one is
 * another trace's; a header is read and the trace's sample hashed to
 * tell).
 * Returns 0, or a negative pte code with a message in @err (no usable
 * cache directory, or a path too long). */
int idxcache_path(const struct trace *t, int stream, const struct tm_config *tm,
		  char *buf, size_t size, char *err, size_t errlen);

/* Fill @idx (fresh, over stream @stream of @t) from the cache.  When the
 * cache is unusable, *@why (if not NULL) names the reason ("no cache",
 * "trace changed", "corrupt", ...) and @idx is left empty.
 *
 * The same file (size and mtime as saved) is checked by its sampled
 * identity; a grown one too, over the part that was indexed (a recording
 * appends).  A copied or touched one (same size, another mtime) is
 * checked byte by byte against the saved content hash, if it is at most
 * @max_hash bytes: a caller that must answer at once (the browser) gives
 * a limit and rebuilds in the background past it.  When that check lets
 * a complete index in, the cache file is written again with the file's
 * mtime (aside, then renamed: a failure leaves it as it was), so that
 * the next load, the browser's too, need not hash it again
 * (`ptbrowse index` checks a big copy for the browser).
 * Returns IDXCACHE_HIT, IDXCACHE_GROWN, IDXCACHE_PARTIAL or IDXCACHE_MISS,
 * or -pte_nomem, or -pte_invalid
 * for bad arguments. */
int idxcache_load(struct idx *idx, const struct trace *t, int stream,
		  uint64_t max_hash, const char **why);

/* Save complete index @idx of stream @stream of @t (atomically).  The
 * hash of the trace's whole content, which lets a later load trust a
 * touched copy, takes a while on a big trace: once *@hurry (if not NULL)
 * is set, the save goes on without it (content hash 0), and such a load
 * rebuilds instead.  The index itself is always saved: a quit right
 * after a long build must not cost the next start that build.
 * The file must be as it was mapped (size and mtime): what the save
 * reads from the shared mapping would be a changed file's new bytes,
 * not the ones the index describes.  idxcache_save_since() also saves
 * for a file that grew.
 * After the save the cache is trimmed to its limit (idxcache_trim()),
 * and after a write that failed too (nothing said: a full disk failed
 * every save, the cache staying over its limit).
 * Returns 0, with @err "" or a note to tell the user (the file alone is
 * over the cache's limit: idxcache_trim()), -pte_invalid if @idx is not
 * complete, -pte_io with a
 * message in @err (also when the file changed since it was mapped: its
 * size or mtime), -pte_sigbus if the trace shrank, or -pte_nomem. */
int idxcache_save(const struct idx *idx, const struct trace *t, int stream,
		  const _Atomic int *hurry, char *err, size_t errlen);

/*
 * As idxcache_save(), for a file that may have grown while it was
 * indexed (a recording appending): @mapped (if not NULL) is the identity
 * of @t's whole mapped file (identity_of_trace()) taken after it was
 * mapped and before @idx read it.  The save, once it has read the
 * content hash, takes the identity of the same t->size bytes again and
 * saves only if it is @mapped's: then the file grew past what was
 * indexed and the part indexed was not rewritten.  The identity samples
 * (src/identity.h): a rewrite that made the file longer and left every
 * sampled block of the indexed part as it was is taken for an append,
 * as R and idxcache_load() take it.  A file that shrank, or changed at
 * the same size, is never saved; with @mapped neither is one whose
 * sample changed under the same size and mtime.
 * Returns what idxcache_save() does; -pte_io also when the indexed part
 * is no longer @mapped's.
 */
int idxcache_save_since(const struct idx *idx, const struct trace *t, int stream,
			const struct identity *mapped, const _Atomic int *hurry,
			char *err, size_t errlen);

/*
 * The content identity of @t that the cache file of its stream @stream
 * (made with timing options @tm) vouches for, for what is cached beside
 * it (the browser's code index):
 * @t's size, sampled hash (src/identity.h) and the XXH3 of its whole
 * content, into *@file_hash and *@content_hash.  Only when the file's
 * header is sound and says @t as it is now: the same size and mtime
 * (a copy or touched file checked by idxcache_load() was stamped with
 * its own) and the same sample, and the content was hashed when saved.
 * A copy then has its original's identity.  Returns 0, or -pte_bad_file
 * (no such file, or not those), -pte_invalid for bad arguments.
 */
int idxcache_identity(const struct trace *t, int stream, const struct tm_config *tm,
		      uint64_t *file_hash, uint64_t *content_hash);

/* The index of stream @stream of @t in @idx (new, not started): the
 * cache's if it has it whole, else built here (idx_build()) and saved,
 * also for the part built if the file grew since @mapped (if not NULL)
 * was taken, right after @t was opened (a perf.data's streams are where
 * that parse found them); a cache that cannot be read or written costs
 * nothing.  Returns 1 if it came from the cache, 0 if it was built, or
 * what idx_build() returns. */
int idxcache_load_or_build(struct idx *idx, const struct trace *t, int stream,
			   const struct identity *mapped);

/*
 * The cache's size limit (like ccache's max_size): after every save the
 * directory's own files (*.idx and *.idx.code whose header is ours; no
 * other file, no symbolic link, no temporary file being written) are
 * removed least recently used first until they fit, never a file of the
 * trace just saved (any stream's index and code index: the same first
 * 64 KiB's and timing's hashes in the name).  Their sizes are added up
 * by fstatat(); a file's header is read only when it is about to go.
 * A cache hit marks its file (and its code index) used, and so does a
 * code index's load (ctidx.c): their
 * mtime, which nothing else reads, is set to now (atime is not kept
 * with relatime or noatime).  Another process reading a file removed
 * keeps it until it closes it (unlink); one writing writes aside and
 * renames (safefile), so it never sees a half file.
 */
#define IDXCACHE_MAX_DEFAULT	(2ull << 30)	/* 2 GiB */

/* The config line that sets the limit: "set cache-max SIZE" (in
 * /etc/ptbrowse/config, then $XDG_CONFIG_HOME/ptbrowse/config). */
#define IDXCACHE_MAX_KEY	"cache-max"

/* Parse a cache size @s: a byte count with a unit the rest of ptbrowse
 * takes (KiB MiB GiB TiB, kB MB GB TB, case-insensitive; a fraction with
 * a unit: 1.5GiB, rounded down), or a plain number of bytes; 0 is no
 * limit.  A size written non-zero that rounds down to 0 bytes (0.0001KiB)
 * is refused, not taken for no limit.
 * Returns 0 and sets *@out, or -pte_invalid. */
int idxcache_parse_size(const char *s, uint64_t *out);

/* Whether config line @line sets the limit ("set cache-max VALUE", a
 * ':' before "set" allowed, a "#" word ending the line): returns 1 with
 * the value in @val ("" if none, "?" if it is more than one word or
 * longer than @size), else 0.  For the browser, which runs the config's
 * other lines as prompt commands. */
int idxcache_config_line(const char *line, char *val, size_t size);

/* @v bytes as "512 B", "1.5 KiB", "2 GiB" into @buf. */
void idxcache_size_str(uint64_t v, char *buf, size_t size);

/* The limit from the command line (--cache-max): wins over the config
 * files' for the rest of the process. */
void idxcache_set_max(uint64_t max);

/* The limit in force into *@max (0: none): the command line's, else the
 * last "set cache-max" line of the config files (read once), else
 * IDXCACHE_MAX_DEFAULT.  Returns 0, or -pte_bad_config with
 * "FILE:LINE: ..." in @err (if not NULL) for a bad value there (the last
 * one; a bad line is skipped: the limit is then an earlier good line's,
 * of either file, or the default if there is none). */
int idxcache_max(uint64_t *max, char *err, size_t errlen);

/* The cache files idxcache_usage() counts and idxcache_clear() removes. */
struct idxcache_usage {
	uint64_t bytes;		/* their sizes added up */
	uint64_t files;
};

/* The cache directory into @dir and what its cache files take into *@u
 * (nothing if the directory does not exist yet).  Returns 0, or a
 * negative pte code with a message in @err (no cache directory, or one
 * that cannot be read). */
int idxcache_usage(struct idxcache_usage *u, char *dir, size_t dirlen,
		   char *err, size_t errlen);

/* Remove every cache file (as the limit would, down to nothing), into *@u
 * what was removed.  Returns 0, or a negative pte code with a message in
 * @err. */
int idxcache_clear(struct idxcache_usage *u, char *err, size_t errlen);

/* Bring the cache directory under the limit (idxcache_max()) after @saved
 * (a cache file's path: *.idx, or its *.idx.code) was written, or failed
 * to be; the saves here call it, a code index's saver should too.  The
 * trace's own files (any stream's, code indexes too) are kept; when they
 * alone are over the limit, @note (if not NULL) says so -- once per
 * process, "" otherwise.  A bad config line is not said here (the
 * caller's, once: idxcache_max()).  Returns the number of files
 * removed, or a negative pte code (no directory: nothing to do). */
int idxcache_trim(const char *saved, char *note, size_t notelen);

#endif /* IDXCACHE_H */
