/* ctsum -- top functions as text lines (see ctsum.h). */
#include "ctsum.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "esc.h"
#include "symfmt.h"

/* @f's name as shown, escaped, into @buf. */
static const char *ctsum_name(const struct ct_func *f, char *buf, size_t size)
{
	char raw[256];

	snprintf(raw, sizeof(raw), f->kind == SYMFMT_SEGMENT ? "[%s]" : "%s", f->name);
	return esc_str(buf, size, raw);
}

/* The function of @ct that is @f: of its name, kind and start (several
 * objects have a _fini, say), else the only one of its name and kind
 * (code loaded elsewhere); or NULL. */
static const struct ct_func *ctsum_find(const struct ct *ct, const struct ct_func *f)
{
	const struct ct_func *named = NULL;
	size_t i, n = 0;

	for (i = 0; i < ct_nfuncs(ct); i++) {
		const struct ct_func *g = ct_func(ct, (uint32_t)i);

		if (g->kind != f->kind || strcmp(g->name, f->name))
			continue;
		if (g->start == f->start)
			return g;
		named = g;
		n++;
	}
	return n == 1 ? named : NULL;
}

/* A line snprintf() cut (@n its full length) ends in ".." so the cut
 * shows. */
static void ctsum_cut(char *line, int n)
{
	if (n >= CTSUM_LINE)
		memcpy(line + CTSUM_LINE - 3, "..", 3);
}

size_t ctsum_lines(const struct ct *a, const struct ct *b, enum ct_order order,
		   size_t n, char (*out)[CTSUM_LINE], size_t max)
{
	static const char *const by[] = { "cycles", "instructions", "calls" };
	char ca[48], cb[48], ia[24], ib[24], na[24], nb[24], name[128];
	uint32_t *idx;
	size_t k, i, w = 0;

	if (!a || !max)
		return 0;
	if (b)
		snprintf(out[w++], CTSUM_LINE, "%14s %14s %9s %9s %7s %7s  by %s",
			 "A cycles", "B cycles", "A insns", "B insns", "A calls",
			 "B calls", by[order]);
	else
		snprintf(out[w++], CTSUM_LINE, "%16s %10s %8s  by %s", "cycles", "insns",
			 "calls", by[order]);
	idx = malloc((ct_nfuncs(a) + 1) * sizeof(*idx));
	if (!idx)
		return w;
	k = ct_top(a, order, idx, n);
	for (i = 0; i < k && w < max; i++) {
		const struct ct_func *f = ct_func(a, idx[i]), *g = b ? ctsum_find(b, f) : NULL;

		ct_sum_str(&f->cyc, ca, sizeof(ca));
		ctsum_name(f, name, sizeof(name));
		if (!b) {
			ctsum_cut(out[w], snprintf(out[w], CTSUM_LINE, "%16s %10" PRIu64
				  " %8" PRIu64 "  %s", ca, f->insns, f->calls, name));
			w++;
			continue;
		}
		snprintf(ia, sizeof(ia), "%" PRIu64, f->insns);
		snprintf(na, sizeof(na), "%" PRIu64, f->calls);
		if (g) {
			ct_sum_str(&g->cyc, cb, sizeof(cb));
			snprintf(ib, sizeof(ib), "%" PRIu64, g->insns);
			snprintf(nb, sizeof(nb), "%" PRIu64, g->calls);
		} else {
			strcpy(cb, "-");
			strcpy(ib, "-");
			strcpy(nb, "-");
		}
		ctsum_cut(out[w], snprintf(out[w], CTSUM_LINE, "%14s %14s %9s %9s %7s %7s  %s",
					   ca, cb, ia, ib, na, nb, name));
		w++;
	}
	free(idx);
	return w;
}
