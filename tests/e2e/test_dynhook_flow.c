/* test_dynhook_flow.c - the dynamic-hook fallback when calls do not simply
 * return: exceptions, longjmp, vfork/fork/exec, threads. (The rest:
 * test_dynhook.c, test_dynhook_dlopen.c.)
 *
 * With ADA_DYNHOOK=on (the default; tr_scrub_environment turns it off for
 * the other tests, main() here turns it back on) the runtime points the
 * PLT/GOT slots of every loaded module but libada and ld.so at stubs of their
 * targets, so a call into libc, into a plain gcc-built library or into
 * libstdc++ is a CALL and a RETURN (with registers, in fentry and mcount
 * modes) of the function the slot leads to.
 *
 * The trees compared are views of the replay (dynhook_view.h); the programs
 * are built, run and checked as dynhook_run.h says. What is checked here:
 *   - C++: std::out_of_range thrown inside libstdc++ through hooked frames,
 *     caught in main, with lazy and with immediate binding;
 *   - longjmp out of qsort's comparator, siglongjmp out of a handler
 *     entered in raise;
 *   - vfork + exec (the parent alone: the child records nothing), fork +
 *     exec, exec: the trees of parent and child, and none of the runtime's
 *     own library calls in them;
 *   - four threads calling one library function 1000 times each.
 *
 * Tests marked "BUG:" show a defect described in their comment; they fail
 * until it is fixed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "e2e/dynhook_run.h"
#include "e2e/dynhook_view.h"
#include "lib/tracerun.h"

/* ---- C++: libstdc++, and an exception thrown inside it --------------------------------- */

static const char cxx_tree[] =
	"main\n"
	"  dh::build[abi:cxx11](int)\n"
	"  dh::sum_sorted(std::vector<int, std::allocator<int> >&)\n"
	"  dh::fetch_all(std::vector<int, std::allocator<int> > const&) (unwound)\n"
	"    dh::fetch(std::vector<int, std::allocator<int> > const&, unsigned long) x3\n"
	"    dh::fetch(std::vector<int, std::allocator<int> > const&, unsigned long) (unwound)\n"
	"  dh::report(char const*)\n"
	"  dh::after(int)\n";

/* stdout, but for the exception's message (libstdc++'s words). */
static const char cxx_out_start[] = "item7.................... 25\nsorted 123\ncaught: ";
static const char cxx_out_end[] = "\nafter 42\n";

/* The line of replay whose text, after its indentation, is `text`: its
 * start in *line and its indentation in *indent; false if there is none. */
static bool find_line(const char *replay, const char *text, const char **line, size_t *indent)
{
	for (const char *p = replay; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p), in = strspn(p, " ");

		if (len - in == strlen(text) && !strncmp(p + in, text, len - in)) {
			*line = p;
			*indent = in;
			return true;
		}
		p = nl ? nl + 1 : NULL;
	}
	return false;
}

/* Fails unless the replay has a line `parent` whose first child is `child`. */
static void expect_first_child(const char *replay, const char *parent, const char *child)
{
	const char *line, *next;
	size_t indent;

	if (!find_line(replay, parent, &line, &indent) || !(next = strchr(line, '\n')) ||
	    strspn(next + 1, " ") != indent + 2 || strncmp(next + 3 + indent, child, strlen(child)) ||
	    next[3 + indent + strlen(child)] != '\n')
		fail_msg("--replay has no line \"%s\" with a first child \"%s\":\n%s", parent, child,
			 replay);
}

/* Fails unless the replay has a line `parent` with a line `desc` somewhere
 * in its subtree. */
static void expect_descendant(const char *replay, const char *parent, const char *desc)
{
	const char *line;
	size_t indent;

	if (find_line(replay, parent, &line, &indent)) {
		for (const char *p = strchr(line, '\n'); p && p[1]; p = strchr(p + 1, '\n')) {
			size_t in = strspn(p + 1, " "), len = strcspn(p + 1, "\n");

			if (in <= indent)
				break;
			if (len - in == strlen(desc) && !strncmp(p + 1 + in, desc, len - in))
				return;
		}
	}
	fail_msg("--replay has no line \"%s\" under \"%s\":\n%s", desc, parent, replay);
}

/* Fails unless the replay has a line `parent` whose subtree is one line, a
 * function whose name normalises to `leaf`. */
static void expect_leaf(const char *replay, const char *parent, const char *leaf)
{
	const char *line = NULL, *next = NULL, *after;
	size_t indent, len;
	char name[256], norm[256];

	if (!find_line(replay, parent, &line, &indent) || !(next = strchr(line, '\n')) ||
	    strspn(next + 1, " ") != indent + 2)
		fail_msg("--replay has no line \"%s\" with a child:\n%s", parent, replay);
	next += 1 + indent + 2;
	len = strcspn(next, "\n");
	snprintf(name, sizeof(name), "%.*s", (int)len, next);
	dh_normalize(name, norm, sizeof(norm));
	after = next + len;
	if (strcmp(norm, leaf) != 0 || (*after && strspn(after + 1, " ") > indent))
		fail_msg("--replay: \"%s\" should have one child, \"%s\", and nothing under it:\n%s",
			 parent, leaf, replay);
}

/* The program's own functions exactly (dh:: and main: the std::sort
 * instances and string members compiled into it depend on the compiler);
 * the throw inside libstdc++ as it happened: __throw_out_of_range_fmt,
 * called by dh::fetch, and its __cxa_throw, unwound. */
static void check_cxx(struct tr_case *tc, const char *const env[])
{
	static const char *const flags[] = { "-O2", NULL };
	static const char *const traced[] = { "-O2", "--ada-mode=fentry", NULL };
	struct view v = { VIEW_OWN, "dh::", &dh_scratch.nm };

	tr_build(tc, NULL, "g++", DH_PROGS "cxx.cc", "cxx.plain", flags);
	tr_build(tc, NULL, TR_ADACXX, DH_PROGS "cxx.cc", "cxx", traced);
	dh_run(tc, "cxx", "trace", env, 0);
	if (!dh_starts_with(tc->traced.out, cxx_out_start) ||
	    !dh_ends_with(tc->traced.out, cxx_out_end) ||
	    strchr(tc->traced.out + strlen(cxx_out_start), '\n') !=
		    tc->traced.out + strlen(tc->traced.out) - strlen(cxx_out_end))
		fail_msg("stdout is \"%s\", expected \"%s<what()>%s\"", tc->traced.out,
			 cxx_out_start, cxx_out_end);
	dh_names_load(&dh_scratch.nm, tc);
	dh_expect_view(tc, &v, cxx_tree);
	dh_names_free(&dh_scratch.nm);
	expect_first_child(tc->replay.out,
			   "dh::fetch(std::vector<int, std::allocator<int> > const&, unsigned long) "
			   "(unwound)",
			   "std::__throw_out_of_range_fmt(char const*, ...) (unwound)");
	expect_descendant(tc->replay.out, "std::__throw_out_of_range_fmt(char const*, ...) (unwound)",
			  "__cxa_throw (unwound)");
	dh_expect_module_mode(tc, "/libstdc++.so.6", "plt");
	tr_pass(tc);
}

/* With LD_BIND_NOW=1 every slot is bound by the dynamic linker before the
 * hooks are set, so libstdc++'s calls to the unwinder reach libada's
 * interposers (mcount/unwind.c), which give the unwinder the real return
 * addresses of the hooked frames. */
static void cxx_exception_from_libstdcxx_unwinds_hooked_frames_bind_now(void **state)
{
	const char *const env[] = { "LD_BIND_NOW=1", NULL };

	check_cxx(*state, env);
}

/* The default: libstdc++.so.6 is bound lazily, so its _Unwind_* and
 * __cxa_* slots are still unbound when the hooks are set and the runtime
 * binds them. They must reach libada's unversioned interposers, as the
 * dynamic linker would bind them, even though libstdc++ asks for
 * _Unwind_RaiseException@GCC_3.0: bound to libgcc_s's own, the unwinder
 * meets ada_return_trampoline in the hooked frames (whose unwind
 * information says "no caller") and calls std::terminate. */
static void cxx_exception_from_libstdcxx_unwinds_hooked_frames(void **state)
{
	check_cxx(*state, NULL);
}

/* ---- longjmp through hooked calls ---------------------------------------------------- */

static const char longjmp_tree[] =
	"main\n"
	"  sort_until_bail\n"
	"    qsort (unwound)\n"
	"      cmp x2\n"
	"      cmp (unwound)\n"
	"        bail (unwound)\n"
	"          longjmp (unwound)\n"
	"  printf\n"
	"  wait_for_signal\n"
	"    sigaction\n"
	"    raise (unwound)\n"
	"      on_signal (unwound)\n"
	"        longjmp (unwound)\n"
	"  printf\n"
	"  after\n"
	"  printf\n";

/* qsort (hooked) calls the program's comparator, which longjmps out of it;
 * a signal handler entered inside raise (hooked) siglongjmps out of both.
 * setjmp and sigsetjmp are never hooked (a hijacked return address would be
 * resumed from the saved context), so they are not in the tree. */
static void longjmp_out_of_hooked_calls(void **state)
{
	struct tr_case *tc = *state;

	dh_build_fentry_pair(tc, "longjmp", NULL);
	dh_run(tc, "longjmp", "trace", NULL, 0);
	assert_string_equal(tc->traced.out,
			    "bailed with 7 after 3 compares\nsignal 10\nafter 42\n");
	dh_expect_direct_tree(tc, longjmp_tree);
	tr_pass(tc);
}

/* ---- vfork and exec ------------------------------------------------------------------- */

static const char vfork_tree[] =
	"main\n"
	"  spawn\n"
	"    waitpid\n"
	"  printf\n"
	"  spawn\n"
	"    waitpid\n"
	"  printf\n"
	"  measure\n"
	"    strlen\n"
	"  printf\n";

/* vfork is never hooked; libada's is a real vfork whose child records
 * nothing (mcount/x86_64/vfork.S): the child runs on the parent's memory,
 * rings and shadow stack included, until it execs. So the session holds
 * the parent alone, its tree whole, its output and the children's exit
 * statuses the plain program's. (When vfork ran as fork, each child was a
 * traced process of its own, with main and spawn open at its exec; before
 * that, the child's exec flushed the parent's rings from the child, and the
 * parent's trace broke: "cannot write a thread file ...: Bad file
 * descriptor".) */
static void vfork_exec_leaves_the_parent_trace_whole(void **state)
{
	struct tr_case *tc = *state;

	dh_build_fentry_pair(tc, "vfork", NULL);
	tr_run_pair(tc, "vfork", NULL, NULL, 0);
	assert_string_equal(tc->traced.out, "true: 0\nfalse: 1\nlen 6\n");
	if (tc->traced.err[0])
		fail_msg("the traced run wrote on stderr:\n%s", tc->traced.err);
	tr_symbolize(tc, NULL);
	assert_int_equal(dh_expect_balanced(tc->trace), 1);
	dh_expect_direct_trees(tc, tc->trace, vfork_tree);
	tr_pass(tc);
}

/* BUG: in a fork child, the runtime's own calls are recorded as the
 * program's. fork_child() (runtime/init.c, an atfork handler that runs
 * inside the hooked fork, on the program's thread) calls
 * ada_writer_after_fork() (then in runtime/writer.c), which drained the thread's
 * ring with lz4 (LZ4F_compressBegin_usingCDict calls malloc and free
 * through liblz4's PLT, hooked like any module's but libada's) and starts
 * the child's writer thread (pthread_create calls ld.so's
 * _dl_allocate_tls_init through libc's hooked PLT), without
 * ada_runtime_begin() (which ada_finish, ada_before_exec, exec.c's lookups
 * and the hooking passes have). The child's tree:
 *   main (open at exec)
 *     __fork
 *       malloc x2
 *       free x2
 *       malloc x2
 *       free x18
 *       _dl_allocate_tls_init
 * Expected: main (open at exec) > fork, and nothing under fork. Reproducer:
 *   adacc -O2 -o fork tests/e2e/progs/dynhook/fork.c && ./fork
 *   ada-symbolize --replay ada-trace   # both processes */
static void fork_child_records_only_its_own_calls(void **state)
{
	struct tr_case *tc = *state;

	dh_build_fentry_pair(tc, "fork", NULL);
	tr_run_pair(tc, "fork", NULL, NULL, 0);
	assert_string_equal(tc->traced.out, "child 0\n");
	if (tc->traced.err[0])
		fail_msg("the traced run wrote on stderr:\n%s", tc->traced.err);
	tr_symbolize(tc, NULL);
	assert_int_equal(dh_expect_balanced(tc->trace), 2);
	dh_expect_direct_trees(tc, tc->trace,
			       "main\n"
			       "  fork\n"
			       "  waitpid\n"
			       "  printf\n"
			       "--- thread\n"
			       "main (open at exec)\n"
			       "  fork\n");
	/* The view leaves out what library functions call: the child's fork
	 * must have no child at all. */
	expect_leaf(tc->replay.out, "main (open at exec)", "fork");
	tr_pass(tc);
}

/* The runtime's own calls through hooked slots are not the program's:
 * libada's execl (runtime/exec.c) looks libc's execve up with
 * dlsym(RTLD_NEXT), and dlsym calls ld.so's _dl_find_dso_for_object through
 * libc's (hooked) PLT; the tree must not show it under main. */
static void runtime_lookups_are_not_recorded(void **state)
{
	struct tr_case *tc = *state;

	dh_build_fentry_pair(tc, "exec", NULL);
	dh_run(tc, "exec", "trace", NULL, 0);
	assert_string_equal(tc->traced.out, "exec 1\n");
	dh_expect_direct_tree(tc,
			      "main (open at exec)\n"
			      "  printf\n"
			      "  fflush\n");
	tr_pass(tc);
}

/* ---- threads -------------------------------------------------------------------------- */

#define THREAD_BLOCK "worker\n  plain_len x1000\n    strlen\n"

static const char threads_tree[] =
	"main\n"
	"  pthread_create x4\n"
	"  pthread_join x4\n"
	"  printf\n"
	"--- thread\n" THREAD_BLOCK "--- thread\n" THREAD_BLOCK "--- thread\n" THREAD_BLOCK
	"--- thread\n" THREAD_BLOCK;

/* Four threads call the same function of libplain (one stub, one cell for
 * every thread) 1000 times each: each thread has all of its calls, each
 * with its strlen, and nothing is dropped. */
static void four_threads_call_one_library_function(void **state)
{
	struct tr_case *tc = *state;

	dh_make_dir(tc, "b");
	dh_build_libplain(tc, "b", NULL);
	dh_build_against_libplain(tc, "b", DH_PROGS "threads.c", "threads", "fentry", NULL);
	dh_run(tc, "b/threads", "trace", NULL, 0);
	assert_string_equal(tc->traced.out, "total 10000\n");
	assert_int_equal(tc->mf.nthreads, 5);
	dh_expect_direct_tree(tc, threads_tree);
	tr_pass(tc);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, tr_setup, dh_teardown)
	const struct CMUnitTest tests[] = {
		T(cxx_exception_from_libstdcxx_unwinds_hooked_frames_bind_now),
		T(cxx_exception_from_libstdcxx_unwinds_hooked_frames),
		T(longjmp_out_of_hooked_calls),
		T(vfork_exec_leaves_the_parent_trace_whole),
		T(fork_child_records_only_its_own_calls),
		T(runtime_lookups_are_not_recorded),
		T(four_threads_call_one_library_function),
	};
#undef T

	tr_scrub_environment();
	/* tr_scrub_environment turns the hooks off for the other tests. */
	setenv("ADA_DYNHOOK", "on", 1);
	return cmocka_run_group_tests_name("dynamic hooks: exceptions, longjmp, processes, threads",
					   tests, NULL, NULL);
}
