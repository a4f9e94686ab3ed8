/* fork_jump.c - a timer's handler siglongjmps out of fork().
 *
 * fork is async-signal-safe, so a handler may jump out of a signal that
 * interrupts it, e.g. a timeout around fork: ROUNDS forks, each with a
 * timer of a few microseconds armed whose handler siglongjmps back. The
 * children _exit at once; they are reaped at the end. Then work() is called
 * CALLS times: those calls must be traced (the jumps must not leave the
 * runtime's guard or its locks taken). main is not instrumented. */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#define ROUNDS 300
#define CALLS 1000

static sigjmp_buf env;
static volatile unsigned long sink;

__attribute__((noinline)) void work(unsigned long i)
{
	sink += i;
}

__attribute__((no_instrument_function)) static void on_alarm(int sig)
{
	(void)sig;
	siglongjmp(env, 1);
}

__attribute__((no_instrument_function)) static void arm(long us)
{
	struct itimerval it = { { 0, 0 }, { 0, us } };

	setitimer(ITIMER_REAL, &it, NULL);
}

__attribute__((no_instrument_function)) int main(void)
{
	struct sigaction sa;
	int jumped = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	for (int i = 0; i < ROUNDS; i++) {
		if (sigsetjmp(env, 1)) {
			jumped++;
			continue;
		}
		arm(10 + i % 90);
		if (fork() == 0)
			_exit(0);
		arm(0);
	}
	arm(0);
	while (wait(NULL) > 0)
		;
	for (unsigned long i = 0; i < CALLS; i++)
		work(i);
	printf("sum %lu\n", sink);
	fprintf(stderr, "jumped out %d times\n", jumped);
	return 0;
}
