/* test_recorder.c - the writer as a process of its own (runtime/recorder.c).
 *
 * tests/e2e/progs/recorder_probe.c looks at what a program can see of ada's
 * writer: the threads of its process, its descriptors and its children. A
 * writer thread shows as a second thread; a recorder shows as nothing. Then
 * the recorder's own work: a program killed with SIGKILL leaves every event
 * it recorded (the recorder drains the shared rings after its death, and
 * ada-symbolize waits for it), and a fork child records through a recorder
 * of its own. fentry and cyg modes at -O2, against a gcc build.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/proc.h"
#include "lib/tracee.h"
#include "lib/tracerun.h"

static const char *const MODES[] = { "fentry", "cyg" };
#define NMODES (sizeof(MODES) / sizeof(MODES[0]))
static const char *const O2[] = { "-O2", NULL };

/* Its descriptors are whatever the test's were, the same in both builds. */
#define PROBE_THREADS "threads 1, descriptors "
/* main's threads, as the replay shows them (the probe's own functions). */
#define THREADS "--- thread\nworker\n  work\n    leaf x10\n--- thread\nworker\n  work\n    leaf x20\n"

/* Runs both builds, the traced one's trace in <dir>/trace-<out>-<arg>;
 * returns the trace's path in trace. */
static void run_both(struct tr_case *tc, const char *out, const char *arg, int status, char *trace)
{
	char name[128], env_out[PATH_MAX + 16];
	const char *const args[] = { arg, NULL };
	const char *const env[] = { "ADA_DYNHOOK=off", "ADA_DETAIL=off", env_out, NULL };

	snprintf(name, sizeof(name), "trace-%s-%s", out, arg);
	tr_path(tc, name, trace);
	snprintf(env_out, sizeof(env_out), "ADA_OUTPUT=%s", trace);
	tr_run_pair(tc, out, args, env, status);
}

/* The probe built in mode m and run with a recorder and `arg`. */
static void probe_run(struct tr_case *tc, size_t m, const char *arg, int status, char *out,
		      size_t len, char *trace)
{
	tr_build_mode_pair(tc, "recorder_probe", MODES[m], out, len, O2);
	run_both(tc, out, arg, status, trace);
}

/* ... its stderr plain's, its trace symbolized. */
static void probe_recorded(struct tr_case *tc, size_t m, const char *arg, int status, char *out,
			   size_t len, char *trace)
{
	probe_run(tc, m, arg, status, out, len, trace);
	assert_string_equal(tc->traced.err, tc->plain.err);
	tr_symbolize(tc, trace);
}

/* The program's threads, descriptors and children are its own: the
 * recorder is not seen at all (the writer thread before it was one more
 * thread, what unshare(CLONE_NEWUSER) and RLIMIT_AS tripped on). */
static void the_program_sees_no_thread_descriptor_or_child_of_ada(void **state)
{
	struct tr_case *tc = *state;
	char out[64], trace[PATH_MAX];

	for (size_t m = 0; m < NMODES; m++) {
		probe_recorded(tc, m, "none", 0, out, sizeof(out), trace);
		assert_non_null(strstr(tc->traced.out, PROBE_THREADS));
		assert_non_null(strstr(tc->traced.out, "sum 500\nwait: No child processes\n"));
		tr_expect_tree(tc->replay.out, "main\n  entries x2\n" THREADS, 1);
		tr_load_manifest(tc, trace);
		assert_true(tc->mf.clean_exit);
		{
			char prog[PATH_MAX];
			const char *const argv[] = { tr_path(tc, out, prog), "none", NULL };
			const char *const verbose[] = { "ADA_DYNHOOK=off", "ADA_VERBOSE=1", NULL };
			struct proc_result res = { 0 };

			/* The recorder's CPU, which nothing that waits for the
			 * program counts, is in the summary ADA_VERBOSE asks for. */
			tr_run(tc, argv, verbose, &res);
			if (!strstr(res.err, "events kept; the recorder process used "))
				fail_msg("recorder's summary: %s", res.err);
			proc_result_free(&res);
		}
	}
	tr_pass(tc);
}

/* SIGKILL: nothing in the program runs, and the recorder, which outlives
 * it, writes what the rings hold. */
static void a_killed_program_keeps_every_event(void **state)
{
	struct tr_case *tc = *state;
	char out[64], trace[PATH_MAX];

	for (size_t m = 0; m < NMODES; m++) {
		probe_recorded(tc, m, "kill", 128 + 9, out, sizeof(out), trace);
		tr_expect_tree(tc->replay.out,
			       "main (open when killed)\n  entries x2\n  work\n    leaf x500\n" THREADS, 1);
		tr_load_manifest(tc, trace);
		assert_false(tc->mf.clean_exit);
		/* main's return is closed by the symbolizer, and counted */
		assert_int_equal(tc->mf.events, 2 * (1 + 2 + 1 + 500 + 2 + 10 + 2 + 20));
	}
	tr_pass(tc);
}

/* The line a program whose recorder died says at its end: what is lost,
 * the events recorded since the recorder's last pass (returned) and all the
 * threads dropped; fails unless err is exactly one such line. */
static unsigned long long lost_line(const char *mode, const char *err)
{
	const char *const said = "ada: the recorder process ended before the program; the trace "
				 "ends at its last pass: ";
	unsigned long long lost, dropped;
	char rest[64] = "";

	if (strncmp(err, said, strlen(said)) ||
	    sscanf(err + strlen(said), "%llu events recorded since are lost, and %llu dropped in "
		   "all%63s", &lost, &dropped, rest) != 2 || !strchr(err, '\n') ||
	    strchr(err, '\n')[1])
		fail_msg("%s: stderr %s", mode, err);
	return lost;
}

/* The recorder killed while the program runs: the program goes on (its
 * output and status as plain's; the 500 calls after the kill neither wait
 * for a recorder nor hang) and says on stderr, in one line, that the trace
 * ends there and what is lost: at least the 1,002 events after the kill. */
static void a_killed_recorder_is_said_and_waited_for_by_no_one(void **state)
{
	struct tr_case *tc = *state;
	char out[64], trace[PATH_MAX];

	for (size_t m = 0; m < NMODES; m++) {
		probe_run(tc, m, "killrec", 0, out, sizeof(out), trace);
		assert_int_equal(strncmp(tc->traced.err, tc->plain.err, strlen(tc->plain.err)), 0);
		assert_true(lost_line(MODES[m], tc->traced.err + strlen(tc->plain.err)) >= 2 * 501);
		tr_symbolize(tc, trace); /* what it wrote before the kill */
	}
	tr_pass(tc);
}

/* A fork child's memory is its own, its trace too: it gets a recorder of
 * its own, and the parent's records none of its calls. It forks in a
 * frame it returns from while the parent goes on calling: the child takes
 * the forking thread's state as it was at the fork (a copy made before
 * it), not as the parent changed it since in the memory they shared. */
static void a_fork_child_records_through_a_recorder_of_its_own(void **state)
{
	struct tr_case *tc = *state;
	char out[64], trace[PATH_MAX];

	for (size_t m = 0; m < NMODES; m++) {
		probe_recorded(tc, m, "fork", 0, out, sizeof(out), trace);
		assert_non_null(strstr(tc->traced.out, "No child processes\nchild done\n"));
		tr_expect_tree(tc->replay.out,
			       "main\n  entries x2\n  spawn\n  work\n    leaf x7\n"
			       "--- thread\nmain\n  spawn\n    work\n      leaf x3\n" THREADS,
			       2);
	}
	tr_pass(tc);
}

/* progs/<prog> run plain and traced (env) with the path of libshape.so
 * (progs/shlib.c) built plain and with adacc; the traced one's path in
 * traced_lib. */
static void run_with_shape(struct tr_case *tc, const char *prog, const char *const flags[],
			   const char *const env[], char traced_lib[PATH_MAX])
{
	const char *const lib_flags[] = { "-O2", "-shared", "-fPIC", "-Wl,-soname,libshape.so", NULL };
	char plain_lib[PATH_MAX];

	tr_build_lib_pair(tc, "shlib", "libshape.so", NULL, lib_flags, lib_flags);
	tr_build_pair(tc, prog, prog, flags);
	const char *const plain_args[] = { tr_path(tc, "plain/libshape.so", plain_lib), NULL };
	const char *const traced_args[] = { tr_path(tc, "traced/libshape.so", traced_lib), NULL };
	tr_run_pair_args(tc, prog, plain_args, traced_args, env, 0);
}

/* A library dlopen'ed after start-up is recorded (by the program with the
 * dynamic hooks, which see the dlopen; by the recorder without them, from
 * the program's maps) and its symbols are kept by the recorder: the trace
 * names its functions after the library file is gone. */
static void symbols_kept(struct tr_case *tc, const char *dynhook)
{
	const char *const flags[] = { "-O2", "-DUSE_DLOPEN", "-ldl", NULL };
	const char *const env[] = { dynhook, "ADA_DETAIL=off", NULL };
	char traced_lib[PATH_MAX];

	run_with_shape(tc, "shlib_main", flags, env, traced_lib);
	assert_string_equal(tc->traced.out, "area 24\n");
	assert_int_equal(unlink(traced_lib), 0);
	tr_symbolize(tc, NULL);
	assert_int_equal(tr_count_lines(tc->replay.out,
					(const char *const[]){ "    lib_area", NULL }), 1);
	assert_int_equal(tr_count_lines(tc->replay.out,
					(const char *const[]){ "      lib_square x2", NULL }), 1);
	tr_pass(tc);
}

static void a_dlopened_librarys_symbols_are_kept(void **state)
{
	symbols_kept(*state, "ADA_DYNHOOK=on");
}

static void a_dlopened_librarys_symbols_are_kept_without_the_hooks(void **state)
{
	symbols_kept(*state, "ADA_DYNHOOK=off");
}

/* Without the dynamic hooks nothing in the program tells of a dlopen: the
 * recorder finds the library in the program's maps, records its load, and
 * its unload once it is gone from them; the program waits for each record
 * (progs/dl_look.c), so the test does not depend on when the recorder
 * looks. One MODULE of the library, with an unload, its calls named. */
static void the_recorder_sees_a_library_come_and_go(void **state)
{
	struct tr_case *tc = *state;
	const char *const flags[] = { "-O2", "-ldl", NULL };
	const char *const env[] = { "ADA_DYNHOOK=off", NULL };
	char traced_lib[PATH_MAX];
	const char *p, *lib, *close;
	int loads = 0;

	run_with_shape(tc, "dl_look", flags, env, traced_lib);
	assert_string_equal(tc->traced.out, "area 24\nunloaded\n");
	tr_symbolize(tc, NULL);
	tr_expect_tree(tc->replay.out, "main\n  lib_area\n    lib_square x2\n", 1);
	tr_load_manifest(tc, NULL);
	p = tr_json_array(tc->mf.text, "modules", &close);
	assert_non_null(p);
	for (; (lib = strstr(p, "/traced/libshape.so\"")) && lib < close; p = lib + 1) {
		const char *end = strchr(lib, '}');

		loads++;
		assert_non_null(end);
		if (!memmem(lib, (size_t)(end - lib), "\"unload_ns\"", 11))
			fail_msg("the library's load has no unload_ns:\n%s", tc->mf.text);
	}
	assert_int_equal(loads, 1);
	tr_pass(tc);
}

/* A thousand short threads, sixteen alive at a time (make stress's churn):
 * a starting thread's state comes from the shared reservation, which only
 * the recorder's retiring of ended threads gives back. A thread that found
 * it used up ran untraced (a third of them on a loaded machine); it waits
 * for the recorder now. Every thread's 22 events are in the trace. */
static void thread_churn_leaves_no_thread_untraced(void **state)
{
	struct tr_case *tc = *state;
	const char *const args[] = { "1000", NULL };
	char inc[PATH_MAX + 4];
	const char *const inc_flags[] = { "-O2", "-pthread", inc, NULL };

	snprintf(inc, sizeof(inc), "-I%s/tests/stress/progs", ADA_ROOT);
	tr_build(tc, NULL, "gcc", "tests/stress/progs/churn.c", "churn.plain", inc_flags);
	tr_build(tc, NULL, TR_ADACC, "tests/stress/progs/churn.c", "churn", inc_flags);
	tr_run_pair_args(tc, "churn", args, args, NULL, 0);
	assert_string_equal(tc->traced.err, tc->plain.err);
	tr_symbolize(tc, NULL);
	tr_load_manifest(tc, NULL);
	assert_int_equal(tc->mf.nthreads, 1001);
	{
		size_t whole = 0;

		for (size_t i = 0; i < tc->mf.nthreads; i++)
			whole += tc->mf.threads[i].events == 22;
		assert_int_equal(whole, 1000); /* short_life + 10 leaf calls, each */
	}
	tr_pass(tc);
}

/* Whether a recorder whose environment holds env (its program's ADA_OUTPUT)
 * is still running: a zombie init has not reaped yet counts as ended. */
static bool recorder_alive(const char *env)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	bool alive = false;

	assert_non_null(d);
	while (!alive && (e = readdir(d))) {
		char path[PATH_MAX], buf[8192], comm[32] = "";
		FILE *f;
		size_t n;

		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		if (!(f = fopen(path, "r")))
			continue;
		if (!fgets(comm, sizeof(comm), f) || strcmp(comm, "ada-recorder\n")) {
			fclose(f);
			continue;
		}
		fclose(f);
		snprintf(path, sizeof(path), "/proc/%s/environ", e->d_name);
		if (!(f = fopen(path, "r")))
			continue;
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		for (size_t at = 0; at < n; at += strlen(buf + at) + 1)
			if (!strcmp(buf + at, env)) {
				snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
				f = fopen(path, "r");
				alive = f && fgets(buf, sizeof(buf), f) && !strstr(buf, ") Z ");
				if (f)
					fclose(f);
				break;
			}
	}
	closedir(d);
	return alive;
}

/* A recorder blocked for good (ADA_TEST_RECORDER_HANG: at the final flush)
 * is ended by its watchdog once its passes have not moved for
 * ADA_TEST_WATCHDOG_S seconds. The program's exit does not wait for the
 * final flush (only for the recorder's answer): its output and status are
 * plain's, and the watchdog's line reaches its stderr through the copy the
 * recorder took at the exit's request (the pipe ends when the recorder
 * does: the run takes the second, not the 60 s a wait would at most). */
static void a_recorder_that_makes_no_progress_ends(void **state)
{
	struct tr_case *tc = *state;
	char out[64], env_out[sizeof(((struct tr_case *)0)->trace) + 16], err[8400];
	const char *const args[] = { "", NULL };
	const char *const env[] = { "ADA_DYNHOOK=off", "ADA_TEST_RECORDER_HANG=1",
				    "ADA_TEST_WATCHDOG_S=1", env_out, NULL };
	struct timespec t0, t1;

	tr_build_mode_pair(tc, "recorder_probe", "fentry", out, sizeof(out), O2);
	snprintf(env_out, sizeof(env_out), "ADA_OUTPUT=%s", tc->trace);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	tr_run_pair(tc, out, args, env, 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_true(t1.tv_sec - t0.tv_sec < 20);
	snprintf(err, sizeof(err), "%sada: the recorder made no progress for 1 s and ends; the "
		 "trace keeps what it wrote\n", tc->plain.err);
	assert_string_equal(tc->traced.err, err);
	/* It closes the copy, then exits: a busy machine may show it between. */
	for (int i = 0; i < 500 && recorder_alive(env_out); i++)
		usleep(10000);
	assert_false(recorder_alive(env_out));
	tr_pass(tc);
}

/* The probe's trace with the dynamic hooks (library calls too), run with
 * no argument: its three threads whole, main's calls up to its exit. */
static void probe_whole(const char *replay)
{
	assert_int_equal(tr_count_lines(replay, (const char *const[]){ "# pid ", " thread ", NULL }),
			 3);
	assert_int_equal(tr_count_lines(replay, (const char *const[]){ "  main", NULL }), 1);
	assert_int_equal(tr_count_lines(replay, (const char *const[]){ "    entries", NULL }), 2);
	assert_int_equal(tr_count_lines(replay, (const char *const[]){ "    leaf x10", NULL }), 1);
	assert_int_equal(tr_count_lines(replay, (const char *const[]){ "    leaf x20", NULL }), 1);
}

/* The program's exit waits for nothing of its recorder's when it has
 * nothing to hear (issue 23's exit budget): with a recorder that sleeps
 * 300 ms after each pass, the program has ended while the recorder still
 * holds the lock on its pid directory; ada-symbolize waits for it, and the
 * trace is whole, ending where the program's exit asked. */
static void the_exit_waits_not_for_the_recorder(void **state)
{
	struct tr_case *tc = *state;
	char out[64], traced[PATH_MAX], env_out[sizeof(tc->trace) + 16], *dir;
	const char *const env[] = { "ADA_DYNHOOK=on", "ADA_DETAIL=off",
				    "ADA_TEST_WRITER_DELAY_US=300000", env_out, NULL };
	struct proc_result res = { 0 };
	int fd;

	tr_build_mode_pair(tc, "recorder_probe", "fentry", out, sizeof(out), O2);
	const char *const argv[] = { tr_path(tc, out, traced), NULL };
	snprintf(env_out, sizeof(env_out), "ADA_OUTPUT=%s", tc->trace);
	assert_int_equal(proc_run(argv, env, tc->dir, 20000, &res), 0);
	assert_int_equal(proc_exit_code(&res), 0);
	assert_string_equal(res.err, "");
	proc_result_free(&res);
	dir = tracee_pid_dir(tc->trace);
	assert_non_null(dir);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(flock(fd, LOCK_SH | LOCK_NB), -1);
	assert_int_equal(errno, EWOULDBLOCK);
	close(fd);
	free(dir);
	tr_symbolize(tc, NULL);
	probe_whole(tc->replay.out);
	tr_pass(tc);
}

/* A recorder that starts after its program ended (ADA_TEST_RECORDER_LATE_MS:
 * a busy machine's late start, made sure of): the program's output and
 * status are plain's, the trace is whole (ada-symbolize waits for the
 * recorder), and each thread is named by the name the program had at the
 * fork, /proc having nothing of it by then. */
static void a_recorder_that_starts_after_its_program_makes_the_whole_trace(void **state)
{
	struct tr_case *tc = *state;
	char out[64], env_out[sizeof(tc->trace) + 16];
	const char *const args[] = { "", NULL };
	const char *const env[] = { "ADA_DYNHOOK=on", "ADA_DETAIL=off",
				    "ADA_TEST_RECORDER_LATE_MS=300", env_out, NULL };

	tr_build_mode_pair(tc, "recorder_probe", "fentry", out, sizeof(out), O2);
	snprintf(env_out, sizeof(env_out), "ADA_OUTPUT=%s", tc->trace);
	tr_run_pair(tc, out, args, env, 0);
	assert_string_equal(tc->traced.err, tc->plain.err);
	tr_symbolize(tc, NULL);
	probe_whole(tc->replay.out);
	const char *const view[] = { ADA_ROOT "/bin/ada-symbolize", "replay", tc->trace, NULL };
	struct proc_result res = { 0 };

	assert_int_equal(proc_run(view, NULL, tc->dir, 20000, &res), 0);
	assert_int_equal(proc_exit_code(&res), 0);
	assert_int_equal(tr_count_lines(res.out, (const char *const[]){ "# pid ", " thread ",
									"(recorder_probe-)", NULL }),
			 3);
	proc_result_free(&res);
	tr_pass(tc);
}

/* ADA_VERBOSE=1: the summary is in the program's stderr, a file, when the
 * program has ended, though the recorder's final flush has 6 M events to
 * write then (a recorder that sleeps 300 ms after each pass has drained
 * none): read right after the program's end, as a script reads it. */
static void the_verbose_summary_is_there_when_the_program_ends(void **state)
{
	struct tr_case *tc = *state;
	char out[64], traced[PATH_MAX], env_out[sizeof(tc->trace) + 16], path[PATH_MAX + 8], *err;
	const char *const env[] = { "ADA_DETAIL=off", "ADA_VERBOSE=1", "ADA_RING_KB=131072",
				    "ADA_TEST_WRITER_DELAY_US=300000", env_out, NULL };
	struct proc_result res = { 0 };
	size_t len = 0;

	tr_build_mode_pair(tc, "burst", "fentry", out, sizeof(out), O2);
	const char *const argv[] = { "/bin/sh", "-c", "exec \"$0\" 1 3000000 >/dev/null 2>err",
				     tr_path(tc, out, traced), NULL };
	snprintf(env_out, sizeof(env_out), "ADA_OUTPUT=%s", tc->trace);
	assert_int_equal(proc_run(argv, env, tc->dir, 20000, &res), 0);
	assert_int_equal(proc_exit_code(&res), 0);
	proc_result_free(&res);
	snprintf(path, sizeof(path), "%s/err", tc->dir);
	err = proc_read_file(path, &len);
	assert_non_null(err);
	if (!strstr(err, "ada: 6000002 events kept; the recorder process used "))
		fail_msg("the summary was not on stderr when the program ended; it held:\n%s", err);
	free(err);
	assert_int_equal(tracee_settle(tc->trace), 0);
	tr_pass(tc);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, tr_setup, tr_teardown)
	const struct CMUnitTest tests[] = {
		T(the_program_sees_no_thread_descriptor_or_child_of_ada),
		T(a_killed_program_keeps_every_event),
		T(a_killed_recorder_is_said_and_waited_for_by_no_one),
		T(a_fork_child_records_through_a_recorder_of_its_own),
		T(a_dlopened_librarys_symbols_are_kept),
		T(a_dlopened_librarys_symbols_are_kept_without_the_hooks),
		T(the_recorder_sees_a_library_come_and_go),
		T(thread_churn_leaves_no_thread_untraced),
		T(a_recorder_that_makes_no_progress_ends),
		T(the_exit_waits_not_for_the_recorder),
		T(a_recorder_that_starts_after_its_program_makes_the_whole_trace),
		T(the_verbose_summary_is_there_when_the_program_ends),
	};

	tr_scrub_environment();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
