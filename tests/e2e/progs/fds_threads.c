/* fds_threads.c - more threads than RLIMIT_NOFILE leaves descriptors: the
 * program lowers it to 3 (0-2 are open) and starts THREADS threads, each
 * calling work() ROUNDS * CALLS times in bursts. The writer's own table has
 * room for process.meta and two thread files at a time: it closes and
 * reopens them, and keeps every event. main is not instrumented. */
#include <pthread.h>
#include <stdio.h>
#include <sys/resource.h>

#include "work_calls.h"

#define THREADS 6
#define ROUNDS 20
#define CALLS 5000

__attribute__((no_instrument_function)) static void *thread(void *arg)
{
	for (int r = 0; r < ROUNDS; r++)
		calls(CALLS);
	return arg;
}

__attribute__((no_instrument_function)) int main(void)
{
	struct rlimit rl = { 3, 3 };
	pthread_t t[THREADS];

	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 3;
	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, thread, NULL) != 0)
			return 4;
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	printf("%d threads done\n", THREADS);
	return 0;
}
