/*
 * tm_ptdump -- libipt's time estimate (see tm_ptdump.h), written from its
 * documented behaviour: same arithmetic, same integer widths, same
 * diagnostics, so the numbers match ptdump's to the last digit.
 */
#include <string.h>

#include "ptdec.h"
#include "tm_ptdump.h"

/* fcr carries 8 fraction bits. */
#define FCR_SHR 8
/* MTC carries 8 CTC bits; TMA 16; TSC 56. */
#define MTC_BITS 8
#define TMA_BITS 16
#define TSC_BITS 56

const char *tm_ptdump_errstr(int err)
{
	switch (err < 0 ? -err : err) {
	case TMP_E_OK:
		return "OK";
	case TMP_E_BAD_PACKET:
		return "unknown packet";
	case TMP_E_BAD_CONTEXT:
		return "unexpected packet context";
	case TMP_E_BAD_CONFIG:
		return "bad configuration";
	case TMP_E_NO_TIME:
		return "no timing information";
	default:
		return "internal error";
	}
}

static void diag(struct tm_ptdump_out *out, const char *msg, int err)
{
	if (out->ndiag < (int)(sizeof(out->diag) / sizeof(out->diag[0]))) {
		out->diag[out->ndiag].msg = msg;
		out->diag[out->ndiag].err = err < 0 ? -err : err;
		out->ndiag++;
	}
}

static void cal_init(struct tm_ptdump_cal *c)
{
	memset(c, 0, sizeof(*c));
	c->min_fcr = UINT64_MAX;
}

void tm_ptdump_reset(struct tm_ptdump *tmp)
{
	if (!tmp)
		return;
	memset(&tmp->time, 0, sizeof(tmp->time));
	cal_init(&tmp->tcal);
	tmp->in_header = 0;
}

void tm_ptdump_init(struct tm_ptdump *tmp, const struct tm_config *cfg, unsigned flags)
{
	if (!tmp)
		return;
	memset(tmp, 0, sizeof(*tmp));
	if (cfg)
		tmp->cfg = *cfg;
	/* libipt's defaults for what is not given are zeros. */
	if (!tmp->cfg.have_mtc_freq)
		tmp->cfg.mtc_freq = 0;
	if (!tmp->cfg.have_nom_freq)
		tmp->cfg.nom_freq = 0;
	if (!tmp->cfg.have_cpuid_15)
		tmp->cfg.cpuid_15_eax = tmp->cfg.cpuid_15_ebx = 0;
	/* MTCFreq is 4 bits; a bigger value (a damaged perf.data) would
	 * shift past 32 bits: refuse MTC timing instead. */
	if (tmp->cfg.mtc_freq > 15) {
		tmp->cfg.mtc_freq = 0;
		tmp->cfg.cpuid_15_eax = 0;
	}
	tmp->flags = flags;
	tmp->skl168 = (uint8_t)tm_config_skl168(&tmp->cfg);
	tm_ptdump_reset(tmp);
}

/* CTC distance, correcting one wrap of the MTC-visible bits. */
static int ctc_delta(const struct tm_ptdump *tmp, uint32_t *delta, uint32_t ctc,
		     uint32_t last)
{
	if (ctc < last) {
		ctc += 1u << (tmp->cfg.mtc_freq + MTC_BITS);
		if (ctc < last)
			return -TMP_E_BAD_PACKET;
	}
	*delta = ctc - last;
	return 0;
}

/* CTC ticks to fast-counter (TSC) ticks. */
static int ctc_fc(const struct tm_ptdump *tmp, uint64_t *fc, uint64_t ctc)
{
	uint32_t eax = tmp->cfg.cpuid_15_eax, ebx = tmp->cfg.cpuid_15_ebx;

	if (!eax || !ebx)
		return -TMP_E_BAD_CONFIG;
	*fc = (ctc * ebx) / eax;
	return 0;
}

/* --- the time (pt_time) --- */

static int time_tsc(struct tm_ptdump *tmp, uint64_t tsc)
{
	struct tm_ptdump_time *t = &tmp->time;

	t->have_tsc = 1;
	t->have_tma = 0;
	t->have_mtc = 0;
	t->tsc = t->base = tsc;
	t->ctc = 0;
	t->fc = 0;
	t->lost_mtc = 0;
	t->lost_cyc = 0;
	return 0;
}

static int time_cbr(struct tm_ptdump *tmp, uint8_t cbr)
{
	if (!cbr)
		return -TMP_E_BAD_PACKET;
	tmp->time.have_cbr = 1;
	tmp->time.cbr = cbr;
	return 0;
}

static int time_tma(struct tm_ptdump *tmp, uint16_t ctc, uint16_t fc)
{
	struct tm_ptdump_time *t = &tmp->time;
	uint32_t mtc_hi = tmp->cfg.mtc_freq + MTC_BITS;

	if (!t->have_tsc || t->have_tma)
		return -TMP_E_BAD_CONTEXT;
	if (t->have_mtc)
		return -TMP_E_INTERNAL;
	t->have_tma = 1;
	t->base -= fc;
	t->fc += fc;
	/* With few enough CTC bits, the TMA serves as an MTC. */
	if (mtc_hi <= TMA_BITS)
		t->have_mtc = 1;
	t->ctc = t->ctc_cyc = ctc & ((1u << mtc_hi) - 1u);
	return 0;
}

static int time_mtc(struct tm_ptdump *tmp, uint8_t payload)
{
	struct tm_ptdump_time *t = &tmp->time;
	unsigned freq = tmp->cfg.mtc_freq;
	uint32_t last_ctc, ctc, delta;
	uint64_t base, ticks;
	int have_mtc = t->have_mtc, err;

	/* MTCs between a TSC and its TMA are ignored. */
	if (t->have_tsc && !t->have_tma)
		return 0;
	base = t->base;
	last_ctc = t->ctc;
	ctc = (uint32_t)payload << freq;
	if (t->fc || t->lost_cyc || !have_mtc)
		t->ctc_cyc = ctc;
	t->have_mtc = 1;
	t->fc = 0;
	t->ctc = ctc;
	t->lost_cyc = 0;

	if (!have_mtc) {
		uint32_t lo, hi;

		if (!t->have_tma)
			return 0;
		if (last_ctc & ~((1u << TMA_BITS) - 1))
			return -TMP_E_INTERNAL;
		/* Guess the CTC bits the TMA lacks from this MTC. */
		lo = ctc & ((1u << TMA_BITS) - 1);
		hi = ctc & ~((1u << TMA_BITS) - 1);
		if (lo < last_ctc) {
			hi -= 1u << TMA_BITS;
			hi &= 0xffu << freq;
		}
		last_ctc |= hi;
	}
	err = ctc_delta(tmp, &delta, ctc, last_ctc);
	if (err < 0) {
		t->lost_mtc++;
		return err;
	}
	err = ctc_fc(tmp, &ticks, delta);
	if (err < 0)
		return err;
	base += ticks;
	t->tsc = t->base = base;
	return 0;
}

/* The part of a CYC's cycles that falls in the current MTC period. */
static int adjust_cyc(const struct tm_ptdump *tmp, uint64_t *cyc, uint64_t fcr)
{
	uint32_t delta;
	uint64_t fc, old;
	int err;

	if (tmp->time.ctc == tmp->time.ctc_cyc)
		return 0;
	err = ctc_delta(tmp, &delta, tmp->time.ctc, tmp->time.ctc_cyc);
	if (err < 0)
		return err;
	err = ctc_fc(tmp, &fc, delta);
	if (err < 0)
		return err;
	old = (fc << FCR_SHR) / fcr;
	*cyc = *cyc < old ? 0 : *cyc - old;
	return 0;
}

static int time_cyc(struct tm_ptdump *tmp, uint64_t value, uint64_t fcr)
{
	struct tm_ptdump_time *t = &tmp->time;
	uint64_t cyc = value, fc;
	int err;

	if (!fcr) {
		t->lost_cyc++;
		return 0;
	}
	fc = t->fc;
	if (!fc) {
		err = adjust_cyc(tmp, &cyc, fcr);
		if (err < 0)
			return err;
	}
	fc += (cyc * fcr) >> FCR_SHR;
	t->fc = fc;
	t->tsc = t->base + fc;
	return 0;
}

/* --- the calibration (pt_time_cal) --- */

static int cal_have(const struct tm_ptdump_cal *c)
{
	return c->min_fcr <= c->max_fcr;
}

static void cal_set(struct tm_ptdump_cal *c, uint64_t fcr)
{
	c->fcr = fcr;
	if (fcr < c->min_fcr)
		c->min_fcr = fcr;
	if (fcr > c->max_fcr)
		c->max_fcr = fcr;
}

/* A TSC outside PSB+ may follow lost time: only remember it. */
static int cal_tsc(struct tm_ptdump *tmp, uint64_t tsc)
{
	tmp->tcal.tsc = tsc;
	tmp->tcal.cyc_tsc = 0;
	return 0;
}

static int cal_header_tsc(struct tm_ptdump *tmp, uint64_t tsc)
{
	struct tm_ptdump_cal *c = &tmp->tcal;
	uint64_t last = c->tsc, cyc = c->cyc_tsc, delta;

	c->tsc = tsc;
	c->cyc_tsc = 0;
	if (!last || !cyc || c->have_mtc)
		return 0;
	if (tsc < last) {
		tsc += 1ull << TSC_BITS;
		if (tsc < last)
			return -TMP_E_BAD_PACKET;
	}
	delta = tsc - last;
	if (delta & ~(~0ull >> FCR_SHR))
		return -TMP_E_INTERNAL;
	cal_set(c, (delta << FCR_SHR) / cyc);
	return 0;
}

static int cal_header_cbr(struct tm_ptdump *tmp, uint8_t cbr)
{
	uint64_t p1 = tmp->cfg.nom_freq;

	if (!p1)
		return 0;
	if (!cbr)
		return -TMP_E_BAD_PACKET;
	cal_set(&tmp->tcal, (p1 << FCR_SHR) / cbr);
	return 0;
}

/* A CBR outside PSB+ is a frequency change: start over. */
static int cal_cbr(struct tm_ptdump *tmp, uint8_t cbr)
{
	cal_init(&tmp->tcal);
	return cal_header_cbr(tmp, cbr);
}

static int cal_mtc(struct tm_ptdump *tmp, uint8_t payload)
{
	struct tm_ptdump_cal *c = &tmp->tcal;
	unsigned freq = tmp->cfg.mtc_freq;
	uint32_t last_ctc = c->ctc, ctc, delta;
	uint64_t cyc = c->cyc_mtc, fc, fcr;
	int check = c->check_skl168, err;

	c->check_skl168 = 0;
	ctc = (uint32_t)payload << freq;
	if (!c->have_mtc) {
		c->cyc_mtc = 0;
		c->ctc = ctc;
		c->have_mtc = 1;
		return 0;
	}
	/* No cycles: spread them over the next, longer period. */
	if (!cyc)
		return 0;
	c->cyc_mtc = 0;
	c->ctc = ctc;
	c->lost_mtc++;
	err = ctc_delta(tmp, &delta, ctc, last_ctc);
	if (err < 0)
		return err;
	err = ctc_fc(tmp, &fc, delta);
	if (err < 0)
		return err;
	if (fc & ~(~0ull >> FCR_SHR))
		return -TMP_E_INTERNAL;
	fcr = (fc << FCR_SHR) / cyc;
	if (check) {
		/* SKL168: skip if MTCs were lost since the PSB, or if a
		 * wrap CYC (every 4096 cycles) seems to have been lost. */
		if ((1u << freq) < delta)
			return 0;
		if (freq < 10 && cal_have(c) &&
		    ((c->fcr * (cyc + 0xf00)) >> FCR_SHR) < fc)
			return 0;
	}
	cal_set(c, fcr);
	c->lost_mtc = 0;
	return 0;
}

static void cal_ovf(struct tm_ptdump *tmp)
{
	struct tm_ptdump_cal *c = &tmp->tcal;

	c->tsc = 0;
	c->cyc_tsc = 0;
	c->cyc_mtc = 0;
	c->ctc = 0;
	c->have_mtc = 0;
}

/* --- ptdump's tracking --- */

static void show(struct tm_ptdump *tmp, struct tm_ptdump_out *out, int time, int tcal)
{
	if ((tmp->flags & TMP_SHOW_TCAL) && tcal) {
		out->col = TMP_COL_FCR;
		if (cal_have(&tmp->tcal)) {
			out->col_ok = 1;
			out->value = tmp->tcal.fcr;
		} else {
			diag(out, "error printing time", TMP_E_NO_TIME);
		}
	}
	if ((tmp->flags & TMP_SHOW_TIME) && time) {
		out->col = TMP_COL_TSC;
		out->value = tmp->time.tsc;
		if (tmp->time.have_tsc || (tmp->flags & TMP_NO_WALL_CLOCK))
			out->col_ok = 1;
		else
			diag(out, "error printing time", TMP_E_NO_TIME);
	}
}

int tm_ptdump_step(struct tm_ptdump *tmp, const struct pkt *pkt, struct tm_ptdump_out *out)
{
	int tcal, err;

	if (!tmp || !pkt || !out)
		return -pte_invalid;
	memset(out, 0, sizeof(*out));
	tcal = !(tmp->flags & TMP_NO_TCAL);

	switch (pkt->type) {
	case PKT_PSB:
		if (tmp->skl168)
			tmp->tcal.check_skl168 = 1;
		tmp->in_header = 1;
		break;
	case PKT_PSBEND:
		tmp->in_header = 0;
		break;
	case PKT_OVF:
		if (tmp->flags & TMP_KEEP_TCAL_ON_OVF)
			cal_ovf(tmp);
		else
			cal_init(&tmp->tcal);
		break;
	case PKT_TSC:
		if (tcal) {
			err = tmp->in_header ? cal_header_tsc(tmp, pkt->u.tsc) :
					       cal_tsc(tmp, pkt->u.tsc);
			if (err < 0)
				diag(out, "error calibrating time", err);
		}
		time_tsc(tmp, pkt->u.tsc);
		show(tmp, out, 1, 1);
		break;
	case PKT_CBR:
		if (tcal) {
			err = tmp->in_header ? cal_header_cbr(tmp, pkt->u.cbr) :
					       cal_cbr(tmp, pkt->u.cbr);
			if (err < 0)
				diag(out, "error calibrating time", err);
		}
		err = time_cbr(tmp, pkt->u.cbr);
		if (err < 0)
			diag(out, "error updating time", err);
		show(tmp, out, 0, 1);
		break;
	case PKT_TMA:
		err = time_tma(tmp, pkt->u.tma.ctc, pkt->u.tma.fc);
		if (err < 0)
			diag(out, "error updating time", err);
		show(tmp, out, 1, 0);
		break;
	case PKT_MTC:
		if (tcal) {
			err = cal_mtc(tmp, pkt->u.mtc);
			if (err < 0)
				diag(out, "error calibrating time", err);
		}
		err = time_mtc(tmp, pkt->u.mtc);
		if (err < 0)
			diag(out, "error updating time", err);
		show(tmp, out, 1, 1);
		break;
	case PKT_CYC: {
		uint64_t fcr = 0;

		if (tmp->flags & TMP_NO_CYC)
			break;
		if (tcal) {
			if (cal_have(&tmp->tcal))
				fcr = tmp->tcal.fcr;
			else
				diag(out, "calibration error", TMP_E_NO_TIME);
			tmp->tcal.cyc_mtc += pkt->u.cyc;
			tmp->tcal.cyc_tsc += pkt->u.cyc;
		}
		err = time_cyc(tmp, pkt->u.cyc, fcr);
		if (err < 0)
			diag(out, "error updating time", err);
		else if (!fcr)
			diag(out, "error updating time: no calibration", 0);
		show(tmp, out, 1, 0);
		break;
	}
	default:
		break;
	}
	return 0;
}
