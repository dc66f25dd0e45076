/* range -- TRACE[:FROM[-TO]] on the command line (dump, flow). */
#ifndef RANGE_H
#define RANGE_H

#include <stdint.h>

/* Split "FILE:FROM[-TO]" in @arg as ptdump does: only if the suffix parses
 * as numbers (C notation), so a file name holding a colon stays whole.  On
 * a split, @arg is cut at the colon and *@from (and *@to, *@have_to) set.
 * Returns 1 if split, 0 if @arg is a plain file name (*@have_to 0), or -1
 * if TO is not above FROM. */
int range_split(char *arg, uint64_t *from, uint64_t *to, int *have_to);

#endif /* RANGE_H */
