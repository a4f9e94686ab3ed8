/* sigstorm.c - a timer signal every 10 us whose handler calls traced
 * functions, while the program calls traced functions: handlers land in
 * the middle of hooks, of ring writes, of the writer's wake-ups.
 *
 *   sigstorm [signals, default 20000]
 *
 * The program calls until its handler has run that many times: a signal
 * costs tens of microseconds on a virtual machine, so at 10 us the program
 * gets little time between handlers, plain or traced, and a fixed amount
 * of work would take minutes under a tracer. stdout says whether the main
 * loop's sum is right (the rounds it made vary from run to run).
 */
#include <signal.h>
#include <stdlib.h>
#include <time.h>

enum { F_MAIN, F_ON_TICK, F_TICK_WORK, F_WORK, F_LEAF, NF };
static const char *const names[NF] = { "main", "on_tick", "tick_work", "work", "leaf" };
#include "stress.h"

static volatile long ticks_sum;

TRACED static long leaf(long x)
{
	COUNT(F_LEAF);
	return x * 7 + 3;
}

TRACED static long tick_work(long x)
{
	COUNT(F_TICK_WORK);
	return leaf(x) + 1;
}

TRACED static void on_tick(int sig)
{
	COUNT(F_ON_TICK);
	ticks_sum += tick_work(sig);
}

TRACED static long work(long i)
{
	COUNT(F_WORK);
	return leaf(i) - leaf(i - 1);
}

int main(int argc, char **argv)
{
	long signals = argc > 1 ? atol(argv[1]) : 20000, sum = 0, rounds = 0;
	struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGALRM };
	struct itimerspec every = { .it_interval = { 0, 10000 }, .it_value = { 0, 10000 } };
	struct sigaction sa = { .sa_handler = on_tick, .sa_flags = SA_RESTART };
	sigset_t block;
	timer_t timer;

	COUNT(F_MAIN);
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, NULL) || timer_create(CLOCK_MONOTONIC, &sev, &timer) ||
	    timer_settime(timer, 0, &every, NULL))
		return 1;
	while (__atomic_load_n(&counts[F_ON_TICK], __ATOMIC_RELAXED) < signals)
		sum += work(rounds++);
	sigemptyset(&block);
	sigaddset(&block, SIGALRM);
	sigprocmask(SIG_BLOCK, &block, NULL);
	timer_delete(timer);
	/* work(i) = leaf(i) - leaf(i - 1) = 7 */
	printf("sum %s\n", sum == 7 * rounds ? "right" : "wrong");
	fprintf(stderr, "rounds %ld, signals %ld\n", rounds, counts[F_ON_TICK]);
	report(counts);
	return 0;
}
