/*
 * cmd_flow -- `ptbrowse flow`: the instruction flow as text, ptxed-like.
 *
 * One line per instruction: its IP (16 hex digits), `symbol+0xoff` where a
 * symbol is known, the Intel-syntax disassembly; events between brackets
 * as ptxed prints them; decode errors as "[OFFSET: error: MESSAGE]", after
 * which decoding resumes at the next PSB.  --insn-only prints the IPs,
 * events and errors only: the format tools/iptflow prints from libipt.
 *
 * Shown events: every one but status updates (a PSB+ restating the state)
 * other than the execution mode, and not the timing ones (cbr, mnt): the
 * flow is about instructions.
 *
 * The timing options (timing_opt.h) override what a perf.data recorded, as
 * for dump: they time the --summary (its cycles come from CYC packets
 * alone; its time needs the TSC frequency) and the matching of offsets to
 * sideband time.
 *
 * --pid, --tid and --comm keep the records decided by packets of that
 * task (ctx.h's ranges, as dump and calls keep them); the rest is decoded,
 * so the flow is the same, but not printed or summed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <Zydis/Zydis.h>

#include "cmds.h"
#include "ctx.h"
#include "esc.h"
#include "export.h"
#include "flow.h"
#include "flowtime.h"
#include "image.h"
#include "imgopt.h"
#include "memimg.h"
#include "offtsc.h"
#include "opt.h"
#include "perfdata.h"
#include "ptdec.h"
#include "range.h"
#include "sideband.h"
#include "timing_opt.h"
#include "tm.h"
#include "tm_config.h"
#include "trace.h"

struct flow_cmd {
	struct mi *mi;
	struct imgopt io;	/* --elf, --sysroot, --kallsyms, --buildid-dir */
	struct imgset *set;	/* the images and symbols (imgopt.h) */
	struct imgopt_reader rd;	/* the decoder's sideband context */
	struct offtsc *ot_read;	/* the TSC at a read's offset */
	struct offtsc *ot_read_end;	/* where its stretch of tracing ends */
	uint64_t cr3;		/* the last CR3 the decoder read with */
	uint8_t have_cr3;
	int32_t pid;		/* asid_pid()'s last answer: the process */
	uint64_t pid_asid;	/* of this address space */
	uint8_t have_pid;
	int insn_only, show_offset, summary, quiet, keep_only;
	struct ctx_filter filter;	/* --pid, --tid, --comm */
	struct ctx_range *keep;	/* the ranges they keep, if active */
	size_t nkeep;
	ZydisDecoder zd[4];
	ZydisFormatter fmt;
};

/* The read callback: the code of the address space ctx_asid() named
 * (flow.h: the one the records carry); --raw and --elf code is in every
 * one, and the only one without a sideband. */
static int read_code(void *ctx, const struct flow_ctx *c, uint64_t ip,
		     uint8_t *buf, size_t size)
{
	struct flow_cmd *fc = ctx;

	if (c->have_cr3) {
		fc->cr3 = c->cr3;
		fc->have_cr3 = 1;
	}
	if (!imgopt_sb(fc->set))
		return imgopt_read(&fc->rd, c, ip, buf, size);
	return mi_read(fc->mi, c->asid, ip, buf, size);
}

/* The flow decoder's question for its block cache and reads: the address
 * space a perf.data's sideband (at the TSC of the packet) or PIP's CR3
 * names (imgopt.h). */
static uint64_t ctx_asid(void *ctx, const struct flow_ctx *c)
{
	struct flow_cmd *fc = ctx;
	struct flow_ctx cc = *c;

	if (c->have_cr3) {
		fc->cr3 = c->cr3;
		fc->have_cr3 = 1;
	}
	if (!imgopt_sb(fc->set))
		return c->have_cr3 ? c->cr3 : 0;
	cc.cr3 = fc->cr3;
	cc.have_cr3 = fc->have_cr3;
	return imgopt_reader_asid(&fc->rd, &cc);
}

/* The address space whose code record @r's names and text come from: the
 * one its code was read in (flow_rec.asid), so that they are the image's
 * the decoder followed; without a sideband, the common one. */
static uint64_t rec_asid(const struct flow_cmd *fc, const struct flow_rec *r)
{
	return imgopt_sb(fc->set) ? r->asid : 0;
}

enum {
	F_STREAM, F_INSN_ONLY, F_OFFSET, F_SUMMARY, F_QUIET, F_PID, F_TID, F_COMM
};

static const struct opt flow_opts[] = {
	{ "stream", 0, "S", "the stream of a perf.data file (index, cpuN or name)",
	  F_STREAM },
	{ "insn-only", 0, NULL, "IPs, events and errors only (libipt's flow, as\n"
	  "tools/iptflow prints it)", F_INSN_ONLY },
	{ "offset", 0, NULL, "start each line with the offset of the packet that\n"
	  "decided it", F_OFFSET },
	{ "summary", 0, NULL, "instructions, branches and CYC cycles (exact and\n"
	  "bounded apart) per function (per code segment where\n"
	  "there are no symbols), not the flow, and the time\n"
	  "it spans (in ms with a TSC frequency)", F_SUMMARY },
	{ "quiet", 0, NULL, "print nothing but errors", F_QUIET },
	{ "pid", 0, "N", "only the instructions of process N (perf.data\n"
	  "sideband)", F_PID },
	{ "tid", 0, "N", "only the instructions of thread N", F_TID },
	{ "comm", 0, "NAME", "only the instructions of tasks named NAME", F_COMM },
	{ 0 }
};

/* What flow's options set, besides struct flow_cmd's. */
struct flow_args {
	struct flow_cmd *fc;
	const char *stream;
};

static int flow_take(const struct opt_cmd *cmd, void *ctx, const struct opt *o,
		     const char *val)
{
	struct flow_args *a = ctx;

	switch (o->id) {
	case F_STREAM: a->stream = val; break;
	case F_INSN_ONLY: a->fc->insn_only = 1; break;
	case F_OFFSET: a->fc->show_offset = 1; break;
	case F_SUMMARY: a->fc->summary = 1; break;
	case F_QUIET: a->fc->quiet = 1; break;
	default:
		/* opt.c says a bad number */
		return ctx_filter_set(&a->fc->filter, o->id == F_PID ? "--pid" :
				      o->id == F_TID ? "--tid" : "--comm", val) ? -EINVAL : 0;
	}
	return 0;
}

/* Whether event record @r is printed (see the top of the file). */
static int shown(const struct flow_rec *r)
{
	if (r->ev == FLOW_EV_EXEC_MODE)
		return 1;
	if (r->ev == FLOW_EV_CBR || r->ev == FLOW_EV_MNT)
		return 0;
	return !(r->flags & FLOW_F_STATUS);
}

/* The Intel-syntax text of the instruction at @r into @buf. */
static void disasm(struct flow_cmd *fc, const struct flow_rec *r, char *buf,
		   size_t len)
{
	ZydisDecodedInstruction z;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	uint8_t code[ZYDIS_MAX_INSTRUCTION_LENGTH];
	int n = mi_read(fc->mi, rec_asid(fc, r), r->ip, code, r->size);

	if (n < r->size || r->mode < FLOW_MODE_16 || r->mode > FLOW_MODE_64 ||
	    !ZYAN_SUCCESS(ZydisDecoderDecodeFull(&fc->zd[r->mode], code, (ZyanUSize)n,
						 &z, ops)) ||
	    !ZYAN_SUCCESS(ZydisFormatterFormatInstruction(&fc->fmt, &z, ops,
							 z.operand_count_visible,
							 buf, len, r->ip, NULL)))
		snprintf(buf, len, "(bad)");
}

/* Per function (or segment) counts for --summary. */
struct sum_row {
	char name[96];
	uint64_t owner;		/* whose code (sum_owner()): two processes'
				 * code at one address is not one function,
				 * but one process's is, whatever address
				 * space of it (a new one comes with every
				 * mapping over another) */
	uint64_t asid;		/* the address space of the last lookup */
	uint64_t start, end;	/* the range it covers */
	uint64_t from, until;	/* where the last lookup's answer holds:
				 * short of a function nested in it */
	uint64_t insns, branches;
	uint64_t cyc_exact;	/* cycles between two exact stamps */
	uint64_t cyc_bounded;	/* cycles where a stamp is only bounded, or
				 * shared out between functions */
};

/*
 * Cycles: the instructions one packet decided (a window) ran between that
 * packet's cycle stamp and the next deciding packet's (flowtime.h).  The
 * difference is exact when both stamps are (a CYC came with each packet)
 * and the window lies in one function; otherwise it is counted apart as
 * bounded (shared by instruction count where the window spans functions).
 */
#define SUM_WIN 16
struct summary {
	struct sum_row *rows;
	size_t n, cap;
	size_t last;
	uint64_t insns, branches, events, errors;
	uint64_t cyc_exact, cyc_bounded;
	struct flowtime *ft;	/* NULL: no cycles */
	int have_win;		/* a window is open */
	uint64_t win_off;	/* its deciding packet */
	struct tm_stamp win_st;	/* and that packet's stamp */
	int win_stamped;	/* win_st is valid */
	size_t win_row[SUM_WIN];	/* the rows in it */
	uint64_t win_n[SUM_WIN];	/* and their instructions */
	size_t nwin;
	uint64_t win_insns;
	const struct tm_config *cfg;	/* converts TSC ticks to time */
	int have_tsc;		/* t0, t1: the first and last deciding
				 * packets' estimated TSC */
	uint64_t t0, t1;
	uint32_t tflags;	/* the stamps' flags from t0 to t1 */
	int have_moved;		/* t_moved: the first estimate after t0
				 * that differs from it */
	uint64_t t_moved;
	int any_cyc;		/* a deciding packet had a cycle count */
};

/* Close the window at the stamp @next of the packet after it (NULL: the
 * flow broke, the window's cycles are unknown). */
static void sum_close(struct summary *s, const struct tm_stamp *next)
{
	uint64_t delta, left;
	size_t i;
	int exact;

	if (s->have_win && s->win_stamped && next &&
	    (s->win_st.flags & TM_F_CYC) && (next->flags & TM_F_CYC) &&
	    next->cycles >= s->win_st.cycles && s->win_insns) {
		delta = next->cycles - s->win_st.cycles;
		exact = (s->win_st.flags & TM_F_EXACT) && (next->flags & TM_F_EXACT) &&
			s->nwin == 1;
		if (exact) {
			s->rows[s->win_row[0]].cyc_exact += delta;
			s->cyc_exact += delta;
		} else {
			left = delta;
			for (i = 0; i < s->nwin; i++) {
				uint64_t part = i + 1 == s->nwin ? left :
					delta * s->win_n[i] / s->win_insns;

				s->rows[s->win_row[i]].cyc_bounded += part;
				left -= part;
			}
			s->cyc_bounded += delta;
		}
	}
	s->have_win = 0;
	s->nwin = 0;
	s->win_insns = 0;
}

/* Event @r in the cycle windows, as flow_window() ends its runs: tracing
 * stopping ends the window at its packet's time (untraced time is no
 * function's); an overflow, a new enable or a stop breaks it (its end's
 * time is unknown); other events (an exec mode, a paging, a ptwrite ...)
 * happen inside it. */
static void sum_event(struct summary *s, const struct flow_rec *r)
{
	struct tm_stamp st;

	if ((r->flags & FLOW_F_STATUS) || !s->have_win)
		return;
	switch (r->ev) {
	case FLOW_EV_DISABLED:
	case FLOW_EV_ASYNC_DISABLED:
		if (s->ft && r->offset >= s->win_off &&
		    ft_stamp(s->ft, r->offset, &st) == 0) {
			sum_close(s, &st);
			return;
		}
		sum_close(s, NULL);
		return;
	case FLOW_EV_OVERFLOW:
	case FLOW_EV_ENABLED:
	case FLOW_EV_STOP:
		sum_close(s, NULL);
		return;
	default:
		return;
	}
}

/* Count instruction @r of row @row in the cycle windows. */
static void sum_cycles(struct summary *s, const struct flow_rec *r, size_t row)
{
	struct tm_stamp st;
	int stamped;
	size_t i;

	if (!s->ft)
		return;
	if (!s->have_win || r->offset != s->win_off) {
		stamped = ft_stamp(s->ft, r->offset, &st) == 0;
		sum_close(s, stamped ? &st : NULL);
		s->have_win = 1;
		s->win_off = r->offset;
		s->win_st = st;
		s->win_stamped = stamped;
		if (stamped && (st.flags & TM_F_CYC))
			s->any_cyc = 1;
		if (stamped && (st.flags & TM_F_TSC) && !(st.flags & TM_F_REL)) {
			if (!s->have_tsc)
				s->t0 = st.tsc;
			if (s->have_tsc && !s->have_moved && st.tsc != s->t0) {
				s->t_moved = st.tsc;
				s->have_moved = 1;
			}
			s->t1 = st.tsc;
			s->have_tsc = 1;
			s->tflags |= st.flags;
		}
	}
	for (i = 0; i < s->nwin && s->win_row[i] != row; i++)
		;
	if (i == s->nwin) {
		if (s->nwin == SUM_WIN)
			i = SUM_WIN - 1;	/* a long window: the rest lumped */
		else {
			s->win_row[s->nwin] = row;
			s->win_n[s->nwin++] = 0;
		}
	}
	s->win_n[i]++;
	s->win_insns++;
}

/* The process that made address space @asid, -1 if none did (the
 * common space of --raw and --elf, or no sideband). */
static int32_t asid_pid(struct flow_cmd *fc, uint64_t asid)
{
	const struct sb *sb = imgopt_sb(fc->set);
	const struct sb_space *sp;
	size_t i;

	/* asked at every change of function: the last answer kept */
	if (fc->have_pid && fc->pid_asid == asid)
		return fc->pid;
	fc->pid = -1;
	for (i = 0; sb && i < sb_nspaces(sb); i++) {
		sp = sb_space(sb, i);
		if (sp->asid == asid && asid != SB_ASID_KERNEL) {
			fc->pid = sp->pid;
			break;
		}
	}
	fc->pid_asid = asid;
	fc->have_pid = 1;
	return fc->pid;
}

/* Whose code address space @asid holds, for --summary's rows: its process
 * (bit 63 set, the pid below) where one made it, else the space itself
 * (the common space, the kernel's, one known by CR3 alone). */
#define SUM_PID_OWNER (UINT64_C(1) << 63)
static uint64_t sum_owner(struct flow_cmd *fc, uint64_t asid)
{
	int32_t pid = asid_pid(fc, asid);

	return pid >= 0 ? SUM_PID_OWNER | (uint32_t)pid : asid;
}


/* The row of @name at [@start, @end) of @owner, made if new; its span
 * [@from, @until) in @asid remembered.  NULL if out of memory. */
static struct sum_row *sum_row_of(struct summary *s, const char *name,
				  uint64_t owner, uint64_t asid, uint64_t start,
				  uint64_t end, uint64_t from, uint64_t until)
{
	struct sum_row *r;
	size_t i;

	for (i = 0; i < s->n; i++) {
		r = &s->rows[i];
		if (r->owner == owner && r->start == start && r->end == end &&
		    !strncmp(r->name, name, sizeof(r->name) - 1))
			goto found;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		struct sum_row *p = realloc(s->rows, cap * sizeof(*p));

		if (!p)
			return NULL;
		s->rows = p;
		s->cap = cap;
	}
	i = s->n++;
	r = &s->rows[i];
	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->owner = owner;
	r->start = start;
	r->end = end;
found:
	r->asid = asid;
	r->from = from;
	r->until = until;
	s->last = i;
	return r;
}

/* The row of the function (or segment) at @ip: a function's row holds
 * only short of any function nested in it, which has a row of its own. */
static struct sum_row *sum_find(struct flow_cmd *fc, struct summary *s,
				const struct flow_rec *r)
{
	uint64_t ip = r->ip, start = 0, end = 0, from = ip, until = ip + 1;
	uint64_t asid = rec_asid(fc, r), owner = sum_owner(fc, asid);
	const char *name;
	size_t i;

	if (s->last < s->n && ip >= s->rows[s->last].from &&
	    ip < s->rows[s->last].until && s->rows[s->last].asid == asid)
		return &s->rows[s->last];
	if (!imgopt_function_span(fc->set, asid, ip, &name, &start, &end,
				  &from, &until)) {
		if (from > ip || until <= ip) {
			from = ip;
			until = ip + 1;
		}
		return sum_row_of(s, name, owner, asid, start, end, from, until);
	}
	name = mi_name_at(fc->mi, asid, ip, NULL, NULL);
	if (name && strrchr(name, '/'))
		name = strrchr(name, '/') + 1;
	if (!name)
		name = "(no code)";
	/* a segment's row must not hide the functions in it: it covers
	 * this address alone, and is found again by its name */
	for (i = 0; i < s->n; i++)
		if (s->rows[i].owner == owner && s->rows[i].start == s->rows[i].end &&
		    !strcmp(s->rows[i].name, name)) {
			s->rows[i].asid = asid;
			s->rows[i].from = ip;
			s->rows[i].until = ip + 1;
			s->last = i;
			return &s->rows[i];
		}
	return sum_row_of(s, name, owner, asid, 0, 0, ip, ip + 1);
}

static int cmp_rows(const void *a, const void *b)
{
	const struct sum_row *x = a, *y = b;

	return x->insns < y->insns ? 1 : x->insns > y->insns ? -1 : 0;
}

/* The names of tm_config_tsc_source()'s sources, as the user gave them. */
static const char *hz_source(enum tm_hz_source src)
{
	switch (src) {
	case TM_HZ_PERF:
		return "perf's TIME_CONV";
	case TM_HZ_GIVEN:
		return "--tsc-freq";
	case TM_HZ_CPUID:
		return "--cpuid-0x15.*";
	case TM_HZ_MODEL:
		return "--cpuid-0x15.eax/ebx and the CPU model's crystal clock";
	default:
		return "?";
	}
}

/* The "time" line: the estimated TSC span of the decoded packets, and in
 * milliseconds where the TSC frequency is known (never guessed from P1). */
static void sum_time(const struct summary *s)
{
	uint64_t ns0, ns1, hz, d, t0 = s->t0;
	int cycles = s->cyc_exact || s->cyc_bounded, low;

	if (!s->have_tsc) {
		printf("time: unknown (no TSC packet before the instructions)\n");
		return;
	}
	/* without the MTC and crystal configuration MTCs are ignored, and
	 * without it or P1 CYCs cannot be timed: the estimate then holds
	 * between TSC packets */
	low = (s->tflags & (TM_F_NO_CONFIG | TM_F_UNCAL)) || !s->cfg ||
	      (!(s->cfg->have_mtc_freq && s->cfg->have_cpuid_15) &&
	       !(s->cfg->have_nom_freq && cycles));
	/* held, the first deciding packet's estimate may be the TSC before
	 * the range, a PSB period early: it bounds nothing.  The first one
	 * that moved came from the range's packets, after the first deciding
	 * one, so from there to the last (held, so early too) is at least
	 * what passed. */
	if (low && !s->have_moved) {
		printf("time: unknown (the TSC estimate did not move from the "
		       "first to the last deciding packet: it holds at the TSC "
		       "before them where MTC or CYC packets cannot be timed: "
		       "--mtc-freq, --cpuid-0x15.*, --nom-freq)\n");
		return;
	}
	if (low)
		t0 = s->t_moved;
	d = s->t1 - t0;
	printf("time: %s%" PRIu64 " TSC ticks%s to the last deciding packet",
	       low ? "at least " : "", d, low ? " from the first time the "
	       "estimate moved in the range" : " (estimated) from the first");
	if (s->cfg && !tm_tsc_to_ns(s->cfg, t0, &ns0) &&
	    !tm_tsc_to_ns(s->cfg, s->t1, &ns1) && ns1 >= ns0) {
		d = ns1 - ns0;
		printf(", %s%" PRIu64 ".%06" PRIu64 " ms", low ? "at least " : "",
		       d / 1000000, d % 1000000);
		/* perf's conversion is no frequency of its own */
		hz = tm_config_tsc_source(s->cfg) == TM_HZ_PERF ? 0 :
		     tm_tsc_hz(s->cfg, 0);
		if (hz)
			printf(" at %" PRIu64 " Hz", hz);
		printf(" (%s)", hz_source(tm_config_tsc_source(s->cfg)));
	} else {
		printf("; no TSC frequency (--tsc-freq, --cpuid-0x15.*)");
	}
	if (low)
		printf("; a lower bound: MTC or CYC packets could not be timed "
		       "(--mtc-freq, --cpuid-0x15.*, --nom-freq)");
	printf("\n");
}

/* A cycle count, or "-" where no cycles were counted at all. */
static const char *cyc_str(char *buf, size_t len, uint64_t v, int any)
{
	if (!any)
		return "-";
	snprintf(buf, len, "%" PRIu64, v);
	return buf;
}

/* Whether rows of more than one process are listed: each then names its
 * process. */
static int sum_many_spaces(const struct summary *s)
{
	size_t i;

	for (i = 1; i < s->n; i++)
		if (s->rows[i].owner != s->rows[0].owner)
			return 1;
	return 0;
}

static void sum_print(struct summary *s, const struct flow_stats *st)
{
	char name[4 * sizeof(s->rows[0].name) + 32], e[32], b[32];
	int any, many = sum_many_spaces(s);
	size_t i;

	sum_close(s, NULL);
	any = s->cyc_exact || s->cyc_bounded;
	if (s->n)	/* rows is NULL when nothing was decoded */
		qsort(s->rows, s->n, sizeof(s->rows[0]), cmp_rows);
	printf("%-40s %14s %14s %14s %14s\n", "function (or code segment)",
	       "instructions", "branches", "cycles exact", "cycles bounded");
	for (i = 0; i < s->n; i++) {
		uint64_t o = s->rows[i].owner;
		int32_t pid = many && (o & SUM_PID_OWNER) ? (int32_t)(uint32_t)o : -1;

		/* names come from the ELF files: escaped (esc.h) */
		esc_str(name, sizeof(name) - 32, s->rows[i].name);
		if (pid >= 0)
			snprintf(name + strlen(name), 32, " [pid %d]", (int)pid);
		printf("%-40s %14" PRIu64 " %14" PRIu64 " %14s %14s\n", name,
		       s->rows[i].insns, s->rows[i].branches,
		       cyc_str(e, sizeof(e), s->rows[i].cyc_exact, any),
		       cyc_str(b, sizeof(b), s->rows[i].cyc_bounded, any));
	}
	printf("%-40s %14" PRIu64 " %14" PRIu64 " %14s %14s\n", "total", s->insns,
	       s->branches, cyc_str(e, sizeof(e), s->cyc_exact, any),
	       cyc_str(b, sizeof(b), s->cyc_bounded, any));
	/* "-": no window closed with a cycle count at both ends, which a
	 * trace with CYC packets gives a range too short for one */
	printf("%" PRIu64 " events, %" PRIu64 " decode errors; cycles from CYC "
	       "packets between the packets that decided the instructions%s\n",
	       s->events, s->errors, any ? "" : s->any_cyc ?
	       " (unknown in this range: no run of instructions in it ended at a "
	       "packet with a cycle count)" :
	       " (none: no CYC packet came before the deciding packets)");
	sum_time(s);
	printf("block cache: %" PRIu64 " hits, %" PRIu64 " misses\n",
	       st->cache_hits, st->cache_misses);
}

struct flow_job {
	struct flow_cmd *fc;
	struct flow *f;
	struct summary *sum;
};

static int run(void *arg)
{
	struct flow_job *j = arg;
	struct flow_cmd *fc = j->fc;
	struct flow_rec r;
	char text[256], ev[128];
	int err;

	while (!(err = flow_next(j->f, &r))) {
		/* --pid, --tid, --comm: another task's record; its packet
		 * ends the kept cycle window before it */
		if (fc->keep_only && !ctx_ranges_has(fc->keep, fc->nkeep, r.offset)) {
			struct tm_stamp st;

			if (j->sum && j->sum->have_win)
				sum_close(j->sum, j->sum->ft && r.offset > j->sum->win_off &&
					  !ft_stamp(j->sum->ft, r.offset, &st) ? &st : NULL);
			continue;
		}
		if (j->sum) {
			struct sum_row *row;

			if (r.kind == FLOW_EVENT) {
				j->sum->events++;
				sum_event(j->sum, &r);
				continue;
			}
			if (r.kind == FLOW_ERROR) {
				j->sum->errors++;
				sum_close(j->sum, NULL);
				continue;
			}
			row = sum_find(fc, j->sum, &r);
			if (!row)
				return -pte_nomem;
			sum_cycles(j->sum, &r, (size_t)(row - j->sum->rows));
			row->insns++;
			j->sum->insns++;
			if (r.iclass != FLOW_IC_OTHER && r.iclass != FLOW_IC_PTWRITE) {
				row->branches++;
				j->sum->branches++;
			}
			continue;
		}
		if (r.kind == FLOW_ERROR) {
			const char *why = NULL;
			char ewhy[1024];

			/* the full form says what is missing there, and why */
			if (!fc->insn_only && r.err == -FLOW_E_NOMAP)
				why = imgopt_nocode(fc->set, rec_asid(fc, &r), r.ip);
			/* no reason recorded (no perf.data mapping there):
			 * the address alone tells which dump is missing */
			if (!fc->insn_only && r.err == -FLOW_E_NOMAP && !why)
				why = imgopt_sb(fc->set) ? "not in any --raw/--elf "
				      "image or mapped file" :
				      "not in any --raw/--elf image";
			if (why)
				printf("[%" PRIx64 ": error: %s: %016" PRIx64 ": %s]\n",
				       r.offset, flow_strerror(r.err), r.ip,
				       esc_str(ewhy, sizeof(ewhy), why));
			else
				printf("[%" PRIx64 ": error: %s]\n", r.offset,
				       flow_strerror(r.err));
			continue;
		}
		if (fc->quiet)
			continue;
		if (r.kind == FLOW_EVENT) {
			if (!shown(&r))
				continue;
			if (fc->show_offset)
				printf("%016" PRIx64 "  ", r.offset);
			printf("[%s]\n", flow_event_str(&r, ev, sizeof(ev)));
			continue;
		}
		if (fc->show_offset)
			printf("%016" PRIx64 "  ", r.offset);
		if (fc->insn_only) {
			printf("%016" PRIx64 "\n", r.ip);
			continue;
		}
		{
			char sym[160], esym[4 * sizeof(sym)];

			disasm(fc, &r, text, sizeof(text));
			if (imgopt_symbol(fc->set, rec_asid(fc, &r), r.ip, sym,
					  sizeof(sym)))
				printf("%016" PRIx64 "  %s  %s\n", r.ip,
				       esc_str(esym, sizeof(esym), sym), text);
			else
				printf("%016" PRIx64 "  %s\n", r.ip, text);
		}
	}
	return err == -FLOW_E_EOS ? 0 : -pte_internal;
}

/* Parse flow's command line: its flags into @fc (and --raw and --options
 * into @fc's image, the --options files' timing into fc->io.timing), the timing options into @timing, the trace into
 * *@path, --stream into *@stream (NULL if not given).
 * Returns 0, or a negative errno after --help, a reported usage error, or
 * -EIO after a file an option names could not be read (opt_status() gives
 * the exit status). */
static int flow_parse(int argc, char **argv, struct flow_cmd *fc,
		      struct tm_config *timing, char **path, const char **stream)
{
	struct flow_args args = { fc, NULL };
	const struct opt_group groups[] = {
		{ "options:", flow_opts, flow_take, &args },
		{ IMGOPT_HEADING, imgopt_opts, imgopt_take, &fc->io },
		{ TIMING_OPT_HEADING, timing_opts, timing_opt_take, timing },
	};
	const struct opt_cmd cmd = { "ptbrowse flow",
"usage: ptbrowse flow [options] TRACE[:FROM[-TO]]\n"
"\n"
"Print the instructions TRACE (a raw Intel PT file or a perf.data file)\n"
"says were executed, decoded with the code given by the image options.\n"
"FROM and TO are stream offsets: the lines the packets in [FROM, TO) decide,\n"
"decoded from the PSB at or before FROM.\n",
		groups, 3 };
	int r;

	r = opt_parse(&cmd, argc, argv);
	if (r < 0)
		return r;
	if (r > 1) {
		opt_error(&cmd, "one trace only (got '%s' and '%s')", argv[1], argv[2]);
		return -EINVAL;
	}
	if (!r) {
		opt_error(&cmd, "no trace given");
		opt_usage(&cmd, stderr);
		return -EINVAL;
	}
	*path = argv[1];
	*stream = args.stream;
	return 0;
}

/* Open the trace at @path into *@tp and pick its stream (@stream, or the
 * first) into *@idx; check that [@from, @to) is inside it (@to 0: to the
 * end); the timing options @timing win over what the file recorded in
 * every stream (the summary's time, the sideband's: imgopt).
 * Returns 0, or -1 after printing one line (*@tp may be set then: the
 * caller closes it). */
static int flow_open(struct trace **tp, const char *path, const char *stream,
		     uint64_t from, uint64_t to, const struct tm_config *timing,
		     int *idx)
{
	struct trace *t;
	char err[512];
	size_t i;

	if (trace_open(tp, path, err, sizeof(err)) < 0) {
		esc_line(stderr, "ptbrowse flow: ", "%s", err);
		return -1;
	}
	t = *tp;
	if (export_refuse(t, "-", err, sizeof(err)) < 0) {
		esc_line(stderr, "ptbrowse flow: ", "%s", err);
		return -1;
	}
	if (!t->nstreams) {
		esc_line(stderr, "ptbrowse flow: ", "%s: no Intel PT data", path);
		return -1;
	}
	*idx = 0;
	if (stream) {
		*idx = perfdata_stream_named(t, stream, "ptbrowse flow: ", path);
		if (*idx < 0)
			return -1;
	} else if (t->nstreams > 1) {
		esc_line(stderr, "ptbrowse flow: ", "%s has %zu streams; decoding '%s' "
				"(choose with --stream)", path, t->nstreams,
			t->streams[0].name);
	}
	if (perfdata_empty_why(t, *idx, err, sizeof(err))) {
		esc_line(stderr, "ptbrowse flow: ", "%s", err);
		return -1;
	}
	if (from >= t->streams[*idx].img.size || to > t->streams[*idx].img.size) {
		esc_line(stderr, "ptbrowse flow: ", "%s: range is outside the trace "
			"(size 0x%" PRIx64 ")", path, t->streams[*idx].img.size);
		return -1;
	}
	for (i = 0; i < t->nstreams; i++) {
		struct tm_config c = *timing;

		tm_config_merge(&c, &t->streams[i].timing);
		t->streams[i].timing = c;
	}
	return 0;
}

/* Load @fc's code images (the options' and @t's sideband's), say what has
 * no code, and set up the code readers of stream @idx (fc->rd as the
 * decoder asks) with its offset-to-TSC readers.
 * Returns 0, or -1 after printing one line. */
static int flow_code(struct flow_cmd *fc, struct trace *t, int idx)
{
	const struct trace_stream *s = &t->streams[idx];
	char err[512];
	size_t i;

	if (imgopt_load(&fc->set, &fc->io, t, err, sizeof(err)) < 0) {
		esc_line(stderr, "ptbrowse flow: ", "%s", err);
		return -1;
	}
	/* what has no code, a screenful at most */
	for (i = 0; i < imgopt_nmessages(fc->set) && i < 10; i++)
		esc_line(stderr, "ptbrowse flow: ", "%s", imgopt_message(fc->set, i));
	if (imgopt_nmessages(fc->set) > 10)
		esc_line(stderr, "ptbrowse flow: ", "and %zu more files without code",
			imgopt_nmessages(fc->set) - 10);
	if (!mi_count(fc->mi))
		esc_line(stderr, "ptbrowse flow: ", "no code given (--raw, --elf or a "
			"perf.data's files): every instruction is unknown");
	if (offtsc_new(&fc->ot_read, &s->img, &s->timing) < 0 ||
	    offtsc_new(&fc->ot_read_end, &s->img, &s->timing) < 0) {
		esc_line(stderr, "ptbrowse flow: ", "out of memory");
		return -1;
	}
	fc->rd.set = fc->set;
	fc->rd.stream = idx;
	fc->rd.tsc_at = offtsc_at;
	fc->rd.tsc_ctx = fc->ot_read;
	fc->rd.end_at = offtsc_stretch_end;
	fc->rd.end_ctx = fc->ot_read_end;
	return 0;
}

/*
 * What of stream @idx is decoded and what printed: the packets of [@from,
 * @to) decide the lines, decoded from the PSB at or before @from into
 * *@start (what the packets before the range's first PSB decide needs
 * the state from there), as calls and :funcs decode a range; so fc->keep
 * is [@from, @to), or with --pid, --tid, --comm the ranges of it they
 * keep (ctx_restrict()).
 * Returns 0, or -1 after printing one line (a raw trace has no sideband
 * for a task).
 */
static int flow_restrict(struct flow_cmd *fc, const struct trace *t, int idx,
			 uint64_t from, uint64_t to, uint64_t *start)
{
	uint64_t psb;
	char err[512];

	*start = from;
	if (!img_find_psb_before(&t->streams[idx].img, from + 1, &psb) && psb < from)
		*start = psb;
	if (!ctx_filter_active(&fc->filter)) {
		if (*start == from)
			return 0;	/* every line from there is the range's */
		fc->keep = malloc(sizeof(*fc->keep));
		if (!fc->keep) {
			esc_line(stderr, "ptbrowse flow: ", "out of memory");
			return -1;
		}
		*fc->keep = (struct ctx_range){ from, to };
		fc->nkeep = 1;
		fc->keep_only = 1;
		return 0;
	}
	fc->keep_only = 1;
	if (ctx_restrict(t, idx, &fc->filter, from, to, &fc->keep, &fc->nkeep,
			 err, sizeof(err)) < 0) {
		esc_line(stderr, "ptbrowse flow: ", "%s", err);
		return -1;
	}
	if (ctx_sideband_doubt(t, err, sizeof(err)))
		esc_line(stderr, "ptbrowse flow: ", "%s", err);
	if (!fc->nkeep)
		esc_line(stderr, "ptbrowse flow: ", "%s: nothing in stream '%s' ran as "
			 "the task asked for", t->path, t->streams[idx].name);
	return 0;
}

int cmd_flow_main(int argc, char **argv)
{
	struct flow_cmd fc;
	struct flow_config cfg;
	struct tm_config timing;
	struct flow_stats st;
	struct summary sum;
	struct flow_job job;
	struct flow *f = NULL;
	struct trace *t = NULL;
	const char *stream = NULL;
	char *path = NULL;
	uint64_t from = 0, to = 0, start = 0;
	int have_to = 0, idx = 0, rc = 2, r;

	memset(&fc, 0, sizeof(fc));
	ctx_filter_init(&fc.filter);
	memset(&sum, 0, sizeof(sum));
	memset(&timing, 0, sizeof(timing));
	if (mi_new(&fc.mi) < 0) {
		esc_line(stderr, "ptbrowse flow: ", "out of memory");
		return 1;
	}
	fc.io.mi = fc.mi;	/* --raw dumps load as they are parsed */
	r = flow_parse(argc, argv, &fc, &timing, &path, &stream);
	if (r < 0) {
		rc = opt_status(r);
		goto out;
	}
	tm_config_merge(&timing, &fc.io.timing);	/* --options under the command line's */
	if (range_split(path, &from, &to, &have_to) < 0) {
		esc_line(stderr, "ptbrowse flow: ", "%s: bad range (FROM-TO: 0x hex or decimal, TO above FROM)",
			path);
		goto out;
	}
	rc = 1;
	if (flow_open(&t, path, stream, from, have_to ? to : 0, &timing, &idx) < 0 ||
	    flow_code(&fc, t, idx) < 0 ||
	    flow_restrict(&fc, t, idx, from, have_to ? to : UINT64_MAX, &start) < 0)
		goto out;
	sum.cfg = &t->streams[idx].timing;
	memset(&cfg, 0, sizeof(cfg));
	cfg.img = &t->streams[idx].img;
	cfg.read = read_code;
	cfg.read_ctx = &fc;
	cfg.asid = ctx_asid;
	if (flow_new(&f, &cfg) < 0 || flow_seek(f, start, have_to ? to : UINT64_MAX) < 0) {
		esc_line(stderr, "ptbrowse flow: ", "out of memory");
		goto out;
	}
	ZydisDecoderInit(&fc.zd[FLOW_MODE_16], ZYDIS_MACHINE_MODE_LEGACY_16,
			 ZYDIS_STACK_WIDTH_16);
	ZydisDecoderInit(&fc.zd[FLOW_MODE_32], ZYDIS_MACHINE_MODE_LEGACY_32,
			 ZYDIS_STACK_WIDTH_32);
	ZydisDecoderInit(&fc.zd[FLOW_MODE_64], ZYDIS_MACHINE_MODE_LONG_64,
			 ZYDIS_STACK_WIDTH_64);
	ZydisFormatterInit(&fc.fmt, ZYDIS_FORMATTER_STYLE_INTEL);
	job.fc = &fc;
	job.f = f;
	job.sum = fc.summary ? &sum : NULL;
	if (fc.summary && ft_new(&sum.ft, &t->streams[idx].img,
				 &t->streams[idx].timing) < 0) {
		esc_line(stderr, "ptbrowse flow: ", "out of memory");
		goto out;
	}
	r = trace_guard(run, &job);
	if (r == -pte_sigbus) {
		esc_line(stderr, "ptbrowse flow: ", "%s: the file shrank while being read",
			path);
		goto out;
	}
	if (r < 0) {
		esc_line(stderr, "ptbrowse flow: ", "%s: %s", path, pte_strerror(r));
		goto out;
	}
	if (fc.summary) {
		flow_stats(f, &st);
		sum_print(&sum, &st);
	}
	rc = 0;
	if (fflush(stdout) || ferror(stdout)) {
		esc_line(stderr, "ptbrowse flow: ", "write error: %s", strerror(errno));
		rc = 1;
	}
out:
	free(fc.keep);
	free(sum.rows);
	ft_free(sum.ft);
	flow_free(f);
	mi_free(fc.mi);
	imgopt_free(fc.set);
	imgopt_release(&fc.io);
	offtsc_free(fc.ot_read);
	offtsc_free(fc.ot_read_end);
	trace_close(t);
	return rc;
}
