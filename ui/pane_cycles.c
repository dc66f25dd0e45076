/* pane_cycles -- the cycle pane: the time of each packet-pane row. */
#include <curses.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pane_cycles.h"
#include "screen.h"
#include "search_ui.h"
#include "timefmt.h"
#include "ui.h"

/* A column: its flag, heading and width. */
static const struct {
	unsigned flag;
	const char *head, *ascii;
	int width;
} pane_cycles_cols[] = {
	{ UI_CY_DELTA, "Δcyc", "dcyc", 6 },
	{ UI_CY_CYCLES, "cycles", "cycles", 13 },
	{ UI_CY_TSC, "tsc", "tsc", 14 },
	{ UI_CY_TIME, "time", "time", 11 },
	{ UI_CY_DMARK, "Δref", "dref", 12 },
	{ UI_CY_CBR, "cbr", "cbr", 3 },
	{ UI_CY_FREQ, "MHz", "MHz", 4 },
};

#define NCOLS (sizeof(pane_cycles_cols) / sizeof(pane_cycles_cols[0]))

/* The TSC of @row as a double (with its fraction), or NAN. */
static double pane_cycles_tsc(const struct win_row *row)
{
	if (!(row->ts.flags & (TM_F_TSC | TM_F_REL)))
		return NAN;
	return (double)row->ts.tsc + row->ts.tsc_frac / 4294967296.0;
}

/* Time resolutions (ns) of the time and Δref columns on this screen. */
struct pane_cycles_res {
	double time, dref;
	const char *ref_mark;	/* the reference row's time: timefmt_row_mark() */
};

/* Cell @c of @row into @buf; times with @res's resolution. */
static void pane_cycles_cell(struct ui *ui, const struct win_row *row,
			     double ref_tsc, const struct pane_cycles_res *res,
			     unsigned flag, char *buf, size_t size)
{
	const struct tm_stamp *ts = &row->ts;
	double t;

	buf[0] = 0;
	if (row->flags & WIN_F_ERROR)
		return;
	switch (flag) {
	case UI_CY_DELTA:
		if (row->pkt.type == PKT_CYC)
			snprintf(buf, size, "%" PRIu64, row->pkt.u.cyc);
		else if ((ts->flags & TM_F_EXACT) && ts->cyc_delta)
			snprintf(buf, size, "+%" PRIu64, ts->cyc_delta);
		break;
	case UI_CY_CYCLES:
		if (!(ts->flags & TM_F_CYC))
			break;
		if (row->flags & WIN_F_SEG_REL) {
			/* Counted from this segment's PSB: the index has not
			 * yet told how many came before. */
			snprintf(buf, size, "psb+%" PRIu64, ts->cycles);
		} else if (ts->flags & TM_F_BOUNDED) {
			/* lo-hi, or lo+width when that is wider than the
			 * column's usual width; >=lo when the next CYC is
			 * beyond the window. */
			if (row->cyc_hi <= ts->cycles)
				snprintf(buf, size, "%s%" PRIu64,
					 screen_glyph(ui, "≥", ">="), ts->cycles);
			else if (snprintf(buf, size, "%" PRIu64 "-%" PRIu64,
					  ts->cycles, row->cyc_hi) >
				 pane_cycles_cols[1].width)
				snprintf(buf, size, "%" PRIu64 "+%" PRIu64,
					 ts->cycles, row->cyc_hi - ts->cycles);
		} else {
			snprintf(buf, size, "%" PRIu64, ts->cycles);
		}
		break;
	case UI_CY_TSC:
		/* an estimated TSC is marked as its time is */
		if (ts->flags & TM_F_TSC)
			snprintf(buf, size, "%s%" PRIx64, timefmt_row_mark(ui, row), ts->tsc);
		break;
	case UI_CY_TIME: {
		char tmp[40];
		double ns;

		t = pane_cycles_tsc(row);
		if (isnan(t) || !ui->have_t0 || !(ts->flags & TM_F_TSC))
			break;
		ns = timefmt_tsc_diff(ui, ui->t0, ts->tsc);
		/* Without a TSC frequency, time stays in TSC ticks. */
		if (isnan(ns))
			snprintf(tmp, sizeof(tmp), "+%" PRIu64 "t",
				 ts->tsc >= ui->t0 ? ts->tsc - ui->t0 : 0);
		else
			timefmt_ns_res(tmp, sizeof(tmp), ns, res->time);
		/* Only TSC and MTC packets carry wall-clock time; every other
		 * time is an estimate, and says so; a damaged segment's are
		 * neither. */
		snprintf(buf, size, "%s%s", timefmt_row_mark(ui, row), tmp);
		break;
	}
	case UI_CY_DMARK:
		t = pane_cycles_tsc(row);
		if (!isnan(t) && !isnan(ref_tsc) && (ts->flags & TM_F_TSC)) {
			double ns = timefmt_tsc_diff(ui, (uint64_t)ref_tsc, ts->tsc);
			const char *m = timefmt_row_mark(ui, row);
			char tmp[40];

			if (isnan(ns))
				break;
			/* a delta is as sure as its less sure end */
			if (!strcmp(res->ref_mark, "?") || (*res->ref_mark && !*m))
				m = res->ref_mark;
			timefmt_ns_res(tmp, sizeof(tmp), fabs(ns), res->dref);
			snprintf(buf, size, "%s%s%s", m, ns < 0 ? "-" : "+", tmp);
		}
		break;
	case UI_CY_CBR:
		if (ts->cbr)
			snprintf(buf, size, "%u", ts->cbr);
		break;
	case UI_CY_FREQ:
		if (ts->flags & TM_F_FREQ)
			snprintf(buf, size, "%u", (ts->khz + 500) / 1000);
		break;
	}
}

const char *pane_cycles_trouble(const struct win_row *row)
{
	if (row->ts.flags & TM_F_MTC_LOST)
		return "MTCs lost before this one";
	if (row->ts.flags & TM_F_RESYNC)
		return "timestamps disagree: time went back to this PSB+'s TSC";
	if (row->ts.flags & TM_F_TSC_BACK)
		return "TSC went back";
	if (row->ts.flags & TM_F_TMA_NO_TSC)
		return "TMA without a TSC";
	if (row->ts.flags & TM_F_CLAMPED)
		return "behind the estimate (held)";
	if (row->ts.flags & TM_F_UNTIED)
		return "MTC not tied to the crystal clock: at the estimate";
	/* An OVF says so itself. */
	if ((row->ts.flags & TM_F_LOST) && row->pkt.type != PKT_OVF)
		return "data lost: time a guess until a TSC";
	return NULL;
}

const char *pane_cycles_note(const struct win_row *row)
{
	const char *t = pane_cycles_trouble(row);

	if (t)
		return t;
	if ((row->flags & WIN_F_SEG_REL) && (row->ts.flags & TM_F_CYC))
		return "cycles from the segment's PSB until indexed";
	return NULL;
}

/* The TSC of the reference row (the last mark set), or NAN, and *@mark
 * its time's mark (timefmt_row_mark()).  A mark on a PSB comes before
 * the TSC in its PSB+: the first time after it counts. */
static double pane_cycles_ref(struct ui *ui, const char **mark)
{
	struct win_iter it = { 0 };
	double t = NAN;
	int n = 64;

	if (!ui->ref_name)
		return NAN;
	if (!win_seek(&it, ui->wc, ui->ref_off)) {
		do {
			if (win_row(&it)->ts.flags & TM_F_TSC) {
				t = (double)win_row(&it)->ts.tsc;
				*mark = timefmt_row_mark(ui, win_row(&it));
				break;
			}
		} while (n-- && !win_next(&it));
	}
	win_iter_release(&it);
	return t;
}

/* Display columns of UTF-8 @s (the glyphs used here are one wide). */
static int pane_cycles_len(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* The smallest step between distinct times @ns[0..@n) in row order, at
 * least 1 ns (1e9 if none: the usual three decimals). */
static double pane_cycles_step(const double *ns, int n)
{
	double res = 1e9, prev = NAN;
	int i;

	for (i = 0; i < n; i++) {
		double d;

		if (isnan(ns[i]))
			continue;
		d = fabs(ns[i] - prev);
		if (!isnan(prev) && d > 0 && d < res)
			res = d;
		prev = ns[i];
	}
	return res < 1 ? 1 : res;
}

/* The resolutions the times on screen need: rows @rows[0..@n). */
static void pane_cycles_resolve(struct ui *ui, const struct win_row *rows,
				int n, double ref, struct pane_cycles_res *res)
{
	double *t = malloc(sizeof(*t) * (size_t)(n ? n : 1));
	double *d = malloc(sizeof(*d) * (size_t)(n ? n : 1));
	int i;

	res->time = res->dref = 1e9;
	if (!t || !d)
		goto out_free;
	for (i = 0; i < n; i++) {
		const struct tm_stamp *ts = &rows[i].ts;
		int ok = (ts->flags & TM_F_TSC) && !(rows[i].flags & WIN_F_ERROR);

		t[i] = ok && ui->have_t0 ? timefmt_tsc_diff(ui, ui->t0, ts->tsc) : NAN;
		d[i] = ok && !isnan(ref) ?
			fabs(timefmt_tsc_diff(ui, (uint64_t)ref, ts->tsc)) : NAN;
	}
	res->time = pane_cycles_step(t, n);
	ui->time_res = res->time;
	res->dref = pane_cycles_step(d, n);
out_free:
	free(t);
	free(d);
}

/* A cell in @w columns: right-aligned, or '#' across the column when the
 * number does not fit (never cut: a cut number reads as another). */
static void pane_cycles_put(int y, int x, int w, const char *cell)
{
	int len = pane_cycles_len(cell), i;

	if (len > w) {
		for (i = 0; i < w; i++)
			screen_put(y, x + i, 1, "#");
		return;
	}
	screen_put(y, x + w - len, w, cell);
}

/* Widths for the columns shown: each as wide as its widest cell on this
 * screen (@width and @used filled by the caller), as room allows.  The
 * columns that fit at their usual widths stay (wide numbers do not push a
 * column out); the room left widens them in order, and a number that
 * still does not fit shows as '#'s.  A column that is left out gets 0. */
static void pane_cycles_widths(struct ui *ui, struct pane *p, int *width, const int *used)
{
	int x = 2, room, need = 0;
	size_t c;

	for (c = 0; c < NCOLS; c++) {
		if (!(ui->cy_cols & pane_cycles_cols[c].flag))
			continue;
		if (x + pane_cycles_cols[c].width > p->w) {
			for (; c < NCOLS; c++)
				width[c] = 0;
			break;
		}
		x += pane_cycles_cols[c].width + 1;
		need += width[c] - pane_cycles_cols[c].width;
	}
	room = p->w - x + 1;
	/* Not enough: columns empty on this screen give theirs, from the
	 * right. */
	for (c = NCOLS; c-- > 0 && room < need;) {
		if (!width[c] || !(ui->cy_cols & pane_cycles_cols[c].flag) || used[c])
			continue;
		room += pane_cycles_cols[c].width + 1;
		width[c] = 0;
	}
	for (c = 0; c < NCOLS; c++) {
		int more = width[c] - pane_cycles_cols[c].width;

		if (!width[c] || !(ui->cy_cols & pane_cycles_cols[c].flag))
			continue;
		if (more > room)
			more = room;
		width[c] = pane_cycles_cols[c].width + more;
		room -= more;
	}
}

/* The heading, in the widths @width. */
static void pane_cycles_heading(struct ui *ui, struct pane *p, const int *width)
{
	int x = 2;
	size_t c;

	screen_clear(p->y, p->x, p->w);
	screen_put(p->y, p->x, 1, screen_glyph(ui, "│", "|"));
	attrset(A_BOLD);
	for (c = 0; c < NCOLS; c++) {
		char h[32];

		if (!(ui->cy_cols & pane_cycles_cols[c].flag) || !width[c])
			continue;
		if (pane_cycles_cols[c].flag == UI_CY_DMARK && ui->ref_name)
			snprintf(h, sizeof(h), "%s%.10s",
				 screen_glyph(ui, "Δ", "d"), ui->ref_label);
		else
			snprintf(h, sizeof(h), "%s", screen_glyph(ui,
				 pane_cycles_cols[c].head, pane_cycles_cols[c].ascii));
		/* Times and frequencies from a TSC frequency estimated
		 * from P1 say so. */
		if ((pane_cycles_cols[c].flag & (UI_CY_TIME | UI_CY_DMARK | UI_CY_FREQ)) &&
		    timefmt_estimated(ui))
			snprintf(h + strlen(h), sizeof(h) - strlen(h), "%s",
				 screen_glyph(ui, "≈", "~"));
		screen_put(p->y, p->x + x, width[c], h);
		x += width[c] + 1;
	}
	attrset(A_NORMAL);
}

/* Screen row @y (1 up) of the pane: @row's cells (NULL: blank). */
static void pane_cycles_line(struct ui *ui, struct pane *p, int y, const struct win_row *row,
			     char (*cells)[48], const int *width)
{
	int sy = p->y + y, attr = 0, x = 2;
	size_t c;

	screen_clear(sy, p->x, p->w);
	screen_put(sy, p->x, 1, screen_glyph(ui, "│", "|"));
	if (!row)
		return;
	if (row->pkt.offset == ui->cursor) {
		attr = ui->focus == UI_PANE_CYCLES ? A_REVERSE : A_UNDERLINE | A_BOLD;
		attrset(attr);
		screen_clear(sy, p->x + 1, p->w - 1);
	} else if (row->ts.flags & TM_F_EXACT) {
		attr = A_BOLD;
	}
	attrset(attr);
	for (c = 0; c < NCOLS; c++) {
		if (!(ui->cy_cols & pane_cycles_cols[c].flag) || !width[c])
			continue;
		/* Numbers line up on the right. */
		pane_cycles_put(sy, p->x + x, width[c], cells[c]);
		x += width[c] + 1;
	}
	/* The time model's trouble in the gutter (the status line says what
	 * it is). */
	if (pane_cycles_trouble(row)) {
		attrset(screen_attr(ui, SC_MSGERR) | (attr & A_REVERSE));
		screen_put(sy, p->x + 1, 1, "!");
	}
	attrset(A_NORMAL);
}

static void pane_cycles_draw(struct ui *ui, struct pane *p)
{
	int ri;
	struct win_iter it = { 0 };
	const char *ref_mark = "";
	double ref = pane_cycles_ref(ui, &ref_mark);
	struct pane_cycles_res res;
	struct win_row *rows;
	int width[NCOLS], used[NCOLS], y, n = 0, have;
	char (*cells)[NCOLS][48];
	size_t c;

	if (p->h <= 0 || p->w <= 2)
		return;
	rows = malloc(sizeof(*rows) * (size_t)p->h);
	cells = malloc(sizeof(*cells) * (size_t)p->h);
	if (!rows || !cells)
		goto out_free;
	/* Row for row with the packet pane, filtered or not. */
	have = search_ui_row_first(ui, &it, &ri);
	for (y = 1; have && y < p->h; y++) {
		rows[n++] = *win_row(&it);
		have = search_ui_row_next(ui, &it, &ri);
	}
	win_iter_release(&it);
	/* Each column as wide as its widest cell on this screen. */
	pane_cycles_resolve(ui, rows, n, ref, &res);
	res.ref_mark = ref_mark;
	for (c = 0; c < NCOLS; c++) {
		width[c] = pane_cycles_cols[c].width;
		used[c] = 0;
		if (!(ui->cy_cols & pane_cycles_cols[c].flag))
			continue;
		for (y = 0; y < n; y++) {
			int len;

			pane_cycles_cell(ui, &rows[y], ref, &res, pane_cycles_cols[c].flag,
					 cells[y][c], sizeof(cells[y][c]));
			len = pane_cycles_len(cells[y][c]);
			used[c] |= len > 0;
			if (len > width[c])
				width[c] = len;
		}
	}
	pane_cycles_widths(ui, p, width, used);
	pane_cycles_heading(ui, p, width);
	for (y = 1; y < p->h; y++)
		pane_cycles_line(ui, p, y, y > n ? NULL : &rows[y - 1],
				 y > n ? NULL : cells[y - 1], width);
out_free:
	free(rows);
	free(cells);
}

static void pane_cycles_resize(struct ui *ui, struct pane *p)
{
}

static void pane_cycles_free(struct pane *p)
{
}

const struct pane_ops pane_cycles_ops = {
	.name = "timing",
	.table = KM_T_TIMING,
	.draw = pane_cycles_draw,
	.resize = pane_cycles_resize,
	.free = pane_cycles_free,
};
