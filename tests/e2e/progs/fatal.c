/* fatal.c - processes that die, or nearly: the crash site must be in the trace.
 *
 *   fatal deep N     dive(N) recurses N frames, then fault() stores through a
 *                    NULL pointer: SIGSEGV, as without ada. No pause before:
 *                    whatever the writer had not written when the signal hit
 *                    must still reach the trace.
 *   fatal early      main's first call faults, microseconds after start-up.
 *   fatal recover    the program's own SIGSEGV handler (installed after
 *                    ada's) recovers three faults with siglongjmp; prints
 *                    "recovered 3" and exits 0.
 *   fatal kill FILE T   T threads call work() as fast as they can until
 *                    killed; work() counts its calls in FILE (a shared
 *                    mapping: the counts survive SIGKILL), one slot per
 *                    thread: {os tid, calls}. Prints "ready" once every
 *                    thread has made 1000 calls.
 *
 * main itself is not instrumented.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_THREADS 16

struct counter {
	volatile uint64_t tid, calls;
};

static struct counter *counters;
volatile int *null_target; /* not static: the compiler must not assume it NULL */

__attribute__((noinline)) void fault(void)
{
	*null_target = 42;
}

__attribute__((noinline)) void dive(int n)
{
	if (n > 1)
		dive(n - 1);
	else
		fault();
	__asm__ volatile("" ::: "memory"); /* not a tail call */
}

static sigjmp_buf recover_point;

static void on_segv(int sig)
{
	(void)sig;
	siglongjmp(recover_point, 1);
}

__attribute__((noinline)) int probe(volatile int *p)
{
	return *p;
}

__attribute__((no_instrument_function)) static int recover(void)
{
	struct sigaction sa;
	int recovered = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_segv;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, NULL) != 0)
		return 1;
	for (int i = 0; i < 3; i++)
		if (sigsetjmp(recover_point, 1))
			recovered++;
		else
			probe(null_target);
	printf("recovered %d\n", recovered);
	return 0;
}

__attribute__((noinline)) void work(struct counter *c)
{
	c->calls++;
}

static void *worker(void *arg)
{
	struct counter *c = arg;

	c->tid = (uint64_t)syscall(SYS_gettid);
	for (;;)
		work(c);
	return NULL;
}

__attribute__((no_instrument_function)) static int kill_me(const char *path, int nthreads)
{
	pthread_t t;
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || nthreads < 1 || nthreads > MAX_THREADS ||
	    ftruncate(fd, MAX_THREADS * sizeof(struct counter)) != 0)
		return 2;
	counters = mmap(NULL, MAX_THREADS * sizeof(struct counter), PROT_READ | PROT_WRITE,
			MAP_SHARED, fd, 0);
	if (counters == MAP_FAILED)
		return 3;
	for (int i = 0; i < nthreads; i++)
		if (pthread_create(&t, NULL, worker, &counters[i]) != 0)
			return 4;
	for (int i = 0; i < nthreads; i++)
		while (counters[i].calls < 1000)
			usleep(1000);
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}

__attribute__((no_instrument_function)) int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "deep")) {
		dive(atoi(argv[2]));
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "early")) {
		fault();
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "recover"))
		return recover();
	if (argc > 3 && !strcmp(argv[1], "kill"))
		return kill_me(argv[2], atoi(argv[3]));
	return 2;
}
