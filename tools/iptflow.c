/*
 * iptflow -- libipt's instruction flow of a raw Intel PT trace: the
 * reference that `ptbrowse flow --insn-only` is compared with.
 *
 *   iptflow [--raw FILE:ADDR]... [--options FILE] [--blk] [--count] TRACE
 *
 * Runs libipt's instruction decoder (pt_insn_decoder) over TRACE with the
 * raw memory images given by --raw (FILE loaded at ADDR, as ptxed's --raw;
 * later images hide earlier ones where they overlap), synchronising forward
 * at every PSB and after every error, as ptxed does.  --options FILE reads
 * more options from FILE, one per line (the kAFL traces' NAME.options),
 * with relative paths taken from FILE's directory; a line of timing
 * options (ptgen's and ptrecord's TRACE.options begin with one) is
 * skipped: the flow does not depend on them.  A TRACE or options FILE
 * must be a regular file (a FIFO is refused, not waited on).
 *
 * Output, one line each (the format of ../shared/traces/libxdc-kafl-flow/
 * expected/NAME.flow.gz and of `ptbrowse flow --insn-only`):
 *   00007ffff7902cd7          an instruction: its IP, 16 hex digits
 *   [enabled] [resumed] [disabled] [overflow] [exec mode: 64-bit] ...
 *                             an event, as ptxed prints it; status updates
 *                             (the PSB+ restating the state) only for the
 *                             exec mode, timing events (cbr, tick, mnt)
 *                             never: that is what the expected files hold
 *   [60: error: MESSAGE]      a decode error at trace offset 0x60
 *                             (libipt's pt_errstr), after which decoding
 *                             resumes at the next PSB
 *
 * --count prints only "N instructions, N errors".  --blk runs libipt's
 * block decoder (pt_blk_next) instead and prints the count only (for
 * benchmarks: the block decoder yields no per-instruction IPs).
 *
 * Typical use (helper tools, tests):
 *   iptflow --options ../shared/traces/libxdc-kafl-flow/unzip.options \
 *           ../shared/traces/libxdc-kafl-flow/unzip_trace.pt | diff - ref
 * A recorded trace of tools/ptrecord:
 *   iptflow --raw prog.text.bin:0x401000 trace.pt
 *
 * Exit status 0 if decoding ran (decode errors are output, not failure),
 * 1 if a file cannot be read, 2 on a usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <intel-pt.h>

#include "safefile.h"

struct opts {
	struct pt_image *image;
	const char *trace;
	int blk;
	int count;
	int time;
};

/* The usage (with --help's text on stdout); returns the exit status. */
static int usage(FILE *f)
{
	fprintf(f, "usage: iptflow [--raw FILE:ADDR]... [--options FILE] "
		"[--blk] [--count] [--time] TRACE\n");
	if (f == stdout)
		printf("libipt's instruction flow of a raw Intel PT trace, as "
		       "ptxed prints it.\n"
		       "  --raw FILE:ADDR  a memory image: FILE loaded at ADDR\n"
		       "  --options FILE   --raw lines (FILE relative to its "
		       "directory); timing\n"
		       "                   lines (--cpu, --mtc-freq, ...) are "
		       "skipped\n"
		       "  --blk            libipt's block decoder: counts only\n"
		       "  --count          only 'N instructions, N errors'\n"
		       "  --time           the decoding time on stderr\n");
	return f == stdout ? 0 : 2;
}

/* Whether @opt is a timing option (a line of them in ptgen's and
 * ptrecord's TRACE.options): nothing to the instruction flow. */
static int timing_line(const char *opt)
{
	static const char *const names[] = {
		"--cpu", "--mtc-freq", "--nom-freq", "--cpuid-0x15.eax",
		"--cpuid-0x15.ebx", "--cpuid-0x15.ecx", "--tsc-freq",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(opt, names[i]))
			return 1;
	return 0;
}

/* Add FILE:ADDR to the image; FILE relative to @dir unless absolute. */
static int add_raw(struct pt_image *image, const char *spec, const char *dir)
{
	char path[4096];
	const char *colon = strrchr(spec, ':');
	unsigned long long addr;
	struct stat st;
	char *end;
	int err;

	if (!colon || colon == spec) {
		fprintf(stderr, "iptflow: --raw %s: expected FILE:ADDR\n", spec);
		return -1;
	}
	errno = 0;
	addr = strtoull(colon + 1, &end, 0);
	if (errno || *end || end == colon + 1) {
		fprintf(stderr, "iptflow: --raw %s: bad address\n", spec);
		return -1;
	}
	if (dir && spec[0] != '/')
		snprintf(path, sizeof(path), "%s/%.*s", dir, (int)(colon - spec), spec);
	else
		snprintf(path, sizeof(path), "%.*s", (int)(colon - spec), spec);
	if (stat(path, &st)) {
		fprintf(stderr, "iptflow: %s: %s\n", path, strerror(errno));
		return -1;
	}
	err = pt_image_add_file(image, path, 0, (uint64_t)st.st_size, NULL, addr);
	if (err < 0) {
		fprintf(stderr, "iptflow: %s: %s\n", path, pt_errstr(pt_errcode(err)));
		return -1;
	}
	return 0;
}

static int read_options(struct opts *o, const char *file)
{
	char dir[4096], line[4096];
	const char *slash = strrchr(file, '/');
	FILE *f = safefile_fopen_read(file, 0);	/* never a FIFO */
	int ret = 0;

	if (!f) {
		fprintf(stderr, "iptflow: %s: %s\n", file, safefile_strerror(errno));
		return -1;
	}
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - file) : 1,
		 slash ? file : ".");
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *arg;

		line[strcspn(line, "\r\n")] = 0;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '#')
			continue;
		arg = strpbrk(p, " \t=");
		if (arg) {
			*arg++ = 0;
			while (*arg == ' ' || *arg == '\t')
				arg++;
		}
		if (!strcmp(p, "--raw") && arg && *arg) {
			if (add_raw(o->image, arg, dir)) {
				ret = -1;
				break;
			}
		} else if (!timing_line(p)) {
			fprintf(stderr, "iptflow: %s: unknown option %s\n", file, p);
			ret = -1;
			break;
		}
	}
	fclose(f);
	return ret;
}

static const char *exec_mode_name(enum pt_exec_mode mode)
{
	switch (mode) {
	case ptem_16bit: return "16-bit";
	case ptem_32bit: return "32-bit";
	case ptem_64bit: return "64-bit";
	default: return "unknown";
	}
}

/* An event as ptxed prints it (without offset and time). */
static void print_event(const struct pt_event *ev)
{
	switch (ev->type) {
	case ptev_enabled:
		printf("%s\n", ev->variant.enabled.resumed ? "[resumed]" : "[enabled]");
		break;
	case ptev_disabled:
	case ptev_async_disabled:
		printf("[disabled]\n");
		break;
	case ptev_async_branch:
		printf("[interrupt]\n");
		break;
	case ptev_paging:
	case ptev_async_paging:
		printf("[paging, cr3: %016" PRIx64 "%s]\n", ev->variant.paging.cr3,
		       ev->variant.paging.non_root ? ", nr" : "");
		break;
	case ptev_overflow:
		printf("[overflow]\n");
		break;
	case ptev_exec_mode:
		printf("[exec mode: %s]\n", exec_mode_name(ev->variant.exec_mode.mode));
		break;
	case ptev_tsx:
		if (ev->variant.tsx.aborted)
			printf("[aborted]\n");
		else if (ev->variant.tsx.speculative)
			printf("[begin transaction]\n");
		else
			printf("[committed]\n");
		break;
	case ptev_stop:
		printf("[stopped]\n");
		break;
	case ptev_vmcs:
	case ptev_async_vmcs:
		printf("[vmcs, base: %016" PRIx64 "]\n", ev->variant.vmcs.base);
		break;
	case ptev_exstop:
		printf("[exstop]\n");
		break;
	case ptev_mwait:
		printf("[mwait %" PRIx32 " %" PRIx32 "]\n", ev->variant.mwait.hints,
		       ev->variant.mwait.ext);
		break;
	case ptev_pwre:
		printf("[pwre c%u.%u (%s)]\n", (ev->variant.pwre.state + 1) & 0xf,
		       (ev->variant.pwre.sub_state + 1) & 0xf,
		       ev->variant.pwre.hw ? "hw" : "sw");
		break;
	case ptev_pwrx: {
		const char *why = ev->variant.pwrx.interrupt ? "int" :
			ev->variant.pwrx.store ? "st" :
			ev->variant.pwrx.autonomous ? "hw" : "?";

		printf("[pwrx %s: c%u (c%u)]\n", why,
		       (ev->variant.pwrx.last + 1) & 0xf,
		       (ev->variant.pwrx.deepest + 1) & 0xf);
		break;
	}
	case ptev_ptwrite:
		printf("[ptwrite: %" PRIx64 "]\n", ev->variant.ptwrite.payload);
		break;
	case ptev_tick:
		printf("[tick]\n");
		break;
	case ptev_cbr:
		printf("[cbr: %x]\n", ev->variant.cbr.ratio);
		break;
	case ptev_mnt:
		printf("[mnt: %" PRIx64 "]\n", ev->variant.mnt.payload);
		break;
	default:
		printf("[event %d]\n", (int)ev->type);
		break;
	}
}

/* Whether @ev is part of the flow as printed: a status update (the PSB+
 * restating the state) only for the execution mode, and no timing events
 * (cbr, tick, mnt), which say nothing about the instructions. */
static int shown(const struct pt_event *ev)
{
	switch (ev->type) {
	case ptev_exec_mode:
		return 1;
	case ptev_cbr:
	case ptev_tick:
	case ptev_mnt:
		return 0;
	default:
		return !ev->status_update;
	}
}

static void diagnose(uint64_t off, int ok, int err)
{
	if (ok)
		printf("[%" PRIx64 ": error: %s]\n", off, pt_errstr(pt_errcode(err)));
	else
		printf("[?: error: %s]\n", pt_errstr(pt_errcode(err)));
}

struct counts {
	uint64_t insns, errors;
};

static int drain_insn(struct pt_insn_decoder *dec, int status, int quiet)
{
	while (status & pts_event_pending) {
		struct pt_event ev;

		status = pt_insn_event(dec, &ev, sizeof(ev));
		if (status < 0)
			break;
		if (!quiet && shown(&ev))
			print_event(&ev);
	}
	return status;
}

static void decode_insn(struct pt_insn_decoder *dec, int quiet, struct counts *c)
{
	uint64_t sync = 0, off;

	for (;;) {
		struct pt_insn insn;
		int status;

		status = pt_insn_sync_forward(dec);
		if (status < 0) {
			uint64_t new_sync;

			if (status == -pte_eos)
				break;
			c->errors++;
			if (!quiet) {
				int ok = pt_insn_get_offset(dec, &off) >= 0;

				diagnose(off, ok, status);
			}
			if (pt_insn_get_offset(dec, &new_sync) < 0 || new_sync <= sync)
				break;
			sync = new_sync;
			continue;
		}
		for (;;) {
			status = drain_insn(dec, status, quiet);
			if (status < 0)
				break;
			if (status & pts_eos) {
				status = -pte_eos;
				break;
			}
			memset(&insn, 0, sizeof(insn));
			status = pt_insn_next(dec, &insn, sizeof(insn));
			if (status < 0) {
				if (insn.iclass != ptic_error) {
					c->insns++;
					if (!quiet)
						printf("%016" PRIx64 "\n", insn.ip);
				}
				break;
			}
			c->insns++;
			if (!quiet)
				printf("%016" PRIx64 "\n", insn.ip);
		}
		if (!status)
			status = -pte_internal;
		if (status == -pte_eos)
			break;
		c->errors++;
		if (!quiet) {
			int ok = pt_insn_get_offset(dec, &off) >= 0;

			diagnose(off, ok, status);
		}
	}
}

static int drain_blk(struct pt_block_decoder *dec, int status)
{
	while (status & pts_event_pending) {
		struct pt_event ev;

		status = pt_blk_event(dec, &ev, sizeof(ev));
		if (status < 0)
			break;
	}
	return status;
}

static void decode_blk(struct pt_block_decoder *dec, struct counts *c)
{
	uint64_t sync = 0;

	for (;;) {
		struct pt_block block;
		int status;

		status = pt_blk_sync_forward(dec);
		if (status < 0) {
			uint64_t new_sync;

			if (status == -pte_eos)
				break;
			c->errors++;
			if (pt_blk_get_offset(dec, &new_sync) < 0 || new_sync <= sync)
				break;
			sync = new_sync;
			continue;
		}
		for (;;) {
			status = drain_blk(dec, status);
			if (status < 0)
				break;
			if (status & pts_eos) {
				status = -pte_eos;
				break;
			}
			status = pt_blk_next(dec, &block, sizeof(block));
			c->insns += block.ninsn;
			if (status < 0)
				break;
		}
		if (!status)
			status = -pte_internal;
		if (status == -pte_eos)
			break;
		c->errors++;
	}
}

int main(int argc, char **argv)
{
	struct opts o = { 0 };
	struct pt_config cfg;
	struct counts c = { 0, 0 };
	struct timespec t0, t1;
	struct stat st;
	uint8_t *map;
	int i, fd, ret = 1;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		return usage(stdout);
	o.image = pt_image_alloc("iptflow");
	if (!o.image)
		return 1;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--raw") && i + 1 < argc) {
			if (add_raw(o.image, argv[++i], NULL))
				goto out_image;
		} else if (!strncmp(argv[i], "--raw=", 6)) {
			if (add_raw(o.image, argv[i] + 6, NULL))
				goto out_image;
		} else if (!strcmp(argv[i], "--options") && i + 1 < argc) {
			if (read_options(&o, argv[++i]))
				goto out_image;
		} else if (!strcmp(argv[i], "--blk")) {
			o.blk = 1;
		} else if (!strcmp(argv[i], "--count")) {
			o.count = 1;
		} else if (!strcmp(argv[i], "--time")) {
			o.time = 1;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			ret = usage(stderr);
			goto out_image;
		} else if (!o.trace) {
			o.trace = argv[i];
		} else {
			ret = usage(stderr);
			goto out_image;
		}
	}
	if (!o.trace) {
		ret = usage(stderr);
		goto out_image;
	}
	/* a regular file only: a FIFO would block, a directory or device
	 * cannot be mapped */
	fd = safefile_open_read(o.trace, 0);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "iptflow: %s: %s\n", o.trace, safefile_strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out_image;
	}
	if (!st.st_size) {
		close(fd);
		ret = 0;
		goto out_image;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		fprintf(stderr, "iptflow: %s: %s\n", o.trace, strerror(errno));
		goto out_image;
	}
	pt_config_init(&cfg);
	cfg.begin = map;
	cfg.end = map + st.st_size;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (o.blk) {
		struct pt_block_decoder *dec = pt_blk_alloc_decoder(&cfg);

		if (!dec)
			goto out_unmap;
		pt_blk_set_image(dec, o.image);
		decode_blk(dec, &c);
		pt_blk_free_decoder(dec);
	} else {
		struct pt_insn_decoder *dec = pt_insn_alloc_decoder(&cfg);

		if (!dec)
			goto out_unmap;
		pt_insn_set_image(dec, o.image);
		decode_insn(dec, o.count, &c);
		pt_insn_free_decoder(dec);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (o.count || o.blk)
		printf("%" PRIu64 " instructions, %" PRIu64 " errors\n", c.insns, c.errors);
	if (o.time)
		fprintf(stderr, "%.6f s\n", (double)(t1.tv_sec - t0.tv_sec) +
			(double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	ret = 0;
out_unmap:
	munmap(map, (size_t)st.st_size);
out_image:
	pt_image_free(o.image);
	return ret;
}
