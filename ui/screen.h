/* screen -- colours, glyphs (UTF-8 or ASCII), writing cells, save-screen. */
#ifndef SCREEN_H
#define SCREEN_H

#include <stddef.h>

struct ui;

enum screen_color {
	SC_DEFAULT, SC_SYNC, SC_BRANCH, SC_IP, SC_TIMING, SC_MODE, SC_POWER,
	SC_ERROR, SC_OTHER, SC_HEADER, SC_STATUS, SC_WARN, SC_MSGERR,
	SC_TL, SC_VIEWPORT, SC_MARK, SC_DIM,
	SC_LANE0, SC_LANE1, SC_LANE2, SC_LANE3, SC_LANE4, SC_LANE5,	/* processes in the lanes */
	SC_NCOLORS
};
/* Set up colour pairs (nothing with NO_COLOR or no colours). */
void screen_init_colors(struct ui *ui);
/* The attributes of colour @c. */
int screen_attr(const struct ui *ui, enum screen_color c);
/* The colour of packet class @cls. */
enum screen_color screen_class_color(int cls);
/* Write @s at (@y, @x), at most @w columns, UTF-8 aware.  Returns the
 * columns written. */
int screen_put(int y, int x, int w, const char *s);
/* Fill @w columns at (@y, @x) with blanks. */
void screen_clear(int y, int x, int w);
/* The columns @s takes on the screen (a byte not valid in the locale:
 * one, as screen_put() shows it). */
int screen_cols(const char *s);
/* The same for the characters starting in the first @len bytes of @s. */
int screen_ncols(const char *s, size_t len);
/* The byte length of the character at @s (as screen_put() steps: a
 * byte not valid in the locale is one) into *@n; returns its columns. */
int screen_char(const char *s, size_t *n);
/* Cut the middle of @s (of @size bytes) to @cols columns, @ell in its
 * place, if it is wider: a long file name keeps its start and its end
 * (".pt"), a search its first words and its last.  Nothing where @cols
 * leaves no room beside @ell. */
void screen_mid_cut(char *s, size_t size, int cols, const char *ell);
/* Keep the first characters of @s (of @size bytes) that fit @cols columns
 * with @ell after them, or its first character alone where @ell leaves
 * no room: a name's start, where a middle cut leaves too little.  An @s
 * that fits @cols is left whole. */
void screen_head_cut(char *s, size_t size, int cols, const char *ell);
/* Append @sep and @s to @buf (of @size, *@at bytes used), padded to @w
 * columns (right-aligned where @w is negative), if they fit the *@left
 * columns (taken from them): a list's row built field by field, a
 * number shown whole or not at all.  Returns 0, or -1 where it does not
 * fit (nothing appended). */
int screen_add_field(char *buf, size_t size, size_t *at, int *left, const char *sep,
		     const char *s, int w);
/* A glyph: its UTF-8 form or its ASCII fallback. */
const char *screen_glyph(const struct ui *ui, const char *utf8,
			 const char *ascii);
/* Write the screen as text to @path (src/safefile.h: never over the
 * trace, a FIFO or a device; replaced only once written).
 * Returns 0, or -1 with one line naming the file in @err. */
int screen_save(const struct ui *ui, const char *path, char *err, size_t errlen);

#endif /* SCREEN_H */
