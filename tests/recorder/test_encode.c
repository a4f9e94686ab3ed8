/* test_encode.c - ring slots → the compact stream of raw_format.h, byte for
 * byte, and the function dictionary that numbers the addresses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ada_internal.h"
#include "encode.h"

#include "runtime/init_stubs.h"

struct enc_fixture {
	struct ada_enc_stream s;
	struct ada_fdict d;
	uint8_t out[32768];
};

static struct enc_fixture *fx;

static int setup(void **state)
{
	(void)state;
	fx = calloc(1, sizeof(*fx));
	assert_int_equal(ada_fdict_init(&fx->d), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	ada_enc_stream_free(&fx->s);
	ada_fdict_free(&fx->d);
	free(fx);
	return 0;
}

static struct ada_slot slot(uint64_t tsc, unsigned kind, uint64_t addr)
{
	return (struct ada_slot){ tsc, addr | (uint64_t)kind << 62 };
}
#define CALL(t, a) slot((t), ADA_RAW_CALL, (a))
#define RET(t, a) slot((t), ADA_RAW_RETURN, (a))
#define EXC(t, a) slot((t), ADA_RAW_EXCEPTION, (a))

/* Encodes the slots into fx->out and checks the exact bytes. */
static void encode_expect(const struct ada_slot *slots, size_t n, const uint8_t *want,
			  size_t want_len)
{
	size_t len = ada_encode_slots(&fx->s, &fx->d, slots, n, fx->out, NULL);

	assert_int_equal(len, want_len);
	assert_memory_equal(fx->out, want, want_len);
	assert_true(len <= ada_encode_bound(n));
}
#define ENCODE_EXPECT(slots, ...)                                                   \
	do {                                                                        \
		const uint8_t w_[] = { __VA_ARGS__ };                               \
		encode_expect((slots), sizeof(slots) / sizeof((slots)[0]), w_,      \
			      sizeof(w_));                                          \
	} while (0)

/* Numbers `count` addresses fid 1.. so the next new address gets count+1. */
static void use_fids(uint32_t count)
{
	uint32_t i;

	for (i = 0; i < count; i++)
		assert_int_equal(ada_fdict_get(&fx->d, 0x7000000 + i), i + 1);
}

/* ---- varint ------------------------------------------------------------------ */

static void varint_expect(uint64_t v, const uint8_t *want, size_t want_len)
{
	uint8_t out[16];

	memset(out, 0xee, sizeof(out));
	assert_int_equal(ada_put_varint(out, v), want_len);
	assert_memory_equal(out, want, want_len);
	assert_int_equal(out[want_len], 0xee); /* nothing written past the end */
}
#define VARINT_EXPECT(v, ...)                                       \
	do {                                                        \
		const uint8_t w_[] = { __VA_ARGS__ };               \
		varint_expect((v), w_, sizeof(w_));                 \
	} while (0)

static void test_encode_varint_is_unsigned_leb128(void **state)
{
	(void)state;
	VARINT_EXPECT(0, 0x00);
	VARINT_EXPECT(1, 0x01);
	VARINT_EXPECT(127, 0x7f);
	VARINT_EXPECT(128, 0x80, 0x01);
	VARINT_EXPECT(300, 0xac, 0x02);
	VARINT_EXPECT(1ull << 32, 0x80, 0x80, 0x80, 0x80, 0x10);
	VARINT_EXPECT(UINT64_MAX, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01);
}

/* ---- SYNC and LOST --------------------------------------------------------------- */

static void test_encode_sync_is_tag_then_8_byte_little_endian_tsc_then_pos(void **state)
{
	const uint8_t want[] = { 0x03, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
				 0x0f, 0xac, 0x02 };

	(void)state;
	assert_int_equal(ada_encode_sync(&fx->s, 0x0102030405060708ull, 300, fx->out),
			 sizeof(want));
	assert_memory_equal(fx->out, want, sizeof(want));
	assert_int_equal(fx->s.last_tsc, 0x0102030405060708ull);
}

static void test_encode_sync_never_goes_back_in_time(void **state)
{
	const uint8_t want[] = { 0x03, 0xe8, 0x03, 0, 0, 0, 0, 0, 0, 0x0f, 0x00 };

	(void)state;
	ada_encode_sync(&fx->s, 1000, 0, fx->out);
	assert_int_equal(ada_encode_sync(&fx->s, 400, 0, fx->out), sizeof(want));
	assert_memory_equal(fx->out, want, sizeof(want));
	assert_int_equal(fx->s.last_tsc, 1000);
}

static void test_encode_lost_is_tag_reason_count(void **state)
{
	const uint8_t small[] = { 0x07, 0x01, 0x05 };
	const uint8_t big[] = { 0x07, 0x05, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };

	(void)state;
	assert_int_equal(ada_encode_lost(ADA_DROP_MAX_DEPTH, 5, fx->out), sizeof(small));
	assert_memory_equal(fx->out, small, sizeof(small));
	assert_int_equal(ada_encode_lost(ADA_DROP_UNMATCHED, UINT64_MAX, fx->out), ADA_ENC_LOST_MAX);
	assert_memory_equal(fx->out, big, sizeof(big));
}

/* ---- events ------------------------------------------------------------------------- */

static void test_encode_call_with_small_fid_and_delta_is_two_bytes(void **state)
{
	const struct ada_slot s[] = { CALL(1005, 0x401000) };

	(void)state;
	fx->s.last_tsc = 1000;
	ENCODE_EXPECT(s, 1 << 2 | ADA_RAW_CALL, 5); /* fid 1, delta 5 */
	assert_int_equal(fx->s.depth, 1);
}

static void test_encode_call_with_fid_62_stays_inline(void **state)
{
	const struct ada_slot s[] = { CALL(127, 0x401000) };

	(void)state;
	use_fids(61);
	ENCODE_EXPECT(s, 62 << 2 | ADA_RAW_CALL, 127);
}

static void test_encode_call_with_fid_63_escapes_to_a_varint(void **state)
{
	const struct ada_slot s[] = { CALL(0, 0x401000), CALL(128, 0x402000) };

	(void)state;
	use_fids(62);
	ENCODE_EXPECT(s, 63 << 2 | ADA_RAW_CALL, 0, 63,
		      63 << 2 | ADA_RAW_CALL, 0x80, 0x01, 64);
}

static void test_encode_call_with_fid_300_has_a_two_byte_fid(void **state)
{
	const struct ada_slot s[] = { CALL(0, 0x401000) };

	(void)state;
	use_fids(299);
	ENCODE_EXPECT(s, 63 << 2 | ADA_RAW_CALL, 0, 0xac, 0x02);
}

static void test_encode_return_with_small_delta_is_one_byte(void **state)
{
	const struct ada_slot s[] = { CALL(10, 0x401000), RET(72, 0x401000) };

	(void)state;
	fx->s.last_tsc = 10;
	ENCODE_EXPECT(s, 1 << 2 | ADA_RAW_CALL, 0, 62 << 2 | ADA_RAW_RETURN); /* delta 62 */
	assert_int_equal(fx->s.depth, 0);
	assert_int_equal(fx->s.mismatches, 0);
}

static void test_encode_return_with_delta_63_escapes_to_a_varint(void **state)
{
	const struct ada_slot s[] = { CALL(0, 0x401000), RET(63, 0x401000) };

	(void)state;
	ENCODE_EXPECT(s, 1 << 2 | ADA_RAW_CALL, 0, 63 << 2 | ADA_RAW_RETURN, 63);
}

static void test_encode_return_with_large_delta_escapes_to_a_long_varint(void **state)
{
	const struct ada_slot s[] = { CALL(0, 0x401000), RET(1ull << 32, 0x401000) };

	(void)state;
	ENCODE_EXPECT(s, 1 << 2 | ADA_RAW_CALL, 0, 63 << 2 | ADA_RAW_RETURN,
		      0x80, 0x80, 0x80, 0x80, 0x10);
}

static void test_encode_exception_is_a_close_with_kind_2(void **state)
{
	const struct ada_slot s[] = { CALL(0, 0x401000), CALL(1, 0x402000), EXC(3, 0x402000),
				      EXC(100, 0x401000) };

	(void)state;
	ENCODE_EXPECT(s, 1 << 2 | ADA_RAW_CALL, 0, 2 << 2 | ADA_RAW_CALL, 1,
		      2 << 2 | ADA_RAW_EXCEPTION, 63 << 2 | ADA_RAW_EXCEPTION, 97);
	assert_int_equal(fx->s.mismatches, 0);
}

static void test_encode_backward_timestamp_clamps_to_delta_zero(void **state)
{
	const struct ada_slot s[] = { CALL(1000, 0x401000), CALL(900, 0x402000),
				      RET(1010, 0x402000), RET(1011, 0x401000) };

	(void)state;
	fx->s.last_tsc = 1000;
	/* 900 < 1000: delta 0, and the next delta counts from 1000, not 900. */
	ENCODE_EXPECT(s, 1 << 2 | ADA_RAW_CALL, 0, 2 << 2 | ADA_RAW_CALL, 0,
		      10 << 2 | ADA_RAW_RETURN, 1 << 2 | ADA_RAW_RETURN);
	assert_int_equal(fx->s.last_tsc, 1011);
}

static void test_encode_return_not_closing_the_innermost_frame_counts_a_mismatch(void **state)
{
	const struct ada_slot s[] = { CALL(0, 0x401000), CALL(0, 0x402000), RET(0, 0x401000),
				      RET(0, 0x401000) };

	(void)state;
	/* Still written: a RETURN closes the innermost frame whatever it says. */
	ENCODE_EXPECT(s, 1 << 2 | ADA_RAW_CALL, 0, 2 << 2 | ADA_RAW_CALL, 0, ADA_RAW_RETURN,
		      ADA_RAW_RETURN);
	assert_int_equal(fx->s.mismatches, 1);
	assert_int_equal(fx->s.depth, 0);
}

static void test_encode_return_with_nothing_open_is_dropped_and_counted(void **state)
{
	const struct ada_slot s[] = { RET(5, 0x401000), CALL(6, 0x402000) };

	(void)state;
	ENCODE_EXPECT(s, 1 << 2 | ADA_RAW_CALL, 6);
	assert_int_equal(fx->s.mismatches, 1);
	/* Its ring position holds no event: the writer says so with SKIP. */
	assert_int_equal(fx->s.dropped, 1);
}

/* A slot flagged for a detail record with no record to write (no detail
 * ring, or window mode outside every window) encodes as one not flagged:
 * the flag is not part of its address, nor of its kind. */
static void test_encode_detail_flag_without_records_is_left_out(void **state)
{
	const struct ada_slot s[] = { { 0, 0x401000 | ADA_SLOT_DETAIL },
				      { 70, 0x401000 | ADA_SLOT_DETAIL | (uint64_t)ADA_RAW_RETURN << 62 },
				      { 71, 0x401000 | ADA_SLOT_DETAIL },
				      { 72, 0x401000 | ADA_SLOT_DETAIL | (uint64_t)ADA_RAW_EXCEPTION << 62 } };

	(void)state;
	ENCODE_EXPECT(s, 1 << 2 | ADA_RAW_CALL, 0, 63 << 2 | ADA_RAW_RETURN, 70, 1 << 2 | ADA_RAW_CALL, 1,
		      1 << 2 | ADA_RAW_EXCEPTION);
	assert_int_equal(fx->s.mismatches, 0);
	assert_int_equal(fx->d.next_fid, 2);
}

static void test_encode_skip_is_tag_then_count(void **state)
{
	const uint8_t want[] = { 0x13, 0xac, 0x02 };

	(void)state;
	assert_int_equal(ada_encode_skip(300, fx->out), sizeof(want));
	assert_memory_equal(fx->out, want, sizeof(want));
	assert_true(ada_encode_skip(UINT64_MAX, fx->out) <= ADA_ENC_SKIP_MAX);
}

static void test_encode_open_frames_carry_over_between_batches(void **state)
{
	const struct ada_slot a[] = { CALL(0, 0x401000), CALL(1, 0x402000) };
	const struct ada_slot b[] = { RET(2, 0x402000), RET(3, 0x401000) };

	(void)state;
	ENCODE_EXPECT(a, 1 << 2 | ADA_RAW_CALL, 0, 2 << 2 | ADA_RAW_CALL, 1);
	ENCODE_EXPECT(b, 1 << 2 | ADA_RAW_RETURN, 1 << 2 | ADA_RAW_RETURN);
	assert_int_equal(fx->s.mismatches, 0);
}

static void test_encode_deep_nesting_grows_the_open_stack(void **state)
{
	struct ada_slot s[2000];
	size_t i, len;

	(void)state;
	for (i = 0; i < 1000; i++) {
		s[i] = CALL(i, 0x400000 + i);
		s[1999 - i] = RET(2000 - i, 0x400000 + i);
	}
	len = ada_encode_slots(&fx->s, &fx->d, s, 2000, fx->out, NULL);
	assert_true(len <= ada_encode_bound(2000));
	assert_int_equal(fx->s.depth, 0);
	assert_int_equal(fx->s.mismatches, 0);
}

/* The same slots in one batch and one at a time give the same bytes: the
 * encoder's state (time, open frames, the open stack's growth, the
 * dictionary) carries over whole between calls, wherever a batch ends.
 * 600 nested calls, then returns and calls alternating with deltas from 0
 * to over 16384 ticks, some slots flagged for detail records. */
static void test_encode_batches_of_one_slot_give_the_same_bytes(void **state)
{
	enum { N = 1800 };
	static struct ada_slot s[N];
	static uint8_t whole[N * ADA_ENC_MAX_EVENT];
	struct ada_enc_stream one = { 0 };
	struct ada_fdict d1;
	size_t i, len = 0, len1 = 0;
	uint64_t t = 0;

	(void)state;
	for (i = 0; i < 600; i++, t += i % 7)
		s[i] = CALL(t, 0x400000 + 16 * (i % 700));
	for (; i < N; i += 2) {
		t += (i * 37) % 20000;
		s[i] = RET(t, 0x400000 + 16 * ((1199 - i / 2) % 700));
		t += i % 130;
		s[i + 1] = CALL(t, 0x500000 + 16 * (i % 97));
		if (i % 10 == 0)
			s[i].word |= ADA_SLOT_DETAIL;
	}
	len = ada_encode_slots(&fx->s, &fx->d, s, N, whole, NULL);
	assert_int_equal(ada_fdict_init(&d1), 0);
	for (i = 0; i < N; i++) {
		size_t m = ada_encode_slots(&one, &d1, &s[i], 1, fx->out + len1, NULL);

		assert_true(m != (size_t)-1);
		len1 += m;
		assert_true(len1 <= sizeof(fx->out));
	}
	assert_int_equal(len1, len);
	assert_memory_equal(fx->out, whole, len);
	assert_int_equal(one.depth, fx->s.depth);
	assert_int_equal(one.depth, 600);
	assert_int_equal(one.mismatches, fx->s.mismatches);
	assert_int_equal(one.last_tsc, fx->s.last_tsc);
	ada_enc_stream_free(&one);
	ada_fdict_free(&d1);
}

/* ---- ring-mode cuts ------------------------------------------------------------------ */

/* Two frames open in the stream end at the cut (EXCEPTION closes, delta
 * 0), 5 positions are skipped, and the two frames the kept events return
 * from are entered outermost first (calls[] is innermost first), the
 * first at the kept events' time. */
static void test_encode_cut_closes_skips_and_enters(void **state)
{
	const struct ada_slot open[] = { CALL(10, 0x401000), CALL(20, 0x402000) };
	const uint64_t calls[] = { 0x404000, 0x403000 };

	(void)state;
	ENCODE_EXPECT(open, 1 << 2 | ADA_RAW_CALL, 10, 2 << 2 | ADA_RAW_CALL, 10);
	const uint8_t want[] = { ADA_RAW_EXCEPTION, ADA_RAW_EXCEPTION, 0x13, 5,
				 3 << 2 | ADA_RAW_CALL, 80, 4 << 2 | ADA_RAW_CALL, 0 };
	size_t len = ada_encode_cut(&fx->s, &fx->d, 5, calls, 2, 100, fx->out);

	assert_int_equal(len, sizeof(want));
	assert_memory_equal(fx->out, want, sizeof(want));
	/* The entered frames are open: the kept events' RETURNs close them. */
	assert_int_equal(fx->s.depth, 2);
	assert_int_equal(fx->s.open[0], 0x403000);
	assert_int_equal(fx->s.open[1], 0x404000);
	assert_int_equal(fx->s.last_tsc, 100);
}

/* The frames a run of slots returns from without entering them in it,
 * innermost first, scanned in parts as a ring's two halves are. */
static void test_cut_scan_finds_the_frames_returned_from(void **state)
{
	const struct ada_slot a[] = { RET(1, 0x401000), CALL(2, 0x402000), RET(3, 0x402000) };
	const struct ada_slot b[] = { CALL(4, 0x403000), RET(5, 0x403000), RET(6, 0x404000),
				      CALL(7, 0x405000) };
	struct ada_cut_scan cs = { 0, 0 };
	uint64_t calls[4];

	(void)state;
	ada_cut_scan(&cs, a, 3, calls, 4);
	ada_cut_scan(&cs, b, 4, calls, 4);
	assert_int_equal(cs.k, 2);
	assert_int_equal(calls[0], 0x401000);
	assert_int_equal(calls[1], 0x404000);
	assert_int_equal(cs.depth, 1); /* 0x405000, still open at the end */
	/* More than calls[] holds: counted past max, nothing written past it. */
	cs = (struct ada_cut_scan){ 0, 0 };
	calls[1] = 0;
	ada_cut_scan(&cs, a, 3, calls, 1);
	ada_cut_scan(&cs, b, 4, calls, 1);
	assert_int_equal(cs.k, 2);
	assert_int_equal(calls[1], 0);
}

/* ---- function dictionary ----------------------------------------------------------- */

static void test_encode_fdict_numbers_addresses_in_first_seen_order(void **state)
{
	(void)state;
	assert_int_equal(ada_fdict_get(&fx->d, 0x401000), 1);
	assert_int_equal(ada_fdict_get(&fx->d, 0x403000), 2);
	assert_int_equal(ada_fdict_get(&fx->d, 0x402000), 3);
	assert_int_equal(ada_fdict_get(&fx->d, 0x401000), 1);
	assert_int_equal(ada_fdict_get(&fx->d, 0x402000), 3);
	assert_int_equal(ada_fdict_get(&fx->d, 0x403000), 2);
	assert_int_equal(fx->d.used, 3);
}

static void test_encode_fdict_queues_new_addresses_in_fid_order(void **state)
{
	(void)state;
	ada_fdict_get(&fx->d, 0x403000);
	ada_fdict_get(&fx->d, 0x401000);
	ada_fdict_get(&fx->d, 0x403000);
	ada_fdict_get(&fx->d, 0x402000);
	assert_int_equal(fx->d.pending_first, 1);
	assert_int_equal(fx->d.npending, 3);
	assert_int_equal(fx->d.pending[0], 0x403000);
	assert_int_equal(fx->d.pending[1], 0x401000);
	assert_int_equal(fx->d.pending[2], 0x402000);
}

static void test_encode_fdict_grows_past_its_initial_capacity(void **state)
{
	size_t cap = fx->d.cap;
	uint64_t i;

	(void)state;
	for (i = 0; i < 10000; i++)
		assert_int_equal(ada_fdict_get(&fx->d, 0x400000 + 16 * i), i + 1);
	assert_true(fx->d.cap > cap);
	assert_true(2 * fx->d.used <= fx->d.cap);
	for (i = 0; i < 10000; i++)
		assert_int_equal(ada_fdict_get(&fx->d, 0x400000 + 16 * i), i + 1);
	assert_int_equal(fx->d.used, 10000);
	assert_int_equal(fx->d.npending, 10000);
	for (i = 0; i < 10000; i++)
		assert_int_equal(fx->d.pending[i], 0x400000 + 16 * i);
}

/* The cache in front of the table is direct-mapped: addresses that share
 * an entry take it from each other, in turns, and still get their own fids,
 * the table's (a cache that kept the first address's fid for the second,
 * or numbered the second anew, fails here). */
static void test_encode_fdict_cache_entries_taken_in_turns(void **state)
{
	/* a and b share an entry: they differ only in bits the index folds
	 * together (bit 9 and bit 0 of addr ^ addr >> 9). */
	const uint64_t a = 0x401000, b = a ^ 0x200 ^ 0x1;
	unsigned i;

	(void)state;
	assert_int_equal(ada_fdict_recent_slot(a), ada_fdict_recent_slot(b));
	for (i = 0; i < 4; i++) {
		assert_int_equal(ada_fdict_get(&fx->d, a), 1);
		assert_int_equal(ada_fdict_get(&fx->d, b), 2);
	}
	assert_int_equal(fx->d.used, 2);
	assert_int_equal(fx->d.npending, 2);
	assert_int_equal(ada_fdict_get(&fx->d, a + 16), 3);
}

static void test_encode_fdict_continues_numbering_after_pending_is_flushed(void **state)
{
	(void)state;
	use_fids(3);
	/* What the writer does once FUNCS went to process.meta. */
	fx->d.pending_first += (uint32_t)fx->d.npending;
	fx->d.npending = 0;
	assert_int_equal(ada_fdict_get(&fx->d, 0x7000001), 2);
	assert_int_equal(ada_fdict_get(&fx->d, 0x401000), 4);
	assert_int_equal(fx->d.pending_first, 4);
	assert_int_equal(fx->d.npending, 1);
	assert_int_equal(fx->d.pending[0], 0x401000);
}

/* ---- detail records ---------------------------------------------------------- */

/* A detail ring of `records` records (no stack window) for positions
 * 0..records-1: position p's record at p, its first register 0x100 + p,
 * its FP register k 0xf000 + 16 * p + k. */
#define DREC_BYTES (ADA_DREC_STACK * 8)
#define DETAIL_BYTES (1 + ADA_RAW_DETAIL_SIZE + 1 + ADA_RAW_FREGS_SIZE) /* no stack */
static void detail_ring(uint64_t *ring, size_t records, struct ada_enc_detail *dl)
{
	memset(dl, 0, sizeof(*dl));
	memset(ring, 0, records * DREC_BYTES);
	for (size_t p = 0; p < records; p++) {
		ring[p * ADA_DREC_STACK + ADA_DREC_REGS] = 0x100 + p;
		for (size_t k = 0; k < 8; k++)
			ring[p * ADA_DREC_STACK + ADA_DREC_FREGS + k] = 0xf000 + 16 * p + k;
	}
	dl->ring = (const uint8_t *)ring;
	dl->mask = records - 1;
	dl->rec_bytes = DREC_BYTES;
}

/* The first register of each DETAIL in out[0..len) (CALL/RETURN with small
 * fid and delta: 2 and 1 bytes), into regs; returns how many. */
static size_t details_in(const uint8_t *out, size_t len, const struct ada_slot *slots,
			 uint64_t *regs)
{
	size_t at = 0, n = 0;

	for (size_t i = 0; at < len; i++) {
		at += ADA_SLOT_KIND(slots[i].word) == ADA_RAW_CALL ? 2 : 1;
		if (at < len && out[at] == (ADA_RAW_CONTROL | ADA_CTL_DETAIL << 2)) {
			memcpy(&regs[n++], out + at + 1, 8);
			at += DETAIL_BYTES;
		}
	}
	return n;
}

/* Two flagged slots: written after their events, or, when the writer is
 * behind (skip), counted without a byte of them written; the events' bytes
 * are the same either way. */
static void test_encode_skipped_details_are_counted_and_not_written(void **state)
{
	static uint64_t ring[4 * ADA_DREC_STACK];
	const struct ada_slot slots[] = {
		{ 1000, (0x4000 | (uint64_t)ADA_RAW_CALL << 62) | ADA_SLOT_DETAIL },
		{ 1001, (0x4000 | (uint64_t)ADA_RAW_RETURN << 62) | ADA_SLOT_DETAIL },
	};
	struct ada_enc_detail dl;
	size_t with, without;
	uint64_t regs[4];
	uint8_t kept[sizeof(fx->out)];

	(void)state;
	fx->s.last_tsc = 1000;
	detail_ring(ring, 4, &dl);
	with = ada_encode_slots(&fx->s, &fx->d, slots, 2, fx->out, &dl);
	assert_int_equal(with, 2 + 1 + 2 * DETAIL_BYTES);
	assert_int_equal(details_in(fx->out, with, slots, regs), 2);
	assert_int_equal(regs[0], 0x100);
	assert_int_equal(regs[1], 0x101);
	assert_int_equal(dl.skipped, 0);
	memcpy(kept, fx->out, with);

	ada_enc_stream_free(&fx->s);
	memset(&fx->s, 0, sizeof(fx->s));
	fx->s.last_tsc = 1000;
	detail_ring(ring, 4, &dl);
	dl.skip = true;
	without = ada_encode_slots(&fx->s, &fx->d, slots, 2, fx->out, &dl);
	assert_int_equal(without, 3);
	assert_int_equal(dl.skipped, 2);
	assert_int_equal(dl.lost, 0);
	/* The same CALL and RETURN: tag + fid, then the close. */
	assert_memory_equal(fx->out, kept, 2);
	assert_int_equal(fx->out[2], kept[2 + DETAIL_BYTES]);
}

/* A DETAIL is followed by FREGS (format version 4): its tag and the
 * record's eight FP words as they are, after the stack bytes (none here). */
static void test_encode_detail_is_followed_by_its_fp_registers(void **state)
{
	static uint64_t ring[4 * ADA_DREC_STACK];
	const struct ada_slot slots[] = {
		{ 1000, (0x4000 | (uint64_t)ADA_RAW_CALL << 62) | ADA_SLOT_DETAIL },
		{ 1001, (0x4000 | (uint64_t)ADA_RAW_RETURN << 62) | ADA_SLOT_DETAIL },
	};
	const uint8_t *f;
	struct ada_enc_detail dl;
	uint64_t w;
	size_t len;

	(void)state;
	fx->s.last_tsc = 1000;
	detail_ring(ring, 4, &dl);
	len = ada_encode_slots(&fx->s, &fx->d, slots, 2, fx->out, &dl);
	assert_int_equal(len, 2 + DETAIL_BYTES + 1 + DETAIL_BYTES);
	/* The CALL's (position 0): DETAIL, stack_size 0, then FREGS. */
	assert_int_equal(fx->out[2], ADA_RAW_CONTROL | ADA_CTL_DETAIL << 2);
	assert_int_equal(fx->out[2 + 1 + 88] | fx->out[2 + 1 + 89], 0);
	f = fx->out + 2 + 1 + ADA_RAW_DETAIL_SIZE;
	assert_int_equal(f[0], ADA_RAW_CONTROL | ADA_CTL_FREGS << 2);
	for (unsigned k = 0; k < 8; k++) {
		memcpy(&w, f + 1 + 8 * k, 8);
		assert_int_equal(w, 0xf000 + k);
	}
	/* The RETURN's (position 1), after its one-byte close. */
	f = fx->out + 2 + DETAIL_BYTES + 1 + 1 + ADA_RAW_DETAIL_SIZE;
	assert_int_equal(f[0], ADA_RAW_CONTROL | ADA_CTL_FREGS << 2);
	memcpy(&w, f + 1 + 8 * 7, 8);
	assert_int_equal(w, 0xf000 + 16 + 7);
}

/* Window mode: 8 flagged slots at positions 0..7, windows [1, 2] and [5, 5]:
 * exactly those records are written, each counted in its window, with the
 * times of the window's first and last event. */
static void test_encode_window_mode_writes_only_the_windows_records(void **state)
{
	static uint64_t ring[8 * ADA_DREC_STACK];
	struct ada_slot slots[8];
	struct ada_enc_window win[2] = { { .lo = 1, .hi = 2 }, { .lo = 5, .hi = 5 } };
	uint64_t head = 8, regs[8];
	struct ada_enc_detail dl;
	size_t len;

	(void)state;
	for (unsigned i = 0; i < 8; i++)
		slots[i] = (struct ada_slot){ 1000 + i, 0x4000 | (uint64_t)(i % 2 ? ADA_RAW_RETURN
									    : ADA_RAW_CALL) << 62 |
							      ADA_SLOT_DETAIL };
	fx->s.last_tsc = 1000;
	detail_ring(ring, 8, &dl);
	dl.head = &head;
	dl.win = win;
	dl.nwin = 2;
	len = ada_encode_slots(&fx->s, &fx->d, slots, 8, fx->out, &dl);
	assert_int_equal(details_in(fx->out, len, slots, regs), 3);
	assert_int_equal(regs[0], 0x101);
	assert_int_equal(regs[1], 0x102);
	assert_int_equal(regs[2], 0x105);
	assert_int_equal(win[0].kept, 2);
	assert_int_equal(win[0].first_tsc, 1001);
	assert_int_equal(win[0].last_tsc, 1002);
	assert_int_equal(win[1].kept, 1);
	assert_int_equal(win[1].first_tsc, 1005);
	assert_int_equal(win[0].lost + win[1].lost + dl.lost + dl.skipped, 0);
}

/* Window mode: a record the thread has written over (its head reached the
 * position + the ring's records) is not written, and counted lost. */
static void test_encode_window_mode_record_written_over_is_lost(void **state)
{
	static uint64_t ring[4 * ADA_DREC_STACK];
	const struct ada_slot slots[] = {
		{ 1000, (0x4000 | (uint64_t)ADA_RAW_CALL << 62) | ADA_SLOT_DETAIL },
		{ 1001, (0x4000 | (uint64_t)ADA_RAW_RETURN << 62) | ADA_SLOT_DETAIL },
	};
	struct ada_enc_window win = { .lo = 0, .hi = 10 };
	uint64_t head = 4, regs[2];
	struct ada_enc_detail dl;
	size_t len;

	(void)state;
	fx->s.last_tsc = 1000;
	detail_ring(ring, 4, &dl);
	dl.head = &head;
	dl.win = &win;
	dl.nwin = 1;
	/* Position 0's place holds position 4 now; position 1's is intact. */
	len = ada_encode_slots(&fx->s, &fx->d, slots, 2, fx->out, &dl);
	assert_int_equal(details_in(fx->out, len, slots, regs), 1);
	assert_int_equal(regs[0], 0x101);
	assert_int_equal(win.kept, 1);
	assert_int_equal(win.lost, 1);
	assert_int_equal(dl.lost, 1);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_encode_varint_is_unsigned_leb128),
		T(test_encode_sync_is_tag_then_8_byte_little_endian_tsc_then_pos),
		T(test_encode_sync_never_goes_back_in_time),
		T(test_encode_lost_is_tag_reason_count),
		T(test_encode_detail_flag_without_records_is_left_out),
		T(test_encode_skip_is_tag_then_count),
		T(test_encode_batches_of_one_slot_give_the_same_bytes),
		T(test_encode_call_with_small_fid_and_delta_is_two_bytes),
		T(test_encode_call_with_fid_62_stays_inline),
		T(test_encode_call_with_fid_63_escapes_to_a_varint),
		T(test_encode_call_with_fid_300_has_a_two_byte_fid),
		T(test_encode_return_with_small_delta_is_one_byte),
		T(test_encode_return_with_delta_63_escapes_to_a_varint),
		T(test_encode_return_with_large_delta_escapes_to_a_long_varint),
		T(test_encode_exception_is_a_close_with_kind_2),
		T(test_encode_backward_timestamp_clamps_to_delta_zero),
		T(test_encode_return_not_closing_the_innermost_frame_counts_a_mismatch),
		T(test_encode_return_with_nothing_open_is_dropped_and_counted),
		T(test_encode_open_frames_carry_over_between_batches),
		T(test_encode_deep_nesting_grows_the_open_stack),
		T(test_encode_cut_closes_skips_and_enters),
		T(test_cut_scan_finds_the_frames_returned_from),
		T(test_encode_fdict_numbers_addresses_in_first_seen_order),
		T(test_encode_fdict_queues_new_addresses_in_fid_order),
		T(test_encode_fdict_cache_entries_taken_in_turns),
		T(test_encode_fdict_grows_past_its_initial_capacity),
		T(test_encode_fdict_continues_numbering_after_pending_is_flushed),
		T(test_encode_skipped_details_are_counted_and_not_written),
		T(test_encode_detail_is_followed_by_its_fp_registers),
		T(test_encode_window_mode_writes_only_the_windows_records),
		T(test_encode_window_mode_record_written_over_is_lost),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
