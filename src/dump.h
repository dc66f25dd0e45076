/*
 * dump -- the state of `ptbrowse dump`, shared between cmd_dump.c (packets,
 * last IP) and dump_time.c (ptdump's --time/--tcal and our --cycles).
 */
#ifndef DUMP_H
#define DUMP_H

#include <stdint.h>

#include "image.h"
#include "opt.h"
#include "pkt.h"
#include "tm_config.h"

struct out;
struct ctx_range;
struct tm_carry;

struct dump_opts {
	unsigned show_offset:1, show_raw:1, show_last_ip:1, show_exec_mode:1;
	unsigned quiet:1, no_pad:1, no_sync:1, no_timing:1, no_cyc:1;
};

/* One output line, filled column by column. */
struct dump_line {
	uint64_t offset;
	int skip;		/* don't print (--no-pad, --no-timing, ...) */
	uint8_t type;		/* enum pkt_type */
	const char *name;
	char raw[40];
	char payload[64];
	char track_id[8];	/* "ip", "tsc", "fcr", ... */
	char track[48];
	char prefix[128];	/* --cycles columns, printed first */
};

struct dump_state {
	struct dump_opts opts;
	const struct img *img;
	struct out *out;
	uint64_t last_ip;
	int have_ip, ip_suppressed;
	int in_psb;		/* between psb and psbend */
	void *time;		/* dump_time.c's state */
	const char *end_loss;	/* why data after the end is lost, or NULL */
	int keep_only;		/* print only packets in keep (--pid, ...) */
	struct ctx_range *keep;	/* ctx.h's ranges */
	size_t nkeep;
};

/* Print a "[offset: msg]" diagnostics line. */
void dump_diag(struct dump_state *st, uint64_t offset, const char *msg);

/* dump's time options (--time, --tcal, --cycles, ...), for opt.h. */
extern const struct opt dump_time_opts[];

/* opt_take_fn for dump_time_opts, into the struct dump_state at @ctx.
 * Returns 0, or -ENOTSUP after reporting --time with --tcal. */
int dump_time_take(const struct opt_cmd *cmd, void *ctx, const struct opt *o,
		   const char *val);

/* opt_take_fn for timing_opts (timing_opt.h) into the dump_state at @ctx.
 * Returns 0, or -EINVAL for a bad value (opt_parse() reports it). */
int dump_time_take_timing(const struct opt_cmd *cmd, void *ctx,
			  const struct opt *o, const char *val);

/* Merge the container's timing @cfg under the command line's, set up.
 * Returns 0, or -1 after printing an error. */
int dump_time_setup(struct dump_state *st, const struct tm_config *cfg);

/* Forget timing state (after a resync). */
void dump_time_reset(struct dump_state *st);

/* Whether --cycles was asked for. */
int dump_time_cycles(const struct dump_state *st);

/* The merged timing configuration (after dump_time_setup()). */
const struct tm_config *dump_time_config(struct dump_state *st);

/* Resume our time model from @carry, the state decoding from the start
 * has at the window's first PSB, and count nanoseconds from @ns0 (the
 * first wall-clock time of the whole trace) if @have_ns0. */
void dump_time_resume(struct dump_state *st, const struct tm_carry *carry,
		      uint64_t ns0, int have_ns0);

/* Start our time model again from nothing (its state where the decode
 * starts is not known); the time origin stays. */
void dump_time_restart(struct dump_state *st);

/* Step our time model over @pkt, a packet before the window, printing
 * nothing. */
void dump_time_feed(struct dump_state *st, const struct pkt *pkt);

/* Count --cycles' nanoseconds from @ns0 (the trace's time origin, as the
 * browser's) rather than from the first wall-clock time decoded. */
void dump_time_ns0(struct dump_state *st, uint64_t ns0);

/* Add timing columns and diagnostics for @pkt to @line. */
void dump_time_packet(struct dump_state *st, struct dump_line *line,
		      const struct pkt *pkt);

#endif /* DUMP_H */
