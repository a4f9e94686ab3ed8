/* pool.c - where rings come from: the arena the recorder shares.
 *
 * A thread's index ring is a piece of the reservation start-up mapped
 * shared before it forked the recorder (arena.c): a header page (struct
 * ada_ring_header) then the slots. A starting thread takes one with an
 * atomic bump, or a compare-and-swap in the arena's table of pieces the
 * recorder gave back: no system call, no descriptor, no path on its stack
 * (it may start on a 16 KiB stack, after a chroot, with the descriptor
 * table full). The recorder reads the ring where the thread writes it, and
 * still after the program ended, killed or crashed: no file has to outlive
 * the process. Where no recorder runs, the rings are written to files at
 * the image's end (rings_only.c), in the layout of RAW_FORMAT.md §6.
 */
#include <errno.h>
#include <string.h>

#include "ada_internal.h"

#define HEADER_BYTES ADA_RING_SLOTS_OFFSET
_Static_assert(sizeof(struct ada_ring_header) <= HEADER_BYTES, "ring header fits its page");

/* A coroutine stack's ring is an eighth of a thread's, at least 64 KiB: a
 * program may run hundreds of coroutines, and each keeps its ring. */
static size_t ring_len(const struct ada_thread *td)
{
	size_t bytes = ada_rt.cfg.ring_bytes;

	if (td->is_stack && bytes / 8 >= 64 * 1024)
		bytes /= 8;
	return HEADER_BYTES + bytes;
}

int ada_ring_map(struct ada_thread *td)
{
	size_t len = ring_len(td);
	struct ada_ring_header *rh = ada_map_zeroed(len);

	if (!rh)
		return -ENOMEM;
	memset(rh, 0, sizeof(*rh));
	memcpy(rh->magic, ADA_RING_MAGIC, sizeof(rh->magic));
	rh->version = ADA_RING_VERSION;
	rh->ordinal = ADA_RING_UNOWNED;
	rh->pid = ada_rt.pid;
	rh->slots = (len - HEADER_BYTES) / sizeof(struct ada_slot);
	rh->ring_no = td->ordinal;
	rh->os_tid = td->os_tid;
	rh->start_tsc = td->start_tsc;
	/* Last: a reader takes the ring for this thread's from here on. */
	__atomic_store_n(&rh->ordinal, td->ordinal, __ATOMIC_RELEASE);
	td->rh = rh;
	td->ring = (struct ada_slot *)((uint8_t *)rh + HEADER_BYTES);
	td->ring_bytes = len;
	td->mask = rh->slots - 1;
	/* Ring mode: the ring rolls over, the hook never looks at the writer. */
	td->limit = ada_rt.cfg.ring_mode ? UINT64_MAX : rh->slots / 2;
	return 0;
}

void ada_ring_unmap(struct ada_thread *td)
{
	ada_unmap(td->rh, td->ring_bytes);
	td->rh = NULL;
	td->ring = NULL;
}
