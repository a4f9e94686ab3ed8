/* exec.c - flush the trace before exec or _exit ends the process image.
 *
 * exec and _exit end the image without running exit handlers, so the events
 * still in the rings would not be written (the ring files would keep them
 * for a recovery, but the trace would look like a killed process's). These
 * definitions interpose libc's (libada comes before libc in the search
 * order), flush, and call the real function found with RTLD_NEXT (_exit
 * makes the system call itself). The execl* family is variadic; it is turned
 * into the matching execv* call here, as libc would do.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ada_internal.h"

#define ADA_EXPORT __attribute__((visibility("default")))

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execvp_fn)(const char *, char *const[]);
typedef int (*execvpe_fn)(const char *, char *const[], char *const[]);

static void *real(const char *name)
{
	struct ada_runtime_work w;
	void *fn;

	ada_runtime_begin(&w);
	fn = dlsym(RTLD_NEXT, name); /* its own library calls are not the program's */
	ada_runtime_end(&w);
	if (!fn)
		errno = ENOSYS;
	return fn;
}

/* exec returned: it failed, and the program goes on traced. errno is the
 * exec's. */
static int after_failed(int ret)
{
	int saved = errno;

	ada_after_failed_exec();
	errno = saved;
	return ret;
}

/* vfork runs as fork. A vfork child shares the parent's memory, its thread
 * state included, until it execs or exits: whatever it called (a traced
 * function, a hooked library call, this file's exec flush) would write into
 * the parent's rings and shadow stack. A program that uses vfork as POSIX
 * allows (exec or _exit next) cannot tell the difference, and the child
 * becomes a traced process of its own, as after fork. */
ADA_EXPORT pid_t vfork(void)
{
	return fork();
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
	execve_fn fn = (execve_fn)real("execve");

	if (!fn)
		return -1;
	ada_before_exec();
	return after_failed(fn(path, argv, envp));
}

ADA_EXPORT int execv(const char *path, char *const argv[])
{
	extern char **environ;

	return execve(path, argv, environ);
}

ADA_EXPORT int execvp(const char *file, char *const argv[])
{
	execvp_fn fn = (execvp_fn)real("execvp");

	if (!fn)
		return -1;
	ada_before_exec();
	return after_failed(fn(file, argv));
}

ADA_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	execvpe_fn fn = (execvpe_fn)real("execvpe");

	if (!fn)
		return -1;
	ada_before_exec();
	return after_failed(fn(file, argv, envp));
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
