/* setjmp/longjmp out of a recursion: returns that do not match the calls. */
#include <setjmp.h>

static jmp_buf env;

static __attribute__((noinline)) int dive(int depth, int limit)
{
	if (depth == limit)
		longjmp(env, depth);
	if (depth > 100)
		return 0;
	return dive(depth + 1, limit) + 1;
}

static __attribute__((noinline)) int climb(int n)
{
	return n ? climb(n - 1) + 1 : 0;
}

int main(void)
{
	volatile int total = 0, round = 0;
	int v;

	v = setjmp(env);
	total += v;
	if (round < 4) {
		round++;
		dive(0, 3 + round);
	}
	/* the stack of calls and returns is sound again after the jumps */
	total += climb(5);
	return total == 4 + 5 + 6 + 7 + 5 ? 0 : 1;
}
