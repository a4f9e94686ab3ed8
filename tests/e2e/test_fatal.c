/* test_fatal.c - a crash or a SIGKILL must not take the trace with it.
 *
 * tests/e2e/progs/fatal.c, built with gcc and with bin/adacc (every mode for
 * the crash): a SIGSEGV at the bottom of a deep call chain, with no pause
 * before it, dies of SIGSEGV as without ada and its trace holds the faulting
 * function and every caller, open at the crash; the manifest names the
 * signal, the thread and the address. A fault in main's first call still
 * leaves a trace. A SIGSEGV handler of the program's own recovers with
 * siglongjmp as without ada. A multi-threaded program killed with SIGKILL
 * while its rings are full of unwritten events (the recorder slowed on
 * purpose) keeps them: the recorder drains the rings after the kill, and
 * every thread's calls in the trace are the calls it counted itself (in a
 * shared mapping that outlives it); the trace passes --check.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "lib/proc.h"
#include "lib/tracee.h"
#include "lib/tracerun.h"

#define SIGSEGV_STATUS (128 + SIGSEGV)
#define DIVE 20
#define KILL_THREADS 4

static void build(struct tr_case *tc, const char *mode)
{
	char opt[32];
	const char *const plain[] = { "-O1", NULL };
	const char *const traced[] = { "-O1", opt, NULL };

	snprintf(opt, sizeof(opt), "--ada-mode=%s", mode);
	tr_build(tc, NULL, "gcc", "fatal", "fatal.plain", plain);
	tr_build(tc, NULL, TR_ADACC, "fatal", "fatal", traced);
}

/* The manifest's "crash" object holds key with this value. */
static void expect_crash_field(const struct tr_case *tc, const char *key, const char *want)
{
	const char *crash = strstr(tc->mf.text, "\"crash\"");
	char got[128];

	if (!crash || !tr_json_value(crash, crash + strcspn(crash, "}"), key, got, sizeof(got)))
		fail_msg("the manifest has no crash.%s:\n%s", key, tc->mf.text);
	if (strcmp(got, want))
		fail_msg("manifest crash.%s is %s, expected %s", key, got, want);
}

static void deep_segv_keeps_the_faulting_chain(struct tr_case *tc, const char *mode)
{
	const char *const args[] = { "deep", "20", NULL };
	char tree[4096] = "", *p = tree;
	int d;

	build(tc, mode);
	tr_run_pair(tc, "fatal", args, NULL, SIGSEGV_STATUS);
	tr_symbolize(tc, NULL);
	for (d = 0; d < DIVE; d++)
		p += sprintf(p, "%*sdive (open at crash)\n", 2 * d, "");
	sprintf(p, "%*sfault (open at crash)\n", 2 * d, "");
	tr_expect_tree(tc->replay.out, tree, 1);
	tr_load_manifest(tc, NULL);
	assert_false(tc->mf.clean_exit);
	assert_string_equal(tc->mf.threads[0].end, "crashed");
	expect_crash_field(tc, "signal_name", "SIGSEGV");
	expect_crash_field(tc, "thread", "0");
	expect_crash_field(tc, "address", "0x0");
	tr_pass(tc);
}

static void deep_segv_keeps_the_faulting_chain_fentry(void **state)
{
	deep_segv_keeps_the_faulting_chain(*state, "fentry");
}

static void deep_segv_keeps_the_faulting_chain_mcount(void **state)
{
	deep_segv_keeps_the_faulting_chain(*state, "mcount");
}

static void deep_segv_keeps_the_faulting_chain_cyg(void **state)
{
	deep_segv_keeps_the_faulting_chain(*state, "cyg");
}

static void crash_in_the_first_call_leaves_a_trace(void **state)
{
	struct tr_case *tc = *state;
	const char *const args[] = { "early", NULL };

	build(tc, "fentry");
	tr_run_pair(tc, "fatal", args, NULL, SIGSEGV_STATUS);
	tr_symbolize(tc, NULL);
	tr_expect_tree(tc->replay.out, "fault (open at crash)\n", 1);
	tr_pass(tc);
}

static void programs_own_handler_recovers_with_siglongjmp(void **state)
{
	struct tr_case *tc = *state;
	const char *const args[] = { "recover", NULL };

	build(tc, "fentry");
	tr_run_pair(tc, "fatal", args, NULL, 0);
	assert_string_equal(tc->traced.out, "recovered 3\n");
	tr_symbolize(tc, NULL);
	/* probe() never returns: each fault runs on_segv on top of it, which
	 * leaves both by siglongjmp. The runtime sees that at the next traced
	 * entry (the next probe); after the last one main calls nothing
	 * traced, so that pair is still open at exit. */
	tr_expect_tree(tc->replay.out,
		       "probe x2 (unwound)\n  on_segv (unwound)\n"
		       "probe (open at exit)\n  on_segv (open at exit)\n", 1);
	tr_load_manifest(tc, NULL);
	assert_true(tc->mf.clean_exit);
	assert_null(strstr(tc->mf.text, "\"crash\""));
	tr_pass(tc);
}

/* ---- SIGKILL and the ring files ------------------------------------------- */

struct counter {
	uint64_t tid, calls;
};

/* work() calls in --replay's block of the thread with this tid: "work xN",
 * plus one if the last call was still running ("work (open when killed)"). */
static uint64_t replay_calls(const char *replay, uint64_t tid)
{
	char header[64];
	const char *b, *end, *x;
	uint64_t n = 0;

	snprintf(header, sizeof(header), " tid %" PRIu64 "\n", tid);
	b = strstr(replay, header);
	if (!b)
		fail_msg("no thread with tid %" PRIu64 " in --replay:\n%.3000s", tid, replay);
	end = strstr(b + strlen(header), "\n# ");
	end = end ? end : replay + strlen(replay);
	for (x = strstr(b, "  work"); x && x < end; x = strstr(x + 1, "  work")) {
		if (!strncmp(x, "  work x", 8))
			n += strtoull(x + 8, NULL, 10);
		else if (!strncmp(x, "  work\n", 7) || !strncmp(x, "  work (open when killed)", 25))
			n++;
	}
	return n;
}

/* SIGKILL while the threads' rings are full (a recorder that sleeps 300 ms
 * after each pass): the recorder outlives the program and drains them,
 * every call each thread counted is in the trace. */
static void sigkill_with_full_rings_keeps_every_call(void **state)
{
	struct tr_case *tc = *state;
	char exe[PATH_MAX], counts[PATH_MAX], output[sizeof(tc->trace) + 16], nthreads[8];
	const char *const env[] = { output, "ADA_RING_KB=256", "ADA_TEST_WRITER_DELAY_US=300000",
				    "ADA_QUIET=1", NULL };
	struct counter *c;
	struct tracee t;
	int wstatus = 0, ready, fd;

	build(tc, "fentry");
	tr_path(tc, "fatal", exe);
	tr_path(tc, "counts", counts);
	snprintf(output, sizeof(output), "ADA_OUTPUT=%s", tc->trace);
	snprintf(nthreads, sizeof(nthreads), "%d", KILL_THREADS);
	const char *const argv[] = { exe, "kill", counts, nthreads, NULL };

	if (tracee_start(argv, env, tc->dir, &t) < 0)
		fail_msg("cannot start %s", exe);
	ready = tracee_wait_for(&t, "ready\n", 20000);
	usleep(100000);
	tracee_stop(&t, SIGKILL, 20000, &wstatus);
	if (ready < 0 || !WIFSIGNALED(wstatus) || WTERMSIG(wstatus) != SIGKILL)
		fail_msg("fatal kill: no \"ready\", or it did not die of SIGKILL");

	tr_symbolize(tc, NULL);
	fd = open(counts, O_RDONLY);
	c = mmap(NULL, KILL_THREADS * sizeof(*c), PROT_READ, MAP_SHARED, fd, 0);
	assert_true(fd >= 0 && c != MAP_FAILED);
	for (int i = 0; i < KILL_THREADS; i++) {
		uint64_t got = replay_calls(tc->replay.out, c[i].tid);

		/* The CALL is recorded before work() counts it: the kill can land
		 * between the two. */
		if (got != c[i].calls && got != c[i].calls + 1)
			fail_msg("thread %" PRIu64 ": %" PRIu64 " work() calls in the trace, it "
				 "counted %" PRIu64, c[i].tid, got, c[i].calls);
		print_message("thread %" PRIu64 ": %" PRIu64 " calls, all in the trace\n", c[i].tid,
			      c[i].calls);
	}
	munmap(c, KILL_THREADS * sizeof(*c));
	close(fd);
	tr_load_manifest(tc, NULL);
	assert_false(tc->mf.clean_exit);
	tr_pass(tc);
}

int main(void)
{
	struct rlimit no_core = { 0, 0 };
#define T(name) cmocka_unit_test_setup_teardown(name, tr_setup, tr_teardown)
	const struct CMUnitTest tests[] = {
		T(deep_segv_keeps_the_faulting_chain_fentry),
		T(deep_segv_keeps_the_faulting_chain_mcount),
		T(deep_segv_keeps_the_faulting_chain_cyg),
		T(crash_in_the_first_call_leaves_a_trace),
		T(programs_own_handler_recovers_with_siglongjmp),
		T(sigkill_with_full_rings_keeps_every_call),
	};

	/* The crashes are on purpose: no core files (children inherit it). */
	setrlimit(RLIMIT_CORE, &no_core);
	tr_scrub_environment();
	return cmocka_run_group_tests_name("fatal signals and SIGKILL", tests, NULL, NULL);
}
