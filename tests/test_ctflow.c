/*
 * test_ctflow -- the call tree fed from flow windows, on programs recorded
 * here by tools/ptrecord --log-cycles (its log has each instruction's
 * start and retirement cycle in its model, which its CYC packets count):
 * the tree holds every instruction of the log; a range's cycles are the
 * sum of its runs' (also decoded in small windows, and for a sub-range);
 * they bracket the model's cycles of the range's instructions; a
 * restriction to offset ranges keeps exactly the instructions decided
 * there.  Skipped where ptrecord is not built.
 */
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
#include "ctflow.h"
#include "ctx.h"
#include "flow.h"
#include "image.h"
#include "memimg.h"
#include "ptdec.h"
#include "symfmt.h"

struct rec {
	char dir[64];
	uint8_t *pt;
	size_t npt;
	struct img img;
	struct img_span span;
	struct mi *code;
	uint64_t *ip, *start, *end;	/* the log */
	size_t n;
};

static int read_code(void *ctx, const struct flow_ctx *c, uint64_t ip,
		     uint8_t *buf, size_t size)
{
	(void)c;
	return mi_read(ctx, MI_ASID_ANY, ip, buf, size);
}

/* Functions of 64 bytes: runs shared between them are common. */
static int resolve(void *ctx, uint64_t asid, uint64_t ip, struct symfmt_fn *fn)
{
	static const char name[] = "block";

	(void)ctx;
	(void)asid;
	fn->name = name;
	fn->start = ip & ~63ull;
	fn->end = fn->start + 64;
	fn->kind = SYMFMT_FUNC;
	return 0;
}

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b;
	long sz;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	sz = ftell(f);
	assert_true(sz > 0);
	rewind(f);
	b = malloc((size_t)sz);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, (size_t)sz, f), (size_t)sz);
	fclose(f);
	*n = (size_t)sz;
	return b;
}

/* Record @prog into @r.  Returns 0, or -1 if ptrecord is not built. */
static int record(struct rec *r, const char *prog)
{
	const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
	char cmd[8192], path[4096], line[4096], spec[8192], err[512];
	unsigned long long ip, a, b;
	size_t cap = 0;
	FILE *f;

	memset(r, 0, sizeof(*r));
	snprintf(path, sizeof(path), "%s/tools/ptrecord", build);
	if (access(path, X_OK))
		return -1;
	snprintf(r->dir, sizeof(r->dir), "/tmp/test_ctflow.XXXXXX");
	assert_non_null(mkdtemp(r->dir));
	snprintf(cmd, sizeof(cmd), "%s --log-cycles --psb-period 128 -q -o %s/r.pt "
		 "%s/progs/%s >/dev/null 2>&1", path, r->dir, build, prog);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(mi_new(&r->code), 0);
	snprintf(path, sizeof(path), "%s/r.pt.options", r->dir);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = 0;
		if (strncmp(line, "--raw ", 6))
			continue;
		snprintf(spec, sizeof(spec), "%s/%s", r->dir, line + 6);
		assert_int_equal(mi_add_raw(r->code, spec, err, sizeof(err)), 0);
	}
	fclose(f);
	snprintf(path, sizeof(path), "%s/r.pt.flow", r->dir);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fscanf(f, "%llx %llu %llu", &ip, &a, &b) == 3) {
		if (r->n == cap) {
			cap = cap ? 2 * cap : 4096;
			r->ip = realloc(r->ip, cap * sizeof(*r->ip));
			r->start = realloc(r->start, cap * sizeof(*r->start));
			r->end = realloc(r->end, cap * sizeof(*r->end));
			assert_true(r->ip && r->start && r->end);
		}
		r->ip[r->n] = ip;
		r->start[r->n] = a;
		r->end[r->n++] = b;
	}
	fclose(f);
	assert_true(r->n > 1000);
	snprintf(path, sizeof(path), "%s/r.pt", r->dir);
	r->pt = slurp(path, &r->npt);
	img_init_flat(&r->img, &r->span, r->pt, r->npt);
	return 0;
}

static void rec_free(struct rec *r)
{
	char cmd[128];

	free(r->pt);
	free(r->ip);
	free(r->start);
	free(r->end);
	mi_free(r->code);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", r->dir);
	assert_int_equal(system(cmd), 0);
}

static struct flow *flow_of(struct rec *r)
{
	struct flow_config cfg = { .img = &r->img, .read = read_code,
				   .read_ctx = r->code };
	struct flow *f;

	assert_int_equal(flow_new(&f, &cfg), 0);
	return f;
}

/* What the runs of [@from, @to) add up to, decoded in one window. */
struct sums {
	uint64_t lo, hi, unknown, known, insns;
	int open;
};

static void run_sums(struct flow *f, uint64_t from, uint64_t to, struct sums *s)
{
	struct flow_window w = { 0 };
	size_t i;

	memset(s, 0, sizeof(*s));
	assert_int_equal(flow_window(f, from, to, NULL, &w), 0);
	for (i = 0; i < w.nruns; i++) {
		const struct flow_cyc *c = &w.runs[i].cycles;

		s->insns += w.runs[i].ninsns;
		if (!(c->flags & FLOW_C_KNOWN)) {
			s->unknown += w.runs[i].ninsns;
			continue;
		}
		s->known += w.runs[i].ninsns;
		s->lo += c->lo;
		s->hi += c->flags & (FLOW_C_HI | FLOW_C_EXACT) ? c->hi : c->lo;
		s->open |= !(c->flags & (FLOW_C_HI | FLOW_C_EXACT));
	}
	flow_window_free(&w);
}

/* The model's cycles of the instructions in runs with known cycles of one
 * window over the whole trace (its instructions are the log's, in order). */
static uint64_t model_known(struct flow *f, const struct rec *r)
{
	struct flow_window w = { 0 };
	uint64_t sum = 0;
	size_t i, k = 0, first = 0;

	assert_int_equal(flow_window(f, 0, UINT64_MAX, NULL, &w), 0);
	for (i = 0; i < w.nlines; i++) {
		const struct flow_line *l = &w.lines[i];
		const struct flow_run *run;

		if (l->r.kind != FLOW_INSN)
			continue;
		assert_true(k < r->n);
		assert_int_equal(l->r.ip, r->ip[k]);
		run = &w.runs[l->run];
		if (i == run->first)
			first = k;
		/* the run's last instruction: its model cycles */
		if (i == run->first + run->nlines - 1 &&
		    (run->cycles.flags & FLOW_C_KNOWN))
			sum += r->end[k] - r->start[first];
		k++;
	}
	flow_window_free(&w);
	return sum;
}

static struct ct *tree_of(struct flow *f, struct rec *r, uint64_t from,
			  uint64_t to, uint64_t chunk, const struct ctx_range *keep,
			  size_t nkeep)
{
	struct ctf_opts o = { .stream = 0, .chunk = chunk, .keep = keep,
			      .nkeep = nkeep };
	struct ct *ct;

	assert_int_equal(ct_new(&ct, resolve, NULL), 0);
	assert_int_equal(ctf_range(ct, f, &r->img, from, to, &o), 0);
	assert_int_equal(ct_finish(ct), 0);
	return ct;
}

static void same_sums(const struct ct *ct, const struct sums *s, const char *what)
{
	const struct ct_node *root = ct_node(ct, CT_ROOT);

	if (root->insns != s->insns || root->total.lo != s->lo ||
	    root->total.hi != s->hi || root->total.known != s->known)
		fprintf(stderr, "%s: tree %llu insns, cycles %llu..%llu, %llu known; "
			"runs %llu, %llu..%llu, %llu\n", what,
			(unsigned long long)root->insns,
			(unsigned long long)root->total.lo,
			(unsigned long long)root->total.hi,
			(unsigned long long)root->total.known,
			(unsigned long long)s->insns, (unsigned long long)s->lo,
			(unsigned long long)s->hi, (unsigned long long)s->known);
	assert_int_equal(root->insns, s->insns);
	assert_int_equal(root->total.lo, s->lo);
	assert_int_equal(root->total.hi, s->hi);
	assert_int_equal(root->total.known, s->known);
	assert_int_equal(root->total.unknown, s->unknown);
	assert_int_equal(!!(root->total.flags & CT_S_OPEN), s->open);
}

static void one_program(const char *prog)
{
	struct ctx_range keep[2];
	struct rec r;
	struct flow *f;
	struct ct *ct;
	struct sums s, s2;
	const struct ct_node *root;
	uint64_t model = 0, mid;
	size_t i, nexact = 0;

	if (record(&r, prog) < 0)
		skip();
	f = flow_of(&r);

	/* the whole trace: every instruction of the log, the runs' cycles */
	run_sums(f, 0, UINT64_MAX, &s);
	assert_int_equal(s.insns, r.n);
	ct = tree_of(f, &r, 0, r.npt, 0, NULL, 0);
	same_sums(ct, &s, "whole");
	root = ct_node(ct, CT_ROOT);
	/* the model's cycles of the instructions of the known runs lie
	 * within the tree's */
	model = model_known(f, &r);
	assert_true(root->total.lo <= model);
	assert_true(s.open || model <= root->total.hi);
	for (i = 0; i < ct_nfuncs(ct); i++)
		nexact += !(ct_func(ct, (uint32_t)i)->cyc.flags &
			    (CT_S_BOUNDED | CT_S_OPEN | CT_S_SHARED));
	ct_free(ct);

	/* in windows of 256 bytes (a few PSBs each): the same tree */
	ct = tree_of(f, &r, 0, r.npt, 256, NULL, 0);
	same_sums(ct, &s, "256-byte windows");
	ct_free(ct);

	/* the tail from a PSB past the middle (or the first quarter): the
	 * runs of that range */
	for (i = 2; i < 8; i++) {
		mid = r.npt - r.npt / i;
		run_sums(f, mid, r.npt, &s2);
		if (s2.insns > 0 && s2.insns < r.n)
			break;
	}
	assert_true(s2.insns > 0 && s2.insns < r.n);
	ct = tree_of(f, &r, mid, r.npt, 256, NULL, 0);
	same_sums(ct, &s2, "tail");
	ct_free(ct);

	/* kept: the offsets before and after @mid, apart, are all */
	keep[0].from = 0;
	keep[0].to = mid;
	keep[1].from = mid;
	keep[1].to = r.npt;
	ct = tree_of(f, &r, 0, r.npt, 0, keep, 2);
	assert_int_equal(ct_node(ct, CT_ROOT)->insns, r.n);
	ct_free(ct);
	/* the tail only: the instructions decided there */
	ct = tree_of(f, &r, 0, r.npt, 0, keep + 1, 1);
	{
		struct flow_window w = { 0 };
		uint64_t n = 0;

		assert_int_equal(flow_window(f, 0, UINT64_MAX, NULL, &w), 0);
		for (i = 0; i < w.nlines; i++)
			n += w.lines[i].r.kind == FLOW_INSN && w.lines[i].r.offset >= mid;
		flow_window_free(&w);
		assert_int_equal(ct_node(ct, CT_ROOT)->insns, n);
	}
	ct_free(ct);
	if (getenv("V"))
		fprintf(stderr, "%s: %zu instructions, cycles %llu..%llu, model "
			"%llu, %zu functions exact\n", prog, r.n,
			(unsigned long long)s.lo, (unsigned long long)s.hi,
			(unsigned long long)model, nexact);
	flow_free(f);
	rec_free(&r);
}

static void test_null(void **state)
{
	struct ctf_opts o = { 0 };
	struct flow_window w = { 0 };
	struct ct *ct;

	(void)state;
	assert_int_equal(ct_new(&ct, resolve, NULL), 0);
	assert_int_equal(ctf_window(NULL, &w, &o), -pte_invalid);
	assert_int_equal(ctf_window(ct, NULL, &o), -pte_invalid);
	assert_int_equal(ctf_window(ct, &w, NULL), -pte_invalid);
	assert_int_equal(ctf_window(ct, &w, &o), 0);	/* empty */
	assert_int_equal(ctf_range(ct, NULL, NULL, 0, 1, &o), -pte_invalid);
	ct_free(ct);
}

static void test_loops(void **state)
{
	(void)state;
	one_program("p_loops");
}

static void test_longjmp(void **state)
{
	(void)state;
	one_program("p_longjmp");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_loops),
		cmocka_unit_test(test_longjmp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
