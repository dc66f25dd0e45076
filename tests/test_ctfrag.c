/*
 * test_ctfrag -- call-tree fragments (ctfrag.c) on a real flow: p_sample
 * as `make sample-code` records it ($BUILD/sample-code/perf.data: four
 * threads on two CPUs, a shared library, switch sideband; skipped where
 * it is not there), each CPU stream decoded by ctflow once into one tree
 * and once into a fragment per window, the windows ending at each PSB
 * (and on the code index's 32 KiB grid): the fragments merged in order,
 * packed or not, into an empty tree, and merged pairwise into bigger
 * fragments first, make the tree of the whole decode, every field.  The
 * same on the kAFL traces (../shared/traces/libxdc-kafl-flow, a fragment
 * per PSB window; skipped where they are not there).  Also the bad
 * arguments of ct_merge() and the packs, and (with V=1) the sizes of the
 * fragments and the time a merge takes.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "calltree.h"
#include "ctflow.h"
#include "ctx.h"
#include "flow.h"
#include "image.h"
#include "imgopt.h"
#include "memimg.h"
#include "ptdec.h"
#include "symfmt.h"
#include "trace.h"
#include "ct_eq.h"

struct fix {
	struct trace *t;
	struct imgopt io;
	struct imgset *set;
	struct ctx *ctx_dec, *ctx_feed;
	struct flow *f;
	struct symfmt *sf;
	ct_resolve_fn resolve;	/* the fragments' */
	void *rctx;
	int stream;
	/* the fragments, one per window */
	struct ct **frag;
	size_t nfrag, cap;
};

static uint64_t fix_asid(void *vctx, const struct flow_ctx *c)
{
	struct fix *fx = vctx;
	struct ctx_task task;

	if (!imgopt_sb(fx->set))
		return c->have_cr3 ? c->cr3 : 0;
	if (ctx_at(fx->ctx_dec, fx->stream, c->offset, &task) < 0)
		return 0;
	return task.asid;
}

static int fix_read(void *vctx, const struct flow_ctx *c, uint64_t ip,
		    uint8_t *buf, size_t size)
{
	struct fix *fx = vctx;

	return mi_read(imgopt_mi(fx->set), fix_asid(vctx, c), ip, buf, size);
}

static int fix_open(struct fix *fx)
{
	const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
	char path[4096], err[512];

	memset(fx, 0, sizeof(*fx));
	snprintf(path, sizeof(path), "%s/sample-code/perf.data", build);
	if (access(path, R_OK))
		return -1;
	assert_int_equal(trace_open(&fx->t, path, err, sizeof(err)), 0);
	imgopt_init(&fx->io);
	assert_int_equal(imgopt_load(&fx->set, &fx->io, fx->t, err, sizeof(err)), 0);
	assert_int_equal(ctx_new(&fx->ctx_dec, fx->t, imgopt_sb(fx->set)), 0);
	assert_int_equal(ctx_new(&fx->ctx_feed, fx->t, imgopt_sb(fx->set)), 0);
	assert_int_equal(symfmt_new(&fx->sf, fx->set), 0);
	fx->resolve = ct_resolve_symfmt;
	fx->rctx = fx->sf;
	return 0;
}

static void fix_stream(struct fix *fx, int stream)
{
	struct flow_config cfg;

	flow_free(fx->f);
	memset(&cfg, 0, sizeof(cfg));
	fx->stream = stream;
	cfg.img = &fx->t->streams[stream].img;
	cfg.read = fix_read;
	cfg.read_ctx = fx;
	cfg.asid = fix_asid;
	assert_int_equal(flow_new(&fx->f, &cfg), 0);
}

static void fix_close(struct fix *fx)
{
	flow_free(fx->f);
	symfmt_free(fx->sf);
	ctx_free(fx->ctx_dec);
	ctx_free(fx->ctx_feed);
	imgopt_free(fx->set);
	imgopt_release(&fx->io);
	trace_close(fx->t);
}

/* ctf_opts.window: a new fragment for each window. */
static int new_window(void *ctx, uint64_t at, struct ct **ct)
{
	struct fix *fx = ctx;

	(void)at;
	if (fx->nfrag == fx->cap) {
		fx->cap = fx->cap ? 2 * fx->cap : 256;
		fx->frag = realloc(fx->frag, fx->cap * sizeof(*fx->frag));
		assert_non_null(fx->frag);
	}
	assert_int_equal(ct_new_frag(&fx->frag[fx->nfrag], fx->resolve,
				     fx->rctx), 0);
	*ct = fx->frag[fx->nfrag++];
	return 0;
}

static void decode(struct fix *fx, struct ct *ct, uint64_t chunk, int frags)
{
	const struct img *img = &fx->t->streams[fx->stream].img;
	struct ctf_opts o;

	memset(&o, 0, sizeof(o));
	o.stream = fx->stream;
	o.ctx = fx->ctx_feed;
	o.sb = imgopt_sb(fx->set);	/* threads back from another CPU */
	o.nstreams = (int)fx->t->nstreams;
	o.tm = &fx->t->streams[fx->stream].timing;
	o.chunk = chunk;
	if (frags) {
		o.window = new_window;
		o.window_ctx = fx;
	}
	assert_int_equal(ctf_range(ct, fx->f, img, 0, img->size, &o), 0);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

/* Stream @stream on grid @chunk: the fragments merged, three ways. */
static void check_stream(struct fix *fx, int stream, uint64_t chunk)
{
	struct ct *whole, *t, *scratch, *pair = NULL;
	struct ct_pack **pk;
	size_t i, *bytes, *packed;
	double t0, tmerge;
	int k;

	fix_stream(fx, stream);
	assert_int_equal(ct_new(&whole, ct_resolve_symfmt, fx->sf), 0);
	decode(fx, whole, chunk, 0);
	assert_int_equal(ct_finish(whole), 0);
	/* the first window's lines go to the tree given, empty here */
	fx->nfrag = 0;
	assert_int_equal(ct_new(&scratch, ct_resolve_symfmt, fx->sf), 0);
	decode(fx, scratch, chunk, 1);
	assert_int_equal(ct_nnodes(scratch), 1);
	assert_true(fx->nfrag > (chunk == 1 ? 2 : 0));
	pk = calloc(fx->nfrag, sizeof(*pk));
	bytes = calloc(fx->nfrag, sizeof(*bytes));
	packed = calloc(fx->nfrag, sizeof(*packed));
	assert_true(pk && bytes && packed);
	for (i = 0; i < fx->nfrag; i++) {
		assert_int_equal(ct_finish(fx->frag[i]), 0);
		assert_int_equal(ct_frag_pack(fx->frag[i], &pk[i]), 0);
		bytes[i] = ct_frag_bytes(fx->frag[i]);
		packed[i] = ct_pack_bytes(pk[i]);
	}
	/* in order into an empty tree */
	assert_int_equal(ct_new(&t, ct_resolve_symfmt, fx->sf), 0);
	for (i = 0; i < fx->nfrag; i++)
		assert_int_equal(ct_merge(t, fx->frag[i]), 0);
	assert_int_equal(ct_finish(t), 0);
	ct_eq_tree(whole, t);
	ct_free(t);
	/* packed */
	assert_int_equal(ct_new(&t, ct_resolve_symfmt, fx->sf), 0);
	for (i = 0; i < fx->nfrag; i++)
		assert_int_equal(ct_merge_pack(t, pk[i]), 0);
	assert_int_equal(ct_finish(t), 0);
	ct_eq_tree(whole, t);
	ct_free(t);
	/* the time a merge takes: the best of a few rounds over them all */
	tmerge = 1e9;
	for (k = 0; k < (getenv("V") ? 20 : 1); k++) {
		assert_int_equal(ct_new(&t, ct_resolve_symfmt, fx->sf), 0);
		t0 = now();
		for (i = 0; i < fx->nfrag; i++)
			assert_int_equal(ct_merge_pack(t, pk[i]), 0);
		t0 = now() - t0;
		tmerge = t0 < tmerge ? t0 : tmerge;
		ct_free(t);
	}
	/* pairs into fragments first */
	assert_int_equal(ct_new(&t, ct_resolve_symfmt, fx->sf), 0);
	for (i = 0; i < fx->nfrag; i++) {
		if (!pair)
			assert_int_equal(ct_new_frag(&pair, ct_resolve_symfmt, fx->sf), 0);
		assert_int_equal(ct_merge_pack(pair, pk[i]), 0);
		if (i % 2 || i + 1 == fx->nfrag) {
			assert_int_equal(ct_finish(pair), 0);
			assert_int_equal(ct_merge(t, pair), 0);
			ct_free(pair);
			pair = NULL;
		}
	}
	assert_int_equal(ct_finish(t), 0);
	ct_eq_tree(whole, t);
	ct_free(t);
	qsort(bytes, fx->nfrag, sizeof(*bytes), cmp_size);
	qsort(packed, fx->nfrag, sizeof(*packed), cmp_size);
	if (getenv("V"))
		fprintf(stderr, "cpu%d, grid %" PRIu64 ": %zu fragments for %" PRIu64
			" bytes, %zu nodes; fragment bytes median %zu, max %zu;"
			" packed median %zu, p90 %zu, max %zu; merge of a pack"
			" %.2f us on average\n", stream, chunk, fx->nfrag,
			fx->t->streams[stream].img.size, ct_nnodes(whole),
			bytes[fx->nfrag / 2], bytes[fx->nfrag - 1],
			packed[fx->nfrag / 2], packed[fx->nfrag * 9 / 10],
			packed[fx->nfrag - 1], tmerge * 1e6 / (double)fx->nfrag);
	for (i = 0; i < fx->nfrag; i++) {
		ct_free(fx->frag[i]);
		ct_pack_free(pk[i]);
	}
	free(pk);
	free(bytes);
	free(packed);
	ct_free(scratch);
	ct_free(whole);
}

static void test_sample(void **state)
{
	struct fix fx;
	size_t s;

	(void)state;
	if (fix_open(&fx) < 0)
		skip();
	for (s = 0; s < fx.t->nstreams && s < 2; s++) {
		check_stream(&fx, (int)s, 1);		/* each PSB */
		check_stream(&fx, (int)s, CTF_GRID);	/* the code index's */
	}
	free(fx.frag);
	fix_close(&fx);
}

/* A "function" per 256 bytes of code: the kAFL traces' binaries have no
 * symbols kept here, and their calls and returns are what counts. */
static int resolve_bucket(void *ctx, uint64_t asid, uint64_t ip,
			  struct symfmt_fn *fn)
{
	static const char *const names[] = { "b0", "b1", "b2", "b3", "b4",
					     "b5", "b6", "b7" };

	(void)ctx;
	(void)asid;
	fn->name = names[(ip >> 8) & 7];
	fn->start = ip & ~0xffull;
	fn->end = fn->start + 0x100;
	fn->kind = SYMFMT_FUNC;
	return 0;
}

static int read_mi(void *ctx, const struct flow_ctx *c, uint64_t ip,
		   uint8_t *buf, size_t size)
{
	(void)c;
	return mi_read(ctx, MI_ASID_ANY, ip, buf, size);
}

/* kAFL trace @trace of @dir with the memory its @name.options lists:
 * a fragment per PSB window merged, against the whole decode. */
static void kafl_one(const char *dir, const char *name, const char *trace)
{
	char path[4200], line[4096], spec[8192], err[512];
	struct flow_config cfg = { .read = read_mi };
	struct img_span span;
	struct img img;
	struct ctf_opts o;
	struct ct *whole, *t, *scratch;
	struct fix fx;
	struct mi *code;
	uint8_t *buf;
	long n;
	size_t i;
	FILE *f;

	memset(&fx, 0, sizeof(fx));
	fx.resolve = resolve_bucket;
	assert_int_equal(mi_new(&code), 0);
	snprintf(path, sizeof(path), "%s/%s.options", dir, name);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = 0;
		if (strncmp(line, "--raw ", 6))
			continue;
		snprintf(spec, sizeof(spec), "%s/%s", dir, line + 6);
		assert_int_equal(mi_add_raw(code, spec, err, sizeof(err)), 0);
	}
	fclose(f);
	snprintf(path, sizeof(path), "%s/%s", dir, trace);
	f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	img_init_flat(&img, &span, buf, (size_t)n);
	cfg.img = &img;
	cfg.read_ctx = code;
	assert_int_equal(flow_new(&fx.f, &cfg), 0);
	memset(&o, 0, sizeof(o));
	o.chunk = 1;
	assert_int_equal(ct_new(&whole, resolve_bucket, NULL), 0);
	assert_int_equal(ctf_range(whole, fx.f, &img, 0, (uint64_t)n, &o), 0);
	assert_int_equal(ct_finish(whole), 0);
	o.window = new_window;
	o.window_ctx = &fx;
	assert_int_equal(ct_new(&scratch, resolve_bucket, NULL), 0);
	assert_int_equal(ctf_range(scratch, fx.f, &img, 0, (uint64_t)n, &o), 0);
	assert_int_equal(ct_new(&t, resolve_bucket, NULL), 0);
	for (i = 0; i < fx.nfrag; i++) {
		assert_int_equal(ct_finish(fx.frag[i]), 0);
		assert_int_equal(ct_merge(t, fx.frag[i]), 0);
		ct_free(fx.frag[i]);
	}
	assert_int_equal(ct_finish(t), 0);
	if (getenv("V"))
		fprintf(stderr, "%s: %zu fragments, %zu nodes, %" PRIu64
			" instructions\n", trace, fx.nfrag, ct_nnodes(whole),
			ct_node(whole, CT_ROOT)->insns);
	ct_eq_tree(whole, t);
	ct_free(t);
	ct_free(scratch);
	ct_free(whole);
	free(fx.frag);
	flow_free(fx.f);
	free(buf);
	mi_free(code);
}

static void test_kafl(void **state)
{
	const char *shared = getenv("SHARED");
	char dir[4096], probe[4200];

	(void)state;
	snprintf(dir, sizeof(dir), "%s/traces/libxdc-kafl-flow",
		 shared ? shared : "../shared");
	snprintf(probe, sizeof(probe), "%s/unzip.options", dir);
	if (access(probe, R_OK))
		skip();
	kafl_one(dir, "unzip", "unzip_trace.pt");
	kafl_one(dir, "foo", "foo_trace.pt");
	kafl_one(dir, "dyn_test", "dyn_test_sample_raw_0.pt");
}

static int resolve(void *ctx, uint64_t asid, uint64_t ip, struct symfmt_fn *fn)
{
	(void)ctx;
	(void)asid;
	fn->name = ip < 0x2000 ? "f" : "g";
	fn->start = ip & ~0xfffull;
	fn->end = fn->start + 0x1000;
	fn->kind = SYMFMT_FUNC;
	return 0;
}

static void test_args(void **state)
{
	struct ct *t, *f, *g;
	struct ct_pack *p;

	(void)state;
	assert_int_equal(ct_new_frag(NULL, resolve, NULL), -pte_invalid);
	assert_int_equal(ct_new_frag(&f, NULL, NULL), -pte_invalid);
	assert_int_equal(ct_new(&t, resolve, NULL), 0);
	assert_int_equal(ct_new_frag(&f, resolve, NULL), 0);
	assert_int_equal(ct_merge(NULL, f), -pte_invalid);
	assert_int_equal(ct_merge(t, NULL), -pte_invalid);
	assert_int_equal(ct_merge(t, f), -pte_invalid);	/* not finished */
	assert_int_equal(ct_frag_pack(f, &p), -pte_invalid);
	assert_int_equal(ct_insn(f, 0, 0, 0x1000, CT_IC_CALL), 0);
	assert_int_equal(ct_finish(f), 0);
	assert_int_equal(ct_merge(f, f), -pte_invalid);
	assert_int_equal(ct_merge(t, t), -pte_invalid);
	assert_int_equal(ct_frag_pack(t, &p), -pte_invalid);	/* a tree */
	assert_int_equal(ct_frag_pack(f, NULL), -pte_invalid);
	assert_int_equal(ct_frag_pack(NULL, &p), -pte_invalid);
	assert_int_equal(ct_merge_pack(t, NULL), -pte_invalid);
	assert_int_equal(ct_frag_pack(f, &p), 0);
	assert_int_equal(ct_merge_pack(NULL, p), -pte_invalid);
	assert_true(ct_pack_bytes(p) > 0 && ct_pack_bytes(p) < ct_frag_bytes(f));
	assert_int_equal(ct_pack_bytes(NULL), 0);
	assert_int_equal(ct_frag_bytes(NULL), 0);
	/* a fragment that fed its first thread, then names a key the tree
	 * is on: one stack in the flow, two in the fragment */
	assert_int_equal(ct_new_frag(&g, resolve, NULL), 0);
	assert_int_equal(ct_insn(g, 0, 0, 0x1000, CT_IC_CALL), 0);
	assert_int_equal(ct_thread(g, 0), 0);
	assert_int_equal(ct_insn(g, 0, 0, 0x2000, 0), 0);
	assert_int_equal(ct_finish(g), 0);
	assert_int_equal(ct_merge(t, g), -pte_invalid);
	/* the call open at the fragment's end goes on in the tree */
	assert_int_equal(ct_merge_pack(t, p), 0);
	assert_int_equal(ct_insn(t, 0, 0, 0x2000, CT_IC_RETURN), 0);
	assert_int_equal(ct_insn(t, 0, 0, 0x1004, 0), 0);
	assert_int_equal(ct_finish(t), 0);
	assert_int_equal(ct_merge(t, f), -pte_invalid);	/* finished */
	assert_int_equal(ct_nnodes(t), 3);
	assert_int_equal(ct_node(t, 1)->insns, 3);
	assert_int_equal(ct_node(t, 2)->calls, 1);
	assert_int_equal(ct_node(t, 2)->parent, 1);
	ct_pack_free(p);
	ct_pack_free(NULL);
	ct_free(g);
	ct_free(f);
	ct_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_args),
		cmocka_unit_test(test_sample),
		cmocka_unit_test(test_kafl),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
