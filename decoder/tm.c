/*
 * tm -- the time model (see tm.h for how the estimate works).
 */
#include <string.h>

#include "tm.h"

/* struct tm_model.state bits. */
enum {
	TM_S_TSC = 1 << 0,	/* a TSC was seen */
	TM_S_REF_TMA = 1 << 1,	/* the reference is a TSC's tick from its TMA */
	TM_S_MTC = 1 << 2,	/* the anchor is an MTC's */
	TM_S_PEND = 1 << 3,	/* a CYC awaits its CYC-eligible packet */
	TM_S_CYC = 1 << 4,	/* a CYC was seen */
	TM_S_SLEEP = 1 << 5,	/* between PWRE and PWRX */
	TM_S_TAINT = 1 << 6,	/* this calibration period can't calibrate */
	TM_S_CTC_OK = 1 << 7,	/* mtc-freq and cpuid-0x15 are known */
	TM_S_CYC_EST = 1 << 8,	/* cyc_est holds the last CYC's time */
	TM_S_SLEPT = 1 << 9,	/* a sleep or stop since the last MTC */
	TM_S_MTC_EARLY = 1 << 10, /* last_mtc: an untied MTC between the TSC
				   * and its TMA, placed when the TMA comes */
	TM_S_TMA_DUE = 1 << 11,	/* a TSC came; its TMA may still come */
	TM_S_LOST = 1 << 12,	/* data was lost since the last TSC */
	TM_S_PSBP = 1 << 13,	/* inside PSB+: status only */
	TM_S_REF = 1 << 14,	/* ref_time and ref_ctc tie a time to the
				 * crystal clock */
	TM_S_REF_EST = 1 << 15,	/* ... only as an estimate: nothing tied it */
	TM_S_CAL_MTC = 1 << 16,	/* the calibration period began at an MTC */
	TM_S_CAL = 1 << 17,	/* cal holds the period's start */
	TM_S_TSC_SINCE = 1 << 18, /* a TSC came since the reference */
	TM_S_WOKE = 1 << 19,	/* a PWRX since the last anchor, no CYC since */
	TM_S_WOKE_CYC = 1 << 20, /* a PWRX since the last anchor, then CYCs */
	TM_S_STOP_EXACT = 1 << 21, /* the sleep's EXSTOP settled a CYC: its
				    * time is the estimate's */
	TM_S_RESYNCED = 1 << 22, /* time went back at the last PSB+ TSC
				  * (TM_F_RESYNC) */
	TM_S_DISPUTED = 1 << 23, /* a TSC outside PSB+ went back since the
				  * last PSB+ TSC (held: the next decides) */
	TM_S_UNPLACED = 1 << 24, /* cycles since the last anchor that the
				  * estimate did not place: no ratio (time
				  * held), or more before it than
				  * struct tm_model.unplaced holds */
	TM_S_CAL_TIED = 1 << 25, /* the calibration period began in a
				  * CYC's cycle (it settled one) */
	TM_S_LAG_WANT = 1 << 26, /* the next CYC's payload bounds the cycle
				  * threshold (cyc_hidden()) */
};

/* Bits 27..30 of struct tm_model.state: 0 none yet, else 1 + the least
 * floor(log2(payload)) of the CYCs sampled (at most 14): every CYC counts
 * at least the threshold's cycles, so it bounds the threshold. */
#define TM_S_LG_SHIFT 27
#define TM_S_LG_MASK (15u << TM_S_LG_SHIFT)
/* The calibration period goes on past an anchor at which a threshold's
 * hidden cycles made it too short to measure (calibrate()). */
#define TM_S_CAL_EXT (1u << 31)

#define Q_ONE ((tm_q)1 << 32)
/* The latest time a stamp can show: 2^64 - 1 ticks. */
#define Q_MAX (((tm_q)UINT64_MAX << 32) | UINT32_MAX)
/* A measured ratio above this many ticks per cycle (a core under ~10 MHz
 * against a GHz TSC) is a stall or damage, not a clock. */
#define RATIO_MAX ((tm_q)1024 << 32)

/* Cycles a period may end with that no CYC reported yet: a CYC waits for
 * a CYC-eligible packet and, with a CycThresh, for 2^(CycThresh - 1)
 * cycles, at most 2^14 (SDM 36.2.7.2, 36.3.6). */
#define CYC_LAG ((uint64_t)1 << 14)
/* A calibration period's cycles are known within the cycles a threshold
 * may hide at an end not in a CYC's cycle; it calibrates only where they
 * are at most 1/LAG_SHARE of its cycles (the MHz shown to a tenth in
 * the thousands), else goes on. */
#define LAG_SHARE 256u
/* On-demand clock modulation runs the core clock down to a 6.25% duty
 * cycle, 1/16 of its rate (SDM 14.7.3.1). */
#define MOD_SLOWEST 16u

/* @a + @b, saturated: 2^64 cycles is damage, but must not wrap. */
static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* @t, saturated at the latest showable time. */
static tm_q sat(tm_q t)
{
	return t > Q_MAX ? Q_MAX : t;
}

/* @a / @b, in 64 bits where both fit: libgcc's 128-bit division is a
 * call and a loop, paid per MTC. */
static inline tm_q q_div(tm_q a, tm_q b)
{
	if (!(a >> 64) && !(b >> 64))
		return (uint64_t)a / (uint64_t)b;
	return a / b;
}

/* TSC ticks of @ctc crystal clock ticks, Q32.32: (ctc * EBX << 32) / EAX.
 * Where ctc * EBX fits 64 bits (n = q * EAX + r, r < EAX < 2^32) it is
 * q << 32 plus (r << 32) / EAX, two 64-bit divisions and the same
 * floor. */
static tm_q ctc_ticks(const struct tm_model *tm, uint64_t ctc)
{
	uint32_t eax = tm->cfg.cpuid_15_eax, ebx = tm->cfg.cpuid_15_ebx;
	uint64_t n;

	if (ctc >> 32)
		return ((tm_q)ctc * ebx << 32) / eax;
	n = ctc * ebx;
	return ((tm_q)(n / eax) << 32) + ((n % eax) << 32) / eax;
}

/* ctc_ticks(@ctc), from the MTC period where @ctc is one. */
static inline tm_q ctc_ticks_p(const struct tm_model *tm, uint64_t ctc)
{
	if (ctc == 1ull << tm->cfg.mtc_freq)
		return tm->period;
	return ctc_ticks(tm, ctc);
}

/* FastCounter @fc in ticks, at most the anchor (damaged input). */
static tm_q fc_ticks(const struct tm_model *tm, uint16_t fc)
{
	tm_q t = (tm_q)fc << 32;

	return t < tm->anchor ? t : tm->anchor;
}

int tm_mtc_timed(const struct tm_config *cfg)
{
	return cfg && cfg->have_mtc_freq && cfg->mtc_freq <= 15 && cfg->have_cpuid_15 &&
	       cfg->cpuid_15_eax && cfg->cpuid_15_ebx;
}

void tm_init(struct tm_model *tm, const struct tm_config *cfg)
{
	if (!tm)
		return;
	memset(tm, 0, sizeof(*tm));
	if (cfg)
		tm->cfg = *cfg;
	if (tm_mtc_timed(&tm->cfg)) {
		tm->state |= TM_S_CTC_OK;
		tm->period = ctc_ticks(tm, 1ull << tm->cfg.mtc_freq);
	}
	tm->hz = tm_tsc_hz(&tm->cfg, 1);
	tm->hz_ns = tm_tsc_hz(&tm->cfg, 0);
	tm->perf_ns = tm_config_tsc_source(&tm->cfg) == TM_HZ_PERF;
}

/* The frequency calibrate() measured last over @cyc cycles in @ticks:
 * computed when asked (a stamp or a carry), not per MTC. */
static uint32_t khz_of(uint64_t hz, uint32_t cyc, tm_q ticks)
{
	tm_q khz;

	/* Over the ticks with their fraction: a period is a few hundred
	 * ticks, so a whole tick is a few MHz. */
	khz = ((tm_q)cyc * hz << 32) / ticks / 1000;
	return khz > UINT32_MAX ? UINT32_MAX : (uint32_t)khz;
}

/* The last frequency measurement (struct tm_carry.khz). */
static uint32_t cur_khz(const struct tm_model *tm)
{
	return tm->khz_due ? khz_of(tm->hz, tm->khz_cyc, tm->khz_ticks) :
			     tm->khz;
}

/* Ticks per core cycle (Q32.32) to use now: measured, else P1/CBR. */
static uint64_t cur_ratio(const struct tm_model *tm)
{
	if (tm->ratio)
		return tm->ratio;
	if (tm->cfg.have_nom_freq && tm->cfg.nom_freq && tm->cbr)
		return ((uint64_t)tm->cfg.nom_freq << 32) / tm->cbr;
	return 0;
}

/* The TSC frequency perf's conversion stands for: a tick is
 * time_mult / 2^time_shift ns, so 1e9 * 2^time_shift / time_mult Hz,
 * rounded to the nearest Hz (1e9 << 63 fits 128 bits). */
static uint64_t perf_hz(const struct tm_config *cfg)
{
	unsigned __int128 hz = ((unsigned __int128)1000000000u << cfg->time_shift) +
			       cfg->time_mult / 2;

	hz /= cfg->time_mult;
	return hz > UINT64_MAX ? UINT64_MAX : (uint64_t)hz;
}

uint64_t tm_tsc_hz(const struct tm_config *cfg, int estimate)
{
	/* One order for every conversion, tm_config_tsc_source()'s (the man
	 * page's): a perf.data's TIME_CONV first, as tm_tsc_to_ns() times
	 * the packets with it.  CPUID.15H first gave the frequencies and
	 * the time targets another clock than the times shown. */
	switch (tm_config_tsc_source(cfg)) {
	case TM_HZ_PERF:
		return perf_hz(cfg);
	case TM_HZ_GIVEN:
		return cfg->tsc_hz;
	case TM_HZ_CPUID:
	case TM_HZ_MODEL:
		return (uint64_t)cfg->crystal_hz * cfg->cpuid_15_ebx /
		       cfg->cpuid_15_eax;
	case TM_HZ_P1:
		/* The TSC ticks at about P1 times the 100 MHz bus clock. */
		return estimate ? (uint64_t)cfg->nom_freq * 100000000ull : 0;
	default:
		return 0;
	}
}

int tm_now(const struct tm_model *tm, uint64_t *tsc)
{
	if (!tm || !tsc)
		return -pte_invalid;
	if (!(tm->state & TM_S_TSC))
		return -pte_no_time;
	*tsc = (uint64_t)(tm->est >> 32);
	return 0;
}

/* perf's tsc_to_perf_time(), split to avoid overflow. */
static uint64_t perf_ns(const struct tm_config *cfg, uint64_t tsc)
{
	uint64_t quot = tsc >> cfg->time_shift;
	uint64_t rem = tsc & ((1ull << cfg->time_shift) - 1);

	return cfg->time_zero + quot * cfg->time_mult +
	       ((rem * cfg->time_mult) >> cfg->time_shift);
}

/* floor(@tsc * 10^9 / @hz), @hz > 0: with two 64-bit divisions where
 * the remainder's product fits (any TSC below 18 GHz), the same value
 * as the 128-bit one, which costs a library call. */
static uint64_t hz_ns(uint64_t tsc, uint64_t hz)
{
	if (hz <= UINT64_MAX / 1000000000u)
		return tsc / hz * 1000000000u + tsc % hz * 1000000000u / hz;
	return (uint64_t)((unsigned __int128)tsc * 1000000000u / hz);
}

int tm_tsc_to_ns(const struct tm_config *cfg, uint64_t tsc, uint64_t *ns)
{
	uint64_t hz;

	if (!cfg || !ns)
		return -pte_invalid;
	if (tm_config_tsc_source(cfg) == TM_HZ_PERF) {
		*ns = perf_ns(cfg, tsc);
		return 0;
	}
	hz = tm_tsc_hz(cfg, 0);
	if (!hz)
		return -pte_no_time;
	*ns = hz_ns(tsc, hz);
	return 0;
}

/* Move the estimate to anchor @t; flag @st if the estimate was ahead. */
static void set_anchor(struct tm_model *tm, tm_q t, struct tm_stamp *st)
{
	t = sat(t);
	tm->anchor = t;
	tm->cap_ok = 0;
	/* Less than a tick behind is rounding, not news. */
	if (t + Q_ONE <= tm->est)
		st->flags |= TM_F_CLAMPED;
	if (t > tm->est)
		tm->est = t;
}

/* Start a calibration period at @t, at an MTC if @mtc (else a TSC). */
/* Whether @state has a CYC awaiting the packet that comes now, which is
 * then in its cycle (outside PSB+, status only). */
static inline int cyc_tied(uint32_t state)
{
	return (state & (TM_S_PEND | TM_S_PSBP)) == TM_S_PEND;
}

/* Start a calibration period at @t, at an MTC if @mtc (else a TSC). */
static void cal_start(struct tm_model *tm, tm_q t, int mtc)
{
	tm->cal = sat(t);
	tm->cyc_cal = 0;
	tm->state &= ~(TM_S_TAINT | TM_S_CAL_MTC | TM_S_CAL_TIED | TM_S_CAL_EXT);
	tm->state |= TM_S_CAL | TM_S_LAG_WANT | (mtc ? TM_S_CAL_MTC : 0) |
		     (cyc_tied(tm->state) ? TM_S_CAL_TIED : 0);
	if (tm->state & TM_S_SLEEP)
		tm->state |= TM_S_TAINT;
}

/*
 * The most cycles a CYC threshold may leave unreported at a packet not in
 * a CYC's cycle (SDM 36.3.6.3): with CycThresh T a CYC comes only after
 * 2^(T-1) cycles, so up to one less hide there, and a period's CYCs may
 * hold those of the period before or leave its own to the next.  Known
 * where the configuration has the threshold (perf.data); and every CYC
 * counts at least the threshold's cycles, so the least payload sampled
 * bounds it (a power of two: the bound settles soon, as the index's
 * parallel time pass needs).  None sampled yet: the largest threshold.
 */
static uint64_t cyc_hidden(const struct tm_model *tm)
{
	unsigned f = (tm->state & TM_S_LG_MASK) >> TM_S_LG_SHIFT;
	uint64_t l = f ? 1ull << (f - 1) : CYC_LAG;

	if (tm->cfg.have_cyc_thresh) {
		unsigned th = tm->cfg.cyc_thresh > 15 ? 15 : tm->cfg.cyc_thresh;
		uint64_t c = th ? 1ull << (th - 1) : 1;

		if (c < l)
			l = c;
	}
	return l - 1;
}

/* CYC @v sampled for cyc_hidden(). */
static void cyc_sample(struct tm_model *tm, uint64_t v)
{
	unsigned k = v > 1 ? 63u - (unsigned)__builtin_clzll(v) : 0;
	unsigned f = (tm->state & TM_S_LG_MASK) >> TM_S_LG_SHIFT;

	k = k > 14 ? 15 : k + 1;
	if (!f || k < f)
		tm->state = (tm->state & ~TM_S_LG_MASK) | (uint32_t)k << TM_S_LG_SHIFT;
	tm->state &= ~(uint32_t)TM_S_LAG_WANT;
}

/* Calibrate over the period from cal to @t, which is in a CYC's cycle if
 * @tied: its cycles over its ticks.  Not where a cycle threshold may
 * have hidden more than 1/LAG_SHARE of them at an end (cyc_hidden()):
 * such a period is no measurement, not even a stall (its cycles may all
 * be in a CYC to come), but goes on to the next anchor (cal_go_on()).
 * Returns 1 for that, else 0. */
static int calibrate(struct tm_model *tm, tm_q t, int tied)
{
	tm_q ticks, ratio;
	uint64_t lag;

	if (!(tm->state & TM_S_CAL) || (tm->state & TM_S_TAINT) ||
	    tm->cyc_cal == UINT32_MAX || t < tm->cal + Q_ONE)
		return 0;
	lag = tied && (tm->state & TM_S_CAL_TIED) ? 0 : cyc_hidden(tm);
	if (lag && lag * LAG_SHARE > tm->cyc_cal)
		return 1;
	ticks = t - tm->cal;
	/* A clean period, measured even where it cannot calibrate (no
	 * cycles, or too few to be a clock): those are the stalls. */
	if (tm->state & TM_S_CYC) {
		tm->nper++;
		tm->per_ticks = ticks;
		tm->per_cyc = tm->cyc_cal;
	}
	if (!tm->cyc_cal)
		return 0;
	ratio = q_div(ticks, tm->cyc_cal);
	if (ratio > RATIO_MAX)
		return 0;
	tm->ratio = ratio ? (uint64_t)ratio : 1;
	if (tm->hz) {
		tm->khz_due = 1;
		tm->khz_cyc = tm->cyc_cal;
		tm->khz_ticks = ticks;
	}
	return 0;
}

/* The calibration period calibrate() found too short goes on past this
 * anchor, one not in a CYC's cycle (from one that is, none hidden, a new
 * period starts); a sleep from here on spoils it, as in cal_start(). */
static void cal_go_on(struct tm_model *tm)
{
	tm->state |= TM_S_CAL_EXT | TM_S_LAG_WANT;
	if (tm->state & TM_S_SLEEP)
		tm->state |= TM_S_TAINT;
}

/* The earliest time the next MTC can have: the next CTC boundary after
 * the reference (the TMA's CTC, or the last MTC), past a TSC since (SDM
 * 36.4.2.12, 36.8.3).  Nothing before that MTC can be later.  0 if
 * unknown. */
static tm_q next_mtc(const struct tm_model *tm)
{
	unsigned freq = tm->cfg.mtc_freq;
	uint32_t low;
	tm_q t;

	if (!tm->period || !(tm->state & TM_S_REF))
		return 0;
	low = tm->ref_ctc & ((1u << freq) - 1);
	t = tm->ref_time + ctc_ticks_p(tm, (1ull << freq) - low);
	if (t <= tm->anchor) {
		uint64_t k = (uint64_t)q_div(tm->anchor - t, tm->period) + 1;

		t += ctc_ticks(tm, k << freq);
		if (t <= tm->anchor)
			t += tm->period;
	}
	return sat(t);
}

/* next_mtc(), remembered: CYCs come in thousands between anchors, and
 * each would pay two 128-bit divisions.  Whatever writes what it is
 * computed from (the anchor, ref_time, ref_ctc, TM_S_REF) clears cap_ok:
 * set_anchor(), on_tma(), place_mtc(), tm_restore(); mtc_steady() sets
 * it to 2: one period past the anchor. */
static inline tm_q next_mtc_cached(struct tm_model *tm)
{
	if (tm->cap_ok != 1) {
		tm->cap = tm->cap_ok ? sat(tm->anchor + tm->period) :
				       next_mtc(tm);
		tm->cap_ok = 1;
	}
	return tm->cap;
}

/* A CYC right before an anchor was sent in its cycle (the anchor is
 * CYC-eligible): the next CYC counts from the anchor's time. */
static void tie_pending_cyc(struct tm_model *tm)
{
	if (tm->state & TM_S_PEND) {
		tm->cyc_est = tm->est;
		tm->state |= TM_S_CYC_EST;
	}
}

/*
 * At an anchor (called after it is set, with the estimate @e0 and the
 * anchor @a0 held before): the first anchor after a sleep's PWRX closes
 * it.  The core stopped (EXSTOP) at or after @e0 by the estimate and woke
 * (PWRX) at or before the anchor, so the halted time is at most the
 * estimate's move.  It is all of it only where the EXSTOP's time was an
 * anchor's: a CYC settled there (its cycle is the EXSTOP's), no cycle
 * ran since @a0 (@e0 is @a0's time) and none after the PWRX.  Where
 * cycles since @a0 moved the estimate, the EXSTOP's time is their
 * extrapolation by the ratio, @e0 - @a0 from @a0, and may lie up to that
 * much later, and more by the part of the first CYC's cycles that the
 * estimate put before @a0 (it counts from the CYC before, unplaced):
 * at least the move less that span.  Where they did not (no ratio: time
 * held at @a0) or CYCs came after the PWRX, at least 0.
 * Only carried state decides, so a decode from any PSB agrees with one
 * from the start.
 */
static void halt_close(struct tm_model *tm, tm_q e0, tm_q a0)
{
	uint32_t st = tm->state;
	uint64_t hi, span, unplaced = tm->unplaced;

	tm->state &= ~(uint32_t)TM_S_UNPLACED;
	tm->unplaced = 0;
	if (!(st & (TM_S_WOKE | TM_S_WOKE_CYC)))
		return;
	hi = (uint64_t)(tm->est >> 32) - (uint64_t)(e0 >> 32);
	tm->nhalt++;
	tm->halt_hi = hi;
	tm->halt_lo = 0;
	if ((st & (TM_S_WOKE | TM_S_STOP_EXACT | TM_S_UNPLACED)) ==
	    (TM_S_WOKE | TM_S_STOP_EXACT)) {
		/* the extrapolated span, whole ticks rounded up (the
		 * estimate never falls below the anchor) */
		span = e0 > a0 ? (uint64_t)((e0 - a0 + Q_ONE - 1) >> 32) : 0;
		span += unplaced;
		tm->halt_lo = hi > span ? hi - span : 0;
	}
	tm->state &= ~(uint32_t)(TM_S_WOKE | TM_S_WOKE_CYC | TM_S_STOP_EXACT);
}

/*
 * How many low CTC bits the crystal clock reference knows: an MTC's
 * payload is CTC[MTCFreq+7:MTCFreq] (SDM 36.4.2.12), so one MTC's CTC
 * follows the last's modulo 2^(MTCFreq+8); a TMA's is CTC[15:0], so the
 * first MTC after it follows it modulo 2^16 where MTCFreq+8 is more
 * (MTCFreq 9 and up).
 */
static unsigned ref_bits(const struct tm_model *tm)
{
	unsigned bits = tm->cfg.mtc_freq + 8u;

	return (tm->state & TM_S_REF_TMA) && bits > 16 ? 16 : bits;
}

/* A wrap of the CTC bits the reference knows, in ticks. */
static tm_q ctc_wrap(const struct tm_model *tm)
{
	return ctc_ticks(tm, 1ull << ref_bits(tm));
}

/*
 * A PSB+ TSC a tick or more behind the last anchor: the trace contradicts
 * itself (time it stated went back), and the PSB+ is where it
 * re-synchronises (SDM 36.3.7), so trust it: time restarts at @t, even
 * backwards.  Nothing measured across the jump holds: the calibration
 * period restarts here, the crystal clock's reference waits for the TMA
 * that follows, a sleep being closed gets no halted time (the estimate's
 * move is not its length) and the next CYC counts from @t, as after a
 * loss.  Only carried state decides, so a decode from the start and one
 * from a later PSB meet again after the next PSB+.
 */
static void resync(struct tm_model *tm, tm_q t, struct tm_stamp *st)
{
	t = sat(t);
	st->flags |= TM_F_RESYNC;
	tm->est = t;
	tm->anchor = t;
	tm->cap_ok = 0;
	cal_start(tm, t, 0);
	tm->state &= ~(uint32_t)(TM_S_REF | TM_S_REF_TMA | TM_S_REF_EST |
				 TM_S_CYC_EST | TM_S_WOKE | TM_S_WOKE_CYC |
				 TM_S_STOP_EXACT | TM_S_MTC | TM_S_MTC_EARLY |
				 TM_S_LOST | TM_S_UNPLACED);
	tm->state |= TM_S_TMA_DUE | TM_S_TSC_SINCE | TM_S_RESYNCED;
	tm->unplaced = 0;
}

/*
 * Whether the TSC-to-TSC period from cal to the PSB+ TSC @t can be one the
 * core ran through.  Every event that stops the core clock or the timing
 * packets (a C-state, a P-state change, clock modulation) is followed by
 * a TSC of its own (SDM 36.4.2.11), which ends the period there: one that
 * ends at a PSB+ TSC holds no stop, and the core clock ran all through it
 * at CBR times the 100 MHz bus clock (the CBR packet's ratio), at least a
 * sixteenth of that under clock modulation.  Its cycles (with those the
 * last CYC had not yet reported) far fewer than that are no clean period:
 * either a TSC is damaged (a far-future PSB+ TSC, which the next PSB+ TSC
 * will contradict, too late: the period is reported where it ends) or
 * tracing was off in it (TraceEn cleared resets the cycle counter, SDM
 * 36.3.6.1, and a driver that resets the byte count on enabling makes
 * the next PSB+).  Without a CBR or a TSC frequency, a core under
 * RATIO_MAX is neither.  Only carried state decides.  Returns 1 or 0.
 */
static int psb_period_ran(const struct tm_model *tm, tm_q t)
{
	uint64_t ticks, cyc = (uint64_t)tm->cyc_cal + CYC_LAG;

	if (t <= tm->cal)
		return 1;
	ticks = (uint64_t)((t - tm->cal) >> 32);
	/* ticks per cycle at most MOD_SLOWEST * TSC Hz / (CBR * 100 MHz);
	 * 2^64 * 2^8 * 2^27 and 2^33 * 2^4 * 2^64 fit 128 bits */
	if (tm->cbr && tm->hz)
		return (tm_q)ticks * tm->cbr * 100000000u <=
		       (tm_q)cyc * MOD_SLOWEST * tm->hz;
	return (tm_q)ticks <= (cyc * RATIO_MAX) >> 32;
}

static void on_tsc(struct tm_model *tm, const struct pkt *pkt, struct tm_stamp *st)
{
	tm_q t = (tm_q)pkt->u.tsc << 32, e0 = tm->est, a0 = tm->anchor;
	int back = (tm->state & TM_S_TSC) && t + Q_ONE <= tm->anchor;
	int leave = 0, ext = 0;
	/* An MTC's time is its CTC boundary as the reference places it:
	 * real traces show a PSB+ TSC some ticks behind an MTC of the same
	 * PSB+.  Less than an MTC period behind is that, not damage. */
	int near_mtc = (tm->state & TM_S_MTC) && t + tm->period > tm->anchor;

	tm->tsc_jumped = 0;
	if (back)
		st->flags |= TM_F_TSC_BACK;
	if (near_mtc)
		back = 0;
	/* Only a PSB+ re-synchronises: a TSC elsewhere (after a TraceEn, a
	 * frequency change) restates nothing else, so a lone bad one is
	 * held against the time before it, and the next PSB+ settles which
	 * was wrong: if it is behind the estimate too, the time before. */
	if (!(tm->state & TM_S_PSBP)) {
		if (back)
			tm->state |= TM_S_DISPUTED;
	} else {
		/* Behind the estimate, as the held TSC was: it sides with
		 * that one.  Not where the estimate is an MTC's time (CYCs
		 * run it at most to the next MTC's, a period on) and this
		 * TSC less than a period behind that MTC, as above. */
		if ((tm->state & TM_S_DISPUTED) && t + Q_ONE <= tm->est &&
		    !(near_mtc && tm->est <= tm->anchor + tm->period))
			back = 1;
		tm->state &= ~(uint32_t)TM_S_DISPUTED;
		if (back) {
			resync(tm, t, st);
			tm->tsc_jumped = 1;
			return;
		}
		if (tm->state & TM_S_RESYNCED) {
			leave = 1;
			tm->state &= ~(uint32_t)TM_S_RESYNCED;
		}
	}
	/* The stretch time went back to may be the damage (a TSC far in the
	 * past) or what follows it: no period, sleep or gap is measured
	 * across a TSC in it, nor across the next PSB+ TSC, which leaves it
	 * (forwards, as usual). */
	if (leave || (tm->state & TM_S_RESYNCED)) {
		leave = 1;
		tm->tsc_jumped = 1;
		tm->state &= ~(uint32_t)(TM_S_WOKE | TM_S_WOKE_CYC |
					 TM_S_STOP_EXACT);
		/* A TSC outside PSB+ in it, before the crystal clock's
		 * reference or a wrap of the CTC past it: one of the two is
		 * damage (the reference is of the TSC time went back to),
		 * and an MTC placed from it wrapped past this TSC is wrong
		 * by up to a wrap.  MTCs wait for this TSC's TMA (or start
		 * an estimate). */
		if (!(tm->state & TM_S_PSBP) && (tm->state & TM_S_REF) &&
		    (t < tm->ref_time || t - tm->ref_time >= ctc_wrap(tm)))
			tm->state &= ~(uint32_t)(TM_S_REF | TM_S_REF_TMA |
						 TM_S_REF_EST);
	}
	/* Where nothing ties time to the crystal clock (no MTCs, no TMA),
	 * calibrate from TSC to TSC (to a PSB+ TSC, a period the core can
	 * have run through). */
	if ((tm->state & TM_S_TSC) && !(tm->state & (TM_S_CAL_MTC | TM_S_REF)) &&
	    !leave && (!(tm->state & TM_S_PSBP) || psb_period_ran(tm, t)))
		ext = calibrate(tm, t, cyc_tied(tm->state));
	/* Relative time before the first TSC counts from 0, far below any
	 * real TSC; the estimate still never decreases (a relative time
	 * beyond the TSC is damage, and is clamped and flagged). */
	if (!(tm->state & TM_S_TSC))
		tm->state &= ~TM_S_CYC_EST;
	set_anchor(tm, t, st);
	if (ext && !leave && !cyc_tied(tm->state))
		cal_go_on(tm);
	else if (!(tm->state & TM_S_CAL_MTC) || leave)
		cal_start(tm, t, 0);
	/* PSB+ is status only (SDM 36.3.7): its TSC is not the pending
	 * CYC's cycle. */
	if (!(tm->state & TM_S_PSBP))
		tie_pending_cyc(tm);
	tm->state |= TM_S_TSC | TM_S_TMA_DUE | TM_S_TSC_SINCE;
	tm->state &= ~(TM_S_MTC | TM_S_MTC_EARLY | TM_S_LOST);
	halt_close(tm, e0, a0);
}

static void place_mtc(struct tm_model *tm, uint8_t payload,
		      struct tm_stamp *st);

static void on_tma(struct tm_model *tm, const struct pkt *pkt, struct tm_stamp *st)
{
	if (!(tm->state & TM_S_CTC_OK)) {
		st->flags |= TM_F_NO_CONFIG;
		return;
	}
	/* A TMA belongs to the TSC right before it. */
	if (!(tm->state & TM_S_TMA_DUE)) {
		st->flags |= TM_F_TMA_NO_TSC;
		return;
	}
	tm->state &= ~TM_S_TMA_DUE;
	/* An MTC since the TSC was placed from a tied reference already. */
	if (tm->state & TM_S_MTC)
		return;
	/* The TSC lies FastCounter ticks past its CTC tick. */
	tm->ref_time = tm->anchor - fc_ticks(tm, pkt->u.tma.fc);
	tm->ref_ctc = pkt->u.tma.ctc;
	tm->state |= TM_S_REF | TM_S_REF_TMA;
	tm->cap_ok = 0;
	tm->state &= ~(TM_S_REF_EST | TM_S_TSC_SINCE);
	if (tm->state & TM_S_MTC_EARLY) {
		/* The MTC that came first could not be placed: now it can. */
		tm->state &= ~TM_S_MTC_EARLY;
		place_mtc(tm, tm->last_mtc, st);
	}
}

/* Whether MTC time @t, one payload after the last MTC, lies within two
 * periods of it: the last MTC's time is the reference's, where no TSC
 * and TMA came since, else the calibration period's start, where it has
 * not gone on past an MTC (else unknown: no). */
static int mtc_near(const struct tm_model *tm, tm_q t)
{
	tm_q prev;

	if (!(tm->state & TM_S_CAL_EXT))
		prev = tm->cal;
	else if (!(tm->state & TM_S_REF_TMA))
		prev = tm->ref_time;
	else
		return 0;
	return t <= prev + 2 * tm->period;
}

/* Place the MTC with @payload from the reference (the TMA's CTC, or the
 * last MTC's payload), SDM 36.4.2.12 and 36.8.3.1. */
static void place_mtc(struct tm_model *tm, uint8_t payload,
		      struct tm_stamp *st)
{
	unsigned freq = tm->cfg.mtc_freq;
	uint32_t mask = (1u << ref_bits(tm)) - 1;
	uint64_t ctc_delta = 0;
	int tied = 0, ext = 0;
	tm_q t, e0 = tm->est, a0 = tm->anchor;

	if (tm->state & TM_S_REF) {
		ctc_delta = (((uint32_t)payload << freq) - tm->ref_ctc) & mask;
		/* An MTC is only sent when its payload changes, so the same
		 * payload as the last MTC's is a full wrap (the SDM expects
		 * no more than 255 lost). */
		if (!ctc_delta && !(tm->state & TM_S_REF_TMA))
			ctc_delta = (uint64_t)mask + 1;
		t = tm->ref_time + ctc_ticks_p(tm, ctc_delta);
		if (tm->state & TM_S_TSC_SINCE) {
			/* A TSC since the reference says how often the
			 * payload wrapped: this boundary is not before the
			 * TSC's CTC tick.  MTCs missing across it may be
			 * tracing that was off, not a loss. */
			tm_q wrap = ctc_ticks(tm, (uint64_t)mask + 1);
			tm_q floor = tm->anchor - ctc_ticks(tm, 1);

			if (t < floor && wrap)
				t += (q_div(floor - t, wrap) + 1) * wrap;
		} else if (ctc_delta > (1ull << freq) &&
			   !(tm->state & TM_S_SLEPT)) {
			/* No MTCs come while the core sleeps: not a loss. */
			st->flags |= TM_F_MTC_LOST;
			st->lost_mtc = (uint16_t)((ctc_delta - 1) >> freq);
		}
		tied = !(tm->state & TM_S_REF_EST);
	} else {
		/* Nothing places this MTC on the crystal clock: where in its
		 * period tracing started is unknown, so the reference starts
		 * here, as an estimate. */
		t = tm->est;
	}
	/* Before the first TSC all time is relative (TM_F_REL) anyway. */
	if (!tied && (tm->state & TM_S_TSC))
		st->flags |= TM_F_UNTIED;
	t = sat(t);
	/* Calibrate over a clean period from the MTC before (a PSB+ or a
	 * TSC between does not matter).  Payloads one apart are one CTC
	 * period by the crystal clock: where a TSC between placed this one
	 * much further, the trace contradicts itself (a damaged TSC far in
	 * the future), and that is no period. */
	if (tied && (tm->state & TM_S_CAL_MTC) &&
	    (uint8_t)(payload - tm->last_mtc) == 1 && mtc_near(tm, t))
		ext = calibrate(tm, t, cyc_tied(tm->state));
	tm->last_mtc = payload;
	tm->ref_time = t;
	tm->ref_ctc = (uint32_t)payload << freq;
	tm->state |= TM_S_REF;
	tm->cap_ok = 0;
	tm->state &= ~(TM_S_REF_TMA | TM_S_TSC_SINCE | TM_S_REF_EST);
	if (!tied)
		tm->state |= TM_S_REF_EST;
	set_anchor(tm, t, st);
	if (ext && !cyc_tied(tm->state))
		cal_go_on(tm);
	else
		cal_start(tm, t, tied);
	tm->state |= TM_S_MTC;
	tm->state &= ~TM_S_SLEPT;
	if (tm->state & TM_S_SLEEP)
		tm->state |= TM_S_SLEPT;
	halt_close(tm, e0, a0);
}

static void on_mtc(struct tm_model *tm, uint8_t payload, struct tm_stamp *st)
{
	if (!(tm->state & TM_S_CTC_OK)) {
		st->flags |= TM_F_NO_CONFIG;
		return;
	}
	if (tm->state & TM_S_TMA_DUE) {
		/* An MTC may slip between a TSC and its TMA.  Where no tied
		 * chain places it, only the TMA can: it waits, shown at the
		 * estimate.  A second MTC: the TMA is no longer due. */
		if (tm->state & (TM_S_MTC | TM_S_MTC_EARLY)) {
			tm->state &= ~(TM_S_TMA_DUE | TM_S_MTC_EARLY);
		} else if ((tm->state & (TM_S_REF | TM_S_REF_EST)) !=
			   TM_S_REF) {
			tm->last_mtc = payload;
			tm->state |= TM_S_MTC_EARLY;
			st->flags |= TM_F_UNTIED;
			tie_pending_cyc(tm);
			return;
		}
	}
	place_mtc(tm, payload, st);
	tie_pending_cyc(tm);
}

/*
 * For halt_close(): a CYC's cycles that the estimate does not place after
 * the anchor.  Without a ratio none are.  The first CYC after an anchor
 * counts from the CYC before it (@base), so its time @t (before the
 * anchor's floor) puts part of them, or all, before the anchor: a core
 * that ran them all after it reached the next packet that much later.
 */
static void unplaced(struct tm_model *tm, uint64_t r, tm_q base, tm_q t)
{
	tm_q before;
	uint64_t ticks;

	if (!r) {
		tm->state |= TM_S_UNPLACED;
		return;
	}
	if (base >= tm->anchor)
		return;
	before = (t < tm->anchor ? t : tm->anchor) - base;
	ticks = (uint64_t)((before + Q_ONE - 1) >> 32) + tm->unplaced;
	if (ticks > UINT16_MAX)
		tm->state |= TM_S_UNPLACED;
	else
		tm->unplaced = (uint16_t)ticks;
}

static void on_cyc(struct tm_model *tm, const struct pkt *pkt, struct tm_stamp *st)
{
	uint64_t v = pkt->u.cyc, r = cur_ratio(tm);
	tm_q t, base, cap;

	tm->cycles = add_sat(tm->cycles, v);
	tm->pending = add_sat(tm->pending, v);
	tm->cyc_cal = v >= UINT32_MAX - tm->cyc_cal ? UINT32_MAX :
		      tm->cyc_cal + (uint32_t)v;
	tm->state |= TM_S_PEND | TM_S_CYC;
	if (tm->state & TM_S_WOKE)
		tm->state ^= TM_S_WOKE | TM_S_WOKE_CYC;
	st->cyc_delta = v;
	if (tm->state & TM_S_LAG_WANT)
		cyc_sample(tm, v);
	/* The first CYC (after a loss) has no known start: count from the
	 * anchor, as libipt does. */
	base = (tm->state & TM_S_CYC_EST) ? tm->cyc_est : tm->anchor;
	if (!r) {
		st->flags |= TM_F_UNCAL;
		t = base;
	} else {
		t = sat(base + (tm_q)v * r);
	}
	if (v)
		unplaced(tm, r, base, t);
	/* Not before the last anchor, and not past the next MTC. */
	if (t < tm->anchor)
		t = tm->anchor;
	cap = next_mtc_cached(tm);
	if (cap && t > cap)
		t = cap > tm->anchor ? cap : tm->anchor;
	if (t > tm->est)
		tm->est = t;
	tm->cyc_est = tm->est;
	tm->state |= TM_S_CYC_EST;
}

static void on_cbr(struct tm_model *tm, const struct pkt *pkt)
{
	if (!pkt->u.cbr)
		return;
	/* A new frequency: the measured ratio and frequency no longer
	 * hold. */
	if (tm->cbr && tm->cbr != pkt->u.cbr) {
		tm->ratio = 0;
		tm->khz = 0;
		tm->khz_due = 0;
		tm->state |= TM_S_TAINT;
	}
	tm->cbr = pkt->u.cbr;
}

void tm_gap(struct tm_model *tm)
{
	if (!tm)
		return;
	tm->pending = 0;
	tm->cyc_cal = 0;
	tm->state &= ~(TM_S_PEND | TM_S_CYC_EST | TM_S_WOKE | TM_S_WOKE_CYC |
		       TM_S_STOP_EXACT);
	tm->state |= TM_S_TAINT | TM_S_LOST;
}

/* What @pkt does to @tm; the trouble it finds goes into @st->flags,
 * @st->cyc_delta and @st->lost_mtc, which the caller zeroed. */
static inline void step_state(struct tm_model *tm, const struct pkt *pkt,
			      struct tm_stamp *st)
{
	switch (pkt->type) {
	case PKT_TSC:
		on_tsc(tm, pkt, st);
		break;
	case PKT_TMA:
		on_tma(tm, pkt, st);
		break;
	case PKT_MTC:
		on_mtc(tm, pkt->u.mtc, st);
		break;
	case PKT_CYC:
		on_cyc(tm, pkt, st);
		break;
	case PKT_CBR:
		on_cbr(tm, pkt);
		break;
	case PKT_PSB:
		/* Erratum SKL168: CYC packets right before a PSB may be
		 * dropped, so the cycles of this period are too few. */
		if (tm_config_skl168(&tm->cfg))
			tm->state |= TM_S_TAINT;
		tm->state |= TM_S_PSBP;
		break;
	case PKT_PSBEND:
		tm->state &= ~TM_S_PSBP;
		break;
	case PKT_OVF:
		st->flags |= TM_F_OVF;
		tm_gap(tm);
		break;
	case PKT_PWRE:
		tm->state |= TM_S_SLEEP | TM_S_SLEPT | TM_S_TAINT;
		tm->state &= ~TM_S_STOP_EXACT;
		break;
	case PKT_EXSTOP:
		/* Execution stopped: in a C-state after a PWRE, else for a
		 * P-state or frequency change, after which it goes on (SDM
		 * 36.4.2.22).  The core clock may have stopped: the period
		 * can't calibrate, and a gap in MTC payloads is no loss. */
		tm->state |= TM_S_SLEPT | TM_S_TAINT;
		tm->state &= ~TM_S_STOP_EXACT;
		if ((tm->state & (TM_S_PEND | TM_S_PSBP)) == TM_S_PEND)
			tm->state |= TM_S_STOP_EXACT;	/* it settles it */
		break;
	case PKT_PWRX:
		/* The core clock stopped; the crystal did not. */
		tm->state &= ~(TM_S_SLEEP | TM_S_WOKE_CYC);
		tm->state |= TM_S_TAINT | TM_S_WOKE;
		st->flags |= TM_F_SLEEP;
		break;
	default:
		break;
	}
	if (tm->state & TM_S_SLEEP)
		st->flags |= TM_F_SLEEP;
	/* How long the loss lasted is unknown until a TSC tells. */
	if (tm->state & TM_S_LOST)
		st->flags |= TM_F_LOST;

	/* Cycle exactness (SDM 36.3.6.2). */
	if (pkt->type == PKT_CYC) {
		st->flags |= TM_F_EXACT;
	} else if ((tm->state & (TM_S_PEND | TM_S_PSBP)) == TM_S_PEND &&
		   pkt->type < PKT_NTYPES &&
		   (pkt_cyc_eligible_mask >> pkt->type & 1)) {
		st->flags |= TM_F_EXACT;
		st->cyc_delta = tm->pending;
		tm->pending = 0;
		tm->state &= ~TM_S_PEND;
	} else if (tm->state & TM_S_CYC) {
		st->flags |= TM_F_BOUNDED;
	}
}

/* The packet types step_state() does more for than settle a pending CYC. */
#define TM_STATEFUL (1ull << PKT_TSC | 1ull << PKT_TMA | 1ull << PKT_MTC |	\
		     1ull << PKT_CYC | 1ull << PKT_CBR | 1ull << PKT_OVF |	\
		     1ull << PKT_PWRE | 1ull << PKT_EXSTOP | 1ull << PKT_PWRX |	\
		     1ull << PKT_PSB | 1ull << PKT_PSBEND)

/* The state bits an MTC one period after the last needs (and the ones
 * it must not see) for mtc_steady(): tied, placed from the last MTC, no
 * TSC since, no TMA due, awake, outside PSB+. */
#define TM_STEADY_MASK (TM_S_CTC_OK | TM_S_REF | TM_S_TMA_DUE |		\
			TM_S_REF_TMA | TM_S_REF_EST | TM_S_TSC_SINCE |	\
			TM_S_SLEEP | TM_S_PSBP | TM_S_WOKE | TM_S_WOKE_CYC)
#define TM_STEADY (TM_S_CTC_OK | TM_S_REF)

/* An MTC one period after the last one in the steady state (the state
 * bits TM_STEADY of TM_STEADY_MASK, a payload one past the last, a CTC
 * delta of one period): what step_state() does for it, with the
 * branches that state rules out left out (most of a trace's MTCs; the
 * index's time pass pays for each).  Returns 0, or -1 (nothing done)
 * if the MTC is not such a one. */
static int mtc_steady(struct tm_model *tm, uint8_t payload)
{
	unsigned freq = tm->cfg.mtc_freq;
	/* an MTC's reference: CTC[MTCFreq+7:0] (ref_bits()) */
	uint32_t mask = (1u << (freq + 8)) - 1;
	uint32_t st = tm->state;
	int ext;
	tm_q t;

	if ((st & TM_STEADY_MASK) != TM_STEADY ||
	    (uint8_t)(payload - tm->last_mtc) != 1 ||
	    ((((uint32_t)payload << freq) - tm->ref_ctc) & mask) != 1u << freq)
		return -1;
	t = sat(tm->ref_time + tm->period);
	/* (a period too short goes on, but from an MTC in a CYC's cycle
	 * starts anew: none hidden there) */
	ext = (st & TM_S_CAL_MTC) && calibrate(tm, t, cyc_tied(st)) &&
	      !(st & TM_S_PEND);
	tm->last_mtc = payload;
	tm->ref_time = t;
	tm->ref_ctc = (uint32_t)payload << freq;
	/* set_anchor(), cal_start(t, 1) awake, tie_pending_cyc() and the
	 * pending CYC settled (an MTC is CYC-eligible) */
	tm->anchor = t;
	if (t > tm->est)
		tm->est = t;
	/* next_mtc() is the boundary one period past this anchor (ref_ctc's
	 * low bits are zero, and a period is at least 1/2^32 tick) */
	tm->cap_ok = 2;
	/* (awake: cal_go_on() taints nothing) */
	if (ext) {
		st = (tm->state & ~(uint32_t)(TM_S_SLEPT | TM_S_UNPLACED)) |
		     TM_S_CAL_EXT;
	} else {
		tm->cal = t;
		tm->cyc_cal = 0;
		st = (tm->state & ~(uint32_t)(TM_S_TAINT | TM_S_SLEPT |
					      TM_S_UNPLACED | TM_S_CAL_TIED |
					      TM_S_CAL_EXT)) |
		     (st & TM_S_PEND ? TM_S_CAL_TIED : 0);
	}
	st |= TM_S_CAL | TM_S_CAL_MTC | TM_S_MTC | TM_S_LAG_WANT;
	tm->unplaced = 0;
	if (st & TM_S_PEND) {
		tm->cyc_est = tm->est;
		st |= TM_S_CYC_EST;
		tm->pending = 0;
		st &= ~(uint32_t)TM_S_PEND;
	}
	tm->state = st;
	return 0;
}

void tm_advance(struct tm_model *tm, const struct pkt *pkt)
{
	struct tm_stamp st;
	uint64_t bit;

	if (!tm || !pkt || pkt->type >= PKT_NTYPES)
		return;
	/* Most packets (tnt, pad, tip) only take the pending CYC's cycles. */
	bit = 1ull << pkt->type;
	if (!(bit & TM_STATEFUL)) {
		if ((tm->state & (TM_S_PEND | TM_S_PSBP)) == TM_S_PEND &&
		    (bit & pkt_cyc_eligible_mask)) {
			tm->pending = 0;
			tm->state &= ~TM_S_PEND;
		}
		return;
	}
	st.flags = 0;
	st.cyc_delta = 0;
	st.lost_mtc = 0;
	/* A CYC changes nothing in step_state() but on_cyc() and flags. */
	if (pkt->type == PKT_CYC) {
		on_cyc(tm, pkt, &st);
		return;
	}
	if (pkt->type == PKT_MTC && !mtc_steady(tm, pkt->u.mtc))
		return;
	step_state(tm, pkt, &st);
}

int tm_cyc_joins(const struct tm_model *tm)
{
	/* on_cyc() counts from cyc_est; tm_advance_cycs() from est */
	return (tm->state & (TM_S_CYC_EST | TM_S_PSBP)) == TM_S_CYC_EST &&
	       tm->cyc_est == tm->est;
}

void tm_cyc_open(struct tm_model *tm, uint64_t v)
{
	/* The first CYC of a calibration period is sampled (cyc_sample()),
	 * here as in on_cyc(): fed singly for it, a TIP-heavy trace's time
	 * pass ran 10% more instructions. */
	if (tm->state & TM_S_LAG_WANT)
		cyc_sample(tm, v);
}

void tm_advance_cycs(struct tm_model *tm, uint64_t sum, uint64_t n,
		     int settled, uint64_t tail, uint64_t tail_n)
{
	uint64_t r;
	tm_q cap;

	if (!tm)
		return;
	/* Inside PSB+ nothing settles a pending CYC. */
	if (tm->state & TM_S_PSBP) {
		settled = 0;
		tail = sum;
		tail_n = n;
	}
	if (settled) {
		tm->pending = tail;
		tm->state &= ~TM_S_PEND;
	} else {
		tm->pending = add_sat(tm->pending, tail);
	}
	if (tail_n)
		tm->state |= TM_S_PEND | TM_S_CYC;
	if (!n)
		return;
	if (tm->state & TM_S_WOKE)
		tm->state ^= TM_S_WOKE | TM_S_WOKE_CYC;
	/* Saturating sums of counts compose into one. */
	tm->cycles = add_sat(tm->cycles, sum);
	tm->cyc_cal = sum >= UINT32_MAX - tm->cyc_cal ? UINT32_MAX :
		      tm->cyc_cal + (uint32_t)sum;
	/* Each counts from the last, whose time is the estimate (the CYC
	 * before set it), never past the next MTC: the estimate moves by
	 * the cycles' time until it meets that cap (on_cyc() CYC by CYC). */
	r = cur_ratio(tm);
	/* as on_cyc(): they count from the estimate, never behind the
	 * anchor, so only without a ratio are they not placed */
	if (sum && !r)
		tm->state |= TM_S_UNPLACED;
	if (r && sum) {
		tm_q t = tm->est + (tm_q)sum * r;

		cap = next_mtc_cached(tm);
		if (cap) {
			if (tm->est < cap)
				tm->est = t > cap ? cap : t;
		} else {
			tm->est = sat(t);
		}
	}
	tm->cyc_est = tm->est;
	tm->state |= TM_S_CYC_EST;
}

int tm_step(struct tm_model *tm, const struct pkt *pkt, struct tm_stamp *st)
{

	if (!tm || !pkt || !st)
		return -pte_invalid;
	memset(st, 0, sizeof(*st));
	step_state(tm, pkt, st);
	if (tm->state & TM_S_CYC)
		st->flags |= TM_F_CYC;

	st->tsc = (uint64_t)(tm->est >> 32);
	st->tsc_frac = (uint32_t)tm->est;
	st->cycles = tm->cycles;
	st->cbr = tm->cbr;
	if (tm->khz_due) {
		tm->khz = cur_khz(tm);
		tm->khz_due = 0;
	}
	st->khz = tm->khz;
	if (tm->khz)
		st->flags |= TM_F_FREQ;
	if (tm->state & TM_S_TSC) {
		st->flags |= TM_F_TSC;
		/* tm_tsc_to_ns() with what tm_init() found out */
		if (tm->perf_ns || tm->hz_ns) {
			st->ns = tm->perf_ns ? perf_ns(&tm->cfg, st->tsc) :
				 hz_ns(st->tsc, tm->hz_ns);
			st->flags |= TM_F_NS;
		}
	} else {
		st->flags |= TM_F_REL;
	}
	return 0;
}

uint32_t tm_period_khz(const struct tm_config *cfg, const struct tm_period *p,
		       int estimate)
{
	tm_q ticks, khz;
	uint64_t hz = tm_tsc_hz(cfg, estimate);

	if (!p || !hz)
		return 0;
	ticks = ((tm_q)p->ticks << 32) | p->ticks_frac;
	if (!ticks)
		return 0;
	khz = ((tm_q)p->cycles * hz << 32) / ticks / 1000;
	return khz > UINT32_MAX ? UINT32_MAX : (uint32_t)khz;
}

static void q_split(tm_q q, uint64_t *whole, uint32_t *frac)
{
	*whole = (uint64_t)(q >> 32);
	*frac = (uint32_t)q;
}

static tm_q q_join(uint64_t whole, uint32_t frac)
{
	return ((tm_q)whole << 32) | frac;
}

void tm_save(const struct tm_model *tm, struct tm_carry *c)
{
	if (!tm || !c)
		return;
	memset(c, 0, sizeof(*c));
	q_split(tm->est, &c->est, &c->est_frac);
	q_split(tm->anchor, &c->anchor, &c->anchor_frac);
	q_split(tm->cyc_est, &c->cyc_est, &c->cyc_est_frac);
	q_split(tm->ref_time, &c->ref_time, &c->ref_time_frac);
	q_split(tm->cal, &c->cal, &c->cal_frac);
	c->ratio = tm->ratio;
	c->cycles = tm->cycles;
	c->pending = tm->pending;
	c->cyc_cal = tm->cyc_cal;
	c->khz = cur_khz(tm);
	c->ref_ctc = tm->ref_ctc;
	c->last_mtc = tm->last_mtc;
	c->cbr = tm->cbr;
	c->unplaced = tm->unplaced;
	c->state = tm->state;
}

void tm_restore(struct tm_model *tm, const struct tm_carry *c)
{
	if (!tm || !c)
		return;
	tm->est = q_join(c->est, c->est_frac);
	tm->anchor = q_join(c->anchor, c->anchor_frac);
	tm->cyc_est = q_join(c->cyc_est, c->cyc_est_frac);
	tm->ref_time = q_join(c->ref_time, c->ref_time_frac);
	tm->cal = q_join(c->cal, c->cal_frac);
	tm->ratio = c->ratio;
	tm->cycles = c->cycles;
	tm->pending = c->pending;
	tm->cyc_cal = c->cyc_cal;
	tm->khz = c->khz;
	tm->khz_due = 0;
	tm->cap_ok = 0;
	tm->ref_ctc = c->ref_ctc;
	tm->last_mtc = c->last_mtc;
	tm->cbr = c->cbr;
	tm->unplaced = c->unplaced;
	/* The configuration bit is the model's own, not the carry's; and
	 * without that configuration no crystal clock reference can be
	 * (a damaged carry's would measure CTC wraps by a ratio of 0). */
	tm->state = (c->state & ~(uint32_t)TM_S_CTC_OK) |
		    (tm->state & TM_S_CTC_OK);
	if (!(tm->state & TM_S_CTC_OK))
		tm->state &= ~(uint32_t)(TM_S_REF | TM_S_REF_TMA | TM_S_REF_EST);
}
