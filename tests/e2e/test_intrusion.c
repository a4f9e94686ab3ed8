/* test_intrusion.c - the program never notices ada, at its edges.
 *
 * Issue 23's classes of intrusion, each a program of tests/e2e/progs/ built
 * with gcc and with adacc in the modes where it showed (fentry, cyg,
 * patchable, mcount) at -O2: the traced build must print what the plain
 * one prints, exit as it exits, say nothing more on stderr, and its trace
 * must hold exactly the calls it made.
 *
 *  - small stacks: threads on PTHREAD_STACK_MIN (16 KiB) stacks start
 *    traced (the set-up once put a 4.5 KB path buffer there: SIGSEGV);
 *  - the descriptor table: open() returns the lowest free number while
 *    threads start (their ring files once took numbers in the program's
 *    table, 2,403 of 20,000 opens in fentry mode).
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/tracerun.h"

static const char *const MODES[] = { "fentry", "cyg", "patchable", "mcount" };
#define NMODES (sizeof(MODES) / sizeof(MODES[0]))
static const char *const O2[] = { "-O2", NULL };

/* The program's own calls only: no library calls, no detail lines. */
#define QUIET_ENV "ADA_DYNHOOK=off", "ADA_DETAIL=off"

/* Runs both builds with their trace in <dir>/trace-<out>; the traced one's
 * stdout, status and stderr are the plain one's. Returns the trace's path
 * in trace (PATH_MAX bytes). */
static void run_both(struct tr_case *tc, const char *out, const char *const args[], char *trace)
{
	char name[96], env_out[PATH_MAX + 16];

	snprintf(name, sizeof(name), "trace-%s", out);
	tr_path(tc, name, trace);
	snprintf(env_out, sizeof(env_out), "ADA_OUTPUT=%s", trace);
	const char *const env[] = { QUIET_ENV, env_out, NULL };

	tr_run_pair(tc, out, args, env, 0);
	assert_string_equal(tc->traced.err, tc->plain.err);
}

/* ---- small stacks ---------------------------------------------------------------- */

static void threads_on_the_smallest_stacks_start_traced(void **state)
{
	struct tr_case *tc = *state;
	const char *const args[] = { "4", "100", NULL };
	char out[64], trace[PATH_MAX], tree[512] = "main\n";

	for (int t = 0; t < 4; t++)
		strcat(tree, "--- thread\nworker\n  middle x100\n    leaf x2\n");
	for (size_t m = 0; m < NMODES; m++) {
		tr_build_mode_pair(tc, "small_stack", MODES[m], out, sizeof(out), O2);
		run_both(tc, out, args, trace);
		assert_string_equal(tc->traced.out, "4 threads on 16384-byte stacks: sum 3720800\n");
		tr_symbolize(tc, trace);
		tr_expect_tree(tc->replay.out, tree, 1);
		tr_load_manifest(tc, trace);
		assert_int_equal(tc->mf.events, 2 * (1 + 4 * (1 + 100 + 200)));
		for (int r = 0; r < TR_NDROPS; r++)
			assert_int_equal(tc->mf.dropped[r], 0);
	}
	tr_pass(tc);
}

/* ---- the descriptor table ------------------------------------------------------------ */

static void opens_get_the_lowest_number_while_threads_start(void **state)
{
	struct tr_case *tc = *state;
	const char *const args[] = { "20000", "200", NULL };
	char out[64], trace[PATH_MAX];

	for (size_t m = 0; m < NMODES; m++) {
		tr_build_mode_pair(tc, "fd_lowest", MODES[m], out, sizeof(out), O2);
		run_both(tc, out, args, trace);
		assert_string_equal(tc->traced.out,
				    "200 threads started; opens not at the lowest number: 0\n");
		tr_symbolize(tc, trace);
		tr_load_manifest(tc, trace);
		/* main, the starter, and 200 threads of short_thread + 100 work. */
		assert_int_equal(tc->mf.nthreads, 202);
		assert_int_equal(tc->mf.events, 2 * (1 + 1 + 200 * 101));
		for (int r = 0; r < TR_NDROPS; r++)
			assert_int_equal(tc->mf.dropped[r], 0);
	}
	tr_pass(tc);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, tr_setup, tr_teardown)
	const struct CMUnitTest tests[] = {
		T(threads_on_the_smallest_stacks_start_traced),
		T(opens_get_the_lowest_number_while_threads_start),
	};

	tr_scrub_environment();
	return cmocka_run_group_tests_name("the program never notices", tests, NULL, NULL);
}
