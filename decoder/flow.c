/*
 * flow -- the instruction flow decoder (see flow.h).
 *
 * Two layers, as in libipt, whose behaviour this reproduces:
 *   q_*  the packet layer: a position in the trace, the next packet
 *        fetched but not yet applied, the last IP, the TNT bits of the
 *        current TNT packet, and event queues by what a pending event binds
 *        to (PSBEND, TIP, FUP).  It answers three questions -- the next
 *        conditional branch, the next indirect branch, the next event --
 *        and reads ahead past status packets to the next packet that
 *        answers one, so errors are reported where libipt reports them.
 *   i_*  the instruction layer: the IP, the mode, whether tracing is on,
 *        the call stack, and the binding of events to instructions and IPs.
 * flow_next() drives them as ptxed's loop does, with a fast path for the
 * instructions inside a cached block when nothing is pending.  Code is
 * read through the caller's callback and decoded with Zydis into basic
 * blocks (straight-line code up to a branch or a special instruction),
 * kept in a two-way table of fixed size.
 *
 * libipt 2.0.5's verdicts are reproduced where our packet decoder (pkt.h)
 * is more lenient or knows newer packets (libipt_payload(), q_fetch()),
 * and its synchronisation search is emulated (q_find_psb()).
 */
#include "flow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <Zydis/Zydis.h>

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

static const uint8_t qk_flags[QK_N] = {
	[QK_UNKNOWN] = QF_HEADER, [QK_PAD] = QF_HEADER, [QK_PSB] = 0,
	[QK_TIP] = QF_TIP, [QK_TNT8] = QF_TNT, [QK_TNT64] = QF_TNT,
	[QK_PGE] = QF_EVENT, [QK_PGD] = QF_EVENT,
	[QK_FUP] = QF_FUP | QF_HEADER, [QK_PIP] = QF_EVENT | QF_HEADER,
	[QK_OVF] = QF_EVENT | QF_PSBEND, [QK_MODE] = QF_EVENT | QF_HEADER,
	[QK_PSBEND] = QF_PSBEND, [QK_TSC] = QF_HEADER,
	[QK_CBR] = QF_EVENT | QF_HEADER, [QK_TMA] = QF_HEADER,
	[QK_MTC] = QF_HEADER, [QK_CYC] = QF_HEADER, [QK_STOP] = QF_EVENT,
	[QK_VMCS] = QF_EVENT | QF_HEADER, [QK_MNT] = QF_EVENT | QF_HEADER,
	[QK_EXSTOP] = QF_EVENT, [QK_MWAIT] = QF_EVENT, [QK_PWRE] = QF_EVENT,
	[QK_PWRX] = QF_EVENT, [QK_PTW] = QF_EVENT,
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
	int synced;		/* pos/sync are meaningful */
	int have_next;		/* nx holds the packet at pos */
	enum qk nk;		/* its kind */
	struct pkt nx;		/* it, decoded, if nx_err == 0 */
	int nx_err;		/* or the error decoding it (negative flow err) */
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
	uint8_t speculative;
	int status;
	int process_event;
	struct ev ev;		/* the event being processed */
	int process_insn;
	struct insn pinsn;	/* the instruction events bind to */
	uint8_t bound_paging, bound_vmcs, bound_ptwrite;
	uint64_t retstack[RETSTACK_SIZE + 1];
	uint8_t rs_top, rs_bottom;
	uint64_t cr3, vmcs;
	uint8_t have_cr3, have_vmcs;
	uint64_t asid;		/* the block cache's address space (i_context()) */
	uint64_t decided;	/* the packet that decided the current IP */

	/* the driver (ptxed's loop) */
	int state;		/* DRV_* */
	int dstatus;		/* the status being drained */
	uint64_t err_sync;	/* the position of the last sync error */
	uint64_t end;		/* stop at the first sync at or past this */
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
};

enum { DRV_IDLE, DRV_SYNC, DRV_DRAIN, DRV_INSN, DRV_ERROR, DRV_DONE };

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
 * Packets
 */

/* The kind of the packet whose first bytes are @b (@n of them). */
static int qk_classify(const uint8_t *b, size_t n, enum qk *k)
{
	uint8_t opc, ext;

	if (!n)
		return -FLOW_E_EOS;
	opc = b[0];
	switch (opc) {
	case 0x00: *k = QK_PAD; return 0;
	case 0x99: *k = QK_MODE; return 0;
	case 0x19: *k = QK_TSC; return 0;
	case 0x59: *k = QK_MTC; return 0;
	case 0x02: break;
	default:
		if (!(opc & 1))
			*k = QK_TNT8;
		else if ((opc & 3) == 3)
			*k = QK_CYC;
		else if ((opc & 0x1f) == 0x0d)
			*k = QK_TIP;
		else if ((opc & 0x1f) == 0x1d)
			*k = QK_FUP;
		else if ((opc & 0x1f) == 0x11)
			*k = QK_PGE;
		else if ((opc & 0x1f) == 0x01)
			*k = QK_PGD;
		else
			*k = QK_UNKNOWN;
		return 0;
	}
	if (n < 2)
		return -FLOW_E_EOS;
	ext = b[1];
	switch (ext) {
	case 0x82: *k = QK_PSB; return 0;
	case 0xf3: *k = QK_OVF; return 0;
	case 0xa3: *k = QK_TNT64; return 0;
	case 0x23: *k = QK_PSBEND; return 0;
	case 0x03: *k = QK_CBR; return 0;
	case 0x43: *k = QK_PIP; return 0;
	case 0x73: *k = QK_TMA; return 0;
	case 0x83: *k = QK_STOP; return 0;
	case 0xc8: *k = QK_VMCS; return 0;
	case 0x62: case 0xe2: *k = QK_EXSTOP; return 0;
	case 0xc2: *k = QK_MWAIT; return 0;
	case 0x22: *k = QK_PWRE; return 0;
	case 0xa2: *k = QK_PWRX; return 0;
	case 0xc3:
		if (n < 3)
			return -FLOW_E_EOS;
		*k = b[2] == 0x88 ? QK_MNT : QK_UNKNOWN;
		return 0;
	default:
		*k = (ext & 0x1f) == 0x12 ? QK_PTW : QK_UNKNOWN;
		return 0;
	}
}

static int map_pkt_err(int err)
{
	switch (-err) {
	case pte_eos:
	case pte_truncated:
		return -FLOW_E_EOS;
	case pte_bad_opc:
		return -FLOW_E_BAD_OPC;
	case pte_gap:
		return -FLOW_E_GAP;
	default:
		return -FLOW_E_BAD_PACKET;
	}
}

/* What libipt 2.0.5 refuses in payloads our packet decoder takes: a CYC
 * of more than 64 bits (8 extension bytes), a TMA with its reserved byte
 * set or FastCounter bits above bit 8.  Returns 0 or -FLOW_E_BAD_PACKET. */
static int libipt_payload(const struct img *img, const struct pkt *p)
{
	uint8_t b[7];

	if (p->type == PKT_CYC && p->size > 9)
		return -FLOW_E_BAD_PACKET;
	if (p->type == PKT_TMA &&
	    (img_read(img, p->offset, b, sizeof(b)) != sizeof(b) || b[4] || (b[6] & 0xfe)))
		return -FLOW_E_BAD_PACKET;
	return 0;
}

/* Whether the CYC at @off has 9 extension bytes before it ends (or the
 * trace does): more than libipt's 64 bits. */
static int cyc_too_long(const struct img *img, uint64_t off)
{
	uint8_t b[10];
	size_t n = img_read(img, off, b, sizeof(b)), i;

	if (!n || !(b[0] & 4))
		return 0;
	for (i = 1; i < n && i <= 9; i++)
		if (!(b[i] & 1))
			return i == 9;
	return i > 9;
}

/* Fetch the packet at f->pos into f->nx (libipt's pt_df_fetch, which also
 * tells us the payload's verdict up front).
 * Returns 0, or -FLOW_E_EOS at the end; f->have_next says which. */
static int q_fetch(struct flow *f)
{
	uint8_t buf[3];
	const uint8_t *b = buf;
	size_t n;
	int err;

	f->have_next = 0;
	/* PADs change nothing and every question of libipt's goes past them:
	 * step over a run of them at once. */
	if (f->cur_at == f->pos && f->cur.dec.pos < f->cur.dec.end && !*f->cur.dec.pos) {
		const uint8_t *p = f->cur.dec.pos;

		while (p + 1 < f->cur.dec.end && !p[1])
			p++;
		/* the last PAD of the run is fetched as a packet */
		f->pos += (uint64_t)(p - f->cur.dec.pos);
		f->cur.dec.pos = p;
		f->cur_at = f->pos;
	}
	/* The cursor is usually right there: read its bytes in place. */
	if (f->cur_at == f->pos && f->cur.dec.end - f->cur.dec.pos >= 3) {
		b = f->cur.dec.pos;
		n = 3;
	} else {
		n = img_read(f->cfg.img, f->pos, buf, sizeof(buf));
	}
	err = qk_classify(b, n, &f->nk);
	if (err) {
		/* a gap right here is lost data, not the end */
		if (f->pos < f->cfg.img->size && img_gap_at(f->cfg.img, f->pos + n)) {
			f->nk = QK_UNKNOWN;
			f->nx_err = -FLOW_E_GAP;
			f->have_next = 1;
			return 0;
		}
		return err;
	}
	if (f->cur_at != f->pos) {
		if (img_cursor_init(&f->cur, f->cfg.img, f->pos))
			return -FLOW_E_EOS;
	}
	err = img_cursor_next(&f->cur, &f->nx);
	if (f->nk == QK_UNKNOWN) {
		/* whatever our packet decoder makes of it (a TRIG, say) */
		f->nx_err = -FLOW_E_BAD_OPC;
		f->cur_at = UINT64_MAX;
	} else if (err < 0) {
		f->nx_err = map_pkt_err(err);
		f->cur_at = UINT64_MAX;
		/* a CYC cut by the end: libipt first says it is too long */
		if (f->nk == QK_CYC && f->nx_err == -FLOW_E_EOS &&
		    cyc_too_long(f->cfg.img, f->pos))
			f->nx_err = -FLOW_E_BAD_PACKET;
	} else {
		f->nx_err = 0;
		f->cur_at = f->pos + (uint64_t)err;
		/* libipt knows none of these */
		switch (f->nx.type) {
		case PKT_CYC:
		case PKT_TMA:
			f->nx_err = libipt_payload(f->cfg.img, &f->nx);
			break;
		case PKT_CFE: case PKT_EVD: case PKT_TRIG: case PKT_BBP:
		case PKT_BIP: case PKT_BEP:
			f->nx_err = -FLOW_E_BAD_OPC;
			break;
		default:
			break;
		}
	}
	f->have_next = 1;
	return 0;
}

static void q_consume(struct flow *f)
{
	f->pos += f->nx.size;
}

static void evq_init(struct evq *q)
{
	memset(q->begin, 0, sizeof(q->begin));
	memset(q->end, 0, sizeof(q->end));
}

static struct ev *evq_standalone(struct flow *f)
{
	memset(&f->evq.standalone, 0, sizeof(f->evq.standalone));
	f->evq.standalone.offset = f->pos;
	return &f->evq.standalone;
}

static struct ev *evq_enqueue(struct flow *f, int evb)
{
	struct evq *q = &f->evq;
	uint8_t e = q->end[evb], ne = (uint8_t)((e + 1) % EVQ_SIZE);
	struct ev *ev;

	/* full: libipt keeps a slot free behind the last dequeued event too */
	if (ne == q->begin[evb] || (ne + 1) % EVQ_SIZE == q->begin[evb])
		return NULL;
	ev = &q->q[evb][e];
	memset(ev, 0, sizeof(*ev));
	ev->offset = f->pos;
	q->end[evb] = ne;
	return ev;
}

static struct ev *evq_dequeue(struct flow *f, int evb)
{
	struct evq *q = &f->evq;
	struct ev *ev;

	if (q->begin[evb] == q->end[evb])
		return NULL;
	ev = &q->q[evb][q->begin[evb]];
	q->begin[evb] = (uint8_t)((q->begin[evb] + 1) % EVQ_SIZE);
	/* the packet publishing it is the one at the position now */
	ev->offset = f->pos;
	return ev;
}

static int evq_pending(const struct flow *f, int evb)
{
	return f->evq.begin[evb] != f->evq.end[evb];
}

static struct ev *evq_find(struct flow *f, int evb, int type)
{
	struct evq *q = &f->evq;
	uint8_t i;

	for (i = q->begin[evb]; i != q->end[evb]; i = (uint8_t)((i + 1) % EVQ_SIZE))
		if (q->q[evb][i].type == type)
			return &q->q[evb][i];
	return NULL;
}

static void lastip_init(struct flow *f)
{
	f->last_ip = 0;
	f->have_ip = 0;
	f->ip_suppressed = 0;
}

static int lastip_query(const struct flow *f, uint64_t *ip)
{
	if (!f->have_ip)
		return -FLOW_E_NOIP;
	if (f->ip_suppressed)
		return -FLOW_E_IP_SUPPRESSED;
	if (ip)
		*ip = f->last_ip;
	return 0;
}

static int lastip_update(struct flow *f, const struct pkt *p)
{
	uint64_t ip = f->last_ip;
	int err = pkt_ip_update(p, &ip);

	if (err < 0)
		return -FLOW_E_BAD_PACKET;
	if (err == 1) {
		f->ip_suppressed = 1;
		return 0;
	}
	f->last_ip = ip;
	f->have_ip = 1;
	f->ip_suppressed = 0;
	return 0;
}

/* The event's IP from the last IP; a missing one is suppressed. */
static int ev_ip(struct flow *f, struct ev *ev, uint64_t *ip)
{
	int err = lastip_query(f, ip);

	if (err == -FLOW_E_NOIP || err == -FLOW_E_IP_SUPPRESSED)
		ev->noip = 1;
	return 0;
}

static void q_reset(struct flow *f)
{
	f->q_enabled = 0;
	f->consume_packet = 0;
	f->event = NULL;
	lastip_init(f);
	f->tnt_mask = 0;
	evq_init(&f->evq);
	f->have_tsc = f->have_tma = 0;
}

/* libipt's time keeping refuses a TMA without a TSC before it, or a second
 * one for a TSC (pt_time_update_tma()).  Returns 0 or -FLOW_E_BAD_CONTEXT. */
static int q_time(struct flow *f)
{
	if (f->nk == QK_TSC) {
		f->have_tsc = 1;
		f->have_tma = 0;
	} else if (f->nk == QK_TMA) {
		if (!f->have_tsc || f->have_tma)
			return -FLOW_E_BAD_CONTEXT;
		f->have_tma = 1;
	}
	return 0;
}

static int will_event(const struct flow *f)
{
	uint8_t fl;

	if (!f->have_next)
		return 0;
	fl = qk_flags[f->nk];
	if (fl & QF_EVENT)
		return 1;
	if (fl & QF_PSBEND)
		return evq_pending(f, EVB_PSBEND);
	if (fl & QF_TIP)
		return evq_pending(f, EVB_TIP);
	if (fl & QF_FUP)
		return evq_pending(f, EVB_FUP);
	return 0;
}

static int will_eos(struct flow *f)
{
	uint64_t keep_at = f->cur_at;
	struct pkt keep = f->nx;
	enum qk keepk = f->nk;
	int keep_err = f->nx_err, err;

	if (f->have_next)
		return 0;
	err = q_fetch(f);
	/* peeking only */
	f->have_next = 0;
	f->nx = keep;
	f->nk = keepk;
	f->nx_err = keep_err;
	(void)keep_at;
	return err == -FLOW_E_EOS;
}

static int q_status(struct flow *f)
{
	int flags = 0;

	if (!f->tnt_mask) {
		if (will_event(f))
			flags |= ST_EVENT;
		if (will_eos(f))
			flags |= ST_EOS;
	}
	return flags;
}

static int q_provoke(struct flow *f)
{
	int err = q_fetch(f);

	if (err < 0)
		return err;
	f->have_next = 0;
	return -FLOW_E_INTERNAL;
}

static int q_decode(struct flow *f);
static int q_header(struct flow *f);

static int q_read_ahead(struct flow *f)
{
	for (;;) {
		int err = q_fetch(f);

		if (err)
			return err;
		if (qk_flags[f->nk] & (QF_TIP | QF_TNT))
			return 0;
		if (will_event(f))
			return 0;
		err = q_decode(f);
		if (err) {
			/* a truncated status packet at the end */
			if (err == -FLOW_E_EOS) {
				f->pos = f->cfg.img->size;
				f->have_next = 0;
			}
			return err;
		}
	}
}

/* PSB: read the PSB+ header; on trouble go back to the PSB. */
static int q_decode_psb(struct flow *f)
{
	uint64_t psb = f->pos;
	int err;

	if (f->nx_err)
		return f->nx_err;
	q_consume(f);
	lastip_init(f);
	for (;;) {
		err = q_fetch(f);
		if (err)
			break;
		/* PSBEND ends PSB+, and so does an OVF in it */
		if (qk_flags[f->nk] & QF_PSBEND) {
			/* no return is compressed across a PSB */
			f->rs_top = f->rs_bottom = 0;
			return 0;
		}
		if (!(qk_flags[f->nk] & QF_HEADER)) {
			err = -FLOW_E_BAD_CONTEXT;
			break;
		}
		err = q_header(f);
		if (err)
			break;
	}
	f->pos = psb;
	f->evq.begin[EVB_PSBEND] = f->evq.end[EVB_PSBEND];
	(void)q_fetch(f);
	return err;
}

static uint8_t exec_mode(const struct pkt *p)
{
	if (p->u.exec.csl)
		return p->u.exec.csd ? FLOW_MODE_UNKNOWN : FLOW_MODE_64;
	return p->u.exec.csd ? FLOW_MODE_32 : FLOW_MODE_16;
}

static int q_header(struct flow *f)
{
	struct ev *ev;
	int err;

	if (f->nx_err)
		return f->nx_err;
	switch (f->nk) {
	case QK_FUP:
		err = lastip_update(f, &f->nx);
		if (err)
			return err;
		if (f->nx.u.ip.ipc != PKT_IPC_SUPPRESSED)
			f->q_enabled = 1;
		break;
	case QK_PIP:
		ev = evq_enqueue(f, EVB_PSBEND);
		if (!ev)
			return -FLOW_E_NOMEM;
		ev->type = FLOW_EV_ASYNC_PAGING;
		ev->a = f->nx.u.pip.cr3;
		ev->b = f->nx.u.pip.nr;
		break;
	case QK_MODE:
		ev = evq_enqueue(f, EVB_PSBEND);
		if (!ev)
			return -FLOW_E_NOMEM;
		if (f->nx.type == PKT_MODE_EXEC) {
			ev->type = FLOW_EV_EXEC_MODE;
			ev->mode = exec_mode(&f->nx);
		} else {
			ev->type = FLOW_EV_TSX;
			ev->spec = f->nx.u.tsx.intx;
			ev->abort = f->nx.u.tsx.abrt;
		}
		break;
	case QK_VMCS:
		ev = evq_enqueue(f, EVB_PSBEND);
		if (!ev)
			return -FLOW_E_NOMEM;
		ev->type = FLOW_EV_ASYNC_VMCS;
		ev->a = f->nx.u.vmcs;
		break;
	case QK_CBR:
		/* libipt's time model refuses a ratio of 0 */
		if (!f->nx.u.cbr)
			return -FLOW_E_BAD_PACKET;
		ev = evq_enqueue(f, EVB_PSBEND);
		if (!ev)
			return -FLOW_E_NOMEM;
		ev->type = FLOW_EV_CBR;
		ev->a = f->nx.u.cbr;
		break;
	case QK_MNT:
		ev = evq_enqueue(f, EVB_PSBEND);
		if (!ev)
			return -FLOW_E_NOMEM;
		ev->type = FLOW_EV_MNT;
		ev->a = f->nx.u.mnt;
		break;
	case QK_UNKNOWN:
		return -FLOW_E_BAD_OPC;
	default:	/* pad and timing */
		err = q_time(f);
		if (err)
			return err;
		break;
	}
	q_consume(f);
	return 0;
}

/* The PSB+ events, one at a time, as status updates at PSBEND. */
static int q_psb_events(struct flow *f)
{
	struct ev *ev = evq_dequeue(f, EVB_PSBEND);

	if (!ev)
		return 0;
	ev->status = 1;
	switch (ev->type) {
	case FLOW_EV_ASYNC_PAGING:
	case FLOW_EV_EXEC_MODE:
	case FLOW_EV_TSX:
	case FLOW_EV_ASYNC_VMCS:
		ev_ip(f, ev, &ev->ip);
		break;
	case FLOW_EV_CBR:
		break;
	case FLOW_EV_MNT:
		ev->status = 0;
		break;
	default:
		return -FLOW_E_INTERNAL;
	}
	f->event = ev;
	return 1;
}

static int q_decode_tip(struct flow *f)
{
	struct ev *ev;
	int err = lastip_update(f, &f->nx);

	if (err)
		return err;
	ev = evq_dequeue(f, EVB_TIP);
	if (ev) {
		switch (ev->type) {
		case FLOW_EV_ASYNC_BRANCH:
			f->consume_packet = 1;
			ev_ip(f, ev, &ev->to);
			break;
		case FLOW_EV_ASYNC_PAGING:
		case FLOW_EV_ASYNC_VMCS:
		case FLOW_EV_EXEC_MODE:
			ev_ip(f, ev, &ev->ip);
			break;
		default:
			return -FLOW_E_BAD_CONTEXT;
		}
		f->event = ev;
		if (evq_pending(f, EVB_TIP))
			return 0;
		if (!f->consume_packet)
			return 0;
		f->consume_packet = 0;
	}
	q_consume(f);
	return 0;
}

static int q_decode_tnt(struct flow *f)
{
	if (f->tnt_mask)
		return -FLOW_E_BAD_CONTEXT;
	if (!f->nx.u.tnt.nbits)
		return -FLOW_E_BAD_PACKET;
	f->tnt_bits = f->nx.u.tnt.bits;
	f->tnt_mask = 1ull << (f->nx.u.tnt.nbits - 1);
	f->tnt_off = f->pos;
	q_consume(f);
	return 0;
}

static int q_decode_pge(struct flow *f)
{
	struct ev *ev;
	int err = lastip_update(f, &f->nx);

	if (err)
		return err;
	if (!f->consume_packet) {
		ev = evq_standalone(f);
		ev->type = FLOW_EV_ENABLED;
		if (lastip_query(f, &ev->ip) < 0)
			return -FLOW_E_BAD_PACKET;
		f->tnt_mask = 0;
		f->consume_packet = 1;
		f->q_enabled = 1;
	} else {
		ev = evq_dequeue(f, EVB_TIP);
		if (!ev)
			return -FLOW_E_INTERNAL;
		if (ev->type != FLOW_EV_EXEC_MODE)
			return -FLOW_E_BAD_CONTEXT;
		ev_ip(f, ev, &ev->ip);
	}
	f->event = ev;
	if (evq_pending(f, EVB_TIP))
		return 0;
	f->consume_packet = 0;
	q_consume(f);
	return 0;
}

static int q_decode_pgd(struct flow *f)
{
	struct ev *ev;
	int err = lastip_update(f, &f->nx);

	if (err)
		return err;
	ev = evq_dequeue(f, EVB_TIP);
	if (ev) {
		switch (ev->type) {
		case FLOW_EV_ASYNC_BRANCH:
			ev->type = FLOW_EV_ASYNC_DISABLED;
			ev_ip(f, ev, &ev->to);
			break;
		case FLOW_EV_ASYNC_PAGING:
		case FLOW_EV_ASYNC_VMCS:
		case FLOW_EV_EXEC_MODE:
			ev->noip = 1;
			break;
		default:
			return -FLOW_E_BAD_CONTEXT;
		}
	} else {
		ev = evq_standalone(f);
		ev->type = FLOW_EV_DISABLED;
		ev_ip(f, ev, &ev->ip);
	}
	f->event = ev;
	if (evq_pending(f, EVB_TIP))
		return 0;
	f->q_enabled = 0;
	q_consume(f);
	return 0;
}

static int q_decode_fup(struct flow *f)
{
	struct ev *ev;
	uint64_t ip;
	int err = lastip_update(f, &f->nx);

	if (err)
		return err;
	ev = evq_dequeue(f, EVB_FUP);
	if (ev) {
		switch (ev->type) {
		case FLOW_EV_OVERFLOW:
			f->consume_packet = 1;
			err = lastip_query(f, &ev->ip);
			if (err)
				return err;
			break;
		case FLOW_EV_TSX:
			if (!ev->abort)
				f->consume_packet = 1;
			ev_ip(f, ev, &ev->ip);
			break;
		case FLOW_EV_EXSTOP:
		case FLOW_EV_MWAIT:
		case FLOW_EV_PTWRITE:
			f->consume_packet = 1;
			ev_ip(f, ev, &ev->ip);
			break;
		default:
			return -FLOW_E_INTERNAL;
		}
		f->event = ev;
		if (evq_pending(f, EVB_FUP))
			return 0;
		if (!f->consume_packet)
			return 0;
		f->consume_packet = 0;
	} else {
		/* an asynchronous branch from here; binds to the TIP */
		err = lastip_query(f, &ip);
		if (err)
			return err;
		ev = evq_enqueue(f, EVB_TIP);
		if (!ev)
			return -FLOW_E_NOMEM;
		ev->type = FLOW_EV_ASYNC_BRANCH;
		ev->ip = ip;
	}
	q_consume(f);
	return 0;
}

static int q_decode_pip(struct flow *f)
{
	struct ev *ev;

	if (!evq_find(f, EVB_TIP, FLOW_EV_ASYNC_BRANCH)) {
		ev = evq_standalone(f);
		ev->type = FLOW_EV_PAGING;
		f->event = ev;
	} else {
		ev = evq_enqueue(f, EVB_TIP);
		if (!ev)
			return -FLOW_E_NOMEM;
		ev->type = FLOW_EV_ASYNC_PAGING;
	}
	ev->a = f->nx.u.pip.cr3;
	ev->b = f->nx.u.pip.nr;
	q_consume(f);
	return 0;
}

static int q_decode_vmcs(struct flow *f)
{
	struct ev *ev = evq_find(f, EVB_TIP, FLOW_EV_ASYNC_PAGING);

	if (ev) {
		/* the VMCS applies before the paging event it binds with */
		struct ev *paging = evq_enqueue(f, EVB_TIP);

		if (!paging)
			return -FLOW_E_NOMEM;
		*paging = *ev;
		ev->type = FLOW_EV_ASYNC_VMCS;
		ev->a = f->nx.u.vmcs;
	} else if (evq_find(f, EVB_TIP, FLOW_EV_ASYNC_BRANCH)) {
		ev = evq_enqueue(f, EVB_TIP);
		if (!ev)
			return -FLOW_E_NOMEM;
		ev->type = FLOW_EV_ASYNC_VMCS;
		ev->a = f->nx.u.vmcs;
	} else {
		ev = evq_standalone(f);
		ev->type = FLOW_EV_VMCS;
		ev->a = f->nx.u.vmcs;
		f->event = ev;
	}
	q_consume(f);
	return 0;
}

/* The FUP an OVF binds to: its end offset (> 0), 0 if tracing resumed
 * disabled, or a negative error. */
static int64_t q_find_ovf_fup(struct flow *f)
{
	struct img_cursor c;
	struct pkt p;
	int err;

	if (img_cursor_init(&c, f->cfg.img, f->pos))
		return -FLOW_E_EOS;
	for (;;) {
		uint8_t b[3];
		enum qk k;

		/* libipt's opcodes first: what it does not know is an error */
		err = qk_classify(b, img_read(f->cfg.img, img_cursor_offset(&c), b,
					      sizeof(b)), &k);
		if (err)
			return err;
		if (k == QK_UNKNOWN)
			return -FLOW_E_BAD_OPC;
		err = img_cursor_next(&c, &p);
		if (err < 0) {
			if (k == QK_CYC && map_pkt_err(err) == -FLOW_E_EOS &&
			    cyc_too_long(f->cfg.img, img_cursor_offset(&c)))
				return -FLOW_E_BAD_PACKET;
			return map_pkt_err(err);
		}
		switch (p.type) {
		case PKT_FUP:
			return (int64_t)(p.offset + p.size);
		case PKT_CYC:
		case PKT_TMA:
			err = libipt_payload(f->cfg.img, &p);
			if (err)
				return err;
			continue;
		case PKT_PAD: case PKT_MNT: case PKT_CBR: case PKT_TSC:
		case PKT_MTC:
			continue;
		case PKT_PSB: case PKT_TIP_PGE: case PKT_MODE_EXEC:
		case PKT_MODE_TSX: case PKT_PIP: case PKT_VMCS: case PKT_STOP:
		case PKT_OVF: case PKT_EXSTOP: case PKT_MWAIT: case PKT_PWRE:
		case PKT_PWRX: case PKT_PTW:
			return 0;
		case PKT_PSBEND: case PKT_TIP: case PKT_TIP_PGD:
		case PKT_TNT8: case PKT_TNT64:
			return -FLOW_E_BAD_CONTEXT;
		default:
			return -FLOW_E_BAD_OPC;
		}
	}
}

static int q_decode_ovf(struct flow *f)
{
	struct ev *ev;
	uint8_t tsc, tma;
	int64_t r;
	int st = q_psb_events(f);

	if (st)
		return st < 0 ? st : 0;
	/* the state goes, the time stays */
	tsc = f->have_tsc;
	tma = f->have_tma;
	q_reset(f);
	f->have_tsc = tsc;
	f->have_tma = tma;
	q_consume(f);
	r = q_find_ovf_fup(f);
	if (r <= 0) {
		if (r < 0 && r != -FLOW_E_EOS)
			return (int)r;
		ev = evq_standalone(f);
		ev->type = FLOW_EV_OVERFLOW;
		ev->noip = 1;
		f->q_enabled = 0;
		f->event = ev;
		return 0;
	}
	ev = evq_enqueue(f, EVB_FUP);
	if (!ev)
		return -FLOW_E_INTERNAL;
	ev->type = FLOW_EV_OVERFLOW;
	f->q_enabled = 1;
	return 0;
}

static int q_decode_mode(struct flow *f)
{
	struct ev *ev;

	if (f->nx.type == PKT_MODE_EXEC) {
		ev = evq_enqueue(f, EVB_TIP);
		if (!ev)
			return -FLOW_E_NOMEM;
		ev->type = FLOW_EV_EXEC_MODE;
		ev->mode = exec_mode(&f->nx);
	} else {
		if (!f->q_enabled) {
			ev = evq_standalone(f);
			ev->noip = 1;
			f->event = ev;
		} else {
			ev = evq_enqueue(f, EVB_FUP);
			if (!ev)
				return -FLOW_E_NOMEM;
		}
		ev->type = FLOW_EV_TSX;
		ev->spec = f->nx.u.tsx.intx;
		ev->abort = f->nx.u.tsx.abrt;
	}
	q_consume(f);
	return 0;
}

static int q_decode(struct flow *f)
{
	struct ev *ev;
	int st;

	if (f->nx_err)
		return f->nx_err;
	switch (f->nk) {
	case QK_PSB:
		return q_decode_psb(f);
	case QK_TIP:
		return q_decode_tip(f);
	case QK_TNT8:
	case QK_TNT64:
		return q_decode_tnt(f);
	case QK_PGE:
		return q_decode_pge(f);
	case QK_PGD:
		return q_decode_pgd(f);
	case QK_FUP:
		return q_decode_fup(f);
	case QK_PIP:
		return q_decode_pip(f);
	case QK_VMCS:
		return q_decode_vmcs(f);
	case QK_OVF:
		return q_decode_ovf(f);
	case QK_MODE:
		return q_decode_mode(f);
	case QK_PSBEND:
		st = q_psb_events(f);
		if (st)
			return st < 0 ? st : 0;
		q_consume(f);
		return 0;
	case QK_CBR:
		if (!f->nx.u.cbr)	/* as in q_header() */
			return -FLOW_E_BAD_PACKET;
		ev = evq_standalone(f);
		ev->type = FLOW_EV_CBR;
		ev->a = f->nx.u.cbr;
		f->event = ev;
		break;
	case QK_STOP:
		ev = evq_standalone(f);
		ev->type = FLOW_EV_STOP;
		f->event = ev;
		break;
	case QK_MNT:
		ev = evq_standalone(f);
		ev->type = FLOW_EV_MNT;
		ev->a = f->nx.u.mnt;
		f->event = ev;
		break;
	case QK_EXSTOP:
		if (f->nx.u.exstop_ip) {
			ev = evq_enqueue(f, EVB_FUP);
			if (!ev)
				return -FLOW_E_INTERNAL;
		} else {
			ev = evq_standalone(f);
			ev->noip = 1;
			f->event = ev;
		}
		ev->type = FLOW_EV_EXSTOP;
		break;
	case QK_MWAIT:
		ev = evq_enqueue(f, EVB_FUP);
		if (!ev)
			return -FLOW_E_INTERNAL;
		ev->type = FLOW_EV_MWAIT;
		ev->a = f->nx.u.mwait.hints;
		ev->b = f->nx.u.mwait.ext;
		break;
	case QK_PWRE:
		ev = evq_standalone(f);
		ev->type = FLOW_EV_PWRE;
		ev->a = (uint64_t)f->nx.u.pwre.state << 8 | f->nx.u.pwre.sub_state |
			(f->nx.u.pwre.hw ? 1u << 16 : 0);
		f->event = ev;
		break;
	case QK_PWRX:
		ev = evq_standalone(f);
		ev->type = FLOW_EV_PWRX;
		ev->a = (uint64_t)f->nx.u.pwrx.last << 8 | f->nx.u.pwrx.deepest |
			(f->nx.u.pwrx.interrupt ? 1u << 16 : 0) |
			(f->nx.u.pwrx.store ? 1u << 17 : 0) |
			(f->nx.u.pwrx.autonomous ? 1u << 18 : 0);
		f->event = ev;
		break;
	case QK_PTW:
		if (f->nx.u.ptw.ip) {
			ev = evq_enqueue(f, EVB_FUP);
			if (!ev)
				return -FLOW_E_INTERNAL;
		} else {
			ev = evq_standalone(f);
			ev->noip = 1;
			f->event = ev;
		}
		ev->type = FLOW_EV_PTWRITE;
		ev->a = f->nx.u.ptw.payload;
		ev->b = f->nx.u.ptw.plc ? 8 : 4;
		break;
	case QK_UNKNOWN:
		return -FLOW_E_BAD_OPC;
	default:	/* pad and timing */
		st = q_time(f);
		if (st)
			return st;
		break;
	}
	q_consume(f);
	return 0;
}

/* Start at the PSB at @psb.  Returns the status or a negative error. */
static int q_start(struct flow *f, uint64_t psb, uint64_t *ip)
{
	int err, status;
	uint64_t *addr = ip;

	q_reset(f);
	f->sync = psb;
	f->pos = psb;
	f->synced = 1;
	err = q_fetch(f);
	if (err)
		return err;
	/* libipt decodes a PSB here, whatever the opcode says */
	if (f->nk != QK_PSB || f->nx_err) {
		static const uint8_t pat[PKT_PSB_SIZE] = {
			2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82,
			2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82 };
		uint8_t b[PKT_PSB_SIZE];

		if (img_read(f->cfg.img, psb, b, sizeof(b)) != sizeof(b))
			return -FLOW_E_EOS;
		if (memcmp(b, pat, sizeof(b)))
			return -FLOW_E_BAD_PACKET;
		if (f->nx_err)
			return f->nx_err;
	}
	err = q_decode_psb(f);
	if (err < 0)
		return err;
	if (addr && !lastip_query(f, addr))
		addr = NULL;
	err = q_read_ahead(f);
	if (err < 0)
		return err;
	status = q_status(f);
	if (lastip_query(f, addr) < 0 && addr)
		status |= ST_NOIP;
	return status;
}

static int byte_at(const struct img *img, uint64_t off)
{
	uint8_t b;

	return img_read(img, off, &b, 1) == 1 ? b : -1;
}

/* The PSB of the run of 02 82 pairs going on at @at (8 bytes of the
 * pattern): its last 16 bytes, as libipt's pt_find_psb() has it.
 * Returns 0 and sets *@psb, or -1 if that is not a PSB. */
static int psb_of_run(const struct img *img, uint64_t at, uint64_t *psb)
{
	static const uint8_t pat[PKT_PSB_SIZE] = {
		2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82 };
	uint8_t b[PKT_PSB_SIZE];
	uint64_t p = at;

	if (byte_at(img, p) != 0x02)
		p++;
	while (p + 1 < img->size && byte_at(img, p) == 0x02 && byte_at(img, p + 1) == 0x82)
		p += 2;
	if (p < PKT_PSB_SIZE)
		return -1;
	p -= PKT_PSB_SIZE;
	if (img_read(img, p, b, sizeof(b)) != sizeof(b) || memcmp(b, pat, sizeof(b)))
		return -1;
	*psb = p;
	return 0;
}

/*
 * The PSB libipt 2.0.5 synchronises at when searching from @off: the first
 * 8-byte aligned word from @off rounded down that is all PSB pattern; the
 * run of pairs it is in ends the PSB -- which may begin before @off
 * if @off is inside it, and of PSBs back to back it is the last; one that
 * ends at or before @off does not count.  Offsets are logical:
 * libipt aligns addresses, the same for a trace mapped whole.
 * Returns 0 and sets *@psb, or -FLOW_E_EOS.
 */
static int q_find_psb(struct flow *f, uint64_t off, uint64_t *psb)
{
	const struct img *img = f->cfg.img;
	uint64_t pos = off & ~(uint64_t)7;
	uint8_t buf[4096];
	size_t want = 128;	/* PSBs are near: read little, then more */

	while (pos + 8 <= img->size) {
		size_t n = img_read(img, pos, buf, want), i;

		if (want < sizeof(buf))
			want *= 2;

		if (n < 8) {	/* a gap: go on after it */
			pos += 8;
			continue;
		}
		for (i = 0; i + 8 <= n; i += 8) {
			const uint8_t *w = buf + i;

			if ((w[0] == 2 && w[1] == 0x82 && w[2] == 2 && w[3] == 0x82 &&
			     w[4] == 2 && w[5] == 0x82 && w[6] == 2 && w[7] == 0x82) ||
			    (w[0] == 0x82 && w[1] == 2 && w[2] == 0x82 && w[3] == 2 &&
			     w[4] == 0x82 && w[5] == 2 && w[6] == 0x82 && w[7] == 2)) {
				/* ... not one that ends at or before @off */
				if (!psb_of_run(img, pos + i, psb) &&
				    *psb + PKT_PSB_SIZE > off)
					return 0;
			}
		}
		pos += n & ~(size_t)7;
	}
	return -FLOW_E_EOS;
}

static int q_sync_forward(struct flow *f, uint64_t *ip)
{
	uint64_t pos = f->pos, psb;
	int err;

	if (f->synced && pos == f->sync)
		pos += PKT_PSB_SIZE;
	err = q_find_psb(f, pos, &psb);
	if (err)
		return err;
	if (psb >= f->end)
		return -FLOW_E_EOS;
	return q_start(f, psb, ip);
}

static int q_cache_tnt(struct flow *f)
{
	int err;

	for (;;) {
		if (!f->have_next)
			return q_provoke(f);
		if (will_event(f))
			return -FLOW_E_BAD_QUERY;
		if (qk_flags[f->nk] & QF_TIP)
			return -FLOW_E_BAD_QUERY;
		f->event = NULL;
		err = q_decode(f);
		if (err)
			return err;
		if (f->event)
			return -FLOW_E_EVENT_IGNORED;
		if (qk_flags[f->nk] & QF_TNT)
			break;
		err = q_read_ahead(f);
		if (err)
			return err;
	}
	err = q_read_ahead(f);
	if (err < 0 && err != -FLOW_E_EOS)
		return err;
	return 0;
}

static int q_cond_branch(struct flow *f, int *taken)
{
	int err;

	if (!f->tnt_mask) {
		err = q_cache_tnt(f);
		if (err < 0)
			return err;
	}
	*taken = !!(f->tnt_bits & f->tnt_mask);
	f->tnt_mask >>= 1;
	return q_status(f);
}

static int q_indirect_branch(struct flow *f, uint64_t *addr)
{
	int err, flags = 0;

	for (;;) {
		enum qk k;

		if (!f->have_next)
			return q_provoke(f);
		if (will_event(f))
			return -FLOW_E_BAD_QUERY;
		f->event = NULL;
		k = f->nk;
		if ((qk_flags[k] & QF_TNT) && f->tnt_mask)
			return -FLOW_E_BAD_QUERY;
		f->tip_off = f->pos;
		err = q_decode(f);
		if (err)
			return err;
		if (f->event)
			return -FLOW_E_EVENT_IGNORED;
		if (qk_flags[k] & QF_TIP) {
			if (lastip_query(f, addr) < 0)
				flags |= ST_NOIP;
			break;
		}
		err = q_read_ahead(f);
		if (err)
			return err;
	}
	err = q_read_ahead(f);
	if (err < 0 && err != -FLOW_E_EOS)
		return err;
	return flags | q_status(f);
}

static int q_event(struct flow *f, struct ev *out)
{
	int err;

	if (f->tnt_mask)
		return -FLOW_E_BAD_QUERY;
	for (;;) {
		if (!f->have_next)
			return q_provoke(f);
		if ((qk_flags[f->nk] & (QF_TIP | QF_TNT)) && !will_event(f))
			return -FLOW_E_BAD_QUERY;
		f->event = NULL;
		err = q_decode(f);
		if (err)
			return err;
		if (f->event) {
			*out = *f->event;
			break;
		}
		err = q_read_ahead(f);
		if (err)
			return err;
	}
	err = q_read_ahead(f);
	if (err < 0 && err != -FLOW_E_EOS)
		return err;
	return q_status(f);
}

/*
 * Code: instructions and the block cache
 */

static ZydisDecoder *zdec(struct flow *f, uint8_t mode)
{
	return mode >= FLOW_MODE_16 && mode <= FLOW_MODE_64 ? &f->zd[mode] : NULL;
}

/* Classify a Zydis instruction into @in. */
static void classify(const ZydisDecodedInstruction *z, struct insn *in)
{
	int far = z->meta.branch_type == ZYDIS_BRANCH_TYPE_FAR;

	in->iclass = FLOW_IC_OTHER;
	in->direct = 0;
	in->far = in->cpl = in->cr3 = in->pip = in->vmcs = 0;
	in->disp = 0;
	switch (z->mnemonic) {
	case ZYDIS_MNEMONIC_CALL:
		in->iclass = far ? FLOW_IC_FAR_CALL : FLOW_IC_CALL;
		break;
	case ZYDIS_MNEMONIC_JMP:
		in->iclass = far ? FLOW_IC_FAR_JUMP : FLOW_IC_JUMP;
		break;
	case ZYDIS_MNEMONIC_RET:
		in->iclass = far ? FLOW_IC_FAR_RETURN : FLOW_IC_RETURN;
		break;
	case ZYDIS_MNEMONIC_INT: case ZYDIS_MNEMONIC_INT1:
	case ZYDIS_MNEMONIC_INT3: case ZYDIS_MNEMONIC_INTO:
	case ZYDIS_MNEMONIC_SYSCALL: case ZYDIS_MNEMONIC_SYSENTER:
		in->iclass = FLOW_IC_FAR_CALL;
		in->cpl = 1;
		break;
	case ZYDIS_MNEMONIC_VMCALL:
		in->iclass = FLOW_IC_FAR_CALL;
		break;
	case ZYDIS_MNEMONIC_IRET: case ZYDIS_MNEMONIC_IRETD:
	case ZYDIS_MNEMONIC_IRETQ: case ZYDIS_MNEMONIC_SYSRET:
	case ZYDIS_MNEMONIC_SYSEXIT:
		in->iclass = FLOW_IC_FAR_RETURN;
		in->cpl = 1;
		break;
	case ZYDIS_MNEMONIC_VMLAUNCH: case ZYDIS_MNEMONIC_VMRESUME:
		in->iclass = FLOW_IC_FAR_RETURN;
		in->pip = in->vmcs = 1;
		break;
	case ZYDIS_MNEMONIC_VMPTRLD:
		in->vmcs = 1;
		break;
	case ZYDIS_MNEMONIC_PTWRITE:
		in->iclass = FLOW_IC_PTWRITE;
		break;
	case ZYDIS_MNEMONIC_MOV:
		if (z->opcode_map == ZYDIS_OPCODE_MAP_0F && z->opcode == 0x22 &&
		    z->raw.modrm.reg == 3)
			in->cr3 = in->pip = 1;
		break;
	default:
		if (z->meta.category == ZYDIS_CATEGORY_COND_BR)
			in->iclass = FLOW_IC_COND_JUMP;
		break;
	}
	if (in->iclass >= FLOW_IC_FAR_CALL && in->iclass <= FLOW_IC_FAR_JUMP)
		in->far = 1;
	if (!in->far && in->iclass != FLOW_IC_OTHER && in->iclass != FLOW_IC_PTWRITE &&
	    z->raw.imm[0].is_relative) {
		in->direct = 1;
		in->disp = z->raw.imm[0].value.s;
	}
}

static int special(const struct insn *in)
{
	return in->iclass != FLOW_IC_OTHER || in->cr3 || in->pip || in->vmcs;
}

static void make_ctx(const struct flow *f, struct flow_ctx *c)
{
	c->cr3 = f->cr3;
	c->vmcs = f->vmcs;
	c->have_cr3 = f->have_cr3;
	c->have_vmcs = f->have_vmcs;
	/* the packet that decided the code, not the look-ahead position: a
	 * disable and the next enable may already be read */
	c->offset = f->decided;
}

/* Where execution may have moved to another address space (a sync, an
 * enable, an overflow, an asynchronous branch, a paging or VMCS event):
 * ask the caller which one the code comes from now. */
static void i_context(struct flow *f)
{
	struct flow_ctx c;
	uint64_t asid;

	make_ctx(f, &c);
	asid = f->cfg.asid ? f->cfg.asid(f->cfg.read_ctx, &c) :
	       f->have_cr3 ? f->cr3 : 0;
	if (asid != f->asid)
		f->blk = NULL;
	f->asid = asid;
}

/* Decode the instruction at @ip in @mode.  Returns 0 or a negative error. */
static int decode_one(struct flow *f, uint64_t ip, uint8_t mode, struct insn *in)
{
	ZydisDecodedInstruction z;
	ZydisDecoderContext zc;
	struct flow_ctx c;
	uint8_t buf[ZYDIS_MAX_INSTRUCTION_LENGTH];
	ZydisDecoder *d;
	int n;

	make_ctx(f, &c);
	f->st.code_reads++;
	n = f->cfg.read(f->cfg.read_ctx, &c, ip, buf, sizeof(buf));
	if (n <= 0)
		return -FLOW_E_NOMAP;
	d = zdec(f, mode);
	if (!d)
		return -FLOW_E_BAD_INSN;
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(d, &zc, buf, (ZyanUSize)n, &z)))
		return -FLOW_E_BAD_INSN;
	in->ip = ip;
	in->size = z.length;
	classify(&z, in);
	if (in->direct)
		in->target = ip + in->size + (uint64_t)in->disp;
	return 0;
}

static uint32_t blk_hash(uint64_t ip, uint64_t cr3, uint8_t mode, uint32_t n)
{
	uint64_t h = (ip ^ (cr3 * 0x9e3779b97f4a7c15ull) ^ mode) * 0xff51afd7ed558ccdull;

	return (uint32_t)((h >> 32) & (n - 1));
}

/* The block starting at @ip (decoded now if not cached).
 * Returns it, or NULL and *@err if not even one instruction decodes. */
static struct blk *blk_get(struct flow *f, uint64_t ip, int *err)
{
	uint64_t asid = f->asid;
	struct blk *set = &f->cache[blk_hash(ip, asid, f->mode, f->ncache) & ~1u], *b;
	uint64_t at = ip;
	struct insn in;
	int e, i;

	/* two ways a set: two hot blocks on one slot would take turns */
	for (i = 0; i < 2; i++) {
		b = &set[i];
		if (b->ip == ip && b->asid == asid && b->mode == f->mode && b->n) {
			f->st.cache_hits++;
			b->used = ++f->tick;
			return b;
		}
	}
	f->st.cache_misses++;
	b = set[0].used <= set[1].used ? &set[0] : &set[1];
	b->used = ++f->tick;
	b->ip = UINT64_MAX;
	b->n = 0;
	b->last_special = 0;
	for (;;) {
		e = decode_one(f, at, f->mode, &in);
		if (e) {
			if (!b->n) {
				*err = e;
				return NULL;
			}
			break;
		}
		b->len[b->n++] = in.size;
		b->last = in;
		at += in.size;
		if (special(&in)) {
			b->last_special = 1;
			break;
		}
		if (b->n == BLK_MAX)
			break;
	}
	b->ip = ip;
	b->asid = asid;
	b->mode = f->mode;
	return b;
}

void flow_cache_flush(struct flow *f)
{
	uint32_t i;

	if (!f)
		return;
	for (i = 0; i < f->ncache; i++) {
		f->cache[i].ip = UINT64_MAX;
		f->cache[i].n = 0;
		f->cache[i].used = 0;
	}
	f->blk = NULL;
}

/* The instruction at f->ip into @in, through the block cache. */
static int insn_at(struct flow *f, struct insn *in)
{
	struct blk *b = f->blk;
	int err = 0;

	if (!b || f->bip != f->ip || b->asid != f->asid || b->mode != f->mode ||
	    f->bi >= b->n) {
		b = blk_get(f, f->ip, &err);
		if (!b) {
			f->blk = NULL;
			return err;
		}
		/* blk_get may have replaced the slot f->blk pointed to */
		f->blk = b;
		f->bi = 0;
		f->bip = f->ip;
	}
	if (f->bi + 1 == b->n && b->last.size == b->len[f->bi]) {
		*in = b->last;
	} else {
		in->ip = f->ip;
		in->size = b->len[f->bi];
		in->iclass = FLOW_IC_OTHER;
		in->direct = in->far = in->cpl = in->cr3 = in->pip = in->vmcs = 0;
		in->disp = 0;
	}
	in->ip = f->ip;
	return 0;
}

/* After insn_at(): the next instruction of the block follows. */
static inline void blk_advance(struct flow *f, const struct insn *in)
{
	if (f->blk && f->bip == in->ip) {
		f->bi++;
		f->bip += in->size;
	}
}

/*
 * Instructions
 */

static void rs_init(struct flow *f)
{
	f->rs_top = f->rs_bottom = 0;
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
	f->enabled = 0;
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
	st = q_event(f, &f->ev);
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
	f->decided = f->sync;
	i_context(f);
	return i_check_ip_event(f);
}

static int i_sync_forward(struct flow *f)
{
	i_reset(f);
	f->blk = NULL;
	return i_start(f, q_sync_forward(f, &f->ip));
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
		st = q_cond_branch(f, &taken);
		if (st < 0)
			return st;
		f->status = st;
		f->decided = f->tnt_off;
		if (!taken)
			return 0;
		break;
	case FLOW_IC_CALL:
		if (in->disp || !in->direct)
			rs_push(f, f->ip);
		break;
	case FLOW_IC_RETURN:
		st = q_cond_branch(f, &taken);
		if (st >= 0) {
			f->status = st;
			f->decided = f->tnt_off;
			if (!taken)
				return -FLOW_E_BAD_RETCOMP;
			return rs_pop(f, &f->ip);
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
	st = q_indirect_branch(f, &f->ip);
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
	st = insn_at(f, in);
	if (st < 0)
		return st;
	*got = 1;
	st = i_check_insn_event(f, in);
	if (st) {
		if (st < 0 || (st & ST_EVENT))
			return st;
	}
	blk_advance(f, in);
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

static int i_event(struct flow *f, struct ev *out)
{
	struct ev *ev = &f->ev;
	int st;

	if (!f->process_event)
		return -FLOW_E_BAD_QUERY;
	switch (ev->type) {
	case FLOW_EV_ENABLED:
		if (f->ip == ev->ip)
			ev->spec |= 2;	/* resumed; see flow_next */
		if (ev->status)
			return -FLOW_E_BAD_CONTEXT;
		if (ev->noip)
			return -FLOW_E_NOIP;
		if (f->enabled)
			return -FLOW_E_BAD_CONTEXT;
		f->ip = ev->ip;
		f->enabled = 1;
		f->decided = ev->offset;
		i_context(f);
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
		f->enabled = 0;
		break;
	case FLOW_EV_ASYNC_BRANCH:
		if (f->ip != ev->ip)
			return -FLOW_E_BAD_QUERY;
		if (ev->status || !f->enabled)
			return -FLOW_E_BAD_CONTEXT;
		f->ip = ev->to;
		f->decided = ev->offset;
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
		break;
	case FLOW_EV_STOP:
		if (ev->status || f->enabled)
			return -FLOW_E_BAD_CONTEXT;
		break;
	case FLOW_EV_EXSTOP:
	case FLOW_EV_MWAIT:
		if (!ev->noip && f->enabled && f->ip != ev->ip)
			return -FLOW_E_BAD_QUERY;
		break;
	default:
		break;
	}
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
	q_reset(f);
	i_reset(f);
	f->have_next = 0;
	f->synced = 0;
	f->pos = off;
	f->cur_at = UINT64_MAX;
	f->err_sync = 0;
	f->end = end;
	f->blk = NULL;
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
	r->flags = (uint8_t)((f->speculative ? FLOW_F_SPEC : 0) |
			     (in->direct ? FLOW_F_DIRECT : 0));
	r->ev = 0;
	r->err = 0;
	r->a = r->b = 0;
	f->st.insns++;
}

/* After an error: report it where libipt would and go on at the next PSB. */
static void drv_error(struct flow *f, int err, struct flow_rec *r)
{
	rec_error(f, err, f->pos, r);
	f->state = DRV_SYNC;
}

static int flow_next1(struct flow *f, struct flow_rec *r);

int flow_next(struct flow *f, struct flow_rec *r)
{
	int err = flow_next1(f, r);

	/* the range ends at the first record a packet at or past it decided */
	if (!err && r->offset >= f->end) {
		f->state = DRV_DONE;
		return -FLOW_E_EOS;
	}
	return err;
}

static int flow_next1(struct flow *f, struct flow_rec *r)
{
	struct insn in;
	struct ev ev;
	int st, got;

	if (!f || !r || f->state == DRV_IDLE)
		return -FLOW_E_INVALID;
	/*
	 * The fast path: an instruction inside a cached block, with no event
	 * pending and nothing to ask the trace -- what i_next() would do for
	 * it comes down to stepping over it.
	 */
	if (f->state == DRV_DRAIN && !f->dstatus && f->enabled &&
	    !f->process_event && !f->process_insn &&
	    !(f->status & (ST_EVENT | ST_EOS)) && f->blk && f->bip == f->ip &&
	    f->blk->mode == f->mode) {
		const struct blk *b = f->blk;
		unsigned i = f->bi;

		if (i + 1 < b->n || (i + 1 == b->n && !b->last_special)) {
			uint8_t len = b->len[i];

			r->kind = FLOW_INSN;
			r->ip = f->ip;
			r->size = len;
			r->mode = f->mode;
			r->iclass = FLOW_IC_OTHER;
			r->offset = f->decided;
			r->flags = f->speculative ? FLOW_F_SPEC : 0;
			r->ev = 0;
			r->err = 0;
			r->a = r->b = 0;
			f->st.insns++;
			f->ip += len;
			f->bi = i + 1;
			f->bip = f->ip;
			return 0;
		}
	}
	for (;;) {
		switch (f->state) {
		case DRV_DONE:
			return -FLOW_E_EOS;
		case DRV_ERROR:
			rec_error(f, f->pending_err, f->pending_err_off, r);
			f->state = DRV_SYNC;
			return 0;
		case DRV_SYNC:
			st = i_sync_forward(f);
			if (st < 0) {
				if (st == -FLOW_E_EOS) {
					f->state = DRV_DONE;
					return -FLOW_E_EOS;
				}
				/* no progress since the last sync error: stop */
				if (!f->synced || f->pos <= f->err_sync) {
					f->state = DRV_DONE;
					rec_error(f, st, f->pos, r);
					return 0;
				}
				f->err_sync = f->pos;
				rec_error(f, st, f->pos, r);
				return 0;
			}
			f->dstatus = st;
			f->state = DRV_DRAIN;
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
		case DRV_INSN: {
			uint64_t decided = f->decided;

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
