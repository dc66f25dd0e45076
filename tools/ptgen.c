/*
 * ptgen -- generate a realistic, deterministic Intel PT trace of any size.
 *
 * The trace is streamed through a fixed buffer and never held in memory.
 * Packets are encoded here (not with libipt's encoder) for speed.  One
 * model drives everything: a core clock running at CBR, a TSC running at
 * the nominal ratio, and a crystal clock (ART) at TSC * eax / ebx, so the
 * TSC, TMA, MTC and CYC packets all tell the same, monotonic time.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export.h"
#include "perfdata.h"
#include "ptenc.h"
#include "safefile.h"
#include "timing_file.h"

/* Output is flushed in chunks of GEN_BUF_SIZE, between events, so the
 * last event can be taken back when it would overrun --size.  An event
 * starts with GEN_EVENT_MAX of room after it; one that runs long (an MTC
 * per crystal clock period, many planted sleeps) grows the buffer
 * (gen_room()), so an event of any size stays whole in it. */
#define GEN_BUF_SIZE	(1u << 20)
#define GEN_EVENT_MAX	(64u << 10)
/* MTC periods a sleep may last: fewer than 256, so no CTC wraps unseen.
 * Sleeps are made up to GEN_SLEEP_MTCS (a random one up to 100 ticks
 * more); sleep_ticks() cuts any at GEN_SLEEP_CAP_MTCS, which leaves the
 * bytes of every trace with MTC periods of 2 ticks or more as they were. */
#define GEN_SLEEP_MTCS	200
#define GEN_SLEEP_CAP_MTCS	250
/* An MTC period lasts at least this many core cycles at the lowest CBR
 * (GEN_CBR_MIN), or one event would be mostly MTCs. */
#define GEN_MTC_MIN_CYCLES	4
#define GEN_CBR_MIN	8
#define GEN_CBR_MAX	40
/* The TSC:ART ratio ebx/eax at most: TMA's FastCounter has 9 bits. */
#define GEN_TSC_ART_MAX	512

/* --sleep-at: how many, and the sleeps one may be made of (each at most
 * GEN_SLEEP_MTCS MTC periods). */
#define GEN_PLANT_MAX	16
#define GEN_PLANT_SLEEPS	256

/* Probabilities are compared with 32-bit random numbers. */
#define P32(p)		((uint32_t)((p) * 4294967295.0))

struct gen_opts {
	uint64_t seed;
	uint64_t size;
	const char *out;
	uint64_t psb_period;
	int cyc;
	unsigned cyc_thresh;	/* IA32_RTIT_CTL.CycThresh */
	int mtc;		/* MTCEn: MTC and TMA packets */
	unsigned mtc_freq;
	unsigned nom_freq;
	uint32_t eax, ebx;
	double ovf_rate;	/* per event */
	double corrupt_rate;	/* per byte */
	double exstop_rate;	/* per event: execution stops briefly */
	unsigned mix_tnt, mix_tip;	/* --mix: of 1024 events while tracing,
				 * tnt below mix_tnt, tip below mix_tip */
	int no_sleep;		/* --no-sleep: no random sleeps */
	struct {
		uint64_t off, ticks;
	} plant[GEN_PLANT_MAX];	/* --sleep-at, by offset */
	unsigned nplant;
	int truncate;
	int print_config;
};

struct gen {
	struct gen_opts o;
	uint64_t rng[4];	/* xoshiro256** */
	uint64_t crng[4];	/* a second stream for corruption */
	int fd;
	uint8_t *buf, *pos, *end;	/* the buffer, its cursor, its end */
	uint64_t flushed;	/* bytes written out before buf */
	uint64_t next_corrupt;	/* offset of the next flipped byte */
	double corrupt_log;	/* log(1 - corrupt_rate) */
	uint64_t next_psb;	/* offset at or after which a PSB is due */
	uint32_t ovf_p;
	uint32_t exstop_p;
	uint64_t cyc_min;	/* cycles before a CYC may be sent */
	unsigned planted;	/* --sleep-at sleeps written so far */

	/* time */
	uint64_t tsc;		/* TSC[55:0] */
	uint64_t rem;		/* fraction of a TSC tick, in 1/cbr units */
	uint64_t cyc_acc;	/* core cycles not yet added to tsc */
	uint64_t mtc_period;	/* ART >> MTCFreq of the next MTC */
	uint64_t mtc_tsc;	/* TSC at which it is due */
	uint64_t cyc_to_mtc;	/* core cycles until then */
	uint64_t cyc_pending;	/* core cycles since the last CYC */
	unsigned cbr;

	/* flow */
	uint64_t cur_ip;	/* where the traced program is */
	uint64_t last_ip;	/* the IP compression state */
	int ip_valid;		/* last_ip usable (no PSB or OVF since) */
	int enabled;		/* between tip.pge and tip.pgd */
	int intx;		/* inside a transaction */
	uint64_t cr3;
	int vmx;		/* pip.nr and vmcs in PSB+ */
};

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t xo_next(uint64_t *s)
{
	uint64_t r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return r;
}

static void xo_seed(uint64_t *s, uint64_t seed)
{
	int i;

	/* splitmix64, so that nearby seeds give unrelated streams */
	for (i = 0; i < 4; i++) {
		uint64_t z = (seed += 0x9e3779b97f4a7c15ull);

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		s[i] = z ^ (z >> 31);
	}
}

static inline uint64_t rnd(struct gen *g)
{
	return xo_next(g->rng);
}

/* A uniform number in [0, n). */
static inline uint64_t rnd_below(struct gen *g, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)rnd(g) * n) >> 64);
}

static uint64_t gen_total(const struct gen *g)
{
	return g->flushed + (uint64_t)(g->pos - g->buf);
}

/* The output; replaces -o FILE only once the whole trace is written. */
static struct safefile *ptgen_out;
static struct safefile *ptgen_opts;	/* OUT.options, NULL for stdout */

static void die(const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "ptgen: ");
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
	safefile_abort(ptgen_opts);
	safefile_abort(ptgen_out);
	exit(1);
}

/* Flip bytes of the buffer that fall on a corruption point. */
static void gen_corrupt(struct gen *g, size_t len)
{
	while (g->next_corrupt < g->flushed + len) {
		uint64_t r = xo_next(g->crng);
		double u;

		g->buf[g->next_corrupt - g->flushed] ^= (uint8_t)(1 + r % 255);
		u = ((r >> 11) + 1) * 0x1.0p-53;
		g->next_corrupt += 1 + (uint64_t)(log(u) / g->corrupt_log);
	}
}

static void gen_flush(struct gen *g)
{
	size_t len = (size_t)(g->pos - g->buf), done = 0;

	if (g->o.corrupt_rate > 0)
		gen_corrupt(g, len);
	while (done < len) {
		ssize_t n = write(g->fd, g->buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("%s: %s", g->o.out, strerror(n < 0 ? errno : EIO));
		done += (size_t)n;
	}
	g->flushed += len;
	g->pos = g->buf;
}

/* Double the buffer, for gen_room(). */
static void gen_grow(struct gen *g)
{
	size_t pos, cap;
	uint8_t *nb;

	pos = (size_t)(g->pos - g->buf);
	cap = (size_t)(g->end - g->buf) * 2;
	nb = realloc(g->buf, cap);
	if (!nb)
		die("%s%s", "out of memory", "");
	g->buf = nb;
	g->pos = nb + pos;
	g->end = nb + cap;
}

/* Keep room for what an event writes between two calls (a PSB+, a tnt
 * burst, a sleep's packets: far less than GEN_EVENT_MAX / 2): the buffer
 * grows, never flushes, so the event can still be taken back.  Inline:
 * it runs at every MTC. */
static inline void gen_room(struct gen *g)
{
	if (__builtin_expect((size_t)(g->end - g->pos) < GEN_EVENT_MAX / 2, 0))
		gen_grow(g);
}

static inline void put1(struct gen *g, uint8_t b)
{
	*g->pos++ = b;
}

static inline void put2(struct gen *g, uint8_t a, uint8_t b)
{
	g->pos[0] = a;
	g->pos[1] = b;
	g->pos += 2;
}

/* @n little-endian bytes of @v. */
static inline void putle(struct gen *g, uint64_t v, int n)
{
	while (n--) {
		*g->pos++ = (uint8_t)v;
		v >>= 8;
	}
}

static void put_pads(struct gen *g, unsigned n)
{
	memset(g->pos, 0, n);
	g->pos += n;
}

static void put_cyc(struct gen *g, uint64_t v)
{
	g->pos = pte_cyc(g->pos, v);
}

/* The CYC owed before a CYC-eligible packet. */
static inline void put_cyc_pending(struct gen *g)
{
	if (g->o.cyc && g->cyc_pending >= g->cyc_min) {
		put_cyc(g, g->cyc_pending);
		g->cyc_pending = 0;
	}
}

/* The crystal clock at TSC @tsc. */
static uint64_t art_of(const struct gen *g, uint64_t tsc)
{
	/* a 56-bit TSC times a small eax fits 64 bits: skip the slow path */
	if (g->o.eax < 256)
		return tsc * g->o.eax / g->o.ebx;
	return (uint64_t)((unsigned __int128)tsc * g->o.eax / g->o.ebx);
}

/* The first TSC at which the crystal clock reads @art. */
static uint64_t tsc_of_art(const struct gen *g, uint64_t art)
{
	/* art * ebx is about tsc * eax */
	if (g->o.eax < 256)
		return (art * g->o.ebx + g->o.eax - 1) / g->o.eax;
	return (uint64_t)(((unsigned __int128)art * g->o.ebx + g->o.eax - 1) /
			  g->o.eax);
}

/* Plan the MTC of crystal clock period @period (ART >> MTCFreq): when it
 * is due, and the core cycles until then.  The TSC must be in sync. */
static void plan_mtc_at(struct gen *g, uint64_t period)
{
	g->mtc_period = period;
	g->mtc_tsc = tsc_of_art(g, period << g->o.mtc_freq);
	g->cyc_to_mtc = ((g->mtc_tsc - g->tsc) * g->cbr - g->rem +
			 g->o.nom_freq - 1) / g->o.nom_freq;
}

/* Bring the TSC up to date with the cycles run since the last call. */
static void sync_tsc(struct gen *g)
{
	g->rem += g->cyc_acc * g->o.nom_freq;
	g->tsc += g->rem / g->cbr;
	g->rem %= g->cbr;
	g->cyc_acc = 0;
}

/* After the TSC or the CBR changed: plan the first MTC after now. */
static void plan_mtc(struct gen *g)
{
	plan_mtc_at(g, (art_of(g, g->tsc) >> g->o.mtc_freq) + 1);
}

/* The MTC that is due now. */
static void put_mtc(struct gen *g)
{
	/* A dropped MTC is recovered by decoders from the payload gap. */
	if ((rnd(g) & 63) != 0 && g->o.mtc) {
		put_cyc_pending(g);
		g->pos = pte_mtc(g->pos, g->mtc_period);
	}
	/* run() writes one per crystal clock period, as many as it runs */
	gen_room(g);
	plan_mtc_at(g, g->mtc_period + 1);
}

/* Run the core for @c cycles, with an MTC at every crystal clock
 * boundary passed, each after the CYC of the cycles up to it.  The TSC
 * is brought up to date lazily: this is the hot path. */
static inline void run(struct gen *g, uint64_t c)
{
	while (c >= g->cyc_to_mtc) {
		c -= g->cyc_to_mtc;
		g->cyc_acc += g->cyc_to_mtc;
		g->cyc_pending += g->cyc_to_mtc;
		sync_tsc(g);
		put_mtc(g);
	}
	g->cyc_to_mtc -= c;
	g->cyc_acc += c;
	g->cyc_pending += c;
}

/* Cycles between two packets from 13 random bits @r: mostly short, with
 * a long tail; about 37 on average, a tnt.8's worth of branches at an
 * IPC near 1. */
static inline uint64_t cycles_of(uint64_t r)
{
	/* a table, not a switch: a random branch costs more than the rest */
	static const uint16_t mask[16] = {
		511, 127, 127, 31, 31, 31, 31, 31,
		31, 31, 31, 31, 31, 31, 31, 31,
	};

	return 1 + ((r >> 4) & mask[r & 15]);
}

static uint64_t some_cycles(struct gen *g)
{
	return cycles_of(rnd(g));
}

/* The TSC ticks of @mtcs MTC periods. */
static uint64_t mtc_ticks(const struct gen_opts *o, unsigned mtcs)
{
	return ((uint64_t)mtcs << o->mtc_freq) * o->ebx / o->eax;
}

/* The TSC ticks of GEN_SLEEP_MTCS MTC periods: the longest sleep made. */
static uint64_t sleep_max(const struct gen_opts *o)
{
	return mtc_ticks(o, GEN_SLEEP_MTCS);
}

/* Sleep for @ticks TSC ticks, at most GEN_SLEEP_CAP_MTCS MTC periods:
 * the core clock stops, so no cycles pass and no MTCs are sent; the next
 * MTC's payload shows the gap, which must stay under 256 periods. */
static void sleep_ticks(struct gen *g, uint64_t ticks)
{
	uint64_t max = mtc_ticks(&g->o, GEN_SLEEP_CAP_MTCS);

	if (ticks > max)
		ticks = max;
	sync_tsc(g);
	g->tsc += ticks;
	plan_mtc(g);
}

static uint64_t sext48(uint64_t ip)
{
	return (uint64_t)((int64_t)(ip << 16) >> 16);
}

/* An IP packet with opcode @opc for @ip, in a compression that works
 * against the last IP, usually the smallest. */
static void put_ip(struct gen *g, uint8_t opc, uint64_t ip)
{
	uint8_t legal[6];
	unsigned n = 0, ipc;

	if (g->ip_valid) {
		if ((ip >> 16) == (g->last_ip >> 16))
			legal[n++] = 1;
		if ((ip >> 32) == (g->last_ip >> 32))
			legal[n++] = 2;
		if ((ip >> 48) == (g->last_ip >> 48))
			legal[n++] = 4;
	}
	if (sext48(ip) == ip)
		legal[n++] = 3;
	legal[n++] = 6;
	ipc = legal[(rnd(g) & 7) ? 0 : rnd_below(g, n)];
	g->pos = pte_ip(g->pos, opc, ipc, ip);
	g->last_ip = ip;
	g->ip_valid = 1;
}

static void put_suppressed(struct gen *g, uint8_t opc)
{
	put1(g, opc);
}

/* The next branch target: mostly near, sometimes far, now and then into
 * another region (program, shared libraries, kernel). */
static uint64_t next_ip(struct gen *g)
{
	uint64_t r = rnd(g), ip = g->cur_ip;

	switch (r & 15) {
	case 0:
		switch ((r >> 4) & 3) {
		case 0:
			ip = 0xffffffff81000000ull + ((r >> 8) & 0xffffff);
			break;
		case 1:
			ip = 0x00007f3a2c000000ull + ((r >> 8) & 0x3ffffff);
			break;
		default:
			ip = 0x0000555555554000ull + ((r >> 8) & 0x1fffff);
			break;
		}
		break;
	case 1:
	case 2:
	case 3:
		ip = (ip & ~0xffffffull) | ((r >> 8) & 0xffffff);
		break;
	default:
		ip += ((r >> 8) & 0x1fff) - 0x1000;
		break;
	}
	g->cur_ip = ip;
	return ip;
}

static void put_mode_exec(struct gen *g)
{
	/* 64-bit: CS.L set, CS.D clear */
	g->pos = pte_mode_exec(g->pos, 1, 0);
}

static void put_tsc(struct gen *g)
{
	sync_tsc(g);
	g->pos = pte_tsc(g->pos, g->tsc);
}

static void put_psb_pads(struct gen *g)
{
	if (rnd(g) & 1)
		put_pads(g, (unsigned)rnd_below(g, 9));
}

/* PSB+: the full state, so a decoder can start here. */
static void put_psb_plus(struct gen *g)
{
	uint64_t art, fc;

	g->next_psb = gen_total(g) + g->o.psb_period;
	g->pos = pte_psb(g->pos);
	/* The SDM resets the last IP at a PSB (ptdump does not): the first
	 * IP after it is sent in full so both read the same address. */
	g->ip_valid = 0;
	put_psb_pads(g);
	if (g->intx || (rnd(g) & 3) == 0)
		put2(g, 0x99, (uint8_t)(0x20 | g->intx));
	if (g->enabled) {
		put_mode_exec(g);
		put_ip(g, 0x1d, g->cur_ip);
	}
	put_psb_pads(g);
	put2(g, 0x02, 0x43);
	putle(g, (g->cr3 >> 5) << 1 | (uint64_t)g->vmx, 6);
	if (g->vmx) {
		put2(g, 0x02, 0xc8);
		putle(g, 0x12345ull + (g->cr3 >> 12 & 0xff), 5);
	}
	put_psb_pads(g);
	put_tsc(g);		/* syncs the TSC */
	put_psb_pads(g);
	art = art_of(g, g->tsc);
	fc = g->tsc - tsc_of_art(g, art);
	/* TMA comes with MTCs only */
	if (g->o.mtc) {
		g->pos = pte_tma(g->pos, art, fc > 511 ? 511 : fc);
	}
	put_psb_pads(g);
	g->pos = pte_cbr(g->pos, g->cbr);
	g->pos = pte_psbend(g->pos);
}

/* A tnt.8 with 1..6 bits, mostly full. */
static uint8_t tnt8_byte(uint64_t r)
{
	uint8_t b = (uint8_t)(r & 0x7e);
	/* one in eight has fewer bits: a stop bit at 2..6 */
	uint8_t few = (uint8_t)((b | 4) & (0xff >> (((r >> 11) & 3) + 1)));

	return ((r >> 8) & 7) ? (uint8_t)(b | 0x80) : few;
}

/* A burst of tnt.8, each after its CYC.  The hot path: it keeps the
 * cursor and the clock in locals, since byte stores through g->pos would
 * make the compiler reload every field of *g after each one. */
static void ev_tnt(struct gen *g)
{
	uint64_t r = rnd(g), h[10], to_mtc, acc, pending;
	unsigned n = 3 + (r & 7), i;
	int cyc = g->o.cyc;
	uint64_t cyc_min = g->cyc_min;
	uint8_t *p;

	/* 32 random bits per tnt.8: its cycles below bit 13, its byte
	 * from bit 16 */
	for (i = 0; i < n; i += 2) {
		uint64_t v = rnd(g);

		h[i] = v;
		h[i + 1] = v >> 32;
	}
	p = g->pos;
	to_mtc = g->cyc_to_mtc;
	acc = g->cyc_acc;
	pending = g->cyc_pending;
	for (i = 0; i < n; i++) {
		uint64_t c = cycles_of(h[i]);

		if (c >= to_mtc) {
			g->pos = p;
			g->cyc_to_mtc = to_mtc;
			g->cyc_acc = acc;
			g->cyc_pending = pending;
			run(g, c);
			p = g->pos;
			to_mtc = g->cyc_to_mtc;
			acc = g->cyc_acc;
			pending = g->cyc_pending;
		} else {
			to_mtc -= c;
			acc += c;
			pending += c;
		}
		if (cyc && pending >= cyc_min) {
			p = pte_cyc(p, pending);
			pending = 0;
		}
		*p++ = tnt8_byte(h[i] >> 16);
	}
	g->pos = p;
	g->cyc_to_mtc = to_mtc;
	g->cyc_acc = acc;
	g->cyc_pending = pending;
}

static void ev_tnt64(struct gen *g)
{
	uint64_t r = rnd(g);
	unsigned nbits = 1 + (unsigned)rnd_below(g, 47);
	uint64_t bits = r & ((1ull << nbits) - 1);

	run(g, some_cycles(g) * 4);
	put_cyc_pending(g);
	g->pos = pte_tnt64(g->pos, bits, nbits);
}

static void ev_tip(struct gen *g)
{
	run(g, some_cycles(g));
	put_cyc_pending(g);
	if ((rnd(g) & 255) == 0)
		put_suppressed(g, 0x0d);
	else
		put_ip(g, 0x0d, next_ip(g));
}

/* An interrupt: where it struck, then the handler. */
static void ev_interrupt(struct gen *g)
{
	run(g, some_cycles(g));
	put_cyc_pending(g);
	put_ip(g, 0x1d, g->cur_ip);
	g->cur_ip = 0xffffffff81a00000ull + (rnd(g) & 0xfff0);
	put_ip(g, 0x0d, g->cur_ip);
}

/* Tracing stops (a filter or a privilege change) and resumes later. */
static void ev_disable(struct gen *g)
{
	run(g, some_cycles(g));
	put_cyc_pending(g);
	if (rnd(g) & 1)
		put_suppressed(g, 0x01);
	else
		put_ip(g, 0x01, next_ip(g));
	g->enabled = 0;
}

static void ev_enable(struct gen *g)
{
	run(g, some_cycles(g) * 8);
	put_cyc_pending(g);
	put_mode_exec(g);
	put_ip(g, 0x11, next_ip(g));
	g->enabled = 1;
}

static void ev_tsc(struct gen *g)
{
	run(g, some_cycles(g));
	put_cyc_pending(g);
	put_tsc(g);
}

static void ev_cbr(struct gen *g)
{
	unsigned cbr = g->cbr + (unsigned)rnd_below(g, 9) - 4;

	if (cbr < GEN_CBR_MIN)
		cbr = GEN_CBR_MIN;
	if (cbr > GEN_CBR_MAX)
		cbr = GEN_CBR_MAX;
	g->pos = pte_cbr(g->pos, cbr);
	sync_tsc(g);
	g->cbr = cbr;
	g->rem = 0;
	plan_mtc(g);
}

static void ev_pip(struct gen *g)
{
	run(g, some_cycles(g));
	put_cyc_pending(g);
	g->cr3 = 0x100000000ull + (rnd_below(g, 1 << 20) << 12);
	put2(g, 0x02, 0x43);
	putle(g, (g->cr3 >> 5) << 1 | (uint64_t)g->vmx, 6);
	put_ip(g, 0x0d, next_ip(g));
}

static void ev_tsx(struct gen *g)
{
	uint8_t bits;

	run(g, some_cycles(g));
	put_cyc_pending(g);
	if (g->intx)
		bits = (rnd(g) & 3) ? 0 : 2;	/* commit, or abort */
	else
		bits = 1;
	put2(g, 0x99, (uint8_t)(0x20 | bits));
	put_ip(g, 0x1d, g->cur_ip);
	if (bits == 2)
		put_ip(g, 0x0d, next_ip(g));
	g->intx = bits == 1;
}

static void ev_ptw(struct gen *g)
{
	uint64_t r = rnd(g);
	int plc = (int)(r & 1), ip = (int)((r >> 1) & 1);

	run(g, some_cycles(g));
	put_cyc_pending(g);
	put2(g, 0x02, (uint8_t)(0x12 | plc << 5 | ip << 7));
	putle(g, rnd(g), plc ? 8 : 4);
	if (ip)
		put_ip(g, 0x1d, g->cur_ip);
}

/* mwait, pwre, exstop + fup, a sleep of @ticks (0: a random length),
 * pwrx; a TSC after it if @tsc (else now and then). */
static void ev_sleep_for(struct gen *g, uint64_t ticks, int tsc)
{
	static const uint8_t wake[8] = { 0, 0, 0, 0, 0, 2, 2, 3 };
	uint64_t r = rnd(g);
	unsigned state = 1 + (unsigned)((r >> 2) % 6), sub = (r >> 8) & 3;
	uint64_t max = sleep_max(&g->o);
	uint64_t pwrx;

	run(g, some_cycles(g));
	if (r & 1) {
		put_cyc_pending(g);
		put2(g, 0x02, 0xc2);
		putle(g, (uint64_t)((state - 1) << 4 | sub), 4);
		putle(g, r >> 32 & 1, 4);
	}
	put_cyc_pending(g);
	put2(g, 0x02, 0x22);
	putle(g, (uint64_t)(state << 12 | sub << 8 | (((r >> 16) & 7) == 0) << 7),
	      2);
	run(g, some_cycles(g));
	put_cyc_pending(g);
	put2(g, 0x02, 0xe2);
	put_ip(g, 0x1d, g->cur_ip);
	sleep_ticks(g, ticks ? ticks : 100 + rnd_below(g, max));
	/* wake reason: mostly an interrupt, else a store to the monitored
	 * line or the hardware (bits 8, 10, 11) */
	pwrx = (uint64_t)(state << 4 | (state > 2 ? state : 1)) |
	       (uint64_t)0x100 << wake[(r >> 20) & 7];
	put2(g, 0x02, 0xa2);
	putle(g, pwrx, 5);
	if (tsc || ((r >> 24) & 1))
		put_tsc(g);
}

static void ev_sleep(struct gen *g)
{
	ev_sleep_for(g, 0, 0);
}

/* --sleep-at's next planted sleeps, @ticks in all: as many sleeps in a
 * row as keep each under GEN_SLEEP_MTCS MTC periods, each closed by a
 * TSC, so that they all end in one PSB segment. */
static void ev_plant(struct gen *g, uint64_t ticks)
{
	uint64_t max = sleep_max(&g->o);
	uint64_t n = (ticks + max - 1) / max, each, i;

	/* the last sleep takes the remainder: one more sleep if that would
	 * make it longer than the rest may be */
	while (ticks - ticks / n * (n - 1) > max)
		n++;
	each = ticks / n;
	for (i = 0; i < n; i++) {
		gen_room(g);
		ev_sleep_for(g, i + 1 < n ? each : ticks - each * (n - 1), 1);
	}
}

/* Execution stops for a moment without a C-state (a P-state or frequency
 * change, SDM 36.4.2.22): EXSTOP and its FUP, sometimes a new CBR, and
 * execution goes on without a PWRX. */
static void ev_exstop(struct gen *g)
{
	uint64_t r = rnd(g);

	run(g, some_cycles(g));
	put_cyc_pending(g);
	put2(g, 0x02, 0xe2);
	put_ip(g, 0x1d, g->cur_ip);
	sleep_ticks(g, 10 + (r & 255));
	if ((r >> 8) & 1)
		ev_cbr(g);
}

static void ev_ovf(struct gen *g)
{
	put2(g, 0x02, 0xf3);
	g->ip_valid = 0;
	sleep_ticks(g, rnd_below(g, 2000));
	if (g->enabled)
		put_ip(g, 0x1d, next_ip(g));
}

static void ev_pads(struct gen *g)
{
	put_pads(g, 1 + (unsigned)rnd_below(g, 16));
}

/* One step of the traced program. */
static void gen_event(struct gen *g)
{
	uint64_t r;

	if (gen_total(g) >= g->next_psb) {
		put_psb_plus(g);
		return;
	}
	r = rnd(g);
	if ((uint32_t)(r >> 32) < g->ovf_p) {
		ev_ovf(g);
		return;
	}
	if (g->planted < g->o.nplant && g->enabled &&
	    gen_total(g) >= g->o.plant[g->planted].off) {
		ev_plant(g, g->o.plant[g->planted++].ticks);
		return;
	}
	/* only when asked for, so that other traces keep their bytes */
	if (g->exstop_p && g->enabled && (uint32_t)rnd(g) < g->exstop_p) {
		ev_exstop(g);
		return;
	}
	r &= 1023;
	if (!g->enabled) {
		if (r < 64)
			ev_enable(g);
		else if (r < 72)
			ev_pads(g);
		else
			run(g, some_cycles(g) * 4);
		return;
	}
	if (r < g->o.mix_tnt)
		ev_tnt(g);
	else if (r < g->o.mix_tip)
		ev_tip(g);
	else if (r < 962)
		ev_tnt64(g);
	else if (r < 972)
		ev_interrupt(g);
	else if (r < 980)
		ev_pads(g);
	else if (r < 985)
		ev_tsc(g);
	else if (r < 989)
		ev_cbr(g);
	else if (r < 993)
		ev_ptw(g);
	else if (r < 995)
		ev_disable(g);
	else if (r < 997)
		ev_pip(g);
	else if (r < 999)
		ev_tsx(g);
	else if (r < 1001 && !g->o.no_sleep)
		ev_sleep(g);
	else
		run(g, some_cycles(g));
}

/* Room kept at the end for --truncate's half packet. */
static uint64_t gen_cut_size(const struct gen *g)
{
	return g->o.truncate && g->o.size >= 4 ? 4 : 0;
}

/* Bring the output to exactly the requested size: pads, and with
 * --truncate a TSC cut in half as the last packet. */
static void gen_tail(struct gen *g)
{
	uint64_t cut = gen_cut_size(g);
	uint64_t left = g->o.size - cut - gen_total(g);

	while (left) {
		unsigned n = left > 4096 ? 4096 : (unsigned)left;

		if (g->pos >= g->buf + GEN_BUF_SIZE)
			gen_flush(g);
		put_pads(g, n);
		left -= n;
	}
	if (cut) {
		put1(g, 0x19);
		putle(g, g->tsc, 3);
	}
	gen_flush(g);
}

static void gen_init(struct gen *g)
{
	uint64_t r;

	xo_seed(g->rng, g->o.seed);
	xo_seed(g->crng, ~g->o.seed);
	g->ovf_p = P32(g->o.ovf_rate);
	g->exstop_p = P32(g->o.exstop_rate);
	g->cyc_min = g->o.cyc_thresh ? 1ull << (g->o.cyc_thresh - 1) : 1;
	if (g->o.corrupt_rate > 0) {
		g->corrupt_log = log1p(-g->o.corrupt_rate);
		g->next_corrupt = 0;
		if (g->o.corrupt_rate < 1) {
			/* first corruption point */
			double u = ((xo_next(g->crng) >> 11) + 1) * 0x1.0p-53;

			g->next_corrupt = (uint64_t)(log(u) / g->corrupt_log);
		}
	}
	r = rnd(g);
	/* hours of uptime at a few GHz */
	g->tsc = 0x100000000000ull + (r & 0xffffffffffull);
	g->cbr = 12 + (unsigned)rnd_below(g, 25);
	plan_mtc(g);
	g->cur_ip = 0x0000555555554000ull + (rnd(g) & 0x1fffff);
	g->cr3 = 0x100000000ull + (rnd_below(g, 1 << 20) << 12);
	g->vmx = (rnd(g) & 7) == 0;
	g->enabled = 1;
}

static int parse_size(const char *s, uint64_t *out)
{
	static const struct { const char *sfx; uint64_t mul; } units[] = {
		{ "", 1 }, { "B", 1 },
		{ "K", 1ull << 10 }, { "KiB", 1ull << 10 }, { "kB", 1000 },
		{ "M", 1ull << 20 }, { "MiB", 1ull << 20 }, { "MB", 1000000 },
		{ "G", 1ull << 30 }, { "GiB", 1ull << 30 }, { "GB", 1000000000 },
		{ "T", 1ull << 40 }, { "TiB", 1ull << 40 }, { "TB", 1000000000000ull },
	};
	char *end;
	unsigned long long v;
	size_t i;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].sfx))
			continue;
		if (v > UINT64_MAX / units[i].mul)
			return -1;
		*out = v * units[i].mul;
		return 0;
	}
	return -1;
}

static int parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

static int parse_rate(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || end == s || !(v >= 0 && v <= 1))
		return -1;
	*out = v;
	return 0;
}

/* The timing options that decode what @o generates: a Skylake client
 * (6/78/3, whose 24 MHz crystal the model gives) with @o's ratios. */
static void gen_config(const struct gen_opts *o, struct tm_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->have_cpu = 1;
	cfg->cpu_family = 6;
	cfg->cpu_model = 78;
	cfg->cpu_stepping = 3;
	cfg->have_mtc_freq = 1;
	cfg->mtc_freq = (uint8_t)o->mtc_freq;
	cfg->have_nom_freq = 1;
	cfg->nom_freq = (uint8_t)o->nom_freq;
	cfg->have_cpuid_15 = 1;
	cfg->cpuid_15_eax = o->eax;
	cfg->cpuid_15_ebx = o->ebx;
}

/* Begin OUT.options, so that ptbrowse shows the trace's times at once:
 * put in place with the trace, once that is whole (main()). */
static void start_options(const struct gen_opts *o, const struct safefile_opts *so)
{
	struct tm_config cfg;
	char err[4400];

	gen_config(o, &cfg);
	if (timing_file_start(&ptgen_opts, o->out, &cfg, so, err,
				 sizeof(err)) < 0)
		die("%s%s", err, "");
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: ptgen [options] --size SIZE -o FILE\n"
"Write a deterministic, realistic Intel PT trace (raw packets) of SIZE bytes.\n"
"\n"
"  -s, --seed N          random seed (default 1); same seed, same bytes\n"
"  -S, --size SIZE       exact output size; units B, K/KiB, M/MiB, G/GiB,\n"
"                        T/TiB (powers of 1024) or kB, MB, GB, TB (of 1000);\n"
"                        under the first PSB+ (about 80 bytes) only PADs\n"
"                        (said on stderr)\n"
"  -o, --output FILE     where to write; - for stdout (the default); a\n"
"                        file gets FILE.options beside it, the timing\n"
"                        options that decode it (as --print-config); an\n"
"                        existing FILE.options that is not an options\n"
"                        file is not replaced (nothing is written)\n"
"      --psb-period N    bytes between PSBs (default 4096)\n"
"      --cyc, --no-cyc   send CYC packets (cycle-accurate mode; default on)\n"
"      --cyc-thresh N    IA32_RTIT_CTL.CycThresh, 0..15: a CYC only after\n"
"                        2^(N-1) cycles (default 0: every eligible packet)\n"
"      --no-mtc          MTCEn=0: no MTC or TMA packets, TSC only\n"
"      --mtc-freq N      IA32_RTIT_CTL.MTCFreq, 0..15 (default 3)\n"
"      --nom-freq N      P1, the nominal core:bus ratio (default 12)\n"
"      --cpuid-0x15.eax N, --cpuid-0x15.ebx N\n"
"                        the TSC:ART ratio ebx/eax (default 2 and 100),\n"
"                        1 to 512; an MTC period, (ebx << MTCFreq) / eax\n"
"                        ticks, must last 4 core cycles at CBR 8\n"
"      --ovf-rate P      chance of an OVF per event, 0..1 (default 0.00001)\n"
"      --corrupt-rate P  chance of flipping each output byte (default 0)\n"
"      --exstop-rate P   chance per event of an EXSTOP inside execution\n"
"                        (a P-state change; default 0)\n"
"      --no-sleep        no sleeps (PWRE, EXSTOP .. PWRX) but planted ones\n"
"      --sleep-at OFF:TICKS\n"
"                        plant sleeps of TICKS TSC ticks in all (each at\n"
"                        most 200 MTC periods, each closed by a TSC) at\n"
"                        the first event at or after byte OFF, in one PSB\n"
"                        segment; up to 16 times; an error if they do\n"
"                        not fit before --size\n"
"      --mix KIND        the packet mix while tracing: default (80%% tnt\n"
"                        bursts, 13%% tip), tnt (92%% tnt bursts, 1%% tip)\n"
"                        or tip (20%% tnt bursts, 73%% tip)\n"
"      --truncate        end with a TSC packet cut in half\n"
"      --print-config    print the matching ptdump timing options and exit\n"
"  -h, --help            this text\n");
}

enum {
	OPT_PSB = 256, OPT_CYC, OPT_NOCYC, OPT_MTC, OPT_NOM, OPT_EAX, OPT_EBX,
	OPT_OVF, OPT_CORRUPT, OPT_TRUNC, OPT_PRINT, OPT_THRESH, OPT_NOMTC,
	OPT_EXSTOP, OPT_MIX, OPT_NOSLEEP, OPT_SLEEPAT,
};

/* --sleep-at OFF:TICKS into @o (kept in offset order).  Returns 0, or -1
 * if it is malformed or one too many. */
static int parse_plant(struct gen_opts *o, const char *arg)
{
	char buf[64], *colon;
	uint64_t off, ticks;
	unsigned k;

	if (o->nplant == GEN_PLANT_MAX || strlen(arg) >= sizeof(buf))
		return -1;
	strcpy(buf, arg);
	colon = strchr(buf, ':');
	if (!colon)
		return -1;
	*colon = 0;
	/* OFF: a number (0x... too) or a size (512KiB) */
	if ((parse_uint(buf, UINT64_MAX, &off) && parse_size(buf, &off)) ||
	    parse_uint(colon + 1, UINT64_MAX, &ticks) || !ticks)
		return -1;
	k = o->nplant++;
	while (k > 0 && o->plant[k - 1].off > off) {
		o->plant[k] = o->plant[k - 1];
		k--;
	}
	o->plant[k].off = off;
	o->plant[k].ticks = ticks;
	return 0;
}

/* Refuse clock ratios the model cannot keep its promises with. */
static void check_timing(const struct gen_opts *o)
{
	if (o->ebx < o->eax) {
		fprintf(stderr, "ptgen: the TSC must not run slower than the "
			"crystal clock (cpuid-0x15.ebx >= eax)\n");
		exit(2);
	}
	if (o->ebx > (uint64_t)GEN_TSC_ART_MAX * o->eax) {
		fprintf(stderr, "ptgen: cpuid-0x15.ebx / eax is above %d: TMA's "
			"9-bit FastCounter could not hold the TSC ticks of a "
			"crystal clock tick\n", GEN_TSC_ART_MAX);
		exit(2);
	}
	/* core cycles per MTC period at CBR c: (ebx << mtc_freq) / eax * c /
	 * nom_freq; else one run of cycles writes thousands of MTCs */
	if (((uint64_t)o->ebx << o->mtc_freq) * GEN_CBR_MIN <
	    (uint64_t)GEN_MTC_MIN_CYCLES * o->eax * o->nom_freq) {
		fprintf(stderr, "ptgen: an MTC period ((cpuid-0x15.ebx << "
			"mtc-freq) / eax TSC ticks) is shorter than %d core "
			"cycles at CBR %d with --nom-freq %u\n",
			GEN_MTC_MIN_CYCLES, GEN_CBR_MIN, o->nom_freq);
		exit(2);
	}
}

static void parse_args(struct gen_opts *o, int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "size", required_argument, NULL, 'S' },
		{ "output", required_argument, NULL, 'o' },
		{ "psb-period", required_argument, NULL, OPT_PSB },
		{ "cyc", no_argument, NULL, OPT_CYC },
		{ "no-cyc", no_argument, NULL, OPT_NOCYC },
		{ "cyc-thresh", required_argument, NULL, OPT_THRESH },
		{ "no-mtc", no_argument, NULL, OPT_NOMTC },
		{ "exstop-rate", required_argument, NULL, OPT_EXSTOP },
		{ "mix", required_argument, NULL, OPT_MIX },
		{ "no-sleep", no_argument, NULL, OPT_NOSLEEP },
		{ "sleep-at", required_argument, NULL, OPT_SLEEPAT },
		{ "mtc-freq", required_argument, NULL, OPT_MTC },
		{ "nom-freq", required_argument, NULL, OPT_NOM },
		{ "cpuid-0x15.eax", required_argument, NULL, OPT_EAX },
		{ "cpuid-0x15.ebx", required_argument, NULL, OPT_EBX },
		{ "ovf-rate", required_argument, NULL, OPT_OVF },
		{ "corrupt-rate", required_argument, NULL, OPT_CORRUPT },
		{ "truncate", no_argument, NULL, OPT_TRUNC },
		{ "print-config", no_argument, NULL, OPT_PRINT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, have_size = 0;
	uint64_t v;

	o->seed = 1;
	o->out = "-";
	o->psb_period = 4096;
	o->cyc = 1;
	o->mtc = 1;
	o->mtc_freq = 3;
	o->nom_freq = 12;
	o->eax = 2;
	o->ebx = 100;
	o->ovf_rate = 0.00001;
	o->mix_tnt = 820;
	o->mix_tip = 950;
	while ((c = getopt_long(argc, argv, "s:S:o:h", lopts, NULL)) != -1) {
		const char *bad = NULL;

		switch (c) {
		case 's':
			if (parse_uint(optarg, UINT64_MAX, &o->seed))
				bad = "--seed";
			break;
		case 'S':
			if (parse_size(optarg, &o->size))
				bad = "--size";
			have_size = 1;
			break;
		case 'o':
			o->out = optarg;
			break;
		case OPT_PSB:
			if (parse_size(optarg, &o->psb_period) ||
			    o->psb_period < 64)
				bad = "--psb-period (at least 64)";
			break;
		case OPT_CYC:
			o->cyc = 1;
			break;
		case OPT_NOCYC:
			o->cyc = 0;
			break;
		case OPT_THRESH:
			if (parse_uint(optarg, 15, &v))
				bad = "--cyc-thresh (0..15)";
			o->cyc_thresh = (unsigned)v;
			break;
		case OPT_NOMTC:
			o->mtc = 0;
			break;
		case OPT_EXSTOP:
			if (parse_rate(optarg, &o->exstop_rate))
				bad = "--exstop-rate (0..1)";
			break;
		case OPT_NOSLEEP:
			o->no_sleep = 1;
			break;
		case OPT_SLEEPAT:
			if (parse_plant(o, optarg))
				bad = "--sleep-at (OFF:TICKS, TICKS > 0, at most 16)";
			break;
		case OPT_MIX:
			/* the rest of the 1024 (tnt.64, interrupts, pads, TSC,
			 * CBR ...) stays as it is: the same timing packets */
			if (!strcmp(optarg, "default")) {
				o->mix_tnt = 820;
				o->mix_tip = 950;
			} else if (!strcmp(optarg, "tnt")) {
				o->mix_tnt = 940;
				o->mix_tip = 950;
			} else if (!strcmp(optarg, "tip")) {
				o->mix_tnt = 200;
				o->mix_tip = 950;
			} else {
				bad = "--mix (default, tnt or tip)";
			}
			break;
		case OPT_MTC:
			if (parse_uint(optarg, 15, &v))
				bad = "--mtc-freq";
			o->mtc_freq = (unsigned)v;
			break;
		case OPT_NOM:
			if (parse_uint(optarg, 255, &v) || !v)
				bad = "--nom-freq";
			o->nom_freq = (unsigned)v;
			break;
		case OPT_EAX:
			if (parse_uint(optarg, UINT32_MAX, &v) || !v)
				bad = "--cpuid-0x15.eax";
			o->eax = (uint32_t)v;
			break;
		case OPT_EBX:
			if (parse_uint(optarg, UINT32_MAX, &v) || !v)
				bad = "--cpuid-0x15.ebx";
			o->ebx = (uint32_t)v;
			break;
		case OPT_OVF:
			if (parse_rate(optarg, &o->ovf_rate))
				bad = "--ovf-rate (0..1)";
			break;
		case OPT_CORRUPT:
			if (parse_rate(optarg, &o->corrupt_rate))
				bad = "--corrupt-rate (0..1)";
			break;
		case OPT_TRUNC:
			o->truncate = 1;
			break;
		case OPT_PRINT:
			o->print_config = 1;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(2);
		}
		if (bad) {
			fprintf(stderr, "ptgen: bad value '%s' for %s\n",
				optarg, bad);
			exit(2);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "ptgen: unexpected argument '%s'\n", argv[optind]);
		exit(2);
	}
	check_timing(o);
	for (c = 0; c < (int)o->nplant; c++) {
		uint64_t max = sleep_max(o);

		if (o->plant[c].ticks / GEN_PLANT_SLEEPS >= max) {
			fprintf(stderr, "ptgen: --sleep-at: %" PRIu64 " ticks is more than "
				"%d sleeps of %" PRIu64 "\n", o->plant[c].ticks,
				GEN_PLANT_SLEEPS, max);
			exit(2);
		}
	}
	if (!have_size && !o->print_config) {
		fprintf(stderr, "ptgen: --size is required\n");
		usage(stderr);
		exit(2);
	}
}

int main(int argc, char **argv)
{
	struct gen g;

	memset(&g, 0, sizeof(g));
	parse_args(&g.o, argc, argv);
	if (g.o.print_config) {
		char opts[256];
		struct tm_config cfg;

		gen_config(&g.o, &cfg);
		perfdata_ptdump_options(&cfg, opts, sizeof(opts));
		printf("%s\n", opts);
		return 0;
	}
	{
		/* generated data: no fsync */
		static const struct safefile_opts so = {
			.flags = SAFEFILE_STDOUT | SAFEFILE_NOSYNC, .mode = 0644 };
		char err[4400];

		safefile_remove_on_signals();
		if (safefile_create(&ptgen_out, g.o.out, &so, err, sizeof(err)) < 0)
			die("%s%s", err, "");
		g.fd = safefile_fd(ptgen_out);
		if (!strcmp(g.o.out, "-"))
			g.o.out = "<stdout>";
		else
			start_options(&g.o, &so);
	}
	g.buf = malloc(GEN_BUF_SIZE + GEN_EVENT_MAX);
	if (!g.buf)
		die("%s%s", "out of memory", "");
	g.pos = g.buf;
	g.end = g.buf + GEN_BUF_SIZE + GEN_EVENT_MAX;
	gen_init(&g);
	for (;;) {
		size_t mark;	/* an offset: the buffer may move */
		unsigned planted = g.planted;

		if (g.pos >= g.buf + GEN_BUF_SIZE)
			gen_flush(&g);
		mark = (size_t)(g.pos - g.buf);
		gen_event(&g);
		if (gen_total(&g) > g.o.size - gen_cut_size(&g)) {
			/* Not even the first PSB+: PADs alone, which no
			 * decoder takes for a trace.  Said, but written:
			 * --size is exact, and tests want tiny files. */
			if (!mark && !g.flushed)
				fprintf(stderr, "ptgen: --size %" PRIu64 ": smaller "
					"than the first PSB+ (%" PRIu64 " bytes with "
					"these options): only PADs, no trace\n",
					g.o.size, gen_total(&g) + gen_cut_size(&g));
			g.pos = g.buf + mark;
			g.planted = planted;
			break;
		}
	}
	if (g.planted < g.o.nplant) {
		char off[32];

		snprintf(off, sizeof(off), "%" PRIu64, g.o.plant[g.planted].off);
		die("--sleep-at %s: the sleeps do not fit before --size%s",
		    off, "");
	}
	gen_tail(&g);
	free(g.buf);
	{
		char err[4400];
		struct safefile *f = ptgen_out, *of = ptgen_opts;

		ptgen_out = ptgen_opts = NULL;
		/* Both written before either is renamed, the options first:
		 * a failed or stopped run leaves the old pair as it was, and
		 * the new trace is never found without its options. */
		if (safefile_commit_pair(of, f, err, sizeof(err)) < 0)
			die("%s%s", err, "");
	}
	return 0;
}
