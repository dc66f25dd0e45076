/*
 * marks_int -- what the three parts of a marks set share (not for callers).
 *
 *   marks.c       the set: entries in offset order, names, notes, colours,
 *                 lookups and changes; open and close
 *   marks_file.c  the file format: parsing lines (tok.h), writing them,
 *                 quoting notes, reading a file into a set, import/export
 *   marks_sync.c  the set and its file on disk: the first load, saving
 *                 under a lock, the three-way merge with another process's
 *                 save, files set aside, a trace that changed or grew
 *
 * marks.c calls marks_sync.c (load, save); marks_sync.c calls
 * marks_file.c to read and write the file; marks_file.c calls marks_save()
 * after an import; all three use marks.c's entry helpers.  Lines are split
 * by tok.h (TOK_MARKS).  marks_summary.c stands apart (marks.h only).
 */
#ifndef MARKS_INT_H
#define MARKS_INT_H

#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>

#include "marks.h"
#include "safefile.h"

/* Lines longer than this are not something we wrote or a person typed. */
#define BM_LINE_MAX (BM_NOTE_MAX * 4 + 1024)
#define BM_FILE_MAX (64u << 20)	/* marks files are small; /dev/zero is not */
/* Tokens on one line: keyword, name, two offsets, colour, note, spare. */
#define BM_TOKENS 8
/* Parse errors reported one by one before they are only counted. */
#define BM_ERRORS_SHOWN 5
/* How long a save waits for another process's save to finish (a save takes
 * milliseconds) before leaving the change in memory for a retry; the last
 * save before closing waits longer. */
#define BM_LOCK_WAIT_MS 250
#define BM_LOCK_CLOSE_MS 5000

/* The marks file as we last read or wrote it. */
struct marks_disk {
	int present;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
};

/* Comment and blank lines of a hand-edited marks file, kept with the
 * entry they precede (@before) or end (@after: from the blanks before its
 * '#'), by the entry's key (kind and name; the offset of an anonymous
 * bookmark): written back with it, dropped with it. */
struct marks_comment {
	enum marks_kind kind;
	char name[BM_NAME_MAX];
	uint64_t from;
	char *before;		/* whole lines, each ending in '\n'; NULL if none */
	char *after;		/* NULL if none */
};

struct marks_set {
	char *file;		/* the marks file */
	char *path;		/* the trace's path as last opened */
	char id[80];		/* the trace identity */
	char stream[32];	/* the stream, "" for the first */
	uint64_t size;		/* the trace's size (the file's, taken over) */
	uint64_t grown;		/* the largest size of the trace a set shared
				 * the file at (marks_check_changed()), said
				 * once; 0 if never larger than @size */
	uint64_t end;		/* the stream's: offsets lie below it */
	int saving;		/* 0: never write (flag, newer version, ...) */
	int dirty;		/* the last save failed */
	int one_shot;		/* BM_ONE_SHOT */
	int busy;		/* ... because another process held the lock */
	int final;		/* marks_flush_final() runs: the process ends,
				 * nothing is retried */
	int lost;		/* changed while saving was off for a problem
				 * with the file (why[]): marks_flush_final()
				 * writes them elsewhere */
	char why[2 * PATH_MAX + 64];	/* why the last save failed or saving
				 * was turned off ("" for BM_NO_STATE) */
	struct safefile_keep trace;	/* never written over */
	size_t ntrace;		/* 1 if the trace's identity is known */
	struct marks_disk disk;
	struct marks_entry *base;	/* the entries then, for a three-way merge */
	size_t nbase;
	/* Entries of our file past the stream's end: the file is shared with
	 * the sets of the trace's longer states (it grew, R, or another
	 * session shows it grown), whose marks they are.  Written back as
	 * read; never shown or merged.  marks_grow() takes in those that
	 * fall inside the new end. */
	struct marks_entry *beyond;
	size_t nbeyond;
	marks_report_fn *report;
	void *report_ctx;
	char msg[PATH_MAX + 512];	/* the last message */
	char warn[2 * PATH_MAX + 128];	/* marks_warning()'s, "" if none */
	struct marks_entry *v;	/* sorted by marks_cmp() */
	size_t n, cap;
	/* The file's own comments (marks_read() of our file): */
	struct marks_comment *cm;	/* the entries', in no order */
	size_t ncm;
	char *cm_head;		/* lines between the header and the trace line */
	char *cm_trace;		/* the trace line's trailing comment */
	char *cm_tail;		/* lines after the last entry */
};

/* A parsed line of a marks file. */
enum marks_line_type { BML_BLANK, BML_HEADER, BML_TRACE, BML_ENTRY };

struct marks_line {
	enum marks_line_type type;
	int version;			/* BML_HEADER */
	uint64_t size;			/* BML_TRACE */
	int has_size;
	uint64_t grown;			/* BML_TRACE: the largest size of the
					 * trace a set shared the file at */
	char id[80];
	char stream[32];		/* BML_TRACE: "" if it names none */
	char *path;			/* BML_TRACE, owned by the token buffer */
	struct marks_entry e;		/* BML_ENTRY; note owned by the buffer */
};

/* What reading one marks file found (marks_read()). */
struct marks_parse {
	const char *fname;		/* for messages */
	int version;			/* of the header, 0 before it */
	int errors;			/* lines that did not parse */
	unsigned long first_error;	/* the line of the first */
	int conflicts;			/* marks_import's */
	int added;
	int changed;			/* entries added or completed */
	int full;			/* BM_MAX_ENTRIES reached */
	unsigned long dropped;		/* entries not loaded for it */
	int has_trace;
	uint64_t trace_size;
	uint64_t trace_grown;		/* its grown=, 0 if none */
	char trace_id[80];
	char *trace_path;		/* malloc'd; the caller frees it */
	int keep_beyond;		/* our own file: entries past the end
					 * go to set->beyond, not errors; 2:
					 * said (BM_ERRORS_SHOWN, then counted) */
	int beyond;			/* entries kept past the end */
};

struct trace;

/*
 * marks.c: the set.
 */

/* Turn saving off for a problem with the file, @why (kept for
 * marks_flush_final(): changes made from now on are written elsewhere at
 * the end). */
void marks_saving_off(struct marks_set *set, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Keep a message in @set and give it to the reporter. */
void marks_report(struct marks_set *set, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Whether @s is one ASCII letter, a bookmark or region name, a colour,
 * a plain file-name part of fewer than @max characters. */
int marks_is_letter(const char *s);
int marks_name_ok(const char *s);
int marks_color_ok(const char *s);
int marks_plain(const char *s, size_t max);

/* Parse a 0x-hex or decimal offset; the whole string must be used.
 * Returns 0, or -pte_invalid. */
int marks_parse_off(const char *s, uint64_t *off);

/* "mark", "bookmark" or "region". */
const char *marks_kind_name(enum marks_kind kind);

/* Put the entries in marks_at()'s order. */
void marks_sort(struct marks_set *set);
/* After a change: sort, save, and a set whose saving was turned off for
 * a problem keeps the change for marks_flush_final() (set->lost).
 * Returns what marks_save() returns. */
int marks_changed(struct marks_set *set);

/* A copy of @note in *@out (NULL for NULL or "").
 * Returns 0, or -pte_nomem (too long, or out of memory). */
int marks_dup_note(const char *note, char **out);

/* Replace @e's note with a copy of @note (NULL or "": none).
 * Returns 0, or -pte_nomem with @e unchanged. */
int marks_replace_note(struct marks_entry *e, const char *note);

/* Append a copy of @e, unsorted.  Returns 0, or -pte_nomem (BM_MAX_ENTRIES
 * or out of memory). */
int marks_append(struct marks_set *set, const struct marks_entry *e);

/* Remove entry @i (< set->n). */
void marks_remove(struct marks_set *set, size_t i);

/* Free @n entries' notes and the array @v. */
void marks_entries_free(struct marks_entry *v, size_t n);

/* The comments kept with entry @e (its key), or NULL. */
struct marks_comment *marks_comment_of(const struct marks_set *set,
				       const struct marks_entry *e);

/* Keep copies of @before and @after (either may be NULL) as entry @e's
 * comments, unless it has some.  Returns 0, or -pte_nomem. */
int marks_comment_add(struct marks_set *set, const struct marks_entry *e,
		      const char *before, const char *after);

/* Give comments @c the key of @e (renamed). */
void marks_comment_rekey(struct marks_comment *c, const struct marks_entry *e);

/* Free the set's comments (all of them). */
void marks_comments_clear(struct marks_set *set);

/* Keep a copy of @e (past the stream's end) in set->beyond.
 * Returns 0, or -pte_nomem. */
int marks_keep_beyond(struct marks_set *set, const struct marks_entry *e);

/*
 * marks_file.c: the file format.
 */

/* The directory part of @file, in @buf ("." if none). */
void marks_dirname(const char *file, char *buf, size_t size);

/* fopen(@path, "re") for reading marks: a regular file of at most
 * BM_FILE_MAX bytes, else NULL with errno set (safefile_fopen_read()). */
FILE *marks_fopen(const char *path);

/* Read a marks file from @f into @set, adding its entries (an entry
 * already there with the same offsets only completes its note and
 * colour; one at other offsets is a conflict, reported and counted).
 * Bad lines are reported as ps->fname:line and counted in ps->errors.
 * Returns 0 when the file parsed.
 * Returns -pte_bad_file if it is not a marks file or of a newer version
 * (nothing loaded; ps->version says which).
 * Returns -pte_io if reading failed (reported). */
int marks_read(struct marks_set *set, FILE *f, struct marks_parse *ps);

/* What the trace line of a marks file says (marks_peek()). */
struct marks_peek {
	uint64_t size;			/* the trace's size then */
	uint64_t grown;			/* its grown=, 0 if none */
	char id[80];			/* its identity then */
	char stream[32];		/* the stream, "" if none is named */
	char *path;			/* malloc'd; NULL if none */
};

/* Read the trace line of marks file @file into @pk (zeroed first; the
 * caller frees pk->path).  Returns 0, or -1 if the file has no trace line
 * with a path or cannot be read. */
int marks_peek(const char *file, struct marks_peek *pk);

/* Write the set to @file as @o says (safefile.h: a temporary file in the
 * same directory, fsync, rename, fsync of the directory), never over the
 * trace, making the directory if needed.
 * Returns 0, or -pte_io with @err saying why. */
int marks_write(const struct marks_set *set, const char *file,
		const struct safefile_opts *o, char *err, size_t errlen);

/*
 * marks_sync.c: the set and its file on disk.
 */

/* Load the set's marks file if it exists (set->file), moving a broken
 * one aside; problems are reported and turn saving off where writing
 * would lose something.
 * Returns 0, or -pte_nomem. */
int marks_load(struct marks_set *set);

/* At most this many files of shorter states of one stream are looked at
 * on an open (marks_check_changed()); more are said.  (They share one
 * file since it is taken over, not copied: older ptbrowses, a trace that
 * shrank and came back, made more.) */
#define BM_MERGE_FILES 64

/* Look in the marks directory for files saved for the same path and
 * stream under another identity: if trace @t (may be NULL) only grew and
 * @set has no file, the largest such file becomes @set's (its id and
 * size are the file's; its entries past that size's end apply); then the
 * marks of such a shorter state's file saved after @set's (the trace
 * shrank while shown and came back, or another session still shows it
 * shorter with a file of its own) are merged in, saying so; that file is
 * left as it is.  If no file of the same path is found and @set has
 * none, a file of this stream that a grown state shared (grown=) saved
 * under another path is taken the same way when @t's first bytes have its
 * identity: the trace was moved or copied after it grew (the largest of
 * at most BM_MERGE_FILES such files; each costs a prefix hash).  Files of
 * a content that is not this one's grown are warned about (of the same
 * path only).  Files of the trace's other streams are left to them. */
void marks_check_changed(struct marks_set *set, const struct trace *t);

/* For the first stream of perf.data @t: if its marks file (set->file,
 * ID@STREAM.marks) is not there but ID.marks is, saved under the same
 * identity by a ptbrowse that named no stream's file for the first, take
 * that one (set->file points to it; later saves name the stream in it).
 * Its trace line must name this stream or none. */
void marks_legacy_file(struct marks_set *set, const struct trace *t);

/* For the first stream of perf.data @t whose own file (ID@STREAM.marks)
 * was loaded: if ID.marks, naming this stream or none, was saved after it
 * (an older ptbrowse run on the same trace since), merge its marks in,
 * saying so; ID.marks is left as it is. */
void marks_legacy_merge(struct marks_set *set, const struct trace *t);

/* Remove temporary files left by saves of processes that died. */
void marks_clean_tmp(struct marks_set *set);

#endif /* MARKS_INT_H */
