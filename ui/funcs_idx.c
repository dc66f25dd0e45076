/* funcs_idx -- the browser's code index (see funcs_idx.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "code.h"
#include "ctidx.h"
#include "funcs_idx.h"
#include "idxcache.h"
#include "imgopt.h"
#include "index.h"
#include "msg.h"
#include "trace.h"
#include "ui.h"

/* The workers' nice value: the browser's keys come first. */
#define FI_NICE 10

/* The code index (one browser per process). */
static struct {
	struct ctidx *ci;
	const struct img *img;		/* the stream it indexes */
	const struct idx *idx;		/* the packet index it was made from */
	struct trace *trace;		/* whose pages it read */
	int released;			/* they left our page tables */
} fi;

const struct ctidx *funcs_idx(struct ui *ui)
{
	return fi.ci && fi.img == ui->img && fi.idx == ui->idx ? fi.ci : NULL;
}

/*
 * The trace's identity for the code index's key into @f: its content's
 * as the packet index's cache file vouches for it (idxcache_identity()),
 * so that a copy or a touched trace, whose .idx is accepted by its
 * content, finds its code index too (419 s to make at 4 GiB); else its
 * size and mtime.  A packet index just built is being saved (hashing the
 * whole trace) by session.c's thread: the code index starts after that
 * save (session_poll() asks funcs_idx_ready() again at its end; a script
 * waits for it before wait-code-index), else it would be saved under the
 * mtime and made again next time.
 */
static void fi_key_trace(struct ui *ui, FILE *f)
{
	uint64_t sample, content;
	int r = idxcache_identity(ui->trace, ui->stream_no, idx_config(ui->idx),
				  &sample, &content);

	if (!r)
		fprintf(f, "trace content %" PRIu64 " %016" PRIx64 " %016" PRIx64,
			ui->trace->size, sample, content);
	else
		fprintf(f, "trace %" PRIu64 " %" PRId64, ui->trace->size,
			ui->trace->mtime_ns);
	fprintf(f, " stream %d %" PRIu64 "\n", ui->stream_no, ui->img->size);
}

/* The code index's cache file (beside the packet index's) into @path,
 * and what its fragments depend on besides the stream's bytes into *@key
 * (malloc'd, *@keylen bytes): the trace's identity, the timing, the
 * image options and every file the image set read.  Returns 0, or
 * negative if there is no cache (none is kept then). */
static int fi_cache(struct ui *ui, const struct imgset *set, char *path,
		    size_t size, char **key, size_t *keylen)
{
	const struct tm_config *c = &ui->tmcfg;
	const struct imgopt *io = code_imgopt(ui);
	char err[256];
	FILE *f;
	int r;

	if (!io || idxcache_path(ui->trace, ui->stream_no, idx_config(ui->idx), path,
				 size - 8, err, sizeof(err)) < 0)
		return -1;
	strcat(path, ".code");
	f = open_memstream(key, keylen);
	if (!f)
		return -1;
	fi_key_trace(ui, f);
	fprintf(f, "timing mtc %u:%u nom %u:%u cpuid15 %u:%u/%u tsc %u:%" PRIu64
		" perf %u:%u/%u/%" PRIu64 " cpu %u:%u/%u/%u cyc %u:%u crystal %u:%u/%u\n",
		c->have_mtc_freq, c->mtc_freq, c->have_nom_freq, c->nom_freq,
		c->have_cpuid_15, c->cpuid_15_eax, c->cpuid_15_ebx, c->have_tsc_hz,
		c->tsc_hz, c->have_perf_conv, c->time_shift, c->time_mult, c->time_zero,
		c->have_cpu, c->cpu_family, c->cpu_model, c->cpu_stepping,
		c->have_cyc_thresh, c->cyc_thresh, c->have_crystal_hz, c->crystal_hz,
		c->crystal_model);
	r = imgopt_key(io, set, f);
	if (fclose(f) || r < 0) {
		free(*key);
		*key = NULL;
		return -1;
	}
	return 0;
}

/* Start the code index of the stream shown (once per packet index). */
static void fi_start(struct ui *ui)
{
	const struct imgset *set;
	struct ctidx_opts o;
	char path[4096], *key = NULL;
	size_t keylen = 0;

	if (!ui->idx || ui->no_code_index || (fi.idx == ui->idx && fi.img == ui->img))
		return;
	funcs_idx_stop(ui);
	/* tried once per packet index, made or not */
	fi.idx = ui->idx;
	fi.img = ui->img;
	fi.trace = ui->trace;
	fi.released = 0;
	set = code_imgset(ui);
	if (!set || code_why(ui))
		return;
	memset(&o, 0, sizeof(o));
	o.t = ui->trace;
	o.stream = ui->stream_no;
	o.set = set;
	o.tm = &ui->tmcfg;
	o.idx = ui->idx;
	/* a script waits for it: nothing competes with it there */
	o.nice = ui->headless ? 0 : FI_NICE;
	/* made once per trace, timing and code: loaded by the workers */
	if (!fi_cache(ui, set, path, sizeof(path), &key, &keylen)) {
		o.cache = path;
		o.key = key;
		o.keylen = keylen;
	}
	if (ctidx_new(&fi.ci, &o) < 0)
		fi.ci = NULL;
	free(key);
	if (!fi.ci)
		return;
	if (ctidx_start(fi.ci) < 0) {
		ctidx_free(fi.ci);
		fi.ci = NULL;
	}
}

void funcs_idx_ready(struct ui *ui)
{
	/* a script's screens must not change with the build's progress:
	 * it asks for the code index (wait-code-index).  A packet index
	 * just built is being saved, hashing the whole trace, and that
	 * hash is the code index's key (fi_key_trace()): it starts when the
	 * save is done (session_poll() asks again), not by waiting for it
	 * here, on the browser's thread, a second or more on gigabytes. */
	if (!ui->headless && !ui->cache_saving)
		fi_start(ui);
}

void funcs_idx_stop(struct ui *ui)
{
	(void)ui;
	ctidx_free(fi.ci);
	fi.ci = NULL;
	fi.idx = NULL;
	fi.img = NULL;
}

int funcs_idx_busy(void)
{
	struct ctidx_progress p;

	ctidx_progress(fi.ci, &p);
	/* the workers have read the whole trace: its pages leave our page
	 * tables (the page cache keeps them), as after the index */
	if (p.finished && !fi.released) {
		trace_release(fi.trace, fi.trace->map, (size_t)fi.trace->size);
		fi.released = 1;
	}
	return p.started && !p.finished;
}

int funcs_idx_interrupt(struct ui *ui)
{
	if (!funcs_idx_busy())
		return 0;
	ctidx_cancel(fi.ci);
	msg_report(ui, UI_WARN, "code index stopped: the function view decodes "
		   "what it does not cover");
	return 1;
}

void funcs_idx_status(struct ui *ui, char *buf, size_t size)
{
	struct ctidx_progress p;

	buf[0] = 0;
	ctidx_progress(funcs_idx(ui), &p);
	if (p.started && !p.finished && p.total)
		snprintf(buf, size, "code %2.0f%%", 100.0 * (double)p.done / (double)p.total);
}

void funcs_idx_info(struct ui *ui, char *buf, size_t size)
{
	struct ctidx_progress p;
	const char *state;

	buf[0] = 0;
	if (!funcs_idx(ui))
		return;
	ctidx_progress(fi.ci, &p);
	state = p.loading ? "being loaded from cache" : !p.finished ? "being made" : p.loaded ? "loaded from cache" :
		!p.status ? "made" :
		p.status == -pte_canceled ? "stopped" :
		p.status == -pte_nomem ? "stopped at its memory budget" : pte_strerror(p.status);
	snprintf(buf, size, "; code index: %s, %zu of %zu chunks (%.0f%% of the bytes), "
		 "%.1f MiB of %.0f MiB, %.1f s%s%s", state, p.nfrags, p.nchunks,
		 p.total ? 100.0 * (double)p.done / (double)p.total : 0.0,
		 (double)p.bytes / 1048576.0, (double)p.max_bytes / 1048576.0, p.elapsed,
		 p.saved > 0 ? ", saved to cache" : p.saved < 0 ? ", not saved to cache: " : "",
		 p.save_err ? p.save_err : "");
}

/* The CPU seconds the process used so far (all threads). */
static double fi_cpu(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
	       ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) * 1e-6;
}

void funcs_idx_wait(struct ui *ui, int bench)
{
	struct ctidx_progress p;
	double cpu = fi_cpu();

	fi_start(ui);
	if (funcs_idx(ui))
		ctidx_wait(fi.ci);
	cpu = fi_cpu() - cpu;
	funcs_idx_busy();
	ctidx_progress(funcs_idx(ui), &p);
	if (!bench)
		return;
	if (!p.started) {
		printf("browse  code index     none (no code, no complete index, or "
		       "--no-code-index)\n");
		fflush(stdout);
		return;
	}
	printf("browse  code index     %7.3f s (CPU %.1f s), %zu of %zu chunks, %.1f MiB%s\n"
	       "result browse-code-index-s %.3f\nresult browse-code-index-cpu-s %.1f\n"
	       "result browse-code-index-mib %.1f\n",
	       p.elapsed, cpu, p.nfrags, p.nchunks, (double)p.bytes / 1048576.0,
	       p.status ? " (stopped before the end)" : "", p.elapsed, cpu,
	       (double)p.bytes / 1048576.0);
	fflush(stdout);
}
