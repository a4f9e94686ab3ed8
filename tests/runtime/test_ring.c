/* test_ring.c - the recording fast path (thread.h) and its slow paths
 * (thread.c) on a hand-built thread: exact slot sequences, balance by
 * construction when the ring fills or ADA_DEPTH cuts, and the resync of
 * frames left without their exit hook. The reentrancy guard lives in cyg.c,
 * which unit tests do not link; the end-to-end tests cover it. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ada_internal.h"

#include "init_stubs.h"

#define SLOTS 16
#define SHADOW 64

/* Function addresses, call sites and stack positions of the fake program. */
enum { F1 = 0x401000, F2 = 0x402000, F3 = 0x403000, F4 = 0x404000, G = 0x405000 };
enum { S1 = 0x501111, S2 = 0x502222, S3 = 0x503333, S4 = 0x504444, SG = 0x505555 };

struct ring_fixture {
	struct ada_thread td;
	struct ada_ring_header rh;
	struct ada_slot ring[SLOTS];
	struct ada_frame shadow[SHADOW];
};

static struct ring_fixture *fx;

static int setup(void **state)
{
	(void)state;
	fx = calloc(1, sizeof(*fx));
	fx->td.ring = fx->ring;
	fx->td.rh = &fx->rh;
	fx->td.mask = SLOTS - 1;
	fx->td.limit = SLOTS;
	fx->td.shadow = fx->shadow;
	fx->td.shadow_cap = SHADOW;
	fx->td.max_limit = fx->td.record_limit = UINT32_MAX;
	/* Every fake stack position below counts as this thread's own stack,
	 * so that abandoned frames are resynced (thread.c on_thread_stack). */
	fx->td.stack_lo = 1;
	fx->td.stack_span = UINTPTR_MAX - 1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(fx);
	return 0;
}

/* The ring never holds more than it can: what the writer has not consumed
 * always fits, so no slot was overwritten before being read; and the
 * producer's cached limit never promises more room than there is. */
static void check_room(void)
{
	assert_true(fx->td.rh->head - fx->td.rh->tail <= SLOTS);
	assert_true(fx->td.limit <= fx->td.rh->tail + SLOTS);
}

static void enter(uintptr_t fn, uintptr_t site, uintptr_t sp)
{
	ada_record_enter(&fx->td, fn, site, sp);
	check_room();
}

static void leave(uintptr_t fn, uintptr_t site)
{
	ada_record_exit(&fx->td, fn, site);
	check_room();
}

struct want {
	unsigned kind;
	uintptr_t addr;
};
#define CALL(a) { ADA_RAW_CALL, (a) }
#define RET(a) { ADA_RAW_RETURN, (a) }
#define EXC(a) { ADA_RAW_EXCEPTION, (a) }

/* Reads every slot between tail and head as the writer does, compares them
 * with `want`, and hands the slots back. */
static void consume_expect(const struct want *want, size_t n)
{
	struct ada_thread *td = &fx->td;
	uint64_t head = __atomic_load_n(&td->rh->head, __ATOMIC_ACQUIRE), i;
	uint64_t prev_tsc = 0;

	assert_int_equal(head - td->rh->tail, n);
	for (i = 0; i < n; i++) {
		const struct ada_slot *s = &td->ring[(td->rh->tail + i) & td->mask];

		assert_int_equal(ADA_SLOT_KIND(s->word), want[i].kind);
		assert_int_equal(ADA_SLOT_ADDR(s->word), want[i].addr);
		assert_true(s->tsc >= prev_tsc);
		prev_tsc = s->tsc;
	}
	__atomic_store_n(&td->rh->tail, head, __ATOMIC_RELEASE);
}
#define EXPECT(...)                                                        \
	do {                                                               \
		const struct want w_[] = { __VA_ARGS__ };                  \
		consume_expect(w_, sizeof(w_) / sizeof(w_[0]));            \
	} while (0)

static void expect_nothing(void)
{
	assert_int_equal(fx->td.rh->head, fx->td.rh->tail);
}

static uint64_t dropped(unsigned reason)
{
	return fx->td.rh->dropped[reason];
}

static void assert_no_drops(void)
{
	unsigned r;

	for (r = 0; r < ADA_DROP_NREASONS; r++)
		assert_int_equal(dropped(r), 0);
}

/* ---- nesting ---------------------------------------------------------------- */

static void test_ring_nested_calls_write_call_and_return_in_order(void **state)
{
	(void)state;
	enter(F1, S1, 1000);
	enter(F2, S2, 900);
	leave(F2, S2);
	enter(F3, S3, 900);
	enter(F4, S4, 800);
	leave(F4, S4);
	leave(F3, S3);
	leave(F1, S1);
	EXPECT(CALL(F1), CALL(F2), RET(F2), CALL(F3), CALL(F4), RET(F4), RET(F3), RET(F1));
	assert_int_equal(fx->td.depth, 0);
	assert_int_equal(fx->td.resyncs, 0);
	assert_no_drops();
}

static void test_ring_shadow_stack_holds_open_frames(void **state)
{
	(void)state;
	enter(F1, S1, 1000);
	enter(F2, S2, 900);
	assert_int_equal(fx->td.depth, 2);
	assert_int_equal(fx->shadow[0].fn, F1);
	assert_int_equal(fx->shadow[0].site, S1);
	assert_int_equal(fx->shadow[0].sp, 1000);
	assert_int_equal(fx->shadow[1].fn, F2);
	assert_int_equal(fx->shadow[1].site, S2);
	assert_int_equal(fx->shadow[1].sp, 900);
	leave(F2, S2);
	assert_int_equal(fx->td.depth, 1);
}

static void test_ring_index_wraps_around_the_end(void **state)
{
	unsigned i;

	(void)state;
	/* 10 slots, consumed: the next 12 go to slots 10..15 then 0..5. */
	for (i = 0; i < 5; i++) {
		enter(F1, S1, 1000);
		leave(F1, S1);
	}
	EXPECT(CALL(F1), RET(F1), CALL(F1), RET(F1), CALL(F1), RET(F1), CALL(F1), RET(F1),
	       CALL(F1), RET(F1));
	enter(F1, S1, 1000);
	for (i = 0; i < 5; i++) {
		enter(F2, S2, 900);
		leave(F2, S2);
	}
	leave(F1, S1);
	assert_int_equal(fx->td.rh->head, 22);
	assert_int_equal(ADA_SLOT_KIND(fx->ring[15].word), ADA_RAW_CALL);   /* 3rd CALL F2 */
	assert_int_equal(ADA_SLOT_ADDR(fx->ring[15].word), F2);
	assert_int_equal(ADA_SLOT_KIND(fx->ring[5].word), ADA_RAW_RETURN); /* RETURN F1 */
	assert_int_equal(ADA_SLOT_ADDR(fx->ring[5].word), F1);
	EXPECT(CALL(F1), CALL(F2), RET(F2), CALL(F2), RET(F2), CALL(F2), RET(F2), CALL(F2),
	       RET(F2), CALL(F2), RET(F2), RET(F1));
	assert_no_drops();
}

/* ---- ring full ---------------------------------------------------------------- */

/* F1 open, then F2 calls and returns until the ring has no room for another
 * CALL at depth 2 (it needs its own slot and the RETURNs of depth 2 and 1). */
static void fill_under_f1(void)
{
	unsigned i;

	enter(F1, S1, 1000);
	for (i = 0; i < 7; i++) {
		enter(F2, S2, 900);
		leave(F2, S2);
	}
	assert_int_equal(fx->td.rh->head, 15); /* one slot left: F1's reserved RETURN */
}

static void test_ring_full_skips_the_calls_subtree_and_counts_it(void **state)
{
	(void)state;
	fill_under_f1();
	enter(F3, S3, 900);  /* no room: skipped with all it calls */
	enter(F4, S4, 800);
	leave(F4, S4);
	enter(F4, S4, 800);
	leave(F4, S4);
	leave(F3, S3);
	assert_int_equal(dropped(ADA_DROP_RING_FULL), 6); /* 3 CALLs + 3 RETURNs */
	assert_int_equal(dropped(ADA_DROP_MAX_DEPTH), 0);
	leave(F1, S1); /* the parent's RETURN is written: balanced */
	assert_int_equal(fx->td.rh->head, SLOTS);
	EXPECT(CALL(F1), CALL(F2), RET(F2), CALL(F2), RET(F2), CALL(F2), RET(F2), CALL(F2),
	       RET(F2), CALL(F2), RET(F2), CALL(F2), RET(F2), CALL(F2), RET(F2), RET(F1));
	assert_int_equal(dropped(ADA_DROP_RING_FULL), 6);
}

static void test_ring_full_skip_holds_even_after_the_writer_catches_up(void **state)
{
	(void)state;
	fill_under_f1();
	enter(F3, S3, 900); /* skipped */
	/* The writer frees the ring while F3 runs: F3's children must still be
	 * skipped, or their RETURNs would close F1 in the decoded trace. */
	EXPECT(CALL(F1), CALL(F2), RET(F2), CALL(F2), RET(F2), CALL(F2), RET(F2), CALL(F2),
	       RET(F2), CALL(F2), RET(F2), CALL(F2), RET(F2), CALL(F2), RET(F2));
	enter(F4, S4, 800);
	leave(F4, S4);
	leave(F3, S3);
	expect_nothing();
	assert_int_equal(dropped(ADA_DROP_RING_FULL), 4);
	leave(F1, S1);
	EXPECT(RET(F1));
}

static void test_ring_recording_resumes_after_the_skipped_subtree_closes(void **state)
{
	(void)state;
	fill_under_f1();
	enter(F3, S3, 900); /* skipped */
	leave(F3, S3);
	assert_int_equal(fx->td.record_limit, UINT32_MAX);
	assert_int_equal(fx->td.skip_from, 0);
	/* The writer drains; the next sibling is recorded again. */
	EXPECT(CALL(F1), CALL(F2), RET(F2), CALL(F2), RET(F2), CALL(F2), RET(F2), CALL(F2),
	       RET(F2), CALL(F2), RET(F2), CALL(F2), RET(F2), CALL(F2), RET(F2));
	enter(F4, S4, 900);
	leave(F4, S4);
	leave(F1, S1);
	EXPECT(CALL(F4), RET(F4), RET(F1));
	assert_int_equal(dropped(ADA_DROP_RING_FULL), 2);
}

static void test_ring_reservation_leaves_a_slot_for_every_open_return(void **state)
{
	uintptr_t sp;
	int d;

	(void)state;
	/* 16 slots hold 8 CALLs and their 8 RETURNs: the 9th CALL is skipped
	 * although 8 slots look free, and every RETURN then finds its slot
	 * with the writer not consuming anything. */
	for (d = 0, sp = 1000; d < 10; d++, sp -= 10)
		enter(F1 + (uintptr_t)d, S1, sp);
	assert_int_equal(fx->td.rh->head, 8);
	assert_int_equal(dropped(ADA_DROP_RING_FULL), 2);
	for (d = 9; d >= 0; d--) {
		sp += 10;
		leave(F1 + (uintptr_t)d, S1);
	}
	assert_int_equal(fx->td.rh->head, SLOTS); /* exactly full */
	assert_int_equal(fx->td.depth, 0);
	assert_int_equal(dropped(ADA_DROP_RING_FULL), 4);
	EXPECT(CALL(F1 + 0), CALL(F1 + 1), CALL(F1 + 2), CALL(F1 + 3), CALL(F1 + 4), CALL(F1 + 5),
	       CALL(F1 + 6), CALL(F1 + 7), RET(F1 + 7), RET(F1 + 6), RET(F1 + 5), RET(F1 + 4),
	       RET(F1 + 3), RET(F1 + 2), RET(F1 + 1), RET(F1 + 0));
}

/* ---- ADA_DEPTH --------------------------------------------------------------- */

static void test_ring_max_depth_skips_deeper_frames_and_stays_balanced(void **state)
{
	(void)state;
	fx->td.max_limit = fx->td.record_limit = 2;
	enter(F1, S1, 1000);
	enter(F2, S2, 900);
	enter(F3, S3, 800); /* depth 3: not recorded */
	enter(F4, S4, 700);
	leave(F4, S4);
	leave(F3, S3);
	enter(F3, S3, 800);
	leave(F3, S3);
	leave(F2, S2);
	leave(F1, S1);
	EXPECT(CALL(F1), CALL(F2), RET(F2), RET(F1));
	assert_int_equal(dropped(ADA_DROP_MAX_DEPTH), 6);
	assert_int_equal(dropped(ADA_DROP_RING_FULL), 0);
	assert_int_equal(fx->td.record_limit, 2);
	assert_int_equal(fx->td.depth, 0);
}

static void test_ring_max_depth_inside_a_ring_full_skip_counts_each_reason(void **state)
{
	unsigned i;

	(void)state;
	fx->td.max_limit = fx->td.record_limit = 3;
	enter(F1, S1, 1000);
	for (i = 0; i < 7; i++) {
		enter(F2, S2, 900);
		leave(F2, S2);
	}
	enter(F3, S3, 900); /* depth 2, ring full */
	enter(F4, S4, 800); /* depth 3: ring_full (inside the skipped subtree) */
	enter(G, SG, 700);  /* depth 4: max_depth */
	leave(G, SG);
	leave(F4, S4);
	leave(F3, S3);
	assert_int_equal(dropped(ADA_DROP_RING_FULL), 4);
	assert_int_equal(dropped(ADA_DROP_MAX_DEPTH), 2);
	assert_int_equal(fx->td.record_limit, 3);
	leave(F1, S1);
	assert_int_equal(fx->td.rh->head, SLOTS);
}

/* ---- frames left without their exit hook ------------------------------------------ */

static void open_f1_f2_f3(void)
{
	enter(F1, S1, 1000);
	enter(F2, S2, 900);
	enter(F3, S3, 800);
}

static void test_ring_enter_above_open_frames_closes_them_as_exceptions(void **state)
{
	(void)state;
	open_f1_f2_f3();
	/* longjmp back into F1, which then calls G from another site: G's
	 * frame sits where F2's was, so F3 and F2 were abandoned. */
	enter(G, SG, 900);
	assert_int_equal(fx->td.depth, 2);
	assert_int_equal(fx->td.resyncs, 2);
	assert_int_equal(fx->shadow[1].fn, G);
	leave(G, SG);
	leave(F1, S1);
	EXPECT(CALL(F1), CALL(F2), CALL(F3), EXC(F3), EXC(F2), CALL(G), RET(G), RET(F1));
	assert_int_equal(fx->td.depth, 0);
	assert_no_drops();
}

static void test_ring_exit_of_an_outer_frame_closes_the_inner_ones(void **state)
{
	(void)state;
	open_f1_f2_f3();
	leave(F1, S1);
	EXPECT(CALL(F1), CALL(F2), CALL(F3), EXC(F3), EXC(F2), RET(F1));
	assert_int_equal(fx->td.depth, 0);
	assert_int_equal(fx->td.resyncs, 2);
	assert_no_drops();
}

/* gcc's partial inlining runs some exit hooks in the caller's frame: a
 * recursive function's exit then comes at its caller's position, which is
 * also where an older activation of it with the same call site was
 * recorded. Each exit closes the innermost frame it names: nothing is
 * abandoned, nothing unmatched (Lua's parser, singlevaraux, did this). */
static void test_ring_recursive_exit_at_the_callers_position_closes_the_innermost(void **state)
{
	(void)state;
	enter(F1, S1, 1000);
	enter(F2, S1, 900);  /* F2 called from F1 */
	enter(F2, S2, 800);  /* F2 calling itself */
	enter(F2, S2, 700);  /* and again, from the same call site */
	leave(F2, S2);       /* reported at 800: the caller's position */
	leave(F2, S2);       /* at 900 */
	leave(F2, S1);
	leave(F1, S1);
	EXPECT(CALL(F1), CALL(F2), CALL(F2), CALL(F2), RET(F2), RET(F2), RET(F2), RET(F1));
	assert_int_equal(dropped(ADA_DROP_UNMATCHED), 0);
	assert_int_equal(fx->td.depth, 0);
}

/* The other half of partial inlining: the head inlined in F1 runs F2's
 * entry hook with F1's site and position, the split-off part its exit hook
 * with a return address inside F1. The exit closes F2 all the same (Lua's
 * luaV_concat did this). */
static void test_ring_split_function_exit_from_another_site_closes_it(void **state)
{
	(void)state;
	enter(F1, S1, 1000);
	enter(F2, S1, 1000); /* the head, inlined in F1 */
	enter(G, SG, 900);   /* the part's callee */
	leave(G, SG);
	leave(F2, S2);       /* from the part: a return address in F1 */
	leave(F1, S1);
	EXPECT(CALL(F1), CALL(F2), CALL(G), RET(G), RET(F2), RET(F1));
	assert_int_equal(dropped(ADA_DROP_UNMATCHED), 0);
	assert_int_equal(fx->td.depth, 0);
}

static void test_ring_inlined_frame_at_the_parents_sp_and_site_nests(void **state)
{
	(void)state;
	enter(F1, S1, 1000);
	/* F2 inlined into F1: its hooks run in F1's frame with F1's return
	 * address. */
	enter(F2, S1, 1000);
	assert_int_equal(fx->td.depth, 2);
	leave(F2, S1);
	leave(F1, S1);
	EXPECT(CALL(F1), CALL(F2), RET(F2), RET(F1));
	assert_int_equal(fx->td.resyncs, 0);
	assert_no_drops();
}

static void test_ring_frame_on_another_stack_nests(void **state)
{
	(void)state;
	/* A signal handler on an alternate stack above this thread's stack. */
	fx->td.stack_lo = 100;
	fx->td.stack_span = 1900;
	enter(F1, S1, 1000);
	enter(F2, S2, 900);
	enter(G, SG, 5000);
	leave(G, SG);
	leave(F2, S2);
	leave(F1, S1);
	EXPECT(CALL(F1), CALL(F2), CALL(G), RET(G), RET(F2), RET(F1));
	assert_int_equal(fx->td.resyncs, 0);
}

static void test_ring_abandoned_skipped_frame_closes_without_a_slot(void **state)
{
	(void)state;
	fx->td.max_limit = fx->td.record_limit = 2;
	open_f1_f2_f3(); /* F3 is beyond ADA_DEPTH */
	enter(G, SG, 900);
	leave(G, SG);
	leave(F1, S1);
	EXPECT(CALL(F1), CALL(F2), EXC(F2), CALL(G), RET(G), RET(F1));
	assert_int_equal(dropped(ADA_DROP_MAX_DEPTH), 2); /* F3's CALL and its close */
}

static void test_ring_exit_with_no_open_frame_counts_unmatched(void **state)
{
	(void)state;
	leave(F1, S1);
	expect_nothing();
	assert_int_equal(dropped(ADA_DROP_UNMATCHED), 1);
	assert_int_equal(fx->td.depth, 0);
	/* The next frame is recorded normally. */
	enter(F2, S2, 900);
	leave(F2, S2);
	EXPECT(CALL(F2), RET(F2));
}

static void test_ring_exit_matching_no_open_frame_counts_unmatched(void **state)
{
	(void)state;
	enter(F1, S1, 1000);
	leave(G, SG); /* began before tracing did */
	assert_int_equal(dropped(ADA_DROP_UNMATCHED), 1);
	assert_int_equal(fx->td.depth, 1);
	assert_int_equal(fx->td.resyncs, 0);
	leave(F1, S1);
	EXPECT(CALL(F1), RET(F1));
}

/* ---- fork ----------------------------------------------------------------------- */

/* ada_thread_after_fork works on the calling thread's registered state. */
static void as_this_thread(void)
{
	ada_self.td = &fx->td;
	ada_rt.threads = NULL;
	/* The child's new ring: memory of the fixture's size. */
	ada_rt.cfg.ring_bytes = SLOTS * sizeof(struct ada_slot);
	assert_int_equal(pthread_key_create(&ada_rt.exit_key, NULL), 0);
}

static void forget_this_thread(void)
{
	pthread_key_delete(ada_rt.exit_key);
	ada_self.td = NULL;
	ada_rt.threads = NULL;
}

static void test_ring_fork_child_drops_the_parents_slots_and_rerecords_open_frames(void **state)
{
	(void)state;
	as_this_thread();
	open_f1_f2_f3();
	enter(F4, S4, 700);
	leave(F4, S4);
	fx->td.rh->dropped[ADA_DROP_RING_FULL] = 5;
	ada_thread_after_fork(12345);
	assert_ptr_equal(ada_rt.threads, &fx->td);
	assert_int_equal(fx->td.depth, 3);
	assert_no_drops();
	assert_int_equal(fx->td.rh->head - fx->td.rh->tail, 3);
	assert_int_equal(fx->td.ring[fx->td.rh->tail & fx->td.mask].tsc, 12345);
	leave(F3, S3);
	leave(F2, S2);
	leave(F1, S1);
	EXPECT(CALL(F1), CALL(F2), CALL(F3), RET(F3), RET(F2), RET(F1));
	forget_this_thread();
}

static void test_ring_fork_child_rerecords_only_what_the_ring_holds(void **state)
{
	uintptr_t sp;
	int d;

	(void)state;
	as_this_thread();
	/* 10 open frames, 8 of them recorded; the writer drained them. */
	for (d = 0, sp = 1000; d < 10; d++, sp -= 10)
		enter(F1 + (uintptr_t)d, S1, sp);
	fx->td.rh->tail = fx->td.rh->head;
	ada_thread_after_fork(1);
	/* 16 slots: 7 CALLs now and their 7 RETURNs later. */
	assert_int_equal(fx->td.rh->head - fx->td.rh->tail, 7);
	assert_int_equal(fx->td.record_limit, 7);
	for (d = 9; d >= 0; d--) {
		sp += 10;
		leave(F1 + (uintptr_t)d, S1);
	}
	assert_int_equal(fx->td.record_limit, UINT32_MAX);
	assert_int_equal(dropped(ADA_DROP_RING_FULL), 3); /* the RETURNs of depths 10..8 */
	EXPECT(CALL(F1 + 0), CALL(F1 + 1), CALL(F1 + 2), CALL(F1 + 3), CALL(F1 + 4), CALL(F1 + 5),
	       CALL(F1 + 6), RET(F1 + 6), RET(F1 + 5), RET(F1 + 4), RET(F1 + 3), RET(F1 + 2),
	       RET(F1 + 1), RET(F1 + 0));
	forget_this_thread();
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_ring_nested_calls_write_call_and_return_in_order),
		T(test_ring_shadow_stack_holds_open_frames),
		T(test_ring_index_wraps_around_the_end),
		T(test_ring_full_skips_the_calls_subtree_and_counts_it),
		T(test_ring_full_skip_holds_even_after_the_writer_catches_up),
		T(test_ring_recording_resumes_after_the_skipped_subtree_closes),
		T(test_ring_reservation_leaves_a_slot_for_every_open_return),
		T(test_ring_max_depth_skips_deeper_frames_and_stays_balanced),
		T(test_ring_max_depth_inside_a_ring_full_skip_counts_each_reason),
		T(test_ring_enter_above_open_frames_closes_them_as_exceptions),
		T(test_ring_exit_of_an_outer_frame_closes_the_inner_ones),
		T(test_ring_recursive_exit_at_the_callers_position_closes_the_innermost),
		T(test_ring_split_function_exit_from_another_site_closes_it),
		T(test_ring_inlined_frame_at_the_parents_sp_and_site_nests),
		T(test_ring_frame_on_another_stack_nests),
		T(test_ring_abandoned_skipped_frame_closes_without_a_slot),
		T(test_ring_exit_with_no_open_frame_counts_unmatched),
		T(test_ring_exit_matching_no_open_frame_counts_unmatched),
		T(test_ring_fork_child_drops_the_parents_slots_and_rerecords_open_frames),
		T(test_ring_fork_child_rerecords_only_what_the_ring_holds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
