/* test_rings_only.c - no recorder could start (runtime/rings_only.c): the
 * program records in ring mode, starts no thread of ada's, and writes each
 * thread's ring when its image ends; ada-symbolize folds the rings in.
 *
 * ADA_TEST_RECORDER_REFUSED=1 makes the recorder's fork fail as a fork
 * limit would. tests/e2e/progs/recorder_probe.c counts the threads and
 * descriptors the program sees; progs/ring.c calls at known ring positions
 * (run's CALL at 0, step i's at 1 + 6i, run's RETURN at 6001 for
 * run(1000)), so that a 64 KiB ring's 4096 slots hold positions 1906..6001:
 * step 317's second leaf onwards, step 317 and run entered before them.
 */
#include <limits.h>
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

#define REFUSED "ADA_TEST_RECORDER_REFUSED=1"
#define SAID(kib) "ada: cannot start the recorder process (Resource temporarily unavailable): " \
		  "recording in ring mode, each thread's last " kib " KiB written when the "     \
		  "program ends\n"

static const char *const MODES[] = { "fentry", "cyg" };
static const char *const O2[] = { "-O2", NULL };

/* main's threads, as the replay shows them (the probe's own functions). */
#define THREADS "--- thread\nworker\n  work\n    leaf x10\n--- thread\nworker\n  work\n    leaf x20\n"

/* The probe in mode m, run with `arg` and no recorder; its trace
 * symbolized, its path in trace. */
static void probe(struct tr_case *tc, size_t m, const char *arg, char trace[PATH_MAX])
{
	char out[64], name[64], env_out[PATH_MAX + 16];
	const char *const args[] = { arg, NULL };
	const char *const env[] = { REFUSED, "ADA_DYNHOOK=off", "ADA_DETAIL=off", env_out, NULL };

	snprintf(name, sizeof(name), "trace-%s-%s", MODES[m], arg);
	snprintf(env_out, sizeof(env_out), "ADA_OUTPUT=%s", tr_path(tc, name, trace));
	tr_build_mode_pair(tc, "recorder_probe", MODES[m], out, sizeof(out), O2);
	tr_run_pair(tc, out, args, env, 0);
	assert_string_equal(tc->traced.err, SAID("16384"));
	tr_symbolize(tc, trace);
}

/* One line says so; the program sees one thread, as without ada (a
 * writer thread would be a second), and every event it made is in the
 * trace (its rings never rolled over), ended as an exit, in ring mode. */
static void without_a_recorder_no_thread_of_adas_and_every_event_kept(void **state)
{
	struct tr_case *tc = *state;
	char trace[PATH_MAX];

	for (size_t m = 0; m < sizeof(MODES) / sizeof(MODES[0]); m++) {
		probe(tc, m, "none", trace);
		tr_load_manifest(tc, trace);
		assert_non_null(strstr(tc->traced.out, "threads 1, descriptors "));
		tr_expect_tree(tc->replay.out, "main\n  entries x2\n" THREADS, 1);
		assert_true(tc->mf.clean_exit);
		assert_non_null(strstr(tc->mf.config, " record=ring "));
		assert_int_equal(tc->mf.events, 2 * (1 + 2 + 2 + 10 + 2 + 20));
	}
	tr_pass(tc);
}

/* A fork child cannot fork a recorder either: it records its own rings. */
static void a_fork_child_writes_its_own_rings(void **state)
{
	struct tr_case *tc = *state;
	char trace[PATH_MAX];

	for (size_t m = 0; m < sizeof(MODES) / sizeof(MODES[0]); m++) {
		probe(tc, m, "fork", trace);
		tr_expect_tree(tc->replay.out,
			       "main\n  entries x2\n  spawn\n  work\n    leaf x7\n"
			       "--- thread\nmain\n  spawn\n    work\n      leaf x3\n" THREADS,
			       2);
	}
	tr_pass(tc);
}

static void ring_run(struct tr_case *tc, const char *what, int status)
{
	const char *const args[] = { what, "1000", NULL };
	const char *const env[] = { REFUSED, "ADA_RING_KB=64", NULL };
	const char *const build_env[] = { "ADA_MODE=fentry", NULL };
	const char *const flags[] = { "-O2", "-I" ADA_ROOT "/runtime", "-pthread", NULL };

	tr_build(tc, NULL, "gcc", "ring", "ring.plain", flags);
	tr_build(tc, build_env, TR_ADACC, "ring", "ring", flags);
	tr_run_pair(tc, "ring", args, env, status);
	assert_string_equal(tc->traced.err, SAID("64"));
	tr_symbolize(tc, NULL);
	tr_load_manifest(tc, NULL);
	tr_expect_tree(tc->replay.out, "run\n  step\n    leaf\n  step x682\n    leaf x2\n", 1);
	assert_int_equal(tc->mf.threads[0].events, 4096 + 2);
	assert_non_null(strstr(tc->mf.text, "\"recovered\": {\"events\": 4098, \"lost\": 0}"));
	for (unsigned r = 0; r < TR_NDROPS; r++)
		assert_int_equal(tc->mf.dropped[r], 0);
}

/* The ring rolled over: its last 4096 positions are the trace, what it
 * rolled over is not counted as lost (ring mode's rule). */
static void at_exit_the_whole_ring_is_the_trace(void **state)
{
	struct tr_case *tc = *state;

	ring_run(tc, "exit", 0);
	assert_true(tc->mf.clean_exit);
	tr_pass(tc);
}

/* A fatal signal's handler writes the rings; the program dies of the
 * signal as without ada. */
static void a_crash_writes_the_rings_before_it(void **state)
{
	struct tr_case *tc = *state;

	ring_run(tc, "segv", 128 + SIGSEGV);
	assert_false(tc->mf.clean_exit);
	assert_non_null(strstr(tc->mf.text, "\"crash\": {"));
	tr_pass(tc);
}

#define T(name) cmocka_unit_test_setup_teardown(name, tr_setup, tr_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(without_a_recorder_no_thread_of_adas_and_every_event_kept),
		T(a_fork_child_writes_its_own_rings),
		T(at_exit_the_whole_ring_is_the_trace),
		T(a_crash_writes_the_rings_before_it),
	};
	struct rlimit no_core = { 0, 0 };

	setrlimit(RLIMIT_CORE, &no_core);
	tr_scrub_environment();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
