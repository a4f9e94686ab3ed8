/* fib.c - recursion, so the trace has a deep and repetitive call tree. */
#include "multifile.h"

long fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}
