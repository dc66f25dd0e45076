/*
 * ptrecord -- run a program under ptrace, one instruction at a time, and
 * write the Intel PT trace the hardware would have written for it (user
 * code only), with the exact instruction log beside it.  See ptrecord.h
 * for the parts; the cycles and times in the trace come from a model.
 *
 *   ptrecord [options] -o TRACE [--] PROGRAM [ARGS...]
 *
 * Threads are followed (PTRACE_O_TRACECLONE) and run on --cpus simulated
 * CPUs, one stream each: a thread keeps its CPU until it blocks in a
 * system call, exits, or has run --quantum instructions while another
 * waits; each switch is a SWITCH_CPU_WIDE line in the sideband.  Only one
 * thread steps per CPU at a time, so a stream holds one thread's packets
 * between two switches, as on a real CPU.  A child process (fork, vfork:
 * PTRACE_O_TRACEFORK) is not followed: said once, and let go at its first
 * stop to run untraced.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ptrecord.h"

/* A system call still running after this long blocks its CPU no more. */
#define BLOCK_NS	3000000ll

enum thr_state {
	T_NEW,		/* announced by clone, its first stop not seen yet */
	T_READY,	/* stopped by us, waiting for a CPU */
	T_STOPPED,	/* on a CPU, stopped: its next step can be issued */
	T_STEPPING,	/* on a CPU, a step is under way */
	T_BLOCKED,	/* off its CPU inside a system call, step under way */
};

struct thr {
	pid_t tid;
	enum thr_state state;
	int cpu;		/* -1 when off CPU */
	int have_insn;		/* insn is decoded and not yet done */
	struct ptr_insn insn;
	unsigned iters;		/* REP iterations stepped so far */
	uint64_t nr;		/* the system call number, for its cost */
	int committed;		/* insn is in the trace already */
	int sig;		/* signal to deliver at the next resume */
	int to_handler;		/* that signal is caught: expect its handler */
	uint64_t ready_tsc;	/* when it became ready */
	long long issued;	/* when its step was issued (ns) */
	char comm[PTR_COMM_MAX];	/* its name in the sideband */
	struct thr *next;	/* the ready queue */
};

struct cpu {
	struct ptr_stream *s;
	struct thr *cur;
	uint64_t since;		/* instructions since it was switched in */
	int ran;		/* it ran a thread before */
	pid_t last;		/* the thread it ran last */
};

struct rec {
	struct ptr_opts o;
	struct ptr_proc *proc;
	struct cpu *cpus;
	struct thr **thr;
	size_t nthr;
	struct thr *rq_head, *rq_tail;
	pid_t pid;
	uint64_t insns;
	int stopping;		/* --max-insns reached */
	unsigned forked;	/* child processes started (not followed) */
	int status;		/* the program's wait status */
};

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static struct thr *thr_find(struct rec *r, pid_t tid)
{
	size_t i;

	for (i = 0; i < r->nthr; i++)
		if (r->thr[i]->tid == tid)
			return r->thr[i];
	return NULL;
}

static struct thr *thr_add(struct rec *r, pid_t tid)
{
	struct thr *t = calloc(1, sizeof(*t)), **g;

	g = realloc(r->thr, (r->nthr + 1) * sizeof(*g));
	if (!t || !g) {
		fprintf(stderr, "ptrecord: out of memory\n");
		exit(1);
	}
	r->thr = g;
	t->tid = tid;
	t->cpu = -1;
	t->state = T_NEW;
	r->thr[r->nthr++] = t;
	return t;
}

static void thr_del(struct rec *r, struct thr *t)
{
	size_t i;

	for (i = 0; i < r->nthr; i++)
		if (r->thr[i] == t) {
			r->thr[i] = r->thr[--r->nthr];
			break;
		}
	free(t);
}

/* The latest clock of all CPUs: "now" for events off any CPU. */
static uint64_t rec_now(struct rec *r)
{
	uint64_t t = 0, v;
	unsigned c;

	for (c = 0; c < r->o.ncpus; c++) {
		v = ptr_stream_tsc(r->cpus[c].s);
		if (v > t)
			t = v;
	}
	return t;
}

static void rq_push(struct rec *r, struct thr *t, uint64_t tsc)
{
	t->state = T_READY;
	t->cpu = -1;
	t->ready_tsc = tsc;
	t->next = NULL;
	if (r->rq_tail)
		r->rq_tail->next = t;
	else
		r->rq_head = t;
	r->rq_tail = t;
}

static struct thr *rq_pop(struct rec *r)
{
	struct thr *t = r->rq_head;

	if (t) {
		r->rq_head = t->next;
		if (!r->rq_head)
			r->rq_tail = NULL;
	}
	return t;
}

/* Take @t off its CPU (it blocks, yields to another, or exits). */
static void switch_out(struct rec *r, struct thr *t, int preempt)
{
	struct cpu *c = &r->cpus[t->cpu];
	pid_t next = r->rq_head ? r->rq_head->tid : -1;

	ptr_proc_switch(r->proc, (unsigned)t->cpu, ptr_stream_tsc(c->s), 1,
			t->tid, next, preempt);
	c->cur = NULL;
	c->last = t->tid;
	t->cpu = -1;
}

/* Give every free CPU a ready thread. */
static void schedule(struct rec *r)
{
	unsigned i;

	for (i = 0; i < r->o.ncpus && r->rq_head; i++) {
		struct cpu *c = &r->cpus[i];
		struct thr *t;

		if (c->cur)
			continue;
		t = rq_pop(r);
		if (c->ran)
			ptr_stream_idle_until(c->s, t->ready_tsc);
		ptr_proc_switch(r->proc, i, ptr_stream_tsc(c->s), 0, t->tid,
				c->ran ? c->last : -1, 0);
		c->ran = 1;
		c->cur = t;
		c->since = 0;
		t->cpu = (int)i;
		t->state = T_STOPPED;
	}
}

/* Kernel cycles of system call @nr: a model, by rough kind. */
static uint64_t syscall_cycles(uint64_t nr)
{
	switch (nr) {
	case 56:	/* clone */
	case 435:	/* clone3 */
		return 30000;
	case 9:		/* mmap */
	case 10:	/* mprotect */
	case 11:	/* munmap */
		return 4000;
	case 0:		/* read */
	case 1:		/* write */
		return 2500;
	case 60:	/* exit */
	case 231:	/* exit_group */
		return 0;
	default:
		return 700 + (nr % 13) * 90;
	}
}

/* @t's instruction executed and went to @next: into the trace. */
static void commit(struct rec *r, struct thr *t, uint64_t next)
{
	struct ptr_stream *s = r->cpus[t->cpu].s;

	ptr_stream_insn(s, &t->insn);
	ptr_stream_branch(s, &t->insn, next, t->iters);
	if (t->insn.kind == PTR_K_SYSCALL) {
		ptr_stream_run(s, syscall_cycles(t->nr));
		/* prctl(PR_SET_NAME) or a write to .../comm: a new name */
		if (t->nr == 157 || t->nr == 1)
			ptr_proc_comm(r->proc, t->tid, ptr_stream_tsc(s), 0,
				      t->comm);
	}
	t->committed = 1;
	r->insns++;
	r->cpus[t->cpu].since++;
}

/* The number after @key ("Tgid:") in /proc/@tid/status, in @base, into
 * *@out.  Returns 0, or -1 if there is no such line (or no such task). */
static int proc_status(pid_t tid, const char *key, int base, unsigned long long *out)
{
	char path[64], line[128];
	size_t n = strlen(key);
	int r = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n)) {
			*out = strtoull(line + n, NULL, base);
			r = 0;
		}
	fclose(f);
	return r;
}

/* Whether @tid is a thread of another process than the program's: a
 * child it forked, whose first stop ptrace reports. */
static int other_process(const struct rec *r, pid_t tid)
{
	unsigned long long tgid;

	return !proc_status(tid, "Tgid:", 10, &tgid) && tgid > 0 &&
	       tgid != (unsigned long long)r->pid;
}

/* Whether @tid catches signal @sig (SigCgt in its status). */
static int caught(pid_t tid, int sig)
{
	unsigned long long mask;

	return !proc_status(tid, "SigCgt:", 16, &mask) && sig > 0 && sig <= 64 &&
	       (mask >> (sig - 1)) & 1;
}

static int get_regs(pid_t tid, struct user_regs_struct *regs)
{
	return ptrace(PTRACE_GETREGS, tid, NULL, regs) < 0 ? -1 : 0;
}

/* Issue @t's next step on its CPU, or preempt it. */
static void issue(struct rec *r, struct thr *t)
{
	struct cpu *c = &r->cpus[t->cpu];

	if (!t->have_insn) {
		struct user_regs_struct regs;
		uint8_t code[16];
		size_t n;

		if (get_regs(t->tid, &regs) < 0)
			return;	/* gone: its exit is on the way */
		if (c->since >= r->o.quantum && r->rq_head) {
			/* preempted by a timer interrupt: FUP + TIP.PGD */
			ptr_stream_async(c->s, regs.rip);
			switch_out(r, t, 1);
			rq_push(r, t, ptr_stream_tsc(c->s));
			return;
		}
		if (r->o.max_insns && r->insns >= r->o.max_insns) {
			if (!r->stopping && !r->o.quiet)
				fprintf(stderr, "ptrecord: %" PRIu64 " instructions: "
					"stopping the program\n", r->insns);
			r->stopping = 1;
			ptr_stream_async(c->s, regs.rip);
			kill(r->pid, SIGKILL);
			t->state = T_STEPPING;
			return;
		}
		n = ptr_proc_code(r->proc, regs.rip, code, sizeof(code));
		if (ptr_decode(regs.rip, code, n, &t->insn) < 0) {
			fprintf(stderr, "ptrecord: cannot decode the instruction "
				"at %#llx (%zu bytes readable): stopping\n",
				regs.rip, n);
			ptr_stream_async(c->s, regs.rip);
			r->stopping = 1;
			kill(r->pid, SIGKILL);
			t->state = T_STEPPING;
			return;
		}
		ptr_proc_exec_at(r->proc, regs.rip, ptr_stream_tsc(c->s));
		t->nr = regs.rax;
		t->have_insn = 1;
		t->committed = 0;
		t->iters = 0;
	}
	if (ptrace(PTRACE_SINGLESTEP, t->tid, NULL, (void *)(long)t->sig) < 0)
		return;
	t->sig = 0;
	t->state = T_STEPPING;
	t->issued = now_ns();
}

/* A thread is gone: its unfinished instruction did not make it. */
static void thr_gone(struct rec *r, struct thr *t)
{
	uint64_t tsc = t->cpu >= 0 ? ptr_stream_tsc(r->cpus[t->cpu].s) :
				     rec_now(r);

	if (t->cpu >= 0) {
		if (t->have_insn && !t->committed) {
			if (t->insn.kind == PTR_K_SYSCALL)
				commit(r, t, 0);	/* exit, exit_group */
			else
				ptr_stream_async(r->cpus[t->cpu].s, t->insn.ip);
		}
		switch_out(r, t, 0);
	}
	if (t->state == T_READY) {
		struct thr **pp;

		for (pp = &r->rq_head; *pp; pp = &(*pp)->next)
			if (*pp == t) {
				*pp = t->next;
				break;
			}
		r->rq_tail = NULL;
		for (pp = &r->rq_head; *pp; pp = &(*pp)->next)
			r->rq_tail = *pp;
	}
	ptr_proc_exit(r->proc, t->tid, tsc);
	thr_del(r, t);
}

/* @t stopped with @status. */
static void handle_stop(struct rec *r, struct thr *t, int status)
{
	int sig = WSTOPSIG(status), event = status >> 16;
	struct user_regs_struct regs;

	if (event == PTRACE_EVENT_EXEC) {
		/* Another program: its code is not what was read and dumped.
		 * The exec is the last instruction traced; the new program
		 * runs on untraced. */
		if (!r->o.quiet)
			fprintf(stderr, "ptrecord: the program called exec: "
				"recording stops there\n");
		if (t->have_insn && !t->committed && t->cpu >= 0)
			commit(r, t, 0);
		if (t->cpu >= 0)
			switch_out(r, t, 0);
		t->state = T_BLOCKED;	/* off CPU until its exit */
		t->have_insn = 0;
		r->stopping = 1;
		ptrace(PTRACE_DETACH, t->tid, NULL, NULL);
		return;
	}
	if (event) {
		/* PTRACE_EVENT_CLONE: the new thread, then on with the
		 * system call that made it.  A new process (fork, vfork)
		 * is not followed: said once, and let go at its first stop
		 * (main()). */
		unsigned long msg = 0;

		if ((event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK) &&
		    !r->forked++ && !r->o.quiet &&
		    ptrace(PTRACE_GETEVENTMSG, t->tid, NULL, &msg) == 0)
			fprintf(stderr, "ptrecord: the program started process %lu "
				"(fork): child processes run untraced\n", msg);

		if (event == PTRACE_EVENT_CLONE &&
		    ptrace(PTRACE_GETEVENTMSG, t->tid, NULL, &msg) == 0) {
			struct thr *n = thr_find(r, (pid_t)msg);
			uint64_t tsc = t->cpu >= 0 ?
				       ptr_stream_tsc(r->cpus[t->cpu].s) : rec_now(r);

			if (!n)
				n = thr_add(r, (pid_t)msg);
			n->ready_tsc = tsc;
			ptr_proc_fork(r->proc, n->tid, t->tid, tsc);
			ptr_proc_comm(r->proc, n->tid, tsc, 0, n->comm);
		}
		ptrace(PTRACE_SINGLESTEP, t->tid, NULL, NULL);
		return;
	}
	if (t->state == T_NEW) {
		/* its first stop (SIGSTOP): ready to run */
		rq_push(r, t, t->ready_tsc ? t->ready_tsc : rec_now(r));
		return;
	}
	if (get_regs(t->tid, &regs) < 0)
		return;
	if (sig == SIGTRAP && t->to_handler) {
		/* stopped at the handler's first instruction: the trace
		 * re-enables there (TIP.PGE) when it runs; the instruction
		 * the signal came before has not run */
		t->to_handler = 0;
		t->have_insn = 0;
	} else if (sig == SIGTRAP) {
		if (t->have_insn && t->insn.rep && regs.rip == t->insn.ip &&
		    !t->committed) {
			/* one more iteration of the same string instruction */
			t->iters++;
			ptrace(PTRACE_SINGLESTEP, t->tid, NULL, NULL);
			return;
		}
		if (t->have_insn && !t->committed)
			commit(r, t, regs.rip);
		t->have_insn = 0;
	} else {
		/* A signal arrives.  A system call that was under way has
		 * executed (the IP moved past it); anything else had not
		 * begun: the kernel took over before it, an asynchronous
		 * exit to the untraced kernel. */
		if (t->have_insn && !t->committed) {
			if (t->insn.kind == PTR_K_SYSCALL && regs.rip != t->insn.ip)
				commit(r, t, regs.rip);
			else if (t->cpu >= 0)
				ptr_stream_async(r->cpus[t->cpu].s, t->insn.ip);
		}
		t->have_insn = 0;
		t->sig = sig;
		t->to_handler = caught(t->tid, sig);
	}
	if (t->state == T_BLOCKED)
		rq_push(r, t, rec_now(r));
	else
		t->state = T_STOPPED;
}

/* System calls that block: off their CPU when someone waits for one. */
static void unblock_cpus(struct rec *r)
{
	long long now = now_ns();
	unsigned i;

	for (i = 0; i < r->o.ncpus && r->rq_head; i++) {
		struct thr *t = r->cpus[i].cur;

		if (!t || t->state != T_STEPPING || !t->have_insn ||
		    t->insn.kind != PTR_K_SYSCALL || t->committed ||
		    now - t->issued < BLOCK_NS)
			continue;
		commit(r, t, 0);
		switch_out(r, t, 0);
		t->state = T_BLOCKED;
	}
}

/* Whether a CPU holds a system call that could block it while a thread waits. */
static int may_block(struct rec *r, long long *deadline)
{
	unsigned i;
	int any = 0;

	if (!r->rq_head)
		return 0;
	for (i = 0; i < r->o.ncpus; i++) {
		struct thr *t = r->cpus[i].cur;

		if (t && t->state == T_STEPPING && t->have_insn &&
		    t->insn.kind == PTR_K_SYSCALL && !t->committed) {
			if (!any || t->issued + BLOCK_NS < *deadline)
				*deadline = t->issued + BLOCK_NS;
			any = 1;
		}
	}
	return any;
}

/* The next stop of any thread; 0 on a timeout, -1 when none are left. */
static pid_t wait_any(struct rec *r, int *status)
{
	sigset_t set;
	long long deadline = 0;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	for (;;) {
		pid_t pid = waitpid(-1, status, __WALL | WNOHANG);
		struct timespec ts;
		long long left;

		if (pid != 0)
			return pid;
		if (!may_block(r, &deadline))
			return waitpid(-1, status, __WALL);
		left = deadline - now_ns();
		if (left <= 0)
			return 0;
		ts.tv_sec = left / 1000000000ll;
		ts.tv_nsec = left % 1000000000ll;
		if (sigtimedwait(&set, NULL, &ts) < 0 && errno == EAGAIN)
			return 0;
	}
}

/* Run the program up to main: a breakpoint there, then the original
 * byte back.  Returns 0, or -1 if it never got there. */
static int run_to_main(struct rec *r)
{
	uint64_t main_ip = ptr_proc_main(r->proc);
	struct user_regs_struct regs;
	long word;
	int status, sig = 0;

	if (!main_ip) {
		fprintf(stderr, "ptrecord: no symbol 'main' in the program: "
			"use --from-exec\n");
		return -1;
	}
	errno = 0;
	word = ptrace(PTRACE_PEEKTEXT, r->pid, (void *)main_ip, NULL);
	if (errno ||
	    ptrace(PTRACE_POKETEXT, r->pid, (void *)main_ip,
		   (void *)((word & ~0xffl) | 0xcc)) < 0) {
		fprintf(stderr, "ptrecord: cannot set a breakpoint at main "
			"(%#" PRIx64 "): %s\n", main_ip, strerror(errno));
		return -1;
	}
	for (;;) {
		if (ptrace(PTRACE_CONT, r->pid, NULL, (void *)(long)sig) < 0 ||
		    waitpid(r->pid, &status, __WALL) < 0 || !WIFSTOPPED(status)) {
			fprintf(stderr, "ptrecord: the program ended before main\n");
			return -1;
		}
		sig = WSTOPSIG(status) == SIGTRAP ? 0 : WSTOPSIG(status);
		if (sig || status >> 16 || get_regs(r->pid, &regs) < 0 ||
		    regs.rip != main_ip + 1)
			continue;
		regs.rip = main_ip;
		if (ptrace(PTRACE_POKETEXT, r->pid, (void *)main_ip,
			   (void *)word) < 0 ||
		    ptrace(PTRACE_SETREGS, r->pid, NULL, &regs) < 0) {
			fprintf(stderr, "ptrecord: cannot remove the breakpoint "
				"at main: %s\n", strerror(errno));
			return -1;
		}
		return 0;
	}
}

static pid_t start(char **argv, int aslr)
{
	pid_t pid = fork();
	int status;

	if (pid < 0) {
		fprintf(stderr, "ptrecord: fork: %s\n", strerror(errno));
		exit(1);
	}
	if (!pid) {
		/* the same addresses each run, as under gdb: reproducible */
		if (!aslr)
			personality(ADDR_NO_RANDOMIZE);
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execvp(argv[0], argv);
		fprintf(stderr, "ptrecord: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFSTOPPED(status)) {
		fprintf(stderr, "ptrecord: %s did not start\n", argv[0]);
		exit(1);
	}
	ptrace(PTRACE_SETOPTIONS, pid, NULL,
	       (void *)(long)(PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC |
			      PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
			      PTRACE_O_EXITKILL));
	return pid;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: ptrecord [options] -o TRACE [--] PROGRAM [ARGS...]\n"
"Run PROGRAM under ptrace, one instruction at a time, and write the Intel PT\n"
"trace the hardware would have written for its user code, with its exact\n"
"instruction log.  Cycles and times in the trace come from a cycle model:\n"
"they are plausible, not measured.\n"
"\n"
"  -o, --output TRACE   the trace (raw Intel PT); with --cpus N > 1 one per\n"
"                       CPU, TRACE.cpuK.  Beside it: TRACE[.cpuK].flow, the\n"
"                       instruction log (one IP per line, as libipt's flow);\n"
"                       TRACE.img/ and TRACE.options, the timing options\n"
"                       then the executed code as --raw FILE:ADDR images\n"
"                       (with --cpus N > 1 TRACE.cpuK.options too, the\n"
"                       timing options); TRACE.sideband, for pt2perf\n"
"      --cpus N         simulated CPUs, one stream each (default 1)\n"
"      --quantum N      instructions a thread runs while another waits\n"
"                       before it is preempted (default 20000)\n"
"      --psb-period N   bytes between PSB+ (default 4096, at least 64)\n"
"      --no-cyc         no CYC packets (long TNTs instead of short ones)\n"
"      --no-retcomp     no return compression\n"
"      --cbr N          the core:bus ratio of the model (default 24: a\n"
"                       whole number of cycles per MTC period)\n"
"      --mtc-freq N     an MTC packet every 2^N crystal clocks (default 3,\n"
"                       perf's; 0 gives one every 100 cycles at CBR 24, so\n"
"                       that a decoder measures the frequency sooner);\n"
"                       written in TRACE.options and the sideband, where\n"
"                       ptbrowse and pt2perf find it\n"
"      --seed N         seed of the model's cache misses (default 1)\n"
"      --max-insns N    stop the program after N instructions (0: no limit)\n"
"      --log-cycles     the instruction log gives each IP's start and\n"
"                       retirement cycles: 'IP START RETIRED' (the model's\n"
"                       core cycles, as the CYC packets count them)\n"
"      --from-exec      trace from the first instruction, not from main\n"
"      --aslr           keep address space randomisation (off by default,\n"
"                       so that the same program gives the same trace)\n"
"  -q, --quiet          no summary\n"
"  -h, --help           this text\n"
"Exit status: 0, 1 if recording failed, 2 on a usage error, 3 if the program\n"
"exited non-zero or was killed (the trace is written all the same).\n"
"The timing configuration is ptgen's: --cpu 6/78/3 --mtc-freq 3 --nom-freq 12\n"
"--cpuid-0x15.eax 2 --cpuid-0x15.ebx 100 (--mtc-freq as given).\n"
"Threads are followed; child processes (fork, vfork) run untraced (said\n"
"once), and an exec ends the recording.\n"
"The files replace what had their names only once the whole recording has\n"
"succeeded (never the traced program); a failed one leaves none.\n");
}

static uint64_t num_arg(const char *s, const char *opt)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || end == s || *s == '-') {
		fprintf(stderr, "ptrecord: bad value '%s' for %s\n", s, opt);
		exit(2);
	}
	return v;
}

/* The number @s for @opt, in [@min, @max]: checked before it is cut to
 * unsigned, so that 2^32 + 2 is not taken as 2.  Exits with a usage error
 * if it is out of range. */
static unsigned num_range(const char *s, const char *opt, unsigned min,
			  unsigned max)
{
	uint64_t v = num_arg(s, opt);

	if (v < min || v > max) {
		fprintf(stderr, "ptrecord: %s is %u..%u\n", opt, min, max);
		exit(2);
	}
	return (unsigned)v;
}

static int parse_args(struct ptr_opts *o, int argc, char **argv)
{
	enum { O_CPUS = 256, O_QUANTUM, O_PSB, O_NOCYC, O_NORET, O_CBR,
	       O_SEED, O_MAX, O_EXEC, O_ASLR, O_LOGCYC, O_MTC };
	static const struct option lopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "cpus", required_argument, NULL, O_CPUS },
		{ "quantum", required_argument, NULL, O_QUANTUM },
		{ "psb-period", required_argument, NULL, O_PSB },
		{ "no-cyc", no_argument, NULL, O_NOCYC },
		{ "no-retcomp", no_argument, NULL, O_NORET },
		{ "cbr", required_argument, NULL, O_CBR },
		{ "mtc-freq", required_argument, NULL, O_MTC },
		{ "seed", required_argument, NULL, O_SEED },
		{ "max-insns", required_argument, NULL, O_MAX },
		{ "from-exec", no_argument, NULL, O_EXEC },
		{ "aslr", no_argument, NULL, O_ASLR },
		{ "log-cycles", no_argument, NULL, O_LOGCYC },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	o->ncpus = 1;
	o->quantum = 20000;
	o->psb_period = 4096;
	o->cyc = 1;
	o->retcomp = 1;
	o->cbr = 24;
	o->mtc_freq = PTR_MTC_FREQ;
	o->seed = 1;
	while ((c = getopt_long(argc, argv, "+o:qh", lopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->out = optarg;
			break;
		case O_CPUS:
			o->ncpus = num_range(optarg, "--cpus", 1, 64);
			break;
		case O_QUANTUM:
			o->quantum = num_arg(optarg, "--quantum");
			/* 0 would preempt every thread before its first
			 * step while another waits: nothing ever runs */
			if (!o->quantum) {
				fprintf(stderr, "ptrecord: --quantum is at least 1\n");
				exit(2);
			}
			break;
		case O_PSB:
			o->psb_period = num_arg(optarg, "--psb-period");
			/* ptgen's bound: 0 wrote a PSB+ at almost every
			 * instruction */
			if (o->psb_period < 64) {
				fprintf(stderr, "ptrecord: bad value '%s' for "
					"--psb-period (at least 64)\n", optarg);
				exit(2);
			}
			break;
		case O_NOCYC:
			o->cyc = 0;
			break;
		case O_NORET:
			o->retcomp = 0;
			break;
		case O_CBR:
			o->cbr = num_range(optarg, "--cbr", 1, 255);
			break;
		case O_MTC:
			o->mtc_freq = num_range(optarg, "--mtc-freq", 0, 15);
			break;
		case O_SEED:
			o->seed = num_arg(optarg, "--seed");
			break;
		case O_MAX:
			o->max_insns = num_arg(optarg, "--max-insns");
			break;
		case O_EXEC:
			o->from_exec = 1;
			break;
		case O_LOGCYC:
			o->log_cycles = 1;
			break;
		case O_ASLR:
			o->aslr = 1;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (!o->out || optind >= argc) {
		usage(stderr);
		exit(2);
	}
	return optind;
}

/* What can be refused before the program starts: an empty -o, and a
 * -o in a directory that does not exist, and a
 * TRACE.img that is not a directory (the code images go in it).  Exits
 * after saying why.  The rest (a FIFO at -o, the traced program itself)
 * is refused when the files are opened, with the program still stopped
 * at its exec. */
static void check_out(const struct ptr_opts *o)
{
	const char *slash = strrchr(o->out, '/');
	char img[4200];
	struct stat st;

	if (!*o->out) {
		fprintf(stderr, "ptrecord: -o: empty file name\n");
		exit(2);
	}
	/* said as safefile says it for the other tools (the first file
	 * made is TRACE.img/, which named that) */
	snprintf(img, sizeof(img), "%.*s", slash ? (int)(slash - o->out) : 1,
		 slash ? o->out : ".");
	if (slash && slash != o->out && stat(img, &st) < 0 && errno == ENOENT) {
		fprintf(stderr, "ptrecord: %s: no such directory: %s\n", o->out, img);
		exit(1);
	}
	snprintf(img, sizeof(img), "%s.img", o->out);
	if (!stat(img, &st) && !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "ptrecord: %s: not a directory (ptrecord puts "
			"the code images in TRACE.img/)\n", img);
		exit(1);
	}
}

/* One stream per CPU: TRACE, or TRACE.cpuK with several.  0, or -1 after
 * ptr_stream_open() said why (those opened are closed). */
static int open_streams(struct rec *r)
{
	unsigned i;

	for (i = 0; i < r->o.ncpus; i++) {
		char trace[4096], log[4200];

		if (r->o.ncpus == 1)
			snprintf(trace, sizeof(trace), "%s", r->o.out);
		else
			snprintf(trace, sizeof(trace), "%s.cpu%u", r->o.out, i);
		snprintf(log, sizeof(log), "%s.flow", trace);
		r->cpus[i].s = ptr_stream_open(&r->o, i, trace, log);
		if (!r->cpus[i].s) {
			while (i--)
				(void)ptr_stream_close(r->cpus[i].s, NULL);
			return -1;
		}
	}
	return 0;
}

/* Recording failed before it began: the program is killed, the outputs
 * (@streams: the streams are open) removed.  Returns 1, the exit status. */
static int give_up(struct rec *r, int streams)
{
	unsigned i;

	kill(r->pid, SIGKILL);
	for (i = 0; streams && i < r->o.ncpus; i++)
		(void)ptr_stream_close(r->cpus[i].s, NULL);
	ptr_out_abort();
	ptr_proc_free(r->proc);
	free(r->cpus);
	return 1;
}

int main(int argc, char **argv)
{
	struct rec r;
	struct thr *t0;
	sigset_t set;
	unsigned i;
	int first, err = 0;
	uint64_t bytes = 0;

	memset(&r, 0, sizeof(r));
	first = parse_args(&r.o, argc, argv);
	check_out(&r.o);
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	r.pid = start(argv + first, r.o.aslr);
	/* the outputs: never over the program, removed unless committed */
	ptr_out_init(r.pid);
	r.proc = ptr_proc_new(&r.o, r.pid);
	r.cpus = calloc(r.o.ncpus, sizeof(*r.cpus));
	/* every output is open before the program runs a single instruction:
	 * one refused (said by ptr_proc_new() or ptr_stream_open()) stops it
	 * there, and out.c removes what was made */
	if (!r.proc || !r.cpus || open_streams(&r) < 0)
		return give_up(&r, 0);
	if (!r.o.from_exec && run_to_main(&r) < 0)
		return give_up(&r, 1);
	ptr_proc_announce(r.proc, ptr_stream_tsc(r.cpus[0].s));
	t0 = thr_add(&r, r.pid);
	ptr_proc_comm(r.proc, r.pid, ptr_stream_tsc(r.cpus[0].s), 1, t0->comm);
	rq_push(&r, t0, ptr_stream_tsc(r.cpus[0].s));
	for (;;) {
		struct thr *t;
		int status;
		pid_t pid;

		schedule(&r);
		for (i = 0; i < r.o.ncpus; i++)
			if (r.cpus[i].cur && r.cpus[i].cur->state == T_STOPPED)
				issue(&r, r.cpus[i].cur);
		schedule(&r);
		for (i = 0; i < r.o.ncpus; i++)
			if (r.cpus[i].cur && r.cpus[i].cur->state == T_STOPPED)
				issue(&r, r.cpus[i].cur);
		pid = wait_any(&r, &status);
		if (pid < 0)
			break;
		if (!pid) {
			unblock_cpus(&r);
			continue;
		}
		t = thr_find(&r, pid);
		if (!t && other_process(&r, pid)) {
			/* a child process (PTRACE_O_TRACEFORK): let go */
			ptrace(PTRACE_DETACH, pid, NULL, NULL);
			continue;
		}
		if (!t) {
			/* a new thread's first stop, before its clone event */
			t = thr_add(&r, pid);
		}
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			if (pid == r.pid)
				r.status = status;
			thr_gone(&r, t);
			continue;
		}
		handle_stop(&r, t, status);
	}
	/* the bytes once closed: the last TNT and the PADs to 8 bytes */
	for (i = 0; i < r.o.ncpus; i++)
		if (ptr_stream_close(r.cpus[i].s, &bytes) < 0)
			err = 1;
	if (ptr_proc_finish(r.proc) < 0)
		err = 1;
	ptr_proc_free(r.proc);
	/* all or nothing: a failed recording leaves no file behind */
	if (err) {
		ptr_out_abort();
		fprintf(stderr, "ptrecord: %s: recording failed: nothing written\n",
			r.o.out);
	} else if (ptr_out_commit() < 0) {
		err = 1;
	}
	if (!r.o.quiet)
		fprintf(stderr, "ptrecord: %s: %" PRIu64 " instructions on %u "
			"CPU%s, %" PRIu64 " bytes of trace; cycles and times are "
			"from a model, not measured\n", argv[first], r.insns,
			r.o.ncpus, r.o.ncpus > 1 ? "s" : "", bytes);
	if (WIFSIGNALED(r.status) && !r.stopping)
		fprintf(stderr, "ptrecord: %s was killed by signal %d\n",
			argv[first], WTERMSIG(r.status));
	else if (WIFEXITED(r.status) && WEXITSTATUS(r.status))
		fprintf(stderr, "ptrecord: %s exited with status %d\n",
			argv[first], WEXITSTATUS(r.status));
	/* the program's failure is ours: tests rely on its own checks */
	if (!err && !r.stopping && (WIFSIGNALED(r.status) ||
				    WEXITSTATUS(r.status)))
		err = 3;
	while (r.nthr)
		thr_del(&r, r.thr[0]);
	free(r.thr);
	free(r.cpus);
	return err;
}
