/* test_launcher.c - `ada record PROG` (launcher/): the program runs as it
 * would, and its trace is made by the launcher's recorder.
 *
 * recorder_probe.c says what the program sees of ada (its threads, its
 * descriptors, its children): the same as a plain build's, under the
 * launcher. launch_end.c ends each way a program ends (an exit status, a
 * crash, a signal the launcher was sent). Each launched run is compared
 * with the plain build's: stdout and stderr byte for byte, the exit
 * status; its trace must be complete when `ada record` returns (no pid
 * directory still locked by a recorder), symbolize and pass --check, and
 * hold the exact call tree. info says whose recorder made it: the
 * launcher's, or (the arena's address taken in the program) the
 * program's own, the fallback. A gcc-built executable that links a
 * library built with adacc is recorded; usage errors: their exact lines.
 */
#include <dirent.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/proc.h"
#include "lib/tracerun.h"

#define ADA ADA_ROOT "/bin/ada"
#define SYM ADA_ROOT "/bin/ada-symbolize"
static const char *const MODES[] = { "fentry", "cyg" };
#define NMODES (sizeof(MODES) / sizeof(MODES[0]))
static const char *const O2[] = { "-O2", NULL };
static const char *const O0[] = { "-O0", NULL };
static const char *const NO_HOOKS[] = { "ADA_DYNHOOK=off", NULL };
#define THREADS "--- thread\nworker\n  work\n    leaf x10\n--- thread\nworker\n  work\n    leaf x20\n"
#define EXPECT_FORK_TREE "blocked\n  work\n--- thread\nmain\n  work\n--- thread\nmain\n  work x10\n"
#define BY_LAUNCHER "recorded by    ada " ADA_VERSION ", the recorder of ada record\n"
#define BY_PROGRAM "recorded by    ada " ADA_VERSION "\n"

/* No pid directory of the trace is locked: every recorder has ended. */
static void trace_complete(const char *trace)
{
	char session[PATH_MAX], pid[PATH_MAX + 300];
	struct dirent *s, *p;
	DIR *ds = opendir(trace), *dp;
	size_t n = 0;

	assert_non_null(ds);
	while ((s = readdir(ds))) {
		if (strncmp(s->d_name, "session_", 8))
			continue;
		snprintf(session, sizeof(session), "%s/%s", trace, s->d_name);
		assert_non_null(dp = opendir(session));
		while ((p = readdir(dp))) {
			int fd;

			if (strncmp(p->d_name, "pid_", 4))
				continue;
			snprintf(pid, sizeof(pid), "%s/%s", session, p->d_name);
			fd = open(pid, O_RDONLY | O_DIRECTORY);
			assert_true(fd >= 0);
			if (flock(fd, LOCK_EX | LOCK_NB) < 0)
				fail_msg("%s is still locked by its recorder after ada record returned", pid);
			close(fd);
			n++;
		}
		closedir(dp);
	}
	closedir(ds);
	assert_true(n > 0);
}

/* <out>.plain arg, then `ada record -o TRACE <out> arg` with env: both
 * exit with status, print the same stdout and stderr; the trace complete
 * at once, symbolized. */
static void launch_pair(struct tr_case *tc, const char *out, const char *arg,
			const char *const env[], int status)
{
	char prog[PATH_MAX], plain[PATH_MAX + 8], why[64];
	const char *const plain_argv[] = { plain, arg, NULL };
	const char *const argv[] = { ADA, "record", "-o", tc->trace, prog, arg, NULL };

	tr_path(tc, out, prog);
	snprintf(plain, sizeof(plain), "%s.plain", prog);
	tr_run(tc, plain_argv, NULL, &tc->plain);
	proc_result_free(&tc->traced);
	assert_int_equal(proc_run(argv, env, tc->dir, TR_RUN_TIMEOUT_MS, &tc->traced), 0);
	if (proc_exit_code(&tc->traced) != status || proc_exit_code(&tc->plain) != status)
		fail_msg("plain %s, launched %s; expected %d\nstderr:\n%s",
			 proc_describe(&tc->plain, why, sizeof(why)),
			 proc_describe(&tc->traced, plain, sizeof(plain)), status, tc->traced.err);
	assert_string_equal(tc->traced.out, tc->plain.out);
	assert_string_equal(tc->traced.err, tc->plain.err);
	trace_complete(tc->trace);
	tr_symbolize(tc, NULL);
}

/* `ada info` on the trace: whose recorder made it. */
static void recorded_by(struct tr_case *tc, const char *who)
{
	struct proc_result res = { 0 };
	const char *const argv[] = { ADA, "info", tc->trace, NULL };

	assert_int_equal(proc_run(argv, NULL, tc->dir, TR_TOOL_TIMEOUT_MS, &res), 0);
	assert_int_equal(proc_exit_code(&res), 0);
	if (!strstr(res.out, who))
		fail_msg("ada info does not say \"%s\":\n%s", who, res.out);
	proc_result_free(&res);
}

static void fresh_trace(struct tr_case *tc)
{
	proc_rm_rf(tc->trace);
}

/* The threaded probe under the launcher: the same output as the plain
 * build (so the same threads and descriptors, and no child: wait says
 * ECHILD), the exact call tree, the launcher's recorder; a fork child's
 * trace (its own recorder's) complete too; `ada VIEW` is the view. */
static void a_launched_program_is_recorded_by_the_launcher(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_DYNHOOK=off", NULL };
	char out[64];

	for (size_t m = 0; m < NMODES; m++) {
		tr_build_mode_pair(tc, "recorder_probe", MODES[m], out, sizeof(out), O2);
		fresh_trace(tc);
		launch_pair(tc, out, "none", env, 0);
		assert_non_null(strstr(tc->traced.out, "threads 1, descriptors "));
		assert_non_null(strstr(tc->traced.out, "sum 500\nwait: No child processes\n"));
		tr_expect_tree(tc->replay.out, "main\n  entries x2\n" THREADS, 1);
		tr_load_manifest(tc, NULL);
		assert_true(tc->mf.clean_exit);
		assert_int_equal(tc->mf.events, 2 * (1 + 2 + 2 + 10 + 2 + 20));
		assert_non_null(strstr(tc->mf.text, "\"recorder\": \"ada record\""));
		recorded_by(tc, BY_LAUNCHER);

		fresh_trace(tc);
		launch_pair(tc, out, "fork", env, 0);
		tr_expect_tree(tc->replay.out,
			       "main\n  entries x2\n  spawn\n  work\n    leaf x7\n"
			       "--- thread\nmain\n  spawn\n    work\n      leaf x3\n" THREADS,
			       2);
	}
	{
		struct proc_result a = { 0 }, b = { 0 };
		const char *const view[] = { ADA, "report", tc->trace, NULL };
		const char *const sym[] = { SYM, "report", tc->trace, NULL };

		assert_int_equal(proc_run(view, NULL, tc->dir, TR_TOOL_TIMEOUT_MS, &a), 0);
		assert_int_equal(proc_run(sym, NULL, tc->dir, TR_TOOL_TIMEOUT_MS, &b), 0);
		assert_int_equal(proc_exit_code(&a), 0);
		assert_string_equal(a.out, b.out);
		proc_result_free(&a);
		proc_result_free(&b);
	}
	tr_pass(tc);
}

/* Exit 3, a SIGSEGV (139, its trace readable and ending in the crash), a
 * SIGKILL (137, every event kept: the launcher's recorder drains the
 * rings after the program's death). */
static void exit_statuses_and_deaths_pass_through(void **state)
{
	struct tr_case *tc = *state;
	char out[64];

	tr_build_mode_pair(tc, "launch_end", "fentry", out, sizeof(out), O0);
	fresh_trace(tc);
	launch_pair(tc, out, "3", NO_HOOKS, 3);
	assert_string_equal(tc->traced.out, "out line\n");
	assert_string_equal(tc->traced.err, "err line\n");
	tr_expect_tree(tc->replay.out, "main (open at exit)\n  work x10\n", 1);
	recorded_by(tc, BY_LAUNCHER);

	fresh_trace(tc);
	launch_pair(tc, out, "segv", NO_HOOKS, 128 + 11);
	tr_expect_tree(tc->replay.out, "main (open at crash)\n  work x10\n", 1);
	recorded_by(tc, BY_LAUNCHER);

	tr_build_mode_pair(tc, "recorder_probe", "cyg", out, sizeof(out), O2);
	fresh_trace(tc);
	launch_pair(tc, out, "kill", (const char *const[]){ "ADA_DYNHOOK=off", NULL }, 128 + 9);
	tr_expect_tree(tc->replay.out, "main (open when killed)\n  entries x2\n  work\n    leaf x500\n" THREADS,
		       1);
	tr_pass(tc);
}

/* A fork while a thread newer than main is alive, both drained: the
 * child's registry (the other thread's state zero pages there) ends before
 * main's state, whose writer pointers, the launcher's recorder's memory,
 * the child's own recorder once followed (a SIGSEGV: the child's trace
 * had no thread and no end, one run in four under load before this fork
 * was made certain). Both traces complete. */
static void a_fork_beside_a_thread_has_the_childs_trace(void **state)
{
	struct tr_case *tc = *state;
	char out[64];

	tr_build_mode_pair(tc, "launch_end", "fentry", out, sizeof(out), O0);
	fresh_trace(tc);
	launch_pair(tc, out, "fork", NO_HOOKS, 0);
	assert_string_equal(tc->traced.out, "out line\n");
	tr_expect_tree(tc->replay.out, EXPECT_FORK_TREE, 2);
	tr_pass(tc);
}

/* SIGTERM and SIGHUP sent to `ada record` reach the program: its handler
 * runs (exit 5), or it dies of it (129). */
static void signals_to_the_launcher_reach_the_program(void **state)
{
	struct tr_case *tc = *state;
	char out[64], prog[PATH_MAX];
	static const char script[] =
		"rm -f ready; \"$0\" record -o trace \"$1\" wait & p=$!; "
		"while [ ! -e ready ]; do sleep 0.01; done; kill -$2 $p; wait $p; echo \"status $?\"";

	tr_build_mode_pair(tc, "launch_end", "fentry", out, sizeof(out), O0);
	tr_path(tc, out, prog);
	for (int i = 0; i < 2; i++) {
		const char *const argv[] = { "/bin/sh", "-c", script, ADA, prog, i ? "HUP" : "TERM", NULL };
		const char *const env[] = { "ADA_DYNHOOK=off", NULL };
		struct proc_result res = { 0 };

		fresh_trace(tc);
		assert_int_equal(proc_run(argv, env, tc->dir, TR_RUN_TIMEOUT_MS, &res), 0);
		assert_string_equal(res.out, i ? "out line\nstatus 129\n" : "out line\ngot signal 15\nstatus 5\n");
		assert_string_equal(res.err, "err line\n");
		proc_result_free(&res);
		trace_complete(tc->trace);
		tr_symbolize(tc, NULL);
		/* the handler runs where it interrupted main's pause() */
		tr_expect_tree(tc->replay.out,
			       i ? "main (open when killed)\n  work x10\n"
				 : "main (open at exit)\n  work x10\n  on_term\n", 1);
	}
	tr_pass(tc);
}

/* The arena's address taken in the program (ADA_TEST_LAUNCH_TAKEN): it
 * forks its own recorder, traced all the same, and the launcher waits
 * for that trace. */
static void a_taken_address_falls_back_to_the_programs_recorder(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_DYNHOOK=off", "ADA_TEST_LAUNCH_TAKEN=1", NULL };
	char out[64];

	tr_build_mode_pair(tc, "recorder_probe", "fentry", out, sizeof(out), O2);
	fresh_trace(tc);
	launch_pair(tc, out, "none", env, 0);
	assert_non_null(strstr(tc->traced.out, "sum 500\nwait: No child processes\n"));
	tr_expect_tree(tc->replay.out, "main\n  entries x2\n" THREADS, 1);
	tr_load_manifest(tc, NULL);
	assert_null(strstr(tc->mf.text, "\"recorder\""));
	recorded_by(tc, BY_PROGRAM);
	tr_pass(tc);
}

/* An executable built with gcc whose library (progs/shlib.c) was built
 * with adacc: its loader lists libada.so, and ada record records the
 * library's calls. */
static void a_plain_executable_linking_a_traced_library_is_recorded(void **state)
{
	struct tr_case *tc = *state;
	const char *const lib_flags[] = { "-O2", "-shared", "-fPIC", "-Wl,-soname,libshape.so", NULL };
	char lib_dir[PATH_MAX], ldir[PATH_MAX + 8], rpath[PATH_MAX + 16], prog[PATH_MAX];
	struct proc_result res = { 0 };

	tr_build_lib_pair(tc, "shlib", "libshape.so", NULL, lib_flags, lib_flags);
	tr_path(tc, "traced", lib_dir);
	snprintf(ldir, sizeof(ldir), "-L%s", lib_dir);
	snprintf(rpath, sizeof(rpath), "-Wl,-rpath,%s", lib_dir);
	tr_build(tc, NULL, "gcc", "shlib_main", "linked", (const char *const[]){ ldir, "-lshape", rpath, NULL });
	const char *const argv[] = { ADA, "record", "-o", tc->trace, tr_path(tc, "linked", prog), NULL };
	assert_int_equal(proc_run(argv, NULL, tc->dir, TR_RUN_TIMEOUT_MS, &res), 0);
	assert_int_equal(proc_exit_code(&res), 0);
	assert_string_equal(res.out, "area 24\n");
	assert_string_equal(res.err, "");
	proc_result_free(&res);
	trace_complete(tc->trace);
	tr_symbolize(tc, NULL);
	assert_int_equal(tr_count_lines(tc->replay.out, (const char *const[]){ "lib_area", NULL }), 1);
	assert_int_equal(tr_count_lines(tc->replay.out, (const char *const[]){ "  lib_square x2", NULL }), 1);
	recorded_by(tc, BY_LAUNCHER);
	tr_pass(tc);
}

/* ADA_DISABLE=1: the program runs as its plain build, and the output
 * directory stays empty: no session, no pid directory, no job's marker
 * (the launcher makes the program's directories while it starts, and
 * reads the same configuration). */
static void a_disabled_run_leaves_the_output_empty(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_DISABLE=1", NULL };
	char out[64], prog[PATH_MAX], plain[PATH_MAX + 8];
	struct dirent *e;
	DIR *d;

	tr_build_mode_pair(tc, "recorder_probe", "fentry", out, sizeof(out), O2);
	tr_path(tc, out, prog);
	snprintf(plain, sizeof(plain), "%s.plain", prog);
	tr_run(tc, (const char *const[]){ plain, "none", NULL }, NULL, &tc->plain);
	fresh_trace(tc);
	const char *const argv[] = { ADA, "record", "-o", tc->trace, prog, "none", NULL };
	assert_int_equal(proc_run(argv, env, tc->dir, TR_RUN_TIMEOUT_MS, &tc->traced), 0);
	assert_int_equal(proc_exit_code(&tc->traced), 0);
	assert_string_equal(tc->traced.out, tc->plain.out);
	assert_string_equal(tc->traced.err, tc->plain.err);
	assert_non_null(d = opendir(tc->trace));
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			fail_msg("%s/%s: expected nothing in the output of a disabled run", tc->trace,
				 e->d_name);
	closedir(d);
	tr_pass(tc);
}

static void says(struct tr_case *tc, const char *const argv[], int status, const char *line)
{
	struct proc_result res = { 0 };

	assert_int_equal(proc_run(argv, NULL, tc->dir, TR_RUN_TIMEOUT_MS, &res), 0);
	assert_int_equal(proc_exit_code(&res), status);
	assert_string_equal(res.err, line);
	assert_string_equal(res.out, "");
	proc_result_free(&res);
}

/* One line naming the value and what was expected, exit 2 (127 for a
 * program that is not there, as a shell); nothing runs. */
static void usage_errors_say_what_was_expected(void **state)
{
	struct tr_case *tc = *state;
	char out[64], prog[PATH_MAX], plain[PATH_MAX + 8], line[2 * PATH_MAX];

	tr_build_mode_pair(tc, "launch_end", "fentry", out, sizeof(out), O2);
	tr_path(tc, out, prog);
	snprintf(plain, sizeof(plain), "%s.plain", prog);
	says(tc, (const char *const[]){ ADA, "record", NULL }, 2,
	     "ada record: no program to run (usage: ada record [-o DIR] [--] PROG [ARGS...])\n");
	says(tc, (const char *const[]){ ADA, "record", "-x", prog, NULL }, 2,
	     "ada record: unknown option '-x' (expected -o DIR, or the program: ada record [-o DIR] "
	     "[--] PROG [ARGS...])\n");
	says(tc, (const char *const[]){ ADA, "record", "-o", prog, prog, NULL }, 2,
	     (snprintf(line, sizeof(line),
		       "ada record: cannot write the trace to '%s': Not a directory (expected a writable "
		       "directory)\n", prog), line));
	says(tc, (const char *const[]){ ADA, "record", plain, NULL }, 2,
	     (snprintf(line, sizeof(line),
		       "ada record: %s was not built with adacc (no libada): nothing recorded (build "
		       "it with adacc, or run it directly)\n", plain), line));
	says(tc, (const char *const[]){ ADA, "record", "ada-no-such-program", NULL }, 127,
	     "ada record: ada-no-such-program: command not found\n");
	says(tc, (const char *const[]){ ADA, "frobnicate", NULL }, 2,
	     "ada: unknown command 'frobnicate' (expected record, or a view: report, replay, graph, "
	     "flame, chrome, perfetto, info, diff, dump, check; ada --help)\n");
	assert_int_equal(access(tc->trace, F_OK), -1);
	tr_pass(tc);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, tr_setup, tr_teardown)
	const struct CMUnitTest tests[] = {
		T(a_launched_program_is_recorded_by_the_launcher),
		T(exit_statuses_and_deaths_pass_through),
		T(signals_to_the_launcher_reach_the_program),
		T(a_fork_beside_a_thread_has_the_childs_trace),
		T(a_taken_address_falls_back_to_the_programs_recorder),
		T(a_plain_executable_linking_a_traced_library_is_recorded),
		T(a_disabled_run_leaves_the_output_empty),
		T(usage_errors_say_what_was_expected),
	};

	tr_scrub_environment();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
