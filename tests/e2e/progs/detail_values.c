/* detail_values.c - calls with known arguments and known return values, for
 * the detail lane's exact register and stack checks (test_detail.c).
 *
 * Every traced function is noipa, so it is really called, with its
 * arguments in the registers the ABI gives them, at -O0 and -O2 alike; each
 * caller uses the result, so nothing is thrown away. The program prints,
 * on stderr (they change from run to run, and stdout must not: the tests
 * compare it with an untraced run's), the addresses a test cannot know in
 * advance, one "name value" line each:
 *
 *   table 0x...       the global array passed to pointers()
 *   greeting 0x...    the string literal passed to pointers()
 *   mixed_buf 0x...   the buffer passed to mixed()
 *   pattern 0x...     the address of framed()'s caller's local buffer
 *   pointers 0x...    what pointers() returned (its first argument + 3 longs)
 *
 * and on stdout a checksum of every result, so the calls are used.
 *
 * Known values (test_detail.c spells the same ones):
 *   six(0x1111111111111111, ..., 0x6666666666666666) = 0x0123456789abcdef
 *   pointers(table, greeting) = &table[3]
 *   mixed(-7, 1.5, mixed_buf, 2.25, 0x7fffffff, 0xfedcba9876543210) = 0x5eed
 *   two() = { 0x0a0b0c0d0e0f1011, -2 }
 *   nine(0x1010101010101010, ..., 0x6060606060606060, 0x7070707070707070,
 *        0x0808080808080808, 0x1919191919191919) = 0x4242424242424242: the
 *     last three on the stack, at sp+8, sp+16, sp+24 at its entry
 *   with_pattern() = 0x220: fills its local 64-byte buffer with the bytes
 *     0xa0 0xa1 ... 0xdf and calls framed(buf, 64) = 0x17f
 */
#include <stdint.h>
#include <stdio.h>

#define TRACED __attribute__((noinline, noipa))

struct pair {
	long a, b;
};

long table[8] = { 10, 20, 30, 40, 50, 60, 70, 80 };
static char mixed_buf[32];

TRACED long six(long a, long b, long c, long d, long e, long f)
{
	return (a ^ b ^ c ^ d ^ e ^ f) == 0x7777777777777777 ? 0x0123456789abcdefL : -1L;
}

TRACED const long *pointers(const long *t, const char *s)
{
	return t + (s[0] == 'h' ? 3 : 0);
}

TRACED long mixed(int i, double x, char *p, double y, unsigned u, unsigned long v)
{
	p[0] = (char)i;
	return x + y == 3.75 && u == 0x7fffffffu && v == 0xfedcba9876543210UL ? 0x5eed : 0;
}

TRACED struct pair two(void)
{
	return (struct pair){ 0x0a0b0c0d0e0f1011L, -2 };
}

TRACED long nine(long a, long b, long c, long d, long e, long f, long g, long h, long i)
{
	return a + b + c + d + e + f + g + h + i == (long)0xe2e2e2e2e2e2e2e1UL ? 0x4242424242424242L
									      : 0;
}

TRACED long framed(const unsigned char *buf, long n)
{
	return buf[0] + buf[n - 1];
}

TRACED long with_pattern(void)
{
	unsigned char buf[64];

	for (unsigned i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)(0xa0 + i);
	fprintf(stderr, "pattern %p\n", (void *)buf);
	return framed(buf, sizeof(buf)) + buf[1];
}

int main(void)
{
	static const char greeting[] = "hello, detail";
	uint64_t sum = 0;
	struct pair p;
	const long *q;

	fprintf(stderr, "table %p\n", (void *)table);
	fprintf(stderr, "greeting %p\n", (void *)greeting);
	fprintf(stderr, "mixed_buf %p\n", (void *)mixed_buf);
	sum += (uint64_t)six(0x1111111111111111L, 0x2222222222222222L, 0x3333333333333333L,
			     0x4444444444444444L, 0x5555555555555555L, 0x6666666666666666L);
	q = pointers(table, greeting);
	fprintf(stderr, "pointers %p\n", (const void *)q);
	sum += (uint64_t)*q;
	sum += (uint64_t)mixed(-7, 1.5, mixed_buf, 2.25, 0x7fffffffu, 0xfedcba9876543210UL);
	p = two();
	sum += (uint64_t)(p.a + p.b);
	sum += (uint64_t)nine(0x1010101010101010L, 0x2020202020202020L, 0x3030303030303030L,
			      0x4040404040404040L, 0x5050505050505050L, 0x6060606060606060L,
			      0x7070707070707070L, 0x0808080808080808L, 0x1919191919191919L);
	sum += (uint64_t)with_pattern();
	printf("sum %llx\n", (unsigned long long)sum);
	return 0;
}
