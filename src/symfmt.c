/* symfmt -- IPs as names and source lines, cached (see symfmt.h). */
#include "symfmt.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "imgopt.h"
#include "memimg.h"
#include "ptdec.h"

/* Direct-mapped caches: a function answers every IP inside it, so its
 * slot is picked by the IP's 64-byte line (a function's IPs share a few);
 * source lines are per IP. */
#define SF_FN_SLOTS	4096
#define SF_LINE_SLOTS	1024

struct sf_fn_slot {
	uint64_t asid, ip;	/* the question */
	struct symfmt_fn fn;	/* the answer; fn.name NULL: empty */
	uint64_t from;		/* a function's answer holds on [from,
				 * fn.until) (not over one nested in it) */
};

struct sf_line_slot {
	uint64_t asid, ip;
	const char *file;	/* NULL: none known (when used) */
	int line;
	uint8_t used;
};

struct symfmt {
	const struct imgset *set;
	struct sf_fn_slot fn[SF_FN_SLOTS];
	struct sf_line_slot line[SF_LINE_SLOTS];
	struct symfmt_stats st;
};

int symfmt_new(struct symfmt **out, const struct imgset *set)
{
	struct symfmt *sf;

	if (!out)
		return -pte_invalid;
	sf = calloc(1, sizeof(*sf));
	if (!sf)
		return -pte_nomem;
	sf->set = set;
	*out = sf;
	return 0;
}

void symfmt_free(struct symfmt *sf)
{
	free(sf);
}

void symfmt_stats(const struct symfmt *sf, struct symfmt_stats *st)
{
	if (sf && st)
		*st = sf->st;
}

static size_t sf_hash(uint64_t asid, uint64_t key, size_t slots)
{
	uint64_t h = (key ^ (asid * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;

	return (size_t)(h >> 40) % slots;
}

/* The answer without the cache; *@from: where it starts to hold. */
static void sf_resolve(const struct symfmt *sf, uint64_t asid, uint64_t ip,
		       struct symfmt_fn *fn, uint64_t *from)
{
	const struct mi *mi = sf->set ? imgopt_mi(sf->set) : NULL;
	const char *name, *slash;
	uint64_t start, end, until, off = 0;

	*from = ip;
	fn->file_off = 0;
	fn->from = ip;
	if (sf->set && !imgopt_function_span(sf->set, asid, ip, &name, &start,
					     &end, from, &until)) {
		fn->name = name;
		fn->start = start;
		fn->end = end;
		fn->kind = SYMFMT_FUNC;
		fn->until = until;
		fn->from = *from <= ip ? *from : ip;
		return;
	}
	/* the segments of @asid and those of every space (MI_ASID_ANY's,
	 * which mi matches in each): asked for MI_ASID_ANY, mi would match
	 * every space's, naming one process's code after another's file */
	name = mi ? mi_name_span(mi, asid, ip, &start, &end, &until, &off) : NULL;
	if (name) {
		slash = strrchr(name, '/');
		fn->name = slash && slash[1] ? slash + 1 : name;
		fn->start = start;
		fn->end = end;
		fn->kind = SYMFMT_SEGMENT;
		fn->file_off = off;
		/* code of a dump without symbols stays the segment's to the
		 * next segment; with symbols about, each address is asked */
		fn->until = imgopt_symbols_in(sf->set, asid, ip, until) ? ip + 1 : until;
		return;
	}
	fn->name = "(unknown)";
	fn->start = ip;
	fn->end = ip + 1;
	fn->kind = SYMFMT_NONE;
	fn->until = ip + 1;
}

int symfmt_function(struct symfmt *sf, uint64_t asid, uint64_t ip,
		    struct symfmt_fn *fn)
{
	struct sf_fn_slot *s;

	if (!sf || !fn)
		return -pte_invalid;
	sf->st.fn_lookups++;
	s = &sf->fn[sf_hash(asid, ip >> 6, SF_FN_SLOTS)];
	/* a segment's range holds functions too (those with symbols): only
	 * a symbol's answer holds for other IPs, where it is certain (not
	 * over a function nested in it) */
	if (s->fn.name && s->asid == asid &&
	    (s->ip == ip || (s->fn.kind == SYMFMT_FUNC && ip >= s->from &&
			     ip < s->fn.until))) {
		sf->st.fn_hits++;
		*fn = s->fn;
		return 0;
	}
	sf_resolve(sf, asid, ip, fn, &s->from);
	s->asid = asid;
	s->ip = ip;
	s->fn = *fn;
	return 0;
}

const char *symfmt_ip(struct symfmt *sf, uint64_t asid, uint64_t ip, int hex,
		      char *buf, size_t size)
{
	struct symfmt_fn fn;

	if (!buf || !size)
		return buf ? buf : "";
	buf[0] = 0;
	if (!sf)
		return buf;
	if (hex || symfmt_function(sf, asid, ip, &fn) || fn.kind == SYMFMT_NONE)
		snprintf(buf, size, "%016" PRIx64, ip);
	else
		snprintf(buf, size, "%s+0x%" PRIx64, fn.name, ip - fn.start + fn.file_off);
	return buf;
}

int symfmt_fit(const char *s, int width, char *buf, size_t size)
{
	const char *plus = s ? strrchr(s, '+') : NULL;
	size_t i;

	if (buf && size)
		buf[0] = 0;
	if (!buf || width < 1 || !plus || plus == s || (size_t)width >= size)
		return -pte_invalid;
	if (strlen(s) <= (size_t)width)
		snprintf(buf, size, "%s", s);
	else if ((size_t)width >= strlen(plus) + 3)
		snprintf(buf, size, "%.*s..%s", (int)((size_t)width - strlen(plus) - 2), s,
			 plus);
	else
		return -pte_invalid;
	for (i = 0; buf[i]; i++)
		if ((unsigned char)buf[i] < 0x20 || (unsigned char)buf[i] > 0x7e)
			buf[i] = '?';
	return 0;
}

/* The last two components of @file ("dir/file.c"). */
static const char *sf_brief(const char *file)
{
	const char *p = file + strlen(file), *last = NULL;

	while (p > file) {
		p--;
		if (*p == '/') {
			if (last)
				return p + 1;
			last = p;
		}
	}
	return file;
}

int symfmt_srcline(struct symfmt *sf, uint64_t asid, uint64_t ip, int brief,
		   char *buf, size_t size)
{
	struct sf_line_slot *s;

	if (!buf || !size)
		return -pte_invalid;
	buf[0] = 0;
	if (!sf)
		return -pte_invalid;
	sf->st.line_lookups++;
	s = &sf->line[sf_hash(asid, ip, SF_LINE_SLOTS)];
	if (s->used && s->asid == asid && s->ip == ip) {
		sf->st.line_hits++;
	} else {
		s->used = 1;
		s->asid = asid;
		s->ip = ip;
		if (!sf->set || imgopt_srcline(sf->set, asid, ip, &s->file, &s->line) ||
		    !s->file)
			s->file = NULL;
	}
	if (!s->file)
		return -pte_invalid;
	snprintf(buf, size, "%s:%d", brief ? sf_brief(s->file) : s->file, s->line);
	return 0;
}
