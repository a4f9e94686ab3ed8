/* test_hijack_abi.c - fentry and mcount modes: the calling convention survives.
 *
 * The entry trampolines run before the traced function has looked at its
 * arguments, and the return trampoline between its `ret` and its caller, so
 * both must leave every register the ABI gives a meaning to as they found
 * it:
 *   - variadic calls: the argument registers, %al and the stack
 *     (tests/e2e/progs/hijack_varargs.c);
 *   - return values in rax:rdx, xmm0:xmm1, st0:st1 and through the hidden
 *     struct pointer (hijack_retvals.c), printed in hex so that one changed
 *     bit shows;
 *   - GCC nested functions' static chain in r10, directly and through a
 *     stack trampoline (hijack_nested.c).
 * Each program is built at -O0 and -O2 with plain gcc and with bin/adacc
 * --ada-mode=<mode>; the traced run must print exactly what the plain one
 * prints, with the exact call tree and a trace that passes --check.
 * And a -pg link must not bring glibc's gprof back: no gmon.out, whereas
 * plain gcc -pg leaves one (which shows the check can see it).
 */
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

#include "e2e/hijack_run.h"
#include "lib/tracerun.h"

/* ---- variadic functions -------------------------------------------------------- */

static void check_varargs(struct tr_case *tc, const char *opt)
{
	hj_build(tc, "hijack_varargs", opt);
	hj_run(tc, "hijack_varargs", NULL, NULL, 0,
	       "sum: 6\n"
	       "sum of 12: 78\n"
	       "dsum of 11: 0x1.2a05f2133cccdp+33\n"
	       "weighted: 0x1.733p+11\n"
	       "format: 50 [42 str 3.142 z -123456789012 0x1.4p+1 7 1e-05 8 ff]\n");
	tr_expect_tree(tc->replay.out, "main\n  sum x2\n  dsum\n  weighted\n  format\n", 1);
	hj_expect_manifest(tc, 0, false);
	tr_pass(tc);
}

static void variadic_arguments_arrive_intact_O0(void **state)
{
	check_varargs(*state, "-O0");
}

static void variadic_arguments_arrive_intact_O2(void **state)
{
	check_varargs(*state, "-O2");
}

/* ---- nested functions: the static chain --------------------------------------- */

static void check_nested(struct tr_case *tc, const char *opt)
{
	bool nested = hj_hijacks() || strcmp(opt, "-O0") == 0; /* apply: a tail call at -O2 */

	hj_build(tc, "hijack_nested", opt);
	hj_run(tc, "hijack_nested", NULL, NULL, 0, "apply: 25\ndirect: 35\n");
	/* The nested functions are named add.N and direct.N by gcc: the tree is
	 * compared on the program's own calls in order. */
	if (!strstr(tc->replay.out, nested ? "  apply x5\n    add." : "  apply\n  add.") ||
	    !strstr(tc->replay.out, "  direct."))
		fail_msg("--replay misses the nested calls:\n%s", tc->replay.out);
	hj_expect_manifest(tc, 0, false);
	tr_pass(tc);
}

static void nested_function_static_chain_arrives_intact_O0(void **state)
{
	check_nested(*state, "-O0");
}

static void nested_function_static_chain_arrives_intact_O2(void **state)
{
	check_nested(*state, "-O2");
}

/* ---- return values ------------------------------------------------------------- */

static const char retvals_tree[] =
	"main\n"
	"  ret_two_longs\n"
	"  ret_two_doubles\n"
	"  ret_long_double_struct\n"
	"  ret_double_long_struct\n"
	"  ret_four_floats\n"
	"  ret_big\n"
	"  ret_complex\n"
	"  ret_complex_float\n"
	"  ret_complex_long_double\n"
	"  ret_double\n"
	"  ret_float\n"
	"  ret_long_double\n"
	"  ret_int128\n"
	"  ret_uint128\n"
	"  ret_pointer\n"
	"  ret_negative_int\n"
	"  ret_uchar\n";

/* Stdout equal to the plain build's is the check (hj_run via
 * tr_run_pair); a few lines are spelled out too, so a build where both
 * agree on something wrong shows. */
static void check_retvals(struct tr_case *tc, const char *opt)
{
	static const char *const lines[] = {
		"two longs: 3000009 -4887718348\n",
		"long double: 0xa.aaaaaaaaaaaaaabp-5\n",
		"int128: 0000000ffffffffffffd800000000005\n",
		"complex long double: 0xa.aaaaaaaaaaaaaabp-3 0x9.249249249249249p-4\n",
		"two doubles: 0x1.aaaaaaaaaaaabp-1 -0x1.d1745d1745d17p-3\n",
		"big: 1000 1999 2998 3997 4996 5995 6994 7993\n",
	};

	hj_build(tc, "hijack_retvals", opt);
	hj_run(tc, "hijack_retvals", NULL, NULL, 0, NULL);
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		if (!strstr(tc->traced.out, lines[i]))
			fail_msg("no line \"%.*s\" in stdout:\n%s", (int)strlen(lines[i]) - 1,
				 lines[i], tc->traced.out);
	tr_expect_tree(tc->replay.out, retvals_tree, 1);
	hj_expect_manifest(tc, 0, false);
	tr_pass(tc);
}

static void return_values_cross_the_trampoline_intact_O0(void **state)
{
	check_retvals(*state, "-O0");
}

static void return_values_cross_the_trampoline_intact_O2(void **state)
{
	check_retvals(*state, "-O2");
}

/* ---- the fast paths handing over to C ------------------------------------------ */

#define LOOP_ITERATIONS 20000

/* hijack_loop.c's tree: main, then per iteration two, half, tail (and the
 * callee it jumps to: nested when returns are hijacked, else after it), and
 * all calling the same. */
static char *loop_tree(void)
{
	const char *turn = hj_hijacks() ? "  two\n  half\n  tail\n    callee\n  all\n    two\n"
					  "    tail\n      callee\n    half\n"
					: "  two\n  half\n  tail\n  callee\n  all\n    two\n"
					  "    tail\n    callee\n    half\n";
	size_t size = sizeof("main\n") + LOOP_ITERATIONS * strlen(turn);
	char *tree = malloc(size), *p;

	if (!tree)
		fail_msg("out of memory");
	p = tree + snprintf(tree, size, "main\n");
	for (int i = 0; i < LOOP_ITERATIONS; i++)
		p += snprintf(p, size - (size_t)(p - tree), "%s", turn);
	return tree;
}

/* A number from manifest.json (its first occurrence: the process has one
 * thread). */
static uint64_t manifest_number(const struct tr_case *tc, const char *key)
{
	char buf[32];

	if (!tr_json_value(tc->mf.text, tc->mf.text + strlen(tc->mf.text), key, buf, sizeof(buf)))
		fail_msg("manifest.json has no \"%s\":\n%s", key, tc->mf.text);
	return strtoull(buf, NULL, 10);
}

/* hijack_loop.c, traced with env: the plain build's sums, the exact tree,
 * and every event's detail record written or counted as detail_full. */
static void check_loop(struct tr_case *tc, const char *const env[])
{
	const char *const args[] = { "20000", NULL };
	const struct tr_thread *t;
	uint64_t kept, full;
	char *tree;

	_Static_assert(LOOP_ITERATIONS == 20000, "args");
	hj_build(tc, "hijack_loop", "-O2");
	hj_expect_jump(tc, "hijack_loop", "tail", "callee");
	hj_run(tc, "hijack_loop", args, env, 0,
	       "two: 599990000 -199990000\nhalf: 0x1.7d735ep+26\ntail: 425097680\n"
	       "all: 925087680\n");
	tree = loop_tree();
	tr_expect_tree(tc->replay.out, tree, 1);
	free(tree);
	tr_load_manifest(tc, NULL);
	if (tc->mf.nthreads != 1)
		fail_msg("%zu threads in the manifest, expected 1", tc->mf.nthreads);
	t = &tc->mf.threads[0];
	kept = manifest_number(tc, "detail_events");
	full = manifest_number(tc, "detail_full");
	/* The frame open at the end has no RETURN, so no record. */
	if (kept + full + t->open_at_end != t->events)
		fail_msg("%llu events, %llu with a detail record, %llu counted detail_full, %llu "
			 "open at the end: records unaccounted for\n%s",
			 (unsigned long long)t->events, (unsigned long long)kept,
			 (unsigned long long)full, (unsigned long long)t->open_at_end, tc->mf.text);
	tr_pass(tc);
}

/* With every detail record kept (ADA_DETAIL=all) in a ring of 292 records,
 * the thread soon runs out of records: from then on the assembly fast paths
 * (fentry.S, return.S, fast.h) look at the writer's tail again, find none
 * free, and count the event's record as detail_full (as the C path does);
 * the tree shows a frame lost or doubled (tail calls: two frames returning
 * through one slot), the sums a register changed on the way. */
static void return_values_survive_a_full_detail_ring(void **state)
{
	const char *const env[] = { "ADA_DETAIL=all", "ADA_DETAIL_KB=64", NULL };

	check_loop(*state, env);
}

/* A stack window of another size than the default's sends every hook from
 * the fast paths to C once they have looked at registers the return values
 * are in (the crash Lua showed: a return path that used rax to compute a
 * position before handing over). */
static void return_values_survive_the_fast_paths_handing_over(void **state)
{
	const char *const env[] = { "ADA_DETAIL=all", "ADA_STACK_BYTES=64", NULL };

	check_loop(*state, env);
}

/* ---- gmon.out ------------------------------------------------------------------ */

static void pg_link_writes_no_gmon_out(void **state)
{
	struct tr_case *tc = *state;
	const char *const fentry_pg[] = { "-O2", "-pg", "-mfentry", NULL };
	const char *const mcount_pg[] = { "-O2", "-pg", NULL };
	char path[PATH_MAX];
	const char *const gprof[] = { tr_path(tc, "gprof", path), NULL };
	struct stat st;

	/* Without libada, glibc's gprof writes gmon.out at exit. */
	tr_build(tc, NULL, "gcc", "hijack_varargs", "gprof",
		 strcmp(hj_mode, "fentry") == 0 ? fentry_pg : mcount_pg);
	tr_run(tc, gprof, NULL, &tc->plain);
	if (stat(tr_path(tc, "gmon.out", path), &st) != 0)
		fail_msg("plain gcc -pg wrote no %s: this test could not see one either", path);
	if (remove(path) != 0)
		fail_msg("cannot remove %s", path);

	hj_build(tc, "hijack_varargs", "-O2");
	hj_run(tc, "hijack_varargs", NULL, NULL, 0, NULL); /* checks gmon.out */
	tr_pass(tc);
}

#define TEST(fn) cmocka_unit_test_setup_teardown(fn, tr_setup, tr_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(variadic_arguments_arrive_intact_O0),
		TEST(variadic_arguments_arrive_intact_O2),
		TEST(return_values_cross_the_trampoline_intact_O0),
		TEST(return_values_cross_the_trampoline_intact_O2),
		TEST(return_values_survive_a_full_detail_ring),
		TEST(return_values_survive_the_fast_paths_handing_over),
		TEST(pg_link_writes_no_gmon_out),
		TEST(nested_function_static_chain_arrives_intact_O0),
		TEST(nested_function_static_chain_arrives_intact_O2),
	};

	tr_scrub_environment();
	return hj_run_groups("hijack abi", tests, sizeof(tests) / sizeof(tests[0]));
}
