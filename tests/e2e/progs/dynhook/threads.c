/* threads.c - four threads call plain_len() in libplain.so (uninstrumented)
 * CALLS times each; every call's strlen through libplain's hooked slot. */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

#define THREADS 4
#define CALLS 1000

size_t plain_len(const char *s);

static const char *const words[THREADS] = { "a", "bb", "ccc", "dddd" };

static void *worker(void *arg)
{
	const char *w = arg;
	size_t total = 0;

	for (int i = 0; i < CALLS; i++)
		total += plain_len(w);
	return (void *)total;
}

int main(void)
{
	pthread_t th[THREADS];
	size_t total = 0;
	void *r;

	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)words[i]) != 0)
			return 1;
	for (int i = 0; i < THREADS; i++) {
		pthread_join(th[i], &r);
		total += (size_t)r;
	}
	printf("total %zu\n", total);
	return 0;
}
