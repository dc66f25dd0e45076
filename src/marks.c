/* marks -- the set of marks, bookmarks and regions of a trace: entries,
 * names, notes, colours, lookups and changes (marks_int.h has the map). */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "identity.h"
#include "marks_int.h"
#include "ptdec.h"
#include "trace.h"
#include "xdg.h"

void marks_report(struct marks_set *set, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(set->msg, sizeof(set->msg), fmt, ap);
	va_end(ap);
	if (set->report)
		set->report(set->report_ctx, set->msg);
}

void marks_saving_off(struct marks_set *set, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(set->why, sizeof(set->why), fmt, ap);
	va_end(ap);
	set->saving = 0;
}

/*
 * Names, offsets, notes.
 */

int marks_is_letter(const char *s)
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

int marks_name_ok(const char *s)
{
	return marks_word(s, "_.-", 2, BM_NAME_MAX) &&
	       (isalpha((unsigned char)s[0]) || s[0] == '_');
}

int marks_color_ok(const char *s)
{
	return marks_word(s, "_-", 1, BM_COLOR_MAX);
}

/* Whether @s is a plain file-name part: [A-Za-z0-9_.-], no leading dot. */
int marks_plain(const char *s, size_t max)
{
	return marks_word(s, "_.-", 1, max) && s[0] != '.';
}

const char *marks_kind_name(enum marks_kind kind)
{
	return kind == BM_MARK ? "mark" : kind == BM_BOOKMARK ? "bookmark" : "region";
}

/* Parse a 0x-hex or decimal offset; the whole string must be used. */
int marks_parse_off(const char *s, uint64_t *off)
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

void marks_sort(struct marks_set *set)
{
	if (set->n)
		qsort(set->v, set->n, sizeof(set->v[0]), marks_cmp);
}

int marks_dup_note(const char *note, char **out)
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
int marks_replace_note(struct marks_entry *e, const char *note)
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
int marks_append(struct marks_set *set, const struct marks_entry *e)
{
	struct marks_entry *v;
	int ret;

	/* (with those kept past the end: the file holds both) */
	if (set->n + set->nbeyond >= BM_MAX_ENTRIES)
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

static void marks_comment_drop(struct marks_set *set, const struct marks_entry *e);

void marks_remove(struct marks_set *set, size_t i)
{
	marks_comment_drop(set, &set->v[i]);
	free(set->v[i].note);
	memmove(&set->v[i], &set->v[i + 1], (set->n - i - 1) * sizeof(set->v[0]));
	set->n--;
}

static int marks_comment_same(const struct marks_comment *c, const struct marks_entry *e)
{
	return c->kind == e->kind && !strcmp(c->name, e->name) &&
	       (e->name[0] || c->from == e->from);
}

struct marks_comment *marks_comment_of(const struct marks_set *set,
				       const struct marks_entry *e)
{
	size_t i;

	for (i = 0; i < set->ncm; i++)
		if (marks_comment_same(&set->cm[i], e))
			return &set->cm[i];
	return NULL;
}

int marks_comment_add(struct marks_set *set, const struct marks_entry *e,
		      const char *before, const char *after)
{
	struct marks_comment *v, c = { 0 };

	if ((!before && !after) || marks_comment_of(set, e))
		return 0;
	v = realloc(set->cm, (set->ncm + 1) * sizeof(*v));
	if (!v)
		return -pte_nomem;
	set->cm = v;
	marks_comment_rekey(&c, e);
	c.before = before ? strdup(before) : NULL;
	c.after = after ? strdup(after) : NULL;
	if ((before && !c.before) || (after && !c.after)) {
		free(c.before);
		free(c.after);
		return -pte_nomem;
	}
	set->cm[set->ncm++] = c;
	return 0;
}

void marks_comment_rekey(struct marks_comment *c, const struct marks_entry *e)
{
	c->kind = e->kind;
	strcpy(c->name, e->name);
	c->from = e->from;
}

/* Drop entry @e's comments: they go with it. */
static void marks_comment_drop(struct marks_set *set, const struct marks_entry *e)
{
	struct marks_comment *c = marks_comment_of(set, e);

	if (!c)
		return;
	free(c->before);
	free(c->after);
	*c = set->cm[--set->ncm];
}

void marks_comments_clear(struct marks_set *set)
{
	size_t i;

	for (i = 0; i < set->ncm; i++) {
		free(set->cm[i].before);
		free(set->cm[i].after);
	}
	free(set->cm);
	free(set->cm_head);
	free(set->cm_trace);
	free(set->cm_tail);
	set->cm = NULL;
	set->ncm = 0;
	set->cm_head = set->cm_trace = set->cm_tail = NULL;
}

void marks_entries_free(struct marks_entry *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i].note);
	free(v);
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

const char *marks_warning(struct marks_set *set)
{
	static char buf[sizeof(set->warn)];

	if (!set || !set->warn[0])
		return NULL;
	memcpy(buf, set->warn, sizeof(buf));
	set->warn[0] = '\0';
	return buf;
}

int marks_saving(const struct marks_set *set)
{
	return set && set->saving;
}

/*
 * Open and close.
 */

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
	set->one_shot = !!(opts->flags & BM_ONE_SHOT);
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
	if (t && set->stream[0] && !opts->file)
		marks_legacy_file(set, t);
	if ((opts->flags & BM_IF_FILE) && access(set->file, F_OK)) {
		marks_close(set);
		*out = NULL;
		return 0;
	}
	if (set->saving)
		marks_clean_tmp(set);
	ret = marks_load(set);
	if (ret < 0)
		goto out_free;
	if (t && set->stream[0] && !opts->file)
		marks_legacy_merge(set, t);
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
	/* A raw trace's one stream has the plain name.  Every stream of a
	 * perf.data names its file, the first too: the file may grow a
	 * stream numbered before it (a new CPU), which a nameless file would
	 * be taken for. */
	o.stream = t->kind == TRACE_RAW ? NULL : t->streams[stream].name;
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
	marks_entries_free(set->beyond, set->nbeyond);
	marks_comments_clear(set);
	free(set->file);
	free(set->path);
	free(set);
}

/*
 * Changes.
 */

int marks_changed(struct marks_set *set)
{
	marks_sort(set);
	if (!set->saving && set->why[0])
		set->lost = 1;
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
	if (set->nbeyond)
		marks_report(set, "too many marks (at most %d, with the %zu past the "
			  "end of this state of the trace that its file keeps for "
			  "longer ones); delete some first", BM_MAX_ENTRIES,
			  set->nbeyond);
	else
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


/* The entry kept past the end (another state's) called @name, or -1. */
static long marks_beyond_find(const struct marks_set *set, const char *name)
{
	size_t i;

	for (i = 0; i < set->nbeyond; i++)
		if (!strcmp(set->beyond[i].name, name))
			return (long)i;
	return -1;
}

/* Whether @name may be given to an entry of @kind here: if a longer
 * state's entry past the end holds it, one of the same kind moves here
 * (it goes), one of another kind keeps it (said).  Returns 0 or
 * -pte_invalid. */
static int marks_beyond_take(struct marks_set *set, enum marks_kind kind, const char *name)
{
	long j = name[0] ? marks_beyond_find(set, name) : -1;

	if (j < 0)
		return 0;
	if (set->beyond[j].kind != kind) {
		marks_report(set, "%s is the name of a %s past the end of this state of "
			  "the trace (a longer one's)", name,
			  marks_kind_name(set->beyond[j].kind));
		return -pte_invalid;
	}
	free(set->beyond[j].note);
	set->beyond[j] = set->beyond[--set->nbeyond];
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
	if (i < 0 && (ret = marks_beyond_take(set, kind, name)) < 0)
		return ret;
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
		return set->n + set->nbeyond >= BM_MAX_ENTRIES ? marks_full(set) : ret;
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
		return set->n + set->nbeyond >= BM_MAX_ENTRIES ? marks_full(set) : ret;
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
	if (i < 0 && (ret = marks_beyond_take(set, BM_REGION, name)) < 0)
		return ret;
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
		return set->n + set->nbeyond >= BM_MAX_ENTRIES ? marks_full(set) : ret;
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
	struct marks_comment *c;
	struct marks_entry *e;
	long j;

	if (!set || !name || i >= set->n)
		return -pte_invalid;
	e = &set->v[i];
	c = marks_comment_of(set, e);	/* its comments go with it */
	if (e->kind == BM_BOOKMARK && (!*name || !strcmp(name, "-"))) {
		e->name[0] = '\0';
		if (c)
			marks_comment_rekey(c, e);
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
	if (marks_beyond_take(set, e->kind, name) < 0)
		return -pte_invalid;
	snprintf(e->name, sizeof(e->name), "%s", name);
	if (c)
		marks_comment_rekey(c, e);
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

int marks_keep_beyond(struct marks_set *set, const struct marks_entry *e)
{
	struct marks_entry *v;

	if (set->n + set->nbeyond >= BM_MAX_ENTRIES)
		return -pte_nomem;
	v = realloc(set->beyond, (set->nbeyond + 1) * sizeof(*v));
	if (!v)
		return -pte_nomem;
	set->beyond = v;
	v[set->nbeyond] = *e;
	if (marks_dup_note(e->note, &v[set->nbeyond].note) < 0)
		return -pte_nomem;
	set->nbeyond++;
	return 0;
}

int marks_grow(struct marks_set *set, uint64_t end)
{
	size_t i, k = 0;
	int moved = 0;

	if (!set || end < set->end)
		return -pte_invalid;
	set->end = end;
	/* The marks of the longer state this one grew into are ours now
	 * (one of the same name here was set later: it stays). */
	for (i = 0; i < set->nbeyond; i++) {
		struct marks_entry *e = &set->beyond[i];
		long at = e->name[0] ? marks_find(set, e->name) :
				       marks_find_at(set, BM_BOOKMARK, e->from);

		if (e->kind == BM_REGION ? e->to > end : e->from >= end) {
			set->beyond[k++] = *e;
			continue;
		}
		if (at < 0 && marks_append(set, e) < 0) {
			set->beyond[k++] = *e;	/* full: still written back */
			continue;
		}
		moved |= at < 0;
		free(e->note);
	}
	set->nbeyond = k;
	if (moved)
		marks_sort(set);
	return 0;
}

/* Report an entry of @what that marks_merge() does not add (@why), the
 * first BM_ERRORS_SHOWN one by one. */
static void marks_merge_skip(struct marks_set *set, const char *what,
			     const struct marks_entry *e, const char *why, size_t *nskip)
{
	if (++*nskip > BM_ERRORS_SHOWN)
		return;
	if (e->kind == BM_REGION)
		marks_report(set, "%s: region %s 0x%" PRIx64 "-0x%" PRIx64 " %s",
			  what, e->name, e->from, e->to, why);
	else
		marks_report(set, "%s: %s %s at 0x%" PRIx64 " %s", what,
			  marks_kind_name(e->kind), e->name[0] ? e->name : "-",
			  e->from, why);
}

int marks_merge(struct marks_set *set, const struct marks_set *from, const char *what)
{
	const struct marks_entry *e;
	struct marks_entry *o;
	size_t i, nskip = 0;
	int changed = 0, ret = 0;
	char why[96];
	long j;

	if (!set || !from || !what)
		return -pte_invalid;
	snprintf(why, sizeof(why), "is past the end (0x%" PRIx64 " bytes) now; not kept",
		 set->end);
	for (i = 0; i < from->n && !ret; i++) {
		e = &from->v[i];
		if (e->kind == BM_REGION ? e->to > set->end : e->from >= set->end) {
			marks_merge_skip(set, what, e, why, &nskip);
			continue;
		}
		j = e->name[0] ? marks_find(set, e->name) : marks_find_at(set, BM_BOOKMARK, e->from);
		if (j >= 0 && !e->name[0] && set->v[j].name[0])
			j = -1;		/* a named bookmark there is no anonymous one */
		if (j < 0) {
			const struct marks_comment *c = marks_comment_of(from, e);

			ret = marks_append(set, e);
			changed += !ret;
			if (!ret && c)
				marks_comment_add(set, e, c->before, c->after);
			continue;
		}
		o = &set->v[j];
		if (o->kind != e->kind || o->from != e->from || o->to != e->to) {
			marks_merge_skip(set, what, e, "clashes with the one of its name "
					 "here; not kept", &nskip);
			continue;
		}
		if (!o->note && e->note && !marks_dup_note(e->note, &o->note))
			changed++;
		if (!o->color[0] && e->color[0]) {
			strcpy(o->color, e->color);
			changed++;
		}
	}
	if (ret < 0 && set->n >= BM_MAX_ENTRIES)
		marks_full(set);
	if (nskip > BM_ERRORS_SHOWN)
		marks_report(set, "%s: %zu entries not kept (the first %d said why)",
			  what, nskip, BM_ERRORS_SHOWN);
	if (changed && marks_changed(set) < 0 && !ret)
		ret = -pte_io;
	return ret < 0 ? ret : (int)nskip;
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
