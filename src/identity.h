/*
 * identity -- who a trace file is, independent of its name.
 *
 * The identity is the file size plus an XXH3-64 hash of sampled content:
 * the first and the last MiB and 64 blocks of 4 KiB spread evenly between
 * them (the whole file when it is smaller than that).  A renamed or copied
 * trace keeps its identity; a trace that changed almost surely does not.
 * The modification time rides along for the index cache, which trusts an
 * unchanged mtime and re-checks a changed one; marks ignore it.
 */
#ifndef IDENTITY_H
#define IDENTITY_H

#include <stddef.h>
#include <stdint.h>

struct trace;

/* The identity of a trace file. */
struct identity {
	uint64_t size;		/* bytes */
	uint64_t hash;		/* XXH3-64 of the sampled content */
	int64_t mtime_ns;	/* modification time, ns since the epoch */
};

/* "size-hash" in hex, e.g. "0000000100000000-1f2e3d4c5b6a7988", plus NUL. */
#define IDENTITY_HEX_LEN 34

/* Compute the identity of the first @size bytes of [@map, @map + @size).
 * Sampling depends only on @size, so the identity of a file's first
 * @size bytes can be recomputed after it grew. */
void identity_of_buffer(struct identity *id, const uint8_t *map, uint64_t size,
			int64_t mtime_ns);

/* Compute the identity of trace @t's whole file, guarded against the file
 * shrinking under the mapping.
 * Returns 0, or -pte_sigbus if the file shrank. */
int identity_of_trace(struct identity *id, const struct trace *t);

/* The identity of the first @size bytes of @t's file (@size <= its size),
 * with @t's mtime; for a trace that grew.
 * Returns 0, -pte_invalid if @size is too big, or -pte_sigbus. */
int identity_of_prefix(struct identity *id, const struct trace *t, uint64_t size);

/* XXH3-64 of every one of the first @size bytes of @t's file: what the
 * index cache checks a copied or touched trace against.  Stops when
 * *@cancel (if not NULL) is set.
 * Returns 0, -pte_invalid if @size is too big, -pte_canceled or
 * -pte_sigbus. */
int identity_content_hash(const struct trace *t, uint64_t size,
			  const _Atomic int *cancel, uint64_t *hash);

/* Write "size-hash" into @buf (IDENTITY_HEX_LEN bytes); returns @buf. */
char *identity_hex(const struct identity *id, char *buf);

/* Parse identity_hex()'s form (mtime is set to 0).
 * Returns 0, or -pte_invalid if @s is not in that form. */
int identity_parse(struct identity *id, const char *s);

/* Whether @a and @b name the same content (size and hash; mtime ignored). */
int identity_same(const struct identity *a, const struct identity *b);

#endif /* IDENTITY_H */
