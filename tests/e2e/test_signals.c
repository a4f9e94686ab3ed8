/* test_signals.c - traced calls made by a signal handler.
 *
 * tests/e2e/progs/sigalrm.c loops in spin() while an interval timer's SIGALRM
 * handler calls tick() five times. The handler runs on the thread's stack,
 * below spin()'s frame, so its calls nest under spin(), the frame the signal
 * interrupted; the program's result is the same traced or not, and the trace
 * is balanced. Built at -O0 and -O2.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "lib/tracerun.h"

static void check_sigalrm(struct tr_case *tc, const char *opt)
{
	const char *const flags[] = { opt, NULL };

	tr_build_pair(tc, "sigalrm", "sigalrm", flags);
	tr_run_pair(tc, "sigalrm", NULL, NULL, 0);
	assert_string_equal(tc->traced.out, "ticks 5, spun\n");
	assert_string_equal(tc->traced.err, "");
	tr_symbolize(tc, NULL);
	tr_expect_tree(tc->replay.out, "main\n  spin\n    on_alarm x5\n      tick\n", 1);
	tr_load_manifest(tc, NULL);
	for (unsigned r = 0; r < TR_NDROPS; r++)
		assert_int_equal(tc->mf.dropped[r], 0);
	tr_pass(tc);
}

static void handler_calls_nest_under_the_interrupted_frame_O0(void **state)
{
	check_sigalrm(*state, "-O0");
}

static void handler_calls_nest_under_the_interrupted_frame_O2(void **state)
{
	check_sigalrm(*state, "-O2");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(handler_calls_nest_under_the_interrupted_frame_O0,
						tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(handler_calls_nest_under_the_interrupted_frame_O2,
						tr_setup, tr_teardown),
	};

	tr_scrub_environment();
	return cmocka_run_group_tests_name("runtime signals", tests, NULL, NULL);
}
