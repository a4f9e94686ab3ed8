/* recorder_probe.c - what a program can see of ada's writer: the threads
 * in its process, its descriptors, its children; then, with an argument,
 * it forks a child that calls work() too (in the frame that forked, while
 * the parent calls on), or kills itself (SIGKILL) after
 * more calls, which the trace must hold all the same. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) static int leaf(int x)
{
	return x * 2 + 1;
}

__attribute__((noinline)) static int work(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += leaf(i);
	return s;
}

volatile int sink; /* work()'s result, used: the call stays */

/* fork in a frame the child returns from (fentry: a hijacked return). */
__attribute__((noinline)) static pid_t spawn(void)
{
	pid_t p = fork();

	if (p == 0)
		sink = work(3);
	return p;
}

static pid_t worker_tid[2];

static void *worker(void *arg)
{
	worker_tid[(long)arg / 10 - 1] = gettid();
	return (void *)(long)work((int)(long)arg);
}

/* pthread_join returns when the thread's tid is cleared, which the kernel
 * does before it takes the thread out of /proc/self/task: wait for that
 * (2 s at most), or the count would race with the kernel. */
__attribute__((no_instrument_function)) static void wait_gone(pid_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%d", (int)tid);
	for (int i = 0; i < 2000 && access(path, F_OK) == 0; i++)
		usleep(1000);
}

/* Entries of a /proc directory, its own descriptor left out. */
static int entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";
	pthread_t t[2];
	long sum = 0;
	void *r;

	for (long i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, (void *)(10 * (i + 1)));
	for (int i = 0; i < 2; i++) {
		pthread_join(t[i], &r);
		sum += (long)r;
		wait_gone(worker_tid[i]);
	}
	printf("threads %d, descriptors %d, sum %ld\n", entries("/proc/self/task"),
	       entries("/proc/self/fd") - 1, sum);
	printf("wait: %s\n", wait(NULL) < 0 ? strerror(errno) : "a child");
	fflush(stdout);
	if (!strcmp(what, "fork")) {
		pid_t p = spawn();

		if (p == 0)
			return 0;
		/* At once: the parent's state moves on while the child starts. */
		sink = work(7);
		waitpid(p, NULL, 0);
		printf("child done\n");
	} else if (!strcmp(what, "kill")) {
		sink = work(500);
		raise(SIGKILL);
	}
	return 0;
}
