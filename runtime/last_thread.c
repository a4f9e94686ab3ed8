/* last_thread.c - main ended by pthread_exit: the process ends with its last thread.
 *
 * glibc ends the process (exit(0): atexit handlers, destructors) when its
 * last thread ends. The writer counts as a thread, so after main's
 * pthread_exit that never happens by itself. A watcher thread, started by
 * main's pthread_exit, sees the last program thread end and calls exit(0)
 * as glibc would have. It is not the writer's job: the writer works in a
 * descriptor table of its own (writer.c), and atexit handlers must find the
 * program's descriptors (stdout) where the program left them; the watcher,
 * created by main, shares the program's table.
 */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ada_internal.h"

#define WATCH_EVERY_NS 10000000L

/* A task's state, the letter after the ")" that ends its name in stat. */
static char task_state(const char *tid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%s/stat", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 'X'; /* gone */
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 'X';
}

/* Whether every thread but the caller and the writer has ended (main,
 * after pthread_exit, stays a zombie). */
static bool only_ada_left(void)
{
	char self[24], writer[24];
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	bool alone = d != NULL;

	snprintf(self, sizeof(self), "%ld", (long)syscall(SYS_gettid));
	snprintf(writer, sizeof(writer), "%u", __atomic_load_n(&ada_rt.writer_tid, __ATOMIC_ACQUIRE));
	while (alone && (e = readdir(d))) {
		char st;

		if (e->d_name[0] == '.' || !strcmp(e->d_name, self) || !strcmp(e->d_name, writer))
			continue;
		st = task_state(e->d_name);
		alone = st == 'Z' || st == 'X';
	}
	if (d)
		closedir(d);
	return alone;
}

static void *watch_last_thread(void *arg)
{
	struct timespec every = { 0, WATCH_EVERY_NS };

	(void)arg;
	ada_thread_untraced();
	prctl(PR_SET_NAME, "ada-last-thread");
	for (;;) {
		nanosleep(&every, NULL);
		if (only_ada_left())
			exit(0);
	}
	return NULL;
}

void ada_thread_exits_by_pthread_exit(void)
{
	struct ada_runtime_work w;
	pthread_t t;

	if (syscall(SYS_gettid) != getpid() || !__atomic_load_n(&ada_rt.active, __ATOMIC_ACQUIRE))
		return;
	/* Its own library calls are not the program's; it takes no signal
	 * (created with every signal blocked, it keeps them blocked). */
	ada_runtime_begin(&w);
	if (pthread_create(&t, NULL, watch_last_thread, NULL) == 0)
		pthread_detach(t);
	ada_runtime_end(&w);
}
