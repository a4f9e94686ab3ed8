/* clock_map.c - event ticks → CLOCK_BOOTTIME nanoseconds.
 *
 * Piecewise linear through the calibration pairs the writer recorded (at
 * start, every second, at exit); before the first and after the last pair the
 * nearest segment is extended. With one pair only, the rate measured between
 * the process start record and that pair is used, else 1 tick = 1 ns.
 */
#include <stdlib.h>

#include "raw.h"

static int cmp_clock(const void *a, const void *b)
{
	const struct ada_meta_clock *x = a, *y = b;

	return (x->tsc > y->tsc) - (x->tsc < y->tsc);
}

void clock_map_init(struct clock_map *c, struct raw_process *p)
{
	if (p->nclocks > 1)
		qsort(p->clocks, p->nclocks, sizeof(*p->clocks), cmp_clock);
	c->pts = p->clocks;
	c->n = p->nclocks;
	c->fallback_ns_per_tick = 1.0;
	if (c->n == 1 && p->proc.start_tsc && p->clocks[0].tsc > p->proc.start_tsc &&
	    p->clocks[0].boottime_ns > p->proc.start_boottime_ns)
		c->fallback_ns_per_tick = (double)(p->clocks[0].boottime_ns - p->proc.start_boottime_ns) /
					  (double)(p->clocks[0].tsc - p->proc.start_tsc);
}

/* A double of nanoseconds as a u64, clamped to its range: a cast of a value
 * out of range is undefined, and damaged CLOCK pairs can make one. */
static uint64_t clamp_ns(double ns)
{
	if (!(ns > 0)) /* NaN too */
		return 0;
	return ns >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)ns;
}

static uint64_t along(const struct ada_meta_clock *a, double ns_per_tick, uint64_t tsc)
{
	double d = tsc >= a->tsc ? (double)(tsc - a->tsc) * ns_per_tick
				 : -(double)(a->tsc - tsc) * ns_per_tick;

	return clamp_ns((double)a->boottime_ns + d);
}

static double rate(const struct clock_map *c, size_t i)
{
	const struct ada_meta_clock *a = &c->pts[i], *b = &c->pts[i + 1];

	if (b->tsc <= a->tsc || b->boottime_ns < a->boottime_ns)
		return c->fallback_ns_per_tick; /* a bad pair: do not divide by it */
	return (double)(b->boottime_ns - a->boottime_ns) / (double)(b->tsc - a->tsc);
}

/* Events of one thread come in tick order, so the caller keeps the segment
 * index in *seg between calls and the search is a step forward at most. */
uint64_t clock_map_ns(const struct clock_map *c, uint64_t tsc, size_t *seg)
{
	size_t lo = *seg;

	if (c->n == 0)
		return tsc;
	if (c->n == 1)
		return along(&c->pts[0], c->fallback_ns_per_tick, tsc);
	/* The segment [pts[lo], pts[lo+1]] holding tsc, or an end one. */
	if (lo + 1 >= c->n || c->pts[lo].tsc > tsc)
		lo = 0;
	while (lo + 2 < c->n && c->pts[lo + 1].tsc <= tsc)
		lo++;
	*seg = lo;
	return along(&c->pts[lo], rate(c, lo), tsc);
}

/* The slow path of clock_map_ns_fast: a tick outside the cursor's segment,
 * which becomes the cursor's where the fixed-point arithmetic can take it
 * (ticks from the segment's first pair on, a rate below 2^31 ns a tick, no
 * overflow within the segment). */
uint64_t clock_map_ns_cursor(const struct clock_map *c, uint64_t tsc, struct clock_cursor *k)
{
	uint64_t ns = clock_map_ns(c, tsc, &k->seg), end;
	const struct ada_meta_clock *a;
	double r;

	k->valid = false;
	if (c->n < 2)
		return ns;
	a = &c->pts[k->seg];
	r = rate(c, k->seg);
	end = k->seg + 2 < c->n ? c->pts[k->seg + 1].tsc : UINT64_MAX;
	if (tsc < a->tsc || !(r > 0 && r < 2147483648.0) || end <= a->tsc ||
	    a->boottime_ns >= UINT64_MAX / 4)
		return ns;
	k->base_tsc = a->tsc;
	k->span = end - a->tsc;
	k->base_ns = a->boottime_ns;
	k->mult = (uint64_t)(r * 4294967296.0 + 0.5);
	/* The last segment runs forever: as far as its times stay in 63 bits. */
	if ((double)k->span > (double)(UINT64_MAX / 2 - k->base_ns) / r)
		k->span = (uint64_t)((double)(UINT64_MAX / 2 - k->base_ns) / r);
	k->valid = true;
	return k->base_ns + (uint64_t)(((unsigned __int128)(tsc - k->base_tsc) * k->mult) >> 32);
}

double clock_map_ns_per_tick(const struct clock_map *c)
{
	const struct ada_meta_clock *a, *b;

	if (c->n < 2) /* pts may be NULL: no pointer into it */
		return c->fallback_ns_per_tick;
	a = c->pts;
	b = c->pts + c->n - 1;
	if (b->tsc <= a->tsc || b->boottime_ns < a->boottime_ns)
		return c->fallback_ns_per_tick;
	return (double)(b->boottime_ns - a->boottime_ns) / (double)(b->tsc - a->tsc);
}

uint64_t clock_map_duration_ns(const struct clock_map *c, uint64_t ticks)
{
	return clamp_ns((double)ticks * clock_map_ns_per_tick(c));
}
