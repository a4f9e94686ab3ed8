/* protobuf.c - protobuf's wire format, the parts off the hot path (see
 * protobuf.h). */
#include "protobuf.h"

size_t pb_varint_size(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

char *pb_bytes(char *p, uint32_t field, const void *s, size_t n)
{
	p = pb_varint(pb_tag(p, field, PB_LEN), n);
	memcpy(p, s, n);
	return p + n;
}

char *pb_string(char *p, uint32_t field, const char *s)
{
	return pb_bytes(p, field, s, strlen(s));
}

/* The content outgrew the one byte reserved for its length: move it up by
 * the extra bytes the varint needs (the caller reserved PB_NEST_SLACK). */
char *pb_close_slow(char *len_at, char *p)
{
	size_t n = (size_t)(p - len_at - 1);
	size_t extra = pb_varint_size(n) - 1;

	memmove(len_at + 1 + extra, len_at + 1, n);
	pb_varint(len_at, n);
	return p + extra;
}
