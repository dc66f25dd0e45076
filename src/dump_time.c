/*
 * dump_time -- the timing columns of `ptbrowse dump`: ptdump's --time and
 * --tcal (libipt's estimate, decoder/tm_ptdump.h, number for number) and
 * our own --cycles columns (decoder/tm.h), in front of each line.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "dump_fmt.h"
#include "tm.h"
#include "tm_ptdump.h"
#include "timing_opt.h"

/* The ns column's width. */
#define DT_NS_WIDTH	14

struct dump_time {
	struct tm_config cfg;		/* the command line's */
	unsigned tm_ptdump_flags;		/* enum tm_ptdump_flag */
	int delta;			/* --time-delta */
	int cycles;			/* --cycles */
	struct tm_ptdump tmp;
	struct tm_model tm;
	uint64_t last_tsc, last_fcr;	/* for --time-delta */
	uint64_t ns0;			/* the first wall-clock time */
	int have_ns0;
};

static struct dump_time *get(struct dump_state *st)
{
	if (!st->time) {
		st->time = calloc(1, sizeof(struct dump_time));
		if (!st->time) {
			fprintf(stderr, "ptbrowse dump: out of memory\n");
			exit(1);
		}
	}
	return st->time;
}

enum { DT_TIME, DT_TCAL, DT_DELTA, DT_NO_TCAL, DT_NO_WALL, DT_KEEP_TCAL, DT_CYCLES };

const struct opt dump_time_opts[] = {
	{ "time", 0, NULL, "show libipt's estimated TSC on timing packets", DT_TIME },
	{ "tcal", 0, NULL, "show libipt's time calibration (fcr) instead", DT_TCAL },
	{ "time-delta", 0, NULL, "show time and calibration as deltas", DT_DELTA },
	{ "no-tcal", 0, NULL, "don't calibrate (CYC packets then give errors)", DT_NO_TCAL },
	{ "no-wall-clock", 0, NULL, "print relative time where there is no TSC yet",
	  DT_NO_WALL },
	{ "keep-tcal-on-ovf", 0, NULL, "keep calibration across an overflow", DT_KEEP_TCAL },
	{ "cycles", 0, NULL, "our time model's columns in front of each line:\n"
	  "cycles, exact (=) or bounded (~), estimated TSC,\n"
	  "ns since the time origin (the first TSC, but a\n"
	  "damaged one), CBR, MHz (~: against\n"
	  "a TSC frequency estimated from --nom-freq), flags", DT_CYCLES },
	{ 0 }
};

int dump_time_take(const struct opt_cmd *cmd, void *ctx, const struct opt *o,
		   const char *val)
{
	struct dump_time *dt = get(ctx);
	unsigned want;

	switch (o->id) {
	case DT_TIME:
	case DT_TCAL:
		want = o->id == DT_TIME ? TMP_SHOW_TIME : TMP_SHOW_TCAL;
		if (dt->tm_ptdump_flags & (TMP_SHOW_TIME | TMP_SHOW_TCAL) & ~want) {
			opt_error(cmd, "specify either --time or --tcal");
			return -ENOTSUP;
		}
		dt->tm_ptdump_flags |= want;
		break;
	case DT_DELTA:
		dt->delta = 1;
		break;
	case DT_NO_TCAL:
		dt->tm_ptdump_flags |= TMP_NO_TCAL;
		break;
	case DT_NO_WALL:
		dt->tm_ptdump_flags |= TMP_NO_WALL_CLOCK;
		break;
	case DT_KEEP_TCAL:
		dt->tm_ptdump_flags |= TMP_KEEP_TCAL_ON_OVF;
		break;
	default:
		dt->cycles = 1;
		break;
	}
	return 0;
}

int dump_time_take_timing(const struct opt_cmd *cmd, void *ctx,
			  const struct opt *o, const char *val)
{
	return timing_opt_take(cmd, &get(ctx)->cfg, o, val);
}

int dump_time_setup(struct dump_state *st, const struct tm_config *cfg)
{
	struct dump_time *dt = get(st);
	unsigned flags = dt->tm_ptdump_flags;

	/* ptdump looks up the errata of a --cpu it is given, always. */
	if (dt->cfg.have_cpu && !tm_config_cpu_known(&dt->cfg))
		dump_diag(st, 0, "failed to determine errata: unknown cpu");
	if (cfg)
		tm_config_merge(&dt->cfg, cfg);
	if (st->opts.no_cyc)
		flags |= TMP_NO_CYC;
	dt->tm_ptdump_flags = flags;
	tm_ptdump_init(&dt->tmp, &dt->cfg, flags);
	tm_init(&dt->tm, &dt->cfg);
	return 0;
}

void dump_time_reset(struct dump_state *st)
{
	struct dump_time *dt = st->time;

	if (!dt)
		return;
	/* ptdump forgets all timing at a resync; our model only notes the
	 * lost bytes, so its clock stays monotonic. */
	tm_ptdump_reset(&dt->tmp);
	dt->last_tsc = 0;
	dt->last_fcr = 0;
	tm_gap(&dt->tm);
}

int dump_time_cycles(const struct dump_state *st)
{
	const struct dump_time *dt = st->time;

	return dt && dt->cycles;
}

const struct tm_config *dump_time_config(struct dump_state *st)
{
	return &get(st)->cfg;
}

void dump_time_resume(struct dump_state *st, const struct tm_carry *carry,
		      uint64_t ns0, int have_ns0)
{
	struct dump_time *dt = get(st);

	tm_restore(&dt->tm, carry);
	dt->ns0 = ns0;
	dt->have_ns0 = have_ns0;
}

void dump_time_restart(struct dump_state *st)
{
	struct dump_time *dt = get(st);

	tm_init(&dt->tm, &dt->cfg);
}

void dump_time_feed(struct dump_state *st, const struct pkt *pkt)
{
	struct dump_time *dt = get(st);
	struct tm_stamp s;

	tm_step(&dt->tm, pkt, &s);
}

void dump_time_ns0(struct dump_state *st, uint64_t ns0)
{
	struct dump_time *dt = get(st);

	dt->ns0 = ns0;
	dt->have_ns0 = 1;
}

static void ptdump_column(struct dump_state *st, struct dump_time *dt,
			  struct dump_line *line, const struct pkt *pkt)
{
	struct tm_ptdump_out out;
	char msg[96];
	int k;

	tm_ptdump_step(&dt->tmp, pkt, &out);
	for (k = 0; k < out.ndiag; k++) {
		if (out.diag[k].err)
			snprintf(msg, sizeof(msg), "%s: %s", out.diag[k].msg,
				 tm_ptdump_errstr(out.diag[k].err));
		else
			snprintf(msg, sizeof(msg), "%s", out.diag[k].msg);
		dump_diag(st, pkt->offset, msg);
	}
	if (out.col == TMP_COL_NONE)
		return;
	snprintf(line->track_id, sizeof(line->track_id), "%s",
		 out.col == TMP_COL_TSC ? "tsc" : "fcr");
	if (!out.col_ok) {
		snprintf(line->track, sizeof(line->track), "<unavailable>");
		return;
	}
	if (out.col == TMP_COL_TSC) {
		if (!dt->delta) {
			dump_fmt_hex(line->track, out.value, 16);
		} else {
			if (dt->last_tsc <= out.value)
				snprintf(line->track, sizeof(line->track),
					 "+%" PRIx64, out.value - dt->last_tsc);
			else
				snprintf(line->track, sizeof(line->track),
					 "-%" PRIx64, dt->last_tsc - out.value);
			dt->last_tsc = out.value;
		}
	} else {
		double f = (double)out.value / 256.0;

		if (!dt->delta) {
			snprintf(line->track, sizeof(line->track), "%.3f", f);
		} else {
			snprintf(line->track, sizeof(line->track), "%+.3f",
				 f - (double)dt->last_fcr / 256.0);
			dt->last_fcr = out.value;
		}
	}
}

/* Our columns: see dump_time_usage() and the man page. */
static void cycles_columns(struct dump_time *dt, struct dump_line *line,
			   const struct tm_stamp *s)
{
	char cyc[24], tsc[24], ns[24], cbr[8], mhz[16], fl[16];
	char mark = ' ';
	int n = 0;

	if (s->flags & TM_F_CYC)
		snprintf(cyc, sizeof(cyc), "%" PRIu64, s->cycles);
	else
		snprintf(cyc, sizeof(cyc), "-");
	if (s->flags & TM_F_EXACT)
		mark = '=';
	else if (s->flags & TM_F_BOUNDED)
		mark = '~';
	snprintf(tsc, sizeof(tsc), "%016" PRIx64 ".%02x", s->tsc,
		 (unsigned)(s->tsc_frac >> 24));
	if (s->flags & TM_F_NS) {
		if (!dt->have_ns0) {
			dt->ns0 = s->ns;
			dt->have_ns0 = 1;
		}
		/* Before the first: time went back (TM_F_RESYNC). */
		if (s->ns >= dt->ns0)
			snprintf(ns, sizeof(ns), "%" PRIu64, s->ns - dt->ns0);
		else
			snprintf(ns, sizeof(ns), "-%" PRIu64, dt->ns0 - s->ns);
		/* 27 hours on or 2.7 back (a damaged TSC's time, mostly)
		 * in the column's 14 places: mantissa and exponent. */
		if (strlen(ns) > DT_NS_WIDTH)
			snprintf(ns, sizeof(ns), "%.*e", ns[0] == '-' ? 7 : 8,
				 s->ns >= dt->ns0 ? (double)(s->ns - dt->ns0) :
				 -(double)(dt->ns0 - s->ns));
	} else {
		snprintf(ns, sizeof(ns), "-");
	}
	if (s->cbr)
		snprintf(cbr, sizeof(cbr), "%u", s->cbr);
	else
		snprintf(cbr, sizeof(cbr), "-");
	/* Measured against a TSC frequency estimated from P1: '~'. */
	if (s->flags & TM_F_FREQ)
		snprintf(mhz, sizeof(mhz), "%u.%u%s", s->khz / 1000,
			 s->khz % 1000 / 100,
			 tm_config_tsc_source(&dt->cfg) == TM_HZ_P1 ? "~" : "");
	else
		snprintf(mhz, sizeof(mhz), "-");
	if (s->flags & TM_F_REL)
		fl[n++] = 'r';
	if (s->flags & TM_F_UNCAL)
		fl[n++] = 'u';
	if (s->flags & TM_F_CLAMPED)
		fl[n++] = 'c';
	if (s->flags & TM_F_MTC_LOST)
		fl[n++] = 'l';
	if (s->flags & TM_F_OVF)
		fl[n++] = 'o';
	if (s->flags & TM_F_TSC_BACK)
		fl[n++] = 'b';
	if (s->flags & TM_F_RESYNC)
		fl[n++] = 'j';
	if (s->flags & TM_F_TMA_NO_TSC)
		fl[n++] = 't';
	if (s->flags & TM_F_SLEEP)
		fl[n++] = 's';
	if (s->flags & TM_F_NO_CONFIG)
		fl[n++] = 'n';
	if (s->flags & TM_F_LOST)
		fl[n++] = 'd';
	if (s->flags & TM_F_UNTIED)
		fl[n++] = 'm';
	fl[n] = 0;
	snprintf(line->prefix, sizeof(line->prefix),
		 "%12s%c %19s %*s %3s %7s %-9s ", cyc, mark, tsc, DT_NS_WIDTH, ns,
		 cbr, mhz, fl);
}

void dump_time_packet(struct dump_state *st, struct dump_line *line,
		      const struct pkt *pkt)
{
	struct dump_time *dt = st->time;
	struct tm_stamp s;

	if (!dt)
		return;
	if (dt->tm_ptdump_flags & (TMP_SHOW_TIME | TMP_SHOW_TCAL))
		ptdump_column(st, dt, line, pkt);
	if (dt->cycles) {
		tm_step(&dt->tm, pkt, &s);
		cycles_columns(dt, line, &s);
	}
}
