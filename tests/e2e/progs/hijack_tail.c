/* hijack_tail.c - tail calls, built at -O2.
 *
 * Every function is noinline, and every call below written "return g(...)"
 * compiles to a jump (`jmp g`), not a call: g runs with f's return address,
 * in f's slot. The tracer sees two entries on one slot (the second finds
 * its trampoline already there) and both frames return together when g
 * returns, so the tree shows g nested under f, both returning.
 *   f -> g                           one tail call
 *   chain1 -> chain2 -> chain3 -> chain_end   three in a row
 *   is_even(1000) <-> is_odd         mutual tail recursion, 1001 frames on one
 *                                    slot
 * noipa keeps gcc from looking into the callees (constant-folding their
 * results or cloning them); the noinline is implied, said for the reader.
 *
 * Prints "f(5) = 16", "chain(1) = 41", "is_even(1000) = 1" and exits 0.
 */
#include <stdio.h>

#define LEAF __attribute__((noinline, noipa))

LEAF int g(int x)
{
	return x + 1;
}

LEAF int f(int x)
{
	return g(x * 3);
}

LEAF int chain_end(int x)
{
	return x + 1;
}

LEAF int chain3(int x)
{
	return chain_end(x * 5);
}

LEAF int chain2(int x)
{
	return chain3(x * 2);
}

LEAF int chain1(int x)
{
	return chain2(x * 4);
}

LEAF int is_odd(int n);

LEAF int is_even(int n)
{
	if (n == 0)
		return 1;
	return is_odd(n - 1);
}

LEAF int is_odd(int n)
{
	if (n == 0)
		return 0;
	return is_even(n - 1);
}

int main(void)
{
	printf("f(5) = %d\n", f(5));
	printf("chain(1) = %d\n", chain1(1));
	printf("is_even(1000) = %d\n", is_even(1000));
	return 0;
}
