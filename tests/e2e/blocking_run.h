/* blocking_run.h - what the ADA_BLOCKING tests (test_blocking.c,
 * test_blocking_waits.c) share: a program of tests/e2e/progs built plain
 * and traced and run, and the `waits` view's table read back.
 *
 * The blk_* functions fail the running cmocka test themselves, with the
 * view's output, as tracerun.h's do.
 */
#ifndef ADA_TEST_BLOCKING_RUN_H
#define ADA_TEST_BLOCKING_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/tracerun.h"

#define BLK_MS 1000000l

/* tests/e2e/progs/PROG.c built with gcc and with adacc (-O2, fentry), both
 * run with env (the traced one's trace in tc->trace), symbolized. */
void blk_build_run(struct tr_case *tc, const char *prog, const char *const env[]);

/* `ada-symbolize VIEW TRACE [OPT]`'s standard output (it must exit 0). */
char *blk_view(const struct tr_case *tc, const char *view, const char *opt);

/* A row of `waits --ns`: its numbers, and its waker lines ("woken Nx by
 * thread N (tid T) in F", leading spaces dropped, one a line). */
struct blk_row {
	unsigned long waits, woken;
	long total, max;
	char wakers[512];
};

/* The rows of `waits --ns` in the table (the waker lines not counted). */
size_t blk_rows(const char *waits);
/* The one row of function func whose wait starts with wait (an op and
 * its object, "read(fd 3)", or a prefix of it, "pthread_mutex_lock(").
 * Fails unless there is exactly one. */
struct blk_row blk_row(const char *waits, const char *func, const char *wait);
/* The row holds n waits, all woken by one release of the thread of tid in
 * waker (NULL: none woken), each blocked at least 18 ms and less than 500
 * (the program's waits last 20 ms; a loaded machine makes them longer). */
void blk_expect_row(const char *waits, const char *func, const char *wait, unsigned long n,
		    unsigned tid, const char *waker);

#endif
