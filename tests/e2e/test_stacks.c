/* test_stacks.c - programs that switch stacks (runtime/stacks.c), in every
 * mode at -O0 and -O2: each coroutine stack is a thread of its own in the
 * trace, and its calls nest exactly across every suspension and resumption.
 *
 *   progs/stack_switch.c  ucontext coroutines, a hand-written switch in
 *                         assembly, contexts resumed by another thread
 *   progs/coro20.cc       a C++20 generator (stackless: nothing switches)
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "lib/calltree.h"
#include "lib/tracerun.h"

static const char *const modes[] = { "cyg", "fentry", "mcount" };
static const char *const opts[] = { "-O0", "-O2" };

/* One build and traced run of prog (plain and traced outputs compared),
 * symbolized and checked, into a trace directory of its own; nothing may
 * be dropped or unmatched. Returns the number of coroutine-stack threads. */
static size_t run_one(struct tr_case *tc, const char *cc, const char *plain_cc, const char *prog,
		      const char *mode, const char *opt, const char *const args[],
		      const char *const extra[])
{
	char out[64], flag[32], trace[PATH_MAX], env_out[PATH_MAX + 16], plain[80];
	const char *const plain_flags[] = { opt, extra[0], extra[1], NULL };
	const char *const flags[] = { opt, flag, extra[0], extra[1], NULL };
	const char *const env[] = { env_out, NULL };
	size_t stacks = 0;

	snprintf(out, sizeof(out), "%s%s", mode, opt);
	snprintf(plain, sizeof(plain), "%s.plain", out);
	snprintf(flag, sizeof(flag), "--ada-mode=%s", mode);
	snprintf(trace, sizeof(trace), "%s/trace_%s", tc->dir, out);
	snprintf(env_out, sizeof(env_out), "ADA_OUTPUT=%s", trace);
	tr_build(tc, NULL, plain_cc, prog, plain, plain_flags);
	tr_build(tc, NULL, cc, prog, out, flags);
	tr_run_pair(tc, out, args, env, 0);
	tr_symbolize(tc, trace);
	tr_load_manifest(tc, trace);
	for (unsigned r = 0; r < TR_NDROPS; r++)
		if (tc->mf.dropped[r])
			fail_msg("%s %s: %llu %s\n%s", mode, opt,
				 (unsigned long long)tc->mf.dropped[r], tr_drop_names[r],
				 tc->mf.text);
	for (const char *p = tc->mf.text; (p = strstr(p, "\"stack\": {")); p++)
		stacks++;
	return stacks;
}

/* stack_switch <how> 3 in every mode at -O0 and -O2: the coroutines' sums
 * (each adds 1..3 times its number) as without ada, two coroutine stacks,
 * and the call tree `tree`. */
static void check_switch(struct tr_case *tc, const char *how, const char *tree)
{
	const char *const args[] = { how, "3", NULL };
	const char *const extra[] = { NULL, NULL };

	for (size_t m = 0; m < 3; m++)
		for (size_t o = 0; o < 2; o++) {
			assert_int_equal(run_one(tc, TR_ADACC, "gcc", "stack_switch", modes[m],
						 opts[o], args, extra),
					 2);
			assert_string_equal(tc->traced.out, "6 12\n");
			tr_expect_tree(tc->replay.out, tree, 1);
		}
	tr_pass(tc);
}

static const char ucontext_tree[] = "main\n"
				    "  make x2\n"
				    "  drive\n"
				    "    resume x8\n"
				    "--- thread\n"
				    "co_body\n"
				    "  step x3\n"
				    "    leaf\n"
				    "      co_yield\n"
				    "--- thread\n"
				    "co_body\n"
				    "  step x3\n"
				    "    leaf\n"
				    "      co_yield\n";

static void ucontext_coroutines_nest_on_their_own_stacks(void **state)
{
	check_switch(*state, "ucontext", ucontext_tree);
}

/* co_start, where an assembly coroutine begins, never returns. */
static const char asm_tree[] = "main\n"
			       "  make x2\n"
			       "  drive\n"
			       "    resume x8\n"
			       "--- thread\n"
			       "co_start (open at exit)\n"
			       "  co_body\n"
			       "    step x3\n"
			       "      leaf\n"
			       "        co_yield\n"
			       "--- thread\n"
			       "co_start (open at exit)\n"
			       "  co_body\n"
			       "    step x3\n"
			       "      leaf\n"
			       "        co_yield\n";

static void assembly_stack_switch_nests_on_each_stack(void **state)
{
	check_switch(*state, "asm", asm_tree);
}

/* The coroutines' frames opened on the first thread return on the second:
 * one tree per stack whichever thread ran it. */
static const char migrate_tree[] = "main\n"
				   "--- thread\n"
				   "first_half\n"
				   "  make x2\n"
				   "  drive\n"
				   "    resume x2\n"
				   "--- thread\n"
				   "second_half\n"
				   "  drive\n"
				   "    resume x6\n"
				   "--- thread\n"
				   "co_body\n"
				   "  step x3\n"
				   "    leaf\n"
				   "      co_yield\n"
				   "--- thread\n"
				   "co_body\n"
				   "  step x3\n"
				   "    leaf\n"
				   "      co_yield\n";

static void contexts_resumed_by_another_thread_return_exactly(void **state)
{
	check_switch(*state, "migrate", migrate_tree);
}

/* The second thread runs no traced code of its own: the first hooks it
 * runs are the returns of frames the first thread opened on the coroutine
 * stacks (in fentry and mcount modes, through slots that thread hijacked). */
static const char handoff_tree[] = "main\n"
				   "--- thread\n"
				   "first_half\n"
				   "  make x2\n"
				   "  drive\n"
				   "    resume x2\n"
				   "--- thread\n"
				   "co_body\n"
				   "  step x3\n"
				   "    leaf\n"
				   "      co_yield\n"
				   "--- thread\n"
				   "co_body\n"
				   "  step x3\n"
				   "    leaf\n"
				   "      co_yield\n";

static void contexts_resumed_by_an_untraced_thread_return_exactly(void **state)
{
	check_switch(*state, "handoff", handoff_tree);
}

/* A C++20 generator of 5 squares: each square is computed inside a resume
 * of the coroutine's body (gcc's ".actor" clone), called from main's stack. */
static void cxx20_generator_resumes_nest_in_their_caller(void **state)
{
	struct tr_case *tc = *state;
	const char *const args[] = { "5", NULL };
	const char *const extra[] = { "-std=c++20", NULL };
	const char *const actor = "squares(squares(int)::_Z7squaresi.Frame*) [clone .actor]";

	for (size_t m = 0; m < 3; m++)
		for (size_t o = 0; o < 2; o++) {
			assert_int_equal(run_one(tc, TR_ADACXX, "g++", "tests/e2e/progs/coro20.cc",
						 modes[m], opts[o], args, extra),
					 0);
			assert_string_equal(tc->traced.out, "55\n");
			assert_int_equal(calltree_calls(tc->replay.out, "square(long)", actor), 5);
			assert_int_equal(calltree_calls(tc->replay.out, "square(long)", NULL), 5);
			assert_int_equal(calltree_calls(tc->replay.out, "total(int)", "main"), 1);
		}
	tr_pass(tc);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, tr_setup, tr_teardown)
	const struct CMUnitTest tests[] = {
		T(ucontext_coroutines_nest_on_their_own_stacks),
		T(assembly_stack_switch_nests_on_each_stack),
		T(contexts_resumed_by_another_thread_return_exactly),
		T(contexts_resumed_by_an_untraced_thread_return_exactly),
		T(cxx20_generator_resumes_nest_in_their_caller),
	};

	tr_scrub_environment();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
