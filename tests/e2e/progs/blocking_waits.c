/* blocking_waits.c - a wait of each other kind with a known length, for
 * test_blocking_waits.c: sem_wait, read, poll, pthread_cond_timedwait.
 *
 * Thread B waits four times, one after the other; thread A ends each wait
 * 20 ms after it saw B inside it, so each lasts at least 20 ms however
 * late either thread is scheduled:
 * - sem_wait(&s): A waits until glibc's semaphore counts a waiter (it does
 *   before it sleeps on the futex), holds 20 ms, sem_post(&s).
 * - read(p1[0]): A waits until /proc says B's thread is in the read system
 *   call, holds 20 ms, writes a byte to p1[1].
 * - poll(p2[0]): likewise with poll (or ppoll) and p2.
 * - pthread_cond_timedwait(&cv, &m, 10 s on): B takes m, says so and
 *   waits; A takes m, which it can only once B's wait released it, holds
 *   20 ms, sets the flag, signals and unlocks.
 * Where /proc has no syscall file, A holds 20 ms from when it got there
 * (a wait then may be shorter). Every call of interest is followed by a
 * compiler barrier: as a tail call, its caller's frame would be gone
 * before it ran, and its waits would belong to the caller's caller.
 * It prints "a TID b TID sem 0xADDR m 0xADDR p1 FD p2 FD" on stderr (they
 * differ from run to run) and "done".
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static sem_t s;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int p1[2], p2[2];
static volatile int tid_a, tid_b, b_ready, flag;

#define BARRIER() __asm__ volatile("" ::: "memory")

static void hold(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };

	while (nanosleep(&ts, &ts)) /* the whole time, whatever interrupts it */
		;
}

/* Whether thread tid is inside system call nr (or nr2), -1 if /proc cannot
 * tell. */
static int in_syscall(int tid, long nr, long nr2)
{
	char path[64];
	long now = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
	if (!(f = fopen(path, "r")))
		return -1;
	if (fscanf(f, "%ld", &now) != 1) /* "running" */
		now = -1;
	fclose(f);
	return now == nr || now == nr2;
}

static void until_in_syscall(long nr, long nr2)
{
	int r;

	while (!(r = in_syscall(tid_b, nr, nr2)))
		sched_yield();
	if (r < 0)
		hold(1);
}

__attribute__((noinline)) static void wait_sem(void)
{
	sem_wait(&s);
	BARRIER();
}

__attribute__((noinline)) static void wait_read(void)
{
	char c;

	if (read(p1[0], &c, 1) != 1)
		perror("read");
}

__attribute__((noinline)) static void wait_poll(void)
{
	struct pollfd pf = { .fd = p2[0], .events = POLLIN };

	if (poll(&pf, 1, -1) != 1)
		perror("poll");
}

__attribute__((noinline)) static void wait_timed(void)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 10;
	pthread_mutex_lock(&m);
	__atomic_store_n(&b_ready, 1, __ATOMIC_RELEASE);
	while (!flag)
		pthread_cond_timedwait(&cv, &m, &until);
	pthread_mutex_unlock(&m);
	BARRIER();
}

__attribute__((noinline)) static void *waiter_b(void *arg)
{
	(void)arg;
	tid_b = gettid();
	wait_sem();
	wait_read();
	wait_poll();
	wait_timed();
	return NULL;
}

__attribute__((noinline)) static void post_sem(void)
{
	/* glibc's semaphore (64-bit atomics): the value in the low half,
	 * the waiters in the high half of its first word. */
	while (!(__atomic_load_n((uint64_t *)&s, __ATOMIC_ACQUIRE) >> 32))
		sched_yield();
	hold(20);
	sem_post(&s);
	BARRIER();
}

__attribute__((noinline)) static void write_read(void)
{
	until_in_syscall(SYS_read, SYS_read);
	hold(20);
	if (write(p1[1], "r", 1) != 1)
		perror("write");
}

__attribute__((noinline)) static void write_poll(void)
{
	until_in_syscall(SYS_poll, SYS_ppoll);
	hold(20);
	if (write(p2[1], "p", 1) != 1)
		perror("write");
}

__attribute__((noinline)) static void signal_timed(void)
{
	while (!__atomic_load_n(&b_ready, __ATOMIC_ACQUIRE))
		sched_yield();
	pthread_mutex_lock(&m); /* only once B's wait released it */
	hold(20);
	flag = 1;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&m);
	BARRIER();
}

__attribute__((noinline)) static void *waker_a(void *arg)
{
	(void)arg;
	tid_a = gettid();
	while (!tid_b)
		sched_yield();
	post_sem();
	write_read();
	write_poll();
	signal_timed();
	return NULL;
}

int main(void)
{
	pthread_t a, b;

	sem_init(&s, 0, 0);
	if (pipe(p1) || pipe(p2))
		return 1;
	pthread_create(&b, NULL, waiter_b, NULL);
	pthread_create(&a, NULL, waker_a, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	fprintf(stderr, "a %d b %d sem %p m %p p1 %d p2 %d\n", tid_a, tid_b, (void *)&s, (void *)&m,
		p1[0], p2[0]);
	puts("done");
	return 0;
}
