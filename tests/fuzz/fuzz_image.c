/* fuzz_image -- the span cursor: the input's first bytes choose where to cut
 * the rest into spans (and gaps); decoding must never read outside a span
 * and must give the same packets as a flat walk when there is no gap. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t walk(const struct img *img, uint64_t *offs, size_t max)
{
	struct img_cursor cur;
	struct pkt pkt;
	size_t n = 0;
	int r;

	if (img_cursor_init(&cur, img, 0) < 0)
		return 0;
	while (n < max) {
		r = img_cursor_next(&cur, &pkt);
		if (r == -pte_eos)
			break;
		if (r < 0) {
			if (img_cursor_sync_forward(&cur, pkt.offset + 1) < 0)
				break;
			continue;
		}
		offs[n++] = pkt.offset;
	}
	return n;
}

/* The PSB before each offset is the same found across spans as in the
 * flat bytes. */
static void back_check(const struct img *img, const uint8_t *data, size_t n)
{
	struct img_span fs;
	struct img flat;
	uint64_t off, a, b;
	int ra, rb;

	img_init_flat(&flat, &fs, data, n);
	for (off = 0; off <= n; off += 1 + off / 64) {
		ra = img_find_psb_before(img, off, &a);
		rb = img_find_psb_before(&flat, off, &b);
		if (ra != rb || (!ra && a != b))
			__builtin_trap();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct img_span spans[8], flat;
	uint8_t *copies[8];
	struct img img;
	static uint64_t a[4096], b[4096];
	size_t ncut, i, na, nb, pos = 0, ns = 0;
	int gap = 0;

	if (size < 2)
		return 0;
	ncut = data[0] % 8;
	data++;
	size--;
	for (i = 0; i <= ncut && pos < size; i++) {
		size_t len = i == ncut ? size - pos : 1 + data[i % size] % 24;

		if (len > size - pos)
			len = size - pos;
		copies[ns] = malloc(len);
		memcpy(copies[ns], data + pos, len);
		memset(&spans[ns], 0, sizeof(spans[ns]));
		spans[ns].data = copies[ns];
		spans[ns].off = pos;
		spans[ns].size = len;
		spans[ns].gap_before = ns && (data[pos] & 0x80) && (ncut & 1);
		gap |= spans[ns].gap_before;
		pos += len;
		ns++;
	}
	img.spans = spans;
	img.nspans = ns;
	img.size = pos;
	na = walk(&img, a, 4096);
	if (!gap) {
		img_init_flat(&img, &flat, data, pos);
		nb = walk(&img, b, 4096);
		if (na != nb || memcmp(a, b, na * sizeof(a[0])))
			__builtin_trap();
		img.spans = spans;
		img.nspans = ns;
		img.size = pos;
		back_check(&img, data, pos);
	}
	for (i = 0; i < ns; i++)
		free(copies[i]);
	return 0;
}
