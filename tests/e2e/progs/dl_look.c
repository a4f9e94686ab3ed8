/* dl_look.c - a library dlopen'ed, called and closed where nothing in the
 * program tells ada of it (ADA_DYNHOOK=off): a recorder process finds it in
 * the program's maps. So that the test does not depend on when the
 * recorder looks, the program waits (30 s at most) until its own trace
 * shows the library's MODULE record before closing it, and an UNLOAD
 * record after.
 *
 *   dl_look LIB     prints "area 24" and "unloaded", exits 0; 1 if LIB
 *                   cannot be loaded, 2 if the trace never showed a step
 *                   (it says which on stderr).
 */
#include <dlfcn.h>
#include <glob.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../../runtime/raw_format.h"

/* Whether this process's process.meta has a record of `type` (and, for a
 * MODULE, whose path ends with `name`). */
__attribute__((no_instrument_function)) static bool meta_has(uint32_t type, const char *name)
{
	char pattern[4096];
	glob_t g;
	bool found = false;

	snprintf(pattern, sizeof(pattern), "%s/*/pid_%d/raw/process.meta", getenv("ADA_OUTPUT"),
		 (int)getpid());
	if (glob(pattern, 0, NULL, &g) != 0)
		return false;
	FILE *f = fopen(g.gl_pathv[0], "rb");
	struct ada_meta_file_header head;
	struct ada_meta_rec rec;
	static char payload[1 << 16];

	if (f && fread(&head, sizeof(head), 1, f) != 1) {
		fclose(f);
		f = NULL;
	}
	while (f && !found && fread(&rec, sizeof(rec), 1, f) == 1) {
		size_t padded = (rec.size + 7) & ~7u;

		if (padded > sizeof(payload) || fread(payload, 1, padded, f) != padded)
			break;
		if (rec.type != type)
			continue;
		if (type == ADA_META_MODULE) {
			const char *path = payload + sizeof(struct ada_meta_module);
			size_t len = strlen(path), n = strlen(name);

			found = len >= n && !strcmp(path + len - n, name);
		} else {
			found = true;
		}
	}
	if (f)
		fclose(f);
	globfree(&g);
	return found;
}

__attribute__((no_instrument_function)) static bool wait_for(uint32_t type, const char *name)
{
	for (int i = 0; i < 3000; i++) {
		if (meta_has(type, name))
			return true;
		usleep(10000);
	}
	fprintf(stderr, "dl_look: no %s record in the trace after 30 s\n",
		type == ADA_META_MODULE ? "MODULE" : "UNLOAD");
	return false;
}

int main(int argc, char **argv)
{
	void *h = argc > 1 ? dlopen(argv[1], RTLD_NOW) : NULL;
	int (*area)(int, int);
	const char *base;

	if (!h || !(area = (int (*)(int, int))dlsym(h, "lib_area"))) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 1;
	}
	printf("area %d\n", area(3, 4));
	base = strrchr(argv[1], '/') ? strrchr(argv[1], '/') : argv[1];
	if (getenv("ADA_OUTPUT") && !wait_for(ADA_META_MODULE, base))
		return 2;
	dlclose(h);
	if (getenv("ADA_OUTPUT") && !wait_for(ADA_META_UNLOAD, NULL))
		return 2;
	printf("unloaded\n");
	return 0;
}
