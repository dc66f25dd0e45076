/* marks_fixture -- what the marks tests share: a private state directory
 * (XDG_STATE_HOME under a temporary directory, emptied before each test),
 * the messages reported, small file helpers.  Included by one test file
 * each (static definitions). */
#ifndef MARKS_FIXTURE_H
#define MARKS_FIXTURE_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "marks.h"
#include "ptdec.h"

#define UNUSED __attribute__((unused))

#define ID "0000000000100000-1f2e3d4c5b6a7988"
#define ID2 "0000000000100000-aaaaaaaaaaaaaaaa"
#define SIZE 0x100000

static char tmpdir[] = "/tmp/test_marks.XXXXXX";
static char msgs[16384];	/* every message reported, one per line */

static UNUSED void collect(void *ctx, const char *msg)
{
	size_t len = strlen(msgs);

	snprintf(msgs + len, sizeof(msgs) - len, "%s\n", msg);
}

static UNUSED const struct marks_opts opts = { .report = collect };

static UNUSED char *state_file(const char *name)
{
	static char buf[4][4096];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/state/ptbrowse/traces/%s", tmpdir, name);
	return buf[k];
}

static UNUSED void write_file(const char *path, const char *text)
{
	char dir[4096], cmd[4200];
	FILE *f;

	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", dir);
	assert_int_equal(system(cmd), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static UNUSED char *read_file(const char *path)
{
	static char buf[65536];
	size_t n;
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static UNUSED int exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static UNUSED void setup_state(void)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/state", tmpdir);
	setenv("XDG_STATE_HOME", path, 1);
}

static int setup(void **state)
{
	char path[4096];

	if (!mkdtemp(tmpdir))
		return -1;
	setup_state();
	snprintf(path, sizeof(path), "%s/config", tmpdir);
	setenv("XDG_CONFIG_HOME", path, 1);
	snprintf(path, sizeof(path), "%s/cache", tmpdir);
	setenv("XDG_CACHE_HOME", path, 1);
	setenv("HOME", tmpdir, 1);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	return system(cmd) ? -1 : 0;
}

/* Each test starts with an empty state directory and no messages. */
static int clean(void **state)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf %s/state %s/blocker", tmpdir, tmpdir);
	msgs[0] = '\0';
	return system(cmd) ? -1 : 0;
}

#endif /* MARKS_FIXTURE_H */
