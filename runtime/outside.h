/* outside.h - marking the writer's calls into code that may wait for a
 * program thread (outside.c). */
#ifndef ADA_OUTSIDE_H
#define ADA_OUTSIDE_H

#include <stddef.h>
#include <stdint.h>

#define ADA_OUTSIDE_HIDDEN __attribute__((visibility("hidden")))

/* Non-zero while the writer runs code that may wait for a lock a program
 * thread holds: an allocator the program brought (its malloc, traced, may
 * hold its lock while its thread waits for room), the loader's lock, the
 * writer's own lock. A thread waiting for room gives up only on a writer
 * stalled in there (ring.c): one that is merely slow, starved of CPU on a
 * busy machine, is waited for. */
ADA_OUTSIDE_HIDDEN extern uint32_t ada_writer_outside;
static inline void ada_outside_begin(void)
{
	__atomic_fetch_add(&ada_writer_outside, 1, __ATOMIC_RELAXED);
}
static inline void ada_outside_end(void)
{
	__atomic_fetch_sub(&ada_writer_outside, 1, __ATOMIC_RELAXED);
}
/* malloc and its kin, inside ada_outside_begin/end: the runtime's code that
 * the writer runs allocates with these. */
ADA_OUTSIDE_HIDDEN void *ada_malloc(size_t n);
ADA_OUTSIDE_HIDDEN void *ada_calloc(size_t n, size_t size);
ADA_OUTSIDE_HIDDEN void *ada_realloc(void *p, size_t n);
ADA_OUTSIDE_HIDDEN void ada_free(void *p);

#endif
