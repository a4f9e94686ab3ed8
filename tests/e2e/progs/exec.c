/* exec.c - calls a few functions, then replaces itself with another program.
 *
 * Without arguments: prepare() and announce() run, then run_next() execs
 * /bin/echo. With "self": the same, but run_next() execs this program again
 * with the argument "again", and that second image calls second() and exits.
 * exec runs no exit handlers: the events recorded before it must reach the
 * disk anyway. Frames still open at exec (main, run_next) never return.
 *
 * Prints "before exec" then "echoed" (or "second image"), exits 0.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) static int prepare(int x)
{
	return x + 1;
}

__attribute__((noinline)) static void announce(void)
{
	printf("before exec\n");
	fflush(stdout);
}

__attribute__((noinline)) static void second(void)
{
	printf("second image\n");
}

__attribute__((noinline)) static int run_next(const char *self, int mode_self)
{
	char *const echo[] = { "echo", "echoed", NULL };
	char *const again[] = { (char *)self, "again", NULL };

	if (mode_self)
		execv(self, again);
	else
		execv("/bin/echo", echo);
	perror("execv");
	return 1;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "again") == 0) {
		second();
		return 0;
	}
	prepare(1);
	announce();
	return run_next(argv[0], argc > 1 && strcmp(argv[1], "self") == 0);
}
