/* walk -- long decodes away from the browser's thread (walk.h). */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "msg.h"
#include "trace.h"
#include "ui.h"
#include "walk.h"

/* The browser's thread walks this long in a turn at most; a walk that
 * needs more goes to a job.  (Most walks are over well before: a chunk
 * takes a millisecond or so.) */
#define WALK_QUIET_MS 100
/* The job's windows: its own cache, the browser's is not shared. */
#define WALK_JOB_CACHE_BYTES (8u << 20)

struct walk_job {
	pthread_t th;
	struct win_cache *wc;
	uint64_t seg, seg_end, want;
	_Atomic uint64_t at;	/* the offset reached */
	_Atomic int cancel, finished;
	int status;		/* win_seek()'s */
};

/* The walks of this turn and the job (one browser per process). */
static struct {
	int stopped;		/* walk_stopped()'s answer */
	uint64_t t0;		/* the turn's first tick (ms), 0: none yet */
	int keyturn;		/* a key came in this turn */
	/* the walk refused in this turn, for a job */
	int deferred;
	uint64_t d_seg, d_end, d_want;
	/* the segment whose job C-c stopped, or failed: not walked again
	 * until a key asks (the idle turns' prefetch and the timeline's
	 * drawing would start it again unasked) */
	int held;
	uint64_t held_seg;
	struct walk_job *job;
	int waiting;		/* a jump waits for the job */
	struct walk_wait wait;
	/* a key's work other than a jump was refused for the job: say when
	 * it is done, for the key to be pressed again */
	int tell;
} wk;

static uint64_t walk_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int walk_tick(void *ctx, uint64_t seg, uint64_t at, uint64_t seg_end, uint64_t want)
{
	uint64_t now = walk_ms();

	(void)ctx;
	(void)at;
	if (wk.stopped)
		return 1;
	if (wk.held && seg == wk.held_seg) {
		wk.stopped = 1;
		return 1;
	}
	if (!wk.job || wk.job->seg != seg || wk.job->want < want) {
		if (!wk.t0)
			wk.t0 = now;
		if (now - wk.t0 < WALK_QUIET_MS)
			return 0;
		wk.deferred = 1;
		wk.d_seg = seg;
		wk.d_end = seg_end;
		wk.d_want = want;
	}
	/* (a job walking there already: waited for) */
	wk.stopped = 2;
	return 1;
}

void walk_watch(struct ui *ui)
{
	struct win_watch w = { walk_tick, ui };

	/* (before the drawing: a walk the key's own work wanted, not the
	 * timeline's or the panes') */
	if (wk.keyturn && wk.stopped == 2 && !wk.waiting && (wk.job || wk.deferred))
		wk.tell = 1;
	if (ui->wc && !ui->headless)
		win_cache_set_watch(ui->wc, &w);
}

int walk_stopped(const struct ui *ui)
{
	(void)ui;
	return wk.stopped;
}

void walk_key(struct ui *ui)
{
	(void)ui;
	wk.held = 0;
	wk.keyturn = 1;
}

static int walk_job_tick(void *ctx, uint64_t seg, uint64_t at, uint64_t seg_end, uint64_t want)
{
	struct walk_job *j = ctx;

	(void)seg;
	(void)seg_end;
	(void)want;
	atomic_store(&j->at, at);
	return atomic_load(&j->cancel);
}

static int walk_job_body(void *arg)
{
	struct walk_job *j = arg;
	struct win_iter it = { 0 };
	int r = win_seek(&it, j->wc, j->want);

	win_iter_release(&it);
	return r;
}

static void *walk_job_thread(void *arg)
{
	struct walk_job *j = arg;

	j->status = trace_guard(walk_job_body, j);
	atomic_store(&j->finished, 1);
	return NULL;
}

/* Hand the walk refused in this turn to a job that starts from the chunks
 * the browser's windows know.  Returns 0 or a negative error code. */
static int walk_job_start(struct ui *ui)
{
	struct win_watch w = { walk_job_tick, NULL };
	struct walk_job *j = calloc(1, sizeof(*j));
	int r;

	if (!j)
		return -pte_nomem;
	j->seg = wk.d_seg;
	j->seg_end = wk.d_end;
	j->want = wk.d_want;
	atomic_store(&j->at, j->seg);
	r = win_cache_new_like(&j->wc, ui->wc, WALK_JOB_CACHE_BYTES);
	if (r < 0)
		goto fail;
	r = win_cache_copy_chunks(j->wc, ui->wc, j->seg);
	if (r < 0)
		goto fail;
	w.ctx = j;
	win_cache_set_watch(j->wc, &w);
	if (pthread_create(&j->th, NULL, walk_job_thread, j)) {
		r = -pte_nomem;
		goto fail;
	}
	wk.job = j;
	return 0;
fail:
	win_cache_free(j->wc);
	free(j);
	return r;
}

/* End the job: wait for its thread, give its chunks to the browser's
 * windows if @keep, free it.  Returns its status. */
static int walk_job_end(struct ui *ui, int keep)
{
	struct walk_job *j = wk.job;
	int status;

	pthread_join(j->th, NULL);
	status = j->status;
	if (keep && status != -pte_sigbus && ui->wc)
		win_cache_copy_chunks(ui->wc, j->wc, j->seg);
	win_cache_free(j->wc);
	free(j);
	wk.job = NULL;
	return status;
}

static void walk_hold(uint64_t seg)
{
	wk.held = 1;
	wk.held_seg = seg;
}

/* Say once that the walk of segment @seg failed with @err; it is not
 * tried again until a key asks, and the jump waiting for it is dropped. */
static void walk_failed(struct ui *ui, uint64_t seg, int err)
{
	wk.waiting = wk.tell = 0;
	walk_hold(seg);
	msg_report(ui, UI_ERROR, "decoding the PSB segment at 0x%" PRIx64 ": %s", seg,
		   pte_strerror(err));
}

void walk_wait_for(struct ui *ui, const struct walk_wait *w)
{
	(void)ui;
	wk.waiting = 1;
	wk.wait = *w;
}

int walk_poll(struct ui *ui, int *busy, struct walk_wait *land)
{
	uint64_t seg;
	int r;

	if (!wk.job)
		return 0;
	if (!win_cache_alike(wk.job->wc, ui->wc)) {
		/* The windows started afresh (the index is done, with the
		 * time model's carries): what the job decodes is not theirs
		 * any more.  Again, from their state. */
		wk.d_seg = wk.job->seg;
		wk.d_end = wk.job->seg_end;
		wk.d_want = wk.job->want;
		atomic_store(&wk.job->cancel, 1);
		walk_job_end(ui, 0);
		if (walk_job_start(ui) < 0) {
			walk_failed(ui, wk.d_seg, -pte_nomem);
			return 1;
		}
	}
	if (!atomic_load(&wk.job->finished)) {
		if (busy)
			*busy = 2;
		return 0;
	}
	seg = wk.job->seg;
	r = walk_job_end(ui, 1);
	/* What was refused in this turn waited for it (the idle prefetch,
	 * say): the jump landing now may walk. */
	wk.stopped = 0;
	wk.t0 = 0;
	if (r == -pte_sigbus) {
		wk.waiting = 0;
		ui->worker_sigbus = 1;	/* the file shrank */
		return 0;
	}
	if (r < 0 && r != -pte_eos)
		walk_failed(ui, seg, r);
	if (r >= 0 || r == -pte_eos) {
		if (wk.tell && !wk.waiting)
			msg_report(ui, UI_INFO, "decoded the PSB segment at 0x%" PRIx64
				   ": ask again", seg);
	}
	wk.tell = 0;
	if (!wk.waiting || !land)
		return 1;
	wk.waiting = 0;
	*land = wk.wait;
	return 2;
}

int walk_done(struct ui *ui)
{
	int key = wk.keyturn;

	wk.stopped = 0;
	wk.t0 = 0;
	wk.keyturn = 0;
	if (!wk.deferred)
		return 0;
	wk.deferred = 0;
	if (wk.job) {
		/* One ended is reaped by walk_poll(), where the jump waiting
		 * for it lands (and what was refused now is asked again).
		 * An idle turn's walk (the prefetch) waits for the job of a
		 * key's; a key's replaces it, keeping what it did. */
		if (atomic_load(&wk.job->finished) || !key)
			return 0;
		atomic_store(&wk.job->cancel, 1);
		walk_job_end(ui, 1);
	}
	if (walk_job_start(ui) < 0) {
		walk_failed(ui, wk.d_seg, -pte_nomem);
		return 0;
	}
	return 1;
}

int walk_stop(struct ui *ui)
{
	uint64_t seg, at, want;
	double pct;

	if (!wk.job)
		return 0;
	seg = wk.job->seg;
	want = wk.job->want;
	atomic_store(&wk.job->cancel, 1);
	at = atomic_load(&wk.job->at);
	walk_job_end(ui, 1);
	walk_hold(seg);
	wk.waiting = wk.tell = 0;
	pct = want > seg ? 100.0 * (double)(at - seg) / (double)(want - seg) : 0;
	msg_report(ui, UI_WARN, "stopped decoding the PSB segment at 0x%" PRIx64 " at %.0f%% (C-c); "
		   "asked again, it goes on from there", seg, pct > 99 ? 99.0 : pct);
	return 1;
}

void walk_free(struct ui *ui)
{
	if (!wk.job)
		return;
	atomic_store(&wk.job->cancel, 1);
	walk_job_end(ui, 0);
	wk.held = 0;
	wk.deferred = 0;
	wk.waiting = wk.tell = 0;
}

size_t walk_status(struct ui *ui, char *buf, size_t size)
{
	struct walk_job *j = wk.job;
	uint64_t at;
	double pct;
	int r;

	(void)ui;
	if (!j || !size || atomic_load(&j->finished))
		return 0;
	at = atomic_load(&j->at);
	pct = j->want > j->seg && at > j->seg ?
		100.0 * (double)(at - j->seg) / (double)(j->want - j->seg) : 0;
	r = snprintf(buf, size, "  decoding the PSB segment at 0x%" PRIx64 " (%.1f MiB) "
		     "from its start: %.0f%% (C-c stops)", j->seg,
		     (double)(j->seg_end - j->seg) / (1 << 20), pct > 99 ? 99.0 : pct);
	return r < 0 ? 0 : (size_t)r >= size ? size - 1 : (size_t)r;
}
