/*
 * calltree -- the call tree and the flat function profile of a range of
 * the instruction flow: for the function view, `ptbrowse calls` and region
 * summaries.
 *
 * Fed the flow in order -- runs (the instructions one packet decided,
 * with the cycles they took: flow.h's windows) and their instructions --
 * it builds:
 *   - the tree: a node per call path (a callee under its caller, as perf
 *     report's call graph; recursion nests), with how often it was
 *     called, its instructions and cycles (self and with its callees),
 *     the time from call to return (the deciding packets' estimated TSC)
 *     and the offset of its first call, to jump to.  A call instruction
 *     belongs to its caller; the callee's node starts with the
 *     instruction after it (after the PLT stub it went through, whose
 *     instructions are the caller's; the first call through a lazily
 *     bound stub goes on through the PLT's start and the dynamic
 *     linker's resolver, whose instructions are the caller's too, and
 *     whose own calls are the caller's callees; a callee in code without
 *     symbols is named by its entry, "file+0xoff", the offset in its
 *     file, so distinct ones are distinct nodes).  Each thread has its own stack
 *     (ct_thread()).  A return from a function entered before the
 *     range (or after the flow broke) starts a new top-level node, called
 *     0 times: its calls are not in the range.
 *   - the flat profile: per function (the symbol holding each
 *     instruction, so a tail call or a PLT stub's jump counts in the
 *     function it reaches), its instructions, cycles and the calls into
 *     it.
 *
 * Cycles are never invented.  A run's cycles are exact, bounded (between
 * lo and hi, or at least lo), or unknown (the flow broke, no CYC); a run
 * whose instructions lie in one node (function) gives that node its
 * cycles as they are; a run shared between several is split by
 * instruction count, and the shares are marked as such (CT_S_SHARED).
 * Splits are in whole cycles with the remainder to the last part, so the
 * parts add up to the run: the root's cycles are the sum of the runs'.
 *
 * Instructions come one by one (ct_insn()) or a block of straight-line
 * code at once (ct_block()).  A long range's tree can be made of pieces:
 * fragments (ct_new_frag(), below), each the tree of a stretch of flow
 * fed where the call stacks are unknown, merged in order (ct_merge())
 * into the same tree one decode of the whole range makes.  calltree.c
 * feeds trees and fragments; ctfrag.c merges and packs fragments
 * (calltree_int.h: what a fragment records, and why).
 */
#ifndef CALLTREE_H
#define CALLTREE_H

#include <stddef.h>
#include <stdint.h>

struct ct;
struct symfmt_fn;

/* A run's cycles, as flow.h's struct flow_cyc (same flags). */
enum ct_cyc_flag {
	CT_C_KNOWN = 1 << 0,	/* lo is a lower bound (else nothing known) */
	CT_C_HI = 1 << 1,	/* hi is an upper bound (else unbounded) */
	CT_C_EXACT = 1 << 2,	/* lo == hi: exact */
};

struct ct_cyc {
	uint64_t lo, hi;
	uint8_t flags;		/* enum ct_cyc_flag */
};

/* A sum of cycles over runs and shares of runs. */
enum ct_sum_flag {
	CT_S_BOUNDED = 1 << 0,	/* a bounded run is in it: in [lo, hi] */
	CT_S_OPEN = 1 << 1,	/* a run without an upper bound: hi means
				 * nothing, at least lo */
	CT_S_SHARED = 1 << 2,	/* shares of runs split by instruction count
				 * are in it */
	CT_S_LOST = 1 << 3,	/* the root's, after ct_finish(): the flow
				 * broke in the range (ct_breaks()), so code
				 * it ran is in no count */
};

struct ct_sum {
	uint64_t lo, hi;	/* equal when exact */
	uint64_t unknown;	/* instructions whose cycles are unknown */
	uint64_t known;		/* instructions whose cycles are counted */
	uint32_t flags;		/* enum ct_sum_flag */
};

#define CT_NONE UINT32_MAX
#define CT_ROOT 0		/* the root node: the whole range */

/* A function of the flat profile. */
struct ct_func {
	const char *name;	/* from the resolver; lives as long as it says */
	uint64_t start, end;	/* its range (a code segment's when it has no
				 * symbol; from its entry for a callee there,
				 * named "file+0xoff": such a function holds
				 * no instruction, the segment does, and is
				 * left out of ct_top()) */
	uint8_t kind;		/* enum symfmt_kind */
	uint8_t plt;		/* a PLT stub ("name@plt"): a call through it
				 * calls where it jumps, and it is counted in
				 * the caller's node */
	uint64_t insns;		/* instructions in it */
	uint64_t calls;		/* calls into it */
	struct ct_sum cyc;	/* their cycles */
};

/* A node of the tree. */
struct ct_node {
	uint32_t parent;	/* CT_NONE for the root */
	uint32_t func;		/* index of its function; CT_NONE: the root */
	uint32_t first_child, next_sibling;	/* CT_NONE: none; children
						 * in order of first call */
	uint32_t depth;		/* the root 0, top-level nodes 1 */
	uint64_t calls;		/* calls into it (0: entered before) */
	uint64_t entries;	/* entries without a call (a signal handler's,
				 * ct_enabled()): in calls too */
	uint64_t insns_self, insns;	/* its own; with its callees' */
	struct ct_sum self, total;	/* cycles, likewise */
	uint64_t tsc_ticks;	/* TSC ticks from its calls to their returns
				 * (estimated from the deciding packets;
				 * calls still open at the end count as
				 * ct_finish() says: a lower bound) */
	uint64_t open;		/* its calls still open at the end of the
				 * range (ct_finish()), 0 before: its time
				 * is then at least tsc_ticks (shown after
				 * ">=") */
	uint64_t offset;	/* its first instruction's deciding packet */
};

/* The function holding @ip in address space @asid into @fn (symfmt.h's
 * symfmt_function() fits, with a struct symfmt as @ctx).
 * Returns 0, or a negative pte code (then the instruction is counted
 * under "(unknown)"). */
typedef int (*ct_resolve_fn)(void *ctx, uint64_t asid, uint64_t ip,
			     struct symfmt_fn *fn);

/* A ct_resolve_fn over a struct symfmt (@sf): symfmt_function(). */
int ct_resolve_symfmt(void *sf, uint64_t asid, uint64_t ip,
		      struct symfmt_fn *fn);

/* An empty tree whose functions come from @resolve(@ctx, ...).
 * Returns 0 and sets *@out, or -pte_nomem, or -pte_invalid for NULL
 * @out or @resolve. */
int ct_new(struct ct **out, ct_resolve_fn resolve, void *ctx);

/* Free @ct (NULL is fine). */
void ct_free(struct ct *ct);

/* Start a run: the instructions given next (up to the next ct_run(),
 * ct_break() or ct_finish()) took @cyc cycles together (NULL: unknown);
 * @tsc (if @have_tsc) is its deciding packet's estimated TSC.
 * Returns 0, or -pte_nomem, or -pte_invalid if @ct is NULL or finished. */
int ct_run(struct ct *ct, const struct ct_cyc *cyc, uint64_t tsc,
	   int have_tsc);

/* Instruction classes ct_insn() tells apart: the values of flow.h's enum
 * flow_iclass for near calls, returns and indirect jumps (give a direct
 * jump as any other class).  A call pushes a frame that remembers where
 * it returns to; a return pops the frames up to the one whose call
 * returns where it lands (a longjmp by return skips some), or, where none
 * does, all of them (the code after it starts a top-level node, called 0
 * times: the stack was not what ran); an indirect jump into a function
 * past its start (not a tail call: a longjmp, an exception's landing
 * pad) other than the top frame's pops the frames above the topmost
 * frame of that function, or all of them if none is.
 * Far transfers (system calls, interrupts) do not move in the tree:
 * with user-only tracing their targets are not traced, and the flow
 * comes back after them. */
enum ct_iclass { CT_IC_CALL = 2, CT_IC_RETURN = 3, CT_IC_JUMP = 4 };

/* The next instruction of the flow: at @ip of address space @asid,
 * decided by the packet at @offset, of class @iclass (any flow.h class;
 * near calls and returns move in the tree, the rest do not).  An
 * instruction outside a run has unknown cycles.
 * Returns 0, or -pte_nomem, or -pte_invalid if @ct is NULL or finished. */
int ct_insn(struct ct *ct, uint64_t offset, uint64_t asid, uint64_t ip,
	    int iclass);

/* How many of a block's instructions (ct_block()) lie below @addr. */
typedef uint32_t (*ct_count_fn)(const void *ctx, uint64_t addr);

/* A block's instruction sizes, for ct_count_sizes(). */
struct ct_sizes {
	uint64_t ip;		/* its first instruction's address */
	const uint8_t *sizes;	/* each instruction's length in bytes */
	uint32_t n;		/* how many */
};

/* A ct_count_fn over a struct ct_sizes (@ctx): a walk of the sizes.
 * Returns the number of instructions below @addr. */
uint32_t ct_count_sizes(const void *ctx, uint64_t addr);

/* @ninsns consecutive instructions of address space @asid from @ip to
 * @last_ip (the last one's address), decided by the packet at @offset:
 * the same tree and flat profile as ct_insn() for each, the last of class
 * @iclass, the others of none that moves in the tree (a block of
 * straight-line code).  The function holding @ip is resolved once; where
 * the block runs past its end, @count(@cctx, end) tells how many of the
 * block's instructions lie below it (and code without a symbol, rare, is
 * resolved per instruction, its addresses found by @count).  @count may
 * be NULL when @ninsns is 1; ct_count_sizes() fits a line's sizes.
 * Returns 0 (nothing for @ninsns 0), or -pte_nomem, or -pte_invalid if
 * @ct is NULL or finished, or @ninsns > 1 without @count or with
 * @last_ip <= @ip. */
int ct_block(struct ct *ct, uint64_t offset, uint64_t asid, uint64_t ip,
	     uint64_t last_ip, uint32_t ninsns, int iclass, ct_count_fn count,
	     const void *cctx);

/* The instructions that follow are thread @key's (a tid, say): each
 * thread has its own call stack, so a context switch on a CPU's stream
 * does not end the calls of the thread switched out, and they go on when
 * it comes back.  Before the first call, the thread is 0.
 * Returns 0, or -pte_nomem, or -pte_invalid if @ct is NULL or finished. */
int ct_thread(struct ct *ct, uint64_t key);

/* Tracing was enabled again, on the thread and in the address space of
 * the instruction before, not where it stopped (flow.h's FLOW_F_RESUMED
 * unset): if the next instruction is a function's first (a signal's
 * handler, entered with no call), it enters a frame of its own, under
 * the one it interrupted, counted in calls and entries; its return (to
 * the signal trampoline), or any return that reaches its frame without
 * landing where a call above returns, leaves through that frame, so the
 * trampoline and the code from the interrupted address on count in the
 * interrupted function (code without symbols cannot tell a handler's
 * first instruction: it runs in the interrupted function).  A return
 * just before tracing stopped (a fault after it) lands in the frame
 * below (the flow does not say where); a call or jump pending then went
 * nowhere traced.  @offset: the next instruction's deciding packet.
 * Returns 0, or -pte_nomem, or -pte_invalid if @ct is NULL or finished. */
int ct_enabled(struct ct *ct, uint64_t offset);

/* Tracing was enabled again where it stopped (flow.h's FLOW_F_RESUMED):
 * if a call is pending and the next instruction is where it returns to,
 * the call left the traced range (an indirect call out) and came back,
 * so it makes no frame (at a function's first instruction, the call's
 * target, tracing merely paused: the frame is made).
 * Returns 0, or -pte_invalid if @ct is NULL or finished. */
int ct_resumed(struct ct *ct);

/* The flow of the current thread broke (left a restriction's range): the
 * open run ends with its cycles as given, and the call stack is forgotten
 * (the next instruction starts a top-level node; other threads' stacks
 * stay).  Tracing disabled and enabled again is no break: the stack
 * stays.  Returns 0, or -pte_invalid. */
int ct_break(struct ct *ct);

/* The flow broke (an overflow, a decode error): as ct_break(), but every
 * thread's stack is forgotten (any of them may have run in what was lost),
 * in a fragment those of the tree it merges into too.
 * Returns 0, or -pte_nomem, or -pte_invalid. */
int ct_break_all(struct ct *ct);

/* Thread @key comes in (as ct_thread()) after running where this flow
 * does not see it (another CPU): its stack is forgotten (closing its
 * calls), so its next return starts a top-level node rather than popping
 * a frame it returned from elsewhere.
 * Returns 0, or -pte_nomem, or -pte_invalid if @ct is NULL or finished. */
int ct_thread_lost(struct ct *ct, uint64_t key);

/* End the range: close the open run and calls, sum the nodes' totals.
 * A call still open is counted in its node's open, its time a lower
 * bound: up to its thread's last instruction (its run's TSC), not the
 * end of the range, which would count the time a thread switched out
 * spent on other CPUs, or not running, as the call's.
 * Nothing can be fed after it.  Returns 0, or -pte_invalid. */
int ct_finish(struct ct *ct);

/* The nodes (index 0 the root) and the functions, after ct_finish()
 * (NULL for an index out of range). */
size_t ct_nnodes(const struct ct *ct);
const struct ct_node *ct_node(const struct ct *ct, uint32_t i);
size_t ct_nfuncs(const struct ct *ct);
const struct ct_func *ct_func(const struct ct *ct, uint32_t i);

/* Whether a stack deeper than the tree keeps was met (deeper calls were
 * counted in the deepest node kept). */
int ct_truncated(const struct ct *ct);

/*
 * Fragments: the tree of one piece of a flow, fed where the call stacks
 * are unknown, to be merged into the tree (or a bigger fragment) of what
 * came before it.  Merging the fragments of pieces P1..Pn of a flow in
 * order into an empty tree, then ct_finish(), gives the tree and flat
 * profile of feeding the whole flow to one tree, every field, if:
 *   - the pieces are cut where no run is open: a piece's first
 *     instructions before its ct_run() have unknown cycles, as in any
 *     tree (cut at a PSB, where a run ends: a run belongs to the piece
 *     that fed it);
 *   - no stack goes deeper than the tree keeps (else the calls past it
 *     are folded into the deepest node kept, as ct does, and ct_truncated()
 *     says so, but the shares of runs split between folded nodes, and the
 *     depth it starts at, may differ from the whole flow's).
 * Merging is associative: (P1 + P2) + P3 gives P1 + (P2 + P3).
 * A fragment's names are its resolver's: they must outlive the fragment
 * and every tree merged from it (one struct symfmt per code index, say).
 * Functions are matched between trees by range start, kind and name (as
 * within a tree, the address space is not part of a function).
 */

/* An empty fragment whose functions come from @resolve(@ctx, ...): fed as
 * a tree (ct_run(), ct_insn(), ct_block(), ct_thread(), ct_break()) and
 * finished with ct_finish(), but its flow follows an unknown one: its
 * first instructions are on the thread the tree it merges into is on
 * (until its first ct_thread()), returns from frames entered before it
 * close the merged-into tree's frames, and a break closes them all; the
 * calls open at its end stay open, to go on in the tree.  ct_finish()
 * packs it (what ct_merge() needs, as varints: ct_frag_bytes()), so a
 * finished fragment shows no nodes or functions (ct_nnodes() 0).
 * Returns 0 and sets *@out, or -pte_nomem, or -pte_invalid for NULL
 * @out or @resolve. */
int ct_new_frag(struct ct **out, ct_resolve_fn resolve, void *ctx);

/* Apply finished fragment @frag to @dst (a tree or fragment, not
 * finished) as if @frag's flow had been fed to @dst right after what
 * @dst was fed: @dst's open run ends first; returns close @dst's open
 * frames of their thread (where it has none, a new top-level node called
 * 0 times, as in a tree); @frag's nodes graft under @dst's stack top;
 * the flat profile, cycle sums (with their flags), calls, instructions
 * and times add; a node's first call stays the earlier; thread switches
 * and breaks apply in order; @frag's open calls go on in @dst.  @frag
 * is unchanged: threads may merge one finished fragment into their own
 * trees at once.
 * Returns 0, or -pte_nomem (then @dst is half merged: free it), or
 * -pte_invalid for a NULL, finished @dst or an unfinished @frag, @frag
 * not a fragment or @dst itself, or a @frag that fed instructions before
 * its first ct_thread() and later switched to the key of the thread @dst
 * is on (one stack in the whole flow, two in @frag: call ct_thread()
 * before a fragment's first instruction). */
int ct_merge(struct ct *dst, const struct ct *frag);

/* The bytes a finished fragment @frag holds, packed (0 for NULL). */
size_t ct_frag_bytes(const struct ct *frag);

/* A finished fragment's packed form apart from it (a finished fragment
 * holds one already: this saves the struct ct around it).  It holds the
 * resolver's name pointers: it lives in this process, no longer than
 * they do. */
struct ct_pack;

/* A copy of finished fragment @frag's pack into *@out.
 * Returns 0, or -pte_nomem, or -pte_invalid for NULL arguments or @frag
 * not a finished fragment. */
int ct_frag_pack(const struct ct *frag, struct ct_pack **out);

/* The bytes pack @p holds (0 for NULL). */
size_t ct_pack_bytes(const struct ct_pack *p);

/* Free @p (NULL is fine). */
void ct_pack_free(struct ct_pack *p);

/* What a function's name becomes in ct_pack_map(): NULL refuses it. */
typedef const char *(*ct_name_map_fn)(void *ctx, const char *name);

/* A copy of pack @p into *@out with each function's name @map(@ctx, name)
 * (a pack saved to a file holds name numbers, mapped back to strings when
 * read: this is how either is made).  Reading @p checks every count and
 * index against its length and its own tables, and what a merge relies
 * on (ops, level nodes and stacks as feeding makes them), not the
 * meaning of the counts: a file's pack must also pass its file's
 * checksum.
 * Returns 0; -pte_invalid for NULL arguments or a name @map refuses;
 * -pte_bad_file for a pack that does not read back or that no feeding
 * makes; -pte_nomem. */
int ct_pack_map(const struct ct_pack *p, ct_name_map_fn map, void *ctx,
		struct ct_pack **out);

/* Pack @p's bytes (*@len of them). */
const void *ct_pack_data(const struct ct_pack *p, size_t *len);

/* A pack of @len bytes copied from @data into *@out (unchecked: read it
 * through ct_pack_map() before merging it).  Returns 0, -pte_invalid for
 * NULL arguments, or -pte_nomem. */
int ct_pack_new(const void *data, size_t len, struct ct_pack **out);

/* ct_merge() of the fragment packed in @p.
 * Returns what ct_merge() returns, or -pte_invalid for a NULL argument,
 * or -pte_internal for a pack that does not read back (a bug), or
 * -pte_nomem. */
int ct_merge_pack(struct ct *dst, const struct ct_pack *p);

/* How often the flow broke in the range, after ct_finish(): decode
 * errors and overflows (ct_break_all()), where code ran that is in no
 * count (0 for NULL).  With instructions 0, none was decoded. */
uint64_t ct_breaks(const struct ct *ct);

/* The mark before node @node's time (struct ct_node.tsc_ticks) after
 * ct_finish(), as the panes mark a packet's time: "~", an estimate (its
 * calls' and returns' deciding packets' estimated TSCs, never a TSC or
 * MTC packet's own), or "?": unknown, to be shown instead of the time,
 * where no TSC was fed or the estimate did not move while it ran (0
 * ticks: no CYC or MTC timing between the TSCs, so every packet of a PSB
 * segment has its TSC).  "?" for NULL or a node out of range.  A node
 * whose calls were still open at the end (struct ct_node.open) has at
 * least that time: ">=" goes before the mark. */
const char *ct_time_mark(const struct ct *ct, uint32_t node);

/* Orders for ct_top() and ct_children(). */
enum ct_order { CT_BY_CYCLES, CT_BY_INSNS, CT_BY_CALLS };

/* The functions holding instructions sorted by @order (descending; ties
 * by name), the first @max of them (0: all) into @idx.  Returns how many
 * were written. */
size_t ct_top(const struct ct *ct, enum ct_order order, uint32_t *idx,
	      size_t max);

/* The children of node @node sorted by @order (by total cycles, total
 * instructions or calls; descending), at most @max into @idx.  Returns
 * how many were written. */
size_t ct_children(const struct ct *ct, uint32_t node, enum ct_order order,
		   uint32_t *idx, size_t max);

/* A sum's cycles as text into @buf: "1234" exact, "~1234" a sum with
 * shares split by instruction count (exact in total, not in the split),
 * "1234-1300" bounded, ">=1234" at least, "?" nothing known; then "+?"
 * when some instructions' cycles are unknown or code was lost
 * (CT_S_LOST; then "?", not "0", when none is known).  Returns @buf. */
const char *ct_sum_str(const struct ct_sum *s, char *buf, size_t size);

#endif /* CALLTREE_H */
