/* ring.c - calls at known positions for the ring-mode tests
 * (tests/e2e/test_ring.c). main is not instrumented; run(n) calls step(i)
 * n times, and step(i) calls leaf() twice: run's CALL is position 0, step
 * i's CALL 1 + 6i, run's RETURN 6n + 1.
 *   exit N       run(N), then exit
 *   kill N       run(N), then SIGKILL
 *   segv N       run(N), then a write through a null pointer
 *   snapshot N   two threads run(N); main calls ada_snapshot() while both
 *                wait, then each runs run(100) and ends
 * Prints the sum of the results, which the plain build prints too. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ada.h"

/* Not traced in any mode (patchable mode's NOPs have an attribute of their own). */
#define NOT_TRACED __attribute__((no_instrument_function, patchable_function_entry(0, 0)))

volatile long *nowhere; /* NULL: where segv writes */

__attribute__((noinline)) long leaf(long x)
{
	return x + 1;
}

__attribute__((noinline)) long step(long i)
{
	return leaf(i) + leaf(i + 1);
}

__attribute__((noinline)) long run(long n)
{
	long sum = 0;

	for (long i = 0; i < n; i++)
		sum += step(i);
	return sum;
}

static pthread_barrier_t before, after;

NOT_TRACED static void *worker(void *arg)
{
	long sum = run(*(long *)arg);

	pthread_barrier_wait(&before);
	pthread_barrier_wait(&after);
	return (void *)(sum + run(100));
}

NOT_TRACED int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 1000, sum = 0;

	if (argc > 1 && !strcmp(argv[1], "snapshot")) {
		pthread_t t[2];
		void *r;

		pthread_barrier_init(&before, NULL, 3);
		pthread_barrier_init(&after, NULL, 3);
		for (int i = 0; i < 2; i++)
			pthread_create(&t[i], NULL, worker, &n);
		pthread_barrier_wait(&before);
		ada_snapshot();
		pthread_barrier_wait(&after);
		for (int i = 0; i < 2; i++) {
			pthread_join(t[i], &r);
			sum += (long)r;
		}
	} else {
		sum = run(n);
	}
	printf("sum %ld\n", sum);
	fflush(stdout);
	if (argc > 1 && !strcmp(argv[1], "kill"))
		raise(SIGKILL);
	if (argc > 1 && !strcmp(argv[1], "segv"))
		*nowhere = sum;
	return 0;
}
