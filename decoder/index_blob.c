/* index_blob -- the index as one blob: save, load, reset. */
#include <stdlib.h>
#include <string.h>

#include "index_int.h"

/*
 * Persistence.  The blob is a small header, then the packed arrays in this
 * order: seeks, contexts, summaries, ordinal bases, exceptions, trouble,
 * carries; in this machine's byte order (the magic tells another order
 * apart).  Full blocks lie contiguously, so a mapped blob can back them
 * directly (idx_load_mapped()).
 */
#define BLOB_MAGIC	0x31584449425450ull	/* "PTBIDX1" little-endian */
#define BLOB_VERSION	20	/* 9: the time pass's periods, the gap's packet;
				 * 10: halted time per segment, and the sleep
				 * bits in the carries; 11: the same, made by a
				 * time pass that writes every carry and counts
				 * long runs of one-byte packets right (a 10
				 * may hold neither: made again); 12: the time
				 * model goes back at a contradicting PSB+ TSC
				 * (carries, gaps, periods, the time range);
				 * 13: the same, with the MTCs after a TSC in
				 * the stretch, no period at an MTC a TSC placed
				 * far, the first and last segment outliers too
				 * (carries, periods, the time range); 14: no
				 * period to a PSB+ TSC the core cannot have
				 * run through (a damaged far-future one); 15:
				 * MTCFreq 9 and up chain MTCs modulo
				 * 2^(MTCFreq+8), a 32-bit ref_ctc (carries,
				 * periods, halts, gaps); 16: halted time at
				 * least the move less the EXSTOP's extrapolated
				 * span (halts; unplaced in the carries); 17:
				 * no period where a cycle threshold may hide
				 * cycles (periods, carries); 18: such periods
				 * go on over the next MTCs (the same); 19: a
				 * PSB split by a one-byte scan unit at a span's
				 * end is found (the PSBs); 20: a perf.data's
				 * carries' MHz and period checks by its
				 * TIME_CONV, not CPUID.15H (the carries) */

struct blob_hdr {
	uint64_t magic;
	uint32_t version;
	uint32_t hdr_size;
	uint64_t size;		/* image bytes indexed */
	uint64_t nseeks, nctx, nexc, ntrouble;
	uint64_t npackets, cycles, first_tsc, last_tsc;
	uint64_t per_class[PKC_NCLASSES];
	uint32_t novf, nerrors;
	uint32_t have_tsc, ngaps;
	uint64_t ncarry;	/* tm carries, one per 16 segments */
	uint64_t carry_size;	/* sizeof(struct tm_carry) when saved */
	uint64_t max_cyc;	/* the largest CYC */
	uint64_t ntsum;		/* time pass summaries */
};


/* Byte offsets of the arrays, from the start of the blob. */
struct blob_layout {
	uint64_t seeks, ctx, sums, obase, exc, trouble, carry, tsum, end;
};

static size_t ngroups(size_t n)
{
	return (n + (1u << GRP_SHIFT) - 1) >> GRP_SHIFT;
}

/* Lay out the arrays of @h; 0, or -1 if the counts overflow. */
static int blob_layout(const struct blob_hdr *h, struct blob_layout *l)
{
	/* Each count is bounded first, so the sums below cannot wrap. */
	if (h->nseeks > (1ull << 40) || h->nctx > CTX_MAX || h->nexc > (1ull << 40) ||
	    h->ntrouble > (1ull << 40) || h->ncarry > (1ull << 40) ||
	    h->ntsum > (1ull << 40))
		return -1;
	l->seeks = sizeof(*h);
	l->ctx = l->seeks + h->nseeks * sizeof(struct seek_packed);
	l->sums = l->ctx + h->nctx * sizeof(struct ctx_entry);
	l->obase = l->sums + h->nseeks * sizeof(struct sum_packed);
	l->exc = l->obase + ngroups((size_t)h->nseeks) * sizeof(uint64_t);
	l->trouble = l->exc + h->nexc * sizeof(struct sum_exc);
	l->carry = l->trouble + h->ntrouble * sizeof(uint64_t);
	l->tsum = l->carry + h->ncarry * sizeof(struct tm_carry);
	l->end = l->tsum + h->ntsum * sizeof(struct tsum);
	return 0;
}

/* Emit @n entries of @size bytes from the blocks @blk of @per entries. */
static int emit_blocks(void *const *blk, size_t per, size_t size, size_t n,
		       int (*emit)(void *ctx, const void *p, size_t n), void *ctx)
{
	size_t i, k;
	int ret;

	for (i = 0; i < n; i += per) {
		k = n - i < per ? n - i : per;
		ret = emit(ctx, blk[i / per], k * size);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int idx_save_to(const struct idx *idx,
		int (*emit)(void *ctx, const void *p, size_t n), void *ctx)
{
	struct blob_hdr h;
	size_t n;
	int c, ret;

	if (!idx || !emit || !idx->complete)
		return -pte_invalid;
	n = idx_nseeks(idx);
	memset(&h, 0, sizeof(h));
	h.magic = BLOB_MAGIC;
	h.version = BLOB_VERSION;
	h.hdr_size = sizeof(h);
	h.size = idx->img->size;
	h.nseeks = n;
	h.nctx = idx->nctx;
	h.nexc = idx->nexc;
	h.ntrouble = idx->ntrouble;
	h.npackets = idx->totals.npackets;
	h.cycles = idx->totals.cycles;
	h.max_cyc = idx->totals.max_cyc;
	h.first_tsc = idx->totals.first_tsc;
	h.last_tsc = idx->totals.last_tsc;
	for (c = 0; c < PKC_NCLASSES; c++)
		h.per_class[c] = idx->totals.per_class[c];
	h.novf = idx->totals.novf;
	h.nerrors = idx->totals.nerrors;
	h.ngaps = idx->totals.ngaps;
	h.have_tsc = idx->totals.have_tsc;
	h.ncarry = atomic_load(&idx->ncarry);
	h.carry_size = sizeof(struct tm_carry);
	h.ntsum = atomic_load(&idx->ntsums);
	ret = emit(ctx, &h, sizeof(h));
	if (!ret)
		ret = emit_blocks((void *const *)idx->sblk, BLK_SIZE,
				  sizeof(struct seek_packed), n, emit, ctx);
	if (!ret)
		ret = emit_blocks((void *const *)idx->cblk, CTX_BLK,
				  sizeof(struct ctx_entry), idx->nctx, emit, ctx);
	if (!ret)
		ret = emit_blocks((void *const *)idx->ublk, BLK_SIZE,
				  sizeof(struct sum_packed), n, emit, ctx);
	if (!ret)
		ret = emit_blocks((void *const *)idx->oblk, BLK_SIZE >> GRP_SHIFT,
				  sizeof(uint64_t), ngroups(n), emit, ctx);
	if (!ret && idx->nexc)
		ret = emit(ctx, idx->exc, idx->nexc * sizeof(struct sum_exc));
	if (!ret && idx->ntrouble)
		ret = emit(ctx, idx->trouble, idx->ntrouble * sizeof(uint64_t));
	if (!ret)
		ret = emit_blocks((void *const *)idx->carry, 1u << CARRY_BLK_SHIFT,
				  sizeof(struct tm_carry), (size_t)h.ncarry, emit, ctx);
	if (!ret)
		ret = emit_blocks((void *const *)idx->gblk, BLK_SIZE,
				  sizeof(struct tsum), (size_t)h.ntsum, emit, ctx);
	return ret;
}

struct membuf {
	uint8_t *p;
	size_t len, cap;
};

static int emit_mem(void *ctx, const void *p, size_t n)
{
	struct membuf *m = ctx;

	if (m->len + n > m->cap) {
		size_t cap = (m->len + n) * 2;
		uint8_t *q = realloc(m->p, cap);

		if (!q)
			return -pte_nomem;
		m->p = q;
		m->cap = cap;
	}
	memcpy(m->p + m->len, p, n);
	m->len += n;
	return 0;
}

int idx_save(const struct idx *idx, void **buf, size_t *len)
{
	struct membuf m = { NULL, 0, 0 };
	int ret;

	if (!idx || !buf || !len)
		return -pte_invalid;
	ret = idx_save_to(idx, emit_mem, &m);
	if (ret < 0) {
		free(m.p);
		return ret;
	}
	*buf = m.p;
	*len = m.len;
	return 0;
}

/* Validate the header and arrays of the blob @b (@len bytes). */
static int blob_check(const struct idx *idx, const uint8_t *b, size_t len,
		      struct blob_hdr *h, struct blob_layout *l)
{
	const struct seek_packed *sp;
	const struct sum_exc *ex;
	const uint64_t *tr;
	size_t i;

	if (len < sizeof(*h))
		return -pte_bad_file;
	memcpy(h, b, sizeof(*h));
	if (h->magic != BLOB_MAGIC || h->version != BLOB_VERSION ||
	    h->hdr_size != sizeof(*h) || blob_layout(h, l) < 0 || l->end != len)
		return -pte_bad_file;
	if (h->size > idx->img->size || h->nseeks > h->size / PKT_PSB_SIZE + 1 ||
	    (h->nseeks >> BLK_SHIFT) >= idx->nblk || h->nctx < 1 ||
	    h->nexc > h->nseeks || h->ntrouble > h->nexc ||
	    h->carry_size != sizeof(struct tm_carry) ||
	    h->ncarry > (h->nseeks + (1u << CARRY_SHIFT) - 1) >> CARRY_SHIFT ||
	    h->ntsum > h->nseeks ||
	    (h->ncarry && h->ntsum < (h->ncarry - 1) << CARRY_SHIFT))
		return -pte_bad_file;
	sp = (const void *)(b + l->seeks);
	for (i = 0; i < h->nseeks; i++) {
		uint32_t ctx = (uint32_t)(sp[i].misc >> 40);

		if (sp[i].off >= h->size || (i && sp[i].off < sp[i - 1].off + PKT_PSB_SIZE))
			return -pte_bad_file;
		if (ctx != CTX_NONE && ctx >= h->nctx)
			return -pte_bad_file;
	}
	ex = (const void *)(b + l->exc);
	for (i = 0; i < h->nexc; i++)
		if (ex[i].seg >= h->nseeks || (i && ex[i].seg <= ex[i - 1].seg))
			return -pte_bad_file;
	tr = (const void *)(b + l->trouble);
	for (i = 0; i < h->ntrouble; i++)
		if (tr[i] >= h->nseeks || (i && tr[i] <= tr[i - 1]))
			return -pte_bad_file;
	return 0;
}

/* Point the blocks @blk at @n entries of @size bytes at @src, @per to a
 * block: full blocks borrowed (if @borrow), the rest copied. */
static int load_blocks(struct idx *idx, void **blk, size_t per, size_t size,
		       size_t n, const uint8_t *src, int borrow)
{
	size_t i, k;

	for (i = 0; i < n; i += per) {
		k = n - i < per ? n - i : per;
		if (borrow && k == per) {
			blk[i / per] = (void *)(src + i * size);
			continue;
		}
		blk[i / per] = malloc(per * size);
		if (!blk[i / per])
			return -pte_nomem;
		memcpy(blk[i / per], src + i * size, k * size);
	}
	(void)idx;
	return 0;
}

/*
 * A loaded index of a trace that grew: forget the last segment (its end
 * moved) and, if its PSB sits in a run of 02 82 pairs, every PSB of that
 * run (PSBs are placed from the run's end, which may have moved too).
 */
static void drop_tail(struct idx *idx)
{
	size_t n = idx_nseeks(idx), k, ks, m;
	uint64_t r = idx_seek_off(idx, n - 1);
	struct idx_summary s;
	int c;

	while (r >= 2 && idx_pair_at(idx->img, r - 2))
		r -= 2;
	for (k = n - 1; k > 0 && idx_seek_off(idx, k - 1) >= r; k--)
		;
	/* Seek points from k on may move; the segment before them ends at
	 * seek point k, so its summary is redone too. */
	ks = k ? k - 1 : 0;
	for (m = atomic_load(&idx->nsums); m > ks; m--) {
		if (idx_summary(idx, m - 1, &s) == 0) {
			for (c = 0; c < PKC_NCLASSES; c++)
				idx->totals.per_class[c] -= s.per_class[c];
			idx->totals.npackets -= s.npackets;
			idx->totals.cycles -= s.cycles;
			idx->totals.novf -= s.novf;
			idx->totals.nerrors -= s.nerrors;
			idx->totals.ngaps -= s.ngaps;
		}
		if (idx->nexc && idx->exc[idx->nexc - 1].seg == m - 1)
			idx->nexc--;
		if (idx->ntrouble && idx->trouble[idx->ntrouble - 1] == m - 1)
			idx->ntrouble--;
	}
	idx->ord_next = idx->totals.npackets;
	idx->resume_off = r;
	atomic_store(&idx->nseeks, k);
	atomic_store(&idx->nsums, ks);
	/* A carry at segment c depends on the segments before c: those up
	 * to ks stay. */
	if (atomic_load(&idx->ncarry) > (ks >> CARRY_SHIFT) + 1)
		atomic_store(&idx->ncarry, (ks >> CARRY_SHIFT) + 1);
	if (atomic_load(&idx->ntsums) > ks)
		atomic_store(&idx->ntsums, ks);
	pthread_mutex_lock(&idx->memo_lock);
	idx_memo_clear(idx);
	pthread_mutex_unlock(&idx->memo_lock);
}

static int load_blob(struct idx *idx, const uint8_t *b, size_t len, int borrow)
{
	struct blob_layout l;
	struct blob_hdr h;
	size_t n, i;
	int c, ret;

	ret = blob_check(idx, b, len, &h, &l);
	if (ret < 0)
		return ret;
	n = (size_t)h.nseeks;
	ret = idx_ctx_reserve(idx, 1);
	if (ret < 0)
		return ret;
	/* Contexts come as they are; the lookup hash is rebuilt only if a
	 * grown trace adds some. */
	ret = load_blocks(idx, (void **)idx->cblk, CTX_BLK, sizeof(struct ctx_entry),
			  (size_t)h.nctx, b + l.ctx, borrow);
	if (ret < 0)
		return ret;
	idx->nctx = (size_t)h.nctx;
	idx->ncblk = ((size_t)h.nctx + CTX_BLK - 1) >> CTX_SHIFT;
	ret = load_blocks(idx, (void **)idx->sblk, BLK_SIZE, sizeof(struct seek_packed),
			  n, b + l.seeks, borrow);
	if (!ret)
		ret = load_blocks(idx, (void **)idx->ublk, BLK_SIZE,
				  sizeof(struct sum_packed), n, b + l.sums, borrow);
	if (!ret)
		ret = load_blocks(idx, (void **)idx->oblk, BLK_SIZE >> GRP_SHIFT,
				  sizeof(uint64_t), ngroups(n), b + l.obase, borrow);
	if (!ret)
		ret = load_blocks(idx, (void **)idx->carry, 1u << CARRY_BLK_SHIFT,
				  sizeof(struct tm_carry), (size_t)h.ncarry, b + l.carry,
				  borrow);
	if (!ret)
		ret = load_blocks(idx, (void **)idx->gblk, BLK_SIZE,
				  sizeof(struct tsum), (size_t)h.ntsum, b + l.tsum,
				  borrow);
	if (ret < 0)
		return ret;
	idx->exc = malloc((h.nexc ? h.nexc : 1) * sizeof(struct sum_exc));
	idx->trouble = malloc((h.ntrouble ? h.ntrouble : 1) * sizeof(uint64_t));
	if (!idx->exc || !idx->trouble)
		return -pte_nomem;
	memcpy(idx->exc, b + l.exc, h.nexc * sizeof(struct sum_exc));
	memcpy(idx->trouble, b + l.trouble, h.ntrouble * sizeof(uint64_t));
	idx->nexc = h.nexc;
	idx->excap = h.nexc ? h.nexc : 1;
	idx->ntrouble = h.ntrouble;
	idx->trcap = h.ntrouble ? h.ntrouble : 1;
	/* Every packed summary flagged as an exception must have one. */
	for (i = 0; i < n; i++) {
		const struct sum_packed *sp = &idx->ublk[i >> BLK_SHIFT][i & BLK_MASK];

		if (((sp->tsc_flags >> 56) & SUM_EXC) && !idx_find_exc(idx, i))
			return -pte_bad_file;
	}
	idx->totals.npackets = h.npackets;
	idx->totals.cycles = h.cycles;
	idx->totals.max_cyc = h.max_cyc;
	idx->totals.first_tsc = h.first_tsc;
	idx->totals.last_tsc = h.last_tsc;
	for (c = 0; c < PKC_NCLASSES; c++)
		idx->totals.per_class[c] = h.per_class[c];
	idx->totals.novf = h.novf;
	idx->totals.nerrors = h.nerrors;
	idx->totals.ngaps = h.ngaps;
	idx->totals.have_tsc = (uint8_t)!!h.have_tsc;
	idx->ord_next = h.npackets;
	atomic_store(&idx->ncarry, (size_t)h.ncarry);
	atomic_store(&idx->ntsums, (size_t)h.ntsum);
	atomic_store(&idx->nseeks, n);
	atomic_store(&idx->nsums, n);
	if (h.size == idx->img->size) {
		atomic_store(&idx->scanned, h.size);
		atomic_store(&idx->scan_done, 1);
		idx->sums_done = 1;
		if (idx->time_pass &&
		    h.ncarry < (n + (1u << CARRY_SHIFT) - 1) >> CARRY_SHIFT)
			return 0;	/* idx_start() runs the time pass */
		atomic_store(&idx->finished, 1);
		atomic_store(&idx->phase, IDX_DONE);
		idx->complete = 1;
		return 0;
	}
	/* The trace grew: redo the last segment and scan the tail. */
	if (n)
		drop_tail(idx);
	else
		idx->resume_off = 0;
	atomic_store(&idx->scanned, idx->resume_off);
	return 0;
}

/* Free block @p unless it lives in the borrowed blob. */
static void free_block(struct idx *idx, void *p)
{
	if ((const uint8_t *)p >= idx->borrow_lo && (const uint8_t *)p < idx->borrow_hi)
		return;
	free(p);
}

int idx_reset(struct idx *idx)
{
	size_t i;

	if (!idx || idx->started)
		return -pte_invalid;
	for (i = 0; i < idx->nblk; i++) {
		free_block(idx, idx->sblk[i]);
		free_block(idx, idx->ublk[i]);
		free_block(idx, idx->oblk[i]);
		free_block(idx, idx->carry[i]);
		free_block(idx, idx->gblk[i]);
		idx->sblk[i] = NULL;
		idx->ublk[i] = NULL;
		idx->oblk[i] = NULL;
		idx->carry[i] = NULL;
		idx->gblk[i] = NULL;
	}
	for (i = 0; i < idx->ncblk; i++)
		free_block(idx, idx->cblk[i]);
	if (idx->unborrow)
		idx->unborrow(idx->unborrow_ctx);
	idx->unborrow = NULL;
	idx->borrow_lo = idx->borrow_hi = NULL;
	free(idx->cblk);
	free(idx->hslot);
	free(idx->exc);
	free(idx->trouble);
	idx->cblk = NULL;
	idx->ncblk = idx->nctx = idx->hcap = 0;
	idx->hslot = NULL;
	idx->exc = NULL;
	idx->nexc = idx->excap = 0;
	idx->trouble = NULL;
	idx->ntrouble = idx->trcap = 0;
	memset(&idx->totals, 0, sizeof(idx->totals));
	idx->ord_next = 0;
	idx->resume_off = 0;
	idx->complete = 0;
	idx->sums_done = 0;
	atomic_store(&idx->ncarry, 0);
	atomic_store(&idx->ntsums, 0);
	pthread_mutex_lock(&idx->memo_lock);
	idx_memo_clear(idx);
	pthread_mutex_unlock(&idx->memo_lock);
	atomic_store(&idx->nseeks, 0);
	atomic_store(&idx->nsums, 0);
	atomic_store(&idx->scanned, 0);
	atomic_store(&idx->scan_done, 0);
	atomic_store(&idx->finished, 0);
	atomic_store(&idx->phase, IDX_IDLE);
	return 0;
}

int idx_load(struct idx *idx, const void *buf, size_t len)
{
	int ret;

	if (!idx || !buf || (uintptr_t)buf % 8)
		return -pte_invalid;
	if (idx->started || idx_nseeks(idx) || idx->nctx)
		return -pte_invalid;
	ret = load_blob(idx, buf, len, 0);
	if (ret < 0)
		idx_reset(idx);
	return ret;
}

int idx_load_mapped(struct idx *idx, void *buf, size_t len,
		    void (*unborrow)(void *ctx), void *ctx)
{
	int ret;

	if (!idx || !buf || (uintptr_t)buf % 8)
		return -pte_invalid;
	if (idx->started || idx_nseeks(idx) || idx->nctx)
		return -pte_invalid;
	idx->borrow_lo = buf;
	idx->borrow_hi = (const uint8_t *)buf + len;
	idx->unborrow = unborrow;
	idx->unborrow_ctx = ctx;
	ret = load_blob(idx, buf, len, 1);
	if (ret < 0)
		idx_reset(idx);
	return ret;
}

