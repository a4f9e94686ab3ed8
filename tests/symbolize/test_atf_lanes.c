/* test_atf_lanes.c - lanes.atf (docs/atf-extensions.md): the writer lays out
 * each kind's record as the page says, the reader takes back what it
 * wrote, and both refuse what the page does not define: an unknown kind
 * or op, a record out of order, a changed byte. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "atf.h"

static char dir[] = "/tmp/ada_test_atf_lanes_XXXXXX";
static char path[256];

static uint64_t le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* One record of each kind, in order. */
static const struct atf_lane lanes[] = {
	{ .timestamp_ns = 1000, .index_seq = 0, .call_depth = 0, .kind = ATF_LANE_ALLOC,
	  .op = 1, .a = 0x5555aaaa0010, .b = 48 },
	{ .timestamp_ns = 1500, .index_seq = 3, .call_depth = 2, .kind = ATF_LANE_SAMPLE,
	  .a = 1000123, .b = 77, .c = 2, .d = 0xfffffffe, .e = 5,
	  .function_id = 0x0000000100000007 },
	{ .timestamp_ns = 1500, .index_seq = 3, .call_depth = 2, .kind = ATF_LANE_ALLOC,
	  .op = 5, .flags = ATF_LANE_FLAG_FREED, .a = 0x5555aaaa0010 },
	{ .timestamp_ns = 9000, .index_seq = 4, .call_depth = 1, .kind = ATF_LANE_BLOCK,
	  .op = 1, .a = 0x7fff0040, .b = 2000 },
};
#define NLANES (sizeof(lanes) / sizeof(lanes[0]))

static void write_lanes(void)
{
	struct atf_lanes_writer *w = atf_lanes_open(path, 3, ATF_ARCH_X86_64);

	assert_non_null(w);
	for (size_t i = 0; i < NLANES; i++)
		assert_int_equal(atf_lanes_append(w, &lanes[i]), 0);
	assert_int_equal(atf_lanes_count(w), NLANES);
	assert_int_equal(atf_lanes_close(w), 0);
}

static uint8_t *slurp(size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	rewind(f);
	buf = malloc(*len);
	assert_int_equal(fread(buf, 1, *len, f), *len);
	fclose(f);
	return buf;
}

/* The bytes back with byte off set to v and the CRC made right again. */
static void spill_changed(uint8_t *b, size_t len, size_t off, uint8_t v)
{
	uint32_t crc;
	FILE *f;

	b[off] = v;
	crc = atf_crc32(0, b + 64, len - 128);
	for (int i = 0; i < 4; i++)
		b[len - 64 + 4 + i] = (uint8_t)(crc >> 8 * i);
	assert_non_null(f = fopen(path, "wb"));
	assert_int_equal(fwrite(b, 1, len, f), len);
	fclose(f);
}

static void test_layout_of_header_records_and_footer(void **state)
{
	size_t len;
	uint8_t *b;
	const uint8_t *r, *ft;

	(void)state;
	write_lanes();
	b = slurp(&len);
	assert_int_equal(len, 64 + 64 * NLANES + 64);
	assert_memory_equal(b, "ATL2", 4);
	assert_int_equal(b[4], 1);
	assert_int_equal(b[5], 1);
	assert_int_equal(b[6], ATF_ARCH_X86_64);
	assert_int_equal(b[7], ATF_OS_LINUX);
	assert_int_equal(le(b + 8, 4), 0x7); /* all three kinds */
	assert_int_equal(le(b + 12, 4), 3);
	assert_int_equal(b[16], ATF_CLOCK_BOOTTIME);
	assert_int_equal(le(b + 24, 4), 64);
	assert_int_equal(le(b + 28, 4), NLANES);
	assert_int_equal(le(b + 32, 8), 64);
	assert_int_equal(le(b + 40, 8), 64 + 64 * NLANES);
	assert_int_equal(le(b + 48, 8), 1000);
	assert_int_equal(le(b + 56, 8), 9000);
	r = b + 64 + 64; /* the sample */
	assert_int_equal(le(r, 8), 1500);
	assert_int_equal(le(r + 8, 4), 3);
	assert_int_equal(le(r + 12, 4), 2);
	assert_int_equal(le(r + 16, 2), ATF_LANE_SAMPLE);
	assert_int_equal(le(r + 24, 8), 1000123);
	assert_int_equal(le(r + 32, 8), 77);
	assert_int_equal(le(r + 40, 8), 2);
	assert_int_equal(le(r + 48, 4), 0xfffffffe);
	assert_int_equal(le(r + 52, 4), 5);
	assert_int_equal(le(r + 56, 8), 0x0000000100000007);
	r = b + 64 + 2 * 64; /* the free */
	assert_int_equal(le(r + 16, 2), ATF_LANE_ALLOC);
	assert_int_equal(le(r + 18, 2), 5);
	assert_int_equal(le(r + 20, 4), ATF_LANE_FLAG_FREED);
	ft = b + 64 + 64 * NLANES;
	assert_memory_equal(ft, "2LTA", 4);
	assert_int_equal(le(ft + 4, 4), atf_crc32(0, b + 64, 64 * NLANES));
	assert_int_equal(le(ft + 8, 8), NLANES);
	assert_int_equal(le(ft + 16, 8), 1000);
	assert_int_equal(le(ft + 24, 8), 9000);
	assert_int_equal(le(ft + 32, 8), 64 * NLANES);
	assert_int_equal(le(ft + 40, 8), 2); /* allocs */
	assert_int_equal(le(ft + 48, 8), 1); /* samples */
	assert_int_equal(le(ft + 56, 8), 1); /* blocks */
	free(b);
}

static void test_round_trip_of_each_kind(void **state)
{
	struct atf_lanes_file f;
	struct atf_lane l;
	char err[256];

	(void)state;
	write_lanes();
	assert_int_equal(atf_lanes_map(path, &f, true, err, sizeof(err)), 0);
	assert_int_equal(f.event_count, NLANES);
	assert_int_equal(f.thread_id, 3);
	assert_int_equal(f.kind_count[ATF_LANE_ALLOC], 2);
	for (size_t i = 0; i < NLANES; i++) {
		atf_lanes_get(&f, i, &l);
		assert_memory_equal(&l, &lanes[i], sizeof(l));
	}
	atf_lanes_unmap(&f);
}

static void test_writer_refuses_what_the_page_does_not_define(void **state)
{
	static const struct atf_lane bad[] = {
		{ .kind = 4, .op = 1 },
		{ .kind = ATF_LANE_ALLOC, .op = ATF_LANE_ALLOC_NOPS },
		{ .kind = ATF_LANE_BLOCK, .op = 0 },
		{ .kind = ATF_LANE_SAMPLE, .op = 1 },
		{ .kind = ATF_LANE_BLOCK, .op = 2, .flags = 1 },
		{ .kind = ATF_LANE_ALLOC, .op = 5, .flags = ATF_LANE_FLAG_FREED, .b = 8 },
		{ .kind = ATF_LANE_ALLOC, .op = 1, .function_id = 1 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct atf_lanes_writer *w = atf_lanes_open(path, 1, ATF_ARCH_X86_64);

		assert_non_null(w);
		assert_int_equal(atf_lanes_append(w, &bad[i]), -EINVAL);
		assert_int_equal(atf_lanes_close(w), -EINVAL);
		assert_int_equal(access(path, F_OK), -1); /* the partial file is gone */
	}
}

/* Byte off of the file set to v (CRC right): map refuses it saying what. */
static void expect_refused(size_t off, uint8_t v, const char *what)
{
	struct atf_lanes_file f;
	char err[256];
	size_t len;
	uint8_t *b;

	write_lanes();
	b = slurp(&len);
	spill_changed(b, len, off, v);
	free(b);
	assert_int_equal(atf_lanes_map(path, &f, true, err, sizeof(err)), -EBADMSG);
	if (!strstr(err, what))
		fail_msg("\"%s\" does not say \"%s\"", err, what);
}

static void test_reader_refuses_bad_records(void **state)
{
	(void)state;
	expect_refused(64 + 16, 9, "record #0: kind 9 not in 1..3");
	expect_refused(64 + 3 * 64 + 18, 10, "record #3: op 10 is not one of kind 3's");
	expect_refused(64 + 2 * 64 + 8, 1, "record #2: index_seq 1 before the record before's 3");
	expect_refused(64 + 64 + 1, 0, "record #1: timestamp 220 before the record before's 1000");
	expect_refused(64 + 40, 1, "record #0: bytes 40..63 not zero (kind 1)");
}

static void test_reader_refuses_a_changed_byte_by_crc(void **state)
{
	struct atf_lanes_file f;
	char err[256];
	size_t len;
	uint8_t *b;
	FILE *fp;

	(void)state;
	write_lanes();
	b = slurp(&len);
	b[64 + 24] ^= 1;
	assert_non_null(fp = fopen(path, "wb"));
	assert_int_equal(fwrite(b, 1, len, fp), len);
	fclose(fp);
	free(b);
	assert_int_equal(atf_lanes_map(path, &f, false, err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "footer CRC 0x"));
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/lanes.atf", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_of_header_records_and_footer),
		cmocka_unit_test(test_round_trip_of_each_kind),
		cmocka_unit_test(test_writer_refuses_what_the_page_does_not_define),
		cmocka_unit_test(test_reader_refuses_bad_records),
		cmocka_unit_test(test_reader_refuses_a_changed_byte_by_crc),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
