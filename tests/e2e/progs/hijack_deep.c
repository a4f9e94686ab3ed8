/* hijack_deep.c - one recursion, argv[1] frames deep (default 10000).
 *
 * main is not instrumented, so dive() runs at depths 1 to N of the thread's
 * call stack. The volatile local read after the recursive call keeps gcc
 * from turning the recursion into a loop at -O2: every level is a real frame
 * with its own return address to hijack.
 *
 * With ADA_SHADOW_DEPTH=S < N, the fentry/mcount runtime has room for the
 * return addresses of the outer S frames only: the inner N - S are neither
 * hijacked nor recorded (2 max_depth drops each), and the program must not
 * notice.
 *
 * Prints "depth N, sum N(N+1)/2" and exits 0.
 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long dive(long n)
{
	volatile long keep = n;

	if (n <= 1)
		return 1;
	return dive(n - 1) + keep;
}

__attribute__((no_instrument_function)) int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000;

	printf("depth %ld, sum %ld\n", n, dive(n));
	return 0;
}
