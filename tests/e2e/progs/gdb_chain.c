/* gdb_chain.c - a chain of traced calls for gdb's `bt`: main -> top -> mid ->
 * leaf. In fentry/mcount mode every return address on the way is hijacked;
 * gdb, stopped in leaf, must still show the real chain. */
#include <stdio.h>

__attribute__((noinline)) int leaf(int x)
{
	return x * 3;
}

__attribute__((noinline)) int mid(int x)
{
	return leaf(x + 1) + 1;
}

__attribute__((noinline)) int top(int x)
{
	return mid(x * 2) + 2;
}

int main(void)
{
	printf("%d\n", top(5));
	return 0;
}
