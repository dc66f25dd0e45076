/*
 * esc -- strings read from a file, made safe to print on a terminal.
 *
 * A trace carries strings its recorder wrote (perf.data's CPUID, COMM and
 * filter strings), and file names and notes come from anywhere: printed
 * raw, an escape sequence in one reaches the user's terminal.  Every text
 * output that prints such a string goes through here.
 *
 * The rule: a valid UTF-8 sequence for a printable character passes as
 * is; every other byte is written as \xHH.  That covers C0 controls and
 * DEL, C1 controls (U+0080-U+009F, which some terminals obey), the bidi
 * and invisible formatting characters (U+200B-U+200F, U+202A-U+202E,
 * U+2066-U+2069) that make text look like what it is not, and bytes that
 * are not UTF-8 at all.  A backslash stays a backslash.
 */
#ifndef ESC_H
#define ESC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Decode the UTF-8 sequence at @s (at most @n bytes).  Overlong forms,
 * surrogates and code points past U+10FFFF are invalid.
 * Returns its length (1-4) and sets *@cp, or 0 if it is not valid UTF-8. */
size_t esc_utf8(const unsigned char *s, size_t n, uint32_t *cp);

/* Whether code point @cp is printed as is (not a control or a bidi or
 * invisible formatting character). */
int esc_printable(uint32_t cp);

/* Write @s to @buf (of @size bytes, NUL-terminated; cut short if it does
 * not fit, never inside an escape or a character), escaped as above.
 * Returns @buf, for use as a printf argument.  NULL @s gives "". */
const char *esc_str(char *buf, size_t size, const char *s);

/* Write @s to @f, escaped as above (NULL writes nothing). */
void esc_fputs(FILE *f, const char *s);

/* Write one line to @f: @prefix as is, then the message formatted from
 * @fmt (as printf) escaped as above, then a newline.  For messages that
 * name files or quote arguments (a file name may hold any byte but NUL). */
void esc_line(FILE *f, const char *prefix, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* ESC_H */
