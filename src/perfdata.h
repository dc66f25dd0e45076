/*
 * perfdata -- Intel PT streams out of a perf.data file, without copying.
 *
 * trace.c maps the file and, when perfdata_is() says so, calls
 * perfdata_load().  It walks the header, the attrs and the features (file
 * mode) or the inline HEADER_ATTR / HEADER_FEATURE records (pipe mode),
 * then the records, and builds:
 *   - one trace_stream per AUX buffer (a CPU, or a thread in per-thread
 *     mode): its AUXTRACE payloads as img spans over the mapping, ordered
 *     by their AUX-buffer offset (in snapshot mode, where that offset is
 *     a place in a buffer that wraps, by their place in the file, as perf
 *     queues them), a span after a hole or an overlap, or
 *     after data loss that an AUX record reports (truncated, partial),
 *     marked gap_before; a stream the file may have lost the end of (a
 *     payload or record cut by the end of the file or running past it)
 *     ends in an empty span marked gap_before;
 *   - each stream's tm_config, from AUXTRACE_INFO, TIME_CONV, the intel_pt
 *     attr's config bits and HEADER_CPUID;
 *   - per stream, the sideband worth a timeline marker (AUX data loss,
 *     ITRACE_START, context switches, COMM), with perf time and TSC.
 *
 * Only little-endian files are read.  Errors name the file and offset.
 */
#ifndef PERFDATA_H
#define PERFDATA_H

#include <stddef.h>
#include <stdint.h>

#include "trace_types.h"

/* Sideband event kinds. */
enum perfdata_event_kind {
	PD_EV_AUX,		/* PERF_RECORD_AUX: flags says what was lost */
	PD_EV_ITRACE_START,	/* tracing started for pid/tid */
	PD_EV_SWITCH_IN,	/* a context switch into pid/tid */
	PD_EV_SWITCH_OUT,	/* a context switch out of pid/tid */
	PD_EV_COMM,		/* pid/tid took the name comm */
	PD_EV_NKINDS
};

/* PERF_RECORD_AUX flags. */
#define PD_AUX_TRUNCATED	0x01	/* the AUX buffer was full: data lost */
#define PD_AUX_OVERWRITE	0x02	/* snapshot (overwrite) mode */
#define PD_AUX_PARTIAL		0x04	/* a partial record: data lost */
#define PD_AUX_COLLISION	0x08	/* the PMU's sample collided: data lost */

/* One sideband record worth showing on a stream's timeline. */
struct perfdata_event {
	uint64_t file_off;	/* of the record */
	uint64_t time;		/* perf time (ns), if have_time */
	uint64_t tsc;		/* the same in TSC ticks, if have_tsc */
	uint64_t aux_offset;	/* PD_EV_AUX: AUX-buffer offset and size */
	uint64_t aux_size;
	uint64_t stream_off;	/* PD_EV_AUX: logical stream offset of the
				 * end of the data, if have_stream_off */
	uint32_t flags;		/* PD_EV_AUX: PD_AUX_*; SWITCH: preempted */
	int32_t cpu;		/* -1 if unknown */
	int32_t pid, tid;	/* the task the event is about; -1 unknown */
	uint8_t kind;		/* enum perfdata_event_kind */
	uint8_t have_time;
	uint8_t have_tsc;
	uint8_t have_stream_off;
	char comm[16];		/* PD_EV_COMM: the new name */
};

/* What the container says about the recording, for `ptbrowse info`. */
struct perfdata_info {
	uint64_t nrecords;	/* records walked */
	uint64_t nauxtrace;	/* AUXTRACE records */
	uint32_t pmu_type;	/* intel_pt's perf PMU type */
	uint64_t config;	/* the intel_pt attr's config */
	uint8_t have_config;
	uint8_t exclude_kernel;	/* the intel_pt attr traced user space only */
	uint8_t have_auxtrace_info;
	uint8_t snapshot_mode;
	uint8_t per_cpu_mmaps;
	uint8_t have_sched_switch;
	uint8_t cap_user_time_zero;
	uint8_t have_time_conv;
	uint8_t mtc, tsc, cyc, noretcomp;	/* attr config bits set */
	uint8_t mtc_period;	/* MTC frequency field of the config */
	uint8_t cyc_thresh;	/* CycThresh field of the config */
	uint8_t psb_period;	/* PSB frequency field of the config */
	uint32_t tsc_ctc_ratio_n, tsc_ctc_ratio_d;
	uint32_t max_non_turbo_ratio;
	uint16_t time_shift;
	uint32_t time_mult;
	uint64_t time_zero;
	char cpuid[64];		/* HEADER_CPUID, "GenuineIntel,6,78,3" */
	char hostname[65];	/* HEADER_HOSTNAME ("" if none) */
	char osrelease[65];	/* HEADER_OSRELEASE, uname -r ("" if none) */
	char filter[128];	/* the address filter string, if any */
	uint8_t have_cap_event_trace;	/* a newer AUXTRACE_INFO: */
	uint8_t cap_event_trace;	/* the CPU can trace events */
	uint64_t nevents[PD_EV_NKINDS];	/* sideband events by kind */
	uint64_t ncompressed;	/* zstd records skipped (perf record -z) */
	uint64_t nlost;		/* PERF_RECORD_LOST records (perf's ring
				 * buffer was full: sideband dropped) */
	uint64_t lost;		/* the records they say were dropped */
	uint64_t nlost_samples;	/* PERF_RECORD_LOST_SAMPLES records */
	uint64_t lost_samples;	/* the samples they say were dropped */
	unsigned nwarnings;	/* recoverable problems */
	char warning[200];	/* the first of them, "offset 0x..: ..." */
};

/* Whether @map (@size bytes) starts with perf.data's "PERFILE2" magic.
 * Returns 1 for file mode (or a file cut inside its header: the magic
 * alone), 2 for pipe mode, 0 if not a perf.data file. */
int perfdata_is(const uint8_t *map, uint64_t size);

/* Whether @map (@size bytes) starts with perf.data's magic byte-swapped
 * (written on a big-endian machine): not read, but perfdata_load() says
 * so rather than the file being taken for a raw trace. */
int perfdata_is_swapped(const uint8_t *map, uint64_t size);

/* Read the perf.data file mapped at t->map (t->size bytes, t->path for
 * messages) and set t->kind, t->streams, t->nstreams and t->perf.  On
 * failure writes one line naming the file and the offset into @err and
 * leaves @t without streams.
 * Returns 0 on success.
 * Returns -pte_bad_file if the file is malformed or holds no Intel PT.
 * Returns -pte_nomem if out of memory.
 * Returns -pte_invalid if @t has no mapping. */
int perfdata_load(struct trace *t, char *err, size_t errlen);

/* Free what perfdata_load() allocated (streams, reader state) and clear
 * those fields of @t.  NULL and a raw trace are fine. */
void perfdata_free(struct trace *t);

/* Why data after the end of stream @stream may be lost (its last AUXTRACE
 * payload runs past the end, or the file is cut short or damaged after
 * it), or NULL if nothing says so.  Such a stream's image ends in a gap:
 * an empty last span marked gap_before (decoder/image.h). */
const char *perfdata_end_loss(const struct trace *t, int stream);

/* Why stream @stream of @t holds no bytes, into @buf (@size bytes, one
 * line): "<file>: stream <name> holds no trace data", and the loss at its
 * end (perfdata_end_loss(): where its payload was cut off) or that its
 * records carry none.  Returns 1 if the stream is empty, 0 if not (or no
 * such stream; @buf untouched). */
int perfdata_empty_why(const struct trace *t, int stream, char *buf,
		       size_t size);

/* The streams @t has, for a --stream that names none: "cpu0, cpu3" (cut
 * with ", ... N more" where @size bytes do not hold them) into @buf.
 * Returns @buf. */
const char *perfdata_stream_list(const struct trace *t, char *buf,
				 size_t size);

/* The stream --stream @spec names in @t (trace_find_stream()), or, if
 * none, one line on stderr led by @prog: "@path: no stream 'S' (it has
 * cpu0, cpu3)".  Returns its index, or -1 after saying so. */
int perfdata_stream_named(const struct trace *t, const char *spec, const char *prog,
			  const char *path);

/* The recording's facts, or NULL if @t is not a loaded perf.data. */
const struct perfdata_info *perfdata_info(const struct trace *t);

/* How many sideband records perf says it dropped (PERF_RECORD_LOST: its
 * ring buffer was full), at least one per LOST record; 0 if none, or if
 * @t is not a loaded perf.data.  Not 0: context switches, COMMs, MMAPs
 * may be missing, so which thread ran when and which code was loaded
 * where is incomplete. */
uint64_t perfdata_lost_records(const struct trace *t);

/* The sideband events of stream @stream, in file order.
 * Returns 0 and sets *@ev and *@n (possibly 0 events).
 * Returns -pte_invalid if @t is not a loaded perf.data or @stream is out
 * of range. */
int perfdata_events(const struct trace *t, int stream,
		    const struct perfdata_event **ev, size_t *n);

/* One record of the data section, for perfdata_walk(). */
struct perfdata_record {
	uint64_t file_off;	/* of its header */
	const uint8_t *data;	/* the record, header first, in the mapping */
	uint32_t size;		/* its header's size */
	uint32_t body_end;	/* where its sample_id trailer starts (size
				 * if it has none) */
	uint32_t type;		/* PERF_RECORD_* */
	uint16_t misc;
	int32_t pid, tid, cpu;	/* from the sample_id trailer; -1 unknown */
	uint64_t time;		/* perf time, if have_time */
	uint8_t have_time;
};

/* Called for each record; a non-zero return stops the walk with it. */
typedef int (*perfdata_record_fn)(void *ctx, const struct perfdata_record *r);

/* Call @fn for every record of a loaded perf.data's data section, in file
 * order, except AUXTRACE and tracing data (the sideband: MMAP, MMAP2,
 * COMM, FORK, EXIT, SWITCH, ... and, in pipe mode, HEADER_BUILD_ID), up to
 * where perfdata_load()'s walk stopped.  Several threads may walk one
 * trace at once (each walk keeps its own read position and buffer).
 * Returns 0, what @fn returned if not 0, or -pte_invalid if @t is not a
 * loaded perf.data or @fn is NULL. */
int perfdata_walk(const struct trace *t, perfdata_record_fn fn, void *ctx);

/* The HEADER_BUILD_ID feature section (file mode): build_id records, each
 * with a perf_event_header, in the mapping.
 * Returns 0 and sets *@p and *@size (0 if the file has none).
 * Returns -pte_invalid if @t is not a loaded perf.data. */
int perfdata_build_ids(const struct trace *t, const uint8_t **p,
		       uint64_t *size);

/* A short name of event kind @kind ("aux", "itrace_start", ...). */
const char *perfdata_event_name(enum perfdata_event_kind kind);

/* Convert perf time @ns to TSC ticks with @cfg's perf conversion (modulo
 * 2^64, as perf computes it: time_zero may be "negative").
 * Returns 0 and sets *@tsc, or -pte_no_time if @cfg has none. */
int perfdata_time_to_tsc(const struct tm_config *cfg, uint64_t ns,
			 uint64_t *tsc);

/* Convert TSC ticks @tsc to perf time with @cfg's perf conversion.
 * Returns 0 and sets *@ns, or -pte_no_time if @cfg has none. */
int perfdata_tsc_to_time(const struct tm_config *cfg, uint64_t tsc,
			 uint64_t *ns);

/* Write @cfg as the ptdump options that decode with it ("--cpu 6/78/3
 * --mtc-freq 3 ...", empty if nothing is known) into @buf, with our
 * --tsc-freq (in Hz) and --cpuid-0x15.ecx when they were given (not a
 * crystal the CPU model implies), and --cpu none where that was given
 * (cpu_none: no CPU, not even the trace's), so that tm_config_option()
 * reads the same timing back.  perf's conversion (time_mult, time_shift) and the
 * CYC threshold have no option and are left out.
 * Returns the length of the string, truncated to @size - 1. */
size_t perfdata_ptdump_options(const struct tm_config *cfg, char *buf,
			       size_t size);

#endif /* PERFDATA_H */
