/* test_filter.c - the views' filter options (symbolize/filter.c): what each
 * value parses to, and which values are refused.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "walk.h"

static void durations_take_units(void **state)
{
	uint64_t ns;

	(void)state;
	assert_true(view_parse_duration("250", &ns));
	assert_int_equal(ns, 250);
	assert_true(view_parse_duration("10us", &ns));
	assert_int_equal(ns, 10000);
	assert_true(view_parse_duration("1.5ms", &ns));
	assert_int_equal(ns, 1500000);
	assert_true(view_parse_duration("2s", &ns));
	assert_int_equal(ns, 2000000000ull);
	assert_true(view_parse_duration(".5us", &ns));
	assert_int_equal(ns, 500);
	assert_false(view_parse_duration("", &ns));
	assert_false(view_parse_duration("5xs", &ns));
	assert_false(view_parse_duration("-1ms", &ns));
	assert_false(view_parse_duration("ms", &ns));
	assert_false(view_parse_duration("1e30s", &ns));
}

static void options_fill_the_filter(void **state)
{
	struct view_filter f = { 0 };
	struct src_thread t = { .id = 3, .tid = 4242 };

	(void)state;
	assert_int_equal(view_filter_add(&f, "filter", "parse_*"), 0);
	assert_int_equal(view_filter_add(&f, "filter", "main"), 0);
	assert_int_equal(view_filter_add(&f, "notrace", "std::*"), 0);
	assert_int_equal(view_filter_add(&f, "depth", "4"), 0);
	assert_int_equal(view_filter_add(&f, "time-filter", "3us"), 0);
	assert_int_equal(view_filter_add(&f, "time-range", "1ms~"), 0);
	assert_int_equal(view_filter_add(&f, "tid", "4242,7"), 0);
	assert_string_equal(f.include[0], "parse_*");
	assert_string_equal(f.include[1], "main");
	assert_null(f.include[2]);
	assert_string_equal(f.exclude[0], "std::*");
	assert_int_equal(f.max_depth, 4);
	assert_int_equal(f.min_ns, 3000);
	assert_true(f.has_range);
	assert_int_equal(f.t_lo, 1000000);
	assert_int_equal(f.t_hi, 0);
	assert_int_equal(f.ntids, 2);
	assert_true(view_filter_wants_thread(&f, &t));
	t.tid = 1;
	assert_false(view_filter_wants_thread(&f, &t));
	assert_true(view_filter_wants_pid(&f, 99));
	assert_int_equal(view_filter_add(&f, "pid", "12"), 0);
	assert_false(view_filter_wants_pid(&f, 99));
	assert_true(view_filter_wants_pid(&f, 12));
	assert_true(view_glob_any(f.include, "parse_term", NULL));
	assert_true(view_glob_any(f.include, "x", "main"));
	assert_false(view_glob_any(f.include, "mainly", NULL));
	assert_true(view_filter_any(&f));
	view_filter_free(&f);
	assert_false(view_filter_any(&f));
}

static void bad_values_are_refused(void **state)
{
	struct view_filter f = { 0 };

	(void)state;
	assert_int_equal(view_filter_add(&f, "depth", "0"), -EINVAL);
	assert_int_equal(view_filter_add(&f, "depth", "-2"), -EINVAL);
	assert_int_equal(view_filter_add(&f, "depth", "3x"), -EINVAL);
	assert_int_equal(view_filter_add(&f, "time-filter", "fast"), -EINVAL);
	assert_int_equal(view_filter_add(&f, "time-range", "2ms~1ms"), -EINVAL);
	assert_int_equal(view_filter_add(&f, "time-range", "1ms~1ms"), -EINVAL);
	assert_int_equal(view_filter_add(&f, "time-range", "1ms"), -EINVAL);
	assert_int_equal(view_filter_add(&f, "time-range", "a~b"), -EINVAL);
	assert_int_equal(view_filter_add(&f, "tid", "1,,2"), -EINVAL);
	assert_int_equal(view_filter_add(&f, "tid", "1,"), -EINVAL);
	assert_int_equal(view_filter_add(&f, "thread", "99999999999"), -EINVAL);
	assert_int_equal(view_filter_add(&f, "filter", ""), -EINVAL);
	assert_false(view_filter_any(&f));
	/* "~" alone: the whole trace. */
	assert_int_equal(view_filter_add(&f, "time-range", "~"), 0);
	assert_int_equal(f.t_lo, 0);
	assert_int_equal(f.t_hi, 0);
	view_filter_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(durations_take_units),
		cmocka_unit_test(options_fill_the_filter),
		cmocka_unit_test(bad_values_are_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
