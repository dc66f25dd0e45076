/* marks_file -- the marks file format: lines parsed and written, notes
 * quoted, a file read into a set, import and export (marks_int.h). */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "esc.h"
#include "marks_int.h"
#include "ptdec.h"
#include "safefile.h"
#include "tok.h"
#include "xdg.h"

/*
 * Lines.
 */


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
			} else if (!strncmp(tok[i], "grown=", 6) &&
				   !marks_parse_off(tok[i] + 6, &l->grown)) {
				/* (marks_check_changed()) */
			} else if (!strncmp(tok[i], "id=", 3) &&
				   strlen(tok[i] + 3) < sizeof(l->id)) {
				strcpy(l->id, tok[i] + 3);
			} else if (!strncmp(tok[i], "path=", 5)) {
				l->path = tok[i] + 5;
			} else if (!strncmp(tok[i], "stream=", 7)) {
				/* the file name says it too, but an older
				 * first stream's file has no name (see
				 * marks_legacy_file()) */
				if (marks_plain(tok[i] + 7, sizeof(l->stream)))
					strcpy(l->stream, tok[i] + 7);
			} else {
				*why = "bad trace field (size=N grown=N id=ID stream=S "
				       "path=\"...\")";
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
 * Writing.
 */

/* Entry @e's line, with the comments @set keeps for it. */
static void marks_put_entry(const struct marks_set *set, FILE *f,
			    const struct marks_entry *e)
{
	static const char *const kw[] = { "mark", "bookmark", "region" };
	const struct marks_comment *c = marks_comment_of(set, e);

	if (c && c->before)
		fputs(c->before, f);
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
	if (c && c->after)
		fputs(c->after, f);
	fputc('\n', f);
}

/* The set's file as marks_write() writes it: with its entries past the
 * end if @beyond (an export has only those this trace shows). */
static void marks_put_all(const struct marks_set *set, FILE *f, int beyond)
{
	size_t i;

	fprintf(f, "# ptbrowse marks v%d\n", BM_VERSION);
	if (set->cm_head)
		fputs(set->cm_head, f);
	fprintf(f, "trace size=%" PRIu64 " id=%s", set->size, set->id);
	if (beyond && set->grown > set->size)
		fprintf(f, " grown=%" PRIu64, set->grown);
	if (set->stream[0])
		fprintf(f, " stream=%s", set->stream);
	fputs(" path=", f);
	marks_put_quoted(f, set->path);
	if (set->cm_trace)
		fputs(set->cm_trace, f);
	fputc('\n', f);
	for (i = 0; i < set->n; i++)
		marks_put_entry(set, f, &set->v[i]);
	/* (an export's tail, when comments at the end end it there) */
	if (!beyond)
		goto out_tail;
	/* (one of a name set here since is the same mark, moved) */
	for (i = 0; i < set->nbeyond; i++) {
		const struct marks_entry *e = &set->beyond[i];

		if ((e->name[0] ? marks_find(set, e->name) :
				  marks_find_at(set, BM_BOOKMARK, e->from)) < 0)
			marks_put_entry(set, f, e);
	}
out_tail:
	if (set->cm_tail)
		fputs(set->cm_tail, f);
}

int marks_export(const struct marks_set *set, FILE *f)
{
	if (!set || !f)
		return -pte_invalid;
	marks_put_all(set, f, 0);
	return fflush(f) || ferror(f) ? -pte_io : 0;
}

/* The directory part of @file, in @buf. */
void marks_dirname(const char *file, char *buf, size_t size)
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
int marks_write(const struct marks_set *set, const char *file,
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
	/* (an export elsewhere has only what this trace shows) */
	marks_put_all(set, out, set->file && !strcmp(file, set->file));
	return safefile_commit(f, err, errlen) < 0 ? -pte_io : 0;
}

/*
 * Reading.
 */

static void marks_parse_error(struct marks_set *set, struct marks_parse *ps,
			   unsigned long lineno, const char *why)
{
	if (!ps->errors)
		ps->first_error = lineno;
	if (++ps->errors <= BM_ERRORS_SHOWN)
		marks_report(set, "%s:%lu: %s", ps->fname, lineno, why);
}

/* Whether entry @e of line @lineno lies past the end of the stream: then
 * it is kept aside if @ps reads our own file (a longer state's mark), else
 * a bad line (reported), as nothing there can be shown. */
static int marks_past_end(struct marks_set *set, struct marks_parse *ps,
		       unsigned long lineno, const struct marks_entry *e)
{
	char why[BM_NAME_MAX + 160];

	if (e->kind == BM_REGION ? e->to <= set->end : e->from < set->end)
		return 0;
	if (ps->keep_beyond) {
		if (marks_keep_beyond(set, e) < 0) {
			/* (saving it would drop the rest: as a full set) */
			if (!ps->full)
				marks_report(set, "%s:%lu: out of room for marks past "
					  "the end", ps->fname, lineno);
			ps->full = 1;
		} else if (ps->keep_beyond > 1 && ++ps->beyond <= BM_ERRORS_SHOWN) {
			if (e->kind == BM_REGION)
				snprintf(why, sizeof(why), "region %s ends at 0x%" PRIx64
					 ", past the end of the trace", e->name, e->to);
			else
				snprintf(why, sizeof(why), "%s %s at 0x%" PRIx64 " is past "
					 "the end of the trace", marks_kind_name(e->kind),
					 e->name[0] ? e->name : "-", e->from);
			/* Only a file a longer state shared says grown=; else
			 * it may be a typo, which stays until fixed by hand. */
			marks_report(set, "%s:%lu: %s (0x%" PRIx64 " bytes): kept in the "
				  "file, not shown%s", ps->fname, lineno, why, set->end,
				  ps->trace_grown > ps->trace_size ?
				  " (for a longer state of the trace)" :
				  " (no longer state of the trace has saved there: if "
				  "it is a typo, fix or delete the line)");
		}
		return 1;
	}
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

/* Add entry @e of line @lineno to the set: new, or completing the same
 * entry's note and colour, or a conflict (reported; ours is kept). */
static void marks_read_entry(struct marks_set *set, struct marks_parse *ps,
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
FILE *marks_fopen(const char *path)
{
	return safefile_fopen_read(path, BM_FILE_MAX);
}

/* The comment that ends @line, from the blanks before its '#' to the end
 * of the line (not included), copied; NULL if none (or out of memory). */
static char *marks_line_comment(const char *line)
{
	size_t at = tok_comment(line, TOK_MARKS), start = at, end = strlen(line);

	if (line[at] != '#')
		return NULL;
	while (start && (line[start - 1] == ' ' || line[start - 1] == '\t'))
		start--;
	while (end > at && (line[end - 1] == '\n' || line[end - 1] == '\r'))
		end--;
	/* No blank before its '#' (a CR there): one, or written back after
	 * the entry the '#' would join its last field. */
	if (start == at && at) {
		char *c = malloc(end - at + 2);

		if (c) {
			c[0] = ' ';
			memcpy(c + 1, line + at, end - at);
			c[end - at + 1] = '\0';
		}
		return c;
	}
	return strndup(line + start, end - start);
}

/* Append @text and a newline to *@buf (malloc'd, NULL at first). */
static void marks_cm_append(char **buf, const char *text)
{
	size_t had = *buf ? strlen(*buf) : 0, len = strlen(text);
	char *nb = realloc(*buf, had + len + 2);

	if (!nb)
		return;		/* (a comment lost to no memory) */
	memcpy(nb + had, text, len);
	nb[had + len] = '\n';
	nb[had + len + 1] = '\0';
	*buf = nb;
}

/* Keep the comments of line @l (its trailing one @cmt, the lines before
 * it *@pending) as the file's: our own file's (ps->keep_beyond) lines
 * before the trace line and its comment, and an entry's, in any file
 * (an import's too: they come with its entries). */
static void marks_read_comments(struct marks_set *set, struct marks_parse *ps,
				const struct marks_line *l, char **pending, char *cmt)
{
	if (l->type == BML_BLANK) {
		marks_cm_append(pending, cmt ? cmt : "");
		free(cmt);
		return;
	}
	if (l->type == BML_TRACE && ps->keep_beyond && !set->cm_head && !set->cm_trace) {
		set->cm_head = *pending;
		set->cm_trace = cmt;
		*pending = cmt = NULL;
	} else if (l->type == BML_ENTRY) {
		marks_comment_add(set, &l->e, *pending, cmt);
	}
	free(*pending);
	free(cmt);
	*pending = NULL;
}

/* Line by line; before the header a bad line means "not a marks file". */
int marks_read(struct marks_set *set, FILE *f, struct marks_parse *ps)
{
	unsigned long lineno = 0;
	char *line = NULL, *pending = NULL, *cmt;
	size_t cap = 0;
	ssize_t len;
	struct marks_line l;
	const char *why;
	int ret = 0;

	while ((len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		/* Before the header a line that cannot be one is not a marks
		 * file at all (a binary: arguments swapped), said once. */
		if (!ps->version && (len > BM_LINE_MAX || (size_t)len != strlen(line)))
			goto not_marks;
		if (len > BM_LINE_MAX) {
			marks_parse_error(set, ps, lineno, "line too long");
			continue;
		}
		if ((size_t)len != strlen(line)) {
			marks_parse_error(set, ps, lineno, "a NUL byte in the line");
			continue;
		}
		/* (the line is split in place: its comment first) */
		cmt = ps->version ? marks_line_comment(line) : NULL;
		if (marks_parse_line(line, &l, &why) < 0) {
			free(cmt);
			if (!ps->version)
				goto not_marks;
			marks_parse_error(set, ps, lineno, why);
			continue;
		}
		if (ps->version)
			marks_read_comments(set, ps, &l, &pending, cmt);
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
			ps->trace_grown = l.grown;
			snprintf(ps->trace_id, sizeof(ps->trace_id), "%s", l.id);
			free(ps->trace_path);
			ps->trace_path = l.path ? strdup(l.path) : NULL;
			break;
		case BML_ENTRY:
			if (marks_past_end(set, ps, lineno, &l.e))
				break;
			marks_read_entry(set, ps, lineno, &l.e);
			break;
		}
	}
	/* Comments at the end stay at the end. */
	if (pending && ps->keep_beyond && !set->cm_tail) {
		set->cm_tail = pending;
		pending = NULL;
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
	free(pending);
	free(line);
	return ret;
}

int marks_peek(const char *file, struct marks_peek *pk)
{
	char *line = NULL;
	size_t cap = 0;
	struct marks_line l;
	const char *why;
	FILE *f;
	int i;

	memset(pk, 0, sizeof(*pk));
	f = marks_fopen(file);
	if (!f)
		return -1;
	for (i = 0; i < 4 && getline(&line, &cap, f) > 0; i++) {
		if (strlen(line) > BM_LINE_MAX || marks_parse_line(line, &l, &why) < 0)
			break;
		if (l.type == BML_TRACE) {
			if (l.path)
				pk->path = strdup(l.path);
			pk->size = l.size;
			pk->grown = l.grown;
			strcpy(pk->id, l.id);
			strcpy(pk->stream, l.stream);
			break;
		}
	}
	free(line);
	fclose(f);
	return pk->path ? 0 : -1;
}

/*
 * Import and export.
 */

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
	if (ps.changed && set->one_shot && !set->saving) {
		/* marks_save() succeeds when saving is off: a command's set
		 * is closed now, so what it read is lost. */
		if (set->why[0])
			marks_report(set, "marks not saved: %s", set->why);
		else
			marks_report(set, "marks not saved: %s is not written (said above)",
				     set->file ? set->file : "the marks file");
		ret = -pte_io;
	} else if (ps.changed && marks_changed(set) < 0)
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
