/*
 * stream.c -- one simulated CPU's Intel PT stream, written as the
 * hardware would for user-only tracing (SDM, Intel Processor Trace):
 * conditional branches and compressed returns as TNT bits (short TNTs in
 * cycle-accurate mode, long ones without it), indirect branches and
 * uncompressed returns as TIP with IP compression against the last IP,
 * system calls as TIP.PGD with the IP suppressed and the return to user
 * code as MODE.Exec + TIP.PGE, asynchronous exits as FUP + TIP.PGD, and
 * a PSB+ (PSB, TSC, TMA, CBR, MODE.Exec and FUP when tracing, PSBEND)
 * every psb_period bytes.
 *
 * Timing is a model, not a measurement: each instruction costs a few
 * quarter cycles by its kind, memory reads now and then miss the cache
 * and conditional branches are now and then mispredicted (both from a
 * seeded random stream), and system calls spend kernel cycles.  A core
 * clock at CBR drives the TSC at P1 and the crystal clock (ART) at
 * TSC * eax / ebx, so CYC, MTC, TSC and TMA tell one consistent time.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <Zydis/Zydis.h>

#include "../ptenc.h"
#include "ptrecord.h"

#define STREAM_BUF	(1u << 16)
#define RETSTACK	64	/* the SDM's and libipt's depth */

struct ptr_stream {
	const struct ptr_opts *o;
	unsigned cpu;
	FILE *trace, *log;
	const char *trace_path;
	int werr;		/* errno of the first failed write */
	uint8_t buf[STREAM_BUF + 256];
	size_t pos;
	uint64_t written;	/* bytes flushed before buf */
	uint64_t next_psb;	/* offset at or after which a PSB+ is due */

	/* flow */
	int enabled;
	uint64_t last_ip;
	int ip_valid;
	uint64_t tnt_bits;
	unsigned tnt_n, tnt_max;
	uint64_t tnt_at;	/* core cycle of the TNT's first branch */
	uint64_t ret[RETSTACK];
	unsigned ret_top, ret_n;

	/* time */
	uint64_t cycles;	/* core cycles so far */
	unsigned frac;		/* quarter cycles not yet whole */
	uint64_t cyc_at;	/* core cycle of the last CYC */
	uint64_t tsc, rem;	/* TSC and its fraction in 1/cbr ticks */
	uint64_t mtc_period;	/* ART >> MTCFreq of the next MTC */
	uint64_t mtc_tsc;	/* TSC at which it is due */
	uint64_t cyc_to_mtc;	/* core cycles until then */
	uint64_t rng;
};

static uint64_t rng_next(struct ptr_stream *s)
{
	/* xorshift64*: cheap, and the same seed gives the same model */
	s->rng ^= s->rng >> 12;
	s->rng ^= s->rng << 25;
	s->rng ^= s->rng >> 27;
	return s->rng * 0x2545f4914f6cdd1dull;
}

static void stream_flush(struct ptr_stream *s)
{
	if (s->pos && !s->werr && fwrite(s->buf, 1, s->pos, s->trace) != s->pos)
		s->werr = errno ? errno : EIO;
	s->written += s->pos;
	s->pos = 0;
}

/* Room for a few packets at the end of the buffer. */
static uint8_t *stream_room(struct ptr_stream *s)
{
	if (s->pos >= STREAM_BUF)
		stream_flush(s);
	return s->buf + s->pos;
}

static void stream_put(struct ptr_stream *s, uint8_t *end)
{
	s->pos = (size_t)(end - s->buf);
}

static uint64_t stream_offset(const struct ptr_stream *s)
{
	return s->written + s->pos;
}

static uint64_t art_of(uint64_t tsc)
{
	return (uint64_t)((unsigned __int128)tsc * PTR_EAX / PTR_EBX);
}

static uint64_t tsc_of_art(uint64_t art)
{
	return (uint64_t)(((unsigned __int128)art * PTR_EBX + PTR_EAX - 1) /
			  PTR_EAX);
}

/* Plan the MTC of crystal period @period: when, and the core cycles to it. */
static void plan_mtc_at(struct ptr_stream *s, uint64_t period)
{
	uint64_t need;

	s->mtc_period = period;
	s->mtc_tsc = tsc_of_art(period << s->o->mtc_freq);
	need = (s->mtc_tsc - s->tsc) * s->o->cbr - s->rem;
	s->cyc_to_mtc = (need + PTR_NOM_FREQ - 1) / PTR_NOM_FREQ;
}

static void plan_mtc(struct ptr_stream *s)
{
	plan_mtc_at(s, (art_of(s->tsc) >> s->o->mtc_freq) + 1);
}

/* Advance the TSC by @c core cycles. */
static void tsc_add(struct ptr_stream *s, uint64_t c)
{
	s->rem += c * PTR_NOM_FREQ;
	s->tsc += s->rem / s->o->cbr;
	s->rem %= s->o->cbr;
}

/* The CYC of the cycles up to core cycle @at, before a CYC-eligible packet. */
static void put_cyc(struct ptr_stream *s, uint64_t at)
{
	if (!s->o->cyc || at <= s->cyc_at)
		return;
	stream_put(s, pte_cyc(stream_room(s), at - s->cyc_at));
	s->cyc_at = at;
}

static void flush_tnt(struct ptr_stream *s)
{
	uint8_t *p;

	if (!s->tnt_n)
		return;
	/* A TNT's CYC gives the time of its first branch (SDM CYC). */
	put_cyc(s, s->tnt_at);
	p = stream_room(s);
	if (s->tnt_n <= PTE_TNT8_MAX)
		p = pte_tnt8(p, s->tnt_bits, s->tnt_n);
	else
		p = pte_tnt64(p, s->tnt_bits, s->tnt_n);
	stream_put(s, p);
	s->tnt_n = 0;
	s->tnt_bits = 0;
}

static void put_tnt_bit(struct ptr_stream *s, int taken)
{
	if (!s->tnt_n)
		s->tnt_at = s->cycles;
	s->tnt_bits = s->tnt_bits << 1 | (taken ? 1 : 0);
	if (++s->tnt_n == s->tnt_max)
		flush_tnt(s);
}

/* An IP packet, compressed against the last IP as the hardware does. */
static void put_ip(struct ptr_stream *s, uint8_t opc, uint64_t ip)
{
	unsigned ipc = pte_ipc_best(s->last_ip, s->ip_valid, ip);

	flush_tnt(s);
	put_cyc(s, s->cycles);
	stream_put(s, pte_ip(stream_room(s), opc, ipc, ip));
	s->last_ip = ip;
	s->ip_valid = 1;
}

/* An IP packet with IPBytes 0: the last IP stays as it was. */
static void put_ip_suppressed(struct ptr_stream *s, uint8_t opc)
{
	flush_tnt(s);
	put_cyc(s, s->cycles);
	stream_put(s, pte_ip(stream_room(s), opc, PTE_IPC_SUPPRESSED, 0));
}

/* PSB+: the state at this point, so that a decoder can start here.  The
 * last IP and the return stack start afresh (SDM: nothing is kept across
 * a PSB), and the FUP names the next instruction when tracing is on. */
static void put_psb_plus(struct ptr_stream *s, uint64_t ip)
{
	uint64_t art, fc;
	uint8_t *p;

	flush_tnt(s);
	s->next_psb = stream_offset(s) + s->o->psb_period;
	stream_put(s, pte_psb(stream_room(s)));
	s->ip_valid = 0;
	s->ret_n = 0;
	put_cyc(s, s->cycles);
	art = art_of(s->tsc);
	fc = s->tsc - tsc_of_art(art);
	p = stream_room(s);
	p = pte_tsc(p, s->tsc);
	p = pte_tma(p, art, fc > 511 ? 511 : fc);
	p = pte_cbr(p, s->o->cbr);
	if (s->enabled) {
		p = pte_mode_exec(p, 1, 0);
		p = pte_ip(p, PTE_FUP, pte_ipc_best(0, 0, ip), ip);
		s->last_ip = ip;
		s->ip_valid = 1;
	}
	stream_put(s, pte_psbend(p));
}

static void maybe_psb(struct ptr_stream *s, uint64_t ip)
{
	if (stream_offset(s) >= s->next_psb)
		put_psb_plus(s, ip);
}

/* Run the core for @c cycles, with an MTC at each crystal clock period
 * passed, each after the CYC of the cycles up to it. */
static void clk_run(struct ptr_stream *s, uint64_t c)
{
	while (c >= s->cyc_to_mtc) {
		c -= s->cyc_to_mtc;
		tsc_add(s, s->cyc_to_mtc);
		s->cycles += s->cyc_to_mtc;
		/* Pending TNT bits go out first: their CYC is older. */
		flush_tnt(s);
		put_cyc(s, s->cycles);
		stream_put(s, pte_mtc(stream_room(s), s->mtc_period));
		plan_mtc_at(s, s->mtc_period + 1);
		if (!s->enabled)
			maybe_psb(s, 0);
	}
	s->cyc_to_mtc -= c;
	tsc_add(s, c);
	s->cycles += c;
}

static void clk_run_quarters(struct ptr_stream *s, uint64_t q)
{
	q += s->frac;
	s->frac = (unsigned)(q & 3);
	clk_run(s, q >> 2);
}

struct ptr_stream *ptr_stream_open(const struct ptr_opts *o, unsigned cpu,
				   const char *trace, const char *log)
{
	struct ptr_stream *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->o = o;
	s->cpu = cpu;
	s->trace_path = trace;
	/* out.c's files: renamed into place only after a good recording */
	s->trace = ptr_out_open(trace, strcmp(trace, o->out) != 0);
	if (!s->trace)
		goto out_free;
	s->log = ptr_out_open(log, 1);
	if (!s->log)
		goto out_free;
	setvbuf(s->log, NULL, _IOFBF, 1 << 16);
	s->tnt_max = o->cyc ? PTE_TNT8_MAX : PTE_TNT64_MAX;
	s->rng = (o->seed + 1) * 0x9e3779b97f4a7c15ull + cpu;
	/* xorshift stays 0 from 0 (--seed 2^64-1 on CPU 0, one seed on each
	 * other): every access would miss, every branch mispredict */
	if (!s->rng)
		s->rng = 0x9e3779b97f4a7c15ull;
	/* hours of uptime, a different phase on each CPU */
	s->tsc = 0x100000000000ull + cpu * 12345;
	plan_mtc(s);
	put_psb_plus(s, 0);
	return s;
out_free:
	free(s);
	return NULL;
}

int ptr_stream_close(struct ptr_stream *s, uint64_t *bytes)
{
	int err;

	flush_tnt(s);
	/* perf's AUXTRACE records hold multiples of 8 bytes: PADs to that */
	stream_put(s, pte_pads(stream_room(s), (unsigned)(-stream_offset(s) & 7)));
	stream_flush(s);
	if (bytes)
		*bytes += ptr_stream_bytes(s);
	err = s->werr;
	/* the files are out.c's to close */
	if ((fflush(s->trace) || ferror(s->trace)) && !err)
		err = errno ? errno : EIO;
	if ((fflush(s->log) || ferror(s->log)) && !err)
		err = errno ? errno : EIO;
	if (err)
		fprintf(stderr, "ptrecord: %s: %s\n", s->trace_path, strerror(err));
	free(s);
	return err ? -err : 0;
}

void ptr_stream_insn(struct ptr_stream *s, const struct ptr_insn *insn)
{
	maybe_psb(s, insn->ip);
	if (!s->enabled) {
		/* MODE.Exec comes with every TIP.PGE */
		put_cyc(s, s->cycles);
		stream_put(s, pte_mode_exec(stream_room(s), 1, 0));
		s->enabled = 1;
		put_ip(s, PTE_TIP_PGE, insn->ip);
	}
	/* --log-cycles: the cycle it starts at, then (ptr_stream_branch())
	 * the one it retires at */
	if (s->o->log_cycles)
		fprintf(s->log, "%016" PRIx64 " %" PRIu64, insn->ip, s->cycles);
	else
		fprintf(s->log, "%016" PRIx64 "\n", insn->ip);
}

static void ret_push(struct ptr_stream *s, uint64_t ip)
{
	s->ret_top = (s->ret_top + 1) % RETSTACK;
	s->ret[s->ret_top] = ip;
	if (s->ret_n < RETSTACK)
		s->ret_n++;
}

void ptr_stream_branch(struct ptr_stream *s, const struct ptr_insn *insn,
		       uint64_t next, unsigned iterations)
{
	uint64_t q = insn->cost + (uint64_t)insn->rep * 4 * iterations;
	unsigned i;
	int taken = next != insn->ip + insn->len;

	for (i = 0; i < insn->mem; i++)
		if ((rng_next(s) & 63) == 0)
			q += 4 * 120;	/* a cache miss */
	if (insn->kind == PTR_K_JCC && (rng_next(s) & 15) == 0)
		q += 4 * 16;		/* a mispredicted branch */
	if (taken)
		q += 2;
	clk_run_quarters(s, q);
	if (s->o->log_cycles)
		fprintf(s->log, " %" PRIu64 "\n", s->cycles);
	switch (insn->kind) {
	case PTR_K_OTHER:
	case PTR_K_JMP:
	case PTR_K_CALL0:
		break;
	case PTR_K_JCC:
		put_tnt_bit(s, taken);
		break;
	case PTR_K_CALL:
		ret_push(s, insn->ip + insn->len);
		break;
	case PTR_K_ICALL:
		ret_push(s, insn->ip + insn->len);
		put_ip(s, PTE_TIP, next);
		break;
	case PTR_K_IJMP:
	case PTR_K_FAR:
		put_ip(s, PTE_TIP, next);
		break;
	case PTR_K_RET:
		/* Compressed only if it goes where the matching call came
		 * from; the decoder pops only then, so neither pops here
		 * otherwise. */
		if (s->o->retcomp && s->ret_n && s->ret[s->ret_top] == next) {
			s->ret_top = (s->ret_top + RETSTACK - 1) % RETSTACK;
			s->ret_n--;
			put_tnt_bit(s, 1);
		} else {
			put_ip(s, PTE_TIP, next);
		}
		break;
	case PTR_K_SYSCALL:
		/* The target is at CPL 0, which is not traced: suppressed. */
		put_ip_suppressed(s, PTE_TIP_PGD);
		s->enabled = 0;
		break;
	}
}

void ptr_stream_async(struct ptr_stream *s, uint64_t ip)
{
	if (!s->enabled)
		return;
	maybe_psb(s, ip);
	put_ip(s, PTE_FUP, ip);
	put_ip_suppressed(s, PTE_TIP_PGD);
	s->enabled = 0;
}

void ptr_stream_run(struct ptr_stream *s, uint64_t cycles)
{
	clk_run(s, cycles);
}

void ptr_stream_idle_until(struct ptr_stream *s, uint64_t tsc)
{
	if (tsc <= s->tsc)
		return;
	/* The kernel's idle loop runs untraced, its clock going: cycles
	 * and MTCs pass as in a system call.  (A sleep would stop the
	 * core clock with no packet to say so, and a decoder's cycle
	 * calibration over that MTC period would be wrong.) */
	clk_run(s, ((tsc - s->tsc) * s->o->cbr + PTR_NOM_FREQ - 1) / PTR_NOM_FREQ);
}

uint64_t ptr_stream_tsc(const struct ptr_stream *s)
{
	return s->tsc;
}

uint64_t ptr_stream_bytes(const struct ptr_stream *s)
{
	return stream_offset(s);
}

/* Quarter cycles an instruction of @cat costs before memory effects. */
static unsigned cost_of(const ZydisDecodedInstruction *zi)
{
	switch (zi->meta.category) {
	case ZYDIS_CATEGORY_NOP:
	case ZYDIS_CATEGORY_WIDENOP:
		return 1;
	case ZYDIS_CATEGORY_CALL:
	case ZYDIS_CATEGORY_RET:
		return 4;
	case ZYDIS_CATEGORY_SSE:
	case ZYDIS_CATEGORY_AVX:
	case ZYDIS_CATEGORY_AVX2:
	case ZYDIS_CATEGORY_X87_ALU:
		return 6;
	default:
		break;
	}
	switch (zi->mnemonic) {
	case ZYDIS_MNEMONIC_MUL:
	case ZYDIS_MNEMONIC_IMUL:
		return 12;
	case ZYDIS_MNEMONIC_DIV:
	case ZYDIS_MNEMONIC_IDIV:
		return 100;
	case ZYDIS_MNEMONIC_CPUID:
	case ZYDIS_MNEMONIC_RDTSC:
	case ZYDIS_MNEMONIC_RDTSCP:
		return 100;
	default:
		return 2;
	}
}

int ptr_decode(uint64_t ip, const uint8_t *bytes, size_t n,
	       struct ptr_insn *insn)
{
	static ZydisDecoder dec;
	static int init;
	ZydisDecodedInstruction zi;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	unsigned i;

	if (!init) {
		ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64,
				 ZYDIS_STACK_WIDTH_64);
		init = 1;
	}
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, bytes, n, &zi, ops)))
		return -1;
	memset(insn, 0, sizeof(*insn));
	insn->ip = ip;
	insn->len = zi.length;
	insn->cost = cost_of(&zi);
	for (i = 0; i < zi.operand_count_visible; i++)
		if (ops[i].type == ZYDIS_OPERAND_TYPE_MEMORY &&
		    (ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_READ) &&
		    zi.mnemonic != ZYDIS_MNEMONIC_LEA)
			insn->mem++;
	if (zi.attributes & (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE |
			     ZYDIS_ATTRIB_HAS_REPNE))
		insn->rep = 1;
	switch (zi.meta.category) {
	case ZYDIS_CATEGORY_COND_BR:
		insn->kind = PTR_K_JCC;
		break;
	case ZYDIS_CATEGORY_UNCOND_BR:
		if (zi.meta.branch_type == ZYDIS_BRANCH_TYPE_FAR)
			insn->kind = PTR_K_FAR;
		else if (ops[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE)
			insn->kind = PTR_K_JMP;
		else
			insn->kind = PTR_K_IJMP;
		break;
	case ZYDIS_CATEGORY_CALL:
		if (zi.meta.branch_type == ZYDIS_BRANCH_TYPE_FAR)
			insn->kind = PTR_K_FAR;
		else if (ops[0].type != ZYDIS_OPERAND_TYPE_IMMEDIATE)
			insn->kind = PTR_K_ICALL;
		else if (ops[0].imm.value.s == 0)
			insn->kind = PTR_K_CALL0;
		else
			insn->kind = PTR_K_CALL;
		break;
	case ZYDIS_CATEGORY_RET:
		insn->kind = zi.meta.branch_type == ZYDIS_BRANCH_TYPE_FAR ?
			     PTR_K_FAR : PTR_K_RET;
		break;
	case ZYDIS_CATEGORY_SYSCALL:
	case ZYDIS_CATEGORY_INTERRUPT:
		insn->kind = PTR_K_SYSCALL;
		break;
	default:
		/* IRET, SYSRET and the like fault at CPL 3 */
		insn->kind = PTR_K_OTHER;
		break;
	}
	return 0;
}
