/* outbuf.h - a large output buffer and hand-written number formatting, for
 * views that write tens of millions of records.
 *
 * At 10 M events/s a printf per event costs more than the whole view
 * (format parsing, locale, a FILE lock per call). The exports instead write
 * into one large buffer with the inline formatters below and hand it to
 * stdio in big blocks. A writer reserves the bytes a record may take
 * (outbuf_reserve), writes through the returned pointer without bounds
 * checks, and commits the new end (outbuf_commit).
 */
#ifndef ADA_OUTBUF_H
#define ADA_OUTBUF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define OUTBUF_SIZE (4u << 20)

struct outbuf {
	char *buf, *pos, *end;   /* [buf, pos) written, not yet flushed */
	FILE *f;
	int err;                 /* the first write error, negative errno */
};

/* Returns 0 or -ENOMEM (message printed). */
int outbuf_init(struct outbuf *o, FILE *f);
/* Hands the buffered bytes to f; on a write error, o->err is set and later
 * output is dropped. */
void outbuf_flush(struct outbuf *o);
/* Flushes (f included) and frees. Returns 0 or the first write error's
 * negative errno; `what` names the output in the one-line message. */
int outbuf_close(struct outbuf *o, const char *what);
/* Writes n bytes of any length. */
void outbuf_write(struct outbuf *o, const void *s, size_t n);

/* Room for n bytes (n <= OUTBUF_SIZE): the pointer to write at. */
static inline char *outbuf_reserve(struct outbuf *o, size_t n)
{
	if ((size_t)(o->end - o->pos) < n)
		outbuf_flush(o);
	return o->pos;
}

static inline void outbuf_commit(struct outbuf *o, char *p)
{
	o->pos = p;
}

/* ---- formatting: each writes at p and returns the end ------------------------ */

static inline char *fmt_mem(char *p, const void *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

/* A string literal, its length known at compile time. */
#define fmt_lit(p, s) fmt_mem(p, "" s, sizeof(s) - 1)

/* Decimal, at most 20 digits. */
static inline char *fmt_u64(char *p, uint64_t v)
{
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";
	char tmp[20], *t = tmp + sizeof(tmp);

	while (v >= 100) {
		unsigned d = (unsigned)(v % 100) * 2;

		v /= 100;
		*--t = pairs[d + 1];
		*--t = pairs[d];
	}
	if (v >= 10) {
		*--t = pairs[v * 2 + 1];
		*--t = pairs[v * 2];
	} else {
		*--t = (char)('0' + v);
	}
	return fmt_mem(p, t, (size_t)(tmp + sizeof(tmp) - t));
}

/* Nanoseconds as microseconds with three decimals: 12345 → "12.345",
 * 7 → "0.007" (the Trace Event Format's unit, exact to the nanosecond). */
static inline char *fmt_us(char *p, uint64_t ns)
{
	unsigned frac = (unsigned)(ns % 1000);

	p = fmt_u64(p, ns / 1000);
	p[0] = '.';
	p[1] = (char)('0' + frac / 100);
	p[2] = (char)('0' + frac / 10 % 10);
	p[3] = (char)('0' + frac % 10);
	return p + 4;
}

/* "0x" and lower-case hex digits without padding: 0 → "0x0". */
static inline char *fmt_hex(char *p, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	int n = 1;

	while (n < 16 && v >> (4 * n))
		n++;
	p[0] = '0';
	p[1] = 'x';
	for (int i = 0; i < n; i++)
		p[2 + i] = digits[(v >> (4 * (n - 1 - i))) & 15];
	return p + 2 + n;
}

#endif
