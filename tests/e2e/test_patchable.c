/* test_patchable.c - patchable mode (adacc --ada-mode=patchable): every
 * function starts with NOPs, and the runtime patches the ones ADA_FILTER
 * and ADA_NOTRACE choose into calls of the fentry path.
 *
 * tests/e2e/progs/ring.c "exit" calls run(1000), which calls step(i) 1000
 * times, each calling leaf() twice: the trees below are exact, and a
 * function left unpatched is absent while what it calls nests under its
 * caller.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/tracerun.h"

static void run(struct tr_case *tc, const char *const env[])
{
	const char *const args[] = { "exit", "1000", NULL };
	const char *const build_env[] = { "ADA_MODE=patchable", NULL };
	const char *const flags[] = { "-O2", "-I" ADA_ROOT "/runtime", "-pthread", NULL };

	tr_build(tc, NULL, "gcc", "ring", "ring.plain", flags);
	tr_build(tc, build_env, TR_ADACC, "ring", "ring", flags);
	tr_run_pair(tc, "ring", args, env, 0);
	tr_symbolize(tc, NULL);
	tr_load_manifest(tc, NULL);
}

/* The manifest's "patchable" object: one module, one pass at start-up, its
 * sites and how many were patched, none refused. */
static void expect_patchable(const struct tr_case *tc, unsigned sites, unsigned patched)
{
	const char *o = strstr(tc->mf.text, "\"patchable\": {");
	char want[4][32];

	if (!o)
		fail_msg("no \"patchable\" in the manifest:\n%s", tc->mf.text);
	snprintf(want[0], sizeof(want[0]), "\"sites\": %u,", sites);
	snprintf(want[1], sizeof(want[1]), "\"patched\": %u,", patched);
	snprintf(want[2], sizeof(want[2]), "\"refused\": 0,");
	snprintf(want[3], sizeof(want[3]), "\"passes\": 1,");
	for (int i = 0; i < 4; i++) {
		const char *at = strstr(o, want[i]);

		if (!at || at > strchr(o, '}'))
			fail_msg("no %s in the manifest's patchable object:\n%.300s", want[i], o);
	}
}

/* Every function patched: the tree fentry mode gives, the module's mode
 * "patchable". */
static void all_functions_are_patched_by_default(void **state)
{
	struct tr_case *tc = *state;

	run(tc, NULL);
	tr_expect_tree(tc->replay.out, "run\n  step x1000\n    leaf x2\n", 1);
	assert_int_equal(tc->mf.threads[0].events, 2 * (1 + 1000 + 2000));
	assert_non_null(strstr(tc->mf.text, "\"mode\": \"patchable\""));
	assert_string_equal(tc->traced.err, "");
	/* ring.c's three functions have sites (main and worker none), all patched. */
	expect_patchable(tc, 3, 3);
	tr_pass(tc);
}

/* ADA_FILTER: only step is patched; leaf runs its NOPs. */
static void a_filter_patches_only_the_functions_it_names(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_FILTER=st*", NULL };

	run(tc, env);
	tr_expect_tree(tc->replay.out, "step x1000\n", 1);
	assert_int_equal(tc->mf.threads[0].events, 2000);
	expect_patchable(tc, 3, 1);
	tr_pass(tc);
}

/* ADA_NOTRACE: step is left out, its leaf calls nest under run. */
static void notrace_leaves_functions_out(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_NOTRACE=step", NULL };

	run(tc, env);
	tr_expect_tree(tc->replay.out, "run\n  leaf x2000\n", 1);
	tr_pass(tc);
}

/* Both: the filter's functions less those of notrace. */
static void filter_and_notrace_combine(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_FILTER=run,leaf,step", "ADA_NOTRACE=run", NULL };

	run(tc, env);
	tr_expect_tree(tc->replay.out, "step x1000\n  leaf x2\n", 1);
	tr_pass(tc);
}

/* A glob that matches no function is said in one line; the rest works. */
static void a_glob_matching_nothing_is_named(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_FILTER=run,nosuch*", NULL };

	run(tc, env);
	assert_string_equal(tc->traced.err, "ada: ADA_FILTER=run,nosuch*: nosuch* matches no patchable function\n");
	tr_expect_tree(tc->replay.out, "run\n", 1);
	tr_pass(tc);
}

/* An empty item: one line naming the variable, and no filter. */
static void a_bad_filter_is_named(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_FILTER=run,,leaf", NULL };

	run(tc, env);
	assert_string_equal(tc->traced.err,
			    "ada: ADA_FILTER=run,,leaf is not valid: expected function-name globs "
			    "separated by commas (e.g. parse_*,main); ignored\n");
	tr_expect_tree(tc->replay.out, "run\n  step x1000\n    leaf x2\n", 1);
	tr_pass(tc);
}

/* toggle.c with its way of switching: leaf(0..99) recorded, leaf(0..99)
 * not (its entry back to a NOP meanwhile), leaf(0..99) recorded (patched
 * again). */
static void toggle(struct tr_case *tc, const char *how, const char *const env[])
{
	const char *const args[] = { how, "100", NULL };
	const char *const build_env[] = { "ADA_MODE=patchable", NULL };
	const char *const flags[] = { "-O2", "-I" ADA_ROOT "/runtime", NULL };

	tr_build(tc, NULL, "gcc", "toggle", "toggle.plain", flags);
	tr_build(tc, build_env, TR_ADACC, "toggle", "toggle", flags);
	tr_run_pair(tc, "toggle", args, env, 0);
	assert_string_equal(tc->traced.err, "leaf unpatched\nleaf patched\n");
	tr_symbolize(tc, NULL);
	tr_expect_tree(tc->replay.out, "leaf x200\n", 1);
	tr_pass(tc);
}

static void the_api_unpatches_and_patches_again(void **state)
{
	toggle(*state, "api", NULL);
}

static void the_toggle_signal_switches_recording(void **state)
{
	const char *const env[] = { "ADA_TOGGLE_SIGNAL=SIGUSR2", NULL };

	toggle(*state, "signal", env);
}

/* 8 threads call leaf() while its entry is unpatched and patched again 20
 * times, then 1000 times more each: no crash, the same output, and a
 * balanced trace (--check) on every thread, of whole calls. */
static void patching_under_running_threads(void **state)
{
	struct tr_case *tc = *state;
	const char *const args[] = { "threads", NULL };
	const char *const build_env[] = { "ADA_MODE=patchable", NULL };
	const char *const flags[] = { "-O2", "-I" ADA_ROOT "/runtime", "-pthread", NULL };

	tr_build(tc, NULL, "gcc", "toggle", "toggle.plain", flags);
	tr_build(tc, build_env, TR_ADACC, "toggle", "toggle", flags);
	tr_run_pair(tc, "toggle", args, NULL, 0);
	tr_symbolize(tc, NULL);
	tr_load_manifest(tc, NULL);
	assert_string_equal(tc->traced.out, "done\n");
	assert_int_equal(tc->mf.nthreads, 8);
	for (size_t i = 0; i < tc->mf.nthreads; i++) {
		assert_true(tc->mf.threads[i].events >= 2000);
		assert_int_equal(tc->mf.threads[i].events % 2, 0);
		assert_int_equal(tc->mf.threads[i].open_at_end, 0);
	}
	tr_pass(tc);
}

/* A patchable library dlopen'ed by the program: the writer patches it
 * when it sees the loader's counts move (the dynamic hooks are off here),
 * and its function's 100 calls are in the trace. */
static void a_dlopened_library_is_patched(void **state)
{
	struct tr_case *tc = *state;
	const char *const lib_env[] = { "ADA_MODE=patchable", NULL };
	const char *const lib_flags[] = { "-O2", "-shared", "-fPIC", NULL };
	const char *const plain_args[] = { "plugin", "100", "./libwplugin.plain.so", NULL };
	const char *const traced_args[] = { "plugin", "100", "./libwplugin.so", NULL };
	const char *const flags[] = { "-O2", "-I" ADA_ROOT "/runtime", NULL };

	tr_build(tc, NULL, "gcc", "windows_plugin", "libwplugin.plain.so", lib_flags);
	tr_build(tc, lib_env, TR_ADACC, "windows_plugin", "libwplugin.so", lib_flags);
	tr_build(tc, NULL, "gcc", "toggle", "toggle.plain", flags);
	tr_build(tc, lib_env, TR_ADACC, "toggle", "toggle", flags);
	tr_run_pair_args(tc, "toggle", plain_args, traced_args, NULL, 0);
	tr_symbolize(tc, NULL);
	tr_expect_tree(tc->replay.out, "plugin_target x100\n", 1);
	tr_pass(tc);
}

#define T(name) cmocka_unit_test_setup_teardown(name, tr_setup, tr_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(all_functions_are_patched_by_default),
		T(a_filter_patches_only_the_functions_it_names),
		T(notrace_leaves_functions_out),
		T(filter_and_notrace_combine),
		T(a_glob_matching_nothing_is_named),
		T(a_bad_filter_is_named),
		T(the_api_unpatches_and_patches_again),
		T(the_toggle_signal_switches_recording),
		T(patching_under_running_threads),
		T(a_dlopened_library_is_patched),
	};

	tr_scrub_environment();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
