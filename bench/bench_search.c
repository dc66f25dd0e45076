/*
 * bench_search -- background search speed against the phase-1 PSB scan of
 * the index, over the same mapping in the same run (warm page cache), and
 * the time until the first hit is certain.
 *
 * Searches, each on all cores, forward from offset 0:
 *   ovf          a rare packet, with the phase-1 index's seek points
 *   ovf (no idx) the same, finding PSBs as it goes
 *   tip IP       an IP that never occurs (prefiltered on its low bytes)
 *   ip RANGE     an IP range that never occurs: decodes every packet
 * With the trace's timing options (ptgen --print-config), after a whole
 * index with the time pass:
 *   gap > 100us, cyc > 100000, tsc > T   time conditions, skipping the
 *                segments the index's summaries rule out (T: nine tenths
 *                into the trace's TSC range)
 * Every measurement maps the file afresh.  The median of --repeat runs is
 * reported.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "image.h"
#include "index.h"
#include "search.h"
#include "tm_config.h"
#include "../tests/helpers.h"

#define MAX_REPEAT 15

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Map @fd afresh into @img (each measurement pays the same page-table
 * cost, as bench_index does).  Returns 0 or -1. */
static int map_img(int fd, size_t size, struct img *img, struct img_span *span)
{
	void *m = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);

	if (m == MAP_FAILED)
		return -1;
	img_init_flat(img, span, m, size);
	return 0;
}

static void unmap_img(struct img *img)
{
	munmap((void *)img->spans[0].data, img->spans[0].size);
}

/* Phase 1 only, all cores.  Returns seconds, or < 0. */
static double run_scan(const struct img *img, struct idx **keep)
{
	struct idx *idx = NULL;
	double t;

	if (idx_new(&idx, img, NULL) < 0)
		return -1;
	idx_set_phase1_only(idx, 1);
	t = now();
	if (idx_build(idx) < 0) {
		idx_free(idx);
		return -1;
	}
	t = now() - t;
	if (keep)
		*keep = idx;
	else
		idx_free(idx);
	return t;
}

/* One search; sets *@first to the seconds until the first hit was certain
 * (< 0 if none) and *@hits to the count.  Returns seconds, or < 0. */
static double run_search(const struct img *img, struct idx *idx,
			 const char *text, const struct tm_config *cfg,
			 double *first, uint64_t *hits)
{
	struct srch_pred *p = NULL;
	struct srch_status st;
	struct srch *s = NULL;
	char err[128];
	double t0, t;

	if (srch_parse(text, &p, err, sizeof(err))) {
		fprintf(stderr, "bench_search: '%s': %s\n", text, err);
		return -1;
	}
	if (cfg && srch_pred_set_config(p, cfg)) {
		srch_pred_free(p);
		return -1;
	}
	*first = -1;
	t0 = now();
	if (srch_start(&s, img, idx, p, 0, 1)) {
		srch_pred_free(p);
		return -1;
	}
	for (;;) {
		srch_status(s, &st);
		if (st.have_first && *first < 0)
			*first = now() - t0;
		if (st.finished)
			break;
		usleep(500);
	}
	t = now() - t0;
	*hits = st.nhits;
	if (st.status)
		t = -1;
	srch_free(s);
	srch_pred_free(p);
	return t;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name, *text;
		int use_idx;
	} q[] = {
		{ "ovf", "ovf", 1 },
		{ "ovf, no index", "ovf", 0 },
		{ "tip IP (absent)", "tip 0xdeadbeef1234", 1 },
		{ "ip RANGE (absent)", "ip 0xffffffff00000000-0xffffffff0fffffff", 1 },
	};
	double scan[MAX_REPEAT], tq[4][MAX_REPEAT], tf[4][MAX_REPEAT];
	uint64_t hits[4] = { 0 };
	int repeat = 3, i, r, fd, timed = 0, rc;
	const char *path = NULL;
	struct tm_config cfg;
	struct img_span span, span0;
	struct img img, img0;
	struct stat st;
	struct idx *idx = NULL;
	double gb, sscan;

	memset(&cfg, 0, sizeof(cfg));
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
			repeat = atoi(argv[++i]);
		else if (i + 1 < argc &&
			 (rc = tm_config_option(&cfg, argv[i], argv[i + 1])) != 0) {
			if (rc < 0)
				return 2;
			timed = 1;
			i++;
		} else
			path = argv[i];
	}
	if (!path || repeat < 1 || repeat > MAX_REPEAT) {
		fprintf(stderr, "usage: bench_search [--repeat 1..%d] [TIMING] TRACE\n",
			MAX_REPEAT);
		return 2;
	}
	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0 || !st.st_size) {
		perror(path);
		return 1;
	}
	gb = (double)st.st_size / 1e9;

	/* The index's seek points are offsets: it serves a search over
	 * another mapping of the same file.  Its own stays mapped. */
	if (map_img(fd, (size_t)st.st_size, &img0, &span0)) {
		perror("mmap");
		return 1;
	}
	for (r = 0; r < repeat; r++) {
		if (r == 0) {
			scan[r] = run_scan(&img0, &idx);
		} else {
			if (map_img(fd, (size_t)st.st_size, &img, &span))
				goto out_fail;
			scan[r] = run_scan(&img, NULL);
			unmap_img(&img);
		}
		if (scan[r] < 0)
			goto out_fail;
		for (i = 0; i < 4; i++) {
			if (map_img(fd, (size_t)st.st_size, &img, &span))
				goto out_fail;
			tq[i][r] = run_search(&img, q[i].use_idx ? idx : NULL,
					      q[i].text, NULL, &tf[i][r], &hits[i]);
			unmap_img(&img);
			if (tq[i][r] < 0)
				goto out_fail;
		}
	}
	sscan = helpers_median(scan, repeat);
	printf("scan    phase-1 PSB scan (all cores)   %7.3f s  %6.2f GB/s  (%zu PSBs)\n",
	       sscan, gb / sscan, idx_nseeks(idx));
	for (i = 0; i < 4; i++) {
		double t = helpers_median(tq[i], repeat), f = helpers_median(tf[i], repeat);

		printf("search  %-22s %7.3f s  %6.2f GB/s  %.2fx the scan (goal >= 0.50)  "
		       "%" PRIu64 " hits, first after %s%.1f ms\n",
		       q[i].name, t, gb / t, sscan / t, hits[i],
		       f < 0 ? "(none) " : "", f < 0 ? 0 : f * 1000);
	}
	idx_free(idx);
	idx = NULL;
	if (timed) {
		/* the third: TSC packets in the last tenth of the trace's time */
		char tsc_q[64] = "tsc > 0";
		const char *tq2[3] = { "gap > 100us", "cyc > 100000", tsc_q };
		double tb, tt[3][MAX_REPEAT], ft[3][MAX_REPEAT];
		uint64_t th[3] = { 0 };
		struct idx_summary tot;

		if (idx_new(&idx, &img0, &cfg) < 0)
			goto out_fail;
		tb = now();
		if (idx_build(idx) < 0)
			goto out_fail;
		tb = now() - tb;
		printf("index   the whole, with the time pass  %7.3f s  %6.2f GB/s\n",
		       tb, gb / tb);
		if (!idx_totals(idx, &tot) && tot.have_tsc && tot.last_tsc > tot.first_tsc)
			snprintf(tsc_q, sizeof(tsc_q), "tsc > %#" PRIx64, tot.first_tsc +
				 (tot.last_tsc - tot.first_tsc) / 10 * 9);
		for (r = 0; r < repeat; r++)
			for (i = 0; i < 3; i++) {
				if (map_img(fd, (size_t)st.st_size, &img, &span))
					goto out_fail;
				tt[i][r] = run_search(&img, idx, tq2[i], &cfg,
						      &ft[i][r], &th[i]);
				unmap_img(&img);
				if (tt[i][r] < 0)
					goto out_fail;
			}
		for (i = 0; i < 3; i++) {
			double t = helpers_median(tt[i], repeat), f = helpers_median(ft[i], repeat);

			printf("search  %-22s %7.3f s  %6.2f GB/s  %.2fx the scan (goal >= 0.50)  "
			       "%" PRIu64 " hits, first after %s%.1f ms\n",
			       i < 2 ? tq2[i] : "tsc > (last tenth)", t, gb / t, sscan / t, th[i],
			       f < 0 ? "(none) " : "", f < 0 ? 0 : f * 1000);
		}
		idx_free(idx);
	}
	return 0;

out_fail:
	fprintf(stderr, "bench_search: a run failed\n");
	idx_free(idx);
	return 1;
}
