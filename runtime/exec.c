/* exec.c - flush the trace before exec or _exit ends the process image.
 *
 * exec and _exit end the image without running exit handlers, so the events
 * still in the rings would not be written (the ring files would keep them
 * for a recovery, but the trace would look like a killed process's). These
 * definitions interpose libc's (libada comes before libc in the search
 * order), flush, and call the real function found with RTLD_NEXT, or in a
 * static executable by libc.a's own name (_exit makes the system call
 * itself). The execl* family is variadic; it is turned into the matching
 * execv* call here, as libc would do.
 *
 * In a vfork child (mcount/<arch>/vfork.S) there is nothing of its own to
 * flush, and the writer and rings are the parent's: ada_before_exec and
 * ada_before__exit do nothing there, and the real functions were found
 * before the vfork.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ada_internal.h"

/* exec returned: it failed, and the program goes on traced. errno is the
 * exec's. */
static int after_failed(int ret)
{
	int saved = errno;

	ada_after_failed_exec();
	errno = saved;
	return ret;
}

#define ADA_EXPORT __attribute__((visibility("default")))

typedef int (*exec_fn)(const char *, char *const[], char *const[]);

/* A static executable has no RTLD_NEXT to look in: libc.a's own names for
 * execve and execvpe then (weak: libc.so does not export them). */
extern int __execve(const char *, char *const[], char *const[]) __attribute__((weak));
extern int __execvpe(const char *, char *const[], char *const[]) __attribute__((weak));

/* libc's definitions, found once, at load time (or by an exec or a vfork
 * that comes first, from another library's constructor): a vfork child
 * must not call dlsym (it takes the loader's lock, which another thread of
 * the parent may hold, and may allocate from the parent's heap). */
static struct {
	exec_fn execve;
	exec_fn execvpe;
	bool done;
} reals;

void ada_exec_resolve(void)
{
	struct ada_runtime_work w;

	if (__atomic_load_n(&reals.done, __ATOMIC_ACQUIRE))
		return;
	ada_runtime_begin(&w); /* its own library calls are not the program's */
	reals.execve = (exec_fn)dlsym(RTLD_NEXT, "execve");
	reals.execvpe = (exec_fn)dlsym(RTLD_NEXT, "execvpe");
	if (!reals.execve)
		reals.execve = __execve;
	if (!reals.execvpe)
		reals.execvpe = __execvpe;
	ada_runtime_end(&w);
	/* Release: a thread that sees done sees the pointers. */
	__atomic_store_n(&reals.done, true, __ATOMIC_RELEASE);
}

__attribute__((constructor)) static void exec_resolve_at_load(void)
{
	ada_exec_resolve();
}

/* libc has no such function to call (dlsym found none). */
static int no_function(void)
{
	errno = ENOSYS;
	return -1;
}

/* _exit and _Exit end the process without exit handlers, ours included:
 * flush first, so the trace ends here as after exit() (not as a kill). */
ADA_EXPORT __attribute__((noreturn)) void _exit(int status)
{
	ada_before__exit();
	/* What libc's _exit does; no dlsym here: _exit is async-signal-safe. */
	for (;;)
		syscall(SYS_exit_group, status);
}

ADA_EXPORT __attribute__((noreturn)) void _Exit(int status)
{
	_exit(status);
}

ADA_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	ada_exec_resolve();
	if (!reals.execve)
		return no_function();
	ada_before_exec();
	return after_failed(reals.execve(path, argv, envp));
}

ADA_EXPORT int execv(const char *path, char *const argv[])
{
	extern char **environ;

	return execve(path, argv, environ);
}

ADA_EXPORT int execvp(const char *file, char *const argv[])
{
	extern char **environ;

	return execvpe(file, argv, environ);
}

ADA_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	ada_exec_resolve();
	if (!reals.execvpe)
		return no_function();
	ada_before_exec();
	return after_failed(reals.execvpe(file, argv, envp));
}

/* Collects the variadic arguments after arg0 up to the terminating NULL. */
#define COLLECT_ARGS(arg0, argv, ap)                                                   \
	do {                                                                           \
		size_t n_ = 1;                                                         \
		va_start(ap, arg0);                                                    \
		while (va_arg(ap, char *))                                             \
			n_++;                                                          \
		va_end(ap);                                                            \
		argv = __builtin_alloca((n_ + 1) * sizeof(char *));                    \
		argv[0] = (char *)arg0;                                                \
		va_start(ap, arg0);                                                    \
		for (size_t i_ = 1; i_ <= n_; i_++)                                    \
			argv[i_] = va_arg(ap, char *);                                 \
	} while (0)

ADA_EXPORT int execl(const char *path, const char *arg, ...)
{
	char **argv;
	va_list ap;

	COLLECT_ARGS(arg, argv, ap);
	va_end(ap);
	return execv(path, argv);
}

ADA_EXPORT int execlp(const char *file, const char *arg, ...)
{
	char **argv;
	va_list ap;

	COLLECT_ARGS(arg, argv, ap);
	va_end(ap);
	return execvp(file, argv);
}

ADA_EXPORT int execle(const char *path, const char *arg, ...)
{
	char **argv, **envp;
	va_list ap;

	COLLECT_ARGS(arg, argv, ap); /* argv ends with the NULL; envp follows it */
	envp = va_arg(ap, char **);
	va_end(ap);
	return execve(path, argv, envp);
}
