/* exit_nested.c - exit() called four frames deep.
 *
 * main() -> a() -> b() -> c(), and c() calls exit(7). No function returns
 * after that, so the tracer must close main, a, b and c itself while the
 * process exits, and mark them "(unwound)"; greet(), which returned before,
 * stays a plain call. The line c() prints is still in stdio's buffer when
 * exit() is called: it must reach stdout, whatever the tracer does at exit.
 *
 * Prints "hello" and "c: exiting with 7", exit status 7.
 */
#include <stdio.h>
#include <stdlib.h>

static void greet(void)
{
	printf("hello\n");
}

static void c(int status)
{
	printf("c: exiting with %d\n", status);
	exit(status);
}

static void b(int status)
{
	c(status);
}

static void a(int status)
{
	b(status);
}

int main(void)
{
	greet();
	a(7);
	return 0;
}
