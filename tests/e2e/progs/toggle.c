/* toggle.c - recording turned off and on while the program runs
 * (tests/e2e/test_patchable.c). main is not instrumented; each phase
 * calls leaf() N times:
 *   signal N     phase 1, raise(SIGUSR2), phase 2, raise(SIGUSR2), phase 3
 *                (run with ADA_TOGGLE_SIGNAL=SIGUSR2: phase 2 unrecorded)
 *   api N        the same with ada_disable() and ada_enable()
 *   plugin N LIB dlopen(LIB), wait (up to 5 s, when leaf is patched) until
 *                its plugin_target's entry is patched too, call it N times
 *   threads      8 threads call leaf() while main switches recording off
 *                and on 20 times, waiting each time for the entries to be
 *                rewritten (patching under running threads), then until
 *                each has called it 1000 times more; prints "done"
 * After each switch it waits (up to 5 s) until leaf's entry shows it, when
 * leaf was patched: a 2-byte NOP (66 90) while off, the jump (eb f9) while
 * on; it says on stderr what it saw. Without ada (leaf not patched) it
 * raises no signal. Prints the sum of the results. */
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

/* Not traced in any mode (patchable mode's NOPs have an attribute of their own). */
#define NOT_TRACED __attribute__((no_instrument_function, patchable_function_entry(0, 0)))

__attribute__((noipa)) long leaf(long x)
{
	return x + 1;
}

NOT_TRACED __attribute__((noipa)) static long phase(long n)
{
	long sum = 0;

	for (long i = 0; i < n; i++)
		sum += leaf(i);
	return sum;
}

/* Waits until leaf's entry holds want; says which it holds. */
NOT_TRACED static void entry_shows(uint16_t want, const char *what)
{
	const volatile uint16_t *entry = (const volatile uint16_t *)(uintptr_t)leaf;
	struct timespec ts = { 0, 1000000 };

	for (int i = 0; i < 5000 && *entry != want; i++)
		nanosleep(&ts, NULL);
	fprintf(stderr, "leaf %s\n", *entry == want ? what : "unchanged");
}

static volatile int final, stop;
static volatile long after_final[8];

/* Calls leaf until told to stop, counting its calls once final is set. */
NOT_TRACED static void *spin(void *arg)
{
	long me = (long)arg;

	for (long i = 0; !stop; i++) {
		leaf(i);
		if (final)
			after_final[me]++;
	}
	return NULL;
}

/* 8 threads calling leaf while its entry is rewritten 40 times, then
 * (recording on, leaf patched) until each has called it 1000 times more. */
NOT_TRACED static void threads(void)
{
	const volatile uint16_t *entry = (const volatile uint16_t *)(uintptr_t)leaf;
	bool patched = *entry == 0xf9eb;
	struct timespec ts = { 0, 500000 };
	pthread_t t[8];

	for (long i = 0; i < 8; i++)
		pthread_create(&t[i], NULL, spin, (void *)i);
	for (int k = 0; patched && k < 20; k++) {
		ada_disable();
		for (int i = 0; i < 5000 && *entry != 0x9066; i++)
			nanosleep(&ts, NULL);
		ada_enable();
		for (int i = 0; i < 5000 && *entry != 0xf9eb; i++)
			nanosleep(&ts, NULL);
	}
	final = 1;
	for (int i = 0; i < 8; i++)
		while (after_final[i] < 1000)
			nanosleep(&ts, NULL);
	stop = 1;
	for (int i = 0; i < 8; i++)
		pthread_join(t[i], NULL);
}

NOT_TRACED int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 100, sum;
	bool api = argc > 1 && !strcmp(argv[1], "api");
	bool patched = *(const volatile uint16_t *)(uintptr_t)leaf == 0xf9eb;

	if (argc > 3 && !strcmp(argv[1], "plugin")) {
		void *lib = dlopen(argv[3], RTLD_NOW);
		long (*target)(long) = lib ? (long (*)(long))dlsym(lib, "plugin_target") : NULL;
		struct timespec ts = { 0, 1000000 };

		if (!target)
			return 3;
		for (int i = 0; patched && i < 5000 && *(const volatile uint16_t *)(uintptr_t)target != 0xf9eb; i++)
			nanosleep(&ts, NULL);
		sum = 0;
		for (long i = 0; i < n; i++)
			sum += target(i);
		printf("sum %ld\n", sum);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "threads")) {
		threads();
		printf("done\n");
		return 0;
	}
	sum = phase(n);
	if (api)
		ada_disable();
	else if (patched) /* the plain build would die of it */
		raise(SIGUSR2);
	if (patched)
		entry_shows(0x9066, "unpatched");
	sum += phase(n);
	if (api)
		ada_enable();
	else if (patched)
		raise(SIGUSR2);
	if (patched)
		entry_shows(0xf9eb, "patched");
	sum += phase(n);
	printf("sum %ld\n", sum);
	return 0;
}
