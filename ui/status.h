/* status -- the header line, and the status line with the message line
 * under it (the prompt view draws over the message line when open). */
#ifndef STATUS_H
#define STATUS_H

#include <stddef.h>

struct ui;

/* The header: the file, the stream, "F1 help", the keymap. */
void status_draw_header(struct ui *ui);

/* If ui->trace is a raw trace whose timing gives no times (its
 * TRACE.options file and the command line's options together), say on
 * the message line which options would (timing_file_hint()): once, after
 * the trace is opened, reopened or another stream is shown. */
void status_timing_hint(struct ui *ui);

/* The status line (offset, packet, number, time, the code at the cursor
 * (sym_ui.h), search, index progress) and the message line, or the key
 * sequence being typed. */
void status_draw(struct ui *ui);

/* Append "  [@note]" to the status line's text @buf (@len bytes of it
 * written, @size in all) so that the text stays within @width columns:
 * whole, else cut with "…]" ("...]" unless @utf8), else not at all (where
 * fewer than a few of its characters would show).
 * Returns the new length (less than @size). */
size_t status_add_note(char *buf, size_t size, size_t len, const char *note,
		       int width, int utf8);

/* One field of the status line ("  psb 12/30984"), in the order shown,
 * with its rank: 0 is the last to go. */
struct status_field {
	const char *text;
	int rank;
	int min;	/* 0: whole or not at all (a number); else a text that
			 * may lose its middle, down to this many columns */
	int cols;	/* out: the columns it is given (0: left out) */
};

/* Which of the @n fields @f fit in @width columns together: the fields
 * of the highest rank (the later one of a tie) go first, whole, or a
 * text (@min) loses its middle where that is enough; then those left out
 * that fit again come back, lowest rank first.  A number is never cut: it
 * would read as another number.  The fields of rank 0 are always kept
 * (the caller cuts them at the width).  Sets each field's @cols.
 * Returns a mask: bit i set, field i kept (@n at most 32). */
unsigned status_fit(struct status_field *f, size_t n, int width);

#endif /* STATUS_H */
