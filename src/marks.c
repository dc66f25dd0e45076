/* marks -- marks, bookmarks and regions of a trace, saved atomically. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "esc.h"
#include "identity.h"
#include "marks.h"
#include "ptdec.h"
#include "safefile.h"
#include "tok.h"
#include "trace.h"
#include "xdg.h"

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

struct marks_set {
	char *file;		/* the marks file */
	char *path;		/* the trace's path as last opened */
	char id[80];		/* the trace identity */
	char stream[32];	/* the stream, "" for the first */
	uint64_t size;		/* the trace's size */
	uint64_t end;		/* the stream's: offsets lie below it */
	int saving;		/* 0: never write (flag, newer version, ...) */
	int dirty;		/* the last save failed */
	int busy;		/* ... because another process held the lock */
	struct safefile_keep trace;	/* never written over */
	size_t ntrace;		/* 1 if the trace's identity is known */
	struct marks_disk {	/* the marks file as we last read or wrote it */
		int present;
		dev_t dev;
		ino_t ino;
		off_t size;
		struct timespec mtime;
	} disk;
	struct marks_entry *base;	/* the entries then, for a three-way merge */
	size_t nbase;
	marks_report_fn *report;
	void *report_ctx;
	char msg[PATH_MAX + 512];	/* the last message */
	struct marks_entry *v;	/* sorted by marks_cmp() */
	size_t n, cap;
	uint64_t hist[BM_HISTORY_MAX];	/* the jump list, oldest first */
	size_t nhist;
	size_t hpos;		/* where we are in it; nhist: at the tip */
};

/* A parsed line of a marks file. */
enum marks_line_type { BML_BLANK, BML_HEADER, BML_TRACE, BML_ENTRY };

struct marks_line {
	enum marks_line_type type;
	int version;			/* BML_HEADER */
	uint64_t size;			/* BML_TRACE */
	int has_size;
	char id[80];
	char *path;			/* BML_TRACE, owned by the token buffer */
	struct marks_entry e;		/* BML_ENTRY; note owned by the buffer */
};

static void marks_report(struct marks_set *set, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int marks_sync(struct marks_set *set);
static int marks_synced(struct marks_set *set, const struct stat *st);

static void marks_report(struct marks_set *set, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(set->msg, sizeof(set->msg), fmt, ap);
	va_end(ap);
	if (set->report)
		set->report(set->report_ctx, set->msg);
}

/*
 * Names, offsets, notes.
 */

static int marks_is_letter(const char *s)
{
	return s && isascii((unsigned char)s[0]) &&
	       isalpha((unsigned char)s[0]) && !s[1];
}

/* Whether @s has @min to @max - 1 characters, each an ASCII letter or
 * digit or one of @extra. */
static int marks_word(const char *s, const char *extra, size_t min, size_t max)
{
	size_t i;

	if (!s)
		return 0;
	for (i = 0; s[i]; i++)
		if (!isascii((unsigned char)s[i]) ||
		    !(isalnum((unsigned char)s[i]) || strchr(extra, s[i])))
			return 0;
	return i >= min && i < max;
}

static int marks_name_ok(const char *s)
{
	return marks_word(s, "_.-", 2, BM_NAME_MAX) &&
	       (isalpha((unsigned char)s[0]) || s[0] == '_');
}

static int marks_color_ok(const char *s)
{
	return marks_word(s, "_-", 1, BM_COLOR_MAX);
}

/* Parse a 0x-hex or decimal offset; the whole string must be used. */
static int marks_parse_off(const char *s, uint64_t *off)
{
	unsigned long long v;
	char *end;

	if (!s || !isdigit((unsigned char)s[0]))
		return -pte_invalid;
	errno = 0;
	v = strtoull(s, &end, (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) ? 16 : 10);
	if (errno || *end || end == s)
		return -pte_invalid;
	*off = v;
	return 0;
}

void marks_put_quoted(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), len;
	uint32_t cp;

	fputc('"', f);
	for (; n; p += len, n -= len) {
		len = 1;
		switch (*p) {
		case '"': fputs("\\\"", f); continue;
		case '\\': fputs("\\\\", f); continue;
		case '\n': fputs("\\n", f); continue;
		case '\t': fputs("\\t", f); continue;
		case '\r': fputs("\\r", f); continue;
		}
		/* What the terminal must not see (esc.h) is \xHH, byte by
		 * byte: the file and `marks` listings are safe to print. */
		len = esc_utf8(p, n, &cp);
		if (len && esc_printable(cp)) {
			fwrite(p, 1, len, f);
		} else {
			fprintf(f, "\\x%02x", *p);
			len = 1;
		}
	}
	fputc('"', f);
}

/*
 * Split @line (modified in place) into tokens by the marks file's rules
 * (tok.h, TOK_MARKS).  @quoted[i] says whether token i began with a quote
 * (a note).  Returns the number of tokens, or -1 with @why set.
 */
static int marks_tokenize(char *line, char **tok, int *quoted, const char **why)
{
	struct tok_err err;
	int n;

	n = tok_split(line, TOK_MARKS, line, strlen(line) + 1, tok, quoted,
		      BM_TOKENS, &err);
	if (n >= 0)
		return n;
	/* The wording marks files have always had (@why must outlive @err). */
	switch (err.code) {
	case TOK_UNTERMINATED: *why = "unterminated quote"; break;
	case TOK_TOO_MANY: *why = "too many fields"; break;
	case TOK_BAD_HEX: *why = "bad \\x escape (two hex digits, not 00)"; break;
	case TOK_BAD_ESCAPE:
		*why = "unknown escape (use \\\" \\\\ \\n \\t \\r \\xHH)";
		break;
	default: *why = "line too long"; break;
	}
	return -1;
}

/* Take the optional fields after an entry's offsets: a note and, for a
 * region, color=. */
static int marks_parse_tail(struct marks_line *l, char **tok, int *quoted, int i,
			 int n, const char **why)
{
	for (; i < n; i++) {
		if (quoted[i] && !l->e.note) {
			if (strlen(tok[i]) >= BM_NOTE_MAX) {
				*why = "note too long";
				return -1;
			}
			l->e.note = tok[i];
		} else if (l->e.kind == BM_REGION && !strncmp(tok[i], "color=", 6) &&
			   !l->e.color[0]) {
			if (!marks_color_ok(tok[i] + 6)) {
				*why = "bad colour (letters, digits, '_', '-')";
				return -1;
			}
			strcpy(l->e.color, tok[i] + 6);
		} else {
			*why = quoted[i] ? "more than one note" : "unexpected field";
			return -1;
		}
	}
	return 0;
}

/* Parse one line into @l.  Returns 0, or -1 with @why set. */
static int marks_parse_line(char *line, struct marks_line *l, const char **why)
{
	char *tok[BM_TOKENS];
	int quoted[BM_TOKENS], n, i;

	memset(l, 0, sizeof(*l));
	if (!strncmp(line, "# ptbrowse marks v", 18)) {
		char *end;
		long v = strtol(line + 18, &end, 10);

		if (end == line + 18 || v < 1 || v > INT_MAX) {
			*why = "bad version";
			return -1;
		}
		l->type = BML_HEADER;
		l->version = (int)v;
		return 0;
	}
	n = marks_tokenize(line, tok, quoted, why);
	if (n < 0)
		return -1;
	if (n == 0) {
		l->type = BML_BLANK;
		return 0;
	}
	if (quoted[0])
		goto unknown;
	if (!strcmp(tok[0], "trace")) {
		l->type = BML_TRACE;
		for (i = 1; i < n; i++) {
			if (!strncmp(tok[i], "size=", 5) &&
			    !marks_parse_off(tok[i] + 5, &l->size)) {
				l->has_size = 1;
			} else if (!strncmp(tok[i], "id=", 3) &&
				   strlen(tok[i] + 3) < sizeof(l->id)) {
				strcpy(l->id, tok[i] + 3);
			} else if (!strncmp(tok[i], "path=", 5)) {
				l->path = tok[i] + 5;
			} else if (!strncmp(tok[i], "stream=", 7)) {
				/* informative: the file name says it */
			} else {
				*why = "bad trace field (size=N id=ID stream=S path=\"...\")";
				return -1;
			}
		}
		return 0;
	}
	l->type = BML_ENTRY;
	if (!strcmp(tok[0], "mark")) {
		l->e.kind = BM_MARK;
		if (n < 3 || !marks_is_letter(tok[1]) || quoted[1]) {
			*why = "expected: mark LETTER OFFSET [\"note\"]";
			return -1;
		}
	} else if (!strcmp(tok[0], "bookmark")) {
		l->e.kind = BM_BOOKMARK;
		if (n < 3 || quoted[1] ||
		    (strcmp(tok[1], "-") && !marks_name_ok(tok[1]))) {
			*why = "expected: bookmark NAME|- OFFSET [\"note\"]";
			return -1;
		}
	} else if (!strcmp(tok[0], "region")) {
		l->e.kind = BM_REGION;
		if (n < 4 || quoted[1] || !marks_name_ok(tok[1])) {
			*why = "expected: region NAME FROM TO [color=C] [\"note\"]";
			return -1;
		}
	} else {
		goto unknown;
	}
	if (strcmp(tok[1], "-"))
		strcpy(l->e.name, tok[1]);
	if (quoted[2] || marks_parse_off(tok[2], &l->e.from)) {
		*why = "bad offset";
		return -1;
	}
	l->e.to = l->e.from;
	i = 3;
	if (l->e.kind == BM_REGION) {
		if (quoted[3] || marks_parse_off(tok[3], &l->e.to)) {
			*why = "bad offset";
			return -1;
		}
		if (l->e.to <= l->e.from) {
			*why = "a region must end after it starts";
			return -1;
		}
		i = 4;
	}
	return marks_parse_tail(l, tok, quoted, i, n, why);
unknown:
	*why = "unknown line (expected trace, mark, bookmark or region)";
	return -1;
}

/*
 * The entry array.
 */

static int marks_cmp(const void *pa, const void *pb)
{
	const struct marks_entry *a = pa, *b = pb;

	if (a->from != b->from)
		return a->from < b->from ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->to != b->to)
		return a->to < b->to ? -1 : 1;
	return strcmp(a->name, b->name);
}

static void marks_sort(struct marks_set *set)
{
	if (set->n)
		qsort(set->v, set->n, sizeof(set->v[0]), marks_cmp);
}

static int marks_dup_note(const char *note, char **out)
{
	*out = NULL;
	if (!note || !*note)
		return 0;
	if (strlen(note) >= BM_NOTE_MAX)
		return -pte_nomem;
	*out = strdup(note);
	return *out ? 0 : -pte_nomem;
}

/* Replace @e's note with a copy of @note (NULL or "": none). */
static int marks_replace_note(struct marks_entry *e, const char *note)
{
	char *copy;
	int ret;

	ret = marks_dup_note(note, &copy);
	if (ret < 0)
		return ret;
	free(e->note);
	e->note = copy;
	return 0;
}

/* Append a copy of @e (unsorted).  Returns 0 or -pte_nomem. */
static int marks_append(struct marks_set *set, const struct marks_entry *e)
{
	struct marks_entry *v;
	int ret;

	if (set->n >= BM_MAX_ENTRIES)
		return -pte_nomem;
	if (set->n == set->cap) {
		size_t cap = set->cap ? set->cap * 2 : 16;

		v = realloc(set->v, cap * sizeof(*v));
		if (!v)
			return -pte_nomem;
		set->v = v;
		set->cap = cap;
	}
	set->v[set->n] = *e;
	ret = marks_dup_note(e->note, &set->v[set->n].note);
	if (ret < 0)
		return ret;
	set->n++;
	return 0;
}

static void marks_remove(struct marks_set *set, size_t i)
{
	free(set->v[i].note);
	memmove(&set->v[i], &set->v[i + 1], (set->n - i - 1) * sizeof(set->v[0]));
	set->n--;
}

/* The index of the mark, or named bookmark or region, called @name. */
long marks_find(const struct marks_set *set, const char *name)
{
	size_t i;

	if (!set || !name || !*name)
		return -1;
	for (i = 0; i < set->n; i++)
		if (!strcmp(set->v[i].name, name))
			return (long)i;
	return -1;
}

long marks_find_at(const struct marks_set *set, enum marks_kind kind, uint64_t off)
{
	long any = -1;
	size_t i;

	if (!set)
		return -1;
	for (i = 0; i < set->n; i++) {
		if (set->v[i].kind != kind || set->v[i].from != off)
			continue;
		if (kind != BM_BOOKMARK || !set->v[i].name[0])
			return (long)i;
		if (any < 0)
			any = (long)i;
	}
	return any;
}

size_t marks_count(const struct marks_set *set)
{
	return set ? set->n : 0;
}

const struct marks_entry *marks_at(const struct marks_set *set, size_t i)
{
	return set && i < set->n ? &set->v[i] : NULL;
}

const char *marks_file(const struct marks_set *set)
{
	return set ? set->file : NULL;
}

const char *marks_message(const struct marks_set *set)
{
	return set && set->msg[0] ? set->msg : NULL;
}

int marks_saving(const struct marks_set *set)
{
	return set && set->saving;
}

/*
 * Writing.
 */

static void marks_put_entry(FILE *f, const struct marks_entry *e)
{
	static const char *const kw[] = { "mark", "bookmark", "region" };

	fprintf(f, "%s %s 0x%" PRIx64, kw[e->kind],
		e->name[0] ? e->name : "-", e->from);
	if (e->kind == BM_REGION) {
		fprintf(f, " 0x%" PRIx64, e->to);
		if (e->color[0])
			fprintf(f, " color=%s", e->color);
	}
	if (e->note) {
		fputc(' ', f);
		marks_put_quoted(f, e->note);
	}
	fputc('\n', f);
}

static void marks_put_all(const struct marks_set *set, FILE *f)
{
	size_t i;

	fprintf(f, "# ptbrowse marks v%d\n", BM_VERSION);
	fprintf(f, "trace size=%" PRIu64 " id=%s", set->size, set->id);
	if (set->stream[0])
		fprintf(f, " stream=%s", set->stream);
	fputs(" path=", f);
	marks_put_quoted(f, set->path);
	fputc('\n', f);
	for (i = 0; i < set->n; i++)
		marks_put_entry(f, &set->v[i]);
}

int marks_export(const struct marks_set *set, FILE *f)
{
	if (!set || !f)
		return -pte_invalid;
	marks_put_all(set, f);
	return fflush(f) || ferror(f) ? -pte_io : 0;
}

/* The directory part of @file, in @buf. */
static void marks_dirname(const char *file, char *buf, size_t size)
{
	const char *slash = strrchr(file, '/');

	if (!slash)
		snprintf(buf, size, ".");
	else if (slash == file)
		snprintf(buf, size, "/");
	else
		snprintf(buf, size, "%.*s", (int)(slash - file), file);
}

/* Write the set to @file as @o says (src/safefile.h: a temporary file in
 * the same directory, fsync, rename over the old one, fsync the
 * directory), never over the trace.  A crash at any point leaves either
 * the old or the new file. */
static int marks_write(const struct marks_set *set, const char *file,
		    const struct safefile_opts *o, char *err, size_t errlen)
{
	struct safefile_opts so = *o;
	char dir[PATH_MAX];
	struct safefile *f;
	FILE *out;

	marks_dirname(file, dir, sizeof(dir));
	if (xdg_mkdir_p(dir, 0700, err, errlen) < 0)
		return -pte_io;
	so.keep = &set->trace;
	so.nkeep = set->ntrace;
	if (safefile_create(&f, file, &so, err, errlen) < 0)
		return -pte_io;
	out = safefile_stream(f);
	if (!out) {
		safefile_abort(f);
		snprintf(err, errlen, "%s: out of memory", file);
		return -pte_io;
	}
	marks_put_all(set, out);
	return safefile_commit(f, err, errlen) < 0 ? -pte_io : 0;
}

/*
 * Saves of two processes are serialised by an advisory lock (flock) on
 * <file>.lock, held from reading what the other saved through the rename
 * of ours: without it both read the same file, each writes its own merge
 * and the later rename drops the other's change, which the next three-way
 * merge then takes for a deletion.  The lock file is never removed (that
 * would let two processes lock two different files); a dead holder's lock
 * goes with its process.
 */

/* Lock @set's lock file, waiting at most @wait_ms.  Returns the locked
 * descriptor; -1 if another process holds the lock that long; -2 if there
 * is no lock to take (no lock file can be made, or flock is not supported):
 * the save goes ahead unlocked and says why if writing fails too. */
static int marks_lock(const struct marks_set *set, int wait_ms)
{
	char lock[PATH_MAX + 8], dir[PATH_MAX], err[PATH_MAX + 128];
	struct timespec ts = { 0, 0 };
	int fd, waited = 0, step = 1;

	snprintf(lock, sizeof(lock), "%s.lock", set->file);
	marks_dirname(set->file, dir, sizeof(dir));
	if (xdg_mkdir_p(dir, 0700, err, sizeof(err)) < 0)
		return -2;
	fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
	if (fd < 0)
		return -2;
	while (flock(fd, LOCK_EX | LOCK_NB)) {
		if (errno == EINTR)
			continue;
		if (errno != EWOULDBLOCK || waited >= wait_ms) {
			int busy = errno == EWOULDBLOCK;

			close(fd);
			return busy ? -1 : -2;
		}
		ts.tv_nsec = (long)step * 1000000L;
		nanosleep(&ts, NULL);
		waited += step;
		if (step < 16)
			step *= 2;
	}
	return fd;
}

static void marks_unlock(int fd)
{
	if (fd >= 0)
		close(fd);	/* releases the flock */
}

/* marks_save(), waiting at most @wait_ms for another process's save. */
static int marks_save_wait(struct marks_set *set, int wait_ms)
{
	char err[2 * PATH_MAX + 64];
	int was_dirty, lock, ret = -pte_io;

	if (!set)
		return -pte_invalid;
	if (!set->saving)
		return 0;
	was_dirty = set->dirty;
	lock = marks_lock(set, wait_ms);
	if (lock == -1) {
		set->dirty = 1;
		if (!set->busy)
			marks_report(set, "marks not saved yet: another ptbrowse is saving "
				  "%s; kept in memory, saving again shortly", set->file);
		set->busy = 1;
		return -pte_io;
	}
	set->busy = 0;
	/* Another ptbrowse may have saved the same trace's marks meanwhile. */
	if (marks_sync(set) < 0)
		goto out_unlock;
	if (marks_write(set, set->file, &(struct safefile_opts){
		     .flags = SAFEFILE_NOFOLLOW, .mode = 0600 }, err, sizeof(err)) < 0) {
		set->dirty = 1;
		marks_report(set, "marks not saved: %s; they are kept in memory and "
			  "saving is retried on the next change", err);
		goto out_unlock;
	}
	set->dirty = 0;
	if (was_dirty)
		marks_report(set, "marks saved to %s", set->file);
	/* Without a base the next save merges needlessly, harmlessly. */
	marks_synced(set, NULL);
	ret = 0;
out_unlock:
	marks_unlock(lock);
	return ret;
}

int marks_save(struct marks_set *set)
{
	/* Once another process kept us waiting, only try: the browser
	 * retries when idle and must not stall a key on every try. */
	return marks_save_wait(set, set && set->busy ? 0 : BM_LOCK_WAIT_MS);
}

int marks_pending(const struct marks_set *set)
{
	return set && set->saving && set->busy;
}

int marks_flush(struct marks_set *set)
{
	int ret;

	if (!set || !set->saving || !set->dirty)
		return 0;
	ret = marks_save_wait(set, BM_LOCK_CLOSE_MS);
	if (ret < 0 && set->busy)
		marks_report(set, "marks not saved: another ptbrowse kept %s locked "
			  "for %d s; the changes since the last save are lost",
			  set->file, BM_LOCK_CLOSE_MS / 1000);
	return ret;
}

/*
 * Reading.
 */

/* Move the unparsable @file aside to .bad, .bad.1, ... without ever
 * replacing an existing file.  Returns 0 and the new name in @bad. */
static int marks_move_aside(const char *file, char *bad, size_t size)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (i)
			snprintf(bad, size, "%s.bad.%d", file, i);
		else
			snprintf(bad, size, "%s.bad", file);
		/* link() refuses to replace, unlike rename(). */
		if (!link(file, bad)) {
			unlink(file);
			return 0;
		}
		if (errno == EEXIST)
			continue;
		if (access(bad, F_OK) == 0)
			continue;
		/* Filesystems without hard links: check, then rename. */
		if (!rename(file, bad))
			return 0;
		return -pte_io;
	}
	errno = EEXIST;
	return -pte_io;
}

struct marks_parse {
	const char *fname;		/* for messages */
	int version;			/* of the header, 0 before it */
	int errors;			/* lines that did not parse */
	int conflicts;			/* marks_import's */
	int added;
	int changed;			/* entries added or completed */
	int full;			/* BM_MAX_ENTRIES reached */
	unsigned long dropped;		/* entries not loaded for it */
	int has_trace;
	uint64_t trace_size;
	char trace_id[80];
	char *trace_path;
};

static void marks_parse_error(struct marks_set *set, struct marks_parse *ps,
			   unsigned long lineno, const char *why)
{
	if (++ps->errors <= BM_ERRORS_SHOWN)
		marks_report(set, "%s:%lu: %s", ps->fname, lineno, why);
}

static const char *marks_kind_name(enum marks_kind kind)
{
	return kind == BM_MARK ? "mark" : kind == BM_BOOKMARK ? "bookmark" : "region";
}

/* Whether entry @e of line @lineno lies past the end of the stream: then
 * it is a bad line (reported), as nothing there can be shown. */
static int marks_past_end(struct marks_set *set, struct marks_parse *ps,
		       unsigned long lineno, const struct marks_entry *e)
{
	char why[BM_NAME_MAX + 160];

	if (e->kind == BM_REGION ? e->to <= set->end : e->from < set->end)
		return 0;
	if (e->kind == BM_REGION)
		snprintf(why, sizeof(why), "region %s ends at 0x%" PRIx64 ", past "
			 "the end of the trace (0x%" PRIx64 " bytes); not loaded",
			 e->name, e->to, set->end);
	else
		snprintf(why, sizeof(why), "%s %s at 0x%" PRIx64 " is past the end "
			 "of the trace (0x%" PRIx64 " bytes); not loaded",
			 marks_kind_name(e->kind), e->name[0] ? e->name : "-",
			 e->from, set->end);
	marks_parse_error(set, ps, lineno, why);
	return 1;
}

/* Merge parsed entry @e from line @lineno. */
static void marks_merge(struct marks_set *set, struct marks_parse *ps,
		     unsigned long lineno, const struct marks_entry *e)
{
	struct marks_entry *o;
	long i;

	i = e->name[0] ? marks_find(set, e->name) : marks_find_at(set, BM_BOOKMARK, e->from);
	if (i >= 0 && !e->name[0] && set->v[i].name[0])
		i = -1;		/* a named bookmark there is no anonymous one */
	if (i >= 0) {
		o = &set->v[i];
		if (o->kind != e->kind || o->from != e->from || o->to != e->to) {
			ps->conflicts++;
			if (o->kind == BM_REGION)
				marks_report(set, "%s:%lu: %s %s is 0x%" PRIx64 "-0x%" PRIx64
					  " here; kept it", ps->fname, lineno,
					  marks_kind_name(o->kind), o->name, o->from, o->to);
			else
				marks_report(set, "%s:%lu: %s %s is at 0x%" PRIx64
					  " here, 0x%" PRIx64 " there; kept 0x%" PRIx64,
					  ps->fname, lineno, marks_kind_name(o->kind),
					  o->name, o->from, e->from, o->from);
			return;
		}
		if (!o->note && e->note && !marks_dup_note(e->note, &o->note))
			ps->changed++;
		if (!o->color[0] && e->color[0]) {
			strcpy(o->color, e->color);
			ps->changed++;
		}
		return;
	}
	if (marks_append(set, e) < 0) {
		if (!ps->full)
			marks_report(set, "%s:%lu: more than %d marks; the rest are "
				  "not loaded", ps->fname, lineno, BM_MAX_ENTRIES);
		ps->full = 1;
		ps->dropped++;
		return;
	}
	ps->added++;
	ps->changed++;
}

/* fopen(@path, "re") for reading marks: a regular file of at most
 * BM_FILE_MAX bytes (a device or a FIFO would never end), else NULL with
 * errno set as safefile_open_read() does. */
static FILE *marks_fopen(const char *path)
{
	return safefile_fopen_read(path, BM_FILE_MAX);
}

/*
 * Read a marks file from @f into @set.  Returns 0 when the file parsed,
 * -pte_bad_file if it is not a marks file or of a newer version (nothing
 * loaded), -pte_nomem if out of memory; ps->errors counts bad lines.
 */
static int marks_read(struct marks_set *set, FILE *f, struct marks_parse *ps)
{
	unsigned long lineno = 0;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	struct marks_line l;
	const char *why;
	int ret = 0;

	while ((len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if (len > BM_LINE_MAX) {
			marks_parse_error(set, ps, lineno, "line too long");
			continue;
		}
		if ((size_t)len != strlen(line)) {
			marks_parse_error(set, ps, lineno, "a NUL byte in the line");
			continue;
		}
		if (marks_parse_line(line, &l, &why) < 0) {
			if (!ps->version)
				goto not_marks;
			marks_parse_error(set, ps, lineno, why);
			continue;
		}
		if (!ps->version && l.type == BML_BLANK && !strchr(line, '#'))
			continue;
		if (!ps->version && l.type != BML_HEADER)
			goto not_marks;
		switch (l.type) {
		case BML_BLANK:
			break;
		case BML_HEADER:
			if (ps->version) {
				marks_parse_error(set, ps, lineno, "a second header line");
				break;
			}
			ps->version = l.version;
			if (l.version > BM_VERSION) {
				marks_report(set, "%s:%lu: marks file version %d is newer "
					  "than this ptbrowse reads (%d); left untouched",
					  ps->fname, lineno, l.version, BM_VERSION);
				ret = -pte_bad_file;
				goto out_free;
			}
			break;
		case BML_TRACE:
			ps->has_trace = 1;
			ps->trace_size = l.has_size ? l.size : 0;
			snprintf(ps->trace_id, sizeof(ps->trace_id), "%s", l.id);
			free(ps->trace_path);
			ps->trace_path = l.path ? strdup(l.path) : NULL;
			break;
		case BML_ENTRY:
			if (marks_past_end(set, ps, lineno, &l.e))
				break;
			marks_merge(set, ps, lineno, &l.e);
			break;
		}
	}
	if (ferror(f)) {
		marks_report(set, "%s: %s", ps->fname, strerror(errno));
		ret = -pte_io;
	} else if (!ps->version) {
		lineno = 1;
		goto not_marks;
	}
	goto out_free;
not_marks:
	marks_report(set, "%s:%lu: not a ptbrowse marks file (the first line "
		  "should be '# ptbrowse marks v%d')", ps->fname, lineno, BM_VERSION);
	ret = -pte_bad_file;
out_free:
	free(line);
	return ret;
}

/* The path recorded on the trace line of marks file @file, if any. */
static char *marks_peek_path(const char *file, uint64_t *size, char *id, size_t idlen)
{
	char *line = NULL, *path = NULL;
	size_t cap = 0;
	struct marks_line l;
	const char *why;
	FILE *f;
	int i;

	f = marks_fopen(file);
	if (!f)
		return NULL;
	for (i = 0; i < 4 && getline(&line, &cap, f) > 0; i++) {
		if (strlen(line) > BM_LINE_MAX || marks_parse_line(line, &l, &why) < 0)
			break;
		if (l.type == BML_TRACE) {
			if (l.path)
				path = strdup(l.path);
			*size = l.size;
			snprintf(id, idlen, "%s", l.id);
			break;
		}
	}
	free(line);
	fclose(f);
	return path;
}

/* Whether marks file name @name belongs to stream @stream ("" the first). */
static int marks_same_stream(const char *name, const char *stream)
{
	const char *at = strchr(name, '@');
	size_t len;

	if (!at)
		return !stream[0];
	len = strlen(stream);
	return !strncmp(at + 1, stream, len) && !strcmp(at + 1 + len, ".marks");
}

/* Whether trace @t's first @size bytes have the identity @hex: the trace
 * only grew since then, so offsets below @size still mean the same. */
static int marks_grew_from(const struct trace *t, uint64_t size, const char *hex)
{
	struct identity old, now;

	return !identity_parse(&old, hex) && old.size == size &&
	       !identity_of_prefix(&now, t, size) && identity_same(&old, &now);
}

/* Marks files in our directory saved for the same path under another
 * identity: the file at that path changed since.  If trace @t (may be
 * NULL) only grew, adopt the newest such marks, else warn. */
static void marks_check_changed(struct marks_set *set, const struct trace *t)
{
	char dir[PATH_MAX], file[PATH_MAX + 256], id[80];
	char warn[PATH_MAX + 256] = "", grew[PATH_MAX + 256] = "";
	uint64_t size, warn_size = 0, grew_size = 0;
	struct marks_parse ps = { 0 };
	const char *base;
	struct dirent *d;
	size_t len;
	DIR *dp;
	char *path;
	FILE *f;

	marks_dirname(set->file, dir, sizeof(dir));
	base = strrchr(set->file, '/');
	base = base ? base + 1 : set->file;
	dp = opendir(dir);
	if (!dp)
		return;
	while ((d = readdir(dp))) {
		len = strlen(d->d_name);
		if (len < 7 || strcmp(d->d_name + len - 6, ".marks") ||
		    !strcmp(d->d_name, base))
			continue;
		snprintf(file, sizeof(file), "%s/%s", dir, d->d_name);
		size = 0;
		id[0] = '\0';
		path = marks_peek_path(file, &size, id, sizeof(id));
		/* Other streams of the same trace share its id. */
		if (path && id[0] && !strcmp(path, set->path) && strcmp(id, set->id)) {
			if (t && size < set->size && marks_same_stream(d->d_name, set->stream) &&
			    marks_grew_from(t, size, id)) {
				/* An earlier, shorter state of this trace. */
				if (!set->n && !set->disk.present && size > grew_size) {
					snprintf(grew, sizeof(grew), "%s", file);
					grew_size = size;
				}
			} else if (!warn[0]) {
				snprintf(warn, sizeof(warn), "%s", file);
				warn_size = size;
			}
		}
		free(path);
	}
	closedir(dp);
	if (grew[0] && (f = marks_fopen(grew))) {
		ps.fname = grew;
		marks_read(set, f, &ps);
		fclose(f);
		free(ps.trace_path);
		marks_sort(set);
		marks_report(set, "%s grew since its marks were saved (then %" PRIu64
			  " bytes, now %" PRIu64 "); they still apply", set->path,
			  grew_size, set->size);
		if (set->n)
			marks_save(set);
		return;
	}
	if (warn[0])
		marks_report(set, "warning: %s changed since marks were saved for it "
			  "(then %" PRIu64 " bytes, now %" PRIu64 "); those marks "
			  "stay in %s and are not applied", set->path, warn_size,
			  set->size, warn);
}

/* Remove temporary files left by saves of processes that died. */
static void marks_clean_tmp(struct marks_set *set)
{
	char dir[PATH_MAX], file[PATH_MAX + 256];
	const char *base;
	struct dirent *d;
	size_t blen;
	DIR *dp;

	marks_dirname(set->file, dir, sizeof(dir));
	base = strrchr(set->file, '/');
	base = base ? base + 1 : set->file;
	blen = strlen(base);
	dp = opendir(dir);
	if (!dp)
		return;
	while ((d = readdir(dp))) {
		char *end;
		long pid;

		if (strncmp(d->d_name, base, blen) ||
		    strncmp(d->d_name + blen, ".tmp.", 5))
			continue;
		pid = strtol(d->d_name + blen + 5, &end, 10);
		/* NAME.tmp.PID.N (safefile's) or NAME.tmp.PID (older) */
		if ((*end && *end != '.') || pid <= 0)
			continue;
		if (kill((pid_t)pid, 0) && errno == ESRCH) {
			snprintf(file, sizeof(file), "%s/%s", dir, d->d_name);
			unlink(file);
		}
	}
	closedir(dp);
}

/*
 * Two ptbrowse processes on one trace each rewrite the whole file, so a
 * save first merges what the other one saved since our last load or
 * save: a three-way merge against the entries as they were then (base),
 * so additions, moves and deletions on either side survive.  On a clash
 * ours wins and the other version is reported.
 */

static void marks_entries_free(struct marks_entry *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i].note);
	free(v);
}

/* The identity of @file now, or of @st (the file as it was read). */
static void marks_disk_stat(const char *file, const struct stat *stp,
			 struct marks_disk *d)
{
	struct stat st;

	memset(d, 0, sizeof(*d));
	if (stp)
		st = *stp;
	else if (stat(file, &st))
		return;
	d->present = 1;
	d->dev = st.st_dev;
	d->ino = st.st_ino;
	d->size = st.st_size;
	d->mtime = st.st_mtim;
}

static int marks_disk_same(const struct marks_disk *a, const struct marks_disk *b)
{
	if (a->present != b->present)
		return 0;
	return !a->present ||
	       (a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
		a->mtime.tv_sec == b->mtime.tv_sec &&
		a->mtime.tv_nsec == b->mtime.tv_nsec);
}

/* Record the file (@st: as it was read; NULL: as it is now) and the
 * entries as they are now: our base. */
static int marks_synced(struct marks_set *set, const struct stat *st)
{
	struct marks_entry *v = NULL;
	size_t i;

	marks_disk_stat(set->file, st, &set->disk);
	if (set->n) {
		v = calloc(set->n, sizeof(*v));
		if (!v)
			goto out_nomem;
		for (i = 0; i < set->n; i++) {
			v[i] = set->v[i];
			if (marks_dup_note(set->v[i].note, &v[i].note) < 0) {
				marks_entries_free(v, i);
				goto out_nomem;
			}
		}
	}
	marks_entries_free(set->base, set->nbase);
	set->base = v;
	set->nbase = set->n;
	return 0;
out_nomem:
	/* No base: a later merge treats everything on disk as added. */
	marks_entries_free(set->base, set->nbase);
	set->base = NULL;
	set->nbase = 0;
	return -pte_nomem;
}

/* Whether @a and @b are the same mark, bookmark or region (by name, or
 * by offset for anonymous bookmarks). */
static int marks_same_key(const struct marks_entry *a, const struct marks_entry *b)
{
	if (a->kind != b->kind || strcmp(a->name, b->name))
		return 0;
	return a->name[0] || a->from == b->from;
}

static int marks_same_value(const struct marks_entry *a, const struct marks_entry *b)
{
	return a->from == b->from && a->to == b->to &&
	       !strcmp(a->color, b->color) &&
	       !strcmp(a->note ? a->note : "", b->note ? b->note : "");
}

static long marks_lookup(const struct marks_entry *v, size_t n, const struct marks_entry *e)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (marks_same_key(&v[i], e))
			return (long)i;
	return -1;
}

/* Merge @theirs (the file now) into the set, against the base. */
static void marks_merge3(struct marks_set *set, const struct marks_entry *theirs, size_t nt)
{
	const struct marks_entry *t, *b;
	long ib, io;
	size_t i;

	for (i = 0; i < nt; i++) {
		t = &theirs[i];
		ib = marks_lookup(set->base, set->nbase, t);
		io = marks_lookup(set->v, set->n, t);
		b = ib >= 0 ? &set->base[ib] : NULL;
		if (b && marks_same_value(b, t))
			continue;		/* they did not change it */
		if (io < 0 && b)
			continue;		/* we deleted it */
		if (io < 0) {
			/* They added it; a name we gave to another kind wins. */
			if (t->name[0] && marks_find(set, t->name) >= 0)
				marks_report(set, "%s: another ptbrowse saved %s %s; "
					  "the name is taken here, kept ours",
					  set->file, marks_kind_name(t->kind), t->name);
			else if (marks_append(set, t) < 0)
				marks_report(set, "%s: another ptbrowse saved %s %s; "
					  "no room for it", set->file,
					  marks_kind_name(t->kind), t->name);
			continue;
		}
		if (b && marks_same_value(b, &set->v[io])) {
			/* Only they changed it. */
			if (!marks_replace_note(&set->v[io], t->note)) {
				set->v[io].from = t->from;
				set->v[io].to = t->to;
				strcpy(set->v[io].color, t->color);
			}
		} else if (!marks_same_value(t, &set->v[io])) {
			marks_report(set, "%s: another ptbrowse changed %s %s too; "
				  "kept this one's", set->file,
				  marks_kind_name(t->kind), t->name[0] ? t->name : "-");
		}
	}
	/* What they deleted and we left alone goes. */
	for (i = 0; i < set->nbase; i++) {
		b = &set->base[i];
		if (marks_lookup(theirs, nt, b) >= 0)
			continue;
		io = marks_lookup(set->v, set->n, b);
		if (io >= 0 && marks_same_value(b, &set->v[io]))
			marks_remove(set, (size_t)io);
	}
	marks_sort(set);
}

/* If the file changed since we last read or wrote it, merge it in.
 * Returns 0 (also when a broken file was moved aside), or -pte_io if it
 * must not be overwritten (a newer version; saving is then off). */
static int marks_sync(struct marks_set *set)
{
	struct marks_set theirs = { .file = set->file, .size = set->size,
				 .end = set->end,
				 .report = set->report,
				 .report_ctx = set->report_ctx };
	struct marks_parse ps = { .fname = set->file };
	char bad[PATH_MAX + 32];
	struct marks_disk now;
	FILE *f;
	int ret;

	marks_disk_stat(set->file, NULL, &now);
	if (marks_disk_same(&now, &set->disk) || !now.present)
		return 0;
	f = marks_fopen(set->file);
	if (!f)
		return 0;
	ret = marks_read(&theirs, f, &ps);
	fclose(f);
	if (ps.version > BM_VERSION) {
		set->saving = 0;
		marks_report(set, "%s: a newer ptbrowse wrote it; marks are no longer "
			  "saved", set->file);
		ret = -pte_io;
		goto out_free;
	}
	if (ret < 0 || ps.errors || ps.conflicts || ps.full) {
		/* Someone broke it meanwhile: keep it for them, write ours. */
		if (marks_move_aside(set->file, bad, sizeof(bad)) == 0)
			marks_report(set, "%s: kept as %s", set->file, bad);
		ret = 0;
		goto out_free;
	}
	marks_merge3(set, theirs.v, theirs.n);
	ret = 0;
out_free:
	free(ps.trace_path);
	marks_entries_free(theirs.v, theirs.n);
	return ret;
}

/* Whether @s is a plain file-name part: [A-Za-z0-9_.-], no leading dot. */
static int marks_plain(const char *s, size_t max)
{
	return marks_word(s, "_.-", 1, max) && s[0] != '.';
}

/* Load our marks file if it exists. */
static int marks_load(struct marks_set *set)
{
	struct marks_parse ps = { .fname = set->file };
	char bad[PATH_MAX + 32];
	struct stat st;
	int ret, have_st;
	size_t i;
	FILE *f;

	f = marks_fopen(set->file);
	if (!f) {
		/* ENOTDIR: a file is in the way of the directory; saving will say so. */
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		marks_report(set, "cannot read %s: %s; marks will not be saved",
			  set->file, strerror(errno));
		set->saving = 0;
		return 0;
	}
	/* The base is the file we read: another process may rename a newer
	 * one into place before we could stat the name. */
	have_st = !fstat(fileno(f), &st);
	ret = marks_read(set, f, &ps);
	fclose(f);
	marks_sort(set);
	if (ret == -pte_nomem)
		goto out_free;
	if (ret == -pte_io) {
		marks_report(set, "%s: marks will not be saved", set->file);
		set->saving = 0;
		ret = 0;
		goto out_free;
	}
	if (ps.version > BM_VERSION) {
		set->saving = 0;
		ret = 0;
		goto out_free;
	}
	if (ps.has_trace && ps.trace_size && ps.trace_size != set->size) {
		marks_report(set, "warning: %s was saved for a trace of %" PRIu64
			  " bytes, this one has %" PRIu64 "; its marks are not "
			  "applied and not overwritten", set->file, ps.trace_size,
			  set->size);
		for (i = 0; i < set->n; i++)
			free(set->v[i].note);
		set->n = 0;
		set->saving = 0;
		ret = 0;
		goto out_free;
	}
	if (ret < 0 || ps.errors || ps.conflicts || ps.full) {
		if (ps.errors > BM_ERRORS_SHOWN)
			marks_report(set, "%s: %d more bad lines", set->file,
				  ps.errors - BM_ERRORS_SHOWN);
		ret = 0;
		if (!set->saving) {
			marks_report(set, "%s: fix the lines above; loaded %d marks",
				  set->file, ps.added);
			goto out_free;
		}
		if (marks_move_aside(set->file, bad, sizeof(bad)) < 0) {
			marks_report(set, "cannot move %s aside: %s; marks will not "
				  "be saved", set->file, strerror(errno));
			set->saving = 0;
			goto out_free;
		}
		marks_report(set, "%s: kept as %s; loaded %d marks from it",
			  set->file, bad, ps.added);
		/* Write the good lines back at once so nothing depends on .bad. */
		if (set->n)
			marks_save(set);
		goto out_free;
	}
	if (marks_synced(set, have_st ? &st : NULL) < 0) {
		ret = -pte_nomem;
		goto out_free;
	}
	if (set->saving && ps.trace_path && strcmp(ps.trace_path, set->path))
		marks_save(set);	/* record the path it was opened as */
out_free:
	free(ps.trace_path);
	return ret;
}

/* marks_open(), knowing the trace @t (may be NULL) to tell growth apart. */
static int marks_open_common(struct marks_set **out, const char *id, uint64_t size,
			  uint64_t end, const char *path,
			  const struct marks_opts *opts, const struct trace *t)
{
	static const struct marks_opts defaults;
	char dir[PATH_MAX], err[PATH_MAX + 128], *real;
	struct marks_set *set;
	struct stat st;
	int ret;

	if (!opts)
		opts = &defaults;
	if (!out || !path || !marks_plain(id, sizeof(set->id)) ||
	    (opts->stream && !marks_plain(opts->stream, sizeof(set->stream))))
		return -pte_invalid;
	set = calloc(1, sizeof(*set));
	if (!set)
		return -pte_nomem;
	set->report = opts->report;
	set->report_ctx = opts->report_ctx;
	set->saving = !(opts->flags & BM_NO_STATE);
	set->size = size;
	set->end = end;
	strcpy(set->id, id);
	/* No save or export ever writes over the trace. */
	if (t || !stat(path, &st)) {
		set->trace.dev = t ? t->dev : st.st_dev;
		set->trace.ino = t ? t->ino : st.st_ino;
		set->trace.what = "the trace";
		set->ntrace = 1;
	}
	if (opts->stream)
		strcpy(set->stream, opts->stream);
	/* An absolute path makes "the same path" mean the same file. */
	real = realpath(path, NULL);
	set->path = real ? real : strdup(path);
	if (!set->path)
		goto out_nomem;
	if (opts->file) {
		set->file = strdup(opts->file);
	} else if (xdg_path(XDG_STATE, "traces", dir, sizeof(dir), err,
			    sizeof(err)) < 0) {
		/* Marks still work, in memory. */
		marks_report(set, "%s; marks are not saved", err);
		set->saving = 0;
		goto out_done;
	} else if (asprintf(&set->file, "%s/%s%s%s.marks", dir, id,
			    set->stream[0] ? "@" : "", set->stream) < 0) {
		set->file = NULL;
	}
	if (!set->file)
		goto out_nomem;
	if (set->saving)
		marks_clean_tmp(set);
	ret = marks_load(set);
	if (ret < 0)
		goto out_free;
	if (!opts->file)
		marks_check_changed(set, t);
out_done:
	*out = set;
	return 0;
out_nomem:
	ret = -pte_nomem;
out_free:
	marks_close(set);
	return ret;
}

int marks_open(struct marks_set **out, const char *id, uint64_t size,
	    const char *path, const struct marks_opts *opts)
{
	return marks_open_common(out, id, size, size, path, opts, NULL);
}

int marks_open_trace(struct marks_set **out, const struct trace *t, size_t stream,
		  const struct marks_opts *opts)
{
	struct marks_opts o = { 0 };
	char hex[IDENTITY_HEX_LEN];
	struct identity id;
	int ret;

	if (!t || stream >= t->nstreams)
		return -pte_invalid;
	ret = identity_of_trace(&id, t);
	if (ret < 0)
		return ret;
	if (opts)
		o = *opts;
	/* The first stream keeps the plain name: a raw file has only it. */
	o.stream = stream ? t->streams[stream].name : NULL;
	return marks_open_common(out, identity_hex(&id, hex), id.size,
			      t->streams[stream].img.size, t->path, &o, t);
}

void marks_close(struct marks_set *set)
{
	if (!set)
		return;
	marks_flush(set);
	marks_entries_free(set->v, set->n);
	marks_entries_free(set->base, set->nbase);
	free(set->file);
	free(set->path);
	free(set);
}

/*
 * Changes.
 */

/* Sort and save after a change. */
static int marks_changed(struct marks_set *set)
{
	marks_sort(set);
	return marks_save(set);
}

static int marks_invalid(struct marks_set *set, const char *fmt, const char *arg)
{
	marks_report(set, fmt, arg);
	return -pte_invalid;
}

static int marks_past(struct marks_set *set, uint64_t off)
{
	marks_report(set, "0x%" PRIx64 " is past the end of the trace (0x%" PRIx64
		  " bytes)", off, set->end);
	return -pte_invalid;
}

static int marks_full(struct marks_set *set)
{
	marks_report(set, "too many marks (at most %d); delete some first",
		  BM_MAX_ENTRIES);
	return -pte_nomem;
}

static int marks_note_check(struct marks_set *set, const char *note)
{
	if (note && strlen(note) >= BM_NOTE_MAX) {
		marks_report(set, "a note is at most %d bytes", BM_NOTE_MAX - 1);
		return -pte_nomem;
	}
	return 0;
}


/* Put a point entry (mark or bookmark) called @name at @off. */
static int marks_point_set(struct marks_set *set, enum marks_kind kind,
			const char *name, uint64_t off, const char *note)
{
	struct marks_entry e = { .kind = kind, .from = off, .to = off };
	long i;
	int ret;

	if (off >= set->end)
		return marks_past(set, off);
	ret = marks_note_check(set, note);
	if (ret < 0)
		return ret;
	i = marks_find(set, name);
	if (i >= 0 && set->v[i].kind != kind)
		return marks_invalid(set, "%s is already a region's name", name);
	if (i >= 0) {
		if (note && (ret = marks_replace_note(&set->v[i], note)) < 0)
			return ret;
		set->v[i].from = set->v[i].to = off;
		return marks_changed(set);
	}
	strcpy(e.name, name);
	e.note = (char *)note;
	ret = marks_append(set, &e);
	if (ret < 0)
		return set->n >= BM_MAX_ENTRIES ? marks_full(set) : ret;
	return marks_changed(set);
}

int marks_mark_set(struct marks_set *set, char letter, uint64_t off, const char *note)
{
	char name[2] = { letter, '\0' };

	if (!set)
		return -pte_invalid;
	if (!marks_is_letter(name))
		return marks_invalid(set, "a mark is a letter a-z or A-Z, not '%s'", name);
	return marks_point_set(set, BM_MARK, name, off, note);
}

int marks_bookmark_set(struct marks_set *set, const char *name, uint64_t off,
		    const char *note)
{
	if (!set || !name)
		return -pte_invalid;
	if (!marks_name_ok(name))
		return marks_invalid(set, "bad name '%s' (2-63 of A-Z a-z 0-9 _ . -, "
				  "starting with a letter or _)", name);
	return marks_point_set(set, BM_BOOKMARK, name, off, note);
}

int marks_toggle(struct marks_set *set, uint64_t off)
{
	struct marks_entry e = { .kind = BM_BOOKMARK, .from = off, .to = off };
	long i;
	int ret;

	if (!set)
		return -pte_invalid;
	if (off >= set->end)
		return marks_past(set, off);
	i = marks_find_at(set, BM_BOOKMARK, off);
	if (i >= 0 && !set->v[i].name[0]) {
		marks_remove(set, (size_t)i);
		ret = marks_changed(set);
		return ret < 0 ? ret : 0;
	}
	ret = marks_append(set, &e);
	if (ret < 0)
		return set->n >= BM_MAX_ENTRIES ? marks_full(set) : ret;
	ret = marks_changed(set);
	return ret < 0 ? ret : 1;
}

int marks_region_set(struct marks_set *set, const char *name, uint64_t from,
		  uint64_t to, const char *note, const char *color)
{
	struct marks_entry e = { .kind = BM_REGION };
	uint64_t t;
	long i;
	int ret;

	if (!set || !name)
		return -pte_invalid;
	if (!marks_name_ok(name))
		return marks_invalid(set, "bad region name '%s' (2-63 of A-Z a-z 0-9 _ . -, "
				  "starting with a letter or _)", name);
	if (from > to) {
		t = from;
		from = to;
		to = t;
	}
	if (from == to)
		return marks_invalid(set, "region %s would be empty", name);
	if (to > set->end)
		return marks_past(set, to - 1);
	if (color && *color && !marks_color_ok(color))
		return marks_invalid(set, "bad colour '%s'", color);
	ret = marks_note_check(set, note);
	if (ret < 0)
		return ret;
	i = marks_find(set, name);
	if (i >= 0 && set->v[i].kind != BM_REGION)
		return marks_invalid(set, "%s is already a bookmark's name", name);
	if (i >= 0) {
		if (note && (ret = marks_replace_note(&set->v[i], note)) < 0)
			return ret;
		if (color)
			snprintf(set->v[i].color, BM_COLOR_MAX, "%s", color);
		set->v[i].from = from;
		set->v[i].to = to;
		return marks_changed(set);
	}
	strcpy(e.name, name);
	e.from = from;
	e.to = to;
	e.note = (char *)note;
	if (color)
		snprintf(e.color, BM_COLOR_MAX, "%s", color);
	ret = marks_append(set, &e);
	if (ret < 0)
		return set->n >= BM_MAX_ENTRIES ? marks_full(set) : ret;
	return marks_changed(set);
}

int marks_delete(struct marks_set *set, size_t i)
{
	if (!set || i >= set->n)
		return -pte_invalid;
	marks_remove(set, i);
	return marks_changed(set);
}

int marks_rename(struct marks_set *set, size_t i, const char *name)
{
	struct marks_entry *e;
	long j;

	if (!set || !name || i >= set->n)
		return -pte_invalid;
	e = &set->v[i];
	if (e->kind == BM_BOOKMARK && (!*name || !strcmp(name, "-"))) {
		e->name[0] = '\0';
		return marks_changed(set);
	}
	if (e->kind == BM_MARK ? !marks_is_letter(name) : !marks_name_ok(name))
		return marks_invalid(set, e->kind == BM_MARK ?
				  "a mark is a letter a-z or A-Z, not '%s'" :
				  "bad name '%s' (2-63 of A-Z a-z 0-9 _ . -, "
				  "starting with a letter or _)", name);
	j = marks_find(set, name);
	if (j >= 0 && (size_t)j != i)
		return marks_invalid(set, "%s already exists", name);
	snprintf(e->name, sizeof(e->name), "%s", name);
	return marks_changed(set);
}

int marks_set_note(struct marks_set *set, size_t i, const char *note)
{
	int ret;

	if (!set || i >= set->n)
		return -pte_invalid;
	ret = marks_note_check(set, note);
	if (ret < 0)
		return ret;
	ret = marks_replace_note(&set->v[i], note);
	if (ret < 0)
		return ret;
	return marks_changed(set);
}

int marks_set_color(struct marks_set *set, size_t i, const char *color)
{
	if (!set || i >= set->n || set->v[i].kind != BM_REGION)
		return -pte_invalid;
	if (color && *color && !marks_color_ok(color))
		return marks_invalid(set, "bad colour '%s'", color);
	snprintf(set->v[i].color, BM_COLOR_MAX, "%s", color ? color : "");
	return marks_changed(set);
}

int marks_import(struct marks_set *set, FILE *f, const char *fname)
{
	struct marks_parse ps = { .fname = fname ? fname : "(import)" };
	int ret;

	if (!set || !f)
		return -pte_invalid;
	ret = marks_read(set, f, &ps);
	marks_sort(set);
	if (ret < 0)
		goto out_free;
	if (ps.has_trace && ps.trace_id[0] && strcmp(ps.trace_id, set->id))
		marks_report(set, "warning: %s holds marks of another trace (id %s); "
			  "merged anyway", ps.fname, ps.trace_id);
	if (ps.dropped)
		marks_report(set, "%s: imported %d marks; %lu more lines of marks not "
			  "imported (at most %d marks per trace), %d conflicts, "
			  "%d bad lines",
			  ps.fname, ps.added, ps.dropped, BM_MAX_ENTRIES,
			  ps.conflicts, ps.errors);
	else
		marks_report(set, "%s: imported %d marks, %d conflicts, %d bad lines",
			  ps.fname, ps.added, ps.conflicts, ps.errors);
	if (ps.changed && marks_save(set) < 0)
		ret = -pte_io;
	else if (ps.full)
		ret = -pte_nomem;
	else
		ret = ps.conflicts;
out_free:
	free(ps.trace_path);
	return ret;
}

int marks_export_path(struct marks_set *set, const char *path)
{
	/* Never over a file that is not a marks file: the trace, given in
	 * the wrong order, is not one. */
	static const struct safefile_opts o = {
		.mode = 0644,	/* exports are for sharing; the state is private */
		.magic = "# ptbrowse marks",
		.kind = "a marks file",
	};
	char err[2 * PATH_MAX + 64];
	struct stat sb;

	if (!set || !path)
		return -pte_invalid;
	if (!*path) {
		marks_report(set, "marks not exported: empty file name");
		return -pte_invalid;
	}
	/* Never into a directory that is not there (marks_write would make it). */
	marks_dirname(path, err, sizeof(err));
	if (stat(err, &sb) < 0 || !S_ISDIR(sb.st_mode)) {
		marks_report(set, "marks not exported: %s: no such directory", err);
		return -pte_io;
	}
	if (marks_write(set, path, &o, err, sizeof(err)) < 0) {
		marks_report(set, "marks not exported: %s", err);
		return -pte_io;
	}
	marks_report(set, "exported %zu marks to %s", set->n, path);
	return 0;
}

int marks_import_path(struct marks_set *set, const char *path)
{
	FILE *f;
	int ret;

	if (!set || !path)
		return -pte_invalid;
	if (!*path) {
		marks_report(set, "marks not imported: empty file name");
		return -pte_invalid;
	}
	f = marks_fopen(path);
	if (!f) {
		marks_report(set, "cannot read %s: %s", path, safefile_strerror(errno));
		return -pte_io;
	}
	ret = marks_import(set, f, path);
	fclose(f);
	return ret;
}

/*
 * Navigation.
 */

long marks_next(const struct marks_set *set, uint64_t off, int dir, unsigned int kinds)
{
	size_t i;

	if (!set || !dir)
		return -1;
	if (dir > 0) {
		for (i = 0; i < set->n; i++)
			if (set->v[i].from > off && (kinds & (1u << set->v[i].kind)))
				return (long)i;
		return -1;
	}
	for (i = set->n; i-- > 0;)
		if (set->v[i].from < off && (kinds & (1u << set->v[i].kind)))
			return (long)i;
	return -1;
}

int marks_resolve(const struct marks_set *set, const char *spec, int end, uint64_t *off)
{
	char name[BM_NAME_MAX];
	const char *dot;
	size_t len;
	long i;

	if (!spec || !off)
		return -pte_invalid;
	if (!marks_parse_off(spec, off))
		return 0;
	i = marks_find(set, spec);
	if (i < 0 && (dot = strrchr(spec, '.')) &&
	    (!strcmp(dot, ".start") || !strcmp(dot, ".end"))) {
		len = (size_t)(dot - spec);
		if (len >= sizeof(name))
			return -pte_invalid;
		memcpy(name, spec, len);
		name[len] = '\0';
		i = marks_find(set, name);
		end = !strcmp(dot, ".end");
	}
	if (i < 0)
		return -pte_invalid;
	*off = end ? set->v[i].to : set->v[i].from;
	return 0;
}

/*
 * The jump list.
 */

static void marks_history_append(struct marks_set *set, uint64_t off)
{
	if (set->nhist && set->hist[set->nhist - 1] == off)
		return;
	if (set->nhist == BM_HISTORY_MAX) {
		memmove(set->hist, set->hist + 1,
			(BM_HISTORY_MAX - 1) * sizeof(set->hist[0]));
		set->nhist--;
	}
	set->hist[set->nhist++] = off;
}

void marks_history_push(struct marks_set *set, uint64_t off)
{
	if (!set)
		return;
	/* A new jump from the middle of the list drops what was ahead. */
	if (set->hpos < set->nhist)
		set->nhist = set->hpos;
	marks_history_append(set, off);
	set->hpos = set->nhist;
}

int marks_history_step(struct marks_set *set, uint64_t cur, int dir, uint64_t *off)
{
	if (!set || !off)
		return -pte_invalid;
	if (dir < 0) {
		if (set->hpos == 0 || !set->nhist)
			return -pte_eos;
		if (set->hpos == set->nhist) {
			/* Leave the tip: remember it so forward comes back. */
			marks_history_append(set, cur);
			set->hpos = set->nhist - 1;
			if (set->hpos == 0)
				return -pte_eos;
		}
		*off = set->hist[--set->hpos];
		return 0;
	}
	if (set->hpos + 1 >= set->nhist)
		return -pte_eos;
	*off = set->hist[++set->hpos];
	return 0;
}

int marks_history_last(struct marks_set *set, uint64_t cur, uint64_t *off)
{
	if (!set || !off)
		return -pte_invalid;
	if (!set->nhist)
		return -pte_eos;
	set->hpos = set->nhist;
	*off = set->hist[set->nhist - 1];
	marks_history_push(set, cur);
	return 0;
}
