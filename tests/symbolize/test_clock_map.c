/* test_clock_map.c - event ticks → CLOCK_BOOTTIME ns: exact at the
 * calibration points, linear between them, the nearest segment extended
 * outside them, and a cursor that changes nothing but the speed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "raw.h"

static struct raw_process proc;
static struct ada_meta_clock pts[16];
static struct clock_map map;

/* A process with the given (tsc, ns) pairs, in the order given. */
static void calibrate(const uint64_t (*pairs)[2], size_t n)
{
	size_t i;

	assert_true(n <= 16);
	for (i = 0; i < n; i++)
		pts[i] = (struct ada_meta_clock){ .tsc = pairs[i][0], .boottime_ns = pairs[i][1],
						  .window = 30 };
	proc.clocks = n ? pts : NULL;
	proc.nclocks = n;
	clock_map_init(&map, &proc);
}
#define CALIBRATE(...)                                                          \
	do {                                                                    \
		static const uint64_t p_[][2] = { __VA_ARGS__ };                \
		calibrate(p_, sizeof(p_) / sizeof(p_[0]));                      \
	} while (0)

/* With a fresh cursor every time. */
static uint64_t ns(uint64_t tsc)
{
	size_t seg = 0;

	return clock_map_ns(&map, tsc, &seg);
}

static int setup(void **state)
{
	(void)state;
	memset(&proc, 0, sizeof(proc));
	memset(&map, 0, sizeof(map));
	return 0;
}

/* 2 ns per tick from 1000 to 3000, then 0.5 ns per tick to 5000. */
static void three_points(void)
{
	CALIBRATE({ 1000, 10000 }, { 3000, 14000 }, { 5000, 15000 });
}

static void test_clock_map_is_exact_at_the_calibration_points(void **state)
{
	(void)state;
	three_points();
	assert_int_equal(ns(1000), 10000);
	assert_int_equal(ns(3000), 14000);
	assert_int_equal(ns(5000), 15000);
}

static void test_clock_map_interpolates_linearly_between_points(void **state)
{
	(void)state;
	three_points();
	assert_int_equal(ns(1001), 10002);
	assert_int_equal(ns(1500), 11000);
	assert_int_equal(ns(2000), 12000);
	assert_int_equal(ns(2999), 13998);
	assert_int_equal(ns(3002), 14001);
	assert_int_equal(ns(4000), 14500);
	assert_int_equal(ns(4998), 14999);
}

static void test_clock_map_extends_the_first_segment_before_the_first_point(void **state)
{
	(void)state;
	three_points();
	assert_int_equal(ns(999), 9998);
	assert_int_equal(ns(500), 9000);
	assert_int_equal(ns(0), 8000);
}

static void test_clock_map_extends_the_last_segment_after_the_last_point(void **state)
{
	(void)state;
	three_points();
	assert_int_equal(ns(5002), 15001);
	assert_int_equal(ns(7000), 16000);
	assert_int_equal(ns(1000000), 15000 + 995000 / 2);
}

static void test_clock_map_never_goes_below_zero(void **state)
{
	(void)state;
	CALIBRATE({ 1000, 500 }, { 2000, 2500 });
	assert_int_equal(ns(750), 0);
	assert_int_equal(ns(0), 0);
	assert_int_equal(ns(1000), 500);
}

static void test_clock_map_sorts_points_given_out_of_order(void **state)
{
	(void)state;
	CALIBRATE({ 5000, 15000 }, { 1000, 10000 }, { 3000, 14000 });
	assert_int_equal(ns(2000), 12000);
	assert_int_equal(ns(4000), 14500);
	assert_int_equal(ns(7000), 16000);
}

static void test_clock_map_single_point_uses_the_start_records_rate(void **state)
{
	(void)state;
	proc.proc.start_tsc = 1000;
	proc.proc.start_boottime_ns = 5000;
	CALIBRATE({ 3000, 9000 }); /* 2 ns per tick since the start */
	assert_int_equal(ns(3000), 9000);
	assert_int_equal(ns(4000), 11000);
	assert_int_equal(ns(2000), 7000);
	assert_int_equal(ns(1000), 5000);
}

static void test_clock_map_single_point_without_start_record_counts_1_ns_per_tick(void **state)
{
	(void)state;
	CALIBRATE({ 3000, 9000 });
	assert_int_equal(ns(3000), 9000);
	assert_int_equal(ns(4000), 10000);
	assert_int_equal(ns(2500), 8500);
}

static void test_clock_map_no_points_counts_ticks_as_ns(void **state)
{
	(void)state;
	CALIBRATE();
	assert_int_equal(ns(0), 0);
	assert_int_equal(ns(123456789), 123456789);
}

/* The rate over the whole recording, with no pair at all: no pointer into
 * the missing array (UBSan's "applying zero offset to null pointer", found
 * by make fuzz), the default rate. */
static void test_clock_map_no_points_has_the_default_rate(void **state)
{
	(void)state;
	CALIBRATE();
	assert_true(clock_map_ns_per_tick(&map) == 1.0);
}

/* Damaged pairs can ask for more nanoseconds than a u64 holds: the result
 * is the largest, never a wrapped or undefined conversion. */
static void test_clock_map_times_and_durations_beyond_u64_are_clamped(void **state)
{
	(void)state;
	CALIBRATE({ 1000, 1ull << 63 }, { 2000, (1ull << 63) + 500 }); /* 0.5 ns per tick */
	assert_true(ns(1000) == 1ull << 63);
	assert_true(ns(UINT64_MAX) == UINT64_MAX);
	assert_true(clock_map_duration_ns(&map, 1000) == 500);
	assert_true(clock_map_duration_ns(&map, UINT64_MAX) == UINT64_MAX / 2 + 1);
	CALIBRATE({ 0, 0 }, { 1, 4 }); /* 4 ns per tick */
	assert_true(clock_map_duration_ns(&map, 1ull << 62) == UINT64_MAX);
	assert_true(clock_map_duration_ns(&map, UINT64_MAX) == UINT64_MAX);
}

static void test_clock_map_damaged_pairs_fall_back_to_the_default_rate(void **state)
{
	(void)state;
	/* ns going backwards between two pairs: 1 ns per tick there. */
	CALIBRATE({ 1000, 10000 }, { 2000, 9000 }, { 3000, 11000 });
	assert_int_equal(ns(1500), 10500);
	assert_int_equal(ns(2500), 10000);
	/* Two pairs at one tick: no division by zero. */
	CALIBRATE({ 1000, 10000 }, { 1000, 10000 }, { 2000, 12000 });
	assert_int_equal(ns(999), 9999);
	assert_int_equal(ns(1500), 11000);
}

/* Realistic numbers: a 2.9 GHz TSC sampled about every second, with the
 * small jitter of real calibration pairs. */
static void realistic_points(void)
{
	CALIBRATE({ 81234567890123ull, 28000000000000ull },
		  { 81237467890411ull, 28001000000093ull },
		  { 81240367889907ull, 28001999999871ull },
		  { 81243267890555ull, 28003000000201ull },
		  { 81246167890001ull, 28004000000000ull });
}

static void test_clock_map_is_monotonic_across_segment_boundaries(void **state)
{
	uint64_t prev = 0, tsc, i;
	size_t seg = 0;

	(void)state;
	realistic_points();
	for (i = 0; i < map.n; i++) {
		uint64_t at = map.pts[i].tsc;

		prev = 0;
		seg = 0;
		for (tsc = at - 5000; tsc <= at + 5000; tsc++) {
			uint64_t t = clock_map_ns(&map, tsc, &seg);

			assert_true(t >= prev);
			prev = t;
		}
		assert_int_equal(ns(at), map.pts[i].boottime_ns);
	}
}

static void test_clock_map_cursor_gives_the_same_results_as_a_fresh_one(void **state)
{
	uint64_t tsc = 81234567890123ull - 3000000000ull;
	size_t seg = 0;
	unsigned i;

	(void)state;
	realistic_points();
	srand(7);
	for (i = 0; i < 20000; i++) {
		tsc += (uint64_t)(rand() % 1000000) * 2;
		assert_int_equal(clock_map_ns(&map, tsc, &seg), ns(tsc));
	}
	/* A cursor from a later stream position, asked about an earlier tick. */
	assert_int_equal(clock_map_ns(&map, 81234567890123ull, &seg), 28000000000000ull);
	seg = 99;
	assert_int_equal(clock_map_ns(&map, 81240367889907ull, &seg), 28001999999871ull);
}

#define T(name) cmocka_unit_test_setup(name, setup)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_clock_map_is_exact_at_the_calibration_points),
		T(test_clock_map_interpolates_linearly_between_points),
		T(test_clock_map_extends_the_first_segment_before_the_first_point),
		T(test_clock_map_extends_the_last_segment_after_the_last_point),
		T(test_clock_map_never_goes_below_zero),
		T(test_clock_map_sorts_points_given_out_of_order),
		T(test_clock_map_single_point_uses_the_start_records_rate),
		T(test_clock_map_single_point_without_start_record_counts_1_ns_per_tick),
		T(test_clock_map_no_points_counts_ticks_as_ns),
		T(test_clock_map_no_points_has_the_default_rate),
		T(test_clock_map_times_and_durations_beyond_u64_are_clamped),
		T(test_clock_map_damaged_pairs_fall_back_to_the_default_rate),
		T(test_clock_map_is_monotonic_across_segment_boundaries),
		T(test_clock_map_cursor_gives_the_same_results_as_a_fresh_one),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
