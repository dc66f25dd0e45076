/*
 * cmd_calls -- `ptbrowse calls`: the call tree and the top functions of a
 * range of a stream, as text: what the browser's function view and region
 * summaries show (calltree.h, fed by ctflow.h).
 *
 * The tree: a line per call path, indented by depth, its children sorted
 * by --sort; each with its calls, instructions, cycles with its callees
 * and its own, and the time from its calls to their returns.  Then the
 * top functions (the symbol holding each instruction) by cycles, by
 * instructions and by calls.  Cycles as calltree.h's ct_sum_str() writes
 * them: never a number the trace does not give.
 *
 * --pid, --tid and --comm keep the instructions of that task only (ctx.h:
 * the sideband's task at each deciding packet's time).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calltree.h"
#include "cmds.h"
#include "ctjob.h"
#include "ctx.h"
#include "esc.h"
#include "export.h"
#include "flow.h"
#include "image.h"
#include "imgopt.h"
#include "memimg.h"
#include "opt.h"
#include "perfdata.h"
#include "ptdec.h"
#include "range.h"
#include "symfmt.h"
#include "timing_opt.h"
#include "tm.h"
#include "tm_config.h"
#include "trace.h"

#define CALLS_PROG "ptbrowse calls: "

enum { C_STREAM, C_PID, C_TID, C_COMM, C_DEPTH, C_TOP, C_SORT, C_NO_TREE };

static const struct opt calls_opts[] = {
	{ "stream", 0, "S", "the stream of a perf.data file (index, cpuN or name)",
	  C_STREAM },
	{ "pid", 0, "N", "only the instructions process N ran (perf.data sideband)",
	  C_PID },
	{ "tid", 0, "N", "only the instructions thread N ran", C_TID },
	{ "comm", 0, "NAME", "only the instructions of tasks named NAME", C_COMM },
	{ "depth", 0, "N", "show the tree N calls deep (default: all)", C_DEPTH },
	{ "top", 0, "N", "show N functions in each top list (default 10; 0: all)",
	  C_TOP },
	{ "sort", 0, "KEY", "order callees by cycles (default), insns or calls",
	  C_SORT },
	{ "no-tree", 0, NULL, "the top functions only", C_NO_TREE },
	{ 0 }
};

struct calls_cmd {
	const char *stream;
	struct ctx_filter filter;
	unsigned depth, top;
	enum ct_order sort;
	int no_tree;
	struct mi *mi;
	struct imgopt io;
	/* while decoding */
	struct trace *t;
	int idx;
	struct imgset *set;
	struct ctx *ctx_feed;	/* the restriction's ranges */
	const struct tm_config *tm;
	int no_tsc;		/* no TSC packet in the range: time unknown */
	int held;		/* the estimate may hold at each TSC
				 * (calls_held()): said where no time is
				 * known */
	int no_psb;		/* no PSB before the range's end: nothing
				 * could be decoded */
};

/* A number option's value: 0 to 1000000. */
static int calls_number(const char *val, unsigned *out)
{
	unsigned long v;
	char *end;

	if (!val || *val < '0' || *val > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(val, &end, 10);
	if (errno || *end || v > 1000000)
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

static int calls_take(const struct opt_cmd *cmd, void *vctx, const struct opt *o,
		      const char *val)
{
	struct calls_cmd *cc = vctx;

	switch (o->id) {
	case C_STREAM:
		cc->stream = val;
		return 0;
	case C_PID:
	case C_TID:
	case C_COMM:
		return ctx_filter_set(&cc->filter, o->id == C_PID ? "--pid" :
				      o->id == C_TID ? "--tid" : "--comm", val) ?
		       -EINVAL : 0;
	case C_DEPTH:
		return calls_number(val, &cc->depth);
	case C_TOP:
		return calls_number(val, &cc->top);
	case C_SORT:
		if (!strcmp(val, "cycles"))
			cc->sort = CT_BY_CYCLES;
		else if (!strcmp(val, "insns"))
			cc->sort = CT_BY_INSNS;
		else if (!strcmp(val, "calls"))
			cc->sort = CT_BY_CALLS;
		else
			return -EINVAL;
		return 0;
	default:
		cc->no_tree = 1;
		return 0;
	}
}

/* Node @n's time into @buf: microseconds where the recording converts
 * TSC to time, else ticks; "?" where it is unknown (ct_time_mark(), as
 * the browser's function view: no TSC before its calls, or the estimate
 * did not move while it ran; or no TSC packet in the range at all);
 * ">=" before it where a call was still open at the end (a lower
 * bound, see ct_finish()). */
static const char *calls_time(const struct calls_cmd *cc, const struct ct *ct,
			      uint32_t n, char *buf, size_t size)
{
	uint64_t ns0, ns1, ticks = ct_node(ct, n)->tsc_ticks;
	const char *ge = ct_node(ct, n)->open ? ">=" : "";

	if (cc->no_tsc || !strcmp(ct_time_mark(ct, n), "?"))
		snprintf(buf, size, "?");
	else if (!tm_tsc_to_ns(cc->tm, 0, &ns0) && !tm_tsc_to_ns(cc->tm, ticks, &ns1) &&
	    ns1 >= ns0) {
		ns1 -= ns0;
		snprintf(buf, size, "%s%" PRIu64 ".%03" PRIu64 "us", ge,
			 ns1 / 1000, ns1 % 1000);
	} else {
		snprintf(buf, size, "%s%" PRIu64 "tk", ge, ticks);
	}
	return buf;
}

/* A function's name for the tables: a code segment without symbols in
 * brackets, escaped. */
static const char *calls_name(const struct ct_func *f, char *buf, size_t size)
{
	char raw[512];

	if (f->kind == SYMFMT_SEGMENT)
		snprintf(raw, sizeof(raw), "[%s]", f->name);
	else
		snprintf(raw, sizeof(raw), "%s", f->name);
	return esc_str(buf, size, raw);
}

/* Print node @n and, down to --depth, its children. */
static void calls_node(const struct calls_cmd *cc, const struct ct *ct,
		       uint32_t n)
{
	const struct ct_node *node = ct_node(ct, n);
	char tot[48], self[48], tm[48], name[2048];
	uint32_t *kids;
	size_t nk, i;

	if (n != CT_ROOT) {
		/* entered without a call: a signal's handler, as :funcs says */
		printf("%8" PRIu64 " %13" PRIu64 " %16s %16s %12s  %*s%s%s\n",
		       node->calls, node->insns,
		       ct_sum_str(&node->total, tot, sizeof(tot)),
		       ct_sum_str(&node->self, self, sizeof(self)),
		       calls_time(cc, ct, n, tm, sizeof(tm)),
		       (int)(2 * (node->depth - 1)), "",
		       calls_name(ct_func(ct, node->func), name, sizeof(name)),
		       !node->entries ? "" : node->entries < node->calls ?
		       " (signals, calls)" : " (signal)");
		if (cc->depth && node->depth >= cc->depth)
			return;
	}
	kids = malloc(ct_nnodes(ct) * sizeof(*kids));
	if (!kids)
		return;
	nk = ct_children(ct, n, cc->sort, kids, 0);
	for (i = 0; i < nk; i++)
		calls_node(cc, ct, kids[i]);
	free(kids);
}

static void calls_top(const struct calls_cmd *cc, const struct ct *ct,
		      enum ct_order order, const char *title)
{
	uint32_t *idx = malloc((ct_nfuncs(ct) + 1) * sizeof(*idx));
	char cyc[48], name[2048];
	size_t n, i;

	if (!idx)
		return;
	n = ct_top(ct, order, idx, cc->top);
	printf("\ntop functions by %s:\n%16s %13s %8s  %s\n", title, "cycles",
	       "instructions", "calls", "function");
	for (i = 0; i < n; i++) {
		const struct ct_func *f = ct_func(ct, idx[i]);

		printf("%16s %13" PRIu64 " %8" PRIu64 "  %s\n",
		       ct_sum_str(&f->cyc, cyc, sizeof(cyc)), f->insns, f->calls,
		       calls_name(f, name, sizeof(name)));
	}
	free(idx);
}

static void calls_print(const struct calls_cmd *cc, const struct ct *ct,
			uint64_t from, uint64_t to)
{
	const struct ct_node *root = ct_node(ct, CT_ROOT);
	char cyc[48], tm[48], ins[64];

	/* nothing could be decoded, or the flow broke and nothing was:
	 * no exact 0s (its cycles unknown, not 0) */
	snprintf(cyc, sizeof(cyc), "?");
	if (root->insns || !*ctjob_none(ct, cc->no_psb, ins, sizeof(ins))) {
		snprintf(ins, sizeof(ins), "%" PRIu64 " instructions", root->insns);
		ct_sum_str(&root->total, cyc, sizeof(cyc));
	}
	printf("%s [0x%" PRIx64 ", 0x%" PRIx64 "): %s, cycles %s, time %s\n",
	       cc->t->streams[cc->idx].name, from, to, ins, cyc,
	       cc->no_tsc ? "unknown (no TSC packet in the range)" :
	       cc->held && !strcmp(ct_time_mark(ct, CT_ROOT), "?") ?
	       "unknown (MTC and CYC packets not timed: the TSC estimate holds "
	       "at each TSC packet; --mtc-freq with --cpuid-0x15.*, or --nom-freq)" :
	       calls_time(cc, ct, CT_ROOT, tm, sizeof(tm)));
	printf("cycles: N exact, ~N split between functions by instructions, "
	       "A-B bounded, >=N at least, ? unknown, +? some unknown; time: "
	       "from the deciding packets' estimated TSC, >=N a call still "
	       "open at the end, ? unknown\n");
	if (ct_truncated(ct))
		printf("(calls deeper than the tree keeps are counted in the "
		       "deepest function kept)\n");
	if (!cc->no_tree) {
		printf("\n%8s %13s %16s %16s %12s  %s\n", "calls", "instructions",
		       "cycles", "self cycles", "time", "function");
		calls_node(cc, ct, CT_ROOT);
	}
	calls_top(cc, ct, CT_BY_CYCLES, "cycles");
	calls_top(cc, ct, CT_BY_INSNS, "instructions");
	calls_top(cc, ct, CT_BY_CALLS, "calls");
}

/* Open the trace, its images and contexts; the stream in cc->idx.
 * Returns 0, or 1 after printing an error. */
static int calls_open(struct calls_cmd *cc, const char *path, const struct tm_config *timing)
{
	char err[512];
	size_t i;

	if (trace_open(&cc->t, path, err, sizeof(err)) < 0) {
		esc_line(stderr, CALLS_PROG, "%s", err);
		return 1;
	}
	/* `calls z.pt >> z.pt` would write into what it reads */
	if (export_refuse(cc->t, "-", err, sizeof(err)) < 0) {
		esc_line(stderr, CALLS_PROG, "%s", err);
		return 1;
	}
	if (!cc->t->nstreams) {
		esc_line(stderr, CALLS_PROG, "%s: no Intel PT data", path);
		return 1;
	}
	if (cc->stream) {
		cc->idx = perfdata_stream_named(cc->t, cc->stream, CALLS_PROG, path);
		if (cc->idx < 0)
			return 1;
	} else if (cc->t->nstreams > 1) {
		esc_line(stderr, CALLS_PROG, "%s has %zu streams; decoding '%s' "
			 "(choose with --stream)", path, cc->t->nstreams,
			 cc->t->streams[0].name);
	}
	/* the command line wins over what the file recorded */
	for (i = 0; i < cc->t->nstreams; i++) {
		struct tm_config c = *timing;

		tm_config_merge(&c, &cc->t->streams[i].timing);
		cc->t->streams[i].timing = c;
	}
	cc->tm = &cc->t->streams[cc->idx].timing;
	if (imgopt_load(&cc->set, &cc->io, cc->t, err, sizeof(err)) < 0) {
		esc_line(stderr, CALLS_PROG, "%s", err);
		return 1;
	}
	for (i = 0; i < imgopt_nmessages(cc->set) && i < 10; i++)
		esc_line(stderr, CALLS_PROG, "%s", imgopt_message(cc->set, i));
	if (imgopt_nmessages(cc->set) > 10)
		esc_line(stderr, CALLS_PROG, "and %zu more files without code",
			 imgopt_nmessages(cc->set) - 10);
	/* as flow says it: else a tree of nothing looks like an answer */
	if (!mi_count(cc->mi))
		esc_line(stderr, CALLS_PROG, "no code given (--raw, --elf or a "
			 "perf.data's files): every instruction is unknown");
	if (ctx_new(&cc->ctx_feed, cc->t, imgopt_sb(cc->set)) < 0) {
		esc_line(stderr, CALLS_PROG, "out of memory");
		return 1;
	}
	if (ctx_filter_active(&cc->filter) && !imgopt_sb(cc->set)) {
		esc_line(stderr, CALLS_PROG, "%s: no sideband (a raw trace): --pid, "
			 "--tid and --comm need a perf.data file", path);
		return 1;
	}
	if (ctx_filter_active(&cc->filter) &&
	    ctx_sideband_doubt(cc->t, err, sizeof(err)))
		esc_line(stderr, CALLS_PROG, "%s", err);
	return 0;
}

/* calls_find_tsc()'s range, and its answer. */
struct calls_scan {
	const struct img *img;
	uint64_t from, to;
	int found;
};

/* Whether a TSC packet lies in [from, to) from its first PSB on, as the
 * decode of the range reads them (resyncing after an error), under
 * trace_guard(); sets sc->found.  Returns 0. */
static int calls_find_tsc(void *arg)
{
	struct calls_scan *sc = arg;
	struct img_cursor cur;
	struct pkt pkt;
	int r;

	if (img_cursor_init(&cur, sc->img, sc->from) < 0 ||
	    img_cursor_sync_forward(&cur, sc->from) < 0)
		return 0;
	while (img_cursor_offset(&cur) < sc->to) {
		r = img_cursor_next(&cur, &pkt);
		if (r == -pte_eos)
			break;
		if (r == -pte_gap)
			continue;	/* the cursor is on the next PSB */
		if (r < 0) {
			if (img_cursor_sync_forward(&cur, pkt.offset + 1) < 0)
				break;
			continue;
		}
		if (pkt.type == PKT_TSC && pkt.offset < sc->to) {
			sc->found = 1;
			break;
		}
	}
	return 0;
}

/* Whether [@from, @to) has no TSC packet where its time is unknown (the
 * time model's TSC is then relative, and every call "took" 0 ticks): the
 * first line says why. */
static int calls_no_tsc(const struct calls_cmd *cc, const struct ct *ct,
			uint64_t from, uint64_t to)
{
	struct calls_scan sc = { &cc->t->streams[cc->idx].img, from, to, 0 };

	if (strcmp(ct_time_mark(ct, CT_ROOT), "?"))
		return 0;
	if (trace_guard(calls_find_tsc, &sc) < 0)
		return 0;
	return !sc.found;
}

/*
 * Whether the time model may hold its estimate between TSC packets:
 * without the MTC and crystal configuration MTCs are ignored, and CYCs
 * are timed only with P1 or once a period between two TSCs calibrated
 * them.  A deciding packet's estimate is then the TSC before it, and the
 * first ones of a range may be a PSB period early: the tree leaves those
 * out (ctflow.c), and where no time is left this says why.
 */
static int calls_held(const struct tm_config *tm)
{
	return !tm || (!(tm->have_mtc_freq && tm->have_cpuid_15) &&
		       !tm->have_nom_freq);
}

/* Decode [@from, @to) into a tree and print it.  Returns the exit status. */
static int calls_decode(struct calls_cmd *cc, const char *path, uint64_t from,
			uint64_t to)
{
	const struct img *img = &cc->t->streams[cc->idx].img;
	struct ctx_range *keep = NULL, range = { from, to };
	struct ctjob job;
	size_t nkeep = 0;
	uint64_t psb;
	int rc = 1, r;

	memset(&job, 0, sizeof(job));
	job.t = cc->t;
	job.stream = cc->idx;
	job.set = cc->set;
	job.tm = cc->tm;
	job.from = from;
	job.to = to;
	/* a decode starts at a PSB: from the one at or before FROM, else
	 * what [FROM, the PSB after) decided was lost (all of a range
	 * without a PSB); only what packets in [FROM, TO) decide counts */
	if (img_find_psb_before(img, from + 1, &psb))
		psb = from;
	cc->no_psb = ctjob_range(&job, img, psb, from, to, &range);
	if (ctx_filter_active(&cc->filter)) {
		if (ctx_ranges_in(cc->ctx_feed, &cc->filter, cc->idx, from, to, &keep,
				  &nkeep) < 0) {
			esc_line(stderr, CALLS_PROG, "out of memory");
			goto out;
		}
		if (!nkeep)
			esc_line(stderr, CALLS_PROG, "%s: nothing in stream '%s' ran as "
				 "the task asked for", path, cc->t->streams[cc->idx].name);
		/* with nothing kept, the tree stays empty */
		job.restricted = 1;
		job.keep = keep;
		job.nkeep = nkeep;
	}
	r = ctjob_run(&job);
	if (r == -pte_sigbus) {
		esc_line(stderr, CALLS_PROG, "%s: the file shrank while being read", path);
		goto out;
	}
	if (r == -pte_nomem) {
		esc_line(stderr, CALLS_PROG, "out of memory");
		goto out;
	}
	if (r < 0) {
		esc_line(stderr, CALLS_PROG, "%s: %s", path, pte_strerror(r));
		goto out;
	}
	cc->no_tsc = calls_no_tsc(cc, job.ct, job.from, to);
	cc->held = calls_held(cc->tm);
	calls_print(cc, job.ct, from, to);
	rc = 0;
	if (fflush(stdout) || ferror(stdout)) {
		esc_line(stderr, CALLS_PROG, "write error: %s", strerror(errno));
		rc = 1;
	}
out:
	ctjob_release(&job);
	free(keep);
	return rc;
}

int cmd_calls_main(int argc, char **argv)
{
	struct calls_cmd cc;
	struct tm_config timing;
	uint64_t from = 0, to = 0, size;
	int have_to = 0, rc = 2, r;
	const char *region = NULL;
	char *path, err[512];
	const struct opt_group groups[] = {
		{ "options:", calls_opts, calls_take, &cc },
		{ IMGOPT_HEADING, imgopt_opts, imgopt_take, &cc.io },
		{ TIMING_OPT_HEADING, timing_opts, timing_opt_take, &timing },
	};
	const struct opt_cmd cmd = { "ptbrowse calls",
"usage: ptbrowse calls [options] TRACE[:FROM[-TO]]\n"
"       ptbrowse calls [options] TRACE:REGION\n"
"\n"
"Print the call tree of the instructions TRACE says were executed (as\n"
"`ptbrowse flow` decodes them) and the functions that took the most cycles,\n"
"instructions and calls.  FROM and TO are stream offsets: what the packets\n"
"in [FROM, TO) decide, decoded from the PSB at or before FROM.  REGION is a\n"
"region of the trace's marks (ptbrowse marks lists them), or a mark or\n"
"bookmark, from there to the end.\n",
		groups, 3 };

	memset(&cc, 0, sizeof(cc));
	memset(&timing, 0, sizeof(timing));
	ctx_filter_init(&cc.filter);
	cc.top = 10;
	cc.sort = CT_BY_CYCLES;
	imgopt_init(&cc.io);
	if (mi_new(&cc.mi) < 0) {
		esc_line(stderr, CALLS_PROG, "out of memory");
		return 1;
	}
	cc.io.mi = cc.mi;	/* --raw dumps load as they are parsed */
	r = opt_parse(&cmd, argc, argv);
	if (r < 0) {
		rc = opt_status(r);
		goto out;
	}
	tm_config_merge(&timing, &cc.io.timing);	/* --options under the command line's */
	/* with none, the usage too, as dump and flow */
	if (opt_one_trace(&cmd, r, argv) < 0)
		goto out;
	path = argv[1];
	r = range_split(path, &from, &to, &have_to);
	if (r < 0) {
		esc_line(stderr, CALLS_PROG, "%s: bad range (FROM-TO: 0x hex or decimal, TO above FROM)", path);
		goto out;
	}
	if (!r)
		range_split_name(path, &region);
	rc = 1;
	if (calls_open(&cc, path, &timing))
		goto out;
	if (region) {
		if (range_of_name(cc.t, (size_t)cc.idx, region, &from, &to, err,
				  sizeof(err)) < 0) {
			esc_line(stderr, CALLS_PROG, "%s", err);
			goto out;
		}
		have_to = 1;
	}
	size = cc.t->streams[cc.idx].img.size;
	if (from >= size || (have_to && to > size)) {
		esc_line(stderr, CALLS_PROG, "%s: range is outside the trace (size 0x%"
			 PRIx64 ")", path, size);
		goto out;
	}
	rc = calls_decode(&cc, path, from, have_to ? to : size);
out:
	ctx_free(cc.ctx_feed);
	mi_free(cc.mi);
	imgopt_free(cc.set);
	imgopt_release(&cc.io);
	trace_close(cc.t);
	return rc;
}
