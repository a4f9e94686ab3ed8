/* main_pthread_exit.c - main ends by pthread_exit while two threads work.
 *
 * The process must end when the last thread does, by exit(0): atexit
 * handlers run ("atexit ran 9900"), status 0. Each worker waits 50 ms, calls
 * work() 100 times and returns. main is not instrumented. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static unsigned long sink;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

__attribute__((noinline)) void work(unsigned long i)
{
	pthread_mutex_lock(&lock);
	sink += i;
	pthread_mutex_unlock(&lock);
}

__attribute__((noinline)) void *worker(void *arg)
{
	struct timespec ts = { 0, 50 * 1000000 };

	nanosleep(&ts, NULL);
	(void)arg;
	for (unsigned long i = 0; i < 100; i++)
		work(i);
	return NULL;
}

__attribute__((no_instrument_function)) static void bye(void)
{
	printf("atexit ran %lu\n", sink);
}

__attribute__((no_instrument_function)) int main(void)
{
	pthread_t t;

	atexit(bye);
	for (long i = 0; i < 2; i++)
		if (pthread_create(&t, NULL, worker, (void *)i) != 0)
			return 1;
	pthread_exit(NULL);
}
