/*
 * test_sideband -- address spaces and task timelines from a perf.data
 * written here (tests/perfwr.h): mappings over time (fork shares, exec
 * empties, an overlapping mapping forks a new space), build IDs from the
 * records and from HEADER_BUILD_ID, which task ran on each CPU at a TSC,
 * comms over time, and CR3 as the fallback; without time conversion, a
 * per-thread process that changed image is not given one of them.
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

#include "perfwr.h"
#include "ptdec.h"
#include "sideband.h"
#include "trace.h"

#define PROG_AT	0x555555554000ull
#define LIB_AT	0x7f0000000000ull
#define KERN_AT	0xffffffff81000000ull

static const uint8_t bid_prog[20] = { 0xaa, 1, 2, 3, 4, 5, 6, 7, 8, 9,
				      10, 11, 12, 13, 14, 15, 16, 17, 18, 19 };
static const uint8_t bid_libc[20] = { 0xbb, 1, 2, 3, 4, 5, 6, 7, 8, 9,
				      10, 11, 12, 13, 14, 15, 16, 17, 18, 19 };

static char path[64];

/* The recording: see the checks below for what each record means. */
static int setup(void **state)
{
	struct pw d = { 0 }, b = { 0 };
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/ptb-sideband-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	pw_setup(&d);
	/* synthesized at time 0 */
	pw_comm(&d, 100, 100, 0, 0, "prog", 0);
	pw_mmap2(&d, 100, 100, 0, 0, PROG_AT, 0x2000, 0x1000, "/bin/prog",
		 NULL, 0);
	pw_mmap2(&d, -1, 0, 0, 0, KERN_AT, 0x1000000, KERN_AT,
		 "[kernel.kallsyms]_text", NULL, 1);
	/* out of time order in the file, as perf's per-CPU buffers are */
	pw_switch(&d, 1, 100, 100, 300, 301, 4000, 0);
	pw_switch(&d, 0, 300, 301, 100, 100, 4001, 0);
	pw_itrace_start(&d, 100, 100, 1000, 0);
	pw_mmap2(&d, 100, 100, 2000, 0, LIB_AT, 0x10000, 0, "/lib/libc.so.6",
		 bid_libc, 0);
	pw_task(&d, 0, 100, 100, 101, 100, 2500, 0);	/* a thread */
	pw_task(&d, 0, 200, 100, 200, 100, 3000, 1);	/* a process */
	pw_switch(&d, 0, 200, 200, 0, 0, 3100, 1);
	pw_comm(&d, 200, 200, 3500, 1, "child", 0);
	pw_mmap2(&d, 200, 200, 5000, 1, LIB_AT + 0x8000, 0x1000, 0,
		 "/lib/libother.so", NULL, 0);
	pw_comm(&d, 100, 100, 6000, 0, "newprog", 1);
	pw_mmap2(&d, 100, 100, 7000, 0, PROG_AT, 0x3000, 0, "/bin/newprog",
		 NULL, 0);
	pw_mmap(&d, 300, 301, 4500, 0, 0x400000, 0x1000, 0, "/bin/old", 0);
	pw_mmap(&d, 300, 301, 4600, 0, 0x600000, 0x1000, 0, "/bin/old", 1);
	pw_task(&d, 1, 200, 100, 200, 100, 9000, 1);
	/* a writer that puts the new image's MMAPs before the exec's COMM,
	 * at its time (tools/ptrecord) */
	pw_mmap2(&d, 500, 500, 7500, 1, 0x400000, 0x1000, 0, "/bin/old5",
		 NULL, 0);
	pw_mmap2(&d, 500, 500, 8000, 1, 0x500000, 0x1000, 0, "/bin/five",
		 NULL, 0);
	pw_comm(&d, 500, 500, 8000, 1, "five", 1);
	pw_auxtrace(&d, 0);
	pw_auxtrace(&d, 1);
	pw_build_id(&b, 100, bid_prog, "/bin/prog", 0);
	/* perf names the kernel's entry without the map's "_text" */
	pw_build_id(&b, -1, bid_libc, "[kernel.kallsyms]", 1);
	if (pw_file(path, &d, &b))
		return -1;
	free(d.p);
	free(b.p);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

static struct sb *load(struct trace **t)
{
	struct sb *sb;
	char err[256];

	assert_int_equal(trace_open(t, path, err, sizeof(err)), 0);
	assert_int_equal((*t)->nstreams, 2);
	assert_int_equal(sb_load(&sb, *t, err, sizeof(err)), 0);
	return sb;
}

/* The mapping named @file in space @asid, or NULL. */
static const struct sb_map *in_space(const struct sb *sb, uint64_t asid,
				     const char *file)
{
	size_t i, j;

	for (i = 0; i < sb_nspaces(sb); i++) {
		const struct sb_space *s = sb_space(sb, i);

		if (s->asid != asid)
			continue;
		for (j = 0; j < s->nmaps; j++)
			if (!strcmp(sb_map(sb, s->maps[j])->filename, file))
				return sb_map(sb, s->maps[j]);
	}
	return NULL;
}

static void test_null(void **state)
{
	struct sb *sb;
	struct sb_task task;

	(void)state;
	assert_int_equal(sb_load(NULL, NULL, NULL, 0), -pte_invalid);
	assert_int_equal(sb_load(&sb, NULL, NULL, 0), -pte_invalid);
	assert_int_equal(sb_task_at(NULL, 0, 0, 0, &task), -pte_invalid);
	assert_int_equal(sb_nmaps(NULL), 0);
	assert_null(sb_map(NULL, 0));
	assert_int_equal(sb_pid_asid(NULL, 1, 0), SB_ASID_NONE);
	assert_string_equal(sb_comm(NULL, 1, 0), "");
	sb_free(NULL);
}

static void test_maps(void **state)
{
	struct trace *t;
	struct sb *sb = load(&t);
	const struct sb_map *m;
	struct sb_stats st;
	size_t i;

	(void)state;
	/* the data mapping of /bin/old is not code */
	assert_int_equal(sb_nmaps(sb), 8);
	for (i = 1; i < sb_nmaps(sb); i++)
		assert_true(sb_map(sb, i - 1)->time <= sb_map(sb, i)->time);
	m = in_space(sb, SB_ASID_KERNEL, "[kernel.kallsyms]_text");
	assert_non_null(m);
	assert_true(m->kernel);
	assert_int_equal(m->build_id_len, 20);
	assert_memory_equal(m->build_id, bid_libc, 20);
	assert_int_equal(sb_space(sb, 0)->asid, SB_ASID_KERNEL);
	/* build IDs: from the record, from HEADER_BUILD_ID, or none */
	for (i = 0; i < sb_nmaps(sb); i++) {
		m = sb_map(sb, i);
		if (!strcmp(m->filename, "/bin/prog")) {
			assert_int_equal(m->build_id_len, 20);
			assert_memory_equal(m->build_id, bid_prog, 20);
			assert_int_equal(m->start, PROG_AT);
			assert_int_equal(m->pgoff, 0x1000);
			assert_int_equal(m->len, 0x2000);
			assert_int_equal(m->pid, 100);
		} else if (!strcmp(m->filename, "/lib/libc.so.6")) {
			assert_int_equal(m->build_id_len, 20);
			assert_memory_equal(m->build_id, bid_libc, 20);
			assert_int_equal(m->time, 2000);
		} else if (!m->kernel) {
			assert_int_equal(m->build_id_len, 0);
		}
	}
	sb_stats(sb, &st);
	assert_int_equal(st.nmmap, 8);
	assert_int_equal(st.ncomm, 4);
	assert_int_equal(st.nfork, 2);
	assert_int_equal(st.nexit, 1);
	assert_int_equal(st.nswitch, 3);
	assert_int_equal(st.nitrace_start, 1);
	assert_int_equal(st.nbuild_ids, 2);
	sb_free(sb);
	trace_close(t);
}

static void test_spaces(void **state)
{
	struct trace *t;
	struct sb *sb = load(&t);
	uint64_t a1, a2, a3;

	(void)state;
	a1 = sb_pid_asid(sb, 100, 1500);
	assert_true(a1 != SB_ASID_NONE && a1 != SB_ASID_KERNEL);
	assert_non_null(in_space(sb, a1, "/bin/prog"));
	/* a mapping that overlaps nothing joins the space */
	assert_int_equal(sb_pid_asid(sb, 100, 2500), a1);
	assert_non_null(in_space(sb, a1, "/lib/libc.so.6"));
	/* before anything was known: the first space */
	assert_int_equal(sb_pid_asid(sb, 100, 0), a1);
	/* the forked child shares it, until its own mapping overlaps */
	assert_int_equal(sb_pid_asid(sb, 200, 3000), a1);
	assert_int_equal(sb_pid_asid(sb, 200, 4999), a1);
	a2 = sb_pid_asid(sb, 200, 5000);
	assert_true(a2 != a1 && a2 != SB_ASID_NONE);
	assert_non_null(in_space(sb, a2, "/bin/prog"));
	assert_non_null(in_space(sb, a2, "/lib/libother.so"));
	assert_null(in_space(sb, a2, "/lib/libc.so.6"));
	assert_null(in_space(sb, a1, "/lib/libother.so"));
	/* the parent keeps its space; exec gives it a new one */
	assert_int_equal(sb_pid_asid(sb, 100, 5500), a1);
	a3 = sb_pid_asid(sb, 100, 6000);
	assert_true(a3 != a1 && a3 != a2);
	assert_non_null(in_space(sb, a3, "/bin/newprog"));
	assert_null(in_space(sb, a3, "/bin/prog"));
	/* a thread is its process */
	assert_int_equal(sb_pid_asid(sb, 999, 10), SB_ASID_NONE);
	assert_non_null(in_space(sb, sb_pid_asid(sb, 300, 5000), "/bin/old"));
	/* the exec keeps the mappings of its own time, not the older ones */
	assert_non_null(in_space(sb, sb_pid_asid(sb, 500, 8000), "/bin/five"));
	assert_null(in_space(sb, sb_pid_asid(sb, 500, 8000), "/bin/old5"));
	assert_non_null(in_space(sb, sb_pid_asid(sb, 500, 7600), "/bin/old5"));
	sb_free(sb);
	trace_close(t);
}

static void test_timeline(void **state)
{
	struct trace *t;
	struct sb *sb = load(&t);
	struct sb_task k;
	int cpu0 = trace_find_stream(t, "cpu0");
	int cpu1 = trace_find_stream(t, "cpu1");

	(void)state;
	assert_true(cpu0 >= 0 && cpu1 >= 0);
	/* before ITRACE_START nothing is known on cpu0 */
	assert_int_equal(sb_task_at(sb, cpu0, 500, 0, &k), 0);
	assert_int_equal(k.pid, -1);
	assert_int_equal(k.asid, SB_ASID_NONE);
	assert_int_equal(sb_task_at(sb, cpu0, 1500, 0x1000, &k), 0);
	assert_int_equal(k.pid, 100);
	assert_int_equal(k.tid, 100);
	assert_string_equal(k.comm, "prog");
	assert_int_equal(k.asid, sb_pid_asid(sb, 100, 1500));
	/* switched out at 4000 to 300/301 (CPU-wide: the next task); the
	 * record is written once the task stopped: at 4000 it still ran */
	assert_int_equal(sb_task_at(sb, cpu0, 4000, 0, &k), 0);
	assert_int_equal(k.pid, 100);
	assert_int_equal(sb_task_at(sb, cpu0, 4001, 0, &k), 0);
	assert_int_equal(k.pid, 300);
	assert_int_equal(k.tid, 301);
	assert_int_equal(sb_task_at(sb, cpu0, 4002, 0, &k), 0);
	assert_int_equal(k.pid, 300);
	/* its MMAP at 4500 ran on cpu0 too */
	assert_int_equal(sb_task_at(sb, cpu0, 4550, 0, &k), 0);
	assert_int_equal(k.pid, 300);
	/* cpu1: the child from 3100, named as its parent from the fork
	 * (perf's name for it too: the kernel writes no COMM then); its own
	 * comm from 3500 */
	assert_int_equal(sb_task_at(sb, cpu1, 3200, 0, &k), 0);
	assert_int_equal(k.pid, 200);
	assert_string_equal(k.comm, "prog");
	assert_int_equal(sb_task_at(sb, cpu1, 3600, 0, &k), 0);
	assert_string_equal(k.comm, "child");
	assert_int_equal(k.asid, sb_pid_asid(sb, 200, 3600));
	/* comm changes at exec */
	assert_string_equal(sb_comm(sb, 100, 5999), "prog");
	assert_string_equal(sb_comm(sb, 100, 6000), "newprog");
	/* the thread forked at 2500 keeps the name it was given; before
	 * the fork it is unknown */
	assert_string_equal(sb_comm(sb, 101, 6000), "prog");
	assert_string_equal(sb_comm(sb, 101, 2499), "");
	sb_free(sb);
	trace_close(t);
}

static void test_slices_events(void **state)
{
	struct trace *t;
	struct sb *sb = load(&t);
	struct sb_slice sl;
	const struct sb_event *e;
	int cpu0 = trace_find_stream(t, "cpu0");
	size_t i, n, nfork = 0, nexit = 0, nexec = 0, nmmap = 0;

	(void)state;
	/* cpu0: itrace_start 100, mmap 100 (2000), out->300 (4000), in 300
	 * (4001), mmap 300 (4500), exec comm is no point, mmap 100 (7000) */
	n = sb_nslices(sb, cpu0);
	assert_int_equal(n, 6);
	assert_int_equal(sb_slice(sb, cpu0, 0, &sl), 0);
	assert_int_equal(sl.tsc, 1000);
	assert_int_equal(sl.pid, 100);
	assert_string_equal(sl.comm, "prog");
	assert_int_equal(sb_slice(sb, cpu0, 2, &sl), 0);
	assert_int_equal(sl.tsc, 4000);
	assert_int_equal(sl.pid, 300);
	assert_int_equal(sb_slice(sb, cpu0, 5, &sl), 0);
	assert_string_equal(sl.comm, "newprog");
	assert_int_equal(sb_slice(sb, cpu0, n, &sl), -pte_invalid);
	assert_int_equal(sb_nslices(sb, 9), 0);
	for (i = 0; i < sb_nevents(sb); i++) {
		e = sb_event(sb, i);
		if (i)
			assert_true(sb_event(sb, i - 1)->tsc <= e->tsc);
		nfork += e->kind == SB_EV_FORK;
		nexit += e->kind == SB_EV_EXIT;
		if (e->kind == SB_EV_EXEC && e->pid == 100) {
			assert_string_equal(e->name, "newprog");
			assert_int_equal(e->tsc, 6000);
			assert_true(e->have_tsc);
		}
		nexec += e->kind == SB_EV_EXEC;
		if (e->kind == SB_EV_MMAP)
			nmmap++;
	}
	assert_null(sb_event(sb, sb_nevents(sb)));
	assert_int_equal(nfork, 2);
	assert_int_equal(nexit, 1);
	assert_int_equal(nexec, 2);
	assert_int_equal(nmmap, 7);	/* the kernel's is not a process's */
	sb_free(sb);
	trace_close(t);
}

static void test_cr3_fallback(void **state)
{
	struct trace *t;
	struct sb *sb = load(&t);
	struct sb_task k;
	int cpu0 = trace_find_stream(t, "cpu0");
	int cpu1 = trace_find_stream(t, "cpu1");
	uint64_t a1 = sb_pid_asid(sb, 100, 1500);

	(void)state;
	assert_int_equal(sb_cr3_asid(sb, 0x1000), SB_ASID_NONE);
	/* learned where the sideband knows */
	assert_int_equal(sb_task_at(sb, cpu0, 1500, 0x1000, &k), 0);
	assert_int_equal(sb_cr3_asid(sb, 0x1000), a1);
	/* used where it does not (cpu1 before its first record) */
	assert_int_equal(sb_task_at(sb, cpu1, 10, 0x1000, &k), 0);
	assert_int_equal(k.pid, -1);
	assert_int_equal(k.asid, a1);
	assert_int_equal(sb_task_at(sb, cpu1, 10, 0x2000, &k), 0);
	assert_int_equal(k.asid, SB_ASID_NONE);
	sb_learn_cr3(sb, 0x2000, 7);
	assert_int_equal(sb_cr3_asid(sb, 0x2000), 7);
	sb_learn_cr3(sb, 0x2000, 8);
	assert_int_equal(sb_cr3_asid(sb, 0x2000), 8);
	sb_free(sb);
	trace_close(t);
}

static void test_raw(void **state)
{
	char raw[64], err[256];
	static const uint8_t psb[16] = { 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82,
					 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82 };
	struct trace *t;
	struct sb *sb;
	struct sb_task k;
	FILE *f;
	int fd;

	(void)state;
	snprintf(raw, sizeof(raw), "/tmp/ptb-sideband-raw-XXXXXX");
	fd = mkstemp(raw);
	assert_true(fd >= 0);
	close(fd);
	f = fopen(raw, "wb");
	assert_non_null(f);
	fwrite(psb, 1, sizeof(psb), f);
	fclose(f);
	assert_int_equal(trace_open(&t, raw, err, sizeof(err)), 0);
	assert_int_equal(sb_load(&sb, t, err, sizeof(err)), 0);
	assert_int_equal(sb_nmaps(sb), 0);
	assert_int_equal(sb_nspaces(sb), 0);
	assert_int_equal(sb_task_at(sb, 0, 100, 0x1000, &k), 0);
	assert_int_equal(k.pid, -1);
	assert_int_equal(k.asid, SB_ASID_NONE);
	sb_free(sb);
	trace_close(t);
	unlink(raw);
}

/* A record whose perf time is before TIME_CONV's zero (a damaged one)
 * converts, modulo 2^64 as perf's does, to a TSC near 2^64: the timeline
 * stays in TSC order (it was in time order, its searches by TSC). */
static void test_time_before_zero(void **state)
{
	struct pw d = { 0 };
	struct trace *t;
	struct sb *sb;
	struct sb_slice sl;
	struct sb_task k;
	char file[64], err[256];
	uint64_t last = 0;
	size_t i, at;
	int fd;

	(void)state;
	snprintf(file, sizeof(file), "/tmp/ptb-sideband-zero-XXXXXX");
	fd = mkstemp(file);
	assert_true(fd >= 0);
	close(fd);
	pw_setup(&d);
	at = pw_begin(&d, 79, 0);	/* TIME_CONV again: zero 2000 */
	pw_64(&d, 10);
	pw_64(&d, 1024);
	pw_64(&d, 2000);
	pw_end(&d, at);
	pw_itrace_start(&d, 100, 100, 1000, 0);
	pw_switch(&d, 1, 100, 100, 300, 300, 3000, 0);
	pw_switch(&d, 0, 300, 300, 100, 100, 3001, 0);
	pw_auxtrace(&d, 0);
	assert_int_equal(pw_file(file, &d, NULL), 0);
	assert_int_equal(trace_open(&t, file, err, sizeof(err)), 0);
	assert_int_equal(sb_load(&sb, t, err, sizeof(err)), 0);
	assert_int_equal(sb_nslices(sb, 0), 3);
	for (i = 0; i < sb_nslices(sb, 0); i++) {
		assert_int_equal(sb_slice(sb, 0, i, &sl), 0);
		assert_true(sl.tsc >= last);
		last = sl.tsc;
	}
	assert_int_equal(sb_task_at(sb, 0, 5000, 0, &k), 0);
	assert_int_equal(k.pid, 300);
	sb_free(sb);
	trace_close(t);
	free(d.p);
	unlink(file);
}

/* A FORK names the child as its parent was named then, a chain of forks
 * too (a thread of a child not renamed); its own COMM replaces it, also
 * one at the fork's time (perf's synthesized FORK and COMM, both at time
 * 0); a tid used again is the new thread's. */
static void test_fork_comm(void **state)
{
	struct pw d = { 0 };
	struct trace *t;
	struct sb *sb;
	char file[64], err[256];
	int fd;

	(void)state;
	snprintf(file, sizeof(file), "/tmp/ptb-sideband-fork-XXXXXX");
	fd = mkstemp(file);
	assert_true(fd >= 0);
	close(fd);
	pw_setup(&d);
	/* synthesized: 10's thread 11, FORK before its COMM, both at 0 */
	pw_comm(&d, 10, 10, 0, 0, "main", 0);
	pw_task(&d, 0, 10, 10, 11, 10, 0, 0);
	pw_comm(&d, 10, 11, 0, 0, "worker", 0);
	pw_task(&d, 0, 10, 10, 12, 10, 0, 0);
	/* 20 forked by 10, its thread 21 by it, 22 by 21 */
	pw_task(&d, 0, 20, 10, 20, 10, 1000, 0);
	pw_task(&d, 0, 20, 20, 21, 20, 2000, 0);
	pw_task(&d, 0, 20, 20, 22, 21, 2500, 0);
	/* 20 execs; a thread it makes then is named anew */
	pw_comm(&d, 20, 20, 3000, 0, "newname", 1);
	pw_task(&d, 0, 20, 20, 23, 20, 3500, 0);
	/* 11 exits; its tid comes back as 20's thread */
	pw_task(&d, 1, 10, 10, 11, 10, 4000, 0);
	pw_task(&d, 0, 20, 20, 11, 20, 5000, 0);
	/* a parent never named: its child is not either */
	pw_task(&d, 0, 30, 99, 30, 99, 6000, 0);
	pw_auxtrace(&d, 0);
	assert_int_equal(pw_file(file, &d, NULL), 0);
	assert_int_equal(trace_open(&t, file, err, sizeof(err)), 0);
	assert_int_equal(sb_load(&sb, t, err, sizeof(err)), 0);
	assert_string_equal(sb_comm(sb, 11, 0), "worker");
	assert_string_equal(sb_comm(sb, 12, 0), "main");
	assert_string_equal(sb_comm(sb, 20, 999), "");
	assert_string_equal(sb_comm(sb, 20, 1000), "main");
	assert_string_equal(sb_comm(sb, 21, 2000), "main");
	assert_string_equal(sb_comm(sb, 22, 2500), "main");
	assert_string_equal(sb_comm(sb, 20, 3000), "newname");
	assert_string_equal(sb_comm(sb, 21, 3000), "main");
	assert_string_equal(sb_comm(sb, 23, 3500), "newname");
	assert_string_equal(sb_comm(sb, 11, 4999), "worker");
	assert_string_equal(sb_comm(sb, 11, 5000), "newname");
	assert_string_equal(sb_comm(sb, 30, 6000), "");
	sb_free(sb);
	trace_close(t);
	free(d.p);
	unlink(file);
}

/* A per-thread recording without time conversion (cap_user_time_zero 0,
 * no TIME_CONV): every record's time is unknown.  Process 100 runs
 * /bin/sh, then execs /bin/prog at the same address: which image ran
 * at a packet cannot be told, and is not guessed (the last one was). */
static void test_per_thread_untimed(void **state)
{
	struct pw d = { 0 };
	struct trace *t;
	struct sb *sb;
	struct sb_task k;
	struct sb_stats st;
	char file[64], err[256];
	int fd, exec;

	(void)state;
	snprintf(file, sizeof(file), "/tmp/ptb-sideband-pt-XXXXXX");
	fd = mkstemp(file);
	assert_true(fd >= 0);
	close(fd);
	for (exec = 0; exec < 2; exec++) {
		d.n = 0;
		pw_untimed_exec(&d, exec);
		assert_int_equal(pw_file(file, &d, NULL), 0);
		assert_int_equal(trace_open(&t, file, err, sizeof(err)), 0);
		assert_int_equal(t->nstreams, 1);
		assert_int_equal(t->streams[0].tid, 100);
		assert_int_equal(sb_load(&sb, t, err, sizeof(err)), 0);
		sb_stats(sb, &st);
		if (!exec) {
			/* one image: no time needed */
			assert_int_equal(st.nuntimed, 0);
			assert_int_equal(sb_task_at(sb, 0, 5000, 0, &k), 0);
			assert_non_null(in_space(sb, k.asid, "/bin/sh"));
		} else {
			assert_int_equal(st.nuntimed, 1);
			assert_int_equal(sb_task_at(sb, 0, 5000, 0x1000, &k),
					 -pte_no_time);
			assert_int_equal(k.pid, 100);
			assert_int_equal(k.tid, 100);
			assert_int_equal(k.asid, SB_ASID_NONE);
			/* and no CR3 learned for a guess */
			assert_int_equal(sb_cr3_asid(sb, 0x1000), SB_ASID_NONE);
		}
		sb_free(sb);
		trace_close(t);
	}
	free(d.p);
	unlink(file);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_maps),
		cmocka_unit_test(test_spaces),
		cmocka_unit_test(test_timeline),
		cmocka_unit_test(test_slices_events),
		cmocka_unit_test(test_cr3_fallback),
		cmocka_unit_test(test_raw),
		cmocka_unit_test(test_per_thread_untimed),
		cmocka_unit_test(test_time_before_zero),
		cmocka_unit_test(test_fork_comm),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
