/* image -- a trace as spans, and a packet cursor across them. */
#include <string.h>

#include "image.h"

void img_init_flat(struct img *img, struct img_span *span,
		   const uint8_t *data, uint64_t size)
{
	memset(span, 0, sizeof(*span));
	span->data = data;
	span->size = size;
	img->spans = span;
	img->nspans = 1;
	img->size = size;
}

long img_span_of(const struct img *img, uint64_t off)
{
	size_t lo = 0, hi;

	if (!img || !img->nspans || off >= img->size)
		return -1;
	hi = img->nspans;
	/* The last span whose start is <= off. */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (img->spans[mid].off <= off)
			lo = mid;
		else
			hi = mid;
	}
	if (off - img->spans[lo].off >= img->spans[lo].size)
		return -1;
	return (long)lo;
}

size_t img_read(const struct img *img, uint64_t off, void *buf, size_t n)
{
	long i = img_span_of(img, off);
	size_t done = 0;

	if (i < 0)
		return 0;
	while (done < n && (size_t)i < img->nspans) {
		const struct img_span *s = &img->spans[i];
		uint64_t in = off + done - s->off;
		size_t take = n - done;

		if (done && s->gap_before)
			break;
		if (take > s->size - in)
			take = (size_t)(s->size - in);
		memcpy((uint8_t *)buf + done, s->data + in, take);
		done += take;
		i++;
	}
	return done;
}

static void cursor_enter(struct img_cursor *cur, size_t span, uint64_t in)
{
	const struct img_span *s = &cur->img->spans[span];
	int8_t bip = cur->dec.bip_sz;

	cur->span = span;
	pkt_decoder_init(&cur->dec, s->data, s->data + s->size, s->off);
	cur->dec.pos = s->data + in;
	cur->dec.bip_sz = bip;
}

int img_cursor_init(struct img_cursor *cur, const struct img *img, uint64_t off)
{
	long i;

	if (!cur || !img)
		return -pte_invalid;
	memset(cur, 0, sizeof(*cur));
	cur->img = img;
	cur->dec.bip_sz = -1;
	if (!img->nspans)
		return off ? -pte_eos : 0;
	if (off == img->size) {
		const struct img_span *last = &img->spans[img->nspans - 1];

		cursor_enter(cur, img->nspans - 1, last->size);
		return 0;
	}
	i = img_span_of(img, off);
	if (i < 0)
		return -pte_eos;
	cursor_enter(cur, (size_t)i, off - img->spans[i].off);
	return 0;
}

uint64_t img_cursor_offset(const struct img_cursor *cur)
{
	return pkt_offset(&cur->dec);
}

/*
 * A packet cut by the end of a span continues in the next one unless a gap
 * separates them: decode it from a copy of the bytes around the seam.
 */
static int cursor_stitch(struct img_cursor *cur, struct pkt *pkt)
{
	uint8_t buf[64];
	struct pkt_decoder tmp;
	uint64_t off = img_cursor_offset(cur);
	size_t n = img_read(cur->img, off, buf, sizeof(buf));
	uint64_t end;
	int size;
	long i;

	pkt_decoder_init(&tmp, buf, buf + n, off);
	tmp.bip_sz = cur->dec.bip_sz;
	size = pkt_next(&tmp, pkt);
	if (size < 0)
		return size;
	end = off + (uint64_t)size;
	cur->dec.bip_sz = tmp.bip_sz;
	if (end == cur->img->size) {
		cursor_enter(cur, cur->img->nspans - 1,
			     cur->img->spans[cur->img->nspans - 1].size);
		return size;
	}
	i = img_span_of(cur->img, end);
	if (i < 0)
		return -pte_internal;
	cursor_enter(cur, (size_t)i, end - cur->img->spans[i].off);
	return size;
}

int img_cursor_next(struct img_cursor *cur, struct pkt *pkt)
{
	int size;

	if (!cur || !pkt)
		return -pte_invalid;
	for (;;) {
		size = pkt_next(&cur->dec, pkt);
		if (size != -pte_eos && size != -pte_truncated)
			return size;
		if (cur->span + 1 >= cur->img->nspans)
			return size;
		if (size == -pte_eos) {
			/* Step into the next span. */
			if (cur->img->spans[cur->span + 1].gap_before)
				cur->gap = 1;
			cursor_enter(cur, cur->span + 1, 0);
			continue;
		}
		if (cur->img->spans[cur->span + 1].gap_before)
			return size;
		return cursor_stitch(cur, pkt);
	}
}

/*
 * The first PSB starting in [@from, end of span @i) that straddles into the
 * following spans: search the seam's bytes.  Returns its logical offset or
 * UINT64_MAX.
 */
static uint64_t seam_psb(const struct img *img, size_t i, uint64_t from)
{
	const struct img_span *s = &img->spans[i];
	uint8_t buf[2 * PKT_PSB_SIZE];
	uint64_t end = s->off + s->size;
	uint64_t at = end > PKT_PSB_SIZE - 1 ? end - (PKT_PSB_SIZE - 1) : 0;
	const uint8_t *q;
	size_t n;

	if (i + 1 >= img->nspans || img->spans[i + 1].gap_before)
		return UINT64_MAX;
	if (at < s->off)
		at = s->off;
	if (at < from)
		at = from;
	if (at >= end)
		return UINT64_MAX;
	n = img_read(img, at, buf, sizeof(buf));
	q = pkt_find_psb(buf, buf + n);
	if (!q || at + (uint64_t)(q - buf) >= end)
		return UINT64_MAX;
	return at + (uint64_t)(q - buf);
}

int img_cursor_sync_forward(struct img_cursor *cur, uint64_t off)
{
	long i, first;

	if (!cur || !cur->img)
		return -pte_invalid;
	i = img_span_of(cur->img, off);
	if (i < 0)
		return -pte_nosync;
	first = i;
	for (; (size_t)i < cur->img->nspans; i++) {
		const struct img_span *s = &cur->img->spans[i];
		uint64_t in = off > s->off ? off - s->off : 0;
		const uint8_t *q = pkt_find_psb(s->data + in, s->data + s->size);
		uint64_t at = q ? s->off + (uint64_t)(q - s->data) : UINT64_MAX;
		uint64_t seam = seam_psb(cur->img, (size_t)i, s->off + in);

		/* Skipping over a gap is still crossing it. */
		if (i > first && s->gap_before)
			cur->gap = 1;
		if (seam < at)
			at = seam;
		if (at != UINT64_MAX) {
			cur->dec.bip_sz = -1;
			cursor_enter(cur, (size_t)i, at - s->off);
			return 0;
		}
	}
	return -pte_nosync;
}

int img_find_psb_before(const struct img *img, uint64_t off, uint64_t *psb)
{
	long i;

	if (!img || !psb)
		return -pte_invalid;
	if (!img->nspans)
		return -pte_nosync;
	if (off >= img->size) {
		i = (long)img->nspans - 1;
		off = img->size;
	} else {
		i = img_span_of(img, off);
	}
	for (; i >= 0; i--) {
		const struct img_span *s = &img->spans[i];
		struct pkt_decoder dec;
		uint64_t in = off - s->off, best = UINT64_MAX, seam, from;

		if (in > s->size)
			in = s->size;
		pkt_decoder_init(&dec, s->data, s->data + s->size, s->off);
		dec.pos = s->data + in;
		if (!pkt_sync_backward(&dec))
			best = pkt_offset(&dec);
		/* A PSB across the seam after it starts later, so wins. */
		from = best == UINT64_MAX ? s->off : best + 1;
		while ((seam = seam_psb(img, (size_t)i, from)) < off) {
			best = seam;
			from = seam + 1;
		}
		if (best != UINT64_MAX) {
			*psb = best;
			return 0;
		}
		off = s->off;
	}
	return -pte_nosync;
}
