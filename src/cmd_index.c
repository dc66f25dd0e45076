/* cmd_index -- `ptbrowse index TRACE`: build or validate the index, sum it up.
 * With --pid, --tid or --comm the summary is of that task's stretches
 * (ctx.h's ranges, as dump keeps them): their packets counted again by a
 * walk of the ranges; the index itself is the whole stream's. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmds.h"
#include "ctx.h"
#include "esc.h"
#include "export.h"
#include "json.h"
#include "opt.h"
#include "identity.h"
#include "idxcache.h"
#include "index.h"
#include "perfdata.h"
#include "safefile.h"
#include "timing_opt.h"
#include "trace.h"

static struct idx *volatile cur_idx;
static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	struct idx *idx = cur_idx;

	(void)sig;
	interrupted = 1;
	if (idx)
		idx_cancel(idx);
}

/* SIGXFSZ: caught, so that a cache write past the file size limit fails
 * with EFBIG (the index is then not cached, and the summary is printed)
 * instead of killing the command half way (as ui/term.c's browser). */
static void on_sigxfsz(int sig)
{
	(void)sig;
}

/* SIGTERM, SIGHUP (and SIGINT outside the indexing, which on_sigint()
 * stops) remove the cache file being written before the command dies;
 * the file size limit is an error. */
static void index_signals(void)
{
	struct sigaction sa;

	safefile_remove_on_signals();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigxfsz;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGXFSZ, &sa, NULL);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* More worker threads than this is a typo, not a machine. */
#define INDEX_MAX_THREADS 1024

/* --threads N: decimal digits only, 1 to INDEX_MAX_THREADS.
 * Returns 0 and sets *@n, or -1 if @s is anything else. */
static int parse_threads(const char *s, unsigned *n)
{
	unsigned long v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (unsigned long)(*s - '0');
		if (v > INDEX_MAX_THREADS)
			return -1;
	}
	if (!v)
		return -1;
	*n = (unsigned)v;
	return 0;
}

enum { N_JSON, N_NO_CACHE, N_TIME, N_STREAM, N_THREADS, N_PID, N_TID, N_COMM,
       N_CACHE_MAX, N_CLEAR_CACHE };

static const struct opt index_opts[] = {
	{ "json", 0, NULL, "print the summary as JSON", N_JSON },
	{ "no-cache", 0, NULL, "neither read nor write the index cache", N_NO_CACHE },
	{ "time", 0, NULL, "also run the time pass (the time model's state\n"
	  "every 16 PSBs, for the browser; slower)", N_TIME },
	{ "stream", 0, "S", "only stream S (index, name or cpuN)", N_STREAM },
	{ "threads", 0, "N", "worker threads (default: one per CPU)", N_THREADS },
	{ "pid", 0, "N", "sum up only the stretches of process N (perf.data\n"
	  "sideband)", N_PID },
	{ "tid", 0, "N", "only those of thread N", N_TID },
	{ "comm", 0, "NAME", "only those of tasks named NAME", N_COMM },
	{ "cache-max", 0, "SIZE", "the index cache's size limit (default 2GiB, 0:\n"
	  "none); the least recently used files go", N_CACHE_MAX },
	{ "clear-cache", 0, NULL, "empty the index cache first (TRACE may be left\n"
	  "out)", N_CLEAR_CACHE },
	{ 0 }
};

/* What index's options set. */
struct index_args {
	int json, use_cache, time_pass, clear_cache;
	const char *traced;	/* an option given that needs a TRACE */
	const char *stream;
	unsigned threads;
	struct ctx_filter filter;	/* --pid, --tid, --comm */
};

static int index_take(const struct opt_cmd *cmd, void *ctx, const struct opt *o,
		      const char *val)
{
	struct index_args *a = ctx;

	/* (--clear-cache with no TRACE: these mean nothing) */
	if (o->id != N_CLEAR_CACHE && !a->traced)
		a->traced = o->name;
	switch (o->id) {
	case N_JSON: a->json = 1; break;
	case N_NO_CACHE: a->use_cache = 0; break;
	case N_TIME: a->time_pass = 1; break;
	case N_STREAM: a->stream = val; break;
	case N_CLEAR_CACHE: a->clear_cache = 1; break;
	case N_CACHE_MAX: {
		uint64_t max;

		if (idxcache_parse_size(val, &max) < 0) {
			opt_error(cmd, "--cache-max: bad argument: %s (a size such as "
				  "2GiB or 500MB; 0: no limit)", val);
			return -ERANGE;
		}
		idxcache_set_max(max);
		break;
	}
	case N_PID:
	case N_TID:
	case N_COMM:
		/* opt.c says a bad number */
		return ctx_filter_set(&a->filter, o->id == N_PID ? "--pid" :
				      o->id == N_TID ? "--tid" : "--comm", val) ? -EINVAL : 0;
	default:
		if (parse_threads(val, &a->threads) < 0) {
			opt_error(cmd, "--threads: bad argument: %s (a number from 1 "
				  "to %u)", val, INDEX_MAX_THREADS);
			return -ERANGE;
		}
		break;
	}
	return 0;
}

/* "1.5 GiB"-style sizes for the progress line. */
static void human(char *buf, size_t n, double v)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	snprintf(buf, n, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
}

static int finished(struct idx *idx)
{
	struct idx_progress p;

	idx_progress(idx, &p);
	return p.finished;
}

static void show_progress(struct idx *idx, const char *name)
{
	struct idx_progress p;
	char done[32], total[32], rate[32];

	idx_progress(idx, &p);
	human(done, sizeof(done), (double)p.done);
	human(total, sizeof(total), (double)p.total);
	human(rate, sizeof(rate), p.rate);
	fprintf(stderr, "\r\033[K%s: %s %s / %s  %s/s  %zu PSBs", name,
		p.phase == IDX_TIME ? "timing" :
		p.phase == IDX_SEGMENTS ? "summarising" : "scanning", done, total,
		rate, p.nseeks);
	if (p.eta >= 0)
		fprintf(stderr, "  ETA %.0fs", p.eta);
	fflush(stderr);
}

struct stream_result {
	const char *name;
	const char *cache;	/* "hit", "grown", "built", "off" */
	const char *end_loss;	/* why data after the end is lost, or NULL */
	int stream;		/* its index */
	size_t nseeks;
	struct idx_summary tot;
	int status;
	int restricted;		/* --pid/--tid/--comm: tot is the ranges' */
	size_t nranges;		/* the stretches kept */
	size_t all_seeks;	/* the stream's PSBs (nseeks: the ranges') */
	uint64_t kept;		/* and their bytes */
	int halted;		/* --time: the sleeps' halted time (below) */
	int end_est;		/* tot.last_tsc is the time model's estimate
				 * at the end, not a TSC packet's */
	uint64_t nhalt, halt_lo, halt_hi;
};

static void print_text(const struct trace *t, const struct stream_result *r,
		       size_t nr, double secs)
{
	const struct perfdata_info *in = perfdata_info(t);
	char e[4 * PATH_MAX];
	size_t i;
	int c;

	printf("trace:    %s\n", esc_str(e, sizeof(e), t->path));
	printf("size:     %" PRIu64 " bytes\n", t->size);
	if (in && in->nwarnings)
		printf("warnings: %u; first: %s\n", in->nwarnings,
		       esc_str(e, sizeof(e), in->warning));
	for (i = 0; i < nr; i++) {
		const struct idx_summary *s = &r[i].tot;

		printf("stream:   %s (%" PRIu64 " bytes, index %s)\n", r[i].name,
		       s->size, r[i].cache);
		if (r[i].restricted)
			printf("  task:     %zu stretches, %" PRIu64 " bytes (the "
			       "counts below are theirs)\n", r[i].nranges, r[i].kept);
		printf("  psbs:     %zu\n", r[i].nseeks);
		printf("  segments: %zu\n", r[i].nseeks);
		printf("  packets:  %" PRIu64 "\n", s->npackets);
		for (c = 0; c < PKC_NCLASSES; c++)
			printf("    %-8s %" PRIu64 "\n", pkt_class_name((enum pkt_class)c),
			       s->per_class[c]);
		if (s->have_tsc)
			printf("  tsc:      %" PRIu64 " .. %s%" PRIu64 " (%" PRIu64 " ticks%s)\n",
			       s->first_tsc, r[i].end_est ? "~" : "", s->last_tsc,
			       s->last_tsc - s->first_tsc, r[i].end_est ?
			       "; the end is the time model's estimate" : "");
		else
			printf("  tsc:      none\n");
		printf("  cycles:   %" PRIu64 "\n", s->cycles);
		printf("  ovf:      %" PRIu32 "\n", s->novf);
		printf("  errors:   %" PRIu32 "\n", s->nerrors);
		printf("  gaps:     %" PRIu32 "\n", s->ngaps);
		if (r[i].halted && r[i].halt_lo == r[i].halt_hi)
			printf("  halted:   %" PRIu64 " ticks in %" PRIu64 " sleeps\n",
			       r[i].halt_lo, r[i].nhalt);
		else if (r[i].halted)
			printf("  halted:   %" PRIu64 " .. %" PRIu64 " ticks in %" PRIu64
			       " sleeps\n", r[i].halt_lo, r[i].halt_hi, r[i].nhalt);
		if (r[i].end_loss)
			printf("  lost:     data lost at the end: %s\n",
			       r[i].end_loss);
	}
	printf("seconds:  %.3f\n", secs);
	printf("speed:    %.2f GB/s\n", secs > 0 ? (double)t->size / secs / 1e9 : 0.0);
}

static void print_json(const struct trace *t, const struct stream_result *r,
		       size_t nr, double secs)
{
	const struct perfdata_info *in = perfdata_info(t);
	size_t i;
	int c;

	printf("{\"trace\": ");
	json_string(stdout, t->path);
	printf(", \"size\": %" PRIu64, t->size);
	if (in) {
		printf(", \"warnings\": %u, \"warning\": ", in->nwarnings);
		json_string(stdout, in->warning);
	}
	printf(", \"streams\": [");
	for (i = 0; i < nr; i++) {
		const struct idx_summary *s = &r[i].tot;

		printf("%s{\"name\": ", i ? ", " : "");
		json_string(stdout, r[i].name);
		if (r[i].restricted)
			printf(", \"stretches\": %zu, \"kept_bytes\": %" PRIu64,
			       r[i].nranges, r[i].kept);
		printf(", \"bytes\": %" PRIu64 ", \"cache\": \"%s\", \"psbs\": %zu, "
		       "\"segments\": %zu, \"packets\": %" PRIu64 ", \"classes\": {",
		       s->size, r[i].cache, r[i].nseeks, r[i].nseeks, s->npackets);
		for (c = 0; c < PKC_NCLASSES; c++)
			printf("%s\"%s\": %" PRIu64, c ? ", " : "",
			       pkt_class_name((enum pkt_class)c), s->per_class[c]);
		printf("}, ");
		if (s->have_tsc)
			printf("\"first_tsc\": %" PRIu64 ", \"last_tsc\": %" PRIu64
			       ", \"last_tsc_estimated\": %s, ", s->first_tsc, s->last_tsc,
			       r[i].end_est ? "true" : "false");
		else
			printf("\"first_tsc\": null, \"last_tsc\": null, ");
		printf("\"cycles\": %" PRIu64 ", \"ovf\": %" PRIu32 ", \"errors\": %" PRIu32
		       ", \"gaps\": %" PRIu32,
		       s->cycles, s->novf, s->nerrors, s->ngaps);
		if (r[i].halted)
			printf(", \"sleeps\": %" PRIu64 ", \"halted_lo\": %" PRIu64
			       ", \"halted_hi\": %" PRIu64, r[i].nhalt, r[i].halt_lo,
			       r[i].halt_hi);
		if (r[i].end_loss) {
			printf(", \"end_loss\": ");
			json_string(stdout, r[i].end_loss);
		}
		printf("}");
	}
	printf("], \"seconds\": %.6f, \"gb_per_s\": %.3f}\n", secs,
	       secs > 0 ? (double)t->size / secs / 1e9 : 0.0);
}

/* Count packet @pkt (or, @err < 0, a decode error or gap) into @s, as the
 * index's segment summaries count them. */
static void restrict_count(struct idx_summary *s, const struct pkt *pkt, int err)
{
	s->npackets++;
	if (err < 0) {
		s->per_class[PKC_ERROR]++;
		if (err == -pte_gap)
			s->ngaps++;
		else
			s->nerrors++;
		return;
	}
	s->per_class[pkt_type_class(pkt->type)]++;
	if (pkt->type == PKT_TSC) {
		if (!s->have_tsc)
			s->first_tsc = pkt->u.tsc;
		s->have_tsc = 1;
		s->last_tsc = pkt->u.tsc;
	} else if (pkt->type == PKT_CYC) {
		s->cycles += pkt->u.cyc;
		if (pkt->u.cyc > s->max_cyc)
			s->max_cyc = pkt->u.cyc;
	} else if (pkt->type == PKT_OVF) {
		s->novf++;
	}
}

/* Sum up the packets of range @k of stream image @img into @s, decoding
 * from the PSB before it; *@npsb counts its PSBs. */
static int restrict_range(const struct img *img, const struct ctx_range *k,
			  struct idx_summary *s, size_t *npsb)
{
	struct img_cursor cur;
	struct pkt pkt;
	uint64_t psb, at;
	int n;

	if (img_find_psb_before(img, k->from + 1, &psb) < 0 ||
	    img_cursor_init(&cur, img, psb) < 0)
		return 0;	/* nothing decodable before a PSB */
	for (;;) {
		at = img_cursor_offset(&cur);
		n = img_cursor_next(&cur, &pkt);
		if (n == -pte_eos)
			break;
		if (n < 0) {
			cur.gap = 0;
			at = n == -pte_gap ? pkt.offset : at;
			if (at >= k->to)
				break;
			if (at >= k->from)
				restrict_count(s, &pkt, n);
			if (n != -pte_gap && img_cursor_sync_forward(&cur, at + 1) < 0)
				break;
			continue;
		}
		if (pkt.offset >= k->to)
			break;
		if (pkt.offset < k->from)
			continue;
		if (pkt.type == PKT_PSB)
			(*npsb)++;
		restrict_count(s, &pkt, 0);
	}
	return 0;
}

/* --pid, --tid, --comm: @r's summary becomes that of the ranges of stream
 * @si that @f keeps.  Returns 0, or -1 after printing one line. */
static int index_restrict(const struct trace *t, int si, const struct ctx_filter *f,
			  struct stream_result *r)
{
	const struct img *img = &t->streams[si].img;
	struct ctx_range *keep = NULL;
	size_t nkeep = 0, i;
	char err[512];
	int ret;

	if (ctx_restrict(t, si, f, 0, UINT64_MAX, &keep, &nkeep, err, sizeof(err)) < 0) {
		esc_line(stderr, "ptbrowse index: ", "%s", err);
		return -1;
	}
	/* a compressed or lossy sideband: why the ranges may be wrong */
	if (ctx_sideband_doubt(t, err, sizeof(err)))
		esc_line(stderr, "ptbrowse index: ", "%s", err);
	memset(&r->tot, 0, sizeof(r->tot));
	r->tot.size = img->size;
	r->restricted = 1;
	r->end_est = 0;
	r->nranges = nkeep;
	r->kept = 0;
	r->all_seeks = r->nseeks;
	r->nseeks = 0;
	ret = 0;
	for (i = 0; i < nkeep && !ret; i++) {
		r->kept += keep[i].to - keep[i].from;
		ret = restrict_range(img, &keep[i], &r->tot, &r->nseeks);
	}
	free(keep);
	return ret;
}

struct restrict_job {
	const struct trace *t;
	int si;
	const struct ctx_filter *f;
	struct stream_result *r;
};

static int restrict_body(void *arg)
{
	struct restrict_job *j = arg;

	return index_restrict(j->t, j->si, j->f, j->r);
}

/* index_restrict() under trace_guard(): a file that shrinks is said.
 * Returns 0 or -1 (said). */
static int index_restrict_guarded(const struct trace *t, int si,
				  const struct ctx_filter *f, struct stream_result *r)
{
	struct restrict_job j = { t, si, f, r };
	int ret = trace_guard(restrict_body, &j);

	if (ret == -pte_sigbus)
		esc_line(stderr, "ptbrowse index: ", "%s: the file shrank while being read",
			 t->path);
	return ret < 0 ? -1 : 0;
}

/* Index one stream: the cache first, then build what is missing. */
static int index_stream(struct trace *t, int si, int use_cache, unsigned threads,
			int time_pass, const struct tm_config *opts, int tty,
			const struct identity *mapped, struct stream_result *r)
{
	struct trace_stream *s = &t->streams[si];
	struct tm_config cfg = *opts;
	struct idx *idx;
	char err[512];
	int ret;

	r->name = s->name;
	r->cache = use_cache ? "built" : "off";
	r->end_loss = perfdata_end_loss(t, si);
	r->stream = si;
	/* Options on the command line win over the file's. */
	tm_config_merge(&cfg, &s->timing);
	ret = idx_new(&idx, &s->img, &cfg);
	if (ret < 0)
		return ret;
	idx_set_guard(idx, trace_guard);
	idx_set_time_pass(idx, time_pass);
	idx_set_release(idx, trace_release, t);
	if (threads)
		idx_set_threads(idx, threads);
	if (use_cache) {
		const char *why = NULL;

		ret = idxcache_load(idx, t, si, UINT64_MAX, &why);
		if (ret == IDXCACHE_HIT)
			r->cache = "hit";
		else if (ret == IDXCACHE_GROWN)
			r->cache = "grown";
		else if (ret == IDXCACHE_PARTIAL)
			r->cache = "extended";
		else if (why && !strcmp(why, IDXCACHE_OTHER))
			/* nothing was ignored: this trace gets a file of
			 * its own beside that one */
			esc_line(stderr, "ptbrowse index: ", "%s: not cached (%s); "
				"indexing it into a cache file of its own", t->path, why);
		else if (why && strcmp(why, "not cached") &&
			 strcmp(why, "no cache directory"))
			/* A cache file that does not check out is never
			 * trusted; say why it is rebuilt. */
			esc_line(stderr, "ptbrowse index: ", "%s: index cache ignored (%s), "
				"rebuilding it", t->path, why);
	}
	if (!idx_complete(idx)) {
		cur_idx = idx;
		trace_advise(t, TRACE_SCAN);
		ret = idx_start(idx);
		if (!ret) {
			if (tty) {
				while (!finished(idx)) {
					show_progress(idx, s->name);
					usleep(100000);
				}
				fprintf(stderr, "\r\033[K");
			}
			ret = idx_wait(idx);
		}
		cur_idx = NULL;
		trace_advise(t, TRACE_BROWSE);
		if (ret < 0) {
			if (ret == -pte_sigbus)
				esc_line(stderr, "ptbrowse index: ", "%s: the file shrank while "
					"being indexed", t->path);
			else if (ret == -pte_canceled)
				esc_line(stderr, "ptbrowse index: ", "%s: indexing cancelled",
					t->path);
			else
				esc_line(stderr, "ptbrowse index: ", "%s: indexing failed: %s",
					t->path, pte_strerror(ret));
			idx_free(idx);
			return ret;
		}
		/* (a recording that appended meanwhile is cached for the
		 * part indexed) */
		if (use_cache && idxcache_save_since(idx, t, si, mapped, NULL, err,
						     sizeof(err)) < 0)
			esc_line(stderr, "ptbrowse index: ", "warning: index not cached: %s", err);
		else if (use_cache && err[0])
			/* cached, but over the cache's limit alone */
			esc_line(stderr, "ptbrowse index: ", "%s", err);
	}
	r->nseeks = idx_nseeks(idx);
	r->halted = time_pass && !idx_halted(idx, &r->nhalt, &r->halt_lo,
					      &r->halt_hi);
	idx_totals(idx, &r->tot);
	r->end_est = idx_end_estimated(idx);
	r->tot.size = s->img.size;
	idx_free(idx);
	return 0;
}

/* --clear-cache: remove every index cache file, and say what went.
 * Returns 0, or 1 after saying why not. */
static int index_clear_cache(void)
{
	struct idxcache_usage u;
	char err[512], size[32];

	if (idxcache_clear(&u, err, sizeof(err)) < 0) {
		esc_line(stderr, "ptbrowse index: ", "cannot clear the index cache: %s",
			 err);
		return 1;
	}
	idxcache_size_str(u.bytes, size, sizeof(size));
	esc_line(stderr, "ptbrowse index: ", "index cache cleared: %" PRIu64
		 " file%s, %s", u.files, u.files == 1 ? "" : "s", size);
	return 0;
}

/* Print the @nr streams' results @res (@json or text), and say if not one
 * of them has a PSB. */
static void index_report(const struct trace *t, const struct stream_result *res,
			 size_t nr, int json, double secs)
{
	char why[600];
	size_t i, empty = 0;

	if (json)
		print_json(t, res, nr, secs);
	else
		print_text(t, res, nr, secs);
	/* Not one PSB in any stream: not a trace, unless no stream has
	 * bytes (their payloads cut off): why is said for each */
	for (i = 0; i < nr; i++)
		if (perfdata_empty_why(t, res[i].stream, why, sizeof(why)))
			empty++;
	for (i = 0; nr && empty == nr && i < nr; i++)
		if (perfdata_empty_why(t, res[i].stream, why, sizeof(why)))
			esc_line(stderr, "ptbrowse index: ", "%s", why);
	for (i = 0; i < nr && !(res[i].restricted ? res[i].all_seeks : res[i].nseeks); i++)
		;
	if (!t->nstreams || (nr && i == nr && empty < nr))
		esc_line(stderr, "ptbrowse index: ", "%s: no PSB found: this is not an "
			 "Intel PT trace, or it starts mid-stream without a "
			 "synchronisation point", t->path);
}

/*
 * After the options (@n traces in @argv): the usage checked, then
 * --clear-cache done (`--clear-cache a.pt a.pt` emptied the cache, then
 * was refused).  With no TRACE it is all the command does, and an
 * option that needs one (--stream, a timing option) is a usage error,
 * not ignored.  Then a bad config line is said.  Returns the exit
 * status, or -1 to go on with the TRACE.
 */
static int index_usage(const struct opt_cmd *cmd, const struct index_args *a,
		       const struct tm_config *cfg, int n, char **argv)
{
	static const struct tm_config none;
	char err[600];
	uint64_t max;

	if (a->clear_cache && !n) {
		if (a->traced || memcmp(cfg, &none, sizeof(*cfg))) {
			opt_error(cmd, "--clear-cache without a TRACE takes no other "
				  "option (got %s%s)", a->traced ? "--" : "",
				  a->traced ? a->traced : "a timing option");
			return 2;
		}
		return index_clear_cache();
	}
	if (opt_one_trace(cmd, n, argv) < 0)
		return 2;
	if (a->clear_cache && index_clear_cache())
		return 1;
	/* A bad "set cache-max" line, said here once: the save's note is
	 * for the file over the limit (both were one note, the first only) */
	if (a->use_cache && idxcache_max(&max, err, sizeof(err)) < 0)
		esc_line(stderr, "ptbrowse index: ", "%s", err);
	return -1;
}

int cmd_index_main(int argc, char **argv)
{
	struct index_args args = { 0, 1, 0, 0, NULL, NULL, 0, { -1, -1, NULL } };
	struct tm_config cfg;
	const struct opt_group groups[] = {
		{ "options:", index_opts, index_take, &args },
		{ TIMING_OPT_HEADING, timing_opts, timing_opt_take, &cfg },
	};
	const struct opt_cmd cmd = { "ptbrowse index",
"usage: ptbrowse index [--json] [--no-cache] [--time] [--stream S] "
"[--threads N]\n"
"                      [--cache-max SIZE] [TIMING] TRACE\n"
"       ptbrowse index --clear-cache [TRACE]\n"
"\n"
"Build the PSB index of TRACE (or check its cached copy) and print a\n"
"summary.  The timing options (TIMING) configure the time pass.  TRACE -\n"
"(or a FIFO such as /dev/stdin) is read whole from the pipe first.\n",
		groups, 2 };
	struct stream_result *res;
	const char *stream;
	struct sigaction sa, old;
	struct identity mapped;
	struct trace *t;
	char err[512];
	int json, use_cache, time_pass, ret, si, status = 0, have_mapped;
	unsigned threads;
	size_t i, nr = 0;
	double t0;

	memset(&cfg, 0, sizeof(cfg));
	ret = opt_parse(&cmd, argc, argv);
	if (ret < 0)
		return opt_status(ret);
	status = index_usage(&cmd, &args, &cfg, ret, argv);
	if (status >= 0)
		return status;
	status = 0;
	index_signals();
	json = args.json;
	use_cache = args.use_cache;
	time_pass = args.time_pass;
	stream = args.stream;
	threads = args.threads;
	t0 = now();
	ret = trace_open_input(&t, argv[1], err, sizeof(err));
	if (ret < 0) {
		char e[4 * sizeof(err)];

		esc_line(stderr, "ptbrowse index: ", "%s", esc_str(e, sizeof(e), err));
		return 1;
	}
	if (export_refuse(t, "-", err, sizeof(err)) < 0) {
		esc_line(stderr, "ptbrowse index: ", "%s", err);
		trace_close(t);
		return 1;
	}
	/* The file as opened (a perf.data's streams are where this parse
	 * found them): a recording that appends while it is indexed is
	 * cached for the part indexed, one rewritten is not. */
	have_mapped = use_cache && !identity_of_trace(&mapped, t);
	res = calloc(t->nstreams ? t->nstreams : 1, sizeof(*res));
	if (!res) {
		trace_close(t);
		esc_line(stderr, "ptbrowse index: ", "out of memory");
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old);
	/* looked up once: per stream it was quadratic in their number */
	si = stream ? perfdata_stream_named(t, stream, "ptbrowse index: ", t->path) : -1;
	if (stream && si < 0)
		status = 1;	/* as dump, marks, export */
	for (i = 0; i < t->nstreams && !interrupted && !status; i++) {
		if (stream && (size_t)si != i)
			continue;
		ret = index_stream(t, (int)i, use_cache, threads, time_pass, &cfg, isatty(2),
				   have_mapped ? &mapped : NULL, &res[nr]);
		if (!ret && ctx_filter_active(&args.filter))
			ret = index_restrict_guarded(t, (int)i, &args.filter, &res[nr]);
		if (ret < 0) {
			status = 1;
			break;
		}
		nr++;
	}
	sigaction(SIGINT, &old, NULL);
	/* Between streams, or while a cache loaded or saved: no half summary. */
	if (interrupted && !status) {
		esc_line(stderr, "ptbrowse index: ", "interrupted");
		status = 1;
	}
	if (!status)
		index_report(t, res, nr, json, now() - t0);
	free(res);
	trace_close(t);
	return status;
}
