/*
 * bench_flow -- instruction flow decoding speed: our flow decoder (as
 * `flow --summary` runs it: every instruction, counted with its branches)
 * against libipt's block decoder (pt_blk_next) and instruction decoder
 * (pt_insn_next) over the same trace and memory, in the same process, one
 * core.
 *
 *   bench_flow [--seconds S] --options FILE TRACE
 *   bench_flow [--seconds S] --raw FILE:ADDR... TRACE
 *   bench_flow --ours [--window|--blocks] [--seconds S|--rounds N] ... TRACE
 *
 * The three decode the whole trace in turn, and ours again as one window
 * of the whole trace (flow_window(): lines, runs and cycles), ordinary and
 * of block lines, round after round, for at least 5 S seconds of CPU time
 * (default S 1); the best round of each gives its instructions per second;
 * prints them, the ratios, and our block cache's hits and misses.  The
 * instruction counts must agree (exit 1 if they do not).  --ours decodes
 * with ours alone (--window: as ordinary windows, --blocks: as block
 * windows), for S seconds or --rounds N decodes, and prints its speed
 * only: a loop to profile with perf or valgrind --tool=callgrind (machine
 * instructions per traced instruction: the difference between N and 1
 * rounds, over N - 1 times the instructions).
 */
#include "../tools/ipt_compat.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "flow.h"
#include "image.h"
#include "memimg.h"

static struct mi *code;

/* CPU time of this thread: the machine may be shared, and other
 * processes' load should not count against any decoder. */
static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int our_read(void *ctx, const struct flow_ctx *c, uint64_t ip,
		    uint8_t *buf, size_t size)
{
	(void)c;
	return mi_read(ctx, MI_ASID_ANY, ip, buf, size);
}

static int ipt_read(uint8_t *buf, size_t size, const struct pt_asid *asid,
		    uint64_t ip, void *ctx)
{
	int n = mi_read(ctx, MI_ASID_ANY, ip, buf, size);

	(void)asid;
	return n < 0 ? -ipt_pte_nomap : n;
}

/* One decode with ours; returns instructions, *@branches. */
static uint64_t run_ours(struct flow *f, uint64_t *branches, struct flow_stats *st)
{
	struct flow_rec r;
	uint64_t n = 0, b = 0;

	flow_seek(f, 0, UINT64_MAX);
	while (!flow_next(f, &r)) {
		if (r.kind != FLOW_INSN)
			continue;
		n++;
		b += r.iclass != FLOW_IC_OTHER;
	}
	*branches = b;
	flow_stats(f, st);
	return n;
}

/* One decode with ours into one window of the whole trace (ordinary, or
 * of block lines if @blocks); returns instructions. */
static uint64_t run_win(struct flow *f, struct flow_window *w, int blocks)
{
	struct flow_wopts o = { .blocks = blocks };
	uint64_t n = 0;
	size_t i;

	if (flow_window(f, 0, UINT64_MAX, &o, w))
		return 0;
	for (i = 0; i < w->nlines; i++)
		n += w->lines[i].ninsns;
	return n;
}

static uint64_t run_blk(const uint8_t *buf, size_t len)
{
	struct pt_config cfg;
	struct pt_block_decoder *d;
	uint64_t n = 0;
	int st;

	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + len;
	d = pt_blk_alloc_decoder(&cfg);
	if (!d)
		return 0;
	pt_image_set_callback(pt_blk_get_image(d), ipt_read, code);
	for (;;) {
		st = pt_blk_sync_forward(d);
		if (st < 0)
			break;
		for (;;) {
			struct pt_block b;

			while (st >= 0 && (st & pts_event_pending)) {
				struct pt_event ev;

				st = pt_blk_event(d, &ev, sizeof(ev));
			}
			if (st < 0 || (st & pts_eos))
				break;
			st = pt_blk_next(d, &b, sizeof(b));
			n += b.ninsn;
			if (st < 0)
				break;
		}
		if (st == -ipt_pte_eos || (st >= 0 && (st & pts_eos)))
			break;
	}
	pt_blk_free_decoder(d);
	return n;
}

static uint64_t run_insn(const uint8_t *buf, size_t len)
{
	struct pt_config cfg;
	struct pt_insn_decoder *d;
	uint64_t n = 0;
	int st;

	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + len;
	d = pt_insn_alloc_decoder(&cfg);
	if (!d)
		return 0;
	pt_image_set_callback(pt_insn_get_image(d), ipt_read, code);
	for (;;) {
		st = pt_insn_sync_forward(d);
		if (st < 0)
			break;
		for (;;) {
			struct pt_insn in;

			while (st >= 0 && (st & pts_event_pending)) {
				struct pt_event ev;

				st = pt_insn_event(d, &ev, sizeof(ev));
			}
			if (st < 0 || (st & pts_eos))
				break;
			memset(&in, 0, sizeof(in));
			st = pt_insn_next(d, &in, sizeof(in));
			if (st < 0) {
				if (in.iclass != ptic_error)
					n++;
				break;
			}
			n++;
		}
		if (st == -ipt_pte_eos || (st >= 0 && (st & pts_eos)))
			break;
	}
	pt_insn_free_decoder(d);
	return n;
}

static int load_options(const char *file)
{
	char line[4096], spec[8192], err[512];
	const char *slash = strrchr(file, '/');
	FILE *f = fopen(file, "r");

	if (!f) {
		fprintf(stderr, "bench_flow: %s: %s\n", file, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = 0;
		if (strncmp(line, "--raw ", 6))
			continue;
		snprintf(spec, sizeof(spec), "%.*s/%s", slash ? (int)(slash - file) : 1,
			 slash ? file : ".", line + 6);
		if (mi_add_raw(code, spec, err, sizeof(err)) < 0) {
			fprintf(stderr, "bench_flow: %s\n", err);
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	const char *trace = NULL;
	double seconds = 1, t0, t_ours, t_blk, t_insn, t_win, t_bwin;
	uint64_t n_ours = 0, n_blk = 0, n_insn = 0, n_win = 0, n_bwin = 0, br = 0, k = 0;
	unsigned r_ours = 0;
	int ours_only = 0, win = -1, rounds = 0;
	struct flow_window w = { 0 };
	struct flow_config cfg;
	struct flow_stats st;
	struct img img;
	struct img_span span;
	struct rusage ru;
	struct flow *f;
	uint8_t *buf;
	char err[512];
	size_t len;
	FILE *fp;
	long sz;
	int i;

	if (mi_new(&code))
		return 1;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--ours")) {
			ours_only = 1;
		} else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) {
			rounds = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--window")) {
			win = 0;
		} else if (!strcmp(argv[i], "--blocks")) {
			win = 1;
		} else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) {
			seconds = atof(argv[++i]);
		} else if (!strcmp(argv[i], "--options") && i + 1 < argc) {
			if (load_options(argv[++i]))
				return 1;
		} else if (!strcmp(argv[i], "--raw") && i + 1 < argc) {
			if (mi_add_raw(code, argv[++i], err, sizeof(err)) < 0) {
				fprintf(stderr, "bench_flow: %s\n", err);
				return 1;
			}
		} else {
			trace = argv[i];
		}
	}
	if (!trace) {
		fprintf(stderr, "usage: bench_flow [--ours [--window|--blocks]] [--seconds S] "
			"[--rounds N] [--options FILE] [--raw FILE:ADDR]... TRACE\n");
		return 2;
	}
	fp = fopen(trace, "rb");
	if (!fp) {
		fprintf(stderr, "bench_flow: %s: %s\n", trace, strerror(errno));
		return 1;
	}
	fseek(fp, 0, SEEK_END);
	sz = ftell(fp);
	fseek(fp, 0, SEEK_SET);
	buf = malloc((size_t)sz + 1);
	if (!buf || fread(buf, 1, (size_t)sz, fp) != (size_t)sz)
		return 1;
	fclose(fp);
	len = (size_t)sz;
	img_init_flat(&img, &span, buf, len);
	memset(&cfg, 0, sizeof(cfg));
	cfg.img = &img;
	cfg.read = our_read;
	cfg.read_ctx = code;
	if (flow_new(&f, &cfg))
		return 1;

	if (ours_only) {
		t_ours = 1e30;
		t0 = now();
		while (rounds ? r_ours < (unsigned)rounds : now() - t0 < seconds || r_ours < 3) {
			double a = now();

			k = win < 0 ? run_ours(f, &br, &st) : run_win(f, &w, win);
			if (now() - a < t_ours)
				t_ours = now() - a;
			r_ours++;
		}
		printf("%s: %" PRIu64 " instructions, %s %.1f M insn/s "
		       "(best of %u decodes)\n", trace, k, win < 0 ? "flow (ours)" :
		       win ? "block windows" : "windows", (double)k / t_ours / 1e6, r_ours);
		flow_window_free(&w);
		flow_free(f);
		mi_free(code);
		free(buf);
		return 0;
	}

	/* Rounds of one decode each, interleaved, so that a change in the
	 * machine's load hits all three alike; the best decode of each counts. */
	t_ours = t_blk = t_insn = t_win = t_bwin = 1e30;
	t0 = now();
	while (now() - t0 < 5 * seconds || r_ours < 3) {
		double a = now(), b, c, d, e, g;

		k = run_ours(f, &br, &st);
		b = now();
		n_blk = run_blk(buf, len);
		c = now();
		n_insn = run_insn(buf, len);
		d = now();
		n_win = run_win(f, &w, 0);
		e = now();
		n_bwin = run_win(f, &w, 1);
		g = now();
		if (e - d < t_win)
			t_win = e - d;
		if (g - e < t_bwin)
			t_bwin = g - e;
		if (b - a < t_ours)
			t_ours = b - a;
		if (c - b < t_blk)
			t_blk = c - b;
		if (d - c < t_insn)
			t_insn = d - c;
		r_ours++;
	}
	n_ours = k;

	printf("%s: %" PRIu64 " instructions (%" PRIu64 " branches) per decode\n",
	       trace, k, br);
	printf("  flow (ours)      %8.1f M insn/s  (best of %u decodes, CPU time)\n",
	       (double)n_ours / t_ours / 1e6, r_ours);
	printf("  flow_window      %8.1f M insn/s  (the code view's: a line per instruction,"
	       " runs and cycles)\n", (double)n_win / t_win / 1e6);
	printf("  block window     %8.1f M insn/s  (a line per block: flow_wopts.blocks)\n",
	       (double)n_bwin / t_bwin / 1e6);
	printf("  libipt pt_blk    %8.1f M insn/s\n", (double)n_blk / t_blk / 1e6);
	printf("  libipt pt_insn   %8.1f M insn/s\n", (double)n_insn / t_insn / 1e6);
	printf("  ours / pt_blk  %.2fx   ours / pt_insn  %.2fx\n",
	       ((double)n_ours / t_ours) / ((double)n_blk / t_blk),
	       ((double)n_ours / t_ours) / ((double)n_insn / t_insn));
	printf("  block cache: %" PRIu64 " hits, %" PRIu64 " misses over all decodes\n",
	       st.cache_hits, st.cache_misses);
	getrusage(RUSAGE_SELF, &ru);
	printf("  max RSS %ld KiB\n", ru.ru_maxrss);
	flow_window_free(&w);
	flow_free(f);
	mi_free(code);
	free(buf);
	if (n_blk != k || n_insn != k || n_win != k || n_bwin != k) {
		printf("  instruction counts differ: ours %" PRIu64 ", pt_blk %" PRIu64
		       ", pt_insn %" PRIu64 ", windows %" PRIu64 ", block windows %"
		       PRIu64 "\n", k, n_blk, n_insn, n_win, n_bwin);
		return 1;
	}
	return 0;
}
