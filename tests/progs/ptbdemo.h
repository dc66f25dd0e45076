/*
 * ptbdemo.h -- the shared library of the programs that tools/ptrecord
 * records in tests and for the sample: a little real work behind a PLT.
 */
#ifndef PTBDEMO_H
#define PTBDEMO_H

#include <stddef.h>
#include <stdint.h>

/* FNV-1a over @n bytes of @p. */
uint32_t demo_hash(const void *p, size_t n);
/* Insertion sort of @n ints. */
void demo_sort(int *a, size_t n);
/* Calls @fn on each of @n ints and sums the results: a callback back
 * into the program. */
long demo_map_sum(const int *a, size_t n, int (*fn)(int));

#endif
