/*
 * flow_int -- the flow decoder's insides, shared by its three files:
 *   flow_pkt.c   the packet layer (fq_*): libipt's query decoder's answers
 *   flow_blk.c   code: Zydis and the block cache (fb_*)
 *   flow.c       the instruction layer and the driver (flow.h's API)
 * Not for use outside decoder/flow*.c.
 */
#ifndef FLOW_INT_H
#define FLOW_INT_H

#include <stddef.h>
#include <stdint.h>

#include <Zydis/Zydis.h>

#include "flow.h"
#include "pkt.h"
#include "ptdec.h"

/* Packet kinds by opcode, as the packet layer tells them apart before
 * decoding the payload. */
enum qk {
	QK_UNKNOWN, QK_PAD, QK_PSB, QK_TIP, QK_TNT8, QK_TNT64, QK_PGE, QK_PGD,
	QK_FUP, QK_PIP, QK_OVF, QK_MODE, QK_PSBEND, QK_TSC, QK_CBR, QK_TMA,
	QK_MTC, QK_CYC, QK_STOP, QK_VMCS, QK_MNT, QK_EXSTOP, QK_MWAIT, QK_PWRE,
	QK_PWRX, QK_PTW, QK_N
};

enum {
	QF_TIP = 1 << 0,	/* answers an indirect branch */
	QF_TNT = 1 << 1,	/* answers conditional branches */
	QF_EVENT = 1 << 2,	/* always an event */
	QF_PSBEND = 1 << 3,	/* publishes PSB+ events */
	QF_FUP = 1 << 4,	/* may publish FUP-bound events */
	QF_HEADER = 1 << 5,	/* allowed in PSB+ */
};

/* Status bits, as libipt's pts_*. */
enum { ST_EVENT = 1 << 0, ST_NOIP = 1 << 1, ST_EOS = 1 << 2 };

/* Event queues by binding. */
enum { EVB_PSBEND, EVB_TIP, EVB_FUP, EVB_N };
#define EVQ_SIZE 8		/* slots; two stay free, as in libipt */

struct ev {
	uint64_t offset;	/* the packet that published it */
	uint64_t ip;		/* enabled/disabled/overflow/exec/tsx/... IP;
				 * async_branch and async_disabled: the source */
	uint64_t to;		/* async_branch: the target; async_disabled: IP */
	uint64_t a, b;		/* payload (flow_rec.a, .b) */
	uint8_t type;		/* enum flow_event */
	uint8_t status;		/* a status update */
	uint8_t noip;		/* IP suppressed */
	uint8_t spec, abort;	/* tsx */
	uint8_t mode;		/* exec_mode */
	uint64_t psb;		/* a PSB+ event: its PSB's offset */
};

struct evq {
	struct ev q[EVB_N][EVQ_SIZE];
	uint8_t begin[EVB_N], end[EVB_N];
	struct ev standalone;
};

#define RETSTACK_SIZE 64

/* What the instruction layer needs of an instruction. */
struct insn {
	uint64_t ip;
	uint64_t target;	/* direct branch: the destination */
	int64_t disp;		/* direct branch: the displacement */
	uint8_t size;
	uint8_t iclass;		/* enum flow_iclass */
	uint8_t direct;
	uint8_t far;		/* a far branch */
	uint8_t cpl;		/* changes CPL (int, iret, syscall, ...) */
	uint8_t cr3;		/* MOV to CR3 */
	uint8_t pip;		/* binds a PIP (mov cr3, vmlaunch, vmresume) */
	uint8_t vmcs;		/* binds a VMCS (vmptrld, vmlaunch, vmresume) */
};

/* A basic block: straight-line instructions, the last one maybe special. */
#define BLK_MAX 32
struct blk {
	uint64_t ip;		/* first instruction; UINT64_MAX: empty slot */
	uint64_t asid;		/* the address space it was read in */
	uint8_t mode;
	uint8_t n;		/* instructions */
	uint8_t last_special;	/* the last one is a branch or special */
	uint32_t used;		/* when it was last looked up (for eviction) */
	uint8_t len[BLK_MAX];
	struct insn last;	/* the last instruction, decoded */
};

struct flow {
	struct flow_config cfg;
	struct flow_stats st;

	/* the packet layer */
	struct img_cursor cur;
	uint64_t cur_at;	/* cursor offset, UINT64_MAX if unknown */
	uint64_t pos;		/* position: the next packet */
	uint64_t sync;		/* the PSB decoding started at */
	uint64_t psb_at;	/* the last PSB whose PSB+ was read */
	int synced;		/* pos/sync are meaningful */
	int have_next;		/* nx holds the packet at pos */
	enum qk nk;		/* its kind */
	struct pkt nx;		/* it, decoded, if nx_err == 0 */
	int nx_err;		/* or the error decoding it (negative flow err) */
	uint64_t nx_at;		/* the position nx was fetched for (before
				 * the PADs it skipped), UINT64_MAX if none:
				 * a PSB+ and the status questions ask for
				 * the same packet again and again */
	uint64_t nx_pos;	/* the position nx is at */
	uint64_t last_ip;
	uint8_t have_ip, ip_suppressed;
	uint64_t tnt_bits, tnt_mask;	/* mask: the next bit; 0 empty */
	uint64_t tnt_off;	/* the TNT packet the bits came from */
	uint64_t tip_off;	/* the last TIP that answered a query */
	int q_enabled;
	int consume_packet;
	uint8_t have_tsc, have_tma;	/* libipt's time state (q_time()) */
	struct ev *event;	/* published by the last decode */
	struct evq evq;

	/* the instruction layer */
	uint64_t ip;
	uint8_t mode;
	uint8_t enabled;
	uint8_t fup_only;	/* enabled by the sync PSB+'s FUP alone, no
				 * instruction since (see i_event()) */
	uint8_t speculative;
	int status;
	int process_event;
	struct ev ev;		/* the event being processed */
	int process_insn;
	struct insn pinsn;	/* the instruction events bind to */
	uint8_t bound_paging, bound_vmcs, bound_ptwrite;
	uint64_t retstack[RETSTACK_SIZE + 1];
	uint8_t rs_top, rs_bottom;
	uint8_t rs_clear_due;	/* empty the stack once the TNT bits read
				 * before the last PSB are used up */
	uint64_t cr3, vmcs;
	uint8_t have_cr3, have_vmcs;
	uint64_t asid;		/* the block cache's address space (fb_asid()) */
	uint64_t asid_at;	/* the deciding packet it was asked for,
				 * UINT64_MAX: ask again */
	uint64_t insn_asid;	/* the address space of the instruction
				 * fb_insn_at() gave */
	uint64_t decided;	/* the packet that decided the current IP */
	uint64_t psb_passed;	/* the last PSB whose IP the code reached
				 * (i_psb_bound()), UINT64_MAX if none */

	/* the driver (ptxed's loop) */
	int state;		/* DRV_* */
	int dstatus;		/* the status being drained */
	uint64_t err_sync;	/* the position of the last sync error,
				 * UINT64_MAX if none */
	uint64_t end;		/* stop at the first sync at or past this */
	uint64_t spin_off;	/* the packet the last instructions came from */
	uint32_t spin_n;	/* and how many (drv_spin()) */
	int pending_err;	/* an error to report after an insn record */
	uint64_t pending_err_off;

	/* code */
	ZydisDecoder zd[4];
	struct blk *cache;
	uint32_t ncache;	/* a power of two, >= 2 */
	uint32_t tick;		/* counts block lookups */
	struct blk *blk;	/* the block the IP is in, or NULL */
	unsigned bi;		/* the index of the IP's instruction in blk */
	uint64_t bip;		/* its address */
	int seek_err;		/* the last failed lookup's error (0 none),
				 * for the slow path's retry (fb_seek_slow()) */
	uint64_t seek_ip;	/* and its IP */
};

enum { DRV_IDLE, DRV_SYNC, DRV_DRAIN, DRV_INSN, DRV_ERROR, DRV_DONE };

static inline void make_ctx(const struct flow *f, struct flow_ctx *c)
{
	c->cr3 = f->cr3;
	c->vmcs = f->vmcs;
	c->have_cr3 = f->have_cr3;
	c->have_vmcs = f->have_vmcs;
	c->asid = f->asid;
	/* the packet that decided the code, not the look-ahead position: a
	 * disable and the next enable may already be read */
	c->offset = f->decided;
}

/* After the instruction that took a TNT bit: if a PSB read ahead asked
 * for it and that was the last bit from before the PSB, empty the call
 * stack now, before the calls after the PSB push (not at the next query,
 * after them). */
static inline void rs_settle(struct flow *f)
{
	if (f->rs_clear_due && !f->tnt_mask) {
		f->rs_top = f->rs_bottom = 0;
		f->rs_clear_due = 0;
	}
}

/* After fb_insn_at(): the next instruction of the block follows. */
static inline void fb_advance(struct flow *f, const struct insn *in)
{
	if (f->blk && f->bip == in->ip) {
		f->bi++;
		f->bip += in->size;
	}
}

/* What fi_next_blk() adds to an instruction record. */
struct fi_blk {
	uint64_t last_ip;	/* the last instruction's address */
	uint32_t n;		/* instructions (0: an event or an error) */
	const uint8_t *sizes;	/* their sizes, n of them (valid until the
				 * next call) */
	int full;		/* BLK_MAX bytes may be read at sizes (a
				 * whole block's, for a copy of fixed size) */
};

/* @o for record @r alone: one instruction, or none for an event or an
 * error (@o->sizes points into @r). */
static inline void fi_blk_one(const struct flow_rec *r, struct fi_blk *o)
{
	o->n = r->kind == FLOW_INSN;
	o->last_ip = r->ip;
	o->sizes = &r->size;
	o->full = 0;
}

/* flow_next() for block windows (flow.c): the next record into @r, where
 * an instruction record may stand for several consecutive instructions of
 * one block that the fast path steps over in one go (r->ip the first's,
 * r->size the last's, all FLOW_IC_OTHER but maybe the last), and @o says
 * how many.  The records, taken apart, are what flow_next() gives.
 * Returns as flow_next(). */
int fi_next_blk(struct flow *f, struct flow_rec *r, struct fi_blk *o);

/*
 * Whether record @r of @f's range ending before trace offset @end is past
 * it: 0 no, 1 it is dropped (a status event of a PSB+ at or past @end: the
 * PSB is read ahead, so such events may come before the last instructions
 * packets before it decided; decoding from that PSB gives them), 2 the
 * range ends there (decided by a packet at or past @end, or after the
 * code reached the IP of a PSB at or past @end: decoding from that PSB
 * gives the code from there, which packets before it decided).
 */
static inline int fi_past(const struct flow *f, const struct flow_rec *r,
			  uint64_t end)
{
	if (r->offset < end && (f->psb_passed == UINT64_MAX || f->psb_passed < end))
		return 0;
	return r->kind == FLOW_EVENT && (r->flags & FLOW_F_STATUS) ? 1 : 2;
}

/* The packet layer (flow_pkt.c). */
void fq_reset(struct flow *f);
int fq_sync_forward(struct flow *f, uint64_t *ip);
int fq_cond_branch(struct flow *f, int *taken);
/* The status fq_cond_branch() returns after taking the last cached TNT
 * bit (for the instruction layer's fast path, which takes the others
 * itself: with bits left, the status is 0). */
int fq_status(struct flow *f);
int fq_indirect_branch(struct flow *f, uint64_t *addr);
int fq_event(struct flow *f, struct ev *out);

/* Code (flow_blk.c): the instruction at f->ip, through the block cache.
 * Returns 0, or -FLOW_E_NOMAP or -FLOW_E_BAD_INSN. */
int fb_insn_at(struct flow *f, struct insn *in);

/* The block cache's set of (@ip, @asid, @mode) in a table of @n blocks
 * (its first way; a power of two). */
static inline uint32_t fb_hash(uint64_t ip, uint64_t asid, uint8_t mode, uint32_t n)
{
	uint64_t h = (ip ^ (asid * 0x9e3779b97f4a7c15ull) ^ mode) * 0xff51afd7ed558ccdull;

	return (uint32_t)((h >> 32) & (n - 1)) & ~1u;
}

/* fb_seek() the long way (flow_blk.c): a lookup that may decode. */
int fb_seek_slow(struct flow *f);

/* Ask the caller which address space the code comes from at the packet
 * that decided the IP (flow_asid_fn) into f->asid (flow_blk.c). */
void fb_asid(struct flow *f);

/* Code: f->blk, f->bi, f->bip at the block instruction at f->ip (looked
 * up, decoded on a miss), as fb_insn_at() leaves them.  A cached block
 * costs a look at the IP's set here (most blocks start at a branch's
 * target, so most lookups are of a new block).
 * Returns 0, or -FLOW_E_NOMAP or -FLOW_E_BAD_INSN (f->blk then NULL). */
static inline int fb_seek(struct flow *f)
{
	struct blk *b, *set;
	unsigned i;

	/* a new deciding packet may read another space's code (flow.h) */
	if (f->asid_at != f->decided && f->cfg.asid)
		fb_asid(f);
	b = f->blk;
	if (b && f->bip == f->ip && f->bi < b->n && b->asid == f->asid &&
	    b->mode == f->mode)
		return 0;
	set = &f->cache[fb_hash(f->ip, f->asid, f->mode, f->ncache)];
	for (i = 0; i < 2; i++) {
		b = &set[i];
		if (b->ip == f->ip && b->asid == f->asid && b->mode == f->mode && b->n) {
			f->st.cache_hits++;
			b->used = ++f->tick;
			f->blk = b;
			f->bi = 0;
			f->bip = f->ip;
			return 0;
		}
	}
	return fb_seek_slow(f);
}

#endif /* FLOW_INT_H */
