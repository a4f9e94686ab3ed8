/* test_graph.c - choosing what a patchable build records, beyond the
 * filters: ADA_GRAPH (only inside chosen functions' calls), ADA_DEPTH, and
 * func:GLOB:trace_on / trace_off triggers with ADA_TRACE=off.
 *
 * tests/e2e/progs/ring.c "exit" calls run(1000), which calls step(i) 1000
 * times, each calling leaf() twice (main is not traced): the trees below
 * are exact.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "lib/tracerun.h"

/* ring.c built in mode (patchable, fentry), run with env, symbolized. */
static void run_mode(struct tr_case *tc, const char *mode, const char *const env[])
{
	const char *const args[] = { "exit", "1000", NULL };
	char mode_var[32];
	const char *const build_env[] = { mode_var, NULL };
	const char *const flags[] = { "-O2", "-I" ADA_ROOT "/runtime", "-pthread", NULL };

	snprintf(mode_var, sizeof(mode_var), "ADA_MODE=%s", mode);
	tr_build(tc, NULL, "gcc", "ring", "ring.plain", flags);
	tr_build(tc, build_env, TR_ADACC, "ring", "ring", flags);
	tr_run_pair(tc, "ring", args, env, 0);
	tr_symbolize(tc, NULL);
	tr_load_manifest(tc, NULL);
}

static void run(struct tr_case *tc, const char *const env[])
{
	run_mode(tc, "patchable", env);
}

/* The graph function and what it calls; run, outside, is not recorded
 * (its hook returns at once: no frame, no hijacked return). */
static void graph_records_only_inside_the_graph_function(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_GRAPH=step", NULL };

	run(tc, env);
	assert_string_equal(tc->traced.err, "");
	tr_expect_tree(tc->replay.out, "step x1000\n  leaf x2\n", 1);
	assert_int_equal(tc->mf.threads[0].events, 2 * (1000 + 2000));
	assert_int_equal(tc->mf.dropped[TR_MAX_DEPTH], 0);
	tr_pass(tc);
}

/* A graph function called inside another's call nests as usual. */
static void graph_functions_nest(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_GRAPH=run,step", NULL };

	run(tc, env);
	tr_expect_tree(tc->replay.out, "run\n  step x1000\n    leaf x2\n", 1);
	tr_pass(tc);
}

/* ADA_DEPTH=2: leaf, at depth 3, is cut (counted as max_depth: its 2000
 * calls and returns). */
static void depth_cuts_the_tree(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_DEPTH=2", NULL };

	run(tc, env);
	tr_expect_tree(tc->replay.out, "run\n  step x1000\n", 1);
	assert_int_equal(tc->mf.threads[0].events, 2 * (1 + 1000));
	assert_int_equal(tc->mf.dropped[TR_MAX_DEPTH], 2 * 2000);
	tr_pass(tc);
}

/* With a graph function, depth counts from it. */
static void depth_counts_from_the_graph_function(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_GRAPH=step", "ADA_DEPTH=1", NULL };

	run(tc, env);
	tr_expect_tree(tc->replay.out, "step x1000\n", 1);
	assert_int_equal(tc->mf.dropped[TR_MAX_DEPTH], 2 * 2000);
	tr_pass(tc);
}

/* ADA_TRACE=off: nothing until step turns recording on; step itself is
 * recorded, run (entered before) is not. */
static void trace_on_starts_recording(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_TRACE=off", "ADA_TRIGGER=func:step:trace_on", NULL };

	run(tc, env);
	assert_string_equal(tc->traced.err, "");
	tr_expect_tree(tc->replay.out, "step x1000\n  leaf x2\n", 1);
	assert_non_null(strstr(tc->mf.config, "trace=off"));
	assert_non_null(strstr(tc->mf.config, "func:step:trace_on,"));
	tr_pass(tc);
}

/* The first leaf turns recording off (and is not recorded); run and the
 * first step, entered before, return into the trace. */
static void trace_off_stops_recording(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_TRIGGER=func:leaf:trace_off", NULL };

	run(tc, env);
	tr_expect_tree(tc->replay.out, "run\n  step\n", 1);
	assert_int_equal(tc->mf.threads[0].events, 4);
	tr_pass(tc);
}

/* Each step turns recording on and its first leaf off again: step's entry
 * stays patched while recording is off (trace_on's always do), leaf's is
 * a NOP until the next step. */
static void trace_on_and_off_alternate(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_TRIGGER=func:step:trace_on,func:leaf:trace_off", NULL };

	run(tc, env);
	tr_expect_tree(tc->replay.out, "run\n  step x1000\n", 1);
	tr_pass(tc);
}

/* Globs naming nothing: one line each, the rest as asked. */
static void unknown_names_are_said(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_GRAPH=step,nosuch", "ADA_TRIGGER=func:nope*:trace_on",
				    NULL };

	run(tc, env);
	assert_string_equal(tc->traced.err,
			    "ada: ADA_GRAPH=step,nosuch: nosuch matches no patchable function\n"
			    "ada: ADA_TRIGGER=func:nope*:trace_on: nope* matches no patchable "
			    "function\n");
	tr_expect_tree(tc->replay.out, "step x1000\n  leaf x2\n", 1);
	tr_pass(tc);
}

/* A bad trace_on item: one line; the other items are kept. */
static void a_bad_switch_is_said(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_TRIGGER=func:a>5ms:trace_on,nocrash", NULL };

	run(tc, env);
	assert_string_equal(tc->traced.err,
			    "ada: ADA_TRIGGER=func:a>5ms:trace_on,nocrash: \"func:a>5ms:trace_on\" "
			    "is not valid: expected func:GLOB:trace_on or func:GLOB:trace_off (a "
			    "function name or shell glob; 500 characters in all); ignoring it\n");
	assert_non_null(strstr(tc->mf.config, "trigger=nocrash"));
	tr_expect_tree(tc->replay.out, "run\n  step x1000\n    leaf x2\n", 1);
	tr_pass(tc);
}

/* Built with fentry, nothing is patchable: ADA_GRAPH and the switches are
 * said to be ignored, and everything is recorded. */
static void without_patchable_modules_they_are_ignored(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_GRAPH=step", "ADA_TRIGGER=func:step:trace_off", NULL };

	run_mode(tc, "fentry", env);
	assert_string_equal(tc->traced.err,
			    "ada: ADA_GRAPH=step: no module was built with --ada-mode=patchable; "
			    "recording every call\n"
			    "ada: ADA_TRIGGER=func:step:trace_off: trace_on and trace_off need a "
			    "module built with --ada-mode=patchable; ignoring them\n");
	tr_expect_tree(tc->replay.out, "run\n  step x1000\n    leaf x2\n", 1);
	tr_pass(tc);
}

/* Built with clang: the same sites, the same trees. */
static void clang_builds_patch_the_same(void **state)
{
	struct tr_case *tc = *state;
	const char *const args[] = { "exit", "1000", NULL };
	const char *const build_env[] = { "ADA_MODE=patchable", "ADA_CC=clang", NULL };
	const char *const flags[] = { "-O2", "-I" ADA_ROOT "/runtime", "-pthread", NULL };
	const char *const env[] = { "ADA_GRAPH=step", NULL };

	tr_require_tool(tc, "clang");
	tr_build(tc, NULL, "clang", "ring", "ring.plain", flags);
	tr_build(tc, build_env, TR_ADACC, "ring", "ring", flags);
	tr_run_pair(tc, "ring", args, env, 0);
	tr_symbolize(tc, NULL);
	tr_expect_tree(tc->replay.out, "step x1000\n  leaf x2\n", 1);
	tr_pass(tc);
}

/* A patchable executable calling into a library built in fentry mode:
 * the library's hooks are gated by the executable's graph function too
 * (tests/e2e/progs/shlib*.c; -O0: at -O2 gcc calls measure's clone). */
static void patchable_and_fentry_modules_mix(void **state)
{
	struct tr_case *tc = *state;
	const char *const lib[] = { "-O2", "-shared", "-fPIC", "-Wl,-soname,libshape.so", NULL };
	const char *const fentry[] = { "ADA_MODE=fentry", NULL };
	const char *const patchable[] = { "ADA_MODE=patchable", NULL };
	const char *const plain[] = { "-O0", "-Lplain", "-lshape", "-Wl,-rpath,$ORIGIN/plain", NULL };
	const char *const traced[] = { "-O0", "-Ltraced", "-lshape", "-Wl,-rpath,$ORIGIN/traced",
				       NULL };
	const char *const env[] = { "ADA_GRAPH=measure", NULL };

	tr_build_lib_pair(tc, "shlib", "libshape.so", fentry, lib, lib);
	tr_build(tc, NULL, "gcc", "shlib_main", "shmain.plain", plain);
	tr_build(tc, patchable, TR_ADACC, "shlib_main", "shmain", traced);
	tr_run_pair(tc, "shmain", NULL, env, 0);
	assert_string_equal(tc->traced.out, "area 24\n");
	tr_symbolize(tc, NULL);
	tr_expect_tree(tc->replay.out, "measure\n  lib_area\n    lib_square x2\n", 1);
	tr_load_manifest(tc, NULL);
	if (!strstr(tc->mf.text, "\"mode\": \"patchable\"}") ||
	    !strstr(tc->mf.text, "\"mode\": \"fentry\"}"))
		fail_msg("the manifest does not tell the modes (patchable, fentry):\n%s", tc->mf.text);
	tr_pass(tc);
}

#define T(name) cmocka_unit_test_setup_teardown(name, tr_setup, tr_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(graph_records_only_inside_the_graph_function),
		T(graph_functions_nest),
		T(depth_cuts_the_tree),
		T(depth_counts_from_the_graph_function),
		T(trace_on_starts_recording),
		T(trace_off_stops_recording),
		T(trace_on_and_off_alternate),
		T(unknown_names_are_said),
		T(a_bad_switch_is_said),
		T(without_patchable_modules_they_are_ignored),
		T(clang_builds_patch_the_same),
		T(patchable_and_fentry_modules_mix),
	};

	tr_scrub_environment();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
