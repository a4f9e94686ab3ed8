/* last_thread.c - the process ends with its last thread, as without ada.
 *
 * glibc ends the process (exit(0): atexit handlers, stdio flushed) when the
 * last thread it counts ends by pthread_exit or by returning: main after its
 * own pthread_exit, or main's return from main after a vfork child ran over
 * its stack. It counts every thread pthread_create made, the writer too,
 * so with ada that last thread would end alone, and the process would live
 * on with the writer for good. So the writer is taken out of glibc's count
 * (__nptl_nthreads) once it runs, and counted in again just before it ends
 * (its end counts it out), unless the count is 0: then a thread has taken
 * it there and is ending the process, and the writer's end must not look
 * like the last one a second time.
 *
 * A thread that ends by the exit system call itself (a program in seccomp's
 * strict mode may call nothing else) is in no count: the writer looks at
 * each of its housekeeping passes, and once the process's first thread is
 * a zombie and no other thread but the writer is left, it ends the trace
 * and the process with that thread's exit status, as the kernel would have.
 * It is also what ends a process whose libc has no such count. The writer
 * looks in /proc/self/task from a root and a descriptor table of its own:
 * a program that chrooted where there is no /proc, or filled its table, is
 * seen all the same.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ada_internal.h"

/* glibc's count of the threads whose end may end the process. */
static unsigned int *nthreads;

void ada_threads_uncount_writer(void)
{
	static bool looked;

	if (!looked) {
		looked = true;
		nthreads = dlsym(RTLD_DEFAULT, "__nptl_nthreads");
	}
	if (nthreads)
		__atomic_fetch_sub(nthreads, 1, __ATOMIC_RELAXED);
}

void ada_threads_count_writer(void)
{
	unsigned int n;

	if (!nthreads)
		return;
	n = __atomic_load_n(nthreads, __ATOMIC_RELAXED);
	while (n && !__atomic_compare_exchange_n(nthreads, &n, n + 1, true, __ATOMIC_RELAXED,
						 __ATOMIC_RELAXED))
		;
}

/* The fields of a /proc stat file after its command, in buf; NULL if it
 * cannot be read. */
static const char *stat_fields(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, len - 1);
	const char *p;

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p + 2 : NULL;
}

/* Whether every thread but the writer has ended (the first thread stays a
 * zombie until the process ends). */
static bool only_the_writer_left(void)
{
	char writer[24], path[320], buf[512];
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	bool alone = d != NULL;

	snprintf(writer, sizeof(writer), "%u", __atomic_load_n(&ada_rt.writer_tid, __ATOMIC_ACQUIRE));
	while (alone && (e = readdir(d))) {
		const char *f;

		if (e->d_name[0] == '.' || !strcmp(e->d_name, writer))
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/stat", e->d_name);
		f = stat_fields(path, buf, sizeof(buf));
		alone = !f || *f == 'Z' || *f == 'X';
	}
	if (d)
		closedir(d);
	return alone;
}

void ada_last_thread_poll(void)
{
	char buf[1024];
	const char *f = stat_fields("/proc/self/stat", buf, sizeof(buf));
	int status = 0;

	/* The first thread has ended: state Z, and field 52 (the 50th after
	 * the state) its exit status, as waitpid reports it. */
	if (!f || *f != 'Z' || !only_the_writer_left())
		return;
	for (int i = 0; i < 49 && f; i++)
		f = strchr(f, ' ') ? strchr(f, ' ') + 1 : NULL;
	if (f)
		status = atoi(f);
	ada_writer_end_alone();
	syscall(SYS_exit_group, (status >> 8) & 0xff);
}
