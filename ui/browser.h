/*
 * browser -- the browser view (view.h): the packet, cycle and timeline
 * panes, the header and the status line; the bottom of the view stack.
 */
#ifndef BROWSER_H
#define BROWSER_H

struct ui;

/* The browser view, pushed first. */
extern const struct view_ops browser_view;

/* Compute the panes' rectangles from ui->rows and ui->cols; below 20x6
 * the too-small screen covers everything until the screen grows. */
void browser_layout(struct ui *ui);

/* One key from the terminal or a script: a resize or a mouse event here,
 * the rest to the view on top.  Returns UI_DRAW_*. */
int browser_input(struct ui *ui, int c);

/* describe-key: the browser's next key sequence is described, not run. */
void browser_describe(struct ui *ui);

#endif /* BROWSER_H */
