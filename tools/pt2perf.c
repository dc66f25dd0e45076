/*
 * pt2perf -- wrap a raw Intel PT trace into a pipe-mode perf.data file, as
 * `perf record -e intel_pt// -o -` would write it: the intel_pt event's
 * attr, CPUID, AUXTRACE_INFO with the timing configuration ptgen uses
 * (ptgen --print-config), TIME_CONV, then the trace as AUXTRACE records of
 * --chunk bytes each for one CPU.  For benchmarks and tests: browsing the
 * result must be as fast as browsing the raw file.
 *
 *   pt2perf [--chunk BYTES] [--cpu N] [--hole OFF:LEN] [--switches N]
 *           [--lost-at OFF] RAW -o OUT
 *
 * --hole leaves the raw bytes [OFF, OFF + LEN) out, as lost AUX data: the
 * buffer offsets jump over them, which a reader must show as a gap.
 * --switches adds N context switch records before the data, --lost-at an
 * AUX record flagged truncated whose data ends at OFF, after them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define PMU_TYPE 8
#define ATTR_ID 1
/* pt, cyc, mtc, tsc, mtc_period=3 (ptgen --print-config), cyc_thresh=1 */
#define CONFIG (0x1ull | 0x2 | 0x200 | 0x400 | (3ull << 14) | (1ull << 19))
#define SAMPLE_TYPE ((1ull << 1) | (1ull << 2) | (1ull << 7) | (1ull << 16))

static FILE *out;
static const char *out_path;

static void put(const void *d, size_t n)
{
	if (fwrite(d, 1, n, out) != n) {
		fprintf(stderr, "pt2perf: %s: %s\n", out_path, strerror(errno));
		exit(1);
	}
}

static void put64(uint64_t v) { put(&v, 8); }
static void put32(uint32_t v) { put(&v, 4); }

static void header(uint32_t type, size_t size)
{
	uint16_t misc = 0, sz = (uint16_t)size;

	put32(type);
	put(&misc, 2);
	put(&sz, 2);
}

/* The sample_id trailer of a sideband record (sample_id_all with
 * SAMPLE_TYPE: pid/tid, time, cpu, identifier). */
static void sample_id(uint32_t cpu, uint64_t time)
{
	put32(1);		/* pid */
	put32(1);		/* tid */
	put64(time);
	put32(cpu);
	put32(0);
	put64(ATTR_ID);
}

static void attr(void)
{
	uint8_t zero[128 - 48] = { 0 };

	put32(PMU_TYPE);
	put32(128);
	put64(CONFIG);
	put64(0);
	put64(SAMPLE_TYPE);
	put64(0);
	put64(1ull << 18);	/* sample_id_all */
	put(zero, sizeof(zero));
}

int main(int argc, char **argv)
{
	static const char cpuid[24] = "GenuineIntel,6,78,3";
	/* AUXTRACE_INFO's private words (perf's intel-pt.c order):
	 * pmu type, time shift/mult/zero, cap_user_time_zero, tsc bit,
	 * noretcomp bit, have_sched_switch, snapshot, per_cpu_mmaps, mtc bit,
	 * mtc freq bits, tsc:ctc n/d, cyc bit, max non-turbo ratio,
	 * filter string length. */
	const uint64_t priv[17] = {
		PMU_TYPE, 10, 600, 0, 1, 0x400, 0x800, 0, 0, 1, 0x200,
		0xfull << 14, 100, 2, 0x2, 12, 0
	};
	uint64_t chunk = 512 * 1024, off, n, hole_off = UINT64_MAX, hole_len = 0;
	uint64_t switches = 0, lost_at = UINT64_MAX, k;
	const char *in_path = NULL;
	unsigned cpu = 0;
	struct stat st;
	uint8_t *map;
	int i, fd;

	out_path = NULL;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--chunk") && i + 1 < argc)
			chunk = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--hole") && i + 1 < argc) {
			char *e;

			hole_off = strtoull(argv[++i], &e, 0);
			if (*e != ':')
				goto usage;
			hole_len = strtoull(e + 1, NULL, 0);
		} else if (!strcmp(argv[i], "--switches") && i + 1 < argc) {
			switches = strtoull(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--lost-at") && i + 1 < argc) {
			lost_at = strtoull(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--cpu") && i + 1 < argc)
			cpu = (unsigned)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out_path = argv[++i];
		else if (argv[i][0] != '-' && !in_path)
			in_path = argv[i];
		else
			goto usage;
	}
	if (!in_path || !out_path || !chunk)
		goto usage;
	fd = open(in_path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "pt2perf: %s: %s\n", in_path, strerror(errno));
		return 1;
	}
	map = st.st_size ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED,
				fd, 0) : NULL;
	if (map == MAP_FAILED) {
		fprintf(stderr, "pt2perf: %s: %s\n", in_path, strerror(errno));
		return 1;
	}
	madvise(map, (size_t)st.st_size, MADV_SEQUENTIAL);
	out = fopen(out_path, "wb");
	if (!out) {
		fprintf(stderr, "pt2perf: %s: %s\n", out_path, strerror(errno));
		return 1;
	}
	put("PERFILE2", 8);
	put64(16);
	header(64, 8 + 128 + 8);		/* HEADER_ATTR */
	attr();
	put64(ATTR_ID);
	header(80, 8 + 8 + 4 + sizeof(cpuid));	/* HEADER_FEATURE */
	put64(9);				/* HEADER_CPUID */
	put32(sizeof(cpuid));
	put(cpuid, sizeof(cpuid));
	header(70, 8 + 8 + sizeof(priv));	/* AUXTRACE_INFO */
	put32(1);				/* PERF_AUXTRACE_INTEL_PT */
	put32(0);
	put(priv, sizeof(priv));
	header(79, 8 + 24);			/* TIME_CONV */
	put64(10);
	put64(600);
	put64(0);
	/* Context switches first: their number, not their place, matters
	 * to whoever draws them. */
	for (k = 0; k < switches; k++) {
		uint16_t misc = k & 1 ? 0x2000 : 0, sz = 8 + 32;	/* SWITCH_OUT */

		put32(14);		/* PERF_RECORD_SWITCH */
		put(&misc, 2);
		put(&sz, 2);
		sample_id(cpu, k + 1);
	}
	for (off = 0; off < (uint64_t)st.st_size; off += n) {
		n = (uint64_t)st.st_size - off;

		if (off >= hole_off && off < hole_off + hole_len) {
			/* left out: the AUX offsets jump over it */
			n = hole_off + hole_len - off;
			continue;
		}
		if (n > chunk)
			n = chunk;
		if (off < hole_off && off + n > hole_off)
			n = hole_off - off;
		header(71, 48);			/* AUXTRACE */
		put64(n);
		put64(off);
		put64(0);			/* reference */
		put32(cpu);			/* idx */
		put32(0);			/* tid */
		put32(cpu);
		put32(0);
		put(map + off, (size_t)n);
	}
	if (lost_at != UINT64_MAX) {
		/* The AUX record of a buffer that overflowed at @lost_at. */
		header(11, 8 + 24 + 32);	/* PERF_RECORD_AUX */
		put64(lost_at > 4096 ? lost_at - 4096 : 0);
		put64(lost_at > 4096 ? 4096 : lost_at);
		put64(1);			/* PERF_AUX_FLAG_TRUNCATED */
		sample_id(cpu, switches + 2);
	}
	if (fclose(out)) {
		fprintf(stderr, "pt2perf: %s: %s\n", out_path, strerror(errno));
		return 1;
	}
	return 0;
usage:
	fprintf(stderr, "usage: pt2perf [--chunk BYTES] [--cpu N] [--hole OFF:LEN]\n"
		"               [--switches N] [--lost-at OFF] RAW -o OUT\n");
	return 2;
}
