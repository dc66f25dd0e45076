/* goto_job -- a :goto's long look through a PSB segment, in the
 * background (goto_job.h). */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "goto_idx.h"
#include "goto_job.h"
#include "msg.h"
#include "nav.h"
#include "timefmt.h"
#include "trace.h"
#include "ui.h"

/* Windows the job decodes: its own cache, the UI's is not shared. */
#define GOTO_JOB_CACHE_BYTES (8u << 20)

struct goto_job {
	pthread_t th;
	struct idx *idx;
	struct win_cache *wc;
	enum goto_job_kind kind;
	uint64_t v, from, end;	/* the target, where to start, the segment's end */
	uint64_t cursor;	/* the cursor when it began: a move cancels */
	uint64_t seq;		/* its ui->jump_seq: a later jump cancels */
	char what[64];
	int timed;
	_Atomic int cancel, finished;
	_Atomic uint64_t at;	/* the offset reached */
	int status;		/* 0 found, -pte_eos none, -pte_canceled, ... */
	uint64_t hit;
};

/* The one job of this process (one browser per process). */
static struct goto_job *gj;

int goto_job_hit(enum goto_job_kind kind, const struct win_row *row, uint64_t v)
{
	/* (the commands' rules: export's 't X' is where :goto t X lands) */
	if (kind == GOTO_JOB_TSC)
		return goto_idx_tsc_hit(row, v);
	return goto_idx_cyc_hit(row, v);
}

static int goto_job_body(void *arg)
{
	struct goto_job *j = arg;
	struct win_iter it = { 0 };
	unsigned n = 0;
	int r = win_seek(&it, j->wc, j->from);

	if (r < 0)
		return r;
	r = -pte_eos;
	do {
		const struct win_row *row = win_row(&it);

		if (goto_job_hit(j->kind, row, j->v)) {
			j->hit = row->pkt.offset;
			r = 0;
			break;
		}
		if (!(++n & 4095)) {
			j->at = row->pkt.offset;
			if (j->cancel) {
				r = -pte_canceled;
				break;
			}
		}
	} while (!win_next(&it));
	win_iter_release(&it);
	return r;
}

static void *goto_job_thread(void *arg)
{
	struct goto_job *j = arg;

	j->status = trace_guard(goto_job_body, j);
	j->finished = 1;
	return NULL;
}

int goto_job_start(struct ui *ui, enum goto_job_kind kind, uint64_t v, uint64_t from,
		   const char *what, int timed)
{
	struct goto_job *j;
	struct idx_seek sk;
	size_t i;

	goto_job_free(ui);
	if (!ui->idx)
		return -pte_invalid;
	j = calloc(1, sizeof(*j));
	if (!j)
		return -pte_nomem;
	j->idx = ui->idx;
	j->kind = kind;
	j->v = v;
	j->from = from;
	atomic_store(&j->at, from);
	j->end = ui->img->size;
	if (!idx_find(ui->idx, from, &i) && !idx_seek(ui->idx, i + 1, &sk))
		j->end = sk.offset;
	j->cursor = ui->cursor;
	j->seq = ++ui->jump_seq;
	j->timed = timed;
	snprintf(j->what, sizeof(j->what), "%s", what);
	/* (decoding as the browser's windows do, the chunks walked are
	 * theirs when it lands: the jump needs no second walk) */
	if (win_cache_new_like(&j->wc, ui->wc, GOTO_JOB_CACHE_BYTES) < 0) {
		free(j);
		return -pte_nomem;
	}
	if (pthread_create(&j->th, NULL, goto_job_thread, j)) {
		win_cache_free(j->wc);
		free(j);
		return -pte_nomem;
	}
	gj = j;
	return 0;
}

/* Whether the user went elsewhere since @j began (a key moved the cursor,
 * or a later jump waits to land): then it does not land, and says so
 * (its "looking past ..." would stay on the message line).  Returns 1 or
 * 0. */
static int goto_job_passed(struct ui *ui, const struct goto_job *j)
{
	if (ui->cursor == j->cursor && ui->jump_seq == j->seq)
		return 0;
	msg_report(ui, UI_INFO, "goto %s: not taken: %s", j->what,
		   ui->cursor != j->cursor ? "the cursor moved first" : "a later jump was asked");
	return 1;
}

/* Say what a finished job found, or land on it. */
static int goto_job_report(struct ui *ui, struct goto_job *j)
{
	if (j->status == -pte_sigbus) {
		ui->worker_sigbus = 1;	/* the file shrank */
		return UI_DRAW_NONE;
	}
	if (j->status == -pte_canceled)
		return UI_DRAW_STATUS;
	if (goto_job_passed(ui, j))
		return UI_DRAW_STATUS;
	if (j->status == -pte_eos && j->kind == GOTO_JOB_CYCLES) {
		msg_report(ui, UI_ERROR, "goto: no packet at or after %" PRIu64 " cycles", j->v);
	} else if (j->status == -pte_eos) {
		msg_report(ui, UI_ERROR, "goto: %s: no packet has a TSC at or after 0x%" PRIx64,
			   j->what, j->v);
	} else if (j->status < 0) {
		msg_report(ui, UI_ERROR, "goto: %s: %s", j->what, pte_strerror(j->status));
	} else {
		const char *note = j->timed ? timefmt_estimate_note(ui) : "";

		size_t i;
		struct idx_seek sk;

		ui->msg[0] = 0;
		if (!idx_find(j->idx, j->hit, &i) && !idx_seek(j->idx, i, &sk))
			win_cache_copy_chunks(ui->wc, j->wc, sk.offset);
		nav_jump(ui, j->hit);
		if (note[0])
			msg_report(ui, UI_INFO, "goto: %s", note);
		return UI_DRAW_ALL;
	}
	return UI_DRAW_STATUS;
}

int goto_job_poll(struct ui *ui, int *busy)
{
	int draw;

	if (!gj)
		return UI_DRAW_NONE;
	if (!gj->finished && goto_job_passed(ui, gj)) {
		/* that is where the user is */
		goto_job_free(ui);
		return UI_DRAW_STATUS;
	}
	if (!gj->finished) {
		if (busy)
			*busy = 2;
		return UI_DRAW_STATUS;
	}
	draw = goto_job_report(ui, gj);
	goto_job_free(ui);
	return draw;
}

void goto_job_wait(struct ui *ui)
{
	const struct timespec tick = { 0, 1000000 };

	while (gj && !gj->finished)
		nanosleep(&tick, NULL);
	goto_job_poll(ui, NULL);
}

int goto_job_stop(struct ui *ui)
{
	if (!gj || gj->finished)
		return 0;
	gj->cancel = 1;
	goto_job_wait(ui);
	msg_report(ui, UI_WARN, "goto stopped (C-c)");
	return 1;
}

void goto_job_free(struct ui *ui)
{
	(void)ui;
	if (!gj)
		return;
	gj->cancel = 1;
	pthread_join(gj->th, NULL);
	win_cache_free(gj->wc);
	free(gj);
	gj = NULL;
}

size_t goto_job_status(struct ui *ui, char *buf, size_t size)
{
	uint64_t at, span;
	int r;

	(void)ui;
	if (!gj || gj->finished || !size)
		return 0;
	at = gj->at;
	span = gj->end > gj->from ? gj->end - gj->from : 1;
	at = at > gj->from ? at - gj->from : 0;
	r = snprintf(buf, size, "  goto %s: %.0f%% (C-c stops)", gj->what,
		     at >= span ? 99.0 : 100.0 * (double)at / (double)span);
	return r < 0 ? 0 : (size_t)r >= size ? size - 1 : (size_t)r;
}
