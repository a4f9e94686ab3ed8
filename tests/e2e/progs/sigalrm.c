/* sigalrm.c - a SIGALRM handler that calls traced functions.
 *
 * spin() arms a 1 ms one-shot timer, then loops without calling anything
 * until the handler has run five times; each of the first four runs arms the
 * timer again. A one-shot timer is never pending twice, so exactly five
 * signals arrive, all while spin() is looping, however late the process gets
 * the CPU (an interval timer can fire again while the fifth run disarms it).
 * Each handler run (on_alarm) calls tick(): the tracer must nest those calls
 * under spin(), the frame the signal interrupted.
 *
 * Prints "ticks 5, spun" and exits 0.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

#define TICKS 5

static volatile sig_atomic_t ticks;
static const struct itimerval once = { { 0, 0 }, { 0, 1000 } };

__attribute__((noinline)) static void tick(void)
{
	ticks++;
}

static void on_alarm(int sig)
{
	(void)sig;
	tick();
	if (ticks < TICKS)
		setitimer(ITIMER_REAL, &once, NULL);
}

__attribute__((noinline)) static int spin(void)
{
	setitimer(ITIMER_REAL, &once, NULL);
	while (ticks < TICKS)
		;
	return ticks;
}

int main(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	printf("ticks %d, %s\n", spin(), "spun");
	return 0;
}
