/* test_window.c - recorder/window.c: triggers to windows, coalescing, the
 * writer's hold-back and closing, on a thread state made here (a ring of
 * slots with known times; no process around it).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ada_internal.h"
#include "runtime/init_stubs.h"
#include "window.h"

#define SLOTS 4096
#define RECORDS 1024

static struct ada_slot ring[SLOTS];
static struct ada_ring_header rh;
static struct ada_thread td;
static struct ada_windows *w;

/* Slot p's time: now - (SLOTS - p) ticks, so every event is recent (the
 * count hold-back lets go of events older than 50 ms). */
static int setup(void **state)
{
	uint64_t now = ada_arch_ticks();

	(void)state;
	memset(&ada_rt, 0, sizeof(ada_rt));
	ada_rt.cfg.detail = ada_rt.cfg.detail_window = true;
	ada_rt.cfg.trigger.pre = (struct ada_roll){ 10, false };
	ada_rt.cfg.trigger.post = (struct ada_roll){ 10, false };
	for (size_t p = 0; p < SLOTS; p++)
		ring[p] = (struct ada_slot){ now - (SLOTS - p), 0x1000 };
	memset(&td, 0, sizeof(td));
	memset(&rh, 0, sizeof(rh));
	td.ring = ring;
	td.rh = &rh;
	td.mask = SLOTS - 1;
	td.dmask = RECORDS - 1;
	td.dring = (uint8_t *)ring; /* window mode needs one; never read here */
	w = ada_windows_of(&td);
	assert_non_null(w);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	ada_windows_free(&td);
	return 0;
}

static void expect(size_t i, uint64_t lo, uint64_t hi, unsigned triggers)
{
	assert_true(i < w->n);
	assert_int_equal(w->win[i].lo, lo);
	assert_int_equal(w->win[i].hi, hi);
	assert_int_equal(w->info[i].triggers, triggers);
}

static void open_at(uint64_t tail, uint64_t pos, const char *label)
{
	ada_window_open(&td, w, tail, ADA_TRIG_MARK, pos, ring[pos].tsc, label);
}

/* Windows are [pos - 10, pos + 10], kept in position order; one that
 * overlaps or touches another merges with it (the first trigger's label
 * and position stay, the triggers add up), and a merge that reaches the
 * next window takes it in too. */
static void test_window_open_orders_and_coalesces(void **state)
{
	(void)state;
	open_at(0, 100, "a");
	expect(0, 90, 110, 1);
	open_at(0, 105, "b");
	assert_int_equal(w->n, 1);
	expect(0, 90, 115, 2);
	assert_string_equal(w->info[0].label, "a");
	assert_int_equal(w->info[0].trigger_pos, 100);
	open_at(0, 200, "c");
	open_at(0, 150, "d");
	assert_int_equal(w->n, 3);
	expect(0, 90, 115, 2);
	expect(1, 140, 160, 1);
	expect(2, 190, 210, 1);
	open_at(0, 126, "e"); /* [116, 136]: touches the first */
	assert_int_equal(w->n, 3);
	expect(0, 90, 136, 3);
	open_at(0, 175, "f"); /* [165, 185]: touches neither */
	assert_int_equal(w->n, 4);
	open_at(0, 170, "g"); /* [160, 180]: joins the second and the new one */
	assert_int_equal(w->n, 3);
	expect(1, 140, 185, 3);
	expect(2, 190, 210, 1);
}

/* A trigger whose pre-roll was partly written already starts at the tail;
 * the positions before it count as lost in its record. */
static void test_window_pre_roll_cut_at_the_tail(void **state)
{
	(void)state;
	open_at(95, 100, "late");
	expect(0, 95, 110, 1);
	assert_int_equal(w->info[0].cut_lost, 5);
	assert_string_equal(w->info[0].label, "late");
}

/* The writer keeps the newest pre-roll back: 10 events, never more than
 * half the detail ring, and nothing from a tail within it. */
static void test_window_hold_keeps_the_pre_roll(void **state)
{
	(void)state;
	assert_int_equal(ada_window_hold(&td, w, 0, 1000), 990);
	assert_int_equal(ada_window_hold(&td, w, 995, 1000), 995);
	ada_rt.cfg.trigger.pre.n = 4000;
	assert_int_equal(ada_window_hold(&td, w, 0, 3000), 3000 - RECORDS / 2);
}

/* A time post-roll leaves the window open until the first event after it. */
static void test_window_time_post_roll_ends_at_the_first_event_after(void **state)
{
	(void)state;
	ada_rt.cfg.trigger.post = (struct ada_roll){ 1, true }; /* 1 ns: a few ticks */
	open_at(0, 100, "t");
	assert_int_equal(w->win[0].hi, UINT64_MAX);
	ada_window_resolve(&td, w, 0, 101);
	assert_int_equal(w->win[0].hi, UINT64_MAX); /* nothing after it yet */
	ada_window_resolve(&td, w, 0, 3000);
	assert_true(w->win[0].hi >= 100 && w->win[0].hi < 3000);
	assert_true(ring[w->win[0].hi].tsc <= w->info[0].post_tsc);
	assert_true(ring[w->win[0].hi + 1].tsc > w->info[0].post_tsc);
}

/* Windows end below the tail are closed (and gone); the rest stay until
 * the thread's record ends. */
static void test_window_close_takes_the_finished_ones(void **state)
{
	(void)state;
	open_at(0, 100, "a");
	open_at(0, 200, "b");
	ada_window_close(&td, w, 150, false);
	assert_int_equal(w->n, 1);
	expect(0, 190, 210, 1);
	ada_window_close(&td, w, 150, false);
	assert_int_equal(w->n, 1);
	ada_window_close(&td, w, 195, true);
	assert_int_equal(w->n, 0);
	assert_false(ada_window_overlaps(w, 0, 1000));
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_window_open_orders_and_coalesces),
		T(test_window_pre_roll_cut_at_the_tail),
		T(test_window_hold_keeps_the_pre_roll),
		T(test_window_time_post_roll_ends_at_the_first_event_after),
		T(test_window_close_takes_the_finished_ones),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
