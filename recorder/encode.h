/* encode.h - ring slots → the compact thread stream of raw_format.h.
 *
 * Runs in the recorder only (and in ada-symbolize's recovery). Pure functions over caller-owned state, so
 * the encoder is tested without a process around it.
 */
#ifndef ADA_ENCODE_H
#define ADA_ENCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "thread.h"

/* Function dictionary: process address → fid (1, 2, …). New fids are queued in
 * `pending` until the writer puts them in process.meta. A direct-mapped
 * cache of the addresses seen last sits in front of the table: a program's
 * calls go to a few hot functions at a time, and a hit costs a load and a
 * compare where the table's lookup costs a hash and a probe. */
#define ADA_FDICT_RECENT 512 /* entries, a power of two */
struct ada_fdict {
	uint64_t *keys;      /* open addressing; 0 = empty slot */
	uint32_t *vals;
	size_t cap, used;
	uint32_t next_fid;
	uint64_t *pending;   /* addresses of fids pending_first, pending_first+1, … */
	size_t npending, pending_cap;
	uint32_t pending_first;
	struct {
		uint64_t addr;   /* 0: empty (no function is at address 0) */
		uint32_t fid;
	} recent[ADA_FDICT_RECENT];
};

/* One thread's encoder state: the timestamp base and the open frames' fids. */
struct ada_enc_stream {
	uint64_t last_tsc;
	uint64_t *open;      /* address of each open frame, innermost last */
	size_t depth, cap;
	uint64_t mismatches; /* RETURNs whose address was not the innermost frame's */
	uint64_t dropped;    /* closes with nothing open: not written (SKIP) */
};

/* A detail window being written: positions [lo, hi] get their records. */
struct ada_enc_window {
	uint64_t lo, hi;
	uint64_t kept, lost;   /* records written, and gone (overwritten) before */
	uint64_t first_tsc, last_tsc; /* of the window's first and last event written */
	bool started;
};

/* Where the detail records of the slots being encoded are (a thread's detail
 * ring: one record per position, ADA_DREC_* words), and which to write. */
struct ada_enc_detail {
	const uint8_t *ring;  /* NULL: the thread has none */
	uint64_t mask;        /* records - 1 */
	uint32_t rec_bytes;
	/* Window mode: the producer's head, which says whether it has written
	 * over a record while we copied it. NULL with ADA_DETAIL=all, where a
	 * record is not reused before the writer's tail passes it. */
	const uint64_t *head;
	uint64_t pos;         /* index position of the first slot given */
	uint64_t from;        /* ring mode: positions below have no record to write */
	bool skip;            /* consume the records without writing them */
	uint64_t skipped;     /* records consumed so */
	/* Window mode: the windows, in position order, that the records to
	 * write fall in; none: no record is written. */
	struct ada_enc_window *win;
	size_t nwin, wcur;
	uint64_t lost;        /* records the ring no longer held */
};

/* Worst case bytes for n slots plus the SYNC and POS that start every frame. */
#define ADA_ENC_SYNC_BYTES (9 + 1 + 10)
/* tag + 10-byte delta varint + 5-byte fid varint; an ALLOC: tag + what +
 * 8-byte address varint + 10-byte size varint; a SAMPLE part: tag + part +
 * 10-byte varint + 8-byte varint */
#define ADA_ENC_MAX_EVENT 20
#define ADA_ENC_LOST_MAX 12
#define ADA_ENC_SKIP_MAX 11
#define ADA_ENC_DETAIL_MAX (1 + ADA_RAW_DETAIL_SIZE + ADA_STACK_MAX + 1 + ADA_RAW_FREGS_SIZE)
static inline size_t ada_encode_bound(size_t n)
{
	return ADA_ENC_SYNC_BYTES + n * ADA_ENC_MAX_EVENT;
}

int ada_fdict_init(struct ada_fdict *d);
void ada_fdict_free(struct ada_fdict *d);
/* The table's lookup, which assigns the next fid to a new address, and
 * caches it; 0 only when memory ran out. */
uint32_t ada_fdict_lookup(struct ada_fdict *d, uint64_t addr);

/* The cache entry addr takes. */
static inline size_t ada_fdict_recent_slot(uint64_t addr)
{
	return (size_t)(addr ^ addr >> 9) & (ADA_FDICT_RECENT - 1);
}

/* addr's fid; 0 only when memory ran out. */
static inline uint32_t ada_fdict_get(struct ada_fdict *d, uint64_t addr)
{
	size_t i = ada_fdict_recent_slot(addr);

	if (__builtin_expect(d->recent[i].addr == addr, 1))
		return d->recent[i].fid;
	return ada_fdict_lookup(d, addr);
}

void ada_enc_stream_free(struct ada_enc_stream *s);
/* Starts a frame: SYNC with the first slot's tsc (or the last one seen),
 * then POS with the ring position of its first slot. */
size_t ada_encode_sync(struct ada_enc_stream *s, uint64_t tsc, uint64_t pos, uint8_t *out);
/* Encodes n slots, each flagged one followed by its DETAIL record from dl
 * (may be NULL when no slot is flagged). Returns bytes written, or
 * (size_t)-1 if memory ran out. out must hold ada_encode_bound(n) bytes plus
 * ADA_ENC_DETAIL_MAX per flagged slot. */
size_t ada_encode_slots(struct ada_enc_stream *s, struct ada_fdict *d,
			const struct ada_slot *slots, size_t n, uint8_t *out,
			struct ada_enc_detail *dl);
size_t ada_encode_lost(unsigned reason, uint64_t count, uint8_t *out);
/* SKIP n: ring positions consumed without an event (s->dropped's growth). */
size_t ada_encode_skip(uint64_t n, uint8_t *out);
/* A ring-mode cut (snapshot.c, recover.c): the positions between the last
 * event written and the oldest the ring still holds are gone. The stream's
 * open frames end there (EXCEPTION closes, at the last time written), skip
 * positions are passed over, and the frames the kept events return from
 * without having entered them in the ring are entered at tsc (calls[]:
 * their addresses, innermost first; the CALLs go outermost first). The
 * closes and calls take a position each: the caller leaves room for them
 * (skip = gone - open - k). Returns bytes written, (size_t)-1 if memory
 * ran out; out must hold ADA_ENC_MAX_EVENT per close and call, and a SKIP. */
size_t ada_encode_cut(struct ada_enc_stream *s, struct ada_fdict *d, uint64_t skip,
		      const uint64_t *calls, size_t k, uint64_t tsc, uint8_t *out);
/* The frames that a run of slots returns from without entering them in
 * it, as slots come (scan them in order, in as many parts as need be):
 * their addresses into calls[], innermost first. k goes past max when
 * there are more than calls[] holds. */
struct ada_cut_scan {
	size_t depth, k;
};
void ada_cut_scan(struct ada_cut_scan *cs, const struct ada_slot *slots, size_t n,
		  uint64_t *calls, size_t max);

static inline size_t ada_put_varint(uint8_t *out, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		out[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (uint8_t)v;
	return n;
}

#endif
