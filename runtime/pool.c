/* pool.c - where rings come from: made by the writer, taken by threads.
 *
 * A thread's index ring is a shared mapping of a file (ADA_RINGS=trace:
 * raw/ring_<no>.ring; shm: /dev/shm), a header page (struct
 * ada_ring_header) then the slots, so whatever a thread stored survives a
 * SIGKILL or a crash that got no flush (RAW_FORMAT.md §6). The files are
 * allocated in full up front: a sparse file on a full disk would raise
 * SIGBUS in the program at its first touch of a page.
 *
 * Making such a file takes an open, a fallocate of 16 MiB (milliseconds),
 * an mmap and a close. A thread does none of it: it would put a descriptor
 * in the program's table while the program counts on its numbers, need a
 * path buffer on a stack that may be 16 KiB, and find nothing where a
 * chroot moved the root. The writer makes the rings, in its own descriptor
 * table and file-system root, and keeps some ready; a starting thread takes
 * one with an atomic exchange. A process starts with one ready (made at
 * start-up, before the writer runs: the first thread's); when a thread
 * finds none of its size it asks, wakes the writer and waits for it; the
 * writer makes one for each thread waiting, and keeps one more ready from
 * then on, twice as many each time a thread had to wait again (up to
 * SPARE_MAX). The rings of ended threads, drained, are ready again for the
 * next threads.
 *
 * process.meta names each ring file once, when it is made, in a RING record
 * without a thread (ADA_RING_UNOWNED): the thread that takes a ring writes
 * its ordinal into the header, where the recovery finds it.
 *
 * Without a writer (it could not start, a fork child before it starts, a
 * writer stuck in a lock the waiting thread holds) a thread maps anonymous
 * memory itself: its events are kept, only their recovery after an unclean
 * end is not. ADA_RINGS=anon does that for every thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ada_internal.h"

#define HEADER_BYTES ADA_RING_SLOTS_OFFSET
_Static_assert(sizeof(struct ada_ring_header) <= HEADER_BYTES, "ring header fits its page");

/* Ready rings, a thread's size or a coroutine stack's: an entry is taken
 * with an exchange, filled by the writer. */
#define READY_MAX 16
#define SPARE_MAX 8             /* rings the writer keeps ready of one size */

enum { SIZE_THREAD, SIZE_STACK, NSIZES };

static struct {
	struct ada_ring_header *ready[READY_MAX];
	uint32_t asked[NSIZES];  /* times threads found none of the size (atomic) */
	uint32_t waiting[NSIZES]; /* threads waiting for one now (atomic) */
	uint32_t made;           /* futex word: bumped when rings were made ready */
	/* The writer's (and start-up's) own: */
	uint32_t spare[NSIZES];  /* how many to keep ready for threads to come */
	uint32_t seen[NSIZES];   /* asked, as of the last refill */
	uint32_t next_no;        /* ring files made in this image */
	bool failed;             /* a ring file could not be made: said once */
} P;

static size_t ring_len(unsigned size)
{
	size_t bytes = ada_rt.cfg.ring_bytes;

	/* A coroutine stack's ring is an eighth of a thread's, at least 64 KiB:
	 * a program may run hundreds of coroutines, and each keeps its ring. */
	if (size == SIZE_STACK && bytes / 8 >= 64 * 1024)
		bytes /= 8;
	return HEADER_BYTES + bytes;
}

/* The bytes of a ring's mapping, from its header. */
static size_t mapped_len(const struct ada_ring_header *rh)
{
	return HEADER_BYTES + rh->slots * sizeof(struct ada_slot);
}

static unsigned size_of(const struct ada_thread *td)
{
	return td->is_stack ? SIZE_STACK : SIZE_THREAD;
}

static void ring_path(char *buf, size_t len, uint32_t no)
{
	if (ada_rt.cfg.rings == ADA_RINGS_SHM)
		snprintf(buf, len, "/dev/shm/ada-%u-%u-%llx.ring", ada_rt.pid, no,
			 (unsigned long long)ada_rt.start_ns);
	else
		snprintf(buf, len, "%s/ring_%u.ring", ada_rt.raw_dir, no);
}

/* An empty ring of len bytes, owned by no thread yet. */
static void header_init(struct ada_ring_header *rh, size_t len, uint32_t no)
{
	memset(rh, 0, sizeof(*rh));
	memcpy(rh->magic, ADA_RING_MAGIC, sizeof(rh->magic));
	rh->version = ADA_RAW_VERSION;
	rh->ordinal = ADA_RING_UNOWNED;
	rh->pid = ada_rt.pid;
	rh->slots = (len - HEADER_BYTES) / sizeof(struct ada_slot);
	rh->ring_no = no;
}

/* A new ring file, mapped, and named in process.meta; NULL if it cannot be
 * made (said once: the threads then record into memory). */
static struct ada_ring_header *ring_file_make(size_t len)
{
	char path[4500];
	uint32_t no = P.next_no++;
	void *p = MAP_FAILED, *at = ada_arena_get(len);
	int fd, err;

	ring_path(path, sizeof(path), no);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 && (errno == EMFILE || errno == ENFILE) && ada_writer_fds_release())
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	err = fd < 0 ? errno : posix_fallocate(fd, 0, (off_t)len);
	if (!err) {
		/* Over a piece of the arena: the address space stays as it was. */
		p = mmap(at, len, PROT_READ | PROT_WRITE, MAP_SHARED | (at ? MAP_FIXED : 0), fd, 0);
		err = p == MAP_FAILED ? errno : 0;
	}
	/* A thread's first store would otherwise read ahead what the device
	 * asks (8 MiB here): ~4.5 ms in the first call of every process, and
	 * as long again to drop those pages when the ring is removed. Ring
	 * pages are written, never read from the file: fault them one by one. */
	if (!err)
		madvise(p, len, MADV_RANDOM);
	if (fd >= 0)
		close(fd);
	if (err) {
		ada_unmap(at, len);
		if (fd >= 0)
			unlink(path);
		if (!P.failed)
			ada_write_failed("cannot create the ring file %s: %s: rings were in memory "
					 "only from then on (a killed process loses its unwritten "
					 "events)", path, strerror(err));
		P.failed = true;
		return NULL;
	}
	header_init(p, len, no);
	struct ada_meta_ring mr = { .ordinal = ADA_RING_UNOWNED };
	ada_meta_write(ADA_META_RING, &mr, sizeof(mr), path, strlen(path) + 1);
	return p;
}

/* Puts rh among the ready rings; false if they are all taken. */
static bool ready_put(struct ada_ring_header *rh)
{
	for (unsigned i = 0; i < READY_MAX; i++) {
		struct ada_ring_header *none = NULL;

		if (__atomic_compare_exchange_n(&P.ready[i], &none, rh, false, __ATOMIC_RELEASE,
						__ATOMIC_RELAXED))
			return true;
	}
	return false;
}

static unsigned ready_count(size_t len)
{
	unsigned n = 0;

	for (unsigned i = 0; i < READY_MAX; i++) {
		struct ada_ring_header *rh = __atomic_load_n(&P.ready[i], __ATOMIC_ACQUIRE);

		n += rh && mapped_len(rh) == len;
	}
	return n;
}

static void ring_file_remove(const struct ada_ring_header *rh)
{
	char path[4500];

	ring_path(path, sizeof(path), rh->ring_no);
	unlink(path);
}

/* A recorder reads the rings in the shared arena, where it survives the
 * program: ring files would only be mapped in one of the two processes.
 * Without one (rings_only.c) nobody would make them: the rings are written
 * to files at the image's end. */
static bool pool_off(void)
{
	return ada_rt.cfg.rings == ADA_RINGS_ANON || ada_rt.cfg.recorder || ada_rt.rings_only;
}

void ada_pool_refill(void)
{
	if (pool_off() || P.failed)
		return;
	for (unsigned s = 0; s < NSIZES; s++) {
		uint32_t asked = __atomic_load_n(&P.asked[s], __ATOMIC_ACQUIRE);
		size_t len = ring_len(s);
		bool made = false;

		uint32_t waiting = __atomic_load_n(&P.waiting[s], __ATOMIC_ACQUIRE);
		uint32_t want = waiting + P.spare[s];

		/* Threads had to wait for a ring: keep more ready from now on. */
		if (asked != P.seen[s]) {
			P.seen[s] = asked;
			P.spare[s] = P.spare[s] ? P.spare[s] * 2 : 1;
			if (P.spare[s] > SPARE_MAX)
				P.spare[s] = SPARE_MAX;
		}
		for (unsigned n = ready_count(len); n < want && !P.failed; n++) {
			struct ada_ring_header *rh = ring_file_make(len);

			if (!rh)
				break;
			if (!ready_put(rh)) {
				ring_file_remove(rh);
				ada_unmap(rh, len);
				break;
			}
			made = true;
		}
		if (made || P.failed) {
			__atomic_fetch_add(&P.made, 1, __ATOMIC_RELEASE);
			ada_futex_wake(&P.made);
		}
	}
}

void ada_pool_start(void)
{
	memset(&P, 0, sizeof(P));
	P.spare[SIZE_THREAD] = 1;
	ada_pool_refill();
	/* More only once a thread asked: a single-threaded program gets no
	 * ring file it never uses. */
	P.spare[SIZE_THREAD] = 0;
}

/* A ready ring of len bytes, or NULL. */
static struct ada_ring_header *ready_take(size_t len)
{
	for (unsigned i = 0; i < READY_MAX; i++) {
		struct ada_ring_header *rh = __atomic_load_n(&P.ready[i], __ATOMIC_ACQUIRE);

		if (rh && mapped_len(rh) == len &&
		    __atomic_compare_exchange_n(&P.ready[i], &rh, NULL, false, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			return rh;
	}
	return NULL;
}

/* A ready ring of td's size: taken at once, or asked of the writer and
 * waited for; NULL if none can come. */
static struct ada_ring_header *pool_take(const struct ada_thread *td, size_t len)
{
	struct ada_ring_header *rh = ready_take(len);
	struct ada_writer_watch watch;

	if (rh || pool_off())
		return rh;
	__atomic_fetch_add(&P.waiting[size_of(td)], 1, __ATOMIC_RELEASE);
	__atomic_fetch_add(&P.asked[size_of(td)], 1, __ATOMIC_RELEASE);
	ada_writer_watch_start(&watch, ada_now_ns(CLOCK_MONOTONIC));
	/* While the writer may still bring one: it runs, can make files, and
	 * is not stalled in code that may wait for this thread (as ring.c's
	 * waits). */
	while (!(rh = ready_take(len)) && __atomic_load_n(&ada_rt.writer_live, __ATOMIC_ACQUIRE) &&
	       !__atomic_load_n(&P.failed, __ATOMIC_RELAXED) &&
	       !ada_writer_stalled(&watch, ada_now_ns(CLOCK_MONOTONIC))) {
		uint32_t made = __atomic_load_n(&P.made, __ATOMIC_ACQUIRE);

		if ((rh = ready_take(len)))
			break;
		ada_writer_kick();
		ada_futex_wait(&P.made, made, ADA_WAIT_SLICE_NS);
	}
	__atomic_fetch_sub(&P.waiting[size_of(td)], 1, __ATOMIC_RELEASE);
	return rh;
}

int ada_ring_map(struct ada_thread *td)
{
	size_t len = ring_len(size_of(td));
	struct ada_ring_header *rh = pool_take(td, len);
	bool file = rh != NULL;

	if (!rh) {
		rh = ada_map_zeroed(len);
		if (!rh)
			return -ENOMEM;
		header_init(rh, len, ADA_RING_UNOWNED);
	}
	rh->os_tid = td->os_tid;
	rh->start_tsc = td->start_tsc;
	/* Last: the recovery takes the ring for this thread's from here on. */
	__atomic_store_n(&rh->ordinal, td->ordinal, __ATOMIC_RELEASE);
	td->rh = rh;
	td->ring = (struct ada_slot *)((uint8_t *)rh + HEADER_BYTES);
	td->ring_bytes = len;
	td->ring_file = file;
	td->mask = rh->slots - 1;
	/* Ring mode: the ring rolls over, the hook never looks at the writer. */
	td->limit = ada_rt.cfg.ring_mode ? UINT64_MAX : rh->slots / 2;
	return 0;
}

void ada_ring_retire(struct ada_thread *td)
{
	if (td->ring_file) {
		/* Drained: an empty ring at position 0 for the next thread. */
		header_init(td->rh, td->ring_bytes, td->rh->ring_no);
		if (ready_put(td->rh)) {
			td->ring_file = false;
			td->rh = NULL;
			td->ring = NULL;
			return;
		}
	}
	ada_ring_remove(td);
	ada_ring_unmap(td);
}

void ada_ring_remove(struct ada_thread *td)
{
	if (!td->ring_file)
		return;
	ring_file_remove(td->rh);
	td->ring_file = false;
}

void ada_ring_unmap(struct ada_thread *td)
{
	ada_unmap(td->rh, td->ring_bytes);
	td->rh = NULL;
	td->ring = NULL;
}

void ada_ring_pool_empty(bool remove)
{
	memset(P.spare, 0, sizeof(P.spare));
	for (unsigned i = 0; i < READY_MAX; i++) {
		struct ada_ring_header *rh = __atomic_exchange_n(&P.ready[i], NULL, __ATOMIC_ACQ_REL);

		if (!rh)
			continue;
		if (remove)
			ring_file_remove(rh);
		ada_unmap(rh, mapped_len(rh));
	}
}
