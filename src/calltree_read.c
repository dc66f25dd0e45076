/* calltree_read -- a finished call tree read: its nodes and functions,
 * sorted, its sums and marks as text (see calltree.h). */
#include "calltree.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calltree_int.h"
#include "ptdec.h"

size_t ct_nnodes(const struct ct *ct)
{
	return ct ? ct->nnodes : 0;
}

const struct ct_node *ct_node(const struct ct *ct, uint32_t i)
{
	return ct && i < ct->nnodes ? &ct->nodes[i] : NULL;
}

size_t ct_nfuncs(const struct ct *ct)
{
	return ct ? ct->nfuncs : 0;
}

const struct ct_func *ct_func(const struct ct *ct, uint32_t i)
{
	return ct && i < ct->nfuncs ? &ct->funcs[i] : NULL;
}

int ct_truncated(const struct ct *ct)
{
	return ct && ct->truncated;
}

/* qsort has no context argument: the tree and order being sorted. */
static __thread const struct ct *ct_sort_ct;
static __thread enum ct_order ct_sort_order;

static int ct_cmp3(uint64_t a, uint64_t b)
{
	return a < b ? 1 : a > b ? -1 : 0;
}

static int ct_cmp_func(const void *x, const void *y)
{
	const struct ct_func *a = &ct_sort_ct->funcs[*(const uint32_t *)x];
	const struct ct_func *b = &ct_sort_ct->funcs[*(const uint32_t *)y];
	int c;

	switch (ct_sort_order) {
	case CT_BY_CYCLES:
		c = ct_cmp3(a->cyc.lo, b->cyc.lo);
		break;
	case CT_BY_CALLS:
		c = ct_cmp3(a->calls, b->calls);
		break;
	default:
		c = 0;
		break;
	}
	if (!c)
		c = ct_cmp3(a->insns, b->insns);
	return c ? c : strcmp(a->name, b->name);
}

static int ct_cmp_node(const void *x, const void *y)
{
	uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;
	const struct ct_node *a = &ct_sort_ct->nodes[i];
	const struct ct_node *b = &ct_sort_ct->nodes[j];
	int c;

	switch (ct_sort_order) {
	case CT_BY_CYCLES:
		c = ct_cmp3(a->total.lo, b->total.lo);
		break;
	case CT_BY_CALLS:
		c = ct_cmp3(a->calls, b->calls);
		break;
	default:
		c = 0;
		break;
	}
	if (!c)
		c = ct_cmp3(a->insns, b->insns);
	/* then in order of first call */
	return c ? c : i < j ? -1 : i > j;
}

size_t ct_top(const struct ct *ct, enum ct_order order, uint32_t *idx,
	      size_t max)
{
	uint32_t *all;
	size_t i, n;

	if (!ct || !idx || !ct->nfuncs)
		return 0;
	all = malloc(ct->nfuncs * sizeof(*all));
	if (!all)
		return 0;
	/* not a function holding no instruction: a callee without a
	 * symbol named by its entry (ct_entry()), whose code and calls its
	 * segment counts */
	for (i = n = 0; i < ct->nfuncs; i++)
		if (ct->funcs[i].insns)
			all[n++] = (uint32_t)i;
	ct_sort_ct = ct;
	ct_sort_order = order;
	qsort(all, n, sizeof(*all), ct_cmp_func);
	if (max && max < n)
		n = max;
	memcpy(idx, all, n * sizeof(*idx));
	free(all);
	return n;
}

size_t ct_children(const struct ct *ct, uint32_t node, enum ct_order order,
		   uint32_t *idx, size_t max)
{
	uint32_t *all, c;
	size_t n = 0, cap = 0;

	if (!ct || !idx || node >= ct->nnodes)
		return 0;
	for (c = ct->nodes[node].first_child; c != CT_NONE; c = ct->nodes[c].next_sibling)
		cap++;
	if (!cap)
		return 0;
	all = malloc(cap * sizeof(*all));
	if (!all)
		return 0;
	for (c = ct->nodes[node].first_child; c != CT_NONE; c = ct->nodes[c].next_sibling)
		all[n++] = c;
	ct_sort_ct = ct;
	ct_sort_order = order;
	qsort(all, n, sizeof(*all), ct_cmp_node);
	if (max && max < n)
		n = max;
	memcpy(idx, all, n * sizeof(*idx));
	free(all);
	return n;
}

const char *ct_sum_str(const struct ct_sum *s, char *buf, size_t size)
{
	const char *tilde;
	size_t n;

	if (!buf || !size)
		return buf;
	if (!s || !s->known) {
		snprintf(buf, size, s && !s->unknown && !(s->flags & CT_S_LOST) ? "0" : "?");
		return buf;
	}
	tilde = s->flags & CT_S_SHARED ? "~" : "";
	if (s->flags & CT_S_OPEN)
		snprintf(buf, size, "%s>=%" PRIu64, tilde, s->lo);
	else if ((s->flags & CT_S_BOUNDED) && s->hi != s->lo)
		snprintf(buf, size, "%s%" PRIu64 "-%" PRIu64, tilde, s->lo, s->hi);
	else
		snprintf(buf, size, "%s%" PRIu64, tilde, s->lo);
	n = strlen(buf);
	if ((s->unknown || (s->flags & CT_S_LOST)) && n + 2 < size)
		memcpy(buf + n, "+?", 3);
	return buf;
}

uint64_t ct_breaks(const struct ct *ct)
{
	return ct ? ct->breaks : 0;
}

const char *ct_time_mark(const struct ct *ct, uint32_t node)
{
	if (!ct || node >= ct->nnodes || !ct->have_span ||
	    !ct->nodes[node].tsc_ticks)
		return "?";
	return "~";
}

