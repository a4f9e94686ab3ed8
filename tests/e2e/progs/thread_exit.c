/* thread_exit.c - exit() called by one thread while others still run.
 *
 * main starts a worker that finishes and is joined (its trace ends
 * "exited"), then two parkers that enter park() and sleep there for good,
 * then a quitter whose leave() prints a line and calls exit(3) once both
 * parkers are parked. main is still in pthread_join. Nobody returns after
 * that: every open frame of every thread is closed by the tracer at exit and
 * shows as "(unwound)", and every thread but the worker is "running at exit".
 *
 * Prints "worker done" and "leaving with 3" (the latter still in stdio's
 * buffer at exit), exit status 3.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static sem_t parked;

__attribute__((noinline)) static void work(void)
{
	printf("worker done\n");
	fflush(stdout);
}

static void *worker(void *arg)
{
	work();
	return arg;
}

__attribute__((noinline)) static void park(void)
{
	sem_post(&parked);
	for (;;)
		pause();
}

static void *parker(void *arg)
{
	park();
	return arg;
}

__attribute__((noinline)) static void leave(int status)
{
	printf("leaving with %d\n", status);
	exit(status);
}

static void *quitter(void *arg)
{
	sem_wait(&parked);
	sem_wait(&parked);
	leave(3);
	return arg;
}

int main(void)
{
	pthread_t w, p[2], q;

	sem_init(&parked, 0, 0);
	pthread_create(&w, NULL, worker, NULL);
	pthread_join(w, NULL);
	pthread_create(&p[0], NULL, parker, NULL);
	pthread_create(&p[1], NULL, parker, NULL);
	pthread_create(&q, NULL, quitter, NULL);
	pthread_join(q, NULL);
	return 0;
}
