/*
 * memimg -- the memory the traced code ran in: code segments keyed by
 * address space, read by the flow decoder (decoder/flow.h) through its
 * read callback.
 *
 * A segment is caller-owned bytes (usually a read-only file mapping) at an
 * address in one address space (a CR3 value, a pid: the caller decides) or
 * in every one (MI_ASID_ANY: kernel code, raw dumps).  Where segments
 * overlap, the one added later hides the earlier ones, as libipt's image
 * does.  `--raw FILE:ADDR` (ptxed's option) is mi_add_raw(); ELF files and
 * perf.data MMAP records add their segments with mi_add().
 *
 * Look-ups cost the logarithm of the number of segments (a recording of
 * the whole system has thousands: each process's mappings in each of its
 * address spaces): the first one after segments were added sorts them.
 * Several threads may look up at once; none may while one adds.
 */
#ifndef MEMIMG_H
#define MEMIMG_H

#include <stddef.h>
#include <stdint.h>

/* Code visible in every address space. */
#define MI_ASID_ANY UINT64_MAX

struct mi;

/* A new, empty image.
 * Returns 0 and sets *@out, or -pte_nomem. */
int mi_new(struct mi **out);

/* Free @mi and unmap the files mi_add_raw() mapped (NULL is fine). */
void mi_free(struct mi *mi);

/* Add [@data, @data + @size) at @addr in address space @asid; @name (copied)
 * names it in messages.  The caller keeps @data alive as long as @mi.
 * Returns 0, -pte_invalid if @size is 0 or @addr + @size wraps, or
 * -pte_nomem. */
int mi_add(struct mi *mi, uint64_t asid, uint64_t addr, const uint8_t *data,
	   uint64_t size, const char *name);

/* As mi_add(), for bytes at offset @file_off of the file @name names (a
 * mapping's code: its page offset plus how far into the mapping they
 * start), so that code without symbols is named by its file offset
 * (mi_name_span()).  mi_add() is this with @file_off 0: the file starts
 * at @addr (a dump).  Returns what mi_add() returns. */
int mi_add_file(struct mi *mi, uint64_t asid, uint64_t addr, const uint8_t *data,
		uint64_t size, const char *name, uint64_t file_off);

/* Whether @spec is "FILE:ADDR" as mi_add_raw() takes it (nothing read):
 * its ADDR into *@addr.  Returns 0, or -pte_invalid with the one-line
 * message in @err. */
int mi_raw_spec(const char *spec, unsigned long long *addr, char *err, size_t errlen);

/* Map FILE read-only and add it at ADDR in every address space, for a
 * @spec "FILE:ADDR" (ADDR in C notation: 0x400000, or decimal).  On failure
 * a one-line message naming the file goes into @err.
 * Returns 0, or -pte_invalid (bad spec or address, empty file, or it overlaps
 * a segment added before: --raw dumps must not overlap), -pte_io (the file
 * cannot be opened or mapped), -pte_nomem. */
int mi_add_raw(struct mi *mi, const char *spec, char *err, size_t errlen);

/* Copy the bytes at @ip in address space @asid into @buf: up to @size,
 * stopping where no segment continues them.  @mi is a struct mi (void * so
 * it fits a read callback).
 * Returns the number of bytes copied (> 0), or -pte_nomap if no segment
 * holds @ip, or -pte_invalid for a NULL argument. */
int mi_read(void *mi, uint64_t asid, uint64_t ip, uint8_t *buf, size_t size);

/* The name of the segment holding @ip in @asid, its first byte in *@start
 * and one past its last in *@end (either may be NULL); NULL if none does. */
const char *mi_name_at(const struct mi *mi, uint64_t asid, uint64_t ip,
		       uint64_t *start, uint64_t *end);

/* As mi_name_at(), and into *@until (if not NULL) how far from @ip on the
 * same answer holds for certain: the segment's end, or where any other
 * segment (of any address space) begins inside it, whichever is first;
 * into *@file_off (if not NULL) the offset in its file of the segment's
 * first byte (mi_add_file(); 0 for a dump).
 * Returns the name, or NULL if no segment holds @ip. */
const char *mi_name_span(const struct mi *mi, uint64_t asid, uint64_t ip,
			 uint64_t *start, uint64_t *end, uint64_t *until,
			 uint64_t *file_off);

/* The newest segment read in address space @asid (one of @asid's or of
 * every space's; MI_ASID_ANY: any) that overlaps [@lo, @hi): its name, its
 * first byte in *@start and one past its last in *@end, and into *@dump
 * whether it is a --raw dump (mi_add_raw()); any of them may be NULL.  So
 * that code about to be added can say what it will hide.
 * Returns the name, or NULL if none overlaps (or @lo >= @hi). */
const char *mi_overlap(const struct mi *mi, uint64_t asid, uint64_t lo,
		       uint64_t hi, uint64_t *start, uint64_t *end, int *dump);

/* The number of segments. */
size_t mi_count(const struct mi *mi);

#endif /* MEMIMG_H */
