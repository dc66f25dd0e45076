/* fuzz_stall -- :stalls against the walks of every segment, on any bytes:
 * the first byte picks the timing configuration, the second how many
 * stalls are asked for.  The index is built on two threads in units of
 * a few segments; each segment's walk from its carry (stall_segment())
 * finds the largest gap and the slowest period its time summary holds,
 * at the same packets (none ranking before them in a segment holding a
 * damaged TSC past its ceiling, idx_time_overrun(), whose walk leaves out
 * what ends past it), and a sleep's place where the summary counts
 * one; stall_top(), which walks only the segments the summaries pick,
 * lists the longest gaps (but the disputed jumps into outlier segments)
 * and slowest periods of all those walks.  A
 * difference aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_config.h"
#include "image.h"
#include "index.h"
#include "stall.h"
#include "tm.h"
#include "tm_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every stall of @kind of every segment, the first-ranked first, into
 * *@n; checks each segment's best against its summary. */
static struct stall *all_sorted(const struct idx *idx, const struct img *img,
				enum stall_kind kind, size_t *n)
{
	struct stall *all = NULL, *v, *grown;
	size_t i, k, nv, na = 0;

	for (i = 0; i < idx_nseeks(idx); i++) {
		struct idx_summary s;
		struct stall sum;
		size_t best = 0;
		uint64_t ceil;

		if (stall_segment(idx, img, i, kind, &v, &nv) ||
		    idx_time_summary(idx, i, &s))
			abort();
		for (k = 1; k < nv; k++)
			if (stall_before(kind, &v[k], &v[best]))
				best = k;
		memset(&sum, 0, sizeof(sum));
		sum.gap = s.max_gap;
		sum.at = kind == STALL_GAP ? s.gap_off : s.slow_off;
		sum.per = s.slow_period;
		if (idx_time_overrun(idx, i, &ceil)) {
			/* the summary bounds the walk */
			if (nv && ((kind == STALL_GAP && !s.has_gap) ||
				   (kind == STALL_PERIOD && !s.has_period) ||
				   stall_before(kind, &v[best], &sum)))
				abort();
		} else if (kind == STALL_GAP) {
			if ((nv > 0) != !!s.has_gap ||
			    (nv && (v[best].gap != s.max_gap || v[best].at != s.gap_off)))
				abort();
		} else if ((nv > 0) != !!s.has_period ||
			   (nv && (tm_period_cmp(&v[best].per, &s.slow_period) ||
				   v[best].per.ticks != s.slow_period.ticks ||
				   v[best].at != s.slow_off))) {
			abort();
		}
		grown = realloc(all, (na + nv + 1) * sizeof(*all));
		if (!grown)
			abort();
		all = grown;
		/* the jump into an outlier segment: what its summary holds,
		 * not what stall_top() lists */
		for (k = 0; k < nv; k++)
			if (!v[k].disputed)
				all[na++] = v[k];
		free(v);
	}
	/* insertion sort: inputs are small */
	for (i = 1; i < na; i++) {
		struct stall x = all[i];

		for (k = i; k > 0 && stall_before(kind, &x, &all[k - 1]); k--)
			all[k] = all[k - 1];
		all[k] = x;
	}
	*n = na;
	return all;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tm_config cfg;
	struct img_span sp;
	struct img img;
	struct idx *idx;
	struct stall_list l;
	struct stall *gaps, *pers;
	size_t want, ng, np, i;
	uint64_t at;

	if (size < 3)
		return 0;
	fuzz_config_byte(data[0], &cfg);
	want = 1 + data[1] % 16;
	img_init_flat(&img, &sp, data + 2, size - 2);
	if (idx_new(&idx, &img, &cfg) || idx_set_threads(idx, 2) ||
	    idx_set_chunk_size(idx, 1024) || idx_build(idx) < 0)
		abort();
	if (stall_top(idx, &img, want, NULL, &l) || l.partial)
		abort();
	gaps = all_sorted(idx, &img, STALL_GAP, &ng);
	pers = all_sorted(idx, &img, STALL_PERIOD, &np);
	if (l.ngaps != (ng < want ? ng : want) || l.npers != (np < want ? np : want))
		abort();
	for (i = 0; i < l.ngaps; i++)
		if (l.gaps[i].at != gaps[i].at || l.gaps[i].gap != gaps[i].gap ||
		    l.gaps[i].seg != gaps[i].seg)
			abort();
	for (i = 0; i < l.npers; i++)
		if (l.pers[i].at != pers[i].at ||
		    memcmp(&l.pers[i].per, &pers[i].per, sizeof(pers[i].per)))
			abort();
	/* a sleep's place where the time pass closed one */
	for (i = 0; i < idx_nseeks(idx); i++) {
		struct idx_summary s;

		if (idx_time_summary(idx, i, &s))
			abort();
		if ((stall_halt_place(idx, &img, i, &at) == 0) != (s.nhalt > 0))
			abort();
	}
	free(gaps);
	free(pers);
	stall_list_free(&l);
	idx_free(idx);
	return 0;
}
