/*
 * session -- the trace's index, built in the background after the first
 * screen (or loaded from the cache), and what depends on it: the time
 * model's carries for windows, the first time.  reload.c (R, and a
 * trace that shrinks under us) and streams_ui.c restart it.
 */
#ifndef SESSION_H
#define SESSION_H

#include <stdio.h>

struct ui;
struct cmd_table;

/* Bytes of decoded rows the window cache keeps. */
#define SESSION_CACHE_BYTES (48u << 20)

/* :info (cmd.h). */
extern const struct cmd_table session_cmds;

/* Start indexing ui->img in the background (from the cache if it has
 * this trace); nothing if that fails (the browser goes on without).  A
 * cache file refused (corrupt, another version...) is said, as by
 * `ptbrowse index`: "index cache ignored (why), rebuilding it". */
void session_idx_start(struct ui *ui);

/* Stop and free the index, waiting for its builder and the cache
 * writer (which read the mapping the caller may unmap next); why the
 * writer failed goes to :messages ("index not cached: ..."). */
void session_idx_stop(struct ui *ui);

/* After a SIGBUS that the trace's file did not cause (it has its size
 * and mtime: reload.c): start the index again (ui->idx stopped), from
 * its cache if that still checks out.  Returns 1 if the cache file is
 * what changed (cut or rewritten under its mapping): the index is
 * rebuilt; else 0. */
int session_idx_refault(struct ui *ui);

/* Look at the index (idle time): once complete, windows start from its
 * time model state and the cache is written in the background; a
 * writer that ended is joined, and why it failed said ("index not
 * cached: ...", once).  Returns 1 while it is still being built, 0 when
 * done or off. */
int session_poll(struct ui *ui);

/* While the index's time pass runs (idle time): windows use the carries
 * it has published so far, and rows decoded without one before are
 * dropped to decode again.  Returns UI_DRAW_ALL if rows were dropped,
 * else UI_DRAW_NONE. */
int session_carries(struct ui *ui);

/* Script mode's wait-carry: wait until the time pass has a carry for the
 * cursor's segment (or the index ended), then take the carries. */
void session_wait_carry(struct ui *ui);

/* Wait for the index cache's save, started once the index is built, to
 * finish (never stops it): --script's bench-index, so that the keys timed
 * after it do not share the CPU with hashing the trace. */
void session_cache_wait(struct ui *ui);

/* At the end, the terminal given back: wait for the cache writer (one
 * finished index not saved yet is saved), and say on @err, after
 * @prefix, why it did not write the cache if :messages has not said it
 * (the message log goes with the browser). */
void session_cache_final(struct ui *ui, FILE *err, const char *prefix);

/* The trace's time origin (ui->t0): the earliest first TSC of its
 * streams, the shown one's from its first packets, the others' from
 * their first PSB+. */
void session_find_t0(struct ui *ui);

/* C-c with no search or summary to stop: stop the index.
 * Returns UI_DRAW_*. */
int session_interrupt(struct ui *ui);

#endif /* SESSION_H */
