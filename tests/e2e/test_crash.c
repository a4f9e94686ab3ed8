/* test_crash.c - traces of processes that never return from main.
 *
 * One program, built with bin/adacc and with plain gcc (same flags), runs
 * main -> run -> step -> X where X is
 *   spin    calls tick() in batches for up to 15 s, printing "ready" after
 *           200 ms; the test then kills it with SIGKILL;
 *   boom    calls tick() 1000 times, waits (traced build only) until its
 *           thread file has stopped growing, then raises SIGSEGV, calls
 *           abort() or _exit(5).
 * For each: the traced program ends exactly as the untraced one does (same
 * signal or exit status); its trace converts with exit status 0, passes
 * --check, and --replay shows every frame that was open as "(open at
 * crash)", "(open at exit)" (_exit flushes) or "(open when killed)" and
 * every call made before the pause (all 1000 ticks); the manifest says
 * "clean_exit": false, but for _exit.
 *
 * The directory is removed at the end unless a test failed (its path is
 * printed) or ADA_TEST_KEEP is set.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "lib/calltree.h"
#include "lib/proc.h"
#include "lib/textdiff.h"
#include "lib/tracee.h"

#define RUN_TIMEOUT_MS 20000
#define TOOL_TIMEOUT_MS 60000
#define READY_TIMEOUT_MS 10000

static const char program[] =
	"#include <glob.h>\n"
	"#include <signal.h>\n"
	"#include <stdio.h>\n"
	"#include <stdlib.h>\n"
	"#include <string.h>\n"
	"#include <sys/stat.h>\n"
	"#include <time.h>\n"
	"#include <unistd.h>\n"
	"\n"
	"static volatile unsigned long sink;\n"
	"\n"
	"__attribute__((noinline)) void tick(unsigned long i) { sink += i; }\n"
	"\n"
	"__attribute__((no_instrument_function)) static double now(void)\n"
	"{\n"
	"	struct timespec ts;\n"
	"\n"
	"	clock_gettime(CLOCK_MONOTONIC, &ts);\n"
	"	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;\n"
	"}\n"
	"\n"
	"__attribute__((no_instrument_function)) static void pause_ms(long ms)\n"
	"{\n"
	"	struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };\n"
	"\n"
	"	while (nanosleep(&ts, &ts) != 0)\n"
	"		;\n"
	"}\n"
	"\n"
	"/* Until killed (15 s at most): 1000 ticks, 1 ms pause, again. */\n"
	"__attribute__((noinline)) void spin(void)\n"
	"{\n"
	"	double start = now();\n"
	"	unsigned long i = 0;\n"
	"	int ready = 0;\n"
	"\n"
	"	while (now() - start < 15.0) {\n"
	"		for (int k = 0; k < 1000; k++)\n"
	"			tick(i++);\n"
	"		pause_ms(1);\n"
	"		if (!ready && now() - start > 0.2) {\n"
	"			printf(\"ready\\n\");\n"
	"			fflush(stdout);\n"
	"			ready = 1;\n"
	"		}\n"
	"	}\n"
	"}\n"
	"\n"
	"/* Traced build only: wait until the writer has put everything on disk: the\n"
	" * thread file exists and has not grown for 500 ms (the writer drains at\n"
	" * least every 10 ms). A bounded wait (20 s), not a timing assertion. */\n"
	"static int traced; /* argv[2] is \"wait\": the traced build's run */\n"
	"\n"
	"__attribute__((no_instrument_function)) static void wait_on_disk(void)\n"
	"{\n"
	"	const char *out = getenv(\"ADA_OUTPUT\");\n"
	"	char pattern[4200];\n"
	"	long last = -1, stable = 0;\n"
	"\n"
	"	if (!out || !traced)\n"
	"		return;\n"
	"	snprintf(pattern, sizeof(pattern), \"%s/session_*/pid_%d/raw/thread_0.lz4\", out, (int)getpid());\n"
	"	for (int i = 0; i < 2000 && stable < 50; i++) {\n"
	"		glob_t g;\n"
	"		struct stat st;\n"
	"		long size = -1;\n"
	"\n"
	"		if (glob(pattern, 0, NULL, &g) == 0) {\n"
	"			if (stat(g.gl_pathv[0], &st) == 0)\n"
	"				size = (long)st.st_size;\n"
	"			globfree(&g);\n"
	"		}\n"
	"		stable = size > 0 && size == last ? stable + 1 : 0;\n"
	"		last = size;\n"
	"		pause_ms(10);\n"
	"	}\n"
	"}\n"
	"\n"
	"__attribute__((noinline)) void boom(const char *how)\n"
	"{\n"
	"	for (unsigned long i = 0; i < 1000; i++)\n"
	"		tick(i);\n"
	"	wait_on_disk();\n"
	"	if (!strcmp(how, \"segv\"))\n"
	"		raise(SIGSEGV);\n"
	"	if (!strcmp(how, \"abort\"))\n"
	"		abort();\n"
	"	if (!strcmp(how, \"exit\"))\n"
	"		_exit(5);\n"
	"}\n"
	"\n"
	"/* The barriers keep the calls from being tail calls, which fentry mode\n"
	" * with gcc shows as siblings, not nested (the caller returns first). */\n"
	"__attribute__((noinline)) void step(const char *how)\n"
	"{\n"
	"	if (!strcmp(how, \"spin\"))\n"
	"		spin();\n"
	"	else\n"
	"		boom(how);\n"
	"	__asm__ volatile(\"\" ::: \"memory\");\n"
	"}\n"
	"\n"
	"__attribute__((noinline)) void run(const char *how)\n"
	"{\n"
	"	step(how);\n"
	"	__asm__ volatile(\"\" ::: \"memory\");\n"
	"}\n"
	"\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"	if (argc < 2)\n"
	"		return 2;\n"
	"	traced = argc > 2 && !strcmp(argv[2], \"wait\");\n"
	"	run(argv[1]);\n"
	"	return 0;\n"
	"}\n";

/* What --replay must show after boom() ended the process: the open frames
 * marked with what ended them, "(open at crash)" or "(open at exit)". */
static void boom_tree(char *buf, size_t size, const char *mark)
{
	snprintf(buf, size,
		 "main %s\n"
		 "  run %s\n"
		 "    step %s\n"
		 "      boom %s\n"
		 "        tick x1000\n",
		 mark, mark, mark, mark);
}

struct fixture {
	char *dir;
	bool built;
	int failed; /* tests that did not reach their end */
};

static struct fixture fx;

#define PASSED() (fx.failed--)

static int group_setup(void **state)
{
	const char *const flags[] = { "-O2", "-g", NULL };
	struct rlimit no_core = { 0, 0 };

	(void)state;
	/* The crashes are on purpose: no core files. Children inherit this. */
	setrlimit(RLIMIT_CORE, &no_core);
	fx.dir = proc_mkdtemp("ada-e2e-crash-");
	if (!fx.dir) {
		print_error("mkdtemp: %s\n", strerror(errno));
		return 0;
	}
	fx.built = tracee_build(fx.dir, "traced", program, TRACEE_ADACC, flags) == 0 &&
		   tracee_build(fx.dir, "untraced", program, "gcc", flags) == 0;
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	if (fx.dir && (fx.failed || getenv("ADA_TEST_KEEP")))
		print_message("kept %s\n", fx.dir);
	else if (fx.dir && proc_rm_rf(fx.dir) < 0)
		print_error("cannot remove %s\n", fx.dir);
	free(fx.dir);
	return 0;
}

static int test_setup(void **state)
{
	(void)state;
	fx.failed++;
	if (!fx.built) {
		print_error("the test program was not built (see above)\n");
		return -1;
	}
	return 0;
}

/* ---- helpers ---------------------------------------------------------------- */

static void run_tool(const char *option, const char *trace, struct proc_result *res)
{
	const char *argv[4] = { TRACEE_SYMBOLIZE };
	size_t n = 1;
	char why[64];

	if (option)
		argv[n++] = option;
	argv[n++] = trace;
	argv[n] = NULL;
	if (proc_run(argv, NULL, fx.dir, TOOL_TIMEOUT_MS, res) < 0)
		fail_msg("cannot run %s", TRACEE_SYMBOLIZE);
	if (proc_exit_code(res) != 0)
		fail_msg("ada-symbolize %s %s: %s\nstdout:\n%sstderr:\n%s", option ? option : "",
			 trace, proc_describe(res, why, sizeof(why)), res->out, res->err);
}

/* Converts the trace (the summary must say frames were left open after a
 * crash, and say nothing of them after an exit: exit() leaves frames open
 * in every normal run), checks it and the manifest's clean_exit; returns
 * --replay's output, malloc'd. */
static char *convert_and_replay(const char *trace, bool clean)
{
	struct proc_result res;
	char *pid, manifest[PATH_MAX + 32], *text, *replay;

	run_tool(NULL, trace, &res);
	if (!clean && !strstr(res.out, "frames open "))
		fail_msg("the summary does not say frames were left open:\n%s", res.out);
	if (clean && strstr(res.out, "frames open"))
		fail_msg("the summary of a normal exit speaks of open frames:\n%s", res.out);
	proc_result_free(&res);
	run_tool("--check", trace, &res);
	proc_result_free(&res);

	pid = tracee_pid_dir(trace);
	if (!pid)
		fail_msg("no single pid directory in %s", trace);
	snprintf(manifest, sizeof(manifest), "%s/manifest.json", pid);
	free(pid);
	text = proc_read_file(manifest, NULL);
	if (!text)
		fail_msg("%s: %s", manifest, strerror(errno));
	if (!strstr(text, clean ? "\"clean_exit\": true" : "\"clean_exit\": false"))
		fail_msg("%s does not say \"clean_exit\": %s", manifest, clean ? "true" : "false");
	free(text);

	run_tool("--replay", trace, &res);
	replay = strdup(res.out);
	proc_result_free(&res);
	if (!replay)
		fail_msg("out of memory");
	return replay;
}

static void expect_tree(const char *replay, const char *expected)
{
	struct calltree got = { 0 }, want = { 0 };
	char err[256], *got_text, *want_text;

	if (calltree_from_replay(replay, &got, err, sizeof(err)) < 0)
		fail_msg("--replay output: %s\n%s", err, replay);
	if (calltree_from_expected(expected, &want, err, sizeof(err)) < 0)
		fail_msg("expected tree: %s", err);
	got_text = calltree_format(&got);
	want_text = calltree_format(&want);
	if (!got_text || !want_text)
		fail_msg("out of memory");
	if (strcmp(got_text, want_text) != 0) {
		textdiff_print(stderr, "expected", want_text, "--replay", got_text);
		fail_msg("the call tree differs");
	}
	free(got_text);
	free(want_text);
	calltree_free(&got);
	calltree_free(&want);
}

/* Runs "<exe> <how>"; traced ones write to <dir>/<how>.trace. */
static void run_program(const char *exe_name, const char *how, struct proc_result *res)
{
	char exe[PATH_MAX], output[PATH_MAX + 64];

	snprintf(exe, sizeof(exe), "%s/%s", fx.dir, exe_name);
	snprintf(output, sizeof(output), "ADA_OUTPUT=%s/%s.trace", fx.dir, how);

	/* Only the traced run waits for its trace to be on disk before dying. */
	const char *const argv[] = { exe, how, strcmp(exe_name, "traced") ? NULL : "wait", NULL };
	const char *const env[] = { output, NULL };

	if (proc_run(argv, env, fx.dir, RUN_TIMEOUT_MS, res) < 0)
		fail_msg("cannot run %s", exe);
}

/* boom(how) in both builds: same end, the expected one, and the trace.
 * A signal is a crash; _exit ends the process cleanly, its rings flushed. */
static void ends_like_untraced(const char *how, int sig, int status)
{
	struct proc_result untraced, traced;
	char trace[PATH_MAX], a[64], b[64], tree[512], *replay;

	run_program("untraced", how, &untraced);
	run_program("traced", how, &traced);
	if (untraced.timed_out || traced.timed_out)
		fail_msg("%s: timed out", how);
	if (sig ? !WIFSIGNALED(untraced.wstatus) || WTERMSIG(untraced.wstatus) != sig
		: !WIFEXITED(untraced.wstatus) || WEXITSTATUS(untraced.wstatus) != status)
		fail_msg("untraced %s: %s; the test expects %s %d", how,
			 proc_describe(&untraced, a, sizeof(a)), sig ? "signal" : "exit status",
			 sig ? sig : status);
	if (proc_exit_code(&traced) != proc_exit_code(&untraced))
		fail_msg("%s: traced %s, untraced %s\ntraced stderr:\n%s", how,
			 proc_describe(&traced, a, sizeof(a)), proc_describe(&untraced, b, sizeof(b)),
			 traced.err);
	if (strcmp(traced.out, untraced.out) || strcmp(traced.err, untraced.err))
		fail_msg("%s: tracing changed the output\ntraced stderr:\n%s", how, traced.err);
	proc_result_free(&untraced);
	proc_result_free(&traced);

	snprintf(trace, sizeof(trace), "%s/%s.trace", fx.dir, how);
	replay = convert_and_replay(trace, !sig);
	boom_tree(tree, sizeof(tree), sig ? "(open at crash)" : "(open at exit)");
	expect_tree(replay, tree);
	free(replay);
}

/* ---- the tests -------------------------------------------------------------- */

static void segfault_ends_as_untraced_and_keeps_the_calls_before_it(void **state)
{
	(void)state;
	ends_like_untraced("segv", SIGSEGV, 0);
	PASSED();
}

static void abort_ends_as_untraced_and_keeps_the_calls_before_it(void **state)
{
	(void)state;
	ends_like_untraced("abort", SIGABRT, 0);
	PASSED();
}

static void nested_exit_keeps_status_and_the_calls_before_it(void **state)
{
	(void)state;
	ends_like_untraced("exit", 0, 5);
	PASSED();
}

/* "        tick x<N>" → N, or 0. */
static unsigned long tick_count(const char *line)
{
	static const char prefix[] = "        tick x";
	char *end;
	unsigned long n;

	if (strncmp(line, prefix, sizeof(prefix) - 1))
		return 0;
	n = strtoul(line + sizeof(prefix) - 1, &end, 10);
	return *end == '\n' ? n : 0;
}

static void sigkill_keeps_the_calls_before_it(void **state)
{
	static const char *const open_frames[] = {
		"main (open when killed)\n", "  run (open when killed)\n",
		"    step (open when killed)\n", "      spin (open when killed)\n",
	};
	char exe[PATH_MAX], trace[PATH_MAX], output[PATH_MAX + 16], why[64];
	struct proc_result res = { 0 };
	struct tracee t;
	int wstatus = 0, ret;
	char *replay, *line;
	unsigned long ticks;

	(void)state;
	snprintf(exe, sizeof(exe), "%s/traced", fx.dir);
	snprintf(trace, sizeof(trace), "%s/spin.trace", fx.dir);
	snprintf(output, sizeof(output), "ADA_OUTPUT=%s", trace);

	const char *const argv[] = { exe, "spin", NULL };
	const char *const env[] = { output, NULL };

	if (tracee_start(argv, env, fx.dir, &t) < 0)
		fail_msg("cannot start %s", exe);
	ret = tracee_wait_for(&t, "ready\n", READY_TIMEOUT_MS);
	tracee_stop(&t, SIGKILL, RUN_TIMEOUT_MS, &wstatus);
	if (ret < 0)
		fail_msg("%s spin: no \"ready\" (%s)", exe, strerror(-ret));
	res.wstatus = wstatus;
	if (!WIFSIGNALED(wstatus) || WTERMSIG(wstatus) != SIGKILL)
		fail_msg("%s spin: %s, expected SIGKILL", exe, proc_describe(&res, why, sizeof(why)));

	replay = convert_and_replay(trace, false);
	/* The thread's header, the open frames, the ticks; and the tick that
	 * was running, if one was. */
	line = strchr(replay, '\n');
	if (strncmp(replay, "# pid ", 6) || !line)
		fail_msg("--replay does not start with a thread header:\n%.2000s", replay);
	line++;
	for (size_t i = 0; i < sizeof(open_frames) / sizeof(open_frames[0]); i++) {
		if (strncmp(line, open_frames[i], strlen(open_frames[i])))
			fail_msg("--replay line %zu: expected %s:\n%.2000s", i + 2, open_frames[i],
				 replay);
		line += strlen(open_frames[i]);
	}
	ticks = tick_count(line);
	if (ticks < 1000)
		fail_msg("--replay: expected \"tick xN\", N >= 1000, in spin:\n%.2000s", replay);
	line = strchr(line, '\n') + 1;
	if (!strcmp(line, "        tick (open when killed)\n"))
		line += strlen(line);
	if (*line)
		fail_msg("--replay: unexpected lines after %lu ticks:\n%.2000s", ticks, line);
	print_message("%lu ticks before the SIGKILL\n", ticks);
	free(replay);
	PASSED();
}

/* ---- main ------------------------------------------------------------------- */

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(sigkill_keeps_the_calls_before_it, test_setup),
		cmocka_unit_test_setup(segfault_ends_as_untraced_and_keeps_the_calls_before_it,
				       test_setup),
		cmocka_unit_test_setup(abort_ends_as_untraced_and_keeps_the_calls_before_it,
				       test_setup),
		cmocka_unit_test_setup(nested_exit_keeps_status_and_the_calls_before_it, test_setup),
	};

	tracee_scrub_environment();
	return cmocka_run_group_tests_name("traces of crashed and killed processes", tests,
					   group_setup, group_teardown);
}
