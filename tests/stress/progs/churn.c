/* churn.c - thousands of short threads, 16 alive at a time: each one's
 * ring, file and registration come and go while the others run.
 *
 *   churn [threads, default 1000]
 */
#include <pthread.h>
#include <stdlib.h>

enum { F_MAIN, F_SHORT_LIFE, F_LEAF, NF };
static const char *const names[NF] = { "main", "short_life", "leaf" };
#include "stress.h"

#define BATCH 16

TRACED static long leaf(long x)
{
	COUNT(F_LEAF);
	return x ^ (x >> 3);
}

TRACED static void *short_life(void *arg)
{
	long n = (long)arg, sum = 0;

	COUNT(F_SHORT_LIFE);
	for (long i = 0; i < 10; i++)
		sum += leaf(n + i);
	return (void *)sum;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 1000;
	long total = 0;

	COUNT(F_MAIN);
	for (int done = 0; done < threads; done += BATCH) {
		pthread_t t[BATCH];
		int n = threads - done < BATCH ? threads - done : BATCH;

		for (int i = 0; i < n; i++)
			if (pthread_create(&t[i], NULL, short_life, (void *)(long)(done + i)))
				return 1;
		for (int i = 0; i < n; i++) {
			void *r;

			pthread_join(t[i], &r);
			total += (long)r;
		}
	}
	printf("%d threads, sum %ld\n", threads, total);
	report(counts);
	return 0;
}
