/* search_sb -- searches with sideband terms (see search_sb.h). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctx.h"
#include "ctxterm.h"
#include "msg.h"
#include "code.h"
#include "search.h"
#include "search_code.h"
#include "search_sb.h"
#include "sideband.h"
#include "trace.h"
#include "ui.h"

#define SB_CHUNK (1u << 20)	/* bytes of ranges per step (progress) */

struct search_sb {
	pthread_t th;
	const struct trace *t;
	int stream;
	const struct img *img;
	struct ctxterm terms;
	struct srch_pred *pred;
	struct search_code *code;	/* the code terms, or NULL */
	struct search_code_job cj;	/* their search */
	_Atomic int code_phase;		/* cj runs: progress is its */
	const struct imgset *set;
	struct idx *idx;
	struct tm_config tm;
	uint64_t from;
	int dir;
	_Atomic int cancel;
	_Atomic int finished;
	_Atomic uint64_t done;
	uint64_t total;
	int status;
	uint64_t *hits;		/* sorted; valid once finished */
	size_t nhits, cap;
	struct ctx_range *ranges;	/* the terms' ranges, once finished */
	size_t nranges;
};

static int search_sb_add(struct search_sb *s, uint64_t off)
{
	if (s->nhits && s->hits[s->nhits - 1] >= off)
		return 0;	/* in order, once */
	if (s->nhits == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 1024;
		uint64_t *p = realloc(s->hits, cap * sizeof(*p));

		if (!p)
			return -pte_nomem;
		s->hits = p;
		s->cap = cap;
	}
	s->hits[s->nhits++] = off;
	return 0;
}

/* The ranges the comm/pid/tid terms keep (all of the stream without
 * any), a chunk at a time, merged. */
static int search_sb_ranges(struct search_sb *s, struct ctx *c,
			    struct ctx_range **out, size_t *n)
{
	struct ctx_range *all = NULL, *r, *p;
	size_t na = 0, nr, i;
	uint64_t from;
	int ret = 0;

	*out = NULL;
	*n = 0;
	if (!s->terms.has_filter) {
		all = malloc(sizeof(*all));
		if (!all)
			return -pte_nomem;
		all->from = 0;
		all->to = s->img->size;
		*out = all;
		*n = 1;
		return 0;
	}
	for (from = 0; from < s->img->size && !ret; from += SB_CHUNK) {
		uint64_t to = from + SB_CHUNK < s->img->size ? from + SB_CHUNK : s->img->size;

		if (s->cancel)
			ret = -pte_canceled;
		else
			ret = ctx_ranges_in(c, &s->terms.f, s->stream, from, to, &r, &nr);
		if (ret)
			break;
		p = nr ? realloc(all, (na + nr) * sizeof(*all)) : all;
		if (nr && !p) {
			free(r);
			ret = -pte_nomem;
			break;
		}
		all = p;
		for (i = 0; i < nr; i++) {
			if (na && all[na - 1].to == r[i].from)
				all[na - 1].to = r[i].to;	/* a chunk's seam */
			else
				all[na++] = r[i];
		}
		free(r);
		s->done = s->terms.sw || s->pred || s->code ? to / 2 : to;
	}
	if (ret) {
		free(all);
		return ret;
	}
	*out = all;
	*n = na;
	return 0;
}

/* The switches: packets where the thread ctx_at() names differs from the
 * last one it named, inside @r. */
static int search_sb_switches(struct search_sb *s, struct ctx *c,
			      const struct ctx_range *r, size_t nr)
{
	struct img_cursor cur;
	struct pkt pkt;
	struct ctx_task task;
	int32_t last = -1;
	uint64_t k = 0;
	int ret = 0, e;

	if (img_cursor_init(&cur, s->img, 0) < 0 || img_cursor_sync_forward(&cur, 0) < 0)
		return 0;
	while (!ret) {
		e = img_cursor_next(&cur, &pkt);
		if (e == -pte_eos)
			break;
		if (e < 0) {
			cur.gap = 0;
			if (e != -pte_gap &&
			    img_cursor_sync_forward(&cur, img_cursor_offset(&cur) + 1) < 0)
				break;
			continue;
		}
		if (!(++k & 4095)) {
			if (s->cancel)
				return -pte_canceled;
			s->done = s->img->size / 2 + pkt.offset / 2;
		}
		if (ctx_at(c, s->stream, pkt.offset, &task) < 0 || task.tid < 0)
			continue;
		if (last >= 0 && task.tid != last && ctx_ranges_has(r, nr, pkt.offset))
			ret = search_sb_add(s, pkt.offset);
		last = task.tid;
	}
	return ret;
}

/* The packets matching the predicate inside @r. */
static int search_sb_packets(struct search_sb *s, const struct ctx_range *r, size_t nr)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < nr && !ret; i++) {
		uint64_t off = r[i].from, resume;
		struct pkt hit;

		while (off < r[i].to) {
			if (s->cancel)
				return -pte_canceled;
			/* the index: a gap's time model from the time pass
			 * (idx_seek_carry()), as the packet search has it */
			ret = srch_filter_next(s->pred, s->img, s->idx, off, 0, &hit, &resume);
			if (ret == 1) {
				off = resume;
				ret = 0;
				continue;
			}
			if (ret < 0 || hit.offset >= r[i].to) {
				ret = ret == -pte_eos ? 0 : ret;
				break;
			}
			ret = search_sb_add(s, hit.offset);
			if (ret)
				break;
			off = hit.offset + (hit.size ? hit.size : 1);
		}
		s->done = s->img->size / 2 + r[i].to / 2;
	}
	return ret;
}

/* The code terms' hits inside @r (all of the stream if the terms have no
 * task), matching the packet predicate. */
static int search_sb_code(struct search_sb *s, const struct ctx_range *r, size_t nr)
{
	struct search_code_job *j = &s->cj;
	size_t i;
	int ret;

	j->sc = s->code;
	j->set = s->set;
	j->stream = s->stream;
	j->img = s->img;
	j->tm = &s->tm;
	j->idx = s->idx;
	j->keep = s->terms.has_filter ? r : NULL;
	j->nkeep = nr;
	j->pred = s->pred;
	j->from = s->from;
	j->dir = s->dir;
	j->cancel = &s->cancel;
	s->code_phase = 1;
	if (s->terms.has_filter && !nr)
		return 0;	/* the task never ran here */
	ret = search_code_find(j);
	/* stopped (C-c): the hits of the part done, a region round the
	 * cursor */
	if ((!ret || ret == -pte_canceled) && j->hits && !s->nhits) {
		/* sorted and unique already: taken, not copied (a code
		 * search may keep many) */
		free(s->hits);
		s->hits = j->hits;
		s->nhits = s->cap = j->nhits;
		j->hits = NULL;
	}
	for (i = 0; (!ret || ret == -pte_canceled) && j->hits && i < j->nhits; i++)
		if (search_sb_add(s, j->hits[i]) < 0)
			ret = -pte_nomem;
	free(j->hits);
	j->hits = NULL;
	return ret;
}

static int search_sb_body(void *arg)
{
	struct search_sb *s = arg;
	struct ctx_range *r = NULL;
	struct sb *sb = NULL;
	struct ctx *c = NULL;
	size_t nr = 0, i;
	char err[256];
	int ret = 0;

	/* code terms alone need no sideband (a raw trace with --raw) */
	if (s->terms.has_filter || s->terms.sw) {
		ret = sb_load(&sb, s->t, err, sizeof(err));
		if (!ret)
			ret = ctx_new(&c, s->t, sb);
	}
	if (!ret)
		ret = search_sb_ranges(s, c, &r, &nr);
	if (!ret && s->terms.sw)
		ret = search_sb_switches(s, c, r, nr);
	else if (!ret && s->code)
		ret = search_sb_code(s, r, nr);
	else if (!ret && s->pred)
		ret = search_sb_packets(s, r, nr);
	else
		for (i = 0; !ret && i < nr; i++)
			ret = search_sb_add(s, r[i].from);
	s->ranges = r;	/* the filter view's rows */
	s->nranges = nr;
	ctx_free(c);
	sb_free(sb);
	return ret;
}

static void *search_sb_thread(void *arg)
{
	struct search_sb *s = arg;

	s->status = trace_guard(search_sb_body, s);
	s->done = s->total;
	s->finished = 1;
	return NULL;
}

int search_sb_start(struct search_sb **out, struct ui *ui, const struct ctxterm *t,
		    struct search_code *code, struct srch_pred *pred, int dir)
{
	struct search_sb *s;

	*out = NULL;
	if (ui->trace->kind == TRACE_RAW && (t->has_filter || t->sw)) {
		msg_report(ui, UI_ERROR, "search: comm, pid, tid and switch need a "
			   "perf.data file's sideband (this is a raw trace)");
		srch_pred_free(pred);
		search_code_free(code);
		return -pte_invalid;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		srch_pred_free(pred);
		search_code_free(code);
		return -pte_nomem;
	}
	s->code = code;
	s->set = code ? code_imgset(ui) : NULL;
	s->idx = ui->idx;
	s->tm = ui->tmcfg;
	s->from = ui->cursor;
	s->dir = dir > 0 ? 1 : -1;
	s->t = ui->trace;
	s->stream = ui->stream_no;
	s->img = ui->img;
	s->terms = *t;
	if (s->terms.f.comm)
		s->terms.f.comm = s->terms.name;
	s->pred = pred;
	s->total = ui->img->size ? ui->img->size : 1;
	if (pthread_create(&s->th, NULL, search_sb_thread, s)) {
		srch_pred_free(pred);
		search_code_free(code);
		free(s);
		return -pte_nomem;
	}
	*out = s;
	return 0;
}

int search_sb_cancel(struct search_sb *s)
{
	if (!s || s->finished)
		return 0;
	s->cancel = 1;
	search_sb_wait(s);
	return 1;
}

void search_sb_wait(struct search_sb *s)
{
	while (s && !s->finished) {
		struct timespec ts = { 0, 1000000 };

		nanosleep(&ts, NULL);
	}
}

void search_sb_wait_first(struct search_sb *s)
{
	uint64_t hit;
	int wrapped;

	while (s && !s->finished && search_sb_first(s, &hit, &wrapped)) {
		struct timespec ts = { 0, 1000000 };

		nanosleep(&ts, NULL);
	}
}

void search_sb_free(struct search_sb *s)
{
	if (!s)
		return;
	s->cancel = 1;
	pthread_join(s->th, NULL);
	srch_pred_free(s->pred);
	search_code_free(s->code);
	free(s->hits);
	free(s->ranges);
	free(s);
}


int search_sb_first(struct search_sb *s, uint64_t *hit, int *wrapped)
{
	if (!s || !s->code || !atomic_load(&s->cj.have_first))
		return 1;
	*hit = atomic_load(&s->cj.first);
	*wrapped = atomic_load(&s->cj.first_wrapped);
	return 0;
}

void search_sb_progress(struct search_sb *s, uint64_t *done, uint64_t *total,
			size_t *nhits, int *finished, int *status)
{
	*finished = s->finished;
	*done = s->done;
	*total = s->total;
	if (!*finished && s->code_phase) {
		/* the ranges took the first half, if there were any */
		uint64_t cd = atomic_load(&s->cj.done), ct = atomic_load(&s->cj.total);
		double f = ct ? (double)cd / (double)ct : 0;

		*done = s->terms.has_filter ? s->total / 2 + (uint64_t)(f * (double)(s->total / 2)) :
			(uint64_t)(f * (double)s->total);
	}
	*nhits = *finished ? s->nhits : 0;
	*status = *finished ? s->status : 0;
}

/* The first hit index at or after @off. */
static size_t search_sb_lower(const struct search_sb *s, uint64_t off)
{
	size_t a = 0, b = s->nhits;

	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (s->hits[m] < off)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

int search_sb_next(struct search_sb *s, uint64_t off, int dir, uint64_t count,
		   uint64_t *hit, int *wrapped)
{
	size_t i, n;

	if (!s->finished) {
		/* a code search knows the hits of the part it has done */
		if (!s->code || !s->code_phase)
			return 1;
		count = count ? count : 1;
		for (; count; count--, off = *hit)
			if (search_code_known(&s->cj, off, dir, hit))
				return 1;
		*wrapped = 0;
		return 0;
	}
	n = s->nhits;
	if (!n)
		return -pte_eos;
	*wrapped = 0;
	count = (count ? count - 1 : 0) % n;
	if (dir > 0) {
		i = search_sb_lower(s, off + 1);
		i += (size_t)count;
		if (i >= n) {
			i -= n;
			*wrapped = 1;
		}
	} else {
		i = search_sb_lower(s, off);	/* the first not before @off */
		if (i < (size_t)count + 1) {
			i = i + n - (size_t)count - 1;
			*wrapped = 1;
		} else {
			i -= (size_t)count + 1;
		}
	}
	*hit = s->hits[i];
	return 0;
}

size_t search_sb_rank(struct search_sb *s, uint64_t off)
{
	size_t i;

	if (!s->finished)
		return 0;
	i = search_sb_lower(s, off);
	return i < s->nhits && s->hits[i] == off ? i + 1 : 0;
}

int search_sb_row(struct search_sb *s, uint64_t off, int dir, uint64_t *hit)
{
	size_t i;

	if (!s->finished)
		return 1;
	i = search_sb_lower(s, off);
	if (dir > 0 && i < s->nhits) {
		*hit = s->hits[i];
		return 0;
	}
	if (dir < 0 && i > 0) {
		*hit = s->hits[i - 1];
		return 0;
	}
	return -pte_eos;
}

int search_sb_ranges_kept(struct search_sb *s, const struct ctx_range **r, size_t *n)
{
	if (!s->finished)
		return 1;
	*r = s->ranges;
	*n = s->nranges;
	return 0;
}
