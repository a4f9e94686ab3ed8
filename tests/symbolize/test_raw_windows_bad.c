/* test_raw_windows_bad.c - a WINDOW record that contradicts itself or the
 * thread file is refused with one line naming the file and what is wrong,
 * and the conversion fails (ada-symbolize exits 1): a thread with no THREAD
 * record or no file, first_pos > last_pos, an unknown trigger, more records
 * kept than the window has events or kept and lost than positions from 0
 * hold, a NUL in the label, a short record, positions the thread file does
 * not hold, a kept count other than the DETAIL records the file holds
 * there. --check of converted ATF names a manifest window that contradicts
 * itself or its thread's index.atf.
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

/* ---- refused -------------------------------------------------------------------------- */

/* The trace with one more WINDOW record, `win` with `label`, after the
 * three good ones: the conversion fails with exactly `line` (the %zu in it
 * is the record's offset), prefixed with the meta file's path unless
 * `thread_file` names the thread file it is about. */
static void expect_window_refused(const struct ada_meta_window *win, const char *label,
				  size_t label_len, int thread_file, const char *line)
{
	char want[1200], what[768], file[300];
	size_t off;

	meta_threads();
	three_windows();
	off = window(win, label, label_len);
	finish_trace(N1);
	if (thread_file >= 0)
		snprintf(file, sizeof(file), "%s/thread_%d.lz4", w->t.raw, thread_file);
	else
		snprintf(file, sizeof(file), "%s", w->t.meta);
	snprintf(what, sizeof(what), line, off);
	snprintf(want, sizeof(want), "ada-symbolize: %s: %s\n", file, what);
	assert_int_equal(convert(), -EINVAL); /* ada-symbolize exits 1 */
	assert_string_equal(w->err, want);
}

#define META (-1)

static void test_windows_of_a_thread_without_thread_record_are_refused(void **state)
{
	struct ada_meta_window win = win_func;

	(void)state;
	win.ordinal = 7;
	expect_window_refused(&win, "x", 1, META,
			      "corrupt record (type 17) at offset %zu: window of thread 7, which has no THREAD record");
}

static void test_windows_first_after_last_are_refused(void **state)
{
	struct ada_meta_window win = win_func;

	(void)state;
	win.first_pos = 5;
	win.last_pos = 4;
	expect_window_refused(&win, "x", 1, META,
			      "corrupt record (type 17, 73 bytes) at offset %zu: window of thread 0: first_pos 5 > last_pos 4");
}

static void test_windows_unknown_trigger_is_refused(void **state)
{
	struct ada_meta_window win = win_func;

	(void)state;
	win.trigger = 8;
	expect_window_refused(&win, "x", 1, META,
			      "corrupt record (type 17, 73 bytes) at offset %zu: window of thread 0: trigger 8, expected 1..7 (func..end)");
}

static void test_windows_trigger_zero_is_refused(void **state)
{
	struct ada_meta_window win = win_func;

	(void)state;
	win.trigger = 0;
	expect_window_refused(&win, "x", 1, META,
			      "corrupt record (type 17, 73 bytes) at offset %zu: window of thread 0: trigger 0, expected 1..7 (func..end)");
}

static void test_windows_more_kept_than_events_are_refused(void **state)
{
	struct ada_meta_window win = win_func; /* positions 1..4: 4 events */

	(void)state;
	win.kept = 5;
	win.lost = 0;
	expect_window_refused(&win, "x", 1, META,
			      "corrupt record (type 17, 73 bytes) at offset %zu: window of thread 0: kept 5 detail records, more than positions 1..4 hold events");
}

/* lost may count a pre-roll cut short, before first_pos, but not before
 * position 0. */
static void test_windows_more_kept_and_lost_than_positions_from_0_are_refused(void **state)
{
	struct ada_meta_window win = win_func;

	(void)state;
	win.kept = 3;
	win.lost = 3;
	expect_window_refused(&win, "x", 1, META,
			      "corrupt record (type 17, 73 bytes) at offset %zu: window of thread 0: kept 3 + lost 3 detail records, more than positions 0..4 hold events");
}

/* kept + lost overflowing 64 bits is still more. */
static void test_windows_details_overflowing_are_refused(void **state)
{
	struct ada_meta_window win = win_func;

	(void)state;
	win.kept = 1;
	win.lost = UINT64_MAX;
	expect_window_refused(&win, "x", 1, META,
			      "corrupt record (type 17, 73 bytes) at offset %zu: window of thread 0: kept 1 + lost 18446744073709551615 detail records, more than positions 0..4 hold events");
}

static void test_windows_nul_in_label_is_refused(void **state)
{
	(void)state;
	expect_window_refused(&win_func, "ab\0c", 4, META,
			      "corrupt record (type 17, 76 bytes) at offset %zu: window of thread 0: a NUL byte in its label");
}

static void test_windows_short_record_is_refused(void **state)
{
	char line[400];
	size_t off;

	(void)state;
	meta_threads();
	off = w->meta.len;
	rf_meta_record(&w->meta, ADA_META_WINDOW, &win_func, 40, NULL, 0);
	finish_trace(N1);
	snprintf(line, sizeof(line), "ada-symbolize: %s: corrupt record (type 17, 40 bytes) at offset %zu\n",
		 w->t.meta, off);
	assert_int_equal(convert(), -EINVAL);
	assert_string_equal(w->err, line);
}

/* Thread 0's file holds positions 0..7. */
static void test_windows_beyond_the_thread_file_are_refused(void **state)
{
	struct ada_meta_window win = win_crash;

	(void)state;
	win.last_pos = 8;
	expect_window_refused(&win, "x", 1, 0,
			      "process.meta's window at offset %zu covers positions 5..8, but the file holds 8 positions");
}

/* Thread 0 holds DETAIL records at positions 1, 2 and 3 of 1..4. */
static void test_windows_kept_other_than_the_details_in_the_file_are_refused(void **state)
{
	struct ada_meta_window win = win_func;

	(void)state;
	win.kept = 2;
	win.lost = 2;
	expect_window_refused(&win, "x", 1, 0,
			      "3 DETAIL records at positions 1..4, but process.meta's window at offset %zu says 2 were kept");
}

/* Thread 1 recorded nothing (THREAD_END: no events): no file, no position. */
static void test_windows_of_a_thread_without_file_are_refused(void **state)
{
	char path[300], want[600];
	size_t off;

	(void)state;
	meta_threads();
	window(&win_func, "func:leaf", 9);
	off = window(&win_mark, mark_label, sizeof(mark_label) - 1);
	finish_trace(0);
	snprintf(path, sizeof(path), "%s/thread_1.lz4", w->t.raw);
	snprintf(want, sizeof(want), "ada-symbolize: %s: missing, but process.meta's window at offset %zu covers positions 2..5\n",
		 path, off);
	assert_int_equal(convert(), -EINVAL);
	assert_string_equal(w->err, want);
}

/* ---- --check of the manifest's windows ------------------------------------------ */

/* The good trace converted, then `from` replaced by `to` in its manifest:
 * --check finds exactly one violation, `line` about `file`. */
static void expect_check_violation(const char *from, const char *to, const char *file,
				   const char *line)
{
	char path[300], want[600], *text = NULL, *at;
	size_t len, out_len = 0;
	uint8_t *m;
	FILE *out;
	int violations = -1;

	write_trace(true);
	assert_int_equal(convert(), 0);
	snprintf(path, sizeof(path), "%s/manifest.json", w->t.pid_dir);
	m = rf_read_file(path, &len);
	m[len] = '\0'; /* rf_read_file leaves room for it */
	at = strstr((char *)m, from);
	assert_non_null(at);
	out = fopen(path, "w");
	assert_non_null(out);
	fprintf(out, "%.*s%s%s", (int)(at - (char *)m), (char *)m, to, at + strlen(from));
	assert_int_equal(fclose(out), 0);
	free(m);
	out = open_memstream(&text, &out_len);
	assert_int_equal(ada_check_path(w->t.pid_dir, out, &violations), 0);
	fclose(out);
	snprintf(want, sizeof(want), "%s/%s: %s\n", w->t.pid_dir, file, line);
	if (violations != 1 || strncmp(text, want, strlen(want)))
		fail_msg("want 1 violation \"%s\", got %d:\n%s", want, violations, text);
	free(text);
}

/* Positions 1..4 of thread 0 hold 3 events with a detail record. */
static void test_windows_check_kept_beyond_the_detail_events_in_its_times(void **state)
{
	(void)state;
	expect_check_violation("\"details_kept\": 3, \"details_lost\": 1",
			       "\"details_kept\": 4, \"details_lost\": 0", "thread_0/index.atf",
			       "windows[0]: details_kept 4, but 3 events with a detail record in its times");
}

static void test_windows_check_times_outside_the_threads_events(void **state)
{
	(void)state;
	expect_check_violation("\"time_end_ns\": 5000000170", "\"time_end_ns\": 5000000171",
			       "thread_0/index.atf",
			       "windows[2]: times 5000000150..5000000171 outside the thread's events 5000000100..5000000170");
}

static void test_windows_check_thread_not_listed(void **state)
{
	(void)state;
	expect_check_violation("\"thread\": 1,", "\"thread\": 5,", "manifest.json",
			       "windows[1]: thread 5 is not in \"threads\"");
}

static void test_windows_check_unknown_trigger(void **state)
{
	(void)state;
	expect_check_violation("\"trigger\": \"crash\"", "\"trigger\": \"boom\"", "manifest.json",
			       "windows[2]: trigger is not func, duration, signal, crash, mark, snapshot or end");
}

static void test_windows_check_first_after_last(void **state)
{
	(void)state;
	expect_check_violation("\"first_position\": 5,", "\"first_position\": 8,", "manifest.json",
			       "windows[2]: first_position 8 > last_position 7");
}

static void test_windows_check_more_details_than_events(void **state)
{
	(void)state;
	expect_check_violation("\"details_lost\": 0", "\"details_lost\": 5", "manifest.json",
			       "windows[1]: details_kept 2 + details_lost 5 do not fit its positions 2..5");
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_windows_of_a_thread_without_thread_record_are_refused),
		T(test_windows_first_after_last_are_refused),
		T(test_windows_unknown_trigger_is_refused),
		T(test_windows_trigger_zero_is_refused),
		T(test_windows_more_kept_than_events_are_refused),
		T(test_windows_more_kept_and_lost_than_positions_from_0_are_refused),
		T(test_windows_details_overflowing_are_refused),
		T(test_windows_nul_in_label_is_refused),
		T(test_windows_short_record_is_refused),
		T(test_windows_beyond_the_thread_file_are_refused),
		T(test_windows_kept_other_than_the_details_in_the_file_are_refused),
		T(test_windows_of_a_thread_without_file_are_refused),
		T(test_windows_check_kept_beyond_the_detail_events_in_its_times),
		T(test_windows_check_times_outside_the_threads_events),
		T(test_windows_check_thread_not_listed),
		T(test_windows_check_unknown_trigger),
		T(test_windows_check_first_after_last),
		T(test_windows_check_more_details_than_events),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
