/* retmix_lib.c - the library of test_build_modes' returns_mix_across_tail_calls:
 * built with --ada-returns=hijack, so its frames' returns are hijacked,
 * while the executable's (retmix_main.c) call __return__. */
#include <stdio.h>

/* A hijacked frame that tail-calls a function seeing its return by a call. */
__attribute__((noinline)) long lib_apply(long (*f)(long), long x)
{
	return f(x + 1); /* a jump at -O2 */
}

/* A hijacked frame tail-called by one that saw its return by a call. */
__attribute__((noinline)) long lib_leaf(long x)
{
	return x * 3;
}

/* Both returns at once: a two-register struct through lib_apply's slot. */
struct pair {
	long a, b;
};

__attribute__((noinline)) struct pair lib_pair(long x)
{
	return (struct pair){ x, -x };
}
