/* unshare.c - unshare(2) where it needs a single-threaded process.
 *
 * unshare(CLONE_NEWUSER) (and CLONE_VM, CLONE_SIGHAND, CLONE_THREAD) fails
 * with EINVAL in a process of more than one thread, and ada's writer is a
 * thread. A program that can create a user namespace without ada (a
 * sandbox, a container runtime, a test suite) could not under it. libada's
 * unshare pauses the writer (it drains every ring, closes its files and
 * ends) around libc's, so the call finds the process as the program left
 * it, and starts it again. The writer's new thread takes its own root and
 * descriptor table again, as at start-up.
 *
 * As fork.c: the dynamic hooks still record the call; left out of
 * libada.a, where there is no next unshare to call.
 */
#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <time.h>

#include "ada_internal.h"

typedef int (*unshare_fn)(int);

#define RETRIES 50
#define RETRY_NS 1000000L

/* The flags the kernel refuses in a process of several threads. */
#define ALONE_FLAGS (CLONE_NEWUSER | CLONE_VM | CLONE_SIGHAND | CLONE_THREAD)

__attribute__((visibility("default"))) int unshare(int flags)
{
	static unshare_fn real;
	struct ada_runtime_work w;
	bool paused = false;
	int ret, err;

	if (!real) {
		ada_runtime_begin(&w); /* dlsym's own library calls are not the program's */
		real = (unshare_fn)dlsym(RTLD_NEXT, "unshare");
		ada_runtime_end(&w);
	}
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	if (flags & ALONE_FLAGS) {
		ada_runtime_begin(&w);
		paused = ada_writer_pause();
		ada_runtime_end(&w);
	}
	ret = real(flags);
	err = errno;
	/* pthread_join returns when the kernel cleared the writer's tid, a
	 * moment before the thread has left the process: EINVAL until then.
	 * A program that has threads of its own gets EINVAL, 50 ms later. */
	for (int i = 0; paused && ret < 0 && err == EINVAL && i < RETRIES; i++) {
		struct timespec ts = { 0, RETRY_NS };

		nanosleep(&ts, NULL);
		ret = real(flags);
		err = errno;
	}
	if (paused) {
		ada_runtime_begin(&w);
		ada_writer_resume();
		ada_runtime_end(&w);
	}
	errno = err;
	return ret;
}
