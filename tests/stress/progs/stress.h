/* stress.h - what every stress program shares: its traced functions
 * count their own calls, and the program reports the counts on stderr at
 * the end, one line each, "calls <function> <n>", for tests/stress/stress.py
 * to compare with the CALL events in the trace (stdout holds only what must
 * not change between a plain and a traced run).
 *
 * A program defines NF, an enum of its functions and `names` before
 * including this. TRACED functions are never inlined or cloned, so each
 * keeps its name in the trace at -O2.
 */
#ifndef STRESS_H
#define STRESS_H

#include <stdio.h>

#define TRACED __attribute__((noinline, noipa))

static long counts[NF];

#define COUNT(f) __atomic_fetch_add(&counts[f], 1, __ATOMIC_RELAXED)

static void report(const long *c)
{
	for (int i = 0; i < NF; i++)
		fprintf(stderr, "calls %s %ld\n", names[i], c[i]);
}

#endif
