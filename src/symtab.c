/* symtab -- an object's functions by address; source lines via libdw. */
#include <errno.h>
#include <gelf.h>
#include <pthread.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_LIBDW
#include <elfutils/libdw.h>
#endif

#include "elfimg.h"
#include "ptdec.h"
#include "safefile.h"
#include "symtab.h"

/* How far the last symbol of a table without sizes reaches. */
#define SYMTAB_LAST_REACH 4096

/* Binding ranks: lower wins among names at one address. */
enum { SYMTAB_GLOBAL, SYMTAB_WEAK, SYMTAB_LOCAL };

struct symtab_ent {
	struct symtab_sym sym;
	uint8_t rank;
	uint8_t open;		/* size 0 in the file: up to the next one */
	size_t order;		/* input order, for a stable choice */
};

/* Where the answer of symtab_lookup() changes: from @lo up to the next
 * span's lo, symbol @sym (SYMTAB_NO_SYM: none).  Nested symbols and
 * overlaps are flattened here, the innermost (latest-starting) one
 * answering, so a lookup is one search and its answer holds over the
 * whole span. */
struct symtab_span {
	uint64_t lo;
	uint32_t sym;
};
#define SYMTAB_NO_SYM UINT32_MAX

/* A name of a kallsyms table, aliases included, for symtab_addr_of(). */
struct symtab_name {
	uint64_t addr;
	const char *name;
	uint8_t rank;
};

struct symtab {
	struct symtab_sym *syms;
	size_t n;
	struct symtab_span *span;
	size_t nspan;
	char *pool;		/* the names, NUL-separated */
	size_t pool_len, pool_cap;
	const char *origin;
	struct symtab_name *byname;	/* kallsyms: every name, sorted */
	size_t nbyname;
	struct elfimg *elf;	/* for DWARF, if from an ELF file */
	/* the names lookups show, sorted and unique, for symtab_names();
	 * made at its first call (a table is mostly never asked by name) */
	pthread_mutex_t names_lock;
	const char **names;
	size_t nnames;
#ifdef HAVE_LIBDW
	pthread_mutex_t dw_lock;	/* libdw reads lazily: one at a time */
	Dwarf *dw;
	uint8_t dw_tried;
#endif
};

/* A growing list of entries while a table is read. */
struct symtab_build {
	struct symtab_ent *ent;
	size_t n, cap;
	char *pool;
	size_t pool_len, pool_cap;
};

static int symtab_fail(char *err, size_t errlen, const char *path, int code,
		       const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int symtab_fail(char *err, size_t errlen, const char *path, int code,
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

/* Add one symbol; its name is copied into the pool (offset kept in
 * sym.name until symtab_finish turns it into a pointer). */
static int symtab_push(struct symtab_build *b, uint64_t addr, uint64_t size,
		       const char *name, size_t nlen, uint8_t rank, int open)
{
	struct symtab_ent *e;

	if (b->n == b->cap) {
		size_t ncap = b->cap ? 2 * b->cap : 256;

		e = realloc(b->ent, ncap * sizeof(*e));
		if (!e)
			return -pte_nomem;
		b->ent = e;
		b->cap = ncap;
	}
	if (b->pool_len + nlen + 1 > b->pool_cap) {
		size_t ncap = 2 * (b->pool_len + nlen + 1) + 4096;
		char *p = realloc(b->pool, ncap);

		if (!p)
			return -pte_nomem;
		b->pool = p;
		b->pool_cap = ncap;
	}
	memcpy(b->pool + b->pool_len, name, nlen);
	b->pool[b->pool_len + nlen] = 0;
	e = &b->ent[b->n];
	e->sym.addr = addr;
	e->sym.size = size;
	e->sym.name = (const char *)(uintptr_t)b->pool_len;
	e->rank = rank;
	e->open = !!open;
	e->order = b->n++;
	b->pool_len += nlen + 1;
	return 0;
}

static int symtab_ent_cmp(const void *a, const void *b)
{
	const struct symtab_ent *x = a, *y = b;

	if (x->sym.addr != y->sym.addr)
		return x->sym.addr < y->sym.addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* One past the last address symbol @k of @s holds (UINT64_MAX if it
 * reaches the top): its size, else up to the next symbol (the last one
 * SYMTAB_LAST_REACH). */
static uint64_t symtab_end(const struct symtab *s, size_t k)
{
	const struct symtab_sym *x = &s->syms[k];
	uint64_t reach = x->size ? x->size :
			 k + 1 < s->n ? s->syms[k + 1].addr - x->addr : SYMTAB_LAST_REACH;

	return reach > UINT64_MAX - x->addr ? UINT64_MAX : x->addr + reach;
}

/* A span from @lo answered by @sym, after those in s->span. */
static void symtab_span_add(struct symtab *s, uint64_t lo, uint32_t sym)
{
	struct symtab_span *l = s->nspan ? &s->span[s->nspan - 1] : NULL;

	if (l && l->lo == lo) {
		l->sym = sym;
		if (s->nspan > 1 && l[-1].sym == sym)
			s->nspan--;
		return;
	}
	if (l ? l->sym == sym : sym == SYMTAB_NO_SYM)
		return;
	s->span[s->nspan].lo = lo;
	s->span[s->nspan++].sym = sym;
}

/* Flatten the symbols into spans (struct symtab_span): a sweep by
 * address with the symbols holding it on a stack, the innermost on top;
 * one that ended is dropped when it comes to the top.
 * Returns 0 or -pte_nomem. */
static int symtab_spans(struct symtab *s)
{
	size_t *stack = malloc((s->n ? s->n : 1) * sizeof(*stack)), top = 0, k;
	struct symtab_span *t;

	s->span = malloc((2 * s->n + 1) * sizeof(*s->span));
	if (!stack || !s->span) {
		free(stack);
		free(s->span);
		s->span = NULL;
		return -pte_nomem;
	}
	s->nspan = 0;
	for (k = 0; k <= s->n; k++) {
		/* the symbols that end before the next one starts */
		while (top) {
			uint64_t e = symtab_end(s, stack[top - 1]);

			if (k < s->n && e > s->syms[k].addr)
				break;
			while (top && symtab_end(s, stack[top - 1]) <= e)
				top--;
			symtab_span_add(s, e, top ? (uint32_t)stack[top - 1] :
					SYMTAB_NO_SYM);
			if (e == UINT64_MAX)
				top = 0;
		}
		if (k < s->n) {
			stack[top++] = k;
			symtab_span_add(s, s->syms[k].addr, (uint32_t)k);
		}
	}
	free(stack);
	t = realloc(s->span, (s->nspan ? s->nspan : 1) * sizeof(*t));
	if (t)
		s->span = t;
	return 0;
}

static int symtab_name_cmp(const void *a, const void *b)
{
	const struct symtab_name *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* Every name of @b, aliases too, sorted by name into @s->byname (the
 * build's entries before symtab_finish() keeps one per address: a kernel
 * module's relocations name whichever alias its source called).
 * Returns 0 or -pte_nomem. */
static int symtab_byname(struct symtab *s, const struct symtab_build *b)
{
	size_t i;

	s->byname = malloc((b->n ? b->n : 1) * sizeof(*s->byname));
	if (!s->byname)
		return -pte_nomem;
	for (i = 0; i < b->n; i++) {
		s->byname[i].addr = b->ent[i].sym.addr;
		s->byname[i].name = b->pool + (uintptr_t)b->ent[i].sym.name;
		s->byname[i].rank = b->ent[i].rank;
	}
	s->nbyname = b->n;
	qsort(s->byname, s->nbyname, sizeof(*s->byname), symtab_name_cmp);
	return 0;
}

/* Sort, keep one name per address, and hand the storage to a table
 * (with every name by name too if @byname). */
static int symtab_finish(struct symtab_build *b, const char *origin,
			 int byname, struct symtab **out)
{
	struct symtab *s;
	uint8_t *open;
	size_t i, k = 0;

	s = calloc(1, sizeof(*s));
	if (!s)
		return -pte_nomem;
	s->syms = calloc(b->n ? b->n : 1, sizeof(*s->syms));
	open = calloc(b->n ? b->n : 1, 1);
	if (!s->syms || !open) {
		free(open);
		free(s->syms);
		free(s);
		return -pte_nomem;
	}
	if (b->n)
		qsort(b->ent, b->n, sizeof(*b->ent), symtab_ent_cmp);
	for (i = 0; i < b->n; i++) {
		if (k && s->syms[k - 1].addr == b->ent[i].sym.addr) {
			/* an alias: the winner keeps its own size, unless it
			 * has none in the file and the alias has (a size 0
			 * alias reaches to its section's end: no size) */
			if (open[k - 1] && !b->ent[i].open) {
				s->syms[k - 1].size = b->ent[i].sym.size;
				open[k - 1] = 0;
			}
			continue;
		}
		/* an open symbol ends where the next one starts */
		if (k && open[k - 1] &&
		    b->ent[i].sym.addr - s->syms[k - 1].addr <
		    s->syms[k - 1].size)
			s->syms[k - 1].size = b->ent[i].sym.addr -
					      s->syms[k - 1].addr;
		s->syms[k] = b->ent[i].sym;
		s->syms[k].name = b->pool + (uintptr_t)b->ent[i].sym.name;
		open[k] = b->ent[i].open;
		k++;
	}
	free(open);
	s->n = k;
	if (k > SYMTAB_NO_SYM - 1 || symtab_spans(s) ||
	    (byname && symtab_byname(s, b))) {
		free(s->span);
		free(s->syms);
		free(s);
		return -pte_nomem;
	}
	s->pool = b->pool;
	s->pool_len = b->pool_len;
	s->origin = origin;
	pthread_mutex_init(&s->names_lock, NULL);
#ifdef HAVE_LIBDW
	pthread_mutex_init(&s->dw_lock, NULL);
#endif
	b->pool = NULL;
	free(b->ent);
	b->ent = NULL;
	*out = s;
	return 0;
}

static void symtab_build_free(struct symtab_build *b)
{
	free(b->ent);
	free(b->pool);
}

/* Read the functions of symbol table section @scn (@tab: its name for
 * messages).  A damaged table (its data, its string table or a name past
 * it unreadable) fails as a whole, said as "symbol table unreadable
 * (...)": names read from it could be wrong ones. */
static int symtab_read_scn(struct symtab_build *b, Elf *elf, Elf_Scn *scn,
			   const GElf_Shdr *sh, const char *tab,
			   const char *path, char *err, size_t errlen)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	Elf_Scn *sec;
	GElf_Shdr ssh;
	GElf_Sym sym;
	uint64_t size, off = sh->sh_offset;
	size_t i, n;
	const char *name;
	int type, bind, ret;

	if (!d || !sh->sh_entsize)
		return symtab_fail(err, errlen, path, pte_bad_file,
				   "symbol table unreadable (%s at offset %#"
				   PRIx64 ": %s)", tab, off, !sh->sh_entsize ?
				   "entry size 0" : elf_errmsg(-1));
	sec = elf_getscn(elf, sh->sh_link);
	if (!sec || !gelf_getshdr(sec, &ssh) || ssh.sh_type != SHT_STRTAB ||
	    !elf_getdata(sec, NULL))
		return symtab_fail(err, errlen, path, pte_bad_file,
				   "symbol table unreadable (%s at offset %#"
				   PRIx64 ": its string table, section %u, "
				   "is not one or unreadable)", tab, off,
				   (unsigned)sh->sh_link);
	n = sh->sh_size / sh->sh_entsize;
	for (i = 1; i < n; i++) {
		if (!gelf_getsym(d, (int)i, &sym))
			return symtab_fail(err, errlen, path, pte_bad_file,
					   "symbol table unreadable (%s at "
					   "offset %#" PRIx64 ": symbol %zu)",
					   tab, off, i);
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
		    sym.st_shndx == SHN_UNDEF || !sym.st_name)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name)
			return symtab_fail(err, errlen, path, pte_bad_file,
					   "symbol table unreadable (%s at "
					   "offset %#" PRIx64 ": symbol %zu's "
					   "name is past its string table)",
					   tab, off, i);
		if (!*name)
			continue;
		bind = GELF_ST_BIND(sym.st_info);
		size = sym.st_size;
		/* size 0 (assembly): at most to the end of its section */
		if (!size && sym.st_shndx < SHN_LORESERVE &&
		    (sec = elf_getscn(elf, sym.st_shndx)) &&
		    gelf_getshdr(sec, &ssh) && sym.st_value >= ssh.sh_addr &&
		    sym.st_value - ssh.sh_addr < ssh.sh_size)
			size = ssh.sh_addr + ssh.sh_size - sym.st_value;
		ret = symtab_push(b, sym.st_value, size, name,
				  strlen(name), bind == STB_GLOBAL ?
				  SYMTAB_GLOBAL : bind == STB_WEAK ?
				  SYMTAB_WEAK : SYMTAB_LOCAL, !sym.st_size);
		if (ret)
			return ret;
	}
	return 0;
}

/* The section named @name, or NULL. */
static Elf_Scn *symtab_scn(Elf *elf, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	const char *n;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, sh) &&
		    (n = elf_strptr(elf, shstrndx, sh->sh_name)) &&
		    !strcmp(n, name))
			return scn;
	return NULL;
}

/* A GOT slot's function: what a PLT stub jumps through names it. */
struct symtab_slot {
	uint64_t got;
	const char *name;
};

static int symtab_cmp_slot(const void *x, const void *y)
{
	const struct symtab_slot *a = x, *b = y;

	return a->got < b->got ? -1 : a->got > b->got;
}

/* Add the slots of relocation section @name whose type is @type
 * (x86-64's JUMP_SLOT 7 in .rela.plt, GLOB_DAT 6 in .rela.dyn for
 * .plt.got) to @v, growing it.  Returns 0 or -pte_nomem. */
static int symtab_slots(Elf *elf, const char *name, unsigned type,
			struct symtab_slot **v, size_t *n, size_t *cap)
{
	GElf_Shdr rsh, dsh;
	Elf_Scn *rel, *dyn;
	Elf_Data *rd, *dd;
	GElf_Rela ra;
	GElf_Sym sym;
	const char *nm;
	uint64_t i, cnt;

	rel = symtab_scn(elf, name, &rsh);
	if (!rel || rsh.sh_type != SHT_RELA || !rsh.sh_entsize ||
	    !(dyn = elf_getscn(elf, rsh.sh_link)) || !gelf_getshdr(dyn, &dsh) ||
	    !(rd = elf_getdata(rel, NULL)) || !(dd = elf_getdata(dyn, NULL)))
		return 0;
	cnt = rsh.sh_size / rsh.sh_entsize;
	for (i = 0; i < cnt && gelf_getrela(rd, (int)i, &ra); i++) {
		if (GELF_R_TYPE(ra.r_info) != type || !GELF_R_SYM(ra.r_info) ||
		    !gelf_getsym(dd, (int)GELF_R_SYM(ra.r_info), &sym) ||
		    !(nm = elf_strptr(elf, dsh.sh_link, sym.st_name)) || !*nm)
			continue;
		if (*n == *cap) {
			size_t ncap = *cap ? 2 * *cap : 64;
			struct symtab_slot *t = realloc(*v, ncap * sizeof(*t));

			if (!t)
				return -pte_nomem;
			*v = t;
			*cap = ncap;
		}
		(*v)[(*n)++] = (struct symtab_slot){ ra.r_offset, nm };
	}
	return 0;
}

/* The GOT slot the x86-64 stub of @len bytes at @p (address @addr) jumps
 * through into *@got: its first instruction after an endbr64 is `jmp
 * *disp32(%rip)` (ff 25), with a bnd prefix (f2) in .plt.sec and MPX
 * PLTs.  Returns 0, or -1 for a stub of another shape (the lazy .plt of
 * an IBT file pushes first: its .plt.sec has the jumps). */
static int symtab_stub_got(const uint8_t *p, uint64_t len, uint64_t addr,
			   uint64_t *got)
{
	uint64_t k = 0;
	int32_t disp;

	if (len >= 4 && p[0] == 0xf3 && p[1] == 0x0f && p[2] == 0x1e && p[3] == 0xfa)
		k = 4;
	if (k < len && p[k] == 0xf2)
		k++;
	if (k + 6 > len || p[k] != 0xff || p[k + 1] != 0x25)
		return -1;
	memcpy(&disp, p + k + 2, 4);
	*got = addr + k + 6 + (uint64_t)(int64_t)disp;
	return 0;
}

/* Name the stubs of PLT section @name (entries of @ent bytes, the first
 * @skip bytes the resolver's) by the slots @v they jump through.
 * Returns 0 or -pte_nomem. */
static int symtab_name_stubs(struct symtab_build *b, Elf *elf, const char *name,
			     uint64_t ent, uint64_t skip,
			     const struct symtab_slot *v, size_t n)
{
	struct symtab_slot key, *hit;
	GElf_Shdr sh;
	Elf_Scn *scn = symtab_scn(elf, name, &sh);
	Elf_Data *d;
	char buf[512];
	uint64_t at;
	int ret;

	if (!scn || sh.sh_type != SHT_PROGBITS || !(d = elf_getdata(scn, NULL)) ||
	    !d->d_buf || d->d_size < sh.sh_size)
		return 0;
	if (sh.sh_entsize >= 8 && sh.sh_entsize <= 32)
		ent = sh.sh_entsize;
	for (at = skip; at + ent <= sh.sh_size; at += ent) {
		if (symtab_stub_got((const uint8_t *)d->d_buf + at, ent,
				    sh.sh_addr + at, &key.got))
			continue;
		hit = bsearch(&key, v, n, sizeof(*v), symtab_cmp_slot);
		if (!hit)
			continue;	/* an IRELATIVE slot: objdump's *ABS*+0x.. */
		snprintf(buf, sizeof(buf), "%s@plt", hit->name);
		ret = symtab_push(b, sh.sh_addr + at, ent, buf, strlen(buf),
				  SYMTAB_LOCAL, 0);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The x86-64 PLT stubs, named "function@plt" as objdump and perf name
 * them: each stub of .plt (after the resolver's entry), .plt.sec (IBT)
 * and .plt.got jumps through a GOT slot, and the JUMP_SLOT (or, for
 * .plt.got, GLOB_DAT) relocation of that slot names the function.  The
 * stubs' order is not the relocations' (IRELATIVE relocations go last,
 * their stubs among the others), so each stub is decoded.
 */
static int symtab_read_plt64(struct symtab_build *b, Elf *elf)
{
	struct symtab_slot *v = NULL;
	size_t n = 0, cap = 0;
	GElf_Shdr sh;
	int ret;

	ret = symtab_slots(elf, ".rela.plt", 7, &v, &n, &cap);
	if (!ret)
		ret = symtab_slots(elf, ".rela.dyn", 6, &v, &n, &cap);
	if (ret || !n)
		goto out;
	qsort(v, n, sizeof(*v), symtab_cmp_slot);
	ret = symtab_name_stubs(b, elf, ".plt", 16, 16, v, n);
	if (!ret && symtab_scn(elf, ".plt.sec", &sh))
		ret = symtab_name_stubs(b, elf, ".plt.sec", 16, 0, v, n);
	if (!ret)
		ret = symtab_name_stubs(b, elf, ".plt.got", 8, 0, v, n);
out:
	free(v);
	return ret;
}

/*
 * The i386 PLT stubs: the n-th JUMP_SLOT relocation of .rel.plt is the
 * n-th 16-byte entry of .plt.sec when the file has one (IBT), else of
 * .plt after its first (resolver) entry (i386 stubs jump through %ebx,
 * the GOT's address, in shared objects: not decoded).  Anything else is
 * left unnamed.
 */
static int symtab_read_plt(struct symtab_build *b, Elf *elf)
{
	GElf_Shdr rsh, psh, dsh;
	GElf_Ehdr eh;
	Elf_Scn *rel, *plt, *dyn;
	Elf_Data *rd, *dd;
	GElf_Rel rl;
	GElf_Sym sym;
	uint64_t at, i, n;
	const char *name;
	char buf[512];
	int ret;

	if (!gelf_getehdr(elf, &eh))
		return 0;
	if (eh.e_machine == EM_X86_64)
		return symtab_read_plt64(b, elf);
	if (eh.e_machine != EM_386)
		return 0;
	rel = symtab_scn(elf, ".rel.plt", &rsh);
	plt = symtab_scn(elf, ".plt.sec", &psh);
	at = 0;
	if (!plt) {
		plt = symtab_scn(elf, ".plt", &psh);
		at = 16;
	}
	if (!rel || !plt || !rsh.sh_entsize || psh.sh_type != SHT_PROGBITS)
		return 0;
	dyn = elf_getscn(elf, rsh.sh_link);
	if (!dyn || !gelf_getshdr(dyn, &dsh) || !(rd = elf_getdata(rel, NULL)) ||
	    !(dd = elf_getdata(dyn, NULL)))
		return 0;
	n = rsh.sh_size / rsh.sh_entsize;
	for (i = 0; i < n && at + 16 <= psh.sh_size; i++, at += 16) {
		if (!gelf_getrel(rd, (int)i, &rl))
			return 0;
		/* JUMP_SLOT: 7 on i386 */
		if (GELF_R_TYPE(rl.r_info) != 7 || !GELF_R_SYM(rl.r_info) ||
		    !gelf_getsym(dd, (int)GELF_R_SYM(rl.r_info), &sym) ||
		    !(name = elf_strptr(elf, dsh.sh_link, sym.st_name)) ||
		    !*name)
			continue;
		snprintf(buf, sizeof(buf), "%s@plt", name);
		ret = symtab_push(b, psh.sh_addr + at, 16, buf, strlen(buf),
				  SYMTAB_LOCAL, 0);
		if (ret)
			return ret;
	}
	return 0;
}

/* Whether the section headers are all in the file: libelf reads those
 * that are and drops the rest (no symbol table: no names, silently).
 * Returns 0, or -pte_bad_file with @err set. */
static int symtab_shdrs(Elf *elf, const char *path, char *err, size_t errlen)
{
	GElf_Ehdr eh;
	GElf_Shdr sh;
	Elf_Scn *scn;
	uint64_t n;
	size_t size;

	if (!elf_rawfile(elf, &size) || !gelf_getehdr(elf, &eh) || !eh.e_shoff)
		return 0;
	n = eh.e_shnum;
	/* 0: SHN_XNUM's count is section 0's sh_size */
	if (!n && eh.e_shoff <= size && (scn = elf_getscn(elf, 0)) &&
	    gelf_getshdr(scn, &sh))
		n = sh.sh_size;
	if (eh.e_shoff <= size && n * eh.e_shentsize <= size - eh.e_shoff)
		return 0;
	return symtab_fail(err, errlen, path, pte_bad_file,
			   "symbol table unreadable (section headers at offset "
			   "%#" PRIx64 ": %" PRIu64 " of them run past the end "
			   "of the file, %zu bytes)", (uint64_t)eh.e_shoff, n,
			   size);
}

/* Read .symtab, else .dynsym, of @e into @b, *@origin naming the one
 * read.  A damaged .symtab falls back to .dynsym (the exported names
 * still): it says so in @err and returns 0.  Returns 0 or a negative pte_
 * code (@err set). */
static int symtab_read_elf(struct symtab_build *b, struct elfimg *e,
			   const char **origin, char *err, size_t errlen)
{
	Elf *elf = elfimg_elf(e);
	Elf_Scn *scn = NULL, *dyn = NULL, *tab = NULL;
	GElf_Shdr sh, dsh;
	int ret;

	*origin = "";
	ret = symtab_shdrs(elf, elfimg_path(e), err, errlen);
	if (ret)
		return ret;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB && !tab)
			tab = scn;
		else if (sh.sh_type == SHT_DYNSYM && !dyn)
			dyn = scn;
	}
	if (tab && gelf_getshdr(tab, &sh)) {
		*origin = ".symtab";
		ret = symtab_read_scn(b, elf, tab, &sh, ".symtab",
				      elfimg_path(e), err, errlen);
		if (ret != -pte_bad_file || !dyn)
			return ret;
		/* the names read so far may be the damage's */
		b->n = b->pool_len = 0;
	}
	if (dyn && gelf_getshdr(dyn, &dsh)) {
		*origin = ".dynsym";
		/* after a damaged .symtab, its message stays */
		ret = symtab_read_scn(b, elf, dyn, &dsh, ".dynsym", elfimg_path(e),
				      tab ? NULL : err, tab ? 0 : errlen);
		if (ret == -pte_bad_file && tab)
			return -pte_bad_file;
		return ret;
	}
	return 0;
}

int symtab_from_elf(struct symtab **out, struct elfimg *e, char *err,
		    size_t errlen)
{
	struct symtab_build b = { 0 };
	const char *origin;
	int ret;

	if (err && errlen)
		err[0] = 0;
	if (!out || !e)
		return -pte_invalid;
	ret = symtab_read_elf(&b, e, &origin, err, errlen);
	if (ret)
		goto out_free;
	ret = symtab_read_plt(&b, elfimg_elf(e));
	if (ret)
		goto out_free;
	ret = symtab_finish(&b, origin, 0, out);
	if (ret)
		goto out_free;
	(*out)->elf = e;
	return 0;

out_free:
	symtab_build_free(&b);
	return ret;
}

/* A kallsyms type letter that names code. */
static int symtab_ktext(char c)
{
	return c == 't' || c == 'T' || c == 'w' || c == 'W';
}

int symtab_from_kallsyms(struct symtab **out, const char *path, char *err,
			 size_t errlen)
{
	struct symtab_build b = { 0 };
	char *line = NULL, name[512], mod[256], type;
	unsigned long long addr;
	unsigned long lineno = 0;
	uint64_t nonzero = 0;
	size_t i, nlen, cap = 0;
	ssize_t len;
	FILE *f;
	int ret = 0, n;

	if (err && errlen)
		err[0] = 0;
	if (!out || !path)
		return -pte_invalid;
	/* A regular file only (/proc/kallsyms is one): a FIFO would block
	 * the open, /dev/zero never end. */
	f = safefile_fopen_read(path, 0);
	if (!f)
		return symtab_fail(err, errlen, path, pte_io, "%s",
				   errno == EISDIR ? "is a directory" :
				   safefile_strerror(errno));
	while ((len = getline(&line, &cap, f)) > 0) {
		lineno++;
		if (strlen(line) != (size_t)len) {
			ret = symtab_fail(err, errlen, path, pte_bad_file,
					  "line %lu: a NUL byte: not a text file",
					  lineno);
			goto out_close;
		}
		if (line[0] == '\n')
			continue;
		mod[0] = 0;
		n = sscanf(line, "%llx %c %511s %255s", &addr, &type, name,
			   mod);
		if (n < 3) {
			ret = symtab_fail(err, errlen, path, pte_bad_file,
					  "line %lu: not 'ADDRESS TYPE NAME'",
					  lineno);
			goto out_close;
		}
		if (!symtab_ktext(type))
			continue;
		nonzero += addr != 0;
		/* "name [module]": the name alone, as the module's own
		 * symbol table and other modules' relocations call it (and
		 * one word, as searches and flow's columns take it) */
		nlen = strlen(name);
		ret = symtab_push(&b, addr, 0, name, nlen,
				  type == 'T' ? SYMTAB_GLOBAL :
				  type == 'W' || type == 'w' ? SYMTAB_WEAK :
				  SYMTAB_LOCAL, 0);
		if (ret)
			goto out_close;
	}
	if (ferror(f)) {
		ret = symtab_fail(err, errlen, path, pte_io, "read error");
		goto out_close;
	}
	if (b.n && !nonzero) {
		ret = symtab_fail(err, errlen, path, pte_bad_file,
				  "every address is 0 (kernel.kptr_restrict "
				  "hid them: read /proc/kallsyms as root)");
		goto out_close;
	}
	fclose(f);
	free(line);
	ret = symtab_finish(&b, "kallsyms", 1, out);
	if (ret) {
		symtab_build_free(&b);
		return ret;
	}
	/* no sizes: each reaches to the next (symtab_lookup does that) */
	for (i = 0; i < (*out)->n; i++)
		(*out)->syms[i].size = 0;
	return 0;

out_close:
	fclose(f);
	free(line);
	symtab_build_free(&b);
	return ret;
}

void symtab_free(struct symtab *s)
{
	if (!s)
		return;
#ifdef HAVE_LIBDW
	if (s->dw)
		dwarf_end(s->dw);
	pthread_mutex_destroy(&s->dw_lock);
#endif
	pthread_mutex_destroy(&s->names_lock);
	free(s->names);
	free(s->syms);
	free(s->span);
	free(s->byname);
	free(s->pool);
	free(s);
}

int symtab_addr_of(const struct symtab *s, const char *name, uint64_t *addr)
{
	size_t lo = 0, hi, i;

	if (!s || !name)
		return 0;
	if (!s->byname) {
		for (i = 0; i < s->n; i++)
			if (!strcmp(s->syms[i].name, name)) {
				*addr = s->syms[i].addr;
				return 1;
			}
		return 0;
	}
	/* the first of that name: the best rank */
	hi = s->nbyname;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(s->byname[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == s->nbyname || strcmp(s->byname[lo].name, name))
		return 0;
	*addr = s->byname[lo].addr;
	return 1;
}

static int symtab_str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* @s->names made if it is not yet: the names of @s->syms, sorted, each
 * once (local functions of one name at several addresses are one name).
 * Call with names_lock held.  Returns 0 or -pte_nomem. */
static int symtab_names_make(struct symtab *s)
{
	size_t i, k = 0;

	if (s->names)
		return 0;
	s->names = malloc((s->n ? s->n : 1) * sizeof(*s->names));
	if (!s->names)
		return -pte_nomem;
	for (i = 0; i < s->n; i++)
		s->names[i] = s->syms[i].name;
	if (s->n)
		qsort(s->names, s->n, sizeof(*s->names), symtab_str_cmp);
	for (i = 0; i < s->n; i++)
		if (!k || strcmp(s->names[k - 1], s->names[i]))
			s->names[k++] = s->names[i];
	s->nnames = k;
	return 0;
}

int symtab_names(struct symtab *s, const char *prefix, size_t max,
		 int (*each)(void *arg, const char *name), void *arg)
{
	size_t lo = 0, hi, mid, len, n = 0;
	int ret;

	if (!s || !prefix || !each)
		return -pte_invalid;
	pthread_mutex_lock(&s->names_lock);
	ret = symtab_names_make(s);
	pthread_mutex_unlock(&s->names_lock);
	if (ret)
		return ret;
	/* made once and never changed after: read without the lock */
	len = strlen(prefix);
	hi = s->nnames;
	while (lo < hi) {	/* the first name not below @prefix */
		mid = lo + (hi - lo) / 2;
		if (strcmp(s->names[mid], prefix) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < s->nnames && n < max && !strncmp(s->names[lo], prefix, len); lo++) {
		ret = each(arg, s->names[lo]);
		if (ret < 0)
			return ret;
		n++;
	}
	return (int)(n < (size_t)INT32_MAX ? n : INT32_MAX);
}

const char *symtab_origin(const struct symtab *s)
{
	return s ? s->origin : "";
}

size_t symtab_count(const struct symtab *s)
{
	return s ? s->n : 0;
}

const struct symtab_sym *symtab_get(const struct symtab *s, size_t i)
{
	return s && i < s->n ? &s->syms[i] : NULL;
}

const struct symtab_sym *symtab_lookup_span(const struct symtab *s, uint64_t addr,
					    uint64_t *from, uint64_t *until)
{
	size_t lo = 0, hi, mid;
	uint32_t k;

	if (from)
		*from = 0;
	if (until)
		*until = UINT64_MAX;
	if (!s || !s->nspan)
		return NULL;
	hi = s->nspan;
	/* the last span starting at or below addr */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (s->span[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (from && lo)
		*from = s->span[lo - 1].lo;
	if (until && lo < s->nspan)
		*until = s->span[lo].lo;
	k = lo ? s->span[lo - 1].sym : SYMTAB_NO_SYM;
	return k == SYMTAB_NO_SYM ? NULL : &s->syms[k];
}

const struct symtab_sym *symtab_lookup(const struct symtab *s, uint64_t addr)
{
	return symtab_lookup_span(s, addr, NULL, NULL);
}

size_t symtab_format(const struct symtab *s, uint64_t addr, char *buf,
		     size_t size)
{
	const struct symtab_sym *sym = symtab_lookup(s, addr);
	int n;

	if (!size)
		return 0;
	buf[0] = 0;
	if (!sym)
		return 0;
	n = snprintf(buf, size, "%s+0x%" PRIx64, sym->name, addr - sym->addr);
	if (n < 0)
		return 0;
	return (size_t)n < size ? (size_t)n : size - 1;
}

int symtab_srcline(struct symtab *s, uint64_t addr, const char **file,
		   int *line)
{
#ifdef HAVE_LIBDW
	Dwarf_Die cu;
	Dwarf_Line *l;
	const char *src = NULL;
	int ret = -pte_invalid;

	if (!s || !s->elf || !file || !line)
		return -pte_invalid;
	pthread_mutex_lock(&s->dw_lock);
	if (!s->dw_tried) {
		s->dw_tried = 1;
		s->dw = dwarf_begin_elf(elfimg_elf(s->elf), DWARF_C_READ,
					NULL);
	}
	if (s->dw && dwarf_addrdie(s->dw, addr, &cu) &&
	    (l = dwarf_getsrc_die(&cu, addr)) &&
	    (src = dwarf_linesrc(l, NULL, NULL)) && !dwarf_lineno(l, line)) {
		*file = src;
		ret = 0;
	}
	pthread_mutex_unlock(&s->dw_lock);
	return ret;
#else
	(void)s;
	(void)addr;
	(void)file;
	(void)line;
	return -pte_invalid;
#endif
}
