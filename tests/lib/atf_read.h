/* atf_read.h - an ATF v2 reader of the tests' own, independent of
 * symbolize/atf.c (which the end-to-end tests check rather than trust).
 *
 * It reads a whole index.atf or detail.atf into memory, byte by byte as
 * ATF_V2.md §2 and §4 lay them out (little-endian, packed), and checks the
 * structure while it does: magics, endian and version bytes, offsets, sizes,
 * the record chain, counts, reserved bytes and the footer's CRC-32, and
 * ada's extensions of the detail record (docs/atf-extensions.md: flags bit
 * 0, fregs[8] after the stack; bit 1, a return's only, no value: a tail
 * call's jump; no other bit). What the
 * records mean, and the links between the two files, are the tests' to
 * check.
 */
#ifndef ADA_TEST_ATF_READ_H
#define ADA_TEST_ATF_READ_H

#include <stddef.h>
#include <stdint.h>

#define ATFR_NO_DETAIL 0xFFFFFFFFu
#define ATFR_DETAIL_FIXED 124u /* detail record header (24) + payload (100) */
#define ATFR_FLAG_FREGS 0x1u    /* fregs[8] (64 bytes) after the stack bytes */
#define ATFR_FLAG_NOVALUE 0x2u  /* a return left by a tail call's jump: no value */

enum { ATFR_CALL = 1, ATFR_RETURN = 2, ATFR_EXCEPTION = 3 };
enum { ATFR_DETAIL_CALL = 3, ATFR_DETAIL_RETURN = 4 };

struct atfr_event {
	uint64_t timestamp_ns, function_id;
	uint32_t thread_id, kind, call_depth, detail_seq;
};

struct atfr_index {
	uint8_t arch, os, clock_type;
	uint32_t flags, thread_id, event_count;
	uint64_t time_start_ns, time_end_ns;
	struct atfr_event *events; /* event_count of them */
};

struct atfr_detail_rec {
	uint64_t offset;           /* of its header in the file */
	uint32_t total_length, index_seq, thread_id;
	uint16_t event_type, flags;
	uint64_t timestamp_ns, function_id;
	uint64_t regs[8];
	uint64_t lr, fp, sp;
	uint16_t stack_size, reserved;
	const uint8_t *stack;      /* stack_size bytes, inside the file image */
	uint64_t fregs[8];         /* with ATFR_FLAG_FREGS, else 0 */
};

struct atfr_detail {
	uint8_t arch, os;
	uint32_t flags, thread_id;
	uint64_t event_count, bytes_length, index_seq_start, index_seq_end;
	uint64_t time_start_ns, time_end_ns; /* the footer's */
	struct atfr_detail_rec *recs;        /* event_count of them */
	uint8_t *image;                      /* the whole file */
	size_t size;
};

/* Read and check path. Return 0, or -1 with a one-line reason in err
 * (naming the path); *f is then empty. Release with the _free functions. */
int atfr_read_index(const char *path, struct atfr_index *f, char *err, size_t errlen);
int atfr_read_detail(const char *path, struct atfr_detail *f, char *err, size_t errlen);
void atfr_index_free(struct atfr_index *f);
void atfr_detail_free(struct atfr_detail *f);

/* zlib's CRC-32 of n bytes, bit by bit: the files the tests read are
 * small (lanes.atf's footer too, which test_lanes.c reads itself). */
uint32_t atfr_crc32(const uint8_t *p, size_t n);

/* Little-endian u64 at p (a stack window's 8 bytes). */
uint64_t atfr_u64(const uint8_t *p);

#endif
