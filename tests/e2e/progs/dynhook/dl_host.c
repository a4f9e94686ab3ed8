/* dl_host.c - a program built without adacc that dlopens a library
 * (argv[1]) and calls it through dlsym'd pointers. When the library was
 * built with adacc it brings libada.so in: tracing starts inside dlopen. */
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	void *h;
	int (*twice)(int);
	size_t (*measure)(const char *);

	if (argc != 2 || !(h = dlopen(argv[1], RTLD_NOW)))
		return 2;
	twice = (int (*)(int))dlsym(h, "inst_twice");
	measure = (size_t (*)(const char *))dlsym(h, "inst_measure");
	if (!twice || !measure)
		return 2;
	printf("twice %d\n", twice(21));
	printf("measure %zu\n", measure("hello"));
	return 0;
}
