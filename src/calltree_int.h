/*
 * calltree_int -- the layout of a struct ct, shared by calltree.c (feeding
 * a tree or fragment) and ctfrag.c (merging and packing fragments).
 *
 * A fragment is a tree fed from a point where the call stacks are unknown.
 * Each thread's stack is then "relative": the frames of the tree it will
 * be merged into lie below its own.  What the fragment cannot decide alone
 * it records as ops, replayed at merge by the very code that feeds a tree
 * (ct_move(), ct_forget()):
 *   - a move at the base: an instruction whose thread's pending call or
 *     return is the merged-into tree's (the thread's first instruction),
 *     or a return from a frame entered before the fragment.  Its
 *     instruction, and those after it at that level, count in a "level
 *     node": a node with no parent that stands for the merged-into
 *     tree's stack top after the move; calls from there are its
 *     children.
 *   - a break: the merged-into tree's frames of that thread are closed.
 *   - a break of all: every thread's frames of the merged-into tree are
 *     closed (an overflow: threads the fragment never saw may have run).
 *   - an enable (ct_enabled()) on a thread before its first instruction:
 *     what the merged-into tree has pending is settled as ct_enabled()
 *     settles it.
 *   - a resume (ct_resumed()) there: a call out of the traced range the
 *     merged-into tree has pending (a PSB came before tracing resumed)
 *     may come back at the next instruction, as ct_resumed() says.
 * A node's graft root (groot) is the level node (or the root) it hangs
 * under.  Nodes under one graft root land on distinct nodes of the tree
 * merged into; nodes under different ones may land on the same (two
 * levels that are one top-level node, two threads' stacks that hold one
 * node), so a run whose instructions span graft roots cannot be split
 * between its nodes before the merge: it is kept whole (an xrun) and
 * split then, as the whole flow would have split it.
 * TSC: frames pushed before the fragment's first TSC have the TSC before
 * it (have_tsc 0 in a fragment); their returns once a TSC is known are
 * kept as ticks, to count from that TSC at the merge.
 */
#ifndef CALLTREE_INT_H
#define CALLTREE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "calltree.h"

#define CT_MAX_DEPTH	1024	/* frames kept; deeper calls are counted in
				 * the deepest (see ct_truncated()) */
#define CT_PARTS	16	/* nodes (functions) a run is split between,
				 * room made for at first (more are kept) */
#define CT_IPC		4096	/* instructions whose function is kept (a
				 * power of two) */
#define CT_PEND_ASYNC	16	/* pending: an asynchronous entry
				 * (ct_enabled()) */
#define CT_PEND_UNKNOWN	(-1)	/* a fragment's thread before its first
				 * instruction: the pending call or return
				 * is the merged-into tree's */

/* A frame of the call stack. */
struct ct_frame {
	uint32_t node;
	uint64_t tsc;		/* at the call, if have_tsc */
	uint8_t have_tsc;	/* in a fragment, 0: called before its first
				 * TSC (so at the TSC before it) */
	uint64_t call_ip;	/* its call instruction's address (0: none,
				 * a top-level node's), where returns to it
				 * land after */
	uint8_t async;		/* entered without a call (a signal's
				 * handler): returns do not pass it */
};

/* The call stack of one thread. */
struct ct_stack {
	uint64_t key;		/* the thread (ct_thread()) */
	struct ct_frame *fr;
	size_t depth, cap;
	uint64_t lost_depth;	/* calls deeper than CT_MAX_DEPTH, open */
	int pending;		/* its last instruction: CT_IC_CALL/RETURN/
				 * JUMP/0, or CT_PEND_UNKNOWN */
	uint64_t call_ip;	/* a pending call's address */
	uint8_t resumed;	/* ct_resumed() with a call pending: the next
				 * move decides */
	uint32_t jump_func;	/* a pending jump's function (CT_NONE:
				 * unknown, not the one it lands in) */
	uint64_t plt_start;	/* the PLT stub a pending call went through
				 * (0: none) */
	uint64_t lazy;		/* resolving a lazy binding (ct_lazy()) for
				 * a call from depth lazy - 1; 0: not */
	uint64_t lazy_call_ip;	/* that call's address */
	uint32_t level;		/* fragment: the level node at the base
				 * (CT_NONE: none yet) */
	uint8_t relative;	/* fragment: the merged-into tree's frames lie
				 * below (until a break) */
	uint8_t ret_out;	/* fragment: the level is where a return to
				 * where is not known landed (ct_enabled()),
				 * which may have left the tree's bottom
				 * frame: the next move is the tree's */
	uint8_t inherit;	/* fragment: the thread the merged-into tree
				 * is on (its key unknown) */
	uint64_t last_tsc;	/* the TSC of its last instruction fed, if
				 * last is CT_LAST_TSC: its calls still
				 * open at the end count up to it */
	uint8_t last;		/* enum ct_last */
};

/* What a stack knows of its last instruction's TSC. */
enum ct_last {
	CT_LAST_NONE,		/* none fed with a TSC */
	CT_LAST_TSC,		/* last_tsc */
	CT_LAST_BEFORE,		/* fragment: fed before its first TSC only
				 * (at the TSC before it, known at the
				 * merge) */
};

/* The instructions of the open run per node (or function), in order of
 * first instruction. */
struct ct_parts {
	uint32_t *id;
	uint64_t *n;
	size_t nparts, cap;
	size_t last;		/* the part added to last (a run's instructions
				 * mostly go to one) */
};

/* An instruction's function, kept: code without a symbol (a segment)
 * has no range that answers for its other instructions, and the lookup
 * by name costs hundreds of instructions per instruction. */
struct ct_ipc {
	uint64_t ip, asid;
	uint64_t until;		/* the answer holds for [ip, until) */
	uint32_t func;		/* its index + 1; 0: an empty slot */
};

/* A hash table from a 64-bit key (never 0) to an index. */
struct ct_map {
	uint64_t *key;
	uint32_t *val;
	size_t cap, n;		/* cap a power of two */
};

/* What a fragment records for the merge (see above). */
enum ct_op_kind { CT_OP_MOVE, CT_OP_BREAK, CT_OP_BREAK_ALL, CT_OP_ENABLE,
		  CT_OP_RESUMED };

struct ct_op {
	uint64_t offset;	/* MOVE: its instruction's */
	uint64_t ip;		/* MOVE: its instruction's address (where a
				 * return or jump lands) */
	uint64_t tsc;		/* the fragment's TSC then, if have_tsc */
	uint32_t stack;		/* the thread: an index into stacks */
	uint32_t func;		/* MOVE: its instruction's function */
	uint32_t node;		/* MOVE: the level node it starts */
	uint8_t kind;		/* enum ct_op_kind */
	uint8_t have_tsc;
	int8_t pending;		/* MOVE: CT_IC_RETURN, CT_IC_JUMP or
				 * CT_PEND_ASYNC, or CT_PEND_UNKNOWN
				 * (the merged-into tree's) */
};

/* A return, once the TSC was known, from a frame called before it. */
struct ct_tick {
	uint32_t node;
	uint64_t tsc;
};

/* A run kept whole: its cycles and its parts xpart[first, first + n). */
struct ct_xrun {
	struct ct_cyc cyc;
	uint8_t have_cyc;	/* 0: unknown */
	uint32_t first, n;
};

struct ct_xpart {
	uint32_t node;
	uint64_t n;
};

struct ct {
	ct_resolve_fn resolve;
	void *rctx;
	struct ct_node *nodes;
	size_t nnodes, cap_nodes;
	uint32_t *last_child;	/* per node (cap_nodes): where the next
				 * child is appended, if it has one */
	struct ct_func *funcs;
	size_t nfuncs, cap_funcs;
	struct ct_map node_map;		/* (parent, func) -> node */
	struct ct_map func_map;		/* (start, kind, name) -> func */
	struct ct_stack *stacks;	/* one per thread; [0] the first */
	size_t nstacks, cap_stacks;
	struct ct_stack *st;	/* the current thread's */
	int truncated;
	/* the TSC of the instructions fed (the root's time is from the
	 * first to the last: threads' calls overlap) */
	uint64_t span_lo, span_hi;
	uint8_t have_span;
	uint8_t untimed_first;	/* fragment: instructions were fed before
				 * its first TSC (at the TSC before it) */
	uint64_t breaks;	/* ct_break_all()s: the flow broke, code was
				 * lost (a merge replays a fragment's) */
	/* the open run */
	int in_run;
	struct ct_cyc cyc;
	uint64_t tsc;
	uint8_t have_tsc;
	struct ct_parts pn, pf;	/* its nodes and functions */
	/* the last function resolved, and the addresses [last_lo,
	 * last_until) it holds for certain (a symbol's range, or code of a
	 * segment without symbols): they answer again */
	uint64_t last_asid, last_lo, last_until;
	uint32_t last_func;
	struct ct_ipc *ipc;	/* CT_IPC slots, by address */
	int finished;
	/* a fragment's (see above) */
	int frag;
	uint32_t *groot;	/* per node; cap_nodes of them */
	struct ct_op *ops;
	size_t nops, cap_ops;
	struct ct_tick *ticks;
	size_t nticks, cap_ticks;
	struct ct_xrun *xruns;
	size_t nxruns, cap_xruns;
	struct ct_xpart *xparts;
	size_t nxparts, cap_xparts;
	struct ct_pack *pack;	/* a finished fragment's fields, packed (the
				 * arrays above then freed) */
};

/* A packed fragment (ctfrag.c): its fields as varints. */
struct ct_pack {
	size_t len;
	uint8_t data[];
};

/* calltree.c's, for ctfrag.c.  Each returns 0 or -pte_nomem unless said. */

/* Make room for element @n of an array *@p of *@cap elements of @size. */
int ct_grow(void **p, size_t *cap, size_t n, size_t size);

/* The function (@name, [@start, @end), @kind) as resolved: its index,
 * made if new, or CT_NONE out of memory. */
uint32_t ct_func_intern(struct ct *ct, const char *name, uint64_t start,
			uint64_t end, uint8_t kind);

/* The child of @parent for function @func, made if new (@offset its
 * first instruction's): its index, or CT_NONE out of memory. */
uint32_t ct_child(struct ct *ct, uint32_t parent, uint32_t func,
		  uint64_t offset);

/* Move the current thread in the tree for an instruction of @func at @ip
 * after its pending call, return or jump. */
int ct_move(struct ct *ct, uint32_t func, uint64_t offset, uint64_t ip);

/* ct_enabled() on the current thread (a merge replays it). */
int ct_enable_move(struct ct *ct, uint64_t offset);

/* The current thread's stack top node (after a ct_move()). */
uint32_t ct_stack_top(const struct ct *ct);

/* Push a frame for @node at TSC @tsc (if @have_tsc) on the current
 * thread's stack, or count it as lost past CT_MAX_DEPTH. */
int ct_push_at(struct ct *ct, uint32_t node, uint64_t tsc, uint8_t have_tsc,
	       uint64_t call_ip, uint8_t async);

/* Forget the current thread's stack, closing its calls. */
int ct_forget(struct ct *ct);

/* Close the open run: give its cycles to its parts. */
int ct_close_run(struct ct *ct);

/* Add @n instructions of @id to @p. */
int ct_parts_add(struct ct_parts *p, uint32_t id, uint64_t n);

/* Give the cycles @c (NULL: unknown) of the run whose node parts are @p
 * to them: split now, or kept whole in a fragment whose parts span graft
 * roots.  @p is emptied. */
int ct_parts_close_nodes(struct ct *ct, struct ct_parts *p,
			 const struct ct_cyc *c);

/* Widen @ct's span of instruction TSCs to @tsc. */
void ct_span_add(struct ct *ct, uint64_t tsc);

/* Free @ct's nodes, functions, stacks and what a fragment records, and
 * count none. */
void ct_free_arrays(struct ct *ct);

/* The stack of thread @key, made if new: its index, or -pte_nomem. */
long ct_stack_of(struct ct *ct, uint64_t key);

#endif /* CALLTREE_INT_H */
