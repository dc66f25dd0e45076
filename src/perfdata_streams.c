/* perfdata_streams -- the trace's streams from what perfdata.c read: one
 * per CPU (or per thread), their sideband events and their data-loss gaps;
 * what a stream lost at its end, why one is empty, the list of them. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "esc.h"
#include "perfdata_int.h"
#include "trace.h"

/* Build one stream from the sorted AUXTRACE records [@a, @a + @n). */
static int perfdata_make_stream(struct perfdata_state *st, struct trace_stream *s,
			  struct perfdata_stream *ps, const struct perfdata_aux *a,
			  size_t n)
{
	struct img_span *sp;
	uint64_t off = 0, next = 0;
	size_t i, k = 0;
	int lost = 0;

	sp = calloc(n ? n : 1, sizeof(*sp));
	ps->aux_off = calloc(n ? n : 1, sizeof(*ps->aux_off));
	if (!sp || !ps->aux_off) {
		free(sp);
		return -pte_nomem;
	}
	for (i = 0; i < n; i++) {
		if (!a[i].size)
			continue;
		sp[k].data = st->map + a[i].data_off;
		sp[k].off = off;
		sp[k].size = a[i].size;
		sp[k].file_off = a[i].data_off;
		/* a hole or an overlap in the AUX buffer, or a payload
		 * before cut short: never join */
		sp[k].gap_before = k && (st->info.snapshot_mode ||
					 a[i].offset != next || lost);
		ps->aux_off[k] = a[i].offset;
		next = a[i].offset + a[i].size;
		off += a[i].size;
		lost = a[i].lost_after;
		k++;
	}
	if (n)
		ps->last_rec = a[n - 1].rec_off;
	/* (a cut file: perfdata_end_gaps says how much the payload lost) */
	if (n && a[n - 1].lost_after &&
	    !(st->cut && st->cut_off == a[n - 1].rec_off))
		snprintf(ps->end_loss, sizeof(ps->end_loss), "AUXTRACE "
			 "payload at %#" PRIx64 " runs past the end of the "
			 "file or of its record: the file is cut short or the "
			 "size is wrong", a[n - 1].rec_off);
	/* snapshot mode is the recording's (its AUXTRACE_INFO, or an AUX
	 * record's overwrite flag, perfdata_end_gaps()), never a gap's */
	if (st->info.snapshot_mode)
		s->snapshot = 1;
	s->spans = sp;
	s->img.spans = sp;
	s->img.nspans = k;
	s->img.size = off;
	s->cpu = -1;
	s->tid = -1;
	if (st->info.per_cpu_mmaps || (n && a[0].cpu >= 0)) {
		s->cpu = n ? a[0].cpu : -1;
		snprintf(s->name, sizeof(s->name), "cpu%d", s->cpu);
	} else {
		s->tid = n ? a[0].tid : -1;
		snprintf(s->name, sizeof(s->name), "tid%d", s->tid);
	}
	perfdata_timing(st, &s->timing);
	return 0;
}

/* Whether span @i of stream @s holds AUX-buffer position @pos (its end
 * counting), and if so its logical offset in *@off. */
static int perfdata_span_holds(const struct trace_stream *s,
			       const struct perfdata_stream *ps, size_t i,
			       uint64_t pos, uint64_t *off)
{
	if (ps->aux_off[i] >= pos || pos - ps->aux_off[i] > s->spans[i].size)
		return 0;
	*off = s->spans[i].off + (pos - ps->aux_off[i]);
	return 1;
}

/* Snapshot mode: the spans are in file order, their offsets places in a
 * buffer that wraps, so several snapshots hold the same @pos.  perf writes
 * an AUX record, then the AUXTRACE record with its data: the AUX record at
 * @rec_off belongs to the first span after it in the file that holds
 * @pos, else (records written out of that order) to the last one before
 * it.  Taking the first span in the file put every later snapshot's AUX
 * records, and the losses they report, in the earliest snapshot. */
static int perfdata_snap_off(const struct trace_stream *s,
			     const struct perfdata_stream *ps, uint64_t pos,
			     uint64_t rec_off, uint64_t *off)
{
	uint64_t o;
	size_t i;
	int found = 0;

	for (i = 0; i < s->img.nspans; i++) {
		if (!perfdata_span_holds(s, ps, i, pos, &o))
			continue;
		*off = o;
		if (s->spans[i].file_off > rec_off)
			return 0;
		found = 1;
	}
	return found ? 0 : -1;
}

/* The logical offset in stream @s where AUX-buffer position @pos falls,
 * taking the end of a span for a position at its end.  Spans are in
 * AUX-buffer order, so a binary search finds the last one starting below
 * @pos; in snapshot mode (@file_order) they are in file order and
 * perfdata_snap_off() picks the snapshot of the AUX record at @rec_off.
 * Returns 0 and sets *@off, or -1 if no span holds @pos. */
static int perfdata_stream_off(const struct trace_stream *s,
			 const struct perfdata_stream *ps, uint64_t pos,
			 int file_order, uint64_t rec_off, uint64_t *off)
{
	size_t lo = 0, hi = s->img.nspans, mid;

	if (file_order)
		return perfdata_snap_off(s, ps, pos, rec_off, off);
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (ps->aux_off[mid] < pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || pos - ps->aux_off[lo - 1] > s->spans[lo - 1].size)
		return -1;
	*off = s->spans[lo - 1].off + (pos - ps->aux_off[lo - 1]);
	return 0;
}

/* Above this CPU number the CPU-to-stream table is not worth it. */
#define PD_MAX_CPU_MAP 4096

/* The stream event @ev belongs to: its CPU's (or its thread's, in
 * per-thread mode); an event that does not say goes to a lone stream.
 * @cpu_map maps CPU numbers below @ncpu to stream indexes + 1.
 * Returns the stream index or -1. */
static long perfdata_event_stream(const struct trace *t, const struct perfdata_event *ev,
			    const uint32_t *cpu_map, size_t ncpu)
{
	const struct trace_stream *s;
	int32_t key, want;
	size_t i;

	if (t->nstreams == 1) {
		s = &t->streams[0];
		key = s->cpu >= 0 ? ev->cpu : ev->tid;
		want = s->cpu >= 0 ? s->cpu : s->tid;
		return key == want || key < 0 ? 0 : -1;
	}
	if (ev->cpu >= 0 && (size_t)ev->cpu < ncpu)
		return (long)cpu_map[ev->cpu] - 1;
	for (i = 0; i < t->nstreams; i++) {
		s = &t->streams[i];
		if (s->cpu >= 0 ? ev->cpu == s->cpu : ev->tid == s->tid)
			return (long)i;
	}
	return -1;
}

/* Give each stream the events of its CPU (or thread), with TSC times. */
int perfdata_assign_events(struct perfdata_state *st, struct trace *t)
{
	struct perfdata_event *ev;
	uint32_t *cpu_map = NULL;
	size_t si, i, ncpu = 0;
	long k;

	for (si = 0; si < t->nstreams; si++)
		if (t->streams[si].cpu >= 0 &&
		    t->streams[si].cpu < PD_MAX_CPU_MAP &&
		    (size_t)t->streams[si].cpu >= ncpu)
			ncpu = (size_t)t->streams[si].cpu + 1;
	if (ncpu) {
		cpu_map = calloc(ncpu, sizeof(*cpu_map));
		if (!cpu_map)
			return -pte_nomem;
		for (si = 0; si < t->nstreams; si++)
			if (t->streams[si].cpu >= 0 &&
			    (size_t)t->streams[si].cpu < ncpu)
				cpu_map[t->streams[si].cpu] = (uint32_t)si + 1;
	}
	for (i = 0; i < st->nev; i++) {
		ev = &st->ev[i];
		/* perf synthesizes records at time 0: no place in time */
		if (ev->have_time && ev->time && t->nstreams &&
		    !perfdata_time_to_tsc(&t->streams[0].timing, ev->time,
					  &ev->tsc))
			ev->have_tsc = 1;
		k = perfdata_event_stream(t, ev, cpu_map, ncpu);
		/* the stream index rides in stream_off until placed */
		ev->stream_off = (uint64_t)k;
		if (k >= 0)
			st->streams[k].nev++;
	}
	for (si = 0; si < t->nstreams; si++) {
		st->streams[si].ev = calloc(st->streams[si].nev + 1,
					    sizeof(struct perfdata_event));
		if (!st->streams[si].ev) {
			free(cpu_map);
			return -pte_nomem;
		}
		st->streams[si].nev = 0;
	}
	for (i = 0; i < st->nev; i++) {
		struct perfdata_stream *ps;
		struct perfdata_event *e;

		k = (long)st->ev[i].stream_off;
		if (k < 0)
			continue;
		ps = &st->streams[k];
		e = &ps->ev[ps->nev++];
		*e = st->ev[i];
		e->stream_off = 0;
		if (e->kind == PD_EV_AUX &&
		    !perfdata_stream_off(&t->streams[k], ps,
				   e->aux_offset + e->aux_size,
				   st->info.snapshot_mode, e->file_off,
				   &e->stream_off))
			e->have_stream_off = 1;
	}
	free(cpu_map);
	/* every event now lives in its stream's array */
	free(st->ev);
	st->ev = NULL;
	st->nev = st->ev_cap = 0;
	return 0;
}

static int perfdata_u64_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/*
 * An AUX record flagged truncated or partial says the buffer had no room:
 * the trace stopped where that record's data ends and resumed later.  Make
 * that point a span boundary with gap_before, so that nothing is decoded
 * across the loss.
 */
int perfdata_split_losses(struct trace_stream *s, struct perfdata_stream *ps)
{
	struct img_span *sp;
	uint64_t *loss, *aoff, cut;
	size_t i, k, n = 0, l = 0, ns = 0;

	for (i = 0; i < ps->nev; i++)
		n += ps->ev[i].kind == PD_EV_AUX && ps->ev[i].have_stream_off &&
		     (ps->ev[i].flags & (PD_AUX_TRUNCATED | PD_AUX_PARTIAL));
	if (!n)
		return 0;
	loss = malloc(n * sizeof(*loss));
	sp = calloc(s->img.nspans + n, sizeof(*sp));
	aoff = calloc(s->img.nspans + n, sizeof(*aoff));
	if (!loss || !sp || !aoff) {
		free(loss);
		free(sp);
		free(aoff);
		return -pte_nomem;
	}
	for (i = 0, k = 0; i < ps->nev; i++)
		if (ps->ev[i].kind == PD_EV_AUX && ps->ev[i].have_stream_off &&
		    (ps->ev[i].flags & (PD_AUX_TRUNCATED | PD_AUX_PARTIAL)))
			loss[k++] = ps->ev[i].stream_off;
	qsort(loss, n, sizeof(*loss), perfdata_u64_cmp);
	for (i = 0; i < s->img.nspans; i++) {
		struct img_span cur = s->spans[i];
		uint64_t a = ps->aux_off[i];

		while (l < n && loss[l] <= cur.off)
			cur.gap_before |= i > 0 && loss[l++] == cur.off;
		while (l < n && loss[l] < cur.off + cur.size) {
			cut = loss[l++] - cur.off;
			sp[ns] = cur;
			sp[ns].size = cut;
			aoff[ns++] = a;
			cur.data += cut;
			cur.off += cut;
			cur.file_off += cut;
			cur.size -= cut;
			cur.gap_before = 1;
			a += cut;
		}
		sp[ns] = cur;
		aoff[ns++] = a;
	}
	free(loss);
	free(s->spans);
	free(ps->aux_off);
	s->spans = sp;
	s->img.spans = sp;
	s->img.nspans = ns;
	ps->aux_off = aoff;
	return 0;
}

/*
 * A stream whose data may go on past what the file holds (its last payload
 * was cut, or the file is cut short or damaged after it) ends in a gap: an
 * empty last span marked gap_before (decoder/image.h), so that every
 * reader reports the loss at the end as at any other gap.
 */
int perfdata_end_gaps(struct perfdata_state *st, struct trace *t)
{
	struct trace_stream *s;
	struct perfdata_stream *ps;
	struct img_span *sp;
	uint64_t *aoff;
	size_t i, k, n;

	for (i = 0; i < t->nstreams; i++) {
		s = &t->streams[i];
		ps = &st->streams[i];
		for (k = 0; k < ps->nev; k++)
			if (ps->ev[k].kind == PD_EV_AUX &&
			    (ps->ev[k].flags & PD_AUX_OVERWRITE))
				s->snapshot = 1;
		if (!ps->end_loss[0] && st->cut && st->cut_aux &&
		    ps->last_rec != st->cut_off)
			/* another stream's payload was cut by the end */
			snprintf(ps->end_loss, sizeof(ps->end_loss), "the "
				 "perf.data file is cut short (at %#" PRIx64
				 ", in an AUXTRACE payload of another stream): "
				 "data after it may be lost", st->cut_off);
		else if (!ps->end_loss[0] && st->cut)
			snprintf(ps->end_loss, sizeof(ps->end_loss), "%s",
				 st->cut_why);
		/* an AUX record reporting a loss where the data ends (no
		 * span after it for perfdata_split_losses to mark) */
		for (k = 0; k < ps->nev && !ps->end_loss[0]; k++)
			if (ps->ev[k].kind == PD_EV_AUX &&
			    ps->ev[k].have_stream_off &&
			    ps->ev[k].stream_off == s->img.size &&
			    (ps->ev[k].flags & (PD_AUX_TRUNCATED |
						PD_AUX_PARTIAL)))
				snprintf(ps->end_loss, sizeof(ps->end_loss),
					 "the AUX record at %#" PRIx64 " says "
					 "data was lost (%s)", ps->ev[k].file_off,
					 ps->ev[k].flags & PD_AUX_TRUNCATED ?
					 "truncated" : "partial");
		if (!ps->end_loss[0])
			continue;
		n = s->img.nspans;
		sp = realloc(s->spans, (n + 1) * sizeof(*sp));
		if (!sp)
			return -pte_nomem;
		s->spans = sp;
		s->img.spans = sp;
		aoff = realloc(ps->aux_off, (n + 1) * sizeof(*aoff));
		if (!aoff)
			return -pte_nomem;
		ps->aux_off = aoff;
		memset(&sp[n], 0, sizeof(sp[n]));
		sp[n].data = n ? sp[n - 1].data + sp[n - 1].size : st->map;
		sp[n].off = s->img.size;
		sp[n].file_off = n ? sp[n - 1].file_off + sp[n - 1].size : 0;
		sp[n].gap_before = 1;
		aoff[n] = n ? aoff[n - 1] + sp[n - 1].size : 0;
		s->img.nspans = n + 1;
	}
	return 0;
}

/* A stream's name and index, for sorting names. */
struct perfdata_name {
	const char *name;
	size_t i;
};

/* Order by name, then by stream index. */
static int perfdata_name_cmp(const void *a, const void *b)
{
	const struct perfdata_name *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : x->i < y->i ? -1 : x->i > y->i;
}

/*
 * Two buffers on one CPU (unusual) get the same name: every one but the
 * first of a name gets ".INDEX" added.  Sorted, not pairwise: a file of
 * 100,000 buffers took seconds.  Names are "cpuN" or "tidN", so an added
 * suffix cannot make a name that is already taken.
 */
static int perfdata_unique_names(struct trace *t)
{
	struct perfdata_name *ord;
	size_t i, j, l;
	char *name;

	if (t->nstreams < 2)
		return 0;
	ord = malloc(t->nstreams * sizeof(*ord));
	if (!ord)
		return -pte_nomem;
	for (i = 0; i < t->nstreams; i++) {
		ord[i].name = t->streams[i].name;
		ord[i].i = i;
	}
	qsort(ord, t->nstreams, sizeof(*ord), perfdata_name_cmp);
	for (i = 0; i < t->nstreams; i = j)
		for (j = i + 1; j < t->nstreams &&
		     !strcmp(ord[i].name, ord[j].name); j++) {
			name = t->streams[ord[j].i].name;
			l = strlen(name);
			snprintf(name + l, sizeof(t->streams[0].name) - l,
				 ".%zu", ord[j].i);
		}
	free(ord);
	return 0;
}

/* Group the AUXTRACE records into streams. */
int perfdata_streams(struct perfdata_state *st, struct trace *t)
{
	size_t i, j, n = 0;
	int err;

	qsort(st->aux, st->naux, sizeof(*st->aux), st->info.snapshot_mode ?
	      perfdata_aux_file_cmp : perfdata_aux_cmp);
	for (i = 0; i < st->naux; i = j) {
		for (j = i; j < st->naux && st->aux[j].idx == st->aux[i].idx;)
			j++;
		n++;
	}
	t->streams = calloc(n ? n : 1, sizeof(*t->streams));
	st->streams = calloc(n ? n : 1, sizeof(*st->streams));
	if (!t->streams || !st->streams)
		return -pte_nomem;
	for (i = 0; i < st->naux; i = j) {
		for (j = i; j < st->naux && st->aux[j].idx == st->aux[i].idx;)
			j++;
		err = perfdata_make_stream(st, &t->streams[t->nstreams],
				     &st->streams[t->nstreams], &st->aux[i],
				     j - i);
		t->nstreams++;
		st->nstreams = t->nstreams;
		if (err)
			return err;
	}
	return perfdata_unique_names(t);
}

const char *perfdata_end_loss(const struct trace *t, int stream)
{
	const struct perfdata_state *st = t ? t->perf : NULL;

	if (!st || stream < 0 || (size_t)stream >= st->nstreams ||
	    !st->streams[stream].end_loss[0])
		return NULL;
	return st->streams[stream].end_loss;
}

int perfdata_empty_why(const struct trace *t, int stream, char *buf,
		       size_t size)
{
	const char *loss = perfdata_end_loss(t, stream);
	const struct perfdata_state *st;

	if (!t || stream < 0 || (size_t)stream >= t->nstreams ||
	    t->streams[stream].img.size)
		return 0;
	st = t->perf;
	if (loss || !st || (size_t)stream >= st->nstreams)
		snprintf(buf, size, "%s: stream %s holds no trace data: %s",
			 t->path, t->streams[stream].name, loss ? loss :
			 "the file is empty");
	else
		snprintf(buf, size, "%s: stream %s holds no trace data: its "
			 "AUXTRACE records (the last at %#" PRIx64 ") carry "
			 "none", t->path, t->streams[stream].name,
			 st->streams[stream].last_rec);
	return 1;
}

const char *perfdata_stream_list(const struct trace *t, char *buf,
				 size_t size)
{
	size_t i, at = 0, n = t ? t->nstreams : 0;
	char more[40];

	if (!size)
		return buf;
	buf[0] = 0;
	for (i = 0; i < n; i++) {
		size_t len = strlen(t->streams[i].name) + (i ? 2 : 0);

		snprintf(more, sizeof(more), ", ... %zu more", n - i);
		/* room for this one and, unless last, the count after it */
		if (at + len + (i + 1 < n ? strlen(more) : 0) >= size) {
			if (at + strlen(more) < size)
				snprintf(buf + at, size - at, "%s", more);
			break;
		}
		at += (size_t)snprintf(buf + at, size - at, "%s%s", i ? ", " : "",
				       t->streams[i].name);
	}
	return buf;
}

int perfdata_stream_named(const struct trace *t, const char *spec, const char *prog,
			  const char *path)
{
	int i = trace_find_stream(t, spec);
	char have[512];

	if (i < 0)
		esc_line(stderr, prog, "%s: no stream '%s' (it has %s)", path, spec,
			 perfdata_stream_list(t, have, sizeof(have)));
	return i;
}
