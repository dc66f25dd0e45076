/* kmod -- a kernel module's text as the kernel runs it (see kmod.h). */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kmod.h"
#include "ptdec.h"
#include "symtab.h"

/* The kallsyms table itself answers by name (symtab_addr_of(), every
 * alias included); this handle keeps kmod_load()'s interface. */
struct kmod_names {
	const struct symtab *ksyms;
};

struct kmod {
	uint64_t base;
	uint8_t *text;		/* the laid out, relocated text */
	size_t size;
	size_t nsec;		/* section headers */
	uint64_t *sec_off;	/* a text section's offset in text, else
				 * UINT64_MAX */
	Elf *elf;		/* for kmod_symbol() */
	int fd;
	size_t symtab;		/* the .symtab's index, 0 none */
};

int kmod_names_new(struct kmod_names **out, const struct symtab *ksyms)
{
	struct kmod_names *n;

	if (!out || !ksyms)
		return -pte_invalid;
	n = calloc(1, sizeof(*n));
	if (!n)
		return -pte_nomem;
	n->ksyms = ksyms;
	*out = n;
	return 0;
}

void kmod_names_free(struct kmod_names *n)
{
	free(n);
}

/* The kernel's address of @name, or 0. */
static uint64_t names_find(const struct kmod_names *n, const char *name)
{
	uint64_t addr;

	return n && symtab_addr_of(n->ksyms, name, &addr) ? addr : 0;
}

void kmod_free(struct kmod *k)
{
	if (!k)
		return;
	if (k->elf)
		elf_end(k->elf);
	if (k->fd >= 0)
		close(k->fd);
	free(k->text);
	free(k->sec_off);
	free(k);
}

size_t kmod_text(const struct kmod *k, uint64_t *addr, const uint8_t **bytes)
{
	if (!k)
		return 0;
	*addr = k->base;
	*bytes = k->text;
	return k->size;
}

/* Whether section @name is the loader's init code (freed after init). */
static int init_section(const char *name)
{
	return !strncmp(name, ".init", 5);
}

/* A module's text is megabytes at most; a section table that lays out
 * more (or whose sums would wrap) is damaged. */
#define KMOD_MAX_TEXT (1ull << 30)

/* Lay out the text sections (kmod.h) and copy their bytes.  Returns 0,
 * -pte_bad_file for a damaged section table, or -pte_nomem. */
static int kmod_layout(struct kmod *k, size_t shstrndx)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	uint64_t off = 0;
	size_t i;

	for (i = 0; i < k->nsec; i++)
		k->sec_off[i] = UINT64_MAX;
	while ((scn = elf_nextscn(k->elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			return -pte_bad_file;
		name = elf_strptr(k->elf, shstrndx, sh.sh_name);
		if (!name || (sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) !=
		    (SHF_ALLOC | SHF_EXECINSTR) || init_section(name))
			continue;
		/* sizes and alignments are the file's word: a sum that
		 * wraps, or a text past any module's, is a damaged file */
		if (sh.sh_addralign > KMOD_MAX_TEXT || sh.sh_size > KMOD_MAX_TEXT)
			return -pte_bad_file;
		if (sh.sh_addralign > 1)
			off = (off + sh.sh_addralign - 1) & ~(sh.sh_addralign - 1);
		if (elf_ndxscn(scn) >= k->nsec || off + sh.sh_size > KMOD_MAX_TEXT)
			return -pte_bad_file;
		k->sec_off[elf_ndxscn(scn)] = off;
		off += sh.sh_size;
	}
	k->size = off;
	k->text = calloc(1, off ? off : 1);
	if (!k->text)
		return -pte_nomem;
	while ((scn = elf_nextscn(k->elf, scn))) {
		Elf_Data *d;
		size_t x = elf_ndxscn(scn);

		if (x >= k->nsec || k->sec_off[x] == UINT64_MAX ||
		    !gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || d->d_size > sh.sh_size || k->sec_off[x] > k->size ||
		    d->d_size > k->size - k->sec_off[x])
			return -pte_bad_file;
		if (d->d_size)	/* an empty one may have no buffer */
			memcpy(k->text + k->sec_off[x], d->d_buf, d->d_size);
	}
	return 0;
}

/* Whether the bytes before @at (in text) make a rel32 branch whose
 * displacement is at @at: call, jmp or jcc. */
static int branch_at(const struct kmod *k, uint64_t at)
{
	if (at >= 1 && (k->text[at - 1] == 0xe8 || k->text[at - 1] == 0xe9))
		return 1;
	return at >= 2 && k->text[at - 2] == 0x0f && (k->text[at - 1] & 0xf0) == 0x80;
}

/* Apply relocation section @scn (for text section @target).  Returns 0,
 * or -pte_bad_file with @err set. */
static int kmod_rela(struct kmod *k, Elf_Scn *scn, const GElf_Shdr *sh,
		     const struct kmod_names *ksyms, const char *path,
		     char *err, size_t errlen)
{
	Elf_Data *d = elf_getdata(scn, NULL), *sd;
	Elf_Scn *symscn = elf_getscn(k->elf, sh->sh_link);
	Elf_Scn *tscn = elf_getscn(k->elf, sh->sh_info);
	GElf_Shdr ssh, tsh;
	size_t i, n;
	uint64_t at0 = k->sec_off[sh->sh_info];

	if (!d || !symscn || !gelf_getshdr(symscn, &ssh) || !(sd = elf_getdata(symscn, NULL)) ||
	    !tscn || !gelf_getshdr(tscn, &tsh))
		return -pte_bad_file;
	n = sh->sh_entsize ? d->d_size / sh->sh_entsize : 0;
	for (i = 0; i < n; i++) {
		GElf_Rela r;
		GElf_Sym sym;
		const char *name;
		uint64_t at, s = 0, p, v;
		unsigned type;

		if (!gelf_getrela(d, (int)i, &r) ||
		    !gelf_getsym(sd, (int)GELF_R_SYM(r.r_info), &sym))
			return -pte_bad_file;
		type = (unsigned)GELF_R_TYPE(r.r_info);
		name = elf_strptr(k->elf, ssh.sh_link, sym.st_name);
		if (type != R_X86_64_PC32 && type != R_X86_64_PLT32 &&
		    type != R_X86_64_64 && type != R_X86_64_32S && type != R_X86_64_32)
			continue;
		/* inside the target section, asked without a sum that wraps */
		if (tsh.sh_size < (type == R_X86_64_64 ? 8u : 4u) ||
		    r.r_offset > tsh.sh_size - (type == R_X86_64_64 ? 8u : 4u))
			return -pte_bad_file;
		at = at0 + r.r_offset;
		if (name && !strcmp(name, "__fentry__") && at >= 1 && k->text[at - 1] == 0xe8) {
			/* ftrace's call site: a NOP while no tracer runs */
			static const uint8_t nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

			memcpy(k->text + at - 1, nop5, 5);
			continue;
		}
		if (sym.st_shndx != SHN_UNDEF && sym.st_shndx < k->nsec &&
		    k->sec_off[sym.st_shndx] != UINT64_MAX)
			s = k->base + k->sec_off[sym.st_shndx] + sym.st_value;
		else if (sym.st_shndx == SHN_UNDEF && name)
			s = names_find(ksyms, name);
		if (!s) {
			/* data elsewhere is no branch target; a branch is */
			if ((type == R_X86_64_PC32 || type == R_X86_64_PLT32) &&
			    branch_at(k, at)) {
				snprintf(err, errlen, "%s: a branch at .text+0x%llx to "
					 "'%s', which %s", path,
					 (unsigned long long)(at), name ? name : "?",
					 ksyms ? "kallsyms does not name" :
					 "needs --kallsyms");
				return -pte_bad_file;
			}
			continue;
		}
		p = k->base + at;
		v = s + (uint64_t)r.r_addend;
		if (type == R_X86_64_PC32 || type == R_X86_64_PLT32)
			v -= p;
		if (type == R_X86_64_64)
			memcpy(k->text + at, &v, 8);
		else
			memcpy(k->text + at, &v, 4);
	}
	return 0;
}

/* Check the build ID against @bid.  Returns 0 or -pte_bad_file. */
static int kmod_check_bid(struct kmod *k, const uint8_t *bid, size_t len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(k->elf, scn))) {
		GElf_Nhdr nh;
		Elf_Data *d;
		size_t off = 0, noff, doff;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		while (d && (off = gelf_getnote(d, off, &nh, &noff, &doff)))
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((const char *)d->d_buf + noff, "GNU", 4))
				return nh.n_descsz <= len &&
				       !memcmp((const char *)d->d_buf + doff, bid, nh.n_descsz)
				       ? 0 : -pte_bad_file;
	}
	return -pte_bad_file;
}

int kmod_load(struct kmod **out, const char *path, uint64_t base,
	      const struct kmod_names *ksyms, const uint8_t *bid, size_t bid_len,
	      char *err, size_t errlen)
{
	struct kmod *k;
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstrndx;
	int ret = -pte_bad_file;

	if (!out || !path || !err)
		return -pte_invalid;
	k = calloc(1, sizeof(*k));
	if (!k)
		return -pte_nomem;
	k->base = base;
	k->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (k->fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		kmod_free(k);
		return -pte_io;
	}
	elf_version(EV_CURRENT);
	k->elf = elf_begin(k->fd, ELF_C_READ_MMAP, NULL);
	if (!k->elf || !gelf_getehdr(k->elf, &eh) || eh.e_type != ET_REL ||
	    eh.e_machine != EM_X86_64 || elf_getshdrnum(k->elf, &k->nsec) ||
	    elf_getshdrstrndx(k->elf, &shstrndx)) {
		snprintf(err, errlen, "%s: not a relocatable x86-64 ELF file (a "
			 "kernel module)", path);
		goto out_free;
	}
	if (bid_len && kmod_check_bid(k, bid, bid_len)) {
		snprintf(err, errlen, "%s: not the recorded build ID", path);
		goto out_free;
	}
	k->sec_off = malloc((k->nsec ? k->nsec : 1) * sizeof(*k->sec_off));
	if (!k->sec_off) {
		ret = -pte_nomem;
		goto out_free;
	}
	ret = kmod_layout(k, shstrndx);
	if (ret) {
		if (ret == -pte_bad_file)
			snprintf(err, errlen, "%s: damaged section table", path);
		goto out_free;
	}
	while ((scn = elf_nextscn(k->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA ||
		    sh.sh_info >= k->nsec || k->sec_off[sh.sh_info] == UINT64_MAX)
			continue;
		err[0] = 0;
		ret = kmod_rela(k, scn, &sh, ksyms, path, err, errlen);
		if (ret) {
			if (!err[0])
				snprintf(err, errlen, "%s: damaged relocations", path);
			goto out_free;
		}
	}
	*out = k;
	return 0;
out_free:
	kmod_free(k);
	return ret;
}

uint64_t kmod_symbol(const struct kmod *k, const char *name)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (!k || !name)
		return 0;
	while ((scn = elf_nextscn(k->elf, scn))) {
		Elf_Data *d;
		size_t i, n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB ||
		    !(d = elf_getdata(scn, NULL)) || !sh.sh_entsize)
			continue;
		n = d->d_size / sh.sh_entsize;
		for (i = 0; i < n; i++) {
			GElf_Sym sym;
			const char *s;

			if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx >= k->nsec ||
			    k->sec_off[sym.st_shndx] == UINT64_MAX)
				continue;
			s = elf_strptr(k->elf, sh.sh_link, sym.st_name);
			if (s && !strcmp(s, name))
				return k->base + k->sec_off[sym.st_shndx] + sym.st_value;
		}
	}
	return 0;
}
