/* listnav -- moving a list view's selection. */
#include <curses.h>

#include "listnav.h"

int listnav_key(struct listnav *ln, int key, long n, long h)
{
	switch (key) {
	case 'j': case KEY_DOWN: case 14:
		if (ln->sel + 1 < n)
			ln->sel++;
		return 1;
	case 'k': case KEY_UP: case 16:
		if (ln->sel > 0)
			ln->sel--;
		return 1;
	case KEY_NPAGE: case ' ':
		ln->sel = ln->sel + h < n ? ln->sel + h : n ? n - 1 : 0;
		return 1;
	case KEY_PPAGE: case 'b':
		ln->sel = ln->sel > h ? ln->sel - h : 0;
		return 1;
	case 'g': case KEY_HOME: case '<':
		ln->sel = 0;
		return 1;
	case 'G': case KEY_END: case '>':
		ln->sel = n ? n - 1 : 0;
		return 1;
	default:
		return 0;
	}
}

void listnav_fit(struct listnav *ln, long n, long h)
{
	if (ln->sel >= n)
		ln->sel = n ? n - 1 : 0;
	if (ln->sel < ln->top)
		ln->top = ln->sel;
	if (ln->sel >= ln->top + h)
		ln->top = ln->sel - h + 1;
}
