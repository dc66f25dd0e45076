/*
 * test_ctjob -- the call tree of a range as a job, on a program recorded
 * here by tools/ptrecord: run here and in a thread it is the tree ctflow
 * builds from the same windows (instructions, cycles, known and unknown),
 * its progress reaches the range's size, a cancel before the start stops
 * it after its first window with a partial, finished tree, and bad
 * settings are refused.  Skipped where ptrecord is not built.
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
#include "ctjob.h"
#include "flow.h"
#include "imgopt.h"
#include "memimg.h"
#include "ptdec.h"
#include "symfmt.h"
#include "trace.h"

struct rec {
	char dir[64];
	struct trace *t;
	struct mi *mi;
	struct imgopt io;
	struct imgset *set;
};

/* Record @prog into @r and load its code.  Returns 0, or -1 if ptrecord
 * is not built. */
static int record(struct rec *r, const char *prog)
{
	const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
	char cmd[8192], path[4096], line[4096], spec[8192], err[512];
	FILE *f;

	memset(r, 0, sizeof(*r));
	snprintf(path, sizeof(path), "%s/tools/ptrecord", build);
	if (access(path, X_OK))
		return -1;
	snprintf(r->dir, sizeof(r->dir), "/tmp/test_ctjob.XXXXXX");
	assert_non_null(mkdtemp(r->dir));
	snprintf(cmd, sizeof(cmd), "%s --psb-period 128 -q -o %s/r.pt %s/progs/%s "
		 ">/dev/null 2>&1", path, r->dir, build, prog);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(mi_new(&r->mi), 0);
	snprintf(path, sizeof(path), "%s/r.pt.options", r->dir);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = 0;
		if (strncmp(line, "--raw ", 6))
			continue;
		snprintf(spec, sizeof(spec), "%s/%s", r->dir, line + 6);
		assert_int_equal(mi_add_raw(r->mi, spec, err, sizeof(err)), 0);
	}
	fclose(f);
	snprintf(path, sizeof(path), "%s/r.pt", r->dir);
	assert_int_equal(trace_open(&r->t, path, err, sizeof(err)), 0);
	imgopt_init(&r->io);
	r->io.mi = r->mi;
	assert_int_equal(imgopt_load(&r->set, &r->io, r->t, err, sizeof(err)), 0);
	return 0;
}

static void rec_free(struct rec *r)
{
	char cmd[128];

	imgopt_free(r->set);
	imgopt_release(&r->io);
	mi_free(r->mi);
	trace_close(r->t);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", r->dir);
	assert_int_equal(system(cmd), 0);
}

static int read_code(void *ctx, const struct flow_ctx *c, uint64_t ip,
		     uint8_t *buf, size_t size)
{
	(void)c;
	return mi_read(ctx, 0, ip, buf, size);
}

/* The tree ctflow builds of [@from, @to) by itself. */
static struct ct *direct(struct rec *r, uint64_t from, uint64_t to,
			 struct symfmt **sf)
{
	const struct img *img = &r->t->streams[0].img;
	struct flow_config cfg = { .img = img, .read = read_code, .read_ctx = r->mi };
	struct ctf_opts o = { .stream = 0, .tm = &r->t->streams[0].timing };
	struct flow *f;
	struct ct *ct;

	assert_int_equal(flow_new(&f, &cfg), 0);
	assert_int_equal(symfmt_new(sf, r->set), 0);
	assert_int_equal(ct_new(&ct, ct_resolve_symfmt, *sf), 0);
	assert_int_equal(ctf_range(ct, f, img, from, to, &o), 0);
	assert_int_equal(ct_finish(ct), 0);
	flow_free(f);
	return ct;
}

static void same_root(const struct ct *a, const struct ct *b)
{
	const struct ct_node *x = ct_node(a, CT_ROOT), *y = ct_node(b, CT_ROOT);

	assert_int_equal(x->insns, y->insns);
	assert_int_equal(x->total.lo, y->total.lo);
	assert_int_equal(x->total.hi, y->total.hi);
	assert_int_equal(x->total.known, y->total.known);
	assert_int_equal(x->total.unknown, y->total.unknown);
	assert_int_equal(x->total.flags, y->total.flags);
	assert_int_equal(ct_nnodes(a), ct_nnodes(b));
	assert_int_equal(ct_nfuncs(a), ct_nfuncs(b));
}

static void job_init(struct ctjob *j, struct rec *r, uint64_t from, uint64_t to)
{
	memset(j, 0, sizeof(*j));
	j->t = r->t;
	j->stream = 0;
	j->set = r->set;
	j->tm = &r->t->streams[0].timing;
	j->from = from;
	j->to = to;
}

static void test_null(void **state)
{
	struct ctjob j;

	(void)state;
	assert_int_equal(ctjob_run(NULL), -pte_invalid);
	memset(&j, 0, sizeof(j));
	assert_int_equal(ctjob_run(&j), -pte_invalid);
	assert_int_equal(atomic_load(&j.finished), 1);
	assert_null(j.ct);
	assert_int_equal(ctjob_start(NULL), -pte_invalid);
	ctjob_cancel(NULL);
	assert_int_equal(ctjob_join(&j), -pte_invalid);	/* its result */
	ctjob_release(&j);
	ctjob_release(NULL);
}

static void test_program(void **state)
{
	struct symfmt *sf;
	struct ctjob j;
	struct rec r;
	struct ct *ct;
	uint64_t size, mid;

	(void)state;
	if (record(&r, "p_loops") < 0)
		skip();
	size = r.t->streams[0].img.size;
	ct = direct(&r, 0, size, &sf);
	assert_true(ct_node(ct, CT_ROOT)->insns > 1000);

	/* here */
	job_init(&j, &r, 0, size);
	assert_int_equal(ctjob_run(&j), 0);
	assert_int_equal(atomic_load(&j.finished), 1);
	same_root(j.ct, ct);
	assert_int_equal(atomic_load(&j.done), size);
	ctjob_release(&j);
	assert_null(j.ct);

	/* in a thread */
	job_init(&j, &r, 0, size);
	assert_int_equal(ctjob_start(&j), 0);
	assert_int_equal(ctjob_join(&j), 0);
	same_root(j.ct, ct);
	ctjob_release(&j);
	ct_free(ct);
	symfmt_free(sf);

	/* a tail */
	mid = size / 2;
	ct = direct(&r, mid, size, &sf);
	job_init(&j, &r, mid, size);
	assert_int_equal(ctjob_run(&j), 0);
	same_root(j.ct, ct);
	ctjob_release(&j);
	ct_free(ct);
	symfmt_free(sf);

	/* cancelled before it starts: one window, a finished partial tree
	 * (the whole one if it fits in a window) */
	job_init(&j, &r, 0, size);
	atomic_store(&j.cancel, 1);
	assert_int_equal(ctjob_start(&j), 0);
	assert_int_equal(ctjob_join(&j), size > 64 * 1024 ? -pte_canceled : 0);
	assert_non_null(j.ct);
	assert_true(atomic_load(&j.done) <= size);
	ctjob_release(&j);

	/* an empty range, a restriction keeping nothing */
	job_init(&j, &r, 10, 10);
	assert_int_equal(ctjob_run(&j), -pte_invalid);
	ctjob_release(&j);
	job_init(&j, &r, 0, size);
	j.restricted = 1;
	assert_int_equal(ctjob_run(&j), 0);
	assert_int_equal(ct_node(j.ct, CT_ROOT)->insns, 0);
	ctjob_release(&j);
	rec_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_program),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
