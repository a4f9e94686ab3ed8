/* ring.c - a thread's index ring: where it lives, and what happens when it is full.
 *
 * Where: a shared mapping of a file (ADA_RINGS=trace: raw/thread_<N>.ring,
 * shm: /dev/shm), a header page (struct ada_ring_header: head, tail, drop
 * counts) then the slots. Whatever the thread stored is in the page cache
 * the moment it is stored, so a SIGKILL, an OOM kill or a crash that got no
 * flush loses nothing: ada-symbolize recovers what the writer had not
 * written (RAW_FORMAT.md §6). The file is allocated in full up front: a
 * sparse file on a full disk would raise SIGBUS in the program at its first
 * touch of a page. ADA_RINGS=anon keeps the ring in anonymous memory.
 * Creating and allocating a file of 16 MiB takes tens of milliseconds, a
 * slowdown a program that starts many short threads would notice: the
 * rings of ended threads are kept (a few) and given to the next threads,
 * their files renamed.
 *
 * Full: the thread waits for the writer (ADA_ON_FULL=wait, the default)
 * rather than dropping, so the index lane loses nothing on a busy machine.
 * It wakes the writer early, when its ring passes half full, so that waits
 * stay rare. ADA_ON_FULL=drop keeps the old behaviour: the call's subtree is
 * skipped and counted (ring_full).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ada_internal.h"

#define HEADER_BYTES ADA_RING_SLOTS_OFFSET
_Static_assert(sizeof(struct ada_ring_header) <= HEADER_BYTES, "ring header fits its page");

/* A wait gives up when the writer made no progress for this long: it may be
 * blocked on a lock the waiting thread holds (the loader's, in a
 * dl_iterate_phdr callback or a constructor run by dlopen). */
#define WAIT_STALL_NS 1000000000ull
#define WAIT_SLICE_NS 10000000ull /* futex timeout: re-check the writer's state */
#define SPIN_ROUNDS 200           /* ~ a few microseconds before sleeping */

static void ring_path(char *buf, size_t len, uint32_t ordinal)
{
	if (ada_rt.cfg.rings == ADA_RINGS_SHM)
		snprintf(buf, len, "/dev/shm/ada-%u-%u-%llx.ring", ada_rt.pid, ordinal,
			 (unsigned long long)ada_rt.start_ns);
	else
		snprintf(buf, len, "%s/thread_%u.ring", ada_rt.raw_dir, ordinal);
}

/* File-backed rings of ended threads, drained, for the next threads. */
#define POOL_MAX 16

struct pooled {
	struct ada_ring_header *rh;
	size_t len;
	char path[4500];
};

static struct {
	pthread_mutex_t lock;
	struct pooled r[POOL_MAX];
	unsigned n;
} P = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* A kept ring of len bytes (a thread's or a coroutine stack's), its file
 * renamed to path; NULL if none. */
static struct ada_ring_header *pool_take(const char *path, size_t len)
{
	struct ada_ring_header *rh = NULL;
	unsigned i;

	pthread_mutex_lock(&P.lock);
	for (i = 0; i < P.n && P.r[i].len != len; i++)
		;
	if (i < P.n) {
		struct pooled k = P.r[i];

		P.r[i] = P.r[--P.n];
		if (rename(k.path, path) == 0) {
			rh = k.rh;
		} else {
			unlink(k.path);
			munmap(k.rh, k.len);
		}
	}
	pthread_mutex_unlock(&P.lock);
	if (rh) /* a new thread's ring: empty, at position 0 */
		memset(rh, 0, HEADER_BYTES);
	return rh;
}

void ada_ring_retire(struct ada_thread *td)
{
	bool kept = false;

	if (td->ring_file) {
		pthread_mutex_lock(&P.lock);
		if (P.n < POOL_MAX) {
			struct pooled *k = &P.r[P.n++];

			k->rh = td->rh;
			k->len = td->ring_bytes;
			ring_path(k->path, sizeof(k->path), td->ordinal);
			kept = true;
		}
		pthread_mutex_unlock(&P.lock);
	}
	if (kept) {
		td->ring_file = false;
		td->rh = NULL;
		td->ring = NULL;
		return;
	}
	ada_ring_remove(td);
	ada_ring_unmap(td);
}

void ada_ring_pool_empty(bool remove)
{
	pthread_mutex_init(&P.lock, NULL); /* a fork child: the parent may have held it */
	while (P.n) {
		struct pooled *k = &P.r[--P.n];

		if (remove)
			unlink(k->path);
		munmap(k->rh, k->len);
	}
}

/* The file-backed mapping, or NULL (then the ring goes to anonymous memory:
 * the trace is kept, only its recovery after an unclean end is not). */
static void *map_file(const char *path, size_t len)
{
	static bool warned;
	void *p = MAP_FAILED;
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	int err = fd < 0 ? errno : posix_fallocate(fd, 0, (off_t)len);

	if (!err) {
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		err = p == MAP_FAILED ? errno : 0;
	}
	if (fd >= 0)
		close(fd);
	if (!err)
		return p;
	if (fd >= 0)
		unlink(path);
	if (!__atomic_exchange_n(&warned, true, __ATOMIC_RELAXED))
		ada_warn("cannot create the ring file %s: %s; rings are in memory only (a killed "
			 "process loses its unwritten events)", path, strerror(err));
	return NULL;
}

/* A coroutine stack's ring is an eighth of a thread's, at least 64 KiB: a
 * program may run hundreds of coroutines, and each keeps its ring. */
static size_t slot_bytes(const struct ada_thread *td)
{
	size_t bytes = ada_rt.cfg.ring_bytes;

	if (td->is_stack && bytes / 8 >= 64 * 1024)
		bytes /= 8;
	return bytes;
}

int ada_ring_map(struct ada_thread *td)
{
	size_t len = HEADER_BYTES + slot_bytes(td);
	struct ada_ring_header *rh = NULL;
	char path[4500];
	bool file = ada_rt.cfg.rings != ADA_RINGS_ANON;

	if (file) {
		ring_path(path, sizeof(path), td->ordinal);
		rh = pool_take(path, len);
		if (!rh)
			rh = map_file(path, len);
		file = rh != NULL;
	}
	if (!rh && !(rh = ada_map_zeroed(len)))
		return -ENOMEM;
	memcpy(rh->magic, ADA_RING_MAGIC, sizeof(rh->magic));
	rh->version = ADA_RAW_VERSION;
	rh->ordinal = td->ordinal;
	rh->os_tid = td->os_tid;
	rh->pid = ada_rt.pid;
	rh->slots = (len - HEADER_BYTES) / sizeof(struct ada_slot);
	rh->start_tsc = td->start_tsc;
	td->rh = rh;
	td->ring = (struct ada_slot *)((uint8_t *)rh + HEADER_BYTES);
	td->ring_bytes = len;
	td->ring_file = file;
	td->mask = rh->slots - 1;
	/* Ring mode: the ring rolls over, the hook never looks at the writer. */
	td->limit = ada_rt.cfg.ring_mode ? UINT64_MAX : rh->slots / 2;
	if (file) {
		struct ada_meta_ring mr = { .ordinal = td->ordinal };

		ada_meta_write(ADA_META_RING, &mr, sizeof(mr), path, strlen(path) + 1);
	}
	return 0;
}

void ada_ring_remove(struct ada_thread *td)
{
	char path[4500];

	if (!td->ring_file)
		return;
	ring_path(path, sizeof(path), td->ordinal);
	unlink(path);
	td->ring_file = false;
}

void ada_ring_unmap(struct ada_thread *td)
{
	munmap(td->rh, td->ring_bytes);
	td->rh = NULL;
	td->ring = NULL;
}

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
 * guard held as ADA_BUSY_RUNTIME, so never reaches here. A
 * writer blocked behind this thread (a lock we hold) makes no progress: the
 * wait gives up after WAIT_STALL_NS and the thread drops, without waiting
 * again, until the writer has moved on. */
static bool may_wait(const struct ada_thread *td)
{
	return !ada_rt.cfg.on_full_drop && __atomic_load_n(&ada_rt.writer_live, __ATOMIC_ACQUIRE) &&
	       td->wait_progress != __atomic_load_n(&ada_rt.writer_progress, __ATOMIC_RELAXED);
}

/* Waits until the ring has room for `need`; false if it gave up. */
static bool ring_wait(struct ada_thread *td, uint64_t need)
{
	struct ada_ring_header *rh = td->rh;
	uint64_t start = ada_now_ns(CLOCK_MONOTONIC), last_move = start, now = start;
	uint64_t progress = __atomic_load_n(&ada_rt.writer_progress, __ATOMIC_RELAXED);
	bool ok = false;

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
			ada_futex_wait(&rh->wake, seen, WAIT_SLICE_NS);
			ok = room(td, need);
		}
		__atomic_store_n(&rh->waiting, 0, __ATOMIC_RELAXED);
		now = ada_now_ns(CLOCK_MONOTONIC);
		uint64_t p = __atomic_load_n(&ada_rt.writer_progress, __ATOMIC_RELAXED);
		if (p != progress) {
			progress = p;
			last_move = now;
		} else if (now - last_move > WAIT_STALL_NS) {
			td->wait_progress = p; /* no more waits until the writer moves */
			break;
		}
	}
	ada_count(&rh->waits, 1);
	ada_count(&rh->wait_ns, now - start);
	return ok;
}

/* The cached limit ran out: look at the writer's real position. Below half
 * full, the next look is at half full; past it, the writer is woken and the
 * next look is when the ring is full. */
int ada_ring_refresh_slow(struct ada_thread *td, uint32_t depth)
{
	uint64_t need = td->rh->head + depth + 1, slots = td->mask + 1;

	if (ada_rt.cfg.ring_mode) /* held by a snapshot: wait until it is written */
		goto wait;
	if (room(td, need)) {
		if (need <= td->limit - slots / 2)
			__atomic_store_n(&td->limit, td->limit - slots / 2, __ATOMIC_RELAXED);
		else
			ada_writer_kick();
		return 1;
	}
	/* The frame and the RETURNs of every open frame must fit an empty
	 * ring, or no wait can help. */
wait:
	if (depth + 1 <= slots && may_wait(td) && ring_wait(td, need))
		return 1;
	/* Full: skip this frame and everything it calls. */
	td->skip_from = depth;
	td->record_limit = depth - 1;
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
