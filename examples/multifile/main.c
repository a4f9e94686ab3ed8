/* main.c - the multifile example: one program built from several objects and
 * a static archive, by make or by CMake, with adacc as the compiler.
 *
 * It shows that tracing needs no change to a project's build files: calls
 * cross from main.o into fib.o and into libvec.a, and all of them are
 * traced. It prints one fixed line, which tests/cc-wrapper/build_systems.sh
 * checks.
 */
#include <stdio.h>

#include "multifile.h"

int main(void)
{
	static const int v[] = { 3, 1, 4, 1, 5, 9, 2, 6, 5, 3 };
	int n = (int)(sizeof(v) / sizeof(v[0]));

	printf("multifile: sum=%ld max=%d fib(10)=%ld\n", vec_sum(v, n), vec_max(v, n), fib(10));
	return 0;
}
