/* view -- the stack of views: push, close, draw, keys, resize. */
#include <curses.h>
#include <string.h>

#include "ptdec.h"
#include "ui.h"
#include "view.h"

static int view_index(const struct ui *ui, const struct view_ops *ops)
{
	int i;

	for (i = 0; i < ui->nviews; i++)
		if (ui->views[i].ops == ops)
			return i;
	return -1;
}

static void view_remove(struct ui *ui, int i)
{
	memmove(&ui->views[i], &ui->views[i + 1],
		(size_t)(ui->nviews - i - 1) * sizeof(ui->views[0]));
	ui->nviews--;
}

int view_push(struct ui *ui, const struct view_ops *ops, void *priv)
{
	int i = view_index(ui, ops), at;

	if (i >= 0)
		view_remove(ui, i);
	if (ui->nviews >= VIEW_MAX)
		return -pte_internal;
	at = ui->nviews;
	if (!(ops->flags & VIEW_TOPMOST))
		while (at > 0 && (ui->views[at - 1].ops->flags & VIEW_TOPMOST))
			at--;
	memmove(&ui->views[at + 1], &ui->views[at],
		(size_t)(ui->nviews - at) * sizeof(ui->views[0]));
	ui->views[at] = (struct view){ ops, priv };
	ui->nviews++;
	return 0;
}

void view_close(struct ui *ui, const struct view_ops *ops)
{
	int i = view_index(ui, ops);
	struct view v;

	if (i < 0)
		return;
	v = ui->views[i];
	view_remove(ui, i);
	if (v.ops->close)
		v.ops->close(ui, &v);
}

struct view *view_find(struct ui *ui, const struct view_ops *ops)
{
	int i = view_index(ui, ops);

	return i < 0 ? NULL : &ui->views[i];
}

int view_is_open(const struct ui *ui, const struct view_ops *ops)
{
	return view_index(ui, ops) >= 0;
}

struct view *view_top(struct ui *ui)
{
	return ui->nviews ? &ui->views[ui->nviews - 1] : NULL;
}

struct view *view_below(struct ui *ui, const struct view *v)
{
	int i = (int)(v - ui->views);

	return i > 0 && i < ui->nviews ? &ui->views[i - 1] : NULL;
}

void view_draw(struct ui *ui)
{
	int i, from = 0, cursor = 0;

	for (i = ui->nviews - 1; i >= 0; i--)
		if (ui->views[i].ops->flags & VIEW_OPAQUE) {
			from = i;
			break;
		}
	for (i = 0; i < ui->nviews; i++)
		cursor |= ui->views[i].ops->flags & VIEW_CURSOR;
	curs_set(cursor ? 1 : 0);
	/* A view may close itself while drawing (a list left empty). */
	for (i = from; i < ui->nviews; i++)
		if (ui->views[i].ops->draw)
			ui->views[i].ops->draw(ui, &ui->views[i]);
}

int view_key(struct ui *ui, int key)
{
	struct view *v = view_top(ui);

	return v && v->ops->key ? v->ops->key(ui, v, key) : UI_DRAW_NONE;
}

void view_resize(struct ui *ui)
{
	const struct view_ops *ops[VIEW_MAX];
	int i, n = ui->nviews;

	/* A resize may push or close views (the too-small screen). */
	for (i = 0; i < n; i++)
		ops[i] = ui->views[i].ops;
	for (i = 0; i < n; i++) {
		struct view *v = view_find(ui, ops[i]);

		if (v && v->ops->resize)
			v->ops->resize(ui, v);
	}
}

void view_close_all(struct ui *ui)
{
	while (ui->nviews)
		view_close(ui, ui->views[ui->nviews - 1].ops);
}
