/* micro.c - the microbenchmark: a loop calling a small function pair.
 *
 * Every iteration is two calls and two returns, so N iterations are 4N
 * events. The loop's own thread CPU time is measured here, around the loop
 * only, and printed to stderr as "app_thread_ns <ns>": the tracer's cost in the
 * traced thread, apart from start-up, exit and any helper threads or
 * processes (those are in the driver's total CPU).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) long bench_f(long x)
{
	return x + 1;
}

__attribute__((noinline)) long bench_g(long x)
{
	return x ^ 3;
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
	long long t0 = thread_ns();

	for (i = 0; i < n; i++)
		s = bench_g(bench_f(s));
	fprintf(stderr, "app_thread_ns %lld events %ld\n", thread_ns() - t0, 4 * n);
	printf("%ld\n", s);
	return 0;
}
