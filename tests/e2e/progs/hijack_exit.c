/* hijack_exit.c - a thread or the process ends deep inside traced frames.
 *
 * "thread": a thread runs worker() -> step() -> finish(), and finish() calls
 * pthread_exit(), which unwinds the thread's stack (glibc's forced unwind)
 * through frames whose return addresses are hijacked. The main thread joins
 * it and prints what it left: "worker left 42".
 * "exit": main() -> outer() -> inner() -> leave(), and leave() prints a line
 * that is still in stdio's buffer (stdout is a pipe) and calls exit(7).
 *
 * Exit status 0 for "thread", 7 for "exit".
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) int prepare(void)
{
	return 41;
}

__attribute__((noinline)) void finish(int value)
{
	pthread_exit((void *)(intptr_t)value);
}

__attribute__((noinline)) void step(int value)
{
	finish(value + 1);
	printf("step: not reached\n");
}

__attribute__((noinline)) void *worker(void *arg)
{
	(void)arg;
	step(prepare());
	return NULL;
}

__attribute__((noinline)) void leave(int status)
{
	printf("leave: exiting with %d\n", status);
	exit(status);
}

__attribute__((noinline)) void inner(int status)
{
	leave(status);
	printf("inner: not reached\n");
}

__attribute__((noinline)) void outer(int status)
{
	inner(status);
	printf("outer: not reached\n");
}

int main(int argc, char **argv)
{
	pthread_t thread;
	void *result;

	if (argc > 1 && strcmp(argv[1], "exit") == 0) {
		printf("main: going down\n");
		outer(7);
		return 1;
	}
	if (pthread_create(&thread, NULL, worker, NULL) != 0 ||
	    pthread_join(thread, &result) != 0)
		return 1;
	printf("worker left %d\n", (int)(intptr_t)result);
	return 0;
}
