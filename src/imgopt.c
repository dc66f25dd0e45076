/* imgopt -- image options and the image set: code and symbols per address
 * space, from the options and from a perf.data's mappings. */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "elfimg.h"
#include "flow.h"
#include "imgopt.h"
#include "imgopt_int.h"
#include "kmod.h"
#include "memimg.h"
#include "perfdata.h"
#include "ptdec.h"
#include "sideband.h"
#include "symtab.h"
#include "trace.h"

/* Append a message (printf-style) to the set's list. */
static int imgopt_say(struct imgset *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int imgopt_say(struct imgset *s, const char *fmt, ...)
{
	char **l, *m;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&m, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -pte_nomem;
	l = realloc(s->msgs, (s->nmsgs + 1) * sizeof(*l));
	if (!l) {
		free(m);
		return -pte_nomem;
	}
	l[s->nmsgs++] = m;
	s->msgs = l;
	return 0;
}

/* imgopt_say() unless the same message was given already: a file's, once
 * however many mappings it has. */
static int imgopt_say_once(struct imgset *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int imgopt_say_once(struct imgset *s, const char *fmt, ...)
{
	char *m;
	va_list ap;
	size_t i;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&m, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -pte_nomem;
	for (i = 0; i < s->nmsgs && strcmp(s->msgs[i], m); i++)
		;
	if (i == s->nmsgs)
		n = imgopt_say(s, "%s", m);
	else
		n = 0;
	free(m);
	return n;
}

/* Whether a message was given for @name; notes it if not (the next
 * message, imgopt_say()'s, is then the one about it). */
static int imgopt_told(struct imgset *s, const char *name)
{
	size_t *m;
	char **l;
	size_t i;

	for (i = 0; i < s->ntold; i++)
		if (!strcmp(s->told[i], name))
			return 1;
	l = realloc(s->told, (s->ntold + 1) * sizeof(*l));
	if (!l)
		return 0;
	s->told = l;
	m = realloc(s->told_msg, (s->ntold + 1) * sizeof(*m));
	if (!m)
		return 0;
	s->told_msg = m;
	l[s->ntold] = strdup(name);
	m[s->ntold] = s->nmsgs;
	if (l[s->ntold])
		s->ntold++;
	return 0;
}

/* Note that mapping @m of @asid has no code: the message about its file
 * says why.  Returns 0 or -pte_nomem. */
static int imgopt_hole(struct imgset *s, uint64_t asid, const struct sb_map *m)
{
	struct imgopt_hole *h;
	size_t i;

	for (i = 0; i < s->ntold && strcmp(s->told[i], m->filename); i++)
		;
	if (i == s->ntold || s->told_msg[i] >= s->nmsgs)
		return 0;
	h = realloc(s->holes, (s->nholes + 1) * sizeof(*h));
	if (!h)
		return -pte_nomem;
	s->holes = h;
	h[s->nholes].asid = asid;
	h[s->nholes].start = m->start;
	h[s->nholes].end = m->len > UINT64_MAX - m->start ? UINT64_MAX : m->start + m->len;
	h[s->nholes++].msg = s->told_msg[i];
	return 0;
}

const char *imgopt_nocode(const struct imgset *s, uint64_t asid, uint64_t ip)
{
	const struct imgopt_hole *h, *any = NULL;
	size_t i;

	if (!s)
		return NULL;
	/* the latest mapping holding @ip wins, as in the sideband */
	for (i = s->nholes; i-- > 0;) {
		h = &s->holes[i];
		if (ip < h->start || ip >= h->end)
			continue;
		if (h->asid == asid)
			return s->msgs[h->msg];
		if (h->asid == MI_ASID_ANY && !any)
			any = h;
	}
	return any ? s->msgs[any->msg] : NULL;
}

static int imgopt_symmap_cmp(const void *a, const void *b)
{
	const struct imgopt_symmap *x = a, *y = b;

	if (x->asid != y->asid)
		return x->asid < y->asid ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int imgopt_add_symmap(struct imgset *s, uint64_t asid, uint64_t start,
			     uint64_t end, uint64_t bias, struct symtab *st)
{
	struct imgopt_symmap *m;

	if (!st || !symtab_count(st))
		return 0;
	if (s->nmaps == s->maps_cap) {
		size_t ncap = s->maps_cap ? 2 * s->maps_cap : 64;

		m = realloc(s->maps, ncap * sizeof(*m));
		if (!m)
			return -pte_nomem;
		s->maps = m;
		s->maps_cap = ncap;
	}
	m = &s->maps[s->nmaps++];
	m->asid = asid;
	m->start = start;
	m->end = end;
	m->bias = bias;
	m->st = st;
	return 0;
}

/* The object at @path, opened (with its symbols) on first use.  On failure
 * @err says why. */
static int imgopt_obj(struct imgset *s, const char *path,
		      struct imgopt_obj **out, char *err, size_t errlen)
{
	struct imgopt_obj *o;
	struct elfimg *e;
	struct symtab *st = NULL;
	char serr[400];
	int ret;
	size_t i;

	for (i = 0; i < s->nobjs; i++)
		if (!strcmp(s->objs[i].path, path)) {
			*out = &s->objs[i];
			return 0;
		}
	ret = elfimg_open(&e, path, err, errlen);
	if (ret)
		return ret;
	/* a damaged symbol table costs the names (said once: the object is
	 * opened once), not the code */
	ret = symtab_from_elf(&st, e, serr, sizeof(serr));
	if (ret == -pte_nomem) {
		elfimg_close(e);
		return ret;
	}
	if (ret)
		st = NULL;
	if (serr[0] && imgopt_say(s, "%s: %s", serr, st ? "only .dynsym's names "
				  "are shown" : "its code is shown without names")) {
		symtab_free(st);
		elfimg_close(e);
		return -pte_nomem;
	}
	o = realloc(s->objs, (s->nobjs + 1) * sizeof(*o));
	if (!o) {
		symtab_free(st);
		elfimg_close(e);
		return -pte_nomem;
	}
	s->objs = o;
	o = &o[s->nobjs];
	o->path = strdup(path);
	if (!o->path) {
		symtab_free(st);
		elfimg_close(e);
		return -pte_nomem;
	}
	o->e = e;
	o->st = st;
	s->nobjs++;
	*out = o;
	return 0;
}

/* Parse "FILE[:BASE]"; the file part goes to @file. */
static int imgopt_split(const char *spec, char *file, size_t size,
			uint64_t *base, int *have_base)
{
	const char *colon = strrchr(spec, ':');
	char *end;

	*have_base = 0;
	if (colon && colon[1]) {
		errno = 0;
		*base = strtoull(colon + 1, &end, 0);
		if (!*end && !errno) {
			*have_base = 1;
			if ((size_t)(colon - spec) >= size)
				return -1;
			memcpy(file, spec, (size_t)(colon - spec));
			file[colon - spec] = 0;
			return 0;
		}
	}
	if (strlen(spec) >= size)
		return -1;
	strcpy(file, spec);
	return 0;
}

/* Whether imgopt_relocate() maps segment @seg of @o. */
static int imgopt_seg_mapped(const struct imgopt_obj *o,
			     const struct elfimg_seg *seg, int exec_only)
{
	/* a vmlinux's per-CPU segment is linked at 0 (each CPU's copy
	 * lives elsewhere): mapped, it would be user code in every
	 * address space */
	return seg->filesz && (seg->vaddr || elfimg_type(o->e) != ET_EXEC) &&
	       (!exec_only || (seg->flags & PF_X));
}

/* Say what --elf @file's segments at @bias will hide, once: the first
 * --raw dump or earlier --elf one overlaps.  The --elf is read there: it
 * is added after them, and the later segment wins (memimg.h); --raw
 * dumps are all loaded before any --elf.  Returns 0 or -pte_nomem. */
static int imgopt_elf_overlap(struct imgset *s, const struct imgopt_obj *o,
			      const char *file, uint64_t bias)
{
	const struct elfimg_seg *seg;
	uint64_t lo, hi, start, end;
	const char *name;
	size_t i;
	int dump;

	for (i = 0; (seg = elfimg_seg(o->e, i)); i++) {
		lo = seg->vaddr + bias;
		hi = lo + seg->filesz;
		if (!imgopt_seg_mapped(o, seg, 0) || hi < lo)
			continue;
		name = mi_overlap(s->mi, MI_ASID_ANY, lo, hi, &start, &end, &dump);
		if (name)
			return imgopt_say(s, "--elf %s: segment %zu at 0x%" PRIx64
					  "-0x%" PRIx64 " overlaps %s %s at 0x%"
					  PRIx64 "-0x%" PRIx64 ": %s's bytes are "
					  "read there", file, i, lo, hi - 1,
					  dump ? "--raw" : "--elf", name, start,
					  end - 1, file);
	}
	return 0;
}

/* Object @o's PT_LOAD segments at their addresses + @bias in every
 * address space (only the executable ones if @exec_only), named @name, and
 * its symbols over its code: what --elf FILE:BASE and the kernel from the
 * build-ID cache map.  A vmlinux's per-CPU segment is left out.
 * Returns 0, or a negative pte_ code (-pte_invalid: segment *@bad does not
 * fit in the address space there). */
static int imgopt_relocate(struct imgset *s, const struct imgopt_obj *o,
			   const char *name, uint64_t bias, int exec_only,
			   size_t *bad)
{
	const struct elfimg_seg *seg;
	uint64_t lo = UINT64_MAX, hi = 0;
	size_t i;
	int ret;

	for (i = 0; (seg = elfimg_seg(o->e, i)); i++) {
		if (!imgopt_seg_mapped(o, seg, exec_only))
			continue;
		ret = mi_add_file(s->mi, MI_ASID_ANY, seg->vaddr + bias, seg->data,
				  seg->filesz, name, seg->offset);
		if (ret) {
			*bad = i;
			return ret;
		}
		if (seg->flags & PF_X) {
			if (seg->vaddr < lo)
				lo = seg->vaddr;
			if (seg->vaddr + seg->memsz > hi)
				hi = seg->vaddr + seg->memsz;
		}
	}
	if (lo < hi)
		return imgopt_add_symmap(s, MI_ASID_ANY, lo + bias, hi + bias,
					 bias, o->st);
	return 0;
}

/* --elf FILE[:BASE]: every PT_LOAD segment in every address space. */
static int imgopt_elf(struct imgset *s, const char *spec, char *err,
		      size_t errlen)
{
	char file[4096];
	struct imgopt_obj *o;
	struct imgopt_given *g;
	uint64_t base = 0, bias = 0;
	int have_base, ret;
	size_t bad = 0;

	if (imgopt_split(spec, file, sizeof(file), &base, &have_base)) {
		snprintf(err, errlen, "--elf %s: file name too long", spec);
		return -pte_invalid;
	}
	ret = imgopt_obj(s, file, &o, err, errlen);
	if (ret)
		return ret;
	g = realloc(s->elfs, (s->nelfs + 1) * sizeof(*g));
	if (!g)
		return -pte_nomem;
	s->elfs = g;
	if (have_base)
		bias = base - elfimg_link_base(o->e);
	g[s->nelfs].obj = (size_t)(o - s->objs);
	g[s->nelfs].bias = bias;
	g[s->nelfs++].based = (uint8_t)have_base;
	ret = imgopt_elf_overlap(s, o, file, bias);
	if (!ret)
		ret = imgopt_relocate(s, o, file, bias, 0, &bad);
	if (ret == -pte_invalid)
		snprintf(err, errlen, "%s: segment %zu at %#" PRIx64
			 " does not fit in the address space", file, bad,
			 elfimg_seg(o->e, bad)->vaddr + bias);
	return ret;
}

/* Whether @path names no file (anonymous memory, [vdso], JIT maps). */
static int imgopt_no_file(const char *path)
{
	return path[0] == '[' || !strncmp(path, "//anon", 6) ||
	       !strncmp(path, "/memfd:", 7) || !strncmp(path, "anon_inode", 10) ||
	       !strncmp(path, "/dev/zero", 9) || !path[0];
}

/* The build-ID cache entry @leaf ("elf", "kallsyms", "vdso") of build ID
 * @hex, into @buf; 0 if it is a regular file. */
static int imgopt_cache_path(const struct imgset *s, const char *hex,
			     const char *leaf, char *buf, size_t size)
{
	struct stat sb;

	if (!s->cache || strlen(hex) < 3)
		return -1;
	snprintf(buf, size, "%s/.build-id/%.2s/%s/%s", s->cache, hex, hex + 2,
		 leaf);
	if (!stat(buf, &sb) && S_ISREG(sb.st_mode))
		return 0;
	if (strcmp(leaf, "elf"))
		return -1;
	/* the older layout: the link is the file */
	snprintf(buf, size, "%s/.build-id/%.2s/%s", s->cache, hex, hex + 2);
	return !stat(buf, &sb) && S_ISREG(sb.st_mode) ? 0 : -1;
}

/* Whether the file at @path, about to be read for mapping @m that has no
 * build ID, is the one recorded: its inode is compared with the MMAP2
 * record's, only when the recording was made on this machine (same host
 * name and kernel release in its header: elsewhere inode numbers mean
 * nothing).  Not the device: btrfs's stat() gives a subvolume's device
 * where the kernel's record gives the file system's.
 * Returns 1 if it changed (@why says so), 0 if it is the same file, and
 * -1 if nothing could tell (the caller says it is used unchecked). */
static int imgopt_changed(const struct imgset *s, const struct sb_map *m,
			  const char *path, const struct stat *st, char *why,
			  size_t wlen)
{
	if (!s->same_host || !m->ino)
		return -1;
	if ((uint64_t)st->st_ino == m->ino)
		return 0;
	snprintf(why, wlen, "%s: changed since the recording (inode %" PRIu64
		 ", the recording's %" PRIu64 "); no build ID was recorded "
		 "to find the old one by", path, (uint64_t)st->st_ino, m->ino);
	return 1;
}

/* Find the file of mapping @m: the object, or NULL with @why said. */
static struct imgopt_obj *imgopt_find(struct imgset *s, const struct sb_map *m,
				      const char *hex, char *why, size_t wlen)
{
	char cand[3][4096], err[512];
	struct imgopt_obj *o;
	struct stat sb;
	size_t n = 0, i, recorded = SIZE_MAX;
	int ret, changed = 0;

	why[0] = 0;
	if (s->sysroot)
		snprintf(cand[n++], sizeof(cand[0]), "%s/%s", s->sysroot,
			 m->filename);
	if (m->build_id_len &&
	    !imgopt_cache_path(s, hex, !strcmp(m->filename, "[vdso]") ?
			       "vdso" : "elf", cand[n], sizeof(cand[0])))
		n++;
	if ((!s->sysroot || m->build_id_len) && !imgopt_no_file(m->filename)) {
		recorded = n;
		snprintf(cand[n++], sizeof(cand[0]), "%s", m->filename);
	}
	for (i = 0; i < n; i++) {
		if (stat(cand[i], &sb) || !S_ISREG(sb.st_mode))
			continue;
		/* the recorded path without a build ID: the file there now
		 * may not be the one that ran */
		if (i == recorded && !m->build_id_len) {
			changed = imgopt_changed(s, m, cand[i], &sb, err,
						 sizeof(err));
			if (changed > 0) {
				if (!why[0])
					snprintf(why, wlen, "%s", err);
				continue;
			}
		}
		ret = imgopt_obj(s, cand[i], &o, err, sizeof(err));
		if (ret == -pte_nomem)
			return NULL;
		if (ret) {
			if (!why[0])
				snprintf(why, wlen, "%s", err);
			continue;
		}
		if (m->build_id_len &&
		    elfimg_check_build_id(o->e, m->build_id, m->build_id_len,
					  err, sizeof(err))) {
			if (!why[0])
				snprintf(why, wlen, "%s", err);
			continue;
		}
		if (i == recorded && changed < 0 &&
		    imgopt_say_once(s, "no build ID recorded for %s: used "
				    "unchecked", m->filename))
			return NULL;
		return o;
	}
	if (!why[0] && !strcmp(m->filename, "[vdso]"))
		/* perf record copies the vDSO into its build-ID cache */
		snprintf(why, wlen, "the vDSO has no file; %s", m->build_id_len ?
			 "the build-ID cache (--buildid-dir) has no copy of it" :
			 "the recording gives no build ID to find a copy by");
	if (!why[0])
		snprintf(why, wlen, "%s", imgopt_no_file(m->filename) ?
			 "no file behind it" : n ? "not found" :
			 "not found under --sysroot and no build ID");
	return NULL;
}

/* Add mapping @m's code (its executable segments' bytes inside it) and
 * symbols to address space @asid. */
/* Add @len bytes of mapping @m's code at @addr in @asid, from offset
 * @file_off of its file (code without symbols is named by it).  A mapping
 * whose range runs past the top of the address space (a damaged record)
 * is left out with a message, not the whole load failed.
 * Returns 0 (*@added says whether it was added) or a negative pte_ code. */
static int imgopt_add_code(struct imgset *s, uint64_t asid, const struct sb_map *m,
			   uint64_t addr, const uint8_t *bytes, uint64_t len,
			   uint64_t file_off, int *added)
{
	*added = 0;
	if (len - 1 > UINT64_MAX - addr)
		return imgopt_say(s, "offset %#" PRIx64 ": the mapping of %s at %#"
				  PRIx64 " (%#" PRIx64 " bytes) runs past the "
				  "top of the address space: its code is left "
				  "out", m->file_off, m->filename, m->start,
				  m->len);
	*added = 1;
	return mi_add_file(s->mi, asid, addr, bytes, len, m->filename, file_off);
}

static int imgopt_map(struct imgset *s, uint64_t asid, const struct sb_map *m,
		      const struct imgopt_obj *o)
{
	const struct elfimg_seg *seg;
	uint64_t lo, hi, addr, bias;
	size_t i;
	int ret, added;

	for (i = 0; (seg = elfimg_seg(o->e, i)); i++) {
		if (!(seg->flags & PF_X))
			continue;
		lo = seg->offset > m->pgoff ? seg->offset : m->pgoff;
		hi = seg->offset + seg->filesz;
		if (m->len < UINT64_MAX - m->pgoff && m->pgoff + m->len < hi)
			hi = m->pgoff + m->len;
		if (lo >= hi)
			continue;
		addr = m->start + (lo - m->pgoff);
		ret = imgopt_add_code(s, asid, m, addr, seg->data + (lo - seg->offset),
				      hi - lo, lo, &added);
		if (ret || !added)
			return ret;
		/* runtime = vaddr + bias for this segment */
		bias = addr - (seg->vaddr + (lo - seg->offset));
		ret = imgopt_add_symmap(s, asid, addr, addr + (hi - lo), bias,
					o->st);
		if (ret)
			return ret;
	}
	return 0;
}

/* Whether kernel mapping @name is a module's: a .ko file, or perf's
 * "[name]" for one (not "[kernel.kallsyms]..."). */
static int imgopt_is_module(const char *name)
{
	const char *ko = strstr(name, ".ko");

	if (name[0] == '[')
		return strncmp(name, "[kernel.", 8) && strncmp(name, "[guest.", 7) &&
		       strcmp(name, "[vdso]") && strcmp(name, "[vsyscall]");
	return ko && (!ko[3] || ko[3] == '.');
}

/* nftw()'s search for a module file by name ('-' and '_' alike): NAME.ko,
 * else the first compressed one (NAME.ko.zst, .ko.xz, .ko.gz), to say so. */
static const char *imgopt_ko_want;
static char imgopt_ko_found[4096], imgopt_ko_zipped[4096];

static int imgopt_ko_visit(const char *path, const struct stat *st, int type,
			   struct FTW *ftw)
{
	const char *b = path + ftw->base, *w = imgopt_ko_want;

	(void)st;
	if (type != FTW_F)
		return 0;
	for (; *b && *w; b++, w++)
		if (*b != *w && !((*b == '-' || *b == '_') && (*w == '-' || *w == '_')))
			return 0;
	if (*w)
		return 0;
	if (!strncmp(b, ".ko.", 4) && b[4] && !imgopt_ko_zipped[0])
		snprintf(imgopt_ko_zipped, sizeof(imgopt_ko_zipped), "%s", path);
	if (strcmp(b, ".ko"))
		return 0;
	snprintf(imgopt_ko_found, sizeof(imgopt_ko_found), "%s", path);
	return 1;
}

/* The module file for "[name]": NAME.ko under [SYSROOT]/lib/modules/
 * RELEASE (uname -r), as perf finds them.  Returns 0 and fills @buf; else
 * -1, and if only a compressed one is there (distributions compress
 * them), @why says it is not read and what to do. */
static int imgopt_ko_search(const struct imgset *s, const char *bracketed,
			    char *buf, size_t size, char *why, size_t wlen)
{
	char dir[4096], name[256];
	struct utsname u;
	size_t n = strlen(bracketed);

	if (n < 3 || n - 2 >= sizeof(name) || uname(&u))
		return -1;
	memcpy(name, bracketed + 1, n - 2);
	name[n - 2] = 0;
	snprintf(dir, sizeof(dir), "%s/lib/modules/%s", s->sysroot ? s->sysroot : "",
		 u.release);
	imgopt_ko_want = name;
	imgopt_ko_found[0] = imgopt_ko_zipped[0] = 0;
	if (nftw(dir, imgopt_ko_visit, 16, FTW_PHYS) == 1) {
		snprintf(buf, size, "%s", imgopt_ko_found);
		return 0;
	}
	if (imgopt_ko_zipped[0])
		snprintf(why, wlen, "compressed modules are not read: %s; decompress "
			 "it to %.*s%s", imgopt_ko_zipped,
			 (int)(strrchr(imgopt_ko_zipped, '.') - imgopt_ko_zipped),
			 imgopt_ko_zipped, s->sysroot ? "" :
			 ", or to that path under a --sysroot DIR");
	return -1;
}

/* A kernel module's mapping: its .ko file (kmod.h) from --sysroot, the
 * build-ID cache, its recorded path or /lib/modules, its kernel
 * references resolved with kallsyms.  Returns 0 (the code mapped, or a
 * message said why not) or -pte_nomem. */
static int imgopt_module(struct imgset *s, const struct sb_map *m, const char *hex)
{
	char cand[3][4096], err[600] = "", e2[600];
	const char *comp = strstr(m->filename, ".ko.");
	struct kmod *k = NULL, **l;
	const uint8_t *bytes;
	uint64_t addr;
	size_t n = 0, i, len;
	struct stat st;
	int ret, added;

	if (comp) {
		snprintf(err, sizeof(err), "compressed modules (%s) are not read", comp + 1);
		goto out_say;
	}
	if (s->kallsyms && !s->knames && kmod_names_new(&s->knames, s->kallsyms))
		return -pte_nomem;
	if (m->filename[0] == '[') {
		if (!imgopt_ko_search(s, m->filename, cand[n], sizeof(cand[0]),
				      err, sizeof(err)))
			n++;
	} else if (s->sysroot) {
		snprintf(cand[n++], sizeof(cand[0]), "%s/%s", s->sysroot, m->filename);
	}
	if (m->build_id_len &&
	    !imgopt_cache_path(s, hex, "elf", cand[n], sizeof(cand[0])))
		n++;
	if (m->filename[0] == '/' && (!s->sysroot || m->build_id_len))
		snprintf(cand[n++], sizeof(cand[0]), "%s", m->filename);
	for (i = 0; i < n && !k; i++) {
		if (stat(cand[i], &st) || !S_ISREG(st.st_mode))
			continue;
		ret = kmod_load(&k, cand[i], m->start, s->knames, m->build_id,
				m->build_id_len, e2, sizeof(e2));
		if (ret == -pte_nomem)
			return ret;
		if (ret && !err[0])
			snprintf(err, sizeof(err), "%s", e2);
	}
	if (!k) {
		if (!err[0])
			snprintf(err, sizeof(err), "%s", n ? "not found" :
				 "not found under /lib/modules");
		goto out_say;
	}
	l = realloc(s->kmods, (s->nkmods + 1) * sizeof(*l));
	if (!l) {
		kmod_free(k);
		return -pte_nomem;
	}
	s->kmods = l;
	l[s->nkmods++] = k;
	len = kmod_text(k, &addr, &bytes);
	if (len > m->len)
		len = m->len;
	/* a module's relocated .text: named by the offset in it, as
	 * no file offset fits */
	return len ? imgopt_add_code(s, MI_ASID_ANY, m, addr, bytes, len, 0, &added) : 0;
out_say:
	if (imgopt_told(s, m->filename))
		return 0;
	return imgopt_say(s, "no code for the kernel module %s%s%s%s: its "
			  "instructions are unknown (%s)", m->filename,
			  hex[0] ? " (build ID " : "", hex, hex[0] ? ")" : "", err);
}

/* Where a vmlinux's _text is linked, for an ELF whose table lacks it (an
 * ELF table holds functions only): the page of its lowest executable
 * segment, which _text starts.  Not elfimg_link_base(): an ELF linked
 * with only -Ttext has its notes in a segment of their own below. */
static uint64_t imgopt_text_base(const struct elfimg *e)
{
	const struct elfimg_seg *seg;
	uint64_t lo = UINT64_MAX;
	size_t i;

	for (i = 0; (seg = elfimg_seg(e, i)); i++)
		if ((seg->flags & PF_X) && seg->filesz && seg->vaddr < lo)
			lo = seg->vaddr;
	return lo == UINT64_MAX ? elfimg_link_base(e) : lo & ~(uint64_t)0xfff;
}

/* Kernel mapping @m's code from @o, its build-ID cache entry or an --elf
 * file given without BASE (imgopt_kernel_given()).  perf's map
 * of the kernel itself ("[kernel.kallsyms]_text") has for its page offset
 * the runtime address of the symbol its name ends in (the relocation
 * reference: _text, KASLR's offset included), not a file offset: the
 * vmlinux is relocated by it, as --elf FILE:BASE does -- by the symbol's
 * address in the ELF if its table has it, else imgopt_text_base().  When
 * no code lands at the mapping's start it is said, naming the file.
 * Returns 0 or -pte_nomem. */
static int imgopt_kernel_cached(struct imgset *s, const struct sb_map *m,
				const char *hex, const struct imgopt_obj *o)
{
	const char *ref = strchr(m->filename, ']');
	size_t bad = 0;
	uint64_t link;
	char why[200] = "";
	int ret;

	/* perf's reference is _text, else _stext (its ref_reloc_sym); other
	 * maps named so (x86's PTI entry trampolines) map kernel code
	 * elsewhere, and are left to say that nothing is at their start */
	if (imgopt_is_module(m->filename) || m->pgoff < 1ull << 63 || !ref ||
	    (ref[1] && strcmp(ref + 1, "_text") && strcmp(ref + 1, "_stext"))) {
		ret = imgopt_map(s, MI_ASID_ANY, m, o);
	} else {
		/* x86's _stext is _text */
		if (!ref[1] || !symtab_addr_of(o->st, ref + 1, &link))
			link = imgopt_text_base(o->e);
		ret = imgopt_relocate(s, o, m->filename, m->pgoff - link, 1, &bad);
		if (ret == -pte_invalid)
			snprintf(why, sizeof(why), "relocated to %s at %#" PRIx64
				 ", segment %zu does not fit in the address space",
				 ref[1] ? ref + 1 : "_text", m->pgoff,
				 bad);
	}
	if (ret == -pte_nomem ||
	    (!ret && mi_name_at(s->mi, SB_ASID_NONE, m->start, NULL, NULL)))
		return ret;
	if (!why[0])
		snprintf(why, sizeof(why), "no executable segment of it at the "
			 "mapping's start %#" PRIx64 " (page offset %#" PRIx64 ")",
			 m->start, m->pgoff);
	if (imgopt_told(s, m->filename))
		return 0;
	return imgopt_say(s, "no code for the kernel %s%s%s%s: its "
			  "instructions are unknown (%s: %s)", m->filename,
			  hex[0] ? " (build ID " : "", hex, hex[0] ? ")" : "",
			  o->path, why);
}

/* Whether @o has a symbol perf relocates a kernel by (_text, _stext). */
static int imgopt_has_text(const struct imgopt_obj *o)
{
	uint64_t a;

	return symtab_addr_of(o->st, "_text", &a) ||
	       symtab_addr_of(o->st, "_stext", &a);
}

/* The --elf file given without BASE that is kernel map @m's vmlinux, to be
 * relocated as the build-ID cache's is (it was loaded at its link address,
 * which KASLR moves the kernel away from): its build ID is the map's, or,
 * the map having none, it is an executable with a _text or _stext symbol.
 * Returns it, or NULL if none is. */
static const struct imgopt_obj *imgopt_kernel_given(const struct imgset *s,
						    const struct sb_map *m)
{
	const struct imgopt_obj *o;
	size_t i;

	if (imgopt_is_module(m->filename))
		return NULL;
	for (i = 0; i < s->nelfs; i++) {
		o = &s->objs[s->elfs[i].obj];
		if (s->elfs[i].based)
			continue;
		if (m->build_id_len ?
		    !elfimg_check_build_id(o->e, m->build_id, m->build_id_len,
					   NULL, 0) :
		    elfimg_type(o->e) == ET_EXEC && imgopt_has_text(o))
			return o;
	}
	return NULL;
}

/* Why no --elf file gave kernel map @m code, into @why (@size bytes): what
 * the first --elf is (its BASE put nothing there, another build ID, no
 * _text to relocate it by), and where perf says the kernel ran. */
static void imgopt_kernel_why(const struct imgset *s, const struct sb_map *m,
			      char *why, size_t size)
{
	const struct imgopt_given *g = &s->elfs[0];
	const struct imgopt_obj *o = &s->objs[g->obj];
	const char *ref = strchr(m->filename, ']');
	char hex[2 * SB_BUILD_ID_MAX + 1], ran[120] = "";
	const uint8_t *id;
	size_t n;

	if (ref && m->pgoff >= 1ull << 63)
		snprintf(ran, sizeof(ran), "; perf's map says %s ran at %#"
			 PRIx64, ref[1] ? ref + 1 : "_text", m->pgoff);
	if (g->based) {
		snprintf(why, size, "--elf %s:BASE put nothing at the "
			 "mapping's start %#" PRIx64 "%s", o->path, m->start,
			 ran);
		return;
	}
	if (m->build_id_len && elfimg_check_build_id(o->e, m->build_id,
						     m->build_id_len, NULL, 0)) {
		n = elfimg_build_id(o->e, &id);
		elfimg_hex(id, n, hex, sizeof(hex));
		if (n)
			snprintf(why, size, "--elf %s is another kernel: its "
				 "build ID is %s", o->path, hex);
		else
			snprintf(why, size, "--elf %s has no build ID to match"
				 "%s: if it is this kernel, give --elf %s:%#"
				 PRIx64, o->path, ran, o->path, ran[0] ?
				 m->pgoff : m->start);
		return;
	}
	snprintf(why, size, "--elf %s was loaded at its link address %#"
		 PRIx64 ", nothing at the mapping's start %#" PRIx64 "%s: "
		 "give --elf %s:%#" PRIx64, o->path, elfimg_link_base(o->e),
		 m->start, ran, o->path, ran[0] ? m->pgoff : m->start);
}

/* A kernel mapping: code only from --elf (already in every address
 * space), the build-ID cache or a module's file; names from kallsyms. */
static int imgopt_kernel(struct imgset *s, const struct sb_map *m,
			 const char *hex)
{
	char path[4096], err[512], why[600];
	const struct imgopt_obj *given;
	struct imgopt_obj *o;
	struct symtab *st;

	if (mi_name_at(s->mi, SB_ASID_NONE, m->start, NULL, NULL))
		return 0;
	/* the user's file before the cache's */
	given = imgopt_kernel_given(s, m);
	if (given)
		return imgopt_kernel_cached(s, m, hex, given);
	if (!s->kallsyms && m->build_id_len &&
	    !imgopt_cache_path(s, hex, "kallsyms", path, sizeof(path)) &&
	    !symtab_from_kallsyms(&st, path, NULL, 0))
		s->kallsyms = st;
	if (m->build_id_len &&
	    !imgopt_cache_path(s, hex, "elf", path, sizeof(path)) &&
	    !imgopt_obj(s, path, &o, err, sizeof(err)) &&
	    !elfimg_check_build_id(o->e, m->build_id, m->build_id_len, NULL,
				   0))
		return imgopt_kernel_cached(s, m, hex, o);
	if (imgopt_is_module(m->filename))
		return imgopt_module(s, m, hex);
	if (imgopt_told(s, m->filename))
		return 0;
	if (s->nelfs)
		imgopt_kernel_why(s, m, why, sizeof(why));
	else
		snprintf(why, sizeof(why), "give --elf vmlinux%s", s->kallsyms ?
			 "" : ", and --kallsyms FILE for names");
	return imgopt_say(s, "no code for the kernel %s%s%s%s: its "
			  "instructions are unknown (%s)", m->filename,
			  hex[0] ? " (build ID " : "", hex, hex[0] ? ")" : "",
			  why);
}

/* The last --elf file with a segment at @addr (the one read there), or
 * NULL. */
static const struct imgopt_obj *imgopt_elf_at(const struct imgset *s,
					      uint64_t addr)
{
	const struct imgopt_obj *o;
	const struct elfimg_seg *seg;
	uint64_t lo;
	size_t i, j;

	for (i = s->nelfs; i-- > 0;) {
		o = &s->objs[s->elfs[i].obj];
		for (j = 0; (seg = elfimg_seg(o->e, j)); j++) {
			lo = seg->vaddr + s->elfs[i].bias;
			if (imgopt_seg_mapped(o, seg, 0) && addr >= lo &&
			    addr - lo < seg->filesz)
				return o;
		}
	}
	return NULL;
}

/* Mapping @m's file was not found (@why): say so once, and if an --elf
 * file covers the mapping, that its code is read there instead (not
 * that the instructions are unknown), and whether its build ID is not
 * the recorded one.  Returns 0 or -pte_nomem. */
static int imgopt_not_found(struct imgset *s, const struct sb_map *m,
			    const char *hex, const char *why)
{
	const struct imgopt_obj *eo = imgopt_elf_at(s, m->start);
	char err[512];
	int ret;

	if (eo && m->build_id_len &&
	    elfimg_check_build_id(eo->e, m->build_id, m->build_id_len, err,
				  sizeof(err))) {
		ret = imgopt_say_once(s, "--elf %s (recorded for %s): its code "
				      "is read there, and may not be what ran",
				      err, m->filename);
		if (ret)
			return ret;
	}
	if (imgopt_told(s, m->filename))
		return 0;
	if (eo)
		return imgopt_say(s, "no file read for %s%s%s%s (%s): the code "
				  "at %#" PRIx64 " is --elf %s's", m->filename,
				  hex[0] ? " (build ID " : "", hex,
				  hex[0] ? ")" : "", why, m->start, eo->path);
	return imgopt_say(s, "no code for %s%s%s%s: its instructions are "
			  "unknown (%s)", m->filename, hex[0] ? " (build ID " : "",
			  hex, hex[0] ? ")" : "", why);
}

/* Every mapping of every address space of the sideband. */
static int imgopt_sideband(struct imgset *s)
{
	char hex[2 * SB_BUILD_ID_MAX + 1], why[600];
	size_t *found;		/* object index + 1 per map; 0 none (the
				 * objects move as more are opened) */
	uint8_t *tried;
	size_t i, j, n = sb_nmaps(s->sb);
	int ret = 0, pass;

	found = calloc(n ? n : 1, sizeof(*found));
	tried = calloc(n ? n : 1, 1);
	if (!found || !tried) {
		ret = -pte_nomem;
		goto out_free;
	}
	/* the processes' spaces first: their messages matter more */
	for (pass = 0; pass < 2; pass++)
	for (i = 0; i < sb_nspaces(s->sb); i++) {
		const struct sb_space *sp = sb_space(s->sb, i);

		if ((sp->asid == SB_ASID_KERNEL) != pass)
			continue;
		for (j = 0; j < sp->nmaps; j++) {
			uint32_t k = sp->maps[j];
			const struct sb_map *m = sb_map(s->sb, k);

			elfimg_hex(m->build_id, m->build_id_len, hex,
				   sizeof(hex));
			if (m->kernel) {
				if (!tried[k]) {
					ret = imgopt_kernel(s, m, hex);
					if (!ret && !mi_name_at(s->mi, SB_ASID_NONE,
								m->start, NULL, NULL))
						ret = imgopt_hole(s, MI_ASID_ANY, m);
				}
				tried[k] = 1;
				if (ret)
					goto out_free;
				continue;
			}
			if (!tried[k]) {
				struct imgopt_obj *o = imgopt_find(s, m, hex,
								   why, sizeof(why));

				tried[k] = 1;
				found[k] = o ? (size_t)(o - s->objs) + 1 : 0;
				if (!found[k]) {
					ret = imgopt_not_found(s, m, hex, why);
					if (ret)
						goto out_free;
				}
			}
			if (!found[k]) {
				ret = imgopt_hole(s, sp->asid, m);
				if (ret)
					goto out_free;
			}
			if (found[k]) {
				ret = imgopt_map(s, sp->asid, m,
						 &s->objs[found[k] - 1]);
				if (ret)
					goto out_free;
			}
		}
	}
out_free:
	free(found);
	free(tried);
	return ret;
}

/* Say so if a process changed its image in a recording without time
 * conversion: which image ran when is unknown, so its code is left out
 * (sb_task_at()) rather than read from the wrong one. */
static int imgopt_untimed(struct imgset *s)
{
	struct sb_stats st;

	sb_stats(s->sb, &st);
	if (!st.nuntimed)
		return 0;
	return imgopt_say(s, "the recording has no time conversion (no TIME_CONV, "
			  "cap_user_time_zero 0) and %" PRIu64 " process%s "
			  "changed image (exec): which image ran when cannot be "
			  "told, so that code is left unknown", st.nuntimed,
			  st.nuntimed == 1 ? "" : "es");
}

/* Whether recording @in was made on this machine under this kernel: its
 * header names this host and (if it says) this release.  A recording
 * that does not say is taken as made elsewhere, so that its inodes are
 * not compared with unrelated files here. */
static int imgopt_same_host(const struct perfdata_info *in)
{
	struct utsname u;

	if (!in || !in->hostname[0] || uname(&u))
		return 0;
	return !strcmp(in->hostname, u.nodename) &&
	       (!in->osrelease[0] || !strcmp(in->osrelease, u.release));
}

int imgopt_load(struct imgset **out, const struct imgopt *o,
		const struct trace *t, char *err, size_t errlen)
{
	struct imgset *s;
	const char *env;
	size_t i;
	int ret;

	if (err && errlen)
		err[0] = 0;
	if (!out || !o)
		return -pte_invalid;
	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -pte_nomem;
	if (o->mi) {
		s->mi = o->mi;
	} else {
		ret = mi_new(&s->mi);
		if (ret)
			goto out_free;
		s->own_mi = 1;
	}
	s->sysroot = o->sysroot;
	if (o->buildid_dir) {
		s->cache = o->buildid_dir;
	} else if ((env = getenv("PERF_BUILDID_DIR")) && *env) {
		s->cache = env;
	} else if ((env = getenv("HOME")) && *env) {
		snprintf(s->cache_buf, sizeof(s->cache_buf), "%s/.debug", env);
		s->cache = s->cache_buf;
	}
	for (i = 0; i < o->nraw; i++) {
		ret = mi_add_raw(s->mi, o->raw[i], err, errlen);
		if (ret)
			goto out_free;
	}
	for (i = 0; i < o->nelf; i++) {
		ret = imgopt_elf(s, o->elf[i], err, errlen);
		if (ret)
			goto out_free;
	}
	if (o->kallsyms) {
		ret = symtab_from_kallsyms(&s->kallsyms, o->kallsyms, err,
					   errlen);
		if (ret)
			goto out_free;
	}
	if (t && t->perf) {
		const struct perfdata_info *in = perfdata_info(t);

		s->user_only = in && in->have_config && in->exclude_kernel;
		s->same_host = imgopt_same_host(in);
		ret = sb_load(&s->sb, t, err, errlen);
		if (!ret)
			ret = imgopt_sideband(s);
		if (!ret)
			ret = imgopt_untimed(s);
		if (ret)
			goto out_free;
	}
	if (s->nmaps)
		qsort(s->maps, s->nmaps, sizeof(*s->maps), imgopt_symmap_cmp);
	*out = s;
	return 0;

out_free:
	if (ret == -pte_nomem && err && errlen)
		snprintf(err, errlen, "out of memory loading the images");
	imgopt_free(s);
	return ret;
}

void imgopt_free(struct imgset *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nobjs; i++) {
		symtab_free(s->objs[i].st);
		elfimg_close(s->objs[i].e);
		free(s->objs[i].path);
	}
	for (i = 0; i < s->nmsgs; i++)
		free(s->msgs[i]);
	for (i = 0; i < s->ntold; i++)
		free(s->told[i]);
	/* the image points into the objects' mappings: free it first (the
	 * caller's must be freed before imgopt_free) */
	if (s->own_mi)
		mi_free(s->mi);
	free(s->objs);
	free(s->msgs);
	free(s->told);
	free(s->told_msg);
	free(s->holes);
	free(s->elfs);
	free(s->maps);
	for (i = 0; i < s->nkmods; i++)
		kmod_free(s->kmods[i]);
	free(s->kmods);
	kmod_names_free(s->knames);
	symtab_free(s->kallsyms);
	sb_free(s->sb);
	free(s);
}

size_t imgopt_nmessages(const struct imgset *s)
{
	return s ? s->nmsgs : 0;
}

const char *imgopt_message(const struct imgset *s, size_t i)
{
	return s && i < s->nmsgs ? s->msgs[i] : NULL;
}

struct mi *imgopt_mi(const struct imgset *s)
{
	return s ? s->mi : NULL;
}

struct sb *imgopt_sb(const struct imgset *s)
{
	return s ? s->sb : NULL;
}

uint64_t imgopt_asid(const struct imgset *s, int stream, uint64_t tsc,
		     int have_tsc, uint64_t cr3, int have_cr3)
{
	struct sb_task task;

	if (!s || !s->sb)
		return SB_ASID_NONE;
	if (!have_cr3)
		cr3 = 0;
	if (!have_tsc)
		return sb_cr3_asid(s->sb, cr3);
	if (sb_task_at(s->sb, stream, tsc, cr3, &task) &&
	    task.asid == SB_ASID_NONE)
		return SB_ASID_NONE;
	return task.asid;
}

uint64_t imgopt_reader_asid(const struct imgopt_reader *r, const struct flow_ctx *c)
{
	uint64_t tsc = 0, end, t1;
	int have_tsc;

	if (!r || !r->set || !c || !r->set->sb)
		return SB_ASID_NONE;
	have_tsc = r->tsc_at && !r->tsc_at(r->tsc_ctx, c->offset, &tsc);
	/* the stretch is the process's that ran when it ended (above); with
	 * the kernel traced a switch needs no TIP.PGD: by time alone */
	if (have_tsc && r->set->user_only && r->end_at &&
	    !r->end_at(r->end_ctx, c->offset, &end, &t1) &&
	    sb_changes(r->set->sb, r->stream, tsc, t1) == 1)
		tsc = t1;
	return imgopt_asid(r->set, r->stream, tsc, have_tsc, c->cr3, c->have_cr3);
}

int imgopt_read(void *reader, const struct flow_ctx *c, uint64_t ip,
		uint8_t *buf, size_t size)
{
	const struct imgopt_reader *r = reader;

	if (!r || !r->set || !c)
		return -pte_invalid;
	/* no sideband: no address spaces but the common one, no time needed */
	if (!r->set->sb)
		return mi_read(r->set->mi, SB_ASID_NONE, ip, buf, size);
	return mi_read(r->set->mi, imgopt_reader_asid(r, c), ip, buf, size);
}

/* A file's line of imgopt_key(): @spec is FILE or FILE:SUFFIX. */
static void imgopt_key_file(FILE *f, const char *what, const char *spec)
{
	struct stat sb;
	char path[4096];
	const char *colon;

	snprintf(path, sizeof(path), "%s", spec);
	if (stat(path, &sb) && (colon = strrchr(spec, ':')) != NULL) {
		snprintf(path, sizeof(path), "%.*s", (int)(colon - spec), spec);
		if (stat(path, &sb))
			memset(&sb, 0, sizeof(sb));
	}
	fprintf(f, "%s %s %lld %lld.%09ld\n", what, spec, (long long)sb.st_size,
		(long long)sb.st_mtim.tv_sec, (long)sb.st_mtim.tv_nsec);
}

int imgopt_key(const struct imgopt *o, const struct imgset *s, FILE *f)
{
	size_t i;

	if (!o || !s || !f)
		return -pte_invalid;
	fprintf(f, "sysroot %s\nbuildid-dir %s\n", s->sysroot ? s->sysroot : "",
		s->cache ? s->cache : "");
	for (i = 0; i < o->nraw; i++)
		imgopt_key_file(f, "raw", o->raw[i]);
	for (i = 0; i < o->nelf; i++)
		fprintf(f, "elf %s\n", o->elf[i]);
	if (o->kallsyms)
		imgopt_key_file(f, "kallsyms", o->kallsyms);
	for (i = 0; i < s->nobjs; i++)
		imgopt_key_file(f, "file", s->objs[i].path);
	/* kernel modules and the cache's kallsyms are found by their build
	 * IDs (the sideband's): whether they were is enough */
	fprintf(f, "kmods %zu kallsyms %d\n", s->nkmods, s->kallsyms != NULL);
	for (i = 0; i < s->nmsgs; i++)
		fprintf(f, "msg %s\n", s->msgs[i]);
	return ferror(f) ? -pte_io : 0;
}
