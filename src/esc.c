/* esc -- strings from files escaped for the terminal. */
#include <stdarg.h>
#include <string.h>

#include "esc.h"

size_t esc_utf8(const unsigned char *s, size_t n, uint32_t *cp)
{
	uint32_t c, min;
	size_t len, i;

	if (!n)
		return 0;
	c = s[0];
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		c &= 0x1f;
		min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		c &= 0x0f;
		min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		c &= 0x07;
		min = 0x10000;
	} else {
		return 0;	/* a continuation byte, C0/C1 (overlong) or F5-FF */
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

int esc_printable(uint32_t cp)
{
	if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f))
		return 0;
	/* zero-width and direction marks, bidi embeddings and isolates */
	if ((cp >= 0x200b && cp <= 0x200f) || (cp >= 0x202a && cp <= 0x202e) ||
	    (cp >= 0x2066 && cp <= 0x2069))
		return 0;
	return 1;
}

/* The length of the run at @s to copy as is, or 0 if its first byte
 * must be escaped. */
static size_t esc_span(const unsigned char *s, size_t n)
{
	uint32_t cp;
	size_t len = esc_utf8(s, n, &cp);

	return len && esc_printable(cp) ? len : 0;
}

const char *esc_str(char *buf, size_t size, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	size_t n, at = 0, len;

	if (!size)
		return buf;
	n = s ? strlen(s) : 0;
	while (n) {
		len = esc_span(p, n);
		if (len) {
			if (at + len >= size)
				break;
			memcpy(buf + at, p, len);
		} else {
			if (at + 4 >= size)
				break;
			buf[at] = '\\';
			buf[at + 1] = 'x';
			buf[at + 2] = hex[*p >> 4];
			buf[at + 3] = hex[*p & 15];
			len = 1;
			at += 3;
		}
		at += len;
		p += len;
		n -= len;
	}
	buf[at] = '\0';
	return buf;
}

void esc_fputs(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = s ? strlen(s) : 0, len;

	while (n) {
		len = esc_span(p, n);
		if (len) {
			fwrite(p, 1, len, f);
		} else {
			fprintf(f, "\\x%02x", *p);
			len = 1;
		}
		p += len;
		n -= len;
	}
}

void esc_line(FILE *f, const char *prefix, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fputs(prefix, f);
	esc_fputs(f, buf);
	fputc('\n', f);
}
