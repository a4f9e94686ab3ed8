/* typed_args.c - calls whose parameters the views show by name and type
 * from the DWARF (test_view_args.c): integers of each size and signedness,
 * bool, char, an enum, a string in the caller's stack frame and one in the
 * binary (a literal), float and double from the SSE registers, a tail call,
 * aggregates in
 * registers and in memory ahead of a scalar (whose register the aggregates'
 * placement decides), arguments on the stack, a return in memory (its
 * hidden pointer takes rdi), a void function, a variadic one, and a gcc
 * clone, whose parameters are not its source's.
 *
 * Every function but the clone's origin is noipa: really called, with the
 * ABI's registers. stdout: a checksum of the results, so they are used.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define TRACED __attribute__((noinline, noipa))

enum color { RED, GREEN = 5, BLUE = -2 };
struct pt { int x, y; };             /* one INTEGER eightbyte: a register */
struct big { long a, b, c; };        /* 24 bytes: on the stack */
struct mix { double d; long l; };    /* SSE then INTEGER: xmm0 and a register */

TRACED int ints(int a, unsigned b, short c, unsigned char u, char ch, long l, bool f)
{
	return a + (int)b + c + u + ch + (int)l + f;
}

TRACED long eight(long a, long b, long c, long d, long e, long f, long g, int h)
{
	return a + b + c + d + e + f + g + h;
}

TRACED int paint(enum color c, const char *name, struct pt p, struct big b, struct mix m, int after)
{
	return (int)c + (int)strlen(name) + p.x + p.y + (int)b.c + (int)m.l + after;
}

TRACED struct big make_big(int n)
{
	struct big b = { n, 2 * n, 3 * n };

	return b;
}

TRACED void nothing(const void *p)
{
	(void)p;
}

TRACED int sum(int n, ...)
{
	va_list ap;
	int s = 0;

	va_start(ap, n);
	while (n--)
		s += va_arg(ap, int);
	va_end(ap);
	return s;
}

TRACED double scale(double x, float f, int n, double y)
{
	return x * f * n + y;
}

TRACED int twice(int x)
{
	return 2 * x;
}

/* A tail call (gcc -O2: jmp twice). In fentry mode __return__ runs before
 * the jump, when twice has yet to make the value: via has none to show. */
TRACED int via(int x)
{
	return twice(x + 1);
}

TRACED int greet(const char *whom)
{
	return (int)strlen(whom);
}

TRACED char upper(char c)
{
	return c >= 'a' && c <= 'z' ? (char)(c - 32) : c;
}

int main(void)
{
	char word[16];
	long total;

	strcpy(word, "gnu");
	total = ints(-3, 4000000000u, -7, 200, 'A', -1234567890123L, true);
	total += eight(1, 2, 3, 4, 5, 6, 7, -8);
	total += paint(BLUE, word, (struct pt){ 1, 2 }, (struct big){ 7, 8, 9 },
		       (struct mix){ 0.5, 3 }, 42);
	total += paint((enum color)7, word, (struct pt){ -1, -2 }, (struct big){ 0, 0, 0 },
		       (struct mix){ 0, 0 }, -1);
	total += make_big(3).c;
	nothing(NULL);
	total += sum(3, 10, 20, 30);
	total += upper('q');
	total += greet("hello, \"world\"\n");
	total += (long)scale(0.1, 2.5f, 4, -0.25);
	total += via(5);
	printf("%ld\n", total);
	return 0;
}
