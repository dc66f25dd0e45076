/*
 * flow -- the instruction flow: every instruction a trace says was executed,
 * from any PSB, with the packet that decided it.
 *
 * Packets (pkt.h, over an image of spans, image.h) give the branches:
 * conditional branches take TNT bits, indirect branches and uncompressed
 * returns take TIP, compressed returns pop the call stack (empty at every
 * sync point), FUP + TIP give far transfers, interrupts and exceptions,
 * TIP.PGE/TIP.PGD enable and disable, OVF resynchronises, MODE.EXEC sets
 * 16-, 32- or 64-bit mode, MODE.TSX begins, commits and aborts, PTWRITE,
 * EXSTOP and MWAIT bind to their FUP, PWRE/PWRX/STOP/CBR/MNT stand alone.
 * The code comes from the caller through a read callback (no I/O here) and
 * is decoded with Zydis; decoded basic blocks are cached by (address space,
 * address, mode) in a table of fixed size, so code run again costs one
 * lookup.  While no event is pending, an instruction inside a cached
 * block costs a step, and the branch that ends it a cached TNT bit (or,
 * direct, nothing); block windows (below) step over a whole block at
 * once (bench/bench_flow.c --blocks).
 *
 * The semantics are libipt's instruction decoder's (libipt 2.0, errata
 * off), event for event and error for error, including where an error is
 * reported: at the query position, i.e. past the packets read ahead.  After
 * an error, decoding resumes at the next PSB, as ptxed does.  The one
 * deliberate difference: the call stack for compressed returns is emptied
 * at every PSB met while decoding (the processor never compresses a return
 * across a PSB), so decoding from a PSB gives what decoding from the start
 * gives from there on.
 *
 * Each record carries the offset of the packet whose bytes decided it: for
 * an instruction, the TNT, TIP, TIP.PGE, FUP or OVF that last moved the
 * flow before it (so the instructions after a branch sit under the packet
 * that took it); for an event, the packet that produced it; for an error,
 * libipt's query position.
 */
#ifndef FLOW_H
#define FLOW_H

#include <stddef.h>
#include <stdint.h>

#include "image.h"
#include "tm.h"
#include "tm_config.h"

struct flow;

/* What the decoder knows of the context when it asks for code. */
struct flow_ctx {
	uint64_t cr3;		/* PIP's CR3 (in place), if have_cr3 */
	uint64_t vmcs;		/* the VMCS base, if have_vmcs */
	uint64_t offset;	/* the offset of the packet that decided the
				 * code asked for (the position in time, for
				 * sideband); the packet layer may have read
				 * further */
	uint64_t asid;		/* read: the address space to read in, the
				 * asid callback's answer for this packet
				 * (without one, PIP's CR3 or 0); the asid
				 * callback: its last answer, to ignore */
	uint8_t have_cr3, have_vmcs;
};

/* Copy up to @size code bytes at @ip into @buf.  Returns the number of
 * bytes copied (> 0), or a negative number if there is no code at @ip.
 * With an asid callback, read the code of address space @c->asid: the
 * block cache files the code under it and the records carry it
 * (flow_rec.asid), so that the bytes decoded and what a caller shows for
 * a record (names, disassembly) come from one image. */
typedef int (*flow_read_fn)(void *ctx, const struct flow_ctx *c, uint64_t ip,
			    uint8_t *buf, size_t size);

/* The address space the code comes from at the packet @c->offset, for the
 * block cache's key and the reads (flow_ctx.asid): asked where execution
 * may move to another one (a sync, an enable, an overflow, an asynchronous
 * branch, a paging or VMCS event) and at every new deciding packet before
 * code is looked up, since the mappings of a space may change between two
 * packets of one stretch (a mmap over code, a library closed and opened
 * again at its address: with the kernel traced, no TIP.PGD/PGE comes
 * between).  Questions come in stream order, about one per TNT or TIP
 * packet: keep it cheap for that (a cursor moving forward). */
typedef uint64_t (*flow_asid_fn)(void *ctx, const struct flow_ctx *c);

struct flow_config {
	const struct img *img;	/* the trace; must outlive the decoder */
	flow_read_fn read;	/* the code */
	void *read_ctx;		/* for read and asid */
	flow_asid_fn asid;	/* NULL: PIP's CR3 (0 before one) */
	uint32_t cache_blocks;	/* decoded blocks kept (rounded up to a power
				 * of two, two ways a set); 0: 65536 */
	int libipt;		/* libipt 2.0.5's verdicts where we do
				 * better (for comparing with it): refuse a
				 * TIP.PGE right after a PSB+ with a FUP
				 * ("unexpected packet context"; KVM-PT's
				 * PSB+ restate the IP where tracing stopped,
				 * so by default such a TIP.PGE says tracing
				 * was off at the PSB), and stop after a sync
				 * error at the PSB at offset 0 (ptxed's loop
				 * takes it for no progress) */
};

/* Execution modes (MODE.EXEC). */
enum flow_mode { FLOW_MODE_UNKNOWN, FLOW_MODE_16, FLOW_MODE_32, FLOW_MODE_64 };

/* Instruction classes, as libipt's. */
enum flow_iclass {
	FLOW_IC_ERROR, FLOW_IC_OTHER, FLOW_IC_CALL, FLOW_IC_RETURN,
	FLOW_IC_JUMP, FLOW_IC_COND_JUMP, FLOW_IC_FAR_CALL,
	FLOW_IC_FAR_RETURN, FLOW_IC_FAR_JUMP, FLOW_IC_PTWRITE
};

/* Events, as libipt's. */
enum flow_event {
	FLOW_EV_ENABLED, FLOW_EV_DISABLED, FLOW_EV_ASYNC_DISABLED,
	FLOW_EV_ASYNC_BRANCH, FLOW_EV_PAGING, FLOW_EV_ASYNC_PAGING,
	FLOW_EV_OVERFLOW, FLOW_EV_EXEC_MODE, FLOW_EV_TSX, FLOW_EV_STOP,
	FLOW_EV_VMCS, FLOW_EV_ASYNC_VMCS, FLOW_EV_EXSTOP, FLOW_EV_MWAIT,
	FLOW_EV_PWRE, FLOW_EV_PWRX, FLOW_EV_PTWRITE, FLOW_EV_CBR, FLOW_EV_MNT
};

/* Decode errors (returned negated), with libipt's meaning and message. */
enum flow_err {
	FLOW_OK,
	FLOW_E_INTERNAL,	/* "internal error" */
	FLOW_E_NOSYNC,		/* "decoder out of sync" */
	FLOW_E_BAD_OPC,		/* "unknown opcode" */
	FLOW_E_BAD_PACKET,	/* "unknown packet" */
	FLOW_E_BAD_CONTEXT,	/* "unexpected packet context" */
	FLOW_E_EOS,		/* "reached end of trace stream" */
	FLOW_E_BAD_QUERY,	/* "trace stream does not match query" */
	FLOW_E_NOMEM,		/* "out of memory" */
	FLOW_E_NOIP,		/* "no ip" */
	FLOW_E_IP_SUPPRESSED,	/* "ip has been suppressed" */
	FLOW_E_NOMAP,		/* "no memory mapped at this address" */
	FLOW_E_BAD_INSN,	/* "unknown instruction" */
	FLOW_E_RETSTACK_EMPTY,	/* "compressed return without call" */
	FLOW_E_BAD_RETCOMP,	/* "bad compressed return" */
	FLOW_E_BAD_STATUS_UPDATE,/* "bad status update" */
	FLOW_E_NO_ENABLE,	/* "expected tracing enabled event" */
	FLOW_E_EVENT_IGNORED,	/* "event ignored" */
	FLOW_E_GAP,		/* "trace data lost" (a perf.data gap) */
	FLOW_E_INVALID,		/* "invalid argument" */
	FLOW_E_SPIN,		/* FLOW_SPIN_MAX instructions decided by one
				 * packet: code looping with no packet (jmp $
				 * and a TIP.PGD with no IP) that libipt
				 * would follow forever (ours) */
	FLOW_E_MAX
};

/* The most instructions one packet decides before FLOW_E_SPIN: no real
 * code runs so far without a conditional or indirect branch, and a window
 * of them is about 100 MiB. */
#define FLOW_SPIN_MAX 1048576

/* Record kinds. */
enum flow_kind { FLOW_INSN = 1, FLOW_EVENT, FLOW_ERROR };

/* struct flow_rec.flags */
enum flow_flag {
	FLOW_F_STATUS = 1 << 0,	/* event: a status update (PSB+ restating state) */
	FLOW_F_NOIP = 1 << 1,	/* event: its IP is suppressed */
	FLOW_F_RESUMED = 1 << 2,/* enabled: at the IP where tracing stopped */
	FLOW_F_SPEC = 1 << 3,	/* insn: executed speculatively (in a TSX
				 * transaction); tsx event: speculative */
	FLOW_F_ABORT = 1 << 4,	/* tsx event: the transaction aborted */
	FLOW_F_DIRECT = 1 << 5,	/* insn: a direct branch */
};

/* One instruction, event or error. */
struct flow_rec {
	uint64_t offset;	/* the packet that decided it (see above) */
	uint64_t ip;		/* insn: its address; event: its IP unless NOIP;
				 * error: FLOW_E_NOMAP and FLOW_E_BAD_INSN:
				 * the address of the code, else 0 */
	uint64_t a;		/* event payload: async_branch: the target;
				 * paging: CR3; vmcs: base; ptwrite: payload;
				 * cbr: ratio; mnt: payload; mwait: hints;
				 * pwre: state << 8 | sub_state (| 1 << 16 hw);
				 * pwrx: last << 8 | deepest | wake reason bits
				 * 16 interrupt, 17 store, 18 autonomous;
				 * exec_mode: enum flow_mode; paging: bit 0 of b
				 * is the non-root flag */
	uint64_t b;		/* mwait: ext; paging: non-root; ptwrite: size */
	uint64_t asid;		/* insn: the address space its code was read
				 * in (flow_ctx.asid), to name and
				 * disassemble it from the same image;
				 * event, error: the decoder's when it came
				 * (a FLOW_E_NOMAP's: the one read in) */
	int err;		/* error: a negative enum flow_err */
	uint8_t kind;		/* enum flow_kind */
	uint8_t size;		/* insn: bytes */
	uint8_t mode;		/* insn: enum flow_mode */
	uint8_t iclass;		/* insn: enum flow_iclass */
	uint8_t ev;		/* event: enum flow_event */
	uint8_t flags;		/* enum flow_flag */
};

/* Statistics of a decoder. */
struct flow_stats {
	uint64_t insns, events, errors;
	uint64_t cache_hits, cache_misses;	/* block lookups */
	uint64_t code_reads;			/* read callback calls */
};

/* A decoder over @cfg->img (nothing decoded until flow_seek()).
 * Returns 0 and sets *@out, or -FLOW_E_INVALID for a bad @cfg, or
 * -FLOW_E_NOMEM. */
int flow_new(struct flow **out, const struct flow_config *cfg);

/* Free @f (NULL is fine). */
void flow_free(struct flow *f);

/* Start decoding at the first PSB at or after trace offset @off, with no
 * state from before it; flow_next() then gives the records decided by
 * packets before trace offset @end (UINT64_MAX: to the end of the trace).
 * The range also ends where the code reaches the IP of a PSB at or past
 * @end (where its PSB+ events bind): decoding from that PSB gives the code
 * from there, so ranges from PSB to PSB follow one another without a gap
 * or an overlap; the status events of a PSB+ at or past @end are left out
 * (the PSB is read ahead: they may come before the range's last
 * instructions; the range from that PSB begins with them).
 * Returns 0, or -FLOW_E_INVALID. */
int flow_seek(struct flow *f, uint64_t off, uint64_t end);

/* The next instruction, event or error into @r.
 * A decode error comes as a FLOW_ERROR record, after which decoding goes on
 * from the next PSB.
 * Returns 0 if @r is filled.
 * Returns -FLOW_E_EOS at the end of the trace (or of the range).
 * Returns -FLOW_E_INVALID for a NULL argument or before flow_seek(). */
int flow_next(struct flow *f, struct flow_rec *r);

/* Forget the decoded blocks (call when the code behind the read callback
 * changes). */
void flow_cache_flush(struct flow *f);

/* Statistics so far. */
void flow_stats(const struct flow *f, struct flow_stats *s);

/*
 * Windows: the code view's rows, with the call depth and the cycles of
 * each run of instructions (decoder/flow_win.c).
 *
 * A run is the instructions one packet decided: those after the branch
 * whose outcome that packet gave, up to and including the branch that the
 * next deciding packet answers.  A packet's CYC time is the retirement of
 * the first branch it answers (SDM 36.3.6.2: a TNT's CYC times its first
 * branch), so a run retired between its deciding packet's cycle time and
 * the next deciding packet's (or the TIP.PGD's that ends tracing).  Both
 * times come from the time model (tm.h): exact where a CYC came right
 * before the packet, else bounded between the CYCs around it.  A run's
 * cycles are exact only when both ends are; else they are a range; and
 * unknown where the flow breaks (an overflow, a decode error, the end of
 * the trace) or no CYC came before: never a guess.
 */

/* struct flow_cyc.flags */
enum flow_cyc_flag {
	FLOW_C_KNOWN = 1 << 0,	/* lo is a lower bound (else nothing known) */
	FLOW_C_HI = 1 << 1,	/* hi is an upper bound (else unbounded) */
	FLOW_C_EXACT = 1 << 2,	/* lo == hi: exact */
};

/* A cycle count, exact or bounded: in [lo, hi]. */
struct flow_cyc {
	uint64_t lo, hi;
	uint8_t flags;		/* enum flow_cyc_flag */
};

/* One run of instructions (see above). */
struct flow_run {
	uint64_t offset;	/* the packet that decided it */
	uint64_t end_offset;	/* the packet whose time ends it (the next
				 * run's, or a TIP.PGD's); UINT64_MAX: none
				 * (the flow broke, or the window ended at
				 * the end of the trace) */
	uint32_t first;		/* its first line (struct flow_window.lines) */
	uint32_t nlines;	/* lines from first to its last instruction
				 * (events that do not break the flow, e.g.
				 * an exec mode or a ptwrite, may be among
				 * them) */
	uint32_t ninsns;	/* its instructions */
	struct flow_cyc at;	/* the cycle count at its deciding packet:
				 * the time model's, counted from the
				 * window's PSB, or from the start of the
				 * stream when a carry was given */
	struct flow_cyc cycles;	/* the cycles it took */
	uint64_t tsc;		/* the deciding packet's estimated TSC */
	uint32_t tm_flags;	/* and its stamp's flags (enum tm_flag:
				 * TM_F_TSC says whether tsc means anything,
				 * TM_F_REL, TM_F_LOST, ...) */
};

/*
 * A block window (struct flow_wopts.blocks) has one line per block line
 * where an ordinary window has one per instruction: a block line is a
 * maximal sequence of consecutive instruction lines of one run, one mode
 * and one FLOW_F_SPEC, where all but the last are FLOW_IC_OTHER (so the
 * last alone may be a branch, a call, a return, a far transfer or a
 * PTWRITE, and the depth is the same over the line).  Its instructions are
 * straight-line code: each follows the one before in memory.  Events and
 * errors stay lines of their own, as do the runs (their ninsns count
 * instructions, their nlines lines).  Grouping an ordinary window's
 * instruction lines by that rule gives the block window's lines exactly
 * (tests/test_flow_blocks.c checks it).  The decoder steps over a cached
 * block's instructions in one go, so a block window costs less than half
 * what an ordinary one does (bench_flow on p_sample: 111 machine
 * instructions per traced instruction against 262); what is left is
 * mostly per packet: the time walk for the runs, the packet layer.
 */

/* One row: an instruction, an event or a decode error; in a block window
 * an instruction row is a block line (above). */
struct flow_line {
	struct flow_rec r;	/* what flow_next() gave; r.offset is the
				 * packet that decided it.  A call:
				 * r.iclass FLOW_IC_CALL or FLOW_IC_FAR_CALL;
				 * a return: FLOW_IC_RETURN or
				 * FLOW_IC_FAR_RETURN.  A block line: r.ip is
				 * its first instruction's address; r.size,
				 * r.iclass and r.flags are its last one's
				 * (FLOW_F_SPEC is the same for all); r.mode
				 * is theirs */
	uint64_t last_ip;	/* an instruction line's last instruction's
				 * address (r.ip if ninsns is 1); 0 for
				 * events and errors */
	int32_t depth;		/* the call depth: 0 at the window's first
				 * line, one more after each call, one less
				 * after each return (so below 0 in code that
				 * returns from a function entered before the
				 * window); a call or return is at the depth
				 * it leaves */
	uint32_t run;		/* an instruction's run (an index into
				 * struct flow_window.runs); UINT32_MAX for
				 * events and errors */
	uint32_t ninsns;	/* instructions on the line: 1 in an
				 * ordinary window, >= 1 in a block window;
				 * 0 for events and errors */
	uint32_t size_at;	/* a block window's instruction line: its
				 * instructions' sizes are
				 * struct flow_window.sizes[size_at ..
				 * size_at + ninsns - 1], in order; else 0
				 * (see flow_line_below()) */
};

/* A decoded window (free with flow_window_free()). */
struct flow_window {
	struct flow_line *lines;
	size_t nlines;
	struct flow_run *runs;
	size_t nruns;
	uint64_t psb;		/* the PSB decoding started at, UINT64_MAX
				 * if there was none */
	int truncated;		/* stopped at max_lines before TO */
	int blocks;		/* a block window (struct flow_wopts.blocks) */
	uint8_t *sizes;		/* a block window: the sizes of the
				 * instructions of its lines (see
				 * struct flow_line.size_at); else NULL or
				 * unused */
	size_t nsizes;		/* entries of sizes: the instructions */
	size_t lines_cap, runs_cap, sizes_cap;	/* allocated (kept from
						 * one flow_window() to
						 * the next) */
};

/* How to decode a window. */
struct flow_wopts {
	const struct tm_config *tm;	/* the stream's timing (NULL: nothing
					 * known; cycles still count) */
	const struct tm_carry *carry;	/* the time model's state saved just
					 * before the window's PSB (the index:
					 * idx_seek_carry()), so the cycles
					 * count from the start of the stream
					 * as the cycle pane's do; NULL: they
					 * count from the window's PSB */
	size_t max_lines;		/* stop after this many lines (the
					 * window is then truncated; block
					 * lines in a block window); 0: no
					 * limit */
	int blocks;			/* a block window: a line per block
					 * line, not per instruction (see
					 * struct flow_line) */
};

/* Decode the window of the trace that starts at the first PSB at or after
 * @from and ends before @to (UINT64_MAX: the end of the trace): the lines
 * flow_seek(@f, @from, @to) and flow_next() give, with their call depth,
 * grouped in runs with their cycles (above).  The decoder's block cache
 * is kept; its position is not (flow_seek() before using it again).  @w
 * is filled afresh (its old contents dropped; its memory reused, so
 * decoding window after window into one @w allocates once).
 * Returns 0 (a window with no PSB has no lines).
 * Returns -FLOW_E_INVALID for a NULL argument or @to <= @from.
 * Returns -FLOW_E_NOMEM (@w is then empty). */
int flow_window(struct flow *f, uint64_t from, uint64_t to,
		const struct flow_wopts *o, struct flow_window *w);

/* Free what @w holds and empty it (NULL is fine). */
void flow_window_free(struct flow_window *w);

/* The first line of @w that a packet at or after trace offset @off
 * decided (for an instruction: its run's packet; an event: its own; an
 * error: libipt's query position), to go from a packet to its code.
 * Returns its index, or @w->nlines if there is none. */
size_t flow_window_line_at(const struct flow_window *w, uint64_t off);

/* How many of instruction line @l's instructions (@l in @w, either kind
 * of window) lie at addresses below @addr: where a function boundary
 * falls inside a block line (code that falls through from one symbol into
 * the next), the instructions before it, without decoding again.
 * Returns 0 to @l->ninsns; 0 for events, errors and a NULL argument. */
uint32_t flow_line_below(const struct flow_window *w, const struct flow_line *l,
			 uint64_t addr);

/* The address of instruction @k (0 to @l->ninsns - 1) of instruction line
 * @l of @w.  Returns it, or 0 for a @k out of range, an event, an error or
 * a NULL argument. */
uint64_t flow_line_ip(const struct flow_window *w, const struct flow_line *l,
		      uint32_t k);

/* libipt's message for @err (negative or positive enum flow_err). */
const char *flow_strerror(int err);

/* The name of event @ev as ptxed prints it between brackets, with @r's
 * payload ("enabled", "exec mode: 64-bit", "paging, cr3: 0000..."), into
 * @buf.  Returns @buf. */
const char *flow_event_str(const struct flow_rec *r, char *buf, size_t len);

/* "16-bit", "32-bit", "64-bit" or "unknown". */
const char *flow_mode_name(enum flow_mode mode);

#endif /* FLOW_H */
