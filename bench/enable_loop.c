/* enable_loop.c - the running process that issue 14's enable latency is
 * measured on (bench/enable_latency.c starts it and switches its tracing on
 * and off).
 *
 *   enable_loop          (no arguments)
 *
 * Built with adacc --ada-mode=patchable and run with ADA_TRACE=off: it calls
 * el_hot() once every PERIOD_NS (a busy wait on CLOCK_MONOTONIC between the
 * calls, so a call is never more than about a microsecond away, and the
 * trace of a 200 ms enabled span stays small) until its standard input ends.
 * Only el_hot is instrumented: main and the pacing are not, so every CALL in
 * the trace is one of el_hot's, made while recording was on.
 * Prints "ready" on stdout once main runs (the runtime has started, and its
 * start-up pass has patched the sites, before main), and at the end
 * "enable_loop calls N" on stderr. Run it with ADA_DYNHOOK=off: the pacing's
 * clock_gettime would otherwise be a hooked library call.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <time.h>

/* Not traced: patchable mode's NOPs need an attribute of their own. */
#define NOT_TRACED __attribute__((no_instrument_function, patchable_function_entry(0, 0)))
#define PERIOD_NS 1000LL
#define CALLS_PER_LOOK 1000 /* calls between two looks at standard input */

__attribute__((noinline)) long el_hot(long x)
{
	return x * 3 + 1;
}

NOT_TRACED static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

NOT_TRACED int main(void)
{
	struct pollfd in = { .fd = 0, .events = POLLIN };
	long long last = now_ns(), t;
	long s = 0, calls = 0;

	printf("ready\n");
	fflush(stdout);
	/* Standard input readable: its end (or anything written) stops the
	 * loop; a signal (the toggle) interrupting poll does not. */
	for (;;) {
		int ready = poll(&in, 1, 0);

		if (ready > 0 || (ready < 0 && errno != EINTR))
			break;
		for (int i = 0; i < CALLS_PER_LOOK; i++) {
			s = el_hot(s);
			do
				t = now_ns();
			while (t < last + PERIOD_NS);
			last = t;
		}
		calls += CALLS_PER_LOOK;
	}
	fprintf(stderr, "enable_loop calls %ld sum %ld\n", calls, s);
	return 0;
}
