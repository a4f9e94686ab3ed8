/* dlmopen.c - an uninstrumented library (argv[1], libdlplain.so) loaded
 * into a new link-map namespace, with its own copy of libc, called through
 * dlsym'd pointers, and closed. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>

__attribute__((noinline, noclone)) static int in_namespace(const char *lib)
{
	void *h = dlmopen(LM_ID_NEWLM, lib, RTLD_NOW);
	char *(*copy)(const char *);
	void (*release)(void *);
	char *c;

	if (!h) {
		printf("dlmopen failed\n");
		return 1;
	}
	copy = (char *(*)(const char *))dlsym(h, "plain_copy");
	release = (void (*)(void *))dlsym(h, "plain_release");
	if (!copy || !release)
		return 1;
	c = copy("namespace");
	printf("copy %s\n", c ? c : "(null)");
	release(c);
	dlclose(h);
	return 0;
}

int main(int argc, char **argv)
{
	return argc == 2 ? in_namespace(argv[1]) : 2;
}
