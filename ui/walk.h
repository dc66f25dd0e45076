/*
 * walk -- a long decode on the browser's thread, seen and stoppable.
 *
 * A row deep in a long PSB segment (tens of MiB between PSBs) is had by
 * decoding the segment from its PSB, or from the nearest chunk decoded
 * before (window.h): seconds, wherever a pane, a jump or a step needs
 * it.  The windows' watch (win_cache_set_watch()) is told of each chunk:
 * after a short quiet time the message line says how far the walk got,
 * and a C-c stops it.  A walk stopped, every other walk asked for until
 * the screen is drawn fails at once (-pte_canceled), so one C-c ends all
 * the key's work and the drawing after it, and that segment is not walked
 * again until a key comes; the chunks decoded are kept, and the same walk
 * asked again goes on from there.
 */
#ifndef WALK_H
#define WALK_H

struct ui;

/* Watch the walks of @ui's windows (ui->wc; again after it is replaced).
 * Nothing is watched in a headless browser: no one can press C-c. */
void walk_watch(struct ui *ui);

/* A turn's key and the drawing after it are done: walks may run again
 * (a job's answer landing while no key comes is not refused). */
void walk_done(struct ui *ui);

/* A key came: the segment whose walk C-c stopped may be walked again
 * (until then the idle turns and the drawing leave it, whoever asks). */
void walk_key(struct ui *ui);

/* Whether C-c stopped a walk in this turn.  Returns 1 or 0. */
int walk_stopped(const struct ui *ui);

#endif /* WALK_H */
