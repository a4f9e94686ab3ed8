/* many_threads.c - 200 short-lived threads, one after the other.
 *
 * Each thread runs worker(), which calls f() once, and is joined before the
 * next one starts, so threads keep ending while the process goes on. Every
 * one of them must get its own complete trace: 200 blocks "worker / f" next
 * to main's.
 *
 * Prints "200 threads, sum 19900" and exits 0.
 */
#include <pthread.h>
#include <stdio.h>

#define NTHREADS 200

__attribute__((noinline)) static long f(long i)
{
	return i;
}

static void *worker(void *arg)
{
	return (void *)f((long)arg);
}

int main(void)
{
	long i, sum = 0;

	for (i = 0; i < NTHREADS; i++) {
		pthread_t t;
		void *ret;

		if (pthread_create(&t, NULL, worker, (void *)i) != 0)
			return 1;
		pthread_join(t, &ret);
		sum += (long)ret;
	}
	printf("%d threads, sum %ld\n", NTHREADS, sum);
	return 0;
}
