/* sideband -- address spaces and per-stream task timelines from perf.data. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfdata.h"
#include "ptdec.h"
#include "sideband.h"
#include "trace.h"

/* PERF_RECORD_* types and misc bits (include/uapi/linux/perf_event.h). */
enum {
	SB_REC_MMAP = 1,
	SB_REC_COMM = 3,
	SB_REC_EXIT = 4,
	SB_REC_FORK = 7,
	SB_REC_MMAP2 = 10,
	SB_REC_ITRACE_START = 12,
	SB_REC_SWITCH = 14,
	SB_REC_SWITCH_CPU_WIDE = 15,
	SB_REC_HEADER_BUILD_ID = 67,
};
#define SB_MISC_CPUMODE_MASK	7u
#define SB_MISC_KERNEL		1u
#define SB_MISC_GUEST_KERNEL	4u
#define SB_MISC_MMAP_DATA	(1u << 13)
#define SB_MISC_COMM_EXEC	(1u << 13)
#define SB_MISC_SWITCH_OUT	(1u << 13)
#define SB_MISC_MMAP_BUILD_ID	(1u << 14)
#define SB_MISC_BUILD_ID_SIZE	(1u << 15)
#define SB_PROT_EXEC		4u

/* What a timeline-relevant record did. */
enum sb_kind {
	SB_K_MMAP,		/* idx: the mapping */
	SB_K_COMM,		/* idx: the comm entry; exec: COMM_EXEC */
	SB_K_FORK,		/* pid2/tid2: parent */
	SB_K_EXIT,
	SB_K_SWITCH_IN,		/* pid/tid: the task coming in */
	SB_K_SWITCH_OUT,	/* pid2/tid2: the next task (CPU-wide) */
	SB_K_ITRACE_START,
};

/* One collected record. */
struct sb_rec {
	uint64_t time, tsc;
	uint64_t order;		/* file order */
	int32_t pid, tid, cpu;
	int32_t pid2, tid2;
	uint32_t idx;
	uint8_t kind;
	uint8_t exec;
	uint8_t have_time;
};

/* A comm over time, sorted by (tid, tsc), a FORK's before a COMM's of
 * the same time (the COMM wins). */
struct sb_comm_ent {
	int32_t tid;
	uint64_t tsc;
	char comm[16];
	uint8_t forked;		/* the parent's, copied at a FORK */
};

/* A fork's child, for sb_inherit_comms(): its entry in the forks' order. */
struct sb_child {
	int32_t tid;
	uint32_t i;
};

/* A point of a timeline: from tsc on (after tsc, for a switch out: the
 * kernel writes it once the task has stopped), pid/tid ran. */
struct sb_point {
	uint64_t tsc;
	int32_t pid, tid;
	uint8_t after;		/* takes effect after tsc */
};

/* One stream's timeline. */
struct sb_line {
	struct sb_point *pt;
	size_t n;
	int cpu, tid;		/* what the stream is (-1: not that kind) */
};

/* A process's address spaces over time. */
struct sb_hist {
	uint64_t tsc;
	uint64_t asid;
};

struct sb_pid {
	int32_t pid;
	struct sb_hist *h;
	size_t n, cap;
	uint8_t same_time;	/* an address space replaced another at the
				 * same time (without time: every change) */
};

/* A HEADER_BUILD_ID entry. */
struct sb_bid {
	int32_t pid;
	uint8_t kernel;
	uint8_t len;
	uint8_t id[SB_BUILD_ID_MAX];
	const char *filename;	/* in the mapping, NUL-terminated within */
};

/* A tid's process. */
struct sb_tidpid {
	int32_t tid, pid;
};

struct sb_cr3 {
	uint64_t cr3, asid;
};

struct sb {
	struct sb_map *maps;
	size_t nmaps, maps_cap;
	struct sb_space *spaces;
	size_t nspaces, spaces_cap;
	struct sb_rec *recs;
	size_t nrecs, recs_cap;
	struct sb_comm_ent *comms;
	size_t ncomms, comms_cap;
	struct sb_pid *pids;	/* sorted by pid */
	size_t npids;
	struct sb_tidpid *tidpid;	/* sorted by tid */
	size_t ntidpid, tidpid_cap;
	struct sb_bid *bids;
	size_t nbids, bids_cap;
	struct sb_line *lines;
	size_t nlines;
	struct sb_event *events;
	size_t nevents;
	uint8_t have_conv;
	uint64_t slack;		/* TSC ticks in a perf-time nanosecond, + 1 */
	struct sb_stats stats;
	const struct trace *t;
	pthread_mutex_t lock;	/* guards cr3 */
	struct sb_cr3 *cr3;
	size_t ncr3, cr3_cap;
};

static uint32_t sb_rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t sb_rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Make room for one more of *@n @elem-byte elements in *@arr. */
static int sb_grow(void *arr, size_t *cap, size_t n, size_t elem)
{
	void **a = arr;
	size_t ncap;
	void *p;

	if (n < *cap)
		return 0;
	ncap = *cap ? 2 * *cap : 32;
	p = realloc(*a, ncap * elem);
	if (!p)
		return -pte_nomem;
	*a = p;
	*cap = ncap;
	return 0;
}

/* A NUL-terminated copy of the string at [@p, @p + @max). */
static char *sb_strndup(const uint8_t *p, size_t max)
{
	return strndup((const char *)p, max);
}

static int sb_add_rec(struct sb *sb, const struct perfdata_record *r,
		      enum sb_kind kind, struct sb_rec **out)
{
	struct sb_rec *x;
	int err = sb_grow(&sb->recs, &sb->recs_cap, sb->nrecs, sizeof(*x));

	if (err)
		return err;
	x = &sb->recs[sb->nrecs];
	memset(x, 0, sizeof(*x));
	x->order = sb->nrecs++;
	x->time = r->time;
	x->have_time = r->have_time;
	x->pid = r->pid;
	x->tid = r->tid;
	x->cpu = r->cpu;
	x->pid2 = x->tid2 = -1;
	x->kind = (uint8_t)kind;
	*out = x;
	return 0;
}

/* Remember that @tid belongs to process @pid. */
static int sb_note_tid(struct sb *sb, int32_t pid, int32_t tid)
{
	int err;

	if (pid < 0 || tid < 0)
		return 0;
	if (sb->ntidpid && sb->tidpid[sb->ntidpid - 1].tid == tid &&
	    sb->tidpid[sb->ntidpid - 1].pid == pid)
		return 0;
	err = sb_grow(&sb->tidpid, &sb->tidpid_cap, sb->ntidpid,
		      sizeof(*sb->tidpid));
	if (err)
		return err;
	sb->tidpid[sb->ntidpid].tid = tid;
	sb->tidpid[sb->ntidpid++].pid = pid;
	return 0;
}

/* MMAP or MMAP2. */
static int sb_mmap(struct sb *sb, const struct perfdata_record *r)
{
	const uint8_t *p = r->data;
	uint32_t cpumode = r->misc & SB_MISC_CPUMODE_MASK;
	size_t fixed = r->type == SB_REC_MMAP ? 40 : 72;
	struct sb_map *m;
	struct sb_rec *x;
	int err;

	if (r->body_end < fixed)
		return 0;
	if (r->type == SB_REC_MMAP ? !!(r->misc & SB_MISC_MMAP_DATA) :
	    !(sb_rd32(p + 64) & SB_PROT_EXEC))
		return 0;
	err = sb_grow(&sb->maps, &sb->maps_cap, sb->nmaps, sizeof(*m));
	if (err)
		return err;
	m = &sb->maps[sb->nmaps];
	memset(m, 0, sizeof(*m));
	m->pid = (int32_t)sb_rd32(p + 8);
	m->tid = (int32_t)sb_rd32(p + 12);
	m->start = sb_rd64(p + 16);
	m->len = sb_rd64(p + 24);
	m->pgoff = sb_rd64(p + 32);
	m->time = r->have_time ? r->time : 0;
	m->file_off = r->file_off;
	m->kernel = cpumode == SB_MISC_KERNEL ||
		    cpumode == SB_MISC_GUEST_KERNEL || m->pid == -1;
	if (r->type == SB_REC_MMAP2 && (r->misc & SB_MISC_MMAP_BUILD_ID)) {
		m->build_id_len = p[40];
		if (m->build_id_len > SB_BUILD_ID_MAX)
			m->build_id_len = SB_BUILD_ID_MAX;
		memcpy(m->build_id, p + 44, m->build_id_len);
	} else if (r->type == SB_REC_MMAP2) {
		m->maj = sb_rd32(p + 40);
		m->min = sb_rd32(p + 44);
		m->ino = sb_rd64(p + 48);
		m->ino_generation = sb_rd64(p + 56);
	}
	m->filename = sb_strndup(p + fixed, r->body_end - fixed);
	if (!m->filename)
		return -pte_nomem;
	err = sb_add_rec(sb, r, SB_K_MMAP, &x);
	if (err) {
		free((char *)m->filename);
		return err;
	}
	x->idx = (uint32_t)sb->nmaps++;
	sb->stats.nmmap++;
	return sb_note_tid(sb, m->pid, m->tid);
}

/* A build_id entry (HEADER_BUILD_ID record or feature section) at @p of
 * @len bytes with misc @misc. */
static int sb_build_id(struct sb *sb, const uint8_t *p, size_t len,
		       uint16_t misc)
{
	struct sb_bid *b;
	uint32_t cpumode = misc & SB_MISC_CPUMODE_MASK;
	int err;

	if (len < 37)
		return 0;
	err = sb_grow(&sb->bids, &sb->bids_cap, sb->nbids, sizeof(*b));
	if (err)
		return err;
	b = &sb->bids[sb->nbids];
	b->pid = (int32_t)sb_rd32(p + 8);
	b->kernel = cpumode == SB_MISC_KERNEL ||
		    cpumode == SB_MISC_GUEST_KERNEL;
	b->len = SB_BUILD_ID_MAX;
	if ((misc & SB_MISC_BUILD_ID_SIZE) && p[32] <= SB_BUILD_ID_MAX)
		b->len = p[32];
	memcpy(b->id, p + 12, b->len);
	/* the name must end inside the entry */
	if (!memchr(p + 36, 0, len - 36))
		return 0;
	b->filename = (const char *)p + 36;
	sb->nbids++;
	sb->stats.nbuild_ids++;
	return 0;
}

static int sb_record(void *ctx, const struct perfdata_record *r)
{
	struct sb *sb = ctx;
	const uint8_t *p = r->data;
	struct sb_comm_ent *c;
	struct sb_rec *x;
	int err;

	switch (r->type) {
	case SB_REC_MMAP:
	case SB_REC_MMAP2:
		return sb_mmap(sb, r);
	case SB_REC_HEADER_BUILD_ID:
		return sb_build_id(sb, p, r->size, r->misc);
	case SB_REC_COMM:
		if (r->body_end < 17)
			return 0;
		err = sb_grow(&sb->comms, &sb->comms_cap, sb->ncomms,
			      sizeof(*c));
		if (!err)
			err = sb_add_rec(sb, r, SB_K_COMM, &x);
		if (err)
			return err;
		c = &sb->comms[sb->ncomms];
		memset(c, 0, sizeof(*c));
		x->pid = (int32_t)sb_rd32(p + 8);
		x->tid = (int32_t)sb_rd32(p + 12);
		x->exec = !!(r->misc & SB_MISC_COMM_EXEC);
		x->idx = (uint32_t)sb->ncomms++;
		c->tid = x->tid;
		memcpy(c->comm, p + 16, strnlen((const char *)p + 16,
			r->body_end - 16 < 15 ? r->body_end - 16 : 15));
		sb->stats.ncomm++;
		return sb_note_tid(sb, x->pid, x->tid);
	case SB_REC_FORK:
	case SB_REC_EXIT:
		if (r->body_end < 32)
			return 0;
		err = sb_add_rec(sb, r, r->type == SB_REC_FORK ? SB_K_FORK :
				 SB_K_EXIT, &x);
		if (err)
			return err;
		x->pid = (int32_t)sb_rd32(p + 8);
		x->pid2 = (int32_t)sb_rd32(p + 12);
		x->tid = (int32_t)sb_rd32(p + 16);
		x->tid2 = (int32_t)sb_rd32(p + 20);
		/* the record's own time, where sample_id has none */
		if (!x->have_time) {
			x->time = sb_rd64(p + 24);
			x->have_time = 1;
		}
		if (r->type == SB_REC_FORK)
			sb->stats.nfork++;
		else
			sb->stats.nexit++;
		return sb_note_tid(sb, x->pid, x->tid);
	case SB_REC_ITRACE_START:
		if (r->body_end < 16)
			return 0;
		err = sb_add_rec(sb, r, SB_K_ITRACE_START, &x);
		if (err)
			return err;
		x->pid = (int32_t)sb_rd32(p + 8);
		x->tid = (int32_t)sb_rd32(p + 12);
		sb->stats.nitrace_start++;
		return sb_note_tid(sb, x->pid, x->tid);
	case SB_REC_SWITCH:
	case SB_REC_SWITCH_CPU_WIDE:
		err = sb_add_rec(sb, r, r->misc & SB_MISC_SWITCH_OUT ?
				 SB_K_SWITCH_OUT : SB_K_SWITCH_IN, &x);
		if (err)
			return err;
		if (r->type == SB_REC_SWITCH_CPU_WIDE && r->body_end >= 16) {
			x->pid2 = (int32_t)sb_rd32(p + 8);
			x->tid2 = (int32_t)sb_rd32(p + 12);
		}
		sb->stats.nswitch++;
		return sb_note_tid(sb, x->pid, x->tid);
	default:
		return 0;
	}
}

/* By TSC (0 without time or conversion), then perf time, then file
 * order: the timeline's searches are by TSC, and a damaged record's time
 * converts (modulo 2^64, as perf's) out of its time's order. */
static int sb_rec_cmp(const void *a, const void *b)
{
	const struct sb_rec *x = a, *y = b;

	if (x->tsc != y->tsc)
		return x->tsc < y->tsc ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int sb_comm_cmp(const void *a, const void *b)
{
	const struct sb_comm_ent *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->tsc != y->tsc)
		return x->tsc < y->tsc ? -1 : 1;
	return (int)y->forked - (int)x->forked;
}

static int sb_child_cmp(const void *a, const void *b)
{
	const struct sb_child *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static int sb_tidpid_cmp(const void *a, const void *b)
{
	const struct sb_tidpid *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* The process entry of @pid, made if @make. */
static struct sb_pid *sb_pid_get(struct sb *sb, int32_t pid, int make)
{
	size_t lo = 0, hi = sb->npids, mid;
	struct sb_pid *p;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (sb->pids[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < sb->npids && sb->pids[lo].pid == pid)
		return &sb->pids[lo];
	if (!make)
		return NULL;
	p = realloc(sb->pids, (sb->npids + 1) * sizeof(*p));
	if (!p)
		return NULL;
	sb->pids = p;
	memmove(p + lo + 1, p + lo, (sb->npids - lo) * sizeof(*p));
	sb->npids++;
	memset(&p[lo], 0, sizeof(p[lo]));
	p[lo].pid = pid;
	return &p[lo];
}

/* The current asid of process @p (SB_ASID_NONE if it has none). */
static uint64_t sb_pid_cur(const struct sb_pid *p)
{
	return p && p->n ? p->h[p->n - 1].asid : SB_ASID_NONE;
}

/* From @tsc on, process @p uses @asid. */
static int sb_pid_set(struct sb_pid *p, uint64_t tsc, uint64_t asid)
{
	int err;

	if (p->n && p->h[p->n - 1].tsc == tsc) {
		p->same_time |= p->h[p->n - 1].asid != asid;
		p->h[p->n - 1].asid = asid;
		return 0;
	}
	err = sb_grow(&p->h, &p->cap, p->n, sizeof(*p->h));
	if (err)
		return err;
	p->h[p->n].tsc = tsc;
	p->h[p->n++].asid = asid;
	return 0;
}

static struct sb_space *sb_space_of(struct sb *sb, uint64_t asid);

/* A new address space @asid of @pid holding the maps of space @from
 * (SB_ASID_NONE: none) recorded at perf time @since or later, except those
 * overlapping [@lo, @hi).  Returns its index or -1. */
static long sb_space_new(struct sb *sb, int32_t pid, uint64_t asid,
			 uint64_t from, uint64_t since, uint64_t lo, uint64_t hi)
{
	const struct sb_space *copy;
	struct sb_space *s;
	uint32_t *maps = NULL;
	size_t i, n = 0;

	if (sb_grow(&sb->spaces, &sb->spaces_cap, sb->nspaces, sizeof(*s)))
		return -1;
	/* after the grow: it may have moved the spaces */
	copy = sb_space_of(sb, from);
	if (copy) {
		maps = malloc((copy->nmaps + 1) * sizeof(*maps));
		if (!maps)
			return -1;
		for (i = 0; i < copy->nmaps; i++) {
			const struct sb_map *m = &sb->maps[copy->maps[i]];

			if ((m->start < hi && lo < m->start + m->len) ||
			    m->time < since)
				continue;
			maps[n++] = copy->maps[i];
		}
	}
	s = &sb->spaces[sb->nspaces];
	s->asid = asid;
	s->pid = pid;
	s->maps = maps;
	s->nmaps = n;
	return (long)sb->nspaces++;
}

/* The space with @asid: the kernel's is first if any; others are numbered
 * in order after it. */
static struct sb_space *sb_space_of(struct sb *sb, uint64_t asid)
{
	size_t i = sb->nspaces && sb->spaces[0].asid == SB_ASID_KERNEL;

	if (asid == SB_ASID_KERNEL)
		return i ? &sb->spaces[0] : NULL;
	if (asid == SB_ASID_NONE || asid - 1 + i >= sb->nspaces)
		return NULL;
	return &sb->spaces[asid - 1 + i];
}

/* Append map @idx to space @s. */
static int sb_space_add(struct sb_space *s, uint32_t idx)
{
	uint32_t *maps;

	/* spaces are grown one at a time: mapping records are few */
	maps = realloc((uint32_t *)s->maps, (s->nmaps + 1) * sizeof(*maps));
	if (!maps)
		return -pte_nomem;
	maps[s->nmaps++] = idx;
	s->maps = maps;
	return 0;
}

/* Replay the sorted records into address spaces. */
static int sb_build_spaces(struct sb *sb)
{
	uint64_t next = 1;
	size_t i, j;
	long k;
	int err, have_kernel = 0;

	for (i = 0; i < sb->nmaps; i++)
		have_kernel |= sb->maps[i].kernel;
	if (have_kernel &&
	    sb_space_new(sb, -1, SB_ASID_KERNEL, SB_ASID_NONE, 0, 0, 0) < 0)
		return -pte_nomem;
	for (i = 0; i < sb->nrecs; i++) {
		const struct sb_rec *x = &sb->recs[i];
		struct sb_pid *p, *parent;
		struct sb_space *cur;
		const struct sb_map *m;
		int overlap = 0;

		switch (x->kind) {
		case SB_K_MMAP:
			m = &sb->maps[x->idx];
			if (m->kernel) {
				err = sb_space_add(&sb->spaces[0], x->idx);
				if (err)
					return err;
				break;
			}
			p = sb_pid_get(sb, m->pid, 1);
			if (!p)
				return -pte_nomem;
			cur = sb_space_of(sb, sb_pid_cur(p));
			for (j = 0; cur && j < cur->nmaps; j++) {
				const struct sb_map *o = &sb->maps[cur->maps[j]];

				overlap |= o->start < m->start + m->len &&
					   m->start < o->start + o->len;
			}
			if (!cur || overlap) {
				k = sb_space_new(sb, m->pid, next++,
						 cur ? cur->asid : SB_ASID_NONE, 0,
						 m->start, m->start + m->len);
				if (k < 0)
					return -pte_nomem;
				cur = &sb->spaces[k];
				err = sb_pid_set(p, x->tsc, cur->asid);
				if (err)
					return err;
			}
			err = sb_space_add(cur, x->idx);
			if (err)
				return err;
			break;
		case SB_K_COMM:
			if (!x->exec || x->pid < 0)
				break;
			/*
			 * The old image goes.  The kernel writes the COMM
			 * before the new image's MMAPs; a writer that puts
			 * them first gives them the exec's own time: those
			 * stay.
			 */
			p = sb_pid_get(sb, x->pid, 1);
			if (!p)
				return -pte_nomem;
			k = sb_space_new(sb, x->pid, next++, sb_pid_cur(p),
					 x->have_time ? x->time : 0, 0, 0);
			if (!p || k < 0)
				return -pte_nomem;
			err = sb_pid_set(p, x->tsc, sb->spaces[k].asid);
			if (err)
				return err;
			break;
		case SB_K_FORK:
			if (x->pid == x->pid2 || x->pid < 0)
				break;	/* a thread: same process */
			parent = sb_pid_get(sb, x->pid2, 0);
			if (!sb_pid_cur(parent))
				break;
			{
				uint64_t asid = sb_pid_cur(parent);

				p = sb_pid_get(sb, x->pid, 1);
				if (!p)
					return -pte_nomem;
				err = sb_pid_set(p, x->tsc, asid);
				if (err)
					return err;
			}
			break;
		default:
			break;
		}
	}
	return 0;
}

/* Fill in build IDs the mapping records lack from HEADER_BUILD_ID. */
static void sb_fill_build_ids(struct sb *sb)
{
	size_t i, j;

	for (i = 0; i < sb->nmaps; i++) {
		struct sb_map *m = &sb->maps[i];
		const struct sb_bid *best = NULL;

		if (m->build_id_len)
			continue;
		for (j = 0; j < sb->nbids; j++) {
			const struct sb_bid *b = &sb->bids[j];

			/* the kernel's map is "[kernel.kallsyms]_text", its
			 * build ID entry "[kernel.kallsyms]" */
			if (strcmp(b->filename, m->filename) &&
			    !(m->kernel && b->kernel &&
			      !strncmp(m->filename, "[kernel.kallsyms]", 17) &&
			      !strcmp(b->filename, "[kernel.kallsyms]")))
				continue;
			if (!best || b->pid == m->pid)
				best = b;
		}
		if (best) {
			m->build_id_len = best->len;
			memcpy(m->build_id, best->id, best->len);
		}
	}
}

/* The timelines: one per stream. */
static int sb_build_lines(struct sb *sb, const struct trace *t)
{
	size_t si, i;

	sb->lines = calloc(t->nstreams ? t->nstreams : 1, sizeof(*sb->lines));
	if (!sb->lines)
		return -pte_nomem;
	sb->nlines = t->nstreams;
	for (si = 0; si < t->nstreams; si++) {
		struct sb_line *l = &sb->lines[si];
		size_t n = 0;

		l->cpu = t->streams[si].cpu;
		l->tid = t->streams[si].tid;
		if (l->cpu < 0)
			continue;
		for (i = 0; i < sb->nrecs; i++)
			n += sb->recs[i].cpu == l->cpu;
		l->pt = calloc(n ? n : 1, sizeof(*l->pt));
		if (!l->pt)
			return -pte_nomem;
		for (i = 0; i < sb->nrecs; i++) {
			const struct sb_rec *x = &sb->recs[i];
			struct sb_point *pt = &l->pt[l->n];

			if (x->cpu != l->cpu || !x->have_time || !x->time)
				continue;
			pt->tsc = x->tsc;
			pt->after = 0;
			switch (x->kind) {
			case SB_K_SWITCH_IN:
			case SB_K_ITRACE_START:
			case SB_K_MMAP:
				pt->pid = x->pid;
				pt->tid = x->tid;
				break;
			case SB_K_SWITCH_OUT:
				/* CPU-wide: the next task; else unknown */
				pt->pid = x->pid2;
				pt->tid = x->tid2;
				pt->after = 1;
				break;
			default:
				continue;
			}
			if (x->kind == SB_K_MMAP && sb->maps[x->idx].kernel)
				continue;
			l->n++;
		}
		/* in time order already: the records are, and perf time to
		 * TSC keeps order */
	}
	return 0;
}

/* Renumber the mappings in the order of the sorted records. */
static int sb_sort_maps(struct sb *sb)
{
	struct sb_map *m = malloc((sb->nmaps ? sb->nmaps : 1) * sizeof(*m));
	size_t i, n = 0;

	if (!m)
		return -pte_nomem;
	for (i = 0; i < sb->nrecs; i++)
		if (sb->recs[i].kind == SB_K_MMAP) {
			m[n] = sb->maps[sb->recs[i].idx];
			sb->recs[i].idx = (uint32_t)n++;
		}
	free(sb->maps);
	sb->maps = m;
	sb->maps_cap = sb->nmaps;
	return 0;
}

/* The process events, from the sorted records. */
static int sb_build_events(struct sb *sb)
{
	struct sb_event *e;
	size_t i;

	sb->events = calloc(sb->nrecs ? sb->nrecs : 1, sizeof(*sb->events));
	if (!sb->events)
		return -pte_nomem;
	for (i = 0; i < sb->nrecs; i++) {
		const struct sb_rec *x = &sb->recs[i];

		e = &sb->events[sb->nevents];
		switch (x->kind) {
		case SB_K_FORK:
			e->kind = SB_EV_FORK;
			e->name = "";
			break;
		case SB_K_EXIT:
			e->kind = SB_EV_EXIT;
			e->name = "";
			break;
		case SB_K_COMM:
			if (!x->exec)
				continue;
			e->kind = SB_EV_EXEC;
			/* the comms are sorted by now: find it again */
			e->name = sb_comm(sb, x->tid, x->tsc);
			break;
		case SB_K_MMAP:
			if (sb->maps[x->idx].kernel)
				continue;
			e->kind = SB_EV_MMAP;
			e->name = sb->maps[x->idx].filename;
			break;
		default:
			continue;
		}
		e->tsc = x->tsc;
		e->have_tsc = sb->have_conv && x->have_time && x->time;
		e->pid = x->pid;
		e->tid = x->tid;
		e->cpu = x->cpu;
		sb->nevents++;
	}
	return 0;
}

/* The last of the @n sorted entries @c of @tid at or before @tsc, or
 * NULL. */
static const struct sb_comm_ent *sb_comm_find(const struct sb_comm_ent *c,
					      size_t n, int32_t tid,
					      uint64_t tsc)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c[mid].tid < tid || (c[mid].tid == tid && c[mid].tsc <= tsc))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && c[lo - 1].tid == tid ? &c[lo - 1] : NULL;
}

/*
 * A FORK's child gets its parent's comm, as perf gives it: the kernel
 * copies the comm on fork and clone but writes no COMM until the child
 * renames itself or execs, so a worker thread would have no name.  The
 * parent's comm at the fork is its last COMM's or, if later, the one it
 * got at its own fork (a chain: a thread of a forked child): the forks
 * are handled in time order, each looking up those before it.  The
 * comms are sorted; they are again after.
 */
static int sb_inherit_comms(struct sb *sb)
{
	size_t i, nf = 0, n0 = sb->ncomms, k;
	struct sb_child *ch;
	int err = 0;

	for (i = 0; i < sb->nrecs; i++)
		nf += sb->recs[i].kind == SB_K_FORK && sb->recs[i].tid >= 0;
	if (!nf)
		return 0;
	ch = malloc(nf * sizeof(*ch));
	if (!ch || n0 + nf < n0)
		goto out_nomem;
	while (!err && sb->comms_cap < n0 + nf)
		err = sb_grow(&sb->comms, &sb->comms_cap, sb->comms_cap,
			      sizeof(*sb->comms));
	if (err)
		goto out_nomem;
	for (i = 0, k = 0; i < sb->nrecs; i++)
		if (sb->recs[i].kind == SB_K_FORK && sb->recs[i].tid >= 0) {
			ch[k].tid = sb->recs[i].tid;
			ch[k].i = (uint32_t)k;
			k++;
		}
	qsort(ch, nf, sizeof(*ch), sb_child_cmp);
	for (i = 0, k = 0; i < sb->nrecs; i++) {
		const struct sb_rec *x = &sb->recs[i];
		struct sb_comm_ent *c = &sb->comms[n0 + k];
		const struct sb_comm_ent *own, *got = NULL;
		struct sb_child key = { x->tid2, (uint32_t)k };
		size_t lo = 0, hi = nf;

		if (x->kind != SB_K_FORK || x->tid < 0)
			continue;
		/* the parent's own fork: its last one before this */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (sb_child_cmp(&ch[mid], &key) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo && ch[lo - 1].tid == x->tid2)
			got = &sb->comms[n0 + ch[lo - 1].i];
		own = sb_comm_find(sb->comms, n0, x->tid2, x->tsc);
		if (!own || (got && got->tsc > own->tsc))
			own = got;
		memset(c, 0, sizeof(*c));
		c->tid = x->tid;
		c->tsc = x->tsc;
		c->forked = 1;
		if (own && x->tid2 >= 0)
			memcpy(c->comm, own->comm, sizeof(c->comm));
		k++;
	}
	free(ch);
	sb->ncomms = n0 + nf;
	qsort(sb->comms, sb->ncomms, sizeof(*sb->comms), sb_comm_cmp);
	return 0;

out_nomem:
	free(ch);
	return -pte_nomem;
}

int sb_load(struct sb **out, const struct trace *t, char *err,
	    size_t errlen)
{
	const uint8_t *bp;
	uint64_t bsize, off, len;
	struct sb *sb;
	size_t i, n;
	int ret;

	if (err && errlen)
		err[0] = 0;
	if (!out || !t)
		return -pte_invalid;
	*out = NULL;
	sb = calloc(1, sizeof(*sb));
	if (!sb)
		return -pte_nomem;
	pthread_mutex_init(&sb->lock, NULL);
	sb->t = t;
	if (!t->perf)
		goto out_ok;
	ret = perfdata_walk(t, sb_record, sb);
	if (ret)
		goto out_free;
	if (!perfdata_build_ids(t, &bp, &bsize))
		for (off = 0; bsize - off >= 8; off += len) {
			len = bp[off + 6] | (uint64_t)bp[off + 7] << 8;
			if (len < 8 || len > bsize - off)
				break;
			ret = sb_build_id(sb, bp + off, len,
					  (uint16_t)(bp[off + 4] |
						     bp[off + 5] << 8));
			if (ret)
				goto out_free;
		}
	sb_fill_build_ids(sb);
	sb->have_conv = t->nstreams && t->streams[0].timing.have_perf_conv;
	if (sb->have_conv && t->streams[0].timing.time_mult &&
	    t->streams[0].timing.time_shift < 32)
		sb->slack = ((1ull << t->streams[0].timing.time_shift) +
			     t->streams[0].timing.time_mult - 1) /
			    t->streams[0].timing.time_mult + 1;
	for (i = 0; i < sb->nrecs; i++) {
		struct sb_rec *x = &sb->recs[i];

		if (!x->have_time)
			sb->stats.nnotime += x->kind != SB_K_MMAP &&
					     x->kind != SB_K_COMM;
		if (sb->have_conv && x->have_time && x->time)
			perfdata_time_to_tsc(&t->streams[0].timing, x->time,
					     &x->tsc);
	}
	if (sb->nrecs)
		qsort(sb->recs, sb->nrecs, sizeof(*sb->recs), sb_rec_cmp);
	ret = sb_sort_maps(sb);
	if (ret)
		goto out_free;
	for (i = 0; i < sb->nrecs; i++)
		if (sb->recs[i].kind == SB_K_COMM)
			sb->comms[sb->recs[i].idx].tsc = sb->recs[i].tsc;
	if (sb->ncomms)
		qsort(sb->comms, sb->ncomms, sizeof(*sb->comms), sb_comm_cmp);
	ret = sb_inherit_comms(sb);
	if (ret)
		goto out_free;
	if (sb->ntidpid)
		qsort(sb->tidpid, sb->ntidpid, sizeof(*sb->tidpid), sb_tidpid_cmp);
	for (i = 0, n = 0; i < sb->ntidpid; i++)
		if (!n || sb->tidpid[n - 1].tid != sb->tidpid[i].tid)
			sb->tidpid[n++] = sb->tidpid[i];
	sb->ntidpid = n;
	ret = sb_build_spaces(sb);
	if (!ret)
		ret = sb_build_lines(sb, t);
	if (!ret)
		ret = sb_build_events(sb);
	if (ret)
		goto out_free;
out_ok:
	*out = sb;
	return 0;

out_free:
	if (ret == -pte_nomem && err && errlen)
		snprintf(err, errlen, "%s: out of memory reading the sideband",
			 t->path ? t->path : "perf.data");
	sb_free(sb);
	return ret;
}

void sb_free(struct sb *sb)
{
	size_t i;

	if (!sb)
		return;
	for (i = 0; i < sb->nmaps; i++)
		free((char *)sb->maps[i].filename);
	for (i = 0; i < sb->nspaces; i++)
		free((uint32_t *)sb->spaces[i].maps);
	for (i = 0; i < sb->npids; i++)
		free(sb->pids[i].h);
	for (i = 0; i < sb->nlines; i++)
		free(sb->lines[i].pt);
	free(sb->lines);
	free(sb->events);
	free(sb->maps);
	free(sb->spaces);
	free(sb->recs);
	free(sb->comms);
	free(sb->pids);
	free(sb->tidpid);
	free(sb->bids);
	free(sb->cr3);
	pthread_mutex_destroy(&sb->lock);
	free(sb);
}

size_t sb_nmaps(const struct sb *sb)
{
	return sb ? sb->nmaps : 0;
}

const struct sb_map *sb_map(const struct sb *sb, size_t i)
{
	return sb && i < sb->nmaps ? &sb->maps[i] : NULL;
}

size_t sb_nspaces(const struct sb *sb)
{
	return sb ? sb->nspaces : 0;
}

const struct sb_space *sb_space(const struct sb *sb, size_t i)
{
	return sb && i < sb->nspaces ? &sb->spaces[i] : NULL;
}

uint64_t sb_pid_asid(const struct sb *sb, int32_t pid, uint64_t tsc)
{
	const struct sb_pid *p;
	size_t lo = 0, hi;

	if (!sb)
		return SB_ASID_NONE;
	p = sb_pid_get((struct sb *)sb, pid, 0);
	if (!p || !p->n)
		return SB_ASID_NONE;
	hi = p->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->h[mid].tsc <= tsc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return p->h[lo ? lo - 1 : 0].asid;
}

/* Whether process @pid had several address spaces in a recording
 * without time conversion: then which one ran when is unknown (every
 * record's TSC is 0, so its history kept only the last). */
static int sb_pid_untimed(const struct sb *sb, int32_t pid)
{
	const struct sb_pid *p = sb_pid_get((struct sb *)sb, pid, 0);

	return !sb->have_conv && p && p->same_time;
}

/* The process of thread @tid, or -1. */
static int32_t sb_tid_pid(const struct sb *sb, int32_t tid)
{
	size_t lo = 0, hi = sb->ntidpid;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sb->tidpid[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < sb->ntidpid && sb->tidpid[lo].tid == tid ?
	       sb->tidpid[lo].pid : -1;
}

const char *sb_comm(const struct sb *sb, int32_t tid, uint64_t tsc)
{
	const struct sb_comm_ent *c;

	if (!sb || tid < 0)
		return "";
	/* before its first COMM or FORK: not known (perf's synthesized ones
	 * are at time 0, before everything) */
	c = sb_comm_find(sb->comms, sb->ncomms, tid, tsc);
	return c ? c->comm : "";
}

void sb_learn_cr3(struct sb *sb, uint64_t cr3, uint64_t asid)
{
	size_t i;

	if (!sb || !cr3 || asid == SB_ASID_NONE)
		return;
	pthread_mutex_lock(&sb->lock);
	for (i = 0; i < sb->ncr3; i++)
		if (sb->cr3[i].cr3 == cr3)
			break;
	if (i == sb->ncr3 &&
	    !sb_grow(&sb->cr3, &sb->cr3_cap, sb->ncr3, sizeof(*sb->cr3)))
		sb->cr3[sb->ncr3++].cr3 = cr3;
	if (i < sb->ncr3)
		sb->cr3[i].asid = asid;
	pthread_mutex_unlock(&sb->lock);
}

uint64_t sb_cr3_asid(const struct sb *sb, uint64_t cr3)
{
	struct sb *w = (struct sb *)sb;
	uint64_t asid = SB_ASID_NONE;
	size_t i;

	if (!sb || !cr3)
		return SB_ASID_NONE;
	pthread_mutex_lock(&w->lock);
	for (i = 0; i < w->ncr3; i++)
		if (w->cr3[i].cr3 == cr3)
			asid = w->cr3[i].asid;
	pthread_mutex_unlock(&w->lock);
	return asid;
}

int sb_task_at(struct sb *sb, int stream, uint64_t tsc, uint64_t cr3,
	       struct sb_task *task)
{
	const struct sb_line *l;
	int ret = 0;

	if (!sb || !task)
		return -pte_invalid;
	task->pid = task->tid = -1;
	task->asid = SB_ASID_NONE;
	task->comm = "";
	l = stream >= 0 && (size_t)stream < sb->nlines ? &sb->lines[stream] :
							  NULL;
	if (l && l->tid >= 0) {
		/* per-thread mode: the stream is one thread; its process's
		 * address space, if that changed, needs time */
		task->tid = l->tid;
		task->pid = sb_tid_pid(sb, l->tid);
		if (!sb->have_conv && sb_pid_untimed(sb, task->pid))
			ret = -pte_no_time;
	} else if (l && l->n && !sb->have_conv) {
		ret = -pte_no_time;
	} else if (l && l->n) {
		size_t lo = 0, hi = l->n;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (l->pt[mid].tsc <= tsc)
				lo = mid + 1;
			else
				hi = mid;
		}
		/* a switch out at tsc itself (within the nanosecond perf
		 * time resolves): the task still ran then */
		while (lo && l->pt[lo - 1].after &&
		       tsc - l->pt[lo - 1].tsc <= sb->slack)
			lo--;
		if (lo) {
			task->pid = l->pt[lo - 1].pid;
			task->tid = l->pt[lo - 1].tid;
		}
	}
	if (task->pid >= 0 && !ret)
		task->asid = sb_pid_asid(sb, task->pid, tsc);
	if (task->asid != SB_ASID_NONE)
		sb_learn_cr3(sb, cr3, task->asid);
	else
		task->asid = sb_cr3_asid(sb, cr3);
	task->comm = sb_comm(sb, task->tid, tsc);
	return ret;
}

size_t sb_changes(const struct sb *sb, int stream, uint64_t t0, uint64_t t1)
{
	const struct sb_line *l;
	size_t lo = 0, hi, n = 0;
	int32_t pid;

	if (!sb || stream < 0 || (size_t)stream >= sb->nlines || t1 <= t0)
		return 0;
	l = &sb->lines[stream];
	if (l->tid >= 0 || !l->n || !sb->have_conv)
		return 0;
	hi = l->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->pt[mid].tsc <= t0)
			lo = mid + 1;
		else
			hi = mid;
	}
	pid = lo ? l->pt[lo - 1].pid : -1;
	for (; lo < l->n && l->pt[lo].tsc <= t1; lo++) {
		/* a switch out at @t1 itself (perf time rounded to the
		 * nanosecond), and what follows it, come after @t1 */
		if (l->pt[lo].after && t1 - l->pt[lo].tsc <= sb->slack)
			break;
		/* a switch out naming no next task (a plain SWITCH, of a
		 * per-task recording) leaves the CPU to one not traced: no
		 * change of its own, the switch in that follows is (perf
		 * ignores those switch outs) */
		if (l->pt[lo].after && l->pt[lo].pid < 0)
			continue;
		if (l->pt[lo].pid != pid)
			n++;
		pid = l->pt[lo].pid;
	}
	return n;
}

size_t sb_nslices(const struct sb *sb, int stream)
{
	if (!sb || stream < 0 || (size_t)stream >= sb->nlines)
		return 0;
	return sb->lines[stream].n;
}

int sb_slice(const struct sb *sb, int stream, size_t i, struct sb_slice *out)
{
	const struct sb_point *p;

	if (!out || i >= sb_nslices(sb, stream))
		return -pte_invalid;
	p = &sb->lines[stream].pt[i];
	out->tsc = p->tsc;
	out->pid = p->pid;
	out->tid = p->tid;
	out->comm = sb_comm(sb, p->tid, p->tsc + (p->after ? 1 : 0));
	return 0;
}

size_t sb_nevents(const struct sb *sb)
{
	return sb ? sb->nevents : 0;
}

const struct sb_event *sb_event(const struct sb *sb, size_t i)
{
	return sb && i < sb->nevents ? &sb->events[i] : NULL;
}

void sb_stats(const struct sb *sb, struct sb_stats *st)
{
	if (!st)
		return;
	size_t i;

	if (!sb) {
		memset(st, 0, sizeof(*st));
		return;
	}
	*st = sb->stats;
	st->nuntimed = 0;
	for (i = 0; i < sb->npids; i++)
		st->nuntimed += !sb->have_conv && sb->pids[i].same_time;
}
