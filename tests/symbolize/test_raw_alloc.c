/* test_raw_alloc.c - kind-3 slots through the recorder's encoder and back
 * through raw_stream.
 *
 * ALLOC slots (ADA_ALLOC, mcount/alloc.c): a block allocated keeps its
 * address, size and function, one freed its address, each takes a ring
 * position of its own (POS and THREAD_END's count see it), opens and
 * closes no frame, and is passed over unless the reader asks for blocks.
 * A ring-mode cut does not take one (nor a SAMPLE part) for a frame's close.
 *
 * SAMPLE parts (ADA_COUNTERS, runtime/counters.c): a sample's three slots
 * come back as one event with its tsc, its totals and its interrupted
 * address as a function id (a FUNCS entry of its own), inside the frames
 * open then; each part takes a ring position; a sample is passed over
 * unless the reader asks, one cut short (a ring-mode cut took its first
 * part) is passed over whole, and a version 5 reader refuses it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "encode.h"
#include "raw.h"
#include "raw_fixture.h"

static struct rf_thread_file loc;
static struct ada_enc_stream enc;
static struct ada_fdict dict;

static int setup(void **state)
{
	(void)state;
	memset(&enc, 0, sizeof(enc));
	rf_thread_file_make(&loc, "/tmp/ada_test_alloc_XXXXXX");
	assert_int_equal(ada_fdict_init(&dict), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	rf_thread_file_remove(&loc);
	ada_enc_stream_free(&enc);
	ada_fdict_free(&dict);
	return 0;
}

enum { MAIN = 0x401000, MALLOC = 0x7f0000001000, FREE = 0x7f0000002000 };
#define PTR 0x55550000a2a0ull

static struct ada_slot frame_slot(uint64_t tsc, unsigned kind, uint64_t addr)
{
	return (struct ada_slot){ tsc, addr | (uint64_t)kind << 62 };
}

static struct ada_slot block(unsigned what, uint64_t ptr, uint64_t size)
{
	return (struct ada_slot){ size, ptr | (uint64_t)what << ADA_ALLOC_WHAT_SHIFT |
						 ADA_SLOT_ALLOC_KIND << 62 };
}

/* One frame of these slots appended to the thread file, as the recorder
 * writes it. */
static void append_frame(const struct ada_slot *s, size_t count)
{
	uint8_t buf[512], *p = buf;
	size_t n;

	p += ada_encode_sync(&enc, s[0].tsc, 0, p);
	n = ada_encode_slots(&enc, &dict, s, count, p, NULL);
	assert_int_not_equal(n, (size_t)-1);
	assert_true(n <= ada_encode_bound(count));
	rf_append_bytes(loc.path, buf, (size_t)(p + n - buf));
}

/* main { malloc (a block of 64) ; free (that block) }: 7 positions. */
static void write_one_frame(void)
{
	const struct ada_slot s[] = {
		frame_slot(100, ADA_RAW_CALL, MAIN),
		frame_slot(110, ADA_RAW_CALL, MALLOC),
		block(ADA_ALLOC_MALLOC, PTR, 64),
		frame_slot(120, ADA_RAW_RETURN, MALLOC),
		frame_slot(130, ADA_RAW_CALL, FREE),
		block(ADA_ALLOC_FREE | ADA_ALLOC_FREED, PTR, 0),
		frame_slot(140, ADA_RAW_RETURN, FREE),
		frame_slot(150, ADA_RAW_RETURN, MAIN),
	};

	append_frame(s, sizeof(s) / sizeof(s[0]));
}

/* The next event, which must be of that kind, depth and tick. */
static struct raw_event expect(struct raw_stream *s, uint8_t kind, uint32_t depth, uint64_t tsc)
{
	struct raw_event ev;

	assert_int_equal(raw_stream_next(s, &ev), 1);
	assert_int_equal(ev.kind, kind);
	assert_int_equal(ev.depth, depth);
	assert_int_equal(ev.tsc, tsc);
	return ev;
}

static void test_raw_alloc_blocks_come_back_inside_their_frames(void **state)
{
	struct raw_stream *s;
	struct raw_event ev;
	uint64_t pos;

	(void)state;
	write_one_frame();
	s = raw_stream_open(loc.raw, 0, dict.next_fid - 1, ADA_RAW_VERSION);
	assert_non_null(s);
	raw_stream_want_allocs(s);
	expect(s, ADA_RAW_CALL, 1, 100);
	expect(s, ADA_RAW_CALL, 2, 110);
	assert_int_equal(raw_stream_next(s, &ev), 1);
	assert_int_equal(ev.kind, RAW_EV_ALLOC);
	assert_int_equal(ev.depth, 2);          /* in malloc's frame */
	assert_int_equal(ev.fid, 2);
	assert_int_equal(ev.tsc, 110);          /* its CALL's time */
	assert_int_equal(ev.alloc.ptr, PTR);
	assert_int_equal(ev.alloc.size, 64);
	assert_int_equal(ev.alloc.op, ADA_ALLOC_MALLOC);
	assert_false(ev.alloc.freed);
	expect(s, ADA_RAW_RETURN, 2, 120);
	expect(s, ADA_RAW_CALL, 2, 130);
	assert_int_equal(raw_stream_next(s, &ev), 1);
	assert_int_equal(ev.kind, RAW_EV_ALLOC);
	assert_int_equal(ev.alloc.ptr, PTR);
	assert_int_equal(ev.alloc.op, ADA_ALLOC_FREE);
	assert_true(ev.alloc.freed);
	expect(s, ADA_RAW_RETURN, 2, 140);
	expect(s, ADA_RAW_RETURN, 1, 150);
	assert_int_equal(raw_stream_next(s, &ev), 0);
	assert_true(raw_stream_position(s, &pos));
	assert_int_equal(pos, 8);               /* a position each */
	raw_stream_close(s);
}

/* A reader that did not ask reads the frames' events only (events of
 * them), the other slots' positions counted all the same. */
static void expect_passed_over(int events, uint64_t positions)
{
	struct raw_stream *s = raw_stream_open(loc.raw, 0, dict.next_fid - 1, ADA_RAW_VERSION);
	struct raw_event ev;
	uint64_t pos;
	int n = 0;

	assert_non_null(s);
	while (raw_stream_next(s, &ev) == 1) {
		assert_true(ev.kind <= ADA_RAW_EXCEPTION);
		n++;
	}
	assert_int_equal(n, events);
	assert_true(raw_stream_position(s, &pos));
	assert_int_equal(pos, positions);
	raw_stream_close(s);
}

static void test_raw_alloc_blocks_are_passed_over_unless_asked_for(void **state)
{
	(void)state;
	write_one_frame();
	expect_passed_over(6, 8);
}

static void test_raw_alloc_takes_no_frame_in_a_ring_cut(void **state)
{
	const struct ada_slot s[] = {
		block(ADA_ALLOC_MALLOC, PTR, 8),
		block(ADA_SAMPLE_WHAT_CSW, 0, 1), /* a sample's last part: no frame either */
		frame_slot(10, ADA_RAW_RETURN, MALLOC),
		frame_slot(20, ADA_RAW_RETURN, MAIN),
	};
	struct ada_cut_scan cs = { 0 };
	uint64_t calls[4];

	(void)state;
	ada_cut_scan(&cs, s, 4, calls, 4);
	assert_int_equal(cs.k, 2); /* malloc's and main's frames, not the block */
	assert_int_equal(calls[0], MALLOC);
	assert_int_equal(calls[1], MAIN);
}

enum { WORK = 0x401200, IP = 0x7f0000003456 };

/* main { work { sample } ; sample's last two parts alone }: 10 positions. */
static void write_sample_frame(void)
{
	const struct ada_slot s[] = {
		frame_slot(100, ADA_RAW_CALL, MAIN),
		frame_slot(110, ADA_RAW_CALL, WORK),
		block(ADA_SAMPLE_WHAT_IP, IP, 115),
		block(ADA_SAMPLE_WHAT_CPU, 77, 3000000),
		block(ADA_SAMPLE_WHAT_CSW, 2, 5ull | 9ull << 32),
		frame_slot(120, ADA_RAW_RETURN, WORK),
		block(ADA_SAMPLE_WHAT_CPU, 78, 4000000),
		block(ADA_SAMPLE_WHAT_CSW, 2, 6ull | 9ull << 32),
		frame_slot(150, ADA_RAW_RETURN, MAIN),
	};

	append_frame(s, sizeof(s) / sizeof(s[0]));
}

static void test_raw_sample_comes_back_whole_inside_its_frames(void **state)
{
	struct raw_stream *s;
	struct raw_event ev;
	uint64_t pos;

	(void)state;
	write_sample_frame();
	assert_int_equal(dict.next_fid - 1, 3); /* main, work, and the address */
	s = raw_stream_open(loc.raw, 0, dict.next_fid - 1, ADA_RAW_VERSION);
	assert_non_null(s);
	raw_stream_want_samples(s);
	expect(s, ADA_RAW_CALL, 1, 100);
	expect(s, ADA_RAW_CALL, 2, 110);
	assert_int_equal(raw_stream_next(s, &ev), 1);
	assert_int_equal(ev.kind, RAW_EV_SAMPLE);
	assert_int_equal(ev.depth, 2);          /* in work's frame */
	assert_int_equal(ev.fid, 2);
	assert_int_equal(ev.tsc, 115);          /* its own time */
	assert_int_equal(ev.sample.ip_fid, 3);
	assert_int_equal(ev.sample.cpu_ns, 3000000);
	assert_int_equal(ev.sample.minflt, 77);
	assert_int_equal(ev.sample.majflt, 2);
	assert_int_equal(ev.sample.nvcsw, 5);
	assert_int_equal(ev.sample.nivcsw, 9);
	expect(s, ADA_RAW_RETURN, 2, 120);
	expect(s, ADA_RAW_RETURN, 1, 150);      /* the parts cut short: no sample */
	assert_int_equal(raw_stream_next(s, &ev), 0);
	assert_true(raw_stream_position(s, &pos));
	assert_int_equal(pos, 9);               /* a position each part */
	raw_stream_close(s);
}

static void test_raw_sample_is_passed_over_unless_asked_for(void **state)
{
	(void)state;
	write_sample_frame();
	expect_passed_over(4, 9);
}

static void test_raw_sample_is_refused_by_a_version_5_reader(void **state)
{
	struct raw_stream *s;
	struct raw_event ev;
	int r;

	(void)state;
	write_sample_frame();
	s = raw_stream_open(loc.raw, 0, dict.next_fid - 1, 5);
	assert_non_null(s);
	while ((r = raw_stream_next(s, &ev)) == 1)
		;
	assert_true(r < 0); /* an unknown control record */
	raw_stream_close(s);
}

enum { LOCK = 0x7f0000004000, UNLOCK = 0x7f0000005000 };
#define MUTEX 0x555500004040ull

static struct ada_slot wait_part(unsigned op, uint64_t obj, uint64_t tsc)
{
	return block(ADA_BLOCK_WHAT, obj | (uint64_t)op << ADA_BLOCK_OP_SHIFT, tsc);
}

/* main { lock { a wait's two parts } ; unlock { a release } ; lock { a
 * wait's end alone } }: 12 positions. */
static void write_block_frame(void)
{
	const struct ada_slot s[] = {
		frame_slot(100, ADA_RAW_CALL, MAIN),
		frame_slot(110, ADA_RAW_CALL, LOCK),
		wait_part(ADA_BLOCK_MUTEX_LOCK | ADA_BLOCK_BEGIN, MUTEX, 112),
		wait_part(ADA_BLOCK_MUTEX_LOCK, MUTEX, 5000),
		frame_slot(5010, ADA_RAW_RETURN, LOCK),
		frame_slot(5020, ADA_RAW_CALL, UNLOCK),
		wait_part(ADA_BLOCK_MUTEX_UNLOCK, MUTEX, 5022),
		frame_slot(5030, ADA_RAW_RETURN, UNLOCK),
		frame_slot(5040, ADA_RAW_CALL, LOCK),
		wait_part(ADA_BLOCK_MUTEX_LOCK, MUTEX, 5045),
		frame_slot(5050, ADA_RAW_RETURN, LOCK),
		frame_slot(5060, ADA_RAW_RETURN, MAIN),
	};

	append_frame(s, sizeof(s) / sizeof(s[0]));
}

/* A wait or a release in its call's frame (depth 2), end its tick. */
static void expect_block(struct raw_stream *s, unsigned op, uint64_t start, uint64_t end)
{
	struct raw_event ev = expect(s, RAW_EV_BLOCK, 2, end);

	assert_int_equal(ev.block.op, op);
	assert_int_equal(ev.block.obj, MUTEX);
	assert_int_equal(ev.block.start_tsc, start);
}

/* A wait comes back whole, with its own ticks; a release alone; a wait's
 * part without the other is passed over; every part takes a position. */
static void test_raw_block_waits_and_releases_come_back_inside_their_calls(void **state)
{
	struct raw_event ev;
	uint64_t pos;
	struct raw_stream *s = (write_block_frame(),
				raw_stream_open(loc.raw, 0, dict.next_fid - 1, ADA_RAW_VERSION));

	(void)state;
	assert_non_null(s);
	raw_stream_want_blocks(s);
	for (int depth = 1; depth <= 2; depth++)
		expect(s, ADA_RAW_CALL, (uint32_t)depth, depth == 1 ? 100 : 110);
	expect_block(s, ADA_BLOCK_MUTEX_LOCK, 112, 5000);
	expect(s, ADA_RAW_RETURN, 2, 5010);
	expect(s, ADA_RAW_CALL, 2, 5020);
	expect_block(s, ADA_BLOCK_MUTEX_UNLOCK, 5022, 5022);
	expect(s, ADA_RAW_RETURN, 2, 5030);
	expect(s, ADA_RAW_CALL, 2, 5040);
	expect(s, ADA_RAW_RETURN, 2, 5050); /* the end alone: no wait */
	expect(s, ADA_RAW_RETURN, 1, 5060);
	assert_int_equal(raw_stream_next(s, &ev), 0);
	assert_true(raw_stream_position(s, &pos));
	assert_int_equal(pos, 12);
	raw_stream_close(s);
}

static void test_raw_block_is_passed_over_unless_asked_for(void **state)
{
	(void)state;
	write_block_frame();
	expect_passed_over(8, 12);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_raw_alloc_blocks_come_back_inside_their_frames),
		T(test_raw_alloc_blocks_are_passed_over_unless_asked_for),
		T(test_raw_alloc_takes_no_frame_in_a_ring_cut),
		T(test_raw_sample_comes_back_whole_inside_its_frames),
		T(test_raw_sample_is_passed_over_unless_asked_for),
		T(test_raw_sample_is_refused_by_a_version_5_reader),
		T(test_raw_block_waits_and_releases_come_back_inside_their_calls),
		T(test_raw_block_is_passed_over_unless_asked_for),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
