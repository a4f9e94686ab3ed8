/* test_lifecycle.c - the traced process's life: threads, exit, exec, config.
 *
 * Each test builds one program (tests/e2e/progs/ or examples/) with gcc and
 * with bin/adacc, runs both, and checks that tracing changed neither stdout
 * nor the exit status, then what the trace says:
 *   - exit() from a thread while others run: every open frame "(open at exit)",
 *     the threads "running at exit", the one joined earlier "exited";
 *   - 200 threads started and joined one by one: 200 complete blocks;
 *   - exec: what ran before it is on disk, the new image's output appears;
 *   - ADA_DISABLE, invalid values, unknown variables, an output directory
 *     that cannot be created, a relative output and a chdir().
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/proc.h"
#include "lib/tracerun.h"

static const char *const O2[] = { "-O2", NULL };

static void expect_lines(const char *text, const char *const needles[], size_t n)
{
	size_t got = tr_count_lines(text, needles);

	if (got != n)
		fail_msg("%zu lines with \"%s\"%s%s, expected %zu, in:\n%s", got, needles[0],
			 needles[1] ? " and " : "", needles[1] ? needles[1] : "", n, text);
}

/* ---- threads and exit --------------------------------------------------------- */

static void exit_from_a_thread_unwinds_every_thread(void **state)
{
	struct tr_case *tc = *state;
	size_t exited = 0;

	tr_build_pair(tc, "thread_exit", "thread_exit", O2);
	tr_run_pair(tc, "thread_exit", NULL, NULL, 3);
	assert_string_equal(tc->traced.out, "worker done\nleaving with 3\n");
	assert_string_equal(tc->traced.err, "");
	tr_symbolize(tc, NULL);
	tr_expect_tree(tc->replay.out,
		       "main (open at exit)\n"
		       "--- thread\n"
		       "worker\n  work\n"
		       "--- thread\n"
		       "parker (open at exit)\n  park (open at exit)\n"
		       "--- thread\n"
		       "parker (open at exit)\n  park (open at exit)\n"
		       "--- thread\n"
		       "quitter (open at exit)\n  leave (open at exit)\n",
		       1);
	tr_load_manifest(tc, NULL);
	assert_true(tc->mf.clean_exit);
	assert_int_equal(tc->mf.nthreads, 5);
	for (size_t i = 0; i < tc->mf.nthreads; i++) {
		const struct tr_thread *th = &tc->mf.threads[i];

		/* The worker returned from everything; the others were cut off. */
		if (strcmp(th->end, "exited") == 0) {
			exited++;
			assert_int_equal(th->open_at_end, 0);
			assert_int_equal(th->events, 4);
		} else {
			assert_string_equal(th->end, "running at exit");
			assert_in_range(th->open_at_end, 1, 2);
		}
	}
	assert_int_equal(exited, 1);
	tr_pass(tc);
}

#define SHORT_THREADS 200

static void short_lived_threads_each_leave_a_complete_block(void **state)
{
	struct tr_case *tc = *state;
	static char expected[SHORT_THREADS * 32 + 16];
	size_t n = 0, exited = 0;

	tr_build_pair(tc, "many_threads", "many_threads", O2);
	tr_run_pair(tc, "many_threads", NULL, NULL, 0);
	assert_string_equal(tc->traced.err, "");
	tr_symbolize(tc, NULL);
	n += (size_t)snprintf(expected + n, sizeof(expected) - n, "main\n");
	for (int i = 0; i < SHORT_THREADS; i++)
		n += (size_t)snprintf(expected + n, sizeof(expected) - n, "--- thread\nworker\n  f\n");
	tr_expect_tree(tc->replay.out, expected, 1);
	tr_load_manifest(tc, NULL);
	assert_int_equal(tc->mf.nthreads, SHORT_THREADS + 1);
	for (size_t i = 0; i < tc->mf.nthreads; i++)
		exited += strcmp(tc->mf.threads[i].end, "exited") == 0;
	assert_int_equal(exited, SHORT_THREADS);
	assert_int_equal(tc->mf.events, 2 + 4 * SHORT_THREADS);
	tr_pass(tc);
}

/* main ends by pthread_exit: the process ends when its last thread does (the
 * writer must not keep it alive), with exit(0) and the atexit handlers, as
 * without ada; the workers' calls are all in the trace. */
static void main_pthread_exit_ends_with_the_last_thread(void **state)
{
	struct tr_case *tc = *state;

	tr_build_pair(tc, "main_pthread_exit", "main_pthread_exit", O2);
	tr_run_pair(tc, "main_pthread_exit", NULL, NULL, 0);
	assert_string_equal(tc->traced.out, "atexit ran 9900\n");
	tr_symbolize(tc, NULL);
	tr_expect_tree(tc->replay.out,
		       "worker\n  work x100\n--- thread\nworker\n  work x100\n", 1);
	tr_load_manifest(tc, NULL);
	assert_true(tc->mf.clean_exit);
	tr_pass(tc);
}

/* exit() and exec while 8 threads spin in traced calls: the final flush takes
 * a cut of every ring and ends (tr_run's timeout would catch a flush that
 * chases the rings), the status and output are the plain program's, and
 * the trace converts and checks. Small rings: the cut is at most a ring per
 * thread, and with 16 MiB ones compressing eight full rings took longer
 * than the timeout on a machine loaded twenty times over. */
static void exit_and_exec_end_while_threads_spin(void **state)
{
	struct tr_case *tc = *state;
	const char *const exec_args[] = { "exec", NULL };
	const char *const env[] = { "ADA_RING_KB=256", NULL };

	tr_build_pair(tc, "spin_exit", "spin_exit", O2);
	tr_run_pair(tc, "spin_exit", NULL, env, 0);
	assert_string_equal(tc->traced.out, "bye\n");
	tr_symbolize(tc, NULL);
	tr_load_manifest(tc, NULL);
	assert_true(tc->mf.clean_exit);
	assert_true(tc->mf.nthreads >= 8); /* the spinners, and main's library calls */
	tr_run_pair(tc, "spin_exit", exec_args, env, 0);
	tr_pass(tc);
}

/* Processes that record nothing leave no pid directory: only the
 * grandchild's is in the session, and the session checks. */
static void processes_that_record_nothing_leave_no_trace(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_DYNHOOK=off", NULL };

	tr_build_pair(tc, "double_fork", "double_fork", O2);
	tr_run_pair(tc, "double_fork", NULL, env, 0);
	assert_string_equal(tc->traced.out, "grandchild works\n");
	assert_int_equal(tr_count_entries(tc->trace, "session_"), 1);
	tr_symbolize(tc, NULL);
	tr_expect_tree(tc->replay.out, "work\n", 1);
	tr_load_manifest(tc, NULL); /* fails unless exactly one pid_ directory */
	assert_int_equal(tc->mf.nthreads, 1);
	tr_pass(tc);
}

/* ---- exec ---------------------------------------------------------------------- */

static void exec_keeps_the_events_recorded_before_it(void **state)
{
	struct tr_case *tc = *state;
	const struct tr_thread *th;

	tr_build_pair(tc, "exec", "exec", O2);
	tr_run_pair(tc, "exec", NULL, NULL, 0);
	assert_string_equal(tc->traced.out, "before exec\nechoed\n");
	tr_symbolize(tc, NULL);
	/* main and run_next were left by exec, not by a return. */
	tr_expect_tree(tc->replay.out,
		       "main (open at exec)\n  prepare\n  announce\n  run_next (open at exec)\n", 1);
	tr_load_manifest(tc, NULL);
	/* The image ended by exec, its rings flushed: an END record. */
	assert_true(tc->mf.clean_exit);
	assert_int_equal(tc->mf.nthreads, 1);
	th = &tc->mf.threads[0];
	assert_string_equal(th->end, "running at exec");
	assert_int_equal(th->open_at_end, 2);
	assert_int_equal(th->events, 8);
	tr_pass(tc);
}

static void exec_of_a_traced_program_keeps_both_images(struct tr_case *tc,
						       const char *const flags[])
{
	const char *const args[] = { "self", NULL };

	tr_build_pair(tc, "exec", "exec", flags);
	tr_run_pair(tc, "exec", args, NULL, 0);
	assert_string_equal(tc->traced.out, "before exec\nsecond image\n");
	tr_symbolize(tc, NULL);
	if (!strstr(tc->replay.out, "\nmain (open at exec)\n  prepare\n  announce\n  run_next (open at exec)\n"))
		fail_msg("the first image's calls are missing from the trace:\n%s",
			 tc->replay.out);
	if (!strstr(tc->replay.out, "\nmain\n  second\n"))
		fail_msg("the second image's calls are missing from the trace:\n%s",
			 tc->replay.out);
	tr_pass(tc);
}

static void exec_of_a_traced_program_keeps_both_images_O2(void **state)
{
	exec_of_a_traced_program_keeps_both_images(*state, O2);
}

/* A -static executable has no RTLD_NEXT: libada's exec functions call
 * libc.a's __execve and __execvpe, which adacc links in (before, exec
 * failed with ENOSYS and the program went on). */
static void exec_of_a_traced_program_keeps_both_images_static(void **state)
{
	static const char *const flags[] = { "-O2", "-static", NULL };

	exec_of_a_traced_program_keeps_both_images(*state, flags);
}

/* ---- configuration --------------------------------------------------------------- */

static char *recursion_expected; /* examples/expected/recursion.replay, read once */

static const char *recursion_tree(void)
{
	if (!recursion_expected)
		recursion_expected =
			proc_read_file(ADA_ROOT "/examples/expected/recursion.replay", NULL);
	if (!recursion_expected)
		fail_msg("examples/expected/recursion.replay: %s", strerror(errno));
	return recursion_expected;
}

static void disabled_writes_nothing_and_changes_nothing(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_DISABLE=1", NULL };
	struct stat st;

	tr_build_pair(tc, "examples/recursion.c", "recursion", O2);
	tr_run_pair(tc, "recursion", NULL, env, 0);
	assert_string_equal(tc->traced.err, tc->plain.err);
	if (stat(tc->trace, &st) == 0)
		fail_msg("ADA_DISABLE=1 still created %s", tc->trace);
	tr_pass(tc);
}

static void invalid_values_warn_once_each_and_use_defaults(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_RING_KB=abc", "ADA_DEPTH=-1", "ADA_FLUSH_MS=0", NULL };
	const char *const any[] = { "ada: ", NULL };
	const char *const ring[] = { "ADA_RING_KB=abc", "from 64 to 1048576", NULL };
	const char *const depth[] = { "ADA_DEPTH=-1", "from 1 to 4294967295", NULL };
	const char *const flush[] = { "ADA_FLUSH_MS=0", "from 1 to 1000", NULL };

	tr_build_pair(tc, "examples/recursion.c", "recursion", O2);
	tr_run_pair(tc, "recursion", NULL, env, 0);
	expect_lines(tc->traced.err, any, 3);
	expect_lines(tc->traced.err, ring, 1);
	expect_lines(tc->traced.err, depth, 1);
	expect_lines(tc->traced.err, flush, 1);
	tr_symbolize(tc, NULL);
	tr_expect_tree(tc->replay.out, recursion_tree(), 1);
	tr_load_manifest(tc, NULL);
	assert_non_null(strstr(tc->mf.config, "ring_kb=16384"));
	assert_non_null(strstr(tc->mf.config, " depth=4294967295"));
	assert_non_null(strstr(tc->mf.config, "flush_ms=10"));
	tr_pass(tc);
}

static void unknown_variable_warns_once(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_FOO=1", NULL };
	const char *const any[] = { "ada: ", NULL };
	const char *const foo[] = { "ada: ", "ADA_FOO", NULL };

	tr_build_pair(tc, "examples/recursion.c", "recursion", O2);
	tr_run_pair(tc, "recursion", NULL, env, 0);
	expect_lines(tc->traced.err, any, 1);
	expect_lines(tc->traced.err, foo, 1);
	tr_symbolize(tc, NULL);
	tr_expect_tree(tc->replay.out, recursion_tree(), 1);
	tr_pass(tc);
}

static void uncreatable_output_warns_once_and_the_program_runs(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_OUTPUT=/proc/nope", NULL };
	const char *const any[] = { "ada: ", NULL };
	const char *const nope[] = { "ada: ", "/proc/nope", NULL };

	tr_build_pair(tc, "examples/exit_nested.c", "exit_nested", O2);
	tr_run_pair(tc, "exit_nested", NULL, env, 7);
	expect_lines(tc->traced.err, any, 1);
	expect_lines(tc->traced.err, nope, 1);
	tr_pass(tc);
}

static void relative_output_is_resolved_before_chdir(void **state)
{
	struct tr_case *tc = *state;
	const char *const args[] = { "sub", NULL };
	const char *const env[] = { "ADA_OUTPUT=trace", NULL };
	char sub[PATH_MAX];

	tr_path(tc, "sub", sub);
	if (mkdir(sub, 0755) < 0)
		fail_msg("mkdir %s: %s", sub, strerror(errno));
	tr_build_pair(tc, "chdir", "chdir", O2);
	tr_run_pair(tc, "chdir", args, env, 0);
	assert_string_equal(tc->traced.err, "");
	assert_int_equal(tr_count_entries(sub, "trace"), 0);
	tr_symbolize(tc, NULL); /* <dir>/trace: the directory it started in */
	tr_expect_tree(tc->replay.out, "main\n  step x3\n", 1);
	tr_pass(tc);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, tr_setup, tr_teardown)
	const struct CMUnitTest tests[] = {
		T(exit_from_a_thread_unwinds_every_thread),
		T(short_lived_threads_each_leave_a_complete_block),
		T(main_pthread_exit_ends_with_the_last_thread),
		T(exit_and_exec_end_while_threads_spin),
		T(processes_that_record_nothing_leave_no_trace),
		T(exec_keeps_the_events_recorded_before_it),
		T(exec_of_a_traced_program_keeps_both_images_O2),
		T(exec_of_a_traced_program_keeps_both_images_static),
		T(disabled_writes_nothing_and_changes_nothing),
		T(invalid_values_warn_once_each_and_use_defaults),
		T(unknown_variable_warns_once),
		T(uncreatable_output_warns_once_and_the_program_runs),
		T(relative_output_is_resolved_before_chdir),
	};
#undef T
	int failed;

	tr_scrub_environment();
	failed = cmocka_run_group_tests_name("runtime lifecycle", tests, NULL, NULL);
	free(recursion_expected);
	return failed;
}
