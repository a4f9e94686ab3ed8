/* sigjmp_hook.c - a SIGALRM handler that siglongjmps out, every 50 us.
 *
 * main loops calling work() until 2,000,000 calls; the interval timer's
 * handler jumps back to the loop's sigsetjmp. Most signals land inside the
 * tracer's hooks (they are a good part of the loop's time), and a
 * siglongjmp out of a handler that interrupted a hook leaves that hook
 * without releasing its reentrancy guard: the runtime must take the guard
 * back, or the thread records nothing more. Prints "done"; the call and
 * jump counts go to stderr (they depend on timing). */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

#define CALLS 2000000

static sigjmp_buf back;
static volatile unsigned long calls, jumps;

__attribute__((noinline)) void work(void)
{
	calls++;
}

__attribute__((no_instrument_function)) static void on_alarm(int sig)
{
	(void)sig;
	jumps++;
	siglongjmp(back, 1);
}

__attribute__((no_instrument_function)) int main(void)
{
	struct sigaction sa;
	struct itimerval it = { { 0, 50 }, { 0, 50 } };

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	/* The jump target first: a timer armed before it could fire (on a
	 * busy machine) into an empty jmp_buf. */
	if (!sigsetjmp(back, 1))
		setitimer(ITIMER_REAL, &it, NULL);
	while (calls < CALLS)
		work();
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	printf("done\n");
	fprintf(stderr, "calls %lu jumps %lu\n", calls, jumps);
	return 0;
}
