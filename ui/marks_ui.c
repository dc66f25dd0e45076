/* marks_ui -- mark and region commands, the list view, the summary panel. */
#include <ctype.h>
#include <curses.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export.h"
#include "marks.h"
#include "marks_ui.h"
#include "trace.h"

#define MU_NTOK 6
#define MU_TOKLEN 1024
/* A colour pair of our own for the bands, past screen.c's. */
#define MU_PAIR_REGION (SC_NCOLORS + 4)
#define MU_PAIR_VISUAL (SC_NCOLORS + 5)
/* Summaries of regions up to this size run on the UI thread in --script
 * mode; in a terminal they always run in the background. */
#define MU_SUMMARY_PANEL_W 46

/* The state of this module (one browser per process). */
static struct {
	int visual;			/* a selection is active */
	uint64_t anchor;		/* where it started */
	long sel, top;			/* its selected and first rows */
	int confirm;			/* 'd' asked; waiting for y */
	int pairs;			/* our colour pairs are set up */
	int have_push;			/* the emacs mark */
	uint64_t push;
	/* the summary */
	int job_on;			/* a thread was started (join it) */
	int job_valid;			/* job describes [job.from, job.to) */
	struct marks_summary_job job;
	struct marks_time bt;
	char job_name[BM_NAME_MAX];
} mu;

/* Split @s into words; a word in double quotes takes C escapes.  Sets
 * @quoted[i] for quoted words.  Returns the number of words, or -1 if
 * there are too many. */
static int marks_ui_split(const char *s, char tok[][MU_TOKLEN], int *quoted)
{
	int n = 0;

	for (;;) {
		size_t len = 0;

		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			return n;
		if (n == MU_NTOK)
			return -1;
		quoted[n] = *s == '"';
		if (quoted[n]) {
			for (s++; *s && *s != '"'; s++) {
				char c = *s;

				if (c == '\\' && s[1]) {
					s++;
					c = *s == 'n' ? '\n' : *s == 't' ? '\t' : *s == 'r' ? '\r' : *s;
					if (*s == 'x' && isxdigit((unsigned char)s[1])) {
						char h[3] = { s[1], isxdigit((unsigned char)s[2]) ? s[2] : 0, 0 };

						c = (char)strtol(h, NULL, 16);
						s += h[1] ? 2 : 1;
					}
				}
				if (len + 1 < MU_TOKLEN)
					tok[n][len++] = c;
			}
			if (*s == '"')
				s++;
		} else {
			while (*s && !isspace((unsigned char)*s)) {
				if (len + 1 < MU_TOKLEN)
					tok[n][len++] = *s;
				s++;
			}
		}
		tok[n][len] = 0;
		n++;
	}
}

/* The marks are off (--no-state and nothing loaded, or no memory). */
static int marks_ui_no_marks(struct ui *ui)
{
	if (ui->bm)
		return 0;
	ui_message(ui, UI_WARN, "marks are off (no marks file)");
	return 1;
}

/* Say what a change did: the set's message on failure (a failed save
 * keeps the marks in memory), else @ok. */
static int marks_ui_result(struct ui *ui, int r, const char *ok)
{
	const char *m = marks_message(ui->bm);

	if (r == -pte_io)
		ui_message(ui, UI_ERROR, "%s", m ? m : "marks not saved (kept in memory)");
	else if (r < 0)
		ui_message(ui, UI_ERROR, "%s", m ? m : pte_strerror(r));
	else
		ui_message(ui, UI_INFO, "%s", ok);
	return UI_DRAW_ALL;
}

/* The row at @off: its offset and size.  Returns 0 or a pte code. */
static int marks_ui_row_at(struct ui *ui, uint64_t off, uint64_t *at, uint64_t *size, uint64_t *tsc)
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
static void marks_ui_selection(struct ui *ui, uint64_t *from, uint64_t *to)
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

/* :mark NAME ["note"], :mark -n NAME "note" (the note only),
 * :mark -r OLD NEW (rename). */
static int marks_ui_mark(struct ui *ui, const char *args)
{
	char tok[MU_NTOK][MU_TOKLEN], msg[160];
	int q[MU_NTOK], n = marks_ui_split(args, tok, q), r;
	long i;

	if (marks_ui_no_marks(ui))
		return UI_DRAW_STATUS;
	if (n < 1) {
		ui_message(ui, UI_ERROR, "usage: mark NAME [\"note\"], mark -n NAME \"note\", "
			   "mark -r OLD NEW");
		return UI_DRAW_STATUS;
	}
	if (!q[0] && (!strcmp(tok[0], "-n") || !strcmp(tok[0], "-r"))) {
		if (n < 2 || (i = marks_find(ui->bm, tok[1])) < 0) {
			ui_message(ui, UI_ERROR, "mark %s: no mark, bookmark or region '%s'",
				   tok[0], n < 2 ? "" : tok[1]);
			return UI_DRAW_STATUS;
		}
		if (tok[0][1] == 'n') {
			/* The rest of the line is the note: words typed after
			 * the prefilled "old note" (the marks list's e) are
			 * kept, not dropped. */
			int k;

			for (k = 3; k < n; k++) {
				size_t l = strlen(tok[2]);

				snprintf(tok[2] + l, MU_TOKLEN - l, " %s", tok[k]);
			}
			r = marks_set_note(ui->bm, (size_t)i, n > 2 ? tok[2] : NULL);
			snprintf(msg, sizeof(msg), "note of %.63s %s", tok[1], n > 2 && tok[2][0] ?
				 "set" : "removed");
		} else {
			if (n < 3) {
				ui_message(ui, UI_ERROR, "mark -r %s: the new name?", tok[1]);
				return UI_DRAW_STATUS;
			}
			r = marks_rename(ui->bm, (size_t)i, tok[2]);
			snprintf(msg, sizeof(msg), "%.63s renamed to %.63s", tok[1], tok[2]);
		}
		return marks_ui_result(ui, r, msg);
	}
	if (n > 2) {
		ui_message(ui, UI_ERROR, "mark: one name and one quoted note");
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
static void marks_ui_forget_ref(struct ui *ui, const struct marks_entry *e)
{
	if (marks_ui_is_ref(ui, e)) {
		ui->ref_name = 0;
		ui->ref_label[0] = 0;
	}
}

/* :ref [NAME]: the mark, bookmark or region (its start) time deltas are
 * measured from; none stops them. */
static int marks_ui_ref(struct ui *ui, const char *name)
{
	const struct marks_entry *e;
	long i;

	if (!*name) {
		ui->ref_name = 0;
		ui->ref_label[0] = 0;
		ui_message(ui, UI_INFO, "no reference: the delta column is empty");
		return UI_DRAW_ALL;
	}
	if (marks_ui_no_marks(ui))
		return UI_DRAW_STATUS;
	i = marks_find(ui->bm, name);
	if (i < 0) {
		ui_message(ui, UI_ERROR, "ref: no mark, bookmark or region '%s'", name);
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
	ui_message(ui, UI_INFO, "time deltas from %s (0x%" PRIx64 ")", ui->ref_label,
		   ui->ref_off);
	return UI_DRAW_ALL;
}

/* :delmark NAME|L..., :delregion NAME... (@regions: the second). */
static int marks_ui_delete(struct ui *ui, const char *args, int regions)
{
	char tok[MU_NTOK][MU_TOKLEN];
	int q[MU_NTOK], n = marks_ui_split(args, tok, q), k, r = 0, done = 0;
	const char *what = regions ? "delregion" : "delmark";

	if (marks_ui_no_marks(ui))
		return UI_DRAW_STATUS;
	if (n < 1) {
		ui_message(ui, UI_ERROR, "%s: which %s?", what, regions ? "region" : "mark");
		return UI_DRAW_STATUS;
	}
	for (k = 0; k < n; k++) {
		long i = marks_find(ui->bm, tok[k]);

		if (i < 0 || (marks_at(ui->bm, (size_t)i)->kind == BM_REGION) != regions) {
			ui_message(ui, UI_ERROR, "%s: no %s '%s'", what,
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
		ui_message(ui, UI_WARN, "mark %c is not set", isprint(c) ? c : '?');
		return UI_DRAW_STATUS;
	}
	marks_ui_forget_ref(ui, marks_at(ui->bm, (size_t)i));
	return marks_ui_result(ui, marks_delete(ui->bm, (size_t)i), "mark cleared");
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

/* FROM and TO from the @n words at @w: goto targets of one word or more
 * ("psb 5", "t 12ms"), split where both halves are.  Returns 0, or -1 with
 * the last goto error in @err. */
static int marks_ui_range(struct ui *ui, const char *const *w, int n, uint64_t *from,
		    uint64_t *to, char *err, size_t errlen)
{
	int k;

	snprintf(err, errlen, "want FROM TO");
	for (k = 1; k < n; k++) {
		char a[MU_TOKLEN * 2], b[MU_TOKLEN * 2];

		marks_ui_join(w, k, a, sizeof(a));
		marks_ui_join(w + k, n - k, b, sizeof(b));
		if (!ui_goto_offset(ui, a, from, err, errlen) &&
		    !ui_goto_offset(ui, b, to, err, errlen))
			return 0;
	}
	return -1;
}

/* :region NAME [FROM TO] ["note"]; without FROM TO the selection, or an
 * existing region's note. */
static int marks_ui_region(struct ui *ui, const char *args)
{
	char tok[MU_NTOK][MU_TOKLEN], err[256] = "", msg[160];
	int q[MU_NTOK], n = marks_ui_split(args, tok, q), npos = 0, k, r;
	const char *pos[MU_NTOK], *note = NULL;
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
	if (n < 0 || npos < 1 || npos == 2) {
		ui_message(ui, UI_ERROR, "usage: region NAME [FROM TO] [\"note\"]");
		return UI_DRAW_STATUS;
	}
	if (npos >= 3) {
		if (marks_ui_range(ui, pos + 1, npos - 1, &from, &to, err, sizeof(err)) < 0) {
			ui_message(ui, UI_ERROR, "region: %s", err);
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
		ui_message(ui, UI_ERROR, "region %s: select a range first (v) or give FROM TO",
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
static int marks_ui_region_add(struct ui *ui, const char *args)
{
	char buf[MU_TOKLEN * 2];
	int r;

	if (!mu.have_push && !mu.visual) {
		ui_message(ui, UI_ERROR, "region-add: set the mark first (C-SPC)");
		return UI_DRAW_STATUS;
	}
	if (!mu.visual) {
		mu.visual = 1;
		mu.anchor = mu.push;
	}
	snprintf(buf, sizeof(buf), "%s", args);
	r = marks_ui_region(ui, buf);
	return r;
}

/* :export REGION FILE, :export FROM TO FILE. */
static int marks_ui_export(struct ui *ui, const char *args)
{
	char tok[MU_NTOK][MU_TOKLEN], err[512] = "";
	int q[MU_NTOK], n = marks_ui_split(args, tok, q), r;
	struct export_result res;
	uint64_t from, to;
	long i;

	if (n == 2) {
		if (!ui->bm || (i = marks_find(ui->bm, tok[0])) < 0 ||
		    marks_at(ui->bm, (size_t)i)->kind != BM_REGION) {
			ui_message(ui, UI_ERROR, "export: no region '%s'", tok[0]);
			return UI_DRAW_STATUS;
		}
		from = marks_at(ui->bm, (size_t)i)->from;
		to = marks_at(ui->bm, (size_t)i)->to;
	} else if (n >= 3) {
		const char *w[MU_NTOK];

		for (i = 0; i < n - 1; i++)
			w[i] = tok[i];
		if (marks_ui_range(ui, w, n - 1, &from, &to, err, sizeof(err)) < 0) {
			ui_message(ui, UI_ERROR, "export: %s", err);
			return UI_DRAW_STATUS;
		}
	} else if (n == 1 && mu.visual) {
		marks_ui_selection(ui, &from, &to);
	} else {
		ui_message(ui, UI_ERROR, "usage: export REGION FILE, or export FROM TO FILE");
		return UI_DRAW_STATUS;
	}
	if (from > to) {
		uint64_t t = from;

		from = to;
		to = t;
	}
	r = export_slice(ui->trace, ui->img, from, to, tok[n - 1], 0, &res, err,
			 sizeof(err));
	if (r < 0) {
		ui_message(ui, UI_ERROR, "export: %s", err);
		return UI_DRAW_STATUS;
	}
	ui_message(ui, res.gaps ? UI_WARN : UI_INFO, "wrote %s: 0x%" PRIx64 "-0x%" PRIx64
		   " (%" PRIu64 " bytes)%s", tok[n - 1], res.start, res.end,
		   res.end - res.start, res.gaps ? ", lost data joined" : "");
	return UI_DRAW_STATUS;
}

/* :export-marks FILE, :import-marks FILE. */
static int marks_ui_share(struct ui *ui, const char *args, int import)
{
	char tok[MU_NTOK][MU_TOKLEN];
	int q[MU_NTOK], n = marks_ui_split(args, tok, q), r;
	const char *m;

	if (marks_ui_no_marks(ui))
		return UI_DRAW_STATUS;
	if (n != 1) {
		ui_message(ui, UI_ERROR, "%s-marks: which file?", import ? "import" : "export");
		return UI_DRAW_STATUS;
	}
	r = import ? marks_import_path(ui->bm, tok[0]) : marks_export_path(ui->bm, tok[0]);
	m = marks_message(ui->bm);
	if (r < 0)
		ui_message(ui, UI_ERROR, "%s", m ? m : pte_strerror(r));
	else if (import)
		/* The set's summary: imported, conflicts, bad lines. */
		ui_message(ui, r > 0 || !m || !strstr(m, ", 0 bad lines") ? UI_WARN :
			   UI_INFO, "%s; %zu marks and regions now%s", m ? m : tok[0],
			   marks_count(ui->bm), r > 0 ? "; ours kept on conflicts "
			   "(:messages lists them)" : "");
	else
		ui_message(ui, UI_INFO, "wrote %zu marks and regions to %s", marks_count(ui->bm),
			   tok[0]);
	return UI_DRAW_ALL;
}

/* The region holding @off (the innermost: the last one starting before
 * it), or -1. */
static long marks_ui_region_at(const struct ui *ui, uint64_t off)
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

/*
 * The summary job.
 */

void marks_ui_stop(struct ui *ui)
{
	if (mu.job_on) {
		marks_summary_cancel(&mu.job);
		marks_summary_join(&mu.job);
		mu.job_on = 0;
	}
	mu.job_valid = 0;
}

int marks_ui_busy(const struct ui *ui)
{
	return mu.job_on && !atomic_load(&mu.job.progress.finished);
}

/* Make sure the summary of region @e is computed or under way. */
static void marks_ui_summarize(struct ui *ui, const struct marks_entry *e)
{
	if (mu.job_valid && mu.job.img == ui->img && mu.job.from == e->from &&
	    mu.job.to == e->to) {
		snprintf(mu.job_name, sizeof(mu.job_name), "%s", e->name);
		return;
	}
	marks_ui_stop(ui);
	memset(&mu.job, 0, sizeof(mu.job));
	marks_time_init(&mu.bt, &ui->tmcfg);
	/* The time model from the index's state at the first PSB, not cold. */
	if (ui->idx && ui->idx_ops_set) {
		struct tm_carry carry;
		uint64_t psb;
		size_t k;

		if (!img_find_psb_before(ui->img, e->from + 1, &psb) &&
		    !idx_find(ui->idx, psb, &k) && !idx_seek_carry(ui->idx, k, &carry))
			tm_restore(&mu.bt.tm, &carry);
	}
	mu.job.img = ui->img;
	mu.job.from = e->from;
	mu.job.to = e->to;
	mu.job.observe = marks_time_observe;
	mu.job.observe_ctx = &mu.bt;
	snprintf(mu.job_name, sizeof(mu.job_name), "%s", e->name);
	mu.job_valid = 1;
	if (marks_summary_start(&mu.job) < 0) {
		mu.job.result = -pte_nomem;
		atomic_store(&mu.job.progress.finished, 1);
		return;
	}
	mu.job_on = 1;
	/* A script reads the screen right after the key: wait for it. */
	if (ui->headless)
		while (!atomic_load(&mu.job.progress.finished))
			usleep(1000);
}

/* The TSC of the row at @off, or 0. */
static uint64_t marks_ui_tsc_at(struct ui *ui, uint64_t off)
{
	uint64_t at, size, tsc = 0;

	if (marks_ui_row_at(ui, off, &at, &size, &tsc))
		return 0;
	return tsc;
}

/* The summary's lines into @lines (at most @max).  Returns the count. */
static int marks_ui_summary_lines(struct ui *ui, char lines[][128], int max)
{
	const struct marks_summary *s = &mu.job.sum;
	struct marks_progress *p = &mu.job.progress;
	char t[48], a[48];
	int n = 0, fin = atomic_load(&p->finished);

#define LINE(...) do { if (n < max) snprintf(lines[n++], 128, __VA_ARGS__); } while (0)
	LINE("region %s  0x%" PRIx64 "-0x%" PRIx64, mu.job_name, mu.job.from, mu.job.to);
	if (!fin) {
		uint64_t d = atomic_load(&p->done), tot = atomic_load(&p->total);

		LINE("computing %.0f%%  (C-c stops)", tot ? 100.0 * (double)d / (double)tot : 0.0);
		return n;
	}
	if (mu.job.result == -pte_canceled)
		LINE("stopped (C-c); partial:");
	else if (mu.job.result < 0)
		LINE("failed: %s", pte_strerror(mu.job.result));
	LINE("bytes %" PRIu64 "  packets %" PRIu64, s->bytes, s->packets);
	LINE("psb %" PRIu64 "  tip %" PRIu64 "  ovf %" PRIu64 "  errors %" PRIu64,
	     s->psbs, s->tips, s->ovfs, s->errors);
	LINE("tnt bits %" PRIu64 " (taken %" PRIu64 ", not %" PRIu64 ")",
	     s->tnt_bits, s->taken, s->not_taken);
	LINE("cyc %" PRIu64 " cycles  cbr changes %" PRIu64, s->cyc_cycles, s->cbr_changes);
	if (s->has_tsc)
		LINE("tsc ticks %" PRIu64, s->tsc_ticks);
	/* The time model's time between the region's edges. */
	if (s->has_time) {
		status_fmt_ns_res(t, sizeof(t), s->duration_ns, 1);
		LINE("duration %s", t);
	} else if (s->has_span && !isnan(status_tsc_ns(ui, 0, s->span_ticks))) {
		status_fmt_ns_res(t, sizeof(t), status_tsc_ns(ui, 0, s->span_ticks), 1);
		LINE("duration %s%s", status_time_estimated(ui) ?
		     screen_glyph(ui, "≈", "~") : "", t);
	} else if (s->has_span) {
		LINE("duration %" PRIu64 " TSC ticks (no TSC frequency)", s->span_ticks);
	} else {
		LINE("duration ? (no timing)");
	}
	if (s->freq_avg_mhz > 0)
		LINE("MHz avg %.0f (%s) min %.0f max %.0f", s->freq_avg_mhz,
		     s->freq_avg_wall ? "halts included" : "halts excluded",
		     s->freq_min_mhz, s->freq_max_mhz);
	LINE("sync %" PRIu64 " branch %" PRIu64 " ip %" PRIu64 " timing %" PRIu64,
	     s->by_class[PKC_SYNC], s->by_class[PKC_BRANCH], s->by_class[PKC_IP],
	     s->by_class[PKC_TIMING]);
	LINE("mode %" PRIu64 " power %" PRIu64 " error %" PRIu64 " other %" PRIu64,
	     s->by_class[PKC_MODE], s->by_class[PKC_POWER], s->by_class[PKC_ERROR],
	     s->by_class[PKC_OTHER]);
	if (s->gaps)
		LINE("gaps (lost data) %" PRIu64, s->gaps);
	/* The delta to the reference mark (the last one set). */
	if (ui->ref_name) {
		uint64_t ta = marks_ui_tsc_at(ui, ui->ref_off), tb = marks_ui_tsc_at(ui, mu.job.from);
		double ns = ta && tb ? status_tsc_ns(ui, ta, tb) : NAN;

		/* Every digit a tick shows: regions may lie nanoseconds
		 * apart deep in a trace. */
		status_fmt_tsc_ns(ui, t, sizeof(t), ns, 1);
		snprintf(a, sizeof(a), "%s0x%" PRIx64, mu.job.from >= ui->ref_off ? "+" : "-",
			 mu.job.from >= ui->ref_off ? mu.job.from - ui->ref_off :
			 ui->ref_off - mu.job.from);
		LINE("from %.24s: %.40s bytes, %.40s", ui->ref_label, a, t);
	}
#undef LINE
	return n;
}

/* Draw the summary box at (@y, @x), @w wide, at most @h rows. */
static void marks_ui_summary_box(struct ui *ui, int y, int x, int w, int h)
{
	char lines[16][128];
	int n = marks_ui_summary_lines(ui, lines, 16), i;

	if (n > h)
		n = h;
	for (i = 0; i < n; i++) {
		attrset(i == 0 ? screen_attr(ui, SC_HEADER) | (int)A_BOLD :
			screen_attr(ui, SC_STATUS));
		screen_clear(y + i, x, w);
		screen_put(y + i, x + 1, w - 1, lines[i]);
	}
	attrset(A_NORMAL);
}

void marks_ui_draw_overlay(struct ui *ui)
{
	struct pane *pk = &ui->panes[UI_PANE_PACKETS], *cy = &ui->panes[UI_PANE_CYCLES];
	long i = marks_ui_region_at(ui, ui->cursor);
	int w, x, h;

	if (mu.visual && !ui->msg[0] && !prompt_is_open(ui)) {
		uint64_t from, to;

		/* The selection, while it lasts (keys clear the message). */
		marks_ui_selection(ui, &from, &to);
		ui_message(ui, UI_INFO, "-- VISUAL -- 0x%" PRIx64 "-0x%" PRIx64 " (%" PRIu64
			   " bytes)  Enter names it, Esc cancels", from, to, to - from);
	}
	if (i < 0 || mu.visual)
		return;
	marks_ui_summarize(ui, marks_at(ui->bm, (size_t)i));
	/* Over the cycle pane's lower part, else the packet pane's. */
	if (cy->h > 0 && cy->w >= 30) {
		w = cy->w;
		x = cy->x;
	} else {
		w = pk->w < MU_SUMMARY_PANEL_W ? pk->w : MU_SUMMARY_PANEL_W;
		x = pk->x + pk->w - w;
	}
	h = pk->h - 1 < 14 ? pk->h - 1 : 14;
	if (h < 2)
		return;
	marks_ui_summary_box(ui, pk->y + pk->h - h, x, w, h);
}

/*
 * The list view: marks and regions, or streams.
 */

static const struct view_ops marks_list_view, streams_list_view;

/* Whether list view @v is the streams list (else marks and regions). */
static int marks_ui_is_streams(const struct view *v)
{
	return v->ops == &streams_list_view;
}

static long marks_ui_view_rows(struct ui *ui, const struct view *v)
{
	if (marks_ui_is_streams(v))
		return (long)ui->trace->nstreams;
	return ui->bm ? (long)marks_count(ui->bm) : 0;
}

/* The height of the list part (the rest shows the summary). */
static int marks_ui_view_list_h(struct ui *ui, const struct view *v)
{
	int h = ui->rows - 3;

	if (!marks_ui_is_streams(v) && h > 16)
		h -= 13;
	return h < 1 ? 1 : h;
}

/* Open the marks list (@streams: the streams list) on entry @first, or
 * else the entry at or before the cursor. */
static void marks_ui_view_open(struct ui *ui, int streams, const char *first)
{
	mu.sel = mu.top = 0;
	mu.confirm = 0;
	if (streams)
		mu.sel = ui->stream_no;
	else if (first && ui->bm && marks_find(ui->bm, first) >= 0)
		mu.sel = marks_find(ui->bm, first);
	else if (ui->bm) {
		/* The entry at or before the cursor. */
		long i = marks_next(ui->bm, ui->cursor + 1, -1, ~0u);

		mu.sel = i < 0 ? 0 : i;
	}
	view_push(ui, streams ? &streams_list_view : &marks_list_view, NULL);
}

/* One row of the marks list. */
static void marks_ui_mark_row(struct ui *ui, const struct marks_entry *e, char *buf, size_t size)
{
	static const char *const kinds[] = { "mark", "bookmark", "region" };
	char t[48] = "", note[80] = "";
	uint64_t tsc = marks_ui_tsc_at(ui, e->from);
	size_t k;

	/* Every digit (marks may lie nanoseconds apart deep in a trace);
	 * ticks without a TSC frequency; '≈' on an estimated one. */
	if (tsc && ui->have_t0) {
		double ns = status_tsc_ns(ui, ui->t0, tsc);
		char v[40];

		if (isnan(ns))
			snprintf(t, sizeof(t), "+%" PRIu64 "t", tsc >= ui->t0 ? tsc - ui->t0 : 0);
		else {
			status_fmt_ns_res(v, sizeof(v), ns, 1);
			snprintf(t, sizeof(t), "%s%s", status_time_estimated(ui) ?
				 screen_glyph(ui, "≈", "~") : "", v);
		}
	}
	if (e->note) {
		for (k = 0; e->note[k] && k + 1 < sizeof(note); k++)
			note[k] = e->note[k] == '\n' || e->note[k] == '\t' ? ' ' : e->note[k];
		note[k] = 0;
	}
	if (e->kind == BM_REGION)
		snprintf(buf, size, "%-8s %-16s 0x%08" PRIx64 "-0x%08" PRIx64 " %12s  %s",
			 kinds[e->kind], e->name, e->from, e->to, t, note);
	else
		snprintf(buf, size, "%-8s %-16s 0x%08" PRIx64 "            %12s  %s",
			 kinds[e->kind], e->name[0] ? e->name : "-", e->from, t, note);
}

/* The PSBs of stream @i, counted once over at most MU_PSB_SCAN bytes.
 * Sets *@more if the count stopped early. */
#define MU_PSB_SCAN (256u << 20)
static uint64_t marks_ui_stream_psbs(struct ui *ui, size_t i, int *more)
{
	static uint64_t count[256];
	static uint8_t done[256], partial[256];
	const struct img *img = &ui->trace->streams[i].img;
	struct img_cursor cur;
	uint64_t n = 0, off = 0;

	if (i < 256 && done[i]) {
		*more = partial[i];
		return count[i];
	}
	*more = 0;
	while (!img_cursor_init(&cur, img, off) && !img_cursor_sync_forward(&cur, off)) {
		n++;
		off = img_cursor_offset(&cur) + 1;
		if (off > MU_PSB_SCAN) {
			*more = 1;
			break;
		}
	}
	if (i < 256) {
		count[i] = n;
		partial[i] = (uint8_t)*more;
		done[i] = 1;
	}
	return n;
}

/* One row of the streams list. */
static void marks_ui_stream_row(struct ui *ui, size_t i, char *buf, size_t size)
{
	const struct trace_stream *s = &ui->trace->streams[i];
	int more;
	uint64_t n = marks_ui_stream_psbs(ui, i, &more);

	snprintf(buf, size, "%-10s cpu %-4d %12" PRIu64 " bytes  %6" PRIu64 "%s PSBs%s%s",
		 s->name, s->cpu, s->img.size, n, more ? "+" : "",
		 s->snapshot ? "  snapshot" : "", i == (size_t)ui->stream_no ? "  (current)" : "");
}

static void marks_ui_view_draw(struct ui *ui, struct view *v)
{
	int streams = marks_ui_is_streams(v);
	long n = marks_ui_view_rows(ui, v), i;
	int h = marks_ui_view_list_h(ui, v), y;
	char buf[512];

	erase();
	attrset(screen_attr(ui, SC_HEADER) | A_BOLD);
	screen_clear(0, 0, ui->cols);
	if (streams)
		snprintf(buf, sizeof(buf), " streams of %s: %ld   Enter switches  q closes",
			 ui->name, n);
	else
		snprintf(buf, sizeof(buf), " marks and regions: %ld   Enter jumps  r rename  "
			 "e note  d delete  q closes", n);
	screen_put(0, 0, ui->cols, buf);
	attrset(A_NORMAL);
	if (mu.sel >= n)
		mu.sel = n ? n - 1 : 0;
	if (mu.sel < mu.top)
		mu.top = mu.sel;
	if (mu.sel >= mu.top + h)
		mu.top = mu.sel - h + 1;
	for (y = 0, i = mu.top; y < h && i < n; y++, i++) {
		if (streams)
			marks_ui_stream_row(ui, (size_t)i, buf, sizeof(buf));
		else
			marks_ui_mark_row(ui, marks_at(ui->bm, (size_t)i), buf, sizeof(buf));
		attrset(i == mu.sel ? A_REVERSE : A_NORMAL);
		screen_clear(1 + y, 0, ui->cols);
		screen_put(1 + y, 1, ui->cols - 1, buf);
	}
	attrset(A_NORMAL);
	if (!n)
		screen_put(1, 1, ui->cols - 1, streams ? "(no streams)" :
			   "(no marks: m L, M, :mark NAME, v ... Enter)");
	/* The selected region's summary below the list. */
	if (!streams && n && h < ui->rows - 3) {
		const struct marks_entry *e = marks_at(ui->bm, (size_t)mu.sel);

		if (e && e->kind == BM_REGION) {
			marks_ui_summarize(ui, e);
			marks_ui_summary_box(ui, 2 + h, 0, ui->cols, ui->rows - 3 - h - 1);
		}
	}
	status_draw(ui);
}

/* Put @s quoted for the prompt into @buf. */
static void marks_ui_quote(const char *s, char *buf, size_t size)
{
	char *p = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&p, &len);

	buf[0] = 0;
	if (!f)
		return;
	marks_put_quoted(f, s ? s : "");
	fclose(f);
	if (p)
		snprintf(buf, size, "%s", p);
	free(p);
}

static int marks_ui_view_key(struct ui *ui, struct view *v, int key)
{
	long n = marks_ui_view_rows(ui, v);
	int h = marks_ui_view_list_h(ui, v);
	const struct marks_entry *e = NULL;
	char buf[BM_NOTE_MAX + 128], q[BM_NOTE_MAX + 64];

	if (!marks_ui_is_streams(v) && n && mu.sel < n)
		e = marks_at(ui->bm, (size_t)mu.sel);
	if (mu.confirm) {
		mu.confirm = 0;
		if ((key == 'y' || key == 'Y') && e) {
			int r;

			snprintf(buf, sizeof(buf), "deleted %s", e->name[0] ? e->name : "bookmark");
			marks_ui_forget_ref(ui, e);
			r = marks_delete(ui->bm, (size_t)mu.sel);
			marks_ui_result(ui, r, buf);
		} else {
			ui_message(ui, UI_INFO, "not deleted");
		}
		return UI_DRAW_ALL;
	}
	ui->msg[0] = 0;
	switch (key) {
	case 'q': case 27: case 'Q': case 7:	/* C-g */
		view_close(ui, v->ops);
		return UI_DRAW_ALL;
	case 3:	/* C-c: stop the summary */
		if (marks_ui_busy(ui))
			marks_summary_cancel(&mu.job);
		return UI_DRAW_ALL;
	case 'j': case KEY_DOWN: case 14:
		if (mu.sel + 1 < n)
			mu.sel++;
		return UI_DRAW_ALL;
	case 'k': case KEY_UP: case 16:
		if (mu.sel > 0)
			mu.sel--;
		return UI_DRAW_ALL;
	case KEY_NPAGE: case ' ':
		mu.sel = mu.sel + h < n ? mu.sel + h : n ? n - 1 : 0;
		return UI_DRAW_ALL;
	case KEY_PPAGE: case 'b':
		mu.sel = mu.sel > h ? mu.sel - h : 0;
		return UI_DRAW_ALL;
	case 'g': case KEY_HOME: case '<':
		mu.sel = 0;
		return UI_DRAW_ALL;
	case 'G': case KEY_END: case '>':
		mu.sel = n ? n - 1 : 0;
		return UI_DRAW_ALL;
	case '\r': case '\n': case KEY_ENTER:
		if (!n)
			return UI_DRAW_ALL;
		view_close(ui, v->ops);
		if (mu.sel < n && ui->trace->nstreams > (size_t)mu.sel && !e)
			return streams_ui_switch(ui, (int)mu.sel);
		return e ? nav_jump(ui, e->from) : UI_DRAW_ALL;
	case 'd': case KEY_DC:
		if (!e)
			return UI_DRAW_ALL;
		mu.confirm = 1;
		ui_message(ui, UI_WARN, "delete %s %s? (y/n)", e->kind == BM_REGION ? "region" :
			   e->kind == BM_MARK ? "mark" : "bookmark",
			   e->name[0] ? e->name : "(anonymous)");
		return UI_DRAW_ALL;
	case 'r':
		if (!e)
			return UI_DRAW_ALL;
		if (!e->name[0]) {
			ui_message(ui, UI_WARN, "an anonymous bookmark: name one with :mark NAME");
			return UI_DRAW_ALL;
		}
		snprintf(buf, sizeof(buf), "mark -r %s ", e->name);
		prompt_open(ui, buf);
		return UI_DRAW_ALL;
	case 'e':
		if (!e)
			return UI_DRAW_ALL;
		if (!e->name[0]) {
			ui_message(ui, UI_WARN, "an anonymous bookmark has no note: name it first (r)");
			return UI_DRAW_ALL;
		}
		marks_ui_quote(e->note, q, sizeof(q));
		snprintf(buf, sizeof(buf), "mark -n %s %s", e->name, q);
		prompt_open(ui, buf);
		return UI_DRAW_ALL;
	case ':':
		prompt_open(ui, NULL);
		return UI_DRAW_ALL;
	default:
		return UI_DRAW_NONE;
	}
}

static const struct view_ops marks_list_view = {
	.name = "marks",
	.flags = VIEW_OPAQUE,
	.draw = marks_ui_view_draw,
	.key = marks_ui_view_key,
};

static const struct view_ops streams_list_view = {
	.name = "streams",
	.flags = VIEW_OPAQUE,
	.draw = marks_ui_view_draw,
	.key = marks_ui_view_key,
};

/*
 * The actions.
 */

int marks_ui_action(struct ui *ui, const struct km_result *res)
{
	uint64_t off;

	switch (res->action) {
	case ACTION_MARK: return marks_ui_mark(ui, res->args);
	case ACTION_DELMARK: return marks_ui_delete(ui, res->args, 0);
	case ACTION_DELREGION: return marks_ui_delete(ui, res->args, 1);
	case ACTION_CLEAR_MARK: return marks_ui_clear_mark(ui, res->key);
	case ACTION_REGION: return marks_ui_region(ui, res->args);
	case ACTION_REGION_ADD: return marks_ui_region_add(ui, res->args);
	case ACTION_EXPORT: return marks_ui_export(ui, res->args);
	case ACTION_EXPORT_MARKS: return marks_ui_share(ui, res->args, 0);
	case ACTION_IMPORT_MARKS: return marks_ui_share(ui, res->args, 1);
	case ACTION_MARKS:
		if (marks_ui_no_marks(ui))
			return UI_DRAW_STATUS;
		marks_ui_view_open(ui, 0, NULL);
		return UI_DRAW_ALL;
	case ACTION_REGIONS: {
		char tok[MU_NTOK][MU_TOKLEN];
		int q[MU_NTOK], n = marks_ui_split(res->args, tok, q);

		if (marks_ui_no_marks(ui))
			return UI_DRAW_STATUS;
		/* :regions A B: A's summary with its delta from B */
		if (n > 1 && marks_ui_ref(ui, tok[1]) != UI_DRAW_ALL)
			return UI_DRAW_STATUS;
		marks_ui_view_open(ui, 0, n > 0 ? tok[0] : NULL);
		if (n <= 0) {
			/* The first region. */
			long i = marks_next(ui->bm, 0, 1, 1u << BM_REGION);

			if (marks_count(ui->bm) && marks_at(ui->bm, 0)->kind == BM_REGION)
				i = 0;
			if (i >= 0)
				mu.sel = i;
		}
		return UI_DRAW_ALL;
	}
	case ACTION_REF: {
		char tok[MU_NTOK][MU_TOKLEN];
		int q[MU_NTOK], n = marks_ui_split(res->args, tok, q);

		return marks_ui_ref(ui, n > 0 ? tok[0] : "");
	}
	case ACTION_STREAMS: {
		int s;

		if (!res->args[0]) {
			marks_ui_view_open(ui, 1, NULL);
			return UI_DRAW_ALL;
		}
		s = trace_find_stream(ui->trace, res->args);
		if (s < 0) {
			ui_message(ui, UI_ERROR, "streams: no stream '%s'", res->args);
			return UI_DRAW_STATUS;
		}
		return streams_ui_switch(ui, s);
	}
	case ACTION_VISUAL:
		if (!mu.visual) {
			mu.visual = 1;
			mu.anchor = ui->cursor;
			ui_message(ui, UI_INFO, "-- VISUAL --  move, then Enter (or :region NAME); "
				   "Esc cancels");
		} else {
			ui_message(ui, UI_INFO, "-- VISUAL --  from 0x%" PRIx64, mu.anchor);
		}
		return UI_DRAW_ALL;
	case ACTION_CANCEL:
		if (!mu.visual)
			return UI_NOT_MINE;
		mu.visual = 0;
		ui_message(ui, UI_INFO, "selection cancelled");
		return UI_DRAW_ALL;
	case ACTION_INTERRUPT:
		if (!marks_ui_busy(ui))
			return UI_NOT_MINE;
		marks_summary_cancel(&mu.job);
		ui_message(ui, UI_WARN, "region summary stopped");
		return UI_DRAW_ALL;
	case ACTION_PUSH_MARK:
		if (res->has_count) {	/* C-u C-SPC pops */
			struct km_result r = *res;

			r.action = ACTION_POP_MARK;
			r.has_count = 0;
			return marks_ui_action(ui, &r);
		}
		mu.push = ui->cursor;
		mu.have_push = 1;
		ui_message(ui, UI_INFO, "mark set at 0x%" PRIx64, ui->cursor);
		return UI_DRAW_STATUS;
	case ACTION_POP_MARK:
	case ACTION_EXCHANGE_MARK:
		if (!mu.have_push) {
			ui_message(ui, UI_WARN, "no mark set in this buffer (C-SPC)");
			return UI_DRAW_STATUS;
		}
		off = mu.push;
		if (res->action == ACTION_EXCHANGE_MARK)
			mu.push = ui->cursor;
		else
			mu.have_push = 0;
		return nav_jump(ui, off);
	default:
		return UI_NOT_MINE;
	}
}
