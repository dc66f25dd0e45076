/* index_scan -- phase 1: every PSB, with the state its PSB+ gives. */
#include <stdlib.h>
#include <string.h>

#include "index_int.h"

/*
 * Finding PSBs.  A PSB is 8 pairs of 02 82.  A payload may end in 02 or
 * in 02 82 pairs right before a PSB, so a run of pairs can be longer than
 * 16 bytes; what follows a PSB is never 82 nor a broken PSB, so the PSBs
 * of a run are the 16-byte blocks that end where the run ends (a sequential
 * decoder meets them there).  Each worker finds the runs of its chunk and
 * places their PSBs; a run cut by a chunk edge is passed to the merger,
 * which joins the pieces and places the PSBs once the run's end is known.
 * Every byte is looked at a bounded number of times, however long a run.
 */
static const uint8_t psb_bytes[PKT_PSB_SIZE] = {
	2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82
};

/* Whether a pair 02 82 starts at logical offset @off (reading across
 * spans, not across gaps). */
int idx_pair_at(const struct img *img, uint64_t off)
{
	uint8_t b[2];

	if (img_read(img, off, b, 2) != 2)
		return 0;
	return b[0] == 2 && b[1] == 0x82;
}

/* The first pair start in [@x, @b) of span @si, or UINT64_MAX. */
static uint64_t next_pair(const struct img *img, size_t si, uint64_t x, uint64_t b)
{
	const struct img_span *s = &img->spans[si];
	const uint8_t *base = s->data - s->off;	/* logical -> pointer */
	uint64_t send = s->off + s->size;
	uint64_t lim = b + 1 < send ? b + 1 : send;	/* q + 1 must exist */
	const uint8_t *q;

	if (x >= b)
		return UINT64_MAX;
	if (lim > x + 1) {
		q = pkt_find_pair(base + x, base + lim);
		if (q)
			return (uint64_t)(q - base) < b ? (uint64_t)(q - base) : UINT64_MAX;
	}
	/* The span's last byte may start a pair that ends in the next span. */
	if (b == send && base[send - 1] == 2 && send - 1 >= x && idx_pair_at(img, send - 1))
		return send - 1;
	return UINT64_MAX;
}

/* The end of the run of pairs at @q: the first offset >= @q with no pair,
 * or the first one >= @b if the run gets that far. */
static uint64_t run_end(const struct img *img, size_t si, uint64_t q, uint64_t b)
{
	const struct img_span *s = &img->spans[si];
	const uint8_t *base = s->data - s->off;
	uint64_t send = s->off + s->size;

	while (q + PKT_PSB_SIZE <= send && q + PKT_PSB_SIZE <= b &&
	       !memcmp(base + q, psb_bytes, PKT_PSB_SIZE))
		q += PKT_PSB_SIZE;
	while (q < b && idx_pair_at(img, q))
		q += 2;
	return q;
}

/* Decode the PSB+ after the PSB at @off into @sk. */
void idx_decode_psbplus(const struct img *img, uint64_t off, struct idx_seek *sk)
{
	struct img_cursor cur;
	struct pkt pkt;
	uint64_t last_ip = 0;
	int i, ret;

	memset(sk, 0, sizeof(*sk));
	sk->offset = off;
	if (img_cursor_init(&cur, img, off) < 0 || img_cursor_next(&cur, &pkt) < 0 ||
	    pkt.type != PKT_PSB) {
		sk->flags = IDX_BAD_PSBPLUS;
		return;
	}
	for (i = 0; i < PSBPLUS_MAX; i++) {
		ret = img_cursor_next(&cur, &pkt);
		if (ret == -pte_eos || cur.gap)
			return;
		if (ret < 0) {
			sk->flags |= IDX_BAD_PSBPLUS;
			return;
		}
		switch (pkt.type) {
		case PKT_TSC:
			sk->tsc = pkt.u.tsc;
			sk->flags |= IDX_HAVE_TSC;
			break;
		case PKT_TMA:
			sk->ctc = pkt.u.tma.ctc;
			sk->fc = pkt.u.tma.fc & 0x1ff;
			sk->flags |= IDX_HAVE_TMA;
			break;
		case PKT_CBR:
			sk->cbr = pkt.u.cbr;
			sk->flags |= IDX_HAVE_CBR;
			break;
		case PKT_MODE_EXEC:
			sk->exec = (uint8_t)((pkt.u.exec.csl & 1) |
					     (pkt.u.exec.csd & 1) << 1 |
					     (pkt.u.exec.iflag & 1) << 2);
			sk->flags |= IDX_HAVE_EXEC;
			break;
		case PKT_MODE_TSX:
			sk->tsx = (uint8_t)((pkt.u.tsx.intx & 1) |
					    (pkt.u.tsx.abrt & 1) << 1);
			sk->flags |= IDX_HAVE_TSX;
			break;
		case PKT_PIP:
			sk->cr3 = pkt.u.pip.cr3;
			sk->nr = pkt.u.pip.nr & 1;
			sk->flags |= IDX_HAVE_PIP;
			break;
		case PKT_VMCS:
			sk->vmcs = pkt.u.vmcs;
			sk->flags |= IDX_HAVE_VMCS;
			break;
		case PKT_FUP:
			ret = pkt_ip_update(&pkt, &last_ip);
			if (ret < 0) {
				sk->flags |= IDX_BAD_PSBPLUS;
				return;
			}
			if (ret == 0) {
				sk->fup_ip = last_ip;
				sk->flags |= IDX_HAVE_FUP;
			}
			break;
		case PKT_PSBEND:
			sk->flags |= IDX_PSBEND;
			return;
		case PKT_PAD:
		case PKT_CYC:
		case PKT_MTC:
			break;
		default:
			/* Not status: the PSB+ ended without a PSBEND. */
			return;
		}
	}
}

static int push_seek(struct unit1 *u, const struct idx_seek *sk)
{
	if (u->n == u->cap) {
		size_t cap = u->cap ? u->cap * 2 : 64;
		struct idx_seek *p = realloc(u->seeks, cap * sizeof(*p));

		if (!p)
			return -pte_nomem;
		u->seeks = p;
		u->cap = cap;
	}
	u->seeks[u->n++] = *sk;
	return 0;
}

/* Place the PSBs of the run [@r, @e) that start in [@lo, @hi). */
static int place_run(const struct img *img, uint64_t r, uint64_t e, uint64_t lo,
		     uint64_t hi, struct unit1 *u)
{
	struct idx_seek sk;
	uint64_t q;
	int ret;

	if (e - r < PKT_PSB_SIZE)
		return 0;
	/* The lowest q = e - 16j with q >= max(r, lo). */
	if (lo < r)
		lo = r;
	q = e - PKT_PSB_SIZE;
	if (q < lo)
		return 0;
	q -= (q - lo) / PKT_PSB_SIZE * PKT_PSB_SIZE;
	for (; q + PKT_PSB_SIZE <= e && q < hi; q += PKT_PSB_SIZE) {
		idx_decode_psbplus(img, q, &sk);
		ret = push_seek(u, &sk);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* Phase 1 worker body: the runs of pairs of one unit. */
static int scan_unit(struct idx *idx, struct unit1 *u)
{
	const struct img *img = idx->img;
	const struct img_span *s = &img->spans[u->span];
	uint64_t x = u->a, q, t, stop;
	int open_left, open_right, ret;

	while (x < u->b) {
		if (atomic_load_explicit(&idx->cancel, memory_order_relaxed))
			return -pte_canceled;
		stop = u->b - x > CANCEL_STEP ? x + CANCEL_STEP : u->b;
		q = next_pair(img, u->span, x, stop);
		if (q == UINT64_MAX) {
			x = stop;
			continue;
		}
		t = run_end(img, u->span, q, u->b);
		/* Only the first run can come from before the chunk and only
		 * the last can go on after it. */
		open_left = q < u->a + 2 && q >= 2 && (q - 2 >= s->off || !s->gap_before) &&
			    idx_pair_at(img, q - 2);
		open_right = t >= u->b && idx_pair_at(img, t);
		if (open_left || open_right) {
			struct run_piece *pc = open_left ? &u->left : &u->right;

			pc->s = q;
			pc->e = t;
			pc->open_left = (uint8_t)open_left;
			pc->open_right = (uint8_t)open_right;
			pc->used = 1;
			if (open_left && open_right)
				u->right = *pc;
			/* A piece open on one side only still places the
			 * PSBs it can: none, since its other end decides. */
		} else {
			ret = place_run(img, q, t, u->a, u->b, u);
			if (ret < 0)
				return ret;
		}
		x = t > q ? t : q + 1;
	}
	return 0;
}

/* Intern a PSB+ context; CTX_NONE when the table is full. */
static uint32_t ctx_intern(struct idx *idx, const struct idx_seek *sk)
{
	uint64_t h;
	size_t i, ncap;
	struct ctx_entry *e;

	if (!(sk->flags & (IDX_HAVE_PIP | IDX_HAVE_VMCS)) && !sk->cr3 && !sk->vmcs)
		return 0;	/* entry 0 is the empty context */
	if (!idx->nctx)
		return CTX_NONE;
	if (idx->nctx * 2 >= idx->hcap) {
		uint32_t *hs;

		ncap = idx->hcap ? idx->hcap * 2 : 1024;
		while (ncap <= idx->nctx * 2)	/* a loaded table starts hashless */
			ncap *= 2;
		hs = calloc(ncap, sizeof(*hs));
		if (!hs)
			return CTX_NONE;
		for (i = 1; i < idx->nctx; i++) {
			e = &idx->cblk[i >> CTX_SHIFT][i & (CTX_BLK - 1)];
			h = (e->cr3 ^ e->vmcs * 0x9e3779b97f4a7c15ull ^ e->nr) *
			    0xff51afd7ed558ccdull;
			h ^= h >> 29;
			while (hs[h & (ncap - 1)])
				h++;
			hs[h & (ncap - 1)] = (uint32_t)i;
		}
		free(idx->hslot);
		idx->hslot = hs;
		idx->hcap = ncap;
	}
	h = (sk->cr3 ^ sk->vmcs * 0x9e3779b97f4a7c15ull ^ sk->nr) *
	    0xff51afd7ed558ccdull;
	h ^= h >> 29;
	for (;; h++) {
		uint32_t v = idx->hslot[h & (idx->hcap - 1)];

		if (!v)
			break;
		e = &idx->cblk[v >> CTX_SHIFT][v & (CTX_BLK - 1)];
		if (e->cr3 == sk->cr3 && e->vmcs == sk->vmcs && e->nr == sk->nr)
			return v;
	}
	if (idx->nctx >= CTX_MAX)
		return CTX_NONE;
	i = idx->nctx;
	if ((i >> CTX_SHIFT) >= idx->ncblk) {
		idx->cblk[idx->ncblk] = calloc(CTX_BLK, sizeof(*e));
		if (!idx->cblk[idx->ncblk])
			return CTX_NONE;
		idx->ncblk++;
	}
	e = &idx->cblk[i >> CTX_SHIFT][i & (CTX_BLK - 1)];
	e->cr3 = sk->cr3;
	e->vmcs = sk->vmcs;
	e->nr = sk->nr;
	idx->hslot[h & (idx->hcap - 1)] = (uint32_t)i;
	idx->nctx++;
	return (uint32_t)i;
}

/*
 * The ctx table's blocks are reallocated only by the merger; readers use
 * the block pointer array, so it must not move under them.  Keep it big
 * enough from the start instead of growing it.
 */
int idx_ctx_reserve(struct idx *idx, int empty)
{
	size_t n = (CTX_MAX >> CTX_SHIFT) + 1;

	idx->cblk = calloc(n, sizeof(*idx->cblk));
	if (idx->cblk && empty)
		return 0;
	if (!idx->cblk || !(idx->cblk[0] = calloc(CTX_BLK, sizeof(struct ctx_entry))))
		return -pte_nomem;
	idx->ncblk = 1;
	idx->nctx = 1;
	return 0;
}

/* Append seek point @sk (the merger only). */
static int publish_seek(struct idx *idx, const struct idx_seek *sk)
{
	size_t i = atomic_load_explicit(&idx->nseeks, memory_order_relaxed);
	struct seek_packed *p;
	uint32_t ctx;

	if ((i >> BLK_SHIFT) >= idx->nblk)
		return -pte_internal;
	if (!idx->sblk[i >> BLK_SHIFT]) {
		idx->sblk[i >> BLK_SHIFT] = malloc(BLK_SIZE * sizeof(*p));
		if (!idx->sblk[i >> BLK_SHIFT])
			return -pte_nomem;
	}
	ctx = ctx_intern(idx, sk);
	p = &idx->sblk[i >> BLK_SHIFT][i & BLK_MASK];
	p->off = sk->offset;
	p->tsc_cbr = (sk->tsc & ((1ull << 56) - 1)) | (uint64_t)sk->cbr << 56;
	p->ip = sk->fup_ip;
	p->misc = (uint64_t)sk->ctc | (uint64_t)(sk->fc & 0x1ff) << 16 |
		  (uint64_t)(sk->exec & 7) << 25 | (uint64_t)(sk->tsx & 3) << 28 |
		  (uint64_t)(sk->flags & SEEK_FLAG_MASK) << 30 | (uint64_t)ctx << 40;
	atomic_store_explicit(&idx->nseeks, i + 1, memory_order_release);
	return 0;
}

static int scan_body(void *arg)
{
	struct idx_unit_arg *w = arg;

	return scan_unit(w->idx, &w->idx->u1[w->unit]);
}

/* Run phase 1 unit @k (struct pool_cfg.run).  Its pages are dropped as
 * soon as it is done, so only the units in the workers' hands stay
 * mapped. */
static int scan_run(void *ctx, unsigned worker, size_t k)
{
	struct idx *idx = ctx;
	struct unit1 *u = &idx->u1[k];
	int ret;

	(void)worker;
	/* Read ahead of the scan, this unit and the next: the mapping may be
	 * advised for random access (the browser's). */
	idx_range_call(idx, u->a, k + 1 < idx->nunits ? idx->u1[k + 1].b : u->b,
		   idx->willneed);
	ret = idx_unit_guarded(idx, scan_body, k);
	idx_release_range(idx, u->a, u->b);
	if (!ret)
		atomic_fetch_add_explicit(&idx->done, u->b - u->a,
					  memory_order_relaxed);
	return ret;
}

struct tail_arg {
	struct idx *idx;
	uint64_t r, e;
	struct unit1 out;
};

/* Place the PSBs of a run that crossed chunk edges (guarded). */
static int tail_body(void *arg)
{
	struct tail_arg *ta = arg;

	return place_run(ta->idx->img, ta->r, ta->e, 0, UINT64_MAX, &ta->out);
}

static int publish_run(struct idx *idx, uint64_t r, uint64_t e)
{
	struct tail_arg ta;
	size_t i;
	int ret;

	memset(&ta, 0, sizeof(ta));
	ta.idx = idx;
	ta.r = r;
	ta.e = e;
	ret = idx->guard(tail_body, &ta);
	for (i = 0; !ret && i < ta.out.n; i++)
		ret = publish_seek(idx, &ta.out.seeks[i]);
	free(ta.out.seeks);
	return ret;
}

/*
 * Merge phase 1 unit @k in order.  idx->run_open says a run reached the
 * end of the previous unit: it started at run_start and reaches run_end.
 */
static int merge1(void *ctx, size_t k)
{
	struct idx *idx = ctx;
	struct unit1 *u = &idx->u1[k];
	size_t i;
	int ret;

	if (idx->run_open) {
		if (u->left.used && u->left.open_left && u->left.s <= idx->run_end) {
			if (u->left.open_right) {
				/* The run covers the whole unit. */
				idx->run_end = u->left.e;
				goto out_done;
			}
			ret = publish_run(idx, idx->run_start, u->left.e);
		} else if (idx->run_end >= u->b) {
			/* The run's last pair ends past this unit: a span's
			 * last unit of one byte, the 82 of a pair begun
			 * before, where no pair starts.  The run goes on
			 * (the unit before saw a pair at run_end). */
			goto out_done;
		} else {
			ret = publish_run(idx, idx->run_start, idx->run_end);
		}
		if (ret < 0)
			return ret;
		idx->run_open = 0;
	} else if (u->left.used && u->left.open_left && !u->left.open_right) {
		/* Joined to bytes before a resume point: place what starts
		 * at or after it. */
		ret = publish_run(idx, u->left.s, u->left.e);
		if (ret < 0)
			return ret;
	}
	for (i = 0; i < u->n; i++) {
		ret = publish_seek(idx, &u->seeks[i]);
		if (ret < 0)
			return ret;
	}
	if (u->right.used && u->right.open_right) {
		idx->run_open = 1;
		idx->run_start = u->right.s;
		idx->run_end = u->right.e;
	}
out_done:
	free(u->seeks);
	u->seeks = NULL;
	u->n = u->cap = 0;
	atomic_store_explicit(&idx->scanned, idx->run_open ? idx->run_start : u->b,
			      memory_order_release);
	/* The last unit: a run still open ends with the data. */
	if (idx->run_open && k + 1 == idx->nunits) {
		idx->run_open = 0;
		return publish_run(idx, idx->run_start, idx->run_end);
	}
	return 0;
}

int idx_phase1(struct idx *idx)
{
	const struct img *img = idx->img;
	size_t si, n = 0, k;
	uint64_t a, b, start = idx->resume_off;
	int ret;

	for (si = 0; si < img->nspans; si++) {
		const struct img_span *s = &img->spans[si];

		if (s->off + s->size <= start)
			continue;
		a = s->off > start ? s->off : start;
		n += (size_t)((s->off + s->size - a + idx->chunk - 1) / idx->chunk);
	}
	idx->u1 = calloc(n ? n : 1, sizeof(*idx->u1));
	if (!idx->u1)
		return -pte_nomem;
	k = 0;
	for (si = 0; si < img->nspans; si++) {
		const struct img_span *s = &img->spans[si];

		if (s->off + s->size <= start)
			continue;
		for (a = s->off > start ? s->off : start; a < s->off + s->size; a = b) {
			b = s->size - (a - s->off) > idx->chunk ? a + idx->chunk
								: s->off + s->size;
			idx->u1[k].span = si;
			idx->u1[k].a = a;
			idx->u1[k].b = b;
			k++;
		}
	}
	idx->nunits = n;
	idx->total = img->size - start;
	ret = idx_run_units(idx, scan_run, merge1);
	idx_free_units(idx);
	return ret;
}

