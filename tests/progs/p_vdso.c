/* Calls into the vDSO (clock_gettime, gettimeofday): code with no file
 * behind it, which ptrecord keeps in a build-ID cache as perf record does. */
#include <sys/time.h>
#include <time.h>

int main(void)
{
	struct timespec ts;
	struct timeval tv;
	long s = 0;
	int i;

	for (i = 0; i < 3; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		gettimeofday(&tv, NULL);
		s += ts.tv_nsec & 1;
	}
	return (int)(s & 0);
}
