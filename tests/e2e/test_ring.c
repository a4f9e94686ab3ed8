/* test_ring.c - ring mode (ADA_RECORD=ring): the rings roll over, and a
 * snapshot writes what they hold.
 *
 * tests/e2e/progs/ring.c calls run(1000): run's CALL at position 0, step
 * i's CALL at 1 + 6i (each step calls leaf twice), run's RETURN at 6001.
 * With ADA_RING_KB=64 a ring holds 4096 slots, and a snapshot takes 3/4
 * of it: the 3072 positions before the snapshot's end. Built in fentry
 * mode with the dynamic hooks off, the thread's events are exactly the
 * program's calls, so the test knows which calls each snapshot holds,
 * which frames it cut (entered before it: shown as entered at its start),
 * and what the manifest says of it.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include <cmocka.h>

#include "lib/tracerun.h"

#define RING_ENV "ADA_RECORD=ring", "ADA_RING_KB=64"

static void run(struct tr_case *tc, const char *what, const char *const env[], int status)
{
	const char *const args[] = { what, "1000", NULL };
	const char *const build_env[] = { "ADA_MODE=fentry", NULL };
	const char *const flags[] = { "-O2", "-I" ADA_ROOT "/runtime", "-pthread", NULL };

	tr_build(tc, NULL, "gcc", "ring", "ring.plain", flags);
	tr_build(tc, build_env, TR_ADACC, "ring", "ring", flags);
	tr_run_pair(tc, "ring", args, env, status);
	tr_symbolize(tc, NULL);
	tr_load_manifest(tc, NULL);
}

/* The manifest lists a window with exactly these fields, count times. */
static void expect_windows(const struct tr_case *tc, size_t count, const char *trigger,
			   const char *label, uint64_t trigger_pos, uint64_t first, uint64_t last,
			   uint64_t kept)
{
	char f[6][96];
	const char *const needles[] = { f[0], f[1], f[2], f[3], f[4], f[5], NULL };

	snprintf(f[0], sizeof(f[0]), "\"trigger\": \"%s\", \"label\": \"%s\"", trigger, label);
	snprintf(f[1], sizeof(f[1]), "\"trigger_position\": %" PRIu64 ",", trigger_pos);
	snprintf(f[2], sizeof(f[2]), "\"first_position\": %" PRIu64 ",", first);
	snprintf(f[3], sizeof(f[3]), "\"last_position\": %" PRIu64 ",", last);
	snprintf(f[4], sizeof(f[4]), "\"details_kept\": %" PRIu64 ", \"details_lost\": 0,", kept);
	snprintf(f[5], sizeof(f[5]), "\"triggers\": 1}");
	if (tr_count_lines(tc->mf.text, needles) != count)
		fail_msg("not %zu window(s) \"%s %s %" PRIu64 " %" PRIu64 "..%" PRIu64
			 " kept %" PRIu64 "\" in:\n%s", count, trigger, label, trigger_pos, first,
			 last, kept, tc->mf.text);
}

/* At exit the ring holds positions 1930..6001 (4096 slots, one spare);
 * the snapshot is 2930..6001: step 488's first leaf onwards. step 488 and
 * run return in it without their calls: both are entered at its start. */
static void at_exit_the_last_three_quarters_of_the_ring_are_written(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { RING_ENV, NULL };

	run(tc, "exit", env, 0);
	tr_expect_tree(tc->replay.out, "run\n  step x512\n    leaf x2\n", 1);
	assert_int_equal(tc->mf.threads[0].events, 3072 + 2);
	for (unsigned r = 0; r < TR_NDROPS; r++)
		assert_int_equal(tc->mf.dropped[r], 0);
	expect_windows(tc, 1, "end", "process end", 6001, 2930, 6001, 3072);
	/* Nothing was lost: what the ring rolled over is not counted. */
	assert_null(strstr(tc->traced.err, "not recorded"));
	tr_pass(tc);
}

/* ADA_DETAIL=off: the same events, no record. */
static void without_details_the_index_is_the_same(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { RING_ENV, "ADA_DETAIL=off", NULL };

	run(tc, "exit", env, 0);
	tr_expect_tree(tc->replay.out, "run\n  step x512\n    leaf x2\n", 1);
	expect_windows(tc, 1, "end", "process end", 6001, 2930, 6001, 0);
	tr_pass(tc);
}

/* ada_snapshot() while both threads wait after run(1000) (their position:
 * 6002): with ADA_POST=10 each snapshot ends at 6012 and starts 3072
 * before its end, at step 490's CALL; run returns in it, entered at its
 * start. Their run(100) after it is written when each thread ends, with
 * no cut (the ring still held it all). */
static void a_snapshot_takes_every_thread_up_to_its_post_roll(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { RING_ENV, "ADA_POST=10", NULL };

	run(tc, "snapshot", env, 0);
	assert_int_equal(tc->mf.nthreads, 2);
#define SNAPSHOT_TREE "run\n  step x510\n    leaf x2\nrun\n  step x100\n    leaf x2\n"
	tr_expect_tree(tc->replay.out, SNAPSHOT_TREE "--- thread\n" SNAPSHOT_TREE, 1);
	for (unsigned t = 0; t < 2; t++)
		assert_int_equal(tc->mf.threads[t].events, 3072 + 1 + 591);
	expect_windows(tc, 2, "snapshot", "ada_snapshot", 6002, 2941, 6012, 3072);
	expect_windows(tc, 2, "end", "thread exit", 6603, 6013, 6603, 591);
	tr_pass(tc);
}

/* A crash: the window ends at the fatal signal, the program dies of it as
 * without ada. */
static void a_crash_writes_the_ring_before_it(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { RING_ENV, NULL };

	run(tc, "segv", env, 128 + SIGSEGV);
	tr_expect_tree(tc->replay.out, "run\n  step x512\n    leaf x2\n", 1);
	expect_windows(tc, 1, "crash", "SIGSEGV", 6002, 2930, 6001, 3072);
	tr_pass(tc);
}

/* SIGKILL: the recorder outlives the program and writes the last three
 * quarters of its ring, as at an exit: the window ends where the ring
 * stopped, the trace as killed. */
static void a_killed_process_keeps_its_ring(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { RING_ENV, NULL };

	run(tc, "kill", env, 128 + SIGKILL);
	tr_expect_tree(tc->replay.out, "run\n  step x512\n    leaf x2\n", 1);
	assert_int_equal(tc->mf.threads[0].events, 3072 + 2);
	assert_false(tc->mf.clean_exit);
	expect_windows(tc, 1, "end", "process end", 6001, 2930, 6001, 3072);
	tr_pass(tc);
}

/* func: triggers need the writer to read every event: one line says they
 * are not taken, and the rest of ADA_TRIGGER is. */
static void function_triggers_are_refused_in_ring_mode(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { RING_ENV, "ADA_TRIGGER=func:step,crash", NULL };

	run(tc, "exit", env, 0);
	assert_string_equal(tc->traced.err,
			    "ada: ADA_TRIGGER=func:step,crash: func: triggers are not taken with "
			    "ADA_RECORD=ring; the other triggers are\n");
	expect_windows(tc, 1, "end", "process end", 6001, 2930, 6001, 3072);
	tr_pass(tc);
}

/* A bad ADA_RECORD: one line, and the default (stream: every event). */
static void a_bad_record_mode_is_named(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_RECORD=rings", "ADA_RING_KB=64", NULL };

	run(tc, "exit", env, 0);
	const char *line = "ada: ADA_RECORD=rings is not valid: expected stream or ring; using stream\n";

	if (strncmp(tc->traced.err, line, strlen(line)))
		fail_msg("stderr:\n%s", tc->traced.err);
	tr_expect_tree(tc->replay.out, "run\n  step x1000\n    leaf x2\n", 1);
	tr_pass(tc);
}

#define T(name) cmocka_unit_test_setup_teardown(name, tr_setup, tr_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(at_exit_the_last_three_quarters_of_the_ring_are_written),
		T(without_details_the_index_is_the_same),
		T(a_snapshot_takes_every_thread_up_to_its_post_roll),
		T(a_crash_writes_the_ring_before_it),
		T(a_killed_process_keeps_its_ring),
		T(function_triggers_are_refused_in_ring_mode),
		T(a_bad_record_mode_is_named),
	};
	struct rlimit no_core = { 0, 0 };

	setrlimit(RLIMIT_CORE, &no_core);
	tr_scrub_environment();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
