/* json -- JSON string output for the subcommands' --json modes. */
#include <string.h>

#include "esc.h"
#include "json.h"

void json_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t n = strlen((const char *)p), len;
	uint32_t cp;

	fputc('"', f);
	while (n) {
		len = esc_utf8(p, n, &cp);
		if (!len) {
			fputs("\\ufffd", f);	/* not UTF-8: one per byte */
			len = 1;
		} else if (cp == '"' || cp == '\\') {
			fprintf(f, "\\%c", (int)cp);
		} else if (cp == '\n') {
			fputs("\\n", f);
		} else if (cp == '\t') {
			fputs("\\t", f);
		} else if (!esc_printable(cp)) {
			fprintf(f, "\\u%04x", (unsigned)cp);
		} else {
			fwrite(p, 1, len, f);
		}
		p += len;
		n -= len;
	}
	fputc('"', f);
}
