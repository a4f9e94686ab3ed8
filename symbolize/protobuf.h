/* protobuf.h - the little of the protobuf wire format the Perfetto export
 * writes: varints, tags, and length-delimited fields (strings, nested
 * messages). https://protobuf.dev/programming-guides/encoding/
 *
 * It writes into memory the caller has reserved (outbuf_reserve) and
 * returns the new end, like outbuf.h's formatters: no bounds checks on the
 * hot path. A nested message is opened with one byte for its length, which
 * is what nearly every message of a trace needs (< 128 bytes); pb_close
 * patches it and, for a longer message, moves the content up to make room
 * for a longer varint, so the caller reserves PB_NEST_SLACK more bytes per
 * message it opens.
 */
#ifndef ADA_PROTOBUF_H
#define ADA_PROTOBUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Wire types ("Message Structure" in the encoding guide). */
enum { PB_VARINT = 0, PB_I64 = 1, PB_LEN = 2, PB_I32 = 5 };

#define PB_VARINT_MAX 10  /* bytes of the longest varint (a uint64) */
#define PB_NEST_SLACK 4   /* a length is at most 5 bytes; 1 is reserved */

/* Base-128, least significant group first, the high bit set on every byte
 * but the last. */
static inline char *pb_varint(char *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (char)v;
	return p;
}

static inline char *pb_tag(char *p, uint32_t field, unsigned wire)
{
	return pb_varint(p, (uint64_t)field << 3 | wire);
}

/* A uint32/uint64/bool/enum field. */
static inline char *pb_uint(char *p, uint32_t field, uint64_t v)
{
	return pb_varint(pb_tag(p, field, PB_VARINT), v);
}

/* An int32/int64 field: two's complement, so a negative value takes 10
 * bytes (not zigzag: that is sint32/sint64). */
static inline char *pb_int(char *p, uint32_t field, int64_t v)
{
	return pb_uint(p, field, (uint64_t)v);
}

size_t pb_varint_size(uint64_t v);

/* A fixed64 field: eight bytes, little-endian (the hosts ada runs on). */
static inline char *pb_fixed64(char *p, uint32_t field, uint64_t v)
{
	p = pb_tag(p, field, PB_I64);
	memcpy(p, &v, 8);
	return p + 8;
}

/* A string or bytes field. */
char *pb_bytes(char *p, uint32_t field, const void *s, size_t n);
char *pb_string(char *p, uint32_t field, const char *s);

/* Opens a nested message: writes its tag and a one-byte length at *len_at. */
static inline char *pb_open(char *p, uint32_t field, char **len_at)
{
	p = pb_tag(p, field, PB_LEN);
	*len_at = p;
	return p + 1;
}

/* Closes the message whose length byte is at len_at and whose content ends
 * at p; returns the message's new end. */
char *pb_close_slow(char *len_at, char *p);

static inline char *pb_close(char *len_at, char *p)
{
	size_t n = (size_t)(p - len_at - 1);

	if (n < 0x80) {
		*len_at = (char)n;
		return p;
	}
	return pb_close_slow(len_at, p);
}

#endif
