/* hijack_longjmp.c - longjmp across traced frames whose returns are hijacked.
 *
 * a() sets a jump buffer and calls b() -> c(); c() longjmps back into a(),
 * so b() and c() never return: their hijacked return addresses are simply
 * skipped, and the tracer must close them as "(unwound)" when it next sees
 * a frame at or above their stack position. a() then calls d(), which must
 * nest under a(), not under c(). again() does the same ten times in a loop:
 * each round calls jumper() -> leap(), and leap() longjmps back to again().
 *
 * Prints "a: back from c with 3", "d: 4", "again: 10 jumps, total 55" and
 * exits 0.
 */
#include <setjmp.h>
#include <stdio.h>

static jmp_buf env;
static jmp_buf loop_env;

__attribute__((noinline)) void c(int x)
{
	longjmp(env, x + 1);
}

__attribute__((noinline)) void b(int x)
{
	c(x + 1);
	printf("b: not reached\n");
}

__attribute__((noinline)) int d(int x)
{
	return x + 1;
}

__attribute__((noinline)) int a(void)
{
	volatile int got = setjmp(env);

	if (got == 0) {
		b(1);
		printf("a: not reached\n");
		return -1;
	}
	printf("a: back from c with %d\n", got);
	return d(got);
}

__attribute__((noinline)) void leap(int round)
{
	longjmp(loop_env, round);
}

__attribute__((noinline)) void jumper(int round)
{
	leap(round);
	printf("jumper: not reached\n");
}

__attribute__((noinline)) int again(void)
{
	volatile int jumps = 0, total = 0;
	int got = setjmp(loop_env);

	if (got != 0) {
		jumps = jumps + 1;
		total = total + got;
	}
	if (jumps < 10)
		jumper(jumps + 1);
	printf("again: %d jumps, total %d\n", jumps, total);
	return total;
}

int main(void)
{
	printf("d: %d\n", a());
	return again() == 55 ? 0 : 1;
}
