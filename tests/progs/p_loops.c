/* Loops, recursion, a switch (a jump table), indirect calls through a
 * table, a callback from the shared library, a string instruction.
 * With an argument it fails at once (exit status 7). */
#include <string.h>
#include <unistd.h>

#include "ptbdemo.h"

static int sq(int x) { return x * x; }
static int twice(int x) { return 2 * x; }
static int neg(int x) { return -x; }
static int (*const ops[])(int) = { sq, twice, neg };

static __attribute__((noinline)) int fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static __attribute__((noinline)) int classify(int v)
{
	switch (v & 7) {
	case 0: return 11;
	case 1: return 23;
	case 2: return v * 3;
	case 3: return v ^ 5;
	case 4: return 7;
	case 5: return v - 9;
	default: return 1;
	}
}

int main(int argc, char **argv)
{
	int a[24], i;
	long s = 0;
	char buf[64];

	if (argc > 1)
		return 7;	/* a failing program, for the tests */
	for (i = 0; i < 24; i++)
		a[i] = (i * 7919) % 31;
	demo_sort(a, 24);
	for (i = 0; i < 30; i++)
		s += ops[i % 3](i) + classify(i);
	s += fib(10);
	s += demo_map_sum(a, 24, sq);
	s += demo_hash(a, sizeof(a));
	memset(buf, 'x', sizeof(buf));
	buf[0] = (char)('a' + (s & 15));
	buf[1] = '\n';
	return write(1, buf, 2) == 2 ? 0 : 1;
}
