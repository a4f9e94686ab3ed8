/* encode.c - ring slots → compact thread stream (format in raw_format.h).
 *
 * Why re-encode at all: a 16-byte slot compresses to ~6.5 bytes with lz4, but
 * most of it is predictable. A RETURN closes the innermost frame, so its
 * address is implied; timestamps a few dozen ticks apart fit in the tag's six
 * spare bits; hot functions get small fids. The loop the benchmark runs comes
 * out at ~1.5 bytes per event before lz4.
 */
#include <stdlib.h>
#include <string.h>

#include "encode.h"

static uint64_t hash_addr(uint64_t a)
{
	a ^= a >> 29;
	a *= 0xbf58476d1ce4e5b9ull;
	return a ^ (a >> 32);
}

int ada_fdict_init(struct ada_fdict *d)
{
	memset(d, 0, sizeof(*d));
	d->cap = 1024;
	d->keys = calloc(d->cap, sizeof(*d->keys));
	d->vals = calloc(d->cap, sizeof(*d->vals));
	d->next_fid = 1;
	d->pending_first = 1;
	if (!d->keys || !d->vals) {
		ada_fdict_free(d);
		return -1;
	}
	return 0;
}

void ada_fdict_free(struct ada_fdict *d)
{
	free(d->keys);
	free(d->vals);
	free(d->pending);
	memset(d, 0, sizeof(*d));
}

static int fdict_grow(struct ada_fdict *d)
{
	struct ada_fdict bigger = *d;
	size_t i;

	bigger.cap = d->cap * 2;
	bigger.keys = calloc(bigger.cap, sizeof(*bigger.keys));
	bigger.vals = calloc(bigger.cap, sizeof(*bigger.vals));
	if (!bigger.keys || !bigger.vals) {
		free(bigger.keys);
		free(bigger.vals);
		return -1;
	}
	for (i = 0; i < d->cap; i++) {
		size_t j;

		if (!d->keys[i])
			continue;
		for (j = hash_addr(d->keys[i]) & (bigger.cap - 1); bigger.keys[j];
		     j = (j + 1) & (bigger.cap - 1))
			;
		bigger.keys[j] = d->keys[i];
		bigger.vals[j] = d->vals[i];
	}
	free(d->keys);
	free(d->vals);
	*d = bigger;
	return 0;
}

/* An array of words twice as large (256 at first); -1 if memory ran out. */
static int grow_words(uint64_t **words, size_t *cap)
{
	size_t n = *cap ? *cap * 2 : 256;
	uint64_t *p = realloc(*words, n * sizeof(*p));

	if (!p)
		return -1;
	*words = p;
	*cap = n;
	return 0;
}

static int fdict_queue(struct ada_fdict *d, uint64_t addr)
{
	if (d->npending == d->pending_cap && grow_words(&d->pending, &d->pending_cap) < 0)
		return -1;
	d->pending[d->npending++] = addr;
	return 0;
}

static uint32_t fdict_find(struct ada_fdict *d, uint64_t addr)
{
	size_t i;

	for (i = hash_addr(addr) & (d->cap - 1); d->keys[i]; i = (i + 1) & (d->cap - 1))
		if (d->keys[i] == addr)
			return d->vals[i];
	/* Keep the table at most half full so probes stay short. */
	if (2 * (d->used + 1) > d->cap) {
		if (fdict_grow(d) < 0)
			return 0;
		return fdict_find(d, addr);
	}
	if (fdict_queue(d, addr) < 0)
		return 0;
	d->keys[i] = addr;
	d->vals[i] = d->next_fid;
	d->used++;
	return d->next_fid++;
}

uint32_t ada_fdict_lookup(struct ada_fdict *d, uint64_t addr)
{
	uint32_t fid = fdict_find(d, addr);

	if (fid) {
		size_t i = ada_fdict_recent_slot(addr);

		d->recent[i].addr = addr;
		d->recent[i].fid = fid;
	}
	return fid;
}

void ada_enc_stream_free(struct ada_enc_stream *s)
{
	free(s->open);
	memset(s, 0, sizeof(*s));
}

size_t ada_encode_sync(struct ada_enc_stream *s, uint64_t tsc, uint64_t pos, uint8_t *out)
{
	size_t n = 9;
	int i;

	if (tsc < s->last_tsc) /* never let time go backwards in a stream */
		tsc = s->last_tsc;
	out[0] = ADA_RAW_CONTROL | ADA_CTL_SYNC << 2;
	for (i = 0; i < 8; i++)
		out[1 + i] = (uint8_t)(tsc >> (8 * i));
	s->last_tsc = tsc;
	/* The frame's place in the thread's positions: a reader finds a
	 * missing or repeated frame, and a recovery where the file ends. */
	out[n++] = ADA_RAW_CONTROL | ADA_CTL_POS << 2;
	n += ada_put_varint(out + n, pos);
	return n;
}

size_t ada_encode_lost(unsigned reason, uint64_t count, uint8_t *out)
{
	size_t n = 0;

	out[n++] = ADA_RAW_CONTROL | ADA_CTL_LOST << 2;
	n += ada_put_varint(out + n, reason);
	n += ada_put_varint(out + n, count);
	return n;
}

size_t ada_encode_skip(uint64_t n, uint8_t *out)
{
	out[0] = ADA_RAW_CONTROL | ADA_CTL_SKIP << 2;
	return 1 + ada_put_varint(out + 1, n);
}

/* The open stack grown as it fills: encode_slot's and ada_encode_cut's
 * CALLs (encode_run's store into the room its caller made). */
static int push_open(struct ada_enc_stream *s, uint64_t addr)
{
	if (__builtin_expect(s->depth == s->cap, 0) && grow_words(&s->open, &s->cap) < 0)
		return -1;
	s->open[s->depth++] = addr;
	return 0;
}

static uint64_t next_delta(struct ada_enc_stream *s, uint64_t tsc)
{
	uint64_t delta = tsc > s->last_tsc ? tsc - s->last_tsc : 0;

	s->last_tsc += delta;
	return delta;
}

static inline __attribute__((always_inline)) size_t encode_call(uint32_t fid, uint64_t delta,
							    uint8_t *out)
{
	size_t n = 1;

	out[0] = (uint8_t)(ADA_RAW_CALL | (fid < ADA_RAW_INLINE_MAX ? fid : ADA_RAW_INLINE_MAX) << 2);
	n += ada_put_varint(out + n, delta);
	if (fid >= ADA_RAW_INLINE_MAX)
		n += ada_put_varint(out + n, fid);
	return n;
}

static inline __attribute__((always_inline)) size_t encode_close(unsigned kind, uint64_t delta,
							     uint8_t *out)
{
	if (delta < ADA_RAW_INLINE_MAX) {
		out[0] = (uint8_t)(kind | delta << 2);
		return 1;
	}
	out[0] = (uint8_t)(kind | ADA_RAW_INLINE_MAX << 2);
	return 1 + ada_put_varint(out + 1, delta);
}

/* An ALLOC slot (ADA_ALLOC, mcount/alloc.c): its first word is the block's
 * size, not a tick, and it opens or closes no frame. */
static size_t encode_alloc(const struct ada_slot *slot, uint8_t *out)
{
	unsigned what = (unsigned)(slot->word >> ADA_ALLOC_WHAT_SHIFT) & 0x1f;
	size_t n = 1;

	out[0] = ADA_RAW_CONTROL | ADA_CTL_ALLOC << 2;
	n += ada_put_varint(out + n, what);
	n += ada_put_varint(out + n, slot->word & ADA_ALLOC_PTR_MASK);
	if (!(what & ADA_ALLOC_FREED))
		n += ada_put_varint(out + n, slot->tsc);
	return n;
}

/* A part of a counter sample (ADA_COUNTERS, runtime/counters.c): part 0's
 * interrupted address goes through the function dictionary, so that the
 * symbolizer names it as it names a call's function: the symbol that holds
 * it. */
static size_t encode_sample(struct ada_fdict *d, const struct ada_slot *slot, unsigned part,
			    uint8_t *out)
{
	uint64_t v = slot->word & ADA_ALLOC_PTR_MASK;
	size_t n = 1;

	out[0] = ADA_RAW_CONTROL | ADA_CTL_SAMPLE << 2;
	n += ada_put_varint(out + n, part);
	n += ada_put_varint(out + n, slot->tsc);
	if (part == 0 && v) {
		uint32_t fid = ada_fdict_get(d, v);

		if (!fid)
			return (size_t)-1;
		v = fid;
	}
	n += ada_put_varint(out + n, v);
	return n;
}

/* A part of a wait or a release (ADA_BLOCKING, mcount/blocking.c): its
 * tick is its own, written whole as a SAMPLE's, outside the delta chain. */
static size_t encode_block(const struct ada_slot *slot, uint8_t *out)
{
	size_t n = 1;

	out[0] = ADA_RAW_CONTROL | ADA_CTL_BLOCK << 2;
	n += ada_put_varint(out + n, (slot->word >> ADA_BLOCK_OP_SHIFT) & 0xff);
	n += ada_put_varint(out + n, slot->word & ADA_BLOCK_OBJ_MASK);
	n += ada_put_varint(out + n, slot->tsc);
	return n;
}

static inline uint64_t get_word(const uint64_t *w)
{
	return __atomic_load_n(w, __ATOMIC_RELAXED);
}

/* Whether position pos's record is to be written, and the window it is in
 * (or NULL with ADA_DETAIL=all). */
static bool detail_wanted(struct ada_enc_detail *dl, uint64_t pos, struct ada_enc_window **win)
{
	*win = NULL;
	if (dl->skip)
		return false;
	if (pos < dl->from)
		return false;
	if (!dl->head)
		return true;
	while (dl->wcur < dl->nwin && dl->win[dl->wcur].hi < pos)
		dl->wcur++;
	if (dl->wcur == dl->nwin || dl->win[dl->wcur].lo > pos)
		return false;
	*win = &dl->win[dl->wcur];
	return true;
}

/* DETAIL and FREGS for position pos from its record; 0 bytes if the record is gone. In
 * window mode the thread may be writing over it as we copy: once copied,
 * the record was intact if the thread had not reached position pos +
 * records (the slot it writes a record for is its head, published after the
 * record; x86-64 keeps stores in order, and the relaxed loads here are
 * ordered before the head's load by the fence). */
static size_t encode_detail(struct ada_enc_detail *dl, uint64_t pos, uint8_t *out)
{
	const uint64_t *w = (const uint64_t *)(dl->ring + (pos & dl->mask) * dl->rec_bytes);
	uint64_t v, stack = get_word(&w[ADA_DREC_STACK_SIZE]);
	uint16_t stack16 = (uint16_t)stack;
	uint8_t *p = out + 1;
	unsigned i;

	if (stack > ADA_STACK_MAX || stack % 8 || ADA_DREC_STACK * 8 + stack > dl->rec_bytes)
		return 0; /* being written over */
	out[0] = ADA_RAW_CONTROL | ADA_CTL_DETAIL << 2;
	for (i = 0; i < ADA_DREC_STACK_SIZE; i++, p += 8) {
		v = get_word(&w[i]);
		memcpy(p, &v, 8);
	}
	memcpy(p, &stack16, 2);
	p += 2;
	for (i = 0; i < stack / 8; i++, p += 8) {
		v = get_word(&w[ADA_DREC_STACK + i]);
		memcpy(p, &v, 8);
	}
	*p++ = ADA_RAW_CONTROL | ADA_CTL_FREGS << 2;
	for (i = 0; i < ADA_RAW_FREGS_SIZE / 8; i++, p += 8) {
		v = get_word(&w[ADA_DREC_FREGS + i]);
		memcpy(p, &v, 8);
	}
	if (dl->head) {
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(dl->head, __ATOMIC_RELAXED) >= pos + dl->mask + 1)
			return 0;
	}
	return (size_t)(p - out);
}

/* The DETAIL of a flagged slot at pos, if it is to be written. */
static size_t put_detail(struct ada_enc_detail *dl, uint64_t pos, uint64_t tsc, uint8_t *out)
{
	struct ada_enc_window *win;
	size_t n;

	if (!detail_wanted(dl, pos, &win)) {
		dl->skipped += dl->skip;
		return 0;
	}
	n = encode_detail(dl, pos, out);
	if (!n)
		dl->lost++;
	if (win) {
		win->kept += n != 0;
		win->lost += n == 0;
		if (!win->started)
			win->first_tsc = tsc;
		win->started = true;
		win->last_tsc = tsc;
	}
	return n;
}

/* One slot of any kind, the stream's state in s: what the loop below leaves
 * out of its common case. Returns bytes written, or (size_t)-1 if memory
 * ran out. */
static __attribute__((noinline)) size_t encode_slot(struct ada_enc_stream *s, struct ada_fdict *d,
						    const struct ada_slot *slot, uint8_t *p,
						    struct ada_enc_detail *dl, bool records, uint64_t pos)
{
	uint64_t addr = ADA_SLOT_ADDR(slot->word);
	unsigned kind = ADA_SLOT_KIND(slot->word);
	bool detail = (slot->word & ADA_SLOT_DETAIL) && records;
	uint64_t delta;
	size_t m;

	if (kind == ADA_SLOT_ALLOC_KIND) {
		unsigned what = (unsigned)(slot->word >> ADA_ALLOC_WHAT_SHIFT) & 0x1f;
		int part = ada_sample_part(what);

		return what == ADA_BLOCK_WHAT ? encode_block(slot, p) :
		       part < 0 ? encode_alloc(slot, p) : encode_sample(d, slot, (unsigned)part, p);
	}
	/* The producer keeps the stream balanced; a close with nothing
	 * open would be a runtime bug, and is dropped, not written (and
	 * takes no part in the timestamp deltas). */
	if (kind != ADA_RAW_CALL && !s->depth) {
		s->mismatches++;
		s->dropped++;
		return 0;
	}
	delta = next_delta(s, slot->tsc);
	if (kind == ADA_RAW_CALL) {
		uint32_t fid = ada_fdict_get(d, addr);

		if (!fid || push_open(s, addr) < 0)
			return (size_t)-1;
		m = encode_call(fid, delta, p);
	} else {
		if (s->open[s->depth - 1] != addr)
			s->mismatches++;
		s->depth--;
		m = encode_close(kind, delta, p);
	}
	if (detail)
		m += put_detail(dl, pos, slot->tsc, p + m);
	return m;
}

/* Encodes slots from *slot while each is the common case, at most n of
 * them: a CALL whose address is in the dictionary's cache, a RETURN or
 * EXCEPTION closing a frame, no record to write. The caller leaves room on
 * the open stack for n CALLs, so none is checked for. Stops at the first
 * other slot (left to encode_slot) and returns the output's end; the
 * stream's state stays in registers meanwhile (a byte stored through p may
 * alias *s for the compiler: kept there, it would be loaded and stored
 * again for every event). records: a constant (the function is inlined
 * twice), so the mask that keeps the detail flag out of the choice is one. */
static inline __attribute__((always_inline)) uint8_t *
encode_run(struct ada_enc_stream *s, const struct ada_fdict *d, const struct ada_slot **slot,
	   size_t n, uint8_t *p, bool records)
{
	const uint64_t select = records ? 7ull << 61 : 6ull << 61;
	const struct ada_slot *sl = *slot, *end = sl + n;
	uint64_t last = s->last_tsc, *open = s->open;
	size_t depth = s->depth;

	for (; sl < end; sl++) {
		uint64_t word = sl->word, tsc = sl->tsc;
		uint64_t addr = ADA_SLOT_ADDR(word), delta = tsc > last ? tsc - last : 0;

		if (!(word & select)) { /* a CALL */
			size_t c = ada_fdict_recent_slot(addr);
			uint32_t fid = d->recent[c].fid;

			if (__builtin_expect(d->recent[c].addr != addr, 0))
				break;
			open[depth++] = addr;
			last += delta;
			if (__builtin_expect(fid < ADA_RAW_INLINE_MAX && delta < 0x80, 1)) {
				p[0] = (uint8_t)(ADA_RAW_CALL | fid << 2);
				p[1] = (uint8_t)delta;
				p += 2;
			} else {
				p += encode_call(fid, delta, p);
			}
			continue;
		}
		unsigned kind = ADA_SLOT_KIND(word);

		if (__builtin_expect((records && (word & ADA_SLOT_DETAIL)) || kind == ADA_SLOT_ALLOC_KIND ||
				     !depth, 0))
			break;
		if (__builtin_expect(open[--depth] != addr, 0))
			s->mismatches++;
		last += delta;
		p += encode_close(kind, delta, p);
	}
	s->last_tsc = last;
	s->depth = depth;
	*slot = sl;
	return p;
}

size_t ada_encode_slots(struct ada_enc_stream *s, struct ada_fdict *d,
			const struct ada_slot *slots, size_t n, uint8_t *out,
			struct ada_enc_detail *dl)
{
	uint8_t *p = out;
	/* Window mode with no window among these slots (the common case):
	 * no flagged slot's record is written, nor counted. */
	bool records = dl && dl->ring && !(dl->head && !dl->skip && dl->nwin == 0);
	const struct ada_slot *slot = slots, *end = slots + n;

	while (slot < end) {
		size_t room = s->cap - s->depth, left = (size_t)(end - slot);
		const struct ada_slot *stop = slot + (left < room ? left : room);

		if (slot < stop) {
			p = records ? encode_run(s, d, &slot, (size_t)(stop - slot), p, true) :
				      encode_run(s, d, &slot, (size_t)(stop - slot), p, false);
			if (slot == stop) /* the end, or the room on the open stack */
				continue;
		}
		size_t m = encode_slot(s, d, slot, p, dl, records, dl ? dl->pos + (uint64_t)(slot - slots) : 0);

		if (m == (size_t)-1)
			return m;
		p += m;
		slot++;
	}
	return (size_t)(p - out);
}

size_t ada_encode_cut(struct ada_enc_stream *s, struct ada_fdict *d, uint64_t skip,
		      const uint64_t *calls, size_t k, uint64_t tsc, uint8_t *out)
{
	uint8_t *p = out;

	for (; s->depth; s->depth--)
		p += encode_close(ADA_RAW_EXCEPTION, 0, p);
	if (skip)
		p += ada_encode_skip(skip, p);
	while (k--) {
		uint32_t fid = ada_fdict_get(d, calls[k]);

		if (!fid || push_open(s, calls[k]) < 0)
			return (size_t)-1;
		p += encode_call(fid, next_delta(s, tsc), p);
	}
	return (size_t)(p - out);
}

void ada_cut_scan(struct ada_cut_scan *cs, const struct ada_slot *slots, size_t n,
		  uint64_t *calls, size_t max)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t word = slots[i].word;

		if (ADA_SLOT_KIND(word) == ADA_SLOT_ALLOC_KIND)
			continue; /* inside a frame: opens and closes none */
		if (ADA_SLOT_KIND(word) == ADA_RAW_CALL)
			cs->depth++;
		else if (cs->depth)
			cs->depth--;
		else if (cs->k++ < max)
			calls[cs->k - 1] = ADA_SLOT_ADDR(word);
	}
}
