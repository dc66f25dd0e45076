/* imgopt_sym -- the names of an image set's code: functions, their
 * spans, symbols by name, source lines (imgopt.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "imgopt.h"
#include "imgopt_int.h"
#include "memimg.h"
#include "ptdec.h"
#include "sideband.h"
#include "symtab.h"

/* The symbol map holding @ip in @asid, or NULL. */
static const struct imgopt_symmap *imgopt_symmap(const struct imgset *s,
						 uint64_t asid, uint64_t ip)
{
	size_t lo = 0, hi = s->nmaps, mid;
	const struct imgopt_symmap *m;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		m = &s->maps[mid];
		if (m->asid < asid || (m->asid == asid && m->start <= ip))
			lo = mid + 1;
		else
			hi = mid;
	}
	/* the latest-starting map at or below ip; an earlier one may
	 * still hold ip if they nest: walk back a few */
	for (; lo > 0; lo--) {
		m = &s->maps[lo - 1];
		if (m->asid != asid)
			break;
		if (ip < m->end)
			return m;
	}
	return NULL;
}

size_t imgopt_symbol(const struct imgset *s, uint64_t asid, uint64_t ip,
		     char *buf, size_t size)
{
	const struct imgopt_symmap *m = NULL;

	if (!size)
		return 0;
	buf[0] = 0;
	if (!s)
		return 0;
	if (asid != SB_ASID_NONE && asid != MI_ASID_ANY)
		m = imgopt_symmap(s, asid, ip);
	if (!m)
		m = imgopt_symmap(s, MI_ASID_ANY, ip);
	if (m)
		return symtab_format(m->st, ip - m->bias, buf, size);
	return s->kallsyms ? symtab_format(s->kallsyms, ip, buf, size) : 0;
}

int imgopt_function(const struct imgset *s, uint64_t asid, uint64_t ip,
		    const char **name, uint64_t *start, uint64_t *end)
{
	return imgopt_function_span(s, asid, ip, name, start, end, NULL, NULL);
}

int imgopt_function_span(const struct imgset *s, uint64_t asid, uint64_t ip,
			 const char **name, uint64_t *start, uint64_t *end,
			 uint64_t *from, uint64_t *until)
{
	const struct imgopt_symmap *m = NULL;
	const struct symtab *st;
	const struct symtab_sym *sym, *next;
	uint64_t bias = 0, lo, hi;

	if (!s || !name || !start || !end)
		return -pte_invalid;
	if (asid != SB_ASID_NONE && asid != MI_ASID_ANY)
		m = imgopt_symmap(s, asid, ip);
	if (!m)
		m = imgopt_symmap(s, MI_ASID_ANY, ip);
	st = m ? m->st : s->kallsyms;
	if (m)
		bias = m->bias;
	sym = symtab_lookup_span(st, ip - bias, &lo, &hi);
	if (!sym)
		return -pte_invalid;
	*name = sym->name;
	*start = sym->addr + bias;
	if (sym->size) {
		*end = *start + sym->size;
	} else {
		next = symtab_get(st, (size_t)(sym - symtab_get(st, 0)) + 1);
		*end = next ? next->addr + bias : ip + 1;
	}
	/* the same answer around @ip: inside the function, not over one
	 * nested in it (compared as the table's addresses) */
	if (from)
		*from = (lo > sym->addr ? lo : sym->addr) + bias;
	if (until)
		*until = (hi < *end - bias ? hi : *end - bias) + bias;
	return 0;
}

int imgopt_symbols_in(const struct imgset *s, uint64_t asid, uint64_t lo,
		      uint64_t hi)
{
	size_t i, a = 0, b;

	if (!s || lo >= hi)
		return 0;
	/* every map of either space overlapping the range: a walk, made
	 * once per piece of code without symbols that is resolved */
	for (i = 0; i < s->nmaps; i++) {
		const struct imgopt_symmap *m = &s->maps[i];

		if ((m->asid == asid || m->asid == MI_ASID_ANY) && m->start < hi &&
		    m->end > lo)
			return 1;
	}
	if (!s->kallsyms)
		return 0;
	if (symtab_lookup(s->kallsyms, lo))
		return 1;
	/* none holds lo: the first starting above it (they are sorted by
	 * address) would hold what follows */
	b = symtab_count(s->kallsyms);
	while (a < b) {
		i = a + (b - a) / 2;
		if (symtab_get(s->kallsyms, i)->addr <= lo)
			a = i + 1;
		else
			b = i;
	}
	return a < symtab_count(s->kallsyms) &&
	       symtab_get(s->kallsyms, a)->addr < hi;
}

/* Add [@start, @end) of @asid to *@v (@n, @cap).  Returns 0 or -pte_nomem. */
static int imgopt_frange_add(struct imgopt_frange **v, size_t *n, size_t *cap,
			     uint64_t asid, uint64_t start, uint64_t end)
{
	struct imgopt_frange *p;

	if (*n == *cap) {
		size_t ncap = *cap ? 2 * *cap : 8;

		p = realloc(*v, ncap * sizeof(*p));
		if (!p)
			return -pte_nomem;
		*v = p;
		*cap = ncap;
	}
	(*v)[*n].asid = asid;
	(*v)[*n].start = start;
	(*v)[*n].end = end;
	(*n)++;
	return 0;
}

/* The symbols of @st named @name, at @bias, inside [@lo, @hi), into *@v.
 * Returns 0 or -pte_nomem. */
static int imgopt_frange_st(const struct symtab *st, const char *name, uint64_t asid,
			    uint64_t bias, uint64_t lo, uint64_t hi,
			    struct imgopt_frange **v, size_t *n, size_t *cap)
{
	const struct symtab_sym *sym, *next;
	uint64_t a, e;
	size_t i, k = symtab_count(st);

	for (i = 0; i < k; i++) {
		sym = symtab_get(st, i);
		if (strcmp(sym->name, name))
			continue;
		a = sym->addr + bias;
		/* a symbol without a size reaches up to the next one, the
		 * last one to its section's end (ELF) or 4 KiB on (kallsyms):
		 * up to the map's end or those 4 KiB, a range that holds it */
		if (sym->size)
			e = a + sym->size;
		else if ((next = symtab_get(st, i + 1)))
			e = next->addr + bias;
		else
			e = hi != UINT64_MAX ? hi : a + 4096;
		if (a < lo)
			a = lo;
		if (e > hi)
			e = hi;
		if (a < e && imgopt_frange_add(v, n, cap, asid, a, e) < 0)
			return -pte_nomem;
	}
	return 0;
}

static int imgopt_frange_cmp(const void *x, const void *y)
{
	const struct imgopt_frange *a = x, *b = y;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->asid != b->asid)
		return a->asid < b->asid ? -1 : 1;
	return a->end < b->end ? -1 : a->end > b->end;
}

int imgopt_find_function(const struct imgset *s, const char *name,
			 struct imgopt_frange **out, size_t *n)
{
	struct imgopt_frange *v = NULL;
	size_t nv = 0, cap = 0, i, k;
	int ret = 0;

	if (!s || !name || !out || !n)
		return -pte_invalid;
	for (i = 0; i < s->nmaps && !ret; i++)
		ret = imgopt_frange_st(s->maps[i].st, name, s->maps[i].asid,
				       s->maps[i].bias, s->maps[i].start, s->maps[i].end,
				       &v, &nv, &cap);
	if (!ret && s->kallsyms)
		ret = imgopt_frange_st(s->kallsyms, name, MI_ASID_ANY, 0, 0, UINT64_MAX,
				       &v, &nv, &cap);
	if (ret) {
		free(v);
		return ret;
	}
	if (nv)
		qsort(v, nv, sizeof(*v), imgopt_frange_cmp);
	for (i = k = 0; i < nv; i++)	/* one object mapped twice alike */
		if (!k || memcmp(&v[k - 1], &v[i], sizeof(*v)))
			v[k++] = v[i];
	*out = v;
	*n = k;
	return 0;
}

int imgopt_symbol_names(const struct imgset *s, const char *prefix, size_t max,
			int (*each)(void *arg, const char *name), void *arg)
{
	size_t i, k;
	int r;

	if (!s || !prefix || !each)
		return -pte_invalid;
	for (i = 0; i < s->nobjs; i++) {
		/* the objects whose symbols some mapping uses: the names
		 * imgopt_find_function() finds */
		if (!s->objs[i].st)
			continue;
		for (k = 0; k < s->nmaps && s->maps[k].st != s->objs[i].st; k++)
			;
		if (k == s->nmaps)
			continue;
		r = symtab_names(s->objs[i].st, prefix, max, each, arg);
		if (r < 0)
			return r;
	}
	if (s->kallsyms) {
		r = symtab_names(s->kallsyms, prefix, max, each, arg);
		if (r < 0)
			return r;
	}
	return 0;
}

int imgopt_srcline(const struct imgset *s, uint64_t asid, uint64_t ip,
		   const char **file, int *line)
{
	const struct imgopt_symmap *m = NULL;

	if (!s)
		return -pte_invalid;
	if (asid != SB_ASID_NONE && asid != MI_ASID_ANY)
		m = imgopt_symmap(s, asid, ip);
	if (!m)
		m = imgopt_symmap(s, MI_ASID_ANY, ip);
	if (!m)
		return -pte_invalid;
	return symtab_srcline(m->st, ip - m->bias, file, line);
}
