/* spawn -- a command fed on its standard input, waited for. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ptdec.h"
#include "spawn.h"

int spawn_write(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* In the child, between fork and exec: only async-signal-safe calls (the
 * browser has threads).  The signals we ignore stay ignored across exec,
 * so they go back to their defaults. */
static void spawn_child(char *const argv[], unsigned int flags, int in)
{
	struct sigaction dfl;
	sigset_t none;
	int null;

	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(SIGINT, &dfl, NULL);
	sigaction(SIGQUIT, &dfl, NULL);
	sigaction(SIGPIPE, &dfl, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (in != STDIN_FILENO) {
		dup2(in, STDIN_FILENO);
		close(in);
	}
	if (flags & SPAWN_QUIET) {
		null = open("/dev/null", O_WRONLY);
		if (null >= 0) {
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
			if (null > STDERR_FILENO)
				close(null);
		}
	}
	execvp(argv[0], argv);
	_exit(127);
}

int spawn_run(char *const argv[], unsigned int flags, spawn_feed_fn *feed,
	      void *ctx, int *feed_err)
{
	struct sigaction ign, dfl, old_int, old_quit, old_pipe, old_chld;
	int fds[2], status = 0, r = 0, e;
	pid_t pid, w;

	if (feed_err)
		*feed_err = 0;
	if (!argv || !argv[0])
		return -pte_invalid;
	if (pipe(fds) < 0)
		return -pte_io;
	/* Ignored before the fork, so a C-c just after it cannot kill us. */
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	sigaction(SIGPIPE, &ign, &old_pipe);
	/* Ignored SIGCHLD (a parent may start us so) reaps the child itself:
	 * waitpid() would fail with ECHILD and lose its status. */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(SIGCHLD, &dfl, &old_chld);
	pid = fork();
	if (pid == 0) {
		close(fds[1]);
		spawn_child(argv, flags, fds[0]);
	}
	e = errno;
	close(fds[0]);
	if (pid < 0) {
		close(fds[1]);
		r = -pte_io;
		goto out_signals;
	}
	if (feed)
		r = feed(ctx, fds[1]);
	if (feed_err)
		*feed_err = r;
	close(fds[1]);
	do
		w = waitpid(pid, &status, 0);
	while (w < 0 && errno == EINTR);
	e = errno;
	if (w < 0)
		r = -pte_io;
	else if (WIFSIGNALED(status))
		r = 128 + WTERMSIG(status);
	else
		r = WEXITSTATUS(status);
out_signals:
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	sigaction(SIGPIPE, &old_pipe, NULL);
	sigaction(SIGCHLD, &old_chld, NULL);
	errno = e;
	return r;
}
