/* clock.c - pairing the event clock with CLOCK_BOOTTIME.
 *
 * Events carry raw ticks (rdtsc, cntvct_el0): a few nanoseconds to read, no
 * syscall. The writer records a (ticks, boottime) pair at start, every second
 * and at exit; the symbolizer converts each event by interpolating between the
 * pairs around it. Error bound (RAW_FORMAT.md): half the pair's read window
 * plus the drift of the tick rate against BOOTTIME within one interval.
 */
#include <time.h>

#include "ada_internal.h"

#define TRIES 5

/* The best of a few tries: the pair whose clock_gettime took the fewest ticks. */
void ada_clock_sample(struct ada_meta_clock *out)
{
	int i;

	out->window = UINT64_MAX;
	for (i = 0; i < TRIES; i++) {
		struct timespec ts;
		uint64_t t0 = ada_arch_ticks(), t1;

		clock_gettime(CLOCK_BOOTTIME, &ts);
		t1 = ada_arch_ticks();
		if (t1 - t0 < out->window) {
			out->window = t1 - t0;
			out->tsc = t0 + (t1 - t0) / 2;
			out->boottime_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
		}
	}
}

uint64_t ada_clock_hz_estimate(const struct ada_meta_clock *a, const struct ada_meta_clock *b)
{
	if (b->boottime_ns <= a->boottime_ns)
		return 0;
	return (uint64_t)((double)(b->tsc - a->tsc) * 1e9 / (double)(b->boottime_ns - a->boottime_ns));
}
