/* test_drops.c - events the runtime cannot keep are counted, exactly.
 *
 * A frame deeper than ADA_DEPTH, or (with ADA_ON_FULL=drop) one whose
 * CALL finds the thread's ring full, is not recorded, and neither is
 * anything it calls; each event so skipped is counted by reason in the
 * manifest's "dropped". The invariant checked here is the one a user relies
 * on to trust a trace:
 *
 *     events written + events counted as lost == 2 x calls made
 *
 * with the calls counted by the program itself, while the trace stays
 * balanced (--check passes) and stderr says once what was lost. By default
 * (ADA_ON_FULL=wait) a full ring makes the thread wait for the writer, and
 * nothing is lost: written == 2 x calls made, with the waits counted in the
 * manifest (and on stderr only with ADA_VERBOSE=1).
 * ADA_TEST_WRITER_DELAY_US slows the writer so that the rings fill on any
 * machine, idle or busy.
 *
 * The programs are tests/e2e/progs/depth.c and burst.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/calltree.h"
#include "lib/load.h"
#include "lib/tracerun.h"

static const char *const O2[] = { "-O2", NULL };

/* Fails unless stderr holds exactly one "ada:" line, the drop report, and it
 * names `reason` with `count`. */
static void expect_one_drop_report(const char *err, const char *reason, uint64_t count)
{
	char named[96];
	const char *const ada[] = { "ada: ", NULL };
	const char *const report[] = { "ada: ", "events not recorded", named, NULL };

	snprintf(named, sizeof(named), "%s %" PRIu64, reason, count);
	if (tr_count_lines(err, ada) != 1 || tr_count_lines(err, report) != 1)
		fail_msg("expected one line \"ada: ... events not recorded ...%s\" on stderr, got:\n%s",
			 named, err);
}

/* The calls the program says it made: the number after `key` in its stdout. */
static uint64_t printed_count(const char *out, const char *key)
{
	const char *p = strstr(out, key);

	if (!p)
		fail_msg("no \"%s\" in the program's output:\n%s", key, out);
	return strtoull(p + strlen(key), NULL, 10);
}

/* ---- ADA_DEPTH ---------------------------------------------------------- */

#define DIVES 50
#define DIVE_DEPTH 10
#define MAX_DEPTH 3

static void max_depth_drops_are_exact_and_the_tree_is_cut(void **state)
{
	struct tr_case *tc = *state;
	const char *const args[] = { "50", NULL };
	const char *const env[] = { "ADA_DEPTH=3", NULL };
	const uint64_t dropped = 2ull * (DIVE_DEPTH - MAX_DEPTH) * DIVES;
	const struct tr_thread *th;

	tr_build_pair(tc, "depth", "depth", O2);
	tr_run_pair(tc, "depth", args, env, 0);
	assert_int_equal(printed_count(tc->traced.out, "calls "), DIVE_DEPTH * DIVES);
	expect_one_drop_report(tc->traced.err, "max_depth", dropped);

	tr_symbolize(tc, NULL);
	/* main is not instrumented: dive() runs at depths 1..10; 1..3 are kept. */
	tr_expect_tree(tc->replay.out, "dive x50\n  dive\n    dive\n", 1);

	tr_load_manifest(tc, NULL);
	assert_true(tc->mf.clean_exit);
	assert_int_equal(tc->mf.nthreads, 1);
	th = &tc->mf.threads[0];
	assert_int_equal(th->dropped[TR_MAX_DEPTH], dropped);
	assert_int_equal(tc->mf.dropped[TR_MAX_DEPTH], dropped);
	for (unsigned r = 0; r < TR_NDROPS; r++)
		if (r != TR_MAX_DEPTH)
			assert_int_equal(tc->mf.dropped[r], 0);
	assert_int_equal(th->events, 2ull * MAX_DEPTH * DIVES);
	assert_int_equal(th->events + th->dropped[TR_MAX_DEPTH], 2ull * DIVE_DEPTH * DIVES);
	assert_non_null(strstr(tc->mf.config, "depth=3"));
	tr_pass(tc);
}

/* ---- tiny rings --------------------------------------------------------------- */

/* Each thread's block must be "burst" with its kept leaf() calls folded into
 * one line: they are identical leaves, and a skipped call leaves no trace in
 * the tree. Returns the sum over blocks of the events the tree shows. */
static uint64_t burst_tree_events(const char *replay, size_t nthreads)
{
	struct calltree ct = { 0 };
	char err[256];
	uint64_t events = 0;

	if (calltree_from_replay(replay, &ct, err, sizeof(err)) < 0)
		fail_msg("--replay output: %s\n%s", err, replay);
	if (ct.nblocks != nthreads) {
		calltree_free(&ct);
		fail_msg("%zu threads in --replay, expected %zu", ct.nblocks, nthreads);
	}
	for (size_t i = 0; i < ct.nblocks; i++) {
		const char *b = ct.blocks[i], *x = strstr(b, "leaf x");
		unsigned long long leaves = x ? strtoull(x + 6, NULL, 10) : strstr(b, "leaf") != NULL;
		char want[64];

		if (leaves < 2)
			snprintf(want, sizeof(want), "burst\n%s", leaves ? "  leaf\n" : "");
		else
			snprintf(want, sizeof(want), "burst\n  leaf x%llu\n", leaves);
		if (strcmp(b, want) != 0) {
			calltree_free(&ct);
			fail_msg("unexpected thread block in --replay:\n%s", replay);
		}
		events += 2 * (leaves + 1);
	}
	calltree_free(&ct);
	return events;
}

/* Runs burst with `threads` threads of `calls` leaf() calls each on 64 KiB
 * rings with ADA_ON_FULL=drop and a slow writer, and checks the invariant
 * over all threads. */
static void check_burst(struct tr_case *tc, const char *threads, const char *calls)
{
	const char *const args[] = { threads, calls, NULL };
	const char *const env[] = { "ADA_RING_KB=64", "ADA_ON_FULL=drop",
				    "ADA_TEST_WRITER_DELAY_US=2000", NULL };
	uint64_t made, written = 0, lost = 0;
	size_t nthreads = strtoul(threads, NULL, 10);

	tr_build_pair(tc, "burst", "burst", O2);
	tr_run_pair(tc, "burst", args, env, 0);
	/* burst() itself plus its leaf() calls, summed over threads */
	made = printed_count(tc->traced.out, "calls ");
	assert_int_equal(made, nthreads * (strtoull(calls, NULL, 10) + 1));

	tr_symbolize(tc, NULL);
	tr_load_manifest(tc, NULL);
	assert_true(tc->mf.clean_exit);
	assert_int_equal(tc->mf.nthreads, nthreads);
	for (size_t i = 0; i < tc->mf.nthreads; i++) {
		const struct tr_thread *th = &tc->mf.threads[i];

		assert_string_equal(th->end, "exited");
		for (unsigned r = 0; r < TR_NDROPS; r++)
			if (r != TR_RING_FULL)
				assert_int_equal(th->dropped[r], 0);
		written += th->events;
		lost += th->dropped[TR_RING_FULL];
	}
	if (written + lost != 2 * made)
		fail_msg("%" PRIu64 " events written + %" PRIu64 " lost != 2 x %" PRIu64 " calls",
			 written, lost, made);
	assert_int_equal(tc->mf.events, written);
	assert_int_equal(tc->mf.dropped[TR_RING_FULL], lost);
	/* 4096 slots against millions of back-to-back events: the ring fills. */
	if (lost == 0)
		fail_msg("no event was lost: the ring never filled (%" PRIu64 " written)", written);
	expect_one_drop_report(tc->traced.err, "ring_full", lost);
	assert_int_equal(burst_tree_events(tc->replay.out, nthreads), written);
	assert_non_null(strstr(tc->mf.config, "ring_kb=64"));
	tr_pass(tc);
}

static void ring_full_written_plus_lost_equals_calls_made(void **state)
{
	check_burst(*state, "1", "2000000");
}

static void ring_full_invariant_holds_over_8_threads(void **state)
{
	check_burst(*state, "8", "500000");
}

/* The default: full rings wait. 8 threads on 64 KiB rings (4096 slots)
 * against a writer that sleeps 2 ms after every pass, on a machine kept busy
 * by a spinning process per core: every event is written, the manifest
 * counts the waits, and the program's stderr is its own: waits lose
 * nothing, so ada says nothing (ADA_VERBOSE=1 prints the line). */
static void ring_full_waits_and_loses_nothing_over_8_threads_under_load(void **state)
{
	struct tr_case *tc = *state;
	const char *const args[] = { "8", "200000", NULL };
	const char *const env[] = { "ADA_RING_KB=64", "ADA_TEST_WRITER_DELAY_US=2000", NULL };
	uint64_t made, written = 0;

	tr_build_pair(tc, "burst", "burst", O2);
	assert_int_equal(load_start(), 0);
	tr_run_pair(tc, "burst", args, env, 0);
	load_stop();
	made = printed_count(tc->traced.out, "calls ");
	assert_int_equal(made, 8 * (200000 + 1));
	assert_string_equal(tc->traced.err, tc->plain.err);

	tr_symbolize(tc, NULL);
	tr_load_manifest(tc, NULL);
	assert_true(tc->mf.clean_exit);
	assert_int_equal(tc->mf.nthreads, 8);
	if (tc->mf.waits == 0)
		fail_msg("no thread waited: the rings never filled");
	for (size_t i = 0; i < tc->mf.nthreads; i++) {
		const struct tr_thread *th = &tc->mf.threads[i];

		for (unsigned r = 0; r < TR_NDROPS; r++)
			assert_int_equal(th->dropped[r], 0);
		assert_int_equal(th->events, 2 * (200000 + 1));
		written += th->events;
	}
	assert_int_equal(written, 2 * made);
	assert_int_equal(burst_tree_events(tc->replay.out, 8), written);
	assert_non_null(strstr(tc->mf.config, "on_full=wait"));
	tr_pass(tc);
}

/* A writer that makes no progress for longer than a wait's give-up time
 * (it sleeps 1.5 s after every pass, as a writer starved of CPU on a loaded
 * machine may go that long without running) is slow, not blocked on the
 * waiting thread: the thread waits, however long, and nothing is lost. */
static void a_slow_writer_is_waited_for_not_taken_for_a_deadlock(void **state)
{
	struct tr_case *tc = *state;
	const char *const args[] = { "1", "6000", NULL };
	const char *const env[] = { "ADA_RING_KB=64", "ADA_TEST_WRITER_DELAY_US=1500000", NULL };

	tr_build_pair(tc, "burst", "burst", O2);
	tr_run_pair(tc, "burst", args, env, 0);
	assert_string_equal(tc->traced.err, tc->plain.err);
	tr_symbolize(tc, NULL);
	tr_load_manifest(tc, NULL);
	for (unsigned r = 0; r < TR_NDROPS; r++)
		assert_int_equal(tc->mf.dropped[r], 0);
	assert_int_equal(tc->mf.events, 2 * (6000 + 1));
	if (tc->mf.waits == 0)
		fail_msg("no thread waited: the ring never filled");
	tr_pass(tc);
}

/* ADA_VERBOSE=1: one line at exit says what was kept and how often threads
 * waited, with nothing lost. */
static void verbose_prints_the_summary_with_the_waits(void **state)
{
	struct tr_case *tc = *state;
	const char *const args[] = { "2", "100000", NULL };
	const char *const env[] = { "ADA_RING_KB=64", "ADA_TEST_WRITER_DELAY_US=2000",
				    "ADA_VERBOSE=1", NULL };
	const char *const ada[] = { "ada: ", NULL };
	const char *const waited[] = { "ada: threads waited ", " s in total: their rings were full); ",
				       " events kept", NULL };
	char kept[96];

	tr_build_pair(tc, "burst", "burst", O2);
	tr_run_pair(tc, "burst", args, env, 0);
	tr_symbolize(tc, NULL);
	tr_load_manifest(tc, NULL);
	assert_int_equal(tc->mf.events, 2 * 2 * (100000 + 1));
	assert_int_equal(tc->mf.dropped[TR_RING_FULL], 0);
	/* The recorder's CPU, which nothing that waits for the program counts,
	 * follows. */
	snprintf(kept, sizeof(kept), "); %" PRIu64 " events kept; the recorder process used ",
		 tc->mf.events);
	if (tc->mf.waits == 0 || tr_count_lines(tc->traced.err, ada) != 1 ||
	    tr_count_lines(tc->traced.err, waited) != 1 || !strstr(tc->traced.err, kept))
		fail_msg("expected one line \"ada: threads waited ...%s...\" on stderr (%" PRIu64
			 " waits), got:\n%s", kept, tc->mf.waits, tc->traced.err);
	tr_pass(tc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(max_depth_drops_are_exact_and_the_tree_is_cut,
						tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(ring_full_written_plus_lost_equals_calls_made,
						tr_setup, tr_teardown),
		cmocka_unit_test_setup_teardown(ring_full_invariant_holds_over_8_threads, tr_setup,
						tr_teardown),
		cmocka_unit_test_setup_teardown(
			ring_full_waits_and_loses_nothing_over_8_threads_under_load, tr_setup,
			tr_teardown),
		cmocka_unit_test_setup_teardown(verbose_prints_the_summary_with_the_waits, tr_setup,
						tr_teardown),
		cmocka_unit_test_setup_teardown(a_slow_writer_is_waited_for_not_taken_for_a_deadlock,
						tr_setup, tr_teardown),
	};

	tr_scrub_environment();
	return cmocka_run_group_tests_name("runtime drop accounting", tests, NULL, NULL);
}
