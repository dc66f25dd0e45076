/* offtsc -- the estimated TSC at a stream offset. */
#include <stdlib.h>
#include <string.h>

#include "image.h"
#include "offtsc.h"
#include "pkt.h"
#include "ptdec.h"
#include "tm.h"
#include "tm_config.h"

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
	if (img_find_psb_before(ot->img, off + 1, &psb))
		psb = 0;
	ot->at_end = img_cursor_init(&ot->cur, ot->img, psb) < 0;
	ot->at = psb;
	ot->have_next = 0;
	ot->started = 1;
}

int offtsc_at(void *vot, uint64_t off, uint64_t *tsc)
{
	struct offtsc *ot = vot;
	struct pkt pkt;
	int n;

	if (!ot || !tsc)
		return -pte_invalid;
	if (!ot->started || off < ot->at)
		offtsc_restart(ot, off);
	for (;;) {
		if (ot->have_next) {
			if (ot->next.offset >= off)
				break;
			tm_advance(&ot->tm, &ot->next);
			ot->have_next = 0;
		}
		if (ot->at_end)
			break;
		n = img_cursor_next(&ot->cur, &pkt);
		if (n == -pte_eos) {
			ot->at_end = 1;
			break;
		}
		if (n == -pte_gap) {
			tm_gap(&ot->tm);
			ot->cur.gap = 0;
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
			continue;
		}
		ot->next = pkt;
		ot->have_next = 1;
	}
	ot->at = off;
	return tm_now(&ot->tm, tsc);
}
