/* range -- TRACE[:FROM[-TO]] on the command line (see range.h). */
#include "range.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int range_split(char *arg, uint64_t *from, uint64_t *to, int *have_to)
{
	char *colon = strrchr(arg, ':'), *end;
	uint64_t a, b;

	*have_to = 0;
	if (!colon || !colon[1])
		return 0;
	errno = 0;
	a = strtoull(colon + 1, &end, 0);
	if (errno || end == colon + 1)
		return 0;
	if (*end == 0) {
		*from = a;
		*colon = 0;
		return 1;
	}
	if (*end != '-')
		return 0;
	b = strtoull(end + 1, &end, 0);
	if (errno || *end)
		return 0;
	if (b <= a)
		return -1;
	*from = a;
	*to = b;
	*have_to = 1;
	*colon = 0;
	return 1;
}
