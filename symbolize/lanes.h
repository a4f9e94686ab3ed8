/* lanes.h - what the views gather of a process's ALLOC events across its
 * threads, to be read in time order once every thread was walked: `leaks`
 * (the blocks left at the end), the exports' live-bytes counter track.
 *
 * Threads free each other's blocks, so a block is matched by address in
 * time order over all of them. A block freed counts from its free's CALL
 * (the ALLOC event's own time: before it really was), one allocated from
 * the thread's next event after it (its call's RETURN: after it really
 * was): an address freed by one thread and handed to another by malloc is
 * never read the other way round. 32 bytes an event.
 */
#ifndef ADA_LANES_H
#define ADA_LANES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "walk.h"

struct lane_block {
	uint64_t ns, ptr, size; /* size: asked for; of a block freed, 0 until lane_blocks_sizes */
	uint32_t tag;           /* the view's (leaks: the call path's node) */
	uint8_t freed;
};

struct lane_blocks {
	struct lane_block *ev;
	size_t n, cap;
	size_t pending; /* an allocation waiting for its time: its index + 1 */
};

/* Adds a WALK_ALLOC event: 0 or -ENOMEM. */
int lane_blocks_add(struct lane_blocks *b, const struct walk_event *ev, uint32_t tag);

/* Every event of the thread after a WALK_ALLOC goes through here: the
 * first one gives a block allocated its time. */
static inline void lane_blocks_settle(struct lane_blocks *b, const struct walk_event *ev)
{
	if (__builtin_expect(b->pending != 0, 0)) {
		b->ev[b->pending - 1].ns = ev->type == WALK_EXIT ? ev->end_ns : ev->start_ns;
		b->pending = 0;
	}
}

/* A thread's end: an allocation still waiting keeps its own time. */
static inline void lane_blocks_thread_end(struct lane_blocks *b)
{
	b->pending = 0;
}

/* Sorts by address, then time (at one time a block freed first). */
void lane_blocks_by_ptr(struct lane_blocks *b);

/* Whether event i (sorted by lane_blocks_by_ptr) frees a block the trace
 * did not see allocated. */
bool lane_blocks_unseen_free(const struct lane_blocks *b, size_t i);

/* The process's live bytes over time: sorts by address to give each free
 * the size of the block it freed (0 for one never seen allocated), then by
 * time. Afterwards, summing +size for an allocation and -size for a free
 * in array order gives the bytes allocated and not yet freed. */
void lane_blocks_live(struct lane_blocks *b);

void lane_blocks_reset(struct lane_blocks *b);
void lane_blocks_free(struct lane_blocks *b);

/* ---- waits and their wakers (ADA_BLOCKING) ----------------------------------------
 *
 * A wait that took an object (a mutex lock; a condition wait, which takes
 * its mutex again at its end; a semaphore wait) is linked to the last
 * release of that object by another thread at or before the wait's end:
 * a mutex unlock, a condition wait's start (which releases its mutex), a
 * semaphore post. Only if that release came after the wait began: the
 * object was held when the waiter came, and that release let it go on (a
 * release's time is taken before it released, a wait's end after it
 * took the object, so the real waker is never after the wait's end). */
struct lane_wait {
	uint64_t start, end;   /* a release's time in both */
	uint64_t obj;
	uint64_t tag;          /* the view's: the thread (its tid, its track) */
	uint32_t aux;          /* the view's own, 0 until it sets it (waits: the
				* function that called) */
	uint8_t op;            /* enum ada_block_op */
};

struct lane_waits {
	struct lane_wait *ev;
	size_t n, cap;
};

/* Adds a WALK_BLOCK event of thread tag: 0 or -ENOMEM. */
int lane_waits_add(struct lane_waits *w, const struct walk_event *ev, uint64_t tag);
/* Calls link(ctx, waiter, waker) for each wait linked to its waker, in no
 * particular order; 0 or -ENOMEM (or link's error). */
int lane_waits_link(struct lane_waits *w,
		    int (*link)(void *ctx, const struct lane_wait *waiter, const struct lane_wait *waker),
		    void *ctx);
/* The index in w->ev of an event link was given (for a view's own
 * figures of it, kept in an array parallel to w->ev). */
static inline size_t lane_waits_index(const struct lane_waits *w, const struct lane_wait *x)
{
	return (size_t)(x - w->ev);
}
void lane_waits_free(struct lane_waits *w);

#endif
