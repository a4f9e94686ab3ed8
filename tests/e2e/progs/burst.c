/* burst.c - threads that call a leaf function far faster than a ring drains.
 *
 * argv[1] threads (default 1) each run burst(), which calls leaf() argv[2]
 * times (default 2000000) in a tight loop. With a tiny ring most of those
 * calls find it full and are counted as lost; the calls each thread made are
 * counted here, so a test can check written + lost == 2 x calls.
 *
 * main is not instrumented: the only traced calls are burst() and leaf().
 * Prints "threads T, calls C" (C summed over threads) and exits 0.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_THREADS 64

static long per_thread = 2000000;
static unsigned long calls[MAX_THREADS];
static volatile unsigned long sink;

__attribute__((noinline)) static void leaf(unsigned long *count)
{
	++*count;
	sink++;
}

__attribute__((noinline)) static void *burst(void *arg)
{
	unsigned long *count = arg;
	long i;

	++*count;
	for (i = 0; i < per_thread; i++)
		leaf(count);
	return NULL;
}

__attribute__((no_instrument_function)) int main(int argc, char **argv)
{
	int nthreads = argc > 1 ? atoi(argv[1]) : 1, i;
	pthread_t tid[MAX_THREADS];
	unsigned long total = 0;

	if (argc > 2)
		per_thread = atol(argv[2]);
	if (nthreads < 1 || nthreads > MAX_THREADS)
		return 2;
	for (i = 0; i < nthreads; i++)
		if (pthread_create(&tid[i], NULL, burst, &calls[i]) != 0)
			return 3;
	for (i = 0; i < nthreads; i++) {
		pthread_join(tid[i], NULL);
		total += calls[i];
	}
	printf("threads %d, calls %lu\n", nthreads, total);
	return 0;
}
