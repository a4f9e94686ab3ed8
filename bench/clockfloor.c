/* clockfloor.c - the cost of one read of the event clock.
 *
 *   clockfloor [READS]        (default 100000000)
 *
 * ada stamps every event with one read of the CPU's tick counter (rdtsc on
 * x86-64, cntvct_el0 on arm64, as mcount/<arch>/arch.h does), so no traced
 * thread can pay less than this per event. Reads back to back, four per loop
 * turn, in 10 batches; each batch is timed in CPU time of this thread
 * (CLOCK_THREAD_CPUTIME_ID, as micro times its loop), so time the thread spent
 * preempted does not count. Prints to stdout the median batch's cost and the
 * cheapest:
 *
 *   clock_read_ns <median ns per read> min_ns <ns> reads <n>
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

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

#define BATCHES 10

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000000, per, i;
	double cost[BATCHES], t;
	uint64_t sink = 0;
	int b, j;

	per = n / BATCHES / 4 * 4;
	if (per <= 0)
		return 2;
	for (b = 0; b < BATCHES; b++) {
		long long t0 = cpu_ns();

		for (i = 0; i < per; i += 4)
			sink += ticks() ^ ticks() ^ ticks() ^ ticks();
		cost[b] = (double)(cpu_ns() - t0) / (double)per;
	}
	for (b = 1; b < BATCHES; b++)
		for (j = b; j > 0 && cost[j - 1] > cost[j]; j--) {
			t = cost[j];
			cost[j] = cost[j - 1];
			cost[j - 1] = t;
		}
	printf("clock_read_ns %.3f min_ns %.3f reads %ld sink %u\n",
	       (cost[BATCHES / 2 - 1] + cost[BATCHES / 2]) / 2, cost[0], per * BATCHES, (unsigned)(sink & 1));
	return 0;
}
