/* dlmopen.c - an uninstrumented library (argv[1], libdlplain.so) loaded
 * into a new link-map namespace, with its own copy of libc, called through
 * dlsym'd pointers, and closed. argv[2] "lazy" loads it with RTLD_LAZY,
 * "now" with RTLD_NOW. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

__attribute__((noinline, noclone)) static int in_namespace(const char *lib, int binding)
{
	void *h = dlmopen(LM_ID_NEWLM, lib, binding);
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
	if (argc != 3)
		return 2;
	int status = in_namespace(argv[1], strcmp(argv[2], "lazy") == 0 ? RTLD_LAZY : RTLD_NOW);

	__asm__ volatile("" ::: "memory"); /* not a tail call: in_namespace nests */
	return status;
}
