/* main -- pick the subcommand; with none, browse. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "version.h"

static const struct subcmd {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} subcmds[] = {
	{ "dump", cmd_dump_main, "print packets in ptdump's format" },
	{ "info", cmd_info_main, "describe a trace: container, streams, timing" },
	{ "extract", cmd_extract_main, "write each stream as a raw .pt file" },
	{ "marks", cmd_marks_main, "list a trace's saved marks and regions" },
	{ "export", cmd_export_main, "write a byte range as a trace ptdump can decode" },
	{ "index", cmd_index_main, "build or check the PSB index and summarise the trace" },
	{ "flow", cmd_flow_main, "print the instructions a trace says were executed" },
	{ "calls", cmd_calls_main, "print the call tree and top functions of a range" },
	{ "browse", cmd_browse_main, "open the interactive browser (the default)" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: ptbrowse [options] [+GOTO] TRACE\n"
		   "       ptbrowse COMMAND [options] ARGS\n\nbrowser options:\n");
	cmd_browse_options(f);
	fprintf(f, "\ncommands:\n");
	for (i = 0; i < sizeof(subcmds) / sizeof(subcmds[0]); i++)
		fprintf(f, "  %-10s %s\n", subcmds[i].name, subcmds[i].summary);
	fprintf(f, "\n'ptbrowse COMMAND --help' describes a command; "
		   "'man ptbrowse' describes them all;\n'ptbrowse --version' "
		   "prints the version.\n");
}

/*
 * The exit status @rc of a command, made 1 if what it wrote on stdout was
 * lost (ptbrowse index > /dev/full, ptbrowse --help > /dev/full) and it
 * did not say so itself: dump, info, marks, flow and calls check their
 * own output, index, extract's listing, --help and --version did not,
 * and output lost must not exit 0.  @name is the subcommand's, NULL for
 * ptbrowse's own (its usage, its version, the browser).
 */
static int main_out_status(const char *name, int rc)
{
	int e;

	errno = 0;
	if (fflush(stdout))
		e = errno;
	else if (ferror(stdout))
		e = 0;	/* an earlier write failed; its errno is gone */
	else
		return rc;
	if (rc)
		return rc;
	fprintf(stderr, "ptbrowse%s%s: write error%s%s\n", name ? " " : "",
		name ? name : "", e ? ": " : "", e ? strerror(e) : "");
	return 1;
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return main_out_status(NULL, 0);
	}
	if (argc >= 2 && !strcmp(argv[1], "--version")) {
		printf("ptbrowse %s\n", PTBROWSE_VERSION);
		return main_out_status(NULL, 0);
	}
	if (argc >= 2) {
		for (i = 0; i < sizeof(subcmds) / sizeof(subcmds[0]); i++)
			if (!strcmp(argv[1], subcmds[i].name) &&
			    subcmds[i].run == cmd_browse_main)
				return main_out_status(NULL, cmd_browse_main(argc - 1,
									    argv + 1));
			else if (!strcmp(argv[1], subcmds[i].name))
				return main_out_status(subcmds[i].name,
						       subcmds[i].run(argc - 1, argv + 1));
	}
	if (argc < 2) {
		fprintf(stderr, "ptbrowse: no trace given\n");
		usage(stderr);
		return 2;
	}
	/* its --help, and a script's output (ui/script.c) */
	return main_out_status(NULL, cmd_browse_main(argc, argv));
}
