/* test_pool -- worker threads running numbered units, merged in order. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "pool.h"

#define NUNITS 200

struct fix {
	atomic_int cancel;
	atomic_int ran[NUNITS];		/* times each unit ran */
	atomic_int busy[POOL_MAX_THREADS];	/* units a worker runs now */
	size_t fail_at;			/* this unit fails (NUNITS: none) */
	int fail_with;
	size_t merged[NUNITS];
	size_t nmerged;
	size_t ahead;			/* the most units run past the merge */
	size_t merge_fail_at;
	atomic_size_t highest;		/* the highest unit started */
	atomic_int bad;			/* a worker ran two units at once */
};

static void fix_init(struct fix *f)
{
	memset(f, 0, sizeof(*f));
	f->fail_at = NUNITS;
	f->merge_fail_at = NUNITS;
}

static int run(void *ctx, unsigned worker, size_t unit)
{
	struct fix *f = ctx;
	size_t h = atomic_load(&f->highest);

	/* No cmocka assertion here: it cannot jump out of a thread. */
	if (worker >= POOL_MAX_THREADS || atomic_fetch_add(&f->busy[worker], 1))
		atomic_store(&f->bad, 1);
	while (unit > h && !atomic_compare_exchange_weak(&f->highest, &h, unit))
		;
	atomic_fetch_add(&f->ran[unit], 1);
	if (unit % 7 == 0)
		usleep(100);
	if (worker < POOL_MAX_THREADS)
		atomic_fetch_sub(&f->busy[worker], 1);
	return unit == f->fail_at ? f->fail_with : 0;
}

static int merge(void *ctx, size_t unit)
{
	struct fix *f = ctx;
	size_t h = atomic_load(&f->highest);

	if (h > unit && h - unit > f->ahead)
		f->ahead = h - unit;
	f->merged[f->nmerged++] = unit;
	return unit == f->merge_fail_at ? -pte_nomem : 0;
}

static struct pool_cfg cfg_of(struct fix *f, unsigned nthreads, size_t window)
{
	struct pool_cfg c = {
		.nthreads = nthreads, .nunits = NUNITS, .window = window,
		.run = run, .ctx = f, .cancel = &f->cancel,
	};

	return c;
}

static void test_null(void **state)
{
	struct pool_cfg c;
	struct pool *p;
	struct fix f;

	(void)state;
	fix_init(&f);
	c = cfg_of(&f, 2, 0);
	assert_int_equal(pool_start(NULL, &c), -pte_invalid);
	assert_int_equal(pool_start(&p, NULL), -pte_invalid);
	c.run = NULL;
	assert_int_equal(pool_start(&p, &c), -pte_invalid);
	c = cfg_of(&f, 2, 0);
	c.cancel = NULL;
	assert_int_equal(pool_start(&p, &c), -pte_invalid);
	assert_int_equal(pool_wait(NULL), -pte_invalid);
	assert_int_equal(pool_merge(NULL, merge), -pte_invalid);
	assert_int_equal(pool_done(NULL), 0);
	assert_int_equal(pool_finished(NULL, NULL), 0);
	pool_free(NULL);
	assert_true(pool_threads(0) >= 1);
	assert_int_equal(pool_threads(3), 3);
	assert_int_equal(pool_threads(1000), POOL_MAX_THREADS);
}

/* No units: the workers stop at once, and that is success. */
static void test_empty(void **state)
{
	struct pool_cfg c;
	struct pool *p;
	struct fix f;
	int st;

	(void)state;
	fix_init(&f);
	c = cfg_of(&f, 3, 4);
	c.nunits = 0;
	assert_int_equal(pool_start(&p, &c), 0);
	assert_int_equal(pool_merge(p, merge), 0);
	assert_int_equal(pool_wait(p), 0);
	assert_true(pool_finished(p, &st));
	assert_int_equal(st, 0);
	assert_int_equal(pool_done(p), 0);
	pool_free(p);
}

/* Every unit runs once; without a merge, on one thread or many. */
static void test_all_run(void **state)
{
	unsigned nth[] = { 1, 4, 0 };
	struct pool_cfg c;
	struct pool *p;
	struct fix f;
	size_t k, i;
	int st;

	(void)state;
	for (i = 0; i < sizeof(nth) / sizeof(nth[0]); i++) {
		fix_init(&f);
		c = cfg_of(&f, nth[i], 0);
		assert_int_equal(pool_start(&p, &c), 0);
		assert_true(pool_nthreads(p) >= 1);
		assert_int_equal(pool_wait(p), 0);
		assert_int_equal(pool_wait(p), 0);	/* again: the same */
		assert_true(pool_finished(p, &st));
		assert_int_equal(st, 0);
		assert_int_equal(pool_done(p), NUNITS);
		for (k = 0; k < NUNITS; k++)
			assert_int_equal(atomic_load(&f.ran[k]), 1);
		assert_int_equal(atomic_load(&f.bad), 0);
		assert_int_equal(atomic_load(&f.cancel), 0);
		pool_free(p);
	}
}

/* Merged in order, every one, never more than the window ahead. */
static void test_merge_order(void **state)
{
	struct pool_cfg c;
	struct pool *p;
	struct fix f;
	size_t k;

	(void)state;
	fix_init(&f);
	c = cfg_of(&f, 4, 3);
	assert_int_equal(pool_start(&p, &c), 0);
	assert_int_equal(pool_merge(p, merge), 0);
	assert_int_equal(pool_wait(p), 0);
	assert_int_equal(f.nmerged, NUNITS);
	for (k = 0; k < NUNITS; k++)
		assert_int_equal(f.merged[k], k);
	/* A unit starts only below merged + window. */
	assert_true(f.ahead < 3);
	pool_free(p);
}

/* A failing unit: the first real failure is the answer, the cancel flag
 * is set, the merge stops before it. */
static void test_unit_fails(void **state)
{
	struct pool_cfg c;
	struct pool *p;
	struct fix f;
	int st;

	(void)state;
	fix_init(&f);
	f.fail_at = 50;
	f.fail_with = -pte_sigbus;
	c = cfg_of(&f, 4, 4);
	assert_int_equal(pool_start(&p, &c), 0);
	assert_int_equal(pool_merge(p, merge), -pte_sigbus);
	assert_int_equal(f.nmerged, 50);
	assert_int_equal(pool_wait(p), -pte_sigbus);
	assert_true(pool_finished(p, &st));
	assert_int_equal(st, -pte_sigbus);
	assert_true(pool_done(p) <= 50);
	assert_int_equal(atomic_load(&f.cancel), 1);
	pool_free(p);
}

/* A failing merge cancels the workers; pool_wait() tells it was cut
 * short. */
static void test_merge_fails(void **state)
{
	struct pool_cfg c;
	struct pool *p;
	struct fix f;

	(void)state;
	fix_init(&f);
	f.merge_fail_at = 10;
	c = cfg_of(&f, 2, 4);
	assert_int_equal(pool_start(&p, &c), 0);
	assert_int_equal(pool_merge(p, merge), -pte_nomem);
	assert_int_equal(f.nmerged, 11);
	assert_int_equal(pool_wait(p), -pte_canceled);
	assert_int_equal(atomic_load(&f.cancel), 1);
	pool_free(p);
}

/* Cancelled by the owner before anything ran: nothing runs, the merge and
 * the wait say so. */
static void test_cancel(void **state)
{
	struct pool_cfg c;
	struct pool *p;
	struct fix f;
	size_t k;
	int n = 0;

	(void)state;
	fix_init(&f);
	atomic_store(&f.cancel, 1);
	c = cfg_of(&f, 4, 4);
	assert_int_equal(pool_start(&p, &c), 0);
	assert_int_equal(pool_merge(p, merge), -pte_canceled);
	assert_int_equal(pool_wait(p), -pte_canceled);
	for (k = 0; k < NUNITS; k++)
		n += atomic_load(&f.ran[k]);
	assert_int_equal(n, 0);
	assert_int_equal(f.nmerged, 0);
	pool_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_all_run),
		cmocka_unit_test(test_merge_order),
		cmocka_unit_test(test_unit_fails),
		cmocka_unit_test(test_merge_fails),
		cmocka_unit_test(test_cancel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
