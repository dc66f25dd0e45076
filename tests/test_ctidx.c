/*
 * test_ctidx -- the code index and the pieces of a range, on
 * tests/progs/p_sample as `make sample-code` records it ($BUILD/
 * sample-code/perf.data: four threads on two CPUs, a shared library,
 * switch sideband; skipped where it is not there): for many ranges, some
 * starting or ending inside chunks, some inside one chunk, some with no
 * chunk between their edges, on two grids,
 *   - the index's carry at each boundary is what a decode walks to (the
 *     trees of ranges from 0, one decode walking its carries, against
 *     pieces resumed from the index's: cycles and times bit-identical);
 *   - two pieces fed in order into one tree (ctflow.h's ahead and resume)
 *     make the tree one decode makes;
 *   - ctjob with the code index before it is built (two pieces decoded in
 *     parallel, merged) and after (fragments and edges) makes it too:
 *     every node and function, calls, instructions, cycles, time, offsets;
 *     so do the fragments of 2, 4 and 8 chunks merged ahead;
 *   - ranges inside PSB segments at both ends, decoded from the PSB
 *     before and keeping what the range decides (the function view's):
 *     the index's fragments inside them are merged, the same tree;
 *   - past its memory budget the index stops with what it made, and a
 *     range it does not cover is decoded: the same tree.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "calltree.h"
#include "ctdec.h"
#include "ctflow.h"
#include "ctidx.h"
#include "ctjob.h"
#include "ctx.h"
#include "imgopt.h"
#include "index.h"
#include "ptdec.h"
#include "trace.h"
#include "sample_fix.h"

/* Everything a tree says, as text (nodes in their order, functions). */
static char *tree_text(const struct ct *ct)
{
	char *buf = NULL, a[48], b[48];
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_non_null(ct);
	for (i = 0; i < ct_nnodes(ct); i++) {
		const struct ct_node *n = ct_node(ct, (uint32_t)i);
		const struct ct_func *fn = ct_func(ct, n->func);

		fprintf(f, "n%zu p%u d%u %s c%" PRIu64 " i%" PRIu64 "/%" PRIu64
			" tot %s [%" PRIu64 "/%" PRIu64 " u%" PRIu64 " f%u] self %s"
			" [%" PRIu64 "/%" PRIu64 " u%" PRIu64 " f%u] t%" PRIu64 " @%" PRIx64 "\n",
			i, n->parent, n->depth, fn ? fn->name : "-", n->calls, n->insns,
			n->insns_self, ct_sum_str(&n->total, a, sizeof(a)), n->total.lo,
			n->total.hi, n->total.unknown, n->total.flags,
			ct_sum_str(&n->self, b, sizeof(b)), n->self.lo, n->self.hi,
			n->self.unknown, n->self.flags, n->tsc_ticks, n->offset);
	}
	for (i = 0; i < ct_nfuncs(ct); i++) {
		const struct ct_func *fn = ct_func(ct, (uint32_t)i);

		fprintf(f, "f %s %" PRIx64 " k%u i%" PRIu64 " c%" PRIu64 " %" PRIu64
			"/%" PRIu64 " u%" PRIu64 " f%u\n", fn->name, fn->start, fn->kind,
			fn->insns, fn->calls, fn->cyc.lo, fn->cyc.hi, fn->cyc.unknown,
			fn->cyc.flags);
	}
	fprintf(f, "truncated %d\n", ct_truncated(ct));
	fclose(f);
	return buf;
}

/* Fail showing the first line where @want and @got differ. */
static void same_text(const char *want, const char *got, const char *what)
{
	size_t i = 0, line = 1, start = 0;

	if (!strcmp(want, got))
		return;
	while (want[i] && want[i] == got[i]) {
		if (want[i] == '\n') {
			line++;
			start = i + 1;
		}
		i++;
	}
	fail_msg("%s: line %zu differs:\n  want %.200s\n  got  %.200s", what, line,
		 want + start, got + start);
}

/* The tree of [@from, @to) made by a job (@ci NULL: one decode). */
static char *job_text(struct sample_fix *fx, uint64_t from, uint64_t to, uint64_t grid,
		      const struct ctidx *ci, int *ret)
{
	struct ctjob j;
	char *s;

	memset(&j, 0, sizeof(j));
	j.t = fx->t;
	j.stream = fx->stream;
	j.set = fx->set;
	j.tm = &fx->t->streams[fx->stream].timing;
	j.from = from;
	j.to = to;
	j.grid = grid;
	j.ci = ci;
	/* none past the last PSB: an empty tree */
	j.have_carry = !sample_fix_carry(fx, from, &j.carry);
	*ret = ctjob_run(&j);
	s = j.ct ? tree_text(j.ct) : strdup("none");
	ctjob_release(&j);
	return s;
}

/* The tree of [@from, @to) made as funcs_sum_range() asks a job for it:
 * decoded from the PSB at or before @from, keeping what [@from, @to)
 * decides (@ci NULL: one decode); the code index's chunks merged into
 * *@merged. */
static char *keep_text(struct sample_fix *fx, uint64_t from, uint64_t to, uint64_t grid,
		       const struct ctidx *ci, int *ret, size_t *merged)
{
	struct ctx_range keep = { from, to };
	struct idx_seek sk;
	struct ctjob j;
	size_t seg;
	char *s;

	memset(&j, 0, sizeof(j));
	j.t = fx->t;
	j.stream = fx->stream;
	j.set = fx->set;
	j.tm = &fx->t->streams[fx->stream].timing;
	j.from = from;
	if (!idx_find(fx->idx, from, &seg) && !idx_seek(fx->idx, seg, &sk) &&
	    sk.offset < from) {
		j.from = sk.offset;
		j.restricted = 1;
		j.keep = &keep;
		j.nkeep = 1;
	}
	j.to = to;
	j.grid = grid;
	j.ci = ci;
	j.have_carry = !sample_fix_carry(fx, j.from, &j.carry);
	*ret = ctjob_run(&j);
	*merged = j.merged;
	s = j.ct ? tree_text(j.ct) : strdup("none");
	ctjob_release(&j);
	return s;
}

/* Ranges starting and ending inside PSB segments, as the function view
 * and the region summaries ask for them (keep_text()): with the code index
 * (@built: its fragments inside the range merged, else two pieces in
 * parallel) the tree one decode makes.  Returns how many used fragments. */
static int check_keep(struct sample_fix *fx, uint64_t grid, int built, struct ctidx *ci)
{
	uint64_t size = fx->t->streams[fx->stream].img.size, from, to;
	int nmerged = 0, ret;
	char what[128];

	for (from = 0x123; from < size; from += grid / 2 + 0x3b1) {
		for (to = from + 0x2f5; to < size; to += grid + 0x1d7) {
			char *want, *got;
			size_t merged;

			snprintf(what, sizeof(what), "grid %" PRIu64 " keep [%#" PRIx64 ", %#"
				 PRIx64 ")%s", grid, from, to, built ? " built" : "");
			want = keep_text(fx, from, to, grid, NULL, &ret, &merged);
			assert_int_equal(ret, 0);
			assert_int_equal(merged, 0);
			got = keep_text(fx, from, to, grid, ci, &ret, &merged);
			assert_int_equal(ret, 0);
			same_text(want, got, what);
			nmerged += merged > 0;
			free(got);
			free(want);
		}
	}
	return nmerged;
}

/* [@from, @to) fed as two pieces, cut at boundary @k, into one tree. */
static char *pieces_text(struct sample_fix *fx, const struct ctidx *ci, uint64_t from,
			 uint64_t to, size_t k)
{
	struct ctdec *d;
	struct ct *ct;
	struct ctf_opts o;
	struct ctidx_cut c;
	struct tm_carry first;
	const struct img *img = &fx->t->streams[fx->stream].img;
	char *s;

	assert_int_equal(ctidx_cut(ci, k, &c), 0);
	assert_int_equal(sample_fix_carry(fx, from, &first), 0);
	assert_int_equal(ctdec_new(&d, fx->t, fx->stream, fx->set), 0);
	assert_int_equal(ct_new(&ct, ct_resolve_symfmt, ctdec_symfmt(d)), 0);
	memset(&o, 0, sizeof(o));
	ctdec_opts(d, &o);
	o.tm = &fx->t->streams[fx->stream].timing;
	o.chunk = ctidx_grid(ci);
	o.carry = &first;
	o.ahead = to;
	assert_int_equal(ctf_range(ct, ctdec_flow(d), img, from, c.off, &o), 0);
	o.ahead = 0;
	o.carry = &c.at;
	o.resume = 1;
	o.resume_psb = c.prev;
	o.resume_carry = &c.before;
	assert_int_equal(ctf_range(ct, ctdec_flow(d), img, c.off, to, &o), 0);
	assert_int_equal(ct_finish(ct), 0);
	s = tree_text(ct);
	ct_free(ct);
	ctdec_free(d);
	return s;
}

/* Every range [from, to) on steps of half the grid: one decode's tree
 * against pieces fed in order (before the index is built: its first, a
 * middle and its last cut) and the job with the index (@built or not). */
static void check_ranges(struct sample_fix *fx, uint64_t grid, int built, struct ctidx *ci)
{
	uint64_t size = fx->t->streams[fx->stream].img.size, from, to, step = grid / 2;
	struct ctidx_plan pl;
	int nplans = 0, nwhole = 0, nmid = 0, ret;
	char what[128];

	for (from = 0; from < size; from += step) {
		for (to = from + step; to <= size + step; to += step) {
			uint64_t t = to < size ? to : size;
			char *want, *got;

			if (t <= from)
				continue;
			/* fewer long ranges: every third */
			if (t - from > 3 * grid && (from / step + t / step) % 3)
				continue;
			snprintf(what, sizeof(what), "grid %" PRIu64 " [%#" PRIx64 ", %#" PRIx64
				 ")%s", grid, from, t, built ? " built" : "");
			want = job_text(fx, from, t, grid, NULL, &ret);
			assert_int_equal(ret, 0);
			if (ctidx_plan(ci, from, t, &pl) == 0) {
				size_t k;

				nplans++;
				nmid += pl.ka < pl.kend;
				/* the first, a middle and the last cut */
				for (k = pl.ka; !built && k <= pl.kb;
				     k = k == pl.kb ? k + 1 : k == pl.ka && pl.kb - pl.ka > 1 ?
					 (pl.ka + pl.kb) / 2 : pl.kb) {
					got = pieces_text(fx, ci, from, t, k);
					same_text(want, got, what);
					free(got);
				}
			} else {
				nwhole++;
			}
			got = job_text(fx, from, t, grid, ci, &ret);
			assert_int_equal(ret, 0);
			same_text(want, got, what);
			free(got);
			free(want);
		}
	}
	/* the ranges cover every case: cut, whole, with a middle */
	assert_true(nplans > 10);
	assert_true(nwhole > 5);
	assert_true(nmid > 2);
}

static void one_stream(int stream, uint64_t grid)
{
	struct sample_fix fx;
	struct ctidx *ci;
	struct ctidx_opts o;
	struct ctidx_progress p;

	if (sample_fix_open(&fx, stream)) {
		skip();
		return;
	}
	stream = fx.stream;
	memset(&o, 0, sizeof(o));
	o.t = fx.t;
	o.stream = stream;
	o.set = fx.set;
	o.tm = &fx.t->streams[stream].timing;
	o.idx = fx.idx;
	o.grid = grid;
	/* fragments of 2, 4 and 8 chunks too, on these few chunks */
	o.fan = 2;
	assert_int_equal(ctidx_new(&ci, &o), 0);
	ctidx_progress(ci, &p);
	assert_false(p.started);
	assert_true(p.nchunks > 3);
	assert_int_equal(p.nfrags, 0);
	/* before: pieces decoded in parallel */
	check_ranges(&fx, grid, 0, ci);
	assert_int_equal(check_keep(&fx, grid, 0, ci), 0);
	assert_int_equal(ctidx_start(ci), 0);
	assert_int_equal(ctidx_wait(ci), 0);
	ctidx_progress(ci, &p);
	assert_true(p.finished);
	assert_int_equal(p.status, 0);
	/* every chunk but the first and the last */
	assert_int_equal(p.nfrags, p.nchunks - 2);
	assert_true(p.bytes > 0);
	/* fragments of several chunks where there are enough */
	if (p.nchunks >= 6)
		assert_true(p.nups > 0);
	check_ranges(&fx, grid, 1, ci);
	/* the index's fragments are used for ranges that do not start on a
	 * PSB too (they were decoded whole) */
	assert_true(check_keep(&fx, grid, 1, ci) > 0);
	ctidx_free(ci);
	sample_fix_close(&fx);
}

static void test_grid_psb(void **state)
{
	(void)state;
	one_stream(-1, 4096);
}

/* The other stream (where the sample's is not too small). */
static void test_other_stream(void **state)
{
	(void)state;
	one_stream(-2, 4096);
}

static void test_grid_two_psbs(void **state)
{
	(void)state;
	one_stream(-1, 8192);
}

/* Past its memory budget the index stops with what it made, and a range
 * it does not cover is decoded (in two pieces): the same tree. */
static void test_budget(void **state)
{
	struct sample_fix fx;
	struct ctidx *ci;
	struct ctidx_opts o;
	struct ctidx_progress p;
	uint64_t size;
	char *want, *got;
	int ret;

	(void)state;
	if (sample_fix_open(&fx, -1)) {
		skip();
		return;
	}
	memset(&o, 0, sizeof(o));
	o.t = fx.t;
	o.stream = fx.stream;
	o.set = fx.set;
	o.tm = &fx.t->streams[fx.stream].timing;
	o.idx = fx.idx;
	o.grid = 4096;
	o.nthreads = 1;
	o.max_bytes = 1;
	assert_int_equal(ctidx_new(&ci, &o), 0);
	assert_int_equal(ctidx_start(ci), 0);
	assert_int_equal(ctidx_wait(ci), -pte_nomem);
	ctidx_progress(ci, &p);
	assert_true(p.finished);
	assert_int_equal(p.status, -pte_nomem);
	assert_true(p.nfrags >= 1 && p.nfrags < p.nchunks - 2);
	size = fx.t->streams[fx.stream].img.size;
	want = job_text(&fx, 0x800, size - 0x800, 4096, NULL, &ret);
	assert_int_equal(ret, 0);
	got = job_text(&fx, 0x800, size - 0x800, 4096, ci, &ret);
	assert_int_equal(ret, 0);
	same_text(want, got, "past the budget");
	free(want);
	free(got);
	ctidx_free(ci);
	sample_fix_close(&fx);
}

static void test_null(void **state)
{
	struct ctidx_opts o;
	struct ctidx *ci = NULL;
	struct ctidx_plan pl;
	struct ctidx_progress p;

	(void)state;
	memset(&o, 0, sizeof(o));
	assert_int_equal(ctidx_new(NULL, &o), -pte_invalid);
	assert_int_equal(ctidx_new(&ci, NULL), -pte_invalid);
	assert_int_equal(ctidx_new(&ci, &o), -pte_invalid);
	assert_int_equal(ctidx_plan(NULL, 0, 1, &pl), -pte_invalid);
	assert_int_equal(ctidx_start(NULL), -pte_invalid);
	assert_int_equal(ctidx_wait(NULL), -pte_invalid);
	assert_false(ctidx_covers(NULL, 0, 1));
	ctidx_progress(NULL, &p);
	assert_false(p.started);
	ctidx_cancel(NULL);
	ctidx_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_grid_psb),
		cmocka_unit_test(test_grid_two_psbs),
		cmocka_unit_test(test_other_stream),
		cmocka_unit_test(test_budget),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
