/*
 * pt2perf -- wrap a raw Intel PT trace into a pipe-mode perf.data file, as
 * `perf record -e intel_pt// -o -` would write it: the intel_pt event's
 * attr, CPUID, AUXTRACE_INFO with the trace's timing configuration,
 * TIME_CONV, then the trace as AUXTRACE records of
 * --chunk bytes each for one CPU.  For benchmarks and tests: browsing the
 * result must be as fast as browsing the raw file.
 *
 *   pt2perf [--chunk BYTES] [--cpu N] [--hole OFF:LEN] [--switches N]
 *           [--lost-at OFF] [--sideband FILE] [--time-mult N] [--time-shift N]
 *           [--mtc-freq N] [--nom-freq N] [--cpuid-0x15.eax N]
 *           [--cpuid-0x15.ebx N] [--cpuid-0x15.ecx HZ] [--tsc-freq HZ]
 *           [--kernel] RAW... -o OUT
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
 * by default the TSC frequency of the timing configuration: 873813 for
 * ptgen's 1.2 GHz, CPUID.15H 100/2 of a 24 MHz crystal): a large one
 * puts events seconds apart.
 * The timing configuration (the attr's mtc_period, AUXTRACE_INFO's
 * TSC:CTC ratio and max non-turbo ratio, the CPUID feature, and the TSC
 * frequency TIME_CONV converts with) is the trace's: RAW.options beside
 * each RAW (ptgen -o and ptrecord write it) and the "# timing" line of
 * ptrecord's sideband, which must agree.  --mtc-freq N, --nom-freq N,
 * --cpuid-0x15.eax N, --cpuid-0x15.ebx N and --tsc-freq HZ give what
 * those lack, and are refused where they say otherwise: a perf.data
 * with another configuration than the recording's shows wrong times as
 * exact.  Without any, ptgen's defaults: --cpu 6/78/3 --mtc-freq 3
 * --nom-freq 12 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 100.  --time-mult
 * and --time-shift set TIME_CONV as given, whatever the TSC frequency
 * (for tests).
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

#include "perfdata.h"
#include "safefile.h"
#include "timing_file.h"
#include "timing_opt.h"
#include "tm.h"

#define PMU_TYPE 8
#define ATTR_ID 1
/* pt (pass-through), cyc, pwr_evt, mtc, tsc, ptw, branch (BranchEn:
 * perf takes pass-through without it as branch tracing off),
 * cyc_thresh=1; mtc_period (bits 14..17) from mtc_freq: the timing
 * configuration's (timing_config()).  ptgen and ptrecord write PWRE, PWRX,
 * EXSTOP, MWAIT and PTW: perf synthesizes power events only with
 * pwr_evt set. */
#define CONFIG (0x1ull | 0x2 | 0x10 | 0x200 | 0x400 | 0x1000 | 0x2000 | \
		(1ull << 19))

static uint64_t mtc_freq;
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

/* TIME_CONV, as perf converts a TSC into a perf time: ns = TSC *
 * time_mult >> time_shift, the TSC frequency of the timing configuration
 * (ptgen's 1.2 GHz, TSC:CTC 100/2 of a 24 MHz crystal: 873813 >> 20)
 * unless --time-mult says otherwise. */
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
	struct tm_config given;	/* its timing options */
	int have_time_mult;	/* --time-mult was given */
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

/* A timing option the trace's options file may give (--nom-freq,
 * --cpuid-0x15.*, --tsc-freq; --mtc-freq is checked as a number) with
 * value @v into @a->given.  1 if @o is one, 0 if not, -2 after saying
 * its value is bad. */
static int timing_arg(struct args *a, const char *o, const char *v)
{
	static const char *const names[] = {
		"--nom-freq", "--cpuid-0x15.eax", "--cpuid-0x15.ebx",
		"--cpuid-0x15.ecx", "--tsc-freq",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(o, names[i]))
			break;
	if (i == sizeof(names) / sizeof(names[0]))
		return 0;
	if (timing_option(&a->given, o, v) <= 0) {
		fprintf(stderr, "pt2perf: bad value '%s' for %s\n", v, o);
		return -2;
	}
	return 1;
}

/* One option with a value at argv[@i] (@i < argc - 1), into @a and @cpu.
 * 1 if it was one, 0 if not, -2 after saying its value is bad. */
static int value_opt(char **argv, int i, struct args *a, uint64_t *cpu)
{
	const char *o = argv[i], *v = argv[i + 1];
	uint64_t n;
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
		a->have_time_mult = 1;
	} else if (!strcmp(o, "--time-shift"))
		r = num_arg(o, v, 0, 31, &time_shift);
	else if (!strcmp(o, "--mtc-freq")) {
		r = num_arg(o, v, 0, 15, &n);
		a->given.have_mtc_freq = 1;
		a->given.mtc_freq = (uint8_t)n;
	} else if ((r = timing_arg(a, o, v)) != 0)
		return r;
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
static int parse_args(int argc, char **argv, struct args *a)
{
	uint64_t cpu = 0;
	int i, r;

	for (i = 1; i < argc; i++) {
		r = i + 1 < argc ? value_opt(argv, i, a, &cpu) : 0;
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

/* The timing options two configurations may disagree on, as a table:
 * whether @c gives each (@h) and its value (@v). */
#define NFIELDS 7
static const char *const field_opt[NFIELDS] = {
	"--mtc-freq", "--nom-freq", "--cpuid-0x15.eax", "--cpuid-0x15.ebx",
	"--tsc-freq", "--cpuid-0x15.ecx", "--cpu",
};

static void cfg_fields(const struct tm_config *c, int *h, uint64_t *v)
{
	h[0] = c->have_mtc_freq;
	v[0] = c->mtc_freq;
	h[1] = c->have_nom_freq;
	v[1] = c->nom_freq;
	/* an option gives one half of CPUID.15H, a file both */
	h[2] = c->have_cpuid_15 && c->cpuid_15_half != TM_CPUID15_EBX;
	v[2] = c->cpuid_15_eax;
	h[3] = c->have_cpuid_15 && c->cpuid_15_half != TM_CPUID15_EAX;
	v[3] = c->cpuid_15_ebx;
	h[4] = c->have_tsc_hz && c->tsc_hz;
	v[4] = c->tsc_hz;
	/* the crystal a CPU model implies is not given: not compared */
	h[5] = c->have_crystal_hz && !c->crystal_model;
	v[5] = c->crystal_hz;
	h[6] = c->have_cpu;
	v[6] = (uint64_t)c->cpu_family << 16 | (uint64_t)c->cpu_model << 8 |
	       c->cpu_stepping;
}

static void field_str(int i, uint64_t v, char *buf, size_t n)
{
	if (i == 6)
		snprintf(buf, n, "--cpu %u/%u/%u", (unsigned)(v >> 16),
			 (unsigned)(v >> 8 & 0xff), (unsigned)(v & 0xff));
	else
		snprintf(buf, n, "%s %" PRIu64, field_opt[i], v);
}

/* Whether @a and @b give one option different values: the first such,
 * as each says it ("--mtc-freq 5"), into @as and @bs (@n bytes each).
 * Returns 1 if so, 0 if they agree. */
static int cfg_differ(const struct tm_config *a, const struct tm_config *b,
		      char *as, char *bs, size_t n)
{
	uint64_t va[NFIELDS], vb[NFIELDS];
	int ha[NFIELDS], hb[NFIELDS], i;

	cfg_fields(a, ha, va);
	cfg_fields(b, hb, vb);
	for (i = 0; i < NFIELDS; i++)
		if (ha[i] && hb[i] && va[i] != vb[i]) {
			field_str(i, va[i], as, n);
			field_str(i, vb[i], bs, n);
			return 1;
		}
	return 0;
}

/* The "# timing OPTIONS" line among the comments that begin ptrecord's
 * sideband file @path, into @cfg.  Returns 1 if there is one, 0 if not,
 * -1 after saying why it cannot be read or does not parse. */
static int sb_timing(const char *path, struct tm_config *cfg)
{
	FILE *f = safefile_fopen_read(path, 0);	/* never a FIFO */
	char line[1024], *w, *v, *save;
	unsigned lineno = 0;
	int found = 0;

	if (!f) {
		fprintf(stderr, "pt2perf: %s: %s\n", path, safefile_strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f) && line[0] == '#') {
		lineno++;
		if (strncmp(line, "# timing ", 9))
			continue;
		for (w = strtok_r(line + 9, " \t\r\n", &save); w;
		     w = strtok_r(NULL, " \t\r\n", &save)) {
			v = strtok_r(NULL, " \t\r\n", &save);
			if (timing_option(cfg, w, v) <= 0) {
				fprintf(stderr, "pt2perf: %s:%u: bad timing option "
					"'%s'\n", path, lineno, w);
				fclose(f);
				return -1;
			}
		}
		found = 1;
	}
	fclose(f);
	return found;
}

/* The timing configuration the recording was made with: RAW.options of
 * each RAW and the sideband's timing line, which must agree, then @a's
 * options where they say nothing (and agree where they do), then
 * ptgen's defaults.  Returns 0 with it in @cfg, -1 (exit 1) or -2 (exit
 * 2: the options contradict the files) after saying why. */
static int timing_config(const struct args *a, struct tm_config *cfg)
{
	static const struct tm_config defaults = {
		.have_cpu = 1, .cpu_family = 6, .cpu_model = 78, .cpu_stepping = 3,
		.have_mtc_freq = 1, .mtc_freq = 3, .have_nom_freq = 1, .nom_freq = 12,
		.have_cpuid_15 = 1, .cpuid_15_eax = 2, .cpuid_15_ebx = 100,
	};
	char path[4200], first[4200] = "", err[4400], as[64], bs[64];
	struct tm_config files, one;
	unsigned j;
	int r;

	memset(&files, 0, sizeof(files));
	for (j = 0; j < a->nin + !!a->sb_path; j++) {
		memset(&one, 0, sizeof(one));
		if (j == a->nin) {
			snprintf(path, sizeof(path), "%s", a->sb_path);
			r = sb_timing(path, &one);
		} else if (timing_file_path(a->in[j].path, path, sizeof(path)) < 0) {
			continue;
		} else if ((r = timing_file_read(path, &one, err, sizeof(err))) < 0) {
			fprintf(stderr, "pt2perf: %s\n", err);
		}
		if (r < 0)
			return -1;
		if (!r)
			continue;
		if (cfg_differ(&one, &files, as, bs, sizeof(as))) {
			fprintf(stderr, "pt2perf: %s says %s, %s %s: the streams of "
				"one perf.data have one timing configuration\n",
				path, as, first, bs);
			return -1;
		}
		tm_config_merge(&files, &one);
		if (!first[0])
			snprintf(first, sizeof(first), "%s", path);
	}
	if (cfg_differ(&a->given, &files, as, bs, sizeof(as))) {
		fprintf(stderr, "pt2perf: %s contradicts %s (%s): the trace was "
			"recorded with that; give its options or none\n", as, first, bs);
		return -2;
	}
	*cfg = a->given;
	tm_config_merge(cfg, &files);
	tm_config_merge(cfg, &defaults);
	return 0;
}

/* @cfg into the attr's mtc_period, AUXTRACE_INFO's @priv and TIME_CONV
 * (unless --time-mult gave it).  Returns 0, or -2 after saying why. */
static int apply_config(const struct args *a, const struct tm_config *cfg,
			uint64_t *priv)
{
	uint64_t hz = tm_tsc_hz(cfg, 1);
	unsigned __int128 m;

	mtc_freq = cfg->mtc_freq;
	priv[12] = cfg->cpuid_15_ebx;	/* TSC:CTC numerator */
	priv[13] = cfg->cpuid_15_eax;	/* and denominator */
	priv[15] = cfg->nom_freq;	/* max non-turbo ratio */
	if (!a->have_time_mult) {
		/* perf time per 2^time_shift ticks, to the nearest */
		m = hz ? (((unsigned __int128)2000000000u << time_shift) + hz) /
			 (2 * (unsigned __int128)hz) : 0;
		if (!m || m > UINT32_MAX) {
			fprintf(stderr, "pt2perf: a %" PRIu64 " Hz TSC gives no "
				"TIME_CONV time_mult with --time-shift %" PRIu64
				": give --time-mult\n", hz, time_shift);
			return -2;
		}
		time_mult = (uint64_t)m;
	}
	priv[1] = time_shift;
	priv[2] = time_mult;
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
 * feature of @cfg's CPU, AUXTRACE_INFO with @priv, TIME_CONV. */
static void put_headers(const struct tm_config *cfg, const uint64_t *priv,
			size_t npriv)
{
	char cpuid[32] = "GenuineIntel,6,78,3";
	int n = 24;

	if (cfg->have_cpu &&
	    snprintf(cpuid, sizeof(cpuid), "GenuineIntel,%u,%u,%u", cfg->cpu_family,
		     cfg->cpu_model, cfg->cpu_stepping) >= 24)
		n = 32;

	put("PERFILE2", 8);
	put64(16);
	header(64, 8 + 128 + 8);		/* HEADER_ATTR */
	attr();
	put64(ATTR_ID);
	header(80, 8 + 8 + 4 + (size_t)n);	/* HEADER_FEATURE */
	put64(9);				/* HEADER_CPUID */
	put32((uint32_t)n);
	put(cpuid, (size_t)n);
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

static void usage(FILE *f)
{
	fprintf(f, "usage: pt2perf [--chunk BYTES] [--cpu N] [--hole OFF:LEN]\n"
		"               [--switches N] [--lost-at OFF] [--sideband FILE]\n"
		"               [--time-mult N] [--time-shift N] [--kernel]\n"
		"               [--mtc-freq N] [--nom-freq N] [--cpuid-0x15.eax N]\n"
		"               [--cpuid-0x15.ebx N] [--cpuid-0x15.ecx HZ] [--tsc-freq HZ]\n"
		"               [--cpu N] RAW [[--cpu N] RAW]... -o OUT\n");
	if (f != stdout)
		return;
	printf("Wrap raw Intel PT traces (one per CPU) into a pipe-mode perf.data, as\n"
	       "perf record -e intel_pt// -o - writes it.\n"
	       "  --cpu N            the CPU of the RAW after it (one RAW: the last given)\n"
	       "  --chunk BYTES      the size of each AUXTRACE record (default 512 KiB)\n"
	       "  --hole OFF:LEN     leave those raw bytes out, as lost AUX data\n"
	       "  --switches N       N context switch records before the data\n"
	       "  --lost-at OFF      an AUX record flagged truncated, ending at OFF\n"
	       "  --sideband FILE    ptrecord's sideband: COMM, FORK, EXIT, MMAP2, SWITCH\n"
	       "  --kernel           the kernel was traced too (no exclude_kernel)\n"
	       "  --time-mult N, --time-shift N\n"
	       "                     TIME_CONV as given (default: the TSC frequency of the\n"
	       "                     timing configuration, >> 20)\n"
	       "The timing configuration is the recording's: RAW.options beside each RAW\n"
	       "(ptgen -o and ptrecord write it) and the timing line of ptrecord's\n"
	       "sideband.  The timing options (--mtc-freq, --nom-freq, --cpuid-0x15.*,\n"
	       "--tsc-freq) give what those lack; one that says otherwise is refused.\n"
	       "Without any, ptgen's: --cpu 6/78/3 --mtc-freq 3 --nom-freq 12\n"
	       "--cpuid-0x15.eax 2 --cpuid-0x15.ebx 100.\n"
	       "-o - writes to stdout; OUT replaces a file only once it is whole.\n");
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
	struct tm_config cfg;
	char err[4400];
	unsigned j;
	int r;

	out_path = NULL;
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	a.in = calloc((size_t)argc, sizeof(*a.in));
	if (!a.in)
		return 1;
	r = parse_args(argc, argv, &a);
	if (r == -2) {
		free(a.in);
		return 2;
	}
	if (r < 0) {
		usage(stderr);
		free(a.in);
		return 2;
	}
	for (j = 0; j < a.nin; j++)
		if (input_open(&a.in[j]) < 0)
			goto out_free;
	r = timing_config(&a, &cfg);
	if (!r)
		r = apply_config(&a, &cfg, priv);
	if (r < 0) {
		free(a.in);
		return -r;
	}
	if (a.sb_path)
		priv[7] = 3;	/* have_sched_switch: context switch events */
	if (out_open(&a) < 0)
		goto out_free;
	put_headers(&cfg, priv, sizeof(priv) / sizeof(priv[0]));
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
