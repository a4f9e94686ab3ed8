/* clockfloor.c - the cheapest a traced event can be: the clock floor and the
 * ring floor.
 *
 *   clockfloor [EVENTS]        (default 100000000; make bench gives micro's)
 *
 * ada stamps every event with one read of the CPU's tick counter (rdtsc on
 * x86-64, cntvct_el0 on arm64, as runtime/<arch>/arch.h does), so no traced
 * thread can pay less than that per event: the clock floor, reads back to
 * back, four per loop turn. Ring mode (issue 13: both lanes are rolling rings,
 * nothing is written in steady state) adds to that one store of the event
 * into the thread's ring, and nothing else: the ring floor is a loop doing,
 * per event, one tick read and one 16-byte store (the ticks and an event
 * word; gcc writes the slot with two 8-byte moves, as a hook would) into a
 * thread-local ring of RING_BYTES, a power of two, its index masked. Ring mode's budget is measured against it. The ring is as large as
 * ada's per-thread index ring by default (ADA_RING_KB=16384), so its stores
 * leave the caches as a ring mode's would; its index stays in a register (a
 * hook keeps it in thread-local memory: an L1 hit more).
 *
 * Each floor runs EVENTS events in 10 batches; each batch is timed in CPU
 * time of this thread (CLOCK_THREAD_CPUTIME_ID, as micro times its loop), so
 * time the thread spent preempted does not count. Prints to stdout each
 * floor's median batch and its cheapest, per event:
 *
 *   clock_read_ns <ns> min_ns <ns> ring_event_ns <ns> ring_min_ns <ns> events <n>
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define BATCHES 10
#define RING_BYTES (16u << 20)

static inline __attribute__((always_inline)) uint64_t ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
#elif defined(__aarch64__)
	uint64_t v;

	__asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
	return v;
#else
#error "no tick counter for this architecture"
#endif
}

static long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

struct slot {
	uint64_t ticks;
	uint64_t event;
};

/* The thread's ring: mapped by ring_map, written by ring_batch. */
static __thread struct slot *ring;

/* One batch of the clock floor: per reads back to back; ns per read. */
static double clock_batch(long per, uint64_t *sink)
{
	long long t0 = cpu_ns();
	long i;

	for (i = 0; i < per; i += 4)
		*sink += ticks() ^ ticks() ^ ticks() ^ ticks();
	return (double)(cpu_ns() - t0) / (double)per;
}

/* One batch of the ring floor: per events from position *pos; ns per event. */
static double ring_batch(long per, uint64_t *pos)
{
	const uint64_t mask = RING_BYTES / sizeof(struct slot) - 1;
	struct slot *r = ring;
	uint64_t p = *pos;
	long long t0 = cpu_ns();
	long i;

	for (i = 0; i < per; i++, p++)
		r[p & mask] = (struct slot){ ticks(), (uint64_t)i };
	*pos = p;
	return (double)(cpu_ns() - t0) / (double)per;
}

static void sort(double *a, int n)
{
	double t;
	int b, j;

	for (b = 1; b < n; b++)
		for (j = b; j > 0 && a[j - 1] > a[j]; j--) {
			t = a[j];
			a[j] = a[j - 1];
			a[j - 1] = t;
		}
}

static double median(const double *sorted)
{
	return (sorted[BATCHES / 2 - 1] + sorted[BATCHES / 2]) / 2;
}

int main(int argc, char **argv)
{
	char *end = NULL;
	long n = argc > 1 ? strtol(argv[1], &end, 10) : 100000000, per;
	double clk[BATCHES], rng[BATCHES];
	uint64_t sink = 0, pos = 0;
	int b;

	per = n / BATCHES / 4 * 4;
	if ((end && *end) || per <= 0) {
		fprintf(stderr, "clockfloor: EVENTS '%s': expected an integer of at least %d\n", argv[1], 4 * BATCHES);
		return 2;
	}
	ring = mmap(NULL, RING_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ring == MAP_FAILED) {
		perror("clockfloor: mmap");
		return 1;
	}
	/* Touched once first: a floor leaves out the ring's page faults (a
	 * long run's ring pays them once, a short run's would in every batch). */
	memset(ring, 0, RING_BYTES);
	/* Batch by batch in turn, so that both floors see the same machine. */
	for (b = 0; b < BATCHES; b++) {
		clk[b] = clock_batch(per, &sink);
		rng[b] = ring_batch(per, &pos);
	}
	sort(clk, BATCHES);
	sort(rng, BATCHES);
	/* A slot read back keeps the stores observable. */
	sink ^= ring[pos / 2 % (RING_BYTES / sizeof(struct slot))].ticks;
	printf("clock_read_ns %.3f min_ns %.3f ring_event_ns %.3f ring_min_ns %.3f events %ld sink %u\n", median(clk),
	       clk[0], median(rng), rng[0], per * BATCHES, (unsigned)(sink & 1));
	return 0;
}
