/* retmix_main.c - test_build_modes' returns_mix_across_tail_calls: functions
 * whose returns are seen by __return__ (gcc's default fentry mode) and a
 * library's whose returns are hijacked (retmix_lib.c) tail-call each other.
 * Prints the sums the plain build prints. */
#include <stdio.h>

long lib_apply(long (*f)(long), long x);
long lib_leaf(long x);
struct pair {
	long a, b;
};
struct pair lib_pair(long x);

/* Tail-called by lib_apply: nests in its hijacked frame, returns with it. */
__attribute__((noinline)) long main_cb(long x)
{
	return x * 2;
}

/* Sees its return by a call, then jumps to the hijacking library. */
__attribute__((noinline)) long main_tail(long x)
{
	return lib_leaf(x + 5); /* a jump at -O2 */
}

int main(void)
{
	long s = 0, p = 0;

	for (long i = 0; i < 3; i++) {
		struct pair q;

		s += lib_apply(main_cb, i);
		s += main_tail(i);
		q = lib_pair(i + 1);
		p += q.a * 10 + q.b;
	}
	printf("sum %ld pair %ld\n", s, p);
	return 0;
}
