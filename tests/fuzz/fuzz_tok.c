/* fuzz_tok -- the tokenizer on any bytes (up to the first NUL), in every
 * dialect: splitting into a buffer and in place give the same words, and
 * every word quoted by tok_quote() and split again comes back unchanged. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ptdec.h"
#include "tok.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAXW 64

static const unsigned dialects[] = {
	0, TOK_MARKS, TOK_KEYMAP, TOK_CESC, TOK_SINGLE | TOK_BSLASH,
};

/* Split @line with @flags both ways and check the round trip. */
static void check(const char *line, size_t len, unsigned flags)
{
	char *buf = malloc(len + 1), *inplace = malloc(len + 1);
	char *quoted = malloc(4 * len + 3 * MAXW + 16), *again = NULL;
	char *argv[MAXW], *argv2[MAXW], *argv3[MAXW];
	int q[MAXW], n, n2, n3, i;
	size_t qlen = 0, qsize = 4 * len + 3 * MAXW + 16;
	struct tok_err err;

	if (!buf || !inplace || !quoted)
		goto out_free;
	memcpy(inplace, line, len + 1);
	n = tok_split(line, flags, buf, len + 1, argv, q, MAXW, &err);
	n2 = tok_split(inplace, flags, inplace, len + 1, argv2, NULL, MAXW, NULL);
	if (n != n2 || n > MAXW)
		abort();
	if (n < 0) {
		if (err.code == TOK_OK || err.off > len || !memchr(err.msg, 0, sizeof(err.msg)))
			abort();
		goto out_free;
	}
	quoted[0] = '\0';
	for (i = 0; i < n; i++) {
		if (strcmp(argv[i], argv2[i]) || strlen(argv[i]) > len)
			abort();
		if (tok_quote(quoted, qsize, &qlen, argv[i], flags) < 0)
			abort();
	}
	again = malloc(qlen + 1);
	if (!again)
		goto out_free;
	n3 = tok_split(quoted, flags, again, qlen + 1, argv3, NULL, MAXW, NULL);
	if (n3 != n)
		abort();
	for (i = 0; i < n; i++)
		if (strcmp(argv[i], argv3[i]))
			abort();
out_free:
	free(again);
	free(quoted);
	free(inplace);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line;
	size_t len, d;

	if (size > 65536)
		size = 65536;
	line = malloc(size + 1);
	if (!line)
		return 0;
	memcpy(line, data, size);
	line[size] = '\0';
	len = strlen(line);
	for (d = 0; d < sizeof(dialects) / sizeof(dialects[0]); d++)
		check(line, len, dialects[d]);
	free(line);
	return 0;
}
