/* elfimg -- an ELF file's loadable segments and build ID. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfimg.h"
#include "ptdec.h"

#define NT_GNU_BUILD_ID_TYPE 3

struct elfimg {
	char *path;
	uint8_t *map;		/* the whole file, private and read-only */
	uint64_t size;
	Elf *elf;
	unsigned type;
	uint64_t link_base;
	struct elfimg_seg *segs;
	size_t nsegs;
	uint8_t build_id[ELFIMG_BUILD_ID_MAX];
	size_t build_id_len;
};

/* Write "PATH: MESSAGE" into @err; returns -@code. */
static int elfimg_fail(char *err, size_t errlen, const char *path, int code,
		       const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int elfimg_fail(char *err, size_t errlen, const char *path, int code,
		       const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (err && errlen)
		snprintf(err, errlen, "%s: %s", path, msg);
	return -code;
}

static uint32_t elfimg_rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Look for NT_GNU_BUILD_ID in the notes at [@off, @off + @size) of the
 * file, aligned to @align (4 or 8).  Returns 1 if found. */
static int elfimg_notes(struct elfimg *e, uint64_t off, uint64_t size,
			uint64_t align)
{
	uint64_t end, namesz, descsz, type, pos;

	if (off > e->size || size > e->size - off)
		return 0;
	if (align != 8)
		align = 4;
	end = off + size;
	pos = off;
	while (end - pos >= 12) {
		namesz = elfimg_rd32(e->map + pos);
		descsz = elfimg_rd32(e->map + pos + 4);
		type = elfimg_rd32(e->map + pos + 8);
		pos += 12;
		if (namesz > end - pos)
			return 0;
		{
			uint64_t name = pos;

			pos += (namesz + align - 1) & ~(align - 1);
			if (pos > end || descsz > end - pos)
				return 0;
			if (type == NT_GNU_BUILD_ID_TYPE && namesz == 4 &&
			    !memcmp(e->map + name, "GNU", 4) && descsz &&
			    descsz <= ELFIMG_BUILD_ID_MAX) {
				memcpy(e->build_id, e->map + pos, descsz);
				e->build_id_len = descsz;
				return 1;
			}
		}
		pos += (descsz + align - 1) & ~(align - 1);
	}
	return 0;
}

/* The build ID from PT_NOTE segments, else from SHT_NOTE sections. */
static void elfimg_find_build_id(struct elfimg *e, size_t nphdr)
{
	GElf_Phdr ph;
	GElf_Shdr sh;
	Elf_Scn *scn = NULL;
	size_t i;

	for (i = 0; i < nphdr; i++)
		if (gelf_getphdr(e->elf, (int)i, &ph) && ph.p_type == PT_NOTE &&
		    elfimg_notes(e, ph.p_offset, ph.p_filesz, ph.p_align))
			return;
	while ((scn = elf_nextscn(e->elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_NOTE &&
		    elfimg_notes(e, sh.sh_offset, sh.sh_size, sh.sh_addralign))
			return;
}

/* The program header count the ELF header @eh gives (PN_XNUM: section
 * header 0's sh_info), into *@out, checked against the file's size here:
 * libelf's elf_getphdrnum() clamps a count past the end of the file to
 * what fits, and gives 0 for a PN_XNUM it cannot resolve, which would
 * read as a file without PT_LOAD segments.  Returns 0 or -pte_bad_file
 * (message in @err). */
static int elfimg_phnum(struct elfimg *e, const GElf_Ehdr *eh, size_t *out,
			char *err, size_t errlen)
{
	uint64_t at = e->map[EI_CLASS] == ELFCLASS64 ? 0x38 : 0x2c, n, need;
	Elf_Scn *scn;
	GElf_Shdr sh;

	n = eh->e_phnum;
	if (n == PN_XNUM) {
		if (!(scn = elf_getscn(e->elf, 0)) || !gelf_getshdr(scn, &sh))
			return elfimg_fail(err, errlen, e->path, pte_bad_file,
					   "offset %#" PRIx64 ": e_phnum is "
					   "PN_XNUM, but section header 0, which "
					   "holds the count, is unreadable (at "
					   "%#" PRIx64 ")", at,
					   (uint64_t)eh->e_shoff);
		n = sh.sh_info;
		if (n < PN_XNUM)
			return elfimg_fail(err, errlen, e->path, pte_bad_file,
					   "offset %#" PRIx64 ": e_phnum is "
					   "PN_XNUM, but section header 0 gives "
					   "%" PRIu64 " program headers", at, n);
	}
	need = n * eh->e_phentsize;
	if (eh->e_phoff > e->size || need > e->size - eh->e_phoff)
		return elfimg_fail(err, errlen, e->path, pte_bad_file,
				   "truncated ELF: offset %#" PRIx64 ": %" PRIu64
				   " program headers run past the end of the "
				   "file (%" PRIu64 " bytes)", (uint64_t)eh->e_phoff,
				   n, e->size);
	*out = (size_t)n;
	return 0;
}

/* Read the ELF header and the PT_LOAD segments of the mapped file. */
static int elfimg_parse(struct elfimg *e, char *err, size_t errlen)
{
	GElf_Ehdr eh;
	GElf_Phdr ph;
	size_t nphdr = 0, i, n = 0;
	uint64_t lowest = UINT64_MAX, need;
	int ret;

	if (e->size < 4 || memcmp(e->map, ELFMAG, SELFMAG))
		return elfimg_fail(err, errlen, e->path, pte_bad_file,
				   "not an ELF file (no ELF magic)");
	if (e->size < EI_NIDENT || (e->map[EI_CLASS] != ELFCLASS32 &&
				    e->map[EI_CLASS] != ELFCLASS64))
		return elfimg_fail(err, errlen, e->path, pte_bad_file,
				   "offset 0x4: bad ELF class");
	need = e->map[EI_CLASS] == ELFCLASS64 ? sizeof(Elf64_Ehdr) :
						sizeof(Elf32_Ehdr);
	if (e->size < need)
		return elfimg_fail(err, errlen, e->path, pte_bad_file,
				   "truncated ELF: the header needs %" PRIu64
				   " bytes, the file has %" PRIu64, need,
				   e->size);
	e->elf = elf_memory((char *)e->map, e->size);
	if (!e->elf || !gelf_getehdr(e->elf, &eh))
		return elfimg_fail(err, errlen, e->path, pte_bad_file,
				   "bad ELF header: %s", elf_errmsg(-1));
	e->type = eh.e_type;
	ret = elfimg_phnum(e, &eh, &nphdr, err, errlen);
	if (ret)
		return ret;
	e->segs = calloc(nphdr ? nphdr : 1, sizeof(*e->segs));
	if (!e->segs)
		return -pte_nomem;
	for (i = 0; i < nphdr; i++) {
		struct elfimg_seg *s;

		if (!gelf_getphdr(e->elf, (int)i, &ph))
			return elfimg_fail(err, errlen, e->path, pte_bad_file,
					   "program header %zu: %s", i,
					   elf_errmsg(-1));
		if (ph.p_type != PT_LOAD)
			continue;
		if (ph.p_offset > e->size || ph.p_filesz > e->size - ph.p_offset)
			return elfimg_fail(err, errlen, e->path, pte_bad_file,
					   "truncated ELF: offset %#" PRIx64
					   ": PT_LOAD segment %zu needs %#"
					   PRIx64 " bytes, the file ends at %#"
					   PRIx64, (uint64_t)ph.p_offset, i,
					   (uint64_t)ph.p_filesz, e->size);
		if (ph.p_filesz > ph.p_memsz ||
		    ph.p_vaddr + ph.p_memsz < ph.p_vaddr)
			return elfimg_fail(err, errlen, e->path, pte_bad_file,
					   "program header %zu: impossible "
					   "PT_LOAD sizes", i);
		s = &e->segs[n++];
		s->vaddr = ph.p_vaddr;
		s->offset = ph.p_offset;
		s->filesz = ph.p_filesz;
		s->memsz = ph.p_memsz;
		s->data = e->map + ph.p_offset;
		s->flags = ph.p_flags;
		/* a vmlinux's per-CPU segment is linked at 0: not its base */
		if (ph.p_vaddr < lowest && (ph.p_vaddr || eh.e_type != ET_EXEC))
			lowest = ph.p_vaddr;
	}
	if (!n)
		return elfimg_fail(err, errlen, e->path, pte_bad_file,
				   "no PT_LOAD segment (not an executable, "
				   "shared object or kernel image)");
	e->nsegs = n;
	if (lowest == UINT64_MAX)
		lowest = 0;
	e->link_base = lowest & ~(uint64_t)(ELFIMG_PAGE - 1);
	elfimg_find_build_id(e, nphdr);
	return 0;
}

int elfimg_open(struct elfimg **out, const char *path, char *err,
		size_t errlen)
{
	struct elfimg *e;
	struct stat sb;
	int fd, ret;

	if (err && errlen)
		err[0] = 0;
	if (!out || !path)
		return -pte_invalid;
	*out = NULL;
	elf_version(EV_CURRENT);
	e = calloc(1, sizeof(*e));
	if (!e)
		return -pte_nomem;
	e->path = strdup(path);
	if (!e->path) {
		ret = -pte_nomem;
		goto out_free;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = elfimg_fail(err, errlen, path, pte_io, "%s",
				  strerror(errno));
		goto out_free;
	}
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		ret = elfimg_fail(err, errlen, path, pte_io, "%s",
				  S_ISREG(sb.st_mode) ? strerror(errno) :
				  "not a regular file");
		close(fd);
		goto out_free;
	}
	e->size = (uint64_t)sb.st_size;
	if (!e->size) {
		close(fd);
		ret = elfimg_fail(err, errlen, path, pte_bad_file,
				  "empty file, not an ELF file");
		goto out_free;
	}
	/* Private and writable: libelf may convert in place; the file is
	 * never written. */
	e->map = mmap(NULL, e->size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd,
		      0);
	close(fd);
	if (e->map == MAP_FAILED) {
		e->map = NULL;
		ret = elfimg_fail(err, errlen, path, pte_io, "mmap: %s",
				  strerror(errno));
		goto out_free;
	}
	ret = elfimg_parse(e, err, errlen);
	if (ret)
		goto out_free;
	*out = e;
	return 0;

out_free:
	if (ret == -pte_nomem)
		elfimg_fail(err, errlen, path, pte_nomem, "out of memory");
	elfimg_close(e);
	return ret;
}

void elfimg_close(struct elfimg *e)
{
	if (!e)
		return;
	if (e->elf)
		elf_end(e->elf);
	if (e->map)
		munmap(e->map, e->size);
	free(e->segs);
	free(e->path);
	free(e);
}

const char *elfimg_path(const struct elfimg *e)
{
	return e->path;
}

unsigned elfimg_type(const struct elfimg *e)
{
	return e->type;
}

uint64_t elfimg_link_base(const struct elfimg *e)
{
	return e->link_base;
}

size_t elfimg_nsegs(const struct elfimg *e)
{
	return e->nsegs;
}

const struct elfimg_seg *elfimg_seg(const struct elfimg *e, size_t i)
{
	return i < e->nsegs ? &e->segs[i] : NULL;
}

size_t elfimg_build_id(const struct elfimg *e, const uint8_t **id)
{
	if (id)
		*id = e->build_id;
	return e->build_id_len;
}

char *elfimg_hex(const uint8_t *id, size_t len, char *buf, size_t size)
{
	size_t i;

	if (!size)
		return buf;
	buf[0] = 0;
	for (i = 0; i < len && 2 * i + 2 < size; i++)
		snprintf(buf + 2 * i, 3, "%02x", id[i]);
	return buf;
}

int elfimg_check_build_id(const struct elfimg *e, const uint8_t *id,
			  size_t len, char *err, size_t errlen)
{
	char have[2 * ELFIMG_BUILD_ID_MAX + 1], want[2 * ELFIMG_BUILD_ID_MAX + 1];
	size_t i, n = e->build_id_len;
	int same = n && len >= n && !memcmp(e->build_id, id, n);

	for (i = n; same && i < len; i++)
		same = !id[i];
	if (same)
		return 0;
	elfimg_hex(id, len, want, sizeof(want));
	if (!n)
		return elfimg_fail(err, errlen, e->path, pte_bad_file,
				   "has no build ID, expected %s", want);
	elfimg_hex(e->build_id, n, have, sizeof(have));
	return elfimg_fail(err, errlen, e->path, pte_bad_file,
			   "build ID %s, expected %s", have, want);
}

Elf *elfimg_elf(const struct elfimg *e)
{
	return e->elf;
}
