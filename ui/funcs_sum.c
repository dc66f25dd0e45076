/* funcs_sum -- region summaries' top functions (see funcs_sum.h). */
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "calltree.h"
#include "code.h"
#include "ctjob.h"
#include "ctsum.h"
#include "ctx.h"
#include "funcs_idx.h"
#include "funcs_sum.h"
#include "image.h"
#include "index.h"
#include "screen.h"
#include "ui.h"

/* The most lines a box shows. */
#define FS_LINES 40

/* A region's tree (one browser per process): A, and B to compare. */
static struct fs_slot {
	struct ctjob job;
	int on;				/* job was started (release it) */
	const struct img *img;		/* the stream it decodes */
	uint64_t from, to;		/* the range asked for */
	struct ctx_range keep;		/* the job's, if restricted */
	int nopsb;			/* no PSB before its end */
} fs[2];

int funcs_sum_busy(void)
{
	return (fs[0].on && !atomic_load(&fs[0].job.finished)) ||
	       (fs[1].on && !atomic_load(&fs[1].job.finished));
}

void funcs_sum_cancel(void)
{
	int i;

	for (i = 0; i < 2; i++)
		if (fs[i].on)
			ctjob_cancel(&fs[i].job);
}

void funcs_sum_stop(void)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (fs[i].on)
			ctjob_release(&fs[i].job);
		fs[i].on = 0;
	}
}

void funcs_sum_settle(struct ui *ui, const struct ctjob *j)
{
	int i;

	/* a script reads the screen right after the key: it waits for the
	 * tree; the browser waits a little, so that a tree made in
	 * milliseconds (the code index's) shows at once rather than at the
	 * loop's next look (a quarter of a second) */
	for (i = 0; !atomic_load(&j->finished) && (ui->headless || i < 100); i++)
		usleep(ui->headless ? 200 : 500);
}

int funcs_sum_carry(struct ui *ui, uint64_t from, struct tm_carry *c)
{
	struct idx_seek sk;
	size_t k = 0;

	if (!ui->idx || !ui->idx_ops_set)
		return -1;
	if (idx_find(ui->idx, from, &k))
		k = 0;
	if (idx_seek(ui->idx, k, &sk))
		return -1;
	if (sk.offset < from && idx_seek(ui->idx, ++k, &sk))
		return -1;
	return idx_seek_carry(ui->idx, k, c) ? -1 : 0;
}

void funcs_sum_range(struct ui *ui, struct ctjob *j, struct ctx_range *keep,
		     uint64_t from, uint64_t to, int *nopsb)
{
	struct idx_seek sk;
	uint64_t psb = from;
	size_t seg;

	if (ui->idx && !idx_find(ui->idx, from, &seg) && !idx_seek(ui->idx, seg, &sk))
		psb = sk.offset;
	else if (img_find_psb_before(ui->img, from + 1, &psb))
		psb = from;
	*nopsb = ctjob_range(j, ui->img, psb, from, to, keep);
	j->have_carry = !funcs_sum_carry(ui, j->from, &j->carry);
}

/* Make sure slot @s holds or builds the tree of [@from, @to). */
static void fs_want(struct ui *ui, struct fs_slot *s, const struct imgset *set,
		    uint64_t from, uint64_t to)
{
	struct tm_carry c;

	/* (a tree made before the index had the time model's state at its
	 * start is made again once it has: its first cycles are known) */
	if (s->on && s->img == ui->img && s->from == from && s->to == to &&
	    (s->job.have_carry || funcs_sum_carry(ui, s->job.from, &c)))
		return;
	if (s->on)
		ctjob_release(&s->job);
	s->on = 0;
	memset(&s->job, 0, sizeof(s->job));
	s->job.t = ui->trace;
	s->job.stream = ui->stream_no;
	s->job.set = set;
	s->job.tm = &ui->tmcfg;
	s->from = from;
	s->to = to;
	if (to > ui->img->size)
		to = ui->img->size;
	funcs_sum_range(ui, &s->job, &s->keep, from < to ? from : to, to, &s->nopsb);
	s->job.ci = funcs_idx(ui);
	s->img = ui->img;
	if (s->job.from >= s->job.to || ctjob_start(&s->job) < 0) {
		s->job.result = -pte_invalid;
		atomic_store(&s->job.finished, 1);
		s->on = 1;
		return;
	}
	s->on = 1;
	funcs_sum_settle(ui, &s->job);
}

/* Slot @s's state as a line, or NULL when its tree is there. */
static const char *fs_state(const struct fs_slot *s, const char *name, char *buf,
			    size_t size)
{
	uint64_t d = atomic_load(&s->job.done), tot = s->job.to - s->job.from;

	if (!atomic_load(&s->job.finished))
		snprintf(buf, size, "functions of %s: building %.0f%%  (C-c stops)", name,
			 tot ? 100.0 * (double)d / (double)tot : 0.0);
	else if (!s->job.ct)
		snprintf(buf, size, "functions of %s: %s", name, pte_strerror(s->job.result));
	else
		return NULL;
	return buf;
}

/* Why slot @s's tree has no instructions (see ctjob_none()). */
static const char *fs_none(const struct fs_slot *s, char *buf, size_t size)
{
	ctjob_none(s->job.ct, s->nopsb, buf, size);
	if (!*buf)
		snprintf(buf, size, "no instructions in the range");
	return buf;
}

/* The box's lines into @l.  Returns their count. */
static int fs_lines(struct ui *ui, int h, const char *name, const char *name2,
		    char (*l)[CTSUM_LINE])
{
	const struct ct *b = name2 ? fs[1].job.ct : NULL;
	char none[64];
	int n = 0, each;

	if (fs_state(&fs[0], name, l[n], CTSUM_LINE))
		return 1;
	if (name2 && fs_state(&fs[1], name2, l[n], CTSUM_LINE))
		return 1;
	if (name2)
		snprintf(l[n++], CTSUM_LINE, "functions: A %.60s, B %.60s%s", name, name2,
			 fs[0].job.result == -pte_canceled ||
			 fs[1].job.result == -pte_canceled ? "  (stopped: partial)" : "");
	else
		snprintf(l[n++], CTSUM_LINE, "functions of %.80s%s%s%.40s", name,
			 fs[0].job.result == -pte_canceled ? "  (stopped: partial)" : "",
			 ct_node(fs[0].job.ct, CT_ROOT)->insns ? "" : ": ",
			 ct_node(fs[0].job.ct, CT_ROOT)->insns ? "" :
			 fs_none(&fs[0], none, sizeof(none)));
	/* by cycles, then by instructions: each a head and its rows */
	each = (h - 1) / 2 - 1;
	if (each < 1)
		each = 1;
	n += (int)ctsum_lines(fs[0].job.ct, b, CT_BY_CYCLES, (size_t)each, l + n,
			      (size_t)(FS_LINES - n));
	n += (int)ctsum_lines(fs[0].job.ct, b, CT_BY_INSNS, (size_t)each, l + n,
			      (size_t)(FS_LINES - n));
	(void)ui;
	return n;
}

void funcs_sum_box(struct ui *ui, int y, int x, int w, int h, const char *name,
		   uint64_t from, uint64_t to, const char *name2, uint64_t from2,
		   uint64_t to2)
{
	char l[FS_LINES][CTSUM_LINE];
	const struct imgset *set = code_imgset(ui);
	const char *why = code_why(ui);
	int n, i;

	if (h < 1 || w < 10)
		return;
	if (!set || why) {
		snprintf(l[0], CTSUM_LINE, "functions: %s", why ? why :
			 "the images could not be loaded");
		n = 1;
	} else {
		fs_want(ui, &fs[0], set, from, to);
		if (name2)
			fs_want(ui, &fs[1], set, from2, to2);
		n = fs_lines(ui, h > FS_LINES ? FS_LINES : h, name, name2, l);
	}
	for (i = 0; i < h; i++) {
		attrset(i == 0 ? screen_attr(ui, SC_HEADER) | (int)A_BOLD :
			screen_attr(ui, SC_STATUS));
		screen_clear(y + i, x, w);
		if (i < n)
			screen_put(y + i, x + 1, w - 1, l[i]);
	}
	attrset(A_NORMAL);
}
