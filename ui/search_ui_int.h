/*
 * search_ui_int -- what the search's two files share (not for other
 * modules): search_ui.c runs searches and reports them, search_ui_filter.c
 * is the filter view.
 */
#ifndef SEARCH_UI_INT_H
#define SEARCH_UI_INT_H

#include <stddef.h>
#include <stdint.h>

struct ui;
struct srch;
struct srch_pred;
struct search_sb;

/* Bytes the filter view decodes per call (a screen, a cursor move). */
#define SUI_FILTER_BUDGET (4u << 20)
/* Bytes a cursor move in the filter view looks at before giving up. */
#define SUI_MOVE_BUDGET (64u << 20)
/* Rows of the filter view's screen cache. */
#define SUI_ROWS 512

struct search_ui {
	/* the last search */
	struct srch *s;			/* running or finished; NULL if none */
	struct search_sb *sb;		/* or one with sideband terms
					 * (search_sb.h); then pred is NULL */
	struct srch_pred *pred;		/* its predicate */
	char *text;			/* as typed, without "-b"; "" if none */
	int dir;			/* as asked: 1 forward, -1 backward */
	int sdir;			/* the direction of s itself */
	int jumped;			/* went to its first hit */
	int reported;			/* told how it ended */
	int hl;				/* highlight hits (M-u) */
	uint64_t *snap;			/* the kept hits, sorted (search_ui_snap()) */
	size_t nsnap, capsnap;
	int snap_final;			/* taken after the search ended */
	const char *note;		/* the P1 estimate's note, until the
					 * first hit shows it; NULL if none */
	unsigned sver;			/* the filter (fver) it was made
					 * under: its hits are the filter's
					 * rows that match; once the filter
					 * changes, n, N and * search text
					 * again under the new one */
	int approx;			/* its count is an estimate: a gap
					 * decoded without the index's time
					 * pass (search_ui_time_exact()) */
	uint64_t pending;		/* n or N steps to go from the hit
					 * the search lands on or is at, once
					 * known: typed ahead of its first hit
					 * or of hits not found yet, or a
					 * count's past the kept hits */
	int pending_rev;		/* those were N's */

	/* the filter view: a packet expression (fpred), or sideband or code
	 * terms with one (fsb; fpred is then NULL), or neither: no filter */
	struct srch_pred *fpred;
	struct search_sb *fsb;		/* the terms' search over the stream */
	int franges;			/* fsb's rows: every packet of its
					 * task ranges (comm, pid, tid alone),
					 * else its hits */
	int fsb_seen;			/* saw fsb finished (rows refilled) */
	char *ftext;			/* as typed; "" if none */
	unsigned fver;			/* bumped when the filter is set or
					 * cleared */
	unsigned fgen;			/* bumped when the filter or its rows
					 * change */
	unsigned cgen;			/* the filter the cache is for */
	uint64_t ctop;			/* the top the cache is for */
	uint64_t rows[SUI_ROWS];	/* matching rows from ctop */
	size_t nrows;
	uint64_t resume;		/* where to go on looking */
	int cstate;			/* 1 looking, 0 enough, -1 the end */
	uint64_t fseen;			/* the cursor search_ui_fsnap() last saw */
	/* Past one budget of work, the next matching row is looked for in
	 * the background on all cores (a rare filter on a big trace took
	 * minutes a budget per turn), with progress, stopped by C-c. */
	struct srch *fs;		/* looking from resume; NULL if not */
	int fstopped;			/* C-c stopped it: no more rows */
};

/* The state, made on first use (out of memory ends the program). */
struct search_ui *search_ui_get(struct ui *ui);
/* Parse @text for command @what ("search", "filter"); a bad one is said
 * on the message line.  Returns the predicate, or NULL. */
struct srch_pred *search_ui_parse(struct ui *ui, const char *what, const char *text);
/* Sleep @ms milliseconds (waiting on a search in --script mode). */
void search_ui_sleep_ms(int ms);
/* A copy of @fmt filled in, as asprintf (out of memory ends the
 * program): the lines typed have no length limit. */
char *search_ui_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The filter was set or cleared: the last search's hits were for the one
 * before, so they go (its text stays: n, N and * search it again). */
void search_ui_refilter(struct ui *ui);

/* search_ui_filter.c: :filter TEXT ("" shows all again).  Returns
 * UI_DRAW_*. */
int search_ui_filter(struct ui *ui, const char *text);
/* Whether a filter is set (a packet expression or terms). */
int search_ui_fon(const struct search_ui *su);
/* C-c for the filter's terms' search: stopped (1, said) or not running
 * (0). */
int search_ui_fstop(struct ui *ui);
/* " (looking N%, C-c stops)" while the filter's terms are searched into
 * @buf ("" if not).  Returns @buf. */
const char *search_ui_flooking(struct ui *ui, char *buf, size_t size);
/* Fill the screen cache with @want matching rows (@more: go on in the
 * background past the budget). */
void search_ui_fill(struct ui *ui, size_t want, int more);
/* Look at the background look for rows: *@busy as search_ui_poll().
 * Returns UI_DRAW_*. */
int search_ui_fpoll(struct ui *ui, int *busy);

#endif /* SEARCH_UI_INT_H */
