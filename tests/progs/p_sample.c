/*
 * The sample program that `make sample-code` records with tools/ptrecord
 * for the browser's first screen: a main thread that counts words while
 * three named workers sort, hash and multiply matrices, partly in the
 * shared library (libptbdemo.so), meeting at a mutex-protected total.
 *
 *   p_sample [SCALE]    SCALE multiplies the work (default 1)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ptbdemo.h"

#define N 12

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long total;
static int scale = 1;

static void add_total(unsigned long v)
{
	pthread_mutex_lock(&lock);
	total += v;
	pthread_mutex_unlock(&lock);
}

static unsigned lcg(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 16;
}

static __attribute__((noinline)) int is_sorted(const int *a, int n)
{
	int i;

	for (i = 1; i < n; i++)
		if (a[i - 1] > a[i])
			return 0;
	return 1;
}

static void *sorter(void *arg)
{
	int a[64], i, round;
	unsigned seed = 1;

	pthread_setname_np(pthread_self(), "sorter");
	for (round = 0; round < 6 * scale; round++) {
		for (i = 0; i < 64; i++)
			a[i] = (int)(lcg(&seed) % 1000);
		demo_sort(a, 64);
		add_total((unsigned long)is_sorted(a, 64));
	}
	return arg;
}

static void *hasher(void *arg)
{
	char block[256];
	unsigned seed = 7;
	uint32_t h = 0;
	int i, round;

	pthread_setname_np(pthread_self(), "hasher");
	for (round = 0; round < 24 * scale; round++) {
		for (i = 0; i < (int)sizeof(block); i++)
			block[i] = (char)lcg(&seed);
		h ^= demo_hash(block, sizeof(block));
	}
	add_total(h & 0xff);
	return arg;
}

static double mul(double a, double b) { return a * b; }
static double add(double a, double b) { return a + b; }

/* c = a * b through the two operations given: indirect calls. */
static __attribute__((noinline)) void matmul(double c[N][N], double a[N][N],
					     double b[N][N],
					     double (*times)(double, double),
					     double (*plus)(double, double))
{
	int i, j, k;

	for (i = 0; i < N; i++)
		for (j = 0; j < N; j++) {
			double s = 0;

			for (k = 0; k < N; k++)
				s = plus(s, times(a[i][k], b[k][j]));
			c[i][j] = s;
		}
}

static void *matrix(void *arg)
{
	static double a[N][N], b[N][N], c[N][N];
	int i, j, round;

	pthread_setname_np(pthread_self(), "matrix");
	for (i = 0; i < N; i++)
		for (j = 0; j < N; j++) {
			a[i][j] = i + j;
			b[i][j] = i == j;
		}
	for (round = 0; round < scale; round++)
		matmul(c, a, b, mul, add);
	add_total((unsigned long)c[N - 1][N - 1]);
	return arg;
}

static const char text[] =
	"the quick brown fox jumps over the lazy dog while the cat sleeps "
	"and the dog dreams of the fox that jumps over the moon at night";

/* Words counted in a tiny open-addressing table. */
struct word {
	const char *s;
	int len, count;
};

static __attribute__((noinline)) unsigned word_hash(const char *s, int len)
{
	return demo_hash(s, (size_t)len) % 64;
}

static int count_words(struct word *tab)
{
	const char *p = text;
	int distinct = 0;

	while (*p) {
		int len = (int)strcspn(p, " ");
		unsigned h = word_hash(p, len);

		while (tab[h].s && (tab[h].len != len || memcmp(tab[h].s, p, (size_t)len)))
			h = (h + 1) % 64;
		if (!tab[h].s) {
			tab[h].s = p;
			tab[h].len = len;
			distinct++;
		}
		tab[h].count++;
		p += len;
		while (*p == ' ')
			p++;
	}
	return distinct;
}

int main(int argc, char **argv)
{
	void *(*const work[])(void *) = { sorter, hasher, matrix };
	pthread_t t[3];
	struct word tab[64];
	int i, round, distinct = 0;

	if (argc > 1)
		scale = atoi(argv[1]) > 0 ? atoi(argv[1]) : 1;
	for (i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, work[i], NULL);
	for (round = 0; round < 4 * scale; round++) {
		memset(tab, 0, sizeof(tab));
		distinct = count_words(tab);
	}
	add_total((unsigned long)distinct);
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	return total ? 0 : 1;
}
