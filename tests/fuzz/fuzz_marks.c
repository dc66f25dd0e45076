/* fuzz_marks -- the marks file parser on any bytes, both ways in: as the
 * trace's marks file (marks_open) and merged by marks_import.  Whatever loads
 * must be well formed (names fit, regions not reversed, offset order) and
 * must survive an export and re-import unchanged. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "marks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void quiet(void *ctx, const char *msg)
{
	(void)ctx;
	(void)msg;
}

static char path[64];

/* The input file, removed at exit. */
static void cleanup(void)
{
	unlink(path);
}

/* Every entry of @set is well formed. */
static void check(const struct marks_set *set)
{
	size_t i, n = marks_count(set);

	if (n > BM_MAX_ENTRIES)
		abort();
	for (i = 0; i < n; i++) {
		const struct marks_entry *e = marks_at(set, i);

		if (!e || memchr(e->name, 0, sizeof(e->name)) == NULL ||
		    memchr(e->color, 0, sizeof(e->color)) == NULL ||
		    e->to < e->from || (e->kind != BM_REGION && e->to != e->from) ||
		    (i && marks_at(set, i - 1)->from > e->from))
			abort();
		if (e->kind == BM_MARK && strlen(e->name) != 1)
			abort();
	}
	if (marks_at(set, n))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct marks_opts o;
	struct marks_set *set = NULL, *again = NULL;
	char *out = NULL;
	size_t outlen = 0, i;
	FILE *f;

	if (!path[0]) {
		snprintf(path, sizeof(path), "/tmp/fuzz_marks.%d", (int)getpid());
		atexit(cleanup);
	}
	f = fopen(path, "wb");
	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	memset(&o, 0, sizeof(o));
	o.flags = BM_NO_STATE;
	o.file = path;
	o.report = quiet;
	if (marks_open(&set, "0123abcd", 1 << 20, "fuzz.pt", &o) == 0) {
		check(set);
		f = size ? fmemopen((void *)data, size, "r") : NULL;
		if (f) {
			marks_import(set, f, "fuzz");
			fclose(f);
		}
		check(set);
		/* Export, re-import into an empty set: the same entries. */
		f = open_memstream(&out, &outlen);
		if (f && marks_export(set, f) == 0) {
			fclose(f);
			f = NULL;
			o.file = "/nonexistent/fuzz.marks";
			if (marks_open(&again, "0123abcd", 1 << 20, "fuzz.pt", &o) == 0) {
				FILE *g = fmemopen(out, outlen ? outlen : 1, "r");

				if (g && marks_import(again, g, "export") != 0)
					abort();
				if (g)
					fclose(g);
				check(again);
				if (marks_count(again) != marks_count(set))
					abort();
				for (i = 0; i < marks_count(set); i++) {
					const struct marks_entry *a = marks_at(set, i), *b = marks_at(again, i);

					if (a->kind != b->kind || a->from != b->from ||
					    a->to != b->to || strcmp(a->name, b->name) ||
					    strcmp(a->color, b->color) ||
					    !a->note != !b->note ||
					    (a->note && strcmp(a->note, b->note)))
						abort();
				}
				marks_close(again);
			}
		}
		if (f)
			fclose(f);
		free(out);
		marks_close(set);
	}
	return 0;
}
