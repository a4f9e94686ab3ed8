/* test_build_modes.c - the same call tree whatever way the program was built.
 *
 *   - --ada-static: libada.a linked into the executable, no libada.so;
 *   - an instrumented shared library (adacc -shared -fPIC) linked into an
 *     instrumented executable: one runtime, two modules, the library's calls
 *     nested under the executable's;
 *   - the same library dlopen'ed at run time: its module recorded with its
 *     build-id, its functions named;
 *   - clang and clang++ as the real compilers (ADA_CC, ADA_CXX), skipped if
 *     not installed.
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

#include <cmocka.h>

#include "lib/proc.h"
#include "lib/tracerun.h"

static char *recursion_expected; /* examples/expected/recursion.replay */
static char *cxx_expected;       /* examples/expected/cxx.replay */

static const char *expected_file(char **cache, const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/examples/expected/%s", ADA_ROOT, name);
	if (!*cache)
		*cache = proc_read_file(path, NULL);
	if (!*cache)
		fail_msg("%s: %s", path, strerror(errno));
	return *cache;
}

/* ---- static runtime --------------------------------------------------------------- */

static void static_runtime_gives_the_same_tree(void **state)
{
	struct tr_case *tc = *state;
	const char *const plain_flags[] = { "-O2", NULL };
	const char *const static_flags[] = { "-O2", "--ada-static", NULL };
	char exe[PATH_MAX];
	struct proc_result ldd = { 0 };

	tr_build(tc, NULL, "gcc", "examples/recursion.c", "recursion.plain", plain_flags);
	tr_build(tc, NULL, TR_ADACC, "examples/recursion.c", "recursion", static_flags);
	const char *const ldd_argv[] = { "ldd", tr_path(tc, "recursion", exe), NULL };
	tr_run(tc, ldd_argv, NULL, &ldd);
	bool dynamic = strstr(ldd.out, "libada") != NULL;
	if (dynamic)
		print_error("ldd %s:\n%s", exe, ldd.out);
	proc_result_free(&ldd);
	assert_false(dynamic);

	tr_run_pair(tc, "recursion", NULL, NULL, 0);
	tr_symbolize(tc, NULL);
	tr_expect_tree(tc->replay.out, expected_file(&recursion_expected, "recursion.replay"), 1);
	tr_load_manifest(tc, NULL);
	assert_int_equal(tc->mf.nmodules, 1);
	tr_pass(tc);
}

/* ---- shared libraries ---------------------------------------------------------------- */

/* <dir>/plain/libshape.so (gcc) and <dir>/traced/libshape.so (adacc), same soname. */
static void build_libraries(struct tr_case *tc)
{
	const char *const flags[] = { "-O2", "-shared", "-fPIC", "-Wl,-soname,libshape.so", NULL };

	tr_build_lib_pair(tc, "shlib", "libshape.so", NULL, flags, flags);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Fails unless the manifest lists exactly the executable and the library,
 * each with a build-id. */
static void expect_exe_and_library(const struct tr_manifest *mf, const char *exe_suffix)
{
	if (mf->nmodules != 2)
		fail_msg("%zu modules in the manifest, expected 2:\n%s", mf->nmodules, mf->text);
	assert_true(ends_with(mf->modules[0].path, exe_suffix));
	assert_true(ends_with(mf->modules[1].path, "/traced/libshape.so"));
	assert_int_equal(strlen(mf->modules[0].uuid), 40);
	assert_int_equal(strlen(mf->modules[1].uuid), 40);
}

static void linked_library_nests_under_the_executable(void **state)
{
	struct tr_case *tc = *state;
	const char *const plain[] = { "-O2", "-Lplain", "-lshape", "-Wl,-rpath,$ORIGIN/plain", NULL };
	const char *const traced[] = { "-O2", "-Ltraced", "-lshape", "-Wl,-rpath,$ORIGIN/traced",
				       NULL };

	build_libraries(tc);
	tr_build(tc, NULL, "gcc", "shlib_main", "shmain.plain", plain);
	tr_build(tc, NULL, TR_ADACC, "shlib_main", "shmain", traced);
	tr_run_pair(tc, "shmain", NULL, NULL, 0);
	assert_string_equal(tc->traced.out, "area 24\n");
	tr_symbolize(tc, NULL);
	tr_expect_tree(tc->replay.out, "main\n  measure\n    lib_area\n      lib_square x2\n", 1);
	tr_load_manifest(tc, NULL);
	expect_exe_and_library(&tc->mf, "/shmain");
	tr_pass(tc);
}

/* The executable in fentry mode, its library in cyg mode (the tests'
 * environment's ADA_MODE): one program, two modes, one shadow stack. The
 * library's cyg frames nest under the executable's hijacked ones, and the
 * manifest tells each module's mode and their union. (The executable at -O0:
 * at -O2 gcc calls a clone of measure(), measure.constprop.0.) */
static void modes_mix_in_one_program(void **state)
{
	struct tr_case *tc = *state;
	const char *const plain[] = { "-O0", "-Lplain", "-lshape", "-Wl,-rpath,$ORIGIN/plain", NULL };
	const char *const traced[] = { "-O0", "--ada-mode=fentry", "-Ltraced", "-lshape",
				       "-Wl,-rpath,$ORIGIN/traced", NULL };

	build_libraries(tc);
	tr_build(tc, NULL, "gcc", "shlib_main", "shmain.plain", plain);
	tr_build(tc, NULL, TR_ADACC, "shlib_main", "shmain", traced);
	tr_run_pair(tc, "shmain", NULL, NULL, 0);
	assert_string_equal(tc->traced.out, "area 24\n");
	tr_symbolize(tc, NULL);
	tr_expect_tree(tc->replay.out, "main\n  measure\n    lib_area\n      lib_square x2\n", 1);
	tr_load_manifest(tc, NULL);
	expect_exe_and_library(&tc->mf, "/shmain");
	if (!strstr(tc->mf.text, "\"mode\": \"cyg+fentry\"") ||
	    !strstr(tc->mf.text, "\"mode\": \"fentry\"}") ||
	    !strstr(tc->mf.text, "\"mode\": \"cyg\"}"))
		fail_msg("the manifest does not tell the modes (cyg+fentry; fentry, cyg):\n%s",
			 tc->mf.text);
	tr_pass(tc);
}

/* Returns seen by __return__ (the executable: gcc's fentry mode) and
 * hijacked (its library, --ada-returns=hijack) in one program, tail-calling
 * each other (progs/retmix_*.c): a function that calls __return__, jumped to
 * from a hijacked frame, nests in it on the same slot and returns before it
 * through the trampoline; a hijacked function jumped to from one that called
 * __return__ follows it. With every detail record written, as without. */
static void returns_mix_across_tail_calls(void **state)
{
	struct tr_case *tc = *state;
	const char *const lib[] = { "-O2", "-shared", "-fPIC", "-Wl,-soname,libretmix.so", NULL };
	const char *const hijack[] = { "-O2", "-shared", "-fPIC", "-Wl,-soname,libretmix.so",
				       "--ada-mode=fentry", "--ada-returns=hijack", NULL };
	const char *const plain[] = { "-O2", "-Lplain", "-lretmix", "-Wl,-rpath,$ORIGIN/plain", NULL };
	const char *const traced[] = { "-O2", "--ada-mode=fentry", "-Ltraced", "-lretmix",
				       "-Wl,-rpath,$ORIGIN/traced", NULL };
	const char *const all[] = { "ADA_DETAIL=all", NULL };
	static const char turn[] = "  lib_apply\n    main_cb\n  main_tail\n  lib_leaf\n  lib_pair\n";
	char tree[sizeof("main\n") + 3 * sizeof(turn)];

	tr_build_lib_pair(tc, "retmix_lib", "libretmix.so", NULL, lib, hijack);
	tr_build(tc, NULL, "gcc", "retmix_main", "retmix.plain", plain);
	tr_build(tc, NULL, TR_ADACC, "retmix_main", "retmix", traced);
	snprintf(tree, sizeof(tree), "main\n%s%s%s", turn, turn, turn);
	for (int detail = 0; detail < 2; detail++) {
		proc_rm_rf(tc->trace); /* the second run's session alone */
		tr_run_pair(tc, "retmix", NULL, detail ? all : NULL, 0);
		assert_string_equal(tc->traced.out, "sum 66 pair 54\n");
		tr_symbolize(tc, NULL);
		tr_expect_tree(tc->replay.out, tree, 1);
	}
	tr_pass(tc);
}

/* Builds the dlopen variant and runs it on the libraries, named by absolute
 * paths if abs, else by "./<dir>/libshape.so" (relative to the case directory,
 * where the programs run). */
static void check_dlopen(struct tr_case *tc, bool abs)
{
	const char *const flags[] = { "-O2", "-DUSE_DLOPEN", "-ldl", NULL };
	char plain_lib[PATH_MAX], traced_lib[PATH_MAX];

	build_libraries(tc);
	tr_build_pair(tc, "shlib_main", "dlmain", flags);
	if (abs) {
		tr_path(tc, "plain/libshape.so", plain_lib);
		tr_path(tc, "traced/libshape.so", traced_lib);
	} else {
		snprintf(plain_lib, sizeof(plain_lib), "./plain/libshape.so");
		snprintf(traced_lib, sizeof(traced_lib), "./traced/libshape.so");
	}
	const char *const plain_args[] = { plain_lib, NULL };
	const char *const traced_args[] = { traced_lib, NULL };
	/* Without the dynamic hooks (off in the tests), the writer's look at
	 * the modules finds the library: the loader's list (a writer thread)
	 * or the program's maps (a recorder). */
	tr_run_pair_args(tc, "dlmain", plain_args, traced_args, NULL, 0);
	assert_string_equal(tc->traced.out, "area 24\n");
	tr_symbolize(tc, NULL);
	tr_expect_tree(tc->replay.out, "main\n  measure\n    lib_area\n      lib_square x2\n", 1);
	tr_load_manifest(tc, NULL);
	expect_exe_and_library(&tc->mf, "/dlmain");
	tr_pass(tc);
}

static void dlopened_library_is_traced_and_named(void **state)
{
	check_dlopen(*state, true);
}

static void dlopened_by_relative_path_is_traced_and_named(void **state)
{
	check_dlopen(*state, false);
}

/* ---- clang ---------------------------------------------------------------------------- */

static void build_clang_recursion(struct tr_case *tc, const char *opt)
{
	const char *const env[] = { "ADA_CC=clang", NULL };
	const char *const flags[] = { opt, NULL };

	tr_require_tool(tc, "clang");
	tr_build(tc, NULL, "clang", "examples/recursion.c", "recursion.plain", flags);
	tr_build(tc, env, TR_ADACC, "examples/recursion.c", "recursion", flags);
	tr_run_pair(tc, "recursion", NULL, NULL, 0);
	tr_symbolize(tc, NULL);
}

static void clang_O0_gives_the_gcc_tree(void **state)
{
	build_clang_recursion(*state, "-O0");
	tr_expect_tree(((struct tr_case *)*state)->replay.out,
		       expected_file(&recursion_expected, "recursion.replay"), 1);
	tr_pass(*state);
}

/* Each tree line's name, without indentation and " xN"/" (unwound)". */
static void line_name(const char *line, size_t len, char *out, size_t outlen)
{
	const char *end;

	while (len && *line == ' ')
		line++, len--;
	end = memchr(line, ' ', len);
	snprintf(out, outlen, "%.*s", (int)(end ? (size_t)(end - line) : len), line);
}

/* adacc has clang instrument after inlining (cc-wrapper/mode.c), so which of
 * fib's calls remain depends on clang's inliner: the tree starts at main and
 * holds only the example's own functions, nothing else. */
static void clang_O2_traces_only_real_calls(void **state)
{
	struct tr_case *tc = *state;
	const char *p;
	size_t fibs = 0;

	build_clang_recursion(tc, "-O2");
	p = strchr(tc->replay.out, '\n');
	assert_non_null(p);
	assert_true(!strncmp(p + 1, "main\n", 5));
	for (p = p + 1; *p; p = strchr(p, '\n') + 1) {
		size_t len = strcspn(p, "\n");
		char name[64];

		line_name(p, len, name, sizeof(name));
		if (strcmp(name, "main") && strcmp(name, "fib") && strcmp(name, "is_even") &&
		    strcmp(name, "is_odd"))
			fail_msg("unexpected line \"%.*s\" in:\n%s", (int)len, p, tc->replay.out);
		fibs += !strcmp(name, "fib");
		if (!p[len])
			break;
	}
	assert_true(fibs > 0);
	tr_pass(tc);
}

/* clang runs no exit hooks while an exception unwinds: check_side, the check
 * that threw and check_all are closed by the runtime when error_code() is
 * entered, and show "(unwound)". That also splits "check x2" into the check
 * that returned and the one that did not. Everything else is as with g++. */
static const char cxx_clang_checked_area[] =
	"  geo::checked_area(geo::Square const* const*, int)\n"
	"    geo::check_all(geo::Square const* const*, int) (unwound)\n"
	"      geo::check(geo::Square const&)\n"
	"        geo::Square::side() const\n"
	"        geo::check_side(double)\n"
	"      geo::check(geo::Square const&) (unwound)\n"
	"        geo::Square::side() const\n"
	"        geo::check_side(double) (unwound)\n"
	"    geo::error_code(geo::BadShape const&)\n";

/* The g++ tree (examples/expected/cxx.replay) with checked_area's subtree as
 * clang leaves it, and the destructors as given (clang -O2 makes
 * ~Square() an alias of ~Shape(): the same code, one name). */
static char *cxx_clang_tree(const char *destructors)
{
	const char *gxx = expected_file(&cxx_expected, "cxx.replay");
	const char *from = strstr(gxx, "  geo::checked_area(");
	const char *to = from ? strstr(from, "  geo::Square::~Square() x3\n") : NULL;
	char *text;

	if (!to)
		fail_msg("examples/expected/cxx.replay has changed:\n%s", gxx);
	if (asprintf(&text, "%.*s%s%s", (int)(from - gxx), gxx, cxx_clang_checked_area,
		     destructors) < 0)
		fail_msg("out of memory");
	return text;
}

static void check_clangxx(struct tr_case *tc, const char *opt, const char *destructors)
{
	const char *const env[] = { "ADA_CXX=clang++", NULL };
	const char *const flags[] = { opt, NULL };
	char *expected;

	tr_require_tool(tc, "clang++");
	tr_build(tc, NULL, "clang++", "examples/cxx.cc", "cxx.plain", flags);
	tr_build(tc, env, TR_ADACXX, "examples/cxx.cc", "cxx", flags);
	tr_run_pair(tc, "cxx", NULL, NULL, 0);
	tr_symbolize(tc, NULL);
	expected = cxx_clang_tree(destructors);
	tr_expect_tree(tc->replay.out, expected, 1);
	free(expected);
	tr_pass(tc);
}

static void clangxx_O0_tree_matches_but_for_unwound_frames(void **state)
{
	check_clangxx(*state, "-O0", "  geo::Square::~Square() x3\n    geo::Shape::~Shape()\n");
}

/* adacc has clang instrument after inlining (cc-wrapper/mode.c): a function
 * inlined into its caller has no hooks, so every recorded frame has a stack
 * position of its own and a frame that an exception leaves without its exit
 * hook (clang runs none while unwinding) is found when the handler calls
 * report(): that call nests under top(), next to the unwound mid(). */
static void clangxx_O2_handler_nests_under_the_catching_frame(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_CXX=clang++", NULL };
	const char *const flags[] = { "-O2", NULL };
	static const char expected[] =
		"main\n"
		"  top(int)\n"
		"    mid(int)\n"
		"      deep(int)\n"
		"  top(int)\n"
		"    mid(int) (unwound)\n"
		"      deep(int) (unwound)\n"
		"    report(int)\n";

	tr_require_tool(tc, "clang++");
	tr_build(tc, NULL, "clang++", "tests/e2e/progs/catch_inlined.cc", "catch.plain", flags);
	tr_build(tc, env, TR_ADACXX, "tests/e2e/progs/catch_inlined.cc", "catch", flags);
	tr_run_pair(tc, "catch", NULL, NULL, 0);
	tr_symbolize(tc, NULL);
	tr_expect_tree(tc->replay.out, expected, 1);
	tr_pass(tc);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, tr_setup, tr_teardown)
	const struct CMUnitTest tests[] = {
		T(static_runtime_gives_the_same_tree),
		T(linked_library_nests_under_the_executable),
		T(modes_mix_in_one_program),
		T(returns_mix_across_tail_calls),
		T(dlopened_library_is_traced_and_named),
		T(dlopened_by_relative_path_is_traced_and_named),
		T(clang_O0_gives_the_gcc_tree),
		T(clang_O2_traces_only_real_calls),
		T(clangxx_O0_tree_matches_but_for_unwound_frames),
		T(clangxx_O2_handler_nests_under_the_catching_frame),
	};
#undef T
	int failed;

	tr_scrub_environment();
	failed = cmocka_run_group_tests_name("runtime build modes", tests, NULL, NULL);
	free(recursion_expected);
	free(cxx_expected);
	return failed;
}
