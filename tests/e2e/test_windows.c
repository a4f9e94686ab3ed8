/* test_windows.c - the detail lane in windows around triggers
 * (ADA_DETAIL=window, the default).
 *
 * tests/e2e/progs/windows.c calls leaf(i) in a loop (two events a call,
 * at known positions) and, at a known place, the trigger: target(), a call
 * of work() that sleeps, ada_mark("halfway") or raise(SIGUSR1). Built in
 * fentry mode with the dynamic hooks off, the thread's events are exactly
 * the program's calls, so an event's ATF index position is its ring
 * position. With ADA_PRE=10 and ADA_POST=10, the test reads index.atf and
 * detail.atf with its own reader and checks that the events with a detail
 * record are exactly the window's positions, nothing else; that the
 * records are the right ones (leaf's argument register); and what the
 * runtime prints. Without a trigger, no detail is written at all.
 */
#include <glob.h>
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <cmocka.h>

#include "lib/atf_read.h"
#include "lib/tracerun.h"

#define ROLL_ENV "ADA_PRE=10", "ADA_POST=10"
#define N "1000"

/* The traced thread's index.atf, and which of its positions have a detail
 * record: has[p] (the caller frees both). */
struct windows_seen {
	struct atfr_index index;
	bool *has;
	size_t ndetail;
	struct atfr_detail detail;
};

static void read_thread_n(struct tr_case *tc, unsigned thread, struct windows_seen *w)
{
	char pattern[4300], path[4400], err[512];
	glob_t g;

	memset(w, 0, sizeof(*w));
	snprintf(pattern, sizeof(pattern), "%s/session_*/pid_*/thread_%u", tc->trace, thread);
	if (glob(pattern, 0, NULL, &g) != 0 || g.gl_pathc != 1)
		fail_msg("not one %s", pattern);
	snprintf(path, sizeof(path), "%s/index.atf", g.gl_pathv[0]);
	if (atfr_read_index(path, &w->index, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	w->has = calloc(w->index.event_count, sizeof(bool));
	assert_non_null(w->has);
	snprintf(path, sizeof(path), "%s/detail.atf", g.gl_pathv[0]);
	if (w->index.flags & 1) {
		if (atfr_read_detail(path, &w->detail, err, sizeof(err)) < 0)
			fail_msg("%s", err);
		for (uint32_t i = 0; i < w->index.event_count; i++)
			if (w->index.events[i].detail_seq != ATFR_NO_DETAIL) {
				w->has[i] = true;
				w->ndetail++;
			}
		assert_int_equal(w->ndetail, w->detail.event_count);
	}
	globfree(&g);
}

static void read_thread(struct tr_case *tc, struct windows_seen *w)
{
	read_thread_n(tc, 0, w);
}

static void free_thread(struct windows_seen *w)
{
	if (w->index.flags & 1)
		atfr_detail_free(&w->detail);
	atfr_index_free(&w->index);
	free(w->has);
}

/* Fails unless the positions with a record are exactly [lo, hi] (and, for
 * a CALL of leaf, the record's first register is its argument: position
 * 2i is leaf(i)'s CALL below leaf_end). */
static void expect_window(const struct windows_seen *w, uint64_t lo, uint64_t hi,
			  uint64_t leaf_end)
{
	for (uint64_t p = 0; p < w->index.event_count; p++)
		if (w->has[p] != (p >= lo && p <= hi))
			fail_msg("position %" PRIu64 ": %s detail record (window [%" PRIu64
				 ", %" PRIu64 "])", p, w->has[p] ? "a" : "no", lo, hi);
	assert_int_equal(w->ndetail, hi - lo + 1);
	for (uint64_t p = lo; p <= hi && p < leaf_end; p += 2) {
		const struct atfr_detail_rec *r = &w->detail.recs[w->index.events[p].detail_seq];

		assert_int_equal(r->index_seq, p);
		assert_int_equal(r->event_type, ATFR_DETAIL_CALL);
		assert_int_equal(r->regs[0], p / 2);
	}
}

/* Nothing in the manifest counts a detail record as lost (the process's
 * and the thread's "detail_full" are 0). */
static void no_detail_lost(const struct tr_case *tc)
{
	const char *p = tc->mf.text;
	size_t n = 0;

	while ((p = strstr(p, "\"detail_full\": "))) {
		p += strlen("\"detail_full\": ");
		if (*p != '0' || (p[1] >= '0' && p[1] <= '9'))
			fail_msg("detail records counted lost:\n%s", tc->mf.text);
		n++;
	}
	assert_int_equal(n, 2);
}

/* Fails unless the manifest lists exactly one window, with these fields. */
static void expect_manifest_window(const struct tr_case *tc, const char *trigger,
				   const char *label, uint64_t trigger_pos, uint64_t first,
				   uint64_t last, uint64_t kept, uint64_t lost, unsigned triggers)
{
	const char *close, *line = tr_json_array(tc->mf.text, "windows", &close);
	const char *end = strchr(line, '\n');
	char want[512], got[512];

	(void)close;
	if (strncmp(end + 1, "  ]", 3) != 0)
		fail_msg("not one window:\n%s", line);
	snprintf(want, sizeof(want), "0 %s %s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
		 " %" PRIu64 " %u", trigger, label, trigger_pos, first, last, kept, lost, triggers);
	{
		static const char *const keys[] = { "thread", "trigger", "label",
						     "trigger_position", "first_position",
						     "last_position", "details_kept",
						     "details_lost", "triggers" };
		size_t at = 0;

		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			char v[128];

			if (!tr_json_value(line, end, keys[i], v, sizeof(v)))
				fail_msg("no %s in the window: %.*s", keys[i], (int)(end - line), line);
			at += (size_t)snprintf(got + at, sizeof(got) - at, "%s%s", i ? " " : "", v);
		}
	}
	if (strcmp(want, got))
		fail_msg("window: expected \"%s\", got \"%s\"", want, got);
}

static void build(struct tr_case *tc)
{
	const char *const env[] = { "ADA_MODE=fentry", NULL };
	const char *const flags[] = { "-O2", "-I" ADA_ROOT "/runtime", NULL };

	tr_build(tc, NULL, "gcc", "windows", "windows.plain", flags);
	tr_build(tc, env, TR_ADACC, "windows", "windows", flags);
}

/* One run of windows.c with args and env (NULL-terminated), converted and
 * read back. */
static void run_args(struct tr_case *tc, const char *const args[], const char *const env[],
		     int status, struct windows_seen *w)
{
	build(tc);
	tr_run_pair(tc, "windows", args, env, status);
	tr_symbolize(tc, NULL);
	tr_load_manifest(tc, NULL);
	read_thread(tc, w);
}

static void run(struct tr_case *tc, const char *what, const char *n, const char *const env[],
		int status, struct windows_seen *w)
{
	run_args(tc, (const char *const[]){ what, n, NULL }, env, status, w);
}

/* target() is called once, its CALL at position 1002: records for
 * positions 992..1012 exactly. */
static void a_function_trigger_keeps_exactly_its_window(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_TRIGGER=func:targ*", ROLL_ENV, NULL };
	struct windows_seen w;

	run(tc, "func", N, env, 0, &w);
	assert_int_equal(w.index.event_count, 2 * 1000 + 2);
	expect_window(&w, 992, 1012, 1002);
	no_detail_lost(tc);
	expect_manifest_window(tc, "func", "func:targ*", 1002, 992, 1012, 21, 0, 1);
	free_thread(&w);
	tr_pass(tc);
}

/* target() at 1002 and 1008: the windows [992, 1012] and [998, 1018] are one. */
static void overlapping_windows_coalesce(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_TRIGGER=func:target", ROLL_ENV, NULL };
	struct windows_seen w;

	run(tc, "twice", N, env, 0, &w);
	expect_window(&w, 992, 1018, 1002);
	expect_manifest_window(tc, "func", "func:target", 1002, 992, 1018, 27, 0, 2);
	free_thread(&w);
	tr_pass(tc);
}

/* work(0), work(5) (5 ms asleep), work(0) after 100 leaf calls, at positions
 * 200, 202, 204: only the slow call's window, from 10 before its CALL to
 * 10 after its RETURN (192..213), though the writer ran while it slept. */
static void a_duration_trigger_fires_for_the_slow_call_only(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_TRIGGER=func:work>2ms", ROLL_ENV, NULL };
	struct windows_seen w;

	run(tc, "slow", "100", env, 0, &w);
	assert_int_equal(w.index.event_count, 4 * 100 + 6);
	expect_window(&w, 192, 213, 200);
	expect_manifest_window(tc, "duration", "func:work>2ms", 202, 192, 213, 22, 0, 1);
	free_thread(&w);
	tr_pass(tc);
}

/* ada_mark("halfway") after leaf(500): the thread's position then is 1002. */
static void ada_mark_opens_a_window_where_it_is_called(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { ROLL_ENV, NULL };
	struct windows_seen w;

	run(tc, "mark", N, env, 0, &w);
	expect_window(&w, 992, 1012, 1002);
	expect_manifest_window(tc, "mark", "halfway", 1002, 992, 1012, 21, 0, 1);
	free_thread(&w);
	tr_pass(tc);
}

/* raise(SIGUSR1) after leaf(500) kills both programs as without ada; the
 * traced one's window is written first, and ends at its last event. */
static void a_signal_trigger_keeps_the_default_action(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_TRIGGER=signal:USR1", ROLL_ENV, NULL };
	struct windows_seen w;

	run(tc, "usr1", N, env, 128 + 10, &w);
	assert_int_equal(w.index.event_count, 1002);
	expect_window(&w, 992, 1001, 1002);
	expect_manifest_window(tc, "signal", "SIGUSR1", 1002, 992, 1001, 10, 0, 1);
	free_thread(&w);
	tr_pass(tc);
}

/* A crash (on by default): every thread's window ends at the crash, written
 * before the signal kills as it would have. */
static void a_crash_keeps_the_window_before_it(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { ROLL_ENV, NULL };
	struct windows_seen w;

	run(tc, "segv", N, env, 128 + 11, &w);
	assert_int_equal(w.index.event_count, 1002);
	expect_window(&w, 992, 1001, 1002);
	expect_manifest_window(tc, "crash", "SIGSEGV", 1002, 992, 1001, 10, 0, 1);
	free_thread(&w);
	tr_pass(tc);
}

/* plugin_target() is in a library dlopen'ed after 1000 leaf calls: the
 * writer resolves func:plugin_* again before it looks at the call (its
 * CALL at position 2000). */
static void a_function_trigger_reaches_a_dlopened_library(void **state)
{
	struct tr_case *tc = *state;
	/* The writer's look at the modules finds the library (the dynamic
	 * hooks are off in the tests). */
	const char *const env[] = { "ADA_TRIGGER=func:plugin_*", ROLL_ENV, NULL };
	const char *const lib_env[] = { "ADA_MODE=fentry", NULL };
	const char *const lib_flags[] = { "-O2", "-shared", "-fPIC", NULL };
	struct windows_seen w;

	const char *const plain_args[] = { "plugin", N, "./libwplugin.plain.so", NULL };
	const char *const traced_args[] = { "plugin", N, "./libwplugin.so", NULL };

	tr_build(tc, NULL, "gcc", "windows_plugin", "libwplugin.plain.so", lib_flags);
	tr_build(tc, lib_env, TR_ADACC, "windows_plugin", "libwplugin.so", lib_flags);
	build(tc);
	tr_run_pair_args(tc, "windows", plain_args, traced_args, env, 0);
	tr_symbolize(tc, NULL);
	tr_load_manifest(tc, NULL);
	read_thread(tc, &w);
	assert_int_equal(w.index.event_count, 4002);
	expect_window(&w, 1990, 2010, 2000);
	expect_manifest_window(tc, "func", "func:plugin_*", 2000, 1990, 2010, 21, 0, 1);
	free_thread(&w);
	tr_pass(tc);
}

/* ada_snapshot() while both threads wait between their 1000 calls: each
 * thread's window is around its first event after it (position 2000). */
/* Both threads wait idle_ms before main's ada_snapshot: their pre-roll is
 * their last events however long ago (held in their rings meanwhile). */
static void snapshot_windows(struct tr_case *tc, const char *idle_ms)
{
	const char *const env[] = { ROLL_ENV, NULL };
	struct windows_seen w;

	run_args(tc, (const char *const[]){ "snapshot", N, idle_ms, NULL }, env, 0, &w);
	assert_int_equal(tc->mf.nthreads, 2);
	for (unsigned t = 0; t < 2; t++) {
		if (t)
			read_thread_n(tc, t, &w);
		assert_int_equal(w.index.event_count, 4000);
		expect_window(&w, 1990, 2010, 2000);
		free_thread(&w);
	}
	assert_int_equal(tr_count_lines(tc->mf.text, (const char *const[]){
						 "\"trigger\": \"snapshot\"", "\"label\": \"ada_snapshot\"",
						 "\"trigger_position\": 2000", "\"first_position\": 1990",
						 "\"last_position\": 2010", "\"details_kept\": 21", NULL }),
			 2);
	tr_pass(tc);
}

static void ada_snapshot_opens_a_window_on_every_thread(void **state)
{
	snapshot_windows(*state, "0");
}

/* 200 ms idle: the writer held each thread's last 10 events back all along
 * (it once wrote them out after 50 ms, and a snapshot after that, or a
 * thread slower to reach the barrier under load, found no pre-roll). */
static void a_snapshot_of_idle_threads_keeps_their_pre_roll(void **state)
{
	snapshot_windows(*state, "200");
}

/* ada_disable() from the start, ada_enable() before leaf(250), ada_disable()
 * before leaf(500): the trace holds exactly leaf(250..499), and nothing is
 * counted as lost. */
static void enable_and_disable_record_only_the_region(void **state)
{
	struct tr_case *tc = *state;
	struct windows_seen w;

	run(tc, "region", N, NULL, 0, &w);
	assert_int_equal(w.index.event_count, 2 * 250);
	for (uint32_t i = 0; i < w.index.event_count; i++) {
		assert_int_equal(w.index.events[i].kind, i % 2 ? ATFR_RETURN : ATFR_CALL);
		assert_int_equal(w.index.events[i].call_depth, 1);
	}
	assert_int_equal(tc->mf.nthreads, 1);
	for (unsigned r = 0; r < TR_NDROPS; r++)
		assert_int_equal(tc->mf.dropped[r], 0);
	no_detail_lost(tc);
	free_thread(&w);
	tr_pass(tc);
}

/* A thread that calls ada_thread_ignore() first records nothing; the main
 * thread's 1000 calls are all there. */
static void an_ignored_thread_records_nothing(void **state)
{
	struct tr_case *tc = *state;
	struct windows_seen w;

	run(tc, "ignore", N, NULL, 0, &w);
	assert_int_equal(w.index.event_count, 2 * 1000);
	assert_int_equal(tc->mf.nthreads, 1);
	for (unsigned r = 0; r < TR_NDROPS; r++)
		assert_int_equal(tc->mf.dropped[r], 0);
	free_thread(&w);
	tr_pass(tc);
}

/* The default: the detail lane is captured, and with no trigger nothing of
 * it is written (and nothing is counted as lost). */
static void no_trigger_no_details(void **state)
{
	struct tr_case *tc = *state;
	struct windows_seen w;

	run(tc, "func", N, NULL, 0, &w);
	assert_int_equal(w.index.flags & 1, 0);
	assert_int_equal(w.ndetail, 0);
	no_detail_lost(tc);
	assert_string_equal(tc->traced.err, "");
	free_thread(&w);
	tr_pass(tc);
}

/* Each bad item: one line naming it and what was expected; the valid rest
 * works (func:target's window is there). */
static void bad_trigger_specs_are_named_and_the_rest_kept(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = {
		"ADA_TRIGGER=func:,bogus,signal:INT,func:work>fast,func:target", "ADA_PRE=lots",
		"ADA_POST=10", NULL,
	};
	static const char *const lines[] = {
		"ada: ADA_TRIGGER=func:,bogus,signal:INT,func:work>fast,func:target: \"func:\" is "
		"not valid: expected func:GLOB, func:GLOB>DURATION, func:GLOB:trace_on, "
		"func:GLOB:trace_off, signal:NAME, crash or nocrash; "
		"ignoring it\n",
		"ada: ADA_TRIGGER=func:,bogus,signal:INT,func:work>fast,func:target: \"bogus\" is "
		"not valid: expected func:GLOB, func:GLOB>DURATION, func:GLOB:trace_on, "
		"func:GLOB:trace_off, signal:NAME, crash or nocrash; "
		"ignoring it\n",
		"ada: ADA_TRIGGER=func:,bogus,signal:INT,func:work>fast,func:target: \"signal:INT\" "
		"is not valid: expected signal:SIGUSR1, signal:SIGUSR2 or signal:SIGTRAP; ignoring "
		"it\n",
		"ada: ADA_TRIGGER=func:,bogus,signal:INT,func:work>fast,func:target: "
		"\"func:work>fast\" is not valid: expected a duration after '>' (e.g. "
		"func:parse>5ms; units ns, us, ms, s); ignoring it\n",
		"ada: ADA_PRE=lots is not valid: expected a number of events (e.g. 2000 or 2000ev, "
		"at most 16777216) or a time up to 10s (e.g. 500us, 5ms); using 2000ev\n",
	};
	struct windows_seen w;
	size_t at = 0;

	run(tc, "func", N, env, 0, &w);
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		const char *line = strstr(tc->traced.err + at, lines[i]);

		if (!line)
			fail_msg("no line\n%s\nin stderr:\n%s", lines[i], tc->traced.err);
		at = (size_t)(line - tc->traced.err) + strlen(lines[i]);
	}
	assert_string_equal(tc->traced.err + at, "");
	/* ADA_PRE fell back to 2000 events: from the start to 10 after. */
	expect_window(&w, 0, 1012, 1002);
	free_thread(&w);
	tr_pass(tc);
}

#define T(name) cmocka_unit_test_setup_teardown(name, tr_setup, tr_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(a_function_trigger_keeps_exactly_its_window),
		T(overlapping_windows_coalesce),
		T(a_duration_trigger_fires_for_the_slow_call_only),
		T(ada_mark_opens_a_window_where_it_is_called),
		T(a_signal_trigger_keeps_the_default_action),
		T(a_crash_keeps_the_window_before_it),
		T(no_trigger_no_details),
		T(a_function_trigger_reaches_a_dlopened_library),
		T(ada_snapshot_opens_a_window_on_every_thread),
		T(a_snapshot_of_idle_threads_keeps_their_pre_roll),
		T(enable_and_disable_record_only_the_region),
		T(an_ignored_thread_records_nothing),
		T(bad_trigger_specs_are_named_and_the_rest_kept),
	};

	struct rlimit no_core = { 0, 0 };

	setrlimit(RLIMIT_CORE, &no_core); /* the crashes' (inherited) */
	tr_scrub_environment();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
