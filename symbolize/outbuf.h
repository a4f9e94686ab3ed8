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

/* n bytes of a name or a record's fixed text, n known only at run time:
 * up to 128 by overlapping loads and stores of 16 or 8 bytes, with no call
 * into the C library's memcpy, whose dispatch costs more than such a copy. */
static inline __attribute__((always_inline)) char *fmt_str(char *p, const char *s, size_t n)
{
	char a[16], b[16], c[16], d[16];

	if (n >= 16 && n <= 32) {
		memcpy(a, s, 16);
		memcpy(b, s + n - 16, 16);
		memcpy(p, a, 16);
		memcpy(p + n - 16, b, 16);
	} else if (n > 32 && n <= 64) {
		memcpy(a, s, 16);
		memcpy(b, s + 16, 16);
		memcpy(c, s + n - 32, 16);
		memcpy(d, s + n - 16, 16);
		memcpy(p, a, 16);
		memcpy(p + 16, b, 16);
		memcpy(p + n - 32, c, 16);
		memcpy(p + n - 16, d, 16);
	} else if (n >= 8 && n < 16) {
		memcpy(a, s, 8);
		memcpy(b, s + n - 8, 8);
		memcpy(p, a, 8);
		memcpy(p + n - 8, b, 8);
	} else if (n >= 4 && n < 8) {
		memcpy(a, s, 4);
		memcpy(b, s + n - 4, 4);
		memcpy(p, a, 4);
		memcpy(p + n - 4, b, 4);
	} else if (n < 4) {
		for (size_t i = 0; i < n; i++)
			p[i] = s[i];
	} else if (n > 64 && n <= 128) { /* chrome's name-to-end text, --args */
		char e[16], f[16], g[16], h[16];

		memcpy(a, s, 16);
		memcpy(b, s + 16, 16);
		memcpy(c, s + 32, 16);
		memcpy(d, s + 48, 16);
		memcpy(e, s + n - 64, 16);
		memcpy(f, s + n - 48, 16);
		memcpy(g, s + n - 32, 16);
		memcpy(h, s + n - 16, 16);
		memcpy(p, a, 16);
		memcpy(p + 16, b, 16);
		memcpy(p + 32, c, 16);
		memcpy(p + 48, d, 16);
		memcpy(p + n - 64, e, 16);
		memcpy(p + n - 48, f, 16);
		memcpy(p + n - 32, g, 16);
		memcpy(p + n - 16, h, 16);
	} else {
		memcpy(p, s, n);
	}
	return p + n;
}

/* Text of a length that repeats (a thread's prefix, a function's name),
 * from a buffer with pad readable bytes, to a p with as much room: n bytes
 * (n <= pad) written as pad, a constant (64 or FMT_PADDED), in a fixed run
 * of moves, none of fmt_str's branches on n. */
#define FMT_PADDED 128
static inline __attribute__((always_inline)) char *fmt_padded(char *p, const char *s, size_t n,
								size_t pad)
{
	memcpy(p, s, pad);
	return p + n;
}

/* The number of decimal digits of v. */
static inline unsigned fmt_digits(uint64_t v)
{
	unsigned n = 1;

	for (;;) {
		if (v < 10)
			return n;
		if (v < 100)
			return n + 1;
		if (v < 1000)
			return n + 2;
		if (v < 10000)
			return n + 3;
		v /= 10000;
		n += 4;
	}
}

/* "00" to "99": two digits at a time. */
static const char fmt_pairs[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* Decimal, at most 20 digits, written in place from its last digit: no
 * copy from a scratch buffer. */
static inline char *fmt_u64(char *p, uint64_t v)
{
	const char *pairs = fmt_pairs;
	char *end = p + fmt_digits(v), *t = end;

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
	return end;
}

/* ".ddd": the three decimals of frac thousandths (0 to 999). */
static inline char *fmt_thousandths(char *p, unsigned frac)
{
	unsigned hi = frac / 100, lo = frac - hi * 100;

	p[0] = '.';
	p[1] = (char)('0' + hi);
	p[2] = fmt_pairs[2 * lo];
	p[3] = fmt_pairs[2 * lo + 1];
	return p + 4;
}

/* Nanoseconds as microseconds with three decimals: 12345 → "12.345",
 * 7 → "0.007" (the Trace Event Format's unit, exact to the nanosecond). */
static inline char *fmt_us(char *p, uint64_t ns)
{
	uint64_t us = ns / 1000;

	return fmt_thousandths(fmt_u64(p, us), (unsigned)(ns - us * 1000));
}

/* view_duration_fmt's text below 1000 of the unit (a duration under
 * 1000 s), ten bytes: the number right-aligned in seven, then the unit
 * (unit NULL: " ns", q nanoseconds; else q thousandths of it, with its
 * leading space). Inline, with no count of the digits first: replay writes
 * one at most lines, most of them in nanoseconds. */
static inline char *fmt_duration_short(char *p, unsigned q, const char *unit)
{
	unsigned ip = unit ? q / 1000 : q; /* the whole part, 0 to 999 */
	char *e = p + (unit ? 3 : 7);      /* just past it */

	memcpy(p, "       ", 7);
	if (unit)
		fmt_thousandths(e, q - ip * 1000);
	if (ip >= 100) {
		unsigned h = ip / 100, lo = ip - h * 100;

		e[-3] = (char)('0' + h);
		e[-2] = fmt_pairs[2 * lo];
		e[-1] = fmt_pairs[2 * lo + 1];
	} else if (ip >= 10) {
		e[-2] = fmt_pairs[2 * ip];
		e[-1] = fmt_pairs[2 * ip + 1];
	} else {
		e[-1] = (char)('0' + ip);
	}
	memcpy(p + 7, unit ? unit : " ns", 3);
	return p + 10;
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

/* n bytes of any length, the short ones inline. */
static inline void outbuf_put(struct outbuf *o, const char *s, size_t n)
{
	if ((size_t)(o->end - o->pos) < n) {
		outbuf_write(o, s, n);
		return;
	}
	o->pos = fmt_str(o->pos, s, n);
}

#endif
