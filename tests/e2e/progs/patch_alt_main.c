/* patch_alt_main.c - two libraries loaded and closed in turn at one address.
 *
 * Ten rounds of: dlopen PREFIX"a.so", call its entry(50), dlclose; the same
 * with PREFIX"b.so". The loader maps each where the other was. Prints the
 * sum. Usage: patch_alt_main PREFIX
 */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	long s = 0;
	char path[4096];

	if (argc < 2)
		return 2;
	for (int r = 0; r < 10; r++)
		for (int k = 0; k < 2; k++) {
			void *h;
			int (*entry)(int);

			snprintf(path, sizeof(path), "%s%c.so", argv[1], k ? 'b' : 'a');
			h = dlopen(path, RTLD_NOW);
			if (!h)
				return 3;
			entry = (int (*)(int))dlsym(h, "entry");
			if (!entry)
				return 4;
			s += entry(50);
			dlclose(h);
		}
	printf("sum %ld\n", s);
	return 0;
}
