/* dl_inst.c - libdlinst.so, built with adacc -shared: traced by its own
 * hooks, and its call to strlen through its (hooked) PLT. */
#include <string.h>

__attribute__((noinline)) int inst_twice(int x)
{
	return 2 * x;
}

__attribute__((noinline)) size_t inst_measure(const char *s)
{
	return strlen(s) * 2;
}
