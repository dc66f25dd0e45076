/*
 * dump_time -- the timing columns of `ptbrowse dump`: ptdump's --time and
 * --tcal (libipt's estimate, decoder/tm_ptdump.h, number for number) and
 * our own --cycles columns (decoder/tm.h), in front of each line.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "dump_fmt.h"
#include "tm.h"
#include "tm_ptdump.h"
#include "timing_opt.h"

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

const char *dump_time_usage(void)
{
	return
"  --time           show libipt's estimated TSC on timing packets\n"
"  --tcal           show libipt's time calibration (fcr) instead\n"
"  --time-delta     show time and calibration as deltas\n"
"  --no-tcal        don't calibrate (CYC packets then give errors)\n"
"  --no-wall-clock  print relative time where there is no TSC yet\n"
"  --keep-tcal-on-ovf  keep calibration across an overflow\n"
"  --cycles         our time model's columns in front of each line:\n"
"                   cycles, exact (=) or bounded (~), estimated TSC,\n"
"                   ns since the first timed packet, CBR, MHz (~: against\n"
"                   a TSC frequency estimated from --nom-freq), flags\n"
"  --cpu f/m[/s]|auto|none  the recording CPU (for errata such as SKL168)\n"
"  --mtc-freq N     IA32_RTIT_CTL.MTCFreq\n"
"  --nom-freq N     the max non-turbo ratio (P1)\n"
"  --cpuid-0x15.eax N, --cpuid-0x15.ebx N   the TSC:crystal clock ratio\n"
"  --cpuid-0x15.ecx HZ  the crystal clock frequency\n"
"  --tsc-freq HZ    the TSC frequency, for wall-clock time (e.g. 2.4GHz)\n";
}

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

int dump_time_option(struct dump_state *st, int argc, char **argv, int *i)
{
	struct dump_time *dt = get(st);
	const char *a = argv[*i];

	if (!strcmp(a, "--time") || !strcmp(a, "--tcal")) {
		unsigned want = a[3] == 'i' ? TMP_SHOW_TIME : TMP_SHOW_TCAL;

		if (dt->tm_ptdump_flags & (TMP_SHOW_TIME | TMP_SHOW_TCAL) & ~want) {
			fprintf(stderr, "ptbrowse dump: specify either --time "
					"or --tcal\n");
			return -1;
		}
		dt->tm_ptdump_flags |= want;
		return 1;
	}
	if (!strcmp(a, "--time-delta")) {
		dt->delta = 1;
		return 1;
	}
	if (!strcmp(a, "--no-tcal")) {
		dt->tm_ptdump_flags |= TMP_NO_TCAL;
		return 1;
	}
	if (!strcmp(a, "--no-wall-clock")) {
		dt->tm_ptdump_flags |= TMP_NO_WALL_CLOCK;
		return 1;
	}
	if (!strcmp(a, "--keep-tcal-on-ovf")) {
		dt->tm_ptdump_flags |= TMP_KEEP_TCAL_ON_OVF;
		return 1;
	}
	if (!strcmp(a, "--cycles")) {
		dt->cycles = 1;
		return 1;
	}

	return timing_arg(&dt->cfg, argc, argv, i, "dump");
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
		snprintf(ns, sizeof(ns), "%" PRIu64, s->ns - dt->ns0);
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
		 "%12s%c %19s %14s %3s %7s %-9s ", cyc, mark, tsc, ns, cbr,
		 mhz, fl);
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
