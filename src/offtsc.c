/* offtsc -- the estimated TSC at a stream offset. */
#include <stdlib.h>
#include <string.h>

#include "image.h"
#include "offtsc.h"
#include "pkt.h"
#include "ptdec.h"
#include "tm.h"
#include "tm_config.h"
#include "trace_types.h"

struct offtsc {
	const struct img *img;
	struct tm_config cfg;
	struct tm_model tm;
	struct img_cursor cur;
	uint64_t at;		/* the model has seen every packet before it */
	struct pkt next;	/* read, not yet fed: at or after at */
	uint8_t have_next;
	uint8_t started;
	uint8_t at_end;		/* the cursor reached the end */
	uint64_t end_from, end_at;	/* offtsc_stretch_end()'s last answer:
				 * the stretch from end_from ends at end_at */
	uint64_t end_tsc;	/* at this TSC */
	uint8_t have_end;
	struct pkt_runs runs;	/* the last long run of PSBs (pkt.h): a
				 * restart and a resync inside one cost O(1) */
};

int offtsc_new(struct offtsc **out, const struct img *img,
	       const struct tm_config *cfg)
{
	struct offtsc *ot;

	if (!out || !img)
		return -pte_invalid;
	ot = calloc(1, sizeof(*ot));
	if (!ot)
		return -pte_nomem;
	ot->img = img;
	if (cfg)
		ot->cfg = *cfg;
	*out = ot;
	return 0;
}

void offtsc_free(struct offtsc *ot)
{
	free(ot);
}

/* Start over at the last PSB before @off (or the stream's start). */
static void offtsc_restart(struct offtsc *ot, uint64_t off)
{
	uint64_t psb = 0;

	tm_init(&ot->tm, &ot->cfg);
	if (img_find_psb_before_runs(ot->img, &ot->runs, off + 1, &psb))
		psb = 0;
	ot->at_end = img_cursor_init(&ot->cur, ot->img, psb) < 0;
	ot->cur.runs = &ot->runs;
	ot->at = psb;
	ot->have_next = 0;
	ot->started = 1;
}

/* Read the next packet into ot->next (unless one is there).
 * Returns 0, or 1 at the end of the stream; @lost is set where bytes
 * were lost on the way (a gap, a decode error). */
static int offtsc_fill(struct offtsc *ot, int *lost)
{
	struct pkt pkt;
	int n;

	while (!ot->have_next) {
		if (ot->at_end)
			return 1;
		n = img_cursor_next(&ot->cur, &pkt);
		if (n == -pte_eos) {
			ot->at_end = 1;
			return 1;
		}
		if (n == -pte_gap) {
			tm_gap(&ot->tm);
			ot->cur.gap = 0;
			*lost = 1;
			continue;
		}
		if (n < 0) {
			/* bytes lost to a decode error: on at the next PSB */
			tm_gap(&ot->tm);
			if (img_cursor_sync_forward(&ot->cur,
						    img_cursor_offset(&ot->cur)
						    + 1) < 0)
				ot->at_end = 1;
			ot->cur.gap = 0;
			*lost = 1;
			continue;
		}
		ot->next = pkt;
		ot->have_next = 1;
	}
	return 0;
}

/*
 * No TSC is known before @ot->next: if it is a PSB, or a packet inside
 * a PSB+, the time at the PSB+'s end (its TSC).  A decode started at a
 * PSB asks for the code the PSB+'s FUP names before the PSB+'s TSC has
 * been seen; that code runs at the PSB+'s time, and without it the
 * address space is unknown and a process's code reads as missing.
 * Returns 0 and sets *@tsc, or -pte_no_time.
 */
static int offtsc_psb_ahead(struct offtsc *ot, uint64_t *tsc)
{
	int k, lost = 0;

	for (k = 0; k < 64 && !offtsc_fill(ot, &lost) && !lost; k++) {
		if (k && ot->next.type == PKT_PSB)
			break;
		if (ot->next.type == PKT_PSBEND) {
			ot->at = ot->next.offset;
			return tm_now(&ot->tm, tsc);
		}
		tm_advance(&ot->tm, &ot->next);
		ot->have_next = 0;
		ot->at = ot->next.offset + 1;
	}
	return -pte_no_time;
}

int offtsc_at(void *vot, uint64_t off, uint64_t *tsc)
{
	struct offtsc *ot = vot;
	int err, lost = 0;

	if (!ot || !tsc)
		return -pte_invalid;
	if (!ot->started || off < ot->at)
		offtsc_restart(ot, off);
	while (!offtsc_fill(ot, &lost) && ot->next.offset < off) {
		tm_advance(&ot->tm, &ot->next);
		ot->have_next = 0;
	}
	ot->at = off;
	err = tm_now(&ot->tm, tsc);
	if (err == -pte_no_time)
		err = offtsc_psb_ahead(ot, tsc);
	return err;
}

int offtsc_stretch_end(void *vot, uint64_t off, uint64_t *end, uint64_t *tsc)
{
	struct offtsc *ot = vot;
	int err, lost = 0;

	if (!ot || !end || !tsc)
		return -pte_invalid;
	/* questions come in stream order, many in one stretch */
	if (ot->have_end && off >= ot->end_from && off <= ot->end_at) {
		*end = ot->end_at;
		*tsc = ot->end_tsc;
		return 0;
	}
	ot->have_end = 0;
	err = offtsc_at(ot, off, tsc);
	if (err)
		return err;
	while (!offtsc_fill(ot, &lost) && !lost) {
		if (ot->next.type == PKT_TIP_PGD || ot->next.type == PKT_OVF) {
			ot->at = ot->next.offset;
			err = tm_now(&ot->tm, tsc);
			if (err)
				return err;
			*end = ot->at;
			ot->end_from = off;
			ot->end_at = ot->at;
			ot->end_tsc = *tsc;
			ot->have_end = 1;
			return 0;
		}
		tm_advance(&ot->tm, &ot->next);
		ot->have_next = 0;
		ot->at = ot->next.offset + 1;
	}
	return 1;
}

int offtsc_first(const struct img *img, const struct tm_config *cfg,
		 uint64_t *tsc)
{
	struct img_cursor cur;
	struct tm_model tm;
	struct tm_stamp ts;
	struct pkt pkt;
	uint64_t start;

	if (!img || !cfg || !tsc)
		return -pte_invalid;
	if (img_cursor_init(&cur, img, 0) < 0 || img_cursor_sync_forward(&cur, 0) < 0)
		return -pte_no_time;
	start = img_cursor_offset(&cur);
	tm_init(&tm, cfg);
	/* (the first PSB+ holds it; 64 KiB bounds the look in a stream
	 * whose first PSB+ has none, on the UI thread too) */
	while (img_cursor_next(&cur, &pkt) > 0 && pkt.offset - start < (64u << 10)) {
		tm_step(&tm, &pkt, &ts);
		if (ts.flags & TM_F_TSC) {
			*tsc = ts.tsc;
			return 0;
		}
	}
	return -pte_no_time;
}

int offtsc_streams_first(const struct trace *t, size_t skip,
			 const uint64_t *near, uint64_t *tsc)
{
	uint64_t f, hz, spread;
	size_t i;
	int r = -pte_no_time;

	if (!t || !tsc)
		return -pte_invalid;
	for (i = 0; i < t->nstreams; i++) {
		if (i == skip ||
		    offtsc_first(&t->streams[i].img, &t->streams[i].timing, &f) < 0)
			continue;
		/* (no frequency: 2^36 ticks, a minute at 1.1 GHz) */
		hz = tm_tsc_hz(&t->streams[i].timing, 1);
		spread = hz ? hz * OFFTSC_SPREAD_S : 1ull << 36;
		if (near && f < *near && *near - f > spread)
			continue;
		if (r < 0 || f < *tsc)
			*tsc = f;
		r = 0;
	}
	return r;
}
