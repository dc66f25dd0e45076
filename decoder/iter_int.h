/* iter_int -- what iter.c (the walk) and iter_stats.c (the measures)
 * share inside the iter module. */
#ifndef ITER_INT_H
#define ITER_INT_H

#include <stddef.h>
#include <stdint.h>

#include "iter.h"

/* The iterations between consecutive boundaries of @b[@nb], but those
 * ending at a boundary @cut marks (NULL: none), into @v[*@n] (room for
 * @nb - 1), the statistics of the measured ones in @st (times in ns as
 * @cfg converts TSCs; NULL or none: ticks), and, if @order is not NULL,
 * their indexes slowest first by iter_value() (ties in boundary order)
 * into a new array *@order.  Returns 0 or -pte_nomem. */
int iter_measure_all(const struct iter_bound *b, size_t nb, const uint8_t *cut,
		     const struct tm_config *cfg, struct iter_item *v, size_t *n,
		     struct iter_stats *st, size_t **order);

#endif /* ITER_INT_H */
