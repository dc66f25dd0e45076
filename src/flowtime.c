/* flowtime -- the time model's stamp at a flow record's offset (see flowtime.h). */
#include "flowtime.h"

#include <stdlib.h>
#include <string.h>

#include "ptdec.h"

struct flowtime {
	const struct img *img;
	struct tm_config cfg;
	struct tm_model tm;
	struct img_cursor cur;
	uint64_t at;		/* the cursor's offset; UINT64_MAX: not started */
	uint64_t last;		/* the last offset answered, UINT64_MAX none */
	struct tm_stamp last_st;	/* and its stamp */
	struct pkt_runs runs;	/* the last long run of PSBs (pkt.h): a
				 * restart and a resync inside one cost O(1) */
};

int ft_new(struct flowtime **out, const struct img *img, const struct tm_config *cfg)
{
	struct flowtime *ft;

	if (!out || !img)
		return -pte_invalid;
	ft = calloc(1, sizeof(*ft));
	if (!ft)
		return -pte_nomem;
	ft->img = img;
	if (cfg)
		ft->cfg = *cfg;	/* else all unknown (zero), as tm_init() takes */
	ft->at = UINT64_MAX;
	ft->last = UINT64_MAX;
	*out = ft;
	return 0;
}

void ft_free(struct flowtime *ft)
{
	free(ft);
}

/* Start again at the last PSB at or before @off (or the first one). */
static int restart(struct flowtime *ft, uint64_t off)
{
	uint64_t psb = 0;

	if (img_find_psb_before_runs(ft->img, &ft->runs, off + 1, &psb) < 0)
		psb = 0;
	if (img_cursor_init(&ft->cur, ft->img, psb) < 0)
		return -1;
	ft->cur.runs = &ft->runs;
	if (img_cursor_sync_forward(&ft->cur, psb) < 0)
		return -1;
	tm_init(&ft->tm, &ft->cfg);
	ft->at = img_cursor_offset(&ft->cur);
	return 0;
}

int ft_stamp(struct flowtime *ft, uint64_t off, struct tm_stamp *st)
{
	struct pkt pkt;
	int n;

	if (!ft || !st)
		return -pte_invalid;
	/* a TNT packet decides up to 47 branches: asked as often */
	if (off == ft->last) {
		*st = ft->last_st;
		return 0;
	}
	if ((ft->at == UINT64_MAX || off < ft->at) && restart(ft, off) < 0)
		return 1;
	while (ft->at <= off) {
		n = img_cursor_next(&ft->cur, &pkt);
		if (n == -pte_eos)
			return 1;
		if (n < 0) {
			/* lost bytes: the model says so; on at the next PSB */
			tm_gap(&ft->tm);
			ft->cur.gap = 0;
			if (n != -pte_gap &&
			    img_cursor_sync_forward(&ft->cur, pkt.offset + 1) < 0) {
				ft->at = UINT64_MAX;
				return 1;
			}
			ft->at = img_cursor_offset(&ft->cur);
			if (pkt.offset == off)
				return 1;
			continue;
		}
		ft->at = pkt.offset + (uint64_t)n;
		if (pkt.offset == off) {
			tm_step(&ft->tm, &pkt, st);
			ft->last = off;
			ft->last_st = *st;
			return 0;
		}
		tm_advance(&ft->tm, &pkt);
		if (pkt.offset > off)
			return 1;
	}
	return 1;
}
