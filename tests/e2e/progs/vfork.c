/* vfork.c - vfork used as POSIX allows: the child stores into the parent's
 * memory and calls traced functions, then execs or _exits; the parent,
 * suspended meanwhile, waits for it and goes on. Then posix_spawn and
 * system(), which run their children the same way inside libc.
 *
 * argv[1] says what the child does (the parent prints the outcome):
 *   store   set(&x, 42) on the parent's stack frame (42 if getppid() is
 *           the parent), then _exit(0): "x=42"
 *   true    execve("/bin/true"): "true: 0"
 *   self    execve of this program with "again", whose main calls second()
 *           and exits 5: "second image", then "self: 5"
 *   fail    execve of a path that does not exist, then _exit(127):
 *           "fail: 127"
 *   spawn   posix_spawn of this program with "again": "second image",
 *           then "spawn: 5"
 *   system  system("exit 3"): "system: 3"
 *   clone   clone(CLONE_VM | CLONE_VFORK) runs cloned() on a stack of its
 *           own, which stores 42 into the parent's x and _exits: "x=42"
 *   threads store runs 200 times while a second thread calls after()
 *           10,000 times: "stores: 200"
 * Then, in every mode, after() runs three times and main prints "done".
 */
#define _GNU_SOURCE /* clone */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline, noclone))

extern char **environ;

NOINLINE static void set(volatile int *p, int v)
{
	*p = v;
}

NOINLINE static int after(int i)
{
	return i * 2;
}

NOINLINE static int status_of(pid_t pid)
{
	int st = 0;

	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

NOINLINE static int store(void)
{
	volatile int x = 0;
	pid_t parent = getpid();
	pid_t pid = vfork();

	if (pid == 0) {
		set(&x, getppid() == parent ? 42 : -1);
		_exit(0);
	}
	status_of(pid);
	return x;
}

NOINLINE static int run(const char *path, const char *arg)
{
	char *const argv[] = { (char *)path, (char *)arg, NULL };
	pid_t pid = vfork();

	if (pid == 0) {
		execve(path, argv, environ);
		_exit(127);
	}
	return status_of(pid);
}

NOINLINE static int spawn(const char *path, const char *arg)
{
	char *const argv[] = { (char *)path, (char *)arg, NULL };
	pid_t pid;

	if (posix_spawn(&pid, path, NULL, NULL, argv, environ) != 0)
		return -1;
	return status_of(pid);
}

NOINLINE static int cloned(void *x)
{
	set(x, 42);
	_exit(0);
}

NOINLINE static int clone_store(void)
{
	static char stack[64 * 1024] __attribute__((aligned(16)));
	volatile int x = 0;

	status_of(clone(cloned, stack + sizeof(stack), CLONE_VM | CLONE_VFORK | SIGCHLD,
			(void *)&x));
	return x;
}

static void *worker(void *arg)
{
	long n = 0;

	(void)arg;
	for (int i = 0; i < 10000; i++)
		n += after(i);
	return (void *)n;
}

NOINLINE static int stores(void)
{
	pthread_t t;
	int ok = 0;

	if (pthread_create(&t, NULL, worker, NULL) != 0)
		return -1;
	for (int i = 0; i < 200; i++)
		ok += store() == 42;
	pthread_join(t, NULL);
	return ok;
}

NOINLINE static void second(void)
{
	printf("second image\n");
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "store";
	int sum = 0;

	if (strcmp(mode, "again") == 0) {
		second();
		return 5;
	}
	fflush(stdout); /* nothing buffered for a child to inherit */
	if (strcmp(mode, "store") == 0)
		printf("x=%d\n", store());
	else if (strcmp(mode, "true") == 0)
		printf("true: %d\n", run("/bin/true", NULL));
	else if (strcmp(mode, "self") == 0)
		printf("self: %d\n", run(argv[0], "again"));
	else if (strcmp(mode, "fail") == 0)
		printf("fail: %d\n", run("/nonexistent/ada-vfork", NULL));
	else if (strcmp(mode, "spawn") == 0)
		printf("spawn: %d\n", spawn(argv[0], "again"));
	else if (strcmp(mode, "system") == 0)
		printf("system: %d\n", WEXITSTATUS(system("exit 3")));
	else if (strcmp(mode, "clone") == 0)
		printf("x=%d\n", clone_store());
	else if (strcmp(mode, "threads") == 0)
		printf("stores: %d\n", stores());
	for (int i = 0; i < 3; i++)
		sum += after(i);
	printf("done %d\n", sum);
	return 0;
}
