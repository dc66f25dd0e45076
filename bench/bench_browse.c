/*
 * bench_browse -- the baselines for b_browse.sh, measured on the same file
 * in the same run: what the cheapest possible browser would pay.
 *
 *   open     open + mmap + read the first 64 KiB + munmap + close
 *            (the floor under "time to first screen")
 *   touch    read one byte per page of 64 KiB at a random offset of the
 *            mapping (the floor under a jump: the page-cache cost)
 *   decode   pkt_next over 64 KiB from the PSB after a random offset (what
 *            decoding one window costs, without the UI)
 *
 * Prints a titled line per figure and "result NAME-median-ms X" lines.
 */
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

#define WINDOW (64u << 10)
#define ROUNDS 200

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void report(const char *name, double *t, size_t n)
{
	qsort(t, n, sizeof(*t), cmp);
	printf("baseline %-8s median %7.3f ms  p99 %7.3f ms  (%zu runs)\n"
	       "result baseline-%s-median-ms %.3f\nresult baseline-%s-p99-ms %.3f\n",
	       name, t[n / 2] * 1e3, t[n * 99 / 100] * 1e3, n, name, t[n / 2] * 1e3,
	       name, t[n * 99 / 100] * 1e3);
}

/* A small deterministic generator, so runs are comparable. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

int main(int argc, char **argv)
{
	static double t[ROUNDS];
	volatile uint8_t sink = 0;
	uint64_t seed = 88172645463325252ull;
	const uint8_t *map;
	struct stat st;
	size_t size, i, j;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: bench_browse TRACE\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size < (off_t)(2 * WINDOW)) {
		fprintf(stderr, "bench_browse: %s: %s\n", argv[1],
			fd < 0 ? strerror(errno) : "too small");
		return 1;
	}
	size = (size_t)st.st_size;
	close(fd);

	for (i = 0; i < 20; i++) {
		double t0 = now();
		const uint8_t *m;

		fd = open(argv[1], O_RDONLY);
		m = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED)
			return 1;
		for (j = 0; j < WINDOW; j += 4096)
			sink ^= m[j];
		munmap((void *)m, size);
		close(fd);
		t[i] = now() - t0;
	}
	report("open", t, 20);

	fd = open(argv[1], O_RDONLY);
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return 1;
	for (i = 0; i < ROUNDS; i++) {
		size_t off = (size_t)(rnd(&seed) % (size - WINDOW));
		double t0 = now();

		for (j = 0; j < WINDOW; j += 4096)
			sink ^= map[off + j];
		t[i] = now() - t0;
	}
	report("touch", t, ROUNDS);

	for (i = 0; i < ROUNDS; i++) {
		size_t off = (size_t)(rnd(&seed) % (size - 2 * WINDOW));
		const uint8_t *p, *end = map + off + 2 * WINDOW;
		struct pkt_decoder dec;
		struct pkt pkt;
		double t0 = now();

		p = pkt_find_psb(map + off, end);
		if (p && !pkt_decoder_init(&dec, p, p + WINDOW, (uint64_t)(p - map)))
			while (pkt_next(&dec, &pkt) > 0)
				sink ^= pkt.type;
		t[i] = now() - t0;
	}
	report("decode", t, ROUNDS);
	munmap((void *)map, size);
	(void)sink;
	return 0;
}
