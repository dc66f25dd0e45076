/* listnav -- the selection of a list view (marks, streams, stalls): the
 * keys every list shares and keeping the selection on the screen. */
#ifndef LISTNAV_H
#define LISTNAV_H

/* A list's selected row and first row shown. */
struct listnav {
	long sel, top;
};

/* Move the selection for @key over @n rows, @h shown at once: j k Down
 * Up C-n C-p, Space b PgDn PgUp, g G Home End < >.
 * Returns 1 if @key is one of those, 0 if not (the view's own key). */
int listnav_key(struct listnav *ln, int key, long n, long h);

/* Keep the selection inside @n rows and the first row shown so that the
 * selection is among the @h shown. */
void listnav_fit(struct listnav *ln, long n, long h);

#endif /* LISTNAV_H */
