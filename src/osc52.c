/* osc52 -- the OSC 52 clipboard control string, plain or for tmux. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "osc52.h"
#include "ptdec.h"

size_t osc52_base64_len(size_t n)
{
	return (n / 3 + (n % 3 != 0)) * 4;
}

size_t osc52_base64(const void *in, size_t n, char *out)
{
	static const char abc[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *p = in;
	size_t i, o = 0;

	for (i = 0; i + 2 < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];

		out[o++] = abc[v >> 18];
		out[o++] = abc[v >> 12 & 63];
		out[o++] = abc[v >> 6 & 63];
		out[o++] = abc[v & 63];
	}
	if (i < n) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0);

		out[o++] = abc[v >> 18];
		out[o++] = abc[v >> 12 & 63];
		out[o++] = i + 1 < n ? abc[v >> 6 & 63] : '=';
		out[o++] = '=';
	}
	return o;
}

/* GNU screen passes a DCS string on to the terminal, but keeps a string
 * of at most a few hundred bytes: the control string goes out in pieces
 * of OSC52_SCREEN_PIECE bytes, each its own "ESC P ... ESC \", which the
 * terminal joins back into one. */
#define OSC52_SCREEN_PIECE 76

/* @s (@n bytes, malloc'd) in screen's pieces, into *@out and *@len; @s is
 * freed.  Returns 0 or -pte_nomem. */
static int osc52_screen(char *s, size_t n, char **out, size_t *len)
{
	size_t pieces = n / OSC52_SCREEN_PIECE + 1, i, o = 0;
	char *w = malloc(n + pieces * 4 + 1);

	if (!w) {
		free(s);
		return -pte_nomem;
	}
	for (i = 0; i < n; i += OSC52_SCREEN_PIECE) {
		size_t k = n - i < OSC52_SCREEN_PIECE ? n - i : OSC52_SCREEN_PIECE;

		memcpy(w + o, "\033P", 2);
		memcpy(w + o + 2, s + i, k);
		memcpy(w + o + 2 + k, "\033\\", 2);
		o += k + 4;
	}
	w[o] = 0;
	free(s);
	*out = w;
	*len = o;
	return 0;
}

int osc52_build(const void *data, size_t n, unsigned int flags, char **out,
		size_t *len)
{
	/* tmux's passthrough doubles the one ESC inside (the OSC's start);
	 * BEL ends the OSC, ESC \ the DCS. */
	static const char pre[] = "\033]52;c;", tpre[] = "\033Ptmux;\033\033]52;c;";
	static const char post[] = "\a", tpost[] = "\a\033\\";
	const char *a = flags & OSC52_TMUX ? tpre : pre;
	const char *z = flags & OSC52_TMUX ? tpost : post;
	size_t b, total;
	char *s;

	if ((!data && n) || !out || !len ||
	    (flags & (OSC52_TMUX | OSC52_SCREEN)) == (OSC52_TMUX | OSC52_SCREEN))
		return -pte_invalid;
	if (n > (SIZE_MAX - 64) / 4 * 3)
		return -pte_nomem;
	b = osc52_base64_len(n);
	total = strlen(a) + b + strlen(z);
	s = malloc(total + 1);
	if (!s)
		return -pte_nomem;
	memcpy(s, a, strlen(a));
	osc52_base64(data, n, s + strlen(a));
	memcpy(s + strlen(a) + b, z, strlen(z) + 1);
	if (flags & OSC52_SCREEN)
		return osc52_screen(s, total, out, len);
	*out = s;
	*len = total;
	return 0;
}
