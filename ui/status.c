/* status -- the header, the status line and the message line. */
#include <curses.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "funcs_idx.h"
#include "goto_idx.h"
#include "msg.h"
#include "nav.h"
#include "pane_cycles.h"
#include "screen.h"
#include "search_ui.h"
#include "status.h"
#include "sym_ui.h"
#include "timefmt.h"
#include "timing_file.h"
#include "trace.h"
#include "ui.h"

/* Rows counted from a segment's PSB for the cursor's ordinal. */
#define STATUS_COUNT_MAX 200000
/* The fewest columns of the file's name in the header: fewer, and
 * "ptbrowse" gives its place. */
#define STATUS_NAME_MIN 12
/* The fewest characters of a note cut to fit the status line. */
#define STATUS_NOTE_MIN 8

/* The size as "2.0GiB". */
static void status_fmt_size(char *buf, size_t size, uint64_t v)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double d = (double)v;
	int u = 0;

	while (d >= 1024 && u < 4)
		d /= 1024, u++;
	snprintf(buf, size, u ? "%.1f%s" : "%.0f%s", d, unit[u]);
}

/* The index's state as "index 45%" or "" when done. */
static void status_fmt_index(const struct ui *ui, char *buf, size_t size, double *frac)
{
	struct idx_progress p;

	buf[0] = 0;
	*frac = -1;
	if (!ui->idx)
		return;
	idx_progress(ui->idx, &p);
	if (p.finished) {
		if (p.status && p.status != -pte_canceled)
			snprintf(buf, size, "index: %s", pte_strerror(p.status));
		else if (p.status == -pte_canceled)
			snprintf(buf, size, "index cancelled");
		return;
	}
	if (p.phase == IDX_IDLE)
		return;
	/* One bar for the whole build, whatever phase it is in. */
	*frac = p.frac;
	snprintf(buf, size, "index %2.0f%%", *frac * 100);
}

void status_timing_hint(struct ui *ui)
{
	char hint[512];

	if (timing_file_hint(ui->trace, &ui->tmcfg, hint, sizeof(hint)))
		msg_report(ui, UI_INFO, "%s", hint);
}

/* The header's left part into @out (@len bytes) for @cols columns: the
 * name cut in its middle where it does not fit, then without "ptbrowse",
 * then the size and the index alone, then the index alone.  The size and
 * the index's progress are shown whole or not at all: cut, "index 30%"
 * read "index 3". */
static void status_header_left(const struct ui *ui, char *out, size_t len,
			       const char *name, const char *size, const char *idx)
{
	const char *ell = screen_glyph(ui, "…", "...");
	char nm[400];
	int pass;

	for (pass = 0; pass < 2; pass++) {
		const char *pre = pass ? " " : " ptbrowse ";
		int room = ui->cols - (int)strlen(pre) - 1 - screen_cols(size) -
			   (idx[0] ? 2 + screen_cols(idx) : 0);

		snprintf(nm, sizeof(nm), "%s", name);
		screen_mid_cut(nm, sizeof(nm), room, ell);
		if (room >= STATUS_NAME_MIN && screen_cols(nm) <= room) {
			snprintf(out, len, "%s%s %s%s%s", pre, nm, size, idx[0] ? "  " : "", idx);
			return;
		}
	}
	if (1 + screen_cols(size) + (idx[0] ? 2 + screen_cols(idx) : 0) <= ui->cols)
		snprintf(out, len, " %s%s%s", size, idx[0] ? "  " : "", idx);
	else if (1 + screen_cols(idx) <= ui->cols)
		snprintf(out, len, " %s", idx);
	else
		out[0] = 0;
}

void status_draw_header(struct ui *ui)
{
	char left[600], name[400], size[32], idx[64], right[96];
	double frac;
	int lw, rw;

	status_fmt_size(size, sizeof(size), ui->img->size);
	status_fmt_index(ui, idx, sizeof(idx), &frac);
	if (!idx[0])
		funcs_idx_status(ui, idx, sizeof(idx));
	/* A perf.data file: the stream shown ("perf.data:cpu3"), even when
	 * it is the only one. */
	if (ui->trace->perf)
		snprintf(name, sizeof(name), "%s:%s", ui->name,
			 ui->trace->streams[ui->stream_no].name);
	else
		snprintf(name, sizeof(name), "%s", ui->name);
	status_header_left(ui, left, sizeof(left), name, size, idx);
	snprintf(right, sizeof(right), "F1 help  [%s] ", ui->keymap_name);
	attrset(screen_attr(ui, SC_HEADER) | A_BOLD);
	screen_clear(0, 0, ui->cols);
	lw = screen_put(0, 0, ui->cols, left);
	rw = (int)strlen(right);
	if (lw + rw < ui->cols)
		screen_put(0, ui->cols - rw, rw, right);
	attrset(A_NORMAL);
}

/* The PSB segment row @r is in, as `:goto psb N` counts them (from 0), of
 * how many: "  psb 12/30984" ("/30000+" while the index still looks for
 * PSBs; "psb ?/30000+" where it has not looked yet), into @buf; nothing
 * before the first PSB or without an index.
 * Returns the length written (less than @size). */
static size_t status_psb_where(struct ui *ui, const struct win_row *r, char *buf,
			       size_t size)
{
	size_t seg = 0;
	int n, k;

	buf[0] = 0;
	if (!ui->idx || (r->flags & WIN_F_PRE_PSB) ||
	    (k = goto_idx_psb_known(ui->idx, r->pkt.offset, &seg)) < 0)
		return 0;
	if (k)	/* 2: stopped, none will come */
		n = snprintf(buf, size, "  psb ?/%zu%s", idx_nseeks(ui->idx),
			     k == 1 ? "+" : "");
	else
		n = snprintf(buf, size, "  psb %zu/%zu%s", seg, idx_nseeks(ui->idx),
			     idx_scan_done(ui->idx) ? "" : "+");
	return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}

/* Where the cursor row is, as the status line's fields. */
struct status_where {
	char ord[32];		/* " #N", " #?" until the index counted */
	char psb[64];		/* "  psb 12/30984" */
	char tsc[40];		/* "  tsc ~0x1078ca5a9bea" */
	char time[64];		/* "  ~25.503762 ms" */
};

/* The cursor row @r's packet number among the packets of the trace,
 * counted from its segment's PSB within bounds (a huge segment without
 * PSBs shows "#?"), into @w->ord. */
static void status_ordinal(struct ui *ui, const struct win_row *r, struct status_where *w)
{
	struct idx_summary s;
	struct win_iter it = { 0 };
	struct idx_seek sk;
	uint64_t rel = 0;
	size_t seg;
	int ok = 0;

	snprintf(w->ord, sizeof(w->ord), " #?");
	/* once phase 2 has counted this segment */
	if (!ui->idx || (r->flags & WIN_F_PRE_PSB) ||
	    idx_find(ui->idx, r->pkt.offset, &seg) || idx_summary(ui->idx, seg, &s))
		return;
	if (!idx_seek(ui->idx, seg, &sk) && !win_seek(&it, ui->wc, sk.offset)) {
		while (rel < STATUS_COUNT_MAX &&
		       win_row(&it)->pkt.offset < r->pkt.offset && !win_next(&it))
			rel++;
		ok = win_row(&it)->pkt.offset == r->pkt.offset;
	}
	win_iter_release(&it);
	if (ok)
		snprintf(w->ord, sizeof(w->ord), " #%" PRIu64, s.first_ordinal + rel);
}

/* The cursor row @r's packet number, its PSB segment, its TSC and time,
 * into @w. */
static void status_row_where(struct ui *ui, const struct win_row *r, struct status_where *w)
{
	memset(w, 0, sizeof(*w));
	status_ordinal(ui, r, w);
	status_psb_where(ui, r, w->psb, sizeof(w->psb));
	if (r->ts.flags & TM_F_TSC) {
		/* Marked as the cycle pane marks it: '~' where the time
		 * model estimated it between timing packets, '?' where
		 * disputed. */
		const char *mark = timefmt_row_mark(ui, r);

		snprintf(w->tsc, sizeof(w->tsc), "  tsc %s0x%" PRIx64, mark, r->ts.tsc);
		if (ui->have_t0) {
			double ns = timefmt_tsc_diff(ui, ui->t0, r->ts.tsc);
			char v[40];

			/* Without a TSC frequency: ticks, as in the pane;
			 * with an estimated one, an estimated time. */
			if (isnan(ns))
				snprintf(v, sizeof(v), "+%" PRIu64 "t", r->ts.tsc >= ui->t0 ?
					 r->ts.tsc - ui->t0 : 0);
			else
				timefmt_ns_res(v, sizeof(v), ns,
						  ui->time_res > 0 ? ui->time_res : 1e9);
			snprintf(w->time, sizeof(w->time), "  %s%s%s", mark,
				 !isnan(ns) && timefmt_estimated(ui) ?
				 screen_glyph(ui, "≈", "~") : "", v);
		}
	}
}

/* Display columns of UTF-8 @s (the status line's glyphs are one wide). */
static int status_cols(const char *s, size_t n)
{
	int c = 0;

	for (; n-- && *s; s++)
		c += ((unsigned char)*s & 0xc0) != 0x80;
	return c;
}

/* The field status_fit() leaves out or cuts next: the kept one of the
 * highest rank, the later of a tie; @n if none. */
static size_t status_fit_next(const struct status_field *f, size_t n, unsigned keep)
{
	size_t i, at = n;
	int worst = 0;

	for (i = 0; i < n; i++)
		if ((keep >> i & 1) && f[i].cols > 0 && f[i].rank > 0 && f[i].rank >= worst) {
			worst = f[i].rank;
			at = i;
		}
	return at;
}

unsigned status_fit(struct status_field *f, size_t n, int width)
{
	unsigned keep = n >= 32 ? ~0u : (1u << n) - 1;
	int total = 0, r, w;
	size_t i, at;

	if (n > 32)
		n = 32;
	for (i = 0; i < n; i++)
		total += f[i].cols = f[i].text ? status_cols(f[i].text, (size_t)-1) : 0;
	while (total > width && (at = status_fit_next(f, n, keep)) < n) {
		if (f[at].min && f[at].cols - (total - width) >= f[at].min) {
			f[at].cols -= total - width;
			total = width;
			break;
		}
		total -= f[at].cols;
		f[at].cols = 0;
		keep &= ~(1u << at);
	}
	/* What fits again, whole, in rank order */
	for (r = 1; r < 64; r++)
		for (i = 0; i < n; i++) {
			if ((keep >> i & 1) || f[i].rank != r || !f[i].text ||
			    (w = status_cols(f[i].text, (size_t)-1)) == 0 || total + w > width)
				continue;
			keep |= 1u << i;
			f[i].cols = w;
			total += w;
		}
	return keep;
}

size_t status_add_note(char *buf, size_t size, size_t len, const char *note,
		       int width, int utf8)
{
	const char *ell = utf8 ? "…" : "...";
	int left = width - status_cols(buf, len);
	size_t n = 0;

	if (len + 1 >= size)
		return len;
	if (status_cols(note, (size_t)-1) + 4 <= left) {
		len += (size_t)snprintf(buf + len, size - len, "  [%s]", note);
		return len < size ? len : size - 1;
	}
	/* What is left after "  [", the ellipsis and "]": a few words, else
	 * no note rather than a stub. */
	left -= 4 + status_cols(ell, (size_t)-1);
	if (left < STATUS_NOTE_MIN)
		return len;
	for (; note[n] && left > 0; left--)
		while (((unsigned char)note[++n] & 0xc0) == 0x80)
			;
	/* At the end of a word where there is one. */
	if (note[n] && note[n] != ' ' && memchr(note, ' ', n))
		while (note[n - 1] != ' ')
			n--;
	while (n && note[n - 1] == ' ')
		n--;
	len += (size_t)snprintf(buf + len, size - len, "  [%.*s%s]", (int)n, note, ell);
	return len < size ? len : size - 1;
}

/* The status line's fields, in the order shown; the ranks say which go
 * first where the line is too narrow: the offset stays, then the filter
 * (the rows shown are not all), the percentage, the search and its rank,
 * the packet, its time, its segment, the trace's size, its TSC, its
 * number. */
enum { SF_POS, SF_SIZE, SF_PCT, SF_TYPE, SF_ORD, SF_PSB, SF_TSC, SF_TIME, SF_SRCH,
       SF_FILT, SF_N };
static const int status_rank[SF_N] = {
	[SF_POS] = 0, [SF_FILT] = 1, [SF_PCT] = 2, [SF_SRCH] = 3, [SF_TYPE] = 4,
	[SF_TIME] = 5, [SF_PSB] = 6, [SF_SIZE] = 7, [SF_TSC] = 8, [SF_ORD] = 9,
};
/* The fewest columns a search's or a filter's text is cut to. */
#define STATUS_TEXT_MIN 16

/* The status line's text for the cursor within @width columns into @buf:
 * the fields that fit, the code at the cursor in the room they and the
 * note leave, then the note cut to fit. */
static void status_text(struct ui *ui, char *buf, size_t size, int width)
{
	struct status_field f[SF_N];
	struct status_where w;
	struct win_row row;
	const char *note = NULL;
	char pos[24], total[24], pct[16], type[24] = "", srch[200] = "", filt[200] = "",
	     code[256] = "", cut[200];
	size_t len = 0, i;
	unsigned keep;
	int have_row, room, used = 0;

	memset(&w, 0, sizeof(w));
	snprintf(pos, sizeof(pos), " 0x%" PRIx64, ui->cursor);
	snprintf(total, sizeof(total), "/0x%" PRIx64, ui->img->size);
	snprintf(pct, sizeof(pct), " %.1f%%", ui->img->size ?
		 100.0 * (double)ui->cursor / (double)ui->img->size : 0);
	have_row = !nav_cursor_row(ui, &row);
	if (have_row) {
		snprintf(type, sizeof(type), "  %s", row.flags & WIN_F_ERROR ? "error" :
			 pkt_type_name(row.pkt.type));
		status_row_where(ui, &row, &w);
		note = pane_cycles_note(&row);
		if (!note && (row.ts.flags & TM_F_TSC)) {
			int d = timefmt_disputed(ui, row.pkt.offset, row.ts.tsc);

			if (d == 1)
				note = "time disputed: its PSB's TSC and the neighbours' disagree";
			else if (d == 2)
				note = "time disputed: past the next PSB's TSC (a damaged TSC before it)";
		}
	}
	/* "/tip [3/41]", "filter: ovf" (search_ui.c). */
	search_ui_status(ui, srch, sizeof(srch), filt, sizeof(filt));
	f[SF_POS].text = pos;
	f[SF_SIZE].text = total;
	f[SF_PCT].text = pct;
	f[SF_TYPE].text = type;
	f[SF_ORD].text = w.ord;
	f[SF_PSB].text = w.psb;
	f[SF_TSC].text = w.tsc;
	f[SF_TIME].text = w.time;
	f[SF_SRCH].text = srch;
	f[SF_FILT].text = filt;
	for (i = 0; i < SF_N; i++) {
		f[i].rank = status_rank[i];
		f[i].min = i == SF_SRCH || i == SF_FILT ? STATUS_TEXT_MIN : 0;
	}
	keep = status_fit(f, SF_N, width);
	/* (the number is the packet's: not without it) */
	if (!(keep >> SF_TYPE & 1))
		keep &= ~(1u << SF_ORD);
	for (i = 0; i < SF_N; i++)
		if (keep >> i & 1)
			used += f[i].cols;
	/* The code at the cursor (function, file:line, task) in what the
	 * fields and the note leave of it. */
	room = width - 1 - used - (note ? status_cols(note, (size_t)-1) + 4 : 0);
	if (have_row && room > 0)
		sym_ui_status(ui, &row, code, sizeof(code), room);
	for (i = 0; i < SF_N && len + 1 < size; i++) {
		if (i == SF_SRCH)
			len += (size_t)snprintf(buf + len, size - len, "%s", code);
		if (!(keep >> i & 1) || len + 1 >= size)
			continue;
		snprintf(cut, sizeof(cut), "%s", f[i].text);
		/* a text that keeps its start and its end: "  /tip | t…ge [3/41]" */
		if (f[i].cols < status_cols(cut, (size_t)-1))
			screen_mid_cut(cut, sizeof(cut), f[i].cols, screen_glyph(ui, "…", "..."));
		len += (size_t)snprintf(buf + len, size - len, "%s", cut);
	}
	if (len >= size)
		len = size - 1;
	/* Last: how to read the cycle pane's numbers here, cut to fit. */
	if (note)
		status_add_note(buf, size, len, note, width, ui->utf8);
}

void status_draw(struct ui *ui)
{
	int y = ui->rows - 2;
	char buf[512], idx[64];
	double frac;
	int attr, bar, width;

	if (y < 1)
		return;
	attr = screen_attr(ui, SC_STATUS);
	attrset(attr);
	screen_clear(y, 0, ui->cols);
	status_fmt_index(ui, idx, sizeof(idx), &frac);
	/* The text ends a column before the index progress bar, if any. */
	bar = frac >= 0 && ui->cols > 60;
	width = ui->cols - (bar ? (int)strlen(idx) + 15 : 0);
	status_text(ui, buf, sizeof(buf), width);
	screen_put(y, 0, width, buf);
	/* The index progress bar, on the right while indexing. */
	if (bar) {
		int bw = 10, i, x = ui->cols - bw - (int)strlen(idx) - 4;

		screen_put(y, x, (int)strlen(idx) + 1, idx);
		x += (int)strlen(idx) + 1;
		for (i = 0; i < bw; i++)
			screen_put(y, x + i, 1, i < (int)(frac * bw + 0.5) ?
				   screen_glyph(ui, "█", "#") : screen_glyph(ui, "░", "-"));
	}
	attrset(A_NORMAL);
	/* The message line (the prompt view draws over it when open). */
	screen_clear(ui->rows - 1, 0, ui->cols);
	if (ui->msg[0]) {
		/* A message wider than the screen ends in an ellipsis where
		 * it is cut (a number cut reads as another); :messages shows
		 * it whole. */
		snprintf(buf, sizeof(buf), "%s", ui->msg);
		screen_head_cut(buf, sizeof(buf), ui->cols, screen_glyph(ui, "…", "..."));
		attrset(ui->msg_sev == UI_ERROR ? screen_attr(ui, SC_MSGERR) :
			ui->msg_sev == UI_WARN ? screen_attr(ui, SC_WARN) : 0);
		screen_put(ui->rows - 1, 0, ui->cols, buf);
		attrset(A_NORMAL);
	} else if (km_state_pending(&ui->ks)) {
		km_state_describe_pending(&ui->ks, buf, sizeof(buf));
		screen_put(ui->rows - 1, 0, ui->cols, buf);
	}
}
