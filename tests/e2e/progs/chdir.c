/* chdir.c - changes directory before its traced calls and its exit.
 *
 * A relative ADA_OUTPUT is resolved when the program starts: the trace must
 * land under the directory the program was started in, not under argv[1],
 * where it has moved to by the time the writer creates files and flushes.
 *
 * Prints "moved" and exits 0 (1 if chdir fails).
 */
#include <stdio.h>
#include <unistd.h>

__attribute__((noinline)) static int step(int i)
{
	return i * 2;
}

int main(int argc, char **argv)
{
	int i, sum = 0;

	if (argc < 2 || chdir(argv[1]) != 0)
		return 1;
	for (i = 0; i < 3; i++)
		sum += step(i);
	printf("moved %d\n", sum);
	return 0;
}
