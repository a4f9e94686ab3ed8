/* hijack_signal.c - signal handlers that call traced functions.
 *
 * argv[1] says how the signal comes:
 *   raise    work() calls raise(SIGUSR1): the handler runs before raise()
 *            returns, inside work();
 *   timer    spin() arms a 1 ms one-shot timer and loops, calling nothing,
 *            until the handler has run five times (each of the first four
 *            runs arms it again, so exactly five signals come however the
 *            process is scheduled): every signal interrupts spin() itself,
 *            never a hook or a trampoline;
 * and argv[2] where the handler runs:
 *   stack    on the thread's stack, below the interrupted frame;
 *   alt      on an alternate signal stack (sigaltstack, SA_ONSTACK) in
 *            memory from malloc();
 *   caller   on an alternate signal stack that is an array in main()'s
 *            frame: on the thread's stack, but above the interrupted frame.
 * The handler, on_signal(), calls tick(). Its frames must nest under the
 * interrupted one (work or spin) in every case, and the interrupted frame
 * must return normally afterwards.
 *
 * Prints "raise: 1 ticks, <where>" or "timer: 5 ticks, <where>"; exits 0.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#define TIMER_TICKS 5
#define ALT_SIZE (64 * 1024)

static volatile sig_atomic_t ticks;
static int timer_mode;
static const struct itimerval once = { { 0, 0 }, { 0, 1000 } };

__attribute__((noinline)) void tick(void)
{
	ticks++;
}

__attribute__((noinline)) void on_signal(int sig)
{
	(void)sig;
	tick();
	if (timer_mode && ticks < TIMER_TICKS)
		setitimer(ITIMER_REAL, &once, NULL);
}

__attribute__((noinline)) int work(void)
{
	raise(SIGUSR1);
	return ticks;
}

__attribute__((noinline)) int spin(void)
{
	setitimer(ITIMER_REAL, &once, NULL);
	while (ticks < TIMER_TICKS)
		;
	return ticks;
}

__attribute__((no_instrument_function)) static int use_altstack(void *mem)
{
	stack_t ss;

	memset(&ss, 0, sizeof(ss));
	ss.ss_sp = mem;
	ss.ss_size = ALT_SIZE;
	return sigaltstack(&ss, NULL);
}

int main(int argc, char **argv)
{
	char frame_stack[ALT_SIZE] __attribute__((aligned(16)));
	const char *how = argc > 1 ? argv[1] : "raise";
	const char *where = argc > 2 ? argv[2] : "stack";
	struct sigaction sa;
	int got;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	if (strcmp(where, "alt") == 0 && use_altstack(malloc(ALT_SIZE)) != 0)
		return 2;
	if (strcmp(where, "caller") == 0 && use_altstack(frame_stack) != 0)
		return 2;
	if (strcmp(where, "stack") != 0)
		sa.sa_flags = SA_ONSTACK;
	timer_mode = strcmp(how, "timer") == 0;
	sigaction(timer_mode ? SIGALRM : SIGUSR1, &sa, NULL);
	got = timer_mode ? spin() : work();
	printf("%s: %d ticks, %s\n", how, got, where);
	return 0;
}
