/*
 * test_calltree -- the call tree and flat profile of a made-up flow with a
 * resolver of four functions: calls, returns, a return above the range,
 * a break; exact, bounded, open and unknown runs, split between nodes by
 * instruction count; the region's cycles equal the sum of its runs';
 * times from the runs' TSC; orders; a stack deeper than the tree keeps.
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
#include "ct_eq.h"
#include "ptdec.h"
#include "symfmt.h"

#define CALL CT_IC_CALL
#define RET CT_IC_RETURN
#define OTHER 1
#define FAR_CALL 6

/* main 0x1000, f 0x2000, g 0x3000 (0x100 each), "lib.so" a segment at
 * 0x4000; nothing elsewhere. */
static int resolve(void *ctx, uint64_t asid, uint64_t ip, struct symfmt_fn *fn)
{
	static const char *const names[] = { "main", "f", "g" };

	(void)asid;
	(*(int *)ctx)++;
	if (ip >= 0x1000 && ip < 0x4000 && (ip & 0xfff) < 0x100) {
		fn->name = names[ip / 0x1000 - 1];
		fn->start = ip & ~0xfffull;
		fn->end = fn->start + 0x100;
		fn->kind = SYMFMT_FUNC;
	} else if (ip >= 0x4000 && ip < 0x5000) {
		fn->name = "lib.so";
		fn->start = 0x4000;
		fn->end = 0x5000;
		fn->kind = SYMFMT_SEGMENT;
	} else {
		fn->name = "(unknown)";
		fn->start = ip;
		fn->end = ip + 1;
		fn->kind = SYMFMT_NONE;
	}
	return 0;
}

static void test_null(void **state)
{
	struct ct *ct;
	struct ct_sum s = { 0 };
	uint32_t idx[4];
	char buf[32];
	int calls = 0;

	(void)state;
	ct_free(NULL);
	assert_int_equal(ct_new(NULL, resolve, NULL), -pte_invalid);
	assert_int_equal(ct_new(&ct, NULL, NULL), -pte_invalid);
	assert_int_equal(ct_run(NULL, NULL, 0, 0), -pte_invalid);
	assert_int_equal(ct_insn(NULL, 0, 0, 0, 0), -pte_invalid);
	assert_int_equal(ct_break(NULL), -pte_invalid);
	assert_int_equal(ct_finish(NULL), -pte_invalid);
	assert_int_equal(ct_nnodes(NULL), 0);
	assert_null(ct_node(NULL, 0));
	assert_int_equal(ct_top(NULL, CT_BY_INSNS, idx, 4), 0);
	/* an empty range: the root alone, no cycles, no functions */
	assert_int_equal(ct_new(&ct, resolve, &calls), 0);
	assert_int_equal(ct_finish(ct), 0);
	assert_int_equal(ct_finish(ct), -pte_invalid);
	assert_int_equal(ct_insn(ct, 0, 0, 0x1000, OTHER), -pte_invalid);
	assert_int_equal(ct_nnodes(ct), 1);
	assert_int_equal(ct_nfuncs(ct), 0);
	assert_null(ct_node(ct, 1));
	assert_null(ct_func(ct, 0));
	assert_int_equal(ct_node(ct, CT_ROOT)->parent, CT_NONE);
	assert_int_equal(ct_node(ct, CT_ROOT)->insns, 0);
	assert_int_equal(ct_top(ct, CT_BY_INSNS, idx, 4), 0);
	assert_int_equal(ct_children(ct, CT_ROOT, CT_BY_INSNS, idx, 4), 0);
	assert_string_equal(ct_sum_str(&s, buf, sizeof(buf)), "0");
	assert_string_equal(ct_sum_str(NULL, buf, sizeof(buf)), "?");
	ct_free(ct);
}

static void insn(struct ct *ct, uint64_t off, uint64_t ip, int ic)
{
	assert_int_equal(ct_insn(ct, off, 7, ip, ic), 0);
}

static void run(struct ct *ct, uint64_t lo, uint64_t hi, uint8_t flags,
		uint64_t tsc)
{
	struct ct_cyc c = { lo, hi, flags };

	assert_int_equal(ct_run(ct, flags ? &c : NULL, tsc, 1), 0);
}

/* The flow of the header's scenario (see the sums below). */
static struct ct *scenario(int *calls)
{
	struct ct *ct;

	assert_int_equal(ct_new(&ct, resolve, calls), 0);
	run(ct, 100, 100, CT_C_KNOWN | CT_C_HI | CT_C_EXACT, 1000);
	insn(ct, 0x10, 0x1000, OTHER);
	insn(ct, 0x10, 0x1004, OTHER);
	insn(ct, 0x10, 0x1008, CALL);
	run(ct, 50, 0, CT_C_EXACT, 1100);	/* exact: hi implied */
	insn(ct, 0x20, 0x2000, OTHER);
	insn(ct, 0x20, 0x2004, CALL);
	run(ct, 30, 40, CT_C_KNOWN | CT_C_HI, 1200);
	insn(ct, 0x30, 0x3000, OTHER);
	insn(ct, 0x30, 0x3004, RET);
	insn(ct, 0x30, 0x200a, RET);
	insn(ct, 0x30, 0x100d, OTHER);
	run(ct, 0, 0, 0, 1300);			/* unknown */
	insn(ct, 0x40, 0x1010, CALL);
	insn(ct, 0x40, 0x2000, RET);
	insn(ct, 0x40, 0x1014, FAR_CALL);	/* no move */
	run(ct, 20, 0, CT_C_KNOWN, 1400);	/* at least 20 */
	insn(ct, 0x50, 0x1018, RET);		/* above the range */
	insn(ct, 0x50, 0x5000, OTHER);
	insn(ct, 0x50, 0x5004, OTHER);
	assert_int_equal(ct_break(ct), 0);
	run(ct, 10, 10, CT_C_KNOWN | CT_C_HI | CT_C_EXACT, 1500);
	insn(ct, 0x60, 0x2010, OTHER);
	assert_int_equal(ct_finish(ct), 0);
	return ct;
}

static void sum_is(const struct ct_sum *s, uint64_t lo, uint64_t hi,
		   uint64_t known, uint64_t unknown, uint32_t flags)
{
	assert_int_equal(s->lo, lo);
	assert_int_equal(s->hi, hi);
	assert_int_equal(s->known, known);
	assert_int_equal(s->unknown, unknown);
	assert_int_equal(s->flags, flags);
}

static void test_tree(void **state)
{
	const struct ct_node *root, *main_, *f, *g, *unk, *f2;
	int calls = 0;
	struct ct *ct = scenario(&calls);

	(void)state;
	assert_int_equal(ct_nnodes(ct), 6);
	root = ct_node(ct, CT_ROOT);
	main_ = ct_node(ct, 1);
	f = ct_node(ct, 2);
	g = ct_node(ct, 3);
	unk = ct_node(ct, 4);
	f2 = ct_node(ct, 5);
	assert_string_equal(ct_func(ct, main_->func)->name, "main");
	assert_string_equal(ct_func(ct, f->func)->name, "f");
	assert_string_equal(ct_func(ct, g->func)->name, "g");
	assert_string_equal(ct_func(ct, unk->func)->name, "(unknown)");
	assert_int_equal(f2->func, f->func);
	/* shape */
	assert_int_equal(main_->parent, CT_ROOT);
	assert_int_equal(f->parent, 1);
	assert_int_equal(g->parent, 2);
	assert_int_equal(unk->parent, CT_ROOT);
	assert_int_equal(f2->parent, CT_ROOT);
	assert_int_equal(root->first_child, 1);
	assert_int_equal(main_->next_sibling, 4);
	assert_int_equal(unk->next_sibling, 5);
	assert_int_equal(f2->next_sibling, CT_NONE);
	assert_int_equal(g->depth, 3);
	/* calls: entered before the range, or after a break: 0 */
	assert_int_equal(main_->calls, 0);
	assert_int_equal(f->calls, 2);
	assert_int_equal(g->calls, 1);
	assert_int_equal(unk->calls, 0);
	assert_int_equal(f2->calls, 0);
	/* where to jump: the first instruction's deciding packet */
	assert_int_equal(main_->offset, 0x10);
	assert_int_equal(f->offset, 0x20);
	assert_int_equal(g->offset, 0x30);
	assert_int_equal(f2->offset, 0x60);
	/* instructions */
	assert_int_equal(main_->insns_self, 7);
	assert_int_equal(f->insns_self, 4);
	assert_int_equal(g->insns_self, 2);
	assert_int_equal(main_->insns, 13);
	assert_int_equal(root->insns, 16);
	assert_int_equal(root->insns_self, 0);
	/* cycles: run 3 [30,40] split 2:1:1 between g, f and main; run 5
	 * (>= 20) 1:2 between main and the unknown code */
	sum_is(&main_->self, 100 + 8 + 6, 100 + 10 + 6, 5, 2,
	       CT_S_BOUNDED | CT_S_OPEN | CT_S_SHARED);
	sum_is(&f->self, 57, 60, 3, 1, CT_S_BOUNDED | CT_S_SHARED);
	sum_is(&g->self, 15, 20, 2, 0, CT_S_BOUNDED | CT_S_SHARED);
	sum_is(&unk->self, 14, 14, 2, 0, CT_S_OPEN | CT_S_SHARED);
	sum_is(&f2->self, 10, 10, 1, 0, 0);
	sum_is(&main_->total, 186, 196, 10, 3,
	       CT_S_BOUNDED | CT_S_OPEN | CT_S_SHARED);
	/* the region's cycles are the sum of its runs' */
	sum_is(&root->total, 100 + 50 + 30 + 20 + 10, 100 + 50 + 40 + 20 + 10,
	       13, 3, CT_S_BOUNDED | CT_S_OPEN | CT_S_SHARED);
	/* time from call to return, by the runs' TSC */
	assert_int_equal(main_->tsc_ticks, 400);
	assert_int_equal(f->tsc_ticks, 100);
	assert_int_equal(g->tsc_ticks, 0);
	/* the range's: its first instruction's TSC to its last's */
	assert_int_equal(root->tsc_ticks, 500);
	assert_false(ct_truncated(ct));
	/* a function's range answers again without the resolver */
	assert_true(calls < 16);
	ct_free(ct);
}

static void test_flat(void **state)
{
	uint32_t idx[8];
	const struct ct_func *fn;
	int calls = 0;
	struct ct *ct = scenario(&calls);
	uint64_t lo = 0, hi = 0, insns = 0;
	size_t i;

	(void)state;
	assert_int_equal(ct_nfuncs(ct), 4);
	assert_int_equal(ct_top(ct, CT_BY_INSNS, idx, 8), 4);
	assert_string_equal(ct_func(ct, idx[0])->name, "main");
	assert_string_equal(ct_func(ct, idx[1])->name, "f");
	assert_string_equal(ct_func(ct, idx[2])->name, "(unknown)");
	assert_string_equal(ct_func(ct, idx[3])->name, "g");
	fn = ct_func(ct, idx[1]);
	assert_int_equal(fn->insns, 5);
	assert_int_equal(fn->calls, 2);
	sum_is(&fn->cyc, 67, 70, 4, 1, CT_S_BOUNDED | CT_S_SHARED);
	assert_int_equal(fn->start, 0x2000);
	assert_int_equal(fn->kind, SYMFMT_FUNC);
	assert_int_equal(ct_top(ct, CT_BY_CYCLES, idx, 2), 2);
	assert_string_equal(ct_func(ct, idx[0])->name, "main");
	assert_string_equal(ct_func(ct, idx[1])->name, "f");
	assert_int_equal(ct_top(ct, CT_BY_CALLS, idx, 8), 4);
	assert_string_equal(ct_func(ct, idx[0])->name, "f");
	assert_string_equal(ct_func(ct, idx[1])->name, "g");
	assert_string_equal(ct_func(ct, idx[2])->name, "main");
	/* the flat profile adds up to the tree's root */
	for (i = 0; i < ct_nfuncs(ct); i++) {
		lo += ct_func(ct, (uint32_t)i)->cyc.lo;
		hi += ct_func(ct, (uint32_t)i)->cyc.hi;
		insns += ct_func(ct, (uint32_t)i)->insns;
	}
	assert_int_equal(lo, ct_node(ct, CT_ROOT)->total.lo);
	assert_int_equal(hi, ct_node(ct, CT_ROOT)->total.hi);
	assert_int_equal(insns, ct_node(ct, CT_ROOT)->insns);
	/* children by total cycles */
	assert_int_equal(ct_children(ct, CT_ROOT, CT_BY_CYCLES, idx, 8), 3);
	assert_int_equal(idx[0], 1);
	assert_int_equal(idx[1], 4);
	assert_int_equal(idx[2], 5);
	assert_int_equal(ct_children(ct, CT_ROOT, CT_BY_CYCLES, idx, 1), 1);
	assert_int_equal(ct_children(ct, 3, CT_BY_CYCLES, idx, 8), 0);
	assert_int_equal(ct_children(ct, 99, CT_BY_CYCLES, idx, 8), 0);
	ct_free(ct);
}

static void test_sum_str(void **state)
{
	struct ct_sum s = { 0 };
	char buf[32];
	int calls = 0;
	struct ct *ct = scenario(&calls);

	(void)state;
	assert_string_equal(ct_sum_str(&ct_node(ct, 5)->self, buf, sizeof(buf)), "10");
	assert_string_equal(ct_sum_str(&ct_node(ct, 3)->self, buf, sizeof(buf)), "~15-20");
	assert_string_equal(ct_sum_str(&ct_node(ct, 4)->self, buf, sizeof(buf)), "~>=14");
	assert_string_equal(ct_sum_str(&ct_node(ct, 1)->self, buf, sizeof(buf)), "~>=114+?");
	s.lo = 5;
	s.hi = 9;
	s.known = 1;
	s.flags = CT_S_BOUNDED;
	assert_string_equal(ct_sum_str(&s, buf, sizeof(buf)), "5-9");
	s.unknown = 3;
	s.known = 0;
	assert_string_equal(ct_sum_str(&s, buf, sizeof(buf)), "?");
	s.known = 1;
	assert_string_equal(ct_sum_str(&s, buf, 5), "5-9");
	ct_free(ct);
}

/* A time is an estimate ("~"), or unknown ("?") where no TSC was fed or
 * the estimate did not move while the node ran. */
static void test_time_mark(void **state)
{
	struct ct *ct;
	int calls = 0;

	(void)state;
	assert_string_equal(ct_time_mark(NULL, 0), "?");
	ct = scenario(&calls);
	assert_string_equal(ct_time_mark(ct, CT_ROOT), "~");	/* 500 */
	assert_string_equal(ct_time_mark(ct, 1), "~");		/* main, 400 */
	assert_string_equal(ct_time_mark(ct, 3), "?");		/* g: 0 ticks */
	assert_string_equal(ct_time_mark(ct, 99), "?");
	ct_free(ct);
	/* runs without a TSC (no timing packets): nothing is known */
	assert_int_equal(ct_new(&ct, resolve, &calls), 0);
	assert_int_equal(ct_run(ct, NULL, 0, 0), 0);
	insn(ct, 0x10, 0x1000, CALL);
	insn(ct, 0x10, 0x2000, RET);
	insn(ct, 0x10, 0x1004, OTHER);
	assert_int_equal(ct_finish(ct), 0);
	assert_int_equal(ct_node(ct, CT_ROOT)->tsc_ticks, 0);
	assert_string_equal(ct_time_mark(ct, CT_ROOT), "?");
	assert_string_equal(ct_time_mark(ct, 1), "?");
	ct_free(ct);
}

/* An instruction before any run: its cycles are unknown. */
static void test_outside_run(void **state)
{
	struct ct *ct;
	int calls = 0;

	(void)state;
	assert_int_equal(ct_new(&ct, resolve, &calls), 0);
	insn(ct, 0, 0x4010, OTHER);
	insn(ct, 0, 0x4020, OTHER);
	assert_int_equal(ct_finish(ct), 0);
	assert_int_equal(ct_nnodes(ct), 2);
	assert_string_equal(ct_func(ct, 0)->name, "lib.so");
	assert_int_equal(ct_func(ct, 0)->kind, SYMFMT_SEGMENT);
	sum_is(&ct_node(ct, CT_ROOT)->total, 0, 0, 0, 2, 0);
	ct_free(ct);
}

/* Calls deeper than the tree keeps: counted in the deepest node; the
 * returns come back to the base. */
static void test_deep(void **state)
{
	struct ct *ct;
	int calls = 0, i;
	size_t n;

	(void)state;
	assert_int_equal(ct_new(&ct, resolve, &calls), 0);
	run(ct, 3000, 3000, CT_C_KNOWN | CT_C_HI | CT_C_EXACT, 0);
	insn(ct, 0, 0x1000, CALL);
	for (i = 0; i < 1500; i++)
		insn(ct, 0, 0x2000, CALL);	/* f recursing */
	for (i = 0; i < 1501; i++)	/* the last returns to main */
		insn(ct, 0, 0x2004, RET);
	insn(ct, 0, 0x1004, OTHER);
	assert_int_equal(ct_finish(ct), 0);
	assert_true(ct_truncated(ct));
	n = ct_nnodes(ct);
	assert_true(n <= 1025);
	/* back in main at the end: no second top-level node */
	assert_int_equal(ct_node(ct, 1)->next_sibling, CT_NONE);
	assert_int_equal(ct_node(ct, 1)->insns_self, 2);
	assert_int_equal(ct_node(ct, CT_ROOT)->insns, 3003);
	assert_int_equal(ct_node(ct, CT_ROOT)->total.lo, 3000);
	ct_free(ct);
}

/* Two threads on one stream: each keeps its stack across the switches. */
static void test_threads(void **state)
{
	const struct ct_node *n;
	struct ct *ct;
	int calls = 0;

	(void)state;
	assert_int_equal(ct_new(&ct, resolve, &calls), 0);
	assert_int_equal(ct_thread(NULL, 1), -pte_invalid);
	run(ct, 10, 10, CT_C_KNOWN | CT_C_HI | CT_C_EXACT, 100);
	assert_int_equal(ct_thread(ct, 1), 0);
	insn(ct, 0x10, 0x1000, CALL);		/* thread 1: main calls f */
	insn(ct, 0x10, 0x2000, OTHER);
	run(ct, 20, 20, CT_C_KNOWN | CT_C_HI | CT_C_EXACT, 200);
	assert_int_equal(ct_thread(ct, 2), 0);
	insn(ct, 0x20, 0x3000, RET);		/* thread 2: g returns */
	insn(ct, 0x20, 0x2080, CALL);		/* into f, which calls g */
	run(ct, 30, 30, CT_C_KNOWN | CT_C_HI | CT_C_EXACT, 300);
	assert_int_equal(ct_thread(ct, 1), 0);
	insn(ct, 0x30, 0x2004, RET);		/* thread 1: f returns */
	insn(ct, 0x30, 0x1004, OTHER);		/* in main */
	assert_int_equal(ct_thread(ct, 2), 0);
	insn(ct, 0x30, 0x3000, OTHER);		/* thread 2: in g, called */
	assert_int_equal(ct_finish(ct), 0);
	assert_int_equal(ct_thread(ct, 1), -pte_invalid);
	/* root: main (t1), g (t2, before), f (t2, after the return) */
	assert_int_equal(ct_nnodes(ct), 6);
	n = ct_node(ct, 1);
	assert_string_equal(ct_func(ct, n->func)->name, "main");
	assert_int_equal(n->insns, 4);
	assert_int_equal(n->insns_self, 2);
	n = ct_node(ct, 2);
	assert_string_equal(ct_func(ct, n->func)->name, "f");
	assert_int_equal(n->parent, 1);
	assert_int_equal(n->calls, 1);
	assert_int_equal(n->insns, 2);
	assert_int_equal(n->tsc_ticks, 200);	/* called at 100, back at 300 */
	n = ct_node(ct, 3);
	assert_string_equal(ct_func(ct, n->func)->name, "g");
	assert_int_equal(n->parent, CT_ROOT);
	assert_int_equal(n->calls, 0);
	n = ct_node(ct, 4);
	assert_string_equal(ct_func(ct, n->func)->name, "f");
	assert_int_equal(n->parent, CT_ROOT);
	n = ct_node(ct, 5);
	assert_string_equal(ct_func(ct, n->func)->name, "g");
	assert_int_equal(n->parent, 4);
	assert_int_equal(n->calls, 1);
	assert_int_equal(ct_node(ct, CT_ROOT)->total.lo, 60);
	/* the range's time, 100 to 300, not its top-level nodes' 300
	 * (main 200, f 100: the threads' calls overlap) */
	assert_int_equal(ct_node(ct, 1)->tsc_ticks + ct_node(ct, 4)->tsc_ticks, 300);
	assert_int_equal(ct_node(ct, CT_ROOT)->tsc_ticks, 200);
	ct_free(ct);
}

/* Calls still open at the end of the range count up to their thread's
 * last instruction, not the range's end (a thread switched out in them
 * goes on elsewhere: its time there is not theirs), and are marked as
 * open, their time a lower bound.  The codeux review's add, switched
 * out on cpu0, showed 38.559 us against 1.411 us for its thread alone. */
static void test_open_at_end(void **state)
{
	const struct ct_node *n;
	struct ct *ct;
	int calls = 0;

	(void)state;
	assert_int_equal(ct_new(&ct, resolve, &calls), 0);
	run(ct, 10, 10, CT_C_KNOWN | CT_C_HI | CT_C_EXACT, 100);
	assert_int_equal(ct_thread(ct, 1), 0);
	insn(ct, 0x10, 0x1000, CALL);		/* thread 1: main calls f */
	insn(ct, 0x10, 0x2000, CALL);		/* f calls g */
	insn(ct, 0x10, 0x3000, RET);		/* g returns */
	run(ct, 10, 10, CT_C_KNOWN | CT_C_HI | CT_C_EXACT, 150);
	insn(ct, 0x20, 0x2004, OTHER);		/* in f, switched out */
	run(ct, 10, 10, CT_C_KNOWN | CT_C_HI | CT_C_EXACT, 200);
	assert_int_equal(ct_thread(ct, 2), 0);
	insn(ct, 0x30, 0x3010, OTHER);		/* thread 2 to the end */
	run(ct, 10, 10, CT_C_KNOWN | CT_C_HI | CT_C_EXACT, 1000);
	insn(ct, 0x40, 0x3014, OTHER);
	assert_int_equal(ct_finish(ct), 0);
	/* root, main, f, g (thread 1), g (thread 2) */
	assert_int_equal(ct_nnodes(ct), 5);
	n = ct_node(ct, 2);
	assert_string_equal(ct_func(ct, n->func)->name, "f");
	assert_int_equal(n->tsc_ticks, 50);	/* 100 to 150, not 1000 */
	assert_int_equal(n->open, 1);
	n = ct_node(ct, 1);
	assert_int_equal(n->tsc_ticks, 50);
	assert_int_equal(n->open, 1);
	/* g returned: its time is whole */
	n = ct_node(ct, 3);
	assert_string_equal(ct_func(ct, n->func)->name, "g");
	assert_int_equal(n->open, 0);
	/* thread 2's g, in the range to its end: 200 to 1000, open */
	n = ct_node(ct, 4);
	assert_int_equal(n->tsc_ticks, 800);
	assert_int_equal(n->open, 1);
	assert_int_equal(ct_node(ct, CT_ROOT)->tsc_ticks, 900);
	assert_int_equal(ct_node(ct, CT_ROOT)->open, 0);
	ct_free(ct);
}

/* resolve(), the segment loaded from its file's offset 0x1000. */
static int resolve_off(void *ctx, uint64_t asid, uint64_t ip,
		       struct symfmt_fn *fn)
{
	int ret = resolve(ctx, asid, ip, fn);

	fn->file_off = fn->kind == SYMFMT_SEGMENT ? 0x1000 : 0;
	return ret;
}

/* Callees in code without symbols are lines of their own, named by their
 * entry's offset in the file ("lib.so+0x1010"), not one "[lib.so]" with
 * the calls of every function in it (the codeux review: 72 call targets
 * of a raw dump were one line of 219 calls).  The flat profile counts
 * their code and calls in the segment. */
static void test_entry_names(void **state)
{
	const struct ct_node *n;
	struct ct *ct;
	uint32_t idx[8];
	size_t k;
	int calls = 0;

	(void)state;
	assert_int_equal(ct_new(&ct, resolve_off, &calls), 0);
	run(ct, 10, 10, CT_C_KNOWN | CT_C_HI | CT_C_EXACT, 100);
	insn(ct, 0x10, 0x1000, CALL);		/* main calls 0x4010 */
	insn(ct, 0x10, 0x4010, OTHER);
	insn(ct, 0x10, 0x4014, RET);
	insn(ct, 0x10, 0x1004, CALL);		/* then 0x4020 */
	insn(ct, 0x10, 0x4020, RET);
	insn(ct, 0x10, 0x1008, CALL);		/* then 0x4010 again */
	insn(ct, 0x10, 0x4010, RET);
	insn(ct, 0x10, 0x100c, OTHER);
	assert_int_equal(ct_finish(ct), 0);
	/* root, main, lib.so+0x1010, lib.so+0x1020 */
	assert_int_equal(ct_nnodes(ct), 4);
	n = ct_node(ct, 2);
	assert_string_equal(ct_func(ct, n->func)->name, "lib.so+0x1010");
	assert_int_equal(ct_func(ct, n->func)->kind, SYMFMT_SEGMENT);
	assert_int_equal(n->calls, 2);
	assert_int_equal(n->insns, 3);
	n = ct_node(ct, 3);
	assert_string_equal(ct_func(ct, n->func)->name, "lib.so+0x1020");
	assert_int_equal(n->calls, 1);
	/* the flat profile: main and the segment, its 3 calls, 4 insns */
	k = ct_top(ct, CT_BY_CALLS, idx, 8);
	assert_int_equal(k, 2);
	assert_string_equal(ct_func(ct, idx[0])->name, "lib.so");
	assert_int_equal(ct_func(ct, idx[0])->calls, 3);
	assert_int_equal(ct_func(ct, idx[0])->insns, 4);
	assert_string_equal(ct_func(ct, idx[1])->name, "main");
	ct_free(ct);
}

/* An overflow forgets every thread's stack (any may have run in what was
 * lost); a thread back from another CPU comes without its stack. */
static void test_break_all(void **state)
{
	const struct ct_node *n;
	struct ct *ct;
	char buf[32];
	int calls = 0;

	(void)state;
	assert_int_equal(ct_break_all(NULL), -pte_invalid);
	assert_int_equal(ct_thread_lost(NULL, 1), -pte_invalid);
	assert_int_equal(ct_new(&ct, resolve, &calls), 0);
	run(ct, 10, 10, CT_C_KNOWN | CT_C_HI | CT_C_EXACT, 100);
	assert_int_equal(ct_thread(ct, 1), 0);
	insn(ct, 0x10, 0x1000, CALL);		/* 1: main calls f */
	insn(ct, 0x10, 0x2000, OTHER);
	assert_int_equal(ct_thread(ct, 2), 0);
	insn(ct, 0x10, 0x1000, CALL);		/* 2: main calls f */
	insn(ct, 0x10, 0x2000, OTHER);
	assert_int_equal(ct_break_all(ct), 0);
	assert_int_equal(ct_thread(ct, 1), 0);
	insn(ct, 0x20, 0x2004, RET);		/* 1: f returns: top-level */
	insn(ct, 0x20, 0x1004, CALL);		/* main calls g */
	insn(ct, 0x20, 0x3000, OTHER);
	assert_int_equal(ct_thread(ct, 2), 0);
	insn(ct, 0x20, 0x2004, OTHER);		/* 2: f, top-level */
	assert_int_equal(ct_thread_lost(ct, 1), 0);
	insn(ct, 0x20, 0x3004, RET);		/* 1: g returns: top-level */
	insn(ct, 0x20, 0x1008, OTHER);
	assert_int_equal(ct_finish(ct), 0);
	/* main > f, main > g; f and g top-level, called before */
	assert_int_equal(ct_nnodes(ct), 6);
	n = ct_node(ct, 2);
	assert_string_equal(ct_func(ct, n->func)->name, "f");
	assert_int_equal(n->parent, 1);
	assert_int_equal(n->calls, 2);
	assert_int_equal(n->insns_self, 2);
	n = ct_node(ct, 3);
	assert_string_equal(ct_func(ct, n->func)->name, "f");
	assert_int_equal(n->parent, CT_ROOT);
	assert_int_equal(n->calls, 0);
	assert_int_equal(n->insns_self, 2);
	n = ct_node(ct, 4);
	assert_string_equal(ct_func(ct, n->func)->name, "g");
	assert_int_equal(n->parent, 1);
	assert_int_equal(n->insns_self, 1);
	n = ct_node(ct, 5);
	assert_string_equal(ct_func(ct, n->func)->name, "g");
	assert_int_equal(n->parent, CT_ROOT);
	assert_int_equal(n->calls, 0);
	assert_int_equal(n->insns_self, 1);
	assert_int_equal(ct_node(ct, 1)->insns_self, 4);
	/* the code lost at the break is in no count: "+?", not exact 10 */
	assert_int_equal(ct_breaks(ct), 1);
	assert_true(ct_node(ct, CT_ROOT)->total.flags & CT_S_LOST);
	assert_string_equal(ct_sum_str(&ct_node(ct, CT_ROOT)->total, buf,
				       sizeof(buf)), "~10+?");
	ct_free(ct);
}

/* A range whose code was all lost (decode errors, no memory mapped): no
 * instruction, but its cycles are unknown, not 0. */
static void test_all_lost(void **state)
{
	struct ct *ct;
	char buf[32];
	int calls = 0;

	(void)state;
	assert_int_equal(ct_breaks(NULL), 0);
	assert_int_equal(ct_new(&ct, resolve, &calls), 0);
	assert_int_equal(ct_break_all(ct), 0);
	assert_int_equal(ct_break_all(ct), 0);
	assert_int_equal(ct_finish(ct), 0);
	assert_int_equal(ct_node(ct, CT_ROOT)->insns, 0);
	assert_int_equal(ct_breaks(ct), 2);
	assert_string_equal(ct_sum_str(&ct_node(ct, CT_ROOT)->total, buf,
				       sizeof(buf)), "?");
	ct_free(ct);
	/* no break: nothing lost, an empty range's 0 */
	assert_int_equal(ct_new(&ct, resolve, &calls), 0);
	assert_int_equal(ct_finish(ct), 0);
	assert_int_equal(ct_breaks(ct), 0);
	assert_string_equal(ct_sum_str(&ct_node(ct, CT_ROOT)->total, buf,
				       sizeof(buf)), "0");
	ct_free(ct);
}

/* A run split between more nodes than room was made for at first: each
 * gets its share, none an exact 0 (they were lumped into the 16th). */
static int resolve20(void *ctx, uint64_t asid, uint64_t ip,
		     struct symfmt_fn *fn)
{
	static const char *const names[] = { "f0", "f1", "f2", "f3", "f4",
		"f5", "f6", "f7", "f8", "f9", "f10", "f11", "f12", "f13", "f14",
		"f15", "f16", "f17", "f18", "f19" };
	uint64_t k = ip / 0x1000 - 1;

	(void)ctx;
	(void)asid;
	if (k >= 20)
		return -pte_invalid;
	fn->name = names[k];
	fn->start = (k + 1) * 0x1000;
	fn->end = fn->until = fn->start + 0x1000;
	fn->kind = SYMFMT_FUNC;
	return 0;
}

static void test_many_parts(void **state)
{
	const struct ct_node *n;
	struct ct *ct;
	uint64_t lo = 0;
	uint32_t i;

	(void)state;
	assert_int_equal(ct_new(&ct, resolve20, NULL), 0);
	run(ct, 200, 200, CT_C_KNOWN | CT_C_HI | CT_C_EXACT, 0);
	/* f0 calls f1 calls ... f19, one instruction each */
	for (i = 0; i < 20; i++)
		insn(ct, 0x10, 0x1000 * (i + 1), i < 19 ? CALL : OTHER);
	assert_int_equal(ct_finish(ct), 0);
	assert_int_equal(ct_nnodes(ct), 21);
	for (i = 1; i < 21; i++) {
		n = ct_node(ct, i);
		assert_int_equal(n->insns_self, 1);
		assert_int_equal(n->self.known, 1);
		assert_int_equal(n->self.lo, 10);
		assert_true(n->self.flags & CT_S_SHARED);
		assert_int_equal(ct_func(ct, n->func)->cyc.lo, 10);
		lo += n->self.lo;
	}
	assert_int_equal(lo, 200);
	ct_free(ct);
}

/* Unwinding: a return to a frame's return address below the top pops to
 * it; a return to none starts a top-level node; an indirect jump into a
 * function past its start (a longjmp) pops to its frame; a tail call
 * (to a start) or a jump within the top's function pops nothing. */
static void test_unwind(void **state)
{
	const struct ct_node *n;
	struct ct *ct;
	int calls = 0;

	(void)state;
	assert_int_equal(ct_new(&ct, resolve, &calls), 0);
	run(ct, 10, 10, CT_C_KNOWN | CT_C_HI | CT_C_EXACT, 100);
	insn(ct, 0x10, 0x1000, CALL);		/* main calls f (back 0x1005) */
	insn(ct, 0x10, 0x2000, CALL);		/* f calls g (back 0x2005) */
	insn(ct, 0x10, 0x3000, CALL);		/* g calls f */
	insn(ct, 0x10, 0x2000, RET);		/* f returns to main's call */
	insn(ct, 0x10, 0x1005, CALL);		/* main (1 frame) calls g */
	insn(ct, 0x10, 0x3000, CT_IC_JUMP);	/* g jumps to f's start */
	insn(ct, 0x10, 0x2000, CT_IC_JUMP);	/* f jumps within f (in g's
						 * node: a tail call's) */
	insn(ct, 0x10, 0x2040, CALL);		/* f calls g */
	insn(ct, 0x10, 0x3010, CT_IC_JUMP);	/* g longjmps into main */
	insn(ct, 0x10, 0x1050, RET);		/* main returns to none */
	insn(ct, 0x10, 0x3020, OTHER);		/* g, top-level */
	assert_int_equal(ct_finish(ct), 0);
	/* main > f > g > f; main > g > g; g */
	assert_int_equal(ct_nnodes(ct), 8);
	n = ct_node(ct, 5);
	assert_string_equal(ct_func(ct, n->func)->name, "g");
	assert_int_equal(n->parent, 1);		/* main's, after the return */
	assert_int_equal(n->insns_self, 3);	/* g and the tail call's f */
	n = ct_node(ct, 6);
	assert_string_equal(ct_func(ct, n->func)->name, "g");
	assert_int_equal(n->parent, 5);
	assert_int_equal(ct_node(ct, 1)->insns_self, 3);	/* the longjmp */
	n = ct_node(ct, 7);
	assert_string_equal(ct_func(ct, n->func)->name, "g");
	assert_int_equal(n->parent, CT_ROOT);
	assert_int_equal(n->calls, 0);
	ct_free(ct);
}

/* A signal's handler: tracing enabled again at a function's first
 * instruction enters a frame under the interrupted one, with no call (a
 * fault right after a return: in the frame below); its return to the
 * trampoline leaves it, and the trampoline runs in the interrupted. */
static void test_signal(void **state)
{
	const struct ct_node *n;
	struct ct *ct;
	int calls = 0;

	(void)state;
	assert_int_equal(ct_enabled(NULL, 0), -pte_invalid);
	assert_int_equal(ct_new(&ct, resolve, &calls), 0);
	run(ct, 10, 10, CT_C_KNOWN | CT_C_HI | CT_C_EXACT, 100);
	insn(ct, 0x10, 0x1000, CALL);		/* main calls f */
	insn(ct, 0x10, 0x2000, RET);		/* f returns; a fault */
	assert_int_equal(ct_enabled(ct, 0x20), 0);
	insn(ct, 0x20, 0x3000, RET);		/* g, the handler, returns */
	insn(ct, 0x20, 0x4000, OTHER);		/* the trampoline */
	assert_int_equal(ct_enabled(ct, 0x30), 0);
	insn(ct, 0x30, 0x1010, OTHER);		/* main, not a start */
	assert_int_equal(ct_finish(ct), 0);
	/* main > f, main > g */
	assert_int_equal(ct_nnodes(ct), 4);
	n = ct_node(ct, 3);
	assert_string_equal(ct_func(ct, n->func)->name, "g");
	assert_int_equal(n->parent, 1);
	assert_int_equal(n->calls, 1);
	assert_int_equal(n->entries, 1);
	assert_int_equal(ct_func(ct, n->func)->calls, 0);
	assert_int_equal(ct_node(ct, 1)->insns_self, 3);
	ct_free(ct);
}

/* test_return_out's flow: instructions (ip, class), 0 for tracing
 * enabled again elsewhere. */
static const struct { uint64_t ip; int ic; } ret_out_flow[] = {
	{ 0x1000, CALL },	/* main calls f */
	{ 0x2000, RET },	/* f returns */
	{ 0x1005, RET },	/* main returns: out */
	{ 0, 0 },
	{ 0x3000, CALL },	/* g, from the caller: calls f */
	{ 0x2000, RET },	/* f returns; a fault */
	{ 0, 0 },
	{ 0x3010, OTHER },	/* g, not a start */
};

/* Feed ret_out_flow[@from, @to) to @ct. */
static void ret_out_feed(struct ct *ct, size_t from, size_t to)
{
	size_t i;

	for (i = from; i < to; i++) {
		uint64_t off = 0x10 * (i + 1);

		if (ret_out_flow[i].ip)
			insn(ct, off, ret_out_flow[i].ip, ret_out_flow[i].ic);
		else
			assert_int_equal(ct_enabled(ct, off), 0);
	}
}

/* A return out of the traced range from the function the range began in
 * (a kAFL trace's csu_init returning to __libc_start_main, not traced):
 * that function ends, and where tracing is enabled again (main, called
 * from there) is a top-level node, not a handler entered under it (its
 * calls 0, not 1 entry); a return with frames below still lands in the
 * frame below. */
static void test_return_out(void **state)
{
	const struct ct_node *n;
	struct ct *ct;
	int calls = 0;

	size_t n_flow = sizeof(ret_out_flow) / sizeof(ret_out_flow[0]), k;

	(void)state;
	assert_int_equal(ct_new(&ct, resolve, &calls), 0);
	ret_out_feed(ct, 0, n_flow);
	assert_int_equal(ct_finish(ct), 0);
	/* main > f; g > f */
	assert_int_equal(ct_nnodes(ct), 5);
	n = ct_node(ct, 3);
	assert_string_equal(ct_func(ct, n->func)->name, "g");
	assert_int_equal(n->parent, CT_ROOT);
	assert_int_equal(n->calls, 0);
	assert_int_equal(n->entries, 0);
	assert_int_equal(n->insns_self, 2);
	assert_int_equal(ct_node(ct, 1)->insns, 3);	/* main: its own and f's */
	n = ct_node(ct, 4);
	assert_string_equal(ct_func(ct, n->func)->name, "f");
	assert_int_equal(n->parent, 3);
	/* the flow cut anywhere, its rest fed to a fragment merged after
	 * (the code index's): the same tree */
	for (k = 1; k < n_flow; k++) {
		struct ct *t, *f;

		assert_int_equal(ct_new(&t, resolve, &calls), 0);
		assert_int_equal(ct_new_frag(&f, resolve, &calls), 0);
		ret_out_feed(t, 0, k);
		ret_out_feed(f, k, n_flow);
		assert_int_equal(ct_finish(f), 0);
		assert_int_equal(ct_merge(t, f), 0);
		assert_int_equal(ct_finish(t), 0);
		ct_eq_tree(ct, t);
		ct_free(f);
		ct_free(t);
	}
	ct_free(ct);
}

/* Calls that leave the traced range: a stub's jump leaves (TIP.PGD) and
 * tracing is enabled again at the call's return address: the call
 * returned, so three such calls are three calls of one node, not each
 * nested in the one before; an indirect call out whose next instruction
 * is its return address (tracing resumed there) made no frame, one
 * resumed at its target did; an enable elsewhere (not the top frame's
 * return address) pops nothing. */
static void test_call_out(void **state)
{
	const struct ct_node *n;
	struct ct *ct;
	int calls = 0;

	(void)state;
	assert_int_equal(ct_new(&ct, resolve, &calls), 0);
	run(ct, 10, 10, CT_C_KNOWN | CT_C_HI | CT_C_EXACT, 100);
	insn(ct, 0x10, 0x1000, CALL);		/* main calls the stub f */
	insn(ct, 0x10, 0x2000, CT_IC_JUMP);	/* jmp [GOT]: out */
	assert_int_equal(ct_enabled(ct, 0x20), 0);
	insn(ct, 0x20, 0x1005, CALL);		/* back; again */
	insn(ct, 0x20, 0x2000, CT_IC_JUMP);
	assert_int_equal(ct_enabled(ct, 0x30), 0);
	insn(ct, 0x30, 0x100a, CALL);
	insn(ct, 0x30, 0x2000, CT_IC_JUMP);
	assert_int_equal(ct_enabled(ct, 0x40), 0);
	insn(ct, 0x40, 0x100f, CALL);		/* call rax: out, resumed */
	assert_int_equal(ct_resumed(ct), 0);
	insn(ct, 0x50, 0x1011, OTHER);
	insn(ct, 0x50, 0x1012, CALL);		/* f once more */
	insn(ct, 0x50, 0x2000, CT_IC_JUMP);
	assert_int_equal(ct_enabled(ct, 0x60), 0);
	insn(ct, 0x60, 0x1040, CALL);		/* main, elsewhere: in f */
	assert_int_equal(ct_resumed(ct), 0);	/* paused at g's start */
	insn(ct, 0x70, 0x3000, OTHER);
	assert_int_equal(ct_finish(ct), 0);
	/* main > f, called 4 times, > g */
	assert_int_equal(ct_nnodes(ct), 4);
	n = ct_node(ct, 2);
	assert_string_equal(ct_func(ct, n->func)->name, "f");
	assert_int_equal(n->parent, 1);
	assert_int_equal(n->calls, 4);
	assert_int_equal(n->insns_self, 5);
	assert_int_equal(ct_node(ct, 1)->insns_self, 6);
	n = ct_node(ct, 3);
	assert_string_equal(ct_func(ct, n->func)->name, "g");
	assert_int_equal(n->parent, 2);
	assert_int_equal(ct_resumed(NULL), -pte_invalid);
	ct_free(ct);
}

/* An indirect call out whose resume comes after a PSB: the fragment fed
 * from the PSB on (the code index's) has the resume before its first
 * instruction, the call being the tree's; merged, the call made no
 * frame, as in one decode (it made main > main). */
static void test_call_out_frag(void **state)
{
	struct ct *ct, *f;
	int calls = 0, split;

	(void)state;
	for (split = 0; split < 2; split++) {
		assert_int_equal(ct_new(&ct, resolve, &calls), 0);
		assert_int_equal(ct_new_frag(&f, resolve, &calls), 0);
		insn(ct, 0x10, 0x1000, OTHER);		/* main */
		insn(ct, 0x10, 0x100f, CALL);		/* call rax: out */
		assert_int_equal(ct_resumed(split ? f : ct), 0);
		insn(split ? f : ct, 0x20, 0x1011, OTHER);	/* resumed */
		insn(split ? f : ct, 0x20, 0x1012, RET);	/* main returns */
		insn(split ? f : ct, 0x20, 0x3000, OTHER);	/* g, top-level */
		assert_int_equal(ct_finish(f), 0);
		assert_int_equal(ct_merge(ct, f), 0);
		assert_int_equal(ct_finish(ct), 0);
		/* main; g */
		assert_int_equal(ct_nnodes(ct), 3);
		assert_string_equal(ct_func(ct, ct_node(ct, 1)->func)->name, "main");
		assert_int_equal(ct_node(ct, 1)->insns, 4);
		assert_string_equal(ct_func(ct, ct_node(ct, 2)->func)->name, "g");
		assert_int_equal(ct_node(ct, 2)->parent, CT_ROOT);
		ct_free(f);
		ct_free(ct);
	}
}

/* "outer" 0x1000-0x1100 with "inner" 0x1040-0x1080 nested in it (an
 * assembly function's .size covering another), "main" at 0x2000: what
 * symfmt answers, [from, until) short of the nested one. */
static int resolve_nested(void *ctx, uint64_t asid, uint64_t ip,
			  struct symfmt_fn *fn)
{
	(void)ctx;
	(void)asid;
	memset(fn, 0, sizeof(*fn));
	fn->kind = SYMFMT_FUNC;
	if (ip >= 0x1040 && ip < 0x1080) {
		fn->name = "inner";
		fn->start = fn->from = 0x1040;
		fn->end = fn->until = 0x1080;
	} else if (ip >= 0x1000 && ip < 0x1100) {
		fn->name = "outer";
		fn->start = 0x1000;
		fn->end = 0x1100;
		fn->from = ip < 0x1040 ? 0x1000 : 0x1080;
		fn->until = ip < 0x1040 ? 0x1040 : 0x1100;
	} else if (ip >= 0x2000 && ip < 0x2100) {
		fn->name = "main";
		fn->start = fn->from = 0x2000;
		fn->end = fn->until = 0x2100;
	} else {
		return -pte_invalid;
	}
	return 0;
}

/* Code of a function nested in another is the nested one's: a call from
 * outer into inner is a node of inner, whichever was seen first. */
static void test_nested_function(void **state)
{
	struct ct *ct;
	uint32_t i, inner = CT_NONE;

	(void)state;
	assert_int_equal(ct_new(&ct, resolve_nested, NULL), 0);
	run(ct, 10, 10, CT_C_KNOWN | CT_C_HI | CT_C_EXACT, 1000);
	insn(ct, 0x10, 0x2000, CALL);
	insn(ct, 0x10, 0x1000, OTHER);
	insn(ct, 0x10, 0x1001, CALL);
	insn(ct, 0x10, 0x1040, OTHER);
	insn(ct, 0x10, 0x1041, RET);
	insn(ct, 0x10, 0x1002, RET);
	insn(ct, 0x10, 0x2001, CALL);
	insn(ct, 0x10, 0x1050, RET);
	insn(ct, 0x10, 0x2002, OTHER);
	assert_int_equal(ct_finish(ct), 0);
	assert_int_equal(ct_nfuncs(ct), 3);
	for (i = 0; i < ct_nfuncs(ct); i++)
		if (!strcmp(ct_func(ct, i)->name, "inner"))
			inner = i;
	assert_int_not_equal(inner, CT_NONE);
	assert_int_equal(ct_func(ct, inner)->insns, 3);
	assert_int_equal(ct_func(ct, inner)->calls, 2);
	ct_free(ct);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_flat),
		cmocka_unit_test(test_sum_str),
		cmocka_unit_test(test_time_mark),
		cmocka_unit_test(test_outside_run),
		cmocka_unit_test(test_deep),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_break_all),
		cmocka_unit_test(test_all_lost),
		cmocka_unit_test(test_many_parts),
		cmocka_unit_test(test_unwind),
		cmocka_unit_test(test_signal),
		cmocka_unit_test(test_return_out),
		cmocka_unit_test(test_call_out),
		cmocka_unit_test(test_call_out_frag),
		cmocka_unit_test(test_nested_function),
		cmocka_unit_test(test_open_at_end),
		cmocka_unit_test(test_entry_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
