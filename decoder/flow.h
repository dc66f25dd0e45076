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
 * lookup.
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

struct flow;

/* What the decoder knows of the context when it asks for code. */
struct flow_ctx {
	uint64_t cr3;		/* PIP's CR3 (in place), if have_cr3 */
	uint64_t vmcs;		/* the VMCS base, if have_vmcs */
	uint64_t offset;	/* the offset of the packet that decided the
				 * code asked for (the position in time, for
				 * sideband); the packet layer may have read
				 * further */
	uint8_t have_cr3, have_vmcs;
};

/* Copy up to @size code bytes at @ip into @buf.  Returns the number of
 * bytes copied (> 0), or a negative number if there is no code at @ip. */
typedef int (*flow_read_fn)(void *ctx, const struct flow_ctx *c, uint64_t ip,
			    uint8_t *buf, size_t size);

/* The address space the code comes from now, for the block cache's key:
 * asked where execution may move to another one (a sync, an enable, an
 * overflow, an asynchronous branch, a paging or VMCS event). */
typedef uint64_t (*flow_asid_fn)(void *ctx, const struct flow_ctx *c);

struct flow_config {
	const struct img *img;	/* the trace; must outlive the decoder */
	flow_read_fn read;	/* the code */
	void *read_ctx;		/* for read and asid */
	flow_asid_fn asid;	/* NULL: PIP's CR3 (0 before one) */
	uint32_t cache_blocks;	/* decoded blocks kept (rounded up to a power
				 * of two, two ways a set); 0: 65536 */
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
	FLOW_E_MAX
};

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
	uint64_t ip;		/* insn: its address; event: its IP unless NOIP */
	uint64_t a;		/* event payload: async_branch: the target;
				 * paging: CR3; vmcs: base; ptwrite: payload;
				 * cbr: ratio; mnt: payload; mwait: hints;
				 * pwre: state << 8 | sub_state (| 1 << 16 hw);
				 * pwrx: last << 8 | deepest | wake reason bits
				 * 16 interrupt, 17 store, 18 autonomous;
				 * exec_mode: enum flow_mode; paging: bit 0 of b
				 * is the non-root flag */
	uint64_t b;		/* mwait: ext; paging: non-root; ptwrite: size */
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

/* libipt's message for @err (negative or positive enum flow_err). */
const char *flow_strerror(int err);

/* The name of event @ev as ptxed prints it between brackets, with @r's
 * payload ("enabled", "exec mode: 64-bit", "paging, cr3: 0000..."), into
 * @buf.  Returns @buf. */
const char *flow_event_str(const struct flow_rec *r, char *buf, size_t len);

/* "16-bit", "32-bit", "64-bit" or "unknown". */
const char *flow_mode_name(enum flow_mode mode);

#endif /* FLOW_H */
