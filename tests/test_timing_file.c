/* test_timing_file -- TRACE.options: reading, writing, the hint, and
 * trace_open() taking a raw trace's timing from it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ptdec.h"
#include "safefile.h"
#include "timing_file.h"
#include "trace.h"

struct fix {
	char dir[64];
	char trace[128];
	char opts[160];
};

static int setup(void **state)
{
	struct fix *f = calloc(1, sizeof(*f));
	static const unsigned char psb[16] = {
		0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
		0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82 };
	FILE *fp;

	if (!f)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/test_timing_file.XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->trace, sizeof(f->trace), "%s/t.pt", f->dir);
	snprintf(f->opts, sizeof(f->opts), "%s/t.pt.options", f->dir);
	fp = fopen(f->trace, "w");
	if (!fp)
		return -1;
	fwrite(psb, 1, sizeof(psb), fp);
	fclose(fp);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fix *f = *state;

	unlink(f->opts);
	unlink(f->trace);
	rmdir(f->dir);
	free(f);
	return 0;
}

static void put(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

static void test_null(void **state)
{
	struct tm_config cfg;
	char buf[64], err[64];

	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(timing_file_path(NULL, buf, sizeof(buf)), -pte_invalid);
	assert_int_equal(timing_file_path("x", NULL, 0), -pte_invalid);
	assert_int_equal(timing_file_path("abcdefgh", buf, 8), -pte_invalid);
	assert_int_equal(timing_file_path("a.pt", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "a.pt.options");
	assert_int_equal(timing_file_read(NULL, &cfg, err, sizeof(err)), -pte_invalid);
	assert_int_equal(timing_file_read("x", NULL, err, sizeof(err)), -pte_invalid);
	assert_int_equal(timing_file_write(NULL, &cfg, NULL, err, sizeof(err)),
			 -pte_invalid);
	assert_int_equal(timing_file_hint(NULL, &cfg, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
}

/* No file: nothing read, nothing changed. */
static void test_missing(void **state)
{
	struct fix *f = *state;
	struct tm_config cfg;
	char err[256];

	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(timing_file_read(f->opts, &cfg, err, sizeof(err)), 0);
	assert_false(cfg.have_cpu || cfg.have_mtc_freq || cfg.have_nom_freq);
	/* A directory is no options file: an error naming it. */
	assert_int_equal(timing_file_read(f->dir, &cfg, err, sizeof(err)), -pte_io);
	assert_non_null(strstr(err, f->dir));
}

/* extract's one line, ptrecord's --raw lines, comments, --opt=VAL, other
 * tools' options: only the timing is taken. */
static void test_read(void **state)
{
	struct fix *f = *state;
	struct tm_config cfg;
	char err[256];

	put(f->opts, "# made by hand\n"
		"--cpu 6/78/3 --mtc-freq 3\n"
		"\n"
		"--raw /a dir/with blanks.bin:0x400000\n"
		"  --nom-freq=12 --foo --cpuid-0x15.eax 2 --bar 7 --cpuid-0x15.ebx 100\r\n"
		"--tsc-freq 1.2GHz");
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(timing_file_read(f->opts, &cfg, err, sizeof(err)), 1);
	assert_true(cfg.have_cpu);
	assert_int_equal(cfg.cpu_model, 78);
	assert_true(cfg.have_mtc_freq);
	assert_int_equal(cfg.mtc_freq, 3);
	assert_true(cfg.have_nom_freq);
	assert_int_equal(cfg.nom_freq, 12);
	assert_true(cfg.have_cpuid_15);
	assert_int_equal(cfg.cpuid_15_eax, 2);
	assert_int_equal(cfg.cpuid_15_ebx, 100);
	assert_true(cfg.have_tsc_hz);
	assert_int_equal(cfg.tsc_hz, 1200000000);
	/* An empty file is read, and says nothing. */
	put(f->opts, "\n");
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(timing_file_read(f->opts, &cfg, err, sizeof(err)), 1);
	assert_false(cfg.have_cpu);
}

/* Malformed: one line naming the file and line. */
static void test_bad(void **state)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "--cpu 6/78\n--mtc-freq x\n", ":2: --mtc-freq: bad value 'x'" },
		{ "--nom-freq\n", ":1: --nom-freq: missing value" },
		{ "--nom-freq --cpu 6/78\n", ":1: --nom-freq: missing value" },
		{ "# ok\ncpu 6/78\n", ":2: 'cpu' is not an option" },
		{ "--cpu 6/78 junk\n", ":1: 'junk' is not an option" },
		{ "--tsc-freq=fast\n", ":1: --tsc-freq: bad value 'fast'" },
		/* it read as "--mtc-freq 3", "junk" dropped unsaid */
		{ "--cpu 6/78\r\n--mtc-freq 3\rjunk\n",
		  ":2: a CR inside the line (only CRLF may end one)" },
	};
	struct fix *f = *state;
	struct tm_config cfg;
	char err[256], want[256];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		put(f->opts, cases[i].text);
		memset(&cfg, 0, sizeof(cfg));
		assert_int_equal(timing_file_read(f->opts, &cfg, err, sizeof(err)),
				 -pte_bad_config);
		snprintf(want, sizeof(want), "%s%s", f->opts, cases[i].msg);
		assert_string_equal(err, want);
	}
	{
		FILE *fp = fopen(f->opts, "w");

		assert_non_null(fp);
		fwrite("--cpu\0 6/78\n", 1, 12, fp);
		fclose(fp);
		assert_int_equal(timing_file_read(f->opts, &cfg, err, sizeof(err)),
				 -pte_bad_config);
		assert_non_null(strstr(err, ":1: a NUL byte"));
	}
}

/* ptrecord's --raw line per code mapping: a thousand of them (past the
 * 64 KiB it once refused: the trace could not be opened) are read; a file
 * past TIMING_FILE_MAX is refused, saying why. */
static void test_big(void **state)
{
	struct fix *f = *state;
	struct tm_config cfg;
	char err[256], want[256];
	FILE *fp = fopen(f->opts, "w");
	int i;

	assert_non_null(fp);
	for (i = 0; i < 1000; i++)
		fprintf(fp, "--raw /usr/lib/x86_64-linux-gnu/some/library/number-%04d.so"
			":0x7f0000%06x\n", i, i * 0x1000);
	fprintf(fp, "--cpu 6/78/3 --mtc-freq 3\n");
	fclose(fp);
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(timing_file_read(f->opts, &cfg, err, sizeof(err)), 1);
	assert_true(cfg.have_mtc_freq);
	assert_int_equal(cfg.mtc_freq, 3);

	assert_int_equal(truncate(f->opts, (off_t)TIMING_FILE_MAX + 1), 0);
	assert_int_equal(timing_file_read(f->opts, &cfg, err, sizeof(err)), -pte_io);
	snprintf(want, sizeof(want), "%s: bigger than 16 MiB: not an options file",
		 f->opts);
	assert_string_equal(err, want);
}

/* Collects the image options timing_file_read_images() gives. */
static int collect(void *ctx, const char *opt, const char *val, char *why,
		   size_t len)
{
	char *out = ctx;

	if (!strcmp(val, "refuse")) {
		snprintf(why, len, "--%s: refused", opt);
		return -1;
	}
	snprintf(out + strlen(out), 512 - strlen(out), "[%s=%s]", opt, val);
	return 0;
}

/* flow --options: each line's image option, its value the rest of the
 * line (a path with blanks), after the timing before it on that line. */
static void test_images(void **state)
{
	struct fix *f = *state;
	struct tm_config cfg;
	char err[256], got[512] = "", want[256];

	put(f->opts, "--mtc-freq 3 --raw a dir/x.bin:0x1000  \r\n"
		"--elf=b.out\n# --raw not.bin:0x1\n--kallsyms\t k s\n--sysroot\n"
		"--buildid-dir d --cpu 6/78\n");
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(timing_file_read_images(f->opts, &cfg, collect, got, err,
						 sizeof(err)), 1);
	assert_string_equal(got, "[raw=a dir/x.bin:0x1000][elf=b.out][kallsyms=k s]"
			    "[sysroot=][buildid-dir=d --cpu 6/78]");
	assert_int_equal(cfg.mtc_freq, 3);
	put(f->opts, "--cpu 6/78\n--elf refuse\n");
	assert_int_equal(timing_file_read_images(f->opts, &cfg, collect, got, err,
						 sizeof(err)), -pte_bad_config);
	snprintf(want, sizeof(want), "%s:2: --elf: refused", f->opts);
	assert_string_equal(err, want);
}

/* What timing_file_write() writes, timing_file_read() reads back. */
static void test_write(void **state)
{
	struct fix *f = *state;
	struct tm_config cfg, back;
	char err[4400];
	FILE *fp;
	char line[256];

	memset(&cfg, 0, sizeof(cfg));
	cfg.have_cpu = 1;
	cfg.cpu_family = 6;
	cfg.cpu_model = 0x55;
	cfg.cpu_stepping = 4;
	cfg.have_mtc_freq = 1;
	cfg.mtc_freq = 9;
	assert_int_equal(timing_file_write(f->trace, &cfg, NULL, err, sizeof(err)), 0);
	fp = fopen(f->opts, "r");
	assert_non_null(fp);
	assert_non_null(fgets(line, sizeof(line), fp));
	fclose(fp);
	assert_string_equal(line, "--cpu 6/85/4 --mtc-freq 9\n");
	memset(&back, 0, sizeof(back));
	assert_int_equal(timing_file_read(f->opts, &back, err, sizeof(err)), 1);
	assert_int_equal(back.cpu_model, 0x55);
	assert_int_equal(back.mtc_freq, 9);
	/* A directory where the file goes: refused, named. */
	unlink(f->opts);
	assert_int_equal(mkdir(f->opts, 0755), 0);
	assert_true(timing_file_write(f->trace, &cfg, NULL, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "t.pt.options"));
	rmdir(f->opts);
}

/* trace_open(): the file beside a raw trace is its stream's timing; a bad
 * one fails the open with the file's line; the hint. */
static void test_trace_open(void **state)
{
	struct fix *f = *state;
	struct trace *t = NULL;
	char err[512], hint[400];

	assert_int_equal(trace_open(&t, f->trace, err, sizeof(err)), 0);
	assert_false(t->options_read);
	assert_false(t->streams[0].timing.have_nom_freq);
	assert_int_equal(timing_file_hint(t, &t->streams[0].timing, hint,
					  sizeof(hint)), 1);
	assert_non_null(strstr(hint, "no timing options (no t.pt.options)"));
	/* which options, and where they go */
	assert_non_null(strstr(hint, "--mtc-freq"));
	assert_non_null(strstr(hint, "in t.pt.options"));
	trace_close(t);

	put(f->opts, "--mtc-freq 3\n");
	assert_int_equal(trace_open(&t, f->trace, err, sizeof(err)), 0);
	assert_true(t->options_read);
	assert_true(t->streams[0].timing.have_mtc_freq);
	assert_int_equal(timing_file_hint(t, &t->streams[0].timing, hint,
					  sizeof(hint)), 1);
	assert_non_null(strstr(hint, "t.pt.options gives no TSC frequency"));
	trace_close(t);

	put(f->opts, "--mtc-freq 3 --nom-freq 24\n");
	assert_int_equal(trace_open(&t, f->trace, err, sizeof(err)), 0);
	assert_int_equal(timing_file_hint(t, &t->streams[0].timing, hint,
					  sizeof(hint)), 0);
	assert_string_equal(hint, "");
	trace_close(t);

	put(f->opts, "--mtc-freq 33\n");
	assert_int_equal(trace_open(&t, f->trace, err, sizeof(err)), -pte_bad_config);
	assert_null(t);
	assert_non_null(strstr(err, "t.pt.options:1: --mtc-freq: bad value '33'"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null),
		cmocka_unit_test_setup_teardown(test_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad, setup, teardown),
		cmocka_unit_test_setup_teardown(test_big, setup, teardown),
		cmocka_unit_test_setup_teardown(test_images, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trace_open, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
