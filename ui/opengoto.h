/*
 * opengoto -- where the browser opens: `ptbrowse +GOTO TRACE` and
 * `--goto GOTO`, as less's +cmd.  GOTO is what :goto takes (an offset,
 * 50%, 't 12.5ms', psb N, #N, a mark or region name, comm NAME ...), or
 * less's +G (the end) and +/PATTERN (the first match).
 *
 * A target the index must answer (times, PSBs, packet numbers) waits for
 * it without holding up the screen: it is tried when the browser starts,
 * then at each idle tick while the index is built, and lands through
 * :goto itself, so it lands where :goto does.  A key that moves the
 * cursor first wins (the wait ends).  One that cannot be reached says so
 * on the message line, and the browser stays at the start.
 */
#ifndef OPENGOTO_H
#define OPENGOTO_H

#include <stddef.h>

struct ui;

/* Check @arg before the browser starts: a goto target :goto parses, a
 * sideband term, G or /PATTERN.
 * Returns 0, or -pte_invalid with goto's one-line message in @err. */
int opengoto_check(const char *arg, char *err, size_t errlen);

/* Go to @arg (NULL: nothing to do), from the first screen; @index_coming
 * says the index is about to be built (targets that need it wait for it).
 * @arg must outlive the browser (argv). */
void opengoto_start(struct ui *ui, const char *arg, int index_coming);

/* Idle time (the loop, each script line): try a waiting target again.
 * Returns UI_DRAW_* (UI_DRAW_ALL once it landed). */
int opengoto_poll(struct ui *ui);

#endif /* OPENGOTO_H */
