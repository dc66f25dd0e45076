/*
 * cmd_marks -- `ptbrowse marks`: list a trace's marks, bookmarks and
 * regions from its marks file, as text or JSON.  Never writes the file.
 *
 * The hidden `--stress-save N` rewrites the marks file N times (one region
 * change each) for tests/t_marks_crash.sh, which kills it mid-save.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "ctjob.h"
#include "ctsum.h"
#include "ctx.h"
#include "esc.h"
#include "export.h"
#include "identity.h"
#include "idxcache.h"
#include "imgopt.h"
#include "json.h"
#include "marks.h"
#include "memimg.h"
#include "opt.h"
#include "safefile.h"
#include "timing_opt.h"
#include "trace.h"
#include "perfdata.h"

enum { M_EXPORT, M_IMPORT, M_JSON, M_SUMMARY, M_STREAM, M_STRESS };

static const struct opt marks_cli_opts[] = {
	{ "export", 0, "FILE", "write them to FILE (the marks file format), to share;\n"
	  "- is standard output; a FILE that exists must be a\n"
	  "marks file", M_EXPORT },
	{ "import", 0, "FILE", "merge FILE's marks into TRACE's; the same name at\n"
	  "another offset is a conflict: reported, ours kept", M_IMPORT },
	{ "json", 0, NULL, "one JSON object: trace, stream, marks file, marks array",
	  M_JSON },
	{ "summary", 0, NULL, "after each region, what lies inside it: packets by type\n"
	  "and class, PSBs, branches, TIPs, cycles, TSC span, CBR\n"
	  "changes, OVFs, decode errors; time and frequency where\n"
	  "the recording's timing is known (perf.data, or the\n"
	  "timing options below)", M_SUMMARY },
	{ "stream", 0, "S", "the stream of a perf.data file (index, cpuN or name)",
	  M_STREAM },
	/* hidden: see the top of the file */
	{ "stress-save", 0, "N", NULL, M_STRESS },
	{ 0 }
};

/* What marks' options set. */
struct marks_args {
	const char *stream, *export, *import;
	unsigned long stress;
	int json, summary;
	struct marks_opts *opts;
};

static int marks_take(const struct opt_cmd *cmd, void *ctx, const struct opt *o,
		      const char *val)
{
	struct marks_args *a = ctx;
	char *end;

	switch (o->id) {
	case M_EXPORT: a->export = val; break;
	case M_IMPORT: a->import = val; a->opts->flags = BM_ONE_SHOT; break;
	case M_JSON: a->json = 1; break;
	case M_SUMMARY: a->summary = 1; break;
	case M_STREAM: a->stream = val; break;
	default:
		/* strtoul takes "-1" as ULONG_MAX: digits only */
		a->stress = strtoul(val, &end, 10);
		if (*end || !a->stress || val[0] < '0' || val[0] > '9') {
			opt_error(cmd, "--stress-save: bad count '%s'", val);
			return -ERANGE;
		}
		a->opts->flags = 0;
		break;
	}
	return 0;
}

static void cmd_marks_report(void *ctx, const char *msg)
{
	fputs("ptbrowse marks: ", stderr);
	esc_fputs(stderr, msg);	/* it names files */
	fputc('\n', stderr);
}

static const char *const kind_names[] = { "mark", "bookmark", "region" };

/* The code of the trace whose region summaries name functions: loaded
 * (a perf.data's binaries found as flow finds them) at the first region;
 * and its stream's index, for the time model at a region's first PSB. */
static struct {
	const struct trace *t;
	size_t idx;
	struct imgset *set;
	int tried;
	char why[512];		/* why there are no functions, or "" */
	struct idx *index;	/* NULL: none (yet, or could not be had) */
	int index_tried;
	struct identity mapped;	/* the file's, when it was opened */
	int have_mapped;
} cm_code;

/* The stream's index: the cache's, else built with the time pass (and
 * cached, as goto's is).  Returns it, or NULL. */
static struct idx *cmd_marks_index(const struct trace_stream *s)
{
	if (cm_code.index_tried)
		return cm_code.index;
	cm_code.index_tried = 1;
	if (idx_new(&cm_code.index, &s->img, &s->timing) < 0)
		return cm_code.index = NULL;
	idx_set_guard(cm_code.index, trace_guard);
	idx_set_time_pass(cm_code.index, 1);
	if (idxcache_load_or_build(cm_code.index, cm_code.t, (int)cm_code.idx,
				   cm_code.have_mapped ? &cm_code.mapped : NULL) < 0) {
		idx_free(cm_code.index);
		return cm_code.index = NULL;
	}
	return cm_code.index;
}

/* Start @bt from the index's time model state at the PSB before region
 * @e, so its edges' times are a decode from the start's (else it stays
 * cold from that PSB, and says so). */
static void cmd_marks_warm(const struct trace_stream *s, const struct marks_entry *e,
			   struct marks_time *bt)
{
	struct tm_carry carry;
	struct idx_seek sk;
	struct idx *x;
	uint64_t psb;
	size_t k;

	if (img_find_psb_before(&s->img, e->from + 1, &psb) || !(x = cmd_marks_index(s)))
		return;
	bt->idx = x;	/* an edge in damaged time is no exact one */
	if (idx_find(x, psb, &k) || idx_seek(x, k, &sk) || sk.offset != psb ||
	    idx_seek_carry(x, k, &carry))
		return;
	tm_restore(&bt->tm, &carry);
	bt->warm = 1;
}

/* Summarise region @e of stream @s, with time.  Returns 0, or a pte
 * code (reported): the listing goes on without this summary, so the
 * output stays complete (and --json closed), and exits 1. */
static int cmd_marks_summarise(const struct trace_stream *s,
			       const struct marks_entry *e,
			       struct marks_summary *sum)
{
	struct marks_time bt;
	int r;

	marks_time_init(&bt, &s->timing);
	cmd_marks_warm(s, e, &bt);
	r = marks_region_summary(&s->img, e->from, e->to, sum, NULL,
			      marks_time_observe, &bt);
	if (r < 0)
		esc_line(stderr, "ptbrowse marks: ", "region %s: no summary: %s",
			e->name, pte_strerror(r));
	return r;
}

/* The top functions of region @e by cycles and by instructions, with
 * their calls, as indented lines: or why there are none. */
static void cmd_marks_functions(const struct marks_entry *e)
{
	const struct img *img = &cm_code.t->streams[cm_code.idx].img;
	char lines[24][CTSUM_LINE];
	struct ctx_range keep;
	struct ctjob job;
	uint64_t psb;
	char none[64];
	size_t n, i;
	int r;

	if (!cm_code.tried) {
		struct imgopt io;

		cm_code.tried = 1;
		imgopt_init(&io);
		if (imgopt_load(&cm_code.set, &io, cm_code.t, cm_code.why,
				sizeof(cm_code.why)) < 0)
			cm_code.set = NULL;
		else if (!mi_count(imgopt_mi(cm_code.set)))
			snprintf(cm_code.why, sizeof(cm_code.why), "no code (a raw trace: "
				 "ptbrowse calls TRACE:%s --raw/--elf ... gives them)", e->name);
		imgopt_release(&io);
	}
	if (!cm_code.set || cm_code.why[0]) {
		printf("  functions none: %s\n", cm_code.why);
		return;
	}
	memset(&job, 0, sizeof(job));
	job.t = cm_code.t;
	job.stream = (int)cm_code.idx;
	job.set = cm_code.set;
	job.tm = &cm_code.t->streams[cm_code.idx].timing;
	job.from = e->from;
	job.to = e->to < img->size ? e->to : img->size;
	/* as calls TRACE:REGION: from the PSB at or before FROM (from the
	 * one after, what came before it was lost), counting what [FROM,
	 * TO) decides */
	if (img_find_psb_before(img, job.from + 1, &psb))
		psb = job.from;
	if (ctjob_range(&job, img, psb, job.from, job.to, &keep) && job.from < job.to) {
		printf("  functions none: %s\n", ctjob_none(NULL, 1, none, sizeof(none)));
		return;
	}
	r = job.from < job.to ? ctjob_run(&job) : -pte_invalid;
	if (r < 0 || !job.ct) {
		printf("  functions none: %s\n", pte_strerror(r));
		ctjob_release(&job);
		return;
	}
	n = ctsum_lines(job.ct, NULL, CT_BY_CYCLES, 5, lines, 12);
	n += ctsum_lines(job.ct, NULL, CT_BY_INSNS, 5, lines + n, 24 - n);
	for (i = 0; i < n; i++)
		printf("  functions %s\n", lines[i]);
	ctjob_release(&job);
}

/* The summary as indented "key value" lines, one fact each. */
static void cmd_marks_summary_text(const struct marks_summary *s)
{
	int k;

	printf("  bytes %" PRIu64 "\n  packets %" PRIu64 "\n", s->bytes, s->packets);
	for (k = 1; k < PKT_NTYPES; k++)
		if (s->by_type[k])
			printf("  type %s %" PRIu64 "\n",
			       pkt_type_name((enum pkt_type)k), s->by_type[k]);
	for (k = 0; k < PKC_NCLASSES; k++)
		if (s->by_class[k])
			printf("  class %s %" PRIu64 "\n",
			       pkt_class_name((enum pkt_class)k), s->by_class[k]);
	printf("  psbs %" PRIu64 "\n  branches %" PRIu64 " taken %" PRIu64
	       " not-taken %" PRIu64 "\n  tips %" PRIu64 "\n  cyc-cycles %"
	       PRIu64 "\n", s->psbs, s->tnt_bits, s->taken, s->not_taken,
	       s->tips, s->cyc_cycles);
	if (s->has_tsc)
		printf("  tsc 0x%" PRIx64 " 0x%" PRIx64 " ticks %" PRIu64 "\n",
		       s->first_tsc, s->last_tsc, s->tsc_ticks);
	if (s->cbrs)
		printf("  cbr %" PRIu64 " changes %" PRIu64 " first %u last %u\n",
		       s->cbrs, s->cbr_changes, s->first_cbr, s->last_cbr);
	printf("  ovfs %" PRIu64 "\n  errors %" PRIu64 "\n", s->ovfs, s->errors);
	if (s->has_time)
		printf("  time-ns %.0f\n", s->duration_ns);
	if (s->has_span)
		printf("  time-ticks %" PRIu64 "\n", s->span_ticks);
	if (s->has_span)
		printf("  time %s %s\n", s->time_exact ? "exact" : "estimated",
		       s->time_warm ? "from-index" : "from-psb");
	if (s->has_cycles)
		printf("  cycles %" PRIu64 " %s\n", s->cycles,
		       s->cycles_exact ? "exact" : s->ovfs || s->errors || s->gaps ?
		       "data-lost" : "estimated");
	if (s->freq_avg_mhz > 0)
		printf("  freq-mhz %.1f min %.1f max %.1f halts %s\n", s->freq_avg_mhz,
		       s->freq_min_mhz, s->freq_max_mhz,
		       s->freq_avg_wall ? "included" : "excluded");
	if (s->errors)
		printf("  first-error 0x%" PRIx64 "\n", s->first_error_off);
	if (s->gaps)
		printf("  gaps %" PRIu64 "\n", s->gaps);
}

static void cmd_marks_summary_json(const struct marks_summary *s)
{
	int k, n = 0;

	printf(", \"summary\": {\"bytes\": %" PRIu64 ", \"packets\": %" PRIu64
	       ", \"types\": {", s->bytes, s->packets);
	for (k = 1; k < PKT_NTYPES; k++)
		if (s->by_type[k])
			printf("%s\"%s\": %" PRIu64, n++ ? ", " : "",
			       pkt_type_name((enum pkt_type)k), s->by_type[k]);
	printf("}, \"classes\": {");
	for (k = n = 0; k < PKC_NCLASSES; k++)
		if (s->by_class[k])
			printf("%s\"%s\": %" PRIu64, n++ ? ", " : "",
			       pkt_class_name((enum pkt_class)k), s->by_class[k]);
	printf("}, \"psbs\": %" PRIu64 ", \"branches\": %" PRIu64 ", \"taken\": %"
	       PRIu64 ", \"not_taken\": %" PRIu64 ", \"tips\": %" PRIu64
	       ", \"cyc_cycles\": %" PRIu64, s->psbs, s->tnt_bits, s->taken,
	       s->not_taken, s->tips, s->cyc_cycles);
	if (s->has_tsc)
		printf(", \"first_tsc\": %" PRIu64 ", \"last_tsc\": %" PRIu64
		       ", \"tsc_ticks\": %" PRIu64, s->first_tsc, s->last_tsc,
		       s->tsc_ticks);
	if (s->has_time)
		printf(", \"time_ns\": %.0f", s->duration_ns);
	if (s->has_span)
		printf(", \"time_ticks\": %" PRIu64 ", \"time_exact\": %s"
		       ", \"time_from_index\": %s", s->span_ticks,
		       s->time_exact ? "true" : "false", s->time_warm ? "true" : "false");
	if (s->has_cycles)
		printf(", \"cycles\": %" PRIu64 ", \"cycles_exact\": %s", s->cycles,
		       s->cycles_exact ? "true" : "false");
	if (s->freq_avg_mhz > 0)
		printf(", \"freq_mhz\": {\"avg\": %.1f, \"min\": %.1f, \"max\": %.1f"
		       ", \"halts\": \"%s\"}", s->freq_avg_mhz, s->freq_min_mhz,
		       s->freq_max_mhz, s->freq_avg_wall ? "included" : "excluded");
	printf(", \"cbrs\": %" PRIu64 ", \"cbr_changes\": %" PRIu64
	       ", \"ovfs\": %" PRIu64 ", \"errors\": %" PRIu64 ", \"gaps\": %"
	       PRIu64 "}", s->cbrs, s->cbr_changes, s->ovfs, s->errors, s->gaps);
}

static int cmd_marks_list_text(const struct marks_set *set,
			       const struct trace_stream *img)
{
	const struct marks_entry *e;
	struct marks_summary sum;
	int ret = 0, r;
	size_t i;

	for (i = 0; (e = marks_at(set, i)); i++) {
		printf("%-8s %-16s 0x%016" PRIx64, kind_names[e->kind],
		       e->name[0] ? e->name : "-", e->from);
		if (e->kind == BM_REGION)
			printf(" 0x%016" PRIx64, e->to);
		else if (e->note)
			printf(" %18s", "");
		if (e->color[0])
			printf(" color=%s", e->color);
		if (e->note) {
			putchar(' ');
			marks_put_quoted(stdout, e->note);
		}
		putchar('\n');
		if (img && e->kind == BM_REGION) {
			r = cmd_marks_summarise(img, e, &sum);
			if (r < 0) {
				printf("  no-summary %s\n", pte_strerror(r));
				ret = -1;
			} else {
				cmd_marks_summary_text(&sum);
			}
			cmd_marks_functions(e);
		}
	}
	return ret;
}

static int cmd_marks_list_json(const struct marks_set *set, const char *path,
			       size_t stream, const struct trace *t,
			       const struct trace_stream *img)
{
	const struct marks_entry *e;
	struct marks_summary sum;
	int ret = 0, r;
	size_t i;

	printf("{\"trace\": ");
	json_string(stdout, path);
	printf(", \"stream\": ");
	json_string(stdout, t->streams[stream].name);
	printf(", \"file\": ");
	if (marks_file(set))
		json_string(stdout, marks_file(set));
	else
		printf("null");
	printf(", \"marks\": [");
	for (i = 0; (e = marks_at(set, i)); i++) {
		printf("%s\n  {\"kind\": \"%s\", \"name\": ", i ? "," : "",
		       kind_names[e->kind]);
		if (e->name[0])
			json_string(stdout, e->name);
		else
			printf("null");
		printf(", \"offset\": %" PRIu64, e->from);
		if (e->kind == BM_REGION)
			printf(", \"end\": %" PRIu64 ", \"bytes\": %" PRIu64,
			       e->to, e->to - e->from);
		printf(", \"color\": ");
		if (e->color[0])
			json_string(stdout, e->color);
		else
			printf("null");
		printf(", \"note\": ");
		if (e->note)
			json_string(stdout, e->note);
		else
			printf("null");
		if (img && e->kind == BM_REGION) {
			r = cmd_marks_summarise(img, e, &sum);
			if (r < 0) {
				printf(", \"summary\": null, \"summary_error\": ");
				json_string(stdout, pte_strerror(r));
				ret = -1;
			} else {
				cmd_marks_summary_json(&sum);
			}
		}
		putchar('}');
	}
	printf("%s]}\n", i ? "\n" : "");
	return ret;
}

/* Rewrite the marks file @n times: region "stress" spans [1, 2 + i) and
 * its note repeats that end, so a reader can tell a torn file. */
static int cmd_marks_stress(struct marks_set *set, unsigned long n)
{
	char note[BM_NOTE_MAX], word[24];
	unsigned long i;
	size_t len, w;

	for (i = 0; i < n; i++) {
		w = (size_t)snprintf(word, sizeof(word), "%lu ", i + 2);
		for (len = 0; len + w < sizeof(note) - 1; len += w)
			memcpy(note + len, word, w);
		note[len] = '\0';
		if (marks_region_set(set, "stress", 1, 2 + i, note, NULL) < 0)
			return 1;
	}
	return 0;
}

/* --export -: the marks file format on standard output (unless that is
 * the trace).  Returns 0, or -1 (reported). */
static int cmd_marks_export_stdout(const struct marks_set *set, const struct trace *t)
{
	struct safefile_keep keep = { t->dev, t->ino, "the trace" };
	struct safefile_opts o = { .flags = SAFEFILE_STDOUT, .keep = &keep,
				   .nkeep = 1 };
	struct safefile *f;
	char err[512];

	if (safefile_create(&f, "-", &o, err, sizeof(err)) < 0)
		goto out_err;
	if (!safefile_stream(f) || marks_export(set, safefile_stream(f)) < 0) {
		safefile_abort(f);
		snprintf(err, sizeof(err), "standard output: %s", strerror(errno));
		goto out_err;
	}
	if (safefile_commit(f, err, sizeof(err)) < 0)
		goto out_err;
	return 0;
out_err:
	esc_line(stderr, "ptbrowse marks: ", "%s", err);
	return -1;
}

/* --export and --import: both report what they did through cmd_marks_report.
 * Returns the exit status. */
static int cmd_marks_share(struct marks_set *set, const struct trace *t,
			   const struct marks_args *a)
{
	char err[4200];
	int rc = 0;

	/* Marks text where the trace reads its options (TRACE.options,
	 * empty or not there yet) and the trace would not open again. */
	if (a->export && export_refuse(t, a->export, err, sizeof(err)) < 0) {
		esc_line(stderr, "ptbrowse marks: ", "%s%s", strcmp(a->export, "-") ?
			 "marks not exported: " : "", err);
		return 1;
	}
	safefile_remove_on_signals();
	if (a->import && marks_import_path(set, a->import) < 0)
		rc = 1;
	if (a->export && (strcmp(a->export, "-") ? marks_export_path(set, a->export) :
			  cmd_marks_export_stdout(set, t)) < 0)
		rc = 1;
	return rc;
}

/* List stream @idx's marks, with region summaries timed as @timing and
 * the file's recording say.  Returns the exit status. */
static int cmd_marks_list(struct marks_set *set, struct trace *t, size_t idx,
			  const char *path, const struct marks_args *a,
			  const struct tm_config *timing)
{
	const struct trace_stream *img = a->summary ? &t->streams[idx] : NULL;
	struct tm_config merged = *timing;
	int r, rc;

	/* the command line wins over what the file recorded */
	tm_config_merge(&merged, &t->streams[idx].timing);
	t->streams[idx].timing = merged;
	cm_code.t = t;
	cm_code.idx = idx;
	/* (opened and its marks read just before: an index built later is
	 * cached for the part these bytes were; only summaries build one) */
	cm_code.have_mapped = a->summary && !identity_of_trace(&cm_code.mapped, t);
	r = a->json ? cmd_marks_list_json(set, path, idx, t, img) :
		      cmd_marks_list_text(set, img);
	imgopt_free(cm_code.set);
	idx_free(cm_code.index);
	memset(&cm_code, 0, sizeof(cm_code));
	rc = r < 0 ? 1 : 0;
	if (fflush(stdout) || ferror(stdout)) {
		esc_line(stderr, "ptbrowse marks: ", "write error: %s", strerror(errno));
		rc = 1;
	}
	return rc;
}

/* Open the trace at @path and its stream's marks, then do what @a asks.
 * Returns the exit status. */
static int cmd_marks_run(const struct marks_args *a, const char *path,
			 const struct tm_config *timing)
{
	struct marks_set *set = NULL;
	struct trace *t = NULL;
	char err[4096];
	int idx = 0, rc = 1, r;

	if (trace_open(&t, path, err, sizeof(err)) < 0) {
		cmd_marks_report(NULL, err);
		return 1;
	}
	if (a->stream && (idx = perfdata_stream_named(t, a->stream, "ptbrowse marks: ",
						     path)) < 0)
		goto out_close;
	if (!t->nstreams) {
		esc_line(stderr, "ptbrowse marks: ", "%s: no Intel PT data", path);
		goto out_close;
	}
	r = marks_open_trace(&set, t, (size_t)idx, a->opts);
	if (r < 0) {
		esc_line(stderr, "ptbrowse marks: ", "%s: cannot open its marks: %s",
			path, pte_strerror(r));
		goto out_close;
	}
	if (a->stress)
		rc = cmd_marks_stress(set, a->stress);
	else if (a->export || a->import)
		rc = cmd_marks_share(set, t, a);
	else
		rc = cmd_marks_list(set, t, (size_t)idx, path, a, timing);
	marks_close(set);
out_close:
	trace_close(t);
	return rc;
}

int cmd_marks_main(int argc, char **argv)
{
	struct marks_opts opts = { .flags = BM_NO_STATE, .report = cmd_marks_report };
	struct tm_config timing;
	struct marks_args args;
	int r;
	const struct opt_group groups[] = {
		{ "options:", marks_cli_opts, marks_take, &args },
		{ TIMING_OPT_HEADING, timing_opts, timing_opt_take, &timing },
	};
	const struct opt_cmd cmd = { "ptbrowse marks",
"usage: ptbrowse marks [--json] [--summary] [--stream S] [TIMING] TRACE\n"
"       ptbrowse marks --export FILE [--stream S] TRACE\n"
"       ptbrowse marks --import FILE [--stream S] TRACE\n"
"\n"
"List the marks, bookmarks and regions saved for TRACE (found by its\n"
"content, so a renamed or copied trace keeps them), one per line:\n"
"kind, name ('-' for an anonymous bookmark), offset, a region's end,\n"
"colour and note.  Listing never changes the marks file.\n", groups, 2 };

	memset(&timing, 0, sizeof(timing));
	memset(&args, 0, sizeof(args));
	args.opts = &opts;
	r = opt_parse(&cmd, argc, argv);
	if (r < 0 || (r = opt_one_trace(&cmd, r, argv)) < 0)
		return opt_status(r);
	return cmd_marks_run(&args, argv[1], &timing);
}
