/* ctl.c - a program ada-ctl switches while it runs (tests/e2e/test_ctl.c).
 * main is not instrumented; it reads lines from the FIFO argv[1], so the
 * test decides when each phase runs, and for each line "run N" calls
 * outer(0..N-1), each calling inner() twice, then prints
 *     ran K: outer XX XX
 * (K counting the runs, XX XX the first two bytes of outer's entry: in
 * patchable mode 66 90 while recording is off, eb f9 while on). At the
 * FIFO's end it prints the sum of the results and exits. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Not traced in any mode (patchable mode's NOPs have an attribute of their own). */
#define NOT_TRACED __attribute__((no_instrument_function, patchable_function_entry(0, 0)))

__attribute__((noipa)) long inner(long x)
{
	return x + 1;
}

__attribute__((noipa)) long outer(long x)
{
	return inner(x) + inner(x + 1);
}

NOT_TRACED int main(int argc, char **argv)
{
	const volatile uint8_t *entry = (const volatile uint8_t *)(uintptr_t)outer;
	FILE *in = argc > 1 ? fopen(argv[1], "r") : NULL;
	char line[64];
	long sum = 0, n;
	int runs = 0;

	if (!in)
		return 2;
	while (fgets(line, sizeof(line), in)) {
		if (sscanf(line, "run %ld", &n) != 1)
			return 3;
		for (long i = 0; i < n; i++)
			sum += outer(i);
		printf("ran %d: outer %02x %02x\n", ++runs, entry[0], entry[1]);
		fflush(stdout);
	}
	printf("sum %ld\n", sum);
	return 0;
}
