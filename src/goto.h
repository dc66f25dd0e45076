/*
 * goto -- the one parser of goto targets, for :goto and for keys with
 * counts, and a resolver that turns a target into a byte offset.
 *
 *   0x1f5c  8028  4KiB       absolute byte offset
 *   45%  12.5%               percent of the file
 *   +4KiB  -0x100  +10%      relative to the cursor
 *   $  $-64KiB  ^            end, relative to the end, start
 *   psb 1234  psb +3         N-th sync point (from 0), or relative
 *   tsc 0x1a2b3c             first packet with TSC >= value
 *   t 12.5ms  t +3us         time from the trace start, or relative
 *   t 5000cyc  t -20cyc      core cycles from the start, or relative
 *   'a  'name                a mark
 *   NAME  region NAME        the start of a region
 *   #123456                  packet ordinal (from 0), once counted
 *   comm NAME  pid N  tid N  switch    the next packet of that task, the
 *                            next switch (the search's terms, src/ctxterm.h)
 *   sym NAME  call NAME  ret the next packet that decided an instruction of
 *                            function NAME, a call into it, a return
 *
 * The last two lines are searches, not parsed here: the browser hands a
 * line starting with one of those words to its search (ui/goto_ui.c), which
 * goes to the first hit after the cursor, wrapping, and n and N go on;
 * so those words are never a region's name.
 *
 * Units, case-insensitive: KiB MiB GiB TiB (binary), kB MB GB TB
 * (decimal), ns us ms s, cyc.  Numbers are decimal (a fraction is allowed
 * with a unit or %, 18 digits after the point at most) or 0x hex (0x10cyc
 * is 0x10 cycles).  Offsets lie in [0, size]; size is the end.
 * Relative moves stop at the start and the end; absolute ones past the end
 * are errors.  The resolver asks the index through goto_ctx callbacks, so
 * tests use fakes.  Messages are one line and start with "goto: ".
 */
#ifndef GOTO_H
#define GOTO_H

#include <stddef.h>
#include <stdint.h>

enum goto_kind {
	GOTO_OFFSET,	/* value bytes (rel: a move) */
	GOTO_PERCENT,	/* num/den percent (rel: a move by that share) */
	GOTO_START,	/* ^ */
	GOTO_END,	/* $, or value bytes before the end */
	GOTO_PSB,	/* sync point number value (rel: a move) */
	GOTO_TSC,	/* first TSC >= value */
	GOTO_TIME,	/* value ns from the start (rel: a move) */
	GOTO_CYCLES,	/* value core cycles from the start (rel: a move) */
	GOTO_MARK,	/* mark name */
	GOTO_REGION,	/* region name */
	GOTO_ORDINAL	/* packet number value */
};

#define GOTO_NAME_MAX 64

/* A parsed target. */
struct goto_target {
	enum goto_kind kind;
	int rel;		/* 0 absolute, +1 forward, -1 backward */
	uint64_t value;		/* see enum goto_kind */
	uint64_t num, den;	/* GOTO_PERCENT: num/den percent */
	char name[GOTO_NAME_MAX];	/* GOTO_MARK, GOTO_REGION */
};

/* What the resolver may ask.  A NULL callback means "not available"
 * (e.g. no index yet); the resolver then says so.  Each callback returns
 * 0 and an offset, or a negative pte code; it may write its own one-line
 * message into @err (else the resolver writes one). */
struct goto_ctx {
	uint64_t cursor;	/* the cursor's byte offset */
	uint64_t size;		/* the trace's size in bytes */
	void *arg;		/* passed to every callback */
	/* offset of sync point @n (from 0); -pte_eos if there is none */
	int (*psb_offset)(void *arg, uint64_t n, uint64_t *off, char *err,
			  size_t errlen);
	/* number of the last sync point at or before @off, -1 if none */
	int (*psb_number)(void *arg, uint64_t off, int64_t *n, char *err,
			  size_t errlen);
	/* offset of the first packet with TSC >= @tsc */
	int (*tsc_offset)(void *arg, uint64_t tsc, uint64_t *off, char *err,
			  size_t errlen);
	/* offset of the first packet at or after @ns from the trace start */
	int (*time_offset)(void *arg, uint64_t ns, uint64_t *off, char *err,
			   size_t errlen);
	/* time of the packet at @off, ns from the trace start */
	int (*time_at)(void *arg, uint64_t off, uint64_t *ns, char *err,
		       size_t errlen);
	/* offset of the first packet at or after @cyc cycles from the start */
	int (*cycles_offset)(void *arg, uint64_t cyc, uint64_t *off, char *err,
			     size_t errlen);
	/* cycles from the start at the packet at @off */
	int (*cycles_at)(void *arg, uint64_t off, uint64_t *cyc, char *err,
			 size_t errlen);
	/* offset of packet number @n (from 0) */
	int (*ordinal_offset)(void *arg, uint64_t n, uint64_t *off, char *err,
			      size_t errlen);
	/* offset of mark @name; -pte_invalid if there is none */
	int (*mark_offset)(void *arg, const char *name, uint64_t *off,
			   char *err, size_t errlen);
	/* start offset of region @name; -pte_invalid if there is none */
	int (*region_offset)(void *arg, const char *name, uint64_t *off,
			     char *err, size_t errlen);
};

/* Parse goto argument @arg (leading and trailing blanks are fine).
 * Returns 0 and fills @t.
 * Returns -pte_invalid with a one-line message in @err if @arg is not a
 * target (e.g. "goto: unknown unit 'kx' in '4kx'"). */
int goto_parse(const char *arg, struct goto_target *t, char *err,
	       size_t errlen);

/* Make @t from a key's count @n: GOTO_OFFSET (NP), GOTO_PERCENT (N%),
 * GOTO_PSB, GOTO_ORDINAL (Ng) or GOTO_TSC, absolute.
 * Returns 0, or -pte_invalid for another @kind or a NULL @t. */
int goto_from_count(struct goto_target *t, enum goto_kind kind, uint64_t n);

/* Resolve @t in @ctx to a byte offset in [0, ctx->size] (the UI then
 * shows the packet containing it).
 * Returns 0 and sets *@offset.
 * Returns -pte_invalid with a message in @err if the target does not
 * exist (past the end, no such mark, > 100%), or the callback's error
 * (-pte_eos, -pte_no_time, ...) with its message, or the resolver's
 * "goto: ... not available" if the callback is NULL. */
int goto_resolve(const struct goto_target *t, const struct goto_ctx *ctx,
		 uint64_t *offset, char *err, size_t errlen);

/* goto_parse() then goto_resolve().  Returns as they do. */
int goto_offset(const char *arg, const struct goto_ctx *ctx,
		uint64_t *offset, char *err, size_t errlen);

/* Whether prompt line @line is a bare goto target rather than a command
 * (":0x1f00", ":45%", ":$", ":'a", ":#12"): it starts with a digit, + - $
 * ^ ' or #.  Returns 1 or 0. */
int goto_is_target(const char *line);

/* The TSC @ns nanoseconds after TSC @t0 at @hz ticks a second, rounded
 * up to a whole tick, into *@tsc: what "t 12.5ms" looks for (a packet at
 * that TSC or after is timed at or after @ns).
 * Returns 0, or -pte_invalid with a message in @err if that lies past the
 * largest TSC (a double that large has no uint64_t value). */
int goto_tsc_after(uint64_t t0, uint64_t ns, double hz, uint64_t *tsc,
		   char *err, size_t errlen);

#endif /* GOTO_H */
