/* screen -- colours, glyphs and writing the screen out as text. */
#include <curses.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "esc.h"
#include "export.h"
#include "marks.h"
#include "pkt.h"
#include "safefile.h"
#include "screen.h"
#include "trace.h"
#include "ui.h"

/* Foreground, background and the attribute used without colours. */
static const struct {
	short fg, bg;
	int mono;
} colors[SC_NCOLORS] = {
	[SC_DEFAULT] = { -1, -1, 0 },
	[SC_SYNC] = { COLOR_BLUE, -1, A_BOLD },
	[SC_BRANCH] = { -1, -1, 0 },
	[SC_IP] = { COLOR_GREEN, -1, 0 },
	[SC_TIMING] = { COLOR_CYAN, -1, 0 },
	[SC_MODE] = { COLOR_MAGENTA, -1, 0 },
	[SC_POWER] = { COLOR_YELLOW, -1, 0 },
	[SC_ERROR] = { COLOR_WHITE, COLOR_RED, A_BOLD | A_REVERSE },
	[SC_OTHER] = { -1, -1, 0 },
	[SC_HEADER] = { COLOR_BLACK, COLOR_CYAN, A_REVERSE },
	[SC_STATUS] = { COLOR_BLACK, COLOR_WHITE, A_REVERSE },
	[SC_WARN] = { COLOR_YELLOW, -1, A_BOLD },
	[SC_MSGERR] = { COLOR_RED, -1, A_BOLD },
	[SC_TL] = { COLOR_CYAN, -1, 0 },
	[SC_VIEWPORT] = { COLOR_BLACK, COLOR_YELLOW, A_REVERSE },
	[SC_MARK] = { COLOR_YELLOW, -1, A_BOLD },
	[SC_DIM] = { -1, -1, A_DIM },
	[SC_LANE0] = { COLOR_BLACK, COLOR_CYAN, 0 },
	[SC_LANE1] = { COLOR_BLACK, COLOR_GREEN, 0 },
	[SC_LANE2] = { COLOR_BLACK, COLOR_YELLOW, 0 },
	[SC_LANE3] = { COLOR_BLACK, COLOR_MAGENTA, 0 },
	[SC_LANE4] = { COLOR_WHITE, COLOR_BLUE, 0 },
	[SC_LANE5] = { COLOR_WHITE, COLOR_RED, 0 },
};

void screen_init_colors(struct ui *ui)
{
	short i;

	if (!ui->color)
		return;
	if (!has_colors() || start_color() == ERR) {
		ui->color = 0;
		return;
	}
	use_default_colors();
	for (i = 1; i < SC_NCOLORS; i++)
		init_pair(i, colors[i].fg, colors[i].bg);
}

int screen_attr(const struct ui *ui, enum screen_color c)
{
	if ((unsigned)c >= SC_NCOLORS)
		return 0;
	if (!ui->color)
		return colors[c].mono;
	if (c == SC_DEFAULT)
		return 0;
	if (c == SC_DIM)
		return A_DIM;
	return COLOR_PAIR(c) | (c == SC_ERROR || c == SC_SYNC ? A_BOLD : 0);
}

enum screen_color screen_class_color(int cls)
{
	switch (cls) {
	case PKC_SYNC: return SC_SYNC;
	case PKC_BRANCH: return SC_BRANCH;
	case PKC_IP: return SC_IP;
	case PKC_TIMING: return SC_TIMING;
	case PKC_MODE: return SC_MODE;
	case PKC_POWER: return SC_POWER;
	case PKC_ERROR: return SC_ERROR;
	default: return SC_OTHER;
	}
}

int screen_char(const char *s, size_t *n)
{
	mbstate_t mbs;
	wchar_t wc;
	int w;

	memset(&mbs, 0, sizeof(mbs));
	*n = mbrtowc(&wc, s, MB_CUR_MAX, &mbs);
	if (*n == (size_t)-1 || *n == (size_t)-2 || !*n) {
		*n = 1;
		return 1;
	}
	w = wcwidth(wc);
	return w < 0 ? 1 : w;
}

int screen_cols(const char *s)
{
	int c = 0;
	size_t n;

	for (; *s; s += n)
		c += screen_char(s, &n);
	return c;
}

int screen_ncols(const char *s, size_t len)
{
	const char *e = s + len;
	int c = 0;
	size_t n;

	for (; s < e && *s; s += n)
		c += screen_char(s, &n);
	return c;
}

void screen_head_cut(char *s, size_t size, int cols, const char *ell)
{
	int e = screen_cols(ell), c = 0, w;
	size_t at = 0, n;

	if (screen_cols(s) <= cols)
		return;		/* it fits: nothing cut, no mark */
	while (s[at]) {
		w = screen_char(s + at, &n);
		if (at && c + w > cols - e)
			break;
		c += w;
		at += n;
	}
	if (!s[at])
		return;
	if (c + e <= cols && at + strlen(ell) < size)
		memcpy(s + at, ell, strlen(ell) + 1);
	else
		s[at] = 0;
}

void screen_mid_cut(char *s, size_t size, int cols, const char *ell)
{
	int have = screen_cols(s), e = screen_cols(ell), c = 0, w;
	size_t n, at = 0, to, el = strlen(ell);

	if (have <= cols || cols < e + 2)
		return;
	/* the first half, then past the columns that do not fit */
	while (s[at] && c + (w = screen_char(s + at, &n)) <= (cols - e) / 2) {
		c += w;
		at += n;
	}
	for (to = at, c = 0; s[to] && c < have - (cols - e); to += n)
		c += screen_char(s + to, &n);
	/* (the ellipsis is never longer than what it replaces here, but
	 * stay within @size whatever it is) */
	if (at + el + strlen(s + to) + 1 > size)
		return;
	memmove(s + at + el, s + to, strlen(s + to) + 1);
	memcpy(s + at, ell, el);
}

int screen_add_field(char *buf, size_t size, size_t *at, int *left, const char *sep,
		     const char *s, int w)
{
	int c = screen_cols(s), aw = w < 0 ? -w : w, need, k;

	need = screen_cols(sep) + (c > aw ? c : aw);
	if (need > *left || *at >= size)
		return -1;
	k = snprintf(buf + *at, size - *at, "%s%*s%s%*s", sep, w < 0 && c < aw ? aw - c : 0, "",
		     s, w > 0 && c < aw ? aw - c : 0, "");
	if (k > 0)
		*at += (size_t)k < size - *at ? (size_t)k : size - *at - 1;
	*left -= need;
	return 0;
}

int screen_put(int y, int x, int w, const char *s)
{
	mbstate_t mbs;
	int col = 0;

	memset(&mbs, 0, sizeof(mbs));
	while (*s && col < w) {
		wchar_t wc;
		size_t n = mbrtowc(&wc, s, MB_CUR_MAX, &mbs);
		int cw;

		if (n == (size_t)-1 || n == (size_t)-2 || !n) {
			/* Not valid in this locale: show a placeholder. */
			memset(&mbs, 0, sizeof(mbs));
			wc = L'?';
			n = 1;
		}
		cw = wcwidth(wc);
		/* controls, and the bidi and invisible marks esc.h names,
		 * never reach the terminal */
		if (cw < 0 || wc < 0 || !esc_printable((uint32_t)wc))
			cw = 1, wc = L'?';
		if (col + cw > w)
			break;
		mvaddnwstr(y, x + col, &wc, 1);
		col += cw;
		s += n;
	}
	return col;
}

void screen_clear(int y, int x, int w)
{
	if (w > 0)
		mvhline(y, x, ' ', w);
}

const char *screen_glyph(const struct ui *ui, const char *utf8,
			 const char *ascii)
{
	return ui->utf8 ? utf8 : ascii;
}

int screen_save(const struct ui *ui, const char *path, char *err, size_t errlen)
{
	struct safefile_keep inputs[EXPORT_NKEEP];
	struct safefile_opts o = { .keep = inputs };
	struct safefile *sf;
	FILE *f;
	int y, x;

	/* Never over the trace or a file the browser read for it, nor
	 * where the trace's options file would be (text there that is not
	 * options: the trace would not open again). */
	if (export_names_options(ui->trace, path)) {
		snprintf(err, errlen, "%s: is the trace's options file; not overwriting it",
			 path);
		return -1;
	}
	o.nkeep = export_keep(ui->trace, marks_file(ui->bm), inputs);
	if (safefile_create(&sf, path, &o, err, errlen) < 0)
		return -1;
	f = safefile_stream(sf);
	if (!f) {
		safefile_abort(sf);
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	for (y = 0; y < ui->rows; y++) {
		char line[8192];
		size_t len = 0, keep = 0;

		for (x = 0; x < ui->cols && len + MB_LEN_MAX + 1 < sizeof(line); x++) {
			cchar_t cc;
			wchar_t wch[CCHARW_MAX + 1];
			attr_t attrs;
			short pair;
			mbstate_t mbs;
			size_t n;

			if (mvwin_wch(stdscr, y, x, &cc) == ERR)
				break;
			if (getcchar(&cc, wch, &attrs, &pair, NULL) == ERR || !wch[0])
				continue;	/* the right half of a wide character */
			memset(&mbs, 0, sizeof(mbs));
			n = wcrtomb(line + len, wch[0], &mbs);
			if (n == (size_t)-1) {
				line[len] = '?';
				n = 1;
			}
			len += n;
			if (wch[0] != L' ')
				keep = len;
		}
		/* Trailing blanks are noise in a text capture. */
		fwrite(line, 1, keep, f);
		fputc('\n', f);
	}
	return safefile_commit(sf, err, errlen) < 0 ? -1 : 0;
}
