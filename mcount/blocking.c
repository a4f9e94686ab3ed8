/* blocking.c - ADA_BLOCKING=1: the waits of blocking calls, and the
 * releases that end a mutex's, seen from the PLT/GOT hooks (dynhook.c) as
 * BLOCK slots in the calling thread's index ring (runtime/raw_format.h).
 *
 * With ADA_BLOCKING the cells of pthread_mutex_lock, pthread_cond_wait,
 * pthread_cond_timedwait, sem_wait, read, poll and epoll_wait (the waits)
 * and of pthread_mutex_unlock and sem_post (the releases) jump to a
 * wrapper here, as ADA_ALLOC's do to mcount/alloc.c (wrap.h). A wait's
 * wrapper reads the tick before and after the function and then writes two
 * slots, {before, BEGIN | op, object} and {after, op, object}: the time
 * blocked, and the object (the mutex, for a condition wait the mutex it
 * releases at its start and takes again at its end; the semaphore; the
 * descriptor). A release's wrapper writes one slot, {tick, op, object},
 * before the function releases anything, so its tick is before any waiter
 * could take the object: the views link a wait that took an object to the
 * last release of that object by another thread while it waited (its
 * waker, docs/internals.md, "Blocking").
 *
 * Off (the default), no cell jumps here: nothing of this runs.
 */
#include <string.h>

#include "wrap.h"

/* Every function wrapped: its name, its op, the argument that is its
 * object (a, b: the first two), whether it releases (else it waits). */
#define BLOCK_FUNCS(X)                                                         \
	X(pthread_mutex_lock, ADA_BLOCK_MUTEX_LOCK, a, 0)                      \
	X(pthread_mutex_unlock, ADA_BLOCK_MUTEX_UNLOCK, a, 1)                  \
	X(pthread_cond_wait, ADA_BLOCK_COND_WAIT, b, 0)                        \
	X(pthread_cond_timedwait, ADA_BLOCK_COND_TIMEDWAIT, b, 0)              \
	X(sem_wait, ADA_BLOCK_SEM_WAIT, a, 0)                                  \
	X(sem_post, ADA_BLOCK_SEM_POST, a, 1)                                  \
	X(read, ADA_BLOCK_READ, a, 0)                                          \
	X(poll, ADA_BLOCK_POLL, 0, 0)                                          \
	X(epoll_wait, ADA_BLOCK_EPOLL_WAIT, a, 0)

enum {
#define ID(sym, op, obj, rel) ID_##sym,
	BLOCK_FUNCS(ID)
#undef ID
	NFUNCS
};

/* Set by the hooking pass (under its lock) before any slot leads to the
 * wrapper, never changed after. */
static uintptr_t real[NFUNCS];

static inline uint64_t word_of(unsigned op, uintptr_t obj)
{
	return ((uint64_t)obj & ADA_BLOCK_OBJ_MASK) | (uint64_t)op << ADA_BLOCK_OP_SHIFT |
	       (uint64_t)ADA_BLOCK_WHAT << ADA_ALLOC_WHAT_SHIFT | ADA_SLOT_ALLOC_KIND << 62;
}

static inline __attribute__((always_inline)) void note(uintptr_t fn, uintptr_t *slot, unsigned n,
						      uint64_t t0, uint64_t w0, uint64_t t1,
						      uint64_t w1)
{
	uint32_t depth;
	struct ada_thread *td = ada_wrap_enter(fn, slot, &depth);

	if (!td)
		return;
	if (ada_wrap_room(td, n, depth)) {
		ada_ring_put(td, t0, w0);
		if (n == 2)
			ada_ring_put(td, t1, w1);
	}
	ada_wrap_leave();
}

/* Every wrapped function takes at most four integer arguments; passing
 * four to one that reads fewer is harmless in the calling conventions of
 * the architectures with dynamic hooks. */
typedef uintptr_t (*fn4)(uintptr_t, uintptr_t, uintptr_t, uintptr_t);

#define WRAP(sym, op, obj, rel)                                                              \
	static __attribute__((noinline)) uintptr_t w_##sym(uintptr_t a, uintptr_t b, uintptr_t c, \
							    uintptr_t d)                     \
	{                                                                                    \
		uint64_t t0 = ada_arch_ticks();                                              \
		uintptr_t r;                                                                 \
		(void)a, (void)b;                                                            \
		if (rel)                                                                     \
			note(real[ID_##sym], ADA_WRAP_SLOT(), 1, t0, word_of(op, obj), 0, 0); \
		r = ((fn4)real[ID_##sym])(a, b, c, d);                                       \
		if (!rel)                                                                    \
			note(real[ID_##sym], ADA_WRAP_SLOT(), 2, t0,                         \
			     word_of(op | ADA_BLOCK_BEGIN, obj), ada_arch_ticks(),           \
			     word_of(op, obj));                                              \
		return r;                                                                    \
	}
BLOCK_FUNCS(WRAP)
#undef WRAP

static const struct {
	const char *name;
	uintptr_t wrapper;
} funcs[NFUNCS] = {
#define ENTRY(sym, op, obj, rel) [ID_##sym] = { #sym, (uintptr_t)w_##sym },
	BLOCK_FUNCS(ENTRY)
#undef ENTRY
};

uintptr_t ada_blocking_jump(const char *name, uintptr_t fn)
{
	if (!ada_rt.cfg.blocking)
		return fn;
	for (size_t i = 0; i < NFUNCS; i++) {
		if (strcmp(name, funcs[i].name))
			continue;
		if (!real[i])
			real[i] = fn;
		/* A second definition (another link-map namespace's C library):
		 * its calls are recorded, not their waits. */
		return real[i] == fn ? funcs[i].wrapper : fn;
	}
	return fn;
}
