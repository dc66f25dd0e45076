/* fuzz_ctidx -- the code index's cache file, ctidx_load(), on any bytes.
 * A cache file ends in an XXH3 of the rest, which stops a damaged file
 * before the parser: the input is the file without it, and this target
 * appends the right one, so every input reaches the header, the names
 * and the packs.  The file is loaded into the code index of a fixture
 * made once per process: a tiny raw trace written here (3 KiB: 16 PSBs,
 * main -> f -> g called over and over, with CYCs, calls open across
 * PSBs, an overflow) over code at a kernel address named by a kallsyms
 * file, indexed on a 256-byte grid (11 chunks) with fragments of 2, 4 and
 * 8 chunks merged ahead, so the header's key, boundaries and sizes are
 * known.  A file that loads must answer the
 * plans, merges and jobs (ctjob_run(), its edges decoded and its middle
 * merged from the loaded fragments) of ranges all over the stream
 * without a crash; a file refused leaves the index empty.
 *
 * The fixture's own saved file is the seed: it is loaded (and must load)
 * when the fixture is made, and LLVMFuzzerInitialize() writes it, less
 * its hash, as ctidx-valid into the corpus directory libFuzzer is given,
 * so the fuzzer mutates a real file of the current format. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "../../tools/ptenc.h"
#include "calltree.h"
#include "ctidx.h"
#include "ctjob.h"
#include "imgopt.h"
#include "index.h"
#include "ptdec.h"
#include "trace.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define BASE 0xffffffff81000000ull
#define MAIN_IP (BASE + 0x00)
#define JMP_IP (BASE + 0x05)	/* main's jmp *rax back to main */
#define F_RET_IP (BASE + 0x25)	/* f's ret, after its call of g */
#define G_IP (BASE + 0x40)	/* g: its ret */
#define GRID 256
#define NPSB 16
#define ITERS 24		/* calls of f per PSB segment */

static const char fix_key[] = "fuzz_ctidx fixture";

/* main: call f; jmp *rax.  f: call g; ret.  g: ret. */
static const uint8_t fix_code[0x48] = {
	[0x00] = 0xe8, 0x1b, 0, 0, 0,	/* call 0x20 */
	[0x05] = 0xff, 0xe0,		/* jmp *rax */
	[0x20] = 0xe8, 0x1b, 0, 0, 0,	/* call 0x40 */
	[0x25] = 0xc3,			/* ret */
	[0x40] = 0xc3,			/* ret */
};

static const char fix_kallsyms[] =
	"ffffffff81000000 T main\n"
	"ffffffff81000020 T f\n"
	"ffffffff81000040 T g\n"
	"ffffffff81000048 T code_end\n";

static struct {
	int ready;
	struct trace *t;
	struct imgopt io;
	struct imgset *set;
	struct idx *idx;
	uint8_t *valid;		/* the fixture's saved file */
	size_t nvalid;
	int memfd;		/* each input, hashed, as a file */
	char path[64];
} fx;

/* NPSB segments, each starting where the decoder waits: at main's jmp
 * back (TIP), or, after every third, inside g with f and g's calls open
 * from before the PSB (their returns uncompressed: TIPs), so fragments
 * end with calls open and start with returns from before them; one
 * overflow breaks the flow (the stack forgotten). */
static size_t fix_trace(uint8_t *buf)
{
	uint8_t *p = buf;
	int i, k, in_g = 0;

	for (i = 0; i < NPSB; i++) {
		p = pte_psb(p);
		p = pte_tsc(p, 100000 + (uint64_t)i * 4000);
		p = pte_mode_exec(p, 1, 0);
		p = pte_ip(p, PTE_FUP, PTE_IPC_SEXT48, in_g ? G_IP : JMP_IP);
		p = pte_psbend(p);
		if (in_g) {
			p = pte_cyc(p, 3);
			p = pte_ip(p, PTE_TIP, PTE_IPC_UPD16, F_RET_IP);
			p = pte_ip(p, PTE_TIP, PTE_IPC_UPD16, JMP_IP);
		}
		in_g = i % 3 == 0;
		for (k = 0; k < ITERS; k++) {
			p = pte_cyc(p, 7 + (uint64_t)(k & 3));
			p = pte_ip(p, PTE_TIP, PTE_IPC_UPD16, MAIN_IP);
			if (in_g && k == ITERS - 1)
				break;	/* the next PSB finds g's return */
			p = pte_cyc(p, 5);
			p = pte_tnt8(p, 3, 2);	/* g's and f's returns */
			if (i == 7 && k == ITERS / 2) {
				p[0] = 0x02;	/* OVF, then on from main */
				p[1] = 0xf3;
				p = pte_ip(p + 2, PTE_FUP, PTE_IPC_UPD16, MAIN_IP);
				p = pte_tnt8(p, 3, 2);
			}
		}
	}
	return (size_t)(p - buf);
}

static int fix_write(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		return -1;
	if (fwrite(data, 1, n, f) != n) {
		fclose(f);
		return -1;
	}
	return fclose(f);
}

static uint8_t *fix_read(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b;
	long len;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	b = len > 0 ? malloc((size_t)len) : NULL;
	if (b && fread(b, 1, (size_t)len, f) != (size_t)len) {
		free(b);
		b = NULL;
	}
	fclose(f);
	*n = b ? (size_t)len : 0;
	return b;
}

static void fix_opts(struct ctidx_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->t = fx.t;
	o->stream = 0;
	o->set = fx.set;
	o->tm = &fx.t->streams[0].timing;
	o->idx = fx.idx;
	o->grid = GRID;
	o->fan = 2;
	o->nthreads = 1;
}

static void die(const char *what)
{
	fprintf(stderr, "fuzz_ctidx: fixture: %s\n", what);
	abort();
}

static void use(struct ctidx *ci);

/* The trace, image set and index, and the index's file, once. */
static void fix_init(void)
{
	static uint8_t trace[NPSB * 200];
	static char raw[128];
	char dir[] = "/tmp/fuzz_ctidx.XXXXXX", tpath[64], cpath[64], kpath[64];
	char err[512];
	struct ctidx_opts o;
	struct ctidx_progress p;
	struct ctidx *ci;
	size_t n, nfrags;

	if (fx.ready)
		return;
	if (!mkdtemp(dir))
		die("mkdtemp");
	snprintf(tpath, sizeof(tpath), "%s/trace.pt", dir);
	snprintf(cpath, sizeof(cpath), "%s/code.bin", dir);
	snprintf(kpath, sizeof(kpath), "%s/kallsyms", dir);
	snprintf(raw, sizeof(raw), "%s:0x%llx", cpath, BASE);
	n = fix_trace(trace);
	if (fix_write(tpath, trace, n) || fix_write(cpath, fix_code, sizeof(fix_code)) ||
	    fix_write(kpath, fix_kallsyms, strlen(fix_kallsyms)))
		die("cannot write its files");
	if (trace_open(&fx.t, tpath, err, sizeof(err)))
		die(err);
	imgopt_init(&fx.io);
	fx.io.raw = malloc(sizeof(*fx.io.raw));
	if (!fx.io.raw)
		die("out of memory");
	fx.io.raw[0] = raw;
	fx.io.nraw = 1;
	fx.io.kallsyms = kpath;
	if (imgopt_load(&fx.set, &fx.io, fx.t, err, sizeof(err)))
		die(err);
	if (idx_new(&fx.idx, &fx.t->streams[0].img, &fx.t->streams[0].timing) ||
	    idx_build(fx.idx))
		die("idx_build");

	/* the index made, saved and read back: the seed */
	fix_opts(&o);
	if (ctidx_new(&ci, &o) || ctidx_start(ci) || ctidx_wait(ci))
		die("ctidx build");
	ctidx_progress(ci, &p);
	/* neither the first chunk nor the last has a fragment (ctidx.c) */
	if (p.nchunks < 8 || p.nfrags + 2 != p.nchunks || !p.nups)
		die("too few chunks or fragments");
	nfrags = p.nfrags;
	snprintf(tpath, sizeof(tpath), "%s/code", dir);
	if (ctidx_save(ci, tpath, fix_key, sizeof(fix_key), NULL, err, sizeof(err)))
		die(err);
	ctidx_free(ci);
	fx.valid = fix_read(tpath, &fx.nvalid);
	if (!fx.valid || fx.nvalid < 64)
		die("cannot read the saved file");
	unlink(tpath);
	unlink(cpath);
	unlink(kpath);
	snprintf(tpath, sizeof(tpath), "%s/trace.pt", dir);
	unlink(tpath);
	rmdir(dir);

	fx.memfd = memfd_create("fuzz_ctidx", MFD_CLOEXEC);
	if (fx.memfd < 0)
		die("memfd_create");
	snprintf(fx.path, sizeof(fx.path), "/proc/self/fd/%d", fx.memfd);
	fx.ready = 1;

	/* the fixture's file must load, or the fuzzer never gets past the
	 * header (a format or fixture change) */
	if (ctidx_new(&ci, &o) || ctidx_load(ci, fx.path, fix_key, sizeof(fix_key)) != 1)
		die("an empty file loads");
	ctidx_free(ci);
	if (pwrite(fx.memfd, fx.valid, fx.nvalid, 0) != (ssize_t)fx.nvalid)
		die("pwrite");
	if (ctidx_new(&ci, &o) || ctidx_load(ci, fx.path, fix_key, sizeof(fix_key)))
		die("its own saved file does not load");
	ctidx_progress(ci, &p);
	if (p.nfrags != nfrags)
		die("its own saved file loads without all fragments");
	use(ci);
	ctidx_free(ci);
}

/* The index's carry at the first PSB at or after @from. */
static int carry_at(uint64_t from, struct tm_carry *c)
{
	struct idx_seek sk;
	size_t k = 0;

	if (idx_find(fx.idx, from, &k))
		k = 0;
	if (idx_seek(fx.idx, k, &sk))
		return -1;
	if (sk.offset < from && idx_seek(fx.idx, ++k, &sk))
		return -1;
	return idx_seek_carry(fx.idx, k, c) ? -1 : 0;
}

/* Read every node and function of finished @ct as a caller would. */
static void walk(const struct ct *ct)
{
	uint32_t top[8];
	size_t i, nn = ct_nnodes(ct), nf = ct_nfuncs(ct), len = 0;
	char buf[64];

	for (i = 0; i < nn; i++) {
		const struct ct_node *n = ct_node(ct, (uint32_t)i);

		if (!n || (i && n->func != CT_NONE && n->func >= nf) ||
		    (n->parent != CT_NONE && n->parent >= nn) ||
		    (n->first_child != CT_NONE && n->first_child >= nn) ||
		    (n->next_sibling != CT_NONE && n->next_sibling >= nn))
			abort();
		ct_children(ct, (uint32_t)i, CT_BY_CYCLES, top, 8);
		ct_sum_str(&n->total, buf, sizeof(buf));
	}
	for (i = 0; i < nf; i++) {
		const struct ct_func *fn = ct_func(ct, (uint32_t)i);

		if (!fn)
			abort();
		if (fn->name)
			len += strlen(fn->name);
		ct_sum_str(&fn->cyc, buf, sizeof(buf));
	}
	ct_top(ct, CT_BY_INSNS, top, 8);
	(void)len;
}

static int no_resolve(void *ctx, uint64_t asid, uint64_t ip, struct symfmt_fn *fn)
{
	(void)ctx;
	(void)asid;
	(void)ip;
	(void)fn;
	return -pte_nomap;
}

/* A loaded index asked what the browser asks: plans, merges, jobs. */
static void use(struct ctidx *ci)
{
	static const uint16_t at[][2] = {	/* in 1/64ths of the stream */
		{ 0, 64 }, { 0, 1 }, { 5, 59 }, { 17, 33 }, { 31, 32 }, { 40, 64 },
	};
	uint64_t size = fx.t->streams[0].img.size;
	struct ctidx_progress p;
	struct ctidx_plan pl;
	struct ct *ct;
	size_t i;

	ctidx_progress(ci, &p);
	if (!p.loaded || !p.finished || p.nfrags > p.nchunks)
		abort();
	/* every fragment a build makes (ctidx.c: not the first chunk's or
	 * the last's), else all a file holds */
	if (ctidx_covers(ci, 1, p.nchunks - 1)) {
		if (ct_new(&ct, no_resolve, NULL))
			abort();
		if (!ctidx_merge(ci, ct, ctidx_covers(ci, 0, 1) ? 0 : 1,
				 p.nchunks - !ctidx_covers(ci, p.nchunks - 1, p.nchunks)) &&
		    !ct_finish(ct))
			walk(ct);
		ct_free(ct);
	}
	for (i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		uint64_t from = size * at[i][0] / 64, to = size * at[i][1] / 64;
		struct ctjob j;

		if (ctidx_plan(ci, from, to, &pl) == 0) {
			if (pl.ka > pl.kend || pl.kend > pl.kb || pl.kb >= p.nchunks)
				abort();
			if (ctidx_covers(ci, pl.ka, pl.kend)) {
				if (ct_new(&ct, no_resolve, NULL))
					abort();
				if (!ctidx_merge(ci, ct, pl.ka, pl.kend) && !ct_finish(ct))
					walk(ct);
				ct_free(ct);
			}
		}
		memset(&j, 0, sizeof(j));
		j.t = fx.t;
		j.set = fx.set;
		j.tm = &fx.t->streams[0].timing;
		j.from = from;
		j.to = to;
		j.grid = GRID;
		j.ci = ci;
		j.have_carry = !carry_at(from, &j.carry);
		if (ctjob_run(&j) == 0 && j.ct)
			walk(j.ct);
		ctjob_release(&j);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char path[4096];
	struct stat st;
	int i;

	fix_init();
	/* the seed, into the first corpus directory */
	for (i = 1; i < *argc; i++) {
		const char *a = (*argv)[i];

		if (a[0] == '-' || stat(a, &st) || !S_ISDIR(st.st_mode))
			continue;
		snprintf(path, sizeof(path), "%s/ctidx-valid", a);
		if (fix_write(path, fx.valid, fx.nvalid - 8))
			fprintf(stderr, "fuzz_ctidx: cannot write %s\n", path);
		break;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctidx_opts o;
	struct ctidx_progress p;
	struct ctidx *ci;
	uint64_t h;
	int r;

	fix_init();
	h = XXH3_64bits(data, size);
	if (ftruncate(fx.memfd, 0) ||
	    pwrite(fx.memfd, data, size, 0) != (ssize_t)size ||
	    pwrite(fx.memfd, &h, 8, (off_t)size) != 8)
		abort();
	fix_opts(&o);
	if (ctidx_new(&ci, &o))
		abort();
	r = ctidx_load(ci, fx.path, fix_key, sizeof(fix_key));
	if (r < 0 && r != -pte_nomem)
		abort();
	if (r == 0) {
		use(ci);
	} else {
		/* refused: as before, empty and not started */
		ctidx_progress(ci, &p);
		if (p.nfrags || p.nups || p.bytes || p.loaded || p.started)
			abort();
	}
	ctidx_free(ci);
	return 0;
}
