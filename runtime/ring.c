/* ring.c - a thread's index ring when it is full.
 *
 * Where rings come from is pool.c. Full: the thread waits for the recorder
 * (ADA_ON_FULL=wait, the default) rather than dropping, so the index lane
 * loses nothing on a busy machine. It wakes the recorder early, when its
 * ring passes half full, so that waits stay rare. ADA_ON_FULL=drop keeps
 * the old behaviour: the call's subtree is skipped and counted (ring_full).
 * The recorder, a process of its own, never waits for a program thread, so
 * a waiting thread gives up only when it is gone (killed, or ended by its
 * watchdog), never because it is slow: starved of CPU on a busy machine or
 * writing to a slow disk, it is waited for, however long.
 */
#include <errno.h>
#include <string.h>

#include "ada_internal.h"

#define SPIN_ROUNDS 200           /* ~ a few microseconds before sleeping */

/* Writer side, after it moved tail: wake the thread if it sleeps on it. */
void ada_ring_wake(struct ada_thread *td)
{
	struct ada_ring_header *rh = td->rh;

	/* Pairs with the fence in ring_wait: either the waiter sees the new
	 * tail before it sleeps, or we see its waiting flag here. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&rh->waiting, __ATOMIC_RELAXED)) {
		__atomic_fetch_add(&rh->wake, 1, __ATOMIC_RELEASE);
		ada_futex_wake(&rh->wake);
	}
}

static bool room(struct ada_thread *td, uint64_t need)
{
	/* Acquire: pairs with the writer's release of tail, so the slots it
	 * handed back are no longer being read when we overwrite them. */
	/* Ring mode: the writer sets the limit while a snapshot needs what
	 * the ring holds (snapshot.c); it is the thread's to set otherwise. */
	if (ada_rt.cfg.ring_mode)
		return need <= __atomic_load_n(&td->limit, __ATOMIC_ACQUIRE);
	__atomic_store_n(&td->limit, __atomic_load_n(&td->rh->tail, __ATOMIC_ACQUIRE) + td->mask + 1,
			 __ATOMIC_RELAXED);
	return need <= td->limit;
}

/* Whether this thread may wait for the writer now. Never without a running
 * writer: before it starts (a fork child in its atfork handler), or after the
 * final flush stopped it. A vfork child, whose writer would be the parent's,
 * records nothing (thread.c's ada_vfork_enter): it never gets here. The
 * writer itself never records (its threads are untraced), and the runtime's
 * own work on a program thread (flushes, hooking passes) runs with the hook
 * guard held as ADA_BUSY_RUNTIME, so never reaches here. Once the
 * recorder is gone, the thread drops without waiting again. */
static bool may_wait(const struct ada_thread *td)
{
	return !ada_rt.cfg.on_full_drop && __atomic_load_n(&ada_rt.writer_live, __ATOMIC_ACQUIRE) &&
	       td->wait_progress != __atomic_load_n(&ada_rt.writer_progress, __ATOMIC_RELAXED);
}

/* Waits until the ring has room for `need`; false if it gave up. */
static bool ring_wait(struct ada_thread *td, uint64_t need)
{
	struct ada_ring_header *rh = td->rh;
	uint64_t start, now;
	bool ok = false;

	/* No clock, no futex: a thread whose TSC is off may be in seccomp's
	 * strict mode, where any other system call kills the process. */
	if (td->tsc_off) {
		while (!(ok = room(td, need)) && __atomic_load_n(&ada_rt.writer_live, __ATOMIC_ACQUIRE))
			ada_arch_relax();
		return ok;
	}
	start = now = ada_now_ns(CLOCK_MONOTONIC);

	ada_writer_kick();
	for (unsigned i = 0; i < SPIN_ROUNDS && !ok; i++) {
		ada_arch_relax();
		ok = room(td, need);
	}
	while (!ok && may_wait(td)) {
		uint32_t seen = __atomic_load_n(&rh->wake, __ATOMIC_ACQUIRE);

		__atomic_store_n(&rh->waiting, 1, __ATOMIC_RELAXED);
		/* Pairs with the fence in ada_ring_wake (store waiting; load tail
		 * here, store tail; load waiting there). */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		ok = room(td, need);
		if (!ok) {
			ada_writer_kick();
			ada_futex_wait(&rh->wake, seen, ADA_WAIT_SLICE_NS);
			ok = room(td, need);
		}
		__atomic_store_n(&rh->waiting, 0, __ATOMIC_RELAXED);
		now = ada_now_ns(CLOCK_MONOTONIC);
		/* A look at its lock, no system call. No more waits then. */
		if (ada_recorder_gone()) {
			td->wait_progress = __atomic_load_n(&ada_rt.writer_progress, __ATOMIC_RELAXED);
			break;
		}
	}
	ada_count(&rh->waits, 1);
	ada_count(&rh->wait_ns, now - start);
	return ok;
}

/* The cached limit ran out: look at the writer's real position, for n
 * slots more and the RETURNs of the depth frames open. Below half full, the
 * next look is at half full; past it, the writer is woken and the next look
 * is when the ring is full. */
static bool fit(struct ada_thread *td, uint64_t n, uint32_t depth)
{
	uint64_t need = td->rh->head + depth + n, slots = td->mask + 1;

	if (ada_rt.cfg.ring_mode) /* held by a snapshot: wait until it is written */
		goto wait;
	if (room(td, need)) {
		if (need <= td->limit - slots / 2)
			__atomic_store_n(&td->limit, td->limit - slots / 2, __ATOMIC_RELAXED);
		else if (!td->tsc_off) /* else it polls: see ring_wait */
			ada_writer_kick();
		return true;
	}
	/* The slots and the RETURNs of every open frame must fit an empty
	 * ring, or no wait can help. */
wait:
	return depth + n <= slots && may_wait(td) && ring_wait(td, need);
}

int ada_ring_fit_slow(struct ada_thread *td, uint32_t n, uint32_t depth)
{
	return fit(td, n, depth);
}

int ada_ring_refresh_slow(struct ada_thread *td, uint32_t depth)
{
	if (fit(td, 1, depth))
		return 1;
	/* Full: skip this frame and everything it calls. */
	td->skip_from = depth;
	ada_set_record_limit(td, depth - 1);
	td->skip_by_request = false;
	ada_count(&td->rh->dropped[ADA_DROP_RING_FULL], 1);
	return 0;
}

/* With ADA_DETAIL=all a record must not overwrite one the writer has not
 * consumed: the records of positions below the writer's tail are free. In
 * window mode the ring rolls over; but while the writer has a window of
 * this thread to write, a thread more than 3/4 of the detail ring ahead of
 * it would overwrite the window's records before they are written: it
 * waits for the writer as for a full index ring (ADA_ON_FULL=wait), and
 * looks again each quarter of the ring otherwise. */
int ada_detail_room_slow(struct ada_thread *td, uint64_t pos)
{
	uint64_t records = td->dmask + 1, ahead = records / 4 * 3;
	/* Acquire: the writer is done with the slots and records below its tail. */
	uint64_t tail = __atomic_load_n(&td->rh->tail, __ATOMIC_ACQUIRE);

	if (ada_rt.cfg.ring_mode) { /* rolls over: nobody is waited for */
		td->dlimit = pos + records / 4;
		return 1;
	}
	if (!ada_rt.cfg.detail_window) {
		td->dlimit = tail + records;
		return pos < td->dlimit;
	}
	if (!__atomic_load_n(&td->dwindow, __ATOMIC_ACQUIRE)) {
		td->dlimit = pos + records / 4;
		return 1;
	}
	if (pos >= tail + ahead && may_wait(td) &&
	    ring_wait(td, pos - ahead + 1 + td->mask + 1))
		tail = __atomic_load_n(&td->rh->tail, __ATOMIC_ACQUIRE);
	/* Gave up (a stalled writer, drop mode): the window loses records,
	 * counted by the writer; look again after a quarter. */
	td->dlimit = pos < tail + ahead ? tail + ahead : pos + records / 4;
	return 1;
}
