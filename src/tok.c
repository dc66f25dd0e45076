/* tok -- split a line into words, with quotes and escapes (tok.h). */
#include <stdio.h>
#include <string.h>

#include "ptdec.h"
#include "tok.h"

/* The reading and writing position of one split. */
struct tok_state {
	const char *line;
	const char *p;		/* the next character to read */
	unsigned flags;
	char *buf;
	size_t size, o;		/* @buf's size and the bytes written */
	struct tok_err *err;
	int q;			/* the word's TOK_Q_* bits so far */
};

static int tok_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Whether @c outside quotes reads as in them, to sh too (TOK_Q_BARE). */
static int tok_same(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || (unsigned char)c >= 0x80 ||
	       (c && strchr("_-.,/:+=@%", c));
}

static int tok_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int tok_fail(struct tok_state *s, enum tok_fail code, const char *at,
		    const char *msg)
{
	if (s->err) {
		s->err->code = code;
		s->err->off = (size_t)(at - s->line);
		snprintf(s->err->msg, sizeof(s->err->msg), "%s", msg);
	}
	return -pte_invalid;
}

/* Write one byte of a word; always after reading what it came from, so
 * @buf may be the line. */
static int tok_put(struct tok_state *s, char c)
{
	if (!s->buf)
		return 0;	/* tok_comment(): reading only */
	if (s->o + 1 >= s->size)
		return tok_fail(s, TOK_TOO_LONG, s->p, "line too long");
	s->buf[s->o++] = c;
	return 0;
}

/* After a backslash in "..." with TOK_CESC: @s->p is on the character
 * after it.  Puts what it stands for. */
static int tok_cesc(struct tok_state *s)
{
	const char *bs = s->p - 1;
	int hi, lo;
	char c;

	switch (*s->p) {
	case '"': c = '"'; break;
	case '\\': c = '\\'; break;
	case 'n': c = '\n'; break;
	case 't': c = '\t'; break;
	case 'r': c = '\r'; break;
	case 'x':
		hi = tok_hexval(s->p[1]);
		lo = hi < 0 ? -1 : tok_hexval(s->p[2]);
		if (lo < 0 || (hi == 0 && lo == 0))
			return tok_fail(s, TOK_BAD_HEX, bs,
					"bad \\x escape (two hex digits, not 00)");
		s->p += 3;
		return tok_put(s, (char)(hi << 4 | lo));
	default:
		return tok_fail(s, TOK_BAD_ESCAPE, bs,
				"unknown escape (use \\\" \\\\ \\n \\t \\r \\xHH)");
	}
	s->p++;
	return tok_put(s, c);
}

/* Read a quoted part: @s->p is on the opening quote. */
static int tok_quoted(struct tok_state *s)
{
	const char *open = s->p;
	char q = *s->p++, c;
	int r;

	for (;;) {
		c = *s->p;
		if (!c) {
			char msg[32];

			if (s->err)
				s->err->quote = q;
			snprintf(msg, sizeof(msg), "missing closing %c", q);
			return tok_fail(s, TOK_UNTERMINATED, open, msg);
		}
		s->p++;
		if (c == q)
			return 0;
		s->q |= q == '"' ? TOK_Q_DOUBLE : TOK_Q_SINGLE;
		if (q == '"' && c == '\\') {
			if (s->flags & TOK_CESC) {
				r = tok_cesc(s);
				if (r < 0)
					return r;
				continue;
			}
			if (*s->p == '"' || *s->p == '\\')
				c = *s->p++;
		}
		r = tok_put(s, c);
		if (r < 0)
			return r;
	}
}

/* Read one word: @s->p is on its first character. */
static int tok_word(struct tok_state *s)
{
	int r;

	while (*s->p && !tok_blank(*s->p)) {
		char c = *s->p;

		if (c == '"' || (c == '\'' && (s->flags & TOK_SINGLE))) {
			r = tok_quoted(s);
		} else {
			s->p++;
			if (c == '\\' && (s->flags & TOK_BSLASH) && *s->p) {
				c = *s->p++;
				s->q |= TOK_Q_ESCAPED;
			} else if (!tok_same(c)) {
				s->q |= TOK_Q_BARE;
			}
			r = tok_put(s, c);
		}
		if (r < 0)
			return r;
	}
	/* Step over the blank before writing the NUL: @buf may be @line. */
	if (*s->p)
		s->p++;
	if (!s->buf)
		return 0;
	if (s->o >= s->size)
		return tok_fail(s, TOK_TOO_LONG, s->p, "line too long");
	s->buf[s->o++] = '\0';
	return 0;
}

int tok_split(const char *line, unsigned flags, char *buf, size_t size,
	      char **argv, int *quoted, int max, struct tok_err *err)
{
	struct tok_state s = { line, line, flags, buf, size, 0, err, 0 };
	int argc = 0, open, r;

	if (err)
		memset(err, 0, sizeof(*err));
	if (!line || !buf || !size || !argv || max < 1) {
		s.line = s.p = "";
		return tok_fail(&s, TOK_TOO_LONG, s.p,
				"internal: bad arguments to tok_split");
	}
	for (;;) {
		while (tok_blank(*s.p))
			s.p++;
		if (!*s.p || (*s.p == '#' && (flags & TOK_COMMENT)))
			return argc;
		if (argc == max) {
			char msg[48];

			snprintf(msg, sizeof(msg), "too many words (at most %d)", max);
			return tok_fail(&s, TOK_TOO_MANY, s.p, msg);
		}
		open = *s.p == '"' || (*s.p == '\'' && (flags & TOK_SINGLE)) ?
		       *s.p : 0;
		argv[argc] = buf + s.o;
		s.q = 0;
		r = tok_word(&s);
		if (r < 0)
			return r;
		if (quoted)
			quoted[argc] = open | (flags & TOK_QUOTES ? s.q : 0);
		argc++;
	}
}

size_t tok_comment(const char *line, unsigned flags)
{
	/* Without TOK_CESC: a quote ends at the same place, and a bad
	 * escape is not this reading's to refuse. */
	struct tok_state s = { line, line, flags & ~TOK_CESC, NULL, 0, 0, NULL, 0 };

	for (;;) {
		while (tok_blank(*s.p))
			s.p++;
		if (!*s.p || *s.p == '#')
			return (size_t)(s.p - line);
		if (tok_word(&s) < 0)
			return strlen(line);	/* an open quote: no comment */
	}
}

/* Whether tok_split() with @flags gives @s back as one word unquoted. */
static int tok_plain(const char *s, unsigned flags)
{
	const char *p;

	if (!*s || *s == '#')
		return 0;
	for (p = s; *p; p++)
		if (tok_blank(*p) || *p == '"' ||
		    (*p == '\'' && (flags & TOK_SINGLE)) ||
		    (*p == '\\' && (flags & TOK_BSLASH)))
			return 0;
	return 1;
}

/* Write @c quoted for "...", into @out at @o; returns the bytes it
 * takes (writing only when @out is not NULL). */
static size_t tok_quote_char(char *out, size_t o, unsigned char c,
			     unsigned flags)
{
	char e[5];
	size_t n;

	if (c == '"' || c == '\\') {
		e[0] = '\\';
		e[1] = (char)c;
		n = 2;
	} else if (!(flags & TOK_CESC) || (c >= 0x20 && c != 0x7f)) {
		e[0] = (char)c;
		n = 1;
	} else if (c == '\n' || c == '\t' || c == '\r') {
		e[0] = '\\';
		e[1] = c == '\n' ? 'n' : c == '\t' ? 't' : 'r';
		n = 2;
	} else {
		snprintf(e, sizeof(e), "\\x%02x", c);
		n = 4;
	}
	if (out)
		memcpy(out + o, e, n);
	return n;
}

int tok_quote(char *out, size_t size, size_t *len, const char *s,
	      unsigned flags)
{
	const unsigned char *p;
	size_t need = 0, o;

	if (!out || !len || !s || *len >= size)
		return -pte_invalid;
	if (tok_plain(s, flags)) {
		need = strlen(s);
	} else {
		need = 2;
		for (p = (const unsigned char *)s; *p; p++)
			need += tok_quote_char(NULL, 0, *p, flags);
	}
	if (*len)
		need++;
	if (need >= size - *len)
		return -pte_invalid;
	o = *len;
	if (o)
		out[o++] = ' ';
	if (tok_plain(s, flags)) {
		memcpy(out + o, s, strlen(s));
		o += strlen(s);
	} else {
		out[o++] = '"';
		for (p = (const unsigned char *)s; *p; p++)
			o += tok_quote_char(out, o, *p, flags);
		out[o++] = '"';
	}
	out[o] = '\0';
	*len = o;
	return 0;
}
