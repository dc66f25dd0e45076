/*
 * ctx -- what was running at an offset of a stream: pid, tid, comm and
 * CPU, from a perf.data file's sideband (sideband.h) matched by the time
 * model's TSC estimate at the packet (offtsc.h); and the --pid/--tid/
 * --comm restriction that dump, flow and index apply with it.
 *
 * The answer at an offset is the task the sideband says ran on the
 * stream's CPU at the estimated TSC of the packet there (every packet
 * before it fed to the time model from the last PSB).  At a PSB (before
 * its PSB+ TSC), the TSC of the PSB+ after it is used, and CTX_F_AHEAD
 * says so.  But a context switch happens in the kernel, where user-only
 * tracing is off, and the estimate of an enable just after one can lie
 * before the switch's time: so where the thread changes exactly once
 * between the packet's time and the end of its stretch of tracing (the
 * next TIP.PGD or OVF), the stretch is the new thread's (CTX_F_STRETCH),
 * as flow's address spaces are (imgopt_reader_asid()).  A per-thread stream is its thread at every offset.  Without
 * sideband (a raw trace) or time, nothing is known and nothing is
 * guessed: fields stay -1 / "".
 *
 * Lookups are cached (the last answers, by offset) and a reader per
 * stream moves forward from the last question, so a status line that
 * follows a cursor costs one lookup per move; a question behind the
 * reader restarts it at the PSB before (one PSB period of packets).  A
 * struct ctx is for one thread.
 */
#ifndef CTX_H
#define CTX_H

#include <stddef.h>
#include <stdint.h>

struct trace;
struct sb;
struct ctx;

/* struct ctx_task.flags */
enum ctx_flag {
	CTX_F_TSC = 1 << 0,	/* tsc is set */
	CTX_F_AHEAD = 1 << 1,	/* tsc is the following PSB+'s (the offset
				 * is in a PSB+ before its TSC) */
	CTX_F_SIDEBAND = 1 << 2,/* the trace has sideband to ask */
	CTX_F_STRETCH = 1 << 3,	/* the task is the one at the end of the
				 * stretch of tracing (see above) */
};

/* Who ran at an offset.  Unknown fields are -1, "" or SB_ASID_NONE (0). */
struct ctx_task {
	int32_t pid, tid;
	int32_t cpu;		/* the stream's CPU; -1 if not per-CPU */
	uint64_t asid;		/* the address space (imgopt_symbol()'s) */
	uint64_t tsc;		/* the estimated TSC (CTX_F_TSC) */
	uint32_t flags;		/* enum ctx_flag */
	const char *comm;	/* lives as long as the sideband */
};

/* A context reader of @t's streams with sideband @sb (both must outlive
 * it; @sb may be NULL: then only the CPU is known).
 * Returns 0 and sets *@out, or -pte_nomem, or -pte_invalid if @out or @t
 * is NULL. */
int ctx_new(struct ctx **out, const struct trace *t, struct sb *sb);

/* Free @c (NULL is fine). */
void ctx_free(struct ctx *c);

/* Who ran at offset @off of stream @stream into @task.
 * Returns 0 if filled (unknown fields as above).
 * Returns -pte_no_time (with @task's cpu, and a per-thread stream's
 * pid/tid, filled) if no TSC is known at @off or the recording cannot
 * convert perf time to TSC.
 * Returns -pte_invalid for NULL arguments or a bad @stream. */
int ctx_at(struct ctx *c, int stream, uint64_t off, struct ctx_task *task);

/* "comm pid/tid cpuN" for the status line into @buf ("?" for what is
 * unknown; "comm" left out when unknown).  Returns @buf. */
const char *ctx_format(const struct ctx_task *task, char *buf, size_t size);

/* Cache statistics, for tests and benchmarks. */
struct ctx_stats {
	uint64_t lookups, hits;	/* ctx_at() calls, of them from the cache */
	uint64_t restarts;	/* a reader restarted at a PSB */
};
void ctx_stats(const struct ctx *c, struct ctx_stats *st);

/*
 * The restriction: a packet or an instruction is kept if every given
 * field matches the task at its offset.  A task not known there matches
 * no restriction (it is not shown as if it were the one asked for).
 */
struct ctx_filter {
	int32_t pid, tid;	/* -1: any */
	const char *comm;	/* NULL: any; the caller's string */
};

/* No restriction. */
void ctx_filter_init(struct ctx_filter *f);

/* Whether @f restricts anything. */
int ctx_filter_active(const struct ctx_filter *f);

/* Set @f's field for option @opt ("--pid", "--tid" or "--comm") from
 * @val (kept, not copied).
 * Returns 0, or -pte_invalid if @opt is none of those or a pid/tid is not
 * a number from 0 to 2^31 - 1. */
int ctx_filter_set(struct ctx_filter *f, const char *opt, const char *val);

/* Whether @task matches @f.  Returns 1 or 0. */
int ctx_filter_match(const struct ctx_filter *f, const struct ctx_task *task);

/* Whether the packet at @off of @stream is kept by @f (ctx_at(), then
 * ctx_filter_match()).  An inactive @f keeps everything.
 * Returns 1 or 0, or -pte_invalid for NULL arguments or a bad @stream. */
int ctx_keep(struct ctx *c, const struct ctx_filter *f, int stream,
	     uint64_t off);

/* The offset ranges of a stream that a filter keeps, in order, merged. */
struct ctx_range {
	uint64_t from, to;	/* [from, to) */
};

/* Walk stream @stream once and list where @f keeps its packets into
 * *@out (malloc'd; free() it) and *@n.  A range starts at the first kept
 * packet and ends at the first packet after it that is not kept.
 * Returns 0 (*@n may be 0: nothing is kept).
 * Returns -pte_nomem, or -pte_invalid for NULL arguments or a bad
 * @stream. */
int ctx_ranges(struct ctx *c, const struct ctx_filter *f, int stream,
	       struct ctx_range **out, size_t *n);

/* ctx_ranges() for [@from, @to) of the stream (UINT64_MAX: to its end):
 * the same ranges, clipped, from a walk of the range alone (from the PSB
 * before @from to the end of the stretch holding @to).
 * Returns as ctx_ranges(); -pte_invalid also if @to <= @from. */
int ctx_ranges_in(struct ctx *c, const struct ctx_filter *f, int stream,
		  uint64_t from, uint64_t to, struct ctx_range **out, size_t *n);

/* For a command: the ranges of [@from, @to) of stream @stream of @t that
 * @f keeps (ctx_ranges_in(), with its own sideband and reader, freed
 * before returning) into *@out (free() it) and *@n.
 * Returns 0.
 * Returns -pte_invalid with a message in @err if @t has no sideband (a raw
 * trace: no task is known anywhere), or for NULL arguments.
 * Returns -pte_nomem, or sb_load()'s error, with a message in @err. */
int ctx_restrict(const struct trace *t, int stream, const struct ctx_filter *f,
		 uint64_t from, uint64_t to, struct ctx_range **out, size_t *n,
		 char *err, size_t errlen);

/* What makes the threads of @t's sideband unsure, for a command given
 * --pid, --tid or --comm: one line into @buf naming the file, "" if
 * nothing (or @t is no perf.data).  A compressed sideband (perf record -z)
 * is not read: which thread ran when is unknown; else records perf lost
 * (PERF_RECORD_LOST) may have been switches.
 * Returns 1 if it wrote a line, else 0. */
int ctx_sideband_doubt(const struct trace *t, char *buf, size_t len);

/* Whether @off lies in one of @n sorted ranges @r (binary search).
 * Returns 1 or 0. */
int ctx_ranges_has(const struct ctx_range *r, size_t n, uint64_t off);

#endif /* CTX_H */
