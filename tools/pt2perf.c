/*
 * pt2perf -- wrap a raw Intel PT trace into a pipe-mode perf.data file, as
 * `perf record -e intel_pt// -o -` would write it: the intel_pt event's
 * attr, CPUID, AUXTRACE_INFO with the timing configuration ptgen uses
 * (ptgen --print-config), TIME_CONV, then the trace as AUXTRACE records of
 * --chunk bytes each for one CPU.  For benchmarks and tests: browsing the
 * result must be as fast as browsing the raw file.
 *
 *   pt2perf [--chunk BYTES] [--cpu N] [--hole OFF:LEN] [--switches N]
 *           [--lost-at OFF] [--sideband FILE] [--time-mult N] [--time-shift N]
 *           [--mtc-freq N] [--kernel] RAW... -o OUT
 *
 * --hole leaves the raw bytes [OFF, OFF + LEN) out, as lost AUX data: the
 * buffer offsets jump over them, which a reader must show as a gap.
 * --switches adds N context switch records before the data, --lost-at an
 * AUX record flagged truncated whose data ends at OFF, after them.
 *
 * Several RAW files are several CPUs' streams: each is the CPU of the
 * --cpu before it (a single RAW takes the last --cpu given anywhere), and
 * their AUXTRACE records alternate as perf writes them.  --sideband FILE
 * reads what tools/ptrecord wrote beside its trace (comm, fork, exit,
 * mmap2 and switch lines, times in TSC ticks) and writes COMM, FORK,
 * EXIT, MMAP2 (with the build ID where known) and SWITCH_CPU_WIDE records,
 * in time order, before the data; AUXTRACE_INFO then says context switch
 * events were recorded (have_sched_switch 3), as `perf record
 * --switch-events` does.  For tests, lines "lost CPU TSC N" and
 * "lost_samples CPU TSC N" (ptrecord writes none) become LOST and
 * LOST_SAMPLES records saying N were dropped.  Record times are perf times: the TSC through
 * TIME_CONV.  --time-shift and --time-mult set TIME_CONV's time_shift
 * (20 by default) and time_mult (perf time per 2^time_shift TSC ticks;
 * 873813 by default: a 1.2 GHz TSC, the max non-turbo ratio 12 of
 * AUXTRACE_INFO times 100 MHz, as ptgen's model): a large one puts events
 * seconds apart.
 * --mtc-freq N says the trace was recorded with an MTC every 2^N crystal
 * clocks (the attr's mtc_period; 3 by default, as ptgen's): it must be
 * what the recorder used (ptrecord --mtc-freq), or times are wrong.
 * The attr says user space only was traced (exclude_kernel, as
 * `intel_pt//u`): ptrecord records user code, and a context switch then
 * ends a stretch of tracing; --kernel says the kernel was traced too.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "safefile.h"

#define PMU_TYPE 8
#define ATTR_ID 1
/* pt (pass-through), cyc, pwr_evt, mtc, tsc, ptw, branch (BranchEn:
 * perf takes pass-through without it as branch tracing off),
 * cyc_thresh=1; mtc_period (bits 14..17) from mtc_freq: 3 as ptgen
 * --print-config, or --mtc-freq's.  ptgen and ptrecord write PWRE, PWRX,
 * EXSTOP, MWAIT and PTW: perf synthesizes power events only with
 * pwr_evt set. */
#define CONFIG (0x1ull | 0x2 | 0x10 | 0x200 | 0x400 | 0x1000 | 0x2000 | \
		(1ull << 19))
#define MTC_FREQ 3

static uint64_t mtc_freq = MTC_FREQ;
static int kernel_traced;	/* --kernel: no exclude_kernel in the attr */
#define SAMPLE_TYPE ((1ull << 1) | (1ull << 2) | (1ull << 7) | (1ull << 16))

static FILE *out;
static struct safefile *out_file;	/* out's; replaces -o only when done */
static const char *out_path;

static void put(const void *d, size_t n)
{
	if (fwrite(d, 1, n, out) != n) {
		fprintf(stderr, "pt2perf: %s: %s\n", out_path, strerror(errno));
		safefile_abort(out_file);
		exit(1);
	}
}

static void put64(uint64_t v) { put(&v, 8); }
static void put32(uint32_t v) { put(&v, 4); }

static void header_misc(uint32_t type, uint16_t misc, size_t size)
{
	uint16_t sz = (uint16_t)size;

	put32(type);
	put(&misc, 2);
	put(&sz, 2);
}

static void header(uint32_t type, size_t size)
{
	header_misc(type, 0, size);
}

/* The sample_id trailer of a sideband record (sample_id_all with
 * SAMPLE_TYPE: pid/tid, time, cpu, identifier). */
static void sample_id_of(uint32_t pid, uint32_t tid, uint32_t cpu,
			 uint64_t time)
{
	put32(pid);
	put32(tid);
	put64(time);
	put32(cpu);
	put32(0);
	put64(ATTR_ID);
}

static void sample_id(uint32_t cpu, uint64_t time)
{
	sample_id_of(1, 1, cpu, time);
}

/* TIME_CONV, as perf converts a TSC into a perf time: ns = TSC * 873813
 * >> 20, 1.2 GHz, the TSC AUXTRACE_INFO describes (max non-turbo ratio
 * 12, TSC:CTC 100/2, a 24 MHz crystal). */
#define TIME_SHIFT	20
#define TIME_MULT	873813
#define TIME_ZERO	0

static uint64_t time_mult = TIME_MULT, time_shift = TIME_SHIFT;

static uint64_t perf_time(uint64_t tsc)
{
	uint64_t quot = tsc >> time_shift, rem = tsc & ((1ull << time_shift) - 1);

	return TIME_ZERO + quot * time_mult + ((rem * time_mult) >> time_shift);
}

/* One sideband line of ptrecord, kept for sorting by time. */
struct sb_line {
	uint64_t tsc;
	size_t order;
	char *text;
};

static int sb_cmp(const void *a, const void *b)
{
	const struct sb_line *x = a, *y = b;

	if (x->tsc != y->tsc)
		return x->tsc < y->tsc ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static void put_str_padded(const char *str)
{
	static const char zero[8];
	size_t n = strlen(str) + 1;

	put(str, n);
	put(zero, (8 - n % 8) % 8);
}

static size_t padded(const char *str)
{
	return (strlen(str) + 1 + 7) / 8 * 8;
}

/* A test's "lost CPU TSC N" (LOST: id, lost) or "lost_samples CPU TSC N"
 * (LOST_SAMPLES: lost) line; returns 0, or -1 if it does not parse. */
static int sb_lost(const char *line, int samples)
{
	uint64_t tsc, count;
	unsigned cpu;

	if (sscanf(line, "%*s %u %" SCNu64 " %" SCNu64, &cpu, &tsc,
		   &count) != 3)
		return -1;
	if (samples) {
		header(13, 8 + 8 + 32);
	} else {
		header(2, 8 + 16 + 32);
		put64(ATTR_ID);
	}
	put64(count);
	sample_id_of(0, 0, cpu, perf_time(tsc));
	return 0;
}

/* The record of one sideband line; returns 0, or -1 if it does not parse. */
static int sb_record(const char *line)
{
	char kind[16], name[4096], bid[64], dir[8];
	unsigned pid, tid, ptid, cpu, maj, min, prot, flags, opid, otid;
	int exec, preempt, other;
	uint64_t tsc, start, len, pgoff, ino;

	if (sscanf(line, "%15s", kind) != 1)
		return -1;
	if (!strcmp(kind, "comm")) {
		if (sscanf(line, "comm %u %u %" SCNu64 " %d %4095[^\n]", &pid,
			   &tid, &tsc, &exec, name) != 5)
			return -1;
		/* misc: PERF_RECORD_MISC_COMM_EXEC for the exec's */
		header_misc(3, exec ? 1u << 13 : 0, 8 + 8 + padded(name) + 32);
		put32(pid);
		put32(tid);
		put_str_padded(name);
		sample_id_of(pid, tid, 0, perf_time(tsc));
	} else if (!strcmp(kind, "fork") || !strcmp(kind, "exit")) {
		int fork = kind[0] == 'f';

		ptid = 0;
		if (fork ? sscanf(line, "fork %u %u %u %" SCNu64, &pid, &tid,
				  &ptid, &tsc) != 4 :
			   sscanf(line, "exit %u %u %" SCNu64, &pid, &tid,
				  &tsc) != 3)
			return -1;
		header(fork ? 7 : 4, 8 + 24 + 32);
		put32(pid);
		put32(pid);		/* ppid: a thread of the same process */
		put32(tid);
		put32(fork ? ptid : tid);
		put64(perf_time(tsc));
		sample_id_of(pid, tid, 0, perf_time(tsc));
	} else if (!strcmp(kind, "mmap2")) {
		uint16_t misc = 2;	/* PERF_RECORD_MISC_USER */
		size_t size;

		if (sscanf(line, "mmap2 %u %u %" SCNu64 " %" SCNx64 " %" SCNx64
			   " %" SCNx64 " %u %u %" SCNu64 " %u %u %63s %4095[^\n]",
			   &pid, &tid, &tsc, &start, &len, &pgoff, &maj, &min,
			   &ino, &prot, &flags, bid, name) != 13)
			return -1;
		if (strcmp(bid, "-"))
			misc |= 1u << 14;	/* PERF_RECORD_MISC_MMAP_BUILD_ID */
		size = 8 + 8 + 24 + 24 + 8 + padded(name) + 32;
		header_misc(10, misc, size);
		put32(pid);
		put32(tid);
		put64(start);
		put64(len);
		put64(pgoff);
		if (misc & (1u << 14)) {
			uint8_t b[24] = { 0 };
			size_t i, n = strlen(bid) / 2;

			if (n > 20)
				n = 20;
			b[0] = (uint8_t)n;
			for (i = 0; i < n; i++) {
				unsigned v;

				sscanf(bid + 2 * i, "%2x", &v);
				b[4 + i] = (uint8_t)v;
			}
			put(b, sizeof(b));
		} else {
			put32(maj);
			put32(min);
			put64(ino);
			put64(0);	/* ino_generation */
		}
		put32(prot);
		put32(flags);
		put_str_padded(name);
		sample_id_of(pid, tid, 0, perf_time(tsc));
	} else if (!strcmp(kind, "switch")) {
		uint16_t misc = 0;

		if (sscanf(line, "switch %u %" SCNu64 " %7s %u %u %d %d %d", &cpu,
			   &tsc, dir, &pid, &tid, &other, (int *)&otid,
			   &preempt) != 8)
			return -1;
		opid = other < 0 ? 0 : (unsigned)other;
		if ((int)otid < 0)
			otid = 0;
		if (!strcmp(dir, "out"))
			misc |= 1u << 13;	/* PERF_RECORD_MISC_SWITCH_OUT */
		if (preempt)
			misc |= 1u << 14;	/* ..._SWITCH_OUT_PREEMPT */
		header_misc(15, misc, 8 + 8 + 32);	/* SWITCH_CPU_WIDE */
		put32(opid);
		put32(otid);
		sample_id_of(pid, tid, cpu, perf_time(tsc));
	} else if (!strcmp(kind, "lost") || !strcmp(kind, "lost_samples")) {
		return sb_lost(line, kind[4] != 0);
	} else {
		return -1;
	}
	return 0;
}

/* The time of a sideband line, for sorting: its TSC field. */
static uint64_t sb_tsc(const char *line)
{
	uint64_t tsc = 0;
	unsigned a, b, c;

	if (!strncmp(line, "comm ", 5) || !strncmp(line, "mmap2 ", 6) ||
	    !strncmp(line, "exit ", 5))
		sscanf(strchr(line, ' ') + 1, "%u %u %" SCNu64, &a, &b, &tsc);
	else if (!strncmp(line, "fork ", 5))
		sscanf(line + 5, "%u %u %u %" SCNu64, &a, &b, &c, &tsc);
	else if (!strncmp(line, "switch ", 7) || !strncmp(line, "lost", 4))
		sscanf(strchr(line, ' ') ? strchr(line, ' ') + 1 : line,
		       "%u %" SCNu64, &a, &tsc);
	return tsc;
}

/* Write the records of ptrecord's sideband file @path in time order;
 * returns 0, or -1 with a message naming the file and line. */
static int sideband(const char *path)
{
	FILE *f = safefile_fopen_read(path, 0);	/* never a FIFO */
	struct sb_line *v = NULL;
	size_t n = 0, i, lineno = 0;
	char line[8192];
	int err = 0;

	if (!f) {
		fprintf(stderr, "pt2perf: %s: %s\n", path,
			safefile_strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (!(n & 255)) {
			struct sb_line *g = realloc(v, (n + 256) * sizeof(*v));

			if (!g) {
				err = -1;
				break;
			}
			v = g;
		}
		v[n].tsc = sb_tsc(line);
		v[n].order = lineno;
		v[n].text = strdup(line);
		if (!v[n].text) {
			err = -1;
			break;
		}
		n++;
	}
	fclose(f);
	qsort(v, n, sizeof(*v), sb_cmp);
	for (i = 0; i < n; i++) {
		if (!err && sb_record(v[i].text) < 0) {
			fprintf(stderr, "pt2perf: %s:%zu: not a sideband line\n",
				path, v[i].order);
			err = -1;
		}
		free(v[i].text);
	}
	free(v);
	return err;
}

static void attr(void)
{
	uint8_t zero[128 - 48] = { 0 };

	put32(PMU_TYPE);
	put32(128);
	put64(CONFIG | mtc_freq << 14);
	put64(0);
	put64(SAMPLE_TYPE);
	put64(0);
	/* sample_id_all; exclude_kernel but with --kernel */
	put64((1ull << 18) | (kernel_traced ? 0 : 1ull << 5));
	put(zero, sizeof(zero));
}

/* One raw stream to wrap. */
struct input {
	const char *path;
	unsigned cpu;
	uint8_t *map;
	uint64_t size, off;	/* its length and how much is written */
};

static int input_open(struct input *in)
{
	struct stat st;
	/* a regular file only: a FIFO would block, a directory or device
	 * cannot be mapped */
	int fd = safefile_open_read(in->path, 0);

	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "pt2perf: %s: %s\n", in->path,
			safefile_strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	in->size = (uint64_t)st.st_size;
	in->map = in->size ? mmap(NULL, (size_t)in->size, PROT_READ, MAP_SHARED,
				  fd, 0) : NULL;
	close(fd);
	if (in->map == MAP_FAILED) {
		fprintf(stderr, "pt2perf: %s: %s\n", in->path, strerror(errno));
		return -1;
	}
	madvise(in->map, (size_t)in->size, MADV_SEQUENTIAL);
	return 0;
}

/* The next AUXTRACE record of @in: at most @chunk bytes, none of
 * the hole.  Returns 0 when the stream is done. */
static int aux_next(struct input *in, uint64_t chunk,
		    uint64_t hole_off, uint64_t hole_len)
{
	uint64_t off = in->off, n;

	if (off >= hole_off && off < hole_off + hole_len)
		off = in->off = hole_off + hole_len;	/* the AUX offsets jump */
	if (off >= in->size)
		return 0;
	n = in->size - off;
	if (n > chunk)
		n = chunk;
	if (off < hole_off && off + n > hole_off)
		n = hole_off - off;
	header(71, 48);			/* AUXTRACE */
	put64(n);
	put64(off);
	put64(0);			/* reference */
	put32(in->cpu);		/* idx: the CPU, in per-CPU mode */
	put32(0);			/* tid */
	put32(in->cpu);
	put32(0);
	put(in->map + off, (size_t)n);
	in->off = off + n;
	return 1;
}

/* What the command line asked for. */
struct args {
	uint64_t chunk, hole_off, hole_len, switches, lost_at;
	const char *sb_path;
	struct input *in;
	unsigned nin;
};

/* The value @s of option @opt: a whole number (0x... for hex) in [@min,
 * @max], into *@v.  0, or -2 after saying in one line what is wrong. */
static int num_arg(const char *opt, const char *s, uint64_t min, uint64_t max,
		   uint64_t *v)
{
	char *e;

	errno = 0;
	/* strtoull() would take " 5", "+5" and "-1" (as 2^64 - 1) */
	*v = isdigit((unsigned char)*s) ? strtoull(s, &e, 0) : 0;
	if (!isdigit((unsigned char)*s) || *e || errno) {
		fprintf(stderr, "pt2perf: bad value '%s' for %s\n", s, opt);
		return -2;
	}
	if (*v < min || *v > max) {
		fprintf(stderr, "pt2perf: bad value '%s' for %s: it is %" PRIu64
			"..%" PRIu64 "\n", s, opt, min, max);
		return -2;
	}
	return 0;
}

/* --hole OFF:LEN, into *@off and *@len.  0, or -2 after saying why. */
static int hole_arg(const char *s, uint64_t *off, uint64_t *len)
{
	char *e;

	errno = 0;
	if (isdigit((unsigned char)*s)) {
		*off = strtoull(s, &e, 0);
		if (*e == ':' && isdigit((unsigned char)e[1])) {
			*len = strtoull(e + 1, &e, 0);
			/* UINT64_MAX as OFF is "no hole"; OFF + LEN must fit */
			if (!*e && !errno && *off < UINT64_MAX &&
			    *len <= UINT64_MAX - *off)
				return 0;
		}
	}
	fprintf(stderr, "pt2perf: bad value '%s' for --hole (OFF:LEN)\n", s);
	return -2;
}

/* One option with a value at argv[@i] (@i < argc - 1), into @a, @cpu and
 * @priv.  1 if it was one, 0 if not, -2 after saying its value is bad. */
static int value_opt(char **argv, int i, struct args *a, uint64_t *cpu,
		     uint64_t *priv)
{
	const char *o = argv[i], *v = argv[i + 1];
	int r;

	if (!strcmp(o, "--chunk"))
		r = num_arg(o, v, 1, UINT64_MAX, &a->chunk);
	else if (!strcmp(o, "--hole"))
		r = hole_arg(v, &a->hole_off, &a->hole_len);
	else if (!strcmp(o, "--switches"))
		r = num_arg(o, v, 0, UINT64_MAX, &a->switches);
	else if (!strcmp(o, "--lost-at"))	/* UINT64_MAX: none */
		r = num_arg(o, v, 0, UINT64_MAX - 1, &a->lost_at);
	else if (!strcmp(o, "--time-mult")) {
		r = num_arg(o, v, 1, UINT32_MAX, &time_mult);
		priv[2] = time_mult;
	} else if (!strcmp(o, "--time-shift")) {
		r = num_arg(o, v, 0, 31, &time_shift);
		priv[1] = time_shift;
	} else if (!strcmp(o, "--mtc-freq"))
		r = num_arg(o, v, 0, 15, &mtc_freq);
	else if (!strcmp(o, "--cpu"))	/* a u32; perf's (u32)-1 is "any" */
		r = num_arg(o, v, 0, UINT32_MAX - 1, cpu);
	else if (!strcmp(o, "--sideband")) {
		a->sb_path = v;
		r = 0;
	} else if (!strcmp(o, "-o")) {
		out_path = v;
		r = 0;
	} else
		return 0;
	return r < 0 ? r : 1;
}

/* Parse the command line into @a (its inputs into @a->in, argc long).
 * 0, -1 for a usage error, -2 for a bad value (said already). */
static int parse_args(int argc, char **argv, struct args *a, uint64_t *priv)
{
	uint64_t cpu = 0;
	int i, r;

	for (i = 1; i < argc; i++) {
		r = i + 1 < argc ? value_opt(argv, i, a, &cpu, priv) : 0;
		if (r < 0)
			return r;
		if (r > 0)
			i++;
		else if (!strcmp(argv[i], "--kernel"))
			kernel_traced = 1;
		else if (argv[i][0] != '-') {
			a->in[a->nin].path = argv[i];
			a->in[a->nin].cpu = (unsigned)cpu;
			a->nin++;
		} else
			return -1;
	}
	if (!a->nin || !out_path)
		return -1;
	/* one stream: the last --cpu wherever it was */
	if (a->nin == 1)
		a->in[0].cpu = (unsigned)cpu;
	return 0;
}

/* Open the output: never over an input, a device or a FIFO; "-" is
 * stdout.  0, or -1 after saying why. */
static int out_open(const struct args *a)
{
	struct safefile_keep *keep = calloc(a->nin + 1, sizeof(*keep));
	struct safefile_opts so = { .flags = SAFEFILE_STDOUT | SAFEFILE_NOSYNC,
				    .mode = 0644, .keep = keep };
	char err[4400];
	struct stat st;
	unsigned j;

	for (j = 0; keep && j < a->nin + !!a->sb_path; j++)
		if (!stat(j < a->nin ? a->in[j].path : a->sb_path, &st)) {
			keep[so.nkeep].dev = st.st_dev;
			keep[so.nkeep].ino = st.st_ino;
			keep[so.nkeep++].what = "an input";
		}
	safefile_remove_on_signals();
	if (!keep || safefile_create(&out_file, out_path, &so, err,
				     sizeof(err)) < 0 ||
	    !(out = safefile_stream(out_file))) {
		fprintf(stderr, "pt2perf: %s\n", keep ? err : "out of memory");
		safefile_abort(out_file);
		free(keep);
		return -1;
	}
	free(keep);
	return 0;
}

/* The file header and the records before the data: the attr, the CPUID
 * feature, AUXTRACE_INFO with @priv, TIME_CONV. */
static void put_headers(const uint64_t *priv, size_t npriv)
{
	static const char cpuid[24] = "GenuineIntel,6,78,3";

	put("PERFILE2", 8);
	put64(16);
	header(64, 8 + 128 + 8);		/* HEADER_ATTR */
	attr();
	put64(ATTR_ID);
	header(80, 8 + 8 + 4 + sizeof(cpuid));	/* HEADER_FEATURE */
	put64(9);				/* HEADER_CPUID */
	put32(sizeof(cpuid));
	put(cpuid, sizeof(cpuid));
	header(70, 8 + 8 + npriv * 8);		/* AUXTRACE_INFO */
	put32(1);				/* PERF_AUXTRACE_INTEL_PT */
	put32(0);
	put(priv, npriv * 8);
	header(79, 8 + 24);			/* TIME_CONV */
	put64(time_shift);
	put64(time_mult);
	put64(TIME_ZERO);
}

/* The records after the sideband: switches, the streams' AUXTRACE
 * records, a truncated AUX record. */
static void put_records(const struct args *a)
{
	uint64_t k;
	unsigned j;
	int more;

	/* Context switches first: their number, not their place, matters
	 * to whoever draws them. */
	for (k = 0; k < a->switches; k++) {
		uint16_t misc = k & 1 ? 0x2000 : 0, sz = 8 + 32;	/* SWITCH_OUT */

		put32(14);		/* PERF_RECORD_SWITCH */
		put(&misc, 2);
		put(&sz, 2);
		sample_id(a->in[0].cpu, k + 1);
	}
	/* the streams' records alternate, as perf flushes its buffers */
	do {
		more = 0;
		for (j = 0; j < a->nin; j++)
			more |= aux_next(&a->in[j], a->chunk, a->hole_off,
					 a->hole_len);
	} while (more);
	if (a->lost_at != UINT64_MAX) {
		/* The AUX record of a buffer that overflowed at lost_at. */
		header(11, 8 + 24 + 32);	/* PERF_RECORD_AUX */
		put64(a->lost_at > 4096 ? a->lost_at - 4096 : 0);
		put64(a->lost_at > 4096 ? 4096 : a->lost_at);
		put64(1);			/* PERF_AUX_FLAG_TRUNCATED */
		sample_id(a->in[0].cpu, a->switches + 2);
	}
}

int main(int argc, char **argv)
{
	/* AUXTRACE_INFO's private words (perf's intel-pt.c order):
	 * pmu type, time shift/mult/zero, cap_user_time_zero, tsc bit,
	 * noretcomp bit, have_sched_switch, snapshot, per_cpu_mmaps, mtc bit,
	 * mtc freq bits, tsc:ctc n/d, cyc bit, max non-turbo ratio,
	 * filter string length. */
	uint64_t priv[17] = {
		PMU_TYPE, TIME_SHIFT, TIME_MULT, TIME_ZERO, 1, 0x400, 0x800, 0,
		0, 1, 0x200, 0xfull << 14, 100, 2, 0x2, 12, 0
	};
	struct args a = { .chunk = 512 * 1024, .hole_off = UINT64_MAX,
			  .lost_at = UINT64_MAX };
	char err[4400];
	unsigned j;
	int r;

	out_path = NULL;
	a.in = calloc((size_t)argc, sizeof(*a.in));
	if (!a.in)
		return 1;
	r = parse_args(argc, argv, &a, priv);
	if (r == -2) {
		free(a.in);
		return 2;
	}
	if (r < 0) {
		fprintf(stderr, "usage: pt2perf [--chunk BYTES] [--cpu N] [--hole OFF:LEN]\n"
			"               [--switches N] [--lost-at OFF] [--sideband FILE]\n"
			"               [--time-mult N] [--time-shift N] [--mtc-freq N] [--kernel]\n"
			"               [--cpu N] RAW [[--cpu N] RAW]... -o OUT\n");
		free(a.in);
		return 2;
	}
	for (j = 0; j < a.nin; j++)
		if (input_open(&a.in[j]) < 0)
			goto out_free;
	if (a.sb_path)
		priv[7] = 3;	/* have_sched_switch: context switch events */
	if (out_open(&a) < 0)
		goto out_free;
	put_headers(priv, sizeof(priv) / sizeof(priv[0]));
	if (a.sb_path && sideband(a.sb_path) < 0) {
		safefile_abort(out_file);
		goto out_free;
	}
	put_records(&a);
	if (safefile_commit(out_file, err, sizeof(err)) < 0) {
		fprintf(stderr, "pt2perf: %s\n", err);
		goto out_free;
	}
	free(a.in);
	return 0;
out_free:
	/* (a failure's exits freed nothing: the sanitizer build's t_pt2perf
	 * reported the inputs' array leaked) */
	free(a.in);
	return 1;
}
