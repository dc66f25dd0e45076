/* test_goto_idx -- goto targets for commands: offsets, psb, #N, tsc, t,
 * relative moves from a cursor, marks and regions, over a crafted trace. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../tools/ptenc.h"
#include "goto_idx.h"
#include "marks.h"
#include "ptdec.h"
#include "trace.h"

#define NSEG	10
#define SEG	256
#define TSC0	0x1000000ull

struct fix {
	char dir[64], path[128];
	struct trace *t;
	struct tm_config cfg;
};

/* Segment i at i * SEG: PSB, TSC (TSC0 + i * 1000), CBR, PSBEND, pads. */
static int setup(void **state)
{
	struct fix *f = calloc(1, sizeof(*f));
	uint8_t buf[NSEG * SEG], *p;
	char err[256];
	FILE *fp;
	int i;

	if (!f)
		return -1;
	memset(buf, 0, sizeof(buf));	/* 0 is PAD */
	for (i = 0; i < NSEG; i++) {
		p = pte_psb(buf + i * SEG);
		p = pte_tsc(p, TSC0 + (uint64_t)i * 1000);
		p = pte_cbr(p, 24);
		pte_psbend(p);
	}
	snprintf(f->dir, sizeof(f->dir), "/tmp/test_goto_idx.XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	/* The index cache goes there, not into $HOME. */
	setenv("XDG_CACHE_HOME", f->dir, 1);
	snprintf(f->path, sizeof(f->path), "%s/t.pt", f->dir);
	fp = fopen(f->path, "w");
	if (!fp || fwrite(buf, 1, sizeof(buf), fp) != sizeof(buf) || fclose(fp))
		return -1;
	if (trace_open(&f->t, f->path, err, sizeof(err)) < 0)
		return -1;
	/* 1 GHz: 1000 ticks are a microsecond. */
	f->cfg.have_tsc_hz = 1;
	f->cfg.tsc_hz = 1000000000;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fix *f = *state;
	char cmd[200];

	trace_close(f->t);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

/* @arg from @cursor resolves to @want. */
static void expect(struct goto_idx *g, const char *arg, uint64_t cursor,
		   uint64_t want)
{
	char err[256] = "";
	uint64_t off = UINT64_MAX;
	int r = goto_idx_offset(g, arg, cursor, &off, err, sizeof(err));

	if (r || off != want)
		print_error("%s from 0x%llx: r %d off 0x%llx want 0x%llx: %s\n", arg,
			    (unsigned long long)cursor, r, (unsigned long long)off,
			    (unsigned long long)want, err);
	assert_int_equal(r, 0);
	assert_int_equal(off, want);
}

/* @arg fails with @code and a message holding @msg. */
static void expect_err(struct goto_idx *g, const char *arg, int code,
		       const char *msg)
{
	char err[256] = "";
	uint64_t off;

	assert_int_equal(goto_idx_offset(g, arg, 0, &off, err, sizeof(err)), code);
	if (!strstr(err, msg))
		print_error("%s: '%s' lacks '%s'\n", arg, err, msg);
	assert_non_null(strstr(err, msg));
}

static void test_null(void **state)
{
	struct fix *f = *state;
	struct goto_idx *g = NULL;
	char err[64];
	uint64_t off;

	assert_int_equal(goto_idx_new(NULL, f->t, 0, &f->cfg, NULL), -pte_invalid);
	assert_int_equal(goto_idx_new(&g, NULL, 0, &f->cfg, NULL), -pte_invalid);
	assert_int_equal(goto_idx_new(&g, f->t, 1, &f->cfg, NULL), -pte_invalid);
	assert_int_equal(goto_idx_new(&g, f->t, 0, NULL, NULL), -pte_invalid);
	assert_int_equal(goto_idx_offset(NULL, "0", 0, &off, err, sizeof(err)),
			 -pte_invalid);
	goto_idx_free(NULL);
}

/* What needs no index, then the index's places. */
static void test_places(void **state)
{
	struct fix *f = *state;
	struct goto_idx *g;

	assert_int_equal(goto_idx_new(&g, f->t, 0, &f->cfg, NULL), 0);
	expect(g, "0x100", 0, 0x100);
	expect(g, "50%", 0, NSEG * SEG / 2);
	expect(g, "$", 0, NSEG * SEG);
	expect(g, "+1KiB", 0x100, 0x500);
	expect(g, "psb 3", 0, 3 * SEG);
	expect(g, "psb +2", 3 * SEG + 40, 5 * SEG);
	expect(g, "#1", 0, 16);			/* the first TSC */
	expect(g, "#3", 0, 28);			/* psbend, after a 4-byte CBR */
	expect(g, "tsc 0x1000bb8", 0, 3 * SEG + 16);	/* TSC0 + 3000 */
	expect(g, "t 2us", 0, 2 * SEG + 16);
	expect(g, "t 1500ns", 0, 2 * SEG + 16);	/* the first at or after */
	expect(g, "t +3us", 2 * SEG + 16, 5 * SEG + 16);
	/* from a PSB, before its TSC: from that TSC ("0x0 has no time") */
	expect(g, "t +3us", 0, 3 * SEG + 16);
	/* t0 + 18446744073.7095 s at 1 GHz passes 2^64 ticks: refused, not
	 * wrapped to the start */
	expect_err(g, "t 18446744073.7095s", -pte_eos, "past any TSC");
	expect_err(g, "psb 99", -pte_eos, "goto: there is no psb 99 (10 in all)");
	expect_err(g, "'a", -pte_invalid, "no mark 'a'");
	expect_err(g, "hot", -pte_invalid, "no region or bookmark 'hot'");
	goto_idx_free(g);
}

/* Without a TSC frequency, times are refused with a reason. */
static void test_no_time(void **state)
{
	struct fix *f = *state;
	struct tm_config none;
	struct goto_idx *g;

	memset(&none, 0, sizeof(none));
	assert_int_equal(goto_idx_new(&g, f->t, 0, &none, NULL), 0);
	expect(g, "tsc 0x1000bb8", 0, 3 * SEG + 16);
	expect_err(g, "t 2us", -pte_no_time, "no TSC frequency");
	goto_idx_free(g);
}

/* Marks and regions by name, as :goto has them. */
static void test_marks(void **state)
{
	struct fix *f = *state;
	struct marks_opts o = { .flags = BM_NO_STATE };
	struct marks_set *set;
	struct goto_idx *g;

	assert_int_equal(marks_open(&set, "00112233", NSEG * SEG, f->path, &o), 0);
	marks_mark_set(set, 'a', 0x234, NULL);
	marks_region_set(set, "hot", 0x300, 0x600, NULL, NULL);
	assert_int_equal(goto_idx_new(&g, f->t, 0, &f->cfg, set), 0);
	expect(g, "'a", 0, 0x234);
	expect(g, "hot", 0, 0x300);
	expect(g, "region hot", 0, 0x300);
	expect_err(g, "'b", -pte_invalid, "no mark 'b'");
	goto_idx_free(g);
	marks_close(set);
}

/* A PSB segment of 400,000 packets whose second TSC is at its end: tsc
 * finds that TSC, however deep (it gave the segment's PSB after 262,144
 * rows); past the last TSC is no packet, not the last segment. */
static void test_long_segment(void **state)
{
	struct fix *f = *state;
	size_t n = 400000 + 4 * SEG;
	uint8_t *buf = calloc(1, n), *p, *deep;
	struct trace *t;
	struct goto_idx *g;
	char path[160], err[256];
	FILE *fp;

	assert_non_null(buf);
	p = pte_psbend(pte_cbr(pte_tsc(pte_psb(buf), TSC0), 24));
	deep = p + 400000;	/* (0 is PAD) */
	pte_tsc(deep, TSC0 + 500);
	p = pte_psb(buf + n - 2 * SEG);
	pte_psbend(pte_cbr(pte_tsc(p, TSC0 + 1000), 24));
	snprintf(path, sizeof(path), "%s/long.pt", f->dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	assert_int_equal(fwrite(buf, 1, n, fp), n);
	assert_int_equal(fclose(fp), 0);
	assert_int_equal(trace_open(&t, path, err, sizeof(err)), 0);
	assert_int_equal(goto_idx_new(&g, t, 0, &f->cfg, NULL), 0);
	expect(g, "tsc 0x1000190", 0, (uint64_t)(deep - buf));	/* TSC0 + 400 */
	expect(g, "t 450ns", 0, (uint64_t)(deep - buf));
	expect(g, "tsc 0x10003e8", 0, n - 2 * SEG + 16);
	expect_err(g, "tsc 0x2000000", -pte_eos, "no packet has a TSC at or after 0x2000000");
	goto_idx_free(g);
	trace_close(t);
	free(buf);
}

/* Write @n bytes @buf to @name in the fixture's directory and open it. */
static struct trace *open_bytes(struct fix *f, const char *name, const uint8_t *buf,
				size_t n)
{
	char path[160], err[256];
	struct trace *t = NULL;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", f->dir, name);
	fp = fopen(path, "w");
	assert_non_null(fp);
	assert_int_equal(fwrite(buf, 1, n, fp), n);
	assert_int_equal(fclose(fp), 0);
	assert_int_equal(trace_open(&t, path, err, sizeof(err)), 0);
	return t;
}

/* Segment 0's time runs to TSC0 + 5000 (a TSC after its PSB+); segment
 * 1's PSB+ says TSC0 + 1000, a later TSC TSC0 + 4000.  Segment 1's PSB+
 * rows before its TSC still carry TSC0 + 5000: tsc and t went to its PSB
 * (shown 5 us for a 3 us target), not to the TSC at or after 3 us. */
static void test_time_goes_back(void **state)
{
	struct fix *f = *state;
	uint8_t buf[3 * SEG], *p;
	struct trace *t;
	struct goto_idx *g;

	memset(buf, 0, sizeof(buf));
	pte_psbend(pte_cbr(pte_tsc(pte_psb(buf), TSC0), 24));
	pte_tsc(buf + 100, TSC0 + 5000);
	p = pte_psb(buf + SEG);
	pte_psbend(pte_cbr(pte_tsc(p, TSC0 + 1000), 24));
	pte_tsc(buf + SEG + 100, TSC0 + 4000);
	p = pte_psb(buf + 2 * SEG);
	pte_psbend(pte_cbr(pte_tsc(p, TSC0 + 6000), 24));
	t = open_bytes(f, "back.pt", buf, sizeof(buf));
	assert_int_equal(goto_idx_new(&g, t, 0, &f->cfg, NULL), 0);
	expect(g, "tsc 0x1000bb8", 0, SEG + 100);	/* TSC0 + 3000 */
	expect(g, "t 3us", 0, SEG + 100);
	expect(g, "tsc 0x10003e8", 0, SEG + 16);	/* TSC0 + 1000: its TSC */
	expect(g, "t 5500ns", 0, 2 * SEG + 16);
	goto_idx_free(g);
	trace_close(t);
}

/* Segment 0 ends with a TSC of TSC0 + 1000, the TSC segment 1's PSB+
 * says: tsc TSC0 + 1000 is that packet, the first with it (it went to
 * segment 1's, the last segment starting at or before it). */
static void test_tsc_equal_start(void **state)
{
	struct fix *f = *state;
	uint8_t buf[3 * SEG], *p;
	struct trace *t;
	struct goto_idx *g;

	memset(buf, 0, sizeof(buf));
	pte_psbend(pte_cbr(pte_tsc(pte_psb(buf), TSC0), 24));
	pte_tsc(buf + 100, TSC0 + 1000);
	p = pte_psb(buf + SEG);
	pte_psbend(pte_cbr(pte_tsc(p, TSC0 + 1000), 24));
	p = pte_psb(buf + 2 * SEG);
	pte_psbend(pte_cbr(pte_tsc(p, TSC0 + 2000), 24));
	t = open_bytes(f, "equal.pt", buf, sizeof(buf));
	assert_int_equal(goto_idx_new(&g, t, 0, &f->cfg, NULL), 0);
	expect(g, "tsc 0x10003e8", 0, 100);	/* TSC0 + 1000 */
	expect(g, "t 1us", 0, 100);
	expect(g, "tsc 0x10003e9", 0, 2 * SEG + 16);
	expect(g, "tsc 0x10007d0", 0, 2 * SEG + 16);
	goto_idx_free(g);
	trace_close(t);
}

/* t X looks for the first TSC shown X after the origin, as the browser
 * shows times: each TSC's ns rounded down, less the origin's.  (It took
 * TSC 0x1078ca6de4f2 for 1369928 ns at 1.2 GHz, shown 1369927 ns.) */
static void test_time_tsc(void **state)
{
	struct tm_config c;
	char err[128] = "";
	uint64_t tsc = 0;

	(void)state;
	memset(&c, 0, sizeof(c));
	c.have_tsc_hz = 1;
	c.tsc_hz = 1200000000;
	assert_int_equal(goto_idx_time_tsc(&c, 0x1078ca54cf69ull, 1369928, &tsc, err,
					   sizeof(err)), 0);
	assert_int_equal(tsc, 0x1078ca6de4f3ull);
	assert_int_equal(goto_idx_time_tsc(&c, 0x1078ca54cf69ull, 1369931, &tsc, err,
					   sizeof(err)), 0);
	assert_int_equal(tsc, 0x1078ca6de4f6ull);
	/* 3 GHz from 0x1000000 (5592405.33 ns): 1 ns is shown 2 ticks on */
	c.tsc_hz = 3000000000u;
	assert_int_equal(goto_idx_time_tsc(&c, TSC0, 1, &tsc, err, sizeof(err)), 0);
	assert_int_equal(tsc, TSC0 + 2);
	assert_int_equal(goto_idx_time_tsc(&c, TSC0, 0, &tsc, err, sizeof(err)), 0);
	assert_int_equal(tsc, TSC0);
	c.have_tsc_hz = 0;
	assert_int_equal(goto_idx_time_tsc(&c, TSC0, 1, &tsc, err, sizeof(err)),
			 -pte_no_time);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_null, setup, teardown),
		cmocka_unit_test_setup_teardown(test_places, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_time, setup, teardown),
		cmocka_unit_test_setup_teardown(test_marks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_segment, setup, teardown),
		cmocka_unit_test_setup_teardown(test_time_goes_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tsc_equal_start, setup, teardown),
		cmocka_unit_test(test_time_tsc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
