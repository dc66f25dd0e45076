/* export_job -- :export's copy in the background (export_job.h). */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "esc.h"
#include "export.h"
#include "export_job.h"
#include "msg.h"
#include "safefile.h"
#include "ui.h"

struct export_job {
	pthread_t th;
	const struct trace *t;
	const struct img *img;
	uint64_t from, to;
	char path[4096];
	struct safefile_keep keep[EXPORT_NKEEP];
	size_t nkeep;
	unsigned pace_ms;		/* a pause after each chunk (tests) */
	_Atomic int cancel, finished;
	_Atomic uint64_t done, total;	/* bytes of the slice written, of */
	int r;				/* export_slice_progress()'s */
	struct export_result res;
	char err[512];
};

/* The one job of this process (one browser per process). */
static struct export_job *ej;

/* export_progress: how far, and whether C-c asked to stop. */
static int export_job_tell(void *ctx, uint64_t done, uint64_t total)
{
	struct export_job *j = ctx;

	atomic_store(&j->total, total);
	atomic_store(&j->done, done);
	if (j->pace_ms && done < total) {
		struct timespec ts = { j->pace_ms / 1000, (long)(j->pace_ms % 1000) * 1000000 };

		nanosleep(&ts, NULL);
	}
	return atomic_load(&j->cancel);
}

static void *export_job_thread(void *arg)
{
	struct export_job *j = arg;
	struct export_progress prog = { export_job_tell, j };

	j->r = export_slice_progress(j->t, j->img, j->from, j->to, j->path, 0,
				     j->keep, j->nkeep, &prog, &j->res, j->err,
				     sizeof(j->err));
	atomic_store(&j->finished, 1);
	return NULL;
}

/* Join job @j (taken from ej) and put what it did into @buf: returns
 * the message's level (UI_INFO, UI_WARN, UI_ERROR).  @ended: the
 * browser is ending (a stop is the end's). */
static int export_job_join(struct export_job *j, int ended, char *buf, size_t size)
{
	pthread_join(j->th, NULL);
	if (ej == j)
		ej = NULL;
	if (j->r == -pte_canceled) {
		snprintf(buf, size, "export stopped%s: nothing written to %s",
			 ended ? " as the browser ended" : "", j->path);
		return UI_WARN;
	}
	if (j->r < 0) {
		snprintf(buf, size, "export: %s", j->err);
		return UI_ERROR;
	}
	snprintf(buf, size, "wrote %s: 0x%" PRIx64 "-0x%" PRIx64 " (%" PRIu64 " bytes)%s",
		 j->path, j->res.start, j->res.end, j->res.end - j->res.start,
		 j->res.gaps ? ", lost data joined" : "");
	return j->res.gaps ? UI_WARN : UI_INFO;
}

/* Join the job and say what it did; free it. */
static void export_job_end(struct ui *ui)
{
	struct export_job *j = ej;
	char m[sizeof(j->path) + sizeof(j->err) + 96];
	int level = export_job_join(j, 0, m, sizeof(m));

	if (j->r == -pte_sigbus)
		ui->worker_sigbus = 1;	/* the file shrank: the loop recovers */
	msg_report(ui, level, "%s", m);
	free(j);
}

int export_job_start(struct ui *ui, uint64_t from, uint64_t to, const char *path,
		     const struct safefile_keep *keep, size_t nkeep)
{
	struct export_job *j;

	if (ej && atomic_load(&ej->finished))
		export_job_end(ui);	/* (done, not yet said) */
	if (ej) {
		msg_report(ui, UI_ERROR, "export: one is running (C-c stops it)");
		return UI_DRAW_STATUS;
	}
	j = calloc(1, sizeof(*j));
	if (!j || strlen(path) >= sizeof(j->path) || nkeep > EXPORT_NKEEP) {
		free(j);
		msg_report(ui, UI_ERROR, "export: %s", j ? "file name too long" :
			   "out of memory");
		return UI_DRAW_STATUS;
	}
	j->t = ui->trace;
	j->img = ui->img;
	j->from = from;
	j->to = to;
	memcpy(j->path, path, strlen(path) + 1);
	memcpy(j->keep, keep, nkeep * sizeof(*keep));
	j->nkeep = nkeep;
	/* PTBROWSE_EXPORT_PACE_MS (tests): a slice copies faster than a
	 * test's keys come, on a fast disk. */
	if (getenv("PTBROWSE_EXPORT_PACE_MS"))
		j->pace_ms = (unsigned)strtoul(getenv("PTBROWSE_EXPORT_PACE_MS"), NULL, 10);
	if (pthread_create(&j->th, NULL, export_job_thread, j)) {
		free(j);
		msg_report(ui, UI_ERROR, "export: cannot start a thread");
		return UI_DRAW_STATUS;
	}
	ej = j;
	/* A script's next line reads what it did. */
	if (ui->headless)
		export_job_wait(ui);
	return UI_DRAW_STATUS;
}

int export_job_poll(struct ui *ui, int *busy)
{
	if (!ej)
		return UI_DRAW_NONE;
	if (!atomic_load(&ej->finished)) {
		if (busy)
			*busy = 2;
		return UI_DRAW_STATUS;
	}
	export_job_end(ui);
	return UI_DRAW_STATUS;
}

void export_job_wait(struct ui *ui)
{
	if (ej)
		export_job_end(ui);	/* (the join waits) */
}

int export_job_stop(struct ui *ui)
{
	if (!ej || atomic_load(&ej->finished))
		return 0;
	atomic_store(&ej->cancel, 1);
	export_job_end(ui);
	return 1;
}

void export_job_free(struct ui *ui)
{
	if (!ej)
		return;
	atomic_store(&ej->cancel, 1);
	export_job_end(ui);
}

size_t export_job_status(struct ui *ui, char *buf, size_t size)
{
	uint64_t done, total;
	int r;

	(void)ui;
	if (!ej || atomic_load(&ej->finished) || !size)
		return 0;
	done = atomic_load(&ej->done);
	total = atomic_load(&ej->total);
	r = snprintf(buf, size, "  export %.0f%% (C-c stops)",
		     !total ? 0.0 : done >= total ? 99.0 :
		     100.0 * (double)done / (double)total);
	return r < 0 ? 0 : (size_t)r >= size ? size - 1 : (size_t)r;
}

int export_job_quit(FILE *out, const char *prog)
{
	struct export_job *j = ej;
	char m[sizeof(j->path) + sizeof(j->err) + 96];
	int r;

	if (!j)
		return 0;
	atomic_store(&j->cancel, 1);
	/* (a copy done before the end was never said on the screen) */
	(void)export_job_join(j, 1, m, sizeof(m));
	esc_line(out, prog, "%s", m);
	r = j->r;
	free(j);
	return r < 0 ? -1 : 0;
}
