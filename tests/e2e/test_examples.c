/* test_examples.c - every example, untraced and traced, in every
 * instrumentation mode (cyg, fentry, mcount) at -O0 and -O2.
 *
 * A case is one example in one mode at one optimisation level. In a fresh
 * directory it
 *   1. builds the example with gcc/g++ ("untraced") and with bin/adacc or
 *      bin/adac++ --ada-mode=<mode> ("traced"), same flags;
 *   2. runs both, the traced one with ADA_OUTPUT=<dir>/trace;
 *   3. runs bin/ada-symbolize on the trace, then --check, then --replay.
 * and its four tests look at what that left:
 *   <name>_<O>_<mode>_traced_run_matches_untraced    stdout, stderr and exit
 *                                                    status equal, and the
 *                                                    status is the one the
 *                                                    example documents
 *   <name>_<O>_<mode>_writes_one_trace_per_process   one session, N pid_*
 *                                                    directories
 *   <name>_<O>_<mode>_symbolized_trace_passes_check  ada-symbolize and
 *                                                    --check exit 0
 *   <name>_<O>_<mode>_call_tree_matches              --replay gives the
 *                                                    expected call tree
 * The expected tree is the first of examples/expected/<name>.<O>.<mode>.replay,
 * <name>.<mode>.replay and <name>.replay that exists ("recursion.O2.fentry.replay").
 * cyg mode calls the hooks of inlined functions too, so its tree is the
 * source's at every level; fentry and mcount see only functions that kept
 * their own code and its __fentry__/mcount call, so at -O2 their trees lose
 * what gcc inlined. Those -O2 files were derived from the disassembly of
 * gcc -O2 -pg [-mfentry] builds (which functions keep the call, and which
 * calls they make), and so depend on gcc's inlining decisions. At -O0 the
 * trees are cyg's, but for C++ exceptions: g++ runs cyg's exit hooks while
 * an exception unwinds a frame, whereas a hijacked return never comes, so in
 * fentry/mcount mode the frames an exception leaves are "(unwound)"
 * (cxx.O0.<mode>.replay).
 * Each case is a cmocka group. Its directory is removed afterwards unless a
 * test failed (the path is printed) or ADA_TEST_KEEP is set.
 * With --target=aarch64 (make check-aarch64) both builds are cross builds,
 * run under qemu-aarch64, in cyg and mcount modes (the ones aarch64 has
 * yet), and the same expected trees hold (lib/target.h).
 *
 * Missing tools are failures, not skips: CI builds them before this runs.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "lib/calltree.h"
#include "lib/proc.h"
#include "lib/target.h"
#include "lib/textdiff.h"
#include "lib/tracerun.h"

#define BUILD_TIMEOUT_MS 120000
#define RUN_TIMEOUT_MS 20000
#define TOOL_TIMEOUT_MS 60000


struct example {
	const char *name;  /* examples/<name>.<ext>, examples/expected/<name>.replay */
	const char *ext;   /* "c" or "cc" */
	int status;        /* exit status, traced or not */
	size_t processes;  /* pid_* directories in its trace */
};

static const struct example examples[] = {
	{ "recursion", "c", 0, 1 },
	{ "threads", "c", 0, 1 },
	{ "fork", "c", 0, 2 },
	{ "cxx", "cc", 0, 1 },
	{ "exit_nested", "c", 7, 1 },
	{ "pthread_exit", "c", 0, 1 },
	{ "demo", "c", 0, 1 },
};

static const char *const opt_levels[] = { "-O0", "-O2" };
static const char *const modes[] = { "cyg", "fentry", "mcount" };

#define NEXAMPLES (sizeof(examples) / sizeof(examples[0]))
#define NOPTS (sizeof(opt_levels) / sizeof(opt_levels[0]))
#define NMODES (sizeof(modes) / sizeof(modes[0]))
#define TESTS_PER_CASE 4

struct run_case {
	const struct example *ex;
	const char *opt;
	const char *mode;      /* adacc --ada-mode= */
	char *dir;             /* scratch directory, NULL until prepared */
	bool prepared;         /* prepare() ran, successfully or not */
	bool built;            /* both builds succeeded */
	struct proc_result untraced, traced;
	struct proc_result symbolize, check, replay;
	int passed;            /* tests that ran to their end */
	char names[TESTS_PER_CASE][112];
};

/* ---- preparing a case ------------------------------------------------------- */

static void path_in(char *buf, const struct run_case *c, const char *name)
{
	snprintf(buf, PATH_MAX, "%s/%s", c->dir, name);
}

/* Runs argv in the case directory; on a failure to start, says so. */
static int run(const struct run_case *c, const char *const argv[], const char *const env[],
	       int timeout_ms, struct proc_result *res)
{
	char cmd[1024];
	int ret = proc_run(argv, env, c->dir, timeout_ms, res);

	if (ret < 0)
		print_error("cannot run %s: %s\n", proc_cmdline(argv, cmd, sizeof(cmd)),
			    strerror(-ret));
	return ret;
}

static int build(const struct run_case *c, bool traced)
{
	bool cxx = strcmp(c->ex->ext, "cc") == 0;
	const char *compiler = traced ? (cxx ? ADA_ROOT "/bin/adac++" : ADA_ROOT "/bin/adacc")
				      : target_cc(cxx);
	char src[PATH_MAX], out[PATH_MAX], cmd[2 * PATH_MAX], why[64], mode[32], cc[64];
	struct proc_result res;

	snprintf(src, sizeof(src), "%s/examples/%s.%s", ADA_ROOT, c->ex->name, c->ex->ext);
	snprintf(mode, sizeof(mode), "--ada-mode=%s", c->mode);
	snprintf(cc, sizeof(cc), "--ada-cc=%s", target_cc(cxx));
	path_in(out, c, traced ? "traced" : "untraced");

	const char *argv[] = { compiler, c->opt, "-g", "-pthread", "-o", out, src,
			       traced ? mode : NULL, target_arch ? cc : NULL, NULL };
	int ret = run(c, argv, NULL, BUILD_TIMEOUT_MS, &res);

	if (ret == 0 && proc_exit_code(&res) != 0) {
		print_error("build failed (%s): %s\n%s", proc_describe(&res, why, sizeof(why)),
			    proc_cmdline(argv, cmd, sizeof(cmd)), res.err);
		ret = -1;
	}
	proc_result_free(&res);
	return ret;
}

/* Builds and runs everything the case's tests look at. Failures to build
 * are reported here, once; what the tools did is kept for the tests. */
static void prepare(struct run_case *c)
{
	char untraced[PATH_MAX], traced[PATH_MAX], trace[PATH_MAX], output[PATH_MAX + 16];
	const char *const symbolize = ADA_ROOT "/bin/ada-symbolize";

	c->prepared = true;
	c->dir = proc_mkdtemp("ada-e2e-");
	if (!c->dir) {
		print_error("mkdtemp: %s\n", strerror(errno));
		return;
	}
	if (build(c, false) < 0 || build(c, true) < 0)
		return;
	c->built = true;

	path_in(untraced, c, "untraced");
	path_in(traced, c, "traced");
	path_in(trace, c, "trace");
	snprintf(output, sizeof(output), "ADA_OUTPUT=%s", trace);

	const char *untraced_argv[3], *traced_argv[3];
	const char *const traced_env[] = { output, NULL };
	const char *const symbolize_argv[] = { symbolize, trace, NULL };
	const char *const check_argv[] = { symbolize, "--check", trace, NULL };
	const char *const replay_argv[] = { symbolize, "--replay", trace, NULL };

	run(c, target_argv((const char *const[]){ untraced, NULL }, untraced_argv, 3), NULL,
	    RUN_TIMEOUT_MS, &c->untraced);
	run(c, target_argv((const char *const[]){ traced, NULL }, traced_argv, 3), traced_env,
	    RUN_TIMEOUT_MS, &c->traced);
	run(c, symbolize_argv, NULL, TOOL_TIMEOUT_MS, &c->symbolize);
	run(c, check_argv, NULL, TOOL_TIMEOUT_MS, &c->check);
	run(c, replay_argv, NULL, TOOL_TIMEOUT_MS, &c->replay);
}

/* The case of a test, prepared on first use; fails the test if it could not
 * be built. */
static struct run_case *case_of(void **state)
{
	struct run_case *c = *state;

	if (!c->prepared)
		prepare(c);
	if (!c->built)
		fail_msg("%s %s was not built (see above)", c->ex->name, c->opt);
	return c;
}

static void case_cleanup(struct run_case *c, bool keep)
{
	if (c->dir && (keep || c->passed < TESTS_PER_CASE))
		print_message("kept %s (%s %s)\n", c->dir, c->ex->name, c->opt);
	else if (c->dir && proc_rm_rf(c->dir) < 0)
		print_error("cannot remove %s\n", c->dir);
	free(c->dir);
	proc_result_free(&c->untraced);
	proc_result_free(&c->traced);
	proc_result_free(&c->symbolize);
	proc_result_free(&c->check);
	proc_result_free(&c->replay);
}

/* ---- checks: each reports what it found, the test then fails --------------- */

static bool status_is(const struct proc_result *res, int status, const char *what)
{
	char why[64];

	if (proc_exit_code(res) == status)
		return true;
	print_error("%s: %s, expected exit status %d\nstdout:\n%sstderr:\n%s", what,
		    proc_describe(res, why, sizeof(why)), status, res->out, res->err);
	return false;
}

static bool same_bytes(const char *what, const char *a, size_t a_len, const char *b, size_t b_len)
{
	char a_label[64], b_label[64];

	if (a_len == b_len && memcmp(a, b, a_len) == 0)
		return true;
	snprintf(a_label, sizeof(a_label), "untraced %s", what);
	snprintf(b_label, sizeof(b_label), "traced %s", what);
	print_error("%s differs:\n", what);
	textdiff_print(stderr, a_label, a, b_label, b);
	return false;
}

/* How many entries of dir have a name starting with prefix; the path of the
 * first one found goes to first (if not NULL). */
static size_t count_entries(const char *dir, const char *prefix, char *first, size_t size)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, prefix, strlen(prefix)) != 0)
			continue;
		if (n++ == 0 && first)
			snprintf(first, size, "%s/%s", dir, de->d_name);
	}
	closedir(d);
	return n;
}

/* ---- the tests -------------------------------------------------------------- */

static void traced_run_matches_untraced(void **state)
{
	struct run_case *c = case_of(state);

	if (!status_is(&c->untraced, c->ex->status, "untraced build"))
		fail_msg("the example itself does not exit with %d", c->ex->status);
	if (!status_is(&c->traced, c->ex->status, "traced build"))
		fail_msg("tracing changed the exit status");
	if (!same_bytes("stdout", c->untraced.out, c->untraced.out_len, c->traced.out,
			c->traced.out_len))
		fail_msg("tracing changed stdout");
	if (!same_bytes("stderr", c->untraced.err, c->untraced.err_len, c->traced.err,
			c->traced.err_len))
		fail_msg("tracing changed stderr");
	c->passed++;
}

static void writes_one_trace_per_process(void **state)
{
	struct run_case *c = case_of(state);
	char trace[PATH_MAX], session[PATH_MAX];

	path_in(trace, c, "trace");
	size_t sessions = count_entries(trace, "session_", session, sizeof(session));
	if (sessions != 1)
		fail_msg("%zu session_* directories in %s, expected 1", sessions, trace);

	size_t pids = count_entries(session, "pid_", NULL, 0);
	if (pids != c->ex->processes)
		fail_msg("%zu pid_* directories in %s, expected %zu", pids, session,
			 c->ex->processes);
	c->passed++;
}

static void symbolized_trace_passes_check(void **state)
{
	struct run_case *c = case_of(state);

	if (!status_is(&c->symbolize, 0, "ada-symbolize"))
		fail_msg("ada-symbolize failed");
	if (!status_is(&c->check, 0, "ada-symbolize --check"))
		fail_msg("the trace does not pass --check");
	c->passed++;
}

/* Compares the replay with the expected file; prints why not if they differ. */
static bool replay_matches(const struct run_case *c, const char *replay, const char *expected_path)
{
	struct calltree got = { 0 }, want = { 0 };
	char *expected = proc_read_file(expected_path, NULL);
	char *got_text = NULL, *want_text = NULL, err[256];
	bool ok = false;

	if (!expected) {
		print_error("%s: %s\n", expected_path, strerror(errno));
		return false;
	}
	if (calltree_from_expected(expected, &want, err, sizeof(err)) < 0) {
		print_error("%s: %s\n", expected_path, err);
		goto out;
	}
	if (calltree_from_replay(replay, &got, err, sizeof(err)) < 0) {
		print_error("--replay output: %s\n%s", err, replay);
		goto out;
	}
	if (got.npids != c->ex->processes) {
		print_error("--replay shows %zu processes, expected %zu\n%s", got.npids,
			    c->ex->processes, replay);
		goto out;
	}
	got_text = calltree_format(&got);
	want_text = calltree_format(&want);
	if (!got_text || !want_text) {
		print_error("out of memory\n");
		goto out;
	}
	ok = strcmp(got_text, want_text) == 0;
	if (!ok) {
		print_error("call tree differs (threads sorted, headers dropped, %s mode):\n",
			    c->mode);
		textdiff_print(stderr, expected_path, want_text, "--replay", got_text);
	}
out:
	free(got_text);
	free(want_text);
	calltree_free(&got);
	calltree_free(&want);
	free(expected);
	return ok;
}

/* The expected tree's file: the most specific of <name>.<O>.<mode>.replay,
 * <name>.<mode>.replay and <name>.replay that exists, in buf. */
static void expected_path(const struct run_case *c, char *buf, size_t size)
{
	const char *dir = ADA_ROOT "/examples/expected";
	struct stat st;

	snprintf(buf, size, "%s/%s.%s.%s.replay", dir, c->ex->name, c->opt + 1, c->mode);
	if (stat(buf, &st) == 0)
		return;
	snprintf(buf, size, "%s/%s.%s.replay", dir, c->ex->name, c->mode);
	if (stat(buf, &st) == 0)
		return;
	snprintf(buf, size, "%s/%s.replay", dir, c->ex->name);
}

static void call_tree_matches(void **state)
{
	struct run_case *c = case_of(state);
	char expected[PATH_MAX];

	expected_path(c, expected, sizeof(expected));
	if (!status_is(&c->replay, 0, "ada-symbolize --replay"))
		fail_msg("--replay failed");
	if (!replay_matches(c, c->replay.out, expected))
		fail_msg("%s %s %s: call tree differs from %s", c->ex->name, c->opt, c->mode,
			 expected);
	c->passed++;
}

/* ---- main ------------------------------------------------------------------- */

static int run_case(struct run_case *c)
{
	static const struct {
		const char *what;
		CMUnitTestFunction fn;
	} tests[TESTS_PER_CASE] = {
		{ "traced_run_matches_untraced", traced_run_matches_untraced },
		{ "writes_one_trace_per_process", writes_one_trace_per_process },
		{ "symbolized_trace_passes_check", symbolized_trace_passes_check },
		{ "call_tree_matches", call_tree_matches },
	};
	struct CMUnitTest group[TESTS_PER_CASE];
	char group_name[80];

	snprintf(group_name, sizeof(group_name), "examples/%s.%s %s %s%s%s", c->ex->name, c->ex->ext,
		 c->opt, c->mode, target_arch ? " " : "", target_arch ? target_arch : "");
	for (size_t i = 0; i < TESTS_PER_CASE; i++) {
		/* "recursion_O2_fentry_call_tree_matches": the level without its dash */
		snprintf(c->names[i], sizeof(c->names[i]), "%s_%s_%s_%s", c->ex->name, c->opt + 1,
			 c->mode, tests[i].what);
		group[i] = (struct CMUnitTest){ .name = c->names[i], .test_func = tests[i].fn,
						.initial_state = c };
	}
	return _cmocka_run_group_tests(group_name, group, TESTS_PER_CASE, NULL, NULL);
}

int main(int argc, char **argv)
{
	bool keep = getenv("ADA_TEST_KEEP") != NULL;
	int failed = 0;

	if (target_parse(&argc, argv) < 0)
		return 2;
	tr_scrub_environment();
	for (size_t e = 0; e < NEXAMPLES; e++) {
		for (size_t m = 0; m < NMODES; m++) {
			/* aarch64 has cyg and mcount modes (gcc has no -mfentry there). */
			if (target_arch && !strcmp(modes[m], "fentry"))
				continue;
			for (size_t o = 0; o < NOPTS; o++) {
				struct run_case c = { .ex = &examples[e], .opt = opt_levels[o],
						      .mode = modes[m] };

				failed += run_case(&c);
				case_cleanup(&c, keep);
			}
		}
	}
	return failed ? 1 : 0;
}
