/* swap_main.c - dlopen, call and dlclose two libraries in turn, `rounds`
 * times (argv[3], default 20): argv[1] then argv[2] in each round.
 *
 * The two libraries (swap_lib.c) have the same size, so the loader maps
 * each where the other was just unmapped: one address range, two modules,
 * one after the other. Whether it did is the test's premise: stderr says
 * in how many rounds ("same address in N of R rounds"; another thread's
 * mmap may take the range in between); stdout must not differ between a
 * plain and a traced run, addresses may.
 */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

/* Loads path, calls its lib_entry(round), closes it; the base address
 * the loader chose in *base. -1 if the library cannot be used. */
__attribute__((noinline)) static int visit(const char *path, int round, void **base)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	int (*entry)(int);
	Dl_info info;
	int r;

	if (!h) {
		fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
		return -1;
	}
	entry = (int (*)(int))dlsym(h, "lib_entry");
	if (!entry || !dladdr((void *)entry, &info)) {
		dlclose(h);
		return -1;
	}
	*base = info.dli_fbase;
	r = entry(round);
	dlclose(h);
	return r;
}

int main(int argc, char **argv)
{
	int rounds = argc > 3 ? atoi(argv[3]) : 20;
	long sum = 0;
	int same = 0;

	if (argc < 3 || rounds < 1)
		return 2;
	for (int round = 0; round < rounds; round++) {
		void *a = NULL, *b = NULL;
		int ra = visit(argv[1], round, &a), rb = visit(argv[2], round, &b);

		if (ra < 0 || rb < 0)
			return 1;
		sum += ra + rb;
		same += a == b;
	}
	printf("%d rounds, sum %ld\n", rounds, sum);
	fprintf(stderr, "same address in %d of %d rounds\n", same, rounds);
	return 0;
}
