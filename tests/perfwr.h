/*
 * perfwr -- a tiny perf.data writer for the sideband tests (test_sideband,
 * test_imgopt): an intel_pt attr with sample_id_all (tid, time, cpu,
 * identifier), AUXTRACE_INFO, TIME_CONV where perf time equals TSC, one
 * AUXTRACE payload per CPU, and MMAP/MMAP2/COMM/FORK/EXIT/SWITCH/
 * ITRACE_START records; file mode with an optional HEADER_BUILD_ID
 * feature section.  Layouts from include/uapi/linux/perf_event.h.
 */
#ifndef PERFWR_H
#define PERFWR_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PW_PMU_TYPE 8
#define PW_ATTR_ID 42
#define PW_SAMPLE_TYPE ((1ull << 1) | (1ull << 2) | (1ull << 7) | \
			(1ull << 16))

struct pw {
	uint8_t *p;
	size_t n, cap;
};

static __attribute__((unused)) void pw_put(struct pw *w, const void *d, size_t n)
{
	if (w->n + n > w->cap) {
		w->cap = (w->n + n) * 2 + 64;
		w->p = realloc(w->p, w->cap);
		if (!w->p)
			abort();
	}
	if (d)
		memcpy(w->p + w->n, d, n);
	else
		memset(w->p + w->n, 0, n);
	w->n += n;
}

static __attribute__((unused)) void pw_64(struct pw *w, uint64_t v) { pw_put(w, &v, 8); }
static __attribute__((unused)) void pw_32(struct pw *w, uint32_t v) { pw_put(w, &v, 4); }

static __attribute__((unused)) size_t pw_begin(struct pw *w, uint32_t type, uint16_t misc)
{
	size_t at = w->n;
	uint16_t z = 0;

	pw_32(w, type);
	pw_put(w, &misc, 2);
	pw_put(w, &z, 2);
	return at;
}

static __attribute__((unused)) void pw_end(struct pw *w, size_t at)
{
	uint16_t size = (uint16_t)(w->n - at);

	memcpy(w->p + at + 6, &size, 2);
}

/* A string padded with NULs to a multiple of 8 bytes. */
static __attribute__((unused)) void pw_str(struct pw *w, const char *s)
{
	size_t n = strlen(s) + 1;

	pw_put(w, s, n);
	pw_put(w, NULL, (8 - n % 8) % 8);
}

/* sample_id: pid/tid, time, cpu, identifier. */
static __attribute__((unused)) void pw_sid(struct pw *w, int pid, int tid, uint64_t time, int cpu)
{
	pw_32(w, (uint32_t)pid);
	pw_32(w, (uint32_t)tid);
	pw_64(w, time);
	pw_32(w, (uint32_t)cpu);
	pw_32(w, 0);
	pw_64(w, PW_ATTR_ID);
}

/* AUXTRACE_INFO (Intel PT, per-CPU mmaps) and TIME_CONV: tsc == ns. */
static __attribute__((unused)) void pw_setup(struct pw *w)
{
	uint64_t priv[17] = { PW_PMU_TYPE, 10, 1024, 0, 1, 0x400, 0x800, 1,
			      0, 1, 0x200, 0xfull << 14, 100, 2, 0x2, 12, 0 };
	size_t at = pw_begin(w, 70, 0);

	pw_32(w, 1);
	pw_32(w, 0);
	pw_put(w, priv, sizeof(priv));
	pw_end(w, at);
	at = pw_begin(w, 79, 0);
	pw_64(w, 10);
	pw_64(w, 1024);
	pw_64(w, 0);
	pw_end(w, at);
}

/* AUXTRACE_INFO of a per-thread recording without time conversion
 * (cap_user_time_zero 0, per_cpu_mmaps 0), and no TIME_CONV. */
static __attribute__((unused)) void pw_setup_untimed(struct pw *w)
{
	uint64_t priv[17] = { PW_PMU_TYPE, 10, 1024, 0, 0, 0x400, 0x800, 1,
			      0, 0, 0x200, 0xfull << 14, 100, 2, 0x2, 12, 0 };
	size_t at = pw_begin(w, 70, 0);

	pw_32(w, 1);
	pw_32(w, 0);
	pw_put(w, priv, sizeof(priv));
	pw_end(w, at);
}

/* An AUXTRACE record for CPU @cpu (-1: per-thread) of thread @tid with a
 * PSB, PSBEND payload. */
static __attribute__((unused)) void pw_auxtrace_tid(struct pw *w, int cpu, int tid)
{
	static const uint8_t psb[18] = { 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82,
					 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82,
					 2, 0x23 };
	size_t at = pw_begin(w, 71, 0);

	pw_64(w, sizeof(psb));
	pw_64(w, 0);
	pw_64(w, 0);
	pw_32(w, cpu < 0 ? 0 : (uint32_t)cpu);
	pw_32(w, (uint32_t)tid);
	pw_32(w, (uint32_t)cpu);
	pw_32(w, 0);
	pw_end(w, at);
	pw_put(w, psb, sizeof(psb));
}

/* An AUXTRACE record for CPU @cpu with a PSB, PSBEND payload. */
static __attribute__((unused)) void pw_auxtrace(struct pw *w, int cpu)
{
	pw_auxtrace_tid(w, cpu, 0);
}


/* MMAP2 of an executable mapping; @bid (20 bytes) in the record if set. */
static __attribute__((unused)) void pw_mmap2(struct pw *w, int pid, int tid, uint64_t time, int cpu,
		     uint64_t start, uint64_t len, uint64_t pgoff,
		     const char *file, const uint8_t *bid, int kernel)
{
	uint16_t misc = (kernel ? 1 : 2) | (bid ? 1u << 14 : 0);
	size_t at = pw_begin(w, 10, misc);

	pw_32(w, (uint32_t)pid);
	pw_32(w, (uint32_t)tid);
	pw_64(w, start);
	pw_64(w, len);
	pw_64(w, pgoff);
	if (bid) {
		uint8_t b[24] = { 20 };

		memcpy(b + 4, bid, 20);
		pw_put(w, b, 24);
	} else {
		pw_put(w, NULL, 24);	/* maj, min, ino, ino_generation */
	}
	pw_32(w, 5);			/* PROT_READ | PROT_EXEC */
	pw_32(w, 2);			/* MAP_PRIVATE */
	pw_str(w, file);
	pw_sid(w, pid, tid, time, cpu);
	pw_end(w, at);
}

/* An old MMAP record (executable unless @data). */
static __attribute__((unused)) void pw_mmap(struct pw *w, int pid, int tid, uint64_t time, int cpu,
		    uint64_t start, uint64_t len, uint64_t pgoff,
		    const char *file, int data)
{
	size_t at = pw_begin(w, 1, 2 | (data ? 1u << 13 : 0));

	pw_32(w, (uint32_t)pid);
	pw_32(w, (uint32_t)tid);
	pw_64(w, start);
	pw_64(w, len);
	pw_64(w, pgoff);
	pw_str(w, file);
	pw_sid(w, pid, tid, time, cpu);
	pw_end(w, at);
}

static __attribute__((unused)) void pw_comm(struct pw *w, int pid, int tid, uint64_t time, int cpu,
		    const char *comm, int exec)
{
	size_t at = pw_begin(w, 3, exec ? 1u << 13 : 0);

	pw_32(w, (uint32_t)pid);
	pw_32(w, (uint32_t)tid);
	pw_str(w, comm);
	pw_sid(w, pid, tid, time, cpu);
	pw_end(w, at);
}

/* FORK (@exit 0) or EXIT: pid, ppid, tid, ptid, time. */
static __attribute__((unused)) void pw_task(struct pw *w, int exit, int pid, int ppid, int tid,
		    int ptid, uint64_t time, int cpu)
{
	size_t at = pw_begin(w, exit ? 4 : 7, 0);

	pw_32(w, (uint32_t)pid);
	pw_32(w, (uint32_t)ppid);
	pw_32(w, (uint32_t)tid);
	pw_32(w, (uint32_t)ptid);
	pw_64(w, time);
	pw_sid(w, pid, tid, time, cpu);
	pw_end(w, at);
}

/* SWITCH_CPU_WIDE: @out says out of (pid, tid) with (npid, ntid) next;
 * else into (pid, tid) from (npid, ntid). */
static __attribute__((unused)) void pw_switch(struct pw *w, int out, int pid, int tid, int npid,
		      int ntid, uint64_t time, int cpu)
{
	size_t at = pw_begin(w, 15, out ? 1u << 13 : 0);

	pw_32(w, (uint32_t)npid);
	pw_32(w, (uint32_t)ntid);
	pw_sid(w, pid, tid, time, cpu);
	pw_end(w, at);
}

static __attribute__((unused)) void pw_itrace_start(struct pw *w, int pid, int tid, uint64_t time,
			    int cpu)
{
	size_t at = pw_begin(w, 12, 0);

	pw_32(w, (uint32_t)pid);
	pw_32(w, (uint32_t)tid);
	pw_sid(w, pid, tid, time, cpu);
	pw_end(w, at);
}

/* A HEADER_BUILD_ID entry (feature section layout), of the kernel (cpumode
 * kernel) if @kernel. */
static __attribute__((unused)) void pw_build_id(struct pw *w, int pid, const uint8_t *bid,
			const char *file, int kernel)
{
	size_t at = pw_begin(w, 67, (kernel ? 1 : 2) | (1u << 15));
	uint8_t b[24] = { 0 };

	pw_32(w, (uint32_t)pid);
	memcpy(b, bid, 20);
	b[20] = 20;
	pw_put(w, b, 24);
	pw_str(w, file);
	pw_end(w, at);
}

/* The attr's flags: sample_id_all, exclude_kernel (perf record -e
 * intel_pt//u, what a user without privileges records). */
#define PW_ATTR_USER_ONLY ((1ull << 18) | (1ull << 5))
#define PW_ATTR_KERNEL_TOO (1ull << 18)

/* Write a file-mode perf.data at @path around records @data, with
 * HEADER_BUILD_ID @bids (NULL: none), the intel_pt attr's flags word
 * @flags.  Returns 0 or -1. */
static __attribute__((unused)) int pw_file_flags(const char *path, const struct pw *data,
			 const struct pw *bids, uint64_t flags)
{
	struct pw f = { 0 };
	uint64_t attr_off = 104, ids_off = attr_off + 128 + 16;
	uint64_t data_off = ids_off + 8;
	uint64_t features[4] = { bids ? 1ull << 2 : 0, 0, 0, 0 };
	FILE *out;
	int ret;

	pw_put(&f, "PERFILE2", 8);
	pw_64(&f, 104);
	pw_64(&f, 128 + 16);
	pw_64(&f, attr_off);
	pw_64(&f, 128 + 16);
	pw_64(&f, data_off);
	pw_64(&f, data->n);
	pw_64(&f, 0);
	pw_64(&f, 0);
	pw_put(&f, features, sizeof(features));
	/* the intel_pt attr: type, size, config, period, sample_type,
	 * read_format, flags */
	pw_32(&f, PW_PMU_TYPE);
	pw_32(&f, 128);
	pw_64(&f, 0x401);
	pw_64(&f, 0);
	pw_64(&f, PW_SAMPLE_TYPE);
	pw_64(&f, 0);
	pw_64(&f, flags);
	pw_put(&f, NULL, 128 - 48);
	pw_64(&f, ids_off);
	pw_64(&f, 8);
	pw_64(&f, PW_ATTR_ID);
	pw_put(&f, data->p, data->n);
	if (bids) {
		pw_64(&f, f.n + 16);
		pw_64(&f, bids->n);
		pw_put(&f, bids->p, bids->n);
	}
	out = fopen(path, "wb");
	if (!out) {
		free(f.p);
		return -1;
	}
	ret = fwrite(f.p, 1, f.n, out) == f.n ? 0 : -1;
	if (fclose(out))
		ret = -1;
	free(f.p);
	return ret;
}

/* pw_file_flags() of a user-only recording. */
static __attribute__((unused)) int pw_file(const char *path, const struct pw *data,
		   const struct pw *bids)
{
	return pw_file_flags(path, data, bids, PW_ATTR_USER_ONLY);
}

/* Per-thread, untimed: process 100 runs /bin/sh at 0x400000 and (if
 * @exec) execs /bin/prog mapped at the same address. */
static __attribute__((unused)) void pw_untimed_exec(struct pw *w, int exec)
{
	pw_setup_untimed(w);
	pw_comm(w, 100, 100, 0, -1, "sh", 0);
	pw_mmap2(w, 100, 100, 0, -1, 0x400000, 0x1000, 0, "/bin/sh", NULL, 0);
	if (exec) {
		pw_comm(w, 100, 100, 0, -1, "prog", 1);
		pw_mmap2(w, 100, 100, 0, -1, 0x400000, 0x1000, 0, "/bin/prog",
			 NULL, 0);
	}
	pw_auxtrace_tid(w, -1, 100);
}

#endif /* PERFWR_H */
