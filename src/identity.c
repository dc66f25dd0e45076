/* identity -- size + XXH3 of sampled content names a trace. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#define XXH_STATIC_LINKING_ONLY	/* XXH3_state_t on the stack */
#include <xxhash.h>

#include "identity.h"
#include "ptdec.h"
#include "trace.h"

#define ID_EDGE		(1u << 20)	/* first and last MiB */
#define ID_BLOCK	4096u		/* sampled block size */
#define ID_NBLOCKS	64u		/* blocks spread between the edges */

void identity_of_buffer(struct identity *id, const uint8_t *map, uint64_t size,
			int64_t mtime_ns)
{
	XXH3_state_t st;
	uint64_t mid, step, i;

	XXH3_INITSTATE(&st);
	XXH3_64bits_reset(&st);
	/* The size is part of the hash so that equal samples of files of
	 * different sizes stay apart even when compared by hash alone. */
	XXH3_64bits_update(&st, &size, sizeof(size));
	if (size <= 2 * (uint64_t)ID_EDGE + (uint64_t)ID_NBLOCKS * ID_BLOCK) {
		XXH3_64bits_update(&st, map, (size_t)size);
	} else {
		XXH3_64bits_update(&st, map, ID_EDGE);
		mid = size - 2 * (uint64_t)ID_EDGE;
		step = mid / ID_NBLOCKS;
		for (i = 0; i < ID_NBLOCKS; i++)
			XXH3_64bits_update(&st, map + ID_EDGE + i * step, ID_BLOCK);
		XXH3_64bits_update(&st, map + size - ID_EDGE, ID_EDGE);
	}
	id->size = size;
	id->hash = XXH3_64bits_digest(&st);
	id->mtime_ns = mtime_ns;
}

struct id_args {
	struct identity *id;
	const struct trace *t;
	uint64_t size;
};

static int id_body(void *arg)
{
	struct id_args *a = arg;

	identity_of_buffer(a->id, a->t->map, a->size, a->t->mtime_ns);
	return 0;
}

int identity_of_prefix(struct identity *id, const struct trace *t, uint64_t size)
{
	struct id_args a = { id, t, size };

	if (!id || !t || !t->map || size > t->size)
		return -pte_invalid;
	return trace_guard(id_body, &a);
}

struct content_args {
	const struct trace *t;
	uint64_t size, hash;
	const _Atomic int *cancel;
};

static int content_body(void *arg)
{
	struct content_args *a = arg;
	const uint64_t step = 16u << 20;
	XXH3_state_t st;
	uint64_t off;

	XXH3_INITSTATE(&st);
	XXH3_64bits_reset(&st);
	for (off = 0; off < a->size; off += step) {
		size_t n = a->size - off < step ? (size_t)(a->size - off) : step;

		if (a->cancel && *a->cancel)
			return -pte_canceled;
		XXH3_64bits_update(&st, a->t->map + off, n);
		/* Read once: the pages need not stay in our RSS. */
		trace_release(NULL, a->t->map + off, n);
	}
	a->hash = XXH3_64bits_digest(&st);
	return 0;
}

int identity_content_hash(const struct trace *t, uint64_t size,
			  const _Atomic int *cancel, uint64_t *hash)
{
	struct content_args a = { t, size, 0, cancel };
	int ret;

	if (!t || !hash || !t->map || size > t->size)
		return -pte_invalid;
	ret = trace_guard(content_body, &a);
	if (!ret)
		*hash = a.hash;
	return ret;
}

int identity_of_trace(struct identity *id, const struct trace *t)
{
	if (!t)
		return -pte_invalid;
	return identity_of_prefix(id, t, t->size);
}

char *identity_hex(const struct identity *id, char *buf)
{
	snprintf(buf, IDENTITY_HEX_LEN, "%016" PRIx64 "-%016" PRIx64,
		 id->size, id->hash);
	return buf;
}

int identity_parse(struct identity *id, const char *s)
{
	uint64_t v[2] = { 0, 0 };
	int i, k;

	if (!id || !s || strlen(s) != IDENTITY_HEX_LEN - 1 || s[16] != '-')
		return -pte_invalid;
	for (k = 0; k < 2; k++) {
		for (i = 0; i < 16; i++) {
			char c = s[k * 17 + i];
			unsigned d;

			if (c >= '0' && c <= '9')
				d = (unsigned)(c - '0');
			else if (c >= 'a' && c <= 'f')
				d = (unsigned)(c - 'a' + 10);
			else
				return -pte_invalid;
			v[k] = v[k] << 4 | d;
		}
	}
	id->size = v[0];
	id->hash = v[1];
	id->mtime_ns = 0;
	return 0;
}

int identity_same(const struct identity *a, const struct identity *b)
{
	return a->size == b->size && a->hash == b->hash;
}
