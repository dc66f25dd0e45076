/* marks_ui -- the mark and region commands, the visual selection, the
 * region bands of the panes. */
#include <ctype.h>
#include <curses.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "export.h"
#include "export_job.h"
#include "goto.h"
#include "goto_ui.h"
#include "marks.h"
#include "marks_ui.h"
#include "msg.h"
#include "nav.h"
#include "safefile.h"
#include "screen.h"
#include "trace.h"
#include "ui.h"

/* The longest goto target of FROM TO words joined. */
#define MU_TOKLEN 1024
/* A colour pair of our own for the bands, past screen.c's. */
#define MU_PAIR_REGION (SC_NCOLORS + 4)
#define MU_PAIR_VISUAL (SC_NCOLORS + 5)

/* The state of this module (one browser per process). */
static struct {
	int visual;			/* a selection is active */
	uint64_t anchor;		/* where it started */
	int pairs;			/* our colour pairs are set up */
	int have_push;			/* the emacs mark */
	uint64_t push;
} mu;

/* The marks are off (--no-state and nothing loaded, or no memory). */
int marks_ui_no_marks(struct ui *ui)
{
	if (ui->bm)
		return 0;
	msg_report(ui, UI_WARN, "marks are off (no marks file)");
	return 1;
}

/* Say what a change did: the set's message on failure (a failed save
 * keeps the marks in memory), else @ok, with the save's warning if it
 * gave one (a hand-edited file set aside: @ok alone would hide it). */
int marks_ui_result(struct ui *ui, int r, const char *ok)
{
	const char *m = marks_message(ui->bm);
	const char *w = ui->bm ? marks_warning(ui->bm) : NULL;

	if (r == -pte_io)
		msg_report(ui, UI_ERROR, "%s", m ? m : "marks not saved (kept in memory)");
	else if (r < 0)
		msg_report(ui, UI_ERROR, "%s", m ? m : pte_strerror(r));
	else if (w)
		msg_report(ui, UI_WARN, "%s; %s", ok, w);
	else
		msg_report(ui, UI_INFO, "%s", ok);
	return UI_DRAW_ALL;
}

/* The row at @off: its offset and size.  Returns 0 or a pte code. */
int marks_ui_row_at(struct ui *ui, uint64_t off, uint64_t *at, uint64_t *size, uint64_t *tsc)
{
	struct win_iter it = { 0 };
	int r = win_seek(&it, ui->wc, off);

	if (!r) {
		const struct win_row *row = win_row(&it);

		*at = row->pkt.offset;
		*size = row->size ? row->size : 1;
		if (tsc)
			*tsc = row->ts.flags & TM_F_TSC ? row->ts.tsc : 0;
	}
	win_iter_release(&it);
	return r;
}

/* The visual selection as a byte range [*from, *to): from the first row
 * to the end of the last. */
void marks_ui_selection(struct ui *ui, uint64_t *from, uint64_t *to)
{
	uint64_t a = mu.anchor < ui->cursor ? mu.anchor : ui->cursor;
	uint64_t b = mu.anchor < ui->cursor ? ui->cursor : mu.anchor, at, size;

	*from = a;
	*to = b + 1;
	if (!marks_ui_row_at(ui, b, &at, &size, NULL) && at == b)
		*to = b + size;
	if (*to > ui->img->size)
		*to = ui->img->size;
}

/* The @n words at @w, joined by spaces, into @buf. */
static void marks_ui_join(const char *const *w, int n, char *buf, size_t size)
{
	size_t len = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? " " : "", w[i]);
}

/* :mark NAME ["note"], :mark -n NAME "note" (the note only),
 * :mark -r OLD NEW (rename). */
static int marks_ui_mark(struct ui *ui, const struct cmd_args *a)
{
	char **tok = a->argv + 1, msg[160], note[BM_NOTE_MAX];
	const int *q = a->quoted + 1;
	int n = a->argc - 1, r;
	long i;

	if (marks_ui_no_marks(ui))
		return UI_DRAW_STATUS;
	if (n < 1) {
		msg_report(ui, UI_ERROR, "usage: mark NAME [\"note\"], mark -n NAME \"note\", "
			   "mark -r OLD NEW");
		return UI_DRAW_STATUS;
	}
	if (!q[0] && (!strcmp(tok[0], "-n") || !strcmp(tok[0], "-r"))) {
		if (n < 2 || (i = marks_find(ui->bm, tok[1])) < 0) {
			msg_report(ui, UI_ERROR, "mark %s: no mark, bookmark or region '%s'",
				   tok[0], n < 2 ? "" : tok[1]);
			return UI_DRAW_STATUS;
		}
		if (tok[0][1] == 'n') {
			/* The rest of the line is the note: words typed after
			 * the prefilled "old note" (the marks list's e) are
			 * kept, not dropped. */
			marks_ui_join((const char *const *)tok + 2, n - 2, note, sizeof(note));
			r = marks_set_note(ui->bm, (size_t)i, n > 2 ? note : NULL);
			snprintf(msg, sizeof(msg), "note of %.63s %s", tok[1], n > 2 && note[0] ?
				 "set" : "removed");
		} else {
			if (n < 3) {
				msg_report(ui, UI_ERROR, "mark -r %s: the new name?", tok[1]);
				return UI_DRAW_STATUS;
			}
			r = marks_rename(ui->bm, (size_t)i, tok[2]);
			snprintf(msg, sizeof(msg), "%.63s renamed to %.63s", tok[1], tok[2]);
		}
		return marks_ui_result(ui, r, msg);
	}
	if (n > 2) {
		msg_report(ui, UI_ERROR, "mark: one name and one quoted note");
		return UI_DRAW_STATUS;
	}
	if (!tok[0][1] && isalpha((unsigned char)tok[0][0]))
		r = marks_mark_set(ui->bm, tok[0][0], ui->cursor, n > 1 ? tok[1] : NULL);
	else
		r = marks_bookmark_set(ui->bm, tok[0], ui->cursor, n > 1 ? tok[1] : NULL);
	snprintf(msg, sizeof(msg), "%.63s at 0x%" PRIx64, tok[0], ui->cursor);
	return marks_ui_result(ui, r, msg);
}

/* Whether entry @e is the reference for time deltas (ui->ref_*). */
static int marks_ui_is_ref(const struct ui *ui, const struct marks_entry *e)
{
	if (!ui->ref_name || !e)
		return 0;
	if (ui->ref_name == 1)
		return !strncmp(ui->ref_label, e->name, sizeof(ui->ref_label) - 1) &&
		       e->from == ui->ref_off;
	return e->kind == BM_MARK && e->name[0] == ui->ref_name && !e->name[1];
}

/* @e is going: so is the reference, if it is @e. */
void marks_ui_forget_ref(struct ui *ui, const struct marks_entry *e)
{
	if (marks_ui_is_ref(ui, e)) {
		ui->ref_name = 0;
		ui->ref_label[0] = 0;
	}
}

/* :ref [NAME]: the mark, bookmark or region (its start) time deltas are
 * measured from; none stops them. */
int marks_ui_ref(struct ui *ui, const char *name)
{
	const struct marks_entry *e;
	long i;

	if (!*name) {
		ui->ref_name = 0;
		ui->ref_label[0] = 0;
		msg_report(ui, UI_INFO, "no reference: the delta column is empty");
		return UI_DRAW_ALL;
	}
	if (marks_ui_no_marks(ui))
		return UI_DRAW_STATUS;
	i = marks_find(ui->bm, name);
	if (i < 0) {
		msg_report(ui, UI_ERROR, "ref: no mark, bookmark or region '%s'", name);
		return UI_DRAW_STATUS;
	}
	e = marks_at(ui->bm, (size_t)i);
	ui->ref_off = e->from;
	if (e->kind == BM_MARK && !e->name[1]) {
		ui->ref_name = e->name[0];
		snprintf(ui->ref_label, sizeof(ui->ref_label), "'%.1s", e->name);
	} else {
		ui->ref_name = 1;
		snprintf(ui->ref_label, sizeof(ui->ref_label), "%.23s", e->name);
	}
	msg_report(ui, UI_INFO, "time deltas from %s (0x%" PRIx64 ")", ui->ref_label,
		   ui->ref_off);
	return UI_DRAW_ALL;
}

/* :delmark NAME|L..., :delregion NAME... (@regions: the second). */
static int marks_ui_delete(struct ui *ui, const struct cmd_args *a)
{
	char **tok = a->argv + 1;
	int regions = a->action == ACTION_DELREGION;
	int n = a->argc - 1, k, r = 0, done = 0;
	const char *what = regions ? "delregion" : "delmark";

	if (marks_ui_no_marks(ui))
		return UI_DRAW_STATUS;
	if (n < 1) {
		msg_report(ui, UI_ERROR, "%s: which %s?", what, regions ? "region" : "mark");
		return UI_DRAW_STATUS;
	}
	for (k = 0; k < n; k++) {
		long i = marks_find(ui->bm, tok[k]);

		if (i < 0 || (marks_at(ui->bm, (size_t)i)->kind == BM_REGION) != regions) {
			msg_report(ui, UI_ERROR, "%s: no %s '%s'", what,
				   regions ? "region" : "mark or bookmark", tok[k]);
			return UI_DRAW_ALL;
		}
		marks_ui_forget_ref(ui, marks_at(ui->bm, (size_t)i));
		r = marks_delete(ui->bm, (size_t)i);
		if (r < 0 && r != -pte_io)
			break;
		done++;
	}
	{
		char msg[64];

		snprintf(msg, sizeof(msg), "%d deleted", done);
		return marks_ui_result(ui, r, msg);
	}
}

/* M-m L: clear mark L. */
static int marks_ui_clear_mark(struct ui *ui, int c)
{
	char name[2] = { (char)c, 0 };
	long i;

	if (marks_ui_no_marks(ui))
		return UI_DRAW_STATUS;
	if (!isalpha(c) || (i = marks_find(ui->bm, name)) < 0) {
		msg_report(ui, UI_WARN, "mark %c is not set", isprint(c) ? c : '?');
		return UI_DRAW_STATUS;
	}
	marks_ui_forget_ref(ui, marks_at(ui->bm, (size_t)i));
	return marks_ui_result(ui, marks_delete(ui->bm, (size_t)i), "mark cleared");
}

/* TO from @b, a relative TO (+64KiB, t +3us) counting from @from, as
 * `ptbrowse export` counts it: the goto context is the cursor's, so the
 * cursor stands at @from meanwhile.  One that lands before @from is
 * refused (absolute ones in either order are swapped by the callers);
 * a region is its end.  Returns 0, -1 if @b is no target, -2 if it is refused (the reason in
 * @err). */
static int marks_ui_range_to(struct ui *ui, const char *b, uint64_t from,
			     uint64_t *to, char *err, size_t errlen)
{
	uint64_t cursor = ui->cursor;
	struct goto_target t;
	int r;

	ui->cursor = from;
	r = goto_ui_offset(ui, b, to, err, errlen);
	ui->cursor = cursor;
	if (r < 0 || goto_parse(b, &t, NULL, 0))
		return r < 0 ? -1 : 0;
	/* A region as TO is its end, as `ptbrowse export` takes it */
	if (t.kind == GOTO_REGION && ui->bm) {
		long i = marks_find(ui->bm, t.name);

		if (i >= 0 && marks_at(ui->bm, (size_t)i)->to > *to)
			*to = marks_at(ui->bm, (size_t)i)->to;
	}
	if (*to < from && t.rel) {
		snprintf(err, errlen, "TO '%.64s' is 0x%" PRIx64 ", before FROM 0x%"
			 PRIx64 " (a relative TO counts from FROM)", b, *to, from);
		return -2;
	}
	return 0;
}

/* FROM and TO from the @n words at @w: goto targets of one word or more
 * ("psb 5", "t 12ms"), split where both halves are; FROM from the cursor,
 * TO from FROM if relative.  Returns 0, or -1 with the last goto error in
 * @err. */
static int marks_ui_range(struct ui *ui, const char *const *w, int n, uint64_t *from,
		    uint64_t *to, char *err, size_t errlen)
{
	int k, r;

	snprintf(err, errlen, "want FROM TO");
	for (k = 1; k < n; k++) {
		char a[MU_TOKLEN * 2], b[MU_TOKLEN * 2];

		marks_ui_join(w, k, a, sizeof(a));
		marks_ui_join(w + k, n - k, b, sizeof(b));
		if (goto_ui_offset(ui, a, from, err, errlen) < 0)
			continue;
		r = marks_ui_range_to(ui, b, *from, to, err, errlen);
		if (r != -1)
			return r < 0 ? -1 : 0;
	}
	return -1;
}

/* :region NAME [FROM TO] ["note"]; without FROM TO the selection, or an
 * existing region's note. */
static int marks_ui_region(struct ui *ui, const struct cmd_args *a)
{
	char **tok = a->argv + 1, err[256] = "", msg[160];
	const int *q = a->quoted + 1;
	int n = a->argc - 1, npos = 0, k, r;
	const char *pos[CMD_MAX_WORDS], *note = NULL;
	uint64_t from, to;

	if (marks_ui_no_marks(ui))
		return UI_DRAW_STATUS;
	for (k = 0; k < n; k++) {
		if (q[k] && !note)
			note = tok[k];
		else if (!q[k])
			pos[npos++] = tok[k];
		else
			npos = -1;
		if (npos < 0)
			break;
	}
	if (npos < 1 || npos == 2) {
		msg_report(ui, UI_ERROR, "usage: region NAME [FROM TO] [\"note\"]");
		return UI_DRAW_STATUS;
	}
	if (npos >= 3) {
		if (marks_ui_range(ui, pos + 1, npos - 1, &from, &to, err, sizeof(err)) < 0) {
			msg_report(ui, UI_ERROR, "region: %s", err);
			return UI_DRAW_STATUS;
		}
	} else if (mu.visual) {
		marks_ui_selection(ui, &from, &to);
	} else {
		long i = marks_find(ui->bm, pos[0]);

		if (i >= 0 && marks_at(ui->bm, (size_t)i)->kind == BM_REGION) {
			r = marks_set_note(ui->bm, (size_t)i, note);
			snprintf(msg, sizeof(msg), "region %s: note %s", pos[0],
				 note && *note ? "set" : "removed");
			return marks_ui_result(ui, r, msg);
		}
		msg_report(ui, UI_ERROR, "region %s: select a range first (v) or give FROM TO",
			   pos[0]);
		return UI_DRAW_STATUS;
	}
	r = marks_region_set(ui->bm, pos[0], from, to, note, NULL);
	if (r >= 0 || r == -pte_io)
		mu.visual = 0;
	snprintf(msg, sizeof(msg), "region %s: 0x%" PRIx64 "-0x%" PRIx64 " (%" PRIu64 " bytes)",
		 pos[0], from < to ? from : to, from < to ? to : from,
		 from < to ? to - from : from - to);
	return marks_ui_result(ui, r, msg);
}

/* :region-add NAME ["note"]: from the emacs mark to the cursor. */
static int marks_ui_region_add(struct ui *ui, const struct cmd_args *a)
{
	if (!mu.have_push && !mu.visual) {
		msg_report(ui, UI_ERROR, "region-add: set the mark first (C-SPC)");
		return UI_DRAW_STATUS;
	}
	if (!mu.visual) {
		mu.visual = 1;
		mu.anchor = mu.push;
	}
	return marks_ui_region(ui, a);
}

/* :export REGION FILE, :export FROM TO FILE ("~/" is $HOME). */
static int marks_ui_export(struct ui *ui, const struct cmd_args *a)
{
	char **tok = a->argv + 1, err[512] = "", path[4096];
	int n = a->argc - 1;
	struct safefile_keep keep[EXPORT_NKEEP];
	size_t nkeep;
	uint64_t from, to;
	long i;

	if (n == 2) {
		if (!ui->bm || (i = marks_find(ui->bm, tok[0])) < 0 ||
		    marks_at(ui->bm, (size_t)i)->kind != BM_REGION) {
			msg_report(ui, UI_ERROR, "export: no region '%s'", tok[0]);
			return UI_DRAW_STATUS;
		}
		from = marks_at(ui->bm, (size_t)i)->from;
		to = marks_at(ui->bm, (size_t)i)->to;
	} else if (n >= 3) {
		if (marks_ui_range(ui, (const char *const *)tok, n - 1, &from, &to, err,
				   sizeof(err)) < 0) {
			msg_report(ui, UI_ERROR, "export: %s", err);
			return UI_DRAW_STATUS;
		}
	} else if (n == 1 && mu.visual) {
		marks_ui_selection(ui, &from, &to);
	} else {
		msg_report(ui, UI_ERROR, "usage: export REGION FILE, or export FROM TO FILE");
		return UI_DRAW_STATUS;
	}
	if (from > to) {
		uint64_t t = from;

		from = to;
		to = t;
	}
	if (cmd_path(tok[n - 1], path, sizeof(path)) < 0) {
		msg_report(ui, UI_ERROR, "export: file name too long");
		return UI_DRAW_STATUS;
	}
	/* Nor over the marks file the browser keeps.  In the background: a
	 * big slice takes a while, and C-c stops it (export_job.h). */
	nkeep = export_keep(ui->trace, marks_file(ui->bm), keep);
	return export_job_start(ui, from, to, path, keep, nkeep);
}

/* :export-marks FILE, :import-marks FILE ("~/" is $HOME). */
static int marks_ui_share(struct ui *ui, const struct cmd_args *a)
{
	char **tok = a->argv + 1, path[4096], err[4200];
	int import = a->action == ACTION_IMPORT_MARKS, n = a->argc - 1, r;
	const char *m;

	if (marks_ui_no_marks(ui))
		return UI_DRAW_STATUS;
	if (n != 1) {
		msg_report(ui, UI_ERROR, "%s-marks: which file?", import ? "import" : "export");
		return UI_DRAW_STATUS;
	}
	if (cmd_path(tok[0], path, sizeof(path)) < 0) {
		msg_report(ui, UI_ERROR, "%s-marks: file name too long",
			   import ? "import" : "export");
		return UI_DRAW_STATUS;
	}
	/* Not where the trace reads its options: it would not open again
	 * ("-" is no file here: the export refuses it). */
	if (!import && strcmp(path, "-") &&
	    export_refuse(ui->trace, path, err, sizeof(err)) < 0) {
		msg_report(ui, UI_ERROR, "marks not exported: %s", err);
		return UI_DRAW_STATUS;
	}
	r = import ? marks_import_path(ui->bm, path) : marks_export_path(ui->bm, path);
	m = marks_message(ui->bm);
	if (r < 0)
		msg_report(ui, UI_ERROR, "%s", m ? m : pte_strerror(r));
	else if (import)
		/* The set's summary: imported, conflicts, bad lines. */
		msg_report(ui, r > 0 || !m || !strstr(m, ", 0 bad lines") ? UI_WARN :
			   UI_INFO, "%s; %zu marks and regions now%s", m ? m : path,
			   marks_count(ui->bm), r > 0 ? "; ours kept on conflicts "
			   "(:messages lists them)" : "");
	else
		msg_report(ui, UI_INFO, "wrote %zu marks and regions to %s", marks_count(ui->bm),
			   path);
	return UI_DRAW_ALL;
}

/* The region holding @off (the innermost: the last one starting before
 * it), or -1. */
long marks_ui_region_at(const struct ui *ui, uint64_t off)
{
	size_t i, n;
	long best = -1;

	if (!ui->bm)
		return -1;
	n = marks_count(ui->bm);
	for (i = 0; i < n; i++) {
		const struct marks_entry *e = marks_at(ui->bm, i);

		if (e->from > off)
			break;
		if (e->kind == BM_REGION && off < e->to)
			best = (long)i;
	}
	return best;
}

int marks_ui_band(const struct ui *ui, uint64_t off)
{
	if (mu.visual) {
		uint64_t a = mu.anchor < ui->cursor ? mu.anchor : ui->cursor;
		uint64_t b = mu.anchor < ui->cursor ? ui->cursor : mu.anchor;

		if (off >= a && off <= b)
			return 2;
	}
	return marks_ui_region_at(ui, off) >= 0;
}

int marks_ui_band_attr(const struct ui *ui, int band)
{
	if (!band)
		return 0;
	if (!ui->color || COLOR_PAIRS <= MU_PAIR_VISUAL)
		return band == 2 ? A_BOLD : 0;
	if (!mu.pairs) {
		init_pair(MU_PAIR_REGION, -1, COLORS >= 256 ? 236 : COLOR_BLUE);
		init_pair(MU_PAIR_VISUAL, -1, COLORS >= 256 ? 24 : COLOR_MAGENTA);
		mu.pairs = 1;
	}
	return COLOR_PAIR(band == 2 ? MU_PAIR_VISUAL : MU_PAIR_REGION);
}

const char *marks_ui_band_glyph(const struct ui *ui, int band)
{
	if (band == 2)
		return screen_glyph(ui, "┃", "#");
	if (band == 1)
		return screen_glyph(ui, "▏", "|");
	return " ";
}

int marks_ui_visual(const struct ui *ui)
{
	return mu.visual;
}


/* m L: set mark L at the cursor; it becomes the reference for time deltas. */
static int marks_ui_set_mark(struct ui *ui, const struct cmd_args *a)
{
	int c = a->key, r;

	if (!isalpha(c)) {
		msg_report(ui, UI_ERROR, "marks are letters a-z, A-Z");
		return UI_DRAW_STATUS;
	}
	if (ui->bm) {
		char ok[64];

		snprintf(ok, sizeof(ok), "mark %c at 0x%" PRIx64, c, ui->cursor);
		r = marks_mark_set(ui->bm, (char)c, ui->cursor, NULL);
		if (r < 0 && !marks_message(ui->bm))
			r = 0;	/* (as before: nothing to say but the mark) */
		marks_ui_result(ui, r, ok);
	} else {
		msg_report(ui, UI_INFO, "mark %c at 0x%" PRIx64 " (not kept: no marks file)",
			   c, ui->cursor);
	}
	ui->ref_name = (char)c;
	snprintf(ui->ref_label, sizeof(ui->ref_label), "'%c", c);
	ui->ref_off = ui->cursor;
	return UI_DRAW_ALL;
}

/* ' L: jump to mark L (' or `: the last position). */
static int marks_ui_jump_mark(struct ui *ui, const struct cmd_args *a)
{
	int c = a->key;
	char name[2] = { (char)c, 0 };
	long i;

	if (c == '\'' || c == '`')
		return nav_last(ui);
	if (c == ui->ref_name && !ui->bm)
		return nav_jump(ui, ui->ref_off);
	if (!ui->bm || (i = marks_find(ui->bm, name)) < 0) {
		msg_report(ui, UI_WARN, "mark %c is not set", c);
		return UI_DRAW_STATUS;
	}
	return nav_jump(ui, marks_at(ui->bm, (size_t)i)->from);
}

static int marks_ui_clear_mark_cmd(struct ui *ui, const struct cmd_args *a)
{
	return marks_ui_clear_mark(ui, a->key);
}

static int marks_ui_toggle_bookmark(struct ui *ui, const struct cmd_args *a)
{
	int r;

	if (!ui->bm) {
		msg_report(ui, UI_WARN, "bookmarks are off (no marks file)");
		return UI_DRAW_STATUS;
	}
	r = marks_toggle(ui->bm, ui->cursor);
	return marks_ui_result(ui, r, r == 1 ? "bookmark added" : "bookmark removed");
}

/* The @n-th mark or bookmark after (@dir > 0) or before @off, or the
 * last there is that way; entries at one offset are one step.  Returns
 * its index, or -1 if there is none.  One walk of the set (it is in
 * offset order): a huge count costs no more than the set's size. */
static long marks_ui_nth(const struct marks_set *bm, uint64_t off, int dir, long n)
{
	const unsigned kinds = 1u << BM_MARK | 1u << BM_BOOKMARK;
	long i = marks_next(bm, off, dir, kinds), j, cnt = (long)marks_count(bm);
	const struct marks_entry *e;
	uint64_t at;

	while (i >= 0 && --n > 0) {
		at = marks_at(bm, (size_t)i)->from;
		for (j = i + dir; j >= 0 && j < cnt; j += dir) {
			e = marks_at(bm, (size_t)j);
			if ((kinds & 1u << e->kind) && (dir > 0 ? e->from > at : e->from < at))
				break;
		}
		if (j < 0 || j >= cnt)
			break;
		i = j;
	}
	return i;
}

/* ] and [: the next or previous mark or bookmark; with a count the Nth,
 * or the last one there is. */
static int marks_ui_next_mark(struct ui *ui, const struct cmd_args *a)
{
	int next = a->action == ACTION_NEXT_MARK;
	long i = ui->bm ? marks_ui_nth(ui->bm, ui->cursor, next ? 1 : -1, cmd_steps(a)) : -1;

	if (i < 0) {
		msg_report(ui, UI_WARN, "no %s mark", next ? "further" : "earlier");
		return UI_DRAW_STATUS;
	}
	return nav_jump(ui, marks_at(ui->bm, (size_t)i)->from);
}

static int marks_ui_ref_cmd(struct ui *ui, const struct cmd_args *a)
{
	return marks_ui_ref(ui, a->argc > 1 ? a->argv[1] : "");
}

static int marks_ui_visual_cmd(struct ui *ui, const struct cmd_args *a)
{
	if (!mu.visual) {
		mu.visual = 1;
		mu.anchor = ui->cursor;
		msg_report(ui, UI_INFO, "-- VISUAL --  move, then Enter (or :region NAME); "
			   "Esc cancels");
	} else {
		msg_report(ui, UI_INFO, "-- VISUAL --  from 0x%" PRIx64, mu.anchor);
	}
	return UI_DRAW_ALL;
}

void marks_ui_visual_from(struct ui *ui, uint64_t anchor)
{
	mu.visual = 1;
	mu.anchor = anchor;
}

int marks_ui_cancel(struct ui *ui)
{
	if (!mu.visual)
		return 0;
	mu.visual = 0;
	msg_report(ui, UI_INFO, "selection cancelled");
	return 1;
}

/* M-< C-SPC M-> C-x C-x: the emacs mark. */
static int marks_ui_pop(struct ui *ui, int exchange)
{
	uint64_t off;

	if (!mu.have_push) {
		msg_report(ui, UI_WARN, "no mark set in this buffer (C-SPC)");
		return UI_DRAW_STATUS;
	}
	off = mu.push;
	if (exchange)
		mu.push = ui->cursor;
	else
		mu.have_push = 0;
	return nav_jump(ui, off);
}

static int marks_ui_push(struct ui *ui, const struct cmd_args *a)
{
	if (a->has_count)	/* C-u C-SPC pops */
		return marks_ui_pop(ui, 0);
	mu.push = ui->cursor;
	mu.have_push = 1;
	msg_report(ui, UI_INFO, "mark set at 0x%" PRIx64, ui->cursor);
	return UI_DRAW_STATUS;
}

static int marks_ui_pop_cmd(struct ui *ui, const struct cmd_args *a)
{
	return marks_ui_pop(ui, a->action == ACTION_EXCHANGE_MARK);
}

static const struct cmd_row marks_ui_rows[] = {
	{ ACTION_SET_MARK, marks_ui_set_mark, CMD_NONE, 0, 0 },
	{ ACTION_JUMP_MARK, marks_ui_jump_mark, CMD_NONE, 0, 0 },
	{ ACTION_CLEAR_MARK, marks_ui_clear_mark_cmd, CMD_NONE, 0, 0 },
	{ ACTION_NEXT_MARK, marks_ui_next_mark, CMD_NONE, 0, 0 },
	{ ACTION_PREV_MARK, marks_ui_next_mark, CMD_NONE, 0, 0 },
	{ ACTION_TOGGLE_BOOKMARK, marks_ui_toggle_bookmark, CMD_NONE, 0, 0 },
	{ ACTION_PUSH_MARK, marks_ui_push, CMD_NONE, 0, 0 },
	{ ACTION_POP_MARK, marks_ui_pop_cmd, CMD_NONE, 0, 0 },
	{ ACTION_EXCHANGE_MARK, marks_ui_pop_cmd, CMD_NONE, 0, 0 },
	{ ACTION_MARK, marks_ui_mark, CMD_WORDS, 0, 0 },
	{ ACTION_DELMARK, marks_ui_delete, CMD_WORDS, 0, 0 },
	{ ACTION_VISUAL, marks_ui_visual_cmd, CMD_NONE, 0, 0 },
	{ ACTION_REGION, marks_ui_region, CMD_WORDS, 0, 0 },
	{ ACTION_REGION_ADD, marks_ui_region_add, CMD_WORDS, 0, 0 },
	{ ACTION_REF, marks_ui_ref_cmd, CMD_WORDS, 0, 0 },
	{ ACTION_DELREGION, marks_ui_delete, CMD_WORDS, 0, 0 },
	{ ACTION_EXPORT, marks_ui_export, CMD_WORDS, 0, 0 },
	{ ACTION_EXPORT_MARKS, marks_ui_share, CMD_WORDS, 0, 0 },
	{ ACTION_IMPORT_MARKS, marks_ui_share, CMD_WORDS, 0, 0 },
};

CMD_TABLE(marks_ui_cmds, marks_ui_rows);

