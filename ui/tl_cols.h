/* tl_cols -- the timeline's columns: its axis, and what each column
 * holds; tl.c draws them and turns clicks into jumps. */
#ifndef TL_COLS_H
#define TL_COLS_H

#include <stddef.h>
#include <stdint.h>

struct ui;

#define TL_MAX_COLS 1024

/* What a column holds, computed from the index's summaries. */
struct tl_col {
	double packets;		/* density */
	uint32_t trouble;	/* OVFs, errors and gaps */
	uint32_t psbs;
	uint8_t known;		/* summarised (else still being indexed) */
};

/* The columns, recomputed only when something they depend on changed. */
struct tl_cache {
	struct tl_col col[TL_MAX_COLS];
	int ncols;
	int time;		/* axis of this computation */
	uint64_t lo, hi;	/* bytes, or TSC for the time axis */
	size_t nsum, nseeks;
	double max;
	double when;		/* when it was computed */
};

/* The columns last computed (ncols 0: recompute on the next draw). */
extern struct tl_cache tl_cols_cache;

/* The time range of the trace: the first TSC to the last row's estimate
 * (the index's totals where it knows more).  Returns 1 and sets *@t0 and
 * *@t1, or 0 if unknown. */
int tl_cols_time_range(struct ui *ui, uint64_t *t0, uint64_t *t1);
/* Whether the timeline shows time (asked for, and available): 1 or 0. */
int tl_cols_is_time(struct ui *ui);
/* The TSC of the row holding @off, or 0 if it has none. */
uint64_t tl_cols_row_tsc(struct ui *ui, uint64_t off);
/* The axis range [*@lo, *@hi) for @ncols columns around the cursor at
 * ui->tl_zoom: bytes, or TSC ticks if @time. */
void tl_cols_axis(struct ui *ui, int time, int ncols, uint64_t *lo, uint64_t *hi);
/* The column of axis value @v in @tc, or -1 outside its range. */
int tl_cols_of(const struct tl_cache *tc, uint64_t v);
/* Recompute tl_cols_cache for @ncols (at most TL_MAX_COLS) columns if the
 * range changed, or the index grew (a few times a second at most until
 * it is complete). */
void tl_cols_compute(struct ui *ui, int ncols);

#endif /* TL_COLS_H */
