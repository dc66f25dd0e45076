/*
 * flow_pkt -- the flow decoder's packet layer (see flow.c, flow_int.h):
 * libipt's query decoder's answers -- the next conditional branch, the
 * next indirect branch, the next event -- with its read-ahead, event
 * queues and synchronisation, so errors come where libipt's come.
 */
#include "flow_int.h"

#include <string.h>

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

/* PADs change nothing and every question of libipt's goes past them:
 * step over a run of them at once, where the cursor is at f->pos, to its
 * last PAD (which q_fetch() fetches as a packet), or @past it where the
 * caller would only decode that PAD and go on (q_read_ahead() and a PSB+:
 * most PADs of a kAFL trace come in runs between PSB+ packets). */
static void q_skip_run(struct flow *f, int past)
{
	const uint8_t *p = f->cur.dec.pos;

	/* eight at a time: a PSB+ may come with dozens */
	while (f->cur.dec.end - p > 8) {
		uint64_t w;

		memcpy(&w, p + 1, sizeof(w));
		if (w) {
			p += __builtin_ctzll(w) / 8;
			goto out;
		}
		p += 8;
	}
	while (p + 1 < f->cur.dec.end && !p[1])
		p++;
out:
	p += past;
	f->pos += (uint64_t)(p - f->cur.dec.pos);
	f->cur.dec.pos = p;
	f->cur_at = f->pos;
}

/* (most packets are no PAD: the test inline, the run out of line) */
static inline void q_skip_pads(struct flow *f, int past)
{
	if (f->cur_at == f->pos && f->cur.dec.pos < f->cur.dec.end && !*f->cur.dec.pos)
		q_skip_run(f, past);
}

/* Fetch the packet at f->pos into f->nx (libipt's pt_df_fetch, which also
 * tells us the payload's verdict up front).
 * Returns 0, or -FLOW_E_EOS at the end; f->have_next says which. */
static int q_fetch(struct flow *f)
{
	uint8_t buf[3];
	const uint8_t *b = buf;
	uint64_t at;
	size_t n;
	int err;

	f->have_next = 0;
	if (f->nx_at == f->pos) {
		f->pos = f->nx_pos;
		f->have_next = 1;
		return 0;
	}
	f->nx_at = UINT64_MAX;
	at = f->pos;
	q_skip_pads(f, 0);
	/* A TNT.8 in the span, the packet that answers most: pkt_next()
	 * takes it (it cannot fail), and nothing below applies to it. */
	if (f->cur_at == f->pos && f->cur.dec.pos < f->cur.dec.end) {
		uint8_t b0 = *f->cur.dec.pos;

		if (!(b0 & 1) && b0 > 2 && (f->cur.dec.bip_sz < 0 || (b0 & 7) != 4) &&
		    pkt_next(&f->cur.dec, &f->nx) == 1) {
			f->nk = QK_TNT8;
			f->nx_err = 0;
			f->cur_at = f->pos + 1;
			f->have_next = 1;
			f->nx_at = at;
			f->nx_pos = f->pos;
			return 0;
		}
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
	/* inside the span, as nearly always, without the cursor's wrapper
	 * (which decodes again, the cursor unmoved, at the span's end) */
	err = pkt_next(&f->cur.dec, &f->nx);
	if (err == -pte_eos || err == -pte_truncated)
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
	f->nx_at = at;
	f->nx_pos = f->pos;
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
	ev->psb = f->psb_at;
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

void fq_reset(struct flow *f)
{
	f->q_enabled = 0;
	f->consume_packet = 0;
	f->event = NULL;
	lastip_init(f);
	f->tnt_mask = 0;
	f->nx_at = UINT64_MAX;
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

/* Whether the trace ends at f->pos: q_fetch() would say -FLOW_E_EOS.  Only
 * the opcode is looked at (q_fetch() fails for nothing else once it reads
 * one); f->nx stays, and f->pos moves past PADs as q_fetch() moves it. */
static int will_eos(struct flow *f)
{
	uint8_t buf[3];
	const uint8_t *b = buf;
	enum qk k;
	size_t n;

	if (f->have_next)
		return 0;
	if (f->nx_at == f->pos) {
		f->pos = f->nx_pos;
		return 0;
	}
	q_skip_pads(f, 0);
	if (f->cur_at == f->pos && f->cur.dec.end - f->cur.dec.pos >= 3) {
		b = f->cur.dec.pos;
		n = 3;
	} else {
		n = img_read(f->cfg.img, f->pos, buf, sizeof(buf));
	}
	if (!qk_classify(b, n, &k))
		return 0;
	/* a gap right here is lost data, not the end */
	return !(f->pos < f->cfg.img->size && img_gap_at(f->cfg.img, f->pos + n));
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

/* Step over the CYC or MTC at f->pos where the cursor is there and the
 * packet lies whole in its span: what q_fetch() and q_decode() would do
 * to it (a timing packet: nothing but move on), without them -- a
 * cycle-accurate trace is half CYCs.  A CYC longer than libipt takes (9
 * bytes), or one cut by the span's end, goes the long way.
 * Returns 1 if it stepped, else 0. */
static inline int q_skip_timing(struct flow *f)
{
	const uint8_t *p = f->cur.dec.pos, *end = f->cur.dec.end;
	size_t n = 1;

	if (f->cur_at != f->pos || end - p < 2)
		return 0;
	if (p[0] == 0x59) {
		n = 2;
	} else if ((p[0] & 3) == 3) {
		if (p[0] & 4) {
			/* extension bytes while bit 0 says more */
			while (n < 9 && p + n < end && (p[n] & 1))
				n++;
			if (p + n >= end || (p[n] & 1) || ++n > 9)
				return 0;
		}
	} else {
		return 0;
	}
	f->have_next = 0;
	f->pos += n;
	f->cur.dec.pos = p + n;
	f->cur_at = f->pos;
	return 1;
}

static int q_read_ahead(struct flow *f)
{
	for (;;) {
		int err;

		q_skip_pads(f, 1);
		if (q_skip_timing(f))
			continue;
		err = q_fetch(f);
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
	f->psb_at = psb;
	for (;;) {
		q_skip_pads(f, 1);
		err = q_fetch(f);
		if (err)
			break;
		/* PSBEND ends PSB+, and so does an OVF in it */
		if (qk_flags[f->nk] & QF_PSBEND) {
			/* No return is compressed across a PSB (SDM 36.3.7),
			 * but the PSB is read ahead: TNT bits still cached
			 * are of returns before it, which use the stack. */
			if (f->tnt_mask)
				f->rs_clear_due = 1;
			else
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
	fq_reset(f);
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

	fq_reset(f);
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

/* The PSB of the run of 02 82 pairs going on at @at (8 bytes of the
 * pattern): its last 16 bytes, as libipt's pt_find_psb() has it.
 * Returns 0 and sets *@psb, or -1 if that is not a PSB. */
static int psb_of_run(const struct img *img, uint64_t at, uint64_t *psb)
{
	static const uint8_t pat[PKT_PSB_SIZE] = {
		2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82 };
	uint8_t b[64];
	uint64_t p = at, base = at;
	size_t n = img_read(img, at, b, sizeof(b));

	/* a window at a time; a pair a gap splits is read a byte at a time,
	 * as a byte after a gap is still there */
	if (!n || b[0] != 0x02)
		p++;
	while (p + 1 < img->size) {
		if (p + 1 >= base + n) {
			base = p;
			n = img_read(img, p, b, sizeof(b));
		}
		if (n < 2) {
			if (img_read(img, p, b, 1) != 1 || img_read(img, p + 1, b + 1, 1) != 1)
				break;
			n = 0;	/* read again at the next pair */
			if (b[0] != 0x02 || b[1] != 0x82)
				break;
		} else if (b[p - base] != 0x02 || b[p - base + 1] != 0x82) {
			break;
		}
		p += 2;
	}
	if (p < PKT_PSB_SIZE)
		return -1;
	p -= PKT_PSB_SIZE;
	if (img_read(img, p, b, PKT_PSB_SIZE) != PKT_PSB_SIZE || memcmp(b, pat, PKT_PSB_SIZE))
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

int fq_sync_forward(struct flow *f, uint64_t *ip)
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

int fq_status(struct flow *f)
{
	return q_status(f);
}

int fq_cond_branch(struct flow *f, int *taken)
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

int fq_indirect_branch(struct flow *f, uint64_t *addr)
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

int fq_event(struct flow *f, struct ev *out)
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
