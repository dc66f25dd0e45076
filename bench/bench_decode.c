/*
 * bench_decode -- packet decoding speed: libipt's pt_pkt_next loop against
 * our pkt_next loop over the same mapped file, in the same run.
 *
 * The file is mapped and read once before timing, so both loops see a
 * warm page cache.  Each loop runs --repeat times (default 3); the median
 * is reported.  Output is a titled block for bench/run.sh plus one
 * machine-readable line per figure ("result NAME MB/s").
 */
#include "../tools/ipt_compat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pkt.h"

#define MAX_REPEAT 15

struct run {
	double secs;
	unsigned long long packets, errors;
};

static double now(void)
{
	struct timespec ts;

	/* CPU time of this process: both loops are single-threaded, and the
	 * machine may be busy with other work, which wall time would count. */
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* libipt: sync to the first PSB, decode to the end, resync after errors. */
static int run_libipt(const uint8_t *map, size_t size, struct run *out)
{
	struct pt_config cfg;
	struct pt_packet_decoder *dec;
	struct pt_packet pkt;
	unsigned long long n = 0, errs = 0;
	double t0;
	int err;

	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)map;
	cfg.end = (uint8_t *)map + size;
	dec = pt_pkt_alloc_decoder(&cfg);
	if (!dec)
		return -1;
	t0 = now();
	err = pt_pkt_sync_forward(dec);
	while (err >= 0) {
		while ((err = pt_pkt_next(dec, &pkt, sizeof(pkt))) >= 0)
			n++;
		if (err == -ipt_pte_eos)
			break;
		errs++;
		err = pt_pkt_sync_forward(dec);
	}
	out->secs = now() - t0;
	out->packets = n;
	out->errors = errs;
	pt_pkt_free_decoder(dec);
	return 0;
}

/* Ours, the same way. */
static int run_ours(const uint8_t *map, size_t size, struct run *out)
{
	struct pkt_decoder dec;
	struct pkt pkt;
	const uint8_t *first;
	unsigned long long n = 0, errs = 0;
	double t0;
	int err;

	if (pkt_decoder_init(&dec, map, map + size, 0))
		return -1;
	t0 = now();
	/* pkt_sync_forward() would skip a PSB right at the start */
	first = pkt_find_psb(map, map + size);
	err = first ? pkt_sync_set(&dec, (uint64_t)(first - map)) : -pte_nosync;
	while (err >= 0) {
		while ((err = pkt_next(&dec, &pkt)) > 0)
			n++;
		if (err == -pte_eos)
			break;
		errs++;
		err = pkt_sync_forward(&dec);
	}
	out->secs = now() - t0;
	out->packets = n;
	out->errors = errs;
	return 0;
}

static int cmp_run(const void *a, const void *b)
{
	double x = ((const struct run *)a)->secs, y = ((const struct run *)b)->secs;

	return x < y ? -1 : x > y;
}

/* The median of @n runs (sorted in place). */
static struct run median(struct run *r, int n)
{
	qsort(r, (size_t)n, sizeof(*r), cmp_run);
	return r[n / 2];
}

static double mbps(size_t size, const struct run *r)
{
	return r->secs > 0 ? (double)size / r->secs / 1e6 : 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: bench_decode [--repeat N] FILE\n"
		   "Time libipt's and our packet decoder over FILE (a raw "
		   "Intel PT trace).\n");
}

int main(int argc, char **argv)
{
	struct run lr[MAX_REPEAT], or[MAX_REPEAT], lm, om;
	const char *path = NULL;
	volatile uint8_t sink = 0;
	int repeat = 3, i, fd, ret = 1;
	struct stat st;
	uint8_t *map;
	size_t size, k;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--repeat") && i + 1 < argc) {
			repeat = atoi(argv[++i]);
			if (repeat < 1 || repeat > MAX_REPEAT) {
				fprintf(stderr, "bench_decode: --repeat 1..%d\n",
					MAX_REPEAT);
				return 2;
			}
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if (!path && argv[i][0] != '-') {
			path = argv[i];
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (!path) {
		usage(stderr);
		return 2;
	}
	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "bench_decode: %s: %s\n", path, strerror(errno));
		return 1;
	}
	size = (size_t)st.st_size;
	if (!size) {
		fprintf(stderr, "bench_decode: %s: empty file\n", path);
		goto out_close;
	}
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		fprintf(stderr, "bench_decode: %s: mmap: %s\n", path,
			strerror(errno));
		goto out_close;
	}
	/* warm the page cache and the page tables: touch every page */
	for (k = 0; k < size; k += 4096)
		sink ^= map[k];

	for (i = 0; i < repeat; i++) {
		if (run_libipt(map, size, &lr[i]) || run_ours(map, size, &or[i])) {
			fprintf(stderr, "bench_decode: cannot set up a decoder\n");
			goto out_unmap;
		}
	}
	lm = median(lr, repeat);
	om = median(or, repeat);
	printf("file    %s, %.1f MiB\n", path, (double)size / (1 << 20));
	printf("packets libipt %llu (%llu errors), ours %llu (%llu errors)\n",
	       lm.packets, lm.errors, om.packets, om.errors);
	printf("libipt  pt_pkt_next loop  %9.1f MB/s  (median of %d)\n",
	       mbps(size, &lm), repeat);
	printf("ours    pkt_next loop     %9.1f MB/s  (median of %d)\n",
	       mbps(size, &om), repeat);
	printf("ratio   ours/libipt       %9.2fx  (goal >= 5x)\n",
	       mbps(size, &lm) > 0 ? mbps(size, &om) / mbps(size, &lm) : 0);
	printf("result libipt_mbps %.1f\nresult ours_mbps %.1f\n",
	       mbps(size, &lm), mbps(size, &om));
	if (lm.packets != om.packets)
		printf("warning: the decoders disagree on the packet count\n");
	ret = 0;
out_unmap:
	munmap(map, size);
out_close:
	close(fd);
	return ret;
}
