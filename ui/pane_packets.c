/* pane_packets -- the packet pane: one row per packet, ptdump's words. */
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "dump_fmt.h"
#include "marks.h"
#include "marks_ui.h"
#include "pane_packets.h"
#include "screen.h"
#include "search_ui.h"
#include "sym_ui.h"
#include "ui.h"

/* Hex digits needed for offsets in this trace (at least 8). */
static int pane_packets_owidth(const struct ui *ui)
{
	uint64_t s = ui->img->size;
	int d = 1;

	while (s >>= 4)
		d++;
	return d < 8 ? 8 : d;
}

/* Whether @row's IP is its packet's own, whole (a TIP, FUP, ...): then
 * a symbol can name it. */
static int pane_packets_full_ip(const struct win_row *row)
{
	return (row->flags & WIN_F_HAVE_IP) && row->ip_bits == 64;
}

/* The payload of an IP packet with symbols on: its compression, then
 * the function ("3: main+0x8b"), in the payload's 20 columns; else
 * ptdump's words. */
static void pane_packets_payload(struct ui *ui, const struct win_row *row,
				 char *buf, size_t size)
{
	int t = row->pkt.type;

	if ((t == PKT_TIP || t == PKT_TIP_PGE || t == PKT_TIP_PGD || t == PKT_FUP) &&
	    pane_packets_full_ip(row) && size > 3 &&
	    row->pkt.u.ip.ipc != PKT_IPC_SUPPRESSED &&
	    sym_ui_ip(ui, row->pkt.offset, row->ip, 17, buf + 3, size - 3)) {
		buf[0] = (char)('0' + (row->pkt.u.ip.ipc & 7));
		buf[1] = ':';
		buf[2] = ' ';
		return;
	}
	dump_fmt_payload(buf, size, &row->pkt);
}

/* Where a row's TNT bits are in its text (@n 0: none), so that a cut
 * can say how many it leaves out. */
struct pk_tnt {
	size_t at, n;
};

/* An error row's words after the offset (@len bytes of @buf): the
 * reason, then the bytes skipped; where the pane (its text ends at
 * column @edge, 0: no edge) would cut the count, the count first, the
 * number that matters, so the pane's cut takes words, not digits. */
static void pane_packets_error(struct ui *ui, const struct win_row *row,
			       char *buf, size_t size, size_t len, size_t edge)
{
	const char *type = row->flags & WIN_F_PRE_PSB ? "nosync" : "error";
	int end = row->pkt.offset + row->size >= ui->img->size;
	int n, count;

	if (row->err == -pte_gap) {
		snprintf(buf + len, size - len, "%-10s data lost; %" PRIu64 " bytes %s",
			 "gap", row->size, end ? "to the end" : "to the next PSB");
		return;
	}
	count = snprintf(NULL, 0, "%-10s %s: %" PRIu64 " bytes",
			 type, pte_strerror(row->err), row->size);
	n = snprintf(buf + len, size - len, "%-10s %s: %" PRIu64 " bytes %s",
		     type, pte_strerror(row->err), row->size,
		     end ? "to the end" : "skipped to the next PSB");
	/* the count and " …" after it, or the whole text, fit */
	if (!edge || n < 0 || count < 0 || len + (size_t)n <= edge ||
	    len + (size_t)count + 2 <= edge)
		return;
	snprintf(buf + len, size - len, "%-10s %" PRIu64 " bytes %s: %s",
		 type, row->size, end ? "to the end" : "skipped",
		 pte_strerror(row->err));
}

/* The text of @row (without the gutter), for columns from 0; the last IP
 * column gets @ipw columns for a symbol.  @edge is the text column the
 * pane ends at (0: none); *@tnt says where TNT bits are. */
static void pane_packets_text(struct ui *ui, struct win_iter *it,
			      char *buf, size_t size, int ipw, size_t edge,
			      struct pk_tnt *tnt)
{
	const struct win_row *row = win_row(it);
	char payload[DUMP_PAYLOAD_MAX + 8] = "";
	size_t len;

	tnt->at = tnt->n = 0;
	len = (size_t)snprintf(buf, size, "0x%0*" PRIx64 "  ",
			       pane_packets_owidth(ui), row->pkt.offset);
	if (ui->pk_cols & UI_PK_RAW) {
		uint8_t raw[8];
		char hex[32] = "";
		size_t n = win_row_bytes(it, raw, sizeof(raw)), i, h = 0;

		for (i = 0; i < n; i++)
			h += (size_t)snprintf(hex + h, sizeof(hex) - h, "%02x", raw[i]);
		if (row->size > n && h + 1 < sizeof(hex))
			hex[h++] = '+';
		hex[h] = 0;
		len += (size_t)snprintf(buf + len, size - len, "%-17s ", hex);
	}
	if (len >= size)
		return;
	if (row->flags & WIN_F_ERROR) {
		pane_packets_error(ui, row, buf, size, len, edge);
		return;
	}
	pane_packets_payload(ui, row, payload, sizeof(payload));
	len += (size_t)snprintf(buf + len, size - len, "%-10s ",
				pkt_type_name(row->pkt.type));
	if (len < size && (row->pkt.type == PKT_TNT8 || row->pkt.type == PKT_TNT64)) {
		tnt->at = len;
		tnt->n = strlen(payload);
	}
	len += (size_t)snprintf(buf + len, size - len, "%-20s", payload);
	if (len >= size || !(ui->pk_cols & UI_PK_IP) || ui->pk_narrow)
		return;
	if ((row->flags & WIN_F_HAVE_IP) && row->ip_bits < 64) {
		/* Before the first PSB: the upper bytes are unknown. */
		int known = row->ip_bits / 4;

		snprintf(buf + len, size - len, " %.*s%0*" PRIx64, 16 - known,
			 "????????????????", known,
			 (uint64_t)(row->ip & ((1ull << row->ip_bits) - 1)));
	} else if (row->flags & WIN_F_HAVE_IP) {
		char sym[256];

		if (sym_ui_ip(ui, row->pkt.offset, row->ip, ipw, sym, sizeof(sym)))
			snprintf(buf + len, size - len, " %s", sym);
		else
			snprintf(buf + len, size - len, " %016" PRIx64, row->ip);
	}
	else if (row->flags & WIN_F_IP_SUPP)
		snprintf(buf + len, size - len, " <suppressed>");
}

size_t pane_packets_row_text(struct ui *ui, struct win_iter *it, char *buf,
			     size_t size)
{
	struct pk_tnt tnt;
	size_t n;

	if (!size)
		return 0;
	/* A symbol in full: the text leaves the screen's width behind. */
	pane_packets_text(ui, it, buf, size, 200, 0, &tnt);
	n = strlen(buf);
	while (n && buf[n - 1] == ' ')
		buf[--n] = 0;
	return n;
}

/* The bytes of @s's longest start that fits @cols columns. */
static size_t pane_packets_upto(const char *s, int cols)
{
	size_t i = 0, n;

	while (s[i]) {
		int w = screen_char(s + i, &n);

		if (w > cols)
			break;
		cols -= w;
		i += n;
	}
	return i;
}

/* Cut @s (of @size bytes), a row's text from its first column shown, to
 * @cols columns if it is wider, with "…" (ASCII ">") where the cut is:
 * before a word, never inside a number (an IP cut to 00005555555 reads
 * as another IP), or inside @tnt's bits (positions in @s) with the count
 * of those left out after it ("…+9"): a user counts taken branches. */
static void pane_packets_fit(struct ui *ui, char *s, size_t size, int cols,
			     const struct pk_tnt *tnt)
{
	const char *ell = screen_glyph(ui, "…", ">");
	size_t n = strlen(s), lim, c;

	while (n && s[n - 1] == ' ')
		s[--n] = 0;
	if (screen_ncols(s, n) <= cols)
		return;
	if (cols < 1) {
		s[0] = 0;
		return;
	}
	lim = pane_packets_upto(s, cols - 1);
	if (tnt->n && tnt->at <= lim && lim < tnt->at + tnt->n) {
		for (c = lim + 1; c-- > tnt->at;) {
			char more[24];
			int w = snprintf(more, sizeof(more), "+%zu",
					 tnt->at + tnt->n - c);

			if (screen_ncols(s, c) + 1 + w <= cols) {
				snprintf(s + c, size - c, "%s%s", ell, more);
				return;
			}
		}
	}
	/* The kept text ends in a space: the mark stands for whole words. */
	for (c = lim; c > 0 && s[c - 1] != ' '; c--)
		;
	if (!c)
		c = lim;	/* one word wider than the pane (scrolled) */
	snprintf(s + c, size - c, "%s", ell);
}

/* The mark letter at @off, or 0. */
static char pane_packets_mark(const struct ui *ui, uint64_t off)
{
	long i;

	if (!ui->bm)
		return 0;
	i = marks_find_at(ui->bm, BM_MARK, off);
	if (i >= 0)
		return marks_at(ui->bm, (size_t)i)->name[0];
	if (marks_find_at(ui->bm, BM_BOOKMARK, off) >= 0)
		return '*';
	return 0;
}

/* Put @text (its TNT bits where *@tnt says) in row @sy past the gutter,
 * scrolled by h/l, cut to the pane's edge or, with @gap, to the " [gap]"
 * drawn at its end. */
static void pane_packets_put(struct ui *ui, const struct pane *p, int sy,
			     const char *text, const struct pk_tnt *tnt, int gap)
{
	struct pk_tnt t = *tnt;
	size_t hs = (size_t)ui->hscroll;
	char vis[512];

	if (strlen(text) <= hs)
		return;
	snprintf(vis, sizeof(vis), "%s", text + hs);
	if (t.n && t.at + t.n <= hs) {
		t.n = 0;
	} else if (t.n && t.at < hs) {
		t.n -= hs - t.at;
		t.at = 0;
	} else if (t.n) {
		t.at -= hs;
	}
	pane_packets_fit(ui, vis, sizeof(vis), p->w - 3 - (gap ? 6 : 0), &t);
	screen_put(sy, p->x + 3, p->w - 3, vis);
}

static void pane_packets_draw(struct ui *ui, struct pane *p)
{
	int ri;
	struct win_iter it = { 0 };
	int focused = ui->focus == UI_PANE_PACKETS;
	int y, have, ipw;
	char head[256];
	const struct pk_tnt none = { 0, 0 };

	attrset(A_BOLD);
	/* The gutter is three columns: cursor, mark, PSB+ bracket. */
	snprintf(head, sizeof(head), "   %-*s  %s%-10s %-20s%s", pane_packets_owidth(ui) + 2,
		 "offset", ui->pk_cols & UI_PK_RAW ? "raw               " : "",
		 "packet", "payload",
		 (ui->pk_cols & UI_PK_IP) && !ui->pk_narrow ? " last ip" : "");
	screen_clear(p->y, p->x, p->w);
	/* scrolled with the rows, past the three gutter columns */
	screen_put(p->y, p->x, 3, head);
	pane_packets_put(ui, p, p->y, head + 3, &none, 0);
	attrset(A_NORMAL);
	/* A symbol in the last IP column ends at the pane's right edge (or
	 * takes 16 columns, as hex does, if the pane is narrower). */
	ipw = p->w - 3 - ((int)strlen(head + 3) - (int)strlen(" last ip")) - 1 +
	      ui->hscroll;
	if (ipw < 16)
		ipw = 16;
	/* All rows, or the filter view's matching ones (search_ui.c). */
	have = search_ui_row_first(ui, &it, &ri);
	for (y = 1; y < p->h; y++) {
		int sy = p->y + y, attr, col;
		const struct win_row *row;
		char text[512], gut[8];
		const char *bracket = " ";
		char mark;
		int band, gap;
		struct pk_tnt tnt;

		screen_clear(sy, p->x, p->w);
		if (!have)
			continue;
		row = win_row(&it);
		/* data lost before the row, or after the last one */
		gap = (row->flags & (WIN_F_GAP | WIN_F_GAP_END)) && row->err != -pte_gap;
		pane_packets_text(ui, &it, text, sizeof(text), ipw,
				  (size_t)(ui->hscroll + p->w - 3 - (gap ? 6 : 0)), &tnt);
		mark = pane_packets_mark(ui, row->pkt.offset);
		if (row->pkt.type == PKT_PSB && !(row->flags & WIN_F_ERROR))
			bracket = screen_glyph(ui, "┌", "+");
		else if (row->pkt.type == PKT_PSBEND)
			bracket = screen_glyph(ui, "└", "+");
		else if (row->flags & WIN_F_PSBPLUS)
			bracket = screen_glyph(ui, "│", "|");
		if (row->flags & WIN_F_ERROR)
			attr = screen_attr(ui, SC_ERROR);
		else
			attr = screen_attr(ui, screen_class_color(
					pkt_type_class(row->pkt.type)));
		if (row->pkt.type == PKT_PAD || (row->flags & WIN_F_PRE_PSB))
			attr = screen_attr(ui, SC_DIM);
		if (row->flags & WIN_F_PRE_PSB)
			bracket = screen_glyph(ui, "┆", ":");
		/* Regions and the selection: a tinted band (marks_ui.c). */
		band = marks_ui_band(ui, row->pkt.offset);
		if (band && ui->color) {
			attr = marks_ui_band_attr(ui, band);
			attrset(attr);
			screen_clear(sy, p->x, p->w);
		} else if (band) {
			attr |= marks_ui_band_attr(ui, band);
		}
		if (row->pkt.offset == ui->cursor)
			attr = (attr & ~A_DIM) | (focused ? A_REVERSE : A_UNDERLINE | A_BOLD);
		else if (search_ui_is_hit(ui, row->pkt.offset))
			attr = (attr & ~A_DIM) | A_BOLD | A_UNDERLINE;
		/* The gutter: cursor (or band), mark letter, PSB+ bracket. */
		attrset(screen_attr(ui, SC_MARK) | (band && ui->color ? marks_ui_band_attr(ui, band) : 0));
		gut[0] = row->pkt.offset == ui->cursor ? '>' : ' ';
		gut[1] = 0;
		screen_put(sy, p->x, 1, gut[0] == ' ' && band ? marks_ui_band_glyph(ui, band) : gut);
		/* Trouble shows without colour too (NO_COLOR, text captures). */
		gut[0] = mark ? mark : (row->flags & WIN_F_ERROR) ||
				row->pkt.type == PKT_OVF ? '!' : ' ';
		screen_put(sy, p->x + 1, 1, gut);
		attrset(screen_attr(ui, SC_SYNC));
		screen_put(sy, p->x + 2, 1, bracket);
		attrset(attr);
		col = 3;
		if (row->pkt.offset == ui->cursor)
			screen_clear(sy, p->x + col, p->w - col);
		pane_packets_put(ui, p, sy, text, &tnt, gap);
		attrset(A_NORMAL);
		if (gap) {
			attrset(screen_attr(ui, SC_MSGERR));
			screen_put(sy, p->x + p->w - 6, 6, " [gap]");
			attrset(A_NORMAL);
		}
		have = search_ui_row_next(ui, &it, &ri);
	}
	win_iter_release(&it);
}

static void pane_packets_resize(struct ui *ui, struct pane *p)
{
}

static void pane_packets_free(struct pane *p)
{
}

const struct pane_ops pane_packets_ops = {
	.name = "packets",
	.table = KM_T_PACKETS,
	.draw = pane_packets_draw,
	.resize = pane_packets_resize,
	.free = pane_packets_free,
};
