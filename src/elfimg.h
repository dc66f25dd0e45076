/*
 * elfimg -- one ELF file (executable, shared object, kernel image) as the
 * code it puts in memory: its PT_LOAD segments and its GNU build ID.
 *
 * The file is mapped read-only once; segment bytes point into that mapping
 * and stay valid until elfimg_close(), so the memory image (memimg.h) and
 * the symbol tables (symtab.h) share them without copies.  Segment
 * addresses are the file's own (its link-time p_vaddr); whoever maps the
 * file elsewhere adds a bias:
 *
 *   BASE, as in `--elf FILE:BASE`, is the address where the lowest PT_LOAD
 *   segment's p_vaddr, rounded down to the 4 KiB page, is mapped -- the
 *   start of the object's first mapping in /proc/PID/maps, or a perf MMAP
 *   record of page offset 0.  bias = BASE - elfimg_link_base().  For files
 *   built by the usual linkers the lowest p_vaddr is page-aligned, so this
 *   is also ptxed's "lowest segment loaded at BASE".  In an executable
 *   (ET_EXEC) a segment linked at 0 -- a vmlinux's per-CPU data -- does
 *   not count, so a vmlinux's BASE is where its _text is (KASLR).
 *
 * Errors are one line naming the file (and the offset where one applies).
 */
#ifndef ELFIMG_H
#define ELFIMG_H

#include <stddef.h>
#include <stdint.h>

typedef struct Elf Elf;
struct elfimg;

/* One PT_LOAD segment, at the file's own addresses. */
struct elfimg_seg {
	uint64_t vaddr;		/* p_vaddr */
	uint64_t offset;	/* p_offset: where its bytes are in the file */
	uint64_t filesz;	/* bytes present in the file */
	uint64_t memsz;		/* bytes in memory (the rest reads as 0) */
	const uint8_t *data;	/* the filesz bytes, in the mapping */
	uint32_t flags;		/* PF_X, PF_W, PF_R */
};

#define ELFIMG_PAGE		4096u
#define ELFIMG_BUILD_ID_MAX	64	/* bytes; GNU uses 20 (SHA-1) */

/* Open and map ELF file @path, read its program headers and build ID.
 * On failure writes "PATH: MESSAGE" (with the offset where one applies)
 * into @err.
 * Returns 0 and sets *@out on success.
 * Returns -pte_io if the file cannot be opened or mapped (errno's text).
 * Returns -pte_bad_file if it is not an ELF file, is truncated, or has no
 * PT_LOAD segment.
 * Returns -pte_nomem if out of memory.
 * Returns -pte_invalid if @out or @path is NULL. */
int elfimg_open(struct elfimg **out, const char *path, char *err,
		size_t errlen);

/* Unmap and free @e (NULL is fine). */
void elfimg_close(struct elfimg *e);

/* The path @e was opened with. */
const char *elfimg_path(const struct elfimg *e);

/* The ELF type: ET_EXEC, ET_DYN, ET_REL or ET_CORE. */
unsigned elfimg_type(const struct elfimg *e);

/* The lowest PT_LOAD p_vaddr rounded down to ELFIMG_PAGE: the address BASE
 * stands for (see above). */
uint64_t elfimg_link_base(const struct elfimg *e);

/* The number of PT_LOAD segments (at least 1). */
size_t elfimg_nsegs(const struct elfimg *e);

/* PT_LOAD segment @i (in program-header order), or NULL if out of range. */
const struct elfimg_seg *elfimg_seg(const struct elfimg *e, size_t i);

/* The GNU build ID (NT_GNU_BUILD_ID note).
 * Returns its length in bytes (0 if the file has none) and sets *@id. */
size_t elfimg_build_id(const struct elfimg *e, const uint8_t **id);

/* Write build ID @id (@len bytes) as lower-case hex into @buf (@size
 * bytes, NUL-terminated, cut to fit).  Returns @buf. */
char *elfimg_hex(const uint8_t *id, size_t len, char *buf, size_t size);

/* Check that @e's build ID is @id (@len bytes; perf pads short IDs with
 * zeros to 20 bytes, so trailing zeros past @e's length are ignored).  On
 * a mismatch writes "PATH: build ID X, expected Y" into @err.
 * Returns 0 if they match.
 * Returns -pte_bad_file if they differ or @e has no build ID. */
int elfimg_check_build_id(const struct elfimg *e, const uint8_t *id,
			  size_t len, char *err, size_t errlen);

/* The libelf handle of @e, for symbols and DWARF (owned by @e). */
Elf *elfimg_elf(const struct elfimg *e);

#endif /* ELFIMG_H */
