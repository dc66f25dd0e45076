/*
 * test_calltree_feed -- one flow fed to calltree in different ways gives
 * the same tree and flat profile, every field: instruction by instruction
 * (ct_insn()) or in blocks (ct_block()); whole, or split into pieces fed
 * to fragments merged in order (ct_new_frag(), ct_merge()), packed or
 * not, merged into fragments first or not.  Random flows of calls,
 * returns (to where calls return, or not), indirect jumps (into a
 * function past its start: a longjmp's), tracing enabled elsewhere (a
 * signal's handler), PLT stubs, threads, breaks and runs over a resolver of
 * abutting functions, a segment with a symbol inside and unknown code;
 * then p_sample's recording split at each PSB.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "calltree.h"
#include "ptdec.h"
#include "symfmt.h"
#include "ct_eq.h"

#define CALL CT_IC_CALL
#define RET CT_IC_RETURN
#define OTHER 1

/* Whether the resolver says how far a segment's answer holds (symfmt_fn's
 * until) in lib.so: ct_block() then takes the block at once. */
static int rnd_until = 1;

/* a 0x1000-0x1100, b 0x1100-0x1180 (abutting), b@plt 0x1180-0x11a0,
 * c 0x1200-0x1300; "lib.so" a segment at 0x2000-0x3000 with d at
 * 0x2400-0x2480 inside; "nosym.so" 0x6000-0x6100 without symbols;
 * nothing elsewhere. */
static int resolve(void *ctx, uint64_t asid, uint64_t ip, struct symfmt_fn *fn)
{
	static const struct {
		const char *name;
		uint64_t start, end;
	} f[] = {
		{ "a", 0x1000, 0x1100 }, { "b", 0x1100, 0x1180 },
		{ "b@plt", 0x1180, 0x11a0 }, { "c", 0x1200, 0x1300 },
		{ "d", 0x2400, 0x2480 },
	};
	size_t i;

	(void)ctx;
	(void)asid;
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (ip >= f[i].start && ip < f[i].end) {
			fn->name = f[i].name;
			fn->start = f[i].start;
			fn->end = f[i].end;
			fn->kind = SYMFMT_FUNC;
			return 0;
		}
	if (ip >= 0x2000 && ip < 0x3000) {
		fn->name = "lib.so";
		fn->start = 0x2000;
		fn->end = 0x3000;
		fn->kind = SYMFMT_SEGMENT;
		/* up to d, or to the end past it (0: ip alone, sometimes) */
		fn->until = rnd_until ? ip < 0x2400 ? 0x2400 : 0x3000 : 0;
	} else if (ip >= 0x6000 && ip < 0x6100) {
		fn->name = "nosym.so";
		fn->start = 0x6000;
		fn->end = 0x6100;
		fn->kind = SYMFMT_SEGMENT;
		fn->until = 0x6100;
	} else {
		fn->name = "(unknown)";
		fn->start = ip;
		fn->end = ip + 1;
		fn->kind = SYMFMT_NONE;
	}
	return 0;
}

static uint64_t rng_state;

static uint32_t rnd(uint32_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state % n);
}

/* One step of a made-up flow. */
enum ev_kind { EV_RUN, EV_BLOCK, EV_THREAD, EV_BREAK, EV_ENABLED };

struct ev {
	enum ev_kind kind;
	uint64_t ip, last_ip, offset;	/* EV_BLOCK */
	uint32_t n;
	int iclass;
	uint8_t sizes[48];
	struct ct_cyc cyc;		/* EV_RUN */
	uint64_t tsc;
	int have_tsc, null_cyc;
	uint64_t key;			/* EV_THREAD */
};

/* A random address: mostly in the functions, sometimes at their ends,
 * in the segment or nowhere. */
static uint64_t rnd_ip(void)
{
	static const uint64_t at[] = { 0x1000, 0x10f0, 0x1100, 0x1170, 0x1180,
				       0x1200, 0x12f8, 0x2000, 0x23f0, 0x2400,
				       0x2470, 0x5000, 0x6000, 0x60f0 };

	return at[rnd(sizeof(at) / sizeof(at[0]))] + rnd(12);
}

/* A random flow of @n steps into @ev. */
static void rnd_flow(struct ev *ev, size_t n, int threads, uint32_t runs)
{
	size_t i, k;
	uint64_t tsc = 1000;

	for (i = 0; i < n; i++) {
		struct ev *e = &ev[i];
		uint32_t r = rnd(100);

		memset(e, 0, sizeof(*e));
		if (r < runs) {
			static const uint8_t fl[] = {
				CT_C_KNOWN | CT_C_HI | CT_C_EXACT, CT_C_EXACT,
				CT_C_KNOWN | CT_C_HI, CT_C_KNOWN, 0,
			};

			e->kind = EV_RUN;
			tsc += rnd(50);
			e->tsc = tsc;
			e->have_tsc = rnd(5) != 0;
			e->null_cyc = rnd(8) == 0;
			e->cyc.flags = fl[rnd(sizeof(fl))];
			e->cyc.lo = rnd(200);
			e->cyc.hi = e->cyc.lo + rnd(30);
		} else if (r < runs + 3 && threads) {
			e->kind = EV_THREAD;
			e->key = rnd(3);
		} else if (r < runs + 4) {
			e->kind = EV_BREAK;
		} else if (r < runs + 6) {
			/* a signal's handler, maybe after a fault's return */
			e->kind = EV_ENABLED;
			e->offset = 0x100 * i;
			e->ip = rnd_ip();
			e->have_tsc = rnd(2);
		} else {
			static const int cls[] = { OTHER, OTHER, CALL, CALL,
						   RET, RET, 0, 6, CT_IC_JUMP };

			e->kind = EV_BLOCK;
			e->ip = rnd_ip();
			e->offset = 0x100 * i;
			e->n = 1 + (rnd(3) ? rnd(4) : rnd(40));
			e->iclass = cls[rnd(sizeof(cls) / sizeof(cls[0]))];
			e->last_ip = e->ip;
			for (k = 0; k < e->n; k++) {
				e->sizes[k] = (uint8_t)(1 + rnd(8));
				if (k + 1 < e->n)
					e->last_ip += e->sizes[k];
			}
		}
	}
}

/* Feed @ev[from, to) to @ct, blocks as blocks (@blocks) or instruction by
 * instruction. */
static void feed(struct ct *ct, const struct ev *ev, size_t from, size_t to,
		 int blocks)
{
	size_t i, k;

	for (i = from; i < to; i++) {
		const struct ev *e = &ev[i];
		struct ct_sizes z = { e->ip, e->sizes, e->n };
		uint64_t ip = e->ip;

		switch (e->kind) {
		case EV_RUN:
			assert_int_equal(ct_run(ct, e->null_cyc ? NULL : &e->cyc,
						e->tsc, e->have_tsc), 0);
			break;
		case EV_THREAD:
			assert_int_equal(ct_thread(ct, e->key), 0);
			break;
		case EV_BREAK:
			assert_int_equal(ct_break(ct), 0);
			break;
		case EV_ENABLED:
			assert_int_equal(ct_enabled(ct, e->offset), 0);
			break;
		case EV_BLOCK:
			if (blocks) {
				assert_int_equal(ct_block(ct, e->offset, 0, e->ip,
							  e->last_ip, e->n,
							  e->iclass,
							  ct_count_sizes, &z), 0);
				break;
			}
			for (k = 0; k < e->n; k++) {
				assert_int_equal(ct_insn(ct, e->offset, 0, ip,
							 k + 1 == e->n ? e->iclass : 0), 0);
				ip += e->sizes[k];
			}
			break;
		}
	}
}

/* ct_block() gives what ct_insn() for each instruction gives. */
static void test_block(void **state)
{
	struct ev *ev = calloc(400, sizeof(*ev));
	int round;

	(void)state;
	assert_non_null(ev);
	rng_state = 0x9e3779b97f4a7c15ull;
	for (round = 0; round < 500; round++) {
		struct ct *a, *b;
		size_t n = 1 + rnd(400);

		rnd_flow(ev, n, 1, 15);
		rnd_until = round & 1;
		assert_int_equal(ct_new(&a, resolve, NULL), 0);
		assert_int_equal(ct_new(&b, resolve, NULL), 0);
		feed(a, ev, 0, n, 0);
		feed(b, ev, 0, n, 1);
		assert_int_equal(ct_finish(a), 0);
		assert_int_equal(ct_finish(b), 0);
		ct_eq_tree(a, b);
		ct_free(a);
		ct_free(b);
	}
	free(ev);
}

/* A flow split at cut points, for the merges. */
struct split {
	const struct ev *ev;
	size_t *cut;		/* piece k is ev[cut[k], cut[k + 1]) */
	size_t npieces;
	uint64_t *key;		/* the thread before each event */
	int name_threads;	/* ct_thread() first in each fragment */
	int nmerges;
};

/* Feed pieces [@from, @to) to @target: each directly, or several through
 * a fragment built likewise and merged. */
static void build(struct split *sp, struct ct *target, size_t from, size_t to,
		  int depth)
{
	size_t i = from;

	while (i < to) {
		size_t j = i + 1 + rnd((uint32_t)(to - i));
		size_t a = sp->cut[i];
		struct ct *f;

		if (depth >= 3 || !rnd(4)) {
			feed(target, sp->ev, a, sp->cut[i + 1], (int)rnd(2));
			i++;
			continue;
		}
		assert_int_equal(ct_new_frag(&f, resolve, NULL), 0);
		/* on the thread the flow is on: a fragment cannot tell its
		 * first thread from one it switches to with the same key
		 * (or one a fragment merged into it names) */
		if (sp->name_threads)
			assert_int_equal(ct_thread(f, sp->key[a]), 0);
		build(sp, f, i, j, depth + 1);
		assert_int_equal(ct_merge(target, f), -pte_invalid);
		assert_int_equal(ct_finish(f), 0);
		if (rnd(2)) {
			struct ct_pack *pk;

			assert_int_equal(ct_frag_pack(f, &pk), 0);
			ct_free(f);
			f = NULL;
			assert_int_equal(ct_merge_pack(target, pk), 0);
			ct_pack_free(pk);
		} else {
			assert_int_equal(ct_merge(target, f), 0);
		}
		sp->nmerges++;
		ct_free(f);
		i = j;
	}
}

/* Random flows split at random runs and breaks, merged in random
 * groupings, give the whole flow's tree. */
static void check_splits(int threads, int rounds, uint32_t runs)
{
	struct ev *ev = calloc(400, sizeof(*ev));
	size_t *cut = calloc(402, sizeof(*cut));
	uint64_t *key = calloc(401, sizeof(*key));
	int round, merges = 0;

	assert_true(ev && cut && key);
	for (round = 0; round < rounds; round++) {
		struct split sp = { ev, cut, 0, key, threads || rnd(2), 0 };
		struct ct *whole, *t;
		size_t n = 1 + rnd(400), i;

		rnd_flow(ev, n, threads, runs);
		for (i = 0; i < n; i++)
			key[i + 1] = ev[i].kind == EV_THREAD ? ev[i].key : key[i];
		cut[sp.npieces++] = 0;
		for (i = 1; i < n; i++)
			if ((ev[i].kind == EV_RUN || ev[i].kind == EV_BREAK) &&
			    rnd(3))
				cut[sp.npieces++] = i;
		cut[sp.npieces] = n;
		assert_int_equal(ct_new(&whole, resolve, NULL), 0);
		assert_int_equal(ct_new(&t, resolve, NULL), 0);
		feed(whole, ev, 0, n, 0);
		build(&sp, t, 0, sp.npieces, 0);
		assert_int_equal(ct_finish(whole), 0);
		assert_int_equal(ct_finish(t), 0);
		ct_eq_tree(whole, t);
		merges += sp.nmerges;
		ct_free(whole);
		ct_free(t);
	}
	assert_true(merges > rounds);
	free(ev);
	free(cut);
	free(key);
}

static void test_merge_one_thread(void **state)
{
	(void)state;
	rng_state = 0x1234567;
	check_splits(0, 1500, 15);
}

static void test_merge_threads(void **state)
{
	(void)state;
	rng_state = 0x7654321;
	check_splits(1, 1500, 15);
}

/* Long runs: split between more nodes than a run keeps apart. */
static void test_merge_long_runs(void **state)
{
	(void)state;
	rng_state = 0x5555aaaa;
	check_splits(1, 400, 1);
}

/* Calls deeper than the tree keeps, split into pieces: folded, flagged,
 * nothing lost (the split of shares between folded nodes may differ
 * from the whole flow's: calltree.h). */
static void test_merge_deep(void **state)
{
	struct ct *whole, *t, *f = NULL;
	const struct ct_node *a, *b;
	struct ct_cyc c = { 7, 7, CT_C_KNOWN | CT_C_HI | CT_C_EXACT };
	int i, k;

	(void)state;
	assert_int_equal(ct_new(&whole, resolve, NULL), 0);
	assert_int_equal(ct_new(&t, resolve, NULL), 0);
	for (k = 0; k < 2; k++) {
		struct ct *ct = k ? t : whole;

		for (i = 0; i < 3200; i++) {
			if (i % 100 == 0) {
				if (k && f) {
					assert_int_equal(ct_finish(f), 0);
					assert_int_equal(ct_merge(t, f), 0);
					ct_free(f);
				}
				if (k) {
					assert_int_equal(ct_new_frag(&f, resolve, NULL), 0);
					ct = f;
				}
				assert_int_equal(ct_run(ct, &c, (uint64_t)i, 1), 0);
			}
			/* b recursing 1600 deep, then returning to a */
			if (i == 0)
				assert_int_equal(ct_insn(ct, 0, 0, 0x1000, CALL), 0);
			else if (i < 1600)
				assert_int_equal(ct_insn(ct, 0, 0, 0x1100, CALL), 0);
			else
				assert_int_equal(ct_insn(ct, 0, 0, i == 3199 ? 0x1004 : 0x1104,
							 RET), 0);
		}
		if (k) {
			assert_int_equal(ct_finish(f), 0);
			assert_int_equal(ct_merge(t, f), 0);
			ct_free(f);
		}
	}
	assert_int_equal(ct_finish(whole), 0);
	assert_int_equal(ct_finish(t), 0);
	assert_true(ct_truncated(whole));
	assert_true(ct_truncated(t));
	a = ct_node(whole, CT_ROOT);
	b = ct_node(t, CT_ROOT);
	assert_int_equal(a->insns, 3200);
	assert_int_equal(b->insns, 3200);
	assert_int_equal(b->total.lo, a->total.lo);
	assert_int_equal(b->total.known, a->total.known);
	assert_true(ct_nnodes(t) <= 1025);
	assert_int_equal(ct_node(t, 1)->next_sibling, CT_NONE);
	ct_free(whole);
	ct_free(t);
}

/* Bad arguments; a block of one needs no count. */
static void test_block_args(void **state)
{
	struct ct *ct;

	(void)state;
	assert_int_equal(ct_block(NULL, 0, 0, 0x1000, 0x1000, 1, OTHER, NULL,
				  NULL), -pte_invalid);
	assert_int_equal(ct_new(&ct, resolve, NULL), 0);
	assert_int_equal(ct_block(ct, 0, 0, 0x1000, 0x1008, 2, OTHER, NULL,
				  NULL), -pte_invalid);
	assert_int_equal(ct_block(ct, 0, 0, 0x1008, 0x1000, 2, OTHER,
				  ct_count_sizes, NULL), -pte_invalid);
	assert_int_equal(ct_block(ct, 0, 0, 0x1000, 0x1000, 0, OTHER, NULL,
				  NULL), 0);
	assert_int_equal(ct_block(ct, 0, 0, 0x1000, 0x1000, 1, OTHER, NULL,
				  NULL), 0);
	assert_int_equal(ct_finish(ct), 0);
	assert_int_equal(ct_node(ct, CT_ROOT)->insns, 1);
	assert_int_equal(ct_block(ct, 0, 0, 0x1000, 0x1000, 1, OTHER, NULL,
				  NULL), -pte_invalid);
	ct_free(ct);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_block_args),
		cmocka_unit_test(test_block),
		cmocka_unit_test(test_merge_one_thread),
		cmocka_unit_test(test_merge_threads),
		cmocka_unit_test(test_merge_long_runs),
		cmocka_unit_test(test_merge_deep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
