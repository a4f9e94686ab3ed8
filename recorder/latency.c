/* latency.c - how long events wait between being recorded and being on disk.
 *
 * The writer samples one slot in ADA_LATENCY_EVERY of every frame it writes
 * and adds (time the write() returned - the event's timestamp) here; the
 * histogram goes to process.meta at exit, and the symbolizer reports its
 * median and 99th percentile in the manifest. Writer thread only.
 */
#include "ada_internal.h"

static struct ada_meta_latency lat;

static unsigned bucket(uint64_t t)
{
	unsigned msb;

	if (t < 8)
		return (unsigned)t;
	msb = 63u - (unsigned)__builtin_clzll(t);
	return 8 * (msb - 2) + (unsigned)((t >> (msb - 3)) & 7);
}

void ada_latency_add(uint64_t ticks)
{
	unsigned b = bucket(ticks);

	lat.counts[b < ADA_LATENCY_BUCKETS ? b : ADA_LATENCY_BUCKETS - 1]++;
	lat.samples++;
	if (ticks > lat.max_ticks)
		lat.max_ticks = ticks;
}

void ada_latency_record(void)
{
	if (lat.samples)
		ada_meta_write(ADA_META_LATENCY, &lat, sizeof(lat), NULL, 0);
}

void ada_latency_reset(void)
{
	__builtin_memset(&lat, 0, sizeof(lat));
}
