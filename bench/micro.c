/* micro.c - the microbenchmark: a loop calling a small function pair.
 *
 *   micro [ITERATIONS] [flat|nested] [MARK_EVERY]   (default 15000000 flat)
 *
 * flat: every iteration calls bench_f and bench_g from the loop, two calls
 * and two returns, so N iterations are 4N events, all at depth 1 below main.
 * nested: every iteration calls bench_pair, which calls the same two leaves:
 * three calls and three returns, 6N events, a caller with two leaf callees
 * (a return to a frame that is still open, as in most real call trees).
 * MARK_EVERY (flat only): ada_mark("micro") (ada.h) after every MARK_EVERY
 * events of the loop, rounded down to whole iterations: a detail window's
 * trigger at a steady rate (issue 13). Without it the loop is unchanged.
 * The loop's own thread CPU time is measured here, around the loop only, and
 * printed to stderr as "app_thread_ns <ns> events <n>": the tracer's cost in
 * the traced thread, apart from start-up, exit and any helper threads or
 * processes (those are in the driver's total CPU).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ada.h"

__attribute__((noinline)) long bench_f(long x)
{
	return x + 1;
}

__attribute__((noinline)) long bench_g(long x)
{
	return x ^ 3;
}

/* Work after the second call, so that it is a call and not a jump (a tail
 * call would return from bench_g straight to the loop). */
__attribute__((noinline)) long bench_pair(long x)
{
	return bench_g(bench_f(x)) + x;
}

/* The flat loop with a mark every `every` iterations. */
static long flat_marked(long n, long every)
{
	long s = 0, i = 0;

	while (i < n) {
		long end = n - i > every ? i + every : n;

		for (; i < end; i++)
			s = bench_g(bench_f(s));
		ada_mark("micro");
	}
	return s;
}

static long long thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 15000000, s = 0, i;
	int nested = argc > 2 && strcmp(argv[2], "nested") == 0;
	long every = argc > 3 ? atol(argv[3]) / 4 : 0;
	long long t0;

	if (argc > 2 && !nested && strcmp(argv[2], "flat") != 0) {
		fprintf(stderr, "micro: shape '%s': expected flat or nested\n", argv[2]);
		return 2;
	}
	if (argc > 3 && (nested || every < 1)) {
		fprintf(stderr, "micro: MARK_EVERY '%s': expected 4 events or more, with the flat shape\n", argv[3]);
		return 2;
	}
	t0 = thread_ns();
	if (every)
		s = flat_marked(n, every);
	else if (nested)
		for (i = 0; i < n; i++)
			s = bench_pair(s);
	else
		for (i = 0; i < n; i++)
			s = bench_g(bench_f(s));
	fprintf(stderr, "app_thread_ns %lld events %ld\n", thread_ns() - t0, (nested ? 6 : 4) * n);
	printf("%ld\n", s);
	return 0;
}
