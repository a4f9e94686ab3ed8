/* apart.c - work that needs a descriptor, done outside the program's table.
 *
 * Linux gives an open() the lowest free number. A file ada opens in a
 * program thread once the program runs (a library's ELF headers, read by
 * the pass after a dlopen) holds that number while it is open, and a
 * program thread opening a file at that moment gets the next one: the
 * program notices (test_intrusion loads libm in 200 threads and checks
 * every open of its own). So such work runs in a task of its own: a clone
 * that shares the program's memory (what it reads or maps stays) but has
 * its own copy of the descriptor table, vfork's way (the calling thread
 * waits until it exits), with no exit signal (the program gets no SIGCHLD,
 * and its wait() sees no child: only __WALL does).
 *
 * Before the program runs (start-up, single-threaded) and in the recorder
 * the work runs on the calling thread: no other thread opens anything then,
 * and a clone per module would cost start-up its budget.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "ada_internal.h"

bool ada_apart_needed;

/* The task's stack: an ELF reader's and a fork's frames (what the work
 * allocates comes from the calling thread's malloc: same TLS). */
#define APART_STACK (256u << 10)

struct apart {
	int (*fn)(void *);
	void *arg;
	int ret;
};

static int apart_run(void *p)
{
	struct apart *a = p;

	a->ret = a->fn(a->arg);
	return 0;
}

/* fn(arg) in a task of its own, as above: 0 with *ret its result, or
 * -errno if the task could not be made. */
int ada_task_run(int (*fn)(void *), void *arg, int *ret)
{
	struct apart a = { fn, arg, -1 };
	int saved = errno, err = 0;
	sigset_t old;
	uint8_t *stack;
	pid_t pid;

	stack = mmap(NULL, APART_STACK, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		return -errno;
	/* Blocked in the task too (it inherits the mask): the program's
	 * handlers are for its threads. The task runs on the calling thread's
	 * TLS (errno included), which waits meanwhile. */
	ada_signals_block(&old);
	pid = clone(apart_run, stack + APART_STACK, CLONE_VM | CLONE_VFORK, &a);
	if (pid < 0)
		err = -errno;
	else
		while (waitpid(pid, NULL, __WALL) < 0 && errno == EINTR)
			;
	ada_signals_restore(&old);
	munmap(stack, APART_STACK);
	errno = saved;
	*ret = a.ret;
	return err;
}

static __thread bool own_table __attribute__((tls_model("initial-exec")));

void ada_apart_own_table(void)
{
	own_table = true;
}

/* A program whose seccomp filter refuses clone has no threads to race
 * with either: the work runs on the calling thread then. */
int ada_apart(int (*fn)(void *), void *arg)
{
	int ret;

	if (!ada_apart_needed || own_table || ada_recorder_self() || ada_task_run(fn, arg, &ret) < 0)
		return fn(arg);
	return ret;
}
