/* fuzz_iter -- :iterations' walk against the straight one, on any bytes:
 * the first byte picks the timing configuration, the second the
 * predicate whose hits are the boundaries and the most boundaries kept.
 * The index is built on two threads in units of a few segments; the job
 * on two threads (units in the spread order, segments skipped by their
 * summaries and bytes, boundaries timed from the index's carries) must
 * find the boundaries, lost data, times and cycles of one walk through
 * every packet from the start (iter_opts.straight), and so must a job
 * given those boundaries' offsets.  A difference aborts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_config.h"
#include "image.h"
#include "index.h"
#include "iter.h"
#include "search.h"
#include "tm_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Boundaries of packets a trace has many or few of, and of payloads. */
static const char *const exprs[] = {
	"tip", "tnt", "psb", "ovf", "mtc", "cyc", "tip.pgd", "fup",
	"cyc > 20", "tsc", "pad", "tip.pge", "mode", "tip 0x401000",
	"cbr", "gap > 1us",
};

/* The boundaries of a job on @idx: of @expr, or at @offs.  NULL if it
 * could not run (an index without time); else the job, finished. */
static struct iter_job *run(const struct img *img, const struct idx *idx,
			    const struct tm_config *cfg, const char *expr,
			    const struct iter_opts *o)
{
	struct srch_pred *p = NULL;
	struct iter_job *j;
	char err[128];

	if (expr && srch_parse(expr, &p, err, sizeof(err)))
		abort();
	if (iter_start(&j, img, idx, p, cfg, o))
		return NULL;
	if (iter_wait(j) < 0)
		abort();
	return j;
}

/* Boundaries @a[@n] and @b[@m] are the same. */
static void same(const struct iter_bound *a, size_t n,
		 const struct iter_bound *b, size_t m)
{
	size_t i;

	if (n != m)
		abort();
	for (i = 0; i < n; i++)
		if (a[i].offset != b[i].offset || a[i].tsc != b[i].tsc ||
		    a[i].cyc_lo != b[i].cyc_lo || a[i].cyc_hi != b[i].cyc_hi ||
		    a[i].flags != b[i].flags || a[i].lost != b[i].lost ||
		    a[i].timed != b[i].timed || a[i].ahead != b[i].ahead ||
		    a[i].anchor != b[i].anchor)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tm_config cfg;
	struct img_span sp;
	struct img img;
	struct idx *idx;
	struct iter_job *js, *jw, *jg;
	const struct iter_bound *bs, *bw, *bg;
	struct iter_opts o;
	const char *expr;
	uint64_t *offs;
	size_t ns, nw, ng, i;

	if (size < 3)
		return 0;
	fuzz_config_byte(data[0], &cfg);
	expr = exprs[data[1] % (sizeof(exprs) / sizeof(exprs[0]))];
	img_init_flat(&img, &sp, data + 2, size - 2);
	if (idx_new(&idx, &img, &cfg) || idx_set_threads(idx, 2) ||
	    idx_set_chunk_size(idx, 1024) || idx_build(idx) < 0)
		abort();
	memset(&o, 0, sizeof(o));
	o.nthreads = 2;
	/* a few kept (the walk stops there), or the default */
	o.max_bounds = data[1] & 0x80 ? 1 + (data[1] >> 4 & 7) : 0;
	o.straight = 1;
	js = run(&img, idx, &cfg, expr, &o);
	o.straight = 0;
	jw = run(&img, idx, &cfg, expr, &o);
	if (!js != !jw)
		abort();
	if (!js)
		goto out;
	bs = iter_bounds(js, &ns);
	bw = iter_bounds(jw, &nw);
	same(bs, ns, bw, nw);
	/* the same offsets given (a code search's hits; not where the walk
	 * stopped at max_bounds: the boundary after the last kept bounds
	 * its cycles, and the offsets have none) */
	if (o.max_bounds)
		goto out;
	offs = malloc((ns ? ns : 1) * sizeof(*offs));
	if (!offs)
		abort();
	for (i = 0; i < ns; i++)
		offs[i] = bs[i].offset;
	o.offsets = offs;
	o.noffsets = ns;
	jg = run(&img, idx, &cfg, NULL, &o);
	if (!jg)
		abort();
	bg = iter_bounds(jg, &ng);
	same(bs, ns, bg, ng);
	iter_free(jg);
	free(offs);
out:
	iter_free(jw);
	iter_free(js);
	idx_free(idx);
	return 0;
}
