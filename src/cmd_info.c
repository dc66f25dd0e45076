/*
 * cmd_info -- `ptbrowse info`: what a trace file holds: the container, its
 * streams (cpu, tid, bytes, spans, gaps, PSBs, first and last TSC) and the
 * timing configuration as ptdump options.  Text, or --json.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "esc.h"
#include "export.h"
#include "idxcache.h"
#include "image.h"
#include "json.h"
#include "perfdata.h"
#include "pkt.h"
#include "opt.h"
#include "timing_opt.h"
#include "tm.h"
#include "trace.h"

enum { I_JSON, I_EVENTS };

static const struct opt info_opts[] = {
	{ "json", 0, NULL, "print one JSON object instead of text", I_JSON },
	{ "events", 0, NULL, "also list each stream's sideband events (perf.data):\n"
	  "AUX records (data loss), ITRACE_START, context\n"
	  "switches and COMM, with perf time and TSC", I_EVENTS },
	{ 0 }
};

/* What info's options set. */
struct info_args {
	int json, events;
};

static int info_take(const struct opt_cmd *cmd, void *ctx, const struct opt *o,
		     const char *val)
{
	struct info_args *a = ctx;

	if (o->id == I_JSON)
		a->json = 1;
	else
		a->events = 1;
	return 0;
}

/* What a scan of one stream finds. */
struct info_stats {
	uint64_t psbs;
	uint64_t gaps;
	uint8_t have_first, have_last;
	uint64_t first_tsc, last_tsc;
};

struct info_job {
	const struct img *img;
	const struct tm_config *cfg;
	struct info_stats *stats;
};

/* The time model's estimate at the end of @img, decoding from PSB @from:
 * time goes on after the last TSC packet (MTCs, CYCs). */
static int end_time_from(const struct img *img, const struct tm_config *cfg,
			 uint64_t from, uint64_t *tsc)
{
	struct img_cursor cur;
	struct tm_model tm;
	struct pkt pkt;
	int r;

	if (img_cursor_init(&cur, img, from) < 0)
		return 0;
	tm_init(&tm, cfg);
	while ((r = img_cursor_next(&cur, &pkt)) != -pte_eos) {
		if (r >= 0) {
			tm_advance(&tm, &pkt);
			continue;
		}
		tm_gap(&tm);
		if (r != -pte_gap && img_cursor_sync_forward(&cur, pkt.offset + 1) < 0)
			break;
	}
	return !tm_now(&tm, tsc);
}

/* Whether the segment of the PSB at @psb (up to the next PSB or an error)
 * has a TSC packet. */
static int segment_has_tsc(const struct img *img, uint64_t psb)
{
	struct img_cursor cur;
	struct pkt pkt;
	int first = 1;

	if (img_cursor_init(&cur, img, psb) < 0)
		return 0;
	while (img_cursor_next(&cur, &pkt) >= 0) {
		if (pkt.type == PKT_TSC)
			return 1;
		if (pkt.type == PKT_PSB && !first)
			return 0;
		first = 0;
	}
	return 0;
}

/* The start of the run of 02 82 pairs that ends with the PSB at @psb: of
 * a run's PSBs only the last has a segment, and finding each of them
 * backward would find the run's end again. */
static uint64_t run_start(const struct img *img, uint64_t psb)
{
	uint8_t pair[2];

	while (psb >= 2 && img_read(img, psb - 2, pair, 2) == 2 &&
	       pair[0] == 0x02 && pair[1] == 0x82)
		psb -= 2;
	return psb;
}

/* Count PSBs, find the first TSC (forward from the first PSB) and the last
 * (backward, PSB by PSB, from the end). */
static int scan_stream(void *arg)
{
	struct info_job *job = arg;
	const struct img *img = job->img;
	struct info_stats *s = job->stats;
	struct img_cursor cur;
	struct pkt pkt;
	uint64_t off, psb;
	size_t i;
	int r, tries = 0;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < img->nspans; i++)
		s->gaps += img->spans[i].gap_before;
	/* Over the whole image: a PSB may straddle two AUXTRACE records. */
	s->psbs = img_count_psbs(img);
	off = 0;
	while (!s->have_first && !img_cursor_init(&cur, img, off) &&
	       !img_cursor_sync_forward(&cur, off)) {
		while ((r = img_cursor_next(&cur, &pkt)) > 0) {
			if (pkt.type == PKT_TSC) {
				s->first_tsc = pkt.u.tsc;
				s->have_first = 1;
				break;
			}
		}
		if (r <= 0)	/* after a gap: on the next PSB */
			off = img_cursor_offset(&cur) + (r != -pte_gap);
	}
	if (!s->have_first)
		return 0;
	/* From the last PSB whose segment has a TSC: decoding to the end
	 * from every PSB on the way back was quadratic in a long tail
	 * without one. */
	off = img->size;
	while (!s->have_last && tries < 4 &&
	       !img_find_psb_before(img, off, &psb)) {
		off = run_start(img, psb);
		if (!segment_has_tsc(img, psb))
			continue;
		tries++;
		if (end_time_from(img, job->cfg, psb, &s->last_tsc))
			s->have_last = 1;
	}
	return 0;
}

static const char *kind_name(enum trace_kind k)
{
	switch (k) {
	case TRACE_RAW:
		return "raw";
	case TRACE_PERF_FILE:
		return "perf.data";
	case TRACE_PERF_PIPE:
		return "perf.data (pipe mode)";
	}
	return "?";
}

/* One stream's timing in JSON. */
static void json_timing(const struct tm_config *c)
{
	char opts[256];

	perfdata_ptdump_options(c, opts, sizeof(opts));
	printf("\"timing\": {");
	if (c->have_cpu)
		printf("\"cpu_family\": %u, \"cpu_model\": %u, "
		       "\"cpu_stepping\": %u, ", c->cpu_family,
		       c->cpu_model, c->cpu_stepping);
	if (c->have_mtc_freq)
		printf("\"mtc_freq\": %u, ", c->mtc_freq);
	if (c->have_nom_freq)
		printf("\"nom_freq\": %u, ", c->nom_freq);
	if (c->have_cpuid_15)
		printf("\"cpuid_15_eax\": %" PRIu32 ", \"cpuid_15_ebx\": %"
		       PRIu32 ", ", c->cpuid_15_eax, c->cpuid_15_ebx);
	if (c->have_tsc_hz && c->tsc_hz)
		printf("\"tsc_hz\": %" PRIu64 ", ", c->tsc_hz);
	if (c->have_crystal_hz && c->crystal_hz)
		printf("\"crystal_hz\": %" PRIu32 ", \"crystal_from_model\": %s, ",
		       c->crystal_hz, c->crystal_model ? "true" : "false");
	if (c->have_cyc_thresh)
		printf("\"cyc_thresh\": %u, ", c->cyc_thresh);
	if (c->have_perf_conv)
		printf("\"time_shift\": %u, \"time_mult\": %" PRIu32
		       ", \"time_zero\": %" PRIu64 ", ", c->time_shift,
		       c->time_mult, c->time_zero);
	printf("\"ptdump_options\": ");
	json_string(stdout, opts);
	printf("}");
}

/* Stream @si's sideband events as a JSON array member. */
static void json_events(const struct trace *t, size_t si)
{
	const struct perfdata_event *ev;
	size_t i, n;

	if (perfdata_events(t, (int)si, &ev, &n) < 0)
		return;
	printf(", \"events\": [");
	for (i = 0; i < n; i++) {
		printf("%s\n   {\"kind\": \"%s\", \"file_offset\": %" PRIu64,
		       i ? "," : "", perfdata_event_name(ev[i].kind),
		       ev[i].file_off);
		if (ev[i].have_time)
			printf(", \"time\": %" PRIu64, ev[i].time);
		if (ev[i].have_tsc)
			printf(", \"tsc\": %" PRIu64, ev[i].tsc);
		printf(", \"cpu\": %d, \"pid\": %d, \"tid\": %d", ev[i].cpu,
		       ev[i].pid, ev[i].tid);
		if (ev[i].kind == PD_EV_AUX)
			printf(", \"aux_offset\": %" PRIu64 ", \"aux_size\": %"
			       PRIu64, ev[i].aux_offset, ev[i].aux_size);
		if (ev[i].have_stream_off)
			printf(", \"stream_offset\": %" PRIu64,
			       ev[i].stream_off);
		if (ev[i].kind == PD_EV_AUX || ev[i].kind == PD_EV_SWITCH_OUT)
			printf(", \"flags\": %" PRIu32, ev[i].flags);
		if (ev[i].kind == PD_EV_COMM) {
			printf(", \"comm\": ");
			json_string(stdout, ev[i].comm);
		}
		printf("}");
	}
	printf("]");
}

/* The index cache: its directory, what its files take and its limit
 * (idxcache.h).  Returns 0, or -1 if there is no cache directory or it
 * cannot be read: said on stderr (the cache line was left out silently),
 * the rest of info's output and its status as they are. */
static int cache_state(char *dir, size_t dirlen, struct idxcache_usage *u,
		       uint64_t *max)
{
	char err[600];
	int r;

	if (idxcache_max(max, err, sizeof(err)) < 0)
		esc_line(stderr, "ptbrowse info: ", "%s", err);
	err[0] = 0;
	r = idxcache_usage(u, dir, dirlen, err, sizeof(err));
	if (r < 0) {
		esc_line(stderr, "ptbrowse info: ", "index cache: %s",
			 err[0] ? err : pte_strerror(r));
		return -1;
	}
	return 0;
}

/* The index cache as JSON: "cache": {...},\n (nothing without one). */
static void json_cache(void)
{
	struct idxcache_usage u;
	char dir[4096];
	uint64_t max;

	if (cache_state(dir, sizeof(dir), &u, &max) < 0)
		return;
	printf(" \"cache\": {\"dir\": ");
	json_string(stdout, dir);
	printf(", \"bytes\": %" PRIu64 ", \"files\": %" PRIu64 ", \"max\": %" PRIu64
	       "},\n", u.bytes, u.files, max);
}

/* The index cache's line of the text (none without one). */
static void text_cache(void)
{
	struct idxcache_usage u;
	char dir[4096], e[4 * sizeof(dir)], used[32], lim[32];
	uint64_t max;

	if (cache_state(dir, sizeof(dir), &u, &max) < 0)
		return;
	idxcache_size_str(u.bytes, used, sizeof(used));
	idxcache_size_str(max, lim, sizeof(lim));
	printf("cache      %s in %" PRIu64 " file%s, limit %s, %s\n", used, u.files,
	       u.files == 1 ? "" : "s", max ? lim : "none", esc_str(e, sizeof(e), dir));
}

static void print_json(const struct trace *t, const struct info_stats *stats,
		       int events)
{
	const struct perfdata_info *in = perfdata_info(t);
	size_t i;
	int k;

	printf("{\"file\": ");
	json_string(stdout, t->path);
	printf(", \"container\": \"%s\", \"size\": %" PRIu64 ",\n",
	       t->kind == TRACE_RAW ? "raw" : t->kind == TRACE_PERF_FILE ?
	       "perf-file" : "perf-pipe", t->size);
	if (in) {
		printf(" \"perf\": {\"records\": %" PRIu64 ", \"auxtrace\": %"
		       PRIu64 ", \"cpuid\": ", in->nrecords, in->nauxtrace);
		json_string(stdout, in->cpuid);
		printf(", \"pmu_type\": %" PRIu32 ", \"config\": \"%#" PRIx64
		       "\", \"tsc\": %u, \"mtc\": %u, \"mtc_period\": %u, "
		       "\"cyc\": %u, \"cyc_thresh\": %u, \"psb_period\": %u, "
		       "\"noretcomp\": %u, \"snapshot_mode\": %u, "
		       "\"per_cpu_mmaps\": %u, \"have_sched_switch\": %u, "
		       "\"tsc_ctc_ratio_n\": %" PRIu32 ", \"tsc_ctc_ratio_d\": %"
		       PRIu32 ", \"max_non_turbo_ratio\": %" PRIu32
		       ", \"filter\": ", in->pmu_type, in->config, in->tsc,
		       in->mtc, in->mtc_period, in->cyc, in->cyc_thresh,
		       in->psb_period, in->noretcomp, in->snapshot_mode,
		       in->per_cpu_mmaps, in->have_sched_switch,
		       in->tsc_ctc_ratio_n, in->tsc_ctc_ratio_d,
		       in->max_non_turbo_ratio);
		json_string(stdout, in->filter);
		printf(", \"sideband\": {");
		for (k = 0; k < PD_EV_NKINDS; k++)
			printf("%s\"%s\": %" PRIu64, k ? ", " : "",
			       perfdata_event_name(k), in->nevents[k]);
		printf("}, \"lost\": %" PRIu64 ", \"lost_records\": %" PRIu64
		       ", \"lost_samples\": %" PRIu64 ", \"lost_samples_records"
		       "\": %" PRIu64, perfdata_lost_records(t), in->nlost,
		       in->lost_samples, in->nlost_samples);
		printf(", \"warnings\": %u, \"warning\": ", in->nwarnings);
		json_string(stdout, in->warning);
		printf("},\n");
	}
	json_cache();
	printf(" \"streams\": [");
	for (i = 0; i < t->nstreams; i++) {
		const struct trace_stream *s = &t->streams[i];
		const struct info_stats *st = &stats[i];

		printf("%s\n  {\"index\": %zu, \"name\": ", i ? "," : "", i);
		json_string(stdout, s->name);
		printf(", \"cpu\": %d, \"tid\": %d, \"bytes\": %" PRIu64
		       ", \"spans\": %zu, \"gaps\": %" PRIu64
		       ", \"snapshot\": %s, \"psbs\": %" PRIu64, s->cpu, s->tid,
		       s->img.size, s->img.nspans, st->gaps,
		       s->snapshot ? "true" : "false", st->psbs);
		if (st->have_first)
			printf(", \"first_tsc\": %" PRIu64, st->first_tsc);
		if (st->have_last)
			printf(", \"last_tsc\": %" PRIu64, st->last_tsc);
		printf(", ");
		json_timing(&s->timing);
		if (events)
			json_events(t, i);
		printf("}");
	}
	printf("\n ]}\n");
}

static void print_text(const struct trace *t, const struct info_stats *stats)
{
	const struct perfdata_info *in = perfdata_info(t);
	char opts[256], e[4 * PATH_MAX];
	size_t i;
	int k;

	/* Strings from the file (and its name) are escaped: see esc.h. */
	printf("file       %s\n", esc_str(e, sizeof(e), t->path));
	printf("container  %s, %" PRIu64 " bytes", kind_name(t->kind), t->size);
	if (in)
		printf(", %" PRIu64 " records, %" PRIu64 " AUXTRACE",
		       in->nrecords, in->nauxtrace);
	printf("\n");
	if (in) {
		if (in->cpuid[0])
			printf("cpuid      %s\n", esc_str(e, sizeof(e), in->cpuid));
		if (in->have_config)
			printf("intel_pt   config %#" PRIx64 ":%s%s%s%s "
			       "mtc_period=%u psb_period=%u cyc_thresh=%u\n",
			       in->config, in->tsc ? " tsc" : "",
			       in->mtc ? " mtc" : "", in->cyc ? " cyc" : "",
			       in->noretcomp ? " noretcomp" : "",
			       in->mtc_period, in->psb_period, in->cyc_thresh);
		printf("recording  %s, %s%s%s\n",
		       in->per_cpu_mmaps ? "per-cpu" : "per-thread",
		       in->snapshot_mode ? "snapshot mode" : "full trace",
		       in->filter[0] ? ", filter " : "",
		       esc_str(e, sizeof(e), in->filter));
		if (in->have_cap_event_trace)
			printf("event trace %s\n", in->cap_event_trace ?
			       "supported" : "not supported");
		if (in->have_time_conv)
			printf("perf time  time_shift %u, time_mult %" PRIu32
			       ", time_zero %" PRIu64 "\n", in->time_shift,
			       in->time_mult, in->time_zero);
		printf("sideband  ");
		for (k = 0; k < PD_EV_NKINDS; k++)
			printf(" %s %" PRIu64, perfdata_event_name(k),
			       in->nevents[k]);
		printf("\n");
		if (in->ncompressed)
			printf("note       %" PRIu64 " compressed records "
			       "skipped (perf record -z): sideband incomplete\n",
			       in->ncompressed);
		if (in->nlost)
			printf("warning    perf lost %" PRIu64 " sideband records "
			       "(%" PRIu64 " LOST records): context switches, "
			       "COMMs, MMAPs may be missing: which thread ran "
			       "and its code may be wrong\n",
			       perfdata_lost_records(t), in->nlost);
		if (in->nlost_samples)
			printf("note       perf lost %" PRIu64 " samples (%" PRIu64
			       " LOST_SAMPLES records)\n", in->lost_samples,
			       in->nlost_samples);
		if (in->nwarnings)
			printf("warnings   %u; first: %s\n", in->nwarnings,
			       esc_str(e, sizeof(e), in->warning));
	}
	if (t->nstreams) {
		perfdata_ptdump_options(&t->streams[0].timing, opts,
					sizeof(opts));
		printf("timing     %s\n", opts[0] ? opts : "(none recorded)");
	}
	text_cache();
	printf("\n%-6s %-10s %4s %7s %12s %6s %5s %6s %-16s %-16s %s\n",
	       "stream", "name", "cpu", "tid", "bytes", "spans", "gaps", "psbs",
	       "first-tsc", "last-tsc", "duration");
	for (i = 0; i < t->nstreams; i++) {
		const struct trace_stream *s = &t->streams[i];
		const struct info_stats *st = &stats[i];
		char cpu[16] = "-", tid[16] = "-", f[24] = "-", l[24] = "-";
		char dur[32] = "-";
		uint64_t t0, t1;

		if (s->cpu >= 0)
			snprintf(cpu, sizeof(cpu), "%d", s->cpu);
		if (s->tid >= 0)
			snprintf(tid, sizeof(tid), "%d", s->tid);
		if (st->have_first)
			snprintf(f, sizeof(f), "%#" PRIx64, st->first_tsc);
		if (st->have_last)
			snprintf(l, sizeof(l), "%#" PRIx64, st->last_tsc);
		/* perf's conversion or a TSC frequency gives the TSC range
		 * in nanoseconds */
		if (st->have_first && st->have_last &&
		    st->last_tsc >= st->first_tsc &&
		    !tm_tsc_to_ns(&s->timing, st->first_tsc, &t0) &&
		    !tm_tsc_to_ns(&s->timing, st->last_tsc, &t1))
			snprintf(dur, sizeof(dur), "%.3fms",
				 (double)(t1 - t0) / 1e6);
		printf("%-6zu %-10s %4s %7s %12" PRIu64 " %6zu %5" PRIu64
		       " %6" PRIu64 " %-16s %-16s %s\n", i,
		       esc_str(e, sizeof(e), s->name), cpu, tid,
		       s->img.size, s->img.nspans, st->gaps, st->psbs, f, l,
		       dur);
	}
}

/* Describe @ev's payload into @buf. */
static void event_detail(const struct perfdata_event *ev, char *buf, size_t n)
{
	switch (ev->kind) {
	case PD_EV_AUX:
		snprintf(buf, n, "aux_offset %#" PRIx64 " size %#" PRIx64
			 "%s%s%s%s", ev->aux_offset, ev->aux_size,
			 ev->flags & PD_AUX_TRUNCATED ? " truncated" : "",
			 ev->flags & PD_AUX_OVERWRITE ? " overwrite" : "",
			 ev->flags & PD_AUX_PARTIAL ? " partial" : "",
			 ev->flags & PD_AUX_COLLISION ? " collision" : "");
		break;
	case PD_EV_COMM: {
		char comm[4 * sizeof(ev->comm)];

		snprintf(buf, n, "pid %d tid %d comm %s", ev->pid, ev->tid,
			 esc_str(comm, sizeof(comm), ev->comm));
		break;
	}
	case PD_EV_SWITCH_OUT:
		snprintf(buf, n, "pid %d tid %d%s", ev->pid, ev->tid,
			 ev->flags ? " preempted" : "");
		break;
	default:
		snprintf(buf, n, "pid %d tid %d", ev->pid, ev->tid);
		break;
	}
}

/* List each stream's sideband events, one per line. */
static void print_events(const struct trace *t)
{
	const struct perfdata_event *ev;
	char tsc[24], when[32], at[24], detail[128], name[256];
	size_t s, i, n;

	for (s = 0; s < t->nstreams; s++) {
		if (perfdata_events(t, (int)s, &ev, &n) < 0)
			return;
		printf("\nevents of %s: %zu\n",
		       esc_str(name, sizeof(name), t->streams[s].name), n);
		printf("%-12s %-18s %-20s %-12s %s\n", "kind", "tsc",
		       "perf-time", "stream-off", "detail");
		for (i = 0; i < n; i++) {
			snprintf(tsc, sizeof(tsc), "-");
			snprintf(when, sizeof(when), "-");
			snprintf(at, sizeof(at), "-");
			if (ev[i].have_tsc)
				snprintf(tsc, sizeof(tsc), "%#" PRIx64,
					 ev[i].tsc);
			if (ev[i].have_time)
				snprintf(when, sizeof(when), "%" PRIu64 ".%09"
					 PRIu64, ev[i].time / 1000000000,
					 ev[i].time % 1000000000);
			if (ev[i].have_stream_off)
				snprintf(at, sizeof(at), "%#" PRIx64,
					 ev[i].stream_off);
			event_detail(&ev[i], detail, sizeof(detail));
			printf("%-12s %-18s %-20s %-12s %s\n",
			       perfdata_event_name(ev[i].kind), tsc, when, at,
			       detail);
		}
	}
}

int cmd_info_main(int argc, char **argv)
{
	struct info_stats *stats;
	struct info_job job;
	struct trace *t = NULL;
	struct tm_config opts;
	const char *path = NULL;
	char err[512], e[4 * PATH_MAX];
	int json = 0, events = 0, r, rc = 1;
	struct info_args args;
	const struct opt_group groups[] = {
		{ "options:", info_opts, info_take, &args },
		{ TIMING_OPT_HEADING, timing_opts, timing_opt_take, &opts },
	};
	const struct opt_cmd cmd = { "ptbrowse info",
"usage: ptbrowse info [--json] [--events] [TIMING] TRACE\n"
"\n"
"Describe TRACE (a raw Intel PT file or a perf.data file): the container,\n"
"each stream's CPU, thread, size, PSB count and TSC range, and the timing\n"
"configuration recorded with it, as ptdump options.  The timing options\n"
"(TIMING) override what a perf.data file recorded; --tsc-freq gives a raw\n"
"trace a duration.  TRACE - (or a FIFO such as /dev/stdin) is read whole\n"
"from the pipe first.  The index cache's size and limit are said too.\n",
		groups, 2 };
	size_t s;

	memset(&opts, 0, sizeof(opts));
	memset(&args, 0, sizeof(args));

	r = opt_parse(&cmd, argc, argv);
	if (r < 0 || (r = opt_one_trace(&cmd, r, argv)) < 0)
		return opt_status(r);
	path = argv[1];
	json = args.json;
	events = args.events;
	if (trace_open_input(&t, path, err, sizeof(err)) < 0) {
		esc_line(stderr, "ptbrowse info: ", "%s", esc_str(e, sizeof(e), err));
		return 1;
	}
	if (export_refuse(t, "-", err, sizeof(err)) < 0) {
		esc_line(stderr, "ptbrowse info: ", "%s", err);
		trace_close(t);
		return 1;
	}
	stats = calloc(t->nstreams ? t->nstreams : 1, sizeof(*stats));
	if (!stats) {
		esc_line(stderr, "ptbrowse info: ", "out of memory");
		goto out_close;
	}
	for (s = 0; s < t->nstreams; s++) {
		struct tm_config c = opts;

		/* the command line wins over what the file recorded */
		tm_config_merge(&c, &t->streams[s].timing);
		t->streams[s].timing = c;
		job.img = &t->streams[s].img;
		job.cfg = &t->streams[s].timing;
		job.stats = &stats[s];
		if (trace_guard(scan_stream, &job) < 0) {
			esc_line(stderr, "ptbrowse info: ", "%s: the file shrank "
				"while reading it", esc_str(e, sizeof(e), path));
			goto out_free;
		}
	}
	if (json)
		print_json(t, stats, events);
	else
		print_text(t, stats);
	if (events && !json)
		print_events(t);
	rc = 0;
	/* Not one PSB in any stream: not a trace, as dump and index say. */
	for (s = 0; s < t->nstreams && !stats[s].psbs; s++)
		;
	if (s == t->nstreams) {
		esc_line(stderr, "ptbrowse info: ", "%s: no PSB found: this is not an "
			"Intel PT trace, or it starts mid-stream without a "
			"synchronisation point", esc_str(e, sizeof(e), path));
		rc = 1;
	}
	if (fflush(stdout) || ferror(stdout)) {
		esc_line(stderr, "ptbrowse info: ", "write error: %s", strerror(errno));
		rc = 1;
	}
out_free:
	free(stats);
out_close:
	trace_close(t);
	return rc;
}
