/* wrap.h - what the wrappers behind the dynamic hooks share (alloc.c,
 * blocking.c): a hooked call's cell jumps to a wrapper, which calls the
 * function and writes slots of its own into the thread's index ring,
 * inside the frame the hook recorded.
 *
 * A slot is written only where the call's CALL was: the innermost frame of
 * the thread's shadow stack is the function's, on the wrapper's own
 * return-address slot, and recorded (recording off, ADA_DEPTH, a full ring
 * in drop mode, a signal handler inside a hook: no CALL, no slot). The
 * ring has room for the slots and the RETURN of every open frame, waited
 * for as a CALL waits; where none comes (ADA_ON_FULL=drop, a recorder
 * gone) the slots are counted (ring_full) and not written.
 */
#ifndef ADA_WRAP_H
#define ADA_WRAP_H

#include "hijack.h"

/* The caller's return-address slot, which the hook hijacked: the wrapper
 * is jumped to, so it is the wrapper's own (its frame pointer, which
 * __builtin_frame_address makes it keep, is just below). */
#define ADA_WRAP_SLOT() ((uintptr_t *)__builtin_frame_address(0) + 1)

/* No room for n slots at once: waits for the writer as a CALL does (errno
 * kept: the program reads the function's), or counts them lost. */
ADA_HIDDEN bool ada_wrap_room_slow(struct ada_thread *td, unsigned n, uint32_t depth);

/* The thread, with the guard set and *depth its innermost frame's, when
 * that frame is the recorded call of fn whose return-address slot is slot;
 * else NULL, the guard as it was. ada_wrap_leave after the slots. */
static inline __attribute__((always_inline)) struct ada_thread *
ada_wrap_enter(uintptr_t fn, uintptr_t *slot, uint32_t *depth)
{
	struct ada_thread *td = ada_self.td;
	const struct ada_frame *f;
	uint32_t d;

	if (!td || __atomic_load_n(&ada_self.busy, __ATOMIC_RELAXED))
		return NULL; /* its CALL was not recorded either */
	ada_busy_set((uintptr_t)slot | ADA_BUSY_HOOK);
	d = td->depth;
	if (d == 0 || d > td->record_limit || d > td->shadow_cap)
		goto no;
	f = &td->shadow[d - 1];
	if (f->fn != fn || f->sp != (uintptr_t)slot)
		goto no;
	*depth = d;
	return td;
no:
	ada_busy_set(0);
	return NULL;
}

/* Whether the ring has room for n slots (waiting for it if need be). */
static inline __attribute__((always_inline)) bool ada_wrap_room(struct ada_thread *td, unsigned n,
							       uint32_t depth)
{
	return likely(td->rh->head + depth + n <= __atomic_load_n(&td->limit, __ATOMIC_RELAXED)) ||
	       ada_wrap_room_slow(td, n, depth);
}

static inline __attribute__((always_inline)) void ada_wrap_leave(void)
{
	ada_busy_set(0);
}

#endif
