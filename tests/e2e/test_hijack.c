/* test_hijack.c - fentry and mcount modes: control flow with the returns
 * hijacked or seen by __return__.
 *
 * In the hijacking modes (mcount, fentry with --ada-returns=hijack) the
 * runtime replaces each traced function's return address with its return
 * trampoline and keeps the real one on a per-thread shadow stack
 * (mcount/hijack.c); in fentry mode with gcc the function calls __return__
 * before it returns (mcount/x86_64/returncall.S), and frames are matched by
 * their return-address slot alone. Everything that leaves frames other than by
 * returning, or returns in an unusual way, must still give the program its
 * own behaviour and a balanced trace with the exact call tree:
 *   - recursion 10,000 deep, and deeper than ADA_SHADOW_DEPTH (the inner
 *     frames are not hijacked, not recorded, counted as max_depth);
 *   - longjmp out of traced frames, once and ten times in a loop;
 *   - signal handlers calling traced functions, on the thread's stack or an
 *     alternate one, and a storm of signals landing in the trampolines;
 *   - pthread_exit, exit(), fork() and abort() deep inside traced frames;
 *   - tail calls (two frames on one return-address slot, or one after the
 *     other), 1001 in a row.
 * Each program (tests/e2e/progs/hijack_*.c) is built with plain gcc and with
 * bin/adacc --ada-mode=<mode>; both runs must end the same way and print the
 * same stdout, the trace must pass --check, and no gmon.out may appear (a -pg
 * link brings in glibc's gprof start-up, which libada turns off). Every test
 * runs once per mode (fentry, fentry-hijack, mcount): one cmocka group each.
 * With --target=aarch64 (make check-aarch64, lib/target.h) the programs are
 * cross-built and run under qemu-aarch64 in mcount mode, the one of these
 * aarch64 has, against the same expected trees.
 */
#include <dirent.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "e2e/hijack_run.h"
#include "lib/calltree.h"
#include "lib/target.h"
#include "lib/tracerun.h"

/* ---- recursion ---------------------------------------------------------------- */

#define DEEP 10000

/* Fails unless the replay is one thread whose tree is dive() nested `depth`
 * deep: line i (from 0) is 2i spaces and "dive". Checked line by line, not
 * as one string: at 10,000 deep the replay is 100 MB of indentation. */
static void expect_dive_chain(const char *replay, long depth)
{
	const char *line = replay, *nl;
	long i = 0;

	if (strncmp(line, "# pid ", 6) != 0 || !(nl = strchr(line, '\n')))
		fail_msg("--replay does not start with a thread header:\n%.300s", replay);
	for (line = nl + 1; *line; line = nl + 1, i++) {
		size_t indent = strspn(line, " ");

		nl = strchr(line, '\n');
		if (!nl || i >= depth || indent != 2 * (size_t)i ||
		    (size_t)(nl - line) != indent + 4 || strncmp(line + indent, "dive", 4) != 0)
			fail_msg("--replay line %ld (from 0) is not %ld spaces and \"dive\": \"%.80s\"",
				 i + 1, 2 * i, line + (indent > 40 ? indent - 40 : 0));
	}
	if (i != depth)
		fail_msg("--replay shows dive() %ld deep, expected %ld", i, depth);
}

static void recursion_10000_deep_is_recorded_whole(void **state)
{
	struct tr_case *tc = *state;

	hj_build(tc, "hijack_deep", "-O2");
	hj_run(tc, "hijack_deep", NULL, NULL, 0, "depth 10000, sum 50005000\n");
	expect_dive_chain(tc->replay.out, DEEP);
	hj_expect_manifest(tc, 0, false);
	assert_int_equal(tc->mf.events, 2 * DEEP);
	tr_pass(tc);
}

/* 300 frames deep with room for 100 on the shadow stack: the outer 100 are
 * recorded, the inner 200 run untouched and count 2 max_depth drops each. */
static void frames_beyond_the_shadow_stack_are_counted_not_hijacked(void **state)
{
	struct tr_case *tc = *state;
	const char *const args[] = { "300", NULL };
	const char *const env[] = { "ADA_SHADOW_DEPTH=100", NULL };

	hj_build(tc, "hijack_deep", "-O2");
	hj_run(tc, "hijack_deep", args, env, 0, "depth 300, sum 45150\n");
	expect_dive_chain(tc->replay.out, 100);
	hj_expect_manifest(tc, 2 * 200, false);
	assert_int_equal(tc->mf.events, 2 * 100);
	tr_pass(tc);
}

/* ---- longjmp ------------------------------------------------------------------ */

static const char longjmp_tree[] =
	"main\n"
	"  a\n"
	"    b (unwound)\n"
	"      c (unwound)\n"
	"    d\n"
	"  again\n"
	"    jumper x10 (unwound)\n"
	"      leap (unwound)\n";

static void check_longjmp(struct tr_case *tc, const char *opt)
{
	hj_build(tc, "hijack_longjmp", opt);
	hj_run(tc, "hijack_longjmp", NULL, NULL, 0,
	       "a: back from c with 3\nd: 4\nagain: 10 jumps, total 55\n");
	tr_expect_tree(tc->replay.out, longjmp_tree, 1);
	hj_expect_manifest(tc, 0, false);
	tr_pass(tc);
}

static void longjmp_closes_skipped_frames_O0(void **state)
{
	check_longjmp(*state, "-O0");
}

static void longjmp_closes_skipped_frames_O2(void **state)
{
	check_longjmp(*state, "-O2");
}

/* ---- signals ------------------------------------------------------------------ */

/* hijack_signal <how> <where>: the handler's calls under the interrupted
 * frame, which then returns normally. */
static void check_signal(struct tr_case *tc, const char *how, const char *where)
{
	const char *const args[] = { how, where, NULL };
	bool timer = strcmp(how, "timer") == 0;
	const char *frame = timer ? "spin" : "work";
	char out[64], tree[128];

	snprintf(out, sizeof(out), "%s: %d ticks, %s\n", how, timer ? 5 : 1, where);
	snprintf(tree, sizeof(tree), "main\n  %s\n    on_signal%s\n      tick\n", frame,
		 timer ? " x5" : "");
	hj_build(tc, "hijack_signal", "-O2");
	hj_run(tc, "hijack_signal", args, NULL, 0, out);
	tr_expect_tree(tc->replay.out, tree, 1);
	hj_expect_manifest(tc, 0, false);
	tr_pass(tc);
}

static void raised_signal_handler_nests_under_the_raising_frame(void **state)
{
	check_signal(*state, "raise", "stack");
}

static void raised_signal_handler_on_sigaltstack_nests(void **state)
{
	check_signal(*state, "raise", "alt");
}

static void timer_signal_handler_nests_under_the_interrupted_frame(void **state)
{
	check_signal(*state, "timer", "stack");
}

static void timer_signal_handler_on_sigaltstack_nests(void **state)
{
	check_signal(*state, "timer", "alt");
}

/* An alternate signal stack that lies on the thread's own stack, above the
 * interrupted frame (here an array in main()'s frame): the handler's frames
 * are above the interrupted one without having abandoned it, which the
 * runtime tells by asking sigaltstack() whether the thread runs on it. */
static void timer_signal_handler_on_altstack_in_a_caller_frame_nests(void **state)
{
	check_signal(*state, "timer", "caller");
}

static void raised_signal_handler_on_altstack_in_a_caller_frame_nests(void **state)
{
	check_signal(*state, "raise", "caller");
}

/* 300,000 work() -> leaf() calls under a SIGALRM every 50 us: signals land
 * in the trampolines too. The program's result is untouched, every work()
 * and leaf() call is recorded (handler calls that interrupted the runtime
 * are counted as reentrant instead), the trace is balanced. */
static void signal_storm_leaves_returns_and_values_intact(void **state)
{
	struct tr_case *tc = *state;
	const uint64_t calls = 1 + 2 * 300000; /* main, work, leaf */

	hj_build(tc, "hijack_storm", "-O2");
	hj_run(tc, "hijack_storm", NULL, NULL, 0, "sum 45000150000\n");
	hj_expect_manifest(tc, 0, true);
	/* The rest are on_signal() and tick() calls, a CALL and a RETURN each. */
	if (tc->mf.events < 2 * calls || (tc->mf.events - 2 * calls) % 2 != 0)
		fail_msg("%llu events, expected 2 x %llu and an even number more",
			 (unsigned long long)tc->mf.events, (unsigned long long)calls);
	tr_pass(tc);
}

/* ---- frames left for good: pthread_exit, exit, abort -------------------------- */

static void pthread_exit_closes_the_thread_frames(void **state)
{
	struct tr_case *tc = *state;

	hj_build(tc, "hijack_exit", "-O2");
	hj_run(tc, "hijack_exit", NULL, NULL, 0, "worker left 42\n");
	tr_expect_tree(tc->replay.out,
		       "main\n"
		       "--- thread\n"
		       "worker (unwound)\n"
		       "  prepare\n"
		       "  step (unwound)\n"
		       "    finish (unwound)\n",
		       1);
	hj_expect_manifest(tc, 0, false);
	tr_pass(tc);
}

static void exit_from_a_deep_frame_keeps_status_and_output(void **state)
{
	struct tr_case *tc = *state;
	const char *const args[] = { "exit", NULL };

	hj_build(tc, "hijack_exit", "-O2");
	hj_run(tc, "hijack_exit", args, NULL, 7, "main: going down\nleave: exiting with 7\n");
	tr_expect_tree(tc->replay.out,
		       "main (open at exit)\n"
		       "  outer (open at exit)\n"
		       "    inner (open at exit)\n"
		       "      leave (open at exit)\n",
		       1);
	hj_expect_manifest(tc, 0, false);
	tr_pass(tc);
}

/* abort() in boom() after 100 tick() calls; the traced run waits for its
 * trace to be on disk first ("wait"), as in test_crash.c. */
static void abort_keeps_the_signal_and_the_frames_so_far(void **state)
{
	struct tr_case *tc = *state;
	const char *const wait_args[] = { "wait", NULL };
	/* The writer holds a thread's last ADA_PRE events back (a trigger's
	 * pre-roll): with 10, all but the last 10 of the program's ~100 reach
	 * the disk before it aborts, and the crash's flush writes the rest. */
	const char *const env[] = { "ADA_PRE=10", NULL };
	struct rlimit no_core = { 0, 0 };

	setrlimit(RLIMIT_CORE, &no_core); /* inherited by the programs */
	hj_build(tc, "hijack_abort", "-O2");
	tr_run_pair_args(tc, "hijack_abort", NULL, wait_args, env, 128 + SIGABRT);
	assert_string_equal(tc->traced.out, "boom: 4950\n");
	hj_expect_no_gmon(tc);
	tr_symbolize(tc, NULL);
	tr_expect_tree(tc->replay.out,
		       "main (open at crash)\n"
		       "  run (open at crash)\n"
		       "    step (open at crash)\n"
		       "      boom (open at crash)\n"
		       "        tick x100\n",
		       1);
	hj_expect_manifest(tc, 0, false);
	assert_false(tc->mf.clean_exit);
	tr_pass(tc);
}

/* ---- fork --------------------------------------------------------------------- */

static void fork_in_a_deep_frame_traces_both_processes(void **state)
{
	struct tr_case *tc = *state;
	char session[PATH_MAX], tree[256];

	hj_build(tc, "hijack_fork", "-O2");
	hj_run(tc, "hijack_fork", NULL, NULL, 0, "child: 6\nparent: 10, child exited with 3\n");
	hj_only_session(tc, session, sizeof(session));
	assert_int_equal(tr_count_entries(session, "pid_"), 2);
	/* split tail-calls fork: seen by __return__, it has returned before
	 * the fork, so the child's tree starts without it. */
	snprintf(tree, sizeof(tree),
		 "main\n"
		 "  level1\n"
		 "    level2\n"
		 "      split\n"
		 "  parent_work\n"
		 "    square x2\n"
		 "--- thread\n"
		 "main\n"
		 "  level1\n"
		 "    level2\n"
		 "%s"
		 "  child_work\n"
		 "    square x2\n",
		 hj_hijacks() ? "      split\n" : "");
	tr_expect_tree(tc->replay.out, tree, 2);
	tr_pass(tc);
}

/* ---- tail calls --------------------------------------------------------------- */

/* The tail calls hijack_tail.c is about must be jumps in the traced build,
 * or this test shows nothing. */
static void expect_tail_calls(struct tr_case *tc)
{
	static const char *const jumps[][2] = {
		{ "f", "g" },           { "chain1", "chain2" }, { "chain2", "chain3" },
		{ "chain3", "chain_end" }, { "is_even", "is_odd" }, { "is_odd", "is_even" },
	};

	for (size_t i = 0; i < sizeof(jumps) / sizeof(jumps[0]); i++)
		hj_expect_jump(tc, "hijack_tail", jumps[i][0], jumps[i][1]);
}

/* main, f / g, the chain, then is_even(1000) down to is_even(0). Hijacked:
 * 1001 frames nested, alternating, all on one slot and all returning
 * together. Seen by __return__: each function returns before the jump to
 * the next, which follows it as a sibling at the same depth. */
static char *tail_tree(bool nested)
{
	const char *head = nested ? "main\n  f\n    g\n  chain1\n    chain2\n      chain3\n"
				    "        chain_end\n"
				  : "main\n  f\n  g\n  chain1\n  chain2\n  chain3\n  chain_end\n";
	size_t size = strlen(head) + 1 + 1001 * (2 * 1002 + 9);
	char *tree = malloc(size), *p;

	if (!tree)
		fail_msg("out of memory");
	p = tree + snprintf(tree, size, "%s", head);
	for (int n = 1000; n >= 0; n--) {
		int indent = nested ? 2 * (1 + 1000 - n) : 2;

		p += snprintf(p, size - (size_t)(p - tree), "%*s%s\n", indent, "",
			      n % 2 == 0 ? "is_even" : "is_odd");
	}
	return tree;
}

static void tail_calls_are_exact(void **state)
{
	struct tr_case *tc = *state;
	char *tree;

	hj_build(tc, "hijack_tail", "-O2");
	expect_tail_calls(tc);
	hj_run(tc, "hijack_tail", NULL, NULL, 0,
	       "f(5) = 16\nchain(1) = 41\nis_even(1000) = 1\n");
	tree = tail_tree(hj_hijacks());
	tr_expect_tree(tc->replay.out, tree, 1);
	free(tree);
	hj_expect_manifest(tc, 0, false);
	tr_pass(tc);
}

/* ---- main --------------------------------------------------------------------- */

/* Stack switching: frames suspended on the other stack were closed as
 * abandoned when this one ran; their returns, when their stack runs again,
 * find the real address the runtime kept for their slot (counted as
 * unmatched: one a round trip but the first), and never abort the program.
 * (An exact tree across stacks is issue 11's.) */
static void ucontext_ping_pong_runs_to_the_end(void **state)
{
	struct tr_case *tc = *state;

	hj_build(tc, "hijack_ucontext", "-O1");
	hj_run(tc, "hijack_ucontext", NULL, NULL, 0, "49995000 49995000\n");
	hj_expect_manifest(tc, 0, false);
	/* Each stack a tree of its own: the coroutine's suspended frames are
	 * neither closed nor mixed into main's. */
	assert_int_equal(calltree_calls(tc->replay.out, "resume", "main"), 10000);
	assert_int_equal(calltree_calls(tc->replay.out, "consume", "main"), 10000);
	assert_int_equal(calltree_calls(tc->replay.out, "produce", "coroutine"), 10000);
	assert_int_equal(calltree_calls(tc->replay.out, "yield_to_main", "coroutine"), 10000);
	assert_int_equal(calltree_calls(tc->replay.out, "coroutine", NULL), 1);
	tr_pass(tc);
}

#define TEST(fn) cmocka_unit_test_setup_teardown(fn, tr_setup, tr_teardown)

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		TEST(recursion_10000_deep_is_recorded_whole),
		TEST(frames_beyond_the_shadow_stack_are_counted_not_hijacked),
		TEST(longjmp_closes_skipped_frames_O0),
		TEST(longjmp_closes_skipped_frames_O2),
		TEST(raised_signal_handler_nests_under_the_raising_frame),
		TEST(raised_signal_handler_on_sigaltstack_nests),
		TEST(timer_signal_handler_nests_under_the_interrupted_frame),
		TEST(timer_signal_handler_on_sigaltstack_nests),
		TEST(timer_signal_handler_on_altstack_in_a_caller_frame_nests),
		TEST(raised_signal_handler_on_altstack_in_a_caller_frame_nests),
		TEST(signal_storm_leaves_returns_and_values_intact),
		TEST(pthread_exit_closes_the_thread_frames),
		TEST(exit_from_a_deep_frame_keeps_status_and_output),
		TEST(abort_keeps_the_signal_and_the_frames_so_far),
		TEST(fork_in_a_deep_frame_traces_both_processes),
		TEST(tail_calls_are_exact),
		TEST(ucontext_ping_pong_runs_to_the_end),
	};

	if (target_parse(&argc, argv) < 0)
		return 2;
	tr_scrub_environment();
	return hj_run_groups(target_arch ? "hijack aarch64" : "hijack", tests,
			     sizeof(tests) / sizeof(tests[0]));
}
