/* search_match -- a packet, or a segment summary, against a predicate. */
#include <string.h>

#include "search_int.h"

/*
 * Matching.
 */

void srch_ctx_init(struct srch_ctx *ctx, const struct srch_pred *pred,
		   const struct img *img)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->img = img;
	ctx->need_ip = !pred || pred->need_ip;
	if (pred && pred->history) {
		ctx->use_tm = 1;
		tm_init(&ctx->tm, pred->have_cfg ? &pred->cfg : NULL);
	}
}

void srch_step(struct srch_ctx *ctx, const struct pkt *pkt)
{
	struct tm_stamp st;

	ctx->ip_ok = 0;
	ctx->gap_ok = 0;
	switch (ctx->need_ip ? pkt->type : PKT_INVALID) {
	case PKT_PSB:
		/* SDM: no IP compression state survives a PSB. */
		ctx->last_ip = 0;
		break;
	case PKT_TIP:
	case PKT_TIP_PGE:
	case PKT_TIP_PGD:
	case PKT_FUP:
		if (!pkt_ip_update(pkt, &ctx->last_ip)) {
			ctx->ip = ctx->last_ip;
			ctx->ip_ok = 1;
		}
		break;
	default:
		break;
	}
	if (!ctx->use_tm)
		return;
	if (pkt->type == PKT_INVALID) {
		tm_gap(&ctx->tm);
		return;
	}
	tm_step(&ctx->tm, pkt, &st);
	if (!(st.flags & (TM_F_TSC | TM_F_REL)))
		return;
	if (pkt->type == PKT_TSC ||
	    (pkt->type == PKT_MTC && !(st.flags & TM_F_NO_CONFIG))) {
		/* none across a TSC where time went back (tm.h), as the
		 * index's summaries count them */
		if (ctx->have_prev && st.tsc >= ctx->prev_time &&
		    !(pkt->type == PKT_TSC && tm_tsc_jumped(&ctx->tm))) {
			ctx->gap = st.tsc - ctx->prev_time;
			ctx->gap_ok = 1;
		}
		ctx->prev_time = st.tsc;
		ctx->have_prev = 1;
	}
}

/* Field @f of @pkt; returns 0 if the packet does not have it now. */
static int get_field(enum field f, const struct pkt *pkt,
		     const struct srch_ctx *ctx, uint64_t *v)
{
	switch (f) {
	case F_IP:
		if (ctx) {
			*v = ctx->ip;
			return ctx->ip_ok;
		}
		if (pkt->u.ip.ipc == PKT_IPC_FULL) {
			*v = pkt->u.ip.ip;
			return 1;
		}
		if (pkt->u.ip.ipc == PKT_IPC_SEXT48) {
			*v = (uint64_t)((int64_t)(pkt->u.ip.ip << 16) >> 16);
			return 1;
		}
		return 0;
	case F_CBR: *v = pkt->u.cbr; return 1;
	case F_MTC: *v = pkt->u.mtc; return 1;
	case F_TSC: *v = pkt->u.tsc; return 1;
	case F_CYC: *v = pkt->u.cyc; return 1;
	case F_CR3: *v = pkt->u.pip.cr3; return 1;
	case F_NR: *v = pkt->u.pip.nr; return 1;
	case F_VMCS: *v = pkt->u.vmcs; return 1;
	case F_CTC: *v = pkt->u.tma.ctc; return 1;
	case F_FC: *v = pkt->u.tma.fc; return 1;
	case F_BITS:
		/* CS.L and CS.D both set is reserved (SDM; dump says
		 * "unknown"): no width, as the prefilter has it */
		if (pkt->u.exec.csl && pkt->u.exec.csd)
			return 0;
		*v = pkt->u.exec.csl ? 64 : pkt->u.exec.csd ? 32 : 16;
		return 1;
	case F_INTX: *v = pkt->u.tsx.intx; return 1;
	case F_ABRT: *v = pkt->u.tsx.abrt; return 1;
	case F_NBITS: *v = pkt->u.tnt.nbits; return 1;
	case F_PAYLOAD:
		*v = pkt->type == PKT_PTW ? pkt->u.ptw.payload : pkt->u.mnt;
		return 1;
	case F_GAP:
		if (!ctx)
			return 0;
		*v = ctx->gap;
		return ctx->gap_ok;
	default:
		return 0;
	}
}

/* Whether gap @v (ticks) holds against time comparison @c: its whole
 * ticks (struct cmp). */
static int ticks_hold(const struct cmp *c, uint64_t v)
{
	int in = v >= c->tlo && v <= c->thi;

	switch (c->op) {
	case OP_EQ: return in;
	case OP_NE: return !in;
	case OP_LT: return v < c->tlo;
	case OP_LE: return v <= c->thi;
	case OP_GT: return v > c->thi;
	case OP_GE: return v >= c->tlo;
	case OP_RANGE: return in;
	}
	return 0;
}

static int cmp_holds(const struct cmp *c, uint64_t v, int gap_units)
{
	uint64_t lo = c->lo, hi = c->hi;

	if (gap_units && c->ns)
		return ticks_hold(c, v);
	switch (c->op) {
	case OP_EQ: return v == lo;
	case OP_NE: return v != lo;
	case OP_LT: return v < lo;
	case OP_LE: return v <= lo;
	case OP_GT: return v > lo;
	case OP_GE: return v >= lo;
	case OP_RANGE: return v >= lo && v <= hi;
	}
	return 0;
}

/* Whether @nd's bytes start somewhere in [@off, @end) of @img, read as
 * img_read() reads them (not across a gap). */
static int bytes_in(const struct node *nd, const struct img *img,
		    uint64_t off, uint64_t end)
{
	uint8_t buf[ERR_CHUNK + MAX_BYTES];
	size_t want, got, n, i;

	while (off < end) {
		n = end - off < ERR_CHUNK ? (size_t)(end - off) : ERR_CHUNK;
		want = n - 1 + nd->nbytes;
		got = img_read(img, off, buf, want);
		for (i = 0; i < n && i + nd->nbytes <= got; i++)
			if (!memcmp(buf + i, nd->bytes, nd->nbytes))
				return 1;
		if (got < want)
			return 0;	/* the end, or a gap */
		off += n;
	}
	return 0;
}

/* Whether @nd's bytes start inside error row @pkt: the bytes the packet
 * pane shows for it, from its offset up to the PSB decoding resumes at
 * (the first after it) or the end, stopping at a gap.  A cut packet's
 * size says less: a packet cut by the end of the file, an unknown opcode
 * in a corrupted trace have none. */
static int bytes_in_error(const struct node *nd, const struct pkt *pkt,
			  const struct img *img)
{
	struct img_cursor cur;
	uint64_t end = img->size;

	if (pkt->offset >= img->size || img_cursor_init(&cur, img, pkt->offset))
		return 0;
	if (!img_cursor_sync_forward(&cur, pkt->offset + 1))
		end = img_cursor_offset(&cur);
	return bytes_in(nd, img, pkt->offset, end);
}

static int bytes_match(const struct node *nd, const struct pkt *pkt,
		       const struct srch_ctx *ctx)
{
	if (!ctx || !ctx->img)
		return 0;
	if (pkt->type == PKT_INVALID)
		return bytes_in_error(nd, pkt, ctx->img);
	return pkt->size && bytes_in(nd, ctx->img, pkt->offset, pkt->offset + pkt->size);
}

static int match_node(const struct srch_pred *p, int id, const struct pkt *pkt,
		      const struct srch_ctx *ctx)
{
	const struct node *nd = &p->nodes[id];
	int i;

	switch (nd->kind) {
	case N_AND:
		return match_node(p, nd->a, pkt, ctx) &&
		       match_node(p, nd->b, pkt, ctx);
	case N_OR:
		return match_node(p, nd->a, pkt, ctx) ||
		       match_node(p, nd->b, pkt, ctx);
	case N_NOT:
		return !match_node(p, nd->a, pkt, ctx);
	}
	if ((unsigned)pkt->type >= PKT_NTYPES || !(nd->types >> pkt->type & 1))
		return 0;
	for (i = 0; i < nd->ncmp; i++) {
		uint64_t v;

		if (!get_field((enum field)nd->cmp[i].field, pkt, ctx, &v))
			return 0;
		if (nd->cmp[i].ns && !p->calibrated)
			return 0;
		if (!cmp_holds(&nd->cmp[i], v, 1))
			return 0;
	}
	if (nd->nbytes && !bytes_match(nd, pkt, ctx))
		return 0;
	return 1;
}

int srch_match(const struct srch_pred *pred, const struct pkt *pkt,
	       const struct srch_ctx *ctx)
{
	if (!pred || !pkt || (unsigned)pkt->type >= PKT_NTYPES ||
	    !(pred->mask >> pkt->type & 1))
		return 0;
	return match_node(pred, pred->root, pkt, ctx);
}

/* Whether a CYC leaf's comparisons can hold for a CYC no larger than the
 * segment's largest (its summary's max_cyc). */
static int may_cyc(const struct node *nd, const struct idx_summary *sum)
{
	int i;

	for (i = 0; i < nd->ncmp; i++) {
		const struct cmp *c = &nd->cmp[i];

		if (c->field != F_CYC)
			continue;
		if (c->op == OP_GT && sum->max_cyc <= c->lo)
			return 0;
		if ((c->op == OP_GE || c->op == OP_EQ || c->op == OP_RANGE) &&
		    sum->max_cyc < c->lo)
			return 0;
	}
	return 1;
}

/* Whether a TSC leaf's comparisons can hold for a TSC payload of the
 * segment: between its first and last one, unless one went back. */
static int may_tsc(const struct node *nd, const struct idx_summary *sum)
{
	uint64_t first = sum->first_tsc, last = sum->last_tsc;
	int i;

	if (!sum->have_tsc)
		return 0;
	if (sum->tsc_back)
		return 1;
	for (i = 0; i < nd->ncmp; i++) {
		const struct cmp *c = &nd->cmp[i];

		if (c->field != F_TSC)
			continue;
		if ((c->op == OP_GT && last <= c->lo) ||
		    (c->op == OP_GE && last < c->lo) ||
		    (c->op == OP_LT && first >= c->lo) ||
		    (c->op == OP_LE && first > c->lo) ||
		    (c->op == OP_EQ && (c->lo < first || c->lo > last)) ||
		    (c->op == OP_NE && first == last && c->lo == first) ||
		    (c->op == OP_RANGE && (c->hi < first || c->lo > last)))
			return 0;
	}
	return 1;
}

/* Whether a gap leaf's comparisons can hold for a gap no larger than the
 * segment's largest (its summary's max_gap, from the time pass). */
static int may_gap(const struct srch_pred *p, const struct node *nd,
		   const struct idx_summary *sum)
{
	int i;

	if (!sum->have_time)
		return 1;
	for (i = 0; i < nd->ncmp; i++) {
		const struct cmp *c = &nd->cmp[i];
		uint64_t lo = c->lo, hi = c->op == OP_RANGE ? c->hi : c->lo;

		if (c->field != F_GAP)
			continue;
		if (!sum->has_gap)
			return 0;	/* a gap compares only where there is one */
		if (c->ns) {
			if (!p->calibrated)
				continue;
			lo = c->tlo;	/* the ticks ticks_hold() reads */
			hi = c->thi;
		}
		if (c->op == OP_GT && sum->max_gap <= hi)
			return 0;
		if ((c->op == OP_EQ || c->op == OP_RANGE) && lo > hi)
			return 0;	/* no whole tick is in the range */
		if ((c->op == OP_GE || c->op == OP_EQ || c->op == OP_RANGE) &&
		    sum->max_gap < lo)
			return 0;
	}
	return 1;
}

static int may_node(const struct srch_pred *p, int id,
		    const struct idx_summary *sum)
{
	const struct node *nd = &p->nodes[id];
	int t;

	switch (nd->kind) {
	case N_AND:
		return may_node(p, nd->a, sum) && may_node(p, nd->b, sum);
	case N_OR:
		return may_node(p, nd->a, sum) || may_node(p, nd->b, sum);
	case N_NOT:
		return 1;
	}
	/* "cyc > 100000": no CYC of the segment is that large. */
	if (nd->types == 1ull << PKT_CYC && !may_cyc(nd, sum))
		return 0;
	/* "tsc > 0x1000": no TSC packet of the segment is that late. */
	if (nd->types == 1ull << PKT_TSC && !may_tsc(nd, sum))
		return 0;
	/* "gap > 100us": no gap of the segment is that long. */
	if (!may_gap(p, nd, sum))
		return 0;
	for (t = 0; t < PKT_NTYPES; t++) {
		if (!(nd->types >> t & 1))
			continue;
		if (t == PKT_INVALID) {	/* an error row: a gap's too */
			if (sum->nerrors || sum->ngaps)
				return 1;
		} else if (t == PKT_OVF) {
			if (sum->novf)
				return 1;
		} else if (sum->per_class[pkt_type_class((enum pkt_type)t)]) {
			return 1;
		}
	}
	return 0;
}

int srch_segment_may_match(const struct srch_pred *pred,
			   const struct idx_summary *sum)
{
	if (!pred || !sum)
		return 1;
	return may_node(pred, pred->root, sum);
}
