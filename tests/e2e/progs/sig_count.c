/* sig_count.c - a SIGALRM every 20 us whose handler calls tick(), while
 * main calls work() 300,000 times (or argv[1] times): many signals land
 * inside the tracer's hooks, where the handler's calls cannot be recorded
 * (counted as reentrant). Prints "done"; stderr gets "calls N", every call of a traced
 * function (work and tick: main and the handler are not traced), which
 * the trace's events and its reentrant drops must add up to. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#define CALLS 300000

/* One counter per context: a handler's increment between work()'s load
 * and store of a shared one would be lost. */
static volatile unsigned long ticks, works;

__attribute__((noinline)) void tick(void)
{
	ticks++;
}

__attribute__((noinline)) void work(void)
{
	works++;
}

__attribute__((no_instrument_function)) static void on_alarm(int sig)
{
	(void)sig;
	tick();
}

__attribute__((no_instrument_function)) int main(int argc, char **argv)
{
	int calls = argc > 1 ? atoi(argv[1]) : CALLS;
	struct sigaction sa;
	struct itimerval it = { { 0, 20 }, { 0, 20 } };
	sigset_t block;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	for (int i = 0; i < calls; i++)
		work();
	sigemptyset(&block);
	sigaddset(&block, SIGALRM);
	sigprocmask(SIG_BLOCK, &block, NULL);
	printf("done\n");
	fprintf(stderr, "calls %lu\n", ticks + works);
	return 0;
}
