/* test_runtime_san.c - the runtime inside traced programs, under ASan and TSan.
 *
 * The programs of tests/e2e/progs are built with adacc against a libada
 * compiled with a sanitizer (build/asan/lib: ASan+UBSan; build/tsan/lib:
 * TSan; mk/sanitize.mk), and run with that sanitizer's runtime preloaded
 * (it must be the first library; the programs themselves are not
 * instrumented, so what is checked is ada's code). What runs there is the
 * concurrent part of ada as a program uses it: producer threads writing
 * their rings while the writer drains them, full rings waiting on the
 * futex or dropping, the half-ring kick, threads retired by the writer
 * after they end, fork, the final flush's cut while threads go on
 * calling, a fatal signal's handler, and coroutine stacks taken over by
 * another thread. Each run must print what the plain program prints,
 * leave a trace that ada-symbolize --check accepts, keep the exact counts
 * the end-to-end tests demand, and make the sanitizer say nothing.
 *
 * make check runs the short matrix; make sanitize (ADA_TEST_SAN_FULL=1)
 * runs every program in every mode.
 */
#include <glob.h>
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/tracerun.h"

struct sanitizer {
	const char *name;
	const char *libdir;    /* libada.so built with it */
	const char *const *env; /* the traced run's: the preload and options */
	const char *const *modes; /* instrumentation modes in the full matrix */
	bool fork;                /* supports a child that starts a thread */
};

/* LeakSanitizer does not scan anonymous mappings: the names of the hooked
 * functions, strdup'ed once and kept for the process's life by the
 * dynamic hooks' cells (an mmap next to their stubs: mcount/dynhook.c),
 * look leaked to it. Nothing else is suppressed. */
static const char *const asan_env[] = {
	"LD_PRELOAD=" SAN_ASAN_PRELOAD,
	"ASAN_OPTIONS=detect_leaks=1:exitcode=0",
	"LSAN_OPTIONS=suppressions=" ADA_ROOT "/tests/sanitize/lsan.supp:print_suppressions=0",
	"UBSAN_OPTIONS=print_stacktrace=1",
	NULL,
};
/* The exit status stays the program's: a report fails the test with the
 * whole report shown (run() below), not as a changed status. Library
 * calls are not hooked under TSan: libtsan's
 * own GOT slots would be, and its thread start calls through them before
 * the thread's TSan state exists, into the TSan-built hook (a crash that
 * is TSan's, not ada's; ADA_EXCLUDE names callees, not callers). TSan
 * takes the writer's own descriptor table for the program's (tsan.supp). */
static const char *const tsan_env[] = { "LD_PRELOAD=" SAN_TSAN_PRELOAD,
					"TSAN_OPTIONS=exitcode=0:suppressions=" ADA_ROOT
					"/tests/sanitize/tsan.supp:print_suppressions=0",
					"ADA_DYNHOOK=off", NULL };
static const char *const all_modes[] = { "cyg", "fentry", "mcount", NULL };

static const struct sanitizer sanitizers[] = {
	{ "ASan+UBSan", SAN_ASAN_LIBDIR, asan_env, all_modes, true },
	/* TSan does not support threads started in a fork child (the
	 * child's writer: "dup thread with used id"). */
	{ "TSan", SAN_TSAN_LIBDIR, tsan_env, all_modes, false },
};
static const struct sanitizer *san; /* of the group running */
static bool full;                   /* ADA_TEST_SAN_FULL: every mode */
/* make check's: the default mode, with the detail lane beside the index. */
static const char *const quick_modes[] = { "fentry", NULL };

static const char *const *modes(void)
{
	return full ? san->modes : quick_modes;
}

/* Builds prog twice in the case directory: <out>.plain with gcc, <out>
 * with adacc in `mode` against the sanitized runtime. */
static void build(struct tr_case *tc, const char *prog, const char *out, const char *mode)
{
	char plain[PATH_MAX], libdir[PATH_MAX + 16], admode[32];
	const char *const env[] = { libdir, admode, NULL };
	const char *const flags[] = { "-O2", NULL };

	snprintf(plain, sizeof(plain), "%s.plain", out);
	snprintf(libdir, sizeof(libdir), "ADA_LIBDIR=%s", san->libdir);
	snprintf(admode, sizeof(admode), "ADA_MODE=%s", mode);
	tr_build(tc, NULL, "gcc", prog, plain, flags);
	tr_build(tc, env, TR_ADACC, prog, out, flags);
}

/* Whether `extra` (NULL-terminated, may be NULL) sets the variable `entry` sets. */
static bool set_in(const char *entry, const char *const extra[])
{
	size_t len = strcspn(entry, "=") + 1;

	for (size_t i = 0; extra && extra[i]; i++)
		if (!strncmp(entry, extra[i], len))
			return true;
	return false;
}

/* A sanitizer's options (an entry "XSAN_OPTIONS=...") with its reports sent
 * to <case dir>/san.<pid> instead of descriptor 2: the recorder has no
 * descriptor 2 (a process of its own, recorder/process.c), and a report
 * from it would otherwise go nowhere. */
static const char *with_log_path(const struct tr_case *tc, const char *entry, char *buf,
				 size_t len)
{
	const char *eq = strchr(entry, '=');

	if (!eq || eq - entry < 11 || strncmp(eq - 11, "SAN_OPTIONS", 11))
		return entry;
	snprintf(buf, len, "%s%slog_path=%s/san", entry, eq[1] ? ":" : "", tc->dir);
	return buf;
}

/* The sanitizer's environment, then `extra` (NULL-terminated), which
 * replaces what it sets, in env (room for 16). */
static const char *const *run_env(const struct tr_case *tc, const char *env[16],
				  const char *const extra[])
{
	static char opts[15][PATH_MAX + 512];
	size_t n = 0;

	for (size_t i = 0; san->env[i]; i++)
		if (!set_in(san->env[i], extra)) {
			env[n] = with_log_path(tc, san->env[i], opts[n], sizeof(opts[n]));
			n++;
		}
	/* Small rings, which fill (waits, the half-ring kick) and cost the
	 * sanitizers little shadow memory. */
	env[n++] = "ADA_RING_KB=64";
	for (size_t i = 0; extra && extra[i] && n < 15; i++) {
		env[n] = with_log_path(tc, extra[i], opts[n], sizeof(opts[n]));
		n++;
	}
	env[n] = NULL;
	return env;
}

/* The reports the sanitizer wrote to <case dir>/san.*, printed whole:
 * whether there were any. A file stays: the next run's is another pid's. */
static bool print_reports(const struct tr_case *tc)
{
	char pattern[PATH_MAX];
	glob_t g;
	bool any = false;

	snprintf(pattern, sizeof(pattern), "%s/san.*", tc->dir);
	if (glob(pattern, 0, NULL, &g) != 0)
		return false;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		char *text = proc_read_file(g.gl_pathv[i], NULL);

		/* What the stderr check below counts (not ASan's note that it
		 * does not fully support swapcontext). */
		if (!text || strstr(text, "Sanitizer") || strstr(text, "runtime error")) {
			fprintf(stderr, "%s:\n%s\n", g.gl_pathv[i], text ? text : "(unreadable)");
			any = true;
		}
		free(text);
	}
	globfree(&g);
	return any;
}

/* Runs the pair, then fails if the sanitizer said anything. */
static void run(struct tr_case *tc, const char *out, const char *const args[],
		const char *const extra[], int status)
{
	const char *env[16];

	tr_run_pair(tc, out, args, run_env(tc, env, extra), status);
	if (print_reports(tc))
		fail_msg("%s reported on %s (above)", san->name, out);
	if (strstr(tc->traced.err, "Sanitizer") || strstr(tc->traced.err, "runtime error")) {
		fputs(tc->traced.err, stderr); /* whole: fail_msg's buffer is short */
		fail_msg("%s reported on %s (above)", san->name, out);
	}
}

/* A fresh trace directory for the next run in this case. */
static void fresh_trace(struct tr_case *tc)
{
	proc_rm_rf(tc->trace);
}

static uint64_t printed_count(const char *out, const char *key)
{
	const char *p = strstr(out, key);

	if (!p)
		fail_msg("no \"%s\" in the program's output:\n%s", key, out);
	return strtoull(p + strlen(key), NULL, 10);
}

/* The written and lost events over the trace's threads. */
static void trace_counts(struct tr_case *tc, uint64_t *written, uint64_t *lost)
{
	tr_symbolize(tc, NULL);
	tr_load_manifest(tc, NULL);
	assert_true(tc->mf.clean_exit);
	*written = *lost = 0;
	for (size_t i = 0; i < tc->mf.nthreads; i++) {
		*written += tc->mf.threads[i].events;
		for (unsigned r = 0; r < TR_NDROPS; r++)
			*lost += tc->mf.threads[i].dropped[r];
	}
}

/* ---- the ring protocol ------------------------------------------------------ */

/* 4 threads call leaf() 30,000 times each, back to back, on their small
 * rings against a writer that sleeps after each pass, in every mode; on_full
 * is ADA_ON_FULL. Library calls are not hooked here, so the events are
 * exactly the program's calls: 2 x 4 x (30,000 + 1), each written or (in
 * drop mode) counted as lost. */
static void burst(struct tr_case *tc, const char *on_full)
{
	const char *const args[] = { "4", "30000", NULL };
	const char *const env[] = { "ADA_TEST_WRITER_DELAY_US=300", on_full, "ADA_DYNHOOK=off", NULL };
	const uint64_t made = 4 * (30000 + 1);
	bool wait = !strcmp(on_full, "ADA_ON_FULL=wait");

	for (const char *const *m = modes(); *m; m++) {
		uint64_t written, lost;

		build(tc, "burst", "burst", *m);
		fresh_trace(tc);
		run(tc, "burst", args, env, 0);
		assert_int_equal(printed_count(tc->traced.out, "calls "), made);
		trace_counts(tc, &written, &lost);
		assert_int_equal(tc->mf.nthreads, 4);
		if (written + lost != 2 * made || (wait && lost))
			fail_msg("%s, %s: %" PRIu64 " events written, %" PRIu64 " lost, %" PRIu64
				 " calls", *m, on_full, written, lost, made);
	}
	tr_pass(tc);
}

/* The rings fill, the threads wait on the futex and kick the writer at
 * half full: not one event is lost. */
static void full_rings_wait_and_lose_nothing(void **state)
{
	burst(*state, "ADA_ON_FULL=wait");
}

static void full_rings_drop_and_count_exactly(void **state)
{
	burst(*state, "ADA_ON_FULL=drop");
}

/* ---- threads and processes coming and going --------------------------------- */

/* 200 threads one after the other: each sets itself up, records, ends, and
 * the writer retires it (end record, ring file removed, state unmapped)
 * while the next one runs. Library calls are hooked. */
static void threads_come_and_go(void **state)
{
	struct tr_case *tc = *state;

	for (const char *const *m = modes(); *m; m++) {
		uint64_t written, lost;

		build(tc, "many_threads", "many_threads", *m);
		fresh_trace(tc);
		run(tc, "many_threads", NULL, NULL, 0);
		trace_counts(tc, &written, &lost);
		assert_int_equal(tc->mf.nthreads, 201);
		assert_int_equal(lost, 0);
	}
	tr_pass(tc);
}

/* exit() and exec while 8 threads call as fast as they can: the final
 * flush cuts every ring while its thread goes on writing. With
 * ADA_RECORD=ring the writer copies each ring (slots and detail records)
 * while its thread writes over it. */
static void spin_to_the_end(struct tr_case *tc, const char *const env[])
{
	const char *const exec_args[] = { "exec", NULL };

	for (const char *const *m = modes(); *m; m++) {
		uint64_t written, lost;

		build(tc, "spin_exit", "spin_exit", *m);
		fresh_trace(tc);
		run(tc, "spin_exit", NULL, env, 0);
		assert_string_equal(tc->traced.out, "bye\n");
		trace_counts(tc, &written, &lost);
		/* Ring mode: every spinning thread's snapshot is whole (3/4 of its
		 * 4096-slot ring, and the frames it cut), however long the writer
		 * took over the others'. */
		for (size_t i = 0; env && i < tc->mf.nthreads; i++)
			if (tc->mf.threads[i].events < 3072)
				fail_msg("%s: thread %zu: %" PRIu64 " events at exit, expected 3072 or more",
					 *m, i, tc->mf.threads[i].events);
		fresh_trace(tc);
		run(tc, "spin_exit", exec_args, env, 0);
		tr_symbolize(tc, NULL);
	}
	tr_pass(tc);
}

static void the_end_comes_while_threads_spin(void **state)
{
	spin_to_the_end(*state, NULL);
}

static void the_end_comes_while_threads_spin_in_ring_mode(void **state)
{
	const char *const env[] = { "ADA_RECORD=ring", "ADA_DETAIL=all", NULL };

	spin_to_the_end(*state, env);
}

/* fork three traced frames deep: the fork handlers (the writer's lock, the
 * child's new writer and ring) and both processes' traces. */
static void fork_gives_the_child_its_own_writer(void **state)
{
	struct tr_case *tc = *state;

	if (!san->fork) {
		tr_pass(tc); /* nothing to keep */
		skip();
	}
	for (const char *const *m = modes(); *m; m++) {
		build(tc, "hijack_fork", "hijack_fork", *m);
		fresh_trace(tc);
		run(tc, "hijack_fork", NULL, NULL, 0);
		tr_symbolize(tc, NULL);
	}
	tr_pass(tc);
}

/* Coroutines on stacks of their own (progs/stack_switch.c), 100 rounds:
 * each stack has a recording state and a ring of its own, written by
 * whichever thread runs on it; with migrate and handoff a second thread
 * takes the coroutines over (handoff: its first hooks are their returns)
 * while the writer drains their rings. make check runs handoff. */
static void coroutine_stacks_change_threads(void **state)
{
	struct tr_case *tc = *state;
	static const char *const all[] = { "ucontext", "asm", "migrate", "handoff", NULL };
	static const char *const one[] = { "handoff", NULL };

	for (const char *const *m = modes(); *m; m++) {
		build(tc, "stack_switch", "stack_switch", *m);
		for (const char *const *how = full ? all : one; *how; how++) {
			const char *const args[] = { *how, "100", NULL };

			fresh_trace(tc);
			run(tc, "stack_switch", args, NULL, 0);
			assert_string_equal(tc->traced.out, "5050 10100\n");
			tr_symbolize(tc, NULL);
		}
	}
	tr_pass(tc);
}

/* A SIGSEGV 20 frames deep: ada's handler records the crash and drains
 * every ring (futex and atomics only: TSan checks what a handler calls),
 * then the signal kills as before; and a program's own handler that
 * recovers three faults with siglongjmp. The sanitizers leave SIGSEGV to
 * the program (handle_segv=0), as without them ada's handler gets it. */
static void a_crash_is_recorded_and_kills_as_before(void **state)
{
	struct tr_case *tc = *state;
	const char *const deep[] = { "deep", "20", NULL }, *const recover[] = { "recover", NULL };
	const char *const env[] = { "ASAN_OPTIONS=handle_segv=0:detect_leaks=0",
				    "TSAN_OPTIONS=handle_segv=0:exitcode=0:suppressions=" ADA_ROOT
				    "/tests/sanitize/tsan.supp:print_suppressions=0", NULL };
	const char *crash;
	char sig[32];

	for (const char *const *m = modes(); *m; m++) {
		build(tc, "fatal", "fatal", *m);
		fresh_trace(tc);
		run(tc, "fatal", deep, env, 128 + 11);
		tr_symbolize(tc, NULL);
		tr_load_manifest(tc, NULL);
		crash = strstr(tc->mf.text, "\"crash\"");
		if (!crash || !tr_json_value(crash, crash + strcspn(crash, "}"), "signal_name", sig,
					     sizeof(sig)) || strcmp(sig, "SIGSEGV"))
			fail_msg("%s: the manifest has no crash by SIGSEGV:\n%s", *m, tc->mf.text);
		fresh_trace(tc);
		run(tc, "fatal", recover, env, 0);
		assert_string_equal(tc->traced.out, "recovered 3\n");
		tr_symbolize(tc, NULL);
	}
	tr_pass(tc);
}

#define T(name) cmocka_unit_test_setup_teardown(name, tr_setup, tr_teardown)

int main(void)
{
	const struct CMUnitTest quick[] = {
		T(full_rings_wait_and_lose_nothing),
		T(full_rings_drop_and_count_exactly),
		T(the_end_comes_while_threads_spin),
		T(the_end_comes_while_threads_spin_in_ring_mode),
		T(a_crash_is_recorded_and_kills_as_before),
		T(coroutine_stacks_change_threads),
	};
	const struct CMUnitTest all[] = {
		T(full_rings_wait_and_lose_nothing), T(full_rings_drop_and_count_exactly),
		T(threads_come_and_go),              T(the_end_comes_while_threads_spin),
		T(the_end_comes_while_threads_spin_in_ring_mode),
		T(fork_gives_the_child_its_own_writer), T(a_crash_is_recorded_and_kills_as_before),
		T(coroutine_stacks_change_threads),
	};
	int failed = 0;

	full = getenv("ADA_TEST_SAN_FULL") != NULL;
	tr_scrub_environment();
	for (size_t i = 0; i < sizeof(sanitizers) / sizeof(*sanitizers); i++) {
		char group[64];

		san = &sanitizers[i];
		snprintf(group, sizeof(group), "runtime under %s", san->name);
		failed += full ? _cmocka_run_group_tests(group, all, sizeof(all) / sizeof(*all), NULL, NULL)
			       : _cmocka_run_group_tests(group, quick, sizeof(quick) / sizeof(*quick),
							 NULL, NULL);
	}
	return failed != 0;
}
