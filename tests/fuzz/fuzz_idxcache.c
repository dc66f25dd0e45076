/* fuzz_idxcache -- the index cache's body, idx_load(), on any bytes.  The
 * cache file's XXH3 checksums stop a corrupted file before it gets here,
 * so this target feeds the blob parser directly: the input is a 2-byte
 * little-endian trace length L, L trace bytes (the image the blob must
 * fit) and the blob.  A blob that loads must answer every lookup inside
 * the image, and a "grown" one must finish indexing the tail. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "index.h"
#include "tm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct img img;
	struct img_span span;
	struct idx *idx = NULL;
	struct idx_seek sk;
	struct idx_summary sum;
	struct tm_carry carry;
	uint64_t *blob, ord = 0;
	size_t L, n, i, seg;

	if (size < 2)
		return 0;
	L = (size_t)(data[0] | data[1] << 8);
	if (L > size - 2)
		L = size - 2;
	img_init_flat(&img, &span, data + 2, L);
	/* idx_load() wants an 8-byte aligned blob. */
	n = size - 2 - L;
	blob = malloc(n ? n : 1);
	if (!blob)
		return 0;
	memcpy(blob, data + 2 + L, n);
	if (idx_new(&idx, &img, NULL) || idx_set_threads(idx, 1) ||
	    idx_set_chunk_size(idx, 64))
		goto out;
	if (idx_load(idx, blob, n) < 0) {
		if (idx_nseeks(idx))
			abort();	/* a failed load leaves the index empty */
		goto out;
	}
	if (!idx_complete(idx) && idx_build(idx) < 0)
		goto out;
	n = idx_nseeks(idx);
	for (i = 0; i < n; i++) {
		if (idx_seek(idx, i, &sk) || sk.offset >= img.size)
			abort();
		if (idx_find(idx, sk.offset, &seg) || seg != i)
			abort();
		if (idx_summary(idx, i, &sum) == 0) {
			if (idx_find_ordinal(idx, sum.first_ordinal, &seg) < 0 &&
			    sum.npackets)
				ord++;
			if (sum.have_tsc)
				idx_find_tsc(idx, sum.first_tsc, &seg);
		}
		idx_seek_carry(idx, i, &carry);
		idx_next_trouble(idx, i, 1, &seg);
		idx_next_trouble(idx, i, -1, &seg);
	}
	idx_totals(idx, &sum);
	idx_find_ordinal(idx, sum.npackets, &seg);
	idx_find_ordinal(idx, UINT64_MAX, &seg);
	idx_find_tsc(idx, 0, &seg);
	idx_find_tsc(idx, UINT64_MAX, &seg);
	idx_find(idx, img.size, &seg);
	(void)ord;
out:
	idx_free(idx);
	free(blob);
	return 0;
}
