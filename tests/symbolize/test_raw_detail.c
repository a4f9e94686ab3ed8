/* test_raw_detail.c - DETAIL records (fentry/mcount modes) decode onto the
 * event just before them, byte for byte, with the FREGS that follows one
 * (format version 4) and without it (version 3: no FP registers); a DETAIL
 * that is cut short, claims more than ADA_STACK_MAX bytes of stack, or
 * follows no event, and a FREGS cut short or after no DETAIL, are refused
 * with one line naming the file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/capture.h"
#include "raw.h"
#include "raw_fixture.h"

struct tfile {
	struct rf_thread_file loc;
	struct ada_enc_stream enc;
	struct ada_fdict dict;
	struct rf_frame f;
};

static struct tfile *tf;

enum { FA = 0x401000, FB = 0x402000, FC = 0x403000 };
static const uint64_t addrs[] = { FA, FB, FC }; /* fids 1, 2, 3 */

static int setup(void **state)
{
	(void)state;
	tf = calloc(1, sizeof(*tf));
	rf_thread_file_make(&tf->loc, "/tmp/ada_test_detail_XXXXXX");
	rf_fdict_init(&tf->dict, addrs, 3);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	rf_thread_file_remove(&tf->loc);
	ada_enc_stream_free(&tf->enc);
	ada_fdict_free(&tf->dict);
	free(tf);
	return 0;
}

/* ---- writing ------------------------------------------------------------------ */

static void sync_at(uint64_t tsc)
{
	rf_sync(&tf->f, &tf->enc, tsc);
}

static void event(uint64_t tsc, unsigned kind, uint64_t addr)
{
	rf_event(&tf->f, &tf->enc, &tf->dict, tsc, kind, addr);
}

/* The detail rf_make_detail(seed, stack_size) makes, appended to the frame. */
static void detail(unsigned seed, uint16_t stack_size)
{
	struct ada_raw_detail d;
	uint8_t stack[ADA_STACK_MAX];

	rf_make_detail(seed, stack_size, &d, stack);
	rf_detail(&tf->f, &d, stack);
}

static void put_bytes(const void *p, size_t n)
{
	rf_put(&tf->f, p, n);
}

static void end_frame(void)
{
	rf_append(tf->loc.path, &tf->f);
}

/* ---- reading ------------------------------------------------------------------ */

static struct raw_stream *open_stream_version(uint32_t version)
{
	struct raw_stream *s = raw_stream_open(tf->loc.raw, 0, 3, version);

	assert_non_null(s);
	return s;
}

static struct raw_stream *open_stream(void)
{
	return open_stream_version(ADA_RAW_VERSION);
}

/* The next event is (tsc, fid, kind, depth) and carries no detail. */
static void expect_plain(struct raw_stream *s, uint64_t tsc, uint32_t fid, unsigned kind,
			 uint32_t depth)
{
	struct raw_event ev;

	memset(&ev, 0xA5, sizeof(ev));
	assert_int_equal(raw_stream_next(s, &ev), 1);
	assert_int_equal(ev.tsc, tsc);
	assert_int_equal(ev.fid, fid);
	assert_int_equal(ev.kind, kind);
	assert_int_equal(ev.depth, depth);
	assert_null(ev.detail);
	assert_null(ev.stack);
	assert_null(ev.fregs);
}

/* The next event is (tsc, fid, kind, depth) with exactly detail `seed`, and
 * the FP registers rf_make_fregs(fseed) makes, or none if fseed is 0. */
static void expect_detail_fregs(struct raw_stream *s, uint64_t tsc, uint32_t fid, unsigned kind,
				uint32_t depth, unsigned seed, uint16_t stack_size, unsigned fseed)
{
	struct ada_raw_detail want;
	uint8_t stack[ADA_STACK_MAX];
	uint64_t fregs[8];
	struct raw_event ev;

	rf_make_detail(seed, stack_size, &want, stack);
	memset(&ev, 0, sizeof(ev));
	assert_int_equal(raw_stream_next(s, &ev), 1);
	assert_int_equal(ev.tsc, tsc);
	assert_int_equal(ev.fid, fid);
	assert_int_equal(ev.kind, kind);
	assert_int_equal(ev.depth, depth);
	assert_non_null(ev.detail);
	assert_memory_equal(ev.detail, &want, ADA_RAW_DETAIL_SIZE);
	assert_int_equal(ev.detail->stack_size, stack_size);
	assert_int_equal(ev.detail->lr, 0x555555555000ull + seed);
	assert_int_equal(ev.detail->regs[5], (uint64_t)seed << 40 | 5 << 8 | 0x11);
	if (stack_size) {
		assert_non_null(ev.stack);
		assert_memory_equal(ev.stack, stack, stack_size);
	}
	if (!fseed) {
		assert_null(ev.fregs);
		return;
	}
	rf_make_fregs(fseed, fregs);
	assert_non_null(ev.fregs);
	for (unsigned r = 0; r < 8; r++)
		assert_int_equal(ev.fregs[r], fregs[r]);
}

static void expect_detail(struct raw_stream *s, uint64_t tsc, uint32_t fid, unsigned kind,
			  uint32_t depth, unsigned seed, uint16_t stack_size)
{
	expect_detail_fregs(s, tsc, fid, kind, depth, seed, stack_size, 0);
}

static void expect_end(struct raw_stream *s)
{
	struct raw_event ev;

	assert_int_equal(raw_stream_next(s, &ev), 0);
}

/* The next read is refused: negative, one stderr line naming the file and
 * containing `what`. */
static void expect_refused(struct raw_stream *s, const char *what)
{
	struct raw_event ev;
	const char *err;
	int rc;

	capture_begin();
	rc = raw_stream_next(s, &ev);
	err = capture_end();
	assert_true(rc < 0);
	assert_non_null(strchr(err, '\n'));
	assert_string_equal(strchr(err, '\n'), "\n"); /* one line */
	assert_non_null(strstr(err, tf->loc.path));
	assert_non_null(strstr(err, what));
}

/* ---- details in place ------------------------------------------------------------ */

/* Two frames: details after some CALLs, RETURNs and an EXCEPTION, none after
 * others; stacks of 0, 8, 16, 24 and ADA_STACK_MAX bytes. */
static void test_raw_detail_attaches_to_the_event_before_it(void **state)
{
	struct raw_stream *s;

	(void)state;
	sync_at(1000);
	event(1000, ADA_RAW_CALL, FA);
	detail(1, 16);
	event(1010, ADA_RAW_CALL, FB);
	event(1020, ADA_RAW_RETURN, FB);
	detail(2, 0);
	event(1030, ADA_RAW_CALL, FC);
	detail(3, ADA_STACK_MAX);
	event(1040, ADA_RAW_EXCEPTION, FC);
	detail(4, 8);
	end_frame();
	sync_at(2000);
	event(2000, ADA_RAW_CALL, FB);
	detail(5, 24);
	event(2010, ADA_RAW_RETURN, FB);
	event(2020, ADA_RAW_RETURN, FA);
	detail(6, 0);
	end_frame();

	s = open_stream();
	expect_detail(s, 1000, 1, ADA_RAW_CALL, 1, 1, 16);
	expect_plain(s, 1010, 2, ADA_RAW_CALL, 2);
	expect_detail(s, 1020, 2, ADA_RAW_RETURN, 2, 2, 0);
	expect_detail(s, 1030, 3, ADA_RAW_CALL, 2, 3, ADA_STACK_MAX);
	expect_detail(s, 1040, 3, ADA_RAW_EXCEPTION, 2, 4, 8);
	expect_detail(s, 2000, 2, ADA_RAW_CALL, 2, 5, 24);
	expect_plain(s, 2010, 2, ADA_RAW_RETURN, 2);
	expect_detail(s, 2020, 1, ADA_RAW_RETURN, 1, 6, 0);
	expect_end(s);
	assert_false(raw_stream_truncated(s));
	assert_int_equal(raw_stream_open_frames(s), 0);
	raw_stream_close(s);
}

/* A detail as the last bytes of a frame, and one before a LOST note. */
static void test_raw_detail_at_the_end_of_a_frame_and_before_lost(void **state)
{
	uint8_t lost[ADA_ENC_LOST_MAX];
	size_t n = ada_encode_lost(ADA_DROP_DETAIL_FULL, 3, lost);
	struct raw_stream *s;

	(void)state;
	sync_at(50);
	event(50, ADA_RAW_CALL, FA);
	detail(7, 40);
	put_bytes(lost, n);
	event(60, ADA_RAW_RETURN, FA);
	detail(8, 0);
	end_frame();

	s = open_stream();
	expect_detail(s, 50, 1, ADA_RAW_CALL, 1, 7, 40);
	expect_detail(s, 60, 1, ADA_RAW_RETURN, 1, 8, 0);
	expect_end(s);
	assert_int_equal(raw_stream_lost(s)[ADA_DROP_DETAIL_FULL], 3);
	raw_stream_close(s);
}

/* The struct is copied out of the frame: its fields read correctly whatever
 * the record's alignment in the frame (odd offsets here). */
static void test_raw_detail_at_unaligned_offsets_reads_the_same(void **state)
{
	struct raw_stream *s;

	(void)state;
	sync_at(7);
	event(7, ADA_RAW_CALL, FA);   /* 2 bytes: the detail tag at offset 11 */
	detail(9, 3);
	event(8, ADA_RAW_CALL, 0x404000);  /* a new fid, 4 */
	detail(10, 5);
	event(9, ADA_RAW_RETURN, 0x404000);
	event(9, ADA_RAW_RETURN, FA);
	end_frame();

	s = raw_stream_open(tf->loc.raw, 0, 4, ADA_RAW_VERSION);
	assert_non_null(s);
	expect_detail(s, 7, 1, ADA_RAW_CALL, 1, 9, 3);
	expect_detail(s, 8, 4, ADA_RAW_CALL, 2, 10, 5);
	expect_plain(s, 9, 4, ADA_RAW_RETURN, 2);
	expect_plain(s, 9, 1, ADA_RAW_RETURN, 1);
	expect_end(s);
	raw_stream_close(s);
}

/* ---- the FP registers (FREGS, version 4) ---------------------------------------- */

/* FREGS after a DETAIL's stack bytes belongs to the same event; a DETAIL
 * without one has none (NULL), also next to one that has. */
static void test_raw_detail_fp_registers_decode_onto_the_same_event(void **state)
{
	struct raw_stream *s;

	(void)state;
	sync_at(1000);
	event(1000, ADA_RAW_CALL, FA);
	detail(1, 16);
	rf_fregs(&tf->f, 21);
	event(1010, ADA_RAW_CALL, FB);
	detail(2, 0);
	event(1020, ADA_RAW_RETURN, FB);
	detail(3, 0);
	rf_fregs(&tf->f, 23);
	event(1030, ADA_RAW_RETURN, FA);
	end_frame();

	s = open_stream();
	expect_detail_fregs(s, 1000, 1, ADA_RAW_CALL, 1, 1, 16, 21);
	expect_detail(s, 1010, 2, ADA_RAW_CALL, 2, 2, 0);
	expect_detail_fregs(s, 1020, 2, ADA_RAW_RETURN, 2, 3, 0, 23);
	expect_plain(s, 1030, 1, ADA_RAW_RETURN, 1);
	expect_end(s);
	raw_stream_close(s);
}

/* A version 3 trace (before the FP registers) reads as it always did: its
 * details, no FP registers. */
static void test_raw_detail_version_3_has_no_fp_registers(void **state)
{
	struct raw_stream *s;

	(void)state;
	sync_at(100);
	event(100, ADA_RAW_CALL, FA);
	detail(1, 8);
	event(110, ADA_RAW_RETURN, FA);
	detail(2, 0);
	end_frame();

	s = open_stream_version(3);
	expect_detail(s, 100, 1, ADA_RAW_CALL, 1, 1, 8);
	expect_detail(s, 110, 1, ADA_RAW_RETURN, 1, 2, 0);
	expect_end(s);
	raw_stream_close(s);
}

/* Version 3 has no FREGS: there the tag is an unknown control record. */
static void test_raw_detail_fp_registers_in_version_3_are_refused(void **state)
{
	struct raw_stream *s;

	(void)state;
	sync_at(100);
	event(100, ADA_RAW_CALL, FA);
	detail(1, 0);
	rf_fregs(&tf->f, 1);
	end_frame();

	s = open_stream_version(3);
	expect_detail(s, 100, 1, ADA_RAW_CALL, 1, 1, 0);
	expect_refused(s, "unknown control record");
	raw_stream_close(s);
}

static void test_raw_detail_fp_registers_after_no_detail_are_refused(void **state)
{
	struct raw_stream *s;

	(void)state;
	sync_at(100);
	event(100, ADA_RAW_CALL, FA);
	rf_fregs(&tf->f, 1);
	end_frame();

	s = open_stream();
	expect_plain(s, 100, 1, ADA_RAW_CALL, 1);
	expect_refused(s, "FREGS record that follows no DETAIL");
	raw_stream_close(s);
}

static void test_raw_detail_fp_registers_cut_short_are_refused(void **state)
{
	const uint8_t tag = RF_FREGS_TAG;
	uint64_t fregs[8] = { 0 };
	struct raw_stream *s;

	(void)state;
	sync_at(100);
	event(100, ADA_RAW_CALL, FA);
	detail(1, 0);
	put_bytes(&tag, 1);
	put_bytes(fregs, ADA_RAW_FREGS_SIZE - 1);
	end_frame();

	s = open_stream();
	expect_refused(s, "FREGS record cut short");
	raw_stream_close(s);
}

/* ---- damaged records --------------------------------------------------------------- */

static void test_raw_detail_cut_inside_the_struct_is_refused(void **state)
{
	struct ada_raw_detail d;
	uint8_t stack[8];
	const uint8_t tag = RF_DETAIL_TAG;
	struct raw_stream *s;

	(void)state;
	rf_make_detail(1, 0, &d, stack);
	sync_at(100);
	event(100, ADA_RAW_CALL, FA);
	put_bytes(&tag, 1);
	put_bytes(&d, ADA_RAW_DETAIL_SIZE - 1);
	end_frame();

	s = open_stream();
	expect_refused(s, "DETAIL record cut short");
	raw_stream_close(s);
}

static void test_raw_detail_cut_inside_the_stack_is_refused(void **state)
{
	struct ada_raw_detail d;
	uint8_t stack[32];
	const uint8_t tag = RF_DETAIL_TAG;
	struct raw_stream *s;

	(void)state;
	rf_make_detail(1, 32, &d, stack);
	sync_at(100);
	event(100, ADA_RAW_CALL, FA);
	event(110, ADA_RAW_CALL, FB);
	put_bytes(&tag, 1);
	put_bytes(&d, ADA_RAW_DETAIL_SIZE);
	put_bytes(stack, 31);
	end_frame();

	s = open_stream();
	expect_plain(s, 100, 1, ADA_RAW_CALL, 1); /* what precedes stands */
	expect_refused(s, "DETAIL stack bytes cut short");
	raw_stream_close(s);
}

static void test_raw_detail_stack_larger_than_max_is_refused(void **state)
{
	struct ada_raw_detail d;
	uint8_t stack[ADA_STACK_MAX + 1];
	const uint8_t tag = RF_DETAIL_TAG;
	struct raw_stream *s;

	(void)state;
	rf_make_detail(1, 0, &d, stack);
	d.stack_size = ADA_STACK_MAX + 1;
	memset(stack, 0x77, sizeof(stack));
	sync_at(100);
	event(100, ADA_RAW_CALL, FA);
	put_bytes(&tag, 1);
	put_bytes(&d, ADA_RAW_DETAIL_SIZE);
	put_bytes(stack, sizeof(stack)); /* all there: the size alone is wrong */
	end_frame();

	s = open_stream();
	expect_refused(s, "stack_size 513 > 512");
	raw_stream_close(s);
}

static void test_raw_detail_first_in_a_frame_is_refused(void **state)
{
	struct raw_stream *s;

	(void)state;
	sync_at(100);
	event(100, ADA_RAW_CALL, FA);
	end_frame();
	sync_at(200); /* a frame may not continue the previous one's event */
	detail(1, 0);
	event(200, ADA_RAW_RETURN, FA);
	end_frame();

	s = open_stream();
	expect_plain(s, 100, 1, ADA_RAW_CALL, 1);
	expect_refused(s, "DETAIL record that follows no");
	raw_stream_close(s);
}

static void test_raw_detail_twice_after_one_event_is_refused(void **state)
{
	struct raw_stream *s;

	(void)state;
	sync_at(100);
	event(100, ADA_RAW_CALL, FA);
	detail(1, 8);
	detail(2, 8);
	end_frame();

	s = open_stream();
	expect_detail(s, 100, 1, ADA_RAW_CALL, 1, 1, 8);
	expect_refused(s, "DETAIL record that follows no");
	raw_stream_close(s);
}

static void test_raw_detail_after_lost_is_refused(void **state)
{
	uint8_t lost[ADA_ENC_LOST_MAX];
	size_t n = ada_encode_lost(ADA_DROP_RING_FULL, 1, lost);
	struct raw_stream *s;

	(void)state;
	sync_at(100);
	event(100, ADA_RAW_CALL, FA);
	put_bytes(lost, n);
	detail(1, 0);
	end_frame();

	s = open_stream();
	expect_plain(s, 100, 1, ADA_RAW_CALL, 1);
	expect_refused(s, "DETAIL record that follows no");
	raw_stream_close(s);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_raw_detail_attaches_to_the_event_before_it),
		T(test_raw_detail_at_the_end_of_a_frame_and_before_lost),
		T(test_raw_detail_at_unaligned_offsets_reads_the_same),
		T(test_raw_detail_fp_registers_decode_onto_the_same_event),
		T(test_raw_detail_version_3_has_no_fp_registers),
		T(test_raw_detail_fp_registers_in_version_3_are_refused),
		T(test_raw_detail_fp_registers_after_no_detail_are_refused),
		T(test_raw_detail_fp_registers_cut_short_are_refused),
		T(test_raw_detail_cut_inside_the_struct_is_refused),
		T(test_raw_detail_cut_inside_the_stack_is_refused),
		T(test_raw_detail_stack_larger_than_max_is_refused),
		T(test_raw_detail_first_in_a_frame_is_refused),
		T(test_raw_detail_twice_after_one_event_is_refused),
		T(test_raw_detail_after_lost_is_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
