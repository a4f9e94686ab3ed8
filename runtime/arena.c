/* arena.c - the address space of threads' recording states, reserved at
 * start-up.
 *
 * A traced thread needs tens of MiB of address space: its ring (16 MiB by
 * default), its shadow stack, its detail ring. Mapped when the thread
 * starts, they grow the process's address space while the program runs: a
 * program that set RLIMIT_AS to what it uses plus what it means to allocate
 * finds its allocations failing, and a starting thread makes a system call
 * for each mapping. So start-up, still single-threaded, reserves one range
 * for ARENA_KITS threads' worth (private, MAP_NORESERVE: no memory until a
 * page is touched, no commit charge). Pieces are cut from it by an atomic
 * bump, page-aligned; a ring file is mapped over its piece (MAP_FIXED),
 * which leaves the process's address space as it was.
 *
 * A piece given back (a retired thread's state, a ring no longer needed)
 * gets fresh zero pages mapped over it, and goes into a table of free
 * pieces that a later thread takes with one compare-and-swap. A piece keeps
 * the length it was cut with for good, so an entry (offset and length in
 * one word) taken by its value can never be another piece's. Out of room
 * (more threads than kits, a full table), pieces come from mmap as before,
 * and a free piece the table cannot hold stays reserved, unused.
 *
 * With a recorder process (shared.h) the reservation is a shared mapping,
 * larger (ARENA_KITS_SHARED), and its state is in the shared section: the
 * recorder reads the states and rings where the threads write them, and
 * gives pieces back to the free table. A piece given back is emptied with
 * MADV_REMOVE, which keeps it shared; and nothing comes from mmap, which
 * the recorder would not see: a thread that finds the reservation used up
 * waits for the recorder to give back the pieces of threads that ended
 * (ada_arena_wait_room), and goes untraced, said on stderr, only when
 * none come back (as many threads alive as the reservation holds).
 */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "ada_internal.h"

#define ARENA_KITS 8  /* threads' states the reservation holds */
#define ARENA_KITS_SHARED 256 /* with a recorder: no memory until touched */
/* Free pieces kept for the next threads: room for every piece the shared
 * reservation can be cut into (a thread's state is five pieces at most:
 * state, shadow stack, ring, detail ring, orphans), so that none is lost to
 * a full table there, where nothing comes from mmap instead: thread churn
 * (make stress's churn: a thousand short threads) ran it dry at 64, and
 * later threads went untraced. Scanned at a thread's start and end only. */
#define FREE_MAX (ARENA_KITS_SHARED * 6)
#define PAGE 4096ull

struct arena {
	uintptr_t base, end;
	uintptr_t next;            /* the first byte not cut yet (atomic) */
	uint64_t free[FREE_MAX];   /* offset in pages << 32 | length in pages; 0: none */
	uint32_t freed;            /* futex word: bumped at each piece given back */
	bool shared;               /* mapped shared, for a recorder */
};
static ADA_SHARED_VAR(struct arena, A);
#define A (A_area.v)

static size_t page_round(size_t n)
{
	return (n + PAGE - 1) & ~(PAGE - 1);
}

size_t ada_arena_piece(size_t len)
{
	return page_round(len);
}

size_t ada_arena_len(size_t kit_bytes, bool shared)
{
	size_t len = (shared ? ARENA_KITS_SHARED : ARENA_KITS) * kit_bytes;
	struct rlimit rl;

	/* A limit set before start: take an eighth of it at most. */
	if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && len > rl.rlim_cur / 8)
		len = page_round(rl.rlim_cur / 8);
	return len;
}

void ada_arena_adopt(void *base, size_t len)
{
	A.base = A.next = (uintptr_t)base;
	A.end = A.base + len;
	A.shared = true;
}

int ada_arena_start(size_t kit_bytes, bool shared)
{
	size_t len = ada_arena_len(kit_bytes, shared);
	void *p;

	p = len ? mmap(NULL, len, PROT_READ | PROT_WRITE,
		       (shared ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
		: MAP_FAILED;
	if (p == MAP_FAILED)
		return -1; /* every piece from mmap */
	A.base = A.next = (uintptr_t)p;
	A.end = A.base + len;
	A.shared = shared;
	return 0;
}

uintptr_t ada_arena_base(void)
{
	return A.base;
}

bool ada_arena_shared(void)
{
	return A.shared;
}

int ada_arena_rehome(void *const *to, const void *const *from, const size_t *lens, unsigned n)
{
	if (!A.shared)
		return 0;
	/* Fresh pages of the child's own over the whole reservation: what the
	 * parent's threads had there is the parent's. */
	if (mmap((void *)A.base, A.end - A.base, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0) == MAP_FAILED)
		return -1;
	for (unsigned i = 0; i < n; i++)
		if (to[i] && lens[i])
			memcpy(to[i], from[i], lens[i]);
	return 0;
}

static bool arena_holds(const void *p)
{
	return (uintptr_t)p - A.base < A.end - A.base;
}

static void *free_take(size_t len)
{
	uint64_t pages = len / PAGE;

	for (unsigned i = 0; i < FREE_MAX; i++) {
		uint64_t e = __atomic_load_n(&A.free[i], __ATOMIC_ACQUIRE);

		if (e && (e & 0xffffffffu) == pages &&
		    __atomic_compare_exchange_n(&A.free[i], &e, 0, false, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			return (void *)(A.base + (e >> 32) * PAGE);
	}
	return NULL;
}

void *ada_arena_get(size_t len)
{
	uintptr_t cur;
	void *p;

	if (!A.base || !len)
		return NULL;
	len = page_round(len);
	if ((p = free_take(len)))
		return p;
	cur = __atomic_load_n(&A.next, __ATOMIC_RELAXED);
	do
		if (A.end - cur < len)
			return NULL;
	while (!__atomic_compare_exchange_n(&A.next, &cur, cur + len, true, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED));
	return (void *)cur;
}

void ada_unmap(void *p, size_t len)
{
	uint64_t e;

	if (!p)
		return;
	if (!arena_holds(p)) {
		munmap(p, len);
		return;
	}
	len = page_round(len);
	/* Zero pages again, in place of whatever was there (a ring file's
	 * pages, a thread's state): the address space does not change. */
	if (A.shared ? madvise(p, len, MADV_REMOVE) < 0
		     : mmap(p, len, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0) == MAP_FAILED)
		return;
	e = ((uintptr_t)p - A.base) / PAGE << 32 | len / PAGE;
	for (unsigned i = 0; i < FREE_MAX; i++) {
		uint64_t none = 0;

		if (__atomic_compare_exchange_n(&A.free[i], &none, e, false, __ATOMIC_RELEASE,
						__ATOMIC_RELAXED)) {
			__atomic_fetch_add(&A.freed, 1, __ATOMIC_RELEASE);
			if (A.shared)
				ada_futex_wake(&A.freed);
			return;
		}
	}
}

/* A thread starting when the shared reservation is used up: its pieces
 * come back when the recorder retires threads that ended (thread churn
 * outruns it on a busy machine). Waits while the recorder makes passes
 * that give pieces back; false once two passes went by without one (the
 * threads holding them are alive: nothing will come back soon), or the
 * recorder is gone, or events may be dropped (ADA_ON_FULL=drop). */
bool ada_arena_wait_room(void)
{
	uint32_t seen = __atomic_load_n(&A.freed, __ATOMIC_ACQUIRE);
	uint64_t progress = __atomic_load_n(&ada_rt.writer_progress, __ATOMIC_ACQUIRE);

	if (!A.shared || ada_recorder_self() || ada_rt.cfg.on_full_drop)
		return false;
	while (__atomic_load_n(&A.freed, __ATOMIC_ACQUIRE) == seen) {
		if (!__atomic_load_n(&ada_rt.writer_live, __ATOMIC_ACQUIRE) || ada_recorder_gone() ||
		    __atomic_load_n(&ada_rt.writer_progress, __ATOMIC_ACQUIRE) - progress > 2)
			return false;
		ada_writer_kick();
		ada_futex_wait(&A.freed, seen, 1000000);
	}
	return true;
}
