/* atf_writer.c - streaming writers for ATF v2 index.atf and detail.atf, and
 * for ada's lanes.atf beside them (docs/atf-extensions.md).
 *
 * Memory stays fixed however long the trace: records are serialized into the
 * sink's buffers (atf_sink.c), checksummed and written out as they fill. The
 * header goes out first as 64 zero bytes and is patched with pwrite at close,
 * when the counts and times are known. Every field is serialized byte by byte in
 * little-endian order, so the layout never depends on the host or on struct
 * padding.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atf.h"
#include "atf_sink.h"

#define ATF_DETAIL_FIXED (ATF_DETAIL_HEADER_SIZE + ATF_DETAIL_PAYLOAD_SIZE)

_Static_assert(ATF_HEADER_SIZE == 64 && ATF_FOOTER_SIZE == 64, "ATF v2 header/footer");
_Static_assert(ATF_INDEX_EVENT_SIZE == 32, "ATF v2 index event");
_Static_assert(ATF_DETAIL_FIXED == 124, "ATF v2 detail event without stack");
_Static_assert(ATF_SINK_BUF % ATF_INDEX_EVENT_SIZE == 0, "index events fill a buffer exactly");
_Static_assert(ATF_SINK_BUF >= ATF_DETAIL_FIXED + ATF_DETAIL_MAX_STACK + ATF_DETAIL_FREGS_SIZE,
	       "a detail event fits");

#define unlikely(x) __builtin_expect(!!(x), 0)

/* Each writer's sink comes first: writer_open fills it. */
struct atf_index_writer {
	struct atf_sink *sink;
	uint32_t thread_id;
	uint8_t arch;
	uint32_t flags;
	uint64_t count;
	uint64_t time_start, time_end;
};

struct atf_lanes_writer {
	struct atf_sink *sink;
	uint32_t thread_id;
	uint8_t arch;
	uint64_t count;
	uint64_t kind_count[ATF_LANE_NKINDS];
	uint64_t time_start, time_end;
};

struct atf_detail_writer {
	struct atf_sink *sink;
	uint32_t thread_id;
	uint8_t arch;
	uint64_t count;
	uint64_t seq_start, seq_end;
	uint64_t time_start, time_end;
};

/* ---- little-endian serialization -------------------------------------------- */

static inline void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void put_le32(uint8_t *p, uint32_t v)
{
	put_le16(p, (uint16_t)v);
	put_le16(p + 2, (uint16_t)(v >> 16));
}

static inline void put_le64(uint8_t *p, uint64_t v)
{
	put_le32(p, (uint32_t)v);
	put_le32(p + 4, (uint32_t)(v >> 32));
}

/* A writer of size bytes whose first member is its sink, on a new file at
 * path; NULL after printing the error. */
static void *writer_open(const char *path, size_t size)
{
	struct atf_sink **w = calloc(1, size);

	if (!w) {
		fprintf(stderr, "ada-symbolize: %s: %s\n", path, strerror(ENOMEM));
		return NULL;
	}
	*w = atf_sink_open(path);
	if (!*w) {
		free(w);
		return NULL;
	}
	return w;
}

/* ---- index.atf ----------------------------------------------------------------- */

struct atf_index_writer *atf_index_open(const char *path, uint32_t thread_id, uint8_t arch)
{
	struct atf_index_writer *w = writer_open(path, sizeof(*w));

	if (w) {
		w->thread_id = thread_id;
		w->arch = arch;
	}
	return w;
}

/* The hot loop of the symbolizer: 32 bytes into the buffer, nothing else. */
int atf_index_append(struct atf_index_writer *w, const struct atf_event *ev)
{
	struct atf_sink *s = w->sink;
	int err = atf_sink_reserve(s, ATF_INDEX_EVENT_SIZE);
	uint8_t *p;

	if (unlikely(err))
		return err;
	if (unlikely(w->count == UINT32_MAX))
		return atf_sink_fail(s, -EOVERFLOW);
	p = s->buf + s->len;
	put_le64(p, ev->timestamp_ns);
	put_le64(p + 8, ev->function_id);
	put_le32(p + 16, ev->thread_id);
	put_le32(p + 20, ev->kind);
	put_le32(p + 24, ev->call_depth);
	put_le32(p + 28, ev->detail_seq);
	s->len += ATF_INDEX_EVENT_SIZE;
	if (w->count++ == 0)
		w->time_start = ev->timestamp_ns;
	w->time_end = ev->timestamp_ns;
	return 0;
}

uint64_t atf_index_count(const struct atf_index_writer *w)
{
	return w->count;
}

void atf_index_set_has_detail(struct atf_index_writer *w, bool has)
{
	w->flags = has ? ATF_FLAG_HAS_DETAIL : 0;
}

/* The header of a file of fixed-size records (index.atf, lanes.atf). */
static void fixed_header(uint8_t h[ATF_HEADER_SIZE], const char magic[4], uint8_t arch,
			 uint32_t flags, uint32_t thread_id, uint32_t size, uint64_t count,
			 uint64_t time_start, uint64_t time_end)
{
	memset(h, 0, ATF_HEADER_SIZE);
	memcpy(h, magic, 4);
	h[4] = 1; /* little-endian */
	h[5] = 1; /* version */
	h[6] = arch;
	h[7] = ATF_OS_LINUX;
	put_le32(h + 8, flags);
	put_le32(h + 12, thread_id);
	h[16] = ATF_CLOCK_BOOTTIME;
	put_le32(h + 24, size);
	put_le32(h + 28, (uint32_t)count);
	put_le64(h + 32, ATF_HEADER_SIZE);
	put_le64(h + 40, ATF_HEADER_SIZE + count * size);
	put_le64(h + 48, time_start);
	put_le64(h + 56, time_end);
}

/* Its footer: magic, crc, count, times, bytes (the detail footer differs). */
static void fixed_footer(uint8_t f[ATF_FOOTER_SIZE], const char magic[4], uint32_t crc,
			 uint32_t size, uint64_t count, uint64_t time_start, uint64_t time_end)
{
	memset(f, 0, ATF_FOOTER_SIZE);
	memcpy(f, magic, 4);
	put_le32(f + 4, crc);
	put_le64(f + 8, count);
	put_le64(f + 16, time_start);
	put_le64(f + 24, time_end);
	put_le64(f + 32, count * size);
}

int atf_index_close(struct atf_index_writer *w)
{
	uint8_t header[ATF_HEADER_SIZE], footer[ATF_FOOTER_SIZE];
	struct atf_sink *s = w->sink;
	int err;

	atf_sink_drain(s); /* an error stays in s->err for atf_sink_close */
	fixed_header(header, "ATI2", w->arch, w->flags, w->thread_id, ATF_INDEX_EVENT_SIZE,
		     w->count, w->time_start, w->time_end);
	fixed_footer(footer, "2ITA", s->crc, ATF_INDEX_EVENT_SIZE, w->count, w->time_start,
		     w->time_end);
	err = atf_sink_close(s, header, footer);
	free(w);
	return err;
}

/* ---- detail.atf ---------------------------------------------------------------- */

struct atf_detail_writer *atf_detail_open(const char *path, uint32_t thread_id, uint8_t arch)
{
	struct atf_detail_writer *w = writer_open(path, sizeof(*w));

	if (w) {
		w->thread_id = thread_id;
		w->arch = arch;
	}
	return w;
}

static void detail_record(const struct atf_detail_writer *w, const struct atf_detail *d,
			  uint8_t *p)
{
	uint32_t total = atf_detail_total(d->flags, d->stack_size);
	uint8_t *pl = p + ATF_DETAIL_HEADER_SIZE;

	put_le32(p, total);
	put_le16(p + 4, d->event_type);
	put_le16(p + 6, d->flags);
	put_le32(p + 8, d->index_seq);
	put_le32(p + 12, w->thread_id);
	put_le64(p + 16, d->timestamp_ns);
	put_le64(pl, d->function_id);
	for (int i = 0; i < 8; i++)
		put_le64(pl + 8 + 8 * i, d->regs[i]);
	put_le64(pl + 72, d->lr);
	put_le64(pl + 80, d->fp);
	put_le64(pl + 88, d->sp);
	put_le16(pl + 96, d->stack_size);
	put_le16(pl + 98, 0);
	if (d->stack_size)
		memcpy(pl + ATF_DETAIL_PAYLOAD_SIZE, d->stack, d->stack_size);
	if (d->flags & ATF_DETAIL_FLAG_FREGS)
		for (int i = 0; i < 8; i++)
			put_le64(pl + ATF_DETAIL_PAYLOAD_SIZE + d->stack_size + 8 * i, d->fregs[i]);
}

int atf_detail_append(struct atf_detail_writer *w, const struct atf_detail *d)
{
	struct atf_sink *s = w->sink;
	size_t total = atf_detail_total(d->flags, d->stack_size);
	int err;

	if (d->stack_size > ATF_DETAIL_MAX_STACK || d->flags & ~ATF_DETAIL_FLAGS ||
	    (d->flags & ATF_DETAIL_FLAG_NOVALUE && d->event_type != ATF_DETAIL_RETURN))
		return atf_sink_fail(s, -EINVAL);
	err = atf_sink_reserve(s, total);
	if (err)
		return err;
	detail_record(w, d, s->buf + s->len);
	s->len += total;
	if (w->count++ == 0) {
		w->seq_start = d->index_seq;
		w->time_start = d->timestamp_ns;
	}
	w->seq_end = d->index_seq;
	w->time_end = d->timestamp_ns;
	return 0;
}

uint64_t atf_detail_count(const struct atf_detail_writer *w)
{
	return w->count;
}

/* Detail header: note the packed u64 fields at offsets 20..59. */
static void detail_header(const struct atf_detail_writer *w, uint64_t bytes,
			  uint8_t h[ATF_HEADER_SIZE])
{
	memset(h, 0, ATF_HEADER_SIZE);
	memcpy(h, "ATD2", 4);
	h[4] = 1;
	h[5] = 1;
	h[6] = w->arch;
	h[7] = ATF_OS_LINUX;
	put_le32(h + 12, w->thread_id);
	put_le64(h + 20, ATF_HEADER_SIZE);
	put_le64(h + 28, w->count);
	put_le64(h + 36, bytes);
	put_le64(h + 44, w->seq_start);
	put_le64(h + 52, w->seq_end);
}

/* Detail footer: magic, crc, count, bytes, times (bytes before the times). */
static void detail_footer(const struct atf_detail_writer *w, uint32_t crc, uint64_t bytes,
			  uint8_t f[ATF_FOOTER_SIZE])
{
	memset(f, 0, ATF_FOOTER_SIZE);
	memcpy(f, "2DTA", 4);
	put_le32(f + 4, crc);
	put_le64(f + 8, w->count);
	put_le64(f + 16, bytes);
	put_le64(f + 24, w->time_start);
	put_le64(f + 32, w->time_end);
}

int atf_detail_close(struct atf_detail_writer *w)
{
	uint8_t header[ATF_HEADER_SIZE], footer[ATF_FOOTER_SIZE];
	struct atf_sink *s = w->sink;
	int err;

	atf_sink_drain(s); /* an error stays in s->err for atf_sink_close */
	detail_header(w, s->bytes, header);
	detail_footer(w, s->crc, s->bytes, footer);
	err = atf_sink_close(s, header, footer);
	free(w);
	return err;
}

/* ---- lanes.atf ----------------------------------------------------------------- */

_Static_assert(ATF_SINK_BUF % ATF_LANE_EVENT_SIZE == 0, "lane records fill a buffer exactly");

struct atf_lanes_writer *atf_lanes_open(const char *path, uint32_t thread_id, uint8_t arch)
{
	struct atf_lanes_writer *w = writer_open(path, sizeof(*w));

	if (w) {
		w->thread_id = thread_id;
		w->arch = arch;
	}
	return w;
}

int atf_lanes_append(struct atf_lanes_writer *w, const struct atf_lane *l)
{
	struct atf_sink *s = w->sink;
	char why[128];
	int err;
	uint8_t *p;

	/* What a reader would refuse is not written (the converter's bug). */
	if (atf_lane_check(NULL, l, w->count, why, sizeof(why)))
		return atf_sink_fail(s, -EINVAL);
	if ((err = atf_sink_reserve(s, ATF_LANE_EVENT_SIZE)))
		return err;
	if (w->count == UINT32_MAX)
		return atf_sink_fail(s, -EOVERFLOW);
	p = s->buf + s->len;
	put_le64(p, l->timestamp_ns);
	put_le32(p + 8, l->index_seq);
	put_le32(p + 12, l->call_depth);
	put_le16(p + 16, l->kind);
	put_le16(p + 18, l->op);
	put_le32(p + 20, l->flags);
	put_le64(p + 24, l->a);
	put_le64(p + 32, l->b);
	put_le64(p + 40, l->c);
	put_le32(p + 48, l->d);
	put_le32(p + 52, l->e);
	put_le64(p + 56, l->function_id);
	s->len += ATF_LANE_EVENT_SIZE;
	if (w->count++ == 0)
		w->time_start = l->timestamp_ns;
	w->time_end = l->timestamp_ns;
	w->kind_count[l->kind]++;
	return 0;
}

uint64_t atf_lanes_count(const struct atf_lanes_writer *w)
{
	return w->count;
}

int atf_lanes_close(struct atf_lanes_writer *w)
{
	uint8_t header[ATF_HEADER_SIZE], footer[ATF_FOOTER_SIZE];
	struct atf_sink *s = w->sink;
	int err;
	uint32_t flags = 0;

	atf_sink_drain(s); /* an error stays in s->err for atf_sink_close */
	for (unsigned k = ATF_LANE_ALLOC; k < ATF_LANE_NKINDS; k++)
		if (w->kind_count[k])
			flags |= ATF_LANES_HAS(k);
	fixed_header(header, "ATL2", w->arch, flags, w->thread_id, ATF_LANE_EVENT_SIZE,
		     w->count, w->time_start, w->time_end);
	/* The index footer's fields, then the count of each kind. */
	fixed_footer(footer, "2LTA", s->crc, ATF_LANE_EVENT_SIZE, w->count, w->time_start,
		     w->time_end);
	for (unsigned k = ATF_LANE_ALLOC; k < ATF_LANE_NKINDS; k++)
		put_le64(footer + 40 + 8 * (k - 1), w->kind_count[k]);
	err = atf_sink_close(s, header, footer);
	free(w);
	return err;
}
