/* dlloop.c - dlopen, call and dlclose in a loop, in 1 or 2 threads: thread
 * t loads two libraries of its own in turn (tests/e2e/progs/swap/
 * swap_lib.c built as lib<x>.so), so that each is mapped where the other
 * was; thread 0 alone is issue 11's case of two libraries at one address.
 *
 *   dlloop DIR ROUNDS THREADS
 *
 * Thread 0 uses DIR/liba.so and DIR/libb.so, thread 1 DIR/libc.so and
 * DIR/libd.so. The libraries' functions do not count themselves: every
 * lib_entry() call here is one call of lib_entry and one of lib<x>_self.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { F_MAIN, F_LOOP, F_VISIT, F_LIB_ENTRY, F_LIBA, F_LIBB, F_LIBC, F_LIBD, NF };
static const char *const names[NF] = { "main", "loop", "visit", "lib_entry",
				       "liba_self", "libb_self", "libc_self", "libd_self" };
#include "stress.h"

static const char *dir;
static int rounds;

TRACED static long visit(char who, int round)
{
	char path[4096];
	void *h;
	int (*entry)(int);
	long r;

	COUNT(F_VISIT);
	snprintf(path, sizeof(path), "%s/lib%c.so", dir, who);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h || !(entry = (int (*)(int))dlsym(h, "lib_entry")))
		return -1000000;
	r = entry(round);
	COUNT(F_LIB_ENTRY);
	COUNT(F_LIBA + (who - 'a'));
	dlclose(h);
	return r;
}

TRACED static void *loop(void *arg)
{
	long t = (long)arg, sum = 0;

	COUNT(F_LOOP);
	for (int r = 0; r < rounds; r++)
		sum += visit((char)('a' + 2 * t), r) + visit((char)('b' + 2 * t), r);
	return (void *)sum;
}

int main(int argc, char **argv)
{
	pthread_t t[2];
	long threads, total = 0;

	COUNT(F_MAIN);
	if (argc != 4)
		return 2;
	dir = argv[1];
	rounds = atoi(argv[2]);
	threads = atol(argv[3]);
	if (threads < 1 || threads > 2)
		return 2;
	for (long i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, loop, (void *)i))
			return 1;
	for (long i = 0; i < threads; i++) {
		void *r;

		pthread_join(t[i], &r);
		total += (long)r;
	}
	printf("%ld threads, %d rounds, sum %ld\n", threads, rounds, total);
	report(counts);
	return 0;
}
