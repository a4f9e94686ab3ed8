/* snapshot.c - ADA_RECORD=ring: the writer's side of ring mode.
 *
 * In ring mode both lanes roll over: a thread never waits for the writer,
 * and the writer reads nothing while no snapshot is asked for, so the hook
 * is the whole cost. A trigger (ada_snapshot, ada_mark, signal:NAME, a
 * crash: every one of them takes every thread) opens a window on each
 * thread from the oldest event its ring still holds to the trigger's
 * post-roll (ADA_POST); the writer writes it as soon as it sees it, and the
 * post-roll as it comes. When a thread's record ends (the thread exits, the
 * process exits or execs) what its ring holds is written the same way,
 * under the trigger "end".
 *
 * The thread goes on writing while its ring is read: the writer copies the
 * slots first (faster than any thread writes them), then reads the thread's
 * head to see which of them it overwrote meanwhile, and writes only the
 * rest. At most 3/4 of the ring is taken, so the thread has a quarter ring
 * of events to write before a copy is spoilt.
 *
 * A snapshot seldom continues the thread's stream where the last one ended:
 * the positions between are gone. ada_encode_cut ends the frames that were
 * open there, and enters the frames the kept events return from without
 * their calls in the ring, at the first kept event's time. A view then
 * shows those frames as entered before the snapshot, at the depth the ring
 * shows them at; frames entered before that and never left within the ring
 * are not shown.
 */
#include <stdlib.h>
#include <string.h>

#include "window.h"
#include "writer.h"

/* Slots per frame (as writer.c's drains); fewer with detail records. */
#define FRAME_SLOTS 65536
#define FRAME_SLOTS_DETAIL 4096
/* Frames a cut can enter and leave at once (a deeper cut waits). */
#define CUT_MAX 16384
/* Detail records copied between looks at the thread's head. */
#define DETAIL_CHUNK 1024

static struct {
	struct ada_slot *copy;  /* a thread's slots, indexed as in its ring */
	uint8_t *dcopy;         /* its detail records, indexed as in its detail ring */
	size_t copy_bytes, dcopy_bytes;
	uint64_t head;          /* for the encoder's test of the records copied */
	uint64_t calls[CUT_MAX];
} S;

/* A buffer of at least want bytes, its pages touched: the copy must not
 * wait for page faults while the thread runs over what it copies. */
static void *grown(void *p, size_t *have, size_t want)
{
	if (*have >= want)
		return p;
	free(p);
	p = malloc(want);
	*have = p ? want : 0;
	if (p)
		memset(p, 0, want);
	return p;
}

/* The copy buffers, for td's rings: made before any snapshot is asked for. */
static bool buffers_for(const struct ada_thread *td)
{
	/* Acquire: the thread sets its detail ring up at its first record,
	 * its mask and record size stored before it. */
	bool detail = __atomic_load_n(&td->dring, __ATOMIC_ACQUIRE) != NULL;

	S.copy = grown(S.copy, &S.copy_bytes, (td->mask + 1) * sizeof(*S.copy));
	if (detail)
		S.dcopy = grown(S.dcopy, &S.dcopy_bytes, (td->dmask + 1) * td->drec_bytes);
	return S.copy && (!detail || S.dcopy);
}

/* Copies n words the thread may be writing over as they are read: each
 * one whole (relaxed atomic loads; whether it was overwritten is found out
 * from the head afterwards). */
static void copy_words(uint64_t *to, const uint64_t *from, size_t n)
{
	for (size_t i = 0; i < n; i++)
		to[i] = __atomic_load_n(&from[i], __ATOMIC_RELAXED);
}

/* The first position at or after lo that the thread had not written over
 * once what was copied of it was (as far as slots allow a ring of). */
static uint64_t intact_from(const struct ada_thread *td, uint64_t lo, uint64_t slots)
{
	uint64_t head;

	/* The copy's loads before the head's: a slot or record the thread
	 * wrote after it is then seen as written over (the thread publishes
	 * its head after each, and stores in order on x86-64). */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	head = __atomic_load_n(&td->rh->head, __ATOMIC_RELAXED);
	/* The thread may be writing position head now, over head - slots. */
	return head + 1 > slots && head + 1 - slots > lo ? head + 1 - slots : lo;
}

/* Copies the records of td's positions [lo, hi) into S.dcopy, the newest
 * first: a thread running flat out writes records faster than they can be
 * copied, and those nearest the trigger matter most. Returns the first
 * position whose record was copied intact. */
static uint64_t copy_records(const struct ada_thread *td, const uint8_t *dring, uint64_t lo,
			     uint64_t hi)
{
	uint64_t recs = td->dmask + 1, p = hi;

	while (p > lo) {
		uint64_t n = p - lo < DETAIL_CHUNK ? p - lo : DETAIL_CHUNK, from = p - n;
		uint64_t first = from & td->dmask, part = n < recs - first ? n : recs - first;

		copy_words((uint64_t *)(S.dcopy + first * td->drec_bytes),
			   (const uint64_t *)(dring + first * td->drec_bytes), part * td->drec_bytes / 8);
		copy_words((uint64_t *)S.dcopy, (const uint64_t *)dring, (n - part) * td->drec_bytes / 8);
		if (intact_from(td, from, recs) > from)
			return intact_from(td, from, recs); /* the older ones are gone */
		p = from;
	}
	return lo;
}

/* Copies td's positions [lo, hi) into S.copy, and their records from dlo
 * into S.dcopy (first: they go faster); returns the first position the
 * thread had not written over, S.head set so that the encoder finds the
 * records below *dlo lost. */
static uint64_t copy_ring(const struct ada_thread *td, const uint8_t *dring, uint64_t lo,
			  uint64_t dlo, uint64_t hi)
{
	uint64_t slots = td->mask + 1, first = lo & td->mask, n = hi - lo;
	uint64_t part = n < slots - first ? n : slots - first, dvalid = dlo;

	if (dring && dlo < hi)
		dvalid = copy_records(td, dring, dlo, hi);
	/* encode.c's test: a record is gone if head >= pos + records. */
	S.head = dvalid + td->dmask;
	copy_words((uint64_t *)(S.copy + first), (const uint64_t *)(td->ring + first), part * 2);
	copy_words((uint64_t *)S.copy, (const uint64_t *)td->ring, (n - part) * 2);
	return intact_from(td, lo, slots);
}

/* Holds td from writing over what a snapshot ending at end needs (the 3/4
 * ring before end): it may go on a quarter ring past end, then waits for
 * the writer as for a full ring (ring.c), so that every thread's snapshot
 * is written whole however long the writer takes over the others'. */
void ada_ring_hold(struct ada_thread *td, uint64_t end)
{
	uint64_t limit = end + (td->mask + 1) / 4;

	if (limit < __atomic_load_n(&td->limit, __ATOMIC_RELAXED))
		__atomic_store_n(&td->limit, limit, __ATOMIC_RELEASE);
}

/* No snapshot needs td's ring any more: it rolls over freely again. */
static void ring_free(struct ada_thread *td)
{
	if (__atomic_load_n(&td->limit, __ATOMIC_RELAXED) == UINT64_MAX)
		return;
	__atomic_store_n(&td->limit, UINT64_MAX, __ATOMIC_RELEASE);
	__atomic_fetch_add(&td->rh->wake, 1, __ATOMIC_RELEASE);
	ada_futex_wake(&td->rh->wake);
}

/* A window from the oldest event held to the post-roll after pos (a
 * trigger's, or the end's), made or merged into td's. */
void ada_snapshot_open(struct ada_thread *td, unsigned trigger, uint64_t pos, uint64_t tsc,
		       const char *label)
{
	struct ada_windows *w = ada_windows_of(td);

	if (!w)
		return;
	ada_window_open(td, w, td->rh->tail, trigger, pos, tsc, label);
	/* Until its end is known (a time post-roll), where the thread is. */
	for (size_t i = 0; i < w->n; i++)
		ada_ring_hold(td, w->win[i].hi != UINT64_MAX ? w->win[i].hi + 1
					: __atomic_load_n(&td->rh->head, __ATOMIC_ACQUIRE));
}

/* Where a cut at lo (> tail) leaves room for its closes and calls: lo
 * itself, or a later position; *k the calls. hi if there is none. */
static uint64_t cut_at(uint64_t mask, uint64_t tail, uint64_t lo, uint64_t hi, size_t open,
		       size_t *k)
{
	for (unsigned tries = 0; tries < 8 && lo < hi; tries++) {
		struct ada_cut_scan cs = { 0, 0 };
		uint64_t first = lo & mask, n = hi - lo, part = n < mask + 1 - first ? n : mask + 1 - first;

		ada_cut_scan(&cs, S.copy + first, part, S.calls, CUT_MAX);
		ada_cut_scan(&cs, S.copy, n - part, S.calls, CUT_MAX);
		*k = cs.k;
		if (*k <= CUT_MAX && lo - tail >= open + *k)
			return lo;
		lo = tail + open + (*k <= CUT_MAX ? *k : CUT_MAX);
	}
	*k = 0;
	return hi;
}

/* Writes td's positions [tail, hi): what the ring still holds of them,
 * after a cut over the rest. The snapshot is the 3/4 ring before end (its
 * post-roll's end, hi or later): the same events however late the writer
 * comes, as long as the ring holds them. Returns the positions consumed (0
 * if nothing could be written yet). */
static uint64_t write_range(struct ada_thread *td, uint64_t tail, uint64_t hi, uint64_t end)
{
	uint64_t slots = td->mask + 1, lo = end - tail > slots / 4 * 3 ? end - slots / 4 * 3 : tail;

	if (lo > hi) /* a post-roll longer than the ring: what it holds at hi */
		lo = hi - tail > slots / 4 * 3 ? hi - slots / 4 * 3 : tail;
	uint8_t *dring = __atomic_load_n(&td->dring, __ATOMIC_ACQUIRE);
	uint64_t per_frame = dring ? FRAME_SLOTS_DETAIL : FRAME_SLOTS, drecs = td->dmask + 1;
	struct ada_writer_stream *ws;
	struct ada_writer_cut cut = { .calls = S.calls, .dhead = &S.head };
	size_t open;

	if (!buffers_for(td))
		return 0;
	/* The detail ring holds the newest records: those older than 3/4 of
	 * it are not looked for (nor counted as lost). */
	cut.detail_from = dring && hi > drecs / 4 * 3 ? hi - drecs / 4 * 3 : 0;
	if (cut.detail_from < lo)
		cut.detail_from = lo;
	cut.dring = dring ? S.dcopy : NULL;
	/* First the copy: the thread runs on meanwhile. */
	lo = copy_ring(td, dring, lo, cut.detail_from, hi);
	ws = ada_writer_stream_of(td);
	if (!ws)
		return 0;
	open = ws->enc.depth;
	if (lo > tail) {
		if (hi - tail < open)
			return 0; /* fewer positions than frames to close: later */
		lo = cut_at(td->mask, tail, lo, hi, open, &cut.k);
		cut.skip = lo - tail - open - cut.k;
		cut.tsc = lo < hi ? S.copy[lo & td->mask].tsc : ws->enc.last_tsc;
	}
	/* The windows start where their events do. Their events from the
	 * trigger on that are gone (the writer came too late: the thread
	 * wrote a ring's worth since) count as lost with their records. */
	for (size_t i = 0; lo > tail && td->windows && i < td->windows->n; i++) {
		struct ada_enc_window *win = &td->windows->win[i];
		struct ada_window_info *info = &td->windows->info[i];
		uint64_t from = win->lo > info->trigger_pos ? win->lo : info->trigger_pos;

		if (win->lo < tail)
			continue; /* its start is written */
		if (win->lo >= lo)
			break;
		if (from < lo)
			info->cut_lost += (win->hi < lo ? win->hi + 1 : lo) - from;
		win->lo = win->hi < lo ? win->hi : lo;
	}
	cut.lo = lo;
	for (uint64_t pos = tail; pos < hi;) {
		uint64_t n = hi - cut.lo < per_frame ? hi - cut.lo : per_frame;

		ada_writer_frame(td, S.copy, pos, (size_t)(cut.lo - pos + n), &cut);
		pos = cut.lo + n;
		cut.lo = pos; /* no cut in the frames after the first */
	}
	return hi - tail;
}

size_t ada_ring_drain(struct ada_thread *td, const char *end)
{
	uint64_t head = __atomic_load_n(&td->rh->head, __ATOMIC_ACQUIRE), tail, hi, n, safe, last;
	struct ada_windows *w = td->windows;
	size_t total = 0;

	if (td->cutting && head > td->cut)
		head = td->cut;
	/* Time post-rolls end at the first event after them (searched where
	 * the thread is not about to write). */
	safe = head > (td->mask + 1) / 2 ? head - (td->mask + 1) / 2 : 0;
	if (w)
		ada_window_resolve(td, w, td->rh->tail > safe ? td->rh->tail : safe, head);
	/* The snapshots in order, each up to its post-roll's end as far as
	 * the thread got; at the end, then the rest under "end". */
	for (;;) {
		tail = td->rh->tail;
		if (!w || !w->n) {
			if (!end || head <= tail) {
				ring_free(td);
				return total ? total : (buffers_for(td), 0);
			}
			ada_snapshot_open(td, ADA_TRIG_END, head - 1,
					  ada_slot_tsc(td, head - 1), end);
			if (!(w = td->windows) || !w->n)
				return total;
			w->win[0].hi = head - 1; /* no post-roll: the record ends */
		}
		bool known = w->win[0].hi != UINT64_MAX;

		hi = known && w->win[0].hi < head ? w->win[0].hi + 1 : head;
		last = known && !end && w->win[0].hi + 1 > hi ? w->win[0].hi + 1 : hi;
		if (hi <= tail)
			return total;
		n = write_range(td, tail, hi, last);
		ada_window_close(td, w, tail + n, false);
		/* Release: as writer.c's drains (a recovery reads from tail). */
		__atomic_store_n(&td->rh->tail, tail + n, __ATOMIC_RELEASE);
		total += n;
		if (!w->n)
			ring_free(td);
		if (!n || !end || hi == head)
			return total;
	}
}
