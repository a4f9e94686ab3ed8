/* blocking.c - waits with known lengths, for test_blocking.c.
 *
 * Mutex: thread A takes m, starts B, which calls pthread_mutex_lock(m).
 * A waits until glibc's lock word says a waiter is in the lock (2: it
 * sets that before it sleeps on the futex), so B's wait has begun, and
 * only then holds m 20 ms more before it unlocks: B waits at least 20 ms,
 * and A's unlock is what lets it go on. Condition: thread C takes m2,
 * says so, and waits on cv; main takes m2, which it can only once C's
 * wait has released it, sleeps 30 ms, sets the flag, signals and unlocks:
 * C waits at least 30 ms. It prints the threads' ids on stderr (they differ
 * from run to run) and "done". */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER, m2 = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static volatile int c_ready, flag;
static int tid_a, tid_b, tid_c;

static void hold(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };

	while (nanosleep(&ts, &ts)) /* the whole time, whatever interrupts it */
		;
}

__attribute__((noinline)) static void *waiter_b(void *arg)
{
	(void)arg;
	tid_b = gettid();
	pthread_mutex_lock(&m);
	pthread_mutex_unlock(&m);
	return NULL;
}

__attribute__((noinline)) static void *holder_a(void *arg)
{
	pthread_t b;

	(void)arg;
	tid_a = gettid();
	pthread_mutex_lock(&m);
	pthread_create(&b, NULL, waiter_b, NULL);
	while (__atomic_load_n(&m.__data.__lock, __ATOMIC_ACQUIRE) != 2)
		sched_yield();
	hold(20);
	pthread_mutex_unlock(&m);
	pthread_join(b, NULL);
	return NULL;
}

__attribute__((noinline)) static void *cond_c(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&m2);
	tid_c = gettid();
	__atomic_store_n(&c_ready, 1, __ATOMIC_RELEASE);
	while (!flag)
		pthread_cond_wait(&cv, &m2);
	pthread_mutex_unlock(&m2);
	return NULL;
}

int main(void)
{
	pthread_t a, c;

	pthread_create(&a, NULL, holder_a, NULL);
	pthread_join(a, NULL);
	pthread_create(&c, NULL, cond_c, NULL);
	while (!__atomic_load_n(&c_ready, __ATOMIC_ACQUIRE))
		sched_yield();
	pthread_mutex_lock(&m2); /* only once C's wait released it */
	hold(30);
	flag = 1;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&m2);
	pthread_join(c, NULL);
	fprintf(stderr, "a %d b %d c %d\n", tid_a, tid_b, tid_c);
	puts("done");
	return 0;
}
