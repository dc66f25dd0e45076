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
	uint32_t unplaced;	/* trouble that may be here, not placed yet */
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
/* The whole axis [*@a, *@b) (bytes, or TSC ticks if @time) and the
 * cursor's value on it in *@c (on the time axis its row's TSC, 0 if it
 * has none). */
void tl_cols_whole(struct ui *ui, int time, uint64_t *a, uint64_t *b, uint64_t *c);
/* The column of axis value @v in @tc, or -1 outside its range. */
int tl_cols_of(const struct tl_cache *tc, uint64_t v);
/* Recompute tl_cols_cache for @ncols (at most TL_MAX_COLS) columns over
 * [@lo, @hi) of the axis (@time: TSC, else bytes) if the range changed,
 * or the index grew (a few times a second at most until it is
 * complete). */
void tl_cols_compute(struct ui *ui, int ncols, int time, uint64_t lo, uint64_t hi);

/* A marker row's cell: the glyph of the highest rank offered. */
struct tl_cell {
	const char *g;		/* NULL: blank */
	int attr;
	int rank;		/* TL_RANK_*, 0 blank */
};

/* Ranks on the marker row: what shows when several share a column.
 * Trouble in most columns says little per column (the density row is
 * red there too), so it gives way to everything; trouble in a few is
 * news and beats PSBs and the sideband; marks beat all. */
enum {
	TL_RANK_TROUBLE_DENSE = 1,	/* '!' in more than half the columns */
	TL_RANK_SIDEBAND,		/* switches, comm, itrace start */
	TL_RANK_PSB,			/* '╵' when PSBs are few */
	TL_RANK_TROUBLE,		/* '!' OVF, error, gap, data lost */
	TL_RANK_HIT,			/* '·' a search hit */
	TL_RANK_MARK,			/* a mark's letter, '*' a bookmark */
};

/* Offer glyph @g (attributes @attr) of rank @rank to @cell: it is taken
 * if it ranks above what the cell holds. */
void tl_cols_offer(struct tl_cell *cell, const char *g, int attr, int rank);

#endif /* TL_COLS_H */
