/* windows.c - calls at known places for the detail-window tests
 * (tests/e2e/test_windows.c). main is not instrumented; every iteration
 * of its loops is one call of leaf(i): two events.
 *   func N       leaf(0..N-1), and target(i) after leaf(i) at i = N/2
 *   twice N      the same, target at i = N/2 and at i = N/2 + 2
 *   slow N       leaf() N times, work(0) (fast), work(5) (sleeps 5 ms),
 *                work(0), leaf() N times
 *   mark N       ada_mark("halfway") after leaf(N/2)
 *   usr1 N       raise(SIGUSR1) after leaf(N/2): the default action
 *   segv N       a write through a null pointer after leaf(N/2)
 *   region N     ada_disable() first, ada_enable() before leaf(N/4),
 *                ada_disable() before leaf(N/2): only leaf(N/4..N/2-1) recorded
 *   ignore N     a second thread calls ada_thread_ignore() then leaf() N
 *                times, the main thread leaf() N times
 *   plugin N LIB leaf() N times, dlopen(LIB) and its plugin_target(),
 *                leaf() N times
 *   snapshot N [MS] two threads call leaf() N times each, then main calls
 *                ada_snapshot() while both wait (MS milliseconds after they
 *                began to: idle threads), then leaf() N times each
 * Prints the sum of the results, which the plain build prints too. */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ada.h"

volatile long sum_zero; /* 0: the address segv writes to */

__attribute__((noinline)) long leaf(long x)
{
	return x + 1;
}

__attribute__((noinline)) long target(long x)
{
	return x * 2;
}

__attribute__((noinline)) long work(long ms)
{
	struct timespec ts = { 0, ms * 1000000 };

	if (ms)
		nanosleep(&ts, NULL);
	return ms + 7;
}

__attribute__((no_instrument_function)) static void *ignored(void *arg)
{
	long n = *(long *)arg, sum = 0;

	ada_thread_ignore();
	for (long i = 0; i < n; i++)
		sum += leaf(i);
	return (void *)sum;
}

static pthread_barrier_t before, after;
static long idle_ms;

/* snapshot: N calls, then wait while main takes the snapshot, N more. */
__attribute__((no_instrument_function)) static long around_snapshot(long n, bool is_main)
{
	long sum = 0;

	for (long i = 0; i < n; i++)
		sum += leaf(i);
	pthread_barrier_wait(&before);
	if (is_main) {
		struct timespec ts = { idle_ms / 1000, idle_ms % 1000 * 1000000 };

		nanosleep(&ts, NULL);
		ada_snapshot();
	}
	pthread_barrier_wait(&after);
	for (long i = 0; i < n; i++)
		sum += leaf(i);
	return sum;
}

__attribute__((no_instrument_function)) static void *snapshot_worker(void *arg)
{
	return (void *)around_snapshot(*(long *)arg, false);
}

__attribute__((no_instrument_function)) int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "func";
	long n = argc > 2 ? atol(argv[2]) : 1000, sum = 0;

	if (!strcmp(what, "ignore")) {
		pthread_t t;

		if (pthread_create(&t, NULL, ignored, &n) != 0 || pthread_join(t, NULL) != 0)
			return 1;
		for (long i = 0; i < n; i++)
			sum += leaf(i);
		printf("%ld\n", sum);
		return 0;
	}
	if (!strcmp(what, "plugin")) {
		void *lib;
		long (*target_fn)(long);

		for (long i = 0; i < n; i++)
			sum += leaf(i);
		lib = argc > 3 ? dlopen(argv[3], RTLD_NOW) : NULL;
		target_fn = lib ? (long (*)(long))dlsym(lib, "plugin_target") : NULL;
		if (!target_fn)
			return 3;
		sum += target_fn(n);
		for (long i = 0; i < n; i++)
			sum += leaf(i);
		printf("%ld\n", sum);
		return 0;
	}
	if (!strcmp(what, "snapshot")) {
		pthread_t t;
		void *theirs;

		idle_ms = argc > 3 ? atol(argv[3]) : 0;
		pthread_barrier_init(&before, NULL, 2);
		pthread_barrier_init(&after, NULL, 2);
		if (pthread_create(&t, NULL, snapshot_worker, &n) != 0)
			return 1;
		sum = around_snapshot(n, true);
		if (pthread_join(t, &theirs) != 0)
			return 1;
		printf("%ld\n", sum + (long)theirs);
		return 0;
	}
	if (!strcmp(what, "region"))
		ada_disable();
	if (!strcmp(what, "slow")) {
		for (long i = 0; i < n; i++)
			sum += leaf(i);
		sum += work(0) + work(5) + work(0);
		for (long i = 0; i < n; i++)
			sum += leaf(i);
		printf("%ld\n", sum);
		return 0;
	}
	for (long i = 0; i < n; i++) {
		if (i == n / 4 && !strcmp(what, "region"))
			ada_enable();
		if (i == n / 2 && !strcmp(what, "region"))
			ada_disable();
		sum += leaf(i);
		if (i == n / 2 && !strcmp(what, "mark"))
			ada_mark("halfway");
		if (i == n / 2 && !strcmp(what, "segv")) {
			fflush(stdout);
			*(volatile long *)(uintptr_t)sum_zero = sum;
		}
		if (i == n / 2 && !strcmp(what, "usr1")) {
			fflush(stdout);
			raise(SIGUSR1);
		}
		if ((i == n / 2 && strcmp(what, "mark")) || (i == n / 2 + 2 && !strcmp(what, "twice")))
			sum += target(i);
	}
	printf("%ld\n", sum);
	return 0;
}
