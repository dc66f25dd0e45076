/*
 * ct_eq.h -- for the call-tree tests: two finished trees (calltree.h) are
 * the same in every field of every node and function (functions matched
 * by name, start and kind: their order may differ), and ct_truncated().
 * Include after cmocka.h and calltree.h.
 */
#ifndef CT_EQ_H
#define CT_EQ_H

static inline void ct_eq_sum(const struct ct_sum *a, const struct ct_sum *b)
{
	assert_int_equal(a->lo, b->lo);
	assert_int_equal(a->hi, b->hi);
	assert_int_equal(a->unknown, b->unknown);
	assert_int_equal(a->known, b->known);
	assert_int_equal(a->flags, b->flags);
}

/* The function of @b that is @a's function @i (of its name, start and
 * kind), or CT_NONE.  Functions are in order of first use, but a callee
 * without a symbol, named by its entry, may be made at a merge, after
 * the fragment's own: the order is not the tree's meaning. */
static inline uint32_t ct_eq_func(const struct ct *a, const struct ct *b,
				  uint32_t i)
{
	const struct ct_func *f = ct_func(a, i);
	uint32_t k;

	if (i == CT_NONE)
		return CT_NONE;
	for (k = 0; k < ct_nfuncs(b); k++) {
		const struct ct_func *g = ct_func(b, k);

		if (g->start == f->start && g->kind == f->kind &&
		    !strcmp(g->name, f->name))
			return k;
	}
	fail_msg("no function %s at 0x%llx", f->name, (unsigned long long)f->start);
	return CT_NONE;
}

/* Every field of finished trees @a and @b is the same. */
static inline void ct_eq_tree(const struct ct *a, const struct ct *b)
{
	size_t i;

	assert_int_equal(ct_nnodes(a), ct_nnodes(b));
	assert_int_equal(ct_nfuncs(a), ct_nfuncs(b));
	assert_int_equal(ct_truncated(a), ct_truncated(b));
	for (i = 0; i < ct_nfuncs(a); i++) {
		const struct ct_func *f = ct_func(a, (uint32_t)i);
		const struct ct_func *g = ct_func(b, ct_eq_func(a, b, (uint32_t)i));

		assert_string_equal(f->name, g->name);
		assert_int_equal(f->start, g->start);
		assert_int_equal(f->end, g->end);
		assert_int_equal(f->kind, g->kind);
		assert_int_equal(f->plt, g->plt);
		assert_int_equal(f->insns, g->insns);
		assert_int_equal(f->calls, g->calls);
		ct_eq_sum(&f->cyc, &g->cyc);
	}
	for (i = 0; i < ct_nnodes(a); i++) {
		const struct ct_node *n = ct_node(a, (uint32_t)i);
		const struct ct_node *m = ct_node(b, (uint32_t)i);

		assert_int_equal(n->parent, m->parent);
		assert_int_equal(ct_eq_func(a, b, n->func), m->func);
		assert_int_equal(n->first_child, m->first_child);
		assert_int_equal(n->next_sibling, m->next_sibling);
		assert_int_equal(n->depth, m->depth);
		assert_int_equal(n->calls, m->calls);
		assert_int_equal(n->entries, m->entries);
		assert_int_equal(n->insns_self, m->insns_self);
		assert_int_equal(n->insns, m->insns);
		ct_eq_sum(&n->self, &m->self);
		ct_eq_sum(&n->total, &m->total);
		assert_int_equal(n->tsc_ticks, m->tsc_ticks);
		assert_int_equal(n->open, m->open);
		assert_int_equal(n->offset, m->offset);
	}
}

#endif /* CT_EQ_H */
