/* fork.c - libc's fork with every signal blocked, start to end.
 *
 * ada's writer thread makes every traced program multi-threaded, and in a
 * multi-threaded process glibc's fork holds its atfork lock from the first
 * prepare handler to the end of the last parent handler. fork is
 * async-signal-safe, so a program may siglongjmp out of a signal that
 * interrupts it (a timeout around fork): delivered while that lock is held
 * (after ada's own parent handler), the jump leaves it taken, and the next
 * fork, or exit's __cxa_finalize, waits on it for good. Without ada the
 * same single-threaded program takes no lock there. So libada's fork runs
 * libc's with signals blocked; one that arrives meanwhile is delivered as
 * fork returns, in the parent (a child starts with none pending), a few
 * microseconds later than without ada.
 *
 * The dynamic hooks still hook calls to it (mcount/dynhook.c): a fork is a
 * library call of the program's, in its tree as before. Left out of
 * libada.a, where there is no next fork to call.
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <unistd.h>

#include "ada_internal.h"

typedef pid_t (*fork_fn)(void);

static fork_fn real_fork;

__attribute__((constructor)) static void fork_resolve(void)
{
	struct ada_runtime_work w;

	ada_runtime_begin(&w); /* dlsym's own library calls are not the program's */
	real_fork = (fork_fn)dlsym(RTLD_NEXT, "fork");
	ada_runtime_end(&w);
}

__attribute__((visibility("default"))) pid_t fork(void)
{
	sigset_t old;
	pid_t pid;
	int err;

	if (!real_fork)
		fork_resolve(); /* called before libada's constructors ran */
	if (!real_fork) {
		errno = ENOSYS;
		return -1;
	}
	ada_signals_block(&old);
	pid = real_fork();
	err = errno;
	ada_signals_restore(&old);
	errno = err;
	return pid;
}

uintptr_t ada_fork_address(void)
{
	return (uintptr_t)fork;
}
