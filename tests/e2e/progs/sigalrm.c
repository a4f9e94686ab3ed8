/* sigalrm.c - a SIGALRM handler that calls traced functions.
 *
 * spin() arms a 1 ms interval timer, then loops without calling anything
 * until the handler has run five times; the fifth run disarms the timer, so
 * exactly five signals arrive, all while spin() is looping. Each handler run
 * (on_alarm) calls tick(): the tracer must nest those calls under spin(), the
 * frame the signal interrupted.
 *
 * Prints "ticks 5, spun" and exits 0.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

#define TICKS 5

static volatile sig_atomic_t ticks;

__attribute__((noinline)) static void tick(void)
{
	ticks++;
}

static void on_alarm(int sig)
{
	(void)sig;
	tick();
	if (ticks == TICKS) {
		struct itimerval off;

		memset(&off, 0, sizeof(off));
		setitimer(ITIMER_REAL, &off, NULL);
	}
}

__attribute__((noinline)) static unsigned long spin(void)
{
	struct itimerval every = { { 0, 1000 }, { 0, 1000 } };
	unsigned long loops = 0;

	setitimer(ITIMER_REAL, &every, NULL);
	while (ticks < TICKS)
		loops++;
	return loops;
}

int main(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	printf("ticks %d, %s\n", (int)(spin() > 0 ? ticks : -1), "spun");
	return 0;
}
