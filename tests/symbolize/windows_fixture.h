/* windows_fixture.h - a raw trace with detail windows, for the tests of
 * the symbolizer's WINDOW records (test_raw_windows.c, the manifest;
 * test_raw_windows_bad.c, what is refused): two threads of known events and
 * DETAIL records, and the three windows the runtime would write for them.
 */
#ifndef ADA_TEST_WINDOWS_FIXTURE_H
#define ADA_TEST_WINDOWS_FIXTURE_H

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

static inline int setup(void **state)
{
	(void)state;
	w = calloc(1, sizeof(*w));
	assert_non_null(w);
	rf_trace_make(&w->t, "/tmp/ada_test_windows_XXXXXX", PID);
	return 0;
}

static inline int teardown(void **state)
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
static inline void write_thread(uint32_t tid, const struct step *steps, size_t n, size_t frame_len)
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

static inline void hooked(uint64_t addr, const char *name)
{
	struct ada_meta_hooked h = { .addr = addr };

	rf_meta_record(&w->meta, ADA_META_HOOKED, &h, sizeof(h), name, strlen(name) + 1);
}

/* process.meta up to the threads' ends: two threads. */
static inline void meta_threads(void)
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
static inline void meta_end(uint64_t events1)
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
static inline size_t window(const struct ada_meta_window *win, const char *label, size_t label_len)
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

/* After the WINDOW records: the threads' ends, thread 1 having written
 * events1 events (0: it has no file), then every file. */
static inline void finish_trace(uint64_t events1)
{
	meta_end(events1);
	rf_write_file(w->t.meta, w->meta.buf, w->meta.len);
	write_thread(0, thread0, N0, 4);
	if (events1)
		write_thread(1, thread1, N1, N1);
}

/* The three windows above, in that order. */
static inline void three_windows(void)
{
	window(&win_func, "func:leaf", 9);
	window(&win_mark, mark_label, sizeof(mark_label) - 1);
	window(&win_crash, "SIGSEGV", 7);
}

static inline void write_trace(bool windows)
{
	meta_threads();
	if (windows)
		three_windows();
	finish_trace(N1);
}

/* convert_process on the trace: its return; stderr in w->err. */
static inline int convert(void)
{
	return rf_convert(w->t.pid_dir, w->err, sizeof(w->err));
}

#endif
