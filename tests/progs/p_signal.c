#define _GNU_SOURCE
/* A signal handler entered from a system call (raise) and from a fault
 * (an illegal instruction); the handler returns through sigreturn. */
#include <signal.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t hits;

static void on_usr1(int sig)
{
	hits += sig == SIGUSR1;
}

static void on_ill(int sig, siginfo_t *si, void *uc)
{
	/* skip the two-byte ud2 */
	((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP] += 2;
	hits += 10;
}

int main(void)
{
	struct sigaction sa;
	int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = NULL;
	sa.sa_sigaction = on_ill;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGILL, &sa, NULL);
	for (i = 0; i < 3; i++)
		raise(SIGUSR1);
	__asm__ volatile("ud2");
	return hits == 13 ? 0 : 1;
}
