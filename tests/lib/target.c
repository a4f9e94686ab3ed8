/* target.c - the architecture an end-to-end test builds for (target.h). */
#include "lib/target.h"

#include <stdio.h>
#include <string.h>

const char *target_arch;

int target_parse(int *argc, char **argv)
{
	int kept = 1;

	for (int i = 1; i < *argc; i++) {
		if (strncmp(argv[i], "--target=", 9) != 0) {
			argv[kept++] = argv[i];
			continue;
		}
		if (strcmp(argv[i] + 9, "aarch64") != 0) {
			fprintf(stderr, "%s: unknown target %s (known: aarch64)\n", argv[0], argv[i] + 9);
			return -1;
		}
		target_arch = "aarch64";
	}
	*argc = kept;
	argv[kept] = NULL;
	return 0;
}

const char *target_cc(bool cxx)
{
	if (target_arch)
		return cxx ? TARGET_CXX_A64 : TARGET_CC_A64;
	return cxx ? "g++" : "gcc";
}

const char *const *target_argv(const char *const argv[], const char *out[], size_t n)
{
	size_t i = 0;

	if (target_arch && n > 1)
		out[i++] = "qemu-aarch64";
	for (; *argv && i < n - 1; argv++)
		out[i++] = *argv;
	out[i] = NULL;
	return out;
}
