/* shlib_main.c - an executable calling into shlib.c's shared library.
 *
 * Built with -DUSE_DLOPEN it opens the library named by argv[1] with dlopen at
 * run time; otherwise it is linked against it. Either way measure() calls
 * lib_area(3, 4) from the library, whose calls must nest under measure().
 *
 * Prints "area 24" and exits 0 (1 if the library cannot be loaded).
 */
#include <stdio.h>
#ifdef USE_DLOPEN
#include <dlfcn.h>
#endif

typedef int area_fn(int, int);

#ifndef USE_DLOPEN
int lib_area(int w, int h);
#endif

__attribute__((noinline)) static int measure(area_fn *fn)
{
	return fn(3, 4);
}

int main(int argc, char **argv)
{
	area_fn *fn;

#ifdef USE_DLOPEN
	void *h = argc > 1 ? dlopen(argv[1], RTLD_NOW) : NULL;

	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 1;
	}
	fn = (area_fn *)dlsym(h, "lib_area");
	if (!fn)
		return 1;
#else
	(void)argc;
	(void)argv;
	fn = lib_area;
#endif
	printf("area %d\n", measure(fn));
	return 0;
}
