/* depth.c - a recursion ten frames deep, started K times (K = argv[1]).
 *
 * main is not instrumented, so dive() runs at depths 1 to 10 of the thread's
 * call stack: with ADA_DEPTH=3 only the first three levels are recorded
 * and the other seven enter/exit pairs of every dive are counted as dropped.
 *
 * Prints "dives K, calls 10K" and exits 0.
 */
#include <stdio.h>
#include <stdlib.h>

static unsigned long calls;

__attribute__((noinline)) static int dive(int n)
{
	calls++;
	if (n <= 1)
		return 1;
	return dive(n - 1) + 1;
}

__attribute__((no_instrument_function)) int main(int argc, char **argv)
{
	int k = argc > 1 ? atoi(argv[1]) : 5, i, sum = 0;

	for (i = 0; i < k; i++)
		sum += dive(10);
	printf("dives %d, calls %lu, sum %d\n", k, calls, sum);
	return 0;
}
