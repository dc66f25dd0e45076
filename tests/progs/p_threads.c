/* Threads: workers hash and sort through the shared library, meet at a
 * mutex, and one gets a signal from another (pthread_kill). */
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include "ptbdemo.h"

#define WORKERS 3

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long total;
static volatile sig_atomic_t pinged;

static void on_usr2(int sig)
{
	pinged = 1;
}

static void *work(void *arg)
{
	int a[32], i, id = (int)(long)arg, rounds = 1 + id;
	long s = 0;

	while (rounds--) {
		for (i = 0; i < 32; i++)
			a[i] = (i * 37 + id * 11 + rounds) % 53;
		demo_sort(a, 32);
		s += demo_hash(a, sizeof(a));
	}
	pthread_mutex_lock(&lock);
	total += s & 0xffff;
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(void)
{
	pthread_t t[WORKERS];
	struct sigaction sa = { .sa_handler = on_usr2 };
	long i;

	sigaction(SIGUSR2, &sa, NULL);
	for (i = 0; i < WORKERS; i++)
		pthread_create(&t[i], NULL, work, (void *)i);
	pthread_kill(t[0], SIGUSR2);
	for (i = 0; i < WORKERS; i++)
		pthread_join(t[i], NULL);
	return total > 0 ? 0 : 1;
}
