/* hijack_nested.c - GCC nested functions: the static chain arrives in r10.
 *
 * add() reads `base` from main's frame through its static chain, which its
 * caller passes in r10: directly (direct()), and through the stack
 * trampoline gcc builds when the nested function's address is taken
 * (apply(), which calls it through a pointer; the stack is executable for
 * it). With -pg -mfentry gcc keeps r10 across the __fentry__ call with a
 * push and a pop, so the return-address slot is one word further up than
 * usual: a tracer that hijacks the wrong word changes the result.
 * Prints "apply: 25" and "direct: 35".
 */
#include <stdio.h>

__attribute__((noinline)) static int apply(int (*f)(int), int x)
{
	return f(x);
}

int main(void)
{
	int base = 3, sum = 0;

	__attribute__((noinline)) int add(int v)
	{
		return v + base;
	}
	__attribute__((noinline)) int direct(int v)
	{
		return add(v) + 2;
	}

	for (int i = 0; i < 5; i++)
		sum += apply(add, i);
	printf("apply: %d\n", sum);
	sum = 0;
	for (int i = 0; i < 5; i++)
		sum += direct(i);
	printf("direct: %d\n", sum);
	return 0;
}
