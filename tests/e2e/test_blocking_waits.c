/* test_blocking_waits.c - ADA_BLOCKING=1 end to end for the waits beyond a
 * mutex's (test_blocking.c has those): sem_wait, read, poll and
 * pthread_cond_timedwait, through the `waits` view and `info`.
 *
 * tests/e2e/progs/blocking_waits.c (see there), -O2, fentry: thread B
 * waits in each in turn, thread A ends each 20 ms after it saw B inside
 * it. What each check asserts, and why it holds on a busy machine:
 * - Exactly one wait of each kind in B's function that made it, sem_wait,
 *   read on the first pipe's descriptor, poll, the timed condition wait
 *   on the mutex (and that function's pthread_mutex_lock before it), and
 *   A's pthread_mutex_lock of that mutex: 6 rows, 6 waits. Each of B's
 *   four lasts at least 18 ms (A's 20 ms sleep starts once B is inside
 *   the call, after the wait's first tick; a sleep never ends early) and
 *   less than 500 ms (generous for a loaded 2-core machine).
 * - The wakers (lanes.h): sem_wait's is A's sem_post in post_sem, the
 *   timed wait's A's unlock of the mutex in signal_timed (the condition
 *   wait takes its mutex again at its end: the unlock is what let it go
 *   on; the signal is no release). A read or a poll has none: no release
 *   of a descriptor is recorded. Whether A's own lock waited for B's
 *   condition wait to release the mutex depends on the scheduling: not
 *   asserted.
 * - --each lists the 6 waits in time order, sem_wait's with its waker.
 * - info counts the BLOCK records: 6 waits, 3 releases (the post, B's and
 *   A's unlock).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "e2e/blocking_run.h"
#include "lib/tracerun.h"

/* --each's lines: n of them, their times never decreasing; the line of
 * wait must have the waker given. */
static void expect_each(const char *each, size_t n, const char *wait, const char *waker)
{
	const char *p = strchr(each, '\n'); /* after the header */
	double last = 0;
	size_t lines = 0;

	for (p = p ? strchr(p + 1, '\n') : NULL; p && p[1]; p = strchr(p + 1, '\n')) {
		double t = strtod(p + 1, NULL);
		const char *eol = strchr(p + 1, '\n'), *w = strstr(p + 1, wait);

		if (t < last)
			fail_msg("waits --each: not in time order:\n%s", each);
		last = t;
		lines++;
		if (w && (!eol || w < eol)) {
			const char *by = strstr(w, "  woken by thread ");

			if (!by || (eol && by > eol) || !strstr(by, waker) || strstr(by, waker) > eol)
				fail_msg("waits --each: %s without \"%s\":\n%s", wait, waker, each);
		}
	}
	if (lines != n)
		fail_msg("waits --each: %zu lines, expected %zu:\n%s", lines, n, each);
}

static void other_waits(void **state)
{
	struct tr_case *tc = *state;
	const char *const env[] = { "ADA_BLOCKING=1", "ADA_DYNHOOK=on", NULL };
	char sem[64], mutex[64], rd[32], want[128], *waits, *each, *info;
	unsigned a, b;
	void *s, *m;
	int p1, p2;

	blk_build_run(tc, "blocking_waits", env);
	if (sscanf(tc->traced.err, "a %u b %u sem %p m %p p1 %d p2 %d", &a, &b, &s, &m, &p1,
		   &p2) != 6)
		fail_msg("the program printed \"%s\"", tc->traced.err);
	snprintf(sem, sizeof(sem), "sem_wait(%p)", s);
	snprintf(mutex, sizeof(mutex), "pthread_cond_timedwait(mutex %p)", m);
	snprintf(rd, sizeof(rd), "read(fd %d)", p1);
	waits = blk_view(tc, "waits", "--ns");
	if (!strstr(waits, "\n6 waits, ") || blk_rows(waits) != 6)
		fail_msg("waits: expected 6 waits in 6 rows:\n%s", waits);
	blk_expect_row(waits, "wait_sem", sem, 1, a, "post_sem");
	blk_expect_row(waits, "wait_read", rd, 1, a, NULL);
	blk_expect_row(waits, "wait_poll", "poll()", 1, a, NULL);
	blk_expect_row(waits, "wait_timed", mutex, 1, a, "signal_timed");
	snprintf(want, sizeof(want), "pthread_mutex_lock(%p)", m);
	if (blk_row(waits, "wait_timed", want).waits != 1 ||
	    blk_row(waits, "signal_timed", want).waits != 1)
		fail_msg("waits: one lock of %p each in wait_timed and signal_timed:\n%s", m, waits);
	each = blk_view(tc, "waits", "--each");
	snprintf(want, sizeof(want), "(tid %u) in post_sem at ", a);
	expect_each(each, 6, sem, want);
	info = blk_view(tc, "info", NULL);
	if (!strstr(info, "\n  blocking       6 waits, 3 releases\n") || strstr(info, "allocations"))
		fail_msg("info: expected 6 waits and 3 releases, no allocation line:\n%s", info);
	free(waits);
	free(each);
	free(info);
	tr_pass(tc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(other_waits, tr_setup, tr_teardown),
	};

	tr_scrub_environment(); /* no ADA_* of the caller's (make sanitize sets some) */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
