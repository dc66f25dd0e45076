/*
 * cmd_export -- `ptbrowse export`: write the raw PT bytes of a range as a
 * file ptdump, ptxed or perf tooling can decode alone.
 *
 * The slice starts at the PSB at or before FROM, since a decoder needs a
 * PSB to synchronise, and ends at the first packet boundary at or after
 * TO, so the last packet is whole.  FROM and TO are the browser's goto
 * targets (goto_idx.h) or names from the marks.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmds.h"
#include "esc.h"
#include "export.h"
#include "goto_idx.h"
#include "image.h"
#include "marks.h"
#include "opt.h"
#include "safefile.h"
#include "timing_opt.h"
#include "trace.h"
#include "perfdata.h"

enum { X_OUT, X_STREAM, X_NOPTS };

static const struct opt export_opts[] = {
	{ NULL, 'o', "FILE", "the output file, replaced once the slice is written;\n"
	  "- is standard output", X_OUT },
	{ "stream", 0, "S", "the stream of a perf.data file (index, cpuN or name)",
	  X_STREAM },
	{ 0 }
};

static void report_stderr(void *ctx, const char *msg)
{
	esc_line(stderr, "ptbrowse export: ", "%s", msg);
}

/* FROM or TO: a name from @set (NULL: none; @end picks a region's end,
 * as REGION.end does), else a goto target as :goto takes it, a relative
 * one moving from @cursor, in a stream of @size bytes.  Returns 0, -2
 * (reported) if @spec does not parse (a usage error, as dump's bad range
 * and the browser's bad +GOTO are), or -1 (reported) if it names nothing
 * here or lies past the end. */
static int resolve(struct goto_idx *g, const struct marks_set *set,
		   const char *path, const char *spec, int end, uint64_t cursor,
		   uint64_t size, uint64_t *off)
{
	struct goto_target gt;
	char err[512];
	const char *why = err;
	int bad;

	/* A plain offset past the end goes on to goto, which says so, as
	 * it does for 1GiB (the marks take any number: it was clamped). */
	if ((!marks_resolve(set, spec, end, off) && *off <= size) ||
	    !goto_idx_offset(g, spec, cursor, off, err, sizeof(err)))
		return 0;
	/* A word that is no target, or a name the marks lack. */
	bad = goto_parse(spec, &gt, err, sizeof(err)) < 0;
	if (bad || gt.kind == GOTO_MARK || gt.kind == GOTO_REGION) {
		esc_line(stderr, "ptbrowse export: ", "%s: '%s' is neither an offset "
			"nor a goto target, mark, bookmark or region of this trace",
			path, spec);
		return bad ? -2 : -1;
	}
	if (!strncmp(why, "goto: ", 6))
		why += 6;
	esc_line(stderr, "ptbrowse export: ", "%s: %s", path, why);
	return -1;
}

/* Parse export's command line: the operands (TRACE and FROM TO, or
 * TRACE REGION) into @pos and *@npos, -o into *@out, --stream into
 * *@stream (NULL if not given), the timing options into @timing.
 * Returns 0, or a negative errno after --help or a reported usage error
 * (opt_status() gives the exit status). */
static int export_parse(int argc, char **argv, const char *pos[3], int *npos,
			const char **out, const char **stream,
			struct tm_config *timing)
{
	const char *args[X_NOPTS] = { NULL };
	const struct opt_group groups[] = {
		{ "options:", export_opts, opt_take_str, args },
		{ TIMING_OPT_HEADING, timing_opts, timing_opt_take, timing },
	};
	const struct opt_cmd cmd = { "ptbrowse export",
"usage: ptbrowse export [--stream S] TRACE FROM TO -o FILE\n"
"       ptbrowse export [--stream S] TRACE REGION -o FILE\n"
"\n"
"Write the raw Intel PT bytes of TRACE from the PSB at or before FROM up\n"
"to TO (exclusive; a packet that TO cuts is kept whole) into FILE, which\n"
"then decodes on its own, e.g. with ptdump.\n"
"FROM and TO are what :goto takes (0x1f5c, 4KiB, 50%, $, 'psb 12',\n"
"'tsc 0x1a2b', 't 12.5ms', \"'a\", '#1234'; a relative TO such as +64KiB\n"
"or 't +3us' counts from FROM), or names from the trace's marks: a mark\n"
"letter, a bookmark, a region (its start for FROM, its end for TO), or\n"
"REGION.start / REGION.end.  FILE gets FILE.options beside it, the\n"
"timing options of the stream with those given here; they also place\n"
"'t' targets.\n", groups, 2 };
	int r, i;

	r = opt_parse(&cmd, argc, argv);
	if (r < 0)
		return r;
	if (r > 3) {
		opt_error(&cmd, "too many arguments: %s", argv[4]);
		return -EINVAL;
	}
	for (i = 0; i < r; i++)
		pos[i] = argv[1 + i];
	*npos = r;
	*out = args[X_OUT];
	*stream = args[X_STREAM];
	if (r < 2 || !*out) {
		opt_error(&cmd, "%s", r < 2 ?
			  "give a trace and a range (FROM TO, or a region)" :
			  "no output file (-o FILE)");
		opt_usage(&cmd, stderr);
		return -EINVAL;
	}
	return 0;
}

int cmd_export_main(int argc, char **argv)
{
	struct marks_opts opts = { .flags = BM_NO_STATE, .report = report_stderr };
	const char *pos[3], *out = NULL, *stream = NULL, *path;
	struct export_result res;
	const struct img *img;
	uint64_t from, to;
	struct marks_set *set = NULL;
	struct goto_idx *g = NULL;
	struct trace *t = NULL;
	struct tm_config timing = { 0 };
	struct safefile_keep keep[EXPORT_NKEEP];
	size_t nkeep;
	int npos = 0, idx, rc = 1, r;
	char err[4096];

	r = export_parse(argc, argv, pos, &npos, &out, &stream, &timing);
	if (r < 0)
		return opt_status(r);
	path = pos[0];
	safefile_remove_on_signals();
	if (trace_open(&t, path, err, sizeof(err)) < 0) {
		esc_line(stderr, "ptbrowse export: ", "%s", err);
		return 1;
	}
	idx = 0;
	if (stream && (idx = perfdata_stream_named(t, stream, "ptbrowse export: ", path)) < 0)
		goto out_close;
	if (!stream && t->nstreams > 1)
		esc_line(stderr, "ptbrowse export: ", "%s has %zu streams; exporting "
			"'%s' (choose with --stream)", path, t->nstreams,
			t->streams[0].name);
	if (!t->nstreams) {
		esc_line(stderr, "ptbrowse export: ", "%s: no Intel PT data", path);
		goto out_close;
	}
	img = &t->streams[idx].img;
	/* Options on the command line win over the trace's (and go into
	 * FILE.options with them). */
	tm_config_merge(&timing, &t->streams[idx].timing);
	t->streams[idx].timing = timing;
	/* Names need the marks; plain offsets work without them. */
	r = marks_open_trace(&set, t, (size_t)idx, &opts);
	if (r < 0)
		set = NULL;
	if (goto_idx_new(&g, t, (size_t)idx, &t->streams[idx].timing, set) < 0) {
		esc_line(stderr, "ptbrowse export: ", "out of memory");
		goto out_free;
	}
	if ((r = resolve(g, set, path, pos[1], 0, 0, img->size, &from)) < 0 ||
	    (r = resolve(g, set, path, pos[npos - 1], 1, from, img->size, &to)) < 0) {
		rc = r == -2 ? 2 : 1;
		goto out_free;
	}
	/* Binary data on a terminal helps nobody and can upset it. */
	if (!strcmp(out, "-") && isatty(STDOUT_FILENO)) {
		esc_line(stderr, "ptbrowse export: ", "standard output is a terminal; "
			"redirect it or give a file (-o FILE)");
		goto out_free;
	}
	nkeep = export_keep(t, marks_file(set), keep);
	r = export_slice(t, img, from, to, out, SAFEFILE_STDOUT, keep, nkeep,
			 &res, err, sizeof(err));
	if (r == -pte_sigbus) {
		esc_line(stderr, "ptbrowse export: ", "%s: the file shrank while "
			"being read", path);	/* as dump, info and index say */
		goto out_free;
	}
	if (r < 0) {
		esc_line(stderr, "ptbrowse export: ", "%s%s%s", r == -pte_io ? "" : path,
			r == -pte_io ? "" : ": ", err);
		goto out_free;
	}
	if (res.gaps)
		esc_line(stderr, "ptbrowse export: ", "%s: %" PRIu64 " gaps (lost data) "
			"inside the range are joined in %s", path, res.gaps, out);
	esc_line(stderr, "ptbrowse export: ", "wrote %s: 0x%" PRIx64 "-0x%" PRIx64
		" of %s (%" PRIu64 " bytes)", strcmp(out, "-") ? out :
		"standard output", res.start, res.end, path,
		res.end - res.start);
	rc = 0;
out_free:
	goto_idx_free(g);
	marks_close(set);
out_close:
	trace_close(t);
	return rc;
}
