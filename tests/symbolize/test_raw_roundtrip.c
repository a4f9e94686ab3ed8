/* test_raw_roundtrip.c - what the runtime's encoder writes, framed in LZ4 as
 * recorder/writer.c frames it, decodes back to the same events; a file cut
 * short by a crash ends at its last whole frame; a damaged one is refused. */
#include <fcntl.h>
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
#include "encode.h"
#include "raw.h"
#include "raw_fixture.h"

/* ---- the writer side: a thread file built frame by frame ---------------------- */

struct tfile {
	struct rf_thread_file loc;
	struct ada_enc_stream enc;
	struct ada_fdict dict;
	size_t frame_end[16]; /* file size after each frame */
	size_t nframes;
	uint64_t pos;         /* the ring position of the next event */
};

static struct tfile *tf;

static int setup(void **state)
{
	(void)state;
	tf = calloc(1, sizeof(*tf));
	rf_thread_file_make(&tf->loc, "/tmp/ada_test_raw_XXXXXX");
	assert_int_equal(ada_fdict_init(&tf->dict), 0);
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

/* Appends `len` bytes as one LZ4 frame, and notes where it ends. */
static void append_frame(const uint8_t *data, size_t len)
{
	size_t total = rf_append_bytes(tf->loc.path, data, len);

	tf->frame_end[tf->nframes] = (tf->nframes ? tf->frame_end[tf->nframes - 1] : 0) + total;
	tf->nframes++;
}

/* One drain as writer.c encodes it: SYNC, POS (tf->pos), LOST notes
 * (lost[reason], may be NULL), the slots, then SKIP for slots that hold no
 * event (a close with nothing open). */
static void write_batch(const struct ada_slot *slots, size_t n, const uint64_t *lost)
{
	uint8_t *buf = malloc(ada_encode_bound(n) + ADA_ENC_SKIP_MAX + ADA_DROP_NREASONS * ADA_ENC_LOST_MAX);
	uint8_t *p = buf;
	uint64_t dropped = tf->enc.dropped;
	size_t len;
	unsigned r;

	p += ada_encode_sync(&tf->enc, n ? slots[0].tsc : tf->enc.last_tsc, tf->pos, p);
	tf->pos += n;
	for (r = 0; lost && r < ADA_DROP_NREASONS; r++)
		if (lost[r])
			p += ada_encode_lost(r, lost[r], p);
	len = ada_encode_slots(&tf->enc, &tf->dict, slots, n, p, NULL);
	assert_int_not_equal(len, (size_t)-1);
	p += len;
	if (tf->enc.dropped != dropped)
		p += ada_encode_skip(tf->enc.dropped - dropped, p);
	append_frame(buf, (size_t)(p - buf));
	free(buf);
}
#define BATCH(...)                                                              \
	do {                                                                    \
		const struct ada_slot s_[] = { __VA_ARGS__ };                   \
		write_batch(s_, sizeof(s_) / sizeof(s_[0]), NULL);              \
	} while (0)

static struct ada_slot slot(uint64_t tsc, unsigned kind, uint64_t addr)
{
	return (struct ada_slot){ tsc, addr | (uint64_t)kind << 62 };
}
#define CALL(t, a) slot((t), ADA_RAW_CALL, (a))
#define RET(t, a) slot((t), ADA_RAW_RETURN, (a))
#define EXC(t, a) slot((t), ADA_RAW_EXCEPTION, (a))

enum { FA = 0x401000, FB = 0x402000, FC = 0x403000 };

/* ---- the reader side ------------------------------------------------------------ */

static struct raw_stream *open_stream(void)
{
	struct raw_stream *s = raw_stream_open(tf->loc.raw, 0, tf->dict.next_fid - 1, ADA_RAW_VERSION);

	assert_non_null(s);
	return s;
}

struct want {
	uint64_t tsc;
	uint32_t fid;
	uint8_t kind;
	uint32_t depth;
};

static void next_expect(struct raw_stream *s, struct want w)
{
	struct raw_event ev;

	memset(&ev, 0, sizeof(ev));
	assert_int_equal(raw_stream_next(s, &ev), 1);
	assert_int_equal(ev.tsc, w.tsc);
	assert_int_equal(ev.fid, w.fid);
	assert_int_equal(ev.kind, w.kind);
	assert_int_equal(ev.depth, w.depth);
}
#define EXPECT_EVENTS(s, ...)                                                   \
	do {                                                                    \
		const struct want w_[] = { __VA_ARGS__ };                       \
		size_t i_;                                                      \
		for (i_ = 0; i_ < sizeof(w_) / sizeof(w_[0]); i_++)             \
			next_expect((s), w_[i_]);                               \
	} while (0)
#define EV(t, f, k, d) { (t), (f), ADA_RAW_##k, (d) }

static void expect_end(struct raw_stream *s)
{
	struct raw_event ev;

	assert_int_equal(raw_stream_next(s, &ev), 0);
}

/* A damaged file: one stderr line naming it, and a negative return. */
static void expect_refused(struct raw_stream *s)
{
	struct raw_event ev;
	const char *err;
	int rc;

	capture_begin();
	rc = raw_stream_next(s, &ev);
	err = capture_end();
	assert_true(rc < 0);
	assert_int_equal(count_lines(err), 1);
	assert_non_null(strstr(err, tf->loc.path));
}

/* ---- round trip ---------------------------------------------------------------- */

/* Three frames: A and B nest, then C (fid ≥ 63 through the escape), a long
 * gap, an EXCEPTION, and B's subtree closing in the last frame. */
static void write_three_frames(void)
{
	uint32_t i;

	BATCH(CALL(1000, FA), CALL(1005, FB), RET(1010, FB), CALL(1010, FB));
	for (i = 0; i < 62; i++) /* fids 3..64 */
		assert_int_equal(ada_fdict_get(&tf->dict, 0x900000 + i), i + 3);
	BATCH(CALL(2000, FC), RET(2063, FC), CALL(1u << 20, FC));
	BATCH(EXC(5000000, FC), RET(5000001, FB), RET(5000100, FA));
}

static void test_raw_roundtrip_events_come_back_exactly_across_frames(void **state)
{
	struct raw_stream *s;

	(void)state;
	write_three_frames();
	s = open_stream();
	EXPECT_EVENTS(s, EV(1000, 1, CALL, 1), EV(1005, 2, CALL, 2), EV(1010, 2, RETURN, 2),
		      EV(1010, 2, CALL, 2), EV(2000, 65, CALL, 3), EV(2063, 65, RETURN, 3),
		      EV(1u << 20, 65, CALL, 3), EV(5000000, 65, EXCEPTION, 3),
		      EV(5000001, 2, RETURN, 2), EV(5000100, 1, RETURN, 1));
	expect_end(s);
	assert_false(raw_stream_truncated(s));
	assert_int_equal(raw_stream_open_frames(s), 0);
	assert_int_equal(raw_stream_last_tsc(s), 5000100);
	raw_stream_close(s);
}

static void test_raw_roundtrip_backward_tsc_decodes_clamped(void **state)
{
	struct raw_stream *s;

	(void)state;
	BATCH(CALL(500, FA), CALL(400, FB), RET(600, FB));
	BATCH(RET(300, FA)); /* a frame whose SYNC is older than the stream */
	s = open_stream();
	EXPECT_EVENTS(s, EV(500, 1, CALL, 1), EV(500, 2, CALL, 2), EV(600, 2, RETURN, 2),
		      EV(600, 1, RETURN, 1));
	expect_end(s);
	raw_stream_close(s);
}

static void test_raw_roundtrip_many_events_in_one_frame(void **state)
{
	struct ada_slot *slots = calloc(60000, sizeof(*slots));
	struct raw_stream *s;
	struct raw_event ev;
	size_t i;

	(void)state;
	for (i = 0; i < 30000; i++) {
		slots[2 * i] = CALL(10 * i, 0x400000 + 16 * (i % 500));
		slots[2 * i + 1] = RET(10 * i + 5, 0x400000 + 16 * (i % 500));
	}
	write_batch(slots, 60000, NULL);
	s = open_stream();
	for (i = 0; i < 60000; i++) {
		assert_int_equal(raw_stream_next(s, &ev), 1);
		assert_int_equal(ev.tsc, 10 * (i / 2) + (i % 2 ? 5 : 0));
		assert_int_equal(ev.fid, (i / 2) % 500 + 1);
		assert_int_equal(ev.depth, 1);
	}
	expect_end(s);
	raw_stream_close(s);
	free(slots);
}

/* ---- LOST ---------------------------------------------------------------------- */

static void test_raw_roundtrip_lost_notes_accumulate_per_reason(void **state)
{
	const struct ada_slot a[] = { CALL(10, FA) };
	const struct ada_slot b[] = { RET(20, FA) };
	uint64_t lost1[ADA_DROP_NREASONS] = { [ADA_DROP_RING_FULL] = 3 };
	uint64_t lost2[ADA_DROP_NREASONS] = { [ADA_DROP_RING_FULL] = 2, [ADA_DROP_MAX_DEPTH] = 7 };
	uint64_t lost3[ADA_DROP_NREASONS] = { [ADA_DROP_UNMATCHED] = 1ull << 40 };
	struct raw_stream *s;
	const uint64_t *lost;

	(void)state;
	write_batch(a, 1, lost1);
	write_batch(b, 1, lost2);
	write_batch(NULL, 0, lost3); /* drops only: a frame with no events */
	s = open_stream();
	EXPECT_EVENTS(s, EV(10, 1, CALL, 1), EV(20, 1, RETURN, 1));
	expect_end(s);
	lost = raw_stream_lost(s);
	assert_int_equal(lost[ADA_DROP_RING_FULL], 5);
	assert_int_equal(lost[ADA_DROP_MAX_DEPTH], 7);
	assert_int_equal(lost[ADA_DROP_REENTRANT], 0);
	assert_int_equal(lost[ADA_DROP_UNMATCHED], 1ull << 40);
	assert_int_equal(raw_stream_last_tsc(s), 20);
	raw_stream_close(s);
}

static void test_raw_roundtrip_lost_with_unknown_reason_is_ignored(void **state)
{
	const uint8_t frame[] = { 0x03, 0, 0, 0, 0, 0, 0, 0, 0, RF_POS_TAG, 0, 0x07, 99, 4, 1 << 2, 0 };
	struct raw_stream *s;

	(void)state;
	assert_int_equal(ada_fdict_get(&tf->dict, FA), 1);
	append_frame(frame, sizeof(frame));
	s = open_stream();
	EXPECT_EVENTS(s, EV(0, 1, CALL, 1));
	expect_end(s);
	assert_int_equal(raw_stream_open_frames(s), 1);
	raw_stream_close(s);
}

/* ---- a file cut short ------------------------------------------------------------ */

static void truncate_to(size_t len)
{
	assert_int_equal(truncate(tf->loc.path, (off_t)len), 0);
}

static void write_open_frames(void)
{
	BATCH(CALL(100, FA), CALL(110, FB));
	BATCH(RET(120, FB), CALL(130, FC));
	BATCH(RET(140, FC), RET(150, FA));
}

static void expect_first_two_frames_then_open(struct raw_stream *s)
{
	EXPECT_EVENTS(s, EV(100, 1, CALL, 1), EV(110, 2, CALL, 2), EV(120, 2, RETURN, 2),
		      EV(130, 3, CALL, 2));
	expect_end(s);
	assert_true(raw_stream_truncated(s));
	assert_int_equal(raw_stream_open_frames(s), 2);
	assert_int_equal(raw_stream_pop(s), 3);
	assert_int_equal(raw_stream_pop(s), 1);
	assert_int_equal(raw_stream_pop(s), 0);
	assert_int_equal(raw_stream_open_frames(s), 0);
}

static void test_raw_roundtrip_cut_inside_the_last_frame_ends_at_the_frame_before(void **state)
{
	struct raw_stream *s;

	(void)state;
	write_open_frames();
	truncate_to((tf->frame_end[1] + tf->frame_end[2]) / 2);
	s = open_stream();
	expect_first_two_frames_then_open(s);
	raw_stream_close(s);
}

static void test_raw_roundtrip_cut_one_byte_short_ends_at_the_frame_before(void **state)
{
	struct raw_stream *s;

	(void)state;
	write_open_frames();
	truncate_to(tf->frame_end[2] - 1); /* the checksum's last byte is missing */
	s = open_stream();
	expect_first_two_frames_then_open(s);
	raw_stream_close(s);
}

static void test_raw_roundtrip_cut_inside_the_last_frames_header(void **state)
{
	struct raw_stream *s;

	(void)state;
	write_open_frames();
	truncate_to(tf->frame_end[1] + 3);
	s = open_stream();
	expect_first_two_frames_then_open(s);
	raw_stream_close(s);
}

static void test_raw_roundtrip_cut_at_a_frame_boundary_is_not_truncated(void **state)
{
	struct raw_stream *s;

	(void)state;
	write_open_frames();
	truncate_to(tf->frame_end[1]);
	s = open_stream();
	EXPECT_EVENTS(s, EV(100, 1, CALL, 1), EV(110, 2, CALL, 2), EV(120, 2, RETURN, 2),
		      EV(130, 3, CALL, 2));
	expect_end(s);
	assert_false(raw_stream_truncated(s));
	assert_int_equal(raw_stream_open_frames(s), 2);
	raw_stream_close(s);
}

static void test_raw_roundtrip_end_after_a_cut_frame_stays_the_end(void **state)
{
	struct raw_stream *s;
	struct raw_event ev;
	const char *err;
	int rc1, rc2;

	(void)state;
	write_open_frames();
	truncate_to(tf->frame_end[2] - 1);
	s = open_stream();
	EXPECT_EVENTS(s, EV(100, 1, CALL, 1), EV(110, 2, CALL, 2), EV(120, 2, RETURN, 2),
		      EV(130, 3, CALL, 2));
	capture_begin();
	rc1 = raw_stream_next(s, &ev);
	rc2 = raw_stream_next(s, &ev);
	err = capture_end();
	assert_int_equal(rc1, 0);
	assert_int_equal(rc2, 0);
	assert_string_equal(err, "");
	assert_int_equal(raw_stream_open_frames(s), 2);
	raw_stream_close(s);
}

static void test_raw_roundtrip_end_of_a_whole_file_stays_the_end(void **state)
{
	struct raw_stream *s;

	(void)state;
	write_open_frames();
	s = open_stream();
	EXPECT_EVENTS(s, EV(100, 1, CALL, 1), EV(110, 2, CALL, 2), EV(120, 2, RETURN, 2),
		      EV(130, 3, CALL, 2), EV(140, 3, RETURN, 2), EV(150, 1, RETURN, 1));
	expect_end(s);
	expect_end(s);
	raw_stream_close(s);
}

static void test_raw_roundtrip_empty_file_has_no_events(void **state)
{
	struct raw_stream *s;
	FILE *f;

	(void)state;
	f = fopen(tf->loc.path, "wb");
	assert_non_null(f);
	fclose(f);
	s = open_stream();
	expect_end(s);
	assert_false(raw_stream_truncated(s));
	raw_stream_close(s);
}

/* ---- damaged or missing files -------------------------------------------------------- */

static void flip_byte(size_t off)
{
	int fd = open(tf->loc.path, O_RDWR);
	uint8_t b;

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &b, 1, (off_t)off), 1);
	b ^= 0x5a;
	assert_int_equal(pwrite(fd, &b, 1, (off_t)off), 1);
	close(fd);
}

static void test_raw_roundtrip_corrupt_byte_is_refused_with_one_line(void **state)
{
	struct raw_stream *s;

	(void)state;
	write_open_frames();
	/* Inside frame 2's block (after its 7-byte header and 4-byte block size). */
	flip_byte(tf->frame_end[0] + 12);
	s = open_stream();
	EXPECT_EVENTS(s, EV(100, 1, CALL, 1), EV(110, 2, CALL, 2)); /* frame 1 stands */
	expect_refused(s);
	raw_stream_close(s);
}

static void test_raw_roundtrip_corrupt_frame_header_is_refused_with_one_line(void **state)
{
	struct raw_stream *s;

	(void)state;
	write_open_frames();
	flip_byte(0); /* the magic number */
	s = open_stream();
	expect_refused(s);
	raw_stream_close(s);
}

static void test_raw_roundtrip_fid_not_in_meta_is_refused_with_one_line(void **state)
{
	struct raw_stream *s;

	(void)state;
	BATCH(CALL(1, FA), CALL(2, FB));
	s = raw_stream_open(tf->loc.raw, 0, 1, ADA_RAW_VERSION); /* process.meta knew fid 1 only */
	assert_non_null(s);
	EXPECT_EVENTS(s, EV(1, 1, CALL, 1));
	expect_refused(s);
	raw_stream_close(s);
}

static void test_raw_roundtrip_return_with_nothing_open_is_refused_with_one_line(void **state)
{
	const uint8_t frame[] = { 0x03, 0, 0, 0, 0, 0, 0, 0, 0, RF_POS_TAG, 0, ADA_RAW_RETURN };
	struct raw_stream *s;

	(void)state;
	append_frame(frame, sizeof(frame));
	s = open_stream();
	expect_refused(s);
	raw_stream_close(s);
}

static void test_raw_roundtrip_event_cut_inside_a_frame_is_refused_with_one_line(void **state)
{
	const uint8_t frame[] = { 0x03, 0, 0, 0, 0, 0, 0, 0, 0, RF_POS_TAG, 0, 1 << 2, 0x80 };
	struct raw_stream *s;

	(void)state;
	assert_int_equal(ada_fdict_get(&tf->dict, FA), 1);
	append_frame(frame, sizeof(frame));
	s = open_stream();
	expect_refused(s);
	raw_stream_close(s);
}

static void test_raw_roundtrip_unknown_control_is_refused_with_one_line(void **state)
{
	const uint8_t frame[] = { 0x03, 0, 0, 0, 0, 0, 0, 0, 0, RF_POS_TAG, 0, 0x03 | 5 << 2 };
	struct raw_stream *s;

	(void)state;
	append_frame(frame, sizeof(frame));
	s = open_stream();
	expect_refused(s);
	raw_stream_close(s);
}

static void test_raw_roundtrip_missing_file_has_no_events(void **state)
{
	struct raw_stream *s;
	const char *err;

	(void)state;
	capture_begin();
	s = raw_stream_open(tf->loc.raw, 7, 10, ADA_RAW_VERSION);
	assert_non_null(s);
	expect_end(s);
	err = capture_end();
	assert_string_equal(err, "");
	assert_false(raw_stream_truncated(s));
	assert_int_equal(raw_stream_open_frames(s), 0);
	raw_stream_close(s);
}

/* ---- frame positions (POS, format version 3) ----------------------------------- */

/* The stream's one error line, exactly: the file, the frame's offset, what. */
static void expect_frame_refused(struct raw_stream *s, size_t frame_off, const char *what)
{
	struct raw_event ev;
	char want[512];
	const char *err;

	capture_begin();
	assert_true(raw_stream_next(s, &ev) < 0);
	err = capture_end();
	snprintf(want, sizeof(want), "ada-symbolize: %s: frame at byte %zu: %s\n", tf->loc.path,
		 frame_off, what);
	assert_string_equal(err, want);
}

static void test_raw_pos_continuing_frames_give_the_position_after_the_last(void **state)
{
	struct raw_stream *s;
	uint64_t pos = 0;

	(void)state;
	write_open_frames();
	s = open_stream();
	assert_false(raw_stream_position(s, &pos));
	EXPECT_EVENTS(s, EV(100, 1, CALL, 1), EV(110, 2, CALL, 2), EV(120, 2, RETURN, 2),
		      EV(130, 3, CALL, 2), EV(140, 3, RETURN, 2), EV(150, 1, RETURN, 1));
	expect_end(s);
	assert_true(raw_stream_position(s, &pos));
	assert_int_equal(pos, 6);
	assert_int_equal(raw_stream_whole_end(s), tf->frame_end[2]);
	raw_stream_close(s);
}

/* Every ring starts at position 0 (a fork child's thread too): a file whose
 * first frame says 40 lost the frames before it. */
static void test_raw_pos_above_0_in_the_first_frame_is_a_missing_frame(void **state)
{
	struct raw_stream *s;

	(void)state;
	tf->pos = 40;
	write_open_frames();
	s = open_stream();
	expect_frame_refused(s, 0,
			     "POS 40 where 0 was expected: a frame missing before it");
	raw_stream_close(s);
}

/* A RETURN with nothing open is dropped by the writer, and its position
 * counted by SKIP: the next frame's POS still continues. */
static void test_raw_pos_counts_skipped_positions(void **state)
{
	struct raw_stream *s;
	uint64_t pos = 0;

	(void)state;
	BATCH(CALL(100, FA), RET(110, FA), RET(115, FA));
	BATCH(CALL(120, FA), RET(130, FA));
	s = open_stream();
	EXPECT_EVENTS(s, EV(100, 1, CALL, 1), EV(110, 1, RETURN, 1), EV(120, 1, CALL, 1),
		      EV(130, 1, RETURN, 1));
	expect_end(s);
	assert_true(raw_stream_position(s, &pos));
	assert_int_equal(pos, 5);
	raw_stream_close(s);
}

static void test_raw_pos_of_a_cut_file_is_after_its_last_whole_frame(void **state)
{
	struct raw_stream *s;
	uint64_t pos;

	(void)state;
	write_open_frames();
	truncate_to(tf->frame_end[2] - 1);
	s = open_stream();
	expect_first_two_frames_then_open(s);
	assert_true(raw_stream_position(s, &pos));
	assert_int_equal(pos, 4);
	assert_int_equal(raw_stream_whole_end(s), tf->frame_end[1]);
	raw_stream_close(s);
}

static void test_raw_pos_below_the_expected_is_a_repeated_frame(void **state)
{
	struct raw_stream *s;

	(void)state;
	BATCH(CALL(100, FA), CALL(110, FB));
	tf->pos = 1; /* the second frame claims to start inside the first */
	BATCH(RET(120, FB), RET(130, FA));
	s = open_stream();
	EXPECT_EVENTS(s, EV(100, 1, CALL, 1), EV(110, 2, CALL, 2));
	expect_frame_refused(s, tf->frame_end[0], "POS 1 where 2 was expected: a frame written twice");
	raw_stream_close(s);
}

static void test_raw_pos_above_the_expected_is_a_missing_frame(void **state)
{
	struct raw_stream *s;

	(void)state;
	BATCH(CALL(100, FA), CALL(110, FB));
	BATCH(RET(120, FB));
	tf->pos += 5; /* a frame of five events never reached the file */
	BATCH(RET(130, FA));
	s = open_stream();
	EXPECT_EVENTS(s, EV(100, 1, CALL, 1), EV(110, 2, CALL, 2), EV(120, 2, RETURN, 2));
	expect_frame_refused(s, tf->frame_end[1],
			     "POS 8 where 3 was expected: a frame missing before it");
	raw_stream_close(s);
}

/* Recovery's frame may start after positions it counted as lost: that one
 * jump, of exactly that size, is allowed. */
static void test_raw_pos_jump_recovery_counted_is_not_a_missing_frame(void **state)
{
	struct raw_stream *s;

	(void)state;
	BATCH(CALL(100, FA));
	tf->pos += 4;
	BATCH(RET(130, FA));
	tf->pos += 4;
	BATCH(CALL(140, FA));
	s = open_stream();
	raw_stream_allow_gap(s, 4);
	EXPECT_EVENTS(s, EV(100, 1, CALL, 1), EV(130, 1, RETURN, 1));
	expect_frame_refused(s, tf->frame_end[1],
			     "POS 10 where 6 was expected: a frame missing before it");
	raw_stream_close(s);
}

static void test_raw_pos_missing_from_a_version_3_frame_is_refused(void **state)
{
	const uint8_t frame[] = { 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 1 << 2, 0 };
	struct raw_stream *s;

	(void)state;
	BATCH(CALL(100, FA));
	append_frame(frame, sizeof(frame));
	s = open_stream();
	EXPECT_EVENTS(s, EV(100, 1, CALL, 1));
	expect_frame_refused(s, tf->frame_end[0],
			     "no POS after the frame's SYNC (every version 3 frame has one)");
	raw_stream_close(s);
}

static void test_raw_pos_inside_a_frame_is_refused_with_one_line(void **state)
{
	const uint8_t frame[] = { 0x03, 0, 0, 0, 0, 0, 0, 0, 0, RF_POS_TAG, 0, 1 << 2, 0,
				  RF_POS_TAG, 1 };
	struct raw_stream *s;

	(void)state;
	assert_int_equal(ada_fdict_get(&tf->dict, FA), 1);
	append_frame(frame, sizeof(frame));
	s = open_stream();
	EXPECT_EVENTS(s, EV(0, 1, CALL, 1));
	expect_refused(s);
	raw_stream_close(s);
}

static void test_raw_pos_version_2_frames_have_none(void **state)
{
	const uint8_t f1[] = { 0x03, 100, 0, 0, 0, 0, 0, 0, 0, 1 << 2, 0 };
	const uint8_t f2[] = { 0x03, 120, 0, 0, 0, 0, 0, 0, 0, ADA_RAW_RETURN };
	struct raw_stream *s;
	uint64_t pos;

	(void)state;
	assert_int_equal(ada_fdict_get(&tf->dict, FA), 1);
	append_frame(f1, sizeof(f1));
	append_frame(f2, sizeof(f2));
	s = raw_stream_open(tf->loc.raw, 0, 1, 2);
	assert_non_null(s);
	EXPECT_EVENTS(s, EV(100, 1, CALL, 1), EV(120, 1, RETURN, 1));
	expect_end(s);
	assert_false(raw_stream_position(s, &pos));
	raw_stream_close(s);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_raw_roundtrip_events_come_back_exactly_across_frames),
		T(test_raw_roundtrip_backward_tsc_decodes_clamped),
		T(test_raw_roundtrip_many_events_in_one_frame),
		T(test_raw_roundtrip_lost_notes_accumulate_per_reason),
		T(test_raw_roundtrip_lost_with_unknown_reason_is_ignored),
		T(test_raw_roundtrip_cut_inside_the_last_frame_ends_at_the_frame_before),
		T(test_raw_roundtrip_cut_one_byte_short_ends_at_the_frame_before),
		T(test_raw_roundtrip_cut_inside_the_last_frames_header),
		T(test_raw_roundtrip_cut_at_a_frame_boundary_is_not_truncated),
		T(test_raw_roundtrip_end_after_a_cut_frame_stays_the_end),
		T(test_raw_roundtrip_end_of_a_whole_file_stays_the_end),
		T(test_raw_roundtrip_empty_file_has_no_events),
		T(test_raw_roundtrip_corrupt_byte_is_refused_with_one_line),
		T(test_raw_roundtrip_corrupt_frame_header_is_refused_with_one_line),
		T(test_raw_roundtrip_fid_not_in_meta_is_refused_with_one_line),
		T(test_raw_roundtrip_return_with_nothing_open_is_refused_with_one_line),
		T(test_raw_roundtrip_event_cut_inside_a_frame_is_refused_with_one_line),
		T(test_raw_roundtrip_unknown_control_is_refused_with_one_line),
		T(test_raw_roundtrip_missing_file_has_no_events),
		T(test_raw_pos_continuing_frames_give_the_position_after_the_last),
		T(test_raw_pos_above_0_in_the_first_frame_is_a_missing_frame),
		T(test_raw_pos_counts_skipped_positions),
		T(test_raw_pos_of_a_cut_file_is_after_its_last_whole_frame),
		T(test_raw_pos_below_the_expected_is_a_repeated_frame),
		T(test_raw_pos_above_the_expected_is_a_missing_frame),
		T(test_raw_pos_jump_recovery_counted_is_not_a_missing_frame),
		T(test_raw_pos_missing_from_a_version_3_frame_is_refused),
		T(test_raw_pos_inside_a_frame_is_refused_with_one_line),
		T(test_raw_pos_version_2_frames_have_none),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
