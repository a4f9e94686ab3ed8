/* window.h - detail windows (ADA_DETAIL=window): which positions of a
 * thread's events are written with their detail records.
 *
 * The detail lane is captured into each thread's rolling ring always; the
 * writer writes records only for positions inside a window around a
 * trigger. A window's pre-roll is in the past when the trigger is seen, so
 * the writer holds the last pre-roll's worth of each thread's events back
 * in the index ring (ada_window_hold): they are encoded once they are
 * older than that, and then with their records if a window took them in.
 * The writer's work only: the hot path does not know windows exist.
 */
#ifndef ADA_WINDOW_H
#define ADA_WINDOW_H

#include "ada_internal.h"
#include "encode.h"

struct ada_window_info {
	uint64_t post_tsc;     /* a time post-roll: hi stays open until an event after it */
	uint64_t trigger_pos;
	uint64_t cut_lost;     /* pre-roll positions already written when it opened */
	uint32_t trigger, triggers;
	uint32_t label_len;
	char label[ADA_MARK_LABEL];
};

/* A call of a func:GLOB>DURATION function, open when the writer looked. */
struct ada_open_call {
	uint32_t depth;
	uint64_t pos, tsc;
	const struct ada_trigger_func *trig;
};
#define ADA_WINDOW_CALLS 64 /* nested ones deeper than this are not timed */

/* A thread's windows, in position order, not overlapping; win[] is what the
 * encoder reads (encode.h). */
struct ada_windows {
	struct ada_enc_window *win;
	struct ada_window_info *info;
	size_t n, cap;
	uint64_t scan;         /* the next position to look at for function triggers */
	uint32_t depth;        /* the scan's call depth */
	uint32_t ncalls;
	struct ada_open_call calls[ADA_WINDOW_CALLS];
};

/* Whether windows are in use: ADA_DETAIL=window and the thread has a detail ring. */
ADA_HIDDEN bool ada_window_mode(const struct ada_thread *td);
/* A trigger at position pos (time tsc) on td: a window from pre-roll before
 * it to post-roll after it, merged with any it overlaps. tail: the first
 * position not yet written. */
ADA_HIDDEN void ada_window_open(struct ada_thread *td, struct ada_windows *w, uint64_t tail,
				unsigned trigger, uint64_t pos, uint64_t tsc, const char *label);
/* The first of td's unwritten positions in [lo, hi) whose event is after
 * tsc (hi if none): a binary search (a thread's times never decrease). */
ADA_HIDDEN uint64_t ada_window_first_after(const struct ada_thread *td, uint64_t lo, uint64_t hi,
					   uint64_t tsc);
/* The time of td's event at pos. */
ADA_HIDDEN uint64_t ada_slot_tsc(const struct ada_thread *td, uint64_t pos);
/* Looks at td's slots [w->scan, head) for function triggers. */
ADA_HIDDEN void ada_window_scan(struct ada_thread *td, struct ada_windows *w, uint64_t head);
/* Where the writer may encode up to now: head less the pre-roll. */
ADA_HIDDEN uint64_t ada_window_hold(const struct ada_thread *td, const struct ada_windows *w,
				    uint64_t tail, uint64_t head);
/* ADA_RECORD=ring (snapshot.c): a snapshot of td at its position pos (time
 * tsc): a window from the oldest event its ring holds to the post-roll. */
ADA_HIDDEN void ada_snapshot_open(struct ada_thread *td, unsigned trigger, uint64_t pos,
				  uint64_t tsc, const char *label);
/* Ring mode: td may not write past a quarter ring after end until the
 * snapshots that need its ring are written (snapshot.c). */
ADA_HIDDEN void ada_ring_hold(struct ada_thread *td, uint64_t end);
/* Whether a window covers any of [lo, hi). */
ADA_HIDDEN bool ada_window_overlaps(const struct ada_windows *w, uint64_t lo, uint64_t hi);
/* Windows with a time post-roll get their end once an event after it is in [tail, head). */
ADA_HIDDEN void ada_window_resolve(const struct ada_thread *td, struct ada_windows *w,
				   uint64_t tail, uint64_t head);
/* Writes the WINDOW record of every window that ended below tail, or of
 * every window (cut at tail) when the thread's record ends. */
ADA_HIDDEN void ada_window_close(const struct ada_thread *td, struct ada_windows *w,
				 uint64_t tail, bool all);
/* td's windows, made at first use; NULL if memory ran out. */
ADA_HIDDEN struct ada_windows *ada_windows_of(struct ada_thread *td);
/* Frees td's windows (its record has ended). */
ADA_HIDDEN void ada_windows_free(struct ada_thread *td);

#endif
