/*
 * test_ctx -- who ran at an offset: a perf.data written here
 * (tests/perfwr.h) with PT payloads that carry TSC packets, so each
 * offset has a time the sideband can answer; the PSB+ "ahead" rule; the
 * same answers in any order and from the cache; the --pid/--tid/--comm
 * restriction packet by packet and as ranges; a raw trace knows nothing.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "ctx.h"
#include "perfwr.h"
#include "ptdec.h"
#include "sideband.h"
#include "trace.h"

static char path[64], raw[64], kpath[64], ppath[64];

/* PT payload builders. */
static void p_psb(struct pw *w)
{
	int i;

	for (i = 0; i < 8; i++) {
		uint8_t b[2] = { 0x02, 0x82 };

		pw_put(w, b, 2);
	}
}

static void p_psbend(struct pw *w)
{
	uint8_t b[2] = { 0x02, 0x23 };

	pw_put(w, b, 2);
}

static void p_tsc(struct pw *w, uint64_t tsc)
{
	uint8_t b[8] = { 0x19 };

	memcpy(b + 1, &tsc, 7);
	pw_put(w, b, 8);
}

static void p_byte(struct pw *w, uint8_t b)
{
	pw_put(w, &b, 1);
}

static void p_pad(struct pw *w, int n)
{
	pw_put(w, NULL, (size_t)n);
}

/* An AUXTRACE record for CPU @cpu carrying @pt. */
static void aux(struct pw *d, int cpu, const struct pw *pt)
{
	size_t at = pw_begin(d, 71, 0);

	pw_64(d, pt->n);
	pw_64(d, 0);
	pw_64(d, 0);
	pw_32(d, (uint32_t)cpu);
	pw_32(d, 0);
	pw_32(d, (uint32_t)cpu);
	pw_32(d, 0);
	pw_end(d, at);
	pw_put(d, pt->p, pt->n);
}

/* A switch, SWITCH_CPU_WIDE (pw_switch()), or if @plain the SWITCH of a
 * per-task recording: the sample_id alone, no next or previous task. */
static void sw(struct pw *d, int plain, int out, int pid, int tid, int npid,
	       int ntid, uint64_t time, int cpu)
{
	size_t at;

	if (!plain) {
		pw_switch(d, out, pid, tid, npid, ntid, time, cpu);
		return;
	}
	at = pw_begin(d, 14, out ? 1u << 13 : 0);
	pw_sid(d, pid, tid, time, cpu);
	pw_end(d, at);
}

/*
 * cpu0 (TSC == perf time):
 *   0 PSB, 16 TSC 2000, 24 PSBEND, 26..29 PAD, 30 TSC 4500, 38..41 PAD,
 *   42 PSB, 58 PAD, 59 TSC 5000, 67 PSBEND, 69 PAD  (size 70)
 *   pid 100 "prog" from 1000, switched out to 300/301 "other" at 4000.
 * cpu1:
 *   0 PSB, 16 TSC 3050, 24 PSBEND, 26 PAD, 27 TSC 3200, 35 PAD,
 *   36 TSC 3600, 44 PAD, 45 TIP.PGD, 46 TIP.PGE, 47 PAD, 48 TSC 3800,
 *   56 PAD, 57 TIP.PGD  (size 58)
 *   pid 200 forked at 3000 by 100 (so named "prog", as perf names it),
 *   in at 3100, renamed "child" at 3500; switched
 *   out at 3700 for 400/400 "late", whose enable at 46 is estimated at
 *   3600 (before the switch): its stretch ends after it; out at 3799 for
 *   500/500 "last", a tick before the TIP.PGD at 57 is estimated (as
 *   perf time rounded to nanoseconds can place a switch at a TIP.PGD).
 * With @plain the switches are a per-task recording's: each switch out
 * names no next task, the switch in at the same time does.
 */
static void fixture(struct pw *d, struct pw *c0, int plain)
{
	struct pw c1 = { 0 }, c2 = { 0 };
	int i;

	pw_setup(d);
	pw_comm(d, 100, 100, 0, 0, "prog", 0);
	pw_comm(d, 300, 301, 0, 0, "other", 0);
	pw_itrace_start(d, 100, 100, 1000, 0);
	pw_task(d, 0, 200, 100, 200, 100, 3000, 1);
	sw(d, plain, 0, 200, 200, 0, 0, 3100, 1);
	pw_comm(d, 200, 200, 3500, 1, "child", 0);
	sw(d, plain, 1, 100, 100, 300, 301, 4000, 0);
	sw(d, plain, 0, 300, 301, 100, 100, 4001, 0);
	pw_comm(d, 400, 400, 0, 1, "late", 0);
	sw(d, plain, 1, 200, 200, 400, 400, 3700, 1);
	sw(d, plain, 0, 400, 400, 200, 200, 3700, 1);
	pw_comm(d, 500, 500, 0, 1, "last", 0);
	sw(d, plain, 1, 400, 400, 500, 500, 3799, 1);
	sw(d, plain, 0, 500, 500, 400, 400, 3799, 1);
	p_psb(c0);
	p_tsc(c0, 2000);
	p_psbend(c0);
	p_pad(c0, 4);
	p_tsc(c0, 4500);
	p_pad(c0, 4);
	p_psb(c0);
	p_pad(c0, 1);
	p_tsc(c0, 5000);
	p_psbend(c0);
	p_pad(c0, 1);
	p_psb(&c1);
	p_tsc(&c1, 3050);
	p_psbend(&c1);
	p_pad(&c1, 1);
	p_tsc(&c1, 3200);
	p_pad(&c1, 1);
	p_tsc(&c1, 3600);
	p_pad(&c1, 1);
	p_byte(&c1, 0x01);	/* TIP.PGD, IP suppressed */
	p_byte(&c1, 0x11);	/* TIP.PGE, IP suppressed */
	p_pad(&c1, 1);
	p_tsc(&c1, 3800);
	p_pad(&c1, 1);
	p_byte(&c1, 0x01);
	/* cpu2: 10 KiB of pads, a TSC every 256 bytes (checkpoints) */
	p_psb(&c2);
	p_tsc(&c2, 1000);
	p_psbend(&c2);
	for (i = 0; i < 40; i++) {
		p_pad(&c2, 248);
		p_tsc(&c2, 1000 + 100 * (uint64_t)i);
	}
	aux(d, 0, c0);
	aux(d, 1, &c1);
	aux(d, 2, &c2);
	free(c1.p);
	free(c2.p);
}

/* A temporary file's name from @tmpl into @p. */
static int tmpname(char *p, size_t n, const char *tmpl)
{
	int fd;

	snprintf(p, n, "%s", tmpl);
	fd = mkstemp(p);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int setup(void **state)
{
	struct pw d = { 0 }, c0 = { 0 }, pd = { 0 }, pc0 = { 0 };
	FILE *f;

	(void)state;
	fixture(&d, &c0, 0);
	if (tmpname(path, sizeof(path), "/tmp/ptb-ctx-XXXXXX") ||
	    pw_file(path, &d, NULL))
		return -1;
	/* the same recording with the kernel traced */
	if (tmpname(kpath, sizeof(kpath), "/tmp/ptb-ctx-k-XXXXXX") ||
	    pw_file_flags(kpath, &d, NULL, PW_ATTR_KERNEL_TOO))
		return -1;
	/* the same with a per-task recording's plain switches */
	fixture(&pd, &pc0, 1);
	if (tmpname(ppath, sizeof(ppath), "/tmp/ptb-ctx-p-XXXXXX") ||
	    pw_file(ppath, &pd, NULL))
		return -1;
	/* the same cpu0 bytes as a raw trace */
	if (tmpname(raw, sizeof(raw), "/tmp/ptb-ctx-raw-XXXXXX"))
		return -1;
	f = fopen(raw, "wb");
	if (!f || fwrite(c0.p, 1, c0.n, f) != c0.n || fclose(f))
		return -1;
	free(d.p);
	free(c0.p);
	free(pd.p);
	free(pc0.p);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (getenv("KEEP")) {
		fprintf(stderr, "kept %s %s\n", path, ppath);
	} else {
		unlink(path);
		unlink(ppath);
	}
	unlink(raw);
	unlink(kpath);
	return 0;
}

struct fix {
	struct trace *t;
	struct sb *sb;
	struct ctx *c;
	int cpu0, cpu1;
};

/* The fixture at @p (NULL: path, the CPU-wide switches'). */
static void open_fix_at(struct fix *x, const char *p)
{
	char err[256];

	assert_int_equal(trace_open(&x->t, p ? p : path, err, sizeof(err)), 0);
	assert_int_equal(x->t->nstreams, 3);
	assert_int_equal(sb_load(&x->sb, x->t, err, sizeof(err)), 0);
	assert_int_equal(ctx_new(&x->c, x->t, x->sb), 0);
	x->cpu0 = trace_find_stream(x->t, "cpu0");
	x->cpu1 = trace_find_stream(x->t, "cpu1");
	assert_true(x->cpu0 >= 0 && x->cpu1 >= 0);
}

static void open_fix(struct fix *x)
{
	open_fix_at(x, NULL);
}

static void close_fix(struct fix *x)
{
	ctx_free(x->c);
	sb_free(x->sb);
	trace_close(x->t);
}

static void test_null(void **state)
{
	struct fix x;
	struct ctx_task k;
	struct ctx_range *r;
	size_t n;

	(void)state;
	ctx_free(NULL);
	assert_int_equal(ctx_new(NULL, NULL, NULL), -pte_invalid);
	open_fix(&x);
	assert_int_equal(ctx_at(NULL, 0, 0, &k), -pte_invalid);
	assert_int_equal(ctx_at(x.c, 0, 0, NULL), -pte_invalid);
	assert_int_equal(ctx_at(x.c, 3, 0, &k), -pte_invalid);
	assert_int_equal(ctx_at(x.c, -1, 0, &k), -pte_invalid);
	assert_int_equal(ctx_keep(x.c, NULL, 5, 0), -pte_invalid);
	assert_int_equal(ctx_keep(x.c, NULL, 0, 0), 1);	/* no filter */
	assert_int_equal(ctx_ranges(x.c, NULL, 0, NULL, &n), -pte_invalid);
	assert_int_equal(ctx_ranges(x.c, NULL, 9, &r, &n), -pte_invalid);
	assert_int_equal(ctx_ranges_has(NULL, 0, 0), 0);
	close_fix(&x);
}

/* The task at @off of @stream: @pid, @tid, @comm, @flags. */
static void expect(struct fix *x, int stream, uint64_t off, int pid, int tid,
		   const char *comm, uint32_t flags, uint64_t tsc)
{
	struct ctx_task k;

	assert_int_equal(ctx_at(x->c, stream, off, &k), 0);
	assert_int_equal(k.pid, pid);
	assert_int_equal(k.tid, tid);
	assert_string_equal(k.comm, comm);
	assert_int_equal(k.flags, flags | CTX_F_SIDEBAND | CTX_F_TSC);
	assert_int_equal(k.tsc, tsc);
	assert_int_equal(k.cpu, stream == x->cpu0 ? 0 : 1);
}

static const uint32_t AH = CTX_F_AHEAD;

/* Both variants (@state: the plain switches' file, or NULL): a plain
 * SWITCH's switch out names no next task, so between a switch out and
 * the next switch in the task is unknown; a stretch's one change is
 * still one (A, unknown, B), and the answers are the same. */
static void test_at(void **state)
{
	struct fix x;

	open_fix_at(&x, *state);
	/* the PSB and the TSC of its PSB+ take that TSC */
	expect(&x, x.cpu0, 0, 100, 100, "prog", AH, 2000);
	expect(&x, x.cpu0, 16, 100, 100, "prog", AH, 2000);
	expect(&x, x.cpu0, 24, 100, 100, "prog", 0, 2000);
	expect(&x, x.cpu0, 26, 100, 100, "prog", 0, 2000);
	/* a TSC packet's own time is before it */
	expect(&x, x.cpu0, 30, 100, 100, "prog", 0, 2000);
	expect(&x, x.cpu0, 38, 300, 301, "other", 0, 4500);
	expect(&x, x.cpu0, 41, 300, 301, "other", 0, 4500);
	/* a PSB+ with a pad before its TSC */
	expect(&x, x.cpu0, 42, 300, 301, "other", AH, 5000);
	expect(&x, x.cpu0, 58, 300, 301, "other", AH, 5000);
	expect(&x, x.cpu0, 69, 300, 301, "other", 0, 5000);
	/* cpu1: nothing ran there before 3100 by time, but the stretch that
	 * starts at 3050 is the one task switched in at 3100's, as it was
	 * named then (its parent's name, from the fork); "child" from 3500 */
	expect(&x, x.cpu1, 0, 200, 200, "prog", AH | CTX_F_STRETCH, 3050);
	expect(&x, x.cpu1, 26, 200, 200, "prog", CTX_F_STRETCH, 3050);
	expect(&x, x.cpu1, 35, 200, 200, "prog", 0, 3200);
	expect(&x, x.cpu1, 44, 200, 200, "child", 0, 3600);
	expect(&x, x.cpu1, 45, 200, 200, "child", 0, 3600);
	/* the lagging enable's stretch is the thread switched in */
	expect(&x, x.cpu1, 46, 400, 400, "late", CTX_F_STRETCH, 3600);
	expect(&x, x.cpu1, 48, 400, 400, "late", CTX_F_STRETCH, 3600);
	/* not later than the stretch's end: the switch comes after it */
	expect(&x, x.cpu1, 56, 400, 400, "late", 0, 3800);
	expect(&x, x.cpu1, 57, 400, 400, "late", 0, 3800);
	/* again, backwards (the stretch's end from the cache) */
	expect(&x, x.cpu1, 47, 400, 400, "late", CTX_F_STRETCH, 3600);
	expect(&x, x.cpu1, 44, 200, 200, "child", 0, 3600);
	/* what imgopt_reader_asid() asks: one process change */
	assert_int_equal(sb_changes(x.sb, x.cpu1, 3600, 3800), 1);
	assert_int_equal(sb_changes(x.sb, x.cpu1, 3050, 3600), 1);
	assert_int_equal(sb_changes(x.sb, x.cpu0, 2000, 4500), 1);
	close_fix(&x);
}

/* With the kernel traced a switch happens inside a stretch of tracing,
 * no TIP.PGD between: the stretch-end rule (one change up to the
 * stretch's end: the task at its end) would give a packet before the
 * switch to the next task.  Time alone decides: cpu1's first stretch
 * (from 3050, the switch to 200 at 3100) is nobody's before it. */
static void test_kernel_traced(void **state)
{
	struct ctx_task k;
	struct fix x;
	char err[256];

	(void)state;
	assert_int_equal(trace_open(&x.t, kpath, err, sizeof(err)), 0);
	assert_int_equal(sb_load(&x.sb, x.t, err, sizeof(err)), 0);
	assert_int_equal(ctx_new(&x.c, x.t, x.sb), 0);
	x.cpu1 = trace_find_stream(x.t, "cpu1");
	assert_true(x.cpu1 >= 0);
	assert_true(ctx_at(x.c, x.cpu1, 26, &k) >= 0);
	assert_false(k.flags & CTX_F_STRETCH);
	assert_int_not_equal(k.tid, 200);
	assert_true(ctx_at(x.c, x.cpu1, 48, &k) >= 0);
	assert_false(k.flags & CTX_F_STRETCH);
	close_fix(&x);
}

/* Backwards, in random order, twice (the second time from the cache). */
static void test_order(void **state)
{
	static const uint64_t offs[] = { 69, 0, 41, 16, 58, 26, 42, 30, 24, 38 };
	struct ctx_task fwd[70], k;
	struct ctx_stats st;
	struct fix x, y;
	size_t i, round;

	(void)state;
	open_fix(&x);
	for (i = 0; i < 70; i++)
		assert_int_equal(ctx_at(x.c, x.cpu0, i, &fwd[i]), 0);
	open_fix(&y);
	for (round = 0; round < 2; round++)
		for (i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
			assert_int_equal(ctx_at(y.c, y.cpu0, offs[i], &k), 0);
			assert_int_equal(k.pid, fwd[offs[i]].pid);
			assert_int_equal(k.tsc, fwd[offs[i]].tsc);
			assert_int_equal(k.flags, fwd[offs[i]].flags);
		}
	ctx_stats(y.c, &st);
	assert_int_equal(st.lookups, 20);
	assert_int_equal(st.hits, 10);
	assert_true(st.restarts >= 1);
	close_fix(&y);
	close_fix(&x);
}

/* A long segment walked backwards: from the readers saved on the way,
 * the answers of a walk forward. */
static void test_backwards(void **state)
{
	static struct ctx_task fwd[10300];
	struct ctx_task k;
	struct ctx_stats st;
	struct fix x, y;
	int cpu2;
	uint64_t off, size;

	(void)state;
	open_fix(&x);
	cpu2 = trace_find_stream(x.t, "cpu2");
	size = x.t->streams[cpu2].img.size;
	assert_true(size > 10000 && size <= 10300);
	for (off = 0; off < size; off++)
		assert_int_equal(ctx_at(x.c, cpu2, off, &fwd[off]), 0);
	assert_int_equal(fwd[size - 1].tsc, 1000 + 100 * 39);
	open_fix(&y);
	assert_int_equal(ctx_at(y.c, cpu2, size - 1, &k), 0);
	for (off = size; off >= 3;) {
		off -= 3;
		assert_int_equal(ctx_at(y.c, cpu2, off, &k), 0);
		assert_int_equal(k.tsc, fwd[off].tsc);
		assert_int_equal(k.flags, fwd[off].flags);
	}
	ctx_stats(y.c, &st);
	assert_true(st.restarts >= size / 3 - 1);
	close_fix(&y);
	close_fix(&x);
}

static void test_format(void **state)
{
	struct ctx_task k = { .pid = 100, .tid = 101, .cpu = 3, .comm = "prog" };
	char buf[64];

	(void)state;
	assert_string_equal(ctx_format(&k, buf, sizeof(buf)), "prog 100/101 cpu3");
	k.comm = "";
	k.pid = -1;
	k.cpu = -1;
	assert_string_equal(ctx_format(&k, buf, sizeof(buf)), "?/101");
	assert_string_equal(ctx_format(NULL, buf, sizeof(buf)), "?");
	assert_string_equal(ctx_format(&k, buf, 3), "?/");
}

static void test_filter(void **state)
{
	struct ctx_filter f;
	struct ctx_task k = { .pid = 100, .tid = 101, .comm = "prog" };

	(void)state;
	ctx_filter_init(&f);
	assert_false(ctx_filter_active(&f));
	assert_false(ctx_filter_active(NULL));
	assert_int_equal(ctx_filter_match(&f, &k), 1);
	assert_int_equal(ctx_filter_set(&f, "--pid", "x"), -pte_invalid);
	assert_int_equal(ctx_filter_set(&f, "--pid", "-1"), -pte_invalid);
	assert_int_equal(ctx_filter_set(&f, "--pid", "2147483648"), -pte_invalid);
	assert_int_equal(ctx_filter_set(&f, "--pid", "12a"), -pte_invalid);
	assert_int_equal(ctx_filter_set(&f, "--cpu", "1"), -pte_invalid);
	assert_int_equal(ctx_filter_set(&f, "--pid", NULL), -pte_invalid);
	assert_false(ctx_filter_active(&f));
	assert_int_equal(ctx_filter_set(&f, "--pid", "100"), 0);
	assert_true(ctx_filter_active(&f));
	assert_int_equal(ctx_filter_match(&f, &k), 1);
	assert_int_equal(ctx_filter_set(&f, "--comm", "prog"), 0);
	assert_int_equal(ctx_filter_match(&f, &k), 1);
	assert_int_equal(ctx_filter_set(&f, "--tid", "100"), 0);
	assert_int_equal(ctx_filter_match(&f, &k), 0);
	ctx_filter_init(&f);
	assert_int_equal(ctx_filter_set(&f, "--comm", "pro"), 0);
	assert_int_equal(ctx_filter_match(&f, &k), 0);
	/* an unknown task matches no restriction */
	k.pid = -1;
	k.comm = "";
	ctx_filter_init(&f);
	assert_int_equal(ctx_filter_set(&f, "--pid", "0"), 0);
	assert_int_equal(ctx_filter_match(&f, &k), 0);
	assert_int_equal(ctx_filter_match(&f, NULL), 0);
}

/* ctx_ranges() agrees with ctx_keep() packet by packet. */
static void check_ranges(struct fix *x, const struct ctx_filter *f, int stream,
			 const struct ctx_range *want, size_t nwant)
{
	struct ctx_range *r;
	size_t n, i;
	uint64_t off, size = x->t->streams[stream].img.size;

	assert_int_equal(ctx_ranges(x->c, f, stream, &r, &n), 0);
	assert_int_equal(n, nwant);
	/* every part of the stream walked alone: the ranges clipped */
	for (off = 0; off < size; off += 7) {
		uint64_t end = off + 13, a, b, cov = 0, part = 0;
		struct ctx_range *q;
		size_t m, j;

		assert_int_equal(ctx_ranges_in(x->c, f, stream, off, end, &q, &m), 0);
		for (j = 0; j < m; j++) {
			assert_true(q[j].from >= off && q[j].to <= end);
			cov += q[j].to - q[j].from;
		}
		for (j = 0; j < n; j++) {
			a = r[j].from > off ? r[j].from : off;
			b = r[j].to < end ? r[j].to : end;
			part += b > a ? b - a : 0;
		}
		assert_int_equal(cov, part);
		free(q);
	}
	for (i = 0; i < n; i++) {
		assert_int_equal(r[i].from, want[i].from);
		assert_int_equal(r[i].to, want[i].to);
	}
	/* every packet start agrees (the pads make every byte one) */
	for (off = 0; off < size; off++) {
		if ((off > 0 && off < 16) || (off > 42 && off < 58) ||
		    (off > 16 && off < 24) || (off > 30 && off < 38) ||
		    (off > 59 && off < 67))
			continue;	/* inside a PSB or TSC packet (cpu0) */
		if (stream == x->cpu0)
			assert_int_equal(ctx_keep(x->c, f, stream, off),
					 ctx_ranges_has(r, n, off));
	}
	for (off = 0; stream == x->cpu1 && off < size; off++) {
		if ((off > 0 && off < 16) || (off > 16 && off < 24) ||
		    (off > 27 && off < 35) || (off > 36 && off < 44) ||
		    (off > 48 && off < 56) || off == 25)
			continue;	/* inside a packet (cpu1) */
		assert_int_equal(ctx_keep(x->c, f, stream, off),
				 ctx_ranges_has(r, n, off));
	}
	free(r);
}

static void test_ranges(void **state)
{
	static const struct ctx_range all0[] = { { 0, 70 } };
	static const struct ctx_range p100[] = { { 0, 38 } };
	static const struct ctx_range p300[] = { { 38, 70 } };
	static const struct ctx_range child[] = { { 44, 46 } };
	static const struct ctx_range forked[] = { { 0, 44 } };
	static const struct ctx_range p200[] = { { 0, 46 } };
	static const struct ctx_range p400[] = { { 46, 58 } };
	struct ctx_filter f;
	struct fix x;

	open_fix_at(&x, *state);
	ctx_filter_init(&f);
	check_ranges(&x, &f, x.cpu0, all0, 1);
	assert_int_equal(ctx_filter_set(&f, "--pid", "100"), 0);
	check_ranges(&x, &f, x.cpu0, p100, 1);
	ctx_filter_init(&f);
	assert_int_equal(ctx_filter_set(&f, "--comm", "other"), 0);
	check_ranges(&x, &f, x.cpu0, p300, 1);
	assert_int_equal(ctx_filter_set(&f, "--tid", "300"), 0);
	check_ranges(&x, &f, x.cpu0, NULL, 0);
	ctx_filter_init(&f);
	assert_int_equal(ctx_filter_set(&f, "--comm", "child"), 0);
	check_ranges(&x, &f, x.cpu1, child, 1);
	/* the child before it renamed itself: its parent's name */
	ctx_filter_init(&f);
	assert_int_equal(ctx_filter_set(&f, "--comm", "prog"), 0);
	check_ranges(&x, &f, x.cpu1, forked, 1);
	ctx_filter_init(&f);
	assert_int_equal(ctx_filter_set(&f, "--pid", "200"), 0);
	check_ranges(&x, &f, x.cpu1, p200, 1);
	ctx_filter_init(&f);
	assert_int_equal(ctx_filter_set(&f, "--comm", "late"), 0);
	check_ranges(&x, &f, x.cpu1, p400, 1);
	close_fix(&x);
}

static void test_ranges_has(void **state)
{
	static const struct ctx_range r[] = { { 10, 20 }, { 30, 31 }, { 40, 50 } };

	(void)state;
	assert_int_equal(ctx_ranges_has(r, 3, 9), 0);
	assert_int_equal(ctx_ranges_has(r, 3, 10), 1);
	assert_int_equal(ctx_ranges_has(r, 3, 19), 1);
	assert_int_equal(ctx_ranges_has(r, 3, 20), 0);
	assert_int_equal(ctx_ranges_has(r, 3, 30), 1);
	assert_int_equal(ctx_ranges_has(r, 3, 31), 0);
	assert_int_equal(ctx_ranges_has(r, 3, 49), 1);
	assert_int_equal(ctx_ranges_has(r, 3, 50), 0);
	assert_int_equal(ctx_ranges_has(r, 0, 10), 0);
}

/* A raw trace: no sideband, no CPU; the time is still known. */
static void test_raw(void **state)
{
	struct trace *t;
	struct ctx *c;
	struct ctx_task k;
	struct ctx_filter f;
	char err[256];

	(void)state;
	assert_int_equal(trace_open(&t, raw, err, sizeof(err)), 0);
	assert_int_equal(ctx_new(&c, t, NULL), 0);
	assert_int_equal(ctx_at(c, 0, 38, &k), 0);
	assert_int_equal(k.pid, -1);
	assert_int_equal(k.tid, -1);
	assert_int_equal(k.cpu, -1);
	assert_string_equal(k.comm, "");
	assert_int_equal(k.flags, CTX_F_TSC);
	assert_int_equal(k.tsc, 4500);
	ctx_filter_init(&f);
	assert_int_equal(ctx_filter_set(&f, "--pid", "100"), 0);
	assert_int_equal(ctx_keep(c, &f, 0, 38), 0);
	ctx_free(c);
	trace_close(t);
}

/* The helper for commands: ranges from the file alone; a raw trace has
 * no sideband. */
static void test_restrict(void **state)
{
	struct ctx_filter f;
	struct ctx_range *r = NULL;
	struct trace *t;
	char err[256];
	size_t n = 9;

	(void)state;
	ctx_filter_init(&f);
	assert_int_equal(ctx_filter_set(&f, "--comm", "late"), 0);
	assert_int_equal(trace_open(&t, path, err, sizeof(err)), 0);
	assert_int_equal(ctx_restrict(NULL, 0, &f, 0, UINT64_MAX, &r, &n, err,
				      sizeof(err)), -pte_invalid);
	assert_int_equal(ctx_restrict(t, trace_find_stream(t, "cpu1"), &f, 0,
				      UINT64_MAX, &r, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 1);
	assert_int_equal(r[0].from, 46);
	assert_int_equal(r[0].to, 58);
	free(r);
	/* a part: clipped */
	assert_int_equal(ctx_restrict(t, trace_find_stream(t, "cpu1"), &f, 47, 50,
				      &r, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 1);
	assert_int_equal(r[0].from, 47);
	assert_int_equal(r[0].to, 50);
	free(r);
	assert_int_equal(ctx_restrict(t, 5, &f, 0, UINT64_MAX, &r, &n, err,
				      sizeof(err)), -pte_invalid);
	trace_close(t);
	assert_int_equal(trace_open(&t, raw, err, sizeof(err)), 0);
	assert_int_equal(ctx_restrict(t, 0, &f, 0, UINT64_MAX, &r, &n, err,
				      sizeof(err)), -pte_invalid);
	assert_non_null(strstr(err, "no sideband"));
	trace_close(t);
}

/* A sideband perf compressed (perf record -z) is not read, and one perf
 * lost records of may miss switches: the commands given --pid, --tid or
 * --comm say so; a whole one, a raw trace: nothing. */
static void test_doubt(void **state)
{
	struct pw d = { 0 }, c0 = { 0 };
	struct trace *t;
	char file[64], err[512];
	size_t at;

	(void)state;
	assert_int_equal(ctx_sideband_doubt(NULL, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	assert_int_equal(ctx_sideband_doubt(NULL, NULL, 0), 0);
	assert_int_equal(trace_open(&t, path, err, sizeof(err)), 0);
	assert_int_equal(ctx_sideband_doubt(t, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	trace_close(t);
	assert_int_equal(trace_open(&t, raw, err, sizeof(err)), 0);
	assert_int_equal(ctx_sideband_doubt(t, err, sizeof(err)), 0);
	trace_close(t);
	/* the fixture with two COMPRESSED records (zstd frames, not read) */
	fixture(&d, &c0, 0);
	at = pw_begin(&d, 81, 0);
	pw_64(&d, 0x28b52ffd);
	pw_end(&d, at);
	at = pw_begin(&d, 81, 0);
	pw_64(&d, 0x28b52ffd);
	pw_end(&d, at);
	assert_int_equal(tmpname(file, sizeof(file), "/tmp/ptb-ctx-z-XXXXXX"), 0);
	assert_int_equal(pw_file(file, &d, NULL), 0);
	assert_int_equal(trace_open(&t, file, err, sizeof(err)), 0);
	assert_int_equal(ctx_sideband_doubt(t, err, sizeof(err)), 1);
	assert_non_null(strstr(err, file));
	assert_non_null(strstr(err, "compressed (perf record -z: 2 records"));
	assert_non_null(strstr(err, "--pid, --tid and --comm cannot work"));
	/* cut to the buffer */
	assert_int_equal(ctx_sideband_doubt(t, err, 8), 1);
	assert_int_equal(strlen(err), 7);
	trace_close(t);
	free(d.p);
	free(c0.p);
	/* the fixture with two LOST records, of 3 and 4 records */
	memset(&d, 0, sizeof(d));
	memset(&c0, 0, sizeof(c0));
	fixture(&d, &c0, 0);
	for (at = 3; at <= 4; at++) {
		size_t rec = pw_begin(&d, 2, 0);

		pw_64(&d, PW_ATTR_ID);
		pw_64(&d, at);
		pw_sid(&d, 100, 100, 1500, 0);
		pw_end(&d, rec);
	}
	assert_int_equal(pw_file(file, &d, NULL), 0);
	assert_int_equal(trace_open(&t, file, err, sizeof(err)), 0);
	assert_int_equal(ctx_sideband_doubt(t, err, sizeof(err)), 1);
	assert_non_null(strstr(err, file));
	assert_non_null(strstr(err, ": 7 sideband records lost"));
	assert_non_null(strstr(err, "thread attribution may be wrong"));
	trace_close(t);
	unlink(file);
	free(d.p);
	free(c0.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_at),
		cmocka_unit_test_prestate(test_at, ppath),
		cmocka_unit_test(test_kernel_traced),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_backwards),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_filter),
		cmocka_unit_test(test_ranges),
		cmocka_unit_test_prestate(test_ranges, ppath),
		cmocka_unit_test(test_ranges_has),
		cmocka_unit_test(test_raw),
		cmocka_unit_test(test_restrict),
		cmocka_unit_test(test_doubt),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
