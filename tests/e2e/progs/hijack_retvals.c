/* hijack_retvals.c - return values that cross the return trampoline.
 *
 * Every function here returns through ada_return_trampoline, which must hand
 * the caller every register a return value may be in exactly as the
 * function left it: rax and rdx (integers, pointers, two-word structs,
 * __int128), xmm0 and xmm1 (float, double, complex and SSE structs), st0
 * and st1 (long double and its complex), and rax as the address of a large
 * struct returned through the hidden pointer. noipa makes each caller read
 * the registers instead of using what it knows about the callee.
 *
 * Prints one line per kind, floating-point values in hex (%a) so that a
 * single changed bit shows; exits 0.
 */
#include <complex.h>
#include <stdio.h>

#define TRACED __attribute__((noinline, noipa))

struct two_longs { long a, b; };          /* rax:rdx */
struct two_doubles { double x, y; };      /* xmm0:xmm1 */
struct long_double { long n; double d; }; /* rax, xmm0 */
struct double_long { double d; long n; }; /* xmm0, rax */
struct four_floats { float a, b, c, d; }; /* xmm0 (a, b), xmm1 (c, d) */
struct big { long v[8]; };                /* memory: the caller's buffer, its address in rax */

TRACED struct two_longs ret_two_longs(long x)
{
	return (struct two_longs){ x * 3, -x - 0x123456789L };
}

TRACED double ret_double(double x)
{
	return x / 3.0;
}

TRACED float ret_float(float x)
{
	return x / 7.0f;
}

TRACED long double ret_long_double(long double x)
{
	return x / 3.0L + 1e-300L;
}

TRACED __int128 ret_int128(long x)
{
	return (__int128)x * 0x7fffffffffffL + ((__int128)1 << 100);
}

TRACED unsigned __int128 ret_uint128(unsigned long x)
{
	return ~(unsigned __int128)0 / x;
}

TRACED _Complex double ret_complex(double x)
{
	return x / 3.0 + (x / 7.0) * I;
}

TRACED _Complex float ret_complex_float(float x)
{
	return x / 3.0f + (x / 7.0f) * I;
}

TRACED _Complex long double ret_complex_long_double(long double x)
{
	return x / 3.0L + (x / 7.0L) * I;
}

TRACED struct two_doubles ret_two_doubles(double x)
{
	return (struct two_doubles){ x / 3.0, -x / 11.0 };
}

TRACED struct long_double ret_long_double_struct(long x)
{
	return (struct long_double){ x * 5, (double)x / 9.0 };
}

TRACED struct double_long ret_double_long_struct(long x)
{
	return (struct double_long){ (double)x / 13.0, x - 77 };
}

TRACED struct four_floats ret_four_floats(float x)
{
	return (struct four_floats){ x / 3.0f, x / 5.0f, x / 7.0f, x / 9.0f };
}

TRACED struct big ret_big(long x)
{
	struct big b;

	for (int i = 0; i < 8; i++)
		b.v[i] = x * (i + 1) - i;
	return b;
}

TRACED const char *ret_pointer(int i)
{
	static const char *const words[] = { "zero", "one", "two" };

	return words[i % 3];
}

TRACED int ret_negative_int(int x)
{
	return -x;
}

TRACED unsigned char ret_uchar(int x)
{
	return (unsigned char)(x * 7);
}

/* Not traced: the tree must not depend on whether gcc inlines it. */
__attribute__((no_instrument_function)) static void print_u128(const char *what,
								 unsigned __int128 v)
{
	printf("%s: %016llx%016llx\n", what, (unsigned long long)(v >> 64),
	       (unsigned long long)v);
}

int main(void)
{
	struct two_longs tl = ret_two_longs(1000003);
	struct two_doubles td = ret_two_doubles(2.5);
	struct long_double ld = ret_long_double_struct(123);
	struct double_long dl = ret_double_long_struct(456);
	struct four_floats ff = ret_four_floats(10.0f);
	struct big b = ret_big(1000);
	_Complex double z = ret_complex(1.0);
	_Complex float zf = ret_complex_float(2.0f);
	_Complex long double zl = ret_complex_long_double(4.0L);

	printf("two longs: %ld %ld\n", tl.a, tl.b);
	printf("double: %a\n", ret_double(1.0));
	printf("float: %a\n", (double)ret_float(1.0f));
	printf("long double: %La\n", ret_long_double(1.0L));
	print_u128("int128", (unsigned __int128)ret_int128(-5));
	print_u128("uint128", ret_uint128(3));
	printf("complex: %a %a\n", creal(z), cimag(z));
	printf("complex float: %a %a\n", (double)crealf(zf), (double)cimagf(zf));
	printf("complex long double: %La %La\n", creall(zl), cimagl(zl));
	printf("two doubles: %a %a\n", td.x, td.y);
	printf("long, double: %ld %a\n", ld.n, ld.d);
	printf("double, long: %a %ld\n", dl.d, dl.n);
	printf("four floats: %a %a %a %a\n", (double)ff.a, (double)ff.b, (double)ff.c,
	       (double)ff.d);
	printf("big:");
	for (int i = 0; i < 8; i++)
		printf(" %ld", b.v[i]);
	printf("\n");
	printf("pointer: %s\n", ret_pointer(4));
	printf("int: %d\n", ret_negative_int(99));
	printf("uchar: %d\n", ret_uchar(100));
	return 0;
}
