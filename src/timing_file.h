/*
 * timing_file -- TRACE.options: the timing options of a raw trace, in a
 * file beside it.  A raw trace carries no timing configuration (perf.data
 * records it); without one its times stay TSC ticks.  `extract`, `export`
 * and tools/ptgen write the file, trace_open() reads it for a raw trace,
 * and every command's timing options win over it (tm_config_merge()).
 *
 * The format is libipt's options-file habit, which ptrecord (code images)
 * and `flow --options` share: lines of options, "--opt VALUE" or
 * "--opt=VALUE", blanks between them, '#' starting a comment line; a
 * line ends in LF or CRLF (a CR elsewhere, or a NUL, is an error).
 *   - a timing option (timing_option(): --cpu, --mtc-freq, --nom-freq,
 *     --cpuid-0x15.eax/ebx/ecx, --tsc-freq) is taken; a bad value is an
 *     error naming the file and line;
 *   - an image option (--raw, --elf, --sysroot, --kallsyms, --buildid-dir)
 *     ends its line: its value is a path that may hold blanks, and it is
 *     `flow --options`'s to take (timing_file_read_images());
 *   - any other option is skipped with its value (the next word, unless
 *     that starts with '-'): other tools' options may share the file;
 *   - a word where an option is due is an error.
 */
#ifndef TIMING_FILE_H
#define TIMING_FILE_H

#include <stddef.h>

#include "tm_config.h"

struct trace;
struct safefile;
struct safefile_opts;

/* A file bigger than this is refused.  The timing is one line, but
 * ptrecord writes a --raw line per code mapping (a thousand mappings
 * passed 64 KiB and made the trace unopenable); a file past this is no
 * options file. */
#define TIMING_FILE_MAX (16u << 20)

/* Write @trace's options file name ("@trace.options") into @buf; if there
 * is no such file and @trace is a symbolic link, the options file beside
 * the file it leads to, if that one exists.
 * Returns 0, or -pte_invalid if it does not fit (or an argument is NULL). */
int timing_file_path(const char *trace, char *buf, size_t size);

/* Read the timing options of file @path into @cfg (what the file names is
 * set; the rest of @cfg is left alone).
 * Returns 1 if the file was read, 0 if there is none (@cfg untouched).
 * Returns -pte_bad_config if a line is malformed (also one with a NUL or
 * a lone CR): @err holds "PATH:LINE: why" (the fields before that line
 * are set).
 * Returns -pte_io if the file exists but cannot be read (not a regular
 * file, too big, no permission): @err holds "PATH: why". */
int timing_file_read(const char *path, struct tm_config *cfg, char *err,
		     size_t errlen);

/* What timing_file_read_images() calls for a line's image option: @opt
 * its name without the dashes ("raw"), @val the rest of the line after
 * blanks or '=' (blanks around it taken off; "" if none).
 * Returns 0, or -1 with why in @why (@len bytes). */
typedef int timing_file_image_fn(void *ctx, const char *opt, const char *val,
				 char *why, size_t len);

/* timing_file_read() that also gives each line's image option to @fn
 * (NULL: skipped, as timing_file_read() does): `flow --options`.  A
 * refusal by @fn is -pte_bad_config with "PATH:LINE: why" in @err. */
int timing_file_read_images(const char *path, struct tm_config *cfg,
			    timing_file_image_fn *fn, void *ctx, char *err,
			    size_t errlen);

/* Begin @out.options, the options file of the output @out: @cfg's timing
 * options on one line (perfdata_ptdump_options(); an empty line if it
 * knows nothing), written to a temporary file through safefile with @o
 * (NULL: defaults) but never through a symbolic link, a name made up
 * beside the user's.  An existing @out.options is replaced only if it is
 * empty or reads as an options file (lines of "--opt ..." and '#'
 * comments): other text there is the user's.  *@f is then to be put in
 * place together with @out's (safefile_commit_pair(*@f, out): the
 * options first), or given up.
 * Returns 0 and sets *@f.
 * Returns -pte_bad_config if @out.options holds something else.
 * Returns what safefile_create() returns, -pte_invalid if the name is too
 * long, -pte_nomem if out of memory; one line naming the file in @err. */
int timing_file_start(struct safefile **f, const char *out, const struct tm_config *cfg,
		      const struct safefile_opts *o, char *err, size_t errlen);

/* Write the options file of output @out ("@out.options") alone:
 * timing_file_start(), then put in place.
 * Returns 0, or what safefile_create()/safefile_commit() return, with a
 * one-line message naming the file in @err. */
int timing_file_write(const char *out, const struct tm_config *cfg,
		      const struct safefile_opts *o, char *err, size_t errlen);

/* What to tell a user whose raw trace shows no times: if @t is a raw
 * trace and @cfg (the timing in use: the file's merged with the command
 * line's) gives no TSC frequency, not even P1's estimate, writes one line
 * into @buf saying so and which options would give times (the values of
 * this machine where it can read them with CPUID, else the options to
 * look up), and where to put them.  For the browser's status line, once.
 * Returns 1 if @buf holds a hint, 0 if times are known or @t is not raw
 * (@buf is then ""). */
int timing_file_hint(const struct trace *t, const struct tm_config *cfg,
		     char *buf, size_t size);

#endif /* TIMING_FILE_H */
