/*
 * sideband -- who ran where, and what was mapped, from a perf.data file's
 * sideband records (fed by perfdata_walk()).
 *
 *   - MMAP and MMAP2 records of executable mappings (pid, address, length,
 *     page offset, file name, build ID from the record when
 *     PERF_RECORD_MISC_MMAP_BUILD_ID says so, else from the HEADER_BUILD_ID
 *     feature) make each process's image over time.  A process's image is
 *     one or more address spaces ("asids", numbered from 1): a fork
 *     shares its parent's, an exec (COMM with COMM_EXEC) starts an empty
 *     one, and a mapping that overlaps one already there starts a new one
 *     holding the rest plus it, so every time sees the code mapped then.
 *     Kernel mappings (cpumode kernel, pid -1) go to SB_ASID_KERNEL, which
 *     every address space sees.
 *   - COMM, FORK, EXIT, ITRACE_START, SWITCH and SWITCH_CPU_WIDE records
 *     make, per stream (a CPU, or one thread in per-thread mode), a
 *     timeline of which pid/tid ran from when, in TSC ticks (perf time
 *     converted with the recording's TIME_CONV).
 *   - Where the sideband says nothing, a CR3 seen in PIP is mapped to the
 *     asid it was last learned with (sb_learn_cr3()).
 *
 * Records are ordered by their perf time (file order among equal times;
 * perf's synthesized records at time 0 come first).
 */
#ifndef SIDEBAND_H
#define SIDEBAND_H

#include <stddef.h>
#include <stdint.h>

struct trace;
struct sb;

#define SB_ASID_NONE	0		/* not known */
#define SB_ASID_KERNEL	UINT64_MAX	/* seen by every address space */
#define SB_BUILD_ID_MAX	20

/* One executable mapping. */
struct sb_map {
	uint64_t start, len;	/* [start, start + len) */
	uint64_t pgoff;		/* file offset mapped at start */
	uint64_t time;		/* perf time of the record (0: synthesized) */
	uint64_t file_off;	/* of the record, for messages */
	int32_t pid, tid;	/* -1 for the kernel */
	uint8_t kernel;		/* a kernel mapping (SB_ASID_KERNEL) */
	uint8_t build_id_len;	/* 0 if unknown */
	uint8_t build_id[SB_BUILD_ID_MAX];
	/* MMAP2 without a build ID: the file's device and inode then (0
	 * if unknown: MMAP, or the kernel gave none), to notice a file
	 * replaced since */
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	const char *filename;	/* owned by the sideband */
};

/* One address space: the mappings it holds. */
struct sb_space {
	uint64_t asid;		/* SB_ASID_KERNEL, or 1, 2, ... */
	int32_t pid;		/* the process that made it (-1: kernel) */
	const uint32_t *maps;	/* indexes into the mapping list */
	size_t nmaps;
};

/* Who ran, as the timeline says. */
struct sb_task {
	int32_t pid, tid;	/* -1 if unknown (e.g. after a switch out) */
	uint64_t asid;		/* SB_ASID_NONE if unknown */
	const char *comm;	/* "" if unknown */
};

/* Read the sideband of perf.data @t (loaded by trace_open()).  A raw
 * trace gives an empty sideband.
 * Returns 0 and sets *@out.
 * Returns -pte_nomem if out of memory (message in @err).
 * Returns -pte_invalid if @out or @t is NULL. */
int sb_load(struct sb **out, const struct trace *t, char *err,
	    size_t errlen);

/* Free @sb (NULL is fine). */
void sb_free(struct sb *sb);

/* The executable mappings, in time order. */
size_t sb_nmaps(const struct sb *sb);
const struct sb_map *sb_map(const struct sb *sb, size_t i);

/* The address spaces, the kernel's (if any mapping is) first. */
size_t sb_nspaces(const struct sb *sb);
const struct sb_space *sb_space(const struct sb *sb, size_t i);

/* The address space of process @pid at TSC @tsc (its first one before it
 * was known; without time conversion, its last: see sb_stats()'s
 * nuntimed).  Returns the asid, or SB_ASID_NONE if @pid has none. */
uint64_t sb_pid_asid(const struct sb *sb, int32_t pid, uint64_t tsc);

/* What ran on stream @stream (trace stream index) at TSC @tsc; with @cr3
 * (0: none) as the fallback where the sideband says nothing, and learned
 * where it does.
 * Returns 0 and fills @task (fields unknown stay -1/SB_ASID_NONE/"").
 * Returns -pte_no_time if the recording has no perf-time to TSC
 * conversion (then only @cr3 can help) and -pte_invalid on NULL args;
 * for a per-thread stream only if its process changed address spaces
 * (sb_stats()'s nuntimed): its pid and tid are filled in, the asid is
 * @cr3's if learned, else SB_ASID_NONE. */
int sb_task_at(struct sb *sb, int stream, uint64_t tsc, uint64_t cr3,
	       struct sb_task *task);

/* How many times the process running on stream @stream changes in the
 * sideband's timeline from TSC @t0 (exclusive) to @t1 (inclusive); a
 * switch out within a perf-time nanosecond of @t1 counts as after it (as
 * in sb_task_at()), and one that names no next task (a plain SWITCH)
 * counts as none: the switch in after it is the change; 0 for a
 * per-thread stream, without time conversion, or if @t1 <= @t0. */
size_t sb_changes(const struct sb *sb, int stream, uint64_t t0, uint64_t t1);

/* Remember that CR3 @cr3 is address space @asid. */
void sb_learn_cr3(struct sb *sb, uint64_t cr3, uint64_t asid);

/* The address space last learned for @cr3, or SB_ASID_NONE. */
uint64_t sb_cr3_asid(const struct sb *sb, uint64_t cr3);

/* The command name of thread @tid at TSC @tsc ("" if unknown): its last
 * COMM's, or from its FORK on its parent's then (the kernel writes no
 * COMM for a new thread or process: it has its parent's, as in perf). */
const char *sb_comm(const struct sb *sb, int32_t tid, uint64_t tsc);

/* The timeline of stream @stream: its points, in time order; point @i
 * says who ran from its TSC until the next point's (pid -1: unknown). */
struct sb_slice {
	uint64_t tsc;
	int32_t pid, tid;
	const char *comm;	/* "" if unknown */
};
size_t sb_nslices(const struct sb *sb, int stream);
int sb_slice(const struct sb *sb, int stream, size_t i, struct sb_slice *out);

/* Process events worth a marker, in time order. */
enum sb_event_kind { SB_EV_FORK, SB_EV_EXIT, SB_EV_EXEC, SB_EV_MMAP };
struct sb_event {
	uint64_t tsc;		/* if have_tsc */
	int32_t pid, tid, cpu;	/* cpu -1 if unknown */
	uint8_t kind;		/* enum sb_event_kind */
	uint8_t have_tsc;	/* 0: synthesized (time 0) or no conversion */
	const char *name;	/* EXEC: the new comm; MMAP: the file; else "" */
};
size_t sb_nevents(const struct sb *sb);
const struct sb_event *sb_event(const struct sb *sb, size_t i);

/* Counts for `info` and tests: records by kind. */
struct sb_stats {
	uint64_t nmmap, ncomm, nfork, nexit, nswitch, nitrace_start;
	uint64_t nbuild_ids;	/* HEADER_BUILD_ID entries */
	uint64_t nnotime;	/* timeline records without a time */
	uint64_t nuntimed;	/* processes whose address space changed (an
				 * exec) in a recording without time
				 * conversion: which one ran when is unknown */
};
void sb_stats(const struct sb *sb, struct sb_stats *st);

#endif /* SIDEBAND_H */
