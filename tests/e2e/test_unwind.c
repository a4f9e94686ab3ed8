/* test_unwind.c - unwinding through traced frames (mcount/unwind.c).
 *
 * In mcount mode and clang's fentry mode every traced frame's return address
 * is the return trampoline; exceptions, backtrace() and pthread_exit must
 * still see the real call chain. g++'s fentry mode hijacks nothing (its
 * functions call __return__): the frames an exception leaves are closed by
 * their slots' positions, with the same trees. progs/unwind_cases.cc holds one scenario per
 * argument; each test builds it once with one compiler, mode and -O level,
 * untraced and traced, and for every scenario checks that the traced run
 * prints what the untraced one prints and exits the same, that the trace
 * symbolizes and passes --check, and its exact --replay tree: frames the
 * exception left "(unwound)", destructors run during unwinding under the
 * frame they ran in, and the frames after a catch nested where they are.
 * progs/unwind_exit.c is pthread_exit in a C program.
 *
 * cyg mode gets the same scenarios for its output only: libada's
 * interposed unwinder entry points are in every traced program.
 *
 * With --target=aarch64 (make check-aarch64, lib/target.h) the g++ cases
 * of mcount and cyg mode run, cross-built and under qemu-aarch64, against
 * the same trees; fentry mode and clang skip there (aarch64 has no fentry;
 * adacc takes mcount mode from gcc alone).
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/proc.h"
#include "lib/target.h"
#include "lib/tracerun.h"

struct scenario {
	const char *arg;
	const char *tree;    /* exact call trees, or NULL: see subtree */
	const char *root;    /* with subtree: a line of the tree, the root of ... */
	const char *subtree; /* ... this subtree (root included, de-indented) */
};

static const struct scenario scenarios[] = {
	{ "catch",
	  "main\n"
	  "  run_catch()\n"
	  "    level1()\n"
	  "      level2() (unwound)\n"
	  "        level3() (unwound)\n"
	  "      handled(char const*)\n"
	  "      after()\n"
	  "    after()\n"
	  "  after()\n", NULL, NULL },
	{ "rethrow",
	  "main\n"
	  "  r_top()\n"
	  "    r_outer() (unwound)\n"
	  "      r_middle() (unwound)\n"
	  "        r_thrower() (unwound)\n"
	  "        note(char const*)\n"
	  "    handled(char const*)\n"
	  "  after()\n", NULL, NULL },
	{ "raii",
	  "main\n"
	  "  d_top()\n"
	  "    d_mid() (unwound)\n"
	  "      d_throw() (unwound)\n"
	  "        Guard::~Guard()\n"
	  "      Guard::~Guard()\n"
	  "    handled(char const*)\n"
	  "  after()\n", NULL, NULL },
	{ "noexcept",
	  "main\n"
	  "  n_boundary() (unwound)\n"
	  "    Loud::~Loud() (unwound)\n"
	  "  handled(char const*)\n"
	  "  after()\n", NULL, NULL },
	{ "loop",
	  "main\n"
	  "  l_top()\n"
	  "    l_mid(int) x10 (unwound)\n"
	  "      l_throw(int) (unwound)\n"
	  "    after()\n"
	  "  after()\n", NULL, NULL },
	/* std::thread's own template functions are traced too: only the
	 * thread function's subtree is exact. */
	{ "thread", NULL, "t_body()",
	  "t_body()\n"
	  "  t_throw() (unwound)\n"
	  "  handled(char const*)\n" },
	{ "backtrace",
	  "main\n"
	  "  bt_top\n"
	  "    bt_mid\n"
	  "      bt_leaf\n"
	  "        print_names(char const*, void**, int)\n"
	  "        collect_one(_Unwind_Context*, void*) x8\n"
	  "        print_names(char const*, void**, int)\n"
	  "  after()\n", NULL, NULL },
	/* pthread_exit from pe_leaf: the thread's frames stay open, and
	 * pe_mid's Guard is destroyed on the way out. */
	{ "exit",
	  "main\n"
	  "  run_exit()\n"
	  "  after()\n"
	  "--- thread\n"
	  "pe_start (unwound)\n"
	  "  pe_mid (unwound)\n"
	  "    pe_leaf (unwound)\n"
	  "    Guard::~Guard()\n", NULL, NULL },
	/* pthread_cancel while pc_leaf waits: glibc's own forced unwind meets
	 * pc_leaf's hijacked return; mcount/unwind.c's _Unwind_Find_FDE (rule 7)
	 * unhooks the thread there, and pc_mid's Guard is destroyed. */
	{ "cancel",
	  "main\n"
	  "  run_cancel()\n"
	  "  after()\n"
	  "--- thread\n"
	  "pc_start (unwound)\n"
	  "  pc_mid (unwound)\n"
	  "    pc_leaf (unwound)\n"
	  "    Guard::~Guard()\n", NULL, NULL },
};

/* What the scenarios print, also untraced (checked once, against the
 * traced output of every build). */
static const char *const printed[] = {
	[0] = "caught deep\n",
	[1] = "note r_middle\ncaught again\n",
	[2] = "~Guard d_throw\n~Guard d_mid\ncaught raii\n",
	[3] = "caught from a destructor\n",
	[4] = "total 45\n",
	[5] = "caught in a thread\n",
	[6] = "backtrace: bt_leaf bt_mid bt_top main\n_Unwind_Backtrace: bt_leaf bt_mid bt_top main\n",
	[7] = "~Guard pe_mid\nthread returned 42\n",
	[8] = "~Guard pc_mid\nthread canceled\n",
};

#define NSCENARIOS (sizeof(scenarios) / sizeof(scenarios[0]))
_Static_assert(sizeof(printed) / sizeof(printed[0]) == NSCENARIOS, "one output per scenario");

/* The subtree under the first line whose text is `root`, de-indented;
 * malloc'd, NULL if there is no such line. */
static char *subtree(const char *replay, const char *root)
{
	size_t rootlen = strlen(root), indent = 0, cap = strlen(replay) + 1, n = 0;
	const char *p = replay, *start = NULL;
	char *out = malloc(cap);

	if (!out)
		return NULL;
	for (; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] == '\n')) {
		size_t len = strcspn(p, "\n"), ind = strspn(p, " ");

		if (!start) {
			if (len - ind == rootlen && !strncmp(p + ind, root, rootlen)) {
				start = p;
				indent = ind;
			} else {
				continue;
			}
		} else if (ind <= indent || p[0] == '#') {
			break;
		}
		memcpy(out + n, p + indent, len - indent);
		n += len - indent;
		out[n++] = '\n';
	}
	out[n] = '\0';
	if (!start) {
		free(out);
		return NULL;
	}
	return out;
}

/* The manifest shows no unmatched return: every frame's exit matched. */
static void expect_no_unmatched(struct tr_case *tc, const char *trace)
{
	tr_load_manifest(tc, trace);
	if (tc->mf.dropped[TR_UNMATCHED] != 0)
		fail_msg("%llu unmatched exits:\n%s",
			 (unsigned long long)tc->mf.dropped[TR_UNMATCHED], tc->mf.text);
}

static void run_scenario(struct tr_case *tc, const struct scenario *s, size_t i, bool trees)
{
	char trace[PATH_MAX], name[64], env_out[PATH_MAX + 16];
	const char *const args[] = { s->arg, NULL };

	snprintf(name, sizeof(name), "trace_%s", s->arg);
	tr_path(tc, name, trace);
	snprintf(env_out, sizeof(env_out), "ADA_OUTPUT=%s", trace);
	const char *const env[] = { env_out, NULL };

	print_message("  scenario %s\n", s->arg);
	tr_run_pair(tc, "cases", args, env, 0);
	if (strcmp(tc->traced.out, printed[i]) != 0)
		fail_msg("scenario %s printed:\n%s\nexpected:\n%s", s->arg, tc->traced.out,
			 printed[i]);
	tr_symbolize(tc, trace);
	expect_no_unmatched(tc, trace);
	if (!trees)
		return;
	if (s->tree) {
		tr_expect_tree(tc->replay.out, s->tree, 1);
	} else {
		char *got = subtree(tc->replay.out, s->root);

		if (!got || strcmp(got, s->subtree) != 0) {
			free(got);
			fail_msg("scenario %s: no subtree\n%swhere expected, in:\n%s", s->arg,
				 s->subtree, tc->replay.out);
		}
		free(got);
	}
}

/* Whether a case is one aarch64 has (see the top): else it passes as
 * skipped. */
static void require_target_mode(struct tr_case *tc, const char *cc, const char *mode)
{
	if (target_arch && (!strcmp(mode, "fentry") || strstr(cc, "clang"))) {
		tr_pass(tc);
		skip();
	}
}

/* Builds unwind_cases.cc with cxx (g++ or clang++) untraced and with adac++
 * in `mode` at `opt`, and runs every scenario. */
static void check_cases(void **state, const char *cxx, const char *mode, const char *opt)
{
	struct tr_case *tc = *state;
	char mode_flag[32], cxx_env[64];
	const char *const plain_flags[] = { opt, "-rdynamic", NULL };
	const char *const traced_flags[] = { mode_flag, opt, "-rdynamic", NULL };
	bool trees = strcmp(mode, "cyg") != 0;

	require_target_mode(tc, cxx, mode);

	tr_require_tool(tc, cxx);
	snprintf(mode_flag, sizeof(mode_flag), "--ada-mode=%s", mode);
	snprintf(cxx_env, sizeof(cxx_env), "ADA_CXX=%s", cxx);
	const char *const env[] = { cxx_env, NULL };
	tr_build(tc, NULL, cxx, "tests/e2e/progs/unwind_cases.cc", "cases.plain", plain_flags);
	tr_build(tc, env, TR_ADACXX, "tests/e2e/progs/unwind_cases.cc", "cases", traced_flags);
	for (size_t i = 0; i < NSCENARIOS; i++)
		run_scenario(tc, &scenarios[i], i, trees);
	tr_pass(tc);
}

#define CASES(cxx, mode, opt, fn) \
	static void fn(void **state) { check_cases(state, cxx, mode, opt); }

CASES("g++", "fentry", "-O0", gxx_fentry_O0)
CASES("g++", "fentry", "-O2", gxx_fentry_O2)
CASES("g++", "mcount", "-O0", gxx_mcount_O0)
CASES("g++", "mcount", "-O2", gxx_mcount_O2)
CASES("clang++", "fentry", "-O0", clangxx_fentry_O0)
CASES("clang++", "fentry", "-O2", clangxx_fentry_O2)
CASES("clang++", "mcount", "-O0", clangxx_mcount_O0)
CASES("clang++", "mcount", "-O2", clangxx_mcount_O2)
CASES("g++", "cyg", "-O2", gxx_cyg_O2_output_unchanged)

/* ---- pthread_exit in C ------------------------------------------------------------- */

/* The cleanup handler runs in ce_mid, after ce_leaf was left. */
static const char c_exit_tree[] =
	"main\n"
	"--- thread\n"
	"ce_start (unwound)\n"
	"  ce_mid (unwound)\n"
	"    ce_leaf (unwound)\n"
	"    ce_cleanup\n";

static void check_c_exit(void **state, const char *mode, const char *opt)
{
	struct tr_case *tc = *state;
	char mode_flag[32];
	const char *const plain_flags[] = { opt, NULL };
	const char *const traced_flags[] = { mode_flag, opt, NULL };

	require_target_mode(tc, "gcc", mode);
	snprintf(mode_flag, sizeof(mode_flag), "--ada-mode=%s", mode);
	tr_build(tc, NULL, "gcc", "unwind_exit", "exit.plain", plain_flags);
	tr_build(tc, NULL, TR_ADACC, "unwind_exit", "exit", traced_flags);
	tr_run_pair(tc, "exit", NULL, NULL, 0);
	assert_string_equal(tc->traced.out, "cleanup ce_mid\nthread returned 7\n");
	tr_symbolize(tc, NULL);
	expect_no_unmatched(tc, NULL);
	tr_expect_tree(tc->replay.out, c_exit_tree, 1);
	tr_pass(tc);
}

static void c_pthread_exit_fentry_O0(void **state)
{
	check_c_exit(state, "fentry", "-O0");
}

static void c_pthread_exit_fentry_O2(void **state)
{
	check_c_exit(state, "fentry", "-O2");
}

static void c_pthread_exit_mcount_O2(void **state)
{
	check_c_exit(state, "mcount", "-O2");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(gxx_fentry_O0, tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(gxx_fentry_O2, tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(gxx_mcount_O0, tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(gxx_mcount_O2, tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(clangxx_fentry_O0, tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(clangxx_fentry_O2, tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(clangxx_mcount_O0, tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(clangxx_mcount_O2, tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(gxx_cyg_O2_output_unchanged, tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(c_pthread_exit_fentry_O0, tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(c_pthread_exit_fentry_O2, tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(c_pthread_exit_mcount_O2, tr_setup, tr_teardown),
	};

	if (target_parse(&argc, argv) < 0)
		return 2;
	tr_scrub_environment();
	return cmocka_run_group_tests_name(target_arch ? "unwind aarch64" : "tests", tests, NULL,
					   NULL);
}
