/*
 * tm -- the time model: TSC, TMA, MTC, CYC and CBR turned into a clock for
 * every packet of a stream.
 *
 * Fed the packets of one stream in order (from any PSB), tm_step() gives
 * each packet a struct tm_stamp: an estimated TSC with a 32-bit fraction,
 * the core cycles counted by CYC packets, whether the packet's cycle time
 * is exact or only bounded, the core:bus ratio, the measured core
 * frequency and a wall-clock time.  Trouble is a flag on the packet, never
 * a silent wrong number.
 *
 * How the estimate works (SDM 36.8.3, 36.4.2.12, 36.4.2.14, 36.3.7):
 *   - TSC packets are anchors; TMA ties the TSC to the crystal clock (CTC);
 *     each MTC is an anchor at the time of its CTC boundary: from the TMA
 *     after the last TSC (CTC delta * EBX/EAX after TSC - FastCounter;
 *     the TMA's CTC is CTC[15:0], so modulo 2^16), else chained from the
 *     last MTC's payload, CTC[MTCFreq+7:MTCFreq], so modulo
 *     2^(MTCFreq+8) (a TSC without a TMA does not break the chain; it
 *     resolves payload wraps).  An MTC that
 *     neither ties is placed at the estimate and flagged TM_F_UNTIED; one
 *     between a TSC and its TMA waits for the TMA when no chain ties it.
 *   - Between anchors, CYC cycles advance the estimate from the last CYC's
 *     time by cycles * ratio, ratio = TSC ticks per core cycle: measured
 *     over the last clean MTC-to-MTC period (TSC-to-TSC where no MTCs
 *     come), else P1/CBR (--nom-freq and the last CBR).  With a cycle
 *     threshold (SDM 36.3.6.3) an end of a period that is not in a CYC's
 *     cycle (no CYC right before it) may hide up to the threshold less
 *     one cycles, which a later CYC reports: such a period measures
 *     only where that is at most 1/256 of its cycles, else it is no
 *     period (not a stall either) and goes on over the MTC periods
 *     that follow until it is (from an MTC in a CYC's cycle, none
 *     hidden there, a new one starts).  The threshold is the
 *     configuration's (perf.data), else bounded by the least CYC
 *     payload seen (the first of each period's, rounded down to a power
 *     of two): every CYC counts at least the threshold's cycles.  A CBR change
 *     drops the measurement and the measured frequency.  A TSC-to-TSC
 *     period that ends at a PSB+ TSC holds no stop of the core clock
 *     (every stop is followed by a TSC of its own, SDM 36.4.2.11): with
 *     fewer cycles than CBR x 100 MHz at a sixteenth (clock modulation)
 *     gives, 2^14 not yet reported counted in, it is no period (a
 *     far-future TSC, or tracing off in it), not even a slow one.
 *   - A CYC counts the cycles since the previous CYC.  One right before a
 *     TSC or an MTC (both CYC-eligible) was sent in the same cycle, so the
 *     next CYC counts from that anchor's time.  PSB+ is status only: a
 *     PSB+ TSC anchors time but no CYC, and nothing in PSB+ takes a
 *     pending CYC.  The first CYC after a loss counts from the anchor.
 *   - The extrapolation never passes the next MTC's earliest time (the
 *     next CTC boundary after TMA.CTC, or after the last MTC) and the
 *     estimate never decreases but in the one case below: when an anchor
 *     lies behind the estimate, the estimate holds and the packet is
 *     flagged TM_F_CLAMPED (if a tick or more behind).
 *   - The exception: a TSC inside PSB+ a tick or more behind the last anchor
 *     (the last time the trace stated: a TSC, or an MTC, then by an MTC
 *     period or more, the MTC's placement being no finer; real traces show a
 *     PSB+ TSC a few ticks behind an MTC of the same PSB+) cannot happen in a
 *     sound trace: it contradicts itself.  A PSB+ is where the trace
 *     re-synchronises (SDM 36.3.7), so time restarts at that TSC, backwards
 *     (TM_F_RESYNC with TM_F_TSC_BACK): the estimate and the anchor become
 *     its time, the calibration period restarts there, the crystal clock's
 *     reference waits for the TMA that follows, a sleep it closes gets no
 *     halted time and the next CYC counts from it.  No period or sleep is
 *     measured across a TSC of the stretch that follows either, up to the
 *     next PSB+ TSC, which leaves it (forwards, as usual): the stretch may
 *     have been the damage (a TSC far in the past); a TSC outside PSB+ in
 *     it before the crystal clock's reference, or a CTC wrap past it, drops
 *     the reference (it is of the other side of the damage: MTCs placed
 *     from it, wrapped past the TSC, could run ahead of the next PSB+ TSC
 *     and make time go back there too).  A bad PSB+ TSC thus spoils its own
 *     PSB segment and no more (and the measurements of one more; but a
 *     far-future one that closes a sleep makes that sleep that long).  A
 *     TSC behind the anchor outside PSB+ is held and flagged, as any anchor
 *     behind the estimate, and the next PSB+ TSC decides: behind the
 *     estimate too, it sides with that TSC and re-synchronises (TM_F_RESYNC
 *     alone: it is not behind the last anchor, the held TSC), but for
 *     the same allowance: less than an MTC period behind an MTC whose
 *     time the estimate has not run a period past.  Forwards,
 *     an MTC one payload after the last (one period by the crystal clock)
 *     that a TSC between places over two periods later ends no period
 *     either.
 *   - The core clock stops in C-states while the crystal runs (SDM 18.17):
 *     PWRE..PWRX is a sleep (TM_F_SLEEP), and a calibration period that
 *     holds one, or an EXSTOP (execution stopped: a C-state, or a P-state
 *     or frequency change after which execution goes on, SDM 36.4.2.22),
 *     does not calibrate.  An EXSTOP alone is not a sleep.  Its halted
 *     time is bounded (tm_last_halt()): the EXSTOP's own time is a CYC
 *     extrapolation from the anchor before, exact only at that anchor.
 *   - Cycle exactness (SDM 36.3.6): the first CYC-eligible packet after a
 *     CYC is exact; other packets happened at or after the last CYC and
 *     before the next one: bounded.  Standalone CYCs accumulate.
 *   - Dropped MTCs are counted from the payload gap (1..255; an equal
 *     payload is a full wrap).  A gap across a sleep or stop is not a
 *     loss: no MTC comes while the core sleeps.
 *   - An OVF (or tm_gap()) drops what the lost packets made unreliable:
 *     the CYC awaiting its packet, the current calibration period and
 *     the time of the last CYC.  It keeps the estimate (no loss moves
 *     time back), the calibrated ratio, the CBR, the cycle count and the
 *     MTC/TMA state (the next MTC's payload recovers the time).
 *
 * No I/O, no global state; a struct tm_model lives on the caller's stack.
 */
#ifndef TM_H
#define TM_H

#include <stdint.h>

#include "pkt.h"
#include "ptdec.h"
#include "tm_config.h"

/* Flags of a stamp (struct tm_stamp.flags). */
enum tm_flag {
	TM_F_TSC	= 1u << 0,	/* tsc is known (a TSC packet was seen) */
	TM_F_REL	= 1u << 1,	/* no TSC yet: tsc counts from 0 */
	TM_F_CYC	= 1u << 2,	/* cycles are known (a CYC was seen) */
	TM_F_EXACT	= 1u << 3,	/* cycle time exact: a CYC applies here */
	TM_F_BOUNDED	= 1u << 4,	/* in [cycles, cycles at the next CYC) */
	TM_F_NS		= 1u << 5,	/* ns is valid */
	TM_F_FREQ	= 1u << 6,	/* khz is a measurement */
	TM_F_MTC_LOST	= 1u << 7,	/* MTCs were dropped before this one */
	TM_F_UNCAL	= 1u << 8,	/* CYC without calibration: time held */
	TM_F_OVF	= 1u << 9,	/* an overflow: packets were lost */
	TM_F_TSC_BACK	= 1u << 10,	/* a TSC a tick or more below the last
					 * anchor (TSC or MTC) */
	TM_F_TMA_NO_TSC	= 1u << 11,	/* a TMA without a TSC before it */
	TM_F_CLAMPED	= 1u << 12,	/* an anchor a tick or more behind the
					 * estimate, which held */
	TM_F_SLEEP	= 1u << 13,	/* from PWRE/EXSTOP to PWRX */
	TM_F_NO_CONFIG	= 1u << 14,	/* MTC/TMA ignored: config lacks
					 * mtc-freq or cpuid-0x15 */
	TM_F_LOST	= 1u << 15,	/* data was lost (OVF, a gap, a decode
					 * error) since the last TSC: the
					 * time is a guess until the next */
	TM_F_UNTIED	= 1u << 16,	/* an MTC that no TMA or tied MTC
					 * places on the crystal clock: at the
					 * estimate, a lower bound */
	TM_F_RESYNC	= 1u << 17,	/* a PSB+ TSC behind the last anchor:
					 * the trace's timestamps disagree,
					 * and time went back to this TSC's */
};

/* The time of one packet. */
struct tm_stamp {
	uint64_t tsc;		/* estimated TSC, whole ticks */
	uint32_t tsc_frac;	/* and the fraction, in 1/2^32 ticks */
	uint32_t flags;		/* enum tm_flag */
	uint64_t cycles;	/* CYC cycles since the start of decoding; the
				 * lower bound if TM_F_BOUNDED */
	uint64_t cyc_delta;	/* CYC: its payload; an exact packet: the
				 * CYCs applied to it (standalone ones
				 * summed); else 0 */
	uint64_t ns;		/* wall clock: perf time or TSC/Hz (TM_F_NS) */
	uint32_t khz;		/* core frequency measured over the last
				 * MTC/TSC period, kHz (TM_F_FREQ) */
	uint16_t lost_mtc;	/* MTC: how many were dropped before it */
	uint8_t cbr;		/* the last core:bus ratio, 0 if none */
};

/*
 * What must carry across a PSB so that decoding a segment from its PSB
 * gives the same stamps as decoding from the start: the estimate and its
 * anchors, the MTC chain, the calibration period, the CBR, the cycle
 * count.  Plain data, 104 bytes; the indexer stores one per PSB.
 */
struct tm_carry {
	uint64_t est, anchor, cyc_est;	/* whole TSC ticks */
	uint64_t ref_time, cal;		/* the crystal clock reference's, the
					 * calibration period's start */
	uint64_t ratio;		/* TSC ticks per core cycle, Q32.32, 0 none */
	uint64_t cycles;	/* cycles since the start */
	uint64_t pending;	/* cycles not yet applied to a packet */
	uint32_t est_frac, anchor_frac, cyc_est_frac;	/* 1/2^32 ticks */
	uint32_t ref_time_frac, cal_frac;
	uint32_t cyc_cal;	/* cycles since the calibration start */
	uint32_t khz;		/* the last frequency measurement */
	uint32_t state;		/* have TSC/TMA/MTC, pending CYC, sleep, ... */
	uint32_t ref_ctc;	/* the CTC's low bits at ref_time */
	uint8_t last_mtc;	/* the last MTC payload */
	uint8_t cbr;		/* the last CBR */
	uint16_t unplaced;	/* ticks of cycles since the anchor that
				 * the estimate put before it */
};

/* A time in TSC ticks with 32 fraction bits (Q32.32 over 96 bits). */
typedef unsigned __int128 tm_q;

/* The time model.  Fields are private to tm.c. */
struct tm_model {
	struct tm_config cfg;
	tm_q period;		/* one MTC period, 0 if unknown */
	tm_q est;		/* the estimate: never decreases, but to a
				 * PSB+ TSC behind the anchor (TM_F_RESYNC) */
	tm_q anchor;		/* the last wall-clock anchor */
	tm_q cyc_est;		/* the estimate at the last CYC */
	tm_q ref_time;		/* a time whose CTC is known: the last MTC's
				 * boundary, or a TSC's tick from its TMA */
	tm_q cal;		/* where the calibration period began */
	uint64_t ratio;		/* measured ticks per cycle, Q32.32, 0 none */
	uint64_t cycles;	/* cycles since the start */
	uint64_t pending;	/* cycles not yet applied to a packet */
	uint32_t cyc_cal;	/* cycles since cal (saturating) */
	uint32_t khz;		/* the last frequency measurement */
	uint32_t state;		/* TM_S_* bits, tm.c */
	uint32_t ref_ctc;	/* the CTC at ref_time: CTC[15:0] from a
				 * TMA, CTC[MTCFreq+7:0] from an MTC */
	uint8_t last_mtc;	/* the last MTC payload */
	uint8_t cbr;		/* the last CBR, 0 none */
	uint16_t unplaced;	/* ticks of the first CYC after the anchor
				 * that it counted from before the anchor
				 * (rounded up; saturating: TM_S_UNPLACED) */
	uint8_t khz_due;	/* khz is khz_cyc over khz_ticks, not yet
				 * worked out (tm.c: a division per MTC) */
	uint32_t khz_cyc;	/* the last calibration's cycles */
	tm_q khz_ticks;		/* and its ticks */
	uint64_t hz;		/* tm_tsc_hz(cfg, 1), from tm_init() */
	uint64_t hz_ns;		/* tm_tsc_hz(cfg, 0): tm_tsc_to_ns()'s, and */
	uint8_t perf_ns;	/* whether it is perf's conversion instead
				 * (both from tm_init(): asked per packet,
				 * a stamp's cost was mostly asking them) */
	/* next_mtc()'s last answer, valid while cap_ok is 1 (2: it is the
	 * anchor plus a period; not carried: a pure function of the fields
	 * above and cfg) */
	tm_q cap;
	uint8_t cap_ok;
	/* the last clean period measured (not carried: tm_last_period()) */
	uint64_t nper;		/* periods measured so far */
	tm_q per_ticks;		/* the last one's length */
	uint32_t per_cyc;	/* and its CYC cycles */
	/* the last sleep an anchor closed (not carried: tm_last_halt()) */
	uint64_t nhalt;		/* sleeps closed so far */
	uint64_t halt_lo, halt_hi;	/* its halted time, whole ticks */
	/* the last TSC went back or left a stretch that did (not carried:
	 * tm_tsc_jumped()) */
	uint8_t tsc_jumped;
};

/* A clean period between two anchors (MTC to the next MTC, or TSC to TSC
 * where no MTCs come), the kind that calibrates: its CYC cycles over its
 * TSC ticks is the core's speed in it.  Periods holding a sleep, a stop,
 * a CBR change or lost data are not measured, nor those whose cycles a
 * cycle threshold may have shifted by more than 1/256 (tm.h's top): such
 * a period goes on, so one may span several MTC periods. */
struct tm_period {
	uint64_t seq;		/* how many were measured before, this one
				 * included (0: none yet) */
	uint64_t ticks;		/* its length, whole TSC ticks */
	uint32_t ticks_frac;	/* and the fraction, 1/2^32 ticks */
	uint32_t cycles;	/* its CYC cycles (0: the core did not run,
				 * or no CYC came) */
};

/* Set up @tm for a stream recorded with @cfg (copied; NULL = nothing
 * known).  The model starts with no time: the first TSC sets it. */
void tm_init(struct tm_model *tm, const struct tm_config *cfg);

/* Apply packet @pkt and describe its time in @st.  Packets must come in
 * stream order; decode errors are not packets (skip them, and call
 * tm_gap() if bytes were lost).
 * Returns 0, or -pte_invalid if an argument is NULL. */
int tm_step(struct tm_model *tm, const struct pkt *pkt, struct tm_stamp *st);

/* Apply packet @pkt as tm_step() does, without describing its time: for
 * passes that need only the state at the end (the index's time pass). */
void tm_advance(struct tm_model *tm, const struct pkt *pkt);

/* Apply, after a CYC fed to tm_advance() (or where tm_cyc_joins()
 * says yes), @n more CYC packets whose payloads add up to @sum, with
 * nothing between them but packets that tm_advance() only lets settle a
 * pending CYC; @settled: one of those came (and would settle), after which
 * came the last @tail_n CYCs, adding up to @tail.  The state is what
 * feeding them one by one gives (for the index's time pass: a
 * CYC-accurate trace is half CYCs). */
void tm_advance_cycs(struct tm_model *tm, uint64_t sum, uint64_t n,
		     int settled, uint64_t tail, uint64_t tail_n);

/* Whether a CYC fed now would count from the estimate, as the CYCs
 * tm_advance_cycs() takes do (the estimate is the last CYC's time, and
 * outside PSB+): then it may be the first of those, given to
 * tm_cyc_open() as it opens their run.
 * Returns 1 or 0. */
int tm_cyc_joins(const struct tm_model *tm);

/* The CYC of @v cycles that opens a run of CYCs for tm_advance_cycs()
 * (where tm_cyc_joins()): the model takes its payload as tm_advance()
 * would (the first of a calibration period bounds a cycle threshold). */
void tm_cyc_open(struct tm_model *tm, uint64_t v);

/* Tell @tm that trace data was lost (a gap between spans): behaves like an
 * overflow.  */
void tm_gap(struct tm_model *tm);

/* The state to store at a PSB: call it before feeding the PSB. */
void tm_save(const struct tm_model *tm, struct tm_carry *carry);

/* Resume from @carry (saved at a PSB by tm_save() on a model with the
 * same configuration), then feed packets from that PSB. */
void tm_restore(struct tm_model *tm, const struct tm_carry *carry);

/* The estimate after the last packet fed, in whole TSC ticks.
 * Returns 0 and sets *@tsc, or -pte_no_time before the first TSC. */
int tm_now(const struct tm_model *tm, uint64_t *tsc);

/* The last clean period @tm measured, into @out (seq 0 if none): a
 * caller sees a new one when seq changes after a packet.  Only periods
 * after a CYC was seen count (cycle-accurate tracing).  Inline, as is
 * tm_period_cmp(): the index's time pass asks after every MTC.
 * Returns 0, or -pte_invalid for a NULL argument. */
static inline int tm_last_period(const struct tm_model *tm,
				 struct tm_period *out)
{
	if (!tm || !out)
		return -pte_invalid;
	out->seq = tm->nper;
	out->ticks = tm->nper ? (uint64_t)(tm->per_ticks >> 32) : 0;
	out->ticks_frac = tm->nper ? (uint32_t)tm->per_ticks : 0;
	out->cycles = tm->nper ? tm->per_cyc : 0;
	return 0;
}

/* The halted time of the last sleep @tm closed, in whole TSC ticks: a
 * sleep (PWRE, EXSTOP .. PWRX) is closed by the first anchor (TSC or MTC)
 * after its PWRX, and the core was halted for at most *@hi ticks, the
 * estimate's move from before the anchor to it, and at least *@lo: that
 * move less the span the EXSTOP's time was extrapolated over from the
 * anchor before it (CYC cycles times the ratio, which may be off by as
 * much), where a CYC settled at the EXSTOP and none came after the PWRX;
 * 0 where one did, or no ratio placed the cycles before the EXSTOP (time
 * held: its time is unknown).  Equal only where the EXSTOP's time is an
 * anchor's (no cycle ran between).
 * Returns how many sleeps it closed so far (0: none; *@lo and *@hi are
 * then 0): a caller sees a new one when the count changes. */
static inline uint64_t tm_last_halt(const struct tm_model *tm, uint64_t *lo,
				    uint64_t *hi)
{
	*lo = tm->nhalt ? tm->halt_lo : 0;
	*hi = tm->nhalt ? tm->halt_hi : 0;
	return tm->nhalt;
}

/* Whether the last TSC @tm took re-synchronised time (TM_F_RESYNC) or
 * came after one, up to the next PSB+ TSC: the time before it and its
 * own may belong to stretches that disagree, so the time between
 * measures nothing (the index takes no gap across it).  Only meaningful
 * right after a TSC.  Returns 1 or 0. */
static inline int tm_tsc_jumped(const struct tm_model *tm)
{
	return tm->tsc_jumped;
}

/* The core frequency of period @p in kHz with the TSC frequency of @cfg
 * (or P1's estimate when @estimate is set).  Returns 0 if unknown. */
uint32_t tm_period_khz(const struct tm_config *cfg, const struct tm_period *p,
		       int estimate);

/* Compare the speed of periods @a and @b (cycles per tick): < 0 if @a is
 * slower, > 0 if faster, 0 if the same. */
static inline int tm_period_cmp(const struct tm_period *a,
				const struct tm_period *b)
{
	tm_q ta = ((tm_q)a->ticks << 32) | a->ticks_frac;
	tm_q tb = ((tm_q)b->ticks << 32) | b->ticks_frac;
	tm_q x, y;

	/* cycles / ticks, cross-multiplied: 32 x 96 bits fits 128; where
	 * the ticks fit 64 bits, one multiply each */
	if (!(ta >> 64) && !(tb >> 64)) {
		x = (tm_q)a->cycles * (uint64_t)tb;
		y = (tm_q)b->cycles * (uint64_t)ta;
	} else {
		x = (tm_q)a->cycles * tb;
		y = (tm_q)b->cycles * ta;
	}
	return x < y ? -1 : x > y;
}

/* Convert TSC @tsc to wall-clock nanoseconds with @cfg: perf's
 * time_zero + tsc * time_mult >> time_shift when known, else
 * tsc * 1e9 / TSC Hz (given, or crystal Hz * EBX / EAX): the source
 * tm_config_tsc_source() names, whose Hz tm_tsc_hz() gives.
 * Returns 0 and sets *@ns, or -pte_no_time if @cfg has neither. */
int tm_tsc_to_ns(const struct tm_config *cfg, uint64_t tsc, uint64_t *ns);

/* Whether @cfg places MTCs on the crystal clock (an MTC frequency of at
 * most 15 and CPUID 0x15's ratio): then MTCs are timing packets, as TSCs
 * are (the model's CTC periods, the gaps between timing packets).
 * Returns 1 or 0 (0 for a NULL @cfg). */
int tm_mtc_timed(const struct tm_config *cfg);

/* The TSC frequency in Hz known from @cfg, from tm_config_tsc_source()
 * in its order (the one tm_tsc_to_ns() times with): perf's conversion
 * (1e9 * 2^time_shift / time_mult, to the nearest Hz), --tsc-freq,
 * CPUID.15H, or an estimate from P1 (nom-freq * 100 MHz) when @estimate
 * is set.  Returns 0 if unknown. */
uint64_t tm_tsc_hz(const struct tm_config *cfg, int estimate);

#endif /* TM_H */
