/* atf_reader.c - maps ATF v2 index.atf and detail.atf files and checks their
 * structure (everything that can be checked without the other file or the
 * manifest). Event-level meaning (balance, depth, links) is atf_check.c's.
 *
 * Every failure returns -EBADMSG with one reason in err, so that callers can
 * tell "not valid ATF" from "could not be read".
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atf.h"

#define ATF_DETAIL_FIXED (ATF_DETAIL_HEADER_SIZE + ATF_DETAIL_PAYLOAD_SIZE)

static inline uint16_t get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)get_le16(p) | (uint32_t)get_le16(p + 2) << 16;
}

static inline uint64_t get_le64(const uint8_t *p)
{
	return (uint64_t)get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
}

__attribute__((format(printf, 3, 4)))
static int bad(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EBADMSG;
}

static bool all_zero(const uint8_t *p, size_t n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}

/* Maps the whole file read-only; it must hold at least a header and a footer. */
static int map_file(const char *path, void **map, size_t *len, char *err, size_t errlen)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ret = 0;

	if (fd < 0 || fstat(fd, &st) < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s", strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		ret = bad(err, errlen, "not a regular file");
	} else if (st.st_size < ATF_HEADER_SIZE + ATF_FOOTER_SIZE) {
		ret = bad(err, errlen, "file is %jd bytes, shorter than a 64-byte header and footer",
			  (intmax_t)st.st_size);
	} else {
		*len = (size_t)st.st_size;
		*map = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (*map == MAP_FAILED) {
			ret = -errno;
			snprintf(err, errlen, "mmap: %s", strerror(errno));
		}
	}
	if (fd >= 0)
		close(fd);
	return ret;
}

/* The first bytes shared by both headers: magic, endian, version, arch, os. */
static int check_prologue(const uint8_t *h, const char *magic, char *err, size_t errlen)
{
	if (memcmp(h, magic, 4))
		return bad(err, errlen, "header magic \"%.4s\", expected \"%s\"", (const char *)h,
			   magic);
	if (h[4] != 1)
		return bad(err, errlen, "header endian %u, expected 1 (little-endian)", h[4]);
	if (h[5] != 1)
		return bad(err, errlen, "header version %u, expected 1", h[5]);
	if (h[6] != ATF_ARCH_X86_64 && h[6] != ATF_ARCH_ARM64)
		return bad(err, errlen, "header arch %u, expected 1 or 2", h[6]);
	if (h[7] < 1 || h[7] > 5)
		return bad(err, errlen, "header os %u, expected 1..5", h[7]);
	return 0;
}

static int check_crc(const uint8_t *events, uint64_t n, uint32_t stored, char *err,
		     size_t errlen)
{
	uint32_t crc = atf_crc32(0, events, n);

	if (crc != stored)
		return bad(err, errlen, "footer CRC 0x%08" PRIx32 " != computed 0x%08" PRIx32,
			   stored, crc);
	return 0;
}

/* ---- index.atf ----------------------------------------------------------------- */

/* The header of a file of fixed-size records (index.atf, lanes.atf):
 * magic, size of a record, the flags it may set; fields into the caller's. */
struct fixed_header {
	uint8_t arch, os, clock_type;
	uint32_t flags, thread_id, event_count;
	uint64_t time_start_ns, time_end_ns;
};

static int check_fixed_header(const uint8_t *h, size_t len, const char *magic, uint32_t size,
			      uint32_t known_flags, struct fixed_header *f, char *err,
			      size_t errlen)
{
	uint64_t n, footer_off;
	int ret = check_prologue(h, magic, err, errlen);

	if (ret)
		return ret;
	f->arch = h[6];
	f->os = h[7];
	f->flags = get_le32(h + 8);
	f->thread_id = get_le32(h + 12);
	f->clock_type = h[16];
	f->event_count = get_le32(h + 28);
	f->time_start_ns = get_le64(h + 48);
	f->time_end_ns = get_le64(h + 56);
	n = f->event_count;
	footer_off = get_le64(h + 40);
	if (f->flags & ~known_flags)
		return bad(err, errlen, "header flags 0x%" PRIx32 " set reserved bits", f->flags);
	if (!all_zero(h + 17, 7))
		return bad(err, errlen, "header reserved bytes 17..23 not zero");
	if (get_le32(h + 24) != size)
		return bad(err, errlen, "header event_size %" PRIu32 ", expected %" PRIu32,
			   get_le32(h + 24), size);
	if (get_le64(h + 32) != ATF_HEADER_SIZE)
		return bad(err, errlen, "header events_offset %" PRIu64 ", expected 64",
			   get_le64(h + 32));
	if (footer_off != ATF_HEADER_SIZE + n * size)
		return bad(err, errlen, "header footer_offset %" PRIu64 " != 64 + %" PRIu32 " * %"
			   PRIu64, footer_off, size, n);
	if (len != footer_off + ATF_FOOTER_SIZE)
		return bad(err, errlen, "file is %zu bytes, header says %" PRIu64 " events (%" PRIu64
			   " bytes): truncated or trailing data", len, n, footer_off + ATF_FOOTER_SIZE);
	return 0;
}

/* Its footer's first 40 bytes: magic, count, times and bytes as the
 * header says (the CRC at 4 is checked over the records). */
static int check_fixed_footer(const uint8_t *ft, const char *magic, uint32_t size,
			      const struct fixed_header *f, char *err, size_t errlen)
{
	uint64_t n = f->event_count;

	if (memcmp(ft, magic, 4))
		return bad(err, errlen, "footer magic \"%.4s\", expected \"%s\"", (const char *)ft,
			   magic);
	if (get_le64(ft + 8) != n)
		return bad(err, errlen, "footer event_count %" PRIu64 " != header %" PRIu64,
			   get_le64(ft + 8), n);
	if (get_le64(ft + 16) != f->time_start_ns || get_le64(ft + 24) != f->time_end_ns)
		return bad(err, errlen, "footer times %" PRIu64 "..%" PRIu64 " != header %" PRIu64
			   "..%" PRIu64, get_le64(ft + 16), get_le64(ft + 24), f->time_start_ns,
			   f->time_end_ns);
	if (get_le64(ft + 32) != n * size)
		return bad(err, errlen, "footer bytes_written %" PRIu64 " != %" PRIu32 " * %" PRIu64,
			   get_le64(ft + 32), size, n);
	return 0;
}

static int check_index_header(const uint8_t *h, size_t len, struct atf_index_file *f,
			      char *err, size_t errlen)
{
	struct fixed_header fh;
	int ret = check_fixed_header(h, len, "ATI2", ATF_INDEX_EVENT_SIZE, ATF_FLAG_HAS_DETAIL,
				     &fh, err, errlen);

	f->arch = fh.arch;
	f->os = fh.os;
	f->flags = fh.flags;
	f->thread_id = fh.thread_id;
	f->clock_type = fh.clock_type;
	f->event_count = fh.event_count;
	f->time_start_ns = fh.time_start_ns;
	f->time_end_ns = fh.time_end_ns;
	return ret;
}

static int check_index_footer(const uint8_t *ft, const struct atf_index_file *f, char *err,
			      size_t errlen)
{
	struct fixed_header fh = { .event_count = f->event_count, .time_start_ns = f->time_start_ns,
				   .time_end_ns = f->time_end_ns };
	int ret = check_fixed_footer(ft, "2ITA", ATF_INDEX_EVENT_SIZE, &fh, err, errlen);

	if (!ret && !all_zero(ft + 40, 24))
		return bad(err, errlen, "footer reserved bytes not zero");
	return ret;
}

/* whole: the CRC too, which reads every event. */
static int index_map(const char *path, struct atf_index_file *f, bool whole, char *err,
		     size_t errlen)
{
	const uint8_t *ft;
	int ret;

	memset(f, 0, sizeof(*f));
	ret = map_file(path, &f->map, &f->map_len, err, errlen);
	if (ret)
		return ret;
	f->events = (const uint8_t *)f->map + ATF_HEADER_SIZE;
	ret = check_index_header(f->map, f->map_len, f, err, errlen);
	ft = f->events + (size_t)f->event_count * ATF_INDEX_EVENT_SIZE;
	if (!ret)
		ret = check_index_footer(ft, f, err, errlen);
	if (!ret && whole)
		ret = check_crc(f->events, f->event_count * ATF_INDEX_EVENT_SIZE, get_le32(ft + 4),
				err, errlen);
	if (ret)
		atf_index_unmap(f);
	return ret;
}

int atf_index_map(const char *path, struct atf_index_file *f, char *err, size_t errlen)
{
	return index_map(path, f, true, err, errlen);
}

int atf_index_map_head(const char *path, struct atf_index_file *f, char *err, size_t errlen)
{
	return index_map(path, f, false, err, errlen);
}

void atf_index_get(const struct atf_index_file *f, uint64_t i, struct atf_event *ev)
{
	const uint8_t *p = f->events + i * ATF_INDEX_EVENT_SIZE;

	ev->timestamp_ns = get_le64(p);
	ev->function_id = get_le64(p + 8);
	ev->thread_id = get_le32(p + 16);
	ev->kind = get_le32(p + 20);
	ev->call_depth = get_le32(p + 24);
	ev->detail_seq = get_le32(p + 28);
}

void atf_index_unmap(struct atf_index_file *f)
{
	if (f->map)
		munmap(f->map, f->map_len);
	memset(f, 0, sizeof(*f));
}

/* ---- detail.atf ---------------------------------------------------------------- */

static int check_detail_header(const uint8_t *h, size_t len, struct atf_detail_file *f,
			       char *err, size_t errlen)
{
	int ret = check_prologue(h, "ATD2", err, errlen);

	if (ret)
		return ret;
	f->arch = h[6];
	f->os = h[7];
	f->thread_id = get_le32(h + 12);
	f->event_count = get_le64(h + 28);
	f->bytes_length = get_le64(h + 36);
	f->index_seq_start = get_le64(h + 44);
	f->index_seq_end = get_le64(h + 52);
	if (get_le32(h + 8))
		return bad(err, errlen, "header flags 0x%" PRIx32 ", expected 0", get_le32(h + 8));
	if (!all_zero(h + 16, 4) || !all_zero(h + 60, 4))
		return bad(err, errlen, "header reserved bytes not zero");
	if (get_le64(h + 20) != ATF_HEADER_SIZE)
		return bad(err, errlen, "header events_offset %" PRIu64 ", expected 64",
			   get_le64(h + 20));
	if (f->bytes_length != len - ATF_HEADER_SIZE - ATF_FOOTER_SIZE)
		return bad(err, errlen, "file is %zu bytes, header bytes_length %" PRIu64
			   " says %" PRIu64 ": truncated or trailing data", len, f->bytes_length,
			   f->bytes_length + ATF_HEADER_SIZE + ATF_FOOTER_SIZE);
	return 0;
}

static int check_detail_footer(const uint8_t *ft, struct atf_detail_file *f, char *err,
			       size_t errlen)
{
	if (memcmp(ft, "2DTA", 4))
		return bad(err, errlen, "footer magic \"%.4s\", expected \"2DTA\"", (const char *)ft);
	if (get_le64(ft + 8) != f->event_count)
		return bad(err, errlen, "footer event_count %" PRIu64 " != header %" PRIu64,
			   get_le64(ft + 8), f->event_count);
	if (get_le64(ft + 16) != f->bytes_length)
		return bad(err, errlen, "footer bytes_length %" PRIu64 " != header %" PRIu64,
			   get_le64(ft + 16), f->bytes_length);
	if (!all_zero(ft + 40, 24))
		return bad(err, errlen, "footer reserved bytes not zero");
	f->time_start_ns = get_le64(ft + 24);
	f->time_end_ns = get_le64(ft + 32);
	return 0;
}

/* One record's framing, at byte `pos` of the events section. */
static int check_detail_record(const struct atf_detail_file *f, uint64_t pos, uint64_t nth,
			       char *err, size_t errlen)
{
	const uint8_t *p = f->events + pos;
	uint32_t total, stack, flags;

	if (f->bytes_length - pos < ATF_DETAIL_FIXED)
		return bad(err, errlen, "detail event #%" PRIu64 " at byte %" PRIu64 ": %" PRIu64
			   " bytes left, less than a 124-byte record", nth, pos, f->bytes_length - pos);
	total = get_le32(p);
	flags = get_le16(p + 6);
	stack = get_le16(p + ATF_DETAIL_HEADER_SIZE + 96);
	if (stack > ATF_DETAIL_MAX_STACK)
		return bad(err, errlen, "detail event #%" PRIu64 ": stack_size %" PRIu32 " > 512",
			   nth, stack);
	/* A bit nobody defined may mean bytes nobody can skip. */
	if (flags & ~(uint32_t)ATF_DETAIL_FLAGS)
		return bad(err, errlen, "detail event #%" PRIu64 ": flags 0x%" PRIx32
			   " set undefined bits", nth, flags);
	if (flags & ATF_DETAIL_FLAG_NOVALUE && get_le16(p + 4) != ATF_DETAIL_RETURN)
		return bad(err, errlen, "detail event #%" PRIu64 ": flags 0x%" PRIx32
			   " say a call has no return value (bit 1 is a return's)", nth, flags);
	if (total != atf_detail_total((uint16_t)flags, stack))
		return bad(err, errlen, "detail event #%" PRIu64 ": total_length %" PRIu32
			   " != 124 + stack_size %" PRIu32 "%s", nth, total, stack,
			   flags & ATF_DETAIL_FLAG_FREGS ? " + fregs 64" : "");
	if (total > f->bytes_length - pos)
		return bad(err, errlen, "detail event #%" PRIu64 ": total_length %" PRIu32
			   " runs past the events section", nth, total);
	if (get_le32(p + 12) != f->thread_id)
		return bad(err, errlen, "detail event #%" PRIu64 ": thread_id %" PRIu32
			   " != header %" PRIu32, nth, get_le32(p + 12), f->thread_id);
	return 0;
}

/* Walks the chain and compares its count, index_seq range and times with
 * what the header and footer say. */
static int check_detail_chain(const struct atf_detail_file *f, char *err, size_t errlen)
{
	struct atf_detail d, first = { 0 }, last = { 0 };
	uint64_t pos = 0, n = 0;
	int ret;

	while (pos < f->bytes_length) {
		ret = check_detail_record(f, pos, n, err, errlen);
		if (ret)
			return ret;
		atf_detail_next(f, &pos, &d);
		if (n++ == 0)
			first = d;
		last = d;
	}
	if (n != f->event_count)
		return bad(err, errlen, "chain holds %" PRIu64 " events, header says %" PRIu64, n,
			   f->event_count);
	if (n && (f->index_seq_start != first.index_seq || f->index_seq_end != last.index_seq))
		return bad(err, errlen, "header index_seq %" PRIu64 "..%" PRIu64 " != events' %"
			   PRIu32 "..%" PRIu32, f->index_seq_start, f->index_seq_end,
			   first.index_seq, last.index_seq);
	if (n && (f->time_start_ns != first.timestamp_ns || f->time_end_ns != last.timestamp_ns))
		return bad(err, errlen, "footer times %" PRIu64 "..%" PRIu64 " != events' %" PRIu64
			   "..%" PRIu64, f->time_start_ns, f->time_end_ns, first.timestamp_ns,
			   last.timestamp_ns);
	return 0;
}

/* whole: the CRC and the chain too, which read every record. */
static int detail_map(const char *path, struct atf_detail_file *f, bool whole, char *err,
		      size_t errlen)
{
	const uint8_t *ft;
	int ret;

	memset(f, 0, sizeof(*f));
	ret = map_file(path, &f->map, &f->map_len, err, errlen);
	if (ret)
		return ret;
	f->events = (const uint8_t *)f->map + ATF_HEADER_SIZE;
	ret = check_detail_header(f->map, f->map_len, f, err, errlen);
	ft = f->events + f->bytes_length;
	if (!ret)
		ret = check_detail_footer(ft, f, err, errlen);
	if (!ret && whole)
		ret = check_crc(f->events, f->bytes_length, get_le32(ft + 4), err, errlen);
	if (!ret && whole)
		ret = check_detail_chain(f, err, errlen);
	if (ret)
		atf_detail_unmap(f);
	return ret;
}

int atf_detail_map(const char *path, struct atf_detail_file *f, char *err, size_t errlen)
{
	return detail_map(path, f, true, err, errlen);
}

int atf_detail_map_head(const char *path, struct atf_detail_file *f, char *err, size_t errlen)
{
	return detail_map(path, f, false, err, errlen);
}

int atf_detail_next_checked(const struct atf_detail_file *f, uint64_t *pos, uint64_t nth,
			    struct atf_detail *d, char *err, size_t errlen)
{
	int ret;

	if (*pos >= f->bytes_length)
		return 1;
	ret = check_detail_record(f, *pos, nth, err, errlen);
	if (!ret)
		atf_detail_next(f, pos, d);
	return ret;
}

bool atf_detail_next(const struct atf_detail_file *f, uint64_t *pos, struct atf_detail *d)
{
	const uint8_t *p = f->events + *pos;
	const uint8_t *pl = p + ATF_DETAIL_HEADER_SIZE;

	if (*pos >= f->bytes_length)
		return false;
	d->event_type = get_le16(p + 4);
	d->flags = get_le16(p + 6);
	d->index_seq = get_le32(p + 8);
	d->timestamp_ns = get_le64(p + 16);
	d->function_id = get_le64(pl);
	for (int i = 0; i < 8; i++)
		d->regs[i] = get_le64(pl + 8 + 8 * i);
	d->lr = get_le64(pl + 72);
	d->fp = get_le64(pl + 80);
	d->sp = get_le64(pl + 88);
	d->stack_size = get_le16(pl + 96);
	d->stack = pl + ATF_DETAIL_PAYLOAD_SIZE;
	for (int i = 0; i < 8; i++)
		d->fregs[i] = d->flags & ATF_DETAIL_FLAG_FREGS
				      ? get_le64(d->stack + d->stack_size + 8 * i) : 0;
	*pos += get_le32(p);
	return true;
}

void atf_detail_unmap(struct atf_detail_file *f)
{
	if (f->map)
		munmap(f->map, f->map_len);
	memset(f, 0, sizeof(*f));
}

/* ---- lanes.atf ----------------------------------------------------------------- */

/* The index header's layout with lanes.atf's magic, flags and record size;
 * its footer's, with the count of each kind at 40, 48, 56. */
static int check_lanes_ends(const uint8_t *h, size_t len, struct atf_lanes_file *f, char *err,
			    size_t errlen)
{
	struct fixed_header fh;
	const uint8_t *ft;
	uint64_t sum = 0;
	int ret = check_fixed_header(h, len, "ATL2", ATF_LANE_EVENT_SIZE, ATF_LANES_FLAGS, &fh,
				     err, errlen);

	if (ret)
		return ret;
	f->arch = fh.arch;
	f->os = fh.os;
	f->flags = fh.flags;
	f->thread_id = fh.thread_id;
	f->clock_type = fh.clock_type;
	f->event_count = fh.event_count;
	f->time_start_ns = fh.time_start_ns;
	f->time_end_ns = fh.time_end_ns;
	ft = h + ATF_HEADER_SIZE + (size_t)f->event_count * ATF_LANE_EVENT_SIZE;
	if ((ret = check_fixed_footer(ft, "2LTA", ATF_LANE_EVENT_SIZE, &fh, err, errlen)))
		return ret;
	for (unsigned k = ATF_LANE_ALLOC; k < ATF_LANE_NKINDS; k++) {
		f->kind_count[k] = get_le64(ft + 40 + 8 * (k - 1));
		sum += f->kind_count[k];
		if (!(f->flags & ATF_LANES_HAS(k)) != !f->kind_count[k])
			return bad(err, errlen, "header flags 0x%" PRIx32 " but the footer counts %"
				   PRIu64 " records of kind %u", f->flags, f->kind_count[k], k);
	}
	if (sum != f->event_count)
		return bad(err, errlen, "footer counts of each kind add up to %" PRIu64
			   ", not the %" PRIu32 " records", sum, f->event_count);
	return 0;
}

void atf_lanes_get(const struct atf_lanes_file *f, uint64_t i, struct atf_lane *l)
{
	const uint8_t *p = f->events + i * ATF_LANE_EVENT_SIZE;

	l->timestamp_ns = get_le64(p);
	l->index_seq = get_le32(p + 8);
	l->call_depth = get_le32(p + 12);
	l->kind = get_le16(p + 16);
	l->op = get_le16(p + 18);
	l->flags = get_le32(p + 20);
	l->a = get_le64(p + 24);
	l->b = get_le64(p + 32);
	l->c = get_le64(p + 40);
	l->d = get_le32(p + 48);
	l->e = get_le32(p + 52);
	l->function_id = get_le64(p + 56);
}

int atf_lane_check(const struct atf_lane *prev, const struct atf_lane *l, uint64_t nth,
		   char *err, size_t errlen)
{
	bool alloc = l->kind == ATF_LANE_ALLOC, sample = l->kind == ATF_LANE_SAMPLE;

	if (l->kind < ATF_LANE_ALLOC || l->kind >= ATF_LANE_NKINDS)
		return bad(err, errlen, "record #%" PRIu64 ": kind %u not in 1..3", nth, l->kind);
	if (sample ? l->op != 0 : !l->op ||
	    l->op >= (alloc ? ATF_LANE_ALLOC_NOPS : ATF_LANE_BLOCK_NOPS))
		return bad(err, errlen, "record #%" PRIu64 ": op %u is not one of kind %u's", nth,
			   l->op, l->kind);
	if (l->flags & ~(alloc ? ATF_LANE_FLAG_FREED : 0u))
		return bad(err, errlen, "record #%" PRIu64 ": flags 0x%" PRIx32 " set undefined bits",
			   nth, l->flags);
	if (!sample && (l->c || l->d || l->e || l->function_id))
		return bad(err, errlen, "record #%" PRIu64 ": bytes 40..63 not zero (kind %u)", nth,
			   l->kind);
	if (alloc && l->flags & ATF_LANE_FLAG_FREED && l->b)
		return bad(err, errlen, "record #%" PRIu64 ": a block freed with size %" PRIu64
			   " (0 expected)", nth, l->b);
	if (prev && l->timestamp_ns < prev->timestamp_ns)
		return bad(err, errlen, "record #%" PRIu64 ": timestamp %" PRIu64
			   " before the record before's %" PRIu64, nth, l->timestamp_ns,
			   prev->timestamp_ns);
	if (prev && l->index_seq < prev->index_seq)
		return bad(err, errlen, "record #%" PRIu64 ": index_seq %" PRIu32
			   " before the record before's %" PRIu32, nth, l->index_seq, prev->index_seq);
	return 0;
}

int atf_lanes_map(const char *path, struct atf_lanes_file *f, bool records, char *err,
		  size_t errlen)
{
	struct atf_lane l, prev;
	const uint8_t *ft;
	int ret;

	memset(f, 0, sizeof(*f));
	ret = map_file(path, &f->map, &f->map_len, err, errlen);
	if (ret)
		return ret;
	f->events = (const uint8_t *)f->map + ATF_HEADER_SIZE;
	ret = check_lanes_ends(f->map, f->map_len, f, err, errlen);
	ft = f->events + (size_t)f->event_count * ATF_LANE_EVENT_SIZE;
	if (!ret)
		ret = check_crc(f->events, (uint64_t)f->event_count * ATF_LANE_EVENT_SIZE,
				get_le32(ft + 4), err, errlen);
	for (uint64_t i = 0; !ret && records && i < f->event_count; i++) {
		atf_lanes_get(f, i, &l);
		ret = atf_lane_check(i ? &prev : NULL, &l, i, err, errlen);
		prev = l;
	}
	if (ret)
		atf_lanes_unmap(f);
	return ret;
}

void atf_lanes_unmap(struct atf_lanes_file *f)
{
	if (f->map)
		munmap(f->map, f->map_len);
	memset(f, 0, sizeof(*f));
}
