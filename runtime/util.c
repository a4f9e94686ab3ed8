/* util.c - small helpers that avoid stdio, for paths that run at exit or fork. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <time.h>

#include "ada_internal.h"

int ada_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

void ada_mutex_init_shared(pthread_mutex_t *m)
{
	pthread_mutexattr_t a;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
}

int ada_mkdirs(const char *path)
{
	char tmp[4500];
	char *p;

	/* Mostly only the last one or two are missing (a new pid_<pid>/raw in
	 * an output directory used before): one mkdir, or one a level up, not
	 * one a component of the path (each a lookup from the root). */
	if (mkdir(path, 0755) == 0 || errno == EEXIST)
		return 0;
	if (errno != ENOENT)
		return -errno;
	if (snprintf(tmp, sizeof(tmp), "%s", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	if ((p = strrchr(tmp, '/')) && p != tmp) {
		*p = '\0';
		if (mkdir(tmp, 0755) == 0 || errno == EEXIST)
			return mkdir(path, 0755) == 0 || errno == EEXIST ? 0 : -errno;
		*p = '/';
	}
	for (p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

/* ada's lines go to the stderr the program had at start, and only while its
 * descriptor 2 is still that file: a program that closed 0-2 and opened its
 * own files there must not find ada's words in them. */
static struct {
	bool remembered, open; /* not remembered (unit tests): any fd 2 will do */
	dev_t dev;
	ino_t ino;
} stderr_id;

void ada_stderr_remember(void)
{
	struct stat st;

	stderr_id.remembered = true;
	stderr_id.open = fstat(STDERR_FILENO, &st) == 0;
	stderr_id.dev = st.st_dev;
	stderr_id.ino = st.st_ino;
}

bool ada_stderr_is(int fd)
{
	struct stat st;

	if (!stderr_id.remembered)
		return true;
	return stderr_id.open && fstat(fd, &st) == 0 && st.st_dev == stderr_id.dev &&
	       st.st_ino == stderr_id.ino;
}

static bool stderr_is_ours(void)
{
	return ada_stderr_is(STDERR_FILENO);
}

/* The writer works in a descriptor table of its own (writer.c), which has
 * no stderr: its lines wait here until a program thread prints them
 * (ada_warn_pending, after a flush it asked for). One writer appends;
 * len is published with a release store. */
static __thread bool private_fds __attribute__((tls_model("initial-exec")));
static bool all_pending; /* every thread's lines: a recorder's (its watchdog's too) */
/* Shared (shared.h): a recorder process's lines are printed by the program. */
struct warn_lines {
	char buf[2048];
	uint32_t len, printed;
};
static ADA_SHARED_VAR(struct warn_lines, pending);
#define pending (pending_area.v)

/* At the writer's start: lines a fork child copied from its parent are the
 * parent's to print. */
void ada_warn_private_fds(void)
{
	private_fds = true;
	pending.len = pending.printed = 0;
}

void ada_warn_all_pending(void)
{
	all_pending = true;
}

void ada_warn_pending_to(int fd)
{
	uint32_t len = __atomic_load_n(&pending.len, __ATOMIC_ACQUIRE), from = pending.printed;

	if (len <= from)
		return;
	pending.printed = len;
	if (ada_stderr_is(fd))
		ada_write_all(fd, pending.buf + from, len - from);
}

bool ada_warn_has_pending(void)
{
	return __atomic_load_n(&pending.len, __ATOMIC_ACQUIRE) > pending.printed;
}

void ada_warn_pending(void)
{
	ada_warn_pending_to(STDERR_FILENO);
}

static void pending_add(const char *line, size_t n)
{
	uint32_t len = pending.len;

	if (n > sizeof(pending.buf) - len)
		return; /* the first lines say what went wrong; later ones repeat it */
	memcpy(pending.buf + len, line, n);
	__atomic_store_n(&pending.len, len + (uint32_t)n, __ATOMIC_RELEASE);
}

/* One line on stderr, "ada: ...", written with a single write() so that it
 * does not interleave with the program's own output. */
void ada_warn(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n = snprintf(line, sizeof(line), "ada: ");

	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	if (private_fds || all_pending)
		pending_add(line, (size_t)n);
	else if (stderr_is_ours())
		ada_write_all(STDERR_FILENO, line, (size_t)n);
}

uint64_t ada_now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void ada_futex_wait(uint32_t *w, uint32_t v, uint64_t timeout_ns)
{
	struct timespec ts = { .tv_sec = (time_t)(timeout_ns / 1000000000ull),
			       .tv_nsec = (long)(timeout_ns % 1000000000ull) };

	syscall(SYS_futex, w, FUTEX_WAIT, v, &ts, NULL, 0);
}

void ada_futex_wake(uint32_t *w)
{
	syscall(SYS_futex, w, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0);
}

/* rt_sigprocmask itself, not sigfillset and pthread_sigmask: this runs
 * before a thread's state is set up, where a hook must not fire, and a
 * library that interposes those functions (ASan's interceptors, an
 * LD_PRELOAD shim) calls the real ones through its own GOT slots, which
 * ada hooks: the hook would set the thread up again, and recurse for
 * good. glibc's two internal signals (SIGCANCEL, SIGSETXID) stay
 * unblocked, as pthread_sigmask leaves them. */
#define SIG_CANCEL 32 /* the kernel's first real-time signal; SIGSETXID is 33 */

void ada_signals_block(sigset_t *old)
{
	uint64_t all = ~((1ull << (SIG_CANCEL - 1)) | (1ull << SIG_CANCEL));

	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, old, sizeof(all));
}

void ada_signals_restore(const sigset_t *old)
{
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, old, NULL, sizeof(uint64_t));
}
