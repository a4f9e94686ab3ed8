/* recorder_probe.c - what a program can see of ada's writer: the threads
 * in its process, its descriptors, its children; then, with an argument,
 * it forks a child that calls work() too (in the frame that forked, while
 * the parent calls on), or kills itself (SIGKILL) after
 * more calls, which the trace must hold all the same, or kills its
 * recorder (a process of its name and command line) and calls on. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
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

/* A file's contents (NUL bytes kept), its length in *n; NULL if unreadable. */
__attribute__((no_instrument_function)) static char *slurp(const char *path, size_t *n)
{
	static char buf[2][4096];
	static int which;
	FILE *f = fopen(path, "re");
	char *b = buf[which ^= 1];

	if (!f)
		return NULL;
	*n = fread(b, 1, sizeof(buf[0]) - 1, f);
	b[*n] = '\0';
	fclose(f);
	return b;
}

/* Whether the recorder has made the trace's files: it maps a page of
 * process.meta (ada-ctl's finder) once they are there. */
__attribute__((no_instrument_function)) static int files_made(pid_t pid)
{
	char path[64], line[4096];
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if (!(f = fopen(path, "re")))
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, "/raw/process.meta") != NULL;
	fclose(f);
	return found;
}

/* The recorder: "ada-recorder", forked from this process, so its command
 * line is ours (no other test's). Once it has made the trace's files (2 s
 * at most), SIGKILL, then until it has ended. */
/* Kills this process's recorder once it made the trace's files, and waits
 * until it is a zombie; whether one was found. A recorder is named so only
 * once it runs: on a busy machine that may be a while after the program's
 * start, so the caller looks again. */
__attribute__((no_instrument_function)) static bool kill_recorder_once(void)
{
	char path[64], mine[4096];
	size_t n, m;
	const char *s;
	struct dirent *e;
	DIR *d = opendir("/proc");
	bool killed = false;

	s = slurp("/proc/self/cmdline", &n);
	memcpy(mine, s, n);
	while (d && (e = readdir(d))) {
		pid_t pid = (pid_t)atoi(e->d_name);

		if (pid <= 0 || pid == getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
		if (!(s = slurp(path, &m)) || strcmp(s, "ada-recorder\n"))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
		if (!(s = slurp(path, &m)) || m != n || memcmp(s, mine, n))
			continue;
		for (int i = 0; i < 2000 && !files_made(pid); i++)
			usleep(1000);
		kill(pid, SIGKILL);
		killed = true;
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
		for (int i = 0; i < 2000 && (s = slurp(path, &m)) && !strstr(s, ") Z "); i++)
			usleep(1000);
	}
	if (d)
		closedir(d);
	return killed;
}

__attribute__((no_instrument_function)) static void kill_recorder(void)
{
	for (int i = 0; i < 5000 && !kill_recorder_once(); i++)
		usleep(1000);
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
	} else if (!strcmp(what, "killrec")) {
		kill_recorder();
		sink = work(500);
	}
	return 0;
}
