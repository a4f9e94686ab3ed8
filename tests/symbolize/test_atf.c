/* test_atf.c - the ATF v2 writer produces the exact bytes of the spec, and of
 * ada's extension (docs/atf-extensions.md: fregs after a detail event's
 * stack, flags bit 0), and the reader takes back what the writer wrote and
 * refuses damaged files and undefined flag bits. */
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

static char dir[] = "/tmp/ada_test_atf_XXXXXX";
static char path[256];

static uint64_t le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* Reads the whole file; the caller frees. */
static uint8_t *slurp(const char *name, size_t *len)
{
	FILE *f = fopen(name, "rb");
	uint8_t *buf;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	rewind(f);
	buf = malloc(*len + 1);
	assert_int_equal(fread(buf, 1, *len, f), *len);
	fclose(f);
	return buf;
}

static void spill(const char *name, const uint8_t *buf, size_t len)
{
	FILE *f = fopen(name, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	fclose(f);
}

static struct atf_event event(uint64_t ts, uint64_t fid, uint32_t kind, uint32_t depth)
{
	return (struct atf_event){ .timestamp_ns = ts, .function_id = fid, .thread_id = 7,
				   .kind = kind, .call_depth = depth, .detail_seq = ATF_NO_DETAIL };
}

/* CALL f, CALL g, RETURN g, RETURN f on thread 7. */
static void write_small_index(const char *name)
{
	struct atf_index_writer *w = atf_index_open(name, 7, ATF_ARCH_X86_64);
	struct atf_event evs[] = {
		event(1000, 0x100000001ull, ATF_CALL, 1),
		event(1010, 0x100000002ull, ATF_CALL, 2),
		event(1020, 0x100000002ull, ATF_RETURN, 2),
		event(1030, 0x100000001ull, ATF_RETURN, 1),
	};

	assert_non_null(w);
	evs[1].detail_seq = 0;
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(atf_index_append(w, &evs[i]), 0);
	assert_int_equal(atf_index_count(w), 4);
	atf_index_set_has_detail(w, true);
	assert_int_equal(atf_index_close(w), 0);
}

static void test_crc32_of_check_vector_is_cbf43926(void **state)
{
	(void)state;
	assert_int_equal(atf_crc32(0, "123456789", 9), 0xCBF43926u);
	assert_int_equal(atf_crc32(0, "", 0), 0);
}

static void test_crc32_streams_across_split_points(void **state)
{
	uint8_t buf[1000];

	(void)state;
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 131 + 7);
	uint32_t whole = atf_crc32(0, buf, sizeof(buf));
	for (size_t cut = 0; cut <= 17; cut++)
		assert_int_equal(atf_crc32(atf_crc32(0, buf, cut), buf + cut, sizeof(buf) - cut),
				 whole);
}

static void test_index_header_fields_at_spec_offsets(void **state)
{
	size_t len;
	uint8_t *b;

	(void)state;
	write_small_index(path);
	b = slurp(path, &len);
	assert_int_equal(len, 64 + 4 * 32 + 64);
	assert_memory_equal(b, "ATI2", 4);
	assert_int_equal(b[4], 1);
	assert_int_equal(b[5], 1);
	assert_int_equal(b[6], 1);
	assert_int_equal(b[7], 4);
	assert_int_equal(le(b + 8, 4), 1);      /* flags: has detail */
	assert_int_equal(le(b + 12, 4), 7);     /* thread_id */
	assert_int_equal(b[16], 3);             /* CLOCK_BOOTTIME */
	for (int i = 17; i < 24; i++)
		assert_int_equal(b[i], 0);
	assert_int_equal(le(b + 24, 4), 32);
	assert_int_equal(le(b + 28, 4), 4);
	assert_int_equal(le(b + 32, 8), 64);
	assert_int_equal(le(b + 40, 8), 64 + 4 * 32);
	assert_int_equal(le(b + 48, 8), 1000);
	assert_int_equal(le(b + 56, 8), 1030);
	free(b);
}

static void test_index_event_is_32_packed_bytes(void **state)
{
	static const uint8_t want[32] = {
		0xF2, 0x03, 0, 0, 0, 0, 0, 0,   /* timestamp 1010 */
		0x02, 0, 0, 0, 0x01, 0, 0, 0,   /* function_id module 1, symbol 2 */
		7, 0, 0, 0,                     /* thread_id */
		1, 0, 0, 0,                     /* CALL */
		2, 0, 0, 0,                     /* depth */
		0, 0, 0, 0,                     /* detail_seq */
	};
	size_t len;
	uint8_t *b;

	(void)state;
	write_small_index(path);
	b = slurp(path, &len);
	assert_memory_equal(b + 64 + 32, want, 32);
	assert_int_equal(le(b + 64 + 2 * 32 + 28, 4), ATF_NO_DETAIL);
	free(b);
}

static void test_index_footer_fields_and_crc(void **state)
{
	size_t len;
	uint8_t *b, *ft;

	(void)state;
	write_small_index(path);
	b = slurp(path, &len);
	ft = b + 64 + 4 * 32;
	assert_memory_equal(ft, "2ITA", 4);
	assert_int_equal(le(ft + 4, 4), atf_crc32(0, b + 64, 4 * 32));
	assert_int_equal(le(ft + 8, 8), 4);
	assert_int_equal(le(ft + 16, 8), 1000);
	assert_int_equal(le(ft + 24, 8), 1030);
	assert_int_equal(le(ft + 32, 8), 4 * 32);
	for (int i = 40; i < 64; i++)
		assert_int_equal(ft[i], 0);
	free(b);
}

/* More events than one writer buffer holds, so flushes happen mid-stream. */
static void test_index_round_trip_across_buffer_flushes(void **state)
{
	enum { N = 30000 };
	struct atf_index_writer *w = atf_index_open(path, 3, ATF_ARCH_ARM64);
	struct atf_index_file f;
	struct atf_event ev;
	char err[256];

	(void)state;
	assert_non_null(w);
	for (uint32_t i = 0; i < N; i++) {
		ev = event(5000 + i, (uint64_t)(i % 5 + 1) << 32 | (i + 1), 1 + i % 3, i % 9 + 1);
		ev.thread_id = 3;
		assert_int_equal(atf_index_append(w, &ev), 0);
	}
	assert_int_equal(atf_index_close(w), 0);

	assert_int_equal(atf_index_map(path, &f, err, sizeof(err)), 0);
	assert_int_equal(f.event_count, N);
	assert_int_equal(f.thread_id, 3);
	assert_int_equal(f.arch, ATF_ARCH_ARM64);
	assert_int_equal(f.flags, 0);
	assert_int_equal(f.time_start_ns, 5000);
	assert_int_equal(f.time_end_ns, 5000 + N - 1);
	for (uint32_t i = 0; i < N; i += 997) {
		atf_index_get(&f, i, &ev);
		assert_int_equal(ev.timestamp_ns, 5000 + i);
		assert_int_equal(ev.function_id, (uint64_t)(i % 5 + 1) << 32 | (i + 1));
		assert_int_equal(ev.kind, 1 + i % 3);
		assert_int_equal(ev.call_depth, i % 9 + 1);
		assert_int_equal(ev.detail_seq, ATF_NO_DETAIL);
	}
	atf_index_unmap(&f);
}

static void test_index_with_no_events_is_header_and_footer(void **state)
{
	struct atf_index_writer *w = atf_index_open(path, 0, ATF_ARCH_X86_64);
	struct atf_index_file f;
	char err[256];

	(void)state;
	assert_int_equal(atf_index_close(w), 0);
	assert_int_equal(atf_index_map(path, &f, err, sizeof(err)), 0);
	assert_int_equal(f.event_count, 0);
	assert_int_equal(f.map_len, 128);
	atf_index_unmap(&f);
}

/* Damages the small index at byte `off` (xor) or cuts it to `len`, then maps. */
static int map_damaged(size_t off, uint8_t x, size_t cut, char *err, size_t errlen)
{
	struct atf_index_file f;
	size_t len;
	uint8_t *b;
	int ret;

	write_small_index(path);
	b = slurp(path, &len);
	b[off] ^= x;
	spill(path, b, cut ? cut : len);
	free(b);
	ret = atf_index_map(path, &f, err, errlen);
	if (!ret)
		atf_index_unmap(&f);
	return ret;
}

static void test_reader_rejects_truncated_file(void **state)
{
	char err[256];

	(void)state;
	assert_int_equal(map_damaged(0, 0, 64 + 4 * 32 + 10, err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "truncated"));
	assert_int_equal(map_damaged(0, 0, 100, err, sizeof(err)), -EBADMSG);
}

static void test_reader_rejects_bad_magic(void **state)
{
	char err[256];

	(void)state;
	assert_int_equal(map_damaged(0, 0x20, 0, err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "magic"));
	assert_int_equal(map_damaged(64 + 4 * 32, 0x20, 0, err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "footer magic"));
}

static void test_reader_rejects_flipped_event_byte_by_crc(void **state)
{
	char err[256];

	(void)state;
	assert_int_equal(map_damaged(64 + 40, 0x01, 0, err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "CRC"));
}

static void test_reader_reports_missing_file_as_errno(void **state)
{
	struct atf_index_file f;
	char err[256];

	(void)state;
	assert_int_equal(atf_index_map("/nonexistent/index.atf", &f, err, sizeof(err)), -ENOENT);
}

static struct atf_detail detail(uint32_t seq, uint16_t type, uint16_t stack_size,
				const uint8_t *stack)
{
	struct atf_detail d = { .index_seq = seq, .event_type = type,
				.timestamp_ns = 100 + seq, .function_id = 0x200000000ull | seq,
				.lr = 0x4011aa, .fp = 0x7ffc0010, .sp = 0x7ffc0000,
				.stack_size = stack_size, .stack = stack };

	for (int i = 0; i < 8; i++)
		d.regs[i] = 0x1111111111111111ull * (uint64_t)(i + 1);
	return d;
}

static void write_details(const uint8_t *stack)
{
	struct atf_detail_writer *w = atf_detail_open(path, 2, ATF_ARCH_X86_64);
	struct atf_detail d;

	assert_non_null(w);
	d = detail(1, ATF_DETAIL_CALL, 16, stack);
	assert_int_equal(atf_detail_append(w, &d), 0);
	d = detail(4, ATF_DETAIL_RETURN, 0, NULL);
	assert_int_equal(atf_detail_append(w, &d), 0);
	d = detail(6, ATF_DETAIL_CALL, 512, stack);
	assert_int_equal(atf_detail_append(w, &d), 0);
	assert_int_equal(atf_detail_count(w), 3);
	assert_int_equal(atf_detail_close(w), 0);
}

static void test_detail_header_and_footer_layout(void **state)
{
	uint8_t stack[512] = { 0 };
	uint64_t bytes = 124 + 16 + 124 + 124 + 512;
	size_t len;
	uint8_t *b, *ft;

	(void)state;
	write_details(stack);
	b = slurp(path, &len);
	assert_int_equal(len, 64 + bytes + 64);
	assert_memory_equal(b, "ATD2", 4);
	assert_int_equal(le(b + 8, 4), 0);
	assert_int_equal(le(b + 12, 4), 2);
	assert_int_equal(le(b + 20, 8), 64);
	assert_int_equal(le(b + 28, 8), 3);
	assert_int_equal(le(b + 36, 8), bytes);
	assert_int_equal(le(b + 44, 8), 1);
	assert_int_equal(le(b + 52, 8), 6);
	assert_int_equal(le(b + 64, 4), 124 + 16);     /* first total_length */
	assert_int_equal(le(b + 64 + 4, 2), 3);
	assert_int_equal(le(b + 64 + 24 + 96, 2), 16); /* its stack_size */
	ft = b + 64 + bytes;
	assert_memory_equal(ft, "2DTA", 4);
	assert_int_equal(le(ft + 4, 4), atf_crc32(0, b + 64, bytes));
	assert_int_equal(le(ft + 8, 8), 3);
	assert_int_equal(le(ft + 16, 8), bytes);       /* bytes before the times */
	assert_int_equal(le(ft + 24, 8), 101);
	assert_int_equal(le(ft + 32, 8), 106);
	free(b);
}

static void test_detail_round_trip_keeps_registers_and_stack(void **state)
{
	uint8_t stack[512];
	struct atf_detail_file f;
	struct atf_detail d;
	uint64_t pos = 0;
	char err[256];

	(void)state;
	for (int i = 0; i < 512; i++)
		stack[i] = (uint8_t)(i ^ 0x5A);
	write_details(stack);
	assert_int_equal(atf_detail_map(path, &f, err, sizeof(err)), 0);
	assert_int_equal(f.event_count, 3);
	assert_int_equal(f.thread_id, 2);
	assert_true(atf_detail_next(&f, &pos, &d));
	assert_int_equal(d.index_seq, 1);
	assert_int_equal(d.event_type, ATF_DETAIL_CALL);
	assert_int_equal(d.regs[7], 0x8888888888888888ull);
	assert_int_equal(d.sp, 0x7ffc0000);
	assert_memory_equal(d.stack, stack, 16);
	assert_true(atf_detail_next(&f, &pos, &d));
	assert_int_equal(d.event_type, ATF_DETAIL_RETURN);
	assert_int_equal(d.stack_size, 0);
	assert_true(atf_detail_next(&f, &pos, &d));
	assert_int_equal(d.function_id, 0x200000006ull);
	assert_memory_equal(d.stack, stack, 512);
	assert_false(atf_detail_next(&f, &pos, &d));
	atf_detail_unmap(&f);
}

static void test_detail_writer_refuses_oversized_stack(void **state)
{
	uint8_t stack[600] = { 0 };
	struct atf_detail_writer *w = atf_detail_open(path, 0, ATF_ARCH_X86_64);
	struct atf_detail d = detail(0, ATF_DETAIL_CALL, 0, stack);

	(void)state;
	d.stack_size = 513;
	assert_int_equal(atf_detail_append(w, &d), -EINVAL);
	assert_int_equal(atf_detail_close(w), -EINVAL);
	assert_int_equal(access(path, F_OK), -1); /* the partial file is gone */
}

/* The detail file b (len bytes) written back with its footer's CRC made
 * right again, so that what is wrong is what a test changed. */
static void spill_with_crc(uint8_t *b, size_t len)
{
	uint32_t crc = atf_crc32(0, b + 64, len - 128);

	for (int i = 0; i < 4; i++)
		b[len - 64 + 4 + i] = (uint8_t)(crc >> 8 * i);
	spill(path, b, len);
	free(b);
}

/* write_details' file with byte `off` of it set to `value`, the CRC made
 * right again: the reader refuses it, saying `what`. */
static void expect_detail_refused(size_t off, uint8_t value, const char *what)
{
	uint8_t stack[512] = { 0 };
	struct atf_detail_file f;
	char err[256];
	size_t len;
	uint8_t *b;

	write_details(stack);
	b = slurp(path, &len);
	b[off] = value;
	spill_with_crc(b, len);
	assert_int_equal(atf_detail_map(path, &f, err, sizeof(err)), -EBADMSG);
	if (!strstr(err, what))
		fail_msg("refused with \"%s\", expected \"%s\"", err, what);
}

static void test_detail_reader_rejects_bad_total_length(void **state)
{
	(void)state;
	expect_detail_refused(64, 124 + 16 + 1, "total_length 141"); /* first total_length */
}

/* ---- ada's extension: the FP registers (flags bit 0) ----------------------- */

/* A call with fregs and 16 bytes of stack, then a return without. */
static void write_fregs_details(const uint8_t *stack)
{
	struct atf_detail_writer *w = atf_detail_open(path, 2, ATF_ARCH_X86_64);
	struct atf_detail d;

	assert_non_null(w);
	d = detail(1, ATF_DETAIL_CALL, 16, stack);
	d.flags = ATF_DETAIL_FLAG_FREGS;
	for (int i = 0; i < 8; i++)
		d.fregs[i] = 0x3ff0000000000000ull + (uint64_t)i;
	assert_int_equal(atf_detail_append(w, &d), 0);
	d = detail(2, ATF_DETAIL_RETURN, 0, NULL);
	assert_int_equal(atf_detail_append(w, &d), 0);
	assert_int_equal(atf_detail_close(w), 0);
}

static void test_detail_fregs_follow_the_stack_with_their_flag(void **state)
{
	uint8_t stack[16];
	const uint8_t *e;
	size_t len;
	uint8_t *b;

	(void)state;
	for (int i = 0; i < 16; i++)
		stack[i] = (uint8_t)(0xA0 + i);
	write_fregs_details(stack);
	b = slurp(path, &len);
	assert_int_equal(len, 64 + (124 + 16 + 64) + 124 + 64);
	e = b + 64;
	assert_int_equal(le(e, 4), 24 + 100 + 16 + 64); /* total_length */
	assert_int_equal(le(e + 6, 2), 1);               /* flags */
	assert_memory_equal(e + 124, stack, 16);
	for (int i = 0; i < 8; i++)
		assert_int_equal(le(e + 124 + 16 + 8 * i, 8), 0x3ff0000000000000ull + (uint64_t)i);
	e += 124 + 16 + 64;
	assert_int_equal(le(e, 4), 124);                 /* the return: no extension */
	assert_int_equal(le(e + 6, 2), 0);
	free(b);
}

static void test_detail_fregs_read_back_and_none_read_as_zero(void **state)
{
	uint8_t stack[16] = { 0 };
	struct atf_detail_file f;
	struct atf_detail d;
	uint64_t pos = 0;
	char err[256];

	(void)state;
	write_fregs_details(stack);
	assert_int_equal(atf_detail_map(path, &f, err, sizeof(err)), 0);
	assert_true(atf_detail_next(&f, &pos, &d));
	assert_int_equal(d.flags, ATF_DETAIL_FLAG_FREGS);
	for (int i = 0; i < 8; i++)
		assert_int_equal(d.fregs[i], 0x3ff0000000000000ull + (uint64_t)i);
	assert_int_equal(d.sp, 0x7ffc0000);
	assert_true(atf_detail_next(&f, &pos, &d));
	assert_int_equal(d.flags, 0);
	assert_int_equal(d.index_seq, 2);
	for (int i = 0; i < 8; i++)
		assert_int_equal(d.fregs[i], 0);
	assert_false(atf_detail_next(&f, &pos, &d));
	atf_detail_unmap(&f);
}

/* The flag without its 64 bytes: total_length is then 64 short. */
static void test_detail_reader_rejects_the_fregs_flag_without_its_bytes(void **state)
{
	(void)state;
	expect_detail_refused(64 + 6, ATF_DETAIL_FLAG_FREGS,
			      "total_length 140 != 124 + stack_size 16 + fregs 64");
}

/* A bit nobody defined may mean bytes a reader cannot skip: refused, by
 * the reader and by the writer. */
static void test_detail_undefined_flag_bits_are_refused(void **state)
{
	struct atf_detail_writer *w;
	struct atf_detail d;

	(void)state;
	expect_detail_refused(64 + 7, 0x80, "flags 0x8000 set undefined bits"); /* bit 15 */
	w = atf_detail_open(path, 0, ATF_ARCH_X86_64);
	assert_non_null(w);
	d = detail(0, ATF_DETAIL_CALL, 0, NULL);
	d.flags = 2;
	assert_int_equal(atf_detail_append(w, &d), -EINVAL);
	assert_int_equal(atf_detail_close(w), -EINVAL);
}

/* ---- ada's extension: a return without a value (flags bit 1) --------------- */

/* A return left by a tail call's jump: bit 1 written, read back, no bytes of
 * its own; on a call refused by the reader (write_details' first event is
 * a call) and by the writer. */
static void test_detail_novalue_flag_is_a_returns(void **state)
{
	struct atf_detail_writer *w = atf_detail_open(path, 2, ATF_ARCH_X86_64);
	struct atf_detail_file f;
	struct atf_detail d;
	uint64_t pos = 0;
	char err[256];
	size_t len;
	uint8_t *b;

	(void)state;
	assert_non_null(w);
	d = detail(1, ATF_DETAIL_RETURN, 0, NULL);
	d.flags = ATF_DETAIL_FLAG_NOVALUE;
	assert_int_equal(atf_detail_append(w, &d), 0);
	assert_int_equal(atf_detail_close(w), 0);
	b = slurp(path, &len);
	assert_int_equal(len, 64 + 124 + 64);
	assert_int_equal(le(b + 64 + 6, 2), ATF_DETAIL_FLAG_NOVALUE);
	free(b);
	assert_int_equal(atf_detail_map(path, &f, err, sizeof(err)), 0);
	assert_true(atf_detail_next(&f, &pos, &d));
	assert_int_equal(d.flags, ATF_DETAIL_FLAG_NOVALUE);
	atf_detail_unmap(&f);

	expect_detail_refused(64 + 6, ATF_DETAIL_FLAG_NOVALUE,
			      "flags 0x2 say a call has no return value (bit 1 is a return's)");
	w = atf_detail_open(path, 0, ATF_ARCH_X86_64);
	assert_non_null(w);
	d = detail(0, ATF_DETAIL_CALL, 0, NULL);
	d.flags = ATF_DETAIL_FLAG_NOVALUE;
	assert_int_equal(atf_detail_append(w, &d), -EINVAL);
	assert_int_equal(atf_detail_close(w), -EINVAL);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/file.atf", dir);
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
		cmocka_unit_test(test_crc32_of_check_vector_is_cbf43926),
		cmocka_unit_test(test_crc32_streams_across_split_points),
		cmocka_unit_test(test_index_header_fields_at_spec_offsets),
		cmocka_unit_test(test_index_event_is_32_packed_bytes),
		cmocka_unit_test(test_index_footer_fields_and_crc),
		cmocka_unit_test(test_index_round_trip_across_buffer_flushes),
		cmocka_unit_test(test_index_with_no_events_is_header_and_footer),
		cmocka_unit_test(test_reader_rejects_truncated_file),
		cmocka_unit_test(test_reader_rejects_bad_magic),
		cmocka_unit_test(test_reader_rejects_flipped_event_byte_by_crc),
		cmocka_unit_test(test_reader_reports_missing_file_as_errno),
		cmocka_unit_test(test_detail_header_and_footer_layout),
		cmocka_unit_test(test_detail_round_trip_keeps_registers_and_stack),
		cmocka_unit_test(test_detail_writer_refuses_oversized_stack),
		cmocka_unit_test(test_detail_reader_rejects_bad_total_length),
		cmocka_unit_test(test_detail_fregs_follow_the_stack_with_their_flag),
		cmocka_unit_test(test_detail_fregs_read_back_and_none_read_as_zero),
		cmocka_unit_test(test_detail_reader_rejects_the_fregs_flag_without_its_bytes),
		cmocka_unit_test(test_detail_undefined_flag_bits_are_refused),
		cmocka_unit_test(test_detail_novalue_flag_is_a_returns),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
