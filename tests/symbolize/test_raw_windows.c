/* test_raw_windows.c - the detail windows that process.meta's WINDOW records
 * describe (RAW_FORMAT.md §2.3) reach the manifest's "windows" array, one
 * object per record in file order, every field as recorded (the thread's
 * ATF id, the trigger's name, the label JSON-escaped, positions, details
 * kept and lost, triggers) and the times of the events at the window's
 * edges, as index.atf has them. Windows that nest or overlap each count
 * their own DETAIL records; lost may count a pre-roll cut short. A trace
 * without WINDOW records converts exactly as before. (What is refused:
 * test_raw_windows_bad.c.)
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "windows_fixture.h"

/* ---- the manifest ------------------------------------------------------------------- */

static const char *const window_keys[] = {
	"thread", "trigger", "label", "trigger_position", "first_position", "last_position",
	"time_start_ns", "time_end_ns", "details_kept", "details_lost", "triggers",
};
#define NKEYS (sizeof(window_keys) / sizeof(window_keys[0]))

/* windows[i] has exactly the keys above, in that order, and these values. */
static void expect_window(const struct json_value *arr, size_t i, const struct ada_meta_window *m,
			  const char *trigger, const char *label)
{
	const struct json_value *o = json_at(arr, i);

	assert_non_null(o);
	assert_int_equal(o->type, JSON_OBJECT);
	assert_int_equal(o->obj.n, NKEYS);
	for (size_t k = 0; k < NKEYS; k++)
		assert_string_equal(o->obj.members[k].key, window_keys[k]);
	assert_int_equal(rf_u64(o, "thread"), m->ordinal);
	assert_string_equal(json_string(json_get(o, "trigger")), trigger);
	assert_string_equal(json_string(json_get(o, "label")), label);
	assert_int_equal(rf_u64(o, "trigger_position"), m->trigger_pos);
	assert_int_equal(rf_u64(o, "first_position"), m->first_pos);
	assert_int_equal(rf_u64(o, "last_position"), m->last_pos);
	assert_int_equal(rf_u64(o, "time_start_ns"), RF_BOOT_NS + m->first_tsc);
	assert_int_equal(rf_u64(o, "time_end_ns"), RF_BOOT_NS + m->last_tsc);
	assert_int_equal(rf_u64(o, "details_kept"), m->kept);
	assert_int_equal(rf_u64(o, "details_lost"), m->lost);
	assert_int_equal(rf_u64(o, "triggers"), m->triggers);
}

/* The index event at a window's first and last positions has its times
 * (positions are index events here: no SKIP, no gap). */
static void expect_times_are_the_events(uint32_t tid, const struct ada_meta_window *m)
{
	char path[300], err[256] = "";
	struct atf_index_file f;
	struct atf_event first, last;

	snprintf(path, sizeof(path), "%s/thread_%u/index.atf", w->t.pid_dir, tid);
	if (atf_index_map(path, &f, err, sizeof(err)))
		fail_msg("%s: %s", path, err);
	atf_index_get(&f, m->first_pos, &first);
	atf_index_get(&f, m->last_pos, &last);
	assert_int_equal(first.timestamp_ns, RF_BOOT_NS + m->first_tsc);
	assert_int_equal(last.timestamp_ns, RF_BOOT_NS + m->last_tsc);
	atf_index_unmap(&f);
}

/* The trace converts without a word and passes --check: its manifest
 * (json_free it), whose "windows" (*arr) has n entries. */
static struct json_doc *converted_windows(size_t n, const struct json_value **arr)
{
	struct json_doc *doc;

	assert_int_equal(convert(), 0);
	assert_string_equal(w->err, "");
	rf_expect_valid(w->t.pid_dir);
	doc = rf_manifest(w->t.pid_dir);
	*arr = json_get(json_root(doc), "windows");
	assert_non_null(*arr);
	assert_int_equal((*arr)->type, JSON_ARRAY);
	assert_int_equal(json_count(*arr), n);
	return doc;
}

static void test_windows_reach_the_manifest_in_file_order_with_every_field(void **state)
{
	const struct json_value *arr;
	struct json_doc *doc;

	(void)state;
	write_trace(true);
	doc = converted_windows(3, &arr);
	expect_window(arr, 0, &win_func, "func", "func:leaf");
	expect_window(arr, 1, &win_mark, "mark", mark_label);
	expect_window(arr, 2, &win_crash, "crash", "SIGSEGV");
	json_free(doc);
	expect_times_are_the_events(0, &win_func);
	expect_times_are_the_events(1, &win_mark);
	expect_times_are_the_events(0, &win_crash);
}

/* The label's bytes are escaped as JSON strings are: quote, backslash,
 * control characters; UTF-8 passes. */
static void test_windows_label_is_json_escaped(void **state)
{
	char path[300];
	size_t len;
	char *text;

	(void)state;
	write_trace(true);
	assert_int_equal(convert(), 0);
	snprintf(path, sizeof(path), "%s/manifest.json", w->t.pid_dir);
	text = (char *)rf_read_file(path, &len);
	text[len] = '\0'; /* rf_read_file leaves room for it */
	assert_non_null(strstr(text, "\"label\": \"say \\\"hi\\\"\\\\\\u000A\\u0001 \xc3\xa9\""));
	free(text);
}

/* The manifest with windows is the manifest without them plus the
 * "windows" array; the ATF files are the same bytes. */
static void test_windows_absent_convert_exactly_as_before(void **state)
{
	static const char *const files[] = { "manifest.json", "thread_0/index.atf",
					     "thread_0/detail.atf", "thread_1/index.atf",
					     "thread_1/detail.atf" };
	uint8_t *before[5], *after[5];
	size_t before_len[5], after_len[5];
	char path[300];
	struct json_doc *doc;

	(void)state;
	write_trace(false);
	assert_int_equal(convert(), 0);
	assert_string_equal(w->err, "");
	rf_expect_valid(w->t.pid_dir);
	doc = rf_manifest(w->t.pid_dir);
	assert_null(json_get(json_root(doc), "windows"));
	json_free(doc);
	for (size_t i = 0; i < 5; i++) {
		snprintf(path, sizeof(path), "%s/%s", w->t.pid_dir, files[i]);
		before[i] = rf_read_file(path, &before_len[i]);
	}
	unlink(w->t.meta);
	for (uint32_t tid = 0; tid < 2; tid++) {
		snprintf(path, sizeof(path), "%s/thread_%u.lz4", w->t.raw, tid);
		unlink(path);
	}
	write_trace(true);
	assert_int_equal(convert(), 0);
	for (size_t i = 0; i < 5; i++) {
		snprintf(path, sizeof(path), "%s/%s", w->t.pid_dir, files[i]);
		after[i] = rf_read_file(path, &after_len[i]);
		after[i][after_len[i]] = '\0'; /* rf_read_file leaves room for it */
	}
	for (size_t i = 1; i < 5; i++) {
		assert_int_equal(after_len[i], before_len[i]);
		assert_memory_equal(after[i], before[i], before_len[i]);
	}
	/* The manifest: the same text around the windows array. */
	{
		char *a = (char *)after[0], *start = strstr(a, "  \"windows\": [");
		char *end = start ? strstr(start, "\n  ],\n") : NULL;

		assert_non_null(end);
		end += strlen("\n  ],\n");
		assert_int_equal(after_len[0] - (size_t)(end - start), before_len[0]);
		assert_memory_equal(a, before[0], (size_t)(start - a));
		assert_memory_equal(end, before[0] + (start - a), before_len[0] - (size_t)(start - a));
	}
	for (size_t i = 0; i < 5; i++) {
		free(before[i]);
		free(after[i]);
	}
}

/* Coalescing should leave none, but windows that overlap or nest are each
 * checked against the DETAIL records of their own positions (thread 0 has
 * them at 1, 2, 3, 5 and 6). */
static void test_windows_nested_and_overlapping_count_their_own_details(void **state)
{
	static const struct ada_meta_window outer = {
		.ordinal = 0, .trigger = ADA_TRIG_SIGNAL, .trigger_pos = 1, .first_pos = 1,
		.last_pos = 6, .first_tsc = 110, .last_tsc = 160, .kept = 5, .triggers = 1,
	};
	static const struct ada_meta_window inner = {
		.ordinal = 0, .trigger = ADA_TRIG_MARK, .trigger_pos = 2, .first_pos = 2,
		.last_pos = 3, .first_tsc = 120, .last_tsc = 130, .kept = 2, .triggers = 1,
	};
	static const struct ada_meta_window across = {
		.ordinal = 0, .trigger = ADA_TRIG_SNAPSHOT, .trigger_pos = 4, .first_pos = 3,
		.last_pos = 7, .first_tsc = 130, .last_tsc = 170, .kept = 3, .lost = 2, .triggers = 1,
	};
	const struct json_value *arr;
	struct json_doc *doc;

	(void)state;
	meta_threads();
	window(&across, "", 0);
	window(&outer, "SIGUSR1", 7);
	window(&inner, "in", 2);
	finish_trace(N1);
	doc = converted_windows(3, &arr);
	expect_window(arr, 0, &across, "snapshot", "");
	expect_window(arr, 1, &outer, "signal", "SIGUSR1");
	expect_window(arr, 2, &inner, "mark", "in");
	json_free(doc);
}

/* The runtime's ticks are those of the first and last events it looked at
 * for a record (none: 0); the manifest's times are those of the events at
 * first_pos and last_pos, as index.atf has them. */
static void test_windows_times_are_the_events_at_their_edges(void **state)
{
	static const struct ada_meta_window none = {
		.ordinal = 0, .trigger = ADA_TRIG_MARK, .trigger_pos = 0, .first_pos = 0,
		.last_pos = 0, .triggers = 1, /* position 0 has no record: no ticks */
	};
	struct ada_meta_window late = win_crash;
	const struct json_value *arr;
	struct json_doc *doc;

	(void)state;
	late.first_tsc = 160; /* position 5's tick is 150 */
	late.last_tsc = 165;  /* position 7's is 170 */
	meta_threads();
	window(&none, "", 0);
	window(&late, "SIGSEGV", 7);
	finish_trace(N1);
	doc = converted_windows(2, &arr);
	assert_int_equal(rf_u64(json_at(arr, 0), "time_start_ns"), RF_BOOT_NS + 100);
	assert_int_equal(rf_u64(json_at(arr, 0), "time_end_ns"), RF_BOOT_NS + 100);
	expect_window(arr, 1, &win_crash, "crash", "SIGSEGV");
	json_free(doc);
}

/* A trigger seen after part of its pre-roll was written: the window starts
 * later, and lost counts the records it wanted before first_pos too. */
static void test_windows_lost_may_count_a_pre_roll_cut_short(void **state)
{
	struct ada_meta_window cut = win_func; /* kept 3 of 1..4; position 0 was written */
	const struct json_value *arr;
	struct json_doc *doc;

	(void)state;
	cut.lost = 2;
	meta_threads();
	window(&cut, "func:leaf", 9);
	finish_trace(N1);
	doc = converted_windows(1, &arr);
	expect_window(arr, 0, &cut, "func", "func:leaf");
	json_free(doc);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_windows_reach_the_manifest_in_file_order_with_every_field),
		T(test_windows_label_is_json_escaped),
		T(test_windows_absent_convert_exactly_as_before),
		T(test_windows_nested_and_overlapping_count_their_own_details),
		T(test_windows_times_are_the_events_at_their_edges),
		T(test_windows_lost_may_count_a_pre_roll_cut_short),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
