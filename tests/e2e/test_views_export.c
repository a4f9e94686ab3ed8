/* test_views_export.c - `ada-symbolize chrome` and `ada-symbolize perfetto`
 * on traced examples (fentry mode, -O0):
 *
 *   examples/demo.c      two threads parsing expressions (exact call counts,
 *                        return values)
 *   examples/threads.c   four workers: work() 1..4 times each, leaf() twice
 *                        per work()
 *   progs/stack_switch.c two coroutine stacks (tracks of their own)
 *   examples/fork.c      a parent and its child on one timeline
 *
 * The JSON must parse (symbolize/json.c's parser), its complete events nest
 * per thread as a viewer reads them, and hold exactly the calls the trace
 * holds: per function, as many X events as `--replay` shows calls. The
 * filters must remove exactly the events they name, checked against the
 * unfiltered export. The Perfetto trace is decoded by `protoc --decode_raw`
 * (skipped with a message where protoc is missing): one packet per slice
 * begin and end plus the descriptors, names interned before use, begins and
 * ends balanced per track, the same calls per function as the JSON.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "e2e/export_read.h"
#include "e2e/export_view.h"
#include "lib/proc.h"
#include "lib/tracerun.h"

/* ---- the traced examples, built once for the group --------------------------- */

static struct ex_trace demo, threads;
static size_t passes, ntests; /* the directory goes when every test passed */

static int group_setup(void **state)
{
	return tr_setup(state);
}

static int group_teardown(void **state)
{
	struct tr_case *tc = *state;

	if (tc && passes == ntests)
		tr_pass(tc);
	ex_trace_free(&demo);
	ex_trace_free(&threads);
	return tr_teardown(state);
}

/* ---- chrome ---------------------------------------------------------------------- */

static void test_chrome_demo_parses_nests_and_names_its_tracks(void **state)
{
	struct tr_case *tc = *state;
	const struct ex_trace *t = ex_demo(tc, &demo);
	struct xtrace x;

	ex_chrome(tc, t, NULL, &x);
	ex_expect_nesting(&x);
	assert_string_equal(json_string(json_get(json_get(x.root, "otherData"), "clock")),
			    "CLOCK_BOOTTIME");
	assert_int_equal(xtrace_meta_count(&x, "process_name"), 1);
	assert_string_equal(xtrace_meta(&x, "process_name", t->pid, 0), "demo");
	/* main and the two workers, each named */
	assert_int_equal(xtrace_meta_count(&x, "thread_name"), 3);
	for (size_t i = 0; i < x.n; i++) {
		assert_int_equal(x.slices[i].pid, t->pid);
		assert_non_null(xtrace_meta(&x, "thread_name", t->pid, x.slices[i].tid));
	}
	xtrace_free(&x);
	passes++;
}

/* Every function: as many X events as the replay shows calls; the
 * program's own with their known counts. */
static void test_chrome_holds_every_call_of_the_trace(void **state)
{
	struct tr_case *tc = *state;
	const struct ex_trace *d = ex_demo(tc, &demo), *t = ex_threads(tc, &threads);
	struct xtrace x;

	ex_chrome(tc, d, NULL, &x);
	ex_expect_replay_counts(&x, d->replay);
	assert_int_equal(ex_count(&x, "main"), 1);
	assert_int_equal(ex_count(&x, "evaluate"), 2);
	assert_int_equal(ex_count(&x, "parse_expr"), 3);
	assert_int_equal(ex_count(&x, "parse_term"), 5);
	assert_int_equal(ex_count(&x, "parse_factor"), 7);
	assert_int_equal(ex_count(&x, "parse_number"), 6);
	xtrace_free(&x);

	ex_chrome(tc, t, NULL, &x);
	ex_expect_nesting(&x);
	ex_expect_replay_counts(&x, t->replay);
	assert_int_equal(ex_count(&x, "worker"), 4);
	assert_int_equal(ex_count(&x, "work"), 10);
	assert_int_equal(ex_count(&x, "leaf"), 20);
	assert_int_equal(ex_count(&x, "start_workers"), 1);
	assert_int_equal(ex_count(&x, "join_workers"), 1);
	assert_int_equal(xtrace_meta_count(&x, "thread_name"), 5);
	xtrace_free(&x);
	passes++;
}

/* With --args: fentry records the argument and return registers, shown by
 * the DWARF's parameters where the function has them (demo.c's: `ps`, a
 * pointer; evaluate's `arg`; main none) and as registers where not (libc's
 * through the dynamic hooks, without DWARF here or not): parse_number
 * returns the numbers of "2*(3+4)" and "1+2*3"; frames carry their module
 * as cat and args.module, and the program's their source file and line. By
 * default (what speedscope reads cleanly) and with --no-args: no args
 * object, the module as cat. */
static void test_chrome_args_hold_registers_source_and_module(void **state)
{
	struct tr_case *tc = *state;
	const struct ex_trace *t = ex_demo(tc, &demo);
	const char *const with_args[] = { "--args", NULL };
	unsigned long rets[8] = { 0 };
	size_t own = 0, library = 0;
	struct xtrace x;

	ex_chrome(tc, t, with_args, &x);
	for (size_t i = 0; i < x.n; i++) {
		const struct xslice *s = &x.slices[i];
		const char *file = xslice_arg(s, "file"), *ret = xslice_arg(s, "ret");

		assert_string_equal(xslice_arg(s, "module"), s->cat);
		if (strcmp(s->cat, "demo") != 0) {
			library++;
			continue;
		}
		own++;
		assert_null(xslice_arg(s, "rdi"));
		if (!strncmp(s->name, "parse_", 6))
			assert_true(!strncmp(xslice_arg(s, "ps"), "0x", 2));
		if (strcmp(s->name, "evaluate") == 0)
			assert_true(!strncmp(xslice_arg(s, "arg"), "0x", 2));
		assert_non_null(file);
		assert_non_null(strstr(file, "examples/demo.c:"));
		if (strcmp(s->name, "main") == 0)
			assert_string_equal(ret, "0");
		if (strcmp(s->name, "parse_number") == 0)
			rets[strtoul(ret, NULL, 10) & 7]++;
	}
	assert_int_equal(own, 1 + 2 + 3 + 5 + 7 + 6);
	assert_true(library > 0); /* libc's, through the dynamic hooks */
	assert_int_equal(rets[1], 1);
	assert_int_equal(rets[2], 2);
	assert_int_equal(rets[3], 2);
	assert_int_equal(rets[4], 1);
	xtrace_free(&x);

	const char *const no_args[] = { "--no-args", NULL };
	ex_chrome(tc, t, NULL, &x);
	assert_true(x.n > 0);
	for (size_t i = 0; i < x.n; i++) { /* no args object at all */
		assert_null(x.slices[i].args);
		assert_non_null(x.slices[i].cat);
	}
	xtrace_free(&x);
	ex_chrome(tc, t, no_args, &x);
	assert_true(x.n > 0);
	for (size_t i = 0; i < x.n; i++)
		assert_null(x.slices[i].args);
	xtrace_free(&x);
	passes++;
}

/* Each filter removes exactly the events it names: the filtered export
 * equals the unfiltered one's events that pass, computed from its slices. */
static void test_chrome_filters_remove_exactly_their_events(void **state)
{
	struct tr_case *tc = *state;
	const struct ex_trace *t = ex_demo(tc, &demo);
	const char *const notrace[] = { "-N", "parse_factor", NULL };
	const char *const only[] = { "-F", "parse_term", NULL };
	const char *const depth[] = { "-D", "2", NULL };
	struct xtrace all, x;

	ex_chrome(tc, t, NULL, &all);

	ex_chrome(tc, t, notrace, &x);
	ex_expect_subset(&all, &x, EX_NOT_UNDER, "parse_factor");
	assert_int_equal(ex_count(&x, "parse_factor"), 0);
	assert_int_equal(ex_count(&x, "parse_number"), 0);
	assert_int_equal(ex_count(&x, "parse_expr"), 2);  /* the one in "(3+4)" is gone */
	assert_int_equal(ex_count(&x, "parse_term"), 3);
	xtrace_free(&x);

	ex_chrome(tc, t, only, &x);
	ex_expect_subset(&all, &x, EX_UNDER, "parse_term");
	assert_int_equal(ex_count(&x, "parse_term"), 5);
	assert_int_equal(ex_count(&x, "parse_factor"), 7);
	assert_int_equal(ex_count(&x, "parse_expr"), 1);
	assert_int_equal(ex_count(&x, "evaluate"), 0);
	xtrace_free(&x);

	ex_chrome(tc, t, depth, &x);
	ex_expect_subset(&all, &x, EX_DEPTH_AT_MOST, "2");
	assert_int_equal(ex_count(&x, "evaluate"), 2);
	assert_int_equal(ex_count(&x, "parse_expr"), 2);
	assert_int_equal(ex_count(&x, "parse_term"), 0);
	xtrace_free(&x);

	ex_expect_time_range(tc, t, &all);
	xtrace_free(&all);
	passes++;
}

/* A coroutine stack is a track of its own, above every Linux tid, named
 * after its range and the thread it was first seen on. */
static void test_chrome_gives_coroutine_stacks_tracks_of_their_own(void **state)
{
	struct tr_case *tc = *state;
	struct ex_trace co = { 0 };
	struct xtrace x;
	size_t stacks = 0;

	const char *const args[] = { "ucontext", "3", NULL };

	ex_trace_prog(tc, &co, "stack_switch", "stack_switch", args, true);
	ex_chrome(tc, &co, NULL, &x);
	ex_expect_nesting(&x);
	ex_expect_replay_counts(&x, co.replay);
	for (size_t i = 0; i < x.n; i++) {
		const char *name = xtrace_meta(&x, "thread_name", co.pid, x.slices[i].tid);

		assert_non_null(name);
		if (x.slices[i].tid >= (1u << 22)) {
			assert_true(strncmp(name, "stack 0x", 8) == 0);
			assert_non_null(strstr(name, " of thread "));
			stacks++;
		}
	}
	assert_true(stacks > 0);
	xtrace_free(&x);
	if (tr_have_tool("protoc")) /* a stack is a named track of the process */
		ex_expect_perfetto_matches_chrome(tc, &co, NULL);
	ex_trace_free(&co);
	passes++;
}

/* A fork child is a process of its own on the parent's timeline: its first
 * event comes after the parent's call of fork() started (the earliest fork
 * slice: the child's inherited one starts at its first event). */
static void test_chrome_puts_a_fork_child_on_its_parents_timeline(void **state)
{
	struct tr_case *tc = *state;
	struct ex_trace fk = { 0 };
	struct xtrace x;
	int64_t fork_ts = INT64_MAX, child_first = INT64_MAX;
	uint32_t parent = 0;

	ex_trace_prog(tc, &fk, "fork", "examples/fork.c", NULL, false);
	ex_chrome(tc, &fk, NULL, &x);
	ex_expect_nesting(&x);
	ex_expect_replay_counts(&x, fk.replay);
	assert_int_equal(xtrace_meta_count(&x, "process_name"), 2);
	for (size_t i = 0; i < x.n; i++)
		if (strcmp(x.slices[i].name, "fork") == 0 && x.slices[i].ts < fork_ts) {
			fork_ts = x.slices[i].ts;
			parent = x.slices[i].pid;
		}
	assert_true(fork_ts > 0 && fork_ts != INT64_MAX);
	for (size_t i = 0; i < x.n; i++) {
		assert_string_equal(xtrace_meta(&x, "process_name", x.slices[i].pid, 0), "fork");
		if (x.slices[i].pid != parent && x.slices[i].ts < child_first)
			child_first = x.slices[i].ts;
	}
	assert_true(child_first != INT64_MAX && child_first > fork_ts);
	xtrace_free(&x);
	ex_trace_free(&fk);
	passes++;
}

/* A program run with arguments is named by them, as a shell would run it
 * again (the viewers add the pid): the JSON's process_name and Perfetto's
 * (the importer shows only that), and Perfetto's cmdline holds argv, a word
 * each. */
/* An unfiltered chrome export larger than the viewers load (bench/micro.c:
 * 5.6 M calls, about 560 MB of JSON) says so and what to do, and writes
 * nothing; a filtered one is written, as asked. */
static void test_chrome_too_large_for_the_viewers_says_what_to_do(void **state)
{
	struct tr_case *tc = *state;
	const char *const flags[] = { "-O2", "-I" ADA_ROOT "/runtime", NULL };
	char env_out[4300], trace[4200], out[PATH_MAX], small[PATH_MAX];
	const char *const env[] = { env_out, "ADA_DETAIL=off", NULL };
	struct proc_result res = { 0 };
	struct xtrace x;

	snprintf(trace, sizeof(trace), "%s/trace_large", tc->dir);
	snprintf(env_out, sizeof(env_out), "ADA_OUTPUT=%s", trace);
	tr_build(tc, NULL, TR_ADACC, "bench/micro.c", "micro", flags);
	tr_run(tc, (const char *[]){ "./micro", "2800000", NULL }, env, &res);
	assert_int_equal(proc_exit_code(&res), 0);
	proc_result_free(&res);
	tr_path(tc, "large.json", out);
	assert_int_equal(proc_run((const char *[]){ ADA_ROOT "/bin/ada-symbolize", "chrome", "-o", out, trace, NULL }, NULL,
				  NULL, TR_TOOL_TIMEOUT_MS, &res), 0);
	assert_int_equal(proc_exit_code(&res), 1);
	assert_string_equal(res.err, "ada-symbolize chrome: about 0.6 GB of JSON for 5.6 M calls, "
				     "more than speedscope and chrome://tracing load (512 MB): narrow "
				     "it (-t 10us: the calls of 10 us or more; -r 1s~2s: a time range; "
				     "--thread N), write Perfetto's own format (ada-symbolize perfetto "
				     "-o trace.pftrace), or --large to write it anyway; nothing written\n");
	assert_int_equal(access(out, F_OK), -1);
	proc_result_free(&res);
	/* What the run did not make stays: -o /dev/null refused, not removed. */
	assert_int_equal(proc_run((const char *[]){ ADA_ROOT "/bin/ada-symbolize", "chrome", "-o",
						   "/dev/null", trace, NULL }, NULL, NULL,
				  TR_TOOL_TIMEOUT_MS, &res), 0);
	assert_int_equal(proc_exit_code(&res), 1);
	assert_int_equal(access("/dev/null", W_OK), 0);
	proc_result_free(&res);
	tr_path(tc, "small.json", small);
	assert_int_equal(proc_run((const char *[]){ ADA_ROOT "/bin/ada-symbolize", "chrome", "-F", "main", "-D", "1", "-o", small,
						   trace, NULL },
				  NULL, NULL, TR_TOOL_TIMEOUT_MS, &res), 0);
	assert_int_equal(proc_exit_code(&res), 0);
	proc_result_free(&res);
	assert_int_equal(xtrace_load(small, &x, out, sizeof(out)), 0);
	assert_int_equal(ex_count(&x, "main"), 1);
	xtrace_free(&x);
	passes++;
}

static void test_exports_name_a_process_by_its_command_line(void **state)
{
	struct tr_case *tc = *state;
	const char *const args[] = { "-v", "two words", "it's", NULL };
	struct ex_trace t = { 0 };
	struct xtrace x;
	char path[PATH_MAX];

	ex_trace_prog(tc, &t, "demo_args", "examples/demo.c", args, true);
	ex_chrome(tc, &t, NULL, &x);
	assert_int_equal(xtrace_meta_count(&x, "process_name"), 1);
	assert_string_equal(xtrace_meta(&x, "process_name", t.pid, 0),
			    "demo_args -v 'two words' 'it'\\''s'");
	xtrace_free(&x);
	if (tr_have_tool("protoc")) {
		const char *const argv[] = { tr_path(tc, "demo_args", path), "-v", "two words",
					     "it's", NULL };

		ex_expect_perfetto_process(tc, &t, argv, "demo_args -v 'two words' 'it'\\''s'");
	} else {
		print_message("protoc missing: the Perfetto half skipped\n");
	}
	ex_trace_free(&t);
	passes++;
}

/* ---- perfetto ---------------------------------------------------------------------- */

static void test_perfetto_decodes_to_balanced_interned_slices(void **state)
{
	struct tr_case *tc = *state;
	const struct ex_trace *d = ex_demo(tc, &demo), *t = ex_threads(tc, &threads);
	const char *const notrace[] = { "-N", "parse_factor", NULL };

	if (!tr_have_tool("protoc")) {
		passes++; /* a skip does not keep the directory */
		tr_require_tool(tc, "protoc");
	}
	ex_expect_perfetto_matches_chrome(tc, d, NULL);
	ex_expect_perfetto_matches_chrome(tc, t, NULL);
	ex_expect_perfetto_matches_chrome(tc, d, notrace);
	passes++;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chrome_demo_parses_nests_and_names_its_tracks),
		cmocka_unit_test(test_chrome_holds_every_call_of_the_trace),
		cmocka_unit_test(test_chrome_args_hold_registers_source_and_module),
		cmocka_unit_test(test_chrome_filters_remove_exactly_their_events),
		cmocka_unit_test(test_chrome_gives_coroutine_stacks_tracks_of_their_own),
		cmocka_unit_test(test_chrome_puts_a_fork_child_on_its_parents_timeline),
		cmocka_unit_test(test_chrome_too_large_for_the_viewers_says_what_to_do),
		cmocka_unit_test(test_exports_name_a_process_by_its_command_line),
		cmocka_unit_test(test_perfetto_decodes_to_balanced_interned_slices),
	};

	ntests = sizeof(tests) / sizeof(tests[0]);
	tr_scrub_environment();
	/* Every detail record written (the default writes them in windows
	 * around triggers only: test_windows): these tests check them all. */
	setenv("ADA_DETAIL", "all", 1);
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
