/*
 * ctsum -- a range's top functions as text lines, for region summaries
 * (the browser's marks list and :regions A B, `ptbrowse marks --summary`):
 * the functions of a call tree (calltree.h's flat profile) sorted by
 * cycles, instructions or calls, each with its cycles, instructions and
 * calls, and, for a second range, the same function's there beside them.
 * Cycles as ct_sum_str() writes them: never a number the trace does not
 * give.
 */
#ifndef CTSUM_H
#define CTSUM_H

#include <stddef.h>

#include "calltree.h"

/* The longest line written (with its NUL). */
#define CTSUM_LINE 160

/* The head line and the top @n functions of @a by @order into @out (at
 * most @max lines): cycles, instructions, calls and the name ("[file]"
 * for a code segment without symbols), with @b's values of the function
 * of the same name beside @a's (columns "A ..." and "B ..."; "-" where @b
 * has no such function) when @b is not NULL.
 * Returns the number of lines written (0 if @max is 0 or @a NULL). */
size_t ctsum_lines(const struct ct *a, const struct ct *b, enum ct_order order,
		   size_t n, char (*out)[CTSUM_LINE], size_t max);

#endif /* CTSUM_H */
