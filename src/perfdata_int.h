/* perfdata_int -- what perfdata.c (the reader) and perfdata_streams.c (the
 * trace's streams built from what was read) share: the file's layouts and
 * the reader's state.  Internal to those two files. */
#ifndef PERFDATA_INT_H
#define PERFDATA_INT_H

#include <stdint.h>

#include "perfdata.h"
#include "ptdec.h"

/*
 * Layouts (little-endian; from the kernel's include/uapi/linux/perf_event.h
 * and tools/perf/util/header.c, auxtrace.c, intel-pt.c):
 *   file header: magic, size, attr_size, attrs{off,size}, data{off,size},
 *     event_types{off,size}, adds_features[4]; 104 bytes.  The feature
 *     sections ({off,size} per set bit) follow the data section.
 *   pipe header: magic, size (16); attrs and features come as records.
 *   record: u32 type, u16 misc, u16 size, then size - 8 bytes.
 */
#define PD_MAGIC		0x32454c4946524550ull	/* "PERFILE2" */
#define PD_MAGIC_SWAPPED	0x50455246494c4532ull
#define PD_FILE_HDR_SIZE	104
#define PD_PIPE_HDR_SIZE	16

enum {
	PD_REC_LOST = 2,
	PD_REC_COMM = 3,
	PD_REC_SAMPLE = 9,
	PD_REC_AUX = 11,
	PD_REC_ITRACE_START = 12,
	PD_REC_LOST_SAMPLES = 13,
	PD_REC_SWITCH = 14,
	PD_REC_SWITCH_CPU_WIDE = 15,
	PD_REC_HEADER_ATTR = 64,
	PD_REC_HEADER_TRACING_DATA = 66,
	PD_REC_AUXTRACE_INFO = 70,
	PD_REC_AUXTRACE = 71,
	PD_REC_TIME_CONV = 79,
	PD_REC_HEADER_FEATURE = 80,
	PD_REC_COMPRESSED = 81,
	PD_REC_COMPRESSED2 = 83,
};

enum { PD_FEAT_BUILD_ID = 2, PD_FEAT_HOSTNAME = 3, PD_FEAT_OSRELEASE = 4,
       PD_FEAT_CPUID = 9, PD_FEAT_AUXTRACE = 18 };

/* perf_event_attr.sample_type bits that make up sample_id. */
#define PD_ST_TID		(1ull << 1)
#define PD_ST_TIME		(1ull << 2)
#define PD_ST_ID		(1ull << 6)
#define PD_ST_CPU		(1ull << 7)
#define PD_ST_STREAM_ID		(1ull << 9)
#define PD_ST_IDENTIFIER	(1ull << 16)
#define PD_ATTR_SAMPLE_ID_ALL	(1ull << 18)	/* in the flags word */
#define PD_ATTR_EXCLUDE_KERNEL	(1ull << 5)

#define PD_MISC_SWITCH_OUT	(1u << 13)
#define PD_MISC_SWITCH_PREEMPT	(1u << 14)

#define PD_AUXTRACE_INTEL_PT	1
#define PD_AUXTRACE_HDR_SIZE	48

/* AUXTRACE_INFO's Intel PT private words, in order. */
enum {
	PD_PT_PMU_TYPE,
	PD_PT_TIME_SHIFT,
	PD_PT_TIME_MULT,
	PD_PT_TIME_ZERO,
	PD_PT_CAP_USER_TIME_ZERO,
	PD_PT_TSC_BIT,
	PD_PT_NORETCOMP_BIT,
	PD_PT_HAVE_SCHED_SWITCH,
	PD_PT_SNAPSHOT_MODE,
	PD_PT_PER_CPU_MMAPS,
	PD_PT_MTC_BIT,
	PD_PT_MTC_FREQ_BITS,
	PD_PT_TSC_CTC_N,
	PD_PT_TSC_CTC_D,
	PD_PT_CYC_BIT,
	PD_PT_MAX_NONTURBO_RATIO,
	PD_PT_FILTER_STR_LEN,
	PD_PT_NPRIV
};

/* The intel_pt PMU's fixed config layout (its sysfs format directory);
 * AUXTRACE_INFO carries only some of these as masks. */
#define PD_CFG_CYC_THRESH_SHIFT	19
#define PD_CFG_PSB_PERIOD_SHIFT	24
#define PD_CFG_MTC_PERIOD_MASK	(0xfull << 14)

/* One AUXTRACE record. */
struct perfdata_aux {
	uint64_t rec_off;	/* of the record header */
	uint64_t data_off;	/* of the payload */
	uint64_t size;		/* payload bytes present in the file */
	uint64_t offset;	/* position in the AUX buffer */
	uint32_t idx;
	int32_t tid, cpu;
	uint8_t lost_after;	/* its payload was cut: what followed is lost */
};

/* A record the walk stepped over by more than its header's size (an
 * AUXTRACE payload, tracing data): where the next one starts, so
 * perfdata_walk() finds the records the loader found. */
struct perfdata_skip {
	uint64_t off;		/* of the record */
	uint64_t total;		/* the bytes the loader stepped over */
};

/* One attr: what sample_id parsing needs. */
struct perfdata_attr {
	uint32_t type;
	uint64_t config;
	uint64_t sample_type;
	uint8_t sample_id_all;
	uint8_t exclude_kernel;
	const uint8_t *ids;	/* u64 ids, in the mapping */
	size_t nids;
};

/* An attr id and the attr it names. */
struct perfdata_id {
	uint64_t id;
	size_t attr;
};

/* Per stream: its events and each span's AUX-buffer offset. */
struct perfdata_stream {
	struct perfdata_event *ev;
	size_t nev;
	uint64_t *aux_off;	/* parallel to the stream's spans */
	char end_loss[200];	/* why data after the end may be lost, or "" */
	uint64_t last_rec;	/* file offset of its last AUXTRACE record */
};

/* Where one walk over the records last read, and its last pread's bytes
 * (perfdata_peek).  Each walk has its own: the loader's lives in the
 * state, perfdata_walk()'s on its stack, so that walks in several threads
 * do not read each other's buffer. */
struct perfdata_cursor {
	uint64_t near;		/* the last offset read through map */
	uint64_t peek_off;	/* of peek[], if peek_n */
	size_t peek_n;
	uint8_t peek[64];	/* the last pread */
};

/* The reader state behind trace->perf. */
struct perfdata_state {
	struct perfdata_info info;
	const uint8_t *map;
	uint64_t size;
	int fd;			/* reads the file behind map, or -1 */
	struct perfdata_cursor cur;	/* the loader's reads */
	const char *path;
	char *err;
	size_t errlen;
	struct perfdata_attr *attrs;
	size_t nattrs;
	struct perfdata_id *ids;	/* every attr id, sorted, for sample_id */
	size_t nids;
	uint8_t ids_stale;	/* attrs were added since ids was built */
	struct perfdata_aux *aux;
	size_t naux, aux_cap;
	struct perfdata_event *ev;
	size_t nev, ev_cap;
	struct perfdata_stream *streams;
	size_t nstreams;
	uint64_t priv[PD_PT_NPRIV];
	size_t npriv;		/* private words present */
	const uint8_t *index;	/* HEADER_AUXTRACE feature, if any */
	uint64_t index_size;
	uint64_t index_off;
	uint8_t have_index;
	uint8_t index_sorted;	/* its offsets ascend (perf writes them so) */
	uint64_t index_n;	/* its entries, as many as it has room for */
	uint64_t walk_start;	/* the first record */
	uint64_t walk_end;	/* where the record walk stopped */
	struct perfdata_skip *skip;	/* in file order, up to walk_end */
	size_t nskip, skip_cap;
	const uint8_t *build_ids;	/* HEADER_BUILD_ID feature, if any */
	uint64_t build_ids_size;
	uint8_t cut;		/* records after cut_off may be lost */
	uint8_t cut_aux;	/* cut_off is an AUXTRACE record's */
	uint8_t end_known;	/* the walk ends at the data section's end,
				 * whole in the file (file mode) */
	uint64_t cut_off;
	char cut_why[200];	/* what cut_off is, for the streams' end gaps */
	uint8_t have_tc;	/* TIME_CONV seen */
	uint16_t tc_shift;
	uint32_t tc_mult;
	uint64_t tc_zero;
};

/* perfdata.c: AUXTRACE records by stream, then offset, or (snapshot
 * mode) then file position (qsort); the timing the file's AUXTRACE_INFO
 * and TIME_CONV give, into @cfg. */
int perfdata_aux_cmp(const void *a, const void *b);
int perfdata_aux_file_cmp(const void *a, const void *b);
void perfdata_timing(const struct perfdata_state *st, struct tm_config *cfg);

/* perfdata_streams.c: the trace's streams from the reader's state, their
 * sideband events, their data-loss gaps (at each loss and at the end);
 * each 0 or a negative error code, as said at its definition. */
int perfdata_assign_events(struct perfdata_state *st, struct trace *t);
int perfdata_split_losses(struct trace_stream *s, struct perfdata_stream *ps);
int perfdata_end_gaps(struct perfdata_state *st, struct trace *t);
int perfdata_streams(struct perfdata_state *st, struct trace *t);

#endif
