/*
 * trace -- opening a trace file: mmap it read-only, tell a raw PT dump
 * from a perf.data file, and present one or more streams, each an image
 * (decoder/image.h) with its timing configuration.
 *
 * Never reads the whole file; 64-bit offsets everywhere.  A mapped file
 * that shrinks raises SIGBUS: trace_guard() turns that into -pte_sigbus.
 */
#ifndef TRACE_H
#define TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "image.h"
#include "trace_types.h"

/* Open and map @path.  A raw trace's stream takes its timing from the
 * options file beside it, @path.options, if there is one
 * (timing_file.h).  On failure, writes a one-line message naming the
 * file (and the offset, or the options file's line, where one applies)
 * into @err.
 * Returns 0, or a negative pte code: -pte_bad_config if the options file
 * is malformed, -pte_io if it cannot be read. */
int trace_open(struct trace **out, const char *path, char *err, size_t errlen);

/* As trace_open(), and @path may also be "-", standard input, or a FIFO
 * (a pipe: /dev/stdin under `... | ptbrowse dump /dev/stdin`): those are
 * read whole into memory first (blocking until the writer ends) and then
 * read as a file would be, with no options file beside them.  For the
 * command-line commands; the browser keeps standard input for its keys.
 * Returns what trace_open() does; also -pte_bad_file if standard input is
 * a terminal or nothing came through the pipe, -pte_io on a read error,
 * -pte_nomem if the bytes do not fit in memory, each with a one-line
 * message naming the input in @err. */
int trace_open_input(struct trace **out, const char *path, char *err,
		     size_t errlen);

/* Unmap and free @t (NULL is fine). */
void trace_close(struct trace *t);

/* The stream named by @spec: an index ("0"), a name ("cpu3") or a CPU
 * number with a "cpu" prefix.  Returns its index or -1. */
int trace_find_stream(const struct trace *t, const char *spec);

/* Advice for the whole mapping of @t. */
enum trace_advice { TRACE_BROWSE, TRACE_SCAN };

/* Tell the kernel how @t will be read: TRACE_BROWSE (random, for the
 * browser) or TRACE_SCAN (sequential, for indexing). */
void trace_advise(const struct trace *t, enum trace_advice how);

/* Drop the pages of [@p, @p + @n) inside @t's mapping from this process's
 * page tables (they stay in the page cache); keeps RSS down after a scan.
 * Matches idx_set_release()'s callback (@ctx is the trace). */
void trace_release(void *ctx, const uint8_t *p, size_t n);

/* Run @body(@arg) so that a SIGBUS from reading a mapping (the file shrank)
 * returns -pte_sigbus instead of killing the process.  Thread-safe: each
 * thread has its own recovery point; nesting is allowed.  @body must not
 * hold locks or own allocations across reads of the mapping, since a
 * SIGBUS abandons it midway.
 * Returns what @body returns, or -pte_sigbus. */
int trace_guard(int (*body)(void *arg), void *arg);

/* Ask the kernel to read [@p, @p + @n) of a trace mapping ahead (@ctx is
 * unused; the shape of idx_set_willneed()'s hook). */
void trace_willneed(void *ctx, const uint8_t *p, size_t n);

/* What became of @t's file since it was mapped, told by its size and
 * mtime alone (an append changes the mtime as a rewrite does). */
enum trace_since {
	TRACE_SAME,	/* the size and mtime it was mapped with */
	TRACE_GREW,	/* longer: appended to, or rewritten longer */
	TRACE_CHANGED,	/* shorter, or the same size with another mtime */
};

/* Whether @t's file is still as it was mapped (see enum trace_since).
 * Returns TRACE_SAME, TRACE_GREW, or TRACE_CHANGED (also when it cannot
 * be told: no file descriptor, or fstat() fails). */
enum trace_since trace_since_mapped(const struct trace *t);

/* Check whether @t's file changed size.  If it grew, remap it (a raw trace's
 * single stream then covers the new size) and set *@grew to 1.  If it shrank,
 * writes a message into @err.  *@new_size gets the current size.
 * Pointers into the old mapping become invalid when *@grew is set.
 * Returns 0, -pte_sigbus if the file shrank, -pte_io, or what
 * trace_remap() returns (then @t is as it was). */
int trace_refresh(struct trace *t, uint64_t *new_size, int *grew,
		  char *err, size_t errlen);

/* Map @t's file again at its current size (after it grew or shrank) and
 * rebuild its streams over the new mapping (a raw trace's options file
 * read again); pointers into the old mapping and streams become invalid.
 * Returns 0; or, with nothing changed (the old mapping and streams still
 * valid), -pte_bad_file (the file is now empty), -pte_io, or what
 * loading the streams returned.  @err gets a one-line message. */
int trace_remap(struct trace *t, char *err, size_t errlen);

#endif /* TRACE_H */
