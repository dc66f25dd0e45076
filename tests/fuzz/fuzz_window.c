/* fuzz_window -- segment decoding from a seek point: an index built from
 * the input (one thread, tiny chunks, both phases) gives the windows their
 * PSBs and time model carries; rows reached by seeking anywhere and
 * stepping both ways must tile the image without gaps or overlaps, and
 * must be the same rows a window cache without the index decodes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "index.h"
#include "window.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The index answers what the windows ask. */
static int f_at_or_before(void *ctx, uint64_t off, uint64_t *psb)
{
	struct idx_seek sk;
	size_t i;

	if (idx_find(ctx, off, &i) || idx_seek(ctx, i, &sk))
		return -pte_nosync;
	*psb = sk.offset;
	return 0;
}

static int f_after(void *ctx, uint64_t off, uint64_t *psb)
{
	struct idx_seek sk;
	size_t i = 0;

	if (!idx_find(ctx, off, &i))
		i++;
	if (idx_seek(ctx, i, &sk))
		return -pte_nosync;
	*psb = sk.offset;
	return 0;
}

static int f_carry(void *ctx, uint64_t psb, struct tm_carry *out)
{
	struct idx_seek sk;
	size_t i;

	if (idx_find(ctx, psb, &i) || idx_seek(ctx, i, &sk) || sk.offset != psb)
		return 1;
	return idx_seek_carry(ctx, i, out) ? 1 : 0;
}

/* Check the row under @it against the one under @ref (same offset). */
static void same_row(const struct win_iter *it, const struct win_iter *ref)
{
	const struct win_row *a = win_row(it), *b = win_row(ref);

	if (!a || !b || a->pkt.offset != b->pkt.offset || a->size != b->size ||
	    a->err != b->err || a->pkt.type != b->pkt.type)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct img img;
	struct img_span span;
	struct idx *idx = NULL;
	struct win_cache *wc = NULL, *plain = NULL;
	struct win_psb_ops ops;
	struct tm_config cfg;
	struct win_iter it, ref;
	uint64_t start, prev_end;
	size_t k;
	int steps;

	if (size < 4)
		return 0;
	/* The first 4 bytes choose the seek point and the timing. */
	memset(&cfg, 0, sizeof(cfg));
	cfg.have_mtc_freq = data[0] & 1;
	cfg.mtc_freq = data[0] >> 4;
	cfg.have_nom_freq = (data[0] >> 1) & 1;
	cfg.nom_freq = data[1];
	start = ((uint64_t)data[2] << 8 | data[3]);
	img_init_flat(&img, &span, data + 4, size - 4);
	if (img.size)
		start %= img.size + 1;
	if (idx_new(&idx, &img, &cfg) || idx_set_threads(idx, 1) ||
	    idx_set_chunk_size(idx, 4096) || idx_build(idx))
		goto out;
	memset(&ops, 0, sizeof(ops));
	ops.psb_at_or_before = f_at_or_before;
	ops.psb_after = f_after;
	ops.carry = f_carry;
	ops.ctx = idx;
	if (win_cache_new(&wc, &img, &ops, 1 << 20) ||
	    win_cache_new(&plain, &img, NULL, 1 << 20))
		goto out;
	win_cache_set_timing(wc, &cfg);

	/* Forward from the seek point: rows tile the image. */
	memset(&it, 0, sizeof(it));
	memset(&ref, 0, sizeof(ref));
	if (win_seek(&it, wc, start) == 0) {
		const struct win_row *r = win_row(&it);

		if (!r || r->pkt.offset > start || r->size == 0 ||
		    r->pkt.offset + r->size > img.size ||
		    (start < img.size && r->pkt.offset + r->size <= start))
			abort();
		if (win_seek(&ref, plain, r->pkt.offset))
			abort();
		same_row(&it, &ref);
		prev_end = r->pkt.offset + r->size;
		for (steps = 0; steps < 20000 && !win_next(&it); steps++) {
			r = win_row(&it);
			if (!r || r->pkt.offset != prev_end || r->size == 0 ||
			    r->pkt.offset + r->size > img.size)
				abort();
			if (win_next(&ref))
				abort();
			same_row(&it, &ref);
			prev_end = r->pkt.offset + r->size;
		}
		if (steps < 20000 && prev_end != img.size)
			abort();
		/* Backward from where we stopped: the same tiling. */
		prev_end = win_row(&it)->pkt.offset;
		for (k = 0; k < 20000 && !win_prev(&it); k++) {
			r = win_row(&it);
			if (!r || r->pkt.offset + r->size != prev_end)
				abort();
			prev_end = r->pkt.offset;
		}
		if (k < 20000 && prev_end != 0)
			abort();
	}
	win_iter_release(&it);
	win_iter_release(&ref);
	win_prefetch(wc, start, 1);
	win_prefetch(wc, start, -1);
out:
	win_cache_free(wc);
	win_cache_free(plain);
	idx_free(idx);
	return 0;
}
