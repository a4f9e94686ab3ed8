/* lanes.c - allocations, counter samples and waits at once, for
 * test_lanes.c (lanes.atf, the ATF of all three).
 *   worker: churn mallocs 100 blocks of 48 bytes and frees 90 of them
 *           (190 ALLOC records, 90 of them frees, 10 blocks kept), then
 *           waits for the mutex main holds (pthread_mutex_lock: a wait)
 *           and releases it (pthread_mutex_unlock): 2 BLOCK records.
 *   main:   holds the mutex, spins 30 ms of CPU in spin (samples at each
 *           1 ms of it), releases the mutex (the worker's wait ends) after
 *           locking it (2 BLOCK records), joins the worker.
 * The worker calls nothing else through a hooked slot: its thread's
 * lanes.atf is exactly those 192 records. It prints "done". */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define BLOCKS 100
#define KEPT 10

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static void *kept[KEPT];
static volatile unsigned sink;

__attribute__((noinline)) static void churn(void)
{
	void *b[BLOCKS];

	for (int i = 0; i < BLOCKS; i++)
		b[i] = malloc(48);
	for (int i = 0; i < BLOCKS; i++) {
		if (i < KEPT)
			kept[i] = b[i];
		else
			free(b[i]);
	}
}

__attribute__((noinline)) static void *worker(void *arg)
{
	(void)arg;
	churn();
	pthread_mutex_lock(&m);
	pthread_mutex_unlock(&m);
	return NULL;
}

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noipa)) static void spin(double ms)
{
	double end = cpu_ms() + ms;

	while (cpu_ms() < end)
		for (int i = 0; i < 10000; i++)
			sink += i;
}

int main(void)
{
	pthread_t t;

	pthread_mutex_lock(&m);
	pthread_create(&t, NULL, worker, NULL);
	spin(30);
	pthread_mutex_unlock(&m);
	pthread_join(t, NULL);
	printf("done\n");
	return kept[0] == NULL;
}
