/*
 * export -- write a slice of a stream as a raw PT file that decodes alone.
 *
 * The slice starts at the PSB at or before FROM (a decoder needs a PSB to
 * synchronise; if there is none before FROM, the first PSB inside the
 * range) and ends at the first packet boundary at or after TO, so the last
 * packet is whole.  Used by `ptbrowse export` and the browser's :export.
 * A file gets FILE.options beside it: the timing options of the stream it
 * came from (timing_file.h), so the slice shows the same times.
 */
#ifndef EXPORT_H
#define EXPORT_H

#include <stddef.h>
#include <stdint.h>

#include "image.h"

struct trace;
struct safefile;
struct safefile_keep;
struct safefile_opts;
struct tm_config;

/* Room export_keep() needs. */
#define EXPORT_NKEEP 3

/* The files a command reading @t must never write over: the trace, its
 * options file (TRACE.options, read or not) and the marks file @marks
 * (NULL: none), those that exist, into @keep (EXPORT_NKEEP entries).
 * Returns how many were set (0 without @t). */
size_t export_keep(const struct trace *t, const char *marks,
		   struct safefile_keep *keep);

/* Whether @path names @t's options file (TRACE.options), which need not
 * exist: by its directory's real path and base name, since export_keep()
 * keeps only files that do (by identity).  Anything written there (a
 * slice, extract's directory) would make the trace fail to open.
 * Returns 1 if it does, 0 if not (or @t is piped, or NULL). */
int export_names_options(const struct trace *t, const char *path);

/* Whether text written to @path ("-": standard output) would land on
 * @t's trace or options file: by identity (a symbolic or hard link, the
 * shell's >> onto standard output), or, for a path, by name where the
 * options file does not exist yet.  A command reading @t checks this
 * before it writes anything.  Never refuses without @t, nor a closed
 * standard output (the write fails later, and says so).
 * Returns 0 if @path may be written.
 * Returns -1 if not, with one line into @err ("standard output is the
 * trace; not writing over it", "FILE: is the trace's options file; not
 * overwriting it"). */
int export_refuse(const struct trace *t, const char *path, char *err,
		  size_t errlen);

/* The bytes export_write() copies at a time. */
#define EXPORT_CHUNK (256u << 10)

/* Write the @n bytes at @data, in a trace's mapping, to @f through @buf
 * (EXPORT_CHUNK bytes).  Call it under trace_guard(): reading a part the
 * file lost raises SIGBUS in the copy, which trace_guard() turns into
 * -pte_sigbus (write() straight from the mapping would fail with EFAULT
 * instead, blaming the output).
 * Returns 0, or -1 with errno set by the write. */
int export_write(struct safefile *f, const uint8_t *data, uint64_t n,
		 uint8_t *buf);

/* What export_slice() wrote. */
struct export_result {
	uint64_t start, end;	/* the slice [start, end) of the stream */
	uint64_t gaps;		/* lost-data gaps inside it, joined */
};

/* Whether export_slice() can make a slice of @img for [@from, @to), before
 * anything is written (a :pipe raw's command runs first, and its
 * "cat > FILE" would truncate FILE for nothing).  Reads the mapping under
 * trace_guard().  *@res (may be NULL) gets the slice's start and end
 * (gaps 0: counted while copying); on failure one line into @err.
 * Returns 0 if it can.
 * Returns -pte_invalid if the range is empty or outside the stream.
 * Returns -pte_bad_file if there is no PSB to start from.
 * Returns -pte_sigbus if the trace shrank while being read. */
int export_check(const struct img *img, uint64_t from, uint64_t to,
		 struct export_result *res, char *err, size_t errlen);

/* Write the slice of @img (a stream of @t) for [@from, @to) to the file
 * @out, replacing it only once the whole slice is written (src/safefile.h:
 * a failure leaves an existing @out as it was).  @t may be NULL.  @out
 * and @out.options being one of the @nkeep files of @keep (by any name)
 * is refused; @keep NULL means export_keep(@t, NULL).  So is @out naming
 * @t's options file (TRACE.options) when there is none yet (by its
 * directory's real path and base name).  With
 * SAFEFILE_STDOUT in @flags, "-" is standard output (no options file);
 * else @out.options gets the timing options of @img's stream in @t (an
 * empty line without @t): both are written whole before either replaces
 * a file, the options file first.  On failure one line
 * saying why is written into @err (naming @out when it is about @out).
 * Returns 0 and fills *@res.
 * Returns -pte_invalid if the range is empty or outside the stream.
 * Returns -pte_bad_file if there is no PSB to start from.
 * Returns -pte_io if @out or @out.options is refused (empty, the trace,
 * not a regular file, ...) or cannot be written.
 * Returns -pte_sigbus if the trace shrank while being read (@err says so).
 * Returns -pte_nomem if out of memory. */
int export_slice(const struct trace *t, const struct img *img, uint64_t from,
		 uint64_t to, const char *out, unsigned int flags,
		 const struct safefile_keep *keep, size_t nkeep,
		 struct export_result *res, char *err, size_t errlen);

/* How far export_slice_progress() got: called before the first byte, after
 * every EXPORT_CHUNK bytes and after the last, with the bytes of the slice
 * done of @total (its end - start), from the thread that writes.  A
 * non-zero return stops the export: nothing more is written and no file
 * is replaced (the temporary ones are removed). */
struct export_progress {
	int (*fn)(void *ctx, uint64_t done, uint64_t total);
	void *ctx;
};

/* export_slice() telling @prog (NULL: nobody) how far it got.
 * Returns as export_slice(), and -pte_canceled if @prog stopped it (@err
 * says "stopped; nothing written"): @out and @out.options are as they
 * were. */
int export_slice_progress(const struct trace *t, const struct img *img,
			  uint64_t from, uint64_t to, const char *out,
			  unsigned int flags, const struct safefile_keep *keep,
			  size_t nkeep, const struct export_progress *prog,
			  struct export_result *res, char *err, size_t errlen);

#endif /* EXPORT_H */
