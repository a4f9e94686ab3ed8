/* hijack_storm.c - signals that land anywhere, trampolines included.
 *
 * An interval timer sends SIGALRM every 50 us while main() makes 300,000
 * calls to work() -> leaf(), so signals also arrive inside __fentry__ or
 * mcount, inside ada_return_trampoline and inside the C code they call.
 * The handler, on_signal(), calls tick(). Wherever a signal lands, every
 * function must return to the right place with the right value; handler
 * calls made while the thread was inside the runtime are counted as
 * reentrant, the others recorded.
 *
 * Prints "sum 45000150000" and exits 0 (the number of signals is not
 * printed: it depends on timing).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

#define CALLS 300000L

static volatile sig_atomic_t ticks;

__attribute__((noinline)) void tick(void)
{
	ticks++;
}

__attribute__((noinline)) void on_signal(int sig)
{
	(void)sig;
	tick();
}

__attribute__((noinline)) long leaf(long i)
{
	return i * 2;
}

__attribute__((noinline)) long work(long i)
{
	return leaf(i) - i + 1;
}

int main(void)
{
	struct itimerval every = { { 0, 50 }, { 0, 50 } }, off;
	struct sigaction sa;
	long sum = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &every, NULL);
	for (long i = 0; i < CALLS; i++)
		sum += work(i);
	memset(&off, 0, sizeof(off));
	setitimer(ITIMER_REAL, &off, NULL);
	printf("sum %ld\n", sum);
	return 0;
}
