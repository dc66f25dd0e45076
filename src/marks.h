/*
 * marks -- bookmarks, marks and regions of one trace, kept on disk.
 *
 * A marks_set holds, per trace:
 *   marks       single letters a-z, A-Z at an offset, with an optional note
 *   bookmarks   anonymous (toggled at an offset) or named, with a note
 *   regions     a named [from, to) byte range with a note and a colour
 *
 * Names of named bookmarks and regions share one namespace: 2 to 63
 * characters of [A-Za-z0-9_.-], starting with a letter or '_', so they
 * never look like a mark letter or an offset.
 *
 * Persistence: one file per trace, $XDG_STATE_HOME/ptbrowse/traces/<id>.marks
 * where <id> is the trace identity (size + hash of sampled content), so
 * marks survive renames and copies; offsets are stream offsets, so each
 * stream of a perf.data file, the first too, has its own <id>@<stream>.marks
 * (a raw trace's one stream has <id>.marks; so had a perf.data's first
 * stream in older versions: still read, see marks_open_trace()).
 * The file is line-based and hand-editable:
 *
 *   # ptbrowse marks v1
 *   trace size=2147483648 id=0000000080000000-1f2e3d4c5b6a7988 path="/data/run7.pt"
 *   mark a 0x1f5c
 *   mark B 0x3a00000 "before the OVF"
 *   bookmark - 0x4000
 *   bookmark slow_start 0x5000 "the slow phase\nstarts here"
 *   region hot 0x100000 0x180000 color=yellow "spin loop"
 *
 * Offsets are hex (0x) or decimal.  Notes are double-quoted with C escapes
 * (\" \\ \n \t \r \xHH).  '#' outside quotes starts a comment; comment
 * and blank lines mean nothing to the set but are kept, each with the entry
 * after it (a trailing one with its line), when the file is rewritten.
 * Every change rewrites the file atomically (temporary file, fsync,
 * rename, fsync of the directory); a marks file that is a symbolic link is
 * read but never written through (saving is off, said at the open).
 * A file that fails to parse is renamed aside to <file>.bad (or .bad.N)
 * and never overwritten; a file of a newer version is left untouched and
 * saving is turned off.  Two ptbrowse processes on one trace do not undo
 * each other: a save first merges what the other saved meanwhile, holding
 * an advisory lock on <file>.lock from that read through the rename.  A
 * save waits a fraction of a second for the other's; if that is not enough
 * the change stays in memory (marks_pending()) and the next save retries.
 *
 * Messages (warnings and errors, one line each, naming file:line where one
 * applies) go to the reporter given in marks_opts; the last one is also kept
 * in marks_message().  Nothing here uses curses or exits.
 *
 * The set lives in marks.c, its file format in marks_file.c, saving and
 * merging with the file on disk in marks_sync.c (marks_int.h ties them);
 * region summaries in marks_summary.c.
 */
#ifndef MARKS_H
#define MARKS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "image.h"
#include "pkt.h"
#include "tm.h"

struct idx;

/* The marks file format version this code writes and reads. */
#define BM_VERSION 1
/* Caps that bound memory and file size; exceeding one is an error. */
#define BM_MAX_ENTRIES 10000
#define BM_NAME_MAX 64		/* including the NUL */
#define BM_NOTE_MAX 4096	/* bytes of a note, including the NUL */
#define BM_COLOR_MAX 16		/* including the NUL */

enum marks_kind {
	BM_MARK,	/* name is one letter */
	BM_BOOKMARK,	/* name is "" when anonymous */
	BM_REGION
};

/* One entry.  Pointers returned by marks_at() stay valid until the next
 * change to the set. */
struct marks_entry {
	enum marks_kind kind;
	char name[BM_NAME_MAX];
	uint64_t from;		/* the offset; a region's first byte */
	uint64_t to;		/* a region's end (exclusive); = from otherwise */
	char *note;		/* NULL if none */
	char color[BM_COLOR_MAX];	/* regions; "" for the default */
};

/* Where messages go: called with one line, no trailing newline. */
typedef void marks_report_fn(void *ctx, const char *msg);

/* Flags for marks_opts.flags. */
#define BM_NO_STATE 1u	/* read the marks file but never write or rename it */
#define BM_IF_FILE 2u	/* open only if the marks file is there (else *out NULL) */
#define BM_ONE_SHOT 4u	/* a command's set, closed after one change: a
			 * failed save is said once, without the promise
			 * of a retry (there is none) */

struct marks_opts {
	unsigned int flags;	/* BM_NO_STATE, BM_IF_FILE, BM_ONE_SHOT */
	const char *file;	/* the marks file; NULL: the XDG state default */
	const char *stream;	/* a stream name ("cpu3"); NULL for the first */
	marks_report_fn *report;	/* NULL: messages are only kept */
	void *report_ctx;
};

struct marks_set;

/* Open the marks of the trace with identity @id (a hex string), @size
 * bytes, opened as @path, loading its marks file if there is one.
 * Problems with the file are reported and do not fail the open: a file
 * that does not parse is moved aside to .bad (its good lines are kept), a
 * newer version is left alone with saving turned off, a file recorded
 * for a different size is not applied.  A marks file recorded for the
 * same path but another identity (the trace changed) is reported as a
 * warning.  @opts may be NULL.
 * Returns 0 and sets *@out (to NULL with BM_IF_FILE if the marks file is
 * not there: nothing is read, written or said).
 * Returns -pte_invalid if @out, @id or @path is NULL or @id (or
 * @opts->stream) is not a plain name.
 * Without a state directory ($HOME and $XDG_STATE_HOME unset) the set
 * works in memory only: marks_saving() is 0, marks_file() NULL (reported).
 * Returns -pte_nomem if out of memory. */
int marks_open(struct marks_set **out, const char *id, uint64_t size,
	    const char *path, const struct marks_opts *opts);

struct trace;

/* marks_open() for stream @stream of trace @t (opened by trace_open()): its
 * identity is computed here (a few MiB are hashed).  Knowing the trace,
 * it also tells a trace that only grew (its old identity is that of its
 * prefix, e.g. a trace still being recorded) from one that changed, and
 * carries the marks over, saying so, instead of warning; a grown trace
 * moved or copied elsewhere since finds them by its first bytes (the
 * file of its shorter identity, which a grown state shared, names its
 * old path).  The marks file
 * is ID.marks for a raw trace, ID@STREAM.marks for each stream of a
 * perf.data (@opts->stream is not used): a perf.data's first stream's
 * ID.marks, saved by an older ptbrowse, is still read (and written) for
 * the same identity, and a grown trace's is carried over to the stream
 * that was first then.  A file of a shorter state of the trace (it only
 * grew since) saved after this one's, and a first stream's ID.marks
 * saved after its ID@STREAM.marks, are merged in, said with their path,
 * and left as they are; the set is saved then, so they are merged once.
 * Returns as marks_open(), or -pte_sigbus if the file shrank, -pte_invalid if
 * @stream is out of range. */
int marks_open_trace(struct marks_set **out, const struct trace *t, size_t stream,
		  const struct marks_opts *opts);

/* Free @set (NULL is fine).  Every change already saved; a change left
 * in memory by a failed or busy save is saved first (marks_flush()). */
void marks_close(struct marks_set *set);

/* The marks file's path, or NULL if there is no state directory. */
const char *marks_file(const struct marks_set *set);

/* The last message reported, or NULL if none. */
const char *marks_message(const struct marks_set *set);

/* A warning the last save gave besides its result, for the caller to
 * show with the change's own message, which would hide it (another
 * process's or a hand-edited file with bad lines was set aside as .bad
 * and its other lines merged); cleared by the call.  Returns NULL if
 * there is none. */
const char *marks_warning(struct marks_set *set);

/* Whether changes are being saved: 0 with BM_NO_STATE or after a newer
 * version was found; 1 otherwise (even while a save is failing). */
int marks_saving(const struct marks_set *set);

/* Write the marks file now (every change does; call it to retry after a
 * failed save, e.g. once the disk has room).
 * Returns 0 if the file is up to date (or saving is off).
 * Returns -pte_io if writing failed; the marks stay in memory, the
 * message says why, and the next change tries again. */
int marks_save(struct marks_set *set);

/* Whether the last save found another process saving the same marks file
 * for longer than a save waits: a change is only in memory and marks_save()
 * should be called again soon (the browser does when idle). */
int marks_pending(const struct marks_set *set);

/* Save a change that is only in memory (a failed or busy save), waiting a
 * few seconds at most for another process's save; for the end of a session.
 * Returns 0 if nothing is left unsaved (or saving is off).
 * Returns -pte_io if it could not be saved (marks_message() says why). */
int marks_flush(struct marks_set *set);

/* For the end of the process (the terminal given back): marks_flush(),
 * then, if changes are still not in the marks file (the save failed or
 * another ptbrowse kept the file locked, or saving was turned off for a
 * problem with the file after they were made), says on @err, each line
 * beginning with @prefix, which file and why, and writes all the set's
 * marks in the marks file format to a new file in $TMPDIR (never over one
 * that is there), naming it; if that fails too, prints them on @err.
 * Returns 0 if nothing was left unsaved (or saving is off, BM_NO_STATE).
 * Returns -pte_io if the marks were reported so (exit 1). */
int marks_flush_final(struct marks_set *set, FILE *err, const char *prefix);

/* The number of entries, and entry @i (0 <= i < count) in offset order
 * (then marks, bookmarks, regions; then by name).  Returns NULL if @i is
 * out of range. */
size_t marks_count(const struct marks_set *set);
const struct marks_entry *marks_at(const struct marks_set *set, size_t i);

/* The index of the mark (a single letter) or named bookmark or region
 * called @name.  Returns the index, or -1 if there is none. */
long marks_find(const struct marks_set *set, const char *name);

/* The index of the entry of @kind at offset @off (a region: starting at
 * @off; a bookmark: the anonymous one if there is one, else any).
 * Returns the index, or -1 if there is none. */
long marks_find_at(const struct marks_set *set, enum marks_kind kind, uint64_t off);

/*
 * Changes.  Each saves the file.  All return:
 * 0 on success (marks_toggle: 1 if added, 0 if removed);
 * -pte_invalid for a bad argument (name, letter, range, index), with a
 *  message saying which;
 * -pte_nomem if BM_MAX_ENTRIES or BM_NOTE_MAX would be exceeded, or out
 *  of memory; the set is unchanged;
 * -pte_io if the change was made but could not be saved (see marks_save()).
 */

/* Set mark @letter (a-z, A-Z) at @off, moving it if it exists; @note may
 * be NULL (keeps the existing note when moving). */
int marks_mark_set(struct marks_set *set, char letter, uint64_t off,
		const char *note);

/* Add an anonymous bookmark at @off, or remove it if there is one. */
int marks_toggle(struct marks_set *set, uint64_t off);

/* Set the named bookmark @name at @off with @note (may be NULL), moving
 * it if it exists. */
int marks_bookmark_set(struct marks_set *set, const char *name, uint64_t off,
		    const char *note);

/* Set region @name to [@from, @to) (swapped if @from > @to; empty is
 * invalid), with @note and @color (NULL: keep the existing ones, or
 * none). */
int marks_region_set(struct marks_set *set, const char *name, uint64_t from,
		  uint64_t to, const char *note, const char *color);

/* Delete entry @i. */
int marks_delete(struct marks_set *set, size_t i);

/* Rename entry @i to @name: a letter for a mark; a name for a region; a
 * name, or "" / "-" for anonymous, for a bookmark.  An existing entry of
 * that name is a conflict (-pte_invalid). */
int marks_rename(struct marks_set *set, size_t i, const char *name);

/* Set entry @i's note (NULL or "" removes it). */
int marks_set_note(struct marks_set *set, size_t i, const char *note);

/* Set region @i's colour (NULL or "" for the default). */
int marks_set_color(struct marks_set *set, size_t i, const char *color);

/* The first entry whose offset (a region's start) is after @off (@dir > 0)
 * or before @off (@dir < 0); only kinds whose bit (1 << kind) is in
 * @kinds count.  Returns its index, or -1 if there is none. */
long marks_next(const struct marks_set *set, uint64_t off, int dir,
	     unsigned int kinds);

/* Resolve @spec to an offset: a number (0x hex or decimal), a mark letter,
 * a bookmark name, or a region name (its start, or its end if @end is
 * set); "NAME.start" / "NAME.end" pick explicitly.
 * Returns 0 and sets *@off, or -pte_invalid if @spec names nothing. */
int marks_resolve(const struct marks_set *set, const char *spec, int end,
	       uint64_t *off);

/* The stream of @set grew to @end bytes (a trace reloaded after it grew
 * in place): offsets below @end may be marked now, and the marks its file
 * keeps for longer states of the trace (past the old end) that fall below
 * @end are shown (one of a name set here since stays).
 * Returns 0, or -pte_invalid if @set is NULL or @end is below the set's
 * end (the set is unchanged). */
int marks_grow(struct marks_set *set, uint64_t end);

/* Add the entries of @from, marks that no file holds (kept in memory for
 * a trace opened again), to @set; @what names them in messages ("the
 * marks of cpu3 kept in memory").  An entry of @set with the same name and
 * offsets only gains a note or colour it lacked; one of that name at other
 * offsets is @set's (the clash reported); one past @set's end is not added
 * (reported): the first few one by one, then their count.  Saves once.
 * Returns the number of entries of @from not added (>= 0).
 * Returns -pte_invalid if an argument is NULL.
 * Returns -pte_nomem if BM_MAX_ENTRIES was reached or out of memory
 * (reported; what fit is added).
 * Returns -pte_io if the merge could not be saved (see marks_save()). */
int marks_merge(struct marks_set *set, const struct marks_set *from, const char *what);

/*
 * Sharing.
 */

/* Write @s double-quoted with the marks file's escapes (\" \\ \n \t \r
 * \xHH), so it stays on one line; every byte esc.h would not print as it
 * is becomes \xHH, so the file and listings are safe on a terminal. */
void marks_put_quoted(FILE *f, const char *s);

/* Write every entry to @f in the marks file format.
 * Returns 0, or -pte_io if writing failed. */
int marks_export(const struct marks_set *set, FILE *f);

/* Merge the marks file read from @f (named @fname in messages) into @set.
 * An entry that exists with the same offsets is skipped (its note is
 * taken if ours has none); the same letter or name at a different offset
 * is a conflict: ours is kept and a "fname:line: ..." message reported.
 * Parse errors are reported and those lines skipped.  Saves once.
 * Returns the number of conflicts (>= 0).
 * Returns -pte_bad_file if @f is not a marks file or of a newer version
 * (nothing merged).
 * Returns -pte_nomem if BM_MAX_ENTRIES was reached (what fit is merged).
 * Returns -pte_io if the merge could not be saved (see marks_save()), or
 * saving is off for a BM_ONE_SHOT set (said, naming the file). */
int marks_import(struct marks_set *set, FILE *f, const char *fname);

/* Write the marks file format to @path, atomically, for :export-marks
 * (src/safefile.h: never over the trace, over a file that is not a marks
 * file, a FIFO or a device; never into a missing directory).  Reports what
 * it did.
 * Returns 0.
 * Returns -pte_invalid if @path is NULL or empty (reported if empty).
 * Returns -pte_io if it was refused or could not be written (reported,
 * naming the file and the reason). */
int marks_export_path(struct marks_set *set, const char *path);

/* marks_import() from the file at @path (a regular file), for :import-marks.
 * Returns as marks_import(), -pte_invalid if @path is NULL or empty
 * (reported if empty), or -pte_io if @path cannot be read (reported). */
int marks_import_path(struct marks_set *set, const char *path);

/*
 * Region summaries.
 */

/* Counts over the packets that start in [from, to) of an image. */
struct marks_summary {
	uint64_t from, to;		/* the range asked for */
	uint64_t bytes;			/* to - from */
	uint64_t packets;
	uint64_t by_class[PKC_NCLASSES];
	uint64_t by_type[PKT_NTYPES];
	uint64_t psbs;
	uint64_t tnt_bits;		/* branches in tnt.8 and tnt.64 */
	uint64_t taken, not_taken;
	uint64_t tips;			/* tip, tip.pge, tip.pgd */
	uint64_t cyc_cycles;		/* the sum of CYC payloads */
	int has_tsc;			/* a TSC packet lies in the range */
	uint64_t first_tsc, last_tsc;	/* their values */
	uint64_t first_tsc_off, last_tsc_off;
	uint64_t tsc_ticks;		/* last_tsc - first_tsc, mod 2^56 */
	uint64_t cbrs;			/* CBR packets */
	uint64_t cbr_changes;		/* CBRs with a ratio unlike the one before */
	uint8_t first_cbr, last_cbr;	/* valid if cbrs */
	uint64_t ovfs;
	uint64_t errors;		/* decode errors (resynchronised past) */
	uint64_t first_error_off;	/* valid if errors */
	uint64_t gaps;			/* lost-data gaps crossed */
	/*
	 * Time: filled by an observer that runs the time model (tm.h) over
	 * the same packets; has_time stays 0 without one.
	 */
	int has_time;
	double duration_ns;		/* the time model's time from the
					 * range's start to its end (the
					 * first packet at or after @to) */
	int has_span;			/* span_ticks is set */
	uint64_t span_ticks;		/* the same in (estimated) TSC ticks */
	double freq_avg_mhz, freq_min_mhz, freq_max_mhz;
	int freq_avg_wall;		/* freq_avg_mhz is cycles over the
					 * duration (nothing was lost in the
					 * range): halted periods (no cycles)
					 * pull it down; else it is the mean
					 * of the measurements, which leave
					 * periods with a sleep out */
	/* How sure the duration is: */
	int time_exact;			/* both edges are timing packets (a
					 * TSC, or an MTC the model places on
					 * the crystal clock) and nothing was
					 * lost between, no edge in damaged
					 * time (time_disputed): duration_ns
					 * and span_ticks are exact; else the
					 * model's estimate */
	int time_disputed;		/* the edges' times may be of
					 * stretches that disagree: the range
					 * crosses a TSC where time went back
					 * or left a stretch it went back to
					 * (tm_tsc_jumped()), or an edge lies
					 * in a segment whose TSC contradicts
					 * its neighbours' (marks_time.idx) */
	int time_warm;			/* the model began from the index's
					 * state at the range's first PSB
					 * (marks_time.warm): the edges' times
					 * are a decode from the start's; else
					 * from that PSB, uncalibrated */
	int has_cycles;			/* cycles is set */
	uint64_t cycles;		/* CYC cycles between the two edges
					 * (the first packet in the range and
					 * the end edge) */
	int cycles_exact;		/* both edges are cycle-exact (a CYC
					 * applies there) and nothing was lost
					 * between; else a bound's estimate */
};

/* Progress of a summary, shared with another thread. */
struct marks_progress {
	_Atomic uint64_t done;		/* bytes decoded so far */
	_Atomic uint64_t total;		/* bytes to decode */
	atomic_int cancel;		/* set to 1 to stop early */
	atomic_int finished;		/* 1 once the result is final */
};

/* Called for every packet decoded, including the lead-in from the PSB
 * before the range (@in_range 0) and the first packet at or after its
 * end (@in_range 2: the end edge, not counted), so a time model can
 * follow along.
 * Where bytes were lost (a gap between spans, or a decode error skipped
 * to the next PSB) it is called with a packet of type PKT_INVALID at the
 * offset where decoding resumed (tm_gap() time).  At the end it is called
 * once with @pkt NULL to fill the time fields of @sum.
 * A non-zero return stops the summary with that value. */
typedef int marks_observe_fn(void *ctx, const struct pkt *pkt, int in_range,
			  struct marks_summary *sum);

/* Summarise the packets starting in [@from, @to) of @img into @sum.
 * Decoding starts at the PSB at or before @from (else the first PSB
 * after it) so packets decode as in a full dump; errors are counted and
 * decoding resynchronises at the next PSB.  (`ptbrowse dump T:FROM-TO`,
 * like ptdump, starts at the first PSB at or after FROM instead: the
 * counts agree when FROM is a PSB.)  @prog (may be NULL) is
 * updated as bytes are decoded and polled for cancel; @observe may be
 * NULL.  @to is clipped to the image size.
 * Returns 0 on success (also if the range holds no PSB: counts are 0).
 * Returns -pte_invalid if @img or @sum is NULL or @from >= @to.
 * Returns -pte_canceled if @prog->cancel was set (@sum is partial).
 * Returns -pte_sigbus if the mapped file shrank under it (trace_guard()).
 * Returns what @observe returned if that was non-zero. */
int marks_region_summary(const struct img *img, uint64_t from, uint64_t to,
		      struct marks_summary *sum, struct marks_progress *prog,
		      marks_observe_fn *observe, void *observe_ctx);

/* The time observer: runs the time model (tm.h) along a summary and
 * fills its time fields.  Initialise with marks_time_init(), then pass
 * marks_time_observe and the struct to marks_region_summary() or a job.  To
 * resume the model from the index's PSB state instead of cold, call
 * tm_restore(&bt->tm, carry) for the PSB the summary starts at: the one
 * img_find_psb_before(img, from + 1) finds. */
struct marks_time {
	struct tm_model tm;
	int warm;			/* the caller restored tm from the
					 * index's carry (or the range starts
					 * in the first segment) */
	int have_first;			/* first and last are set */
	struct tm_stamp first, last;	/* in-range stamps with a TSC */
	int have_end;			/* end is set */
	struct tm_stamp end;		/* the end edge's stamp */
	int have_start;			/* start is set */
	struct tm_stamp start;		/* the first in-range packet's */
	uint8_t first_anchor, last_anchor, end_anchor;	/* those stamps are
					 * a timing packet's own time */
	int lost;			/* data was lost in the range */
	const struct idx *idx;		/* the caller's index, or NULL: an
					 * edge in a segment whose TSC
					 * contradicts its neighbours'
					 * (idx_time_outlier()) is disputed */
	int jumped;			/* a TSC in range left (or went back
					 * to) damaged time, tm_tsc_jumped() */
	uint64_t first_off, end_off;	/* the edges' packets (first; end,
					 * else last) */
	uint8_t seg_tsc;		/* a TSC came since the last PSB */
	uint8_t first_tsc, end_tsc;	/* one came before that edge in its
					 * segment: its time is the segment's
					 * (before it, the one before's) */
	uint32_t khz_min, khz_max;	/* measured, in range */
	uint64_t khz_sum, khz_n;
};

/* Set up @bt for a stream recorded with @cfg (NULL: nothing known); a
 * caller with the trace's index sets bt->idx (read from the summary's
 * thread: the index may still be building). */
void marks_time_init(struct marks_time *bt, const struct tm_config *cfg);

/* A marks_observe_fn: @ctx is a struct marks_time.  At the end it sets
 * has_span and span_ticks from the time model's TSC at the range's two
 * edges (the first packet in it with a time, and the end edge, else the
 * last packet in it), has_time and duration_ns if both have a wall-clock
 * time, and the frequencies (MHz; 0 if unknown): the average is cycles
 * over time when CYC packets count cycles and nothing was lost
 * (freq_avg_wall), else the mean
 * of the measurements; min and max are over the measurements; whether
 * the time is exact (time_exact, time_disputed).
 * Returns 0. */
int marks_time_observe(void *ctx, const struct pkt *pkt, int in_range,
		    struct marks_summary *sum);

/* A summary running in a background thread. */
struct marks_summary_job {
	const struct img *img;		/* set these before marks_summary_start */
	uint64_t from, to;
	marks_observe_fn *observe;
	void *observe_ctx;
	struct marks_summary sum;		/* the result */
	struct marks_progress progress;	/* poll progress.finished; then sum
					 * and result are final */
	int result;			/* marks_region_summary()'s return */
	pthread_t thread;		/* private */
};

/* Start computing @job's summary in a new thread.
 * Returns 0, or -pte_nomem if no thread could be started. */
int marks_summary_start(struct marks_summary_job *job);

/* Ask @job to stop; marks_summary_join() then returns soon. */
void marks_summary_cancel(struct marks_summary_job *job);

/* Wait for @job's thread (always, also after finished, to free it).
 * Returns the job's result. */
int marks_summary_join(struct marks_summary_job *job);

#endif /* MARKS_H */
