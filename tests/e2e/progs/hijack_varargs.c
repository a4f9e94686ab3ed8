/* hijack_varargs.c - variadic functions under the entry and return trampolines.
 *
 * A variadic callee finds its arguments in the argument registers, %al (how
 * many vector registers the caller used) and the stack: __fentry__ and
 * mcount run before the callee saves them, so they must leave every one of
 * them as it was. Called with ints, doubles, both mixed, and more of each
 * than there are registers (the rest on the stack), and through a va_list
 * (vsnprintf).
 *
 * Prints five lines of results (compared with the untraced build) and exits 0.
 */
#include <stdarg.h>
#include <stdio.h>

#define TRACED __attribute__((noinline, noipa))

TRACED int sum(int n, ...)
{
	va_list ap;
	int total = 0;

	va_start(ap, n);
	for (int i = 0; i < n; i++)
		total += va_arg(ap, int);
	va_end(ap);
	return total;
}

TRACED double dsum(int n, ...)
{
	va_list ap;
	double total = 0;

	va_start(ap, n);
	for (int i = 0; i < n; i++)
		total += va_arg(ap, double);
	va_end(ap);
	return total;
}

/* Pairs (int weight, double value): sum of weight * value. */
TRACED double weighted(int pairs, ...)
{
	va_list ap;
	double total = 0;

	va_start(ap, pairs);
	for (int i = 0; i < pairs; i++) {
		int w = va_arg(ap, int);

		total += w * va_arg(ap, double);
	}
	va_end(ap);
	return total;
}

TRACED int format(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

int main(void)
{
	char buf[256];
	int n;

	printf("sum: %d\n", sum(3, 1, 2, 3));
	printf("sum of 12: %d\n", sum(12, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12));
	printf("dsum of 11: %a\n",
	       dsum(11, 0.5, 1.25, -2.0, 3.75, 1e10, 1e-10, 7.0, 8.5, 9.25, 10.125, 0.1));
	printf("weighted: %a\n", weighted(5, 1, 0.5, 2, 0.25, 3, 1e3, 4, -8.0, 5, 0.1));
	n = format(buf, sizeof(buf), "%d %s %.3f %c %ld %a %d %g %d %x", 42, "str", 3.14159, 'z',
		   -123456789012L, 2.5, 7, 1e-5, 8, 255u);
	printf("format: %d [%s]\n", n, buf);
	return 0;
}
