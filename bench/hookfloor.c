/* hookfloor.c - the hook floor's state (bench/hookfloor.S says what it
 * measures): one thread's, set up before main, which is all micro needs. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define RING_BYTES (16u << 20) /* ada's per-thread index ring by default */

/* The field offsets hookfloor.S uses. */
struct hf_thread {
	uint64_t head;      /* 0: the next position */
	uint64_t limit;     /* 8: positions below it may be written */
	uint64_t mask;      /* 16 */
	void *ring;         /* 24: 16-byte slots */
	uint64_t stack_lo;  /* 32: the thread's stack */
	uint64_t stack_span;/* 40 */
	uint16_t ignored;   /* 48: recording off for the thread */
};

struct hf_self {
	struct hf_thread *td; /* 0 */
	uint64_t busy;        /* 8: inside a hook */
};

__thread struct hf_self hf_self;
int hf_recording_off;
static struct hf_thread main_thread;

/* micro calls it only with MARK_EVERY, which the floor's runs do not set. */
void ada_mark(const char *label)
{
	(void)label;
}

/* The slow path: what the fast path leaves to C in ada. Never taken here
 * (one thread, on its stack, recording on, a ring as large as the run). */
void hf_slow(void)
{
	fputs("hookfloor: the slow path was taken\n", stderr);
	abort();
}

__attribute__((constructor)) static void hf_init(void)
{
	void *ring = mmap(NULL, RING_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (ring == MAP_FAILED) {
		perror("hookfloor: mmap");
		exit(1);
	}
	memset(ring, 0, RING_BYTES); /* its page faults before the run, as the ring floor's */
	main_thread = (struct hf_thread){ .limit = UINT64_MAX, .mask = RING_BYTES / 16 - 1,
					  .ring = ring, .stack_span = UINT64_MAX };
	hf_self.td = &main_thread;
}
