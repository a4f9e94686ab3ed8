/* hijack_loop.c - return values through every way a return can go.
 *
 *   hijack_loop [ITERATIONS]        (default 100000)
 *
 * A loop calling a function that returns two registers (rax:rdx), one
 * returning a double (xmm0), and one that tail-calls another (two frames
 * returning together through one slot), then one that calls all three. Run
 * traced with settings that send some hooks down the assembly fast paths
 * (mcount/x86_64/fentry.S, return.S) and others, part way through, to the C
 * path (ADA_DETAIL=all with a small detail ring: the records run out), a
 * register the fast path touched before it gave up shows in the sums.
 *
 * Prints the sums, the same for a plain build, and exits 0.
 */
#include <stdio.h>
#include <stdlib.h>

#define LEAF __attribute__((noinline, noipa))

struct pair {
	long a, b;
};

LEAF struct pair two(long x)
{
	return (struct pair){ x * 3 + 1, -x };
}

LEAF double half(long x)
{
	return (double)x / 2;
}

LEAF long callee(long x)
{
	return x ^ 0x5a5a;
}

LEAF long tail(long x)
{
	return callee(x + 7); /* a jump at -O2 */
}

LEAF long all(long x)
{
	struct pair p = two(x);

	return p.a + p.b + tail(x) + (long)half(x);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000, sa = 0, sb = 0, st = 0, s4 = 0;
	double sh = 0;

	for (long i = 0; i < n; i++) {
		struct pair p = two(i);

		sa += p.a;
		sb += p.b;
		sh += half(i);
		st += tail(i);
		s4 += all(i);
	}
	printf("two: %ld %ld\nhalf: %a\ntail: %ld\nall: %ld\n", sa, sb, sh, st, s4);
	return 0;
}
