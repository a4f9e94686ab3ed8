/* atf.h - ATF v2 on-disk layout (see docs/ATF_V2.md), its streaming writer and
 * its reader.
 *
 * The writer streams: a billion events pass through a fixed-size buffer, and
 * the header is patched when the file is closed. The reader maps a file and
 * checks it; atf_check.c builds the validator on top of it.
 */
#ifndef ADA_ATF_H
#define ADA_ATF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define ATF_HEADER_SIZE 64
#define ATF_FOOTER_SIZE 64
#define ATF_INDEX_EVENT_SIZE 32
#define ATF_DETAIL_HEADER_SIZE 24
#define ATF_DETAIL_PAYLOAD_SIZE 100
#define ATF_NO_DETAIL 0xFFFFFFFFu
#define ATF_CLOCK_BOOTTIME 3
#define ATF_OS_LINUX 4
#define ATF_FLAG_HAS_DETAIL 0x1
#define ATF_DETAIL_MAX_STACK 512  /* bytes of stack a detail event may carry */
#define ATF_ARCH_X86_64 1
#define ATF_ARCH_ARM64 2
/* ada's extensions of the detail event (docs/atf-extensions.md): flags bit 0
 * says fregs[8] follow its stack bytes, 64 more bytes in total_length; bit 1
 * (a return's only) that the function left by a tail call's jump, so its
 * registers hold no value of it (all 0). No other bit is defined. */
#define ATF_DETAIL_FLAG_FREGS 0x1
#define ATF_DETAIL_FLAG_NOVALUE 0x2
#define ATF_DETAIL_FLAGS (ATF_DETAIL_FLAG_FREGS | ATF_DETAIL_FLAG_NOVALUE)
#define ATF_DETAIL_FREGS_SIZE 64

enum atf_kind { ATF_CALL = 1, ATF_RETURN = 2, ATF_EXCEPTION = 3 };
enum atf_detail_type { ATF_DETAIL_CALL = 3, ATF_DETAIL_RETURN = 4 };

/* One index record, in memory (serialized packed little-endian, 32 bytes). */
struct atf_event {
	uint64_t timestamp_ns;
	uint64_t function_id; /* module_id << 32 | symbol_index */
	uint32_t thread_id;
	uint32_t kind;        /* enum atf_kind */
	uint32_t call_depth;  /* 1-based */
	uint32_t detail_seq;  /* ATF_NO_DETAIL if none */
};

/* One detail record (function call or return), in memory. */
struct atf_detail {
	uint32_t index_seq;
	uint16_t event_type;  /* 3 call, 4 return */
	uint16_t flags;
	uint64_t timestamp_ns;
	uint64_t function_id;
	uint64_t regs[8];
	uint64_t lr, fp, sp;
	uint16_t stack_size;
	const uint8_t *stack; /* stack_size bytes */
	/* flags & ATF_DETAIL_FLAG_FREGS: the FP registers, x86_64 xmm0..xmm7's
	 * low 64 bits at a call, xmm0 and xmm1 at a return (the rest 0) */
	uint64_t fregs[8];
};

/* A detail event's total_length: the header, the payload, its stack, and
 * fregs with ATF_DETAIL_FLAG_FREGS. */
static inline uint32_t atf_detail_total(uint16_t flags, uint32_t stack_size)
{
	return ATF_DETAIL_HEADER_SIZE + ATF_DETAIL_PAYLOAD_SIZE + stack_size +
	       (flags & ATF_DETAIL_FLAG_FREGS ? ATF_DETAIL_FREGS_SIZE : 0);
}

/* ---- writer ------------------------------------------------------------------ */

struct atf_index_writer;   /* opaque */
struct atf_detail_writer;  /* opaque */

/* Creates `path` (truncating), writes a placeholder header. Returns NULL and
 * prints one line naming the path on failure. arch = 1 x86_64, 2 arm64. */
struct atf_index_writer *atf_index_open(const char *path, uint32_t thread_id, uint8_t arch);
/* Appends one event (buffered), as given (thread_id included). Returns 0 or a
 * negative errno: -EOVERFLOW past 2^32-1 events (the header count is 32 bits);
 * after a write error every call returns that error. */
int atf_index_append(struct atf_index_writer *w, const struct atf_event *ev);
/* Number of events appended so far (= the next event's index_seq). */
uint64_t atf_index_count(const struct atf_index_writer *w);
/* Sets header flag bit 0 (detail.atf exists) before closing. */
void atf_index_set_has_detail(struct atf_index_writer *w, bool has);
/* Writes the footer (CRC-32 of the events), patches the header, closes, frees.
 * Returns 0 or a negative errno (message printed; the partial file is removed). */
int atf_index_close(struct atf_index_writer *w);

/* The detail twin. Events must come in index order; append rejects a stack
 * larger than ATF_DETAIL_MAX_STACK with -EINVAL. Header index_seq_start/end
 * and footer times are the first and last appended event's. */
struct atf_detail_writer *atf_detail_open(const char *path, uint32_t thread_id, uint8_t arch);
int atf_detail_append(struct atf_detail_writer *w, const struct atf_detail *d);
uint64_t atf_detail_count(const struct atf_detail_writer *w);
int atf_detail_close(struct atf_detail_writer *w);

/* zlib's CRC-32 (poly 0xEDB88320 reflected, init/xorout 0xFFFFFFFF), streaming:
 * crc = atf_crc32(0, buf, n) to start, pass the previous value to continue. */
uint32_t atf_crc32(uint32_t crc, const void *buf, size_t n);

/* ---- reader ------------------------------------------------------------------ */

struct atf_index_file {
	/* header fields */
	uint8_t arch, os;
	uint32_t flags, thread_id;
	uint8_t clock_type;
	uint32_t event_count;
	uint64_t time_start_ns, time_end_ns;
	/* the events, mapped read-only: event i at events + 32*i */
	const uint8_t *events;
	/* private */
	void *map;
	size_t map_len;
};

/* Maps and checks the structure: magic, endian, version, event_size, offsets,
 * file size, reserved bytes, footer magic, counts, times and CRC. Returns 0, or
 * a negative errno with a one-line reason in err, without the path, which the
 * caller prefixes (e.g. "footer CRC 0x1234abcd != computed 0x89ef0123").
 * -EBADMSG means the file is there but is not valid ATF. */
int atf_index_map(const char *path, struct atf_index_file *f, char *err, size_t errlen);
/* As atf_index_map without the CRC, for a reader of the first events only
 * (--dump --limit): the header, the footer and the events read are all of
 * the file it touches. */
int atf_index_map_head(const char *path, struct atf_index_file *f, char *err, size_t errlen);
void atf_index_get(const struct atf_index_file *f, uint64_t i, struct atf_event *ev);
void atf_index_unmap(struct atf_index_file *f);

struct atf_detail_file {
	/* header fields */
	uint8_t arch, os;
	uint32_t thread_id;
	uint64_t event_count, bytes_length;
	uint64_t index_seq_start, index_seq_end;
	/* footer fields */
	uint64_t time_start_ns, time_end_ns;
	/* the events section, mapped read-only */
	const uint8_t *events;
	/* private */
	void *map;
	size_t map_len;
};

/* Maps and checks a detail file like atf_index_map, and walks its record chain
 * once: every total_length = 124 + stack_size (+ 64 with ATF_DETAIL_FLAG_FREGS,
 * no other flag bit), stack_size <= 512, every
 * thread_id = the header's, the chain fills bytes_length exactly, and the
 * header's count and index_seq range and the footer's times match the records.
 * Links to the index are the caller's to check. */
int atf_detail_map(const char *path, struct atf_detail_file *f, char *err, size_t errlen);
/* Iterates: start with *pos = 0; fills d (d->stack points into the mapping)
 * and advances *pos; false after the last record. */
bool atf_detail_next(const struct atf_detail_file *f, uint64_t *pos, struct atf_detail *d);
/* As atf_detail_map without the CRC and the chain's walk; read with
 * atf_detail_next_checked, which checks the framing of each record (the nth
 * from 0, at *pos) as atf_detail_map does: 0 with d filled, 1 after the last
 * record, or -EBADMSG with the reason in err. */
int atf_detail_map_head(const char *path, struct atf_detail_file *f, char *err, size_t errlen);
int atf_detail_next_checked(const struct atf_detail_file *f, uint64_t *pos, uint64_t nth,
			    struct atf_detail *d, char *err, size_t errlen);
void atf_detail_unmap(struct atf_detail_file *f);

/* ---- lanes.atf: ada's allocations, counter samples and waits ------------------
 *
 * A file of ada's own beside index.atf (docs/atf-extensions.md, "lanes.atf"):
 * a 64-byte header ("ATL2"), fixed 64-byte records, a 64-byte footer
 * ("2LTA") with the CRC-32 of the records. Each record lies between index
 * events index_seq - 1 and index_seq, inside call_depth open frames. */
#define ATF_LANE_EVENT_SIZE 64
enum atf_lane_kind { ATF_LANE_ALLOC = 1, ATF_LANE_SAMPLE = 2, ATF_LANE_BLOCK = 3 };
#define ATF_LANE_NKINDS 4            /* kinds are 1..3 */
#define ATF_LANE_ALLOC_NOPS 15       /* ALLOC op 1..14: enum ada_alloc_op */
#define ATF_LANE_BLOCK_NOPS 10       /* BLOCK op 1..9: enum ada_block_op */
#define ATF_LANE_FLAG_FREED 0x1      /* ALLOC flags: the block was freed */
/* Header flags: which kinds the file holds (bit kind - 1). */
#define ATF_LANES_HAS(kind) (1u << ((kind) - 1))
#define ATF_LANES_FLAGS 0x7u

/* One record, in memory. The kind says what a, b, c, d, e and function_id
 * hold (0 where it says nothing):
 *   ALLOC:  a = the block's address, b = the bytes asked for (0 freed)
 *   SAMPLE: a = CPU ns, b = minor faults, c = major faults, d = voluntary
 *           and e = involuntary switches (modulo 2^32), all since the
 *           thread's sample before; function_id = the interrupted
 *           function's, 0 if none is known
 *   BLOCK:  a = the object, b = start_ns (a wait's start; a release's time) */
struct atf_lane {
	uint64_t timestamp_ns;
	uint32_t index_seq;
	uint32_t call_depth;  /* 0: outside every frame */
	uint16_t kind;        /* enum atf_lane_kind */
	uint16_t op;
	uint32_t flags;
	uint64_t a, b, c;
	uint32_t d, e;
	uint64_t function_id;
};

struct atf_lanes_writer;   /* opaque */

/* As atf_index_open; append rejects an unknown kind, op or flag with
 * -EINVAL and -EOVERFLOW past 2^32-1 records. */
struct atf_lanes_writer *atf_lanes_open(const char *path, uint32_t thread_id, uint8_t arch);
int atf_lanes_append(struct atf_lanes_writer *w, const struct atf_lane *l);
uint64_t atf_lanes_count(const struct atf_lanes_writer *w);
int atf_lanes_close(struct atf_lanes_writer *w);

struct atf_lanes_file {
	/* header fields */
	uint8_t arch, os;
	uint32_t flags, thread_id;
	uint8_t clock_type;
	uint32_t event_count;
	uint64_t time_start_ns, time_end_ns;
	uint64_t kind_count[ATF_LANE_NKINDS]; /* footer: records of each kind */
	/* the records, mapped read-only: record i at events + 64*i */
	const uint8_t *events;
	/* private */
	void *map;
	size_t map_len;
};

/* Maps and checks lanes.atf as atf_index_map does index.atf (magic,
 * sizes, reserved bytes, footer, CRC); records: every record too
 * (atf_lane_check) and the footer's counts of each kind and the header's
 * flags against them. Links to the index are the caller's to check. */
int atf_lanes_map(const char *path, struct atf_lanes_file *f, bool records, char *err,
		  size_t errlen);
void atf_lanes_get(const struct atf_lanes_file *f, uint64_t i, struct atf_lane *l);
/* Record nth on its own and after prev (NULL for the first): a known kind,
 * op and flags, zeros where its kind says nothing, times and index_seq
 * never decreasing. 0, or -EBADMSG with "record #N: ..." in err. */
int atf_lane_check(const struct atf_lane *prev, const struct atf_lane *l, uint64_t nth,
		   char *err, size_t errlen);
void atf_lanes_unmap(struct atf_lanes_file *f);

/* write() until all n bytes are written (EINTR retried): 0 or -errno. */
int atf_write_all(int fd, const void *buf, size_t n);

#endif
