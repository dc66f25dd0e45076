/*
 * test_ctidx_cache -- the code index saved to a file and loaded again
 * (ctidx_save(), ctidx_load(), ctidx_opts.cache), on tests/progs/p_sample
 * as `make sample-code` records it ($BUILD/sample-code/perf.data; skipped
 * where it is not there):
 *   - built, saved, loaded into a fresh index (directly and by the
 *     workers): the trees of many ranges made from the loaded fragments
 *     equal the built ones and one decode's, every field;
 *   - another key, grid or fan does not load;
 *   - a truncated file, one with any byte flipped, and one whose packs
 *     are damaged behind a valid checksum are not loaded, never crash;
 *   - hand-made packs that read back but hold what no fragment holds (an
 *     op of no kind, a level node no move reaches...) are refused;
 *   - imgopt_key() (the browser's key) names the files the image set
 *     read, with their size and mtime, and says the same twice.
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
#include <xxhash.h>

#include "calltree.h"
#include "ctidx.h"
#include "ctjob.h"
#include "imgopt.h"
#include "index.h"
#include "ptdec.h"
#include "trace.h"
#include "sample_fix.h"

#define GRID 4096
static const char key[] = "timing A; images B";

struct fix {
	struct sample_fix s;	/* its largest stream */
	char dir[64], path[128];	/* where the cache goes */
};

static int fix_open(struct fix *fx)
{
	memset(fx, 0, sizeof(*fx));
	if (sample_fix_open(&fx->s, -1))
		return -1;
	strcpy(fx->dir, "/tmp/test_ctidx_cache.XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	snprintf(fx->path, sizeof(fx->path), "%s/code", fx->dir);
	return 0;
}

static void fix_close(struct fix *fx)
{
	unlink(fx->path);
	rmdir(fx->dir);
	sample_fix_close(&fx->s);
}

static void fix_opts(struct fix *fx, struct ctidx_opts *o, uint64_t grid, unsigned fan)
{
	memset(o, 0, sizeof(*o));
	o->t = fx->s.t;
	o->set = fx->s.set;
	o->stream = fx->s.stream;
	o->tm = &fx->s.t->streams[fx->s.stream].timing;
	o->idx = fx->s.idx;
	o->grid = grid;
	o->fan = fan;
}

/* Everything a tree says, as text. */
static char *tree_text(const struct ct *ct)
{
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	for (i = 0; i < ct_nnodes(ct); i++) {
		const struct ct_node *n = ct_node(ct, (uint32_t)i);
		const struct ct_func *fn = ct_func(ct, n->func);

		fprintf(f, "n%zu p%u d%u fc%u ns%u %s c%" PRIu64 " i%" PRIu64 "/%" PRIu64
			" tot %" PRIu64 "/%" PRIu64 " u%" PRIu64 " k%" PRIu64 " f%u"
			" self %" PRIu64 "/%" PRIu64 " u%" PRIu64 " k%" PRIu64 " f%u"
			" t%" PRIu64 " @%" PRIx64 "\n",
			i, n->parent, n->depth, n->first_child, n->next_sibling,
			fn ? fn->name : "-", n->calls, n->insns, n->insns_self,
			n->total.lo, n->total.hi, n->total.unknown, n->total.known,
			n->total.flags, n->self.lo, n->self.hi, n->self.unknown,
			n->self.known, n->self.flags, n->tsc_ticks, n->offset);
	}
	for (i = 0; i < ct_nfuncs(ct); i++) {
		const struct ct_func *fn = ct_func(ct, (uint32_t)i);

		fprintf(f, "f %s %" PRIx64 "-%" PRIx64 " k%u plt%u i%" PRIu64 " c%" PRIu64
			" %" PRIu64 "/%" PRIu64 " u%" PRIu64 " k%" PRIu64 " f%u\n",
			fn->name, fn->start, fn->end, fn->kind, fn->plt, fn->insns,
			fn->calls, fn->cyc.lo, fn->cyc.hi, fn->cyc.unknown, fn->cyc.known,
			fn->cyc.flags);
	}
	fprintf(f, "truncated %d\n", ct_truncated(ct));
	fclose(f);
	return buf;
}

/* The tree of [@from, @to) made by a job (@ci NULL: one decode). */
static char *job_text(struct fix *fx, uint64_t from, uint64_t to,
		      const struct ctidx *ci)
{
	struct ctjob j;
	char *s;

	memset(&j, 0, sizeof(j));
	j.t = fx->s.t;
	j.stream = fx->s.stream;
	j.set = fx->s.set;
	j.tm = &fx->s.t->streams[fx->s.stream].timing;
	j.from = from;
	j.to = to;
	j.grid = GRID;
	j.ci = ci;
	j.have_carry = !sample_fix_carry(&fx->s, from, &j.carry);
	assert_int_equal(ctjob_run(&j), 0);
	s = j.ct ? tree_text(j.ct) : strdup("none");
	ctjob_release(&j);
	return s;
}

/* Ranges of all sizes: with @a and @b, and decoded, the same trees.
 * The steps follow the stream's size, which differs from recording to
 * recording: at least 16 starts, never on the grid alone. */
static void same_trees(struct fix *fx, const struct ctidx *a, const struct ctidx *b)
{
	uint64_t size = fx->s.t->streams[fx->s.stream].img.size, from, to;
	uint64_t step = size / 16 < 3 * GRID / 2 ? size / 16 : 3 * GRID / 2;
	int n = 0;

	if (step < 64)
		step = 64;
	step |= 1;	/* off the grid */
	for (from = 0; from < size; from += step) {
		for (to = from + GRID; to < size + 4 * GRID; to += 5 * step / 3) {
			uint64_t t = to < size ? to : size;
			char *want = job_text(fx, from, t, NULL);
			char *got_a = job_text(fx, from, t, a);
			char *got_b = job_text(fx, from, t, b);

			assert_string_equal(want, got_a);
			assert_string_equal(want, got_b);
			free(want);
			free(got_a);
			free(got_b);
			n++;
		}
	}
	assert_true(n > 10);
}

/* A built index with fragments of 2, 4 and 8 chunks, saved by its
 * workers to fx->path. */
static struct ctidx *built(struct fix *fx)
{
	struct ctidx_opts o;
	struct ctidx_progress p;
	struct ctidx *ci;

	fix_opts(fx, &o, GRID, 2);
	o.cache = fx->path;
	o.key = key;
	o.keylen = sizeof(key);
	assert_int_equal(ctidx_new(&ci, &o), 0);
	assert_int_equal(ctidx_start(ci), 0);
	assert_int_equal(ctidx_wait(ci), 0);
	ctidx_progress(ci, &p);
	assert_false(p.loaded);
	assert_int_equal(p.saved, 1);
	assert_null(p.save_err);
	assert_true(p.nups > 0);
	return ci;
}

/* Whether a fresh index (@grid, @fan) loads fx->path with @k. */
static int loads(struct fix *fx, uint64_t grid, unsigned fan, const char *k)
{
	struct ctidx_opts o;
	struct ctidx_progress p;
	struct ctidx *ci;
	int r;

	fix_opts(fx, &o, grid, fan);
	assert_int_equal(ctidx_new(&ci, &o), 0);
	r = ctidx_load(ci, fx->path, k, strlen(k) + 1);
	ctidx_progress(ci, &p);
	if (r) {
		assert_int_equal(r, 1);
		assert_false(p.started);
		assert_int_equal(p.nfrags, 0);
		assert_int_equal(p.bytes, 0);
	} else {
		assert_true(p.finished && p.loaded);
	}
	ctidx_free(ci);
	return !r;
}

static void test_roundtrip(void **state)
{
	struct fix fx;
	struct ctidx *a, *b, *c;
	struct ctidx_opts o;
	struct ctidx_progress pa, pb, pc;

	(void)state;
	if (fix_open(&fx)) {
		skip();
		return;
	}
	a = built(&fx);
	fix_opts(&fx, &o, GRID, 2);
	assert_int_equal(ctidx_new(&b, &o), 0);
	assert_int_equal(ctidx_load(b, fx.path, key, sizeof(key)), 0);
	assert_int_equal(ctidx_start(b), -pte_invalid);
	/* the workers load it too, and do not save it again */
	o.cache = fx.path;
	o.key = key;
	o.keylen = sizeof(key);
	assert_int_equal(ctidx_new(&c, &o), 0);
	assert_int_equal(ctidx_start(c), 0);
	assert_int_equal(ctidx_wait(c), 0);
	ctidx_progress(a, &pa);
	ctidx_progress(b, &pb);
	ctidx_progress(c, &pc);
	assert_true(pb.finished && pb.loaded && !pb.status);
	assert_true(pc.finished && pc.loaded && !pc.status && !pc.saved);
	assert_int_equal(pb.nfrags, pa.nfrags);
	assert_int_equal(pb.nups, pa.nups);
	assert_int_equal(pb.done, pa.done);
	assert_int_equal(pc.nfrags, pa.nfrags);
	assert_true(ctidx_covers(b, 1, pb.nchunks - 1));
	same_trees(&fx, a, b);
	same_trees(&fx, c, b);
	ctidx_free(a);
	ctidx_free(b);
	ctidx_free(c);
	fix_close(&fx);
}

static void test_key(void **state)
{
	struct fix fx;

	(void)state;
	if (fix_open(&fx)) {
		skip();
		return;
	}
	ctidx_free(built(&fx));
	assert_true(loads(&fx, GRID, 2, key));
	assert_false(loads(&fx, GRID, 2, "timing C; images B"));
	assert_false(loads(&fx, GRID, 2, ""));
	assert_false(loads(&fx, 2 * GRID, 2, key));
	assert_false(loads(&fx, GRID, 4, key));
	assert_false(loads(&fx, GRID, 0, key));
	unlink(fx.path);
	assert_false(loads(&fx, GRID, 2, key));
	fix_close(&fx);
}

/* A save that fails says why (:info shows it). */
static void test_save_fails(void **state)
{
	struct ctidx_opts o;
	struct ctidx_progress p;
	struct ctidx *ci;
	struct fix fx;
	char path[600];

	(void)state;
	if (fix_open(&fx)) {
		skip();
		return;
	}
	snprintf(path, sizeof(path), "%s/no-such-dir/code", fx.dir);
	fix_opts(&fx, &o, GRID, 2);
	o.cache = path;
	o.key = key;
	o.keylen = sizeof(key);
	assert_int_equal(ctidx_new(&ci, &o), 0);
	assert_int_equal(ctidx_start(ci), 0);
	assert_int_equal(ctidx_wait(ci), 0);
	ctidx_progress(ci, &p);
	assert_true(p.saved < 0);
	assert_non_null(p.save_err);
	assert_non_null(strstr(p.save_err, "no-such-dir"));
	ctidx_free(ci);
	fix_close(&fx);
}

static void put_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

static void test_corrupt(void **state)
{
	struct fix fx;
	unsigned char *buf, *mod;
	size_t n, i, step;
	uint64_t h, noff;
	FILE *f;
	int nloaded = 0;

	(void)state;
	if (fix_open(&fx)) {
		skip();
		return;
	}
	ctidx_free(built(&fx));
	f = fopen(fx.path, "rb");
	assert_non_null(f);
	buf = malloc(1 << 24);
	assert_non_null(buf);
	n = fread(buf, 1, 1 << 24, f);
	fclose(f);
	assert_true(n > 64 && n < (1 << 24));
	mod = malloc(n);
	assert_non_null(mod);
	step = n / 300 + 1;
	/* truncated anywhere */
	for (i = 0; i < n; i += i < 64 || i > n - 64 ? 1 : step) {
		put_file(fx.path, buf, i);
		assert_false(loads(&fx, GRID, 2, key));
	}
	/* a bit flipped anywhere: the checksum */
	for (i = 0; i < n; i += i < 64 || i > n - 64 ? 1 : step) {
		memcpy(mod, buf, n);
		mod[i] ^= (unsigned char)(1u << (i % 8));
		put_file(fx.path, mod, n);
		assert_false(loads(&fx, GRID, 2, key));
	}
	/* damaged behind a valid checksum: every length and index checked
	 * (a flip may leave a pack that reads back: then it loads) */
	memcpy(&noff, buf + n - 16, 8);
	for (i = 0; i < n - 8; i += i > 1024 && i < noff ? step / 4 + 1 : 1) {
		memcpy(mod, buf, n);
		mod[i] ^= (unsigned char)(0x81u << (i % 2));
		h = XXH3_64bits(mod, n - 8);
		memcpy(mod + n - 8, &h, 8);
		put_file(fx.path, mod, n);
		nloaded += loads(&fx, GRID, 2, key);
	}
	assert_true(nloaded < (int)n);
	/* the original still loads */
	put_file(fx.path, buf, n);
	assert_true(loads(&fx, GRID, 2, key));
	/* a damaged file is made again and replaced */
	mod[0] ^= 1;
	put_file(fx.path, mod, n);
	assert_false(loads(&fx, GRID, 2, key));
	ctidx_free(built(&fx));
	assert_true(loads(&fx, GRID, 2, key));
	free(mod);
	free(buf);
	fix_close(&fx);
}

static const char *name_x(void *ctx, const char *name)
{
	(void)ctx;
	(void)name;
	return "x";
}

/* ct_pack_map() of packs cut anywhere: refused, never a crash. */
static void test_pack_bytes(void **state)
{
	struct ct_pack *p, *q;
	static const unsigned char junk[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
					      0xff, 0xff, 0xff, 0x7f, 1, 2, 3 };
	size_t i;

	(void)state;
	for (i = 0; i <= sizeof(junk); i++) {
		assert_int_equal(ct_pack_new(junk + sizeof(junk) - i, i, &p), 0);
		q = NULL;
		assert_true(ct_pack_map(p, NULL, NULL, &q) == -pte_invalid);
		assert_int_not_equal(ct_pack_map(p, name_x, NULL, &q), 0);
		assert_null(q);
		ct_pack_free(p);
	}
	assert_int_equal(ct_pack_new(NULL, 1, &p), -pte_invalid);
	assert_int_equal(ctidx_load(NULL, "x", NULL, 0), -pte_invalid);
	assert_int_equal(ctidx_save(NULL, "x", NULL, 0, NULL, NULL, 0), -pte_invalid);
}

/* A hand-made fragment (ctfrag.c's pack: its fields as varints, in
 * ctp_walk()'s order) of one function: node 1 a level node, node 2 under
 * the root or node 1 (@p2), each node after under the one before; ops
 * (kind, pending, node; all on stack 0), and stack 0 (inherited). */
struct pk {
	const char *what;
	int good;
	unsigned nnodes, p2;
	unsigned nops;
	struct { unsigned kind, node; int pending; } op[2];
	int pending;		/* stack 0's */
	uint32_t level;
	unsigned relative, lost, depth, fr0;	/* frames fr0, fr0 + 1, ... */
};

#define MOVE(n) { 0, n, -1 }
#define BREAK { 1, 0, -1 }
#define NONE UINT32_MAX
static const struct pk packs[] = {
	{ "a move into a level node", 1, 2, 0, 1, { MOVE(1) }, -1, 1, 1, 0, 0, 0 },
	{ "two calls open from it", 1, 4, 1, 1, { MOVE(1) }, -1, 1, 1, 0, 2, 2 },
	{ "a break, a call open after it", 1, 3, 0, 2, { MOVE(1), BREAK }, 0, NONE, 0, 0, 1, 2 },
	{ "an op of no kind", 0, 2, 0, 1, { { 2, 1, -1 } }, -1, 1, 1, 0, 0, 0 },
	{ "a move into the root", 0, 2, 0, 1, { MOVE(0) }, -1, 1, 1, 0, 0, 0 },
	{ "a move into a node under a level node", 0, 3, 1, 2, { MOVE(1), MOVE(2) }, -1, 1, 1, 0, 0, 0 },
	{ "a move with a pending call", 0, 2, 0, 1, { { 0, 1, 2 } }, -1, 1, 1, 0, 0, 0 },
	{ "a level node no move reaches", 0, 2, 0, 0, { MOVE(0) }, -1, NONE, 1, 0, 0, 0 },
	{ "two moves into one level node", 0, 2, 0, 2, { MOVE(1), MOVE(1) }, -1, 1, 1, 0, 0, 0 },
	{ "a move after a break", 0, 2, 0, 2, { BREAK, MOVE(1) }, 0, NONE, 0, 0, 0, 0 },
	{ "two breaks", 0, 1, 0, 2, { BREAK, BREAK }, 0, NONE, 0, 0, 0, 0 },
	{ "a stack's pending of no kind", 0, 2, 0, 1, { MOVE(1) }, 8, 1, 1, 0, 0, 0 },
	{ "a stack's base not its last move", 0, 2, 0, 1, { MOVE(1) }, -1, NONE, 1, 0, 0, 0 },
	{ "a stack relative after a break", 0, 2, 0, 2, { MOVE(1), BREAK }, 0, NONE, 1, 0, 0, 0 },
	{ "a stack not relative without one", 0, 2, 0, 1, { MOVE(1) }, 0, 1, 0, 0, 0, 0 },
	{ "frames lost above an empty stack", 0, 2, 0, 1, { MOVE(1) }, -1, 1, 1, 1, 0, 0 },
	{ "frames past the deepest", 0, 1028, 1, 1, { MOVE(1) }, -1, 1, 1, 1, 1025, 2 },
	/* merged, a frame of a node 1028 deep pushed on a stack one deep:
	 * folded into the frames lost, and the next instruction finds no
	 * node on top of the stack */
	{ "a frame not called from the base", 0, 1030, 0, 2, { MOVE(1), BREAK }, 0, NONE, 0, 0, 1, 1029 },
	{ "frames not a chain", 0, 4, 1, 1, { MOVE(1) }, -1, 1, 1, 0, 2, 1 },
};
#undef MOVE
#undef BREAK
#undef NONE

static void put_u(unsigned char *b, size_t *n, uint64_t v)
{
	do {
		b[(*n)++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
}

/* @k into @b (its moves to IP 0 if @ip0); returns its length. */
static size_t pack_bytes(const struct pk *k, unsigned char *b, int ip0)
{
	size_t n = 0;
	unsigned i;

	/* nfuncs, nnodes, nops, nticks, nxruns, nxparts, nstacks, the
	 * current stack, tsc, have_tsc, truncated, have_span,
	 * untimed_first, span_lo, span_hi (from span_lo) */
	put_u(b, &n, 1);
	put_u(b, &n, k->nnodes);
	put_u(b, &n, k->nops);
	for (i = 0; i < 12; i++)
		put_u(b, &n, i == 3);
	/* the function: name 1 (deltas zigzagged), [0x1000, 0x1010), a
	 * symbol, 1 insn, 0 calls, its cycles unknown */
	put_u(b, &n, 2);
	put_u(b, &n, 0x2000);
	put_u(b, &n, 0x20);
	put_u(b, &n, 2);
	for (i = 0; i < 7; i++)
		put_u(b, &n, i == 0 || i == 4);
	for (i = 1; i < k->nnodes; i++) {
		/* how far up its parent is, function 0 (plus one), no calls,
		 * no entries, 1 insn, its cycles unknown, no ticks, offset */
		put_u(b, &n, i == 1 ? 0 : i == 2 ? 2 - k->p2 : 1);
		put_u(b, &n, 1);
		put_u(b, &n, 0);
		put_u(b, &n, 0);
		put_u(b, &n, 1);
		put_u(b, &n, 0);
		put_u(b, &n, 0);
		put_u(b, &n, 1);
		put_u(b, &n, 0);
		put_u(b, &n, 0);
		put_u(b, &n, 0);
		put_u(b, &n, 0);
	}
	/* stack 0: key 0, inherited, relative, pending, level (indices
	 * plus one), the pending call's address, no jump's function (none
	 * plus one), no PLT start, no lazy binding nor its call, no last
	 * instruction's TSC (none, 0), lost frames, depth, frames (node,
	 * no TSC, no call address, not entered without a call) */
	put_u(b, &n, 0);
	put_u(b, &n, 1);
	put_u(b, &n, k->relative);
	put_u(b, &n, (uint64_t)(k->pending + 1));
	put_u(b, &n, k->level == UINT32_MAX ? 0 : k->level + 1);
	for (i = 0; i < 7; i++)
		put_u(b, &n, 0);
	put_u(b, &n, k->lost);
	put_u(b, &n, k->depth);
	for (i = 0; i < k->depth; i++) {
		put_u(b, &n, k->fr0 + i);
		put_u(b, &n, 0);
		put_u(b, &n, 0);
		put_u(b, &n, 0);
		put_u(b, &n, 0);
	}
	for (i = 0; i < k->nops; i++) {
		/* kind, pending, stack 0, function 0, node (a break's: none),
		 * offset, IP (a move's in the function, but for the
		 * @ip0 case), have_tsc, tsc */
		put_u(b, &n, k->op[i].kind);
		put_u(b, &n, (uint64_t)(k->op[i].pending + 1));
		put_u(b, &n, 0);
		put_u(b, &n, k->op[i].kind ? 0 : 1);
		put_u(b, &n, k->op[i].kind ? 0 : k->op[i].node + 1);
		put_u(b, &n, 0);
		put_u(b, &n, k->op[i].kind || ip0 ? 0 : 0x2004);
		put_u(b, &n, 0);
		put_u(b, &n, 0);
	}
	return n;
}

static int no_fn(void *ctx, uint64_t asid, uint64_t ip, struct symfmt_fn *fn)
{
	(void)ctx;
	(void)asid;
	(void)ip;
	(void)fn;
	return -pte_nomap;
}

/* Packs that read back but hold what no fragment holds (a cache file
 * behind a valid checksum) are refused by ct_pack_map(), so the file is
 * not loaded: fuzz_ctidx's first finding was an op of no kind, replayed
 * as a move into no node.  The good ones merge, and the tree goes on. */
static void test_pack_meaning(void **state)
{
	static unsigned char b[1 << 15];
	struct ct_pack *p, *q;
	struct ct *t;
	size_t i, n0;

	(void)state;
	for (i = 0; i < sizeof(packs) / sizeof(packs[0]); i++) {
		size_t n = pack_bytes(&packs[i], b, 0);

		assert_true(n <= sizeof(b));
		assert_int_equal(ct_pack_new(b, n, &p), 0);
		q = NULL;
		if (!packs[i].good) {
			if (ct_pack_map(p, name_x, NULL, &q) != -pte_bad_file)
				fail_msg("not refused: %s", packs[i].what);
			assert_null(q);
			ct_pack_free(p);
			continue;
		}
		if (ct_pack_map(p, name_x, NULL, &q))
			fail_msg("refused: %s", packs[i].what);
		assert_int_equal(ct_new(&t, no_fn, NULL), 0);
		assert_int_equal(ct_merge_pack(t, q), 0);
		assert_int_equal(ct_insn(t, 0, 0, 0x2000, 0), 0);
		assert_int_equal(ct_finish(t), 0);
		assert_true(ct_nnodes(t) >= 2 && ct_nnodes(t) <= packs[i].nnodes);
		assert_true(ct_node(t, 1)->insns_self >= 1);
		assert_string_equal(ct_func(t, ct_node(t, 1)->func)->name, "x");
		ct_free(t);
		ct_pack_free(q);
		ct_pack_free(p);
	}
	/* a move to IP 0 makes no node in the merge (no instruction is
	 * known there): refused there, not merged into node CT_NONE (a
	 * segmentation fault) */
	n0 = pack_bytes(&packs[0], b, 1);
	assert_int_equal(ct_pack_new(b, n0, &p), 0);
	assert_int_equal(ct_pack_map(p, name_x, NULL, &q), 0);
	assert_int_equal(ct_new(&t, no_fn, NULL), 0);
	assert_int_equal(ct_merge_pack(t, q), -pte_bad_file);
	ct_free(t);
	ct_pack_free(q);
	ct_pack_free(p);
}

static char *key_text(struct fix *fx)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(imgopt_key(&fx->s.io, fx->s.set, f), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void test_imgopt_key(void **state)
{
	struct fix fx;
	char *a, *b;

	(void)state;
	if (fix_open(&fx)) {
		skip();
		return;
	}
	a = key_text(&fx);
	b = key_text(&fx);
	assert_string_equal(a, b);
	assert_non_null(strstr(a, "sysroot "));
	/* the sample's program and its shared library, with size and mtime */
	assert_non_null(strstr(a, "\nfile "));
	assert_non_null(strstr(a, "libptbdemo.so "));
	assert_int_equal(imgopt_key(NULL, fx.s.set, stdout), -pte_invalid);
	free(a);
	free(b);
	fix_close(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pack_bytes),
		cmocka_unit_test(test_pack_meaning),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_key),
		cmocka_unit_test(test_save_fails),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_imgopt_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
