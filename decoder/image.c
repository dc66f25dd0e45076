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

int img_gap_at(const struct img *img, uint64_t off)
{
	long i = img_span_of(img, off);

	/* data lost after the end: an empty last span follows the gap */
	if (img && img->nspans && off == img->size &&
	    !img->spans[img->nspans - 1].size)
		return img->spans[img->nspans - 1].gap_before;
	return i > 0 && img->spans[i].gap_before && img->spans[i].off == off;
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

/*
 * The next span follows a gap: what comes after it up to the next PSB
 * cannot be decoded (a packet may start anywhere).  Put the cursor on that
 * PSB (or at the end) and describe the loss as an error at @lost: the gap,
 * or the start of a packet it cut.
 */
static int cursor_gap(struct img_cursor *cur, struct pkt *pkt, uint64_t lost)
{
	const struct img *img = cur->img;
	uint64_t at = img->spans[cur->span + 1].off;

	pkt->offset = lost;
	pkt->type = PKT_INVALID;
	pkt->size = 0;
	cur->gap = 1;
	cursor_enter(cur, cur->span + 1, 0);
	if (img_cursor_sync_forward(cur, at) < 0)
		cursor_enter(cur, img->nspans - 1, img->spans[img->nspans - 1].size);
	return -pte_gap;
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
				return cursor_gap(cur, pkt,
						  cur->img->spans[cur->span + 1].off);
			cursor_enter(cur, cur->span + 1, 0);
			continue;
		}
		if (cur->img->spans[cur->span + 1].gap_before)
			/* the rest of the packet was lost, not cut short */
			return cursor_gap(cur, pkt, img_cursor_offset(cur));
		return cursor_stitch(cur, pkt);
	}
}

/*
 * PSBs in a multi-span image.  A run of 02 82 pairs may cross a seam between
 * contiguous spans (never a gap), and its PSBs are the 16-byte blocks that
 * end where the whole run ends (pkt_find_psb): so a search looks at runs in
 * logical offsets, not span by span.
 */

/* The span after @i if no gap separates them, else -1. */
static long next_contiguous(const struct img *img, size_t i)
{
	if (i + 1 >= img->nspans || img->spans[i + 1].gap_before)
		return -1;
	return (long)(i + 1);
}

/* The byte at logical offset @off reached from span *@i without crossing a
 * gap (advancing *@i), or -1. */
static int byte_at(const struct img *img, size_t *i, uint64_t off)
{
	while (off - img->spans[*i].off >= img->spans[*i].size) {
		long n = next_contiguous(img, *i);

		if (n < 0)
			return -1;
		*i = (size_t)n;
	}
	return img->spans[*i].data[off - img->spans[*i].off];
}

/* The end of the run of 02 82 pairs at logical offset @p in span @i. */
static uint64_t run_end_logical(const struct img *img, size_t i, uint64_t p)
{
	for (;;) {
		const struct img_span *s = &img->spans[i];
		const uint8_t *d = s->data + (p - s->off);
		const uint8_t *e = s->data + s->size;
		long n;

		while (e - d >= 2 && d[0] == 0x02 && d[1] == 0x82)
			d += 2;
		p = s->off + (uint64_t)(d - s->data);
		if (d < e && !(e - d == 1 && d[0] == 0x02))
			return p;
		n = next_contiguous(img, i);
		if (n < 0)
			return p;
		if (d < e) {	/* a pair cut by the seam */
			size_t j = (size_t)n;

			if (byte_at(img, &j, p + 1) != 0x82)
				return p;
			p += 2;
			i = j;
			continue;
		}
		i = (size_t)n;
	}
}

/*
 * The first PSB starting at or after logical offset @from, with the end of
 * its run in *@run_end.  Sets *@gap when the search crossed a gap.
 * Returns its offset or UINT64_MAX.
 */
static uint64_t find_psb_logical(const struct img *img, uint64_t from,
				 uint64_t *run_end, int *gap)
{
	static const uint8_t pat[4] = { 0x02, 0x82, 0x02, 0x82 };
	long li = img_span_of(img, from);
	size_t i;

	if (li < 0)
		return UINT64_MAX;
	i = (size_t)li;
	while (i < img->nspans) {
		const struct img_span *s = &img->spans[i];
		uint64_t in = from > s->off ? from - s->off : 0, cand = UINT64_MAX;
		uint64_t end = s->off + s->size, at, e;
		const uint8_t *q = NULL;

		if (in < s->size)
			q = memmem(s->data + in, (size_t)(s->size - in), pat, 4);
		if (q) {
			cand = s->off + (uint64_t)(q - s->data);
		} else if (next_contiguous(img, i) >= 0) {
			/* The pattern may start in the last 3 bytes. */
			at = end > 3 ? end - 3 : 0;
			if (at < s->off + in)
				at = s->off + in;
			for (; at < end && cand == UINT64_MAX; at++) {
				size_t j = i, k;

				for (k = 0; k < 4; k++)
					if (byte_at(img, &j, at + k) != pat[k])
						break;
				if (k == 4)
					cand = at;
			}
		}
		if (cand == UINT64_MAX) {
			if (++i < img->nspans && img->spans[i].gap_before)
				*gap = 1;
			continue;
		}
		e = run_end_logical(img, i, cand);
		if (e - cand >= PKT_PSB_SIZE) {
			*run_end = e;
			return e - PKT_PSB_SIZE * ((e - cand) / PKT_PSB_SIZE);
		}
		from = e;
		li = img_span_of(img, from);
		if (li < 0)
			return UINT64_MAX;
		if ((size_t)li != i && img->spans[li].gap_before && from ==
		    img->spans[li].off)
			*gap = 1;
		i = (size_t)li;
	}
	return UINT64_MAX;
}

int img_cursor_sync_forward(struct img_cursor *cur, uint64_t off)
{
	uint64_t at, e;
	long i;
	int gap = 0;

	if (!cur || !cur->img)
		return -pte_invalid;
	i = img_span_of(cur->img, off);
	if (i < 0)
		return -pte_nosync;
	if (cur->img->nspans == 1) {
		const struct img_span *s = &cur->img->spans[0];
		const uint8_t *q = pkt_find_psb_runs(cur->runs,
						     s->data + (off - s->off),
						     s->data + s->size);

		if (!q)
			return -pte_nosync;
		at = s->off + (uint64_t)(q - s->data);
	} else {
		at = find_psb_logical(cur->img, off, &e, &gap);
		if (at == UINT64_MAX)
			return -pte_nosync;
	}
	/* Skipping over a gap is still crossing it. */
	if (gap)
		cur->gap = 1;
	i = img_span_of(cur->img, at);
	cur->dec.bip_sz = -1;
	cursor_enter(cur, (size_t)i, at - cur->img->spans[i].off);
	return 0;
}

uint64_t img_count_psbs(const struct img *img)
{
	uint64_t from = 0, c, e, n = 0;
	int gap;

	if (!img || !img->nspans)
		return 0;
	/* Stepping PSB by PSB would find each run's end again: quadratic in
	 * a long run (a trace of padding-like 02 82 bytes). */
	while ((c = find_psb_logical(img, from, &e, &gap)) != UINT64_MAX) {
		n += (e - c) / PKT_PSB_SIZE;
		from = e;
	}
	return n;
}

/*
 * The last PSB before @off, searching forward from a start that moves back
 * until one is found: a run's PSBs depend on where it ends, so a backward
 * byte walk would have to find that end anyway.
 */
static int find_psb_before_logical(const struct img *img, uint64_t off,
				   uint64_t *psb)
{
	uint64_t back = 4096, from, p, c, e, best;
	int gap;

	for (;;) {
		from = off > back ? off - back : 0;
		best = UINT64_MAX;
		for (p = from; p < off; p = e) {
			c = find_psb_logical(img, p, &e, &gap);
			if (c == UINT64_MAX || c >= off)
				break;
			/* The run's PSBs are c, c + 16, ... up to e - 16. */
			best = c + PKT_PSB_SIZE * ((off - 1 - c) / PKT_PSB_SIZE);
			if (best > e - PKT_PSB_SIZE)
				best = e - PKT_PSB_SIZE;
		}
		if (best != UINT64_MAX) {
			*psb = best;
			return 0;
		}
		if (!from)
			return -pte_nosync;
		back = back > UINT64_MAX / 4 ? UINT64_MAX / 2 : back * 4;
	}
}

int img_find_psb_before(const struct img *img, uint64_t off, uint64_t *psb)
{
	return img_find_psb_before_runs(img, NULL, off, psb);
}

int img_find_psb_before_runs(const struct img *img, struct pkt_runs *runs,
			     uint64_t off, uint64_t *psb)
{
	struct pkt_decoder dec;
	const struct img_span *s;

	if (!img || !psb)
		return -pte_invalid;
	if (!img->nspans)
		return -pte_nosync;
	if (off > img->size)
		off = img->size;
	if (img->nspans > 1)
		return find_psb_before_logical(img, off, psb);
	s = &img->spans[0];
	pkt_decoder_init(&dec, s->data, s->data + s->size, s->off);
	dec.pos = s->data + (off - s->off);
	dec.runs = runs;
	if (pkt_sync_backward(&dec) < 0)
		return -pte_nosync;
	*psb = pkt_offset(&dec);
	return 0;
}
