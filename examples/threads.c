/* threads.c - four threads, each with a call tree of its own size.
 *
 * Thread k (k = 0..3) runs worker(), which calls work() k + 1 times; every
 * work() calls leaf() twice. The four trees differ only in how many work()
 * calls they hold, so a tracer that mixes up threads, loses a thread or
 * merges two of them shows up as a wrong count. The main thread's own tree
 * is start_workers() and join_workers() under main().
 *
 * Each thread writes its result into its own slot; main prints them after
 * joining, so the output does not depend on scheduling:
 * "sums: 2 4 6 8" and exit status 0.
 */
#include <pthread.h>
#include <stdio.h>

#define NTHREADS 4

struct job {
	pthread_t thread;
	int calls; /* how many times worker() calls work() */
	int sum;
};

static int leaf(int x)
{
	return x;
}

static int work(void)
{
	return leaf(1) + leaf(0) + 1;
}

static void *worker(void *arg)
{
	struct job *job = arg;

	for (int i = 0; i < job->calls; i++)
		job->sum += work();
	return NULL;
}

static int start_workers(struct job *jobs)
{
	for (int k = 0; k < NTHREADS; k++) {
		jobs[k].calls = k + 1;
		if (pthread_create(&jobs[k].thread, NULL, worker, &jobs[k]) != 0)
			return -1;
	}
	return 0;
}

static void join_workers(struct job *jobs)
{
	for (int k = 0; k < NTHREADS; k++)
		pthread_join(jobs[k].thread, NULL);
}

int main(void)
{
	struct job jobs[NTHREADS] = { 0 };

	if (start_workers(jobs) != 0) {
		fprintf(stderr, "threads: pthread_create failed\n");
		return 1;
	}
	join_workers(jobs);

	printf("sums:");
	for (int k = 0; k < NTHREADS; k++)
		printf(" %d", jobs[k].sum);
	printf("\n");
	return 0;
}
