/*
 * flow -- the instruction flow decoder (see flow.h).
 *
 * Two layers, as in libipt, whose behaviour this reproduces:
 *   fq_* the packet layer (flow_pkt.c): a position in the trace, the next packet
 *        fetched but not yet applied, the last IP, the TNT bits of the
 *        current TNT packet, and event queues by what a pending event binds
 *        to (PSBEND, TIP, FUP).  It answers three questions -- the next
 *        conditional branch, the next indirect branch, the next event --
 *        and reads ahead past status packets to the next packet that
 *        answers one, so errors are reported where libipt reports them.
 *   i_*  the instruction layer (here): the IP, the mode, whether tracing is
 *        on, the call stack, and the binding of events to instructions and
 *        IPs.
 * flow_next() drives them as ptxed's loop does, with a fast path for the
 * instructions inside a cached block when nothing is pending (drv_fast():
 * a step each, and for the one that ends the block what i_next() does
 * without the driver's state machine, drv_last()); fi_next_blk() takes a
 * whole block in one record for block windows (drv_fast_blk()).  Code
 * (flow_blk.c) is read through the caller's callback and decoded with
 * Zydis into basic blocks (straight-line code up to a branch or a special
 * instruction), kept in a two-way table of fixed size.
 *
 * libipt 2.0.5's verdicts are reproduced where our packet decoder (pkt.h)
 * is more lenient or knows newer packets, and its synchronisation search
 * is emulated (flow_pkt.c: libipt_payload(), q_fetch(), q_find_psb()).
 */
#include "flow_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const messages[FLOW_E_MAX] = {
	[FLOW_OK] = "OK",
	[FLOW_E_INTERNAL] = "internal error",
	[FLOW_E_NOSYNC] = "decoder out of sync",
	[FLOW_E_BAD_OPC] = "unknown opcode",
	[FLOW_E_BAD_PACKET] = "unknown packet",
	[FLOW_E_BAD_CONTEXT] = "unexpected packet context",
	[FLOW_E_EOS] = "reached end of trace stream",
	[FLOW_E_BAD_QUERY] = "trace stream does not match query",
	[FLOW_E_NOMEM] = "out of memory",
	[FLOW_E_NOIP] = "no ip",
	[FLOW_E_IP_SUPPRESSED] = "ip has been suppressed",
	[FLOW_E_NOMAP] = "no memory mapped at this address",
	[FLOW_E_BAD_INSN] = "unknown instruction",
	[FLOW_E_RETSTACK_EMPTY] = "compressed return without call",
	[FLOW_E_BAD_RETCOMP] = "bad compressed return",
	[FLOW_E_BAD_STATUS_UPDATE] = "bad status update",
	[FLOW_E_NO_ENABLE] = "expected tracing enabled event",
	[FLOW_E_EVENT_IGNORED] = "event ignored",
	[FLOW_E_GAP] = "trace data lost",
	[FLOW_E_INVALID] = "invalid argument",
	[FLOW_E_SPIN] = "1048576 instructions without a packet: a loop the "
			"trace cannot follow",
};

const char *flow_strerror(int err)
{
	if (err < 0)
		err = -err;
	if (err >= FLOW_E_MAX)
		return "unknown error";
	return messages[err];
}

const char *flow_mode_name(enum flow_mode mode)
{
	switch (mode) {
	case FLOW_MODE_16: return "16-bit";
	case FLOW_MODE_32: return "32-bit";
	case FLOW_MODE_64: return "64-bit";
	default: return "unknown";
	}
}

/*
 * Instructions
 */

/* Where execution may have moved to another address space (a sync, an
 * enable, an overflow, an asynchronous branch, a paging or VMCS event):
 * ask the caller which one the code comes from now (a new deciding
 * packet asks again before its code is looked up: fb_seek()). */
static void i_context(struct flow *f)
{
	fb_asid(f);
}

static void rs_init(struct flow *f)
{
	f->rs_top = f->rs_bottom = 0;
	f->rs_clear_due = 0;
}

static void rs_push(struct flow *f, uint64_t ip)
{
	f->retstack[f->rs_top] = ip;
	f->rs_top = f->rs_top == RETSTACK_SIZE ? 0 : (uint8_t)(f->rs_top + 1);
	if (f->rs_bottom == f->rs_top)
		f->rs_bottom = f->rs_bottom == RETSTACK_SIZE ? 0 :
			(uint8_t)(f->rs_bottom + 1);
}

static int rs_pop(struct flow *f, uint64_t *ip)
{
	if (f->rs_top == f->rs_bottom)
		return -FLOW_E_RETSTACK_EMPTY;
	f->rs_top = f->rs_top ? (uint8_t)(f->rs_top - 1) : RETSTACK_SIZE;
	*ip = f->retstack[f->rs_top];
	return 0;
}

static void i_reset(struct flow *f)
{
	f->mode = FLOW_MODE_UNKNOWN;
	f->ip = 0;
	f->status = 0;
	f->enabled = f->fup_only = 0;
	f->process_event = 0;
	f->speculative = 0;
	f->process_insn = 0;
	f->bound_paging = f->bound_vmcs = f->bound_ptwrite = 0;
	rs_init(f);
	f->have_cr3 = f->have_vmcs = 0;
	f->cr3 = f->vmcs = 0;
}

static int i_status(const struct flow *f, int flags)
{
	if (!f->enabled)
		flags |= ST_NOIP;
	if ((f->status & ST_EOS) && !f->process_event)
		flags |= ST_EOS;
	return flags;
}

static int i_event_pending(struct flow *f)
{
	int st;

	if (f->process_event)
		return 1;
	if (!(f->status & ST_EVENT))
		return 0;
	st = fq_event(f, &f->ev);
	if (st < 0)
		return st;
	f->process_event = 1;
	f->status = st;
	return 1;
}

static int i_check_ip_event(struct flow *f)
{
	struct ev *ev = &f->ev;
	int st = i_event_pending(f);

	if (st <= 0)
		return st < 0 ? st : i_status(f, 0);
	switch (ev->type) {
	case FLOW_EV_DISABLED:
		break;
	case FLOW_EV_ENABLED:
	case FLOW_EV_OVERFLOW:
	case FLOW_EV_STOP:
	case FLOW_EV_PWRE:
	case FLOW_EV_PWRX:
	case FLOW_EV_CBR:
	case FLOW_EV_MNT:
		return i_status(f, ST_EVENT);
	case FLOW_EV_ASYNC_DISABLED:
		if (ev->ip != f->ip)
			break;
		return i_status(f, ST_EVENT);
	case FLOW_EV_TSX:
		if (!ev->noip && f->ip != ev->ip)
			break;
		return i_status(f, ST_EVENT);
	case FLOW_EV_ASYNC_BRANCH:
		if (ev->ip != f->ip)
			break;
		return i_status(f, ST_EVENT);
	case FLOW_EV_EXEC_MODE:
	case FLOW_EV_ASYNC_PAGING:
	case FLOW_EV_ASYNC_VMCS:
		if (!ev->noip && ev->ip != f->ip)
			break;
		return i_status(f, ST_EVENT);
	case FLOW_EV_PAGING:
	case FLOW_EV_VMCS:
	case FLOW_EV_PTWRITE:
		if (f->enabled)
			break;
		return i_status(f, ST_EVENT);
	case FLOW_EV_EXSTOP:
	case FLOW_EV_MWAIT:
		if (!ev->noip && f->enabled && f->ip != ev->ip)
			break;
		return i_status(f, ST_EVENT);
	}
	return i_status(f, 0);
}

static int i_start(struct flow *f, int status)
{
	if (status < 0)
		return status;
	f->status = status;
	if (!(status & ST_NOIP))
		f->enabled = 1;
	f->fup_only = f->enabled && !f->cfg.libipt;
	f->decided = f->sync;
	i_context(f);
	return i_check_ip_event(f);
}

static int i_sync_forward(struct flow *f)
{
	i_reset(f);
	f->blk = NULL;
	return i_start(f, fq_sync_forward(f, &f->ip));
}

/* The IP after @in when it is not a branch that needs trace. */
static int next_ip(uint64_t *ip, const struct insn *in)
{
	switch (in->iclass) {
	case FLOW_IC_OTHER:
	case FLOW_IC_PTWRITE:
		*ip = in->ip + in->size;
		return 0;
	case FLOW_IC_CALL:
	case FLOW_IC_JUMP:
		if (in->direct) {
			*ip = in->target;
			return 0;
		}
		return -FLOW_E_BAD_QUERY;
	case FLOW_IC_ERROR:
		return -FLOW_E_BAD_INSN;
	default:
		return -FLOW_E_BAD_QUERY;
	}
}

static int at_disabled(const struct ev *ev, const struct insn *in)
{
	if (ev->noip)
		return in->far || in->cpl || in->cr3;
	switch (in->iclass) {
	case FLOW_IC_OTHER:
	case FLOW_IC_PTWRITE:
		return 0;
	case FLOW_IC_CALL:
	case FLOW_IC_JUMP:
		if (in->direct && in->target != ev->ip)
			return 0;
		return 1;
	case FLOW_IC_ERROR:
		return -FLOW_E_BAD_INSN;
	default:
		return 1;
	}
}

static int i_postpone(struct flow *f, const struct insn *in)
{
	if (!f->process_insn) {
		f->process_insn = 1;
		f->pinsn = *in;
	}
	return i_status(f, ST_EVENT);
}

static int i_check_insn_event(struct flow *f, const struct insn *in)
{
	struct ev *ev = &f->ev;
	int st = i_event_pending(f);

	if (st <= 0)
		return st;
	switch (ev->type) {
	case FLOW_EV_DISABLED:
		st = at_disabled(ev, in);
		if (st <= 0)
			return st;
		st = next_ip(&f->ip, in);
		if (st < 0) {
			f->ip = 0;
			if (st != -FLOW_E_BAD_QUERY)
				return st;
			if (in->iclass == FLOW_IC_CALL || in->iclass == FLOW_IC_FAR_CALL)
				f->ip = in->ip + in->size;
		}
		break;
	case FLOW_EV_PAGING:
		if (f->bound_paging || !(in->pip || in->far))
			return 0;
		f->bound_paging = 1;
		return i_postpone(f, in);
	case FLOW_EV_VMCS:
		if (f->bound_vmcs || !(in->vmcs || in->far))
			return 0;
		f->bound_vmcs = 1;
		return i_postpone(f, in);
	case FLOW_EV_PTWRITE:
		if (f->bound_ptwrite)
			return 0;
		if (ev->noip) {
			if (in->iclass != FLOW_IC_PTWRITE)
				return 0;
			ev->ip = f->ip;
			ev->noip = 0;
		} else if (f->ip != ev->ip) {
			return 0;
		}
		f->bound_ptwrite = 1;
		return i_postpone(f, in);
	default:
		return 0;
	}
	return i_status(f, ST_EVENT);
}

/* Move f->ip past @in, asking the trace where branches go. */
static int i_proceed(struct flow *f, const struct insn *in)
{
	int st, taken;

	f->ip += in->size;
	switch (in->iclass) {
	case FLOW_IC_OTHER:
	case FLOW_IC_PTWRITE:
		return 0;
	case FLOW_IC_COND_JUMP:
		st = fq_cond_branch(f, &taken);
		if (st < 0)
			return st;
		f->status = st;
		f->decided = f->tnt_off;
		rs_settle(f);
		if (!taken)
			return 0;
		break;
	case FLOW_IC_CALL:
		if (in->disp || !in->direct)
			rs_push(f, f->ip);
		break;
	case FLOW_IC_RETURN:
		st = fq_cond_branch(f, &taken);
		if (st >= 0) {
			f->status = st;
			f->decided = f->tnt_off;
			if (!taken)
				return -FLOW_E_BAD_RETCOMP;
			st = rs_pop(f, &f->ip);
			rs_settle(f);
			return st;
		}
		break;
	case FLOW_IC_JUMP:
	case FLOW_IC_FAR_CALL:
	case FLOW_IC_FAR_RETURN:
	case FLOW_IC_FAR_JUMP:
		break;
	default:
		return -FLOW_E_BAD_INSN;
	}
	if (in->direct) {
		f->ip += (uint64_t)in->disp;
		return 0;
	}
	st = fq_indirect_branch(f, &f->ip);
	if (st < 0)
		return st;
	f->status = st;
	f->decided = f->tip_off;
	if (st & ST_NOIP)
		return -FLOW_E_NOIP;
	return 0;
}

/* The next instruction into @in.  Returns a status or a negative error;
 * *@got says whether @in holds an instruction (even on error). */
static int i_next(struct flow *f, struct insn *in, int *got)
{
	int st;

	*got = 0;
	if (!f->enabled)
		return (f->status & ST_EOS) ? -FLOW_E_EOS : -FLOW_E_NO_ENABLE;
	st = fb_insn_at(f, in);
	if (st < 0)
		return st;
	*got = 1;
	st = i_check_insn_event(f, in);
	if (st) {
		if (st < 0 || (st & ST_EVENT))
			return st;
	}
	fb_advance(f, in);
	st = i_proceed(f, in);
	if (st < 0)
		return st;
	return i_check_ip_event(f);
}

static int i_proceed_postponed(struct flow *f)
{
	int st;

	if (f->enabled) {
		st = i_proceed(f, &f->pinsn);
		if (st < 0)
			return st;
	}
	f->process_insn = 0;
	f->bound_paging = f->bound_vmcs = f->bound_ptwrite = 0;
	return 0;
}

/* A PSB+ event bound to the PSB's IP (@ev, being processed): the code from
 * here on is what decoding from that PSB gives, though packets before it
 * decided it (a range ending at the PSB ends here: fi_past()). */
static void i_psb_bound(struct flow *f, const struct ev *ev)
{
	if (ev->status && !ev->noip && (ev->type == FLOW_EV_EXEC_MODE ||
	    ev->type == FLOW_EV_TSX || ev->type == FLOW_EV_ASYNC_PAGING ||
	    ev->type == FLOW_EV_ASYNC_VMCS))
		f->psb_passed = ev->psb;
}

/* A TIP.PGE (@ev): tracing enabled at its IP.  Returns 0 or an error. */
static int i_enable(struct flow *f, struct ev *ev)
{
	if (f->ip == ev->ip)
		ev->spec |= 2;	/* resumed; see flow_next */
	if (ev->status)
		return -FLOW_E_BAD_CONTEXT;
	if (ev->noip)
		return -FLOW_E_NOIP;
	/* A PSB+ has a FUP if tracing is enabled (SDM 36.3.7), but KVM-PT's
	 * restate the IP where tracing stopped: a TIP.PGE before any
	 * instruction says it was not enabled at the PSB (decoding from the
	 * start, a TIP.PGD before the PSB said so). */
	if (f->enabled && !f->fup_only)
		return -FLOW_E_BAD_CONTEXT;
	f->ip = ev->ip;
	f->enabled = 1;
	f->fup_only = 0;
	f->decided = ev->offset;
	i_context(f);
	return 0;
}

static int i_event(struct flow *f, struct ev *out)
{
	struct ev *ev = &f->ev;
	int st;

	if (!f->process_event)
		return -FLOW_E_BAD_QUERY;
	switch (ev->type) {
	case FLOW_EV_ENABLED:
		st = i_enable(f, ev);
		if (st < 0)
			return st;
		break;
	case FLOW_EV_ASYNC_DISABLED:
		if (!ev->noip && f->ip != ev->ip)
			return -FLOW_E_BAD_QUERY;
		/* fall through */
	case FLOW_EV_DISABLED:
		if (ev->status)
			return -FLOW_E_BAD_CONTEXT;
		if (!f->enabled)
			return -FLOW_E_BAD_CONTEXT;
		f->enabled = f->fup_only = 0;
		break;
	case FLOW_EV_ASYNC_BRANCH:
		if (f->ip != ev->ip)
			return -FLOW_E_BAD_QUERY;
		if (ev->status || !f->enabled)
			return -FLOW_E_BAD_CONTEXT;
		f->ip = ev->to;
		f->decided = ev->offset;
		f->fup_only = 0;	/* tracing was on: no KVM-PT restatement */
		i_context(f);
		break;
	case FLOW_EV_ASYNC_PAGING:
		if (!ev->noip && f->ip != ev->ip)
			return -FLOW_E_BAD_QUERY;
		/* fall through */
	case FLOW_EV_PAGING:
		f->cr3 = ev->a;
		f->have_cr3 = 1;
		i_context(f);
		break;
	case FLOW_EV_ASYNC_VMCS:
		if (!ev->noip && f->ip != ev->ip)
			return -FLOW_E_BAD_QUERY;
		/* fall through */
	case FLOW_EV_VMCS:
		f->vmcs = ev->a;
		f->have_vmcs = 1;
		i_context(f);
		break;
	case FLOW_EV_OVERFLOW:
		if (ev->status)
			return -FLOW_E_BAD_CONTEXT;
		if (ev->noip) {
			f->enabled = 0;
			f->ip = 0;
		} else {
			f->ip = ev->ip;
			f->enabled = 1;
			f->decided = ev->offset;
			i_context(f);
		}
		f->speculative = 0;
		f->fup_only = 0;
		break;
	case FLOW_EV_EXEC_MODE:
		if (ev->status && f->enabled && f->mode != FLOW_MODE_UNKNOWN &&
		    f->mode != ev->mode)
			return -FLOW_E_BAD_STATUS_UPDATE;
		if (f->mode != ev->mode)
			f->blk = NULL;	/* its lengths were for the old mode */
		f->mode = ev->mode;
		break;
	case FLOW_EV_TSX:
		f->speculative = ev->spec & 1;
		f->fup_only &= ev->status || ev->noip;
		break;
	case FLOW_EV_STOP:
		if (ev->status || f->enabled)
			return -FLOW_E_BAD_CONTEXT;
		break;
	case FLOW_EV_EXSTOP:
	case FLOW_EV_MWAIT:
		if (!ev->noip && f->enabled && f->ip != ev->ip)
			return -FLOW_E_BAD_QUERY;
		/* with its FUP, only a CPU tracing sends it: a TIP.PGE
		 * after it is no KVM-PT restatement */
		f->fup_only &= ev->status || ev->noip;
		break;
	default:
		break;
	}
	i_psb_bound(f, ev);
	*out = *ev;
	f->process_event = 0;
	if (f->process_insn) {
		st = i_check_insn_event(f, &f->pinsn);
		if (st) {
			if (st < 0 || (st & ST_EVENT))
				return st;
		}
		st = i_proceed_postponed(f);
		if (st < 0)
			return st;
	}
	return i_check_ip_event(f);
}

/*
 * The driver
 */

int flow_new(struct flow **out, const struct flow_config *cfg)
{
	struct flow *f;
	uint32_t n = 2;

	if (!out || !cfg || !cfg->img || !cfg->read)
		return -FLOW_E_INVALID;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -FLOW_E_NOMEM;
	f->cfg = *cfg;
	while (n < (cfg->cache_blocks ? cfg->cache_blocks : 65536) && n < (1u << 24))
		n <<= 1;
	f->ncache = n;
	f->cache = malloc((size_t)n * sizeof(*f->cache));
	if (!f->cache) {
		free(f);
		return -FLOW_E_NOMEM;
	}
	flow_cache_flush(f);
	ZydisDecoderInit(&f->zd[FLOW_MODE_16], ZYDIS_MACHINE_MODE_LEGACY_16,
			 ZYDIS_STACK_WIDTH_16);
	ZydisDecoderInit(&f->zd[FLOW_MODE_32], ZYDIS_MACHINE_MODE_LEGACY_32,
			 ZYDIS_STACK_WIDTH_32);
	ZydisDecoderInit(&f->zd[FLOW_MODE_64], ZYDIS_MACHINE_MODE_LONG_64,
			 ZYDIS_STACK_WIDTH_64);
	f->cur_at = UINT64_MAX;
	f->state = DRV_IDLE;
	*out = f;
	return 0;
}

void flow_free(struct flow *f)
{
	if (!f)
		return;
	free(f->cache);
	free(f);
}

int flow_seek(struct flow *f, uint64_t off, uint64_t end)
{
	if (!f)
		return -FLOW_E_INVALID;
	fq_reset(f);
	i_reset(f);
	f->have_next = 0;
	f->synced = 0;
	f->pos = off;
	f->cur_at = UINT64_MAX;
	f->err_sync = f->cfg.libipt ? 0 : UINT64_MAX;
	f->psb_passed = UINT64_MAX;
	f->spin_off = UINT64_MAX;
	f->spin_n = 0;
	f->end = end;
	f->blk = NULL;
	f->asid_at = UINT64_MAX;
	f->seek_err = 0;
	f->pending_err = 0;
	f->state = DRV_SYNC;
	return 0;
}

void flow_stats(const struct flow *f, struct flow_stats *s)
{
	if (f && s)
		*s = f->st;
}

static void rec_event(struct flow *f, const struct ev *ev, struct flow_rec *r)
{
	memset(r, 0, sizeof(*r));
	r->kind = FLOW_EVENT;
	r->ev = ev->type;
	r->offset = ev->offset;
	r->asid = f->asid;
	r->ip = ev->noip ? 0 : ev->ip;
	r->a = ev->a;
	r->b = ev->b;
	if (ev->status)
		r->flags |= FLOW_F_STATUS;
	if (ev->noip)
		r->flags |= FLOW_F_NOIP;
	switch (ev->type) {
	case FLOW_EV_ENABLED:
		if (ev->spec & 2)
			r->flags |= FLOW_F_RESUMED;
		break;
	case FLOW_EV_ASYNC_BRANCH:
		r->a = ev->to;
		break;
	case FLOW_EV_ASYNC_DISABLED:
		r->a = ev->to;
		break;
	case FLOW_EV_EXEC_MODE:
		r->a = ev->mode;
		break;
	case FLOW_EV_TSX:
		if (ev->spec & 1)
			r->flags |= FLOW_F_SPEC;
		if (ev->abort)
			r->flags |= FLOW_F_ABORT;
		break;
	default:
		break;
	}
	f->st.events++;
}

static void rec_error(struct flow *f, int err, uint64_t off, struct flow_rec *r)
{
	memset(r, 0, sizeof(*r));
	r->kind = FLOW_ERROR;
	r->err = err;
	r->offset = off;
	r->asid = f->asid;
	f->st.errors++;
}

static void rec_insn(struct flow *f, const struct insn *in, uint64_t decided,
		     struct flow_rec *r)
{
	r->kind = FLOW_INSN;
	r->ip = in->ip;
	r->size = in->size;
	r->mode = f->mode;
	r->iclass = in->iclass;
	r->offset = decided;
	r->asid = f->insn_asid;
	r->flags = (uint8_t)((f->speculative ? FLOW_F_SPEC : 0) |
			     (in->direct ? FLOW_F_DIRECT : 0));
	r->ev = 0;
	r->err = 0;
	r->a = r->b = 0;
	f->fup_only = 0;
	f->st.insns++;
}

/* After an error: report it where libipt would and go on at the next PSB. */
static void drv_error(struct flow *f, int err, struct flow_rec *r)
{
	rec_error(f, err, f->pos, r);
	/* where the code is missing or undecodable: its address */
	if (err == -FLOW_E_NOMAP || err == -FLOW_E_BAD_INSN)
		r->ip = f->ip;
	f->state = DRV_SYNC;
}

static int flow_next1(struct flow *f, struct flow_rec *r);

/*
 * Count instruction record @r (@n instructions): more than FLOW_SPIN_MAX
 * of them from one packet is code looping where the trace says nothing
 * (libipt's decoder follows it forever; a window of it would fill the
 * memory).  Then @r becomes an error record (returns 1), and decoding
 * goes on at the next PSB.
 */
static int drv_spin(struct flow *f, struct flow_rec *r, uint32_t n)
{
	uint64_t ip = r->ip;

	if (r->kind != FLOW_INSN)
		return 0;
	if (r->offset != f->spin_off) {
		f->spin_off = r->offset;
		f->spin_n = 0;
	}
	f->spin_n += n;
	if (f->spin_n <= FLOW_SPIN_MAX)
		return 0;
	rec_error(f, -FLOW_E_SPIN, f->pos, r);
	r->ip = ip;	/* where it loops */
	f->spin_off = UINT64_MAX;
	f->state = DRV_SYNC;
	return 1;
}

int flow_next(struct flow *f, struct flow_rec *r)
{
	int err, past;

	/* the range ends at the first record a packet at or past it decided */
	while (!(err = flow_next1(f, r))) {
		drv_spin(f, r, 1);
		past = fi_past(f, r, f->end);
		if (!past)
			break;
		if (past > 1) {
			f->state = DRV_DONE;
			return -FLOW_E_EOS;
		}
	}
	return err;
}

/* Whether nothing is pending: what i_next() would do for an instruction
 * comes down to stepping over it (or, for the branch ending a block, to
 * drv_last()). */
static inline int drv_quiet(const struct flow *f)
{
	return f->state == DRV_DRAIN && !f->dstatus && f->enabled &&
	       !f->process_event && !f->process_insn &&
	       !(f->status & (ST_EVENT | ST_EOS));
}

/* After the instruction a fast path took: the status @st of what it did
 * (i_proceed() and i_check_ip_event()'s), as drv_insn() keeps it. */
static void drv_settle(struct flow *f, int st)
{
	if (st >= 0) {
		f->dstatus = st;
	} else if (st == -FLOW_E_EOS) {
		f->state = DRV_DONE;
	} else {
		/* the error comes after the instruction */
		f->pending_err = st;
		f->pending_err_off = f->pos;
		f->state = DRV_ERROR;
	}
}

/*
 * The last instruction @in of a cached block, at @at, when drv_quiet():
 * what i_next() does for it (no event binds to it: none is pending).  A
 * direct jump or call, a conditional branch or a compressed return with a
 * TNT bit at hand are taken here; the rest asks the trace through
 * i_proceed().  Moves f->ip past it and leaves the block.
 */
static inline void drv_last(struct flow *f, const struct insn *in, uint64_t at)
{
	uint64_t ip = at + in->size;
	int st;

	f->bip = ip;
	f->bi = BLK_MAX;
	switch (in->iclass) {
	case FLOW_IC_COND_JUMP:
		if (!f->tnt_mask || !in->direct)
			break;
		if (f->tnt_bits & f->tnt_mask)
			ip = in->target;
		goto out_tnt;
	case FLOW_IC_RETURN:
		/* not taken is an error, an empty stack too: i_proceed()
		 * says so */
		if (!(f->tnt_bits & f->tnt_mask) || f->rs_top == f->rs_bottom)
			break;
		rs_pop(f, &ip);
		goto out_tnt;
	case FLOW_IC_CALL:
		if (!in->direct)
			break;
		if (in->disp)
			rs_push(f, ip);
		f->ip = in->target;
		return;
	case FLOW_IC_JUMP:
		if (!in->direct)
			break;
		f->ip = in->target;
		return;
	default:
		break;
	}
	f->ip = at;
	st = i_proceed(f, in);
	drv_settle(f, st < 0 ? st : i_check_ip_event(f));
	return;
out_tnt:
	/* as fq_cond_branch(): with bits left, nothing to tell */
	f->tnt_mask >>= 1;
	f->decided = f->tnt_off;
	f->ip = ip;
	rs_settle(f);
	if (!f->tnt_mask) {
		f->status = fq_status(f);
		drv_settle(f, i_check_ip_event(f));
	}
}

/*
 * The fast path: an instruction of a cached block, with nothing
 * pending, stepped over (drv_quiet()), or the one that ends it, a branch
 * maybe, taken (drv_last()).  1 with @r filled, 0 if it does not apply.
 */
/*
 * The record @r of the instructions from f->ip (block @b's @i-th) to
 * instruction @k at @at, taken (drv_last() for a special last one, else
 * stepped over): what drv_fast() and drv_fast_blk() share.
 */
static inline void drv_take(struct flow *f, struct flow_rec *r,
			    const struct blk *b, unsigned k, uint64_t at)
{
	r->kind = FLOW_INSN;
	r->ip = f->ip;
	r->mode = f->mode;
	r->offset = f->decided;
	r->asid = b->asid;
	f->fup_only = 0;
	r->flags = f->speculative ? FLOW_F_SPEC : 0;
	if (k + 1 == b->n && b->last_special) {
		drv_last(f, &b->last, at);
		r->size = b->last.size;
		r->iclass = b->last.iclass;
		if (b->last.direct)
			r->flags |= FLOW_F_DIRECT;
	} else {
		r->size = b->len[k];
		r->iclass = FLOW_IC_OTHER;
		f->ip = at + r->size;
		f->bi = k + 1;
		f->bip = f->ip;
	}
	r->ev = 0;
	r->err = 0;
	r->a = r->b = 0;
}

static inline int drv_fast(struct flow *f, struct flow_rec *r)
{
	/* the block looked up here where the IP moved to another (after a
	 * taken branch); where the lookup fails, the slow path says why */
	if (!drv_quiet(f) || fb_seek(f))
		return 0;
	drv_take(f, r, f->blk, f->bi, f->ip);
	f->st.insns++;
	return 1;
}

/*
 * drv_fast() for a whole block: the instructions from f->ip to the block's
 * end in one record, the block looked up first where the IP moved to
 * another.  Stepping over them one by one would find the same conditions
 * before each, and the branch that ends the block comes last.  1 with @r
 * and @o filled, 0 if it does not apply.
 */
static inline int drv_fast_blk(struct flow *f, struct flow_rec *r, struct fi_blk *o)
{
	const struct blk *b;
	uint64_t last;
	unsigned i, n;

	/* where the lookup fails, the slow path says why */
	if (!drv_quiet(f) || fb_seek(f))
		return 0;
	b = f->blk;
	i = f->bi;
	n = b->n;
	last = b->last.ip;
	drv_take(f, r, b, n - 1, last);
	o->n = n - i;
	o->last_ip = last;
	o->sizes = &b->len[i];
	o->full = !i;
	f->st.insns += o->n;
	return 1;
}

int fi_next_blk(struct flow *f, struct flow_rec *r, struct fi_blk *o)
{
	int err;

	if (!f || !r || !o || f->state == DRV_IDLE)
		return -FLOW_E_INVALID;
	for (;;) {
		if (!drv_fast_blk(f, r, o)) {
			err = flow_next1(f, r);
			if (err)
				return err;
			fi_blk_one(r, o);
		}
		if (drv_spin(f, r, o->n))
			fi_blk_one(r, o);
		switch (fi_past(f, r, f->end)) {
		case 0:
			return 0;
		case 2:
			f->state = DRV_DONE;
			return -FLOW_E_EOS;
		}
	}
}

/* DRV_SYNC: 0 synchronised (drain next), 1 with an error record in @r,
 * -FLOW_E_EOS at the end. */
static int drv_sync(struct flow *f, struct flow_rec *r)
{
	int st = i_sync_forward(f);

	if (st >= 0) {
		f->dstatus = st;
		f->state = DRV_DRAIN;
		return 0;
	}
	if (st == -FLOW_E_EOS) {
		f->state = DRV_DONE;
		return -FLOW_E_EOS;
	}
	/* no progress since the last sync error: stop (a first one at the
	 * PSB at offset 0 is progress: the next sync looks past it) */
	if (!f->synced || (f->err_sync != UINT64_MAX && f->pos <= f->err_sync))
		f->state = DRV_DONE;
	else
		f->err_sync = f->pos;
	rec_error(f, st, f->pos, r);
	return 1;
}

/* DRV_INSN: 0 with the next instruction (or an error) in @r,
 * -FLOW_E_EOS at the end. */
static int drv_insn(struct flow *f, struct flow_rec *r)
{
	uint64_t decided = f->decided;
	struct insn in;
	int st, got;

	st = i_next(f, &in, &got);
	if (st < 0) {
		if (st == -FLOW_E_EOS && !got) {
			f->state = DRV_DONE;
			return -FLOW_E_EOS;
		}
		if (got) {
			rec_insn(f, &in, decided, r);
			if (st == -FLOW_E_EOS) {
				f->state = DRV_DONE;
			} else {
				f->pending_err = st;
				f->pending_err_off = f->pos;
				f->state = DRV_ERROR;
			}
			return 0;
		}
		drv_error(f, st, r);
		return 0;
	}
	rec_insn(f, &in, decided, r);
	f->dstatus = st;
	f->state = DRV_DRAIN;
	return 0;
}

static int flow_next1(struct flow *f, struct flow_rec *r)
{
	struct ev ev;
	int st;

	if (!f || !r || f->state == DRV_IDLE)
		return -FLOW_E_INVALID;
	if (drv_fast(f, r))
		return 0;
	for (;;) {
		switch (f->state) {
		case DRV_DONE:
			return -FLOW_E_EOS;
		case DRV_ERROR:
			rec_error(f, f->pending_err, f->pending_err_off, r);
			f->state = DRV_SYNC;
			return 0;
		case DRV_SYNC:
			st = drv_sync(f, r);
			if (st)
				return st < 0 ? st : 0;
			break;
		case DRV_DRAIN:
			if (f->dstatus & ST_EVENT) {
				st = i_event(f, &ev);
				if (st == -FLOW_E_EOS) {
					f->state = DRV_DONE;
					return -FLOW_E_EOS;
				}
				if (st < 0) {
					drv_error(f, st, r);
					return 0;
				}
				f->dstatus = st;
				rec_event(f, &ev, r);
				return 0;
			}
			if (f->dstatus & ST_EOS) {
				f->state = DRV_DONE;
				return -FLOW_E_EOS;
			}
			f->state = DRV_INSN;
			break;
		case DRV_INSN:
			return drv_insn(f, r);
		}
	}
}

const char *flow_event_str(const struct flow_rec *r, char *buf, size_t len)
{
	static const char *const why[] = { "?", "int", "st", "hw" };
	unsigned w;

	switch (r->ev) {
	case FLOW_EV_ENABLED:
		snprintf(buf, len, "%s", r->flags & FLOW_F_RESUMED ? "resumed" : "enabled");
		break;
	case FLOW_EV_DISABLED:
	case FLOW_EV_ASYNC_DISABLED:
		snprintf(buf, len, "disabled");
		break;
	case FLOW_EV_ASYNC_BRANCH:
		snprintf(buf, len, "interrupt");
		break;
	case FLOW_EV_PAGING:
	case FLOW_EV_ASYNC_PAGING:
		snprintf(buf, len, "paging, cr3: %016llx%s", (unsigned long long)r->a,
			 r->b ? ", nr" : "");
		break;
	case FLOW_EV_OVERFLOW:
		snprintf(buf, len, "overflow");
		break;
	case FLOW_EV_EXEC_MODE:
		snprintf(buf, len, "exec mode: %s", flow_mode_name((enum flow_mode)r->a));
		break;
	case FLOW_EV_TSX:
		snprintf(buf, len, "%s", r->flags & FLOW_F_ABORT ? "aborted" :
			 r->flags & FLOW_F_SPEC ? "begin transaction" : "committed");
		break;
	case FLOW_EV_STOP:
		snprintf(buf, len, "stopped");
		break;
	case FLOW_EV_VMCS:
	case FLOW_EV_ASYNC_VMCS:
		snprintf(buf, len, "vmcs, base: %016llx", (unsigned long long)r->a);
		break;
	case FLOW_EV_EXSTOP:
		snprintf(buf, len, "exstop");
		break;
	case FLOW_EV_MWAIT:
		snprintf(buf, len, "mwait %llx %llx", (unsigned long long)r->a,
			 (unsigned long long)r->b);
		break;
	case FLOW_EV_PWRE:
		snprintf(buf, len, "pwre c%u.%u (%s)", (unsigned)((r->a >> 8) + 1) & 0xf,
			 (unsigned)((r->a & 0xff) + 1) & 0xf, r->a >> 16 ? "hw" : "sw");
		break;
	case FLOW_EV_PWRX:
		w = r->a & (1u << 16) ? 1 : r->a & (1u << 17) ? 2 : r->a & (1u << 18) ? 3 : 0;
		snprintf(buf, len, "pwrx %s: c%u (c%u)", why[w],
			 (unsigned)(((r->a >> 8) & 0xff) + 1) & 0xf,
			 (unsigned)((r->a & 0xff) + 1) & 0xf);
		break;
	case FLOW_EV_PTWRITE:
		snprintf(buf, len, "ptwrite: %llx", (unsigned long long)r->a);
		break;
	case FLOW_EV_CBR:
		snprintf(buf, len, "cbr: %x", (unsigned)r->a);
		break;
	case FLOW_EV_MNT:
		snprintf(buf, len, "mnt: %llx", (unsigned long long)r->a);
		break;
	default:
		snprintf(buf, len, "event %u", r->ev);
		break;
	}
	return buf;
}
