/* pthread_exit.c - a thread ends with pthread_exit() two calls deep.
 *
 * The thread runs worker() -> step() -> finish(), and finish() calls
 * pthread_exit(). In C no exit hook runs for the three frames it abandons,
 * so the tracer closes them when the thread ends and marks them
 * "(unwound)"; prepare(), which returned before, is a plain call. The main
 * thread joins it and returns normally: its frames are all plain.
 *
 * Prints "worker left 42" and exits 0.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

static int prepare(void)
{
	return 41;
}

static void finish(int value)
{
	pthread_exit((void *)(intptr_t)value);
}

static void step(int value)
{
	finish(value + 1);
}

static void *worker(void *arg)
{
	(void)arg;
	step(prepare());
	return NULL;
}

static int run_worker(void)
{
	pthread_t thread;
	void *result;

	if (pthread_create(&thread, NULL, worker, NULL) != 0)
		return -1;
	if (pthread_join(thread, &result) != 0)
		return -1;
	return (int)(intptr_t)result;
}

int main(void)
{
	int value = run_worker();

	if (value < 0) {
		fprintf(stderr, "pthread_exit: could not run the worker\n");
		return 1;
	}
	printf("worker left %d\n", value);
	return 0;
}
