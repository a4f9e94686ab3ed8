/* test_signals.c - traced calls made by a signal handler.
 *
 * tests/e2e/progs/sigalrm.c loops in spin() while an interval timer's SIGALRM
 * handler calls tick() five times. The handler runs on the thread's stack,
 * below spin()'s frame, so its calls nest under spin(), the frame the signal
 * interrupted; the program's result is the same traced or not, and the trace
 * is balanced. Built at -O0 and -O2.
 *
 * tests/e2e/progs/sigjmp_hook.c siglongjmps out of a SIGALRM handler every
 * 50 us while main calls work() 2,000,000 times: a jump out of a handler
 * that interrupted a hook must not leave the reentrancy guard taken (the
 * thread then recorded nothing more, all counted as reentrant).
 *
 * tests/e2e/progs/fork_jump.c siglongjmps out of fork() (the runtime's fork
 * handlers must not be left half done).
 *
 * tests/e2e/progs/sig_count.c calls tick() from a handler every 20 us while
 * main calls work(): a call made in a handler that interrupted a hook is
 * not recorded, and is counted as reentrant for both its events, in every
 * mode (fentry counted one: the entry, not the RETURN it then loses), so
 * events written + reentrant = 2 x calls, exactly.
 *
 * The first two run in mcount mode too: its frames' returns are hijacked,
 * and what the handler and the jumps out of it leave must still nest and
 * close exactly (test_hijack has the rest of that mode's cases).
 *
 * With --target=aarch64 (make check-aarch64, lib/target.h) the programs are
 * cross-built and run under qemu-aarch64, in cyg and mcount modes: the
 * fentry case skips there, and so does fork_jump for now (below).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "lib/calltree.h"
#include "lib/target.h"
#include "lib/tracerun.h"

/* tr_build_pair(), the traced build in `mode` (an --ada-mode= flag, or NULL
 * for adacc's default), which the plain compiler is not given. */
static void build_pair(struct tr_case *tc, const char *prog, const char *opt, const char *mode)
{
	char plain_out[64];
	const char *const plain[] = { opt, NULL }, *const traced[] = { opt, mode, NULL };

	snprintf(plain_out, sizeof(plain_out), "%s.plain", prog);
	tr_build(tc, NULL, "gcc", prog, plain_out, plain);
	tr_build(tc, NULL, TR_ADACC, prog, prog, traced);
}

static void check_sigalrm(struct tr_case *tc, const char *opt, const char *mode)
{
	build_pair(tc, "sigalrm", opt, mode);
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
	check_sigalrm(*state, "-O0", NULL);
}

static void handler_calls_nest_under_the_interrupted_frame_O2(void **state)
{
	check_sigalrm(*state, "-O2", NULL);
}

static void handler_calls_nest_under_the_interrupted_frame_mcount_O0(void **state)
{
	check_sigalrm(*state, "-O0", "--ada-mode=mcount");
}

static void handler_calls_nest_under_the_interrupted_frame_mcount_O2(void **state)
{
	check_sigalrm(*state, "-O2", "--ada-mode=mcount");
}

static void check_sigjmp_hook(struct tr_case *tc, const char *mode)
{
	const struct tr_thread *th;

	build_pair(tc, "sigjmp_hook", "-O2", mode);
	tr_run_pair(tc, "sigjmp_hook", NULL, NULL, 0);
	assert_string_equal(tc->traced.out, "done\n");
	tr_symbolize(tc, NULL);
	tr_load_manifest(tc, NULL);
	th = &tc->mf.threads[0];
	/* Every call is a CALL and a RETURN or EXCEPTION, except those a
	 * signal interrupted in a hook (at most one event each): before the
	 * guard was taken back, all but the first few thousand were lost. */
	if (th->events < 2 * 2000000 * 9 / 10)
		fail_msg("%llu events for 2,000,000 calls (reentrant %llu)",
			 (unsigned long long)th->events,
			 (unsigned long long)th->dropped[TR_REENTRANT]);
	assert_true(th->dropped[TR_REENTRANT] < 2000000 / 10);
	tr_pass(tc);
}

static void siglongjmp_out_of_a_hook_keeps_the_thread_traced(void **state)
{
	check_sigjmp_hook(*state, NULL);
}

static void siglongjmp_out_of_a_hook_keeps_the_thread_traced_mcount(void **state)
{
	check_sigjmp_hook(*state, "--ada-mode=mcount");
}

/* A timer's handler siglongjmps out of fork() 300 times (fork is
 * async-signal-safe): the runtime's fork handlers run with signals blocked,
 * so no jump leaves the writer's lock or the thread's guard taken. Before,
 * the next fork deadlocked on the lock. The program ends, and its 1,000
 * calls after the storm are in the trace; the children record nothing. */
static void siglongjmp_out_of_fork_keeps_the_thread_traced(void **state)
{
	struct tr_case *tc = *state;
	const char *const flags[] = { "-O2", NULL };
	const char *const env[] = { "ADA_DYNHOOK=off", "ADA_DETAIL=off", NULL };

	if (target_arch) {
		/* Too slow under qemu-user, not stuck: each fork child sets up
		 * a trace of its own (its shared memory, a pid directory, a
		 * recorder), tens of milliseconds of emulation a child, and
		 * the children pile up (60 rounds: 35-50 s, load 50 on two
		 * CPUs; plain: 0.5 s for 300). */
		tr_pass(tc);
		skip();
	}
	tr_build_pair(tc, "fork_jump", "fork_jump", flags);
	tr_run_pair(tc, "fork_jump", NULL, env, 0);
	assert_string_equal(tc->traced.out, "sum 499500\n");
	tr_symbolize(tc, NULL);
	tr_expect_tree(tc->replay.out, "work x1000\n", 1);
	tr_pass(tc);
}

static void check_sig_count(struct tr_case *tc, const char *mode)
{
	const char *const plain[] = { "-O2", NULL }, *const traced[] = { "-O2", mode, NULL };
	/* Under qemu-user a signal costs about what the timer's 20 us give:
	 * the run is mostly signals, and takes minutes on a loaded machine
	 * for 300,000 calls (its handler's included, as many again). */
	const char *const args[] = { target_arch ? "30000" : NULL, NULL };
	unsigned long long calls = 0;
	const struct tr_thread *th;

	if (target_arch && strstr(mode, "fentry")) {
		tr_pass(tc);
		skip(); /* aarch64 has cyg and mcount modes: gcc has no -mfentry there */
	}
	tr_build(tc, NULL, "gcc", "sig_count", "sig_count.plain", plain);
	tr_build(tc, NULL, TR_ADACC, "sig_count", "sig_count", traced);
	tr_run_pair(tc, "sig_count", args, NULL, 0);
	assert_string_equal(tc->traced.out, "done\n");
	if (sscanf(tc->traced.err, "calls %llu", &calls) != 1)
		fail_msg("no call count on stderr: %s", tc->traced.err);
	tr_symbolize(tc, NULL);
	tr_load_manifest(tc, NULL);
	th = &tc->mf.threads[0];
	for (unsigned r = 0; r < TR_NDROPS; r++)
		if (r != TR_REENTRANT)
			assert_int_equal(th->dropped[r], 0);
	if (th->events + th->dropped[TR_REENTRANT] != 2 * calls)
		fail_msg("%s: %llu events written + %llu reentrant, for %llu calls", mode,
			 (unsigned long long)th->events,
			 (unsigned long long)th->dropped[TR_REENTRANT], calls);
	tr_pass(tc);
}

static void calls_lost_in_a_handler_count_both_events_fentry(void **state)
{
	check_sig_count(*state, "--ada-mode=fentry");
}

static void calls_lost_in_a_handler_count_both_events_mcount(void **state)
{
	check_sig_count(*state, "--ada-mode=mcount");
}

static void calls_lost_in_a_handler_count_both_events_cyg(void **state)
{
	check_sig_count(*state, "--ada-mode=cyg");
}

/* cyg mode sees no return that the program skips: a frame left by
 * longjmp is closed when a frame enters above its position, or when the
 * same function enters again from the same call site, at the same
 * position (hijack_longjmp's again(): jumper() called ten times in a loop,
 * each leaving by a longjmp from leap() inside it). Each jumper is again's
 * child, not the one before's. (A sibling entering at the same call depth
 * from another site is told from a nested one by its stack pointer after
 * its prologue, which cyg's hooks see: d() after b() is left to the tests
 * of the hijacking modes.) */
static void check_cyg_longjmp_loop(struct tr_case *tc, const char *opt)
{
	const char *const plain[] = { opt, NULL }, *const traced[] = { opt, "--ada-mode=cyg", NULL };
	const char *const env[] = { "ADA_DYNHOOK=off", NULL };

	tr_build(tc, NULL, "gcc", "hijack_longjmp", "hijack_longjmp.plain", plain);
	tr_build(tc, NULL, TR_ADACC, "hijack_longjmp", "hijack_longjmp", traced);
	tr_run_pair(tc, "hijack_longjmp", NULL, env, 0);
	assert_string_equal(tc->traced.out, "a: back from c with 3\nd: 4\nagain: 10 jumps, total 55\n");
	tr_symbolize(tc, NULL);
	assert_int_equal(calltree_calls(tc->replay.out, "jumper", "again"), 10);
	assert_int_equal(calltree_calls(tc->replay.out, "jumper", "jumper"), 0);
	assert_int_equal(calltree_calls(tc->replay.out, "leap", "jumper"), 10);
	assert_int_equal(calltree_calls(tc->replay.out, "again", "main"), 1);
	tr_pass(tc);
}

static void longjmp_in_a_loop_closes_each_call_cyg_O0(void **state)
{
	check_cyg_longjmp_loop(*state, "-O0");
}

static void longjmp_in_a_loop_closes_each_call_cyg_O2(void **state)
{
	check_cyg_longjmp_loop(*state, "-O2");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(handler_calls_nest_under_the_interrupted_frame_O0,
						tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(siglongjmp_out_of_a_hook_keeps_the_thread_traced,
						tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(handler_calls_nest_under_the_interrupted_frame_O2,
						tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(siglongjmp_out_of_fork_keeps_the_thread_traced,
						tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(calls_lost_in_a_handler_count_both_events_fentry,
						tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(calls_lost_in_a_handler_count_both_events_mcount,
						tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(calls_lost_in_a_handler_count_both_events_cyg,
						tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(longjmp_in_a_loop_closes_each_call_cyg_O0,
						tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(longjmp_in_a_loop_closes_each_call_cyg_O2,
						tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(handler_calls_nest_under_the_interrupted_frame_mcount_O0,
						tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(handler_calls_nest_under_the_interrupted_frame_mcount_O2,
						tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(siglongjmp_out_of_a_hook_keeps_the_thread_traced_mcount,
						tr_setup, tr_teardown),
	};

	if (target_parse(&argc, argv) < 0)
		return 2;
	tr_scrub_environment();
	return cmocka_run_group_tests_name(target_arch ? "runtime signals aarch64" : "runtime signals",
					   tests, NULL, NULL);
}
