/* view -- the stack of views: push, close, draw, keys, resize. */
#include <curses.h>
#include <string.h>

#include "ptdec.h"
#include "view.h"

static int view_index(const struct view_stack *vs, const struct view_ops *ops)
{
	int i;

	for (i = 0; i < vs->n; i++)
		if (vs->v[i].ops == ops)
			return i;
	return -1;
}

static void view_remove(struct view_stack *vs, int i)
{
	memmove(&vs->v[i], &vs->v[i + 1], (size_t)(vs->n - i - 1) * sizeof(vs->v[0]));
	vs->n--;
}

int view_push(struct view_stack *vs, const struct view_ops *ops, void *priv)
{
	int i = view_index(vs, ops), at;

	if (i >= 0)
		view_remove(vs, i);
	if (vs->n >= VIEW_MAX)
		return -pte_internal;
	at = vs->n;
	if (!(ops->flags & VIEW_TOPMOST))
		while (at > 0 && (vs->v[at - 1].ops->flags & VIEW_TOPMOST))
			at--;
	memmove(&vs->v[at + 1], &vs->v[at], (size_t)(vs->n - at) * sizeof(vs->v[0]));
	vs->v[at] = (struct view){ ops, priv };
	vs->n++;
	return 0;
}

void view_close(struct view_stack *vs, const struct view_ops *ops)
{
	int i = view_index(vs, ops);
	struct view v;

	if (i < 0)
		return;
	v = vs->v[i];
	view_remove(vs, i);
	if (v.ops->close)
		v.ops->close(vs->ui, &v);
}

struct view *view_find(struct view_stack *vs, const struct view_ops *ops)
{
	int i = view_index(vs, ops);

	return i < 0 ? NULL : &vs->v[i];
}

int view_is_open(const struct view_stack *vs, const struct view_ops *ops)
{
	return view_index(vs, ops) >= 0;
}

struct view *view_top(struct view_stack *vs)
{
	return vs->n ? &vs->v[vs->n - 1] : NULL;
}

struct view *view_below(struct view_stack *vs, const struct view *v)
{
	int i = (int)(v - vs->v);

	return i > 0 && i < vs->n ? &vs->v[i - 1] : NULL;
}

void view_draw(struct view_stack *vs)
{
	int i, from = 0, cursor = 0;

	for (i = vs->n - 1; i >= 0; i--)
		if (vs->v[i].ops->flags & VIEW_OPAQUE) {
			from = i;
			break;
		}
	for (i = 0; i < vs->n; i++)
		cursor |= vs->v[i].ops->flags & VIEW_CURSOR;
	curs_set(cursor ? 1 : 0);
	/* A view may close itself while drawing. */
	for (i = from; i < vs->n; i++)
		if (vs->v[i].ops->draw)
			vs->v[i].ops->draw(vs->ui, &vs->v[i]);
}

int view_key(struct view_stack *vs, int key)
{
	struct view *v = view_top(vs);
	int r;

	if (!v)
		return 0;
	/* help and the lists: the keys that work over any of them, in one
	 * place (an overlay such as the region summary passes keys on) */
	if (vs->shared_key && v != vs->v && (v->ops->flags & VIEW_OPAQUE) &&
	    !(v->ops->flags & VIEW_TOPMOST) && (r = vs->shared_key(vs->ui, v, key)) >= 0)
		return r;
	return v->ops->key ? v->ops->key(vs->ui, v, key) : 0;
}

void view_resize(struct view_stack *vs)
{
	const struct view_ops *ops[VIEW_MAX];
	int i, n = vs->n;

	/* A resize may push or close views (the too-small screen). */
	for (i = 0; i < n; i++)
		ops[i] = vs->v[i].ops;
	for (i = 0; i < n; i++) {
		struct view *v = view_find(vs, ops[i]);

		if (v && v->ops->resize)
			v->ops->resize(vs->ui, v);
	}
}

void view_close_all(struct view_stack *vs)
{
	while (vs->n)
		view_close(vs, vs->v[vs->n - 1].ops);
}
