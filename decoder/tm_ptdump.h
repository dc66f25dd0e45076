/*
 * tm_ptdump -- libipt's time estimate, as `ptdump --time` and `--tcal`
 * print it, reproduced number for number so that `ptbrowse dump` can be
 * compared with ptdump line by line.
 *
 * This is not our time model (tm.h): libipt's estimate may step backwards
 * (after an MTC, and after a sleep), calibrates only from CBR, MTC and
 * PSB+ TSC, and forgets its calibration at an OVF.  It is kept apart so
 * the browser's own clock owes nothing to those choices.
 *
 * The algorithm (libipt pt_time.c, pt_tcal, ptdump.c track_*): a TSC sets
 * the base; a TMA moves the base back by its FastCounter and ties it to
 * the crystal clock; each MTC adds CTC delta * EBX / EAX to the base; each
 * CYC adds cycles * fcr to a fast counter on top of the base, where fcr
 * (fast counter : cycles, 8 fraction bits) comes from P1/CBR, from the
 * cycles between two MTCs, or between two PSB+ TSCs.  Erratum SKL168
 * (CYCs dropped before a PSB) makes the first MTC after a PSB distrusted.
 */
#ifndef TM_PTDUMP_H
#define TM_PTDUMP_H

#include <stdint.h>

#include "pkt.h"
#include "tm_config.h"

/* libipt's error numbers, for ptdump's diagnostics (tm_ptdump_errstr). */
enum tm_ptdump_err {
	TMP_E_OK = 0,
	TMP_E_INTERNAL = 1,
	TMP_E_BAD_PACKET = 5,
	TMP_E_BAD_CONTEXT = 6,
	TMP_E_BAD_CONFIG = 10,
	TMP_E_NO_TIME = 15,
};

/* What to show, and ptdump's options that change the numbers. */
enum tm_ptdump_flag {
	TMP_SHOW_TIME = 1 << 0,		/* --time: a "tsc" column */
	TMP_SHOW_TCAL = 1 << 1,		/* --tcal: an "fcr" column */
	TMP_NO_TCAL = 1 << 2,		/* --no-tcal */
	TMP_NO_WALL_CLOCK = 1 << 3,	/* --no-wall-clock */
	TMP_NO_CYC = 1 << 4,		/* --no-cyc: CYCs are ignored */
	TMP_KEEP_TCAL_ON_OVF = 1 << 5,	/* --keep-tcal-on-ovf */
};

/* libipt's struct pt_time. */
struct tm_ptdump_time {
	uint64_t tsc, base, fc;
	uint32_t ctc, ctc_cyc;
	uint32_t lost_mtc, lost_cyc;
	uint8_t cbr;
	uint8_t have_tsc, have_cbr, have_tma, have_mtc;
};

/* libipt's struct pt_time_cal.  fcr has 8 fraction bits. */
struct tm_ptdump_cal {
	uint64_t fcr, min_fcr, max_fcr;
	uint64_t tsc, cyc_tsc, cyc_mtc;
	uint32_t ctc, lost_mtc;
	uint8_t have_mtc, check_skl168;
};

/* The estimator.  Fields are private to tm_ptdump.c. */
struct tm_ptdump {
	struct tm_config cfg;
	unsigned flags;		/* enum tm_ptdump_flag */
	uint8_t skl168;		/* the CPU has erratum SKL168 */
	uint8_t in_header;	/* between psb and psbend */
	struct tm_ptdump_time time;
	struct tm_ptdump_cal tcal;
};

/* A ptdump diagnostics line: "[offset: msg]" or "[offset: msg: err]". */
struct tm_ptdump_diag {
	const char *msg;
	int err;		/* enum tm_ptdump_err, 0 for none */
};

/* What ptdump prints for one packet. */
struct tm_ptdump_out {
	int ndiag;			/* diagnostics, printed before the line */
	struct tm_ptdump_diag diag[4];
	enum { TMP_COL_NONE, TMP_COL_TSC, TMP_COL_FCR } col;
	int col_ok;			/* else the column says <unavailable> */
	uint64_t value;			/* tsc, or fcr with 8 fraction bits */
};

/* Set up @tmp for @cfg (NULL: nothing known) with @flags (tm_ptdump_flag). */
void tm_ptdump_init(struct tm_ptdump *tmp, const struct tm_config *cfg, unsigned flags);

/* Forget all timing state, as ptdump does after a resync. */
void tm_ptdump_reset(struct tm_ptdump *tmp);

/* Apply @pkt and tell what ptdump prints for it in @out.
 * Returns 0, or -pte_invalid if an argument is NULL. */
int tm_ptdump_step(struct tm_ptdump *tmp, const struct pkt *pkt, struct tm_ptdump_out *out);

/* libipt's text for error @err ("no timing information", ...). */
const char *tm_ptdump_errstr(int err);

#endif /* TM_PTDUMP_H */
