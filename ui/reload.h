/* reload -- R: show the trace as it is on disk now: grown, rewritten or
 * replaced (the file's identity tells which); and the recovery when it
 * shrinks under the browser. */
#ifndef RELOAD_H
#define RELOAD_H

struct ui;
struct cmd_table;

/* :reload (cmd.h). */
extern const struct cmd_table reload_cmds;

/* Remember the identity of ui->trace's file, for :reload. */
void reload_remember(struct ui *ui);

/* On an idle turn, at most twice a second: whether the trace's file (or
 * its options file) changed on disk since it was read; said once, until
 * R, as "FILE changed on disk: R reloads" (or "grew", or
 * "FILE.options changed").  Looks with stat() alone, never at the bytes.
 * Returns UI_DRAW_STATUS if it said something, else UI_DRAW_NONE. */
int reload_poll(struct ui *ui);

/* Run @body(@arg) for @ui (a turn of the loop, a script line).  If the
 * trace shrank under it (a read of the lost part raised SIGBUS, which
 * unwound it: trace_guard()), everything that reads the old mapping
 * stops; what is left is mapped and shown on the stream of the same name
 * (the first, said, if the file has it no more), its marks opened again
 * as after R on a shorter file (those kept in memory merged, with a
 * warning).  A file left empty, with no stream, or no memory sets
 * ui->fatal and ui->quit.
 * Returns what @body returns, or -pte_sigbus. */
int reload_guarded(struct ui *ui, int (*body)(void *), void *arg);

#endif /* RELOAD_H */
