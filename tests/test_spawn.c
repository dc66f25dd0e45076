/* test_spawn -- commands fed on standard input: what they read, their
 * status, a reader that stops early, one that cannot run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ptdec.h"
#include "spawn.h"

struct feed {
	const char *data;
	size_t n, repeat;
};

static int feed_fn(void *ctx, int fd)
{
	struct feed *f = ctx;
	size_t i;
	int r;

	for (i = 0; i < f->repeat; i++)
		if ((r = spawn_write(fd, f->data, f->n)) < 0)
			return r;
	return 0;
}

static void test_null(void **state)
{
	char *none[] = { NULL };

	assert_int_equal(spawn_run(NULL, 0, NULL, NULL, NULL), -pte_invalid);
	assert_int_equal(spawn_run(none, 0, NULL, NULL, NULL), -pte_invalid);
}

/* What the command reads is what the feed wrote, byte for byte. */
static void test_input(void **state)
{
	char path[] = "/tmp/test_spawn.XXXXXX", cmd[128], buf[64] = "";
	char *argv[] = { "sh", "-c", cmd, NULL };
	struct feed f = { "a\0b\n", 4, 3 };
	int fd = mkstemp(path), err = 1;
	FILE *in;

	assert_true(fd >= 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "cat > '%s'", path);
	assert_int_equal(spawn_run(argv, 0, feed_fn, &f, &err), 0);
	assert_int_equal(err, 0);
	in = fopen(path, "rb");
	assert_non_null(in);
	assert_int_equal(fread(buf, 1, sizeof(buf), in), 12);
	assert_memory_equal(buf, "a\0b\na\0b\na\0b\n", 12);
	fclose(in);
	unlink(path);
}

static void test_status(void **state)
{
	char *exit3[] = { "sh", "-c", "exit 3", NULL };
	char *killed[] = { "sh", "-c", "kill -9 $$", NULL };
	char *missing[] = { "/nonexistent/ptbrowse-no-such-command", NULL };

	assert_int_equal(spawn_run(exit3, SPAWN_QUIET, NULL, NULL, NULL), 3);
	assert_int_equal(spawn_run(killed, SPAWN_QUIET, NULL, NULL, NULL), 128 + 9);
	assert_int_equal(spawn_run(missing, SPAWN_QUIET, NULL, NULL, NULL), 127);
}

/* A reader that stops after a byte: the feed ends with -EPIPE, we live
 * on (no SIGPIPE), and SIGPIPE's handling is as it was. */
static void test_early_exit(void **state)
{
	static char chunk[65536];
	char *argv[] = { "sh", "-c", "head -c 1 >/dev/null", NULL };
	struct feed f = { chunk, sizeof(chunk), 64 };
	struct sigaction now;
	int err = 0;

	assert_int_equal(spawn_run(argv, 0, feed_fn, &f, &err), 0);
	assert_int_equal(err, -EPIPE);
	sigaction(SIGPIPE, NULL, &now);
	assert_true(now.sa_handler == SIG_DFL);
}

/* Started with SIGCHLD ignored, the child is still waited for (its
 * status, not ECHILD), and SIGCHLD is left ignored. */
static void test_sigchld_ignored(void **state)
{
	char *exit3[] = { "sh", "-c", "exit 3", NULL };
	struct sigaction now;

	signal(SIGCHLD, SIG_IGN);
	assert_int_equal(spawn_run(exit3, SPAWN_QUIET, NULL, NULL, NULL), 3);
	sigaction(SIGCHLD, NULL, &now);
	signal(SIGCHLD, SIG_DFL);
	assert_true(now.sa_handler == SIG_IGN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_input),
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_early_exit),
		cmocka_unit_test(test_sigchld_ignored),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
