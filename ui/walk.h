/*
 * walk -- long decodes away from the browser's thread.
 *
 * A row deep in a long PSB segment (tens of MiB between PSBs) is had by
 * decoding the segment from its PSB, or from the nearest chunk decoded
 * before (window.h): seconds, wherever a pane, a jump or a step needs it.
 * The browser's thread walks for at most WALK_QUIET_MS in a turn (the
 * windows' watch, win_cache_set_watch()); a walk that needs more is
 * refused (-pte_canceled, and every other walk of the turn with it) and
 * handed to a job on a thread of its own, with the chunks known so far.
 * The job's progress is on the status line; when it is done its chunks
 * are the browser's and the screen is drawn again (a jump that waited for
 * it lands: nav.h).  C-c stops the job, keeping what it decoded; that
 * segment is then not walked again until a key asks.
 */
#ifndef WALK_H
#define WALK_H

#include <stddef.h>
#include <stdint.h>

struct ui;

/* Watch the walks of @ui's windows (ui->wc; again after it is replaced);
 * called each turn before the drawing.  Nothing is watched in a headless
 * browser: its walks run to the end. */
void walk_watch(struct ui *ui);

/* A turn's key and the drawing after it are done: a walk refused in it
 * goes to a job (one at a time: a key's replaces an idle turn's, not the
 * other way), and walks may run again.  Returns 1 if a job started (its
 * progress is to be shown soon), else 0. */
int walk_done(struct ui *ui);

/* A key came: the segment whose job C-c stopped may be walked again. */
void walk_key(struct ui *ui);

/* Whether a walk was refused in this turn: 0 no, 1 C-c stopped it,
 * 2 a job does it. */
int walk_stopped(const struct ui *ui);

/* A jump refused for a job (walk_stopped() 2) that lands when it is done:
 * the offset and how it is placed (nav.c's); the cursor it left, to see
 * whether a key moved it meanwhile, and its ui->jump_seq, whether a later
 * jump was asked. */
struct walk_wait {
	uint64_t off, cursor, seq;
	int how;
};

/* Keep @w for the job of this turn's walk (the last one asked lands). */
void walk_wait_for(struct ui *ui, const struct walk_wait *w);

/* Reap a finished job: its chunks become the browser's windows'.
 * Returns 2 if one finished and a jump waited for it (in *@land), 1 if
 * one finished (the screen is to be drawn again), 0 if none, or a job
 * runs (*@busy is then set to 2, if @busy). */
int walk_poll(struct ui *ui, int *busy, struct walk_wait *land);

/* Stop a running job (C-c), keeping what it decoded; the jump waiting for
 * it is dropped.  Returns 1 if one ran, else 0. */
int walk_stop(struct ui *ui);

/* Stop and forget the job without handing anything over (the windows or
 * the mapping are going away). */
void walk_free(struct ui *ui);

/* The running job's progress for the status line into @buf; returns its
 * length (0: none runs). */
size_t walk_status(struct ui *ui, char *buf, size_t size);

#endif /* WALK_H */
