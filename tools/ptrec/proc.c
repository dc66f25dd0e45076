/*
 * proc.c -- what ptrecord learns about the traced process: its code
 * (read through /proc/PID/mem, cached by page), its executable mappings
 * (dumped once executed, as raw images plus an options file of
 * `--raw FILE:ADDR` lines, the form ptxed and `ptbrowse flow` take), the
 * build IDs of the files behind them, and the sideband file that
 * tools/pt2perf turns into MMAP2, COMM, FORK, EXIT and SWITCH_CPU_WIDE
 * records.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perfdata.h"
#include "ptrecord.h"
#include "tm_config.h"

#define CODE_PAGES	256
#define PAGE		4096ull

struct ptr_map {
	uint64_t start, end, pgoff, ino;
	unsigned maj, min, prot;
	int dumped;		/* its image is written */
	int announced;		/* its MMAP2 is in the sideband */
	char path[PATH_MAX];
};

struct ptr_proc {
	const struct ptr_opts *o;
	pid_t pid;
	int mem;		/* /proc/PID/mem */
	FILE *sb, *opts;
	char *imgdir;		/* OUT.img */
	int werr;		/* an image could not be written */
	struct ptr_map *maps;
	size_t nmaps;
	const struct ptr_map *last;	/* the mapping of the last lookup */
	uint64_t page_addr[CODE_PAGES];
	uint8_t page[CODE_PAGES][PAGE];
	char comm[32];
};

static void maps_read(struct ptr_proc *p)
{
	char path[64], line[PATH_MAX + 128];
	FILE *f;
	size_t i, n = 0;
	struct ptr_map *old = p->maps;
	size_t nold = p->nmaps;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)p->pid);
	f = fopen(path, "r");
	if (!f)
		return;
	p->maps = NULL;
	p->nmaps = 0;
	while (fgets(line, sizeof(line), f)) {
		struct ptr_map m;
		char perms[8];
		int off = 0;

		memset(&m, 0, sizeof(m));
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %" SCNu64 " %n",
			   &m.start, &m.end, perms, &m.pgoff, &m.maj, &m.min,
			   &m.ino, &off) < 7)
			continue;
		if (perms[2] != 'x')
			continue;
		m.prot = (perms[0] == 'r') | (perms[1] == 'w') << 1 | 4;
		snprintf(m.path, sizeof(m.path), "%s", line + off);
		m.path[strcspn(m.path, "\n")] = 0;
		/* keep what was learnt about a mapping seen before */
		for (i = 0; i < nold; i++)
			if (old[i].start == m.start && old[i].end == m.end &&
			    !strcmp(old[i].path, m.path)) {
				m.dumped = old[i].dumped;
				m.announced = old[i].announced;
			}
		if (!(n & 15)) {
			struct ptr_map *g = realloc(p->maps, (n + 16) * sizeof(*g));

			if (!g)
				break;
			p->maps = g;
		}
		p->maps[n++] = m;
	}
	fclose(f);
	p->nmaps = n;
	p->last = NULL;
	free(old);
}

static struct ptr_map *map_find(struct ptr_proc *p, uint64_t ip)
{
	size_t i;

	for (i = 0; i < p->nmaps; i++)
		if (ip >= p->maps[i].start && ip < p->maps[i].end)
			return &p->maps[i];
	return NULL;
}

/* The GNU build ID of the ELF file @path as hex in @out, or "-". */
static void build_id(const char *path, char *out, size_t size)
{
	Elf *e;
	Elf_Scn *scn = NULL;
	int fd;

	snprintf(out, size, "-");
	if (path[0] != '/')
		return;
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	while (e && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, noff, doff;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		while (d && (off = gelf_getnote(d, off, &nh, &noff, &doff))) {
			const uint8_t *b = (const uint8_t *)d->d_buf + doff;
			size_t i;

			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((const char *)d->d_buf + noff, "GNU", 4) ||
			    nh.n_descsz > 20 || 2 * nh.n_descsz >= size)
				continue;
			for (i = 0; i < nh.n_descsz; i++)
				snprintf(out + 2 * i, 3, "%02x", b[i]);
			goto out;
		}
	}
out:
	if (e)
		elf_end(e);
	close(fd);
}

/* The GNU build ID of the ELF image @img (@len bytes) as hex in @out, or
 * "-". */
static void build_id_mem(const uint8_t *img, size_t len, char *out, size_t size)
{
	Elf *e;
	Elf_Scn *scn = NULL;

	snprintf(out, size, "-");
	elf_version(EV_CURRENT);
	e = elf_memory((char *)img, len);
	while (e && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, noff, doff, i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		while (d && (off = gelf_getnote(d, off, &nh, &noff, &doff))) {
			const uint8_t *b = (const uint8_t *)d->d_buf + doff;

			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((const char *)d->d_buf + noff, "GNU", 4) ||
			    nh.n_descsz > 20 || 2 * nh.n_descsz >= size)
				continue;
			for (i = 0; i < nh.n_descsz; i++)
				snprintf(out + 2 * i, 3, "%02x", b[i]);
			elf_end(e);
			return;
		}
	}
	if (e)
		elf_end(e);
}

/*
 * The vDSO has no file: as perf record does, keep a copy in a build-ID
 * cache, OUT.img/.build-id/XX/REST/vdso (XX the build ID's first two hex
 * digits), so that `flow --buildid-dir OUT.img` finds it by the build ID
 * the MMAP2 record gives (into @bid, "-" if none).
 */
static void save_vdso(struct ptr_proc *p, const struct ptr_map *m, char *bid,
		      size_t size)
{
	char path[PATH_MAX * 2];
	uint64_t len = m->end - m->start;
	uint8_t *buf;
	FILE *f;

	snprintf(bid, size, "-");
	if (!p->imgdir || len > (64u << 20))
		return;
	buf = malloc(len);
	if (!buf)
		return;
	if (pread(p->mem, buf, len, (off_t)m->start) != (ssize_t)len)
		goto out;
	build_id_mem(buf, len, bid, size);
	if (bid[0] == '-' || strlen(bid) < 3)
		goto out;
	snprintf(path, sizeof(path), "%s/.build-id", p->imgdir);
	if (ptr_out_mkdir(path) < 0)
		goto out_bad;
	snprintf(path, sizeof(path), "%s/.build-id/%.2s", p->imgdir, bid);
	if (ptr_out_mkdir(path) < 0)
		goto out_bad;
	snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s", p->imgdir, bid, bid + 2);
	if (ptr_out_mkdir(path) < 0)
		goto out_bad;
	snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s/vdso", p->imgdir, bid,
		 bid + 2);
	f = ptr_out_open(path, 1);
	if (!f) {
		p->werr = 1;
		goto out;
	}
	if (fwrite(buf, 1, len, f) != len || fflush(f)) {
		fprintf(stderr, "ptrecord: %s: %s\n", path, strerror(errno));
		p->werr = 1;
	}
	goto out;
out_bad:
	fprintf(stderr, "ptrecord: %s: %s\n", path, strerror(errno));
	p->werr = 1;
out:
	free(buf);
}

static void announce(struct ptr_proc *p, struct ptr_map *m, uint64_t tsc)
{
	char bid[48];

	/* [vsyscall] is the kernel's: perf has no MMAP2 for it */
	if (m->announced || !p->sb || m->start >= 0x800000000000ull)
		return;
	m->announced = 1;
	if (!strcmp(m->path, "[vdso]"))
		save_vdso(p, m, bid, sizeof(bid));
	else
		build_id(m->path, bid, sizeof(bid));
	/* prot PROT_READ|PROT_EXEC..., flags MAP_PRIVATE */
	fprintf(p->sb, "mmap2 %d %d %" PRIu64 " %#" PRIx64 " %#" PRIx64 " %#" PRIx64
		" %u %u %" PRIu64 " %u 2 %s %s\n", (int)p->pid, (int)p->pid, tsc,
		m->start, m->end - m->start, m->pgoff, m->maj, m->min, m->ino,
		m->prot, bid, m->path[0] ? m->path : "//anon");
}

/* A file name for the image of @m: the mapped file's base name. */
static void image_name(const struct ptr_map *m, char *out, size_t size)
{
	const char *b = strrchr(m->path, '/');
	char *q;

	b = b ? b + 1 : m->path;
	snprintf(out, size, "%.200s.%" PRIx64 ".bin", *b ? b : "anon", m->start);
	for (q = out; *q; q++)
		if (*q == '[' || *q == ']' || *q == ' ' || *q == ':')
			*q = '_';
}

static void dump(struct ptr_proc *p, struct ptr_map *m)
{
	char name[PATH_MAX], path[PATH_MAX * 2];
	uint64_t len = m->end - m->start, done = 0;
	uint8_t *buf;
	FILE *f;

	m->dumped = 1;
	buf = malloc(len);
	if (!buf)
		return;
	while (done < len) {
		ssize_t r = pread(p->mem, buf + done, len - done,
				  (off_t)(m->start + done));

		if (r <= 0)
			break;
		done += (uint64_t)r;
	}
	if (done < len) {
		/* [vsyscall] and the like cannot be read */
		if (!p->o->quiet)
			fprintf(stderr, "ptrecord: cannot read %s at %#" PRIx64
				": no image for it\n", m->path, m->start);
		goto out;
	}
	image_name(m, name, sizeof(name));
	snprintf(path, sizeof(path), "%s/%s", p->imgdir, name);
	/* committed with the trace (out.c): no image of a failed recording */
	f = ptr_out_open(path, 1);
	if (!f) {
		p->werr = 1;
		goto out;
	}
	if (fwrite(buf, 1, len, f) != len || fflush(f)) {
		fprintf(stderr, "ptrecord: %s: %s\n", path, strerror(errno));
		p->werr = 1;
		goto out;
	}
	if (p->opts) {
		const char *dir = strrchr(p->imgdir, '/');

		fprintf(p->opts, "--raw %s/%s:%#" PRIx64 "\n",
			dir ? dir + 1 : p->imgdir, name, m->start);
	}
out:
	free(buf);
}

/* The timing options of the recording (ptrecord.h's configuration with
 * --mtc-freq), as ptgen -o writes them: one line into @buf. */
static void timing_opts(const struct ptr_opts *o, char *buf, size_t size)
{
	struct tm_config cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.have_cpu = 1;
	cfg.cpu_family = 6;
	cfg.cpu_model = 78;
	cfg.cpu_stepping = 3;
	cfg.have_mtc_freq = 1;
	cfg.mtc_freq = (uint8_t)o->mtc_freq;
	cfg.have_nom_freq = 1;
	cfg.nom_freq = PTR_NOM_FREQ;
	cfg.have_cpuid_15 = 1;
	cfg.cpuid_15_eax = PTR_EAX;
	cfg.cpuid_15_ebx = PTR_EBX;
	perfdata_ptdump_options(&cfg, buf, size);
}

/* The options files: TRACE.options, the timing options (so that ptbrowse
 * shows a raw trace's times at once) before the --raw lines dump() adds,
 * and with several CPUs TRACE.cpuK.options beside each stream (the
 * timing alone).  Returns 0, or -1 after out.c said why. */
static int options_open(struct ptr_proc *p, const char *timing)
{
	char path[PATH_MAX + 32];
	unsigned c;

	snprintf(path, sizeof(path), "%s.options", p->o->out);
	p->opts = ptr_out_open(path, 1);
	if (!p->opts)
		return -1;
	fprintf(p->opts, "%s\n", timing);
	for (c = 0; p->o->ncpus > 1 && c < p->o->ncpus; c++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s.cpu%u.options", p->o->out, c);
		f = ptr_out_open(path, 1);
		if (!f)
			return -1;
		fprintf(f, "%s\n", timing);
	}
	return 0;
}

struct ptr_proc *ptr_proc_new(const struct ptr_opts *o, pid_t pid)
{
	char timing[256];
	struct ptr_proc *p = calloc(1, sizeof(*p));
	char path[PATH_MAX + 32];
	FILE *f;

	if (!p)
		return NULL;
	p->o = o;
	p->pid = pid;
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	p->mem = open(path, O_RDONLY);
	if (p->mem < 0) {
		fprintf(stderr, "ptrecord: %s: %s\n", path, strerror(errno));
		free(p);
		return NULL;
	}
	memset(p->page_addr, 0xff, sizeof(p->page_addr));
	if (asprintf(&p->imgdir, "%s.img", o->out) < 0)
		p->imgdir = NULL;
	if (!p->imgdir || ptr_out_mkdir(p->imgdir) < 0) {
		/* no images, nothing to decode with: no recording */
		fprintf(stderr, "ptrecord: %s.img: %s\n", o->out,
			strerror(p->imgdir ? errno : ENOMEM));
		ptr_proc_free(p);
		return NULL;
	}
	timing_opts(o, timing, sizeof(timing));
	snprintf(path, sizeof(path), "%s.sideband", o->out);
	p->sb = options_open(p, timing) < 0 ? NULL : ptr_out_open(path, 1);
	if (!p->sb) {
		/* said why; out.c removes what was made */
		ptr_proc_free(p);
		return NULL;
	}
	fprintf(p->sb, "# ptrecord sideband v1: times in TSC ticks "
		"(the cycle model's, not measured)\n");
	/* pt2perf takes the recording's timing from here too */
	fprintf(p->sb, "# timing %s\n", timing);
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "r");
	if (f) {
		if (fgets(p->comm, sizeof(p->comm), f))
			p->comm[strcspn(p->comm, "\n")] = 0;
		fclose(f);
	}
	maps_read(p);
	return p;
}

void ptr_proc_free(struct ptr_proc *p)
{
	if (!p)
		return;
	/* sb and opts are out.c's to close */
	close(p->mem);
	free(p->maps);
	free(p->imgdir);
	free(p);
}

size_t ptr_proc_code(struct ptr_proc *p, uint64_t ip, uint8_t *buf, size_t n)
{
	size_t done = 0;

	while (done < n) {
		uint64_t a = ip + done, pa = a & ~(PAGE - 1);
		unsigned slot = (unsigned)((pa / PAGE) % CODE_PAGES);
		size_t k;

		if (p->page_addr[slot] != pa) {
			if (pread(p->mem, p->page[slot], PAGE, (off_t)pa) !=
			    (ssize_t)PAGE) {
				p->page_addr[slot] = UINT64_MAX;
				break;
			}
			p->page_addr[slot] = pa;
		}
		k = PAGE - (a - pa);
		if (k > n - done)
			k = n - done;
		memcpy(buf + done, p->page[slot] + (a - pa), k);
		done += k;
	}
	return done;
}

void ptr_proc_announce(struct ptr_proc *p, uint64_t tsc)
{
	size_t i;

	maps_read(p);
	for (i = 0; i < p->nmaps; i++)
		announce(p, &p->maps[i], tsc);
}

void ptr_proc_exec_at(struct ptr_proc *p, uint64_t ip, uint64_t tsc)
{
	struct ptr_map *m;

	if (p->last && ip >= p->last->start && ip < p->last->end)
		return;
	m = map_find(p, ip);
	if (!m || !m->dumped) {
		/* new mappings (dlopen) are announced as perf would */
		ptr_proc_announce(p, tsc);
		m = map_find(p, ip);
	}
	if (!m)
		return;
	if (!m->dumped)
		dump(p, m);
	p->last = m;
}

/* The lowest PT_LOAD address of @e (a PIE's or a library's link base). */
static uint64_t elf_base(Elf *e)
{
	size_t i, n;
	uint64_t lo = UINT64_MAX;

	if (elf_getphdrnum(e, &n))
		return 0;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    ph.p_vaddr < lo)
			lo = ph.p_vaddr & ~(PAGE - 1);
	}
	return lo == UINT64_MAX ? 0 : lo;
}

uint64_t ptr_proc_main(struct ptr_proc *p)
{
	char exe[64], path[PATH_MAX];
	uint64_t addr = 0, load = UINT64_MAX;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	Elf *e;
	ssize_t n;
	int fd;

	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)p->pid);
	n = readlink(exe, path, sizeof(path) - 1);
	if (n <= 0)
		return 0;
	path[n] = 0;
	fd = open(exe, O_RDONLY);
	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || !gelf_getehdr(e, &eh))
		goto out;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t k;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		d = elf_getdata(scn, NULL);
		for (k = 0; d && sh.sh_entsize && k < sh.sh_size / sh.sh_entsize; k++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(d, (int)k, &sym) ||
			    GELF_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_value)
				continue;
			name = elf_strptr(e, sh.sh_link, sym.st_name);
			if (name && !strcmp(name, "main")) {
				addr = sym.st_value;
				break;
			}
		}
		if (addr)
			break;
	}
	if (addr && eh.e_type == ET_DYN) {
		/* a PIE: where the file's start is mapped */
		char mp[64], line[PATH_MAX + 128];
		FILE *f;

		snprintf(mp, sizeof(mp), "/proc/%d/maps", (int)p->pid);
		f = fopen(mp, "r");
		while (f && fgets(line, sizeof(line), f)) {
			uint64_t s, off;

			line[strcspn(line, "\n")] = 0;
			if (sscanf(line, "%" SCNx64 "-%*x %*s %" SCNx64, &s, &off) == 2 &&
			    off == 0 && strlen(line) > strlen(path) &&
			    !strcmp(line + strlen(line) - strlen(path), path) &&
			    s < load)
				load = s;
		}
		if (f)
			fclose(f);
		addr = load == UINT64_MAX ? 0 : addr - elf_base(e) + load;
	}
out:
	if (e)
		elf_end(e);
	close(fd);
	return addr;
}

void ptr_proc_comm(struct ptr_proc *p, pid_t tid, uint64_t tsc, int exec,
		   char *last)
{
	char path[64], comm[PTR_COMM_MAX];
	FILE *f;

	snprintf(comm, sizeof(comm), "%s", p->comm);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)p->pid,
		 (int)tid);
	f = fopen(path, "r");
	if (f) {
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = 0;
		fclose(f);
	}
	if (!strcmp(comm, last))
		return;
	snprintf(last, PTR_COMM_MAX, "%s", comm);
	if (p->sb)
		fprintf(p->sb, "comm %d %d %" PRIu64 " %d %s\n", (int)p->pid,
			(int)tid, tsc, exec, comm);
}

void ptr_proc_fork(struct ptr_proc *p, pid_t tid, pid_t ptid, uint64_t tsc)
{
	if (p->sb)
		fprintf(p->sb, "fork %d %d %d %" PRIu64 "\n", (int)p->pid,
			(int)tid, (int)ptid, tsc);
}

void ptr_proc_exit(struct ptr_proc *p, pid_t tid, uint64_t tsc)
{
	if (p->sb)
		fprintf(p->sb, "exit %d %d %" PRIu64 "\n", (int)p->pid, (int)tid,
			tsc);
}

void ptr_proc_switch(struct ptr_proc *p, unsigned cpu, uint64_t tsc, int out,
		     pid_t tid, pid_t other, int preempt)
{
	if (p->sb)
		fprintf(p->sb, "switch %u %" PRIu64 " %s %d %d %d %d %d\n", cpu, tsc,
			out ? "out" : "in", (int)p->pid, (int)tid,
			other > 0 ? (int)p->pid : -1, (int)other, preempt);
}

int ptr_proc_finish(struct ptr_proc *p)
{
	int err = 0;

	if (p->sb && (fflush(p->sb) || ferror(p->sb)))
		err = -1;
	if (p->opts && (fflush(p->opts) || ferror(p->opts)))
		err = -1;
	if (err)
		fprintf(stderr, "ptrecord: %s: writing the sideband or options "
			"failed: %s\n", p->o->out, strerror(errno));
	/* an image that could not be written was said when it happened */
	return err || p->werr ? -1 : 0;
}
