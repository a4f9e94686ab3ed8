/* test_convert_end.c - frames still open where a thread's record ends are
 * closed by EXCEPTION events (ATF requires it) but told apart from real
 * unwinds: the manifest counts them (open_at_end) and says how the thread
 * ended ("exited", "running at exit", "crashed", "killed"), the summary says
 * "open at exit" / "at the crash" / "when the process was killed", and
 * --replay and --dump mark them so while a stream's own EXCEPTION stays
 * "(unwound)". A CRASH record closes the crashing thread's frames at the
 * crash (never before its last event) and is named in the manifest and the
 * summary; THREAD_END's waits reach the manifest. Every trace passes --check.
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

#include "atf.h"
#include "convert.h"
#include "json.h"
#include "raw_fixture.h"
#include "views.h"

#define PID 4545u

enum { FA = 0x401000, FB = 0x402000, FC = 0x403000 }; /* symbols 1, 2, 3 */
static const uint64_t addrs[] = { FA, FB, FC };

enum how { EXIT, CRASH, KILL };

struct world {
	struct rf_trace t;
	struct rf_meta meta;
	char out[4096]; /* the summary of the conversion */
};

static struct world *w;

static int setup(void **state)
{
	(void)state;
	w = calloc(1, sizeof(*w));
	assert_non_null(w);
	rf_trace_make(&w->t, "/tmp/ada_test_convend_XXXXXX", PID);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	rf_remove_tree(w->t.root);
	free(w);
	return 0;
}

/* ---- the raw trace ---------------------------------------------------------------- */

static void hooked(uint64_t addr, const char *name)
{
	struct ada_meta_hooked h = { .addr = addr };

	rf_meta_record(&w->meta, ADA_META_HOOKED, &h, sizeof(h), name, strlen(name) + 1);
}

/* Two threads. Thread 0 ends (THREAD_END exited, with waits) unless the
 * process crashed or was killed first; thread 1 runs to the end. */
static void write_meta(enum how how, uint64_t crash_tsc)
{
	struct ada_meta_funcs fs = { 1, 3 };
	struct ada_meta_thread t0 = { .ordinal = 0, .os_tid = PID, .name = "prog" };
	struct ada_meta_thread t1 = { .ordinal = 1, .os_tid = PID + 1, .name = "worker" };
	struct ada_meta_thread_end e0 = { .ordinal = 0, .flags = ADA_TEND_EXITED, .end_tsc = 300,
					  .events = 6, .waits = 2, .wait_ns = 1500 };
	struct ada_meta_thread_end e1 = { .ordinal = 1, .flags = ADA_TEND_FINAL, .end_tsc = 400,
					  .events = 3, .waits = 1, .wait_ns = 700 };
	struct ada_meta_crash c = { .signo = 11, .code = 1, .ordinal = 1, .os_tid = PID + 1,
				    .addr = 0xdead0, .tsc = crash_tsc };
	struct ada_meta_end end = { .end_tsc = 500, .end_boottime_ns = RF_BOOT_NS + 500 };

	rf_meta_begin(&w->meta, PID);
	hooked(FA, "main");
	hooked(FB, "work");
	hooked(FC, "leaf");
	rf_meta_record(&w->meta, ADA_META_FUNCS, &fs, sizeof(fs), addrs, sizeof(addrs));
	rf_meta_record(&w->meta, ADA_META_THREAD, &t0, sizeof(t0), NULL, 0);
	rf_meta_record(&w->meta, ADA_META_THREAD, &t1, sizeof(t1), NULL, 0);
	if (how == EXIT || how == CRASH)
		rf_meta_record(&w->meta, ADA_META_THREAD_END, &e0, sizeof(e0), NULL, 0);
	if (how == CRASH)
		rf_meta_record(&w->meta, ADA_META_CRASH, &c, sizeof(c), NULL, 0);
	if (how == EXIT) {
		rf_meta_record(&w->meta, ADA_META_THREAD_END, &e1, sizeof(e1), NULL, 0);
		rf_meta_record(&w->meta, ADA_META_END, &end, sizeof(end), NULL, 0);
	}
	rf_write_file(w->t.meta, w->meta.buf, w->meta.len);
}

struct step {
	uint64_t tsc;
	unsigned kind;
	uint64_t addr;
};

static void write_thread(uint32_t tid, const struct step *steps, size_t n)
{
	struct ada_enc_stream enc = { 0 };
	struct ada_fdict dict;
	struct rf_frame *f = calloc(1, sizeof(*f));
	char path[300];

	assert_non_null(f);
	rf_fdict_init(&dict, addrs, 3);
	snprintf(path, sizeof(path), "%s/thread_%u.lz4", w->t.raw, tid);
	rf_sync(f, &enc, steps[0].tsc);
	for (size_t i = 0; i < n; i++)
		rf_event(f, &enc, &dict, steps[i].tsc, steps[i].kind, steps[i].addr);
	rf_append(path, f);
	ada_enc_stream_free(&enc);
	ada_fdict_free(&dict);
	free(f);
}

/* Thread 0: main → work, whose leaf is left by a longjmp (a real
 * EXCEPTION); both return. Thread 1: main → work → leaf, left open. */
static const struct step thread0[] = {
	{ 100, ADA_RAW_CALL, FA },      { 110, ADA_RAW_CALL, FB },   { 120, ADA_RAW_CALL, FC },
	{ 130, ADA_RAW_EXCEPTION, FC }, { 140, ADA_RAW_RETURN, FB }, { 150, ADA_RAW_RETURN, FA },
};
static const struct step thread1[] = {
	{ 200, ADA_RAW_CALL, FA }, { 210, ADA_RAW_CALL, FB }, { 220, ADA_RAW_CALL, FC },
};

static void make_trace(enum how how, uint64_t crash_tsc)
{
	const struct conv_options loud = { .quiet = false };
	int ret;

	write_meta(how, crash_tsc);
	write_thread(0, thread0, sizeof(thread0) / sizeof(thread0[0]));
	write_thread(1, thread1, sizeof(thread1) / sizeof(thread1[0]));
	capture_fd_begin(STDOUT_FILENO);
	ret = convert_process(w->t.pid_dir, w->t.pid_dir, &loud);
	snprintf(w->out, sizeof(w->out), "%s", capture_end());
	assert_int_equal(ret, 0);
	rf_expect_valid(w->t.pid_dir);
}

/* ---- reading back ---------------------------------------------------------------------- */

static const struct rf_want thread0_atf[] = {
	{ ATF_CALL, 100, 1, 1 },      { ATF_CALL, 110, 2, 2 },   { ATF_CALL, 120, 3, 3 },
	{ ATF_EXCEPTION, 130, 3, 3 }, { ATF_RETURN, 140, 2, 2 }, { ATF_RETURN, 150, 1, 1 },
};

/* Thread 1's events, its open frames closed at tick `at`. */
static void expect_thread1(uint64_t at)
{
	const struct rf_want want[] = {
		{ ATF_CALL, 200, 1, 1 },     { ATF_CALL, 210, 2, 2 },     { ATF_CALL, 220, 3, 3 },
		{ ATF_EXCEPTION, at, 3, 3 }, { ATF_EXCEPTION, at, 2, 2 }, { ATF_EXCEPTION, at, 1, 1 },
	};

	rf_expect_index(w->t.pid_dir, 0, thread0_atf, sizeof(thread0_atf) / sizeof(thread0_atf[0]));
	rf_expect_index(w->t.pid_dir, 1, want, sizeof(want) / sizeof(want[0]));
}

/* Thread i's "end" and "open_at_end". */
static void expect_thread_end(const struct json_value *root, size_t i, const char *end,
			      uint64_t open)
{
	const struct json_value *t = json_at(json_get(root, "threads"), i);

	assert_string_equal(json_string(json_get(t, "end")), end);
	assert_int_equal(rf_u64(t, "open_at_end"), open);
}

static char *run_view(bool dump)
{
	const struct ada_dump_options o = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_int_equal(dump ? ada_view_dump(w->t.pid_dir, &o, out) : ada_view_replay(w->t.pid_dir, out),
			 0);
	fclose(out);
	return text;
}

/* --replay: thread 0's leaf unwound, thread 1's frames marked `mark`. */
static void expect_replay(const char *mark)
{
	char want[512], *got = run_view(false);

	snprintf(want, sizeof(want),
		 "# pid %u thread 0 tid %u\nmain\n  work\n    leaf (unwound)\n"
		 "# pid %u thread 1 tid %u\nmain %s\n  work %s\n    leaf %s\n",
		 PID, PID, PID, PID + 1, mark, mark, mark);
	assert_string_equal(got, want);
	free(got);
}

/* ---- tests ------------------------------------------------------------------------------ */

static void test_convert_end_at_exit_is_open_at_exit_not_unwound(void **state)
{
	struct json_doc *doc;

	(void)state;
	make_trace(EXIT, 0);
	expect_thread1(220);
	doc = rf_manifest(w->t.pid_dir);
	expect_thread_end(json_root(doc), 0, "exited", 0);
	expect_thread_end(json_root(doc), 1, "running at exit", 3);
	assert_null(json_get(json_root(doc), "crash"));
	json_free(doc);
	/* A normal exit leaves frames open and says nothing of it. */
	assert_null(strstr(w->out, "frames open"));
	assert_null(strstr(w->out, "EXCEPTION"));
	expect_replay("(open at exit)");
}

static void test_convert_end_waits_per_thread_and_in_total(void **state)
{
	const struct json_value *root, *t0, *t1, *all;
	struct json_doc *doc;

	(void)state;
	make_trace(EXIT, 0);
	doc = rf_manifest(w->t.pid_dir);
	root = json_root(doc);
	t0 = json_get(json_at(json_get(root, "threads"), 0), "waits");
	t1 = json_get(json_at(json_get(root, "threads"), 1), "waits");
	all = json_get(root, "waits");
	assert_int_equal(rf_u64(t0, "count"), 2);
	assert_int_equal(rf_u64(t0, "ns"), 1500);
	assert_int_equal(rf_u64(t1, "count"), 1);
	assert_int_equal(rf_u64(t1, "ns"), 700);
	assert_int_equal(rf_u64(all, "count"), 3);
	assert_int_equal(rf_u64(all, "ns"), 2200);
	json_free(doc);
}

static void test_convert_end_crash_closes_the_crashing_thread_at_the_crash(void **state)
{
	const struct json_value *c;
	struct json_doc *doc;
	char want[300];
	int64_t code;

	(void)state;
	make_trace(CRASH, 260);
	expect_thread1(260);
	doc = rf_manifest(w->t.pid_dir);
	c = json_get(json_root(doc), "crash");
	assert_int_equal(rf_u64(c, "signal"), 11);
	assert_string_equal(json_string(json_get(c, "signal_name")), "SIGSEGV");
	assert_true(json_i64(json_get(c, "code"), &code));
	assert_int_equal(code, 1);
	assert_int_equal(rf_u64(c, "thread"), 1);
	assert_int_equal(rf_u64(c, "os_tid"), PID + 1);
	assert_string_equal(json_string(json_get(c, "address")), "0xdead0");
	assert_int_equal(rf_u64(c, "time_ns"), RF_BOOT_NS + 260);
	expect_thread_end(json_root(doc), 0, "exited", 0);
	expect_thread_end(json_root(doc), 1, "crashed", 3);
	json_free(doc);
	snprintf(want, sizeof(want),
		 "pid %u: crashed with SIGSEGV at 0xdead0 in thread 1\n"
		 "pid %u: 3 frames open at the crash, closed at the crash (thread 1) or at their thread's last event\n",
		 PID, PID);
	assert_non_null(strstr(w->out, want));
	expect_replay("(open at crash)");
}

/* A crash time before the thread's last event (clocks of other CPUs):
 * timestamps never go back, so the frames close at the last event. */
static void test_convert_end_crash_before_the_last_event_closes_at_the_last_event(void **state)
{
	(void)state;
	make_trace(CRASH, 215);
	expect_thread1(220);
}

static void test_convert_end_killed_is_open_when_killed(void **state)
{
	struct json_doc *doc;
	char want[200];

	(void)state;
	make_trace(KILL, 0);
	expect_thread1(220);
	doc = rf_manifest(w->t.pid_dir);
	expect_thread_end(json_root(doc), 0, "killed", 0);
	expect_thread_end(json_root(doc), 1, "killed", 3);
	assert_null(json_get(json_root(doc), "waits")); /* no THREAD_END, no waits */
	json_free(doc);
	snprintf(want, sizeof(want),
		 "pid %u: 3 frames open when the process was killed, closed at the thread's last event\n",
		 PID);
	assert_non_null(strstr(w->out, want));
	expect_replay("(open when killed)");
}

static void test_convert_end_dump_marks_open_frames_apart_from_unwound(void **state)
{
	char *got;

	(void)state;
	make_trace(KILL, 0);
	got = run_view(true);
	assert_non_null(strstr(got, "0.000000     leaf (unwound)\n"));
	assert_non_null(strstr(got, "0.000000     leaf (open when killed)\n"
				    "0.000000   work (open when killed)\n"
				    "0.000000 main (open when killed)\n"));
	free(got);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_convert_end_at_exit_is_open_at_exit_not_unwound),
		T(test_convert_end_waits_per_thread_and_in_total),
		T(test_convert_end_crash_closes_the_crashing_thread_at_the_crash),
		T(test_convert_end_crash_before_the_last_event_closes_at_the_last_event),
		T(test_convert_end_killed_is_open_when_killed),
		T(test_convert_end_dump_marks_open_frames_apart_from_unwound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
