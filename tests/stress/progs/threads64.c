/* threads64.c - 64 threads calling at full speed, for tiny rings
 * (ADA_RING_KB=64): every thread's ring fills again and again and must
 * wait for the writer, never lose an event.
 *
 *   threads64 [iterations per thread, default 3000]
 */
#include <pthread.h>
#include <stdlib.h>

enum { F_MAIN, F_WORKER, F_NODE, F_LEAF, NF };
static const char *const names[NF] = { "main", "worker", "node", "leaf" };
#include "stress.h"

#define THREADS 64

static int iterations = 3000;

TRACED static long leaf(long x)
{
	COUNT(F_LEAF);
	return x * 3 + 1;
}

TRACED static long node(int depth, long x)
{
	COUNT(F_NODE);
	return depth ? node(depth - 1, x) + leaf(x) : leaf(x);
}

TRACED static void *worker(void *arg)
{
	long sum = 0;

	COUNT(F_WORKER);
	for (int i = 0; i < iterations; i++)
		sum += node(i % 8, i);
	*(long *)arg = sum;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[THREADS];
	long sums[THREADS], total = 0;

	COUNT(F_MAIN);
	if (argc > 1)
		iterations = atoi(argv[1]);
	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, worker, &sums[i]))
			return 1;
	for (int i = 0; i < THREADS; i++) {
		pthread_join(t[i], NULL);
		total += sums[i];
	}
	printf("%d threads, sum %ld\n", THREADS, total);
	report(counts);
	return 0;
}
