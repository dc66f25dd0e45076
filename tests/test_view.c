/* test_view -- the view stack (ui/view.h) and a list view's selection
 * keys (ui/listnav.h): order, at most once, topmost views, what is drawn,
 * who gets keys, resizes that push or close. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <curses.h>
#include <string.h>

#include "listnav.h"
#include "ptdec.h"
#include "view.h"

/* What the ops saw, as letters: draws in order, the last key's view. */
static char drawn[32];
static char keyed;
static int closed;

static void t_draw(struct ui *ui, struct view *v)
{
	size_t n = strlen(drawn);

	drawn[n] = v->ops->name[0];
	drawn[n + 1] = 0;
}

static int t_key(struct ui *ui, struct view *v, int key)
{
	keyed = v->ops->name[0];
	return key;
}

static void t_close(struct ui *ui, struct view *v)
{
	closed++;
}

static const struct view_ops vb = { "browser", VIEW_OPAQUE, t_draw, t_key, NULL, NULL };
static const struct view_ops vh = { "help", VIEW_OPAQUE, t_draw, t_key, NULL, t_close };
static const struct view_ops vp = { "prompt", VIEW_CURSOR, t_draw, t_key, NULL, NULL };
static const struct view_ops vs_ = { "small", VIEW_OPAQUE | VIEW_TOPMOST, t_draw, t_key,
				     NULL, NULL };

/* A resize that closes the too-small view (the screen grew). */
static void t_grow(struct ui *ui, struct view *v);
static struct view_stack *grow_vs;
static const struct view_ops vg = { "grow", VIEW_OPAQUE, t_draw, t_key, t_grow, NULL };

static void t_grow(struct ui *ui, struct view *v)
{
	view_close(grow_vs, &vs_);
}

static void test_empty(void **state)
{
	struct view_stack vs = { 0 };

	assert_null(view_top(&vs));
	assert_int_equal(view_key(&vs, 'x'), 0);
	drawn[0] = 0;
	view_draw(&vs);
	assert_string_equal(drawn, "");
	view_close(&vs, &vh);	/* not there: nothing */
	assert_int_equal(vs.n, 0);
}

static void test_stack(void **state)
{
	struct view_stack vs = { 0 };

	assert_int_equal(view_push(&vs, &vb, NULL), 0);
	assert_int_equal(view_push(&vs, &vh, NULL), 0);
	assert_int_equal(view_push(&vs, &vp, NULL), 0);
	/* from the highest opaque view up; keys to the top */
	drawn[0] = 0;
	view_draw(&vs);
	assert_string_equal(drawn, "hp");
	assert_int_equal(view_key(&vs, 7), 7);
	assert_int_equal(keyed, 'p');
	assert_ptr_equal(view_below(&vs, view_top(&vs))->ops, &vh);
	assert_null(view_below(&vs, &vs.v[0]));
	/* at most once: pushing again moves it to the top */
	assert_int_equal(view_push(&vs, &vh, &vs), 0);
	assert_int_equal(vs.n, 3);
	assert_ptr_equal(view_top(&vs)->ops, &vh);
	assert_ptr_equal(view_top(&vs)->priv, &vs);
	/* close calls the close op, wherever the view is */
	closed = 0;
	view_close(&vs, &vh);
	assert_int_equal(closed, 1);
	assert_false(view_is_open(&vs, &vh));
	assert_true(view_is_open(&vs, &vp));
	view_push(&vs, &vh, NULL);
	view_close_all(&vs);
	assert_int_equal(vs.n, 0);
	assert_int_equal(closed, 2);
}

static void test_topmost(void **state)
{
	struct view_stack vs = { 0 };
	int i;

	view_push(&vs, &vb, NULL);
	view_push(&vs, &vs_, NULL);
	/* a view pushed later stays under the too-small screen */
	view_push(&vs, &vh, NULL);
	assert_ptr_equal(view_top(&vs)->ops, &vs_);
	drawn[0] = 0;
	view_draw(&vs);
	assert_string_equal(drawn, "s");
	/* a resize may close a view; the rest still get theirs */
	grow_vs = &vs;
	view_push(&vs, &vg, NULL);
	view_resize(&vs);
	assert_false(view_is_open(&vs, &vs_));
	assert_ptr_equal(view_top(&vs)->ops, &vg);
	/* the stack is bounded: each view at most once, VIEW_MAX of them */
	view_close_all(&vs);
	for (i = 0; i < VIEW_MAX; i++)
		vs.v[vs.n++] = (struct view){ &vp, NULL };
	assert_int_equal(view_push(&vs, &vb, NULL), -pte_internal);
}

static void test_listnav(void **state)
{
	struct listnav ln = { 0, 0 };

	assert_int_equal(listnav_key(&ln, 'x', 10, 4), 0);
	assert_int_equal(listnav_key(&ln, 'k', 10, 4), 1);
	assert_int_equal(ln.sel, 0);
	assert_int_equal(listnav_key(&ln, 'j', 10, 4), 1);
	assert_int_equal(ln.sel, 1);
	listnav_key(&ln, ' ', 10, 4);
	assert_int_equal(ln.sel, 5);
	listnav_key(&ln, 'G', 10, 4);
	assert_int_equal(ln.sel, 9);
	listnav_key(&ln, 'j', 10, 4);
	assert_int_equal(ln.sel, 9);
	listnav_fit(&ln, 10, 4);
	assert_int_equal(ln.top, 6);
	listnav_key(&ln, 'b', 10, 4);
	assert_int_equal(ln.sel, 5);
	listnav_key(&ln, 'g', 10, 4);
	listnav_fit(&ln, 10, 4);
	assert_int_equal(ln.sel, 0);
	assert_int_equal(ln.top, 0);
	/* a list that shrank under the selection */
	ln.sel = 9;
	listnav_fit(&ln, 3, 4);
	assert_int_equal(ln.sel, 2);
	listnav_key(&ln, 'G', 0, 4);
	assert_int_equal(ln.sel, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_stack),
		cmocka_unit_test(test_topmost),
		cmocka_unit_test(test_listnav),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
