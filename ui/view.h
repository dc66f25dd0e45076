/*
 * view -- the stack of views the main loop draws and gives keys to.
 *
 * A view is one screen or one layer of it: the browser (the packet, cycle
 * and timeline panes), the prompt, help, the marks, streams and stalls
 * lists, the too-small screen.  The loop draws the stack from the highest
 * opaque view up (so the prompt draws its line over whatever is under it)
 * and gives every key to the view on top.  A view opens itself with
 * view_push() and leaves with view_close(); nothing else knows which
 * views are up.
 *
 * Adding a view is one file: a `const struct view_ops`, and a function
 * that pushes it (e.g. from a command's handler, cmd.h).
 */
#ifndef VIEW_H
#define VIEW_H

struct ui;
struct view;

/* Flags of a view. */
enum {
	VIEW_OPAQUE = 1 << 0,	/* draws the whole screen: views under it
				 * are not drawn */
	VIEW_CURSOR = 1 << 1,	/* shows the terminal's cursor (the prompt) */
	VIEW_TOPMOST = 1 << 2,	/* stays above views pushed after it (the
				 * too-small screen) */
};

struct view_ops {
	const char *name;	/* "browser", "prompt", "help", ... */
	unsigned flags;		/* VIEW_* */
	/* Draw into stdscr (not refreshed).  NULL: draws nothing. */
	void (*draw)(struct ui *ui, struct view *v);
	/* A key (keymap.h codes; KEY_RESIZE and KEY_MOUSE never come
	 * here).  Returns what needs redrawing (UI_DRAW_*). */
	int (*key)(struct ui *ui, struct view *v, int key);
	/* The screen's size changed (ui->rows, ui->cols).  NULL: nothing. */
	void (*resize)(struct ui *ui, struct view *v);
	/* The view leaves the stack (view_close()).  NULL: nothing. */
	void (*close)(struct ui *ui, struct view *v);
};

struct view {
	const struct view_ops *ops;
	void *priv;		/* the view's own, given to view_push() */
};

/* The most views stacked at once. */
#define VIEW_MAX 12

/* The stack, bottom first; zeroed is empty.  Its views' ops get @ui. */
struct view_stack {
	struct ui *ui;
	struct view v[VIEW_MAX];
	int n;
	/* The keys every opaque view over the bottom one (help, a list)
	 * shares, asked before the view's own key op: returns UI_DRAW_* if
	 * it took @key, -1 if not.  NULL: none. */
	int (*shared_key)(struct ui *ui, struct view *v, int key);
};

/* Put view @ops on top of the stack (under any VIEW_TOPMOST view), with
 * @priv.  A view is in the stack at most once: one already there moves to
 * the top and takes @priv.
 * Returns 0, or -pte_internal if the stack is full (a bug). */
int view_push(struct view_stack *vs, const struct view_ops *ops, void *priv);

/* Take view @ops out of the stack, calling its close op; nothing if it
 * is not there. */
void view_close(struct view_stack *vs, const struct view_ops *ops);

/* View @ops in the stack, or NULL if it is not there. */
struct view *view_find(struct view_stack *vs, const struct view_ops *ops);

/* Whether view @ops is in the stack. */
int view_is_open(const struct view_stack *vs, const struct view_ops *ops);

/* The view on top, or NULL if the stack is empty. */
struct view *view_top(struct view_stack *vs);

/* The view just under @v, or NULL. */
struct view *view_below(struct view_stack *vs, const struct view *v);

/* Draw the stack into stdscr: from the highest opaque view up. */
void view_draw(struct view_stack *vs);

/* Give @key to the view on top (an opaque view over the bottom one, not
 * VIEW_TOPMOST: to vs->shared_key first).  Returns what its key op
 * returns (UI_DRAW_*), 0 if the stack is empty. */
int view_key(struct view_stack *vs, int key);

/* Tell every view the screen's size changed, bottom up. */
void view_resize(struct view_stack *vs);

/* Close every view, top down (the browser ends). */
void view_close_all(struct view_stack *vs);

#endif /* VIEW_H */
