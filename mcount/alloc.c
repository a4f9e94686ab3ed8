/* alloc.c - ADA_ALLOC=1: the malloc family's blocks, seen from the PLT/GOT
 * hooks (dynhook.c), as ALLOC slots in the calling thread's index ring.
 *
 * A hooked call jumps to its cell's `jump`. With ADA_ALLOC the cells of
 * the malloc family (C's allocators and C++'s operators new and delete)
 * jump to a wrapper here instead of the function: the hook has recorded
 * the CALL and hijacked the return as for any library call, so the wrapper
 * runs as the function would, calls it, and writes one slot per block the
 * call allocated or freed (runtime/raw_format.h, "ALLOC") before it returns
 * through the hijacked slot, which records the RETURN. The block lands
 * inside the frame of the call that made it, so its call path is the
 * trace's own: no backtrace is taken.
 *
 * Written only where the call's CALL was (wrap.h). A call of the family
 * made inside another one (libstdc++'s operator new calls malloc) records
 * nothing: the outer call records the block, once.
 *
 * Off (the default), no cell jumps here: nothing of this runs. On, a call
 * of the family costs the wrapper's frame, a TLS read, a few compares and
 * one slot (docs/internals.md, "Allocations").
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "wrap.h"

enum shape { SIZE, CALLOC, REALLOC, REALLOCARRAY, FREE, POSIX_MEMALIGN, ALIGN_SIZE };

/* Every symbol wrapped: its name, what its slots say, its arguments. */
#define ALLOC_FUNCS(X)                                                         \
	X(malloc, ADA_ALLOC_MALLOC, SIZE)                                      \
	X(calloc, ADA_ALLOC_CALLOC, CALLOC)                                    \
	X(realloc, ADA_ALLOC_REALLOC, REALLOC)                                 \
	X(reallocarray, ADA_ALLOC_REALLOCARRAY, REALLOCARRAY)                  \
	X(free, ADA_ALLOC_FREE, FREE)                                          \
	X(posix_memalign, ADA_ALLOC_POSIX_MEMALIGN, POSIX_MEMALIGN)            \
	X(aligned_alloc, ADA_ALLOC_ALIGNED_ALLOC, ALIGN_SIZE)                  \
	X(memalign, ADA_ALLOC_MEMALIGN, ALIGN_SIZE)                            \
	X(valloc, ADA_ALLOC_VALLOC, SIZE)                                      \
	X(pvalloc, ADA_ALLOC_PVALLOC, SIZE)                                    \
	X(_Znwm, ADA_ALLOC_NEW, SIZE)                                          \
	X(_ZnwmRKSt9nothrow_t, ADA_ALLOC_NEW, SIZE)                            \
	X(_ZnwmSt11align_val_t, ADA_ALLOC_NEW, SIZE)                           \
	X(_ZnwmSt11align_val_tRKSt9nothrow_t, ADA_ALLOC_NEW, SIZE)             \
	X(_Znam, ADA_ALLOC_NEW_ARRAY, SIZE)                                    \
	X(_ZnamRKSt9nothrow_t, ADA_ALLOC_NEW_ARRAY, SIZE)                      \
	X(_ZnamSt11align_val_t, ADA_ALLOC_NEW_ARRAY, SIZE)                     \
	X(_ZnamSt11align_val_tRKSt9nothrow_t, ADA_ALLOC_NEW_ARRAY, SIZE)       \
	X(_ZdlPv, ADA_ALLOC_DELETE, FREE)                                      \
	X(_ZdlPvm, ADA_ALLOC_DELETE, FREE)                                     \
	X(_ZdlPvSt11align_val_t, ADA_ALLOC_DELETE, FREE)                       \
	X(_ZdlPvmSt11align_val_t, ADA_ALLOC_DELETE, FREE)                      \
	X(_ZdlPvRKSt9nothrow_t, ADA_ALLOC_DELETE, FREE)                        \
	X(_ZdaPv, ADA_ALLOC_DELETE_ARRAY, FREE)                                \
	X(_ZdaPvm, ADA_ALLOC_DELETE_ARRAY, FREE)                               \
	X(_ZdaPvSt11align_val_t, ADA_ALLOC_DELETE_ARRAY, FREE)                 \
	X(_ZdaPvmSt11align_val_t, ADA_ALLOC_DELETE_ARRAY, FREE)                \
	X(_ZdaPvRKSt9nothrow_t, ADA_ALLOC_DELETE_ARRAY, FREE)

enum {
#define ID(sym, op, shape) ID_##sym,
	ALLOC_FUNCS(ID)
#undef ID
	NFUNCS
};

/* The function each wrapper calls: set by the hooking pass (under its
 * lock) before any slot leads to the wrapper, never changed after. */
static uintptr_t real[NFUNCS];
/* The same addresses by hash (open addressing, 0: empty), for the look
 * every block takes at the frame around its call: a probe or two. */
#define FAMILY_SLOTS 64
static uintptr_t family[FAMILY_SLOTS];

static size_t family_slot(uintptr_t fn)
{
	return (size_t)((fn >> 4) * 0x9e3779b97f4a7c15ull >> 58);
}

/* Whether the frame at depth (1-based) is a call of the family. */
static bool family_frame(const struct ada_thread *td, uint32_t depth)
{
	uintptr_t fn, f;

	if (depth == 0 || depth > td->shadow_cap)
		return false;
	fn = td->shadow[depth - 1].fn;
	for (size_t i = family_slot(fn);; i = (i + 1) % FAMILY_SLOTS) {
		f = __atomic_load_n(&family[i], __ATOMIC_RELAXED);
		if (f == fn)
			return true;
		if (!f)
			return false;
	}
}

static uint64_t word_of(unsigned what, uintptr_t ptr)
{
	return ((uint64_t)ptr & ADA_ALLOC_PTR_MASK) | (uint64_t)what << ADA_ALLOC_WHAT_SHIFT |
	       ADA_SLOT_ALLOC_KIND << 62;
}

__attribute__((noinline, cold)) bool ada_wrap_room_slow(struct ada_thread *td, unsigned n,
							uint32_t depth)
{
	int saved = errno; /* a wait's futex must not change what the program reads */
	int ok = ada_ring_fit_slow(td, n, depth);

	errno = saved;
	if (!ok)
		ada_count(&td->rh->dropped[ADA_DROP_RING_FULL], n);
	return ok;
}

/* Writes the block slots of the call of fn whose return-address slot is
 * slot: {size0, word0}, and {size1, word1} when n is 2. Inlined in each
 * wrapper: it is most of what a block costs. */
static inline __attribute__((always_inline)) void note(uintptr_t fn, uintptr_t *slot, unsigned n,
						      uint64_t size0, uint64_t word0,
						      uint64_t size1, uint64_t word1)
{
	uint32_t depth;
	struct ada_thread *td = ada_wrap_enter(fn, slot, &depth);

	if (!td)
		return;
	if (!family_frame(td, depth - 1) && ada_wrap_room(td, n, depth)) {
		ada_ring_put(td, size0, word0);
		if (n == 2)
			ada_ring_put(td, size1, word1);
	}
	ada_wrap_leave();
}

#define SLOT ADA_WRAP_SLOT

static inline __attribute__((always_inline)) void note_one(unsigned id, unsigned what,
							   uintptr_t *slot, uint64_t size,
							   uintptr_t ptr)
{
	note(real[id], slot, 1, size, word_of(what, ptr), 0, 0);
}

/* realloc and reallocarray: the old block freed and the new one allocated;
 * realloc(p, 0) that returned NULL freed p (glibc); one that failed
 * otherwise changed nothing. */
static void note_realloc(unsigned id, unsigned op, uintptr_t *slot, uintptr_t old, uint64_t size,
			 uintptr_t ptr)
{
	uint64_t freed = word_of(op | ADA_ALLOC_FREED, old), made = word_of(op, ptr);

	if (old && ptr)
		note(real[id], slot, 2, 0, freed, size, made);
	else if (old && size == 0)
		note(real[id], slot, 1, 0, freed, 0, 0);
	else if (ptr)
		note(real[id], slot, 1, size, made, 0, 0);
}

/* One wrapper per symbol and shape. The pass-through arguments of SIZE and
 * FREE carry C++'s alignment and nothrow_t (or nothing) to the function as
 * they came. */
#define WRAP_SIZE(sym, op)                                                              \
	static __attribute__((noinline)) void *w_##sym(size_t n, uintptr_t b, uintptr_t c) \
	{                                                                               \
		void *p = ((void *(*)(size_t, uintptr_t, uintptr_t))real[ID_##sym])(n, b, c); \
		if (p)                                                                  \
			note_one(ID_##sym, op, SLOT(), n, (uintptr_t)p);               \
		return p;                                                               \
	}
#define WRAP_CALLOC(sym, op)                                                            \
	static __attribute__((noinline)) void *w_##sym(size_t n, size_t m)              \
	{                                                                               \
		void *p = ((void *(*)(size_t, size_t))real[ID_##sym])(n, m);           \
		if (p)                                                                  \
			note_one(ID_##sym, op, SLOT(), (uint64_t)n * m, (uintptr_t)p);  \
		return p;                                                               \
	}
#define WRAP_REALLOC(sym, op)                                                           \
	static __attribute__((noinline)) void *w_##sym(void *old, size_t n)             \
	{                                                                               \
		void *p = ((void *(*)(void *, size_t))real[ID_##sym])(old, n);         \
		note_realloc(ID_##sym, op, SLOT(), (uintptr_t)old, n, (uintptr_t)p);    \
		return p;                                                               \
	}
#define WRAP_REALLOCARRAY(sym, op)                                                      \
	static __attribute__((noinline)) void *w_##sym(void *old, size_t n, size_t m)   \
	{                                                                               \
		void *p = ((void *(*)(void *, size_t, size_t))real[ID_##sym])(old, n, m); \
		note_realloc(ID_##sym, op, SLOT(), (uintptr_t)old, (uint64_t)n * m,     \
			     (uintptr_t)p);                                             \
		return p;                                                               \
	}
#define WRAP_FREE(sym, op)                                                              \
	static __attribute__((noinline)) void w_##sym(void *p, uintptr_t b, uintptr_t c) \
	{                                                                               \
		((void (*)(void *, uintptr_t, uintptr_t))real[ID_##sym])(p, b, c);      \
		if (p)                                                                  \
			note_one(ID_##sym, op | ADA_ALLOC_FREED, SLOT(), 0, (uintptr_t)p); \
	}
#define WRAP_POSIX_MEMALIGN(sym, op)                                                    \
	static __attribute__((noinline)) int w_##sym(void **out, size_t align, size_t n) \
	{                                                                               \
		int r = ((int (*)(void **, size_t, size_t))real[ID_##sym])(out, align, n); \
		if (r == 0)                                                             \
			note_one(ID_##sym, op, SLOT(), n, (uintptr_t)*out);             \
		return r;                                                               \
	}
#define WRAP_ALIGN_SIZE(sym, op)                                                        \
	static __attribute__((noinline)) void *w_##sym(size_t align, size_t n)          \
	{                                                                               \
		void *p = ((void *(*)(size_t, size_t))real[ID_##sym])(align, n);       \
		if (p)                                                                  \
			note_one(ID_##sym, op, SLOT(), n, (uintptr_t)p);               \
		return p;                                                               \
	}
#define WRAP(sym, op, shape) WRAP_##shape(sym, op)
ALLOC_FUNCS(WRAP)
#undef WRAP

static const struct {
	const char *name;
	uintptr_t wrapper;
} funcs[NFUNCS] = {
#define ENTRY(sym, op, shape) [ID_##sym] = { #sym, (uintptr_t)w_##sym },
	ALLOC_FUNCS(ENTRY)
#undef ENTRY
};

uintptr_t ada_alloc_jump(const char *name, uintptr_t fn)
{
	static bool said;

	if (!ada_rt.cfg.alloc)
		return fn;
	for (size_t i = 0; i < NFUNCS; i++) {
		if (strcmp(name, funcs[i].name))
			continue;
		if (!real[i]) {
			size_t k = family_slot(fn);

			real[i] = fn;
			while (family[k] && family[k] != fn) /* NFUNCS < FAMILY_SLOTS: room */
				k = (k + 1) % FAMILY_SLOTS;
			__atomic_store_n(&family[k], fn, __ATOMIC_RELAXED);
		}
		if (real[i] == fn)
			return funcs[i].wrapper;
		/* A second definition: a library in a dlmopen namespace with
		 * its own C library. Its blocks are another heap's. */
		if (!said)
			ada_warn("ADA_ALLOC: %s at %#lx is a second definition (another link-map "
				 "namespace's); its blocks are not recorded, its calls are",
				 name, (unsigned long)fn);
		said = true;
		return fn;
	}
	return fn;
}
