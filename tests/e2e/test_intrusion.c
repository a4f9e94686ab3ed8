/* test_intrusion.c - the program never notices ada, at its edges.
 *
 * Issue 23's classes of intrusion, each a program of tests/e2e/progs/ built
 * with gcc and with adacc in the modes where it showed (fentry, cyg,
 * patchable, mcount) at -O2: the traced build must print what the plain
 * one prints, exit as it exits, say nothing more on stderr, and its trace
 * must hold exactly the calls it made.
 *
 *  - small stacks: threads on PTHREAD_STACK_MIN (16 KiB) stacks start
 *    traced (the set-up once put a 4.5 KB path buffer there: SIGSEGV);
 *  - the descriptor table: open() returns the lowest free number while
 *    threads start (their ring files once took numbers in the program's
 *    table, 2,403 of 20,000 opens in fentry mode), and while they dlopen
 *    (module records opened process.meta there);
 *  - fflush(NULL): flushes nothing of ada's into the program's files (its
 *    stdout got ada's symbol tables once);
 *  - chroot: threads started after it are recorded (0 events once);
 *  - hangs: main's pthread_exit after a chroot without /proc, or with the
 *    descriptor table full, ends the process (it never ended once);
 *  - vfork: a child whose exec failed returning from main (a crash or a
 *    hang once);
 *  - the TSC off: prctl(PR_SET_TSC) and seccomp's strict mode (a SIGSEGV,
 *    a kill or a hang once);
 *  - a process of one thread: unshare(CLONE_NEWUSER) (EINVAL once);
 *  - a tight RLIMIT_AS: a thread started after it leaves the program its
 *    allocations (2 of 4 once);
 *  - patchable mode counts once: a patchable library's calls of its own
 *    exported functions through its PLT (twice once).
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/tracerun.h"

static const char *const MODES[] = { "fentry", "cyg", "patchable", "mcount" };
#define NMODES (sizeof(MODES) / sizeof(MODES[0]))
static const char *const O2[] = { "-O2", NULL };

/* The program's own calls only: no library calls, no detail lines. */
#define QUIET_ENV "ADA_DYNHOOK=off", "ADA_DETAIL=off"

/* Runs both builds with their trace in <dir>/trace-<out>-<args[0]>; the
 * traced one's stdout, status and stderr are the plain one's. Returns the
 * trace's path in trace (PATH_MAX bytes). */
static void run_with(struct tr_case *tc, const char *out, const char *const args[], char *trace,
		     const char *more)
{
	char name[96], env_out[PATH_MAX + 16];

	snprintf(name, sizeof(name), "trace-%s-%s", out, args[0][0] == '/' ? "" : args[0]);
	tr_path(tc, name, trace);
	snprintf(env_out, sizeof(env_out), "ADA_OUTPUT=%s", trace);
	const char *const env[] = { QUIET_ENV, env_out, more, NULL };

	tr_run_pair(tc, out, args, env, 0);
	assert_string_equal(tc->traced.err, tc->plain.err);
}

static void run_both(struct tr_case *tc, const char *out, const char *const args[], char *trace)
{
	run_with(tc, out, args, trace, NULL);
}

/* ---- small stacks ---------------------------------------------------------------- */

static void threads_on_the_smallest_stacks_start_traced(void **state)
{
	struct tr_case *tc = *state;
	const char *const args[] = { "4", "100", NULL };
	char out[64], trace[PATH_MAX], tree[512] = "main\n";

	for (int t = 0; t < 4; t++)
		strcat(tree, "--- thread\nworker\n  middle x100\n    leaf x2\n");
	for (size_t m = 0; m < NMODES; m++) {
		tr_build_mode_pair(tc, "small_stack", MODES[m], out, sizeof(out), O2);
		run_both(tc, out, args, trace);
		assert_string_equal(tc->traced.out, "4 threads on 16384-byte stacks: sum 3720800\n");
		tr_symbolize(tc, trace);
		tr_expect_tree(tc->replay.out, tree, 1);
		tr_load_manifest(tc, trace);
		assert_int_equal(tc->mf.events, 2 * (1 + 4 * (1 + 100 + 200)));
		for (int r = 0; r < TR_NDROPS; r++)
			assert_int_equal(tc->mf.dropped[r], 0);
	}
	tr_pass(tc);
}

/* ---- the descriptor table ------------------------------------------------------------ */

static void opens_get_the_lowest_number_while_threads_start(void **state)
{
	struct tr_case *tc = *state;
	const char *const args[] = { "20000", "200", NULL };
	char out[64], trace[PATH_MAX];

	for (size_t m = 0; m < NMODES; m++) {
		tr_build_mode_pair(tc, "fd_lowest", MODES[m], out, sizeof(out), O2);
		run_both(tc, out, args, trace);
		assert_string_equal(tc->traced.out,
				    "200 threads started; opens not at the lowest number: 0\n");
		tr_symbolize(tc, trace);
		tr_load_manifest(tc, trace);
		/* main, the starter, and 200 threads of short_thread + 100 work. */
		assert_int_equal(tc->mf.nthreads, 202);
		assert_int_equal(tc->mf.events, 2 * (1 + 1 + 200 * 101));
		for (int r = 0; r < TR_NDROPS; r++)
			assert_int_equal(tc->mf.dropped[r], 0);
	}
	tr_pass(tc);
}

/* The same with each thread loading and closing libm, the dynamic hooks on
 * (their dlopen hook records the modules at once, on the thread): no open
 * finds number 3 held by a file of ada's (process.meta for each module
 * record, /proc/self/maps for the vDSO's path at each scan: 3,034 of 20,000
 * opens in fentry mode; in patchable mode, each library's file read for its
 * site table, and /proc/<recorder>/stat asked while a thread waited for the
 * code lock: 1 to 4 of 20,000, now read apart and not asked). */
static void opens_get_the_lowest_number_while_threads_dlopen(void **state)
{
	struct tr_case *tc = *state;
	const char *const args[] = { "20000", "200", "dlopen", NULL };
	char out[64], trace[PATH_MAX], env_out[PATH_MAX + 16];
	const char *const env[] = { "ADA_DETAIL=off", "ADA_DYNHOOK=on", env_out, NULL };

	for (size_t m = 0; m < NMODES; m++) {
		tr_build_mode_pair(tc, "fd_lowest", MODES[m], out, sizeof(out), O2);
		snprintf(trace, sizeof(trace), "%s/trace-dl-%s", tc->dir, MODES[m]);
		snprintf(env_out, sizeof(env_out), "ADA_OUTPUT=%s", trace);
		tr_run_pair(tc, out, args, env, 0);
		assert_string_equal(tc->traced.out, "200 threads started (each loading libm); opens that "
						    "found ada's file at the lowest number: 0\n");
		assert_string_equal(tc->traced.err, tc->plain.err);
		tr_symbolize(tc, trace);
	}
	tr_pass(tc);
}

/* fflush(NULL) in the program while ada keeps the symbol tables of its
 * modules (the first housekeeping pass): the program's stdout holds its
 * line only (some 80 KB of ada's symbol tables once came first). */
static void fflush_of_every_stream_writes_nothing_of_ada(void **state)
{
	struct tr_case *tc = *state;
	const char *const args[] = { "fflush", NULL };
	char out[64], trace[PATH_MAX];

	for (size_t m = 0; m < NMODES; m++) {
		tr_build_mode_pair(tc, "fflush_all", MODES[m], out, sizeof(out), O2);
		run_both(tc, out, args, trace);
		assert_string_equal(tc->traced.out, "done\n");
	}
	tr_pass(tc);
}

/* ---- chroot ------------------------------------------------------------------------ */

/* Threads started after a chroot into an empty directory: the trace is
 * outside the new root, and holds every call (0 events once: the rings and
 * thread files were opened by paths that no longer led there). */
static void threads_after_a_chroot_are_recorded(void **state)
{
	struct tr_case *tc = *state;
	char out[64], trace[PATH_MAX], jail[PATH_MAX];
	const char *const args[] = { tr_path(tc, "jail", jail), NULL };

	for (size_t m = 0; m < NMODES; m++) {
		tr_build_mode_pair(tc, "chroot_threads", MODES[m], out, sizeof(out), O2);
		run_both(tc, out, args, trace);
		if (strncmp(tc->plain.out, "chroot: ", 8) == 0) {
			/* No CAP_SYS_CHROOT here: nothing to compare (a skip
			 * would fail the run: cmocka counts it). */
			print_message("chroot refused here: %s", tc->plain.out);
			break;
		}
		assert_string_equal(tc->traced.out, "sum 20100\n");
		tr_symbolize(tc, trace);
		tr_expect_tree(tc->replay.out,
			       "main\n  work x10\n--- thread\nthread\n  work x100\n"
			       "--- thread\nthread\n  work x100\n", 1);
	}
	tr_pass(tc);
}

/* ---- hangs -------------------------------------------------------------------------- */

/* main's pthread_exit after a chroot where there is no /proc, or with the
 * descriptor table full: the process ends with its last thread, atexit
 * handlers run, as without ada (it never ended: the watcher could not read
 * /proc/self/task, and took that for "not alone"). */
static void main_pthread_exit_ends_after_a_chroot_or_with_a_full_table(void **state)
{
	struct tr_case *tc = *state;
	char out[64], trace[PATH_MAX], jail[PATH_MAX];
	const char *const edges[][3] = { { "chroot", tr_path(tc, "jail", jail), NULL },
					 { "nofd", NULL, NULL } };

	for (size_t m = 0; m < NMODES; m++) {
		tr_build_mode_pair(tc, "main_pthread_exit", MODES[m], out, sizeof(out), O2);
		for (size_t e = 0; e < 2; e++) {
			run_both(tc, out, edges[e], trace);
			if (strncmp(tc->plain.out, "chroot: ", 8) == 0)
				continue; /* no CAP_SYS_CHROOT here */
			assert_string_equal(tc->traced.out, "atexit ran 9900\n");
			tr_symbolize(tc, trace);
			/* Patchable mode patches main too (no_instrument_function
			 * does not remove its entry's NOPs): pthread_exit unwinds it. */
			tr_expect_tree(tc->replay.out,
				       strcmp(MODES[m], "patchable")
					       ? "worker\n  work x100\n--- thread\nworker\n  work x100\n"
					       : "main (unwound)\n--- thread\nworker\n  work x100\n"
						 "--- thread\nworker\n  work x100\n",
				       1);
			tr_load_manifest(tc, trace);
			assert_true(tc->mf.clean_exit);
		}
	}
	tr_pass(tc);
}

/* ---- the time-stamp counter off ------------------------------------------------------------ */

/* prctl(PR_SET_TSC, PR_TSC_SIGSEGV), and seccomp's strict mode: rdtsc
 * faults, and in strict mode any system call but read, write, exit and
 * sigreturn kills the process (SIGSEGV once at the hook's rdtsc; a hang or
 * a kill in strict mode). The program prints its sum and ends by the exit
 * system call, which runs no exit handler: its recorder finds it ended as
 * after a kill. Every call is recorded, at the recorder's ticks. */
static void a_thread_without_the_tsc_is_recorded(void **state)
{
	struct tr_case *tc = *state;
	const char *const how[] = { "prctl", "strict" };
	char out[64], trace[PATH_MAX];

	for (size_t m = 0; m < NMODES; m++) {
		tr_build_mode_pair(tc, "tsc_off", MODES[m], out, sizeof(out), O2);
		for (size_t h = 0; h < 2; h++) {
			const char *const args[] = { how[h], "1000", NULL };

			run_with(tc, out, args, trace, NULL);
			assert_string_equal(tc->traced.out, "sum 500500\n");
			tr_symbolize(tc, trace);
			tr_expect_tree(tc->replay.out, "main (open when killed)\n  work x1000\n", 1);
		}
	}
	tr_pass(tc);
}

/* ---- a process of one thread ------------------------------------------------------------- */

/* unshare(CLONE_NEWUSER) needs a single-threaded process: it failed with
 * EINVAL under ada (the writer is a thread); runtime/unshare.c pauses the
 * writer around it, and every call before and after is in the trace. */
static void unshare_of_a_user_namespace_works_as_without_ada(void **state)
{
	struct tr_case *tc = *state;
	const char *const args[] = { "user", NULL };
	char out[64], trace[PATH_MAX];

	for (size_t m = 0; m < NMODES; m++) {
		tr_build_mode_pair(tc, "unshare_user", MODES[m], out, sizeof(out), O2);
		run_both(tc, out, args, trace);
		if (strcmp(tc->plain.out, "unshare(CLONE_NEWUSER): ok\nsum 110\n")) {
			print_message("no user namespaces here: %s", tc->plain.out);
			break; /* the traced build said the same (run_both) */
		}
		tr_symbolize(tc, trace);
		tr_expect_tree(tc->replay.out, "main\n  work x20\n", 1);
		tr_load_manifest(tc, trace);
		assert_true(tc->mf.clean_exit);
	}
	tr_pass(tc);
}

/* Under a tight RLIMIT_AS (progs/rlimit_as.c: what the process maps now
 * plus 48 MiB), a thread started after the limit takes its state, shadow
 * stack, detail ring and ring from the arena start-up reserved (arena.c):
 * the program's own allocations get what they get without ada, 4 of 4.
 * (When a thread mapped its own, they failed: 2 of 4 in every mode.) */
static void a_tight_address_space_limit_leaves_the_program_its_allocations(void **state)
{
	struct tr_case *tc = *state;
	const char *const args[] = { "as", NULL };
	char out[64], trace[PATH_MAX];

	for (size_t m = 0; m < NMODES; m++) {
		tr_build_mode_pair(tc, "rlimit_as", MODES[m], out, sizeof(out), O2);
		run_both(tc, out, args, trace);
		assert_string_equal(tc->traced.out, "4 of 4 allocations\n");
	}
	tr_pass(tc);
}

/* ---- patchable mode's count ------------------------------------------------------------ */

/* Two patchable libraries loaded and closed in turn at one address, each
 * calling its own exported function through its PLT: each call is
 * recorded once (the dynamic hooks took a patchable module for one built
 * without adacc and hooked its slots too: every inner call was recorded
 * twice, nested in itself). */
static void patchable_libraries_record_each_call_once(void **state)
{
	struct tr_case *tc = *state;
	const char *const lib_a[] = { "-O2", "-fPIC", "-shared", "-DINNER=inner_a", NULL };
	const char *const lib_b[] = { "-O2", "-fPIC", "-shared", "-DINNER=inner_b", NULL };
	const char *const patchable[] = { "ADA_MODE=patchable", NULL };
	char plain_prefix[PATH_MAX], traced_prefix[PATH_MAX], env_out[PATH_MAX + 128];
	const char *const plain_args[] = { tr_path(tc, "plain-lib", plain_prefix), NULL };
	const char *const traced_args[] = { tr_path(tc, "lib", traced_prefix), NULL };
	/* The dynamic hooks on, as by default: their dlopen hook patches a
	 * library as it is loaded (and they were what counted twice). */
	const char *const env[] = { "ADA_DETAIL=off", "ADA_DYNHOOK=on", env_out, NULL };
	char out[64];

	tr_build(tc, NULL, "gcc", "patch_alt_lib", "plain-liba.so", lib_a);
	tr_build(tc, NULL, "gcc", "patch_alt_lib", "plain-libb.so", lib_b);
	tr_build(tc, patchable, TR_ADACC, "patch_alt_lib", "liba.so", lib_a);
	tr_build(tc, patchable, TR_ADACC, "patch_alt_lib", "libb.so", lib_b);
	tr_build_mode_pair(tc, "patch_alt_main", "patchable", out, sizeof(out), O2);
	snprintf(env_out, sizeof(env_out), "ADA_OUTPUT=%s", tc->trace);
	tr_run_pair_args(tc, out, plain_args, traced_args, env, 0);
	assert_string_equal(tc->traced.out, "sum 25500\n");
	assert_string_equal(tc->traced.err, tc->plain.err);
	tr_symbolize(tc, NULL);
	/* main's own calls (dlopen, dlsym, ...) aside: the libraries' tree. */
	assert_int_equal(tr_count_lines(tc->replay.out, (const char *const[]){ "      inner_a x50", NULL }), 10);
	assert_int_equal(tr_count_lines(tc->replay.out, (const char *const[]){ "      inner_b x50", NULL }), 10);
	assert_int_equal(tr_count_lines(tc->replay.out, (const char *const[]){ "    entry", NULL }), 20);
	assert_int_equal(tr_count_lines(tc->replay.out, (const char *const[]){ "        inner_", NULL }), 0);
	tr_pass(tc);
}

/* ---- vfork ------------------------------------------------------------------------ */

/* A vfork child whose exec fails returns from main (progs/vfork_return.c):
 * the parent prints and exits 0, as without ada (fentry and mcount crashed:
 * main's hijacked return had no state in the child; cyg hung: the parent's
 * main then ended as a thread, and the writer kept the process alive). The
 * child's exit ran the parent's exit handlers (shared memory, as without
 * ada), so the parent's exit asks for no final flush: its recorder finds
 * it ended, with every call in the rings. In the hijacking modes the
 * child's exit() also wrote main's real return address back over the
 * hijacked one, so the parent's main returned unseen: the next hook finds
 * it left, as after a longjmp (unwound). */
static void a_vfork_child_returning_from_main_changes_nothing(void **state)
{
	struct tr_case *tc = *state;
	const char *const args[] = { "vfork", NULL };
	char out[64], trace[PATH_MAX];

	for (size_t m = 0; m < NMODES; m++) {
		bool hijacks = !strcmp(MODES[m], "patchable") || !strcmp(MODES[m], "mcount");

		tr_build_mode_pair(tc, "vfork_return", MODES[m], out, sizeof(out), O2);
		run_with(tc, out, args, trace, NULL);
		assert_string_equal(tc->traced.out, "parent: done\n");
		tr_symbolize(tc, trace);
		tr_expect_tree(tc->replay.out,
			       hijacks ? "main (unwound)\n  work x10\n" : "main\n  work x10\n", 1);
		tr_load_manifest(tc, trace);
		assert_int_equal(tc->mf.events, 22); /* main's return closed by the symbolizer */
		assert_int_equal(tc->mf.threads[0].open_at_end, hijacks);
	}
	tr_pass(tc);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, tr_setup, tr_teardown)
	const struct CMUnitTest tests[] = {
		T(threads_on_the_smallest_stacks_start_traced),
		T(opens_get_the_lowest_number_while_threads_start),
		T(opens_get_the_lowest_number_while_threads_dlopen),
		T(fflush_of_every_stream_writes_nothing_of_ada),
		T(threads_after_a_chroot_are_recorded),
		T(main_pthread_exit_ends_after_a_chroot_or_with_a_full_table),
		T(a_vfork_child_returning_from_main_changes_nothing),
		T(a_thread_without_the_tsc_is_recorded),
		T(unshare_of_a_user_namespace_works_as_without_ada),
		T(patchable_libraries_record_each_call_once),
		T(a_tight_address_space_limit_leaves_the_program_its_allocations),
	};

	tr_scrub_environment();
	return cmocka_run_group_tests_name("the program never notices", tests, NULL, NULL);
}
