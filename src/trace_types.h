/*
 * trace_types -- what a trace is: its streams, each an image with its
 * timing.  trace.c opens and maps one; perfdata.c fills the streams of a
 * perf.data file and timing_file.c reads a raw one's options, both
 * through these types alone (trace.h, which calls them, is above them:
 * t_imports.sh).
 */
#ifndef TRACE_TYPES_H
#define TRACE_TYPES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "image.h"
#include "tm_config.h"

enum trace_kind { TRACE_RAW, TRACE_PERF_FILE, TRACE_PERF_PIPE };

/* One stream of PT data: a whole raw file, or one CPU (or thread) of a
 * perf.data file. */
struct trace_stream {
	char name[32];		/* "raw", "cpu3", "tid1234" */
	int cpu;		/* -1 if not per-CPU */
	int tid;		/* -1 if not per-thread */
	struct img img;		/* the bytes, in stream order */
	struct img_span *spans;	/* storage behind img.spans */
	uint8_t snapshot;	/* snapshot mode: gaps are possible */
	struct tm_config timing;/* what the container says */
};

struct trace {
	char *path;
	int fd;
	uint8_t fd_reads;	/* fd reads the file behind map (pread) */
	const uint8_t *map;	/* the whole file, read-only */
	uint64_t size;
	dev_t dev;
	ino_t ino;
	int64_t mtime_ns;
	enum trace_kind kind;
	size_t nstreams;
	struct trace_stream *streams;
	void *perf;		/* perf.data reader state, if any */
	uint8_t options_read;	/* a raw trace's PATH.options was read
				 * into its stream's timing (timing_file.h) */
	uint8_t piped;		/* from standard input or a pipe, read
				 * whole into memory (trace_open_input()):
				 * no options file lies beside it */
};

#endif /* TRACE_TYPES_H */
