/*
 * test_flow_blocks -- block windows (flow.h, struct flow_wopts.blocks)
 * against ordinary windows: the same ranges decoded both ways must agree
 * line for line once the ordinary window's instruction lines are grouped
 * into block lines by the rule flow.h states (one run, one mode, one
 * FLOW_F_SPEC, contiguous, all but the last FLOW_IC_OTHER): counts, first
 * and last IPs, sizes, classes, flags, offsets, depths, runs (ninsns,
 * nlines, cycles, times), events and errors; and flow_line_below() and
 * flow_line_ip() against the instructions.  On p_sample as `make
 * sample-code` records it ($BUILD/sample-code, both CPU streams; skipped
 * where it is not there) and on the kAFL traces with their memory
 * (../shared/traces/libxdc-kafl-flow; skipped where they are not there):
 * the whole trace, from some PSBs to the end, and from every PSB to a
 * point between the next two; then truncated block windows.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "flow.h"
#include "helpers.h"
#include "image.h"
#include "memimg.h"

static struct mi *code;

static int our_read(void *ctx, const struct flow_ctx *c, uint64_t ip,
		    uint8_t *buf, size_t size)
{
	(void)c;
	return mi_read(ctx, MI_ASID_ANY, ip, buf, size);
}

/* The --raw lines of @path (names relative to @dir) into the code image.
 * Returns 0, or -1 if there is no such file. */
static int load_options(const char *dir, const char *path)
{
	char line[4096], spec[8192], err[512];
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = 0;
		if (strncmp(line, "--raw ", 6))
			continue;
		snprintf(spec, sizeof(spec), "%s/%s", dir, line + 6);
		assert_int_equal(mi_add_raw(code, spec, err, sizeof(err)), 0);
	}
	fclose(f);
	return 0;
}

/* Whether ordinary line @l continues the block line that ends with
 * ordinary line @p (flow.h's rule, written out again). */
static int joins(const struct flow_line *p, const struct flow_line *l)
{
	return p && p->r.kind == FLOW_INSN && l->r.kind == FLOW_INSN &&
	       p->r.iclass == FLOW_IC_OTHER && p->run == l->run &&
	       p->r.offset == l->r.offset && p->r.mode == l->r.mode &&
	       !((p->r.flags ^ l->r.flags) & FLOW_F_SPEC) &&
	       p->r.ip + p->r.size == l->r.ip;
}

/* Block window @b against ordinary window @w of the same range: @w's
 * lines grouped are @b's.  Returns the number of block lines. */
static size_t agree(const struct flow_window *w, const struct flow_window *b)
{
	size_t i = 0, k = 0, j, *blk_of;
	uint64_t insns = 0;

	assert_true(b->blocks);
	assert_false(w->blocks);
	assert_int_equal(w->psb, b->psb);
	assert_int_equal(w->truncated, b->truncated);
	assert_int_equal(w->nruns, b->nruns);
	blk_of = calloc(w->nlines + 1, sizeof(*blk_of));
	assert_non_null(blk_of);
	while (i < w->nlines) {
		const struct flow_line *first = &w->lines[i], *l;
		size_t n = 1;

		assert_true(k < b->nlines);
		l = &b->lines[k];
		blk_of[i] = k;
		while (i + n < w->nlines && joins(&w->lines[i + n - 1], &w->lines[i + n])) {
			blk_of[i + n] = k;
			n++;
		}
		assert_int_equal(l->r.kind, first->r.kind);
		assert_int_equal(l->depth, first->depth);
		assert_int_equal(l->run, first->run);
		if (first->r.kind != FLOW_INSN) {
			assert_memory_equal(&l->r, &first->r, sizeof(l->r));
			assert_int_equal(l->ninsns, 0);
			assert_int_equal(first->ninsns, 0);
		} else {
			const struct flow_line *last = &w->lines[i + n - 1];

			if (l->ninsns != n)
				fail_msg("block line %zu at %" PRIx64 ": %u instructions, "
					 "%zu grouped", k, l->r.ip, l->ninsns, n);
			assert_int_equal(l->r.ip, first->r.ip);
			assert_int_equal(l->last_ip, last->r.ip);
			assert_int_equal(l->r.offset, first->r.offset);
			assert_int_equal(l->r.mode, first->r.mode);
			assert_int_equal(l->r.size, last->r.size);
			assert_int_equal(l->r.iclass, last->r.iclass);
			assert_int_equal(l->r.flags, last->r.flags);
			assert_int_equal(l->r.ev, 0);
			assert_int_equal(l->r.err, 0);
			for (j = 0; j < n; j++) {
				const struct flow_line *x = &w->lines[i + j];

				assert_int_equal(x->ninsns, 1);
				assert_int_equal(x->last_ip, x->r.ip);
				assert_int_equal(x->depth, first->depth);
				assert_int_equal(b->sizes[l->size_at + j], x->r.size);
				assert_int_equal(flow_line_ip(b, l, (uint32_t)j), x->r.ip);
				assert_int_equal(flow_line_below(b, l, x->r.ip), j);
				assert_int_equal(flow_line_below(b, l, x->r.ip + 1), j + 1);
				assert_int_equal(flow_line_below(w, x, x->r.ip), 0);
				assert_int_equal(flow_line_below(w, x, x->r.ip + 1), 1);
			}
			assert_int_equal(flow_line_ip(b, l, l->ninsns), 0);
			assert_int_equal(flow_line_below(b, l, UINT64_MAX), n);
			assert_int_equal(flow_line_below(b, l, 0), 0);
			insns += n;
		}
		i += n;
		k++;
	}
	assert_int_equal(k, b->nlines);
	assert_int_equal(b->nsizes, insns);
	for (i = 0; i < w->nruns; i++) {
		const struct flow_run *x = &w->runs[i], *y = &b->runs[i];
		size_t end = x->first + x->nlines - 1;

		assert_int_equal(y->offset, x->offset);
		assert_int_equal(y->end_offset, x->end_offset);
		assert_int_equal(y->ninsns, x->ninsns);
		assert_int_equal(y->first, blk_of[x->first]);
		assert_int_equal(y->nlines, blk_of[end] - blk_of[x->first] + 1);
		assert_memory_equal(&y->at, &x->at, sizeof(x->at));
		assert_memory_equal(&y->cycles, &x->cycles, sizeof(x->cycles));
		assert_int_equal(y->tsc, x->tsc);
		assert_int_equal(y->tm_flags, x->tm_flags);
	}
	/* (a linear search each: some lines) */
	for (i = 0; i < w->nlines; i += w->nlines / 50 + 1)
		assert_int_equal(flow_window_line_at(b, w->lines[i].r.offset),
				 blk_of[flow_window_line_at(w, w->lines[i].r.offset)]);
	free(blk_of);
	return k;
}

/* Stats of one trace's checks, for V=1. */
struct tally {
	size_t windows, lines, blocks;
};

/* [@from, @to) both ways, then block windows truncated at a few sizes:
 * the first lines of the whole block window. */
static void check_range(struct flow *f, uint64_t from, uint64_t to, struct tally *t)
{
	struct flow_wopts wo = { 0 }, bo = { .blocks = 1 };
	struct flow_window w = { 0 }, b = { 0 }, c = { 0 };
	size_t cut[] = { 1, 2, 7, 100 }, i;

	assert_int_equal(flow_window(f, from, to, &wo, &w), 0);
	assert_int_equal(flow_window(f, from, to, &bo, &b), 0);
	t->blocks += agree(&w, &b);
	t->lines += w.nlines;
	t->windows++;
	for (i = 0; i < sizeof(cut) / sizeof(cut[0]); i++) {
		struct flow_wopts co = { .blocks = 1, .max_lines = cut[i] };

		if (cut[i] >= b.nlines)
			break;
		assert_int_equal(flow_window(f, from, to, &co, &c), 0);
		assert_int_equal(c.nlines, cut[i]);
		assert_true(c.truncated);
		assert_memory_equal(c.lines, b.lines, cut[i] * sizeof(*c.lines));
	}
	flow_window_free(&w);
	flow_window_free(&b);
	flow_window_free(&c);
}

/* Every check on trace @path (its code already in the image). */
static void check_trace(const char *path)
{
	struct flow_config cfg = { .read = our_read };
	struct tally t = { 0 };
	struct img img;
	struct img_span span;
	struct img_cursor cur;
	uint64_t *psbs = NULL, off = 0;
	size_t n = 0, npsb = 0, i;
	struct flow *f;
	uint8_t *buf = helpers_read_file(path, &n);

	assert_non_null(buf);
	img_init_flat(&img, &span, buf, n);
	cfg.img = &img;
	cfg.read_ctx = code;
	assert_int_equal(flow_new(&f, &cfg), 0);
	assert_int_equal(img_cursor_init(&cur, &img, 0), 0);
	while (img_cursor_sync_forward(&cur, off) == 0) {
		psbs = realloc(psbs, (npsb + 1) * sizeof(*psbs));
		assert_non_null(psbs);
		psbs[npsb++] = img_cursor_offset(&cur);
		off = psbs[npsb - 1] + 1;
	}
	assert_true(npsb > 0);
	check_range(f, 0, UINT64_MAX, &t);
	for (i = 0; i < npsb; i++) {
		/* to the end from some (every one would take too long) */
		if (i % (npsb / 8 + 1) == 0)
			check_range(f, psbs[i], UINT64_MAX, &t);
		/* to a point between PSBs: the last run ends past it */
		if (i + 2 < npsb)
			check_range(f, psbs[i], psbs[i + 1] + (psbs[i + 2] - psbs[i + 1]) / 2, &t);
	}
	if (getenv("V"))
		fprintf(stderr, "%s: %zu PSBs, %zu windows, %zu lines as %zu block lines\n",
			path, npsb, t.windows, t.lines, t.blocks);
	/* windows long enough that blocks group something */
	assert_true(t.blocks < t.lines);
	flow_free(f);
	free(psbs);
	free(buf);
}

static int setup(void **state)
{
	(void)state;
	return mi_new(&code);
}

static int teardown(void **state)
{
	(void)state;
	mi_free(code);
	code = NULL;
	return 0;
}

static void test_null(void **state)
{
	struct flow_window w = { 0 };
	struct flow_line l = { 0 };

	(void)state;
	assert_int_equal(flow_line_below(NULL, &l, 5), 0);
	assert_int_equal(flow_line_below(&w, NULL, 5), 0);
	assert_int_equal(flow_line_ip(NULL, &l, 0), 0);
	assert_int_equal(flow_line_ip(&w, NULL, 0), 0);
	/* an event line has no instructions */
	l.r.kind = FLOW_EVENT;
	assert_int_equal(flow_line_below(&w, &l, UINT64_MAX), 0);
	assert_int_equal(flow_line_ip(&w, &l, 0), 0);
	/* an ordinary window's instruction line: one instruction */
	l.r.kind = FLOW_INSN;
	l.r.ip = l.last_ip = 0x1000;
	l.r.size = 3;
	l.ninsns = 1;
	assert_int_equal(flow_line_below(&w, &l, 0x1000), 0);
	assert_int_equal(flow_line_below(&w, &l, 0x1001), 1);
	assert_int_equal(flow_line_ip(&w, &l, 0), 0x1000);
	assert_int_equal(flow_line_ip(&w, &l, 1), 0);
}

static void test_sample(void **state)
{
	const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
	char dir[4096], path[4200];

	(void)state;
	snprintf(dir, sizeof(dir), "%s/sample-code", build);
	snprintf(path, sizeof(path), "%s/trace.options", dir);
	if (load_options(dir, path) < 0)
		skip();
	snprintf(path, sizeof(path), "%s/trace.cpu0", dir);
	check_trace(path);
	snprintf(path, sizeof(path), "%s/trace.cpu1", dir);
	if (!access(path, R_OK))
		check_trace(path);
}

static void kafl_one(const char *dir, const char *name, const char *trace)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/%s.options", dir, name);
	assert_int_equal(load_options(dir, path), 0);
	snprintf(path, sizeof(path), "%s/%s", dir, trace);
	check_trace(path);
	mi_free(code);
	assert_int_equal(mi_new(&code), 0);
}

static void test_kafl(void **state)
{
	const char *shared = getenv("SHARED");
	char dir[4096], probe[4200];

	(void)state;
	snprintf(dir, sizeof(dir), "%s/traces/libxdc-kafl-flow", shared ? shared : "../shared");
	snprintf(probe, sizeof(probe), "%s/unzip.options", dir);
	if (access(probe, R_OK))
		skip();
	kafl_one(dir, "unzip", "unzip_trace.pt");
	kafl_one(dir, "foo", "foo_trace.pt");
	kafl_one(dir, "dyn_test", "dyn_test_sample_raw_0.pt");
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null),
		T(test_sample),
		T(test_kafl),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
