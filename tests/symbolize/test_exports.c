/* test_exports.c - `ada-symbolize chrome` and `perfetto` byte for byte, on
 * frames given here: view_run is replaced (-Wl,--wrap=view_run, mk/exports.mk)
 * by one that plays this file's processes, threads and walk events to the
 * view's callbacks.
 *   chrome: complete events, metadata, args, exit marks, coroutine stacks'
 *   tracks, and the order a viewer needs when a call starts in the same
 *   nanosecond as its caller.
 *   perfetto: packets with the field numbers of Perfetto's protos (written
 *   out here by hand, with their names), names interned once per sequence.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "raw_format.h"
#include "view_cli.h"

/* ---- the frames played to the view ------------------------------------------------- */

static const struct src_func funcs[] = {
	{ "main", "main", "demo", "/src/demo.c", 10, NULL, NULL },
	{ "f", "f(int)", "demo", NULL, 0, NULL, NULL },
	{ "memcpy", "memcpy", "libc.so.6", NULL, 0, NULL, NULL },
	{ "q\"uote", "q\"uote", "demo", NULL, 0, NULL, NULL },
};
enum { MAIN, F, MEMCPY, QUOTE };

struct play {                 /* one walk event of thread `thread` */
	size_t process, thread;
	uint8_t type, how;
	uint32_t func, depth;
	uint64_t start, end;
	const uint64_t *regs;
};

static struct src_process procs[2];
static size_t nprocs;
static struct src_thread threads[2][2];
static const struct play *plays;
static size_t nplays;

int __wrap_view_run(const char *path, const struct view_filter *f, const struct view_ops *ops);

int __wrap_view_run(const char *path, const struct view_filter *f, const struct view_ops *ops)
{
	(void)path;
	(void)f;
	for (size_t p = 0; p < nprocs; p++) {
		struct src_process *sp = &procs[p];

		assert_int_equal(ops->process_begin(ops->ctx, sp), 0);
		for (size_t t = 0; t < sp->nthreads; t++) {
			assert_int_equal(ops->thread_begin(ops->ctx, sp, &sp->threads[t]), 0);
			for (size_t i = 0; i < nplays; i++) {
				const struct play *e = &plays[i];
				struct walk_event ev = { .type = e->type, .how = e->how,
							 .func = e->func, .depth = e->depth,
							 .start_ns = e->start, .end_ns = e->end,
							 .total_ns = e->end - e->start,
							 .regs = e->regs };

				if (e->process == p && e->thread == t)
					assert_int_equal(ops->event(ops->ctx, NULL, &ev), 0);
			}
			assert_int_equal(ops->thread_end(ops->ctx, sp, &sp->threads[t]), 0);
		}
		assert_int_equal(ops->process_end(ops->ctx, sp), 0);
	}
	return 0;
}

static void set_process(size_t p, uint32_t pid, uint64_t t0, size_t nthreads)
{
	procs[p] = (struct src_process){ .pid = pid, .exe = "/usr/bin/demo", .cmdline = "",
					 .arch = ADA_ARCH_X86_64, .t0_ns = t0, .funcs = funcs,
					 .nfuncs = sizeof(funcs) / sizeof(funcs[0]),
					 .threads = threads[p], .nthreads = nthreads };
	nprocs = p + 1;
}

#define ENTER(p, t, fn, d, at, r) { p, t, WALK_ENTER, 0, fn, d, at, 0, r }
#define EXIT(p, t, fn, d, from, to, how, r) { p, t, WALK_EXIT, how, fn, d, from, to, r }

/* A view's whole output for the plays; *len its size. */
static char *run_view(int (*view)(const struct view_args *, FILE *), const struct play *p,
		      size_t n, bool no_args, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);
	char *paths[] = { "trace", NULL };
	/* chrome writes args with --args only; the other views with no --no-args */
	struct view_args a = { .paths = paths, .npaths = 1, .no_args = no_args, .args = !no_args,
			       .output = "out" };

	plays = p;
	nplays = n;
	assert_int_equal(view(&a, f), 0);
	fclose(f);
	return text;
}

static char *run_chrome(const struct play *p, size_t n, bool no_args)
{
	size_t len;

	return run_view(view_chrome_main, p, n, no_args, &len);
}

#define HEAD "{\"traceEvents\":[\n"
#define TAIL(origin, procs, threads, slices)                                              \
	"\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"generator\":\"ada-symbolize "   \
	"chrome\",\"clock\":\"CLOCK_BOOTTIME\",\"ts_origin_ns\":" origin ",\"processes\":"  \
	procs ",\"threads\":" threads ",\"slices\":" slices "}}\n"
#define PROCESS_42 "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":42,\"tid\":42," \
		   "\"args\":{\"name\":\"demo\"}}"

/* ---- tests ------------------------------------------------------------------------------ */

static void test_complete_events_carry_times_args_and_marks(void **state)
{
	static const uint64_t args[] = { 1, 2, 3, 0xa, 0xffffffffffffffff, 0 }, ret[] = { 0x2a, 7 };
	const struct play p[] = {
		ENTER(0, 0, MAIN, 1, 0, args),
		ENTER(0, 0, F, 2, 1500, NULL),
		EXIT(0, 0, F, 2, 1500, 2500, SRC_RETURN, ret),
		ENTER(0, 0, MEMCPY, 2, 2600, NULL),
		EXIT(0, 0, MEMCPY, 2, 2600, 2601, SRC_UNWIND, NULL),
		EXIT(0, 0, MAIN, 1, 0, 1234567, SRC_OPEN_AT_END, NULL),
	};
	char *out;

	(void)state;
	set_process(0, 42, 1000000, 1);
	threads[0][0] = (struct src_thread){ .id = 0, .tid = 42, .name = "demo",
					     .open_mark = "open at exit" };
	out = run_chrome(p, sizeof(p) / sizeof(p[0]), false);
	assert_string_equal(out,
		HEAD PROCESS_42 ",\n"
		"{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":42,\"tid\":42,\"args\":{\"name\":\"demo\"}},\n"
		"{\"ph\":\"X\",\"pid\":42,\"tid\":42,\"ts\":1.500,\"dur\":1.000,\"name\":\"f\",\"cat\":\"demo\","
		"\"args\":{\"ret\":\"0x2a\",\"module\":\"demo\"}},\n"
		"{\"ph\":\"X\",\"pid\":42,\"tid\":42,\"ts\":2.600,\"dur\":0.001,\"name\":\"memcpy\","
		"\"cat\":\"libc.so.6\",\"args\":{\"exit\":\"unwound\",\"module\":\"libc.so.6\"}},\n"
		"{\"ph\":\"X\",\"pid\":42,\"tid\":42,\"ts\":0.000,\"dur\":1234.567,\"name\":\"main\",\"cat\":\"demo\","
		"\"args\":{\"rdi\":\"0x1\",\"rsi\":\"0x2\",\"rdx\":\"0x3\",\"rcx\":\"0xa\",\"r8\":\"0xffffffffffffffff\","
		"\"r9\":\"0x0\",\"exit\":\"open at exit\",\"file\":\"/src/demo.c:10\",\"module\":\"demo\"}}"
		TAIL("1000000", "1", "1", "3"));
	free(out);

	/* --no-args: no args object at all (speedscope's rows), cat still
	 * names the module. */
	out = run_chrome(p, sizeof(p) / sizeof(p[0]), true);
	assert_null(strstr(out, "\"rdi\""));
	assert_null(strstr(out, "\"ret\""));
	assert_null(strstr(out, "\"exit\""));
	assert_null(strstr(out, "\"file\""));
	assert_non_null(strstr(out, "\"name\":\"f\",\"cat\":\"demo\"},\n"));
	free(out);
}

/* Viewers order slices by ts and equal ts by file order: a call that
 * starts in its caller's nanosecond is written after the caller, and calls
 * held that way come out in call order, zero-length ones included. */
static void test_call_starting_with_its_caller_comes_after_it(void **state)
{
	const struct play p[] = {
		ENTER(0, 0, MAIN, 1, 100, NULL),
		ENTER(0, 0, F, 2, 100, NULL),
		ENTER(0, 0, MEMCPY, 3, 100, NULL),
		EXIT(0, 0, MEMCPY, 3, 100, 100, SRC_RETURN, NULL),
		ENTER(0, 0, QUOTE, 3, 100, NULL),
		EXIT(0, 0, QUOTE, 3, 100, 103, SRC_RETURN, NULL),
		EXIT(0, 0, F, 2, 100, 105, SRC_RETURN, NULL),
		ENTER(0, 0, F, 2, 106, NULL),
		EXIT(0, 0, F, 2, 106, 107, SRC_RETURN, NULL),
		EXIT(0, 0, MAIN, 1, 100, 110, SRC_RETURN, NULL),
	};
	const char *order[] = { "\"f\",\"cat\":\"demo\",\"args\":{\"module\"",  /* the f at 106 */
				"\"main\"", "\"f\"", "\"memcpy\"", "\"q\\\"uote\"" };
	const char *at;
	char *out;

	(void)state;
	set_process(0, 42, 0, 1);
	threads[0][0] = (struct src_thread){ .id = 0, .tid = 42, .open_mark = "open at exit" };
	out = run_chrome(p, sizeof(p) / sizeof(p[0]), false);
	at = out;
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		char key[64];

		snprintf(key, sizeof(key), "\"name\":%s", order[i]);
		at = strstr(at, key);
		assert_non_null(at);
		at++;
	}
	assert_non_null(strstr(out, "\"ts\":0.106,\"dur\":0.001,\"name\":\"f\""));
	assert_non_null(strstr(out, "\"tid\":42,\"ts\":0.100,\"dur\":0.010,\"name\":\"main\""));
	assert_non_null(strstr(out, "\"thread_name\",\"ph\":\"M\",\"pid\":42,\"tid\":42,"
				    "\"args\":{\"name\":\"thread 0\"}"));
	free(out);
}

/* A coroutine stack is a track above every Linux tid; a second process
 * that started before the first has negative times (ts 0 is the first
 * process's start). */
static void test_stacks_and_processes_get_tracks_of_their_own(void **state)
{
	const struct play p[] = {
		ENTER(0, 1, F, 1, 10, NULL),
		EXIT(0, 1, F, 1, 10, 20, SRC_RETURN, NULL),
		ENTER(1, 0, MAIN, 1, 0, NULL),
		EXIT(1, 0, MAIN, 1, 0, 2000, SRC_RETURN, NULL),
	};
	char *out;

	(void)state;
	set_process(0, 42, 5000, 2);
	set_process(1, 43, 4500, 1);
	threads[0][0] = (struct src_thread){ .id = 0, .tid = 42, .open_mark = "open at exit" };
	threads[0][1] = (struct src_thread){ .id = 3, .tid = 42, .is_stack = true, .host = 0,
					     .stack_lo = 0x7f00, .stack_hi = 0x8f00,
					     .open_mark = "open at exit" };
	threads[1][0] = (struct src_thread){ .id = 0, .tid = 43, .open_mark = "open at exit" };
	out = run_chrome(p, sizeof(p) / sizeof(p[0]), false);
	assert_non_null(strstr(out, "\"pid\":42,\"tid\":4194307,\"args\":{\"name\":"
				    "\"stack 0x7f00-0x8f00 of thread 0\"}"));
	assert_non_null(strstr(out, "{\"ph\":\"X\",\"pid\":42,\"tid\":4194307,\"ts\":0.010,"));
	assert_non_null(strstr(out, "\"name\":\"process_name\",\"ph\":\"M\",\"pid\":43,\"tid\":43,"
				    "\"args\":{\"name\":\"demo\"}"));
	assert_non_null(strstr(out, "{\"ph\":\"X\",\"pid\":43,\"tid\":43,\"ts\":-0.500,\"dur\":2.000,"));
	assert_non_null(strstr(out, "\"ts_origin_ns\":5000,\"processes\":2,\"threads\":3,"
				    "\"slices\":2}"));
	free(out);
}

/* ---- perfetto ---------------------------------------------------------------------------- */

/* The bytes `want` appear in [s, s + n), from `from` on: returns where they
 * end, NULL if they do not. */
static const unsigned char *find_bytes(const unsigned char *s, size_t n, const unsigned char *from,
				       const unsigned char *want, size_t wn)
{
	for (const unsigned char *p = from; p + wn <= s + n; p++)
		if (!memcmp(p, want, wn))
			return p + wn;
	return NULL;
}

#define EXPECT_BYTES(out, n, from, ...)                                                     \
	do {                                                                                 \
		static const unsigned char want_[] = { __VA_ARGS__ };                        \
		from = find_bytes(out, n, from, want_, sizeof(want_));                       \
		assert_non_null(from);                                                       \
	} while (0)

static void test_perfetto_writes_tracks_and_slice_pairs(void **state)
{
	static const uint64_t args[] = { 1, 2, 3, 4, 5, 6 }, ret[] = { 0x2a, 0 };
	const struct play p[] = {
		ENTER(0, 0, MAIN, 1, 0, args),
		ENTER(0, 0, F, 2, 5, NULL),
		EXIT(0, 0, F, 2, 5, 6, SRC_RETURN, NULL),
		ENTER(0, 0, F, 2, 7, NULL),
		EXIT(0, 0, F, 2, 7, 8, SRC_UNWIND, NULL),
		EXIT(0, 0, MAIN, 1, 0, 10, SRC_RETURN, ret),
		ENTER(0, 1, F, 1, 20, NULL),
		EXIT(0, 1, F, 1, 20, 30, SRC_OPEN_AT_END, NULL),
	};
	const unsigned char *out, *at;
	size_t n;

	(void)state;
	set_process(0, 42, 1000, 2);
	procs[0].cmdline = "/usr/bin/demo -x";
	threads[0][0] = (struct src_thread){ .id = 0, .tid = 42, .name = "demo",
					     .open_mark = "open at exit" };
	threads[0][1] = (struct src_thread){ .id = 1, .tid = 43, .open_mark = "open at exit" };
	out = (const unsigned char *)run_view(view_perfetto_main, p, sizeof(p) / sizeof(p[0]),
					      false, &n);
	at = out;
	/* Trace.packet (1) { track_descriptor (60) { uuid (1) 1, process (3) {
	 * pid (1) 42, cmdline (2) "/usr/bin/demo", cmdline "-x", process_name (6)
	 * "demo -x" } } } */
	EXPECT_BYTES(out, n, at, 0x0a, 0x25, 0xe2, 0x03, 0x22, 0x08, 0x01, 0x1a, 0x1e, 0x08, 0x2a,
		     0x12, 0x0d, '/', 'u', 's', 'r', '/', 'b', 'i', 'n', '/', 'd', 'e', 'm', 'o',
		     0x12, 0x02, '-', 'x', 0x32, 0x07, 'd', 'e', 'm', 'o', ' ', '-', 'x');
	assert_ptr_equal(at, out + 0x27); /* the first packet */
	/* thread 0's sequence starts: trusted_packet_sequence_id (10) 1,
	 * sequence_flags (13) SEQ_INCREMENTAL_STATE_CLEARED,
	 * trace_packet_defaults (59) { timestamp_clock_id (58) 64,
	 * track_event_defaults (11) { track_uuid (11) 2 } }, clock_snapshot (6) {
	 * clocks (1) { clock_id (1) BOOTTIME (6), timestamp (2) 1000 }, clocks {
	 * clock_id 64, timestamp 1000, is_incremental (3) true } } */
	EXPECT_BYTES(out, n, at, 0x0a, 0x69, 0x50, 0x01, 0x68, 0x01,
		     0xda, 0x03, 0x07, 0xd0, 0x03, 0x40, 0x5a, 0x02, 0x58, 0x02,
		     0x32, 0x10, 0x0a, 0x05, 0x08, 0x06, 0x10, 0xe8, 0x07,
		     0x0a, 0x07, 0x08, 0x40, 0x10, 0xe8, 0x07, 0x18, 0x01);
	/* interned_data (12) { debug_annotation_names (3) { iid (1) 1, name (2)
	 * "rdi" } ... { 9, "ret" }, { 10, "exit" } } */
	EXPECT_BYTES(out, n, at, 0x62, 0x47, 0x1a, 0x07, 0x08, 0x01, 0x12, 0x03, 'r', 'd', 'i');
	EXPECT_BYTES(out, n, at, 0x1a, 0x07, 0x08, 0x09, 0x12, 0x03, 'r', 'e', 't');
	/* sequence 1, track_descriptor (60) { uuid (1) 2, parent_uuid (5) 1,
	 * thread (4) { pid (1) 42, tid (2) 42, thread_name (5) "demo" } } */
	EXPECT_BYTES(out, n, at, 0x0a, 0x15, 0x50, 0x01, 0xe2, 0x03, 0x10, 0x08, 0x02, 0x28, 0x01,
		     0x22, 0x0a, 0x08, 0x2a, 0x10, 0x2a, 0x2a, 0x04, 'd', 'e', 'm', 'o');
	/* main begins: timestamp (8) +0, sequence 1, SEQ_NEEDS_INCREMENTAL_STATE,
	 * interned_data { event_categories (1) { 1, "demo" }, event_names (2) {
	 * 1, "main" }, source_locations (4) { iid 1, file_name (2) "/src/demo.c",
	 * function_name (3) "main", line_number (4) 10 } } */
	EXPECT_BYTES(out, n, at, 0x0a, 0x64, 0x40, 0x00, 0x50, 0x01, 0x68, 0x02, 0x62, 0x2d,
		     0x0a, 0x08, 0x08, 0x01, 0x12, 0x04, 'd', 'e', 'm', 'o',
		     0x12, 0x08, 0x08, 0x01, 0x12, 0x04, 'm', 'a', 'i', 'n',
		     0x22, 0x17, 0x08, 0x01, 0x12, 0x0b, '/', 's', 'r', 'c', '/', 'd', 'e', 'm', 'o',
		     '.', 'c', 0x1a, 0x04, 'm', 'a', 'i', 'n', 0x20, 0x0a);
	/* track_event (11) { type (9) TYPE_SLICE_BEGIN, name_iid (10) 1,
	 * category_iids (3) 1, source_location_iid (34) 1, debug_annotations (4)
	 * { name_iid (1) 1, pointer_value (7) 1 } ... { 6, 6 } } */
	EXPECT_BYTES(out, n, at, 0x5a, 0x2d, 0x48, 0x01, 0x50, 0x01, 0x18, 0x01, 0x90, 0x02, 0x01,
		     0x22, 0x04, 0x08, 0x01, 0x38, 0x01, 0x22, 0x04, 0x08, 0x02, 0x38, 0x02,
		     0x22, 0x04, 0x08, 0x03, 0x38, 0x03, 0x22, 0x04, 0x08, 0x04, 0x38, 0x04,
		     0x22, 0x04, 0x08, 0x05, 0x38, 0x05, 0x22, 0x04, 0x08, 0x06, 0x38, 0x06);
	/* f begins at +5, interning its name (its module is known) */
	EXPECT_BYTES(out, n, at, 0x0a, 0x17, 0x40, 0x05, 0x50, 0x01, 0x68, 0x02,
		     0x62, 0x07, 0x12, 0x05, 0x08, 0x02, 0x12, 0x01, 'f',
		     0x5a, 0x06, 0x48, 0x01, 0x50, 0x02, 0x18, 0x01);
	/* and ends at +1: type TYPE_SLICE_END, nothing else */
	EXPECT_BYTES(out, n, at, 0x0a, 0x0a, 0x40, 0x01, 0x50, 0x01, 0x68, 0x02, 0x5a, 0x02,
		     0x48, 0x02);
	/* f's second call: its name is interned already */
	EXPECT_BYTES(out, n, at, 0x0a, 0x0e, 0x40, 0x01, 0x50, 0x01, 0x68, 0x02,
		     0x5a, 0x06, 0x48, 0x01, 0x50, 0x02, 0x18, 0x01);
	/* and ends unwound: debug_annotations { name_iid 10 ("exit"),
	 * string_value (6) "unwound" } */
	EXPECT_BYTES(out, n, at, 0x0a, 0x17, 0x40, 0x01, 0x50, 0x01, 0x68, 0x02,
		     0x5a, 0x0f, 0x48, 0x02, 0x22, 0x0b, 0x08, 0x0a, 0x32, 0x07,
		     'u', 'n', 'w', 'o', 'u', 'n', 'd');
	/* main ends at +2 (1010) with ret (iid 9) 0x2a */
	EXPECT_BYTES(out, n, at, 0x0a, 0x10, 0x40, 0x02, 0x50, 0x01, 0x68, 0x02,
		     0x5a, 0x08, 0x48, 0x02, 0x22, 0x04, 0x08, 0x09, 0x38, 0x2a);
	/* thread 1: sequence 2 on track 3, "thread 1", its clock from 1000
	 * again, f interned again */
	EXPECT_BYTES(out, n, at, 0x0a, 0x69, 0x50, 0x02, 0x68, 0x01,
		     0xda, 0x03, 0x07, 0xd0, 0x03, 0x40, 0x5a, 0x02, 0x58, 0x03,
		     0x32, 0x10, 0x0a, 0x05, 0x08, 0x06, 0x10, 0xe8, 0x07);
	EXPECT_BYTES(out, n, at, 0x0a, 0x19, 0x50, 0x02, 0xe2, 0x03, 0x14, 0x08, 0x03, 0x28, 0x01,
		     0x22, 0x0e, 0x08, 0x2a, 0x10, 0x2b, 0x2a, 0x08,
		     't', 'h', 'r', 'e', 'a', 'd', ' ', '1');
	EXPECT_BYTES(out, n, at, 0x0a, 0x21, 0x40, 0x14, 0x50, 0x02, 0x68, 0x02,
		     0x62, 0x11, 0x0a, 0x08, 0x08, 0x01, 0x12, 0x04, 'd', 'e', 'm', 'o',
		     0x12, 0x05, 0x08, 0x02, 0x12, 0x01, 'f',
		     0x5a, 0x06, 0x48, 0x01, 0x50, 0x02, 0x18, 0x01);
	EXPECT_BYTES(out, n, at, 0x0a, 0x1c, 0x40, 0x0a, 0x50, 0x02, 0x68, 0x02,
		     0x5a, 0x14, 0x48, 0x02, 0x22, 0x10, 0x08, 0x0a, 0x32, 0x0c,
		     'o', 'p', 'e', 'n', ' ', 'a', 't', ' ', 'e', 'x', 'i', 't');
	assert_ptr_equal(at, out + n);
	free((void *)out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_complete_events_carry_times_args_and_marks),
		cmocka_unit_test(test_call_starting_with_its_caller_comes_after_it),
		cmocka_unit_test(test_stacks_and_processes_get_tracks_of_their_own),
		cmocka_unit_test(test_perfetto_writes_tracks_and_slice_pairs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
