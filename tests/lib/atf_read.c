/* atf_read.c - the tests' own ATF v2 reader (see atf_read.h). */
#include "lib/atf_read.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/proc.h"

#define HEADER 64
#define FOOTER 64
#define INDEX_EVENT 32
#define MAX_STACK 512

static uint16_t u16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint64_t atfr_u64(const uint8_t *p)
{
	return (uint64_t)u32(p) | (uint64_t)u32(p + 4) << 32;
}

uint32_t atfr_crc32(const uint8_t *p, size_t n)
{
	uint32_t crc = 0xFFFFFFFFu;

	for (size_t i = 0; i < n; i++) {
		crc ^= p[i];
		for (int b = 0; b < 8; b++)
			crc = crc >> 1 ^ (0xEDB88320u & -(crc & 1u));
	}
	return crc ^ 0xFFFFFFFFu;
}

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

static int bad(char *err, size_t errlen, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int bad(char *err, size_t errlen, const char *path, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(err, errlen, "%s: ", path);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < errlen)
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

/* The header bytes both files share: magic, endian 1, version 1, arch, os. */
static int check_ident(const uint8_t *b, size_t size, const char *magic, char *err,
		       size_t errlen, const char *path)
{
	if (size < HEADER + FOOTER)
		return bad(err, errlen, path, "%zu bytes, less than header and footer", size);
	if (memcmp(b, magic, 4) != 0)
		return bad(err, errlen, path, "magic %.4s, expected %s", (const char *)b, magic);
	if (b[4] != 1 || b[5] != 1)
		return bad(err, errlen, path, "endian %u version %u, expected 1 1", b[4], b[5]);
	if (b[6] != 1 && b[6] != 2)
		return bad(err, errlen, path, "arch %u", b[6]);
	if (b[7] < 1 || b[7] > 5)
		return bad(err, errlen, path, "os %u", b[7]);
	return 0;
}

int atfr_read_index(const char *path, struct atfr_index *f, char *err, size_t errlen)
{
	size_t size = 0;
	uint8_t *b = (uint8_t *)proc_read_file(path, &size);
	const uint8_t *foot;
	uint64_t n;
	int ret = -1;

	memset(f, 0, sizeof(*f));
	if (!b)
		return bad(err, errlen, path, "%s", strerror(errno));
	if (check_ident(b, size, "ATI2", err, errlen, path))
		goto out;
	f->arch = b[6], f->os = b[7], f->flags = u32(b + 8), f->thread_id = u32(b + 12);
	f->clock_type = b[16];
	f->event_count = u32(b + 28);
	f->time_start_ns = atfr_u64(b + 48), f->time_end_ns = atfr_u64(b + 56);
	n = f->event_count;
	if (!all_zero(b + 17, 7)) {
		bad(err, errlen, path, "reserved header bytes 17..23 not zero");
		goto out;
	}
	if (u32(b + 24) != INDEX_EVENT || atfr_u64(b + 32) != HEADER ||
	    atfr_u64(b + 40) != HEADER + INDEX_EVENT * n || size != HEADER + INDEX_EVENT * n + FOOTER) {
		bad(err, errlen, path,
		    "event_size %u events_offset %llu footer_offset %llu for %llu events in %zu bytes",
		    u32(b + 24), (unsigned long long)atfr_u64(b + 32),
		    (unsigned long long)atfr_u64(b + 40), (unsigned long long)n, size);
		goto out;
	}
	foot = b + HEADER + INDEX_EVENT * n;
	if (memcmp(foot, "2ITA", 4) != 0 || atfr_u64(foot + 8) != n ||
	    atfr_u64(foot + 16) != f->time_start_ns || atfr_u64(foot + 24) != f->time_end_ns ||
	    atfr_u64(foot + 32) != INDEX_EVENT * n || !all_zero(foot + 40, 24)) {
		bad(err, errlen, path, "footer does not match the header");
		goto out;
	}
	if (u32(foot + 4) != atfr_crc32(b + HEADER, INDEX_EVENT * n)) {
		bad(err, errlen, path, "footer CRC 0x%08x != computed 0x%08x", u32(foot + 4),
		    atfr_crc32(b + HEADER, INDEX_EVENT * n));
		goto out;
	}
	f->events = calloc(n ? n : 1, sizeof(*f->events));
	if (!f->events) {
		bad(err, errlen, path, "out of memory");
		goto out;
	}
	for (uint64_t i = 0; i < n; i++) {
		const uint8_t *e = b + HEADER + INDEX_EVENT * i;

		f->events[i] = (struct atfr_event){
			.timestamp_ns = atfr_u64(e), .function_id = atfr_u64(e + 8),
			.thread_id = u32(e + 16), .kind = u32(e + 20),
			.call_depth = u32(e + 24), .detail_seq = u32(e + 28),
		};
	}
	ret = 0;
out:
	free(b);
	if (ret)
		atfr_index_free(f);
	return ret;
}

void atfr_index_free(struct atfr_index *f)
{
	free(f->events);
	memset(f, 0, sizeof(*f));
}

/* Record `r` at b + off, inside [b, end); fills *d. */
static int read_rec(const uint8_t *b, uint64_t off, uint64_t end, struct atfr_detail_rec *d,
		    char *err, size_t errlen, const char *path)
{
	const uint8_t *r = b + off, *p;
	uint32_t fregs;

	if (end - off < ATFR_DETAIL_FIXED)
		return bad(err, errlen, path, "record at %llu: %llu bytes left, less than %u",
			   (unsigned long long)off, (unsigned long long)(end - off),
			   ATFR_DETAIL_FIXED);
	p = r + 24;
	*d = (struct atfr_detail_rec){
		.offset = off, .total_length = u32(r), .event_type = u16(r + 4),
		.flags = u16(r + 6), .index_seq = u32(r + 8), .thread_id = u32(r + 12),
		.timestamp_ns = atfr_u64(r + 16), .function_id = atfr_u64(p),
		.lr = atfr_u64(p + 72), .fp = atfr_u64(p + 80), .sp = atfr_u64(p + 88),
		.stack_size = u16(p + 96), .reserved = u16(p + 98), .stack = p + 100,
	};
	for (int i = 0; i < 8; i++)
		d->regs[i] = atfr_u64(p + 8 + 8 * i);
	fregs = d->flags & ATFR_FLAG_FREGS ? 64 : 0;
	if (d->flags & ~(ATFR_FLAG_FREGS | ATFR_FLAG_NOVALUE) ||
	    (d->flags & ATFR_FLAG_NOVALUE && d->event_type != ATFR_DETAIL_RETURN))
		return bad(err, errlen, path, "record at %llu: flags 0x%x", (unsigned long long)off,
			   d->flags);
	if (d->stack_size > MAX_STACK ||
	    d->total_length != ATFR_DETAIL_FIXED + d->stack_size + fregs ||
	    d->total_length > end - off)
		return bad(err, errlen, path,
			   "record at %llu: total_length %u, stack_size %u, flags 0x%x, %llu bytes left",
			   (unsigned long long)off, d->total_length, d->stack_size, d->flags,
			   (unsigned long long)(end - off));
	for (int i = 0; fregs && i < 8; i++)
		d->fregs[i] = atfr_u64(d->stack + d->stack_size + 8 * i);
	return 0;
}

int atfr_read_detail(const char *path, struct atfr_detail *f, char *err, size_t errlen)
{
	size_t size = 0;
	uint8_t *b = (uint8_t *)proc_read_file(path, &size);
	const uint8_t *foot;
	uint64_t end, off, i;

	memset(f, 0, sizeof(*f));
	if (!b)
		return bad(err, errlen, path, "%s", strerror(errno));
	f->image = b, f->size = size;
	if (check_ident(b, size, "ATD2", err, errlen, path))
		goto fail;
	f->arch = b[6], f->os = b[7], f->flags = u32(b + 8), f->thread_id = u32(b + 12);
	f->event_count = atfr_u64(b + 28), f->bytes_length = atfr_u64(b + 36);
	f->index_seq_start = atfr_u64(b + 44), f->index_seq_end = atfr_u64(b + 52);
	if (u32(b + 16) != 0 || u32(b + 60) != 0) {
		bad(err, errlen, path, "reserved header fields not zero");
		goto fail;
	}
	if (atfr_u64(b + 20) != HEADER || f->bytes_length != size - HEADER - FOOTER) {
		bad(err, errlen, path, "events_offset %llu, bytes_length %llu in %zu bytes",
		    (unsigned long long)atfr_u64(b + 20), (unsigned long long)f->bytes_length, size);
		goto fail;
	}
	end = HEADER + f->bytes_length;
	foot = b + end;
	f->time_start_ns = atfr_u64(foot + 24), f->time_end_ns = atfr_u64(foot + 32);
	if (memcmp(foot, "2DTA", 4) != 0 || atfr_u64(foot + 8) != f->event_count ||
	    atfr_u64(foot + 16) != f->bytes_length || !all_zero(foot + 40, 24)) {
		bad(err, errlen, path, "footer does not match the header");
		goto fail;
	}
	if (u32(foot + 4) != atfr_crc32(b + HEADER, f->bytes_length)) {
		bad(err, errlen, path, "footer CRC 0x%08x != computed 0x%08x", u32(foot + 4),
		    atfr_crc32(b + HEADER, f->bytes_length));
		goto fail;
	}
	if (f->event_count > f->bytes_length / ATFR_DETAIL_FIXED) {
		bad(err, errlen, path, "event_count %llu cannot fit %llu bytes",
		    (unsigned long long)f->event_count, (unsigned long long)f->bytes_length);
		goto fail;
	}
	f->recs = calloc(f->event_count ? f->event_count : 1, sizeof(*f->recs));
	if (!f->recs) {
		bad(err, errlen, path, "out of memory");
		goto fail;
	}
	for (off = HEADER, i = 0; off < end; off += f->recs[i++].total_length) {
		if (i == f->event_count) {
			bad(err, errlen, path, "more records than event_count %llu",
			    (unsigned long long)f->event_count);
			goto fail;
		}
		if (read_rec(b, off, end, &f->recs[i], err, errlen, path))
			goto fail;
	}
	if (i != f->event_count) {
		bad(err, errlen, path, "%llu records, event_count %llu", (unsigned long long)i,
		    (unsigned long long)f->event_count);
		goto fail;
	}
	if (i && (f->index_seq_start != f->recs[0].index_seq ||
		  f->index_seq_end != f->recs[i - 1].index_seq ||
		  f->time_start_ns != f->recs[0].timestamp_ns ||
		  f->time_end_ns != f->recs[i - 1].timestamp_ns)) {
		bad(err, errlen, path, "header index_seq range or footer times do not match the "
				       "first and last records");
		goto fail;
	}
	return 0;
fail:
	atfr_detail_free(f);
	return -1;
}

void atfr_detail_free(struct atfr_detail *f)
{
	free(f->recs);
	free(f->image);
	memset(f, 0, sizeof(*f));
}
