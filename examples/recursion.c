/* recursion.c - plain and mutual recursion.
 *
 * fib(4) calls itself down to fib(1) and fib(0), so the call tree is the
 * textbook binary tree of nine calls; identical sibling subtrees (fib(1) next
 * to fib(0), both leaves) fold into one "fib x2" line. is_even(3) and is_odd
 * bounce between two functions until n reaches 0, four frames deep.
 *
 * The two recursive calls in fib are separate statements: in "fib(n - 1) +
 * fib(n - 2)" the order of the calls is unspecified, and the expected call
 * tree must not depend on what the compiler chose.
 *
 * Prints "fib(4) = 3, is_even(3) = 0" and exits 0.
 */
#include <stdio.h>

static int fib(int n)
{
	if (n < 2)
		return n;

	int a = fib(n - 1);
	int b = fib(n - 2);

	return a + b;
}

static int is_odd(int n);

static int is_even(int n)
{
	if (n == 0)
		return 1;
	return is_odd(n - 1);
}

static int is_odd(int n)
{
	if (n == 0)
		return 0;
	return is_even(n - 1);
}

int main(void)
{
	int f = fib(4);
	int e = is_even(3);

	printf("fib(4) = %d, is_even(3) = %d\n", f, e);
	return 0;
}
