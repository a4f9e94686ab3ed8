/* test_corrupt.c - a raw trace whose files contradict what the writer
 * recorded is refused, never converted with whatever could be read: the
 * events a THREAD_END counts against the events (and SKIP positions) read,
 * its drop totals against the stream's LOST notes, a thread file cut inside
 * a frame after a clean exit (a killed process may leave one), a meta record
 * size no writer writes, a second PROCESS or THREAD record, latency buckets
 * that do not add up to their samples, events with no CLOCK pair to time
 * them, a thread file process.meta does not list. Each is
 * one line on stderr naming the file and the numbers, and convert_process
 * fails.
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

#define PID 5151u

enum { FA = 0x401000, FB = 0x402000 }; /* symbols 1, 2 */
static const uint64_t addrs[] = { FA, FB };

struct world {
	struct rf_trace t;
	struct rf_meta meta;
	char thread0[300];
	char err[4096];     /* what the conversion said on stderr */
	size_t frame_end[4]; /* where each frame of thread 0 ends in its file */
};

static struct world *w;

static int setup(void **state)
{
	(void)state;
	w = calloc(1, sizeof(*w));
	assert_non_null(w);
	rf_trace_make(&w->t, "/tmp/ada_test_corrupt_XXXXXX", PID);
	snprintf(w->thread0, sizeof(w->thread0), "%s/thread_0.lz4", w->t.raw);
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

/* Thread `tid`: `frames` frames of main → work, both returning (4 events
 * each), and in the first frame a LOST note of `lost` ring_full events. */
static void write_thread(uint32_t tid, unsigned frames, uint64_t lost)
{
	struct ada_enc_stream enc = { 0 };
	struct ada_fdict dict;
	struct rf_frame *f = calloc(1, sizeof(*f));
	size_t size = 0;
	char path[300];

	assert_non_null(f);
	rf_fdict_init(&dict, addrs, 2);
	snprintf(path, sizeof(path), "%s/thread_%u.lz4", w->t.raw, tid);
	for (unsigned i = 0; i < frames; i++) {
		uint64_t t = 100 * (i + 1);

		rf_sync(f, &enc, t);
		if (!i && lost)
			f->len += ada_encode_lost(ADA_DROP_RING_FULL, lost, f->buf + f->len);
		rf_event(f, &enc, &dict, t, ADA_RAW_CALL, FA);
		rf_event(f, &enc, &dict, t + 10, ADA_RAW_CALL, FB);
		rf_event(f, &enc, &dict, t + 20, ADA_RAW_RETURN, FB);
		rf_event(f, &enc, &dict, t + 30, ADA_RAW_RETURN, FA);
		size += rf_append(path, f);
		if (tid == 0 && i < 4)
			w->frame_end[i] = size;
	}
	ada_enc_stream_free(&enc);
	ada_fdict_free(&dict);
	free(f);
}

/* process.meta up to the threads: header, PROCESS, CLOCKs unless `clocks` is
 * false, FUNCS. */
static void meta_begin(bool clocks)
{
	struct ada_meta_funcs fs = { 1, 2 };

	if (clocks) {
		rf_meta_begin(&w->meta, PID);
	} else {
		struct ada_meta_process p = { .pid = PID, .ppid = 1 };

		rf_meta_header(&w->meta, ADA_META_MAGIC, ADA_RAW_VERSION, 1);
		rf_meta_record(&w->meta, ADA_META_PROCESS, &p, sizeof(p), "/prog\0prog", 11);
	}
	rf_meta_record(&w->meta, ADA_META_FUNCS, &fs, sizeof(fs), addrs, sizeof(addrs));
}

static void meta_thread(uint32_t tid)
{
	struct ada_meta_thread t = { .ordinal = tid, .os_tid = PID + tid, .name = "prog" };

	rf_meta_record(&w->meta, ADA_META_THREAD, &t, sizeof(t), NULL, 0);
}

/* THREAD_END of thread `tid`: `events` written, `lost` ring_full. */
static void meta_thread_end(uint32_t tid, uint64_t events, uint64_t lost)
{
	struct ada_meta_thread_end e = { .ordinal = tid, .flags = ADA_TEND_EXITED,
					 .end_tsc = 1000, .events = events,
					 .dropped = { [ADA_DROP_RING_FULL] = lost } };

	rf_meta_record(&w->meta, ADA_META_THREAD_END, &e, sizeof(e), NULL, 0);
}

static void meta_end(void)
{
	struct ada_meta_end end = { .end_tsc = 2000, .end_boottime_ns = RF_BOOT_NS + 2000 };

	rf_meta_record(&w->meta, ADA_META_END, &end, sizeof(end), NULL, 0);
}

/* Thread 0 of `frames` frames with a LOST note of `stream_lost` in the
 * first, and process.meta: CLOCKs if `clocks`, its THREAD, a THREAD_END of
 * `events` and `meta_lost` unless `events` is NO_END, END if `end`. */
#define NO_END UINT64_MAX

static void trace(bool clocks, unsigned frames, uint64_t events, uint64_t meta_lost,
		  uint64_t stream_lost, bool end)
{
	meta_begin(clocks);
	meta_thread(0);
	if (events != NO_END)
		meta_thread_end(0, events, meta_lost);
	if (end)
		meta_end();
	rf_write_file(w->t.meta, w->meta.buf, w->meta.len);
	write_thread(0, frames, stream_lost);
}

/* A clean run: thread 0 of `frames` frames, THREAD_END saying `events`. */
static void clean_trace(unsigned frames, uint64_t events)
{
	trace(true, frames, events, 0, 0, true);
}

/* convert_process on the trace: its return; stderr in w->err. */
static int convert(void)
{
	return rf_convert(w->t.pid_dir, w->err, sizeof(w->err));
}

/* The conversion fails with exactly this line. */
static void expect_refused(const char *line)
{
	char want[1024];

	assert_int_equal(convert(), -EINVAL);
	snprintf(want, sizeof(want), "ada-symbolize: %s\n", line);
	assert_string_equal(w->err, want);
}

static void cut_thread0(size_t len)
{
	assert_int_equal(truncate(w->thread0, (off_t)len), 0);
}

/* ---- THREAD_END against the thread file ---------------------------------------------- */

static void test_corrupt_whole_file_matching_thread_end_converts(void **state)
{
	(void)state;
	clean_trace(3, 12);
	assert_int_equal(convert(), 0);
	assert_string_equal(w->err, "");
	rf_expect_valid(w->t.pid_dir);
}

static void test_corrupt_frames_missing_at_the_end_are_refused_with_both_counts(void **state)
{
	char line[512];

	(void)state;
	clean_trace(3, 12);
	cut_thread0(w->frame_end[1]); /* the third frame is gone, whole */
	snprintf(line, sizeof(line),
		 "%s: 8 events read, but process.meta's THREAD_END says 12 were written", w->thread0);
	expect_refused(line);
}

static void test_corrupt_more_events_than_thread_end_says_are_refused(void **state)
{
	char line[512];

	(void)state;
	clean_trace(3, 4);
	snprintf(line, sizeof(line),
		 "%s: 12 events read, but process.meta's THREAD_END says 4 were written", w->thread0);
	expect_refused(line);
}

static void test_corrupt_lost_notes_beyond_thread_end_drops_are_refused(void **state)
{
	char line[512];

	(void)state;
	trace(true, 2, 8, 5, 7, true);
	snprintf(line, sizeof(line),
		 "%s: LOST notes count 7 events ring_full, but process.meta's THREAD_END says 5 in all",
		 w->thread0);
	expect_refused(line);
}

/* ---- a thread file cut inside a frame ----------------------------------------------- */

static void test_corrupt_cut_inside_a_frame_after_a_clean_exit_names_file_and_offset(void **state)
{
	char line[512];

	(void)state;
	clean_trace(3, 12);
	cut_thread0(w->frame_end[2] - 5); /* inside the third frame */
	snprintf(line, sizeof(line),
		 "%s: cut short inside the frame at byte %zu (the file ends at byte %zu), though the process ended cleanly (END in process.meta)",
		 w->thread0, w->frame_end[1], w->frame_end[2] - 5);
	expect_refused(line);
}

static void test_corrupt_cut_inside_a_frame_of_an_ended_thread_is_refused(void **state)
{
	char line[512];

	(void)state;
	trace(true, 3, 12, 0, 0, false); /* no END: killed, after thread 0 ended */
	cut_thread0(w->frame_end[2] - 5);
	snprintf(line, sizeof(line),
		 "%s: cut short inside the frame at byte %zu (the file ends at byte %zu), though process.meta records the thread's end (THREAD_END)",
		 w->thread0, w->frame_end[1], w->frame_end[2] - 5);
	expect_refused(line);
}

/* The events of thread 0's first two frames. */
static const struct rf_want two_frames[] = {
	{ ATF_CALL, 100, 1, 1 }, { ATF_CALL, 110, 2, 2 },
	{ ATF_RETURN, 120, 2, 2 }, { ATF_RETURN, 130, 1, 1 },
	{ ATF_CALL, 200, 1, 1 }, { ATF_CALL, 210, 2, 2 },
	{ ATF_RETURN, 220, 2, 2 }, { ATF_RETURN, 230, 1, 1 },
};

/* What a SIGKILL leaves: no END, no THREAD_END, a frame half written. */
static void test_corrupt_cut_inside_a_frame_of_a_killed_process_converts_the_whole_frames(void **state)
{
	(void)state;
	trace(true, 3, NO_END, 0, 0, false);
	cut_thread0(w->frame_end[2] - 5);
	assert_int_equal(convert(), 0);
	assert_string_equal(w->err, "");
	rf_expect_index(w->t.pid_dir, 0, two_frames, sizeof(two_frames) / sizeof(two_frames[0]));
	rf_expect_valid(w->t.pid_dir);
}

/* An exec's END: the writer went on draining running threads until the exec
 * replaced the image, and may have been stopped inside a write. */
static void test_corrupt_cut_inside_a_frame_after_an_exec_converts_the_whole_frames(void **state)
{
	struct ada_meta_end end = { .end_tsc = 2000, .end_boottime_ns = RF_BOOT_NS + 2000,
				    .how = ADA_END_EXEC };

	(void)state;
	meta_begin(true);
	meta_thread(0);
	rf_meta_record(&w->meta, ADA_META_END, &end, sizeof(end), NULL, 0);
	rf_write_file(w->t.meta, w->meta.buf, w->meta.len);
	write_thread(0, 3, 0);
	cut_thread0(w->frame_end[2] - 5);
	assert_int_equal(convert(), 0);
	assert_string_equal(w->err, "");
	rf_expect_index(w->t.pid_dir, 0, two_frames, sizeof(two_frames) / sizeof(two_frames[0]));
	rf_expect_valid(w->t.pid_dir);
}

/* ---- process.meta ------------------------------------------------------------------ */

/* Three threads; the second THREAD record's size is patched to `size`. */
static size_t three_threads_with_a_record_size(uint32_t size)
{
	size_t off;

	meta_begin(true);
	meta_thread(0);
	off = w->meta.len;
	meta_thread(1);
	meta_thread(2);
	for (uint32_t tid = 0; tid < 3; tid++)
		meta_thread_end(tid, 4, 0);
	meta_end();
	memcpy(w->meta.buf + off + 4, &size, 4);
	rf_write_file(w->t.meta, w->meta.buf, w->meta.len);
	for (uint32_t tid = 0; tid < 3; tid++)
		write_thread(tid, 1, 0);
	return off;
}

static void test_corrupt_record_size_larger_than_any_record_names_file_offset_and_size(void **state)
{
	char line[512];
	size_t off;

	(void)state;
	off = three_threads_with_a_record_size(0xfffffff0u);
	snprintf(line, sizeof(line),
		 "%s: corrupt record (type 5) at offset %zu: size 4294967280 (0xfffffff0), larger than any record (67108864 bytes at most)",
		 w->t.meta, off);
	expect_refused(line);
}

/* A size that runs past the end but could be a record cut by a crash ends
 * the file there; the thread files it left unlisted are refused. */
static void test_corrupt_thread_file_without_thread_record_is_refused(void **state)
{
	char line[512];

	(void)state;
	three_threads_with_a_record_size(1u << 20);
	snprintf(line, sizeof(line),
		 "%s/thread_1.lz4: process.meta has no THREAD record of thread 1", w->t.raw);
	assert_int_equal(convert(), -EINVAL);
	/* thread_1 and thread_2, in directory order */
	assert_non_null(strstr(w->err, line));
	assert_int_equal(count_lines(w->err), 2);
}

/* Thread 0 registered, then a record that may come once only, again:
 * refused naming its offset and `what`. */
static void expect_second_record_refused(uint32_t type, const void *payload, size_t len,
					 const void *extra, size_t extra_len, const char *what)
{
	char line[512];
	size_t off;

	meta_begin(true);
	meta_thread(0);
	off = w->meta.len;
	rf_meta_record(&w->meta, type, payload, len, extra, extra_len);
	rf_write_file(w->t.meta, w->meta.buf, w->meta.len);
	write_thread(0, 1, 0);
	snprintf(line, sizeof(line), "%s: corrupt record (type %u) at offset %zu: a second %s",
		 w->t.meta, type, off, what);
	expect_refused(line);
}

static void test_corrupt_second_process_record_is_refused_and_nothing_leaks(void **state)
{
	struct ada_meta_process p = { .pid = PID + 1, .ppid = 1 };

	(void)state;
	/* LeakSanitizer fails the test if the first one's exe or cmdline leaked. */
	expect_second_record_refused(ADA_META_PROCESS, &p, sizeof(p), "/other\0other\0x", 15,
				     "PROCESS record");
}

static void test_corrupt_second_thread_record_of_a_thread_is_refused(void **state)
{
	struct ada_meta_thread t = { .ordinal = 0, .os_tid = PID + 7 };

	(void)state;
	expect_second_record_refused(ADA_META_THREAD, &t, sizeof(t), NULL, 0,
				     "THREAD record of its thread");
}

/* The manifest's quantiles read the buckets against the samples. */
static void test_corrupt_latency_buckets_not_adding_up_to_the_samples_are_refused(void **state)
{
	static struct ada_meta_latency l = { .samples = 10, .max_ticks = 40,
					     .counts = { [3] = 4, [20] = 5 } };
	char line[512];
	size_t off;

	(void)state;
	meta_begin(true);
	meta_thread(0);
	off = w->meta.len;
	rf_meta_record(&w->meta, ADA_META_LATENCY, &l, sizeof(l), NULL, 0);
	rf_write_file(w->t.meta, w->meta.buf, w->meta.len);
	write_thread(0, 1, 0);
	snprintf(line, sizeof(line), "%s: corrupt record (type 9, %zu bytes) at offset %zu",
		 w->t.meta, sizeof(l), off);
	expect_refused(line);
}

static void test_corrupt_events_without_clock_records_are_refused(void **state)
{
	char line[512];

	(void)state;
	trace(false, 1, 4, 0, 0, true);
	snprintf(line, sizeof(line),
		 "%s/process.meta: no CLOCK record, so the 4 events of thread 0 have no time",
		 w->t.raw);
	expect_refused(line);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_corrupt_whole_file_matching_thread_end_converts),
		T(test_corrupt_frames_missing_at_the_end_are_refused_with_both_counts),
		T(test_corrupt_more_events_than_thread_end_says_are_refused),
		T(test_corrupt_lost_notes_beyond_thread_end_drops_are_refused),
		T(test_corrupt_cut_inside_a_frame_after_a_clean_exit_names_file_and_offset),
		T(test_corrupt_cut_inside_a_frame_of_an_ended_thread_is_refused),
		T(test_corrupt_cut_inside_a_frame_of_a_killed_process_converts_the_whole_frames),
		T(test_corrupt_cut_inside_a_frame_after_an_exec_converts_the_whole_frames),
		T(test_corrupt_record_size_larger_than_any_record_names_file_offset_and_size),
		T(test_corrupt_thread_file_without_thread_record_is_refused),
		T(test_corrupt_second_process_record_is_refused_and_nothing_leaks),
		T(test_corrupt_second_thread_record_of_a_thread_is_refused),
		T(test_corrupt_latency_buckets_not_adding_up_to_the_samples_are_refused),
		T(test_corrupt_events_without_clock_records_are_refused),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
