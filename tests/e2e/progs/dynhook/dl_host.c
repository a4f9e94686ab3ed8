/* dl_host.c - a program built without adacc that dlopens a library
 * (argv[1]), calls it through dlsym'd pointers, closes it and goes on
 * calling libc. When the library was built with adacc it brings libada.so
 * in: tracing starts inside dlopen, and goes on after dlclose (libada stays:
 * the program's slots are hooked through it). */
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
	if (dlclose(h) != 0)
		return 3;
	printf("closed\n");
	return 0;
}
