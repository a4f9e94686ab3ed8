/* test_raw_windows.c - the detail windows that process.meta's WINDOW records
 * describe (RAW_FORMAT.md §2.3) reach the manifest's "windows" array, one
 * object per record in file order, every field as recorded (the thread's
 * ATF id, the trigger's name, the label JSON-escaped, positions, times
 * converted as the events', detail records kept and lost, triggers). A
 * WINDOW record that contradicts itself or the thread file is refused with
 * one line naming the file and what is wrong, and the conversion fails
 * (ada-symbolize exits 1): a thread with no THREAD record, first_pos >
 * last_pos, an unknown trigger, more records kept and lost than the window
 * has events, a NUL in the label, a short record, positions the thread file
 * does not hold, a kept count other than the DETAIL records the file holds
 * there. A trace without WINDOW records converts exactly as before.
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

#include "convert.h"
#include "raw_fixture.h"

#define PID 6161u

enum { FA = 0x401000, FB = 0x402000, FC = 0x403000 }; /* symbols 1, 2, 3 */
static const uint64_t addrs[] = { FA, FB, FC };

struct world {
	struct rf_trace t;
	struct rf_meta meta;
	char err[4096]; /* what the conversion said on stderr */
};

static struct world *w;

static int setup(void **state)
{
	(void)state;
	w = calloc(1, sizeof(*w));
	assert_non_null(w);
	rf_trace_make(&w->t, "/tmp/ada_test_windows_XXXXXX", PID);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	rf_remove_tree(w->t.root);
	free(w);
	return 0;
}

/* ---- the raw trace ------------------------------------------------------------------ */

/* One event of a thread; seed != 0: it has a DETAIL record. */
struct step {
	uint64_t tsc;
	unsigned kind;
	uint64_t addr;
	unsigned seed;
};

/* Thread 0, positions 0..7 in two frames (0..3, 4..7): main → work → leaf,
 * then work again; details at positions 1, 2, 3, 5, 6. */
static const struct step thread0[] = {
	{ 100, ADA_RAW_CALL, FA, 0 },  { 110, ADA_RAW_CALL, FB, 1 },
	{ 120, ADA_RAW_CALL, FC, 2 },  { 130, ADA_RAW_RETURN, FC, 3 },
	{ 140, ADA_RAW_RETURN, FB, 0 }, { 150, ADA_RAW_CALL, FB, 4 },
	{ 160, ADA_RAW_RETURN, FB, 5 }, { 170, ADA_RAW_RETURN, FA, 0 },
};
/* Thread 1, positions 0..5 in one frame; details at positions 2 and 4. */
static const struct step thread1[] = {
	{ 200, ADA_RAW_CALL, FA, 0 },   { 210, ADA_RAW_CALL, FB, 0 },
	{ 220, ADA_RAW_CALL, FC, 6 },   { 230, ADA_RAW_RETURN, FC, 0 },
	{ 240, ADA_RAW_RETURN, FB, 7 }, { 250, ADA_RAW_RETURN, FA, 0 },
};
#define N0 (sizeof(thread0) / sizeof(thread0[0]))
#define N1 (sizeof(thread1) / sizeof(thread1[0]))

/* Thread tid's events, frame_len to a frame, and their DETAIL records. */
static void write_thread(uint32_t tid, const struct step *steps, size_t n, size_t frame_len)
{
	struct ada_enc_stream enc = { 0 };
	struct ada_fdict dict;
	struct rf_frame *f = calloc(1, sizeof(*f));
	uint8_t stack[16];
	char path[300];

	assert_non_null(f);
	rf_fdict_init(&dict, addrs, 3);
	snprintf(path, sizeof(path), "%s/thread_%u.lz4", w->t.raw, tid);
	for (size_t i = 0; i < n; i++) {
		if (i % frame_len == 0)
			rf_sync(f, &enc, steps[i].tsc);
		rf_event(f, &enc, &dict, steps[i].tsc, steps[i].kind, steps[i].addr);
		if (steps[i].seed) {
			struct ada_raw_detail d;

			rf_make_detail(steps[i].seed, sizeof(stack), &d, stack);
			rf_detail(f, &d, stack);
		}
		if (i % frame_len == frame_len - 1 || i == n - 1)
			rf_append(path, f);
	}
	ada_enc_stream_free(&enc);
	ada_fdict_free(&dict);
	free(f);
}

static void hooked(uint64_t addr, const char *name)
{
	struct ada_meta_hooked h = { .addr = addr };

	rf_meta_record(&w->meta, ADA_META_HOOKED, &h, sizeof(h), name, strlen(name) + 1);
}

/* process.meta up to the threads' ends: two threads. */
static void meta_threads(void)
{
	struct ada_meta_funcs fs = { 1, 3 };

	rf_meta_begin(&w->meta, PID);
	hooked(FA, "main");
	hooked(FB, "work");
	hooked(FC, "leaf");
	rf_meta_record(&w->meta, ADA_META_FUNCS, &fs, sizeof(fs), addrs, sizeof(addrs));
	for (uint32_t tid = 0; tid < 2; tid++) {
		struct ada_meta_thread t = { .ordinal = tid, .os_tid = PID + tid, .name = "prog" };

		rf_meta_record(&w->meta, ADA_META_THREAD, &t, sizeof(t), NULL, 0);
	}
}

/* The threads' ends, thread 1 having written `events1` events. */
static void meta_end(uint64_t events1)
{
	struct ada_meta_thread_end e0 = { .ordinal = 0, .flags = ADA_TEND_EXITED, .end_tsc = 180,
					  .events = N0, .dropped[ADA_DROP_DETAIL_FULL] = 3 };
	struct ada_meta_thread_end e1 = { .ordinal = 1, .flags = ADA_TEND_EXITED, .end_tsc = 260,
					  .events = events1,
					  .dropped[ADA_DROP_DETAIL_FULL] = events1 ? 4 : 0 };
	struct ada_meta_end end = { .end_tsc = 300, .end_boottime_ns = RF_BOOT_NS + 300 };

	rf_meta_record(&w->meta, ADA_META_THREAD_END, &e0, sizeof(e0), NULL, 0);
	rf_meta_record(&w->meta, ADA_META_THREAD_END, &e1, sizeof(e1), NULL, 0);
	rf_meta_record(&w->meta, ADA_META_END, &end, sizeof(end), NULL, 0);
}

/* A WINDOW record; returns its offset in process.meta. */
static size_t window(const struct ada_meta_window *win, const char *label, size_t label_len)
{
	size_t off = w->meta.len;

	rf_meta_record(&w->meta, ADA_META_WINDOW, win, sizeof(*win), label, label_len);
	return off;
}

/* The three windows the runtime would write, in the order they closed:
 * thread 0's around leaf (a func trigger), thread 1's (two marks
 * coalesced), thread 0's at the end (crash). */
static const struct ada_meta_window win_func = {
	.ordinal = 0, .trigger = ADA_TRIG_FUNC, .trigger_pos = 2, .first_pos = 1, .last_pos = 4,
	.first_tsc = 110, .last_tsc = 140, .kept = 3, .lost = 1, .triggers = 1,
};
static const struct ada_meta_window win_mark = {
	.ordinal = 1, .trigger = ADA_TRIG_MARK, .trigger_pos = 3, .first_pos = 2, .last_pos = 5,
	.first_tsc = 220, .last_tsc = 250, .kept = 2, .lost = 0, .triggers = 2,
};
static const struct ada_meta_window win_crash = {
	.ordinal = 0, .trigger = ADA_TRIG_CRASH, .trigger_pos = 7, .first_pos = 5, .last_pos = 7,
	.first_tsc = 150, .last_tsc = 170, .kept = 2, .lost = 1, .triggers = 1,
};
static const char mark_label[] = "say \"hi\"\\\n\x01 \xc3\xa9"; /* quote, backslash, controls, é */

static void write_trace(bool windows)
{
	meta_threads();
	if (windows) {
		window(&win_func, "func:leaf", 9);
		window(&win_mark, mark_label, sizeof(mark_label) - 1);
		window(&win_crash, "SIGSEGV", 7);
	}
	meta_end(N1);
	rf_write_file(w->t.meta, w->meta.buf, w->meta.len);
	write_thread(0, thread0, N0, 4);
	write_thread(1, thread1, N1, N1);
}

/* convert_process on the trace: its return; stderr in w->err. */
static int convert(void)
{
	return rf_convert(w->t.pid_dir, w->err, sizeof(w->err));
}

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

static void test_windows_reach_the_manifest_in_file_order_with_every_field(void **state)
{
	const struct json_value *arr;
	struct json_doc *doc;

	(void)state;
	write_trace(true);
	assert_int_equal(convert(), 0);
	assert_string_equal(w->err, "");
	rf_expect_valid(w->t.pid_dir);
	doc = rf_manifest(w->t.pid_dir);
	arr = json_get(json_root(doc), "windows");
	assert_non_null(arr);
	assert_int_equal(arr->type, JSON_ARRAY);
	assert_int_equal(json_count(arr), 3);
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
	meta_end(N1);
	rf_write_file(w->t.meta, w->meta.buf, w->meta.len);
	write_thread(0, thread0, N0, 4);
	write_thread(1, thread1, N1, N1);
	assert_int_equal(convert(), 0);
	assert_string_equal(w->err, "");
	rf_expect_valid(w->t.pid_dir);
	doc = rf_manifest(w->t.pid_dir);
	arr = json_get(json_root(doc), "windows");
	assert_int_equal(json_count(arr), 3);
	expect_window(arr, 0, &across, "snapshot", "");
	expect_window(arr, 1, &outer, "signal", "SIGUSR1");
	expect_window(arr, 2, &inner, "mark", "in");
	json_free(doc);
}

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
	window(&win_func, "func:leaf", 9);
	window(&win_mark, mark_label, sizeof(mark_label) - 1);
	window(&win_crash, "SIGSEGV", 7);
	off = window(win, label, label_len);
	meta_end(N1);
	rf_write_file(w->t.meta, w->meta.buf, w->meta.len);
	write_thread(0, thread0, N0, 4);
	write_thread(1, thread1, N1, N1);
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
	win.trigger = 7;
	expect_window_refused(&win, "x", 1, META,
			      "corrupt record (type 17, 73 bytes) at offset %zu: window of thread 0: trigger 7, expected 1..6 (func..snapshot)");
}

static void test_windows_trigger_zero_is_refused(void **state)
{
	struct ada_meta_window win = win_func;

	(void)state;
	win.trigger = 0;
	expect_window_refused(&win, "x", 1, META,
			      "corrupt record (type 17, 73 bytes) at offset %zu: window of thread 0: trigger 0, expected 1..6 (func..snapshot)");
}

static void test_windows_more_details_than_events_are_refused(void **state)
{
	struct ada_meta_window win = win_func; /* positions 1..4: 4 events */

	(void)state;
	win.kept = 3;
	win.lost = 2;
	expect_window_refused(&win, "x", 1, META,
			      "corrupt record (type 17, 73 bytes) at offset %zu: window of thread 0: kept 3 + lost 2 detail records, more than positions 1..4 hold events");
}

/* kept + lost overflowing 64 bits is still more than the events. */
static void test_windows_details_overflowing_are_refused(void **state)
{
	struct ada_meta_window win = win_func;

	(void)state;
	win.kept = UINT64_MAX;
	win.lost = 2;
	expect_window_refused(&win, "x", 1, META,
			      "corrupt record (type 17, 73 bytes) at offset %zu: window of thread 0: kept 18446744073709551615 + lost 2 detail records, more than positions 1..4 hold events");
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
	meta_end(N1);
	rf_write_file(w->t.meta, w->meta.buf, w->meta.len);
	write_thread(0, thread0, N0, 4);
	write_thread(1, thread1, N1, N1);
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
	meta_end(0);
	rf_write_file(w->t.meta, w->meta.buf, w->meta.len);
	write_thread(0, thread0, N0, 4);
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
			       "windows[2]: trigger is not func, duration, signal, crash, mark or snapshot");
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
	expect_check_violation("\"details_lost\": 0", "\"details_lost\": 3", "manifest.json",
			       "windows[1]: details_kept 2 + details_lost 3, more than positions 2..5 hold events");
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_windows_reach_the_manifest_in_file_order_with_every_field),
		T(test_windows_label_is_json_escaped),
		T(test_windows_absent_convert_exactly_as_before),
		T(test_windows_nested_and_overlapping_count_their_own_details),
		T(test_windows_of_a_thread_without_thread_record_are_refused),
		T(test_windows_first_after_last_are_refused),
		T(test_windows_unknown_trigger_is_refused),
		T(test_windows_trigger_zero_is_refused),
		T(test_windows_more_details_than_events_are_refused),
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
