/* test_outbuf.c - the exports' output buffer: numbers formatted byte for
 * byte (decimal, hex, microseconds with their nanoseconds) and output in
 * order across flushes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "outbuf.h"

static char buf[64];

/* The formatter wrote exactly text at buf and returned its end. */
#define expect_text(end, text)                                                       \
	do {                                                                         \
		char *e_ = (end);                                                    \
		assert_int_equal(e_ - buf, strlen(text));                            \
		assert_memory_equal(buf, text, strlen(text));                        \
	} while (0)

static void test_decimal_and_hex_formatting(void **state)
{
	(void)state;
	expect_text(fmt_u64(buf, 0), "0");
	expect_text(fmt_u64(buf, 99), "99");
	expect_text(fmt_u64(buf, 100), "100");
	expect_text(fmt_u64(buf, 1234567890123ull), "1234567890123");
	expect_text(fmt_u64(buf, UINT64_MAX), "18446744073709551615");
	expect_text(fmt_hex(buf, 0), "0x0");
	expect_text(fmt_hex(buf, 0x7ffd5c1e2a38ull), "0x7ffd5c1e2a38");
	expect_text(fmt_hex(buf, UINT64_MAX), "0xffffffffffffffff");
}

static void test_microseconds_keep_the_nanoseconds(void **state)
{
	(void)state;
	expect_text(fmt_us(buf, 12345), "12.345");
	expect_text(fmt_us(buf, 7), "0.007");
	expect_text(fmt_us(buf, 1000), "1.000");
	expect_text(fmt_us(buf, 86400000000123ull), "86400000000.123");
}

/* A write larger than half the buffer goes straight to the file, after
 * what was buffered. */
static void test_outbuf_keeps_order_across_flushes(void **state)
{
	char *mem = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&mem, &len);
	struct outbuf o;
	char *big = malloc(OUTBUF_SIZE);

	(void)state;
	assert_non_null(big);
	memset(big, 'b', OUTBUF_SIZE);
	assert_int_equal(outbuf_init(&o, f), 0);
	outbuf_write(&o, "a", 1);
	outbuf_write(&o, big, OUTBUF_SIZE);
	outbuf_commit(&o, fmt_lit(outbuf_reserve(&o, 1), "c"));
	assert_int_equal(outbuf_close(&o, "memory"), 0);
	fclose(f);
	assert_int_equal(len, OUTBUF_SIZE + 2);
	assert_int_equal(mem[0], 'a');
	assert_int_equal(mem[1], 'b');
	assert_int_equal(mem[OUTBUF_SIZE], 'b');
	assert_int_equal(mem[OUTBUF_SIZE + 1], 'c');
	free(mem);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decimal_and_hex_formatting),
		cmocka_unit_test(test_microseconds_keep_the_nanoseconds),
		cmocka_unit_test(test_outbuf_keeps_order_across_flushes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
