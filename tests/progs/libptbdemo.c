/* libptbdemo.so -- see ptbdemo.h. */
#include "ptbdemo.h"

uint32_t demo_hash(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint32_t h = 2166136261u;

	while (n--)
		h = (h ^ *b++) * 16777619u;
	return h;
}

void demo_sort(int *a, size_t n)
{
	size_t i, j;

	for (i = 1; i < n; i++) {
		int v = a[i];

		for (j = i; j > 0 && a[j - 1] > v; j--)
			a[j] = a[j - 1];
		a[j] = v;
	}
}

long demo_map_sum(const int *a, size_t n, int (*fn)(int))
{
	long s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += fn(a[i]);
	return s;
}
