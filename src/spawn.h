/*
 * spawn -- run a command with bytes we write on its standard input, as
 * less's '|' runs one: the browser's pipe and yank (tmux load-buffer).
 * The command may stop reading early (`| head`): the writer then gets
 * -EPIPE, never a SIGPIPE.  While it runs, C-c belongs to it: SIGINT and
 * SIGQUIT are ignored here, as system() does, and restored after; so is
 * SIGCHLD, at its default meanwhile (ignored, it would lose the status).
 */
#ifndef SPAWN_H
#define SPAWN_H

#include <stddef.h>

/* Writes the command's input to @fd (a pipe).  Returns 0, or a negative
 * errno (-EPIPE once the command stopped reading), which ends the input. */
typedef int spawn_feed_fn(void *ctx, int fd);

/* spawn_run() flags. */
enum { SPAWN_QUIET = 1 << 0 };	/* its standard output and error go to
				 * /dev/null, not to ours */

/* Write @n bytes at @buf to @fd whole (EINTR and short writes retried).
 * Returns 0, or a negative errno (-EPIPE: the reader is gone). */
int spawn_write(int fd, const void *buf, size_t n);

/* Run @argv (argv[0] found in $PATH) with what @feed(@ctx, fd) writes on
 * its standard input (NULL @feed: empty input), its output where ours
 * goes (or to /dev/null with SPAWN_QUIET), and wait for it.  *@feed_err
 * (may be NULL) gets @feed's return.
 * Returns its exit status (0-255), 128 + N if signal N killed it, 127 if
 * it could not be run (not found, not executable).
 * Returns -pte_invalid if @argv is NULL or empty.
 * Returns -pte_io (errno says why) if no pipe or process could be made. */
int spawn_run(char *const argv[], unsigned int flags, spawn_feed_fn *feed,
	      void *ctx, int *feed_err);

#endif /* SPAWN_H */
