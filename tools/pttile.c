/*
 * pttile -- a big trace with code from a small recorded one: the raw trace
 * from its first PSB to its end, written again and again, each copy's TSC
 * packets shifted forward past the copy before (issue 17's benchmark
 * trace).  Every copy starts at a PSB, which resynchronises a decoder, so
 * the flow of each copy is the original's; the code images stay the
 * original's (--raw FILE:ADDR as for it).
 *
 * Only TSC packets change.  The shift is a whole number of 2^16 crystal
 * clock (CTC) periods, so TMA's CTC[15:0] and MTC's CTC bits, which count
 * the crystal clock modulo 2^16 at most, stay right as they are:
 * TSC = ART * CPUID.15H:EBX / EAX (SDM 36.8.3), and the shift in TSC ticks
 * is k * 65536 * EBX / EAX.  EAX/EBX default to ptrecord's (2/100).
 *
 * A copy's time ends at most one MTC period past its last MTC after its
 * last TSC (an MTC comes every period while tracing is on); the shift
 * covers the copy's span from its first TSC to there, so the times of
 * the tiled trace only move forward.
 *
 * usage: pttile [--size SIZE | --tiles N] [--cpuid-0x15.eax N]
 *               [--cpuid-0x15.ebx N] [--mtc-freq N] -o OUT TRACE
 * Writes OUT through src/safefile.c (never the input; never a half file).
 * Exit status 0, 1 on an error (one line naming the file and offset), 2 on
 * a usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pkt.h"
#include "safefile.h"

/* What a tile is: the bytes, where its TSC packets are, its shift. */
struct tile {
	const uint8_t *buf;	/* the tile: the input from its first PSB */
	uint64_t len;
	uint64_t *tsc_at;	/* offsets (in the tile) of TSC packets */
	size_t ntsc;
	uint64_t first_tsc, last_tsc;
	uint64_t shift;		/* TSC ticks from one copy to the next */
};

struct tile_opts {
	uint64_t size;		/* 0: by tiles */
	uint64_t tiles;
	unsigned eax, ebx, mtc_freq;
	const char *out, *in;
};

/* A size: a number with an optional K/M/G/T (or KiB...) suffix, powers of
 * 1024.  Returns 0, or -1 if @s is not one. */
static int tile_size(const char *s, uint64_t *out)
{
	char *e;
	unsigned long long v;
	int sh = 0;

	errno = 0;
	v = strtoull(s, &e, 0);
	if (errno || e == s || *s == '-')
		return -1;
	switch (*e) {
	case 'K': case 'k': sh = 10; e++; break;
	case 'M': case 'm': sh = 20; e++; break;
	case 'G': case 'g': sh = 30; e++; break;
	case 'T': case 't': sh = 40; e++; break;
	}
	if (sh && (!strcmp(e, "iB") || !strcmp(e, "B")))
		e += strlen(e);
	if (*e || (sh && v > (UINT64_MAX >> sh)))
		return -1;
	*out = (uint64_t)v << sh;
	return 0;
}

/* A count or ratio: a plain number (0x... too), no suffix.  Returns 0,
 * or -1 if @s is not one. */
static int tile_num(const char *s, uint64_t *out)
{
	char *e;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &e, 0);
	if (errno || e == s || *s < '0' || *s > '9' || *e)
		return -1;
	*out = v;
	return 0;
}

/* Walk the tile's packets: its TSCs, and MTCs after the last one.
 * Returns 0, or -1 after saying which file and offset is bad. */
static int tile_scan(struct tile *t, const struct tile_opts *o, uint64_t base)
{
	struct pkt_decoder dec;
	struct pkt pkt;
	size_t cap = 0;
	uint64_t mtc_after = 0, ticks;
	int r;

	pkt_decoder_init(&dec, t->buf, t->buf + t->len, 0);
	while ((r = pkt_next(&dec, &pkt)) > 0) {
		if (pkt.type == PKT_MTC) {
			mtc_after++;
			continue;
		}
		if (pkt.type != PKT_TSC)
			continue;
		if (t->ntsc == cap) {
			uint64_t *n = realloc(t->tsc_at, (cap = cap ? 2 * cap : 64) * sizeof(*n));

			if (!n) {
				fprintf(stderr, "pttile: out of memory\n");
				return -1;
			}
			t->tsc_at = n;
		}
		/* equal is fine: ptgen, for one, writes an event's TSC and
		 * then a PSB+ whose TSC has not moved */
		if (t->ntsc && pkt.u.tsc < t->last_tsc) {
			fprintf(stderr, "pttile: %s: offset 0x%" PRIx64 ": the TSC goes back\n",
				o->in, base + pkt.offset);
			return -1;
		}
		if (!t->ntsc)
			t->first_tsc = pkt.u.tsc;
		t->last_tsc = pkt.u.tsc;
		t->tsc_at[t->ntsc++] = pkt.offset;
		mtc_after = 0;
	}
	/* A packet cut by the end of the recording: each copy ends before
	 * it, so the next copy's PSB follows whole packets. */
	if (r == -pte_truncated) {
		fprintf(stderr, "pttile: %s: offset 0x%" PRIx64 ": a truncated packet: "
			"each copy ends before it\n", o->in, base + pkt.offset);
		t->len = pkt.offset;
		r = -pte_eos;
	}
	if (r != -pte_eos) {
		fprintf(stderr, "pttile: %s: offset 0x%" PRIx64 ": %s\n", o->in,
			base + pkt.offset, pte_strerror(r));
		return -1;
	}
	if (!t->ntsc) {
		fprintf(stderr, "pttile: %s: no TSC packet: nothing to shift\n", o->in);
		return -1;
	}
	/* The copy's end: an MTC period past its last MTC, at most. */
	ticks = (uint64_t)(1u << o->mtc_freq) * o->ebx / o->eax + 1;
	t->shift = t->last_tsc - t->first_tsc + (mtc_after + 2) * ticks;
	/* in whole 2^16 CTC periods */
	ticks = 65536ull * o->ebx / o->eax;
	t->shift = (t->shift / ticks + 1) * ticks;
	return 0;
}

/* Copy @k of @t into @dst, its TSCs shifted.  Returns 0, or -1 if a TSC
 * would pass 56 bits. */
static int tile_copy(const struct tile *t, uint64_t k, uint8_t *dst)
{
	size_t i;

	memcpy(dst, t->buf, t->len);
	for (i = 0; i < t->ntsc; i++) {
		uint8_t *p = dst + t->tsc_at[i] + 1;
		uint64_t v = 0;
		int b;

		for (b = 6; b >= 0; b--)
			v = v << 8 | p[b];
		v += k * t->shift;
		if (v >> 56)
			return -1;
		for (b = 0; b < 7; b++)
			p[b] = (uint8_t)(v >> (8 * b));
	}
	return 0;
}

/* Write @n copies of @t to @o->out, never over the input @in.
 * Returns 0 or -1 (said why). */
static int tile_write(const struct tile *t, const struct tile_opts *o, uint64_t n,
		      const struct stat *in)
{
	struct safefile *f = NULL;
	struct safefile_keep keep = { in->st_dev, in->st_ino, "the input trace" };
	struct safefile_opts so = { .flags = SAFEFILE_NOSYNC, .keep = &keep, .nkeep = 1 };
	size_t per = t->len > (8u << 20) ? 1 : (8u << 20) / t->len, m;
	uint8_t *buf = malloc(per * t->len);
	char err[512];
	uint64_t k = 0;

	if (!buf) {
		fprintf(stderr, "pttile: out of memory\n");
		return -1;
	}
	if (safefile_create(&f, o->out, &so, err, sizeof(err))) {
		fprintf(stderr, "pttile: %s\n", err);
		free(buf);
		return -1;
	}
	while (k < n) {
		for (m = 0; m < per && k < n; m++, k++)
			if (tile_copy(t, k, buf + m * t->len)) {
				fprintf(stderr, "pttile: %s: copy %" PRIu64
					": the TSC would pass 56 bits\n", o->out, k);
				goto fail;
			}
		if (safefile_write(f, buf, m * t->len)) {
			fprintf(stderr, "pttile: %s: %s\n", o->out, strerror(errno));
			goto fail;
		}
	}
	free(buf);
	if (safefile_commit(f, err, sizeof(err))) {
		fprintf(stderr, "pttile: %s\n", err);
		return -1;
	}
	return 0;
fail:
	free(buf);
	safefile_abort(f);
	return -1;
}

static void tile_usage(FILE *f)
{
	fprintf(f,
"usage: pttile [options] -o OUT TRACE\n"
"Tile raw Intel PT TRACE (from its first PSB to its end) into OUT, each\n"
"copy's TSC packets shifted forward past the copy before by whole 2^16\n"
"crystal clock periods (TMA and MTC stay right): a big trace with the\n"
"original's code, for benchmarks.  Give the browser the original's\n"
"images (--raw) and timing options.\n"
"\n"
"  -o, --output OUT        the tiled trace (replaced only when complete)\n"
"      --size SIZE         as many whole copies as fit SIZE (4GiB...)\n"
"      --tiles N           N copies (default 2)\n"
"      --cpuid-0x15.eax N  TSC:ART denominator (default 2, ptrecord's)\n"
"      --cpuid-0x15.ebx N  TSC:ART numerator (default 100)\n"
"      --mtc-freq N        MTC every 2^N ART ticks (default 3)\n"
"  -h, --help              this text\n"
"Prints 'TILES TILE_BYTES SHIFT_TICKS' on standard output.\n");
}

/* Parse the command line into @o.  Returns 0, 1 after --help, or 2 after
 * saying what is wrong. */
static int tile_parse(int argc, char **argv, struct tile_opts *o)
{
	static const struct option lo[] = {
		{ "output", 1, NULL, 'o' }, { "size", 1, NULL, 's' },
		{ "tiles", 1, NULL, 'n' }, { "cpuid-0x15.eax", 1, NULL, 'a' },
		{ "cpuid-0x15.ebx", 1, NULL, 'b' }, { "mtc-freq", 1, NULL, 'm' },
		{ "help", 0, NULL, 'h' }, { NULL, 0, NULL, 0 }
	};
	uint64_t v;
	int c;

	*o = (struct tile_opts){ .tiles = 2, .eax = 2, .ebx = 100, .mtc_freq = 3 };
	while ((c = getopt_long(argc, argv, "o:h", lo, NULL)) != -1) {
		if (c == 'h') {
			tile_usage(stdout);
			return 1;
		}
		if (c == 'o') {
			o->out = optarg;
			continue;
		}
		if (c == '?')
			return 2;
		/* a size takes K, M ...; counts and ratios are plain, and
		 * only --mtc-freq may be 0 */
		if (c == 's' ? tile_size(optarg, &v) || !v :
		    tile_num(optarg, &v) || v > (c == 'm' ? 15 : 1u << 20) ||
		    (c != 'm' && !v)) {
			fprintf(stderr, "pttile: bad value '%s'\n", optarg);
			return 2;
		}
		if (c == 's')
			o->size = v;
		else if (c == 'n')
			o->tiles = v;
		else if (c == 'a')
			o->eax = (unsigned)v;
		else if (c == 'b')
			o->ebx = (unsigned)v;
		else
			o->mtc_freq = (unsigned)v;
	}
	if (!o->out || optind != argc - 1) {
		tile_usage(stderr);
		return 2;
	}
	if ((65536ull * o->ebx) % o->eax) {
		fprintf(stderr, "pttile: 65536 * EBX / EAX must be whole (%u/%u)\n",
			o->ebx, o->eax);
		return 2;
	}
	o->in = argv[optind];
	return 0;
}

int main(int argc, char **argv)
{
	struct tile_opts o;
	struct tile t = { 0 };
	struct stat st;
	const uint8_t *map = MAP_FAILED, *psb;
	uint64_t n;
	int fd = -1, ret = 1, r = tile_parse(argc, argv, &o);

	if (r)
		return r == 1 ? 0 : 2;
	/* C-c or the file size limit half way: no OUT.tmp.PID.N left. */
	safefile_remove_on_signals();
	fd = safefile_open_read(o.in, 0);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "pttile: %s: %s\n", o.in, safefile_strerror(errno));
		goto out;
	}
	if (st.st_size > 0)
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		fprintf(stderr, "pttile: %s: %s\n", o.in, st.st_size ? strerror(errno) :
			"empty");
		goto out;
	}
	/* a perf.data file's first PSB is inside an AUXTRACE record: the
	 * record headers between its pieces were parsed as packets */
	if (st.st_size >= 8 && !memcmp(map, "PERFILE2", 8)) {
		fprintf(stderr, "pttile: %s: a perf.data file, not a raw trace: "
			"ptbrowse extract a stream of it first\n", o.in);
		goto out;
	}
	psb = pkt_find_psb(map, map + st.st_size);
	if (!psb) {
		fprintf(stderr, "pttile: %s: offset 0x0: no PSB\n", o.in);
		goto out;
	}
	t.buf = psb;
	t.len = (uint64_t)(map + st.st_size - psb);
	if (tile_scan(&t, &o, (uint64_t)(psb - map)))
		goto out;
	n = o.size ? o.size / t.len : o.tiles;
	if (!n) {
		fprintf(stderr, "pttile: %s: a copy is %" PRIu64 " bytes, more than --size\n",
			o.in, t.len);
		goto out;
	}
	if (tile_write(&t, &o, n, &st))
		goto out;
	printf("%" PRIu64 " %" PRIu64 " %" PRIu64 "\n", n, t.len, t.shift);
	ret = 0;
out:
	if (map != MAP_FAILED)
		munmap((void *)map, (size_t)st.st_size);
	if (fd >= 0)
		close(fd);
	free(t.tsc_at);
	return ret;
}
