/*
 * bench_index -- indexing speed against its baselines, in the same run:
 * a plain memmem() PSB scan (phase 1's yardstick) and libipt's
 * pt_pkt_next loop (phase 1 + 2's yardstick), all over a mapping of the
 * same file with a warm page cache.
 *
 * Every measurement maps the file afresh, so each pays the same page-table
 * cost.  Phase 1 and phase 1 + 2 run as `ptbrowse index` runs them: all
 * cores, pages dropped from the page tables behind the scan.  libipt runs
 * over the first --libipt-bytes of the file (default 1 GiB; its speed does
 * not depend on the length).  The median of --repeat runs is reported.
 * With the trace's timing options (ptgen --print-config), the whole index
 * with the time pass (phases 1 + 2 + 3) is measured too.
 */
#include "../tools/ipt_compat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "index.h"
#include "tm_config.h"
#include "../tests/helpers.h"

#define MAX_REPEAT 15

static const uint8_t psb[16] = {
	2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU seconds used by the process so far (all threads). */
static double cpu(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}

static double cpu_mm, cpu_1, cpu_12, cpu_123, cpu_ipt;	/* of the last run */
static struct tm_config tcfg;	/* the timing options given */

static const uint8_t *map_file(int fd, size_t size)
{
	void *m = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);

	return m == MAP_FAILED ? NULL : m;
}

static void drop(void *ctx, const uint8_t *p, size_t n)
{
	uintptr_t pg = 4096, a = ((uintptr_t)p + pg - 1) & ~(pg - 1);
	uintptr_t b = ((uintptr_t)p + n) & ~(pg - 1);

	(void)ctx;
	if (b > a)
		madvise((void *)a, b - a, MADV_DONTNEED);
}

static double run_memmem(int fd, size_t size, size_t *count)
{
	const uint8_t *m = map_file(fd, size), *p, *end;
	size_t n = 0;
	double t0;

	if (!m)
		return -1;
	cpu_mm = cpu();
	t0 = now();
	p = m;
	end = m + size;
	while ((p = memmem(p, (size_t)(end - p), psb, sizeof(psb)))) {
		n++;
		p += sizeof(psb);
	}
	t0 = now() - t0;
	cpu_mm = cpu() - cpu_mm;
	munmap((void *)m, size);
	*count = n;
	return t0;
}

static double run_index(int fd, size_t size, int phase1_only, int timed,
			size_t *count, uint64_t *packets)
{
	const uint8_t *m = map_file(fd, size);
	struct img_span sp;
	struct img img;
	struct idx *idx;
	struct idx_summary s;
	double t0, c0;
	int ret;

	if (!m)
		return -1;
	img_init_flat(&img, &sp, m, size);
	if (idx_new(&idx, &img, timed ? &tcfg : NULL) < 0)
		return -1;
	idx_set_phase1_only(idx, phase1_only);
	idx_set_time_pass(idx, timed);	/* phases 1 and 2 only, or all */
	idx_set_release(idx, drop, NULL);
	/* The same advice (none) as the memmem run: a fair comparison. */
	c0 = cpu();
	t0 = now();
	ret = idx_build(idx);
	t0 = now() - t0;
	*(phase1_only ? &cpu_1 : timed ? &cpu_123 : &cpu_12) = cpu() - c0;
	*count = idx_nseeks(idx);
	idx_totals(idx, &s);
	*packets = s.npackets;
	idx_free(idx);
	munmap((void *)m, size);
	return ret < 0 ? -1 : t0;
}

static double run_libipt(int fd, size_t size, unsigned long long *packets)
{
	const uint8_t *m = map_file(fd, size);
	struct pt_config cfg;
	struct pt_packet_decoder *dec;
	struct pt_packet pkt;
	unsigned long long n = 0;
	double t0;
	int err;

	if (!m)
		return -1;
	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)m;
	cfg.end = (uint8_t *)m + size;
	dec = pt_pkt_alloc_decoder(&cfg);
	if (!dec)
		return -1;
	cpu_ipt = cpu();
	t0 = now();
	err = pt_pkt_sync_forward(dec);
	while (err >= 0) {
		while ((err = pt_pkt_next(dec, &pkt, sizeof(pkt))) >= 0)
			n++;
		if (err == -ipt_pte_eos)
			break;
		err = pt_pkt_sync_forward(dec);
	}
	t0 = now() - t0;
	cpu_ipt = cpu() - cpu_ipt;
	pt_pkt_free_decoder(dec);
	munmap((void *)m, size);
	*packets = n;
	return t0;
}

int main(int argc, char **argv)
{
	double tm[MAX_REPEAT], t1[MAX_REPEAT], t2[MAX_REPEAT], t3[MAX_REPEAT];
	double ti, mm, p1, p12, p123 = 0, lib;
	unsigned long long ipkts = 0;
	size_t size, lib_bytes = (size_t)1 << 30, nm = 0, n1 = 0, n2 = 0;
	uint64_t pk1, pk2 = 0;
	const char *path = NULL;
	struct stat st;
	int repeat = 3, i, fd, timed = 0, r;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
			repeat = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--libipt-bytes") && i + 1 < argc)
			lib_bytes = (size_t)strtoull(argv[++i], NULL, 0);
		else if (argv[i][0] != '-' && !path)
			path = argv[i];
		else if (i + 1 < argc &&
			 (r = tm_config_option(&tcfg, argv[i], argv[i + 1])) != 0) {
			if (r < 0) {
				fprintf(stderr, "bench_index: bad %s %s\n", argv[i],
					argv[i + 1]);
				return 2;
			}
			timed = 1;
			i++;
		} else {
			fprintf(stderr, "usage: bench_index [--repeat N] "
				"[--libipt-bytes N] [TIMING] FILE\n");
			return 2;
		}
	}
	if (!path || repeat < 1 || repeat > MAX_REPEAT) {
		fprintf(stderr, "usage: bench_index [--repeat 1..%d] "
			"[--libipt-bytes N] [TIMING] FILE\n", MAX_REPEAT);
		return 2;
	}
	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0 || !st.st_size) {
		fprintf(stderr, "bench_index: %s: %s\n", path,
			fd < 0 ? strerror(errno) : "empty or unreadable");
		return 1;
	}
	size = (size_t)st.st_size;
	if (lib_bytes > size)
		lib_bytes = size;
	for (i = 0; i < repeat; i++) {
		tm[i] = run_memmem(fd, size, &nm);
		t1[i] = run_index(fd, size, 1, 0, &n1, &pk1);
		t2[i] = run_index(fd, size, 0, 0, &n2, &pk2);
		t3[i] = timed ? run_index(fd, size, 0, 1, &n2, &pk2) : 0;
		if (tm[i] < 0 || t1[i] < 0 || t2[i] < 0 || t3[i] < 0) {
			fprintf(stderr, "bench_index: a run failed\n");
			return 1;
		}
	}
	ti = run_libipt(fd, lib_bytes, &ipkts);
	mm = (double)size / helpers_median(tm, repeat) / 1e9;
	p1 = (double)size / helpers_median(t1, repeat) / 1e9;
	p12 = (double)size / helpers_median(t2, repeat) / 1e9;
	if (timed)
		p123 = (double)size / helpers_median(t3, repeat) / 1e9;
	lib = (double)lib_bytes / ti / 1e9;
	printf("file    %s, %.1f MiB, %zu PSBs (memmem %zu, phase 1 %zu)\n", path,
	       (double)size / (1 << 20), n2, nm, n1);
	printf("packets %llu\n", (unsigned long long)pk2);
	printf("memmem  PSB scan, 1 thread     %7.2f GB/s  (median of %d)\n", mm, repeat);
	printf("phase 1 PSB scan + PSB+        %7.2f GB/s  %5.0f%% of memmem (goal >= 80%%)\n",
	       p1, 100 * p1 / mm);
	printf("phase 1+2 with summaries       %7.2f GB/s  (%.2f s)\n", p12,
	       helpers_median(t2, repeat));
	printf("libipt  pt_pkt_next loop       %7.3f GB/s  (first %.0f MiB)\n",
	       (double)lib_bytes / ti / 1e9, (double)lib_bytes / (1 << 20));
	printf("ratio   phase 1+2 / libipt     %7.1fx  (goal >= 10x)\n",
	       p12 / lib);
	if (timed) {
		printf("phase 1+2+3 with the time pass %7.2f GB/s  (%.2f s)\n", p123,
		       helpers_median(t3, repeat));
		printf("ratio   phase 1+2+3 / libipt   %7.1fx  (goal >= 5x)\n",
		       p123 / lib);
	}
	/* CPU time does not depend on what else the machine runs. */
	printf("cpu     GB per CPU-second (last run): memmem %.2f, phase 1 %.2f, "
	       "phase 1+2 %.2f, libipt %.3f\n",
	       (double)size / cpu_mm / 1e9, (double)size / cpu_1 / 1e9,
	       (double)size / cpu_12 / 1e9, (double)lib_bytes / cpu_ipt / 1e9);
	printf("cpu     phase 1+2 / libipt per CPU-second %.1fx; with 2 cores "
	       "at most %.1fx\n",
	       ((double)size / cpu_12) / ((double)lib_bytes / cpu_ipt),
	       2 * ((double)size / cpu_12) / ((double)lib_bytes / cpu_ipt));
	if (timed)
		printf("cpu     phase 1+2+3 %.3f GB per CPU-second, / libipt %.1fx; "
		       "with 2 cores at most %.1fx\n", (double)size / cpu_123 / 1e9,
		       ((double)size / cpu_123) / ((double)lib_bytes / cpu_ipt),
		       2 * ((double)size / cpu_123) / ((double)lib_bytes / cpu_ipt));
	printf("result memmem_gbps %.3f\nresult phase1_gbps %.3f\n"
	       "result phase12_gbps %.3f\nresult libipt_gbps %.3f\n",
	       mm, p1, p12, lib);
	if (timed)
		printf("result phase123_gbps %.3f\n", p123);
	if (nm != n1 || n1 != n2)
		printf("warning: the PSB counts disagree (memmem counts "
		       "overlapping runs differently)\n");
	close(fd);
	return 0;
}
