/*
 * ptrecord -- record a real program as Intel PT would have traced it.
 *
 * This machine has no Intel PT, so the program runs under ptrace, one
 * instruction at a time; each stepped instruction is decoded with Zydis
 * and the packets the hardware would have written for it (user-only
 * tracing, SDM chapter "Intel Processor Trace") go to one stream per
 * simulated CPU, beside the exact instruction log of that stream.
 *
 *   main.c    options, the ptrace loop: threads, scheduling on the
 *             simulated CPUs, signals, system calls
 *   stream.c  one CPU's packet stream: TNT, TIP and IP compression,
 *             return compression, PSB+, and the cycle model behind
 *             CYC/MTC/TSC (a model, not a measurement)
 *   proc.c    the traced process: /proc/PID/maps, code images for
 *             --raw decoding, build IDs, the sideband file for pt2perf
 *
 * Not modelled: exits to the kernel the program cannot see (page faults,
 * device interrupts: only preemption, signals and system calls leave the
 * traced code), deferred TIPs, PIP/CR3 (one process), 32-bit code, code
 * that changes after it first ran (JIT), exec, and the children of fork
 * (they run untraced).
 */
#ifndef PTRECORD_H
#define PTRECORD_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* The timing configuration, ptgen's (ptgen --print-config): P1 = 12,
 * CPUID.15H 2/100; MTCFreq 3 unless --mtc-freq says otherwise.  Written
 * in TRACE.options (and TRACE.cpuK.options) and the sideband's "# timing"
 * line, where ptbrowse and tools/pt2perf take it. */
#define PTR_NOM_FREQ	12
#define PTR_MTC_FREQ	3
#define PTR_EAX		2
#define PTR_EBX		100

struct ptr_opts {
	const char *out;	/* -o: the trace, or the prefix of per-CPU ones */
	unsigned ncpus;		/* simulated CPUs, one stream each */
	uint64_t psb_period;	/* bytes between PSB+ */
	uint64_t quantum;	/* instructions before a preemption */
	uint64_t max_insns;	/* stop after this many (0: no limit) */
	int cyc;		/* cycle-accurate mode: CYC packets */
	int retcomp;		/* return compression */
	int from_exec;		/* trace from exec, not from main */
	int aslr;		/* keep address space randomisation */
	unsigned cbr;		/* the core:bus ratio of the model */
	unsigned mtc_freq;	/* an MTC every 2^mtc_freq crystal clocks */
	uint64_t seed;		/* of the cycle model's cache misses */
	int log_cycles;		/* the log gives each instruction's cycles */
	int quiet;
};

/* One simulated CPU's packet stream and instruction log. */
struct ptr_stream;

/* What an instruction is to the trace. */
enum ptr_kind {
	PTR_K_OTHER,		/* no packet */
	PTR_K_JCC,		/* conditional: a TNT bit */
	PTR_K_JMP,		/* direct jump: nothing */
	PTR_K_CALL,		/* direct call: pushed for return compression */
	PTR_K_CALL0,		/* call to the next instruction: not pushed */
	PTR_K_IJMP,		/* indirect jump: TIP */
	PTR_K_ICALL,		/* indirect call: TIP, pushed */
	PTR_K_RET,		/* near return: TNT bit if compressed, else TIP */
	PTR_K_SYSCALL,		/* into the kernel: TIP.PGD, IP suppressed */
	PTR_K_FAR,		/* any other far transfer: TIP */
};

/* A decoded instruction, as much as the trace and the cycle model need. */
struct ptr_insn {
	uint64_t ip;
	unsigned len;
	enum ptr_kind kind;
	unsigned rep;		/* a REP string instruction (steps per iteration) */
	unsigned cost;		/* cycles, before the model's memory effects */
	unsigned mem;		/* memory operands read */
};

/* stream.c */
struct ptr_stream *ptr_stream_open(const struct ptr_opts *o, unsigned cpu,
				   const char *trace, const char *log);
/* Flush, close and free, adding the bytes written (all of them, the last
 * TNT and the PADs of the close too) to *@bytes (if not NULL); returns 0
 * or -errno of a failed write. */
int ptr_stream_close(struct ptr_stream *s, uint64_t *bytes);
/* Account for @insn before it executes: the trace is on for it (a
 * TIP.PGE with MODE.Exec first if it was off). */
void ptr_stream_insn(struct ptr_stream *s, const struct ptr_insn *insn);
/* @insn executed and went to @next: its packets. */
void ptr_stream_branch(struct ptr_stream *s, const struct ptr_insn *insn,
		       uint64_t next, unsigned iterations);
/* An asynchronous exit to the kernel before the instruction at @ip: FUP
 * and TIP.PGD (the kernel is not traced). */
void ptr_stream_async(struct ptr_stream *s, uint64_t ip);
/* Cycles spent in the kernel or elsewhere off the traced code. */
void ptr_stream_run(struct ptr_stream *s, uint64_t cycles);
/* The CPU was idle (in the untraced kernel) until TSC @tsc. */
void ptr_stream_idle_until(struct ptr_stream *s, uint64_t tsc);
/* The stream's clock (TSC ticks). */
uint64_t ptr_stream_tsc(const struct ptr_stream *s);
/* Bytes written so far. */
uint64_t ptr_stream_bytes(const struct ptr_stream *s);

/* Classify the instruction at @ip from its bytes; returns 0 or -1 if
 * Zydis cannot decode them. */
int ptr_decode(uint64_t ip, const uint8_t *bytes, size_t n,
	       struct ptr_insn *insn);

/* out.c: the output files (see there) */
/* Protect the program traced as @pid from being written over, and remove
 * the files not committed at exit or on a fatal signal. */
void ptr_out_init(pid_t pid);
/* A new output file @path (@made_up: a name derived from -o, never
 * followed through a symbolic link), written to a temporary file until
 * ptr_out_commit().  The stream is owned by out.c: never fclose() it.
 * Returns it, or NULL after printing why (@path refused, no room). */
FILE *ptr_out_open(const char *path, int made_up);
/* Make directory @path for outputs (one that exists is fine; ENOTDIR if
 * what exists is not a directory); a new one is removed with them if they
 * are not committed (and it is empty).  Returns 0, or -1 with errno set. */
int ptr_out_mkdir(const char *path);
/* Rename every output into place.  Returns 0, or -1 after printing what
 * failed. */
int ptr_out_commit(void);
/* Remove every output not committed (a failed recording). */
void ptr_out_abort(void);

/* proc.c */
struct ptr_proc;

struct ptr_proc *ptr_proc_new(const struct ptr_opts *o, pid_t pid);
void ptr_proc_free(struct ptr_proc *p);
/* Read @n bytes of code at @ip (cached by page); returns the number read. */
size_t ptr_proc_code(struct ptr_proc *p, uint64_t ip, uint8_t *buf, size_t n);
/* MMAP2 lines for every executable mapping not yet announced. */
void ptr_proc_announce(struct ptr_proc *p, uint64_t tsc);
/* Make sure the executable mapping holding @ip is dumped (for --raw)
 * and announced in the sideband; @tsc for its record. */
void ptr_proc_exec_at(struct ptr_proc *p, uint64_t ip, uint64_t tsc);
/* The address of `main` in the traced executable, or 0. */
uint64_t ptr_proc_main(struct ptr_proc *p);
/* Sideband lines (times in TSC ticks).  A comm line only when the
 * thread's name differs from @last, which is updated (PTR_COMM_MAX). */
#define PTR_COMM_MAX	32
void ptr_proc_comm(struct ptr_proc *p, pid_t tid, uint64_t tsc, int exec,
		   char *last);
void ptr_proc_fork(struct ptr_proc *p, pid_t tid, pid_t ptid, uint64_t tsc);
void ptr_proc_exit(struct ptr_proc *p, pid_t tid, uint64_t tsc);
void ptr_proc_switch(struct ptr_proc *p, unsigned cpu, uint64_t tsc, int out,
		     pid_t tid, pid_t other, int preempt);
/* Write the options file (--raw lines) and the sideband file; returns 0
 * or -1 with a message printed. */
int ptr_proc_finish(struct ptr_proc *p);

#endif
