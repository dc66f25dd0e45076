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

	if ((!data && n) || !out || !len)
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
	*out = s;
	*len = total;
	return 0;
}
