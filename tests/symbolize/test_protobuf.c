/* test_protobuf.c - the Perfetto export's encoder byte for byte: varints,
 * tags and length-delimited fields (the examples of protobuf's encoding
 * guide), and nested messages whose length outgrows its reserved byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "outbuf.h"
#include "protobuf.h"

static char buf[1024];

#define assert_bytes(end, ...)                                                       \
	do {                                                                         \
		static const unsigned char want[] = { __VA_ARGS__ };                 \
		assert_int_equal((end) - buf, sizeof(want));                         \
		assert_memory_equal(buf, want, sizeof(want));                        \
	} while (0)

static void test_varint_encodes_groups_of_seven_bits_low_first(void **state)
{
	(void)state;
	assert_bytes(pb_varint(buf, 0), 0x00);
	assert_bytes(pb_varint(buf, 1), 0x01);
	assert_bytes(pb_varint(buf, 127), 0x7f);
	assert_bytes(pb_varint(buf, 128), 0x80, 0x01);
	assert_bytes(pb_varint(buf, 150), 0x96, 0x01);   /* the guide's example */
	assert_bytes(pb_varint(buf, 300), 0xac, 0x02);
	assert_bytes(pb_varint(buf, 16384), 0x80, 0x80, 0x01);
	assert_bytes(pb_varint(buf, UINT64_MAX), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		     0xff, 0x01);
	assert_int_equal(pb_varint_size(0), 1);
	assert_int_equal(pb_varint_size(127), 1);
	assert_int_equal(pb_varint_size(128), 2);
	assert_int_equal(pb_varint_size(UINT64_MAX), PB_VARINT_MAX);
}

static void test_fields_carry_number_and_wire_type(void **state)
{
	(void)state;
	assert_bytes(pb_uint(buf, 1, 150), 0x08, 0x96, 0x01);      /* field 1, varint */
	assert_bytes(pb_uint(buf, 60, 1), 0xe0, 0x03, 0x01);       /* field 60: 2-byte tag */
	assert_bytes(pb_string(buf, 2, "testing"), 0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g');
	assert_bytes(pb_bytes(buf, 6, "", 0), 0x32, 0x00);
	/* int32 -1 is ten bytes (two's complement, not zigzag) */
	assert_bytes(pb_int(buf, 4, -1), 0x20, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		     0xff, 0x01);
}

static void test_nested_message_gets_its_length_patched(void **state)
{
	char *len_at, *inner, *p;

	(void)state;
	/* Test3 of the guide: field 3 holding {1: 150} */
	p = pb_open(buf, 3, &len_at);
	p = pb_uint(p, 1, 150);
	assert_bytes(pb_close(len_at, p), 0x1a, 0x03, 0x08, 0x96, 0x01);

	/* nested twice, the empty message too */
	p = pb_open(buf, 1, &len_at);
	p = pb_open(p, 2, &inner);
	p = pb_close(inner, p);
	assert_bytes(pb_close(len_at, p), 0x0a, 0x02, 0x12, 0x00);
}

/* 127 content bytes fit the reserved byte; 128 move the content one byte up,
 * 16384 two; an enclosing message counts the moved bytes. */
static void test_long_message_moves_its_content_for_the_length(void **state)
{
	static char big[20000];
	char *len_at, *outer, *p;
	char filler[16384];

	(void)state;
	memset(filler, 'x', sizeof(filler));
	p = pb_open(buf, 1, &len_at);
	p = fmt_mem(p, filler, 127);
	p = pb_close(len_at, p);
	assert_int_equal(p - buf, 2 + 127);
	assert_int_equal((unsigned char)buf[1], 127);

	p = pb_open(buf, 1, &len_at);
	p = fmt_mem(p, filler, 128);
	p = pb_close(len_at, p);
	assert_int_equal(p - buf, 3 + 128);
	assert_memory_equal(buf, "\x0a\x80\x01xx", 5);
	assert_int_equal(buf[3 + 127], 'x');

	p = pb_open(big, 1, &outer);
	p = pb_open(p, 2, &len_at);
	p = fmt_mem(p, filler, sizeof(filler));
	p = pb_close(len_at, p);        /* inner: tag, 3-byte length, 16384 bytes */
	p = pb_close(outer, p);         /* outer: tag, 3-byte length (16388) */
	assert_int_equal(p - big, 1 + 3 + 1 + 3 + 16384);
	assert_memory_equal(big, "\x0a\x84\x80\x01\x12\x80\x80\x01xx", 10);
	assert_int_equal(big[p - big - 1], 'x');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_varint_encodes_groups_of_seven_bits_low_first),
		cmocka_unit_test(test_fields_carry_number_and_wire_type),
		cmocka_unit_test(test_nested_message_gets_its_length_patched),
		cmocka_unit_test(test_long_message_moves_its_content_for_the_length),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
