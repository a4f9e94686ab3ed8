/* test_vfork.c - vfork keeps its semantics under ada, in every mode.
 *
 * tests/e2e/progs/vfork.c is built with gcc and with bin/adacc in cyg,
 * fentry and mcount mode (a group of tests per mode); both builds must print
 * the same and exit alike. libada's vfork is a real one whose child records
 * nothing (mcount/x86_64/vfork.S):
 *   - the child's store into the parent's stack frame reaches the parent
 *     (x=42; when vfork ran as fork the traced program printed x=0), at -O0
 *     and -O2, with and without the dynamic hooks (the child calls a traced
 *     function and a hooked library function, getppid);
 *   - the parent's trace is whole and exact (call counts included) and has
 *     none of the child's calls; a child that execs /bin/true, or fails to
 *     exec and _exits 127, leaves no process of its own in the session;
 *   - a child that execs a traced program: that image has a trace of its
 *     own, next to the parent's;
 *   - posix_spawn and system(), whose children libc runs the vfork way on
 *     a stack of their own, from a traced program with the hooks on;
 *   - the program's own clone(CLONE_VM | CLONE_VFORK): its child records
 *     nothing either (runtime/clone.c);
 *   - 200 vforks while another thread records: every call of both threads
 *     is in the trace.
 *
 * With --target=aarch64 (tests/e2e/aarch64.sh; mcount/aarch64/vfork.S) the
 * cyg and mcount groups run under qemu-user, which runs a vfork, and a
 * clone(CLONE_VM | CLONE_VFORK), as a fork: the child's store stays in its
 * copy, so both builds print x=0 and stores: 0 (the pair's outputs are
 * still compared), and the parent runs on beside its child. What holds
 * there is the rest: the child records nothing into the parent's rings
 * and its _exit leaves the parent's trace open (with libc's vfork the
 * child's calls were in the parent's tree and its _exit ended that trace).
 * Left out there: the runs with the dynamic hooks (none on aarch64 yet),
 * and execs of this program (an aarch64 image, which the kernel runs only
 * with qemu registered in binfmt_misc).
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "lib/target.h"
#include "lib/tracerun.h"

static const char *mode = "cyg"; /* the group being run */

/* The parent's tree after each way of running a child; the child's
 * calls (set, and getppid with the hooks on) are not in it. */
#define AFTER "  after x3\n"

/* What the parent prints of its child's store: under qemu-user (a fork)
 * it never sees it. */
#define STORED() (target_arch ? "x=0\ndone 6\n" : "x=42\ndone 6\n")

static void build(const struct tr_case *tc, const char *opt)
{
	char mode_flag[32];
	const char *const plain[] = { opt, NULL };
	const char *const traced[] = { opt, mode_flag, NULL };

	snprintf(mode_flag, sizeof(mode_flag), "--ada-mode=%s", mode);
	tr_build(tc, NULL, "gcc", "vfork", "vfork.plain", plain);
	tr_build(tc, NULL, TR_ADACC, "vfork", "vfork", traced);
}

/* Runs `vfork <what>`, the traced build into <dir>/<trace> with the hooks
 * on or off; stdout must be `out`; symbolizes and checks that trace. */
static void run(struct tr_case *tc, const char *what, const char *trace, bool hooks,
		const char *out)
{
	const char *const args[] = { what, NULL };
	char output[PATH_MAX + 16], dir[PATH_MAX];
	const char *const env[] = { hooks ? "ADA_DYNHOOK=on" : "ADA_DYNHOOK=off", output, NULL };

	snprintf(output, sizeof(output), "ADA_OUTPUT=%s", tr_path(tc, trace, dir));
	tr_run_pair(tc, "vfork", args, env, 0);
	if (strcmp(tc->traced.out, out) != 0)
		fail_msg("stdout is\n%s\nexpected\n%s", tc->traced.out, out);
	if (tc->traced.err[0])
		fail_msg("the traced run wrote on stderr:\n%s", tc->traced.err);
	tr_symbolize(tc, dir);
}

/* run() with the hooks off into <dir>/<what>, whose call trees must be
 * `tree` in `npids` processes. */
static void run_tree(struct tr_case *tc, const char *what, const char *out, const char *tree,
		     size_t npids)
{
	run(tc, what, what, false, out);
	tr_expect_tree(tc->replay.out, tree, npids);
}

/* The only process in <dir>/<trace> has one thread with `events` events (any
 * number if 0), lost nothing and ended cleanly (tr_load_manifest fails
 * unless there is exactly one process). */
static void expect_one_process(struct tr_case *tc, const char *trace, uint64_t events)
{
	char dir[PATH_MAX];

	tr_load_manifest(tc, tr_path(tc, trace, dir));
	assert_true(tc->mf.clean_exit);
	assert_int_equal(tc->mf.nthreads, 1);
	if (events)
		assert_int_equal(tc->mf.events, events);
	for (unsigned r = 0; r < TR_NDROPS; r++)
		if (tc->mf.dropped[r])
			fail_msg("manifest: %llu %s drops\n%s",
				 (unsigned long long)tc->mf.dropped[r], tr_drop_names[r],
				 tc->mf.text);
}

/* Lines of the replay that call fn: after the indentation, fn or libc's
 * alias of it (__getpid), then the line's end, " x<count>" or a symbol
 * version. */
static size_t calls_of(const char *replay, const char *fn)
{
	size_t n = 0, len = strlen(fn);

	for (const char *p = replay; (p = strstr(p, fn)); p += len)
		if (p > replay && strchr(" _", p[-1]) && strchr("\n @", p[len]))
			n++;
	return n;
}

static void child_store_reaches_the_parent(struct tr_case *tc, const char *opt)
{
	build(tc, opt);
	run_tree(tc, "store", STORED(), "main\n  store\n    status_of\n" AFTER, 1);
	expect_one_process(tc, "store", 12);
	if (target_arch) {
		tr_pass(tc);
		return;
	}
	/* The hooks on: the child's getppid goes through a hooked slot. */
	run(tc, "store", "hooks", true, STORED());
	expect_one_process(tc, "hooks", 0);
	assert_int_equal(calls_of(tc->replay.out, "set"), 0);
	assert_int_equal(calls_of(tc->replay.out, "getppid"), 0);
	assert_int_equal(calls_of(tc->replay.out, "getpid"), 1);
	assert_int_equal(calls_of(tc->replay.out, "waitpid"), 1);
	tr_pass(tc);
}

static void child_store_reaches_the_parent_O0(void **state)
{
	child_store_reaches_the_parent(*state, "-O0");
}

static void child_store_reaches_the_parent_O2(void **state)
{
	child_store_reaches_the_parent(*state, "-O2");
}

/* The child execs an untraced program, or fails to exec and _exits: the
 * session holds the parent alone, whole. */
static void exec_or__exit_leaves_the_parent_alone(void **state)
{
	struct tr_case *tc = *state;

	build(tc, "-O2");
	run_tree(tc, "true", "true: 0\ndone 6\n", "main\n  run\n    status_of\n" AFTER, 1);
	expect_one_process(tc, "true", 12);
	run_tree(tc, "fail", "fail: 127\ndone 6\n", "main\n  run\n    status_of\n" AFTER, 1);
	expect_one_process(tc, "fail", 12);
	tr_pass(tc);
}

#define SECOND "--- thread\nmain\n  second\n" /* the traced image the child runs */

/* The child execs this traced program: the new image's trace is its own
 * process in the session, the parent's is whole. */
static void exec_of_a_traced_program_traces_both(void **state)
{
	struct tr_case *tc = *state;
	const char *const out = "second image\nself: 5\ndone 6\n";

	if (target_arch) {
		tr_pass(tc);
		skip(); /* no binfmt_misc for the aarch64 image (the file's header) */
	}
	build(tc, "-O2");
	run_tree(tc, "self", out, "main\n  run\n    status_of\n" AFTER SECOND, 2);
	run(tc, "self", "hooks", true, out);
	assert_int_equal(calls_of(tc->replay.out, "second"), 1);
	assert_int_equal(calls_of(tc->replay.out, "status_of"), 1);
	tr_pass(tc);
}

/* posix_spawn of this traced program, and system(), also with the hooks on:
 * each is one call in the parent's tree, with nothing of the child's under
 * it. */
static void posix_spawn_and_system_from_a_traced_program(void **state)
{
	struct tr_case *tc = *state;
	const char *const spawned = "second image\nspawn: 5\ndone 6\n";

	build(tc, "-O2");
	if (!target_arch) { /* posix_spawn execs this program: not under qemu */
		run_tree(tc, "spawn", spawned, "main\n  spawn\n    status_of\n" AFTER SECOND, 2);
		run(tc, "spawn", "spawn_hooks", true, spawned);
		assert_int_equal(calls_of(tc->replay.out, "posix_spawn"), 1);
		assert_int_equal(calls_of(tc->replay.out, "second"), 1);
	}
	run_tree(tc, "system", "system: 3\ndone 6\n", "main\n" AFTER, 1);
	expect_one_process(tc, "system", 8);
	if (target_arch) {
		tr_pass(tc);
		return;
	}
	run(tc, "system", "system_hooks", true, "system: 3\ndone 6\n");
	expect_one_process(tc, "system_hooks", 0);
	assert_int_equal(calls_of(tc->replay.out, "system"), 1);
	tr_pass(tc);
}

/* The program's own clone(CLONE_VM | CLONE_VFORK), its child on a stack of
 * its own with the parent's TLS: the child records nothing either, and its
 * _exit leaves the parent's trace open (when ada let it through, the
 * child's calls were in the parent's tree and its _exit ended that trace). */
static void clone_vm_vfork_child_records_nothing(void **state)
{
	struct tr_case *tc = *state;

	build(tc, "-O2");
	run_tree(tc, "clone", STORED(), "main\n  clone_store\n    status_of\n" AFTER, 1);
	expect_one_process(tc, "clone", 12);
	tr_pass(tc);
}

/* vfork 200 times while another thread records: the child disturbs
 * neither that thread nor the writer, and every call of both threads is in
 * the trace. */
static void vfork_while_another_thread_records(void **state)
{
	struct tr_case *tc = *state;
	char dir[PATH_MAX];

	build(tc, "-O2");
	run_tree(tc, "threads", target_arch ? "stores: 0\ndone 6\n" : "stores: 200\ndone 6\n",
		 "main\n  stores\n    store x200\n      status_of\n" AFTER
		 "--- thread\nworker\n  after x10000\n", 1);
	tr_load_manifest(tc, tr_path(tc, "threads", dir));
	assert_int_equal(tc->mf.nthreads, 2);
	assert_int_equal(tc->mf.events, 2 * (1 + 1 + 200 * 2 + 3 + 1 + 10000));
	tr_pass(tc);
}

int main(int argc, char **argv)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, tr_setup, tr_teardown)
	const struct CMUnitTest tests[] = {
		T(child_store_reaches_the_parent_O0),
		T(child_store_reaches_the_parent_O2),
		T(exec_or__exit_leaves_the_parent_alone),
		T(exec_of_a_traced_program_traces_both),
		T(posix_spawn_and_system_from_a_traced_program),
		T(clone_vm_vfork_child_records_nothing),
		T(vfork_while_another_thread_records),
	};
#undef T
	static const char *const modes[] = { "cyg", "fentry", "mcount" };
	char group[32];
	int failed = 0;

	if (target_parse(&argc, argv) < 0)
		return 2;
	tr_scrub_environment();
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		mode = modes[m];
		if (target_arch && !strcmp(mode, "fentry"))
			continue; /* aarch64 has cyg and mcount modes (lib/target.h) */
		snprintf(group, sizeof(group), target_arch ? "vfork %s %s" : "vfork %s", mode,
			 target_arch);
		failed += _cmocka_run_group_tests(group, tests, sizeof(tests) / sizeof(tests[0]),
						  NULL, NULL);
	}
	return failed;
}
