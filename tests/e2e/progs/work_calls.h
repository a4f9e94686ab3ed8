/* work_calls.h - the traced function of the fds_* programs, and a burst of
 * calls to it that leaves the writer time to drain them. Included by one
 * program each: work() is their one instrumented function besides main. */
#ifndef WORK_CALLS_H
#define WORK_CALLS_H

#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) void work(unsigned long i)
{
	sink += i;
}

/* n calls to work(), then 20 ms for the writer to drain them. */
__attribute__((no_instrument_function)) static void calls(unsigned long n)
{
	struct timespec ts = { 0, 20 * 1000000 };

	for (unsigned long i = 0; i < n; i++)
		work(i);
	nanosleep(&ts, NULL);
}

#endif
