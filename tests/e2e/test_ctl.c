/* test_ctl.c - ada-ctl PID COMMAND on a program that is running
 * (ctl/ada_ctl.c, recorder/control.c).
 *
 * tests/e2e/progs/ctl.c runs a phase for each line the test writes into
 * its FIFO (outer(i) N times, each calling inner() twice) and prints the
 * first two bytes of outer's entry after it: the test decides when each
 * phase runs, so which phases are recorded is exact. ada-ctl replies once
 * its command is in effect: the phase after it shows the entry rewritten
 * (patchable mode) and its calls recorded or not, with no waiting. The
 * dynamic hooks are off but in one test: the trees hold the program's own
 * functions only.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/tracee.h"
#include "lib/tracerun.h"

#define ADA_CTL ADA_ROOT "/bin/ada-ctl"

struct ctl_run {
	struct tracee t;
	int fifo;        /* the write end of the program's FIFO */
	char pid[16];
	int runs;
	bool patchable;
};

/* progs/ctl.c built in `mode`, started with ADA_OUTPUT, ADA_TRACE=`trace`,
 * ADA_DYNHOOK=`dynhook` and `more` (one "NAME=value", or NULL), reading
 * the FIFO <dir>/go. */
static void start_with(struct tr_case *tc, const char *mode, const char *trace,
		       const char *dynhook, const char *more, struct ctl_run *r)
{
	char mode_env[64], trace_env[64], hook_env[64], prog[PATH_MAX], fifo[PATH_MAX];
	char out_env[sizeof(tc->trace) + 16];
	const char *const build_env[] = { mode_env, NULL };
	const char *const flags[] = { "-O2", NULL };
	const char *const argv[] = { prog, fifo, NULL };
	const char *const env[] = { out_env, trace_env, hook_env, more, NULL };
	struct timespec pause = { 0, 1000000 };

	snprintf(mode_env, sizeof(mode_env), "ADA_MODE=%s", mode);
	snprintf(trace_env, sizeof(trace_env), "ADA_TRACE=%s", trace);
	snprintf(hook_env, sizeof(hook_env), "ADA_DYNHOOK=%s", dynhook);
	snprintf(out_env, sizeof(out_env), "ADA_OUTPUT=%s", tc->trace);
	tr_build(tc, build_env, TR_ADACC, "ctl", "ctl", flags);
	tr_path(tc, "ctl", prog);
	tr_path(tc, "go", fifo);
	unlink(fifo); /* an earlier run's in this case */
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(tracee_start(argv, env, tc->dir, &r->t), 0);
	/* Non-blocking until the program has opened its end (ENXIO before). */
	for (int i = 0; i < 10000 && (r->fifo = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC)) < 0; i++)
		nanosleep(&pause, NULL);
	if (r->fifo < 0)
		fail_msg("%s never opened %s", prog, fifo);
	snprintf(r->pid, sizeof(r->pid), "%d", (int)r->t.pid);
	r->runs = 0;
	r->patchable = !strcmp(mode, "patchable");
}

static void start(struct tr_case *tc, const char *mode, const char *trace, const char *dynhook,
		  struct ctl_run *r)
{
	start_with(tc, mode, trace, dynhook, NULL, r);
}

/* One phase of n calls of outer; in patchable mode, outer's entry after
 * it holds `entry` ("eb f9": patched, "66 90": a NOP). */
static void phase(struct ctl_run *r, int n, const char *entry)
{
	char cmd[32], want[64];
	int len = snprintf(cmd, sizeof(cmd), "run %d\n", n);

	assert_int_equal(write(r->fifo, cmd, (size_t)len), len);
	snprintf(want, sizeof(want), "ran %d: outer %s", ++r->runs, r->patchable ? entry : "");
	if (tracee_wait_for(&r->t, want, 10000) < 0)
		fail_msg("no \"%s\" from the program; it printed:\n%s", want, r->t.out);
}

/* ada-ctl PID cmd [arg]: its result in *res (the caller frees it). */
static void ctl(const struct ctl_run *r, const char *cmd, const char *arg, struct proc_result *res)
{
	const char *const argv[] = { ADA_CTL, r->pid, cmd, arg, NULL };

	assert_int_equal(proc_run(argv, NULL, NULL, 10000, res), 0);
}

/* ada-ctl PID cmd [arg] says "PID: <said> (took N ms)" and exits 0. */
static void expect_ctl(const struct ctl_run *r, const char *cmd, const char *arg, const char *said)
{
	struct proc_result res;
	char want[4400];
	double ms = -1;
	int end = 0;

	ctl(r, cmd, arg, &res);
	snprintf(want, sizeof(want), "%s: %s (took ", r->pid, said);
	if (proc_exit_code(&res) != 0 || strncmp(res.out, want, strlen(want)) ||
	    sscanf(res.out + strlen(want), "%lf ms)\n%n", &ms, &end) != 1 ||
	    res.out[strlen(want) + (size_t)end] || ms < 0 || strcmp(res.err, ""))
		fail_msg("ada-ctl %s %s: exit %d, stdout \"%s\", stderr \"%s\"; expected \"%s<ms> ms)\"",
			 r->pid, cmd, proc_exit_code(&res), res.out, res.err, want);
	proc_result_free(&res);
}

/* ada-ctl with argv[1..] as given fails with exactly `err` and `status`. */
static void expect_refused(const char *const argv[], const char *err, int status)
{
	struct proc_result res;

	assert_int_equal(proc_run(argv, NULL, NULL, 10000, &res), 0);
	assert_string_equal(res.err, err);
	assert_string_equal(res.out, "");
	assert_int_equal(proc_exit_code(&res), status);
	proc_result_free(&res);
}

/* Ends the program (the FIFO's end): it exits 0; the trace is symbolized
 * and checked (--check: balanced). */
static void finish(struct tr_case *tc, struct ctl_run *r)
{
	int ws = 0;

	close(r->fifo);
	assert_int_equal(tracee_wait_for(&r->t, "sum ", 10000), 0);
	assert_int_equal(tracee_stop(&r->t, 0, 10000, &ws), 0);
	assert_true(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
	tr_symbolize(tc, NULL);
	tr_load_manifest(tc, NULL);
}

/* Started off (ADA_TRACE=off), its entries NOPs: enable puts the jumps in
 * before it replies, so exactly the next phase is recorded; disable puts
 * the NOPs back, and the phase after is not. The writer sleeps 100 ms
 * after each pass: its next pass, which would rewrite the entries too, is
 * well after the phase. By the recorder process, which writes the
 * program's code through its memory. */
static void enable_records_exactly_the_phases_between(void **state)
{
	struct tr_case *tc = *state;
	struct ctl_run r;
	char said[4400], *dir;

	start_with(tc, "patchable", "off", "off", "ADA_TEST_WRITER_DELAY_US=100000", &r);
	phase(&r, 100, "66 90");
	expect_ctl(&r, "enable", NULL, "recording on");
	phase(&r, 100, "eb f9");
	dir = tracee_pid_dir(tc->trace);
	assert_non_null(dir);
	snprintf(said, sizeof(said), "recording on, trace in %s", dir);
	free(dir);
	expect_ctl(&r, "status", NULL, said);
	expect_ctl(&r, "disable", NULL, "recording off");
	phase(&r, 100, "66 90");
	expect_ctl(&r, "disable", NULL, "recording off, as it was");
	phase(&r, 100, "66 90");
	expect_ctl(&r, "enable", NULL, "recording on");
	phase(&r, 100, "eb f9");
	finish(tc, &r);
	tr_expect_tree(tc->replay.out, "outer x200\n  inner x2\n", 1);
	assert_int_equal(tc->mf.nthreads, 1);
	assert_int_equal(tc->mf.threads[0].events, 200 * 6);
	tr_pass(tc);
}

/* filter and notrace replace ADA_FILTER's and ADA_NOTRACE's lists in the
 * running process: its functions patched and unpatched before the reply,
 * so each phase records exactly the functions chosen before it. A glob
 * matching nothing changes nothing. */
static void filter_and_notrace_change_the_functions_recorded(void **state)
{
	struct tr_case *tc = *state;
	const char *nosuch[] = { ADA_CTL, NULL, "filter", "inner,nosuch*", NULL };
	struct ctl_run r;
	char err[160];

	start(tc, "patchable", "on", "off", &r);
	phase(&r, 10, "eb f9");
	expect_ctl(&r, "filter", "inner", "1 function patched (recording on)");
	phase(&r, 10, "66 90");
	nosuch[1] = r.pid;
	snprintf(err, sizeof(err), "ada-ctl: %s: filter inner,nosuch*: nosuch* matches no "
		 "patchable function\n", r.pid);
	expect_refused(nosuch, err, 1);
	expect_ctl(&r, "notrace", "inner", "0 functions patched (recording on)");
	phase(&r, 10, "66 90");
	expect_ctl(&r, "filter", "", "1 function patched (recording on)");
	expect_ctl(&r, "notrace", "", "2 functions patched (recording on)");
	phase(&r, 10, "eb f9");
	finish(tc, &r);
	tr_expect_tree(tc->replay.out, "outer x10\n  inner x2\ninner x20\nouter x10\n  inner x2\n", 1);
	assert_int_equal(tc->mf.threads[0].events, 2 * 60 + 2 * 20);
	tr_pass(tc);
}

/* Three ada-ctl at once: each command waits for its turn and gets its own
 * reply; nothing is left in the trace directory. */
static void commands_at_once_each_get_their_reply(void **state)
{
	struct tr_case *tc = *state;
	struct ctl_run r;
	struct proc_result res;
	char script[512], *dir;
	const char *const argv[] = { "sh", "-c", script, NULL };
	const char *const on[] = { "recording on", NULL }, *const off[] = { "recording off", NULL };

	start(tc, "patchable", "off", "off", &r);
	snprintf(script, sizeof(script),
		 "%s %s enable & a=$!; %s %s status & b=$!; %s %s disable & c=$!; "
		 "wait $a && wait $b && wait $c", ADA_CTL, r.pid, ADA_CTL, r.pid, ADA_CTL, r.pid);
	for (int round = 0; round < 10; round++) {
		assert_int_equal(proc_run(argv, NULL, NULL, 20000, &res), 0);
		assert_int_equal(proc_exit_code(&res), 0);
		assert_string_equal(res.err, "");
		assert_int_equal(tr_count_lines(res.out, on) + tr_count_lines(res.out, off), 3);
		proc_result_free(&res);
	}
	dir = tracee_pid_dir(tc->trace);
	assert_non_null(dir);
	assert_int_equal(tr_count_entries(dir, "control"), 0);
	free(dir);
	ctl(&r, "disable", NULL, &res); /* the rounds left it on or off */
	assert_int_equal(proc_exit_code(&res), 0);
	proc_result_free(&res);
	expect_ctl(&r, "enable", NULL, "recording on");
	phase(&r, 10, "eb f9");
	finish(tc, &r);
	tr_pass(tc);
}

/* fentry and cyg modes have no entries to rewrite: the flag alone
 * switches, with the same exact effect; filter is refused. */
static void enable_and_disable_in_mode(struct tr_case *tc, const char *mode)
{
	struct ctl_run r;
	const char *const argv[] = { ADA_CTL, r.pid, "filter", "inner", NULL };
	char err[160];

	start(tc, mode, "off", "off", &r);
	phase(&r, 100, NULL);
	expect_ctl(&r, "enable", NULL, "recording on");
	phase(&r, 100, NULL);
	expect_ctl(&r, "disable", NULL, "recording off");
	phase(&r, 100, NULL);
	snprintf(err, sizeof(err), "ada-ctl: %s: no module of this process was built with "
		 "--ada-mode=patchable: nothing to filter\n", r.pid);
	expect_refused(argv, err, 1);
	finish(tc, &r);
	tr_expect_tree(tc->replay.out, "outer x100\n  inner x2\n", 1);
	assert_int_equal(tc->mf.threads[0].events, 100 * 6);
	tr_pass(tc);
}

static void enable_and_disable_in_fentry_mode(void **state)
{
	enable_and_disable_in_mode(*state, "fentry");
}

static void enable_and_disable_in_cyg_mode(void **state)
{
	enable_and_disable_in_mode(*state, "cyg");
}

/* The command line, checked before any process is looked at: one line,
 * exit status 2. */
static void a_bad_command_line_is_named(void **state)
{
	const char *const none[] = { ADA_CTL, NULL };
	const char *const pid[] = { ADA_CTL, "12x", "status", NULL };
	const char *const word[] = { ADA_CTL, "1", "stop", NULL };
	const char *const missing[] = { ADA_CTL, "1", "filter", NULL };
	const char *const extra[] = { ADA_CTL, "1", "enable", "now", NULL };
	const char *const lines[] = { ADA_CTL, "1", "notrace", "a\nb", NULL };

	expect_refused(none, "ada-ctl: usage: ada-ctl PID enable|disable|status|filter GLOBS|"
			     "notrace GLOBS\n", 2);
	expect_refused(pid, "ada-ctl: PID 12x: expected a process id (a positive number)\n", 2);
	expect_refused(word, "ada-ctl: stop: unknown command (expected enable, disable, status, "
			     "filter GLOBS or notrace GLOBS)\n", 2);
	expect_refused(missing, "ada-ctl: filter: missing GLOBS (function-name globs, "
				"comma-separated; \"\" for none)\n", 2);
	expect_refused(extra, "ada-ctl: enable: unexpected argument 'now'\n", 2);
	expect_refused(lines, "ada-ctl: notrace: GLOBS must be one line of at most 1023 bytes\n", 2);
	{
		const char *const version[] = { ADA_CTL, "--version", NULL };
		struct proc_result res;

		assert_int_equal(proc_run(version, NULL, NULL, TR_TOOL_TIMEOUT_MS, &res), 0);
		assert_int_equal(proc_exit_code(&res), 0);
		assert_string_equal(res.out, "ada-ctl (ada) " ADA_VERSION "\n");
		proc_result_free(&res);
	}
	{
		/* --help: the usage line, then a line for every command and option. */
		const char *const help[] = { ADA_CTL, "--help", NULL };
		const char *const each[] = { "\n  enable ", "\n  disable ", "\n  status ",
					     "\n  filter GLOBS ", "\n  notrace GLOBS ",
					     "\n  -h, --help ", "\n  --version ", "\nExit status: " };
		struct proc_result res;

		assert_int_equal(proc_run(help, NULL, NULL, TR_TOOL_TIMEOUT_MS, &res), 0);
		assert_int_equal(proc_exit_code(&res), 0);
		const char *first = "usage: ada-ctl PID enable|disable|status|filter GLOBS|notrace GLOBS\n";

		assert_true(!strncmp(res.out, first, strlen(first)));
		for (size_t i = 0; i < sizeof(each) / sizeof(each[0]); i++)
			if (!strstr(res.out, each[i]))
				fail_msg("ada-ctl --help has no line opening with '%s'", each[i] + 1);
		assert_string_equal(res.err, "");
		proc_result_free(&res);
	}
	tr_pass(*state);
}

/* No such process (a pid above any pid_max), a process ada does not trace
 * (this test): one line, exit status 1. */
static void a_process_ada_does_not_trace_is_named(void **state)
{
	const char *const gone[] = { ADA_CTL, "999999999", "enable", NULL };
	char self[16], err[128];
	const char *const untraced[] = { ADA_CTL, self, "enable", NULL };

	expect_refused(gone, "ada-ctl: 999999999: no such process\n", 1);
	snprintf(self, sizeof(self), "%d", (int)getpid());
	snprintf(err, sizeof(err), "ada-ctl: %s: not traced by ada (no ada trace in /proc/%s/maps or a "
		 "recorder's)\n",
		 self, self);
	expect_refused(untraced, err, 1);
	tr_pass(*state);
}

/* A program built with adacc that makes no trace (ADA_DISABLE=1): ada-ctl
 * waits a while for its files (a recorder on a busy machine may make them
 * late), then says why it found none: one line, exit status 1. */
static void a_program_making_no_trace_is_named(void **state)
{
	struct tr_case *tc = *state;
	struct ctl_run r;
	char err[256];
	int ws = 0;

	start_with(tc, "fentry", "on", "on", "ADA_DISABLE=1", &r);
	const char *const argv[] = { ADA_CTL, r.pid, "enable", NULL };
	snprintf(err, sizeof(err), "ada-ctl: %s: built with adacc, but no trace is being made "
		 "(ADA_DISABLE, or the trace could not be written: see its stderr)\n", r.pid);
	expect_refused(argv, err, 1);
	close(r.fifo);
	assert_int_equal(tracee_wait_for(&r.t, "sum ", 10000), 0);
	assert_int_equal(tracee_stop(&r.t, 0, 10000, &ws), 0);
	assert_true(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
	assert_null(tracee_pid_dir(tc->trace));
	tr_pass(tc);
}

/* A stopped process: its recorder, which runs on, applies the command and
 * replies (the entries are written while no thread of the program runs),
 * and the phase after SIGCONT is recorded. */
static void a_stopped_process_gets_its_command_from_the_recorder(void **state)
{
	struct tr_case *tc = *state;
	struct ctl_run r;
	int ws;

	start_with(tc, "patchable", "off", "off", NULL, &r);
	phase(&r, 10, "66 90");
	assert_int_equal(kill(r.t.pid, SIGSTOP), 0);
	/* Every thread stopped (a loaded machine may take milliseconds to
	 * complete the group stop). */
	assert_int_equal(waitpid(r.t.pid, &ws, WUNTRACED), r.t.pid);
	assert_true(WIFSTOPPED(ws));
	expect_ctl(&r, "enable", NULL, "recording on");
	assert_int_equal(kill(r.t.pid, SIGCONT), 0);
	phase(&r, 10, "eb f9");
	expect_ctl(&r, "disable", NULL, "recording off");
	phase(&r, 10, "66 90");
	finish(tc, &r);
	tr_expect_tree(tc->replay.out, "outer x10\n  inner x2\n", 1);
	assert_int_equal(tc->mf.threads[0].events, 10 * 6);
	tr_pass(tc);
}

/* The attach: with the dynamic hooks on, __libc_start_main is a frame
 * entered (before main) while recording was off; the calls made inside it
 * after enable are recorded all the same: only frames open at enable are
 * left out. */
static void calls_inside_a_frame_entered_while_off_are_recorded_after_enable(void **state)
{
	struct tr_case *tc = *state;
	struct ctl_run r;

	start(tc, "patchable", "off", "on", &r);
	phase(&r, 100, "66 90");
	expect_ctl(&r, "enable", NULL, "recording on");
	phase(&r, 100, "eb f9");
	expect_ctl(&r, "disable", NULL, "recording off");
	phase(&r, 100, "66 90");
	finish(tc, &r);
	assert_int_equal(tr_count_lines(tc->replay.out, (const char *const[]){ "outer x100", NULL }),
			 1);
	tr_pass(tc);
}

#define T(name) cmocka_unit_test_setup_teardown(name, tr_setup, tr_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(enable_records_exactly_the_phases_between),
		T(filter_and_notrace_change_the_functions_recorded),
		T(commands_at_once_each_get_their_reply),
		T(enable_and_disable_in_fentry_mode),
		T(enable_and_disable_in_cyg_mode),
		T(a_bad_command_line_is_named),
		T(a_process_ada_does_not_trace_is_named),
		T(a_program_making_no_trace_is_named),
		T(a_stopped_process_gets_its_command_from_the_recorder),
		T(calls_inside_a_frame_entered_while_off_are_recorded_after_enable),
	};

	tr_scrub_environment();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
